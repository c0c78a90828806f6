"""Instructions per operation from the counted loads of the instructions suite (its method:
instructions/counts.py): two loads of one workload served by one server process differ in their
number of requests, and what one request costs is the difference. Here, below the suite, because
compare and the report read the stored counts too. Plain functions: the differencing, the
agreement of repeated differences, the counts of stored cells."""

from __future__ import annotations

from dataclasses import dataclass

from uabench.results.kinds import CellKind

KIND = CellKind.INSTRUCTIONS  # the kind of the cells of counted loads
# the load generator's counted loads (the instructions suite's own kind, instructions/cells.py;
# named here as a string because this layer is below the suites)
CLIENT_KIND = "instructions-client"


class CountError(Exception):
    """No count: valgrind wrote no summary, or the two runs cannot be differenced."""


@dataclass(frozen=True)
class Count:
    """One server run under cachegrind: what its client measured, what the server executed."""

    requests: int  # the client's operations (requests; a subscription's notifications)
    values: int
    instructions: int

    @property
    def summary(self) -> dict:
        return {"requests": self.requests, "values": self.values, "instructions": self.instructions}


@dataclass(frozen=True)
class Difference:
    """Instructions per operation and per value from two runs of one workload."""

    per_request: float
    per_value: float
    requests: int  # the operations the difference spans

    @property
    def summary(self) -> dict:
        return {"per_request": self.per_request, "per_value": self.per_value, "requests": self.requests}


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
    return Difference(extra / requests, extra / values, requests)


def spread(differences: list[Difference]) -> float | None:
    """How far the per-request counts of repeated differences lie apart: (max − min) / mean;
    None with fewer than two."""
    counts = [d.per_request for d in differences]
    if len(counts) < 2:
        return None
    return (max(counts) - min(counts)) / (sum(counts) / len(counts))


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
            r["requests"], r["values"], r["instructions"]
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
