import hashlib
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

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


# A store of schema version 0: the first reference store, cut down to a ranking and a security
# sweep (the committed reference store is of the current version).
VERSION_0 = Path(__file__).parent / "data" / "store-v0.sqlite"


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
    shutil.copy(VERSION_0, copy)  # never the committed file itself
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
