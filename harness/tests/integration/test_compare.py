"""`uabench compare` on real runs, in small (issue 38): two runs of one pair on this machine (A/A)
and a third with one server handicapped by a known amount (A/B, engine/handicap.py: a cgroup CPU
quota). The comparison must see the handicap as "slower", with an interval that holds the size of
the handicap, where it is, and nowhere else: a compare that cannot fail on a real change would
pass this only by luck."""

import pytest

from uabench import plan, sdks
from uabench.engine import handicap
from uabench.engine.cells import CellSpec
from uabench.engine.session import Session
from uabench.proc import hostprobe
from uabench.report import comparison
from uabench.results import compare
from uabench.results.kinds import CellKind
from uabench.results.store import open_store

REPETITIONS = 8  # this VM's 1-s windows vary by up to ±20 %: 8 against 8 keep the intervals apart from ±30 %
SHARE = 0.7  # the handicapped server's share of its CPU: 30 % slower where it is CPU-bound
SLOWED = "asyncua"  # one Python process, CPU-bound under the ranking load: its rate follows its CPU


def _run(directory, name: str) -> str:
    """One short run of the read ranking variant: the open62541 load generator against the
    open62541 and the asyncua server, in interleaved blocks (Session.cell), in a store of its own."""
    read = plan.load("read")
    variant = next(v for v in read.throughput if v.name == read.ranking)
    client = sdks.get("open62541")
    store = open_store(directory / f"{name}.sqlite")
    session = Session(store, "read", "smoke", workdir=directory / name, plan=read)
    probe = hostprobe.HostProbe(1.0, session.server_cpus)  # the machine's speed after each block, as a ranking's
    try:
        for block in range(REPETITIONS):
            for server in ("open62541", SLOWED) if block % 2 else (SLOWED, "open62541"):
                workload = dict(variant.workload, warmup_s=0.3, duration_s=1.0)
                spec = CellSpec(CellKind.THROUGHPUT, client, sdks.get(server), variant.name, block, workload)
                outcome = session.cell(spec)  # each server warmed to steady state before its first cell
                assert outcome.status == "pass", outcome.reason
            session.probe_host(probe, variant.name, block, CellKind.THROUGHPUT)
    finally:
        session.close()
        store.close()
    return str(directory / f"{name}.sqlite")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("compare")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(handicap.VARIABLE, raising=False)
        plain = [_run(directory, name) for name in ("a", "b")]
        patch.setenv(handicap.VARIABLE, f"{SLOWED}={SHARE}")
        slowed = _run(directory, "handicapped")
    return plain, slowed


def _verdicts(a: str, b: str) -> dict[str, compare.Comparison]:
    sides = [compare.load_side(store) for store in (a, b)]
    _, found, disagreements = comparison.document(*sides)
    assert disagreements == []
    return {c.key[2]: c for c in found if c.key[1].startswith("values/s,")}


# the three runs of the module's fixture (8 blocks of two servers warmed up, and the probe) are
# made in its first test's setup: the lane's 120 s do not hold them on a loaded machine
@pytest.mark.timeout(420)
def test_two_runs_of_one_pair_call_nothing_faster_or_slower(runs):
    (a, b), _ = runs
    found = _verdicts(a, b)
    assert set(found) == {"open62541", SLOWED}
    assert all(c.change is not None and c.change.n == REPETITIONS for c in found.values())
    assert {c.verdict for c in found.values()} <= {compare.SAME, compare.INCONCLUSIVE}, [
        c.reason for c in found.values()
    ]


@pytest.mark.timeout(420)
def test_a_server_handicapped_by_30_percent_is_slower_by_about_that_and_the_other_is_not(runs):
    (a, _), slowed = runs
    found = _verdicts(a, slowed)
    hit = found[SLOWED]
    assert hit.verdict == compare.SLOWER, hit.reason
    # a CFS quota throttles in 100 ms periods: a server with requests in flight loses at least its
    # share, often more (−54 % [−65, −30] for 70 % on 28 Nov); never less than half of it
    assert hit.change is not None and hit.change.low <= (SHARE - 1) / 2, hit.reason
    assert found["open62541"].verdict in (compare.SAME, compare.INCONCLUSIVE), found["open62541"].reason
    warning = comparison.document(*(compare.load_side(s) for s in (a, slowed)))[0].sections[0].warning or ""
    assert f"{SLOWED}'s server limited to 70% of its CPU" in warning
