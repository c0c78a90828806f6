"""The interop section says what the clients verified (SPEC §3), read-backs under load included."""

from __future__ import annotations

from uabench.report.sections import verification_notes


def _cell(checked: int, failed: int = 0, read_back: int | None = None) -> dict:
    verification = {"checked": checked, "failed": failed, "examples": []}
    if read_back is not None:
        verification["read_back"] = read_back
    return {"kind": "interop", "result": {"verification": verification}}


def test_the_notes_count_checked_read_back_and_wrong_values():
    cells = [_cell(1000, read_back=40), _cell(500, failed=3, read_back=10), _cell(2000), {"kind": "x", "result": None}]
    assert verification_notes(cells) == [
        "Verified in this suite's 3 stored cells: 3,500 values checked, 50 of them read back under load "
        "(SPEC §3 W1), 3 wrong."
    ]


def test_read_backs_are_not_mentioned_where_there_were_none():
    assert verification_notes([_cell(10)]) == ["Verified in this suite's 1 stored cells: 10 values checked, 0 wrong."]
    assert verification_notes([_cell(0)]) == []
