"""The footprint suite's plan kind (registered with uabench.plan): a plan with a [footprint]
table, parsed by footprint/plan.py and checked against the contract, and its test cases: per
server its start-up, image and memory models, per client its memory per session."""

from __future__ import annotations

import dataclasses

from uabench.footprint import plan as footprint_plan
from uabench.footprint import runner
from uabench.footprint.cells import FootprintCell
from uabench.footprint.plan import FootprintSetup
from uabench.footprint.report import footprint_beside, footprint_section, trend_figures
from uabench.plan import (
    Plan,
    PlanError,
    SuiteKind,
    TestCase,
    TestCost,
    accessor,
    adapter_config,
    checked_tables,
    client_config,
    expand_nodes,
    reference_client,
    sdks_chosen,
    suite_plan,
    workload_tag,
)

KEYS = frozenset({"suite", "description", "servers", "clients", "footprint", "profiles"})


of = accessor("footprint", FootprintSetup)  # a footprint plan's setup, else None


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
    return suite_plan(raw, common, "footprint", setup, parsed, clients=True)


def _tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """The footprint suite: per server its start-up and each memory model, then per client its
    memory per session against the reference server."""
    setup = of(plan)
    assert setup is not None
    selected = setup.chosen(profile)
    servers = [
        s for s in sdks_chosen("server", plan.servers, only) if selected.servers is None or s in selected.servers
    ]
    # `uabench run footprint --versions`: each server's other declared versions beside it, their
    # rows side by side in the section (issue 44: the footprint across versions)
    servers = plan.ranked(servers, profile)
    clients = [
        c for c in sdks_chosen("client", plan.clients, only) if selected.clients is None or c in selected.clients
    ]
    cases = []
    for server in servers:
        tags = ("footprint", f"server:{server}")
        cases.append(TestCase(f"start-up of {server}", "Server Start Up Should Be Measured", (server,), tags))
        cases.append(TestCase(f"image of {server}", "Server Image Should Be Measured", (server,), tags))
        if setup.imports_of(profile):
            cases.append(
                TestCase(f"model import of {server}", "Server Model Import Should Be Measured", (server,), tags)
            )
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


# a footprint point's server: its stop, and the idle RSS's settle window plus a sample or two
FOOTPRINT_STOP_S = 0.5
FOOTPRINT_SETTLE_MARGIN_S = 0.5
# measured on the 2-core reference VM (footprint quick, 25 Nov 2026): a server's time to ready per
# 1,000 signals beyond the first 1,000 (python-opcua and asyncua 17 s at 100,000 signals, node-opcua
# 5.8 s, Milo 4.5 s, the native servers under 1 s), and the time a session of the client holding a
# point takes to open and close (100 sessions added about 4 s to open62541's points)
READY_S_PER_1K_SIGNALS_DEFAULT = 0.008  # sdk.toml [expectations] ready_s_per_1k_signals: a native server's
SESSION_S = 0.04


def _seconds(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> tuple[float, float, int]:
    """Typical and longest seconds and the cells of a footprint test (footprint/runner.py): each
    point a server process of its own (a client's: one reference server for all of them)."""
    keyword, args, startup, overhead_s = case.keyword, case.args, cost.startup, cost.cell_overhead_s
    setup = of(plan)
    assert setup, "the footprint keywords come only from footprint plans"
    if keyword == "Server Image Should Be Measured":  # the engine asked for each architecture
        return overhead_s, overhead_s, 1
    chosen = setup.chosen(profile)
    reference = reference_client()
    settle_s = setup.settle.window_s + FOOTPRINT_SETTLE_MARGIN_S
    held_s = runner.HOLD_WARMUP_S + chosen.hold_s + overhead_s
    if keyword == "Client Footprint Should Be Measured":
        points = chosen.repetitions * len(setup.steps_of(setup.client_steps, profile))
        typical = startup(reference or args[0]) + points * (startup(args[0]) + held_s)
        return typical, typical, points
    server = args[0]
    client = reference or server
    if keyword == "Server Model Import Should Be Measured":  # a process per point, and the probe's
        points = (chosen.import_repetitions or chosen.repetitions) * (1 + len(setup.imports_of(profile)))
        one = startup(server) + settle_s + runner.PROBE_START_S + FOOTPRINT_STOP_S
        typical = points * one
        return typical, typical + points * setup.settle.bound_s, points
    if keyword == "Server Start Up Should Be Measured":
        counts = setup.signals_of(profile)
        declared = cost.expectations(server).ready_s_per_1k_signals
        per_1k = READY_S_PER_1K_SIGNALS_DEFAULT if declared is None else declared
        first = startup(client) + float(setup.first_request.get("duration_s", 5)) + overhead_s
        one = startup(server) + settle_s + first + FOOTPRINT_STOP_S

        def start(signals: int) -> float:
            return one + per_1k * max(0, signals - 1000) / 1000

        # the points, and the warm-up start at the fewest signals before them (runner.measure_startup)
        typical = chosen.repetitions * sum(start(n) for n in counts) + start(min(counts))
        points = chosen.repetitions * len(counts) + 1
        return typical, typical + points * setup.settle.bound_s, points
    model = setup.model(args[1])
    steps = setup.steps_of(model.steps, profile)
    one = startup(server) + settle_s + startup(client) + held_s + FOOTPRINT_STOP_S
    sessions = sum(step for step in steps) if model.vary == "sessions" else 0
    typical = chosen.repetitions * (len(steps) * one + sessions * SESSION_S)
    points = chosen.repetitions * len(steps)
    return typical, typical + points * setup.settle.bound_s, points


def _cost(plan: Plan, profile: str, case: TestCase, cost: TestCost) -> None:
    cost.add(*_seconds(plan, profile, case, cost))


KINDS = (
    SuiteKind(
        "footprint",
        KEYS,
        _parse,
        _tests,
        cost=_cost,
        section=lambda run, cells: footprint_section(cells),
        figures=lambda run, cells: trend_figures(cells),
        beside=footprint_beside,
        keywords="uabench.footprint.keywords:FootprintKeywords",
        cells=FootprintCell,
    ),
)
