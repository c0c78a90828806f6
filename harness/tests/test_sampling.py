import subprocess
import sys
import time

from uabench.sampling import PerfStat, ProcessSampler


def test_sampler_sees_a_busy_process_use_cpu():
    busy = subprocess.Popen([sys.executable, "-c", "import time\nend=time.time()+1.5\nwhile time.time()<end: pass"])
    sampler = ProcessSampler(busy.pid).start()
    time.sleep(0.3)
    start = time.time_ns()
    time.sleep(0.8)
    end = time.time_ns()
    busy.wait()
    sampler.stop()
    window = sampler.window(start, end)
    assert window is not None
    assert window["cpu_percent"] > 50
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
