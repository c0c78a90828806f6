"""Targets: where a run places each adapter role.

A run places its server-side roles (server, publisher) on one target and its measured roles
(client, subscriber) on another (`uabench run --server-target … --client-target …`):

- `local`: a process on this machine (the default);
- `container`: the SDK's image through the container engine (containers/isolation.py), of this
  machine's architecture or, with `--arch`, of another one, emulated by binfmt/qemu-user;
- `ssh://[user@]host[:port]`: another machine (a Raspberry Pi) reached over SSH, running the
  SDK's image of `--arch` with podman there (targets/ssh.py); native when the machine's own
  architecture is `--arch`, emulated by its qemu-user otherwise;
- `vm`: an arm64 machine that qemu-system emulates here (targets/vm.py), then an SSH target: its
  own kernel counts its processes' memory, which qemu-user's cannot; its times are emulation's.

Every target starts the adapter so that its stdout is the contract's line protocol here,
samples it with the harness's own sampler (on a remote target: proc/agent.py, shipped there),
and reports its architecture, whether it is emulated, and its provenance (CPU, kernel, image
digests, for SSH the clocks' offset and the network path). Cells of a run with an emulated
target are marked emulated: the report shows them apart and never ranks them.

process.py is an adapter role's process on its target; remote.py the SSH side of a remote
host (its work directory, wrapper and launcher); ssh.py the SSH target itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # a remote target's answer; nothing of proc is needed to name the targets
    from uabench.proc.stacks import Stacks

KINDS = ("local", "container", "ssh", "vm")
SERVER_ROLES = ("server", "publisher")
CLIENT_ROLES = ("client", "subscriber", "capabilities")
LOOPBACK = "127.0.0.1"

# ssh://[user@]host[:port]; the host checked again by targets/remote.check_target before ssh sees it
SSH_URL = re.compile(r"ssh://(?P<target>(?:[^@/\s]+@)?(?:\[[^\]/\s]+\]|[^:/\s]+))(?::(?P<port>\d+))?/?")


class TargetError(Exception):
    """A target that cannot be used: one line saying why."""


@dataclass(frozen=True)
class Spec:
    """A target as the command line names it."""

    kind: str
    target: str = ""  # ssh: [user@]host
    port: int = 22

    def __str__(self) -> str:
        if self.kind != "ssh":
            return self.kind
        return f"ssh://{self.target}" + (f":{self.port}" if self.port != 22 else "")


def parse(text: str) -> Spec:
    """`local`, `container`, `vm` or `ssh://[user@]host[:port]`; TargetError otherwise."""
    if text in ("local", "container", "vm"):
        return Spec(text)
    found = SSH_URL.fullmatch(text)
    if found is None:
        raise TargetError(f"target {text!r} is not local, container, vm or ssh://[user@]host[:port]")
    target = found["target"].replace("[", "").replace("]", "") if "[" in found["target"] else found["target"]
    port = int(found["port"] or 22)
    if not 0 < port < 65536:
        raise TargetError(f"target {text!r}: port {port} is not between 1 and 65535")
    return Spec("ssh", target, port)


class Target(Protocol):
    """What the engine asks of a placed target (containers/isolation.Containers, ssh.SshTarget)."""

    @property
    def kind(self) -> str: ...  # container | ssh

    @property
    def arch(self) -> str: ...

    @property
    def emulated(self) -> bool: ...

    @property
    def address(self) -> str: ...  # where its servers listen, as the other target reaches them

    @property
    def ready_timeout_s(self) -> float: ...

    def provenance(self) -> dict: ...


class RemoteTarget(Target, Protocol):
    """What an adapter process asks of a target on another machine (ssh.SshTarget)."""

    @property
    def spec(self) -> Spec: ...

    def command(self, sdk: str, arguments: list[str]) -> list[str]: ...

    def role_name(self, launcher_pid: int) -> str: ...

    def signal(self, role: str, sig: int) -> None: ...

    def stacks(self, role: str) -> Stacks: ...

    @property
    def offset_ns(self) -> int: ...  # its clock − this machine's


@dataclass(frozen=True)
class Placement:
    """The target of the server-side roles and of the measured roles (None: local)."""

    server: Target | None = None
    client: Target | None = None

    def for_role(self, role: str) -> Target | None:
        return self.server if role in SERVER_ROLES else self.client

    @property
    def emulated(self) -> bool:
        return any(t is not None and t.emulated for t in (self.server, self.client))

    @property
    def cross_host(self) -> bool:
        """Server and clients on different machines (an SSH target on one side only)."""
        return _on_ssh(self.server) != _on_ssh(self.client)

    def provenance(self) -> dict:
        return {role: _provenance(getattr(self, role)) for role in ("server", "client")}

    def clients_beside_servers(self) -> Placement:
        """The measured roles on the servers' target too: what a client needs there (its memory on
        a board) is measured there, against a server of the same machine."""
        return Placement(self.server, self.server)


def _on_ssh(target: Target | None) -> bool:
    return getattr(target, "kind", "local") == "ssh"


def _provenance(target: Target | None) -> dict:
    return target.provenance() if target is not None else {"kind": "local"}


_current = Placement()


def use(placement: Placement | None) -> None:
    """Every adapter process started from now on is placed by `placement` (None: all local)."""
    global _current
    _current = placement or Placement()


def current() -> Placement:
    return _current


@contextmanager
def placed(placement: Placement) -> Iterator[None]:
    """Every adapter process started inside is placed by `placement`; the run's placement after."""
    before = _current
    use(placement)
    try:
        yield
    finally:
        use(before)


def for_role(role: str) -> Target | None:
    return _current.for_role(role)


def elsewhere(role: str) -> bool:
    """Whether `role`'s adapters run on another machine (an SSH target: a board or the VM)."""
    return _on_ssh(_current.for_role(role))


def address(role: str) -> str:
    """Where an adapter of `role` listens or sends from: loopback, or its remote host's address."""
    target = _current.for_role(role)
    return target.address if target is not None else LOOPBACK


def local_address_toward(role: str) -> str:
    """This machine's address on the path to `role`'s target (its route's source), else loopback."""
    target = _current.for_role(role)
    source = getattr(target, "network", {}).get("src") if target is not None else None
    return str(source) if source else LOOPBACK


def label(role: str) -> str:
    """The cell's words for where `role` ran: 'local', 'container amd64', 'ssh://pi@pi arm64 (emulated)'."""
    target = _current.for_role(role)
    if target is None:
        return "local"
    return f"{target.provenance().get('name', target.kind)} {target.arch}" + (" (emulated)" if target.emulated else "")
