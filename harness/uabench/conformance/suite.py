"""The conformance suite's plan kind (registered with uabench.plan): a plan with a [conformance]
table, parsed by conformance/plan.py, and its test cases: per server one per group of checks."""

from __future__ import annotations

from uabench.conformance import plan as conformance_plan
from uabench.conformance import runner
from uabench.conformance.cells import ConformanceCell
from uabench.conformance.checks import GROUPS
from uabench.conformance.plan import ConformanceSetup
from uabench.conformance.report import conformance_section, counts
from uabench.document.model import Column
from uabench.plan import (
    Plan,
    SuiteKind,
    TestCase,
    TestCost,
    accessor,
    checked_tables,
    sdks_chosen,
    suite_plan,
)

KEYS = frozenset({"suite", "description", "servers", "conformance", "profiles"})


of = accessor("conformance", ConformanceSetup)  # a conformance plan's setup, else None


def _parse(raw: dict, common: dict) -> Plan:
    setup, parsed = checked_tables(conformance_plan.parse, raw)
    return suite_plan(raw, common, "conformance", setup, parsed)


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The conformance suite: per server, one test per group of conformance units (one probe
    process each; checks.GROUPS)."""
    return [
        TestCase(
            f"{group} on {server}",
            "Conformance Should Be Measured",
            (server, group),
            ("conformance", f"server:{server}", f"group:{group.lower().replace(' ', '-')}"),
        )
        for server in sdks_chosen("server", plan.servers, only)
        for group in GROUPS
    ]


def _cost(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> None:
    """A group of checks against a server: the probe's typical time for it (conformance/runner.py)."""
    server, group = case.args
    setup = of(plan)
    assert setup, "Conformance Should Be Measured comes only from conformance plans"
    bounds = setup.profiles[profile]
    cost.start(server)
    cost.add(runner.typical_seconds(group, bounds.session_wait_s, bounds.gates) + cost.cell_overhead_s, cells=1)


KINDS = (
    SuiteKind(
        "conformance",
        KEYS,
        _parse,
        _tests,
        lambda plan, profile: 0.0,
        cost=_cost,
        section=lambda run, cells: conformance_section(cells),
        keywords="uabench.conformance.keywords:ConformanceKeywords",
        cells=ConformanceCell,
        summary=lambda cells: [
            (server, Column("conformance checks passed", kind="text"), count.cell())
            for server, count in counts(cells).items()
        ],
    ),
)  # the probe measures no speed
