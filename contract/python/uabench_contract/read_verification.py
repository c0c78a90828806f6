"""Read verification across responses (SPEC §3 "Read verification", rules R1–R5), for the
Python clients (asyncua and python-opcua).

Both libraries decode a read result into a DataValue with `.Value` (a Variant: `.Value`,
`.VariantType`, `.is_array`) and `.SourceTimestamp` (a datetime: naive UTC in python-opcua,
aware in asyncua); that is all this module reads, so one implementation serves both.
The state is small and allocated once: per session the high-water tick (R2), per session
and per moving node (Tick, Signal_i) the highest tick seen and its SourceTimestamp (R3, R4),
and per node the forward steps summed over sessions.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, Sequence

from . import ARRAYS, TICK_MODULUS, verify_value

# OPC UA built-in type ids (Part 6 §5.1.2): both libraries' VariantType values are these ids.
INT16, UINT32, FLOAT, DOUBLE, BYTESTRING = 4, 7, 10, 11, 15
_TYPE_NAMES = {
    INT16: "Int16",
    UINT32: "UInt32",
    FLOAT: "Float",
    DOUBLE: "Double",
    BYTESTRING: "ByteString",
}
FUTURE_TOLERANCE_S = (
    1.0  # R4: a SourceTimestamp may lead the client's receive time by 1 s
)
_HALF = (
    TICK_MODULUS // 2
)  # a step back of half the modulus or more is a step forward across the wrap
NONE_YET = -1  # R2: the high-water tick of a session before its first Tick or Signal
_UNIX_EPOCH = datetime(1970, 1, 1)
_NULL_DATETIME_S = (datetime(1601, 1, 1) - _UNIX_EPOCH).total_seconds()


class Recording(Protocol):
    def verification(self, failure: str | None) -> None: ...


def wire_type(node: str) -> tuple[int, bool] | None:
    """R5: (built-in type id, is an array) of a node of the standard address space (SPEC §4)."""
    if node.startswith("Signal_") or node == "Real":
        return FLOAT, False
    if node == "Tick":
        return UINT32, False
    if node == "Page":
        return INT16, True
    if node in ("SDD", "Image"):
        return BYTESTRING, False
    if node in ARRAYS:
        return DOUBLE, True
    if node.startswith("Write_"):
        return DOUBLE, False
    return None


def wire_type_error(node: str, variant: Any) -> str | None:
    """R5: the Variant's built-in type and array-ness against SPEC §4 (the decoded Python
    value alone cannot tell Float from Double, nor UInt32 from Int32)."""
    expected = wire_type(node)
    if expected is None:
        return None
    got_type = variant.VariantType
    got = (got_type.value, bool(variant.is_array))
    if got == expected:
        return None
    got_name, expected_name = got_type.name, _TYPE_NAMES[expected[0]]
    if got[1] != expected[1]:
        shape = ("array", "scalar")
        got_name += " " + shape[not got[1]]
        expected_name += " " + shape[not expected[1]]
    return f"{node}: got {got_name}, expected {expected_name}"


def value_error(node: str, variant: Any) -> str | None:
    """R5 and SPEC §4: None if the Variant holds what the standard address space has at
    `node`, with its wire type, else a reason."""
    if variant is None:
        return f"{node}: got no value"
    return wire_type_error(node, variant) or verify_value(node, variant.Value)


def seconds(stamp: datetime | None) -> float | None:
    """A DateTime as seconds since 1970 (naive means UTC); None for a missing one or the
    null DateTime (0, that is 1601-01-01)."""
    if stamp is None:
        return None
    if stamp.tzinfo is None:
        value = (stamp - _UNIX_EPOCH).total_seconds()
    else:
        value = stamp.timestamp()
    return None if value <= _NULL_DATETIME_S else value


def moving(node: str) -> bool:
    return node == "Tick" or node.startswith("Signal_")


class ReadVerifier:
    """Judges every value of the read workload's responses, warm-up included, and records
    the measured ones. Each request keeps `high_water(session)` from before it is sent and
    gives it back with its response (R2), which may then come in any order."""

    def __init__(self, nodes: Sequence[str], sessions: int, recorder: Recording):
        names = sorted({n for n in nodes if moving(n)})
        slots = {name: i for i, name in enumerate(names)}
        # per node: its wire type (R5) and its slot in the tick state (None: not moving)
        self._node = {n: (wire_type(n), slots.get(n)) for n in nodes}
        self._high = [NONE_YET] * sessions  # R2: the highest tick received, mod 16384
        self._last = [[-1] * len(names) for _ in range(sessions)]  # tick, -1: none yet
        self._stamp = [[0.0] * len(names) for _ in range(sessions)]
        self._advanced = [0] * len(names)
        self._recorder = recorder

    @property
    def ticks_advanced(self) -> int:
        """R3: the largest sum over nodes of the forward steps seen in the measured phase."""
        return max(self._advanced, default=0)

    def high_water(self, session: int) -> int:
        """R2: the highest tick the session has received so far (mod 16384, NONE_YET before
        any); a request keeps it from just before it is sent (earlier is sound too: it only
        moves on), and its response is judged against it."""
        return self._high[session]

    def response(
        self,
        session: int,
        names: Sequence[str],
        data_values: Sequence[Any],
        received_s: float,
        measured: bool,
        *,
        sent_high: int,
    ) -> None:
        """One all-Good Read response: `names[i]` was read into `data_values[i]`, received at
        `received_s` (seconds since 1970, the client's clock), for a request sent when the
        session's high-water tick was `sent_high`."""
        tick = _response_tick(names, data_values)
        record = self._recorder.verification
        for name, data_value in zip(names, data_values):
            failure = self.value(
                session, name, data_value, tick, sent_high, received_s, measured
            )
            if measured:
                record(failure)

    def value(
        self,
        session: int,
        name: str,
        data_value: Any,
        tick: int | None,
        sent_high: int,
        received_s: float,
        measured: bool,
    ) -> str | None:
        variant = data_value.Value
        if variant is None:
            return f"{name}: got no value"
        expected, slot = self._node.get(name) or (wire_type(name), None)
        # the common case compared inline: this runs for every value read
        if expected and (variant.VariantType.value, variant.is_array) != expected:
            return wire_type_error(name, variant)
        failure = verify_value(name, variant.Value)
        if failure or slot is None:
            return failure
        new = variant.Value if name == "Tick" else int(variant.Value) % TICK_MODULUS
        wrapped = new % TICK_MODULUS
        high = self._high[session]
        if high == NONE_YET or 0 < (wrapped - high) % TICK_MODULUS < _HALF:
            self._high[session] = wrapped
        stamp = seconds(data_value.SourceTimestamp)
        if stamp is None:
            return f"{name}: no SourceTimestamp"
        # R1: within one update either way (the server may read either value first)
        if (
            name != "Tick"
            and tick is not None
            and 1 < (new - tick) % TICK_MODULUS < TICK_MODULUS - 1
        ):
            return (
                f"{name}: tick {new}, but Tick {tick % TICK_MODULUS} "
                f"(mod {TICK_MODULUS}) in the same response"
            )
        # R2: not older than what had arrived before the request was sent (a server may
        # answer concurrent requests in any order); one behind is fine, as a server's
        # update is not atomic across nodes
        if sent_high != NONE_YET and 2 <= (sent_high - wrapped) % TICK_MODULUS < _HALF:
            return (
                f"{name}: tick {wrapped}, but tick {sent_high} had arrived before "
                "this request was sent"
            )
        failure = self._step(session, slot, name, new, stamp, measured)
        if failure is None and stamp > received_s + FUTURE_TOLERANCE_S:
            failure = (
                f"{name}: SourceTimestamp {stamp - received_s:.1f} s in the future"
            )
        return failure

    def _step(
        self,
        session: int,
        slot: int,
        name: str,
        new: int,
        stamp: float,
        measured: bool,
    ) -> str | None:
        """R3 and R4 against the highest tick this session has seen of the node: a tick
        behind it (answered out of order) neither counts nor lowers it. The checks and
        their order are those of the open62541 client (tick_check.c), so both count a fault
        alike."""
        last_ticks, last_stamps = self._last[session], self._stamp[session]
        last = last_ticks[slot]
        if last < 0:
            last_ticks[slot], last_stamps[slot] = new, stamp
            return None
        if name == "Tick":
            forward = max(0, new - last)
        else:
            forward = (new - last) % TICK_MODULUS
            forward = forward if forward < _HALF else 0
        if forward == 0:
            return None
        last_stamp = last_stamps[slot]
        last_ticks[slot], last_stamps[slot] = new, stamp
        if measured:
            self._advanced[slot] += forward
        if stamp < last_stamp:
            return f"{name}: tick {new} has an earlier SourceTimestamp than tick {last}"
        return None


def _response_tick(names: Sequence[str], data_values: Sequence[Any]) -> int | None:
    """R1: the Tick read in this response (the first, if read twice), if it is a UInt32."""
    for name, data_value in zip(names, data_values):
        if name == "Tick":
            variant = data_value.Value
            if variant is not None and wire_type_error(name, variant) is None:
                value = variant.Value
                return value if isinstance(value, int) else None
            return None
    return None
