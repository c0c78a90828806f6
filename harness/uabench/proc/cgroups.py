"""A constrained host: a cgroup (v1 `cpu` controller) whose CFS quota limits the processes in
it to a fraction of one core, the way a gateway-class CPU is slower than this machine's. Its
name carries the harness's pid and start time, so a cgroup a SIGKILLed harness left (its
processes died with the harness, PDEATHSIG) is removed by the next invocation (engine/orphans.py).

    with CpuLimit(0.25) as limit:       # 25 % of one core
        limit.add(pid)                  # the server's process (its threads follow)
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from uabench.proc import launcher, netns, schedstat

ROOT = Path("/sys/fs/cgroup/cpu")
PREFIX = "uabench-"
PERIOD_US = 100_000  # the CFS default: the quota is handed out per 100 ms
_live: set[CpuLimit] = set()
_lock = threading.Lock()


class CgroupError(RuntimeError):
    pass


def unavailable() -> str | None:
    if not (ROOT / "cpu.cfs_quota_us").exists():
        return f"no cgroup v1 cpu controller at {ROOT}"
    return None


def stale() -> list[str]:
    """The cgroups of harnesses that have ended."""
    found = []
    with contextlib.suppress(OSError):
        for path in ROOT.iterdir():
            match = re.fullmatch(rf"{PREFIX}(\d+-\d+)-q\d+", path.name)
            if match and path.is_dir() and netns.owner_gone(match.group(1)):
                found.append(path.name)
    return found


def remove_stale() -> list[str]:
    removed = []
    for name in stale():
        with contextlib.suppress(OSError):
            (ROOT / name).rmdir()
            removed.append(name)
    return removed


@dataclass(eq=False)
class CpuLimit:
    fraction: float  # of one core
    path: Path | None = None

    def __enter__(self) -> CpuLimit:
        if not 0.01 <= self.fraction <= 64:
            raise CgroupError(f"a CPU limit of {self.fraction} cores: between 0.01 and 64")
        owner = netns.owner_token(launcher.harness_marker())
        self.path = ROOT / f"{PREFIX}{owner}-q{netns.next_tag()}"
        self.path.mkdir()
        (self.path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
        (self.path / "cpu.cfs_quota_us").write_text(str(int(self.fraction * PERIOD_US)))
        with _lock:
            _live.add(self)
        return self

    def add(self, pid: int) -> None:
        """The process `pid` (all its threads) and the processes it has started so far; those
        it starts later are born in the cgroup."""
        assert self.path
        for one in (pid, *(schedstat.descendants(pid) or [])):
            with contextlib.suppress(ProcessLookupError):
                (self.path / "cgroup.procs").write_text(str(one))

    def throttled(self) -> dict[str, int]:
        """cpu.stat: periods, those throttled, and the time throttled (ns)."""
        assert self.path
        return {k: int(v) for k, v in (line.split() for line in (self.path / "cpu.stat").read_text().splitlines())}

    def __exit__(self, *_exc) -> None:
        """The processes in it have been stopped by now; a cgroup is removed once it is empty
        (the kernel may take a moment to see the last one go)."""
        if self.path is None:
            return
        with _lock:
            _live.discard(self)
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.1)
        raise CgroupError(f"could not remove {self.path}: processes still in it")


def remove_all() -> None:
    """At exit or on a stop signal (proc/cleanup.py), once the processes in them are stopped."""
    with _lock:
        live = list(_live)
    for limit in live:
        with contextlib.suppress(CgroupError):
            limit.__exit__()
