"""CPU in nanoseconds per thread (proc/schedstat.py): the integral over a window between
samples, threads that appear, end or reuse an id, and the fallback where a kernel has no
schedstat; against real processes, the hot thread and its name."""

import os

import pytest
from helpers.schedstat import S

from uabench.engine.cells import combine_resources
from uabench.proc import schedstat
from uabench.proc.schedstat import Snapshot, integrate


def test_a_window_between_samples_is_interpolated_at_both_ends():
    # one thread running half a core from 0 to 2 s, sampled each second
    samples = [Snapshot(0, {1: 0}), Snapshot(S, {1: S // 2}), Snapshot(2 * S, {1: S})]
    used = integrate(samples, S // 4, 7 * S // 4)
    assert used is not None
    assert used.seconds == pytest.approx(1.5)
    assert used.threads[1] == pytest.approx(0.75 * S)  # exactly half of 1.5 s


def test_a_thread_that_appears_counts_from_zero_and_one_that_ends_keeps_its_last_value():
    samples = [
        Snapshot(0, {1: 10 * S}),
        Snapshot(S, {1: 10 * S, 2: S // 2}),  # thread 2 started after the first sample
        Snapshot(2 * S, {2: S}),  # thread 1 ended: its counter is gone, not zero
        Snapshot(3 * S, {2: S}),
    ]
    used = integrate(samples, 0, 3 * S)
    assert used is not None
    assert used.threads == {1: 0, 2: S}  # 10 s of thread 1 before the window are not counted
    assert used.ended == 1


def test_a_reused_thread_id_is_a_new_thread():
    samples = [Snapshot(0, {7: 5 * S}), Snapshot(S, {7: S // 10}), Snapshot(2 * S, {7: S // 5})]
    used = integrate(samples, 0, 2 * S)
    assert used is not None and used.threads[7] == pytest.approx(S // 5)  # never negative


def test_the_window_is_clipped_to_the_samples_never_extrapolated():
    samples = [Snapshot(S, {1: 0}), Snapshot(2 * S, {1: S})]
    used = integrate(samples, 0, 5 * S)
    assert used is not None and (used.start_ns, used.end_ns) == (S, 2 * S)
    assert integrate(samples, 3 * S, 4 * S) is None  # no sample overlaps
    assert integrate(samples[:1], 0, 5 * S) is None


def _fake_task(proc, pid, tid, schedstat_text=None, stat_text=None):
    task = proc / str(pid) / "task" / str(tid)
    task.mkdir(parents=True)
    if schedstat_text is not None:
        (task / "schedstat").write_text(schedstat_text)
    if stat_text is not None:
        (task / "stat").write_text(stat_text)
    (task / "comm").write_text("worker (1)\n")


def test_a_kernel_without_schedstat_falls_back_to_ticks_and_says_so(tmp_path):
    (tmp_path / "self").mkdir()
    # the name holds a space and a parenthesis: fields are counted after its closing one
    _fake_task(tmp_path, 42, 43, stat_text="43 (worker (1)) S 1 1 1 0 -1 0 0 0 0 0 250 50 0 0 20 0 1 0")
    assert schedstat.source(tmp_path) == schedstat.TICKS
    clk = os.sysconf("SC_CLK_TCK")
    assert schedstat.on_cpu_ns(42, 43, schedstat.TICKS, tmp_path) == 300 * S // clk
    assert schedstat.on_cpu_ns(42, 43, schedstat.SCHEDSTAT, tmp_path) is None  # file absent: None, not 0
    assert schedstat.name(42, 43, tmp_path) == "worker (1)"
    (tmp_path / "self" / "schedstat").write_text("1 2 3\n")
    assert schedstat.source(tmp_path) == schedstat.SCHEDSTAT
    _fake_task(tmp_path, 42, 44, schedstat_text="garbage\n")
    assert schedstat.on_cpu_ns(42, 44, schedstat.SCHEDSTAT, tmp_path) is None
    assert schedstat.tree_ns([42, 99], schedstat.SCHEDSTAT, tmp_path) == {}  # missing pid: nothing


def test_combined_processes_keep_the_hottest_thread_and_add_the_rest():
    one = {"seconds": 1.0, "cpu_percent": 50.0, "cpu_source": schedstat.SCHEDSTAT, "hot_thread": "a"}
    two = {"seconds": 1.0, "cpu_percent": 90.0, "cpu_source": schedstat.SCHEDSTAT, "hot_thread": "b"}
    one["hot_thread_cpu"], two["hot_thread_cpu"] = 40.0, 85.0
    combined = combine_resources([one, two])
    assert combined is not None
    assert combined["cpu_percent"] == 140.0
    assert (combined["hot_thread"], combined["hot_thread_cpu"]) == ("b", 85.0)
    assert combined["cpu_source"] == schedstat.SCHEDSTAT


def test_descendants_follow_every_threads_children_list(tmp_path):
    for pid, tid, children in ((10, 10, "11 "), (10, 12, "13"), (11, 11, "14"), (13, 13, ""), (14, 14, "")):
        task = tmp_path / str(pid) / "task" / str(tid)
        task.mkdir(parents=True)
        (task / "children").write_text(children)
    assert sorted(schedstat.descendants(10, tmp_path) or []) == [11, 13, 14]  # 13 forked by thread 12
    assert schedstat.descendants(99, tmp_path) == []  # ended: nothing below it


def test_descendants_are_none_where_the_kernel_lists_no_children(tmp_path):
    (tmp_path / "10" / "task" / "10").mkdir(parents=True)  # no children file
    assert schedstat.descendants(10, tmp_path) is None
