"""Warm-up to steady state: load a server in short chunks until its throughput is stable,
bounded by a maximum time. A plain function of a `chunk` callable (one short unmeasured run,
its throughput), so it is tested without any SDK."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from uabench.engine.schedule import STEADY_RUN, STEADY_TOLERANCE, steady_index


@dataclass
class SteadyState:
    """What a warm-up found: the throughput of every chunk, where the steady run begins (None:
    never steady within the bound) and the time from the first chunk to it."""

    throughputs: list[float] = field(default_factory=list)
    starts_s: list[float] = field(default_factory=list)  # each chunk's start after the first
    start: int | None = None  # index of the first chunk of the steady run
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
) -> SteadyState:
    """Runs `chunk(index)` (its throughput, or why it gave none) until `run` successive chunks
    agree within ±`tolerance`, or `bound_s` has passed (at least `run` chunks either way)."""
    found = SteadyState()
    begun = clock()
    while True:
        found.starts_s.append(clock() - begun)
        value = chunk(len(found.throughputs))
        if isinstance(value, str):
            found.failure = value
            found.starts_s.pop()
            break
        found.throughputs.append(value)
        found.start = steady_index(found.throughputs, tolerance, run)
        if found.steady or (clock() - begun >= bound_s and len(found.throughputs) >= run):
            break
    found.elapsed_s = clock() - begun
    return found


@dataclass(frozen=True)
class SteadyRule:
    """How a server is warmed up: chunks of `chunk_s` measured seconds (after `chunk_warmup_s`
    of the chunk client's own warm-up), until `run` successive chunks agree within ±`tolerance`
    or `bound_s` has passed. A bound of 0 still runs `run` chunks: a server is never measured cold."""

    bound_s: float = 20.0
    chunk_s: float = 1.0
    chunk_warmup_s: float = 0.2
    tolerance: float = STEADY_TOLERANCE
    run: int = STEADY_RUN

    def summary(self) -> dict:
        """What the report states of the rule (kept with the run and every steady-state cell)."""
        return {
            "bound_s": self.bound_s,
            "chunk_s": self.chunk_s,
            "chunk_warmup_s": self.chunk_warmup_s,
            "tolerance": self.tolerance,
            "run": self.run,
        }
