"""Host interference: the arithmetic on constructed samples, then the sampler on this machine with a
real busy process, measured and not."""

import os
import threading
import time

import psutil
import pytest

from uabench.proc import host

TICK = os.sysconf("SC_CLK_TCK")


def _jiffies(**fields: int) -> dict[str, int]:
    return {field: fields.get(field, 0) for field in host.FIELDS}


def test_parse_stat_reads_the_aggregate_line():
    text = "cpu  100 2 30 400 5 6 7 8 9 10\ncpu0 50 1 15 200 2 3 3 4 4 5\nintr 1\n"
    assert host.parse_stat(text) == _jiffies(user=100, nice=2, system=30, idle=400, iowait=5, irq=6, softirq=7, steal=8)
    assert host.parse_stat("cpu 1 2 3 4\n")["steal"] == 0  # an old kernel's shorter line
    with pytest.raises(ValueError):
        host.parse_stat("cpu0 1 2 3 4\n")


def test_window_arithmetic():
    # two CPUs for one second = 2 * TICK jiffies: measured 0.5 s, the harness 0.1 s, other processes
    # 0.2 s, steal 0.2 s, interrupts 0.1 s, idle the rest
    a = host.HostSample(1_000, _jiffies(), 10.0, 3.0)
    b = host.HostSample(
        1_000_001_000,
        _jiffies(
            user=int(0.7 * TICK),
            system=int(0.1 * TICK),
            softirq=int(0.1 * TICK),
            steal=int(0.2 * TICK),
            idle=int(0.9 * TICK),
        ),
        10.5,
        3.1,
    )
    figures = host.interference([a, b], 0, 2_000_000_000_000)
    assert figures is not None
    assert figures["seconds"] == pytest.approx(1.0)
    assert figures["cpus"] == pytest.approx(2.0)
    assert figures["steal_percent"] == pytest.approx(10.0)
    assert figures["irq_percent"] == pytest.approx(5.0)
    assert figures["measured_percent"] == pytest.approx(25.0)
    assert figures["harness_percent"] == pytest.approx(5.0)
    assert figures["other_percent"] == pytest.approx(10.0)


def test_a_window_needs_two_samples_inside():
    samples = [host.HostSample(t, _jiffies(idle=t), 0.0) for t in (100, 200, 300)]
    assert host.interference(samples, 150, 250) is None
    assert host.interference(samples, 150, 300) is not None


def test_disturbed_names_what_exceeded_the_limit():
    quiet = {"steal_percent": 0.5, "other_percent": 3.0, "irq_percent": 40.0}
    assert host.disturbed(quiet, threshold=10) is None  # interrupts are the benchmark's own
    why = host.disturbed({"steal_percent": 12.0, "other_percent": 3.0}, threshold=10)
    assert why is not None and "steal time 12.0 %" in why and "other" not in why
    assert "other processes' CPU 55.0 %" in host.disturbed({"steal_percent": 0, "other_percent": 55.0}, 10)
    assert host.disturbed(None) is None


def test_the_harness_own_cpu_is_its_own_share():
    """A thread spinning in this process (as the harness's samplers and readers run) is the
    harness's share, read independently from this process's CPU time over the window."""
    one_cpu = 100.0 / os.cpu_count()
    me = psutil.Process()
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    with host.HostSampler([], interval=0.05, clock=time.monotonic_ns) as sampler:
        spinner = threading.Thread(target=spin)
        spinner.start()
        time.sleep(0.1)
        start, used = time.monotonic_ns(), sum(me.cpu_times()[:2])
        time.sleep(0.8)
        end, used = time.monotonic_ns(), sum(me.cpu_times()[:2]) - used
        stop.set()
        spinner.join()
    share = 100.0 * used / ((end - start) / 1e9) / os.cpu_count()
    figures = sampler.window(start, end)
    assert figures is not None and share > 0
    assert figures["harness_percent"] == pytest.approx(share, abs=0.2 * one_cpu)
