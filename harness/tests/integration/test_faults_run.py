"""The fault suite of `uabench run` (issue 13): a stop signal and a SIGKILL of the harness
while a faulty server (fixtures/faulty/wedged: never ready, leaves a child that does not exec)
keeps it waiting, after a real cell was measured. Each test runs the real CLI against a
checkout with the real reference SDK and the faulty adapter, and asserts the exact outcome:
the exit status, the run's status, the cells kept, the line printed and no process left."""

from __future__ import annotations

import contextlib
import os
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
from helpers import REFERENCE

from uabench import paths
from uabench.proc.sampling import PerfStat

# one real cell against the reference server, then the faulty server: it never gets ready; a
# signal then must stop the write plan too (it would measure one cell)
TESTS = [
    *(f"{REFERENCE} reads {server}: every node type, 1 node/request" for server in (REFERENCE, "wedged")),
    f"{REFERENCE} writes {REFERENCE}: 10 nodes/request",
]


@pytest.fixture
def fault_repo(tmp_path) -> Iterator[Path]:
    if not (paths.ADAPTERS / REFERENCE / "run").exists():
        pytest.skip(f"the reference SDK {REFERENCE} is not built here")
    repo = tmp_path / "repo"
    for part in ("implementations", "adapters"):
        (repo / part).mkdir(parents=True)
        (repo / part / REFERENCE).symlink_to(paths.REPO / part / REFERENCE)
    for faulty in ("wedged", "dying"):
        for part, name in (("implementations", "sdk.toml"), ("adapters", "run")):
            (repo / part / faulty).mkdir()
            shutil.copy(FAULTY_ADAPTERS / faulty / name, repo / part / faulty)
    shutil.copytree(paths.SUITES, repo / "suites")
    yield repo
    # a test that failed may have left what it was to prove gone: kill what this checkout started
    for process in [p for p in psutil.process_iter() if _environ(p).get("UABENCH_REPO") == str(repo)]:
        with contextlib.suppress(psutil.Error):
            process.kill()


def _marked_by_repo(repo: Path) -> list[str]:
    """The live processes started from this checkout."""
    return _alive([p for p in psutil.process_iter() if _environ(p).get("UABENCH_REPO") == str(repo)])


def _environ(process: psutil.Process) -> dict[str, str]:
    try:
        return process.environ()
    except psutil.Error:
        return {}


def _uabench(repo: Path, store: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "UABENCH_REPO": str(repo), "UABENCH_RESULTS": str(repo / "results")}
    env.pop("UABENCH_HARNESS", None)
    command = [sys.executable, "-m", "uabench.cli", "--store", str(store), *args]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _run(
    repo: Path, store: Path, faulty: str = "wedged", plans: tuple[str, ...] = ("read", "write")
) -> subprocess.Popen:
    selection = [part for name in TESTS for part in ("--test", name.replace("wedged", faulty))]
    return _uabench(repo, store, "run", *plans, "--profile", "smoke", "--sdk", f"{REFERENCE},{faulty}", *selection)


def _marked(pid: int) -> list[psutil.Process]:
    """Every process carrying the marker of the harness `pid` (proc/launcher.py)."""
    return [p for p in psutil.process_iter() if _environ(p).get("UABENCH_HARNESS", "").startswith(f"{pid}:")]


def _alive(processes: list[psutil.Process]) -> list[str]:
    names = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                names.append(" ".join(process.cmdline()))
        except psutil.Error:
            continue
    return names


def _command(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def _wait_for_wedged_server(harness: subprocess.Popen, seconds: float = 60) -> dict[psutil.Process, str]:
    """The harness's processes and their command lines once the faulty server runs (the real
    cell is then stored)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert harness.poll() is None, harness.communicate()
        found = {process: _command(process) for process in _marked(harness.pid)}
        if "sleep 1001" in found.values() and "sleep 1000" in found.values():
            return found
        time.sleep(0.1)
    harness.kill()
    raise AssertionError(f"the faulty server did not start within {seconds} s: {harness.communicate()}")


def _runs(store: Path) -> list[tuple[int, str, int]]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return db.execute(
            "SELECT id, status, (SELECT count(*) FROM cells WHERE run_id = runs.id) FROM runs ORDER BY id"
        ).fetchall()


def _wait_gone(processes: list[psutil.Process], seconds: float) -> list[str]:
    deadline = time.monotonic() + seconds
    while _alive(processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _alive(processes)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_stop_signal_stops_the_run_keeps_its_cells_and_exits_130(fault_repo, tmp_path, sig):
    store = tmp_path / "store.sqlite"
    harness = _run(fault_repo, store)
    started = _wait_for_wedged_server(harness)
    harness.send_signal(sig)
    out, err = harness.communicate(timeout=30)
    assert harness.returncode == 130, out[-2000:] + err[-2000:]
    # the real cell kept, the one cut not stored, the write plan never started
    assert _runs(store) == [(1, "interrupted", 1)]
    assert f"uabench: stopped by {sig.name}: kept 1 run(s) (id 1, stored as interrupted) with 1 measured" in err
    # the fault repo is no git checkout: its runs are said to be measured by uncommitted code
    said = [line for line in err.splitlines() if not line.startswith("uabench: warning: the measured code")]
    assert "Robot output" in out and "report" not in "\n".join(said).replace("no report written", "")
    assert _wait_gone(list(started), 5) == []  # adapters, perf and the faulty server's own child


def test_sigkill_of_the_harness_leaves_nothing_and_the_next_run_marks_it_abandoned(fault_repo, tmp_path):
    store = tmp_path / "store.sqlite"
    harness = _run(fault_repo, store, plans=("read",))
    started = _wait_for_wedged_server(harness)
    harness.kill()
    harness.communicate(timeout=30)
    # the adapters and perf die with the harness (PR_SET_PDEATHSIG) ...
    assert {command.split()[0] for command in started.values()} >= {"sleep"} | (
        {"perf"} if PerfStat.available() else set()
    )
    assert _wait_gone([p for p, command in started.items() if command != "sleep 1000"], 5) == []
    # ... the faulty server's child that did not exec is left, and the next run removes it
    orphan = [p for p, command in started.items() if command == "sleep 1000"]
    assert _alive(orphan) == ["sleep 1000"]
    assert _runs(store) == [(1, "running", 1)]
    nothing = ["--test", "no such test"]
    after = _uabench(fault_repo, store, "run", "read", "--profile", "smoke", "--sdk", REFERENCE, *nothing)
    _, err = after.communicate(timeout=120)
    line = next(line for line in err.splitlines() if line.startswith("uabench: a killed harness left: "))
    # (other leftovers of this machine may be named too: other processes, never the run's)
    assert line.startswith("uabench: a killed harness left: run 1 (read) still running, now abandoned; "), err
    assert f"{orphan[0].pid} (sleep)" in line.partition("process(es), killed: ")[2], err
    assert _runs(store)[0] == (1, "abandoned", 1)
    assert _wait_gone(orphan, 5) == []


def test_reports_take_the_newest_finished_run_and_name_the_runs_skipped(tmp_path):
    from uabench.results import runs
    from uabench.results.store import open_store

    store = open_store(tmp_path / "store.sqlite")
    statuses = {"read": ["finished", "interrupted", "abandoned"], "write": ["failed"], "check": ["running"]}
    for suite, ended in statuses.items():
        for status in ended:
            store.finish_run(store.begin_run(suite, "smoke", {}), status)
    chosen, skipped = runs.latest_finished(store)
    assert [run["id"] for run in chosen] == [1]
    assert runs.note(skipped) == (
        "skipped runs that did not finish: 2 (read, interrupted), 3 (read, abandoned), 4 (write, failed)"
    )
    store.close()
    # the report of a store whose only run was interrupted: the run named, nothing rendered
    cut = open_store(tmp_path / "cut.sqlite")
    cut.finish_run(cut.begin_run("read", "smoke", {}), "interrupted")
    cut.close()
    env = {**os.environ, "UABENCH_RESULTS": str(tmp_path)}
    command = [sys.executable, "-m", "uabench.cli", "--store", str(tmp_path / "cut.sqlite"), "report"]
    done = subprocess.run([*command, "--out", str(tmp_path / "r")], env=env, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (
        2,
        f"uabench: {tmp_path / 'cut.sqlite'}: skipped runs that did not finish: 1 (read, interrupted)\n"
        f"uabench: error: no finished runs in the store {tmp_path / 'cut.sqlite'}\n",
    )
    assert not (tmp_path / "r").exists()


def test_a_server_that_dies_once_ready_fails_its_cell_and_the_run_finishes(fault_repo, tmp_path):
    store = tmp_path / "store.sqlite"
    out, err = _run(fault_repo, store, faulty="dying", plans=("read",)).communicate(timeout=120)
    assert _runs(store) == [(1, "finished", 2)], out[-2000:] + err[-2000:]
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        cells = db.execute("SELECT server, status, reason FROM cells ORDER BY id").fetchall()
    assert sorted(cell[:2] for cell in cells) == [("dying", "fail"), (REFERENCE, "pass")]
    reason = next(cell[2] for cell in cells if cell[0] == "dying")
    assert reason.startswith("dying server exited with status 3 during the run\n")
    assert "dying: exits before serving anything" in reason  # its stderr, quoted
    assert _marked_by_repo(fault_repo) == []


def test_a_stop_signal_while_a_cell_is_stored_takes_effect_once_it_is_stored():
    script = """
import os, signal
from uabench.proc import cleanup
cleanup.install()
try:
    with cleanup.signals_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        print("stored", flush=True)
    print("went on", flush=True)
except KeyboardInterrupt:
    print("interrupted after the block", cleanup.received() == signal.SIGINT, flush=True)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines() == ["stored", "interrupted after the block True"], done.stderr


# --- what a killed harness left: every invocation sees it, one that runs anything removes it --

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("ip") is None, reason="network namespaces need root and iproute2"
)

# A stand-in harness: marked as `uabench run` marks itself, one host (namespace and bridge) and a
# child of its own that would outlive it (no PR_SET_PDEATHSIG, its own session)
HARNESS = """
import subprocess, sys, time
from uabench.proc import cleanup, launcher, netns
cleanup.install()
launcher.mark_harness()
hosts = netns.Hosts(1).up()
child = subprocess.Popen(["sleep", "1002"], start_new_session=True)
print(child.pid, hosts.names[0], hosts.bridge, flush=True)
time.sleep(600)
"""


def _harness() -> tuple[subprocess.Popen, int, str, str]:
    env = {key: value for key, value in os.environ.items() if key != "UABENCH_HARNESS"}
    started = subprocess.Popen([sys.executable, "-c", HARNESS], stdout=subprocess.PIPE, text=True, env=env)
    pid, namespace, bridge = started.stdout.readline().split()
    return started, int(pid), namespace, bridge


def _cli(store: Path, *args: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "UABENCH_HARNESS"}
    command = [sys.executable, "-m", "uabench.cli", "--store", str(store), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def _leftover_line(stderr: str) -> str:
    return next((line for line in stderr.splitlines() if line.startswith("uabench: a killed harness left: ")), "")


@needs_root
def test_any_invocation_names_what_a_killed_harness_left_and_one_that_runs_anything_removes_it(tmp_path):
    from uabench.proc import netns

    killed, orphan, namespace, bridge = _harness()
    left = psutil.Process(orphan)
    live, live_child, live_namespace, live_bridge = _harness()  # a concurrent run: never touched
    try:
        killed.kill()
        killed.wait(timeout=10)
        store = tmp_path / "none.sqlite"
        # read-only: named, nothing removed, the command's own outcome unchanged
        report = _cli(store, "report", "--out", str(tmp_path / "r"))
        line = _leftover_line(report.stderr)
        assert f"{orphan} (sleep)" in line and namespace in line and bridge in line, report.stderr
        assert live_namespace not in line and f"{live_child} (" not in line
        assert psutil.pid_exists(orphan) and namespace in netns.namespaces()
        assert report.returncode == 2 and report.stderr.endswith(f"uabench: error: no results store at {store}\n")
        # `check` (here refused for want of SDKs, after the cleanup) removes them
        check = _cli(store, "check")
        line = _leftover_line(check.stderr)
        assert f"process(es), killed: {orphan} (sleep)" in line, check.stderr
        assert "network namespaces, bridges and cgroups, removed: " in line and namespace in line and bridge in line
        assert check.returncode == 2 and check.stderr.endswith("uabench check: name SDKs or pass --all (not both)\n")
        assert _wait_gone([left], 5) == []
        assert namespace not in netns.namespaces() and bridge not in netns.bridges()
        # the live harness's namespace, bridge and child are its own still
        assert live_namespace in netns.namespaces() and live_bridge in netns.bridges()
        assert psutil.pid_exists(live_child)
    finally:
        for process in (killed, live):
            process.kill()
        with contextlib.suppress(psutil.Error):
            psutil.Process(live_child).kill()
        netns.remove_stale()
        live.wait(timeout=10)
        netns.remove_stale()
    assert live_namespace not in netns.namespaces()


def test_check_and_run_refuse_the_cores_the_other_holds(fault_repo, tmp_path):
    """Two overlapping invocations on the same cores: the second, a check or a run, is refused
    with one line and exit 2 while the first one still runs."""
    store = tmp_path / "store.sqlite"
    env = {"UABENCH_REPO": str(fault_repo), "UABENCH_RESULTS": str(fault_repo / "results")}
    harness = _run(fault_repo, store)
    _wait_for_wedged_server(harness)
    try:
        check = subprocess.run(
            [sys.executable, "-m", "uabench.cli", "--store", str(store), "check", REFERENCE],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        harness.kill()
        harness.communicate(timeout=30)
    assert check.returncode == 2, check.stdout[-2000:] + check.stderr[-2000:]
    refusal = [line for line in check.stderr.splitlines() if not line.startswith("uabench: a killed harness left")]
    assert len(refusal) == 1 and refusal[0].startswith("uabench: error: CPU "), check.stderr
    assert "already in use by another uabench run (pid " in refusal[0] and f"store {store}" in refusal[0]
    # the other way round: a check that holds the cores (its faulty server never gets ready)
    checking = _uabench(fault_repo, tmp_path / "other.sqlite", "check", "wedged")
    try:
        _wait_for_wedged_server(checking)
        run = _run(fault_repo, tmp_path / "third.sqlite", plans=("read",))
        out, err = run.communicate(timeout=60)
    finally:
        checking.kill()
        checking.communicate(timeout=30)
    refusal = [line for line in err.splitlines() if not line.startswith("uabench: a killed harness left")]
    assert run.returncode == 2 and len(refusal) == 1, out[-2000:] + err[-2000:]
    assert "already in use by another uabench run (pid " in refusal[0] and "uabench check" in refusal[0]
    assert not (tmp_path / "third.sqlite").exists() or _runs(tmp_path / "third.sqlite") == []


@needs_root
def test_only_namespaces_and_bridges_of_an_ended_harness_are_stale():
    """Ownership is proved by pid and start time: a pid now taken by another process (here: this
    one, with a start time that is not its own) is an ended harness; this process's own hosts
    and names without a marker (made by hand, or by an older uabench) are not."""
    from uabench.proc import launcher, netns

    own = netns.owner_token(launcher.harness_marker())
    reused = f"{os.getpid()}-1000"  # this pid, but a harness that started in 1970
    names = [
        f"uabench-{reused}-t1h0",
        f"uabench-{reused}-pia1b2c3",  # a killed remote check's Pi (checks/fixtures/pi_namespace.py)
        f"uabench-{own}-t1h0",
        f"uabench-{own}-pia1b2c3",
        "uabench-999999-t1h0",
        "uabench-by-hand",
    ]
    bridges = {"ubrhtest1": f"{netns.BRIDGE_ALIAS}{reused}", "ubrhtest2": f"{netns.BRIDGE_ALIAS}{own}"}
    try:
        for name in names:
            subprocess.run(["ip", "netns", "add", name], check=True, timeout=30)
        for bridge, alias in bridges.items():
            subprocess.run(["ip", "link", "add", bridge, "type", "bridge"], check=True, timeout=30)
            subprocess.run(["ip", "link", "set", "dev", bridge, "alias", alias], check=True, timeout=30)
        assert set(netns.stale()) >= {("netns", names[0]), ("netns", names[1]), ("bridge", "ubrhtest1")}
        assert not {name for _, name in netns.stale()} & {*names[2:], "ubrhtest2"}
    finally:
        for name in names:
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)
        for bridge in bridges:
            subprocess.run(["ip", "link", "del", bridge], capture_output=True, timeout=30)
