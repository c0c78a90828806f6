"""`uabench outdated` against the real registries (PyPI, npm, crates.io, the Go module proxy, Maven
Central): every SDK's `newest` script answers with a version through its own package client. The
faults of a look-up are tests/unit/test_outdated.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from packaging.version import Version

from uabench import sdks


def test_every_sdk_is_looked_up_in_its_registry():
    done = subprocess.run(
        [str(Path(sys.executable).with_name("uabench")), "outdated"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode in (0, 1), f"exit {done.returncode}: {done.stdout}{done.stderr}"
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:] if line and not line[0].isspace()}
    for versions in sdks.registry():
        row = rows.get(versions[0].id)
        assert row is not None, f"{versions[0].id} not listed: {done.stdout}"
        assert row[1] == versions[0].version
        Version(row[3])  # the registry's newest, a version
