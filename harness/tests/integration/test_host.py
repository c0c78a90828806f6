"""Host interference: the arithmetic on constructed samples, then the sampler on this machine with a
real busy process, measured and not."""

import os
import subprocess
import sys
import time

import psutil
import pytest

from uabench.proc import host

BUSY_LOOP = "import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass\n"


def _busy(seconds: float) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", BUSY_LOOP.format(seconds=seconds)])


def test_a_busy_process_counts_as_measured_or_as_other():
    """One process spinning for ~1.2 s: watched, its CPU is the measured share; unwatched, at least
    that share shows up as other processes' CPU (other work on the machine can only add to it). Its
    share is read independently from its own CPU time over the window, as the machine's load decides it."""
    one_cpu = 100.0 / os.cpu_count()
    for watched in (True, False):
        spinner = _busy(1.2)
        own = psutil.Process(spinner.pid)
        with host.HostSampler([spinner.pid] if watched else [], interval=0.05, clock=time.monotonic_ns) as sampler:
            time.sleep(0.1)
            start, used = time.monotonic_ns(), sum(own.cpu_times()[:2])
            time.sleep(0.8)
            end, used = time.monotonic_ns(), sum(own.cpu_times()[:2]) - used
        spinner.wait()
        share = 100.0 * used / ((end - start) / 1e9) / os.cpu_count()
        figures = sampler.window(start, end)
        assert figures is not None and figures["cpus"] == pytest.approx(os.cpu_count(), rel=0.2)
        assert share > 0
        # the sampler's window ends on its samples, up to an interval (50 ms of 800) inside the test's
        if watched:
            assert figures["measured_percent"] == pytest.approx(share, abs=0.2 * one_cpu)
        else:
            assert figures["measured_percent"] == 0
            assert figures["other_percent"] > share - 0.2 * one_cpu


def test_an_exited_process_keeps_its_cpu():
    spinner = _busy(0.3)
    sampler = host.HostSampler([spinner.pid], clock=time.monotonic_ns)
    time.sleep(0.15)
    first = sampler.sample()
    assert first.measured_s > 0
    spinner.wait()
    time.sleep(0.05)
    last = sampler.sample()  # the process is gone: what it used must not vanish from the sum
    assert last.measured_s >= first.measured_s
