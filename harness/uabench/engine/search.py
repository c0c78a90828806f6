"""The engine's experiments as plain functions of a `measure` (or `probe`) callable, so they
run the same for every communication model and can be tested without Robot or any SDK:

- `sweep`: measure the points of a sweep in order until a point misses (confirmed) or fails,
  then bisect between the last held and the first missed point;
- `headroom`: the same load from one and from two load-generator processes."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from uabench.document import parts
from uabench.engine.cells import Outcome, wrong_values
from uabench.engine.constants import DISTURBED_RETRIES
from uabench.engine.schedule import block_order
from uabench.results import stats
from uabench.results.kinds import CellKind
from uabench.results.sustain import MAX_MISSED_SHARE, SUSTAINED_CYCLE_RATIO, Limit, between

if TYPE_CHECKING:  # the session imports the engine's modules; only its type is needed here
    from uabench.engine.recorder import RunRecorder


def _quiet(_line: str) -> None:
    pass


def first_line(text: str | None) -> str:
    """A reason as one line of a log (shorter than a table's)."""
    return parts.first_line(text, 200)


# --- sweeps --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StopRule:
    """When a sweep stops: `holds(value, outcomes)` decides a point over all its repetitions
    (the caller's rule decides on their median: results.sustain). The first point that misses
    and the last that held before it are each measured once more (`remeasure`), symmetrically,
    and decided again: a stall of the machine then moves neither alone."""

    holds: Callable[[object, list[Outcome]], bool]
    remeasure: bool = True


@dataclass(frozen=True)
class Bisection:
    """Between the last held and the first missed point, at most `steps` points are measured,
    each halving the bracket (geometric), until it is within `resolution` of the held value."""

    resolution: float
    steps: int


@dataclass
class SweepResult:
    measured: list[tuple[object, list[Outcome]]] = field(default_factory=list)  # points whose repetitions passed
    skipped: list[tuple[object, str]] = field(default_factory=list)  # points not supported
    failed: list[tuple[object, str]] = field(default_factory=list)  # points that fail the sweep
    stopped: str | None = None  # why it ended before its last point: "missed" or "limit"
    limit: Limit | None = None  # with a stop rule: where the points stopped holding
    # the limit's held point measured to the sweep's limit_repetitions: None when it was not
    # (fewer asked for, or no point held); False when it then missed (the limit a lower bound)
    held_again: bool | None = None

    @property
    def unsupported(self) -> bool:
        """Nothing was measured because nothing was supported."""
        return bool(self.skipped) and not self.measured and not self.failed


class _Points:
    """The measured points of one sweep, each with its repetitions, and which were re-measured."""

    def __init__(self, measure: Callable[[object, int], Outcome], log: Callable[[str], None]) -> None:
        self.measure, self.log = measure, log
        self.outcomes: dict[object, list[Outcome]] = {}
        self.again: set = set()

    def repetition(self, value: object, repetition: int) -> Outcome:
        """One repetition; a disturbed one measured again, DISTURBED_RETRIES times at most."""
        outcome = self.measure(value, repetition)
        for _ in range(DISTURBED_RETRIES):
            if outcome.status != "disturbed":
                break
            self.log(f"{value}: repetition {repetition} disturbed ({first_line(outcome.reason)}); measuring it again")
            outcome = self.measure(value, repetition)
        return outcome

    def point(self, value: object, repetitions: int) -> list[Outcome]:
        outcomes: list[Outcome] = []
        for repetition in range(repetitions):
            outcomes.append(self.repetition(value, repetition))
            if outcomes[-1].status != "pass":
                break
        return outcomes

    def once_more(self, value: object) -> Outcome:
        self.again.add(value)
        outcome = self.repetition(value, len(self.outcomes[value]))
        self.outcomes[value].append(outcome)
        return outcome


def sweep(
    values: Sequence,
    measure: Callable[[object, int], Outcome],
    repetitions: int,
    stop: StopRule | None = None,
    log: Callable[[str], None] = _quiet,
    describe: Callable[[object, list[Outcome]], str] | None = None,
    bisection: Bisection | None = None,
    limit_repetitions: int = 1,
) -> SweepResult:
    """Measures every value in order, `repetitions` times each (`measure(value, repetition)`).

    Without a stop rule every point is measured and any failed point fails the sweep. With
    one, the sweep ends at the first point that does not hold (confirmed by measuring it and
    the last held point once more each), or at the first point that fails: the limit reached,
    unless it is the first point or a wrong value (never a limit), which fail the sweep. Its
    `limit` is then the bracket, narrowed by `bisection`; when the top point holds, the limit
    lies beyond the grid. A point that is not supported is skipped. `describe(value,
    outcomes)` gives the log line of a measured point. A repetition that comes back "disturbed"
    (other load on the host; recorded as such) is measured again, DISTURBED_RETRIES times at
    most: `measure` keeps its last attempt whatever it met. The limit's held point is then
    measured until it has `limit_repetitions` repetitions, and decided again on them all."""
    found = SweepResult()
    points = _Points(measure, log)
    walked: list = []  # the grid points measured, in order

    def holds(value: object) -> bool:
        outcomes = points.outcomes[value]
        if stop is None:
            return True
        return all(o.status == "pass" for o in outcomes) and stop.holds(value, outcomes)

    def first_miss() -> object | None:
        return next((value for value in walked if not holds(value)), None)

    def confirm() -> object | None:
        """Measures the first missed point and the held one before it once more (each at most
        once) until the first miss stands confirmed or is gone; returns it."""
        while (miss := first_miss()) is not None:
            index = walked.index(miss)
            around = [walked[index - 1], miss] if index else [miss]
            pending = [value for value in around if value not in points.again]
            if not stop or not stop.remeasure or not pending:
                return miss
            for value in pending:
                outcome = points.once_more(value)
                if outcome.status != "pass" and wrong_values(outcome):
                    found.failed.append((value, outcome.reason or "wrong values"))
                    return None
                told = describe(value, points.outcomes[value]) if describe else outcome.status
                log(f"{value}: measured once more: {told}")
        return None

    missed_at: object | None = None
    for value in values:
        outcomes = points.point(value, repetitions)
        failure = next((o for o in outcomes if o.status != "pass"), None)
        if failure and failure.status == "not_supported":
            found.skipped.append((value, failure.reason or "not supported"))
            log(f"{value}: not supported: {first_line(failure.reason)}")
            continue
        if failure:
            if stop and walked and not wrong_values(failure):
                found.stopped, missed_at = "limit", value
                log(f"{value}: {first_line(failure.reason)} — limit reached")
                break
            found.failed.append((value, failure.reason or "failed"))
            log(f"{value}: failed: {first_line(failure.reason)}")
            if stop:
                break
            continue
        points.outcomes[value] = outcomes
        walked.append(value)
        found.measured.append((value, outcomes))
        if describe:
            log(f"{value}: {describe(value, outcomes)}")
        if stop and not holds(value):
            missed_at = confirm()
            if found.failed:
                return found
            if missed_at is not None:
                found.stopped = "missed"
                log(f"{missed_at}: the stop rule no longer holds — stop")
                break
    if stop and walked and not found.failed:
        found.limit = _bisect(_bracket(walked, missed_at), points, found, repetitions, holds, bisection, log, describe)
        log(f"limit: {found.limit.text()}")
        held = found.limit.held
        if held is not None and held in points.outcomes and len(points.outcomes[held]) < limit_repetitions:
            found.held_again = _top_up(held, points, limit_repetitions, holds, found, log, describe)
    return found


def _top_up(
    value: object,
    points: _Points,
    repetitions: int,
    holds: Callable[[object], bool],
    found: SweepResult,
    log: Callable[[str], None],
    describe: Callable[[object, list[Outcome]], str] | None,
) -> bool:
    """The limit's held point measured until it has `repetitions`, so its figure has an
    interval; whether it still holds on them all (if not, the limit is only a lower bound)."""
    while len(points.outcomes[value]) < repetitions:
        outcome = points.once_more(value)
        if outcome.status != "pass":
            if wrong_values(outcome):
                found.failed.append((value, outcome.reason or "wrong values"))
            break
    held = holds(value)
    told = describe(value, points.outcomes[value]) if describe else ("held" if held else "missed")
    log(
        f"{value}: {len(points.outcomes[value])} repetitions at the limit: {told}"
        + ("" if held else " — a lower bound")
    )
    return held


def _bracket(walked: list, missed_at: object | None) -> Limit:
    """The grid bracket: the point before the first miss (a failed point is one beyond the
    walked points), or the top point when none missed."""
    if missed_at in walked:
        index = walked.index(missed_at)
        return Limit(walked[index - 1] if index else None, missed_at)
    return Limit(walked[-1], missed_at)


def _bisect(
    limit: Limit,
    points: _Points,
    found: SweepResult,
    repetitions: int,
    holds: Callable[[object], bool],
    bisection: Bisection | None,
    log: Callable[[str], None],
    describe: Callable[[object, list[Outcome]], str] | None,
) -> Limit:
    """Narrows a grid bracket: each step measures the point between the held and the missed one
    (decided on its repetitions' median, no re-measure) and keeps the half the limit lies in. A
    point that fails is missed; a wrong value fails the sweep."""
    if bisection is None:
        return limit
    low, high, steps = limit.held, limit.missed, 0
    while steps < bisection.steps and not Limit(low, high, 0, bisection.resolution).resolved():
        middle = between(low, high)
        if middle is None:
            break
        steps += 1
        outcomes = points.point(middle, repetitions)
        failure = next((o for o in outcomes if o.status != "pass"), None)
        if failure and (failure.status == "not_supported" or wrong_values(failure)):
            (found.skipped if failure.status == "not_supported" else found.failed).append(
                (middle, failure.reason or failure.status)
            )
            log(f"{middle}: {failure.status}: {first_line(failure.reason)} — bisection ends")
            break
        if failure:
            log(f"{middle}: {first_line(failure.reason)} — missed")
            high = middle
            continue
        points.outcomes[middle] = outcomes
        found.measured.append((middle, outcomes))
        if describe:
            log(f"{middle}: {describe(middle, outcomes)} (bisection step {steps})")
        low, high = (middle, high) if holds(middle) else (low, middle)
    return Limit(low, high, steps, bisection.resolution)


def limit_verdict(found: SweepResult, unit: str, rule: dict | None = None) -> dict:
    """What a sweep's verdict cell stores: its limit (how found, bracket, steps, resolution),
    the held point's measured values/s (median of its repetitions), the rule, and the wording
    the report prints."""
    assert found.limit, "a sweep without a stop rule has no limit"
    outcomes = dict(found.measured).get(found.limit.held, [])
    rates = [o.result["throughput"]["values_per_s"] for o in outcomes if o.status == "pass" and o.result]
    rate = statistics.median(rates) if rates else None
    text = found.limit.text(unit, rate, "signals/s" if rule is None else "values/s")
    if found.held_again is False:
        text += f"; its held point missed when measured to {len(outcomes)} repetitions: a lower bound"
    return {
        **found.limit.as_result(),
        "unit": unit,
        "held_values_per_s": rate,
        "held_repetitions": len(outcomes),
        "held_again": found.held_again,
        "rule": rule or sustain_rule(),
        "text": text,
    }


def record_limit(
    recorder: RunRecorder,
    kind: StrEnum,
    client: str,
    server: str,
    variant: str,
    found: SweepResult,
    unit: str,
    rule: dict | None = None,
) -> dict:
    """Stores a sweep's limit as its verdict cell of `kind` (what the report reads); the verdict."""
    verdict = limit_verdict(found, unit, rule)
    assert found.limit
    recorder.add_cell(
        suite=recorder.suite,
        kind=kind,
        client=client,
        server=server,
        variant=variant,
        parameter=None if found.limit.held is None else str(found.limit.held),
        repetition=0,
        status="pass",
        reason=verdict["text"],
        result=verdict,
    )
    return verdict


def sustain_rule() -> dict:
    return {"metric": "sustained", "cycle_ratio": SUSTAINED_CYCLE_RATIO, "missed_share": MAX_MISSED_SHARE}


def stop_metric(metric: str | None, workload: dict, outcomes: list[Outcome]) -> float | None:
    """The quantity a client/server sweep's stop condition compares, over a point's
    repetitions: the mean cycle time over the interval (subscriptions), or the p99 latency in
    ms (requests); None when there is none."""
    metric = metric or ("cycle_time_ratio" if workload["workload"] == "subscribe" else "p99_ms")
    if metric == "cycle_time_ratio":
        cycle = stats.merge_histograms([o.measured.get("cycle_time_ns", []) for o in outcomes]).mean()
        interval = max(workload.get("publishing_interval_ms", 100), workload.get("sampling_interval_ms", 0))
        return cycle / (interval * 1e6) if cycle else None
    p99 = merged_latency(outcomes).percentile(99)
    return p99 / 1e6 if p99 is not None else None


def merged_latency(outcomes: list[Outcome]):
    return stats.merge_histograms([o.measured["latency_ns"] for o in outcomes])


# --- headroom --------------------------------------------------------------------------------------


def fastest_server(cells: list[dict], variant: str | None, client: str | None = None) -> str | None:
    """The server with the highest median passing throughput of `variant` among stored cells
    (under `client`'s load, if given)."""
    by_server: dict[str, list[float]] = {}
    for cell in cells:
        if (
            cell["kind"] == CellKind.THROUGHPUT
            and cell["variant"] == variant
            and cell["status"] == "pass"
            and client in (None, cell.get("client"))
        ):
            by_server.setdefault(cell["server"], []).append(cell["result"]["throughput"]["values_per_s"])
    if not by_server:
        return None
    return max(by_server, key=lambda server: statistics.median(by_server[server]))


class CellFailed(Exception):
    """A cell that had to pass did not."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.reason or outcome.status)
        self.outcome = outcome


def headroom(measure: Callable[[int, int], Outcome], repetitions: int, seed: int = 0) -> tuple[dict[int, dict], float]:
    """The same load from 1 and from 2 load-generator processes (`measure(processes,
    repetition)`), interleaved: each repetition measures both, in an order shuffled from
    `seed`. values/s of each, and the gain of two over one. If two deliver clearly more, one
    process was the bottleneck."""
    outcomes: dict[int, list[Outcome]] = {1: [], 2: []}
    for repetition in range(repetitions):
        for processes in block_order((1, 2), seed, repetition):
            outcome = measure(processes, repetition)
            if outcome.status != "pass":
                raise CellFailed(outcome)
            outcomes[processes].append(outcome)
    figures = {
        p: stats.summarize([o.measured["throughput"]["values_per_s"] for o in kept]) for p, kept in outcomes.items()
    }
    return figures, figures[2]["mean"] / figures[1]["mean"] - 1
