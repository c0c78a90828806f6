"""Every bad input of the `uabench` command line, one table (issue 13): each row is refused
before anything starts (no adapter, no store written, no process left) with its exit status
and exactly one line on stderr naming the file, key or argument at fault, never a traceback.

The rows call the CLI's main() in this process (a fresh interpreter per row would take most of
a minute on a loaded machine); test_the_real_entry_point_says_the_same runs a few of them
through `python -m uabench.cli` to show the process's own stderr and status are the same."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers.faults_inputs import _errors


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["frob"], "invalid choice: 'frob'"),
        (["--store", "{t}/corrupt.sqlite", "report"], "not a valid SQLite database"),
        (["--store", "{t}/fresh.sqlite", "run", "{t}/latin1.toml"], "not UTF-8"),
    ],
)
def test_the_real_entry_point_says_the_same(inputs, argv, words):
    env = {**os.environ, "UABENCH_RESULTS": str(inputs / "results")}
    command = [sys.executable, "-m", "uabench.cli", *(part.format(t=inputs) for part in argv)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    lines = _errors(done.stderr)
    assert (done.returncode, len(lines)) == (2, 1), done.stderr
    assert words in lines[0] and "Traceback" not in done.stderr
