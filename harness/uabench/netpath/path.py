"""A network path between a client and a server: two network namespaces joined by one veth
pair, shaped by a profile (netpath/profiles.py) with real tools only:

- bandwidth: a `tbf` qdisc on each side's veth (the kernel has no netem);
- loss: `iptables -m statistic --mode random` DROP on each side's INPUT from the veth;
- delay and jitter: toxiproxy (a TCP proxy) in the server's namespace. The client connects to
  the server's own address and port; an iptables REDIRECT in the server's namespace hands the
  connection to toxiproxy, which connects on to the server from inside the namespace (a local
  connection, not redirected). So every endpoint URL is the server's real one, and no SDK
  needs to know a proxy is there.

    with NetworkPath(profiles.load("3g")) as path:
        path.forward(port)         # before the client connects to path.server_address:port
        path.client_prefix()       # ["ip", "netns", "exec", "uabench-<pid>-<start>-n1c"]

Removed on exit from the block, at interpreter exit and on SIGTERM/SIGHUP (proc/cleanup.py:
the namespaces through netns's registry, toxiproxy as an adopted child that also dies with
the harness); a SIGKILLed harness leaves namespaces to the next invocation (engine/orphans.py:
their names carry the harness's pid and start time) and toxiproxy dies with it (PDEATHSIG).
The qdiscs and iptables rules live inside the namespaces and go with them."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field

from uabench import paths
from uabench.netpath.profiles import Profile
from uabench.proc import cleanup, launcher, netns

TOXIPROXY = paths.REPO / ".tools" / "toxiproxy"  # ci/network-tools builds it
API = "127.0.0.1:8474"  # toxiproxy's API, inside the server's namespace (its own loopback)
PROXY_PORT_OFFSET = 20000  # toxiproxy listens on the server's port ± this (a free port there)
READY_S = 10.0


class PathError(RuntimeError):
    pass


def unavailable() -> str | None:
    """Why this machine cannot build a path, or None."""
    why = netns.unavailable()
    if why:
        return why
    if not (TOXIPROXY / "server").exists():
        return f"toxiproxy is not built ({TOXIPROXY}/server; ci/network-tools builds it)"
    for tool in ("tc", "iptables"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            return f"{tool} is not installed"
    return None


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise PathError(f"{what}: {' '.join(command)}: {done.stderr.strip() or done.returncode}")
    return done.stdout


@dataclass(eq=False)
class NetworkPath:
    profile: Profile
    count: int = 1  # hosts of clients (engine/cells.run_cell): the client's namespace
    tag: int = 0
    client: str = ""  # namespace names
    server: str = ""
    owner: str = ""
    server_address: str = ""
    client_address: str = ""
    proxy: subprocess.Popen | None = None  # the toxiproxy server
    forwarded: dict[int, int] = field(default_factory=dict)  # server port -> proxy port

    def __post_init__(self) -> None:
        self.tag = self.tag or netns.next_tag()
        self.owner = netns.owner_token(launcher.harness_marker())
        self.client = f"{netns.HOST_PREFIX}{self.owner}-n{self.tag}c"
        self.server = f"{netns.HOST_PREFIX}{self.owner}-n{self.tag}s"

    # --- lifecycle --------------------------------------------------------------------------

    def __enter__(self) -> NetworkPath:
        return self.up()

    def __exit__(self, *_exc) -> None:
        left = self.down()
        if left:
            raise PathError(f"could not remove {', '.join(left)}")

    def up(self) -> NetworkPath:
        netns.remove_stale()
        netns.register(self)
        try:
            subnet = netns.free_subnet()
            self.server_address, self.client_address = str(subnet.network_address + 1), str(subnet.network_address + 2)
            for name in (self.client, self.server):
                _run(["ip", "netns", "add", name], "namespace")
            # created in the client's namespace, its peer in the server's: nothing of it in ours
            _run(
                ["ip", "-n", self.client, "link", "add", "eth0", "mtu", str(netns.MTU), "type", "veth"]
                + ["peer", "name", "eth0", "netns", self.server],
                "veth pair",
            )
            for name, address in ((self.client, self.client_address), (self.server, self.server_address)):
                _run(["ip", "-n", name, "link", "set", "lo", "up"], "loopback")
                _run(["ip", "-n", name, "addr", "add", f"{address}/{subnet.prefixlen}", "dev", "eth0"], "address")
                _run(["ip", "-n", name, "link", "set", "eth0", "up"], "veth up")
                # PubSub over the path: multicast leaves and arrives by the veth
                _run(["ip", "-n", name, "route", "add", "224.0.0.0/4", "dev", "eth0"], "multicast route")
            self._shape(self.client, self.profile.up_kbit)
            self._shape(self.server, self.profile.down_kbit)
            if self.profile.proxy:
                self._start_proxy()
        except Exception:
            self.down()
            raise
        return self

    def down(self) -> list[str]:
        """Stops toxiproxy and removes both namespaces (the veth pair, qdiscs and rules go with
        them); what could not be removed (nothing, normally)."""
        proxy = self.proxy
        if proxy is not None and proxy.poll() is None:
            try:
                os.killpg(proxy.pid, 9)
            except ProcessLookupError:
                pass
            proxy.wait(timeout=10)
        left = []
        present = netns.namespaces()
        for name in (self.client, self.server):
            if name in present:
                done = subprocess.run(["ip", "netns", "del", name], capture_output=True, text=True, timeout=30)
                if done.returncode != 0:
                    left.append(name)
        netns.unregister(self)
        return left

    # --- shaping ----------------------------------------------------------------------------

    def _shape(self, namespace: str, kbit: int | None) -> None:
        """Bandwidth of what `namespace` sends (tbf on its veth), loss of what it receives."""
        exec_ = ["ip", "netns", "exec", namespace]
        if kbit:
            # tbf's bucket must hold at least one MTU-sized packet and what the rate sends in a
            # timer tick (4 ms at HZ 250); its queue holds 200 ms at the rate, at least 64 kB
            rate_bytes = kbit * 1000 // 8
            burst = max(2 * netns.MTU, rate_bytes // 250)
            limit = max(64 * 1024, rate_bytes // 5)
            _run(
                [*exec_, "tc", "qdisc", "add", "dev", "eth0", "root", "tbf"]
                + ["rate", f"{kbit}kbit", "burst", str(burst), "limit", str(limit)],
                "tbf",
            )
        if self.profile.loss_percent:
            _run(
                [*exec_, "iptables", "-w", "-A", "INPUT", "-i", "eth0", "-m", "statistic", "--mode", "random"]
                + ["--probability", f"{self.profile.loss_percent / 100:.6f}", "-j", "DROP"],
                "loss",
            )

    def _start_proxy(self) -> None:
        command = [*self.server_prefix(), str(TOXIPROXY / "server"), "-host", API.split(":")[0], "-port"]
        command += [API.split(":")[1]]
        self.proxy = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=launcher.preexec(),
        )
        cleanup.adopt(self.proxy)
        deadline = time.monotonic() + READY_S
        while self._cli("list", check=False).returncode != 0:
            if self.proxy.poll() is not None or time.monotonic() > deadline:
                raise PathError(f"toxiproxy in {self.server} did not answer within {READY_S:g} s")
            time.sleep(0.05)

    def _cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [*self.server_prefix(), str(TOXIPROXY / "cli"), "--host", f"http://{API}", *args]
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        if check and done.returncode != 0:
            raise PathError(f"toxiproxy: {' '.join(args)}: {(done.stderr or done.stdout).strip()}")
        return done

    def forward(self, port: int) -> None:
        """The client's connections to the server's address and `port` go through toxiproxy
        with the profile's latency toxic on both directions. Nothing to do without a proxy."""
        if not self.profile.proxy or port in self.forwarded:
            return
        proxy_port = port + PROXY_PORT_OFFSET if port + PROXY_PORT_OFFSET < 65536 else port - PROXY_PORT_OFFSET
        name = f"p{port}"
        self._cli("create", "--listen", f"0.0.0.0:{proxy_port}", "--upstream", f"{self.server_address}:{port}", name)
        if self.profile.delay_ms or self.profile.jitter_ms:
            for direction in ("--upstream", "--downstream"):
                self._cli(
                    "toxic", "add", "--type", "latency", "--toxicName", f"latency{direction[2:]}", direction,
                    "--attribute", f"latency={self.profile.delay_ms}",
                    "--attribute", f"jitter={self.profile.jitter_ms}",
                    name,
                )  # fmt: skip
        _run(
            [*self.server_prefix(), "iptables", "-w", "-t", "nat", "-A", "PREROUTING", "-i", "eth0", "-p", "tcp"]
            + ["--dport", str(port), "-j", "REDIRECT", "--to-ports", str(proxy_port)],
            "redirect to toxiproxy",
        )
        self.forwarded[port] = proxy_port

    # --- a cut (resilience/incident.py) --------------------------------------------------------

    CUT_RULES = (("INPUT", "-i"), ("OUTPUT", "-o"))

    def cut(self) -> None:
        """Every packet between the namespaces dropped, both ways, at the server's side: the
        client sees silence (no reset, no ICMP), as on a pulled cable. Its rules live in the
        namespace and go with it."""
        for chain, direction in self.CUT_RULES:
            _run([*self.server_prefix(), "iptables", "-w", "-I", chain, direction, "eth0", "-j", "DROP"], "cut")

    def mend(self) -> None:
        """Removes the cut's rules."""
        for chain, direction in self.CUT_RULES:
            _run([*self.server_prefix(), "iptables", "-w", "-D", chain, direction, "eth0", "-j", "DROP"], "mend")

    # --- for the processes on it ------------------------------------------------------------

    def client_prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.client]

    def server_prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.server]

    # run_cell's hosts: the client processes all run in the client's namespace
    def prefix(self, _k: int) -> list[str]:
        return self.client_prefix()

    def ip_counters(self, _k: int) -> dict[str, int]:
        return self._snmp("Ip")

    def tcp_counters(self) -> dict[str, int]:
        """The client's TCP counters (RetransSegs: what loss cost)."""
        return self._snmp("Tcp")

    def _snmp(self, section: str) -> dict[str, int]:
        done = subprocess.run([*self.client_prefix(), "cat", "/proc/net/snmp"], capture_output=True, text=True)
        return netns.snmp(done.stdout, section)

    def summary(self) -> dict:
        return {
            "profile": self.profile.summary(),
            "client_namespace": self.client,
            "server_namespace": self.server,
            "server_address": self.server_address,
            "tools": {
                "delay": "toxiproxy v2.5.0 latency toxic" if self.profile.proxy else None,
                "bandwidth": "tbf" if (self.profile.up_kbit or self.profile.down_kbit) else None,
                "loss": "iptables statistic random" if self.profile.loss_percent else None,
            },
        }
