"""A run's own directory: named by its start time for people, unique for the harness. Two
runs started in the same second get two directories (their Robot logs, adapter logs and
certificates apart); tempfile.mkdtemp creates it atomically, readable by its owner only
(it holds the run's private keys)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from uabench import paths


def new(parent: Path | None = None) -> Path:
    """A new, empty directory under `parent` (the results' runs/ by default)."""
    parent = parent or paths.RESULTS / "runs"
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=parent))
