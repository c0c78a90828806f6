"""Read verification without loopholes (issue 12 item 5, SPEC §3 "Read verification"): each
rule R1–R5 fails a real client reading a server that breaks it. The server is the asyncua
adapter's with a faulty update loop (fixtures/faulty/ticking, one fault per mode); the
clients are the real adapters, every one that is built here (a missing build is skipped with
its reason). The healthy mode is the control: the same client passes it."""

from __future__ import annotations

import pytest

from uabench.engine import cells


def _result(advanced: int, nodes: list[str] | None = None, seconds: float = 1.0, **config) -> dict:
    return {
        "workload": config.pop("workload", "read"),
        "config": {"nodes": nodes or ["Tick"], **config},
        "start_ns": 10**18,
        "end_ns": 10**18 + int(seconds * 1e9),
        "verification": {"checked": 10, "failed": 0, "examples": [], "ticks_advanced": advanced},
    }


SERVER_100MS = {"update_interval_ms": 100}


def test_values_that_did_not_advance_fail_when_the_update_loop_runs():
    reason = cells.values_standing_still(_result(0, ["Signal_3", "Real"]), SERVER_100MS)
    assert reason == (
        "values did not advance over the measured phase: the server's update loop is not running "
        "(ticks_advanced 0 over 1.0 s, update_interval_ms 100)"
    )
    assert cells.values_standing_still(_result(1), SERVER_100MS) is None


@pytest.mark.parametrize(
    ("result", "server"),
    [
        (_result(0), {"update_interval_ms": 0}),  # no update loop: values stay at tick 0
        (_result(0, seconds=0.99), SERVER_100MS),  # fewer than 10 updates
        (_result(0, ["Real", "Page", "Write_0"]), SERVER_100MS),  # nothing that ticks was read
        (_result(0, verify=False), SERVER_100MS),  # nothing was verified
        (_result(0, workload="write"), SERVER_100MS),
        (_result(0), None),  # no server of the harness's own (nothing known of its loop)
    ],
    ids=["no-update-loop", "short-phase", "no-ticking-node", "verify-off", "write", "no-server-config"],
)
def test_values_standing_still_are_not_judged_where_they_may(result, server):
    assert cells.values_standing_still(result, server) is None


def test_values_standing_still_are_wrong_values_not_a_limit():
    """A capacity probe whose values stood still ends the search as wrong values."""
    result = _result(0)
    assert not cells.wrong_values(cells.Outcome("fail", "slow", result=result))
    assert cells.wrong_values(cells.Outcome("fail", "values did not advance", result=result, values_stale=True))


def test_combined_processes_keep_the_largest_ticks_advanced():
    def record(advanced: int) -> dict:
        return {
            **_result(advanced),
            "operations": {"attempted": 1, "succeeded": 1, "failed": 0},
            "values": 1,
            "errors": {"examples": []},
            "throughput": {"ops_per_s": 1.0, "values_per_s": 1.0},
        }

    assert cells.combine_results([record(0), record(7), record(3)])["verification"]["ticks_advanced"] == 7
