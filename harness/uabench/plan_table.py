"""The tables of the plan kinds that are checked with a JSON Schema (conformance, robustness,
soak): their own table and one table of the same name per profile. jsonschema rather than code
by hand: every rule there is a type or a range, and its messages name the key."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema


class PlanTableError(ValueError):
    pass


def check(value: object, schema: dict, where: str) -> None:
    """A PlanTableError naming the key (e.g. "profiles.quick.soak.duration_s: 5 is less than ...")."""
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as error:
        place = ".".join([where, *(str(p) for p in error.absolute_path)])
        raise PlanTableError(f"{place}: {error.message}") from None


def setup_table(raw: dict, table: str, schema: dict) -> dict:
    check(raw[table], schema, table)
    return raw[table]


def profile_tables(raw: dict, table: str, schema: dict) -> dict[str, dict]:
    """Each profile's `[profiles.NAME.<table>]`, checked; the profile holds nothing else."""
    found = {}
    for name, tables in (raw.get("profiles") or {}).items():
        if not isinstance(tables, dict) or set(tables) != {table}:
            raise PlanTableError(f"profiles.{name} must hold exactly one table, {table}")
        check(tables[table], schema, f"profiles.{name}.{table}")
        found[name] = tables[table]
    return found


# A named workload of a plan kind whose tests each run one (instructions, profile): client
# config keys beside the endpoint (nodes may be ranges, plan.py expands and checks them) and
# the server config keys of its server.
WORKLOAD_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "workload"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        # what one operation is, in the report: "request" (default), "notification"
        "per": {"type": "string", "minLength": 1},
        "workload": {"type": "object"},
        "server": {"type": "object"},
        # client config keys over `workload`, one set per run of a comparison (instructions: the
        # two loads a count differences; {} is the workload as it is)
        "loads": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "object"}},
    },
}


@dataclass(frozen=True)
class Workload:
    name: str
    per: str
    workload: dict
    server: dict
    loads: tuple[dict, ...] = ()


class Selection:
    """What a plan kind with named workloads (instructions, profile) offers its tests: a workload
    by name, and the workloads and servers a profile selects (its `workloads` and `servers`
    keys; None: all). The dataclass that mixes it in has `workloads` and `profiles`."""

    workloads: tuple[Workload, ...]
    profiles: Mapping[str, Any]  # name -> a profile with `workloads` and `servers` (None: all)

    def workload(self, name: str) -> Workload:
        found = next((w for w in self.workloads if w.name == name), None)
        if found is None:
            raise KeyError(f"no workload '{name}' (has: {', '.join(w.name for w in self.workloads)})")
        return found

    def workloads_of(self, profile: str | None) -> tuple[Workload, ...]:
        chosen = self.profiles.get(profile or "quick")
        names = chosen.workloads if chosen else None
        return tuple(w for w in self.workloads if names is None or w.name in names)

    def servers_of(self, profile: str | None) -> tuple[str, ...] | None:
        chosen = self.profiles.get(profile or "quick")
        return chosen.servers if chosen else None


def workloads(raw: list[dict], where: str) -> tuple[Workload, ...]:
    """The named workloads of a checked table (WORKLOAD_SCHEMA items), their names distinct."""
    found = tuple(
        Workload(
            w["name"],
            w.get("per", "request"),
            dict(w["workload"]),
            dict(w.get("server") or {}),
            tuple(dict(load) for load in w.get("loads", ())),
        )
        for w in raw
    )
    names = [w.name for w in found]
    if len(set(names)) != len(names):
        raise PlanTableError(f"{where}: names must differ, got {names}")
    return found


# A profile's selection of names (its workloads, its servers): what chosen_names reads.
CHOSEN_SCHEMA = {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "string", "minLength": 1}}


def chosen_names(table: dict, key: str, known: list[str], where: str) -> tuple[str, ...] | None:
    """A profile's selection of names (workloads) among `known`; None: all."""
    if key not in table:
        return None
    unknown = [name for name in table[key] if name not in known]
    if unknown:
        raise PlanTableError(f"{where}.{key}: no {unknown} (has: {', '.join(known)})")
    return tuple(table[key])
