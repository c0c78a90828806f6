"""What a killed harness left behind, found and removed by the next `uabench run`: its runs
still marked `running` become `abandoned`, the processes that carry its marker in their
environment (proc/launcher.py: its pid and start time, so a reused pid is never taken for it)
are killed, and network namespaces and bridges whose owner process is gone are deleted."""

from __future__ import annotations

import contextlib
import signal

import psutil

from uabench.proc import launcher, netns
from uabench.results.store import Store


def harness_alive(marker: str | None) -> bool:
    """Whether the harness of this marker ('<pid>:<start time>') still runs. A run recorded
    before markers existed has none: it is not called abandoned, it may be running."""
    if not marker:
        return True
    pid, _, _ = marker.partition(":")
    try:
        return launcher.harness_marker(int(pid)) == marker
    except (psutil.NoSuchProcess, psutil.AccessDenied, ValueError):
        return False


def left_processes(markers: set[str]) -> list[psutil.Process]:
    """Processes whose environment carries one of these harness markers."""
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if process.environ().get(launcher.MARKER) in markers:
                found.append(process)
    return found


def reap(store: Store) -> list[str]:
    """Marks the store's runs whose harness is gone as abandoned and removes what they left;
    one line per thing done (empty: nothing was left)."""
    lines = []
    gone: set[str] = set()
    for run in store.runs():
        marker = (run["provenance"].get("harness") or {}).get("marker")
        if run["status"] == "running" and not harness_alive(marker):
            store.finish_run(run["id"], "abandoned")
            gone.add(str(marker))
            lines.append(f"run {run['id']} ({run['suite']}) was left running by a harness that is gone: abandoned")
    leftovers = left_processes(gone) if gone else []
    killed = []
    for process in leftovers:
        with contextlib.suppress(psutil.Error):
            name = process.name()
            process.send_signal(signal.SIGKILL)
            killed.append(f"{process.pid} ({name})")
    psutil.wait_procs(leftovers, timeout=5)
    if killed:
        lines.append(f"killed {len(killed)} process(es) an abandoned run left: {', '.join(killed)}")
    with contextlib.suppress(OSError, FileNotFoundError):
        removed = netns.remove_stale() if netns.unavailable() is None else []
        if removed:
            lines.append(f"removed network namespaces and bridges left by a killed harness: {', '.join(removed)}")
    return lines
