"""--isolation container (uabench.containers.isolation): the engine command line of an adapter in
its container; what is refused before anything starts; and, through the real docker CLI, an
adapter that runs from its SDK's image, is the process the harness samples and signals (not the
engine's CLI), keeps the cores it was given, and leaves no container behind when it is stopped or
its harness is killed. A whole `uabench run read --isolation container` is make test's own step
(ci/test)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from uabench import sdks, targets
from uabench.containers import engine as engines
from uabench.containers import isolation
from uabench.containers.engine import Engine
from uabench.containers.isolation import Containers, Image
from uabench.engine.servers import free_port
from uabench.targets.process import AdapterError, AdapterProcess


def _server_config(port: int) -> dict:
    return {"host": "127.0.0.1", "port": port, "signals": 10, "update_interval_ms": 100, "writes": 10}


# The first test that needs the image builds it, in its own time limit (pytest-timeout counts a
# fixture's set-up in the test's): on a fresh machine that is Bazel's host build of the adapter and
# the debootstrapped amd64 base, 4-6 min (the integration lane's 120 s cut it off, 28 Nov 2026).
BUILDS_IMAGE = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def docker_open62541(tmp_path_factory):
    """The docker engine running and open62541's image of this machine prepared (built once,
    with its debootstrapped base: a few minutes on a fresh machine, seconds after)."""
    if not shutil.which("docker"):
        pytest.skip("the docker CLI is not installed (docker.io)")
    with engines.running("docker") as docker:
        yield isolation.prepare(docker, ["open62541"], tmp_path_factory.mktemp("images"), print)


@BUILDS_IMAGE
def test_the_adapter_runs_in_its_container_and_is_the_process_sampled(docker_open62541, tmp_path):
    containers = docker_open62541
    assert containers.image("open62541").digest.startswith("sha256:")
    targets.use(targets.Placement(*[containers] * 2))
    try:
        process = AdapterProcess(
            sdks.get("open62541"), "server", _server_config(free_port()), tmp_path, cpus={0}, name="iso-server"
        )
        process.start()
        try:
            assert process.wait_event(("ready", "error"), 30)["event"] == "ready", process.stderr_tail_text()
            adapter = psutil.Process(process.pid)
            # the adapter itself, not the engine's CLI that relays its output
            assert process.pid != process.popen.pid and psutil.Process(process.popen.pid).name() == "docker"
            assert adapter.exe().endswith("/uabench-open62541"), adapter.exe()
            container_id = containers.engine.run("inspect", "--format", "{{.Id}}", process.container).stdout.strip()
            assert container_id and container_id in Path(f"/proc/{process.pid}/cgroup").read_text()
            assert adapter.cpu_affinity() == [0]
            # a pause reaches the adapter (its group), as on the host
            process.signal(signal.SIGSTOP)
            deadline = time.monotonic() + 2
            while adapter.status() != psutil.STATUS_STOPPED and time.monotonic() < deadline:
                time.sleep(0.01)
            assert adapter.status() == psutil.STATUS_STOPPED
            process.signal(signal.SIGCONT)
        finally:
            status, _, killed = process.stop()
    finally:
        targets.use(None)
    assert status == 0 and not killed, process.stderr_tail_text()
    assert not psutil.pid_exists(process.pid) or psutil.Process(process.pid).status() == psutil.STATUS_ZOMBIE
    _assert_removed(containers.engine, process.container)


@BUILDS_IMAGE
def test_a_missing_image_fails_the_process_with_the_engines_reason(docker_open62541, tmp_path):
    missing = Image("open62541", "localhost/uabench-test/none:amd64", "sha256:" + "00" * 32, None)
    targets.use(targets.Placement(*[Containers(docker_open62541.engine, "amd64", {"open62541": missing})] * 2))
    try:
        process = AdapterProcess(sdks.get("open62541"), "server", _server_config(free_port()), tmp_path, name="gone")
        process.start()
        with pytest.raises(AdapterError, match=r"exited with status [1-9]\d*(.|\n)*none"):
            process.wait_event(("ready",), timeout=30)
        process.stop()
    finally:
        targets.use(None)


HARNESS = """
import json, sys, time
from pathlib import Path
from uabench import sdks, targets
from uabench.containers.engine import Engine
from uabench.containers.isolation import Containers, Image
from uabench.proc import launcher
from uabench.targets.process import AdapterProcess
launcher.mark_harness()
given = json.loads(sys.argv[1])
image = Image(**given["image"])
targets.use(targets.Placement(*[Containers(Engine("docker", given["env"]), "amd64", {"open62541": image})] * 2))
process = AdapterProcess(sdks.get("open62541"), "server", given["config"], Path(given["workdir"]), name="killed")
process.start()
process.wait_event(("ready",), 30)
print(json.dumps({"pid": process.pid, "container": process.container}), flush=True)
time.sleep(300)
"""


@BUILDS_IMAGE
def test_a_killed_harness_leaves_no_container(docker_open62541, tmp_path):
    image = docker_open62541.image("open62541")
    given = {
        "image": {"sdk": image.sdk, "name": image.name, "digest": image.digest, "size_bytes": image.size_bytes},
        "env": docker_open62541.engine.env,
        "config": _server_config(free_port()),
        "workdir": str(tmp_path),
    }
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, json.dumps(given)], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        line = harness.stdout.readline() if harness.stdout else ""
        assert line, "the harness did not start its container"
        started = json.loads(line)
        assert psutil.pid_exists(started["pid"])
    finally:
        harness.kill()  # SIGKILL: no cleanup of its own runs
        harness.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and psutil.pid_exists(started["pid"]):
        time.sleep(0.1)
    assert not psutil.pid_exists(started["pid"]), "the adapter outlived its killed harness"
    _assert_removed(docker_open62541.engine, started["container"])


def _assert_removed(engine: Engine, name: str, bound_s: float = 15.0) -> None:
    """Container `name` is gone within `bound_s` (the engine removes an ended --rm container
    asynchronously)."""
    deadline = time.monotonic() + bound_s
    while True:
        left = engine.run("ps", "-a", "--format", "{{.ID}} {{.Status}}", "--filter", f"name={name}").stdout.strip()
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert left == "", f"container {name} left behind: {left}"
