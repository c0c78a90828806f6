"""Small parts every report section builds with (the report's and the suites' own sections)."""

from __future__ import annotations

from uabench.document.model import Cell, Status, Tally


def first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0][:300] if text and text.strip() else ""


def verdict_cell(status: Status, tally: Tally | None = None) -> Cell:
    label = {Status.PASS: "pass", Status.FAIL: "fail", Status.NOT_SUPPORTED: "not supported"}[status]
    return Cell(label, status, tally)


def failure_notes(cells: list[dict], kinds: tuple[str, ...], what: str) -> list[str]:
    """One note per (server, variant) of `kinds` whose cells failed: "server, variant: what: reason"."""
    failed = sorted(
        {(c["server"], c["variant"], c["reason"]) for c in cells if c["kind"] in kinds and c["status"] == "fail"}
    )
    return [f"{server}, {variant}: {what}: {reason}" for server, variant, reason in sorted(failed)]
