"""uabench opens only a store it made: another program's SQLite database is refused in one line
and left as it was (issue 39)."""

import sqlite3
from contextlib import closing

import pytest
from helpers import version0_store

from uabench.results.store import APPLICATION_ID, StoreError, open_store


def _foreign(path, application_id: int = 0):
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        db.execute(f"PRAGMA application_id = {application_id}")
    db.close()
    return path


def _tables(path) -> set[str]:
    with sqlite3.connect(path) as db:
        found = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    db.close()
    return found


@pytest.mark.parametrize("readonly", [False, True])
def test_another_programs_database_is_refused_and_untouched(tmp_path, readonly):
    path = _foreign(tmp_path / "other.sqlite")
    with pytest.raises(StoreError, match=r"another program's SQLite database \(tables invoices\)"):
        open_store(path, readonly=readonly)
    assert _tables(path) == {"invoices"}


def test_a_database_marked_by_another_program_is_refused(tmp_path):
    path = tmp_path / "marked.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA application_id = 1234")
    db.close()
    with pytest.raises(StoreError, match=r"application_id 0x4d2"):
        open_store(path)


def test_a_new_store_is_marked_and_an_older_unmarked_one_still_opens(tmp_path):
    made = open_store(tmp_path / "new.sqlite")
    assert made.db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    made.close()
    older = open_store(version0_store(tmp_path / "v0.sqlite"), readonly=True)
    assert older.runs()
    older.close()


def test_a_store_is_in_the_rollback_journal_while_it_runs_and_after(tmp_path):
    """No -shm mapped into memory while a run writes (issue 39: SIGBUS when it became read-only),
    none left beside the store after."""
    path = tmp_path / "s.sqlite"
    store = open_store(path)
    store.finish_run(store.begin_run("read", "smoke", {}))
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # while it runs
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]


def test_the_committed_reference_store_is_in_the_rollback_journal():
    from helpers.report import REFERENCE

    with sqlite3.connect(f"{(REFERENCE / 'uabench.sqlite').as_uri()}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


def test_a_store_an_older_uabench_left_in_wal_mode_is_written_in_the_rollback_journal(tmp_path):
    path = tmp_path / "s.sqlite"
    open_store(path).close()
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    store = open_store(path)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    store.close()


def test_a_schema_cut_short_leaves_an_empty_file_the_next_command_makes_anew(tmp_path, monkeypatch):
    """Issue 39: SIGTERM as a run started left a store of half its tables (the schema was written
    statement by statement), refused from then on ("no such table: cells"). The schema is one
    transaction now: a statement that fails in it (as a kill would cut it) leaves no table."""
    from uabench.results import store as store_module

    path = tmp_path / "s.sqlite"
    monkeypatch.setattr(store_module, "SCHEMA", store_module.SCHEMA + "\nCREATE TABLE runs (x);\n")
    with pytest.raises(StoreError, match="already exists"):
        open_store(path)
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []
    monkeypatch.undo()
    made = open_store(path)
    assert made.runs() == []
    made.close()


def test_an_empty_file_reads_as_no_store_yet_and_a_run_estimates_without_it(tmp_path):
    """Any SQLite client that merely connects leaves an empty file (test-full's writer-lock test
    peeked so as a run started): a reader said "cannot be used: no such table: runs" and `run`
    stopped before its first cell. A reader now says nothing is stored yet, the run's estimate
    goes without earlier runs, and the writer makes the store in that file."""
    from uabench import cli

    path = tmp_path / "s.sqlite"
    sqlite3.connect(path).close()
    assert path.exists() and path.stat().st_size == 0
    with pytest.raises(StoreError, match=r"no results store at .*s\.sqlite yet: the file is empty"):
        open_store(path, readonly=True)
    assert cli._earlier_runs(str(path)) == []
    made = open_store(path)
    assert made.runs() == []
    made.close()
    reader = open_store(path, readonly=True)
    assert reader.runs() == []
    reader.close()
