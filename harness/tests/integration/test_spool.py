"""A measured cell is never lost (issue 13): every cell is in the run's spool before the store
sees it, a store that refuses it names the spool, and `uabench import` loads a spool into a
store once however often it is imported. Real sessions, stores and files; the store's fault is a
real one (a trigger that aborts every insert, as an incompatible store would)."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

import pytest
from helpers import run_into_refusing_store

from uabench import cli
from uabench.engine.session import Session
from uabench.results import spool
from uabench.results.kinds import CellKind
from uabench.results.store import REFUSED, open_store

CELL = {
    "suite": "read",
    "kind": CellKind.THROUGHPUT,
    "client": "open62541",
    "server": "asyncua",
    "variant": "1 node/request",
    "parameter": None,
    "status": "pass",
    "reason": None,
    "result": {"throughput": {"values_per_s": 1234.5}},
}


def _refuse_cells(path) -> None:
    """Another writer makes the store refuse every cell (an incompatible store)."""
    with closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TRIGGER refuse BEFORE INSERT ON cells BEGIN SELECT RAISE(ABORT, 'refused'); END")
        db.commit()


def _import(capsys, store, source) -> tuple[int, str, str]:
    status = cli.main(["--store", str(store), "import", str(source)])
    out, err = capsys.readouterr()
    return status, out, err


def _keys(store_path) -> list[tuple]:
    store = open_store(store_path, readonly=True)
    keys = [(c["repetition"], c["created_ns"], c["result"]) for c in store.cells()]
    store.close()
    return keys


def test_a_cell_the_store_refuses_is_in_the_spool_named_and_imported_once(tmp_path, capsys):
    path = tmp_path / "store.sqlite"
    session = Session(open_store(path), "read", "smoke", workdir=tmp_path / "run")
    session.recorder.add_cell(repetition=0, **CELL)
    _refuse_cells(path)
    assert session.recorder.add_cell(repetition=1, **CELL) is None  # kept in the spool, the run goes on
    assert session.recorder.add_cell(repetition=2, **CELL) is None  # spool only from the first refusal on
    warning = capsys.readouterr().err
    assert warning == (
        f"uabench: warning: results store {path}: 1 measured cell(s) not written (refused); the run's cells and "
        f"end go to its spool {tmp_path / 'run' / spool.NAME} only (`uabench import {tmp_path / 'run'}` loads it)\n"
    )
    session.close()
    session.store.close()
    message = str(session.recorder.store_error)
    assert message == (
        f"results store {path}: 1 measured cell(s) not written (refused); every measured cell is in the spool "
        f"of {tmp_path / 'run'}: `uabench import {tmp_path / 'run'}` loads it"
    )
    [run] = open_store(path, readonly=True).runs()  # the store's copy lacks cells: not finished there
    assert (
        run["status"] == "failed"
        and run["provenance"][REFUSED] == f"results store {path}: 1 measured cell(s) not written (refused)"
    )
    [end] = [json.loads(line) for line in (tmp_path / "run" / spool.NAME).read_text().splitlines()][-1:]
    assert end["record"] == "end" and end["status"] == "finished" and end["store"] == run["provenance"][REFUSED]

    fresh = tmp_path / "fresh.sqlite"
    status, out, _ = _import(capsys, fresh, tmp_path / "run")
    assert status == 0 and "1 run(s) added" in out and "3 cell(s) added, 0 already there" in out
    [run] = open_store(fresh, readonly=True).runs()
    assert run["status"] == "finished" and run["provenance"][spool.KEY] == session.recorder.spool_key
    assert run["provenance"]["workdir"] == str(tmp_path / "run")
    assert [key[0] for key in _keys(fresh)] == [0, 1, 2]

    status, out, _ = _import(capsys, fresh, tmp_path / "run" / spool.NAME)  # again: nothing twice
    assert status == 0 and "0 run(s) added, 1 already there" in out and "0 cell(s) added, 3 already there" in out
    assert len(_keys(fresh)) == 3

    # into the store that refused them: only the refused cells are added, to the same run, which the
    # spool's end then finishes
    with closing(sqlite3.connect(path)) as db:
        db.execute("DROP TRIGGER refuse")
        db.commit()
    status, out, _ = _import(capsys, path, tmp_path / "run")
    assert status == 0 and "2 cell(s) added, 1 already there" in out
    assert _keys(path) == _keys(fresh)
    assert [r["status"] for r in open_store(path, readonly=True).runs()] == ["finished"]


def test_a_run_that_never_ended_is_imported_abandoned_and_a_torn_last_line_skipped(tmp_path, capsys):
    file = spool.Spool(tmp_path / spool.NAME)
    file.begin("k1", "read", "smoke", {"workdir": str(tmp_path)})
    file.cell("k1", {**CELL, "repetition": 0, "created_ns": 1})
    whole = file.path.stat().st_size
    with file.path.open("a") as out:
        out.write('{"record":"cell","run":"k1","cell":{"suite"')  # the harness died mid-write
    status, out, _ = _import(capsys, tmp_path / "s.sqlite", tmp_path)
    assert status == 0 and "1 cell(s) added" in out and "last line was cut short" in out
    [run] = open_store(tmp_path / "s.sqlite", readonly=True).runs()
    assert run["status"] == "abandoned" and run["finished_ns"] is None

    with file.path.open("r+") as torn:
        torn.truncate(whole)
    file.end("k1", "interrupted", {"workdir": str(tmp_path)})  # a later end is taken by that run
    status, out, err = _import(capsys, tmp_path / "s.sqlite", tmp_path)
    assert status == 0 and "0 cell(s) added, 1 already there" in out, err
    assert [r["status"] for r in open_store(tmp_path / "s.sqlite", readonly=True).runs()] == ["interrupted"]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["not json"], "line 2 is not a spool record: Expecting value: line 1 column 1 (char 0)"),
        (
            [json.dumps({"record": "cell", "run": "unknown", "cell": {}})],
            "line 2 is not a spool record: its run 'unknown' has no run record before it",
        ),
        ([json.dumps({"record": "what"})], "line 2 is not a spool record: unknown record 'what'"),
        (["[1]"], "line 2 is not a spool record: not a JSON object"),
        ([json.dumps({"record": "run"})], "line 2 is not a spool record: it lacks 'key'"),
        ([json.dumps({"record": "cell", "run": "k1", "cell": {}})], "line 2 is not a spool record: its cell lacks "),
        (
            [json.dumps({"record": "cell", "run": "k1", "cell": {**CELL, "repetition": 0, "created_ns": 1, "x": 1}})],
            "line 2 is not a spool record: its cell has unknown fields ['x']",
        ),
    ],
)
def test_a_line_that_is_no_spool_record_is_one_line_naming_it_and_exit_2(tmp_path, capsys, lines, expected):
    file = spool.Spool(tmp_path / spool.NAME)
    file.begin("k1", "read", "smoke", {})
    with file.path.open("a") as out:
        out.write("".join(line + "\n" for line in lines))
    status, out, err = _import(capsys, tmp_path / "s.sqlite", file.path)
    assert status == 2 and out == ""
    assert err.startswith(f"uabench: error: spool {file.path} {expected}") and err.count("\n") == 1
    assert not (tmp_path / "s.sqlite").exists()  # read whole before the store is touched


def test_a_directory_without_a_spool_or_an_empty_spool_is_one_line_and_exit_2(tmp_path, capsys):
    status, _, err = _import(capsys, tmp_path / "s.sqlite", tmp_path)
    assert status == 2 and err.startswith(f"uabench: error: no spool at {tmp_path}: ")
    assert err.count("\n") == 1
    (tmp_path / spool.NAME).touch()
    status, _, err = _import(capsys, tmp_path / "s.sqlite", tmp_path)
    assert status == 2 and err == f"uabench: error: spool {tmp_path / spool.NAME} holds no run\n"
    assert not (tmp_path / "s.sqlite").exists()


def test_a_real_run_into_a_store_that_refuses_every_cell_keeps_them_all_for_import(tmp_path, monkeypatch, capsys):
    """A real `uabench run` (the reference SDK, interop tests of the smoke profile) into a store
    that refuses every cell: the cells are measured as usual (their tests pass), the run ends
    with the store's one line naming the import and exit 2, the store has the run as `failed`
    (its cells missing there) and `uabench report` skips it and says so; `uabench import` then
    loads a cell of every test, and the run as the spool ended it (finished)."""
    path = tmp_path / "refusing.sqlite"
    run_dir, tests = run_into_refusing_store(
        path, _refuse_cells, monkeypatch, capsys, f"results store {path}: 1 measured cell(s) not written (refused)"
    )
    [run] = open_store(path, readonly=True).runs()
    assert run["status"] == "failed" and run["provenance"][REFUSED].endswith("not written (refused)")
    assert cli.main(["--store", str(path), "report", "--out", str(tmp_path / "report")]) == 2
    assert f"skipped runs that did not finish: {run['id']} (read, failed)" in capsys.readouterr().err

    fresh = tmp_path / "fresh.sqlite"
    status, out, _ = _import(capsys, fresh, run_dir)
    assert status == 0 and "1 run(s) added" in out
    store = open_store(fresh, readonly=True)
    interop = [cell for cell in store.cells() if cell["kind"] == "interop"]
    assert len(interop) == len(tests) and all(cell["status"] == "pass" for cell in interop)
    assert [r["status"] for r in store.runs()] == ["finished"]
    assert open_store(path, readonly=True).cells() == []


def _stored(path) -> int:
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=1)) as db:
            return int(db.execute("SELECT count(*) FROM cells").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.timeout(300)
@pytest.mark.skipif(shutil.which("chattr") is None or os.geteuid() != 0, reason="chattr +i needs root and e2fsprogs")
def test_a_store_made_immutable_under_a_running_harness_costs_no_cell_and_no_signal(tmp_path):
    """Issue 39: the store, its -wal and -shm made read-only under a running harness (a file
    system gone read-only; here chattr +i, which root cannot write through either) killed it with
    SIGBUS three times out of three, the run left `running` and a cell missing from the store.
    Now the run ends with exit 2 and one line naming `uabench import`, and every cell it measured
    is in the run's spool."""
    path = tmp_path / "s.sqlite"
    results = tmp_path / "results"
    command = [sys.executable, "-m", "uabench.cli", "--store", str(path), "run", "read", "--profile", "smoke"]
    env = {**os.environ, "UABENCH_RESULTS": str(results)}
    harness = subprocess.Popen(
        [*command, "--sdk", "open62541"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 150
        while _stored(path) < 2 and harness.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)  # the adapter check and a first measured cell stored
        assert harness.poll() is None, "the run ended before its store could be made read-only"
        subprocess.run(["chattr", "+i", *(str(p) for p in tmp_path.glob("s.sqlite*"))], check=True)
        _, err = harness.communicate(timeout=240)
    finally:
        subprocess.run(["chattr", "-i", *(str(p) for p in tmp_path.glob("s.sqlite*"))], check=False)
        if harness.poll() is None:
            harness.kill()
    assert harness.returncode == 2, err[-3000:]  # not -7 (SIGBUS)
    assert "uabench import" in err and "Traceback" not in err
    [spooled] = results.glob(f"runs/*/*/{spool.NAME}")
    measured = [json.loads(line) for line in spooled.read_text().splitlines() if line.strip()]
    cells = [record for record in measured if record["record"] == "cell"]
    assert len(cells) > _stored(path)  # a cell the store could not take is in the spool
