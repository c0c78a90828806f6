"""Faults around real adapters: the asyncua adapter (quick to start) stands in for any SDK."""

import os
import signal
import subprocess
import sys
import threading
import time

import psutil

from uabench import plan, sdks
from uabench.engine.servers import free_port
from uabench.engine.session import Session
from uabench.engine.warmup import SteadyRule
from uabench.results.kinds import CellKind
from uabench.results.store import open_store

SDK = "asyncua"


def _session(tmp_path) -> Session:
    return Session(open_store(tmp_path / "store.sqlite"), "read", "smoke", workdir=tmp_path / "run")


def _read(duration: float = 0.5) -> dict:
    return {
        "workload": "read",
        "nodes": plan.signals(10),
        "nodes_per_request": 1,
        "in_flight": 2,
        "warmup_s": 0.1,
        "duration_s": duration,
    }


def test_a_server_killed_mid_run_fails_that_cell_and_the_next_cell_runs(tmp_path):
    session = _session(tmp_path)
    sdk = sdks.get(SDK)
    try:
        server = session.pool.get(sdk, warm=False)
        killer = threading.Timer(2.0, lambda: os.killpg(server.measured.process.pid, signal.SIGKILL))
        killer.start()
        config = session.client_config(server, _read(duration=4))
        broken = session.recorder.record(
            CellKind.INTEROP, sdk, sdk, "killed", 0, config, session.run_client(sdk, server, config)
        )
        assert broken.status == "fail"
        assert "server exited with status -9" in broken.reason

        restarted = session.pool.get(sdk, warm=False)
        assert restarted is not server
        config = session.client_config(restarted, _read())
        fine = session.recorder.record(
            CellKind.INTEROP, sdk, sdk, "after", 0, config, session.run_client(sdk, restarted, config)
        )
        assert fine.status == "pass", fine.reason
    finally:
        session.close()
    cells = open_store(tmp_path / "store.sqlite").cells()
    assert [(c["variant"], c["status"]) for c in cells] == [("killed", "fail"), ("after", "pass")]
    assert cells[1]["result"]["verification"]["checked"] > 0
    assert cells[1]["server_resources"]["cpu_percent"] >= 0


def test_servers_are_kept_paused_between_cells_and_warmed_up_once(tmp_path):
    session = Session(
        open_store(tmp_path / "store.sqlite"),
        "read",
        "smoke",
        workdir=tmp_path / "run",
        steady=SteadyRule(bound_s=0.5, chunk_s=0.3, chunk_warmup_s=0.1),
    )
    sdk = sdks.get(SDK)
    try:
        first = session.pool.get(sdk)
        other = session.pool.get(sdk, warm=False, signals=200)  # another config: the first one pauses
        assert psutil.Process(first.measured.process.pid).status() == psutil.STATUS_STOPPED
        assert psutil.Process(other.measured.process.pid).status() != psutil.STATUS_STOPPED
        again = session.pool.get(sdk)  # the same process, running again, not warmed up twice
        assert again is first and not other.alive  # a server with overrides is stopped, not kept
        config = session.client_config(again, _read(duration=0.3))
        assert session.run_client(sdk, again, config).status == "pass"
    finally:
        session.close()
    cells = open_store(tmp_path / "store.sqlite").cells()
    chunks = [c for c in cells if c["kind"] == "warmup"]
    (verdict,) = [c for c in cells if c["kind"] == "steady-state"]
    assert len(chunks) == verdict["result"]["chunks"] >= 3 and verdict["status"] in ("pass", "never_steady")
    assert all(c["client_config"]["verify"] is False for c in chunks)


def test_an_unreachable_endpoint_is_an_error_event_not_a_hang(tmp_path):
    session = _session(tmp_path)
    try:
        config = {"endpoint": f"opc.tcp://127.0.0.1:{free_port()}", **_read()}
        started = time.monotonic()
        outcome = session.run_client(sdks.get(SDK), None, config)
    finally:
        session.close()
    assert outcome.status == "fail" and outcome.reason.startswith("connect")
    assert time.monotonic() - started < 20


def test_an_unknown_config_key_is_refused_naming_it(tmp_path):
    session = _session(tmp_path)
    try:
        config = {"endpoint": "opc.tcp://127.0.0.1:1", **_read(), "in_flite": 3}
        outcome = session.run_client(sdks.get(SDK), None, config)
    finally:
        session.close()
    assert outcome.status == "fail" and "config" in outcome.reason and "in_flite" in outcome.reason


def _adapters_running(results) -> list[str]:
    """Adapter processes of this test's run: their config files live in its results dir."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        line = " ".join(process.info["cmdline"] or [])
        if f"--config {results}" in line:
            found.append(line)
    return found


def test_interrupting_a_run_stops_every_adapter_and_keeps_the_store(tmp_path):
    env = dict(os.environ, UABENCH_RESULTS=str(tmp_path))
    run = subprocess.Popen(
        [sys.executable, "-m", "uabench.cli", "run", "read", "--sdk", SDK, "--profile", "smoke"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _adapters_running(tmp_path):
        time.sleep(0.2)
    assert _adapters_running(tmp_path), "the run never started an adapter"
    time.sleep(1.0)
    run.send_signal(signal.SIGINT)
    assert run.wait(timeout=60) == 130
    time.sleep(0.5)
    assert _adapters_running(tmp_path) == []
    # the run row alone proves nothing (it is written when the suite starts): its status must say
    # it was cut (test_faults_run checks that the cells measured before a signal are kept)
    runs = open_store(tmp_path / "uabench.sqlite").runs()
    assert [(r["suite"], r["status"]) for r in runs] == [("read", "interrupted")]
