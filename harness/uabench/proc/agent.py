"""The harness's own sampler, run on a remote target (a Raspberry Pi over SSH).

The same ProcessSampler and PerfStat that sample a local adapter (proc/sampling.py) run there
beside the remote adapter; this module only writes what they measure to files in the role's
remote work directory, which the harness reads back for each measured window
(targets/ssh.py). One sampler everywhere: a remote CPU, RSS, thread or perf figure is computed
by the same code over the same counters as a local one, only its clock is the target's.

It is shipped as the few files it imports (SHIPPED, stdlib and psutil only) and started by the
remote wrapper (targets/remote.py) with `python3 -m uabench.proc.agent`:

    sample PID PREFIX   samples PID every INTERVAL_S into PREFIX.samples.jsonl (the first line:
                        the counter source and when perf began), perf stat -I into
                        PREFIX.perf.csv; ends when PID ends
    clock               answers each line on stdin with this host's time.time_ns()
    facts               one JSON line: machine, CPU model, cores, kernel, perf, clock tick
    stacks PIDFILE      one JSON line: how deep the thread stacks of the process whose pid
                        PIDFILE holds have been (proc/stacks.py), or {"error": why}
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

# What the agent imports, relative to the harness directory: shipped as they are.
SHIPPED = (
    "uabench/__init__.py",
    "uabench/proc/__init__.py",
    "uabench/proc/agent.py",
    "uabench/proc/launcher.py",
    "uabench/proc/sampling.py",
    "uabench/proc/schedstat.py",
    "uabench/proc/stacks.py",
)


def sample_to_json(sample, names: dict[int, str]) -> str:
    """One Sample as a JSON line (thread ids as strings, the way JSON keys are)."""
    return json.dumps(
        {
            "wall_ns": sample.wall_ns,
            "user_s": sample.user_s,
            "system_s": sample.system_s,
            "rss": sample.rss,
            "threads": sample.threads,
            "cpu": sample.cpu.threads,
            "voluntary": sample.voluntary.threads,
            "involuntary": sample.involuntary.threads,
            "overhead": sample.overhead.threads,
            "names": {tid: names[tid] for tid in sample.cpu.threads if tid in names},
        }
    )


def sample_from_json(line: str, shift_ns: int):
    """A Sample from one JSON line, its instants moved by `shift_ns` onto the harness's clock;
    with the thread names it carries."""
    from uabench.proc.sampling import Sample
    from uabench.proc.schedstat import Snapshot

    raw = json.loads(line)
    at = int(raw["wall_ns"]) - shift_ns

    def snapshot(key: str) -> Snapshot:
        return Snapshot(at, {int(tid): int(ns) for tid, ns in raw[key].items()})

    sample = Sample(
        at,
        float(raw["user_s"]),
        float(raw["system_s"]),
        int(raw["rss"]),
        int(raw["threads"]),
        snapshot("cpu"),
        snapshot("voluntary"),
        snapshot("involuntary"),
        snapshot("overhead"),
    )
    return sample, {int(tid): str(name) for tid, name in raw.get("names", {}).items()}


def sample(pid: int, prefix: str) -> int:
    from uabench.proc import sampling

    sampler = sampling.ProcessSampler(pid)
    perf = sampling.PerfStat(pid, Path(f"{prefix}.perf.csv")).start()
    written = 0
    with open(f"{prefix}.samples.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps({"counter": sampler.counter, "perf_started_ns": perf.started_ns or None}) + "\n")
        out.flush()
        sampler.start()
        try:
            while sampler._thread.is_alive():
                sampler._thread.join(sampling.INTERVAL_S)
                for found in sampler.samples[written:]:
                    out.write(sample_to_json(found, sampler.names) + "\n")
                    written += 1
                out.flush()
        finally:
            perf.stop()
    return 0


def clock() -> int:
    for _line in sys.stdin:
        sys.stdout.write(f"{time.time_ns()}\n")
        sys.stdout.flush()
    return 0


def machine_facts() -> dict:
    """This machine: architecture, CPU model, cores, kernel, OS, Python, perf, clock tick.
    Not results.provenance.machine, which imports the harness: this runs alone on the target, and
    reads an ARM board's model from cpuinfo's `Model`/`Hardware` lines, which x86 lacks."""
    from uabench.proc import sampling

    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                model = value.strip()
                if key.strip() == "model name":
                    break
    except OSError:
        pass
    return {
        "machine": platform.machine(),
        "cpu_model": model or _lscpu_model(),
        "cpus": os.cpu_count(),
        "kernel": platform.release(),
        "os": _os_name(),
        "python": platform.python_version(),
        "perf": sampling.PerfStat.available(),
        "clk_tck": os.sysconf("SC_CLK_TCK"),
    }


def _lscpu_model() -> str:
    """The core's name where cpuinfo has no model line (an arm64 machine without a board's `Model`,
    such as the VM target): util-linux's lscpu names ARM cores from their part numbers, a table we
    would otherwise copy."""
    import subprocess

    try:
        done = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10, env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.TimeoutExpired):
        return ""
    for line in done.stdout.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "Model name" and value.strip():
            return value.strip()
    return ""


def facts() -> int:
    print(json.dumps(machine_facts()))
    return 0


def _os_name() -> str:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME", "")
    except (OSError, AttributeError):  # no os-release file; Python < 3.10
        return ""


def stacks(pidfile: str) -> int:
    """The stacks of the adapter the wrapper wrote the pid of (its NAME.adapter.pid)."""
    from uabench.proc import stacks as thread_stacks

    found: dict
    try:
        pid = int(Path(pidfile).read_text(encoding="utf-8").strip())
    except (OSError, ValueError) as error:
        found = {"error": f"no adapter pid in {pidfile}: {error}"}
    else:
        try:
            found = thread_stacks.high_water_quiet(pid).fields()
        except thread_stacks.StackError as error:
            found = {"error": str(error)}
    print(json.dumps(found), flush=True)
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["sample"] and len(argv) == 3:
        return sample(int(argv[1]), argv[2])
    if argv == ["clock"]:
        return clock()
    if argv == ["facts"]:
        return facts()
    if argv[:1] == ["stacks"] and len(argv) == 2:
        return stacks(argv[1])
    print("usage: python3 -m uabench.proc.agent sample PID PREFIX | clock | facts | stacks PIDFILE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
