import hashlib
import math
import random
import struct
from functools import partial

import jsonschema
import pytest
import uabench_contract as contract
from helpers.contract import CONFIGS, _label, _unreadable_file, _vectors
from uabench_contract import ConfigError, Histogram, validation

from uabench.results.records import validate_result


def test_signal_values_are_exact_floats_that_encode_index_and_tick():
    for index in (0, 1, 1023, 1024, 99999):
        for tick in (0, 1, 16383, 16384, 10**6):
            value = contract.signal(index, tick)
            assert contract._float32_exact(value)
            assert contract.verify_value(f"Signal_{index}", value) is None
            assert contract.signal_tick(value) == tick % 16384


def test_signal_of_another_index_is_a_verification_failure():
    assert "Signal_3" in contract.verify_value("Signal_3", contract.signal(4, 7))
    assert contract.verify_value("Signal_3", 1.5) is not None
    assert contract.verify_value("Signal_3", None) is not None


@pytest.mark.parametrize(
    "node,good,bad",
    [
        ("Real", 1234.5, 1234.25),
        ("Tick", 17, -1),
        ("Page", contract.page(), contract.page()[:-1]),
        ("SDD", contract.sdd(), contract.sdd()[:-1] + b"x"),
        ("Image", contract.image(), b""),
        ("Write_7", 3.5, "3.5"),
    ],
)
def test_data_volume_variables_verify(node, good, bad):
    assert contract.verify_value(node, good) is None
    assert contract.verify_value(node, bad) is not None


def test_page_sdd_image_have_the_documented_sizes_and_patterns():
    assert len(contract.page()) == 512 and all(-32768 <= v <= 32767 for v in contract.page())
    assert len(contract.sdd()) == 20000 and contract.sdd()[1] == 38
    assert len(contract.image()) == 65535 and contract.image()[2] == 27


def test_bucket_relative_error_is_below_one_percent():
    rng = random.Random(7)
    for _ in range(20000):
        value = rng.randint(1, 10**11)
        assert 0 <= value - contract.bucket(value) < 0.01 * value
    assert [contract.bucket(v) for v in (1, 255, 256, 257, 1000)] == [1, 255, 256, 256, 1000]


def test_histogram_percentiles_and_merge():
    first, second = Histogram(), Histogram()
    for value in range(1, 101):
        first.record(value * 1000)
    second.record(5_000_000)
    merged = Histogram(first.sparse()).merge(second)
    assert merged.total == 101
    assert merged.percentile(50) == contract.bucket(51_000)
    assert merged.max() == contract.bucket(5_000_000)
    assert merged.percentile(100) == merged.max()
    assert math.isclose(first.mean(), sum(contract.bucket(v * 1000) for v in range(1, 101)) / 100)


def test_request_nodes_cycle_through_the_list():
    nodes = ["a", "b", "c"]
    assert contract.request_nodes(nodes, 0, 2) == ["a", "b"]
    assert contract.request_nodes(nodes, 1, 2) == ["c", "a"]


@pytest.mark.parametrize(
    "raw,key",
    [
        ({"port": 4840, "signalz": 1}, "signalz"),
        ({"port": 0}, "port"),
        ({"port": 4840, "signals": -1}, "signals"),
        ({"port": 4840, "update_interval_ms": 1.5}, "update_interval_ms"),
        ({}, "port"),
        (
            {"port": 4840, "security": {"endpoints": [{"policy": "Basic256Sha256", "mode": "None"}]}},
            "security.endpoints[0]",
        ),
        (
            {"port": 4840, "security": {"endpoints": [{"policy": "Basic256Sha256", "mode": "Sign"}]}},
            "security.certificate",
        ),
    ],
)
def test_bad_server_config_names_the_key(raw, key):
    with pytest.raises(ConfigError, match=key.replace("[", r"\[").replace("]", r"\]")):
        contract.server_config(raw)


@pytest.mark.parametrize(
    "extra,key",
    [
        ({"nodes_per_reqest": 2}, "nodes_per_reqest"),
        ({"in_flight": 0}, "in_flight"),
        ({"sessions": True}, "sessions"),
        ({"rate": -1}, "rate"),
        ({"duration_s": 0}, "duration_s"),
        ({"nodes": []}, "nodes"),
        ({"endpoint": "http://x"}, "endpoint"),
        ({"security": {"policy": "Basic256Sha256", "mode": "Sign"}}, "security.certificate"),
        ({"queue_size": 3}, "queue_size"),
    ],
)
def test_bad_client_config_names_the_key(extra, key):
    raw = {"endpoint": "opc.tcp://127.0.0.1:4840", "workload": "read", "nodes": ["Real"], **extra}
    with pytest.raises(ConfigError, match=key):
        contract.client_config(raw)


def test_client_config_fills_defaults():
    config = contract.client_config({"endpoint": "opc.tcp://h:1", "workload": "subscribe", "nodes": ["Tick"]})
    assert config["sessions"] == 1 and config["queue_size"] == 1 and config["verify"] is True
    assert config["security"]["policy"] == "None"


def test_recorder_result_counts_and_throughput():
    recorder = contract.Recorder()
    recorder.start_ns, recorder.end_ns = 0, 2_000_000_000
    recorder.operation(1000, True, 10)
    recorder.operation(2000, False, 10, "BadTimeout")
    recorder.verification(None)
    recorder.verification("Real: wrong")
    result = recorder.result("x", "1", "client", {"workload": "read"})
    assert result["operations"] == {"attempted": 2, "succeeded": 1, "failed": 1}
    assert result["throughput"]["values_per_s"] == 5.0
    assert result["errors"]["examples"] == ["BadTimeout"]
    assert result["verification"] == {
        "checked": 2,
        "failed": 1,
        "examples": ["Real: wrong"],
        "read_back": 0,
        "ticks_advanced": 0,
    }


@pytest.mark.parametrize(
    "raw,key",
    [
        ({"adress": "opc.udp://239.0.0.1:4840/"}, "adress"),
        ({"address": "opc.tcp://239.0.0.1:4840/"}, "address"),
        ({"address": "opc.udp://239.0.0.1/"}, "address"),
        ({"address": "opc.udp://239.0.0.1:70000/"}, "address"),
        ({"interface": "lo"}, "interface"),
        ({"publisher_id": 65536}, "publisher_id"),
        ({"writer_group_id": 0}, "writer_group_id"),
        ({"signals": 0}, "signals"),
        ({"fields_per_message": 12001}, "fields_per_message"),
        ({"publishing_interval_ms": 0.5}, "publishing_interval_ms"),
        ({"signals": 1_000_000, "fields_per_message": 100}, "signals"),
        ({"dataset_writer_id": 65535, "signals": 20000}, "dataset_writer_id"),
        ({"duration_s": 1}, "duration_s"),  # a subscriber key: unknown to a publisher
    ],
)
def test_bad_publisher_config_names_the_key(raw, key):
    with pytest.raises(ConfigError, match=key):
        contract.publisher_config(raw)


@pytest.mark.parametrize(
    "raw,key",
    [
        ({"duration_s": 0}, "duration_s"),
        ({"warmup_s": -1}, "warmup_s"),
        ({"verify": 1}, "verify"),
        ({"nodes": ["Signal_0"]}, "nodes"),
    ],
)
def test_bad_subscriber_config_names_the_key(raw, key):
    with pytest.raises(ConfigError, match=key):
        contract.subscriber_config(raw)


def test_pubsub_config_defaults_and_dataset_split():
    config = contract.subscriber_config({"signals": 25000})
    assert config["address"] == "opc.udp://239.255.0.1:4840/" and config["interface"] == "127.0.0.1"
    assert config["publishing_interval_ms"] == 100 and config["verify"] is True
    assert contract.parse_udp_address(config["address"]) == ("239.255.0.1", 4840)
    assert contract.writers(config) == 3
    assert [len(contract.writer_fields(config, k)) for k in range(3)] == [10000, 10000, 5000]
    assert contract.writer_fields(config, 2).start == 20000
    assert "warmup_s" not in contract.publisher_config({})


def test_signal_fields_verify_index_and_a_common_tick():
    examples: list[str] = []
    good = [contract.signal(i, 7) for i in range(2000, 2010)]
    assert contract.verify_signal_fields(2000, good, examples) == (10, 0) and examples == []
    torn = good[:5] + [contract.signal(i, 8) for i in range(2005, 2010)]
    assert contract.verify_signal_fields(2000, torn, examples) == (10, 5)
    assert "tick 8 differs from tick 7" in examples[0]
    shifted = [contract.signal(i + 1, 7) for i in range(2000, 2003)]
    assert contract.verify_signal_fields(2000, shifted, []) == (3, 3)
    assert contract.verify_signal_fields(0, [None, 1.5], []) == (2, 2)


def test_pubsub_result_record():
    config = contract.subscriber_config({"signals": 10})
    cycle, delay = Histogram(), Histogram()
    cycle.record(100_000_000)
    delay.record(250_000)
    figures = {
        "start_ns": 0,
        "end_ns": 2_000_000_000,
        "messages": 20,
        "lost": 1,
        "duplicates": 0,
        "decode_failed": 2,
        "foreign": 3,
        "datagrams": 23,
        "bytes": 1000,
        "max_datagram_bytes": 76,
        "fields": 180,
        "checked": 180,
        "verification_failed": 0,
        "verification_examples": [],
        "error_examples": ["x"],
        "negative_delays": 0,
        "cycle_time": cycle,
        "delay": delay,
        "timestamps": "kernel",
        "timeline": contract.Timeline(),
    }
    result = contract.pubsub_result("sdk", "1", config, figures)
    assert result["role"] == "subscriber" and result["workload"] == "pubsub"
    assert result["operations"] == {"attempted": 20, "succeeded": 18, "failed": 2}
    assert result["throughput"] == {"ops_per_s": 9.0, "values_per_s": 90.0}
    assert result["pubsub"]["lost"] == 1 and result["pubsub"]["writers"] == 1 and result["latency_ns"] == []
    assert result["cycle_time_ns"] == [[contract.bucket(100_000_000), 1]]
    assert result["timeline"] == {"window_ms": 100, "start_ns": 2_000_000_000, "ops": [], "values": []}


def test_timeline_counts_successful_completions_per_window_from_the_start_of_warm_up():
    timeline = contract.Timeline(100)
    start, window = 5_000, 100_000_000
    timeline.begin(start, 250_000_000, offset_ns=1_000)  # 2.5 windows: the last is partial
    for at, values in [
        (start - 1, 7),  # before the start: not counted
        (start, 1),
        (start + window - 1, 2),
        (start + window, 3),
        (start + 2 * window + 1, 4),
        (start + 3 * window, 9),  # past the span: no window
    ]:
        timeline.completed(at, values)
    record = timeline.record(end_ns=start + 1_000 + 250_000_000)
    assert record == {"window_ms": 100, "start_ns": 6_000, "ops": [2, 1, 1], "values": [3, 3, 4]}
    # cut to a shorter end (a subscriber stopped early), padded to a longer one
    assert timeline.record(end_ns=6_000 + window)["ops"] == [2]
    assert timeline.record(end_ns=6_000 + 4 * window)["ops"] == [2, 1, 1, 0]
    assert contract.Timeline().record(end_ns=42) == {"window_ms": 100, "start_ns": 42, "ops": [], "values": []}


def test_timelines_of_processes_side_by_side_combine_onto_the_earliest_start():
    first = {"window_ms": 100, "start_ns": 1_000, "ops": [1, 2, 3], "values": [10, 20, 30]}
    # starts 0.4 windows later: its windows land on the nearest combined ones
    second = {"window_ms": 100, "start_ns": 40_001_000, "ops": [4, 5, 6], "values": [4, 5, 6]}
    combined = contract.combine_timelines([first, second], end_ns=1_000 + 300_000_000)
    assert combined == {"window_ms": 100, "start_ns": 1_000, "ops": [5, 7, 9], "values": [14, 25, 36]}
    # 0.6 windows later: one window on, its last beyond the combined end
    third = {**second, "start_ns": 60_001_000}
    combined = contract.combine_timelines([first, third], end_ns=1_000 + 300_000_000)
    assert combined["ops"] == [1, 6, 8]
    with pytest.raises(ValueError):
        contract.combine_timelines([first, {**second, "window_ms": 250}], end_ns=0)


def test_recorder_timeline_is_in_the_result_with_the_configured_window():
    recorder = contract.Recorder(timeline_ms=10)
    recorder.timeline.begin(0, 50_000_000)
    recorder.start_ns, recorder.end_ns = 20_000_000, 50_000_000
    recorder.timeline.completed(25_000_000, 4)
    timeline = recorder.result("x", "1", "client", {"workload": "read"})["timeline"]
    assert timeline == {"window_ms": 10, "start_ns": 0, "ops": [0, 0, 1, 0, 0], "values": [0, 0, 4, 0, 0]}


FILL = {
    "server": contract.server_config,
    "client": contract.client_config,
    "publisher": contract.publisher_config,
    "subscriber": contract.subscriber_config,
}


HISTOGRAM = _vectors("histogram")


VALUES = _vectors("values")


@pytest.mark.parametrize("name", contract.SCHEMAS)
def test_schema_is_valid_draft_2020_12(name):
    jsonschema.Draft202012Validator.check_schema(contract.schema(name))


@pytest.mark.parametrize("vector", CONFIGS["bad"], ids=_label)
def test_bad_config_vector(vector):
    assert (vector["exit"], vector["kind"]) == (contract.EXIT_CONFIG, "config")
    with pytest.raises(ConfigError) as reference:
        FILL[vector["role"]](vector["config"])
    assert vector["key"] in str(reference.value)
    # What the Python adapters run: the schema first, then the reference.
    with pytest.raises(ConfigError) as adapter:
        validation.check_config(vector["role"], vector["config"])
    assert vector["key"] in str(adapter.value)
    schema_problems = validation.problems(vector["role"], vector["config"])
    assert bool(schema_problems) == vector["schema"], schema_problems


@pytest.mark.parametrize("vector", CONFIGS["good"], ids=_label)
def test_good_config_vector(vector):
    assert FILL[vector["role"]](vector["config"]) == vector["filled"]
    assert validation.check_config(vector["role"], vector["config"]) == vector["filled"]
    assert validation.problems(vector["role"], vector["config"]) == []
    assert validation.problems(vector["role"], vector["filled"]) == []


def test_config_vectors_cover_every_key_of_the_schema():
    """A key added to the schema without a bad vector is a gap every adapter would inherit."""
    named = {v["key"].split(".")[-1].split("[")[0] for v in CONFIGS["bad"]}
    keys = set()

    def collect(node):
        if isinstance(node, dict):
            keys.update(node.get("properties", {}))
            for child in node.values():
                collect(child)
        elif isinstance(node, list):
            for child in node:
                collect(child)

    for role in ("server", "client", "publisher", "subscriber", "common"):
        collect(
            {k: v for k, v in contract.schema(role).items() if k != "$defs"}
            if role != "common"
            else {k: v for k, v in contract.schema(role)["$defs"].items() if k in ("pubsub", "measured_phase")}
        )
    assert keys - named - {"endpoints", "private_key"} == set()


@pytest.mark.parametrize("vector", HISTOGRAM["buckets"], ids=lambda v: str(v["value_ns"]))
def test_bucket_vector(vector):
    assert contract.bucket(vector["value_ns"]) == vector["bucket"] == vector["low"]
    assert contract.bucket(vector["low"]) == contract.bucket(vector["high"]) == vector["bucket"]
    assert contract.bucket(vector["high"] + 1) > vector["bucket"]
    assert vector["low"] == 1 or contract.bucket(vector["low"] - 1) < vector["bucket"]


@pytest.mark.parametrize("vector", HISTOGRAM["histograms"], ids=lambda v: str(v["values_ns"][:3]))
def test_sparse_histogram_vector(vector):
    histogram = Histogram()
    for value in vector["values_ns"]:
        histogram.record(value)
    assert histogram.sparse() == vector["sparse"]
    assert contract.histogram_problems(vector["sparse"]) == []


@pytest.mark.parametrize(
    "name,values",
    [
        ("page", contract.page()),
        ("sdd", list(contract.sdd())),
        ("image", list(contract.image())),
        *[(name, contract.array(length)) for name, length in contract.ARRAYS.items()],
    ],
)
def test_long_value_vectors(name, values):
    vector = VALUES["arrays"][name] if name in contract.ARRAYS else VALUES[name]
    raw = (
        bytes(values)
        if vector["element"] == "byte"
        else struct.pack(f"<{len(values)}{'h' if vector['element'] == 'int16' else 'd'}", *values)
    )
    assert (len(values), sum(values), hashlib.sha256(raw).hexdigest()) == (
        vector["length"],
        vector["sum"],
        vector["sha256_le"],
    )
    assert all(values[k] == v for k, v in vector["samples"])


def test_value_function_vectors():
    for v in VALUES["signal"]:
        assert contract.signal(v["index"], v["tick"]) == v["value"]
    for v in VALUES["signal_tick"]:
        assert contract.signal_tick(v["value"]) == v["tick"]
    for v in VALUES["verify"]:
        value = float(v["value"]) if v["node"].startswith(("Signal_", "Write_")) else v["value"]
        assert (contract.verify_value(v["node"], value) is None) == v["valid"], v
    assert VALUES["real"] == contract.REAL_VALUE
    for v in VALUES["write_value"]:
        assert contract.write_value(v["session"], v["request"], v["nodes_per_request"], v["position"]) == v["value"]
    for v in VALUES["write_verification_value"]:
        assert contract.write_verification_value(v["pattern"], v["position"]) == v["value"]
    for v in VALUES["request_nodes"]:
        assert contract.request_nodes(v["nodes"], v["request"], v["nodes_per_request"]) == v["result"]
    for v in VALUES["writers"]:
        config = {"signals": v["signals"], "fields_per_message": v["fields_per_message"]}
        assert contract.writers(config) == v["writers"]
        assert [[r.start, r.stop] for r in map(partial(contract.writer_fields, config), range(v["writers"]))] == v[
            "fields"
        ]


def test_vectors_agree_with_values_worked_out_by_hand():
    """The vectors come from the reference; these few are computed by hand, so a bug in the
    reference cannot slip into every adapter through them."""
    signal = {(v["index"], v["tick"]): v["value"] for v in VALUES["signal"]}
    assert signal[5000, 16385] == (5000 - 4 * 1024) * 16384 + 1 == 14811137
    assert signal[1023, 16383] == 2**24 - 1
    buckets = {v["value_ns"]: v for v in HISTOGRAM["buckets"]}
    assert buckets[511]["bucket"] == 510  # 0b111111111: the last bit dropped
    assert (buckets[1031]["bucket"], buckets[1031]["high"]) == (1024, 1031)  # 11 bits: steps of 8
    assert buckets[2**32 + 5]["bucket"] == 2**32 and buckets[2**32 + 5]["high"] == 2**32 + 2**25 - 1
    assert VALUES["arrays"]["Array_10000"]["sum"] == 9999 * 10000 / 2 + 5000
    assert VALUES["sdd"]["samples"][1] == [1, 38] and VALUES["image"]["samples"][-1] == [65534, (65534 * 13 + 1) % 256]
    assert VALUES["page"]["samples"][0] == [0, -32768]
    assert {"value": 7_012_345_699.0}.items() <= VALUES["write_value"][3].items()
    assert VALUES["write_verification_value"][2]["value"] == -1_700_005.25
    filled = next(v["filled"] for v in CONFIGS["good"] if v["config"] == {"port": 4840})
    assert filled["signals"] == 1000 and filled["security"]["endpoints"] == [{"policy": "None", "mode": "None"}]


def _client_record() -> dict:
    recorder = contract.Recorder()
    recorder.timeline.begin(1_699_999_999_500_000_000, 1_500_000_000)
    recorder.start_ns, recorder.end_ns = 1_700_000_000_000_000_000, 1_700_000_001_000_000_000
    recorder.timeline.completed(1_700_000_000_000_012_345, 1)
    recorder.operation(12_345, True, 1)
    recorder.operation(0, False, 1, "BadTimeout")
    recorder.session_ready(2_000_000)
    recorder.verification(None)
    return recorder.result("x", "1", "client", contract.client_config(CONFIGS["good"][3]["config"]))


def test_reference_records_keep_the_schema():
    assert validate_result(_client_record()) == []
    few_writes = _client_record()  # too few writes for session 0 to have sampled one (SPEC §3 W1)
    few_writes.update(workload="write")
    few_writes["verification"].update(read_back=0)
    assert validate_result(few_writes) == []
    config = contract.subscriber_config({})
    figures = {
        "start_ns": 0,
        "end_ns": 10,
        "messages": 1,
        "lost": 0,
        "duplicates": 0,
        "decode_failed": 0,
        "foreign": 0,
        "datagrams": 1,
        "bytes": 9,
        "max_datagram_bytes": 9,
        "fields": 100,
        "checked": 100,
        "verification_failed": 0,
        "verification_examples": [],
        "error_examples": [],
        "negative_delays": 0,
        "cycle_time": Histogram([[1000, 1]]),
        "delay": Histogram(),
        "timestamps": "application",
        "timeline": contract.Timeline(),
    }
    figures["timeline"].begin(0, 10)
    figures["timeline"].completed(5, 100)
    assert validate_result(contract.pubsub_result("x", "1", config, figures)) == []


@pytest.mark.parametrize(
    "break_it,path",
    [
        (lambda r: r.pop("latency_ns"), "$: 'latency_ns' is a required property"),
        (lambda r: r.update(extra=1), "$: Additional properties are not allowed"),
        (lambda r: r["operations"].update(failed=-1), "$.operations.failed"),
        (lambda r: r["verification"].update(examples=["a"] * 6), "$.verification.examples"),
        (lambda r: r.update(latency_ns=[[1000, 0]]), "$.latency_ns[0][1]"),
        (lambda r: r.update(latency_ns=[[1001, 1]]), "$.latency_ns[0]: 1001 is not a bucket value"),
        (lambda r: r.update(latency_ns=[[2000, 1], [1000, 1]]), "$.latency_ns[1]: 1000 follows 2000"),
        (lambda r: r["operations"].update(attempted=5), "$.operations: attempted 5"),
        (lambda r: r.update(end_ns=r["start_ns"] - 1), "$.end_ns"),
        (lambda r: r["config"].update(sessions=0), "$.config.sessions"),
        (lambda r: r.update(workload="subscribe"), "$: 'subscription' is a required property"),
        (lambda r: r.update(role="subscriber"), "$: 'pubsub' is a required property"),
        (lambda r: r.update(throughput={"ops_per_s": "fast", "values_per_s": 1}), "$.throughput.ops_per_s"),
        (lambda r: r.pop("timeline"), "$: 'timeline' is a required property"),
        (lambda r: r["timeline"].pop("ops"), "$.timeline: 'ops' is a required property"),
        (lambda r: r["timeline"]["values"].append(-1), "$.timeline.values[15]"),
        (lambda r: r["timeline"].update(window_ms=5), "$.timeline.window_ms"),
        (lambda r: r["timeline"].update(window_ms=250), "$.timeline.window_ms: 250 is not the config's"),
        (lambda r: r["timeline"]["ops"].pop(), "$.timeline.ops: 14 windows, expected 15"),
        (lambda r: r["timeline"].update(start_ns=r["start_ns"] + 1), "$.timeline.start_ns"),
        (lambda r: r.pop("send_lag_ns"), "$: 'send_lag_ns' is a required property"),
        (lambda r: r.update(send_lag_ns=[[1000, 1]]), "$.send_lag_ns: 1 entries, expected [] (only the open loop"),
        (lambda r: r.update(send_lag_ns=[[2000, 1], [1000, 1]]), "$.send_lag_ns[1]: 1000 follows 2000"),
        (
            lambda r: (r["config"].update(rate=100.0), r.update(send_lag_ns=[[1000, 3]])),
            "$.send_lag_ns: 3 entries, more than the 2 attempted",
        ),
        (lambda r: r["verification"].pop("ticks_advanced"), "$.verification: 'ticks_advanced' is a required"),
        (lambda r: r["verification"].update(ticks_advanced=-1), "$.verification.ticks_advanced"),
        (
            lambda r: (r.update(workload="write"), r["verification"].update(ticks_advanced=3)),
            "$.verification.ticks_advanced: 3 in a write workload",
        ),
        (lambda r: r["verification"].pop("read_back"), "$.verification: 'read_back' is a required"),
        (lambda r: r["verification"].update(read_back=-1), "$.verification.read_back"),
        (lambda r: r["verification"].update(read_back=1), "$.verification.read_back: 1 in a read workload"),
        (
            lambda r: (
                r.update(workload="write"),
                r["config"].update(verify=False),
                r["verification"].update(read_back=1),
            ),
            "$.verification.read_back: 1 in a write workload without verify",
        ),
        (
            lambda r: (r.update(workload="write"), r["verification"].update(read_back=5)),
            "$.verification.read_back: 5, more than the 1 values checked",
        ),
        (
            lambda r: (
                r.update(workload="write"),
                r["operations"].update(attempted=201, succeeded=200),
                r["verification"].update(read_back=0),
            ),
            "$.verification.read_back: 0 after 200 succeeded writes over 1 session(s)",
        ),
    ],
)
def test_faulty_record_is_refused_naming_the_path(break_it, path):
    record = _client_record()
    break_it(record)
    problems = validate_result(record)
    assert any(problem.startswith(path) for problem in problems), problems


@pytest.mark.parametrize(
    "event,ok",
    [
        ({"event": "ready", "endpoint": "opc.tcp://127.0.0.1:4840", "pid": 12}, True),
        ({"event": "ready", "address": "opc.udp://239.255.0.1:4840/", "writers": 1, "pid": 12}, True),
        ({"event": "error", "kind": "config", "message": "config: unknown key 'x'"}, True),
        ({"event": "ready", "endpoint": "tcp://127.0.0.1:4840", "pid": 12}, False),
        ({"event": "error", "kind": "oops", "message": "x"}, False),
        ({"event": "done"}, False),
    ],
)
def test_event_lines(event, ok):
    assert (validation.problems("event", event) == []) is ok


def test_event_schema_checks_result_lines():
    assert validation.problems("event", _client_record()) == []
    assert validation.problems("event", {**_client_record(), "values": -1})


@pytest.mark.parametrize("vector", CONFIGS["unreadable"], ids=lambda v: v["name"])
def test_unreadable_config_vector(vector, tmp_path):
    path = _unreadable_file(vector, tmp_path)
    with pytest.raises(ConfigError) as refused:
        validation.check_config(vector["role"], contract.load_config(str(path)))
    assert vector["says"] in str(refused.value)


VERIFICATION = _vectors("verification")


def test_verification_vectors_agree_with_rules_worked_out_by_hand():
    """A few expectations computed from SPEC §3/§6 by hand, so a bug in the reference cannot
    pass into every adapter through the vectors."""
    r1 = next(c for c in VERIFICATION["read"] if c["name"].startswith("R1: a Signal one update"))
    fails = [s["response"]["fails"] for s in r1["steps"]]
    assert fails[0] == [None, None, None]  # Signal ticks 24 and 26 beside Tick 25: one update either way
    assert fails[1][2] == ["Signal_3: tick 17, but Tick 25 (mod 16384) in the same response"]  # SPEC's example
    r3 = next(c for c in VERIFICATION["read"] if c["name"].startswith("R3: forward steps sum"))
    assert r3["ticks_advanced"] == (14 - 10) + (12 - 10) + (13 - 12)  # the step back to 11 does not lower 12
    stale = next(c for c in VERIFICATION["read_back"] if c["name"].startswith("session 0's write completed"))
    assert stale["fails"] == [
        "read-back of Write_3: session 0's write 4711, but its writes before 4799 had completed "
        "when write 4863 was sent"
    ]
    lifetimes = {
        (c["session_timeout_ms"], c["publishing_interval_ms"]): c["lifetime_count"] for c in VERIFICATION["lifetime"]
    }
    assert lifetimes[3_600_000, 100] == 600_000 // 100  # capped at 600 s
    assert lifetimes[30_000, 7] == 4286  # ceil(30000 / 7)
    edges = next(c for c in VERIFICATION["timeline"] if c["name"].startswith("window edges"))
    assert edges["record"]["ops"] == [2, 1, 1]  # 0 and w-1 ns in window 0; w starts window 1
