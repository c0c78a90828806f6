"""The network suite's plan kind (registered with uabench.plan): a plan with a [network] table,
parsed by network/plan.py, and its test cases."""

from __future__ import annotations

from uabench.netpath import profiles
from uabench.network import plan as network_plan
from uabench.network import run
from uabench.network.cells import NetworkCell
from uabench.network.plan import of
from uabench.network.report import network_section
from uabench.plan import (
    Plan,
    PlanError,
    SuiteKind,
    TestCase,
    TestCost,
    reference_publisher,
    sdk_ids,
    sdks_chosen,
    suite_plan,
)

KEYS = frozenset({"suite", "description", "servers", "clients", "network", "scenario", "profiles"})


def _parse(raw: dict, common: dict) -> Plan:
    try:
        setup, parsed = network_plan.parse(raw)
    except network_plan.NetworkPlanError as error:
        raise PlanError(str(error)) from None
    sdk_ids([setup.reference_server], "network.reference_server", "server")
    return suite_plan(raw, common, "network", setup, parsed, clients=True)


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The network suite: per network profile one test measuring every server's RTD (cells of a
    network-bound path run at once), one per constrained host, the interop short form (every
    client against the reference server over one network) and subscriptions over each network."""
    setup = of(plan)
    assert setup is not None
    chosen = setup.profiles.get(profile or "quick") or next(iter(setup.profiles.values()))
    servers = sdks_chosen("server", plan.servers, only)
    clients = sdks_chosen("client", plan.clients, only)
    if not servers:
        return []
    listed = ",".join(servers)
    cases = [
        TestCase(
            f"RTD over {name}", "RTD Over Network Should Be Measured", (name, listed), ("network", "rtd", f"net:{name}")
        )
        for name in chosen.networks
    ]
    cases += [
        TestCase(
            f"RTD on a host of {limit:g} cores" + (f" beside a {load:g} % load" if load else ""),
            "RTD On A Constrained Host Should Be Measured",
            (f"{limit:g}", f"{load:g}", listed),
            ("network", "constrained"),
        )
        # each limit isolated; the smallest also beside the background load (Morato et al.)
        for limit in chosen.cpu_limits
        for load in (
            [0.0, chosen.background_load] if chosen.background_load and limit == min(chosen.cpu_limits) else [0.0]
        )
    ]
    if setup.reference_server in servers:
        cases += [
            TestCase(
                f"interop over {setup.interop_network}: {client} → {setup.reference_server}",
                "Network Interop Should Pass",
                (client,),
                ("network", "interop", f"client:{client}"),
            )
            for client in clients
        ]
    cases += [
        TestCase(
            f"subscriptions over {name}",
            "Subscriptions Over Network Should Be Measured",
            (name, listed),
            ("network", "subscription", f"net:{name}"),
        )
        for name in chosen.networks
    ]
    publisher = reference_publisher()
    if publisher and (only is None or publisher in only):
        cases += [
            TestCase(
                f"PubSub over {name}",
                "PubSub Over Network Should Be Measured",
                (name,),
                ("network", "pubsub", f"net:{name}"),
            )
            for name in chosen.networks
            if profiles.load(name).loss_percent
        ]
    return cases


def _server_warmup_s(plan: Plan, profile: str) -> float:
    setup = of(plan)
    assert setup is not None
    return setup.profiles[profile].server_warmup_s if profile in setup.profiles else 0.0


def _cost(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> None:
    """One network test as network/run.py runs its cells."""
    cost.add(run.test_seconds(plan, profile, case.keyword, case.args, cost.startup), cells=1)


KINDS = (
    SuiteKind(
        "network",
        KEYS,
        _parse,
        _tests,
        _server_warmup_s,
        cost=_cost,
        section=lambda run, cells: network_section(cells),
        keywords="uabench.network.keywords:NetworkKeywords",
        cells=NetworkCell,
    ),
)
