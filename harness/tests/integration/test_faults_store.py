"""Store faults (issue 13): a store that refuses a run's end, an ARM smoke cell, or every cell
with no spool to fall back on. Real sessions, stores, runs and files; each store's fault is a real
one (a trigger that aborts the write, as an incompatible store would)."""

import json
import sqlite3
from contextlib import closing

import pytest
from helpers import run_into_refusing_store

from uabench import cli, sdks
from uabench.arm import smoke
from uabench.engine.session import Session
from uabench.results import spool
from uabench.results import store as store_module
from uabench.results.kinds import CellKind
from uabench.results.store import StoreError, open_store

CELL = {
    "suite": "read",
    "kind": CellKind.INTEROP,
    "client": "open62541",
    "server": "open62541",
    "variant": "v",
    "parameter": None,
    "repetition": 0,
    "status": "pass",
    "reason": None,
}


def _refuse(path, table: str, operation: str) -> None:
    with closing(sqlite3.connect(path)) as db:
        db.execute(
            f"CREATE TRIGGER refuse_{operation} BEFORE {operation} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, 'refused {operation}'); END"
        )
        db.commit()


def _spooled(directory) -> list[dict]:
    return [json.loads(line) for line in (directory / spool.NAME).read_text().splitlines()]


def test_a_store_that_refuses_the_runs_end_is_one_line_and_exit_2_not_a_teardown_failure(tmp_path, monkeypatch, capsys):
    """A real `uabench run` whose store takes every cell but refuses the run's end (Session.close):
    every test passes (no Robot teardown failure), the run ends with the store's line naming the
    import and exit 2, the spool's end keeps the status, and the import ends the run in the store."""
    path = tmp_path / "s.sqlite"
    run_dir, tests = run_into_refusing_store(
        path,
        lambda store: _refuse(store, "runs", "UPDATE"),
        monkeypatch,
        capsys,
        f"results store {path} cannot be used: refused UPDATE",
    )
    (plan_dir,) = [spooled.parent for spooled in run_dir.glob(f"*/{spool.NAME}")]
    end = _spooled(plan_dir)[-1]
    assert end["record"] == "end" and end["status"] == "finished" and end["store"].endswith("refused UPDATE")
    store = open_store(path, readonly=True)
    [run] = store.runs()
    assert run["status"] == "running" and len(store.cells()) == len(tests)  # every cell went in

    with closing(sqlite3.connect(path)) as db:
        db.execute("DROP TRIGGER refuse_UPDATE")
        db.commit()
    assert cli.main(["--store", str(path), "import", str(run_dir)]) == 0
    assert "0 run(s) added, 1 already there" in capsys.readouterr().out
    assert [r["status"] for r in open_store(path, readonly=True).runs()] == ["finished"]


def test_an_arm_smoke_cell_goes_through_the_spool(tmp_path, capsys):
    """arm-smoke (and remote) write through RunRecorder.add_cell: a store that refuses the cell
    leaves it in the spool (no second copy), and the check fails with one line naming the import."""
    path = tmp_path / "s.sqlite"
    session = Session(open_store(path), "arm-smoke", "smoke", workdir=tmp_path / "run")
    _refuse(path, "cells", "INSERT")
    reference = sdks.get("open62541")
    emulated = smoke.LaunchedSdk(**smoke._fields(reference), arch="aarch64", how="binary")
    with pytest.raises(StoreError) as refused:  # the check fails with the line naming the import
        smoke._store(session, reference, emulated, "read", "server ready", "fail", "no answer", None, None)
    session.close()
    session.store.close()
    assert str(refused.value) == (
        f"results store {path}: 1 measured cell(s) not written (refused INSERT); every measured cell is in the "
        f"spool of {tmp_path / 'run'}: `uabench import {tmp_path / 'run'}` loads it"
    )
    [cell] = [record["cell"] for record in _spooled(tmp_path / "run") if record["record"] == "cell"]
    assert cell["kind"] == "arm-smoke" and cell["variant"] == "server ready" and cell["emulated"] is True
    assert cell["parameter"] == "read"  # the build and engine that ran it (here the test's "read")
    assert not list(tmp_path.glob("*unwritten*"))  # the spool is the one copy
    capsys.readouterr()


def test_a_run_that_lost_a_cell_is_stored_failed_and_the_report_skips_it(tmp_path, capsys):
    """No spool (its file cannot be written) and a store that refuses the cell: the cell is lost,
    its write fails with the store's line, the run is stored `failed`, and `uabench report`
    skips it and says so."""
    path = tmp_path / "s.sqlite"
    (tmp_path / "run" / spool.NAME).mkdir(parents=True)  # a directory where the spool file goes
    session = Session(open_store(path), "read", "smoke", workdir=tmp_path / "run")
    _refuse(path, "cells", "INSERT")
    with pytest.raises(StoreError, match="not written"):
        session.recorder.add_cell(**CELL)
    session.close()
    session.store.close()
    assert "cells go to the store only" in capsys.readouterr().err
    [run] = open_store(path, readonly=True).runs()
    assert run["status"] == "failed"
    assert cli.main(["--store", str(path), "report", "--out", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err
    assert f"skipped runs that did not finish: {run['id']} (read, failed)" in err and "Traceback" not in err


def test_a_store_locked_beyond_the_bound_at_the_runs_end_leaves_the_run_to_its_spool(tmp_path, monkeypatch, capsys):
    """Another writer holds the store's lock from the first cell to beyond the run's end: the
    cell waits, the end refuses after the bound without an exception, the line names the spool
    and the import, and the import then ends the run in the store with its cell."""
    monkeypatch.setattr(store_module, "CELL_WAIT_S", 0.3)
    monkeypatch.setattr(store_module, "LOCK_BOUND_S", 1.5)
    path = tmp_path / "s.sqlite"
    session = Session(open_store(path), "read", "smoke", workdir=tmp_path / "run")
    with closing(sqlite3.connect(path, isolation_level=None)) as holder:
        holder.execute("BEGIN IMMEDIATE")
        assert session.recorder.add_cell(**CELL) is None  # kept, waiting for the lock
        session.close()
        holder.execute("ROLLBACK")
    assert str(session.recorder.store_error) == (
        f"results store {path} is locked by another writer for more than 2 s; every measured cell is in the "
        f"spool of {tmp_path / 'run'}: `uabench import {tmp_path / 'run'}` loads it"
    )
    assert "the run's cells and end go to its spool" in capsys.readouterr().err
    end = _spooled(tmp_path / "run")[-1]
    assert end["status"] == "finished" and end["store"].endswith("for more than 2 s")
    assert [r["status"] for r in open_store(path, readonly=True).runs()] == ["running"]
    session.store.close()
    assert cli.main(["--store", str(path), "import", str(tmp_path / "run")]) == 0
    store = open_store(path, readonly=True)
    assert [r["status"] for r in store.runs()] == ["finished"] and len(store.cells()) == 1
