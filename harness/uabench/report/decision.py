"""The answer first (issue 68): one table a screen high that opens the report, a row per SDK, each
column the figure a reader chooses an SDK by and a link to the section behind it. Its figures are
the summary's (the rank rule's ranks with the ratio to the reference server in the same blocks) and
those of the suites a make bench leaves to other runs (instruction counts, memory), when the report
holds them; a line under the table says, for each figure it does not hold, why and how to measure
it. It computes nothing the sections do not show: it picks and shortens."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from uabench.document.model import Cell, Column, Interval, Section, Table, Value
from uabench.footprint.memory import KIND as FOOTPRINT
from uabench.footprint.report import trend_figures
from uabench.report.text import MISSING, number, value_text
from uabench.results import instruction_counts as counts

TITLE = "The answer: which SDK"
# the instruction count the table shows: one Read of one node, the request every SDK serves
COUNTED = "read, 1 node"


@dataclass(frozen=True)
class Pick:
    """A column of the answer: its title, the section it links to (the first whose title starts
    so), and how its text is made from the summary's cells of one server (by column title)."""

    title: str
    section: str
    text: Callable[[dict[str, tuple[Cell, Column]]], str | None]
    unmeasured: str  # why a report without it has none, and how to measure it


def _value(cells: dict[str, tuple[Cell, Column]], prefix: str) -> tuple[Value, Column] | None:
    for title, (cell, column) in cells.items():
        if title.startswith(prefix):
            return cell.value, column
    return None


def _ranked(rank_title: str, ratio_prefix: str) -> Callable[[dict[str, tuple[Cell, Column]]], str | None]:
    """A rank with the ratio it rests on: "2–3 · 0.064"."""

    def text(cells: dict[str, tuple[Cell, Column]]) -> str | None:
        parts = []
        rank, ratio = _value(cells, rank_title), _value(cells, ratio_prefix)
        if rank is not None and rank[0] is not None:
            parts.append(value_text(*rank))
        if ratio is not None and isinstance(ratio[0], Interval) and ratio[0].center is not None:
            parts.append(f"{ratio[0].center:.3g}")
        return " · ".join(parts) or None

    return text


def _plain(prefix: str) -> Callable[[dict[str, tuple[Cell, Column]]], str | None]:
    def text(cells: dict[str, tuple[Cell, Column]]) -> str | None:
        found = _value(cells, prefix)
        if found is None or found[0] is None:
            return None
        value, column = found
        if isinstance(value, Interval):
            return number(value.center, column.digits)
        return value_text(value, column)

    return text


PICKS = [
    Pick(
        "read: rank · ÷ reference",
        "Read: server ranking",
        _ranked("read rank", "read ÷"),
        "the read suite was not run (make bench runs it)",
    ),
    Pick(
        "write: rank · ÷ reference",
        "Write: server ranking",
        _ranked("write rank", "write ÷"),
        "the write suite was not run (make bench runs it)",
    ),
    Pick(
        "SignAndEncrypt: rank · ÷ None",
        "Encryption: throughput",
        _ranked("SignAndEncrypt rank", "SignAndEncrypt / None"),
        "the encryption suite was not run (make bench runs it)",
    ),
    Pick(
        "sustained signals/s at 100 ms",
        "Subscription: signal rate",
        _plain("sustained signals/s"),
        "the subscription suite was not run (make bench runs it)",
    ),
    Pick(
        f"instructions per Read ({COUNTED})",
        "Instructions per request",
        _plain("instructions per Read"),
        "no instruction counts in this report (`uabench run instructions --profile quick`)",
    ),
    Pick(
        "memory idle · per 1,000 monitored items (MiB)",
        "Footprint",
        _plain("memory idle"),
        "no footprint in this report (`uabench run footprint --profile quick`)",
    ),
    Pick(
        "conformance checks passed",
        "Conformance",
        _plain("conformance checks passed"),
        "no conformance run in this report (`uabench run conformance --profile quick`)",
    ),
    Pick(
        "survival",
        "Robustness",
        _plain("survival score"),
        "no robustness run in this report (`uabench run robustness --profile quick`)",
    ),
]


def _counted(runs: list[dict], cells_of: dict[int, list[dict]]) -> dict[str, str]:
    """Each server's instructions per Read of one node (the mean of its repeated differences)."""
    found = {}
    for run in runs:
        for (server, workload), (differences, _) in counts.counted(cells_of[run["id"]]).items():
            if workload == COUNTED and differences:
                found[server] = number(sum(d.per_request for d in differences) / len(differences))
    return found


def _memory(runs: list[dict], cells_of: dict[int, list[dict]]) -> dict[str, str]:
    """Each server's idle RSS and its memory per 1,000 monitored items, from the footprint run."""
    found: dict[str, str] = {}
    for run in runs:
        cells = cells_of[run["id"]]
        if not any(c["kind"] == FOOTPRINT for c in cells):
            continue
        idle: dict[str, float] = {}
        per_item: dict[str, float] = {}
        for figure in trend_figures(cells):
            if figure.name.startswith("idle RSS"):
                idle[figure.server] = figure.estimate.center
            elif figure.name == "per monitored item":
                per_item[figure.server] = figure.estimate.center * 1000 / 1024  # KiB an item: MiB per 1,000
        for server in idle.keys() | per_item.keys():
            found[server] = " · ".join(
                number(table.get(server), 1) if table.get(server) is not None else MISSING for table in (idle, per_item)
            )
    return found


def decision_section(summary: Section | None, runs: list[dict], cells_of: dict[int, list[dict]]) -> Section | None:
    """The answer, from the summary's table and the runs' counts and footprint (None without a
    summary)."""
    if summary is None or not summary.tables:
        return None
    table = summary.tables[0]
    by_server: dict[str, dict[str, tuple[Cell, Column]]] = {}
    for row in table.rows:
        server = str(row[0].value)
        by_server[server] = {column.title: (cell, column) for cell, column in zip(row, table.columns, strict=True)}
    counted, memory = _counted(runs, cells_of), _memory(runs, cells_of)
    for server, cells in by_server.items():
        if server in counted:
            cells["instructions per Read"] = (Cell(counted[server]), Column("", kind="text"))
        if server in memory:
            cells["memory idle"] = (Cell(memory[server]), Column("", kind="text"))
    texts = {server: [pick.text(cells) for pick in PICKS] for server, cells in by_server.items()}
    shown = [i for i, pick in enumerate(PICKS) if any(found[i] for found in texts.values())]
    columns = [Column("SDK", kind="text")] + [Column(PICKS[i].title, kind="text", link=PICKS[i].section) for i in shown]
    rows = [[Cell(server), *(Cell(found[i] or MISSING) for i in shown)] for server, found in texts.items()]
    notes = [f"Not in this report: {pick.title}: {pick.unmeasured}." for i, pick in enumerate(PICKS) if i not in shown]
    notes.append(
        "Clients: each SDK's client is checked against every server (the interop sections) but not ranked here."
    )
    return Section(
        TITLE,
        paragraphs=[
            "A row per SDK (its server; servers in the summary's order). Ranks follow the rank rule (Summary's "
            "notes): an interval where the rule cannot order two servers; beside each rank, the server's figure "
            "over the reference server's in the same blocks. Each column's title links to the section behind it."
        ],
        tables=[Table(columns, rows, notes)],
    )
