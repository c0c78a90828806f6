"""When a measured series (throughput per fixed window of a client's timeline) reaches steady state.

Two rules, each from a timeline of window counts:

- ``steady_start``: the first window from which ``run`` successive windows stay within
  ±tolerance of their own mean, the rule the harness warms up by (cheap, decided online);
- ``mser5``: the MSER-5 truncation point (White 1997; batch means of 5, White, Cobb & Spratt 2000),
  which looks at the whole series afterwards and cuts where the mean squared error of what remains
  is smallest. It checks the online rule and dates the warm-up of a series recorded in full.

Neither is in scipy or numpy; MSER is a few lines of numpy over cumulative sums, written here rather
than pulling in a package (pymser) made for adsorption simulations with its own plotting dependencies.

K. P. White, Jr. (1997), "An effective truncation heuristic for bias reduction in simulation output",
Simulation 69(6), 323–334. K. P. White, Jr., M. J. Cobb, S. C. Spratt (2000), "A comparison of five
steady-state truncation heuristics for simulation", Proc. 2000 Winter Simulation Conference, 755–760."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields

import numpy as np

MSER_BATCH = 5


def steady_start(windows: Sequence[float], tolerance: float = 0.02, run: int = 3) -> int | None:
    """Index of the first window from which ``run`` successive windows all lie within ±tolerance
    of their mean; None if that never happens. Windows whose mean is zero are never steady: a client
    that has not yet completed an operation is starting, not steady."""
    if run < 1:
        raise ValueError("run must be at least one window")
    values = np.asarray(windows, dtype=float)
    for start in range(len(values) - run + 1):
        block = values[start : start + run]
        mean = block.mean()
        if mean > 0 and np.all(np.abs(block - mean) <= tolerance * mean):
            return start
    return None


def mser5(series: Sequence[float]) -> int:
    """MSER-5 truncation point: the number of leading observations to discard.

    The series is cut into batches of MSER_BATCH (a trailing partial batch is dropped) and
    d* = argmin_d  sum_{j>d} (Z_j - mean(Z_{>d}))^2 / (k - d)^2  over the k batch means Z, keeping at
    least two batches; the point is d* batches. A point past the middle of the series means the series
    did not settle within it (White 1997 then asks for a longer run): see ``mser5_settled``."""
    values = np.asarray(series, dtype=float)
    batches = len(values) // MSER_BATCH
    if batches < 3:
        return 0
    means = values[: batches * MSER_BATCH].reshape(batches, MSER_BATCH).mean(axis=1)
    # suffix sums give every candidate's squared error in one pass
    tail_sum = np.cumsum(means[::-1])[::-1]
    tail_squares = np.cumsum((means**2)[::-1])[::-1]
    remaining = np.arange(batches, 0, -1, dtype=float)
    squared_error = tail_squares - tail_sum**2 / remaining
    statistic = squared_error / remaining**2
    candidates = statistic[: batches - 1]  # at least two batches remain
    return int(np.argmin(candidates)) * MSER_BATCH


def mser5_settled(series: Sequence[float]) -> bool:
    """Whether the MSER-5 truncation point lies in the first half of the series, the usual test
    that the series reached steady state at all."""
    return mser5(series) <= len(series) // 2


@dataclass(frozen=True)
class SteadyVerdict:
    """What a steady-state cell stores of a warm-up (engine.session writes it, report.steady reads
    it): one typed record on both sides instead of a dict whose keys each side spells."""

    steady: bool
    seconds_to_steady: float | None  # the whole warm-up when never steady
    warmup_s: float | None
    chunks: int
    steady_chunk: int | None  # index of the first chunk of the steady run
    steady_by: str | None  # "tolerance" or "no trend"
    values_per_s: tuple[float, ...]  # each chunk's throughput
    chunk_starts_s: tuple[float, ...]  # each chunk's start after the first
    values_before_steady: int | None
    rule: dict = field(default_factory=dict)  # engine.warmup.SteadyRule.summary()

    def as_result(self) -> dict:
        found = asdict(self)
        return {**found, "values_per_s": list(self.values_per_s), "chunk_starts_s": list(self.chunk_starts_s)}

    @classmethod
    def from_result(cls, result: dict) -> SteadyVerdict:
        """A stored verdict; a key an older store lacks is None (chunks: as many as it has values)."""
        values = tuple(result.get("values_per_s") or ())
        known = {f.name for f in fields(cls)}
        given = {key: value for key, value in result.items() if key in known}
        return cls(
            **{
                "seconds_to_steady": None,
                "warmup_s": None,
                "steady_chunk": None,
                "steady_by": None,
                "values_before_steady": None,
                **given,
                "steady": bool(result.get("steady")),
                "chunks": int(result.get("chunks", len(values))),
                "values_per_s": values,
                "chunk_starts_s": tuple(result.get("chunk_starts_s") or ()),
                "rule": dict(result.get("rule") or {}),
            }
        )
