"""The report's sections for client/server runs, computed from stored cells into the document
model: rankings, interop matrices, sweeps, negative tests, capacity, the CPU sizing model,
declared capabilities and provenance. What a run measured comes from its plan summary in the
run's provenance, not from plan names."""

from __future__ import annotations

import math
from collections import defaultdict

from uabench.document.model import (
    Cell,
    Column,
    CpuShare,
    Figure,
    Section,
    Series,
    Span,
    Status,
    Table,
    Tally,
    Value,
    row,
)
from uabench.document.parts import first_line, verdict_cell
from uabench.report import uncertainty
from uabench.report.text import number
from uabench.results import figures, margins, stats, sustain
from uabench.results.figures import Point
from uabench.results.kinds import CellKind
from uabench.results.provenance import uncommitted_warning
from uabench.results.reference import uncommitted
from uabench.results.runs import CHOSEN
from uabench.results.sustain import SUSTAINED_CYCLE_RATIO

NO_SECURITY = "None/None"  # the security sweeps' baseline: policy None, mode None
HEADROOM_GAIN = 0.05  # more load generator processes must deliver more than this to call one client-bound


def suite_title(suite: str) -> str:
    return suite.capitalize()


def plan_of(run: dict) -> dict:
    return run["provenance"].get("plan") or {}


def ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


def never_steady(cells: list[dict]) -> set[tuple[str, str]]:
    """(server, load) pairs whose warm-up never became steady within its bound."""
    return {
        (c["server"], c["variant"])
        for c in cells
        if c["kind"] == CellKind.STEADY_STATE and c["status"] == "never_steady"
    }


def marks(point: Point, unsteady: bool = False) -> str:
    found = ["never steady"] if unsteady else []
    if point.client_bound:
        found.append("client-bound")
    if point.emulated:
        found.append("emulated (qemu)")
    if point.repetitions == 1:
        found.append("single repetition")
    return ", ".join(found)


def marks_cell(text: str) -> Cell:
    return Cell(text, Status.MARKED if text else None)


def cpu_share(point: Point) -> CpuShare:
    return CpuShare(point.server_cpu_percent, point.server_user_percent, point.server_system_percent)


def unmeasured(cells: list[dict], kinds: tuple[str, ...], variant: str | None = None) -> list[str]:
    """The points a sweep tried and could not measure, with the first line of the reason. A
    disturbed repetition was measured again (it is listed under host interference), so it is
    not among them."""
    return [
        f"not measured: {c['server']} ({c['client']}) at {c.get('parameter')}: {c['status']} — "
        f"{first_line(c['reason'])}"
        for c in cells
        if c["kind"] in kinds
        and (variant is None or c["variant"] == variant)
        and c["status"] not in ("pass", "disturbed")
    ]


# --- rankings -------------------------------------------------------------------------------

RANKING_COLUMNS = [
    Column("rank"),
    Column("server", kind="text"),
    Column("values/s (median [95% CI])", "values/s"),
    Column("n", "repetitions"),
    Column("CV", "%", 1, "percent"),
    Column("requests/s", "requests/s"),
    Column("p50 µs", "µs", 1),
    Column("p90 µs", "µs", 1),
    Column("p99 µs", "µs", 1),
    Column("p99.9 µs", "µs", 1),
    Column("max µs", "µs", 1),
    Column("server CPU % (user/sys)", "%"),
    Column("server CPU-s / M values", "CPU-s", 2),
    Column("ctx switches / request", "switches", 3),
    Column("cycles / request", "cycles", counter=True),
    Column("instructions / request", "instructions", counter=True),
    Column("load generator CPU %", "%"),
    Column("marks", kind="text"),
]


def ranking_order(p: Point, standing: uncertainty.Standing) -> tuple:
    """Ranked servers first (by rank, then figure), then unstable ones, then those not compared."""
    center = p.throughput.center if p.throughput else 0.0
    if standing.rank is not None:
        return (0, standing.rank.low, standing.rank.high, -center)
    return (1 if standing.excluded is None else 2, 0, 0, -center)


def load_generators(run: dict, points: list[Point]) -> list[str]:
    """The clients whose load ranked servers in this run: the reference load generator first,
    then a second one (plan.second_load_generator). A run stored before the plan summary named
    its load generator has one ranking client."""
    primary = plan_of(run).get("load_generator")
    found = sorted({p.client for p in points})
    return sorted(found, key=lambda client: client != primary)


def ranking_section(run: dict, cells: list[dict]) -> Section | None:
    suite, summary = run["suite"], plan_of(run)
    measured = figures.points(cells, "throughput")
    parts = []
    for name, load in summary.get("throughput", {}).items():
        named = [p for p in measured if p.sweep == name]
        clients = load_generators(run, named)
        for client in clients:
            found = [p for p in named if p.client == client]
            second = client != clients[0]
            parts.append(_ranking_part(run, name, load, found, cells, second and clients[0]))
    if not parts:
        return None
    return Section(f"{suite_title(suite)}: server ranking", subsections=parts)


def _ranking_part(
    run: dict, name: str, load: dict, found: list[Point], cells: list[dict], first: str | bool
) -> Section:
    """One ranking: the servers measured under one load generator's load. `first`: the reference
    load generator this ranking is the second to (False for the reference's own)."""
    suite, summary = run["suite"], plan_of(run)
    client = found[0].client
    standing, ranking = uncertainty.standings(found, margins.of_run(run), figures.interleaved(run))
    unsteady = {server for server, _ in never_steady(cells)}
    points = sorted(found, key=lambda p: ranking_order(p, standing[p.server]))
    rows = []
    for p in points:
        lat = p.latency
        mine = standing[p.server]
        rows.append(
            row(
                mine.cell(),
                p.server,
                uncertainty.figure_cell(p.throughput, mine),
                p.repetitions,
                p.throughput.cv if p.throughput else None,
                p.ops_per_s["mean"],
                lat["p50_us"],
                lat["p90_us"],
                lat["p99_us"],
                lat["p99.9_us"],
                lat["max_us"],
                cpu_share(p),
                p.server_cpu_s_per_million,
                p.server_ctx_per_op,
                p.server_cycles_per_op,
                p.server_instructions_per_op,
                p.client_cpu_percent,
                marks_cell(marks(p, p.server in unsteady)),
            )
        )
    note = (
        "Servers ranked by values/s; a client-bound result ranks as a lower bound (the server did at least "
        "that much), an emulated one is shown but not ranked."
        if name == summary.get("ranking")
        else "Not used for the ranking; shown for comparison."
    ) + (
        f" Latencies here are response times at saturation in a closed loop ({load.get('in_flight', 1)} requests "
        "in flight, the next sent as one completes): each server at its own throughput, so they are not "
        "latencies at a common load. Percentiles are upper bucket edges, each left out (–) where fewer than "
        "10 / (1 − q) requests were measured."
    )
    paragraphs = [note]
    if first:
        refusing = sorted(
            {
                c["server"]
                for c in cells
                if c["kind"] == CellKind.THROUGHPUT
                and c["variant"] == name
                and c["client"] == first
                and c["status"] == "not_supported"
            }
        )
        paragraphs.insert(
            0,
            f"A second load generator: {first}'s client, which ranks the servers above, is refused by "
            f"{', '.join(refusing) or 'a server'} (declared in its sdk.toml [interop]), so every server is ranked "
            f"again under {client}'s load, in interleaved blocks of its own after the first ranking (each server "
            "warm from it). A rank holds within its own table only: two load generators' figures are never ranked "
            "against each other.",
        )
    missed = [
        f"not ranked: {c['server']}: {first_line(c['reason'])}"
        for c in cells
        if c["kind"] == CellKind.THROUGHPUT
        and c["variant"] == name
        and c["client"] == client
        and c["status"] == "not_supported"
    ]
    table = Table(RANKING_COLUMNS, rows, uncertainty.ranking_notes(points, standing, ranking))
    detail = uncertainty.repetition_table(points, name)
    curves = [
        Series(p.server + (" (client-bound)" if p.client_bound else ""), p.server, stats.cdf(p.histogram))
        for p in points
    ]
    under = f" ({client} load)" if first else ""
    return Section(
        f"{name} — load: {client} client, {load.get('in_flight', 1)} requests in flight",
        paragraphs=paragraphs,
        tables=[table.without_missing_counters(), *([detail] if detail else [])],
        notes=sorted(set(missed)),
        figures=[
            Figure(
                f"{suite_title(suite)} latency CDF — {name}{under}",
                "step",
                "latency (µs)",
                "fraction of requests",
                curves,
                logx=True,
            )
        ],
    )


def headroom_section(run: dict, cells: list[dict]) -> Section | None:
    """The reference load generator with one and with more processes on the fastest server: if
    more deliver clearly more, one process was the bottleneck."""
    groups: dict[int, list[dict]] = {}
    for c in cells:
        if c["kind"] == CellKind.HEADROOM and c["status"] == "pass":
            groups.setdefault(c["result"].get("processes", 1), []).append(c)
    if len(groups) < 2:
        return None
    rows, values = [], {}
    for processes, group in sorted(groups.items()):
        values[processes] = [c["result"]["throughput"]["values_per_s"] for c in group]
        found = stats.estimate(values[processes])
        shares = [(c["client_resources"] or {}).get("cpu_percent") for c in group]
        cpu = [v for v in shares if v is not None]
        rows.append(
            row(
                group[0]["variant"],
                uncertainty.figure_cell(found),
                sum(cpu) / len(cpu) if cpu else None,
                len(group),
            )
        )
    fewest, most = min(values), max(values)
    change = stats.relative_change(values[fewest], values[most])
    # more processes deliver clearly more: the whole interval above no change, the gain above 5 %
    bound = math.isfinite(change.low) and change.low > 0 and change.center > HEADROOM_GAIN
    spread = f"95% interval {change.low:+.0%} to {change.high:+.0%}" if math.isfinite(change.low) else "no interval"
    notes = [
        f"{most} processes deliver {change.center:+.0%} ({spread}) over {fewest}: the {fewest}-process figure "
        + (
            "WAS client-bound — the reference load generator is the bottleneck on this server."
            if bound
            else "was not shown to be client-bound; the load generator has headroom."
        ),
        f"Change: {change.method}.",
    ]
    first = next(iter(groups.values()))[0]
    intro = (
        f"Reference load generator: {first['client']}; fastest server: {first['server']} "
        f"({plan_of(run).get('ranking')}). All processes run on the load generator's CPUs."
    )
    columns = [
        Column("load generator", kind="text"),
        Column("values/s [95% CI]", "values/s"),
        Column("load generator CPU %", "%"),
        Column("repetitions"),
    ]
    return Section(
        f"{suite_title(run['suite'])}: load generator headroom",
        paragraphs=[intro],
        tables=[Table(columns, rows)],
        notes=notes,
    )


# --- interop and negative tests ---------------------------------------------------------------


def interop_matrix(cells: list[dict], kind: str = CellKind.INTEROP) -> tuple[list[str], list[str], dict]:
    """Client x server verdicts over the interop cells: pass, fail (with reasons) or not
    supported, with the count of variants that passed."""
    matrix: dict[tuple[str, str], dict] = {}
    for c in cells:
        # a "disturbed" attempt failed for the machine's sake and was run once more (the retry
        # is the pair's verdict; retried_notes names the attempt)
        if c["kind"] != kind or c["status"] == "disturbed":
            continue
        entry = matrix.setdefault(
            (c["client"], c["server"]), {"status": Status.PASS, "passed": 0, "total": 0, "reasons": []}
        )
        entry["total"] += 1
        if c["status"] == "pass":
            entry["passed"] += 1
        elif c["status"] == "not_supported":
            if entry["status"] == Status.PASS:
                entry["status"] = Status.NOT_SUPPORTED
            entry["reasons"].append(f"{c['variant']}: {c['reason']}")
        else:
            entry["status"] = Status.FAIL
            entry["reasons"].append(f"{c['variant']}: {first_line(c['reason'])}")
    return sorted({k[0] for k in matrix}), sorted({k[1] for k in matrix}), matrix


def interop_section(suite: str, cells: list[dict]) -> Section | None:
    clients, servers, matrix = interop_matrix(cells)
    if not matrix:
        return None
    rows, reasons = [], []
    for client in clients:
        line = [Cell(client)]
        for server in servers:
            entry = matrix.get((client, server))
            if entry is None:
                line.append(Cell(None))
                continue
            tally = Tally(entry["passed"], entry["total"])
            line.append(verdict_cell(entry["status"], None if entry["status"] == Status.NOT_SUPPORTED else tally))
            reasons += [f"{client} → {server}: {r}" for r in entry["reasons"][:3]]
        rows.append(line)
    columns = [Column("client \\ server", kind="text"), *(Column(s, kind="text") for s in servers)]
    return Section(
        f"{suite_title(suite)}: interop matrix (client × server)",
        tables=[Table(columns, rows)],
        notes=[*verification_notes(cells), *reasons, *retried_notes(cells)],
    )


def retried_notes(cells: list[dict], kind: str = CellKind.INTEROP) -> list[str]:
    """The attempts that failed for the machine's sake and were run once more."""
    return [
        f"{c['client']} → {c['server']}: {c['variant']}: {first_line(c['reason'])}"
        for c in cells
        if c["kind"] == kind and c["status"] == "disturbed"
    ]


def verification_notes(cells: list[dict]) -> list[str]:
    """What the clients verified over every cell of a suite (SPEC §3): the values checked, those
    of them read back under load (W1, write), and how many were wrong."""
    results = [c["result"] for c in cells if c.get("result") and "verification" in c["result"]]
    checked = sum(r["verification"]["checked"] for r in results)
    if not checked:
        return []
    failed = sum(r["verification"]["failed"] for r in results)
    read_back = sum(r["verification"].get("read_back", 0) for r in results)
    under_load = f", {number(read_back)} of them read back under load (SPEC §3 W1)" if read_back else ""
    return [
        f"Verified in this suite's {len(results)} stored cells: {number(checked)} values checked{under_load}, "
        f"{number(failed)} wrong."
    ]


def negative_section(run: dict, cells: list[dict]) -> Section | None:
    """Where each server refused (the security probe's handshake step, the status it sent)
    and how long it took; a cell stored before the probe existed has none of these."""
    rows = []
    for c in cells:
        if c["kind"] != CellKind.NEGATIVE:
            continue
        probe = (c.get("result") or {}).get("probe") or {}
        rows.append(
            row(
                c["server"],
                c["variant"],
                Cell(c["status"], Status.PASS if c["status"] == "pass" else Status.FAIL),
                probe.get("step"),
                probe.get("status"),
                probe.get("ms"),
                first_line(c["reason"]),
            )
        )
    if not rows:
        return None
    columns = [
        *(Column(t, kind="text") for t in ("server", "refused", "verdict", "handshake step", "server status")),
        Column("ms", "ms from connect to the answer", 1),
        Column("detail", kind="text"),
    ]
    return Section(
        f"{suite_title(run['suite'])}: negative security tests",
        tables=[Table(columns, rows)],
        notes=[
            "Asked by a probe (asyncua's low-level client) that sets the policy, mode and certificate itself: "
            "a refusal is a security-related Bad status from the server, then a trusted client is served."
        ],
    )


# --- sweeps -----------------------------------------------------------------------------------

SUBSCRIBE_COLUMNS = [
    Column("signals/s", "signals/s"),
    Column("cycle mean ms", "ms", 1),
    Column("cycle p99 ms", "ms", 1),
    Column("delay p50 ms", "ms", 2),
    Column("delay p99 ms", "ms", 2),
    Column("tick gaps"),
    Column("updates/subscription", "updates"),
    Column("server CPU % (user/sys)", "%"),
    Column("server CPU-s / M values", "CPU-s", 2),
    Column("client CPU %", "%"),
    Column("sustained", kind="text"),
    Column("marks", kind="text"),
]
READ_COLUMNS = [
    Column("values/s (median [95% CI])", "values/s"),
    Column("n", "repetitions"),
    Column("CV", "%", 1, "percent"),
    Column("requests/s", "requests/s"),
    Column("µs / request (mean)", "µs", 1),
    Column("µs / value", "µs", 3),
    Column("p50 µs", "µs", 1),
    Column("p99 µs", "µs", 1),
    Column("CV of response time", "", 3),
    Column("server CPU % (user/sys)", "%"),
    Column("server CPU-s / M values", "CPU-s", 2),
    Column("ctx switches / request", "switches", 3),
    Column("marks", kind="text"),
]
SECURITY_COLUMNS = [
    Column("round trip vs None", "ratio", 2),
    Column("throughput vs None [95% CI]", "ratio", 2),
    Column("session set-up ms (median)", "ms", 1),
    Column("set-up vs None", "ratio", 2),
]


def per_value_us(p: Point) -> float | None:
    return 1e6 / p.values_per_s["mean"] if p.values_per_s["mean"] else None


def sweep_section(run: dict, cells: list[dict], name: str, about: dict) -> Section | None:
    points = [p for p in figures.points(cells) if p.sweep == name]
    if not points:
        return None
    kind: str = about.get("kind") or ""
    subscribe = about.get("workload") == "subscribe"
    baseline = {(p.server, p.client): p for p in points if p.parameter == NO_SECURITY}
    key = [Column("server", kind="text"), Column("client", kind="text"), Column(kind, kind="text")]
    rows = []
    ratios: list[tuple[stats.Estimate | None, bool]] = []
    above_one: dict[str, stats.Estimate | None] = {}
    unstable = {id(p): stats.unstable(p.throughput) if p.throughput and p.repetitions > 1 else None for p in points}
    for p in points:
        if subscribe:
            rows.append(
                row(
                    p.server,
                    p.client,
                    str(p.parameter),
                    p.values_per_s["mean"],
                    p.cycle_ms,
                    p.cycle_p99_ms,
                    p.delay_p50_ms,
                    p.delay_p99_ms,
                    p.tick_gaps,
                    Span(p.updates_min, p.updates_max),
                    cpu_share(p),
                    p.server_cpu_s_per_million,
                    p.client_cpu_percent,
                    Cell("yes" if p.sustained else "no", None if p.sustained else Status.MARKED),
                    marks_cell(marks(p)),
                )
            )
            continue
        security: list[Value | Cell] = []
        if kind == "security":
            base = baseline.get((p.server, p.client))
            throughput = (
                figures.throughput_ratio(p, base, figures.interleaved(run)) if base and p is not base else (None, False)
            )
            ratios.append(throughput)
            if p.parameter != NO_SECURITY:
                above_one[f"{p.server} ({p.client}), {p.parameter}"] = throughput[0]
            security = [
                ratio(p.latency["mean_us"], base.latency["mean_us"] if base else None),
                uncertainty.ratio_cell(*throughput, above_one_suspect=True, unstable=ratio_unstable(throughput[0])),
                p.setup_ms,
                ratio(p.setup_ms, base.setup_ms if base else None),
            ]
        rows.append(
            row(
                p.server,
                p.client,
                str(p.parameter),
                *security,
                uncertainty.figure_cell(p.throughput, unstable=unstable[id(p)]),
                p.repetitions,
                p.throughput.cv if p.throughput else None,
                p.ops_per_s["mean"],
                p.latency["mean_us"],
                per_value_us(p),
                p.latency["p50_us"],
                p.latency["p99_us"],
                p.latency_cv,
                cpu_share(p),
                p.server_cpu_s_per_million,
                p.server_ctx_per_op,
                marks_cell(marks(p)),
            )
        )
    if subscribe:
        columns = key + SUBSCRIBE_COLUMNS
    else:
        columns = key + (SECURITY_COLUMNS if kind == "security" else []) + READ_COLUMNS
    paragraphs = []
    if kind == "signals":
        paragraphs.append(sweep_limits_text(cells, name, points))
    return Section(
        f"{suite_title(run['suite'])}: {name}",
        paragraphs=paragraphs,
        tables=[Table(columns, rows, sweep_notes(points, unstable, ratios, above_one) if not subscribe else [])],
        figures=sweep_figures(name, kind, subscribe, points, baseline),
        notes=unmeasured(cells, ("sweep",), name),
    )


def sweep_limits_text(cells: list[dict], name: str, points: list[Point]) -> str:
    """Each server's limit as its sweep's verdict cell recorded it: "≥ X (grid limit)" when the
    top point held, else the limit with its bracket. A store from before limits were recorded
    gives the highest sustained point, said to be no limit."""
    limits = {server: found for (sweep, server), found in figures.sweep_limits(cells).items() if sweep == name}
    if limits:
        return (
            f"Limit of each server ({sustain.RULE}; the first missed and the last held point measured once "
            "more, then the limit bisected between them): "
            + "; ".join(f"{server} {found.text}" for server, found in sorted(limits.items()))
        )
    best = figures.highest_sustained(points)
    return "Highest sustained point (no limit recorded in this run, so none is claimed): " + (
        ", ".join(
            f"{server} {number(p.values_per_s['mean'])} signals/s at {p.parameter} signals"
            for server, p in sorted(best.items())
        )
        or "none"
    )


def ratio_unstable(found: stats.Estimate | None) -> str | None:
    return stats.unstable(found) if found else None


def sweep_notes(
    points: list[Point],
    unstable: dict[int, str | None],
    ratios: list[tuple[stats.Estimate | None, bool]],
    above_one: dict[str, stats.Estimate | None],
) -> list[str]:
    """How the figures and ratios were estimated, which are unstable and why, and every
    encryption ratio above 1."""
    label = {id(p): f"{p.server} ({p.client}) at {p.parameter}" for p in points}
    return [
        *uncertainty.method_notes(p.throughput for p in points),
        *uncertainty.ratio_method_notes(ratios),
        *uncertainty.above_one_notes("throughput relative to None", above_one),
        *uncertainty.unstable_notes({label[key]: reason for key, reason in unstable.items()}),
        *uncertainty.unstable_notes(
            {f"{name}, throughput relative to None": ratio_unstable(found) for name, found in above_one.items()}
        ),
    ]


def _numeric(parameter: str | None) -> float | None:
    if parameter is None:
        return None
    try:
        return float(parameter)
    except (TypeError, ValueError):
        return None


def _series(points: list[Point], x, y) -> list[Series]:
    """One series per (server, load generator): the load generator sets the line style."""
    out: dict[tuple[str, str], list] = {}
    for p in points:
        xv, yv = x(p), y(p)
        if xv is not None and yv is not None:
            out.setdefault((p.server, p.client), []).append((xv, yv))
    return [Series(f"{server} ({client})", server, found, style=client) for (server, client), found in out.items()]


def _bars(points: list[Point], y) -> tuple[list[str], list[Series]]:
    """Bars per parameter (x) and server (colour)."""
    categories = sorted({str(p.parameter) for p in points if y(p) is not None})
    groups: dict[str, list] = {}
    for p in points:
        if y(p) is not None:
            groups.setdefault(p.server, []).append((categories.index(str(p.parameter)), y(p)))
    return categories, [Series(server, server, found) for server, found in sorted(groups.items())]


def sweep_figures(name: str, kind: str, subscribe: bool, points: list[Point], baseline: dict) -> list[Figure]:
    def signals_per_s(p: Point) -> float | None:
        return p.values_per_s["mean"]

    def cpu(p: Point) -> float | None:
        return p.server_cpu_percent

    if subscribe and kind == "signals":
        return [
            Figure(
                f"{name}: server CPU vs signals/s",
                "line",
                "signals/s",
                "server CPU %",
                _series(points, signals_per_s, cpu),
            ),
            Figure(
                f"{name}: cycle time vs signals/s",
                "line",
                "signals/s",
                "mean cycle time (ms)",
                _series(points, signals_per_s, lambda p: p.cycle_ms),
                hline=100 * SUSTAINED_CYCLE_RATIO,
            ),
        ]
    if subscribe:
        return [
            Figure(
                f"{name}: server CPU",
                "line",
                kind,
                "server CPU %",
                _series(points, lambda p: _numeric(p.parameter), cpu),
            )
        ]
    if kind == "security":

        def relative(p: Point) -> float | None:
            base = baseline.get((p.server, p.client))
            return ratio(p.values_per_s["mean"], base.values_per_s["mean"] if base else None)

        categories, series = _bars(points, relative)
        return [
            Figure(
                f"{name}: throughput relative to None",
                "bar",
                "",
                "ratio to None",
                series,
                hline=1.0,
                categories=categories,
            )
        ]
    if kind == "nodes":
        categories, series = _bars(points, lambda p: p.latency["mean_us"])
        return [Figure(f"{name}: time per request", "bar", "", "µs (mean)", series, categories=categories)]
    return [
        Figure(
            f"{name}: time per value",
            "line",
            kind,
            "µs per value",
            _series(points, lambda p: _numeric(p.parameter), per_value_us),
            logx=True,
            logy=True,
        )
    ]


# --- capacity and the CPU model -----------------------------------------------------------------


# --- what each SDK declares, and where the figures come from --------------------------------------


def capability_section(runs: list[dict]) -> Section | None:
    declared: dict[str, dict] = {}
    for run in runs:
        declared.update(run["provenance"].get("sdks") or {})
    if not declared:
        return None
    columns: list[str] = []
    for key in ("roles", "workloads", "policies"):  # in the order the SDKs declare them
        for about in declared.values():
            columns += [c for c in about.get(key, []) if c not in columns and c != "None"]
    rows, reasons = [], []
    for sdk, about in sorted(declared.items()):
        have = set(about["roles"]) | set(about["workloads"]) | set(about["policies"])
        line = [Cell(f"{sdk} {about['version']}")]
        for column in columns:
            line.append(Cell("yes", Status.PASS) if column in have else Cell("not supported", Status.NOT_SUPPORTED))
            reason = (about.get("not_supported") or {}).get(column) if column not in have else None
            if reason:
                reasons.append(f"{sdk}, {column}: {reason}")
        rows.append(line)
    table = Table([Column("SDK", kind="text"), *(Column(c, kind="text") for c in columns)], rows)
    return Section("Capabilities declared by each SDK (sdk.toml)", tables=[table], notes=reasons)


def resource_accounting(resources: dict | None) -> list[str]:
    """How a run measured CPU, the hot thread, context switches and the samplers' own CPU (runs
    from before it was recorded: nothing)."""
    if not resources:
        return []
    return [
        f"resources: CPU from {resources['cpu']}; hot thread: {resources['hot_thread']}; context switches: "
        f"{resources['context_switches']}; samplers' own CPU: {resources['sampler_cpu']}"
    ]


def isolation_note(isolation: dict | None) -> str:
    """Where the adapters ran: on the host, or in containers (engine, every image's digest)."""
    if not isolation or isolation.get("kind") != "container":
        return "adapters ran on the host" + ("" if isolation else " (the run recorded no isolation)")
    images = "; ".join(
        f"{sdk} {one['image']} {one['digest']}"
        + (f" ({one['size_bytes'] / 1e6:.0f} MB)" if one.get("size_bytes") else "")
        for sdk, one in sorted(isolation["images"].items())
    )
    return (
        f"adapters ran in containers ({isolation['engine']}: {isolation['daemon']}; resources are the adapter "
        f"process's): {images}"
    )


def placement_note(provenance: dict) -> str:
    """Where each role's adapters ran (targets/): this machine, containers or an SSH target, with
    the target's machine, architecture, emulation, images and clock. Runs from before targets:
    their isolation."""
    placed = provenance.get("targets")
    if not placed:
        return isolation_note(provenance.get("isolation"))
    if all(one.get("kind") == "local" for one in placed.values()):
        return "adapters ran on this machine"
    return "; ".join(f"{role}s: {_target_note(one)}" for role, one in placed.items())


def _target_note(target: dict) -> str:
    kind = target.get("kind")
    if kind == "local":
        return "on this machine"
    # a VM target records its emulation (qemu-system); a container or board with a foreign
    # architecture runs it under qemu-user
    how = f"{target['arch']} " + (
        f"emulated ({target.get('emulation') or 'qemu-user'})" if target.get("emulated") else "native"
    )
    if kind == "container":
        return f"{how}, {isolation_note(target).removeprefix('adapters ran ')}"
    machine, clock, network = target.get("machine") or {}, target.get("clock") or {}, target.get("network") or {}
    images = "; ".join(f"{sdk} {one['image']} {one['digest']}" for sdk, one in sorted(target["images"].items()))
    return (
        f"on {target['name']} ({machine.get('machine')}, {machine.get('cpu_model') or 'CPU model unknown'}, "
        f"{machine.get('cpus')} cores, Linux {machine.get('kernel')}, {machine.get('os') or 'OS unknown'}; "
        f"perf {'yes' if machine.get('perf') else 'no'}), images {how} with podman: {images}; clock offset "
        f"{clock.get('offset_ns', 0) / 1e6:+.3f} ms ± {clock.get('uncertainty_ns', 0) / 1e6:.3f} ms "
        f"({clock.get('how', '')}); network path: {network.get('route', '?')}"
        + (f", MTU {network['mtu']}" if "mtu" in network else "")
    )


def moved_clients_note(provenance: dict, cells: list[dict]) -> str | None:
    """Where a run's clients ran elsewhere than its clients' target for some of its cells: the
    footprint measures a client beside its server on a board or the VM (each such cell records
    its placement), while the run's clients stay on this machine."""
    if ((provenance.get("targets") or {}).get("client") or {}).get("kind", "local") != "local":
        return None
    moved: dict[str, set[str]] = defaultdict(set)
    for c in cells:
        where = ((c.get("result") or {}).get("placement") or {}).get("client")
        if where and where != "local":
            moved[where].add(c["kind"])
    return (
        "; ".join(
            f"clients of its {', '.join(sorted(kinds))} cells: on {where}, beside their servers (the cells' placement)"
            for where, kinds in sorted(moved.items())
        )
        or None
    )


def provenance_section(runs: list[dict], cells_of: dict[int, list[dict]] | None = None) -> Section:
    fingerprints = {run["provenance"]["machine"]["fingerprint"] for run in runs}
    parts = []
    for run in runs:
        prov = run["provenance"]
        m = prov["machine"]
        phases = (prov.get("plan") or {}).get("phases") or {}
        parts.append(
            Section(
                f"Run {run['id']}: {run['suite']}",
                notes=[
                    f"profile {run['profile']}, {run['status']}",
                    *(
                        [
                            f"chosen for {', '.join(run[CHOSEN])} only: "
                            "newer runs there measured its other servers and clients"
                        ]
                        if CHOSEN in run
                        else []
                    ),
                    f"git commit: {prov['git_commit']}"
                    + (" (uncommitted changes to the measured code)" if uncommitted(prov["git_commit"]) else ""),
                    f"machine: {m['cpu_model']}, {m['cores']} cores, {m['memory_bytes'] / 2**30:.1f} GiB, "
                    f"kernel {m['kernel']}, {m['os']} ({m['arch']}), fingerprint {m['fingerprint']}",
                    f"pinning: server CPUs {prov['pinning']['server_cpus'] or 'not pinned'}, "
                    f"load generator CPUs {prov['pinning']['client_cpus'] or 'not pinned'}"
                    + (f"; harness: {prov['pinning']['harness']}" if prov["pinning"].get("harness") else ""),
                    *resource_accounting(prov.get("resources")),
                    placement_note(prov),
                    *filter(None, [moved_clients_note(prov, (cells_of or {}).get(run["id"], []))]),
                    "SDK versions: " + (", ".join(f"{k} {v}" for k, v in sorted(prov["sdk_versions"].items())) or "–"),
                    f"perf counters: {'yes' if prov.get('perf') else 'unavailable'}",
                    "repetitions and durations: "
                    + (
                        ", ".join(
                            f"{kind} {p['repetitions']} × {p['duration_s']:g} s after {p['warmup_s']:g} s warm-up"
                            for kind, p in phases.items()
                        )
                        or "–"
                    ),
                ],
            )
        )
    warnings = [
        *(["These results come from different machines; figures are not comparable"] if len(fingerprints) > 1 else []),
        *filter(None, [uncommitted_warning(runs)]),
    ]
    return Section("Provenance", subsections=parts, warning=". ".join(warnings) + "." if warnings else None)
