"""--isolation container (uabench.containers.isolation): the engine command line of an adapter in
its container; what is refused before anything starts; and, through the real docker CLI, an
adapter that runs from its SDK's image, is the process the harness samples and signals (not the
engine's CLI), keeps the cores it was given, and leaves no container behind when it is stopped or
its harness is killed. A whole `uabench run read --isolation container` is make test's own step
(ci/test)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from uabench import sdks, targets
from uabench.containers import engine as engines
from uabench.containers import isolation
from uabench.containers.engine import Engine
from uabench.containers.isolation import Containers, Image, IsolationError
from uabench.targets.process import AdapterError, AdapterProcess

DOCKER = Engine("docker", {"DOCKER_HOST": "unix:///run/x.sock"})


IMAGE = Image("open62541", "localhost/uabench/open62541:amd64", "sha256:" + "ab" * 32, 80_000_000)


def test_the_container_command_line(monkeypatch):
    monkeypatch.setenv("UABENCH_HARNESS", "123:456.000")
    containers = Containers(DOCKER, "amd64", {"open62541": IMAGE})
    command = containers.command("open62541", ["server", "--config", "/w/s.json"], Path("/w"), "uabench-1-s", {1, 0})
    assert command[:3] == ["env", "DOCKER_HOST=unix:///run/x.sock", "docker"]
    args = command[3:]
    pairs = {(a, b) for a, b in zip(args, args[1:], strict=False)}
    for pair in [
        ("--network", "host"),
        ("--pid", "host"),
        ("--cpuset-cpus", "0,1"),
        ("--volume", "/w:/w"),
        ("--workdir", "/w"),
        ("--name", "uabench-1-s"),
        ("--env", "UABENCH_HARNESS=123:456.000"),
        ("--label", "uabench.harness=123:456.000"),
    ]:
        assert pair in pairs, pair
    assert args[0] == "run" and "--rm" in args and "--pull=never" in args
    assert args[-4:] == [IMAGE.name, "server", "--config", "/w/s.json"]
    unpinned = containers.command("open62541", ["client"], Path("/w"), "uabench-1-c", None)
    assert "--cpuset-cpus" not in unpinned
    # the NodeSet2 files a config names, from outside the work directory: read-only at their paths
    files = ["/cache/nodesets/Opc.Ua.Di.NodeSet2.xml", "/w/own.xml"]
    mounted = containers.command("open62541", ["server"], Path("/w"), "uabench-1-s", None, files)
    assert ("--volume", "/cache/nodesets/Opc.Ua.Di.NodeSet2.xml:/cache/nodesets/Opc.Ua.Di.NodeSet2.xml:ro") in set(
        zip(mounted, mounted[1:], strict=False)
    )
    assert not any(part.startswith("/w/own.xml") for part in mounted)  # the work directory is mounted already


def test_provenance_names_every_image_by_digest():
    containers = Containers(Engine("docker", {}, "dockerd 20.10 at /run/s.sock"), "amd64", {"open62541": IMAGE})
    targets.use(targets.Placement(*[containers] * 2))
    try:
        found = targets.current().provenance()["server"]
    finally:
        targets.use(None)
    assert found["kind"] == "container" and found["daemon"].startswith("dockerd")
    assert found["images"]["open62541"] == {"image": IMAGE.name, "digest": IMAGE.digest, "size_bytes": 80_000_000}
    assert targets.current().provenance() == {"server": {"kind": "local"}, "client": {"kind": "local"}}


def test_an_sdk_without_a_prepared_image_is_refused():
    containers = Containers(DOCKER, "amd64", {"open62541": IMAGE})
    with pytest.raises(IsolationError, match="asyncua: no container image"):
        containers.command("asyncua", ["server"], Path("/w"), "x", None)


def test_a_container_name_keeps_to_the_engines_rules():
    assert isolation.container_name("open62541-server-4840") == f"uabench-{os.getpid()}-open62541-server-4840"
    assert isolation.container_name("a b/c:d") == f"uabench-{os.getpid()}-a-b-c-d"


def test_pubsub_in_containers_is_refused_before_anything_starts(tmp_path, monkeypatch, capsys):
    from uabench import cli

    monkeypatch.setenv("UABENCH_LOCK_DIR", str(tmp_path / "lock"))
    started = {"engine": False}
    monkeypatch.setattr(engines, "running", lambda *_: started.update(engine=True))
    argv = ["--store", str(tmp_path / "s.sqlite"), "run", "read", "pubsub", "--isolation", "container"]
    assert cli.main(argv) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("uabench: error:")]
    assert len(errors) == 1 and "pubsub runs adapters in network namespaces" in errors[0], errors
    assert not started["engine"] and not (tmp_path / "s.sqlite").exists()


def test_a_namespaced_host_cannot_run_in_a_container(tmp_path):
    targets.use(targets.Placement(*[Containers(DOCKER, "amd64", {"open62541": IMAGE})] * 2))
    try:
        process = AdapterProcess(sdks.get("open62541"), "server", {}, tmp_path, prefix=["ip", "netns", "exec", "n"])
        with pytest.raises(AdapterError, match="namespaced host cannot run in a container"):
            process.start()
    finally:
        targets.use(None)
