"""Ctrl-C while the console script still imports the harness: one line and 130, no traceback."""

import importlib.abc
import os
import signal
import sys

import pytest

from uabench import entry


class _Interrupting(importlib.abc.MetaPathFinder):
    """Stands for a Ctrl-C that arrives while `uabench.cli` is being imported."""

    def find_spec(self, name, path=None, target=None):
        if name == "uabench.cli":
            raise KeyboardInterrupt
        return None


def test_ctrl_c_during_the_imports_is_one_line_and_130(monkeypatch, capsys):
    monkeypatch.delitem(sys.modules, "uabench.cli", raising=False)
    monkeypatch.delattr(sys.modules["uabench"], "cli", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Interrupting(), *sys.meta_path])
    assert entry.main() == 130
    assert capsys.readouterr().err == "uabench: interrupted while starting; nothing was run\n"


class _Terminating(importlib.abc.MetaPathFinder):
    """Stands for a SIGTERM (or SIGHUP) that arrives while `uabench.cli` is being imported."""

    def __init__(self, sig) -> None:
        self.sig = sig

    def find_spec(self, name, path=None, target=None):
        if name == "uabench.cli":
            os.kill(os.getpid(), self.sig)
        return None


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_or_sighup_during_the_imports_is_one_line_and_130(monkeypatch, capsys, sig):
    """Issue 39: SIGTERM or SIGHUP as `uabench run` started killed it silently (143, 129)."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    monkeypatch.delitem(sys.modules, "uabench.cli", raising=False)
    monkeypatch.delattr(sys.modules["uabench"], "cli", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Terminating(sig), *sys.meta_path])
    try:
        assert entry.main() == 130
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
    assert capsys.readouterr().err == "uabench: interrupted while starting; nothing was run\n"
