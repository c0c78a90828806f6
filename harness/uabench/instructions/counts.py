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
