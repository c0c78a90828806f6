"""The heap a runtime reports after a full garbage collection, where it lets another process
trigger one: the JVM, through jcmd (GC.run, then GC.heap_info). Milo's JVM keeps the heap it
grew committed (its run script: ParallelGC, -Xms256m), so its RSS says how far the heap grew
while a client connected, not what the server keeps; the used heap after a full collection does.

Node's V8 too, through its inspector (footprint/inspector.py: SIGUSR1 opens it), whose heap grows
and is collected when V8 decides, so that its RSS after a client says little of what it keeps.

The other runtimes give no such handle from outside the process: CPython frees most objects by
reference counting as they go, and Go's runtime.GC and tokio have no external trigger. Their RSS
is all the report shows, and it says so."""

from __future__ import annotations

import re
import shutil
import subprocess

from uabench.footprint import inspector

JCMD_TIMEOUT_S = 20.0
# " PSYoungGen      total 76288K, used 3932K [0x…" (ParallelGC), " garbage-first heap   total …" (G1):
# the generations of the Java heap; Metaspace's line ("used … committed") is not the heap
_GENERATION = re.compile(r"^\s*\S[^\n]*?\btotal (\d+)K, used (\d+)K", re.MULTILINE)

COLLECTED = {
    "Java": "after a full garbage collection (jcmd GC.run), the used Java heap (jcmd GC.heap_info)",
    "JavaScript": "after a full garbage collection (V8's inspector, opened by SIGUSR1: "
    "HeapProfiler.collectGarbage), the used V8 heap and the Buffers it holds (process.memoryUsage(): "
    "heapUsed + external)",
}


class HeapError(RuntimeError):
    pass


def collects(language: str) -> bool:
    """Whether uabench can collect the garbage of a server in `language` and read its heap."""
    return language == "JavaScript" or (language == "Java" and shutil.which("jcmd") is not None)


def collected_heap(pid: int, language: str) -> int:
    """The used heap in bytes of process `pid` after a full collection it was asked for."""
    if language == "JavaScript":
        try:
            return inspector.collected_heap(pid)
        except inspector.InspectorError as error:
            raise HeapError(str(error)) from error
    if language != "Java":
        raise HeapError(f"no way to collect the garbage of a {language} server from outside")
    _jcmd(pid, "GC.run")
    return used_heap(_jcmd(pid, "GC.heap_info"))


def used_heap(heap_info: str) -> int:
    """The bytes the generations of jcmd GC.heap_info's output use."""
    used = [int(found.group(2)) * 1024 for found in _GENERATION.finditer(heap_info)]
    if not used:
        raise HeapError(f"jcmd GC.heap_info printed no heap generation: {heap_info[:300]!r}")
    return sum(used)


def _jcmd(pid: int, command: str) -> str:
    done = subprocess.run(
        ["jcmd", str(pid), command], capture_output=True, text=True, timeout=JCMD_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        raise HeapError(f"jcmd {pid} {command} failed ({done.returncode}): {(done.stdout + done.stderr)[-300:]}")
    return done.stdout
