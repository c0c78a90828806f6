"""The adapter contract of adapters/SPEC.md in executable form.

Pure standard library, so the Python adapters import it as their reference implementation
and the harness uses the same definitions to validate what adapters send back.
"""

from __future__ import annotations

import json
import math
from array import array as machine_array  # `array` is SPEC §4's Array_n value below
import struct
import sys
from dataclasses import dataclass
from typing import Any

NAMESPACE_URI = "urn:uabench:model"
POLICIES = ("None", "Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss")
MODES = ("None", "Sign", "SignAndEncrypt")
WORKLOADS = ("read", "write", "subscribe")
ROLES = ("server", "client", "publisher", "subscriber")

EXIT_OK, EXIT_RUNTIME, EXIT_CONFIG, EXIT_NOT_SUPPORTED = 0, 1, 2, 3

PAGE_LENGTH = 512
SDD_LENGTH = 20_000
IMAGE_LENGTH = 65_535
REAL_VALUE = 1234.5
TICK_MODULUS = 16384
SIGNAL_INDEX_MODULUS = 1024


# --- the standard address space (SPEC §4) -------------------------------------------------


def signal(index: int, tick: int) -> float:
    return float((index % SIGNAL_INDEX_MODULUS) * TICK_MODULUS + (tick % TICK_MODULUS))


def page() -> list[int]:
    return [((k * 37) % 65536) - 32768 for k in range(PAGE_LENGTH)]


def sdd() -> bytes:
    return bytes((k * 31 + 7) % 256 for k in range(SDD_LENGTH))


def image() -> bytes:
    return bytes((k * 13 + 1) % 256 for k in range(IMAGE_LENGTH))


def array(length: int) -> list[float]:
    return [k + 0.5 for k in range(length)]


ARRAYS = {"Array_10": 10, "Array_10000": 10000}
_PAGE, _SDD, _IMAGE = page(), sdd(), image()
_ARRAYS = {name: array(length) for name, length in ARRAYS.items()}


def signal_tick(value: float) -> int:
    return int(value) % TICK_MODULUS


def _float32_exact(value: float) -> bool:
    return struct.unpack("f", struct.pack("f", value))[0] == value


def verify_value(node: str, value: Any) -> str | None:
    """None if `value` is what the standard address space holds at `node`, else a reason."""
    if node.startswith("Signal_"):
        index = int(node[len("Signal_") :])
        if (
            not isinstance(value, float)
            or not math.isfinite(value)
            or value != int(value)
            or not 0 <= value < 2**24
            or int(value) // TICK_MODULUS != index % SIGNAL_INDEX_MODULUS
        ):
            return (
                f"{node}: got {value!r}, expected tick-encoded Float for index {index}"
            )
        return None
    if node == "Tick":
        ok = (
            isinstance(value, int)
            and not isinstance(value, bool)
            and 0 <= value < 2**32
        )
        return None if ok else f"Tick: got {value!r}, expected UInt32"
    if node == "Real":
        return (
            None
            if value == REAL_VALUE
            else f"Real: got {value!r}, expected {REAL_VALUE}"
        )
    if node == "Page":
        return (
            None
            if list(value or []) == _PAGE
            else f"Page: got {_short(value)}, expected Int16[512] pattern"
        )
    if node == "SDD":
        return (
            None
            if bytes(value or b"") == _SDD
            else f"SDD: got {_short(value)}, expected 20000-byte pattern"
        )
    if node == "Image":
        return (
            None
            if bytes(value or b"") == _IMAGE
            else f"Image: got {_short(value)}, expected 65535-byte pattern"
        )
    if node in _ARRAYS:
        ok = isinstance(value, (list, tuple)) and list(value) == _ARRAYS[node]
        return (
            None
            if ok
            else f"{node}: got {_short(value)}, expected Double[{ARRAYS[node]}] of k + 0.5"
        )
    if node.startswith("Write_"):
        ok = isinstance(value, float)
        return None if ok else f"{node}: got {value!r}, expected Double"
    return f"{node}: not a node of the standard address space"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def write_value(
    session: int, request: int, nodes_per_request: int, position: int
) -> float:
    return session * 1e9 + request * nodes_per_request + position


def write_verification_value(pattern: int, position: int) -> float:
    return -(100000 * pattern + position) - 0.25


# The encoded size of a node's DataValue in a Read response (OPC 10000-6 §5.2.2.17 and §5.2.2.16):
# the encoding mask, the Variant's type byte, a StatusCode and a SourceTimestamp, then the value:
# 4 bytes of length per array or ByteString, the elements at their built-in size. An upper bound
# of what a server must send, for SPEC §3 "Message sizes" (a server's server_max_response_bytes).
DATA_VALUE_OVERHEAD = 1 + 1 + 4 + 8
VALUE_BYTES = {
    "Page": 4 + 2 * PAGE_LENGTH,
    "SDD": 4 + SDD_LENGTH,
    "Image": 4 + IMAGE_LENGTH,
    **{name: 4 + 8 * length for name, length in ARRAYS.items()},
}
SCALAR_BYTES = 8  # Float, UInt32 and Double take 4 or 8
RESPONSE_OVERHEAD = (
    128  # the message and ReadResponse headers, the results array's length
)


def response_bytes(nodes: list[str], nodes_per_request: int) -> int:
    """The largest Read response any request of a read workload over `nodes` asks a server for
    (request k carries the nodes of SPEC §3; the windows repeat after len(nodes) requests)."""
    sizes = [
        DATA_VALUE_OVERHEAD + VALUE_BYTES.get(node, SCALAR_BYTES) for node in nodes
    ]
    count = len(sizes)
    whole, rest = divmod(
        nodes_per_request, count
    )  # a request holds `whole` full rounds and a window
    prefix = [0]
    for size in sizes + sizes:  # doubled: a window may wrap around the end
        prefix.append(prefix[-1] + size)
    starts = {(k * nodes_per_request) % count for k in range(count)}
    return (
        RESPONSE_OVERHEAD
        + whole * prefix[count]
        + max(prefix[i + rest] - prefix[i] for i in starts)
    )


def request_nodes(nodes: list[str], request: int, nodes_per_request: int) -> list[str]:
    start = request * nodes_per_request
    return [nodes[(start + j) % len(nodes)] for j in range(nodes_per_request)]


# --- latency histograms (SPEC §5) ---------------------------------------------------------


def bucket(value_ns: int) -> int:
    value_ns = max(1, int(value_ns))
    shift = value_ns.bit_length() - 8
    return value_ns if shift <= 0 else (value_ns >> shift) << shift


class Histogram:
    def __init__(self, pairs: list[list[int]] | None = None) -> None:
        self.counts: dict[int, int] = {}
        for value, count in pairs or []:
            self.counts[int(value)] = self.counts.get(int(value), 0) + int(count)

    def record(self, value_ns: int) -> None:
        key = bucket(value_ns)
        self.counts[key] = self.counts.get(key, 0) + 1

    def merge(self, other: Histogram) -> Histogram:
        for value, count in other.counts.items():
            self.counts[value] = self.counts.get(value, 0) + count
        return self

    def clear(self) -> None:
        self.counts.clear()

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def sparse(self) -> list[list[int]]:
        return [[value, count] for value, count in sorted(self.counts.items()) if count]

    def percentile(self, q: float) -> float | None:
        """Value at quantile q in [0, 100] (nearest-rank over bucket values)."""
        total = self.total
        if not total:
            return None
        rank = max(1, math.ceil(q / 100.0 * total))
        seen = 0
        for value, count in sorted(self.counts.items()):
            seen += count
            if seen >= rank:
                return float(value)
        return float(max(self.counts))

    def mean(self) -> float | None:
        total = self.total
        return sum(v * c for v, c in self.counts.items()) / total if total else None

    def max(self) -> float | None:
        return float(max(self.counts)) if self.counts else None


def histogram_problems(pairs: list[list[int]]) -> list[str]:
    """What a JSON Schema cannot say about a sparse histogram (SPEC §5): every value is a
    bucket value, sorted ascending without repeats. Each problem starts with its `[index]`."""
    problems, previous = [], 0
    for index, (value, _count) in enumerate(pairs):
        if bucket(value) != value:
            problems.append(
                f"[{index}]: {value} is not a bucket value (its bucket is {bucket(value)})"
            )
        if value <= previous:
            problems.append(
                f"[{index}]: {value} follows {previous} (values must ascend without repeats)"
            )
        previous = value
    return problems


def record_problems(record: dict) -> list[str]:
    """What a JSON Schema cannot say about a result record (SPEC §5, §6): histograms sorted and
    bucketed, attempted = succeeded + failed, end_ns not before start_ns. Assumes the record
    passed the schema; each problem starts with its JSON path."""
    problems = []
    for name in HISTOGRAMS:
        problems += [
            f"$.{name}{problem}" for problem in histogram_problems(record.get(name, []))
        ]
    operations = record["operations"]
    if operations["attempted"] != operations["succeeded"] + operations["failed"]:
        problems.append(
            f"$.operations: attempted {operations['attempted']} is not succeeded + failed"
        )
    if record["end_ns"] < record["start_ns"]:
        problems.append(
            f"$.end_ns: {record['end_ns']} is before start_ns {record['start_ns']}"
        )
    if "timeline" in record:
        problems += timeline_problems(record)
    return (
        problems
        + send_lag_problems(record)
        + ticks_advanced_problems(record)
        + read_back_problems(record)
        + latencies_problems(record)
        + connection_problems(record)
    )


CONNECTION_EVENTS = 100  # SPEC §6: the most events `connection` lists

# SPEC §3 Connection loss: the statuses of a failed request that say the connection is lost
CONNECTION_STATUSES = frozenset(
    (
        "BadConnectionClosed",
        "BadSecureChannelClosed",
        "BadSecureChannelIdInvalid",
        "BadSessionClosed",
        "BadSessionIdInvalid",
        "BadSessionNotActivated",
        "BadTimeout",
        "BadRequestTimeout",
        "BadNotConnected",
        "BadServerNotConnected",
        "BadCommunicationError",
        "BadNoCommunication",
        "BadDisconnect",
        "BadServerHalted",
        "BadConnectionRejected",
    )
)
RETRY_S = (
    0.010  # SPEC §3: a closed-loop slot's wait after a failed request (reconnect true)
)

TICKS = 16384  # SPEC §4: a Signal carries its tick mod this


def tick_step(last: int, new: int) -> tuple[int, int]:
    """SPEC §3 subscribe: (tick gaps, duplicates) an item's update with tick `new` adds after
    one with tick `last` (both mod 16384): a forward step d adds d - 1 gaps, the same tick
    one duplicate, an older tick (a restarted server) neither."""
    step = (new - last) % TICKS
    if step == 0:
        return 0, 1
    return (step - 1, 0) if step < TICKS // 2 else (0, 0)


class Connection:
    """SPEC §3 Connection loss as a Python client records it: per session whether it is up,
    and the events of its losses and restorations (the first 100)."""

    def __init__(self, sessions: int) -> None:
        self.down = [False] * sessions
        self.events: list[dict] = []
        self.lost = self.restored = self.truncated = 0

    def is_down(self, session: int) -> bool:
        return self.down[session]

    def mark_lost(self, session: int, t_ns: int) -> None:
        if not self.down[session]:
            self.down[session] = True
            self.lost += 1
            self._add(t_ns, session, "lost", None)

    def mark_restored(
        self, session: int, t_ns: int, subscriptions: str | None = None
    ) -> None:
        if self.down[session]:
            self.down[session] = False
            self.restored += 1
            self._add(t_ns, session, "restored", subscriptions)

    def _add(
        self, t_ns: int, session: int, state: str, subscriptions: str | None
    ) -> None:
        if len(self.events) < CONNECTION_EVENTS:
            self.events.append(
                {
                    "t_ns": t_ns,
                    "session": session,
                    "state": state,
                    "subscriptions": subscriptions,
                }
            )
        else:
            self.truncated += 1

    def record(self) -> dict:
        return {
            "lost": self.lost,
            "restored": self.restored,
            "events": self.events,
            "truncated": self.truncated,
        }


# SPEC §3 subscribe: a subscription's requested lifetime is at least the session timeout the
# client asks for, or this, whichever is shorter
LIFETIME_CAP_MS = 600_000.0


def lifetime_count(
    session_timeout_ms: float, interval_ms: float, keep_alive_count: int
) -> int:
    """SPEC §3 subscribe: the lifetime count a client asks for: at least the session timeout it
    asks for (at most LIFETIME_CAP_MS) over the publishing interval, and three keep-alives; a
    UInt32."""
    wanted = math.ceil(min(session_timeout_ms, LIFETIME_CAP_MS) / interval_ms)
    return min(max(3 * keep_alive_count, wanted), 0xFFFFFFFF)


def lifetime_problem(
    session_timeout_ms: float,
    interval_ms: float,
    lifetime_count: int,
    keep_alive_count: int,
) -> str | None:
    """SPEC §3 subscribe: what is wrong with a CreateSubscription's requested counts, or None."""
    wanted_ms = min(session_timeout_ms, LIFETIME_CAP_MS)
    if lifetime_count * interval_ms < wanted_ms:
        return (
            f"lifetime {lifetime_count} x {interval_ms:g} ms = {lifetime_count * interval_ms / 1000:g} s, "
            f"shorter than {wanted_ms / 1000:g} s (the session timeout asked for, at most 600 s)"
        )
    if lifetime_count < 3 * keep_alive_count:
        return f"lifetime count {lifetime_count} below 3 x the keep-alive count {keep_alive_count}"
    return None


def connection_problems(record: dict) -> list[str]:
    """SPEC §6 `connection`: events in time order, per session alternating and lost first,
    counted in `lost` and `restored`; subscriptions said on a restored event of `subscribe`
    only."""
    connection = record.get("connection")
    if connection is None:
        return []
    problems = []
    events = connection["events"]
    times = [event["t_ns"] for event in events]
    if times != sorted(times):
        problems.append("$.connection.events: not in time order")
    down: dict[int, bool] = {}
    for index, event in enumerate(events):
        session, lost = event["session"], event["state"] == "lost"
        if session >= record["config"].get("sessions", 1):
            problems.append(
                f"$.connection.events[{index}]: session {session} does not exist"
            )
        if down.get(session, False) == lost:
            problems.append(
                f"$.connection.events[{index}]: session {session} "
                + ("lost twice in a row" if lost else "restored before it was lost")
            )
        down[session] = lost
        said = event["subscriptions"] is not None
        if said != (not lost and record["workload"] == "subscribe"):
            problems.append(
                f"$.connection.events[{index}]: subscriptions must be "
                + ("said on a restored event of subscribe" if not said else "null here")
            )
    for state in ("lost", "restored"):
        listed = sum(event["state"] == state for event in events)
        if listed > connection[state] or (
            not connection["truncated"] and listed != connection[state]
        ):
            problems.append(
                f"$.connection.{state}: {connection[state]}, but {listed} such events listed"
            )
    return problems


MAX_LATENCIES = 1_000_000  # SPEC §6: the most entries of `latencies`


class Latencies:
    """SPEC §6 `latencies` (record_latencies) as a Python client keeps it: each measured
    request the latency_ns histogram counts, its send instant after `origin_ns` (the
    timeline's start, on the clock the client times with) and its latency; two arrays of
    machine integers, two appends per request."""

    def __init__(self, origin_ns: int) -> None:
        self.origin_ns = origin_ns
        self.send_ns, self.latency_ns = machine_array("q"), machine_array("q")
        self.truncated = 0

    def add(self, send_ns: int, latency_ns: int) -> None:
        if len(self.latency_ns) < MAX_LATENCIES:
            self.send_ns.append(send_ns - self.origin_ns)
            self.latency_ns.append(max(1, latency_ns))
        else:
            self.truncated += 1

    def record(self) -> dict:
        return {
            "send_ns": self.send_ns.tolist(),
            "latency_ns": self.latency_ns.tolist(),
            "truncated": self.truncated,
        }


def latencies_problems(record: dict) -> list[str]:
    """SPEC §6 `latencies`: two lists of one length, the requests the latency_ns histogram
    counts (less those truncated), each latency in the bucket the histogram counted."""
    series = record.get("latencies")
    if series is None:
        return []
    sends, latencies = series["send_ns"], series["latency_ns"]
    if len(sends) != len(latencies):
        return [f"$.latencies: {len(sends)} send_ns but {len(latencies)} latency_ns"]
    counted = sum(count for _, count in record.get("latency_ns", []))
    if len(latencies) + series["truncated"] != counted:
        return [
            f"$.latencies: {len(latencies)} latencies + {series['truncated']} truncated, "
            f"but latency_ns counts {counted} requests"
        ]
    if series["truncated"] and len(latencies) < 1_000_000:
        return [
            f"$.latencies.truncated: {series['truncated']} with only {len(latencies)} listed"
        ]
    histogram: dict[int, int] = {}
    for value in latencies:
        histogram[bucket(value)] = histogram.get(bucket(value), 0) + 1
    if not series["truncated"] and sorted(histogram.items()) != [
        tuple(b) for b in record["latency_ns"]
    ]:
        return [
            "$.latencies.latency_ns: its buckets do not add up to the latency_ns histogram"
        ]
    return []


# SPEC §3 W1 samples every 64th request of session 0; with this many succeeded writes per
# session on average, session 0 has surely completed a sampled one (sessions share the load
# evenly in both loops), so a client that read nothing back skipped the rule.
READ_BACK_SURE_PER_SESSION = 2 * 64


def read_back_problems(record: dict) -> list[str]:
    """SPEC §3 W1, §6 verification.read_back: only a verified write reads back, at most what
    was checked, and a verified write long enough to have sampled a write read some back."""
    verification = record["verification"]
    if "read_back" not in verification:  # required by the schema where it must be there
        return []
    read_back, config = verification["read_back"], record["config"]
    verified_write = record["workload"] == "write" and config.get("verify", True)
    if read_back and not verified_write:
        return [
            f"$.verification.read_back: {read_back} in a {record['workload']} workload"
            + ("" if record["workload"] != "write" else " without verify")
            + " (only a verified write reads back: 0)"
        ]
    if read_back > verification["checked"]:
        return [
            f"$.verification.read_back: {read_back}, more than the {verification['checked']} values checked"
        ]
    sessions = config.get("sessions", 1)
    succeeded = record["operations"]["succeeded"]
    if (
        verified_write
        and not read_back
        and succeeded >= READ_BACK_SURE_PER_SESSION * sessions
    ):
        return [
            f"$.verification.read_back: 0 after {succeeded} succeeded writes over {sessions} "
            "session(s): SPEC §3 W1 reads back every 64th write of session 0 under load"
        ]
    return []


def ticks_advanced_problems(record: dict) -> list[str]:
    """SPEC §6 verification.ticks_advanced: only the read workload counts tick steps."""
    advanced = record["verification"].get("ticks_advanced", 0)
    if advanced and record["workload"] != "read":
        return [
            f"$.verification.ticks_advanced: {advanced} in a {record['workload']} "
            "workload (only read counts tick steps: 0)"
        ]
    return []


def send_lag_problems(record: dict) -> list[str]:
    """SPEC §6 send_lag_ns: one entry per measured request that was sent, so no more than
    attempted; only the open loop (rate set) of read and write has any."""
    lag = record.get("send_lag_ns", [])
    count = sum(count for _value, count in lag)
    open_loop = record["workload"] in ("read", "write") and (
        record["config"].get("rate") is not None
    )
    if lag and not open_loop:
        return [
            f"$.send_lag_ns: {count} entries, expected [] (only the open loop of read and write has a send lag)"
        ]
    if count > record["operations"]["attempted"]:
        return [
            f"$.send_lag_ns: {count} entries, more than the {record['operations']['attempted']} attempted operations"
        ]
    return []


def timeline_problems(record: dict) -> list[str]:
    """What a JSON Schema cannot say about the timeline (SPEC §6): its window is the config's
    timeline_ms, it starts no later than the measured phase, and both arrays cover the run
    from its start to end_ns in whole or partial windows."""
    timeline, problems = record["timeline"], []
    window_ms = record["config"].get("timeline_ms", TIMELINE_MS)
    if timeline["window_ms"] != window_ms:
        problems.append(
            f"$.timeline.window_ms: {timeline['window_ms']} is not the config's timeline_ms {window_ms}"
        )
    if timeline["start_ns"] > record["start_ns"]:
        problems.append(
            f"$.timeline.start_ns: {timeline['start_ns']} is after start_ns {record['start_ns']}"
        )
    windows = timeline_windows(
        timeline["start_ns"], record["end_ns"], timeline["window_ms"]
    )
    for name in ("ops", "values"):
        if len(timeline[name]) != windows:
            problems.append(
                f"$.timeline.{name}: {len(timeline[name])} windows, expected {windows} "
                f"(start_ns to end_ns in windows of {timeline['window_ms']} ms)"
            )
    return problems


def combine_timelines(timelines: list[dict], end_ns: int) -> dict:
    """One timeline for processes that ran side by side (their records combined into one
    whose end is `end_ns`): starts at the earliest start, and each process's window k is
    added to the combined window nearest to it. Processes start a fraction of a window apart,
    so a count may land up to half a window early or late; the sums stay exact."""
    window_ms = timelines[0]["window_ms"]
    if any(t["window_ms"] != window_ms for t in timelines):
        raise ValueError("timelines of different window lengths cannot be combined")
    window_ns = window_ms * 1_000_000
    start_ns = min(t["start_ns"] for t in timelines)
    windows = timeline_windows(start_ns, end_ns, window_ms)
    ops, values = [0] * windows, [0] * windows
    for timeline in timelines:
        shift = round((timeline["start_ns"] - start_ns) / window_ns)
        for k, (count, carried) in enumerate(zip(timeline["ops"], timeline["values"])):
            if 0 <= k + shift < windows:
                ops[k + shift] += count
                values[k + shift] += carried
    return {"window_ms": window_ms, "start_ns": start_ns, "ops": ops, "values": values}


def timeline_windows(start_ns: int, end_ns: int, window_ms: int) -> int:
    """How many windows of window_ms cover [start_ns, end_ns): the last may be partial."""
    return max(0, -(-(end_ns - start_ns) // (window_ms * 1_000_000)))


HISTOGRAMS = (
    "latency_ns",
    "send_lag_ns",
    "session_setup_ns",
    "cycle_time_ns",
    "delay_ns",
)

# --- config validation (SPEC §3) ----------------------------------------------------------


class ConfigError(Exception):
    """Bad config: exit 2 with a message naming the key."""


class NotSupported(Exception):
    """The config asks for something the SDK lacks: exit 3."""


@dataclass(frozen=True)
class Key:
    kind: str  # int, number, bool, string, strings, endpoints, object, choice
    default: Any = None
    low: float | None = None
    high: float | None = None
    required: bool = False
    nullable: bool = False
    choices: tuple[str, ...] = ()


SERVER_KEYS = {
    "host": Key("string", "127.0.0.1"),
    "port": Key("int", low=1, high=65535, required=True),
    "signals": Key("int", 1000, 0, 100000),
    "update_interval_ms": Key("int", 100, 0, 60000),
    "writes": Key("int", 100, 0, 100000),
    "security": Key("object", None),
    "nodesets": Key("strings", None),
}
SERVER_SECURITY_KEYS = {
    "endpoints": Key("endpoints", None),
    "certificate": Key("string", None, nullable=True),
    "private_key": Key("string", None, nullable=True),
    "application_uri": Key("string", "urn:uabench:server"),
    "trusted_certificates": Key("strings", None),
}
CLIENT_KEYS = {
    "endpoint": Key("string", required=True),
    "workload": Key("choice", required=True, choices=WORKLOADS),
    "security": Key("object", None),
    "sessions": Key("int", 1, 1, 1000),
    "warmup_s": Key("number", 1, 0, 3600),
    "duration_s": Key("number", 5, 0.1, 86400),
    "verify": Key("bool", True),
    "timeline_ms": Key("int", 100, 10, 10000),
    "reconnect": Key("bool", False),
    "request_timeout_ms": Key("int", None, 100, 3600000, nullable=True),
    "nodes": Key("strings", required=True),
}
CLIENT_SECURITY_KEYS = {
    "policy": Key("choice", "None", choices=POLICIES),
    "mode": Key("choice", "None", choices=MODES),
    "certificate": Key("string", None, nullable=True),
    "private_key": Key("string", None, nullable=True),
    "application_uri": Key("string", "urn:uabench:client"),
}
WORKLOAD_KEYS = {
    "read": {
        "nodes_per_request": Key("int", 1, 1, 10000),
        "in_flight": Key("int", 1, 1, 10000),
        "rate": Key("number", None, 1e-9, 1e9, nullable=True),
        "think_ms": Key("number", 0, 0, 60000),
        "record_latencies": Key("bool", False),
    },
    "subscribe": {
        "subscriptions": Key("int", 1, 1, 1000),
        "publishing_interval_ms": Key("number", 100, 1, 60000),
        "sampling_interval_ms": Key("number", 100, 0, 60000),
        "queue_size": Key("int", 1, 1, 10000),
    },
}
WORKLOAD_KEYS["write"] = WORKLOAD_KEYS["read"]


def _check(name: str, key: Key, value: Any) -> Any:
    if value is None:
        if key.nullable:
            return None
        raise ConfigError(f"config: key '{name}' must not be null")
    kind = key.kind
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"config: key '{name}' must be an integer, got {value!r}")
    elif kind == "number":
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise ConfigError(f"config: key '{name}' must be a number, got {value!r}")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(
                f"config: key '{name}' must be true or false, got {value!r}"
            )
    elif kind == "string":
        if not isinstance(value, str) or not value:
            raise ConfigError(
                f"config: key '{name}' must be a non-empty string, got {value!r}"
            )
    elif kind == "choice":
        if value not in key.choices:
            raise ConfigError(
                f"config: key '{name}' must be one of {', '.join(key.choices)}, got {value!r}"
            )
    elif kind == "strings":
        if not isinstance(value, list) or not all(
            isinstance(v, str) and v for v in value
        ):
            raise ConfigError(f"config: key '{name}' must be a list of strings")
        if name == "nodes" and not value:
            raise ConfigError("config: key 'nodes' must not be empty")
    elif kind == "object":
        if not isinstance(value, dict):
            raise ConfigError(f"config: key '{name}' must be an object")
    elif kind == "endpoints":
        if not isinstance(value, list) or not value:
            raise ConfigError(
                f"config: key '{name}' must be a non-empty list of {{policy, mode}}"
            )
        return [_security_pair(f"{name}[{i}]", e) for i, e in enumerate(value)]
    if key.low is not None and not key.low <= value <= key.high:
        raise ConfigError(
            f"config: key '{name}' = {value!r} is out of range [{key.low:g}, {key.high:g}]"
        )
    return value


def _security_pair(name: str, entry: Any) -> dict[str, str]:
    if not isinstance(entry, dict):
        raise ConfigError(
            f"config: key '{name}' must be an object with policy and mode"
        )
    out = _fill(
        entry,
        {
            "policy": CLIENT_SECURITY_KEYS["policy"],
            "mode": CLIENT_SECURITY_KEYS["mode"],
        },
        name + ".",
    )
    check_policy_mode(out["policy"], out["mode"], name)
    return out


def check_policy_mode(policy: str, mode: str, where: str) -> None:
    if (policy == "None") != (mode == "None"):
        raise ConfigError(
            f"config: key '{where}' pairs policy {policy} with mode {mode}"
        )


def _fill(raw: dict, keys: dict[str, Key], prefix: str = "") -> dict:
    for name in raw:
        if name not in keys:
            raise ConfigError(f"config: unknown key '{prefix}{name}'")
    out = {}
    for name, key in keys.items():
        if name in raw:
            out[name] = _check(prefix + name, key, raw[name])
        elif key.required:
            raise ConfigError(f"config: missing required key '{prefix}{name}'")
        else:
            out[name] = key.default
    return out


# SPEC §2 "unreadable config": limits every adapter applies before it looks at a key, so
# that no input can exhaust a parser's stack or memory (a 100 000-deep array overflows
# Python's json) and every adapter refuses the same files.
CONFIG_MAX_BYTES = 16 * 1024 * 1024
CONFIG_MAX_DEPTH = 64


def load_config(path: str) -> dict:
    """The JSON object in the config file at `path`, or a ConfigError saying why it is unreadable."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(CONFIG_MAX_BYTES + 1)
    except OSError as error:
        raise ConfigError(f"config: cannot read {path}: {error.strerror}") from error
    if len(data) > CONFIG_MAX_BYTES:
        raise ConfigError(f"config: {path} is larger than {CONFIG_MAX_BYTES} bytes")
    try:
        text = data.decode(
            "utf-8"
        )  # strict: refuses overlong forms, surrogates, > U+10FFFF
    except UnicodeDecodeError as error:
        raise ConfigError(f"config: {path} is not UTF-8 (byte {error.start})") from None
    try:
        raw = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise ConfigError(
            f"config: {path} is nested deeper than {CONFIG_MAX_DEPTH} levels"
        ) from None
    except ValueError as error:  # JSONDecodeError, and NaN / Infinity
        raise ConfigError(f"config: {path} is not valid JSON: {error}") from None
    problem = _unreadable_document(raw)
    if problem:
        raise ConfigError(f"config: {path} {problem}")
    if not isinstance(raw, dict):
        raise ConfigError(f"config: {path} must hold a JSON object")
    return raw


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unreadable_document(root: Any) -> str | None:
    """Depth beyond the limit, or a string no UTF-8 text can hold (an unpaired surrogate
    escape) or holding U+0000; walked without recursion, whatever the depth."""
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > CONFIG_MAX_DEPTH:
                return f"is nested deeper than {CONFIG_MAX_DEPTH} levels"
            children = (
                [*node.keys(), *node.values()] if isinstance(node, dict) else node
            )
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(node, str):
            if "\0" in node:
                return "is not valid JSON: a string holds \\u0000"
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return "is not valid JSON: a string holds an unpaired surrogate"
    return None


def server_config(raw: dict) -> dict:
    config = _fill(raw, SERVER_KEYS)
    security = _fill(config["security"] or {}, SERVER_SECURITY_KEYS, "security.")
    if security["endpoints"] is None:
        security["endpoints"] = [{"policy": "None", "mode": "None"}]
    security["trusted_certificates"] = security["trusted_certificates"] or []
    secure = any(e["policy"] != "None" for e in security["endpoints"])
    if secure and not (security["certificate"] and security["private_key"]):
        raise ConfigError(
            "config: key 'security.certificate' and 'security.private_key' are required "
            "for a secure endpoint"
        )
    config["security"] = security
    config["nodesets"] = config["nodesets"] or []
    return config


def check_nodesets(paths: list[str]) -> None:
    """SPEC §4, Imported information models: a path of `nodesets` that is not a readable file
    is a config error naming the key, found before the server builds anything."""
    for path in paths:
        try:
            with open(path, "rb") as file:
                file.read(1)
        except OSError as error:
            raise ConfigError(
                f"config: key 'nodesets': cannot read {path}: {error.strerror or error}"
            ) from error


def client_config(raw: dict) -> dict:
    workload = raw.get("workload")
    keys = dict(CLIENT_KEYS)
    if workload in WORKLOAD_KEYS:
        keys.update(WORKLOAD_KEYS[workload])
    config = _fill(raw, keys)
    if not config["endpoint"].startswith("opc.tcp://"):
        raise ConfigError(
            f"config: key 'endpoint' must start with opc.tcp://, got {config['endpoint']!r}"
        )
    security = _fill(config["security"] or {}, CLIENT_SECURITY_KEYS, "security.")
    check_policy_mode(security["policy"], security["mode"], "security")
    if security["policy"] != "None" and not (
        security["certificate"] and security["private_key"]
    ):
        raise ConfigError(
            "config: key 'security.certificate' and 'security.private_key' are required "
            f"for policy {security['policy']}"
        )
    config["security"] = security
    if config.get("think_ms") and config.get("rate") is not None:
        raise ConfigError(
            "config: key 'think_ms' is the closed loop's wait between a response and the next "
            f"request; it cannot be {config['think_ms']} with a rate (open loop)"
        )
    return config


# --- PubSub roles (SPEC §8) ---------------------------------------------------------------

MAX_UDP_PAYLOAD = 65507  # IPv4: 65535 - 20 (IP header) - 8 (UDP header)
MAX_FIELDS_PER_MESSAGE = (
    12000  # 12000 Variant-encoded Floats (5 bytes each) + headers < 65507
)
MAX_WRITERS = 1000

PUBSUB_KEYS = {
    "address": Key("string", "opc.udp://239.255.0.1:4840/"),
    "interface": Key("string", "127.0.0.1"),
    "publisher_id": Key("int", 1, 0, 65535),
    "writer_group_id": Key("int", 1, 1, 65535),
    "dataset_writer_id": Key("int", 1, 1, 65535),
    "signals": Key("int", 100, 1, 1_000_000),
    "fields_per_message": Key("int", 10000, 1, MAX_FIELDS_PER_MESSAGE),
    "publishing_interval_ms": Key("number", 100, 1, 60000),
}
PUBLISHER_KEYS = dict(PUBSUB_KEYS)
SUBSCRIBER_KEYS = {
    **PUBSUB_KEYS,
    "warmup_s": Key("number", 1, 0, 3600),
    "duration_s": Key("number", 5, 0.1, 86400),
    "verify": Key("bool", True),
    "timeline_ms": Key("int", 100, 10, 10000),
}


def parse_udp_address(address: str) -> tuple[str, int]:
    """(host, port) of `opc.udp://HOST:PORT[/]`; ConfigError naming 'address' otherwise."""
    prefix = "opc.udp://"
    rest = address[len(prefix) :].rstrip("/") if address.startswith(prefix) else ""
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535 or "/" in rest:
        raise ConfigError(
            f"config: key 'address' must be opc.udp://HOST:PORT/ with a port in [1, 65535], "
            f"got {address!r}"
        )
    return host, int(port)


def writers(config: dict) -> int:
    """How many DataSetWriters (and NetworkMessages per cycle) carry the DataSet."""
    return -(-config["signals"] // config["fields_per_message"])


def writer_fields(config: dict, writer: int) -> range:
    """The signal indices that DataSetWriter number `writer` (0-based) carries, in order."""
    per = config["fields_per_message"]
    return range(writer * per, min(config["signals"], (writer + 1) * per))


def _pubsub_config(raw: dict, keys: dict[str, Key]) -> dict:
    import ipaddress

    config = _fill(raw, keys)
    parse_udp_address(config["address"])
    try:
        ipaddress.IPv4Address(config["interface"])
    except ValueError:
        raise ConfigError(
            f"config: key 'interface' must be the IPv4 address of a local interface, "
            f"got {config['interface']!r}"
        ) from None
    count = writers(config)
    if count > MAX_WRITERS:
        raise ConfigError(
            f"config: key 'signals' = {config['signals']} needs {count} DataSetWriters of "
            f"fields_per_message = {config['fields_per_message']}; at most {MAX_WRITERS}"
        )
    if config["dataset_writer_id"] + count - 1 > 65535:
        raise ConfigError(
            f"config: key 'dataset_writer_id' = {config['dataset_writer_id']} leaves no room "
            f"for {count} DataSetWriter ids below 65536"
        )
    return config


def publisher_config(raw: dict) -> dict:
    return _pubsub_config(raw, PUBLISHER_KEYS)


def subscriber_config(raw: dict) -> dict:
    return _pubsub_config(raw, SUBSCRIBER_KEYS)


def pubsub_result(sdk: str, version: str, config: dict, figures: dict) -> dict:
    """The subscriber's result record (SPEC §8) from its raw figures:
    start_ns, end_ns, messages, lost, duplicates, decode_failed, foreign, datagrams, bytes,
    max_datagram_bytes, fields, checked, verification_failed, verification_examples,
    error_examples, cycle_time (Histogram), delay (Histogram), negative_delays, timestamps,
    timeline (Timeline, begun at the first message with the clock offset of start_ns)."""
    seconds = max(1e-9, (figures["end_ns"] - figures["start_ns"]) / 1e9)
    messages, failed = figures["messages"], figures["decode_failed"]
    return {
        "event": "result",
        "sdk": sdk,
        "version": version,
        "role": "subscriber",
        "workload": "pubsub",
        "config": config,
        "start_ns": figures["start_ns"],
        "end_ns": figures["end_ns"],
        "operations": {
            "attempted": messages,
            "succeeded": messages - failed,
            "failed": failed,
        },
        "values": figures["fields"],
        "verification": {
            "checked": figures["checked"],
            "failed": figures["verification_failed"],
            "examples": figures["verification_examples"][:MAX_EXAMPLES],
        },
        "errors": {"examples": figures["error_examples"][:MAX_EXAMPLES]},
        "throughput": {
            "ops_per_s": (messages - failed) / seconds,
            "values_per_s": figures["fields"] / seconds,
        },
        "latency_ns": [],
        "pubsub": {
            "messages": messages,
            "datagrams": figures["datagrams"],
            "bytes": figures["bytes"],
            "max_datagram_bytes": figures["max_datagram_bytes"],
            "writers": writers(config),
            "lost": figures["lost"],
            "duplicates": figures["duplicates"],
            "decode_failed": failed,
            "foreign": figures["foreign"],
            "negative_delays": figures["negative_delays"],
            "timestamps": figures["timestamps"],
        },
        "cycle_time_ns": figures["cycle_time"].sparse(),
        "delay_ns": figures["delay"].sparse(),
        "timeline": figures["timeline"].record(figures["end_ns"]),
    }


def verify_signal_fields(
    first_index: int, values: list, examples: list[str]
) -> tuple[int, int]:
    """Verifies the Float fields of one DataSetMessage that starts at Signal_{first_index}:
    each is Signal_i's value, and all carry the same tick. Returns (checked, failed)."""
    failed, tick = 0, None
    for offset, value in enumerate(values):
        node = f"Signal_{first_index + offset}"
        reason = verify_value(node, value)
        if reason is None:
            if tick is None:
                tick = signal_tick(value)
            elif signal_tick(value) != tick:
                reason = f"{node}: tick {signal_tick(value)} differs from tick {tick} of the same message"
        if reason is not None:
            failed += 1
            if len(examples) < MAX_EXAMPLES:
                examples.append(reason)
    return len(values), failed


# --- stdout protocol (SPEC §2) ------------------------------------------------------------


def emit(event: dict) -> None:
    sys.stdout.write(json.dumps(event, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def fail(kind: str, message: str, code: int) -> None:
    emit({"event": "error", "kind": kind, "message": message})
    sys.stderr.write(f"{kind}: {message}\n")
    sys.exit(code)


# --- the result record (SPEC §6) ----------------------------------------------------------

MAX_EXAMPLES = 5
TIMELINE_MS = 100


class Timeline:
    """Successful completions and their values per window of `window_ms`, from the start of
    the workload (warm-up included) to the end of the measured phase (SPEC §6), so the harness
    can see when the throughput became steady. Counting is an index and two additions into
    lists allocated at `begin`, cheap enough for the completion path."""

    def __init__(self, window_ms: int = TIMELINE_MS) -> None:
        self.window_ms = window_ms
        self._window_ns = window_ms * 1_000_000
        self._start = self._offset = 0
        self._begun = False
        self.ops: list[int] = []
        self.values: list[int] = []

    def begin(self, start_ns: int, span_ns: int, offset_ns: int = 0) -> None:
        """The workload starts at `start_ns` (the adapter's clock) and runs `span_ns`
        (warm-up + measured phase); `offset_ns` maps that clock to the record's start_ns/end_ns."""
        self._start, self._offset, self._begun = start_ns, offset_ns, True
        windows = max(0, -(-span_ns // self._window_ns))
        self.ops, self.values = [0] * windows, [0] * windows

    def completed(self, at_ns: int, values: int) -> None:
        """One operation completed successfully at `at_ns` (the adapter's clock), carrying
        `values`; completions outside the timeline are not counted."""
        k = (at_ns - self._start) // self._window_ns
        if 0 <= k < len(self.ops):
            self.ops[k] += 1
            self.values[k] += values

    def record(self, end_ns: int) -> dict:
        """The record's `timeline`, its windows cut (or padded) to end at the record's end_ns.
        A timeline never begun starts at end_ns, empty (what a run that never started has)."""
        start_ns = self._start + self._offset if self._begun else end_ns
        windows = timeline_windows(start_ns, end_ns, self.window_ms)
        pad = [0] * max(0, windows - len(self.ops))
        return {
            "window_ms": self.window_ms,
            "start_ns": start_ns,
            "ops": (self.ops + pad)[:windows],
            "values": (self.values + pad)[:windows],
        }


class Recorder:
    """Counts one client run. Operations are attributed to the measured phase by the
    adapter (by send or scheduled time), so late completions still count. The timeline
    counts every successful completion by its completion time, warm-up included: the adapter
    begins it when the workload starts and calls `timeline.completed`."""

    def __init__(self, timeline_ms: int = TIMELINE_MS) -> None:
        self.timeline = Timeline(timeline_ms)
        self.attempted = self.succeeded = self.failed = self.values = 0
        self.checked = self.verification_failed = 0
        # SPEC §3 R3: set by the read workload at its end; 0 for write and subscribe
        self.ticks_advanced = 0
        # SPEC §3 W1: values read back under load (write workload with verify), also in `checked`
        self.read_back = 0
        self.verification_examples: list[str] = []
        self.error_examples: list[str] = []
        self.latency = Histogram()
        self.send_lag = Histogram()
        self.session_setup = Histogram()
        self.connection = Connection(1)  # the workload sets one for its sessions
        self.start_ns = self.end_ns = 0

    def operation(
        self, latency_ns: int, ok: bool, values: int, error: str | None = None
    ) -> None:
        self.attempted += 1
        if ok:
            self.succeeded += 1
            self.values += values
            self.latency.record(latency_ns)
        else:
            self.failed += 1
            if error and len(self.error_examples) < MAX_EXAMPLES:
                self.error_examples.append(error)

    def notification(self, ok: bool, error: str | None = None) -> None:
        """One data-change notification of the subscribe workload (no latency)."""
        self.attempted += 1
        if ok:
            self.succeeded += 1
            self.values += 1
        else:
            self.failed += 1
            if error and len(self.error_examples) < MAX_EXAMPLES:
                self.error_examples.append(error)

    def sent(self, lag_ns: int) -> None:
        """Open loop: a measured request was handed to the SDK lag_ns after its schedule."""
        self.send_lag.record(lag_ns)

    def session_ready(self, setup_ns: int) -> None:
        self.session_setup.record(setup_ns)

    def verification(self, failure: str | None) -> None:
        self.checked += 1
        if failure is not None:
            self.verification_failed += 1
            if len(self.verification_examples) < MAX_EXAMPLES:
                self.verification_examples.append(failure)

    def result(self, sdk: str, version: str, role: str, config: dict) -> dict:
        seconds = max(1e-9, (self.end_ns - self.start_ns) / 1e9)
        return {
            "event": "result",
            "sdk": sdk,
            "version": version,
            "role": role,
            "workload": config.get("workload"),
            "config": config,
            "start_ns": self.start_ns,
            "end_ns": self.end_ns,
            "operations": {
                "attempted": self.attempted,
                "succeeded": self.succeeded,
                "failed": self.failed,
            },
            "values": self.values,
            "verification": {
                "checked": self.checked,
                "failed": self.verification_failed,
                "examples": self.verification_examples,
                "read_back": self.read_back,
                "ticks_advanced": self.ticks_advanced,
            },
            "errors": {"examples": self.error_examples},
            "throughput": {
                "ops_per_s": self.succeeded / seconds,
                "values_per_s": self.values / seconds,
            },
            "latency_ns": self.latency.sparse(),
            "send_lag_ns": self.send_lag.sparse(),
            "session_setup_ns": self.session_setup.sparse(),
            "connection": self.connection.record(),
            "timeline": self.timeline.record(self.end_ns),
        }


# --- the machine-readable contract (contract/schema) --------------------------------------

SCHEMAS = (
    "common",
    "server",
    "client",
    "publisher",
    "subscriber",
    "result",
    "event",
    "capabilities",
)


def schema(name: str) -> dict:
    """The JSON Schema `name` of contract/schema (shipped in this package as schema/NAME.json)."""
    from importlib import resources

    if name not in SCHEMAS:
        raise KeyError(f"no contract schema {name!r}; one of {', '.join(SCHEMAS)}")
    return json.loads(
        (resources.files(__name__) / "schema" / f"{name}.json").read_text(
            encoding="utf-8"
        )
    )
