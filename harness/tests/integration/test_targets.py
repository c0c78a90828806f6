"""Targets (uabench.targets): the command line's targets checked before anything runs, and the
remote sampler: the harness's own agent (uabench.proc.agent) sampling a real process, its
samples read back and moved onto this clock by the measured offset. The whole path against
the namespace Pi runs in ci/test (`uabench run … --server-target ssh://…`)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import HARNESS

from uabench import targets
from uabench.targets import ssh


class LocalFiles(ssh.SshTarget):
    """The transport of an SSH target over local files: the agent here writes what it would write
    there, so the sampler's reading, parsing and clock shift are tested without ssh."""

    def __init__(self, workdir: Path, offset_ns: int) -> None:
        host = ssh.RemoteHost("root@127.0.0.1", workdir=str(workdir))
        super().__init__(
            targets.Spec("ssh", "root@127.0.0.1"), host, ssh.images.arch("arm64"), {}, {"offset_ns": offset_ns}, {}
        )

    def read_from(self, remote: str, offset: int) -> bytes:
        try:
            return Path(remote).read_bytes()[offset:]
        except FileNotFoundError:
            return b""


@pytest.fixture
def sampled(tmp_path):
    """A busy process sampled by the agent for about 2 s; (workdir, start_ns, end_ns)."""
    busy = subprocess.Popen([sys.executable, "-c", "import time\nend = time.time() + 3\nwhile time.time() < end: pass"])
    harness = HARNESS
    agent = subprocess.Popen(
        [sys.executable, "-m", "uabench.proc.agent", "sample", str(busy.pid), str(tmp_path / "role-1")],
        env={**os.environ, "PYTHONPATH": str(harness), "UABENCH_NO_PERF": "1"},
    )
    start = time.time_ns() + 500_000_000
    busy.wait(timeout=30)
    end = time.time_ns() - 300_000_000
    assert agent.wait(timeout=30) == 0  # it ends with the process it samples
    return tmp_path, start, end


def test_the_remote_sampler_reads_the_agents_samples_on_this_clock(sampled):
    workdir, start, end = sampled
    sampler = ssh.RemoteSampler(LocalFiles(workdir, 0), "role-1")
    window = sampler.window(start, end)
    # a busy loop: about one core on an idle machine, less beside other load (a third seen with
    # the load average at 10 on 2 cores); a sampler of nothing or of an idle process reads about 0
    assert window is not None and window["cpu_percent"] > 10, window
    assert window["rss_max"] > 1_000_000 and window["threads_max"] >= 1


def test_samples_on_another_clock_are_moved_by_the_offset(sampled):
    """The same samples with the target's clock 1 h ahead: read without the offset they miss
    the window (a sampler that ignored the offset would find nothing, or the wrong span)."""
    workdir, start, end = sampled
    hour = 3600 * 10**9
    shifted = workdir / "role-2.samples.jsonl"
    lines = (workdir / "role-1.samples.jsonl").read_text().splitlines()
    import json

    moved = [lines[0]] + [
        json.dumps({**json.loads(line), "wall_ns": json.loads(line)["wall_ns"] + hour}) for line in lines[1:]
    ]
    shifted.write_text("\n".join(moved) + "\n")
    assert ssh.RemoteSampler(LocalFiles(workdir, 0), "role-2").window(start, end) is None
    found = ssh.RemoteSampler(LocalFiles(workdir, hour), "role-2").window(start, end)
    assert found is not None and found["cpu_percent"] > 10  # the busy loop's, as above
