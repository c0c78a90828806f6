"""W1, writes read back under load (SPEC §3), for the Python clients (asyncua and
python-opcua).

Session 0 reads back every 64th of its writes sent in the measured phase, at once when the
write succeeded, and each value read back must be one some write of this run put on that
node, and not one of session 0's writes that had completed before the sampled write was
sent. Both libraries decode a Read result into a DataValue with `.StatusCode` (`.is_good()`,
`.name`) and `.Value` (a Variant: `.Value`, `.VariantType`, `.is_array`); that is all this
module reads, so one implementation serves both. The state is one integer per in-flight
read-back (`lowest`, the SPEC's C) and the sampled write's index, plus the set of session 0's
writes that finished while a lower one was still in flight (as many as finish while one hangs,
until its timeout gives it up).
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

from . import _short

SAMPLE_EVERY = 64  # W1: one read-back per 64 of session 0's requests
SESSION_SPAN = 1_000_000_000  # write_value(): session s writes s·1e9 + m
DOUBLE = 11  # OPC UA built-in type id of Double (Part 6 §5.1.2)


class Recording(Protocol):
    read_back: int

    def verification(self, failure: str | None) -> None: ...


def sampled(request: int) -> bool:
    """W1: session 0's request `request` (counted from its first, warm-up included) is read
    back if it is sent in the measured phase and succeeds."""
    return request % SAMPLE_EVERY == SAMPLE_EVERY - 1


class LowestInFlight:
    """Session 0's lowest request index still in flight (W1's C), in O(1) amortized per
    request. Requests are numbered in the order they are sent, so every index below the
    highest one sent is sent; an index numbered but not yet on the wire counts as in
    flight, which only lowers C (a weaker check, never a false failure)."""

    def __init__(self) -> None:
        self._lowest = 0
        self._above: set[int] = set()  # finished, but some lower request is not yet

    @property
    def lowest(self) -> int:
        """C for a request sent now: every request below it has finished (its response
        arrived, or it failed or was given up)."""
        return self._lowest

    def finished(self, request: int) -> None:
        if request != self._lowest:
            self._above.add(request)
            return
        lowest, above = request + 1, self._above
        while lowest in above:
            above.remove(lowest)
            lowest += 1
        self._lowest = lowest


class WriteReadBack:
    """Judges and records the values read back after sampled writes (W1)."""

    def __init__(
        self,
        nodes: Sequence[str],
        sessions: int,
        nodes_per_request: int,
        recorder: Recording,
    ) -> None:
        self._nodes = list(nodes)
        self._sessions = sessions
        self._per_request = nodes_per_request
        self._recorder = recorder

    def response(
        self,
        names: Sequence[str],
        data_values: Sequence[Any],
        lowest: int,
        request: int,
    ) -> None:
        """The read-back of session 0's write `request`, sent when the lowest request still
        in flight was `lowest`, read `names[i]` into `data_values[i]`."""
        for position, name in enumerate(names):
            if position < len(data_values):
                failure = self.judge(name, data_values[position], lowest, request)
            else:
                failure = f"read-back of {name}: no result"
            self._record(failure)

    def failed(self, names: Sequence[str], error: str) -> None:
        """A read-back that failed or was not answered by the end of the drain: each of its
        values fails."""
        for name in names:
            self._record(f"read-back of {name}: {error}")

    def judge(
        self, node: str, data_value: Any, lowest: int, request: int
    ) -> str | None:
        status = data_value.StatusCode
        if status is not None and not status.is_good():
            return f"read-back of {node}: {status.name}"
        variant = data_value.Value
        value = variant.Value if variant is not None else None
        origin = self._origin(node, variant)
        if origin is None:
            return f"read-back of {node}: {_short(value)}, which no write of this run put there"
        session, write = origin
        if session == 0 and write < lowest:
            return (
                f"read-back of {node}: session 0's write {write}, but its writes before "
                f"{lowest} had completed when write {request} was sent"
            )
        return None

    def _origin(self, node: str, variant: Any) -> tuple[int, int] | None:
        """(session, request) of the write of this run that put this value on `node`
        (write_value(): a Double s·1e9 + m, node m mod len(nodes)), None if none could."""
        if (
            variant is None
            or variant.VariantType.value != DOUBLE
            or variant.is_array
            or not isinstance(variant.Value, float)
        ):
            return None
        value = variant.Value
        if value < 0 or not value.is_integer():  # also NaN and the infinities
            return None
        session, m = divmod(int(value), SESSION_SPAN)
        if session >= self._sessions or self._nodes[m % len(self._nodes)] != node:
            return None
        return session, m // self._per_request

    def _record(self, failure: str | None) -> None:
        self._recorder.read_back += 1
        self._recorder.verification(failure)
