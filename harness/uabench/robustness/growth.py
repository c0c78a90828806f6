"""The soak's growth rates (issue 18): how fast a server's RSS, threads and file descriptors grow
over a run, with an interval, and whether the interval says it leaks.

The samples are a time series: successive ones are not independent (a heap grows and is
collected in steps), so an ordinary regression over them gives an interval far too narrow. The
regression is over the medians of `blocks` equal stretches of the run instead (a block of many
samples is far less correlated with the next than one sample is), after the first `skip_share`
of the run, where a runtime still warms up (JIT, caches, pools). scipy's linregress gives the
slope and its standard error; the interval is Student's t at n − 2 degrees of freedom.

A leak needs more than an interval above zero: over a long soak the interval of a tiny drift
(an allocator's slow fragmentation, +0.1 MB/h) also excludes zero, and flagging it would make
the flag mean nothing. The growth must also exceed FLOORS: an absolute rate and a share of the
metric's level per hour, both stated in the report."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from scipy import stats as scipy_stats

BLOCKS = 10
SKIP_SHARE = 0.2
# per metric: (absolute growth per hour, share of its level per hour) a leak must exceed both of
FLOORS = {"rss_mb": (1.0, 0.01), "threads": (1.0, 0.01), "fds": (1.0, 0.01)}


@dataclass(frozen=True)
class Growth:
    metric: str
    per_hour: float  # the slope, in the metric's unit per hour
    low: float  # its 95 % interval
    high: float
    blocks: int
    samples: int
    level: float = 0.0  # the metric's median over the measured stretch
    floor: float = 0.0  # the growth per hour a leak must exceed (FLOORS at this level)

    @property
    def leak(self) -> bool:
        """Growing faster than the floor, and the interval excludes zero."""
        return self.low > 0 and self.per_hour > self.floor

    def text(self, unit: str) -> str:
        return f"{self.per_hour:+.2f} {unit}/h [{self.low:+.2f}, {self.high:+.2f}]"


def growth(metric: str, times_s: list[float], values: list[float], blocks: int = BLOCKS) -> Growth | None:
    """The growth of `values` sampled at `times_s`; None when too few samples to tell."""
    pairs = sorted(zip(times_s, values, strict=True))
    if len(pairs) < 2 * blocks:
        return None
    start = pairs[0][0] + SKIP_SHARE * (pairs[-1][0] - pairs[0][0])
    kept = [p for p in pairs if p[0] >= start]
    size = len(kept) // blocks
    if size < 2:
        return None
    chunks = [kept[k * size : (k + 1) * size] for k in range(blocks)]
    x = [statistics.median(t for t, _ in chunk) / 3600 for chunk in chunks]
    y = [statistics.median(v for _, v in chunk) for chunk in chunks]
    level = statistics.median(v for _, v in kept)
    floor = floor_of(metric, level)
    if len(set(y)) == 1:  # a flat series (threads, descriptors): no growth, and no spread to estimate
        return Growth(metric, 0.0, 0.0, 0.0, blocks, len(kept), level, floor)
    fit = scipy_stats.linregress(x, y)
    half = scipy_stats.t.ppf(0.975, blocks - 2) * fit.stderr
    return Growth(metric, fit.slope, fit.slope - half, fit.slope + half, blocks, len(kept), level, floor)


def floor_of(metric: str, level: float) -> float:
    """The growth per hour a leak of `metric` at `level` must exceed (FLOORS)."""
    absolute, share = FLOORS[metric]
    return max(absolute, share * abs(level))


def floors_text() -> str:
    """FLOORS as the report states them."""
    return "; ".join(f"{metric} > {a:g}/h and > {s:.0%} of its level per hour" for metric, (a, s) in FLOORS.items())
