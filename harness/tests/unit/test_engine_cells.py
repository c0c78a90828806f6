"""The one judge, the one result check, the load-generator rule and the combination of
several processes' results (engine/cells.py); the cleanup installed by a session, not by an
import. Cells run against real adapters in test_bench.py and test_pubsub.py."""

import pytest

from uabench.engine import adapters, cells


def record(attempted=10, failed=0, checked=10, wrong=0, verify=True, **extra) -> dict:
    return {
        "operations": {"attempted": attempted, "succeeded": attempted - failed, "failed": failed},
        "verification": {"checked": checked, "failed": wrong, "examples": ["Signal_1: 2 != 3"] if wrong else []},
        "errors": {"examples": ["BadTimeout"] if failed else []},
        "config": {"verify": verify},
        **extra,
    }


@pytest.mark.parametrize("role", ["client", "subscriber"])
def test_a_good_result_passes_for_either_role(role):
    assert cells.judge(record(), role) is None
    assert cells.judge(record(checked=0, verify=False), role) is None  # not asked to verify


@pytest.mark.parametrize(
    "role,result,reason",
    [
        ("client", None, "no result"),
        ("client", record(attempted=0), "no operation was attempted"),
        (
            "subscriber",
            record(attempted=0, pubsub={"datagrams": 3, "foreign": 3}),
            "no NetworkMessage arrived in the measured phase (3 datagrams, 3 from other publishers)",
        ),
        ("client", record(failed=2), "2 of 10 operations failed: BadTimeout"),
        ("subscriber", record(failed=2), "2 of 10 NetworkMessages did not decode: BadTimeout"),
        ("client", record(wrong=1), "1 of 10 values wrong: Signal_1: 2 != 3"),
        ("subscriber", record(wrong=1), "1 of 10 values wrong"),
        ("client", record(checked=0), "nothing was verified"),
    ],
)
def test_the_judge_says_why_a_result_fails(role, result, reason):
    assert reason in cells.judge(result, role)


def test_a_result_record_that_breaks_the_contract_fails_the_cell_before_it_is_judged():
    reason = cells.check_result({"event": "result", **record()}, "client")
    assert reason.startswith("the result record breaks the contract: ")


def test_wrong_values_and_undecodable_messages_are_never_a_limit():
    assert cells.wrong_values(cells.Outcome("fail", result=record(wrong=1)))
    assert cells.wrong_values(cells.Outcome("fail", result=record(failed=1, pubsub={})))
    assert not cells.wrong_values(cells.Outcome("fail", result=record(failed=1)))  # e.g. timeouts at the limit
    assert not cells.wrong_values(cells.Outcome("fail", "no result"))


def test_load_generator_bound_clients_by_their_allowance_subscribers_by_one_core():
    one, busy = {"cpu_percent": 60.0, "seconds": 1.0}, {"cpu_percent": 95.0, "seconds": 1.0}
    assert not cells.load_generator_bound("client", [one], {0, 1})
    assert cells.load_generator_bound("client", [one, one, one], {0, 1})  # 180 % of 200 %
    assert not cells.load_generator_bound("client", [busy], {0, 1})  # 95 % of 200 %
    assert cells.load_generator_bound("subscriber", [one, busy], {0, 1})  # one subscriber at a full core
    assert not cells.load_generator_bound("subscriber", [one, one], {0, 1})


def test_a_client_whose_hot_thread_used_a_whole_core_is_bound_on_a_host_with_more_cores():
    # one event-loop thread at 97 % of a core: the process total is 98 % of 800 %, far below the
    # allowance, yet the client can send no faster
    hot = {"cpu_percent": 98.0, "seconds": 1.0, "hot_thread_cpu": 97.0}
    spread = {"cpu_percent": 98.0, "seconds": 1.0, "hot_thread_cpu": 40.0}
    assert cells.load_generator_bound("client", [hot], set(range(8)))
    assert not cells.load_generator_bound("client", [spread], set(range(8)))


def test_subscribers_combine_over_their_common_window_and_keep_each_summary():
    def subscriber(start, end, lost):
        return {
            **record(),
            "start_ns": start,
            "end_ns": end,
            "values": 5,
            "throughput": {"ops_per_s": 10, "values_per_s": 100},
            "pubsub": {
                "lost": lost,
                "datagrams": 10,
                "max_datagram_bytes": 900 + lost,
                "writers": 2,
                "timestamps": "kernel",
            },
        }

    combined = cells.combine_results([subscriber(0, 10, 1), subscriber(2, 12, 2)], overlap=True)
    assert (combined["start_ns"], combined["end_ns"], combined["processes"]) == (2, 10, 2)
    assert combined["pubsub"] == {
        "lost": 3,
        "datagrams": 20,
        "max_datagram_bytes": 902,
        "writers": 2,
        "timestamps": "kernel",
    }
    assert [s["lost"] for s in combined["subscribers"]] == [1, 2]
    clients = cells.combine_results(
        [record(start_ns=0, end_ns=10, values=1, throughput={"ops_per_s": 1, "values_per_s": 1})] * 2
    )
    assert (clients["start_ns"], clients["end_ns"], clients["operations"]["attempted"]) == (0, 10, 20)
    assert "subscribers" not in clients


def test_a_suite_without_an_adapter_for_a_role_has_a_problem():
    assert adapters.problems([], ("publisher", "subscriber"), print) == [
        "need at least one publisher adapter, have []",
        "need at least one subscriber adapter, have []",
    ]


def test_a_process_beside_an_emulated_server_is_given_longer_to_its_result():
    from types import SimpleNamespace

    from uabench import targets
    from uabench.engine.cells import time_allowed
    from uabench.engine.constants import CLIENT_GRACE_S, EMULATED_GRACE_S, EMULATED_SESSION_S, SUBSCRIBER_GRACE_S

    client = {"warmup_s": 1.0, "duration_s": 2.5}
    subscriber = {**client, "signals": 10_000}
    assert time_allowed("client", client) == 3.5 + CLIENT_GRACE_S
    assert time_allowed("subscriber", subscriber) == 3.5 + SUBSCRIBER_GRACE_S + 2
    targets.use(targets.Placement(server=SimpleNamespace(kind="ssh", emulated=True)))
    try:
        assert time_allowed("client", client) == 3.5 + EMULATED_GRACE_S + EMULATED_SESSION_S  # one session
        assert time_allowed("client", {**client, "sessions": 100}) == 3.5 + EMULATED_GRACE_S + 100 * EMULATED_SESSION_S
        assert time_allowed("subscriber", subscriber) == 3.5 + EMULATED_GRACE_S + 2
    finally:
        targets.use(None)
    assert time_allowed("client", client) == 3.5 + CLIENT_GRACE_S
    assert time_allowed("client", {**client, "sessions": 100}) == 3.5 + CLIENT_GRACE_S


def test_an_emulated_servers_clients_are_given_a_long_request_timeout_and_native_ones_their_own():
    from types import SimpleNamespace

    from uabench import targets
    from uabench.engine.constants import EMULATED_REQUEST_TIMEOUT_MS
    from uabench.engine.session import Session

    session = Session.__new__(Session)  # client_config_for reads the placement and no state of the run
    workload = {"workload": "read", "nodes": ["Real"]}
    assert "request_timeout_ms" not in session.client_config_for("opc.tcp://h:1", workload)
    targets.use(targets.Placement(server=SimpleNamespace(kind="ssh", emulated=True)))
    try:
        config = session.client_config_for("opc.tcp://h:1", workload)
    finally:
        targets.use(None)
    assert config["request_timeout_ms"] == EMULATED_REQUEST_TIMEOUT_MS
    assert "request_timeout_ms" not in workload  # the plan's workload is not changed
