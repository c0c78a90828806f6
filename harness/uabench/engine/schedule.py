"""How measured repetitions are scheduled, as plain functions of what was measured so far
(tested without Robot or any SDK):

- `block_order`: the order of one block's cells, shuffled per block from the run's seed, so
  drift and warm-up hit every server and variant alike;
- `Repetitions.enough`: the adaptive stop rule: every ranked figure's 95 % interval narrow
  enough, or the maximum number of blocks reached;
- `retry_disturbed`: whether a repetition disturbed by other load on the host is measured again;
- `steady_index`: where a warm-up series has become steady."""

from __future__ import annotations

import os
import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from uabench.results import stats, steady

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

# A warm-up is steady when this many successive chunks stay within ±STEADY_TOLERANCE of their mean.
STEADY_TOLERANCE = 0.02
STEADY_RUN = 3
# The 95 % interval's half-width, relative to the estimate, that ends the repetitions of a figure.
TARGET_HALF_WIDTH = 0.03
# Figures that rank need at least this many repetitions (blocks).
MIN_RANKING_REPETITIONS = 5


def block_order(items: Sequence[T], seed: int, block: int) -> list[T]:
    """The order in which block `block` measures `items`: a shuffle that depends only on the
    run's seed and the block, so a run can be replayed in the same order."""
    order = list(items)
    # A string seed goes through SHA-512 in `random`: the same order on every Python and machine.
    random.Random(f"{seed}/{block}").shuffle(order)
    return order


def interval(values: Sequence[float], seed: int = 0) -> tuple[float, float, float] | None:
    """(estimate, low, high) of the 95 % interval of repeated values, as the report computes
    it (results.stats.estimate); None with fewer than two."""
    if len(values) < 2:
        return None
    found = stats.estimate(values, seed=seed)
    return found.center, found.low, found.high


def relative_half_width(values: Sequence[float], seed: int = 0) -> float | None:
    """Half the 95 % interval over the estimate; None when it cannot be told (one value, zero)."""
    found = interval(values, seed)
    if found is None or not found[0]:
        return None
    center, low, high = found
    return (high - low) / 2 / abs(center)


@dataclass(frozen=True)
class Repetitions:
    """How many blocks a comparison runs: at least `minimum`, then more until every figure's
    95 % interval half-width is within `target` of its estimate, at most `maximum`."""

    minimum: int
    maximum: int
    target: float = TARGET_HALF_WIDTH

    def __post_init__(self) -> None:
        if not 1 <= self.minimum <= self.maximum:
            raise ValueError(f"repetitions: need 1 <= minimum <= maximum, got {self.minimum}, {self.maximum}")

    def enough(self, figures: Mapping[K, Sequence[float]], blocks: int, seed: int = 0) -> bool:
        """Whether to stop after `blocks` blocks, given each figure's values so far."""
        if blocks < self.minimum:
            return False
        if blocks >= self.maximum:
            return True
        return all(self.narrow(values, seed) for values in figures.values())

    def narrow(self, values: Sequence[float], seed: int = 0) -> bool:
        width = relative_half_width(values, seed)
        return width is not None and width <= self.target

    def wide(self, figures: Mapping[K, Sequence[float]], seed: int = 0) -> list[K]:
        """The figures whose interval is still wider than the target."""
        return [key for key, values in figures.items() if not self.narrow(values, seed)]


def retry_disturbed(reason: str | None, attempt: int, retries: int) -> bool:
    """A repetition that other load on the host disturbed (`reason`) is measured again, up to
    `retries` times (attempt 0 is the first); the last attempt is kept whatever it met, with
    its interference recorded, so a busy machine slows a run down but cannot stall it."""
    return reason is not None and attempt < retries


def steady_index(series: Sequence[float], tolerance: float = STEADY_TOLERANCE, run: int = STEADY_RUN) -> int | None:
    """The index of the first of `run` successive values that all lie within ±`tolerance` of
    their mean, or None: where a warm-up series became steady."""
    return steady.steady_start(series, tolerance=tolerance, run=run)


def run_seed() -> int:
    """The seed of a run's block orders: UABENCH_SEED to replay a run's order, else a fresh
    one (recorded in the run's provenance)."""
    given = os.environ.get("UABENCH_SEED")
    return int(given) if given else random.SystemRandom().randrange(2**32)
