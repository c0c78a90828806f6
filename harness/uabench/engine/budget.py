"""A run's time budget for its adaptive repetitions.

`uabench run --time-budget` shares the budget out over the run's tests in proportion to their
typical estimates (uabench.estimate): test k is due at the budget's share of the estimated
time up to and including it. An interleaved comparison measures its fewest blocks whatever
the clock says, and a further block only while that block, as long as its last one took,
still ends before its test is due. Time a test leaves unused carries over to the tests after
it, time one overruns is taken from them, so the run as a whole ends near its budget however
its warm-ups went, and the adaptive repetitions never push it past.

The due time of the running test is kept here, set by the `robot.pacing.Pacer` listener as
each test starts: a listener and a keyword library are separate objects in one process, and
this small module is the one place both can reach (hand-written: Robot has no such channel)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

_due: float | None = None  # time.monotonic() by which the running test is due; None: no budget
_run_budget: float | None = None  # the run's whole budget in seconds, for its provenance
_estimates: dict[str, float] = {}  # each suite's estimated seconds (uabench.estimate), for its provenance


def shares(estimated: Sequence[float], budget_s: float) -> list[float]:
    """Seconds from the start of the run by which each test is due: the budget shared out in
    proportion to the tests' estimated seconds (in run order)."""
    total = sum(estimated)
    if budget_s <= 0:
        raise ValueError(f"time budget: must be positive, got {budget_s}")
    if total <= 0:
        return [budget_s] * len(estimated)
    return [budget_s * done / total for done in itertools.accumulate(estimated)]


def set_run_budget(seconds: float | None) -> None:
    global _run_budget
    _run_budget = seconds


def run_budget() -> float | None:
    """The budget the running `uabench run` was given (None: none), recorded with each run."""
    return _run_budget


def set_estimates(estimates: dict[str, float]) -> None:
    """The suites' estimated seconds as `uabench run` printed them: kept with each run, so that
    the next estimate on this machine can be set beside what this one took (estimate.calibration)."""
    _estimates.clear()
    _estimates.update(estimates)


def estimate_of(suite: str) -> float | None:
    return _estimates.get(suite)


def estimate_total() -> float | None:
    """The whole `uabench run`'s estimated seconds: what its time budget is set against."""
    return sum(_estimates.values()) if _estimates else None


def set_due(due: float | None) -> None:
    """The running test is due at `due` (time.monotonic()), or has no budget (None)."""
    global _due
    _due = due


def due() -> float | None:
    return _due


def block_fits(block_s: float, now: float | None = None) -> bool:
    """Whether one more block of `block_s` seconds ends before the running test is due;
    always without a budget."""
    if _due is None:
        return True
    return (time.monotonic() if now is None else now) + block_s <= _due


def parse(text: str) -> float:
    """A budget given as seconds ("750") or minutes and seconds ("12:30")."""
    minutes, _, seconds = text.rpartition(":")
    try:
        value = float(seconds) + 60 * float(minutes or 0)
    except ValueError:
        raise ValueError(f"time budget: '{text}' is neither seconds nor mm:ss") from None
    negative = text.strip().startswith("-")  # "-0:30": float("-0") is 0, so the sign must be read
    if negative or not 0 < value < 7 * 24 * 3600 or (minutes and not 0 <= float(seconds) < 60):
        raise ValueError(f"time budget: '{text}' must be more than 0 s and under a week (seconds or mm:ss)")
    return value
