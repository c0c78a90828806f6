"""Resilience (issue 18): the recovery figures of one incident read from a client's record
(resilience/recovery.py) and its cell's status (resilience/runner.py), the plan, the report's
recovery table; then real incidents: real adapters, a server SIGKILLed and started again on its
port, a path cut in network namespaces."""

from __future__ import annotations

import dataclasses

import pytest

from uabench import plan as plans
from uabench import sdks
from uabench.document.model import Report
from uabench.engine.cells import Outcome
from uabench.plan import PlanError
from uabench.report.markdown import render as markdown
from uabench.resilience.incident import Staged
from uabench.resilience.recovery import Incident, recovery
from uabench.resilience.report import resilience_section
from uabench.resilience.runner import assess

S = 1_000_000_000


T0 = 1_700_000_000 * S  # the timeline's start


W = 20  # ms


def _record(ops: list[int], events: list[tuple[float, str, str | None]], failed: int = 0) -> dict:
    """A client's record with a 20 ms timeline (`ops` per window) and connection events at
    seconds after T0."""
    return {
        "workload": "subscribe",
        "config": {"sessions": 1},
        "operations": {"attempted": sum(ops) + failed, "succeeded": sum(ops), "failed": failed},
        "verification": {"checked": 0, "failed": 0, "examples": []},
        "timeline": {"window_ms": W, "start_ns": T0, "ops": ops, "values": ops},
        "connection": {
            "lost": sum(state == "lost" for _, state, _ in events),
            "restored": sum(state == "restored" for _, state, _ in events),
            "events": [
                {"t_ns": T0 + int(t * S), "session": 0, "state": state, "subscriptions": subs}
                for t, state, subs in events
            ],
            "truncated": 0,
        },
        "subscription": {"tick_gaps": 12, "duplicates": 1},
    }


def _ops(flowing: list[tuple[float, float]], seconds: float = 10.0) -> list[int]:
    """One operation in each window inside the (start, end) stretches, in seconds after T0."""
    windows = int(seconds * 1000 / W)
    return [int(any(a <= k * W / 1000 < b for a, b in flowing)) for k in range(windows)]


# the strike at 3 s, the restoration at 5 s
INCIDENT = Incident("restart", T0 + 3 * S, T0 + 5 * S, 2.0)


def test_a_client_that_notices_reconnects_and_resumes() -> None:
    record = _record(_ops([(0, 3), (5.5, 10)]), [(3.1, "lost", None), (5.4, "restored", "transferred")], failed=3)
    found = recovery(record, INCIDENT)
    assert found.verdict == "resumed"
    assert found.detected_s == pytest.approx(0.1)
    assert found.reconnected_s == pytest.approx(0.4)
    assert found.resumed_s == pytest.approx(0.5)
    assert found.outage_s == pytest.approx(2.5)
    assert (found.subscriptions, found.tick_gaps, found.duplicates, found.failed) == ("transferred", 12, 1, 3)


def test_a_load_that_comes_back_without_a_loss_recorded_is_resumed_unnoticed() -> None:
    found = recovery(_record(_ops([(0, 3), (6, 10)]), []), INCIDENT)
    assert (found.verdict, found.detected_s, found.resumed_s) == ("resumed unnoticed", None, pytest.approx(1.0))


def test_a_client_that_never_comes_back_did_not_resume() -> None:
    found = recovery(_record(_ops([(0, 3)]), [(3.0, "lost", None)]), INCIDENT)
    assert (found.verdict, found.resumed_s, found.outage_s) == ("did not resume", None, None)
    assert found.detected_s == pytest.approx(0.0)


def test_without_load_before_the_strike_the_incident_is_inconclusive() -> None:
    found = recovery(_record(_ops([(5.5, 10)]), []), INCIDENT)
    assert found.verdict == "inconclusive"
    # and a phase that ended before the restoration cannot tell either
    short = recovery(_record(_ops([(0, 3)], seconds=4), []), INCIDENT)
    assert short.verdict == "inconclusive"


def test_a_loss_before_the_strike_is_not_the_incident_s() -> None:
    events = [(1.0, "lost", None), (1.2, "restored", "transferred"), (3.3, "lost", None)]
    found = recovery(_record(_ops([(0, 3), (6, 10)]), events), INCIDENT)
    assert found.detected_s == pytest.approx(0.3)
    assert found.reconnected_s is None  # no restored event after the incident's loss


SERVER = dataclasses.replace(sdks.get("open62541"), resilience={})


def _staged(record: dict | None, failure: str | None = None, wrong: int = 0) -> Staged:
    if record is not None and wrong:
        record["verification"] = {"checked": 10, "failed": wrong, "examples": ["Tick: tick 3, but tick 40 ..."]}
    outcome = Outcome("fail", "operations failed", result=record)
    return Staged(outcome, INCIDENT, {}, {}, failure)


def test_the_cell_passes_skips_or_fails_by_what_happened() -> None:
    # an SDK that claims its reconnection, and one that declares it has none
    reference = dataclasses.replace(sdks.get("open62541"), not_supported={})
    resumed = _record(_ops([(0, 3), (5.5, 10)]), [(3.1, "lost", None), (5.4, "restored", "transferred")])
    assert assess(_staged(resumed), reference, SERVER)[0].status == "pass"
    gone = _record(_ops([(0, 3)]), [(3.0, "lost", None)])
    outcome, _ = assess(_staged(gone), reference, SERVER)
    assert (outcome.status, outcome.reason) == ("fail", "did not resume: no operation succeeded after the restoration")
    declaring = dataclasses.replace(reference, not_supported={"reconnect": "no automatic reconnection"})
    outcome, _ = assess(_staged(gone), declaring, SERVER)
    assert outcome.status == "not_supported" and "no automatic reconnection" in (outcome.reason or "")
    # reconnected, but the subscriptions a restarted server no longer has are left to the application
    resubscribing = dataclasses.replace(reference, not_supported={"resubscribe": "left to the application"})
    orphaned = _record(_ops([(0, 3)]), [(3.0, "lost", None), (5.5, "restored", "lost")])
    assert assess(_staged(orphaned), resubscribing, SERVER)[0].status == "not_supported"
    assert assess(_staged(orphaned), reference, SERVER)[0].status == "fail"
    assert assess(_staged(gone), resubscribing, SERVER)[0].status == "fail"  # never reconnected: not what it declares
    outcome, _ = assess(_staged(resumed, failure="address already in use"), reference, SERVER)
    assert outcome.status == "fail" and "could not be started again" in (outcome.reason or "")
    outcome, _ = assess(_staged(_record(_ops([(0, 3), (5.5, 10)]), []), wrong=2), reference, SERVER)
    assert outcome.status == "fail" and "2 values wrong" in (outcome.reason or "")
    assert assess(_staged(None), reference, SERVER)[0].status == "fail"


def test_a_failure_the_server_declares_stays_a_failure_marked_known() -> None:
    """A server's sdk.toml [resilience] entry marks the failure with its behaviour, for the clients
    it names and a reason it matches only: a client it does not name, or another failure, is not
    marked; nothing turns into a pass."""
    client = dataclasses.replace(sdks.get("node-opcua"), not_supported={})
    gone = _record(_ops([(0, 3)]), [(3.0, "lost", None)])
    known = sdks.KnownFailure(("node-opcua",), "did not resume", "its Republish answers Good")
    server = dataclasses.replace(sdks.get("asyncua"), resilience={"restart/subscribe": known})
    subscribe = {"workload": "subscribe"}
    staged = dataclasses.replace(_staged(gone), client_config=subscribe)
    outcome, _ = assess(staged, client, server)
    assert outcome.status == "fail" and outcome.result and outcome.result["known"] == "its Republish answers Good"
    other_client = dataclasses.replace(client, id="milo")
    assert "known" not in (assess(staged, other_client, server)[0].result or {})
    read = dataclasses.replace(staged, client_config={"workload": "read"})
    assert "known" not in (assess(read, client, server)[0].result or {})
    wrong = dataclasses.replace(
        _staged(_record(_ops([(0, 3), (5.5, 10)]), [])), client_config={"workload": "subscribe"}
    )
    wrong = dataclasses.replace(wrong, outcome=_staged(_record(_ops([(0, 3), (5.5, 10)]), []), wrong=2).outcome)
    outcome, _ = assess(wrong, client, server)
    assert outcome.status == "fail" and "known" not in (outcome.result or {})
    cell = {
        "kind": "resilience",
        "variant": "restart/subscribe",
        "client": "node-opcua",
        "server": "asyncua",
        "status": "fail",
        "reason": assess(staged, client, server)[0].reason,
        "result": assess(staged, client, server)[0].result,
    }
    text = markdown(Report("r", [resilience_section([cell])]))
    assert "known, on asyncua's behaviour" in text and "asyncua (server): known: its Republish answers Good" in text


def test_a_failure_the_client_declares_stays_a_failure_marked_known() -> None:
    """A client's sdk.toml [client_resilience] entry marks the failure with its own behaviour,
    against the servers it names and a reason it matches only; the report says whose."""
    gone = _record(_ops([(0, 3)]), [(3.0, "lost", None)])
    staged = dataclasses.replace(_staged(gone), client_config={"workload": "subscribe"})
    known = sdks.KnownFailure((), "did not resume", "its publish loop races the reconnection", servers=("open62541",))
    client = dataclasses.replace(sdks.get("asyncua"), not_supported={}, client_resilience={"restart/subscribe": known})
    outcome, _ = assess(staged, client, SERVER)
    assert outcome.status == "fail" and outcome.result
    assert (outcome.result["known"], outcome.result["known_on"]) == (known.why, "asyncua (client)")
    other_server = dataclasses.replace(SERVER, id="milo")
    assert "known" not in (assess(staged, client, other_server)[0].result or {})
    read = dataclasses.replace(staged, client_config={"workload": "read"})
    assert "known" not in (assess(read, client, SERVER)[0].result or {})
    # the same entry in the server's table names clients, not servers: not this failure
    as_server = dataclasses.replace(SERVER, resilience={"restart/subscribe": known})
    plain = dataclasses.replace(client, client_resilience={})
    assert "known" not in (assess(staged, plain, as_server)[0].result or {})
    cell = {
        "kind": "resilience",
        "variant": "restart/subscribe",
        "client": "asyncua",
        "server": "open62541",
        "status": "fail",
        "reason": outcome.reason,
        "result": outcome.result,
    }
    text = markdown(Report("r", [resilience_section([cell])]))
    assert "known, on asyncua's behaviour" in text and "asyncua (client): known: its publish loop" in text


def test_the_plan_makes_its_pairs_and_refuses_a_bad_key(tmp_path) -> None:
    plan = plans.load("resilience")
    smoke = plans.test_cases(plan, ["open62541", "milo"], "smoke")
    assert [c.args for c in smoke] == [
        ("milo", "open62541", "restart", "subscribe"),
        ("open62541", "open62541", "restart", "subscribe"),
        ("milo", "open62541", "cut", "subscribe"),
        ("open62541", "open62541", "cut", "subscribe"),
    ]
    quick = plans.test_cases(plan, ["open62541", "milo", "node-opcua"], "quick")
    # "cross": the plan's reference client (one that reconnects for ever) → every other server
    assert ("node-opcua", "milo", "cut", "read") in [c.args for c in quick]
    assert ("open62541", "milo", "cut", "read") not in [c.args for c in quick]
    unknown = tmp_path / "unknown.toml"
    unknown.write_text((plans.PLANS / "resilience.toml").read_text().replace('"node-opcua"', '"node-opc"', 1))
    with pytest.raises(PlanError, match="resilience.reference_client: unknown SDK 'node-opc'"):
        plans.load(unknown)
    bad = tmp_path / "bad.toml"
    text = (plans.PLANS / "resilience.toml").read_text().replace("down_s = 1\n", "down_s = 1\noutage_s = 1\n", 1)
    bad.write_text(text)
    with pytest.raises(PlanError, match="outage_s"):
        plans.load(bad)


def test_the_report_has_the_recovery_table() -> None:
    resumed = _record(_ops([(0, 3), (5.5, 10)]), [(3.1, "lost", None), (5.4, "restored", "recreated")])
    cells = [
        {
            "kind": "resilience",
            "variant": "restart/subscribe",
            "client": "milo",
            "server": "open62541",
            "status": "pass",
            "reason": None,
            "result": {
                **resumed,
                "incident": dataclasses.asdict(INCIDENT),
                "recovery": recovery(resumed, INCIDENT).summary(),
            },
        }
    ]
    section = resilience_section(cells)
    assert section is not None
    text = markdown(Report("r", [section]))
    assert "milo → open62541" in text and "recreated" in text and "0.40" in text
