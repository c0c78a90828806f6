"""A Node server's heap after a full garbage collection, asked for from outside the process
through V8's inspector: SIGUSR1 makes Node open its inspector on 127.0.0.1 (its debug port, 9229
unless the process was told another), whose Chrome DevTools Protocol collects the garbage
(HeapProfiler.collectGarbage: a full, compacting collection) and evaluates process.memoryUsage()
in the server's own context. The figure is heapUsed + external: the used V8 heap and the memory
of the Buffers and ArrayBuffers its objects hold (an OPC UA server's chunks are Buffers), after
the collection.

While open, the inspector accepts any local connection, and through it any code: the harness
opens it only on a server of its own that it stops after the point (footprint/runner.py). A
server whose inspector cannot open (its port taken) fails its point with that reason.

websocket-client speaks the WebSocket the protocol needs; the listening port is the one socket
the process opened after the signal (psutil)."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
from itertools import count

import psutil
import websocket

OPEN_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 20.0
# heapUsed + external, read where the collection left them (the expression's value is a string)
MEMORY = "JSON.stringify((({heapUsed, external}) => ({heapUsed, external}))(process.memoryUsage()))"

_opened: dict[tuple[int, float], str] = {}  # (pid, its start time) → the inspector's WebSocket URL


class InspectorError(RuntimeError):
    pass


def _listening(process: psutil.Process) -> set[tuple[str, int]]:
    return {(c.laddr.ip, c.laddr.port) for c in process.net_connections("tcp") if c.status == psutil.CONN_LISTEN}


def _url(pid: int) -> str:
    """The WebSocket URL of process `pid`'s inspector, opened by SIGUSR1 the first time."""
    try:
        process = psutil.Process(pid)
        key = (pid, process.create_time())
        if key in _opened:
            return _opened[key]
        before = _listening(process)
        os.kill(pid, signal.SIGUSR1)
        deadline = time.monotonic() + OPEN_TIMEOUT_S
        while not (opened := _listening(process) - before):
            if time.monotonic() > deadline:
                raise InspectorError(
                    f"node process {pid} opened no inspector within {OPEN_TIMEOUT_S:g} s of SIGUSR1 "
                    "(its debug port, 9229 unless told another, taken by another process?)"
                )
            time.sleep(0.05)
    except psutil.Error as error:
        raise InspectorError(f"node process {pid}: {error}") from error
    host, port = sorted(opened)[0]
    with urllib.request.urlopen(f"http://{host}:{port}/json/list", timeout=REQUEST_TIMEOUT_S) as answer:
        targets = json.load(answer)
    if not targets or "webSocketDebuggerUrl" not in targets[0]:
        raise InspectorError(f"node process {pid}'s inspector at {host}:{port} lists no target: {targets!r}")
    _opened[key] = targets[0]["webSocketDebuggerUrl"]
    return _opened[key]


def collected_heap(pid: int) -> int:
    """heapUsed + external of Node process `pid`, in bytes, after a full collection."""
    try:
        connection = websocket.create_connection(_url(pid), timeout=REQUEST_TIMEOUT_S, suppress_origin=True)
        try:
            _call(connection, "HeapProfiler.collectGarbage")
            found = _call(connection, "Runtime.evaluate", expression=MEMORY, returnByValue=True)
        finally:
            connection.close()
    except (OSError, websocket.WebSocketException) as error:
        raise InspectorError(f"node process {pid}'s inspector: {error}") from error
    value = (found.get("result") or {}).get("value")
    try:
        memory = json.loads(str(value))
        return int(memory["heapUsed"]) + int(memory["external"])
    except (TypeError, ValueError, KeyError) as error:
        raise InspectorError(f"node process {pid}: process.memoryUsage() gave {value!r}") from error


_ids = count(1)


def _call(connection: websocket.WebSocket, method: str, **params: object) -> dict:
    """One request's result; the events that may come before its answer are passed over."""
    sent = next(_ids)
    connection.send(json.dumps({"id": sent, "method": method, "params": params}))
    while True:
        answer = json.loads(connection.recv())
        if answer.get("id") == sent:
            if "error" in answer:
                raise InspectorError(f"{method}: {answer['error']}")
            return answer.get("result") or {}
