import pytest

from uabench.results.store import StoreError, open_store


def test_cells_are_stored_and_read_back(tmp_path):
    store = open_store(f"sqlite://{tmp_path}/s.sqlite")
    run = store.begin_run("read", "quick", {"machine": {"fingerprint": "x"}})
    store.add_cell(run, suite="read", kind="interop", client="a", server="b", variant="v", repetition=0,
                   status="pass", result={"values": 3}, client_bound=True)
    store.finish_run(run)
    store.close()
    again = open_store(tmp_path / "s.sqlite")
    [cell] = again.cells([run])
    assert cell["result"] == {"values": 3} and cell["client_bound"] is True
    assert again.runs()[0]["status"] == "finished"


def test_unknown_store_scheme_is_refused(tmp_path):
    with pytest.raises(StoreError, match="postgres"):
        open_store("postgres://host/db")
