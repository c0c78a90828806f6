"""Small parts every report section builds with (the report's and the suites' own sections)."""

from __future__ import annotations

from collections.abc import Callable

from uabench.document.model import Cell, Status, Tally

# A reason's first line is cut here in tables, CSV rows and logs (the whole reason stays in the
# store and cells.json): a line longer than the limit ends in CUT, so a reader knows it was cut.
REASON_CHARS = 300
CUT = " …"


def first_line(text: str | None, limit: int = REASON_CHARS) -> str:
    """The first non-blank line of `text` (a reason's summary; its later lines are detail, such
    as a traceback), at most `limit` characters, ending in CUT when it was longer."""
    lines = (text or "").strip().splitlines()
    line = lines[0].rstrip() if lines else ""
    return line if len(line) <= limit else line[: limit - len(CUT)].rstrip() + CUT


def verdict_cell(status: Status, tally: Tally | None = None) -> Cell:
    label = {Status.PASS: "pass", Status.FAIL: "fail", Status.NOT_SUPPORTED: "not supported"}[status]
    return Cell(label, status, tally)


def by_server(cell: dict) -> str:
    """Who a server-side cell is about: its server and variant."""
    return f"{cell['server']}, {cell['variant']}"


def failure_notes(
    cells: list[dict], kinds: tuple[str, ...], what: str, about: Callable[[dict], str] = by_server
) -> list[str]:
    """One note per subject (`about`: by default the server and variant) and reason of the failed
    cells of `kinds`: "subject: what: reason"."""
    failed = {(about(c), c["reason"]) for c in cells if c["kind"] in kinds and c["status"] == "fail"}
    return [f"{subject}: {what}: {reason}" for subject, reason in sorted(failed)]
