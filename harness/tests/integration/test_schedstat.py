"""CPU in nanoseconds per thread (proc/schedstat.py): the integral over a window between
samples, threads that appear, end or reuse an id, and the fallback where a kernel has no
schedstat; against real processes, the hot thread and its name."""

import subprocess
import sys
import time

import psutil
from helpers.schedstat import S

from uabench.proc.sampling import ProcessSampler, tree


def test_a_process_that_exits_ends_its_window_at_its_last_sample():
    quick = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.7)"])
    sampler = ProcessSampler(quick.pid).start()
    start = time.time_ns()
    quick.wait()
    time.sleep(0.3)
    sampler.stop()
    window = sampler.window(start, time.time_ns() + S)
    assert window is not None and window["seconds"] < 1.0  # clipped to the samples, not the asked window


def test_the_tree_of_a_real_process_matches_psutil():
    shell = subprocess.Popen(["bash", "-c", "sleep 3 & (sleep 3; true) & wait"])
    try:
        time.sleep(0.3)
        root = psutil.Process(shell.pid)
        assert sorted(p.pid for p in tree(root)) == sorted(p.pid for p in root.children(recursive=True))
    finally:
        for child in psutil.Process(shell.pid).children(recursive=True):
            child.kill()
        shell.kill()
        shell.wait()
