"""The open-loop capacity search as plain functions of a `probe` callable, so it can be tested
without Robot or any SDK: the highest offered read rate a server sustains within the plan's
bound, then the overload probes beyond it.

What a probe counts (issue 12). Throughput is the requests that *completed* inside the
measured window (the result's timeline, by completion time), not those scheduled in it: a
request scheduled in the window that completes seconds later, in the drain, counted as
achieved before, so "achieved = offered" held by construction and every overload looked
graceful. The bound is on both the p99 latency (from the scheduled send time) and the share
of offered requests completed in the window.

Non-monotonic points. One short probe can miss a rate that a later one sustains (a collection
pause, a JIT compile, another process on the host). The bracket the search ends with is
therefore confirmed: the capacity is a rate that held twice, and the lowest missed rate above
it is probed again. A missed rate that holds on its second probe is recorded (the report
names it) and the search climbs on from it, so one disturbed probe does not set the capacity."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from uabench.engine import schedule
from uabench.engine.cells import Outcome
from uabench.engine.constants import (
    CLIENT_BOUND_PERCENT,
    CONFIRM_ROUNDS,
    GENERATOR_LAG_SHARE,
    GRACEFUL_SHARE,
    MIN_CAPACITY_RATE,
    QUEUE_GROWTH,
    RESUME_ROUNDS,
    SHED_SHARE,
)
from uabench.results import stats
from uabench.results.kinds import CellKind
from uabench.results.timeline import completed_in_window


@dataclass(frozen=True)
class Probe:
    """One probe of the capacity search: did the server sustain the offered rate, and its
    figures (completed share, throughput, p99, send lag) if it answered at all."""

    ok: bool
    figures: dict | None
    outcome: Outcome


@dataclass(frozen=True)
class CapacityResult:
    rate: float  # the highest offered rate that was sustained, and held again when confirmed
    figures: dict  # its figures (the confirming probe's: the server was warmest then)
    overload: dict[float, list[Probe]]  # factor → the probes at factor × rate
    history: list[tuple[float, str, Probe]] = field(default_factory=list)  # (rate, label, probe) in order
    missed_then_held: list[float] = field(default_factory=list)  # missed rates that held when probed again
    confirmed_miss: float | None = None  # the lowest missed rate above the capacity, missed twice
    confirmed: bool = True  # False: no rate that held held again when probed (CONFIRM_ROUNDS tried)


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
    overload_factors: Sequence[float],
    overload_repetitions: int = 1,
    min_rate: float = MIN_CAPACITY_RATE,
) -> CapacityResult:
    """Doubles the offered rate from `start_rate` until a probe misses (or `max_rate` is
    passed), halves it when even the start rate misses (down to `min_rate`), bisects between
    the highest sustained and the lowest missed rate `refine_steps` times, confirms the bracket
    (label "confirm"), then probes each of `overload_factors` times the capacity
    `overload_repetitions` times (label "overload"; the search's own probes are "probe").
    A missed rate that holds when probed again did not end the search for good: the search
    climbs on from it (RESUME_ROUNDS times at most), so one disturbed probe does not set the
    capacity."""
    history: list[tuple[float, str, Probe]] = []

    def run(rate: float, label: str) -> Probe:
        found = probe(rate, label)
        history.append((rate, label, found))
        return found

    good, bad = _climb(run, start_rate, max_rate, min_rate, refine_steps)
    missed_then_held: list[float] = []
    for round_ in range(RESUME_ROUNDS + 1):
        good, held_again, confirmed_miss, confirmed = _confirm(run, good, bad, history)
        if held_again is None:
            break
        missed_then_held.append(held_again[0])
        if round_ == RESUME_ROUNDS:
            good, confirmed_miss = held_again, None  # it held twice now; no further climb
            break
        good, bad = _climb(run, held_again[0] * 2, max_rate, min_rate, refine_steps, held_again)
    overload = {
        factor: [run(good[0] * factor, "overload") for _ in range(overload_repetitions)] for factor in overload_factors
    }
    return CapacityResult(good[0], good[1], overload, history, missed_then_held, confirmed_miss, confirmed)


def _climb(
    run: Callable[[float, str], Probe],
    rate: float,
    max_rate: float,
    min_rate: float,
    refine_steps: int,
    good: tuple[float, dict] | None = None,
) -> tuple[tuple[float, dict], float | None]:
    """Doubles from `rate` until a probe misses or `max_rate` is passed (halving below the
    first rate when nothing held yet, down to `min_rate`), then bisects between the highest
    held and the lowest missed rate `refine_steps` times: (highest held, lowest missed)."""
    bad = None
    while rate <= max_rate:
        result = run(rate, "probe")
        if not result.ok:
            bad = rate
            break
        good = (rate, result.figures or {})
        rate *= 2
    while good is None and rate / 2 >= min_rate:
        bad, rate = rate, rate / 2
        result = run(rate, "probe")
        if result.ok:
            good = (rate, result.figures or {})
    if good is None:
        raise NoCapacity(rate)
    if bad is not None:
        for _ in range(refine_steps):
            middle = (good[0] + bad) / 2
            result = run(middle, "probe")
            if result.ok:
                good = (middle, result.figures or {})
            else:
                bad = middle
    return good, bad


def _confirm(
    run: Callable[[float, str], Probe],
    good: tuple[float, dict],
    bad: float | None,
    history: list[tuple[float, str, Probe]],
) -> tuple[tuple[float, dict], tuple[float, dict] | None, float | None, bool]:
    """The bracket probed again: the capacity must hold a second time (if it misses, the next
    lower rate that held is tried, CONFIRM_ROUNDS times at most), and the lowest missed rate
    above it must miss again. Returns the capacity, the missed rate with its figures if it held
    when probed again (else None), the confirmed miss (None if there was none), and whether the
    capacity was confirmed at all: where every rate tried missed its second probe, the last
    one is returned unconfirmed (a measurement too noisy to state a capacity, not a server
    that sustains nothing)."""
    confirmed = False
    for _ in range(CONFIRM_ROUNDS):
        again = run(good[0], "confirm")
        if again.ok:
            good, confirmed = (good[0], again.figures or good[1]), True
            break
        lower = [(rate, found) for rate, _, found in history if found.ok and rate < good[0]]
        if not lower:
            break
        bad = good[0]
        rate, found = max(lower, key=lambda held: held[0])
        good = (rate, found.figures or {})
    if not confirmed:
        return good, None, None, False
    if bad is None:
        return good, None, None, True
    again = run(bad, "confirm")
    if again.ok:
        return good, (bad, again.figures or {}), None, True
    return good, None, bad, True


def probe_figures(outcome: Outcome, rate: float, duration_s: float) -> dict | None:
    """One probe's figures: requests completed inside the window (their share of the offered
    ones, and per second), p50/p99 latency from the scheduled send time (conservative bucket
    upper edges), failed requests and, where the client reports it, the p99 send lag and
    whether the load generator fell behind its schedule."""
    result = outcome.result
    if not result:
        return None
    window_s = (result["end_ns"] - result["start_ns"]) / 1e9 or duration_s
    offered = rate * window_s
    completed = completed_in_window(result)
    latency = stats.merge_histograms([result["latency_ns"]])
    busy = busy_examples((result.get("errors") or {}).get("examples") or [])
    figures = {
        "completed": completed / offered if offered else 0.0,
        "throughput": completed / window_s,
        "p50_ms": _ms(latency.percentile(50)),
        "p99_ms": _ms(latency.percentile(99)),
        "failed": result["operations"]["failed"],
        # the failed requests count as refused for being busy when the statuses they gave name it
        "shed": result["operations"]["failed"] / offered if busy and offered else 0.0,
        "busy_examples": busy,
    }
    halves = p99_halves(result)
    if halves is not None:
        figures["p99_halves"] = halves
    figures["client_hot_thread_cpu"] = (outcome.client_resources or {}).get("hot_thread_cpu")
    lag = result.get("send_lag_ns")
    if lag:
        p99_lag = stats.merge_histograms([lag]).percentile(99)
        figures["send_lag_p99_ms"] = _ms(p99_lag)
    return figures


def p99_halves(result: dict) -> tuple[float, float] | None:
    """The p99 latency (ms) of the requests sent in the first and in the second half of the
    measured window, from the result's per-request latencies (SPEC §6, record_latencies); None
    without them or with too few requests in a half for a p99."""
    series = result.get("latencies") or {}
    sends, latencies = series.get("send_ns") or [], series.get("latency_ns") or []
    if not sends:
        return None
    # send_ns counts from the timeline's start; the window is start_ns..end_ns
    middle = (result["start_ns"] + result["end_ns"]) / 2 - result["timeline"]["start_ns"]
    first = sorted(lat for sent, lat in zip(sends, latencies, strict=True) if sent < middle)
    second = sorted(lat for sent, lat in zip(sends, latencies, strict=True) if sent >= middle)
    if min(len(first), len(second)) < MIN_HALF_REQUESTS:
        return None
    return _quantile(first, 0.99) / 1e6, _quantile(second, 0.99) / 1e6


MIN_HALF_REQUESTS = 100  # a p99 needs a hundred values at least


def _quantile(ordered: list[int], q: float) -> float:
    return float(ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)])  # nearest rank


def generator_behind(figures: dict | None, p99_bound_ms: float) -> bool:
    """The load generator fell behind its schedule by its own doing: its p99 send lag (actual −
    scheduled send) is a sizeable share of the latency bound while its hottest thread used
    nearly a whole core. Latency counts from the schedule, so such a probe measures the
    client's lag as much as the server's answers: a miss then is not the server's. A lag with
    the client idle is the server's: every request slot (in_flight) waits for its answers."""
    figures = figures or {}
    lag, hot = figures.get("send_lag_p99_ms"), figures.get("client_hot_thread_cpu")
    busy = hot is not None and hot >= CLIENT_BOUND_PERCENT
    return busy and (lag is None or lag > GENERATOR_LAG_SHARE * p99_bound_ms)


def _ms(value_ns: float | None) -> float:
    return stats.upper_edge(value_ns) / 1e6 if value_ns is not None else math.inf


# The OPC UA status codes of a server that refuses work it has no room for (Part 4 and 6), by
# name and by code: how an SDK prints a failed request's status differs.
BUSY_STATUSES = {
    "BadTooManyOperations": 0x80100000,
    "BadServerTooBusy": 0x800E0000,
    "BadTcpServerTooBusy": 0x807D0000,
    "BadTooManySessions": 0x80560000,
    "BadTooManyPublishRequests": 0x80780000,
    "BadResourceUnavailable": 0x80040000,
}


def busy_examples(examples: Sequence[str]) -> list[str]:
    """The error examples of a result that name an explicit busy status (BUSY_STATUSES)."""
    names = {name.lower() for name in BUSY_STATUSES}
    codes = {f"{code:08x}" for code in BUSY_STATUSES.values()}
    found = []
    for text in examples:
        plain = "".join(ch for ch in text.lower() if ch.isalnum())
        if any(name in plain for name in names) or any(code in plain for code in codes):
            found.append(text)
    return found


def classify_overload(capacity_figures: dict, overload: dict[float, list[Probe]], alive: bool) -> dict:
    """The overload behaviour at each factor × capacity (the median over each factor's
    repetitions), by the rule OVERLOAD_RULE states: crash, shed, collapse, queue or holds, in
    that order of precedence (the worst factor decides).

    Returns the behaviour and, per factor, the completed throughput's share of the capacity's,
    the p99 latency's growth over the capacity's, the share of offered requests refused as
    busy and the p99 of the window's second half over its first half."""
    per_factor: dict[float, dict] = {}
    capacity_throughput = capacity_figures.get("throughput") or 0.0
    crashed = not alive
    for factor, probes in sorted(overload.items()):
        answered = [p.figures for p in probes if p.figures and p.figures["throughput"] > 0]
        if len(answered) < len(probes):
            crashed = True
        if not answered:
            per_factor[factor] = {"share": 0.0, "p99_growth": None, "throughput": 0.0, "p99_ms": None}
            continue
        throughput = statistics.median(f["throughput"] for f in answered)
        p99 = statistics.median(f["p99_ms"] for f in answered)
        base_p99 = capacity_figures.get("p99_ms")
        halves = [f["p99_halves"] for f in answered if f.get("p99_halves")]
        per_factor[factor] = {
            "throughput": throughput,
            "share": throughput / capacity_throughput if capacity_throughput else 0.0,
            "p99_ms": None if math.isinf(p99) else p99,
            "p99_growth": p99 / base_p99 if base_p99 and not math.isinf(p99) else None,
            "shed": statistics.median(float(f.get("shed") or 0.0) for f in answered),
            # None: the probes recorded no per-request latencies (a store of an older commit)
            "p99_halves_growth": statistics.median(second / first for first, second in halves) if halves else None,
        }
    return {"behaviour": _behaviour(per_factor, crashed), "factors": {f"{k:g}": v for k, v in per_factor.items()}}


def _behaviour(per_factor: dict[float, dict], crashed: bool) -> str:
    """OVERLOAD_RULE over the factors' figures."""
    if crashed or not per_factor:
        return "crash"
    factors = list(per_factor.values())
    queued = [f for f in factors if (f["p99_halves_growth"] or 0.0) >= QUEUE_GROWTH]
    if any(f["shed"] >= SHED_SHARE for f in factors) and not queued:
        return "shed"
    if any(f["share"] < GRACEFUL_SHARE for f in factors):
        return "collapse"
    if queued:
        return "queue"
    if any(f["p99_halves_growth"] is None for f in factors):
        return "held (latency growth not measured)"
    return "holds"


def probe_held(figures: dict | None, min_completed: float, p99_bound_ms: float, alive: bool) -> bool:
    """A probe holds its offered rate when the server answered, completed at least
    `min_completed` of the requests inside the window with p99 within the bound, and lives on."""
    return bool(figures and figures["completed"] >= min_completed and figures["p99_ms"] <= p99_bound_ms and alive)


@dataclass(frozen=True)
class Verdict:
    """What a capacity search found, as one stored cell ("capacity-verdict") says it."""

    behaviour: str  # beyond the capacity (classify_overload)
    client_bound: bool  # a miss the load generator caused: the capacity is a lower bound
    reason: str
    result: dict
    shares: str  # the completed share at each overload factor, for the log

    def line(self, server: str, found: CapacityResult) -> str:
        """The keyword's log line."""
        held = found.missed_then_held
        return (
            f"{server}: capacity {'≥ ' if self.client_bound else ''}{found.figures['throughput']:.0f} requests/s "
            f"completed (p99 {found.figures['p99_ms']:.2f} ms); beyond it: {self.behaviour} ({self.shares})"
            + (f"; missed then held: {', '.join(f'{r:.0f}' for r in held)}/s" if held else "")
        )


def verdict(found: CapacityResult, p99_bound_ms: float, min_completed: float, alive: bool) -> Verdict:
    """The verdict of a search (`alive`: the server lived through its overload probes): its
    capacity, whether that is only a lower bound (a miss the load generator caused), its
    overload behaviour, and the figures stored with it."""
    sustained = found.figures
    overload = classify_overload(sustained, found.overload, alive)
    behaviour = overload["behaviour"]
    client_bound = any(generator_behind(p.figures, p99_bound_ms) for _, _, p in found.history if not p.ok)
    shares = ", ".join(f"{f['share']:.0%} at {factor}×" for factor, f in overload["factors"].items())
    reason = (
        f"capacity {'≥ ' if client_bound else ''}{sustained['throughput']:.0f} requests/s completed "
        f"(offered {found.rate:.0f}{'' if found.confirmed else '; not confirmed: it missed when probed again'}); "
        f"beyond it: {behaviour} ({shares} of it completed)"
    )
    result = {
        "capacity_offered": found.rate,
        "capacity_throughput": sustained["throughput"],
        "capacity_completed": sustained["completed"],
        "capacity_p50_ms": sustained["p50_ms"],
        "capacity_p99_ms": sustained["p99_ms"],
        "capacity_send_lag_p99_ms": sustained.get("send_lag_p99_ms"),
        "capacity_client_hot_thread_cpu": sustained.get("client_hot_thread_cpu"),
        "client_bound": client_bound,
        "confirmed": found.confirmed,
        "confirmed_miss": found.confirmed_miss,
        "missed_then_held": found.missed_then_held,
        "overload_factors": {f"{factor:g}": factor * found.rate for factor in found.overload},
        "overload": overload["factors"],
        "behaviour": behaviour,
        "p99_bound_ms": p99_bound_ms,
        "min_completed": min_completed,
        "probes": [[rate, label, p.ok] for rate, label, p in found.history],
    }
    return Verdict(behaviour, client_bound, reason, result, shares)


# --- the latency table ---------------------------------------------------------------------------


def capacities(cells: list[dict]) -> dict[str, float]:
    """Each server's capacity (requests/s completed) from this run's capacity verdicts."""
    return {
        c["server"]: c["result"]["capacity_throughput"]
        for c in cells
        if c["kind"] == CellKind.CAPACITY_VERDICT and c["status"] == "pass" and c.get("result")
    }


def load_label(rate: float, nodes_per_request: int) -> str:
    return f"{rate:g} requests/s × {nodes_per_request} node" + ("s" if nodes_per_request > 1 else "")


def share_label(share: float) -> str:
    return f"{share:.0%} of capacity"


def too_few_for_p99(rate: float, duration_s: float) -> bool:
    """Whether a load's measured phase holds too few requests for a p99 (stats.min_count): the
    table's headline would be empty, so the load is not run in that profile (make bench's
    short phases), only where the phase is long enough (full)."""
    return rate * duration_s < stats.min_count(99)


def latency_loads(
    latency, servers: Sequence[str], found: dict[str, float], duration_s: float = math.inf
) -> tuple[list, list]:
    """The (server, label, requests/s, nodes/request) cells of the latency table, and the
    (server, label, requests/s or None, why) of those not run: a common load whose request rate is beyond the
    server's capacity or too low for a p99 in a phase of `duration_s`, and the capacity shares of a
    server whose capacity this run did not find. `latency` is the plan's capacity.latency (plan.Latency)."""
    todo, skipped = [], []
    for server in servers:
        limit = found.get(server)
        for rate, nodes in latency.loads:
            label = load_label(rate, nodes)
            if too_few_for_p99(rate, duration_s):
                requests = f"{rate * duration_s:.0f} requests in its {duration_s:g} s phase"
                skipped.append((server, label, rate, f"not run: {requests}, too few for a p99"))
            elif limit is not None and rate > limit:
                skipped.append((server, label, rate, f"not run: beyond its capacity of {limit:.0f} requests/s"))
            else:
                todo.append((server, label, rate, nodes))
        for share in latency.capacity_shares:
            if limit is None:
                skipped.append((server, share_label(share), None, "not run: no capacity found in this run"))
            else:
                todo.append((server, share_label(share), share * limit, 1))
    return todo, skipped


def latency_order(planned: Sequence[tuple], seed: int, block: int) -> list[tuple]:
    """The latency table's (server, label, rate, nodes) cells of one block, lightest load first
    (by nodes per request, then rate), the servers of each load in an order shuffled per block
    from the run's seed: a server's loads climb, so the first one it does not sustain spares it
    the heavier ones (latency_skip)."""
    levels: dict[tuple[int, float], list[tuple]] = {}
    for cell in planned:
        levels.setdefault((cell[3], cell[2]), []).append(cell)
    ordered = []
    for level in sorted(levels):
        cells = levels[level]
        ordered += [cells[i] for i in schedule.block_order(range(len(cells)), seed, block)]
    return ordered


def latency_held(outcome: Outcome, rate: float, duration_s: float, min_completed: float) -> bool:
    """Whether a latency cell sustained its load: it passed (every operation answered, every
    value right) and completed at least `min_completed` of the offered requests in its window."""
    figures = probe_figures(outcome, rate, duration_s) if outcome.status == "pass" else None
    return figures is not None and figures["completed"] >= min_completed


def latency_skip(missed: dict[tuple[str, int], tuple[float, str]], server: str, rate: float, nodes: int) -> str | None:
    """Why a load is not run: a lighter one of the same server and request size (`missed`: the
    lowest rate it did not sustain, and its label) was not sustained, so this one queues too."""
    lower = missed.get((server, nodes))
    if lower is None or lower[0] > rate:
        return None
    return f"not run: {lower[1]} was not sustained, so a higher rate is not either"
