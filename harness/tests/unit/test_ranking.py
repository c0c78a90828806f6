"""The rank rule (results/ranking.py) and the margins it orders beyond (results/margins.noise):
pairs ordered only beyond the margin, ranks as intervals, ties where the rule cannot order,
inversions between two rankings, the stated default against a machine's own A/A margin, and the
figures of the committed reference ranked by it."""

import math

import pytest

from uabench.results import margins, ranking, stats

NOISE = ranking.Noise(0.35, "test")


def _ratio(center, low, high):
    return stats.Estimate(center, low, high, 5, None, (), "paired")


def _rank(values: dict[str, tuple[float, float, float]], noise=NOISE, higher_is_better=True):
    """Servers by a figure (center, low, high); each pair's ratio interval from the two intervals."""

    def ratio(a, b):
        (ca, la, ha), (cb, lb, hb) = values[a], values[b]
        return _ratio(ca / cb, la / hb, ha / lb)

    return ranking.rank(values, ratio, noise, higher_is_better)


def test_a_pair_is_ordered_only_where_its_ratio_lies_wholly_beyond_the_margin():
    assert ranking.order(_ratio(2.0, 1.4, 2.5), 0.35) == ranking.ABOVE
    assert ranking.order(_ratio(0.5, 0.4, 0.7), 0.35) == ranking.BELOW
    # clearly above 1, but its interval reaches into what re-running does: not ordered
    assert ranking.order(_ratio(1.3, 1.2, 1.4), 0.35) == ranking.NOT_ORDERED
    # the same margin either way round: 1 / 1.35 = 0.74
    assert ranking.order(_ratio(0.7, 0.65, 0.75), 0.35) == ranking.NOT_ORDERED
    assert ranking.order(_ratio(0.7, 0.65, 0.73), 0.35) == ranking.BELOW
    assert ranking.order(None, 0.35) == ranking.NOT_ORDERED
    assert ranking.order(_ratio(9.0, -math.inf, math.inf), 0.35) == ranking.NOT_ORDERED


def test_ranks_are_intervals_and_what_cannot_be_ordered_shares_them():
    found = _rank(
        {
            "fast": (1000.0, 950.0, 1050.0),
            "mid1": (100.0, 95.0, 105.0),
            "mid2": (120.0, 110.0, 130.0),  # 20 % above mid1: within the margin
            "slow": (10.0, 9.0, 11.0),
        }
    )
    assert found.ranks == {"fast": (1, 1), "mid1": (2, 3), "mid2": (2, 3), "slow": (4, 4)}
    assert (found.ordered, found.pairs) == (5, 6) and ranking.distinct(found) == 3
    assert "orders 5 of its 6 pairs beyond the margin ±35 % (test)" in found.sentence()
    # a cost (an instruction count) ranks lower first
    cost = _rank({"cheap": (10.0, 9.9, 10.1), "dear": (100.0, 99.0, 101.0)}, higher_is_better=False)
    assert cost.ranks == {"cheap": (1, 1), "dear": (2, 2)}


def test_a_chain_of_ties_gives_overlapping_ranks():
    # a ~ b and b ~ c, but a is ordered above c
    found = _rank({"a": (180.0, 175.0, 185.0), "b": (130.0, 125.0, 135.0), "c": (100.0, 95.0, 105.0)})
    assert found.ranks == {"a": (1, 2), "b": (1, 3), "c": (2, 3)}


def test_inversions_are_pairs_ordered_both_ways():
    a = _rank({"x": (100.0, 95.0, 105.0), "y": (300.0, 290.0, 310.0)})
    b = _rank({"x": (300.0, 290.0, 310.0), "y": (100.0, 95.0, 105.0)})
    tie = _rank({"x": (100.0, 95.0, 105.0), "y": (110.0, 100.0, 120.0)})
    assert ranking.inversions(a, b) == [("y", "x")]
    assert ranking.inversions(a, a) == [] and ranking.inversions(a, tie) == []
    assert ranking.ratio_changes(a, b) == [pytest.approx(8.0)]  # x / y went from 1/3 to 3


def _measured(margin):
    found = margins.Margins("m1", "c", "abc", "a", "b", {margins.PAIRS: margins.Margin(margins.PAIRS, margin, 30, 0.5)})
    return found, margins.paths.REPO / "results" / "margins.toml"


def test_the_margin_is_the_stated_default_or_a_noisier_machines_own():
    default = margins.BETWEEN_RUNS[margins.PAIRS]
    unmeasured = margins.noise(margins.PAIRS, None)
    assert unmeasured.margin == default and "stated default" in unmeasured.source
    assert "no A/A pair was measured on this machine" in unmeasured.source
    # a quieter A/A pair minutes apart does not see the spread between days: the default stands
    quiet = margins.noise(margins.PAIRS, _measured(0.2))
    assert quiet.margin == default and "above the ±20 % of the A/A pair in results/margins.toml" in quiet.source
    noisy = margins.noise(margins.PAIRS, _measured(0.6))
    assert noisy.margin == 0.6 and noisy.source == "measured on this machine by the A/A pair in results/margins.toml"
    with pytest.raises(KeyError):
        margins.noise("throughput", None)  # an absolute figure has no stated default


def test_margins_apply_only_on_the_machine_they_were_measured_on(tmp_path):
    path = tmp_path / "margins.toml"
    path.write_text(_measured(0.6)[0].toml())
    broken = tmp_path / "broken.toml"
    broken.write_text("machine = ")
    assert margins.measured_on("m1", (broken, path))[1] == path
    assert margins.measured_on("m2", (broken, path)) is None
    assert margins.measured_on(None, (path,)) is None


def test_the_committed_reference_ranks_read_and_write_with_at_least_four_distinct_ranks(reference):
    """The reference report's rankings by the rule (issue 67, done when): the CV veto of before
    ranked no server of it."""
    _, model, _ = reference
    [table] = model.sections[1].tables
    for suite in ("read", "write"):
        ranks = {r[table.column(f"{suite} rank")].value for r in table.rows} - {None}
        assert len(ranks) >= 4, (suite, ranks)
