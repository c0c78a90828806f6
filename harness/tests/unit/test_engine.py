"""The container-engine layer (uabench.containers.engine): the argument lists each engine gets
for build, run, import, save/load and inspect; how an engine is chosen and refused; and one
end-to-end build and run through the real docker CLI (skipped, with the reason, where no
debootstrapped base image is cached)."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_a_bad_backend_is_refused(monkeypatch):
    monkeypatch.setenv(engines.BACKEND_ENVIRONMENT, "containerd")
    with pytest.raises(EngineError, match="neither dockerd nor podman-service"):
        engines.backend()
