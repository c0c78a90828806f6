"""The container-engine layer (uabench.containers.engine): the argument lists each engine gets
for build, run, import, save/load and inspect; how an engine is chosen and refused; and one
end-to-end build and run through the real docker CLI (skipped, with the reason, where no
debootstrapped base image is cached)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from uabench.containers import engine as engines
from uabench.containers import images
from uabench.containers.engine import Engine, EngineError


def test_a_daemon_that_does_not_start_is_reported_and_gone(monkeypatch, tmp_path):
    """A faulty dockerd (exits at once) behind the real docker CLI: one error naming its log,
    and nothing left running."""
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("the docker CLI is not installed")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "docker").symlink_to(docker)
    (fake / "dockerd").write_text("#!/bin/sh\necho 'broken on purpose' >&2\nexit 1\n")
    (fake / "dockerd").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:/usr/bin:/bin")
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path / "docker-config"))
    monkeypatch.setenv(engines.BACKEND_ENVIRONMENT, "dockerd")
    monkeypatch.setattr(engines, "DOCKERD_SOCKET", tmp_path / "docker.sock")
    monkeypatch.setattr(engines, "LOG_DIR", tmp_path / "logs")
    monkeypatch.setattr(engines, "LOCK_DIR", tmp_path / "locks")
    monkeypatch.setattr(engines, "_answering", lambda env: False)  # no daemon anywhere: it must start one
    if os.path.exists("/var/run/docker.sock"):
        pytest.skip("a system docker daemon answers on /var/run/docker.sock")
    with pytest.raises(EngineError, match=r"dockerd did not start .*broken on purpose"), engines.running("docker"):
        pass
    assert os.environ.get(engines.ENVIRONMENT) != "docker"  # nothing exported after the failure


def _cached_base() -> str | None:
    name = images.base_image(images.arch("amd64"))
    podman = Engine("podman", {"CONTAINERS_CONF": str(engines.CONTAINERS_CONF)})
    if shutil.which("podman") and podman.exists(name):
        return name
    return None


def test_docker_builds_and_runs_an_image_from_the_debootstrapped_base(tmp_path):
    if not shutil.which("docker"):
        pytest.skip("the docker CLI is not installed (docker.io)")
    base = _cached_base()
    if base is None:
        pytest.skip("no debootstrapped base cached in podman (ci/containers/make-base amd64 makes it, ~1.5 min)")
    try:
        backend = engines.backend() if not engines._answering({}) else "running daemon"
    except EngineError as error:
        pytest.skip(str(error))
    context = tmp_path / "context"
    context.mkdir()
    (context / "Dockerfile").write_text(
        'ARG BASE\nFROM ${BASE}\nARG WORD\nRUN echo "$WORD from $(. /etc/os-release; echo $VERSION_CODENAME)" > /word\n'
        'CMD ["cat", "/word"]\n'
    )
    (context / "Broken.Dockerfile").write_text("ARG BASE\nFROM ${BASE}\nRUN exit 7\n")
    tag = "localhost/uabench-test/engine:amd64"
    with engines.running("docker") as docker:
        assert docker.name == "docker" and docker.daemon, backend
        images.ensure_base(images.arch("amd64"))  # podman's copy, loaded into docker
        base_id = docker.digest(base)
        assert base_id and base_id.startswith("sha256:")
        built = docker.run(
            *docker.build_args(context / "Dockerfile", tag, context, "linux/amd64", [f"BASE={base_id}", "WORD=hello"]),
            check=False,
            timeout=300,
        )
        assert built.returncode == 0, built.stderr[-500:]
        try:
            ran = docker.run(*docker.run_args(tag, "linux/amd64"), check=False, timeout=120)
            assert ran.returncode == 0 and ran.stdout.strip() == "hello from bookworm", ran.stderr[-500:]
            assert (docker.digest(tag) or "").startswith("sha256:")
            # the same engine refuses what must fail: a failing RUN, a missing image (no pull)
            broken = docker.run(
                *docker.build_args(context / "Broken.Dockerfile", tag + "-broken", context, None, [f"BASE={base_id}"]),
                check=False,
                timeout=300,
            )
            assert broken.returncode != 0
            left = docker.run("ps", "-aq", "--filter", f"ancestor={base_id}", check=False).stdout.split()
            assert not left, f"the failed build left containers {left}"
            missing = docker.run(*docker.run_args("localhost/uabench-test/none:amd64"), check=False, timeout=60)
            assert missing.returncode != 0
        finally:
            docker.run("rmi", "-f", tag, check=False)
        socket = docker.env.get("DOCKER_HOST")
        ours = "started and stopped by uabench" in docker.daemon
    if socket and ours:  # a daemon this test started is gone with the block
        done = subprocess.run(["docker", "-H", socket, "info"], capture_output=True, text=True, timeout=30)
        assert done.returncode != 0


@pytest.mark.parametrize(
    ("argv", "environment", "expected"),
    [
        (
            ["images", "--arch", "amd64", "--sdk", "asyncua"],
            {"UABENCH_ENGINE": "lxc"},
            "unknown container engine 'lxc'",
        ),
        (["images", "--engine", "docker", "--arch", "amd64"], {"PATH": "EMPTY"}, "the docker CLI is not installed"),
        (["arm-smoke", "--engine", "podman", "--arch", "amd64"], {}, "'amd64' is not an ARM architecture"),
        (
            ["images", "--engine", "docker", "--arch", "amd64", "--sdk", "open62541"],
            {engines.BACKEND_ENVIRONMENT: "containerd"},
            "neither dockerd nor podman-service",
        ),
    ],
)
def test_the_command_refuses_an_engine_it_cannot_use(argv, environment, expected, monkeypatch, tmp_path, capsys):
    from uabench import cli

    monkeypatch.setenv("UABENCH_LOCK_DIR", str(tmp_path / "lock"))
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    for key, value in environment.items():
        monkeypatch.setenv(key, str(tmp_path) if value == "EMPTY" else value)
    if environment.get(engines.BACKEND_ENVIRONMENT) and engines._answering({}):
        pytest.skip("a docker daemon answers already: no backend is started")
    assert cli.main(["--store", str(tmp_path / "s.sqlite"), *argv]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("uabench: error:")]
    assert len(errors) == 1 and expected in errors[0], errors
