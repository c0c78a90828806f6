"""The profile suite's plan kind (registered with uabench.plan): a plan with a [profile] table,
parsed by profile/plan.py, and its test cases: every server under every workload profiled."""

from __future__ import annotations

from uabench.plan import (
    Plan,
    SuiteKind,
    TestCase,
    TestCost,
    accessor,
    reference_client,
    sdks_chosen,
    workload_plan,
    workload_tag,
)
from uabench.profile import plan as profile_plan
from uabench.profile.cells import ProfileCell
from uabench.profile.plan import ProfileSetup
from uabench.profile.report import profile_section

KEYS = frozenset({"suite", "description", "servers", "profile", "profiles"})


of = accessor("profile", ProfileSetup)  # a profile plan's setup, else None


def _parse(raw: dict, common: dict) -> Plan:
    return workload_plan(raw, common, "profile", profile_plan.parse)


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The profile suite: every server under every workload of the profile."""
    setup = of(plan)
    assert setup is not None
    allowed = setup.servers_of(profile)
    return [
        TestCase(
            f"profile of {server}: {one.name}",
            "Server Should Be Profiled",
            (server, one.name),
            ("profile", f"server:{server}", workload_tag(one.name)),
        )
        for server in sdks_chosen("server", plan.servers, only)
        if allowed is None or server in allowed
        for one in setup.workloads_of(profile)
    ]


# a profiler's stop and `perf script` | inferno-collapse-perf of one phase's samples (JIT
# runtimes: the perf map written and read too)
PROFILE_FOLD_S = 3.0


def _cost(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> None:
    """A server of its own (started with its runtime's profiling settings) warmed with the
    workload, then per repetition a phase without and one with the profiler, and the folding."""
    server, workload = case.args
    setup = of(plan)
    assert setup, "Server Should Be Profiled comes only from profile plans"
    sampled = setup.profiles[profile]
    client = reference_client() or server
    cost.add(cost.startup(server))
    cost.warm(server, client, f"profile: {workload}", fresh=True)
    one_phase = cost.startup(client) + 1.0 + sampled.duration_s + cost.cell_overhead_s  # the contract's 1 s warm-up
    cost.add(sampled.repetitions * (2 * one_phase + PROFILE_FOLD_S), cells=2 * sampled.repetitions + 1)


KINDS = (
    SuiteKind(
        "profile",
        KEYS,
        _parse,
        _tests,
        cost=_cost,
        section=lambda run, cells: profile_section(cells),
        keywords="uabench.profile.keywords:ProfileKeywords",
        cells=ProfileCell,
    ),
)
