"""Nothing the harness starts outlives it: adapter process groups, perf and network namespaces
are removed at interpreter exit and on SIGINT/SIGTERM/SIGHUP, and the signal is remembered so
the run is stored as interrupted and `uabench run` stops with exit 130 (received()). Installed
when a benchmark session starts (not at import, so importing the harness, e.g. for a report,
changes no signal handling). SIGKILL leaves no time for any of this: proc/launcher.py makes
the children die with the harness, engine/orphans.py removes what is left on the next start."""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
import weakref
from collections.abc import Callable, Iterator

from uabench.proc import cgroups, netns

_installed = False
_lock = threading.Lock()
_received: int | None = None
# Other children that must not outlive the harness (perf stat); weak: a stopped one is forgotten.
_adopted: weakref.WeakSet[subprocess.Popen] = weakref.WeakSet()


_deferring = 0
_pending: list[Callable[[], None]] = []
# What layers above this one start and remove themselves (targets/process.py: the adapter
# processes), run first: registered at their import, so this module imports none of them.
_removers: list[Callable[[], None]] = []


def on_remove(remover: Callable[[], None]) -> None:
    """Runs `remover` first when everything is removed (at exit, on a signal); once per function."""
    if remover not in _removers:
        _removers.append(remover)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """A stop signal's effect on the main thread (Robot's exception that ends the test, or the
    default action) waits until the block ends: a measured cell being stored is never cut off
    half-way. The cleanup itself (stopping the processes) is not deferred."""
    global _deferring
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        if not _deferring and _pending:
            act = _pending[0]
            _pending.clear()
            act()


def adopt(popen: subprocess.Popen) -> None:
    """A child (its own process group) that remove_everything kills when it is still running."""
    _adopted.add(popen)


def received() -> int | None:
    """The stop signal this harness received (SIGINT, SIGTERM, SIGHUP), or None."""
    return _received


def remember(signum: int) -> None:
    """A stop signal another handler took (Robot's own, before install put this one in front):
    received() says it all the same."""
    global _received
    _received = _received or signum


def note_signals() -> None:
    """Before Robot runs (and before install): a stop signal is remembered, then raised as
    KeyboardInterrupt (Robot ends with 'stopped by user' when it is starting)."""

    def handler(signum, _frame):
        global _received
        _received = _received or signum
        if _deferring:  # files being written (proc/whole.py) are finished first
            _pending.append(_interrupt)
            return
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, handler)


def _interrupt() -> None:
    raise KeyboardInterrupt


def remove_everything() -> None:
    for remover in list(_removers):
        remover()
    for popen in list(_adopted):
        if popen.poll() is None:
            try:
                os.killpg(popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            popen.wait()
    netns.remove_all_hosts()
    cgroups.remove_all()


def install() -> None:
    """Once per interpreter: run remove_everything at exit and on SIGINT/SIGTERM/SIGHUP, then let
    whoever handled the signal before (Robot: it stops the whole execution gracefully, every
    suite teardown still runs) carry on, or die of the signal as by default. Signal handlers
    can only be set from the main thread; elsewhere only the exit hook is registered."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    atexit.register(remove_everything)
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        previous = signal.getsignal(sig)
        if sig == signal.SIGHUP:
            # a dropped ssh session stops the run as Ctrl-C does: Robot handles only SIGINT and
            # SIGTERM (stop gracefully, the run stored interrupted), so SIGHUP goes to that handler
            previous = signal.getsignal(signal.SIGTERM)

        def handler(signum, frame, previous=previous):
            global _received
            _received = _received or signum
            remove_everything()
            if _deferring:
                _pending.append(lambda: _pass_on(signum, frame, previous))
                return
            _pass_on(signum, frame, previous)

        signal.signal(sig, handler)


def _pass_on(signum, frame, previous) -> None:
    if callable(previous):
        previous(signum, frame)
        return
    if previous == signal.SIG_IGN:
        return
    # The default action, for real: SystemExit would be caught by a runner that guards
    # each test (pytest under `uabench check`), which would then start the next one.
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
