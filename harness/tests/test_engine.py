"""The container-engine layer (uabench.containers.engine): the argument lists each engine gets
for build, run, import, save/load and inspect; how an engine is chosen and refused; and one
end-to-end build and run through the real docker CLI (skipped, with the reason, where no
debootstrapped base image is cached)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from uabench.arm import images
from uabench.containers import engine as engines
from uabench.containers.engine import Engine, EngineError

DOCKER = Engine("docker", {"DOCKER_HOST": "unix:///run/x.sock"})
PODMAN = Engine("podman", {"CONTAINERS_CONF": "/c.conf"})


def test_build_arguments_of_both_engines():
    common = ["build", "--network", "host", "-f", "ci/a/Dockerfile", "-t", "localhost/uabench/a:arm64"]
    built = dict(
        dockerfile=Path("ci/a/Dockerfile"),
        tag="localhost/uabench/a:arm64",
        context=Path("/repo"),
        platform="linux/arm/v7",
        build_args=["BASE=sha256:ab", "DIST=armhf"],
    )
    tail = ["--build-arg", "BASE=sha256:ab", "--build-arg", "DIST=armhf", "/repo"]
    assert DOCKER.build_args(**built) == [*common, "--platform", "linux/arm/v7", "--force-rm", *tail]
    assert PODMAN.build_args(**built) == [*common, "--platform", "linux/arm/v7", "--layers", *tail]
    assert DOCKER.build_args(Path("D"), "t", Path("."), no_cache=True)[-2:] == ["--no-cache", "."]


def test_run_names_the_platform_for_docker_and_the_arch_for_podman():
    run = dict(image="img", platform="linux/arm/v7", labels=["l=1"], volumes=["/w:/w"], arguments=["capabilities"])
    head = ["run", "--rm", "--init", "--pull=never", "--network", "host"]
    tail = ["--label", "l=1", "--volume", "/w:/w", "img", "capabilities"]
    assert DOCKER.run_args(**run) == [*head, "--platform", "linux/arm/v7", *tail]
    # no --variant for podman: podman import records none, a lookup with one misses the image
    assert PODMAN.run_args(**run) == [*head, "--arch", "arm", *tail]
    assert PODMAN.platform_args("linux/arm64") == ["--arch", "arm64"]
    assert DOCKER.run_args("img") == [*head, "img"]


def test_import_save_load_inspect_of_both_engines():
    assert DOCKER.import_args("linux/arm/v6", "b", ["CMD x"], "m") == [
        "import", "--platform", "linux/arm/v6", "--change", "CMD x", "--message", "m", "-", "b"
    ]  # fmt: skip
    assert PODMAN.import_args("linux/arm/v6", "b") == [
        "import", "--os", "linux", "--arch", "arm", "--variant", "v6", "-", "b"
    ]  # fmt: skip
    assert PODMAN.import_args("linux/amd64", "b") == ["import", "--os", "linux", "--arch", "amd64", "-", "b"]
    assert DOCKER.exists_args("i") == ["image", "inspect", "--format", "{{.Id}}", "i"]
    assert PODMAN.exists_args("i") == ["image", "exists", "i"]
    for engine in (DOCKER, PODMAN):
        assert engine.save_args("i") == ["save", "i"]
        assert engine.load_args() == ["load", "-q"]
        assert engine.inspect_args("i", "{{.Size}}") == ["image", "inspect", "--format", "{{.Size}}", "i"]
    assert DOCKER.remove_args(["a"]) == ["rm", "-f", "a"]
    assert PODMAN.remove_args(["a"]) == ["rm", "-f", "-t", "2", "a"]


def test_a_launcher_command_carries_the_engine_environment():
    assert DOCKER.command("ps") == ["env", "DOCKER_HOST=unix:///run/x.sock", "docker", "ps"]
    assert Engine("docker").command("ps") == ["docker", "ps"]


def test_the_engine_choice(monkeypatch, tmp_path):
    monkeypatch.setenv(engines.ENVIRONMENT, "podman")
    assert engines.chosen() == "podman"
    assert engines.chosen("docker") == "docker"  # --engine wins over the environment
    monkeypatch.setenv(engines.ENVIRONMENT, "lxc")
    with pytest.raises(EngineError, match="UABENCH_ENGINE: unknown container engine 'lxc'"):
        engines.chosen()
    with pytest.raises(EngineError, match="--engine: unknown container engine 'rkt'"):
        engines.chosen("rkt")
    monkeypatch.delenv(engines.ENVIRONMENT)
    monkeypatch.setenv("PATH", str(tmp_path))  # neither CLI installed
    with pytest.raises(EngineError, match="no container engine"):
        engines.chosen()
    with pytest.raises(EngineError, match="the docker CLI is not installed"), engines.running("docker"):
        pass


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


def test_a_bad_backend_is_refused(monkeypatch):
    monkeypatch.setenv(engines.BACKEND_ENVIRONMENT, "containerd")
    with pytest.raises(EngineError, match="neither dockerd nor podman-service"):
        engines.backend()


# --- end to end, the real docker CLI ------------------------------------------------------------


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


# --- the command line: one line and exit 2 for an engine that cannot be used --------------------


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
