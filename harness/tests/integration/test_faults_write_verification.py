"""Writes read back under load (issue 12 item 5, SPEC §3 W1): a server that answers Good to the
writes of a load but loses them, or stores them late, fails a real client's write run, though
the read-back after the phase (an idle server) passes it. The server is the asyncua adapter's
with a faulty write path (fixtures/faulty/ticking, modes lose-load-writes and
late-load-writes), one server for the module serving each mode in turn; the clients are the
real adapters, every one that is built here. The healthy mode is the control."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from integration.test_faults_verification import (  # noqa: F401 (fixtures: one faulty server, each client)
    CLIENT_S,
    FAULTY_SERVER,
    UPDATE_INTERVAL_MS,
    client,
    faulty_server,
)
from uabench import sdks
from uabench.engine import cells

NODE = "Write_0"  # the faulty server's only writable node (writes = 1)


STALE = rf"read-back of {NODE}: session 0's write \d+, but its writes before \d+ had completed when write \d+ was sent"


FOREIGN = rf"read-back of {NODE}: -?[\d.]+, which no write of this run put there"


# mode: the failure every example must show (None: the run passes)
MODES = {
    "healthy": None,
    # the node keeps what was there before: 0.0 (session 0's write 0, long completed) or the
    # pattern of an earlier run's post-phase check
    "lose-load-writes": f"{STALE}|{FOREIGN}",
    # after a warm-up longer than the delay (0.3 s), what is read back is this run's, but old
    "late-load-writes": STALE,
}


@pytest.fixture(params=list(MODES))
def write_fault(request, faulty_server) -> tuple[str, str]:  # noqa: F811
    """(mode, endpoint): the server switched to the mode (its update loop installs it)."""
    fault_file, endpoint = faulty_server
    fault_file.write_text(request.param)
    time.sleep(3 * UPDATE_INTERVAL_MS / 1000)
    return request.param, endpoint


def _write(sdk: sdks.Sdk, endpoint: str, workdir: Path) -> dict:
    """A short closed-loop write run of one session, verified: its result record."""
    config = workdir / "client.json"
    config.write_text(
        json.dumps(
            {
                "endpoint": endpoint,
                "workload": "write",
                "nodes": [NODE],
                "in_flight": 4,
                "warmup_s": 0.4,
                "duration_s": 1.0,
            }
        )
    )
    command = [str(sdk.run), "client", "--config", str(config)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=CLIENT_S)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0 and events, f"{sdk.id} client: exit {done.returncode}: {done.stdout[-500:]}"
    return events[-1]


def test_writes_lost_or_stored_late_under_load_fail_a_client_that_reads_them_back(
    write_fault,
    client,  # noqa: F811
    tmp_path,
):
    mode, endpoint = write_fault
    result = _write(client, endpoint, tmp_path)
    assert cells.contract_breach(result) is None, cells.contract_breach(result)
    verification = result["verification"]
    read_back = verification.get("read_back", 0)
    assert read_back > 0, f"{client.id} read nothing back under load: {verification}"
    assert result["operations"]["failed"] == 0, result["errors"]  # every write was answered Good
    failure = MODES[mode]
    reason = cells.judge(result)
    if failure is None:
        assert reason is None, f"{client.id} fails the healthy server: {reason}"
        assert verification["checked"] > read_back, verification  # and checked after the phase
        return
    assert reason is not None, f"{client.id} passes the {mode} server: {verification}"
    # each read-back under load fails, the check after the phase passes: only W1 sees the fault
    assert verification["failed"] == read_back, verification
    examples = verification["examples"]
    assert examples and all(re.fullmatch(failure, example) for example in examples), (
        f"{client.id} against the {mode} server: {examples}"
    )


def test_the_contract_check_of_writes_under_load_fails_a_server_that_loses_them(check_repo, tmp_path):
    """`uabench check`'s W1 check (harness/uabench/checks/test_contract.py) against the faulty
    server installed as the SDK `lose-load-writes`: it fails with W1's message, while the
    reference client's read of every node (no writes under load) passes the same server."""
    sdk = "lose-load-writes"
    (check_repo / "implementations" / sdk).mkdir()
    (check_repo / "implementations" / sdk / "sdk.toml").write_text(
        f'id = "{sdk}"\nlanguage = "Python"\nversion = "0"\nroles = ["server"]\nworkloads = ["read", "write"]\n'
    )
    (check_repo / "adapters" / sdk).mkdir()
    (check_repo / "adapters" / sdk / "run").symlink_to(FAULTY_SERVER)
    junit = tmp_path / "junit.xml"
    keyword = f"{sdk} and (writes_made_under_load or reads_every_node) and not all"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from uabench import checks; raise SystemExit(checks.run(['test_contract'], [], "
            f"__import__('pathlib').Path({str(junit)!r}), keyword={keyword!r}))",
        ],
        env={**os.environ, "UABENCH_REPO": str(check_repo), "UABENCH_RESULTS": str(tmp_path / "results")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    outcomes = {
        case.get("name"): next((child.get("message", "") for child in case if child.tag == "failure"), "passed")
        for case in ElementTree.parse(junit).iter("testcase")
    }
    failure = outcomes.pop(f"test_server_keeps_writes_made_under_load[{sdk}]")
    written = r"read-back of Write_\d+: (session 0's write \d+, but its writes before|-?[\d.]+, which no write of)"
    assert re.search(written, failure), failure + done.stdout[-3000:]
    assert outcomes == {f"test_reference_client_reads_every_node[{sdk}-1-node]": "passed"}, done.stdout[-3000:]
