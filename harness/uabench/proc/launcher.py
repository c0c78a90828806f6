"""What every process the harness starts inherits so that it dies with the harness, even when
the harness is killed with SIGKILL and runs no cleanup of its own (proc/cleanup.py covers
every other way out):

- PR_SET_PDEATHSIG: the kernel sends the child SIGKILL when its parent goes. Set in the child
  between fork and exec (preexec_fn); it survives the exec of an ordinary binary, and the
  adapters' `run` scripts exec their runtime, so it reaches the adapter itself. The kernel
  fires it when the *thread* that forked the child exits, not the process: adapters and perf
  are started from the main thread (Robot runs keywords there), which lives as long as the
  harness; never start them from a short-lived worker thread.
- UABENCH_HARNESS in the environment: "<pid>:<start time>" of the harness (a pid alone is
  reused). What outlives a killed harness anyway (a grandchild that does not exec) carries it,
  so the next invocation can prove the process is its own before it kills it (engine/orphans.py).

prctl is called through ctypes: the only library that wraps it (python-prctl) needs a C build
and libcap headers, for one constant and one call."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Callable, Iterator

import psutil

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
MARKER = "UABENCH_HARNESS"

_libc = ctypes.CDLL(None, use_errno=True)


def harness_marker(pid: int | None = None) -> str:
    """'<pid>:<start time in clock ticks>' of a process (this one by default)."""
    process = psutil.Process(pid or os.getpid())
    return f"{process.pid}:{process.create_time():.3f}"


def harness_running(pid: str, same: Callable[[str], bool]) -> bool:
    """Whether the harness that was process `pid` (as text, from a marker or a name) still runs:
    a process of that pid whose marker `same` recognises. A pid now taken by a process that
    started at another time is not it; another user's process, which cannot be read, is not
    provably gone and counts as running."""
    try:
        return same(harness_marker(int(pid)))
    except psutil.AccessDenied:
        return True
    except (psutil.NoSuchProcess, ValueError):
        return False


def mark_harness() -> str:
    """Puts this harness's marker into its environment (children inherit it); returns it."""
    os.environ[MARKER] = harness_marker()
    return os.environ[MARKER]


def die_with_parent(parent: int, death_signal: int = signal.SIGKILL) -> None:
    """In the child before exec: `death_signal` when the parent goes; if the parent is already
    gone (it died between fork and here, the child is reparented), exit at once."""
    if _libc.prctl(PR_SET_PDEATHSIG, death_signal, 0, 0, 0) != 0:
        os._exit(127)
    if os.getppid() != parent:
        os._exit(127)


def preexec(then: Callable[[], None] | None = None, death_signal: int = signal.SIGKILL) -> Callable[[], None]:
    """A preexec_fn: die_with_parent (this process), then `then` (e.g. CPU pinning).
    `death_signal` SIGTERM is for a process that must act before it goes: a container engine's
    CLI passes it on to the container, dockerd stops its containers."""
    parent = os.getpid()

    def run() -> None:
        die_with_parent(parent, death_signal)
        if then is not None:
            then()

    return run


@contextlib.contextmanager
def environment(extra: dict[str, str]) -> Iterator[None]:
    """`extra` in this process's environment for the block (a process started in it inherits
    them: a runtime's settings for a profile or a count), restored afterwards."""
    saved = {key: os.environ.get(key) for key in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
