"""The engine's experiments as plain functions of a `measure` (or `probe`) callable, so they
run the same for every communication model and can be tested without Robot or any SDK:

- `sweep`: measure the points of a sweep in order until a stop rule holds or a point fails;
- `headroom`: the same load from one and from two load-generator processes."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from uabench.engine.cells import Outcome, wrong_values
from uabench.engine.constants import DISTURBED_RETRIES
from uabench.engine.schedule import block_order
from uabench.results import stats


def _quiet(_line: str) -> None:
    pass


def first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0][:200] if text else ""


# --- sweeps --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StopRule:
    """When a sweep stops: the first point that does not `hold` (over its repetitions) is
    the last one measured; a failing point after the first is the limit reached. With
    `retry_missed`, a point that missed is measured once more first (other load on the
    machine can stall one run), and holds if the rule holds with that repetition added."""

    holds: Callable[[object, list[Outcome]], bool]  # (value, its outcomes)
    retry_missed: bool = False


@dataclass
class SweepResult:
    measured: list[tuple[object, list[Outcome]]] = field(default_factory=list)  # points whose repetitions passed
    skipped: list[tuple[object, str]] = field(default_factory=list)  # points not supported
    failed: list[tuple[object, str]] = field(default_factory=list)  # points that fail the sweep
    stopped: str | None = None  # why it ended before its last point: "missed" or "limit"

    @property
    def unsupported(self) -> bool:
        """Nothing was measured because nothing was supported."""
        return bool(self.skipped) and not self.measured and not self.failed


def sweep(
    values: Sequence,
    measure: Callable[[object, int], Outcome],
    repetitions: int,
    stop: StopRule | None = None,
    log: Callable[[str], None] = _quiet,
    describe: Callable[[object, list[Outcome]], str] | None = None,
) -> SweepResult:
    """Measures every value in order, `repetitions` times each (`measure(value, repetition)`).

    Without a stop rule every point is measured and any failed point fails the sweep. With
    one, the sweep ends at the first point that does not hold, or at the first point that
    fails: the limit reached, unless it is the first point or a wrong value (never a limit),
    which fail the sweep. A point that is not supported is skipped. `describe(value,
    outcomes)` gives the log line of a measured point. A repetition that comes back
    "disturbed" (other load on the host; recorded as such) is measured again, DISTURBED_RETRIES
    times at most: `measure` keeps its last attempt whatever it met."""
    found = SweepResult()
    for index, value in enumerate(values):
        outcomes: list[Outcome] = []
        for repetition in range(repetitions):
            outcome = measure(value, repetition)
            for _ in range(DISTURBED_RETRIES):
                if outcome.status != "disturbed":
                    break
                log(f"{value}: repetition {repetition} disturbed ({first_line(outcome.reason)}); measuring it again")
                outcome = measure(value, repetition)
            outcomes.append(outcome)
            if outcome.status != "pass":
                break
        passed = all(o.status == "pass" for o in outcomes)
        if stop and stop.retry_missed and passed and not stop.holds(value, outcomes):
            log(
                f"{value}: missed ({describe(value, outcomes) if describe else 'the stop rule'}); "
                "measuring it once more"
            )
            outcomes.append(measure(value, len(outcomes)))
        failure = next((o for o in outcomes if o.status != "pass"), None)
        if failure and failure.status == "not_supported":
            found.skipped.append((value, failure.reason or "not supported"))
            log(f"{value}: not supported: {first_line(failure.reason)}")
            continue
        if failure:
            if stop and index > 0 and not wrong_values(failure):
                found.stopped = "limit"
                log(f"{value}: {first_line(failure.reason)} — limit reached")
                break
            found.failed.append((value, failure.reason or "failed"))
            log(f"{value}: failed: {first_line(failure.reason)}")
            if stop:
                break
            continue
        found.measured.append((value, outcomes))
        if describe:
            log(f"{value}: {describe(value, outcomes)}")
        if stop and not stop.holds(value, outcomes):
            found.stopped = "missed"
            log(f"{value}: the stop rule no longer holds — stop")
            break
    return found


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


def fastest_server(cells: list[dict], variant: str | None) -> str | None:
    """The server with the highest median passing throughput of `variant` among stored cells."""
    by_server: dict[str, list[float]] = {}
    for cell in cells:
        if cell["kind"] == "throughput" and cell["variant"] == variant and cell["status"] == "pass":
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
