import math

import pytest
from uabench_contract import Histogram

from uabench.results import stats


def test_summary_over_repetitions_uses_student_t():
    summary = stats.summarize([10.0, 12.0, 14.0])
    assert summary["mean"] == 12.0
    assert math.isclose(summary["std"], 2.0)
    assert math.isclose(summary["ci95"], 4.303 * 2.0 / math.sqrt(3))
    assert math.isclose(summary["cv"], 2.0 / 12.0)


def test_single_repetition_has_no_spread():
    summary = stats.summarize([5.0])
    assert summary["n"] == 1 and summary["std"] is None and summary["ci95"] is None


def test_t_quantiles_fall_back_sensibly():
    assert stats.t95(1) == 12.706
    assert stats.t95(27) == stats.t95(25)
    assert math.isclose(stats.t95(1000), 1.95996, rel_tol=1e-4)


def test_the_p99_interval_covers_the_true_quantile_at_its_confidence():
    """Exponential latencies (true p99: ln(100) × 1 ms): over 200 independent runs of 2,000
    requests, the 95 % interval holds the true p99 in about 95 % of them; an interval that is
    too narrow (e.g. the point estimate alone) or off-centre fails this."""
    import numpy as np

    rng = np.random.default_rng(7)
    true_us = math.log(100) * 1000
    covered, widths = 0, []
    for _ in range(200):
        histogram = Histogram()
        for value in rng.exponential(1e6, 2000):
            histogram.record(int(value))
        low, high = stats.quantile_interval(histogram, 99)
        covered += low <= true_us * 1.004 and high >= true_us  # a bucket is 0.4 % wide
        widths.append((high - low) / true_us)
    assert 0.90 <= covered / 200 <= 0.995
    assert 0.1 < float(np.median(widths)) < 0.6  # ≈ ±3.5 σ of the order statistic at n 2000


def test_the_p99_interval_needs_the_percentile_s_count():
    histogram = Histogram([[1000, 990], [4992, 9]])
    assert stats.quantile_interval(histogram, 99) is None  # 999 < 1000: no p99 at all
    histogram.record(5000)
    # p99 is rank 990 (1 µs); its 95 % interval reaches ranks 983 and 997 (5 µs)
    low, high = stats.quantile_interval(histogram, 99)
    assert low == stats.upper_edge(1000) / 1e3 and high == stats.upper_edge(4992) / 1e3


def test_latency_summary_in_microseconds():
    histogram = Histogram()
    for value in range(1, 1001):
        histogram.record(value * 1000)
    summary = stats.latency_summary(histogram)
    assert summary["count"] == 1000
    assert abs(summary["p50_us"] - 500) / 500 < 0.01
    assert abs(summary["p99_us"] - 990) / 990 < 0.01
    assert summary["max_us"] <= 1000
    assert summary["p99.9_us"] is None  # 1000 values cannot tell a p99.9 (10000 needed)
    points = stats.cdf(histogram)
    assert points[-1][1] == 1.0 and all(a[0] < b[0] for a, b in zip(points, points[1:], strict=False))


# --- estimates, instability, interval ranks, ratios ---------------------------------------------

REPS = [3.86e6, 3.74e6, 3.80e6, 3.90e6, 3.78e6, 3.83e6]


def test_estimate_is_the_median_with_a_bootstrap_interval():
    e = stats.estimate(REPS)
    assert e.center == 3.815e6 and e.n == 6 and e.values == tuple(REPS)
    assert min(REPS) <= e.low <= e.center <= e.high <= max(REPS)
    assert e.low < e.high
    assert "median" in e.method and "bootstrap" in e.method and "BCa" in e.method
    assert math.isclose(e.cv, stats.summarize(REPS)["std"] / stats.summarize(REPS)["mean"])


def test_estimate_is_deterministic_given_the_seed():
    noisy = [1.0, 1.3, 0.9, 1.7, 1.1, 1.25, 0.95, 1.4]
    assert stats.estimate(noisy, seed=3) == stats.estimate(noisy, seed=3)
    # a median's interval ends on sample values; a ratio of medians shows the seed is used
    other = [v * 1.1 for v in noisy]
    assert stats.relative_change(noisy, other, seed=3) == stats.relative_change(noisy, other, seed=3)
    assert stats.relative_change(noisy, other, seed=3) != stats.relative_change(noisy, other, seed=4)


def test_few_values_fall_back_to_the_t_interval_and_say_so():
    e = stats.estimate([10.0, 12.0, 14.0])
    assert e.center == 12.0
    assert math.isclose(e.high - e.center, stats.summarize([10.0, 12.0, 14.0])["ci95"], rel_tol=1e-3)
    assert "t-interval" in e.method and "too few" in e.method


def test_a_single_value_has_no_interval():
    e = stats.estimate([7.0])
    assert e.low == -math.inf and e.high == math.inf and e.cv is None
    assert e.to_dict()["low"] is None and e.to_dict()["high"] is None
    assert "single repetition" in stats.unstable(e)


def test_ties_and_constant_values_still_get_an_interval():
    tied = stats.estimate([5.0, 5.0, 5.0, 5.0, 6.0])  # BCa is undefined here
    assert math.isfinite(tied.low) and math.isfinite(tied.high) and "percentile" in tied.method
    flat = stats.estimate([5.0] * 6)
    assert (flat.low, flat.center, flat.high) == (5.0, 5.0, 5.0)


def test_the_interval_narrows_with_more_data():
    spread = [1.0, 1.1, 0.9, 1.05, 0.95]
    few, many = stats.estimate(spread), stats.estimate(spread * 8)
    assert many.half_width_ratio < few.half_width_ratio


def test_stable_figures_carry_no_warning():
    assert stats.unstable(stats.estimate(REPS), ranked=True) is None


def test_a_large_cv_is_unstable():
    why = stats.unstable(stats.estimate([2.89e6, 3.86e6, 3.74e6, 3.9e6, 3.1e6]))
    assert why is not None and "CV" in why


def test_an_interval_wider_than_half_the_value_is_unstable():
    why = stats.unstable(stats.estimate([8594.0, 1000.0, 20000.0]))
    assert why is not None and "interval" in why


def test_few_repetitions_do_not_rank():
    e = stats.estimate([100.0, 101.0, 100.5])
    assert stats.unstable(e) is None
    assert "too few to rank" in stats.unstable(e, ranked=True)


def _interval(low, high):
    return stats.Estimate((low + high) / 2, low, high, 5, 0.01, (), "test")


def test_paired_ratio_cancels_shared_drift():
    # throughput climbs 3x over the sweep (JIT warm-up); encryption costs 20 % in every block
    plain = [100.0, 150.0, 200.0, 250.0, 300.0, 310.0]
    encrypted = [0.8 * p * (1 + j) for p, j in zip(plain, [0.01, -0.01, 0.0, 0.005, -0.005, 0.0], strict=True)]
    ratio = stats.paired_ratio(encrypted, plain)
    assert ratio.low <= 0.8 <= ratio.high and ratio.high - ratio.low < 0.02
    assert "paired" in ratio.method
    # the same numbers unpaired cannot tell
    unpaired = stats.relative_change(plain, encrypted)
    assert unpaired.high - unpaired.low > 0.2


def test_paired_ratio_needs_pairs():
    with pytest.raises(ValueError, match="not paired"):
        stats.paired_ratio([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="zero"):
        stats.paired_ratio([1.0], [0.0])


def test_relative_change_finds_a_shift_and_no_shift():
    base = [100.0, 102.0, 98.0, 101.0, 99.0, 100.5]
    same = stats.relative_change(base, [v * 1.001 for v in reversed(base)])
    assert same.low < 0 < same.high
    faster = stats.relative_change(base, [v * 1.10 for v in base])
    assert 0 < faster.low < 0.10 < faster.high
    few = stats.relative_change([100.0, 102.0, 98.0], [110.0, 112.0, 108.0])
    assert "t-interval" in few.method and 0 < few.low < 0.10 < few.high


def test_repetitions_that_trend_are_marked_as_drifting():
    rising = stats.estimate([82.0, 84.0, 85.0, 87.0, 88.0, 90.0, 91.0, 93.0])
    assert "rise in the order they were measured" in (stats.drift(rising) or "")
    assert "not yet a steady state" in (stats.unstable(rising) or "")
    falling = stats.estimate([93.0, 91.0, 90.0, 88.0, 87.0, 85.0, 84.0, 82.0])
    assert "fall" in (stats.drift(falling) or "")
    # the same values in an order without a trend, and too few to tell
    assert stats.drift(stats.estimate([87.0, 82.0, 91.0, 85.0, 93.0, 84.0, 90.0, 88.0])) is None
    assert stats.drift(stats.estimate([82.0, 84.0, 85.0, 87.0])) is None


def test_percentiles_are_conservative_upper_bucket_edges_and_need_their_count():
    assert [stats.min_count(q) for q in (50, 90, 99, 99.9)] == [20, 100, 1000, 10000]
    histogram = Histogram()
    for _ in range(1000):
        histogram.record(123_456)  # bucket 123,392 ns: 8 significant bits
    summary = stats.latency_summary(histogram)
    assert summary["p99_us"] * 1000 >= 123_456 > 123_392  # never below the values themselves
    assert stats.upper_edge(200) == 200  # a small value is its own bucket
    few = Histogram()
    for value in range(19):
        few.record(1000 + value)
    assert stats.latency_summary(few)["p50_us"] is None
