"""A benchmark session: one run in the store, its working directory and PKI, the servers
kept running per SDK, the CPU sets of servers and load generators; every cell stored the
moment it ends. Starting a session installs the cleanup of processes and namespaces."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from uabench import pki, rundir, targets
from uabench import plan as plan_module
from uabench.engine import budget, cells, schedule, warmup
from uabench.engine.cells import CellSpec, Measured, Outcome
from uabench.engine.warmup import SteadyRule, SteadyState
from uabench.plan import Plan
from uabench.proc import cleanup, host, launcher, pinning, sampling
from uabench.proc.sampling import INTERVAL_S, PerfStat
from uabench.results import provenance, spool
from uabench.results.store import REFUSED, Store, StoreError
from uabench.sdks import Sdk, every_version
from uabench.sdks import get as get_sdk
from uabench.targets.process import AdapterError, AdapterProcess

# The load every freshly started server is warmed up with before anything is measured on it
# (a ranking warms each server up with its own load as well).
REFERENCE_LOAD_LABEL = "reference load"
REFERENCE_LOAD = {
    "workload": "read",
    "nodes": [f"Signal_{i}" for i in range(100)],
    "nodes_per_request": 10,
    "in_flight": 8,
}


def _steady_reason(found: SteadyState, rule: SteadyRule) -> str:
    if found.failure:
        return f"a warm-up chunk failed: {found.failure}"
    held = len(found.throughputs) - (found.start or 0)
    if found.steady and found.rule == "no trend":
        return (
            f"steady after {found.seconds:.1f} s ({found.start} chunks, then {held} without a trend; "
            f"no run as long as the climb agreed within ±{rule.tolerance:.0%})"
        )
    if found.steady:
        return (
            f"steady after {found.seconds:.1f} s "
            f"({found.start} chunks, then {held} that agreed within ±{rule.tolerance:.0%})"
        )
    return (
        f"never steady within {rule.bound_s:g} s: {len(found.throughputs)} chunks, no run of them as "
        f"long as the climb before it agreed within ±{rule.tolerance:.0%} or was without a trend"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_sets() -> tuple[set[int] | None, set[int] | None]:
    """Server and load generator on different physical cores when there are at least two."""
    found = pinning.plan()
    return found.server, found.client


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
        return self.measured.stop()


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
class Session:
    """One benchmark run: its store row, working directory, PKI and running servers."""

    store: Store
    suite: str
    profile: str
    workdir: Path = field(default_factory=rundir.new)  # its own, also beside a run started in the same second
    run_id: int = 0
    servers: dict[str, Server] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    plan: Plan | None = None
    steady: SteadyRule = field(default_factory=SteadyRule)
    seed: int = field(default_factory=schedule.run_seed)
    # the run's key in the spool of its directory (results.spool), kept in its provenance
    spool_key: str = field(default_factory=spool.new_key)
    _spool_begun: bool = field(default=False, init=False, repr=False)
    _spool_failed: bool = field(default=False, init=False, repr=False)
    _store_refused: str | None = field(default=None, init=False, repr=False)  # the store's first error
    _lost: bool = field(default=False, init=False, repr=False)  # a cell neither spool nor store took

    def __post_init__(self) -> None:
        cleanup.install()  # from here on the run starts processes and namespaces
        # recorded with the run: the next invocation tells an abandoned run from a running one
        self.harness = launcher.mark_harness()
        self.pinning = pinning.plan()
        self.server_cpus, self.client_cpus = self.pinning.server, self.pinning.client
        # The harness itself (its samplers, perf stat, event readers) runs on a core of its own
        # where one is spare, else beside the load generator, never on the server's cores: what
        # it costs is then the same in every cell and never taken from the server that is
        # measured. (Threads and perf processes started later inherit it.)
        self._harness_cpus = os.sched_getaffinity(0)
        placed = self.pinning.harness or self.client_cpus
        if placed:
            os.sched_setaffinity(0, placed)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.pki = pki.make_pki(self.workdir / "pki")
        self.run_id = self.store.begin_run(self.suite, self.profile, self._provenance())
        self._spool(lambda _file: None)  # the run's record in its spool: when it began, also if it measures nothing

    def _provenance(self) -> dict:
        return provenance.collect(
            suite=self.suite,
            profile=self.profile,
            sdk_versions=self.versions,
            pinning={
                "server_cpus": sorted(self.server_cpus or []),
                "client_cpus": sorted(self.client_cpus or []),
                "harness_cpus": sorted(self.pinning.harness or self.client_cpus or self._harness_cpus),
                "harness": self.pinning.note,
                "sample_interval_s": INTERVAL_S,
            },
            # where each role ran: its machine, architecture, emulation, image digests, clock offset
            targets=targets.current().provenance(),
            perf=PerfStat.available(),
            resources=sampling.accounting(),
            workdir=str(self.workdir),
            spool_key=self.spool_key,
            harness={"marker": self.harness, "pid": os.getpid()},
            plan=self._plan_summary(),
            schedule={
                "seed": self.seed,
                "order": "every block measures each compared item once, shuffled per block from the seed",
                "target_half_width": schedule.TARGET_HALF_WIDTH,
                "time_budget_s": budget.run_budget(),  # uabench run --time-budget: None without
                "host_threshold_percent": host.DISTURBED_PERCENT,
                "steady_state": self.steady.summary(),
            },
            sdks={
                sdk.id: {
                    "language": sdk.language,
                    "version": sdk.version,
                    "roles": list(sdk.roles),
                    "workloads": list(sdk.workloads),
                    "policies": list(sdk.policies),
                    "modes": list(sdk.modes),
                    "not_supported": sdk.not_supported,
                }
                for sdk in every_version()  # the other versions a plan may measure too
            },
        )

    def _plan_summary(self) -> dict | None:
        """What the report needs to know of the plan, kept with the run."""
        if self.plan is None:
            return None
        return {
            "path": str(self.plan.path),
            "description": self.plan.description,
            "ranking": self.plan.ranking,
            # the client whose load ranks the servers; a second load generator's ranking is apart
            "load_generator": plan_module.reference_client(),
            "throughput": {
                v.name: {k: v.workload[k] for k in ("nodes_per_request", "in_flight") if k in v.workload}
                for v in self.plan.throughput
            },
            "phases": {kind: phase.summary() for kind, phase in self.plan.phases_run(self.profile).items()},
            "sweeps": {
                w.name: {"kind": w.kind, "stop": w.stop, "workload": w.workload["workload"]} for w in self.plan.sweeps
            },
            # what a suite's own kind of plan adds (plan.SuiteKind.provenance: the instructions suite's tolerance)
            **self.plan.provenance(),
        }

    # --- servers -----------------------------------------------------------------------

    def server_config(self, sdk: Sdk, *, identities: pki.Pki | None = None, **overrides) -> dict:
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

    def server(self, sdk: Sdk, warm: bool = True, **overrides) -> Server:
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
        reference = plan_module.reference_client()
        if warm and not running.warmed and reference is not None:
            self.steady_state(running, get_sdk(reference), REFERENCE_LOAD, REFERENCE_LOAD_LABEL)
        return running

    def fresh_server(self, sdk: Sdk, **overrides) -> Server:
        """A new process of `sdk`'s server with these overrides, not warmed up: one already
        running with them is stopped first (the footprint measures each point on its own)."""
        running = self.servers.get(f"{sdk.id}:{provenance.config_hash(overrides)}")
        if running is not None:
            self.stop_server(running)
        return self.server(sdk, warm=False, **overrides)

    def _start_server(self, sdk: Sdk, overrides: dict) -> Server:
        config = self.server_config(sdk, **overrides)
        process = AdapterProcess(
            sdk, "server", config, self.workdir, self.server_cpus, name=f"{sdk.id}-server-{config['port']}"
        )
        measured = Measured.start(process)
        try:
            ready = measured.wait_ready(process.ready_timeout_s)
        except AdapterError:
            measured.stop()
            raise
        ready_s = (process.arrived_ns["ready"] - process.started_ns) / 1e9
        return Server(sdk, config, measured, ready["endpoint"], dict(overrides), ready_s=ready_s)

    def steady_state(self, server: Server, client: Sdk, workload: dict, label: str) -> SteadyState | None:
        """Loads `server` with `workload` (verification off) in short unmeasured chunks until
        its throughput is steady (engine.warmup), at most `steady.bound_s`; once per server
        process and `label`. Every chunk is stored as a "warmup" cell, the verdict as a
        "steady-state" cell (status pass, never_steady or fail): the time to steady state is a
        figure of its own. None when this server was already warmed up for `label`."""
        if label in server.warmed:
            return None
        server.warmed.add(label)
        rule = self.steady
        load = {k: v for k, v in workload.items() if k not in ("security", "warmup_s", "duration_s")}
        chunk_load = {**load, "warmup_s": rule.chunk_warmup_s, "duration_s": rule.chunk_s, "verify": False}
        config = self.client_config(server, chunk_load, workload.get("security"))
        moved: list[int] = []

        def chunk(index: int) -> float | str:
            outcome = self.run_client(client, server, config)
            self.record("warmup", client, server.sdk, label, index, config, outcome, server.config, index)
            if outcome.status != "pass" or outcome.result is None:
                return outcome.reason or outcome.status
            moved.append(outcome.result["values"])
            return float(outcome.result["throughput"]["values_per_s"])

        found = warmup.warm_up(chunk, rule.bound_s, rule.tolerance, rule.run)
        self.add_cell(
            suite=self.suite,
            kind="steady-state",
            client=client.id,
            server=server.sdk.id,
            variant=label,
            parameter=None,
            repetition=0,
            status="fail" if found.failure else ("pass" if found.steady else "never_steady"),
            reason=_steady_reason(found, rule),
            config_hash=provenance.config_hash(config),
            client_config=config,
            server_config=server.config,
            result={
                "steady": found.steady,
                "seconds_to_steady": found.seconds,
                "warmup_s": found.elapsed_s,
                "chunks": len(found.throughputs),
                "steady_chunk": found.start,
                "steady_by": found.rule,
                "values_per_s": found.throughputs,
                "chunk_starts_s": found.starts_s,
                "values_before_steady": sum(moved[: found.start] if found.steady else moved),
                "rule": rule.summary(),
            },
        )
        return found

    def stop_server(self, running: Server) -> None:
        """Stops one server (one that crashed or hung, say): the next cell starts it afresh."""
        for key, server in list(self.servers.items()):
            if server is running:
                del self.servers[key]
        running.stop()

    def stop_servers(self) -> dict[str, tuple[int | None, float, bool]]:
        """Stops every server at once: each stop waits for its process to exit (a JVM or a
        Python server takes a second or more), and one after another they added seconds to
        every suite. Threads, because each stop is a wait on its own process."""
        servers = list(self.servers.values())
        with ThreadPoolExecutor(max_workers=max(1, len(servers))) as pool:
            stopped = list(pool.map(Server.stop, servers))
        self.servers.clear()
        return {server.sdk.id: outcome for server, outcome in zip(servers, stopped, strict=True)}

    # --- clients -----------------------------------------------------------------------

    def client_config(
        self, server: Server, workload: dict, security: dict | None = None, identity: pki.Identity | None = None
    ) -> dict:
        return self.client_config_for(server.endpoint, workload, security, identity)

    def client_config_for(
        self, endpoint: str, workload: dict, security: dict | None = None, identity: pki.Identity | None = None
    ) -> dict:
        """A client's config for `endpoint` (a server this session did not start itself: the
        instructions suite's server under valgrind)."""
        config = {"endpoint": endpoint, **workload}
        if security and security.get("policy", "None") != "None":
            identity = identity or self.pki.client
            config["security"] = {
                "certificate": str(identity.certificate),
                "private_key": str(identity.private_key),
                "application_uri": identity.application_uri,
                **security,
            }
        return config

    def run_client(self, client: Sdk, server: Server | None, config: dict, processes: int = 1) -> Outcome:
        """Run `processes` client processes at once (all on the load generator's CPUs) to
        completion against `server`, combine what they measured and judge it."""
        # what else the host did meanwhile: the server and the clients are the measured processes
        sampler = host.HostSampler([server.measured.process.pid] if server else []).start()
        try:
            outcome = cells.run_cell(
                client,
                "client",
                [config] * processes,
                self.workdir,
                self.client_cpus,
                peer=server.measured if server else None,
                started=sampler.watch,
            )
        finally:
            sampler.stop()
        if outcome.result:
            self.versions[client.id] = outcome.result.get("version", "?")
            outcome.result["host"] = sampler.window(outcome.result["start_ns"], outcome.result["end_ns"])
        return outcome

    def cell(
        self,
        spec: CellSpec,
        *,
        warm: bool = True,
        judge_host: bool = False,
        steady_label: str | None = None,
        retry_machine: bool = False,
    ) -> Outcome:
        """One measured and recorded client/server cell (`spec`), its server warmed up to steady
        state first unless `warm` is off: with the reference load, or with `steady_label` with this
        cell's own load (once per server process and label). What the client or server does not
        support is recorded as such without starting anything. With `judge_host`, a cell the
        host's other load disturbed (proc.host.disturbed) is recorded with status "disturbed" and
        its reason. With `retry_machine`, a cell that failed for the machine's sake
        (cells.machine_failure: no operation completed, a server not ready in time) is recorded as
        "disturbed" and run once more; the outcome of that second attempt names the first in
        `retried`."""
        kind, client, server, workload = spec.kind, spec.client, spec.server, spec.workload

        def recorded(outcome: Outcome, config: dict, server_config: dict | None = None) -> Outcome:
            if not (retry_machine and outcome.status == "fail" and cells.machine_failure(outcome.reason)):
                return self.record_cell(spec, config, outcome, server_config)
            first = outcome.reason
            outcome.status, outcome.reason = "disturbed", f"failed for the machine's sake, run once more: {first}"
            self.record_cell(spec, config, outcome, server_config)
            retry = self.cell(spec, warm=warm, judge_host=judge_host, steady_label=steady_label)
            retry.retried = first
            return retry

        security = workload.get("security") or {}
        policy, mode = security.get("policy", "None"), security.get("mode", "None")
        missing = (
            [client.reason_unsupported(workload["workload"])]
            if workload["workload"] not in client.workloads
            else [
                f"{sdk.id} does not offer {policy}/{mode}" for sdk in (client, server) if not sdk.offers(policy, mode)
            ]
            + [why for why in (server.cannot_send(workload),) if why]
            + [why for why in (_refused(kind, client, server, workload),) if why]
        )
        if missing:
            return recorded(Outcome("not_supported", missing[0]), workload)
        try:
            running = self.server(server, warm and steady_label is None, **(spec.server_overrides or {}))
        except AdapterError as error:
            return recorded(Outcome("fail", f"server did not start: {error}"), workload)
        if warm and steady_label is not None:
            self.steady_state(running, client, workload, steady_label)
        config = self.client_config(running, {k: v for k, v in workload.items() if k != "security"}, security)
        outcome = self.run_client(client, running, config, spec.processes)
        known = server.interop.get(workload["workload"])
        if outcome.status == "fail" and known and known.matches(client.id, outcome.reason or ""):
            # the server's declared behaviour (sdk.toml [interop]), not a fault of this run: no figure,
            # and said as such where the figures would be
            outcome.status = "not_supported"
            outcome.reason = f"known failure, on {server.id}'s behaviour: {known.why} ({outcome.reason})"
        disturbance = host.disturbed(outcome.result.get("host")) if outcome.result else None
        if judge_host and outcome.status == "pass" and disturbance:
            outcome.status, outcome.reason = "disturbed", disturbance
        return recorded(outcome, config, running.config)

    def record_cell(self, spec: CellSpec, config: dict, outcome: Outcome, server_config: dict | None = None) -> Outcome:
        """Stores the outcome of the cell `spec` with the client `config` it ran (Session.record)."""
        return self.record(
            spec.kind,
            spec.client,
            spec.server,
            spec.variant,
            spec.repetition,
            config,
            outcome,
            server_config,
            spec.parameter,
        )

    def record(
        self,
        kind: str,
        client: Sdk,
        server: Sdk,
        variant: str,
        repetition: int,
        config: dict,
        outcome: Outcome,
        server_config: dict | None = None,
        parameter: object = None,
    ) -> Outcome:
        """Stores one cell: `client` is the measured side (clients, subscribers), `server`
        the peer (server, publisher). A cell that did not pass once a stop signal arrived is
        the one the stop cut (its processes were killed by the signal, e.g. a server still
        starting): it is not stored, so the run keeps only what was measured before."""
        if cleanup.received() is not None and outcome.status != "pass":
            return outcome
        outcome.cell_id = self.add_cell(
            suite=self.suite,
            kind=kind,
            client=client.id,
            server=server.id,
            variant=variant,
            parameter=None if parameter is None else str(parameter),
            repetition=repetition,
            status=outcome.status,
            reason=outcome.reason,
            config_hash=provenance.config_hash(config),
            client_config=config,
            server_config=server_config,
            result=outcome.result,
            client_resources=outcome.client_resources,
            server_resources=outcome.server_resources,
            client_perf=outcome.client_perf,
            server_perf=outcome.server_perf,
            client_bound=outcome.client_bound,
        )
        return outcome

    @property
    def spool_file(self) -> spool.Spool:
        return spool.Spool(self.workdir / spool.NAME)

    def _spool(self, write: Callable[[spool.Spool], None]) -> None:
        """One record into the run's spool, its run record first. A spool that cannot be
        written is said once and the run goes on: the store still gets every cell."""
        try:
            if not self._spool_begun:
                self.spool_file.begin(self.spool_key, self.suite, self.profile, self._provenance())
                self._spool_begun = True
            write(self.spool_file)
        except spool.SpoolError as error:
            if not self._spool_failed:
                print(f"uabench: warning: {error}; cells go to the store only", file=sys.stderr)
            self._spool_failed = True

    def _refuse(self, error: StoreError) -> None:
        """The store refused a write of this run: said once, and from here on the run's cells go to
        its spool only (each store write could wait out a lock again); its end goes to both."""
        if self._store_refused is None:
            print(
                f"uabench: warning: {error}; the run's cells and end go to its spool {self.spool_file.path} "
                f"only (`uabench import {self.workdir}` loads it)",
                file=sys.stderr,
            )
            self._store_refused = str(error)

    @property
    def store_error(self) -> StoreError | None:
        """The one line for a store that refused this run's cells (or, after close, its end),
        naming the spool and the import; None when the store took everything."""
        if self._store_refused is None or self._spool_failed:
            return None
        return spool.refusal_of(self.workdir, self._store_refused)

    def add_cell(self, **cell) -> int | None:
        """Stores one cell of this run, first in the spool (on disk when it returns), then in
        the store; a stop signal waits until it is stored. None when the store did not take it
        (kept in the spool, and `uabench run` ends with the store's error and exit 2); a
        StoreError only when the spool could not be written either."""
        cell["created_ns"] = time.time_ns()  # part of its key: set once, the same in spool and store
        placement = targets.current()
        # a cell of an emulated target is never ranked with native ones (report, compare)
        cell["emulated"] = bool(cell.get("emulated")) or placement.emulated
        if isinstance(cell.get("result"), dict):
            cell["result"]["placement"] = {role: targets.label(role) for role in ("server", "client")}
            clock = getattr(placement.server, "clock", None)
            if placement.cross_host and clock:  # a delay across hosts includes the clocks' offset
                cell["result"]["placement"]["clock_offset_ns"] = clock["offset_ns"]
                cell["result"]["placement"]["clock_uncertainty_ns"] = clock["uncertainty_ns"]
        with cleanup.signals_deferred():
            self._spool(lambda file: file.cell(self.spool_key, cell))
            if self._store_refused is not None and not self._spool_failed:
                return None
            try:
                return self.store.add_cell(self.run_id, **cell)
            except StoreError as error:
                if self._spool_failed:
                    self._lost = True  # the cell is nowhere else: the run failed, and so does its test
                    raise
                self._refuse(error)
                return None

    def close(self, status: str = "finished") -> None:
        """Stores the run's end: `interrupted` when the harness received a stop signal (the
        cells measured before it are kept), `failed` when a measured cell was lost, else
        `status`. A store that refused the run's cells (or refuses its end) does not make this
        fail, which would be a Robot teardown failure: the spool's end keeps the status and the
        store's error, the store's copy is marked `failed` where it can be, and spool.refusal
        gives `uabench run` its line."""
        if cleanup.received() is not None:
            status = "interrupted"
        elif self._lost:
            status = "failed"  # measured cells are missing from it (neither spool nor store took them)
        self.stop_servers()
        os.sched_setaffinity(0, self._harness_cpus)
        ended = self._provenance()
        refused_before = self._store_refused is not None
        if not refused_before:
            try:
                self.store.update_provenance(self.run_id, ended)
                self.store.finish_run(self.run_id, status)
            except StoreError as error:
                if self._spool_failed:
                    raise  # nothing else has the run's end
                self._refuse(error)
        elif not self._spool_failed:
            try:  # the store's copy lacks cells: not a finished run there (an import ends it)
                self.store.update_provenance(self.run_id, {**ended, REFUSED: self._store_refused})
                self.store.finish_run(self.run_id, "failed")
            except StoreError:
                pass  # it stays running; the next invocation marks it abandoned, an import ends it
        self._spool(lambda file: file.end(self.spool_key, status, ended, self._store_refused))
        if self._store_refused is not None and not self._spool_failed:
            spool.refused(self.workdir, self._store_refused)


def _refused(kind: str, client: Sdk, server: Sdk, workload: dict) -> str | None:
    """A measurement `server` declares `client` never gets a session for (sdk.toml [interop],
    `refused`): not tried. An interop cell tries it all the same, so the claim is kept honest."""
    return None if kind == "interop" else server.refuses(client.id, workload["workload"])
