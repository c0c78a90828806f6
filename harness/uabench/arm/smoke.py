"""The machinery of the emulated ARM smoke *check* (uabench/checks/test_arm_smoke.py, run by
`uabench check --all`; `--images` adds the image variants). No command of its own: `uabench
arm-smoke` is `uabench run read write --profile smoke --server-target container --arch …`.

Each SDK's ARM server runs here under qemu-user: from its image (docker --platform or podman
--arch, whichever engine `--engine` chose; host network) or, for the C adapter, straight
from the Bazel cross build (through binfmt_misc). The native reference client
(the host's open62541 adapter) reads every node of the standard address space and writes
Write_j with read-back, both with value verification, through the harness's own Session
machinery. Every cell is stored with `emulated = 1` and the variant naming the architecture
(and the engine): emulated timings are never comparable with native ones and must never rank
a server.
"""

from __future__ import annotations

import dataclasses
import shlex
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from uabench import image_recipe, paths, plan, sdks
from uabench.containers import images
from uabench.engine.cells import Measured
from uabench.engine.servers import Server
from uabench.engine.session import Session
from uabench.results.kinds import CellKind
from uabench.sdks import Sdk
from uabench.targets.process import AdapterError, AdapterProcess

# Under qemu a JVM or Node needs far longer than the contract's 30 s to get ready, and more
# than its 5 s to shut down: emulation is 10-50 times slower than the machine.
EMULATED_READY_TIMEOUT_S = 300.0
EMULATED_STOP_TIMEOUT_S = 30.0
SMOKE_NODES = [*plan.signals(10), "Signal_999", "Tick", "Real", "Page", "SDD", "Image", "Write_0", "Write_99"]
LABEL = "uabench.smoke"


@dataclass(frozen=True)
class LaunchedSdk(Sdk):
    """An SDK whose `run` is a launcher: its ARM build (a container or a qemu binary)."""

    launcher: Path = Path("/nonexistent")
    arch: str = ""
    how: str = ""  # image | binary
    engine: str = ""  # docker | podman: what runs the image

    @property
    def run(self) -> Path:
        return self.launcher


def _write_launcher(path: Path, command: list[str]) -> Path:
    path.write_text(
        "#!/bin/sh\n# uabench arm-smoke launcher (generated)\n"
        f'exec {" ".join(shlex.quote(part) for part in command)} "$@"\n'
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def image_launcher(sdk: Sdk, target: images.Arch, workdir: Path, token: str) -> LaunchedSdk:
    """`run` = `docker|podman run` of the SDK's image; the work directory (configs, PKI) is
    mounted at the same path, the network is the host's, so the endpoint it prints is reachable
    here. The engine's environment (DOCKER_HOST, CONTAINERS_CONF) is written into the launcher."""
    engine = images.engine()
    command = engine.command(
        *engine.run_args(
            images.image_name(sdk.id, target),
            target.platform,
            labels=[f"{LABEL}={token}"],
            volumes=[f"{workdir}:{workdir}"],
        )
    )
    launcher = _write_launcher(workdir / f"run-{sdk.id}-{target.name}", command)
    return LaunchedSdk(**_fields(sdk), launcher=launcher, arch=target.name, how="image", engine=engine.name)


def binary_launcher(sdk: Sdk, target: images.Arch, workdir: Path) -> LaunchedSdk:
    """`run` = the SDK's cross-built binary (sdk.toml [image] binary: the C adapter's Bazel
    build) under qemu-user with the oldest Pi core of the architecture (-cpu), so an instruction
    that core lacks fails here."""
    declared = images.recipe(sdk.id)
    if declared.binary is None:
        raise NotBuilt(f"{sdk.id} has no native binary (its sdk.toml [image] declares no `binary`)")
    binary = paths.REPO / image_recipe.fill(declared.binary, sdk.id, target.name, target.dist)
    if not binary.exists():
        raise images.ImageError(f"{binary} is missing: run {declared.prepare or sdk.install}")
    qemu = "qemu-aarch64-static" if target.name == "arm64" else "qemu-arm-static"
    sysroot = {"arm64": ["-L", "/usr/aarch64-linux-gnu"], "armhf": ["-L", "/usr/arm-linux-gnueabihf"], "armel": []}[
        target.name
    ]  # the ARMv6 build is static
    launcher = _write_launcher(
        workdir / f"run-{sdk.id}-{target.name}-binary", [qemu, "-cpu", target.qemu_cpu, *sysroot, str(binary)]
    )
    return LaunchedSdk(**_fields(sdk), launcher=launcher, arch=target.name, how="binary")


def _fields(sdk: Sdk) -> dict:
    return {f.name: getattr(sdk, f.name) for f in dataclasses.fields(Sdk)}


def start_server(session: Session, sdk: LaunchedSdk, timeout: float = EMULATED_READY_TIMEOUT_S, **overrides) -> Server:
    """ServerPool.get with the longer ready timeout emulation needs."""
    session.pool.stop_all()
    config = session.pool.config(sdk, **overrides)
    process = AdapterProcess(
        sdk, "server", config, session.workdir, None, name=f"{sdk.id}-{sdk.arch}-server-{config['port']}"
    )
    measured = Measured.start(process)
    try:
        ready = process.wait_event(("ready", "error"), timeout)
    except AdapterError:
        measured.stop()
        raise
    if ready["event"] == "error":
        measured.stop()
        raise AdapterError(
            f"{sdk.id} ({sdk.arch}) server refused to start: {ready.get('kind')}: {ready.get('message')}"
        )
    server = Server(sdk, config, measured, ready["endpoint"])
    session.pool.servers[f"{sdk.id}@{sdk.arch}"] = server
    return server


@dataclass
class SmokeResult:
    sdk: str
    arch: str
    how: str
    step: str
    status: str
    detail: str
    seconds: float


def _workload(kind: str, nodes: list[str], per_request: int) -> dict:
    return {
        "workload": kind,
        "nodes": nodes,
        "nodes_per_request": per_request,
        "in_flight": 2,
        "warmup_s": 0.5,
        "duration_s": 2.0,
    }


def smoke_one(session: Session, reference: Sdk, emulated: LaunchedSdk) -> list[SmokeResult]:
    """Start the emulated server, read every node (1 and all per request) and write with the
    native reference client, storing each as an emulated cell."""
    results: list[SmokeResult] = []
    how = f"{emulated.how}, {emulated.engine}" if emulated.engine else emulated.how
    variant = f"{emulated.arch} emulated ({how})"  # which build, and which engine ran it
    started = time.monotonic()
    try:
        server = start_server(session, emulated)
    except AdapterError as error:
        results.append(
            SmokeResult(
                emulated.id,
                emulated.arch,
                emulated.how,
                "server ready",
                "fail",
                str(error),
                round(time.monotonic() - started, 1),
            )
        )
        _store(session, reference, emulated, variant, "server ready", "fail", str(error), None, None)
        return results
    results.append(
        SmokeResult(
            emulated.id,
            emulated.arch,
            emulated.how,
            "server ready",
            "pass",
            server.endpoint,
            round(time.monotonic() - started, 1),
        )
    )
    steps: list[tuple[str, dict, dict[str, str] | None]] = [
        ("read 1 node/request", _workload("read", SMOKE_NODES, 1), None),
        (f"read {len(SMOKE_NODES)} nodes/request", _workload("read", SMOKE_NODES, len(SMOKE_NODES)), None),
        ("write + read back", _workload("write", plan.writes(20), 5), None),
    ]
    # The secure read proves cross-compiled crypto (mbedTLS in the C adapter's build: sdk.toml
    # [image] secure_smoke); the other SDKs' crypto is their runtime's, the same code as on the
    # host, and an emulated JVM or Node often cannot finish the RSA handshake within the client's 10 s.
    if (
        emulated.image is not None
        and emulated.image.secure_smoke
        and emulated.offers("Basic256Sha256", "SignAndEncrypt")
        and reference.offers("Basic256Sha256", "SignAndEncrypt")
    ):
        steps.append(
            (
                "read Basic256Sha256 SignAndEncrypt",
                _workload("read", SMOKE_NODES, 4),
                {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"},
            )
        )
    try:
        # A first session, not judged: an emulated JIT runtime may miss the client's 10 s
        # connect timeout while it compiles its session code for the first time.
        warm = session.client_config(server, {**_workload("read", ["Real"], 1), "warmup_s": 0, "duration_s": 0.5})
        session.run_client(reference, server, warm)
        for name, workload, security in steps:
            begun = time.monotonic()
            config = session.client_config(server, workload, security)
            outcome = session.run_client(reference, server, config)
            if outcome.status == "pass":
                result = outcome.result or {}
                detail = (
                    f"{result['operations']['succeeded']} requests, "
                    f"{result['verification']['checked']} values verified, "
                    f"{result['throughput']['ops_per_s']:.0f} req/s (emulated)"
                )
            else:
                detail = outcome.reason or outcome.status
            results.append(
                SmokeResult(
                    emulated.id,
                    emulated.arch,
                    emulated.how,
                    name,
                    outcome.status,
                    detail,
                    round(time.monotonic() - begun, 1),
                )
            )
            _store(session, reference, emulated, variant, name, outcome.status, outcome.reason, config, outcome)
        server.measured.perf.stop()
        status, seconds, killed = server.measured.process.stop(timeout=EMULATED_STOP_TIMEOUT_S)
        server.measured.sampler.stop()
        session.pool.servers.clear()
        ok = status == 0 and not killed
        results.append(
            SmokeResult(
                emulated.id,
                emulated.arch,
                emulated.how,
                "server stops on SIGTERM",
                "pass" if ok else "fail",
                f"status {status} after {seconds:.1f} s" + (" (killed)" if killed else ""),
                round(seconds, 1),
            )
        )
    finally:
        session.pool.stop_all()
    return results


def _store(
    session: Session,
    reference: Sdk,
    emulated: LaunchedSdk,
    variant: str,
    step: str,
    status: str,
    reason: str | None,
    config: dict | None,
    outcome,
) -> None:
    session.recorder.add_cell(  # spooled first: a store that refuses it loses nothing (results.spool)
        suite=session.suite,
        kind=CellKind.ARM_SMOKE,
        client=reference.id,
        server=emulated.id,
        variant=step,
        parameter=variant,  # the arch, and which build and engine ran it
        repetition=0,
        status=status,
        reason=reason,
        client_config=config,
        server_config=None,
        result=getattr(outcome, "result", None),
        client_resources=getattr(outcome, "client_resources", None),
        server_resources=None,
        client_perf=getattr(outcome, "client_perf", None),
        server_perf=None,
        client_bound=bool(getattr(outcome, "client_bound", False)),
        emulated=True,
    )
    if session.recorder.store_error:  # kept in the spool: the check fails with the line naming the import
        raise session.recorder.store_error


def cleanup_containers(token: str) -> None:
    """Remove any container of this smoke run that outlived its `docker|podman run` process."""
    if not token:
        return
    try:
        engine = images.engine()
        ids = engine.run(*engine.ps_args(f"{LABEL}={token}"), check=False).stdout.split()
        if ids:
            engine.run(*engine.remove_args(ids), check=False)
    except (images.ImageError, OSError):
        pass


class NotBuilt(Exception):
    """This SDK has no build for this architecture, for a reason its sdk.toml declares ([image])."""


def launched(session: Session, sdk_id: str, target: images.Arch, how: str, token: str) -> LaunchedSdk:
    """The SDK's ARM build as an adapter whose `run` starts it under emulation. A build that
    should exist but does not raises images.ImageError naming the command that makes it."""
    sdk = sdks.get(sdk_id)
    if (reason := images.not_built(sdk_id, target)) is not None:
        raise NotBuilt(reason)
    if how == "binary":
        return binary_launcher(sdk, target, session.workdir)
    name = images.image_name(sdk_id, target)
    if not images.image_exists(name):
        raise images.ImageError(f"no image {name}: run uabench images --arch {target.name} --sdk {sdk_id}")
    return image_launcher(sdk, target, session.workdir, token)


def reference_client() -> Sdk:
    """The native client that reads and writes the emulated servers."""
    reference_id = plan.reference_client()
    if reference_id is None:
        raise ValueError("no SDK with a client role to act as the native reference client")
    return sdks.get(reference_id)
