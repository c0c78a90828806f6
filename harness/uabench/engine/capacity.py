"""The open-loop capacity search as plain functions of a `probe` callable, so it can be tested
without Robot or any SDK: the highest offered read rate a server sustains within the plan's
bound, then the overload probes beyond it."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from uabench.engine.cells import Outcome
from uabench.engine.constants import GRACEFUL_SHARE, MIN_CAPACITY_RATE
from uabench.results import stats


@dataclass(frozen=True)
class Probe:
    """One probe of the capacity search: did the server sustain the offered rate, and its
    figures (completed share, throughput, p99) if it answered at all."""

    ok: bool
    figures: dict | None
    outcome: Outcome


@dataclass(frozen=True)
class CapacityResult:
    rate: float  # the highest offered rate that was sustained
    figures: dict  # its figures
    overload_rate: float
    overload: Probe  # the probe beyond it


class NoCapacity(Exception):
    """Not even the lowest rate tried was sustained."""

    def __init__(self, rate: float) -> None:
        super().__init__(f"not even {rate:g} requests/s sustained")
        self.rate = rate


def capacity(
    probe: Callable[[float, str], Probe],
    start_rate: float,
    max_rate: float,
    refine_steps: int,
    overload_factor: float,
    min_rate: float = MIN_CAPACITY_RATE,
) -> CapacityResult:
    """Doubles the offered rate from `start_rate` until a probe misses (or `max_rate` is
    passed), halves it when even the start rate misses (down to `min_rate`), bisects between
    the highest sustained and the lowest missed rate `refine_steps` times, then probes
    `overload_factor` times the capacity (label "overload"; the others are "probe")."""
    good: tuple[float, dict] | None = None
    bad, rate = None, start_rate
    while rate <= max_rate:
        result = probe(rate, "probe")
        if not result.ok:
            bad = rate
            break
        good = (rate, result.figures or {})
        rate *= 2
    while good is None and rate / 2 >= min_rate:
        bad, rate = rate, rate / 2
        result = probe(rate, "probe")
        if result.ok:
            good = (rate, result.figures or {})
    if good is None:
        raise NoCapacity(rate)
    if bad is not None:
        for _ in range(refine_steps):
            middle = (good[0] + bad) / 2
            result = probe(middle, "probe")
            if result.ok:
                good = (middle, result.figures or {})
            else:
                bad = middle
    overload_rate = good[0] * overload_factor
    return CapacityResult(good[0], good[1], overload_rate, probe(overload_rate, "overload"))


def probe_figures(outcome: Outcome, rate: float, duration_s: float) -> dict | None:
    """Completed share of the offered requests, achieved throughput and p99 of one probe."""
    result = outcome.result
    if not result:
        return None
    offered = rate * duration_s
    p99 = stats.merge_histograms([result["latency_ns"]]).percentile(99)
    return {
        "completed": result["operations"]["succeeded"] / offered if offered else 0.0,
        "throughput": result["throughput"]["ops_per_s"],
        "p99_ms": p99 / 1e6 if p99 is not None else math.inf,
        "failed": result["operations"]["failed"],
    }


def classify_overload(capacity_throughput: float, figures: dict | None, alive: bool) -> str:
    """graceful: throughput holds (≥ 80% of capacity) while latency grows; collapse: it falls
    well below; crash: the server exited or stopped answering."""
    if not alive or figures is None or figures["throughput"] == 0:
        return "crash"
    return "graceful" if figures["throughput"] >= GRACEFUL_SHARE * capacity_throughput else "collapse"
