"""The Robot listener that hands stop signals to the harness's cleanup from the moment Robot
runs: Robot installs its own SIGINT/SIGTERM handler (stop the execution gracefully) only when
the execution starts, so the cleanup's handler (remember the signal, stop every process, then
let Robot stop) is put in front of it at the first suite's start, before any suite setup.

Between the two (Robot's output files being opened, about 0.5 s), only Robot's handler runs: it
stops the execution at the first keyword, which failed every test and ended `uabench run` with
exit 1 and no word of the signal. Robot's handler is made to remember the signal for the
cleanup first (received()), so the run ends as after any other stop signal: 130 and one line.
Robot has no hook for this, so its handler's class is extended (robot.running.signalhandler,
pinned with Robot in harness/requirements.lock; test_robot.py checks it is still there)."""

from __future__ import annotations

from robot.running import signalhandler

from uabench.proc import cleanup


class StopSignals:
    ROBOT_LISTENER_API_VERSION = 3

    def start_suite(self, _data, _result) -> None:
        cleanup.install()


class _RememberingMonitor(signalhandler._StopSignalMonitor):  # noqa: SLF001 (no public hook)
    """Robot's stop-signal handler, that first remembers the signal for the cleanup."""

    def __call__(self, signum, frame) -> None:
        cleanup.remember(signum)
        super().__call__(signum, frame)


signalhandler.STOP_SIGNAL_MONITOR.__class__ = _RememberingMonitor
