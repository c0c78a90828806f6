"""The PubSub roles (adapters/SPEC.md §8) with asyncua's `asyncua.pubsub`: PubSubConnection
(UDP, UADP), WriterGroup/DataSetWriter with a PublishedDataSet per writer, and
ReaderGroup/DataSetReader with a SubscribedDataSet that verifies what the reader delivers.

What the adapter adds around the SDK:
- the UDP socket options (asyncua's own socket joins the group on any interface and sends
  multicast wherever the routing table says): here the group is joined on `interface` and
  sent out through it (IP_MULTICAST_IF), with TTL 1;
- the values: a PubSubDataSource that returns signal(i, t) of the standard address space,
  t advancing once per publishing interval (asyncua has no address space to sample here
  without running a full server);
- the measurement: the datagram protocol is wrapped to count datagrams and read the
  NetworkMessage headers (sequence number, DataSetMessage timestamp); receive times are the
  event loop's (asyncio gives no kernel timestamps): "timestamps": "application".
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import signal
import socket
import time
from datetime import timezone

import asyncua
from asyncua import ua
from asyncua.common.utils import Buffer
from asyncua.pubsub import DataSetMeta, PublishedDataSet, PubSub, PubSubConnection
from asyncua.pubsub.dataset import DataSetField, PubSubDataSource
from asyncua.pubsub.reader import DataSetReader, ReaderGroup
from asyncua.pubsub.udp import OpcUdp, UdpSettings
from asyncua.pubsub.uadp import UadpNetworkMessage
from asyncua.pubsub.writer import DataSetWriter, WriterGroup
from asyncua.ua.uaprotocol_auto import DataSetOrderingType

import uabench_contract as contract

log = logging.getLogger("uabench_asyncua.pubsub")
IP_MULTICAST_ALL = getattr(socket, "IP_MULTICAST_ALL", 49)
RECEIVE_BUFFER_BYTES = 32 * 1024 * 1024
DRAIN_S = 2.0
FIRST_MESSAGE_TIMEOUT_S = 30.0


def _float_field(index: int) -> DataSetField:
    return DataSetField.CreateScalar(f"Signal_{index}", ua.VariantType.Float)


def _meta(config: dict, writer: int) -> DataSetMeta:
    return DataSetMeta.Create(
        f"Signals {writer}",
        dataset_fields=[
            _float_field(i) for i in contract.writer_fields(config, writer)
        ],
    )


class Settings(UdpSettings):
    """asyncua's UDP settings with the socket the contract needs."""

    def __init__(self, config: dict, receive: bool) -> None:
        host, port = contract.parse_udp_address(config["address"])
        super().__init__(
            Addr=(host, port),
            Reuse=True,
            TTL=1,
            Loopback=True,
            Adapter=(config["interface"], port),
        )
        self.interface, self.receive = config["interface"], receive

    def create_socket(self):
        group, port = self.Addr
        multicast = ipaddress.IPv4Address(group).is_multicast
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        interface = socket.inet_aton(self.interface)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, interface)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        if self.receive:
            try:
                sock.setsockopt(
                    socket.SOL_SOCKET, 33, RECEIVE_BUFFER_BYTES
                )  # SO_RCVBUFFORCE (root)
            except OSError:
                sock.setsockopt(
                    socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER_BYTES
                )
            local = (group if multicast else self.interface, port)
            sock.bind(local)
            if multicast:
                sock.setsockopt(socket.IPPROTO_IP, IP_MULTICAST_ALL, 0)
                sock.setsockopt(
                    socket.IPPROTO_IP,
                    socket.IP_ADD_MEMBERSHIP,
                    socket.inet_aton(group) + interface,
                )
        else:
            local = (self.interface, 0)
            sock.bind(local)
        sock.setblocking(False)
        return sock, (group, port), local


# --- publisher -----------------------------------------------------------------------------


class Signals(PubSubDataSource):
    """The fields of one DataSetWriter: signal(i, t) for its indices, t = the number of
    publishing intervals since the publisher started."""

    def __init__(self, indices: range, interval_s: float, started: float) -> None:
        super().__init__()
        self.indices, self.interval_s, self.started = indices, interval_s, started

    async def get_variant(self):
        now = time.monotonic()
        stamp = ua.DateTime.now(timezone.utc)
        tick = int((now - self.started) / self.interval_s)
        values = [
            ua.Variant(contract.signal(i, tick), ua.VariantType.Float)
            for i in self.indices
        ]
        return values, ua.StatusCode(ua.StatusCodes.Good), stamp


def _stop_event() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def publish(config: dict) -> None:
    stop = _stop_event()
    started = time.monotonic()
    interval_s = config["publishing_interval_ms"] / 1000
    writers, datasets = [], []
    for k in range(contract.writers(config)):
        name = f"Signals {k}"
        datasets.append(
            PublishedDataSet.Create(
                name,
                _meta(config, k),
                Signals(contract.writer_fields(config, k), interval_s, started),
            )
        )
        writers.append(
            DataSetWriter.new_uadp(
                f"Writer {k}",
                name,
                ua.UInt16(config["dataset_writer_id"] + k),
                message_timestamp=True,
                message_status=False,
            )
        )
    group = WriterGroup.new_uadp(
        "uabench",
        ua.UInt16(config["writer_group_id"]),
        publishing_interval=ua.Duration(config["publishing_interval_ms"]),
        writer=writers,
    )
    # one DataSetMessage per NetworkMessage (asyncua's default puts them all in one)
    group._cfg.MessageSettings.DataSetOrdering = (
        DataSetOrderingType.AscendingWriterIdSingle
    )
    connection = PubSubConnection.udp_uadp(
        "uabench",
        ua.UInt16(config["publisher_id"]),
        Settings(config, False),
        writer_groups=[group],
    )
    connection._network_settings = Settings(
        config, False
    )  # the constructor rebuilt plain UdpSettings
    pubsub = PubSub.new()
    for dataset in datasets:
        await pubsub.add_published_dataset(dataset)
    await pubsub.add_connection(connection)
    await pubsub.start()
    contract.emit(
        {
            "event": "ready",
            "address": config["address"],
            "writers": contract.writers(config),
            "pid": os.getpid(),
        }
    )
    try:
        await stop.wait()
    finally:
        try:
            await asyncio.wait_for(pubsub.stop(), 3)
        except (asyncio.TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001 - exit anyway
            log.warning("PubSub did not stop cleanly")


# --- subscriber ------------------------------------------------------------------------------


class Measurement:
    """What the subscriber counts (SPEC §8)."""

    def __init__(self, config: dict) -> None:
        self.config = config
        self.start_ns = self.end_ns = 0
        self.messages = self.decode_failed = self.foreign = self.datagrams = (
            self.bytes
        ) = 0
        self.max_datagram_bytes = self.lost = self.duplicates = self.fields = 0
        self.checked = self.verification_failed = self.negative_delays = 0
        self.verification_examples: list[str] = []
        self.error_examples: list[str] = []
        self.cycle, self.delay = contract.Histogram(), contract.Histogram()
        self.timeline = contract.Timeline(config["timeline_ms"])
        self.last_receive: dict[int, int] = {}
        self.last_sequence: int | None = None
        self.delivered = 0
        self.started = False
        self.phase_set = asyncio.Event()
        self.pending: set[asyncio.Future] = set()  # deliveries not yet done

    def start(self, at_ns: int) -> None:
        """The warm-up starts with the first NetworkMessage of ours (SPEC §8)."""
        self.started = True
        self.start_ns = at_ns + int(self.config["warmup_s"] * 1e9)
        self.end_ns = self.start_ns + int(self.config["duration_s"] * 1e9)
        self.timeline.begin(at_ns, self.end_ns - at_ns)
        self.phase_set.set()

    def in_phase(self, received_ns: int) -> bool:
        return self.start_ns <= received_ns < self.end_ns

    def error(self, text: str) -> None:
        self.decode_failed += 1
        if len(self.error_examples) < contract.MAX_EXAMPLES:
            self.error_examples.append(text)

    def figures(self) -> dict:
        return {
            name: getattr(self, name)
            for name in (
                "start_ns",
                "end_ns",
                "messages",
                "lost",
                "duplicates",
                "decode_failed",
                "foreign",
                "datagrams",
                "bytes",
                "max_datagram_bytes",
                "fields",
                "checked",
                "verification_failed",
                "verification_examples",
                "error_examples",
                "negative_delays",
            )
        } | {
            "cycle_time": self.cycle,
            "delay": self.delay,
            "timestamps": "application",
            "timeline": self.timeline,
        }


class Target:
    """The SubscribedDataSet of DataSetReader k: verifies the fields the reader delivers."""

    def __init__(self, measurement: Measurement, writer: int) -> None:
        self.measurement, self.writer = measurement, writer
        self.first = contract.writer_fields(measurement.config, writer).start
        self.in_phase = False  # of the NetworkMessage being delivered

    async def on_dataset_received(self, meta, fields) -> None:
        m = self.measurement
        m.delivered += len(fields)
        if not self.in_phase:
            return
        m.fields += len(fields)
        if not m.config["verify"]:
            return
        values = []
        for field in fields:
            variant = field.Value.Value if field.Value is not None else None
            ok_type = (
                variant is not None and variant.VariantType == ua.VariantType.Float
            )
            values.append(float(variant.Value) if ok_type else None)
        checked, failed = contract.verify_signal_fields(
            self.first, values, m.verification_examples
        )
        m.checked += checked
        m.verification_failed += failed

    async def on_state_change(self, meta, state) -> None:
        pass


class MeasuringUdp(OpcUdp):
    """asyncua's datagram protocol, timing each datagram and reading its headers before the
    connection's ReaderGroups get the decoded NetworkMessage."""

    measurement: Measurement
    targets: list[Target]

    def datagram_received(self, data: bytes, source) -> None:
        received_ns = time.time_ns()
        m, config = self.measurement, self.measurement.config
        if m.started and received_ns >= m.end_ns:
            return  # after the phase: not measured, not worth decoding
        phase = m.in_phase(received_ns)
        if phase:
            m.datagrams += 1
            m.bytes += len(data)
            m.max_datagram_bytes = max(m.max_datagram_bytes, len(data))
        try:
            message = UadpNetworkMessage.from_binary(Buffer(data))
        except Exception as error:  # noqa: BLE001 - any undecodable datagram counts
            if phase:
                m.messages += 1
                m.error(
                    f"a NetworkMessage that does not decode: {type(error).__name__}: {error}"[
                        :200
                    ]
                )
            return
        ids = list(message.DataSetPayloadHeader or [])
        group = message.GroupHeader
        base, count = config["dataset_writer_id"], contract.writers(config)
        ours = [(i, w - base) for i, w in enumerate(ids) if 0 <= w - base < count]
        if (
            message.Header.PublisherId != config["publisher_id"]
            or not ours
            or (
                group is not None
                and group.WriterGroupId is not None
                and group.WriterGroupId != config["writer_group_id"]
            )
        ):
            if phase:
                m.foreign += 1
            return
        if not m.started:
            m.start(received_ns)
        if phase:
            m.messages += 1
        if group is not None and group.SequenceNo is not None:
            sequence = int(group.SequenceNo)
            if m.last_sequence is not None and phase:
                step = (sequence - m.last_sequence) % 65536
                if step == 0 or step >= 0x8000:
                    m.duplicates += 1
                else:
                    m.lost += step - 1
            if m.last_sequence is None or (sequence - m.last_sequence) % 65536 < 0x8000:
                m.last_sequence = sequence
        expected = 0
        for index, k in ours:
            expected += len(contract.writer_fields(config, k))
            if not phase:
                continue
            stamp = message.Payload[index].Header.Timestamp
            if stamp is not None:
                if stamp.tzinfo is None:
                    stamp = stamp.replace(tzinfo=timezone.utc)
                delay = received_ns - int(stamp.timestamp() * 1e9)
                if delay < 1:
                    m.negative_delays += 1
                m.delay.record(max(1, delay))
            if k in m.last_receive:
                m.cycle.record(received_ns - m.last_receive[k])
            m.last_receive[k] = received_ns
        task = asyncio.ensure_future(
            self._deliver(message, [k for _, k in ours], expected, phase, received_ns)
        )
        m.pending.add(task)
        task.add_done_callback(m.pending.discard)

    async def _deliver(
        self,
        message,
        writers: list[int],
        expected: int,
        phase: bool,
        received_ns: int,
    ) -> None:
        m = self.measurement
        before = m.delivered
        for k in writers:  # the reader path below runs to the end without yielding
            self.targets[k].in_phase = phase
        await self.receiver.got_uadp(message)
        if m.delivered - before == expected:
            m.timeline.completed(received_ns, expected)
        elif phase:
            m.error(
                f"the DataSetReaders delivered {m.delivered - before} of the {expected} fields of a "
                "NetworkMessage"
            )


async def subscribe(config: dict) -> dict:
    stop = _stop_event()
    measurement = Measurement(config)
    targets = [Target(measurement, k) for k in range(contract.writers(config))]
    readers = [
        DataSetReader.new(
            ua.Variant(ua.UInt16(config["publisher_id"]), ua.VariantType.UInt16),
            ua.UInt16(config["writer_group_id"]),
            ua.UInt16(config["dataset_writer_id"] + k),
            meta=_meta(config, k),
            name=f"Reader {k}",
            enabled=True,
            subscribed=targets[k],
        )
        for k in range(len(targets))
    ]
    group = ReaderGroup.new("uabench", reader=readers, enable=True)
    connection = PubSubConnection.udp_uadp(
        "uabench",
        ua.UInt16(config["publisher_id"]),
        Settings(config, True),
        reader_groups=[group],
    )

    def protocol(*args):
        instance = MeasuringUdp(*args)
        instance.measurement, instance.targets = measurement, targets
        return instance

    connection._network_factory = protocol
    connection._network_settings = Settings(
        config, True
    )  # the constructor rebuilt plain UdpSettings
    pubsub = PubSub.new()
    await pubsub.add_connection(connection)
    await pubsub.start()
    stopped = asyncio.ensure_future(stop.wait())
    await asyncio.wait(
        [stopped, asyncio.ensure_future(measurement.phase_set.wait())],
        timeout=FIRST_MESSAGE_TIMEOUT_S,
        return_when=asyncio.FIRST_COMPLETED,
    )
    if (
        not measurement.started
    ):  # nothing arrived: an empty phase, and a result that says so
        now = time.time_ns()
        measurement.started, measurement.start_ns, measurement.end_ns = True, now, now
        measurement.timeline.begin(now, 0)
    try:
        await asyncio.wait_for(
            asyncio.shield(stopped),
            max(0.0, (measurement.end_ns - time.time_ns()) / 1e9),
        )
        measurement.end_ns = max(
            measurement.start_ns, min(measurement.end_ns, time.time_ns())
        )
    except asyncio.TimeoutError:
        pass
    stopped.cancel()
    if measurement.pending:  # deliveries of datagrams received in the phase
        await asyncio.wait(set(measurement.pending), timeout=DRAIN_S)
    try:
        await asyncio.wait_for(pubsub.stop(), DRAIN_S)
    except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - the result is what matters
        log.warning("PubSub did not stop cleanly")
    return contract.pubsub_result(
        "asyncua", asyncua.__version__, config, measurement.figures()
    )


def run(command: str, config: dict) -> None:
    if command == "publisher":
        asyncio.run(publish(config))
    else:
        contract.emit(asyncio.run(subscribe(config)))
