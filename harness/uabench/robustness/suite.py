"""The robustness suite's plan kinds (registered with uabench.plan): a plan with a [robustness]
table (robustness/plan.py: hostile batches against every server, after the fuzzer's corpus) and
one with a [soak] table (robustness/soak.py: every server under load and churn)."""

from __future__ import annotations

from uabench.document.model import Cell, Column
from uabench.plan import (
    Plan,
    SuiteKind,
    TestCase,
    TestCost,
    accessor,
    checked_tables,
    reference_client,
    sdks_chosen,
    suite_plan,
)
from uabench.robustness import batches
from uabench.robustness import plan as robustness_plan
from uabench.robustness import soak as soak_plan
from uabench.robustness.cells import RobustnessCell
from uabench.robustness.plan import RobustnessSetup
from uabench.robustness.report import robustness_section, scores, soak_section
from uabench.robustness.soak import SoakSetup

KEYS = frozenset({"suite", "description", "servers", "robustness", "profiles"})
SOAK_KEYS = frozenset({"suite", "description", "servers", "soak", "profiles"})


of = accessor("robustness", RobustnessSetup)  # a robustness plan's setup, else None


soak_of = accessor("soak", SoakSetup)  # a soak plan's setup, else None


def _parse(raw: dict, common: dict) -> Plan:
    setup, parsed = checked_tables(robustness_plan.parse, raw)
    return suite_plan(raw, common, "robustness", setup, parsed)


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The robustness suite: the fuzzer's corpus recorded from the reference client, then every
    batch against every server."""
    setup = of(plan)
    assert setup is not None
    servers = sdks_chosen("server", plan.servers, only)
    if not servers:
        return []
    corpus = TestCase("the corpus from the reference client", "Corpus Should Be Recorded", (), ("robustness", "corpus"))
    cases = [corpus]
    return cases + [
        TestCase(
            f"{batch} against {server}",
            "Server Should Survive",
            (server, batch),
            ("robustness", f"server:{server}", f"batch:{batch}"),
        )
        for server in servers
        for batch in setup.batches_of(profile)
    ]


def _parse_soak(raw: dict, common: dict) -> Plan:
    setup, parsed = checked_tables(soak_plan.parse, raw)
    return suite_plan(raw, common, "soak", setup, parsed)


def _soak_tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    return [
        TestCase(f"soak of {server}", "Server Should Not Leak", (server,), ("soak", f"server:{server}"))
        for server in sdks_chosen("server", plan.servers, only)
    ]


def _no_warmup(plan: Plan, profile: str) -> float:
    return 0.0  # what these suites measure is survival and leaks, not speed


# a health read of the robustness suite: the reference client's short verified read (library.py)
HEALTH_READ_S = 0.6


def _cost(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> None:
    """The corpus (three recordings by the reference client) or one batch against a server, its
    recovery and the health reads around it."""
    reference = reference_client()
    if case.keyword == "Corpus Should Be Recorded":
        if reference:
            cost.start(reference)
            cost.add(3 * (cost.startup(reference) + 1.0) + cost.cell_overhead_s, cells=0)
        return
    server, batch = case.args
    setup = of(plan)
    assert setup, "Server Should Survive comes only from robustness plans"
    sizes = setup.profiles[profile]
    cost.start(server)
    health = 3 * (cost.startup(reference or server) + HEALTH_READ_S)
    batch_s = batches.typical_seconds(batch, sizes.cases, sizes.time_s, cost.expectations(server).fuzz_case_s)
    # at most: the batch runs to its time bound (every fuzz case waits out a silent server)
    most_s = batches.HOSTILE_START_S + sizes.time_s
    cost.add(batch_s + sizes.recovery_s + health, most_s + sizes.recovery_s + health, cells=1)


def _soak_cost(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> None:
    (server,) = case.args
    setup = soak_of(plan)
    assert setup, "Server Should Not Leak comes only from soak plans"
    cost.start(server)
    cost.add(setup.profiles[profile].duration_s + 1.0 + cost.cell_overhead_s, cells=1)


def _survival(cells: list[dict]) -> list[tuple[str, Column, Cell]]:
    """Each server's share of hostile batches survived, beside its figures in the summary."""
    column = Column("survival score", "share of hostile batches survived", kind="percent")
    return [(server, column, Cell(share)) for server, share in scores(cells).items()]


KINDS = (
    SuiteKind(
        "robustness",
        KEYS,
        _parse,
        _tests,
        _no_warmup,
        cost=_cost,
        section=lambda run, cells: robustness_section(cells),
        keywords="uabench.robustness.keywords:RobustnessKeywords",
        cells=RobustnessCell,
        summary=_survival,
    ),
    SuiteKind(
        "soak",
        SOAK_KEYS,
        _parse_soak,
        _soak_tests,
        _no_warmup,
        cost=_soak_cost,
        section=lambda run, cells: soak_section(cells),
        keywords="uabench.robustness.keywords:RobustnessKeywords",
        cells=RobustnessCell,
    ),
)
