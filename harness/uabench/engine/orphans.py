"""What a killed harness left behind, found by every `uabench` invocation: its runs still
marked `running`, the processes that carry its marker in their environment (proc/launcher.py:
its pid and start time, so a reused pid is never taken for it) and the network namespaces and
bridges that carry it in their name or alias (proc/netns.py). An invocation that runs anything
removes them (the runs become `abandoned`); a read-only one only says what it saw.

Only what is provably a harness's is touched: a harness that still runs (a concurrent run)
keeps everything, and so does anything without a marker."""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass, field

import psutil

from uabench.proc import cgroups, launcher, netns
from uabench.results.store import Store


@dataclass
class Leftovers:
    runs: list[dict] = field(default_factory=list)  # store rows still `running`, harness gone
    processes: list[psutil.Process] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)  # namespaces and bridges

    def __bool__(self) -> bool:
        return bool(self.runs or self.processes or self.hosts)


def harness_alive(marker: str | None) -> bool:
    """Whether the harness of this marker ('<pid>:<start time>') still runs. A run recorded
    before markers existed has none: it is not called abandoned, it may be running."""
    if not marker:
        return True
    return launcher.harness_running(marker.partition(":")[0], lambda live: live == marker)


def left_processes() -> list[psutil.Process]:
    """Processes whose environment carries the marker of a harness that has ended (never this
    process or one of its ancestors, whatever their environment says)."""
    mine = {os.getpid(), *(p.pid for p in psutil.Process().parents())}
    found = []
    alive: dict[str, bool] = {}
    for process in psutil.process_iter():
        if process.pid in mine:
            continue
        with contextlib.suppress(psutil.Error):
            marker = process.environ().get(launcher.MARKER)
            if marker and not alive.setdefault(marker, harness_alive(marker)):
                found.append(process)
    return found


def abandoned_runs(store: Store) -> list[dict]:
    """The runs of `store` still `running` whose harness has ended."""
    return [
        run
        for run in store.runs()
        if run["status"] == "running" and not harness_alive((run["provenance"].get("harness") or {}).get("marker"))
    ]


def find(store: Store | None) -> Leftovers:
    """Everything an ended harness left: runs of `store` (none without one), processes,
    namespaces and bridges (when this machine can have them at all)."""
    runs = abandoned_runs(store) if store is not None else []
    hosts: list[str] = []
    if netns.unavailable() is None:
        with contextlib.suppress(OSError, ValueError):
            hosts = [name for _, name in netns.stale()]
    if cgroups.unavailable() is None:
        hosts += cgroups.stale()
    return Leftovers(runs, left_processes(), hosts)


def reap(store: Store | None) -> str | None:
    """Marks the abandoned runs of `store` (a writable one) and removes the processes,
    namespaces and bridges of ended harnesses; the one line saying what was done, or None."""
    found = find(store)
    if not found:
        return None
    for run in found.runs:
        assert store is not None
        store.finish_run(run["id"], "abandoned")
    killed = []
    for process in found.processes:
        with contextlib.suppress(psutil.Error):
            name = process.name()
            process.send_signal(signal.SIGKILL)
            killed.append(f"{process.pid} ({name})")
    psutil.wait_procs(found.processes, timeout=5)
    removed: list[str] = []
    if found.hosts:
        with contextlib.suppress(OSError):
            removed = netns.remove_stale()
        removed += cgroups.remove_stale()
    parts = [
        *(f"run {run['id']} ({run['suite']}) still running, now abandoned" for run in found.runs),
        *([f"{len(killed)} process(es), killed: {', '.join(killed)}"] if killed else []),
        *([f"network namespaces, bridges and cgroups, removed: {', '.join(removed)}"] if removed else []),
    ]
    return f"{PREFIX}{'; '.join(parts)}" if parts else None


def seen(store: Store | None) -> str | None:
    """For an invocation that changes nothing: the one line naming what ended harnesses left
    (the next `uabench run`, `capacity` or `check` removes it), or None."""
    found = find(store)
    if not found:
        return None
    parts = [
        *(f"run {run['id']} ({run['suite']}) still running (abandoned: reports skip it)" for run in found.runs),
        *(
            [f"{len(found.processes)} process(es): {', '.join(_named(p) for p in found.processes)}"]
            if found.processes
            else []
        ),
        *([f"network namespaces and bridges: {', '.join(found.hosts)}"] if found.hosts else []),
    ]
    return f"{PREFIX}{'; '.join(parts)} (the next uabench run, capacity or check removes them)"


PREFIX = "uabench: a killed harness left: "


def _named(process: psutil.Process) -> str:
    try:
        return f"{process.pid} ({process.name()})"
    except psutil.Error:
        return str(process.pid)
