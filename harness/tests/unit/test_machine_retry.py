"""Which failed cells are the machine's (retried once) and how the report shows the attempt."""

import pytest

from uabench.document.model import Status
from uabench.engine.cells import machine_failure
from uabench.report.sections import interop_matrix, retried_notes


@pytest.mark.parametrize(
    "reason",
    [
        "no operation was attempted",
        "server did not start: asyncua-server-4841: no ready/error event within 30 s\nstderr: …",
    ],
)
def test_a_cell_that_completed_nothing_or_a_late_server_is_the_machines(reason):
    assert machine_failure(reason)


@pytest.mark.parametrize(
    "reason",
    [
        None,
        "3 of 40 operations failed: BadTimeout",
        "2 of 100 values wrong: Signal_3 was 4.0",
        "server did not start: milo-server-4841: exited with status 1 before ready/error",
        "server did not start: milo server refused to start: config: unknown key",
        "nothing was verified",
        "no result",
    ],
)
def test_a_failure_of_the_pair_is_not_the_machines(reason):
    assert not machine_failure(reason)


def _cell(status: str, reason: str | None = None) -> dict:
    return {
        "kind": "interop",
        "client": "open62541",
        "server": "asyncua",
        "variant": "v",
        "status": status,
        "reason": reason,
    }


def test_the_retry_is_the_pairs_verdict_and_the_first_attempt_a_note():
    cells = [
        _cell("disturbed", "failed for the machine's sake, run once more: no operation was attempted"),
        _cell("pass"),
    ]
    _, _, matrix = interop_matrix(cells)
    entry = matrix[("open62541", "asyncua")]
    assert (entry["passed"], entry["total"], entry["reasons"]) == (1, 1, [])
    assert retried_notes(cells) == [
        "open62541 → asyncua: v: failed for the machine's sake, run once more: no operation was attempted"
    ]


def test_a_retry_that_fails_again_fails_the_pair():
    cells = [
        _cell("disturbed", "failed for the machine's sake, run once more: no operation was attempted"),
        _cell("fail", "no operation was attempted"),
    ]
    _, _, matrix = interop_matrix(cells)
    assert matrix[("open62541", "asyncua")]["passed"] == 0
    assert matrix[("open62541", "asyncua")]["status"] == Status.FAIL
