"""The fault suite, part two (issue 13 items 5 and 7): an adapter that breaks the line protocol
fails its cell with what it printed quoted, and two runs at once neither share a directory
nor the cores. Every test runs the real CLI against a checkout with the real reference SDK
and the faulty clients of fixtures/faulty/protocol (the reference client, its stdout spoilt)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from helpers import FAULTY as FAULTY_ADAPTERS

from integration.test_faults_run import REFERENCE, _alive, _environ, _marked, _marked_by_repo, _runs, _uabench
from uabench import paths
from uabench.proc import lock

FAULTY = ("chatty", "truncated", "mistyped")


CELL = "every node type, 1 node/request"


@pytest.fixture
def protocol_repo(tmp_path, monkeypatch) -> Iterator[Path]:
    if not (paths.ADAPTERS / REFERENCE / "run").exists():
        pytest.skip(f"the reference SDK {REFERENCE} is not built here")
    # a lock directory of the test's own: no other uabench run on this machine refuses these
    monkeypatch.setenv("UABENCH_LOCK_DIR", str(tmp_path / "locks"))
    repo = tmp_path / "repo"
    for part in ("implementations", "adapters"):
        (repo / part).mkdir(parents=True)
        (repo / part / REFERENCE).symlink_to(paths.REPO / part / REFERENCE)
    for faulty in FAULTY:
        for part, name in (("implementations", "sdk.toml"), ("adapters", "run")):
            (repo / part / faulty).mkdir()
            shutil.copy(FAULTY_ADAPTERS / faulty / name, repo / part / faulty)  # the run script, not its link
    shutil.copytree(paths.SUITES, repo / "suites")
    yield repo
    left = _marked_by_repo(repo)  # nothing any run of the test started is left ...
    for process in [p for p in psutil.process_iter() if _environ(p).get("UABENCH_REPO") == str(repo)]:
        with contextlib.suppress(psutil.Error):  # ... and if it is, the test fails without leaving it
            process.kill()
    assert left == []


def _cells(store: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return db.execute("SELECT client, server, status, reason FROM cells ORDER BY id").fetchall()


def _read(repo: Path, store: Path, client: str, server: str = REFERENCE) -> subprocess.Popen:
    test = f"{client} reads {server}: {CELL}"
    sdks = ",".join(dict.fromkeys((REFERENCE, client, server)))
    return _uabench(repo, store, "run", "read", "--profile", "smoke", "--sdk", sdks, "--test", test)


REASONS = {
    "chatty": re.escape(
        "chatty client broke the protocol: 2 stdout line(s) that are not contract JSON events: "
        "'connecting to the server ...'; '*** chatty client v0 ***'"
    )
    + r"\Z",
    "chatty server": re.escape(
        "chatty server broke the protocol: 2 stdout line(s) that are not contract JSON events: "
        "'connecting to the server ...'; '*** chatty server v0 ***'"
    )
    + r"\Z",
    "truncated": re.escape(
        "truncated client broke the protocol: 1 stdout line(s) that are not contract JSON events: "
        """'{"event":"result","""
    )
    + r"[^\n]*'\ntruncated-client-\d+: exited with status 0 before result/error\Z",
    "mistyped": re.escape(
        "the result record breaks the contract: $.operations.attempted: 'many' is not of type 'integer'; "
        'the record: {"event": "result", '
    )
    + r".*\"attempted\": \"many\".*\Z",
}


@pytest.mark.parametrize("client,server", [*((c, REFERENCE) for c in FAULTY), (REFERENCE, "chatty")])
def test_an_adapter_that_breaks_the_protocol_fails_its_cell_with_the_lines_quoted(
    protocol_repo, tmp_path, client, server
):
    store = tmp_path / "store.sqlite"
    out, err = _read(protocol_repo, store, client, server).communicate(timeout=120)
    assert "1 test, 0 passed, 1 failed" in out, out[-2000:] + err[-2000:]
    assert _runs(store)[0][1] == "finished"
    # stored, not dropped (the same cell of the reference against itself passes: the next test)
    [(stored_client, stored_server, status, reason)] = _cells(store)
    assert (stored_client, stored_server, status) == (client, server, "fail")
    expected = REASONS[client if server == REFERENCE else f"{server} server"]
    assert re.match(expected, reason, re.DOTALL), reason


def test_two_runs_at_once_the_second_refused_with_one_line(protocol_repo, tmp_path):
    stores = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    first = _read(protocol_repo, stores[0], REFERENCE)
    deadline = time.monotonic() + 60
    while not _alive(_marked(first.pid)):  # its adapters run: it holds the cores
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.1)
    first.send_signal(signal.SIGSTOP)  # held while the second starts, however slowly (the lock stays held)
    try:
        second = _read(protocol_repo, stores[1], REFERENCE)
        out, err = second.communicate(timeout=60)
    finally:
        first.send_signal(signal.SIGCONT)
    cores = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    assert (second.returncode, err) == (
        2,
        f"uabench: error: CPU {cores} already in use by another uabench run (pid {first.pid}, store {stores[0]}): "
        "runs on the same cores disturb each other's measurements; wait for it to end or start this one on other "
        "cores (taskset -c LIST uabench run ...)\n",
    )
    assert not stores[1].exists()  # refused before it touched anything
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, out[-2000:] + err[-2000:]
    assert _runs(stores[0]) == [(1, "finished", _runs(stores[0])[0][2])]
    # the cores are free again once the first run ended
    again = _read(protocol_repo, stores[1], REFERENCE)
    again_out, again_err = again.communicate(timeout=120)
    assert again.returncode == 0, again_out[-2000:] + again_err[-2000:]
    # each run its own directory with its own certificates (the refused one made none)
    certificates = [d / "read" / "pki" / "server.der" for d in (protocol_repo / "results" / "runs").iterdir()]
    assert len(certificates) == 2 and certificates[0].read_bytes() != certificates[1].read_bytes()


def test_a_lock_dies_with_its_holder_even_on_sigkill(tmp_path, monkeypatch):
    monkeypatch.setenv("UABENCH_LOCK_DIR", str(tmp_path))
    holder = subprocess.Popen(
        [sys.executable, "-c", "from uabench.proc import lock; lock.claim({0}, 'holder'); print(flush=True); input()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout and holder.stdout.readline() == "\n"  # it holds core 0
    with pytest.raises(lock.CoresTaken, match=rf"^CPU 0 already in use by another uabench run \(pid {holder.pid}, "):
        lock.claim({0, 1}, "second")
    assert lock._held == {}  # refused: it holds neither core, not even the free one
    holder.kill()
    holder.wait()
    lock.claim({0, 1}, "second")
    assert sorted(lock._held) == [0, 1]
    lock.release()
