"""The run's time budget: its shares per test, the due time a listener sets for the running
test, and what the command line accepts."""

import subprocess
import sys
import textwrap


def test_the_pacer_sets_each_running_tests_due_time_and_clears_it(tmp_path):
    """A real Robot run with the Pacer listener: inside each test the due time is set and
    within the budget, later for the later test; after the run no budget is left set."""
    suite = tmp_path / "paced.robot"
    suite.write_text(
        textwrap.dedent(
            """\
            *** Settings ***
            Library    Collections

            *** Test Cases ***
            First
                ${due}=    Evaluate    __import__('uabench.engine.budget', fromlist=['due']).due()
                Should Be True    $due is not None
                Set Suite Variable    ${FIRST}    ${due}
            Second
                ${due}=    Evaluate    __import__('uabench.engine.budget', fromlist=['due']).due()
                Should Be True    $due > $FIRST
                ${now}=    Evaluate    __import__('time').monotonic()
                Should Be True    $due <= $now + 60
            """
        )
    )
    code = (
        "import sys, robot; from uabench.robot.pacing import Pacer; from uabench.engine import budget;"
        f"rc = robot.run({str(suite)!r}, outputdir={str(tmp_path)!r}, listener=[Pacer(60.0)], console='none');"
        "sys.exit(rc or (budget.due() is not None))"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0
