"""The results store. Every cell is committed the moment it is measured, so nothing
measured is lost when a later cell, the harness or the machine fails. Raw adapter records
and resource samples are stored as they came; metrics are derived at report time.

SQLite by default; `open_store` takes a path or an `sqlite:///path` URL so another SQL
backend can be added behind the same interface.

The schema is versioned with `PRAGMA user_version`. A writer migrates an older store when it
opens it (MIGRATIONS, one step per version, each in its own transaction); a reader
(`readonly=True`: report, model, predict) never writes and reads an older store as it is;
a store newer than this harness is refused by both.

Whatever is wrong with the file (a directory, not SQLite, not writable for a writer, locked by
another writer beyond LOCK_BOUND_S) is a StoreError of one line naming the store, raised when
the store is opened, so `uabench run` refuses it before the first cell.

Locks: a write waits CELL_WAIT_S for another writer's lock; a cell that still cannot be written
is kept in memory and written before the next write. Closing the run waits up to LOCK_BOUND_S
in all; cells still unwritten then are a StoreError. The store keeps no copy of its own: every
writer (engine.session.Session, used by `run`, which `arm-smoke` runs, and by the checks) has
each cell in its run's spool (results.spool) before it comes here, and `uabench import RUN_DIR`
loads that spool into a store, so the spool is the one way a refused cell survives."""

from __future__ import annotations

import json
import lzma
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from uabench.results.kinds import subject

SCHEMA_VERSION = 1
# PRAGMA application_id of a store uabench made ("uab1"). A store older than the marker has
# none (0) and only uabench's tables; any other database is another program's, and is refused
# rather than given a uabench schema beside its own tables.
APPLICATION_ID = 0x75616231
OWN_TABLES = frozenset({"runs", "cells", "sqlite_sequence"})

# How long one write waits for another writer's lock (SQLite's busy timeout) before a cell is
# kept in memory, and how long opening a store or closing a run waits for it in all.
CELL_WAIT_S = 10.0
LOCK_BOUND_S = 120.0

# The schema of the newest version, for a new store.
SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    suite TEXT NOT NULL,
    profile TEXT NOT NULL,
    started_ns INTEGER NOT NULL,
    finished_ns INTEGER,
    status TEXT NOT NULL DEFAULT 'running',
    provenance TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cells (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    suite TEXT NOT NULL,
    kind TEXT NOT NULL,
    client TEXT NOT NULL,
    server TEXT NOT NULL,
    variant TEXT NOT NULL,
    parameter TEXT,
    repetition INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    config_hash TEXT,
    client_config TEXT,
    server_config TEXT,
    result TEXT,
    client_resources TEXT,
    server_resources TEXT,
    client_perf TEXT,
    server_perf TEXT,
    client_bound INTEGER NOT NULL DEFAULT 0,
    emulated INTEGER NOT NULL DEFAULT 0,
    created_ns INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS cells_by_run ON cells(run_id, suite, kind);
"""


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """0 -> 1: version 0 is every store made before versioning; the columns added during its
    life (perf counters, the emulated mark) are added where missing."""
    have = {row[1] for row in db.execute("PRAGMA table_info(cells)")}
    for column, declaration in LATE_COLUMNS.items():
        if column not in have:
            db.execute(f"ALTER TABLE cells ADD COLUMN {column} {declaration}")
    db.execute("CREATE INDEX IF NOT EXISTS cells_by_run ON cells(run_id, suite, kind)")


# Columns a version-0 store may lack, and what a reader assumes when they are missing.
LATE_COLUMNS = {"client_perf": "TEXT", "server_perf": "TEXT", "emulated": "INTEGER NOT NULL DEFAULT 0"}
LATE_DEFAULTS = {"client_perf": None, "server_perf": None, "emulated": 0}

# MIGRATIONS[n] takes a store from version n to n + 1.
MIGRATIONS = {0: _add_missing_columns}

JSON_COLUMNS = (
    "client_config",
    "server_config",
    "result",
    "client_resources",
    "server_resources",
    "client_perf",
    "server_perf",
)


class StoreError(Exception):
    pass


# The provenance field of a run whose cells this store refused (stored `failed`, its cells in the
# run's spool): the store's error line. An import of that spool ends it as the spool says.
REFUSED = "store_refused"


# A published store is committed compressed (reports/*/…sqlite.xz): xz makes a store about 15
# times smaller, and git's own zlib only about 6 times. The standard library's lzma and SQLite's
# deserialize read it in memory, so reading it writes nothing anywhere.
ARCHIVE_SUFFIX = ".xz"


def _archive(path: Path, readonly: bool) -> sqlite3.Connection:
    """A connection to the database an .xz archive holds, in memory, for reading only."""
    if not readonly:
        raise StoreError(
            f"results store {path} is a compressed archive, read-only: run into a .sqlite store "
            "(--store PATH) and compress it with xz to publish it"
        )
    if not path.exists():
        raise StoreError(f"no results store at {path}")
    try:
        data = lzma.decompress(path.read_bytes())
    except lzma.LZMAError as error:
        raise StoreError(f"results store {path} is not a valid xz archive ({error})") from None
    db = sqlite3.connect(":memory:", isolation_level=None)
    try:
        db.deserialize(data)
    except sqlite3.Error as error:
        db.close()
        raise StoreError(f"results store {path} holds no SQLite database ({error})") from None
    db.execute("PRAGMA query_only = ON")  # a write fails as a read-only store's does
    return db


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    """A connection to the store, or a StoreError naming what is wrong with the path."""
    if path.is_dir():
        raise StoreError(f"results store {path} is a directory, not an SQLite file")
    if path.name.endswith(ARCHIVE_SUFFIX):
        return _archive(path, readonly)
    if readonly:
        if not path.exists():
            raise StoreError(f"no results store at {path}")
        # Without a -wal file nobody is writing and every page is in the file itself:
        # immutable, so reading creates nothing beside it (a committed store stays as it is).
        immutable = "&immutable=1" if not path.with_name(path.name + "-wal").exists() else ""
        location, uri = f"{path.resolve().as_uri()}?mode=ro{immutable}", True
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            raise StoreError(f"results store {path}: {path.parent} is not a directory") from None
        except OSError as error:
            raise StoreError(f"results store {path}: cannot create {path.parent}: {error.strerror}") from None
        location, uri = str(path), False
    try:
        return sqlite3.connect(location, uri=uri, timeout=CELL_WAIT_S, isolation_level=None)
    except sqlite3.Error as error:
        raise StoreError(f"results store {path} cannot be opened: {error}") from None


def _problem(path: Path, error: sqlite3.Error) -> StoreError:
    """The one line for an SQLite error met while opening the store."""
    text = str(error)
    if "not a database" in text or "malformed" in text:
        return StoreError(f"results store {path} is not a valid SQLite database ({text}): corrupt, or another file")
    if "readonly" in text or "read-only" in text:
        return StoreError(f"results store {path} is not writable ({text}): pass --store with a writable path")
    if "locked" in text or "busy" in text:
        return StoreError(f"results store {path} is locked by another writer for more than {LOCK_BOUND_S:.0f} s")
    return StoreError(f"results store {path} cannot be used: {text}")


class Store:
    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        # Cells measured but not yet written because another writer held the lock.
        self.pending: list[dict] = []
        self.db = _connect(path, readonly)
        self.db.row_factory = sqlite3.Row
        try:
            self._check_owner()
            self.version = self._check_version()
            if readonly:
                self._check_made()
            else:
                self._until(LOCK_BOUND_S, self._prepare_writer)
        except StoreError:
            self.db.close()
            raise
        except sqlite3.Error as error:
            self.db.close()
            raise _problem(path, error) from None

    def _prepare_writer(self) -> None:
        self._migrate()
        # A store may open read-only without error (a read-only file or file system): one
        # write that is rolled back finds out now, before anything is measured.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute(f"PRAGMA user_version = {self.version}")
        finally:
            self.db.execute("ROLLBACK")
        # The rollback journal, also while a run writes: in WAL mode SQLite maps the -shm file
        # into memory, and a write through that mapping to a file made immutable or read-only
        # under it (a file system gone read-only) killed the harness with SIGBUS, a cell lost
        # (issue 39). Without a mapping the write fails as an error, and the cell goes to the
        # run's spool. A reader blocks a writer only while it reads, well inside CELL_WAIT_S.
        self.db.execute("PRAGMA journal_mode=DELETE")

    def _until(self, bound_s: float, write: Callable[[], Any]) -> Any:
        """`write` retried while another writer holds the lock, for at most `bound_s`."""
        deadline = time.monotonic() + bound_s
        while True:
            try:
                return write()
            except sqlite3.OperationalError as error:
                if not _locked(error) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.5)

    def _check_owner(self) -> None:
        """A StoreError when the database is not a uabench store (APPLICATION_ID, OWN_TABLES)."""
        marker = int(self.db.execute("PRAGMA application_id").fetchone()[0])
        if marker == APPLICATION_ID:
            return
        if marker != 0:
            raise StoreError(
                f"results store {self.path} is another program's SQLite database (application_id {marker:#x}): "
                "uabench opens only a store it made"
            )
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        foreign = sorted(tables - OWN_TABLES)
        if foreign:
            raise StoreError(
                f"results store {self.path} is another program's SQLite database (tables {', '.join(foreign[:5])}): "
                "uabench opens only a store it made"
            )

    def _check_made(self) -> None:
        """A StoreError when a reader finds a file no writer has made a store in yet (empty, as
        any SQLite client that merely connects leaves it, or a writer's first transaction not
        yet committed): read as it is, every query met "no such table: runs"."""
        if not self.db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]:
            raise StoreError(f"no results store at {self.path} yet: the file is empty, nothing stored in it")

    def _check_version(self) -> int:
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"results store {self.path} has schema version {version}; this uabench supports "
                f"versions up to {SCHEMA_VERSION}: use a newer uabench"
            )
        return version

    def _migrate(self) -> None:
        fresh = self.db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'runs'").fetchone()[0] == 0
        if fresh:
            # one transaction: executescript runs its statements one by one in autocommit, and a
            # harness killed among them (SIGTERM as a run starts) left a store of half its tables
            # that every later command refused ("no such table: cells"); cut short now, the
            # rollback journal takes it back to an empty file, which the next command makes anew
            try:
                self.db.executescript(
                    f"BEGIN IMMEDIATE;\n{SCHEMA}\nPRAGMA user_version = {SCHEMA_VERSION};\n"
                    f"PRAGMA application_id = {APPLICATION_ID};\nCOMMIT;"
                )
            except BaseException:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                raise
            self.version = SCHEMA_VERSION
        while self.version < SCHEMA_VERSION:
            self.db.execute("BEGIN IMMEDIATE")  # one writer migrates; another waits, then sees the new version
            try:
                found = int(self.db.execute("PRAGMA user_version").fetchone()[0])
                if found == self.version:
                    MIGRATIONS[found](self.db)
                    self.db.execute(f"PRAGMA user_version = {found + 1}")
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.version = int(self.db.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        try:
            self._write_pending(LOCK_BOUND_S)
        finally:
            if not self.readonly:
                self._rollback_journal()
            self.db.close()

    def _rollback_journal(self) -> None:
        """A store an older uabench left in WAL mode back in the rollback journal once this
        writer is done (_prepare_writer's switch needs the store to itself: another connection
        still open keeps WAL, and the last writer to close switches it): in WAL mode every later
        reader that is not uabench (sqlite3, a notebook) leaves -wal and -shm files beside it."""
        try:
            self.db.execute("PRAGMA busy_timeout = 0")  # never wait for the others: the last one switches
            self.db.execute("PRAGMA journal_mode=DELETE")
        except sqlite3.Error:
            pass

    def begin_run(self, suite: str, profile: str, provenance: dict) -> int:
        cursor = self._locked_write(
            "INSERT INTO runs (suite, profile, started_ns, provenance) VALUES (?, ?, ?, ?)",
            (suite, profile, time.time_ns(), json.dumps(provenance)),
        )
        assert cursor.lastrowid is not None  # an INSERT always sets it
        return cursor.lastrowid

    def update_provenance(self, run_id: int, provenance: dict) -> None:
        self._locked_write("UPDATE runs SET provenance = ? WHERE id = ?", (json.dumps(provenance), run_id))

    def finish_run(self, run_id: int, status: str = "finished") -> None:
        self._write_pending(LOCK_BOUND_S)
        self._locked_write("UPDATE runs SET finished_ns = ?, status = ? WHERE id = ?", (time.time_ns(), status, run_id))

    def run_by_key(self, field: str, key: str) -> int | None:
        """The run whose provenance holds `key` at `field` (a spool's run key), if any."""
        rows = self._read(f"SELECT id FROM runs WHERE json_extract(provenance, '$.{field}') = ?", (key,))
        return rows[0]["id"] if rows else None

    def add_run(
        self, suite: str, profile: str, started_ns: int, provenance: dict, status: str, finished_ns: int | None
    ) -> int:
        """A run as it was recorded elsewhere (a spool): its own times and status."""
        cursor = self._locked_write(
            "INSERT INTO runs (suite, profile, started_ns, finished_ns, status, provenance) VALUES (?, ?, ?, ?, ?, ?)",
            (suite, profile, started_ns, finished_ns, status, json.dumps(provenance)),
        )
        assert cursor.lastrowid is not None  # an INSERT always sets it
        return cursor.lastrowid

    def end_unended_run(self, run_id: int, status: str, finished_ns: int | None, provenance: dict) -> None:
        """The end a spool saw, for a run the store has as running or abandoned (its harness
        could not write its end here), or as failed because it refused the run's cells
        (REFUSED in its provenance: the spool holds them all)."""
        self._locked_write(
            "UPDATE runs SET finished_ns = ?, status = ?, provenance = ? "
            "WHERE id = ? AND (status IN ('running', 'abandoned') "
            f"OR json_extract(provenance, '$.{REFUSED}') IS NOT NULL)",
            (finished_ns, status, json.dumps(provenance), run_id),
        )

    def has_cell(self, run_id: int, cell: dict) -> bool:
        """A cell of this run with the same key (results.spool) is stored."""
        rows = self._read(
            "SELECT 1 FROM cells WHERE run_id = ? AND created_ns = ? AND kind = ? AND client = ? AND server = ? "
            "AND variant = ? AND parameter IS ? AND repetition = ? LIMIT 1",
            (
                run_id,
                cell["created_ns"],
                cell["kind"],
                cell["client"],
                cell["server"],
                cell["variant"],
                cell.get("parameter"),
                cell["repetition"],
            ),
        )
        return bool(rows)

    def _locked_write(self, sql: str, args: tuple) -> sqlite3.Cursor:
        """A run's own row: waited for up to LOCK_BOUND_S, then one line."""
        try:
            return self._until(LOCK_BOUND_S, lambda: self.db.execute(sql, args))
        except sqlite3.Error as error:
            raise _problem(self.path, error) from None

    def add_cell(self, run_id: int, **cell: Any) -> int | None:
        """The cell's id; None when another writer holds the lock beyond CELL_WAIT_S: the cell
        is then kept in `pending` and written before the next write (or by close)."""
        cell = dict(cell)
        for column in JSON_COLUMNS:
            if column in cell and cell[column] is not None:
                cell[column] = json.dumps(cell[column])
        cell["client_bound"] = int(bool(cell.get("client_bound")))
        cell["emulated"] = int(bool(cell.get("emulated")))
        cell["run_id"] = run_id
        cell.setdefault("created_ns", time.time_ns())  # a spooled cell keeps its own: its key (results.spool)
        self.pending.append(cell)
        try:
            return self._write_pending(0.0)
        except sqlite3.OperationalError as error:
            if not _locked(error):
                raise
            return None

    def _write_pending(self, bound_s: float) -> int | None:
        """Every pending cell, oldest first (each in one transaction: stored whole or not at
        all); the last one's id. After `bound_s` of locks the cells go to a file."""
        last = None
        try:
            while self.pending:
                last = self._until(bound_s, lambda: self._insert(self.pending[0]))
                self.pending.pop(0)
        except sqlite3.Error as error:
            if bound_s == 0.0 and isinstance(error, sqlite3.OperationalError) and _locked(error):
                raise  # add_cell keeps it for the next write
            # dropped here: the writer's spool has them (module docstring), and its error names it
            unwritten, self.pending = len(self.pending), []
            raise StoreError(f"results store {self.path}: {unwritten} measured cell(s) not written ({error})") from None
        return last

    def _insert(self, cell: dict) -> int:
        columns = ", ".join(cell)
        marks = ", ".join("?" for _ in cell)
        with self.db:  # one transaction: a cell is stored whole or not at all
            cursor = self.db.execute(f"INSERT INTO cells ({columns}) VALUES ({marks})", tuple(cell.values()))
        assert cursor.lastrowid is not None  # an INSERT always sets it
        return cursor.lastrowid

    def runs(self, suite: str | None = None) -> list[dict]:
        query, args = "SELECT * FROM runs", tuple[str, ...]()
        if suite:
            query, args = query + " WHERE suite = ?", (suite,)
        rows = self._read(query + " ORDER BY id", args)
        return [dict(row) | {"provenance": json.loads(row["provenance"])} for row in rows]

    def servers(self, run_id: int) -> set[str]:
        """The servers (the peers: servers, publishers) a run's stored cells name."""
        return {row[0] for row in self._read("SELECT DISTINCT server FROM cells WHERE run_id = ?", (run_id,))}

    def subjects(self, run_id: int) -> set[str]:
        """What a run's stored cells measured (results.kinds.subject): servers, and the clients of
        the kinds that measure clients."""
        query = "SELECT DISTINCT kind, server, client FROM cells WHERE run_id = ?"
        return {subject(kind, server, client) for kind, server, client in self._read(query, (run_id,))}

    def measured_versions(self, run_id: int) -> bool:
        """Whether a run measured an SDK at another version than its pinned one (a cell's server
        or client names `sdk@version`: adapters/SPEC.md §1)."""
        query = "SELECT 1 FROM cells WHERE run_id = ? AND (server LIKE '%@%' OR client LIKE '%@%') LIMIT 1"
        return bool(self._read(query, (run_id,)))

    def cells(self, run_ids: list[int] | None = None, suite: str | None = None) -> list[dict]:
        clauses: list[str] = []
        args: list[int | str] = []
        if run_ids is not None:
            clauses.append(f"run_id IN ({', '.join('?' for _ in run_ids)})")
            args.extend(run_ids)
        if suite:
            clauses.append("suite = ?")
            args.append(suite)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        stored = [_decode(row) for row in self._read(f"SELECT * FROM cells{where} ORDER BY id", tuple(args))]
        # cells measured while another writer held the lock are this run's too (a headroom test
        # picks the fastest server of its run's throughput cells): read as they will be stored
        waiting = [
            cell
            for cell in self.pending
            if (run_ids is None or cell["run_id"] in run_ids) and (not suite or cell["suite"] == suite)
        ]
        if waiting:
            columns = dict.fromkeys(row[1] for row in self._read("PRAGMA table_info(cells)", ()))
            stored += [_decode({**columns, **cell}) for cell in waiting]
        return stored

    def _read(self, sql: str, args: tuple) -> list[sqlite3.Row]:
        """Rows, or one line when the file is damaged beyond its header (found only on reading)."""
        try:
            return self.db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as error:
            raise _problem(self.path, error) from None


def _locked(error: sqlite3.OperationalError) -> bool:
    return "locked" in str(error) or "busy" in str(error)


def _decode(row: sqlite3.Row | dict) -> dict:
    cell = dict(row)
    for column in JSON_COLUMNS:
        if cell.get(column):
            cell[column] = json.loads(cell[column])
    for column, default in LATE_DEFAULTS.items():  # an older store read as it is
        cell.setdefault(column, default)
    cell["client_bound"] = bool(cell["client_bound"])
    cell["emulated"] = bool(cell["emulated"])
    return cell


def open_store(location: str | Path, readonly: bool = False) -> Store:
    """The store at a path or sqlite:///path URL; `readonly` for users that only read it."""
    return Store(store_path(location), readonly)


def store_path(location: str | Path) -> Path:
    """The file a path or sqlite:///path URL names."""
    text = str(location)
    if "://" in text:
        scheme, _, rest = text.partition("://")
        if scheme != "sqlite":
            raise StoreError(f"store URL scheme '{scheme}' is not supported (use sqlite:///path)")
        text = rest
    return Path(text)
