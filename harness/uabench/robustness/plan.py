"""What makes a plan a robustness plan (a `[robustness]` table; suites/plans/robustness.toml): the
batches every server gets, and per benchmark profile their size and bounds. Checked with a JSON
Schema (jsonschema), as the conformance plan is: every rule here is a type or a range."""

from __future__ import annotations

from dataclasses import dataclass

import jsonschema

from uabench.robustness.batches import BATCHES

SETUP_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["batches"],
    "properties": {
        "batches": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(BATCHES)}},
        "seed": {"type": "integer", "minimum": 0},
    },
}
PROFILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["cases", "time_s", "recovery_s"],
    "properties": {
        "cases": {"type": "integer", "minimum": 1, "maximum": 100000},  # per fuzz batch; attacks scale with it
        "time_s": {"type": "number", "minimum": 1, "maximum": 3600},  # each batch's bound
        "recovery_s": {"type": "number", "minimum": 0, "maximum": 600},  # the wait before the second look
    },
}


class RobustnessPlanError(ValueError):
    pass


@dataclass(frozen=True)
class RobustnessProfile:
    cases: int
    time_s: float
    recovery_s: float


@dataclass(frozen=True)
class RobustnessSetup:
    batches: tuple[str, ...]
    seed: int
    profiles: dict[str, RobustnessProfile]


def _valid(value: object, schema: dict, where: str) -> None:
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as error:
        place = ".".join([where, *(str(p) for p in error.absolute_path)])
        raise RobustnessPlanError(f"{place}: {error.message}") from None


def parse(raw: dict) -> tuple[RobustnessSetup, dict[str, dict]]:
    setup = raw["robustness"]
    _valid(setup, SETUP_SCHEMA, "robustness")
    profiles = {}
    for name, tables in (raw.get("profiles") or {}).items():
        if not isinstance(tables, dict) or set(tables) != {"robustness"}:
            raise RobustnessPlanError(f"profiles.{name} must hold exactly one table, robustness")
        _valid(tables["robustness"], PROFILE_SCHEMA, f"profiles.{name}.robustness")
        table = tables["robustness"]
        profiles[name] = RobustnessProfile(int(table["cases"]), float(table["time_s"]), float(table["recovery_s"]))
    return RobustnessSetup(tuple(setup["batches"]), int(setup.get("seed", 1)), profiles), {n: {} for n in profiles}
