"""One incident against one client-server pair, for real: the server is SIGKILLed and started
again on the same port (`restart`), or every packet of the network path between them is dropped
for a while (`cut`: the two in namespaces joined by a veth pair, netpath/path.py, iptables DROP
in the server's namespace). The client runs its workload with `reconnect` true (SPEC §3,
Connection loss) and gives its result record; recovery.py reads what happened from it.

The strike waits until the client is connected (its TCP connection established at the server's
port, seen by `ss` where the server runs), then its warm-up and `before_s` of load."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from uabench import plan as plans
from uabench.engine import cells
from uabench.engine.cells import Outcome
from uabench.netpath.path import NetworkPath
from uabench.netpath.profiles import Profile
from uabench.resilience.plan import ResilienceProfile
from uabench.resilience.recovery import Incident
from uabench.sdks import Sdk
from uabench.targets.process import AdapterError, AdapterProcess

TIMELINE_MS = 20  # the resolution of the resumption
WARMUP_S = 1.0
CONNECT_BOUND_S = 60.0  # a client (a JVM's start, a session's set-up) connects within this
DIRECT = Profile("direct", "two namespaces joined by a veth pair, nothing shaped: only the cut")


class IncidentError(RuntimeError):
    """The harness could not stage the incident (not the pair's failure)."""


@dataclass
class Staged:
    outcome: Outcome
    incident: Incident | None
    server_config: dict
    client_config: dict
    restart_failure: str | None = None  # the server could not be started again on its port


def client_load(workload: str, signals: int, duration_s: float, verify: bool) -> dict:
    """The client's config, less its endpoint: a closed-loop read of Tick and ten signals, or a
    subscription to Tick and every signal at 100 ms."""
    nodes = ["Tick", *plans.signals(min(signals, 10) if workload == "read" else signals)]
    load: dict = {
        "workload": workload,
        "nodes": nodes,
        "warmup_s": WARMUP_S,
        "duration_s": duration_s,
        "timeline_ms": TIMELINE_MS,
        "reconnect": True,
        "verify": verify,
    }
    if workload == "read":
        load["nodes_per_request"] = len(nodes)
    else:
        load.update(publishing_interval_ms=100, sampling_interval_ms=100, queue_size=1)
    return load


def phase_s(chosen: ResilienceProfile, kind: str) -> float:
    """The measured phase: the load before the strike, the outage, the watch after it (which
    also covers a restarted server's own start-up)."""
    return chosen.before_s + chosen.outage_s(kind) + chosen.after_s


def established(port: int, prefix: list[str]) -> bool:
    """Whether a TCP connection to `port` is established where the server runs."""
    done = subprocess.run(
        [*prefix, "ss", "-Htn", "state", "established", f"( sport = :{port} )"],
        capture_output=True,
        text=True,
        timeout=10,
    )
    return bool(done.stdout.strip())


def _start(server: Sdk, config: dict, session, prefix: list[str], name: str) -> tuple[AdapterProcess, str]:
    """The server started and ready: (its process, its endpoint)."""
    process = AdapterProcess(server, "server", config, session.workdir, session.server_cpus, name=name, prefix=prefix)
    process.start()
    try:
        ready = process.wait_event(("ready", "error"), process.ready_timeout_s)
    except AdapterError:
        process.stop()
        raise
    if ready["event"] == "error":
        process.stop()
        raise AdapterError(f"{server.id} server refused to start: {ready.get('kind')}: {ready.get('message')}")
    return process, ready["endpoint"]


@dataclass
class _Served:
    """The server side of a staged pair: its SDK, config and place (the command prefix entering
    its namespace), and the process serving now, which a restart replaces."""

    sdk: Sdk
    config: dict
    session: object
    prefix: list[str]
    running: AdapterProcess | None = None

    def start(self, suffix: str = "") -> str:
        """Starts the server (again), ready; its endpoint."""
        name = f"{self.sdk.id}-server-{self.config['port']}{suffix}"
        self.running, endpoint = _start(self.sdk, self.config, self.session, self.prefix, name)
        return endpoint

    def stop(self) -> None:
        if self.running is not None:
            self.running.stop()


@contextlib.contextmanager
def _place(kind: str) -> Iterator[NetworkPath | None]:
    if kind == "restart":
        yield None
        return
    with NetworkPath(DIRECT) as path:
        yield path


def stage(
    session, client: Sdk, server: Sdk, kind: str, workload: str, chosen: ResilienceProfile, signals: int
) -> Staged:
    """Runs the client's workload against a server of its own, strikes once, restores, and
    returns the client's outcome with the instants of the incident. A restart reads without
    verification: the restarted server's ticks begin again at 0, which SPEC §3's tick rules
    would take for values gone back in time; a cut verifies every value."""
    with _place(kind) as path:
        prefix = path.server_prefix() if path else []
        host = {"host": path.server_address} if path else {}
        served = _Served(server, session.pool.config(server, signals=signals, **host), session, prefix)
        endpoint = served.start()
        try:
            load = client_load(workload, signals, phase_s(chosen, kind), verify=kind == "cut")
            client_config = {"endpoint": endpoint, **load}
            with ThreadPoolExecutor(max_workers=1) as pool:
                measured = pool.submit(
                    cells.run_cell, client, "client", [client_config], session.workdir, session.client_cpus, hosts=path
                )
                incident, restart_failure = _strike(kind, measured, served, path, chosen)
                outcome = measured.result()
        finally:
            served.stop()
    return Staged(outcome, incident, served.config, client_config, restart_failure)


def _strike(
    kind: str, measured: Future, served: _Served, path: NetworkPath | None, chosen: ResilienceProfile
) -> tuple[Incident | None, str | None]:
    """Waits for the client's load, strikes, restores: (the incident, or None when the client
    never connected; why the server could not be restarted, or None)."""
    deadline = time.monotonic() + CONNECT_BOUND_S
    while not established(served.config["port"], served.prefix):
        if measured.done() or time.monotonic() > deadline:
            return None, None
        time.sleep(0.05)
    time.sleep(WARMUP_S + chosen.before_s)
    struck_ns = time.time_ns()
    failure = None
    if kind == "restart":
        assert served.running is not None
        served.running.signal(signal.SIGKILL)
        served.stop()  # reaps it (and anything left of its group)
        served.running = None
        time.sleep(chosen.outage_s(kind))
        try:
            served.start("-restarted")
        except AdapterError as error:
            failure = str(error)
    else:
        assert path is not None
        path.cut()
        time.sleep(chosen.outage_s(kind))
        path.mend()
    restored_ns = time.time_ns()
    return Incident(kind, struck_ns, restored_ns, chosen.outage_s(kind)), failure
