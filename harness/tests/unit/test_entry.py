"""Ctrl-C while the console script still imports the harness: one line and 130, no traceback."""

import importlib.abc
import sys

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
