"""The server's CPU time at a fine interval, for the RTD–CPU study: cumulative on-CPU ns of
every thread of the process tree (proc/schedstat.py: scheduler statistics, exact to the ns)
every INTERVAL_S, so the load over each request's round trip can be integrated
(network/analysis.cpu_at_requests). The resource sampler of every cell (proc/sampling.py)
samples at 0.25 s to stay cheap; this one runs only during the RTD–CPU cells."""

from __future__ import annotations

import threading
import time

from uabench.proc import schedstat

# The paper's loads come from /proc/stat per second or so; a request on a constrained host takes
# a few ms, so 10 ms resolves a CFS period (100 ms) into ten parts. Each sample reads one small
# file per thread (a JVM server has ~40): about 1 % of a core at this rate.
INTERVAL_S = 0.01


class FineCpuSampler:
    """The CPU of the process trees of `pids` together (a constrained host's server and the
    background load beside it: the gateway's whole load, as the paper's L_CPU was)."""

    def __init__(self, *pids: int) -> None:
        self.pids = pids
        self.counter = schedstat.source()
        self.samples: list[tuple[int, int]] = []  # (wall-clock ns, CPU ns of the tree)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"fine-cpu-{pids[0]}", daemon=True)

    def __enter__(self) -> FineCpuSampler:
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _loop(self) -> None:
        while not self._stop.is_set():
            pids = [tree for pid in self.pids for tree in (pid, *(schedstat.descendants(pid) or []))]
            used = schedstat.tree_ns(pids, self.counter)
            if not used:
                return  # the process has ended
            self.samples.append((time.time_ns(), sum(used.values())))
            self._stop.wait(INTERVAL_S)
