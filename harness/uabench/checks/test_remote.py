"""The remote check (`uabench remote`): an SDK's server deployed on a host over SSH (a
Raspberry Pi, or the namespace Pi on this machine), loaded and verified by the native client
here, stopped with SIGTERM, its resource samples collected from the host's /proc. Cells go to
the store as suite `remote`. Real ssh, real adapters, no mocks."""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from uabench.arm import remote
from uabench.results.store import Store


@dataclass
class RemoteRun:
    host: remote.RemoteHost
    steps: dict[str, remote.RemoteStep]
    resources: dict | None
    cells: list[dict]


def _deploy(remote_target, host: remote.RemoteHost, unavailable, run_args: list[str], env: list[str]):
    from uabench.arm import images

    if remote_target.binary:
        if not Path(remote_target.binary).exists():
            unavailable(f"no adapter binary {remote_target.binary} (ci/bazel-build host, or make setup)")
        return remote.deploy_binary(host, Path(remote_target.binary))
    try:
        present = images.image_exists(remote_target.image)
    except images.ImageError as error:
        present, why = False, str(error)
    else:
        why = f"no image {remote_target.image} (uabench images)"
    if not present:
        unavailable(why)
    return remote.deploy_image(host, remote_target.image, run_args, env)


@pytest.fixture(scope="module")
def served(
    remote_target, request: pytest.FixtureRequest, store: Store, unavailable, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RemoteRun]:
    options = request.config.getoption
    if remote_target.target:
        host = remote.RemoteHost(
            remote_target.target,
            options("remote_port"),
            options("remote_identity"),
            options("remote_known_hosts"),
            options("remote_workdir"),
        )
        run_args, env = [], []
    else:
        pi = request.getfixturevalue("namespace_pi")
        host, run_args, env = pi.remote_host(), pi.PODMAN_RUN_ARGS, pi.podman_env()
    try:
        deployment = _deploy(remote_target, host, unavailable, run_args, env)
        steps, resources = remote.serve_and_check(
            store, host, deployment, remote_target.sdk, workdir=tmp_path_factory.mktemp("remote")
        )
    except (remote.RemoteError, subprocess.TimeoutExpired) as error:  # one line, not a traceback
        pytest.fail(f"remote host {host.target}: {error}", pytrace=False)
    run_id = max(run["id"] for run in store.runs(suite="remote"))
    yield RemoteRun(deployment.host, {step.step: step for step in steps}, resources, store.cells([run_id]))


def _passed(served: RemoteRun, step: str) -> remote.RemoteStep:
    found = served.steps.get(step)
    if found is None:
        ready = served.steps.get("server ready")
        pytest.fail(f"not run: {ready.detail if ready else 'no server'}", pytrace=False)
    assert found.status == "pass", f"{found.status}: {found.detail}"
    return found


def test_server_ready_on_the_remote_host(served: RemoteRun) -> None:
    ready = _passed(served, "server ready")
    assert served.host.address in ready.detail, f"the server does not listen on the remote host: {ready.detail}"


def test_native_client_reads_every_node(served: RemoteRun) -> None:
    _passed(served, "read every node")


def test_native_client_writes_with_read_back(served: RemoteRun) -> None:
    _passed(served, "write + read back")


def test_server_stops_on_sigterm(served: RemoteRun) -> None:
    _passed(served, "server stops on SIGTERM")


def test_resource_samples_come_back(served: RemoteRun) -> None:
    _passed(served, "resource samples")
    assert served.resources and served.resources["samples"] >= 2 and served.resources["rss_peak_bytes"] > 0


def test_cells_are_stored_as_native(served: RemoteRun) -> None:
    assert {cell["kind"] for cell in served.cells} >= {"read every node", "write + read back", "server resources"}
    assert not any(cell["emulated"] for cell in served.cells)


def test_nothing_is_left_on_the_remote_host(served: RemoteRun) -> None:
    """The run's mktemp -d directory (the adapter, configs, keys, samples) is gone, and so is
    every process started from it."""
    removed = _passed(served, "nothing left on the remote host")
    workdir = served.host.workdir
    assert workdir and "/uabench." in workdir, f"not a mktemp -d directory: {workdir!r}"
    left = served.host.ssh(f"[ -e {shlex.quote(workdir)} ] && echo present; true")
    assert b"present" not in left.stdout, f"{workdir} is still on the remote host ({removed.detail})"
