"""Which CPUs the server, the load generator and the harness (its samplers, perf stat, event
readers) run on. Roles get whole physical cores: two hyperthreads of one core share its
execution units, so a server on one and a client on the other would slow each other down
(the kernel's thread_siblings_list names the hyperthreads of a core). The harness gets a core
of its own only where one is left over; otherwise it runs beside the load generator, never on
the server's cores, and the provenance says so."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

SYS_CPU = Path("/sys/devices/system/cpu")
NO_SPARE_CORE = "not pinned: no spare core (the harness, its samplers and perf share the load generator's CPUs)"


@dataclass(frozen=True)
class Pinning:
    server: set[int] | None
    client: set[int] | None
    harness: set[int] | None  # a core of its own, or None: beside the load generator
    note: str  # how the harness is placed, for the provenance


def parse_list(text: str) -> set[int]:
    """A kernel CPU list such as "0-3,8,10-11"."""
    found: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


def cores(cpus: set[int], sys_cpu: Path = SYS_CPU) -> list[set[int]]:
    """The allowed CPUs grouped by physical core (a CPU whose siblings are unknown is a core)."""
    groups: list[set[int]] = []
    for cpu in sorted(cpus):
        if any(cpu in group for group in groups):
            continue
        try:
            siblings = parse_list((sys_cpu / f"cpu{cpu}" / "topology" / "thread_siblings_list").read_text())
        except (OSError, ValueError):
            siblings = {cpu}
        groups.append((siblings & cpus) | {cpu})
    return groups


def plan(cpus: set[int] | None = None, sys_cpu: Path = SYS_CPU) -> Pinning:
    """Server and load generator on different cores when there are at least two; the harness
    on a further core when at least three; with one core, nothing is pinned."""
    allowed = set(os.sched_getaffinity(0)) if cpus is None else cpus
    if len(allowed) < 2 or os.environ.get("UABENCH_NO_PINNING") == "1":
        return Pinning(None, None, None, "not pinned: fewer than two CPUs, or UABENCH_NO_PINNING=1")
    groups = cores(allowed, sys_cpu)
    if len(groups) < 2:  # one core's hyperthreads: the best there is, but they share the core
        ordered = sorted(allowed)
        half = len(ordered) // 2
        return Pinning(
            set(ordered[:half]),
            set(ordered[half:]),
            None,
            NO_SPARE_CORE + "; server and load generator are hyperthreads of one core",
        )
    harness = groups.pop() if len(groups) >= 3 else None
    half = len(groups) // 2
    server = set().union(*groups[:half])
    client = set().union(*groups[half:])
    if harness is None:
        return Pinning(server, client, None, NO_SPARE_CORE)
    return Pinning(server, client, harness, f"pinned to CPUs {sorted(harness)}, a core of its own")
