"""proc/stacks.py on real processes: a thread that went deep (a nested JSON document parsed by
CPython's C decoder, which recurses on the thread's stack) shows a deeper stack than the same
program's thread that did not, and the figure is of that thread, not of the main one."""

import subprocess
import sys
import textwrap

import pytest

from uabench.proc import stacks

DEEP = textwrap.dedent(
    """
    import json, sys, threading
    sys.setrecursionlimit(1_000_000)
    depth = int(sys.argv[1])
    def worker():
        json.loads("[" * depth + "]" * depth)
        print("deep", flush=True)
        threading.Event().wait()
    threading.Thread(target=worker, daemon=True).start()
    sys.stdin.read()
    """
)


def _largest(depth: int) -> stacks.Stacks:
    with subprocess.Popen(
        [sys.executable, "-c", DEEP, str(depth)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stdout is not None and process.stdout.readline() == "deep\n"
            return stacks.high_water_quiet(process.pid)
        finally:
            process.kill()


def test_a_thread_that_went_deep_has_the_deepest_stack():
    shallow, deep = _largest(1), _largest(20_000)
    assert shallow.threads == deep.threads == 2 and deep.unread == 0 and deep.shared == 0
    assert shallow.largest is not None and shallow.largest < 256 * 1024
    assert deep.largest is not None and deep.largest > 1024 * 1024  # tens of bytes a level, 20,000 levels
    assert deep.huge_bytes == 0, "transparent huge pages back a thread stack on this kernel"


def test_a_process_that_has_ended_is_a_stack_error():
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with pytest.raises(stacks.StackError):
        stacks.high_water(int(done.stdout))
