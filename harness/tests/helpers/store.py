"""What tests/unit/test_store.py and tests/integration/test_store.py share."""

from pathlib import Path

import pytest

from uabench.results import store as store_module
from uabench.results.store import open_store

RUN = ["run", "read", "--profile", "smoke", "--sdk", "open62541"]


def _uabench(capsys, store, *argv) -> tuple[int, str]:
    from uabench import cli

    code = cli.main(["--store", str(store), *argv])
    return code, capsys.readouterr().err


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _stored_store(path: Path) -> Path:
    store = open_store(path)
    run = store.begin_run("read", "smoke", {})
    store.add_cell(run, suite="read", kind="interop", client="a", server="b", variant="v", repetition=0, status="pass")
    store.finish_run(run)
    store.close()
    return path


@pytest.fixture
def short_locks(monkeypatch):
    """A cell's wait for the store's lock and the bound of a run's wait, short (a test's seconds)."""
    monkeypatch.setattr(store_module, "CELL_WAIT_S", 0.3)
    monkeypatch.setattr(store_module, "LOCK_BOUND_S", 1.5)
