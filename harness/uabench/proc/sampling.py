"""Resource use of an adapter process tree, sampled in the background and summarised
afterwards over any wall-clock window (the measured phase an adapter reports)."""

from __future__ import annotations

import bisect
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from uabench.proc import cleanup, launcher

# Every sample walks the process tree and every thread's status: at 0.1 s the samplers of one cell
# (client, server, host, each with perf stat -I) took 5.8 % of the machine's CPU in the measured
# windows, and the read figures scattered twice as much as at 0.5 s (1.4 %); 0.25 s keeps the
# resource windows usable at about a third of that cost.
INTERVAL_S = 0.25
PERF_EVENTS = ("context-switches", "cpu-migrations", "task-clock", "cycles", "instructions")


@dataclass(frozen=True)
class Sample:
    wall_ns: int
    user_s: float
    system_s: float
    rss: int
    threads: int
    voluntary: int
    involuntary: int


class ProcessSampler:
    """Cumulative counters of a process and its children, every INTERVAL_S."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"sampler-{pid}", daemon=True)

    def start(self) -> ProcessSampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _loop(self) -> None:
        try:
            root = psutil.Process(self.pid)
        except psutil.NoSuchProcess:
            return
        while not self._stop.is_set():
            sample = _sample(root)
            if sample is None:
                return
            self.samples.append(sample)
            self._stop.wait(INTERVAL_S)

    def window(self, start_ns: int, end_ns: int) -> dict | None:
        """Resource use between two wall-clock instants, from the nearest samples inside."""
        times = [s.wall_ns for s in self.samples]
        first = bisect.bisect_left(times, start_ns)
        last = bisect.bisect_right(times, end_ns) - 1
        if last - first < 1:
            return None
        a, b = self.samples[first], self.samples[last]
        seconds = (b.wall_ns - a.wall_ns) / 1e9
        inside = self.samples[first : last + 1]
        user, system = b.user_s - a.user_s, b.system_s - a.system_s
        return {
            "seconds": seconds,
            "cpu_user_s": user,
            "cpu_system_s": system,
            "cpu_percent": 100.0 * (user + system) / seconds,
            "rss_max": max(s.rss for s in inside),
            "rss_mean": sum(s.rss for s in inside) / len(inside),
            "threads_max": max(s.threads for s in inside),
            "ctx_voluntary": b.voluntary - a.voluntary,
            "ctx_involuntary": b.involuntary - a.involuntary,
        }

    def series(self) -> list[list[float]]:
        """[[wall_ns, cpu_seconds, rss], ...] for plots."""
        return [[s.wall_ns, s.user_s + s.system_s, s.rss] for s in self.samples]


def _sample(root: psutil.Process) -> Sample | None:
    try:
        processes = [root] + root.children(recursive=True)
    except psutil.NoSuchProcess:
        return None
    user = system = 0.0
    rss = threads = voluntary = involuntary = 0
    wall_ns = time.time_ns()
    for process in processes:
        try:
            with process.oneshot():
                times = process.cpu_times()
                user += times.user
                system += times.system
                rss += process.memory_info().rss
                threads += process.num_threads()
            thread_voluntary, thread_involuntary = _thread_switches(process.pid)
            voluntary += thread_voluntary
            involuntary += thread_involuntary
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            if process is root:
                return None
    return Sample(wall_ns, user, system, rss, threads, voluntary, involuntary)


def _thread_switches(pid: int) -> tuple[int, int]:
    """Context switches of every thread of a process: /proc/PID/status counts only its main
    thread, which in a JVM or a threaded server hardly ever runs."""
    voluntary = involuntary = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0, 0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/status", encoding="ascii") as stream:
                for line in stream:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
        except OSError:  # the thread ended between listing and reading
            continue
    return voluntary, involuntary


class PerfStat:
    """`perf stat -I` attached to a process; counters summed over any wall-clock window.
    A counter the machine lacks is None (unsupported), never zero."""

    def __init__(self, pid: int, output: Path) -> None:
        self.pid, self.output = pid, output
        self.popen: subprocess.Popen | None = None
        self.started_ns = 0

    @staticmethod
    def available() -> bool:
        return shutil.which("perf") is not None and os.environ.get("UABENCH_NO_PERF") != "1"

    def start(self) -> PerfStat:
        if not self.available():
            return self
        self.started_ns = time.time_ns()
        self.popen = subprocess.Popen(
            [
                "perf",
                "stat",
                "-x,",
                "-I",
                str(int(INTERVAL_S * 1000)),
                "-e",
                ",".join(PERF_EVENTS),
                "-p",
                str(self.pid),
                "-o",
                str(self.output),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=launcher.preexec(),  # dies with the harness even on SIGKILL
        )
        cleanup.adopt(self.popen)  # and is stopped with the adapters on a signal
        return self

    def stop(self) -> None:
        if self.popen and self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGINT)
            try:
                self.popen.wait(timeout=3)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()

    def window(self, start_ns: int, end_ns: int) -> dict | None:
        if not self.popen or not self.output.exists():
            return None
        totals: dict[str, float | None] = {}
        seconds = 0.0
        seen_intervals: set[float] = set()
        for line in self.output.read_text(errors="replace").splitlines():
            fields = line.split(",")
            if len(fields) < 4 or line.startswith("#"):
                continue
            try:
                at = float(fields[0])
            except ValueError:
                continue
            instant = self.started_ns + int(at * 1e9)
            if not start_ns < instant <= end_ns:
                continue
            event, raw = fields[3], fields[1]
            if event not in PERF_EVENTS:
                continue
            if at not in seen_intervals:
                seen_intervals.add(at)
                seconds += INTERVAL_S
            if raw.startswith("<not supported>"):
                totals[event] = None
            elif raw.startswith("<not counted>"):
                totals.setdefault(event, 0.0)
            else:
                previous = totals.get(event, 0.0)
                totals[event] = None if previous is None else previous + float(raw)
        if not seen_intervals:
            return None
        result: dict[str, float | None] = {"seconds": seconds}
        for event in PERF_EVENTS:
            key = "task_clock_ms" if event == "task-clock" else event.replace("-", "_")
            result[key] = totals.get(event)
        return result
