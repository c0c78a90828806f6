"""Reports, derived from the results store alone: rankings, interop matrices and provenance
as Markdown, a self-contained HTML page (plots embedded) and a JSON export."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from . import stats
from .store import Store


@dataclass
class Ranked:
    server: str
    client: str
    variant: str
    repetitions: int
    values_per_s: dict
    ops_per_s: dict
    latency: dict
    server_cpu_percent: float | None
    server_cpu_s_per_million_values: float | None
    server_ctx_per_op: float | None
    client_cpu_percent: float | None
    client_bound: bool
    histogram: object = field(repr=False, default=None)


def _mean(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def throughput_rows(cells: list[dict], variant: str) -> list[Ranked]:
    """One row per server (reference client's load), ranked: client-bound rows never rank."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for cell in cells:
        if cell["kind"] == "throughput" and cell["variant"] == variant and cell["status"] == "pass":
            groups.setdefault((cell["server"], cell["client"]), []).append(cell)
    rows = []
    for (server, client), group in groups.items():
        results = [c["result"] for c in group]
        histogram = stats.merge_histograms([r["latency_ns"] for r in results])
        server_res = [c["server_resources"] or {} for c in group]
        client_res = [c["client_resources"] or {} for c in group]
        cpu_per_million = []
        ctx_per_op = []
        for cell, res in zip(group, server_res, strict=True):
            values, ops = cell["result"]["values"], cell["result"]["operations"]["succeeded"]
            seconds = (cell["result"]["end_ns"] - cell["result"]["start_ns"]) / 1e9
            if res and values and res.get("seconds"):
                cpu = (res["cpu_user_s"] + res["cpu_system_s"]) * (seconds / res["seconds"])
                cpu_per_million.append(cpu / values * 1e6)
                switches = (res["ctx_voluntary"] + res["ctx_involuntary"]) * (seconds / res["seconds"])
                ctx_per_op.append(switches / ops if ops else None)
        rows.append(Ranked(
            server=server, client=client, variant=variant, repetitions=len(group),
            values_per_s=stats.summarize([r["throughput"]["values_per_s"] for r in results]),
            ops_per_s=stats.summarize([r["throughput"]["ops_per_s"] for r in results]),
            latency=stats.latency_summary(histogram),
            server_cpu_percent=_mean([r.get("cpu_percent") for r in server_res]),
            server_cpu_s_per_million_values=_mean(cpu_per_million),
            server_ctx_per_op=_mean(ctx_per_op),
            client_cpu_percent=_mean([r.get("cpu_percent") for r in client_res]),
            client_bound=any(c["client_bound"] for c in group),
            histogram=histogram,
        ))
    rows.sort(key=lambda r: (r.client_bound, -(r.values_per_s["mean"] or 0)))
    return rows


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


def _marks(row: Ranked) -> str:
    marks = []
    if row.client_bound:
        marks.append("client-bound")
    if row.repetitions == 1:
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
    md, page = [], []
    any_rows = False
    for name, load in summary.get("throughput", {}).items():
        rows = throughput_rows(cells, name)
        if not rows:
            continue
        any_rows = True
        ranking = name == summary.get("ranking")
        headers = ["rank", "server", "values/s (mean ± 95% CI)", "requests/s", "CV", "p50 µs", "p90 µs",
                   "p99 µs", "p99.9 µs", "max µs", "server CPU %", "server CPU-s / M values",
                   "server ctx switches / request", "load generator CPU %", "marks"]
        table, rank = [], 0
        for row in rows:
            if not row.client_bound:
                rank += 1
            lat = row.latency
            table.append([
                str(rank) if not row.client_bound else "–", row.server, _throughput_cell(row.values_per_s),
                _fmt(row.ops_per_s["mean"]), _fmt((row.values_per_s["cv"] or 0) * 100, 1) + " %"
                if row.values_per_s["cv"] is not None else "–",
                _fmt(lat["p50_us"], 1), _fmt(lat["p90_us"], 1), _fmt(lat["p99_us"], 1),
                _fmt(lat["p99.9_us"], 1), _fmt(lat["max_us"], 1), _fmt(row.server_cpu_percent, 0),
                _fmt(row.server_cpu_s_per_million_values, 2), _fmt(row.server_ctx_per_op, 3),
                _fmt(row.client_cpu_percent, 0), _marks(row)])
        title = f"{name} — load: {rows[0].client} client, {load.get('in_flight', 1)} requests in flight"
        note = ("Servers ranked by values/s; client-bound results are shown but not ranked."
                if ranking else "Not used for the ranking; shown for comparison.")
        t_md, t_html = _table(headers, table)
        md += [f"### {title}", "", note, "", *t_md, ""]
        page += [f"<h3>{html.escape(title)}</h3><p>{html.escape(note)}</p>", *t_html]
        plot = latency_cdf_plot(rows, f"{suite_title(suite)} latency CDF — {name}")
        if plot:
            page.append(f'<img alt="latency CDF {html.escape(name)}" src="data:image/png;base64,{plot}">')
    if not any_rows:
        return None
    return Section(f"{suite_title(suite)}: server ranking", md, page)


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
        ]
        md += [f"- {line}" for line in lines] + [""]
        page.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in lines) + "</ul>")
    return Section("Provenance", md, page)


def latency_cdf_plot(rows: list[Ranked], title: str) -> str | None:
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(7, 4))
    for row in rows:
        points = stats.cdf(row.histogram)
        if points:
            label = row.server + (" (client-bound)" if row.client_bound else "")
            axes.step([p[0] for p in points], [p[1] for p in points], where="post", label=label)
    axes.set_xscale("log")
    axes.set_xlabel("latency (µs, log scale)")
    axes.set_ylabel("fraction of requests")
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=90)
    pyplot.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()


STYLE = """body{font-family:sans-serif;max-width:1300px;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}td,th{border:1px solid #bbb;padding:3px 7px;
text-align:right}td:first-child,th:first-child{text-align:left}th{background:#eee}.pass{background:#c8f0c8}
.fail{background:#f6c0c0}.na{background:#ddd}.warn{color:#a00;font-weight:bold}img{max-width:100%}"""


def latest_runs(store: Store) -> list[dict]:
    """The newest finished (or interrupted) run of every suite."""
    latest: dict[str, dict] = {}
    for run in store.runs():
        latest[run["suite"]] = run
    return [latest[suite] for suite in sorted(latest)]


def build(store: Store, out_dir: Path, run_ids: list[int] | None = None) -> dict[str, Path]:
    runs = [r for r in store.runs() if r["id"] in run_ids] if run_ids else latest_runs(store)
    if not runs:
        raise ValueError(f"no runs in the store {store.path}")
    sections: list[Section] = []
    exported = []
    for run in runs:
        cells = store.cells([run["id"]])
        exported += cells
        sections += [s for s in (ranking_section(run, cells), headroom_section(run, cells),
                                 interop_section(run["suite"], cells)) if s]
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
