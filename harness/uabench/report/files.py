"""The report's files: the document model of the chosen runs rendered to Markdown and to a
self-contained HTML page, with the cells exported as CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from uabench.document.parts import first_line
from uabench.proc import whole
from uabench.report import html, markdown
from uabench.report.document import document
from uabench.results import figures, stats
from uabench.results.runs import cells_of, latest_finished
from uabench.results.store import Store


def build(store: Store, out_dir: Path, run_ids: list[int] | None = None) -> dict[str, Path]:
    runs = [r for r in store.runs() if r["id"] in run_ids] if run_ids else latest_finished(store)[0]
    if not runs:
        raise ValueError(f"no {'such' if run_ids else 'finished'} runs in the store {store.path}")
    chosen = cells_of(store, runs)
    report = document(runs, chosen)
    exported = [with_block(c, run) for run in runs for c in chosen[run["id"]]]
    outputs = {
        "markdown": out_dir / "report.md",
        "html": out_dir / "report.html",
        "json": out_dir / "cells.json",
        "csv": out_dir / "cells.csv",
    }
    images = {out_dir / i.file: i.svg for part in report.sections for s in part.walk() for i in s.images}
    whole.write(
        {
            **images,
            outputs["markdown"]: markdown.render(report),
            outputs["html"]: html.render(report),
            outputs["json"]: json.dumps({"runs": runs, "cells": exported}, indent=1),
            outputs["csv"]: cells_csv(exported),
        }
    )
    return outputs


def unrendered(store: Store, directory: Path, images: bool = True) -> str | None:
    """Why `directory`'s report.md is not what this checkout renders from `store` (None when it
    is): the reference's figures may have been measured by the code checked out while its report
    was rendered by other code (results/reference.MEASURED leaves the report's code out). Without
    `images`, the lines of images (and of an image not drawn) and blank lines are left out on both
    sides: a flame graph is drawn by inferno, a process a unit test does not start."""
    runs = latest_finished(store)[0]
    committed = directory / "report.md"
    if not committed.is_file():
        return f"{committed} is missing"
    fresh = markdown.render(document(runs, cells_of(store, runs))).splitlines()
    found = committed.read_text(encoding="utf-8").splitlines()
    if not images:
        fresh, found = (
            [line for line in lines if line and not line.startswith("![") and "no flame graph drawn" not in line]
            for lines in (fresh, found)
        )
    line = markdown.first_difference(found, fresh)
    if line is None:
        return None
    return (
        f"{committed} is not what this checkout renders from {store.path} (first at line {line + 1}): "
        f"render it again with `uabench --store {store.path} report --out {directory}`"
    )


CSV_COLUMNS = (
    "run_id",
    "suite",
    "kind",
    "client",
    "server",
    "variant",
    "repetition",
    "block",
    "status",
    "reason",
    "client_bound",
    "emulated",
    "ops_per_s",
    "values_per_s",
    "p50_us",
    "p99_us",
    "p99.9_us",
    "max_us",
    "server_cpu_percent",
    "server_rss_max",
    "client_cpu_percent",
    "cpu_source",
    "server_hot_thread",
    "server_hot_thread_cpu",
    "client_hot_thread",
    "client_hot_thread_cpu",
    "sampler_cpu_percent",
    "server_context_switches_per_s",
    "context_switches_source",
    "server_cycles",
    "server_instructions",
    "host_steal_percent",
    "host_irq_percent",
    "host_other_percent",
)
HOT = ("hot_thread", "hot_thread_cpu")


def with_block(cell: dict, run: dict) -> dict:
    """The cell with its block: in an interleaved run, block r holds repetition r of everything
    compared (None before runs were interleaved)."""
    return {**cell, "block": cell["repetition"] if figures.interleaved(run) else None}


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
        switches, switches_source = figures.context_switches(server, perf)
        row = {
            **{k: cell.get(k) for k in CSV_COLUMNS if k in cell},
            "reason": first_line(cell.get("reason")),
            "ops_per_s": result.get("throughput", {}).get("ops_per_s"),
            "values_per_s": result.get("throughput", {}).get("values_per_s"),
            **{k: latency.get(k) for k in ("p50_us", "p99_us", "p99.9_us", "max_us")},
            "server_cpu_percent": server.get("cpu_percent"),
            "server_rss_max": server.get("rss_max"),
            "client_cpu_percent": client.get("cpu_percent"),
            "cpu_source": server.get("cpu_source") or client.get("cpu_source"),
            **{f"{role}_{k}": r.get(k) for role, r in (("server", server), ("client", client)) for k in HOT},
            "sampler_cpu_percent": figures.sampler_cpu(cell),
            "server_context_switches_per_s": switches,
            "context_switches_source": switches_source,
            "server_cycles": perf.get("cycles"),
            "server_instructions": perf.get("instructions"),
            **{
                f"host_{k}": (result.get("host") or {}).get(k)
                for k in ("steal_percent", "irq_percent", "other_percent")
            },
        }
        writer.writerow(["" if row.get(k) is None else row.get(k) for k in CSV_COLUMNS])
    return buffer.getvalue()
