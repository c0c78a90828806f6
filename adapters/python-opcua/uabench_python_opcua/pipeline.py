"""Read and write workloads: one request pipeline per session (SPEC §3).

python-opcua's client is synchronous, but underneath UaClient.read/write sits
UASocketClient.send_request(request, callback): it encodes and sends under a lock, returns
at once and completes the callback from the session's receive thread when the response
with that RequestId arrives. The pipeline uses exactly that to keep up to `in_flight`
requests outstanding on one SecureChannel (truly pipelined on the wire, no thread per
outstanding request). Closed loop: each completion sends the next request from the receive
thread (waking another thread per request costs more than the request under the GIL).
With a think time (think_ms) a completion queues its slot's next send instead, and the
session's sender thread sends it when the think time is over. Open loop: one sender thread
per session sends at the scheduled times; a semaphore holds the free in_flight slots.
"""

from __future__ import annotations

import functools
import heapq
import logging
import math
import threading
import time

from opcua import ua
from opcua.ua.ua_binary import nodeid_from_binary, struct_from_binary
import uabench_contract as contract
from uabench_contract import RETRY_S, Latencies
from uabench_contract.read_verification import NONE_YET, ReadVerifier
from uabench_contract.write_verification import LowestInFlight, WriteReadBack, sampled

from .connection import CLOSED, ConnectionWatch, connection_error
from .session import Session, read_parameters, write_parameters

log = logging.getLogger("uabench.python_opcua.pipeline")

GRACE_NS = (
    5_000_000_000  # after the measured phase: wait this long for requests in flight
)
SERVICE_FAULT = ua.FourByteNodeId(ua.ObjectIds.ServiceFault_Encoding_DefaultBinary)
LATE = "no response within 5 s after the measured phase"
# SPEC §6 latencies: at most this many entries listed, further ones only counted


class Phases:
    """Phase boundaries shared by all sessions, on the perf_counter_ns clock."""

    def __init__(self, warmup_s: float, duration_s: float) -> None:
        self.wall_offset = time.time_ns() - time.perf_counter_ns()
        self.t0 = (
            time.perf_counter_ns() + 10_000_000
        )  # let every sender thread start first
        self.measure_start = self.t0 + round(warmup_s * 1e9)
        self.measure_end = self.measure_start + round(duration_s * 1e9)
        self.grace_end = self.measure_end + GRACE_NS

    def wall(self, perf_ns: int) -> int:
        return perf_ns + self.wall_offset


class Tally:
    """The run's Recorder, read verifier, write read-back (W1) and latencies, shared by the
    sessions' receive threads."""

    def __init__(self, config: dict, phases: Phases, watch: ConnectionWatch) -> None:
        self.recorder = contract.Recorder(config["timeline_ms"])
        self.recorder.connection = watch.connection
        self.watch = watch
        self.latencies = Latencies(phases.t0) if config["record_latencies"] else None
        self.lock = threading.Lock()
        self.verify = config["verify"]
        self.verifier = ReadVerifier(config["nodes"], config["sessions"], self.recorder)
        self.read_back: WriteReadBack | None = None
        if self.verify and config["workload"] == "write":
            self.read_back = WriteReadBack(
                config["nodes"],
                config["sessions"],
                config["nodes_per_request"],
                self.recorder,
            )


class ReadBack:
    """W1: the Read of session 0's sampled write `number`'s nodes, in flight beside the
    requests (no in_flight slot); `lowest` is C from the write's send."""

    __slots__ = ("number", "names", "lowest", "finished")

    def __init__(self, number: int, names: list[str], lowest: int) -> None:
        self.number, self.names, self.lowest = number, names, lowest
        self.finished = False


class Operation:
    __slots__ = (
        "number",
        "names",
        "scheduled",
        "measured",
        "finished",
        "settled",
        "sent",
        "sent_high",
        "lowest",
    )

    def __init__(
        self, number: int, names: list[str], scheduled: int, measured: bool
    ) -> None:
        self.number, self.names, self.scheduled, self.measured = (
            number,
            names,
            scheduled,
            measured,
        )
        self.finished = False
        # taken by whoever goes on with its slot: its completion, or (reconnect) its timeout
        self.settled = False
        self.sent = 0  # perf ns of the send call
        self.sent_high = NONE_YET  # R2: the session's high-water tick before the send
        self.lowest: int | None = None  # W1's C if session 0 reads this write back


class DueSends:
    """The closed loop's slots waiting to send their next request, each from an instant:
    after a think time, or (reconnect) the wait after a failed request."""

    def __init__(self) -> None:
        self._due: list[int] = []
        self._changed = threading.Condition()

    def put(self, due: int) -> None:
        with self._changed:
            heapq.heappush(self._due, due)
            self._changed.notify()

    def wait(self, end: int) -> bool:
        """Waits for the earliest instant (perf ns) and takes it; False at `end`."""
        with self._changed:
            while (now := time.perf_counter_ns()) < end:
                if self._due and self._due[0] <= now:
                    heapq.heappop(self._due)
                    return True
                until = min(self._due[0], end) if self._due else end
                self._changed.wait((until - now) / 1e9)
            return False


class RequestPipeline:
    def __init__(
        self, session: Session, config: dict, phases: Phases, tally: Tally
    ) -> None:
        self.session = session
        self.workload = config["workload"]
        self.nodes = config["nodes"]
        self.per_request = config["nodes_per_request"]
        self.phases, self.tally = phases, tally
        self.in_flight = config["in_flight"]
        self.slots = threading.Semaphore(
            self.in_flight
        )  # open loop: free in_flight slots
        self.numbering = (
            threading.Lock()
        )  # closed loop: request numbers, taken by completions
        self.next_number = 0
        self.broken: str | None = None  # why sending failed: the connection is gone
        # SPEC §3 reconnect: the run goes on through a lost connection, failing its
        # requests (python-opcua does not reconnect); a closed-loop slot waits after each
        self.reconnect = config["reconnect"]
        self.retry_ns = round(RETRY_S * 1e9) if self.reconnect else 0
        self.timeout_ns = round(session.timeout_s * 1e9)  # _expire
        self.timeout_error = f"no response within {session.timeout_s:g} s (Timeout)"
        self.over = threading.Event()  # the drain is over
        self.rate = config["rate"]
        # SPEC §3 think_ms (closed loop): completions queue their slot's next send instant
        self.think_ns = round(config["think_ms"] * 1e6)
        self.due = DueSends()
        if self.rate is not None:
            # The total rate is spread evenly: each session sends every `interval` ns,
            # and the sessions are staggered by interval / sessions.
            self.interval = config["sessions"] / self.rate * 1e9
            self.offset = session.index / config["sessions"]
        self.outstanding: dict[int, Operation] = {}
        # W1 (SPEC §3): session 0 reads back a sample of its writes under load
        self.read_back = tally.read_back if session.index == 0 else None
        self.in_flight_writes = LowestInFlight()
        self.read_backs: set[ReadBack] = set()  # sent or about to be, not yet answered
        self.all_done = threading.Condition(tally.lock)
        self.node_ids = {name: session.node_id(name) for name in self.nodes}
        self._read_cache: dict[int, ua.ReadParameters] = {}
        self._cycle = len(self.nodes) // math.gcd(len(self.nodes), self.per_request)
        self.thread = threading.Thread(
            target=self.run, name=f"session-{session.index}", daemon=True
        )

    # --- sending -------------------------------------------------------------------------

    def run(self) -> None:
        if self.reconnect:
            threading.Thread(target=self._expire, daemon=True).start()
        try:
            unsent = self._closed_loop() if self.rate is None else self._open_loop()
        except Exception as error:  # never leave the run hanging on a dead sender
            log.exception("session %d stopped sending", self.session.index)
            unsent = None, f"sender stopped: {error}"
        self._count_unsent(*unsent)
        self._wait_for_outstanding()

    def _closed_loop(self) -> tuple[None, str]:
        """The first `in_flight` requests go out here; after that each completion sends the
        next request itself, from the receive thread, so no thread handoff per request."""
        for _ in range(self.in_flight):
            if not self._send_next():
                break
        if self.think_ns or self.retry_ns:
            self._send_when_due()
        time.sleep(max(0.0, (self.phases.measure_end - time.perf_counter_ns()) / 1e9))
        return None, ""

    def _send_when_due(self) -> None:
        """Sends each slot's next request when its think time or retry wait is over."""
        while not self.broken and self.due.wait(self.phases.measure_end):
            self._send_next()

    def _send_next(self) -> bool:
        now = time.perf_counter_ns()
        if now >= self.phases.measure_end or self.broken:
            return False
        with self.numbering:
            number, self.next_number = self.next_number, self.next_number + 1
        return self._send(number, now)

    def _open_loop(self) -> tuple[int | None, str]:
        """Sends at the scheduled times until the measured phase ends. Returns the number of
        the first scheduled request that was never sent, with the reason."""
        phases, number = self.phases, 0
        while True:
            scheduled = phases.t0 + round((number + self.offset) * self.interval)
            if scheduled >= phases.measure_end:
                return None, ""
            delay = scheduled - time.perf_counter_ns()
            if delay > 0:
                time.sleep(delay / 1e9)
            # A late request is still sent, until the grace period ends; the wait for a
            # slot is part of its latency, measured from `scheduled`.
            if not self.slots.acquire(
                timeout=max(0.0, (phases.grace_end - time.perf_counter_ns()) / 1e9)
            ):
                return (
                    number,
                    "not sent: no free in_flight slot before the grace period ended",
                )
            if not self._send(number, scheduled):
                self.slots.release()
                return number + 1, f"not sent: connection lost ({self.broken})"
            number += 1

    def _send(self, number: int, scheduled: int) -> bool:
        names = contract.request_nodes(self.nodes, number, self.per_request)
        operation = Operation(
            number, names, scheduled, scheduled >= self.phases.measure_start
        )
        with self.tally.lock:
            self.outstanding[number] = operation
            operation.sent_high = self.tally.verifier.high_water(self.session.index)
            if self.read_back is not None and sampled(number):
                operation.lowest = self.in_flight_writes.lowest
        try:
            request = self._request(number, names)
            sent = operation.sent = time.perf_counter_ns()
            self.session.channel.send_request(
                request, callback=functools.partial(self._completed, operation)
            )
        except Exception as error:
            why = str(error) or type(error).__name__
            if not self.reconnect:
                self.broken = why
            if self._settle(operation):
                now = time.perf_counter_ns()
                # a socket that cannot send: the connection is gone
                lost = isinstance(error, OSError)
                self._finish(operation, now, False, 0, f"send failed: {why}", lost)
                if not self.broken:
                    self._next(now, False)
            return not self.broken
        if self.rate is not None and operation.measured:
            # SPEC §6 send_lag_ns: the instant the request went to the SDK's send call.
            with self.tally.lock:
                self.tally.recorder.sent(sent - scheduled)
        return True

    def _settle(self, operation: Operation) -> bool:
        """Takes the operation's slot on; False if its timeout or completion already has."""
        with self.tally.lock:
            if operation.settled:
                return False
            operation.settled = True
            return True

    def _next(self, done: int, ok: bool) -> None:
        """The slot of a request that is over goes on: open loop, it is free; closed loop,
        it sends the next request, after the think time (and after a failed request, with
        reconnect, at least the retry wait)."""
        if self.rate is not None:
            self.slots.release()
            return
        wait = self.think_ns if ok else max(self.think_ns, self.retry_ns)
        if wait:
            self.due.put(done + wait)
        else:
            self._send_next()

    def _request(self, number: int, names: list[str]):
        if self.workload == "read":
            return self._read_request(number, names)
        request = ua.WriteRequest()
        values = [
            contract.write_value(self.session.index, number, self.per_request, j)
            for j in range(len(names))
        ]
        request.Parameters = write_parameters([self.node_ids[n] for n in names], values)
        return request

    def _read_request(self, number: int, names: list[str]) -> ua.ReadRequest:
        """Reads the nodes of request `number` (the read workload's request, or W1's
        read-back of that write)."""
        request = ua.ReadRequest()
        key = number % self._cycle
        if key not in self._read_cache:
            self._read_cache[key] = read_parameters([self.node_ids[n] for n in names])
        request.Parameters = self._read_cache[key]
        return request

    # --- completing ----------------------------------------------------------------------

    def _completed(self, operation: Operation, future) -> None:
        """Runs on the session's receive thread (or the thread that failed to send)."""
        done = time.perf_counter_ns()
        if not self._settle(operation):
            return  # already failed by its timeout, which sent the slot on
        ok = False
        try:
            ok = self._account(operation, future, done)
        finally:
            self._next(done, ok)

    def _account(self, operation: Operation, future, done: int) -> bool:
        kind = ua.ReadResponse if self.workload == "read" else ua.WriteResponse
        response, error = decode(future, kind)
        if response is None:
            self._finish(operation, done, False, 0, error, connection_error(error))
            return False
        results = response.Results
        if len(results) != len(operation.names):
            self._finish(
                operation,
                done,
                False,
                0,
                f"{len(results)} results for {len(operation.names)} nodes",
            )
            return False
        statuses = (
            [r.StatusCode for r in results] if self.workload == "read" else results
        )
        for name, status in zip(operation.names, statuses, strict=True):
            if not status.is_good():
                self._finish(operation, done, False, 0, f"{name}: {status.name}")
                return False
        read_back = self._finish(
            operation, done, True, len(results), None, results=results
        )
        if read_back is not None:
            self._send_read_back(read_back)
        return True

    def _expire(self) -> None:
        """reconnect: a request without a response after the SDK's request timeout (the
        Client's `timeout`, which python-opcua applies to its synchronous calls only) has
        failed, and its slot goes on."""
        while not self.over.wait(0.1):
            now = time.perf_counter_ns()
            with self.tally.lock:
                late = [
                    operation
                    for operation in self.outstanding.values()
                    if operation.sent
                    and not operation.settled
                    and now - operation.sent >= self.timeout_ns
                ]
                for operation in late:
                    operation.settled = True
            for operation in late:
                self._finish(operation, now, False, 0, self.timeout_error, lost=True)
                self._next(now, False)

    def _finish(
        self, operation, done, ok, values, error, lost=False, results=None
    ) -> ReadBack | None:
        """Counts the operation; returns W1's read-back to send now, if it is one. `lost`:
        it failed with a connection status or error (SPEC §3 Connection loss)."""
        tally = self.tally
        with tally.lock:
            if operation.finished:  # already counted as timed out
                return None
            operation.finished = True
            del self.outstanding[operation.number]
            if self.read_back is not None:
                self.in_flight_writes.finished(operation.number)
            recorder = tally.recorder
            if ok:
                recorder.timeline.completed(done, values)
                tally.watch.succeeded(self.session.index, operation.sent)
            elif lost:
                tally.watch.lost(self.session.index)
            if operation.measured:
                recorder.operation(done - operation.scheduled, ok, values, error)
                if ok and tally.latencies is not None:
                    tally.latencies.add(operation.scheduled, done - operation.scheduled)
            if ok and tally.verify and self.workload == "read":
                # R1–R5 (SPEC §3). Warm-up verifies too (the same work as the measured
                # phase), unrecorded. R2 against what had arrived before the send.
                tally.verifier.response(
                    self.session.index,
                    operation.names,
                    results,
                    self.phases.wall(done) / 1e9,
                    operation.measured,
                    sent_high=operation.sent_high,
                )
            read_back = None
            if ok and operation.measured and operation.lowest is not None:
                # W1: counted from here, so the drain waits for it
                read_back = ReadBack(
                    operation.number, operation.names, operation.lowest
                )
                self.read_backs.add(read_back)
            if not self.outstanding and not self.read_backs:
                self.all_done.notify_all()
        return read_back

    def _send_read_back(self, read_back: ReadBack) -> None:
        """W1: at once, on the same channel, beside the in_flight requests."""
        request = self._read_request(read_back.number, read_back.names)
        try:
            self.session.channel.send_request(
                request, callback=functools.partial(self._read_back_done, read_back)
            )
        except Exception as error:
            self._read_back_over(read_back, None, f"send failed: {error}")

    def _read_back_done(self, read_back: ReadBack, future) -> None:
        """Runs on the session's receive thread."""
        response, error = decode(future, ua.ReadResponse)
        self._read_back_over(read_back, response, error)

    def _read_back_over(self, read_back: ReadBack, response, error) -> None:
        tally = self.tally
        assert self.read_back is not None
        with tally.lock:
            if read_back.finished:  # already failed as unanswered
                return
            read_back.finished = True
            self.read_backs.discard(read_back)
            if response is None:
                self.read_back.failed(read_back.names, error)
            else:
                self.read_back.response(
                    read_back.names,
                    response.Results,
                    read_back.lowest,
                    read_back.number,
                )
            if not self.outstanding and not self.read_backs:
                self.all_done.notify_all()

    # --- the end of the run --------------------------------------------------------------

    def _count_unsent(self, first_unsent: int | None, reason: str) -> None:
        """Open loop: requests scheduled inside the measured phase that were never sent are
        attempted and failed."""
        if first_unsent is None or self.rate is None:
            return
        phases, number = self.phases, first_unsent
        with self.tally.lock:
            while True:
                scheduled = phases.t0 + round((number + self.offset) * self.interval)
                if scheduled >= phases.measure_end:
                    break
                if scheduled >= phases.measure_start:
                    self.tally.recorder.operation(0, False, 0, reason)
                number += 1

    def _wait_for_outstanding(self) -> None:
        phases = self.phases
        with self.tally.lock:
            while self.read_backs or any(
                op.measured for op in self.outstanding.values()
            ):
                remaining = (phases.grace_end - time.perf_counter_ns()) / 1e9
                if remaining <= 0:
                    break
                self.all_done.wait(remaining)
            for operation in list(self.outstanding.values()):
                operation.finished = True
                if operation.measured:
                    self.tally.recorder.operation(0, False, 0, LATE)
            self.outstanding.clear()
            for read_back in self.read_backs:  # W1: each of its values fails
                read_back.finished = True
                assert self.read_back is not None
                self.read_back.failed(read_back.names, LATE)
            self.read_backs.clear()
        self.over.set()


def decode(future, kind) -> tuple:
    """(the response, None) for a request's completed future, or (None, why there is
    none): closed connection, ServiceFault, undecodable or a Bad ServiceResult."""
    if future.cancelled():
        return None, CLOSED
    try:
        data = future.result()
        if nodeid_from_binary(data.copy()) == SERVICE_FAULT:
            fault = struct_from_binary(ua.ServiceFault, data)
            return None, fault.ResponseHeader.ServiceResult.name
        response = struct_from_binary(kind, data)
    except Exception as error:
        return None, f"bad response: {error}"
    service = response.ResponseHeader.ServiceResult
    if not service.is_good():
        return None, service.name
    return response, None


def verify_writes(
    session: Session, nodes: list[str], per_request: int, tally: Tally
) -> None:
    """SPEC §3: session 0 writes a per-run pattern to every node, reads all back."""
    pattern = time.time_ns() // 1_000_000 % 1000 + 1
    expected = {}
    for position, name in enumerate(nodes):  # a node listed twice keeps its last value
        expected[name] = contract.write_verification_value(pattern, position)
    recorder, checked = tally.recorder, 0
    try:
        for start in range(0, len(nodes), per_request):
            chunk = nodes[start : start + per_request]
            session.write(
                chunk,
                [
                    contract.write_verification_value(pattern, start + i)
                    for i in range(len(chunk))
                ],
            )
        for start in range(0, len(nodes), per_request):
            chunk = nodes[start : start + per_request]
            checked += _check_read_back(session, chunk, expected, tally)
    except Exception as error:  # every value not read back is a verification failure
        with tally.lock:
            for name in nodes[checked:]:
                recorder.verification(f"{name}: write verification failed: {error}")


def _check_read_back(
    session: Session, chunk: list[str], expected: dict, tally: Tally
) -> int:
    recorder = tally.recorder
    results = session.read(chunk)
    for position, name in enumerate(chunk):
        data_value = results[position] if position < len(results) else None
        if data_value is None:
            got = "no result"
        elif data_value.StatusCode.is_good():
            got = data_value.Value.Value
        else:
            got = data_value.StatusCode.name
        failure = None
        if got != expected[name]:
            failure = f"{name}: wrote {expected[name]!r}, read back {got!r}"
        with tally.lock:
            recorder.verification(failure)
    return len(chunk)
