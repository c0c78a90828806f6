"""One cell of a client/server plan as the keywords run it (robot/comparisons.py, robot/searches.py)."""

from __future__ import annotations

from robot.api import SkipExecution, logger

from uabench.engine import search
from uabench.engine.cells import CellSpec, Outcome
from uabench.engine.keywords import RunContext, passed


class Cells:
    """What the client/server keyword components share: one measured cell, one that must pass, the
    ranking load, the verdict of a sweep."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    def throughput_workload(self, variant: str) -> tuple[dict, int]:
        phase = self.run.plan.phase(self.run.profile, "throughput")
        workload = dict(
            self.run.plan.variant("throughput", variant).workload, warmup_s=phase.warmup_s, duration_s=phase.duration_s
        )
        return workload, phase.repetitions

    def measure(self, spec: CellSpec, *, warm: bool = True, retry_machine: bool = False) -> Outcome:
        """One recorded cell (Session.cell); a second attempt for the machine's sake is said."""
        outcome = self.run.session().cell(spec, warm=warm, retry_machine=retry_machine)
        if outcome.retried:  # reported, never hidden: the first attempt is stored as "disturbed"
            logger.warn(
                f"{spec.client.id} → {spec.server.id}: run once more, the first attempt failed for the machine's "
                f"sake: {outcome.retried}"
            )
        return outcome

    def must_pass(self, spec: CellSpec, *, warm: bool = True) -> Outcome:
        """One recorded cell that must pass (skipped if not supported); one that failed for the
        machine's sake (engine.cells.machine_failure) is run once more."""
        outcome = passed(self.measure(spec, warm=warm, retry_machine=True))
        result = outcome.measured
        logger.info(
            f"{result['operations']['succeeded']} operations, {result['values']} values verified, "
            f"{result['throughput']['values_per_s']:.0f} values/s" + (" [client-bound]" if outcome.client_bound else "")
        )
        return outcome


def sweep_verdict(found: search.SweepResult) -> None:
    if found.unsupported:
        raise SkipExecution(f"not supported: {found.skipped[0][1]}")
    if found.failed:
        raise AssertionError(
            f"{len(found.failed)} point(s) failed: "
            + "; ".join(f"{value}: {search.first_line(why)}" for value, why in found.failed)
        )
