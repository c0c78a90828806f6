"""What makes a plan a robustness plan (a `[robustness]` table; suites/plans/robustness.toml): the
batches every server gets, and per benchmark profile their size and bounds. Checked with a JSON
Schema (jsonschema), as the conformance plan is: every rule here is a type or a range."""

from __future__ import annotations

from dataclasses import dataclass

from uabench import plan_table
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
        # the batches this profile runs, of the plan's (default: all): smoke keeps make test short
        "batches": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(BATCHES)}},
    },
}


@dataclass(frozen=True)
class RobustnessProfile:
    cases: int
    time_s: float
    recovery_s: float
    batches: tuple[str, ...] | None = None  # None: the plan's


@dataclass(frozen=True)
class RobustnessSetup:
    batches: tuple[str, ...]
    seed: int
    profiles: dict[str, RobustnessProfile]

    def batches_of(self, profile: str | None) -> tuple[str, ...]:
        chosen = self.profiles.get(profile or "quick")
        return chosen.batches if chosen and chosen.batches else self.batches


def parse(raw: dict) -> tuple[RobustnessSetup, dict[str, dict]]:
    setup = plan_table.setup_table(raw, "robustness", SETUP_SCHEMA)
    profiles = {
        name: RobustnessProfile(
            int(t["cases"]), float(t["time_s"]), float(t["recovery_s"]), tuple(t["batches"]) if "batches" in t else None
        )
        for name, t in plan_table.profile_tables(raw, "robustness", PROFILE_SCHEMA).items()
    }
    batches = tuple(setup["batches"])
    for name, profile in profiles.items():
        extra = [b for b in profile.batches or () if b not in batches]
        if extra:
            raise plan_table.PlanTableError(
                f"profiles.{name}.robustness.batches: {extra[0]} is not in robustness.batches"
            )
    return RobustnessSetup(batches, int(setup.get("seed", 1)), profiles), {n: {} for n in profiles}
