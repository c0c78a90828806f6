"""Drives request/response workloads in closed or open loop (SPEC §3, read and write).

Nothing here knows about OPC UA: a workload supplies `request(session, k)` (the awaitable
service call for request k of a session) and `outcome(session, k, response, measured)`
(judges and verifies a response). Latency is taken when the response arrives, before judging it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, Protocol

from uabench_contract import RETRY_S, Latencies, Recorder

GRACE_S = 5.0
LATE = "no response within 5 s after the measured phase"
UNSENT = "not sent within 5 s after the measured phase (all in_flight slots busy)"
# SPEC §6 latencies: at most this many entries listed, further ones only counted


class Workload(Protocol):
    # requests the workload sends beside its operations (no in_flight slot, no operation:
    # the write workload's read-backs, SPEC §3 W1); the drain waits for them too
    follow_ups: set[asyncio.Task]

    async def request(self, session: int, k: int) -> Any: ...

    def outcome(
        self, session: int, k: int, response: Any, measured: bool
    ) -> tuple[bool, int, str | None]:
        """(succeeded, values transferred, error example); verification is recorded only
        for a measured response, though warm-up does the same work."""

    def describe(self, error: BaseException) -> str:
        """Short error example for a request that raised."""


@dataclass
class Phases:
    """Monotonic nanosecond bounds: load from `start`, measured from `measure_start` to `measure_end`."""

    start: int
    measure_start: int
    measure_end: int

    @classmethod
    def begin_now(cls, warmup_s: float, duration_s: float) -> Phases:
        start = time.perf_counter_ns()
        measure_start = start + int(warmup_s * 1e9)
        return cls(start, measure_start, measure_start + int(duration_s * 1e9))


class LoadDriver:
    def __init__(
        self,
        workload: Workload,
        recorder: Recorder,
        sessions: int,
        in_flight: int,
        rate: float | None,
        think_ms: float = 0,
        record_latencies: bool = False,
        reconnect: bool = False,
    ) -> None:
        self._workload = workload
        self._recorder = recorder
        self._sessions = sessions
        self._in_flight = in_flight
        self._rate = rate
        self._think_ns = int(think_ms * 1e6)
        # SPEC §3 reconnect: a closed-loop slot waits after a failed request, so a dead
        # connection is not spun on while the SDK reconnects
        self._retry_ns = int(RETRY_S * 1e9) if reconnect else 0
        self._record_latencies = record_latencies
        self.latencies: Latencies | None = None

    async def run(self, warmup_s: float, duration_s: float) -> None:
        phases = Phases.begin_now(warmup_s, duration_s)
        wall_offset = time.time_ns() - time.perf_counter_ns()
        self._recorder.start_ns = phases.measure_start + wall_offset
        self._recorder.end_ns = phases.measure_end + wall_offset
        self._recorder.timeline.begin(
            phases.start, phases.measure_end - phases.start, wall_offset
        )
        if self._record_latencies:
            self.latencies = Latencies(phases.start)
        if self._rate is None:
            tasks = [
                asyncio.create_task(self._closed_loop(s, phases))
                for s in range(self._sessions)
            ]
        else:
            tasks = [
                asyncio.create_task(self._open_loop(s, phases))
                for s in range(self._sessions)
            ]
        await asyncio.gather(*tasks)

    async def _operation(
        self, session: int, k: int, start_ns: int, measured: bool
    ) -> bool:
        """Sends request k and counts it; whether it succeeded."""
        if measured and self._rate is not None:
            # SPEC §6 send_lag_ns: handed to the SDK now, start_ns is its scheduled time.
            self._recorder.sent(time.perf_counter_ns() - start_ns)
        try:
            response = await self._workload.request(session, k)
        except asyncio.CancelledError as error:
            task = asyncio.current_task()
            if task is None or task.cancelling():  # the drain gave up on it
                if measured:
                    self._recorder.operation(0, False, 0, LATE)
                raise
            # cancelled inside the SDK (its connection went away), not by the drain
            return await self._failed(error, measured)
        except Exception as error:  # a failed operation is counted, never fatal
            return await self._failed(error, measured)
        end_ns = time.perf_counter_ns()
        ok, values, error = self._workload.outcome(session, k, response, measured)
        if ok:
            self._recorder.timeline.completed(end_ns, values)
        if measured:
            self._recorder.operation(end_ns - start_ns, ok, values, error)
            if ok and self.latencies is not None:
                self.latencies.add(start_ns, end_ns - start_ns)
        return ok

    async def _failed(self, error: BaseException, measured: bool) -> bool:
        if measured:
            self._recorder.operation(0, False, 0, self._workload.describe(error))
        await asyncio.sleep(
            0
        )  # an immediate failure (connection gone) must not hog the loop
        return False

    async def _closed_loop(self, session: int, phases: Phases) -> None:
        counter = iter(range(2**62))

        async def worker() -> None:
            while (now := time.perf_counter_ns()) < phases.measure_end:
                ok = await self._operation(
                    session, next(counter), now, now >= phases.measure_start
                )
                # SPEC §3 think_ms: the slot waits after the response, outside the
                # latency (after a failure at least the retry wait); never past the
                # measured phase, which sends nothing more
                wait_ns = self._think_ns if ok else max(self._think_ns, self._retry_ns)
                if wait_ns:
                    wait_ns = min(wait_ns, phases.measure_end - time.perf_counter_ns())
                    await asyncio.sleep(max(0, wait_ns) / 1e9)

        workers = [asyncio.create_task(worker()) for _ in range(self._in_flight)]
        await self._drain(workers, phases)

    async def _open_loop(self, session: int, phases: Phases) -> None:
        # Request n of session s is due at (n·sessions + s) / rate: the sessions interleave
        # so the total rate is spread evenly. Waiting for a free slot is part of the latency.
        # Requests due inside the phase but still waiting for a slot when it ends are sent
        # during the drain (SPEC §3 "Counting"); any not sent by its end count as failed.
        slots = asyncio.Semaphore(self._in_flight)
        pending: set[asyncio.Task] = set()
        drain_end = phases.measure_end + int(GRACE_S * 1e9)

        async def send(k: int, due: int) -> None:
            try:
                await self._operation(session, k, due, due >= phases.measure_start)
            finally:
                slots.release()

        interval_ns = 1e9 / self._rate

        def due_time(k: int) -> int:
            return phases.start + int((k * self._sessions + session) * interval_ns)

        k = 0
        while (due := due_time(k)) < phases.measure_end:
            delay = due - time.perf_counter_ns()
            if delay > 0:
                await asyncio.sleep(delay / 1e9)
            if not await _acquire_before(slots, drain_end):
                # The drain ended with requests still waiting for a slot: never sent, so
                # those scheduled inside the measured phase failed.
                while (due := due_time(k)) < phases.measure_end:
                    if due >= phases.measure_start:
                        self._recorder.operation(0, False, 0, UNSENT)
                    k += 1
                break
            task = asyncio.create_task(send(k, due))
            pending.add(task)
            task.add_done_callback(pending.discard)
            k += 1
        await self._drain(list(pending), phases)

    async def _drain(self, tasks: list[asyncio.Task], phases: Phases) -> None:
        """Wait for what is still in flight, at most GRACE_S after the measured phase: the
        requests, then what their responses sent (W1's read-backs)."""
        deadline_ns = phases.measure_end + int(GRACE_S * 1e9)
        await _wait_until(tasks, deadline_ns)
        await _wait_until(list(self._workload.follow_ups), deadline_ns)


async def _wait_until(tasks: list[asyncio.Task], deadline_ns: int) -> None:
    """Waits for the tasks until the deadline (monotonic ns), then cancels the rest."""
    if not tasks:
        return
    remaining = (deadline_ns - time.perf_counter_ns()) / 1e9
    _done, late = await asyncio.wait(tasks, timeout=max(0.0, remaining))
    for task in late:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _acquire_before(slots: asyncio.Semaphore, deadline_ns: int) -> bool:
    """Takes a slot, unless none frees up before the deadline (monotonic ns)."""
    if time.perf_counter_ns() >= deadline_ns:
        return False
    if not slots.locked():
        await slots.acquire()
        return True
    try:
        await asyncio.wait_for(
            slots.acquire(), (deadline_ns - time.perf_counter_ns()) / 1e9
        )
    except asyncio.TimeoutError:
        return False
    if time.perf_counter_ns() >= deadline_ns:
        slots.release()
        return False
    return True
