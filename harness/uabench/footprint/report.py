"""The footprint section (issue 21): per server its idle RSS, the RSS per session, subscription
and monitored item (slopes of held − idle over each model's steps, footprint/memory.py) and per
1,000 signals (the slope of idle RSS over the signal counts), its time to ready and a new
session's first request; per client its RSS per session; and RSS against monitored items per
server. Built from the "footprint", "footprint-startup" and "footprint-client" cells that
footprint/runner.py records."""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass

from uabench.document.model import Cell, Column, Figure, Interval, Section, Series, Status, Table, row
from uabench.document.parts import failure_notes
from uabench.footprint import memory
from uabench.footprint.cells import KNOWN, NO_MODEL
from uabench.footprint.memory import CLIENT_KIND, IMAGE_KIND, IMPORT_KIND, KIND, STARTUP_KIND, WARMUP_KIND
from uabench.footprint.plan import VARIED
from uabench.results import compare, stats
from uabench.targets import remote

KIB, MIB = 1024.0, 1024.0 * 1024.0


def _passed(cells: list[dict], kind: str) -> list[dict]:
    return [
        c for c in cells if c["kind"] == kind and c["status"] == "pass" and (c.get("result") or {}).get("footprint")
    ]


def _slope(points: list[tuple[float, float]], scale: float) -> tuple[Cell, memory.Fit | None]:
    """The slope of a fit as an interval in `scale` units (marked where its interval reaches 0:
    the steps did not separate the cost from the scatter)."""
    found = memory.fit([x for x, _ in points], [y for _, y in points])
    if found is None:
        return Cell(None), None
    low = None if found.slope_low is None else found.slope_low / scale
    high = None if found.slope_high is None else found.slope_high / scale
    interval = Interval(found.slope / scale, low, high)
    return Cell(interval, Status.MARKED if low is None or low <= 0 else None), found


# A line is said bent where the lack-of-fit test rejects it at 1 % (a report tests some 30 slopes,
# 7 servers × 4 and the clients: at 5 % one or two would be called bent by chance alone) and its
# segments' slopes differ by more than a tenth (RSS counted to the page makes a bend of 2 %
# significant, and no choice between SDKs turns on one).
BENT_AT, BENT_BY = 0.01, 0.10


def _bend(subject: str, points: list[tuple[float, float]], per: str, step: str = "{:,.0f}") -> str | None:
    """A note where a slope's points bend away from its line beyond their repetitions' scatter
    (memory.linearity): the slope between each two adjacent steps instead, in KiB `per` unit;
    `step` formats a step's value."""
    found = memory.linearity([x for x, _ in points], [y for _, y in points])
    if found is None or not found.bent(BENT_AT, BENT_BY):
        return None
    statistic = "∞ (repetitions equal to the byte)" if math.isinf(found.f) else f"{found.f:,.1f}"
    segments = ", ".join(
        f"{slope / KIB:,.1f} from {step.format(low)} to {step.format(high)}" for low, high, slope in found.segments
    )
    return (
        f"{subject}: not a straight line (lack-of-fit F = {statistic}, p = {found.p:.2g}): KiB per {per} between "
        f"the means of adjacent steps {segments}; the table gives the least-squares line through all the points."
    )


def _spread(values: list[float]) -> Interval:
    """A median with its repetitions' range and values."""
    return Interval(statistics.median(values), min(values), max(values), tuple(values))


def _models(cells: list[dict]) -> dict[tuple[str, str], list[dict]]:
    found: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for c in _passed(cells, KIND):
        found[c["server"], c["variant"]].append(c)
    return found


@dataclass(frozen=True)
class _Memory:
    """A server's memory figures in one run: idle RSS (MiB), the slope per unit of each model
    (KiB) and per 1,000 signals (KiB)."""

    idle: Interval | None
    slopes: list[Cell]
    per_signals: Cell
    fits: list[memory.Fit | None]  # the lines of `slopes`, in bytes per unit
    per_signals_fit: memory.Fit | None  # in bytes per 1,000 signals


@dataclass(frozen=True)
class _Run:
    """One run's footprint cells by server: its start-up points, models and signal counts."""

    models: dict[tuple[str, str], list[dict]]
    startups: dict[str, list[dict]]
    names: list[str]  # the models, in the order of footprint/plan.py's VARIED
    signals: list[float]

    @property
    def servers(self) -> list[str]:
        return sorted({server for server, _ in self.models} | set(self.startups))

    @property
    def lowest(self) -> float:
        return min(self.signals, default=0)


def _run(cells: list[dict]) -> _Run:
    models = _models(cells)
    startups = defaultdict(list)
    for c in _passed(cells, STARTUP_KIND):
        startups[c["server"]].append(c)
    # the order of footprint/plan.py's VARIED (what a server holds from the outside in), others after
    order = {vary: index for index, vary in enumerate(VARIED)}
    names = sorted({name for _, name in models}, key=lambda n: (order.get(_vary(n), len(order)), n))
    # every count the run started servers with, a count whose every start failed too: its column
    # then says "–" (the notes say why) rather than vanish from the table
    signals = sorted({float(c["parameter"]) for c in cells if c["kind"] == STARTUP_KIND})
    return _Run(models, startups, names, signals)


def _memory(run: _Run, server: str, notes: list[str], rss: bool = False) -> _Memory:
    """A server's idle RSS, slopes and cost per 1,000 signals; of its heap where that was read
    (footprint/heap.py), unless `rss`: then of RSS, as every target measures it."""
    ups = run.startups.get(server, [])
    idle = [_idle_rss(c) / MIB for c in ups if float(c["parameter"]) == run.lowest]
    delta, idle_bytes = (_rss_delta, _idle_rss) if rss else (_delta, _idle_bytes)
    slopes, fits = [], []
    for name in run.names:
        found = run.models.get((server, name), [])
        points = [(float(c["parameter"]), float(delta(c))) for c in found]
        slope, fit = _slope(points, KIB)
        fits.append(fit)
        if bend := _bend(f"{server}, {name}", points, _unit(name)):
            notes.append(bend)
        paged = rss or all(c["result"]["footprint"].get("basis", "RSS") == "RSS" for c in found)
        if paged and len(points) > 1 and all(y == 0 for _, y in points):
            largest = max(x for x, _ in points)
            notes.append(
                f"{server}, {name}: its memory held was its idle memory to the byte at all {len(points)} points "
                f"(not a page more): what each {_unit(name)} costs is below one page over {largest:,.0f}, "
                "the resolution of RSS (a page at a time)."
            )
        unsettled = sum(not c["result"]["footprint"]["held"]["settled"] for c in found)
        if unsettled:
            notes.append(
                f"{server}, {name}: RSS had not settled within the bound at {unsettled} of {len(found)} points."
            )
        slopes.append(slope)
    by_signals = [(float(c["parameter"]) / 1000, float(idle_bytes(c))) for c in ups]
    per_signals, per_signals_fit = _slope(by_signals, KIB)
    if bend := _bend(f"{server}, signals", by_signals, "1,000 signals", step="{:,.0f}k"):
        notes.append(bend)
    bases = {
        c["result"]["footprint"].get("basis", "RSS")
        for c in [*ups, *(c for n in run.names for c in run.models.get((server, n), []))]
    }
    if bases - {"RSS"} and not rss:
        notes.append(
            f"{server}: its figures per {', '.join(_unit(n) for n in run.names)} and per 1,000 signals are "
            f"of its heap, not its RSS: {'; '.join(sorted(bases - {'RSS'}))}."
        )
    return _Memory(_spread(idle) if idle else None, slopes, per_signals, fits, per_signals_fit)


def _line(fit: memory.Fit | None, scale: float) -> stats.Estimate | None:
    """A slope as compare's estimate: its 95 % interval, no repetitions (judged by the interval)."""
    if fit is None:
        return None
    low = -math.inf if fit.slope_low is None else fit.slope_low
    high = math.inf if fit.slope_high is None else fit.slope_high
    how = f"least-squares slope over {fit.points} points, 95 % t-interval"
    return stats.Estimate(fit.slope / scale, low / scale, high / scale, fit.points, None, (), how)


def trend_figures(cells: list[dict]) -> list[compare.Figure]:
    """Each server's headline footprint figures of a run as compare's figures, lower better (the
    version trend judges them from one version to the next): its idle RSS, the slope per session,
    subscription and monitored item and per 1,000 signals (of its heap where that was read, as the
    section's table), its time to ready at each signal count and a new session's first and later
    Reads. A slope is judged by its interval (it has no repetitions), the rest by their processes'."""
    run = _run(cells)
    found = []

    def add(name: str, server: str, unit: str, estimate: stats.Estimate | None) -> None:
        if estimate is not None:
            found.append(compare.Figure("footprint", name, server, unit, estimate, True, higher_is_better=False))

    def spread(values: list[float]) -> stats.Estimate | None:
        """Processes' figures as the section shows them: the median and their range, judged by
        the ranges (compare's extreme quotients), not by a rank test: a version's two to five
        processes a point can never give Mann-Whitney U a p below 0.05 (two against two: 0.33),
        so the trend could never decide one; ranges that lie apart beyond the margin do. A
        single process has no range."""
        if not values:
            return None
        low, high = (min(values), max(values)) if len(values) > 1 else (-math.inf, math.inf)
        how = f"median of {len(values)} processes, their range"
        return stats.Estimate(statistics.median(values), low, high, len(values), None, (), how)

    for server in run.servers:
        ups = run.startups.get(server, [])
        lowest = [c for c in ups if float(c["parameter"]) == run.lowest]
        figures = _memory(run, server, [])
        add(f"idle RSS at {run.lowest:,.0f} signals", server, "MiB", spread([_idle_rss(c) / MIB for c in lowest]))
        for name, fit in zip(run.names, figures.fits, strict=True):
            add(f"per {_unit(name)}", server, "KiB", _line(fit, KIB))
        add("per 1,000 signals", server, "KiB", _line(figures.per_signals_fit, KIB))
        for count in run.signals:
            ready = [c["result"]["footprint"]["ready_s"] * 1e3 for c in ups if float(c["parameter"]) == count]
            add(f"ready, {count:,.0f} signals", server, "ms", spread(ready))
        add("first request", server, "µs", spread([c["result"]["footprint"]["first_request_us"] for c in lowest]))
        add("later requests", server, "µs", spread([c["result"]["footprint"]["later_requests_us"] for c in lowest]))
    return found


def _stack(run: _Run, server: str, notes: list[str]) -> Interval | None:
    """The deepest thread stack of a server's held points (KiB, proc/stacks.py): median [range]
    over the points; a note where it could not be read, or was read only in part."""
    found = [c["result"]["footprint"] for name in run.names for c in run.models.get((server, name), [])]
    read = [f["stacks"] for f in found if (f.get("stacks") or {}).get("largest_bytes")]
    why = sorted({f["stacks_unmeasured"] for f in found if f.get("stacks_unmeasured")})
    if why:
        notes.append(f"{server}, deepest stack: not measured at {len(found) - len(read)} of {len(found)} points: "
                     f"{'; '.join(why)}.")  # fmt: skip
    if not read:
        return None
    missed = [f"{s['unread']} running" for s in read if s["unread"]] + [
        f"{s['shared']} in a shared mapping" for s in read if s["shared"]
    ]
    if missed:
        notes.append(
            f"{server}, deepest stack: some threads' stacks were not read at {len(missed)} points "
            f"({', '.join(sorted(set(missed)))}); the figure is of the others."
        )
    if any(s["huge_bytes"] for s in read):
        notes.append(
            f"{server}, deepest stack: transparent huge pages back some stacks, which are then 2 MiB resident "
            "whatever their depth."
        )
    return _spread([s["largest_bytes"] / KIB for s in read])


def _server_table(cells: list[dict], notes: list[str]) -> Table | None:
    run = _run(cells)
    built = {c["server"]: c["result"]["images"] for c in cells if c["kind"] == IMAGE_KIND and c["status"] == "pass"}
    if not run.servers:
        return None
    # a run made before the stacks were read (proc/stacks.py) has no such column
    stacked = any(
        "stacks" in figures or "stacks_unmeasured" in figures
        for found in run.models.values()
        for figures in (c["result"]["footprint"] for c in found)
    )
    rows = []
    for server in run.servers:
        ups = run.startups.get(server, [])
        lowest = [c for c in ups if float(c["parameter"]) == run.lowest]
        memory_figures = _memory(run, server, notes)
        ready = []
        for count in run.signals:
            values = [c["result"]["footprint"]["ready_s"] * 1e3 for c in ups if float(c["parameter"]) == count]
            ready.append(_spread(values) if values else None)
        first = [c["result"]["footprint"]["first_request_us"] for c in lowest]
        if first and any(c["result"]["footprint"].get("basis", "RSS") != "RSS" for c in lowest):
            notes.append(
                f"{server}, first and later requests: each start's requests followed the full collection that read "
                "its idle heap, which can drop compiled code (V8 flushes bytecode, a JVM's code stays): they can be "
                "slower than after a start left alone."
            )
        later = [c["result"]["footprint"]["later_requests_us"] for c in lowest]
        rows.append(
            row(
                server,
                memory_figures.idle,
                *memory_figures.slopes,
                memory_figures.per_signals,
                *([_stack(run, server, notes)] if stacked else []),
                *ready,
                _spread(first) if first else None,
                _spread(later) if later else None,
                ", ".join(f"{arch} {size / 1e6:,.0f} MB" for arch, size in sorted(built.get(server, {}).items()))
                or None,
            )
        )
    lowest_signals = f"{run.lowest:,.0f} signals" if run.signals else "the lowest signal count"
    columns = [
        Column("server", kind="text"),
        Column("idle RSS", f"MiB at {lowest_signals}: median [lowest–highest] of its processes", digits=1),
        *(
            Column(f"per {_unit(name)}", "KiB: slope of held − idle RSS [95 % interval]", digits=1)
            for name in run.names
        ),
        Column("per 1,000 signals", "KiB: slope of idle RSS over the signal counts [95 % interval]", digits=0),
        *(
            [
                Column(
                    "deepest stack",
                    "KiB: the deepest thread's stack (resident pages of its mapping) when each held point ended: "
                    "median [lowest–highest] of the points",
                    digits=0,
                )
            ]
            if stacked
            else []
        ),
        *(
            Column(f"ready, {count:,.0f} signals", "ms from process start to its ready line: median [range]")
            for count in run.signals
        ),
        Column("first request", f"µs, a new session's first Read at {lowest_signals}, 1 in flight: median [range]"),
        Column("later requests", "µs, the same session's later Reads, 1 in flight (closed loop): median of medians"),
        Column(
            "image", "size of the SDK's container image per architecture (uabench images), as built here", kind="text"
        ),
    ]
    return Table(columns, rows)


def _warm_up_notes(cells: list[dict], notes: list[str]) -> bool:
    """A note per server on its warm-up start (footprint/runner.py's measure_startup): its ready
    time, left out of the figures, or its failure; whether the run made any."""
    warm_ups = sorted((c for c in cells if c["kind"] == WARMUP_KIND), key=lambda c: c["server"])
    for c in warm_ups:
        signals = f"{float(c['parameter']):,.0f} signals"
        if c["status"] == "pass" and (figures := (c.get("result") or {}).get("footprint")):
            notes.append(
                f"{c['server']}: its warm-up start at {signals}, left out of the figures, was ready after "
                f"{figures['ready_s'] * 1e3:,.0f} ms; first request {figures['first_request_us']:,.0f} µs."
            )
        else:
            notes.append(
                f"{c['server']}: its warm-up start at {signals} failed ({c['reason']}): its first start-up "
                "point may have read its files from disk."
            )
    return bool(warm_ups)


def footprint_beside(here_cells: list[dict], there_cells: list[dict], here_name: str, where: str) -> Section | None:
    """The memory figures of a run on another target (a board, the VM) beside this machine's, server
    by server: what the same server holds there. Times are left out: a VM's are its emulation's."""
    here, there = _run(here_cells), _run(there_cells)
    servers = [server for server in there.servers if server in here.servers]
    clients = _clients_beside(here_cells, there_cells, here_name, where)
    if not servers and clients is None:
        return None
    names = [name for name in there.names if name in here.names]
    notes: list[str] = []
    rows = []
    for server in servers:
        # RSS on both sides, as the columns say: a runtime's heap after a collection is read on this
        # machine only (jcmd and V8's inspector reach its processes), so its footprint section's
        # heap figures have nothing to stand beside there
        mine, theirs = _memory(here, server, [], rss=True), _memory(there, server, notes, rss=True)
        pairs: list[tuple[Cell | Interval | None, Cell | Interval | None]] = [(mine.idle, theirs.idle)]
        pairs += [(mine.slopes[here.names.index(n)], theirs.slopes[there.names.index(n)]) for n in names]
        pairs.append((mine.per_signals, theirs.per_signals))
        rows.append(row(server, *(figure for pair in pairs for figure in pair)))
    columns = [Column("server", kind="text")]
    for label, about, digits in [
        ("idle RSS", f"MiB at {there.lowest:,.0f} signals: median [range]", 1),
        *((f"per {_unit(n)}", "KiB: slope of held − idle RSS [95 % interval]", 1) for n in names),
        ("per 1,000 signals", "KiB: slope of idle RSS over the signal counts [95 % interval]", 0),
    ]:
        columns += [
            Column(f"{label}, {here_name}", about, digits=digits),
            Column(f"{label}, {where}", about, digits=digits),
        ]
    return Section(
        f"Footprint: {where} beside this machine",
        paragraphs=[
            f"The same servers' memory on this machine and on {where}, each measured as the footprint "
            "section says, in runs of their own (their provenance is in the runs' sections). What "
            "differs is the architecture (its instructions, alignment, the runtime's build for it) and the "
            "kernel that counts the pages; and, unless this machine's servers ran in containers too, the "
            "build and libraries (an image against this machine's own build). A VM's times and rates are its "
            "emulation's and are left out here; its memory is its own kernel's count of its arm64 processes. "
            "Both sides are RSS, also for a server whose footprint section gives its heap after a collection: "
            "that heap is read on this machine only (jcmd and V8's inspector reach its own processes). "
            "A client there ran beside its server on that machine, each measured as it is here.",
        ],
        tables=[t for t in (Table(columns, rows) if rows else None, clients) if t is not None],
        notes=notes,
    )


def _idle_bytes(c: dict) -> int:
    """A start-up point's idle bytes: its heap after a full collection where it was read, else RSS."""
    return c["result"]["footprint"].get("idle_bytes", _idle_rss(c))


def _idle_rss(c: dict) -> int:
    return c["result"]["footprint"]["idle"]["rss"]


def _delta(c: dict) -> int:
    """A held point's cost: of its heap where that was read, else of RSS."""
    return c["result"]["footprint"]["delta_bytes"]


def _rss_delta(c: dict) -> int:
    """A held point's held − idle RSS (a cell stored before the heap was read has only delta_bytes,
    which was RSS's then)."""
    figures = c["result"]["footprint"]
    return figures.get("rss_delta_bytes", figures["delta_bytes"])


def _vary(model: str) -> str:
    """The key of VARIED a model of this name steps: the plan names its models after them in
    words ("monitored items" steps monitored_items); a cell keeps only the name."""
    return model.replace(" ", "_")


def _unit(model: str) -> str:
    """A model's unit as the column names it ("monitored items" → "monitored item")."""
    return VARIED.get(_vary(model), model)


@dataclass(frozen=True)
class _Client:
    """One client's memory: the server it held sessions on, its RSS at the fewest sessions, the
    slope over its sessions and the points of that slope."""

    server: str
    alone: Interval
    per_session: Cell
    points: tuple[tuple[float, float], ...]  # (sessions, RSS bytes)


CLIENT_ALONE = "MiB over the measured phase: median [range]"
CLIENT_SLOPE = "KiB: slope of the client's RSS over its sessions [95 % interval]"


def _clients(cells: list[dict]) -> dict[str, _Client]:
    by: dict[str, list[dict]] = defaultdict(list)
    for c in cells:
        if c["kind"] == CLIENT_KIND and c["status"] == "pass" and (c.get("client_resources") or {}).get("rss_mean"):
            by[c["client"]].append(c)
    found = {}
    for client, measured in sorted(by.items()):
        points = [(float(c["parameter"]), float(c["client_resources"]["rss_mean"])) for c in measured]
        slope, _ = _slope(points, KIB)
        one = min(x for x, _ in points)
        alone = _spread([y / MIB for x, y in points if x == one])
        found[client] = _Client(measured[0]["server"], alone, slope, tuple(points))
    return found


def _across_hosts(cell: dict) -> bool:
    """A client cell whose client ran on another machine than its server (the recorder notes the
    clocks' offset only then): before clients ran beside their servers on a board or the VM."""
    return "clock_offset_ns" in ((cell.get("result") or {}).get("placement") or {})


def _client_failures(cells: list[dict]) -> list[str]:
    """A note per client and reason whose points failed, and per client whose passed points held
    no RSS sample in their measured phase (a sampler started beside a client on an emulated target
    may begin after a short phase ended): named by the client, the measured one."""
    failed = failure_notes(cells, (CLIENT_KIND,), "not measured", lambda c: f"{c['client']} client, sessions")
    unsampled = Counter(
        c["client"]
        for c in cells
        if c["kind"] == CLIENT_KIND and c["status"] == "pass" and not (c.get("client_resources") or {}).get("rss_mean")
    )
    return failed + [
        f"{client} client, sessions: no RSS sample within the measured phase at {n} point(s): not measured there "
        "(the sampler started beside it there had no sample inside that phase)"
        for client, n in sorted(unsampled.items())
    ]


def _client_table(cells: list[dict], notes: list[str]) -> Table | None:
    clients = _clients(cells)
    if not clients:
        return None
    across = [c for c in cells if c["kind"] == CLIENT_KIND and _across_hosts(c)]
    if across:
        apart = sorted({c["client"] for c in across})
        placement = across[0]["result"]["placement"]
        machine = "this machine" if placement["client"] == "local" else placement["client"]
        notes.append(
            f"{', '.join(apart)}: measured on {machine} against a server on {placement['server']}: the memory is "
            f"{machine}'s (a run made before clients ran beside their servers there)."
        )
    notes += [bend for client, c in clients.items() if (bend := _bend(f"{client} client", list(c.points), "session"))]
    rows = [row(client, c.server, c.alone, c.per_session) for client, c in clients.items()]
    columns = [
        Column("client", kind="text"),
        Column("against", kind="text"),
        Column("RSS, 1 session", CLIENT_ALONE, digits=1),
        Column("per session", CLIENT_SLOPE, digits=1),
    ]
    return Table(columns, rows)


def _clients_beside(here_cells: list[dict], there_cells: list[dict], here_name: str, where: str) -> Table | None:
    """Each client measured on both sides (there beside its server on that machine), side by side."""
    # there, only a client that ran beside its server on that machine: an older run's ran here
    here, there = _clients(here_cells), _clients([c for c in there_cells if not _across_hosts(c)])
    both = [client for client in there if client in here]
    if not both:
        return None
    rows = [
        row(client, here[client].alone, there[client].alone, here[client].per_session, there[client].per_session)
        for client in both
    ]
    columns = [Column("client", kind="text")]
    columns += [Column(f"RSS, 1 session, {side}", CLIENT_ALONE, digits=1) for side in (here_name, where)]
    columns += [Column(f"per session, {side}", CLIENT_SLOPE, digits=1) for side in (here_name, where)]
    return Table(columns, rows)


def _difference(with_: list[float], without: list[float]) -> Cell:
    """A model's cost beside the points without files: the mean difference [95 % interval],
    marked where the interval reaches zero (the repetitions did not separate the cost)."""
    found = memory.difference(with_, without)
    if found is None:
        return Cell(None)
    unresolved = found.low is None or found.high is None or found.low <= 0 <= found.high
    return Cell(Interval(found.mean, found.low, found.high), Status.MARKED if unresolved else None)


def _import_state(found: list[dict]) -> str:
    """What became of a model's imports on one server, in words."""
    passed = [c for c in found if c["status"] == "pass"]
    if passed and len(passed) == len(found):
        checked = passed[0]["result"]["footprint"].get("observed", {}).get("models", [])
        nodes = sum(len(m.get("nodes", [])) for m in checked)
        spaces = f"{len(checked)} namespace{'s' if len(checked) != 1 else ''}"
        return f"verified: {nodes} nodes in {spaces}, every process"
    if any(c["status"] == "not_supported" for c in found):
        return "not supported"
    if any((c.get("reason") or "").startswith(KNOWN) for c in found):
        return "rejected (declared)"
    return f"failed in {len(found) - len(passed)} of {len(found)} processes"


def _import_table(cells: list[dict], notes: list[str]) -> Table | None:
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for c in cells:
        if c["kind"] == IMPORT_KIND:
            by[c["server"], c["variant"]].append(c)
    if not by:
        return None
    rows = []
    unsupported: set[tuple[str, str]] = set()  # one note per server, not per model
    for (server, model), found in sorted(by.items()):
        if model == NO_MODEL:
            continue
        passed = [c["result"]["footprint"] for c in found if c["status"] == "pass"]
        base = [c["result"]["footprint"] for c in by.get((server, NO_MODEL), []) if c["status"] == "pass"]
        files = passed[0]["files"] if passed else []
        ready = [f["ready_s"] * 1e3 for f in passed]
        rows.append(
            row(
                server,
                model,
                _difference(ready, [f["ready_s"] * 1e3 for f in base]) if passed else None,
                _difference([f["idle_bytes"] / MIB for f in passed], [f["idle_bytes"] / MIB for f in base])
                if passed
                else None,
                _spread(ready) if ready else None,
                len(passed) or None,
                _import_state(found),
            )
        )
        failed = Counter(remote.same_file_names(c.get("reason") or "") for c in found if c["status"] == "fail")
        for reason, times in sorted(failed.items()):
            what = "declared in its sdk.toml" if reason.startswith(KNOWN) else "not measured"
            notes.append(f"{server}, import of {model} ({', '.join(files) or 'its files'}): {what} "
                         f"({times} of {len(found)} processes). {reason.removeprefix(KNOWN)}")  # fmt: skip
        unsupported |= {(server, c.get("reason") or "") for c in found if c["status"] == "not_supported"}
    notes += [f"{server}, model import: not supported. {reason}" for server, reason in sorted(unsupported)]
    columns = [
        Column("server", kind="text"),
        Column("model", kind="text"),
        Column("import time", "ms: mean time to ready with its files − without [95 % Welch interval]", digits=0),
        Column("import memory", "MiB: mean idle memory with its files − without [95 % Welch interval]", digits=1),
        Column("ready with it", "ms from process start to its ready line: median [range]", digits=0),
        Column("processes", "with the files, verified", digits=0),
        Column("import", "what the model probe found of the files' nodes, namespaces and references", kind="text"),
    ]
    return Table(columns, rows)


def _items_plot(cells: list[dict]) -> Figure | None:
    series = []
    for (server, name), found in sorted(_models(cells).items()):
        if _vary(name) != "monitored_items":
            continue
        points = [(float(c["parameter"]), c["result"]["footprint"]["delta_bytes"] / MIB) for c in found]
        fitted = memory.fit([x for x, _ in points], [y for _, y in points])
        series.append(
            Series(server, server, sorted(points), fitted=(fitted.intercept, fitted.slope) if fitted else None)
        )
    if not series:
        return None
    return Figure("RSS against monitored items", "scatter", "monitored items", "MiB held − idle", series)


IMPORT_METHOD = (
    "Model import: the server started with a companion model's NodeSet2 files, which its SDK's own loader "
    "imports before the server is ready (adapters/SPEC.md §4), and started without them, the processes "
    "of both in one shuffled order. A model's import time and memory are the differences of the means "
    "with and without its files (time to ready; idle memory, the heap after a collection where the "
    "runtime allows it), with 95 % Welch intervals, marked where the interval reaches zero. Each import "
    "is verified: a probe (asyncua) finds each namespace by URI, reads the BrowseName and NodeClass of "
    "known nodes and browses Objects for the ones the files place there."
)


def footprint_section(cells: list[dict]) -> Section | None:
    mine = [c for c in cells if c["kind"] in (KIND, STARTUP_KIND, WARMUP_KIND, CLIENT_KIND, IMAGE_KIND, IMPORT_KIND)]
    if not mine:
        return None
    notes: list[str] = []
    imports = _import_table(mine, notes)
    tables = [t for t in (_server_table(mine, notes), imports, _client_table(mine, notes)) if t]
    unsupported = {
        (c["client"] if c["kind"] == CLIENT_KIND else c["server"], c["variant"], c["parameter"], c["reason"])
        for c in mine
        if c["status"] == "not_supported" and c["kind"] != IMPORT_KIND  # the import table's notes say it
    }
    for sdk, variant, parameter, reason in sorted(unsupported):
        notes.append(f"{sdk}, {variant} at {parameter}: not measured. {reason}")
    notes += failure_notes(mine, (KIND, STARTUP_KIND), "not measured")
    notes += _client_failures(mine)
    warmed = _warm_up_notes(mine, notes)
    plot = _items_plot(mine)
    return Section(
        "Footprint and start-up",
        paragraphs=[
            "Every point ran on a server process of its own. Its RSS (resident memory of the process tree, as the "
            "OS counts it, sampled every 0.25 s) was read once it had settled before a client connected (idle), and"
            " again over the last second of a client's hold of the point's sessions, subscriptions or monitored "
            "items (held). A figure per session, subscription or monitored item is the slope of held − idle over "
            "the steps, by least squares, with its 95 % interval from the scatter of the processes; marked where "
            "the interval reaches zero. Where the steps' means bend away from that line beyond the scatter of their"
            " repetitions (a lack-of-fit F test at 1 %, and adjacent steps' slopes more than a tenth apart), a note"
            " gives the slope between adjacent steps instead; the same holds for the cost per 1,000 signals and a "
            "client's per session. Each subscription holds one monitored item. Garbage collection is forced only "
            "where a runtime lets another process do it (the JVM through jcmd, Node through V8's inspector): there "
            "a server's figures per session, subscription, monitored item and 1,000 signals are of its used heap "
            "after a full collection, idle and during the hold (its RSS holds what the heap grew to), and the notes"
            " below name each server whose figures are. Elsewhere RSS shows what the runtime keeps, its garbage "
            "included.",
            "Start-up: the server started with each number of signals; from its process start to its ready line "
            "(the interpreter or the JVM's start included), then its idle RSS, then a new session's Reads of one "
            "value, one in flight: the first of them, and the median of the others."
            + (
                " Before its start-up points each server was started once, and its figures left out (a warm-up "
                "start, as hyperfine's --warmup: the page cache then holds the server's and the client's files, "
                "so no point is the one start read from disk); the notes give its times."
                if warmed
                else ""
            ),
            *([IMPORT_METHOD] if imports else []),
        ],
        tables=tables,
        figures=[plot] if plot else [],
        notes=notes,
    )
