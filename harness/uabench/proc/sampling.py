"""Resource use of an adapter process tree, sampled in the background and summarised
afterwards over any wall-clock window (the measured phase an adapter reports)."""

from __future__ import annotations

import bisect
import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil

# Only stdlib, psutil and these two: this module also runs alone on a remote target
# (proc/agent.py ships it there).
from uabench.proc import launcher, schedstat

# Every sample walks the process tree and every thread's status: at 0.1 s the samplers of one cell
# (client, server, host, each with perf stat -I) took 5.8 % of the machine's CPU in the measured
# windows, and the read figures scattered twice as much as at 0.5 s (1.4 %); 0.25 s keeps the
# resource windows usable at about a third of that cost.
INTERVAL_S = 0.25
PERF_EVENTS = ("context-switches", "cpu-migrations", "task-clock", "cycles", "instructions")


@dataclass(frozen=True)
class Sample:
    wall_ns: int
    user_s: float  # clock ticks: only the split of the exact CPU time into user and system
    system_s: float
    rss: int
    threads: int
    cpu: schedstat.Snapshot  # per thread, ns on CPU
    voluntary: schedstat.Snapshot  # per thread, context switches (/proc status)
    involuntary: schedstat.Snapshot
    overhead: schedstat.Snapshot  # this sampler's thread and its perf stat process, ns on CPU


class _Switch:
    """Sampling off for a while (the sampling-overhead comparison measures cells without it):
    samplers skip their samples, every perf stat is stopped (SIGSTOP), and no new one starts.
    Windows that overlap a pause have no resources (None), never figures interpolated across it."""

    def __init__(self) -> None:
        self.off = threading.Event()
        self.pauses: list[tuple[int, int]] = []  # wall-clock spans sampling was off, ns
        self.perf: set[PerfStat] = set()  # running perf stat processes
        self._since = 0  # when the current pause began

    def overlaps(self, start_ns: int, end_ns: int) -> bool:
        since = self._since if self.off.is_set() else None
        spans = [*self.pauses, *([(since, end_ns)] if since is not None else [])]
        return any(a < end_ns and start_ns < b for a, b in spans)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        self._since = time.time_ns()
        self.off.set()
        for perf in list(self.perf):
            perf.signal(signal.SIGSTOP)
        try:
            yield
        finally:
            for perf in list(self.perf):
                perf.signal(signal.SIGCONT)
            self.off.clear()
            self.pauses.append((self._since, time.time_ns()))


switch = _Switch()


def off() -> contextlib.AbstractContextManager[None]:
    """No resource sampling inside this block (proc.host's sampler included)."""
    return switch.paused()


# measured pid -> pid of the `perf stat` attached to it: its ProcessSampler counts perf's CPU as
# sampling overhead (the two are started side by side for one process and know only its pid)
_perf_of: dict[int, int] = {}


class ProcessSampler:
    """Cumulative counters of a process and its children, every INTERVAL_S."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.samples: list[Sample] = []
        self.names: dict[int, str] = {}  # thread id -> its name (comm)
        self._named_twice: set[int] = set()
        self.counter = schedstat.source()
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
        own = threading.get_native_id()
        while not self._stop.is_set():
            if switch.off.is_set():
                self._stop.wait(INTERVAL_S)
                continue
            sample = self._sample(root, own)
            if sample is None:
                return
            self.samples.append(sample)
            self._stop.wait(INTERVAL_S)

    def _sample(self, root: psutil.Process, own: int) -> Sample | None:
        try:
            processes = [root] + tree(root)
        except psutil.NoSuchProcess:
            return None
        user = system = 0.0
        rss = count = 0
        cpu: dict[int, int] = {}
        voluntary: dict[int, int] = {}
        involuntary: dict[int, int] = {}
        wall_ns = time.time_ns()
        for process in processes:
            try:
                with process.oneshot():
                    times = process.cpu_times()
                    user += times.user
                    system += times.system
                    rss += process.memory_info().rss
                    count += process.num_threads()
            except (psutil.NoSuchProcess, psutil.ZombieProcess):
                if process is root:
                    return None
                continue
            for tid in schedstat.threads(process.pid):
                ns = schedstat.on_cpu_ns(process.pid, tid, self.counter)
                if ns is None:  # ended between listing and reading
                    continue
                cpu[tid] = ns
                self._name(process.pid, tid)
                switches = _thread_switches(process.pid, tid)
                if switches:
                    voluntary[tid], involuntary[tid] = switches
        perf = _perf_of.get(self.pid)
        overhead = schedstat.tree_ns([perf], self.counter) if perf else {}
        own_ns = schedstat.on_cpu_ns(os.getpid(), own, self.counter)
        if own_ns is not None:
            overhead[own] = own_ns
        return Sample(
            wall_ns,
            user,
            system,
            rss,
            count,
            schedstat.Snapshot(wall_ns, cpu),
            schedstat.Snapshot(wall_ns, voluntary),
            schedstat.Snapshot(wall_ns, involuntary),
            schedstat.Snapshot(wall_ns, overhead),
        )

    def _name(self, pid: int, tid: int) -> None:
        """A thread's name, read when it is first seen and once more a sample later: runtimes
        name their threads just after starting them (a JVM's, libuv's workers)."""
        if tid in self._named_twice:
            return
        if tid in self.names:
            self._named_twice.add(tid)
        found = schedstat.name(pid, tid)
        if found:
            self.names[tid] = found

    def window(self, start_ns: int, end_ns: int) -> dict | None:
        """Resource use between two wall-clock instants: CPU integrated exactly over the window
        (clipped to the samples), the hottest thread, the sampler's own CPU. None where sampling
        was off during the window."""
        if switch.overlaps(start_ns, end_ns):
            return None
        used = schedstat.integrate([s.cpu for s in self.samples], start_ns, end_ns)
        if used is None:
            return None
        seconds = used.seconds
        cpu_s = used.total_ns / 1e9
        times = [s.wall_ns for s in self.samples]
        first = max(bisect.bisect_right(times, used.start_ns) - 1, 0)
        last = min(bisect.bisect_left(times, used.end_ns), len(times) - 1)
        a, b = self.samples[first], self.samples[last]
        inside = self.samples[first : last + 1]
        ticks_user, ticks_system = b.user_s - a.user_s, b.system_s - a.system_s
        # the clock ticks only split the exact time; no tick at all in the window: all user time
        user_share = ticks_user / (ticks_user + ticks_system) if ticks_user + ticks_system > 0 else 1.0
        hot = max(used.threads, key=lambda tid: used.threads[tid], default=None)
        return {
            "seconds": seconds,
            "cpu_s": cpu_s,
            "cpu_user_s": cpu_s * user_share,
            "cpu_system_s": cpu_s * (1 - user_share),
            "cpu_percent": 100.0 * cpu_s / seconds,
            "cpu_source": self.counter,
            "hot_thread": self.names.get(hot, str(hot)) if hot is not None else None,
            "hot_thread_cpu": 100.0 * used.threads[hot] / 1e9 / seconds if hot is not None else None,
            "threads_ended": used.ended,
            "rss_max": max(s.rss for s in inside),
            "rss_mean": sum(s.rss for s in inside) / len(inside),
            "threads_max": max(s.threads for s in inside),
            "ctx_voluntary": _count(self.samples, "voluntary", used),
            "ctx_involuntary": _count(self.samples, "involuntary", used),
            "sampler_cpu_percent": 100.0 * _count(self.samples, "overhead", used) / 1e9 / seconds,
        }

    def series(self) -> list[list[float]]:
        """[[wall_ns, cpu_seconds, rss], ...] for plots."""
        return [[s.wall_ns, sum(s.cpu.threads.values()) / 1e9, s.rss] for s in self.samples]


def accounting() -> dict:
    """How this machine's resource figures are measured, for a run's provenance."""
    return {
        "cpu": f"{schedstat.source()}, integrated over each measured window",
        "hot_thread": "the thread with the most CPU in the window, share of one core, its /proc comm",
        "context_switches": "perf context-switches"
        if PerfStat.available()
        else "/proc status voluntary + nonvoluntary, every thread (perf not available)",
        "sampler_cpu": "schedstat of the sampler thread and its perf stat process, per window",
        "interval_s": INTERVAL_S,
    }


# Window keys that do not add up over the processes of one role: the hottest thread is the
# hottest of any of them (one thread runs on one core, whichever process it belongs to).
NOT_ADDED = ("cpu_source", "hot_thread", "hot_thread_cpu")


def not_added(windows: list[dict]) -> dict:
    """NOT_ADDED keys of several processes' windows combined (only those the windows have)."""
    if not windows or "hot_thread_cpu" not in windows[0]:
        return {}
    measured = [w for w in windows if w.get("hot_thread_cpu") is not None]
    hottest = max(measured, key=lambda w: w["hot_thread_cpu"], default={})
    sources = sorted({w["cpu_source"] for w in windows if w.get("cpu_source")})
    return {
        "cpu_source": "; ".join(sources) or None,
        "hot_thread": hottest.get("hot_thread"),
        "hot_thread_cpu": hottest.get("hot_thread_cpu"),
    }


def tree(root: psutil.Process) -> list[psutil.Process]:
    """The processes below `root` (schedstat.descendants, or psutil's walk of every process where
    the kernel lists no children); raises psutil.NoSuchProcess when `root` has ended."""
    pids = schedstat.descendants(root.pid)
    if pids is None:
        return root.children(recursive=True)
    if not root.is_running():
        raise psutil.NoSuchProcess(root.pid)
    found = []
    for pid in pids:
        try:
            found.append(psutil.Process(pid))
        except psutil.NoSuchProcess:  # ended since it was listed
            continue
    return found


def _count(samples: list[Sample], field: str, window: schedstat.Integral) -> float:
    """A per-thread counter summed over the same window as the CPU time."""
    integral = schedstat.integrate([getattr(s, field) for s in samples], window.start_ns, window.end_ns)
    return integral.total_ns if integral else 0.0


def _thread_switches(pid: int, tid: int) -> tuple[int, int] | None:
    """Context switches of one thread: /proc/PID/status counts only its main thread, which in
    a JVM or a threaded server hardly ever runs."""
    voluntary = involuntary = None
    try:
        with open(f"/proc/{pid}/task/{tid}/status", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("voluntary_ctxt_switches:"):
                    voluntary = int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches:"):
                    involuntary = int(line.split()[1])
    except OSError:  # the thread ended between listing and reading
        return None
    return None if voluntary is None or involuntary is None else (voluntary, involuntary)


class PerfStat:
    """`perf stat -I` attached to a process; counters summed over any wall-clock window.
    A counter the machine lacks is None (unsupported), never zero."""

    def __init__(self, pid: int, output: Path, adopt: Callable[[subprocess.Popen], None] | None = None) -> None:
        self.pid, self.output = pid, output
        self.adopt = adopt  # hands perf to the harness's cleanup (proc.cleanup.adopt), which stops it on a signal
        self.popen: subprocess.Popen | None = None
        self.started_ns = 0

    @staticmethod
    def available() -> bool:
        return shutil.which("perf") is not None and os.environ.get("UABENCH_NO_PERF") != "1"

    def start(self) -> PerfStat:
        if not self.available() or switch.off.is_set():
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
        if self.adopt is not None:
            self.adopt(self.popen)  # and is stopped with the adapters on a signal
        _perf_of[self.pid] = self.popen.pid
        switch.perf.add(self)
        return self

    def signal(self, number: int) -> None:
        if self.popen and self.popen.poll() is None:
            os.killpg(self.popen.pid, number)

    def stop(self) -> None:
        _perf_of.pop(self.pid, None)
        switch.perf.discard(self)
        if self.popen and self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGCONT)  # a stopped perf would not hear the SIGINT
            os.killpg(self.popen.pid, signal.SIGINT)
            try:
                self.popen.wait(timeout=3)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait()

    def window(self, start_ns: int, end_ns: int) -> dict | None:
        """Counters of the intervals that end inside the window, over their real length. An
        interval much longer than INTERVAL_S spans a stop (sampling was off, or perf was held
        up): its counts cannot be placed in time, so no window contains it."""
        if not self.popen or not self.output.exists() or switch.overlaps(start_ns, end_ns):
            return None
        return perf_window(self.output, self.started_ns, start_ns, end_ns)


def perf_window(output: Path, started_ns: int, start_ns: int, end_ns: int) -> dict | None:
    """PerfStat.window over a `perf stat -x, -I` output begun at `started_ns` (wall clock, ns)."""
    totals: dict[str, float | None] = {}
    seconds = 0.0
    previous, inside = 0.0, False
    for at, event, raw in _perf_lines(output):
        if at != previous:
            length, previous = at - previous, at
            instant = started_ns + int(at * 1e9)
            inside = start_ns < instant <= end_ns and length <= 2 * INTERVAL_S
            seconds += length if inside else 0.0
        if not inside:
            continue
        if raw.startswith("<not supported>"):
            totals[event] = None
        elif raw.startswith("<not counted>"):
            totals.setdefault(event, 0.0)
        else:
            before = totals.get(event, 0.0)
            totals[event] = None if before is None else before + float(raw)
    if not seconds:
        return None
    result: dict[str, float | None] = {"seconds": seconds}
    for event in PERF_EVENTS:
        key = "task_clock_ms" if event == "task-clock" else event.replace("-", "_")
        result[key] = totals.get(event)
    return result


def _perf_lines(output: Path) -> Iterator[tuple[float, str, str]]:
    """(seconds since start, event, value) of every counter line of `perf stat -x, -I`."""
    for line in output.read_text(errors="replace").splitlines():
        fields = line.split(",")
        if len(fields) < 4 or line.startswith("#"):
            continue
        try:
            at = float(fields[0])
        except ValueError:
            continue
        if fields[3] in PERF_EVENTS:
            yield at, fields[3], fields[1]
