"""Where a run's adapter processes run: on the host (the default), or each in a container from its
SDK's image of this machine's architecture (`uabench run --isolation container`).

A container is started with the engine's CLI (`docker run` or `podman run`, attached: its stdout
is the adapter's, so the line protocol is the same) with

- `--network host`: the endpoints and ports are the host's, as in a host run;
- `--pid host`: the adapter keeps its host pid, so the harness samples and `perf stat`s the adapter
  itself (not the engine's CLI, which only relays its output), and SIGTERM, SIGSTOP and SIGCONT
  reach its process group as on the host (in a pid namespace of its own the adapter would be
  pid 1, which ignores every signal it has no handler for);
- `--cpuset-cpus`: the cores the run gives that role, as sched_setaffinity does on the host;
- its work directory (configuration, PKI) mounted at the same path, and the harness's marker in
  its environment, so the next uabench finds and removes what a killed harness left
  (engine/orphans.py), as for a host process.

Images are `uabench images`' (containers/images.py), built from this checkout before the run. The run's
provenance names every image with its digest."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from uabench.containers import images
from uabench.containers.engine import Engine, EngineError
from uabench.proc import launcher

KINDS = ("host", "container")
EMULATED_READY_TIMEOUT_S = 300.0
LABEL = "uabench.harness"  # the harness marker, on every container a run starts
PID_POLL_S = 0.02


class IsolationError(Exception):
    """A container run that cannot be made: no image and none can be built, a suite that
    cannot run in containers."""


@dataclass(frozen=True)
class Image:
    sdk: str
    name: str
    digest: str
    size_bytes: int | None


@dataclass(frozen=True)
class Containers:
    """A container target (targets/): every adapter of its roles in a container of its SDK's image."""

    engine: Engine
    arch: str  # the images' architecture
    images: dict[str, Image]
    platform: str | None = None  # an architecture not this machine's: run emulated (binfmt/qemu-user)
    kind: str = "container"

    @property
    def emulated(self) -> bool:
        return self.platform is not None

    @property
    def address(self) -> str:
        return "127.0.0.1"  # the host's network

    @property
    def ready_timeout_s(self) -> float:
        # Under qemu a JVM or Node needs far longer than the contract's 30 s to get ready.
        return EMULATED_READY_TIMEOUT_S if self.emulated else 30.0

    def image(self, sdk: str) -> Image:
        try:
            return self.images[sdk]
        except KeyError:
            raise IsolationError(f"{sdk}: no container image was prepared for this run") from None

    def command(
        self,
        sdk: str,
        arguments: list[str],
        workdir: Path,
        name: str,
        cpus: set[int] | None,
        files: Sequence[str] = (),
    ) -> list[str]:
        """The engine command line that runs `sdk`'s adapter with `arguments` in container `name`;
        `files` outside `workdir` that its config names (NodeSet2 files) are mounted read-only at
        the same paths."""
        marker = os.environ.get(launcher.MARKER, "")
        args = [
            "run",
            "--rm",
            "--pull=never",
            "--network",
            "host",
            "--pid",
            "host",
            "--name",
            name,
            "--label",
            f"{LABEL}={marker}",
            "--env",
            f"{launcher.MARKER}={marker}",
            "--volume",
            f"{workdir}:{workdir}",
            "--workdir",
            str(workdir),
        ]
        for path in files:
            if not Path(path).is_relative_to(workdir):
                args += ["--volume", f"{path}:{path}:ro"]
        if cpus:
            args += ["--cpuset-cpus", ",".join(str(cpu) for cpu in sorted(cpus))]
        if self.platform:
            args += self.engine.platform_args(self.platform)
        return self.engine.command(*args, self.image(sdk).name, *arguments)

    def provenance(self) -> dict:
        return {
            "kind": "container",
            "name": "container",
            "arch": self.arch,
            "emulated": self.emulated,  # its machine is this one: the run's provenance has it
            "engine": self.engine.name,
            "daemon": self.engine.daemon,
            "images": {
                sdk: {"image": image.name, "digest": image.digest, "size_bytes": image.size_bytes}
                for sdk, image in sorted(self.images.items())
            },
        }


def container_name(process_name: str) -> str:
    """A container name of this harness for an adapter process (the engine's name rules)."""
    return re.sub(r"[^a-zA-Z0-9_.-]", "-", f"uabench-{os.getpid()}-{process_name}")


def host_arch() -> images.Arch:
    machine = platform.machine()
    try:
        return images.arch(machine)
    except ValueError:
        raise IsolationError(f"--isolation container: no image recipe for this machine ({machine})") from None


def prepare(
    engine: Engine, sdk_ids: list[str], log_dir: Path, say: Callable[[str], None], arch: images.Arch | None = None
) -> Containers:
    """The image of each of `sdk_ids` for this machine, built from this checkout (`uabench images`
    builds the same ones); IsolationError naming the SDK whose image cannot be built.

    Built every time, inputs included (the C adapter's Bazel build): an image left from an
    older checkout would measure an older adapter under this run's name. The engine's layer
    cache and Bazel's make a build of nothing changed take seconds."""
    native = host_arch()
    target = arch or native
    found: dict[str, Image] = {}
    for sdk in sdk_ids:
        name = images.image_name(sdk, target)
        say(f"isolation container: building {name} with {engine.name} (cached layers: seconds)")
        built = images.build(sdk, target, log_dir, fresh_inputs=True)
        if built.status != "built":
            raise IsolationError(f"--isolation container: no image {name}: {built.reason}")
        if not built.digest:  # the build inspected it already
            raise IsolationError(f"--isolation container: {engine.name} cannot inspect {name}")
        found[sdk] = Image(sdk, name, built.digest, built.size_bytes)
    return Containers(engine, target.name, found, None if target == native else target.platform)


def container_pid(engine: Engine, name: str, cli: subprocess.Popen, bound_s: float) -> int | None:
    """The host pid of the adapter in container `name` once it runs, or None when the engine's
    CLI `cli` ended first (the image is missing, the adapter exited at once: its stderr says why)
    or `bound_s` passed."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline and cli.poll() is None:
        try:
            done = engine.run("inspect", "--format", "{{.State.Pid}}", name, check=False, timeout=10)
        except (subprocess.TimeoutExpired, EngineError):
            done = None
        if done is not None and done.returncode == 0 and done.stdout.strip().isdigit():
            pid = int(done.stdout.strip())
            if pid > 0:
                return pid
        time.sleep(PID_POLL_S)
    return None


def remove(engine: Engine, name: str) -> None:
    """Removes container `name` if it is still there (a CLI killed before its `--rm` took effect)."""
    try:
        engine.run("rm", "--force", name, check=False, timeout=30)
    except subprocess.TimeoutExpired:
        pass
