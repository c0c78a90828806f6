"""The verdicts the suites' keywords hand to Robot, as plain functions (engine/finding.py): each
rule shown holding and shown failing on the input that breaks it."""

import dataclasses

import pytest
from robot.api import SkipExecution

from uabench import sdks
from uabench.conformance import checks, verdicts
from uabench.conformance.runner import Found
from uabench.engine import security_probe
from uabench.engine.cells import Outcome
from uabench.engine.finding import Finding
from uabench.engine.keywords import conclude
from uabench.resilience.runner import recovery_finding
from uabench.robustness.growth import Growth
from uabench.robustness.survival import Verdict, survival_finding
from uabench.robustness.trials import Soaked, soak_finding
from uabench.sdks import Deviation, KnownDeviation

CHECK = next(iter(checks.CHECKS.values()))


def _server(**fields) -> sdks.Sdk:
    """open62541 declaring nothing but `fields`."""
    declared = {"conformance": {}, "robustness": {}, "deviations": {}, "resilience": {}}
    return dataclasses.replace(sdks.get("open62541"), **{**declared, **fields})


def _found(outcome: str, got: str = "BadSomething") -> Found:
    return Found(CHECK, {"observed": 1}, checks.Verdict(outcome, got))


# --- conclude: a finding as Robot's verdict ----------------------------------------------------


def test_conclude_passes_skips_and_fails_as_the_finding_says():
    conclude(Finding(notes=["a note"], warnings=["a warning"]))
    with pytest.raises(SkipExecution, match="not supported: x"):
        conclude(Finding.skipped("not supported: x"))
    with pytest.raises(AssertionError, match="broken"):
        conclude(Finding.failed("broken"))


# --- conformance --------------------------------------------------------------------------


def test_conformance_passes_and_maps_outcomes_to_cell_statuses():
    judged = verdicts.judge(
        [_found("pass", "Good"), _found("not_supported"), _found("inconclusive")], "g", _server(), alive=True
    )
    assert judged.finding.status == "pass"
    assert [outcome.status for _, outcome in judged.cells] == ["pass", "not_supported", "not_run"]
    assert judged.cells[0][1].result["group"] == "g" and judged.cells[0][1].result["known"] is None


def test_an_undeclared_deviation_fails_and_a_declared_one_warns():
    failed = verdicts.judge([_found("deviation", "BadNope")], "g", _server(), alive=True)
    assert failed.finding.status == "fail" and "1 deviation(s)" in failed.finding.reason
    assert failed.cells[0][1].status == "fail"
    declared = _server(conformance={CHECK.id: KnownDeviation("BadNope", "a known departure")})
    known = verdicts.judge([_found("deviation", "BadNope")], "g", declared, alive=True)
    assert known.finding.status == "pass"
    assert any("known deviation" in w and "a known departure" in w for w in known.finding.warnings)
    assert known.cells[0][1].result["known"] == "a known departure"
    # a declared deviation whose text does not match what came back is a new one
    other = verdicts.judge([_found("deviation", "BadOther")], "g", declared, alive=True)
    assert other.finding.status == "fail"


def test_a_declared_deviation_that_passes_is_a_warning():
    declared = _server(conformance={CHECK.id: KnownDeviation("BadNope", "stale")})
    judged = verdicts.judge([_found("pass", "Good")], "g", declared, alive=True)
    assert judged.finding.status == "pass" and "though sdk.toml declares: stale" in judged.finding.warnings[0]


def test_a_server_that_died_fails_and_turns_its_unpassed_checks_to_deviations():
    declared = _server(conformance={CHECK.id: KnownDeviation("Bad", "known")})
    judged = verdicts.judge(
        [_found("pass", "Good"), _found("inconclusive", "timeout")], "g", declared, False, "exit 11"
    )
    assert judged.finding.status == "fail"
    assert judged.finding.reason.startswith("open62541: 2 deviation(s): the server died during the probe: exit 11; ")
    assert [o.result["outcome"] for _, o in judged.cells] == ["pass", "deviation"]
    assert judged.cells[1][1].reason == "the server died: timeout"


# --- robustness: survival and soak -------------------------------------------------------------

FOUND = {"cases": 5, "answers": {"ERR": 3, "closed": 2}}


def test_survival_passes_warns_on_degradation_and_notes_memory():
    unaffected = survival_finding(_server(), "b", FOUND, Verdict("unaffected", "", "3 MB"))
    assert unaffected.status == "pass" and not unaffected.warnings
    assert unaffected.notes[0] == "b: 5 cases; answers: ERR ×3, closed ×2; unaffected"
    assert "memory held after the wait: 3 MB" in unaffected.notes[1]
    degraded = survival_finding(_server(), "b", FOUND, Verdict("degraded", "slow"))
    assert degraded.status == "pass" and degraded.warnings == ["open62541: b: degraded: slow"]


def test_a_crash_fails_unless_declared_for_that_batch():
    crashed = Verdict("crashed", "the server process died")
    assert survival_finding(_server(), "b", FOUND, crashed).status == "fail"
    declared = _server(robustness={"b": KnownDeviation("crashed: the server", "a known crash")})
    known = survival_finding(declared, "b", FOUND, crashed)
    assert known.status == "skip" and "a known crash" in known.reason
    assert survival_finding(declared, "other batch", FOUND, crashed).status == "fail"
    hung = Verdict("hung", "not even a Hello answered")
    assert survival_finding(declared, "b", FOUND, hung).status == "fail"  # declared a crash, found a hang


def test_the_soak_fails_on_its_load_and_warns_on_a_leak():
    grows = Growth("rss_mb", 5.0, 1.0, 9.0, 4, 40)
    steady = Growth("threads", 0.0, -1.0, 1.0, 4, 40)
    passing = Soaked("pass", Outcome("pass"), {"rss_mb": grows, "threads": steady, "fds": None}, ["rss_mb"])
    found = soak_finding("s", passing)
    assert found.status == "pass" and found.warnings == ["s: growing over the soak: rss_mb"]
    assert found.notes[0].startswith("rss_mb: ") and "threads: " in found.notes[0]
    failing = Soaked("fail", Outcome("fail", "no notifications\nmore"), {}, [])
    found = soak_finding("s", failing)
    assert found.status == "fail" and found.reason == "s: the soak's subscription load failed: no notifications"
    assert found.notes == ["too few samples"]


# --- resilience -------------------------------------------------------------------------------


def test_recovery_fails_on_a_new_failure_and_skips_a_known_one():
    ok, failed = Outcome("pass"), Outcome("fail", "did not resume")
    assert recovery_finding("c", "s", "restart", "read", [(ok, None)]).status == "pass"
    new = recovery_finding("c", "s", "restart", "read", [(ok, None), (failed, None)])
    assert new.status == "fail" and new.reason == "c → s, restart during read: did not resume"
    known = Outcome("fail", "did not resume", result={"known": "its backoff", "known_on": "c (client)"})
    skipped = recovery_finding("c", "s", "restart", "read", [(known, None)])
    assert skipped.status == "skip" and skipped.reason.startswith(
        "known failure on c (client)'s behaviour: its backoff"
    )
    mixed = recovery_finding("c", "s", "restart", "read", [(known, None), (failed, None)])
    assert mixed.status == "fail"  # a known failure does not excuse a new one beside it
    unsupported = recovery_finding("c", "s", "restart", "read", [(Outcome("not_supported", "no reconnect"), None)])
    assert unsupported.status == "skip" and unsupported.reason == "not supported: no reconnect"


# --- the negative security tests ---------------------------------------------------------------

TIMED_OUT = security_probe.Handshake("OpenSecureChannel", None, 5000.0, "timed out")


def test_a_refusal_passes_and_warns_when_a_deviation_is_declared():
    refused = security_probe.Handshake("OpenSecureChannel", "BadSecurityChecksFailed", 3.0, "refused")
    verdict = security_probe.judge(refused, True, "a client")
    assert security_probe.refusal_finding(_server(), "untrusted certificate", refused, verdict, True).status == "pass"
    declared = _server(deviations={"untrusted certificate": Deviation("OpenSecureChannel", "timed", "it hangs")})
    found = security_probe.refusal_finding(declared, "untrusted certificate", refused, verdict, True)
    assert found.status == "pass" and "declares a deviation: it hangs" in found.warnings[0]


def test_no_refusal_fails_unless_declared_and_the_server_lives():
    verdict = security_probe.judge(TIMED_OUT, True, "a client")
    assert security_probe.refusal_finding(_server(), "untrusted certificate", TIMED_OUT, verdict, True).status == "fail"
    declared = _server(deviations={"untrusted certificate": Deviation("OpenSecureChannel", "timed", "it hangs")})
    known = security_probe.refusal_finding(declared, "untrusted certificate", TIMED_OUT, verdict, True)
    assert known.status == "skip" and "known deviation of open62541: it hangs" in known.reason
    dead = security_probe.refusal_finding(declared, "untrusted certificate", TIMED_OUT, verdict, False)
    assert dead.status == "fail"
    elsewhere = security_probe.Handshake("ActivateSession", None, 5000.0, "timed out")
    other = security_probe.refusal_finding(declared, "untrusted certificate", elsewhere, verdict, True)
    assert other.status == "fail"  # declared at another step
