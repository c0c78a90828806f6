"""Plain functions of the footprint suite: when a process's RSS has settled, and the straight line
through RSS against what a server holds (sessions, subscriptions, monitored items, signals),
with the 95 % intervals of its slope and intercept."""

from __future__ import annotations

import math
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
class Linearity:
    """Whether a straight line fits the means of the steps, within the scatter of their repetitions:
    the lack-of-fit F statistic and its p value, and the slope between each two adjacent steps'
    means (from x, to x, slope): where the line bends, what the data show instead."""

    f: float
    p: float
    segments: tuple[tuple[float, float, float], ...]

    def bent(self, alpha: float, material: float) -> bool:
        """Whether the test rejects the line at `alpha` and the steepest and the flattest segment
        differ by more than `material` of the steepest: RSS counted to the page makes the
        smallest bend significant."""
        slopes = [slope for _, _, slope in self.segments]
        steepest = max(abs(slope) for slope in slopes)
        return self.p < alpha and steepest > 0 and (max(slopes) - min(slopes)) > material * steepest


def linearity(xs: list[float], ys: list[float]) -> Linearity | None:
    """The lack-of-fit F test of the least-squares line (Draper & Smith, Applied Regression
    Analysis, 3rd ed., 2.1): the squared residuals split into the scatter of the repetitions about
    their step's mean (pure error, n − k degrees of freedom for k steps) and the distance of the
    steps' means from the line (lack of fit, k − 2). None with fewer than three steps or without a
    repeated step, where nothing can tell a bend from scatter. Written here: scipy has no
    lack-of-fit test, and statsmodels (anova_lm of the line against the steps as factors) would
    add a dependency for these few sums."""
    by: dict[float, list[float]] = {}
    for x, y in zip(xs, ys, strict=True):
        by.setdefault(x, []).append(y)
    steps, n = sorted(by), len(xs)
    if len(steps) < 3 or n <= len(steps):
        return None
    means = {x: statistics.fmean(by[x]) for x in steps}
    segments = tuple(
        (low, high, (means[high] - means[low]) / (high - low)) for low, high in zip(steps, steps[1:], strict=False)
    )
    line = stats.linregress(xs, ys) if len(set(ys)) > 1 else None
    if line is None:
        return Linearity(0.0, 1.0, segments)  # every point the same: the flat line through them all
    residual = sum((y - (line.intercept + line.slope * x)) ** 2 for x, y in zip(xs, ys, strict=True))
    pure = sum((y - means[x]) ** 2 for x, y in zip(xs, ys, strict=True))
    lack = max(residual - pure, 0.0)
    lack_df, pure_df = len(steps) - 2, n - len(steps)
    if pure == 0:
        # repetitions equal to the byte: any distance of the means from the line is a bend
        return Linearity(math.inf if lack > 0 else 0.0, 0.0 if lack > 0 else 1.0, segments)
    f = (lack / lack_df) / (pure / pure_df)
    return Linearity(float(f), float(stats.f.sf(f, lack_df, pure_df)), segments)


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
