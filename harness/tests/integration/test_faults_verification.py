"""Read verification without loopholes (issue 12 item 5, SPEC §3 "Read verification"): each
rule R1–R5 fails a real client reading a server that breaks it. The server is the asyncua
adapter's with a faulty update loop (fixtures/faulty/ticking, one fault per mode); the
clients are the real adapters, every one that is built here (a missing build is skipped with
its reason). The healthy mode is the control: the same client passes it."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import FAULTY

from uabench import paths, sdks
from uabench.engine import cells
from uabench.engine.servers import free_port

FAULTY_SERVER = FAULTY / "ticking" / "run"


CLIENTS = ("open62541", "asyncua", "python-opcua", "milo", "node-opcua")


UPDATE_INTERVAL_MS = 50  # 12 updates in the measured phase: R3 is judged from 10


SERVER_CONFIG = {"signals": 10, "writes": 1, "update_interval_ms": UPDATE_INTERVAL_MS}


WITH_TICK = ["Signal_0", "Signal_1", "Tick"]


SIGNALS_ONLY = ["Signal_0", "Signal_1"]  # R2 alone: with Tick beside them, R1 would see it first


READY_S = 30.0


CLIENT_S = 60.0


# mode: (nodes read, the failure every example must show; None: the cell passes)
MODES = {
    "healthy": (WITH_TICK, None),
    "frozen": (WITH_TICK, r"values did not advance over the measured phase: the server's update loop is not running"),
    "torn": (WITH_TICK, r"Signal_\d: tick \d+, but Tick \d+ \(mod 16384\) in the same response"),
    "backwards": (SIGNALS_ONLY, r"Signal_\d: tick \d+, but tick \d+ had arrived before this request was sent"),
    "no-timestamp": (WITH_TICK, r"(Signal_\d|Tick): no SourceTimestamp"),
    "future-timestamp": (WITH_TICK, r"(Signal_\d|Tick): SourceTimestamp [45]\.\d s in the future"),
    "rewound-timestamp": (WITH_TICK, r"(Signal_\d|Tick): tick \d+ has an earlier SourceTimestamp than tick \d+"),
    "int32-tick": (WITH_TICK, r"Tick: .*\bInt32\b.*\bUInt32\b"),
}


@contextlib.contextmanager
def _faulty_server(workdir: Path, fault_file: Path | None = None, fault: str = "healthy") -> Iterator[str]:
    """The faulty server until the block ends (its fault `fault`, or `fault_file`'s content
    read at every update); its endpoint."""
    config = workdir / "server.json"
    config.write_text(json.dumps({**SERVER_CONFIG, "port": free_port()}))
    environ = {**os.environ, "UABENCH_TICK_FAULT": fault}
    if fault_file:
        environ["UABENCH_TICK_FAULT_FILE"] = str(fault_file)
    server = subprocess.Popen(
        [str(FAULTY_SERVER), "server", "--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=environ,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()  # the ready event, or nothing when it died
        assert line.startswith("{"), f"the faulty server did not get ready: {line!r}"
        event = json.loads(line)
        assert event["event"] == "ready", event
        yield event["endpoint"]
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def faulty_server(tmp_path_factory) -> Iterator[tuple[Path, str]]:
    """(the file that holds its fault, its endpoint): one server for every mode and client."""
    if not (paths.IMPLEMENTATIONS / "asyncua" / ".venv" / ".uabench-lock").exists():  # ci/python-env: complete
        pytest.skip("no asyncua venv (implementations/asyncua/install): the faulty server is the asyncua adapter")
    workdir = tmp_path_factory.mktemp("ticking")
    fault_file = workdir / "fault"
    fault_file.write_text("healthy")
    with _faulty_server(workdir, fault_file) as endpoint:
        yield fault_file, endpoint


@pytest.fixture(params=list(MODES))
def faulty(request, faulty_server) -> tuple[str, str]:
    """(mode, endpoint): the server switched to the mode, its values published in it."""
    fault_file, endpoint = faulty_server
    fault_file.write_text(request.param)
    time.sleep(3 * UPDATE_INTERVAL_MS / 1000)
    return request.param, endpoint


@pytest.fixture(scope="module", params=CLIENTS)
def client(request) -> sdks.Sdk:
    try:
        sdk = sdks.get(request.param)
        sdks.capabilities(sdk)
    except (sdks.UnknownSdk, sdks.AdapterBroken) as error:
        pytest.skip(f"{request.param} is not built here: {error}")
    return sdk


def _read(client: sdks.Sdk, endpoint: str, nodes: list[str], workdir: Path) -> dict:
    config = workdir / "client.json"
    config.write_text(
        json.dumps(
            {
                "endpoint": endpoint,
                "workload": "read",
                "nodes": nodes,
                "nodes_per_request": len(nodes),
                "in_flight": 2,
                "warmup_s": 0.2,
                "duration_s": 0.6,
            }
        )
    )
    done = subprocess.run(
        [str(client.run), "client", "--config", str(config)], capture_output=True, text=True, timeout=CLIENT_S
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0 and lines, f"{client.id} client: exit {done.returncode}: {done.stdout[-500:]}"
    return json.loads(lines[-1])


def test_each_rule_fails_a_client_reading_a_server_that_breaks_it(faulty, client, tmp_path):
    mode, endpoint = faulty
    nodes, failure = MODES[mode]
    result = _read(client, endpoint, nodes, tmp_path)
    assert cells.contract_breach(result) is None, cells.contract_breach(result)
    reason = cells.judge(result) or cells.values_standing_still(result, {**SERVER_CONFIG, "port": 1})
    if failure is None:
        assert reason is None, f"{client.id} fails the healthy server: {reason}"
        assert result["verification"]["ticks_advanced"] >= 1, result["verification"]
        return
    assert reason is not None, f"{client.id} passes the {mode} server: {result['verification']}"
    if mode == "frozen":  # every value verifies on its own: only R3 sees it
        assert result["verification"]["failed"] == 0, result["verification"]
        assert re.match(failure, reason), reason
        return
    examples = result["verification"]["examples"]
    assert result["operations"]["failed"] == 0, result["errors"]  # a verification failure, not an operation's
    assert examples and all(re.fullmatch(failure, example) for example in examples), (
        f"{client.id} against the {mode} server: {examples}"
    )


def test_the_contract_check_of_advancing_values_fails_a_frozen_server(check_repo, tmp_path):
    """`uabench check`'s R3 check (harness/uabench/checks/test_contract.py) against the faulty
    server installed as the SDK `frozen`: it fails, for the reason R3 gives, while the frozen
    server still passes the check that reads (and verifies) every node, one node per request."""
    (check_repo / "implementations" / "frozen").mkdir()
    (check_repo / "implementations" / "frozen" / "sdk.toml").write_text(
        'id = "frozen"\nlanguage = "Python"\nversion = "0"\nroles = ["server"]\nworkloads = ["read"]\n'
    )
    (check_repo / "adapters" / "frozen").mkdir()
    (check_repo / "adapters" / "frozen" / "run").symlink_to(FAULTY_SERVER)
    junit = tmp_path / "junit.xml"
    keyword = "frozen and (advance or reads_every_node) and not all"
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
    assert outcomes.pop("test_values_of_the_server_advance_for_the_reference_client[frozen]").startswith(
        "AssertionError: values did not advance over the measured phase: the server's update loop is not running"
    ), done.stdout[-3000:]
    assert outcomes == {
        "test_reference_client_reads_every_node[frozen-1-node]": "passed",
    }, done.stdout[-3000:]


def test_the_faulty_server_refuses_an_unknown_fault(tmp_path):
    with pytest.raises(AssertionError, match="unknown fault .sideways."), _faulty_server(tmp_path, fault="sideways"):
        pass
