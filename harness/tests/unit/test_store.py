import hashlib
import os
import sqlite3
import tempfile
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
from helpers import version0_store
from helpers.store import RUN, _one_line, _stored_store, _uabench

from uabench.results.store import SCHEMA_VERSION, StoreError, open_store


def test_cells_are_stored_and_read_back(tmp_path):
    store = open_store(f"sqlite://{tmp_path}/s.sqlite")
    run = store.begin_run("read", "quick", {"machine": {"fingerprint": "x"}})
    store.add_cell(
        run,
        suite="read",
        kind="interop",
        client="a",
        server="b",
        variant="v",
        repetition=0,
        status="pass",
        result={"values": 3},
        client_bound=True,
    )
    store.finish_run(run)
    store.close()
    again = open_store(tmp_path / "s.sqlite")
    [cell] = again.cells([run])
    assert cell["result"] == {"values": 3} and cell["client_bound"] is True
    assert again.runs()[0]["status"] == "finished"


def test_unknown_store_scheme_is_refused(tmp_path):
    with pytest.raises(StoreError, match="postgres"):
        open_store("postgres://host/db")


def _version(path) -> int:
    with closing(sqlite3.connect(path)) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


def test_a_new_store_has_the_current_schema_version(tmp_path):
    open_store(tmp_path / "new.sqlite").close()
    assert _version(tmp_path / "new.sqlite") == SCHEMA_VERSION


def test_a_newer_store_is_refused_by_writers_and_readers(tmp_path):
    path = tmp_path / "future.sqlite"
    open_store(path).close()
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    for readonly in (False, True):
        with pytest.raises(StoreError) as refused:
            open_store(path, readonly=readonly)
        message = str(refused.value)
        assert str(path) in message and f"version {SCHEMA_VERSION + 1}" in message
        assert f"up to {SCHEMA_VERSION}" in message and "\n" not in message
    assert _version(path) == SCHEMA_VERSION + 1  # left as it was


def test_a_version_0_store_is_read_as_is_and_migrated_by_a_writer(tmp_path):
    copy = tmp_path / "reference.sqlite"
    version0_store(copy)
    assert _version(copy) == 0
    before = hashlib.sha256(copy.read_bytes()).hexdigest()

    reader = open_store(copy, readonly=True)
    cells = reader.cells()
    assert reader.version == 0 and cells and reader.runs()
    with pytest.raises(StoreError, match="not writable"):
        reader.begin_run("read", "quick", {})
    reader.close()
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reference.sqlite"]  # nothing written beside it

    writer = open_store(copy)
    assert writer.version == SCHEMA_VERSION and len(writer.cells()) == len(cells)
    writer.close()
    assert _version(copy) == SCHEMA_VERSION


OLDEST_CELLS = """CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, suite TEXT NOT NULL, profile TEXT NOT NULL,
    started_ns INTEGER NOT NULL, finished_ns INTEGER, status TEXT NOT NULL DEFAULT 'running', provenance TEXT NOT NULL);
CREATE TABLE cells (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL, suite TEXT NOT NULL,
    kind TEXT NOT NULL, client TEXT NOT NULL, server TEXT NOT NULL, variant TEXT NOT NULL, parameter TEXT,
    repetition INTEGER NOT NULL, status TEXT NOT NULL, reason TEXT, config_hash TEXT, client_config TEXT,
    server_config TEXT, result TEXT, client_resources TEXT, server_resources TEXT,
    client_bound INTEGER NOT NULL DEFAULT 0, created_ns INTEGER NOT NULL);
INSERT INTO runs (suite, profile, started_ns, provenance) VALUES ('read', 'quick', 1, '{}');
INSERT INTO cells (run_id, suite, kind, client, server, variant, repetition, status, created_ns)
    VALUES (1, 'read', 'interop', 'a', 'b', 'v', 0, 'pass', 1);
"""


def test_a_version_0_store_without_the_late_columns_is_read_and_migrated(tmp_path):
    path = tmp_path / "oldest.sqlite"
    with closing(sqlite3.connect(path)) as db:
        db.executescript(OLDEST_CELLS)
    [cell] = open_store(path, readonly=True).cells()
    assert cell["emulated"] is False and cell["client_perf"] is None
    store = open_store(path)
    store.add_cell(
        1,
        suite="read",
        kind="interop",
        client="a",
        server="b",
        variant="v",
        repetition=1,
        status="pass",
        emulated=True,
        client_perf={"cycles": 1},
    )
    old, new = store.cells()
    assert old["emulated"] is False and new["emulated"] is True and new["client_perf"] == {"cycles": 1}
    assert _version(path) == SCHEMA_VERSION


@pytest.mark.parametrize("command", [RUN, ["report", "--out", "OUT"], ["model"]])
def test_a_corrupt_store_is_one_line_and_exit_2(tmp_path, capsys, command):
    path = tmp_path / "corrupt.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 64)  # the magic, then garbage
    before = path.read_bytes()
    argv = [str(tmp_path / "out") if part == "OUT" else part for part in command]
    code, err = _uabench(capsys, path, *argv)
    assert code == 2
    assert f"results store {path} is not a valid SQLite database" in _one_line(err)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["corrupt.sqlite"]


@pytest.mark.parametrize("command", [RUN, ["model"]])
def test_a_directory_as_store_is_one_line_and_exit_2(tmp_path, capsys, command):
    code, err = _uabench(capsys, tmp_path, *command)
    assert code == 2 and f"results store {tmp_path} is a directory" in _one_line(err)


def test_a_store_under_a_file_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    code, err = _uabench(capsys, tmp_path / "file" / "s.sqlite", *RUN)
    assert code == 2 and f"{tmp_path / 'file'} is not a directory" in _one_line(err)


def test_a_newer_store_stops_run_before_anything_runs(tmp_path, capsys):
    path = _stored_store(tmp_path / "future.sqlite")
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    code, err = _uabench(capsys, path, *RUN)
    assert code == 2 and f"has schema version {SCHEMA_VERSION + 1}" in _one_line(err)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


@pytest.mark.parametrize("mode", ["delete", "wal"])
def test_reading_commands_keep_the_journal_mode_and_write_nothing(tmp_path, capsys, mode):
    (tmp_path / "store").mkdir()
    path = tmp_path / "store" / "s.sqlite"
    version0_store(path)  # real runs with their provenance, which a report needs
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA journal_mode={mode}")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    other = tmp_path / "other.sqlite"  # compare takes two stores (one against itself is refused)
    other.write_bytes(path.read_bytes())
    _uabench(capsys, path, "model")  # fits nothing here; it only has to read
    _uabench(capsys, path, "predict", "--sdk", "open62541", "--signals", "10", "--interval-ms", "100")
    assert _uabench(capsys, path, "report", "--out", str(tmp_path / "report"))[0] == 0
    assert _uabench(capsys, path, "compare", str(path), str(other), "--out", str(tmp_path / "compare"))[0] == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["s.sqlite"]
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == mode


@pytest.fixture
def locked(tmp_path):
    """A store, and a second connection holding its write lock until released."""
    path = _stored_store(tmp_path / "s.sqlite")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    yield path, holder
    holder.close()


def test_a_locked_store_stops_run_after_the_stated_bound(short_locks, locked, capsys):
    path, _ = locked
    started = time.monotonic()
    code, err = _uabench(capsys, path, *RUN)
    assert code == 2 and f"results store {path} is locked by another writer for more than 2 s" in _one_line(err)
    assert time.monotonic() - started >= 1.5


CELL = dict(suite="read", kind="interop", client="a", server="b", variant="v", status="pass")


def test_a_cell_meeting_a_lock_is_kept_and_written_with_the_next(short_locks, tmp_path):
    path = _stored_store(tmp_path / "s.sqlite")
    store = open_store(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    assert store.add_cell(1, repetition=1, **CELL) is None and len(store.pending) == 1
    # read back meanwhile as it will be stored (a run's later test reads its earlier cells)
    waiting = store.cells([1], "read")[-1]
    assert waiting["id"] is None and waiting["repetition"] == 1 and waiting["reason"] is None
    assert store.cells([2]) == [] and store.cells([1], "write") == []
    holder.execute("ROLLBACK")
    assert store.add_cell(1, repetition=2, **CELL) is not None and not store.pending
    assert [cell["repetition"] for cell in store.cells([1])] == [0, 1, 2]
    store.close()
    holder.close()


def test_closing_a_run_waits_for_a_lock_that_ends(short_locks, tmp_path):
    path = _stored_store(tmp_path / "s.sqlite")
    store = open_store(path)
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    assert store.add_cell(1, repetition=1, **CELL) is None
    threading.Timer(0.8, lambda: holder.execute("ROLLBACK")).start()
    store.finish_run(1)
    assert [cell["repetition"] for cell in store.cells([1])] == [0, 1]
    store.close()
    holder.close()


def test_cells_locked_out_beyond_the_bound_are_one_line_and_no_second_copy(short_locks, tmp_path):
    """The store keeps no spill file of its own: the writer's spool (results.spool) is the one
    place a refused cell survives, and the writer's line names it (tests/test_faults_store.py)."""
    path = _stored_store(tmp_path / "s.sqlite")
    store = open_store(path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    assert store.add_cell(1, repetition=1, **CELL) is None
    with pytest.raises(StoreError) as refused:
        store.finish_run(1)
    message = str(refused.value)
    assert message.startswith(f"results store {path}: 1 measured cell(s) not written (database is locked)")
    assert "\n" not in message and not store.pending
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]  # the rollback journal: no -wal, no -shm
    assert not list(Path(tempfile.gettempdir()).glob(f"s.sqlite.unwritten-{os.getpid()}*"))
    holder.close()
    store.close()


def test_a_store_damaged_beyond_its_header_is_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "damaged.sqlite"
    store = open_store(path)
    run = store.begin_run("read", "smoke", {})
    for repetition in range(200):
        store.add_cell(run, repetition=repetition, result={"pad": "x" * 500}, **CELL)
    store.close()
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=DELETE")
    data = bytearray(path.read_bytes())
    data[8192:24576] = bytes(range(256)) * 64  # pages 3 to 6: the cells' b-tree
    path.write_bytes(bytes(data))
    code, err = _uabench(capsys, path, "model")
    assert code == 2 and f"results store {path} is not a valid SQLite database" in _one_line(err)


def test_import_ends_the_run_its_spool_ended_without_calling_it_left_by_a_killed_harness(tmp_path, capsys):
    """Issue 39: a store that failed its run mid-way holds it `running`; `uabench import` of the
    run's spool ends it. Named before the import, that run was called left by a killed harness."""
    from uabench import cli
    from uabench.results import spool

    store_path = tmp_path / "s.sqlite"
    gone = {"harness": {"marker": "1:1.000"}}  # pid 1 did not start at that time: a harness that is gone
    with closing(open_store(store_path)) as store:
        for key, suite in (("k", "read"), ("j", "write")):  # the runs the store took before it failed
            store.add_run(suite, "smoke", time.time_ns(), {**gone, spool.KEY: key}, "running", None)
    written = spool.Spool(tmp_path / "run" / spool.NAME)
    (tmp_path / "run").mkdir()
    written.begin("k", "read", "smoke", gone)
    written.end("k", "interrupted", gone)
    assert cli.main(["--store", str(store_path), "import", str(tmp_path / "run")]) == 0
    said = capsys.readouterr()
    assert "1 already there" in said.out
    # run 1 is ended by the import; run 2, which its spool does not hold, is still named
    assert "killed harness left: run 2 (write) still running" in said.err and "run 1" not in said.err
    with closing(open_store(store_path, readonly=True)) as store:
        assert [run["status"] for run in store.runs()] == ["interrupted", "running"]


def test_a_compressed_store_is_read_in_memory_and_refused_for_writing(tmp_path):
    import lzma

    path = tmp_path / "s.sqlite"
    writer = open_store(path)
    run = writer.begin_run("read", "quick", {})
    writer.add_cell(run, suite="read", kind="interop", client="a", server="b", variant="v", repetition=0, status="pass")
    writer.finish_run(run)
    writer.close()
    archive = tmp_path / "s.sqlite.xz"
    archive.write_bytes(lzma.compress(path.read_bytes()))
    path.unlink()

    reader = open_store(archive, readonly=True)
    assert [cell["server"] for cell in reader.cells()] == ["b"]
    with pytest.raises(StoreError, match="not writable"):
        reader.begin_run("read", "quick", {})
    reader.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite.xz"]  # nothing written beside it
    with pytest.raises(StoreError, match="compressed archive, read-only"):
        open_store(archive)


def test_a_corrupt_compressed_store_is_a_one_line_error(tmp_path):
    import lzma

    (tmp_path / "x.sqlite.xz").write_bytes(b"not xz")
    with pytest.raises(StoreError, match="not a valid xz archive"):
        open_store(tmp_path / "x.sqlite.xz", readonly=True)
    (tmp_path / "y.sqlite.xz").write_bytes(lzma.compress(b"not sqlite" * 100))
    with pytest.raises(StoreError, match="x.sqlite.xz|y.sqlite.xz"):
        open_store(tmp_path / "y.sqlite.xz", readonly=True).cells()
