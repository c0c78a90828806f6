"""Simulated instruction counts (issue 20): a server runs under valgrind's callgrind, which counts
every instruction it executes, the same on every run and on any machine of the same
architecture, whatever else the host does. What one request costs is a difference between
two loads of the same workload served by the same server process, each as long as the other,
that differ in their number of requests (a low open-loop rate and a closed loop; a subscription:
two numbers of monitored items): callgrind dumps its counters after each load
(`callgrind_control --dump`), so the start-up is in no load, and each load's session set-up, its
close and what the server does by the clock (its timers) are in both and cancel.

Measured on open62541 (read, 1 node), why so: counts of whole processes differenced over two
durations lay 0.1 % apart (its timers' share varied with how fast valgrind ran), and over two
rates of equal duration up to 100 % apart at 200 requests' difference: its start-up alone varied
by about 1 M instructions from process to process, in its node store's lookups (a zip tree ranked
by hashes of heap addresses, deps/ziptree.c, so its shape follows the heap layout of the process).

Plain functions: the prefix, the totals of a dump, the differencing, the agreement of repeated
differences, the counts of stored cells. The run itself is instructions/runner.py."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

VALGRIND = "valgrind"
KIND = "instructions"  # the kind of the cells of counted loads
CONTROL = "callgrind_control"
OUTPUT_PREFIX = "callgrind."


class CountError(Exception):
    """No count: valgrind wrote no summary, or the two runs cannot be differenced."""


def prefix(directory: Path) -> list[str]:
    """The command prefix that runs an adapter under callgrind. --trace-children: the adapters'
    `run` scripts exec their binary, which valgrind follows into the same process (its pid is
    the adapter's). Function-level counts only (no per-instruction or per-line data: smaller
    dumps); the counters start at once, and every dump zeroes them."""
    return [
        VALGRIND,
        "--tool=callgrind",
        "--dump-instr=no",
        "--dump-line=no",
        "--trace-children=yes",
        f"--callgrind-out-file={directory}/{OUTPUT_PREFIX}%p",
    ]


def dump_file(directory: Path, pid: int, number: int) -> Path:
    """The file of the `number`th dump of process `pid` (callgrind numbers them from 1)."""
    return directory / f"{OUTPUT_PREFIX}{pid}.{number}"


def total_instructions(path: Path) -> int:
    """The instructions (Ir) a callgrind or cachegrind output file counts: its `summary:` line."""
    if not path.exists():
        raise CountError(f"valgrind wrote no {path.name}")
    events, summary = None, None
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            summary = line.split()[1:]
    if events is None or summary is None or "Ir" not in events or len(summary) != len(events):
        raise CountError(f"{path.name} has no summary of Ir (events {events}, summary {summary})")
    return int(summary[events.index("Ir")])


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


def counted(cells: list[dict]) -> dict[tuple[str, str], tuple[list[Difference], str]]:
    """Per (server, workload) of stored "instructions" cells: the difference of every pair of
    passed runs (its two loads: parameters 0 and 1), and what one operation is ("request",
    "notification")."""
    runs: dict[tuple[str, str, int], dict[int, Count]] = {}
    per: dict[tuple[str, str], str] = {}
    for c in cells:
        if c["kind"] != KIND or c["status"] != "pass" or not c.get("result") or c.get("parameter") is None:
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
