"""What makes a plan a profile plan (a `[profile]` table; suites/plans/profile.toml): the
workloads every server is profiled under, the sampling frequency, and per benchmark profile how
long and how often. Checked with a JSON Schema (plan_table), as the other plan kinds are."""

from __future__ import annotations

from dataclasses import dataclass

from uabench import plan_table
from uabench.plan_table import Workload

SETUP_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["workloads", "frequency_hz"],
    "properties": {
        "workloads": {"type": "array", "minItems": 1, "items": plan_table.WORKLOAD_SCHEMA},
        # samples per second and thread (perf -F, py-spy --rate)
        "frequency_hz": {"type": "integer", "minimum": 1, "maximum": 10000},
        # the functions by self time the report lists per profile
        "top": {"type": "integer", "minimum": 1, "maximum": 100},
    },
}
PROFILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["duration_s", "repetitions"],
    "properties": {
        # one measured phase, profiled or not
        "duration_s": {"type": "number", "minimum": 0.2, "maximum": 600},
        # pairs of phases without and with the profiler (the overhead); each profiled one adds samples
        "repetitions": {"type": "integer", "minimum": 1, "maximum": 50},
        "workloads": plan_table.CHOSEN_SCHEMA,
        "servers": plan_table.CHOSEN_SCHEMA,
    },
}


@dataclass(frozen=True)
class ProfileProfile:
    duration_s: float
    repetitions: int
    workloads: tuple[str, ...] | None
    servers: tuple[str, ...] | None


@dataclass(frozen=True)
class ProfileSetup(plan_table.Selection):
    workloads: tuple[Workload, ...]
    frequency_hz: int
    top: int
    profiles: dict[str, ProfileProfile]


def parse(raw: dict) -> tuple[ProfileSetup, dict[str, dict]]:
    setup = plan_table.setup_table(raw, "profile", SETUP_SCHEMA)
    workloads = plan_table.workloads(setup["workloads"], "profile.workloads")
    names = [w.name for w in workloads]
    profiles = {
        name: ProfileProfile(
            float(t["duration_s"]),
            int(t["repetitions"]),
            plan_table.chosen_names(t, "workloads", names, f"profiles.{name}.profile"),
            tuple(t["servers"]) if "servers" in t else None,
        )
        for name, t in plan_table.profile_tables(raw, "profile", PROFILE_SCHEMA).items()
    }
    return (
        ProfileSetup(workloads, int(setup["frequency_hz"]), int(setup.get("top", 15)), profiles),
        {name: {} for name in profiles},
    )
