"""The profile suite's plan kind (registered with uabench.plan): a plan with a [profile] table,
parsed by profile/plan.py, and its test cases: every server under every workload profiled."""

from __future__ import annotations

import dataclasses

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
from uabench.profile import plan as profile_plan
from uabench.profile.plan import ProfileSetup

KEYS = frozenset({"suite", "description", "servers", "profile", "profiles"})


def of(plan: Plan) -> ProfileSetup | None:
    """The profile setup of a profile plan, else None."""
    return setup_of(plan, "profile", ProfileSetup)


def _parse(raw: dict, common: dict) -> Plan:
    setup, parsed = checked_tables(profile_plan.parse, raw)
    setup = dataclasses.replace(setup, workloads=named_workloads(setup.workloads, "profile.workloads"))
    return Plan(
        **common,
        profiles=parsed,
        servers=sdk_selection(raw.get("servers"), "servers", "server"),
        kind="profile",
        setup=setup,
    )


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


KINDS = (SuiteKind("profile", KEYS, _parse, _tests),)
