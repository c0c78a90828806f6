"""Statistics over repetitions and over merged latency histograms."""

from __future__ import annotations

import math
from statistics import NormalDist

from uabench_contract import Histogram

# Two-sided 95% Student t quantiles by degrees of freedom; beyond 30 the normal is close.
_T95 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
    25: 2.060,
    30: 2.042,
}
PERCENTILES = (50.0, 90.0, 99.0, 99.9)


def t95(dof: int) -> float:
    if dof in _T95:
        return _T95[dof]
    if dof > 30:
        return NormalDist().inv_cdf(0.975)
    return _T95[max(k for k in _T95 if k <= dof)]


def summarize(values: list[float]) -> dict:
    """mean, std, 95% CI half-width, CV over repetitions. With one value, spread is None."""
    n = len(values)
    if n == 0:
        return {"n": 0, "mean": None, "std": None, "ci95": None, "cv": None, "min": None, "max": None}
    mean = sum(values) / n
    if n == 1:
        std = ci = cv = None
    else:
        std = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        ci = t95(n - 1) * std / math.sqrt(n)
        cv = std / mean if mean else None
    return {"n": n, "mean": mean, "std": std, "ci95": ci, "cv": cv, "min": min(values), "max": max(values)}


def merge_histograms(serialised: list[list[list[int]]]) -> Histogram:
    merged = Histogram()
    for pairs in serialised:
        merged.merge(Histogram(pairs))
    return merged


def latency_summary(histogram: Histogram) -> dict:
    """Percentiles in microseconds of a (merged) nanosecond histogram."""
    out = {"count": histogram.total}
    mean = histogram.mean()
    out["mean_us"] = mean / 1e3 if mean is not None else None
    for q in PERCENTILES:
        value = histogram.percentile(q)
        out[f"p{q:g}_us"] = value / 1e3 if value is not None else None
    top = histogram.max()
    out["max_us"] = top / 1e3 if top is not None else None
    return out


def cdf(histogram: Histogram) -> list[tuple[float, float]]:
    """(value_us, cumulative fraction) points for plotting."""
    total = histogram.total
    points, seen = [], 0
    for value, count in sorted(histogram.counts.items()):
        seen += count
        points.append((value / 1e3, seen / total))
    return points


def histogram_cv(histogram: Histogram) -> float | None:
    """Coefficient of variation of the recorded values (std / mean)."""
    total, mean = histogram.total, histogram.mean()
    if total < 2 or not mean:
        return None
    variance = sum(count * (value - mean) ** 2 for value, count in histogram.counts.items()) / (total - 1)
    return math.sqrt(variance) / mean
