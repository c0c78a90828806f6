"""Robot Framework keyword library for the uabench suites.

Imported by a suite with the suite's name (suites/benchmark.resource); the suite's test
cases, one per cell of its plan, come from the pre-run modifier uabench.robot.modifier."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from robot.api import SkipExecution, logger
from robot.libraries.BuiltIn import BuiltIn

from uabench import plan as plans
from uabench import sdks
from uabench.engine import adapters, pubsub, search
from uabench.engine.cells import Outcome, wrong_values
from uabench.engine.session import Session
from uabench.proc import netns
from uabench.proc.process import AdapterError
from uabench.results import stats
from uabench.results.store import open_store


class UabenchLibrary:
    ROBOT_LIBRARY_SCOPE = "SUITE"

    def __init__(
        self, suite: str, plan: str = "", profile: str = "quick", store: str = "", sdks: str = "", run_dir: str = ""
    ) -> None:
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
        run_dir = self.run_dir or (
            None if self.store_location else output_dir / "runs" / f"{time.strftime('%Y%m%d-%H%M%S')}-{self.suite}"
        )
        extra: dict[str, Any] = {"workdir": run_dir} if run_dir else {}
        self.session = Session(
            store,
            self.suite,
            self.profile,
            plan=self.plan,
            server_warmup_s=self.plan.server_warmup_s(self.profile),
            **extra,
        )
        logger.info(f"run {self.session.run_id}, store {store.path}, work dir {self.session.workdir}")

    def finish_benchmark_run(self) -> None:
        """Stops every server the run started and closes the run in the store."""
        if self.session:
            for sdk_id, (status, seconds, killed) in self.session.stop_servers().items():
                logger.info(
                    f"{sdk_id} server stopped: status {status} after {seconds:.2f} s" + (" (killed)" if killed else "")
                )
            self.session.close()

    def adapters_should_be_installed(self) -> None:
        """Every SDK of the plan answers `capabilities` as its sdk.toml declares, and there is
        at least one server and one client to pair."""
        self._adapters(("server", "client"))

    def _adapters(self, roles: tuple[str, ...]) -> None:
        found = adapters.problems(self.only, roles, logger.info)
        if found:
            raise AssertionError("\n".join(found))

    # --- cells -----------------------------------------------------------------------------

    def interop_cell_should_pass(self, client: str, server: str, variant: str) -> None:
        """Runs one short verified workload of `client` against `server`; fails on any
        failed operation or wrong value, skips what the client declares unsupported."""
        phase = self.plan.phase(self.profile, "interop")
        workload = dict(
            self.plan.variant("interop", variant).workload, warmup_s=phase.warmup_s, duration_s=phase.duration_s
        )
        self._cell("interop", client, server, variant, 0, workload)

    def throughput_should_be_measured(self, client: str, server: str, variant: str) -> None:
        """Measures `server` under the reference client's load, repeated per the profile."""
        workload, repetitions = self._throughput_workload(variant)
        outcomes = [
            self._cell("throughput", client, server, variant, repetition, workload) for repetition in range(repetitions)
        ]
        values = stats.summarize([o.measured["throughput"]["values_per_s"] for o in outcomes])
        latency = stats.latency_summary(search.merged_latency(outcomes))
        bound = sum(o.client_bound for o in outcomes)
        logger.info(
            f"{server}: {values['mean']:.0f} values/s (95% CI ±{values['ci95'] or 0:.0f}), "
            f"p50 {latency['p50_us']:.0f} µs, p99 {latency['p99_us']:.0f} µs"
            + (f", client-bound in {bound} of {len(outcomes)} repetitions" if bound else "")
        )

    def load_generator_headroom_should_be_measured(self, client: str) -> None:
        """Loads the fastest server of this run with one and then two processes of the
        reference client, both on the load generator's CPUs: if two deliver clearly more,
        one process was the bottleneck (client-bound)."""
        session = self._session()
        fastest = search.fastest_server(session.store.cells([session.run_id]), self.plan.ranking)
        if fastest is None:
            raise AssertionError("no throughput result in this run to pick the fastest server from")
        assert self.plan.ranking, "headroom needs the plan's ranking variant"
        workload, repetitions = self._throughput_workload(self.plan.ranking)

        def measure(processes: int, repetition: int) -> Outcome:
            label = f"{processes} process" + ("es" if processes > 1 else "")
            return self._cell("headroom", client, fastest, label, repetition, workload, processes)

        figures, gain = search.headroom(measure, repetitions)
        logger.info(
            f"{client} load on {fastest}: 1 process {figures[1]['mean']:.0f} values/s, "
            f"2 processes {figures[2]['mean']:.0f} values/s ({gain:+.0%})"
        )

    def sweep_should_complete(self, name: str, client: str, server: str) -> None:
        """Measures `server` at every point of the sweep, in order. A sweep with a stop
        condition ends when it holds or a point fails (the server reached its limit; only a
        failure at the first point fails the test). A sweep without one measures every point
        and fails the test if any point failed."""
        sweep = self.plan.sweep(name)
        phase = self.plan.phase(self.profile, "sweep")

        def workload(value) -> tuple[dict, dict]:
            overrides, point = sweep.point(value)
            return overrides, dict(point, warmup_s=phase.warmup_s, duration_s=phase.duration_s)

        def measure(value, repetition: int) -> Outcome:
            overrides, point = workload(value)
            return self._measure(
                "sweep", client, server, name, repetition, point, parameter=value, server_overrides=overrides
            )

        def metric(value, outcomes: list[Outcome]) -> float | None:
            return search.stop_metric((sweep.stop or {}).get("metric"), workload(value)[1], outcomes)

        def describe(value, outcomes: list[Outcome]) -> str:
            figure = metric(value, outcomes)
            return f"{(sweep.stop or {}).get('metric', 'metric')} {figure:.3g}" if figure is not None else "measured"

        def holds(value, outcomes: list[Outcome]) -> bool:
            figure = metric(value, outcomes)
            return figure is None or figure <= (sweep.stop or {})["above"]

        stop = search.StopRule(holds) if sweep.stop else None
        logger.info(
            f"{client} → {server}, {name}"
            + (f": stop when {sweep.stop['metric']} > {sweep.stop['above']}" if sweep.stop else "")
        )
        self._verdict(
            search.sweep(
                sweep.points(self.profile),
                measure,
                phase.repetitions,
                stop,
                log=lambda line: logger.info(f"{name} = {line}"),
                describe=describe,
            )
        )

    def capacity_should_be_found(self, client: str, server: str) -> None:
        """Open-loop search for the highest read rate `server` sustains within the plan's
        bound, then one run beyond it to classify the overload behaviour."""
        capacity, phase = self.plan.capacity, self.plan.phase(self.profile, "capacity")
        assert capacity, f"{self.plan.path} has no [capacity]"
        client_sdk, server_sdk = sdks.get(client), sdks.get(server)
        session = self._session()

        def probe(rate: float, label: str) -> search.Probe:
            try:
                running = session.server(server_sdk)
            except AdapterError as error:
                raise AssertionError(f"server did not start: {error}") from None
            workload = dict(capacity.workload, rate=rate, warmup_s=phase.warmup_s, duration_s=phase.duration_s)
            config = session.client_config(running, workload)
            outcome = session.run_client(client_sdk, running, config)
            figures = search.probe_figures(outcome, rate, phase.duration_s)
            if wrong_values(outcome):
                session.record(
                    "capacity", client_sdk, server_sdk, "wrong values", 0, config, outcome, running.config, rate
                )
                raise AssertionError(f"at {rate:.0f} requests/s: {outcome.reason}")
            ok = bool(
                figures
                and figures["completed"] >= capacity.min_completed
                and figures["p99_ms"] <= capacity.p99_ms
                and running.alive
            )
            verdict = label if label == "overload" else ("sustained" if ok else "missed")
            session.record("capacity", client_sdk, server_sdk, verdict, 0, config, outcome, running.config, rate)
            logger.info(
                f"{rate:.0f} requests/s offered: {verdict}"
                + (
                    f", {figures['completed']:.1%} completed, p99 {figures['p99_ms']:.2f} ms"
                    if figures
                    else f": {search.first_line(outcome.reason)}"
                )
            )
            return search.Probe(ok, figures, outcome)

        try:
            found = search.capacity(
                probe, capacity.start_rate, capacity.max_rate, capacity.refine_steps, capacity.overload_factor
            )
        except search.NoCapacity as none:
            raise AssertionError(
                f"{server} does not sustain even {none.rate:g} requests/s within p99 ≤ {capacity.p99_ms:g} ms"
            ) from None
        sustained = found.figures
        running = next(iter(session.servers.values()), None)
        alive = bool(running and running.alive)
        behaviour = search.classify_overload(sustained["throughput"], found.overload.figures, alive)
        session.store.add_cell(
            session.run_id,
            suite=self.suite,
            kind="capacity-verdict",
            client=client,
            server=server,
            variant=behaviour,
            parameter=str(found.rate),
            repetition=0,
            status="pass",
            reason=f"capacity {sustained['throughput']:.0f} requests/s (offered "
            f"{found.rate:.0f}); at {found.overload_rate:.0f}/s: {behaviour}",
            result={
                "capacity_offered": found.rate,
                "capacity_throughput": sustained["throughput"],
                "capacity_p99_ms": sustained["p99_ms"],
                "overload_offered": found.overload_rate,
                "overload": found.overload.figures,
                "behaviour": behaviour,
                "p99_bound_ms": capacity.p99_ms,
            },
        )
        if not alive:
            session.stop_servers()
        logger.info(
            f"{server}: capacity {sustained['throughput']:.0f} requests/s (p99 {sustained['p99_ms']:.2f} ms); "
            f"overload at {found.overload_rate:.0f}/s: {behaviour}"
        )

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
        verdict = Outcome(
            "pass" if refused else "fail",
            f"refused: {search.first_line(outcome.reason)}"
            if refused
            else f"{server_id} accepted a client with an {what}: it must refuse it",
        )
        session.record("negative", client, server, what, 0, config, verdict, running.config)
        if not refused:
            raise AssertionError(verdict.reason)
        logger.info(verdict.reason)

    def _throughput_workload(self, variant: str) -> tuple[dict, int]:
        phase = self.plan.phase(self.profile, "throughput")
        workload = dict(
            self.plan.variant("throughput", variant).workload, warmup_s=phase.warmup_s, duration_s=phase.duration_s
        )
        return workload, phase.repetitions

    def _measure(
        self,
        kind: str,
        client_id: str,
        server_id: str,
        variant: str,
        repetition: int,
        workload: dict,
        processes: int = 1,
        parameter: object = None,
        server_overrides: dict | None = None,
    ) -> Outcome:
        return self._session().cell(
            kind,
            sdks.get(client_id),
            sdks.get(server_id),
            variant,
            repetition,
            workload,
            processes,
            parameter,
            server_overrides,
        )

    def _cell(
        self,
        kind: str,
        client_id: str,
        server_id: str,
        variant: str,
        repetition: int,
        workload: dict,
        processes: int = 1,
    ) -> Outcome:
        """One recorded cell that must pass (skipped if not supported)."""
        outcome = _passed(self._measure(kind, client_id, server_id, variant, repetition, workload, processes))
        result = outcome.measured
        logger.info(
            f"{result['operations']['succeeded']} operations, {result['values']} values verified, "
            f"{result['throughput']['values_per_s']:.0f} values/s" + (" [client-bound]" if outcome.client_bound else "")
        )
        return outcome

    @staticmethod
    def _verdict(found: search.SweepResult) -> None:
        if found.unsupported:
            raise SkipExecution(f"not supported: {found.skipped[0][1]}")
        if found.failed:
            raise AssertionError(
                f"{len(found.failed)} point(s) failed: "
                + "; ".join(f"{value}: {search.first_line(why)}" for value, why in found.failed)
            )

    # --- PubSub (suites/pubsub.robot, engine/pubsub.py) --------------------------------------

    def pubsub_adapters_should_be_installed(self) -> None:
        """Every SDK answers `capabilities` with the PubSub roles its sdk.toml declares, and
        names the reason where it has none; there is a publisher and a subscriber."""
        self._adapters(("publisher", "subscriber"))

    def pubsub_sweep_should_complete(self, publisher: str, subscriber: str) -> None:
        """N signals at the publishing interval, N rising until the publisher misses its
        interval by more than 10 %: publisher CPU and subscriber figures at every point."""
        self._verdict(pubsub.sweep(self._pubsub_run(), publisher, subscriber, logger.info))

    def pubsub_subscriber_sweep_should_complete(self, publisher: str, subscriber: str) -> None:
        """1, 2, 4, 8 subscribers, each in its own network namespace on a bridge, created
        and removed by the harness: the publisher's CPU as subscribers are added."""
        missing = netns.unavailable()
        if missing:
            raise SkipExecution(f"not supported: {missing}")
        try:
            self._verdict(pubsub.subscriber_sweep(self._pubsub_run(), publisher, subscriber, logger.info))
        except netns.HostsError as error:
            raise AssertionError(f"network namespaces: {error}") from None

    def pubsub_interop_should_pass(self, publisher: str, subscriber: str) -> None:
        """`publisher` → `subscriber`: every NetworkMessage decodes, every value verifies."""
        _passed(pubsub.interop(self._pubsub_run(), publisher, subscriber, logger.info))

    def _pubsub_run(self) -> pubsub.PubSubRun:
        return pubsub.PubSubRun(self._session(), self.plan, self.profile)

    def _session(self) -> Session:
        if self.session is None:
            self.start_benchmark_run()
        assert self.session
        return self.session


def _passed(outcome: Outcome) -> Outcome:
    """The outcome of a cell that must pass; Robot skips what is not supported."""
    if outcome.status == "not_supported":
        raise SkipExecution(f"not supported: {outcome.reason}")
    if outcome.status != "pass":
        raise AssertionError(outcome.reason)
    return outcome


NEGATIVE_WORKLOAD = {
    "workload": "read",
    "nodes": ["Real"],
    "nodes_per_request": 1,
    "in_flight": 1,
    "warmup_s": 0.1,
    "duration_s": 0.3,
}
