"""The host probe (proc/hostprobe.py): perf's pipe ping-pong on this machine, sized to its window
and pinned; and, with a faulty `perf` first on PATH, each way it can fail said as a ProbeError,
never a figure."""

import os
import time

import pytest

from uabench.proc import hostprobe


def test_the_probe_measures_this_machine_in_about_its_window_pinned():
    cpu = min(os.sched_getaffinity(0))
    probe = hostprobe.HostProbe(0.3, {cpu})
    started = time.monotonic()
    first, second = probe.measure(), probe.measure()
    assert first.loops == second.loops  # the same work each time: its time is what moves
    assert first.ops_per_s > 1_000 and first.cpus == [cpu]
    assert 0.05 < first.seconds < 3.0  # sized to the window by its calibration (a loaded machine may stretch it)
    assert time.monotonic() - started < 15
    assert first.as_result()["tool"] == hostprobe.DESCRIPTION


FAULTY = {
    "garbage": ("echo 'no seconds here'", "printed no seconds"),
    "exits": ("echo 'perf: sched pipe failed' >&2; exit 3", "exited 3: perf: sched pipe failed"),
    "hangs": ("exec sleep 30", "did not finish"),
}


@pytest.mark.parametrize("fault", sorted(FAULTY))
def test_a_faulty_perf_is_a_probe_error(tmp_path, monkeypatch, fault):
    script, message = FAULTY[fault]
    fake = tmp_path / "perf"
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setattr(hostprobe, "TIMEOUT_FACTOR", 1.0)
    with pytest.raises(hostprobe.ProbeError, match=message):
        hostprobe.HostProbe(0.1, None).measure()


def test_no_perf_is_a_probe_error_naming_the_package(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(hostprobe.ProbeError, match="linux-perf"):
        hostprobe.HostProbe(0.1, None).measure()
