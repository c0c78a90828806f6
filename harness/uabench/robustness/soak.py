"""What makes a plan a soak plan (a `[soak]` table; suites/plans/soak.toml): per benchmark profile
how long the steady subscription load and the session churn run and how often the server is
sampled. Checked with a JSON Schema (jsonschema), as the other plan kinds are."""

from __future__ import annotations

from dataclasses import dataclass

from uabench import plan_table

SETUP_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "signals": {"type": "integer", "minimum": 1, "maximum": 100000},  # monitored by the steady subscription
        "churn": {"type": "boolean"},  # sessions opened, read and closed in a loop beside it
    },
}
PROFILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["duration_s", "sample_s"],
    "properties": {
        "duration_s": {"type": "number", "minimum": 10, "maximum": 86400},
        "sample_s": {"type": "number", "minimum": 0.1, "maximum": 60},
    },
}


@dataclass(frozen=True)
class SoakProfile:
    duration_s: float
    sample_s: float


@dataclass(frozen=True)
class SoakSetup:
    signals: int
    churn: bool
    profiles: dict[str, SoakProfile]


def parse(raw: dict) -> tuple[SoakSetup, dict[str, dict]]:
    setup = plan_table.setup_table(raw, "soak", SETUP_SCHEMA)
    profiles = {
        name: SoakProfile(float(t["duration_s"]), float(t["sample_s"]))
        for name, t in plan_table.profile_tables(raw, "soak", PROFILE_SCHEMA).items()
    }
    return SoakSetup(int(setup.get("signals", 100)), bool(setup.get("churn", True)), profiles), {
        n: {} for n in profiles
    }
