"""Robot Framework keyword library for the uabench suites.

Imported by a suite with the suite's name (suites/benchmark.resource); the suite's test
cases, one per cell of its plan, come from the pre-run modifier uabench.robot.modifier."""

from __future__ import annotations

import contextlib
import dataclasses
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from robot.api import SkipExecution, logger
from robot.libraries.BuiltIn import BuiltIn
from robot.model import TagPatterns

from uabench import plan as plans
from uabench import sdks
from uabench.conformance import runner as conformance_runner
from uabench.conformance import suite as conformance_suite
from uabench.engine import (
    adapters,
    budget,
    capacity,
    interleave,
    overhead,
    pubsub,
    schedule,
    search,
    security_probe,
)
from uabench.engine.cells import CellSpec, Outcome, wrong_values
from uabench.engine.constants import DISTURBED_RETRIES, HEADROOM_REPETITIONS
from uabench.engine.session import Server, Session, free_port
from uabench.engine.warmup import SteadyRule
from uabench.footprint import memory as footprint_memory
from uabench.footprint import plan as footprint_plan
from uabench.footprint import runner as footprint_runner
from uabench.footprint import suite as footprint_suite
from uabench.instructions import runner as instructions_runner
from uabench.instructions import suite as instructions_suite
from uabench.netpath import path as network_path
from uabench.network import run as network_engine
from uabench.pki import Identity
from uabench.plan_table import Workload
from uabench.proc import cgroups, netns
from uabench.profile import figures as profile_figures
from uabench.profile import profilers
from uabench.profile import suite as profile_suite
from uabench.profile.plan import ProfileProfile, ProfileSetup
from uabench.resilience import runner as resilience_runner
from uabench.resilience import suite as resilience_suite
from uabench.results import instruction_counts as instructions_counts
from uabench.results import stats, sustain
from uabench.results.store import open_store
from uabench.robustness import runner as robustness_runner
from uabench.robustness import suite as robustness_suite
from uabench.robustness import trials
from uabench.robustness.recorder import Recorder
from uabench.targets.process import AdapterError


def _us(value: float | None) -> str:
    """A latency percentile, or why there is none (too few requests to tell it: stats.min_count)."""
    return f"{value:.0f} µs" if value is not None else "– (too few requests)"


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
        self.plan.require_profile(profile)  # an unknown profile fails at import, not mid-run
        self.store_location = store
        self.only = plans.selected(sdks)
        self.run_dir = Path(run_dir) if run_dir else None
        self.session: Session | None = None
        self._profiled_pids: set[int] = set()  # servers profiled: their perf maps go at the end
        self._network: network_engine.NetworkRun | None = None

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
        steady = SteadyRule(
            bound_s=self.plan.server_warmup_s(self.profile), chunk_s=self.plan.steady_chunk_s(self.profile)
        )
        self.session = Session(store, self.suite, self.profile, plan=self.plan, steady=steady, **extra)
        logger.info(f"schedule seed {self.session.seed} (UABENCH_SEED={self.session.seed} replays its block orders)")
        logger.info(f"run {self.session.run_id}, store {store.path}, work dir {self.session.workdir}")

    def finish_benchmark_run(self) -> None:
        """Stops every server the run started and closes the run in the store."""
        for pid in self._profiled_pids:
            profilers.remove_perf_maps(pid)
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
        found = adapters.problems(self.only, roles, logger.info, versions=self.profile in self.plan.versions)
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
        server_sdk = sdks.get(server)
        if workload["workload"] == "read":  # a node the server cannot send ([limits]) is left out, said here
            nodes = list(workload["nodes"])  # expanded when the plan was loaded
            kept = server_sdk.sendable(nodes)
            if kept and len(kept) < len(nodes):
                left = ", ".join(sorted(set(nodes) - set(kept)))
                logger.warn(f"{server} is not asked for {left}: not supported ({server_sdk.limits_reason})")
                workload["nodes"] = kept
        self._cell("interop", client, server, variant, 0, workload, warm=False)

    def throughput_ranking_should_be_measured(self, client: str, variant: str, servers: str) -> None:
        """Ranks `servers` (comma-separated) under the reference client's load: each warmed up
        to steady state with this load, then measured in interleaved blocks (each block every
        server once, in an order shuffled per block) until every server's interval is narrow
        or the profile's most repetitions are reached. Fails if a server's cell fails."""
        phase = self.plan.phase(self.profile, "throughput")
        workload = dict(
            self.plan.variant("throughput", variant).workload, warmup_s=phase.warmup_s, duration_s=phase.duration_s
        )
        found = self._compare("throughput", client, variant, [(s, None) for s in _included(servers)], phase, workload)
        for (server, _), outcomes in found.kept.items():
            latency = stats.latency_summary(search.merged_latency(outcomes))
            logger.info(f"{server}: {_figure(outcomes)}, p50 {_us(latency['p50_us'])}, p99 {_us(latency['p99_us'])}")
        self._compared(found)

    def security_overhead_should_be_measured(self, name: str, client: str, servers: str) -> None:
        """Every security mode of the sweep on every server in `servers`, interleaved: each
        block measures every (server, mode) once in a shuffled order, so the ratio of a mode to
        None is taken per block (paired) and drift hits every mode alike."""
        sweep, phase = self.plan.sweep(name), self.plan.phase(self.profile, "sweep")
        values = sweep.points(self.profile)

        def workload(value) -> dict:
            return dict(sweep.point(value)[1], warmup_s=phase.warmup_s, duration_s=phase.duration_s)

        items = [(server, value) for server in _included(servers) for value in values]
        found = self._compare("sweep", client, name, items, phase, workload, _ratios_to(values[0]))
        for (server, value), outcomes in found.kept.items():
            line = f"{server}, {value}: {_figure(outcomes)}"
            baseline = found.kept.get((server, values[0]))
            if baseline and value != values[0]:
                ratio = stats.paired_ratio(_throughputs(outcomes), _throughputs(baseline), seed=self._session().seed)
                line += f"; {ratio.center:.3f} × {values[0]} [{ratio.low:.3f}, {ratio.high:.3f}] (paired per block)"
            logger.info(line)
        self._compared(found)

    def _compare(
        self,
        kind: str,
        client: str,
        variant: str,
        items: list[tuple[str, object]],
        phase: plans.Phase,
        workload: dict | Callable[[object], dict],
        derived: Callable[[dict], dict] | None = None,
    ) -> interleave.Interleaved[tuple[str, object]]:
        """Runs `items` ((server, parameter) pairs) in interleaved, adaptive blocks; each item
        is warmed up to steady state with its own load before its first repetition."""
        session = self._session()
        rule = schedule.Repetitions(phase.repetitions, phase.most_repetitions)

        def measure(item: tuple[str, object], block: int, judge_host: bool) -> Outcome:
            server, parameter = item
            load = workload(parameter) if callable(workload) else workload
            label = variant if parameter is None else f"{variant}: {parameter}"
            spec = CellSpec(kind, sdks.get(client), sdks.get(server), variant, block, load, parameter=parameter)
            return session.cell(spec, steady_label=label, judge_host=judge_host)

        logger.info(
            f"{len(items)} items in blocks of a shuffled order (seed {session.seed}); "
            f"{rule.minimum} to {rule.maximum} blocks, until every 95 % interval is within ±{rule.target:.0%}"
        )
        return interleave.interleave(
            items,
            measure,
            lambda outcome: outcome.measured["throughput"]["values_per_s"],
            rule,
            session.seed,
            log=logger.info,
            derived=derived,
            fits=budget.block_fits,
        )

    @staticmethod
    def _compared(found: interleave.Interleaved[tuple[str, object]]) -> None:
        """The verdict of an interleaved comparison: any item that failed fails the test, one
        where nothing was supported is skipped; figures left wide are said so."""
        logger.info(
            f"{found.blocks} blocks"
            + (f", {found.disturbed} disturbed repetitions measured again" if found.disturbed else "")
            + (
                "; still wider than the target after "
                + ("the blocks the time budget allowed" if found.budget_stopped else "the most blocks")
                + f": {', '.join(map(str, found.wide))}"
                if found.wide
                else ""
            )
        )
        failed = {item: o for item, o in found.dropped.items() if o.status != "not_supported"}
        for item, outcome in found.dropped.items():
            if outcome.status == "not_supported":
                logger.info(f"{item}: not supported: {search.first_line(outcome.reason)}")
        if failed:
            raise AssertionError(
                "; ".join(
                    f"{item}: {outcome.status}: {search.first_line(outcome.reason)}" for item, outcome in failed.items()
                )
            )
        if not found.kept:
            raise SkipExecution(
                "not supported: " + "; ".join(search.first_line(o.reason) for o in found.dropped.values())
            )

    def load_generator_headroom_should_be_measured(self, client: str) -> None:
        """Loads the fastest server of this run with one and then two processes of the
        reference client, both on the load generator's CPUs: if two deliver clearly more,
        one process was the bottleneck (client-bound)."""
        session = self._session()
        cores = sorted(session.client_cpus or [])
        if len(cores) < 2:  # a second process on the first one's core shares its CPU: it cannot show a limit
            raise SkipExecution(
                "not measurable on this machine: the load generator has "
                + (f"one core (CPU {cores[0]})" if cores else "no cores of its own (pinning off)")
                + ", and a second process on the same core cannot show whether one process limits the load"
            )
        fastest = search.fastest_server(session.store.cells([session.run_id]), self.plan.ranking, client)
        if fastest is None:
            raise AssertionError("no throughput result in this run to pick the fastest server from")
        assert self.plan.ranking, "headroom needs the plan's ranking variant"
        workload, repetitions = self._throughput_workload(self.plan.ranking)
        repetitions = min(repetitions, HEADROOM_REPETITIONS)

        def measure(processes: int, repetition: int) -> Outcome:
            label = f"{processes} process" + ("es" if processes > 1 else "")
            return self._cell("headroom", client, fastest, label, repetition, workload, processes)

        figures, gain = search.headroom(measure, repetitions, session.seed)
        logger.info(
            f"{client} load on {fastest}: 1 process {figures[1]['mean']:.0f} values/s, "
            f"2 processes {figures[2]['mean']:.0f} values/s ({gain:+.0%})"
        )

    def sampling_overhead_should_be_measured(self, client: str, variant: str) -> None:
        """`client` against its own server with the ranking `variant`'s load, resource sampling
        on and off in interleaved blocks (engine.overhead): what the samplers cost a figure."""
        session, reference = self._session(), sdks.get(client)
        workload, repetitions = self._throughput_workload(variant)

        def cell(arm: str, block: int) -> Outcome:
            spec = CellSpec(overhead.KIND, reference, reference, variant, block, workload, parameter=arm)
            return session.cell(spec, steady_label=variant)

        found = overhead.compare(cell, repetitions, session.seed, logger.info)
        logger.info(overhead.summary(found, session.seed))
        failed = [f"{arm}: {o.status}: {search.first_line(o.reason)}" for arm, o in found.dropped.items()]
        if failed:
            raise AssertionError("; ".join(failed))

    def sweep_should_complete(self, name: str, client: str, server: str) -> None:
        """Measures `server` at every point of the sweep, in order. A sweep with a stop
        condition ends at the first point that misses it (confirmed by measuring it and the last
        held point once more) or fails (the server reached its limit; only a failure at the first
        point fails the test), bisects the limit between them and records it as a
        `sweep-verdict` cell. A sweep without one measures every point and fails the test if
        any point failed."""
        sweep = self.plan.sweep(name)
        phase = self.plan.phase(self.profile, "sweep")

        def workload(value) -> tuple[dict, dict]:
            overrides, point = sweep.point(value)
            return overrides, dict(point, warmup_s=phase.warmup_s, duration_s=phase.duration_s)

        attempts: dict[tuple, int] = {}

        def measure(value, repetition: int) -> Outcome:
            overrides, point = workload(value)
            attempt = attempts[(value, repetition)] = attempts.get((value, repetition), -1) + 1
            # a subscription's cycle time is set by the server's update loop, not by how fast it
            # answers requests: only request/response sweeps warm a server up to steady state
            spec = CellSpec(
                "sweep", sdks.get(client), sdks.get(server), name, repetition, point, parameter=value,
                server_overrides=overrides,
            )  # fmt: skip
            return self._session().cell(
                spec,
                warm=point["workload"] != "subscribe",
                judge_host=attempt < DISTURBED_RETRIES,  # the last attempt is kept whatever it met
            )

        stop = sweep.stop or {}
        sustained = stop.get("metric") == "sustained"

        def describe(value, outcomes: list[Outcome]) -> str:
            # a subscription point is described by the sustain rule whether or not it stops the sweep
            if sustained or (not stop and sweep.workload.get("workload") == "subscribe"):
                return sustain.judge([o.result or {} for o in outcomes]).text()
            figure = search.stop_metric(stop.get("metric"), workload(value)[1], outcomes)
            return f"{stop.get('metric', 'metric')} {figure:.3g}" if figure is not None else "measured"

        def holds(value, outcomes: list[Outcome]) -> bool:
            if sustained:
                return sustain.judge([o.result or {} for o in outcomes]).held
            # decided on the median of the repetitions' figures, like the sustain rule
            each = [search.stop_metric(stop["metric"], workload(value)[1], [o]) for o in outcomes]
            figures = [figure for figure in each if figure is not None]
            return not figures or statistics.median(figures) <= stop["above"]

        logger.info(
            f"{client} → {server}, {name}"
            + (f": stop when not sustained ({sustain.RULE})" if sustained else "")
            + (f": stop when {stop['metric']} > {stop['above']}" if "above" in stop else "")
        )
        found = search.sweep(
            sweep.points(self.profile),
            measure,
            phase.repetitions,
            search.StopRule(holds) if sweep.stop else None,
            log=lambda line: logger.info(f"{name} = {line}"),
            describe=describe,
            bisection=search.Bisection(phase.resolution, phase.bisect_steps),
        )
        if found.limit:
            unit = sweep.kind if sweep.kind in ("signals", "sessions") else ""
            rule = None if sustained else dict(stop)
            verdict = search.record_limit(self._session(), "sweep-verdict", client, server, name, found, unit, rule)
            logger.info(f"{server}: {verdict['text']}")
        self._verdict(found)

    def capacity_should_be_found(self, client: str, server: str) -> None:
        """Open-loop search for the highest read rate `server` sustains within the plan's
        bound (engine/capacity.py: completions inside the window, p99 from the schedule, the
        bracket confirmed), then the overload probes that classify its behaviour beyond it."""
        bound, phase = self.plan.capacity, self.plan.phase(self.profile, "capacity")
        assert bound, f"{self.plan.path} has no [capacity]"
        client_sdk, server_sdk = sdks.get(client), sdks.get(server)
        session = self._session()
        refused = server_sdk.refuses(client)
        if refused:  # the server declares it never gives this client a session (sdk.toml [interop])
            raise SkipExecution(f"not supported: {refused}")

        def probe(rate: float, label: str) -> capacity.Probe:
            try:
                running = session.server(server_sdk)
            except AdapterError as error:
                raise AssertionError(f"server did not start: {error}") from None
            workload = dict(bound.workload, rate=rate, warmup_s=phase.warmup_s, duration_s=phase.duration_s)
            config = session.client_config(running, workload)
            outcome = session.run_client(client_sdk, running, config)
            figures = capacity.probe_figures(outcome, rate, phase.duration_s)
            if wrong_values(outcome):
                session.record(
                    "capacity", client_sdk, server_sdk, "wrong values", 0, config, outcome, running.config, rate
                )
                raise AssertionError(f"at {rate:.0f} requests/s: {outcome.reason}")
            behind = capacity.generator_behind(figures, bound.p99_ms)
            ok = capacity.probe_held(figures, bound.min_completed, bound.p99_ms, running.alive)
            verdict = label if label == "overload" else ("sustained" if ok else "missed")
            if figures is not None:
                outcome = dataclasses.replace(
                    outcome,
                    result={**(outcome.result or {}), "capacity_probe": {**figures, "generator_behind": behind}},
                )
            session.record("capacity", client_sdk, server_sdk, verdict, 0, config, outcome, running.config, rate)
            logger.info(
                f"{rate:.0f} requests/s offered ({label}): {verdict}"
                + (
                    f", {figures['throughput']:.0f}/s completed in the window ({figures['completed']:.1%}), "
                    f"p99 {figures['p99_ms']:.2f} ms" + (" [load generator behind its schedule]" if behind else "")
                    if figures
                    else f": {search.first_line(outcome.reason)}"
                )
            )
            return capacity.Probe(ok, figures, outcome)

        try:
            found = capacity.capacity(
                probe,
                bound.start_rate,
                bound.max_rate,
                bound.refine_steps,
                bound.overload_factors,
                bound.overload_repetitions,
            )
        except capacity.NoCapacity as none:
            raise AssertionError(
                f"{server} does not sustain even {none.rate:g} requests/s within p99 ≤ {bound.p99_ms:g} ms"
            ) from None
        # the server the probes ran on (others may be kept paused beside it)
        running = next((one for one in session.servers.values() if one.sdk.id == server and not one.paused), None)
        alive = bool(running and running.alive)
        judged = capacity.verdict(found, bound.p99_ms, bound.min_completed, alive)
        session.add_cell(
            suite=self.suite,
            kind="capacity-verdict",
            client=client,
            server=server,
            variant=judged.behaviour,
            parameter=str(found.rate),
            repetition=0,
            status="pass",
            reason=judged.reason,
            result=judged.result,
        )
        if not alive:
            session.stop_servers()
        logger.info(judged.line(server, found))

    def latency_at_common_loads_should_be_measured(self, client: str, servers: str) -> None:
        """The open-loop latency table (wrk2's method): every server in `servers` at the plan's
        common offered loads and at shares of its own capacity found in this run, latency from
        each request's scheduled send time. The (server, load) cells run in an order shuffled
        per block from the run's seed; a load whose request rate is beyond a server's measured
        capacity is not run (a growing queue has no latency to tell) and is stored as such."""
        bound, phase = self.plan.capacity, self.plan.phase(self.profile, "latency")
        assert bound and bound.latency, f"{self.plan.path} has no [capacity.latency]"
        session = self._session()
        found = capacity.capacities(session.store.cells([session.run_id]))
        todo, skipped = capacity.latency_loads(bound.latency, _included(servers), found, phase.duration_s)
        for server, label, rate, why in skipped:
            session.add_cell(
                suite=self.suite,
                kind="latency",
                client=client,
                server=server,
                variant=label,
                parameter=rate,
                repetition=0,
                status="not_run",
                reason=why,
                result=None,
            )
            logger.info(f"{server} at {label}: {why}")
        failed = []
        for block in range(phase.repetitions):
            for index in schedule.block_order(range(len(todo)), session.seed, block):
                server, label, rate, nodes = todo[index]
                workload = dict(
                    bound.workload,
                    rate=rate,
                    nodes_per_request=nodes,
                    warmup_s=phase.warmup_s,
                    duration_s=phase.duration_s,
                )
                outcome = self._measure("latency", client, server, label, block, workload, parameter=rate)
                if outcome.status == "not_supported":  # stored with its reason, e.g. a refused client
                    logger.info(f"{server} at {label}: not supported: {search.first_line(outcome.reason)}")
                    continue
                if outcome.status != "pass":
                    failed.append(f"{server} at {label}: {search.first_line(outcome.reason)}")
                    continue
                figures = capacity.probe_figures(outcome, rate, phase.duration_s) or {}
                latency = stats.latency_summary(search.merged_latency([outcome]))
                logger.info(
                    f"{server} at {label}: {figures.get('completed', 0):.1%} completed in the window, "
                    f"p50 {_us(latency['p50_us'])}, p99 {_us(latency['p99_us'])} (n = {latency['count']})"
                )
        if failed:
            raise AssertionError(f"{len(failed)} latency cell(s) failed: " + "; ".join(failed))

    def untrusted_client_should_be_rejected(self, client: str, server: str) -> None:
        """The server itself must refuse a channel from a client whose certificate it does not
        trust (a security-related Bad status to the security probe, not a timeout or a closed
        socket), and then still serve the trusted `client`."""
        _needs_a_secure_channel(client, server)
        session = self._session()
        running = session.server(sdks.get(server), warm=False)
        security = {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}
        self._expect_refusal(client, server, "untrusted certificate", security, session.pki.stranger, running)

    def unoffered_policy_should_be_refused(self, client: str, server: str) -> None:
        """A server offering only None and Basic256Sha256/SignAndEncrypt must itself refuse a
        channel asking for Basic256Sha256/Sign: the security probe asks it without matching
        endpoints first (a client that does gives up on its own and asks no server)."""
        _needs_a_secure_channel(client, server)  # a server without it cannot even offer the endpoints
        session = self._session()
        endpoints = [{"policy": "None", "mode": "None"}, {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}]
        security_config = dict(session.server_config(sdks.get(server))["security"], endpoints=endpoints)
        running = session.server(sdks.get(server), warm=False, security=security_config)
        security = {"policy": "Basic256Sha256", "mode": "Sign"}
        self._expect_refusal(client, server, "unoffered policy", security, session.pki.client, running)

    def _expect_refusal(
        self, client_id: str, server_id: str, what: str, security: dict, identity: Identity, running
    ) -> None:
        session = self._session()
        client, server = sdks.get(client_id), sdks.get(server_id)
        trusted = TRUSTED_SECURITY
        config = session.client_config(running, {"probe": f"asyncua {security_probe.version()}"}, security, identity)
        found = security_probe.handshake(
            running.endpoint, security["policy"], security["mode"], identity, session.pki.server.certificate
        )
        verdict = security_probe.judge(found, running.alive, f"a client with an {what}")
        reason = verdict.reason
        if verdict.refused:  # a refusal that leaves the server unable to serve is no refusal
            after = session.run_client(
                client, running, session.client_config(running, dict(NEGATIVE_WORKLOAD), trusted)
            )
            if after.status != "pass":
                verdict = security_probe.Verdict(
                    False,
                    f"{reason}, but then the trusted {client_id} client failed: {search.first_line(after.reason)}",
                )
        outcome = Outcome(
            "pass" if verdict.refused else "fail",
            verdict.reason,
            result={
                "probe": {
                    **security,
                    "step": found.step,
                    "status": found.status,
                    "ms": found.ms,
                    "detail": found.detail,
                }
            },
        )
        session.record("negative", client, server, what, 0, config, outcome, running.config)
        declared = server.deviations.get(what)
        if (
            not verdict.refused
            and declared
            and running.alive
            and declared.matches(found.step, found.status, found.detail)
        ):
            raise SkipExecution(f"known deviation of {server_id}: {declared.why}; found again: {verdict.reason}")
        if not verdict.refused:
            raise AssertionError(f"{server_id}: {verdict.reason}")
        if declared:
            logger.warn(f"{server_id} refused as it should, though its sdk.toml declares a deviation: {declared.why}")
        logger.info(verdict.reason)

    def conformance_should_be_measured(self, server_id: str, group: str) -> None:
        """The conformance probe's checks of `group` against `server_id`, each recorded as a
        cell (pass; fail: a deviation or the probe's own error; not_supported; not_run:
        inconclusive). Fails on a deviation the SDK's sdk.toml does not declare, or when the
        server died; a declared one is a warning."""
        session = self._session()
        setup = conformance_suite.of(self.plan)
        assert setup, "Conformance Should Be Measured needs a conformance plan"
        chosen = setup.profiles[self.profile]
        server = sdks.get(server_id)
        probe = sdks.get("asyncua")  # the probe is asyncua's low-level client (conformance/probe.py)
        running = session.server(server, warm=False, signals=setup.signals, writes=setup.writes)
        settings = {
            "signals": setup.signals,
            "writes": setup.writes,
            "endpoints": running.config["security"]["endpoints"],
            "session_wait_s": chosen.session_wait_s,
            "timeout_s": chosen.timeout_s,
            "gates": chosen.gates,
        }
        config = {"endpoint": running.endpoint, "probe": conformance_runner.probe_version(), **settings}
        found = conformance_runner.run(running.endpoint, group, settings)
        alive = running.alive
        unexpected, known = [], []
        for one in found:
            verdict = one.verdict
            if not alive and verdict.outcome != "pass":
                verdict = dataclasses.replace(verdict, outcome="deviation", got=f"the server died: {verdict.got}")
            status = {"pass": "pass", "not_supported": "not_supported", "inconclusive": "not_run"}.get(
                verdict.outcome, "fail"
            )
            declared = server.conformance.get(one.check.id)
            line = f"{one.check.unit}: {one.check.title}: {verdict.got}"
            # a probe's error may be the server's doing too (a renewal left unanswered times out)
            if verdict.outcome in ("deviation", "error") and declared and declared.matches(verdict.got):
                known.append(f"{line} (known: {declared.why})")
            elif verdict.outcome in ("deviation", "error"):
                unexpected.append(f"{line} (expected {one.check.expected})")
            elif declared:
                logger.warn(f"{server_id}: {one.check.id} {verdict.outcome}, though sdk.toml declares: {declared.why}")
            result = {
                "unit": one.check.unit,
                "group": group,
                "title": one.check.title,
                "cite": one.check.cite,
                "expected": one.check.expected,
                "outcome": verdict.outcome,
                "got": verdict.got,
                "headroom": verdict.headroom,
                "known": declared.why if declared and verdict.outcome in ("deviation", "error") else None,
                "observed": one.observed,
            }
            outcome = Outcome(status, verdict.got, result=result)
            session.record("conformance", probe, server, one.check.id, 0, config, outcome, running.config)
            logger.info(f"{one.check.id}: {verdict.outcome}: {verdict.got}")
        for line in known:
            logger.warn(f"{server_id}: known deviation: {line}")
        if not alive:
            unexpected.insert(0, f"the server died during the probe: {running.death_reason()}")
        if unexpected:
            raise AssertionError(f"{server_id}: {len(unexpected)} deviation(s): " + "; ".join(unexpected))

    def instructions_should_be_counted(self, server_id: str, workload_name: str) -> None:
        """The instructions `server_id` executes per operation of the instructions workload
        `workload_name` (instructions/counts.py): the profile's pairs of loads on one server
        process under callgrind, each load a cell, each pair one difference; first the same workload timed
        without valgrind (its own server, warm), the figure the count stands beside. Fails when a
        count cannot be taken; differences further apart than the plan's tolerance are a warning
        (with the reason the plan gives for a runtime that schedules by the clock) and marked in
        the report.
        A server in a language the plan does not count is recorded as such, and skipped."""
        session = self._session()
        setup = instructions_suite.of(self.plan)
        assert setup, "Instructions Should Be Counted needs an instructions plan"
        chosen = setup.profiles[self.profile]
        server = sdks.get(server_id)
        reference = sdks.get(plans.reference_client() or server.base)
        why = setup.why_not_counted(server.language)
        if why:
            session.record("instructions", reference, server, "", 0, {}, Outcome("not_supported", why))
            raise SkipExecution(f"not counted: {why}")
        missing = instructions_runner.valgrind_missing()
        if missing:
            raise AssertionError(missing)
        one = setup.workload(workload_name)
        client = _load_client(reference, server, one.workload["workload"])
        # the timing first: the same workload natively, its own warm server, the profile's repetitions
        for repetition in range(chosen.timing_repetitions):
            workload = {**one.workload, "duration_s": chosen.timing_duration_s}
            spec = CellSpec(
                "instructions-timing", client, server, one.name, repetition, workload, server_overrides=one.server
            )
            timed = session.cell(spec, steady_label=f"instructions: {one.name}")
            if timed.status == "not_supported":
                raise SkipExecution(f"not supported: {timed.reason}")
            if timed.status != "pass":
                raise AssertionError(f"{one.name} on {server_id}, timed without valgrind: {timed.reason}")
        session.stop_servers()  # nothing else on the server cores while valgrind runs
        differences, errors = instructions_runner.differences(session, server, client, one, chosen)
        if errors:
            raise AssertionError(f"{one.name} on {server_id}: " + "; ".join(errors))
        spread = instructions_counts.spread(differences)
        shown = ", ".join(f"{d.per_request:,.0f}" for d in differences)
        apart = f" ({spread:.4%} apart)" if spread is not None else ""
        logger.info(f"{one.name} on {server_id}: instructions per {one.per}: {shown}{apart}")
        if spread is not None and spread > setup.tolerance:
            line = (
                f"{one.name} on {server_id}: the differences lie{apart} further than the plan's {setup.tolerance:.1%}"
            )
            # a measured property of the count, shown as such in the report, not a broken run
            time_driven = setup.time_driven.get(server.language)
            logger.warn(f"{line}: {time_driven}" if time_driven else line)

    # --- footprint (suites/footprint.robot, footprint/runner.py) ---------------------------------

    def _footprint(self) -> tuple[footprint_plan.FootprintSetup, footprint_plan.FootprintProfile]:
        setup = footprint_suite.of(self.plan)
        assert setup, "the footprint keywords need a footprint plan"
        return setup, setup.chosen(self.profile)

    def server_footprint_should_be_measured(self, server_id: str, model_name: str) -> None:
        """The RSS `server_id` needs per step of the footprint model `model_name` (held − idle of
        one server process per point, the reference client holding the step), and the slope of
        it over the steps with its interval. Fails when a point fails."""
        setup, chosen = self._footprint()
        server, model = sdks.get(server_id), setup.model(model_name)
        client = _load_client(sdks.get(plans.reference_client() or server.base), server, model.workload["workload"])
        points, failures = footprint_runner.measure_model(
            self._session(), setup, chosen, self.profile, (server, client), model, logger.info
        )
        _footprint_verdict(failures, f"{model.name} of {server_id}")
        fitted = footprint_memory.fit([float(x) for x, _ in points], [float(y) for _, y in points])
        if fitted:
            logger.info(f"{server_id}: {fitted.slope / 1024:,.2f} KiB per {model.unit} ({fitted.points} points)")

    def server_start_up_should_be_measured(self, server_id: str) -> None:
        """`server_id`'s time from process start to ready, its idle RSS and a new session's first
        requests, at each signal count of the profile, each point a server process of its own."""
        setup, chosen = self._footprint()
        server = sdks.get(server_id)
        client = _load_client(sdks.get(plans.reference_client() or server.base), server, "read")
        failures = footprint_runner.measure_startup(
            self._session(), setup, chosen, self.profile, (server, client), logger.info
        )
        _footprint_verdict(failures, f"start-up of {server_id}")

    def server_image_should_be_measured(self, server_id: str) -> None:
        """The size of each image of `server_id` built here (uabench images), per architecture;
        skipped when none is built."""
        server = sdks.get(server_id)
        sizes, missing = footprint_runner.image_sizes(server)
        if missing:
            raise SkipExecution(f"not measured: {missing}")
        outcome = Outcome("pass", result={"images": sizes})
        self._session().record(footprint_memory.IMAGE_KIND, server, server, "image", 0, {}, outcome)
        logger.info(", ".join(f"{arch} {size / 1e6:.0f} MB" for arch, size in sizes.items()))

    def client_footprint_should_be_measured(self, client_id: str) -> None:
        """The RSS of `client_id`'s client holding the profile's numbers of sessions against the
        reference server (or its own SDK's server, where the reference server refuses it)."""
        setup, chosen = self._footprint()
        client = sdks.get(client_id)
        reference = sdks.get(plans.reference_client() or client.base)
        server = reference if reference.refuses(client.id, "read") is None else sdks.get(client.base)
        failures = footprint_runner.measure_client(
            self._session(), setup, chosen, self.profile, client, server, logger.info
        )
        _footprint_verdict(failures, f"the {client_id} client")

    def server_should_be_profiled(self, server_id: str, workload_name: str) -> None:
        """A sampling profile of `server_id` under the profile workload `workload_name`
        (profile/profilers.py), on a server started with its runtime's profiling settings and
        warm: the profile's repetitions of a phase without the profiler and one with it, the
        overhead their throughputs' ratio; the samples of every profiled phase are folded into
        one profile, recorded with its functions by self time and its attribution."""
        session = self._session()
        setup = profile_suite.of(self.plan)
        assert setup, "Server Should Be Profiled needs a profile plan"
        chosen = setup.profiles[self.profile]
        server = sdks.get(server_id)
        missing = profilers.missing(server.language)
        if missing:
            raise AssertionError(f"{server_id} cannot be profiled: {missing}")
        one = setup.workload(workload_name)
        client = _load_client(sdks.get(plans.reference_client() or server.base), server, one.workload["workload"])
        workload = {**one.workload, "duration_s": chosen.duration_s}
        with profilers.environment(server.language):
            running = session.server(server, warm=False, **one.server)
        stacks: Counter[str] = Counter()
        ratios: list[float | None] = []
        # the server's perf map (a JIT runtime's) goes when the suite ends: the next workload's
        # profile of the same server needs the names of the code compiled before it
        self._profiled_pids.add(running.measured.process.pid)
        self._profiled(running, server, client, one, workload, setup, chosen, stacks, ratios)
        result = profile_figures.summary(stacks, setup.frequency_hz, setup.top, server.language, ratios)
        session.record("profile", client, server, one.name, 0, workload, Outcome("pass", result=result), running.config)
        shares = ", ".join(f"{name} {share:.0%}" for name, share in result["attribution"].items())
        logger.info(f"{server_id}, {one.name}: {result['samples']} samples; {shares}")

    def _profiled(
        self,
        running: Server,
        server: sdks.Sdk,
        client: sdks.Sdk,
        one: Workload,
        workload: dict,
        setup: ProfileSetup,
        chosen: ProfileProfile,
        stacks: Counter[str],
        ratios: list[float | None],
    ) -> None:
        """The profile's repetitions: a phase without the profiler, then one with it."""
        session = self._session()
        server_id = server.id
        for repetition in range(chosen.repetitions):
            cells = {}
            for arm in ("off", "on"):
                label = f"profile: {one.name}"
                directory = session.workdir / f"profile-{server_id}-{workload_slug(one.name)}-{repetition}"
                with contextlib.ExitStack() as stack:
                    if arm == "on":
                        attached = stack.enter_context(
                            profilers.attached(
                                running.measured.process.pid, server.language, setup.frequency_hz, directory
                            )
                        )
                    spec = CellSpec(
                        "profile-timing", client, server, one.name, repetition, workload,
                        parameter=arm, server_overrides=one.server,
                    )  # fmt: skip
                    cells[arm] = session.cell(spec, steady_label=label)
                if cells[arm].status == "not_supported":
                    raise SkipExecution(f"not supported: {cells[arm].reason}")
                if cells[arm].status != "pass":
                    raise AssertionError(f"{one.name} on {server_id}, profiler {arm}: {cells[arm].reason}")
            stacks += attached.stacks
            off, on = (cells[arm].measured["throughput"]["values_per_s"] for arm in ("off", "on"))
            ratios.append(on / off if off else None)

    def corpus_should_be_recorded(self) -> None:
        """The fuzzer's corpus: the reference client's messages (a read, a write and a
        subscription) recorded through a proxy to its own SDK's server, kept in the run's
        directory. Fails when a message the fuzzer needs is missing."""
        session = self._session()
        reference = plans.reference_client()
        if reference is None:
            raise SkipExecution("not supported: no reference client installed")
        client = sdks.get(reference)
        running = session.server(sdks.get(reference), warm=False, signals=10, writes=10)
        host, port = running.endpoint.removeprefix("opc.tcp://").split("/")[0].rsplit(":", 1)
        with Recorder(free_port(), host, int(port)) as recorder:
            proxy = f"opc.tcp://127.0.0.1:{recorder.port}"
            for workload in robustness_runner.CORPUS_WORKLOADS:
                config = dict(session.client_config(running, dict(workload)), endpoint=proxy)
                outcome = session.run_client(client, running, config)
                if outcome.status != "pass":
                    raise AssertionError(
                        f"the reference client's {workload['workload']} through the recorder: "
                        f"{search.first_line(outcome.reason)}"
                    )
        problems = robustness_runner.corpus_problems(recorder.messages)
        recorder.save(self._corpus())
        logger.info(f"{len(recorder.messages)} messages recorded to {self._corpus()}")
        if problems:
            raise AssertionError("the corpus is incomplete: " + "; ".join(problems))

    def _corpus(self) -> Path:
        return self._session().workdir / "corpus.json"

    def server_should_survive(self, server_id: str, batch: str) -> None:
        """One hostile batch against `server_id`: its resources and a verified read before, right
        after and after the recovery wait, classified (robustness/survival.py) and stored. Fails
        when the server crashed or hung; a degradation is a warning."""
        session = self._session()
        setup = robustness_suite.of(self.plan)
        assert setup, "Server Should Survive needs a robustness plan"
        chosen = setup.profiles[self.profile]
        if not self._corpus().exists():
            raise AssertionError("no corpus: the test recording it did not pass")
        reference = plans.reference_client()
        assert reference is not None, "the corpus test needs the reference client"
        server = sdks.get(server_id)
        client = _load_client(sdks.get(reference), server, "read")
        try:
            found, verdict = trials.survive(
                session, client, server, batch, setup.seed, chosen, self._corpus(), dict(NEGATIVE_WORKLOAD)
            )
        except trials.NoBaseline as error:
            raise AssertionError(str(error)) from None
        answers = ", ".join(f"{kind} ×{n}" for kind, n in sorted(found["answers"].items()))
        logger.info(f"{batch}: {found['cases']} cases; answers: {answers or 'none'}; {verdict.outcome}")
        if found.get("failure"):
            logger.warn(f"{server_id}: {batch}: reproducer {found['failure']['reproducer']}")
        if verdict.outcome in ("crashed", "hung"):
            found_again = f"{verdict.outcome}: {verdict.reason}"
            known = server.robustness.get(batch)
            if known and known.matches(found_again):  # stored as it is; sdk.toml [robustness] says why
                logger.warn(f"{server_id} {found_again} under {batch}: known: {known.why}")
                raise SkipExecution(f"known failure of {server_id} under {batch}: {known.why}; again: {found_again}")
            raise AssertionError(f"{server_id} {verdict.outcome} under {batch}: {verdict.reason}")
        if verdict.outcome != "unaffected":
            logger.warn(f"{server_id}: {batch}: {verdict.outcome}: {verdict.reason}")
        if verdict.memory:
            logger.info(f"{server_id}: {batch}: memory held after the wait: {verdict.memory}")

    def client_should_recover(self, client_id: str, server_id: str, incident: str, workload: str) -> None:
        """One incident (the server restarted on its port, or the path cut) during `workload` of
        `client_id` against `server_id`, as often as the profile repeats it, each stored
        (resilience/runner.py). Fails when the load did not resume (unless the client's SDK
        declares it has no automatic reconnection, or the server's declares the behaviour it fails
        on: then skipped with the reason) or went wrong."""
        session = self._session()
        setup = resilience_suite.of(self.plan)
        assert setup, "Client Should Recover needs a resilience plan"
        chosen = setup.profiles[self.profile]
        found = resilience_runner.measure(
            session, sdks.get(client_id), sdks.get(server_id), incident, workload, chosen, setup.signals
        )
        for _outcome, figures in found:
            logger.info(resilience_runner.describe(figures))
        failed = [o for o, _ in found if o.status == "fail"]
        if failed and all((o.result or {}).get("known") for o in failed):
            # the server's or the client's own known behaviour (sdk.toml [resilience] or
            # [client_resilience]): shown, not a new failure
            result = failed[0].result or {}
            known, whose = result["known"], result.get("known_on", f"{server_id} (server)")
            logger.warn(f"{client_id} → {server_id}: {incident} during {workload}: {failed[0].reason} (known: {known})")
            raise SkipExecution(f"known failure on {whose}'s behaviour: {known}; found again: {failed[0].reason}")
        if failed:
            raise AssertionError(f"{client_id} → {server_id}, {incident} during {workload}: {failed[0].reason}")
        if any(o.status == "not_supported" for o, _ in found):
            raise SkipExecution(f"not supported: {found[0][0].reason}")

    def server_should_not_leak(self, server_id: str) -> None:
        """The soak: a steady subscription from the reference client and session churn beside it
        for the profile's duration, the server's RSS, threads and descriptors sampled; their
        growth per hour with an interval (robustness/growth.py). Fails when the subscription
        load fails; a leak (an interval above zero) is a finding, stored and warned."""
        session = self._session()
        setup = robustness_suite.soak_of(self.plan)
        assert setup, "Server Should Not Leak needs a soak plan"
        chosen = setup.profiles[self.profile]
        reference = plans.reference_client()
        if reference is None:
            raise SkipExecution("not supported: no reference client installed")
        server = sdks.get(server_id)
        client = _load_client(sdks.get(reference), server, "subscribe")
        soaked = trials.soak(session, client, server, setup, chosen, self._corpus())
        outcome, rates, leaks, status = soaked.subscription, soaked.rates, soaked.leaks, soaked.status
        shown = {"rss_mb": "MB", "threads": "threads", "fds": "descriptors"}
        logger.info("; ".join(f"{m}: {g.text(shown[m])}" for m, g in rates.items() if g) or "too few samples")
        if status == "fail":
            raise AssertionError(
                f"{server_id}: the soak's subscription load failed: {search.first_line(outcome.reason)}"
            )
        if leaks:
            logger.warn(f"{server_id}: growing over the soak: {', '.join(leaks)}")

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
        warm: bool = True,
        retry_machine: bool = False,
    ) -> Outcome:
        outcome = self._session().cell(
            CellSpec(
                kind,
                sdks.get(client_id),
                sdks.get(server_id),
                variant,
                repetition,
                workload,
                processes,
                parameter,
                server_overrides,
            ),
            warm=warm,
            retry_machine=retry_machine,
        )
        if outcome.retried:  # reported, never hidden: the first attempt is stored as "disturbed"
            logger.warn(
                f"{client_id} → {server_id}: run once more, the first attempt failed for the machine's sake: "
                f"{outcome.retried}"
            )
        return outcome

    def _cell(
        self,
        kind: str,
        client_id: str,
        server_id: str,
        variant: str,
        repetition: int,
        workload: dict,
        processes: int = 1,
        warm: bool = True,
    ) -> Outcome:
        """One recorded cell that must pass (skipped if not supported); one that failed for the
        machine's sake (engine.cells.machine_failure) is run once more."""
        outcome = _passed(
            self._measure(
                kind, client_id, server_id, variant, repetition, workload, processes, warm=warm, retry_machine=True
            )
        )
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

    # --- networks (suites/network.robot, network/run.py) ------------------------------------

    def rtd_over_network_should_be_measured(self, network: str, servers: str) -> None:
        """Every server's RTD over `network` (a profile of suites/networks), every scenario of the
        plan, at least the profile's requests per cell; every cell passes."""
        self._network_verdict(lambda run: run.rtd(network, _included(servers), logger.info))

    def rtd_on_a_constrained_host_should_be_measured(self, cores: str, background: str, servers: str) -> None:
        """Every server on a host of `cores` cores (a cgroup CPU quota), beside a background load
        of `background` percent of it (0: isolated), its CPU sampled every 10 ms beside every RTD
        for the RTD–CPU study."""
        missing = cgroups.unavailable()
        if missing:
            raise SkipExecution(f"not supported: {missing}")
        self._network_verdict(
            lambda run: run.constrained(float(cores), float(background), _included(servers), logger.info)
        )

    def network_interop_should_pass(self, client: str) -> None:
        """`client` reads the reference server over the plan's interop network, every value verified."""
        self._network_verdict(lambda run: [run.interop(client, logger.info)])

    def subscriptions_over_network_should_be_measured(self, network: str, servers: str) -> None:
        """The reference client subscribes to every server over `network`: delay and gaps."""
        self._network_verdict(lambda run: run.subscriptions(network, _included(servers), logger.info))

    def pubsub_over_network_should_be_measured(self, network: str) -> None:
        """The reference publisher → subscriber over `network`: loss and delay of NetworkMessages."""
        self._network_verdict(lambda run: [run.pubsub(network, logger.info)])

    def _network_verdict(self, measure: Callable[[network_engine.NetworkRun], list[Outcome]]) -> None:
        missing = network_path.unavailable()
        if missing:
            raise SkipExecution(f"not supported: {missing}")
        if self._network is None:
            self._network = network_engine.NetworkRun(self._session(), self.plan, self.profile)
        try:
            outcomes = measure(self._network)
        except (network_path.PathError, cgroups.CgroupError) as error:
            raise AssertionError(f"network path: {error}") from None
        failed = [o for o in outcomes if o.status not in ("pass", "not_supported")]
        if failed:
            raise AssertionError(
                f"{len(failed)} of {len(outcomes)} cells failed: "
                + "; ".join(search.first_line(o.reason or o.status) for o in failed[:3])
            )

    def _pubsub_run(self) -> pubsub.PubSubRun:
        return pubsub.PubSubRun(self._session(), self.plan, self.profile)

    def _session(self) -> Session:
        if self.session is None:
            self.start_benchmark_run()
        assert self.session
        return self.session


def workload_slug(name: str) -> str:
    """A workload's name as a directory name: "read, SignAndEncrypt" → "read-signandencrypt"."""
    return plans.workload_tag(name).removeprefix("workload:")


def _included(servers: str) -> list[str]:
    """The servers of a comparison test that Robot's --include patterns select: the test carries
    every server's tag, so `--include server:milo` runs it, and here it measures milo alone
    (the patterns are matched against the test's tags with one server's tag in place of all)."""
    chosen = servers.split(",")
    patterns = TagPatterns(BuiltIn().get_variable_value("${OPTIONS.include}", []) or [])
    if not patterns:
        return chosen
    tags = [t for t in BuiltIn().get_variable_value("@{TEST TAGS}", []) if not t.startswith("server:")]
    return [server for server in chosen if patterns.match([*tags, f"server:{server}"])]


def _ratios_to(baseline: object) -> Callable[[dict], dict]:
    """The per-block ratios of every (server, variant) to (server, `baseline`): the figures a
    comparison reports, so the stop rule judges their intervals too."""

    def ratios(values: dict) -> dict:
        return {
            ("ratio", server, variant): [a / b for a, b in zip(series, values[(server, baseline)], strict=False) if b]
            for (server, variant), series in values.items()
            if variant != baseline and (server, baseline) in values
        }

    return ratios


def _throughputs(outcomes: list[Outcome]) -> list[float]:
    return [o.measured["throughput"]["values_per_s"] for o in outcomes]


def _figure(outcomes: list[Outcome]) -> str:
    """values/s of a compared item: estimate, interval, CV, repetitions, and why it is unstable."""
    found = stats.estimate(_throughputs(outcomes))
    bound = sum(o.client_bound for o in outcomes)
    cv = f", CV {found.cv:.1%}" if found.cv is not None else ""
    why = stats.unstable(found, ranked=True)
    return (
        f"{found.center:.0f} values/s [{found.low:.0f}, {found.high:.0f}] ({found.n} repetitions{cv})"
        + (f", client-bound in {bound}" if bound else "")
        + (f" — {why}" if why else "")
    )


def _footprint_verdict(failures: list[str], what: str) -> None:
    if failures and failures[0].startswith("not supported: "):
        raise SkipExecution(failures[0])
    if failures:
        raise AssertionError(f"{what}: {len(failures)} point(s) failed: " + "; ".join(failures))


def _load_client(reference: sdks.Sdk, server: sdks.Sdk, workload: str) -> sdks.Sdk:
    """The client that loads `server` where nothing is ranked (the robustness health reads, the
    soak's load): the reference client, unless the server declares it never gives that one a
    session (sdk.toml [interop], refused); then the server's own SDK's client, said in the log."""
    refused = server.refuses(reference.id, workload)
    if refused is None or "client" not in server.roles:
        return reference
    logger.warn(f"{server.id} refuses the {reference.id} client ({refused}): its own client loads it instead")
    return sdks.get(server.base)


TRUSTED_SECURITY = {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}


def _needs_a_secure_channel(client_id: str, server_id: str) -> None:
    """The negative security tests need a Basic256Sha256/SignAndEncrypt channel on both sides."""
    if not all(sdks.get(sdk).offers(**TRUSTED_SECURITY) for sdk in (client_id, server_id)):
        raise SkipExecution(f"not supported: {server_id} or {client_id} lacks Basic256Sha256/SignAndEncrypt")


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
