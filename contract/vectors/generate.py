"""Writes the golden test vectors of contract/vectors/*.json from the Python reference
implementation (uabench_contract). Run from the repository root after changing the contract:

    .venv/bin/python contract/vectors/generate.py

The inputs below are chosen by hand (edges of every range, every rule of SPEC §3-§5 and §8);
the expected outputs come from the reference, and a few are checked by hand in
harness/tests/test_contract.py so that a bug in the reference cannot pass into the vectors.
"""

from __future__ import annotations

import hashlib
import json
import struct
import tempfile
from pathlib import Path

import uabench_contract as contract
from verification_cases import verification

HERE = Path(__file__).resolve().parent

SERVER = {"port": 4840}
READ = {"endpoint": "opc.tcp://127.0.0.1:4840", "workload": "read", "nodes": ["Real"]}
SUBSCRIBE = {**READ, "workload": "subscribe"}
SECURE = {"policy": "Basic256Sha256", "mode": "SignAndEncrypt"}

# (role, config, key the message must name, whether the JSON Schema alone rejects it).
# Rules a JSON Schema cannot state (an integer written as 5.0 is an integer to JSON Schema;
# counts across keys) are rejected by each adapter's own code after the schema.
BAD = [
    ("server", {**SERVER, "signalz": 10}, "signalz", True),
    ("server", {}, "port", True),
    ("server", {"port": 0}, "port", True),
    ("server", {"port": 65536}, "port", True),
    ("server", {"port": "4840"}, "port", True),
    ("server", {"port": 4840.5}, "port", True),
    ("server", {"port": True}, "port", True),
    ("server", {"port": None}, "port", True),
    ("server", {"port": 4840.0}, "port", False),
    ("server", {**SERVER, "host": ""}, "host", True),
    ("server", {**SERVER, "host": 127}, "host", True),
    ("server", {**SERVER, "signals": -5}, "signals", True),
    ("server", {**SERVER, "signals": 100001}, "signals", True),
    ("server", {**SERVER, "update_interval_ms": -1}, "update_interval_ms", True),
    ("server", {**SERVER, "update_interval_ms": 60001}, "update_interval_ms", True),
    ("server", {**SERVER, "writes": 100001}, "writes", True),
    ("server", {**SERVER, "security": "None"}, "security", True),
    ("server", {**SERVER, "security": {"endpoint": []}}, "security.endpoint", True),
    ("server", {**SERVER, "security": {"endpoints": []}}, "security.endpoints", True),
    (
        "server",
        {**SERVER, "security": {"endpoints": ["None"]}},
        "security.endpoints[0]",
        True,
    ),
    (
        "server",
        {
            **SERVER,
            "security": {"endpoints": [{"policy": "Basic128Rsa15", "mode": "Sign"}]},
        },
        "security.endpoints[0].policy",
        True,
    ),
    (
        "server",
        {**SERVER, "security": {"endpoints": [{"policy": "None", "mode": "Sign"}]}},
        "security.endpoints[0]",
        True,
    ),
    (
        "server",
        {**SERVER, "security": {"endpoints": [{"policy": "Basic256Sha256"}]}},
        "security.endpoints[0]",
        True,
    ),
    (
        "server",
        {**SERVER, "security": {"endpoints": [{"policy": "None", "port": 1}]}},
        "security.endpoints[0].port",
        True,
    ),
    (
        "server",
        {**SERVER, "security": {"endpoints": [SECURE]}},
        "security.certificate",
        True,
    ),
    (
        "server",
        {**SERVER, "security": {"certificate": 5}},
        "security.certificate",
        True,
    ),
    (
        "server",
        {**SERVER, "security": {"application_uri": ""}},
        "security.application_uri",
        True,
    ),
    (
        "server",
        {**SERVER, "security": {"trusted_certificates": "client.der"}},
        "security.trusted_certificates",
        True,
    ),
    ("server", {**SERVER, "nodesets": "Opc.Ua.Di.NodeSet2.xml"}, "nodesets", True),
    ("server", {**SERVER, "nodesets": [""]}, "nodesets", True),
    ("server", {**SERVER, "nodesets": [5]}, "nodesets", True),
    ("server", {**SERVER, "nodesets": None}, "nodesets", True),
    ("client", {**READ, "nodes_per_reqest": 2}, "nodes_per_reqest", True),
    ("client", {k: v for k, v in READ.items() if k != "endpoint"}, "endpoint", True),
    ("client", {k: v for k, v in READ.items() if k != "workload"}, "workload", True),
    ("client", {k: v for k, v in READ.items() if k != "nodes"}, "nodes", True),
    ("client", {**READ, "endpoint": "http://127.0.0.1:4840"}, "endpoint", True),
    ("client", {**READ, "workload": "browse"}, "workload", True),
    ("client", {**READ, "nodes": []}, "nodes", True),
    ("client", {**READ, "nodes": "Real"}, "nodes", True),
    ("client", {**READ, "nodes": ["Real", ""]}, "nodes", True),
    ("client", {**READ, "sessions": 0}, "sessions", True),
    ("client", {**READ, "sessions": 1001}, "sessions", True),
    ("client", {**READ, "sessions": "1"}, "sessions", True),
    ("client", {**READ, "sessions": 2.0}, "sessions", False),
    ("client", {**READ, "warmup_s": -1}, "warmup_s", True),
    ("client", {**READ, "warmup_s": 3601}, "warmup_s", True),
    ("client", {**READ, "duration_s": 0.05}, "duration_s", True),
    ("client", {**READ, "duration_s": 86401}, "duration_s", True),
    ("client", {**READ, "duration_s": "5"}, "duration_s", True),
    ("client", {**READ, "verify": "yes"}, "verify", True),
    ("client", {**READ, "verify": 1}, "verify", True),
    ("client", {**READ, "timeline_ms": 9}, "timeline_ms", True),
    ("client", {**READ, "timeline_ms": 10001}, "timeline_ms", True),
    ("client", {**SUBSCRIBE, "timeline_ms": 100.5}, "timeline_ms", True),
    ("client", {**READ, "timeline_ms": "100"}, "timeline_ms", True),
    ("client", {**READ, "timeline_ms": None}, "timeline_ms", True),
    ("client", {**READ, "timeline_ms": 250.0}, "timeline_ms", False),
    ("client", {**READ, "nodes_per_request": 0}, "nodes_per_request", True),
    ("client", {**READ, "nodes_per_request": 10001}, "nodes_per_request", True),
    ("client", {**READ, "in_flight": 0}, "in_flight", True),
    ("client", {**READ, "workload": "write", "in_flight": 10001}, "in_flight", True),
    ("client", {**READ, "rate": 0}, "rate", True),
    ("client", {**READ, "rate": -10}, "rate", True),
    ("client", {**READ, "rate": 2e9}, "rate", True),
    ("client", {**READ, "rate": "fast"}, "rate", True),
    ("client", {**READ, "think_ms": -1}, "think_ms", True),
    ("client", {**READ, "think_ms": 60001}, "think_ms", True),
    ("client", {**READ, "think_ms": "5"}, "think_ms", True),
    ("client", {**READ, "think_ms": 5, "rate": 10}, "think_ms", False),
    ("client", {**SUBSCRIBE, "think_ms": 5}, "think_ms", True),
    ("client", {**READ, "record_latencies": 1}, "record_latencies", True),
    ("client", {**READ, "record_latencies": "true"}, "record_latencies", True),
    ("client", {**SUBSCRIBE, "record_latencies": True}, "record_latencies", True),
    ("client", {**READ, "reconnect": 1}, "reconnect", True),
    ("client", {**SUBSCRIBE, "reconnect": "true"}, "reconnect", True),
    ("client", {**READ, "reconnect": None}, "reconnect", True),
    ("client", {**READ, "request_timeout_ms": 99}, "request_timeout_ms", True),
    ("client", {**READ, "request_timeout_ms": 3600001}, "request_timeout_ms", True),
    (
        "client",
        {**SUBSCRIBE, "request_timeout_ms": "60000"},
        "request_timeout_ms",
        True,
    ),
    ("client", {**READ, "request_timeout_ms": True}, "request_timeout_ms", True),
    ("client", {**READ, "request_timeout_ms": 60000.5}, "request_timeout_ms", True),
    ("client", {**READ, "request_timeout_ms": 60000.0}, "request_timeout_ms", False),
    ("client", {**READ, "subscriptions": 1}, "subscriptions", True),
    ("client", {**SUBSCRIBE, "nodes_per_request": 1}, "nodes_per_request", True),
    ("client", {**SUBSCRIBE, "subscriptions": 0}, "subscriptions", True),
    ("client", {**SUBSCRIBE, "subscriptions": 1001}, "subscriptions", True),
    (
        "client",
        {**SUBSCRIBE, "publishing_interval_ms": 0.5},
        "publishing_interval_ms",
        True,
    ),
    ("client", {**SUBSCRIBE, "sampling_interval_ms": -1}, "sampling_interval_ms", True),
    ("client", {**SUBSCRIBE, "queue_size": 0}, "queue_size", True),
    ("client", {**SUBSCRIBE, "queue_size": 10001}, "queue_size", True),
    ("client", {**READ, "security": "None"}, "security", True),
    ("client", {**READ, "security": {"pin": 1234}}, "security.pin", True),
    (
        "client",
        {**READ, "security": {"policy": "Basic128Rsa15", "mode": "Sign"}},
        "security.policy",
        True,
    ),
    (
        "client",
        {**READ, "security": {"policy": "None", "mode": "Fast"}},
        "security.mode",
        True,
    ),
    (
        "client",
        {**READ, "security": {"policy": "None", "mode": "Sign"}},
        "security",
        True,
    ),
    ("client", {**READ, "security": {"policy": "Basic256Sha256"}}, "security", True),
    ("client", {**READ, "security": SECURE}, "security.certificate", True),
    (
        "client",
        {**READ, "security": {"application_uri": ""}},
        "security.application_uri",
        True,
    ),
    ("publisher", {"warmup_s": 1}, "warmup_s", True),
    ("publisher", {"timeline_ms": 100}, "timeline_ms", True),
    ("publisher", {"address": "udp://239.255.0.1:4840/"}, "address", True),
    ("publisher", {"address": "opc.udp://239.255.0.1/"}, "address", True),
    ("publisher", {"address": "opc.udp://239.255.0.1:0/"}, "address", True),
    ("publisher", {"address": "opc.udp://239.255.0.1:65536/"}, "address", True),
    ("publisher", {"address": "opc.udp://239.255.0.1:4840/x"}, "address", True),
    ("publisher", {"interface": "eth0"}, "interface", True),
    ("publisher", {"interface": "256.1.1.1"}, "interface", True),
    ("publisher", {"publisher_id": -1}, "publisher_id", True),
    ("publisher", {"publisher_id": 65536}, "publisher_id", True),
    ("publisher", {"writer_group_id": 0}, "writer_group_id", True),
    ("publisher", {"dataset_writer_id": 0}, "dataset_writer_id", True),
    ("publisher", {"signals": 0}, "signals", True),
    ("publisher", {"signals": 1000001}, "signals", True),
    ("publisher", {"fields_per_message": 0}, "fields_per_message", True),
    ("publisher", {"fields_per_message": 12001}, "fields_per_message", True),
    ("publisher", {"publishing_interval_ms": 0.5}, "publishing_interval_ms", True),
    ("publisher", {"signals": 1000000, "fields_per_message": 100}, "signals", False),
    (
        "publisher",
        {"signals": 20000, "dataset_writer_id": 65535},
        "dataset_writer_id",
        False,
    ),
    ("subscriber", {"nodes": ["Real"]}, "nodes", True),
    ("subscriber", {"duration_s": 0}, "duration_s", True),
    ("subscriber", {"warmup_s": -0.5}, "warmup_s", True),
    ("subscriber", {"verify": "no"}, "verify", True),
    ("subscriber", {"timeline_ms": 0}, "timeline_ms", True),
    ("subscriber", {"timeline_ms": 10001}, "timeline_ms", True),
    ("subscriber", {"timeline_ms": 99.5}, "timeline_ms", True),
    ("subscriber", {"timeline_ms": 100.0}, "timeline_ms", False),
    ("subscriber", {"signals": 12001, "fields_per_message": 12}, "signals", False),
]

GOOD = [
    ("server", SERVER),
    (
        "server",
        {
            "host": "0.0.0.0",
            "port": 1,
            "signals": 0,
            "update_interval_ms": 0,
            "writes": 0,
        },
    ),
    (
        "server",
        {
            "port": 65535,
            "signals": 100000,
            "update_interval_ms": 60000,
            "writes": 100000,
            "security": {
                "endpoints": [{"policy": "None", "mode": "None"}],
                "certificate": None,
                "trusted_certificates": [],
            },
            "nodesets": [],
        },
    ),
    ("client", READ),
    (
        "client",
        {
            **READ,
            "workload": "write",
            "sessions": 1000,
            "warmup_s": 0,
            "duration_s": 0.1,
            "verify": False,
            "nodes": ["Write_0", "Write_0", "Write_1"],
            "nodes_per_request": 10000,
            "in_flight": 10000,
            "rate": 1e9,
        },
    ),
    (
        "client",
        {
            **READ,
            "rate": 2.5,
            "security": {"policy": "None", "mode": "None", "private_key": None},
        },
    ),
    ("client", {**READ, "rate": None, "warmup_s": 3600, "duration_s": 86400}),
    ("client", {**READ, "timeline_ms": 10}),
    ("client", {**READ, "think_ms": 60000, "record_latencies": True}),
    (
        "client",
        {
            **READ,
            "workload": "write",
            "think_ms": 0.5,
            "rate": None,
            "record_latencies": False,
        },
    ),
    ("client", {**READ, "think_ms": 0, "rate": 100}),
    ("client", {**SUBSCRIBE, "reconnect": True}),
    ("client", {**READ, "request_timeout_ms": 100}),
    ("client", {**SUBSCRIBE, "request_timeout_ms": 3600000}),
    ("client", {**READ, "workload": "write", "request_timeout_ms": None}),
    ("client", {**SUBSCRIBE, "timeline_ms": 10000}),
    ("client", SUBSCRIBE),
    (
        "client",
        {
            **SUBSCRIBE,
            "subscriptions": 1000,
            "publishing_interval_ms": 1,
            "sampling_interval_ms": 0,
            "queue_size": 10000,
        },
    ),
    ("publisher", {}),
    (
        "publisher",
        {
            "address": "opc.udp://224.0.0.22:65535",
            "interface": "10.0.0.1",
            "publisher_id": 0,
            "writer_group_id": 65535,
            "dataset_writer_id": 65535,
            "signals": 12000,
            "fields_per_message": 12000,
            "publishing_interval_ms": 0.5 + 0.5,
        },
    ),
    (
        "publisher",
        {"signals": 1000000, "fields_per_message": 1000, "dataset_writer_id": 64536},
    ),
    ("subscriber", {}),
    ("subscriber", {"signals": 1, "warmup_s": 0, "duration_s": 0.1, "verify": False}),
    ("subscriber", {"timeline_ms": 10}),
    ("subscriber", {"timeline_ms": 10000}),
    # last, so the indexes of the vectors before it stay as the adapters' tests know them
    (
        "server",
        {
            **SERVER,
            "nodesets": ["Opc.Ua.Di.NodeSet2.xml", "Opc.Ua.Machinery.NodeSet2.xml"],
        },
    ),
]

# Unreadable config files (SPEC §2): refused before any key is looked at, by every role, with
# the `config` error whose message says why (`says`). As bytes, since most are not JSON text:
# the file is the concatenation of each [hex, times] part. The last two are at the limits
# and read, then refused for their unknown key.
SERVER_TEXT = b'{"port": 4840'
NOT_UTF8 = "is not UTF-8"
NOT_JSON = "is not valid JSON"
TOO_DEEP = f"is nested deeper than {contract.CONFIG_MAX_DEPTH} levels"
NOT_OBJECT = "must hold a JSON object"
TOO_LARGE = f"is larger than {contract.CONFIG_MAX_BYTES} bytes"


def nested(depth: int, opening: bytes, closing: bytes, key: str = "x") -> list:
    """`{"port": 4840, "<key>": ` and `depth - 1` more containers: the file is `depth` deep."""
    return [
        [(SERVER_TEXT + f', "{key}": '.encode()).hex(), 1],
        [opening.hex(), depth - 1],
        [b"1".hex(), 1],
        [closing.hex(), depth - 1],
        [b"}".hex(), 1],
    ]


def padded(text: bytes, size: int) -> list:
    return [[text.hex(), 1], [b" ".hex(), size - len(text)]]


UNREADABLE = [
    ("byte 0xff in a string", [[b'{"port": 4840, "host": "\xff"}'.hex(), 1]], NOT_UTF8),
    ("byte 0xff first", [[b'\xff{"port": 4840}'.hex(), 1]], NOT_UTF8),
    ("Latin-1 text", [[b'{"port": 4840, "host": "h\xe9te"}'.hex(), 1]], NOT_UTF8),
    ("overlong '/'", [[b'{"port": 4840, "host": "\xc0\xaf"}'.hex(), 1]], NOT_UTF8),
    (
        "UTF-8 of a surrogate",
        [[b'{"port": 4840, "host": "\xed\xa0\x80"}'.hex(), 1]],
        NOT_UTF8,
    ),
    (
        "above U+10FFFF",
        [[b'{"port": 4840, "host": "\xf4\x90\x80\x80"}'.hex(), 1]],
        NOT_UTF8,
    ),
    ("sequence cut at the end", [[b'{"port": 4840}\n\xe2\x82'.hex(), 1]], NOT_UTF8),
    ("empty file", [], NOT_JSON),
    ("byte-order mark", [[b'\xef\xbb\xbf{"port": 4840}'.hex(), 1]], NOT_JSON),
    ("unterminated object", [[SERVER_TEXT.hex(), 1]], NOT_JSON),
    ("data after the object", [[b'{"port": 4840} {}'.hex(), 1]], NOT_JSON),
    ("single quotes", [[b"{'port': 4840}".hex(), 1]], NOT_JSON),
    ("comment", [[b'{"port": 4840 /* x */}'.hex(), 1]], NOT_JSON),
    ("NaN", [[b'{"port": 4840, "update_interval_ms": NaN}'.hex(), 1]], NOT_JSON),
    (
        "Infinity",
        [[b'{"port": 4840, "update_interval_ms": -Infinity}'.hex(), 1]],
        NOT_JSON,
    ),
    (
        "escaped unpaired surrogate",
        [[b'{"port": 4840, "host": "a\\udc80"}'.hex(), 1]],
        NOT_JSON,
    ),
    ("escaped U+0000", [[b'{"port": 4840, "host": "a\\u0000b"}'.hex(), 1]], NOT_JSON),
    (
        "arrays one deeper than the limit",
        nested(contract.CONFIG_MAX_DEPTH + 1, b"[", b"]"),
        TOO_DEEP,
    ),
    (
        "objects one deeper than the limit",
        nested(contract.CONFIG_MAX_DEPTH + 1, b'{"a": ', b"}"),
        TOO_DEEP,
    ),
    ("arrays 100000 deep", nested(100_000, b"[", b"]"), TOO_DEEP),
    ("objects 100000 deep", nested(100_000, b'{"a": ', b"}"), TOO_DEEP),
    ("an array", [[b"[]".hex(), 1]], NOT_OBJECT),
    ("null", [[b"null".hex(), 1]], NOT_OBJECT),
    ("a string", [[b'"{\\"port\\": 4840}"'.hex(), 1]], NOT_OBJECT),
    ("a number", [[b"4840".hex(), 1]], NOT_OBJECT),
    ("true", [[b"true".hex(), 1]], NOT_OBJECT),
    (
        "one byte over the size limit",
        padded(b'{"port": 4840}', contract.CONFIG_MAX_BYTES + 1),
        TOO_LARGE,
    ),
    (
        "at the depth limit",
        nested(contract.CONFIG_MAX_DEPTH, b"[", b"]", "depth_limit"),
        "depth_limit",
    ),
    (
        "at the size limit",
        padded(b'{"port": 4840, "size_limit": 1}', contract.CONFIG_MAX_BYTES),
        "size_limit",
    ),
]


def file_bytes(parts: list) -> bytes:
    return b"".join(bytes.fromhex(text) * times for text, times in parts)


def unreadable_configs(directory: Path) -> list[dict]:
    vectors = []
    for n, (name, parts, says) in enumerate(UNREADABLE):
        path = directory / f"{n}.json"
        path.write_bytes(file_bytes(parts))
        try:
            contract.server_config(contract.load_config(str(path)))
        except contract.ConfigError as error:
            if says not in str(error):
                raise SystemExit(
                    f"{name}: reference message {error} does not say {says!r}"
                ) from None
        else:
            raise SystemExit(f"the reference accepts the unreadable config {name}")
        vectors.append(
            {
                "name": name,
                "role": "server",
                "parts": parts,
                "says": says,
                "exit": contract.EXIT_CONFIG,
                "kind": "config",
                "any_role": says
                in (NOT_UTF8, NOT_JSON, TOO_DEEP, NOT_OBJECT, TOO_LARGE),
            }
        )
    return vectors


FILL = {
    "server": contract.server_config,
    "client": contract.client_config,
    "publisher": contract.publisher_config,
    "subscriber": contract.subscriber_config,
}


def bad_configs() -> list[dict]:
    vectors = []
    for role, config, key, by_schema in BAD:
        try:
            FILL[role](json.loads(json.dumps(config)))
        except contract.ConfigError as error:
            if key not in str(error):
                raise SystemExit(
                    f"reference message {error} does not name {key!r}"
                ) from None
        else:
            raise SystemExit(f"the reference accepts the bad {role} config {config}")
        vectors.append(
            {
                "role": role,
                "config": config,
                "key": key,
                "exit": contract.EXIT_CONFIG,
                "kind": "config",
                "schema": by_schema,
            }
        )
    return vectors


def good_configs() -> list[dict]:
    return [
        {
            "role": role,
            "config": config,
            "filled": FILL[role](json.loads(json.dumps(config))),
        }
        for role, config in GOOD
    ]


HISTOGRAM_VALUES = [
    1,
    2,
    127,
    128,
    255,
    256,
    257,
    258,
    511,
    512,
    513,
    514,
    1000,
    1023,
    1024,
    1031,
    1032,
    10239,
    10240,
    10300,
    65535,
    65536,
    999_999,
    1_000_000,
    123_456_789,
    2**31 - 1,
    2**31,
    2**32 - 1,
    2**32,
    2**32 + 5,
    5_000_000_000,
    2**40 + 12345,
    2**52 + 1,
    2**53 - 1,
]
SAMPLES = [
    [5, 5, 5],
    [1000, 1001, 1003, 1004, 1007, 1008, 1000],
    [300, 260, 258, 256, 1, 1],
    [10_000_000_000, 3, 10_000_000_001, 2**31],
]


def bounds(value: int) -> tuple[int, int]:
    low = contract.bucket(value)
    return low, low + (1 << max(0, value.bit_length() - 8)) - 1


def histogram() -> dict:
    buckets = []
    for value in HISTOGRAM_VALUES:
        low, high = bounds(value)
        buckets.append(
            {
                "value_ns": value,
                "bucket": contract.bucket(value),
                "low": low,
                "high": high,
            }
        )
    sparse = []
    for values in SAMPLES:
        hist = contract.Histogram()
        for value in values:
            hist.record(value)
        sparse.append({"values_ns": values, "sparse": hist.sparse()})
    return {"buckets": buckets, "histograms": sparse}


def pattern(values: list, kind: str) -> dict:
    """A long array as length, samples, sum and SHA-256 of its little-endian encoding."""
    raw = (
        bytes(values)
        if kind == "byte"
        else struct.pack(f"<{len(values)}{'h' if kind == 'int16' else 'd'}", *values)
    )
    picks = sorted(
        {0, 1, 2, 255, 256, 511, 4095, 20_000 - 1, len(values) - 1}
        & set(range(len(values)))
    )
    return {
        "length": len(values),
        "element": kind,
        "samples": [[k, values[k]] for k in picks],
        "sum": sum(values),
        "sha256_le": hashlib.sha256(raw).hexdigest(),
    }


SIGNAL_CASES = [
    (0, 0),
    (0, 1),
    (1, 0),
    (3, 7),
    (1023, 16383),
    (1024, 0),
    (1025, 16384),
    (5000, 16385),
    (99_999, 123_456_789),
    (999_999, 4_294_967_295),
]
VERIFY_CASES = [
    ("Signal_3", 49159.0),
    ("Signal_3", 49159.5),
    ("Signal_3", 65536.0),
    ("Signal_1027", 49152.0),
    ("Signal_0", 16383.0),
    ("Signal_0", 16384.0),
    ("Signal_0", -1.0),
    ("Signal_1023", 16777215.0),
    ("Signal_1023", 16777216.0),
    ("Real", 1234.5),
    ("Real", 1234.0),
    ("Tick", 0),
    ("Tick", 4294967295),
    ("Tick", 4294967296),
    ("Tick", -1),
    ("Write_7", 0.0),
    ("Write_7", -100001.25),
]


def values() -> dict:
    nodes = ["Signal_0", "Signal_1", "Tick", "Real", "Page"]
    return {
        "signal": [
            {"index": i, "tick": t, "value": contract.signal(i, t)}
            for i, t in SIGNAL_CASES
        ],
        "signal_tick": [
            {
                "value": contract.signal(i, t),
                "tick": contract.signal_tick(contract.signal(i, t)),
            }
            for i, t in SIGNAL_CASES
        ],
        "verify": [
            {
                "node": node,
                "value": value,
                "valid": contract.verify_value(node, value) is None,
            }
            for node, value in VERIFY_CASES
        ],
        "real": contract.REAL_VALUE,
        "page": pattern(contract.page(), "int16"),
        "sdd": pattern(list(contract.sdd()), "byte"),
        "image": pattern(list(contract.image()), "byte"),
        "arrays": {
            name: pattern(contract.array(length), "double")
            for name, length in contract.ARRAYS.items()
        },
        "write_value": [
            {
                "session": s,
                "request": k,
                "nodes_per_request": n,
                "position": j,
                "value": contract.write_value(s, k, n, j),
            }
            for s, k, n, j in [
                (0, 0, 1, 0),
                (0, 5, 10, 3),
                (2, 0, 1, 0),
                (7, 123456, 100, 99),
                (999, 1_000_000, 10000, 9999),
            ]
        ],
        "write_verification_value": [
            {
                "pattern": p,
                "position": i,
                "value": contract.write_verification_value(p, i),
            }
            for p, i in [(1, 0), (1, 1), (17, 5), (1000, 99_999)]
        ],
        "request_nodes": [
            {
                "nodes": nodes,
                "request": k,
                "nodes_per_request": n,
                "result": contract.request_nodes(nodes, k, n),
            }
            for k, n in [
                (0, 1),
                (1, 1),
                (4, 1),
                (5, 1),
                (0, 3),
                (1, 3),
                (2, 3),
                (0, 7),
                (3, 2),
            ]
        ],
        "writers": [
            {
                "signals": s,
                "fields_per_message": f,
                "writers": contract.writers(cfg),
                "fields": [
                    [r.start, r.stop]
                    for r in (
                        contract.writer_fields(cfg, w)
                        for w in range(contract.writers(cfg))
                    )
                ],
            }
            for s, f in [
                (100, 10000),
                (10000, 10000),
                (10001, 10000),
                (25, 10),
                (12000, 12000),
                (7, 1),
            ]
            for cfg in [{"signals": s, "fields_per_message": f}]
        ],
    }


def write(name: str, description: str, body: dict) -> None:
    """One vector per line, so a change in the reference shows as a readable diff."""
    lines = ["{", f'  "description": {json.dumps(description)},']
    sections = list(body.items())
    for n, (section, content) in enumerate(sections):
        comma = "," if n < len(sections) - 1 else ""
        if isinstance(content, list):
            items = ",\n".join("    " + json.dumps(item) for item in content)
            lines.append(f'  "{section}": [\n{items}\n  ]{comma}')
        else:
            lines.append(f'  "{section}": {json.dumps(content)}{comma}')
    (HERE / name).write_text("\n".join(lines) + "\n}\n", encoding="utf-8")


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        unreadable = unreadable_configs(Path(directory))
    write(
        "configs.json",
        "SPEC §3 and §8. bad: the adapter must print an error event of `kind` naming `key` in its message and "
        "exit with `exit`, before connecting; `schema` says whether contract/schema alone rejects it (else the "
        "adapter's own code must). good: accepted; `filled` is the config with every default filled in. "
        "unreadable: the config file is the concatenation of bytes.fromhex(hex) * times of each [hex, times] part; "
        "running `role` on it must print an error event of `kind` whose message contains `says` and exit with `exit` "
        "(`any_role`: the same for every role, since it is refused before any key is read).",
        {"bad": bad_configs(), "good": good_configs(), "unreadable": unreadable},
    )
    write(
        "histogram.json",
        "SPEC §5. buckets: bucket(value_ns), and the values [low, high] that share it. histograms: the sparse "
        "[[bucket_ns, count], ...] of recording values_ns one by one.",
        histogram(),
    )
    write(
        "values.json",
        "SPEC §4 value functions. Long arrays: length, [index, value] samples, sum, and SHA-256 of the "
        "little-endian encoding (int16, byte or IEEE double). writers: SPEC §8 splitting, fields as [first, stop).",
        values(),
    )
    write(
        "verification.json",
        "The rules every client implements by hand, as scripts its own test runner replays through its own "
        "verifier with its SDK's DataValue types. read (SPEC §3 R1-R4): `steps` in order; `send` keeps the "
        "session's high-water tick for `request`; `response` holds the values read at config positions "
        "first, first+1, ... (mod len(nodes)), Tick a UInt32 and Signal_i a Float, `source_us` the "
        "SourceTimestamp (µs since 1970; null: none), received at `received_us`, judged against what its "
        "`request` kept (null: sent before any tick arrived); `fails[i]` is null when value i passes, else "
        "fragments the failure message must contain; `ticks_advanced` after the last step. read_back (W1): "
        "one value read back after session 0's sampled write `request`, sent when `lowest` was its lowest "
        "request in flight; `status_code` its StatusCode. lowest_in_flight: W1's C as session 0's requests "
        "are sent and finish. lifetime (SPEC §3 subscribe): the lifetime count asked for. timeline (SPEC §6): "
        "`begin` (null: never), then `completions` [at_ns, values], then the record at `end_ns`.",
        verification(),
    )


if __name__ == "__main__":
    main()
