"""The instructions suite's keyword (suites/instructions.robot): instructions per operation under callgrind."""

from __future__ import annotations

from robot.api import SkipExecution, logger
from robot.api.deco import keyword

from uabench import plan as plans
from uabench import sdks
from uabench.engine.cells import CellSpec, Outcome
from uabench.engine.keywords import RunContext, load_client
from uabench.instructions import plan as instructions_plan
from uabench.instructions import runner as instructions_runner
from uabench.instructions import suite as instructions_suite
from uabench.instructions.cells import InstructionsCell
from uabench.results import instruction_counts as instructions_counts


class InstructionsKeywords:
    """Instructions Should Be Counted."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    @keyword
    def instructions_should_be_counted(self, server_id: str, workload_name: str) -> None:
        """The instructions `server_id` executes per operation of the instructions workload
        `workload_name` (instructions/counts.py): the profile's pairs of loads on one server
        process under callgrind, each load a cell, each pair one difference; first the same workload timed
        without valgrind (its own server, warm), the figure the count stands beside. Fails when a
        count cannot be taken; differences further apart than the plan's tolerance are a warning
        (with the reason the plan gives for a runtime that schedules by the clock) and marked in
        the report.
        A server in a language the plan does not count is recorded as such, and skipped."""
        session = self.run.session()
        setup = instructions_suite.of(self.run.plan)
        assert setup, "Instructions Should Be Counted needs an instructions plan"
        chosen = setup.profiles[self.run.profile]
        server = sdks.get(server_id)
        reference = sdks.get(plans.reference_client() or server.base)
        why = setup.why_not_counted(server.language)
        if why:
            session.recorder.record(
                instructions_counts.KIND, reference, server, "", 0, {}, Outcome("not_supported", why)
            )
            raise SkipExecution(f"not counted: {why}")
        missing = instructions_runner.valgrind_missing()
        if missing:
            raise AssertionError(missing)
        one = setup.workload(workload_name)
        client = load_client(reference, server, one.workload["workload"])
        # the timing first: the same workload natively, its own warm server, the profile's repetitions
        # (not of sessions: a session's cost is its set-up, which a throughput cell does not time)
        timings = 0 if one.per == instructions_plan.SESSION else chosen.timing_repetitions
        for repetition in range(timings):
            workload = {**one.workload, "duration_s": chosen.timing_duration_s}
            spec = CellSpec(
                InstructionsCell.TIMING, client, server, one.name, repetition, workload, server_overrides=one.server
            )
            timed = session.cell(spec, steady_label=f"instructions: {one.name}")
            if timed.status == "not_supported":
                raise SkipExecution(f"not supported: {timed.reason}")
            if timed.status != "pass":
                raise AssertionError(f"{one.name} on {server_id}, timed without valgrind: {timed.reason}")
        session.pool.stop_all()  # nothing else on the server cores while valgrind runs
        # the load generator counted too where the plan counts its language (not its sessions: each
        # is a client process of its own, whose start-up would be in the count)
        count_client = one.per != instructions_plan.SESSION and not setup.why_not_counted(client.language)
        differences, errors = instructions_runner.differences(session, server, client, one, chosen, count_client)
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
