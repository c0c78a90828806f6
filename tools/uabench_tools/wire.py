"""OPC UA TCP framing (OPC 10000-6 §7.1.2): a byte stream as messages, each an 8-byte header
(3-byte type, 1-byte chunk type, UInt32 size, little-endian) and its body. Plain Python with no
import of uabench or asyncua: the recorder (harness side) and the hostile client (the tools' venv (tools/.venv),
tools/uabench_tools/hostile.py) both frame with it."""

from __future__ import annotations

import struct
from dataclasses import dataclass

HEADER = struct.Struct("<3scI")
TYPES = (b"HEL", b"ACK", b"ERR", b"RHE", b"OPN", b"MSG", b"CLO")
# MSG and CLO: after the header, the channel id and token id (symmetric security header), then
# the sequence header (sequence number, request id); OPN: the channel id, then the asymmetric
# header (policy URI, certificate, thumbprint: three length-prefixed strings), then the sequence header.
CHANNEL = struct.Struct("<II")  # SecureChannelId, TokenId
SEQUENCE = struct.Struct("<II")  # SequenceNumber, RequestId


# The requests of the corpus by their binary encoding's NodeId (ns 0, OPC 10000-6 Annex A):
# a MSG's body starts with it, four-byte encoded (0x01, namespace 0, UInt16).
REQUESTS = {
    422: "FindServersRequest",
    428: "GetEndpointsRequest",
    461: "CreateSessionRequest",
    467: "ActivateSessionRequest",
    473: "CloseSessionRequest",
    527: "BrowseRequest",
    554: "TranslateBrowsePathsToNodeIdsRequest",
    631: "ReadRequest",
    673: "WriteRequest",
    751: "CreateMonitoredItemsRequest",
    787: "CreateSubscriptionRequest",
    826: "PublishRequest",
    832: "RepublishRequest",
    847: "DeleteSubscriptionsRequest",
}
# What the fuzzer needs recorded (issue 18's corpus): the opening and the measured services.
CORPUS = (
    "Hello",
    "OpenSecureChannelRequest",
    "CreateSessionRequest",
    "ActivateSessionRequest",
    "ReadRequest",
    "WriteRequest",
    "CreateSubscriptionRequest",
    "PublishRequest",
)


class FramingError(ValueError):
    pass


@dataclass(frozen=True)
class Message:
    kind: bytes  # b"HEL", b"MSG", ...
    chunk: bytes  # b"F", b"C", b"A"
    data: bytes  # the whole message, header included

    @property
    def body(self) -> bytes:
        return self.data[HEADER.size :]


def split(stream: bytes) -> tuple[list[Message], bytes]:
    """The whole messages at the start of `stream`, and the bytes of an incomplete one after them."""
    found = []
    at = 0
    while len(stream) - at >= HEADER.size:
        kind, chunk, size = HEADER.unpack_from(stream, at)
        if kind not in TYPES or size < HEADER.size:
            raise FramingError(
                f"not an OPC UA TCP message at byte {at}: {stream[at : at + 8].hex()}"
            )
        if len(stream) - at < size:
            break
        found.append(Message(kind, chunk, stream[at : at + size]))
        at += size
    return found, stream[at:]


def name(message: Message) -> str:
    """What a client's message is: Hello, OpenSecureChannelRequest, a MSG's request type."""
    if message.kind == b"HEL":
        return "Hello"
    if message.kind == b"OPN":
        return "OpenSecureChannelRequest"
    if message.kind == b"CLO":
        return "CloseSecureChannelRequest"
    body = message.data[24:]
    if (
        message.kind == b"MSG"
        and message.chunk == b"F"
        and len(body) >= 4
        and body[:2] == b"\x01\x00"
    ):
        (identifier,) = struct.unpack_from("<H", body, 2)
        return REQUESTS.get(identifier, f"request {identifier}")
    return message.kind.decode(errors="replace")


def with_size(data: bytes, size: int | None = None) -> bytes:
    """`data` with its header's size field set (by default to its real length)."""
    return data[:4] + struct.pack("<I", len(data) if size is None else size) + data[8:]


def symmetric(
    data: bytes, channel: int, token: int, sequence: int, request: int
) -> bytes:
    """A recorded MSG or CLO moved onto another channel: its channel and token ids, sequence
    number and request id replaced (security policy None: nothing is signed)."""
    return (
        data[:8]
        + CHANNEL.pack(channel, token)
        + SEQUENCE.pack(sequence, request)
        + data[24:]
    )


def asymmetric_end(data: bytes) -> int:
    """Where an OPN's sequence header starts: after the channel id and the three byte strings of
    its asymmetric security header (a length of -1 is a null string)."""
    at = HEADER.size + 4
    for _ in range(3):
        (length,) = struct.unpack_from("<i", data, at)
        at += 4 + max(length, 0)
    return at


def opn_sequenced(data: bytes, sequence: int, request: int) -> bytes:
    at = asymmetric_end(data)
    return data[:at] + SEQUENCE.pack(sequence, request) + data[at + SEQUENCE.size :]
