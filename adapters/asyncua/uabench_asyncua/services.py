"""The read and write workloads as asyncua Read/Write service calls."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from asyncua import ua

import uabench_contract as contract
from uabench_contract import Recorder
from uabench_contract.read_verification import ReadVerifier
from uabench_contract.write_verification import LowestInFlight, WriteReadBack, sampled

from . import compat
from .load import LATE
from .session import Session, request_timeout_s

VALUE = ua.AttributeIds.Value
# structs whose fields asyncua 1.1.8 names differently (compat.struct): ua.X itself on 2.x
ReadValueId = compat.struct(ua.ReadValueId)
ReadParameters = compat.struct(ua.ReadParameters)
WriteValue = compat.struct(ua.WriteValue)
DataValue = compat.struct(ua.DataValue)
T = TypeVar("T")


def status_error(codes: list[ua.StatusCode]) -> str | None:
    for code in codes:
        if not code.is_good():
            return code.name
    return None


class ServiceWorkload:
    """Shared by read and write: request k of a session carries request_nodes(nodes, k, n)."""

    def __init__(
        self, sessions: list[Session], config: dict, recorder: Recorder
    ) -> None:
        self.sessions = sessions
        self.nodes: list[str] = config["nodes"]
        self.per_request: int = config["nodes_per_request"]
        self.verify: bool = config["verify"]
        self.recorder = recorder
        self.request_timeout_s = request_timeout_s(config)
        # requests the drain waits for beside the workload's own (W1's read-backs)
        self.follow_ups: set[asyncio.Task] = set()

    def names(self, k: int) -> list[str]:
        return contract.request_nodes(self.nodes, k, self.per_request)

    def describe(self, error: BaseException) -> str:
        if isinstance(error, ua.UaStatusCodeError):
            return ua.StatusCode(error.code).name
        if isinstance(error, TimeoutError):
            return "Timeout"
        text = str(error) or type(error).__name__
        return text if len(text) <= 100 else text[:97] + "..."


class ReadWorkload(ServiceWorkload):
    def __init__(
        self, sessions: list[Session], config: dict, recorder: Recorder
    ) -> None:
        super().__init__(sessions, config, recorder)
        # Request k's nodes depend only on k·n mod len(nodes): build each parameter set once.
        self._parameters: list[dict[int, ua.ReadParameters]] = [{} for _ in sessions]
        self.verifier = ReadVerifier(self.nodes, len(sessions), recorder)

    def _read_parameters(self, session: int, k: int) -> ua.ReadParameters:
        offset = (k * self.per_request) % len(self.nodes)
        cache = self._parameters[session]
        parameters = cache.get(offset)
        if parameters is None:
            s = self.sessions[session]
            parameters = cache[offset] = ReadParameters(
                NodesToRead=[
                    ReadValueId(NodeId=s.nodeid(n), AttributeId=VALUE)
                    for n in self.names(k)
                ],
                MaxAge=0,
                TimestampsToReturn=ua.TimestampsToReturn.Source,
            )
        return parameters

    async def request(self, session: int, k: int) -> tuple[int, list[ua.DataValue]]:
        """(the session's high-water tick before the send, R2; the response's values)"""
        sent_high = self.verifier.high_water(session)
        values = await self.sessions[session].read(self._read_parameters(session, k))
        return sent_high, values

    def outcome(
        self,
        session: int,
        k: int,
        response: tuple[int, list[ua.DataValue]],
        measured: bool,
    ) -> tuple[bool, int, str | None]:
        sent_high, response_values = response
        error = status_error([dv.StatusCode for dv in response_values])
        if error is None and len(response_values) != self.per_request:
            error = f"got {len(response_values)} results for {self.per_request} nodes"
        if error:
            return False, 0, error
        if self.verify:
            # R1–R5 (SPEC §3), R2 against what had arrived before this request was sent
            self.verifier.response(
                session,
                self.names(k),
                response_values,
                time.time(),
                measured,
                sent_high=sent_high,
            )
        return True, len(response_values), None


class WriteWorkload(ServiceWorkload):
    def __init__(
        self, sessions: list[Session], config: dict, recorder: Recorder
    ) -> None:
        super().__init__(sessions, config, recorder)
        # W1 (SPEC §3): session 0 reads back a sample of its writes under load
        self.read_back: WriteReadBack | None = None
        self._in_flight = LowestInFlight()
        if self.verify:
            self.read_back = WriteReadBack(
                self.nodes, len(sessions), self.per_request, recorder
            )

    async def request(
        self, session: int, k: int
    ) -> tuple[int | None, list[ua.StatusCode]]:
        """(W1's C if request k is one session 0 reads back, else None; the results)"""
        s = self.sessions[session]
        values = [
            WriteValue(
                NodeId=s.nodeid(name),
                AttributeId=VALUE,
                Value=_value_only(
                    contract.write_value(session, k, self.per_request, j)
                ),
            )
            for j, name in enumerate(self.names(k))
        ]
        tracked = session == 0 and self.read_back is not None
        lowest = self._in_flight.lowest if tracked and sampled(k) else None
        try:
            results = await s.write(ua.WriteParameters(NodesToWrite=values))
        finally:
            if tracked:  # answered, failed or given up: no longer in flight
                self._in_flight.finished(k)
        return lowest, results

    def outcome(
        self,
        session: int,
        k: int,
        response: tuple[int | None, list[ua.StatusCode]],
        measured: bool,
    ) -> tuple[bool, int, str | None]:
        lowest, results = response
        error = status_error(results)
        if error is None and len(results) != self.per_request:
            error = f"got {len(results)} results for {self.per_request} nodes"
        if error:
            return False, 0, error
        if lowest is not None and measured:
            # W1: at once, beside the in_flight requests; the drain waits for it
            names = self.names(k)
            task = asyncio.create_task(self._read_back(names, k, lowest))
            self.follow_ups.add(task)
            task.add_done_callback(functools.partial(self._read_back_done, names))
        return True, len(results), None

    async def _read_back(self, names: list[str], k: int, lowest: int) -> None:
        """W1: reads the nodes of session 0's write k back and judges them."""
        assert self.read_back is not None
        s = self.sessions[0]
        parameters = ReadParameters(
            NodesToRead=[
                ReadValueId(NodeId=s.nodeid(n), AttributeId=VALUE) for n in names
            ],
            MaxAge=0,
            TimestampsToReturn=ua.TimestampsToReturn.Source,
        )
        try:
            values = await s.read(parameters)
        except Exception as error:
            self.read_back.failed(names, self.describe(error))
            return
        self.read_back.response(names, values, lowest, k)

    def _read_back_done(self, names: list[str], task: asyncio.Task) -> None:
        self.follow_ups.discard(task)
        if task.cancelled() and self.read_back is not None:  # the drain ended first
            self.read_back.failed(names, LATE)

    async def verify_written(self, pattern: int) -> None:
        """Session 0 writes the verification pattern to every node, reads all back, compares."""
        s = self.sessions[0]
        positions = range(len(self.nodes))
        expected = {i: contract.write_verification_value(pattern, i) for i in positions}
        for chunk in _chunks(list(positions), self.per_request):
            values = [
                WriteValue(
                    NodeId=s.nodeid(self.nodes[i]),
                    AttributeId=VALUE,
                    Value=_value_only(expected[i]),
                )
                for i in chunk
            ]
            try:
                await self._verifying(
                    lambda: s.write(ua.WriteParameters(NodesToWrite=values))
                )
            except Exception as error:  # the read-back below counts the affected nodes
                if len(self.recorder.error_examples) < contract.MAX_EXAMPLES:
                    self.recorder.error_examples.append(
                        f"verification write: {self.describe(error)}"
                    )
        for chunk in _chunks(list(positions), self.per_request):
            parameters = ReadParameters(
                NodesToRead=[
                    ReadValueId(NodeId=s.nodeid(self.nodes[i]), AttributeId=VALUE)
                    for i in chunk
                ],
                MaxAge=0,
                TimestampsToReturn=ua.TimestampsToReturn.Source,
            )
            try:
                results: list[Any] = await self._verifying(lambda: s.read(parameters))
            except Exception as error:
                results = [error] * len(chunk)
            for i, dv in zip(chunk, results):
                self.recorder.verification(self._readback_error(i, dv, expected[i]))

    async def _verifying(self, request: Callable[[], Awaitable[T]]) -> T:
        """A request of the verification after the run: none while session 0's connection
        is lost, none longer than the request timeout (asyncua holds a request up to 60 s
        while it reconnects), so a dead server does not hold the result back."""
        if self.recorder.connection.is_down(0):
            raise ConnectionError("connection lost")
        return await asyncio.wait_for(request(), self.request_timeout_s)

    def _readback_error(self, position: int, dv: Any, expected: float) -> str | None:
        node = self.nodes[position]
        if isinstance(dv, BaseException):
            return f"{node}: read-back failed: {self.describe(dv)}"
        if not dv.StatusCode.is_good():
            return f"{node}: read-back {dv.StatusCode.name}"
        got = dv.Value.Value if dv.Value is not None else None
        if (
            dv.Value is None
            or dv.Value.VariantType != ua.VariantType.Double
            or got != expected
        ):
            return f"{node}: read back {got!r}, expected {expected!r}"
        return None


def _value_only(value: float) -> ua.DataValue:
    """A Double DataValue that encodes the value only: no timestamps and, unlike asyncua's
    default, no (Good) StatusCode (SPEC §3: writes carry the value only)."""
    return DataValue(ua.Variant(value, ua.VariantType.Double), StatusCode=None)


def _chunks(items: list[int], size: int) -> list[list[int]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
