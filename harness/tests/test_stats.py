import math

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


def test_latency_summary_in_microseconds():
    histogram = Histogram()
    for value in range(1, 1001):
        histogram.record(value * 1000)
    summary = stats.latency_summary(histogram)
    assert summary["count"] == 1000
    assert abs(summary["p50_us"] - 500) / 500 < 0.01
    assert abs(summary["p99_us"] - 990) / 990 < 0.01
    assert summary["max_us"] <= 1000
    points = stats.cdf(histogram)
    assert points[-1][1] == 1.0 and all(a[0] < b[0] for a, b in zip(points, points[1:], strict=False))
