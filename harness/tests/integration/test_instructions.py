"""Simulated instruction counts (issue 20): valgrind's totals read from its own output, the
difference of two runs, how far repeated differences lie apart, and the plan's checks. The
counts of a real server are make test's smoke run (suites/plans/instructions.toml)."""

import shutil
import subprocess

import pytest

from uabench.instructions import counts

needs_valgrind = pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (ci/setup)")


@needs_valgrind
def test_the_total_is_callgrinds_own_summary(tmp_path):
    """A real callgrind run of /bin/true: its total equals what valgrind prints on exit."""
    run = subprocess.run([*counts.prefix(tmp_path), "/bin/true"], capture_output=True, text=True, check=True)
    (written,) = tmp_path.glob(f"{counts.OUTPUT_PREFIX}*")
    printed = next(line for line in run.stderr.splitlines() if "Collected :" in line)
    assert counts.total_instructions(written) == int(printed.split()[-1].replace(",", ""))
