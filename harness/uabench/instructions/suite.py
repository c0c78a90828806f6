"""The instructions suite's plan kind (registered with uabench.plan): a plan with an [instructions]
table, parsed by instructions/plan.py, and its test cases: per server one per workload counted."""

from __future__ import annotations

import dataclasses

from uabench import sdks
from uabench.instructions import plan as instructions_plan
from uabench.instructions.plan import InstructionsSetup
from uabench.plan import (
    Plan,
    SuiteKind,
    TestCase,
    checked_tables,
    named_workloads,
    sdk_selection,
    sdks_chosen,
    setup_of,
    workload_tag,
)

KEYS = frozenset({"suite", "description", "servers", "instructions", "profiles"})


def of(plan: Plan) -> InstructionsSetup | None:
    """The instructions setup of an instructions plan, else None."""
    return setup_of(plan, "instructions", InstructionsSetup)


def _parse(raw: dict, common: dict) -> Plan:
    setup, parsed = checked_tables(instructions_plan.parse, raw)
    setup = dataclasses.replace(setup, workloads=named_workloads(setup.workloads, "instructions.workloads"))
    return Plan(
        **common,
        profiles=parsed,
        servers=sdk_selection(raw.get("servers"), "servers", "server"),
        kind="instructions",
        setup=setup,
    )


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The instructions suite: per server the profile counts, one test per workload; a server in
    a language the plan does not count has one test, which says why."""
    setup = of(plan)
    assert setup is not None
    allowed = setup.servers_of(profile)
    cases = []
    for server in sdks_chosen("server", plan.servers, only):
        if allowed is not None and server not in allowed:
            continue
        if setup.why_not_counted(sdks.get(server).language):
            cases.append(
                TestCase(
                    f"no count of {server}",
                    "Instructions Should Be Counted",
                    (server, ""),
                    ("instructions", f"server:{server}"),
                )
            )
            continue
        cases += [
            TestCase(
                f"{one.name} on {server}",
                "Instructions Should Be Counted",
                (server, one.name),
                ("instructions", f"server:{server}", workload_tag(one.name)),
            )
            for one in setup.workloads_of(profile)
        ]
    return cases


def _provenance(plan: Plan) -> dict:
    setup = of(plan)
    assert setup is not None
    return {"instructions": {"tolerance": setup.tolerance, "time_driven": setup.time_driven}}


KINDS = (SuiteKind("instructions", KEYS, _parse, _tests, provenance=_provenance),)
