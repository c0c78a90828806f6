"""The one judge, the one result check, the load-generator rule and the combination of
several processes' results (engine/cells.py); the cleanup installed by a session, not by an
import. Cells run against real adapters in test_bench.py and test_pubsub.py."""

import signal
import subprocess
import sys

from uabench import paths


def test_importing_the_harness_sets_no_signal_handler_and_starting_a_session_does(tmp_path):
    script = f"""
import signal, sys
sys.path.insert(0, {str(paths.REPO / "harness")!r})
from uabench.engine import pubsub, session
from uabench.robot import library
from uabench.report import files
print(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
from uabench.results.store import open_store
session.Session(open_store({str(tmp_path / "s.sqlite")!r}), "read", "smoke", workdir=__import__("pathlib").Path(
    {str(tmp_path / "run")!r}))
print(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["True", "False"], done.stderr


def test_sigterm_ends_a_session_even_inside_a_runner_that_catches_everything(tmp_path):
    """A test runner guards each test with `except BaseException` (pytest does, for SystemExit):
    SIGTERM must still end the process, after the cleanup, as the signal's default action."""
    script = f"""
import sys, time
sys.path.insert(0, {str(paths.REPO / "harness")!r})
from uabench.engine import session
from uabench.results.store import open_store
session.Session(open_store({str(tmp_path / "s.sqlite")!r}), "read", "smoke", workdir=__import__("pathlib").Path(
    {str(tmp_path / "run")!r}))
for test in range(3):
    try:
        print("test", test, flush=True)
        time.sleep(30)
    except BaseException:
        print("caught", flush=True)
"""
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().split() == ["test", "0"]
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=20) == -signal.SIGTERM
    assert "caught" not in child.stdout.read()
