"""What makes a plan a resilience plan (a `[resilience]` table; suites/plans/resilience.toml): per
benchmark profile the incidents (the server killed and restarted on its port, the network path
cut), the workloads they strike, which client-server pairs run, and the incident's timing.
Checked with a JSON Schema (jsonschema), as the other plan kinds are."""

from __future__ import annotations

from dataclasses import dataclass

from uabench import plan_table

INCIDENTS = ("restart", "cut")
WORKLOADS = ("read", "subscribe")
PAIRS = ("clients", "cross")  # every client → the reference server; and the reference client → every server

SETUP_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "signals": {"type": "integer", "minimum": 1, "maximum": 100000},  # the server's, and monitored
        # the client that tries every server, and the server every client tries (SDK ids; default:
        # the harness's reference client and its SDK's server)
        "reference_client": {"type": "string", "minLength": 1},
        "reference_server": {"type": "string", "minLength": 1},
    },
}
PROFILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["incidents", "workloads", "pairs", "down_s", "after_s"],
    "properties": {
        "incidents": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(INCIDENTS)}},
        "workloads": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": list(WORKLOADS)}},
        "pairs": {"enum": list(PAIRS)},
        # the load runs this long before the incident (after its warm-up), to show it was flowing
        "before_s": {"type": "number", "minimum": 1, "maximum": 600},
        "down_s": {"type": "number", "minimum": 0, "maximum": 600},  # the server down
        "cut_s": {"type": "number", "minimum": 0, "maximum": 600},  # the path cut (default: down_s)
        "after_s": {"type": "number", "minimum": 2, "maximum": 3600},  # watched after the restoration
        "repetitions": {"type": "integer", "minimum": 1, "maximum": 20},
    },
}


@dataclass(frozen=True)
class ResilienceProfile:
    incidents: tuple[str, ...]
    workloads: tuple[str, ...]
    pairs: str
    before_s: float
    down_s: float
    after_s: float
    repetitions: int
    cut_s: float

    def outage_s(self, kind: str) -> float:
        """How long the harness keeps the server down (restart) or the path cut (cut)."""
        return self.cut_s if kind == "cut" else self.down_s


@dataclass(frozen=True)
class ResilienceSetup:
    signals: int
    profiles: dict[str, ResilienceProfile]
    reference_client: str | None = None
    reference_server: str | None = None


def parse(raw: dict) -> tuple[ResilienceSetup, dict[str, dict]]:
    setup = plan_table.setup_table(raw, "resilience", SETUP_SCHEMA)
    profiles = {
        name: ResilienceProfile(
            tuple(t["incidents"]),
            tuple(t["workloads"]),
            t["pairs"],
            float(t.get("before_s", 3)),
            float(t["down_s"]),
            float(t["after_s"]),
            int(t.get("repetitions", 1)),
            float(t.get("cut_s", t["down_s"])),
        )
        for name, t in plan_table.profile_tables(raw, "resilience", PROFILE_SCHEMA).items()
    }
    return ResilienceSetup(
        int(setup.get("signals", 100)), profiles, setup.get("reference_client"), setup.get("reference_server")
    ), {n: {} for n in profiles}
