"""The sustain rule of subscription and PubSub sweeps applied to result records (its bounds and
its decision below), and the limit a sweep finds with it (engine.search bisects it;
the report prints it). Here, not in the engine, because the report reads it too.

A point holds when, over its repetitions, the MEDIAN of the mean cycle time over the
publishing interval is within SUSTAINED_CYCLE_RATIO and the MEDIAN share of missed updates
within MAX_MISSED_SHARE: for a client/server subscription the tick gaps (updates an item
skipped, SPEC §3) out of received + skipped, for PubSub the lost NetworkMessages out of received
+ lost. The median, not the best repetition: one lucky repetition of several does not make a
point sustained, nor one stalled one a point missed."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from uabench_contract import Histogram

# A subscription or PubSub point holds while its mean cycle time stays within this multiple of
# the publishing interval and it misses at most MAX_MISSED_SHARE of its updates (the same rule
# for client/server subscriptions and PubSub).
SUSTAINED_CYCLE_RATIO = 1.10
# Missed updates: a subscription's tick gaps, a PubSub subscriber's lost NetworkMessages, as a
# share of what should have arrived (received + missed). 5 %: systematic skipping (17-23 % in
# the reference runs) never holds; one missed cycle in quick's 1-s repetition (10 %) misses,
# and holds only if its re-measure is clean (median of two: 5 %); a 20-s full repetition may
# miss 10 cycles.
MAX_MISSED_SHARE = 0.05


def sustained(cycle_ratio: float, missed_share: float) -> bool:
    """The sustain rule on a point's figures (the medians over its repetitions, which
    results.sustain computes from their records): cycle time and missed updates in bounds."""
    return cycle_ratio <= SUSTAINED_CYCLE_RATIO and missed_share <= MAX_MISSED_SHARE


RULE = (
    f"median over the repetitions: mean cycle time ≤ {SUSTAINED_CYCLE_RATIO:g} × the interval, "
    f"missed updates ≤ {MAX_MISSED_SHARE:.0%}"
)


def cycle_ratio(result: dict) -> float | None:
    """A result's mean cycle time over its interval (the longer of publishing and sampling);
    None when it has no cycle time (nothing arrived twice)."""
    mean = Histogram(result.get("cycle_time_ns")).mean()
    config = result.get("config") or {}
    interval = max(config.get("publishing_interval_ms", 100), config.get("sampling_interval_ms", 0))
    return mean / (interval * 1e6) if mean and interval else None


def missed_share(result: dict) -> float | None:
    """Updates missed out of those that should have arrived: tick gaps of a subscription, lost
    NetworkMessages of a PubSub subscriber; None when the result counts neither."""
    if result.get("pubsub") is not None:
        missed, received = result["pubsub"].get("lost", 0), result["pubsub"].get("messages", 0)
    elif result.get("subscription") is not None:
        missed, received = result["subscription"].get("tick_gaps", 0), result["subscription"].get("notifications", 0)
    else:
        return None
    return missed / (received + missed) if received + missed else None


@dataclass(frozen=True)
class Judged:
    """A point's verdict under the rule and the medians it was decided on."""

    held: bool
    cycle_ratio: float  # median over the repetitions; inf when a repetition had none
    missed_share: float
    repetitions: int

    def text(self) -> str:
        cycle = f"{self.cycle_ratio:.2f} ×" if math.isfinite(self.cycle_ratio) else "none"
        missed = f"{self.missed_share:.1%}" if math.isfinite(self.missed_share) else "not counted"
        return (
            f"{'held' if self.held else 'missed'}: median of {self.repetitions} — cycle {cycle} the interval "
            f"(≤ {SUSTAINED_CYCLE_RATIO:g}), missed updates {missed} (≤ {MAX_MISSED_SHARE:.0%})"
        )


def judge(results: list[dict]) -> Judged:
    """The rule over a point's repetitions (their result records). A repetition without a cycle
    time or a missed-update count counts as missed in its median."""
    ratios = [_or_inf(cycle_ratio(r)) for r in results]
    shares = [_or_inf(missed_share(r)) for r in results]
    if not results:
        return Judged(False, math.inf, math.inf, 0)
    cycle, missed = statistics.median(ratios), statistics.median(shares)
    return Judged(sustained(cycle, missed), cycle, missed, len(results))


def _or_inf(value: float | None) -> float:
    return math.inf if value is None else value


# --- the limit a sweep finds ----------------------------------------------------------------------


@dataclass(frozen=True)
class Limit:
    """Where a sweep with a stop rule ended: the highest point that held below the first that
    missed, and that one. `missed` None: the top grid point held, the limit lies beyond the grid;
    `held` None: not even the lowest point held. `steps` bisection steps narrowed a grid bracket."""

    held: object | None
    missed: object | None
    steps: int = 0
    resolution: float | None = None

    @property
    def found(self) -> str:
        if self.missed is None:
            return "grid limit"
        if self.held is None:
            return "below grid"
        return "bisected" if self.steps else "grid"

    def resolved(self) -> bool:
        """The bracket is within the resolution (of the held value)."""
        if self.resolution is None or not _numbers(self.held, self.missed):
            return False
        return float(self.missed) / float(self.held) - 1 <= self.resolution  # type: ignore[arg-type]

    def as_result(self) -> dict:
        """What a verdict cell stores (engine.search records it; the report reads it)."""
        return {
            "found": self.found,
            "held": self.held,
            "missed": self.missed,
            "steps": self.steps,
            "resolution": self.resolution,
        }

    @classmethod
    def from_result(cls, result: dict) -> Limit:
        return cls(result.get("held"), result.get("missed"), result.get("steps", 0), result.get("resolution"))

    def text(self, unit: str = "", rate: float | None = None, rate_unit: str = "signals/s") -> str:
        """The limit as the report prints it: "≥ X (grid limit)", or "limit X, between X held and
        Y missed (how)"; `rate` is the held point's measured rate (`rate_unit`), given beside it."""

        def shown(value: object) -> str:
            return (f"{value:,}" if isinstance(value, int) else f"{value:,.4g}") if _numbers(value) else str(value)

        unit = f" {unit}" if unit else ""
        delivered = f" ({rate:,.0f} {rate_unit} delivered)" if rate is not None else ""
        if self.found == "grid limit":
            return f"≥ {shown(self.held)}{unit}{delivered} (grid limit: the sweep's top point held)"
        if self.found == "below grid":
            return f"< {shown(self.missed)}{unit} (not even the lowest point held)"
        how = "grid"
        if self.steps:
            how = f"bisected in {self.steps} step{'s' if self.steps > 1 else ''}"
            if self.resolution is not None:
                how += f", {self.resolution:.0%} resolution " + ("reached" if self.resolved() else "not reached")
        return (
            f"limit {shown(self.held)}{unit}{delivered}, between {shown(self.held)} held and "
            f"{shown(self.missed)} missed ({how})"
        )


def _numbers(*values: object) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def between(low: object, high: object) -> object | None:
    """The next point to measure between a held `low` and a missed `high`: their geometric mean
    (sweep grids are geometric), whole when both are; None when nothing lies between them."""
    if not _numbers(low, high) or not 0 < float(low) < float(high):  # type: ignore[arg-type]
        return None
    middle: float = math.sqrt(float(low) * float(high))  # type: ignore[arg-type]
    if isinstance(low, int) and isinstance(high, int):
        whole = round(middle)
        return whole if low < whole < high else None
    return middle
