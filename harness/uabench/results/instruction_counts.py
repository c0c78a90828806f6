"""Instructions per operation from the counted loads of the instructions suite (its method:
instructions/counts.py): two loads of one workload served by one server process differ in their
number of requests, and what one request costs is the difference. Here, below the suite, because
compare and the report read the stored counts too. Plain functions: the differencing, the
agreement of repeated differences, the counts of stored cells."""

from __future__ import annotations

from dataclasses import dataclass, field

from uabench.results.kinds import CellKind

KIND = CellKind.INSTRUCTIONS  # the kind of the cells of counted loads
# the load generator's counted loads (the instructions suite's own kind, instructions/cells.py;
# named here as a string because this layer is below the suites)
CLIENT_KIND = "instructions-client"


# What callgrind counts beside the instructions (Ir) with its cache simulation on (valgrind manual,
# "Cache and branch simulation"): data reads and writes, and the misses of the first-level
# instruction and data caches (I1, D1) and of the last-level cache (LL), for reads and writes
CACHE_EVENTS = ("Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")
# An estimated cycle count from the simulated cache: a hit in L1 costs 1 cycle, in LL 5, in RAM 35.
# The weights of iai and iai-callgrind (Rust's instruction-count benchmark harnesses), after
# Itamar Turner-Trauring's "Measuring performance in CI" (pythonspeed.com); written here rather
# than imported because those are Rust crates. An estimate of the order, not of a real CPU.
L1_CYCLES, LL_CYCLES, RAM_CYCLES = 1, 5, 35


class CountError(Exception):
    """No count: valgrind wrote no summary, or the two runs cannot be differenced."""


@dataclass(frozen=True)
class Count:
    """One server run under cachegrind: what its client measured, what the server executed;
    with the cache simulated, `cache` holds the CACHE_EVENTS."""

    requests: int  # the client's operations (requests; a subscription's notifications)
    values: int
    instructions: int
    cache: dict[str, int] | None = field(default=None, hash=False)

    @property
    def summary(self) -> dict:
        summary = {"requests": self.requests, "values": self.values, "instructions": self.instructions}
        return summary | ({"cache": dict(self.cache)} if self.cache is not None else {})

    @classmethod
    def of(cls, requests: int, values: int, totals: dict[str, int]) -> Count:
        """A count from the totals of a dump (its events by name: Ir, and the CACHE_EVENTS if simulated)."""
        simulated = all(event in totals for event in CACHE_EVENTS)
        return cls(requests, values, totals["Ir"], {e: totals[e] for e in CACHE_EVENTS} if simulated else None)


@dataclass(frozen=True)
class Difference:
    """Instructions per operation and per value from two runs of one workload; with the cache
    simulated, each of the CACHE_EVENTS per operation."""

    per_request: float
    per_value: float
    requests: int  # the operations the difference spans
    cache: dict[str, float] | None = field(default=None, hash=False)

    @property
    def summary(self) -> dict:
        return {"per_request": self.per_request, "per_value": self.per_value, "requests": self.requests}

    @property
    def l1_misses(self) -> float | None:
        """Misses of the first-level caches per operation (instruction fetches, data reads and writes)."""
        return None if self.cache is None else self.cache["I1mr"] + self.cache["D1mr"] + self.cache["D1mw"]

    @property
    def ll_misses(self) -> float | None:
        """Misses of the last-level cache per operation: the accesses that went to memory."""
        return None if self.cache is None else self.cache["ILmr"] + self.cache["DLmr"] + self.cache["DLmw"]

    @property
    def estimated_cycles(self) -> float | None:
        """Simulated cycles per operation: each access weighted by where it hit (L1_CYCLES …)."""
        if self.cache is None or self.l1_misses is None or self.ll_misses is None:
            return None
        accesses = self.per_request + self.cache["Dr"] + self.cache["Dw"]
        ram = self.ll_misses
        return L1_CYCLES * (accesses - self.l1_misses) + LL_CYCLES * (self.l1_misses - ram) + RAM_CYCLES * ram


def difference(short: Count, long: Count) -> Difference:
    """(instructions of the run with more requests − the other's) / (its requests − the other's)."""
    requests, values = long.requests - short.requests, long.values - short.values
    if requests <= 0 or values <= 0:
        raise CountError(
            f"the higher load served no more than the lower ({long.requests} vs {short.requests} "
            "requests): nothing to difference"
        )
    extra = long.instructions - short.instructions
    if extra <= 0:
        raise CountError(f"the higher load executed no more instructions ({long.instructions} vs {short.instructions})")
    cache = None
    if short.cache is not None and long.cache is not None:
        cache = {event: (long.cache[event] - short.cache[event]) / requests for event in CACHE_EVENTS}
    return Difference(extra / requests, extra / values, requests, cache)


def spread_of(values: list[float]) -> float | None:
    """How far repeated per-operation figures lie apart: (max − min) / |mean|; None with fewer
    than two or a mean of 0."""
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    return (max(values) - min(values)) / abs(mean) if mean else None


def spread(differences: list[Difference]) -> float | None:
    """How far the per-request counts of repeated differences lie apart: (max − min) / mean;
    None with fewer than two."""
    return spread_of([d.per_request for d in differences])


def counted(cells: list[dict], kind: str = KIND) -> dict[tuple[str, str], tuple[list[Difference], str]]:
    """Per (server, workload) of stored cells of `kind` ("instructions": the server's counted
    loads; the instructions suite's "instructions-client": its load generator's): the difference
    of every pair of passed runs (its two loads: parameters 0 and 1), and what one operation is
    ("request", "notification")."""
    runs: dict[tuple[str, str, int], dict[int, Count]] = {}
    per: dict[tuple[str, str], str] = {}
    for c in cells:
        if c["kind"] != kind or c["status"] != "pass" or not c.get("result") or c.get("parameter") is None:
            continue
        r = c["result"]
        runs.setdefault((c["server"], c["variant"], c["repetition"]), {})[int(c["parameter"])] = Count(
            r["requests"], r["values"], r["instructions"], r.get("cache")
        )
        per[c["server"], c["variant"]] = r.get("per", "request")
    found: dict[tuple[str, str], tuple[list[Difference], str]] = {}
    for (server, workload, _), counts in sorted(runs.items()):
        if len(counts) != 2:
            continue
        low, high = (counts[load] for load in sorted(counts))
        try:
            one = difference(low, high)
        except CountError:
            continue
        found.setdefault((server, workload), ([], per[server, workload]))[0].append(one)
    return found
