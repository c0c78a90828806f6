"""Reports, derived from the results store alone: rankings, interop matrices and provenance
as Markdown, a self-contained HTML page (plots embedded) and a JSON export."""

from __future__ import annotations

import csv
import html
import io
import json
from dataclasses import dataclass
from pathlib import Path

from uabench.proc import netns
from uabench.report import plots
from uabench.results import figures as sweeps
from uabench.results import model, stats
from uabench.results.figures import Point
from uabench.results.store import Store


def _mean(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def interop_matrix(cells: list[dict]) -> tuple[list[str], list[str], dict[tuple[str, str], dict]]:
    """Client x server verdicts over the interop cells: pass, fail (with reasons) or
    not supported."""
    matrix: dict[tuple[str, str], dict] = {}
    clients, servers = set(), set()
    for cell in cells:
        if cell["kind"] != "interop":
            continue
        clients.add(cell["client"])
        servers.add(cell["server"])
        entry = matrix.setdefault((cell["client"], cell["server"]),
                                  {"status": "pass", "passed": 0, "total": 0, "reasons": []})
        entry["total"] += 1
        if cell["status"] == "pass":
            entry["passed"] += 1
        elif cell["status"] == "not_supported":
            if entry["status"] == "pass":
                entry["status"] = "not supported"
            entry["reasons"].append(f"{cell['variant']}: {cell['reason']}")
        else:
            entry["status"] = "fail"
            entry["reasons"].append(f"{cell['variant']}: {_first_line(cell['reason'])}")
    return sorted(clients), sorted(servers), matrix


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0][:300] if text else ""


def _fmt(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def _throughput_cell(summary: dict) -> str:
    text = _fmt(summary["mean"])
    if summary["ci95"] is not None:
        text += f" ± {_fmt(summary['ci95'])}"
    return text


def _marks(point: Point) -> str:
    marks = []
    if point.client_bound:
        marks.append("client-bound")
    if point.emulated:
        marks.append("emulated (qemu)")
    if point.repetitions == 1:
        marks.append("single repetition")
    return ", ".join(marks)


# --- building the report ------------------------------------------------------------------

@dataclass
class Section:
    title: str
    markdown: list[str]
    html: list[str]


def _table(headers: list[str], rows: list[list[str]]) -> tuple[list[str], list[str]]:
    md = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    md += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    return md, [f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"]


def suite_title(suite: str) -> str:
    return suite.capitalize()


def ranking_section(run: dict, cells: list[dict]) -> Section | None:
    suite, summary = run["suite"], run["provenance"].get("plan") or {}
    measured = sweeps.points(cells, "throughput")
    md, page = [], []
    for name, load in summary.get("throughput", {}).items():
        rows = sorted((p for p in measured if p.sweep == name),
                      key=lambda p: (p.client_bound or p.emulated, -(p.values_per_s["mean"] or 0)))
        if not rows:
            continue
        ranking = name == summary.get("ranking")
        headers = ["rank", "server", "values/s (mean ± 95% CI)", "requests/s", "CV", "p50 µs", "p90 µs",
                   "p99 µs", "p99.9 µs", "max µs", "server CPU % (user/sys)", "server CPU-s / M values",
                   "ctx switches / request", "cycles / request", "instructions / request", "load generator CPU %",
                   "marks"]
        table, rank = [], 0
        for point in rows:
            ranked = not (point.client_bound or point.emulated)
            rank += ranked
            lat, cv = point.latency, point.values_per_s["cv"]
            table.append([
                str(rank) if ranked else "–", point.server, _throughput_cell(point.values_per_s),
                _fmt(point.ops_per_s["mean"]), f"{cv * 100:.1f} %" if cv is not None else "–",
                _fmt(lat["p50_us"], 1), _fmt(lat["p90_us"], 1), _fmt(lat["p99_us"], 1), _fmt(lat["p99.9_us"], 1),
                _fmt(lat["max_us"], 1),
                f"{_fmt(point.server_cpu_percent)} ({_fmt(point.server_user_percent)}/"
                f"{_fmt(point.server_system_percent)})",
                _fmt(point.server_cpu_s_per_million, 2), _fmt(point.server_ctx_per_op, 3),
                _fmt(point.server_cycles_per_op), _fmt(point.server_instructions_per_op),
                _fmt(point.client_cpu_percent), _marks(point)])
        title = f"{name} — load: {rows[0].client} client, {load.get('in_flight', 1)} requests in flight"
        note = ("Servers ranked by values/s; client-bound or emulated results are shown but not ranked. "
                "Counters a machine lacks show –." if ranking else "Not used for the ranking; shown for comparison.")
        t_md, t_html = _table(headers, table)
        md += [f"### {title}", "", note, "", *t_md, ""]
        page += [f"<h3>{html.escape(title)}</h3><p>{html.escape(note)}</p>", *t_html]
        curves = {p.server + (" (client-bound)" if p.client_bound else ""): stats.cdf(p.histogram) for p in rows}
        page.append(_img(plots.step_plot(f"{suite_title(suite)} latency CDF — {name}", "latency (µs)",
                                         "fraction of requests", curves, logx=True), f"latency CDF {name}"))
    if not md:
        return None
    return Section(f"{suite_title(suite)}: server ranking", md, page)


def _ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


def sweep_section(run: dict, cells: list[dict], name: str, about: dict) -> Section | None:
    rows = [p for p in sweeps.points(cells) if p.sweep == name]
    if not rows:
        return None
    kind, subscribe = about.get("kind"), about.get("workload") == "subscribe"
    security = kind == "security"
    baseline = {(p.server, p.client): p for p in rows if p.parameter == "None/None"}
    if subscribe:
        headers = ["server", "client", kind, "signals/s", "cycle mean ms", "cycle p99 ms", "delay p50 ms",
                   "delay p99 ms", "tick gaps", "updates/subscription", "server CPU % (user/sys)",
                   "server CPU-s / M values", "client CPU %", "sustained", "marks"]
    else:
        headers = ["server", "client", kind, "values/s (mean ± 95% CI)", "requests/s", "µs / request (mean)",
                   "µs / value", "p50 µs", "p99 µs", "CV of response time", "server CPU % (user/sys)",
                   "server CPU-s / M values", "ctx switches / request", "marks"]
        if security:
            headers[3:3] = ["round trip vs None", "throughput vs None", "session set-up ms (median)",
                            "set-up vs None"]
    table = []
    for p in rows:
        cpu = f"{_fmt(p.server_cpu_percent)} ({_fmt(p.server_user_percent)}/{_fmt(p.server_system_percent)})"
        if subscribe:
            table.append([p.server, p.client, str(p.parameter), _fmt(p.values_per_s["mean"]), _fmt(p.cycle_ms, 1),
                          _fmt(p.cycle_p99_ms, 1), _fmt(p.delay_p50_ms, 2), _fmt(p.delay_p99_ms, 2),
                          _fmt(p.tick_gaps), f"{_fmt(p.updates_min)}–{_fmt(p.updates_max)}", cpu,
                          _fmt(p.server_cpu_s_per_million, 2), _fmt(p.client_cpu_percent),
                          "yes" if p.sustained else "no", _marks(p)])
            continue
        per_value = 1e6 / p.values_per_s["mean"] if p.values_per_s["mean"] else None
        row = [p.server, p.client, str(p.parameter), _throughput_cell(p.values_per_s), _fmt(p.ops_per_s["mean"]),
               _fmt(p.latency["mean_us"], 1), _fmt(per_value, 3), _fmt(p.latency["p50_us"], 1),
               _fmt(p.latency["p99_us"], 1), _fmt(p.latency_cv, 3) if p.latency_cv is not None else "–", cpu,
               _fmt(p.server_cpu_s_per_million, 2), _fmt(p.server_ctx_per_op, 3), _marks(p)]
        if security:
            base = baseline.get((p.server, p.client))
            row[3:3] = [_fmt(_ratio(p.latency["mean_us"], base and base.latency["mean_us"]), 2),
                        _fmt(_ratio(p.values_per_s["mean"], base and base.values_per_s["mean"]), 2),
                        _fmt(p.setup_ms, 1), _fmt(_ratio(p.setup_ms, base and base.setup_ms), 2)]
        table.append(row)
    md, page = _table(headers, table)
    notes = []
    if kind == "signals":
        best = sweeps.highest_sustained(rows)
        notes = [f"Highest sustained signals/s (mean cycle time within {sweeps.SUSTAINED_CYCLE_RATIO:.0%} of the "
                 "interval): " + (", ".join(f"{server} {_fmt(point.values_per_s['mean'])} at {point.parameter} signals"
                                            for server, point in sorted(best.items())) or "none")]
    md = [*(f"{n}" for n in notes), "", *md] if notes else md
    page = [*(f"<p>{html.escape(n)}</p>" for n in notes), *page]
    page += _sweep_plots(name, kind, subscribe, rows, baseline)
    unmeasured = [f"{c['server']} ({c['client']}) at {c.get('parameter')}: {c['status']} — {_first_line(c['reason'])}"
                  for c in cells if c["kind"] == "sweep" and c["variant"] == name and c["status"] != "pass"]
    if unmeasured:
        md += ["", "Points not measured:", "", *[f"- {u}" for u in unmeasured]]
        page.append("<p>Points not measured:</p><ul>"
                    + "".join(f"<li>{html.escape(u)}</li>" for u in unmeasured) + "</ul>")
    return Section(f"{suite_title(run['suite'])}: {name}", md, page)


def _numeric(parameter: str | None) -> float | None:
    try:
        return float(parameter)
    except (TypeError, ValueError):
        return None


def _sweep_plots(name: str, kind: str, subscribe: bool, rows: list[Point], baseline: dict) -> list[str]:
    def series(x, y) -> dict:
        out: dict[str, list] = {}
        for p in rows:
            xv, yv = x(p), y(p)
            if xv is not None and yv is not None:
                out.setdefault(f"{p.server} ({p.client})", []).append((xv, yv))
        return out

    images = []
    if subscribe and kind == "signals":
        images.append(plots.line_plot(f"{name}: server CPU vs signals/s", "signals/s", "server CPU %",
                                      series(lambda p: p.values_per_s["mean"], lambda p: p.server_cpu_percent)))
        images.append(plots.line_plot(f"{name}: cycle time vs signals/s", "signals/s", "mean cycle time (ms)",
                                      series(lambda p: p.values_per_s["mean"], lambda p: p.cycle_ms),
                                      hline=100 * sweeps.SUSTAINED_CYCLE_RATIO))
    elif subscribe:
        images.append(plots.line_plot(f"{name}: server CPU", kind, "server CPU %",
                                      series(lambda p: _numeric(p.parameter), lambda p: p.server_cpu_percent)))
    elif kind == "security":
        ratios: dict[str, dict[str, float]] = {}
        for p in rows:
            base = baseline.get((p.server, p.client))
            ratio = _ratio(p.values_per_s["mean"], base and base.values_per_s["mean"])
            if ratio is not None:
                ratios.setdefault(p.server, {})[str(p.parameter)] = ratio
        images.append(plots.bar_plot(f"{name}: throughput relative to None", "ratio to None", ratios, hline=1.0))
    elif kind == "nodes":
        groups: dict[str, dict[str, float]] = {}
        for p in rows:
            if p.latency["mean_us"] is not None:
                groups.setdefault(p.server, {})[str(p.parameter)] = p.latency["mean_us"]
        images.append(plots.bar_plot(f"{name}: time per request", "µs (mean)", groups))
    else:
        def per_value(p: Point) -> float | None:
            return 1e6 / p.values_per_s["mean"] if p.values_per_s["mean"] else None

        images.append(plots.line_plot(f"{name}: time per value", kind, "µs per value",
                                      series(lambda p: _numeric(p.parameter), per_value), logx=True, logy=True))
    return [_img(png, name) for png in images if png]


def capacity_section(run: dict, cells: list[dict]) -> Section | None:
    verdicts = [c for c in cells if c["kind"] == "capacity-verdict"]
    if not verdicts:
        return None
    rows = []
    for cell in sorted(verdicts, key=lambda c: -c["result"]["capacity_throughput"]):
        r = cell["result"]
        over = r.get("overload") or {}
        rows.append([cell["server"], cell["client"], _fmt(r["capacity_offered"]), _fmt(r["capacity_throughput"]),
                     _fmt(r["capacity_p99_ms"], 2), _fmt(r["overload_offered"]), _fmt(over.get("throughput")),
                     _fmt(over.get("p99_ms"), 2) if over.get("p99_ms") not in (None, float("inf")) else "–",
                     r["behaviour"]])
    md, page = _table(["server", "load generator", "capacity offered /s", "capacity achieved /s", "p99 ms",
                       "overload offered /s", "overload achieved /s", "overload p99 ms", "overload behaviour"], rows)
    bound = verdicts[0]["result"]["p99_bound_ms"]
    intro = (f"Open-loop reads (1 node/request), p99 ≤ {bound:g} ms and ≥ 99% of offered requests completed; "
             "latency measured from each request's scheduled time (coordinated omission corrected).")
    probes: dict[str, list] = {}
    for cell in cells:
        if cell["kind"] == "capacity" and cell.get("result") and cell.get("parameter"):
            probes.setdefault(cell["server"], []).append(
                (float(cell["parameter"]), cell["result"]["throughput"]["ops_per_s"]))
    page = [f"<p>{html.escape(intro)}</p>", *page,
            _img(plots.line_plot("Throughput vs offered load", "offered requests/s", "completed requests/s",
                                 probes, logx=True, logy=True), "throughput vs offered load")]
    return Section(f"{suite_title(run['suite'])}: read capacity and overload", [intro, "", *md], page)


def model_section(cells: list[dict]) -> Section | None:
    found, problems = model.fit_all(cells)
    if not found and not problems:
        return None
    rows = [[m.sdk, m.communication, str(m.points), _fmt(m.intercept, 2), f"{m.slope:.3e}",
             _fmt(m.r2, 3) if m.r2 is not None else "–",
             f"{m.heldout_mae:.2f}" if m.heldout_mae is not None else "–",
             f"± {m.band:.1f}" if m.band is not None else "–",
             ", ".join(f"{k} {lo:g}–{hi:g}" for k, (lo, hi) in m.ranges.items())] for m in found]
    md, page = _table(["server", "communication", "points", "intercept (CPU %)", "CPU % per unit x", "R²",
                       "held-out MAE (pp)", "95% band (pp)", "measured range"], rows)
    intro = ("Server CPU (% of one core) = intercept + slope × x, with x = signals × publishing rate (1/s) × "
             "clients^0.3 (PubSub: signals × rate), fitted by least squares; the held-out error comes from "
             "leave-one-out predictions. `uabench predict` uses these models and refuses to extrapolate.")
    md = [intro, "", *md] + ([""] + [f"- not fitted: {p}" for p in problems] if problems else [])
    page = [f"<p>{html.escape(intro)}</p>", *page] + [f"<p>not fitted: {html.escape(p)}</p>" for p in problems]
    data = model.observations(cells)
    measured = {}
    for m in found:
        measured[f"{m.sdk} measured"] = [(o.feature, o.cpu_percent) for o in data
                                         if o.sdk == m.sdk and o.communication == m.communication]
    page.append(_img(plots.line_plot("CPU sizing model: server CPU vs x", "x = signals × rate × clients^0.3",
                                     "server CPU %", measured), "CPU model"))
    return Section("CPU sizing model", md, page)


def negative_section(run: dict, cells: list[dict]) -> Section | None:
    rows = [[c["server"], c["client"], c["variant"], c["status"], _first_line(c["reason"])]
            for c in cells if c["kind"] == "negative"]
    if not rows:
        return None
    md, page = _table(["server", "client", "refused", "verdict", "detail"], rows)
    page = [p.replace("<td>pass", '<td class="pass">pass').replace("<td>fail", '<td class="fail">fail') for p in page]
    return Section(f"{suite_title(run['suite'])}: negative security tests", md, page)


def interop_section(suite: str, cells: list[dict]) -> Section | None:
    clients, servers, matrix = interop_matrix(cells)
    if not matrix:
        return None
    headers = ["client \\ server", *servers]
    rows, reasons = [], []
    for client in clients:
        row = [client]
        for server in servers:
            entry = matrix.get((client, server))
            if entry is None:
                row.append("–")
                continue
            if entry["status"] == "pass":
                row.append(f"pass ({entry['passed']}/{entry['total']})")
            else:
                row.append(entry["status"] + (f" ({entry['passed']}/{entry['total']})"
                                              if entry["status"] == "fail" else ""))
                reasons += [f"{client} → {server}: {r}" for r in entry["reasons"][:3]]
        rows.append(row)
    md, page = _table(headers, rows)
    page = [p.replace("<td>pass", '<td class="pass">pass').replace("<td>fail", '<td class="fail">fail')
            .replace("<td>not supported", '<td class="na">not supported') for p in page]
    if reasons:
        md += ["", "Reasons:", "", *[f"- {r}" for r in reasons]]
        page += ["<ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in reasons) + "</ul>"]
    return Section(f"{suite_title(suite)}: interop matrix (client × server)", md, page)


def headroom_section(run: dict, cells: list[dict]) -> Section | None:
    suite = run["suite"]
    groups: dict[str, list[dict]] = {}
    for cell in cells:
        if cell["kind"] == "headroom" and cell["status"] == "pass":
            groups.setdefault(cell["variant"], []).append(cell)
    if len(groups) < 2:
        return None
    first = next(iter(groups.values()))[0]
    rows, means = [], {}
    for variant, group in sorted(groups.items()):
        summary = stats.summarize([c["result"]["throughput"]["values_per_s"] for c in group])
        means[variant] = summary
        cpu = _mean([(c["client_resources"] or {}).get("cpu_percent") for c in group])
        rows.append([variant, _throughput_cell(summary), _fmt(cpu), str(len(group))])
    one, two = means.get("1 process"), means.get("2 processes")
    verdict = ""
    if one and two and one["mean"]:
        gain = two["mean"] / one["mean"] - 1
        spread = ((one["ci95"] or 0) + (two["ci95"] or 0)) / one["mean"]
        bound = gain > max(0.05, spread)
        verdict = (f"Two processes deliver {gain:+.0%} (uncertainty ±{spread:.0%}): the one-process figure "
                   + ("WAS client-bound — the reference load generator is the bottleneck on this server."
                      if bound else "was not client-bound; the load generator has headroom."))
    md, page = _table(["load generator", "values/s (mean ± 95% CI)", "load generator CPU %", "repetitions"], rows)
    intro = (f"Reference load generator: {first['client']}; fastest server: {first['server']} "
             f"({(run['provenance'].get('plan') or {}).get('ranking')}). "
             "Both processes run on the load generator's CPUs.")
    return Section(f"{suite_title(suite)}: load generator headroom", [intro, "", *md, "", verdict],
                   [f"<p>{html.escape(intro)}</p>", *page, f"<p>{html.escape(verdict)}</p>"])


CAPABILITY_COLUMNS = ("server", "client", "read", "write", "subscribe", "publisher", "subscriber", "Basic256Sha256",
                      "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss")


def capability_section(runs: list[dict]) -> Section | None:
    declared: dict[str, dict] = {}
    for run in runs:
        declared.update(run["provenance"].get("sdks") or {})
    if not declared:
        return None
    rows, reasons = [], []
    for sdk, about in sorted(declared.items()):
        have = set(about["roles"]) | set(about["workloads"]) | set(about["policies"])
        row = [f"{sdk} {about['version']}"]
        for column in CAPABILITY_COLUMNS:
            if column in have:
                row.append("yes")
            else:
                row.append("not supported")
                reason = about["not_supported"].get(column)
                if reason:
                    reasons.append(f"{sdk}, {column}: {reason}")
        rows.append(row)
    md, page = _table(["SDK", *CAPABILITY_COLUMNS], rows)
    page = [p.replace("<td>yes", '<td class="pass">yes').replace("<td>not supported", '<td class="na">not supported')
            for p in page]
    if reasons:
        md += ["", *[f"- {r}" for r in reasons]]
        page.append("<ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in reasons) + "</ul>")
    return Section("Capabilities declared by each SDK (sdk.toml)", md, page)


def provenance_section(runs: list[dict]) -> Section:
    md, page = [], []
    fingerprints = {run["provenance"]["machine"]["fingerprint"] for run in runs}
    if len(fingerprints) > 1:
        warning = "WARNING: these results come from different machines; figures are not comparable."
        md += [f"**{warning}**", ""]
        page.append(f'<p class="warn">{warning}</p>')
    for run in runs:
        prov = run["provenance"]
        m = prov["machine"]
        lines = [
            f"run {run['id']} ({run['suite']}, profile {run['profile']}, {run['status']})",
            f"git commit: {prov['git_commit']}",
            f"machine: {m['cpu_model']}, {m['cores']} cores, {m['memory_bytes'] / 2**30:.1f} GiB, "
            f"kernel {m['kernel']}, {m['os']} ({m['arch']}), fingerprint {m['fingerprint']}",
            f"pinning: server CPUs {prov['pinning']['server_cpus'] or 'not pinned'}, "
            f"load generator CPUs {prov['pinning']['client_cpus'] or 'not pinned'}",
            "SDK versions: " + (", ".join(f"{k} {v}" for k, v in sorted(prov["sdk_versions"].items())) or "–"),
            f"perf counters: {'yes' if prov.get('perf') else 'unavailable'}",
            "repetitions and durations: " + (", ".join(
                f"{kind} {p['repetitions']} × {p['duration_s']:g} s after {p['warmup_s']:g} s warm-up"
                for kind, p in ((prov.get("plan") or {}).get("phases") or {}).items()) or "–"),
        ]
        md += [f"- {line}" for line in lines] + [""]
        page.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in lines) + "</ul>")
    return Section("Provenance", md, page)


def _img(png: str | None, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{png}">' if png else ""


STYLE = """body{font-family:sans-serif;max-width:1300px;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}td,th{border:1px solid #bbb;padding:3px 7px;
text-align:right}td:first-child,th:first-child{text-align:left}th{background:#eee}.pass{background:#c8f0c8}
.fail{background:#f6c0c0}.na{background:#ddd}.warn{color:#a00;font-weight:bold}img{max-width:100%}"""


def client_server_signal_points(store: Store, runs: list[dict]) -> list[Point]:
    """The client/server subscription signal-rate sweep points of these runs (the axes the
    PubSub sweep is compared on)."""
    found = []
    for run in runs:
        wanted = [name for name, about in ((run["provenance"].get("plan") or {}).get("sweeps") or {}).items()
                  if about.get("kind") == "signals" and about.get("workload") == "subscribe"]
        if wanted:
            found += [p for p in sweeps.points(store.cells([run["id"]])) if p.sweep in wanted]
    return found


def pubsub_section(run: dict, cells: list[dict], client_server: list[Point] | None = None) -> Section | None:
    """PubSub: the signal-rate sweep (table and plots, beside the client/server subscription
    sweep of the same SDKs), the subscriber-count sweep and the publisher x subscriber matrix."""
    sweep_rows = sweeps.pubsub_rows(cells, "pubsub-sweep")
    count_rows = sweeps.pubsub_rows(cells, "pubsub-subscribers")
    interop = [c for c in cells if c["kind"] == "pubsub-interop"]
    if not (sweep_rows or count_rows or interop):
        return None
    md: list[str] = []
    page: list[str] = []

    def part(title: str, notes: list[str], headers: list[str] | None = None, table: list[list[str]] | None = None):
        md.extend([f"### {title}", "", *[f"{n}\n" for n in notes]])
        page.extend([f"<h3>{html.escape(title)}</h3>", *[f"<p>{html.escape(n)}</p>" for n in notes]])
        if headers and table:
            t_md, t_page = _table(headers, table)
            md.extend([*t_md, ""])
            page.extend(t_page)

    def cpu(row) -> str:
        return f"{_fmt(row.publisher_cpu, 1)} ({_fmt(row.publisher_user, 1)}/{_fmt(row.publisher_system, 1)})"

    def marks(row) -> str:
        out = ["subscriber-bound"] if row.subscriber_bound else []
        if row.lost:
            out.append(f"{row.lost} lost")
        if row.timestamps != "kernel":
            out.append(f"{row.timestamps} receive times")
        return ", ".join(out)

    if sweep_rows:
        interval = sweep_rows[0].interval_ms
        notes = [f"N Float signals in one WriterGroup at {interval:g} ms, UADP over UDP multicast on loopback, "
                 "publisher and subscriber pinned to different cores; N rises until the mean cycle time (time "
                 "between successive NetworkMessages of a DataSetWriter at the subscriber) exceeds "
                 f"{sweeps.SUSTAINED_CYCLE_RATIO:g} × the interval (a point that misses is measured once more: "
                 "it holds if a repetition kept the interval without loss). Delay = subscriber receive time − the "
                 "DataSetMessage timestamp (one clock). Publisher CPU, memory and context switches are sampled "
                 "like a server's. DataSets above fields_per_message are split over several DataSetWriters, one "
                 "NetworkMessage (one UDP datagram, no UADP chunking) each."]
        headers = ["publisher", "subscriber", "signals", "signals/s", "messages/s", "datagram B (max)",
                   "cycle mean ms", "cycle p99 ms", "cycle max ms", "delay p50 ms", "delay p99 ms", "lost",
                   "publisher CPU % (user/sys)", "publisher CPU-s / M signals", "publisher RSS MB",
                   "publisher ctx switches/s", "subscriber CPU %", "sustained", "marks"]
        table = [[r.publisher, r.subscriber, str(r.parameter), _fmt(r.signals_per_s), _fmt(r.messages_per_s, 1),
                  _fmt(r.max_datagram_bytes), _fmt(r.cycle_mean_ms, 1), _fmt(r.cycle_p99_ms, 1),
                  _fmt(r.cycle_max_ms, 1), _fmt(r.delay_p50_ms, 2), _fmt(r.delay_p99_ms, 2), _fmt(r.lost), cpu(r),
                  _fmt(r.cpu_s_per_million, 3), _fmt(r.publisher_rss_mb, 1), _fmt(r.publisher_ctx_per_s),
                  _fmt(r.subscriber_cpu), ("yes" if r.sustained else "no")
                  + (f" ({r.held} of {r.repetitions})" if r.repetitions > 1 else ""), marks(r)] for r in sweep_rows]
        part("PubSub: signal-rate sweep", notes, headers, table)

        best, cs_best = sweeps.pubsub_highest_sustained(sweep_rows), sweeps.highest_sustained(client_server or [])
        comparison = []
        for sdk in sorted(set(best) | {r.publisher for r in sweep_rows}):
            ps, cs = best.get(sdk), cs_best.get(sdk)
            cs_cpu_per_m = (cs.server_cpu_percent / 100 / cs.values_per_s["mean"] * 1e6
                            if cs and cs.server_cpu_percent is not None and cs.values_per_s["mean"] else None)
            comparison.append([
                sdk, _fmt(ps.held_signals_per_s) if ps else "none sustained", str(ps.parameter) if ps else "–",
                _fmt(ps.held_publisher_cpu, 1) if ps else "–", _fmt(ps.held_cpu_s_per_million, 3) if ps else "–",
                _fmt(cs.values_per_s["mean"]) if cs else "not measured", f"{cs.parameter} ({cs.client})" if cs else "–",
                _fmt(cs.server_cpu_percent, 1) if cs else "–", _fmt(cs_cpu_per_m, 3),
                _fmt(ps.held_signals_per_s / cs.values_per_s["mean"], 2) if ps and cs and cs.values_per_s["mean"]
                else "–"])
        part("PubSub vs client/server subscriptions (same SDK, same interval)",
             ["Highest sustained signals/s: PubSub (publisher; the repetitions of the point that kept the "
              "interval without loss) and the "
              "client/server subscription sweep of the subscription suite (server, its reference client). "
              "Client/server figures come from the newest subscription run in the store."],
             ["SDK", "PubSub signals/s", "at N", "publisher CPU %", "publisher CPU-s / M signals",
              "client/server signals/s", "at N (client)", "server CPU %", "server CPU-s / M signals",
              "PubSub / client-server"], comparison)

        def series(rows_, x, y, label) -> dict:
            out: dict[str, list] = {}
            for row in rows_:
                xv, yv = x(row), y(row)
                if xv is not None and yv is not None:
                    out.setdefault(label(row), []).append((xv, yv))
            return out

        cs_points = client_server or []
        cpu_series = {**series(sweep_rows, lambda r: r.signals_per_s, lambda r: r.publisher_cpu,
                               lambda r: f"PubSub {r.publisher} publisher"),
                      **series(cs_points, lambda p: p.values_per_s["mean"], lambda p: p.server_cpu_percent,
                               lambda p: f"client/server {p.server} server ({p.client} client)")}
        cycle_series = {**series(sweep_rows, lambda r: r.signals_per_s, lambda r: r.cycle_mean_ms,
                                 lambda r: f"PubSub {r.publisher} ({r.subscriber} subscriber)"),
                        **series(cs_points, lambda p: p.values_per_s["mean"], lambda p: p.cycle_ms,
                                 lambda p: f"client/server {p.server} ({p.client} client)")}
        page.append(_img(plots.line_plot("CPU vs signals/s: PubSub publisher and client/server server", "signals/s",
                                         "CPU % (of one core)", cpu_series, logx=True), "PubSub CPU vs signals/s"))
        page.append(_img(plots.line_plot("Cycle time vs signals/s: PubSub and client/server", "signals/s",
                                         "mean cycle time (ms)", cycle_series, logx=True,
                                         hline=interval * sweeps.SUSTAINED_CYCLE_RATIO),
                         "PubSub cycle time vs signals/s"))

    if count_rows:
        notes = ["k subscribers, each in its own network namespace (its own \"host\") on a Linux bridge with "
                 f"MTU {netns.MTU}; the publisher sends once per cycle whatever k is. The subscribers' kernels "
                 "reassemble IP fragments: datagrams are counted after reassembly."]
        headers = ["publisher", "subscriber", "subscribers", "signals", "datagram B (max)", "signals/s (all)",
                   "signals/s per subscriber", "cycle mean ms", "delay p99 ms", "lost", "publisher CPU % (user/sys)",
                   "publisher ctx switches/s", "IP fragments → datagrams reassembled (whole cell)", "marks"]
        table = [[r.publisher, r.subscriber, str(r.parameter), str(r.signals), _fmt(r.max_datagram_bytes),
                  _fmt(r.signals_per_s), _fmt(r.signals_per_s / r.parameter if r.parameter else None),
                  _fmt(r.cycle_mean_ms, 1), _fmt(r.delay_p99_ms, 2), _fmt(r.lost), cpu(r), _fmt(r.publisher_ctx_per_s),
                  f"{_fmt(r.fragments)} → {_fmt(r.reassembled)}" if r.fragments is not None else "–", marks(r)]
                 for r in count_rows]
        part("PubSub: subscriber-count sweep (network namespaces)", notes, headers, table)
        groups: dict[str, list] = {}
        for r in count_rows:
            if r.publisher_cpu is not None:
                groups.setdefault(f"{r.publisher} publisher", []).append((r.parameter, r.publisher_cpu))
        page.append(_img(plots.line_plot("Publisher CPU vs number of subscribers", "subscribers",
                                         "publisher CPU %", groups), "publisher CPU vs subscribers"))

    if interop:
        publishers = sorted({c["server"] for c in interop})
        subscribers = sorted({c["client"] for c in interop})
        verdicts, reasons = {}, []
        for c in interop:
            if c["status"] == "pass":
                verdicts[(c["server"], c["client"])] = f"pass ({_fmt(c['result']['verification']['checked'])} values)"
            else:
                verdicts[(c["server"], c["client"])] = "not supported" if c["status"] == "not_supported" else "fail"
                reasons.append(f"{c['server']} → {c['client']}: {_first_line(c['reason'])}")
        table = [[p, *[verdicts.get((p, s), "–") for s in subscribers]] for p in publishers]
        part("PubSub: interop (publisher → subscriber)",
             ["Every NetworkMessage must decode and every value verify; a row is a publisher, a column a subscriber."],
             ["publisher \\ subscriber", *subscribers], table)
        page[-1] = (page[-1].replace("<td>pass", '<td class="pass">pass').replace("<td>fail", '<td class="fail">fail')
                    .replace("<td>not supported", '<td class="na">not supported'))
        if reasons:
            md.extend([*[f"- {r}" for r in reasons], ""])
            page.append("<ul>" + "".join(f"<li>{html.escape(r)}</li>" for r in reasons) + "</ul>")

    unmeasured = [f"{c['kind']}: {c['server']} → {c['client']} at {c.get('parameter')}: {c['status']} — "
                  f"{_first_line(c['reason'])}" for c in cells
                  if c["kind"] in ("pubsub-sweep", "pubsub-subscribers") and c["status"] != "pass"]
    if unmeasured:
        md.extend(["Points not measured:", "", *[f"- {u}" for u in unmeasured], ""])
        page.append("<p>Points not measured:</p><ul>"
                    + "".join(f"<li>{html.escape(u)}</li>" for u in unmeasured) + "</ul>")
    return Section("PubSub (UADP over UDP multicast)", md, page)


SUITE_ORDER = ("read", "write", "subscription", "pubsub", "encryption", "scenarios", "capacity")


def _suite_rank(suite: str) -> tuple[int, str]:
    return (SUITE_ORDER.index(suite) if suite in SUITE_ORDER else len(SUITE_ORDER), suite)


def latest_runs(store: Store) -> list[dict]:
    """The newest run of every suite that measured anything (check runs are not reports)."""
    latest: dict[str, dict] = {}
    for run in store.runs():
        if run["suite"] != "check":
            latest[run["suite"]] = run
    return [latest[suite] for suite in sorted(latest, key=_suite_rank)]


def summary_section(runs: list[dict], cells_of: dict[int, list[dict]]) -> Section | None:
    """The headline figures of every suite, one line per server."""
    figures: dict[str, dict[str, str]] = {}

    def put(server: str, column: str, text: str) -> None:
        figures.setdefault(server, {})[column] = text

    for run in runs:
        cells, about = cells_of[run["id"]], run["provenance"].get("plan") or {}
        if run["suite"] in ("read", "write") and about.get("ranking"):
            for p in sweeps.points(cells, "throughput"):
                if p.sweep == about["ranking"]:
                    mark = " (client-bound)" if p.client_bound else ""
                    put(p.server, f"{run['suite']} values/s", _throughput_cell(p.values_per_s) + mark)
                    if run["suite"] == "read":
                        put(p.server, "read p99 µs", _fmt(p.latency["p99_us"], 0))
        if run["suite"] == "subscription":
            signal_sweeps = [n for n, a in (about.get("sweeps") or {}).items() if a.get("kind") == "signals"]
            points = [p for p in sweeps.points(cells) if p.sweep in signal_sweeps]
            for server, p in sweeps.highest_sustained(points).items():
                put(server, "sustained signals/s at 100 ms", _fmt(p.values_per_s["mean"]))
        if run["suite"] == "encryption":
            for p in sweeps.points(cells):
                if p.sweep.startswith("throughput, 10-element") and p.parameter == "Basic256Sha256/SignAndEncrypt":
                    base = next((b for b in sweeps.points(cells) if b.sweep == p.sweep and b.server == p.server
                                 and b.parameter == "None/None"), None)
                    ratio = _ratio(p.values_per_s["mean"], base and base.values_per_s["mean"])
                    put(p.server, "SignAndEncrypt / None throughput", _fmt(ratio, 2))
        for cell in cells:
            if cell["kind"] == "capacity-verdict":
                r = cell["result"]
                put(cell["server"], "read capacity /s (overload)",
                    f"{_fmt(r['capacity_throughput'])} ({r['behaviour']})")
    if not figures:
        return None
    columns = ["read values/s", "read p99 µs", "write values/s", "sustained signals/s at 100 ms",
               "SignAndEncrypt / None throughput", "read capacity /s (overload)"]
    columns = [c for c in columns if any(c in f for f in figures.values())]
    order = sorted(figures, key=lambda s: -_leading_number(figures[s].get("read values/s", "")))
    md, page = _table(["server", *columns], [[s, *(figures[s].get(c, "–") for c in columns)] for s in order])
    note = ("Figures measured in the runs below (provenance at the end); servers in order of read "
            "throughput under the reference load generator.")
    return Section("Summary", [note, "", *md], [f"<p>{html.escape(note)}</p>", *page])


def _leading_number(text: str) -> float:
    try:
        return float(text.split()[0].replace(",", ""))
    except (ValueError, IndexError):
        return 0.0


def build(store: Store, out_dir: Path, run_ids: list[int] | None = None) -> dict[str, Path]:
    runs = [r for r in store.runs() if r["id"] in run_ids] if run_ids else latest_runs(store)
    if not runs:
        raise ValueError(f"no runs in the store {store.path}")
    cells_of = {run["id"]: store.cells([run["id"]]) for run in runs}
    summary = summary_section(runs, cells_of)
    sections: list[Section] = [summary] if summary else []
    exported = []
    for run in runs:
        cells = cells_of[run["id"]]
        exported += cells
        sections += [s for s in (ranking_section(run, cells), headroom_section(run, cells),
                                 interop_section(run["suite"], cells)) if s]
        for name, about in ((run["provenance"].get("plan") or {}).get("sweeps") or {}).items():
            section = sweep_section(run, cells, name, about)
            if section:
                sections.append(section)
        sections += [s for s in (negative_section(run, cells), capacity_section(run, cells)) if s]
        if any(c["kind"].startswith("pubsub-") for c in cells):
            section = pubsub_section(run, cells, client_server_signal_points(store, runs))
            if section:
                sections.append(section)
    section = model_section(exported)
    if section:
        sections.append(section)
    section = capability_section(runs)
    if section:
        sections.append(section)
    sections.append(provenance_section(runs))
    out_dir.mkdir(parents=True, exist_ok=True)
    md = ["# uabench report", ""]
    page = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>uabench report</title>"
            f"<style>{STYLE}</style></head><body><h1>uabench report</h1>"]
    for section in sections:
        md += [f"## {section.title}", "", *section.markdown, ""]
        page += [f"<h2>{html.escape(section.title)}</h2>", *section.html]
    page.append("</body></html>")
    outputs = {"markdown": out_dir / "report.md", "html": out_dir / "report.html", "json": out_dir / "cells.json",
               "csv": out_dir / "cells.csv"}
    _write_atomic(outputs["markdown"], "\n".join(md) + "\n")
    _write_atomic(outputs["html"], "\n".join(page))
    _write_atomic(outputs["json"], json.dumps({"runs": runs, "cells": exported}, indent=1))
    _write_atomic(outputs["csv"], cells_csv(exported))
    return outputs


CSV_COLUMNS = ("run_id", "suite", "kind", "client", "server", "variant", "repetition", "status", "reason",
               "client_bound", "emulated", "ops_per_s", "values_per_s", "p50_us", "p99_us", "p99.9_us", "max_us",
               "server_cpu_percent", "server_rss_max", "client_cpu_percent", "server_context_switches",
               "server_cycles", "server_instructions")


def cells_csv(cells: list[dict]) -> str:
    """One row per measured cell with its derived figures, for spreadsheets."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for cell in cells:
        result = cell.get("result") or {}
        latency = stats.latency_summary(stats.merge_histograms([result.get("latency_ns", [])]))
        server, client = cell.get("server_resources") or {}, cell.get("client_resources") or {}
        perf = cell.get("server_perf") or {}
        row = {
            **{k: cell.get(k) for k in CSV_COLUMNS if k in cell},
            "reason": _first_line(cell.get("reason")),
            "ops_per_s": result.get("throughput", {}).get("ops_per_s"),
            "values_per_s": result.get("throughput", {}).get("values_per_s"),
            **{k: latency.get(k) for k in ("p50_us", "p99_us", "p99.9_us", "max_us")},
            "server_cpu_percent": server.get("cpu_percent"), "server_rss_max": server.get("rss_max"),
            "client_cpu_percent": client.get("cpu_percent"), "server_context_switches": perf.get("context_switches"),
            "server_cycles": perf.get("cycles"), "server_instructions": perf.get("instructions"),
        }
        writer.writerow(["" if row.get(k) is None else row.get(k) for k in CSV_COLUMNS])
    return buffer.getvalue()


def _write_atomic(path: Path, text: str) -> None:
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
