"""The footprint suite's plan kind (registered with uabench.plan): a plan with a [footprint]
table, parsed by footprint/plan.py and checked against the contract, and its test cases: per
server its start-up, image and memory models, per client its memory per session."""

from __future__ import annotations

import dataclasses

from uabench.footprint import plan as footprint_plan
from uabench.footprint.plan import FootprintSetup
from uabench.plan import (
    Plan,
    PlanError,
    SuiteKind,
    TestCase,
    adapter_config,
    checked_tables,
    client_config,
    expand_nodes,
    sdk_selection,
    sdks_chosen,
    setup_of,
    workload_tag,
)

KEYS = frozenset({"suite", "description", "servers", "clients", "footprint", "profiles"})


def of(plan: Plan) -> FootprintSetup | None:
    """The footprint setup of a footprint plan, else None."""
    return setup_of(plan, "footprint", FootprintSetup)


def _parse(raw: dict, common: dict) -> Plan:
    setup, parsed = checked_tables(footprint_plan.parse, raw)
    adapter_config("server", {"port": 1, **setup.server}, "footprint.server")
    models = []
    for index, model in enumerate(setup.models):
        here = f"footprint.models[{index}].workload"
        if model.vary == "monitored_items" and "nodes" in model.workload:
            raise PlanError(f"{here}.nodes: a model of monitored_items names its own nodes (Signal_0 … n−1)")
        workload = dict(model.workload)
        if "nodes" in workload:
            workload["nodes"] = expand_nodes(workload["nodes"], f"{here}.nodes", setup.server)
        for step in model.steps:
            config = dataclasses.replace(model, workload=workload).held(step)
            client_config({"endpoint": "opc.tcp://h:1", **config}, f"{here} at {step}")
        models.append(dataclasses.replace(model, workload=workload))
    fixed = {}
    for key, workload in (("startup.first_request", setup.first_request), ("client.workload", setup.client_workload)):
        workload = {**workload, "nodes": expand_nodes(workload.get("nodes"), f"footprint.{key}.nodes", setup.server)}
        client_config({"endpoint": "opc.tcp://h:1", **workload}, f"footprint.{key}")
        fixed[key] = workload
    setup = dataclasses.replace(
        setup,
        models=tuple(models),
        first_request=fixed["startup.first_request"],
        client_workload=fixed["client.workload"],
    )
    return Plan(
        **common,
        profiles=parsed,
        servers=sdk_selection(raw.get("servers"), "servers", "server"),
        clients=sdk_selection(raw.get("clients"), "clients", "client"),
        kind="footprint",
        setup=setup,
    )


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The footprint suite: per server its start-up and each memory model, then per client its
    memory per session against the reference server."""
    setup = of(plan)
    assert setup is not None
    selected = setup.chosen(profile)
    servers = [
        s for s in sdks_chosen("server", plan.servers, only) if selected.servers is None or s in selected.servers
    ]
    clients = [
        c for c in sdks_chosen("client", plan.clients, only) if selected.clients is None or c in selected.clients
    ]
    cases = []
    for server in servers:
        tags = ("footprint", f"server:{server}")
        cases.append(TestCase(f"start-up of {server}", "Server Start Up Should Be Measured", (server,), tags))
        cases.append(TestCase(f"image of {server}", "Server Image Should Be Measured", (server,), tags))
        cases += [
            TestCase(
                f"memory per {model.unit} of {server}",
                "Server Footprint Should Be Measured",
                (server, model.name),
                (*tags, workload_tag(model.name)),
            )
            for model in setup.models_of(profile)
        ]
    cases += [
        TestCase(
            f"memory per session of the {client} client",
            "Client Footprint Should Be Measured",
            (client,),
            ("footprint", f"client:{client}"),
        )
        for client in clients
    ]
    return cases


KINDS = (SuiteKind("footprint", KEYS, _parse, _tests),)
