"""The ARM support (uabench.arm): architecture names, Dockerfiles, and the smoke step
judge against purpose-built faulty launchers. The emulated runs themselves are checks
(uabench/checks/test_arm_smoke.py, `uabench arm-smoke`, `uabench check --all`)."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from uabench.arm import smoke as arm
from uabench.engine.session import Session
from uabench.results.store import open_store


def _launched(tmp_path: Path, body: str) -> arm.LaunchedSdk:
    """The reference SDK behind a launcher script, as the smoke checks see an ARM build (no
    qemu needed: what is checked here is the judging, not the emulation)."""
    reference = arm.reference_client()
    launcher = tmp_path / "launcher"
    launcher.write_text(f"#!/usr/bin/env bash\nreal={reference.run}\n{body}\n")
    launcher.chmod(0o755)
    return arm.LaunchedSdk(**arm._fields(reference), launcher=launcher, arch="arm64", how="binary")


def _smoke(tmp_path: Path, body: str) -> dict[str, arm.SmokeResult]:
    store = open_store(tmp_path / "arm.sqlite")
    session = Session(store, "arm-smoke", "smoke", workdir=tmp_path / "run")
    try:
        results = arm.smoke_one(session, arm.reference_client(), _launched(tmp_path, body))
    finally:
        session.close()
    cells = store.cells(suite="arm-smoke")
    # one kind for every step: the step its variant, the build and engine that ran it its parameter
    assert cells and all(cell["emulated"] and cell["kind"] == "arm-smoke" for cell in cells)
    assert all("emulated" in cell["parameter"] for cell in cells)
    assert {cell["variant"] for cell in cells} <= {result.step for result in results}
    return {result.step: result for result in results}


def test_smoke_passes_a_working_server(tmp_path):
    steps = _smoke(tmp_path, 'exec "$real" "$@"')
    assert {"server ready", "read 1 node/request", "write + read back", "server stops on SIGTERM"} <= set(steps)
    assert all(step.status == "pass" for step in steps.values()), steps


def test_smoke_fails_a_server_that_does_not_start(tmp_path):
    steps = _smoke(tmp_path, 'echo "broken on purpose" >&2; exit 1')
    assert list(steps) == ["server ready"] and steps["server ready"].status == "fail"


def test_smoke_fails_a_server_that_exits_badly_on_sigterm(tmp_path):
    steps = _smoke(tmp_path, 'trap \'exit 3\' TERM\n"$real" "$@"')
    assert steps["read 1 node/request"].status == "pass"
    assert steps["server stops on SIGTERM"].status == "fail" and "status 3" in steps["server stops on SIGTERM"].detail


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["ctrl-c", "stopped", "killed"])
def test_make_base_takes_its_debootstrap_with_it(tmp_path, stop):
    """A `uabench images` interrupted (KeyboardInterrupt: _make_base stops make-base with
    SIGTERM), stopped (it dies of SIGTERM) or killed leaves no debootstrap behind: make-base's
    PR_SET_PDEATHSIG is SIGTERM, and its trap stops debootstrap's process group. A stand-in
    debootstrap (first on PATH) records its pid and a child's and waits; the harness is a child
    process running images._make_base, so that it can be stopped. Before the fix, make-base
    died of the signal without its trap and debootstrap went on (the real one, by hand, 24 Nov)."""

    fake = tmp_path / "bin"
    fake.mkdir()
    pids = tmp_path / "pids"
    (fake / "debootstrap").write_text(f"#!/bin/sh\necho $$ >> {pids}\nsleep 300 &\necho $! >> {pids}\nwait\n")
    (fake / "debootstrap").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "UABENCH_ENGINE": "podman"}
    before = set(Path("/var/tmp").glob("uabench-base-amd64.*"))
    harness = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from uabench.containers import images; images._make_base(['amd64', '--force'], {env!r})",
        ],
        env=env,
    )
    try:
        deadline = time.monotonic() + 30
        while not (pids.exists() and len(pids.read_text().split()) == 2):
            assert time.monotonic() < deadline and harness.poll() is None, "the stand-in debootstrap never started"
            time.sleep(0.1)
        started = [int(p) for p in pids.read_text().split()]
        harness.send_signal(stop)
        harness.wait(timeout=60)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in started if Path(f"/proc/{pid}").exists()], "debootstrap outlived make-base"
        deadline = time.monotonic() + 30  # make-base's cleanup after debootstrap is gone
        while set(Path("/var/tmp").glob("uabench-base-amd64.*")) - before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not set(Path("/var/tmp").glob("uabench-base-amd64.*")) - before, "its work directory is left"
    finally:
        for pid in [int(p) for p in pids.read_text().split()] if pids.exists() else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        harness.kill()
