"""The unit lane (tests/unit): tests that start no process and open no socket. An autouse guard
makes a unit test that does either fail, naming what it called; such a test belongs in
tests/integration. A test's time limit is its lane's (LANES in tests/conftest.py).

The guard patches the callables below for the test's duration (its function-scoped fixtures
included), and for the set-up of every wider fixture a unit test uses: each raises
UnitGuardError, and a test that catches the error fails in its report. The report's flame
graphs are drawn by inferno, a process of its own: the unit lane draws none (the report says
so, as where inferno is missing), so its outcome does not depend on whether a tool is installed;
tests/integration/test_report.py draws them."""

import _posixsubprocess
import asyncio.base_events
import os
import socket
import subprocess
from collections.abc import Iterator

import pytest

from uabench.engine import orphans
from uabench.proc import cgroups, netns
from uabench.profile import profilers

# what starts a process: subprocess (and asyncio's and multiprocessing's child processes, which
# go through Popen or _posixsubprocess.fork_exec), fork, posix_spawn, system
PROCESS_CALLS = [
    (subprocess.Popen, "__init__"),
    (_posixsubprocess, "fork_exec"),
    (asyncio.base_events.BaseEventLoop, "subprocess_exec"),
    (asyncio.base_events.BaseEventLoop, "subprocess_shell"),
    *((os, name) for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system") if hasattr(os, name)),
]
SOCKET_CALLS = [(socket.socket, name) for name in ("bind", "connect", "connect_ex", "listen")]


class UnitGuardError(AssertionError):
    """A unit test started a process or bound, connected or listened a socket."""


class Guard:
    """What the guard caught in one test (`violations`), failed at the call and again in its report
    (a test that catches the error still fails)."""

    def __init__(self) -> None:
        self.violations: list[str] = []

    def refuse(self, owner: object, name: str):
        what = f"{getattr(owner, '__name__', owner)}.{name}"

        def refused(*args, **kwargs):
            message = (
                f"a unit test called {what}: unit tests start no process and bind, connect or listen "
                "on no socket (tests/unit/conftest.py); move the test to tests/integration"
            )
            self.violations.append(message)
            raise UnitGuardError(message)

        return refused


@pytest.fixture(scope="session", autouse=True)
def no_flame_graphs() -> Iterator[None]:
    """inferno is a process: in the unit lane a report draws no flame graph, wherever the tool is."""

    def not_drawn(_stacks, _title):
        raise OSError("the unit lane draws no flame graph (inferno is a process; tests/integration draws them)")

    patcher = pytest.MonkeyPatch()
    patcher.setattr(profilers, "flamegraph", not_drawn)
    yield
    patcher.undo()


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest):
    """A module- or session-scoped fixture of a unit test is guarded while it is set up (the
    autouse guard covers only the test and its function-scoped fixtures)."""
    if fixturedef.scope == "function":
        yield
        return
    guard, patcher = Guard(), pytest.MonkeyPatch()
    for owner, name in PROCESS_CALLS + SOCKET_CALLS:
        patcher.setattr(owner, name, guard.refuse(owner, name))
    try:
        yield
    finally:
        patcher.undo()


@pytest.fixture(autouse=True)
def no_network_namespaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """The unit lane's host has no namespaces, bridges or processes a killed harness left: every
    `uabench` command looks for them first (cli._leftovers, engine/orphans.py), namespaces with
    `ip`, a process, and cgroups and processes among the machine's, which it would kill: another lane's
    (an integration test's deliberate orphan) must not be reaped by a unit test beside it."""
    monkeypatch.setattr(netns, "stale", lambda: [])
    monkeypatch.setattr(orphans, "left_processes", lambda: [])
    monkeypatch.setattr(cgroups, "stale", lambda: [])


@pytest.fixture(autouse=True)
def unit_guard(
    no_network_namespaces: None, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Guard]:
    """Refuses every call of PROCESS_CALLS and SOCKET_CALLS during the test; the guard, whose
    `violations` a test of the guard itself clears once it has seen the refusal."""
    guard = Guard()
    for owner, name in PROCESS_CALLS + SOCKET_CALLS:
        monkeypatch.setattr(owner, name, guard.refuse(owner, name))
    request.node.unit_guard = guard
    yield guard


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    guard = getattr(item, "unit_guard", None)
    if guard is not None and guard.violations and report.when == "call" and report.passed:
        report.outcome = "failed"
        report.longrepr = "\n".join(dict.fromkeys(guard.violations))
