"""What tests/unit/test_faults_inputs.py and tests/integration/test_faults_inputs.py share."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from uabench import paths
from uabench.engine import orphans
from uabench.results import spool
from uabench.results.store import APPLICATION_ID, open_store


def _inputs(t: Path) -> None:
    """The bad files the rows name ({t} in a row is this directory)."""
    (t / "corrupt.sqlite").write_bytes(b"not an SQLite database " * 200)
    (t / "empty.sqlite").write_bytes(b"")
    (t / "dir.sqlite").mkdir()
    newer = sqlite3.connect(t / "newer.sqlite")
    newer.execute("CREATE TABLE future (x)")  # a later schema's table, in a store a later uabench marked as its own
    newer.execute("PRAGMA user_version = 99")
    newer.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    newer.commit()
    newer.close()
    open_store(t / "fresh.sqlite").close()  # a good store that holds no run
    open_store(t / "fresh2.sqlite").close()  # another
    (t / "plan.d").mkdir()
    (t / "latin1.toml").write_bytes(b'suite = "read"\n# caf\xe9\n')
    (t / "broken.toml").write_text("suite = \n")
    (t / "nosuite.toml").write_text("[profiles.smoke]\n")
    (t / "spool.d").mkdir()
    (t / "garbage").mkdir()
    (t / "garbage" / "cells.jsonl").write_text("this is not json\n")
    (t / "binary").mkdir()
    unknown = spool.Spool(t / "unknown-kind" / spool.NAME)  # a good spool, but a kind no suite records
    (t / "unknown-kind").mkdir()
    unknown.begin("k", "read", "smoke", {})
    cell = dict(kind="frobnicate", client="open62541", server="open62541", variant="v", repetition=0)
    unknown.cell("k", {**cell, "created_ns": 1, "suite": "read", "status": "pass"})
    (t / "binary" / "cells.jsonl").write_bytes(b"\xff\xfe\x00garbage\n")
    (t / "afile").write_text("a file, not a directory\n")
    read = (paths.SUITES / "plans" / "read.toml").read_text()
    for name, (old, new) in PLAN_EDITS.items():
        assert old in read, old  # the edit still applies to the shipped plan
        (t / f"{name}.toml").write_text(read.replace(old, new, 1))


# Plans that are the shipped read plan with one mistake (name: (text, replaced by))
PLAN_EDITS = {
    "headroom-string": ("headroom = true", 'headroom = "no"'),
    "servers-misspelt": ('servers = "all"', 'servers = ["open62541", "milo0"]'),
    "nodes-unbounded": ('"Signal_0..9", "Tick"', '"Signal_0..999999999", "Tick"'),
    "nodes-per-request-zero": ("nodes_per_request = 100, in_flight = 4", "nodes_per_request = 0, in_flight = 4"),
    "key-misspelt": ("repetitions = 2 }", "repetitons = 2 }"),
}


@pytest.fixture
def inputs(tmp_path, tmp_path_factory, monkeypatch) -> Path:
    _inputs(tmp_path)
    # the cores a run or check claims, in a lock directory of this test alone
    monkeypatch.setenv("UABENCH_LOCK_DIR", str(tmp_path_factory.mktemp("locks")))
    monkeypatch.setenv("UABENCH_HARNESS", "")  # an invocation marks its process: undone afterwards
    monkeypatch.delenv("UABENCH_SEED", raising=False)
    return tmp_path


def _errors(stderr: str) -> list[str]:
    """The lines of stderr but the one naming what killed harnesses left on this machine (other
    tests or runs may leave it at any time: it is not this row's)."""
    return [line for line in stderr.splitlines() if not line.startswith(orphans.PREFIX)]
