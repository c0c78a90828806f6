"""Plain functions of the footprint suite: when a process's RSS has settled, and the straight line
through RSS against what a server holds (sessions, subscriptions, monitored items, signals),
with the 95 % intervals of its slope and intercept."""

from __future__ import annotations

import statistics
import warnings
from dataclasses import dataclass

from scipy import stats

from uabench.footprint.cells import FootprintCell
from uabench.footprint.plan import Settle

# the kinds of the cells the footprint records (footprint/runner.py) and reports (footprint/report.py)
KIND, STARTUP_KIND, WARMUP_KIND, CLIENT_KIND, IMAGE_KIND, IMPORT_KIND = (
    FootprintCell.SERVER,
    FootprintCell.STARTUP,
    FootprintCell.WARMUP,
    FootprintCell.CLIENT,
    FootprintCell.IMAGE,
    FootprintCell.IMPORT,
)


@dataclass(frozen=True)
class Reading:
    """RSS over the last settle window: its median, how far its samples lay apart (max − min over
    the median), and whether that was within the tolerance."""

    rss: int
    spread: float
    settled: bool
    samples: int

    def summary(self) -> dict:
        return dict(self.__dict__)


MIN_SAMPLES = 3


def reading(samples: list[tuple[int, int]], settle: Settle) -> Reading | None:
    """The reading of (wall_ns, rss) samples, oldest first, over their last settle.window_s (or
    their last three, where a busy host spaced the samples wider); None when they do not yet
    span the window or hold three samples."""
    if len(samples) < MIN_SAMPLES or samples[-1][0] - samples[0][0] < settle.window_s * 1e9:
        return None
    last_ns = samples[-1][0]
    inside = [rss for wall_ns, rss in samples if wall_ns >= last_ns - settle.window_s * 1e9]
    if len(inside) < MIN_SAMPLES:
        inside = [rss for _, rss in samples[-MIN_SAMPLES:]]
    median = statistics.median(inside)
    spread = (max(inside) - min(inside)) / median if median else 0.0
    return Reading(int(median), spread, spread <= settle.tolerance, len(inside))


@dataclass(frozen=True)
class Fit:
    """RSS = intercept + slope · x by least squares, with 95 % intervals (Student's t on n − 2
    degrees of freedom; None with two points, which a line passes through exactly)."""

    slope: float
    slope_low: float | None
    slope_high: float | None
    intercept: float
    intercept_low: float | None
    intercept_high: float | None
    points: int
    r2: float | None

    def summary(self) -> dict:
        return dict(self.__dict__)


def fit(xs: list[float], ys: list[float]) -> Fit | None:
    """The line through the points, or None when x does not vary. scipy's linregress gives the
    standard errors; the interval is theirs times the t quantile."""
    if len(xs) < 2 or len(set(xs)) < 2:
        return None
    found = stats.linregress(xs, ys)
    n = len(xs)
    if n < 3:
        return Fit(float(found.slope), None, None, float(found.intercept), None, None, n, None)
    t = float(stats.t.ppf(0.975, n - 2))
    slope, intercept = float(found.slope), float(found.intercept)
    # Where y never varies (no page more at any step) scipy's r and standard errors are 0/0, nan;
    # the points lie on the flat line exactly: no scatter, the interval is the slope itself.
    flat = len(set(ys)) == 1
    slope_error, intercept_error = (0.0, 0.0) if flat else (float(found.stderr), float(found.intercept_stderr))
    return Fit(
        slope,
        slope - t * slope_error,
        slope + t * slope_error,
        intercept,
        intercept - t * intercept_error,
        intercept + t * intercept_error,
        n,
        None if flat else float(found.rvalue) ** 2,
    )


@dataclass(frozen=True)
class Difference:
    """mean(with) − mean(without) with its 95 % interval (Welch's t, which assumes no equal
    variances: a model's import may scatter more than a start without it); no interval with
    fewer than two of either."""

    mean: float
    low: float | None
    high: float | None


def difference(with_: list[float], without: list[float]) -> Difference | None:
    """What adding something (a model's import) cost, from processes with and without it."""
    if not with_ or not without:
        return None
    mean = statistics.fmean(with_) - statistics.fmean(without)
    if len(with_) < 2 or len(without) < 2:
        return Difference(mean, None, None)
    if statistics.pvariance(with_) == 0 and statistics.pvariance(without) == 0:
        return Difference(mean, mean, mean)  # no scatter at all (a heap counted to the byte)
    with warnings.catch_warnings():
        # scipy warns of precision loss when one side's values are identical (RSS to the page, a
        # heap to the byte); Welch's interval is still the other side's scatter, as it should be
        warnings.simplefilter("ignore", RuntimeWarning)
        found = stats.ttest_ind(with_, without, equal_var=False).confidence_interval(0.95)
    return Difference(mean, float(found.low), float(found.high))
