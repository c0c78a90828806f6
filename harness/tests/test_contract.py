import math
import random

import pytest
import uabench_contract as contract
from uabench_contract import ConfigError, Histogram


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


@pytest.mark.parametrize("node,good,bad", [
    ("Real", 1234.5, 1234.25),
    ("Tick", 17, -1),
    ("Page", contract.page(), contract.page()[:-1]),
    ("SDD", contract.sdd(), contract.sdd()[:-1] + b"x"),
    ("Image", contract.image(), b""),
    ("Write_7", 3.5, "3.5"),
])
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


@pytest.mark.parametrize("raw,key", [
    ({"port": 4840, "signalz": 1}, "signalz"),
    ({"port": 0}, "port"),
    ({"port": 4840, "signals": -1}, "signals"),
    ({"port": 4840, "update_interval_ms": 1.5}, "update_interval_ms"),
    ({}, "port"),
    ({"port": 4840, "security": {"endpoints": [{"policy": "Basic256Sha256", "mode": "None"}]}},
     "security.endpoints[0]"),
    ({"port": 4840, "security": {"endpoints": [{"policy": "Basic256Sha256", "mode": "Sign"}]}},
     "security.certificate"),
])
def test_bad_server_config_names_the_key(raw, key):
    with pytest.raises(ConfigError, match=key.replace("[", r"\[").replace("]", r"\]")):
        contract.server_config(raw)


@pytest.mark.parametrize("extra,key", [
    ({"nodes_per_reqest": 2}, "nodes_per_reqest"),
    ({"in_flight": 0}, "in_flight"),
    ({"sessions": True}, "sessions"),
    ({"rate": -1}, "rate"),
    ({"duration_s": 0}, "duration_s"),
    ({"nodes": []}, "nodes"),
    ({"endpoint": "http://x"}, "endpoint"),
    ({"security": {"policy": "Basic256Sha256", "mode": "Sign"}}, "security.certificate"),
    ({"queue_size": 3}, "queue_size"),
])
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
    assert result["verification"] == {"checked": 2, "failed": 1, "examples": ["Real: wrong"]}


# --- PubSub roles (SPEC §8) ----------------------------------------------------------------

@pytest.mark.parametrize("raw,key", [
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
])
def test_bad_publisher_config_names_the_key(raw, key):
    with pytest.raises(ConfigError, match=key):
        contract.publisher_config(raw)


@pytest.mark.parametrize("raw,key", [
    ({"duration_s": 0}, "duration_s"),
    ({"warmup_s": -1}, "warmup_s"),
    ({"verify": 1}, "verify"),
    ({"nodes": ["Signal_0"]}, "nodes"),
])
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
    figures = {"start_ns": 0, "end_ns": 2_000_000_000, "messages": 20, "lost": 1, "duplicates": 0,
               "decode_failed": 2, "foreign": 3, "datagrams": 23, "bytes": 1000, "max_datagram_bytes": 76,
               "fields": 180, "checked": 180, "verification_failed": 0, "verification_examples": [],
               "error_examples": ["x"], "negative_delays": 0, "cycle_time": cycle, "delay": delay,
               "timestamps": "kernel"}
    result = contract.pubsub_result("sdk", "1", config, figures)
    assert result["role"] == "subscriber" and result["workload"] == "pubsub"
    assert result["operations"] == {"attempted": 20, "succeeded": 18, "failed": 2}
    assert result["throughput"] == {"ops_per_s": 9.0, "values_per_s": 90.0}
    assert result["pubsub"]["lost"] == 1 and result["pubsub"]["writers"] == 1 and result["latency_ns"] == []
    assert result["cycle_time_ns"] == [[contract.bucket(100_000_000), 1]]
