"""What else the host did while a cell was measured: steal time (a hypervisor running other guests
on our CPUs), interrupt time (hard and soft IRQs) and the CPU of processes other than the measured
ones and the harness itself, from /proc/stat, summarised over any window like ProcessSampler's resources. A repetition
run while the host was busy elsewhere is a disturbed one (``disturbed``).

Percentages are of the whole machine's CPU time (every CPU together is 100 %)."""

from __future__ import annotations

import bisect
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import psutil

from uabench.proc import sampling, schedstat
from uabench.proc.sampling import INTERVAL_S

# /proc/stat's cpu line, in order (proc(5)); guest and guest_nice are already inside user and nice
FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
BUSY = ("user", "nice", "system", "irq", "softirq")
# Default limit of `disturbed`, in percent of the machine: on 2 CPUs, a fifth of one CPU
DISTURBED_PERCENT = 10.0
JUDGED = ("steal_percent", "other_percent")


@dataclass(frozen=True)
class HostSample:
    at_ns: int
    jiffies: dict[str, int]  # cumulative, per FIELDS, summed over all CPUs
    measured_s: float  # cumulative CPU seconds of the measured process trees
    harness_s: float = 0.0  # cumulative CPU seconds of this process (the harness: samplers, event readers)
    sampler_ns: int = 0  # cumulative ns on CPU of this sampler's own thread (schedstat)


def parse_stat(text: str) -> dict[str, int]:
    """The aggregate `cpu` line of /proc/stat as cumulative jiffies per field (a kernel too old to
    report a field reports it as 0)."""
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            counts = [int(v) for v in fields[1 : 1 + len(FIELDS)]]
            counts += [0] * (len(FIELDS) - len(counts))
            return dict(zip(FIELDS, counts, strict=True))
    raise ValueError("no aggregate cpu line in /proc/stat")


def read_stat() -> dict[str, int]:
    with open("/proc/stat", encoding="ascii") as stream:
        return parse_stat(stream.read())


class HostSampler:
    """/proc/stat and the measured process trees' CPU, sampled together every ``interval`` seconds
    on ``clock`` (by default the Unix wall clock in ns, the clock of the adapters' start_ns/end_ns;
    pass time.monotonic_ns for a monotonic timeline).

    The measured CPU is read here, at the instant /proc/stat is read, rather than taken from the
    ProcessSamplers: those sample at their own instants, and subtracting CPU seconds over windows
    that differ by up to an interval at each end would misstate the other processes' share."""

    def __init__(
        self, pids: Iterable[int] = (), interval: float = INTERVAL_S, clock: Callable[[], int] = time.time_ns
    ) -> None:
        self.roots: list[int] = list(pids)
        self.interval, self.clock = interval, clock
        self.samples: list[HostSample] = []
        # last CPU seconds seen per process, so that a process that exits keeps counting what it used
        self._cpu_by_pid: dict[tuple[int, float], float] = {}
        self._self = psutil.Process()
        self._tid = 0  # the sampling thread's id, once it runs
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="host-sampler", daemon=True)

    def watch(self, pid: int) -> None:
        """Count a process tree (started after the sampler) as measured from now on."""
        with self._lock:
            self.roots.append(pid)

    def start(self) -> HostSampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def __enter__(self) -> HostSampler:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _loop(self) -> None:
        self._tid = threading.get_native_id()
        while not self._stop.is_set():
            if not sampling.switch.off.is_set():  # sampling off (its overhead measured): no sample
                self.sample()
            self._stop.wait(self.interval)

    def sample(self) -> HostSample:
        measured = self._measured_cpu()
        own = self._self.cpu_times()
        mine = schedstat.on_cpu_ns(os.getpid(), self._tid) if self._tid else None
        sample = HostSample(self.clock(), read_stat(), measured, own.user + own.system, mine or 0)
        self.samples.append(sample)
        return sample

    def _measured_cpu(self) -> float:
        with self._lock:
            roots = list(self.roots)
        for pid in roots:
            try:
                root = psutil.Process(pid)
                tree = [root] + sampling.tree(root)
            except psutil.NoSuchProcess:
                continue
            for process in tree:
                try:
                    times = process.cpu_times()
                    # (pid, start time) names a process even if its pid is reused
                    self._cpu_by_pid[(process.pid, process.create_time())] = times.user + times.system
                except (psutil.NoSuchProcess, psutil.ZombieProcess):
                    continue
        return sum(self._cpu_by_pid.values())

    def window(self, start_ns: int, end_ns: int) -> dict | None:
        """Host interference between two instants of ``clock``, from the nearest samples inside
        (None when fewer than two samples fall inside, or sampling was off during it)."""
        if self.clock is time.time_ns and sampling.switch.overlaps(start_ns, end_ns):
            return None
        return interference(self.samples, start_ns, end_ns)


def interference(samples: list[HostSample], start_ns: int, end_ns: int) -> dict | None:
    """steal, irq (hard + soft), iowait, busy, measured and other processes' CPU in percent of the
    machine between the first and the last sample inside [start_ns, end_ns]."""
    times = [s.at_ns for s in samples]
    first = bisect.bisect_left(times, start_ns)
    last = bisect.bisect_right(times, end_ns) - 1
    if last - first < 1:
        return None
    a, b = samples[first], samples[last]
    delta = {field: b.jiffies[field] - a.jiffies[field] for field in FIELDS}
    total = sum(delta.values())
    if total <= 0:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    busy = sum(delta[field] for field in BUSY)
    measured_percent = 100.0 * (b.measured_s - a.measured_s) * tick / total
    harness_percent = 100.0 * (b.harness_s - a.harness_s) * tick / total

    def percent(jiffies: int) -> float:
        return 100.0 * jiffies / total

    busy_percent = percent(busy)
    return {
        "seconds": (b.at_ns - a.at_ns) / 1e9,
        "cpus": total / tick / max((b.at_ns - a.at_ns) / 1e9, 1e-9),
        "steal_percent": percent(delta["steal"]),
        "irq_percent": percent(delta["irq"] + delta["softirq"]),
        "iowait_percent": percent(delta["iowait"]),
        "busy_percent": busy_percent,
        "measured_percent": measured_percent,
        "harness_percent": harness_percent,
        # this sampler's own thread, share of one core (its cost, like the process samplers')
        "sampler_cpu_percent": 100.0 * (b.sampler_ns - a.sampler_ns) / 1e9 / max((b.at_ns - a.at_ns) / 1e9, 1e-9),
        # interrupt time is left out: loopback traffic between the measured processes is handled in
        # softirq context and would count the benchmark's own work as interference; so is the
        # harness, whose sampling is part of every measurement alike
        "other_percent": max(0.0, percent(busy - delta["irq"] - delta["softirq"]) - measured_percent - harness_percent),
    }


def disturbed(
    interference: dict | None, threshold: float = DISTURBED_PERCENT, keys: tuple[str, ...] = JUDGED
) -> str | None:
    """Why a window was disturbed (one sentence), or None: any of ``keys`` (by default steal time and
    other processes' CPU) above ``threshold`` percent of the machine. No record is not a disturbance."""
    if not interference:
        return None
    names = {
        "steal_percent": "steal time",
        "other_percent": "other processes' CPU",
        "irq_percent": "interrupt time",
        "iowait_percent": "I/O wait",
    }
    over = [
        f"{names.get(key, key)} {interference[key]:.1f} %"
        for key in keys
        if interference.get(key) is not None and interference[key] > threshold
    ]
    if not over:
        return None
    return f"Host disturbed: {' and '.join(over)} of the machine (limit {threshold:g} %)."
