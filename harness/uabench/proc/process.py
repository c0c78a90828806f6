"""Adapter processes: start in their own process group, speak the JSON line protocol,
stop with SIGTERM then SIGKILL, and never outlive the harness (proc/cleanup.py stops them all)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections import deque
from pathlib import Path

import uabench_contract as contract

from uabench.proc import launcher
from uabench.sdks import Sdk

READY_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 5.0
# The lines an adapter may print on stdout (contract/schema/event.json, SPEC §2): anything else
# breaks the protocol and fails the cell it belongs to.
EVENTS = frozenset(contract.schema("event")["properties"]["event"]["enum"])
QUOTED_LINES = 3  # the first few offending lines are quoted in the cell's reason
QUOTED_CHARS = 200

_live: set[AdapterProcess] = set()
# Re-entrant: stop_all runs in a signal handler, possibly on the main thread while it holds the lock.
_live_lock = threading.RLock()


class AdapterError(Exception):
    """An adapter broke the contract or died; the message carries its stderr tail."""


class AdapterProcess:
    """One adapter program in one role, with its stdout events and stderr log."""

    def __init__(
        self,
        sdk: Sdk,
        role: str,
        config: dict,
        workdir: Path,
        cpus: set[int] | None = None,
        name: str | None = None,
        prefix: list[str] | None = None,
    ) -> None:
        self.sdk, self.role, self.config = sdk, role, config
        self.prefix = prefix or []  # e.g. ["ip", "netns", "exec", NAME]: it must exec the adapter
        self.name = name or f"{sdk.id}-{role}"
        self.workdir = workdir
        self.cpus = cpus
        self.config_path = workdir / f"{self.name}.json"
        self.stderr_path = workdir / f"{self.name}.stderr.log"
        self.events: queue.Queue[dict] = queue.Queue()
        self.protocol_errors: list[str] = []  # the first QUOTED_LINES stdout lines that are not events
        self.protocol_error_count = 0
        self.popen: subprocess.Popen | None = None
        self.returncode: int | None = None
        self.started_ns = 0

    # --- lifecycle ---------------------------------------------------------------------

    def start(self) -> AdapterProcess:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(json.dumps(self.config, indent=1))
        stderr = self.stderr_path.open("ab")
        cpus = self.cpus
        self.started_ns = time.time_ns()
        self.popen = subprocess.Popen(
            [*self.prefix, str(self.sdk.run), self.role, "--config", str(self.config_path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,  # own process group: one signal reaches the whole tree
            # dies with the harness even on SIGKILL (proc/launcher.py)
            preexec_fn=launcher.preexec((lambda: os.sched_setaffinity(0, cpus)) if cpus else None),
        )
        stderr.close()
        with _live_lock:
            _live.add(self)
        threading.Thread(target=self._read_stdout, name=f"{self.name}-stdout", daemon=True).start()
        return self

    def _read_stdout(self) -> None:
        assert self.popen and self.popen.stdout
        for raw in self.popen.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or nested too deep for the parser
                event = None
            if not isinstance(event, dict) or not isinstance(event.get("event"), str) or event["event"] not in EVENTS:
                self.protocol_error_count += 1
                if len(self.protocol_errors) < QUOTED_LINES:
                    self.protocol_errors.append(line[:QUOTED_CHARS])
                continue
            self.events.put(event)
        self.events.put({"event": "_eof"})

    @property
    def pid(self) -> int:
        assert self.popen
        return self.popen.pid

    def running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def wait_event(self, kinds: tuple[str, ...], timeout: float) -> dict:
        """The next event of one of `kinds`; AdapterError on timeout or exit."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AdapterError(
                    f"{self.name}: no {'/'.join(kinds)} event within {timeout:g} s" + self.stderr_tail_text()
                )
            try:
                event = self.events.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if event["event"] in kinds:
                return event
            if event["event"] == "_eof":
                code = self.popen.wait() if self.popen else None
                self.returncode = code
                raise AdapterError(
                    f"{self.name}: exited with status {code} before {'/'.join(kinds)}" + self.stderr_tail_text()
                )

    def wait_exit(self, timeout: float) -> int | None:
        assert self.popen
        try:
            self.returncode = self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.returncode

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> tuple[int | None, float, bool]:
        """SIGTERM the group, SIGKILL it after `timeout`. Returns (status, seconds, killed)."""
        if self.popen is None:
            return None, 0.0, False
        begun = time.monotonic()
        killed = False
        if self.popen.poll() is None:
            _signal_group(self.popen.pid, signal.SIGTERM)
            # a paused server (SIGSTOP, engine.session) would hold the SIGTERM until continued
            _signal_group(self.popen.pid, signal.SIGCONT)
            if self.wait_exit(timeout) is None:
                killed = True
                _signal_group(self.popen.pid, signal.SIGKILL)
                self.wait_exit(timeout)
        # Children that ignored SIGTERM while the leader exited still die with the group.
        _signal_group(self.popen.pid, signal.SIGKILL)
        self.returncode = self.popen.wait()
        with _live_lock:
            _live.discard(self)
        return self.returncode, time.monotonic() - begun, killed

    # --- diagnostics ---------------------------------------------------------------------

    def protocol_violation(self) -> str | None:
        """Why its stdout broke the line protocol so far (the first lines quoted), or None."""
        if not self.protocol_error_count:
            return None
        quoted = "; ".join(repr(line) for line in self.protocol_errors)
        more = f" (first {len(self.protocol_errors)})" if self.protocol_error_count > len(self.protocol_errors) else ""
        return (
            f"{self.sdk.id} {self.role} broke the protocol: {self.protocol_error_count} stdout line(s) that are "
            f"not contract JSON events{more}: {quoted}"
        )

    def stderr_tail(self, lines: int = 15) -> list[str]:
        try:
            with self.stderr_path.open("rb") as stream:
                tail = deque(stream, maxlen=lines)
        except OSError:
            return []
        return [line.decode("utf-8", "replace").rstrip() for line in tail]

    def stderr_tail_text(self) -> str:
        tail = self.stderr_tail()
        return ("\n--- stderr tail of " + self.name + " ---\n" + "\n".join(tail)) if tail else ""


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_all() -> None:
    with _live_lock:
        live = list(_live)
    for process in live:
        process.stop(timeout=2.0)
