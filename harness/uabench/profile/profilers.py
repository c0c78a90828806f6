"""Sampling profilers attached to a running server, one per runtime, each brought to folded
stacks (profile/folded.py):

- perf (Linux's, the software clock `cpu-clock`: no PMU needed, so it works on VMs and CI
  runners) for natively compiled servers (C, Rust, Go) and for the JIT runtimes, whose
  generated code perf symbolises from a perf map: the JVM writes one on request (`jcmd PID
  Compiler.perfmap`, JDK 17+), V8 with `--perf-basic-prof` as it compiles. Both are started
  with frame pointers kept in compiled code (-XX:+PreserveFramePointer; V8 keeps them), so the
  stacks walk through it. inferno-collapse-perf folds `perf script`'s output.
- py-spy (PyPI) for CPython, whose frames perf sees only as the interpreter's evaluation loop:
  py-spy reads the Python stacks from the process's memory, with --nonblocking (it never
  pauses the process), and writes folded stacks itself.

Every profiler process dies with the harness (proc/launcher.py) and is stopped with SIGINT,
on which each writes what it sampled; the perf maps it leaves in /tmp are removed."""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from uabench import paths
from uabench.proc import launcher
from uabench.profile import folded

INFERNO = paths.REPO / ".tools" / "inferno" / "bin"
STOP_TIMEOUT_S = 60.0  # perf and py-spy write their samples on SIGINT; a big perf.data takes a while
# what each runtime's server needs at start so that its profile has names and whole stacks
ENVIRONMENT = {
    "Java": {"JAVA_TOOL_OPTIONS": "-XX:+PreserveFramePointer"},
    "JavaScript": {"NODE_OPTIONS": "--perf-basic-prof"},
}


class ProfileError(Exception):
    pass


def tool(language: str) -> str:
    return "py-spy" if language == "Python" else "perf"


def missing(language: str) -> str | None:
    """Why a server in `language` cannot be profiled here, or None."""
    needed = {"perf": ["perf", str(INFERNO / "inferno-collapse-perf")], "py-spy": [py_spy()]}[tool(language)]
    if language == "Java":
        needed.append("jcmd")
    absent = [name for name in needed if shutil.which(name) is None]
    return f"not installed: {', '.join(absent)} (ci/setup installs them)" if absent else None


def py_spy() -> str:
    """py-spy from the harness's venv (harness/pyproject.toml)."""
    here = Path(sys.executable).parent / "py-spy"
    return str(here) if here.exists() else "py-spy"


def environment(language: str) -> contextlib.AbstractContextManager[None]:
    """The runtime's profiling settings in the environment while a server starts."""
    return launcher.environment(ENVIRONMENT.get(language, {}))


def _tree(pid: int) -> list[int]:
    """The adapter and its children (a launcher script's runtime)."""
    try:
        root = psutil.Process(pid)
        return [root.pid, *(child.pid for child in root.children(recursive=True))]
    except psutil.NoSuchProcess:
        return []


@dataclass
class Attached:
    """A profiler sampling a server's process tree until stop()."""

    language: str
    pids: list[int]
    frequency_hz: int
    directory: Path
    process: subprocess.Popen | None = None
    stacks: Counter[str] = field(default_factory=Counter)

    @property
    def output(self) -> Path:
        return self.directory / ("py-spy.folded" if tool(self.language) == "py-spy" else "perf.data")

    def start(self) -> Attached:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.output.unlink(missing_ok=True)  # only this phase's samples
        if tool(self.language) == "py-spy":
            command = [
                py_spy(), "record", "--pid", str(self.pids[0]), "--rate", str(self.frequency_hz), "--format", "raw",
                "--nonblocking", "--output", str(self.output),
            ]  # fmt: skip
        else:
            pids = ",".join(str(p) for p in self.pids)
            command = [
                "perf", "record", "--quiet", "-e", "cpu-clock", "-F", str(self.frequency_hz), "-g",
                "-p", pids, "-o", str(self.output),
            ]  # fmt: skip
        log = (self.directory / "profiler.log").open("ab")
        self.process = subprocess.Popen(
            command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, preexec_fn=launcher.preexec()
        )
        log.close()
        return self

    def stop(self) -> Counter[str]:
        """Stops the profiler (SIGINT: it writes what it sampled) and folds its samples."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise ProfileError(f"{tool(self.language)} did not stop within {STOP_TIMEOUT_S:g} s of SIGINT") from None
        self.stacks = self._fold()
        if not self.stacks:
            raise ProfileError(f"{tool(self.language)} recorded no samples: {self._log_tail()}")
        return self.stacks

    def _fold(self) -> Counter[str]:
        if not self.output.exists():
            raise ProfileError(f"{tool(self.language)} wrote no {self.output.name}: {self._log_tail()}")
        if tool(self.language) == "py-spy":
            return folded.parse_sampled(self.output.read_text(errors="replace"))
        if self.language == "Java":  # the JIT's code by name, while the JVM still runs
            for pid in self.pids:
                subprocess.run(["jcmd", str(pid), "Compiler.perfmap"], capture_output=True, timeout=60, check=False)
        # without the period field inferno counts samples; with it, cpu-clock's nanoseconds
        fields = "comm,pid,tid,time,event,ip,sym,dso"
        script = subprocess.run(
            ["perf", "script", "-i", str(self.output), "-F", fields], capture_output=True, timeout=600, check=False
        )
        if script.returncode != 0:
            raise ProfileError(f"perf script failed: {script.stderr.decode(errors='replace')[-500:]}")
        collapsed = subprocess.run(
            [str(INFERNO / "inferno-collapse-perf"), "--all"], input=script.stdout, capture_output=True, timeout=600
        )
        if collapsed.returncode != 0:
            raise ProfileError(f"inferno-collapse-perf failed: {collapsed.stderr.decode(errors='replace')[-500:]}")
        self.output.unlink()  # perf.data is large; the folded stacks are what is kept
        return folded.parse(collapsed.stdout.decode(errors="replace"))

    def _log_tail(self) -> str:
        log = self.directory / "profiler.log"
        return log.read_text(errors="replace")[-500:].strip() if log.exists() else "(no log)"


@contextlib.contextmanager
def attached(pid: int, language: str, frequency_hz: int, directory: Path) -> Iterator[Attached]:
    """A profiler on the process tree of `pid` for the block; its stacks once the block ends."""
    pids = _tree(pid)
    if not pids:
        raise ProfileError(f"process {pid} is gone: nothing to profile")
    profiler = Attached(language, pids, frequency_hz, directory).start()
    try:
        yield profiler
    finally:
        profiler.stop()


def remove_perf_maps(pid: int) -> None:
    """The perf maps a JIT runtime's server wrote into /tmp (V8 writes its map as it compiles,
    so it stays until the suite ends): nothing left behind."""
    for one in _tree(pid) or [pid]:
        Path(f"/tmp/perf-{one}.map").unlink(missing_ok=True)
        # V8 with --perf-basic-prof also writes its isolate log into the working directory
        # (NODE_OPTIONS allows no --logfile to send it elsewhere)
        for log in Path.cwd().glob(f"isolate-0x*-{one}-v8.log"):
            log.unlink(missing_ok=True)


def flamegraph(stacks: Counter[str], title: str) -> str:
    """An SVG flame graph of folded stacks (inferno-flamegraph)."""
    drawn = subprocess.run(
        [str(INFERNO / "inferno-flamegraph"), "--title", title, "--countname", "samples"],
        input=folded.render(stacks).encode(),
        capture_output=True,
        timeout=300,
    )
    if drawn.returncode != 0:
        raise ProfileError(f"inferno-flamegraph failed: {drawn.stderr.decode(errors='replace')[-500:]}")
    return drawn.stdout.decode()
