"""The network suite's report (network/run.py): the calibration of each network profile, a
Table II–style table per network (Nakutis et al.), RTD CDFs, what dominates the RTD, the
RTD–CPU study on the constrained hosts (Table III layout, with p-values), the interop short
form and subscriptions over each network. Every figure is computed here from the recorded RTD
series; the paper's own figures are quoted beside them, labelled as the paper's."""

from __future__ import annotations

import math
from collections import defaultdict

from uabench.document.model import Cell, Column, Figure, Section, Series, Status, Table, row
from uabench.document.parts import first_line, verdict_cell
from uabench.network import analysis
from uabench.network.cells import NetworkCell
from uabench.results.stats import latency_summary, merge_histograms

KINDS = tuple(NetworkCell)
# Table II of the paper (ms; kbps): environment -> scenario -> (E, s, min, max, E(mu1)). Quoted,
# not measured: the figures uabench's are set beside.
PAPER_TABLE_II: dict[str, dict[str, tuple[float, ...]]] = {
    "Ethernet": {"A": (3.0, 0.7, 2.4, 12.0, 42), "B": (4.4, 1.1, 3.4, 17.1, 292), "C": (6.7, 1.6, 5.9, 24.7, 572),
                 "D": (8.8, 3.2, 4.0, 45.0, 435)},
    "WiFi-AP": {"A": (5.6, 6.9, 3.4, 77.7, 23), "B": (7.3, 14.6, 3.2, 114.4, 175), "C": (7.4, 9.0, 4.9, 139.9, 520),
                "D": (22.0, 62.4, 6.2, 1663.7, 175)},
    "WiFi-VPN": {"A": (9.5, 12.4, 4.9, 174.2, 13), "B": (14.2, 18.5, 6.7, 263.8, 90),
                 "C": (17.4, 29.6, 7.1, 235.6, 221), "D": (20.9, 22.4, 10.1, 332.4, 184)},
    "3G-VPN": {"A": (261.7, 134.7, 144.4, 1141.3, 0.5), "B": (267.9, 139.2, 150.2, 1705.5, 5),
               "C": (250.4, 125.2, 156.2, 1552.7, 15), "D": (284.9, 131.8, 162.2, 3482.8, 13)},
}  # fmt: skip
# Table III of the paper (WiFi-VPN, scenario C, 600 MHz): N -> K -> (PEA, KUL)
PAPER_TABLE_III = {
    5: {40: (0.79, 0.82), 50: (0.70, 0.75), 60: (0.65, 0.72)},
    10: {40: (0.89, 0.90), 50: (0.81, 0.83), 60: (0.75, 0.79)},
    20: {40: (1.00, 1.00), 50: (1.00, 1.00), 60: (1.00, 1.00)},
}


def _series(c: dict) -> list[int]:
    return analysis.rtds(c.get("result"))


def _network(c: dict) -> str:
    return c["variant"].split("/")[0]


def _scenario(c: dict) -> str:
    return ((c.get("result") or {}).get("scenario") or {}).get("name") or c["variant"].split("/")[-1]


def _nodes(c: dict) -> int | None:
    return ((c.get("result") or {}).get("scenario") or {}).get("nodes")


def _paper_env(c: dict) -> str | None:
    return (((c.get("result") or {}).get("path") or {}).get("profile") or {}).get("paper")


def _calibration(cells: list[dict]) -> tuple[Section, dict[str, float]]:
    rows, means = [], {}
    for c in sorted(cells, key=lambda c: c["variant"]):
        stats = analysis.rtd_stats(c["result"]["rtd_ns"], None)
        if stats is None:
            continue
        profile = c["result"]["network"]["profile"]
        paper = PAPER_TABLE_II.get(profile.get("paper") or "", {}).get("A")
        means[c["variant"]] = stats.mean_ms
        rows.append(
            row(
                c["variant"],
                profile["description"],
                stats.count,
                stats.min_ms,
                stats.mean_ms,
                stats.sd_ms,
                stats.max_ms,
                profile.get("paper") or "—",
                paper[2] if paper else None,
                paper[0] if paper else None,
            )
        )
    columns = [
        Column("network", kind="text"),
        Column("profile", kind="text"),
        Column("exchanges"),
        Column("min", "ms", 3),
        Column("mean", "ms", 3),
        Column("SD", "ms", 3),
        Column("max", "ms", 3),
        Column("paper's environment", kind="text"),
        Column("paper A min", "ms", 1),
        Column("paper A mean", "ms", 1),
    ]
    return (
        Section(
            "Networks: calibration",
            paragraphs=[
                "What each path adds by itself: 64-byte TCP exchanges, one at a time, through the same veth pair, "
                "tbf, iptables loss and toxiproxy as the OPC UA traffic (network/echo.py). The paper's scenario A "
                "(one node, the smallest OPC UA exchange it measured) is quoted beside it: its minimum and mean "
                "include the 800 MHz gateway's OPC UA server, which the ping-sized exchange does not.",
            ],
            tables=[Table(columns, rows)],
        ),
        means,
    )


def _table_ii(network: str, cells: list[dict], ping_ms: float | None) -> Section:
    rows, notes = [], []
    figures_series: dict[str, list] = {}
    by_server: dict[str, dict[str, float]] = defaultdict(dict)
    for c in sorted(cells, key=lambda c: (c["server"], _scenario(c))):
        if c["status"] != "pass":
            notes.append(f"{c['server']} {_scenario(c)}: {c['status']} — {first_line(c['reason'])}")
            continue
        stats = analysis.rtd_stats(_series(c), _nodes(c))
        if stats is None:
            continue
        by_server[c["server"]][_scenario(c)] = stats.mean_ms
        paper = PAPER_TABLE_II.get(_paper_env(c) or "", {}).get(_scenario(c))
        marks = []
        if c["result"].get("concurrent"):
            marks.append("servers at once")
        retransmits = (c["result"].get("path") or {}).get("tcp_retransmits")
        rows.append(
            row(
                c["server"],
                _scenario(c),
                stats.count,
                stats.mean_ms,
                stats.sd_ms,
                stats.min_ms,
                stats.max_ms,
                stats.p99_ms,
                stats.throughput_kbps,
                stats.outliers[5],
                stats.outliers[20],
                ping_ms / stats.mean_ms if ping_ms and stats.mean_ms else None,
                retransmits,
                ", ".join(marks) or None,
                f"{paper[0]:g} / {paper[1]:g} / {paper[2]:g} / {paper[3]:g} / {paper[4]:g}" if paper else None,
            )
        )
        if _scenario(c) == "C":
            ms = sorted(v / 1e6 for v in _series(c))
            step = max(1, len(ms) // 400)
            figures_series[c["server"]] = [(v, (i + 1) / len(ms)) for i, v in enumerate(ms)][::step] + [(ms[-1], 1.0)]
    columns = [
        Column("server", kind="text"),
        Column("scenario", kind="text"),
        Column("RTDs"),
        Column("E(tR)", "ms", 3),
        Column("s(tR)", "ms", 3),
        Column("tR min", "ms", 3),
        Column("tR max", "ms", 3),
        Column("p99", "ms", 3),
        Column("E(μ1)", "kbit/s, formula (1)", 1),
        Column("≥ 5 × min", "requests"),
        Column("≥ 20 × min", "requests"),
        Column("path share", "calibrated ping RTD / E(tR)", kind="percent"),
        Column(
            "TCP retransmits", "segments the client's namespace retransmitted during the cell (cells at once share it)"
        ),
        Column("marks", kind="text"),
        Column("paper E / s / min / max / E(μ1)", kind="text"),
    ]
    paragraphs = [
        "Closed loop, one request in flight (the paper's \"max speed\"); D waits the profile's think time between a "
        "response and the next request. Each RTD is the reference client's own measurement of one Read (send to "
        "response), every one recorded. E(μ1) is the paper's formula (1): 128 bits per Double node × nodes / E(tR). "
        "Path share: the calibrated ping-sized round trip over this network as a share of E(tR) — near 100 % the "
        "network dominates, near 0 % the SDK does. The paper's Table II row of the environment the profile stands "
        "for is quoted in the last column (ms, ms, ms, ms, kbit/s).",
    ]
    paragraphs += _dominance(network, by_server, ping_ms)
    figure = Figure(
        f"RTD over {network}, scenario C (CDF)",
        "step",
        "RTD (ms)",
        "fraction of requests",
        [Series(server, server, points) for server, points in sorted(figures_series.items())],
        logx=True,
    )
    return Section(
        f"Networks: RTD over {network} (Table II)",
        paragraphs=paragraphs,
        tables=[Table(columns, rows)],
        figures=[figure] if figures_series else [],
        notes=notes,
    )


def _dominance(network: str, by_server: dict[str, dict[str, float]], ping_ms: float | None) -> list[str]:
    """What dominates the RTD over this network, and how it depends on the node count, from
    the data: the path's share of E(tR) in scenario A, and E(tR) of C (30 nodes) over A (1)."""
    shares = [ping_ms / m["A"] for m in by_server.values() if ping_ms and m.get("A")]
    growth = [m["C"] / m["A"] for m in by_server.values() if m.get("A") and m.get("C")]
    if not shares:
        return []
    lowest, highest = min(shares), max(shares)
    if lowest >= 0.5:
        verdict = "the network dominates the RTD"
    elif highest <= 0.5:
        verdict = "the SDK dominates the RTD"
    else:
        verdict = "the network dominates for some servers and the SDK for others"
    text = (
        f"Over {network} {verdict}: the path alone takes {lowest:.0%}–{highest:.0%} of scenario A's mean RTD "
        f"across servers."
    )
    if growth:
        text += f" From 1 to 30 nodes per request E(tR) changes by a factor {min(growth):.2f}–{max(growth):.2f}" + (
            " (little dependent on the node count, as the paper found over 3G)." if max(growth) < 1.25 else "."
        )
    return [text]


def _constrained(cells: list[dict], unconstrained: list[dict]) -> Section:
    rows: list = []
    notes: list[str] = []
    figures: list[Figure] = []
    agree: list[bool] = []  # the load alone: positive and significant
    against: list[bool] = []  # negative and significant
    by_paper: list[bool] = []  # equation (3)
    share: dict[str, list[tuple[float, float, float]]] = defaultdict(list)  # outliers' share per host
    for c in sorted(cells, key=lambda c: (c["server"], -float(c["parameter"] or 0))):
        if c["status"] != "pass":
            notes.append(f"{c['server']} on {c['parameter']} cores: {c['status']} — {first_line(c['reason'])}")
            continue
        result = c["result"]
        series = result["latencies"]
        cores = result["cpu_limit"]["cores"]
        start = result["timeline"]["start_ns"]
        sends = [start + s for s in series["send_ns"]]
        samples = [tuple(s) for s in result.get("cpu_samples") or []]
        raw = analysis.cpu_at_requests(sends, series["latency_ns"], samples, analysis.least_window_ns(samples))
        # the gateway's load: the server's CPU over its quota (100 % = the whole constrained CPU)
        pairs = [(lat, cpu / cores) for lat, cpu in zip(series["latency_ns"], raw, strict=True) if cpu is not None]
        if len(pairs) < 10:
            notes.append(f"{c['server']} on {cores:g} cores: too few CPU samples over its requests")
            continue
        latencies, load = [p[0] for p in pairs], [p[1] for p in pairs]
        stats = analysis.rtd_stats(latencies, _nodes(c))
        assert stats
        found = analysis.correlations(latencies, load)
        throttled = result["cpu_limit"].get("throttled") or {}
        base = next((u for u in unconstrained if u["server"] == c["server"] and _scenario(u) == _scenario(c)), None)
        base_stats = analysis.rtd_stats(_series(base), _nodes(base)) if base and base["status"] == "pass" else None
        background = result["cpu_limit"].get("background_load_percent") or 0
        share[c["server"]].append((cores, background, stats.outliers[5] / stats.count))
        cells_row: list = [c["server"], f"{cores:g}", f"{background:g} %" if background else "isolated"]
        cells_row += [stats.count, stats.mean_ms, stats.max_ms, stats.outliers[5]]
        cells_row.append(base_stats.outliers[5] if base_stats else None)
        cells_row.append(throttled.get("nr_throttled"))
        for one in found:
            cells_row.append(_corr_cell(one))
            if one.p_value is not None:
                by_paper.append(one.p_value < 0.05 and (one.pearson or 0) > 0)
            if one.p_load is not None:
                agree.append(one.p_load < 0.05 and (one.pearson_load or 0) > 0)
                against.append(one.p_load < 0.05 and (one.pearson_load or 0) < 0)
        rows.append(row(*cells_row))
        # the first host's series, and every host of the reference client's own SDK
        if not figures or c["server"] == c["client"]:
            figures.append(
                Figure(
                    f"{c['server']} on {cores:g} cores: RTD and CPU load per request",
                    "line",
                    "request",
                    "RTD (ms) / CPU load (% of the quota)",
                    [
                        Series("RTD (ms)", c["server"], [(i, v / 1e6) for i, v in enumerate(latencies)]),
                        Series("CPU load (%)", c["server"], [(i, v) for i, v in enumerate(load)], style="dashed"),
                    ],
                )
            )
    columns = [
        Column("server", kind="text"),
        Column("cores", kind="text"),
        Column("beside", "a stress-ng load in the same cgroup, percent of the quota", kind="text"),
        Column("RTDs"),
        Column("E(tR)", "ms", 3),
        Column("tR max", "ms", 2),
        Column("≥ 5 × min", "requests"),
        Column("≥ 5 × min, unconstrained", "requests"),
        Column("CFS periods throttled"),
        *(Column(f"N={n}, K={k} %: PEA / KUL (p)", kind="text") for n in analysis.N_GRID for k in analysis.K_GRID),
    ]
    paper = "; ".join(
        f"N={n}: " + ", ".join(f"K={k} % {pea:.2f}/{kul:.2f}" for k, (pea, kul) in by_k.items())
        for n, by_k in PAPER_TABLE_III.items()
    )
    statements = []
    if by_paper:
        statements.append(
            f"By the paper's own measure (equation (3)) Pearson is positive and significant (p < 0.05) in "
            f"{sum(by_paper)} of the {len(by_paper)} (server, cores, N, K) combinations that could be computed "
            + ("— as in the paper's Table III." if all(by_paper) else "— the paper found it in all of its own.")
        )
    if agree:
        statements.append(
            f"That measure is near 1 by construction wherever the load is ≥ K at nearly every request (equation (3) "
            f"only clears RTD peaks), so the RTD peaks are also tested against the plain binarised load "
            f'("load alone"): positive and significant in {sum(agree)} of {len(agree)}. '
            + (
                "The hypothesis that RTD peaks come with CPU-load peaks holds here beyond the paper's construction."
                if all(agree)
                else "It holds for some servers and thresholds and not for others (per cell above)."
                if any(agree)
                else "Here it does not hold: the paper's figure says more about equation (3) than about the CPU."
            )
            + (
                f" In {sum(against)} the correlation is significantly negative: those RTD peaks came with a lower "
                "server load over the request, so the round trip was held up while the server was idle (a CFS "
                "throttling stall, see the throttled periods, or the client and path), not by a busy server."
                if any(against)
                else ""
            )
        )
    if not statements:
        statements.append(
            "No combination could be computed (no RTD reached 5 × its minimum, or the load never crossed 40 %): "
            "the constrained hosts gave no peaks to correlate, unlike the paper's 600 MHz gateway."
        )
    slower = [
        (server, sorted((h for h in hosts if not h[1]), reverse=True))
        for server, hosts in sorted(share.items())
        if len([h for h in hosts if not h[1]]) > 1
    ]
    if slower:
        more = [server for server, hosts in slower if hosts[-1][2] > hosts[0][2]]
        statements.append(
            "Outliers (≥ 5 × the least RTD) on the smaller CPU than on the larger one: "
            + "; ".join(
                f"{server} " + " → ".join(f"{share_:.1%} at {cores:g} cores" for cores, _, share_ in hosts)
                for server, hosts in slower
            )
            + f". More on the slower CPU for {len(more)} of {len(slower)} servers"
            + (
                " (the paper: more at 600 than at 800 MHz)."
                if more
                else "; the paper found more at 600 than at 800 MHz."
            )
        )
    statements.append(
        "The p-values assume independent requests; consecutive requests share CPU samples (10 ms, at least 20 ms "
        "per request), so they overstate the significance, more so the shorter the RTD."
    )
    statement = " ".join(statements)
    return Section(
        "Networks: RTD and CPU load on a constrained host (Table III)",
        paragraphs=[
            "The server runs in a cgroup whose CFS quota gives it the stated share of one core (a gateway-class "
            "CPU); its CPU time is sampled every 10 ms (scheduler statistics of every thread) and integrated over "
            "each request's round trip (at least 20 ms around it). The load is the server's CPU as a share of its "
            "quota, so 100 % is the whole constrained CPU, as the paper's CPU load was of its whole gateway. "
            "Equation (2) marks RTDs ≥ N × the least RTD, equation (3) marks those with the load ≥ K; PEA is the "
            "Pearson correlation of the two binary series (p: its two-sided p-value, scipy), KUL the "
            "Kulczynski-II index; — where a series has no peak. The paper (WiFi-VPN, scenario C, 600 MHz) found: "
            + paper
            + ".",
            statement,
        ],
        tables=[Table(columns, rows)],
        figures=figures,
        notes=notes,
    )


def _corr_cell(one: analysis.Correlation) -> Cell:
    """PEA / KUL (p) by the paper's equation (3), then r (p) of the RTD peaks against the plain
    binarised load; the counts behind them in parentheses."""
    paper = "—" if one.pearson is None else f"{one.pearson:.2f} (p {one.p_value:.1g})"
    kul = "—" if one.kulczynski is None else f"{one.kulczynski:.2f}"
    plain = "—" if one.pearson_load is None else f"{one.pearson_load:.2f} (p {one.p_load:.1g})"
    significant = one.p_load is not None and one.p_load < 0.05 and (one.pearson_load or 0) > 0
    return Cell(
        f"{paper} / {kul}; load alone {plain}",
        Status.PASS if significant else None,
        f"{one.rtd_peaks} RTD peaks, {one.cpu_peaks} of them with CPU ≥ K; {one.loaded} requests with CPU ≥ K",
    )


def _interop(cells: list[dict]) -> Section:
    rows = []
    for c in sorted(cells, key=lambda c: c["client"]):
        stats = analysis.rtd_stats(_series(c), _nodes(c)) if c["status"] == "pass" else None
        checked = ((c.get("result") or {}).get("verification") or {}).get("checked")
        rows.append(
            row(
                c["client"],
                c["server"],
                _network(c),
                verdict_cell(
                    Status.PASS
                    if c["status"] == "pass"
                    else Status.NOT_SUPPORTED
                    if c["status"] == "not_supported"
                    else Status.FAIL
                ),
                checked,
                stats.mean_ms if stats else None,
                stats.max_ms if stats else None,
            )
        )
    columns = [
        Column("client", kind="text"),
        Column("server", kind="text"),
        Column("network", kind="text"),
        Column("verdict", kind="text"),
        Column("values checked"),
        Column("E(tR)", "ms", 3),
        Column("tR max", "ms", 2),
    ]
    notes = [f"{c['client']}: {first_line(c['reason'])}" for c in cells if c["status"] != "pass"]
    return Section(
        "Networks: interop over a shaped path",
        paragraphs=["Every client reads the reference server over the plan's interop network, every value verified."],
        tables=[Table(columns, rows)],
        notes=notes,
    )


def _subscriptions(cells: list[dict]) -> Section:
    rows, notes = [], []
    for c in sorted(cells, key=lambda c: (c["variant"], c["server"])):
        if c["status"] != "pass":
            notes.append(f"{c['server']} over {c['variant']}: {c['status']} — {first_line(c['reason'])}")
            continue
        result = c["result"]
        delay = latency_summary(merge_histograms([result.get("delay_ns") or []]))
        sub = result["subscription"]
        rows.append(
            row(
                c["variant"],
                c["server"],
                sub["notifications"],
                sub["values_per_s"],
                _ms(delay.get("p50_us")),
                _ms(delay.get("p99_us")),
                _ms(delay.get("max_us")),
                sub["tick_gaps"],
                "servers at once" if result.get("concurrent") else None,
            )
        )
    columns = [
        Column("network", kind="text"),
        Column("server", kind="text"),
        Column("notifications"),
        Column("values/s", digits=1),
        Column("delay p50", "ms", 2),
        Column("delay p99", "ms", 2),
        Column("delay max", "ms", 2),
        Column("tick gaps", "updates missed"),
        Column("marks", kind="text"),
    ]
    return Section(
        "Networks: subscriptions",
        paragraphs=[
            "The reference client subscribes to Signal_0… of each server (sampling and publishing every 100 ms) over "
            "each network: delay is the client's receive time − the value's SourceTimestamp (one clock: both ends "
            "are on this machine), tick gaps the updates a subscription skipped."
        ],
        tables=[Table(columns, rows)],
        notes=notes,
    )


def _pubsub(cells: list[dict]) -> Section:
    rows, notes = [], []
    for c in sorted(cells, key=lambda c: c["variant"]):
        if c["status"] != "pass":
            notes.append(
                f"{c['server']} → {c['client']} over {c['variant']}: {c['status']} — {first_line(c['reason'])}"
            )
            continue
        result, profile = c["result"], c["result"]["path"]["profile"]
        counts = result["pubsub"]
        sent = counts["messages"] + counts["lost"]
        # IP packets per NetworkMessage: its datagrams, each in fragments of the path's MTU (1500
        # bytes less 20 of IP header; the first also carries 8 of UDP)
        fragments = math.ceil((counts["bytes"] / counts["datagrams"] + 8) / 1480) if counts["datagrams"] else 1
        per_message = counts["datagrams"] / counts["messages"] * fragments if counts["messages"] else None
        # each packet is dropped with the profile's loss on the subscriber's side
        expected = 1 - (1 - profile["loss_percent"] / 100) ** per_message if per_message else None
        delay = latency_summary(merge_histograms([result.get("delay_ns") or []]))
        rows.append(
            row(
                c["variant"],
                f"{c['server']} → {c['client']}",
                sent,
                counts["lost"],
                counts["lost"] / sent if sent else None,
                expected,
                _ms(delay.get("p50_us")),
                _ms(delay.get("max_us")),
            )
        )
    columns = [
        Column("network", kind="text"),
        Column("publisher → subscriber", kind="text"),
        Column("NetworkMessages", "received and lost"),
        Column("lost"),
        Column("lost share", digits=1, kind="percent"),
        Column("expected from the profile", "1 − (1 − loss)^IP packets per message", digits=1, kind="percent"),
        Column("delay p50", "ms", 2),
        Column("delay max", "ms", 2),
    ]
    return Section(
        "Networks: PubSub under loss",
        paragraphs=[
            "The reference publisher in the server's namespace, the reference subscriber in the client's, over each "
            "lossy network: 200 Floats every 10 ms (one datagram per NetworkMessage). Loss comes from the sequence "
            "numbers, delay from the DataSetMessage timestamp (one clock). UDP does not pass toxiproxy, so the "
            "profile's delay and jitter do not apply; its loss and bandwidth do."
        ],
        tables=[Table(columns, rows)],
        notes=notes,
    )


def _ms(us: float | None) -> float | None:
    return None if us is None else us / 1e3


def network_section(cells: list[dict]) -> Section | None:
    mine = [c for c in cells if c["kind"] in KINDS]
    if not mine:
        return None
    calibration, means = _calibration([c for c in mine if c["kind"] == NetworkCell.CALIBRATION])
    rtd = [c for c in mine if c["kind"] == NetworkCell.RTD]
    parts = [calibration]
    for network in dict.fromkeys(_network(c) for c in rtd):
        parts.append(_table_ii(network, [c for c in rtd if _network(c) == network], means.get(network)))
    constrained = [c for c in mine if c["kind"] == NetworkCell.CONSTRAINED]
    if constrained:
        parts.append(_constrained(constrained, rtd))
    interop = [c for c in mine if c["kind"] == NetworkCell.INTEROP]
    if interop:
        parts.append(_interop(interop))
    subscriptions = [c for c in mine if c["kind"] == NetworkCell.SUBSCRIPTION]
    if subscriptions:
        parts.append(_subscriptions(subscriptions))
    pubsub = [c for c in mine if c["kind"] == NetworkCell.PUBSUB]
    if pubsub:
        parts.append(_pubsub(pubsub))
    return Section("Networks and constrained hosts (round-trip delay)", subsections=parts)
