"""The robustness section (issue 18): the survival table (batch × server: unaffected, degraded and
recovered, degraded, crashed, hung), each server's survival score, and the reproducers kept for
a crash or a hang. Built from the robustness cells (robot/library.py records one per batch and
server)."""

from __future__ import annotations

from uabench.document.model import Cell, Column, Figure, Section, Series, Status, Table, row
from uabench.robustness import growth
from uabench.robustness.batches import ABOUT
from uabench.robustness.cells import RobustnessCell
from uabench.robustness.survival import score

SHOWN = {
    "unaffected": Status.PASS,
    "degraded and recovered": Status.MARKED,
    "degraded": Status.FAIL,
    "crashed": Status.FAIL,
    "hung": Status.FAIL,
}


def robustness_cells(cells: list[dict]) -> list[dict]:
    return [c for c in cells if c["kind"] == RobustnessCell.TRIAL and c.get("result")]


def scores(cells: list[dict]) -> dict[str, float | None]:
    """Per server, the share of its batches it came through serving (survival.score)."""
    by_server: dict[str, list[str]] = {}
    for c in robustness_cells(cells):
        by_server.setdefault(c["server"], []).append(c["result"]["outcome"])
    return {server: score(outcomes) for server, outcomes in sorted(by_server.items())}


def robustness_section(cells: list[dict]) -> Section | None:
    mine = robustness_cells(cells)
    if not mine:
        return None
    servers = sorted({c["server"] for c in mine})
    by_batch: dict[str, dict[str, dict]] = {}
    for c in mine:
        by_batch.setdefault(c["variant"], {})[c["server"]] = c["result"]
    rows = []
    for batch, results in by_batch.items():
        cells_of_row = [Cell(batch), Cell(ABOUT.get(batch, ""))]
        for server in servers:
            result = results.get(server)
            if result is None:
                cells_of_row.append(Cell(None))
                continue
            hostile = result.get("hostile") or {}
            detail = result.get("reason") or f"{hostile.get('cases', 0)} cases"
            if result.get("memory"):
                detail += f"; memory held: {result['memory']}"
            cells_of_row.append(Cell(result["outcome"], SHOWN.get(result["outcome"]), detail))
        rows.append(cells_of_row)
    columns = [Column("batch", kind="text"), Column("what", kind="text"), *(Column(s, kind="text") for s in servers)]
    survival = scores(mine)
    score_table = Table(
        [Column("server", kind="text"), Column("survival score", "share of batches", kind="percent")],
        [row(server, survival[server]) for server in servers],
        notes=["Survival score: the share of batches after which the server still served a verified read within "
               "the recovery wait, unaffected or degraded and recovered."],
    )  # fmt: skip
    kept = [
        (c["server"], c["variant"], c["result"]["hostile"]["failure"])
        for c in mine
        if (c["result"].get("hostile") or {}).get("failure")
    ]
    notes = [
        f"{server}, {batch}: case {f['case']} ({f['what']}), reproducer {f['reproducer']}" for server, batch, f in kept
    ]
    return Section(
        "Robustness: hostile input",
        paragraphs=[
            "Each batch is a bounded, seeded set of malformed messages (the fuzzer mutates messages recorded from the "
            "reference client: bit flips by zzuf, corrupted size and length fields, truncation, huge array and "
            "string lengths, nested Variants, invalid NodeId encodings) or one targeted attack. Before it, right after "
            "it and after the recovery wait the server's resources are read and the reference client makes a "
            "verified read: unaffected; degraded and recovered (slow, or holding threads or descriptors right "
            "after, not after the wait); degraded (still so after the wait); hung (alive, no verified read); "
            "crashed (the process died). Memory still held after the wait is noted, not judged: a JVM or V8 heap "
            "that grew keeps its pages; the soak finds leaks."
        ],
        tables=[score_table, Table(columns, rows)],
        notes=notes,
    )


SOAK_UNITS = {"rss_mb": "MB", "threads": "threads", "fds": "descriptors"}


def soak_section(cells: list[dict]) -> Section | None:
    """Per server, the growth per hour of RSS, threads and descriptors over the soak with their 95 %
    intervals, a leak where an interval lies above zero, and RSS over time."""
    mine = [c for c in cells if c["kind"] == RobustnessCell.SOAK and c.get("result")]
    if not mine:
        return None
    rows, series = [], []
    for c in sorted(mine, key=lambda c: c["server"]):
        r = c["result"]
        shown = []
        for metric in SOAK_UNITS:
            g = (r.get("growth") or {}).get(metric)
            if g is None:
                shown.append(Cell(None, detail="too few samples"))
                continue
            text = f"{g['per_hour']:+.2f} [{g['low']:+.2f}, {g['high']:+.2f}]"
            leaked = metric in (r.get("leaks") or [])  # judged when measured, with the floor of its commit
            floor = f"floor {g['floor']:.2f}/h" if g.get("floor") is not None else None
            shown.append(Cell(text, Status.FAIL if leaked else None, detail=floor))
        churn = (r.get("churn") or {}).get("answers") or {}
        rows.append(
            row(
                c["server"],
                r.get("duration_s"),
                *shown,
                ", ".join(r.get("leaks") or []) or "none",
                sum(churn.values()) if churn else None,
            )
        )
        series.append(Series(c["server"], c["server"], [(t, rss) for t, rss, _, _ in r.get("samples") or []]))
    columns = [
        Column("server", kind="text"),
        Column("seconds", "s"),
        *(
            Column(f"{metric.removesuffix('_mb')} growth {unit}/h [95 %]", kind="text")
            for metric, unit in SOAK_UNITS.items()
        ),
        Column("leak", kind="text"),
        Column("sessions churned", "sessions"),
    ]
    return Section(
        "Soak: growth over a steady load",
        paragraphs=[
            "A steady subscription from the reference client with sessions opened, read and closed in a loop beside "
            "it; the server's RSS, threads and file descriptors sampled throughout. Growth per hour: a regression "
            "over the medians of ten equal stretches of the run after its first fifth (successive samples are not "
            "independent; a runtime warms up first), with its 95 % interval; a leak is flagged where the interval "
            "lies above zero and the growth exceeds its floor ("
            + growth.floors_text()
            + "): a slow drift whose interval excludes zero is not a leak. A short soak measures a short run: a rate "
            "per hour is its extrapolation."
        ],
        tables=[Table(columns, rows)],
        figures=[Figure("RSS over the soak", "line", "seconds", "RSS (MB)", series)],
    )
