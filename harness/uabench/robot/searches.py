"""The client/server plans' searches: sweeps, capacity, latency at common loads
(suites/capacity.robot, subscription.robot, scenarios.robot, ...)."""

from __future__ import annotations

import dataclasses
import statistics

from robot.api import SkipExecution, logger
from robot.api.deco import keyword

from uabench import sdks
from uabench.engine import capacity, search
from uabench.engine.cells import CellSpec, Outcome, wrong_values
from uabench.engine.constants import DISTURBED_RETRIES
from uabench.engine.keywords import included, us
from uabench.results import stats, sustain
from uabench.results.kinds import CellKind
from uabench.robot.cells import Cells, sweep_verdict
from uabench.targets.process import AdapterError


class SearchKeywords(Cells):
    """Sweeps to a limit, the open-loop capacity search and the latency table."""

    @keyword
    def sweep_should_complete(self, name: str, client: str, server: str) -> None:
        """Measures `server` at every point of the sweep, in order. A sweep with a stop
        condition ends at the first point that misses it (confirmed by measuring it and the last
        held point once more) or fails (the server reached its limit; only a failure at the first
        point fails the test), bisects the limit between them and records it as a
        `sweep-verdict` cell. A sweep without one measures every point and fails the test if
        any point failed."""
        sweep = self.run.plan.sweep(name)
        phase = self.run.plan.phase(self.run.profile, "sweep")

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
                CellKind.SWEEP, sdks.get(client), sdks.get(server), name, repetition, point, parameter=value,
                server_overrides=overrides,
            )  # fmt: skip
            return self.run.session().cell(
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
            sweep.points(self.run.profile),
            measure,
            phase.repetitions,
            search.StopRule(holds) if sweep.stop else None,
            log=lambda line: logger.info(f"{name} = {line}"),
            describe=describe,
            bisection=search.Bisection(phase.resolution, phase.bisect_steps),
            limit_repetitions=phase.limit_repetitions,
        )
        if found.limit:
            unit = sweep.kind if sweep.kind in ("signals", "sessions") else ""
            rule = None if sustained else dict(stop)
            verdict = search.record_limit(
                self.run.session().recorder, CellKind.SWEEP_VERDICT, client, server, name, found, unit, rule
            )
            logger.info(f"{server}: {verdict['text']}")
        sweep_verdict(found)

    @keyword
    def capacity_should_be_found(self, client: str, server: str) -> None:
        """Open-loop search for the highest read rate `server` sustains within the plan's
        bound (engine/capacity.py: completions inside the window, p99 from the schedule, the
        bracket confirmed), then the overload probes that classify its behaviour beyond it."""
        bound, phase = self.run.plan.capacity, self.run.plan.phase(self.run.profile, "capacity")
        assert bound, f"{self.run.plan.path} has no [capacity]"
        client_sdk, server_sdk = sdks.get(client), sdks.get(server)
        session = self.run.session()
        refused = server_sdk.refuses(client)
        if refused:  # the server declares it never gives this client a session (sdk.toml [interop])
            raise SkipExecution(f"not supported: {refused}")

        def probe(rate: float, label: str) -> capacity.Probe:
            try:
                running = session.pool.get(server_sdk)
            except AdapterError as error:
                raise AssertionError(f"server did not start: {error}") from None
            workload = dict(bound.workload, rate=rate, warmup_s=phase.warmup_s, duration_s=phase.duration_s)
            # beyond capacity: every request's latency, to tell a queue that grows from one that does not
            workload["record_latencies"] = label == "overload"
            config = session.client_config(running, workload)
            outcome = session.run_client(client_sdk, running, config)
            figures = capacity.probe_figures(outcome, rate, phase.duration_s)
            if outcome.result and "latencies" in outcome.result:  # read into the figures; too large to store
                outcome = dataclasses.replace(
                    outcome, result={k: v for k, v in outcome.result.items() if k != "latencies"}
                )
            if wrong_values(outcome):
                session.recorder.record(
                    CellKind.CAPACITY, client_sdk, server_sdk, "wrong values", 0, config, outcome, running.config, rate
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
            session.recorder.record(
                CellKind.CAPACITY, client_sdk, server_sdk, verdict, 0, config, outcome, running.config, rate
            )
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
        alive = self._server_alive(server)
        judged = capacity.verdict(found, bound.p99_ms, bound.min_completed, alive)
        session.recorder.add_cell(
            suite=self.run.suite,
            kind=CellKind.CAPACITY_VERDICT,
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
            session.pool.stop_all()
        logger.info(judged.line(server, found))

    def _not_run(self, client: str, server: str, label: str, rate: float | None, why: str) -> None:
        """A latency cell not run, stored with why (the report's row says it)."""
        self.run.session().recorder.add_cell(
            suite=self.run.suite,
            kind=CellKind.LATENCY,
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

    def _server_alive(self, server: str) -> bool:
        """Whether `server`'s process still runs: the one its cells ran on (others may be kept paused
        beside it)."""
        running = next(
            (one for one in self.run.session().pool.servers.values() if one.sdk.id == server and not one.paused), None
        )
        return bool(running and running.alive)

    @keyword
    def latency_at_common_loads_should_be_measured(self, client: str, servers: str) -> None:
        """The open-loop latency table (wrk2's method): every server in `servers` at the plan's
        common offered loads and at shares of its own capacity found in this run, latency from
        each request's scheduled send time. Each block climbs the loads, lightest first, the
        servers of each in an order shuffled per block from the run's seed (engine.capacity
        latency_order). A load whose request rate is beyond a server's measured capacity, or
        heavier than one it did not sustain, is not run (a growing queue has no latency to tell)
        and is stored as such; where no capacity was searched (make bench) a load beyond it is run
        once and is a row that says not sustained, not a failure: only wrong values or a server
        gone fail the test."""
        bound, phase = self.run.plan.capacity, self.run.plan.phase(self.run.profile, "latency")
        assert bound and bound.latency, f"{self.run.plan.path} has no [capacity.latency]"
        session = self.run.session()
        found = capacity.capacities(session.store.cells([session.run_id]))
        planned, skipped = capacity.latency_loads(bound.latency, included(servers), found, phase.duration_s)
        for server, label, rate, why in skipped:
            self._not_run(client, server, label, rate, why)
        failed = []
        missed: dict[tuple[str, int], tuple[float, str]] = {}  # (server, nodes) -> the lowest rate not sustained
        for block in range(phase.repetitions):
            for server, label, rate, nodes in capacity.latency_order(planned, session.seed, block):
                why = capacity.latency_skip(missed, server, rate, nodes)
                if why:
                    if block == 0:  # said once: a later block skips it for the same reason
                        self._not_run(client, server, label, rate, why)
                    continue
                workload = dict(
                    bound.workload,
                    rate=rate,
                    nodes_per_request=nodes,
                    warmup_s=phase.warmup_s,
                    duration_s=phase.duration_s,
                )
                spec = CellSpec(
                    CellKind.LATENCY, sdks.get(client), sdks.get(server), label, block, workload, parameter=rate
                )
                outcome = self.measure(spec)
                if outcome.status == "not_supported":  # stored with its reason, e.g. a refused client
                    logger.info(f"{server} at {label}: not supported: {search.first_line(outcome.reason)}")
                    continue
                if not capacity.latency_held(outcome, rate, phase.duration_s, bound.min_completed):
                    missed.setdefault((server, nodes), (rate, label))
                if outcome.status != "pass":
                    # beyond what the server sustains (requests unanswered or refused) it is a row of the
                    # table, not sustained; a wrong value or a server gone is a failure
                    if wrong_values(outcome) or not self._server_alive(server):
                        failed.append(f"{server} at {label}: {search.first_line(outcome.reason)}")
                    else:
                        logger.info(f"{server} at {label}: not sustained: {search.first_line(outcome.reason)}")
                    continue
                figures = capacity.probe_figures(outcome, rate, phase.duration_s) or {}
                latency = stats.latency_summary(search.merged_latency([outcome]))
                logger.info(
                    f"{server} at {label}: {figures.get('completed', 0):.1%} completed in the window, "
                    f"p50 {us(latency['p50_us'])}, p99 {us(latency['p99_us'])} (n = {latency['count']})"
                )
        if failed:
            raise AssertionError(f"{len(failed)} latency cell(s) failed: " + "; ".join(failed))
