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
from typing import TypeGuard

import psutil
import uabench_contract as contract

from uabench import targets
from uabench.containers import isolation
from uabench.proc import cleanup, launcher
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
        # when the first event of each kind was read (a server's start-up: started_ns to "ready")
        self.arrived_ns: dict[str, int] = {}
        # Where its role is placed (targets/). A container (containers/isolation.py): the engine's
        # CLI is `popen`, the adapter is the container's process `adapter_pid` (host pid), named
        # `container`. An SSH target (targets/ssh.py): `popen` is the local launcher, the adapter
        # runs on the target as `remote_role`.
        self.target = targets.for_role(role)
        self.containers = self.target if isinstance(self.target, isolation.Containers) else None
        self.remote: targets.RemoteTarget | None = self.target if _is_ssh(self.target) else None
        self.remote_role: str | None = None
        self.container: str | None = None
        self.adapter_pid: int | None = None
        self._adapter: psutil.Process | None = None

    # --- lifecycle ---------------------------------------------------------------------

    def start(self) -> AdapterProcess:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(json.dumps(self.config, indent=1))
        stderr = self.stderr_path.open("ab")
        cpus = self.cpus
        arguments = [self.role, "--config", str(self.config_path)]
        if self.remote is not None:
            if self.prefix:
                raise AdapterError(f"{self.name}: a namespaced host cannot run on {self.remote.spec}")
            command = self.remote.command(self.sdk.id, arguments)
            # the launcher passes SIGTERM on to the remote adapter when the harness is killed
            preexec = launcher.preexec(death_signal=signal.SIGTERM)
        elif self.containers is None:
            command = [*self.prefix, str(self.sdk.run), *arguments]
            # dies with the harness even on SIGKILL (proc/launcher.py)
            preexec = launcher.preexec((lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        else:
            if self.prefix:  # `docker run --network host` joins the daemon's network, not a namespace's
                raise AdapterError(f"{self.name}: a namespaced host cannot run in a container (--isolation host)")
            self.container = isolation.container_name(self.name)
            nodesets = [p for p in self.config.get("nodesets") or [] if isinstance(p, str) and Path(p).is_file()]
            command = self.containers.command(self.sdk.id, arguments, self.workdir, self.container, cpus, nodesets)
            # the CLI passes SIGTERM on to the container when the harness is killed
            preexec = launcher.preexec(death_signal=signal.SIGTERM)
        if self.sdk.environment and (self.remote is not None or self.containers is not None):
            raise AdapterError(f"{self.name}: {self.sdk.id} runs on the host only (its image holds the pinned version)")
        self.started_ns = time.time_ns()
        self.popen = subprocess.Popen(
            command,
            env={**os.environ, **self.sdk.environment} if self.sdk.environment else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,  # own process group: one signal reaches the whole tree
            preexec_fn=preexec,
        )
        stderr.close()
        if self.remote is not None:
            self.remote_role = self.remote.role_name(self.popen.pid)
        with _live_lock:
            _live.add(self)
        threading.Thread(target=self._read_stdout, name=f"{self.name}-stdout", daemon=True).start()
        if self.containers is not None and self.container is not None:
            self.adapter_pid = isolation.container_pid(
                self.containers.engine, self.container, self.popen, READY_TIMEOUT_S
            )
            if self.adapter_pid is not None:
                try:
                    self._adapter = psutil.Process(self.adapter_pid)
                except psutil.NoSuchProcess:  # it ended already: its CLI ends too, and says why
                    self.adapter_pid = None
            elif self.popen.poll() is None:  # never sample or signal the CLI in its place
                self.stop(timeout=2.0)
                isolation.remove(self.containers.engine, self.container)
                raise AdapterError(
                    f"{self.name}: container {self.container} did not run within {READY_TIMEOUT_S:g} s"
                    + self.stderr_tail_text()
                )
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
            self.arrived_ns.setdefault(event["event"], time.time_ns())
            if self.remote is not None and event["event"] == "result":
                on_local_clock(event, self.remote.offset_ns)
            self.events.put(event)
        self.events.put({"event": "_eof"})

    @property
    def pid(self) -> int:
        """The adapter's pid and process group: the one sampled and signalled (in a container,
        its host pid; the engine's CLI when the container never ran, which then ends at once)."""
        assert self.popen
        return self.adapter_pid or self.popen.pid

    @property
    def ready_timeout_s(self) -> float:
        """How long its ready event may take: the contract's, or its target's (emulation, a Pi)."""
        return max(READY_TIMEOUT_S, self.target.ready_timeout_s) if self.target is not None else READY_TIMEOUT_S

    def signal(self, sig: int) -> None:
        """`sig` to the adapter's process group while it runs. In a container only while the
        process found at start still runs (same start time): its host pid is not this harness's
        child, and once it has gone the number may be another process's. On an SSH target a
        pause or continue goes to the remote adapter, a SIGTERM to the launcher, which passes it
        on; a SIGKILL to both."""
        if self.popen is None or self.popen.poll() is not None:
            return
        if self.remote is not None and self.remote_role is not None:
            if sig in (signal.SIGSTOP, signal.SIGCONT, signal.SIGKILL):
                self.remote.signal(self.remote_role, sig)
            if sig != signal.SIGSTOP and sig != signal.SIGCONT:
                _signal_group(self.popen.pid, sig)
            return
        if self.adapter_pid is None:
            _signal_group(self.popen.pid, sig)
            return
        if self._adapter is not None and self._adapter.is_running():
            _signal_group(self.adapter_pid, sig)

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
            self.signal(signal.SIGTERM)
            # a paused server (SIGSTOP, engine.session) would hold the SIGTERM until continued
            self.signal(signal.SIGCONT)
            if self.wait_exit(timeout) is None:
                killed = True
                self.signal(signal.SIGKILL)
                _signal_group(self.popen.pid, signal.SIGKILL)
                self.wait_exit(timeout)
        # Children that ignored SIGTERM while the leader exited still die with the group (the
        # engine's CLI in a container run; the container's own processes go with the container).
        _signal_group(self.popen.pid, signal.SIGKILL)
        self.returncode = self.popen.wait()
        if self.containers is not None and self.container is not None and killed:
            isolation.remove(self.containers.engine, self.container)
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


def on_local_clock(record: dict, offset_ns: int) -> None:
    """A result record of a role on another machine, its wall-clock times (SPEC §6: start_ns and
    end_ns, the timeline's start, each latency's send time, a connection event's time) moved onto
    this machine's clock by the target's offset (remote − local), in place: its window is read
    from the samplers of every process, which are on this clock (targets/ssh.RemoteSampler)."""
    for key in ("start_ns", "end_ns"):
        if isinstance(record.get(key), int):
            record[key] -= offset_ns
    timeline = record.get("timeline")
    if isinstance(timeline, dict) and isinstance(timeline.get("start_ns"), int):
        timeline["start_ns"] -= offset_ns
    latencies = record.get("latencies")
    if isinstance(latencies, dict) and isinstance(latencies.get("send_ns"), list):
        latencies["send_ns"] = [t - offset_ns if isinstance(t, int) else t for t in latencies["send_ns"]]
    connection = record.get("connection")
    for event in (connection.get("events") or []) if isinstance(connection, dict) else []:
        if isinstance(event, dict) and isinstance(event.get("t_ns"), int):
            event["t_ns"] -= offset_ns


def _is_ssh(target: object) -> TypeGuard[targets.RemoteTarget]:
    return getattr(target, "kind", "") == "ssh"


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


cleanup.on_remove(stop_all)  # at exit and on a signal, before the namespaces and cgroups go
