"""What an unstable figure's note gives as evidence: pauses inside its repetitions (from the
clients' timelines) and the host's share (what the servers of a block had in common)."""

import pytest

from uabench.report.summary import explained
from uabench.results import figures

STEADY = [1000] * 10


def cell(values, server="node-opcua", block=0, warmup_s=0.3, window_ms=100, run_id=1):
    return {
        "run_id": run_id,
        "kind": "throughput",
        "status": "pass",
        "variant": "100 nodes/request",
        "server": server,
        "client": "open62541",
        "parameter": None,
        "repetition": block,
        "client_config": {"warmup_s": warmup_s},
        "result": {
            "throughput": {"values_per_s": sum(values[3:]) * 1000 / window_ms / len(values[3:]), "ops_per_s": 1.0},
            "timeline": {"window_ms": window_ms, "values": values},
        },
        "client_resources": None,
        "server_resources": None,
        "client_bound": False,
    }


def test_pauses_count_measured_windows_below_half_their_median():
    paused = [1000, 1000, 1000, *[1000] * 6, 300, 1000, 200, 1000]  # two pauses after the warm-up
    found = figures.pauses([cell(paused), cell([100, 100, 100, *[1000] * 10], block=1)])  # slow warm-up only
    assert (found.windows, found.of, found.repetitions) == (2, 20, 1)
    assert figures.pauses([cell([1000] * 13), cell([950, 1050] * 6 + [1000])]) is None  # noise is no pause


def _points(values_by_server):
    cells = [
        cell([1000] * 3 + [v / 10] * 10, server=server, block=block)
        for server, values in values_by_server.items()
        for block, v in enumerate(values)
    ]
    return figures.points(cells, "throughput")


def test_the_host_share_divides_out_what_a_block_had_in_common():
    together = {  # block 2 slows every server down alike
        "a": [1000, 1010, 800, 990, 1005],
        "b": [2000, 2020, 1600, 1980, 2010],
        "c": [500, 505, 400, 495, 502],
    }
    points = _points(together)
    host = figures.host_cv(points)
    assert all(host[p.server] < 0.3 * p.throughput.cv for p in points)
    alone = {"a": [1000, 1010, 800, 990, 1005], "b": [2000, 2020, 2000, 1980, 2010], "c": [500, 505, 500, 495, 502]}
    points = _points(alone)
    a = next(p for p in points if p.server == "a")
    assert figures.host_cv(points)["a"] == pytest.approx(a.throughput.cv, rel=0.2)  # a's own dip stays


def test_an_unstable_note_names_its_evidence_and_a_stable_one_none():
    points = _points({"a": [1000, 1010, 800, 990, 1005], "b": [2000, 2020, 1600, 1980, 2010], "c": [500] * 5})
    a = next(p for p in points if p.server == "a")
    note = explained("Unstable: the repetitions vary by 8.9 % (CV above 5 %).", a, 0.01)
    assert "the host's" in note and note.endswith(".") and ".;" not in note
    assert explained("Unstable: x.", a, a.throughput.cv) == "Unstable: x."  # the host explains nothing
    assert explained(None, a, 0.0) is None


def test_a_client_bound_figure_ranks_as_a_lower_bound():
    """The load generator's limit: the server did at least this much, so a server measured below
    it ranks after it, and one whose interval reaches above it may rank either side."""
    from uabench.report import uncertainty
    from uabench.results import ranking

    values = {"bound": [3000, 3010, 2990, 3005, 2995], "slow": [1000, 1010, 990, 1005, 995]}
    values["close"] = [3100, 3110, 3090, 3105, 3095]
    cells = [
        cell([1000] * 3 + [v / 10] * 10, server=server, block=block)
        for server, series in values.items()
        for block, v in enumerate(series)
    ]
    for c in cells:
        c["client_bound"] = c["server"] == "bound"
    standing, _ = uncertainty.standings(figures.points(cells, "throughput"), ranking.Noise(0.35, "test"))
    assert (standing["bound"].rank.low, standing["bound"].rank.high) == (1, 2)  # "close" may be above or below
    assert (standing["slow"].rank.low, standing["slow"].rank.high) == (3, 3)
    assert standing["bound"].cell().detail == uncertainty.LOWER_BOUND


def probe_cell(ops_per_s, block, variant="100 nodes/request", kind="throughput"):
    return {
        "run_id": 1,
        "kind": "host-probe",
        "status": "pass",
        "variant": variant,
        "server": "host",
        "client": "host",
        "parameter": kind,
        "repetition": block,
        "result": {"tool": "perf bench sched pipe", "ops_per_s": ops_per_s, "seconds": 0.8, "loops": 1, "cpus": [0]},
    }


def test_the_host_probe_is_read_per_comparison_and_named_as_evidence_only_beyond_the_headline_limit():
    """The probe of a ranking's blocks (its variant and kind): one that varied beyond the headline
    CV limit is named in an unstable figure's note; a steady one is not, and another ranking's
    probe or a failed one is not read."""
    noisy = [probe_cell(v, b) for b, v in enumerate([100_000, 80_000, 120_000, 95_000, 105_000])]
    other = [probe_cell(1.0, b, variant="1 node/request") for b in range(3)]
    failed = {**probe_cell(1.0, 9), "status": "fail", "result": None}
    found = figures.host_probe([*noisy, *other, failed], "100 nodes/request", "throughput")
    assert found is not None
    estimate, tool = found
    assert estimate.n == 5 and estimate.cv == pytest.approx(0.146, abs=0.01) and tool == "perf bench sched pipe"
    assert figures.host_probe(noisy, "100 nodes/request", "sweep") is None
    points = _points({"a": [1000, 1010, 800, 990, 1005], "b": [2000, 2020, 2000, 1980, 2010], "c": [500] * 5})
    a = next(p for p in points if p.server == "a")
    note = explained("Unstable: x.", a, None, estimate)
    assert "the host probe of the same blocks varied by 14.6 % itself" in note
    steady = figures.host_probe([probe_cell(100_000 + b, b) for b in range(5)], "100 nodes/request", "throughput")
    assert steady is not None and explained("Unstable: x.", a, None, steady[0]) == "Unstable: x."
