"""Figures of sweep points, derived from stored cells: one row per (server, client, value)
over its repetitions, and one per PubSub (publisher, subscriber, parameter). Shared by the
report and by `uabench predict`'s model fit."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from uabench import references
from uabench.results import stats, sustain
from uabench.results.kinds import CellKind


@dataclass(frozen=True)
class Repetition:
    """One repetition's figure, where it ran: run, repetition index and block (the interleaving
    unit; a store from before interleaving has none, so the repetition index stands for it)."""

    run_id: int
    repetition: int
    block: int
    value: float


def repetitions(cells: list[dict]) -> list[Repetition]:
    return [
        Repetition(
            c["run_id"],
            c["repetition"],
            c["block"] if c.get("block") is not None else c["repetition"],
            c["result"]["throughput"]["values_per_s"],
        )
        for c in cells
    ]


# A measured window of a client's timeline below this share of its repetition's median window is a
# pause: the server (a garbage collection, an event-loop stall, a JIT deoptimisation) or the host
# stopped serving for a good part of it. Half is far outside the few per cent two windows of a
# steady server differ by, so what is counted is a pause and not window-to-window noise.
PAUSE_SHARE = 0.5


@dataclass(frozen=True)
class Pauses:
    """Windows of the measured phase of a point's repetitions that fell below PAUSE_SHARE of
    their repetition's median window, out of all measured windows, and in how many repetitions."""

    windows: int
    of: int
    repetitions: int
    window_ms: float

    def text(self) -> str:
        return (
            f"within its repetitions, {self.windows} of {self.of} {self.window_ms:g}-ms windows "
            f"(in {self.repetitions} repetitions) fell below {PAUSE_SHARE * 100:g} % of their repetition's median: "
            "pauses of the server or the host that a repetition of this length does not average out"
        )


def pauses(cells: list[dict]) -> Pauses | None:
    """The pauses in the measured windows of `cells` (their warm-up windows left out); None when
    no cell has a timeline or none paused."""
    paused = total = hit = 0
    window_ms = 0.0
    for cell in cells:
        timeline = (cell.get("result") or {}).get("timeline") or {}
        window_ms = timeline.get("window_ms") or 0
        values = timeline.get("values") or []
        if not window_ms or not values:
            continue
        skip = round(((cell.get("client_config") or {}).get("warmup_s") or 0) * 1000 / window_ms)
        measured = np.asarray(values[skip:], dtype=float)
        if len(measured) < 2:
            continue
        low = int(np.sum(measured < PAUSE_SHARE * np.median(measured)))
        paused, total, hit = paused + low, total + len(measured), hit + bool(low)
    return Pauses(paused, total, hit, window_ms) if paused else None


def host_cv(points: list[Point]) -> dict[str, float]:
    """Per server of one comparison: the CV of its repetitions once what every other server had in
    common in the same block is divided out (each block's geometric mean, over the other servers,
    of their value over their own median). When the host slows a whole block down, every server
    in it loses alike and this CV is far below the plain one; a server's own variation stays.
    Only servers with at least two others measured in their blocks; hand-written, as it is the
    block effect of a two-way layout (server x block) that no statistics package names."""
    by_block: dict[tuple[int, int], dict[str, float]] = {}
    for p in points:
        values = [r.value for r in p.per_repetition]
        if not values:
            continue
        median = float(np.median(values))
        for r in p.per_repetition:
            by_block.setdefault((r.run_id, r.block), {})[p.server] = r.value / median if median else math.nan
    found = {}
    for p in points:
        adjusted = []
        for r in p.per_repetition:
            others = [v for server, v in by_block[(r.run_id, r.block)].items() if server != p.server]
            if len(others) < 2 or not all(v > 0 for v in others):
                break
            adjusted.append(r.value / math.exp(sum(map(math.log, others)) / len(others)))
        else:
            if len(adjusted) >= 2 and np.mean(adjusted) > 0:
                found[p.server] = float(np.std(adjusted, ddof=1) / np.mean(adjusted))
    return found


def host_probe(cells: list[dict], variant: str, kind: str) -> tuple[stats.Estimate, str] | None:
    """The host probe's operations per second over the blocks of one interleaved comparison (the
    variant it measured and the kind of its cells), and the probe's name: the machine's own spread
    in the windows the figures were measured in (proc/hostprobe.py). None where it was not probed
    (an older store, a server on another machine) or failed every time."""
    found = [
        c["result"]
        for c in cells
        if c["kind"] == CellKind.HOST_PROBE
        and c["status"] == "pass"
        and c.get("result")
        and c["variant"] == variant
        and c.get("parameter") == str(kind)
    ]
    if not found:
        return None
    return stats.estimate([r["ops_per_s"] for r in found]), found[0].get("tool", "host probe")


@dataclass
class Point:
    sweep: str
    server: str
    client: str
    parameter: str
    repetitions: int
    config: dict
    values_per_s: dict
    ops_per_s: dict
    latency: dict
    latency_cv: float | None
    cycle_ms: float | None
    cycle_p99_ms: float | None
    delay_p50_ms: float | None
    delay_p99_ms: float | None
    tick_gaps: int | None
    updates_min: int | None
    updates_max: int | None
    server_cpu_percent: float | None
    server_user_percent: float | None
    server_system_percent: float | None
    server_cpu_s_per_million: float | None
    server_ctx_per_op: float | None
    server_cycles_per_op: float | None
    server_instructions_per_op: float | None
    client_cpu_percent: float | None
    client_bound: bool
    emulated: bool
    setup_ms: float | None = None  # median session set-up time
    histogram: object = field(default=None, repr=False)
    throughput: stats.Estimate | None = None  # values/s: median and interval over the repetitions
    per_repetition: list[Repetition] = field(default_factory=list)
    pauses: Pauses | None = None
    judged: sustain.Judged | None = None  # subscriptions: the sustain rule over the repetitions

    @property
    def cycle_ratio(self) -> float | None:
        interval = max(self.config.get("publishing_interval_ms", 100), self.config.get("sampling_interval_ms", 0))
        return self.cycle_ms / interval if self.cycle_ms is not None and interval else None

    @property
    def sustained(self) -> bool:
        """The engine's sustain rule (results.sustain): median cycle time and missed updates."""
        return bool(self.judged and self.judged.held)


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _per_second(resources: dict | None, key: str) -> float | None:
    if not resources or resources.get(key) is None or not resources.get("seconds"):
        return None
    return resources[key] / resources["seconds"]


PERF_SWITCHES = "perf context-switches"
PROC_SWITCHES = "/proc status voluntary + nonvoluntary, every thread"


def context_switches(resources: dict | None, perf: dict | None) -> tuple[float | None, str | None]:
    """Context switches per second over a measured window, and where they come from: one source
    for every figure and export. perf's context-switches where perf ran and counted them (the
    kernel's event, threads that ended included), else the sampler's per-thread /proc counters."""
    rate = _per_second(perf, "context_switches")
    if rate is not None:
        return rate, PERF_SWITCHES
    if resources and resources.get("seconds") and resources.get("ctx_voluntary") is not None:
        return (resources["ctx_voluntary"] + resources["ctx_involuntary"]) / resources["seconds"], PROC_SWITCHES
    return None, None


def efficiency(cells: list[dict]) -> dict:
    """Server CPU and counter figures per operation and per value, averaged over cells."""
    out: dict[str, list] = {
        k: [] for k in ("cpu", "user", "system", "cpu_per_million", "ctx", "cycles", "instructions")
    }
    for cell in cells:
        result, resources, perf = cell["result"], cell.get("server_resources"), cell.get("server_perf")
        ops_per_s = result["throughput"]["ops_per_s"]
        values_per_s = result["throughput"]["values_per_s"]
        if resources and resources.get("seconds"):
            out["cpu"].append(resources["cpu_percent"])
            out["user"].append(100 * resources["cpu_user_s"] / resources["seconds"])
            out["system"].append(100 * resources["cpu_system_s"] / resources["seconds"])
            if values_per_s:
                cpu_s_per_s = (resources["cpu_user_s"] + resources["cpu_system_s"]) / resources["seconds"]
                out["cpu_per_million"].append(cpu_s_per_s / values_per_s * 1e6)
        switches, _ = context_switches(resources, perf)
        if switches is not None and ops_per_s:
            out["ctx"].append(switches / ops_per_s)
        for counter in ("cycles", "instructions"):
            rate = _per_second(perf, counter)
            if rate is not None and ops_per_s:
                out[counter].append(rate / ops_per_s)
    return {k: _mean(v) for k, v in out.items()}


def points(cells: list[dict], kind: str = CellKind.SWEEP) -> list[Point]:
    groups: dict[tuple, list[dict]] = {}
    for cell in cells:
        if cell["kind"] == kind and cell["status"] == "pass" and cell.get("result"):
            groups.setdefault((cell["variant"], cell["server"], cell["client"], cell.get("parameter")), []).append(cell)
    found = []
    for (sweep, server, client, parameter), group in groups.items():
        results = [c["result"] for c in group]
        latency = stats.merge_histograms([r.get("latency_ns", []) for r in results])
        cycle = stats.merge_histograms([r.get("cycle_time_ns", []) for r in results])
        delay = stats.merge_histograms([r.get("delay_ns", []) for r in results])
        subscription = [r.get("subscription") for r in results if r.get("subscription")]
        figures = efficiency(group)

        def ms(value):
            return value / 1e6 if value is not None else None

        found.append(
            Point(
                sweep=sweep,
                server=server,
                client=client,
                parameter=parameter,
                repetitions=len(group),
                config=group[0]["client_config"] or {},
                values_per_s=stats.summarize([r["throughput"]["values_per_s"] for r in results]),
                ops_per_s=stats.summarize([r["throughput"]["ops_per_s"] for r in results]),
                latency=stats.latency_summary(latency),
                latency_cv=stats.histogram_cv(latency),
                cycle_ms=ms(cycle.mean()),
                cycle_p99_ms=ms(cycle.percentile(99)),
                delay_p50_ms=ms(delay.percentile(50)),
                delay_p99_ms=ms(delay.percentile(99)),
                tick_gaps=sum(s.get("tick_gaps", 0) for s in subscription) if subscription else None,
                updates_min=min((s["updates_per_subscription"]["min"] for s in subscription), default=None),
                updates_max=max((s["updates_per_subscription"]["max"] for s in subscription), default=None),
                server_cpu_percent=figures["cpu"],
                server_user_percent=figures["user"],
                server_system_percent=figures["system"],
                server_cpu_s_per_million=figures["cpu_per_million"],
                server_ctx_per_op=figures["ctx"],
                server_cycles_per_op=figures["cycles"],
                server_instructions_per_op=figures["instructions"],
                client_cpu_percent=_mean([(c.get("client_resources") or {}).get("cpu_percent") for c in group]),
                client_bound=any(c["client_bound"] for c in group),
                emulated=any(c.get("emulated") for c in group),
                histogram=latency,
                setup_ms=ms(stats.merge_histograms([r.get("session_setup_ns", []) for r in results]).percentile(50)),
                throughput=stats.estimate([r["throughput"]["values_per_s"] for r in results]),
                per_repetition=repetitions(group),
                pauses=pauses(group),
                judged=sustain.judge(results) if subscription else None,
            )
        )
    return sorted(found, key=lambda p: (p.sweep, p.server, p.client, _order(p.parameter)))


def _order(parameter: str | None) -> tuple[int, float, str]:
    try:
        return (0, float(parameter or ""), "")
    except ValueError:
        return (1, 0.0, str(parameter))


def sweep_values(found: list[Point], sweep: str, server: str) -> list[str]:
    """The parameters a sweep tried on a server, in sweep order."""
    return sorted({p.parameter for p in found if p.sweep == sweep and p.server == server}, key=_order)


def highest_sustained(found: list[Point]) -> dict[str, Point]:
    """Per server: the sweep point with the most signals/s whose cycle time held."""
    best: dict[str, Point] = {}
    for point in found:
        if point.sustained and (
            point.server not in best or point.values_per_s["mean"] > best[point.server].values_per_s["mean"]
        ):
            best[point.server] = point
    return best


@dataclass(frozen=True)
class SweepLimit:
    """A sweep's limit on one server as its verdict cell recorded it (engine.search)."""

    sweep: str
    server: str
    client: str
    limit: sustain.Limit
    text: str  # "≥ X (grid limit)" or "limit X, between X held and Y missed (how)"
    held_values_per_s: float | None


def sweep_limits(cells: list[dict], kind: str = CellKind.SWEEP_VERDICT) -> dict[tuple[str, str], SweepLimit]:
    """The limits the sweeps of these cells found, by (sweep, server): from their verdict cells
    (`sweep-verdict`, `pubsub-sweep-verdict`); the newest of a pair wins."""
    found = {}
    for cell in cells:
        if cell["kind"] == kind and cell.get("result"):
            result = cell["result"]
            found[(cell["variant"], cell["server"])] = SweepLimit(
                cell["variant"],
                cell["server"],
                cell["client"],
                sustain.Limit.from_result(result),
                result.get("text") or cell.get("reason") or "",
                result.get("held_values_per_s"),
            )
    return found


# --- PubSub: one row per (publisher, subscriber, parameter) -------------------------------------


def pubsub_held(result: dict) -> bool:
    """One repetition under the sustain rule (results.sustain): cycle time and loss in bounds."""
    return sustain.judge([result]).held


@dataclass
class PubSubRow:
    """One measured point (publisher, subscriber, parameter) over its repetitions."""

    kind: str
    publisher: str
    subscriber: str
    parameter: int
    repetitions: int
    interval_ms: float
    signals: int
    signals_per_s: float
    messages_per_s: float
    datagrams: int
    max_datagram_bytes: int
    cycle_mean_ms: float | None
    cycle_p99_ms: float | None
    cycle_max_ms: float | None
    delay_p50_ms: float | None
    delay_p99_ms: float | None
    lost: int
    publisher_cpu: float | None
    publisher_user: float | None
    publisher_system: float | None
    publisher_rss_mb: float | None
    publisher_ctx_per_s: float | None
    subscriber_cpu: float | None
    subscriber_bound: bool
    fragments: int | None
    reassembled: int | None
    timestamps: str
    held: int = 0  # repetitions that kept the interval without loss
    held_signals_per_s: float | None = None  # their mean signals/s
    held_publisher_cpu: float | None = None  # their mean publisher CPU %
    held_throughput: stats.Estimate | None = None  # their signals/s: median and interval
    judged: sustain.Judged | None = None  # the sustain rule over all repetitions (their median)
    throughput: stats.Estimate | None = None  # signals/s of all repetitions: median and interval

    @property
    def cycle_ratio(self) -> float | None:
        return self.cycle_mean_ms / self.interval_ms if self.cycle_mean_ms is not None else None

    @property
    def sustained(self) -> bool:
        """The sustain rule over the point's repetitions: their median, not the best one."""
        return bool(self.judged and self.judged.held)

    @property
    def cpu_s_per_million(self) -> float | None:
        if self.publisher_cpu is None or not self.signals_per_s:
            return None
        return self.publisher_cpu / 100 / self.signals_per_s * 1e6

    @property
    def held_cpu_s_per_million(self) -> float | None:
        if self.held_publisher_cpu is None or not self.held_signals_per_s:
            return None
        return self.held_publisher_cpu / 100 / self.held_signals_per_s * 1e6


def pubsub_rows(cells: list[dict], kind: str) -> list[PubSubRow]:
    groups: dict[tuple, list[dict]] = {}
    for cell in cells:
        if cell["kind"] == kind and cell["status"] == "pass" and cell.get("result"):
            groups.setdefault((cell["server"], cell["client"], int(cell.get("parameter") or 0)), []).append(cell)
    found = []
    for (publisher, subscriber, parameter), group in groups.items():
        results = [c["result"] for c in group]
        cycle = stats.merge_histograms([r.get("cycle_time_ns", []) for r in results])
        delay = stats.merge_histograms([r.get("delay_ns", []) for r in results])
        publisher_res = [c.get("server_resources") or {} for c in group]
        ips = [s.get("ip") for r in results for s in (r.get("subscribers") or [r]) if s.get("ip")]
        kept = [c for c in group if pubsub_held(c["result"])]

        def ms(value):
            return value / 1e6 if value is not None else None

        def share(key: str, resources=publisher_res):
            return _mean([100 * r[key] / r["seconds"] for r in resources if r.get("seconds")])

        found.append(
            PubSubRow(
                kind=kind,
                publisher=publisher,
                subscriber=subscriber,
                parameter=parameter,
                repetitions=len(group),
                interval_ms=float(results[0]["config"]["publishing_interval_ms"]),
                signals=results[0]["config"]["signals"],
                signals_per_s=_mean([r["throughput"]["values_per_s"] for r in results]) or 0.0,
                messages_per_s=_mean([r["throughput"]["ops_per_s"] for r in results]) or 0.0,
                datagrams=sum(r["pubsub"]["datagrams"] for r in results),
                max_datagram_bytes=max(r["pubsub"]["max_datagram_bytes"] for r in results),
                cycle_mean_ms=ms(cycle.mean()),
                cycle_p99_ms=ms(cycle.percentile(99)),
                cycle_max_ms=ms(cycle.max()),
                delay_p50_ms=ms(delay.percentile(50)),
                delay_p99_ms=ms(delay.percentile(99)),
                lost=sum(r["pubsub"]["lost"] for r in results),
                publisher_cpu=_mean([r.get("cpu_percent") for r in publisher_res]),
                publisher_user=share("cpu_user_s"),
                publisher_system=share("cpu_system_s"),
                publisher_rss_mb=_mean([r["rss_max"] / 2**20 for r in publisher_res if r.get("rss_max")]),
                publisher_ctx_per_s=_mean(
                    [context_switches(c.get("server_resources"), c.get("server_perf"))[0] for c in group]
                ),
                subscriber_cpu=_mean([(c.get("client_resources") or {}).get("cpu_percent") for c in group]),
                subscriber_bound=any(c["client_bound"] for c in group),
                fragments=sum(i.get("ReasmReqds", 0) for i in ips) if ips else None,
                reassembled=sum(i.get("ReasmOKs", 0) for i in ips) if ips else None,
                timestamps=results[0]["pubsub"].get("timestamps", "?"),
                held=len(kept),
                held_signals_per_s=_mean([c["result"]["throughput"]["values_per_s"] for c in kept]),
                held_publisher_cpu=_mean([(c.get("server_resources") or {}).get("cpu_percent") for c in kept]),
                held_throughput=stats.estimate([c["result"]["throughput"]["values_per_s"] for c in kept])
                if kept
                else None,
                judged=sustain.judge(results),
                throughput=stats.estimate([r["throughput"]["values_per_s"] for r in results]),
            )
        )
    return sorted(found, key=lambda r: (r.publisher, r.subscriber, r.parameter))


def pubsub_highest_sustained(found: list[PubSubRow]) -> dict[str, PubSubRow]:
    """Per publisher: the point with the most signals/s that kept its interval, lossless."""
    best: dict[str, PubSubRow] = {}
    for row in found:
        if (
            row.sustained
            and not row.subscriber_bound
            and (
                row.publisher not in best
                or (row.held_signals_per_s or 0.0) > (best[row.publisher].held_signals_per_s or 0.0)
            )
        ):
            best[row.publisher] = row
    return best


# --- ratios of two points' throughput -------------------------------------------------------------

UNPAIRED = (
    "ratio of the two figures (medians; means below 5 repetitions), interval from their 95% intervals "
    "(lowest and highest quotient: conservative)"
)


def ratio_of_estimates(numerator: stats.Estimate | None, denominator: stats.Estimate | None) -> stats.Estimate | None:
    """The ratio of two independent figures. Their intervals' extreme quotients bound the ratio's:
    no closed form holds for medians of a few repetitions, and this errs on the wide side."""
    if numerator is None or denominator is None or not denominator.center:
        return None
    center = numerator.center / denominator.center
    low, high = -math.inf, math.inf  # unbounded, as a single value's interval is
    ends = (numerator.low, numerator.high, denominator.low, denominator.high)
    if all(math.isfinite(x) for x in ends) and denominator.low > 0:
        low, high = numerator.low / denominator.high, numerator.high / denominator.low
    return stats.Estimate(center, low, high, min(numerator.n, denominator.n), None, (), UNPAIRED)


def interleaved(run: dict) -> bool:
    """Whether the run measured what it compares in interleaved blocks (it recorded the seed of
    their order): only then is a repetition of one variant paired with the same block's
    repetition of another. Before that, variants ran back to back and their repetition
    indices say nothing about when they ran."""
    return ((run.get("provenance") or {}).get("schedule") or {}).get("seed") is not None


def throughput_ratio(numerator: Point, denominator: Point, paired: bool = True) -> tuple[stats.Estimate | None, bool]:
    """numerator / denominator values/s, and whether it was paired: per block (same run, same
    block) when `paired` (the run interleaved them) and both points ran in the same blocks, so
    drift between blocks cancels; else the ratio of the two figures."""
    if not paired:
        return ratio_of_estimates(numerator.throughput, denominator.throughput), False
    top = {(r.run_id, r.block): r.value for r in numerator.per_repetition}
    bottom = {(r.run_id, r.block): r.value for r in denominator.per_repetition}
    blocks = sorted(top.keys() & bottom.keys())
    # the blocks both ran in: a ranking lets a server whose pairs are decided leave the blocks
    # (results/ranking.settled), and its pairs are then paired over the blocks it ran in
    if len(blocks) >= 2:
        return stats.paired_ratio([top[b] for b in blocks], [bottom[b] for b in blocks], seed=0), True
    return ratio_of_estimates(numerator.throughput, denominator.throughput), False


def reference_server(run: dict) -> str:
    """The server a run's throughputs are also given relative to: the one its plan summary
    names, else the declared reference (suites/references.toml) for runs that did not record it."""
    named = ((run.get("provenance") or {}).get("plan") or {}).get("reference_server")
    return named or references.declared("server")


def reference_ratios(run: dict, points: list[Point]) -> dict[str, stats.Estimate]:
    """Each server's throughput over the reference server's, paired per block: both were
    measured in the same interleaved blocks (same sweep, same load generator), so whatever the
    host did to a block it did to both, and it cancels in the ratio (the peer suite o6
    opcua-benchmarks gives its CI the same). Only paired ratios: a ratio of two medians would keep
    the drift between blocks. None for the reference itself, a run not interleaved, or points
    not measured in the same blocks."""
    reference = reference_server(run)
    if not interleaved(run):
        return {}
    found = {}
    for p in points:
        base = next((q for q in points if q.server == reference and (q.sweep, q.client) == (p.sweep, p.client)), None)
        if base is None or p.server == reference:
            continue
        ratio, paired = throughput_ratio(p, base)
        if ratio is not None and paired:
            found[p.server] = ratio
    return found


OVERHEAD_KIND = CellKind.SAMPLING_OVERHEAD  # cells of engine.overhead, parameter "on" or "off"
OVERHEAD_GOAL_PERCENT = 2.0  # issue 12: sampling may cost the measured throughput at most this


@dataclass(frozen=True)
class SamplingOverhead:
    """Throughput with sampling on over off, paired per block, and what the samplers used."""

    ratio: stats.Estimate
    blocks: int
    on_values_per_s: float
    off_values_per_s: float
    sampler_cpu_percent: float | None  # per on cell, every sampler (sampler_cpu), share of one core
    client: str
    server: str
    variant: str

    @property
    def cost_percent(self) -> float:
        return 100.0 * (1.0 - self.ratio.center)


def sampler_cpu(cell: dict) -> float | None:
    """The samplers' own CPU in a cell, share of one core: the harness's sampler threads and their
    perf stat processes (the server's and every client's) and the host sampler's thread; None
    for a cell measured without sampling or before it was recorded."""
    shares = [
        part["sampler_cpu_percent"]
        for part in (cell.get("client_resources"), cell.get("server_resources"), (cell.get("result") or {}).get("host"))
        if part and part.get("sampler_cpu_percent") is not None
    ]
    return sum(shares) if shares else None


def sampling_overhead(cells: list[dict]) -> SamplingOverhead | None:
    """The on/off comparison of a run, over the blocks where both arms passed (None without two)."""
    arms: dict[str, dict[int, dict]] = {"on": {}, "off": {}}
    for cell in cells:
        if cell["kind"] == OVERHEAD_KIND and cell["status"] == "pass" and cell.get("parameter") in arms:
            arms[cell["parameter"]][cell["repetition"]] = cell
    blocks = sorted(arms["on"].keys() & arms["off"].keys())
    if len(blocks) < 2:
        return None

    def values(arm: str) -> list[float]:
        return [arms[arm][b]["result"]["throughput"]["values_per_s"] for b in blocks]

    samplers = [sampler_cpu(arms["on"][b]) for b in blocks]
    first = arms["on"][blocks[0]]
    return SamplingOverhead(
        stats.paired_ratio(values("on"), values("off"), seed=0),
        len(blocks),
        float(np.median(values("on"))),
        float(np.median(values("off"))),
        _mean(samplers),
        first["client"],
        first["server"],
        first["variant"],
    )
