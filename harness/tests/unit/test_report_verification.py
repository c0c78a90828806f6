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


def _latency_cell(server: str, histogram: list[list[int]], completed: int) -> dict:
    result = {
        "latency_ns": histogram,
        "start_ns": 0,
        "end_ns": 1_000_000_000,
        "timeline": {"window_ms": 1000, "start_ns": 0, "ops": [completed], "values": [completed]},
    }
    return {
        "kind": "latency",
        "server": server,
        "variant": "1000/s × 1",
        "parameter": "1000",
        "status": "pass",
        "result": result,
        "client_config": {"nodes_per_request": 1},
    }


def test_the_latency_table_gives_the_p99_interval_where_n_supports_it():
    from uabench.report.capacity import latency_section

    section = latency_section(
        {}, [_latency_cell("a", [[1000, 990], [4992, 10]], 1000), _latency_cell("b", [[1000, 999]], 999)]
    )
    table = section.tables[0]
    column = [c.title for c in table.columns].index("p99 95 % interval µs")
    intervals = {line[0].value: line[column].value for line in table.rows}
    assert intervals == {"a": "1–5", "b": None}  # b: 999 requests cannot tell a p99
    assert "true uncertainty is wider" in section.paragraphs[0]


def test_a_latency_load_that_completed_more_than_was_offered_is_not_steady():
    from uabench.report.capacity import latency_section

    cells = [
        _latency_cell("steady", [[1000, 990], [4992, 10]], 1005),
        _latency_cell("drained", [[1000, 990], [4992, 10]], 1160),  # 116 %: a backlog from the warm-up
        _latency_cell("behind", [[1000, 990], [4992, 10]], 890),
    ]
    table = latency_section({}, cells).tables[0]
    titles = [c.title for c in table.columns]
    notes = {line[0].value: line[titles.index("note")].value for line in table.rows}
    assert notes["steady"] is None
    assert notes["drained"].startswith("not steady: it completed more than was offered")
    assert notes["behind"].startswith("not sustained: its queue grew")
