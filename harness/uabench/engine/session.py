"""A benchmark session: one run, its working directory and PKI, the CPU sets of servers and
load generators, and how a cell runs (its server warmed up, its client run and judged). What
it measured goes to its RunRecorder (engine/recorder.py: spool and store, the moment a cell
ends), its servers are its ServerPool's (engine/servers.py). Starting a session installs the
cleanup of processes and namespaces."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from uabench import pki, references, rundir, targets
from uabench import plan as plan_module
from uabench.engine import budget, cells, handicap, schedule, warmup
from uabench.engine.cells import CellSpec, Outcome
from uabench.engine.constants import EMULATED_REQUEST_TIMEOUT_MS
from uabench.engine.recorder import RunRecorder
from uabench.engine.servers import Server, ServerPool
from uabench.engine.warmup import SteadyRule, SteadyState
from uabench.plan import Plan
from uabench.proc import cleanup, host, hostprobe, launcher, pinning, sampling
from uabench.proc.sampling import INTERVAL_S, PerfStat
from uabench.results import provenance, spool
from uabench.results.kinds import CellKind
from uabench.results.steady import SteadyVerdict
from uabench.results.store import Store
from uabench.sdks import Sdk, every_version
from uabench.sdks import get as get_sdk
from uabench.targets.process import AdapterError

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
        f"never steady within {max(rule.bound_s, found.elapsed_s):.0f} s: {len(found.throughputs)} chunks, "
        f"no run of them as long as the climb before it agreed within ±{rule.tolerance:.0%} or was without a trend"
    )


def cpu_sets() -> tuple[set[int] | None, set[int] | None]:
    """Server and load generator on different physical cores when there are at least two."""
    found = pinning.plan()
    return found.server, found.client


@dataclass
class Session:
    """One benchmark run: its working directory, PKI and CPU sets; `recorder` records it,
    `pool` holds its servers."""

    store: Store
    suite: str
    profile: str
    workdir: Path = field(default_factory=rundir.new)  # its own, also beside a run started in the same second
    versions: dict[str, str] = field(default_factory=dict)
    plan: Plan | None = None
    steady: SteadyRule = field(default_factory=SteadyRule)
    seed: int = field(default_factory=schedule.run_seed)
    # the run's key in the spool of its directory (results.spool), kept in its provenance
    spool_key: str = field(default_factory=spool.new_key)

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
        # what it measured goes to the recorder (store and spool), its servers are the pool's
        self.recorder = RunRecorder(
            self.store, self.suite, self.profile, self.workdir, self._provenance, spool_key=self.spool_key
        )
        self.handicaps = handicap.declared()  # a test of the tool: recorded with the run, said by its report
        self.pool = ServerPool(
            self.workdir, self.pki, self.server_cpus, warm=self._warm_with_reference_load, handicaps=self.handicaps
        )
        self.recorder.begin()

    @property
    def run_id(self) -> int:
        return self.recorder.run_id

    def _warm_with_reference_load(self, running: Server) -> None:
        """A freshly started server is warmed up to steady state under the reference load."""
        reference = plan_module.reference_client()
        if reference is not None:
            self.steady_state(running, get_sdk(reference), REFERENCE_LOAD, REFERENCE_LOAD_LABEL)

    def close(self, status: str = "finished") -> None:
        """Stops every server, gives the harness back its CPUs and records the run's end
        (RunRecorder.finish)."""
        self.pool.stop_all()
        os.sched_setaffinity(0, self._harness_cpus)
        self.recorder.finish(status)

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
            handicap=self.handicaps or None,  # engine.handicap: SDK -> the share of its CPU its server had
            schedule={
                "seed": self.seed,
                "order": "every block measures each compared item once, shuffled per block from the seed",
                "target_half_width": schedule.TARGET_HALF_WIDTH,
                "estimate_s": budget.estimate_of(self.suite),  # the model's, as uabench run printed it
                # the whole invocation's (every suite it ran): what its time budget is set against
                "estimate_total_s": budget.estimate_total(),
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
            # the server every throughput is also given relative to, paired per block (figures.reference_ratios)
            "reference_server": references.declared("server"),
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

    def probe_host(self, probe: hostprobe.HostProbe, variant: str, block: int, parameter: object = None) -> None:
        """One window of the host probe (proc/hostprobe.py) after an interleaved block, recorded
        as a host-probe cell of `variant`: the host's own noise in the blocks its figures came
        from. A server on another machine (an SSH target) is not this host's: not probed."""
        if targets.elsewhere("server"):
            return
        reason: str | None = None
        result: dict | None = None
        try:
            result, status = probe.measure().as_result(), "pass"
        except hostprobe.ProbeError as error:
            status, reason = "fail", str(error)
        self.recorder.add_cell(
            suite=self.suite,
            kind=CellKind.HOST_PROBE,
            client="host",
            server="host",
            variant=variant,
            parameter=None if parameter is None else str(parameter),
            repetition=block,
            status=status,
            reason=reason,
            result=result,
        )

    def steady_state(self, server: Server, client: Sdk, workload: dict, label: str) -> SteadyState | None:
        """Loads `server` with `workload` (verification off) in short unmeasured chunks until
        its throughput is steady (engine.warmup), at most `steady.bound_s`; once per server
        process and `label`. Every chunk is stored as a "warmup" cell, the verdict as a
        "steady-state" cell (status pass, never_steady or fail): the time to steady state is a
        figure of its own. None when this server was already warmed up for `label`."""
        if label in server.warmed:
            return None
        # a JIT runtime's least warm-up (sdk.toml [expectations] warmup_s) holds for the first load
        # of a server process: later loads find most of it compiled (estimate.py assumes the same)
        rule = self.steady
        floor_s = 0.0 if server.warmed or not rule.sdk_floor else server.sdk.expectations.warmup_s or 0.0
        server.warmed.add(label)
        load = {k: v for k, v in workload.items() if k not in ("security", "warmup_s", "duration_s")}
        chunk_load = {**load, "warmup_s": rule.chunk_warmup_s, "duration_s": rule.chunk_s, "verify": False}
        config = self.client_config(server, chunk_load, workload.get("security"))
        moved: list[int] = []

        def chunk(index: int) -> float | str:
            outcome = self.run_client(client, server, config)
            self.recorder.record(
                CellKind.WARMUP, client, server.sdk, label, index, config, outcome, server.config, index
            )
            if outcome.status != "pass" or outcome.result is None:
                return outcome.reason or outcome.status
            moved.append(outcome.result["values"])
            return float(outcome.result["throughput"]["values_per_s"])

        found = warmup.warm_up(chunk, rule.bound_s, rule.tolerance, rule.run, floor_s=floor_s)
        self.recorder.add_cell(
            suite=self.suite,
            kind=CellKind.STEADY_STATE,
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
            result=SteadyVerdict(
                steady=found.steady,
                seconds_to_steady=found.seconds,
                warmup_s=found.elapsed_s,
                chunks=len(found.throughputs),
                steady_chunk=found.start,
                steady_by=found.rule,
                values_per_s=tuple(found.throughputs),
                chunk_starts_s=tuple(found.starts_s),
                values_before_steady=sum(moved[: found.start] if found.steady else moved),
                rule=rule.summary(),
            ).as_result(),
        )
        return found

    # --- clients -----------------------------------------------------------------------

    def client_config(
        self, server: Server, workload: dict, security: dict | None = None, identity: pki.Identity | None = None
    ) -> dict:
        return self.client_config_for(server.endpoint, workload, security, identity)

    def client_config_for(
        self, endpoint: str, workload: dict, security: dict | None = None, identity: pki.Identity | None = None
    ) -> dict:
        """A client's config for `endpoint` (a server this session did not start itself: the
        instructions suite's server under valgrind). Where a role runs emulated, its requests get
        EMULATED_REQUEST_TIMEOUT_MS (natively the adapter's own timeouts stand)."""
        config = {"endpoint": endpoint, **workload}
        if targets.current().emulated:
            config.setdefault("request_timeout_ms", EMULATED_REQUEST_TIMEOUT_MS)
        if security and security.get("policy", "None") != "None":
            identity = identity or self.pki.client
            config["security"] = {
                "certificate": str(identity.certificate),
                "private_key": str(identity.private_key),
                "application_uri": identity.application_uri,
                **security,
            }
        return config

    def run_client(
        self,
        client: Sdk,
        server: Server | None,
        config: dict,
        processes: int = 1,
        prefix: list[str] | None = None,
        started: Callable[[int], None] | None = None,
    ) -> Outcome:
        """Run `processes` client processes at once (all on the load generator's CPUs) to
        completion against `server`, combine what they measured and judge it. `prefix`: each
        under a command of its own (valgrind); `started(pid)` hears of each."""
        # what else the host did meanwhile: the server and the clients are the measured processes
        sampler = host.HostSampler([server.measured.process.pid] if server else []).start()

        def watch(pid: int) -> None:
            sampler.watch(pid)
            if started is not None:
                started(pid)

        try:
            outcome = cells.run_cell(
                client,
                "client",
                [config] * processes,
                self.workdir,
                self.client_cpus,
                peer=server.measured if server else None,
                started=watch,
                prefix=prefix,
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
                return self.recorder.record_cell(spec, config, outcome, server_config)
            first = outcome.reason
            outcome.status, outcome.reason = "disturbed", f"failed for the machine's sake, run once more: {first}"
            self.recorder.record_cell(spec, config, outcome, server_config)
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
            running = self.pool.get(server, warm and steady_label is None, **(spec.server_overrides or {}))
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


def _refused(kind: str, client: Sdk, server: Sdk, workload: dict) -> str | None:
    """A measurement `server` declares `client` never gets a session for (sdk.toml [interop],
    `refused`): not tried. An interop cell tries it all the same, so the claim is kept honest."""
    return None if kind == "interop" else server.refuses(client.id, workload["workload"])
