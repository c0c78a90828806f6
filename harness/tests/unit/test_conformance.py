"""The conformance suite's parts besides the probe's run against a faulty server
(test_conformance_faulty.py): each check passes a conformant server's answers (recorded from
open62541 and Milo: data/conformance_conformant.json), the verdicts that are neither pass nor
deviation, the plan, the known deviations of sdk.toml and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import DATA

from uabench import plan as plans
from uabench import sdks
from uabench.conformance import checks
from uabench.conformance import suite as conformance_suite
from uabench.conformance.report import conformance_section, counts
from uabench.report.markdown import render as markdown

CONFORMANT = json.loads((DATA / "conformance_conformant.json").read_text())


@pytest.mark.parametrize("check", sorted(checks.CHECKS))
def test_a_conformant_answer_passes(check: str) -> None:
    verdict = checks.judge(check, CONFORMANT[check])
    assert verdict.outcome == "pass", verdict


def test_every_check_has_a_conformant_answer_and_a_group() -> None:
    assert sorted(CONFORMANT) == sorted(checks.CHECKS)
    grouped = [c.id for group in checks.GROUPS for c in checks.of_group(group)]
    assert sorted(grouped) == sorted(checks.CHECKS)
    assert len(checks.CHECKS) >= 25


def test_a_probe_failure_is_an_error_not_the_servers_deviation() -> None:
    verdict = checks.judge("read_unknown_node", None, error="KeyError: 'x'")
    assert verdict.outcome == "error" and "the probe failed" in verdict.got


def test_no_answer_and_a_refused_session_are_deviations() -> None:
    assert checks.judge("write_read_only", {"no_answer": "no answer to WriteRequest"}).outcome == "deviation"
    refused = checks.judge("keep_alive", {"session_refused": "BadTooManySessions"})
    assert refused.outcome == "deviation" and "BadTooManySessions" in refused.got


@pytest.mark.parametrize(("create", "activate"), [(32, None), (16, 32), (32, 0), (None, None)])
def test_a_null_or_short_server_nonce_is_a_deviation_naming_it(create: int | None, activate: int | None) -> None:
    verdict = checks.judge("session_nonces", {"create": create, "activate": activate})
    assert verdict.outcome == "deviation"
    assert f"ActivateSession {'null' if activate is None else f'{activate} bytes'}" in verdict.got


def test_a_wait_past_the_bound_is_inconclusive() -> None:
    verdict = checks.judge("session_timeout", {"revised_ms": 60000.0, "bound_s": 15.0})
    assert verdict.outcome == "inconclusive" and "60 s" in verdict.got
    renewed = {k: v for k, v in CONFORMANT["channel_renewal"].items() if k not in ("read_after_expiry", "waited_s")}
    assert checks.judge("channel_renewal", renewed).outcome == "inconclusive"


def test_an_undeclared_limit_is_not_supported_and_a_huge_one_inconclusive() -> None:
    assert checks.judge("max_nodes_per_read", {"declared": 0, "probed_up_to": 20000}).outcome == "not_supported"
    assert checks.judge("max_nodes_per_read", {"declared": 10**6, "probed_up_to": 20000}).outcome == "inconclusive"


def test_a_gate_below_the_minimum_is_a_deviation_and_its_headroom_counts() -> None:
    short = checks.judge("gate_sessions", {"reached": 12, "cap": 200, "refused": "BadTooManySessions"})
    assert short.outcome == "deviation" and short.headroom == pytest.approx(12 / 50)
    assert "refused at 13 with BadTooManySessions" in short.got
    capped = checks.judge("gate_monitored_items", {"reached": 5000, "cap": 5000, "refused": None})
    assert capped.outcome == "pass" and capped.headroom == pytest.approx(10.0)
    assert checks.judge("gate_subscriptions", {"reached": 3, "cap": 3, "refused": None}).outcome == "inconclusive"


def test_the_plan_makes_a_test_per_group_and_server() -> None:
    plan = plans.load("conformance")
    setup = conformance_suite.of(plan)
    assert setup is not None and setup.profiles["smoke"].gates["sessions"] == 50
    cases = plans.test_cases(plan, ["open62541"], "smoke")
    assert [c.args for c in cases] == [("open62541", group) for group in checks.GROUPS]
    assert all("conformance" in c.tags and "server:open62541" in c.tags for c in cases)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda raw: raw["conformance"].update(signals=0), "conformance.signals"),
        (lambda raw: raw["conformance"].update(extra=1), "'extra' was unexpected"),
        (lambda raw: raw["profiles"]["quick"]["conformance"]["gates"].pop("sessions"), "'sessions' is a required"),
        (lambda raw: raw["profiles"]["quick"]["conformance"].update(session_wait_s="long"), "session_wait_s"),
        (lambda raw: raw.update(ranking="x"), "unknown key 'ranking' in a conformance plan"),
    ],
)
def test_a_bad_plan_is_refused_naming_the_key(tmp_path: Path, edit, message: str) -> None:
    import tomllib

    raw = tomllib.loads((plans.PLANS / "conformance.toml").read_text())
    edit(raw)
    path = tmp_path / "bad.toml"
    path.write_text(_toml(raw))
    with pytest.raises(plans.PlanError, match=message.replace("(", r"\(")):
        plans.load(path)


def _toml(raw: dict) -> str:
    """A minimal TOML writer for the plan's shapes (tables of scalars and inline tables)."""

    def value(v: object) -> str:
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return json.dumps(v)

    lines = [f"{k} = {value(v)}" for k, v in raw.items() if not isinstance(v, dict)]
    lines += ["[conformance]", *(f"{k} = {value(v)}" for k, v in raw["conformance"].items())]
    for name, tables in raw["profiles"].items():
        lines += [f"[profiles.{name}.conformance]", *(f"{k} = {value(v)}" for k, v in tables["conformance"].items())]
    return "\n".join(lines) + "\n"


def test_a_known_deviation_matches_what_came_back() -> None:
    known = sdks.KnownDeviation(found="Good; Write_2 is now Int32", why="python-opcua stores any type")
    assert known.matches("Good; Write_2 is now Int32")
    assert not known.matches("BadTypeMismatch")


@pytest.mark.parametrize(
    "entry",
    [
        '[conformance.keep_alive]\nfound = "x"\nwhy = "y"\nseen = 1\n',
        '[resilience."cut/read"]\nfound = "x"\nwhy = "y"\nclients = ["milo"]\nseen = 1\n',  # issue 18
        '[interop.read]\nfound = "x"\nwhy = "y"\nclients = ["asyncua"]\nseen = 1\n',  # issue 19
        '[client_resilience."restart/read"]\nfound = "x"\nwhy = "y"\nservers = ["milo"]\nseen = 1\n',
        '[robustness.fuzz-bitflip]\nfound = "crashed"\nwhy = "y"\nseen = 1\n',
    ],
    ids=["conformance", "resilience", "interop", "client_resilience", "robustness"],
)
def test_a_known_deviation_with_an_unknown_key_is_refused(tmp_path: Path, entry: str) -> None:
    toml = (sdks.paths.IMPLEMENTATIONS / "open62541" / "sdk.toml").read_text()
    bad = tmp_path / "sdk.toml"
    bad.write_text(toml + "\n" + entry)
    with pytest.raises(ValueError, match="seen"):
        sdks._load(bad)


def _cell(server: str, check: str, outcome: str, got: str, known: str | None = None, **extra) -> dict:
    one = checks.CHECKS[check]
    result = {
        "unit": one.unit,
        "title": one.title,
        "cite": one.cite,
        "expected": one.expected,
        "outcome": outcome,
        "got": got,
        "known": known,
        "observed": extra.get("observed"),
        "headroom": extra.get("headroom"),
    }
    return {"kind": "conformance", "server": server, "variant": check, "result": result, "client_config": {}}


def test_the_report_counts_and_shows_each_deviation() -> None:
    cells = [
        _cell("good", "write_type_mismatch", "pass", "BadTypeMismatch"),
        _cell("bad", "write_type_mismatch", "deviation", "Good; Write_2 is now Int32", known="stores any type"),
        _cell("good", "max_nodes_per_read", "not_supported", "declares no MaxNodesPerRead"),
        _cell("bad", "max_nodes_per_read", "deviation", "10001 operations: Good with 10001 results"),
        _cell(
            "good",
            "gate_sessions",
            "pass",
            "200 sessions",
            observed={"reached": 200, "cap": 200, "refused": None},
            headroom=4.0,
        ),
    ]
    tally = counts(cells)
    assert (tally["good"].passed, tally["good"].not_supported, tally["good"].deviations) == (2, 1, 0)
    assert (tally["bad"].passed, tally["bad"].deviations, tally["bad"].known) == (0, 2, 1)
    section = conformance_section(cells)
    assert section is not None
    from uabench.document.model import Report

    text = markdown(Report("r", [section]))
    assert "deviation (Good; Write_2 is now Int32; known: stores any type)" in text
    assert "0/2 (2 deviations)" in text and "2/2 (1 not supported)" in text
    assert "≥ 4.0×" in text and "OPC 10000-4 v1.05 §5.11.4.4" in text
