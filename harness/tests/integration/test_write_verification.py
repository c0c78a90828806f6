"""W1, writes read back under load (SPEC §3), as the asyncua and python-opcua clients apply it
(uabench_contract.write_verification), on each library's own decoded DataValues: every rule
passes what a healthy server returns and fails what breaks it, with the SPEC's example."""

from __future__ import annotations

import pytest
import uabench_contract as contract
from uabench_contract.write_verification import LowestInFlight, WriteReadBack, sampled

from integration.test_read_verification import aua, oua  # each library's ua module, as those tests load it

NODES = ["Write_0", "Write_1", "Write_2", "Write_3"]
PER_REQUEST = 2
SESSIONS = 3

LIBRARIES = [pytest.param(oua, id="python-opcua"), pytest.param(aua, id="asyncua")]


def _read_back(sessions: int = SESSIONS) -> tuple[contract.Recorder, WriteReadBack]:
    recorder = contract.Recorder()
    return recorder, WriteReadBack(NODES, sessions, PER_REQUEST, recorder)


def _double(ua, value):
    return ua.DataValue(ua.Variant(value, ua.VariantType.Double))


def _written(ua, session: int, request: int, position: int):
    """What write `request` of `session` put on NODES[(request·2 + position) mod 4]."""
    return _double(ua, contract.write_value(session, request, PER_REQUEST, position))


def test_every_64th_request_is_sampled_from_the_first_warm_up_included():
    assert [k for k in range(200) if sampled(k)] == [63, 127, 191]


def test_the_lowest_request_in_flight_moves_past_requests_finished_out_of_order():
    in_flight = LowestInFlight()
    assert in_flight.lowest == 0
    for request in (1, 2, 4):  # answered before request 0
        in_flight.finished(request)
    assert in_flight.lowest == 0
    in_flight.finished(0)
    assert in_flight.lowest == 3
    in_flight.finished(3)
    assert in_flight.lowest == 5


@pytest.mark.parametrize("ua", LIBRARIES)
def test_values_some_write_of_this_run_put_there_pass_and_are_counted(ua):
    recorder, read_back = _read_back()
    # sampled write 63 of session 0 wrote Write_2, Write_3; 61 was still in flight when it was sent
    values = [
        _written(ua, 0, 63, 0),  # its own value
        _written(ua, 0, 61, 1),  # an earlier write still in flight when 63 was sent (C = 61)
    ]
    read_back.response(["Write_2", "Write_3"], values, 61, 63)
    # another session's writes, older or newer, and a later write of session 0
    values = [_written(ua, 2, 5, 0), _written(ua, 0, 71, 1)]
    read_back.response(["Write_2", "Write_3"], values, 61, 63)
    result = recorder.result("x", "1", "client", {"workload": "write"})["verification"]
    assert result == {"checked": 4, "failed": 0, "examples": [], "read_back": 4, "ticks_advanced": 0}


@pytest.mark.parametrize("ua", LIBRARIES)
def test_a_bad_status_fails_with_its_name(ua):
    recorder, read_back = _read_back()
    bad = ua.DataValue()
    bad.StatusCode = ua.StatusCode(ua.StatusCodes.BadNodeIdUnknown)
    read_back.response(["Write_3"], [bad], 0, 63)
    assert recorder.verification_examples == ["read-back of Write_3: BadNodeIdUnknown"]


@pytest.mark.parametrize("ua", LIBRARIES)
@pytest.mark.parametrize(
    ("variant", "shown"),
    [
        (("Double", 17.5), "17.5"),  # not an integer s·1e9 + m
        (("Double", -100001.25), "-100001.25"),  # the post-phase pattern
        (("Double", 3 * 1e9 + 3), "3000000003.0"),  # session 3 of 3 sessions (0..2)
        (("Double", 1e9 + 5), "1000000005.0"),  # m = 5: Write_1's value, not Write_3's
        (("Float", 7.0), "7.0"),  # Write_3's value, but not a Double
        (("Double", [7.0]), "[7.0]"),  # an array
    ],
    ids=["fraction", "pattern", "no-such-session", "other-node", "float", "array"],
)
def test_a_value_no_write_of_this_run_put_on_the_node_fails(ua, variant, shown):
    recorder, read_back = _read_back()
    type_name, value = variant
    data_value = ua.DataValue(ua.Variant(value, getattr(ua.VariantType, type_name)))
    read_back.response(["Write_3"], [data_value], 0, 63)
    assert recorder.verification_examples == [f"read-back of Write_3: {shown}, which no write of this run put there"]
    assert (recorder.checked, recorder.verification_failed, recorder.read_back) == (1, 1, 1)


@pytest.mark.parametrize("ua", LIBRARIES)
def test_a_value_of_a_session_0_write_that_had_completed_before_the_sampled_one_fails(ua):
    recorder, read_back = _read_back()
    # write 4711 put position 1 on NODES[(4711·2 + 1) mod 4] = Write_3; writes before 4799 were done
    read_back.response(["Write_3"], [_written(ua, 0, 4711, 1)], 4799, 4863)
    read_back.response(["Write_3"], [_written(ua, 0, 4799, 1)], 4799, 4863)  # still in flight: fine
    assert recorder.verification_examples == [
        "read-back of Write_3: session 0's write 4711, but its writes before 4799 had completed "
        "when write 4863 was sent"
    ]
    assert (recorder.checked, recorder.verification_failed, recorder.read_back) == (2, 1, 2)


def test_a_read_back_that_failed_or_was_not_answered_fails_each_of_its_values():
    recorder, read_back = _read_back()
    read_back.failed(["Write_2", "Write_3"], "no response within 5 s after the measured phase")
    read_back.response(["Write_2", "Write_3"], [], 0, 63)  # answered with no results
    assert recorder.verification_examples == [
        "read-back of Write_2: no response within 5 s after the measured phase",
        "read-back of Write_3: no response within 5 s after the measured phase",
        "read-back of Write_2: no result",
        "read-back of Write_3: no result",
    ]
    assert (recorder.checked, recorder.verification_failed, recorder.read_back) == (4, 4, 4)


def test_a_record_without_read_backs_reports_0():
    assert contract.Recorder().result("x", "1", "client", {"workload": "read"})["verification"]["read_back"] == 0
