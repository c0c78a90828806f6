"""Writes read back under load (issue 12 item 5, SPEC §3 W1): a server that answers Good to the
writes of a load but loses them, or stores them late, fails a real client's write run, though
the read-back after the phase (an idle server) passes it. The server is the asyncua adapter's
with a faulty write path (fixtures/faulty/ticking, modes lose-load-writes and
late-load-writes), one server for the module serving each mode in turn; the clients are the
real adapters, every one that is built here. The healthy mode is the control."""

from __future__ import annotations

import pytest

from uabench import sdks
from uabench.engine import cells


def test_combined_processes_sum_their_read_backs():
    def record(read_back: int | None) -> dict:
        verification = {"checked": 10, "failed": 0, "examples": []}
        if read_back is not None:
            verification["read_back"] = read_back
        return {
            "start_ns": 0,
            "end_ns": 1,
            "verification": verification,
            "operations": {"attempted": 1, "succeeded": 1, "failed": 0},
            "values": 1,
            "errors": {"examples": []},
            "throughput": {"ops_per_s": 1.0, "values_per_s": 1.0},
        }

    assert cells.combine_results([record(4), record(0), record(6)])["verification"]["read_back"] == 10
    assert "read_back" not in cells.combine_results([record(None), record(None)])["verification"]


def test_several_processes_of_a_verified_write_are_refused(tmp_path):
    writer = sdks.get("asyncua")
    write = {"workload": "write", "verify": True}
    with pytest.raises(ValueError, match="2 client processes of a verified write"):
        cells.run_cell(writer, "client", [write, write], tmp_path, None)
