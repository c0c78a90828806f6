"""What makes a plan a conformance plan (a `[conformance]` table; suites/plans/conformance.toml):
the address space the servers serve for the probe, and per benchmark profile the probe's bounds
and the capacity gates' caps. Checked with a JSON Schema (jsonschema, which the contract's
configs use too; plan_table.py) rather than by hand: every rule here is a type or a range."""

from __future__ import annotations

from dataclasses import dataclass

from uabench import plan_table

_COUNT = {"type": "integer", "minimum": 1}
SETUP_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        # the address space's sizes: small, so a Browse returns it whole and BrowseNext pages it
        "signals": {"type": "integer", "minimum": 1, "maximum": 1000},
        "writes": {"type": "integer", "minimum": 2, "maximum": 1000},
    },
}
PROFILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["session_wait_s", "gates"],
    "properties": {
        # the longest the probe waits for a session timeout or a token lifetime to pass
        "session_wait_s": {"type": "number", "minimum": 1, "maximum": 600},
        # the probe's bound on one request
        "timeout_s": {"type": "number", "minimum": 0.5, "maximum": 60},
        # how far past the profile minimums (checks.py) the capacity gates go before stopping
        "gates": {
            "type": "object",
            "additionalProperties": False,
            "required": ["sessions", "subscriptions", "monitored_items"],
            "properties": {
                "sessions": {**_COUNT, "maximum": 2000},
                "subscriptions": {**_COUNT, "maximum": 1000},
                "monitored_items": {**_COUNT, "maximum": 100000},
            },
        },
    },
}


@dataclass(frozen=True)
class ConformanceProfile:
    session_wait_s: float
    timeout_s: float
    gates: dict[str, int]

    def summary(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ConformanceSetup:
    signals: int
    writes: int
    profiles: dict[str, ConformanceProfile]


def parse(raw: dict) -> tuple[ConformanceSetup, dict[str, dict]]:
    """The conformance setup of a plan, and its profiles as the plan's `profiles` (no phases)."""
    setup = plan_table.setup_table(raw, "conformance", SETUP_SCHEMA)
    profiles = {
        name: ConformanceProfile(float(t["session_wait_s"]), float(t.get("timeout_s", 5.0)), dict(t["gates"]))
        for name, t in plan_table.profile_tables(raw, "conformance", PROFILE_SCHEMA).items()
    }
    return (
        ConformanceSetup(int(setup.get("signals", 10)), int(setup.get("writes", 10)), profiles),
        {name: {} for name in profiles},
    )
