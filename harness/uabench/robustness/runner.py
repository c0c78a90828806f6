"""The robustness suite's steps on the harness's side (issue 18): the corpus recorded from the
reference client, one hostile batch run in the tools' venv (tools/.venv) (tools/uabench_tools/hostile.py), and the
server's resources and health around it. Judged by robustness/survival.py."""

from __future__ import annotations

import socket
import struct
from pathlib import Path

import psutil
from uabench_tools import wire

from uabench.engine import tools_venv
from uabench.robustness.batches import FUZZ
from uabench.robustness.survival import Resources

STARTUP_S = 30.0  # the batch's process start and asyncua's import, besides the batch's own bound
# The workloads the corpus is recorded from: what each adds to it (SPEC §3's client keys)
CORPUS_WORKLOADS = (
    {"workload": "read", "nodes": ["Real"], "nodes_per_request": 1, "in_flight": 1, "warmup_s": 0.1, "duration_s": 0.2},
    {
        "workload": "write",
        "nodes": ["Write_0"],
        "nodes_per_request": 1,
        "in_flight": 1,
        "warmup_s": 0.1,
        "duration_s": 0.2,
    },
    {"workload": "subscribe", "nodes": ["Signal_0"], "publishing_interval_ms": 100, "sampling_interval_ms": 100,
     "warmup_s": 0.3, "duration_s": 0.5},
)  # fmt: skip


def resources(pid: int) -> Resources | None:
    """The server's process tree now: RSS, threads, file descriptors, CPU seconds (None: gone)."""
    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
        rss = threads = fds = 0
        cpu = 0.0
        for process in tree:
            with process.oneshot():
                rss += process.memory_info().rss
                threads += process.num_threads()
                fds += process.num_fds()
                times = process.cpu_times()
                cpu += times.user + times.system
        return Resources(rss / 2**20, threads, fds, cpu)
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return None


def answers_hello(endpoint: str, timeout_s: float = 2.0) -> bool:
    """A new connection's Hello is acknowledged within `timeout_s` (OPC 10000-6 §7.1.2.3)."""
    host, port = endpoint.removeprefix("opc.tcp://").split("/")[0].rsplit(":", 1)
    url = endpoint.encode()
    body = struct.pack("<5I", 0, 65536, 65536, 0, 0) + struct.pack("<i", len(url)) + url
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s) as connection:
            connection.settimeout(timeout_s)
            connection.sendall(wire.HEADER.pack(b"HEL", b"F", wire.HEADER.size + len(body)) + body)
            return connection.recv(8)[:3] == b"ACK"
    except OSError:
        return False


def corpus_problems(messages: list[wire.Message]) -> list[str]:
    """What the fuzzer needs that the recording lacks."""
    names = {wire.name(m) for m in messages}
    return [f"no {needed} recorded" for needed in wire.CORPUS if needed not in names]


def run_batch(endpoint: str, batch: str, corpus: Path, reproducers: Path, seed: int, cases: int, time_s: float) -> dict:
    """One batch against the server at `endpoint`; what hostile.py printed."""
    arguments = {
        "endpoint": endpoint,
        "batch": batch,
        "seed": seed,
        "cases": cases,
        "time_s": time_s,
        "corpus": str(corpus) if batch in FUZZ or batch in ("chunk-flood", "oversize-message", "publish-flood") else "",
        "reproducers": str(reproducers),
    }
    bound = STARTUP_S + time_s + 30.0  # the batch stops itself at time_s; its last liveness probes after
    what = f"robustness: batch {batch}"
    return tools_venv.last_line(tools_venv.run("hostile", arguments, bound, what), what)
