"""The instructions suite's plan kind (registered with uabench.plan): a plan with an [instructions]
table, parsed by instructions/plan.py, and its test cases: per server one per workload counted."""

from __future__ import annotations

from uabench import sdks
from uabench.instructions import plan as instructions_plan
from uabench.instructions import runner
from uabench.instructions.cells import InstructionsCell
from uabench.instructions.plan import InstructionsSetup
from uabench.instructions.report import instructions_section
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

KEYS = frozenset({"suite", "description", "servers", "instructions", "profiles"})


of = accessor("instructions", InstructionsSetup)  # an instructions plan's setup, else None


def _parse(raw: dict, common: dict) -> Plan:
    return workload_plan(raw, common, "instructions", instructions_plan.parse)


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The instructions suite: per server the profile counts, one test per workload; a server in
    a language the plan does not count has one test, which says why."""
    setup = of(plan)
    assert setup is not None
    allowed = setup.servers_of(profile)
    cases = []
    # `uabench run instructions --versions`: each server's other declared versions after it, each
    # counted as it is (issue 44: a version trend's instruction counts, where its SDK is native)
    chosen = [s for s in sdks_chosen("server", plan.servers, only) if allowed is None or s in allowed]
    for server in plan.ranked(chosen, profile):
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
    about = {"tolerance": setup.tolerance, "time_driven": setup.time_driven}
    return {"instructions": about | ({"cache": setup.cache} if setup.cache else {})}


# a server's start to ready and its stop under valgrind (instructions/runner.py): open62541 with
# 1,000 signals 2 to 3 s, gopcua and async-opcua 2 to 4 s; valgrind writes its counts on exit
VALGRIND_START_S = 3.0
VALGRIND_STOP_S = 1.0
VALGRIND_DUMP_S = 0.5  # callgrind_control --dump answers in about 0.4 s
VALGRIND_CLIENT_S = 1.5  # open62541's client under valgrind: its start, session and exit beside its phase


def _cost(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> None:
    """The timing (a server of its own, warmed with the workload, then its repetitions), then the
    counts: one server under valgrind, each load a client's start, phase and dump."""
    server, workload = case.args
    setup = of(plan)
    assert setup, "Instructions Should Be Counted comes only from instructions plans"
    if not workload:  # a server the plan does not count: one cell saying why
        cost.add(cost.cell_overhead_s, cells=1)
        return
    counting = setup.profiles[profile]
    client = reference_client() or server
    if setup.workload(workload).per != instructions_plan.SESSION:  # sessions are not timed (keywords.py)
        cost.add(cost.startup(server))
        cost.warm(server, client, f"instructions: {workload}", fresh=True)
        timed = cost.startup(client) + 1.0 + counting.timing_duration_s + cost.cell_overhead_s  # 1 s warm-up
        cost.add(counting.timing_repetitions * timed, cells=counting.timing_repetitions)
    # one server under valgrind; each load (the first set aside): the client's start and phase, a dump
    loads = (2 * counting.pairs + 1) * (counting.duration_s + runner.SPAN_MARGIN_S + VALGRIND_DUMP_S)
    cost.add(VALGRIND_START_S + loads + VALGRIND_STOP_S, cells=2 * counting.pairs)
    if setup.workload(workload).per != instructions_plan.SESSION and not setup.why_not_counted(
        sdks.get(client).language
    ):  # the load generator's loads, each a client process under valgrind (runner.client_loads)
        cost.add(2 * counting.pairs * (VALGRIND_CLIENT_S + counting.duration_s), cells=2 * counting.pairs)


KINDS = (
    SuiteKind(
        "instructions",
        KEYS,
        _parse,
        _tests,
        provenance=_provenance,
        cost=_cost,
        section=instructions_section,
        keywords="uabench.instructions.keywords:InstructionsKeywords",
        cells=InstructionsCell,
    ),
)
