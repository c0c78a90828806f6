"""Benchmark plans: small TOML files (suites/plans/*.toml) naming the SDKs, workloads and
profiles of a suite. One schema with two variants: a client/server plan (servers, clients,
workload variants, sweeps, capacity) and a PubSub plan (a `[pubsub]` table: publishers,
subscribers, their common config). `test_cases` turns either into the suite's test cases, so
adding an adapter grows every matrix, and a user's own plan runs with `uabench run PLAN`."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import ipaddress
import os
import pkgutil
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol, TypeVar

from uabench_contract import ARRAYS

import uabench
from uabench import paths, plan_contract, plan_table, references, sdks
from uabench.document.model import Cell, Column, Section
from uabench.plan_table import PlanTableError
from uabench.results.kinds import CellKind

PLANS = paths.SUITES / "plans"
T = TypeVar("T")  # a plan kind's setup
PLAN_KEYS = {
    "suite",
    "description",
    "servers",
    "clients",
    "ranking",
    "headroom",
    "sampling_overhead",
    "profiles",
    "interop",
    "throughput",
    "sweep",
    "negative_security",
    "capacity",
    "interop_pairs",
    "server_warmup_s",
    "versions",
    "second_load_generator",
}
PUBSUB_PLAN_KEYS = {
    "suite",
    "description",
    "publishers",
    "subscribers",
    "reference_subscriber",
    "subscriber_sweep",
    "pubsub",
    "profiles",
}
# The most seconds a server is warmed up before it is measured (engine.warmup: chunks of load
# until the throughput is steady; a server not steady by then is marked "never steady"), and
# the measured seconds of one chunk. A plan's `server_warmup_s` table overrides the bound.
SERVER_WARMUP_S = {"smoke": 3.0, "quick": 20.0, "full": 60.0}
STEADY_CHUNK_S = {"smoke": 0.3, "quick": 0.7, "full": 2.0}
# Whether an SDK's least warm-up (sdk.toml [expectations] warmup_s: a JIT runtime's) holds in a plan
# that ranks (Plan.sdk_warmup_floor): not in smoke, whose cells check answers and publish no figure
# (make test would wait 20 s a JIT server).
SDK_WARMUP_FLOOR = {"smoke": False, "quick": True, "full": True}
CAPACITY_KEYS = {
    "p99_ms": (0.01, 60000),
    "min_completed": (0.5, 1.0),
    "start_rate": (1, 1e7),
    "max_rate": (1, 1e8),
    "refine_steps": (0, 20),
    "overload_repetitions": (1, 10),
}
OVERLOAD_FACTOR = (1.05, 10)
PHASES = ("interop", "throughput", "sweep", "capacity", "latency")
SWEEP_KEYS = {"name", "kind", "values", "workload", "server", "stop", "clients", "total_signals"}
# A bisected sweep limit is found to this share of its value unless the plan states another
# (`resolution` in a profile's sweep table), in at most the profile's `bisect_steps` steps.
SWEEP_RESOLUTION = 0.1
SWEEP_KINDS = ("signals", "sessions", "interval", "nodes_per_request", "in_flight", "nodes", "security")
# "sustained": the engine's sustain rule (results.sustain: cycle time and missed updates, decided
# on the median), for subscription sweeps; "p99_ms": a request sweep's p99 under `above`.
STOP_METRICS = ("sustained", "p99_ms")
# A sweep phase's bisection of the limit between the last held and the first missed point:
# to `resolution` (a share of the held value) in at most `bisect_steps` measured points.
# limit_repetitions: the held point of the limit is measured until it has this many repetitions
# (its figure then has an interval; a held point that misses on them makes the limit a lower bound).
LIMIT_KEYS = {"resolution": (0.001, 1.0), "bisect_steps": (0, 20), "limit_repetitions": (1, 100)}
# repetitions: of a ranking or an interleaved comparison the minimum, max_repetitions the most
# (more while a figure's interval is wider than the target; engine.schedule).
PHASE_KEYS = {
    "warmup_s": (0, 3600),
    "duration_s": (0.1, 86400),
    "repetitions": (1, 1000),
    "max_repetitions": (1, 1000),
}
# The phases of a PubSub profile and the keys each takes: the signals per cell (the sweep's
# points) and the subscriber counts.
PUBSUB_PHASES = {
    "sweep": {"warmup_s", "duration_s", "repetitions", "signals", *LIMIT_KEYS},
    "subscribers": {"warmup_s", "duration_s", "repetitions", "counts", "signals"},
    "interop": {"warmup_s", "duration_s", "signals"},
}
PUBSUB_GROUPS = "239.255.0.0/16"
RANGE = re.compile(r"^([A-Za-z]+_)(\d+)\.\.(\d+)$")
INDEXED_NODE = re.compile(r"^(Signal_|Write_)(\d+)$")
# The standard address space's nodes that are no family of indexed ones (adapters/SPEC.md §4)
NAMED_NODES = ("Tick", "Real", "Page", "SDD", "Image", *ARRAYS)
# The suites named for one service: every variant and sweep of such a plan must use it, else its
# cells would be stored, and ranked, as that suite's figures (a read measured as a write)
SERVICE_SUITES = {"read": "read", "write": "write", "subscription": "subscribe"}
# The subscriber counts of a PubSub sweep: one network namespace each (proc.netns), a bound of
# the harness, not of the adapter contract.
MOST_SUBSCRIBERS = 64


class PlanError(ValueError):
    """A plan that cannot run; the message names the file and the key."""


@dataclass(frozen=True)
class Phase:
    warmup_s: float
    duration_s: float
    repetitions: int = 1
    signals: tuple[int, ...] = ()  # PubSub: signals per cell, one cell (sweep point) each
    counts: tuple[int, ...] = ()  # PubSub: subscriber counts
    max_repetitions: int = 0  # interleaved comparisons: at most this many blocks (0: repetitions)
    resolution: float = SWEEP_RESOLUTION  # sweeps with a stop rule: the limit's bisection (LIMIT_KEYS)
    bisect_steps: int = 0
    limit_repetitions: int = 1  # the held point of a limit topped up to this many repetitions (LIMIT_KEYS)

    @property
    def most_repetitions(self) -> int:
        return max(self.repetitions, self.max_repetitions)

    def summary(self) -> dict:
        """What the report shows of a phase (kept with the run)."""
        return {
            "warmup_s": self.warmup_s,
            "duration_s": self.duration_s,
            "repetitions": self.repetitions,
            "max_repetitions": self.most_repetitions,
        }


@dataclass(frozen=True)
class Variant:
    name: str
    workload: dict  # client config keys besides endpoint, security and timing
    profiles: tuple[str, ...] | None = None  # the profiles it runs in (None: all)

    def runs_in(self, profile: str) -> bool:
        return self.profiles is None or profile in self.profiles


@dataclass(frozen=True)
class Sweep:
    """One quantity swept over a list of values; each value is a point measured on every
    server (by the reference client, or by every client)."""

    name: str
    kind: str
    values: dict[str, tuple]  # per profile
    workload: dict
    server: dict
    stop: dict | None
    clients: str  # "reference" or "all"
    total_signals: int

    def points(self, profile: str) -> tuple:
        return self.values.get(profile, self.values.get("*", ()))

    def point(self, value) -> tuple[dict, dict]:
        """(server config overrides, client workload) of one point."""
        server, workload = dict(self.server), dict(self.workload)
        if self.kind == "signals":
            server["signals"] = max(int(value), server.get("signals", 0))
            workload["nodes"] = [f"Signal_{i}" for i in range(int(value))]
        elif self.kind == "sessions":
            server["signals"] = max(self.total_signals, server.get("signals", 0))
            workload["sessions"] = int(value)
            workload["nodes"] = [f"Signal_{i}" for i in range(max(1, self.total_signals // int(value)))]
        elif self.kind == "interval":  # the update loop, sampling and publishing all at this period
            server["signals"] = max(self.total_signals, server.get("signals", 0))
            server["update_interval_ms"] = int(value)
            workload.update(publishing_interval_ms=value, sampling_interval_ms=value)
            workload["nodes"] = [f"Signal_{i}" for i in range(self.total_signals)]
        elif self.kind in ("nodes_per_request", "in_flight"):
            workload[self.kind] = int(value)
        elif self.kind == "nodes":
            workload["nodes"] = expand_nodes(value, f"sweep {self.name}", server)
        elif self.kind == "security":
            policy, _, mode = str(value).partition("/")
            workload["security"] = {"policy": policy, "mode": mode or "None"}
        return server, workload


@dataclass(frozen=True)
class Capacity:
    """The open-loop search for the highest rate a server sustains (p99 under a bound, at
    least min_completed of the offered requests completed inside the window), then
    overload_repetitions runs at each of overload_factors × that rate."""

    p99_ms: float
    min_completed: float
    start_rate: float
    max_rate: float
    refine_steps: int
    overload_repetitions: int
    overload_factors: tuple[float, ...]
    workload: dict
    latency: Latency | None = None


@dataclass(frozen=True)
class Latency:
    """The open-loop latency table (wrk2's method): every server at the same offered loads
    (requests/s at a number of nodes per request) and at shares of its own measured capacity."""

    loads: tuple[tuple[float, int], ...]  # (requests/s, nodes per request)
    capacity_shares: tuple[float, ...]


def _capacity(raw: object) -> Capacity | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise PlanError(f"capacity: must be a table ([capacity]), got {raw!r}")
    values = {}
    for key, value in raw.items():
        if key in ("workload", "overload_factors", "latency"):
            continue
        if key not in CAPACITY_KEYS:
            raise PlanError(
                f"capacity: unknown key '{key}' "
                f"(known: workload, overload_factors, latency, {', '.join(CAPACITY_KEYS)})"
            )
        values[key] = _number(
            value, f"capacity.{key}", *CAPACITY_KEYS[key], integer=key.endswith(("steps", "repetitions"))
        )
    missing = set(CAPACITY_KEYS) - set(values)
    if missing:
        raise PlanError(f"capacity: missing {', '.join(sorted(missing))}")
    if values["max_rate"] < values["start_rate"]:
        raise PlanError(f"capacity.max_rate: {values['max_rate']!r} is below start_rate = {values['start_rate']!r}")
    workload = raw.get("workload")
    if not isinstance(workload, dict):
        raise PlanError("capacity.workload: missing or not a table")
    workload = dict(workload, nodes=expand_nodes(workload.get("nodes", []), "capacity.workload.nodes"))
    factors = _number_list(raw.get("overload_factors"), "capacity.overload_factors", *OVERLOAD_FACTOR)
    # the search offers rates from start_rate up to the overload beyond max_rate
    for rate in (values["start_rate"], values["max_rate"] * max(factors)):
        adapter_config("client", {**workload, "rate": rate}, f"capacity.workload (at rate {rate:g}/s)")
    return Capacity(
        float(values["p99_ms"]),
        float(values["min_completed"]),
        float(values["start_rate"]),
        float(values["max_rate"]),
        int(values["refine_steps"]),
        int(values["overload_repetitions"]),
        factors,
        workload,
        _latency(raw.get("latency"), workload),
    )


def _latency(raw: object, workload: dict) -> Latency | None:
    """[capacity.latency]: `loads`, a list of {rate, nodes_per_request}, and `capacity_shares`."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise PlanError(f"capacity.latency: must be a table, got {raw!r}")
    unknown = set(raw) - {"loads", "capacity_shares"}
    if unknown:
        raise PlanError(f"capacity.latency: unknown key '{sorted(unknown)[0]}' (known: loads, capacity_shares)")
    loads = raw.get("loads")
    if not isinstance(loads, list) or not loads:
        raise PlanError("capacity.latency.loads: must be a non-empty list of {rate, nodes_per_request} tables")
    parsed = []
    for i, load in enumerate(loads):
        where = f"capacity.latency.loads[{i}]"
        if not isinstance(load, dict) or set(load) != {"rate", "nodes_per_request"}:
            raise PlanError(f"{where}: must be a table with exactly rate and nodes_per_request, got {load!r}")
        rate = float(_number(load["rate"], f"{where}.rate", 1, 1e7))
        nodes = int(_number(load["nodes_per_request"], f"{where}.nodes_per_request", 1, 10000, integer=True))
        adapter_config("client", {**workload, "rate": rate, "nodes_per_request": nodes}, where)
        parsed.append((rate, nodes))
    shares = _number_list(raw.get("capacity_shares", []), "capacity.latency.capacity_shares", 0.01, 1.0, empty=True)
    return Latency(tuple(parsed), shares)


def _number_list(value: object, where: str, low: float, high: float, empty: bool = False) -> tuple[float, ...]:
    if not isinstance(value, list) or (not value and not empty):
        raise PlanError(
            f"{where}: must be a{'' if empty else ' non-empty'} list of numbers in [{low:g}, {high:g}], got {value!r}"
        )
    return tuple(float(_number(v, f"{where}[{i}]", low, high)) for i, v in enumerate(value))


@dataclass(frozen=True)
class PubSub:
    """What makes a plan a PubSub plan: who publishes and subscribes, and the config keys
    every publisher and subscriber gets (the harness adds address, interface, signals and
    timing per cell, each cell with its own multicast group out of `groups`)."""

    publishers: tuple[str, ...] | None
    subscribers: tuple[str, ...] | None
    reference_subscriber: str
    subscriber_sweep: str  # "reference" (the reference publisher only) or "all"
    config: dict
    groups: ipaddress.IPv4Network


@dataclass(frozen=True)
class Plan:
    """A client/server plan, or with `pubsub` set a PubSub plan (which has no servers,
    clients, workload variants, sweeps or capacity of the client/server kind)."""

    path: Path
    suite: str
    description: str
    profiles: dict[str, dict[str, Phase]]
    servers: tuple[str, ...] | None = None
    clients: tuple[str, ...] | None = None
    ranking: str | None = None
    headroom: bool = False
    sampling_overhead: bool = False  # the reference pair with sampling on and off (engine.overhead)
    interop: tuple[Variant, ...] = ()
    throughput: tuple[Variant, ...] = ()
    sweeps: tuple[Sweep, ...] = ()
    negative_security: bool = False
    capacity: Capacity | None = None
    interop_pairs: dict[str, str] | None = None  # per profile: "all" (default) or "cross"
    server_warmup: dict[str, float] | None = None
    versions: tuple[str, ...] = ()  # profiles whose rankings also measure the servers' other versions
    # the client that ranks every server again when a ranked server refuses the reference client
    second_load_generator: str | None = None
    pubsub: PubSub | None = None
    # a plan of a suite's own kind (SuiteKind): its table's name ("conformance") and what the
    # suite's parser made of it, which the suite reads back (<suite>/suite.py: `of(plan)`)
    kind: str | None = None
    setup: object = None

    def require_profile(self, profile: str) -> None:
        """A PlanError naming the plan's profiles unless it has `profile`."""
        if profile not in self.profiles:
            raise PlanError(f"{self.path}: no profile '{profile}' (has: {', '.join(self.profiles)})")

    def server_warmup_s(self, profile: str) -> float:
        """The bound of a server's warm-up to steady state in `profile`."""
        if self.pubsub:
            return 0.0  # PubSub has no server to warm up
        warmup = suite_kinds()[self.kind].server_warmup_s if self.kind else None
        if warmup is not None:
            return warmup(self, profile)
        return (self.server_warmup or SERVER_WARMUP_S).get(profile, 0.0)

    def provenance(self) -> dict:
        """What a run records of its plan beyond the common fields: its suite kind's own."""
        kind = suite_kinds()[self.kind] if self.kind else None
        return kind.provenance(self) if kind and kind.provenance else {}

    def steady_chunk_s(self, profile: str) -> float:
        return STEADY_CHUNK_S.get(profile, 1.0)

    def sdk_warmup_floor(self, profile: str) -> bool:
        """Whether a server's first warm-up lasts at least its SDK's warmup_s in `profile`: where
        the plan ranks its servers (a throughput ranking, or a security sweep's cost), the figure a
        JIT runtime still compiling would rank too low; not in the other plans (a latency table at
        common loads, a capacity search), whose 20 s a JIT server would take make bench past 15 min."""
        ranks = self.ranking is not None or any(sweep.kind == "security" for sweep in self.sweeps)
        return ranks and SDK_WARMUP_FLOOR.get(profile, True)

    def phases_run(self, profile: str) -> dict[str, Phase]:
        """The phases of `profile` that some test of this plan runs."""
        if self.pubsub:
            return dict(self.profiles.get(profile, {}))
        used = {
            "interop": self.interop,
            "throughput": self.throughput,
            "sweep": self.sweeps,
            "capacity": self.capacity,
            "latency": self.capacity and self.capacity.latency,
        }
        return {kind: phase for kind, phase in self.profiles.get(profile, {}).items() if used[kind]}

    def ranked(self, servers: list[str], profile: str | None) -> list[str]:
        """The servers a ranking measures: `servers`, and in the plan's `versions` profiles each
        one's other declared versions beside it (oldest first), so a version trend is measured
        in the same interleaved blocks as the ranking; in every profile with `uabench run --versions`."""
        if not self.measures_versions(profile):
            return servers
        return [sdk.id for server in servers for sdk in sdks.versions_of(server)]

    def measures_versions(self, profile: str | None) -> bool:
        """Whether this plan's rankings measure each server's other declared versions in `profile`
        (measure_versions; else the plan's `versions` profiles)."""
        chosen = os.environ.get(VERSIONS_ENV)
        if chosen is not None:
            return chosen == "1"
        return profile is not None and profile in self.versions

    def pairs(self, profile: str | None) -> str:
        return (self.interop_pairs or {}).get(profile or "", "all")

    def phase(self, profile: str, kind: str) -> Phase:
        self.require_profile(profile)
        return self.profiles[profile][kind]

    def sweep(self, name: str) -> Sweep:
        for candidate in self.sweeps:
            if candidate.name == name:
                return candidate
        raise PlanError(f"{self.path}: no sweep '{name}'")

    def variant(self, kind: str, name: str) -> Variant:
        for candidate in getattr(self, kind):
            if candidate.name == name:
                return candidate
        raise PlanError(f"{self.path}: no {kind} variant '{name}'")


def expand_nodes(value: object, where: str, server: dict | None = None) -> list[str]:
    """ "Signal_0..99" stands for Signal_0 … Signal_99; lists may mix ranges and names. An
    indexed name (Signal_i, Write_j) must exist on a server of config `server` (the contract's
    defaults where it says nothing): a range is bounded before it is expanded."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise PlanError(f"{where}: must be a node name, a range like 'Signal_0..99', or a list of them, got {value!r}")
    limits = plan_contract.node_limits(server or {})
    nodes: list[str] = []
    for index, item in enumerate(items):
        here = where if isinstance(value, str) else f"{where}[{index}]"
        match = RANGE.match(item)
        if not match:
            single = INDEXED_NODE.match(item)
            if single:
                _within(single.group(1), int(single.group(2)), limits, f"{here}: '{item}'")
            elif item not in NAMED_NODES:
                known = ", ".join([*NAMED_NODES, *(f"{family}i" for family in limits)])
                raise PlanError(f"{here}: '{item}' is no node of the standard address space ({known})")
            nodes.append(item)
            continue
        prefix, low, high = match.group(1), int(match.group(2)), int(match.group(3))
        if prefix not in limits:
            families = ", ".join(f"{family}i..j" for family in limits)
            raise PlanError(f"{here}: '{item}' is no range of the address space (ranges: {families})")
        if high < low:
            raise PlanError(f"{here}: empty range '{item}'")
        _within(prefix, high, limits, f"{here}: '{item}'")
        nodes += [f"{prefix}{i}" for i in range(low, high + 1)]
    return nodes


def _within(prefix: str, index: int, limits: dict[str, int], what: str) -> None:
    count, key = limits[prefix], plan_contract.INDEXED[prefix]
    if index >= count:
        held = f"{prefix}0 … {prefix}{count - 1}" if count else f"no {prefix} node"
        raise PlanError(
            f"{what} names {prefix}{index}, but the server holds {held} (server config '{key}' = {count}; "
            f"the contract allows at most {plan_contract.bound('server', key, 'maximum')})"
        )


def adapter_config(role: str, config: dict, where: str) -> dict:
    """The adapters would refuse it at run time; refuse it here, before anything starts."""
    try:
        return plan_contract.check(role, config)
    except plan_contract.ConfigError as error:
        raise PlanError(f"{where}: {error}") from None


def _number(value: object, where: str, low: float, high: float, integer: bool = False) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or (integer and not isinstance(value, int))
        or not low <= value <= high
    ):
        kind = "an integer" if integer else "a number"
        raise PlanError(f"{where}: must be {kind} in [{low:g}, {high:g}], got {value!r}")
    return value


def _int_list(value: object, where: str, low: int, high: int) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise PlanError(f"{where}: must not be empty")
    return tuple(int(_number(v, f"{where}[{i}]", low, high, integer=True)) for i, v in enumerate(items))


def _boolean(raw: dict, key: str) -> bool:
    """A yes/no key: TOML's true or false only (a string like "no" would be true in Python)."""
    value = raw.get(key, False)
    if not isinstance(value, bool):
        raise PlanError(f"key '{key}' must be true or false, got {value!r}")
    return value


def _text(raw: dict, key: str, default: str | None) -> str | None:
    value = raw.get(key, default)
    if value is not None and not isinstance(value, str):
        raise PlanError(f"key '{key}' must be a string, got {value!r}")
    return value


def _test_name(name: str, where: str) -> None:
    """A variant's or sweep's name becomes part of Robot test names and report headings: it must
    show as itself (printable, on one line, not blank)."""
    if not name.strip() or not name.isprintable():
        raise PlanError(f"{where}: must be printable text on one line, got {name!r}")


def _phase(raw: object, where: str, keys: frozenset[str] | set[str] = frozenset(PHASE_KEYS)) -> Phase:
    """One phase table; `keys` are those this kind of phase takes."""
    if not isinstance(raw, dict):
        raise PlanError(f"{where}: must be a table with {', '.join(sorted(keys))}, got {raw!r}")
    for key in raw:
        if key not in keys:
            raise PlanError(f"{where}.{key}: unknown key (known: {', '.join(sorted(keys))})")
    for key in ("warmup_s", "duration_s"):
        if key not in raw:
            raise PlanError(f"{where}.{key}: missing")
    timing = {
        key: _number(raw[key], f"{where}.{key}", *PHASE_KEYS[key], integer=key in ("repetitions", "max_repetitions"))
        for key in PHASE_KEYS
        if key in raw
    }
    if "max_repetitions" in timing and timing["max_repetitions"] < timing.get("repetitions", 1):
        raise PlanError(
            f"{where}.max_repetitions: {timing['max_repetitions']} is below repetitions "
            f"({timing.get('repetitions', 1)}): the most cannot be fewer than the fewest"
        )
    limit = {
        key: _number(raw[key], f"{where}.{key}", *LIMIT_KEYS[key], integer=key != "resolution")
        for key in LIMIT_KEYS
        if key in raw
    }
    signals = (int(plan_contract.bound("pubsub", "signals", b)) for b in ("default", "minimum", "maximum"))
    default_signals, fewest, most = signals
    return Phase(
        float(timing["warmup_s"]),
        float(timing["duration_s"]),
        int(timing.get("repetitions", 1)),
        max_repetitions=int(timing.get("max_repetitions", 0)),
        resolution=float(limit.get("resolution", SWEEP_RESOLUTION)),
        bisect_steps=int(limit.get("bisect_steps", 0)),
        limit_repetitions=int(limit.get("limit_repetitions", 1)),
        signals=_int_list(raw.get("signals", default_signals), f"{where}.signals", fewest, most)
        if "signals" in keys
        else (),
        counts=_int_list(raw.get("counts", 1), f"{where}.counts", 1, MOST_SUBSCRIBERS) if "counts" in keys else (),
    )


def _variants(raw: object, where: str, profiles: list[str]) -> tuple[Variant, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PlanError(f"{where}: must be an array of tables ([[{where}]]), got {raw!r}")
    variants, names = [], set()
    for index, entry in enumerate(raw):
        here = f"{where}[{index}]"
        allowed = {"name", "workload", "profiles"}
        if not isinstance(entry, dict) or set(entry) - allowed:
            extra = sorted(set(entry) - allowed) if isinstance(entry, dict) else []
            raise PlanError(
                f"{here}: only {', '.join(sorted(allowed))} are allowed" + (f" (got {extra})" if extra else "")
            )
        only = entry.get("profiles")
        if only is not None and (not isinstance(only, list) or not only or not set(only) <= set(profiles)):
            raise PlanError(f"{here}.profiles: a list of this plan's profiles ({', '.join(profiles)}), got {only!r}")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise PlanError(f"{here}.name: missing or not a string")
        _test_name(name, f"{here}.name")
        if name in names:
            raise PlanError(f"{here}.name: duplicate variant '{name}'")
        names.add(name)
        workload = entry.get("workload")
        if not isinstance(workload, dict):
            raise PlanError(f"{here}.workload: missing or not a table")
        workload = dict(workload, nodes=expand_nodes(workload.get("nodes", []), f"{here}.workload.nodes"))
        adapter_config("client", workload, f"{here}.workload")
        variants.append(Variant(name, workload, tuple(only) if only is not None else None))
    return tuple(variants)


def _sweeps(raw: object, profiles: list[str]) -> tuple[Sweep, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise PlanError(f"sweep: must be an array of tables ([[sweep]]), got {raw!r}")
    sweeps, names = [], set()
    for index, entry in enumerate(raw):
        here = f"sweep[{index}]"
        if not isinstance(entry, dict):
            raise PlanError(f"{here}: must be a table")
        for key in entry:
            if key not in SWEEP_KEYS:
                raise PlanError(f"{here}: unknown key '{key}' (known: {', '.join(sorted(SWEEP_KEYS))})")
        name, kind = entry.get("name"), entry.get("kind")
        if not isinstance(name, str) or not name or name in names:
            raise PlanError(f"{here}.name: missing, not a string, or a duplicate")
        _test_name(name, f"{here}.name")
        names.add(name)
        if kind not in SWEEP_KINDS:
            raise PlanError(f"{here}.kind: must be one of {', '.join(SWEEP_KINDS)}, got {kind!r}")
        values = entry.get("values")
        if isinstance(values, list):
            values = {"*": values}
        if not isinstance(values, dict) or not values or not all(isinstance(v, list) and v for v in values.values()):
            raise PlanError(f"{here}.values: a non-empty list, or a table of non-empty lists per profile")
        for profile in values:
            if profile != "*" and profile not in profiles:
                raise PlanError(f"{here}.values.{profile}: no such profile (have: {', '.join(profiles)})")
        stop = _stop(entry.get("stop"), entry.get("workload"), here)
        clients = entry.get("clients", "reference")
        if clients not in ("reference", "all"):
            raise PlanError(f'{here}.clients: must be "reference" or "all", got {clients!r}')
        total = entry.get("total_signals", plan_contract.bound("server", "signals", "default"))
        _number(total, f"{here}.total_signals", 1, plan_contract.bound("server", "signals", "maximum"), integer=True)
        server = entry.get("server", {})
        if not isinstance(server, dict):
            raise PlanError(f"{here}.server: must be a table of server config keys, got {server!r}")
        adapter_config("server", server, f"{here}.server")
        workload = entry.get("workload")
        if not isinstance(workload, dict):
            raise PlanError(f"{here}.workload: missing or not a table")
        workload = dict(workload)
        if "nodes" in workload:
            workload["nodes"] = expand_nodes(workload["nodes"], f"{here}.workload.nodes", server)
        sweep = Sweep(name, kind, {k: tuple(v) for k, v in values.items()}, workload, server, stop, clients, total)
        for profile, profile_values in values.items():
            for position, value in enumerate(profile_values):
                where = f"{here}.values" + ("" if profile == "*" else f".{profile}") + f"[{position}] = {value!r}"
                _sweep_point(sweep, value, where)
        sweeps.append(sweep)
    return tuple(sweeps)


def _stop(stop: object, workload: object, here: str) -> dict | None:
    """A sweep's stop rule: { metric = "sustained" } (the engine's rule, subscriptions only) or
    { metric = "p99_ms", above = positive number }."""
    if stop is None:
        return None
    if isinstance(stop, dict) and stop.get("metric") == "sustained":
        if set(stop) != {"metric"}:
            raise PlanError(
                f'{here}.stop: {{ metric = "sustained" }} takes no other key (its bounds: results/sustain.py)'
            )
        if not isinstance(workload, dict) or workload.get("workload") != "subscribe":
            raise PlanError(
                f'{here}.stop: metric "sustained" judges subscriptions; this sweep\'s workload is not subscribe'
            )
        return stop
    if (
        not isinstance(stop, dict)
        or set(stop) != {"metric", "above"}
        or stop["metric"] not in STOP_METRICS
        or isinstance(stop["above"], bool)
        or not isinstance(stop["above"], (int, float))
        or not stop["above"] > 0
    ):
        raise PlanError(
            f'{here}.stop: must be {{ metric = "sustained" }} or {{ metric = "p99_ms", above = positive number }}'
        )
    return stop


def _sweep_point(sweep: Sweep, value: object, where: str) -> None:
    """Every config a sweep point makes, server and client, as the adapters will get it."""
    try:  # the raw value first: Sweep.point converts it (int(), a division by it)
        plan_contract.sweep_value(sweep.kind, value, sweep.workload)
    except plan_contract.ConfigError as error:
        raise PlanError(f"{where}: {error}") from None
    if sweep.kind == "nodes":  # named here, not by Sweep.point's own expansion
        expand_nodes(value, where, sweep.server)
    server, point = sweep.point(value)
    adapter_config("server", server, f"{where}: server")
    if "nodes" in point:
        expand_nodes(point["nodes"], f"{where}: nodes", server)
    client_config(point, f"{where}: client")


def client_config(config: dict, where: str) -> None:
    """A client config of a plan as the adapters would take it: the harness supplies a secure
    workload's certificates at run time, so any paths stand for them here."""
    if "security" in config:
        config = {**config, "security": dict(config["security"], certificate="c.der", private_key="k.pem")}
    adapter_config("client", config, where)


def _server_warmup(raw: object, profiles: list[str]) -> dict[str, float] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not all(
        k in profiles and isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 600
        for k, v in raw.items()
    ):
        raise PlanError(f"server_warmup_s: a table of profile = seconds (0-600), got {raw!r}")
    return {k: float(v) for k, v in raw.items()}


def _versions(raw: object, profiles: list[str]) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(v, str) and v in profiles for v in raw):
        raise PlanError(
            f"versions: a list of the profiles ({', '.join(profiles)}) whose rankings measure every version, "
            f"got {raw!r}"
        )
    return tuple(raw)


def _interop_pairs(raw: object, profiles: list[str]) -> dict[str, str] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not all(k in profiles and v in ("all", "cross") for k, v in raw.items()):
        raise PlanError(
            f'interop_pairs: a table of profile = "all" | "cross" (profiles: {", ".join(profiles)}), got {raw!r}'
        )
    return dict(raw)


def sdk_selection(raw: object, key: str, role: str) -> tuple[str, ...] | None:
    """ "all", or a list of the ids of SDKs with `role`; an unknown id is refused, not skipped."""
    if raw in (None, "all"):
        return None
    if not isinstance(raw, list) or not raw or not all(isinstance(s, str) for s in raw):
        raise PlanError(f"key '{key}': must be \"all\" or a non-empty list of SDK ids, got {raw!r}")
    sdk_ids(raw, key, role)
    return tuple(raw)


def sdk_ids(ids: list[str], key: str, role: str) -> None:
    known = {sdk.id: sdk for sdk in sdks.all_sdks()}
    for index, sdk_id in enumerate(ids):
        here = f"{key}[{index}]" if len(ids) > 1 or key.endswith("s") else key
        if sdk_id not in known:
            raise PlanError(f"{here}: unknown SDK '{sdk_id}' (known: {', '.join(sorted(known)) or 'none'})")
        if role not in known[sdk_id].roles:
            with_role = ", ".join(sdk.id for sdk in sdks.with_role(role)) or "none"
            raise PlanError(f"{here}: SDK '{sdk_id}' has no {role} role (with it: {with_role})")


def _plan_path(location: str | Path) -> Path:
    """A suite name ('read') is the shipped plan; anything else is a path to a plan file."""
    path = Path(location)
    shipped = PLANS / f"{location}.toml"
    if not path.suffix and not path.is_dir() and shipped.exists():
        return shipped
    if path.is_dir():
        raise PlanError(f"{path}: is a directory, not a plan file (plans are TOML files, e.g. {PLANS / 'read.toml'})")
    if not path.exists():
        if path.suffix or len(path.parts) > 1:
            raise PlanError(f"{path}: no such plan file")
        known = ", ".join(p.stem for p in sorted(PLANS.glob("*.toml")))
        raise PlanError(f"no plan '{location}' (known: {known})")
    return path


def _read(path: Path) -> dict:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise PlanError(f"{path}: cannot read the plan: {error.strerror}") from None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")  # a byte-order mark some editors write
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise PlanError(
            f"{path}: line {line}, byte offset {error.start}: not UTF-8 (byte 0x{data[error.start]:02x}); "
            "TOML plans are UTF-8 text"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PlanError(f"{path}: {error}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise PlanError(f"{path}: arrays or tables nested too deep to be a plan") from None


class TestCost(Protocol):
    """What the estimate (uabench/estimate.py) hands a suite's cost function (SuiteKind.cost) for
    one test: the seconds and cells it adds, the servers the suite's session keeps (each started
    once, warmed once per load), and what each SDK's sdk.toml expects."""

    cell_overhead_s: float  # a client cell's own overhead beside its phases

    def add(self, typical: float, most: float | None = None, cells: int = 0) -> None: ...

    def start(self, server: str) -> None: ...

    def warm(self, server: str, client: str, load: str, fresh: bool = False) -> None: ...

    def startup(self, sdk_id: str) -> float: ...

    def expectations(self, sdk_id: str) -> sdks.Expectations: ...


@dataclass(frozen=True)
class SuiteKind:
    """A kind of plan a suite package registers (its suite.py's KINDS, found by suite_kinds): the
    table that makes a plan this kind, the keys such a plan may have, how its tables become a
    Plan, its test cases, how long a server warms up in it (None: as a client/server plan's),
    what a run records of it, what each of its tests costs (the estimate's), its section of
    the report and its keywords."""

    table: str
    keys: frozenset[str]
    parse: Callable[[dict, dict], Plan]  # (the plan's TOML, the fields every plan has) -> the Plan
    tests: Callable[[Plan, list[str] | None, str | None], list[TestCase]]  # (plan, only, profile)
    server_warmup_s: Callable[[Plan, str], float] | None = None
    provenance: Callable[[Plan], dict] | None = None  # what a run records of such a plan beyond the common fields
    # the typical and longest seconds and the cells of one of its tests (its keywords'), added to a TestCost
    cost: Callable[[Plan, str, TestCase, TestCost], None] | None = None
    # its section of a run's report, from the run and its cells (None: the run has none of its cells)
    section: Callable[[dict, list[dict]], Section | None] | None = None
    # its section setting a run on another target (a board, the VM) beside this machine's run of the
    # suite: (this machine's cells, the target's cells, what each side is called: 'here' or 'here
    # (container)', and the target's place, e.g. 'vm arm64')
    beside: Callable[[list[dict], list[dict], str, str], Section | None] | None = None
    # what it adds beside each server's figures in the report's summary, from a run's cells:
    # (server, column, cell) entries
    summary: Callable[[list[dict]], list[tuple[str, Column, Cell]]] | None = None
    # its headline figures of a run beyond the ones results/compare.run_figures finds in every
    # run's cells (throughput, sustained rates, counts): results.compare.Figure, lower or higher
    # better; the version trend judges them from each version to the next (report/versions.py)
    figures: Callable[[dict, list[dict]], list[Any]] | None = None
    # its Robot keywords: "module:Class", a component robot/library.py builds with the run's
    # context (engine.keywords.RunContext); named, not imported, so loading a plan loads no Robot
    keywords: str | None = None
    # the kinds of the cells its runs record beyond results.kinds.CellKind (see cell_kinds)
    cells: type[StrEnum] | None = None

    @property
    def description(self) -> str:
        article = "an" if self.table[0] in "aeiou" else "a"
        return f"{self.table} plan (it has {article} [{self.table}] table)"


_suite_kinds: dict[str, SuiteKind] | None = None


def suite_kinds() -> dict[str, SuiteKind]:
    """Every kind of plan the harness's packages register: uabench/<package>/suite.py's KINDS.
    Found, not imported by name, so that a suite is its package (adding one touches nothing
    here) and this module imports no suite. Read once per process."""
    global _suite_kinds
    if _suite_kinds is None:
        found: dict[str, SuiteKind] = {}
        for package in pkgutil.iter_modules(uabench.__path__):
            name = f"uabench.{package.name}.suite"
            if package.ispkg and importlib.util.find_spec(name) is not None:
                for kind in importlib.import_module(name).KINDS:
                    found[kind.table] = kind
        _suite_kinds = dict(sorted(found.items()))
    return _suite_kinds


def cell_kinds() -> frozenset[str]:
    """Every kind a stored cell may have: results.kinds.CellKind's and each suite's own. The
    recorder stores no other and `uabench import` loads no other, so a cell never lands under a
    kind that no section reads."""
    found: set[str] = set(CellKind)
    for kind in suite_kinds().values():
        found.update(kind.cells or ())
    return frozenset(found)


def setup_of(plan: Plan, kind: str, setup_type: type[T]) -> T | None:
    """`plan`'s setup when it is a plan of `kind` (a suite's `of(plan)`), else None."""
    if plan.kind != kind:
        return None
    assert isinstance(plan.setup, setup_type), f"{plan.path}: a {kind} plan holds a {type(plan.setup).__name__}"
    return plan.setup


def accessor(kind: str, setup_type: type[T]) -> Callable[[Plan], T | None]:
    """A suite's typed `of(plan)`: the setup of a plan of `kind`, else None."""
    return lambda plan: setup_of(plan, kind, setup_type)


def suite_plan(raw: dict, common: dict, kind: str, setup: object, profiles: dict, clients: bool = False) -> Plan:
    """A plan of a suite's `kind` with its parsed `setup` and `profiles`, and the servers (with
    `clients`, the clients too) its `servers` and `clients` keys select."""
    return Plan(
        **common,
        profiles=profiles,
        servers=sdk_selection(raw.get("servers"), "servers", "server"),
        clients=sdk_selection(raw.get("clients"), "clients", "client") if clients else None,
        kind=kind,
        setup=setup,
    )


def workload_plan(raw: dict, common: dict, kind: str, parse: Callable[[dict], tuple[Any, dict[str, dict]]]) -> Plan:
    """A plan of a suite whose table names workloads (its setup's `workloads`: instructions,
    profile), each workload's nodes expanded and its configs checked against the contract."""
    setup, parsed = checked_tables(parse, raw)
    named = dataclasses.replace(setup, workloads=named_workloads(setup.workloads, f"{kind}.workloads"))
    return suite_plan(raw, common, kind, named, parsed)


def _kinds() -> dict[str, tuple[frozenset[str] | set[str], str, Callable[[dict, dict], Plan]]]:
    return {
        "pubsub": (PUBSUB_PLAN_KEYS, "PubSub plan (it has a [pubsub] table)", _pubsub_plan),
        **{table: (kind.keys, kind.description, kind.parse) for table, kind in suite_kinds().items()},
    }


def load(location: str | Path) -> Plan:
    """A plan by suite name ('read') or by path; a `[pubsub]` table makes it a PubSub plan.
    Every problem is a PlanError naming the file and the key, found before anything starts.

    Written by hand rather than as a JSON Schema of the plan: its rules depend on the suites on
    disk, the SDK registry and the contract schemas (checked through jsonschema, in
    plan_contract), and each message names the TOML key as the plan's author wrote it."""
    path = _plan_path(location)
    raw = _read(path)
    try:
        return _parse(path, raw)
    except PlanError as error:
        raise PlanError(f"{path}: {error}") from None


def _parse(path: Path, raw: dict) -> Plan:
    if "pubsub" in raw and not isinstance(raw["pubsub"], dict):
        raise PlanError(f"key 'pubsub' must be a table ([pubsub]) of PubSub config keys, got {raw['pubsub']!r}")
    # a plan's kind is the table it has: its keys, its name in messages, its parser
    kinds = _kinds()
    kind = next((table for table in kinds if table in raw), None)
    known_keys, name, parser = kinds[kind] if kind else (PLAN_KEYS, "client/server plan", _client_server_plan)
    for key in raw:
        if key not in known_keys:
            raise PlanError(f"unknown key '{key}' in a {name} (known: {', '.join(sorted(known_keys))})")
    suite = raw.get("suite")
    if not isinstance(suite, str) or not (paths.SUITES / f"{suite}.robot").exists():
        raise PlanError(f"key 'suite' must name a Robot suite in suites/, got {suite!r}")
    profiles = raw.get("profiles")
    if not isinstance(profiles, dict) or not profiles:
        raise PlanError(f"key 'profiles' must hold at least one profile table, got {profiles!r}")
    common = {"path": path, "suite": suite, "description": _text(raw, "description", "")}
    return parser(raw, common)


def checked_tables(parse: Callable[[dict], tuple[T, dict[str, dict]]], raw: dict) -> tuple[T, dict[str, dict]]:
    """A plan kind's tables parsed by its own module (plan_table's JSON Schema checks), its
    PlanTableError as the PlanError every plan problem is."""
    try:
        return parse(raw)
    except PlanTableError as error:
        raise PlanError(str(error)) from None


def named_workloads(workloads: tuple[plan_table.Workload, ...], where: str) -> tuple[plan_table.Workload, ...]:
    """Each workload's nodes expanded (its loads' too) and its configs checked against the contract."""
    found = []
    for index, one in enumerate(workloads):
        here = f"{where}[{index}]"
        adapter_config("server", one.server, f"{here}.server")
        nodes = expand_nodes(one.workload.get("nodes"), f"{here}.workload.nodes", one.server)
        workload = {**one.workload, "nodes": nodes}
        client_config(workload, f"{here}.workload")
        loads = []
        for number, load in enumerate(one.loads):
            if "nodes" in load:
                load = {**load, "nodes": expand_nodes(load["nodes"], f"{here}.loads[{number}].nodes", one.server)}
            client_config({**workload, **load}, f"{here}.loads[{number}]")
            loads.append(load)
        found.append(dataclasses.replace(one, workload=workload, loads=tuple(loads)))
    return tuple(found)


def _client_server_plan(raw: dict, common: dict) -> Plan:
    parsed_profiles = {}
    for name, phases in raw["profiles"].items():
        if not isinstance(phases, dict) or set(phases) - set(PHASES):
            raise PlanError(f"profiles.{name} may hold only {', '.join(PHASES)} tables")
        parsed_profiles[name] = {
            kind: _phase(
                phases.get(kind, {"warmup_s": 0.2, "duration_s": 0.5}),
                f"profiles.{name}.{kind}",
                frozenset(PHASE_KEYS) | (set(LIMIT_KEYS) if kind == "sweep" else set()),
            )
            for kind in PHASES
        }
    plan = Plan(
        **common,
        profiles=parsed_profiles,
        servers=sdk_selection(raw.get("servers"), "servers", "server"),
        clients=sdk_selection(raw.get("clients"), "clients", "client"),
        ranking=_text(raw, "ranking", None),
        headroom=_boolean(raw, "headroom"),
        sampling_overhead=_boolean(raw, "sampling_overhead"),
        interop=_variants(raw.get("interop"), "interop", list(parsed_profiles)),
        throughput=_variants(raw.get("throughput"), "throughput", list(parsed_profiles)),
        sweeps=_sweeps(raw.get("sweep"), list(parsed_profiles)),
        negative_security=_boolean(raw, "negative_security"),
        capacity=_capacity(raw.get("capacity")),
        interop_pairs=_interop_pairs(raw.get("interop_pairs"), list(parsed_profiles)),
        server_warmup=_server_warmup(raw.get("server_warmup_s"), list(parsed_profiles)),
        versions=_versions(raw.get("versions"), list(parsed_profiles)),
        second_load_generator=_text(raw, "second_load_generator", None),
    )
    if plan.second_load_generator is not None:
        # one not installed here is left out as any SDK is (a checkout with fewer SDKs, the test
        # fixtures' repositories): second_load_generator() then names none, and the first ranking's
        # table says which server it could not rank; one that is installed must be a client
        if plan.second_load_generator in {sdk.id for sdk in sdks.all_sdks()}:
            sdk_ids([plan.second_load_generator], "second_load_generator", "client")
        if plan.ranking is None:
            raise PlanError("key 'second_load_generator' needs a 'ranking' to measure again")
    if plan.ranking is not None and plan.ranking not in {v.name for v in plan.throughput}:
        raise PlanError(f"key 'ranking' names no throughput variant: {plan.ranking!r}")
    if not (plan.interop or plan.throughput or plan.sweeps or plan.negative_security or plan.capacity):
        raise PlanError("the plan has no [[interop]], [[throughput]] or [[sweep]] sections")
    _one_service(plan)
    return plan


def _one_service(plan: Plan) -> None:
    """A plan of a suite named for a service (SERVICE_SUITES) measures only that service."""
    service = SERVICE_SUITES.get(plan.suite)
    if service is None:
        return
    measured = [(kind, v.name, v.workload) for kind in ("interop", "throughput") for v in getattr(plan, kind)]
    measured += [("sweep", sweep.name, sweep.workload) for sweep in plan.sweeps]
    for kind, name, workload in measured:
        if workload.get("workload") != service:
            raise PlanError(
                f"{kind} '{name}': workload {workload.get('workload')!r} in a plan of suite '{plan.suite}', "
                f"which measures only {service!r} (its cells would be stored as {plan.suite} figures)"
            )


def _pubsub_plan(raw: dict, common: dict) -> Plan:
    config = dict(raw["pubsub"])
    try:
        groups = ipaddress.IPv4Network(config.pop("groups", PUBSUB_GROUPS))
    except (TypeError, ValueError) as error:
        raise PlanError(f"pubsub.groups: {error}") from None
    if not groups.is_multicast:
        raise PlanError(f"pubsub.groups must be a multicast range, got {groups}")
    for key in ("address", "interface", "signals", "warmup_s", "duration_s"):
        if key in config:
            raise PlanError(f"pubsub.{key} is set per cell by the harness")
    adapter_config("subscriber", config, "pubsub")
    parsed = {}
    for name, tables in raw["profiles"].items():
        if not isinstance(tables, dict) or set(tables) != set(PUBSUB_PHASES):
            raise PlanError(f"profiles.{name} must hold exactly the tables {', '.join(PUBSUB_PHASES)}")
        parsed[name] = {
            kind: _phase(tables[kind], f"profiles.{name}.{kind}", keys) for kind, keys in PUBSUB_PHASES.items()
        }
        for kind in PUBSUB_PHASES:  # every configuration the profile will run must be valid
            for signals in parsed[name][kind].signals:
                for role in ("publisher", "subscriber"):
                    adapter_config(role, {**config, "signals": signals}, f"profiles.{name}.{kind}.signals = {signals}")
    sweep = raw.get("subscriber_sweep", "reference")
    if sweep not in ("reference", "all"):
        raise PlanError(f'key \'subscriber_sweep\' must be "reference" or "all", got {sweep!r}')
    reference = raw.get("reference_subscriber", references.declared("subscriber"))
    if not isinstance(reference, str):
        raise PlanError(f"key 'reference_subscriber' must be an SDK id, got {reference!r}")
    sdk_ids([reference], "reference_subscriber", "subscriber")
    return Plan(
        **common,
        profiles=parsed,
        pubsub=PubSub(
            publishers=sdk_selection(raw.get("publishers"), "publishers", "publisher"),
            subscribers=sdk_selection(raw.get("subscribers"), "subscribers", "subscriber"),
            reference_subscriber=reference,
            subscriber_sweep=sweep,
            config=config,
            groups=groups,
        ),
    )


def require_cells(plan: Plan, only: list[str] | None, profile: str) -> list[TestCase]:
    """The test cases `plan` runs in `profile` for the SDK selection `only`; a plan that selects
    none is an error, not an empty run that passes."""
    cases = test_cases(plan, only, profile)
    if not cases:
        chosen = f"--sdk {','.join(only)}" if only else "every SDK here"
        raise PlanError(
            f"{plan.path}: selects no test in profile '{profile}' with {chosen} "
            f"({_selection_text(plan)}; a sweep or variant may also leave this profile out)"
        )
    return cases


def _selection_text(plan: Plan) -> str:
    """The SDKs of each role the plan lets run here."""
    if plan.pubsub:
        roles = {"publisher": plan.pubsub.publishers, "subscriber": plan.pubsub.subscribers}
    else:
        roles = {"server": plan.servers, "client": plan.clients}
    return "; ".join(f"{role}s: {', '.join(sdks_chosen(role, ids, None)) or 'none'}" for role, ids in roles.items())


# `uabench run --versions` reaches plan.ranked through the environment: the Robot run's test
# matrix (robot.modifier.Matrix) loads its plans afresh, in the same process.
VERSIONS_ENV = "UABENCH_VERSIONS"


def measure_versions(on: bool | None) -> None:
    """Whether every ranking of this process also measures each server's other declared
    versions, whatever the plan's `versions` profiles say: True with `uabench run --versions`,
    False where the servers run on a target (a container, an SSH target, a VM) that only the
    pinned versions have images for, None as the plans' profiles say."""
    if on is None:
        os.environ.pop(VERSIONS_ENV, None)
    else:
        os.environ[VERSIONS_ENV] = "1" if on else "0"


def reference_client() -> str | None:
    """The load generator that ranks servers: the declared reference client (references.py)
    when it is there, else the first client."""
    clients = [sdk.id for sdk in sdks.with_role("client")]
    wanted = references.declared("client")
    if wanted in clients:
        return wanted
    return clients[0] if clients else None


def second_load_generator(plan: Plan, reference: str, ranked: list[str]) -> str | None:
    """The plan's second load generator when one of the `ranked` servers refuses the reference
    client (sdk.toml [interop], refused = true) and it is installed: it ranks that server again
    with the reference server (`again`), in a table of its own (a figure under one load generator is
    never ranked against one under another). None otherwise."""
    second = plan.second_load_generator
    if second is None or second == reference or second not in {sdk.id for sdk in sdks.with_role("client")}:
        return None
    workload = next((v.workload["workload"] for v in plan.throughput if v.name == plan.ranking), None)
    refusing = [server for server in ranked if sdks.get(server).refuses(reference, workload)]
    return second if refusing else None


def again(plan: Plan, reference: str, ranked: list[str]) -> list[str]:
    """The servers the second load generator ranks: those that refuse the reference client, with
    the reference server when it is ranked, so each of them has its throughput relative to the
    reference server's measured in the same blocks (figures.reference_ratios); every ranked server
    when the reference server is not ranked. Ranking every server again cost make bench two minutes
    for figures the first ranking has already."""
    workload = next((v.workload["workload"] for v in plan.throughput if v.name == plan.ranking), None)
    refusing = [server for server in ranked if sdks.get(server).refuses(reference, workload)]
    anchor = references.declared("server")
    return sorted({*refusing, anchor}) if anchor in ranked else ranked


def reference_publisher() -> str | None:
    """The publisher whose subscriber-count sweep runs (unless the plan sweeps all)."""
    ids = [sdk.id for sdk in sdks.with_role("publisher")]
    wanted = references.declared("publisher")
    return wanted if wanted in ids else (ids[0] if ids else None)


def reference_subscriber(plan: Plan, publisher: str) -> str | None:
    """The subscriber that measures a publisher's sweeps: the plan's reference (the native
    one, so the subscriber is not the bottleneck), else the publisher's own SDK."""
    assert plan.pubsub
    ids = [sdk.id for sdk in sdks.with_role("subscriber")]
    if plan.pubsub.reference_subscriber in ids:
        return plan.pubsub.reference_subscriber
    return publisher if publisher in ids else (ids[0] if ids else None)


def selected(ids: str | None) -> list[str] | None:
    """Parse a comma-separated SDK selection ('' or None = all)."""
    if not ids:
        return None
    chosen = [part.strip() for part in ids.split(",") if part.strip()]
    if not chosen:
        raise ValueError(f"--sdk {ids!r} names no SDK")
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


def test_cases(plan: Plan, only: list[str] | None = None, profile: str | None = None) -> list[TestCase]:
    """The test cases of a plan: those of its SDKs (all present, or `only` these) that run in
    `profile` (None: every profile)."""
    if plan.kind is not None:
        return suite_kinds()[plan.kind].tests(plan, only, profile)
    return _pubsub_tests(plan, only) if plan.pubsub else _client_server_tests(plan, only, profile)


def workload_tag(name: str) -> str:
    """The tag of a named workload's tests: `--include workload:read-1-node`."""
    return "workload:" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def sdks_chosen(role: str, allowed: tuple[str, ...] | None, only: list[str] | None) -> list[str]:
    """The SDKs with `role` that the plan allows and the selection keeps."""
    return [
        sdk.id
        for sdk in sdks.with_role(role)
        if (only is None or sdk.id in only) and (allowed is None or sdk.id in allowed)
    ]


def _client_server_tests(plan: Plan, only: list[str] | None, profile: str | None) -> list[TestCase]:
    """Every client x server x interop variant, then the reference client's throughput
    cells that rank the servers, its sweeps, capacity and security checks, then its headroom."""
    clients, servers = sdks_chosen("client", plan.clients, only), sdks_chosen("server", plan.servers, only)
    verb = {"read": "reads", "write": "writes"}.get(plan.suite, "runs against")
    reference = reference_client()
    pairs = [(client, server) for server in servers for client in clients]
    if plan.pairs(profile) == "cross" and reference in servers and reference in clients:
        # every client against the reference server, the reference client against every server,
        # and each SDK's client against its own server (a server that refuses the reference
        # client is still met by a client that reaches it)
        pairs = [(c, s) for c, s in pairs if reference in (c, s) or c == s]
    tests = [
        TestCase(
            f"{client} {verb} {server}: {v.name}",
            "Interop Cell Should Pass",
            (client, server, v.name),
            ("interop", f"client:{client}", f"server:{server}"),
        )
        for client, server in pairs
        for v in plan.interop
        if profile is None or v.runs_in(profile)
    ]
    if reference:  # ranks the selected servers even when the selection leaves it out
        # One test per ranking: it measures every selected server in interleaved blocks
        # (engine.interleave), so it carries the tag of every server it measures.
        ranked = plan.ranked(servers, profile)
        measured = tuple(f"server:{server}" for server in ranked)
        # a second load generator ranks the headline variant again, right after the reference
        # (every server warm from it), when a ranked server refuses the reference client: that
        # server with the reference server (again)
        second = second_load_generator(plan, reference, ranked)
        loads = [
            (reference, None, ranked),
            *([(second, plan.ranking, again(plan, reference, ranked))] if second else []),
        ]
        tests += [
            TestCase(
                f"Throughput ranking ({client} load): {v.name}",
                "Throughput Ranking Should Be Measured",
                (client, v.name, ",".join(chosen)),
                ("throughput", "ranking", f"client:{client}", *(f"server:{server}" for server in chosen)),
            )
            for client, only_variant, chosen in loads
            for v in plan.throughput
            if servers and (profile is None or v.runs_in(profile)) and only_variant in (None, v.name)
        ]
        for sweep in plan.sweeps:
            if profile is not None and not sweep.points(profile):
                continue  # this profile leaves the sweep out
            if interleaved(sweep):  # the security modes compared on every server, interleaved
                if servers:
                    tests.append(
                        TestCase(
                            f"Security overhead ({reference} load): {sweep.name}",
                            "Security Overhead Should Be Measured",
                            (sweep.name, reference, ",".join(ranked)),
                            ("sweep", "security", f"client:{reference}", *measured),
                        )
                    )
                continue
            sweep_clients = [reference] if sweep.clients == "reference" else clients
            tests += [
                TestCase(
                    f"Sweep {sweep.name} on {server}" + (f" ({client} client)" if sweep.clients == "all" else ""),
                    "Sweep Should Complete",
                    (sweep.name, client, server),
                    ("sweep", f"client:{client}", f"server:{server}"),
                )
                # each version's headline: the reference client's signal-rate sweep
                for server in (ranked if sweep.clients == "reference" and sweep.kind == "signals" else servers)
                for client in sweep_clients
            ]
        if plan.capacity:
            tests += [
                TestCase(
                    f"Read capacity of {server}",
                    "Capacity Should Be Found",
                    (reference, server),
                    ("capacity", f"server:{server}"),
                )
                for server in servers
            ]
            if plan.capacity.latency and servers:
                tests.append(
                    TestCase(
                        f"Latency at common loads ({reference} load)",
                        "Latency At Common Loads Should Be Measured",
                        (reference, ",".join(servers)),
                        ("capacity", "latency", *(f"server:{server}" for server in servers)),
                    )
                )
        if plan.negative_security:
            tests += [
                TestCase(f"{server} rejects {what}", keyword, (reference, server), ("security", f"server:{server}"))
                for server in servers
                for what, keyword in (
                    ("an untrusted client certificate", "Untrusted Client Should Be Rejected"),
                    ("a policy it does not offer", "Unoffered Policy Should Be Refused"),
                )
            ]
        if servers and plan.headroom and plan.ranking:
            tests.append(
                TestCase(
                    f"Headroom of the {reference} load generator",
                    "Load Generator Headroom Should Be Measured",
                    (reference,),
                    ("headroom", f"client:{reference}"),
                )
            )
        if reference in servers and plan.sampling_overhead and plan.ranking:
            tests.append(
                TestCase(
                    f"Sampling overhead ({reference} against {reference})",
                    "Sampling Overhead Should Be Measured",
                    (reference, plan.ranking),
                    ("overhead", f"client:{reference}", f"server:{reference}"),
                )
            )
    return tests


def interleaved(sweep: Sweep) -> bool:
    """A sweep whose points are variants compared on one server (security modes against
    None), not a load rising to a limit: its points and servers run in interleaved blocks."""
    return sweep.kind == "security" and sweep.clients == "reference" and not sweep.stop


def _pubsub_tests(plan: Plan, only: list[str] | None) -> list[TestCase]:
    """Sweeps of every publisher, the subscriber-count sweep, then every publisher x subscriber."""
    assert plan.pubsub
    publishers = sdks_chosen("publisher", plan.pubsub.publishers, only)
    subscribers = sdks_chosen("subscriber", plan.pubsub.subscribers, only)
    found: list[TestCase] = []
    for publisher in publishers:
        subscriber = reference_subscriber(plan, publisher)
        if subscriber:
            found.append(
                TestCase(
                    f"Signal-rate sweep of the {publisher} publisher ({subscriber} subscriber)",
                    "PubSub Sweep Should Complete",
                    (publisher, subscriber),
                    ("pubsub", "sweep", f"publisher:{publisher}", f"subscriber:{subscriber}"),
                )
            )
    swept = (
        publishers if plan.pubsub.subscriber_sweep == "all" else [p for p in publishers if p == reference_publisher()]
    )
    for publisher in swept:
        subscriber = reference_subscriber(plan, publisher)
        if subscriber:
            found.append(
                TestCase(
                    f"Subscriber-count sweep of the {publisher} publisher ({subscriber} subscribers, "
                    "one network namespace each)",
                    "PubSub Subscriber Sweep Should Complete",
                    (publisher, subscriber),
                    ("pubsub", "subscribers", f"publisher:{publisher}", f"subscriber:{subscriber}"),
                )
            )
    found += [
        TestCase(
            f"{publisher} publishes to {subscriber}",
            "PubSub Interop Should Pass",
            (publisher, subscriber),
            ("pubsub", "interop", f"publisher:{publisher}", f"subscriber:{subscriber}"),
        )
        for publisher in publishers
        for subscriber in subscribers
    ]
    return found
