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

Plain functions: the prefix and the totals of a dump. The differencing, the agreement of repeated
differences and the counts of stored cells are results/instruction_counts.py (compare and the
report read them too); the run itself is instructions/runner.py."""

from __future__ import annotations

from pathlib import Path

from uabench.results.instruction_counts import CountError

VALGRIND = "valgrind"
CONTROL = "callgrind_control"
OUTPUT_PREFIX = "callgrind."
CACHE_LEVELS = ("I1", "D1", "LL")  # the caches callgrind simulates (its --I1, --D1 and --LL options)


def prefix(directory: Path, cache: dict[str, list[int]] | None = None) -> list[str]:
    """The command prefix that runs an adapter under callgrind. --trace-children: the adapters'
    `run` scripts exec their binary, which valgrind follows into the same process (its pid is
    the adapter's). Function-level counts only (no per-instruction or per-line data: smaller
    dumps); the counters start at once, and every dump zeroes them. With `cache` (the plan's
    geometry: per level I1, D1 and LL its size in bytes, associativity and line size), callgrind
    simulates those caches too; a fixed geometry rather than the host's (valgrind's default), so
    the misses are the same on any machine."""
    simulated = (
        []
        if cache is None
        else ["--cache-sim=yes", *(f"--{level}={','.join(map(str, cache[level]))}" for level in CACHE_LEVELS)]
    )
    return [
        VALGRIND,
        "--tool=callgrind",
        "--dump-instr=no",
        "--dump-line=no",
        *simulated,
        "--trace-children=yes",
        f"--callgrind-out-file={directory}/{OUTPUT_PREFIX}%p",
    ]


def described(cache: dict[str, list[int]]) -> str:
    """A cache geometry as the report names it: "I1 32 KiB 8-way, D1 …, LL 8 MiB 16-way, 64-byte lines"."""
    shown = [f"{level} {_size(cache[level][0])} {cache[level][1]}-way" for level in CACHE_LEVELS]
    lines = sorted({cache[level][2] for level in CACHE_LEVELS})
    return f"{', '.join(shown)}, {'/'.join(map(str, lines))}-byte lines"


def _size(size: int) -> str:
    return f"{size // 2**20} MiB" if size % 2**20 == 0 else f"{size // 2**10} KiB" if size % 2**10 == 0 else f"{size} B"


def dump_file(directory: Path, pid: int, number: int) -> Path:
    """The file of the `number`th dump of process `pid` (callgrind numbers them from 1)."""
    return directory / f"{OUTPUT_PREFIX}{pid}.{number}"


def total_instructions(path: Path) -> int:
    """The instructions (Ir) a callgrind or cachegrind output file counts (totals)."""
    return totals(path)["Ir"]


def totals(path: Path) -> dict[str, int]:
    """Every event a callgrind or cachegrind output file counts, by name (Ir, and with the cache
    simulated Dr, Dw, I1mr …): its `events:` line and its `totals:` line, else its `summary:`
    (cachegrind writes only a summary). Callgrind's `totals:` is what it prints on exit; with the
    cache simulated its `summary:` differs from it (by 2 instructions and 1 miss on /bin/true)."""
    if not path.exists():
        raise CountError(f"valgrind wrote no {path.name}")
    events, summary, total = None, None, None
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            summary = line.split()[1:]
        elif line.startswith("totals:"):
            total = line.split()[1:]
    found = total or summary
    if events is None or not found or "Ir" not in events or len(found) > len(events):
        raise CountError(f"{path.name} has no summary of Ir (events {events}, summary {found})")
    # callgrind leaves out trailing zeros: events a line does not give are 0 (its format's rule
    # for every cost line; async-opcua's dumps often end "… 0 1", their DLmw of 0 left out)
    return {event: int(count) for event, count in zip(events, found + ["0"] * (len(events) - len(found)), strict=True)}
