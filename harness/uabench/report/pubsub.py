"""The PubSub section: the signal-rate sweep beside the client/server subscription sweep of the
same SDKs, the subscriber-count sweep and the publisher x subscriber matrix."""

from __future__ import annotations

from dataclasses import dataclass, field

from uabench.document.model import (
    Cell,
    Column,
    CpuShare,
    Figure,
    Interval,
    Section,
    Series,
    Span,
    Status,
    Table,
    row,
)
from uabench.document.parts import first_line, verdict_cell
from uabench.proc.netns import MTU
from uabench.report import uncertainty
from uabench.report.text import number
from uabench.results import figures, sustain
from uabench.results.figures import Point, PubSubRow, SweepLimit
from uabench.results.kinds import PUBSUB_MEASURED, CellKind
from uabench.results.sustain import SUSTAINED_CYCLE_RATIO

KINDS = PUBSUB_MEASURED


@dataclass
class ClientServer:
    """The client/server subscription signal-rate sweeps the PubSub sweep is compared with: their
    points and the limits their verdict cells recorded, by server."""

    points: list[Point] = field(default_factory=list)
    limits: dict[str, SweepLimit] = field(default_factory=dict)


def client_server_signal_points(runs: list[dict], cells_of: dict[int, list[dict]]) -> ClientServer:
    """The client/server subscription signal-rate sweep points of these runs (the axes the
    PubSub sweep is compared on) and their limits."""
    found = ClientServer()
    for run in runs:
        sweeps = (run["provenance"].get("plan") or {}).get("sweeps") or {}
        wanted = [
            name
            for name, about in sweeps.items()
            if about.get("kind") == "signals" and about.get("workload") == "subscribe"
        ]
        if wanted:
            found.points += [p for p in figures.points(cells_of[run["id"]]) if p.sweep in wanted]
            limits = figures.sweep_limits(cells_of[run["id"]]).items()
            found.limits.update({server: limit for (sweep, server), limit in limits if sweep in wanted})
    return found


def _cpu(r: PubSubRow) -> CpuShare:
    return CpuShare(r.publisher_cpu, r.publisher_user, r.publisher_system)


def _marks(r: PubSubRow) -> Cell:
    found = ["subscriber-bound"] if r.subscriber_bound else []
    if r.lost:
        found.append(f"{r.lost} lost")
    if r.timestamps != "kernel":
        found.append(f"{r.timestamps} receive times")
    return Cell(", ".join(found), Status.MARKED if found else None)


SWEEP_COLUMNS = [
    Column("publisher", kind="text"),
    Column("subscriber", kind="text"),
    Column("signals"),
    Column("signals/s", "signals/s"),
    Column("messages/s", "messages/s", 1),
    Column("datagram B (max)", "B"),
    Column("cycle mean ms", "ms", 1),
    Column("cycle p99 ms", "ms", 1),
    Column("cycle max ms", "ms", 1),
    Column("delay p50 ms", "ms", 2),
    Column("delay p99 ms", "ms", 2),
    Column("lost"),
    Column("publisher CPU % (user/sys)", "%", 1),
    Column("publisher CPU-s / M signals", "CPU-s", 3),
    Column("publisher RSS MB", "MB", 1),
    Column("publisher ctx switches/s", "switches/s"),
    Column("subscriber CPU %", "%"),
    Column("sustained", kind="text"),
    Column("marks", kind="text"),
]


def _signal_rate(rows: list[PubSubRow], cells: list[dict]) -> Section:
    interval = rows[0].interval_ms
    intro = (
        f"N Float signals in one WriterGroup at {interval:g} ms, UADP over UDP multicast on loopback, "
        "publisher and subscriber pinned to different cores; N rises until a point is not sustained "
        f"({sustain.RULE}; cycle time: between successive NetworkMessages of a DataSetWriter at the "
        "subscriber; missed: lost NetworkMessages). The first missed and the last held point are measured once "
        "more, then the limit is bisected between them. Delay = subscriber receive time − the "
        "DataSetMessage timestamp (one clock). Publisher CPU, memory and context switches are sampled "
        "like a server's. DataSets above fields_per_message are split over several DataSetWriters, one "
        "NetworkMessage (one UDP datagram, no UADP chunking) each."
    )
    table = [
        row(
            r.publisher,
            r.subscriber,
            r.parameter,
            r.signals_per_s,
            r.messages_per_s,
            r.max_datagram_bytes,
            r.cycle_mean_ms,
            r.cycle_p99_ms,
            r.cycle_max_ms,
            r.delay_p50_ms,
            r.delay_p99_ms,
            r.lost,
            _cpu(r),
            r.cpu_s_per_million,
            r.publisher_rss_mb,
            r.publisher_ctx_per_s,
            r.subscriber_cpu,
            Cell(
                "yes" if r.sustained else "no",
                None if r.sustained else Status.MARKED,
                f"{r.held} of {r.repetitions} held, decided on their median" if r.repetitions > 1 else None,
            ),
            _marks(r),
        )
        for r in rows
    ]
    limits = figures.sweep_limits(cells, CellKind.PUBSUB_SWEEP_VERDICT)
    paragraphs = [intro]
    if limits:
        paragraphs.append(
            "Limit of each publisher: "
            + "; ".join(f"{publisher} {limit.text}" for (_, publisher), limit in sorted(limits.items()))
        )
    return Section("PubSub: signal-rate sweep", paragraphs=paragraphs, tables=[Table(SWEEP_COLUMNS, table)])


def _limit_cell(limit: SweepLimit | None) -> Cell:
    """A sweep's limit as its verdict recorded it; none recorded (an older store): not claimed."""
    if limit is None:
        return Cell("no limit recorded")
    return Cell(limit.text, Status.MARKED if limit.limit.found in ("grid limit", "below grid") else None)


def _grid_limit(limit: SweepLimit | None) -> bool:
    return bool(limit and limit.limit.found == "grid limit")


def _lower_bound(cell: Cell, bound: bool) -> Cell:
    """A figure whose sweep's top point held is only a lower bound: shown as "≥ figure"."""
    if not bound:
        return cell
    center = cell.value.center if isinstance(cell.value, Interval) else cell.value
    shown = number(center) if isinstance(center, int | float) else str(center)
    return Cell(f"≥ {shown}", Status.MARKED, "grid limit")


def _held_at(limit: SweepLimit | None, best: dict, key: str, rows: list) -> object:
    """The point the limit's held value names (else the highest sustained one, older stores)."""
    if limit is None or limit.limit.held is None:
        return best.get(key) if limit is None else None
    return next((r for r in rows if str(r.parameter) == str(limit.limit.held)), None)


def _comparison(rows: list[PubSubRow], cells: list[dict], client_server: ClientServer) -> Section:
    limits = {
        publisher: limit for (_, publisher), limit in figures.sweep_limits(cells, CellKind.PUBSUB_SWEEP_VERDICT).items()
    }
    best, cs_best = figures.pubsub_highest_sustained(rows), figures.highest_sustained(client_server.points)
    table, ratios = [], []
    for sdk in sorted(set(best) | {r.publisher for r in rows}):
        ps = _held_at(limits.get(sdk), best, sdk, [r for r in rows if r.publisher == sdk])
        cs = _held_at(client_server.limits.get(sdk), cs_best, sdk, [p for p in client_server.points if p.server == sdk])
        assert ps is None or isinstance(ps, PubSubRow)
        assert cs is None or isinstance(cs, Point)
        cs_signals = cs.values_per_s["mean"] if cs else None
        cs_cpu_per_m = (
            cs.server_cpu_percent / 100 / cs_signals * 1e6
            if cs and cs.server_cpu_percent is not None and cs_signals
            else None
        )
        # different runs, so never paired per block: the ratio of the two figures; none where a
        # side is only a lower bound (its sweep's top point held)
        bounded = [_grid_limit(limits.get(sdk)), _grid_limit(client_server.limits.get(sdk))]
        ratio = figures.ratio_of_estimates(ps.throughput, cs.throughput) if ps and cs else None
        ratios.append((ratio, False))
        table.append(
            row(
                sdk,
                _lower_bound(uncertainty.figure_cell(ps.throughput), bounded[0]) if ps else Cell("none sustained"),
                _limit_cell(limits.get(sdk)),
                ps.publisher_cpu if ps else None,
                ps.cpu_s_per_million if ps else None,
                _lower_bound(Cell(cs_signals), bounded[1]) if cs else "not measured",
                Cell(_limit_cell(client_server.limits.get(sdk)).value, detail=cs.client if cs else None),
                cs.server_cpu_percent if cs else None,
                cs_cpu_per_m,
                Cell("– (a grid limit: a lower bound)", Status.MARKED)
                if any(bounded)
                else uncertainty.ratio_cell(ratio, paired=False),
            )
        )
    columns = [
        Column("SDK", kind="text"),
        Column("PubSub signals/s", "signals/s"),
        Column("PubSub limit (N signals)", kind="text"),
        Column("publisher CPU %", "%", 1),
        Column("publisher CPU-s / M signals", "CPU-s", 3),
        Column("client/server signals/s", "signals/s"),
        Column("client/server limit (N signals; client)", kind="text"),
        Column("server CPU %", "%", 1),
        Column("server CPU-s / M signals", "CPU-s", 3),
        Column("PubSub / client-server [95% CI]", "ratio", 2),
    ]
    intro = (
        "Sustained signals/s at each sweep's limit, by the same rule (results/sustain.py): PubSub (publisher; all "
        "repetitions of the highest point that held by their median) and the client/server "
        "subscription sweep of the subscription suite (server, its reference client), each with the bracket its "
        "limit lies in, ≥ where the sweep's top point held (grid limit). Client/server figures come from the "
        "newest subscription run in the store."
    )

    def series(items, x, y, label, style) -> list[Series]:
        out: dict[str, tuple[str, list]] = {}
        for item in items:
            xv, yv = x(item), y(item)
            if xv is not None and yv is not None:
                sdk, text = label(item)
                out.setdefault(text, (sdk, []))[1].append((xv, yv))
        return [Series(text, sdk, found, style=style) for text, (sdk, found) in out.items()]

    def signals(p: Point) -> float | None:
        return p.values_per_s["mean"]

    cpu = [
        *series(
            rows,
            lambda r: r.signals_per_s,
            lambda r: r.publisher_cpu,
            lambda r: (r.publisher, f"PubSub {r.publisher} publisher"),
            "pubsub",
        ),
        *series(
            client_server.points,
            signals,
            lambda p: p.server_cpu_percent,
            lambda p: (p.server, f"client/server {p.server} server ({p.client} client)"),
            "client-server",
        ),
    ]
    cycle = [
        *series(
            rows,
            lambda r: r.signals_per_s,
            lambda r: r.cycle_mean_ms,
            lambda r: (r.publisher, f"PubSub {r.publisher} ({r.subscriber} subscriber)"),
            "pubsub",
        ),
        *series(
            client_server.points,
            signals,
            lambda p: p.cycle_ms,
            lambda p: (p.server, f"client/server {p.server} ({p.client} client)"),
            "client-server",
        ),
    ]
    plots = [
        Figure(
            "CPU vs signals/s: PubSub publisher and client/server server",
            "line",
            "signals/s",
            "CPU % (of one core)",
            cpu,
            logx=True,
        ),
        Figure(
            "Cycle time vs signals/s: PubSub and client/server",
            "line",
            "signals/s",
            "mean cycle time (ms)",
            cycle,
            logx=True,
            hline=rows[0].interval_ms * SUSTAINED_CYCLE_RATIO,
        ),
    ]
    return Section(
        "PubSub vs client/server subscriptions (same SDK, same interval)",
        paragraphs=[intro],
        tables=[Table(columns, table, uncertainty.ratio_method_notes(ratios))],
        figures=plots,
    )


COUNT_COLUMNS = [
    Column("publisher", kind="text"),
    Column("subscriber", kind="text"),
    Column("subscribers"),
    Column("signals"),
    Column("datagram B (max)", "B"),
    Column("signals/s (all)", "signals/s"),
    Column("signals/s per subscriber", "signals/s"),
    Column("cycle mean ms", "ms", 1),
    Column("delay p99 ms", "ms", 2),
    Column("lost"),
    Column("publisher CPU % (user/sys)", "%", 1),
    Column("publisher ctx switches/s", "switches/s"),
    Column("IP fragments → datagrams reassembled (whole cell)", "packets"),
    Column("marks", kind="text"),
]


def _subscriber_count(rows: list[PubSubRow]) -> Section:
    intro = (
        'k subscribers, each in its own network namespace (its own "host") on a Linux bridge with '
        f"MTU {MTU}; the publisher sends once per cycle whatever k is. The subscribers' kernels "
        "reassemble IP fragments: datagrams are counted after reassembly."
    )
    table = [
        row(
            r.publisher,
            r.subscriber,
            r.parameter,
            r.signals,
            r.max_datagram_bytes,
            r.signals_per_s,
            r.signals_per_s / r.parameter if r.parameter else None,
            r.cycle_mean_ms,
            r.delay_p99_ms,
            r.lost,
            _cpu(r),
            r.publisher_ctx_per_s,
            Span(r.fragments, r.reassembled, " → ") if r.fragments is not None else None,
            _marks(r),
        )
        for r in rows
    ]
    groups: dict[str, list] = {}
    for r in rows:
        if r.publisher_cpu is not None:
            groups.setdefault(r.publisher, []).append((r.parameter, r.publisher_cpu))
    plot = Figure(
        "Publisher CPU vs number of subscribers",
        "line",
        "subscribers",
        "publisher CPU %",
        [Series(f"{sdk} publisher", sdk, found) for sdk, found in groups.items()],
    )
    return Section(
        "PubSub: subscriber-count sweep (network namespaces)",
        paragraphs=[intro],
        tables=[Table(COUNT_COLUMNS, table)],
        figures=[plot],
    )


def _interop(cells: list[dict]) -> Section:
    publishers, subscribers = sorted({c["server"] for c in cells}), sorted({c["client"] for c in cells})
    verdicts, reasons = {}, []
    for c in cells:
        if c["status"] == "pass":
            verdicts[(c["server"], c["client"])] = Cell(
                "pass", Status.PASS, f"{c['result']['verification']['checked']:,} values"
            )
        else:
            verdicts[(c["server"], c["client"])] = verdict_cell(
                Status.NOT_SUPPORTED if c["status"] == "not_supported" else Status.FAIL
            )
            reasons.append(f"{c['server']} → {c['client']}: {first_line(c['reason'])}")
    table = [[Cell(p), *(verdicts.get((p, s), Cell(None)) for s in subscribers)] for p in publishers]
    columns = [Column("publisher \\ subscriber", kind="text"), *(Column(s, kind="text") for s in subscribers)]
    return Section(
        "PubSub: interop (publisher → subscriber)",
        paragraphs=[
            "Every NetworkMessage must decode and every value verify; a row is a publisher, a column a subscriber."
        ],
        tables=[Table(columns, table)],
        notes=reasons,
    )


def pubsub_section(cells: list[dict], client_server: ClientServer) -> Section | None:
    sweep_rows = figures.pubsub_rows(cells, CellKind.PUBSUB_SWEEP)
    count_rows = figures.pubsub_rows(cells, CellKind.PUBSUB_SUBSCRIBERS)
    interop = [c for c in cells if c["kind"] == CellKind.PUBSUB_INTEROP]
    if not (sweep_rows or count_rows or interop):
        return None
    parts = []
    if sweep_rows:
        parts += [_signal_rate(sweep_rows, cells), _comparison(sweep_rows, cells, client_server)]
    if count_rows:
        parts.append(_subscriber_count(count_rows))
    if interop:
        parts.append(_interop(interop))
    notes = [
        f"not measured: {c['kind']}: {c['server']} → {c['client']} at {c.get('parameter')}: {c['status']} — "
        f"{first_line(c['reason'])}"
        for c in cells
        if c["kind"] in KINDS and c["status"] != "pass"
    ]
    return Section("PubSub (UADP over UDP multicast)", notes=notes, subsections=parts)
