"""The client role: connect the sessions, run one workload, print the result (SPEC §3, §6)."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from concurrent.futures import CancelledError, ThreadPoolExecutor

import uabench_contract as contract
from uabench_contract import validation

from . import SDK_ID, sdk_version
from .connection import ConnectionWatch
from .session import Credentials, Session, request_timeout_s

log = logging.getLogger("uabench.python_opcua.client")

CONNECT_PARALLELISM = 8


def run_client(path: str) -> None:
    try:
        config = validation.check_config("client", contract.load_config(path))
        credentials = Credentials(config["security"])
    except contract.ConfigError as error:
        contract.fail("config", str(error), contract.EXIT_CONFIG)
    except contract.NotSupported as error:
        contract.fail("not_supported", str(error), contract.EXIT_NOT_SUPPORTED)

    timeout_s = request_timeout_s(config)
    sessions = [
        Session(i, config["endpoint"], credentials, timeout_s)
        for i in range(config["sessions"])
    ]
    try:
        connect_all(sessions)
    except Exception as error:
        log.warning("connect failed: %r", error)
        end(
            sessions,
            {
                "event": "error",
                "kind": "connect",
                "message": f"cannot connect to {config['endpoint']}: {describe(error, timeout_s)}",
            },
            contract.EXIT_RUNTIME,
        )
    watch = ConnectionWatch(sessions)
    try:
        for session in sessions:
            session.resolve_namespace()
        if config["workload"] == "subscribe":
            from .subscribe import run_subscribe

            recorder, extra = run_subscribe(sessions, config, watch), {}
        else:
            recorder, extra = run_requests(sessions, config, watch)
        for session in sessions:
            recorder.session_ready(session.setup_ns)
        watch.stop()
    except Exception as error:
        log.exception("workload failed")
        end(
            sessions,
            {
                "event": "error",
                "kind": "runtime",
                "message": describe(error, timeout_s),
            },
            contract.EXIT_RUNTIME,
        )
    end(
        sessions,
        {**recorder.result(SDK_ID, sdk_version(), "client", config), **extra},
        contract.EXIT_OK,
    )


def connect_all(sessions: list[Session]) -> None:
    pool = ThreadPoolExecutor(min(CONNECT_PARALLELISM, len(sessions)))
    try:
        for future in [pool.submit(s.connect) for s in sessions]:
            future.result()
    finally:
        # after the first failure, do not wait for the queued sessions: report at once
        pool.shutdown(wait=False, cancel_futures=True)


def run_requests(
    sessions: list[Session], config: dict, watch: ConnectionWatch
) -> tuple[contract.Recorder, dict]:
    """Runs the read or write workload: its Recorder and the record's keys beside it."""
    from .pipeline import Phases, RequestPipeline, Tally, verify_writes

    phases = Phases(config["warmup_s"], config["duration_s"])
    tally = Tally(config, phases, watch)
    tally.recorder.timeline.begin(
        phases.t0, phases.measure_end - phases.t0, phases.wall_offset
    )
    pipelines = [RequestPipeline(s, config, phases, tally) for s in sessions]
    for pipeline in pipelines:
        pipeline.thread.start()
    for pipeline in pipelines:
        pipeline.thread.join()
    tally.recorder.start_ns = phases.wall(phases.measure_start)
    tally.recorder.end_ns = phases.wall(phases.measure_end)
    if config["workload"] == "write" and config["verify"]:
        verify_writes(sessions[0], config["nodes"], config["nodes_per_request"], tally)
    tally.recorder.ticks_advanced = tally.verifier.ticks_advanced  # SPEC §6, R3
    if tally.latencies is None:
        return tally.recorder, {}
    return tally.recorder, {"latencies": tally.latencies.record()}  # SPEC §6


def describe(error: BaseException, timeout_s: float) -> str:
    text = str(error) or type(error).__name__
    if isinstance(error, TimeoutError):
        # e.g. python-opcua's client ignores the server's Error message on a rejected
        # OpenSecureChannel and only times out; the reason is logged on stderr
        text = f"no response within {timeout_s:g} s (TimeoutError)"
    elif isinstance(error, CancelledError):
        text = "the connection closed before the server answered (CancelledError)"
    return text if len(text) <= 300 else text[:297] + "..."


def end(sessions: list[Session], event: dict, code: int) -> None:
    """Prints the final line, closes the sessions (bounded in time) and exits. os._exit,
    because python-opcua's receive and keep-alive threads are not daemons and a dead
    server would otherwise keep the process alive."""
    contract.emit(event)
    if code == contract.EXIT_RUNTIME and event.get("kind"):
        sys.stderr.write(f"{event['kind']}: {event['message']}\n")
    closers = [threading.Thread(target=s.disconnect, daemon=True) for s in sessions]
    for closer in closers:
        closer.start()
    deadline = time.monotonic() + 3.0
    for closer in closers:
        closer.join(max(0.0, deadline - time.monotonic()))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
