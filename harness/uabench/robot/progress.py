"""A Robot listener that is `uabench run`'s console: `[k/N] test … ETA mm:ss` as each test
starts, its status when it ends, a summary at the end.

Robot's own verbose console writes a test's name when it starts and its status on the same
line when it ends, and listeners are called in between, so their lines would split Robot's;
`uabench run` therefore runs Robot with `--console quiet` (errors and warnings only) and this
listener in its place. N counts the tests Robot runs (after --include, --test and the like);
the ETA is the estimate of the tests not yet finished (uabench.estimate, from each
suite's plan), scaled by how far the finished ones ran over or under their estimate."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from robot.running import TestCase as RunningTest
from robot.running import TestSuite
from robot.utils import unescape

from uabench import estimate
from uabench import plan as plans


class Progress:
    ROBOT_LISTENER_API_VERSION = 3

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self.seconds: dict[str, float] = {}  # estimated seconds per test id
        self.total = 0
        self.started = 0
        self.estimated_done = 0.0
        self.clock_started = 0.0

    def start_suite(self, data: TestSuite, result) -> None:
        if data.parent is None:
            self.total, self.started, self.estimated_done = data.test_count, 0, 0.0
            self.clock_started = time.monotonic()
            self.seconds = dict(estimates(data))
        if data.tests:
            shown = ", ".join(f"{key} {value}" for key, value in data.metadata.items())
            self._print(f"== {data.name}" + (f" ({shown})" if shown else ""))

    def end_suite(self, data: TestSuite, result) -> None:
        if data.parent is None:
            took = estimate.clock(result.elapsed_time.total_seconds())
            self._print(f"== {result.full_name}: {result.stat_message} in {took}")

    def start_test(self, data: RunningTest, result) -> None:
        self.started += 1
        elapsed = time.monotonic() - self.clock_started
        pace = elapsed / self.estimated_done if self.estimated_done > 0 and elapsed > 0 else 1.0
        remaining = self.remaining() * pace
        self._print(f"[{self.started}/{self.total}] {data.name} … ETA {estimate.clock(remaining)}")

    def end_test(self, data: RunningTest, result) -> None:
        self.estimated_done += self.seconds.pop(data.id, 0.0)
        message = " ".join(result.message.split())[:160]
        took = result.elapsed_time.total_seconds()
        self._print(f"    {result.status} ({took:.1f} s)" + (f": {message}" if message else ""))

    def _print(self, line: str) -> None:
        print(line, file=self.stream or sys.__stdout__, flush=True)

    def remaining(self) -> float:
        return sum(self.seconds.values())


def estimates(suite: TestSuite, asked: set[str] | None = None):
    """(test id, estimated seconds) of every test in `suite` and below; `asked`: the adapters
    an earlier suite's check has asked (each is asked once per run)."""
    asked = set() if asked is None else asked
    if suite.tests:
        variables = {v.name: unescape(v.value[0]) for v in suite.resource.variables if v.value}
        location, profile = variables.get("${PLAN}"), variables.get("${PROFILE}")
        cases = [_case(test) for test in suite.tests]
        seconds: tuple[float, ...] = (estimate.CELL_OVERHEAD_S,) * len(cases)
        if location and profile:
            try:
                seconds = estimate.estimate(plans.load(location), profile, cases, asked=asked).tests
            except (plans.PlanError, KeyError, ValueError):
                pass  # the suite fails on its plan by itself; its tests are counted as quick
        yield from zip((test.id for test in suite.tests), seconds, strict=True)
    for child in suite.suites:
        yield from estimates(child, asked)


def _case(test: RunningTest) -> plans.TestCase:
    step = test.body[0] if test.body else None
    keyword, args = (
        (step.name, tuple(unescape(a) for a in step.args)) if step is not None and hasattr(step, "args") else ("", ())
    )
    return plans.TestCase(test.name, keyword, args, tuple(test.tags))
