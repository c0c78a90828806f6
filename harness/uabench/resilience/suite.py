"""The resilience suite's plan kind (registered with uabench.plan): a plan with a [resilience]
table, parsed by resilience/plan.py, and its test cases: per incident and workload, every client
against the reference server (and with pairs "cross" the reference client against the others)."""

from __future__ import annotations

from uabench.plan import (
    Plan,
    SuiteKind,
    TestCase,
    TestCost,
    accessor,
    checked_tables,
    reference_client,
    sdk_ids,
    sdks_chosen,
    suite_plan,
)
from uabench.resilience import incident
from uabench.resilience import plan as resilience_plan
from uabench.resilience.cells import ResilienceCell
from uabench.resilience.plan import ResilienceSetup
from uabench.resilience.report import resilience_section

KEYS = frozenset({"suite", "description", "servers", "clients", "resilience", "profiles"})


of = accessor("resilience", ResilienceSetup)  # a resilience plan's setup, else None


def _parse(raw: dict, common: dict) -> Plan:
    setup, parsed = checked_tables(resilience_plan.parse, raw)
    if setup.reference_client:
        sdk_ids([setup.reference_client], "resilience.reference_client", "client")
    if setup.reference_server:
        sdk_ids([setup.reference_server], "resilience.reference_server", "server")
    return suite_plan(raw, common, "resilience", setup, parsed, clients=True)


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The resilience suite: per incident and workload, every client against the reference
    server, and with pairs "cross" the reference client against every other server (the
    plan's, else the harness's reference client and its SDK's server)."""
    setup = of(plan)
    assert setup is not None
    setups = setup.profiles
    chosen = setups.get(profile or "quick") or next(iter(setups.values()))
    servers, clients = sdks_chosen("server", plan.servers, only), sdks_chosen("client", plan.clients, only)
    reference = setup.reference_client or reference_client()
    target = setup.reference_server or reference_client()
    pairs = [(client, target) for client in clients if target in servers]
    if chosen.pairs == "cross" and reference in clients:
        pairs += [(reference, server) for server in servers if server != target]
    return [
        TestCase(
            f"{incident} during {workload}: {client} → {server}",
            "Client Should Recover",
            (client, server, incident, workload),
            ("resilience", f"incident:{incident}", f"workload:{workload}", f"client:{client}", f"server:{server}"),
        )
        for incident in chosen.incidents
        for workload in chosen.workloads
        for client, server in pairs
    ]


def _cost(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> None:
    """A server of its own, started twice for a restart; per repetition the client's start,
    warm-up and phase around the incident (resilience/incident.py)."""
    client, server, incident_name, _workload = case.args
    setup = of(plan)
    assert setup, "Client Should Recover comes only from resilience plans"
    timing = setup.profiles[profile]
    one = 2 * cost.startup(server) + cost.startup(client) + incident.WARMUP_S + incident.phase_s(timing, incident_name)
    cost.add(timing.repetitions * (one + cost.cell_overhead_s), cells=timing.repetitions)


KINDS = (
    SuiteKind(
        "resilience",
        KEYS,
        _parse,
        _tests,
        lambda plan, profile: 0.0,
        cost=_cost,
        section=lambda run, cells: resilience_section(cells),
        keywords="uabench.resilience.keywords:ResilienceKeywords",
        cells=ResilienceCell,
    ),
)  # recovery, not speed
