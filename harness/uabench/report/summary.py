"""The report's first section: every suite's headline figures, one line per server. Which figure
is a headline comes from each run's plan summary (its ranking variant, its sweep kinds)."""

from __future__ import annotations

from uabench.document.model import Cell, Column, Rank, Section, Status, Table
from uabench.plan import suite_kinds
from uabench.report import uncertainty
from uabench.report.sections import NO_SECURITY, load_generators, plan_of
from uabench.report.text import number
from uabench.results import figures, margins, provenance, ranking, stats
from uabench.results.kinds import CellKind

# The security policy and mode whose cost the summary shows: the strongest one every SDK of this
# benchmark supports.
HEADLINE_SECURITY = "Basic256Sha256/SignAndEncrypt"


class Figures:
    """Cells by server and column, columns in the order they are first given; the notes on them
    (methods, unstable figures, ratios above 1) in the order they are first given."""

    def __init__(self) -> None:
        self.columns: dict[str, Column] = {}
        self.by_server: dict[str, dict[str, Cell]] = {}
        self.notes: list[str] = []

    def note(self, *texts: str) -> None:
        self.notes += [t for t in texts if t not in self.notes]

    def put(self, server: str, column: Column, value: Cell) -> None:
        self.columns.setdefault(column.title, column)
        self.by_server.setdefault(server, {})[column.title] = value

    def table(self) -> Table:
        columns = list(self.columns.values())
        rows = [
            [Cell(server), *(cells.get(c.title, Cell(None)) for c in columns)]
            for server, cells in self.by_server.items()
        ]
        return Table([Column("server", kind="text"), *columns], rows, self.notes)


def _rankings(run: dict, cells: list[dict], found: Figures) -> None:
    ranking = plan_of(run).get("ranking")
    if not ranking:
        return
    suite = run["suite"]
    ranked = [p for p in figures.points(cells, "throughput") if p.sweep == ranking]
    clients = load_generators(run, ranked)
    points = [p for p in ranked if clients and p.client == clients[0]]
    noise, paired = margins.of_run(run), figures.interleaved(run)
    standing, ordered = uncertainty.standings(points, noise, paired)
    reasons = {}
    host = figures.host_cv(points)
    probe = figures.host_probe(cells, ranking, CellKind.THROUGHPUT)
    for p in points:
        mine = standing[p.server]
        # the rank rests on the paired ratios; the figure's quality note is said beside it
        reasons[p.server] = explained(mine.unstable, p, host.get(p.server), probe[0] if probe else None)
        found.put(p.server, Column(f"{suite} rank"), mine.cell())
        found.put(
            p.server,
            Column(f"{suite} values/s", "values/s"),
            uncertainty.figure_cell(p.throughput, mine, unstable=reasons[p.server]),
        )
        found.put(p.server, Column(f"{suite} CV", "%", 1, "percent"), Cell(p.throughput.cv if p.throughput else None))
        # closed loop: the response time at saturation, not a latency at a common load (issue 12)
        at = f"{suite} p99 µs at saturation ({p.config.get('in_flight', 1)} in flight)"
        found.put(p.server, Column(at, "µs"), Cell(p.latency["p99_us"]))
    reference = figures.reference_server(run)
    ratios = figures.reference_ratios(run, points)
    for server, ratio in ratios.items():
        found.put(
            server,
            Column(f"{suite} ÷ {reference}", "ratio", 3),
            uncertainty.ratio_cell(ratio, True, unstable=headline_unstable(ratio)),
        )
    if ratios:
        found.note(
            f"{suite} ÷ {reference}: each server's values/s over {reference}'s in the same interleaved block, "
            "median of the blocks with its 95 % interval: the host's drift, shared by both, cancels in it."
        )
    for second in clients[1:]:  # the servers ranked again under a second load generator: a column of their own
        seconds = [p for p in ranked if p.client == second]
        apart, _ = uncertainty.standings(seconds, noise, paired)
        for p in seconds:
            found.put(p.server, Column(f"{suite} rank ({second} load)"), apart[p.server].cell())
    if probe:
        found.note(probe_note(suite, *probe))
    found.note(f"{suite} rank: {ordered.sentence()}")
    found.note(*uncertainty.method_notes(p.throughput for p in points))
    found.note(*uncertainty.unstable_notes({f"{server} ({suite})": reason for server, reason in reasons.items()}))


def probe_note(suite: str, probe: stats.Estimate, tool: str) -> str:
    """What the host probe of a ranking's blocks says of the machine."""
    spread = f"varied by {probe.cv * 100:.1f} %" if probe.cv is not None else "ran once"
    return (
        f"Host probe ({suite}): {tool}, pinned to the servers' CPUs, one window as long as a cell's after every "
        f"block, {spread} over {probe.n} blocks (median {probe.center:,.0f} operations/s): the machine's own spread "
        "in windows of this length, at the system calls and wake-ups a server over loopback spends its time on; no "
        "figure measured in such windows can be expected to be steadier."
    )


def explained(
    reason: str | None, point: figures.Point, host_cv: float | None, probe: stats.Estimate | None = None
) -> str | None:
    """An unstable figure's reason with what the data show made its repetitions differ: pauses
    within them (their timelines), the host probe of the same blocks where it varied beyond the
    headline limit itself (figures.host_probe), or the host, when the variation the servers of a
    block had in common accounts for most of it (figures.host_cv)."""
    if not reason:
        return reason
    evidence = [point.pauses.text()] if point.pauses else []
    if probe is not None and probe.cv is not None and probe.cv > stats.CV_LIMIT:
        evidence.append(
            f"the host probe of the same blocks varied by {probe.cv * 100:.1f} % itself: "
            "the machine, not only the server"
        )
    cv = point.throughput.cv if point.throughput else None
    if host_cv is not None and cv and host_cv < HOST_SHARE * cv:
        evidence.append(
            f"most of its variation was the host's: the servers measured in the same block rose and fell together, "
            f"and with their common factor divided out its repetitions vary by {host_cv * 100:.1f} %"
        )
    return f"{reason.rstrip('.')}; {'; '.join(evidence)}." if evidence else reason


# The host is named as the cause when dividing out the block's common factor leaves less than
# this share of a figure's CV.
HOST_SHARE = 0.6


def headline_unstable(found: stats.Estimate | None) -> str | None:
    """The quality note of a summary figure: the one rule every figure is noted by (stats.unstable),
    said beside it and never a veto."""
    return stats.unstable(found) if found else None


def _sweeps(run: dict, cells: list[dict], found: Figures) -> None:
    sweeps = plan_of(run).get("sweeps") or {}
    signal_sweeps = [name for name, about in sweeps.items() if about.get("kind") == "signals"]
    swept = figures.points(cells)
    points = [p for p in swept if p.sweep in signal_sweeps]
    limits = {key: limit for key, limit in figures.sweep_limits(cells).items() if key[0] in signal_sweeps}
    if limits:
        _sweep_limits(points, limits, found)
    else:
        _highest_sustained(points, found)
    security = [p for p in swept if sweeps.get(p.sweep, {}).get("kind") == "security"]
    if not security:
        return
    _security(run, cells, sweeps, security, found)


def _sweep_limits(points: list[figures.Point], limits: dict, found: Figures) -> None:
    """Each server's signal-rate limit from its sweep's verdict: the held point's measured
    signals/s, "≥" when the grid's top point held, with the bracket the limit lies in."""
    by_key = {(p.sweep, p.server, p.parameter): p for p in points}
    for (sweep, server), limit in sorted(limits.items()):
        mine = [p for p in points if p.sweep == sweep and p.server == server]
        if not mine:
            continue
        title = f"sustained signals/s at {mine[0].config.get('publishing_interval_ms', 100):g} ms"
        p = by_key.get((sweep, server, str(limit.limit.held)))
        if p is None or p.throughput is None:
            found.put(server, Column(title, "signals/s"), Cell("none sustained", Status.MARKED, limit.text))
            continue
        if limit.limit.found == "grid limit":
            grid = f"grid limit: the sweep's top point, {limit.limit.held:,} signals, held"
            cell = Cell(f"≥ {number(p.throughput.center)}", Status.MARKED, grid)
        else:
            reason = headline_unstable(p.throughput)
            shown = uncertainty.figure_cell(p.throughput, unstable=reason)
            bracket = limit.limit.text("signals")
            cell = Cell(shown.value, shown.status, ", ".join(str(d) for d in (bracket, shown.detail) if d))
            found.note(*uncertainty.unstable_notes({f"{server} ({title})": reason}))
        found.put(server, Column(title, "signals/s"), cell)
        found.note(*uncertainty.method_notes([p.throughput]))
    found.note(
        "sustained signals/s: the measured signals/s at the highest point that held (results/sustain.py: median cycle "
        "time and missed updates), with the bracket its sweep's limit lies in; ≥ where the sweep's top point held "
        "(grid limit): the server's limit lies beyond the grid."
    )


def _highest_sustained(points: list[figures.Point], found: Figures) -> None:
    """A store from before sweep limits were recorded: the highest sustained point."""
    tried = {(p.sweep, p.server): figures.sweep_values(points, p.sweep, p.server) for p in points}
    for server, p in figures.highest_sustained(points).items():
        interval = p.config.get("publishing_interval_ms", 100)
        title = f"sustained signals/s at {interval:g} ms"
        reason = headline_unstable(p.throughput)
        if p.parameter == tried[p.sweep, server][-1]:
            # the sweep stopped short of the server's limit: the figure is what was offered at most
            bound = f"a lower bound: the sweep's highest point ({p.parameter} signals) held"
            reason = f"{reason[:-1]}; {bound}." if reason else f"Note: {bound}."
        found.put(server, Column(title, "signals/s"), uncertainty.figure_cell(p.throughput, unstable=reason))
        found.note(*uncertainty.method_notes([p.throughput]))
        found.note(*uncertainty.unstable_notes({f"{server} ({title})": reason}))


def _security(run: dict, cells: list[dict], sweeps: dict, security: list[figures.Point], found: Figures) -> None:
    # the throughput figure: the security sweep that keeps the most requests in flight
    names = [name for name, about in sweeps.items() if about.get("kind") == "security"]
    busiest = max(
        names, key=lambda name: max((p.config.get("in_flight", 1) for p in security if p.sweep == name), default=0)
    )
    base = {p.server: p for p in security if p.sweep == busiest and p.parameter == NO_SECURITY}
    mode = HEADLINE_SECURITY.split("/")[1]
    label = f"{mode} / None throughput"
    probe = figures.host_probe(cells, busiest, CellKind.SWEEP)
    if probe:
        found.note(probe_note(f"{run['suite']}, {busiest}", *probe))
    encrypted = {p.server: p for p in security if p.sweep == busiest and p.parameter == HEADLINE_SECURITY}
    noise = margins.of_run(run, margins.SECURITY_RATIO)
    ordered = ranking.security_ranking(encrypted, base, noise, figures.interleaved(run))
    for server in encrypted:
        if server in base:
            rank = ordered.ranks.get(server)
            why = ranking.unranked(encrypted[server]) or ranking.unranked(base[server]) or "not ranked"
            cell = Cell(Rank(*rank)) if rank else Cell(None, Status.MARKED, why)
            found.put(server, Column(f"{mode} rank"), cell)
    found.note(f"{mode} rank: by {label} (higher: cheaper); {ordered.sentence()}")
    for p in security:
        baseline = base.get(p.server)
        if p.sweep == busiest and p.parameter == HEADLINE_SECURITY and baseline:
            ratio, paired = figures.throughput_ratio(p, baseline, figures.interleaved(run))
            reason = headline_unstable(ratio)
            shown = uncertainty.ratio_cell(ratio, paired, above_one_suspect=True, unstable=reason)
            found.put(p.server, Column(label, "ratio", 2), shown)
            found.note(*uncertainty.ratio_method_notes([(ratio, paired)]))
            found.note(*uncertainty.above_one_notes(label, {p.server: ratio}))
            found.note(*uncertainty.unstable_notes({f"{p.server} ({label})": reason}))


def _capacity(cells: list[dict], found: Figures) -> None:
    for c in cells:
        if c["kind"] == CellKind.CAPACITY_VERDICT:
            r = c["result"]
            found.put(
                c["server"],
                Column("read capacity /s (overload)", "requests/s"),
                Cell(r["capacity_throughput"], detail=r["behaviour"]),
            )


def _suites(cells: list[dict], found: Figures) -> None:
    """Beside each server's figures, what the suites register for it (plan.SuiteKind.summary):
    how it follows the specification (a server that is fast by skipping checks is not
    comparable, issue 17), how much hostile input it survives."""
    for kind in suite_kinds().values():
        for server, column, cell in kind.summary(cells) if kind.summary else []:
            found.put(server, column, cell)


def summary_section(runs: list[dict], cells_of: dict[int, list[dict]]) -> Section | None:
    found = Figures()
    for run in runs:
        cells = cells_of[run["id"]]
        _rankings(run, cells, found)
        _sweeps(run, cells, found)
        _capacity(cells, found)
        _suites(cells, found)
    if not found.by_server:
        return None
    table = found.table()
    first = next((c for c in found.columns.values() if c.unit == "values/s"), None)
    order = f"in order of {first.title} under the reference load generator" if first else "by name"
    if first:
        table = table.sorted_by(first.title, descending=True)
    else:
        table = table.sorted_by("server")
    intro = f"Figures measured in the runs below (provenance at the end); servers {order}."
    warnings = [w for w in (provenance.handicap_warning(runs), provenance.uncommitted_warning(runs)) if w]
    return Section(
        "Summary", paragraphs=[intro], tables=[table], warning=". ".join(warnings) + "." if warnings else None
    )
