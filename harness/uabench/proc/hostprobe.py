"""The host's own noise at the kind of work a server does: `perf bench sched pipe` (perf's
scheduler benchmark, two processes passing a token back and forth through a pipe: a system
call, a wake-up and a context switch per operation), pinned to the server's CPUs and timed
over a window as long as a cell's. Its operations per second, measured once per interleaved
block, say how much the machine itself moved between blocks; no server measured in windows of
that length can be steadier than this probe.

Why this workload and not a CPU loop: on the 2-core reference VM (28 Nov 2026) a pinned
arithmetic loop varied by 2.3-3.5 % between 1-s windows, while this ping-pong varied by 11-14 %
(3 s: 7-11 %; 10 s: 9.5 %), as much as the servers' own figures did: the host's noise is in
system calls and wake-ups, which is what an OPC UA server over loopback TCP spends its time on.
perf is already a dependency (ci/apt-packages: the perf counters); its `simple` format prints
the total seconds alone."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

from uabench.proc import launcher

COMMAND = ("perf", "bench", "--format=simple", "sched", "pipe")
DESCRIPTION = "perf bench sched pipe (a pipe ping-pong of two processes)"
CALIBRATION_LOOPS = 5_000  # a first, short run that sizes the loop count to a window
TIMEOUT_FACTOR = 10.0  # a probe that takes ten times its window has hung: stopped, not waited for


class ProbeError(RuntimeError):
    """The probe could not run (perf missing, an error, a timeout): said, never a figure."""


@dataclass(frozen=True)
class Probe:
    ops_per_s: float
    seconds: float  # the measured time (perf's own, to the millisecond)
    loops: int
    cpus: list[int] | None  # pinned to these, or None: where the scheduler put it

    def as_result(self) -> dict:
        return {
            "tool": DESCRIPTION,
            "ops_per_s": self.ops_per_s,
            "seconds": self.seconds,
            "loops": self.loops,
            "cpus": self.cpus,
        }


def available() -> str | None:
    """None when the probe can run here, else why not."""
    return None if shutil.which(COMMAND[0]) else "perf is not installed (ci/apt-packages: linux-perf)"


def _run(loops: int, cpus: set[int] | None, timeout_s: float) -> float:
    """perf's measured seconds for `loops` operations."""
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    try:
        done = subprocess.run(
            [*COMMAND, "--loop", str(loops)],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            preexec_fn=launcher.preexec(pin),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ProbeError(f"{DESCRIPTION} did not finish {loops} operations in {timeout_s:g} s") from None
    except OSError as error:
        raise ProbeError(f"{DESCRIPTION} could not start: {error}") from None
    if done.returncode != 0:
        raise ProbeError(f"{DESCRIPTION} exited {done.returncode}: {done.stderr.strip()[-200:]}")
    try:
        return float(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise ProbeError(f"{DESCRIPTION} printed no seconds: {done.stdout.strip()[-200:]!r}") from None


class HostProbe:
    """One probe for a run: sized once (a short calibration run), then `measure()` per block.
    The loop count stays fixed from then on, so each probe does the same work and its time is
    what moves."""

    def __init__(self, window_s: float, cpus: set[int] | None) -> None:
        self.window_s, self.cpus = window_s, cpus
        self._loops: int | None = None

    def _timeout_s(self) -> float:
        return TIMEOUT_FACTOR * self.window_s + 5.0

    def _size(self) -> int:
        if self._loops is None:
            seconds = _run(CALIBRATION_LOOPS, self.cpus, self._timeout_s())
            rate = CALIBRATION_LOOPS / max(seconds, 0.001)
            self._loops = max(CALIBRATION_LOOPS, round(rate * self.window_s))
        return self._loops

    def measure(self) -> Probe:
        """One window of the probe; ProbeError when it cannot run."""
        why = available()
        if why:
            raise ProbeError(why)
        loops = self._size()
        seconds = _run(loops, self.cpus, self._timeout_s())
        if seconds <= 0:
            raise ProbeError(f"{DESCRIPTION} reported {seconds} s for {loops} operations")
        return Probe(loops / seconds, seconds, loops, sorted(self.cpus) if self.cpus else None)
