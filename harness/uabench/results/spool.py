"""The spool of a run: every measured cell as one JSON line in the run's directory, flushed and
fsync'd before the cell goes to the store. A store that is locked beyond its bound, read-only
or incompatible then loses nothing: `uabench import RUN_DIR` loads the spool into a store later.

A spool holds the runs of one run directory (several plans, one session each). Its records:
- {"record": "run", "key", "suite", "profile", "started_ns", "provenance"} when a session starts,
- {"record": "cell", "run": key, "cell": {...the store's cell columns, created_ns}} per cell,
- {"record": "end", "run": key, "status", "finished_ns", "provenance"[, "store"]} when it ends;
  "store" is the store's error line when the store refused cells of the run (its status is then
  still the run's own: the spool holds every cell, and an import stores the run as it ended).

A run is found again in a store by its key (kept in its provenance as "spool_key"), a cell by
its run and its (kind, client, server, variant, parameter, repetition, created_ns): importing
twice, or a spool whose cells partly reached the store, adds each cell once.

Written by hand (a few lines of JSON): an append-only line file with fsync is all it needs,
and a database library would bring back the very locks the spool is there to survive."""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uabench.results.store import JSON_COLUMNS, Store, StoreError

NAME = "cells.jsonl"
KEY = "spool_key"  # the provenance field holding a run's spool key
# the run status of a run the spool saw start but never end (its harness died)
UNENDED = "abandoned"
# the fields of a spooled cell: the store's cell columns but its id and run
CELL_KEY = ("kind", "client", "server", "variant", "repetition", "created_ns")
CELL_FIELDS = {
    *CELL_KEY,
    *JSON_COLUMNS,
    *("suite", "parameter", "status", "reason", "config_hash", "client_bound", "emulated"),
}


class SpoolError(ValueError):
    """A spool that cannot be written or read: one line naming the file (and line)."""


def new_key() -> str:
    return uuid.uuid4().hex


@dataclass
class Spool:
    path: Path

    def append(self, record: dict[str, Any]) -> None:
        """One record, on disk (flushed and fsync'd) when this returns."""
        line = json.dumps(record, separators=(",", ":")) + "\n"  # as the store writes its JSON columns
        try:
            with self.path.open("a", encoding="utf-8") as out:
                out.write(line)
                out.flush()
                os.fsync(out.fileno())
        except (OSError, ValueError) as error:
            raise SpoolError(f"spool {self.path} cannot be written: {error}") from None

    def begin(self, key: str, suite: str, profile: str, provenance: dict) -> None:
        self.append(
            {
                "record": "run",
                "key": key,
                "suite": suite,
                "profile": profile,
                "started_ns": time.time_ns(),
                "provenance": provenance,
            }
        )

    def cell(self, key: str, cell: dict) -> None:
        self.append({"record": "cell", "run": key, "cell": cell})

    def end(self, key: str, status: str, provenance: dict, store: str | None = None) -> None:
        ended = {"record": "end", "run": key, "status": status, "finished_ns": time.time_ns()}
        self.append(ended | {"provenance": provenance} | ({"store": store} if store else {}))


# The store refusals of this process's sessions, (run directory, line): `uabench run` runs Robot in
# its own process and ends with them as one line and exit 2 (refusal), not as a test's failure.
_refusals: list[tuple[Path, str]] = []


def refused(workdir: Path, line: str) -> None:
    _refusals.append((workdir, line))


def refusal(run_dir: Path) -> StoreError | None:
    """The one line for the store refusals of the runs under `run_dir`: the first refusal and
    the import command that loads the spools of them all."""
    ours = [(workdir, line) for workdir, line in _refusals if workdir.is_relative_to(run_dir)]
    if not ours:
        return None
    dirs = {workdir for workdir, _ in ours}
    more = f" ({len(ours)} runs refused)" if len(ours) > 1 else ""
    return refusal_of(dirs.pop() if len(dirs) == 1 else run_dir, ours[0][1] + more)


def refusal_of(where: Path, line: str) -> StoreError:
    """The store's line with the spool that holds the refused cells and the command to load it."""
    return StoreError(f"{line}; every measured cell is in the spool of {where}: `uabench import {where}` loads it")


@dataclass
class SpooledRun:
    key: str
    suite: str
    profile: str
    started_ns: int
    provenance: dict
    status: str = UNENDED
    finished_ns: int | None = None
    cells: list[dict] = field(default_factory=list)


@dataclass
class Loaded:
    runs: list[SpooledRun]
    torn: bool  # the last line was cut short (the harness died while writing it)


def locate(path: Path) -> list[Path]:
    """The spool files of a run directory (its own, or those of its plans' directories, as
    `uabench run` makes them), or the file itself."""
    if path.is_file():
        return [path]
    found = [path / NAME] if (path / NAME).is_file() else sorted(path.glob(f"*/{NAME}"))
    if not found:
        raise SpoolError(f"no spool at {path}: name a run directory (it or its plans' directories hold {NAME})")
    return found


def load(path: Path) -> Loaded:
    """Every run of the spools of `path` with its cells, all read before anything is imported."""
    files = locate(path)
    loaded = [_load_file(spool) for spool in files]
    runs = [run for one in loaded for run in one.runs]
    if not runs:
        raise SpoolError(f"spool {', '.join(map(str, files))} holds no run")
    return Loaded(runs, any(one.torn for one in loaded))


def check_kinds(loaded: Loaded, kinds: frozenset[str]) -> None:
    """A spool whose cells have a kind outside `kinds` (uabench.plan.cell_kinds) is not imported
    at all: its figures would sit under a kind that no section reads, and a later commit that
    names the kind would take them for its own."""
    unknown = sorted({cell["kind"] for run in loaded.runs for cell in run.cells} - kinds)
    if unknown:
        raise SpoolError(
            f"the spool holds cells of kinds no suite of this checkout records: {', '.join(map(repr, unknown))}; "
            "nothing imported (import it with the commit that recorded it)"
        )


def _load_file(spool: Path) -> Loaded:
    """A last line without its newline is a write the harness did not finish (no cell was
    stored from it): skipped and said; any other line that is not a spool record is an error
    naming it."""
    try:
        text = spool.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SpoolError(f"spool {spool} cannot be read: {error}") from None
    lines = text.split("\n")
    torn = lines[-1] != ""
    runs: dict[str, SpooledRun] = {}
    for number, line in enumerate(lines[:-1], start=1):
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise TypeError("not a JSON object")
            _take(runs, record)
        except KeyError as error:
            raise SpoolError(f"spool {spool} line {number} is not a spool record: it lacks {error}") from None
        except (ValueError, TypeError) as error:
            raise SpoolError(f"spool {spool} line {number} is not a spool record: {error}") from None
    return Loaded(list(runs.values()), torn)


def _take(runs: dict[str, SpooledRun], record: dict) -> None:
    kind = record["record"]
    if kind in ("cell", "end") and record["run"] not in runs:
        raise ValueError(f"its run {record['run']!r} has no run record before it")
    if kind == "run":
        runs[record["key"]] = SpooledRun(
            record["key"], record["suite"], record["profile"], int(record["started_ns"]), dict(record["provenance"])
        )
    elif kind == "cell":
        runs[record["run"]].cells.append(_cell(record["cell"]))
    elif kind == "end":
        run = runs[record["run"]]
        run.status, run.finished_ns = str(record["status"]), int(record["finished_ns"])
        run.provenance = dict(record["provenance"])
    else:
        raise ValueError(f"unknown record {kind!r}")


def _cell(cell: object) -> dict:
    """A spooled cell the store can take: an object with its key and only the store's columns."""
    if not isinstance(cell, dict):
        raise TypeError("its cell is not an object")
    missing = [name for name in (*CELL_KEY, "suite", "status") if name not in cell]
    unknown = sorted(set(cell) - CELL_FIELDS)
    if missing or unknown:
        raise ValueError(f"its cell lacks {missing}" if missing else f"its cell has unknown fields {unknown}")
    if not isinstance(cell["created_ns"], int) or not isinstance(cell["repetition"], int):
        raise TypeError("its cell's created_ns and repetition must be integers")
    return cell


@dataclass
class Imported:
    runs_added: int = 0
    runs_present: int = 0
    cells_added: int = 0
    cells_present: int = 0
    torn: bool = False


def import_into(store: Store, loaded: Loaded) -> Imported:
    """Loads a spool (read whole by `load` first) into `store`: a run not there yet is added
    with its provenance and status; a run there that never ended takes the spool's end; a cell
    is added unless already there."""
    done = Imported(torn=loaded.torn)
    for run in loaded.runs:
        provenance = {**run.provenance, KEY: run.key}
        run_id = store.run_by_key(KEY, run.key)
        if run_id is None:
            run_id = store.add_run(run.suite, run.profile, run.started_ns, provenance, run.status, run.finished_ns)
            done.runs_added += 1
        else:
            done.runs_present += 1
            if run.status != UNENDED:
                store.end_unended_run(run_id, run.status, run.finished_ns, provenance)
        for cell in run.cells:
            if store.has_cell(run_id, cell):
                done.cells_present += 1
            else:
                store.add_cell(run_id, **cell)
                done.cells_added += 1
    return done
