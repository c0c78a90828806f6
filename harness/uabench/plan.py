"""Benchmark plans: small TOML files (suites/plans/*.toml) naming servers, clients,
workload variants and profiles. The Robot suites create their test cases from a plan, so
adding an adapter grows every matrix, and a user's own plan runs with `uabench run PLAN`."""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import contract, paths, sdks

PLANS = paths.SUITES / "plans"
PLAN_KEYS = {"suite", "description", "servers", "clients", "ranking", "headroom", "profiles", "interop",
             "throughput"}
PHASE_KEYS = {"warmup_s": (0, 3600), "duration_s": (0.1, 86400), "repetitions": (1, 1000)}
RANGE = re.compile(r"^([A-Za-z]+_)(\d+)\.\.(\d+)$")


class PlanError(ValueError):
    """A plan that cannot run; the message names the file and the key."""


@dataclass(frozen=True)
class Phase:
    warmup_s: float
    duration_s: float
    repetitions: int = 1


@dataclass(frozen=True)
class Variant:
    name: str
    workload: dict  # client config keys besides endpoint, security and timing


@dataclass(frozen=True)
class Plan:
    path: Path
    suite: str
    description: str
    servers: tuple[str, ...] | None
    clients: tuple[str, ...] | None
    ranking: str | None
    headroom: bool
    profiles: dict[str, dict[str, Phase]]
    interop: tuple[Variant, ...]
    throughput: tuple[Variant, ...]

    def phase(self, profile: str, kind: str) -> Phase:
        if profile not in self.profiles:
            raise PlanError(f"{self.path}: no profile '{profile}' (has: {', '.join(self.profiles)})")
        return self.profiles[profile][kind]

    def variant(self, kind: str, name: str) -> Variant:
        for candidate in getattr(self, kind):
            if candidate.name == name:
                return candidate
        raise PlanError(f"{self.path}: no {kind} variant '{name}'")


def expand_nodes(value: str | list[str], where: str) -> list[str]:
    """"Signal_0..99" stands for Signal_0 … Signal_99; lists may mix ranges and names."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise PlanError(f"{where}: must be a node name, a range like 'Signal_0..99', or a list of them")
    nodes = []
    for item in items:
        match = RANGE.match(item)
        if match:
            prefix, low, high = match.group(1), int(match.group(2)), int(match.group(3))
            if high < low:
                raise PlanError(f"{where}: empty range '{item}'")
            nodes += [f"{prefix}{i}" for i in range(low, high + 1)]
        else:
            nodes.append(item)
    return nodes


def _phase(raw: object, where: str) -> Phase:
    if not isinstance(raw, dict):
        raise PlanError(f"{where}: must be a table with warmup_s, duration_s[, repetitions]")
    for key, value in raw.items():
        if key not in PHASE_KEYS:
            raise PlanError(f"{where}.{key}: unknown key (known: {', '.join(PHASE_KEYS)})")
        low, high = PHASE_KEYS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise PlanError(f"{where}.{key}: must be a number in [{low}, {high}], got {value!r}")
    for key in ("warmup_s", "duration_s"):
        if key not in raw:
            raise PlanError(f"{where}.{key}: missing")
    return Phase(float(raw["warmup_s"]), float(raw["duration_s"]), int(raw.get("repetitions", 1)))


def _variants(raw: object, where: str) -> tuple[Variant, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PlanError(f"{where}: must be an array of tables ([[{where}]])")
    variants, names = [], set()
    for index, entry in enumerate(raw):
        here = f"{where}[{index}]"
        if not isinstance(entry, dict) or set(entry) - {"name", "workload"}:
            extra = sorted(set(entry) - {"name", "workload"}) if isinstance(entry, dict) else []
            raise PlanError(f"{here}: only 'name' and 'workload' are allowed" + (f" (got {extra})" if extra else ""))
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise PlanError(f"{here}.name: missing or not a string")
        if name in names:
            raise PlanError(f"{here}.name: duplicate variant '{name}'")
        names.add(name)
        workload = entry.get("workload")
        if not isinstance(workload, dict):
            raise PlanError(f"{here}.workload: missing or not a table")
        workload = dict(workload, nodes=expand_nodes(workload.get("nodes", []), f"{here}.workload.nodes"))
        try:  # the adapters would refuse it; refuse it here, before anything starts
            contract.client_config({"endpoint": "opc.tcp://plan-check:4840", **workload})
        except contract.ConfigError as error:
            raise PlanError(f"{here}.workload: {error}") from None
        variants.append(Variant(name, workload))
    return tuple(variants)


def _sdk_selection(raw: object, where: str) -> tuple[str, ...] | None:
    if raw in (None, "all"):
        return None
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw):
        raise PlanError(f"{where}: must be \"all\" or a list of SDK ids")
    return tuple(raw)


def load(location: str | Path) -> Plan:
    """A plan by suite name ('read') or by path."""
    path = Path(location)
    if not path.suffix:
        path = PLANS / f"{location}.toml"
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        known = ", ".join(p.stem for p in sorted(PLANS.glob("*.toml")))
        raise PlanError(f"no plan '{location}' (known: {known})") from None
    except tomllib.TOMLDecodeError as error:
        raise PlanError(f"{path}: {error}") from None
    where = str(path)
    for key in raw:
        if key not in PLAN_KEYS:
            raise PlanError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(PLAN_KEYS))})")
    suite = raw.get("suite")
    if not isinstance(suite, str) or not (paths.SUITES / f"{suite}.robot").exists():
        raise PlanError(f"{where}: key 'suite' must name a Robot suite in suites/, got {suite!r}")
    profiles = raw.get("profiles")
    if not isinstance(profiles, dict) or not profiles:
        raise PlanError(f"{where}: key 'profiles' must hold at least one profile table")
    parsed_profiles = {}
    for name, phases in profiles.items():
        if not isinstance(phases, dict) or set(phases) - {"interop", "throughput"}:
            raise PlanError(f"{where}: profiles.{name} may hold only 'interop' and 'throughput' tables")
        parsed_profiles[name] = {kind: _phase(phases.get(kind, {"warmup_s": 0.2, "duration_s": 0.5}),
                                              f"profiles.{name}.{kind}") for kind in ("interop", "throughput")}
    plan = Plan(
        path=path, suite=suite, description=str(raw.get("description", "")),
        servers=_sdk_selection(raw.get("servers"), f"{where}: servers"),
        clients=_sdk_selection(raw.get("clients"), f"{where}: clients"),
        ranking=raw.get("ranking"), headroom=bool(raw.get("headroom", False)), profiles=parsed_profiles,
        interop=_variants(raw.get("interop"), "interop"), throughput=_variants(raw.get("throughput"), "throughput"),
    )
    if plan.ranking is not None and plan.ranking not in {v.name for v in plan.throughput}:
        raise PlanError(f"{where}: key 'ranking' names no throughput variant: {plan.ranking!r}")
    if not plan.interop and not plan.throughput:
        raise PlanError(f"{where}: the plan has no [[interop]] and no [[throughput]] variants")
    return plan


def reference_client() -> str | None:
    """The load generator that ranks servers: the native client when it is there."""
    clients = [sdk.id for sdk in sdks.with_role("client")]
    wanted = os.environ.get("UABENCH_REFERENCE_CLIENT", "open62541")
    if wanted in clients:
        return wanted
    return clients[0] if clients else None


def selected(ids: str | None) -> list[str] | None:
    """Parse a comma-separated SDK selection ('' or None = all)."""
    if not ids:
        return None
    chosen = [part.strip() for part in ids.split(",") if part.strip()]
    known = {sdk.id for sdk in sdks.all_sdks()}
    for sdk_id in chosen:
        if sdk_id not in known:
            raise ValueError(f"unknown SDK '{sdk_id}' (known: {', '.join(sorted(known))})")
    return chosen


def signals(count: int) -> list[str]:
    return [f"Signal_{i}" for i in range(count)]


def writes(count: int) -> list[str]:
    return [f"Write_{i}" for i in range(count)]


@dataclass(frozen=True)
class TestCase:
    name: str
    keyword: str
    args: tuple[str, ...]
    tags: tuple[str, ...]


def client_server_tests(plan: Plan, only: list[str] | None = None) -> list[TestCase]:
    """Every client x server x interop variant, then the reference client's throughput
    cells that rank the servers, then its headroom."""
    def chosen(role: str, allowed: tuple[str, ...] | None) -> list[str]:
        return [sdk.id for sdk in sdks.with_role(role)
                if (only is None or sdk.id in only) and (allowed is None or sdk.id in allowed)]

    clients, servers = chosen("client", plan.clients), chosen("server", plan.servers)
    verb = {"read": "reads", "write": "writes"}.get(plan.suite, "runs against")
    tests = [TestCase(f"{client} {verb} {server}: {v.name}", "Interop Cell Should Pass", (client, server, v.name),
                      ("interop", f"client:{client}", f"server:{server}"))
             for server in servers for client in clients for v in plan.interop]
    reference = reference_client()
    if reference and plan.throughput:  # ranks the selected servers even when the selection leaves it out
        tests += [TestCase(f"Throughput of {server} ({reference} load): {v.name}", "Throughput Should Be Measured",
                           (reference, server, v.name), ("throughput", f"client:{reference}", f"server:{server}"))
                  for server in servers for v in plan.throughput]
        if servers and plan.headroom and plan.ranking:
            tests.append(TestCase(f"Headroom of the {reference} load generator",
                                  "Load Generator Headroom Should Be Measured", (reference,),
                                  ("headroom", f"client:{reference}")))
    return tests
