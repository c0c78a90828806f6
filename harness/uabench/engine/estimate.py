"""How long a run will take, estimated from its plan before anything starts.

Every cell costs its process start-ups plus the phase's warm-up and measured duration, times
its repetitions; a server is started (and warmed up) whenever the next cell needs another one.
It is an estimate, not a promise: start-up times are typical figures per runtime, sweeps with
a stop condition and capacity searches are counted at their longest (every point, every
doubling up to the plan's bound), and the machine's load is not known in advance.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from uabench import sdks
from uabench.plan import Plan, TestCase, test_cases

# Seconds from starting an adapter process to its first measured operation: a native binary
# is ready at once, a JVM or Node.js needs seconds to load and compile.
STARTUP_S = {"C": 0.3, "Python": 1.0, "Java": 3.0, "JavaScript": 1.5}
STARTUP_DEFAULT_S = 1.5
# A client cell's own overhead besides its phases: connecting, writing the result, judging.
CELL_OVERHEAD_S = 0.5
# The negative security tests run a fixed short workload (library.NEGATIVE_WORKLOAD).
NEGATIVE_CELL_S = 0.4
# The test written in every suite: client/server, PubSub.
CHECK_KEYWORDS = ("Adapters Should Be Installed", "PubSub Adapters Should Be Installed")


def startup_s(sdk_id: str) -> float:
    """Typical start-up of `sdk_id`'s adapter, by its runtime."""
    try:
        return STARTUP_S.get(sdks.get(sdk_id).language, STARTUP_DEFAULT_S)
    except (KeyError, ValueError):
        return STARTUP_DEFAULT_S


@dataclass(frozen=True)
class Estimate:
    seconds: float
    tests: tuple[float, ...]  # seconds of each test, in order
    cells: int

    def text(self) -> str:
        return (
            f"estimated duration {clock(self.seconds)} for {len(self.tests)} tests, {self.cells} cells "
            "(an estimate: typical start-up times, sweeps and capacity searches counted at their longest)"
        )


def clock(seconds: float) -> str:
    """mm:ss, or h:mm:ss from an hour on."""
    total = max(0, round(seconds))
    hours, rest = divmod(total, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


def for_plan(
    plan: Plan, profile: str, only: list[str] | None = None, startup: Callable[[str], float] = startup_s
) -> Estimate:
    """The estimate of a plan's suite: its adapter check, then every test case of its matrix."""
    checked = tuple(sdk.id for sdk in sdks.all_sdks() if only is None or sdk.id in only)
    check = TestCase("adapter check", CHECK_KEYWORDS[bool(plan.pubsub)], checked, ())
    return estimate(plan, profile, [check, *test_cases(plan, only, profile)], startup)


def estimate(
    plan: Plan, profile: str, cases: Sequence[TestCase], startup: Callable[[str], float] = startup_s
) -> Estimate:
    """The estimate of running `cases` (a plan's test cases, in order) in `profile`."""
    per_test, cells, running = [], 0, None
    for case in cases:
        seconds, count, server = _cell_time(plan, profile, case, startup)
        if server is not None and server != running:  # Session keeps one server running at a time
            seconds += startup(server[0]) + plan.server_warmup_s(profile)
            running = server
        per_test.append(seconds)
        cells += count
    return Estimate(sum(per_test), tuple(per_test), cells)


def _cell_time(
    plan: Plan, profile: str, case: TestCase, startup: Callable[[str], float]
) -> tuple[float, int, tuple | None]:
    """(seconds besides starting the server, cells, the server it needs) of one test."""
    keyword, args = case.keyword, case.args

    def cells(kind: str, client: str, count: int) -> float:
        phase = plan.phase(profile, kind)
        return count * phase.repetitions * (startup(client) + phase.warmup_s + phase.duration_s + CELL_OVERHEAD_S)

    if keyword == "Interop Cell Should Pass":
        client, server, _ = args
        phase = plan.phase(profile, "interop")
        return startup(client) + phase.warmup_s + phase.duration_s + CELL_OVERHEAD_S, 1, (server,)
    if keyword == "Throughput Should Be Measured":
        client, server, _ = args
        return cells("throughput", client, 1), plan.phase(profile, "throughput").repetitions, (server,)
    if keyword == "Load Generator Headroom Should Be Measured":  # one process, then two
        repetitions = plan.phase(profile, "throughput").repetitions
        return cells("throughput", args[0], 2), 2 * repetitions, None
    if keyword == "Sweep Should Complete":
        name, client, server = args
        sweep, phase = plan.sweep(name), plan.phase(profile, "sweep")
        points = len(sweep.points(profile))
        seconds = cells("sweep", client, points)
        if sweep.server:  # every point configures the server anew, so each restarts it
            seconds += points * (startup(server) + plan.server_warmup_s(profile))
        return seconds, points * phase.repetitions, (server,)
    if keyword == "Capacity Should Be Found":
        client, server = args
        capacity, phase = plan.capacity, plan.phase(profile, "capacity")
        assert capacity is not None, "capacity tests come only from plans with a [capacity] table"
        doublings = max(1, math.floor(math.log2(capacity.max_rate / capacity.start_rate)) + 1)
        probes = doublings + capacity.refine_steps + 1  # the last one at the overload rate
        return cells("capacity", client, probes), probes * phase.repetitions, (server,)
    if keyword in ("Untrusted Client Should Be Rejected", "Unoffered Policy Should Be Refused"):
        client, server = args
        # the refused configuration is a server of its own
        return startup(client) + NEGATIVE_CELL_S + CELL_OVERHEAD_S, 1, (server, keyword)
    if keyword in (
        "PubSub Sweep Should Complete",
        "PubSub Subscriber Sweep Should Complete",
        "PubSub Interop Should Pass",
    ):
        publisher, subscriber = args
        kind = {
            "PubSub Sweep Should Complete": "sweep",
            "PubSub Subscriber Sweep Should Complete": "subscribers",
            "PubSub Interop Should Pass": "interop",
        }[keyword]
        phase = plan.phase(profile, kind)
        points = len(phase.signals) if kind == "sweep" else len(phase.counts) if kind == "subscribers" else 1
        one = startup(publisher) + startup(subscriber) + phase.warmup_s + phase.duration_s + CELL_OVERHEAD_S
        return points * phase.repetitions * one, points * phase.repetitions, None
    if keyword in CHECK_KEYWORDS:  # asks every adapter (args: which, when known) for its capabilities
        return sum(startup(sdk) for sdk in (args or [sdk.id for sdk in sdks.all_sdks()])), 0, None
    return CELL_OVERHEAD_S, 0, None  # a keyword this estimate does not know: counted as quick
