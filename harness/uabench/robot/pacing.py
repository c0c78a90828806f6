"""A Robot listener that paces a run to its time budget (engine.budget): as each test starts,
the test's due time, the budget's share of the estimated time up to and including it."""

from __future__ import annotations

import time

from robot.running import TestCase as RunningTest
from robot.running import TestSuite

from uabench.engine import budget
from uabench.robot.progress import estimates


class Pacer:
    ROBOT_LISTENER_API_VERSION = 3

    def __init__(self, budget_s: float) -> None:
        self.budget_s = budget_s
        self.due: dict[str, float] = {}  # test id: monotonic time it is due
        self.started = 0.0

    def start_suite(self, data: TestSuite, result) -> None:
        if data.parent is None:
            budget.set_run_budget(self.budget_s)
            self.started = time.monotonic()
            planned = list(estimates(data))
            offsets = budget.shares([seconds for _, seconds in planned], self.budget_s)
            self.due = {test: self.started + offset for (test, _), offset in zip(planned, offsets, strict=True)}

    def start_test(self, data: RunningTest, result) -> None:
        budget.set_due(self.due.get(data.id))

    def end_test(self, data: RunningTest, result) -> None:
        budget.set_due(None)

    def close(self) -> None:
        budget.set_due(None)
        budget.set_run_budget(None)


def budget_note(estimated_s: float, budget_s: float) -> str:
    """What the budget means for a run estimated at `estimated_s` with the fewest repetitions."""
    if estimated_s > budget_s:
        return "the fewest repetitions alone are estimated to take longer, so no test gets more than those"
    return (
        "a comparison measures its fewest blocks, then more only while its intervals are wide and the next block "
        "ends before the budget's share of the run up to its test"
    )
