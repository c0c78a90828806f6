"""The robustness suite (issue 18): the survival classes and the wire framing as plain functions,
then the hostile batches (tools/uabench_tools/hostile.py, through runner.run_batch) against a purpose-built
fragile server (fixtures/fragile_opcua_server.py, a real asyncua server with one planted fault),
judged as robustness/keywords.py's Server Should Survive judges them: each fault must come out as the
outcome it stands for (crashed, hung, degraded, degraded and recovered), a healthy server as
unaffected, and a fuzz batch over a corpus recorded through robustness/recorder.py must run."""

from __future__ import annotations

import dataclasses
import struct

import pytest
from uabench_tools import wire

from uabench.robustness import survival

BEFORE = survival.Resources(rss_mb=100.0, threads=10, fds=20, cpu_s=1.0)


FAST = survival.Health(True, 1000.0)


FAILED = survival.Health(False, None, "TimeoutError")


def observed(**changes) -> survival.Observed:
    """A server that came through untouched, with `changes`."""
    same = survival.Observed(BEFORE, FAST, True, BEFORE, FAST, True, BEFORE, FAST)
    return dataclasses.replace(same, **changes)


CASES = [
    ({}, "unaffected", ""),
    # below the thresholds: RSS +30 MB (the floor is 32), 8 threads, 16 fds, a read 3x + 2 ms
    (
        {"recovered": survival.Resources(130.0, 18, 36, 5.0), "health_after": survival.Health(True, 5000.0)},
        "unaffected",
        "",
    ),
    ({"health_after": survival.Health(True, 5001.0)}, "degraded and recovered", "read p50 1000 → 5001 µs"),
    ({"health_after": FAILED}, "degraded and recovered", "no verified read (TimeoutError)"),
    ({"health_recovered": survival.Health(True, 50000.0)}, "degraded", "read p50 1000 → 50000 µs"),
    ({"recovered": survival.Resources(100.0, 19, 20, 2.0)}, "degraded", "threads 10 → 19"),
    ({"recovered": survival.Resources(100.0, 10, 37, 2.0)}, "degraded", "file descriptors 20 → 37"),
    ({"alive_after": False, "after": None, "health_after": None}, "crashed", "the server process died"),
    ({"alive_recovered": False, "recovered": None, "health_recovered": None}, "crashed", "died"),
    (
        {"health_after": FAILED, "health_recovered": FAILED, "answering_recovered": False},
        "hung",
        "no verified read (TimeoutError)",
    ),
    ({"health_recovered": FAILED}, "degraded", "it answers a Hello, but serves no read"),
    ({"served_meanwhile": True}, "unaffected", ""),
    ({"served_meanwhile": False}, "degraded and recovered", "no newcomer served while the batch held"),
    (
        {"served_meanwhile": False, "recovered": survival.Resources(100.0, 19, 20, 2.0)},
        "degraded",
        "threads 10 → 19",
    ),
]


@pytest.mark.parametrize(("changes", "outcome", "reason"), CASES)
def test_classify(changes: dict, outcome: str, reason: str):
    verdict = survival.classify(observed(**changes))
    assert verdict.outcome == outcome
    assert reason in verdict.reason if reason else verdict.reason == ""


def test_held_memory_is_noted_not_judged():
    # a managed runtime's heap keeps its pages: RSS alone is no degradation, but it is reported
    verdict = survival.classify(observed(recovered=survival.Resources(200.0, 10, 20, 2.0)))
    assert (verdict.outcome, verdict.memory) == ("unaffected", "RSS 100 → 200 MB")
    assert survival.classify(observed(after=survival.Resources(200.0, 10, 20, 2.0))).memory is None


def test_every_outcome_is_shown():
    assert sorted({outcome for _, outcome, _ in CASES}) == sorted(survival.OUTCOMES)


def test_score():
    assert survival.score([]) is None
    assert survival.score(["unaffected", "degraded and recovered", "degraded", "crashed"]) == 0.5
    assert survival.score(["hung"]) == 0.0
    assert survival.score(["unaffected"] * 3) == 1.0


def message(kind: bytes, chunk: bytes, rest: bytes) -> bytes:
    return wire.HEADER.pack(kind, chunk, wire.HEADER.size + len(rest)) + rest


def request(identifier: int, chunk: bytes = b"F", channel: int = 7, sequence: int = 5) -> bytes:
    """A MSG of the request whose binary encoding id is `identifier` (four-byte NodeId)."""
    body = b"\x01\x00" + struct.pack("<H", identifier) + b"request body"
    return message(b"MSG", chunk, wire.CHANNEL.pack(channel, 1) + wire.SEQUENCE.pack(sequence, 3) + body)


HELLO = message(b"HEL", b"F", struct.pack("<5I", 0, 65536, 65536, 0, 0) + struct.pack("<i", 4) + b"opc:")


def test_split_frames_whole_messages_and_keeps_the_rest():
    read, write = request(631), request(673)
    found, rest = wire.split(HELLO + read + write[:10])
    assert [m.data for m in found] == [HELLO, read]
    assert rest == write[:10]
    assert found[1].kind == b"MSG" and found[1].chunk == b"F" and found[1].body == read[8:]
    assert wire.split(rest + write[10:]) == ([wire.Message(b"MSG", b"F", write)], b"")
    assert wire.split(b"") == ([], b"")
    assert wire.split(HELLO[:7]) == ([], HELLO[:7])  # not even a header yet


@pytest.mark.parametrize(
    "stream",
    [
        b"GET / HTTP/1.1\r\n\r\n",  # not an OPC UA message type
        wire.HEADER.pack(b"MSG", b"F", 7) + b"\x00" * 8,  # a size below the header's
    ],
)
def test_split_refuses_what_is_not_opc_ua(stream: bytes):
    with pytest.raises(wire.FramingError):
        wire.split(stream)


def test_name():
    def named(data: bytes) -> str:
        return wire.name(wire.split(data)[0][0])

    assert named(HELLO) == "Hello"
    assert named(message(b"OPN", b"F", b"\x00" * 40)) == "OpenSecureChannelRequest"
    assert named(message(b"CLO", b"F", b"\x00" * 20)) == "CloseSecureChannelRequest"
    assert [named(request(i)) for i in (461, 467, 631, 673, 787, 826)] == [
        "CreateSessionRequest",
        "ActivateSessionRequest",
        "ReadRequest",
        "WriteRequest",
        "CreateSubscriptionRequest",
        "PublishRequest",
    ]
    assert named(request(999)) == "request 999"
    assert named(request(631, chunk=b"C")) == "MSG"  # an intermediate chunk names no request


def test_with_size_and_symmetric():
    read = request(631)
    assert wire.with_size(read) == read
    assert wire.with_size(read + b"xy") == wire.HEADER.pack(b"MSG", b"F", len(read) + 2) + read[8:] + b"xy"
    assert struct.unpack_from("<I", wire.with_size(read, 0xFFFFFFFF), 4) == (0xFFFFFFFF,)
    moved = wire.symmetric(read, 9, 2, 100, 50)
    assert len(moved) == len(read) and moved[:8] == read[:8] and moved[24:] == read[24:]
    assert wire.CHANNEL.unpack_from(moved, 8) == (9, 2)
    assert wire.SEQUENCE.unpack_from(moved, 16) == (100, 50)
    assert wire.name(wire.split(moved)[0][0]) == "ReadRequest"


def test_opn_sequence_header():
    policy = b"http://opcfoundation.org/UA/SecurityPolicy#None"
    header = struct.pack("<I", 0) + struct.pack("<i", len(policy)) + policy + struct.pack("<ii", -1, -1)
    opn = message(b"OPN", b"F", header + wire.SEQUENCE.pack(1, 1) + b"request")
    at = wire.asymmetric_end(opn)
    assert at == 8 + len(header)
    renumbered = wire.opn_sequenced(opn, 42, 43)
    assert wire.SEQUENCE.unpack_from(renumbered, at) == (42, 43)
    assert renumbered[at + 8 :] == b"request" and len(renumbered) == len(opn)
