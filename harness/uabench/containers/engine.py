"""The container engine: the `docker` or the `podman` CLI, one argument mapping for both.

Chosen by `--engine docker|podman`, else UABENCH_ENGINE, else whichever works, Docker first.
The mapping covers what uabench does with images: build, run, save/load, import, inspect and
the image digest. Architectures differ between the two: Docker names a platform
(`--platform linux/arm/v7`) for build, run and import; podman builds with `--platform` but runs
with `--arch` (no variant: `podman import` records none, so a lookup with one misses the local
image) and imports with `--arch/--variant`.

The docker CLI needs a daemon. `running("docker")` uses one that already answers (DOCKER_HOST
or /var/run/docker.sock); else it starts Debian's dockerd (package docker.io) on its own socket
and data root, without a bridge or firewall rules (every uabench container uses the host's
network), and where no dockerd is installed it starts podman's Docker-compatible API
(`podman system service`) and points DOCKER_HOST at it. Whatever it started it stops when the
command ends, also on an exception, Ctrl-C or SIGTERM; when the harness is killed (SIGKILL) the
daemon gets SIGTERM (PR_SET_PDEATHSIG) and stops its containers before it goes. `Engine.daemon`
says which ran, for the provenance.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from uabench import paths
from uabench.proc import launcher

ENGINES = ("docker", "podman")
ENVIRONMENT = "UABENCH_ENGINE"
# Forces the docker CLI's backend when uabench starts one: dockerd | podman-service.
BACKEND_ENVIRONMENT = "UABENCH_DOCKER_BACKEND"
CONTAINERS_CONF = paths.REPO / "ci" / "containers" / "containers.conf"
DOCKERD_SOCKET = Path("/run/uabench-docker.sock")
DOCKERD_DATA = Path("/var/lib/uabench-docker")  # kept between runs: the image cache
DOCKERD_EXEC = Path("/run/uabench-docker")
PODMAN_SOCKET = Path("/run/uabench-podman.sock")
LOCK_DIR = Path("/run/lock")  # who uses the daemon uabench started (uabench-<kind>.users)
LOG_DIR = paths.RESULTS / "images" / "logs"  # the daemon's log
DAEMON_READY_S = 60.0
DAEMON_STOP_S = 20.0
# dockerd's own networking is off: a default bridge, NAT and FORWARD rules (and the DROP policy
# it sets when it turns on ip_forward) would outlive it and cut the harness's namespace bridge.
DOCKERD_OPTIONS = ("--iptables=false", "--ip-forward=false", "--ip-masq=false", "--bridge=none")


class EngineError(Exception):
    pass


@dataclass(frozen=True)
class Engine:
    name: str  # docker | podman: the CLI
    env: dict[str, str] = field(default_factory=dict)  # DOCKER_HOST or CONTAINERS_CONF
    daemon: str = ""  # what served it, for the provenance

    # --- running the CLI -------------------------------------------------------------------
    def environ(self) -> dict[str, str]:
        return {**os.environ, **self.env}

    def command(self, *args: str) -> list[str]:
        """The full command line; with the engine's environment as a prefix (`env K=V docker
        ...`) so it can be written into a launcher script that runs without it."""
        return (
            ["env", *(f"{k}={v}" for k, v in sorted(self.env.items())), self.name, *args]
            if self.env
            else [
                self.name,
                *args,
            ]
        )

    def run(
        self, *args: str, check: bool = True, timeout: float | None = None, stdin=None
    ) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [self.name, *args], env=self.environ(), capture_output=True, text=True, timeout=timeout, stdin=stdin
        )
        if check and done.returncode != 0:
            raise EngineError(
                f"{self.name} {' '.join(args[:3])} failed ({done.returncode}): {(done.stderr or '').strip()[-800:]}"
            )
        return done

    # --- argument mapping ------------------------------------------------------------------
    def build_args(
        self,
        dockerfile: Path,
        tag: str,
        context: Path,
        platform: str | None = None,
        build_args: Sequence[str] = (),
        no_cache: bool = False,
    ) -> list[str]:
        args = ["build", "--network", "host", "-f", str(dockerfile), "-t", tag]
        if platform:
            args += ["--platform", platform]
        if self.name == "podman":
            args.append("--layers")  # podman's default for build, spelt out as before
        else:
            args.append("--force-rm")  # Docker's classic builder keeps the container of a failed step
        for arg in build_args:
            args += ["--build-arg", arg]
        if no_cache:
            args.append("--no-cache")
        return [*args, str(context)]

    def run_args(
        self,
        image: str,
        platform: str | None = None,
        labels: Sequence[str] = (),
        volumes: Sequence[str] = (),
        arguments: Sequence[str] = (),
    ) -> list[str]:
        args = ["run", "--rm", "--init", "--pull=never", "--network", "host"]
        if platform:
            args += self.platform_args(platform)
        for label in labels:
            args += ["--label", label]
        for volume in volumes:
            args += ["--volume", volume]
        return [*args, image, *arguments]

    def platform_args(self, platform: str) -> list[str]:
        """Selecting a local image of `platform` (linux/arm/v7) to run."""
        if self.name == "docker":
            return ["--platform", platform]
        return ["--arch", platform.split("/")[1]]

    def import_args(self, platform: str, name: str, changes: Sequence[str] = (), message: str = "") -> list[str]:
        """`import -` of a root file system tarball on stdin as image `name`."""
        args = ["import"]
        if self.name == "docker":
            args += ["--platform", platform]
        else:
            _os, arch, *variant = platform.split("/")
            args += ["--os", _os, "--arch", arch, *(["--variant", variant[0]] if variant else [])]
        for change in changes:
            args += ["--change", change]
        if message:
            args += ["--message", message]
        return [*args, "-", name]

    def exists_args(self, image: str) -> list[str]:
        # docker has no `image exists`; inspect fails the same way on a missing image
        return (
            ["image", "exists", image] if self.name == "podman" else ["image", "inspect", "--format", "{{.Id}}", image]
        )

    def inspect_args(self, image: str, template: str) -> list[str]:
        return ["image", "inspect", "--format", template, image]

    def save_args(self, image: str) -> list[str]:
        return ["save", image]  # both write a docker-archive tar to stdout

    def load_args(self) -> list[str]:
        return ["load", "-q"]

    def ps_args(self, label: str) -> list[str]:
        return ["ps", "-aq", "--filter", f"label={label}"]

    def remove_args(self, ids: Sequence[str]) -> list[str]:
        return ["rm", "-f", *ids] if self.name == "docker" else ["rm", "-f", "-t", "2", *ids]

    @contextlib.contextmanager
    def saved(self, image: str) -> Iterator[IO[bytes]]:
        """`save` of `image` as a stream (a docker-archive tar, which either engine and a remote
        podman load); a save that failed raises once the reader is done."""
        save = subprocess.Popen(self.command(*self.save_args(image)), stdout=subprocess.PIPE)
        assert save.stdout is not None  # stdout=PIPE
        try:
            yield save.stdout
        finally:
            save.stdout.close()
            save.wait()
        if save.returncode != 0:
            raise EngineError(f"{self.name} save {image} failed ({save.returncode})")

    # --- queries ---------------------------------------------------------------------------
    def exists(self, image: str) -> bool:
        return self.run(*self.exists_args(image), check=False).returncode == 0

    def digest(self, image: str) -> str | None:
        """The image ID, `sha256:` + the digest of its configuration (podman prints it bare):
        local builds have no registry digest, and this one names the content on both engines."""
        done = self.run(*self.inspect_args(image, "{{.Id}}"), check=False)
        found = done.stdout.strip()
        if done.returncode != 0 or not found:
            return None
        return found if found.startswith("sha256:") else f"sha256:{found}"

    def size(self, image: str) -> int | None:
        done = self.run(*self.inspect_args(image, "{{.Size}}"), check=False)
        return int(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip().isdigit() else None


# --- choosing and starting ----------------------------------------------------------------


def chosen(requested: str | None = None) -> str:
    """The engine to use: `requested`, else UABENCH_ENGINE, else docker when its CLI and a way
    to serve it are installed, else podman."""
    name = (requested or os.environ.get(ENVIRONMENT) or "").strip()
    if name:
        if name not in ENGINES:
            source = "--engine" if requested else ENVIRONMENT
            raise EngineError(f"{source}: unknown container engine '{name}' (one of {', '.join(ENGINES)})")
        return name
    if shutil.which("docker") and (shutil.which("dockerd") or shutil.which("podman") or _answering({})):
        return "docker"
    if shutil.which("podman"):
        return "podman"
    raise EngineError("no container engine: install docker.io or podman (ci/containers/apt-packages)")


@contextlib.contextmanager
def running(requested: str | None = None) -> Iterator[Engine]:
    """The chosen engine, ready to use; a daemon started for it is stopped on the way out.
    UABENCH_ENGINE (and DOCKER_HOST) are exported for the processes this one starts (pytest)."""
    name = chosen(requested)
    if not shutil.which(name):
        raise EngineError(f"container engine {name}: the {name} CLI is not installed (ci/containers/apt-packages)")
    if name == "podman":
        engine = Engine("podman", {"CONTAINERS_CONF": os.environ.get("CONTAINERS_CONF", str(CONTAINERS_CONF))})
        engine = Engine(engine.name, engine.env, f"podman {_version(engine)} (no daemon)")
        with _exported(engine):
            yield engine
        return
    if _answering({}):
        engine = Engine("docker", {}, f"docker daemon at {os.environ.get('DOCKER_HOST') or 'the default socket'}")
        engine = Engine("docker", {}, f"{engine.daemon}, server {_server_version(engine)} (not started by uabench)")
        with _exported(engine):
            yield engine
        return
    with _daemon() as engine, _exported(engine), _terminated_on_sigterm():
        yield engine


def _answering(env: dict[str, str]) -> bool:
    try:
        done = subprocess.run(
            ["docker", "version", "--format", "{{.Server.Version}}"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


def _version(engine: Engine) -> str:
    done = engine.run("version", "--format", "{{.Client.Version}}", check=False, timeout=30)
    return done.stdout.strip() or "?"


def _server_version(engine: Engine) -> str:
    done = engine.run("version", "--format", "{{.Server.Version}}", check=False, timeout=30)
    return done.stdout.strip() or "?"


def backend() -> str:
    """What serves the docker CLI when uabench has to start something: dockerd, else podman's API."""
    forced = os.environ.get(BACKEND_ENVIRONMENT, "").strip()
    if forced:
        if forced not in ("dockerd", "podman-service"):
            raise EngineError(f"{BACKEND_ENVIRONMENT}: '{forced}' is neither dockerd nor podman-service")
        return forced
    if shutil.which("dockerd") and os.geteuid() == 0:
        return "dockerd"
    if shutil.which("podman"):
        return "podman-service"
    raise EngineError(
        "container engine docker: no daemon answers and none can be started "
        "(dockerd needs root and the docker.io package; or install podman for its Docker API)"
    )


def daemon_command(kind: str) -> tuple[list[str], Path]:
    """The command line of the daemon uabench starts for the docker CLI, and its socket."""
    if kind == "dockerd":
        return [
            "dockerd",
            "--host",
            f"unix://{DOCKERD_SOCKET}",
            "--data-root",
            str(DOCKERD_DATA),
            "--exec-root",
            str(DOCKERD_EXEC),
            "--pidfile",
            str(DOCKERD_EXEC / "dockerd.pid"),
            "--shutdown-timeout",
            "5",
            *DOCKERD_OPTIONS,
        ], DOCKERD_SOCKET
    return ["podman", "system", "service", "--time=0", f"unix://{PODMAN_SOCKET}"], PODMAN_SOCKET


@contextlib.contextmanager
def _daemon() -> Iterator[Engine]:
    """The daemon for the docker CLI: started here, or another uabench's that already runs.
    Every user holds a shared lock on USERS_LOCK; the one that started the daemon waits, before
    it stops it, until no other uabench holds it (its daemon dies with it: PR_SET_PDEATHSIG)."""
    kind = backend()
    command, socket = daemon_command(kind)
    env = {"DOCKER_HOST": f"unix://{socket}"}
    LOCK_DIR.mkdir(parents=True, exist_ok=True)
    with (LOCK_DIR / f"uabench-{kind}.users").open("a") as users:
        fcntl.flock(users, fcntl.LOCK_SH)
        with (LOCK_DIR / f"uabench-{kind}.start").open("a") as starting:
            fcntl.flock(starting, fcntl.LOCK_EX)  # one starts it, the others wait and use it
            process = None if _answering(env) else _start(kind, command, socket, env)
            fcntl.flock(starting, fcntl.LOCK_UN)
        try:
            how = "started and stopped by uabench" if process else "started by another uabench"
            engine = Engine("docker", env, "")
            yield Engine("docker", env, f"{kind} {_server_version(engine)} at {socket}, {how}")
        finally:
            if process is not None:
                _wait_for_other_users(users, kind)
                stop(process)


def _start(kind: str, command: list[str], socket: Path, env: dict[str, str]) -> subprocess.Popen:
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log = LOG_DIR / f"{kind}.log"
    daemon_env = {**os.environ, "CONTAINERS_CONF": os.environ.get("CONTAINERS_CONF", str(CONTAINERS_CONF))}
    socket.unlink(missing_ok=True)  # a stale socket of a killed daemon would refuse the bind
    with log.open("w") as stream:
        process = subprocess.Popen(
            command,
            stdout=stream,
            stderr=subprocess.STDOUT,
            env=daemon_env,
            # SIGTERM, not SIGKILL, when the harness is killed: dockerd then stops the containers
            # of the run (--isolation container) before it goes
            preexec_fn=launcher.preexec(death_signal=signal.SIGTERM),
        )
    deadline = time.monotonic() + DAEMON_READY_S
    while not _answering(env):
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            tail = " | ".join(log.read_text(errors="replace").strip().splitlines()[-3:])
            raise EngineError(f"container engine docker: {kind} did not start ({log}): {tail[-400:]}")
        time.sleep(0.3)
    return process


def _wait_for_other_users(users, kind: str) -> None:
    """Until this process is the daemon's only user (an exclusive lock on the users file)."""
    told = False
    while True:
        try:
            fcntl.flock(users, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if not told:
                print(f"uabench: waiting for another uabench that uses this {kind} before stopping it", file=sys.stderr)
                told = True
            time.sleep(1)


def stop(process: subprocess.Popen, bound_s: float = DAEMON_STOP_S) -> None:
    """SIGTERM (dockerd stops its containers and containerd), SIGKILL after `bound_s`."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(bound_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _exported(engine: Engine) -> contextlib.AbstractContextManager[None]:
    return launcher.environment({ENVIRONMENT: engine.name, **engine.env})


@contextlib.contextmanager
def _terminated_on_sigterm() -> Iterator[None]:
    """SIGTERM ends the command through the `finally`s that stop the daemon (Python's default
    would end it at once and leave the daemon to PR_SET_PDEATHSIG's SIGKILL)."""

    def end(signum, _frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, end)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def current() -> Engine:
    """The engine a parent uabench chose (UABENCH_ENGINE, DOCKER_HOST exported by `running`),
    for the checks it runs in pytest; podman when none was chosen, as before."""
    name = os.environ.get(ENVIRONMENT) or "podman"
    if name not in ENGINES:
        raise EngineError(f"{ENVIRONMENT}: unknown container engine '{name}' (one of {', '.join(ENGINES)})")
    if name == "podman":
        return Engine("podman", {"CONTAINERS_CONF": os.environ.get("CONTAINERS_CONF", str(CONTAINERS_CONF))}, "podman")
    host = os.environ.get("DOCKER_HOST")
    return Engine("docker", {"DOCKER_HOST": host} if host else {}, f"docker at {host or 'the default socket'}")
