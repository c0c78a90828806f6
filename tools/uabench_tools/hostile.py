"""The hostile client of the robustness suite (issue 18): one batch of malformed messages or one
targeted attack against one server, bounded in count and time, printing one JSON line at the end:
{"batch", "cases", "answers": {kind: count}, "failure": {...} | null, "details": {...}}.

Runs in the tools' venv (tools/.venv) (the asyncua the asyncua adapter pins), for asyncua's codec: a recorded
message is decoded and re-encoded to move it onto a fresh secure channel and session (channel
and token ids, sequence numbers, the session's authentication token), so a mutated request gets
past the channel's checks to the server's decoder and service code. Imports nothing of uabench
but wire.py beside it.

    implementations/asyncua/.venv/bin/python hostile.py '<JSON arguments>'

arguments: {"endpoint", "batch", "seed", "cases", "time_s", "timeout_s", "corpus" (a JSON file
of recorded messages: robustness/recorder.py), "reproducers" (a directory)}.

The mutations: bit flips come from zzuf (Caca Labs' seeded bit-flip fuzzer, Debian's `zzuf`),
run as a filter on each message; the structure-aware ones (a size field, truncation, a huge array
length, nested Variants, an invalid NodeId encoding) are written here, because they need the
layout of OPC UA's binary encoding (OPC 10000-6 §5.2), which no general fuzzer knows."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import struct
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from asyncua import Client, ua
from asyncua.common.utils import Buffer
from asyncua.ua.ua_binary import (
    nodeid_from_binary,
    nodeid_to_binary,
    struct_from_binary,
    struct_to_binary,
)

from uabench_tools import wire

LIVENESS_S = (
    2.0  # a Hello must be acknowledged within this for the server to count as alive
)
HOLD_S = (
    1.0  # how long a truncated message is held open before the connection is closed
)
ZZUF_RATIOS = (0.001, 0.004, 0.02)
HUGE = (0x7FFFFFFF, 0xFFFFFFFF, 0x10000000)
NESTING = (64, 1000, 100000)
BAD_NODEID_ENCODINGS = (0x06, 0x07, 0x3F, 0x46, 0x86, 0xC5)


@dataclass
class Answer:
    kind: str  # "ack", "error", "response", "closed", "silent"
    status: str | None = None


@dataclass
class Replay:
    """One connection replaying the recorded session's opening onto a fresh channel and session."""

    host: str
    port: int
    endpoint: str
    corpus: dict[str, wire.Message]
    timeout_s: float
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    channel: int = 0
    token: int = 0
    sequence: int = 1
    request_id: int = 1
    authentication: Any = None
    anonymous: str | None = None  # this server's anonymous identity token policy id
    pending: bytes = b""
    answers: list[Answer] = field(default_factory=list)

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port), self.timeout_s
        )

    async def send(self, data: bytes) -> None:
        assert self.writer is not None
        self.writer.write(data)
        await self.writer.drain()

    async def receive(self, timeout_s: float | None = None) -> wire.Message | Answer:
        """The next whole message, or why there is none (closed, silent)."""
        assert self.reader is not None
        deadline = time.monotonic() + (timeout_s or self.timeout_s)
        while True:
            found, self.pending = wire.split(self.pending)
            if found:
                first, rest = found[0], b"".join(m.data for m in found[1:])
                self.pending = rest + self.pending
                return first
            left = deadline - time.monotonic()
            if left <= 0:
                return Answer("silent")
            try:
                data = await asyncio.wait_for(self.reader.read(65536), left)
            except TimeoutError:
                return Answer("silent")
            except (ConnectionError, OSError):
                return Answer("closed")
            if not data:
                return Answer("closed")
            self.pending += data

    async def answer(self, timeout_s: float | None = None) -> Answer:
        """What the server made of the last message: its reply's kind and status."""
        got = await self.receive(timeout_s)
        if isinstance(got, Answer):
            return got
        if got.kind == b"ACK":
            return Answer("ack")
        if got.kind == b"ERR":
            (code,) = struct.unpack_from("<I", got.data, 8)
            return Answer("error", ua.StatusCode(code).name)
        if got.kind in (b"MSG", b"OPN"):
            body = (
                got.data[wire.asymmetric_end(got.data) + 8 :]
                if got.kind == b"OPN"
                else got.data[24:]
            )
            buffer = Buffer(body)
            nodeid_from_binary(buffer)
            header = struct_from_binary(ua.ResponseHeader, buffer)
            return Answer("response", header.ServiceResult.name)
        return Answer("response", got.kind.decode())

    async def hello(self) -> Answer:
        message = ua.Hello(EndpointUrl=self.endpoint)
        await self.send(hello_bytes(message))
        return await self.answer()

    async def open(self) -> None:
        """Hello, OpenSecureChannel and an activated session, from the recorded messages."""
        await self.connect()
        if (await self.hello()).kind != "ack":
            raise ConnectionError("no ACK to Hello")
        opened = self.corpus["OpenSecureChannelRequest"].data
        # the client's sequence numbers go on from its own OpenSecureChannel's (the server's are its own)
        self.sequence = struct.unpack_from("<I", opened, wire.asymmetric_end(opened))[0]
        await self.send(opened)
        got = await self.receive()
        if not isinstance(got, wire.Message) or got.kind != b"OPN":
            raise ConnectionError(f"no OpenSecureChannel response: {got}")
        start = wire.asymmetric_end(got.data)
        # asyncua's message classes begin with their TypeId: the body decodes whole
        response = struct_from_binary(
            ua.OpenSecureChannelResponse, Buffer(got.data[start + 8 :])
        )
        self.channel = response.Parameters.SecurityToken.ChannelId
        self.token = response.Parameters.SecurityToken.TokenId
        created = await self.exchange(self.corpus["CreateSessionRequest"].data)
        if not isinstance(created, wire.Message):
            raise ConnectionError(f"no CreateSession response: {created}")
        session = struct_from_binary(
            ua.CreateSessionResponse, Buffer(created.data[24:])
        ).Parameters
        self.authentication = session.AuthenticationToken
        # the recorded ActivateSession names the reference server's anonymous token policy: this
        # server's own is taken from the endpoints it just sent
        self.anonymous = next(
            (
                token.PolicyId
                for endpoint in session.ServerEndpoints or []
                for token in endpoint.UserIdentityTokens or []
                if token.TokenType == ua.UserTokenType.Anonymous
            ),
            None,
        )
        activated = await self.exchange(self.corpus["ActivateSessionRequest"].data)
        if not isinstance(activated, wire.Message):
            raise ConnectionError(f"no ActivateSession response: {activated}")

    def moved(self, data: bytes) -> bytes:
        """A recorded MSG on this channel and session: ids, numbers and the session token replaced."""
        self.sequence += 1
        self.request_id += 1
        body = data[24:]
        if self.authentication is not None:
            kind = ua.uatypes.extension_objects_by_typeid[
                nodeid_from_binary(Buffer(body))
            ]
            request = struct_from_binary(
                kind, Buffer(body)
            )  # its TypeId first, as encoded
            request.RequestHeader.AuthenticationToken = self.authentication
            if (
                isinstance(request, ua.ActivateSessionRequest)
                and self.anonymous is not None
            ):
                request.Parameters.UserIdentityToken = ua.AnonymousIdentityToken(
                    PolicyId=self.anonymous
                )
            body = struct_to_binary(request)
        moved = wire.symmetric(
            data[:24] + body, self.channel, self.token, self.sequence, self.request_id
        )
        return wire.with_size(moved)

    async def exchange(self, data: bytes) -> wire.Message | Answer:
        await self.send(self.moved(data))
        return await self.receive()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def hello_bytes(message: Any) -> bytes:
    body = struct_to_binary(message)
    return wire.HEADER.pack(b"HEL", b"F", wire.HEADER.size + len(body)) + body


# --- mutations of one recorded message (already moved onto the case's channel and session) -------


def _zzuf(data: bytes, seed: int, ratio: float) -> bytes:
    done = subprocess.run(
        ["zzuf", "-s", str(seed), "-r", str(ratio)],
        input=data,
        capture_output=True,
        timeout=10,
    )
    return done.stdout


def bitflip(rng: random.Random, data: bytes, seed: int) -> tuple[str, bytes]:
    ratio = rng.choice(ZZUF_RATIOS)
    if (
        rng.random() < 0.8
    ):  # mostly the body: the channel's header checks would stop the rest
        return f"zzuf -s {seed} -r {ratio} (body)", data[:24] + _zzuf(
            data[24:], seed, ratio
        )
    return f"zzuf -s {seed} -r {ratio} (whole)", _zzuf(data, seed, ratio)


def length(rng: random.Random, data: bytes, _: int) -> tuple[str, bytes]:
    if rng.random() < 0.5:
        size = rng.choice([0, 7, 8, len(data) - 1, len(data) + 1, *HUGE])
        return f"message size field {size}", wire.with_size(data, size)
    # an inner Int32 that reads as a plausible length (a count or a string length below what
    # follows it): the layout-blind way to find length prefixes
    candidates = [
        at
        for at in range(24, len(data) - 4)
        if 0 < struct.unpack_from("<i", data, at)[0] <= len(data) - at - 4
    ]
    if not candidates:
        return "message size field 0", wire.with_size(data, 0)
    at, value = rng.choice(candidates), rng.choice([-2, *HUGE])
    return f"Int32 at byte {at} set to {value}", data[:at] + struct.pack(
        "<I", value & 0xFFFFFFFF
    ) + data[at + 4 :]


def truncate(rng: random.Random, data: bytes, _: int) -> tuple[str, bytes]:
    cut = rng.randrange(9, len(data))
    return f"cut at byte {cut} of {len(data)} (size field unchanged)", data[:cut]


def _read_prefix(authentication: Any) -> bytes:
    """A ReadRequest's bytes up to its NodesToRead count (typeid, header, maxAge, timestamps)."""
    header = ua.RequestHeader(AuthenticationToken=authentication or ua.NodeId())
    return (
        nodeid_to_binary(
            ua.FourByteNodeId(ua.ObjectIds.ReadRequest_Encoding_DefaultBinary)
        )
        + struct_to_binary(header)
        + struct.pack("<dI", 0.0, 2)
    )


def huge_array(rng: random.Random, replay: Replay) -> tuple[str, bytes]:
    count = rng.choice(HUGE)
    one = struct_to_binary(ua.ReadValueId(NodeId=ua.NodeId(2259), AttributeId=13))
    body = (
        _read_prefix(replay.authentication)
        + struct.pack("<I", count)
        + one * rng.choice([0, 1, 16])
    )
    return f"ReadRequest with NodesToRead count {count}", _symmetric_message(
        replay, body
    )


def huge_string(rng: random.Random, replay: Replay) -> tuple[str, bytes]:
    value = rng.choice(HUGE)
    node = (
        struct.pack("<BH", 3, 1) + struct.pack("<I", value) + b"x" * 16
    )  # a String NodeId claiming `value` bytes
    body = (
        _read_prefix(replay.authentication)
        + struct.pack("<I", 1)
        + node
        + struct.pack("<I", 13)
        + b"\xff" * 10
    )
    return f"ReadRequest with a String NodeId of length {value}", _symmetric_message(
        replay, body
    )


def nested(rng: random.Random, replay: Replay) -> tuple[str, bytes]:
    depth = rng.choice(NESTING)
    # a Variant array (encoding 0x80 | 24) of one Variant, `depth` times, around a Double
    value = b"\x98\x01\x00\x00\x00" * depth + b"\x0b" + struct.pack("<d", 1.5)
    header = ua.RequestHeader(AuthenticationToken=replay.authentication or ua.NodeId())
    node = nodeid_to_binary(ua.NodeId("Write_0", 1))
    body = (
        nodeid_to_binary(
            ua.FourByteNodeId(ua.ObjectIds.WriteRequest_Encoding_DefaultBinary)
        )
        + struct_to_binary(header)
        + struct.pack("<I", 1)
        + node
        + struct.pack("<I", 13)
        + b"\xff\xff\xff\xff"  # IndexRange: null
        + b"\x01"  # DataValue mask: a value
        + value
    )
    return f"WriteRequest of a Variant nested {depth} deep", _symmetric_message(
        replay, body
    )


def bad_nodeid(rng: random.Random, replay: Replay) -> tuple[str, bytes]:
    encoding = rng.choice(BAD_NODEID_ENCODINGS)
    node = bytes([encoding]) + bytes(
        rng.randrange(256) for _ in range(rng.choice([0, 2, 6, 20]))
    )
    body = (
        _read_prefix(replay.authentication)
        + struct.pack("<I", 1)
        + node
        + struct.pack("<I", 13)
    )
    return (
        f"ReadRequest with NodeId encoding byte 0x{encoding:02x}",
        _symmetric_message(replay, body),
    )


def _symmetric_message(replay: Replay, body: bytes) -> bytes:
    replay.sequence += 1
    replay.request_id += 1
    head = wire.HEADER.pack(b"MSG", b"F", 0) + wire.CHANNEL.pack(
        replay.channel, replay.token
    )
    return wire.with_size(
        head + wire.SEQUENCE.pack(replay.sequence, replay.request_id) + body
    )


Mutation = Callable[[random.Random, bytes, int], tuple[str, bytes]]
Builder = Callable[[random.Random, Replay], tuple[str, bytes]]
MUTATIONS: dict[str, Mutation] = {
    "fuzz-bitflip": bitflip,
    "fuzz-length": length,
    "fuzz-truncate": truncate,
}
BUILDERS: dict[str, Builder] = {
    "fuzz-huge-array": huge_array,
    "fuzz-huge-string": huge_string,
    "fuzz-nested": nested,
    "fuzz-nodeid": bad_nodeid,
}


# --- the run -----------------------------------------------------------------------------------


class Batch:
    def __init__(self, arguments: dict) -> None:
        self.endpoint: str = arguments["endpoint"]
        url = urlparse(self.endpoint)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 4840
        self.name: str = arguments["batch"]
        self.seed: int = int(arguments.get("seed", 1))
        self.cases: int = int(arguments.get("cases", 20))
        self.deadline = time.monotonic() + float(arguments.get("time_s", 60))
        self.timeout_s: float = float(arguments.get("timeout_s", 2.0))
        self.reproducers = Path(arguments.get("reproducers", "."))
        self.corpus = (
            load_corpus(Path(arguments["corpus"])) if arguments.get("corpus") else {}
        )
        self.answers: Counter[str] = Counter()
        self.details: dict[str, Any] = {}
        self.failure: dict | None = None
        self.done = 0

    def replay(self) -> Replay:
        return Replay(self.host, self.port, self.endpoint, self.corpus, self.timeout_s)

    def count(self, answer: Answer) -> None:
        self.answers[
            f"{answer.kind} {answer.status}" if answer.status else answer.kind
        ] += 1

    async def alive(self) -> bool:
        """A new connection's Hello is acknowledged within LIVENESS_S (twice tried, 1 s apart)."""
        for attempt in range(2):
            probe = Replay(self.host, self.port, self.endpoint, {}, LIVENESS_S)
            try:
                await probe.connect()
                if (await probe.hello()).kind == "ack":
                    return True
            except (OSError, TimeoutError, ConnectionError):
                pass
            finally:
                probe.close()
            if attempt == 0:
                await asyncio.sleep(1.0)
        return False

    def fail(self, case: int, what: str, data: bytes | None, prefix: list[str]) -> None:
        """The server no longer answers a Hello after this case: its bytes are the reproducer."""
        self.reproducers.mkdir(parents=True, exist_ok=True)
        stem = self.reproducers / f"{self.name}-seed{self.seed}-case{case}"
        if data is not None:
            stem.with_suffix(".bin").write_bytes(data)
        stem.with_suffix(".json").write_text(
            json.dumps(
                {
                    "batch": self.name,
                    "seed": self.seed,
                    "case": case,
                    "what": what,
                    "after": prefix,
                },
                indent=1,
            )
        )
        self.failure = {
            "case": case,
            "what": what,
            "reproducer": str(stem.with_suffix(".bin" if data else ".json")),
        }

    async def fuzz(self) -> None:
        rng = random.Random(self.seed)
        targets = [name for name in self.corpus if name in wire.REQUESTS.values()]
        for case in range(self.cases):
            if time.monotonic() > self.deadline:
                self.details["stopped"] = "time bound"
                break
            replay = self.replay()
            prefix = ["Hello", "OpenSecureChannel", "CreateSession", "ActivateSession"]
            data = b""
            what = ""
            try:
                try:
                    await replay.open()
                    opened = True
                except (
                    OSError,
                    TimeoutError,
                    ConnectionError,
                    ValueError,
                    KeyError,
                    struct.error,
                ) as error:
                    # the server refused the opening, or answered it in a way asyncua cannot decode
                    self.count(Answer("setup failed", type(error).__name__))
                    opened = False
                # building the case: a failure here is this client's own, and ends the batch loudly
                if not opened:
                    pass
                elif self.name in MUTATIONS:
                    target = rng.choice(targets)
                    seed = self.seed * 100003 + case
                    what, data = MUTATIONS[self.name](
                        rng, replay.moved(self.corpus[target].data), seed
                    )
                    what = f"{target}: {what}"
                else:
                    what, data = BUILDERS[self.name](rng, replay)
                try:
                    if opened:
                        await replay.send(data)
                        self.count(
                            await replay.answer(
                                HOLD_S if self.name == "fuzz-truncate" else None
                            )
                        )
                except (OSError, TimeoutError, ConnectionError) as error:
                    self.count(Answer("closed", type(error).__name__))
                except (
                    ValueError,
                    KeyError,
                    struct.error,
                ) as error:  # an answer asyncua cannot decode
                    self.count(Answer("undecodable answer", type(error).__name__))
            finally:
                replay.close()
                self.done += 1
            if not await self.alive():
                self.fail(case, what, data, prefix)
                break

    async def run(self) -> dict:
        if self.name in MUTATIONS or self.name in BUILDERS:
            await self.fuzz()
        else:
            try:
                await ATTACKS[self.name](self)
            except (
                ua.UaError,
                OSError,
                TimeoutError,
                ConnectionError,
            ) as error:  # e.g. the first session refused
                self.details["ended"] = (
                    f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
                )
            if self.failure is None and not await self.alive():
                self.fail(self.done, f"after the {self.name} attack", None, [])
        return {
            "batch": self.name,
            "seed": self.seed,
            "cases": self.done,
            "answers": dict(self.answers),
            "failure": self.failure,
            "details": self.details,
        }


def load_corpus(path: Path) -> dict[str, wire.Message]:
    """The recorded messages by request type (the first of each)."""
    found: dict[str, wire.Message] = {}
    for entry in json.loads(path.read_text())["messages"]:
        data = bytes.fromhex(entry["hex"])
        message = wire.Message(data[:3], data[3:4], data)
        found.setdefault(wire.name(message), message)
    return found


# --- targeted attacks ---------------------------------------------------------------------------


async def hello_buffers(batch: Batch) -> None:
    """Hellos with absurd buffer sizes, limits, protocol version and URL (OPC 10000-6 §7.1.2.3)."""
    hellos = [
        ua.Hello(0, 0, 0, 0, 0, batch.endpoint),
        ua.Hello(0, 1, 1, 1, 1, batch.endpoint),
        ua.Hello(0, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, batch.endpoint),
        ua.Hello(0xFFFFFFFF, 8192, 8192, 0, 0, batch.endpoint),
        ua.Hello(0, 8192, 8192, 0, 0, batch.endpoint + "/" + "x" * 100000),
    ]
    for message in hellos:
        replay = batch.replay()
        try:
            await replay.connect()
            await replay.send(hello_bytes(message))
            batch.count(await replay.answer())
        except (OSError, TimeoutError) as error:
            batch.count(Answer("closed", type(error).__name__))
        finally:
            replay.close()
        batch.done += 1


async def chunk_flood(batch: Batch) -> None:
    """A ReadRequest split into far more intermediate chunks than any server allows."""
    replay = batch.replay()
    try:
        await replay.open()
        whole = replay.moved(batch.corpus["ReadRequest"].data)
        body = whole[24:]
        chunks = min(20000, batch.cases * 1000)
        piece = max(1, len(body) // chunks)
        sent = 0
        for k in range(chunks):
            if time.monotonic() > batch.deadline:
                break
            part = body[k * piece : (k + 1) * piece] or b"\x00"
            replay.sequence += 1
            head = wire.HEADER.pack(b"MSG", b"C", 0) + wire.CHANNEL.pack(
                replay.channel, replay.token
            )
            await replay.send(
                wire.with_size(
                    head + wire.SEQUENCE.pack(replay.sequence, replay.request_id) + part
                )
            )
            sent += 1
        batch.details["chunks_sent"] = sent
        batch.count(await replay.answer())
    except (OSError, TimeoutError, ConnectionError) as error:
        batch.count(Answer("closed", type(error).__name__))
    finally:
        replay.close()
    batch.done += 1


async def oversize_message(batch: Batch) -> None:
    """One WriteRequest of a 64 MiB ByteString in a single chunk, past any negotiated size."""
    replay = batch.replay()
    size = 64 * 1024 * 1024
    try:
        await replay.open()
        header = ua.RequestHeader(AuthenticationToken=replay.authentication)
        body = (
            nodeid_to_binary(
                ua.FourByteNodeId(ua.ObjectIds.WriteRequest_Encoding_DefaultBinary)
            )
            + struct_to_binary(header)
            + struct.pack("<I", 1)
            + nodeid_to_binary(ua.NodeId("Write_0", 1))
            + struct.pack("<I", 13)
            + b"\xff\xff\xff\xff\x01\x0f"
            + struct.pack("<I", size)
        )
        message = _symmetric_message(replay, body)
        await replay.send(wire.with_size(message, len(message) + size))
        block = b"\xab" * (1 << 20)
        for _ in range(64):
            if time.monotonic() > batch.deadline:
                break
            await replay.send(block)
        batch.count(await replay.answer())
    except (OSError, TimeoutError, ConnectionError) as error:
        batch.count(Answer("closed", type(error).__name__))
    finally:
        replay.close()
    batch.done += 1


async def _held(
    batch: Batch, count: int, feed: Callable[[Replay], Awaitable[None]], hold_s: float
) -> None:
    """`count` connections each fed by `feed` at once for `hold_s`, with a liveness probe halfway:
    does the server serve a newcomer while they hold it?"""
    replays = [batch.replay() for _ in range(count)]
    opened = 0
    for replay in replays:
        try:
            await replay.connect()
            opened += 1
        except (OSError, TimeoutError):
            break
    tasks = [asyncio.ensure_future(feed(r)) for r in replays[:opened]]
    await asyncio.sleep(min(hold_s / 2, max(0.0, batch.deadline - time.monotonic())))
    batch.details["served_a_newcomer_meanwhile"] = await batch.alive()
    await asyncio.sleep(min(hold_s / 2, max(0.0, batch.deadline - time.monotonic())))
    for task in tasks:
        task.cancel()
    for replay in replays:
        replay.close()
    batch.details["connections"] = opened
    batch.done = opened


async def slowloris(batch: Batch) -> None:
    """Connections each sending its Hello one byte every 200 ms (a partial message held open)."""
    data = hello_bytes(ua.Hello(EndpointUrl=batch.endpoint))

    async def trickle(replay: Replay) -> None:
        for byte in data:
            await replay.send(bytes([byte]))
            await asyncio.sleep(0.2)

    await _held(batch, min(200, batch.cases * 10), trickle, 10.0)


async def idle_connections(batch: Batch) -> None:
    """TCP connections that never send a Hello (OPC 10000-6 §7.1.3: the server may close them)."""

    async def nothing(_: Replay) -> None:
        await asyncio.sleep(3600)

    await _held(batch, min(1000, batch.cases * 50), nothing, 6.0)


async def _client(batch: Batch) -> Client:
    client = Client(batch.endpoint, timeout=batch.timeout_s)
    await client.connect_socket()
    await client.send_hello()
    await client.open_secure_channel()
    await client.create_session()
    await client.activate_session()
    return client


async def _close_all(clients: list[Client]) -> None:
    """CloseSession (deleting its subscriptions) on every session a flood opened, each bounded:
    the attack ends cleanly, so what the server still shows after it is its own. (Sessions left
    open would outlive their connections until their timeout, by design: OPC 10000-4 §5.7.2.)"""

    async def close(client: Client) -> None:
        try:
            await asyncio.wait_for(client.uaclient.close_session(True), 5.0)
        except (ua.UaError, OSError, TimeoutError, ConnectionError):
            pass
        finally:
            client.disconnect_socket()

    for start in range(
        0, len(clients), 50
    ):  # fifty at a time: a flood of closes is not the point
        await asyncio.gather(*(close(c) for c in clients[start : start + 50]))


def _flood_subscription() -> ua.CreateSubscriptionParameters:
    """A flood's subscription: slow (1 s) and short-lived (30 s without a Publish), so what the
    flood leaves behind, should its CloseSession fail, goes by itself."""
    return ua.CreateSubscriptionParameters(
        RequestedPublishingInterval=1000, RequestedLifetimeCount=30, RequestedMaxKeepAliveCount=10,
        PublishingEnabled=True,
    )  # fmt: skip


async def _until_refused(
    batch: Batch,
    made: list,
    cap: int,
    create: Callable[[], Awaitable[Any]],
    errors: tuple[type[BaseException], ...],
) -> Counter[str]:
    """Appends to `made` what `create` makes, one at a time, until the server refuses, then as
    many attempts again as a tenth of those made (at least ten), within `cap` attempts and the
    batch's time bound: the refusals by status. `made` is the caller's, to close whatever
    happens here."""
    refusals: Counter[str] = Counter()
    while (
        len(made) + sum(refusals.values()) < cap and time.monotonic() < batch.deadline
    ):
        if refusals and sum(refusals.values()) >= max(10, len(made) // 10):
            break
        try:
            made.append(await create())
        except errors as error:
            refusals[_refusal(error)] += 1
    return refusals


async def session_flood(batch: Batch) -> None:
    """Sessions until the server refuses, then as many attempts again (bounded)."""
    clients: list[Client] = []
    refusals: Counter[str] = Counter()
    try:
        refusals = await _until_refused(
            batch, clients, min(2000, batch.cases * 100), lambda: _client(batch),
            (ua.UaError, OSError, TimeoutError, ConnectionError),
        )  # fmt: skip
    finally:
        batch.details.update(sessions=len(clients), refusals=dict(refusals))
        await _close_all(clients)
    batch.done = len(clients) + sum(refusals.values())


async def subscription_flood(batch: Batch) -> None:
    """Subscriptions in one session until refused, then as many attempts again (bounded)."""
    client = await _client(batch)
    subscriptions: list[Any] = []
    refusals: Counter[str] = Counter()
    params = _flood_subscription()
    try:
        refusals = await _until_refused(
            batch, subscriptions, min(5000, batch.cases * 250),
            lambda: client.uaclient.create_subscription(params, lambda *_: None), (ua.UaError, TimeoutError),
        )  # fmt: skip
    finally:
        batch.details.update(subscriptions=len(subscriptions), refusals=dict(refusals))
        await _close_all([client])
    batch.done = len(subscriptions) + sum(refusals.values())


async def monitored_item_flood(batch: Batch) -> None:
    """Monitored items in one subscription, a thousand per request, until refused (bounded)."""
    client = await _client(batch)
    created, refusals = 0, Counter[str]()
    try:
        subscription = await client.uaclient.create_subscription(
            _flood_subscription(), lambda *_: None
        )
        cap = min(50000, batch.cases * 1000)
        node = ua.NodeId(ua.ObjectIds.Server_ServerStatus_State)
        while (
            created < cap
            and time.monotonic() < batch.deadline
            and sum(refusals.values()) < 10
        ):
            items = ua.CreateMonitoredItemsParameters()
            items.SubscriptionId = subscription.SubscriptionId
            items.ItemsToCreate = [
                ua.MonitoredItemCreateRequest(
                    ItemToMonitor=ua.ReadValueId(NodeId=node, AttributeId=13),
                    MonitoringMode=ua.MonitoringMode.Reporting,
                    RequestedParameters=ua.MonitoringParameters(
                        ClientHandle=created + k, SamplingInterval=1000
                    ),
                )
                for k in range(1000)
            ]
            try:
                results = await client.uaclient.create_monitored_items(items)
            except (ua.UaError, TimeoutError) as error:
                refusals[_refusal(error)] += 1
                continue
            good = sum(1 for r in results if r.StatusCode.is_good())
            created += good
            for r in results:
                if not r.StatusCode.is_good():
                    refusals[r.StatusCode.name] += 1
    finally:
        batch.details.update(monitored_items=created, refusals=dict(refusals))
        await _close_all([client])
    batch.done = created + sum(refusals.values())


async def publish_flood(batch: Batch) -> None:
    """Publish requests without acknowledgements, sent at once on one session."""
    replay = batch.replay()
    count = min(5000, batch.cases * 250)
    try:
        await replay.open()
        await replay.exchange(
            batch.corpus["CreateSubscriptionRequest"].data
        )  # Publish requests queue
        publish = ua.PublishRequest()
        publish.RequestHeader = ua.RequestHeader(
            AuthenticationToken=replay.authentication, TimeoutHint=5000
        )
        body = struct_to_binary(
            publish
        )  # asyncua's request objects encode their TypeId first
        for _ in range(count):
            await replay.send(_symmetric_message(replay, body))
        end = time.monotonic() + 3.0
        while time.monotonic() < end:
            answer = await replay.answer(max(0.1, end - time.monotonic()))
            if answer.kind in ("silent", "closed"):
                batch.count(answer)
                break
            batch.count(answer)
    except (OSError, TimeoutError, ConnectionError) as error:
        batch.count(Answer("closed", type(error).__name__))
    finally:
        replay.close()
    batch.done = count


async def session_churn(batch: Batch) -> None:
    """Connect, read, disconnect, over and over until the batch's time bound (the soak's churn)."""
    read = ua.ReadParameters()
    read.NodesToRead = [
        ua.ReadValueId(
            NodeId=ua.NodeId(ua.ObjectIds.Server_ServerStatus_State), AttributeId=13
        )
    ]
    while time.monotonic() < batch.deadline and batch.done < batch.cases:
        try:
            client = await _client(batch)
            try:
                await client.uaclient.read(read)
                await client.close_session()
                batch.count(Answer("served"))
            finally:
                client.disconnect_socket()
        except (ua.UaError, OSError, TimeoutError, ConnectionError) as error:
            batch.count(Answer("refused", _refusal(error)))
        batch.done += 1


def _refusal(error: BaseException) -> str:
    if isinstance(error, ua.UaStatusCodeError):
        return ua.StatusCode(error.code).name
    return type(error).__name__


ATTACKS: dict[str, Callable[[Batch], Awaitable[None]]] = {
    "hello-buffers": hello_buffers,
    "chunk-flood": chunk_flood,
    "oversize-message": oversize_message,
    "slowloris": slowloris,
    "idle-connections": idle_connections,
    "session-flood": session_flood,
    "subscription-flood": subscription_flood,
    "monitored-item-flood": monitored_item_flood,
    "publish-flood": publish_flood,
    "session-churn": session_churn,  # the soak's, not a robustness batch
}
BATCHES = (
    *MUTATIONS,
    *BUILDERS,
    *ATTACKS,
)  # the same names as robustness/batches.py (the harness's)


async def main(arguments: dict) -> None:
    import logging

    logging.getLogger("asyncua").setLevel(logging.CRITICAL + 1)
    if arguments["batch"] not in BATCHES:
        raise SystemExit(
            f"hostile: unknown batch {arguments['batch']!r} (known: {', '.join(BATCHES)})"
        )
    socket.setdefaulttimeout(10)
    print(json.dumps(await Batch(arguments).run()), flush=True)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
