"""A benchmark session: one run in the store, its working directory and PKI, the servers
kept running per SDK, the CPU sets of servers and load generators; every cell stored the
moment it ends. Starting a session installs the cleanup of processes and namespaces."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

from uabench import paths, pki
from uabench import plan as plan_module
from uabench.engine import cells
from uabench.engine.cells import Measured, Outcome
from uabench.plan import Plan
from uabench.proc import cleanup
from uabench.proc.process import READY_TIMEOUT_S, AdapterError, AdapterProcess
from uabench.proc.sampling import PerfStat
from uabench.results import provenance
from uabench.results.store import Store
from uabench.sdks import Sdk, all_sdks
from uabench.sdks import get as get_sdk


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
class Server:
    sdk: Sdk
    config: dict
    measured: Measured
    endpoint: str

    @property
    def alive(self) -> bool:
        return self.measured.alive

    def death_reason(self) -> str:
        return self.measured.death_reason()


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
            suite=self.suite,
            profile=self.profile,
            sdk_versions=self.versions,
            pinning={"server_cpus": sorted(self.server_cpus or []), "client_cpus": sorted(self.client_cpus or [])},
            perf=PerfStat.available(),
            workdir=str(self.workdir),
            plan=self._plan_summary(),
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
                for sdk in all_sdks()
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
            "throughput": {
                v.name: {k: v.workload[k] for k in ("nodes_per_request", "in_flight") if k in v.workload}
                for v in self.plan.throughput
            },
            "phases": {kind: phase.summary() for kind, phase in self.plan.phases_run(self.profile).items()},
            "sweeps": {
                w.name: {"kind": w.kind, "stop": w.stop, "workload": w.workload["workload"]} for w in self.plan.sweeps
            },
        }

    # --- servers -----------------------------------------------------------------------

    def server_config(self, sdk: Sdk, **overrides) -> dict:
        endpoints = [{"policy": "None", "mode": "None"}]
        endpoints += [
            {"policy": policy, "mode": mode}
            for policy in sdk.policies
            if policy != "None"
            for mode in ("Sign", "SignAndEncrypt")
            if sdk.offers(policy, mode)
        ]
        config = {
            "host": "127.0.0.1",
            "port": free_port(),
            "signals": 1000,
            "update_interval_ms": 100,
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
        process = AdapterProcess(
            sdk, "server", config, self.workdir, self.server_cpus, name=f"{sdk.id}-server-{config['port']}"
        )
        measured = Measured.start(process)
        try:
            ready = measured.wait_ready(READY_TIMEOUT_S)
        except AdapterError:
            measured.stop()
            raise
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
        workload = {
            "workload": "read",
            "nodes": [f"Signal_{i}" for i in range(min(100, server.config["signals"]))] or ["Real"],
            "nodes_per_request": 10,
            "in_flight": 8,
            "warmup_s": self.server_warmup_s,
            "duration_s": 0.1,
            "verify": False,
        }
        self.run_client(get_sdk(reference), server, self.client_config(server, workload))

    def stop_servers(self) -> dict[str, tuple[int | None, float, bool]]:
        outcomes = {server.sdk.id: server.measured.stop() for server in self.servers.values()}
        self.servers.clear()
        return outcomes

    # --- clients -----------------------------------------------------------------------

    def client_config(
        self, server: Server, workload: dict, security: dict | None = None, identity: pki.Identity | None = None
    ) -> dict:
        config = {"endpoint": server.endpoint, **workload}
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
        outcome = cells.run_cell(
            client,
            "client",
            [config] * processes,
            self.workdir,
            self.client_cpus,
            peer=server.measured if server else None,
        )
        if outcome.result:
            self.versions[client.id] = outcome.result.get("version", "?")
        return outcome

    def cell(
        self,
        kind: str,
        client: Sdk,
        server: Sdk,
        variant: str,
        repetition: int,
        workload: dict,
        processes: int = 1,
        parameter: object = None,
        server_overrides: dict | None = None,
    ) -> Outcome:
        """One measured and recorded client/server cell: `processes` clients with `workload`
        against the server of `server` (with these config overrides). What the client or
        server does not support is recorded as such without starting anything."""
        security = workload.get("security") or {}
        policy, mode = security.get("policy", "None"), security.get("mode", "None")
        missing = (
            [client.reason_unsupported(workload["workload"])]
            if workload["workload"] not in client.workloads
            else [
                f"{sdk.id} does not offer {policy}/{mode}" for sdk in (client, server) if not sdk.offers(policy, mode)
            ]
        )
        if missing:
            return self.record(
                kind,
                client,
                server,
                variant,
                repetition,
                workload,
                Outcome("not_supported", missing[0]),
                parameter=parameter,
            )
        try:
            running = self.server(server, **(server_overrides or {}))
        except AdapterError as error:
            return self.record(
                kind,
                client,
                server,
                variant,
                repetition,
                workload,
                Outcome("fail", f"server did not start: {error}"),
                parameter=parameter,
            )
        config = self.client_config(running, {k: v for k, v in workload.items() if k != "security"}, security)
        outcome = self.run_client(client, running, config, processes)
        return self.record(kind, client, server, variant, repetition, config, outcome, running.config, parameter)

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
        the peer (server, publisher)."""
        outcome.cell_id = self.store.add_cell(
            self.run_id,
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

    def close(self, status: str = "finished") -> None:
        self.stop_servers()
        self.store.update_provenance(self.run_id, self._provenance())
        self.store.finish_run(self.run_id, status)
