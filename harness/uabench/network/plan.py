"""What makes a plan a network plan (a `[network]` table; suites/plans/network.toml): the paper's
scenarios, and per benchmark profile the network profiles, the requests per cell and the
constrained hosts. Parsed here, on plan.py's helpers, so plan.py only dispatches to it."""

from __future__ import annotations

from dataclasses import dataclass

from uabench import references
from uabench.netpath import profiles as networks
from uabench.plan import accessor

SCENARIO_KEYS = {"name", "description", "nodes", "think"}
PROFILE_KEYS = {
    "networks",  # network profiles (suites/networks) the RTD cells run over
    "requests",  # at least this many RTDs per cell (the paper: 1000)
    "warmup_s",  # each cell's own client warm-up (connect, first requests)
    "server_warmup_s",  # a fresh server's first cell warms up this long (a JIT runtime compiles)
    "think_ms",  # scenario D's wait between a response and the next request
    "cpu_limits",  # constrained hosts: the server's CPU quota, in cores (0.25 = a quarter)
    "background_load",  # percent of the constrained host's quota a stress-ng worker takes (0: none)
    "interop_requests",  # the interop short form: requests per client
    "subscription_s",  # each subscription cell's measured seconds
}
SETUP_KEYS = {
    "reference_server",
    "interop_network",
    "interop_scenario",
    "constrained_network",
    "constrained_scenario",
    "network_bound_ms",
    "subscription_nodes",
}


class NetworkPlanError(ValueError):
    pass


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    nodes: int  # Double nodes per request (Write_0 … Write_{n-1})
    think: bool  # the profile's think_ms between a response and the next request


@dataclass(frozen=True)
class NetworkProfile:
    networks: tuple[str, ...]
    requests: int
    warmup_s: float
    server_warmup_s: float
    think_ms: float
    cpu_limits: tuple[float, ...]
    background_load: float
    interop_requests: int
    subscription_s: float

    def summary(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class NetworkSetup:
    scenarios: tuple[Scenario, ...]
    profiles: dict[str, NetworkProfile]
    reference_server: str
    interop_network: str
    interop_scenario: str
    constrained_network: str
    constrained_scenario: str
    network_bound_ms: float  # a path whose ping-sized round trip is above this runs servers at once
    subscription_nodes: int

    def scenario(self, name: str) -> Scenario:
        return next(s for s in self.scenarios if s.name == name)


def _number(
    raw: dict, key: str, where: str, low: float, high: float, integer: bool = False, default: float | None = None
) -> float:
    value: object = raw.get(key, default)
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= float(value) <= high:  # type: ignore[arg-type]
        what = "an integer" if integer else "a number"
        raise NetworkPlanError(f"{where}.{key} must be {what} in [{low:g}, {high:g}], got {value!r}")
    return float(value)  # type: ignore[arg-type]


def _network_names(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise NetworkPlanError(f"{where} must be a non-empty list of network profile names, got {value!r}")
    for name in value:
        try:
            networks.load(name)
        except networks.ProfileError as error:
            raise NetworkPlanError(f"{where}: {error}") from None
    return tuple(value)


def parse(raw: dict) -> tuple[NetworkSetup, dict[str, dict]]:
    """The network setup of a plan, and its profiles as the plan's `profiles` (no phases)."""
    setup = raw["network"]
    if not isinstance(setup, dict):
        raise NetworkPlanError(f"key 'network' must be a table, got {setup!r}")
    unknown = sorted(set(setup) - SETUP_KEYS)
    if unknown:
        raise NetworkPlanError(f"unknown key 'network.{unknown[0]}' (known: {', '.join(sorted(SETUP_KEYS))})")
    scenarios = []
    for k, one in enumerate(raw.get("scenario") or []):
        where = f"scenario[{k}]"
        if not isinstance(one, dict) or set(one) - SCENARIO_KEYS or "name" not in one:
            raise NetworkPlanError(f"{where} must be a table of {', '.join(sorted(SCENARIO_KEYS))} with a name")
        think = one.get("think", False)
        if not isinstance(think, bool):
            raise NetworkPlanError(f"{where}.think must be true or false, got {think!r}")
        scenarios.append(
            Scenario(
                str(one["name"]),
                str(one.get("description", "")),
                int(_number(one, "nodes", where, 1, 100, True)),
                think,
            )
        )
    if not scenarios:
        raise NetworkPlanError("a network plan needs at least one [[scenario]]")
    names = [s.name for s in scenarios]
    parsed = {}
    for name, tables in (raw.get("profiles") or {}).items():
        where = f"profiles.{name}.network"
        table = tables.get("network") if isinstance(tables, dict) else None
        if not isinstance(table, dict) or set(tables) != {"network"}:
            raise NetworkPlanError(f"profiles.{name} must hold exactly one table, network")
        unknown = sorted(set(table) - PROFILE_KEYS)
        if unknown:
            raise NetworkPlanError(f"unknown key '{where}.{unknown[0]}' (known: {', '.join(sorted(PROFILE_KEYS))})")
        limits = table.get("cpu_limits", [])
        if not isinstance(limits, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and 0.01 <= v <= 64 for v in limits
        ):
            raise NetworkPlanError(f"{where}.cpu_limits must be a list of cores in [0.01, 64], got {limits!r}")
        parsed[name] = NetworkProfile(
            networks=_network_names(table.get("networks"), f"{where}.networks"),
            requests=int(_number(table, "requests", where, 10, 1_000_000, True)),
            warmup_s=float(_number(table, "warmup_s", where, 0, 3600)),
            server_warmup_s=float(_number(table, "server_warmup_s", where, 0, 3600)),
            think_ms=float(_number(table, "think_ms", where, 0, 60000)),
            cpu_limits=tuple(float(v) for v in limits),
            background_load=float(_number(table, "background_load", where, 0, 100, default=0)),
            interop_requests=int(_number(table, "interop_requests", where, 10, 1_000_000, True)),
            subscription_s=float(_number(table, "subscription_s", where, 0.5, 3600)),
        )
    if not parsed:
        raise NetworkPlanError("key 'profiles' must hold at least one profile table")
    for key in ("interop_scenario", "constrained_scenario"):
        if setup.get(key) not in names:
            raise NetworkPlanError(f"network.{key} must name a scenario ({', '.join(names)}), got {setup.get(key)!r}")
    for key in ("interop_network", "constrained_network"):
        _network_names([setup.get(key)], f"network.{key}")
    reference = setup.get("reference_server", references.declared("server"))
    if not isinstance(reference, str):
        raise NetworkPlanError(f"network.reference_server must be an SDK id, got {reference!r}")
    return (
        NetworkSetup(
            scenarios=tuple(scenarios),
            profiles=parsed,
            reference_server=reference,
            interop_network=setup["interop_network"],
            interop_scenario=setup["interop_scenario"],
            constrained_network=setup["constrained_network"],
            constrained_scenario=setup["constrained_scenario"],
            network_bound_ms=float(_number(setup, "network_bound_ms", "network", 0, 60000, default=20)),
            subscription_nodes=int(_number(setup, "subscription_nodes", "network", 1, 1000, True, default=10)),
        ),
        {name: {} for name in parsed},
    )


# a network plan's setup, else None (its suite kind: network/suite.py; here, as run.py reads it too)
of = accessor("network", NetworkSetup)
