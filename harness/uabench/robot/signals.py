"""The Robot listener that hands stop signals to the harness's cleanup from the moment Robot
runs: Robot installs its own SIGINT/SIGTERM handler (stop the execution gracefully) only when
the execution starts, so the cleanup's handler (remember the signal, stop every process, then
let Robot stop) is put in front of it at the first suite's start, before any suite setup."""

from __future__ import annotations

from uabench.proc import cleanup


class StopSignals:
    ROBOT_LISTENER_API_VERSION = 3

    def start_suite(self, _data, _result) -> None:
        cleanup.install()
