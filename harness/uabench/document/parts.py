"""Small parts every report section builds with (the report's and the suites' own sections)."""

from __future__ import annotations

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


def failure_notes(cells: list[dict], kinds: tuple[str, ...], what: str) -> list[str]:
    """One note per (server, variant) of `kinds` whose cells failed: "server, variant: what: reason"."""
    failed = sorted(
        {(c["server"], c["variant"], c["reason"]) for c in cells if c["kind"] in kinds and c["status"] == "fail"}
    )
    return [f"{server}, {variant}: {what}: {reason}" for server, variant, reason in sorted(failed)]
