"""The unit lane's guard (tests/unit/conftest.py): a unit test that starts a process or binds,
connects or listens on a socket fails, with a message that names the call."""

import asyncio
import os
import socket
import subprocess
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

GUARD = Path(__file__).with_name("conftest.py")


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: subprocess.run(["true"]), id="subprocess.run"),
        pytest.param(lambda: subprocess.Popen(["true"]), id="subprocess.Popen"),
        pytest.param(lambda: os.system("true"), id="os.system"),
        pytest.param(lambda: os.fork(), id="os.fork"),
        pytest.param(lambda: os.posix_spawn("/bin/true", ["true"], os.environ), id="os.posix_spawn"),
        pytest.param(lambda: os.posix_spawnp("true", ["true"], os.environ), id="os.posix_spawnp"),
        pytest.param(lambda: asyncio.run(asyncio.create_subprocess_exec("true")), id="asyncio-exec"),
        pytest.param(lambda: asyncio.run(asyncio.create_subprocess_shell("true")), id="asyncio-shell"),
    ],
)
def test_a_process_is_refused(unit_guard, call):
    with pytest.raises(AssertionError, match="a unit test called .*move the test to tests/integration"):
        call()
    assert unit_guard.violations
    unit_guard.violations.clear()  # caught on purpose: this test passes


@pytest.mark.parametrize("method", ["bind", "connect", "connect_ex", "listen"])
def test_a_socket_is_refused(unit_guard, method):
    with socket.socket() as sock:
        args = () if method == "listen" else (("127.0.0.1", 0),)
        with pytest.raises(AssertionError, match=f"a unit test called socket.{method}"):
            getattr(sock, method)(*args)
    assert unit_guard.violations
    unit_guard.violations.clear()


def test_a_faulty_unit_test_fails_even_when_it_catches_the_error(pytester: pytest.Pytester):
    """The guard in a pytest run of its own: the tests that start a process or open a socket
    fail with the guard's message (one of them swallows the error), the sound one passes."""
    pytester.makeconftest(GUARD.read_text())
    pytester.makepyfile(
        test_faulty="""
        import socket, subprocess

        def test_spawns():
            subprocess.run(["true"])

        def test_swallows():
            try:
                subprocess.check_output(["true"])
            except Exception:
                pass

        def test_binds():
            socket.socket().bind(("127.0.0.1", 0))

        def test_sound():
            assert sum([1, 2]) == 3
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(["*a unit test called Popen.__init__*", "*a unit test called socket.bind*"])


def test_a_wider_fixture_that_starts_a_process_fails_its_tests(pytester: pytest.Pytester):
    """A module- or session-scoped fixture of a unit test is guarded while it is set up."""
    pytester.makeconftest(GUARD.read_text())
    pytester.makepyfile(
        test_faulty="""
        import subprocess
        import pytest

        @pytest.fixture(scope="module")
        def served():
            return subprocess.run(["true"])

        def test_uses_it(served):
            assert served
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*a unit test called Popen.__init__*"])
