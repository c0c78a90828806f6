"""Robot Framework keyword library for the uabench suites.

Imported by a suite with the suite's name (suites/benchmark.resource); the suite's test
cases, one per cell of its plan, come from the pre-run modifier uabench.robot.modifier."""

from __future__ import annotations

import math
import time
from pathlib import Path

from robot.api import SkipExecution, logger
from robot.libraries.BuiltIn import BuiltIn
from uabench_contract import Histogram

from uabench import plan as plans
from uabench import sdks
from uabench.engine import pubsub
from uabench.engine.session import CellOutcome, Session
from uabench.proc import netns
from uabench.proc.process import AdapterError
from uabench.results import stats
from uabench.results.store import open_store


class UabenchLibrary:
    ROBOT_LIBRARY_SCOPE = "SUITE"

    def __init__(self, suite: str, plan: str = "", profile: str = "quick", store: str = "", sdks: str = "",
                 run_dir: str = "") -> None:
        self.plan = plans.load(plan or suite)
        if self.plan.suite != suite:
            raise plans.PlanError(f"{self.plan.path} is a plan for suite '{self.plan.suite}', not '{suite}'")
        self.suite = suite
        self.profile = profile
        self.plan.phase(profile, "interop")  # an unknown profile fails at import, not mid-run
        self.store_location = store
        self.only = plans.selected(sdks)
        self.run_dir = Path(run_dir) if run_dir else None
        self.session: Session | None = None

    # --- suite setup and teardown ----------------------------------------------------------

    def start_benchmark_run(self) -> None:
        """Opens the results store and records the run's provenance. Without a STORE (a
        plain `robot suites/x.robot`), the store and the run's files go to Robot's output
        directory, beside its log and report."""
        output_dir = Path(BuiltIn().get_variable_value("${OUTPUT_DIR}", "."))
        store = open_store(self.store_location or output_dir / "uabench.sqlite")
        run_dir = self.run_dir or (None if self.store_location else
                                   output_dir / "runs" / f"{time.strftime('%Y%m%d-%H%M%S')}-{self.suite}")
        extra = {"workdir": run_dir} if run_dir else {}
        self.session = Session(store, self.suite, self.profile, plan=self.plan,
                               server_warmup_s=self.plan.server_warmup_s(self.profile), **extra)
        logger.info(f"run {self.session.run_id}, store {store.path}, work dir {self.session.workdir}")

    def finish_benchmark_run(self) -> None:
        """Stops every server the run started and closes the run in the store."""
        if self.session:
            for sdk_id, (status, seconds, killed) in self.session.stop_servers().items():
                logger.info(f"{sdk_id} server stopped: status {status} after {seconds:.2f} s"
                            + (" (killed)" if killed else ""))
            self.session.close()

    def adapters_should_be_installed(self) -> None:
        """Every SDK of the plan answers `capabilities` as its sdk.toml declares, and there is
        at least one server and one client to pair."""
        chosen = [sdk for sdk in sdks.all_sdks() if self.only is None or sdk.id in self.only]
        if not any("server" in sdk.roles for sdk in chosen) or not any("client" in sdk.roles for sdk in chosen):
            raise AssertionError(f"need at least one server and one client adapter, have {[s.id for s in chosen]}")
        problems = []
        for sdk in chosen:
            try:
                capabilities = sdks.capabilities(sdk)
            except sdks.AdapterBroken as error:
                problems.append(str(error))
                continue
            if str(capabilities.get("version")) != sdk.version:
                problems.append(f"{sdk.id}: runs version {capabilities.get('version')}, sdk.toml pins {sdk.version}")
            logger.info(f"{sdk.id} {capabilities.get('version')}: roles {', '.join(capabilities.get('roles', []))}")
        if problems:
            raise AssertionError("\n".join(problems))

    # --- cells -----------------------------------------------------------------------------

    def interop_cell_should_pass(self, client: str, server: str, variant: str) -> None:
        """Runs one short verified workload of `client` against `server`; fails on any
        failed operation or wrong value, skips what the client declares unsupported."""
        phase = self.plan.phase(self.profile, "interop")
        workload = dict(self.plan.variant("interop", variant).workload, warmup_s=phase.warmup_s,
                        duration_s=phase.duration_s)
        self._cell("interop", client, server, variant, 0, workload)

    def throughput_should_be_measured(self, client: str, server: str, variant: str) -> None:
        """Measures `server` under the reference client's load, repeated per the profile."""
        workload, repetitions = self._throughput_workload(variant)
        outcomes = [self._cell("throughput", client, server, variant, repetition, workload)
                    for repetition in range(repetitions)]
        values = stats.summarize([o.result["throughput"]["values_per_s"] for o in outcomes])
        latency = stats.latency_summary(_merged(outcomes))
        bound = sum(o.client_bound for o in outcomes)
        logger.info(f"{server}: {values['mean']:.0f} values/s (95% CI ±{values['ci95'] or 0:.0f}), "
                    f"p50 {latency['p50_us']:.0f} µs, p99 {latency['p99_us']:.0f} µs"
                    + (f", client-bound in {bound} of {len(outcomes)} repetitions" if bound else ""))

    def load_generator_headroom_should_be_measured(self, client: str) -> None:
        """Loads the fastest server of this run with one and then two processes of the
        reference client, both on the load generator's CPUs: if two deliver clearly more,
        one process was the bottleneck (client-bound)."""
        session = self._session()
        variant = self.plan.ranking
        ranked = [cell for cell in session.store.cells([session.run_id]) if cell["kind"] == "throughput"
                  and cell["variant"] == variant and cell["status"] == "pass"]
        if not ranked:
            raise AssertionError("no throughput result in this run to pick the fastest server from")
        fastest = max(ranked, key=lambda c: c["result"]["throughput"]["values_per_s"])["server"]
        workload, repetitions = self._throughput_workload(variant)
        figures = {}
        for processes in (1, 2):
            label = f"{processes} process" + ("es" if processes > 1 else "")
            outcomes = [self._cell("headroom", client, fastest, label, repetition, workload, processes)
                        for repetition in range(repetitions)]
            figures[processes] = stats.summarize([o.result["throughput"]["values_per_s"] for o in outcomes])
        gain = figures[2]["mean"] / figures[1]["mean"] - 1
        logger.info(f"{client} load on {fastest}: 1 process {figures[1]['mean']:.0f} values/s, "
                    f"2 processes {figures[2]['mean']:.0f} values/s ({gain:+.0%})")

    def sweep_should_complete(self, name: str, client: str, server: str) -> None:
        """Measures `server` at every point of the sweep, in order. A sweep with a stop
        condition ends when it holds or a point fails (the server reached its limit; only a
        failure at the first point fails the test). A sweep without one measures every point
        and fails the test if any point failed."""
        sweep = self.plan.sweep(name)
        phase = self.plan.phase(self.profile, "sweep")
        measured, failed = [], []
        for index, value in enumerate(sweep.points(self.profile)):
            overrides, workload = sweep.point(value)
            workload.update(warmup_s=phase.warmup_s, duration_s=phase.duration_s)
            try:
                outcomes = [self._cell("sweep", client, server, name, repetition, workload, parameter=value,
                                       server_overrides=overrides)
                            for repetition in range(phase.repetitions)]
            except SkipExecution as skipped:
                measured.append(f"{value}: {skipped}")
                continue
            except AssertionError as failure:
                if sweep.stop and index > 0:
                    measured.append(f"{value}: failed — limit reached")
                    logger.info(f"{name} = {value}: {failure} — limit reached")
                    break
                if sweep.stop:
                    raise
                failed.append(f"{value}: {_first(str(failure))}")
                continue
            metric = sweep_metric(sweep, workload, outcomes)
            measured.append(f"{value}: {metric:.3g}" if metric is not None else str(value))
            if sweep.stop and metric is not None and metric > sweep.stop["above"]:
                logger.info(f"{name} = {value}: {sweep.stop['metric']} {metric:.3f} > {sweep.stop['above']} — stop")
                break
        logger.info(f"{client} → {server}, {name}: " + ", ".join(measured))
        if failed:
            raise AssertionError(f"{len(failed)} point(s) failed: " + "; ".join(failed))

    def capacity_should_be_found(self, client: str, server: str) -> None:
        """Open-loop search for the highest read rate `server` sustains within the plan's
        bound, then one run beyond it to classify the overload behaviour."""
        capacity, phase = self.plan.capacity, self.plan.phase(self.profile, "capacity")
        client_sdk, server_sdk = sdks.get(client), sdks.get(server)
        session = self._session()

        def probe(rate: float, label: str) -> tuple[bool, dict | None, CellOutcome]:
            try:
                running = session.server(server_sdk)
            except AdapterError as error:
                raise AssertionError(f"server did not start: {error}") from None
            workload = dict(capacity.workload, rate=rate, warmup_s=phase.warmup_s, duration_s=phase.duration_s)
            config = session.client_config(running, workload)
            outcome = session.run_client(client_sdk, running, config)
            figures = probe_figures(outcome, rate, phase.duration_s)
            if outcome.result and outcome.result["verification"]["failed"]:
                session.record("capacity", client_sdk, server_sdk, "wrong values", 0, config, outcome,
                               running.config, rate)
                raise AssertionError(f"at {rate:.0f} requests/s: {outcome.reason}")
            ok = bool(figures and figures["completed"] >= capacity.min_completed
                      and figures["p99_ms"] <= capacity.p99_ms and running.alive)
            verdict = label if label == "overload" else ("sustained" if ok else "missed")
            session.record("capacity", client_sdk, server_sdk, verdict, 0, config, outcome, running.config, rate)
            logger.info(f"{rate:.0f} requests/s offered: {verdict}" + (
                f", {figures['completed']:.1%} completed, p99 {figures['p99_ms']:.2f} ms" if figures else
                f": {_first(outcome.reason)}"))
            return ok, figures, outcome

        good, bad, rate = None, None, capacity.start_rate
        while rate <= capacity.max_rate:  # double until the server misses the bound
            ok, figures, _ = probe(rate, "probe")
            if not ok:
                bad = rate
                break
            good = (rate, figures)
            rate *= 2
        while good is None and rate / 2 >= MIN_CAPACITY_RATE:  # below the start rate: halve until it holds
            bad, rate = rate, rate / 2
            ok, figures, _ = probe(rate, "probe")
            if ok:
                good = (rate, figures)
        if good is None:
            raise AssertionError(f"{server} does not sustain even {rate:g} requests/s "
                                 f"within p99 ≤ {capacity.p99_ms:g} ms")
        if bad is not None:
            for _ in range(capacity.refine_steps):
                middle = (good[0] + bad) / 2
                ok, figures, _ = probe(middle, "probe")
                if ok:
                    good = (middle, figures)
                else:
                    bad = middle
        sustained_rate, sustained = good
        overload_rate = sustained_rate * capacity.overload_factor
        _, figures, outcome = probe(overload_rate, "overload")
        running = session.servers and next(iter(session.servers.values()))
        alive = bool(running and running.alive)
        behaviour = classify_overload(sustained["throughput"], figures, outcome, alive)
        session.store.add_cell(session.run_id, suite=self.suite, kind="capacity-verdict", client=client,
                               server=server, variant=behaviour, parameter=str(sustained_rate), repetition=0,
                               status="pass",
                               reason=f"capacity {sustained['throughput']:.0f} requests/s (offered "
                                      f"{sustained_rate:.0f}); at {overload_rate:.0f}/s: {behaviour}",
                               result={"capacity_offered": sustained_rate, "capacity_throughput":
                                       sustained["throughput"], "capacity_p99_ms": sustained["p99_ms"],
                                       "overload_offered": overload_rate, "overload": figures,
                                       "behaviour": behaviour, "p99_bound_ms": capacity.p99_ms})
        if not alive:
            session.stop_servers()
        logger.info(f"{server}: capacity {sustained['throughput']:.0f} requests/s (p99 {sustained['p99_ms']:.2f} ms); "
                    f"overload at {overload_rate:.0f}/s: {behaviour}")

    def untrusted_client_should_be_rejected(self, client: str, server: str) -> None:
        """A client whose certificate the server does not trust must not read anything."""
        session = self._session()
        running = session.server(sdks.get(server))
        security = {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}
        config = session.client_config(running, dict(NEGATIVE_WORKLOAD), security, identity=session.pki.stranger)
        self._expect_refusal(client, server, "untrusted certificate", config, running)

    def unoffered_policy_should_be_refused(self, client: str, server: str) -> None:
        """A server offering only None and Basic256Sha256/SignAndEncrypt must refuse a
        client that asks for Basic256Sha256/Sign."""
        session = self._session()
        endpoints = [{"policy": "None", "mode": "None"}, {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}]
        security_config = dict(session.server_config(sdks.get(server))["security"], endpoints=endpoints)
        running = session.server(sdks.get(server), security=security_config)
        config = session.client_config(running, dict(NEGATIVE_WORKLOAD), {"policy": "Basic256Sha256", "mode": "Sign"})
        self._expect_refusal(client, server, "unoffered policy", config, running)

    def _expect_refusal(self, client_id: str, server_id: str, what: str, config: dict, running) -> None:
        session = self._session()
        client, server = sdks.get(client_id), sdks.get(server_id)
        if not (server.offers("Basic256Sha256", "SignAndEncrypt") and client.offers("Basic256Sha256", "Sign")):
            raise SkipExecution(f"not supported: {server_id} or {client_id} lacks Basic256Sha256")
        outcome = session.run_client(client, running, config)
        refused = outcome.status == "fail" and outcome.result is None
        verdict = CellOutcome("pass" if refused else "fail",
                              f"refused: {_first(outcome.reason)}" if refused else
                              f"{server_id} accepted a client with an {what}: it must refuse it")
        session.record("negative", client, server, what, 0, config, verdict, running.config)
        if not refused:
            raise AssertionError(verdict.reason)
        logger.info(verdict.reason)

    def _throughput_workload(self, variant: str) -> tuple[dict, int]:
        phase = self.plan.phase(self.profile, "throughput")
        workload = dict(self.plan.variant("throughput", variant).workload, warmup_s=phase.warmup_s,
                        duration_s=phase.duration_s)
        return workload, phase.repetitions

    def _cell(self, kind: str, client_id: str, server_id: str, variant: str, repetition: int,
              workload: dict, processes: int = 1, parameter: object = None,
              server_overrides: dict | None = None) -> CellOutcome:
        session = self._session()
        client, server = sdks.get(client_id), sdks.get(server_id)
        if workload["workload"] not in client.workloads:
            outcome = CellOutcome("not_supported", client.reason_unsupported(workload["workload"]))
            session.record(kind, client, server, variant, repetition, workload, outcome, parameter=parameter)
            raise SkipExecution(f"not supported: {outcome.reason}")
        security = workload.get("security") or {}
        policy, mode = security.get("policy", "None"), security.get("mode", "None")
        for sdk in (client, server):
            if not sdk.offers(policy, mode):
                outcome = CellOutcome("not_supported", f"{sdk.id} does not offer {policy}/{mode}")
                session.record(kind, client, server, variant, repetition, workload, outcome, parameter=parameter)
                raise SkipExecution(f"not supported: {outcome.reason}")
        try:
            running = session.server(server, **(server_overrides or {}))
        except AdapterError as error:
            outcome = session.record(kind, client, server, variant, repetition, workload,
                                     CellOutcome("fail", f"server did not start: {error}"), parameter=parameter)
            raise AssertionError(outcome.reason) from None
        config = session.client_config(running, {k: v for k, v in workload.items() if k != "security"}, security)
        outcome = session.run_client(client, running, config, processes)
        session.record(kind, client, server, variant, repetition, config, outcome, running.config, parameter)
        if outcome.status == "not_supported":
            raise SkipExecution(f"not supported: {outcome.reason}")
        if outcome.status != "pass":
            raise AssertionError(outcome.reason)
        result = outcome.result
        logger.info(f"{result['operations']['succeeded']} operations, {result['values']} values verified, "
                    f"{result['throughput']['values_per_s']:.0f} values/s"
                    + (" [client-bound]" if outcome.client_bound else ""))
        return outcome

    # --- PubSub (suites/pubsub.robot, harness/uabench/pubsub.py) ----------------------------

    def pubsub_adapters_should_be_installed(self) -> None:
        """Every SDK answers `capabilities` with the PubSub roles its sdk.toml declares, and
        names the reason where it has none; there is a publisher and a subscriber."""
        pubsub.check_adapters(self.only, logger.info)

    def pubsub_sweep_should_complete(self, publisher: str, subscriber: str) -> None:
        """N signals at the publishing interval, N rising until the publisher misses its
        interval by more than 10 %: publisher CPU and subscriber figures at every point."""
        self._pubsub(pubsub.sweep, publisher, subscriber)

    def pubsub_subscriber_sweep_should_complete(self, publisher: str, subscriber: str) -> None:
        """1, 2, 4, 8 subscribers, each in its own network namespace on a bridge, created
        and removed by the harness: the publisher's CPU as subscribers are added."""
        self._pubsub(pubsub.subscriber_sweep, publisher, subscriber)

    def pubsub_interop_should_pass(self, publisher: str, subscriber: str) -> None:
        """`publisher` → `subscriber`: every NetworkMessage decodes, every value verifies."""
        self._pubsub(pubsub.interop, publisher, subscriber)

    def _pubsub(self, scenario, publisher: str, subscriber: str) -> None:
        run = pubsub.PubSubRun(self._session(), self.plan, self.profile)
        try:
            scenario(run, publisher, subscriber, logger.info)
        except pubsub.Unsupported as reason:
            raise SkipExecution(f"not supported: {reason}") from None
        except netns.HostsError as error:
            raise AssertionError(f"network namespaces: {error}") from None

    def _session(self) -> Session:
        if self.session is None:
            self.start_benchmark_run()
        assert self.session
        return self.session


MIN_CAPACITY_RATE = 10.0


def probe_figures(outcome: CellOutcome, rate: float, duration_s: float) -> dict | None:
    """Completed share of the offered requests, achieved throughput and p99 of one probe."""
    result = outcome.result
    if not result:
        return None
    offered = rate * duration_s
    p99 = stats.merge_histograms([result["latency_ns"]]).percentile(99)
    return {"completed": result["operations"]["succeeded"] / offered if offered else 0.0,
            "throughput": result["throughput"]["ops_per_s"], "p99_ms": p99 / 1e6 if p99 is not None else math.inf,
            "failed": result["operations"]["failed"]}


def classify_overload(capacity_throughput: float, figures: dict | None, outcome: CellOutcome, alive: bool) -> str:
    """graceful: throughput holds (≥ 80% of capacity) while latency grows; collapse: it falls
    well below; crash: the server exited or stopped answering."""
    if not alive or figures is None or figures["throughput"] == 0:
        return "crash"
    return "graceful" if figures["throughput"] >= 0.8 * capacity_throughput else "collapse"


NEGATIVE_WORKLOAD = {"workload": "read", "nodes": ["Real"], "nodes_per_request": 1, "in_flight": 1,
                     "warmup_s": 0.1, "duration_s": 0.3}


def _first(text: str | None) -> str:
    return (text or "").strip().splitlines()[0][:200] if text else ""


def sweep_metric(sweep, workload: dict, outcomes: list[CellOutcome]) -> float | None:
    """The quantity a sweep's stop condition compares, over a point's repetitions."""
    metric = (sweep.stop or {}).get("metric", "cycle_time_ratio" if workload["workload"] == "subscribe" else "p99_ms")
    if metric == "cycle_time_ratio":
        cycle = stats.merge_histograms([o.result.get("cycle_time_ns", []) for o in outcomes]).mean()
        interval = max(workload.get("publishing_interval_ms", 100), workload.get("sampling_interval_ms", 0))
        return cycle / (interval * 1e6) if cycle else None
    p99 = _merged(outcomes).percentile(99)
    return p99 / 1e6 if p99 is not None else None


def _merged(outcomes: list[CellOutcome]) -> Histogram:
    return stats.merge_histograms([o.result["latency_ns"] for o in outcomes])
