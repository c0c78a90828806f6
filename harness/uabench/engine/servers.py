"""The servers of a run: each SDK's server process kept running (paused while another one is
measured) per config, started with the run's PKI on the server cores, stopped together."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from uabench import targets
from uabench.engine.cells import Measured
from uabench.pki import Pki
from uabench.proc import cgroups
from uabench.results import provenance
from uabench.sdks import Sdk
from uabench.targets.process import AdapterError, AdapterProcess


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Server:
    sdk: Sdk
    config: dict
    measured: Measured
    endpoint: str
    overrides: dict = field(default_factory=dict)
    warmed: set[str] = field(default_factory=set)  # the loads it was warmed up to steady state with
    paused: bool = False
    ready_s: float | None = None  # from its process's start to its ready line (an SSH target's: its launch too)
    handicap: cgroups.CpuLimit | None = None  # engine.handicap: its CPU quota, removed when it stops

    @property
    def alive(self) -> bool:
        return self.measured.alive

    def death_reason(self) -> str:
        return self.measured.death_reason()

    def pause(self) -> None:
        """Stops its whole process group (SIGSTOP): it uses no CPU while another server is
        measured, and keeps its state (a JIT runtime's compiled code) for its next cell."""
        if not self.paused and self.alive:
            self.measured.process.signal(signal.SIGSTOP)
            _until_stopped(self.measured.process)
            self.paused = True

    def resume(self) -> None:
        if self.paused:
            self.measured.process.signal(signal.SIGCONT)
            self.paused = False

    def stop(self) -> tuple[int | None, float, bool]:
        self.resume()  # a stopped process would hold its SIGTERM until it is continued
        try:
            return self.measured.stop()
        finally:
            if self.handicap is not None:
                self.handicap.__exit__(None, None, None)
                self.handicap = None


# The longest a pause waits for SIGSTOP to take effect in every process of a server's group.
PAUSE_BOUND_S = 1.0


def _until_stopped(process: AdapterProcess, bound_s: float = PAUSE_BOUND_S) -> None:
    """Waits until every process of the group has stopped: SIGSTOP is delivered
    asynchronously, and a server still running when the next cell starts would share its
    cores (on a loaded host the delivery can take milliseconds). Bounded: a process that
    does not stop in time (a zombie, one in uninterruptible sleep) is left to the host
    interference check."""
    if process.popen is None or process.remote is not None:  # a remote adapter: not a process here
        return
    try:
        group = [psutil.Process(process.pid)]
        group += group[0].children(recursive=True)
    except psutil.NoSuchProcess:
        return
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        try:
            if all(p.status() in (psutil.STATUS_STOPPED, psutil.STATUS_ZOMBIE) for p in group):
                return
        except psutil.NoSuchProcess:
            return
        time.sleep(0.001)


@dataclass
class ServerPool:
    """The run's running servers, by SDK and config overrides. `warm` warms a freshly started
    server up (the Session's reference load) before its first cell."""

    workdir: Path
    pki: Pki
    cpus: set[int] | None
    warm: Callable[[Server], None] | None = None
    servers: dict[str, Server] = field(default_factory=dict)
    handicaps: dict[str, float] = field(default_factory=dict)  # engine.handicap: SDK -> share of its CPU

    def config(self, sdk: Sdk, *, identities: Pki | None = None, **overrides) -> dict:
        """`sdk`'s server config: the run's PKI, or `identities` (its server and trusted client)."""
        identities = identities or self.pki
        endpoints = [{"policy": "None", "mode": "None"}]
        endpoints += [
            {"policy": policy, "mode": mode}
            for policy in sdk.policies
            if policy != "None"
            for mode in ("Sign", "SignAndEncrypt")
            if sdk.offers(policy, mode)
        ]
        config = {
            "host": targets.address("server"),  # loopback, or the SSH target's address
            "port": free_port(),
            "signals": 1000,
            "update_interval_ms": 100,
            "writes": 100,
            "security": {
                "endpoints": endpoints,
                "certificate": str(identities.server.certificate),
                "private_key": str(identities.server.private_key),
                "application_uri": identities.server.application_uri,
                "trusted_certificates": [str(identities.client.certificate)],
            },
        }
        config.update(overrides)
        return config

    def get(self, sdk: Sdk, warm: bool = True, **overrides) -> Server:
        """The running server of `sdk` with these config overrides, started if it is not
        running; with `warm`, warmed up to steady state under the reference load (once).

        Only one server runs at a time: another server's update loop on the server cores
        would distort what this one measures. Servers of the default config stay alive but
        paused (SIGSTOP) while another one runs, so an interleaved schedule switches between
        them without losing a JIT runtime's warm-up; a server with overrides (a sweep point)
        is stopped when another one is needed."""
        key = f"{sdk.id}:{provenance.config_hash(overrides)}"
        running = self.servers.get(key)
        if running is not None and not running.alive:
            running.stop()
            del self.servers[key]
            running = None
        for other_key, other in list(self.servers.items()):
            if other_key == key:
                continue
            if other.overrides or not other.alive:
                self.servers.pop(other_key).stop()
            else:
                other.pause()
        if running is None:
            running = self._start_server(sdk, overrides)
            self.servers[key] = running
        running.resume()
        if warm and not running.warmed and self.warm is not None:
            self.warm(running)
        return running

    def fresh(self, sdk: Sdk, **overrides) -> Server:
        """A new process of `sdk`'s server with these overrides, not warmed up: one already
        running with them is stopped first (the footprint measures each point on its own)."""
        running = self.servers.get(f"{sdk.id}:{provenance.config_hash(overrides)}")
        if running is not None:
            self.stop(running)
        return self.get(sdk, warm=False, **overrides)

    def _start_server(self, sdk: Sdk, overrides: dict) -> Server:
        config = self.config(sdk, **overrides)
        process = AdapterProcess(
            sdk, "server", config, self.workdir, self.cpus, name=f"{sdk.id}-server-{config['port']}"
        )
        measured = Measured.start(process)
        limit = None
        try:
            limit = self._handicap(sdk, process.pid)
            ready = measured.wait_ready(process.ready_timeout_s)
        except (AdapterError, cgroups.CgroupError):
            measured.stop()
            if limit is not None:
                limit.__exit__(None, None, None)
            raise
        ready_s = (process.arrived_ns["ready"] - process.started_ns) / 1e9
        return Server(sdk, config, measured, ready["endpoint"], dict(overrides), ready_s=ready_s, handicap=limit)

    def _handicap(self, sdk: Sdk, pid: int) -> cgroups.CpuLimit | None:
        """`sdk`'s handicap, if it has one: its server process (the threads and processes it
        starts follow) in a cgroup whose quota is that share of the cores a server may use."""
        share = self.handicaps.get(sdk.id)
        if share is None:
            return None
        cores = len(self.cpus or os.sched_getaffinity(0))
        limit = cgroups.CpuLimit(share * cores).__enter__()
        try:
            limit.add(pid)
        except BaseException:
            limit.__exit__(None, None, None)
            raise
        return limit

    def stop(self, running: Server) -> None:
        """Stops one server (one that crashed or hung, say): the next cell starts it afresh."""
        for key, server in list(self.servers.items()):
            if server is running:
                del self.servers[key]
        running.stop()

    def stop_all(self) -> dict[str, tuple[int | None, float, bool]]:
        """Stops every server at once: each stop waits for its process to exit (a JVM or a
        Python server takes a second or more), and one after another they added seconds to
        every suite. Threads, because each stop is a wait on its own process."""
        servers = list(self.servers.values())
        with ThreadPoolExecutor(max_workers=max(1, len(servers))) as pool:
            stopped = list(pool.map(Server.stop, servers))
        self.servers.clear()
        return {server.sdk.id: outcome for server, outcome in zip(servers, stopped, strict=True)}
