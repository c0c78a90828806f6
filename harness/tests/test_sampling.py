import os
import subprocess
import sys
import time

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
    sleeper = subprocess.Popen([sys.executable, "-c", code])
    sampler = ProcessSampler(sleeper.pid).start()
    time.sleep(0.4)
    start = time.time_ns()
    time.sleep(1.0)
    end = time.time_ns()
    sleeper.wait()
    sampler.stop()
    window = sampler.window(start, end)
    assert window is not None
    # the main thread sleeps through the window: nearly every switch is one of the four threads'
    # (each sleeps 2 ms at a time, so even on a loaded machine they switch hundreds of times)
    assert window["ctx_voluntary"] >= 4 * 50
