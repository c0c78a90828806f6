"""Statistics over repetitions and over merged latency histograms."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np
import scipy.stats
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


def min_count(q: float) -> int:
    """The fewest values a q-th percentile is told from: 10 / (1 - q) of them, so that at least
    ten values lie beyond it (p99 from 1000, p99.9 from 10000); with fewer it is one or two
    extreme values, not a percentile."""
    return math.ceil(round(10 / (1 - q / 100), 6))  # rounded: 1 - 0.999 is not exact in binary


def upper_edge(bucket_ns: float) -> float:
    """The upper edge of the histogram bucket whose lower edge is `bucket_ns` (SPEC §5: a value
    keeps its 8 most significant bits): a percentile stated as this edge is never below the
    values it stands for."""
    shift = int(bucket_ns).bit_length() - 8
    return bucket_ns if shift <= 0 else bucket_ns + (1 << shift) - 1


def latency_summary(histogram: Histogram) -> dict:
    """Percentiles in microseconds of a (merged) nanosecond histogram, conservatively: each is
    its bucket's upper edge, and one the count cannot support (min_count) is left out (None)."""
    out = {"count": histogram.total}
    mean = histogram.mean()
    out["mean_us"] = mean / 1e3 if mean is not None else None
    for q in PERCENTILES:
        value = histogram.percentile(q) if histogram.total >= min_count(q) else None
        out[f"p{q:g}_us"] = upper_edge(value) / 1e3 if value is not None else None
    top = histogram.max()
    out["max_us"] = top / 1e3 if top is not None else None
    return out


def quantile_interval(histogram: Histogram, q: float, confidence: float = 0.95) -> tuple[float, float] | None:
    """A distribution-free interval of the q-th percentile (in µs, bucket upper edges as
    latency_summary states it): the values at the order-statistic ranks that bracket the
    quantile with `confidence` when the values are independent (the binomial method, scipy's
    binom). Requests of one run are not independent (a queue correlates neighbours), so the
    true uncertainty is wider; None where the count cannot support the percentile."""
    n = histogram.total
    if n < min_count(q):
        return None
    tail = (1 - confidence) / 2
    low = max(1, int(scipy.stats.binom.ppf(tail, n, q / 100)))
    high = min(n, int(scipy.stats.binom.ppf(1 - tail, n, q / 100)) + 1)
    values = [_at_rank(histogram, rank) for rank in (low, high)]
    return upper_edge(values[0]) / 1e3, upper_edge(values[1]) / 1e3


def _at_rank(histogram: Histogram, rank: int) -> float:
    """The value of 1-based rank `rank` in the histogram's sorted values."""
    seen = 0
    for value, count in sorted(histogram.counts.items()):
        seen += count
        if seen >= rank:
            return float(value)
    return float(max(histogram.counts))


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


# --- Estimates with honest uncertainty (issue 11) -------------------------------------------------
#
# The figures that rank servers are medians with a bootstrap interval: throughput repetitions are
# skewed by the odd disturbed repetition, and the median does not let one of them move the figure.
# scipy's bootstrap is used rather than a hand-written one (BCa corrects the bias and skew that a
# plain percentile interval leaves in a small sample).

# A figure's quality note (unstable): said beside it, never a veto on its rank (results/ranking.py:
# on the 2-core VMs of this project the host alone varies 17-23 % between blocks). One limit for
# every figure, the summary's and the sections' alike.
CV_LIMIT = 0.10  # pyperf warns above 10 % too
WIDTH_LIMIT = 0.5  # an interval wider than half the value says little about the value
MIN_RANKED = 5  # fewer repetitions than this are noted as too few (robot's log of a comparison)
MIN_BOOTSTRAP = 5  # below this a bootstrap has too few distinct resamples to mean anything
RESAMPLES = 10_000


@dataclass(frozen=True)
class Estimate:
    """One figure over its repetitions: the center, a confidence interval [low, high] and how both were
    computed (``method``, printable). A single value has no interval: low = -inf, high = +inf."""

    center: float
    low: float
    high: float
    n: int
    cv: float | None
    values: tuple[float, ...]
    method: str

    @property
    def half_width_ratio(self) -> float:
        """Half the interval's width relative to the center (inf when there is no interval)."""
        if not self.center:
            return math.inf
        return (self.high - self.low) / 2 / abs(self.center)

    @property
    def width_ratio(self) -> float:
        """The interval's full width relative to the center."""
        return 2 * self.half_width_ratio

    def to_dict(self) -> dict:
        """JSON-safe form (an unbounded interval end is None)."""

        def finite(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {
            "center": self.center,
            "low": finite(self.low),
            "high": finite(self.high),
            "n": self.n,
            "cv": self.cv,
            "values": list(self.values),
            "method": self.method,
        }


def _cv(values: np.ndarray) -> float | None:
    if len(values) < 2:
        return None
    mean = float(np.mean(values))
    return float(np.std(values, ddof=1)) / abs(mean) if mean else None


def _percent(confidence: float) -> str:
    return f"{confidence * 100:g}%"


def estimate(values: Iterable[float], confidence: float = 0.95, seed: int = 0) -> Estimate:
    """The median with a BCa bootstrap interval (deterministic for a given seed); below
    MIN_BOOTSTRAP repetitions the mean with a Student t-interval, and the method says so."""
    data = np.asarray([float(v) for v in values], dtype=float)
    n = len(data)
    if n == 0:
        raise ValueError("no values to estimate from")
    kept = tuple(float(v) for v in data)
    cv = _cv(data)
    if n == 1:
        return Estimate(kept[0], -math.inf, math.inf, 1, None, kept, "a single value, no interval")
    if n < MIN_BOOTSTRAP:
        mean = float(np.mean(data))
        half = float(scipy.stats.t.ppf((1 + confidence) / 2, n - 1)) * float(np.std(data, ddof=1)) / math.sqrt(n)
        method = f"mean, {_percent(confidence)} t-interval (only {n} values: too few for a bootstrap)"
        return Estimate(mean, mean - half, mean + half, n, cv, kept, method)
    low, high, how = _bootstrap_interval((data,), _median, confidence, seed)
    return Estimate(float(np.median(data)), low, high, n, cv, kept, f"median, {how}")


def _median(sample: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(sample, axis=axis)


def _bootstrap_interval(samples: tuple, statistic, confidence: float, seed: int, paired: bool = False):
    """(low, high, description) of a bootstrap interval: BCa, or the percentile interval where BCa is
    undefined (its jackknife is degenerate when ties leave every leave-one-out median equal)."""
    if all(np.ptp(s) == 0 for s in samples):
        value = float(statistic(*samples))
        return value, value, "no spread: every value equal"
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the degenerate case is detected below from the NaN interval
            result = scipy.stats.bootstrap(
                samples,
                statistic,
                confidence_level=confidence,
                n_resamples=RESAMPLES,
                method=method,
                paired=paired,
                vectorized=True,
                rng=np.random.default_rng(seed),
            )
        low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        if math.isfinite(low) and math.isfinite(high):
            return low, high, f"{_percent(confidence)} bootstrap CI ({method}, {RESAMPLES} resamples)"
    raise ValueError("bootstrap interval undefined")  # percentile intervals are always finite on finite data


def unstable(e: Estimate, ranked: bool = False, cv_limit: float = CV_LIMIT) -> str | None:
    """Why the figure should not be trusted, as one sentence in the manner of pyperf's warnings
    (None when it is fine): CV above CV_LIMIT, an interval wider than WIDTH_LIMIT of the value, no
    interval at all, or (``ranked``) fewer than MIN_RANKED repetitions for a figure that ranks."""
    reasons = []
    if e.n < 2:
        reasons.append("a single repetition gives no interval")
    if e.cv is not None and e.cv > cv_limit:
        reasons.append(f"the repetitions vary by {e.cv * 100:.1f} % (CV above {cv_limit * 100:g} %)")
    if e.n >= 2 and not math.isfinite(e.width_ratio):
        reasons.append(f"no finite interval could be computed from {e.n} repetitions")
    elif e.n >= 2 and e.width_ratio > WIDTH_LIMIT:
        reasons.append(
            f"its interval ({e.low:.4g} to {e.high:.4g}) is {e.width_ratio * 100:.0f} % of the value"
            f" (wider than {WIDTH_LIMIT * 100:g} %)"
        )
    if ranked and e.n < MIN_RANKED:
        reasons.append(f"{e.n} repetitions are too few to rank (at least {MIN_RANKED})")
    drifting = drift(e)
    if drifting:
        reasons.append(drifting)
    if not reasons:
        return None
    return "Noisy: " + "; ".join(reasons) + "."


# A trend through the repetitions, in the order they were measured: Kendall's tau with that order,
# two-sided p below DRIFT_P, from DRIFT_MIN repetitions on (fewer cannot reach it). A steady server
# gives repetitions in random order; a JIT runtime still compiling, or a leak, orders them.
DRIFT_MIN = 5
DRIFT_P = 0.05


def drift(e: Estimate) -> str | None:
    """Why the repetitions are no sample of one steady state (None if nothing says so): they rise
    or fall in the order they were measured. Their median is then a point on a trend, and a re-run
    that stops elsewhere on it gives another figure."""
    if e.n < DRIFT_MIN or len(set(e.values)) < 2:
        return None
    found = scipy.stats.kendalltau(range(e.n), e.values)
    if not found.pvalue < DRIFT_P:
        return None
    way = "rise" if found.statistic > 0 else "fall"
    return (
        f"the repetitions {way} in the order they were measured (Kendall tau {found.statistic:.2f}, "
        f"p = {found.pvalue:.2g}): not yet a steady state"
    )


def paired_ratio(
    numerators: Sequence[float], denominators: Sequence[float], confidence: float = 0.95, seed: int = 0
) -> Estimate:
    """The ratio numerator/denominator per block (one repetition of each, run side by side), estimated
    like any figure: the median of the per-block ratios with a bootstrap interval (the mean with a
    t-interval below MIN_BOOTSTRAP blocks). Pairing cancels the drift both members of a block share,
    which a ratio of two separately estimated means (Fieller) would keep in its interval."""
    if len(numerators) != len(denominators):
        raise ValueError(f"{len(numerators)} numerators against {len(denominators)} denominators: not paired")
    if any(d == 0 for d in denominators):
        raise ValueError("a denominator is zero")
    ratios = [n / d for n, d in zip(numerators, denominators, strict=True)]
    e = estimate(ratios, confidence, seed)
    return replace(e, method=f"{len(ratios)} paired ratios: {e.method}")


def relative_change(
    before: Sequence[float], after: Sequence[float], confidence: float = 0.95, seed: int = 0
) -> Estimate:
    """median(after) / median(before) - 1 with a bootstrap interval resampling both (independent)
    samples; with fewer than MIN_BOOTSTRAP values on a side the interval is a t-interval of the
    ratio of means by the delta method, and the method says so."""
    a, b = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    if len(a) == 0 or len(b) == 0:
        raise ValueError("no values to compare")
    values = tuple(float(v) for v in b)
    if len(a) >= MIN_BOOTSTRAP and len(b) >= MIN_BOOTSTRAP:

        def change(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
            return np.median(y, axis=axis) / np.median(x, axis=axis) - 1

        low, high, how = _bootstrap_interval((a, b), change, confidence, seed)
        center = float(np.median(b) / np.median(a) - 1)
        return Estimate(center, low, high, len(b), _cv(b), values, f"change of the median, {how}")
    ma, mb = float(np.mean(a)), float(np.mean(b))
    center = mb / ma - 1
    if len(a) < 2 or len(b) < 2:
        return Estimate(center, -math.inf, math.inf, len(b), _cv(b), values, "change of the mean, no interval")
    # delta method: var(mb/ma) ~ (mb/ma)^2 (var_b/(n_b mb^2) + var_a/(n_a ma^2)), Welch-Satterthwaite dof
    va, vb = float(np.var(a, ddof=1)) / len(a), float(np.var(b, ddof=1)) / len(b)
    rel = va / ma**2 + vb / mb**2
    se = (mb / ma) * math.sqrt(rel)
    terms = (va / ma**2) ** 2 / (len(a) - 1) + (vb / mb**2) ** 2 / (len(b) - 1)
    dof = rel**2 / terms if terms else len(a) + len(b) - 2
    half = float(scipy.stats.t.ppf((1 + confidence) / 2, dof)) * se
    method = f"change of the mean, {_percent(confidence)} t-interval (delta method; too few values for a bootstrap)"
    return Estimate(center, center - half, center + half, len(b), _cv(b), values, method)
