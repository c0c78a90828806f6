"""The subscribe workload (SPEC §3): every subscription monitors every node; the library
delivers each data change to a handler on the session's receive thread."""

from __future__ import annotations

import threading
import time
from datetime import datetime

from opcua import ua
import uabench_contract as contract
from uabench_contract.read_verification import value_error

from .connection import ConnectionWatch
from .pipeline import Phases
from .session import Session

EPOCH = datetime(1970, 1, 1)
KEEP_ALIVE_COUNT = 3000  # python-opcua's create_subscription(period) default


def _unix_ns(timestamp: datetime) -> int:
    delta = timestamp - EPOCH  # python-opcua decodes DateTime as naive UTC
    return (
        delta.days * 86400 + delta.seconds
    ) * 1_000_000_000 + delta.microseconds * 1000


class Measurements:
    def __init__(self, verify: bool, subscriptions: int, timeline_ms: int) -> None:
        self.recorder = contract.Recorder(timeline_ms)
        self.cycle_time = contract.Histogram()
        self.delay = contract.Histogram()
        self.updates = [0] * subscriptions
        self.notifications = (
            0  # data changes received in the measured phase, good or bad
        )
        self.tick_gaps = 0
        self.duplicates = 0
        self.verify = verify
        self.lock = threading.Lock()
        self.phases: Phases | None = None


class DataChangeHandler:
    """python-opcua's subscription handler interface: datachange_notification()."""

    def __init__(
        self, number: int, names: list[str], measurements: Measurements
    ) -> None:
        self.number, self.names, self.measurements = number, names, measurements
        self.last_seen: list[int | None] = [None] * len(
            names
        )  # perf ns of the last update
        self.last_tick: list[int | None] = [None] * len(names)
        self.ticked = [n == "Tick" or n.startswith("Signal_") for n in names]

    def datachange_notification(self, node, value, data) -> None:
        received, received_wall = time.perf_counter_ns(), time.time_ns()
        notification = data.monitored_item
        position = notification.ClientHandle
        name, data_value = self.names[position], notification.Value
        m = self.measurements
        with m.lock:
            previous_seen, self.last_seen[position] = self.last_seen[position], received
            previous_tick = self.last_tick[position]
            tick = None
            if self.ticked[position] and isinstance(value, (int, float)):
                tick = int(value) % contract.TICK_MODULUS
                self.last_tick[position] = tick
            ok = data_value.StatusCode.is_good()
            if ok:
                m.recorder.timeline.completed(received, 1)
            phases = m.phases
            if (
                phases is None
                or not phases.measure_start <= received < phases.measure_end
            ):
                return
            # SPEC §3: each notification is an operation; a Bad one is a failed operation.
            m.notifications += 1
            m.recorder.notification(
                ok, None if ok else f"{name}: {data_value.StatusCode.name}"
            )
            if not ok:
                return
            m.updates[self.number] += 1
            if m.verify:
                m.recorder.verification(value_error(name, data_value.Value))  # R5 too
            if previous_seen is not None:
                m.cycle_time.record(received - previous_seen)
            if data_value.SourceTimestamp is not None:
                m.delay.record(
                    max(1, received_wall - _unix_ns(data_value.SourceTimestamp))
                )
            if tick is not None and previous_tick is not None:
                gaps, duplicates = contract.tick_step(previous_tick, tick)
                m.tick_gaps += gaps
                m.duplicates += duplicates

    def status_change_notification(self, status) -> None:
        pass


def _monitored_items(session: Session, names: list[str], config: dict) -> list:
    items = []
    for position, name in enumerate(names):
        item = ua.MonitoredItemCreateRequest()
        item.ItemToMonitor.NodeId = session.node_id(name)
        item.ItemToMonitor.AttributeId = ua.AttributeIds.Value
        item.MonitoringMode = ua.MonitoringMode.Reporting
        parameters = item.RequestedParameters
        parameters.ClientHandle = (
            position  # unique per subscription: the node's position
        )
        parameters.SamplingInterval = float(config["sampling_interval_ms"])
        parameters.QueueSize = config["queue_size"]
        parameters.DiscardOldest = True
        change_filter = ua.DataChangeFilter()
        change_filter.Trigger = ua.DataChangeTrigger.StatusValue
        parameters.Filter = change_filter
        items.append(item)
    return items


def run_subscribe(
    sessions: list[Session], config: dict, watch: ConnectionWatch
) -> contract.Recorder:
    """Subscribes and measures until the phase ends. A lost connection (the watch records
    it) ends the notifications for good: python-opcua neither reconnects nor re-creates the
    subscriptions, so no notification can restore a session."""
    names = config["nodes"]
    per_session = config["subscriptions"]
    measurements = Measurements(
        config["verify"], len(sessions) * per_session, config["timeline_ms"]
    )
    measurements.recorder.connection = watch.connection
    for session in sessions:
        for k in range(per_session):
            parameters = ua.CreateSubscriptionParameters()
            parameters.RequestedPublishingInterval = float(
                config["publishing_interval_ms"]
            )
            # SPEC §3 subscribe: a lifetime that outlives a loss shorter than the session
            # timeout (python-opcua's fixed 10000 gives 10 s at 1 ms)
            parameters.RequestedLifetimeCount = contract.lifetime_count(
                session.requested_session_timeout_ms,
                config["publishing_interval_ms"],
                KEEP_ALIVE_COUNT,
            )
            parameters.RequestedMaxKeepAliveCount = KEEP_ALIVE_COUNT
            parameters.MaxNotificationsPerPublish = 0
            parameters.PublishingEnabled = True
            handler = DataChangeHandler(
                session.index * per_session + k, names, measurements
            )
            subscription = session.client.create_subscription(parameters, handler)
            for position, outcome in enumerate(
                subscription.create_monitored_items(
                    _monitored_items(session, names, config)
                )
            ):
                if isinstance(
                    outcome, ua.StatusCode
                ):  # refused by the server: a failed operation
                    with measurements.lock:
                        measurements.recorder.notification(
                            False, f"{names[position]}: {outcome.name}"
                        )

    phases = Phases(config["warmup_s"], config["duration_s"])
    with measurements.lock:
        measurements.phases = phases
        measurements.recorder.timeline.begin(
            phases.t0, phases.measure_end - phases.t0, phases.wall_offset
        )
    time.sleep(max(0.0, (phases.measure_end - time.perf_counter_ns()) / 1e9))

    with measurements.lock:
        recorder = measurements.recorder
        recorder.start_ns, recorder.end_ns = (
            phases.wall(phases.measure_start),
            phases.wall(phases.measure_end),
        )
        seconds = (recorder.end_ns - recorder.start_ns) / 1e9
        extra = {
            "subscription": {
                "notifications": measurements.notifications,
                "values_per_s": recorder.values / seconds,
                "updates_per_subscription": {
                    "min": min(measurements.updates),
                    "max": max(measurements.updates),
                },
                "tick_gaps": measurements.tick_gaps,
                "duplicates": measurements.duplicates,
            },
            "cycle_time_ns": measurements.cycle_time.sparse(),
            "delay_ns": measurements.delay.sparse(),
        }
    return SubscribeRecorder(recorder, extra)


class SubscribeRecorder:
    """The Recorder's result plus the subscription fields of SPEC §6."""

    def __init__(self, recorder: contract.Recorder, extra: dict) -> None:
        self.recorder, self.extra = recorder, extra

    def session_ready(self, setup_ns: int) -> None:
        self.recorder.session_ready(setup_ns)

    def result(self, *args) -> dict:
        return {**self.recorder.result(*args), **self.extra}
