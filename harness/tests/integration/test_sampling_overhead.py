"""Sampling on vs off (engine/overhead.py, proc.sampling.off): what "off" turns off, that no
window is made up across a pause, the comparison's arms and blocks, and the report's verdict
against the 2 % goal, on a faulty (too costly) and an undecided comparison too."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from uabench.proc import sampling
from uabench.proc.sampling import PerfStat, ProcessSampler


def _state(pid: int) -> str:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2]


def test_off_stops_samplers_and_perf_and_no_window_spans_the_pause(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        sampler = ProcessSampler(sleeper.pid).start()
        perf = PerfStat(sleeper.pid, tmp_path / "perf.csv").start()
        assert perf.popen is not None, "perf is part of the setup (linux-perf)"
        time.sleep(0.6)
        before = time.time_ns()
        with sampling.off():
            count = len(sampler.samples)
            inside = time.time_ns()
            time.sleep(0.2)  # the stop is delivered at once, but let the kernel settle it
            assert _state(perf.popen.pid) == "T"  # perf stopped
            late = PerfStat(sleeper.pid, tmp_path / "late.csv").start()
            assert late.popen is None  # no perf starts while sampling is off
            time.sleep(0.6)
            assert len(sampler.samples) <= count + 1  # at most the sample already under way
        after = time.time_ns()
        assert _state(perf.popen.pid) != "T"  # resumed
        time.sleep(0.8)
        end = time.time_ns()
        assert sampler.window(inside, after) is None and sampler.window(before, end) is None
        assert perf.window(inside, after) is None
        assert sampler.window(after, end) is not None  # sampling again
        perf.stop()
        sampler.stop()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_perf_interval_that_spans_a_stop_is_left_out(tmp_path):
    output = tmp_path / "perf.csv"
    lines = [f"{at:.6f},{n},,context-switches,1,100.00,," for at, n in ((0.25, 10), (0.5, 10), (2.5, 900), (2.75, 10))]
    output.write_text("\n".join(lines) + "\n")
    perf = PerfStat(1, output)
    perf.popen = subprocess.Popen(["true"])  # a finished process: only its output is read
    perf.popen.wait()
    perf.started_ns = 0
    window = perf.window(0, 3 * 10**9)
    assert window is not None
    assert window["context_switches"] == 30  # not the 900 counted over the 2 s stop
    assert window["seconds"] == pytest.approx(0.75)
