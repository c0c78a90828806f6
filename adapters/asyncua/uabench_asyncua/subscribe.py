"""The subscribe workload (SPEC §3, §6): every subscription monitors every node."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from datetime import datetime, timezone
from typing import Any

from asyncua import Client, ua

import uabench_contract as contract
from uabench_contract import Histogram, Recorder
from uabench_contract.read_verification import value_error

from . import compat
from .compat import DataChangeEvent, StatusChangeEvent
from .connection import ConnectionWatch
from .load import Phases
from .session import SESSION_TIMEOUT_MS, Session

log = logging.getLogger("uabench_asyncua.client")

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class Item:
    """What one monitored item saw last (warm-up included, so the first measured update
    already has a predecessor)."""

    __slots__ = ("name", "ticked", "received_ns", "tick")

    def __init__(self, name: str) -> None:
        self.name = name
        self.ticked = name == "Tick" or name.startswith("Signal_")
        self.received_ns: int | None = None
        self.tick: int | None = None


class Measurements:
    def __init__(self, recorder: Recorder, verify: bool) -> None:
        self.recorder = recorder
        self.verify = verify
        self.cycle = Histogram()
        self.delay = Histogram()
        self.notifications = 0
        self.tick_gaps = 0
        self.duplicates = 0
        self.phases: Phases | None = None

    def update(
        self,
        item: Item,
        value: ua.DataValue,
        received_ns: int,
        wall_ns: int,
        counts: list[int],
        index: int,
    ) -> None:
        phases = self.phases
        measured = (
            phases is not None
            and phases.measure_start <= received_ns < phases.measure_end
        )
        tick = self._tick(item, value)
        status = value.StatusCode
        good = status is None or status.is_good()
        if good:
            self.recorder.timeline.completed(received_ns, 1)
        if measured:
            self.notifications += 1
            counts[index] += 1
            if item.received_ns is not None:
                self.cycle.record(received_ns - item.received_ns)
            if value.SourceTimestamp is not None:
                source_ns = (value.SourceTimestamp - EPOCH) // _MICROSECOND * 1000
                self.delay.record(max(1, wall_ns - source_ns))
            if tick is not None and item.tick is not None:
                gaps, duplicates = contract.tick_step(item.tick, tick)
                self.tick_gaps += gaps
                self.duplicates += duplicates
            # SPEC §3: each notification is an operation; one with a Bad status failed.
            if not good:
                self.recorder.notification(False, f"{item.name}: {status.name}")
            else:
                self.recorder.notification(True)
                if self.verify:
                    self.recorder.verification(value_error(item.name, value.Value))
        item.received_ns = received_ns
        if tick is not None:
            item.tick = tick

    @staticmethod
    def _tick(item: Item, value: ua.DataValue) -> int | None:
        if (
            not item.ticked
            or value.Value is None
            or not isinstance(value.Value.Value, (int, float))
        ):
            return None
        return int(value.Value.Value) % contract.TICK_MODULUS


_MICROSECOND = datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=timezone.utc) - EPOCH


async def run_subscriptions(
    sessions: list[Session], config: dict, recorder: Recorder
) -> dict:
    measurements = Measurements(recorder, config["verify"])
    created = await asyncio.gather(*(_subscribe(s, config, recorder) for s in sessions))
    subscriptions = [
        (events, session.watch)
        for session, per_session in zip(sessions, created)
        for events in per_session
    ]
    counts = [0] * len(subscriptions)
    consumers = [
        asyncio.create_task(_consume(events, watch, measurements, counts, i))
        for i, (events, watch) in enumerate(subscriptions)
    ]

    phases = Phases.begin_now(config["warmup_s"], config["duration_s"])
    measurements.phases = phases
    wall_offset = time.time_ns() - time.perf_counter_ns()
    recorder.start_ns = phases.measure_start + wall_offset
    recorder.end_ns = phases.measure_end + wall_offset
    recorder.timeline.begin(
        phases.start, phases.measure_end - phases.start, wall_offset
    )
    await asyncio.sleep((phases.measure_end - time.perf_counter_ns()) / 1e9)
    for consumer in consumers:
        consumer.cancel()
    await asyncio.gather(*consumers, return_exceptions=True)

    seconds = max(1e-9, (recorder.end_ns - recorder.start_ns) / 1e9)
    return {
        "subscription": {
            "notifications": measurements.notifications,
            "values_per_s": measurements.notifications / seconds,
            "updates_per_subscription": {
                "min": min(counts, default=0),
                "max": max(counts, default=0),
            },
            "tick_gaps": measurements.tick_gaps,
            "duplicates": measurements.duplicates,
        },
        "cycle_time_ns": measurements.cycle.sparse(),
        "delay_ns": measurements.delay.sparse(),
    }


async def _subscribe(
    session: Session, config: dict, recorder: Recorder
) -> list[AsyncIterator[Any]]:
    """Creates this session's subscriptions; returns each one's events."""
    client = session.client
    nodes = [client.get_node(session.nodeid(name)) for name in config["nodes"]]
    created = []
    for _ in range(config["subscriptions"]):
        # Iterator mode with an unbounded queue (1.1.8: a handler that queues, compat): the
        # SDK drops nothing on the client side.
        subscription, events = await compat.create_subscription(
            client, _parameters(client, config["publishing_interval_ms"])
        )
        handles = await subscription.subscribe_data_change(
            nodes,
            queuesize=config["queue_size"],
            sampling_interval=config["sampling_interval_ms"],
        )
        for name, handle in zip(config["nodes"], handles):
            if isinstance(handle, ua.StatusCode):
                recorder.notification(
                    False, f"{name}: {handle.name}"
                )  # refused: a failed operation
        created.append(events)
    return created


def _parameters(client: Client, interval_ms: float) -> ua.CreateSubscriptionParameters:
    """What asyncua's create_subscription(period) asks for, but the lifetime count: SPEC §3
    subscribe wants a lifetime (count × interval) of at least the session timeout asked for
    (capped at 600 s) and of three keep-alive intervals, so that a connection lost for less
    than that finds its subscription still on the server; asyncua's fixed 10000 gives 10 s
    at 1 ms. The keep-alive count stays asyncua's (75 % of the session timeout)."""
    keep_alive = client.get_keepalive_count(interval_ms)
    return ua.CreateSubscriptionParameters(
        RequestedPublishingInterval=interval_ms,
        RequestedLifetimeCount=contract.lifetime_count(
            SESSION_TIMEOUT_MS, interval_ms, keep_alive
        ),
        RequestedMaxKeepAliveCount=keep_alive,
        MaxNotificationsPerPublish=10000,
        PublishingEnabled=True,
        Priority=0,
    )


async def _consume(
    events: AsyncIterator[Any],
    watch: ConnectionWatch | None,
    measurements: Measurements,
    counts: list[int],
    index: int,
) -> None:
    """Measures the subscription's data changes (its items by client handle, which a
    re-created subscription keeps)."""
    items: dict[int, Item] = {}
    async for event in events:
        if isinstance(event, DataChangeEvent):
            received_ns, wall_ns = time.perf_counter_ns(), time.time_ns()
            if watch is not None:
                watch.notified()
            notification = event.data.monitored_item
            item = items.get(notification.ClientHandle)
            if item is None:
                item = items[notification.ClientHandle] = Item(
                    str(event.node.nodeid.Identifier)
                )
            measurements.update(
                item, notification.Value, received_ns, wall_ns, counts, index
            )
        elif isinstance(event, StatusChangeEvent):
            log.warning("subscription status change: %s", event.notification.Status)
