"""The conformance checks against a purpose-built faulty server (fixtures/faulty_opcua_server.py,
an asyncua server whose service handlers deviate from OPC 10000-4 on purpose): every check must
come out a deviation, and for the deviation the server was built to show, not another one.

The probe runs once per group of checks (checks.GROUPS), as the runner runs it, with the capacity
gates' caps at the profile minimums (below them a gate's verdict is inconclusive). Each test then
asserts two things of one check: the probe saw the fault the server plants (FAULTS: so a server
that merely broke, whose refusals the judge also calls deviations, does not pass), and
checks.judge calls it a deviation."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from helpers import FIXTURES, start_fixture_server, stop_fixture_server

from uabench.conformance import checks
from uabench.engine import security_probe
from uabench.engine.servers import free_port

SERVER = FIXTURES / "faulty_opcua_server.py"
PROBE_S = 120.0  # one group's probe run (the slowest, the subscriptions', takes about 5 s)
SETTINGS = {
    "session_wait_s": 15,
    # the Part 7 minimums (checks._gate): a lower cap makes the gate inconclusive, not a deviation
    "gates": {"sessions": 50, "subscriptions": 5, "monitored_items": 500},
}
PAGE = [(k * 37) % 65536 - 32768 for k in range(512)]

pytestmark = pytest.mark.skipif(
    not security_probe.PYTHON.exists(), reason="the tools are not installed (tools/.venv missing: make setup)"
)

# What the faulty server answers, check by check (its docstring says why): a dict is a subset of
# the observation (nested dicts too), a callable a predicate on it. The numbers are the server's
# constants (MAX_NODES_PER_*, MAX_SUBSCRIPTIONS_PER_SESSION, ...): it runs in the tools' venv (tools/.venv), so
# they cannot be imported here.
Fault = dict | Callable[[dict], bool]
FAULTS: dict[str, Fault] = {
    "read_unknown_node": {"service": "Good", "statuses": ["Good"]},
    "read_invalid_attribute": {"service": "Good", "statuses": ["Good"]},
    "read_nothing_to_do": {"service": "Good", "statuses": []},
    "read_negative_max_age": {"service": "Good", "statuses": ["Good"]},
    "read_invalid_timestamps": {"service": "Good", "statuses": ["Good"]},
    "read_index_range": {"statuses": ["Good"], "value": {"type": "Int16", "value": PAGE[2:5]}},  # one short
    "read_index_range_invalid": {"service": "Good", "statuses": ["Good"]},
    "read_index_range_no_data": {"service": "Good", "statuses": ["Good"]},
    "read_variable_attributes": {
        "variables": {
            "Signal_0": {"DataType": {"value": "i=11"}, "Value": {"type": "Float"}},
            "Array_10": {"ArrayDimensions": {"value": [100]}, "Value": {"length": 10}},
        }
    },
    "write_type_mismatch": {"statuses": ["Good"], "after": {"type": "Int32", "value": 7}},
    "write_read_only": {"service": "Good", "statuses": ["Good"]},
    "write_unknown_node": {"service": "Good", "statuses": ["Good"]},
    "write_read_back": {"statuses": ["Good"], "after": {"type": "Double", "value": 1234.06}},
    "browse_object": lambda o: "Image" not in o["names"] and len(o["names"]) == len(o["expected"]) - 1,
    "browse_next": lambda o: len(o["pages"]) == 1 and len(o["pages"][0]) > o["limit"] and o["ended"],
    "translate_path": {"status": "Good", "targets": ["s=uabench"]},
    "translate_no_match": {"status": "Good", "targets": ["s=uabench"]},
    "subscription_revised": {"service": "Good", "keep_alive": 10, "lifetime": 10},
    "monitored_item_unknown_node": {"service": "Good", "statuses": ["Good"]},
    # reported 5 × 100 ms; sent every 15 × 100 ms
    "keep_alive": lambda o: o["keep_alive"] == 5 and len(o["gaps_ms"]) >= 2 and min(o["gaps_ms"]) > 1000,
    "republish_unknown": {"service": "Good"},
    "set_publishing_mode": {"service": "Good", "statuses": ["Good", "Good"]},
    "modify_subscription": {"known": {"service": "Good"}, "unknown": {"service": "Good"}},
    "delete_subscriptions": {"first": {"statuses": ["Good"]}, "again": {"service": "Good", "statuses": ["Good"]}},
    "session_timeout": {"revised_ms": 2000.0, "service": "Good", "statuses": ["Good"]},
    "session_nonces": {"create": 32, "activate": None},
    "closed_session": {"close": "Good", "service": "Good", "statuses": ["Good"]},
    "channel_renewal": lambda o: o["renew"] == "Good" and o["renewed_token"] == o["token"],
    "get_endpoints": lambda o: {(e["policy"], e["mode"]) for e in o["endpoints"]}
    == {("None", "None"), ("Basic256Sha256", "SignAndEncrypt")},
    "max_nodes_per_read": {
        "declared": 10,
        "at_limit": {"service": "Good"},
        "above_limit": {"service": "Good", "count": 11},
    },
    "max_nodes_per_write": {"declared": 10, "at_limit": {"service": "BadTooManyOperations"}},
    "max_nodes_per_browse": {
        "declared": 5,
        "at_limit": {"service": "Good"},
        "above_limit": {"service": "Good", "count": 5},
    },
    "gate_sessions": lambda o: o["refused"] == "BadTooManySessions" and 0 < o["reached"] < 50,
    "gate_subscriptions": {"reached": 3, "refused": "BadTooManySubscriptions"},
    "gate_monitored_items": {"reached": 150, "refused": "BadTooManyMonitoredItems"},
}


def _has(observed: Any, expected: Any) -> bool:
    """`expected` is a subset of `observed`: every key of a dict, recursively; other values equal."""
    if isinstance(expected, dict):
        return isinstance(observed, dict) and all(k in observed and _has(observed[k], v) for k, v in expected.items())
    return observed == expected


def _shows(observed: dict, fault: Fault) -> bool:
    try:
        return fault(observed) if callable(fault) else _has(observed, fault)
    except (KeyError, TypeError, ValueError):
        return False


@pytest.fixture(scope="module")
def faulty_server(tmp_path_factory) -> Iterator[str]:
    """The faulty server on a free port, in a process group of its own; stopped with SIGTERM
    (it must exit 0) and nothing of it left behind."""
    log = tmp_path_factory.mktemp("faulty-server") / "stderr.log"
    command = [str(security_probe.PYTHON), str(SERVER), str(free_port())]
    process, endpoint = start_fixture_server(command, log, "the faulty server")
    try:
        yield endpoint
    finally:
        code = stop_fixture_server(process, "the faulty server", 10)
        assert code == 0, f"the faulty server's exit on SIGTERM: {code}; {log.read_text()[-2000:]}"


@pytest.fixture(scope="module")
def observations(faulty_server: str) -> dict[str, dict]:
    """Every check's probe line ({"check", "observed"} or {"check", "error"}), by check id."""
    found: dict[str, dict] = {}
    for group in checks.GROUPS:
        ids = [check.id for check in checks.of_group(group)]
        arguments = {**SETTINGS, "endpoint": faulty_server, "checks": ids}
        started = time.monotonic()
        done = subprocess.run(
            [str(security_probe.PYTHON), "-m", "uabench_tools.probe", json.dumps(arguments)],
            capture_output=True,
            text=True,
            timeout=PROBE_S,
        )
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        found.update({line["check"]: line for line in lines})
        missing = [i for i in ids if i not in found]
        assert not missing, f"{group}: no line for {missing} (probe exit {done.returncode}): {done.stderr[-2000:]}"
        print(f"{group}: {time.monotonic() - started:.1f} s")
    return found


def test_every_check_has_a_fault():
    """The server deviates in every check there is (a new check needs a fault here and there)."""
    assert sorted(FAULTS) == sorted(checks.CHECKS)


@pytest.mark.parametrize("check_id", list(FAULTS))
def test_check_finds_the_fault(observations: dict[str, dict], check_id: str):
    line = observations[check_id]
    assert "error" not in line, f"the probe failed on {check_id}: {line['error']}"
    observed = line["observed"]
    assert _shows(observed, FAULTS[check_id]), f"{check_id}: not the planted fault: {json.dumps(observed)[:1500]}"
    verdict = checks.judge(check_id, observed, {})
    assert verdict.outcome == "deviation", f"{check_id}: {verdict} on {json.dumps(observed)[:1500]}"
