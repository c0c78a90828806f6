"""The results store. Every cell is committed the moment it is measured, so nothing
measured is lost when a later cell, the harness or the machine fails. Raw adapter records
and resource samples are stored as they came; metrics are derived at report time.

SQLite by default; `open_store` takes a path or an `sqlite:///path` URL so another SQL
backend can be added behind the same interface.

The schema is versioned with `PRAGMA user_version`. A writer migrates an older store when it
opens it (MIGRATIONS, one step per version, each in its own transaction); a reader
(`readonly=True`: report, model, predict) never writes and reads an older store as it is;
a store newer than this harness is refused by both."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

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


class Store:
    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        if readonly:
            if not path.exists():
                raise StoreError(f"no results store at {path}")
            # Without a -wal file nobody is writing and every page is in the file itself:
            # immutable, so reading creates nothing beside it (a committed store stays as it is).
            immutable = "&immutable=1" if not path.with_name(path.name + "-wal").exists() else ""
            self.db = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro{immutable}", uri=True, timeout=30, isolation_level=None
            )
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.version = self._check_version()
        if not readonly:
            self.db.execute("PRAGMA journal_mode=WAL")
            self._migrate()

    def _check_version(self) -> int:
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if version > SCHEMA_VERSION:
            self.db.close()
            raise StoreError(
                f"results store {self.path} has schema version {version}; this uabench supports "
                f"versions up to {SCHEMA_VERSION}: use a newer uabench"
            )
        return version

    def _migrate(self) -> None:
        fresh = self.db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'runs'").fetchone()[0] == 0
        if fresh:
            with self.db:
                self.db.executescript(SCHEMA)
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
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
        self.db.close()

    def begin_run(self, suite: str, profile: str, provenance: dict) -> int:
        cursor = self.db.execute(
            "INSERT INTO runs (suite, profile, started_ns, provenance) VALUES (?, ?, ?, ?)",
            (suite, profile, time.time_ns(), json.dumps(provenance)),
        )
        assert cursor.lastrowid is not None  # an INSERT always sets it
        return cursor.lastrowid

    def update_provenance(self, run_id: int, provenance: dict) -> None:
        self.db.execute("UPDATE runs SET provenance = ? WHERE id = ?", (json.dumps(provenance), run_id))

    def finish_run(self, run_id: int, status: str = "finished") -> None:
        self.db.execute("UPDATE runs SET finished_ns = ?, status = ? WHERE id = ?", (time.time_ns(), status, run_id))

    def add_cell(self, run_id: int, **cell: Any) -> int:
        cell = dict(cell)
        for column in JSON_COLUMNS:
            if column in cell and cell[column] is not None:
                cell[column] = json.dumps(cell[column])
        cell["client_bound"] = int(bool(cell.get("client_bound")))
        cell["emulated"] = int(bool(cell.get("emulated")))
        cell["run_id"] = run_id
        cell["created_ns"] = time.time_ns()
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
        rows = self.db.execute(query + " ORDER BY id", args).fetchall()
        return [dict(row) | {"provenance": json.loads(row["provenance"])} for row in rows]

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
        rows = self.db.execute(f"SELECT * FROM cells{where} ORDER BY id", args).fetchall()
        return [_decode(row) for row in rows]


def _decode(row: sqlite3.Row) -> dict:
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
    text = str(location)
    if "://" in text:
        scheme, _, rest = text.partition("://")
        if scheme != "sqlite":
            raise StoreError(f"store URL scheme '{scheme}' is not supported (use sqlite:///path)")
        text = rest
    return Store(Path(text), readonly)
