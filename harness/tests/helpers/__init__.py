"""Helpers the harness's unit and integration tests share (tests/unit, tests/integration):
the test tree's paths, the version-0 store, process-group checks, the fixture servers'
start and stop, and a run into a refusing store; helpers/<module>.py holds what the two halves
of one split module share. The root conftest.py holds the fixtures. Importable from both
folders: pytest puts tests/ on sys.path when it imports the root conftest.py (tests/ is no
package; unit/ and integration/ are, so their modules are unit.test_x and integration.test_x)."""

import contextlib
import json
import os
import select
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).resolve().parents[1]
HARNESS = TESTS.parent
REPO = HARNESS.parent
DATA = TESTS / "data"
FIXTURES = TESTS / "fixtures"
FAULTY = FIXTURES / "faulty"  # purpose-built faulty adapters (a run script, an sdk.toml)
REFERENCE = "open62541"  # the SDK the fault tests run beside the faulty adapters


def version0_store(path: Path) -> Path:
    """A version-0 results store (before PRAGMA user_version) at `path`, with real runs and
    their provenance: built from its SQL text (data/store-v0.sql, an `sqlite3 .dump`), so the
    fixture is reviewable text and the committed copy is never the one a test opens."""
    with sqlite3.connect(path) as db:
        db.executescript((DATA / "store-v0.sql").read_text())
    db.close()
    return path


def group_alive(pgid: int) -> list[int]:
    return [p.pid for p in psutil.process_iter(["pid"]) if _pgid(p.pid) == pgid]


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def wait_gone(pgid: int, seconds: float = 3.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [pid for pid in group_alive(pgid) if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
        if not alive:
            return []
        time.sleep(0.05)
    return alive


def run_into_refusing_store(path: Path, refuse, monkeypatch, capsys, expected_error: str) -> tuple[Path, list]:
    """A real `uabench run` (the reference SDK, interop tests of the smoke profile) into the store
    at `path` after `refuse(path)` made it refuse something: exit 2, stderr ending in the store's
    one line `expected_error` followed by the spool and import it names, every test passing.
    (the run directory, its tests); skipped where open62541 is not built."""
    from robot.api import ExecutionResult

    from uabench import cli, paths
    from uabench.results import spool
    from uabench.results.store import open_store

    if not (paths.ADAPTERS / "open62541" / "run").exists():
        pytest.skip("the reference SDK open62541 is not built here")
    monkeypatch.setattr(paths, "RESULTS", path.parent)
    open_store(path).close()
    refuse(path)
    argv = ["--store", str(path), "run", "read", "--profile", "smoke", "--sdk", "open62541", "--include", "interop"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    (run_dir,) = (path.parent / "runs").iterdir()
    (plan_dir,) = [spooled.parent for spooled in run_dir.glob(f"*/{spool.NAME}")]
    assert err.endswith(
        f"uabench: error: {expected_error}; every measured cell is in the spool of {plan_dir}: "
        f"`uabench import {plan_dir}` loads it\n"
    )
    assert "Traceback" not in err
    result = ExecutionResult(str(run_dir / "output.xml")).suite
    tests = list(result.all_tests)
    assert tests and all(test.status == "PASS" for test in tests) and result.status == "PASS"
    return run_dir, tests


FIXTURE_READY_S = 30.0  # a fixture server in the tools' venv (tools/.venv): its import and its first listen


def start_fixture_server(command: list[str], log: Path, what: str) -> tuple[subprocess.Popen, str]:
    """A purpose-built OPC UA server of tests/fixtures (it prints one `ready` event with its
    endpoint, like an adapter) in a process group of its own: (its process, its endpoint)."""
    with log.open("w") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)
    ready, _, _ = select.select([process.stdout], [], [], FIXTURE_READY_S)
    line = process.stdout.readline() if ready else ""
    if not line:
        stop_fixture_server(process, what, 0)
        pytest.fail(f"{what} is not ready within {FIXTURE_READY_S:g} s: {log.read_text()[-2000:]}")
    event = json.loads(line)
    assert event["event"] == "ready", line
    return process, event["endpoint"]


def stop_fixture_server(process: subprocess.Popen, what: str, grace_s: float) -> int | None:
    """SIGTERM, `grace_s` to exit, then SIGKILL to its group (a hung server ignores SIGTERM);
    asserts nothing of it is left. Its exit status, None when it had to be killed."""
    code = process.poll()
    if code is None:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = process.wait(grace_s)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    process.stdout.close()
    assert wait_gone(process.pid) == [], f"{what} left processes behind"
    return code
