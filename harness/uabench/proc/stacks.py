"""How deep a live process's thread stacks have been: for each thread, the resident size of the
mapping its stack pointer lies in (/proc/PID/task/TID/syscall gives the pointer of a thread that
is blocked, /proc/PID/smaps each mapping's range and Rss).

A stack page, once a thread has touched it, stays resident while the thread lives: the kernel
grows a stack on fault and never shrinks it, and glibc gives a thread's stack back only when the
thread ends. So the Rss of a thread's stack mapping is the deepest its stack has been since it
started, in whole pages (4 KiB here; glibc keeps a thread's TLS and descriptor at the top of the
same mapping, so a page or two of that is in it). A stack backed by transparent huge pages (THP
`always`, on kernels that do not exempt MAP_STACK mappings) is 2 MiB resident at its first touch,
whatever its depth: those bytes are counted in huge_bytes, and the report says so.

Only a thread blocked in the kernel shows its stack pointer ("running" otherwise); a server left
alone has every thread blocked within moments (high_water_quiet reads again until it has), and a
thread still running is counted in `unread`. A mapping that holds the pointers of several threads
is no thread's stack (a runtime that puts its threads' stacks in its own heap, as Go does with
goroutines): it is left out and counted in `shared`.

Hand-written, not psutil: psutil reads neither a thread's stack pointer nor smaps as mappings with
their address ranges (its memory_maps gives paths and sizes), and this reads a /proc given as a
directory, so its parsing is tested on fixtures."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
KIB = 1024


class StackError(OSError):
    """The process's stacks could not be read: it ended, or /proc refuses (another user's)."""


@dataclass(frozen=True)
class Mapping:
    start: int
    end: int
    rss: int  # bytes
    huge: int  # bytes of transparent huge pages (AnonHugePages)
    name: str  # "[stack]" for the main thread's, "" for an anonymous mapping


@dataclass(frozen=True)
class Stacks:
    """A process's thread stacks when read: the resident bytes of each thread's stack mapping."""

    threads: int  # threads of the process
    stacks: tuple[int, ...]  # resident bytes per thread whose stack was found, largest first
    unread: int  # threads running (no stack pointer shown) or whose pointer lies in no mapping
    shared: int  # threads whose pointer lies in a mapping with another thread's: no thread's own stack
    huge_bytes: int  # transparent huge pages in the stacks found (0 on a kernel that gives stacks none)

    @property
    def largest(self) -> int | None:
        return self.stacks[0] if self.stacks else None

    @property
    def total(self) -> int:
        return sum(self.stacks)

    def fields(self) -> dict:
        """As JSON carries it from a remote target's agent (from_fields reads it back)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_fields(cls, raw: dict) -> Stacks:
        return cls(
            threads=int(raw["threads"]),
            stacks=tuple(int(size) for size in raw["stacks"]),
            unread=int(raw["unread"]),
            shared=int(raw["shared"]),
            huge_bytes=int(raw["huge_bytes"]),
        )

    def summary(self) -> dict:
        return {
            "threads": self.threads,
            "largest_bytes": self.largest,
            "total_bytes": self.total,
            "read": len(self.stacks),
            "unread": self.unread,
            "shared": self.shared,
            "huge_bytes": self.huge_bytes,
        }


def mappings(smaps: str) -> list[Mapping]:
    """The mappings of /proc/PID/smaps: each header line ("start-end perms offset dev inode [name]")
    and its Rss and AnonHugePages lines (kB)."""
    found: list[Mapping] = []
    start = end = rss = huge = 0
    name = ""
    header = False
    for line in smaps.splitlines():
        first, _, rest = line.partition(" ")
        if "-" in first and not first.endswith(":"):
            if header:
                found.append(Mapping(start, end, rss, huge, name))
            low, _, high = first.partition("-")
            start, end, rss, huge = int(low, 16), int(high, 16), 0, 0
            fields = rest.split(None, 4)
            name = fields[4].strip() if len(fields) > 4 else ""
            header = True
        elif first == "Rss:":
            rss = int(rest.split()[0]) * KIB
        elif first == "AnonHugePages:":
            huge = int(rest.split()[0]) * KIB
    if header:
        found.append(Mapping(start, end, rss, huge, name))
    return found


def stack_pointer(syscall: str) -> int | None:
    """A thread's stack pointer from /proc/PID/task/TID/syscall: "nr a1 … a6 sp pc" in a system
    call, "-1 sp pc" blocked outside one, "running" (no pointer) on a CPU."""
    fields = syscall.split()
    if len(fields) < 3 or fields[0] == "running":
        return None
    return int(fields[-2], 16)


def high_water(pid: int, proc: Path = PROC) -> Stacks:
    """The stacks of process `pid` as they are now (see the module's docstring)."""
    try:
        tasks = sorted((proc / str(pid) / "task").iterdir())
        maps = mappings((proc / str(pid) / "smaps").read_text(encoding="utf-8"))
    except OSError as error:
        raise StackError(f"the stacks of process {pid} cannot be read: {error}") from error
    holders: dict[Mapping, int] = {}
    unread = 0
    for task in tasks:
        try:
            pointer = stack_pointer((task / "syscall").read_text(encoding="utf-8"))
        except OSError:  # the thread ended between the listing and its read
            pointer = None
        mapping = None if pointer is None else next((m for m in maps if m.start <= pointer < m.end), None)
        if mapping is None:
            unread += 1
        else:
            holders[mapping] = holders.get(mapping, 0) + 1
    own = [m for m, count in holders.items() if count == 1]
    shared = sum(count for count in holders.values() if count > 1)
    return Stacks(
        threads=len(tasks),
        stacks=tuple(sorted((m.rss for m in own), reverse=True)),
        unread=unread,
        shared=shared,
        huge_bytes=sum(m.huge for m in own),
    )


def high_water_quiet(pid: int, tries: int = 10, pause_s: float = 0.05, proc: Path = PROC) -> Stacks:
    """high_water, read again (at most `tries` times, `pause_s` apart) while a thread is on a CPU
    and shows no stack pointer: a server left alone blocks every thread within moments. The
    reading with the fewest such threads."""
    best = high_water(pid, proc)
    for _ in range(tries - 1):
        if best.unread == 0:
            break
        time.sleep(pause_s)
        found = high_water(pid, proc)
        if found.unread < best.unread:
            best = found
    return best
