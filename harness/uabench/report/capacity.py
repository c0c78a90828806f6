"""The capacity suite's sections: each server's read capacity and its behaviour beyond it
(engine/capacity.py), and the open-loop latency table at common loads (wrk2's method)."""

from __future__ import annotations

import math

from uabench.document.model import Cell, Column, Figure, Section, Series, Status, Table, row
from uabench.engine.constants import GRACEFUL_SHARE, OVERLOAD_RULE, QUEUE_GROWTH, SHED_SHARE
from uabench.results import stats
from uabench.results.kinds import CellKind
from uabench.results.timeline import completed_in_window

LATENCY_METHOD = (
    "open loop at a fixed offered rate (the reference client sends on a schedule, up to 1000 requests in flight); "
    "each latency counts from the request's scheduled send time, so a server that falls behind is charged its "
    "queue (coordinated omission corrected)"
)


# shed is what an overloaded server should do; holds says nothing against it; what older commits
# called graceful could not tell a queue from a bound, so it is marked, not passed
BEHAVIOUR_STATUS = {
    "shed": Status.PASS,
    "holds": None,
    "held (latency growth not measured)": Status.MARKED,
    "graceful": Status.MARKED,
}


def _finite(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isinf(value)) else value


def capacity_section(run: dict, cells: list[dict]) -> Section | None:
    verdicts = [c for c in cells if c["kind"] == CellKind.CAPACITY_VERDICT and c.get("result")]
    if not verdicts:
        return None
    current = [c for c in verdicts if "overload_factors" in c["result"]]
    if not current:
        return _legacy_section(run, verdicts)
    factors = sorted({factor for c in current for factor in c["result"]["overload"]}, key=float)
    rows, notes = [], []
    for c in current:
        r = c["result"]
        marks = [
            "≥: the load generator fell behind its schedule" if r.get("client_bound") else "",
            "not confirmed: it missed when probed again" if r.get("confirmed") is False else "",
        ]
        capacity = Cell(
            r["capacity_throughput"],
            Status.MARKED if any(marks) else None,
            detail="; ".join(m for m in marks if m) or None,
        )
        line = [
            Cell(c["server"]),
            capacity,
            Cell(r["capacity_offered"]),
            Cell(r["capacity_completed"]),
            Cell(_finite(r["capacity_p50_ms"])),
            Cell(_finite(r["capacity_p99_ms"])),
            Cell(_finite(r.get("capacity_send_lag_p99_ms"))),
            Cell(r.get("capacity_client_hot_thread_cpu")),
        ]
        for factor in factors:
            found = r["overload"].get(factor) or {}
            line += [
                Cell(found.get("share")),
                Cell(found.get("p99_growth")),
                Cell(found.get("shed")),
                Cell(found.get("p99_halves_growth")),
            ]
        behaviour = r["behaviour"]
        line.append(Cell(behaviour, BEHAVIOUR_STATUS.get(behaviour, Status.FAIL)))
        rows.append(line)
        if r.get("missed_then_held"):
            held = ", ".join(f"{rate:.0f}" for rate in r["missed_then_held"])
            notes.append(
                f"{c['server']}: {held} requests/s missed the bound, then held it when probed again (the "
                "search climbed on from there): one probe of this length can miss by chance."
            )
    columns = [
        Column("server", kind="text"),
        Column("capacity /s", "requests/s completed inside the measured window"),
        Column("offered /s", "requests/s"),
        Column("completed", "share of the offered requests completed inside the window", kind="percent"),
        Column("p50 ms", "ms from the scheduled send", 2),
        Column("p99 ms", "ms from the scheduled send", 2),
        Column("send lag p99 ms", "the load generator's actual − scheduled send", 3),
        Column("client hot thread %", "the load generator's busiest thread, % of one core", 0),
    ]
    for factor in factors:
        columns += [
            Column(
                f"{factor}× completed", f"completions at {factor}× capacity, share of the capacity's", kind="percent"
            ),
            Column(f"{factor}× p99 growth", f"p99 at {factor}× capacity over p99 at capacity", 1),
            Column(
                f"{factor}× refused busy", "share of the offered requests refused with a busy status", kind="percent"
            ),
            Column(f"{factor}× p99 2nd/1st half", "p99 of the window's second half over its first half", 2),
        ]
    columns.append(Column("beyond capacity", kind="text"))
    first = current[0]["result"]
    intro = (
        f"Open-loop reads (1 node/request) by {current[0]['client']}: the highest offered rate with p99 ≤ "
        f"{first['p99_bound_ms']:g} ms and ≥ {first.get('min_completed', 0.99):.0%} of the offered requests completed "
        "inside the measured window (completions counted by completion time: a request answered after the window "
        "does not count). The bracket is confirmed: the capacity held twice and the next higher rate missed again. "
        f"Latency: {LATENCY_METHOD}. Beyond capacity, each overload factor is probed "
        "repeatedly on the warm server (median), every request's latency recorded: "
        + OVERLOAD_RULE.format(shed=SHED_SHARE, hold=GRACEFUL_SHARE, growth=QUEUE_GROWTH)
        + ". Shed is the behaviour asked of an overloaded server (OPC UA Part 4: Bad_TooManyOperations, "
        "Bad_ServerTooBusy); a queue answers everything, ever later. Runs of older commits say graceful (completions "
        "held, latency growth not measured) or degrading (they fell to 50–90 %)."
    )
    return Section(
        f"{run['suite'].capitalize()}: read capacity and overload",
        paragraphs=[intro],
        tables=[Table(columns, rows).sorted_by("capacity /s", descending=True)],
        figures=[_probe_figure(cells)],
        notes=notes,
    )


def _probe_figure(cells: list[dict]) -> Figure:
    probes: dict[str, list] = {}
    for c in cells:
        probe = (c.get("result") or {}).get("capacity_probe")
        if c["kind"] == CellKind.CAPACITY and probe and c.get("parameter"):
            probes.setdefault(c["server"], []).append((float(c["parameter"]), probe["throughput"]))
    return Figure(
        "Completed vs offered load",
        "line",
        "offered requests/s",
        "requests/s completed inside the window",
        [Series(server, server, sorted(found)) for server, found in sorted(probes.items())],
        logx=True,
        logy=True,
    )


def _legacy_section(run: dict, verdicts: list[dict]) -> Section:
    """Verdicts stored before completions were counted (issue 12): their "achieved" is the
    requests scheduled inside the window, true by construction, so only the offered rate is
    shown."""
    rows = [row(c["server"], c["result"]["capacity_offered"], c["result"]["behaviour"]) for c in verdicts]
    columns = [
        Column("server", kind="text"),
        Column("capacity offered /s", "requests/s"),
        Column("overload (old rule)", kind="text"),
    ]
    return Section(
        f"{run['suite'].capitalize()}: read capacity and overload",
        paragraphs=[
            "Stored by an older uabench that counted requests scheduled inside the window as achieved, so every "
            "achieved rate equalled the offered one and every overload looked graceful: only the offered rate and "
            "the old verdict are shown; re-run the capacity suite for completion-based figures."
        ],
        tables=[Table(columns, rows)],
    )


# --- the latency table ---------------------------------------------------------------------------


# The share of a latency load's offered requests that must complete inside its window, and the
# most: beyond it a backlog drained into the window (the server was behind at its start). The
# window's edges are counted from 100-ms timeline windows, so a steady load reads 99-101 %.
MIN_COMPLETED, MAX_COMPLETED = 0.99, 1.03


def latency_section(run: dict, cells: list[dict]) -> Section | None:
    """Every server at the same offered loads, and at shares of its own capacity: the
    percentiles of the merged histogram of each (server, load) over its repetitions, each
    stated as its bucket's upper edge and left out where the count cannot support it."""
    latency = [c for c in cells if c["kind"] == CellKind.LATENCY]
    if not latency:
        return None
    merged: dict[tuple[str, str], dict] = {}
    # by server, then the common loads by nodes per request and rate, then the capacity shares
    for c in sorted(latency, key=_load_order):
        entry = merged.setdefault(
            (c["server"], c["variant"]), {"histograms": [], "completed": [], "rate": c["parameter"], "why": None}
        )
        if c["status"] == "pass" and c.get("result"):
            r = c["result"]
            entry["histograms"].append(r["latency_ns"])
            window_s = (r["end_ns"] - r["start_ns"]) / 1e9
            offered = float(c["parameter"] or 0) * window_s
            if offered > 0:  # the engine's one rule for completions
                entry["completed"].append(completed_in_window(r) / offered)
        else:
            entry["why"] = c.get("reason") or c["status"]
    rows = []
    for (server, load), entry in merged.items():
        if not entry["histograms"]:
            rate = float(entry["rate"]) if entry["rate"] else None
            rows.append(row(server, load, rate, None, None, None, None, None, None, None, entry["why"]))
            continue
        histogram = stats.merge_histograms(entry["histograms"])
        summary = stats.latency_summary(histogram)
        p99_interval = stats.quantile_interval(histogram, 99)
        completed = min(entry["completed"]) if entry["completed"] else None
        # completions beyond the offered rate are a backlog from the warm-up draining into the
        # window: the server was behind, so its percentiles are not those of this load either
        drained = bool(entry["completed"]) and max(entry["completed"]) > MAX_COMPLETED
        sustained = completed is not None and completed >= MIN_COMPLETED and not drained
        rows.append(
            row(
                server,
                load,
                float(entry["rate"]) if entry["rate"] else None,
                Cell(completed, Status.PASS if sustained else Status.FAIL),
                summary["p50_us"],
                summary["p90_us"],
                summary["p99_us"],
                f"{p99_interval[0]:,.0f}–{p99_interval[1]:,.0f}" if p99_interval else None,
                summary["p99.9_us"],
                summary["count"],
                None
                if sustained
                else "not steady: it completed more than was offered, a backlog from its warm-up draining"
                if drained
                else "not sustained: its queue grew, so its percentiles grow with the run's length",
            )
        )
    columns = [
        Column("server", kind="text"),
        Column("load", kind="text"),
        Column("offered /s", "requests/s"),
        Column("completed", "offered requests completed inside the window (lowest repetition)", kind="percent"),
        Column("p50 µs", "µs"),
        Column("p90 µs", "µs"),
        Column("p99 µs", "µs"),
        Column("p99 95 % interval µs", "distribution-free, for independent requests", kind="text"),
        Column("p99.9 µs", "µs"),
        Column("n", "requests"),
        Column("note", kind="text"),
    ]
    return Section(
        "Latency at common loads",
        paragraphs=[
            f"Every server at the same offered loads and at 50 % and 80 % of its own capacity: {LATENCY_METHOD}. "
            "Each block climbs the loads, lightest first, the servers of each in an order shuffled per block from "
            "the run's seed; a load a server did not sustain spares it the heavier ones of the same request size. "
            "Percentiles are each bucket's upper edge; a percentile needs n ≥ 10/(1 − q) requests (p99 from "
            "1,000, p99.9 from 10,000) and is left out below that. The p99 interval is the binomial "
            "order-statistic interval of the quantile: it holds for independent requests, and requests of one run "
            "are not (a queue correlates neighbours), so the true uncertainty is wider. Not a ranking."
        ],
        tables=[Table(columns, rows)],
    )


def _load_order(cell: dict) -> tuple:
    config = cell.get("client_config") or {}
    share = cell["variant"].endswith("of capacity")
    return (cell["server"], share, config.get("nodes_per_request", 1), float(cell["parameter"] or 0), cell["variant"])
