"""A VM target (`--server-target vm --arch arm64`): an arm64 Debian machine that qemu-system-aarch64
emulates here, reached over SSH as a board is (targets/ssh.py).

Why: a server's memory on ARM. Under qemu-user (`--server-target container --arch arm64`) the
kernel counts qemu's pages, its translation cache included, not the server's; in a whole emulated
machine its own arm64 kernel counts the arm64 server's pages, as a Raspberry Pi's kernel would. Its
times and rates are software emulation's, not any ARM CPU's: a run with it is marked emulated (shown
apart, never ranked), and its report says which of its figures carry over.

Booting (`booted`):

1. a work directory /var/tmp/uabench-vm-<harness>-<tag> (left by a killed harness, the next one
   removes it): a copy-on-write overlay of the disk ci/arm-vm/make-disk built (.cache/arm-vm), so a
   run never changes the disk, a fresh client key, and known_hosts with the disk's host key;
2. qemu on a tap link it creates and that goes with it (non-persistent: no link, address or route
   outlives qemu), a /30 of 10.214.x.0 between this machine and the VM only. The VM's address and
   the client's public key reach it on the kernel command line (ci/arm-vm/make-disk's unit sets
   them before sshd starts);
3. sshd answering, within BOOT_TIMEOUT_S.

qemu dies with the harness (PR_SET_PDEATHSIG) and is adopted by proc/cleanup, so Ctrl-C or a killed
harness leaves neither it nor its link behind; closing kills it and removes the work directory.
"""

from __future__ import annotations

import base64
import os
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from uabench import paths
from uabench.containers import engine as engines
from uabench.proc import cleanup, launcher, netns
from uabench.targets import TargetError
from uabench.targets.remote import RemoteHost

ARCHES = ("arm64",)  # the disk's: Debian's arm64 kernel and packages
DISK_DIR_ENV = "UABENCH_ARM_VM_DIR"
WORK_ROOT = Path("/var/tmp")  # the overlay grows by the images loaded into it: not a tmpfs
WORK_PREFIX = "uabench-vm-"
QEMU = "qemu-system-aarch64"
# What the VM is: a Raspberry Pi 4's CPU core (Cortex-A72) and memory (4 GiB), on this machine's
# two cores (a Pi 4 has four: `smp` cannot exceed the cores that emulate them without measuring
# their contention instead).
MACHINE: dict[str, str] = {"machine": "virt", "cpu": "cortex-a72", "smp": "2", "memory_mib": "4096"}
BOOT_TIMEOUT_S = 600.0  # a Debian boot under software emulation: about a minute here, slower when loaded
STOP_TIMEOUT_S = 10.0
SUBNET = "10.214"  # the namespace Pi's are 10.213 (checks/fixtures/pi_namespace.py)


def disk_dir() -> Path:
    return Path(os.environ.get(DISK_DIR_ENV) or paths.REPO / ".cache" / "arm-vm")


def available(arch: str) -> str | None:
    """None if a VM of `arch` can boot here, else why not (one line)."""
    if arch not in ARCHES:
        return f"--arch {arch}: the VM target boots {', '.join(ARCHES)} only (Debian's arm64 kernel and disk)"
    if os.geteuid() != 0:
        return "needs root (its tap link)"
    if shutil.which(QEMU) is None:
        return f"{QEMU} is not installed (apt: qemu-system-arm; ci/arm-vm/make-disk installs it)"
    missing = [
        name for name in ("disk.raw", "vmlinuz", "initrd.img", "host_ed25519.pub") if not (disk_dir() / name).is_file()
    ]
    if missing:
        return f"no VM disk in {disk_dir()} ({', '.join(missing)} missing): build it with ci/arm-vm/make-disk"
    return None


@dataclass(frozen=True)
class Booted:
    host: RemoteHost  # root@address, with the run's key and known_hosts
    about: dict  # what the VM is, for the run's provenance

    @property
    def address(self) -> str:
        return self.host.address


def remove_stale() -> None:
    """Work directories of harnesses that have ended (a killed one cannot remove its own)."""
    for stale in WORK_ROOT.glob(f"{WORK_PREFIX}*"):
        token = stale.name.removeprefix(WORK_PREFIX).rpartition("-")[0]
        if token and netns.owner_gone(token):
            shutil.rmtree(stale, ignore_errors=True)


def _run(*command: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise TargetError(f"vm: {' '.join(command[:3])}: {(done.stderr or done.stdout).strip()[-300:]}")
    return done.stdout


def qemu_command(disk: Path, work: Path, tap: str, address: str, public_key: str) -> list[str]:
    """The qemu command line of one boot (no display, no monitor; the console to a file)."""
    key = base64.b64encode(public_key.strip().encode()).decode()
    kernel_line = f"root=/dev/vda rw console=ttyAMA0 uabench.key={key} uabench.address={address}/30"
    return [
        QEMU,
        *("-M", MACHINE["machine"], "-cpu", MACHINE["cpu"], "-smp", MACHINE["smp"]),
        *("-m", MACHINE["memory_mib"], "-accel", "tcg,thread=multi"),
        *("-kernel", str(disk / "vmlinuz"), "-initrd", str(disk / "initrd.img"), "-append", kernel_line),
        *("-drive", f"file={work / 'overlay.qcow2'},if=none,id=disk,format=qcow2"),
        *("-device", "virtio-blk-pci,drive=disk"),
        *(
            "-netdev",
            f"tap,id=net,ifname={tap},script=no,downscript=no",
            "-device",
            "virtio-net-pci,netdev=net,romfile=",
        ),
        *("-display", "none", "-monitor", "none", "-serial", f"file:{work / 'console.log'}", "-no-reboot"),
    ]


def _version() -> str:
    done = subprocess.run([QEMU, "--version"], capture_output=True, text=True)
    return done.stdout.splitlines()[0] if done.returncode == 0 and done.stdout else ""


def _wait_for_link(qemu: subprocess.Popen, tap: str, work: Path) -> None:
    deadline = time.monotonic() + 30
    while not Path(f"/sys/class/net/{tap}").exists():
        if qemu.poll() is not None or time.monotonic() > deadline:
            raise TargetError(f"vm: qemu made no link {tap}: {_tail(work / 'qemu.log')}")
        time.sleep(0.1)


def _wait_for_ssh(qemu: subprocess.Popen, host: RemoteHost, work: Path, say: Callable[[str], None]) -> float:
    started = time.monotonic()
    said = started
    while True:
        probe = subprocess.run([*host.ssh_base(), "true"], capture_output=True, text=True, timeout=60)
        if probe.returncode == 0:
            return time.monotonic() - started
        if qemu.poll() is not None:
            raise TargetError(
                f"vm: qemu ended ({qemu.returncode}) before sshd answered: {_tail(work / 'qemu.log')} "
                f"console: {_tail(work / 'console.log')}"
            )
        if time.monotonic() - started > BOOT_TIMEOUT_S:
            raise TargetError(
                f"vm: sshd did not answer within {BOOT_TIMEOUT_S:.0f} s: {probe.stderr.strip()[-200:]} "
                f"console: {_tail(work / 'console.log')}"
            )
        if time.monotonic() - said > 30:
            said = time.monotonic()
            say(f"vm: booting ({said - started:.0f} s)")
        time.sleep(2)


def _tail(path: Path) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-6:])
    except OSError:
        return "(nothing)"


@contextmanager
def booted(arch: str, say: Callable[[str], None]) -> Iterator[Booted]:
    """The VM booted and answering SSH as root (see the module's docstring); gone afterwards."""
    why = available(arch)
    if why:
        raise TargetError(f"--server-target vm: {why}")
    remove_stale()
    disk = disk_dir()
    tag = secrets.token_hex(2)
    work = WORK_ROOT / f"{WORK_PREFIX}{netns.owner_token(launcher.harness_marker())}-{tag}"
    work.mkdir(mode=0o700)
    octet = 64 + secrets.randbelow(128)
    local, address = f"{SUBNET}.{octet}.1", f"{SUBNET}.{octet}.2"
    tap = f"uavm{tag}"
    qemu: subprocess.Popen | None = None
    try:
        _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "uabench-vm", "-f", str(work / "client_key"))
        host_key = (disk / "host_ed25519.pub").read_text().split()
        (work / "known_hosts").write_text(f"{address} {host_key[0]} {host_key[1]}\n")
        _run(
            "qemu-img",
            "create",
            "-q",
            "-f",
            "qcow2",
            "-F",
            "raw",
            "-b",
            str(disk / "disk.raw"),
            str(work / "overlay.qcow2"),
        )
        command = qemu_command(disk, work, tap, address, (work / "client_key.pub").read_text())
        with (work / "qemu.log").open("w") as log:
            qemu = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                preexec_fn=launcher.preexec(death_signal=signal.SIGKILL),
            )
        cleanup.adopt(qemu)
        _wait_for_link(qemu, tap, work)
        _run("ip", "addr", "add", f"{local}/30", "dev", tap)
        _run("ip", "link", "set", tap, "up")
        host = RemoteHost(f"root@{address}", 22, str(work / "client_key"), str(work / "known_hosts"))
        say(f"vm: {QEMU} ({', '.join(f'{k} {v}' for k, v in MACHINE.items())}) on {tap}, {address}")
        boot_s = _wait_for_ssh(qemu, host, work, say)
        say(f"vm: sshd answered {boot_s:.0f} s after qemu started")
        manifest = (disk / "manifest.txt").read_text() if (disk / "manifest.txt").is_file() else ""
        yield Booted(
            host,
            {
                "emulator": _version(),
                "accelerator": "tcg (software emulation)",
                **MACHINE,
                "boot_s": round(boot_s, 1),
                "disk": manifest.strip().splitlines(),
            },
        )
    finally:
        if qemu is not None:
            engines.stop(qemu, STOP_TIMEOUT_S)
        shutil.rmtree(work, ignore_errors=True)
