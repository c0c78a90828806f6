"""The read and write workloads as asyncua Read/Write service calls."""

from __future__ import annotations

import time
from typing import Any

from asyncua import ua

import uabench_contract as contract
from uabench_contract import Recorder
from uabench_contract.read_verification import ReadVerifier

from .session import Session

VALUE = ua.AttributeIds.Value


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
            parameters = cache[offset] = ua.ReadParameters(
                NodesToRead=[
                    ua.ReadValueId(NodeId=s.nodeid(n), AttributeId=VALUE)
                    for n in self.names(k)
                ],
                MaxAge=0,
                TimestampsToReturn=ua.TimestampsToReturn.Source,
            )
        return parameters

    async def request(self, session: int, k: int) -> tuple[int, list[ua.DataValue]]:
        """(the session's high-water tick before the send, R2; the response's values)"""
        sent_high = self.verifier.high_water(session)
        values = await self.sessions[session].client.uaclient.read(
            self._read_parameters(session, k)
        )
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
    async def request(self, session: int, k: int) -> list[ua.StatusCode]:
        s = self.sessions[session]
        values = [
            ua.WriteValue(
                NodeId=s.nodeid(name),
                AttributeId=VALUE,
                Value=_value_only(
                    contract.write_value(session, k, self.per_request, j)
                ),
            )
            for j, name in enumerate(self.names(k))
        ]
        return await s.client.uaclient.write(ua.WriteParameters(NodesToWrite=values))

    def outcome(
        self, session: int, k: int, response: list[ua.StatusCode], measured: bool
    ) -> tuple[bool, int, str | None]:
        error = status_error(response)
        if error is None and len(response) != self.per_request:
            error = f"got {len(response)} results for {self.per_request} nodes"
        return (False, 0, error) if error else (True, len(response), None)

    async def verify_written(self, pattern: int) -> None:
        """Session 0 writes the verification pattern to every node, reads all back, compares."""
        s = self.sessions[0]
        positions = range(len(self.nodes))
        expected = {i: contract.write_verification_value(pattern, i) for i in positions}
        for chunk in _chunks(list(positions), self.per_request):
            values = [
                ua.WriteValue(
                    NodeId=s.nodeid(self.nodes[i]),
                    AttributeId=VALUE,
                    Value=_value_only(expected[i]),
                )
                for i in chunk
            ]
            try:
                await s.client.uaclient.write(ua.WriteParameters(NodesToWrite=values))
            except Exception as error:  # the read-back below counts the affected nodes
                if len(self.recorder.error_examples) < contract.MAX_EXAMPLES:
                    self.recorder.error_examples.append(
                        f"verification write: {self.describe(error)}"
                    )
        for chunk in _chunks(list(positions), self.per_request):
            parameters = ua.ReadParameters(
                NodesToRead=[
                    ua.ReadValueId(NodeId=s.nodeid(self.nodes[i]), AttributeId=VALUE)
                    for i in chunk
                ],
                MaxAge=0,
                TimestampsToReturn=ua.TimestampsToReturn.Source,
            )
            try:
                results: list[Any] = await s.client.uaclient.read(parameters)
            except Exception as error:
                results = [error] * len(chunk)
            for i, dv in zip(chunk, results):
                self.recorder.verification(self._readback_error(i, dv, expected[i]))

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
    return ua.DataValue(ua.Variant(value, ua.VariantType.Double), StatusCode=None)


def _chunks(items: list[int], size: int) -> list[list[int]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
