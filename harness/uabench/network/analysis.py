"""The round-trip-delay analysis of Nakutis et al. (paper 003: "Round-trip delay estimation in
OPC UA server–client communication channel"), as plain functions of a recorded RTD series and
the server's CPU load aligned with it:

- Table II: mean E(t_R), standard deviation s(t_R), minimum and maximum, and the useful payload
  throughput of formula (1), mu_1 = b·n / E(t_R) with b = 128 bits per Double node (64 of value,
  64 of time stamp) and n nodes per request;
- outliers: RTDs at least N times the least one (the paper's "more than 20 times the mean"
  observation is the same series read another way);
- Table III: the RTD series binarised by equation (2) (t_R(i) ≥ N·min t_R) and the CPU series by
  equation (3) (L_CPU(i) ≥ K and the RTD peaked at i), their Pearson correlation with its
  p-value (scipy.stats.pearsonr) and the Kulczynski-II index of the two binary series.

Statistics come from numpy/scipy; only the paper's own definitions are written here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

BITS_PER_NODE = 128  # formula (1): a Double value and its time stamp
N_GRID = (5, 10, 20)  # Table III: RTD peak threshold gains
K_GRID = (40, 50, 60)  # Table III: CPU load thresholds, percent
LEAST_WINDOW_NS = 20_000_000  # a request's CPU load is integrated over at least this long


@dataclass(frozen=True)
class RtdStats:
    """Table II's row of one cell (ms, kbit/s), plus what a reader of the series also needs."""

    count: int
    mean_ms: float
    sd_ms: float
    min_ms: float
    max_ms: float
    p50_ms: float
    p99_ms: float
    throughput_kbps: float | None  # formula (1); None when the nodes are not Doubles
    outliers: dict[int, int]  # N -> requests with RTD ≥ N · min

    def summary(self) -> dict:
        return {**self.__dict__, "outliers": {str(n): c for n, c in self.outliers.items()}}


def rtds(result: dict | None) -> list[int]:
    """The recorded RTD series of a client's result record (SPEC §6 `latencies`), ns; [] when
    it has none."""
    return ((result or {}).get("latencies") or {}).get("latency_ns") or []


def rtd_stats(latency_ns: Sequence[int], nodes: int | None) -> RtdStats | None:
    """Table II's figures of one RTD series; `nodes` Double nodes per request (None: formula
    (1) does not apply). None for an empty series."""
    if not latency_ns:
        return None
    ms = np.asarray(latency_ns, dtype=float) / 1e6
    mean, least = float(ms.mean()), float(ms.min())
    return RtdStats(
        count=len(ms),
        mean_ms=mean,
        sd_ms=float(ms.std(ddof=1)) if len(ms) > 1 else 0.0,
        min_ms=least,
        max_ms=float(ms.max()),
        p50_ms=float(np.percentile(ms, 50)),
        p99_ms=float(np.percentile(ms, 99)),
        throughput_kbps=BITS_PER_NODE * nodes / mean if nodes else None,  # bits per ms = kbit/s
        outliers={n: int((ms >= n * least).sum()) for n in N_GRID},
    )


def rtd_peaks(latency_ns: Sequence[int], n: float) -> np.ndarray:
    """Equation (2): 1 where t_R(i) ≥ N · min(t_R)."""
    series = np.asarray(latency_ns, dtype=float)
    return (series >= n * series.min()).astype(int)


def cpu_peaks(cpu_percent: Sequence[float], peaks: np.ndarray, k: float) -> np.ndarray:
    """Equation (3): 1 where L_CPU(i) ≥ K and the RTD peaked at i."""
    return ((np.asarray(cpu_percent, dtype=float) >= k) & (peaks == 1)).astype(int)


def kulczynski_2(x: np.ndarray, y: np.ndarray) -> float | None:
    """Kulczynski-II similarity of two binary series (Choi, Cha and Tappert's survey, [14] of the
    paper): the mean of P(x=1 | y=1) and P(y=1 | x=1), a/2 · (1/(a+b) + 1/(a+c)); None when
    either series has no 1 (the conditional probability is undefined)."""
    a = int(((x == 1) & (y == 1)).sum())
    b = int(((x == 1) & (y == 0)).sum())
    c = int(((x == 0) & (y == 1)).sum())
    if a + b == 0 or a + c == 0:
        return None
    return 0.5 * (a / (a + b) + a / (a + c))


@dataclass(frozen=True)
class Correlation:
    """One (N, K) of Table III. Equation (3) marks a CPU peak only where the RTD peaked, so
    its series is the RTD's own with some 1s cleared: where the load is ≥ K nearly always (a
    saturated server), PEA and KUL are near 1 whatever the RTD does. `loaded` and
    `pearson_load` are the same test without that condition: the RTD peaks against the plain
    binarised load L_CPU(i) ≥ K, which a load that is high everywhere cannot pass."""

    n: int
    k: int
    rtd_peaks: int
    cpu_peaks: int
    pearson: float | None  # None: a constant series (no peak, or peaks everywhere)
    p_value: float | None
    kulczynski: float | None
    loaded: int = 0  # requests with L_CPU ≥ K, peak or not
    pearson_load: float | None = None
    p_load: float | None = None

    def summary(self) -> dict:
        return dict(self.__dict__)


def correlations(latency_ns: Sequence[int], cpu_percent: Sequence[float]) -> list[Correlation]:
    """Table III for one series: every (N, K) of the paper's grid."""
    if len(latency_ns) != len(cpu_percent):
        raise ValueError(f"{len(latency_ns)} RTDs but {len(cpu_percent)} CPU loads")
    found = []
    load = np.asarray(cpu_percent, dtype=float)
    for n in N_GRID:
        x = rtd_peaks(latency_ns, n)
        for k in K_GRID:
            y = cpu_peaks(cpu_percent, x, k)
            z = (load >= k).astype(int)
            pearson, p_value = _pearson(x, y)
            pearson_load, p_load = _pearson(x, z)
            found.append(
                Correlation(
                    n,
                    k,
                    int(x.sum()),
                    int(y.sum()),
                    pearson,
                    p_value,
                    kulczynski_2(x, y),
                    int(z.sum()),
                    pearson_load,
                    p_load,
                )  # fmt: skip
            )
    return found


def _pearson(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None]:
    """Pearson's r of two series and its two-sided p-value (scipy); None for a constant one."""
    if not (0 < x.sum() < len(x) and 0 < y.sum() < len(y)):
        return None, None
    result = stats.pearsonr(x, y)
    r, p = float(result.statistic), float(result.pvalue)
    return (None, None) if math.isnan(r) else (r, p)


def least_window_ns(samples: Sequence[tuple[int, int]]) -> int:
    """The least window the CPU load of one request is integrated over: two sample intervals
    of `samples`, and never less than LEAST_WINDOW_NS."""
    if len(samples) < 2:
        return LEAST_WINDOW_NS
    step = (samples[-1][0] - samples[0][0]) / (len(samples) - 1)
    return max(LEAST_WINDOW_NS, int(2 * step))


def cpu_at_requests(
    send_ns: Sequence[int], latency_ns: Sequence[int], samples: Sequence[tuple[int, int]], least_window_ns: int
) -> list[float | None]:
    """The server's CPU load over each request (percent of one core): its CPU time over the
    request's round trip, widened to `least_window_ns` around it when shorter (a sample grid
    of a few ms cannot see less), from cumulative (instant ns, CPU ns) samples, linearly
    interpolated between them. None where the samples do not cover the window."""
    if len(samples) < 2:
        return [None] * len(send_ns)
    at = np.asarray([s[0] for s in samples], dtype=float)
    # a thread that ended between two samples takes its CPU time out of the sum: never backwards
    used = np.maximum.accumulate(np.asarray([s[1] for s in samples], dtype=float))
    start = np.asarray(send_ns, dtype=float)
    end = start + np.asarray(latency_ns, dtype=float)
    short = (end - start) < least_window_ns
    middle = (start + end) / 2
    start = np.where(short, middle - least_window_ns / 2, start)
    end = np.where(short, middle + least_window_ns / 2, end)
    covered = (start >= at[0]) & (end <= at[-1])
    cpu = (np.interp(end, at, used) - np.interp(start, at, used)) / (end - start) * 100
    return [float(c) if ok else None for c, ok in zip(cpu, covered, strict=True)]
