"""Hosts for measured processes: network namespaces, each with one veth link to a Linux
bridge in the harness's namespace (the PubSub subscriber-count sweep runs one subscriber per
namespace). Needs root and iproute2."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Protocol

from uabench.proc import launcher

HOST_PREFIX = "uabench-"  # then the owner's token (owner_token): uabench-1234-1700000000123-t1h0
BRIDGE_ALIAS = "uabench-hosts-"  # then the owner's token
NETWORK = ipaddress.IPv4Network("198.18.0.0/15")  # RFC 2544: reserved for benchmarking
MTU = 1500
_hosts_live: set[Removable] = set()  # Hosts, and netpath/path.py's NetworkPath
_hosts_lock = threading.Lock()


class HostsError(RuntimeError):
    pass


class Removable(Protocol):
    def down(self) -> list[str]: ...


def register(hosts: Removable) -> None:
    """Namespaces to remove at exit or on a stop signal (proc/cleanup.py) unless removed before."""
    with _hosts_lock:
        _hosts_live.add(hosts)


def unregister(hosts: Removable) -> None:
    with _hosts_lock:
        _hosts_live.discard(hosts)


def unavailable() -> str | None:
    """Why this machine cannot create hosts, or None."""
    if os.geteuid() != 0 or not shutil.which("ip"):
        return "network namespaces need root and iproute2"
    return None


def _ip(*args: str, namespace: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    command = ["ip", *(["-n", namespace] if namespace else []), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise HostsError(f"{' '.join(command)}: {done.stderr.strip() or done.returncode}")
    return done


def owner_token(marker: str) -> str:
    """The harness marker ('<pid>:<start time>', proc/launcher.py) as it appears in a namespace
    name: digits and one '-' ('1234-1700000000123'), so the name stays a plain word."""
    return marker.replace(":", "-").replace(".", "")


def owner_gone(token: str) -> bool:
    """Whether the harness that put `token` into a name has ended: its pid is free, or taken by
    a process that started at another time (a reused pid is not the owner)."""
    return not launcher.harness_running(token.partition("-")[0], lambda live: owner_token(live) == token)


def namespaces() -> list[str]:
    done = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30)
    return [line.split()[0] for line in done.stdout.splitlines() if line.strip()]


def bridges() -> list[str]:
    return list(_bridge_aliases())


def _bridge_aliases() -> dict[str, str]:
    """Every bridge and its alias ('' when it has none)."""
    done = subprocess.run(["ip", "-j", "link", "show", "type", "bridge"], capture_output=True, text=True, timeout=30)
    return {link["ifname"]: link.get("ifalias") or "" for link in json.loads(done.stdout or "[]")}


def stale() -> list[tuple[str, str]]:
    """The namespaces and bridges a harness that has ended left behind, as ("netns" | "bridge",
    name). Only what provably was a harness's: a namespace whose name, or a bridge whose alias
    (a bridge name has room for 15 characters only), carries the harness's pid and start time.
    A live concurrent run's hosts are never among them, nor anything named by hand."""
    found = []
    for name in namespaces():
        match = re.fullmatch(rf"{HOST_PREFIX}(\d+-\d+)-(?:t\d+h\d+|pi[0-9a-f]+|n\d+[cs])", name)  # hosts, a Pi, a path
        if match and owner_gone(match.group(1)):
            found.append(("netns", name))
    for name, alias in _bridge_aliases().items():
        match = re.fullmatch(rf"{BRIDGE_ALIAS}(\d+-\d+)", alias)
        if match and owner_gone(match.group(1)):
            found.append(("bridge", name))
    return found


def remove_stale() -> list[str]:
    """Removes the namespaces and bridges of stale() (the veth pairs go with the namespaces);
    the names removed."""
    removed = []
    for kind, name in stale():
        command = ["ip", "netns", "del", name] if kind == "netns" else ["ip", "link", "del", name]
        if subprocess.run(command, capture_output=True, timeout=30).returncode == 0:
            removed.append(name)
    return removed


@dataclass(eq=False)
class Hosts:
    """`count` hosts: network namespaces, each with one veth link (MTU 1500) to a bridge in
    the harness's namespace, which holds the bridge address. Multicast is flooded on the
    bridge (snooping off), and nothing is routed: the traffic stays on the bridge.

        with Hosts(4) as hosts:
            hosts.prefix(0)      # ["ip", "netns", "exec", "uabench-<pid>-<start>-t1h0"]
            hosts.address(0)     # 198.18.x.10
            hosts.bridge_address # 198.18.x.1 (the publisher's interface)

    Removed on exit from the block, at interpreter exit, and on SIGTERM/SIGHUP; a harness
    killed with SIGKILL leaves them to the next uabench invocation (engine/orphans.py)."""

    count: int
    tag: int = 0
    names: list[str] = field(default_factory=list)
    bridge: str = ""
    subnet: ipaddress.IPv4Network | None = None
    owner: str = ""

    def __post_init__(self) -> None:
        if not 1 <= self.count <= 200:
            raise HostsError(f"between 1 and 200 hosts, not {self.count}")
        pid = os.getpid()
        self.tag = self.tag or next_tag()
        self.owner = owner_token(launcher.harness_marker())
        self.bridge = f"ubr{pid}x{self.tag}"[:15]
        self.names = [f"{HOST_PREFIX}{self.owner}-t{self.tag}h{k}" for k in range(self.count)]

    # --- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> Hosts:
        return self.up()

    def __exit__(self, *_exc) -> None:
        self.down()

    def up(self) -> Hosts:
        remove_stale()
        register(self)
        try:
            self.subnet = free_subnet()
            _ip("link", "add", self.bridge, "type", "bridge", "mcast_snooping", "0")
            # `ip link add` takes no alias: set at once after (a SIGKILL in between leaves a
            # bridge no later harness can prove its own: it is left, not guessed at)
            _ip("link", "set", "dev", self.bridge, "alias", f"{BRIDGE_ALIAS}{self.owner}")
            _ip("addr", "add", f"{self.bridge_address}/{self.subnet.prefixlen}", "dev", self.bridge)
            _ip("link", "set", self.bridge, "mtu", str(MTU), "up")
            for k, name in enumerate(self.names):
                _ip("netns", "add", name)
                veth = f"uv{os.getpid()}x{self.tag}h{k}"[:15]
                _ip("link", "add", veth, "mtu", str(MTU), "type", "veth", "peer", "name", "eth0", "netns", name)
                _ip("link", "set", veth, "master", self.bridge, "up")
                _ip("link", "set", "lo", "up", namespace=name)
                _ip("addr", "add", f"{self.address(k)}/{self.subnet.prefixlen}", "dev", "eth0", namespace=name)
                _ip("link", "set", "eth0", "up", namespace=name)
        except Exception:
            self.down()
            raise
        return self

    def down(self) -> list[str]:
        """Removes every namespace and the bridge (the veth pairs go with the namespaces).
        Returns what could not be removed (nothing, normally)."""
        left = []
        for name in self.names:
            if name in namespaces():
                done = subprocess.run(["ip", "netns", "del", name], capture_output=True, text=True, timeout=30)
                if done.returncode != 0:
                    left.append(name)
        if self.bridge in bridges():
            done = subprocess.run(["ip", "link", "del", self.bridge], capture_output=True, text=True, timeout=30)
            if done.returncode != 0:
                left.append(self.bridge)
        unregister(self)
        return left

    # --- addresses --------------------------------------------------------------------------

    @property
    def bridge_address(self) -> str:
        assert self.subnet
        return str(self.subnet.network_address + 1)

    def address(self, k: int) -> str:
        assert self.subnet
        return str(self.subnet.network_address + 10 + k)

    def prefix(self, k: int) -> list[str]:
        return ["ip", "netns", "exec", self.names[k]]

    def ip_counters(self, k: int) -> dict[str, int]:
        """The IP reassembly counters of host k (/proc/net/snmp inside its namespace)."""
        done = subprocess.run([*self.prefix(k), "cat", "/proc/net/snmp"], capture_output=True, text=True, timeout=30)
        return snmp(done.stdout)


def snmp(text: str, section: str = "Ip") -> dict[str, int]:
    """One section ("Ip", "Tcp", ...) of /proc/net/snmp: its header line, then its values."""
    lines = [line.split() for line in text.splitlines() if line.startswith(f"{section}:")]
    if len(lines) < 2:
        return {}
    return {
        key: int(value) for key, value in zip(lines[0][1:], lines[1][1:], strict=False) if value.lstrip("-").isdigit()
    }


_tag_counter = 0


def next_tag() -> int:
    global _tag_counter
    with _hosts_lock:
        _tag_counter += 1
        return _tag_counter


def free_subnet() -> ipaddress.IPv4Network:
    done = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True, text=True, timeout=30)
    used = set()
    for line in done.stdout.splitlines():
        match = re.search(r"inet (\d+\.\d+\.\d+\.\d+)/(\d+)", line)
        if match:
            used.add(ipaddress.IPv4Interface(f"{match.group(1)}/{match.group(2)}").network)
    start = os.getpid() % 512
    candidates = list(NETWORK.subnets(new_prefix=24))
    for offset in range(len(candidates)):
        subnet = candidates[(start + offset) % len(candidates)]
        if not any(subnet.overlaps(other) for other in used):
            return subnet
    raise HostsError(f"no free /24 in {NETWORK}")


def remove_all_hosts() -> None:
    with _hosts_lock:
        live = list(_hosts_live)
    for hosts in live:
        hosts.down()
