"""The inputs of contract/vectors/verification.json: the rules every client re-implements
by hand in its own language (SPEC §3 R1–R4, W1, the subscription's lifetime count; SPEC §6
the timeline), played through the Python reference to get the expected outputs.

A vector is a short script of what a client sees (a request sent, a response's values, a
write finished) and what the rule must say of each value; every adapter's own test runner
replays it through its own verifier, with its own SDK's DataValue types. The scripts use
only well-typed values that keep SPEC §4 (R5 and the value check are vectors of their own,
values.json), so every adapter's tick check judges them whether or not it also checks R5.
Times are integers of microseconds since 1970 (timestamps) or small nanosecond counts
(timelines), so a JavaScript number holds them exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import uabench_contract as contract
from uabench_contract.read_verification import (
    FLOAT,
    UINT32,
    ReadVerifier,
    _response_tick,
)
from uabench_contract.write_verification import DOUBLE, LowestInFlight, WriteReadBack

T0_US = 1_700_000_000_000_000  # 2023-11-14, a receive time on the client's clock
_STATUS = {"Good": 0, "BadNodeIdUnknown": 0x80340000, "BadTimeout": 0x800A0000}
_TYPE_IDS = {"UInt32": UINT32, "Float": FLOAT, "Double": DOUBLE, "Int32": 6}


# --- stand-ins for a decoded DataValue: the attributes the reference reads (its docstrings) --


@dataclass(frozen=True)
class _VariantType:
    name: str

    @property
    def value(self) -> int:
        return _TYPE_IDS[self.name]


@dataclass(frozen=True)
class _Variant:
    Value: Any
    VariantType: _VariantType
    is_array: bool = False


@dataclass(frozen=True)
class _Status:
    name: str

    def is_good(self) -> bool:
        return self.name == "Good"


@dataclass(frozen=True)
class _DataValue:
    Value: _Variant | None
    SourceTimestamp: Any = None
    StatusCode: _Status | None = None


class _Failures:
    """The reference's Recording: the last failure judged (None when the value passed)."""

    def __init__(self) -> None:
        self.read_back = 0
        self.judged: list[str | None] = []

    def verification(self, failure: str | None) -> None:
        self.judged.append(failure)


def _fragments(failure: str | None, value_text: str | None = None) -> list[str] | None:
    """What a runner checks of a failure: every fragment must be in the adapter's message.
    Where the message renders a value the languages print differently (a Double), only the
    text around it is fixed."""
    if failure is None:
        return None
    if value_text and value_text in failure:
        head, tail = failure.split(value_text, 1)
        return [part for part in (head, tail) if part]
    return [failure]


# --- R1–R4 ------------------------------------------------------------------------------


def _stamped(value: dict, source_us: int | None) -> dict:
    return value if source_us is None else {**value, "source_us": source_us}


def _tick(value: int, source_us: int | None = None) -> dict:
    return _stamped({"node": "Tick", "type": "UInt32", "value": value}, source_us)


def _signal(index: int, tick: int, source_us: int | None = None) -> dict:
    value = {
        "node": f"Signal_{index}",
        "type": "Float",
        "value": contract.signal(index, tick),
    }
    return _stamped(value, source_us)


def _send(session: int, request: str) -> dict:
    return {"send": {"session": session, "request": request}}


def _response(
    session: int,
    request: str | None,
    first: int,
    values: list[dict],
    *,
    received_us: int = T0_US,
    measured: bool = True,
) -> dict:
    # a value without a source_us of its own was stamped 1 ms before it was received
    values = [{"source_us": received_us - 1000, **v} for v in values]
    return {
        "response": {
            "session": session,
            "request": request,
            "first": first,
            "received_us": received_us,
            "measured": measured,
            "values": values,
        }
    }


def _unstamped(value: dict) -> dict:
    """A value without a SourceTimestamp (R4): source_us null."""
    return {**value, "source_us": None}


def _data_value(value: dict) -> _DataValue:
    stamp = value["source_us"]
    source = (
        None if stamp is None else datetime.fromtimestamp(stamp / 1e6, timezone.utc)
    )
    variant = _Variant(value["value"], _VariantType(value["type"]))
    return _DataValue(variant, source)


def _play_read(case: dict) -> dict:
    """The expected `fails` of each response value and `ticks_advanced`, from ReadVerifier."""
    nodes, sessions = case["nodes"], case["sessions"]
    failures = _Failures()
    verifier = ReadVerifier(nodes, sessions, failures)
    kept: dict[str, int] = {}
    for step in case["steps"]:
        if "send" in step:
            send = step["send"]
            kept[send["request"]] = verifier.high_water(send["session"])
            continue
        response = step["response"]
        values = response["values"]
        for k, value in enumerate(values):
            expected = nodes[(response["first"] + k) % len(nodes)]
            assert value["node"] == expected, (case["name"], value["node"], expected)
        names = [v["node"] for v in values]
        data_values = [_data_value(v) for v in values]
        sent = kept.pop(response["request"]) if response["request"] is not None else -1
        tick = _response_tick(
            names, data_values
        )  # R1's reference, as the reference finds it
        fails = []
        for name, data_value in zip(names, data_values):
            failure = verifier.value(
                response["session"],
                name,
                data_value,
                tick,
                sent,
                response["received_us"] / 1e6,
                response["measured"],
            )
            if failure and "in the future" in failure:
                # "2.3 s": one decimal, which every language prints alike
                fails.append([failure])
            else:
                fails.append(_fragments(failure))
        response["fails"] = fails
    case["ticks_advanced"] = verifier.ticks_advanced
    return case


NODES = ["Tick", "Signal_0", "Signal_3"]
TWO = ["Tick", "Signal_3"]


def read_cases() -> list[dict]:
    """Scripts of the read workload's responses; each breaks (or keeps) one rule, named."""
    t = T0_US
    cases = [
        {
            "name": "all agree: no failure, the forward steps count (R3)",
            "nodes": NODES,
            "sessions": 1,
            "steps": [
                _send(0, "a"),
                _response(0, "a", 0, [_tick(10), _signal(0, 10), _signal(3, 10)]),
                _send(0, "b"),
                _response(
                    0,
                    "b",
                    0,
                    [_tick(13), _signal(0, 13), _signal(3, 12)],
                    received_us=t + 300_000,
                ),
            ],
        },
        {
            "name": "R1: a Signal one update behind or ahead of the response's Tick passes, two does not",
            "nodes": NODES,
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_tick(25), _signal(0, 24), _signal(3, 26)]),
                _response(
                    0,
                    None,
                    0,
                    [_tick(25), _signal(0, 25), _signal(3, 17)],
                    received_us=t + 1000,
                ),
                _response(
                    0,
                    None,
                    0,
                    [_tick(40), _signal(0, 42), _signal(3, 40)],
                    received_us=t + 2000,
                ),
            ],
        },
        {
            "name": "R1 across the wrap: Tick 16384 agrees with Signal ticks 0 and 16383; Tick 16385 not with 16383",
            "nodes": NODES,
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_tick(16384), _signal(0, 0), _signal(3, 16383)]),
                _response(
                    0,
                    None,
                    0,
                    [_tick(16385), _signal(0, 16383), _signal(3, 1)],
                    received_us=t + 1000,
                ),
            ],
        },
        {
            "name": "R1: a response without a Tick judges no Signal by it",
            "nodes": ["Signal_0", "Signal_3", "Tick"],
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_signal(0, 5), _signal(3, 900)]),
            ],
        },
        {
            "name": "R1: the first Tick of a response is its reference when it reads Tick twice",
            "nodes": ["Tick", "Signal_3", "Tick"],
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_tick(50), _signal(3, 50), _tick(60)]),
            ],
        },
        {
            "name": "R2: a response older by two than what had arrived before its send fails; by one passes",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_tick(40), _signal(3, 40)]),
                _send(0, "a"),
                _send(0, "b"),
                _response(0, "a", 0, [_tick(37), _signal(3, 37)], received_us=t + 1000),
                _response(0, "b", 0, [_tick(39), _signal(3, 39)], received_us=t + 2000),
            ],
        },
        {
            "name": "R2: responses to concurrent requests may arrive in any order",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_tick(100), _signal(3, 100)]),
                _send(0, "a"),
                _send(0, "b"),
                _response(
                    0, "b", 0, [_tick(105), _signal(3, 105)], received_us=t + 1000
                ),
                _response(
                    0, "a", 0, [_tick(102), _signal(3, 102)], received_us=t + 2000
                ),
            ],
        },
        {
            "name": "R2: the high-water tick is the session's own; another session may be behind",
            "nodes": TWO,
            "sessions": 2,
            "steps": [
                _response(0, None, 0, [_tick(500), _signal(3, 500)]),
                _send(1, "a"),
                _send(0, "b"),
                _response(
                    1, "a", 0, [_tick(450), _signal(3, 450)], received_us=t + 1000
                ),
                _response(
                    0, "b", 0, [_tick(450), _signal(3, 450)], received_us=t + 2000
                ),
            ],
        },
        {
            "name": "R2 across the wrap: tick 2 is ahead of 16380, tick 16370 is behind 3",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_tick(16380), _signal(3, 16380)]),
                _send(0, "a"),
                _response(
                    0, "a", 0, [_tick(16386), _signal(3, 2)], received_us=t + 1000
                ),
                _send(0, "b"),
                _response(
                    0, "b", 0, [_tick(16370), _signal(3, 16370)], received_us=t + 2000
                ),
            ],
        },
        {
            "name": "R2: a request sent before any tick arrived is judged by nothing",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _send(0, "a"),
                _response(0, None, 0, [_tick(900), _signal(3, 900)]),
                _response(0, "a", 0, [_tick(3), _signal(3, 3)], received_us=t + 1000),
            ],
        },
        {
            "name": "R3: forward steps sum per node over sessions; a step back neither counts nor lowers",
            "nodes": TWO,
            "sessions": 2,
            "steps": [
                _response(0, None, 0, [_tick(10), _signal(3, 10)]),
                _response(
                    1, None, 0, [_tick(10), _signal(3, 10)], received_us=t + 1000
                ),
                _response(
                    0, None, 0, [_tick(14), _signal(3, 14)], received_us=t + 2000
                ),
                _response(
                    1, None, 0, [_tick(12), _signal(3, 12)], received_us=t + 3000
                ),
                _response(
                    1, None, 0, [_tick(11), _signal(3, 11)], received_us=t + 4000
                ),
                _response(
                    1, None, 0, [_tick(13), _signal(3, 13)], received_us=t + 5000
                ),
            ],
        },
        {
            "name": "R3: only the measured phase counts, but warm-up sets the last tick seen",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_tick(10), _signal(3, 10)], measured=False),
                _response(
                    0,
                    None,
                    0,
                    [_tick(20), _signal(3, 20)],
                    received_us=t + 1000,
                    measured=False,
                ),
                _response(
                    0, None, 0, [_tick(23), _signal(3, 23)], received_us=t + 2000
                ),
            ],
        },
        {
            "name": "R3: a Signal steps forward across the wrap mod 16384",
            "nodes": ["Signal_3", "Tick"],
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_signal(3, 16380)]),
                _response(0, None, 0, [_signal(3, 4)], received_us=t + 1000),
            ],
        },
        {
            "name": "R3, R4: a Signal step of exactly 8192 is no step: not counted, the last tick kept",
            "nodes": ["Signal_3", "Tick"],
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_signal(3, 0, t - 5000)]),
                _response(
                    0, None, 0, [_signal(3, 8192, t - 9000)], received_us=t + 1000
                ),
                _response(
                    0, None, 0, [_signal(3, 8193, t - 4000)], received_us=t + 2000
                ),
                _response(0, None, 0, [_signal(3, 2, t - 3000)], received_us=t + 3000),
            ],
        },
        {
            "name": "R4: a SourceTimestamp before 1970 is one (only the null DateTime of 1601 is none)",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _response(
                    0, None, 0, [_tick(7, -2_208_988_800_000_000), _signal(3, 7)]
                ),
            ],
        },
        {
            "name": "R4: a value without a SourceTimestamp fails",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_unstamped(_tick(7)), _signal(3, 7)]),
            ],
        },
        {
            "name": "R4: a SourceTimestamp more than 1 s after the receive time fails; 0.9 s passes",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _response(
                    0, None, 0, [_tick(7, t + 900_000), _signal(3, 7, t + 2_300_000)]
                ),
            ],
        },
        {
            "name": "R4: a tick ahead of the last one seen may not carry an earlier SourceTimestamp",
            "nodes": TWO,
            "sessions": 1,
            "steps": [
                _response(0, None, 0, [_tick(40, t - 5000), _signal(3, 40, t - 5000)]),
                _response(
                    0,
                    None,
                    0,
                    [_tick(41, t - 9000), _signal(3, 41, t - 5000)],
                    received_us=t + 1000,
                ),
                _response(
                    0,
                    None,
                    0,
                    [_tick(41, t - 9000), _signal(3, 41, t - 5000)],
                    received_us=t + 2000,
                ),
            ],
        },
    ]
    return [_play_read(case) for case in cases]


# --- W1 ---------------------------------------------------------------------------------


WRITE_NODES = ["Write_0", "Write_1", "Write_2", "Write_3"]


def _read_back(
    node: str,
    value: Any,
    *,
    request: int,
    lowest: int,
    type_name: str = "Double",
    status: str = "Good",
    sessions: int = 2,
    nodes_per_request: int = 2,
) -> dict:
    failures = _Failures()
    judge = WriteReadBack(WRITE_NODES, sessions, nodes_per_request, failures)
    data_value = _DataValue(
        _Variant(value, _VariantType(type_name)) if status == "Good" else None,
        None,
        _Status(status),
    )
    failure = judge.judge(node, data_value, lowest, request)
    # a value the message repeats: Python prints it with repr, other languages their way
    shown = None if status != "Good" else repr(value)
    return {
        "nodes": WRITE_NODES,
        "sessions": sessions,
        "nodes_per_request": nodes_per_request,
        "request": request,
        "lowest": lowest,
        "node": node,
        "status": status,
        "status_code": _STATUS[status],
        "type": type_name,
        "value": value,
        "fails": _fragments(failure, shown),
    }


def read_back_cases() -> list[dict]:
    """W1's judgement of one value read back after session 0's sampled write `request`, sent
    when `lowest` was the lowest request of session 0 in flight. Write values: session s's
    request k writes s·1e9 + k·nodes_per_request + j to node position (k·npr + j) mod 4."""
    cases = [
        ("session 0's latest write to the node", "Write_3", 4863 * 2 + 1.0, 4863, 4799),
        (
            "session 0's write that was in flight when the sampled one was sent",
            "Write_1",
            4800 * 2 + 1.0,
            4863,
            4799,
        ),
        (
            "session 0's write completed before the sampled one was sent",
            "Write_3",
            4711 * 2 + 1.0,
            4863,
            4799,
        ),
        ("another session's write, however old", "Write_2", 1e9 + 10.0, 4863, 4799),
        (
            "a value for another node (position m mod 4)",
            "Write_0",
            4863 * 2 + 1.0,
            4863,
            4799,
        ),
        ("a session the run does not have", "Write_3", 2e9 + 3.0, 4863, 4799),
        ("a fraction no write puts there", "Write_3", 17.5, 4863, 4799),
        (
            "a negative value (the read-back after the phase writes these)",
            "Write_1",
            -100001.25,
            4863,
            4799,
        ),
    ]
    vectors = [
        {"name": name, **_read_back(node, value, request=request, lowest=lowest)}
        for name, node, value, request, lowest in cases
    ]
    vectors.append(
        {
            "name": "a Float, not the Double a write puts there",
            **_read_back("Write_3", 3.0, request=63, lowest=0, type_name="Float"),
        }
    )
    vectors.append(
        {
            "name": "a Bad status",
            **_read_back(
                "Write_3", None, request=63, lowest=0, status="BadNodeIdUnknown"
            ),
        }
    )
    return vectors


def lowest_in_flight_cases() -> list[dict]:
    """W1's C: session 0's lowest request still in flight, as requests are sent and finish
    in any order. Each `lowest` step is what C is at that point."""
    scripts = [
        (
            "in order",
            [("sent", 0), ("lowest",), ("finished", 0), ("sent", 1), ("lowest",)],
        ),
        (
            "out of order: a finished request above an unfinished one waits",
            [
                ("sent", 0),
                ("sent", 1),
                ("sent", 2),
                ("finished", 1),
                ("lowest",),
                ("finished", 2),
                ("lowest",),
                ("finished", 0),
                ("lowest",),
                ("sent", 3),
                ("lowest",),
            ],
        ),
    ]
    cases = []
    for name, script in scripts:
        tracker = LowestInFlight()
        steps: list[dict] = []
        for step in script:
            if step[0] == "finished":
                tracker.finished(step[1])
                steps.append({"finished": step[1]})
            elif step[0] == "sent":
                steps.append({"sent": step[1]})
            else:
                steps.append({"lowest": tracker.lowest})
        cases.append({"name": name, "steps": steps})
    return cases


# --- the subscription's lifetime count, the timeline ---------------------------------------


def lifetime_cases() -> list[dict]:
    inputs = [
        (60_000, 100, 100),
        (60_000, 1, 10_000),
        (60_000, 100, 3_000),
        (3_600_000, 100, 100),
        (3_600_000, 1000, 10),
        (30_000, 7, 3),
        (60_000, 2.5, 3),
        (1_200_000, 1, 3),
    ]
    return [
        {
            "session_timeout_ms": timeout,
            "publishing_interval_ms": interval,
            "keep_alive_count": keep_alive,
            "lifetime_count": contract.lifetime_count(timeout, interval, keep_alive),
        }
        for timeout, interval, keep_alive in inputs
    ]


def timeline_cases() -> list[dict]:
    ms = 1_000_000
    scripts: list[tuple[str, int, int | None, int, int, list[tuple[int, int]], int]] = [
        # name, window_ms, start_ns (None: never begun), span_ns, offset_ns, completions, end_ns
        (
            "one per window",
            100,
            0,
            300 * ms,
            0,
            [(5 * ms, 1), (150 * ms, 2), (299 * ms, 3)],
            300 * ms,
        ),
        (
            "window edges: k·w starts window k",
            100,
            0,
            300 * ms,
            0,
            [(0, 1), (100 * ms - 1, 1), (100 * ms, 1), (200 * ms, 1)],
            300 * ms,
        ),
        (
            "completions after end_ns and before the start are not counted",
            100,
            50 * ms,
            200 * ms,
            0,
            [(49 * ms, 1), (60 * ms, 4), (400 * ms, 1)],
            250 * ms,
        ),
        ("a partial last window", 100, 0, 250 * ms, 0, [(240 * ms, 1)], 250 * ms),
        (
            "end_ns beyond the span pads with empty windows",
            50,
            0,
            100 * ms,
            0,
            [(10 * ms, 1)],
            230 * ms,
        ),
        (
            "end_ns before the span cuts windows",
            50,
            0,
            300 * ms,
            0,
            [(10 * ms, 1), (260 * ms, 1)],
            120 * ms,
        ),
        (
            "an offset maps the adapter's clock to the record's",
            100,
            1_000 * ms,
            200 * ms,
            5_000 * ms,
            [(1_050 * ms, 1), (1_150 * ms, 1)],
            6_200 * ms,
        ),
        (
            "a timeline never begun starts at end_ns, empty",
            100,
            None,
            0,
            0,
            [],
            777 * ms,
        ),
    ]
    cases = []
    for name, window_ms, start, span, offset, completions, end in scripts:
        timeline = contract.Timeline(window_ms)
        if start is not None:
            timeline.begin(start, span, offset)
        for at, values in completions:
            timeline.completed(at, values)
        cases.append(
            {
                "name": name,
                "window_ms": window_ms,
                "begin": None
                if start is None
                else {"start_ns": start, "span_ns": span, "offset_ns": offset},
                "completions": [list(c) for c in completions],
                "end_ns": end,
                "record": timeline.record(end),
            }
        )
    return cases


def verification() -> dict:
    return {
        "read": read_cases(),
        "read_back": read_back_cases(),
        "lowest_in_flight": lowest_in_flight_cases(),
        "lifetime": lifetime_cases(),
        "timeline": timeline_cases(),
    }
