"""`uabench compare`: the verdict rules on chosen repetitions, the command on stores written
through the real Store API (so that each verdict is known to occur), its errors, and the
committed reference store compared with itself (real measurements: nothing may differ)."""

import pytest

from uabench import plan, sdks
from uabench.engine.cells import CellSpec
from uabench.engine.session import Session
from uabench.report import comparison
from uabench.results import compare
from uabench.results.kinds import CellKind
from uabench.results.store import open_store


@pytest.fixture(scope="module")
def two_real_runs(tmp_path_factory):
    """Two short runs of the read ranking variant on this machine, each in its own store: the
    open62541 load generator against an open62541 and an asyncua server, three repetitions each."""
    directory = tmp_path_factory.mktemp("compare")
    read = plan.load("read")
    variant = next(v for v in read.throughput if v.name == read.ranking)
    client = sdks.get("open62541")
    stores = []
    for name in ("a", "b"):
        store = open_store(directory / f"{name}.sqlite")
        session = Session(store, "read", "smoke", workdir=directory / name, plan=read)
        try:
            for repetition in range(3):
                for server in ("open62541", "asyncua"):
                    workload = dict(variant.workload, warmup_s=0.3, duration_s=0.5)
                    outcome = session.cell(
                        CellSpec(CellKind.THROUGHPUT, client, sdks.get(server), variant.name, repetition, workload),
                        warm=False,
                    )
                    assert outcome.status == "pass", outcome.reason
        finally:
            session.close()
        store.close()
        stores.append(str(directory / f"{name}.sqlite"))
    return stores


def test_two_real_runs_of_one_plan_do_not_differ(two_real_runs):
    """The issue's reproducibility test in small: every figure same or inconclusive (three
    repetitions cannot show a change to the rank test, so a verdict of faster or slower here is a
    fault in the comparison), every figure found on both sides, the rankings agree."""
    a, b = (compare.load_side(store) for store in two_real_runs)
    report, found, disagreements = comparison.document(a, b)
    assert {c.key[2] for c in found} == {"open62541", "asyncua"}
    assert {c.verdict for c in found} <= {compare.SAME, compare.INCONCLUSIVE}, [c.reason for c in found]
    assert all(c.change is not None and c.change.n == 3 for c in found)
    assert disagreements == []
