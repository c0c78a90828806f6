"""The client/server plans' interop and interleaved comparisons (suites/read.robot, write, encryption, ...)."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from robot.api import SkipExecution, logger
from robot.api.deco import keyword

from uabench import plan as plans
from uabench import sdks
from uabench.engine import budget, interleave, overhead, schedule, search
from uabench.engine.cells import CellSpec, Outcome
from uabench.engine.constants import HEADROOM_REPETITIONS
from uabench.engine.keywords import included, us
from uabench.proc import hostprobe
from uabench.results import margins, provenance, ranking, stats
from uabench.results.kinds import CellKind
from uabench.robot.cells import Cells


class ComparisonKeywords(Cells):
    """Interop cells, the throughput ranking, security overhead, the load generator's headroom
    and the samplers' overhead."""

    @keyword
    def interop_cell_should_pass(self, client: str, server: str, variant: str) -> None:
        """Runs one short verified workload of `client` against `server`; fails on any
        failed operation or wrong value, skips what the client declares unsupported."""
        phase = self.run.plan.phase(self.run.profile, "interop")
        workload = dict(
            self.run.plan.variant("interop", variant).workload, warmup_s=phase.warmup_s, duration_s=phase.duration_s
        )
        server_sdk = sdks.get(server)
        if workload["workload"] == "read":  # a node the server cannot send ([limits]) is left out, said here
            nodes = list(workload["nodes"])  # expanded when the plan was loaded
            kept = server_sdk.sendable(nodes)
            if kept and len(kept) < len(nodes):
                left = ", ".join(sorted(set(nodes) - set(kept)))
                logger.warn(f"{server} is not asked for {left}: not supported ({server_sdk.limits_reason})")
                workload["nodes"] = kept
        self.must_pass(CellSpec(CellKind.INTEROP, sdks.get(client), server_sdk, variant, 0, workload), warm=False)

    @keyword
    def throughput_ranking_should_be_measured(self, client: str, variant: str, servers: str) -> None:
        """Ranks `servers` (comma-separated) under the reference client's load: each warmed up
        to steady state with this load, then measured in interleaved blocks (each block every
        server once, in an order shuffled per block) until every server's interval is narrow
        or the profile's most repetitions are reached. Fails if a server's cell fails."""
        phase = self.run.plan.phase(self.run.profile, "throughput")
        workload = dict(
            self.run.plan.variant("throughput", variant).workload, warmup_s=phase.warmup_s, duration_s=phase.duration_s
        )
        noise = margins.noise(margins.PAIRS, margins.measured_on(provenance.machine()["fingerprint"]))
        logger.info(f"a server leaves the blocks once each of its pairs is decided beyond or within {noise.text()}")
        found = self._compare(
            CellKind.THROUGHPUT,
            client,
            variant,
            [(s, None) for s in included(servers)],
            phase,
            workload,
            settled=lambda values: ranking.settled(values, noise.margin, self.run.session().seed),
        )
        if found.settled:
            logger.info(f"decided before the last block: {', '.join(str(s) for s, _ in found.settled)}")
        for (server, _), outcomes in found.kept.items():
            latency = stats.latency_summary(search.merged_latency(outcomes))
            logger.info(f"{server}: {_figure(outcomes)}, p50 {us(latency['p50_us'])}, p99 {us(latency['p99_us'])}")
        self._compared(found)

    @keyword
    def security_overhead_should_be_measured(self, name: str, client: str, servers: str) -> None:
        """Every security mode of the sweep on every server in `servers`, interleaved: each
        block measures every (server, mode) once in a shuffled order, so the ratio of a mode to
        None is taken per block (paired) and drift hits every mode alike."""
        sweep, phase = self.run.plan.sweep(name), self.run.plan.phase(self.run.profile, "sweep")
        values = sweep.points(self.run.profile)

        def workload(value) -> dict:
            return dict(sweep.point(value)[1], warmup_s=phase.warmup_s, duration_s=phase.duration_s)

        items = [(server, value) for server in included(servers) for value in values]
        found = self._compare(CellKind.SWEEP, client, name, items, phase, workload, _ratios_to(values[0]))
        for (server, value), outcomes in found.kept.items():
            line = f"{server}, {value}: {_figure(outcomes)}"
            baseline = found.kept.get((server, values[0]))
            if baseline and value != values[0]:
                ratio = stats.paired_ratio(_throughputs(outcomes), _throughputs(baseline), seed=self.run.session().seed)
                line += f"; {ratio.center:.3f} × {values[0]} [{ratio.low:.3f}, {ratio.high:.3f}] (paired per block)"
            logger.info(line)
        self._compared(found)

    def _compare(
        self,
        kind: StrEnum,
        client: str,
        variant: str,
        items: list[tuple[str, object]],
        phase: plans.Phase,
        workload: dict | Callable[[object], dict],
        derived: Callable[[dict], dict] | None = None,
        settled: Callable[[dict], set] | None = None,
    ) -> interleave.Interleaved[tuple[str, object]]:
        """Runs `items` ((server, parameter) pairs) in interleaved, adaptive blocks; each item
        is warmed up to steady state with its own load before its first repetition."""
        session = self.run.session()
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
            settled=settled,
            fits=budget.block_fits,
            after_block=self._host_probe(variant, kind, phase.duration_s),
        )

    def _host_probe(self, variant: str, kind: StrEnum, window_s: float) -> Callable[[int], None]:
        """After each block: the host probe, pinned like the servers, over a cell's window."""
        session = self.run.session()
        probe = hostprobe.HostProbe(window_s, session.server_cpus)
        return lambda block: session.probe_host(probe, variant, block, kind)

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

    @keyword
    def load_generator_headroom_should_be_measured(self, client: str) -> None:
        """Loads the fastest server of this run with one and then two processes of the
        reference client, both on the load generator's CPUs: if two deliver clearly more,
        one process was the bottleneck (client-bound)."""
        session = self.run.session()
        cores = sorted(session.client_cpus or [])
        if len(cores) < 2:  # a second process on the first one's core shares its CPU: it cannot show a limit
            raise SkipExecution(
                "not measurable on this machine: the load generator has "
                + (f"one core (CPU {cores[0]})" if cores else "no cores of its own (pinning off)")
                + ", and a second process on the same core cannot show whether one process limits the load"
            )
        fastest = search.fastest_server(session.store.cells([session.run_id]), self.run.plan.ranking, client)
        if fastest is None:
            raise AssertionError("no throughput result in this run to pick the fastest server from")
        assert self.run.plan.ranking, "headroom needs the plan's ranking variant"
        workload, repetitions = self.throughput_workload(self.run.plan.ranking)
        repetitions = min(repetitions, HEADROOM_REPETITIONS)

        def measure(processes: int, repetition: int) -> Outcome:
            label = f"{processes} process" + ("es" if processes > 1 else "")
            spec = CellSpec(
                CellKind.HEADROOM, sdks.get(client), sdks.get(fastest), label, repetition, workload, processes
            )
            return self.must_pass(spec)

        figures, gain = search.headroom(measure, repetitions, session.seed)
        logger.info(
            f"{client} load on {fastest}: 1 process {figures[1]['mean']:.0f} values/s, "
            f"2 processes {figures[2]['mean']:.0f} values/s ({gain:+.0%})"
        )

    @keyword
    def sampling_overhead_should_be_measured(self, client: str, variant: str) -> None:
        """`client` against its own server with the ranking `variant`'s load, resource sampling
        on and off in interleaved blocks (engine.overhead): what the samplers cost a figure."""
        session, reference = self.run.session(), sdks.get(client)
        workload, repetitions = self.throughput_workload(variant)

        def cell(arm: str, block: int) -> Outcome:
            spec = CellSpec(overhead.KIND, reference, reference, variant, block, workload, parameter=arm)
            return session.cell(spec, steady_label=variant)

        found = overhead.compare(cell, repetitions, session.seed, logger.info)
        logger.info(overhead.summary(found, session.seed))
        failed = [f"{arm}: {o.status}: {search.first_line(o.reason)}" for arm, o in found.dropped.items()]
        if failed:
            raise AssertionError("; ".join(failed))


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
