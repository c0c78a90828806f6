"""An SSH target: another machine (a Raspberry Pi) that runs the server-side roles of a run.

Connecting (`connect`):

1. one ssh ControlMaster connection, which every later ssh and scp of the run rides (a role's
   start, its config upload, a pause, a sample fetch take milliseconds, not a handshake each);
2. a work directory made by `mktemp -d` there (targets/remote.py), the remote wrapper and the
   harness's sampler (proc/agent.py with the files it imports) put into it;
3. the target's facts (machine, CPU model, cores, kernel, perf) from the agent, and the offset of
   its clock from this one: the exchange of least round trip out of CLOCK_EXCHANGES over the
   open connection, offset = remote − midpoint, uncertain by half that round trip;
4. each SDK's image of `--arch` built here from this checkout and loaded into the target's
   podman (`save | ssh podman load`), skipped when the target already holds that image ID.

A role then starts through a local launcher (targets/remote.write_launcher): the adapter's stdout
comes back over ssh as the contract's line protocol; the wrapper there starts the agent on the
adapter's pid. Samples and perf counters are read back per measured window and moved onto this
machine's clock by the measured offset (RemoteSampler, RemotePerfStat). SIGSTOP and SIGCONT
(pausing a server while another is measured) go to the remote adapter itself.

Closing stops whatever still runs from the work directory, removes it (keys, configs, samples),
and ends the master connection."""

from __future__ import annotations

import io
import json
import os
import secrets
import shlex
import signal
import subprocess
import tarfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from uabench import paths
from uabench.containers import engine as engines
from uabench.containers import images
from uabench.containers.isolation import Image
from uabench.proc import agent, cleanup, launcher
from uabench.proc import stacks as thread_stacks
from uabench.proc.sampling import PerfStat, ProcessSampler, perf_window, switch
from uabench.targets import Spec, TargetError
from uabench.targets import remote as remote_module
from uabench.targets.remote import RemoteError, RemoteHost

CLOCK_EXCHANGES = 32
# A JVM or Node under the target's qemu (or on a Pi Zero) takes minutes to get ready.
EMULATED_READY_TIMEOUT_S = 300.0
NATIVE_READY_TIMEOUT_S = 120.0
MASTER_TIMEOUT_S = 20.0
MASTER_STOP_S = 5.0


@dataclass
class SshTarget:
    spec: Spec
    host: RemoteHost  # with its work directory and the master's socket
    target_arch: images.Arch  # the images' architecture
    facts: dict
    clock: dict  # offset_ns (remote − local), uncertainty_ns, rtt_ns
    network: dict
    images: dict[str, Image] = field(default_factory=dict)
    launchers: dict[str, Path] = field(default_factory=dict)
    # a machine emulated whole (targets/vm.py): what it is; its times are emulation's
    vm: dict = field(default_factory=dict)
    kind: str = "ssh"

    @property
    def arch(self) -> str:
        return self.target_arch.name

    @property
    def emulated(self) -> bool:
        if self.vm:
            return True  # its CPU is qemu-system's translation of arm64, whatever `machine` says
        try:
            return images.arch(self.facts.get("machine", "")).name != self.target_arch.name
        except ValueError:
            return True  # a machine of no known architecture runs nothing of ours natively

    @property
    def emulation(self) -> str | None:
        """What emulates it: qemu-system (the whole machine), qemu-user (the images' binaries on
        another architecture's machine), or None (native)."""
        if self.vm:
            return "qemu-system"
        return "qemu-user" if self.emulated else None

    @property
    def address(self) -> str:
        """The target's IP address on the path from here (what its servers bind and clients
        reach): the name ssh was given may be an alias of ssh_config or an mDNS name."""
        return str(self.network.get("address") or self.host.address)

    @property
    def ready_timeout_s(self) -> float:
        return EMULATED_READY_TIMEOUT_S if self.emulated else NATIVE_READY_TIMEOUT_S

    @property
    def offset_ns(self) -> int:
        return int(self.clock["offset_ns"])

    def command(self, sdk: str, arguments: list[str]) -> list[str]:
        try:
            return [str(self.launchers[sdk]), *arguments]
        except KeyError:
            raise TargetError(f"{sdk}: no image was deployed to {self.spec} for this run") from None

    @staticmethod
    def role_name(launcher_pid: int) -> str:
        """The role's name on the target: targets/remote.launch names it after its own pid, and the
        launcher script execs it."""
        return f"role-{launcher_pid}"

    def signal(self, role: str, sig: int) -> None:
        """`sig` to the adapter of `role` there (the process the agent samples)."""
        workdir = shlex.quote(self.host.workdir)
        self.host.ssh(
            f"p=$(cat {workdir}/{role}.adapter.pid 2>/dev/null || cat {workdir}/{role}.pid 2>/dev/null); "
            f'[ -n "$p" ] && kill -{int(sig)} "$p" 2>/dev/null; true',
            check=False,
            timeout=20,
        )

    def stacks(self, role: str) -> thread_stacks.Stacks:
        """How deep the thread stacks of `role`'s adapter there have been: the agent reads that
        machine's /proc as proc/stacks.py reads this one's (StackError when it cannot)."""
        pidfile = f"{self.host.workdir}/{role}.adapter.pid"
        done = self.host.ssh(_agent(self.host, "stacks", pidfile), check=False, timeout=60)
        return stacks_from_agent(
            done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
        )

    def kill(self, role: str) -> None:
        workdir = shlex.quote(self.host.workdir)
        self.host.ssh(
            f"for f in {workdir}/{role}.pid {workdir}/{role}.adapter.pid {workdir}/{role}.agent.pid; do "
            'p=$(cat "$f" 2>/dev/null) && kill -KILL "$p" 2>/dev/null; done; true',
            check=False,
            timeout=20,
        )

    def read_from(self, remote: str, offset: int) -> bytes:
        """The bytes of remote file `remote` from `offset` on (b'' when it is not there yet)."""
        done = self.host.ssh(f"tail -c +{offset + 1} {shlex.quote(remote)} 2>/dev/null; true", check=False, timeout=30)
        return done.stdout

    def provenance(self) -> dict:
        return {
            "kind": "ssh",
            # a VM's address is new each boot: its runs are one place's ("vm")
            "name": "vm" if self.vm else str(self.spec),
            "arch": self.arch,
            "emulated": self.emulated,
            "emulation": self.emulation,
            "machine": self.facts,
            "clock": self.clock,
            "network": self.network,
            "engine": "podman",
            **({"vm": self.vm} if self.vm else {}),
            "images": {
                sdk: {"image": image.name, "digest": image.digest, "size_bytes": image.size_bytes}
                for sdk, image in sorted(self.images.items())
            },
        }


# --- the samplers: the agent's files, read back per window -------------------------------------


class RemoteSampler(ProcessSampler):
    """ProcessSampler whose samples are the agent's on the target, moved onto this clock."""

    def __init__(self, target: SshTarget, role: str) -> None:
        super().__init__(0)
        self.target, self.role = target, role
        self._read = 0
        self._partial = b""
        self.perf_started_ns: int | None = None

    @property
    def path(self) -> str:
        return f"{self.target.host.workdir}/{self.role}.samples.jsonl"

    def start(self) -> RemoteSampler:
        return self  # the remote wrapper starts the agent with the adapter

    def stop(self) -> None:
        pass

    def fetch(self) -> None:
        chunk = self.target.read_from(self.path, self._read)
        self._read += len(chunk)
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()  # an unfinished last line: read again next time
        for line in lines:
            if not line.strip():
                continue
            if b'"counter"' in line and b'"wall_ns"' not in line:  # the agent's first line
                header = json.loads(line)
                self.counter = header["counter"]
                started = header.get("perf_started_ns")
                self.perf_started_ns = None if started is None else int(started) - self.target.offset_ns
                continue
            sample, names = agent.sample_from_json(line.decode(), self.target.offset_ns)
            self.samples.append(sample)
            self.names.update(names)

    def window(self, start_ns: int, end_ns: int) -> dict | None:
        try:
            self.fetch()
        except (RemoteError, subprocess.TimeoutExpired, ValueError):
            return None
        return super().window(start_ns, end_ns) if self.samples else None


class RemotePerfStat(PerfStat):
    """PerfStat whose `perf stat -I` ran on the target beside the agent."""

    def __init__(self, sampler: RemoteSampler, local_copy: Path) -> None:
        super().__init__(0, local_copy)
        self.sampler = sampler
        self._read = 0

    def start(self) -> RemotePerfStat:
        return self

    def stop(self) -> None:
        pass

    def window(self, start_ns: int, end_ns: int) -> dict | None:
        if switch.overlaps(start_ns, end_ns):  # a window measured without sampling, as PerfStat's
            return None
        target = self.sampler.target
        try:
            self.sampler.fetch()  # its header says when perf began
            chunk = target.read_from(f"{target.host.workdir}/{self.sampler.role}.perf.csv", self._read)
        except (RemoteError, subprocess.TimeoutExpired, ValueError):
            return None
        self._read += len(chunk)
        with self.output.open("ab") as copy:
            copy.write(chunk)
        if self.sampler.perf_started_ns is None or not self.output.stat().st_size:
            return None
        return perf_window(self.output, self.sampler.perf_started_ns, start_ns, end_ns)


# --- connecting -----------------------------------------------------------------------------------


def _master(host: RemoteHost, control: str) -> subprocess.Popen:
    """The ControlMaster connection; it dies with the harness (PDEATHSIG) and with its cleanup."""
    options = [*remote_module.SSH_OPTIONS, "-p", str(host.port), *host._auth()]  # host has no control path yet
    command = ["ssh", "-M", "-N", "-o", f"ControlPath={control}", "-o", "ControlPersist=no", *options]
    master = subprocess.Popen(
        [*command, "--", host.target],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=launcher.preexec(death_signal=signal.SIGTERM),
    )
    cleanup.adopt(master)
    deadline = time.monotonic() + MASTER_TIMEOUT_S
    while not os.path.exists(control):
        if master.poll() is not None or time.monotonic() > deadline:
            engines.stop(master, MASTER_STOP_S)
            why = master.stderr.read().decode(errors="replace").strip() if master.stderr else ""
            raise TargetError(f"ssh://{host.target}:{host.port}: no connection: {why or 'timed out'}")
        time.sleep(0.05)
    return master


def _ship_agent(host: RemoteHost) -> None:
    """The agent and the modules it imports into the work directory's py/."""
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for relative in agent.SHIPPED:
            tar.add(paths.REPO / "harness" / relative, arcname=relative)
    py = shlex.quote(f"{host.workdir}/py")
    host.ssh(f"mkdir -p {py} && tar -xzf - -C {py}", input=archive.getvalue())


def _agent(host: RemoteHost, *args: str) -> str:
    py = shlex.quote(f"{host.workdir}/py")
    # the system's Python first: `apt install python3-psutil` puts psutil there, and a login's
    # PATH may put another Python (pyenv) before it
    python = '"$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)"'
    return f"PYTHONPATH={py} {python} -m uabench.proc.agent " + " ".join(shlex.quote(a) for a in args)


def stacks_from_agent(returncode: int, stdout: str, stderr: str) -> thread_stacks.Stacks:
    """The agent's `stacks` answer (its last line), or StackError with its reason."""
    lines = stdout.strip().splitlines()
    if returncode != 0 or not lines:
        raise thread_stacks.StackError(f"the agent read no stacks there (exit {returncode}): {stderr.strip()[-300:]}")
    try:
        raw = json.loads(lines[-1])
        if "error" in raw:
            raise thread_stacks.StackError(f"there: {raw['error']}")
        return thread_stacks.Stacks.from_fields(raw)
    except (ValueError, KeyError, TypeError) as error:
        raise thread_stacks.StackError(f"the agent's stacks answer is not one: {lines[-1][:200]!r} ({error})") from None


def _facts(host: RemoteHost) -> dict:
    done = host.ssh(_agent(host, "facts"), check=False, timeout=60)
    if done.returncode != 0:
        raise TargetError(
            f"ssh://{host.target}: the harness's sampler does not run there (it needs python3 >= 3.10 and "
            f"psutil: `apt install python3 python3-psutil`): {done.stderr.decode(errors='replace').strip()[-300:]}"
        )
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def measure_clock(host: RemoteHost, exchanges: int = CLOCK_EXCHANGES) -> dict:
    """The target's clock against this one over one open channel: the exchange of least round
    trip (the one least delayed either way) gives the offset, uncertain by half its round trip."""
    channel = subprocess.Popen(
        [*host.ssh_base(), _agent(host, "clock")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    assert channel.stdin and channel.stdout
    best: tuple[int, int] | None = None  # (round trip, offset)
    try:
        for _ in range(exchanges):
            sent = time.time_ns()
            channel.stdin.write(b"t\n")
            answer = channel.stdout.readline()
            received = time.time_ns()
            if not answer.strip():
                raise TargetError(f"ssh://{host.target}: the clock exchange ended early")
            rtt = received - sent
            offset = int(answer) - (sent + received) // 2
            if best is None or rtt < best[0]:
                best = (rtt, offset)
    finally:
        channel.stdin.close()
        try:
            channel.wait(timeout=10)
        except subprocess.TimeoutExpired:
            channel.kill()
            channel.wait()
    assert best is not None
    return {
        "offset_ns": best[1],
        "uncertainty_ns": best[0] // 2,
        "rtt_ns": best[0],
        "exchanges": exchanges,
        "how": "least round trip of the exchanges over one ssh channel; offset = remote − midpoint",
    }


def connection_addresses(host: RemoteHost) -> tuple[str, str]:
    """(this machine's, the target's) IP address of the ssh connection, as the target sees it
    (its SSH_CONNECTION): the addresses the run's traffic takes, whatever name ssh was given."""
    words = host.ssh('echo "$SSH_CONNECTION"', timeout=30).stdout.decode().split()
    if len(words) != 4:
        raise TargetError(f"ssh://{host.target}: SSH_CONNECTION is {' '.join(words)!r}, not 4 fields")
    return words[0], words[2]


def network_path(address: str, seen_from: str = "") -> dict:
    """How this machine reaches `address`: its route (interface, source address) and MTU, and the
    address the target saw this machine connect from."""
    route = subprocess.run(["ip", "-o", "route", "get", address], capture_output=True, text=True)
    words = route.stdout.split()
    found: dict[str, object] = {"address": address, "route": " ".join(words), "seen_from": seen_from}
    for key in ("dev", "src", "via"):
        if key in words and words.index(key) + 1 < len(words):
            found[key] = words[words.index(key) + 1]
    device = found.get("dev")
    if device:
        for name, key in (("mtu", "mtu"), ("speed", "speed_mbit")):
            try:
                found[key] = int(Path(f"/sys/class/net/{device}/{name}").read_text().strip())
            except (OSError, ValueError):
                pass
    return found


def _deploy_image(host: RemoteHost, image: Image, say: Callable[[str], None]) -> None:
    """The image into the target's podman, unless it holds that image ID already."""
    from uabench.containers.engine import EngineError

    held = host.ssh(
        f"podman image inspect --format '{{{{.Id}}}}' {shlex.quote(image.name)} 2>/dev/null; true",
        check=False,
        timeout=120,
    )
    if held.stdout.decode().strip().removeprefix("sha256:") == image.digest.removeprefix("sha256:"):
        say(f"  {image.sdk}: {image.name} is on the target already")
        return
    say(f"  {image.sdk}: loading {image.name} into the target's podman")
    try:
        with images.engine().saved(image.name) as stream:
            host.ssh("podman load -q", stdin=stream, timeout=1800)
    except EngineError as error:
        raise TargetError(f"{image.name} to ssh://{host.target}: {error}") from None


@contextmanager
def connect(
    spec: Spec,
    target_arch: images.Arch,
    sdk_ids: list[str],
    run_dir: Path,
    say: Callable[[str], None],
    identity: str | None = None,
    known_hosts: str | None = None,
    engine_env: list[str] | None = None,
    vm: dict | None = None,
) -> Iterator[SshTarget]:
    """The SSH target ready for the run (see the module's docstring), closed afterwards."""
    control = f"/tmp/uabench-ssh-{os.getpid()}-{secrets.token_hex(3)}"  # a socket path must be short
    try:
        host = RemoteHost(spec.target, spec.port, identity, known_hosts)
    except RemoteError as error:
        raise TargetError(str(error)) from None
    master = _master(host, control)
    host = RemoteHost(spec.target, spec.port, identity, known_hosts, control=control)
    try:
        with remote_module.work_directory(host, lambda line: say(f"target {line}")) as made:
            _ship_agent(made)
            facts = _facts(made)
            clock = measure_clock(made)
            local, remote = connection_addresses(made)
            target = SshTarget(spec, made, target_arch, facts, clock, network_path(remote, local), vm=vm or {})
            say(
                f"target {spec}: {facts.get('machine')} ({facts.get('cpu_model') or '?'}, {facts.get('cpus')} "
                f"cores, Linux {facts.get('kernel')}), images {target_arch.name}"
                + (f" emulated ({target.emulation})" if target.emulated else " native")
                + f"; clock offset {clock['offset_ns'] / 1e6:+.3f} ms ± {clock['uncertainty_ns'] / 1e6:.3f} ms"
            )
            for sdk in sdk_ids:
                name = images.image_name(sdk, target_arch)
                say(f"  {sdk}: building {name} (cached layers: seconds)")
                built = images.build(sdk, target_arch, run_dir / "images", fresh_inputs=True)
                if built.status != "built" or not built.digest:
                    raise TargetError(f"no image {name} for {spec}: {built.reason}")
                image = Image(sdk, name, built.digest, built.size_bytes)
                _deploy_image(made, image, say)
                target.images[sdk] = image
                run = remote_module._podman_run(made, name, ["--pull=never"], engine_env)
                target.launchers[sdk] = remote_module.write_launcher(run_dir / f"run-{sdk}-ssh", made, run)
            yield target
    except RemoteError as error:
        raise TargetError(f"{spec}: {error}") from None
    finally:
        engines.stop(master, MASTER_STOP_S)
