"""The benchmark engine: servers kept running per SDK, one client process per measured
cell, resources sampled on both sides, every repetition stored the moment it ends."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from uabench_contract import Histogram

from uabench import paths, pki
from uabench import plan as plan_module
from uabench.plan import Plan
from uabench.proc import cleanup
from uabench.proc.process import READY_TIMEOUT_S, AdapterError, AdapterProcess
from uabench.proc.sampling import PerfStat, ProcessSampler
from uabench.results import provenance
from uabench.results.store import Store
from uabench.sdks import Sdk, all_sdks
from uabench.sdks import get as get_sdk

CLIENT_BOUND_PERCENT = 90.0
CLIENT_GRACE_S = 45.0  # start-up (a JVM), connect, drain in-flight requests, verification


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_sets() -> tuple[set[int] | None, set[int] | None]:
    """Server and load generator on different cores when there are at least two."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or os.environ.get("UABENCH_NO_PINNING") == "1":
        return None, None
    half = len(cpus) // 2
    return set(cpus[:half]), set(cpus[half:])


@dataclass
class Measured:
    """One adapter process while it runs: the process and its samplers."""
    process: AdapterProcess
    sampler: ProcessSampler
    perf: PerfStat

    @classmethod
    def start(cls, process: AdapterProcess) -> Measured:
        process.start()
        return cls(process, ProcessSampler(process.pid).start(),
                   PerfStat(process.pid, process.workdir / f"{process.name}.perf.csv").start())

    def window(self, start_ns: int, end_ns: int) -> tuple[dict | None, dict | None]:
        return self.sampler.window(start_ns, end_ns), self.perf.window(start_ns, end_ns)

    def stop(self) -> tuple[int | None, float, bool]:
        self.perf.stop()
        outcome = self.process.stop()
        self.sampler.stop()
        return outcome


@dataclass
class Server:
    sdk: Sdk
    config: dict
    measured: Measured
    endpoint: str

    @property
    def alive(self) -> bool:
        return self.measured.process.running()

    def death_reason(self) -> str:
        code = self.measured.process.popen.poll() if self.measured.process.popen else None
        return (f"{self.sdk.id} server exited with status {code} during the run"
                + self.measured.process.stderr_tail_text())


@dataclass
class CellOutcome:
    status: str  # pass | fail | not_supported
    reason: str | None = None
    result: dict | None = None
    client_resources: dict | None = None
    server_resources: dict | None = None
    client_perf: dict | None = None
    server_perf: dict | None = None
    client_bound: bool = False
    cell_id: int | None = None


HISTOGRAMS = ("latency_ns", "cycle_time_ns", "delay_ns", "session_setup_ns")


def combine_results(results: list[dict], overlap: bool = False) -> dict:
    """One record for several processes that measured side by side: counts, throughput and
    histograms add up. The measured window spans all of them, or with `overlap` only the
    time they all measured (subscribers of one publisher)."""
    if len(results) == 1:
        return results[0]
    combined = dict(results[0])
    first, last = (max, min) if overlap else (min, max)
    combined["start_ns"] = first(r["start_ns"] for r in results)
    combined["end_ns"] = last(r["end_ns"] for r in results)
    combined["processes"] = len(results)
    combined["operations"] = {k: sum(r["operations"][k] for r in results) for k in ("attempted", "succeeded", "failed")}
    combined["values"] = sum(r["values"] for r in results)
    combined["verification"] = {
        "checked": sum(r["verification"]["checked"] for r in results),
        "failed": sum(r["verification"]["failed"] for r in results),
        "examples": [x for r in results for x in r["verification"]["examples"]][:5]}
    combined["errors"] = {"examples": [x for r in results for x in r["errors"]["examples"]][:5]}
    combined["throughput"] = {k: sum(r["throughput"][k] for r in results) for k in ("ops_per_s", "values_per_s")}
    for key in HISTOGRAMS:
        if any(key in r for r in results):
            merged = Histogram()
            for r in results:
                merged.merge(Histogram(r.get(key, [])))
            combined[key] = merged.sparse()
    return combined


def combine_resources(windows: list[dict | None]) -> dict | None:
    """Sum of several processes' resource windows (seconds stay per process)."""
    present = [w for w in windows if w]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    combined = {}
    for key in present[0]:
        values = [w.get(key) for w in present]
        if key == "seconds":
            combined[key] = max(values)
        elif any(v is None for v in values):
            combined[key] = None
        else:
            combined[key] = sum(values)
    return combined


def judge(result: dict | None) -> str | None:
    """Why a client result does not pass, or None: every operation and value must be right."""
    if result is None:
        return "no result"
    operations, verification = result["operations"], result["verification"]
    if operations["attempted"] == 0:
        return "no operation was attempted"
    if operations["failed"]:
        examples = "; ".join(result.get("errors", {}).get("examples", [])[:3])
        return f"{operations['failed']} of {operations['attempted']} operations failed: {examples}"
    if verification["failed"]:
        examples = "; ".join(verification.get("examples", [])[:3])
        return f"{verification['failed']} of {verification['checked']} values wrong: {examples}"
    if result["config"].get("verify", True) and verification["checked"] == 0:
        return "nothing was verified"
    return None


@dataclass
class Session:
    """One benchmark run: its store row, working directory, PKI and running servers."""
    store: Store
    suite: str
    profile: str
    workdir: Path = field(default_factory=lambda: paths.RESULTS / "runs" / time.strftime("%Y%m%d-%H%M%S"))
    run_id: int = 0
    servers: dict[str, Server] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    plan: Plan | None = None
    server_warmup_s: float = 0.0

    def __post_init__(self) -> None:
        cleanup.install()  # from here on the run starts processes and namespaces
        self.server_cpus, self.client_cpus = cpu_sets()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.pki = pki.make_pki(self.workdir / "pki")
        self.run_id = self.store.begin_run(self.suite, self.profile, self._provenance())

    def _provenance(self) -> dict:
        return provenance.collect(
            suite=self.suite, profile=self.profile, sdk_versions=self.versions,
            pinning={"server_cpus": sorted(self.server_cpus or []), "client_cpus": sorted(self.client_cpus or [])},
            perf=PerfStat.available(), workdir=str(self.workdir), plan=self._plan_summary(),
            sdks={sdk.id: {"language": sdk.language, "version": sdk.version, "roles": list(sdk.roles),
                           "workloads": list(sdk.workloads), "policies": list(sdk.policies), "modes": list(sdk.modes),
                           "not_supported": sdk.not_supported} for sdk in all_sdks()})

    def _plan_summary(self) -> dict | None:
        """What the report needs to know of the plan, kept with the run."""
        if self.plan is None:
            return None
        return {"path": str(self.plan.path), "description": self.plan.description, "ranking": self.plan.ranking,
                "throughput": {v.name: {k: v.workload[k] for k in ("nodes_per_request", "in_flight")
                                        if k in v.workload} for v in self.plan.throughput},
                "phases": {kind: phase.summary() for kind, phase in self.plan.phases_run(self.profile).items()},
                "sweeps": {w.name: {"kind": w.kind, "stop": w.stop, "workload": w.workload["workload"]}
                           for w in self.plan.sweeps}}

    # --- servers -----------------------------------------------------------------------

    def server_config(self, sdk: Sdk, **overrides) -> dict:
        endpoints = [{"policy": "None", "mode": "None"}]
        endpoints += [{"policy": policy, "mode": mode} for policy in sdk.policies if policy != "None"
                      for mode in ("Sign", "SignAndEncrypt") if sdk.offers(policy, mode)]
        config = {
            "host": "127.0.0.1", "port": free_port(), "signals": 1000, "update_interval_ms": 100,
            "writes": 100,
            "security": {
                "endpoints": endpoints,
                "certificate": str(self.pki.server.certificate),
                "private_key": str(self.pki.server.private_key),
                "application_uri": self.pki.server.application_uri,
                "trusted_certificates": [str(self.pki.client.certificate)],
            },
        }
        config.update(overrides)
        return config

    def server(self, sdk: Sdk, **overrides) -> Server:
        """The running server of `sdk` with these config overrides, started (again) if it
        is not running. Only one server runs at a time: another server's update loop on the
        server cores would distort what this one measures."""
        key = f"{sdk.id}:{provenance.config_hash(overrides)}"
        running = self.servers.get(key)
        if running and running.alive:
            return running
        self.stop_servers()
        config = self.server_config(sdk, **overrides)
        process = AdapterProcess(sdk, "server", config, self.workdir, self.server_cpus,
                                 name=f"{sdk.id}-server-{config['port']}")
        measured = Measured.start(process)
        try:
            ready = process.wait_event(("ready", "error"), READY_TIMEOUT_S)
        except AdapterError:
            measured.stop()
            raise
        if ready["event"] == "error":
            measured.stop()
            raise AdapterError(f"{sdk.id} server refused to start: {ready.get('kind')}: {ready.get('message')}")
        server = Server(sdk, config, measured, ready["endpoint"])
        self.servers[key] = server
        self._warm_up(server)
        return server

    def _warm_up(self, server: Server) -> None:
        """Load a fresh server for a while before anything is measured on it, so a JIT
        runtime (JVM, V8) is measured compiled; every server gets the same treatment."""
        reference = plan_module.reference_client()
        if self.server_warmup_s <= 0 or reference is None:
            return
        workload = {"workload": "read", "nodes": [f"Signal_{i}" for i in range(min(100, server.config["signals"]))]
                    or ["Real"], "nodes_per_request": 10, "in_flight": 8, "warmup_s": self.server_warmup_s,
                    "duration_s": 0.1, "verify": False}
        self.run_client(get_sdk(reference), server, self.client_config(server, workload))

    def stop_servers(self) -> dict[str, tuple[int | None, float, bool]]:
        outcomes = {server.sdk.id: server.measured.stop() for server in self.servers.values()}
        self.servers.clear()
        return outcomes

    # --- clients -----------------------------------------------------------------------

    def client_config(self, server: Server, workload: dict, security: dict | None = None,
                      identity: pki.Identity | None = None) -> dict:
        config = {"endpoint": server.endpoint, **workload}
        if security and security.get("policy", "None") != "None":
            identity = identity or self.pki.client
            config["security"] = {
                "certificate": str(identity.certificate), "private_key": str(identity.private_key),
                "application_uri": identity.application_uri, **security}
        return config

    def run_client(self, client: Sdk, server: Server | None, config: dict, processes: int = 1) -> CellOutcome:
        """Run `processes` client processes at once (all on the load generator's CPUs) to
        completion, combine what they measured and judge it."""
        timeout = config.get("warmup_s", 1) + config.get("duration_s", 5) + CLIENT_GRACE_S
        measured = [Measured.start(AdapterProcess(client, "client", config, self.workdir, self.client_cpus,
                                                  name=f"{client.id}-client-{time.monotonic_ns()}"))
                    for _ in range(processes)]
        events, statuses, failure = [], [], None
        deadline = time.monotonic() + timeout
        for one in measured:
            try:
                events.append(one.process.wait_event(("result", "error"), max(0.1, deadline - time.monotonic())))
                statuses.append(one.process.wait_exit(10))
            except AdapterError as error:
                failure = failure or str(error)
        for one in measured:
            one.stop()
        errors = [e for e in events if e["event"] == "error"]
        if failure or errors:
            kind = errors[0].get("kind", "runtime") if errors else "runtime"
            reason = failure or f"{kind}: {errors[0].get('message', '')}"
            if server and not server.alive:
                reason = server.death_reason() + "\n" + reason
            return CellOutcome("not_supported" if kind == "not_supported" else "fail", reason)
        self.versions[client.id] = events[0].get("version", "?")
        result = combine_results(events)
        outcome = CellOutcome("pass", result=result)
        windows = [one.window(e["start_ns"], e["end_ns"]) for one, e in zip(measured, events, strict=True)]
        outcome.client_resources = combine_resources([w[0] for w in windows])
        outcome.client_perf = combine_resources([w[1] for w in windows])
        if server:
            outcome.server_resources, outcome.server_perf = server.measured.window(result["start_ns"], result["end_ns"])
        outcome.client_bound = self._saturated(outcome.client_resources)
        reason = judge(result)
        if reason is None and any(status not in (0, None) for status in statuses):
            reason = f"client exited with status {statuses} after its result"
        if server and not server.alive:  # the cause comes first, the client's symptoms after
            reason = server.death_reason() + (f"\n{reason}" if reason else "")
        if reason:
            outcome.status, outcome.reason = "fail", reason
        return outcome

    def _saturated(self, resources: dict | None) -> bool:
        """The load generator used (nearly) all the CPU it was given."""
        allowance = 100.0 * len(self.client_cpus or os.sched_getaffinity(0))
        return bool(resources and resources["cpu_percent"] >= CLIENT_BOUND_PERCENT / 100 * allowance)

    def record(self, kind: str, client: Sdk, server: Sdk, variant: str, repetition: int,
               config: dict, outcome: CellOutcome, server_config: dict | None = None,
               parameter: object = None) -> CellOutcome:
        outcome.cell_id = self.store.add_cell(
            self.run_id, suite=self.suite, kind=kind, client=client.id, server=server.id, variant=variant,
            parameter=None if parameter is None else str(parameter),
            repetition=repetition, status=outcome.status, reason=outcome.reason,
            config_hash=provenance.config_hash(config), client_config=config, server_config=server_config,
            result=outcome.result, client_resources=outcome.client_resources,
            server_resources=outcome.server_resources, client_perf=outcome.client_perf,
            server_perf=outcome.server_perf, client_bound=outcome.client_bound)
        return outcome

    def close(self, status: str = "finished") -> None:
        self.stop_servers()
        self.store.update_provenance(self.run_id, self._provenance())
        self.store.finish_run(self.run_id, status)
