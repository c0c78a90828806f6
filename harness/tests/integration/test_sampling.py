import os
import subprocess
import sys
import time

import pytest

from uabench.proc import schedstat
from uabench.proc.sampling import PerfStat, ProcessSampler


def test_sampler_window_matches_what_the_kernel_accounts():
    busy = subprocess.Popen([sys.executable, "-c", "import time\nend=time.time()+1.5\nwhile time.time()<end: pass"])
    sampler = ProcessSampler(busy.pid).start()
    time.sleep(0.3)
    start = time.time_ns()
    time.sleep(0.8)
    end = time.time_ns()
    _, status, usage = os.wait4(busy.pid, 0)
    sampler.stop()
    window = sampler.window(start, end)
    assert window is not None and status == 0
    used = window["cpu_user_s"] + window["cpu_system_s"]
    # A busy loop runs whenever it gets a core: some CPU inside the window, never more than
    # the kernel accounted for the whole life of the process, nor more than the window's length.
    assert 0 < used <= usage.ru_utime + usage.ru_stime + 0.02
    assert window["cpu_percent"] <= 100 * 1.05
    assert window["rss_max"] > 1_000_000 and window["threads_max"] >= 1


def test_perf_counters_are_summed_and_unsupported_ones_are_none(tmp_path):
    if not PerfStat.available():
        raise AssertionError("perf is part of the setup (linux-perf); it must be installed")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time\nfor _ in range(40): time.sleep(0.02)"])
    perf = PerfStat(sleeper.pid, tmp_path / "perf.csv").start()
    start = time.time_ns()
    sleeper.wait()
    time.sleep(0.3)
    perf.stop()
    window = perf.window(start - 10**9, time.time_ns())
    assert window is not None
    assert window["context_switches"] >= 20  # every sleep switches out
    for counter in ("cycles", "instructions"):  # absent on VMs, present on real hardware
        assert window[counter] is None or window[counter] > 0


def test_context_switches_of_every_thread_are_counted():
    code = (
        "import threading, time\n"
        "def nap():\n    while True: time.sleep(0.002)\n"
        "[threading.Thread(target=nap, daemon=True).start() for _ in range(4)]\n"
        "time.sleep(2)"
    )
    window = _window_of(code, settle_s=0.4, length_s=1.0)
    assert window is not None
    # the main thread sleeps through the window: nearly every switch is one of the four threads'
    # (each sleeps 2 ms at a time, so even on a loaded machine they switch hundreds of times)
    assert window["ctx_voluntary"] >= 4 * 50


def test_the_hot_thread_is_named_and_a_thread_that_ends_mid_window_is_counted():
    code = (
        "import threading, time, ctypes\n"
        "def spin(name, seconds):\n"
        "    ctypes.CDLL(None).prctl(15, name, 0, 0, 0)\n"  # PR_SET_NAME: this thread's comm
        "    end = time.time() + seconds\n"
        "    while time.time() < end: pass\n"
        "threading.Thread(target=spin, args=(b'hot-spinner', 2.0)).start()\n"
        "time.sleep(0.6)\n"
        "threading.Thread(target=spin, args=(b'brief', 0.4)).start()\n"  # starts and ends inside the window
        "time.sleep(1.6)\n"
    )
    window = _window_of(code, settle_s=0.4, length_s=1.2)
    assert window is not None
    assert window["cpu_source"] == schedstat.SCHEDSTAT
    assert window["hot_thread"] == "hot-spinner"
    # a share of one core: at most the window (the spinner may share the core on a loaded machine)
    assert 0 < window["hot_thread_cpu"] <= 100.5
    assert window["cpu_percent"] >= window["hot_thread_cpu"]
    assert window["threads_ended"] >= 1
    assert window["cpu_user_s"] + window["cpu_system_s"] == pytest.approx(window["cpu_s"])
    assert window["sampler_cpu_percent"] > 0  # the sampler's own thread ran at every sample


def _window_of(code: str, settle_s: float, length_s: float) -> dict | None:
    """The sampled window of a Python program, `length_s` long after `settle_s`, once it ended."""
    program = subprocess.Popen([sys.executable, "-c", code])
    sampler = ProcessSampler(program.pid).start()
    time.sleep(settle_s)
    start = time.time_ns()
    time.sleep(length_s)
    end = time.time_ns()
    program.wait()
    sampler.stop()
    return sampler.window(start, end)


def test_a_kernel_without_schedstat_gives_tick_cpu_and_says_so(monkeypatch):
    monkeypatch.setattr(schedstat, "source", lambda proc=schedstat.PROC: schedstat.TICKS)
    code = "import time\nend = time.time() + 1.6\nwhile time.time() < end: pass"
    window = _window_of(code, settle_s=0.3, length_s=1.0)
    assert window is not None
    assert window["cpu_source"] == schedstat.TICKS
    assert 0 < window["cpu_percent"] <= 100 * 1.05 and window["hot_thread"] is not None
