"""`run client`: opens the sessions, runs one workload, prints the result record."""

from __future__ import annotations

import logging
import time

import uabench_contract as contract
from uabench_contract import Connection, Recorder

from .connection import in_time_order
from .load import LoadDriver
from .services import ReadWorkload, WriteWorkload
from .session import ConnectError, close_sessions, open_sessions

log = logging.getLogger("uabench_asyncua.client")


async def run_client(config: dict, sdk: str, version: str) -> None:
    in_flight = config.get("in_flight", 1)
    try:
        sessions = await open_sessions(config, in_flight)
    except ConnectError as error:
        contract.fail("connect", str(error), contract.EXIT_RUNTIME)
    recorder = Recorder(config["timeline_ms"])
    recorder.connection = Connection(len(sessions))
    for index, session in enumerate(sessions):
        recorder.session_ready(session.setup_ns)
        session.watch_connection(
            index, recorder.connection, config["workload"] == "subscribe"
        )
    try:
        if config["workload"] == "subscribe":
            from .subscribe import run_subscriptions

            extra = await run_subscriptions(sessions, config, recorder)
        else:
            extra = await run_requests(sessions, config, recorder)
    except Exception as error:
        log.exception("workload failed")
        await close_sessions(sessions)
        contract.fail(
            "runtime", f"{type(error).__name__}: {error}", contract.EXIT_RUNTIME
        )
    for session in sessions:
        if session.watch is not None:  # subscribe: back, the subscriptions not yet said
            session.watch.subscriptions("unknown")
    in_time_order(recorder.connection)
    await close_sessions(sessions)
    contract.emit({**recorder.result(sdk, version, "client", config), **extra})


async def run_requests(sessions: list, config: dict, recorder: Recorder) -> dict:
    """Runs the read or write workload; returns the record's keys beside the Recorder's."""
    kind = ReadWorkload if config["workload"] == "read" else WriteWorkload
    workload = kind(sessions, config, recorder)
    driver = LoadDriver(
        workload,
        recorder,
        len(sessions),
        config["in_flight"],
        config["rate"],
        config["think_ms"],
        config["record_latencies"],
        config["reconnect"],
    )
    await driver.run(config["warmup_s"], config["duration_s"])
    if isinstance(workload, WriteWorkload) and config["verify"]:
        await workload.verify_written(pattern=time.time_ns() // 1_000_000 % 1000 + 1)
    if isinstance(workload, ReadWorkload):
        recorder.ticks_advanced = workload.verifier.ticks_advanced  # SPEC §6, R3
    if driver.latencies is None:
        return {}
    return {"latencies": driver.latencies.record()}  # SPEC §6, record_latencies
