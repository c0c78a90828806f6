"""What makes a plan an instructions plan (an `[instructions]` table; suites/plans/instructions.toml):
the workloads whose server instructions are counted, the languages whose servers are counted
and why the others are not, and per benchmark profile how long each run lasts and how often.
Checked with a JSON Schema (jsonschema, as the conformance plan is): every rule here is a type,
a range or a name."""

from __future__ import annotations

from dataclasses import dataclass

from uabench import plan_table
from uabench.instructions import counts
from uabench.plan_table import Workload

_TEXT = {"type": "string", "minLength": 1}
# a simulated cache: [size in bytes, associativity, line size in bytes] (valgrind's --I1/--D1/--LL)
_CACHE_LEVEL = {
    "type": "array",
    "minItems": 3,
    "maxItems": 3,
    "prefixItems": [
        {"type": "integer", "minimum": 1024, "maximum": 2**30},
        {"type": "integer", "minimum": 1, "maximum": 64},
        {"type": "integer", "minimum": 16, "maximum": 512},
    ],
}
SETUP_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["workloads", "counted", "not_counted", "tolerance"],
    "properties": {
        "workloads": {"type": "array", "minItems": 1, "items": plan_table.WORKLOAD_SCHEMA},
        # sdk.toml languages whose servers run ahead-of-time compiled code under valgrind
        "counted": {"type": "array", "minItems": 1, "items": _TEXT},
        # per language of the others, why a count would mislead
        "not_counted": {"type": "object", "additionalProperties": _TEXT},
        # per counted language whose runtime is driven by the wall clock, why its counts may differ
        "time_driven": {"type": "object", "additionalProperties": _TEXT},
        # the largest spread of two differences that is a reproduced count (0.001: 0.1 %)
        "tolerance": {"type": "number", "exclusiveMinimum": 0, "maximum": 0.5},
        # the caches callgrind simulates where a profile says cache_simulation (instructions/counts.py)
        "cache": {
            "type": "object",
            "additionalProperties": False,
            "required": list(counts.CACHE_LEVELS),
            "properties": {level: _CACHE_LEVEL for level in counts.CACHE_LEVELS},
        },
    },
}
PROFILE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["duration_s", "pairs", "timing"],
    "properties": {
        # the measured phase of each load under callgrind: both loads of a difference last as long,
        # so what the server does by the clock (its timers) cancels
        "duration_s": {"type": "number", "minimum": 0.5, "maximum": 600},
        # differences per workload and server: two or more show whether the count reproduces
        "pairs": {"type": "integer", "minimum": 1, "maximum": 10},
        # the timing beside the count: the same workload without valgrind
        "timing": {
            "type": "object",
            "additionalProperties": False,
            "required": ["duration_s", "repetitions"],
            "properties": {
                "duration_s": {"type": "number", "minimum": 0.2, "maximum": 600},
                "repetitions": {"type": "integer", "minimum": 1, "maximum": 50},
            },
        },
        # callgrind simulates the plan's [instructions.cache] too: cache misses and estimated cycles
        # per operation beside the instructions (the counts take about twice as long)
        "cache_simulation": {"type": "boolean"},
        # the workloads (names) and servers this profile counts; default: all
        "workloads": plan_table.CHOSEN_SCHEMA,
        "servers": plan_table.CHOSEN_SCHEMA,
    },
}


@dataclass(frozen=True)
class InstructionsProfile:
    duration_s: float
    pairs: int
    timing_duration_s: float
    timing_repetitions: int
    workloads: tuple[str, ...] | None
    servers: tuple[str, ...] | None
    cache: dict[str, list[int]] | None = None  # the simulated caches, if this profile simulates them

    def summary(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class InstructionsSetup(plan_table.Selection):
    workloads: tuple[Workload, ...]
    counted: tuple[str, ...]
    not_counted: dict[str, str]
    time_driven: dict[str, str]
    tolerance: float
    profiles: dict[str, InstructionsProfile]
    cache: dict[str, list[int]] | None = None  # the caches a profile with cache_simulation simulates

    def why_not_counted(self, language: str) -> str | None:
        """Why a server in `language` has no count, or None when it is counted."""
        if language in self.counted:
            return None
        return self.not_counted.get(language, f"no count for {language} servers: the plan counts {self.counted}")


def parse(raw: dict) -> tuple[InstructionsSetup, dict[str, dict]]:
    """The instructions setup of a plan, and its profiles as the plan's `profiles` (no phases)."""
    setup = plan_table.setup_table(raw, "instructions", SETUP_SCHEMA)
    workloads = plan_table.workloads(setup["workloads"], "instructions.workloads")
    names = [w.name for w in workloads]
    unloaded = [w.name for w in workloads if len(w.loads) != 2]
    if unloaded:
        raise plan_table.PlanTableError(f"instructions.workloads: {unloaded} need two loads to difference")
    for w in workloads:
        _sessions(w)
    cache = setup.get("cache")
    if cache is not None:
        _geometry(cache)
    profiles = {}
    for name, t in plan_table.profile_tables(raw, "instructions", PROFILE_SCHEMA).items():
        where = f"profiles.{name}.instructions"
        if t.get("cache_simulation") and cache is None:
            raise plan_table.PlanTableError(
                f"{where}.cache_simulation: the plan has no [instructions.cache] to simulate"
            )
        profiles[name] = InstructionsProfile(
            float(t["duration_s"]),
            int(t["pairs"]),
            float(t["timing"]["duration_s"]),
            int(t["timing"]["repetitions"]),
            plan_table.chosen_names(t, "workloads", names, where),
            tuple(t["servers"]) if "servers" in t else None,
            cache if t.get("cache_simulation") else None,
        )
    return (
        InstructionsSetup(
            workloads,
            tuple(setup["counted"]),
            dict(setup["not_counted"]),
            dict(setup.get("time_driven") or {}),
            float(setup["tolerance"]),
            profiles,
            cache,
        ),
        {name: {} for name in profiles},
    )


SESSION = "session"  # a workload `per` this: each load is a number of sessions, one client process each
MAX_SESSIONS = 10  # a load's sessions must fit its span under valgrind (instructions/runner.py)


def _sessions(workload: Workload) -> None:
    """A session workload's loads are two different numbers of sessions (`sessions`, 1 to
    MAX_SESSIONS), and only a session workload's loads name any: refused with the key path."""
    where = f"instructions.workloads '{workload.name}'"
    counts = [load.get("sessions") for load in workload.loads]
    if workload.per != SESSION:
        if any(c is not None for c in counts):
            raise plan_table.PlanTableError(f'{where}: loads.sessions is for per = "{SESSION}" only')
        return
    for index, count in enumerate(counts):
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_SESSIONS:
            raise plan_table.PlanTableError(
                f"{where}: loads[{index}].sessions = {count!r}: a whole number of sessions, 1 to {MAX_SESSIONS}"
            )
    if counts[0] == counts[1]:
        raise plan_table.PlanTableError(f"{where}: its two loads open {counts[0]} sessions each: nothing to difference")


def _geometry(cache: dict[str, list[int]]) -> None:
    """Each simulated cache as valgrind takes it: a line size that is a power of two, and a size
    that is a power-of-two number of sets of `associativity` lines (refused with the key path,
    before valgrind would refuse it as the server starts)."""
    for level in counts.CACHE_LEVELS:
        size, ways, line = cache[level]
        sets, left = divmod(size, ways * line)
        if line & (line - 1) or left or sets & (sets - 1):
            raise plan_table.PlanTableError(
                f"instructions.cache.{level} = {cache[level]}: the line size must be a power of two and the "
                "size a power-of-two number of sets of associativity × line size bytes"
            )
