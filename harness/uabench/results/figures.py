"""Figures of sweep points, derived from stored cells: one row per (server, client, value)
over its repetitions. Shared by the report and by `uabench predict`'s model fit."""

from __future__ import annotations

from dataclasses import dataclass, field

from uabench.results import stats

SUSTAINED_CYCLE_RATIO = 1.10


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

    @property
    def cycle_ratio(self) -> float | None:
        interval = max(self.config.get("publishing_interval_ms", 100), self.config.get("sampling_interval_ms", 0))
        return self.cycle_ms / interval if self.cycle_ms is not None and interval else None

    @property
    def sustained(self) -> bool:
        ratio = self.cycle_ratio
        return ratio is not None and ratio <= SUSTAINED_CYCLE_RATIO


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def _per_second(resources: dict | None, key: str) -> float | None:
    if not resources or resources.get(key) is None or not resources.get("seconds"):
        return None
    return resources[key] / resources["seconds"]


def efficiency(cells: list[dict]) -> dict:
    """Server CPU and counter figures per operation and per value, averaged over cells."""
    out: dict[str, list] = {k: [] for k in ("cpu", "user", "system", "cpu_per_million", "ctx", "cycles",
                                             "instructions")}
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
            if ops_per_s:
                switches = (resources["ctx_voluntary"] + resources["ctx_involuntary"]) / resources["seconds"]
                out["ctx"].append(switches / ops_per_s)
        for counter in ("cycles", "instructions"):
            rate = _per_second(perf, counter)
            if rate is not None and ops_per_s:
                out[counter].append(rate / ops_per_s)
    return {k: _mean(v) for k, v in out.items()}


def points(cells: list[dict], kind: str = "sweep") -> list[Point]:
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

        found.append(Point(
            sweep=sweep, server=server, client=client, parameter=parameter, repetitions=len(group),
            config=group[0]["client_config"] or {},
            values_per_s=stats.summarize([r["throughput"]["values_per_s"] for r in results]),
            ops_per_s=stats.summarize([r["throughput"]["ops_per_s"] for r in results]),
            latency=stats.latency_summary(latency), latency_cv=stats.histogram_cv(latency),
            cycle_ms=ms(cycle.mean()), cycle_p99_ms=ms(cycle.percentile(99)),
            delay_p50_ms=ms(delay.percentile(50)), delay_p99_ms=ms(delay.percentile(99)),
            tick_gaps=sum(s.get("tick_gaps", 0) for s in subscription) if subscription else None,
            updates_min=min((s["updates_per_subscription"]["min"] for s in subscription), default=None),
            updates_max=max((s["updates_per_subscription"]["max"] for s in subscription), default=None),
            server_cpu_percent=figures["cpu"], server_user_percent=figures["user"],
            server_system_percent=figures["system"], server_cpu_s_per_million=figures["cpu_per_million"],
            server_ctx_per_op=figures["ctx"], server_cycles_per_op=figures["cycles"],
            server_instructions_per_op=figures["instructions"],
            client_cpu_percent=_mean([(c.get("client_resources") or {}).get("cpu_percent") for c in group]),
            client_bound=any(c["client_bound"] for c in group), emulated=any(c.get("emulated") for c in group),
            histogram=latency,
            setup_ms=ms(stats.merge_histograms([r.get("session_setup_ns", []) for r in results]).percentile(50)),
        ))
    return sorted(found, key=lambda p: (p.sweep, p.server, p.client, _order(p.parameter)))


def _order(parameter: str | None):
    try:
        return (0, float(parameter), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(parameter))


def highest_sustained(found: list[Point]) -> dict[str, Point]:
    """Per server: the sweep point with the most signals/s whose cycle time held."""
    best: dict[str, Point] = {}
    for point in found:
        if point.sustained and (point.server not in best
                                or point.values_per_s["mean"] > best[point.server].values_per_s["mean"]):
            best[point.server] = point
    return best
