"""Read verification R1–R5 (SPEC §3) as the asyncua and python-opcua clients apply it
(uabench_contract.read_verification), on each library's own decoded DataValues."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import uabench_contract as contract
from uabench_contract.read_verification import ReadVerifier, value_error

from uabench import paths, sdks
from uabench.engine.servers import free_port


def _sdk_module(sdk: str, module: str):
    """`module` from `sdk`'s own venv (implementations/<sdk>/install): these tests judge each
    library's own decoded types, and no SDK is in the harness's venv. That venv's site-packages
    go last on sys.path, so the harness's own packages win where both have one; its interpreter
    is this same python3 (ci/python-env), so its compiled modules load here too."""
    site = paths.IMPLEMENTATIONS / sdk / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    site = site / "site-packages"
    if not site.is_dir():
        pytest.skip(f"no {site}: run implementations/{sdk}/install", allow_module_level=True)
    if str(site) not in sys.path:
        sys.path.append(str(site))
    return importlib.import_module(module)


aua = _sdk_module("asyncua", "asyncua.ua")
oua = _sdk_module("python-opcua", "opcua.ua")

NOW = datetime(2026, 11, 23, 8, 0, 0)  # naive UTC, as python-opcua decodes DateTime
NOW_S = (NOW - datetime(1970, 1, 1)).total_seconds()
NODES = ["Tick", "Signal_0", "Signal_3", "Real"]


class Record:
    """Collects what the verifier records, as contract.Recorder.verification does."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.checked = 0

    def verification(self, failure: str | None) -> None:
        self.checked += 1
        if failure is not None:
            self.failures.append(failure)


def _verifier(sessions: int = 1) -> tuple[Record, ReadVerifier]:
    record = Record()
    return record, ReadVerifier(NODES, sessions, record)


def _value(ua, name: str, tick: int, stamp, variant_type=None):
    if name == "Tick":
        variant = ua.Variant(tick, variant_type or ua.VariantType.UInt32)
    elif name == "Real":
        variant = ua.Variant(contract.REAL_VALUE, ua.VariantType.Float)
    else:
        index = int(name.split("_")[1])
        variant = ua.Variant(contract.signal(index, tick), variant_type or ua.VariantType.Float)
    data_value = ua.DataValue(variant)
    data_value.SourceTimestamp = stamp
    return data_value


def _libraries():
    """(library, timestamp at second s): python-opcua decodes naive, asyncua aware UTC."""
    return [
        pytest.param(oua, lambda s: NOW + timedelta(seconds=s), id="python-opcua"),
        pytest.param(
            aua,
            lambda s: (NOW + timedelta(seconds=s)).replace(tzinfo=UTC),
            id="asyncua",
        ),
    ]


def _respond(verifier, ua, stamp, ticks, session=0, measured=True, at=0.0, sent=None, **types):
    """One response reading NODES; `ticks` maps node to tick (Tick's value, Signal's t). Its
    request was sent with high-water tick `sent`; None: just now, after every earlier one."""
    names = [n for n in NODES if n in ticks or n == "Real"]
    values = [_value(ua, n, ticks.get(n, 0), stamp(at), types.get(n)) for n in names]
    if sent is None:
        sent = verifier.high_water(session)
    verifier.response(session, names, values, NOW_S + at, measured, sent_high=sent)


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_consistent_advancing_values_pass_and_count_the_measured_steps(ua, stamp):
    record, verifier = _verifier(2)
    for t in range(5, 8):  # warm-up: judged, not recorded, steps not counted
        _respond(verifier, ua, stamp, {"Tick": t, "Signal_0": t}, measured=False)
    for t in range(8, 20):
        # a Signal read one update behind the Tick of the same response is fine (R1)
        _respond(verifier, ua, stamp, {"Tick": t, "Signal_0": t - 1, "Signal_3": t})
        _respond(verifier, ua, stamp, {"Tick": t}, session=1)
    assert record.failures == []
    assert record.checked == 12 * 4 + 12 * 2
    # R3: per node summed over sessions (Tick: 19-7 in session 0, 19-8 in session 1)
    assert verifier.ticks_advanced == 12 + 11


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_frozen_values_do_not_advance(ua, stamp):
    record, verifier = _verifier()
    for _ in range(20):
        _respond(verifier, ua, stamp, {"Tick": 4, "Signal_0": 4})
    assert record.failures == [] and verifier.ticks_advanced == 0


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_r1_a_signal_off_the_tick_of_its_response_fails(ua, stamp):
    record, verifier = _verifier()
    _respond(verifier, ua, stamp, {"Tick": 25, "Signal_3": 17})
    _respond(verifier, ua, stamp, {"Tick": 25, "Signal_0": 27})
    assert record.failures == [
        "Signal_3: tick 17, but Tick 25 (mod 16384) in the same response",
        "Signal_0: tick 27, but Tick 25 (mod 16384) in the same response",
    ]


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_r1_compares_ticks_modulo_16384(ua, stamp):
    record, verifier = _verifier()
    _respond(verifier, ua, stamp, {"Tick": 16384 * 3, "Signal_0": 16383})
    # one update ahead too: the server read Tick, then updated, then the Signal
    _respond(verifier, ua, stamp, {"Tick": 16384 * 3 + 16383, "Signal_0": 0})
    assert record.failures == []


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_r2_a_healthy_server_answering_concurrent_requests_out_of_order_passes(ua, stamp):
    """Milo at in_flight 1000: the request sent first may be answered last, with older
    values than those that arrived meanwhile; nothing had arrived before it was sent."""
    record, verifier = _verifier()
    _respond(verifier, ua, stamp, {"Tick": 230, "Signal_0": 230})
    sent_early = verifier.high_water(0)
    _respond(verifier, ua, stamp, {"Tick": 231, "Signal_0": 231}, at=0.2)
    _respond(verifier, ua, stamp, {"Tick": 231, "Signal_0": 231}, at=0.2, sent=sent_early)
    _respond(verifier, ua, stamp, {"Signal_0": 229}, sent=228)
    assert record.failures == []
    assert verifier.high_water(0) == 231  # an older answer does not lower it


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_r2_older_than_what_arrived_before_the_send_fails_each_time(ua, stamp):
    record, verifier = _verifier()
    for t in (40, 39, 37, 38, 41):  # sent one after another: 40 arrived before 39, 37, 38
        _respond(verifier, ua, stamp, {"Signal_3": t})
    _respond(verifier, ua, stamp, {"Signal_3": 16380}, sent=40)  # 44 behind, across 0
    assert record.failures == [
        "Signal_3: tick 37, but tick 40 had arrived before this request was sent",
        "Signal_3: tick 38, but tick 40 had arrived before this request was sent",
        "Signal_3: tick 16380, but tick 40 had arrived before this request was sent",
    ]
    assert verifier.ticks_advanced == 1  # R3: 40 to 41; a tick behind does not count


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_r2_the_high_water_tick_is_the_sessions_over_tick_and_signals_mod_16384(ua, stamp):
    record, verifier = _verifier(2)
    _respond(verifier, ua, stamp, {"Tick": 16384 * 2 + 41})
    assert verifier.high_water(0) == 41 and verifier.high_water(1) == -1
    _respond(verifier, ua, stamp, {"Signal_0": 40})  # one behind: an update is not atomic
    _respond(verifier, ua, stamp, {"Signal_3": 39})
    _respond(verifier, ua, stamp, {"Tick": 16384 * 2 + 39})
    _respond(verifier, ua, stamp, {"Signal_3": 3}, session=1)  # another session's own
    assert record.failures == [
        "Signal_3: tick 39, but tick 41 had arrived before this request was sent",
        "Tick: tick 39, but tick 41 had arrived before this request was sent",
    ]


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_r2_a_wrap_is_a_forward_step(ua, stamp):
    record, verifier = _verifier()
    for t in (16382, 16383, 0, 1):
        _respond(verifier, ua, stamp, {"Signal_0": t})
    assert verifier.high_water(0) == 1
    _respond(verifier, ua, stamp, {"Signal_0": 16383})
    assert record.failures == ["Signal_0: tick 16383, but tick 1 had arrived before this request was sent"]
    assert verifier.ticks_advanced == 3  # R3 across the wrap


@pytest.mark.parametrize("ua, stamp", _libraries())
def test_r4_source_timestamps_present_not_in_the_future_and_in_tick_order(ua, stamp):
    record, verifier = _verifier()
    _respond(verifier, ua, lambda s: None, {"Tick": 1})
    _respond(verifier, ua, lambda s: datetime(1601, 1, 1), {"Tick": 1})  # null
    _respond(verifier, ua, lambda s: stamp(s + 0.9), {"Tick": 1})  # within 1 s
    _respond(verifier, ua, lambda s: stamp(s + 2.3), {"Tick": 2}, at=1.0)
    _respond(verifier, ua, stamp, {"Tick": 3}, at=1.5)
    assert record.failures == [
        "Tick: no SourceTimestamp",
        "Tick: no SourceTimestamp",
        "Tick: SourceTimestamp 2.3 s in the future",
        "Tick: tick 3 has an earlier SourceTimestamp than tick 2",
    ]


@pytest.mark.parametrize("ua", [pytest.param(oua, id="python-opcua"), pytest.param(aua, id="asyncua")])
@pytest.mark.parametrize(
    "name, variant, failure",
    [
        ("Tick", ("Int32", 7), "Tick: got Int32, expected UInt32"),
        (
            "Signal_1",
            ("Double", contract.signal(1, 2)),
            "Signal_1: got Double, expected Float",
        ),
        (
            "Page",
            ("Int32", contract.page()),
            "Page: got Int32, expected Int16",
        ),
        (
            "Real",
            ("Float", [contract.REAL_VALUE]),
            "Real: got Float array, expected Float scalar",
        ),
        ("Tick", ("UInt32", 7), None),
        ("Page", ("Int16", contract.page()), None),
    ],
)
def test_r5_wire_types_are_checked_not_just_the_decoded_number(ua, name, variant, failure):
    type_name, value = variant
    found = value_error(name, ua.Variant(value, getattr(ua.VariantType, type_name)))
    if failure is None:
        assert found is None
    else:
        assert found is not None and failure in found


# --- the Python adapters end to end ------------------------------------------------------


def _adapter(sdk: str, role: str, config: dict, workdir: Path) -> list[str]:
    path = workdir / f"{sdk}-{role}.json"
    path.write_text(json.dumps(config))
    return [str(sdks.get(sdk).run), role, "--config", str(path)]


@pytest.mark.parametrize("client", ["asyncua", "python-opcua"])
def test_python_opcua_server_values_carry_a_source_timestamp_with_the_update_loop_off(client, tmp_path):
    """Nodes added through python-opcua's AddNodes have no SourceTimestamp; its server gives
    Tick and Signal_i one at start, so R4 holds at tick 0 (before, every read failed it)."""
    port = free_port()
    config = {"port": port, "update_interval_ms": 0, "signals": 2}
    server = subprocess.Popen(
        _adapter("python-opcua", "server", config, tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert '"ready"' in server.stdout.readline()
        read = {
            "endpoint": f"opc.tcp://127.0.0.1:{port}",
            "workload": "read",
            "nodes": ["Tick", "Signal_0", "Signal_1"],
            "nodes_per_request": 3,
            "warmup_s": 0.1,
            "duration_s": 0.3,
        }
        done = subprocess.run(
            _adapter(client, "client", read, tmp_path),
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    verification = json.loads(done.stdout.splitlines()[-1])["verification"]
    assert verification["checked"] > 0 and verification["failed"] == 0, verification
    assert verification["ticks_advanced"] == 0  # the loop is off: tick 0 throughout
