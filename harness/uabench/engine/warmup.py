"""Warm-up to steady state: load a server in short chunks until its throughput is stable,
bounded by a maximum time. A plain function of a `chunk` callable (one short unmeasured run,
its throughput), so it is tested without any SDK.

Steady means a run of chunks, reaching to the last one and lasting at least as long as the climb
before it (a JIT runtime's compiler works in steps, and a short plateau between two steps looked
steady: Milo held 130k values/s for three chunks, then went on to 220k over 30 more seconds),
that is one of:
- within ±tolerance of its mean throughout (at least `run` chunks), or
- without a trend: over the last max(TREND_CHUNKS, half of all) chunks, Kendall's rank correlation
  with time below TREND_TAU either way (noise does not order chunks, compiling does) while they
  scatter like noise (10th to 90th percentile within TREND_SPREAD of the median) and the later
  half of them is no faster or slower than the earlier half (TREND_SHIFT). On a machine
  whose chunks scatter by more than the tolerance (two cores shared by server, client and
  harness) every server would otherwise be warmed up to the bound; the scatter stays visible in
  the measured repetitions' CV, and a trend left in them marks the figure (stats.drift).

MSER-5 (results.steady.mser5) over the chunks' timeline windows was considered and left out:
each chunk is a new connection, and the level shifts between chunks look to it like transients."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.stats

from uabench.engine.schedule import STEADY_RUN, STEADY_TOLERANCE, steady_index

# No trend: over the last TREND_CHUNKS (or half of all) chunks, |Kendall's tau| with their order below TREND_TAU
# (0.6 with 5 chunks: at most 7 of the 10 pairs in the same order; a random order reaches it
# about one time in nine, a steady ramp always does).
TREND_CHUNKS = 5
TREND_TAU = 0.6
# ...and only while they scatter like noise: a JIT's step (Milo went 123k, 123k, 262k, 249k, 262k
# values/s in a reference run, tau 0.53 with the ties) has no rank trend but is no steady state.
TREND_SPREAD = 0.15  # (90th - 10th percentile) / median of those chunks: one dip does not count
# ...and the later half of them as fast as the earlier half: Milo's 242k, 291k, 291k, 305k, 289k
# has no rank trend (tau 0.4) and little spread, but it went on to 415k in the measured blocks.
TREND_SHIFT = 0.05  # |median of the later half / median of the earlier half - 1|


def steady_from(
    throughputs: list[float], tolerance: float = STEADY_TOLERANCE, run: int = STEADY_RUN
) -> tuple[int, str] | None:
    """(first chunk of the steady run, the rule that found it: "tolerance" or "no trend"), or None."""
    n = len(throughputs)
    for start in range(0, n - run + 1):  # the earliest start that qualifies
        if n - start < start:  # shorter than the climb before it
            continue
        if steady_index(throughputs[start:], tolerance, n - start) == 0:
            return start, "tolerance"
    length = max(TREND_CHUNKS, math.ceil(n / 2))
    if n >= length:
        recent = np.asarray(throughputs[-length:], dtype=float)
        tau = scipy.stats.kendalltau(range(length), recent).statistic
        middle = float(np.median(recent))
        spread = (np.percentile(recent, 90) - np.percentile(recent, 10)) / middle if middle else 0.0
        # all equal (tau NaN) cannot reach here: those agree within any tolerance
        half = length // 2
        shift = abs(float(np.median(recent[-half:])) / float(np.median(recent[:half])) - 1) if middle else 0.0
        if abs(tau) < TREND_TAU and spread <= TREND_SPREAD and shift <= TREND_SHIFT:
            return n - length, "no trend"
    return None


@dataclass
class SteadyState:
    """What a warm-up found: the throughput of every chunk, where the steady run begins (None:
    never steady within the bound) and the time from the first chunk to it."""

    throughputs: list[float] = field(default_factory=list)
    starts_s: list[float] = field(default_factory=list)  # each chunk's start after the first
    start: int | None = None  # index of the first chunk of the steady run
    rule: str | None = None  # which rule found it: "tolerance" or "no trend"
    elapsed_s: float = 0.0
    failure: str | None = None  # a chunk did not give a throughput

    @property
    def steady(self) -> bool:
        return self.start is not None

    @property
    def seconds(self) -> float:
        """Time to steady state: from the first chunk to the start of the steady run, or
        the whole warm-up when it never became steady."""
        return self.starts_s[self.start] if self.start is not None else self.elapsed_s


def warm_up(
    chunk: Callable[[int], float | str],
    bound_s: float,
    tolerance: float = STEADY_TOLERANCE,
    run: int = STEADY_RUN,
    clock: Callable[[], float] = time.monotonic,
    floor_s: float = 0.0,
) -> SteadyState:
    """Runs `chunk(index)` (its throughput, or why it gave none) until the chunks are steady
    (`steady_from`) or `bound_s` has passed (at least `run` chunks either way). Before `floor_s`
    (a JIT runtime's least warm-up, sdk.toml [expectations] warmup_s) no run of chunks counts as
    steady, and the warm-up lasts at least that long."""
    found = SteadyState()
    begun = clock()
    bound_s = max(bound_s, floor_s)
    while True:
        found.starts_s.append(clock() - begun)
        value = chunk(len(found.throughputs))
        if isinstance(value, str):
            found.failure = value
            found.starts_s.pop()
            break
        found.throughputs.append(value)
        verdict = steady_from(found.throughputs, tolerance, run) if clock() - begun >= floor_s else None
        if verdict is not None:
            found.start, found.rule = verdict
            break
        if clock() - begun >= bound_s and len(found.throughputs) >= run:
            break
    found.elapsed_s = clock() - begun
    return found


@dataclass(frozen=True)
class SteadyRule:
    """How a server is warmed up: chunks of `chunk_s` measured seconds (after `chunk_warmup_s`
    of the chunk client's own warm-up), until they are steady (`steady_from`) or `bound_s` has
    passed. A bound of 0 still runs `run` chunks: a server is never measured cold."""

    bound_s: float = 20.0
    chunk_s: float = 1.0
    chunk_warmup_s: float = 0.2
    tolerance: float = STEADY_TOLERANCE
    run: int = STEADY_RUN
    sdk_floor: bool = True  # a server's first warm-up lasts at least its SDK's warmup_s (sdk.toml [expectations])

    def summary(self) -> dict:
        """What the report states of the rule (kept with the run and every steady-state cell)."""
        return {
            "bound_s": self.bound_s,
            "chunk_s": self.chunk_s,
            "chunk_warmup_s": self.chunk_warmup_s,
            "tolerance": self.tolerance,
            "run": self.run,
            "trend_chunks": TREND_CHUNKS,
            "trend_tau": TREND_TAU,
            "trend_spread": TREND_SPREAD,
            "trend_shift": TREND_SHIFT,
        }
