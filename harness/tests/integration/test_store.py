import os
import shutil
import sqlite3
import subprocess
import threading
import time
from contextlib import closing

import pytest
from helpers.store import RUN, _one_line, _stored_store, _uabench

from uabench.results import store as store_module
from uabench.results.store import open_store


@pytest.fixture
def read_only_dir(tmp_path):
    """A directory nobody can write to: a read-only tmpfs for root (root writes through file
    modes), file modes for anyone else. Yields a function that seals it."""
    target = tmp_path / "sealed"
    target.mkdir()
    mounted = False

    def seal() -> None:
        nonlocal mounted
        if os.geteuid() != 0:
            for path in [*target.iterdir(), target]:
                path.chmod(0o555 if path.is_dir() else 0o444)
            return
        staged = tmp_path / "staged"
        target.rename(staged)
        target.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(target)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs to make a read-only store as root: {done.stderr.decode().strip()}")
        mounted = True
        for path in staged.iterdir():
            shutil.copy(path, target / path.name)
        subprocess.run(["mount", "-o", "remount,ro", str(target)], check=True)

    yield target, seal
    if mounted:
        # lazy: a connection still open (a failed run) must not keep the mount behind
        subprocess.run(["umount", "--lazy", str(target)], check=True)
    else:
        for path in [target, *target.iterdir()]:
            path.chmod(0o755)


def test_a_read_only_store_is_refused_by_run_and_read_by_report(read_only_dir, capsys):
    directory, seal = read_only_dir
    path = _stored_store(directory / "s.sqlite")
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA journal_mode=DELETE")  # as committed: a rollback journal
    seal()
    code, err = _uabench(capsys, path, *RUN)
    assert code == 2 and f"results store {path} is not writable" in _one_line(err)
    reader = open_store(path, readonly=True)
    assert len(reader.cells()) == 1
    reader.close()
    assert sorted(p.name for p in directory.iterdir()) == ["s.sqlite"]


def test_a_run_keeps_the_cells_measured_while_another_writer_holds_the_store(short_locks, tmp_path, monkeypatch):
    """A real `uabench run`: a second writer takes the store's lock once the first cell is in
    and holds it for 8 s (beyond a cell's wait); the cells measured meanwhile are kept and
    written afterwards, none lost."""
    from robot.api import ExecutionResult

    from uabench import cli, paths

    monkeypatch.setattr(store_module, "LOCK_BOUND_S", 30.0)
    monkeypatch.setattr(paths, "RESULTS", tmp_path)
    path = tmp_path / "s.sqlite"
    window: list[int] = []

    def hold() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.05)
            try:
                with closing(sqlite3.connect(path, timeout=0.1)) as peek:
                    if peek.execute("SELECT count(*) FROM cells").fetchone()[0]:
                        break
            except sqlite3.Error:
                continue
        with closing(sqlite3.connect(path, isolation_level=None, timeout=10)) as holder:
            holder.execute("BEGIN IMMEDIATE")
            window.append(time.time_ns())
            time.sleep(8)  # longer than the next interop cells take on a busy machine
            window.append(time.time_ns())
            holder.execute("ROLLBACK")

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    # four interop cells (2 x 2 pairs): the lock is taken after the first and outlasts the next
    argv = ["--store", str(path), "run", "read", "--profile", "smoke", "--sdk", "open62541,python-opcua"]
    argv += ["--include", "interop"]
    assert cli.main(argv) == 0
    holder.join(timeout=15)
    assert len(window) == 2, "the lock was never taken"
    (run_dir,) = (tmp_path / "runs").iterdir()
    tests = ExecutionResult(str(run_dir / "output.xml")).suite.test_count
    store = open_store(path, readonly=True)
    cells = store.cells()
    assert len(cells) == tests and store.runs()[0]["status"] == "finished"
    assert any(window[0] <= cell["created_ns"] <= window[1] for cell in cells), "no cell met the lock"
