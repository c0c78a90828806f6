"""What one incident did to a client: plain functions of the client's result record (SPEC §6:
its `connection` events, its `timeline`, its counts) and of the instants the harness struck and
restored (Unix wall-clock ns, the clock of the record).

- detected: the first `lost` event after the strike, less the strike;
- reconnected: the first `restored` event after it, less the restoration (the server's `ready`
  again, or the path's rules removed);
- resumed: the first timeline window after the restoration in which operations succeeded again
  (for subscribe: good notifications arrived), less the restoration: what an application sees,
  whether or not the SDK said anything. Its resolution is the window (`timeline_ms`);
- outage: from the strike to the resumption;
- subscriptions, tick gaps and duplicates as the client counted them."""

from __future__ import annotations

from dataclasses import asdict, dataclass

CLOCK_SLACK_NS = 50_000_000  # an event this much before the strike is still its own (two processes' clocks)
LOADED_WINDOW_NS = 1_000_000_000  # the load must have succeeded in the second before the strike


@dataclass(frozen=True)
class Incident:
    kind: str  # "restart" or "cut"
    struck_ns: int
    restored_ns: int
    down_s: float


@dataclass(frozen=True)
class Recovery:
    verdict: str  # "resumed", "resumed unnoticed", "did not resume", "inconclusive"
    why: str
    detected_s: float | None
    reconnected_s: float | None
    resumed_s: float | None
    outage_s: float | None
    resolution_s: float
    failed: int
    subscriptions: str | None
    tick_gaps: int | None
    duplicates: int | None
    losses: int  # lost events in the run

    def summary(self) -> dict:
        return asdict(self)


def _windows(result: dict) -> list[tuple[int, int, int]]:
    """(start_ns, end_ns, ops) of each timeline window."""
    timeline = result["timeline"]
    width = timeline["window_ms"] * 1_000_000
    return [
        (timeline["start_ns"] + k * width, timeline["start_ns"] + (k + 1) * width, ops)
        for k, ops in enumerate(timeline["ops"])
    ]


def _first_event(result: dict, state: str, after_ns: int) -> dict | None:
    return next(
        (e for e in result["connection"]["events"] if e["state"] == state and e["t_ns"] >= after_ns),
        None,
    )


def recovery(result: dict, incident: Incident) -> Recovery:
    windows = _windows(result)
    resolution_s = result["timeline"]["window_ms"] / 1000
    struck, restored = incident.struck_ns, incident.restored_ns
    subscription = result.get("subscription") or {}
    lost = _first_event(result, "lost", struck - CLOCK_SLACK_NS)
    back = _first_event(result, "restored", lost["t_ns"] if lost else struck)
    resumed_at = next((max(start, restored) for start, end, ops in windows if end > restored and ops > 0), None)
    loaded = sum(ops for start, end, ops in windows if end <= struck and start >= struck - LOADED_WINDOW_NS)

    def seconds(later: int | None, earlier: int) -> float | None:
        return None if later is None else (later - earlier) / 1e9

    if not loaded:
        verdict, why = "inconclusive", "no operation succeeded in the second before the incident"
    elif windows and windows[-1][1] <= restored:
        verdict, why = "inconclusive", "the measured phase ended before the restoration"
    elif resumed_at is None:
        verdict = "did not resume"
        why = "no operation succeeded after the restoration" + ("" if lost else ", and no loss was recorded")
    elif lost is None:
        verdict, why = "resumed unnoticed", "the load resumed; the client recorded no loss"
    else:
        verdict, why = "resumed", "the client recorded the loss and the load resumed"
    return Recovery(
        verdict=verdict,
        why=why,
        detected_s=seconds(lost["t_ns"], struck) if lost else None,
        reconnected_s=seconds(back["t_ns"], restored) if back else None,
        resumed_s=seconds(resumed_at, restored),
        outage_s=seconds(resumed_at, struck),
        resolution_s=resolution_s,
        failed=result["operations"]["failed"],
        subscriptions=back.get("subscriptions") if back else None,
        tick_gaps=subscription.get("tick_gaps"),
        duplicates=subscription.get("duplicates"),
        losses=result["connection"]["lost"],
    )
