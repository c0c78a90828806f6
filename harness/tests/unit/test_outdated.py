"""`uabench outdated` (issue 44): the verdicts of a look-up, and every way an SDK's `newest` script
can fail, from its answers alone (the script is not run here: the runner answers in its place).
The real look-ups of every SDK are tests/integration/test_outdated.py."""

from __future__ import annotations

import subprocess

import pytest

from uabench import outdated, sdks


def _answer(stdout: str = "", returncode: int = 0, stderr: str = ""):
    def run(command, **_):
        return subprocess.CompletedProcess(command, returncode, stdout, stderr)

    return run


@pytest.mark.parametrize(
    ("newest", "declared", "verdict"),
    [
        ("1.1.2", (), outdated.UP_TO_DATE),
        ("1.1.6", (), outdated.NEWER),
        ("1.2.0rc1", (), outdated.NEWER),
        ("1.0.8", (), outdated.BEHIND),
        ("1.1.6", ("1.1.6",), outdated.DECLARED),
        ("1.10.0", (), outdated.NEWER),  # versions compare as versions, not as text
    ],
)
def test_the_verdict_compares_the_newest_with_the_pinned_and_the_declared(newest, declared, verdict):
    assert outdated.Finding("milo", "1.1.2", declared, newest=newest).verdict == verdict


def test_a_version_printed_by_the_script_is_the_newest():
    found = outdated.look_up(sdks.get("milo"), ["1.0.8"], run=_answer("1.1.6\n"))
    assert (found.newest, found.problem, found.declared) == ("1.1.6", None, ("1.0.8",))


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (_answer("", 1, "npm error code E404\nnpm error 404 Not Found\n"), "exit 1: npm error 404 Not Found"),
        (_answer("", 0), "printed 0 words, not one version"),
        (_answer("1.1.6\n1.1.7\n"), "printed 2 words, not one version"),
        (_answer("<html>\n"), "printed '<html>', not a version"),
    ],
)
def test_a_failed_look_up_says_why_and_makes_the_exit_status_3(answer, problem):
    found = outdated.look_up(sdks.get("milo"), run=answer)
    assert found.verdict == outdated.UNKNOWN and found.problem is not None and found.problem.startswith(problem)
    assert outdated.exit_status([found, outdated.Finding("x", "1", (), newest="2")]) == 3


def test_a_script_that_hangs_or_cannot_start_is_a_failed_look_up():
    def hangs(command, **kwargs):
        raise subprocess.TimeoutExpired(command, kwargs["timeout"])

    def missing(command, **_):
        raise PermissionError(13, "Permission denied")

    assert outdated.look_up(sdks.get("milo"), run=hangs).problem == f"no answer within {outdated.LOOKUP_S:g} s"
    assert outdated.look_up(sdks.get("milo"), run=missing).problem == "newest does not run: Permission denied"


def test_the_exit_status_is_1_for_a_newer_release_and_0_when_all_are_current():
    current = outdated.Finding("a", "1.0", (), newest="1.0")
    newer = outdated.Finding("b", "1.0", (), newest="1.1")
    assert outdated.exit_status([current]) == 0
    assert outdated.exit_status([current, newer]) == 1


def test_every_sdk_has_a_newest_script():
    for versions in sdks.registry():
        script = outdated.paths.IMPLEMENTATIONS / versions[0].id / "newest"
        assert script.is_file() and script.stat().st_mode & 0o111, f"{script}: missing or not executable"
