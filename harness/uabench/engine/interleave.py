"""Interleaved, randomised, adaptive repetitions of the things a figure compares (servers,
and the variants compared on each: security modes, load). Block r measures every item once,
in an order shuffled per block from the run's seed; blocks repeat until every item's figure
is narrow enough (schedule.Repetitions), or until a further block no longer fits the run's
time budget (engine.budget). A repetition that other load on the host disturbed
is measured again within its block. A plain function of a `measure` callable, so it runs the
same for every suite and is tested without Robot or any SDK."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from uabench.engine.cells import Outcome
from uabench.engine.constants import DISTURBED_RETRIES
from uabench.engine.schedule import Repetitions, block_order, retry_disturbed

K = TypeVar("K", bound=Hashable)  # what is compared: a server, or (server, variant)


def _quiet(_line: str) -> None:
    pass


def _unbounded(_block_s: float) -> bool:
    return True


@dataclass
class Interleaved(Generic[K]):
    """Per item: the outcomes kept (one per block, in block order), or why it dropped out."""

    blocks: int = 0
    kept: dict[K, list[Outcome]] = field(default_factory=dict)
    dropped: dict[K, Outcome] = field(default_factory=dict)  # failed or not supported
    disturbed: int = 0  # repetitions measured again
    wide: list[Hashable] = field(default_factory=list)  # figures still wider than the target at the end
    budget_stopped: bool = False  # the time budget ended the blocks before every figure was narrow
    settled: list[K] = field(default_factory=list)  # items that left the blocks decided, in the order they did

    def values(self, figure: Callable[[Outcome], float]) -> dict[K, list[float]]:
        return {item: [figure(o) for o in outcomes] for item, outcomes in self.kept.items()}


def interleave(
    items: Sequence[K],
    measure: Callable[[K, int, bool], Outcome],
    figure: Callable[[Outcome], float],
    repetitions: Repetitions,
    seed: int,
    retries: int = DISTURBED_RETRIES,
    log: Callable[[str], None] = _quiet,
    derived: Callable[[dict[K, list[float]]], dict[Hashable, list[float]]] | None = None,
    fits: Callable[[float], bool] = _unbounded,
    after_block: Callable[[int], None] | None = None,
    settled: Callable[[dict[K, list[float]]], set[K]] | None = None,
) -> Interleaved[K]:
    """Measures `items` in blocks. `measure(item, block, judge_host)` runs and records one
    repetition; with `judge_host` it returns status "disturbed" (already recorded as such) when
    the host's interference was beyond its threshold, and the repetition is measured again up
    to `retries` times. An item whose repetition fails or is not supported leaves the schedule.
    `derived(values)` gives further figures the stop rule judges too, such as the per-block
    ratios of two items (a paired ratio is narrower than either figure when they drift together).
    `fits(seconds)` tells whether a further block, as long as the last one took, fits the time
    budget; the fewest blocks are measured whatever it says. `after_block(block)` runs once each
    block is measured (the host probe: the machine's own noise in the same blocks).
    `settled(values)` names the items whose comparison is decided (results/ranking.settled):
    from the fewest blocks on they leave the schedule, and the blocks go on with the others, so
    the time goes to the pairs still undecided."""
    found: Interleaved[K] = Interleaved(kept={item: [] for item in items})
    active = list(items)
    while active:
        block_started = time.monotonic()
        for item in block_order(active, seed, found.blocks):
            attempt = 0
            while True:
                outcome = measure(item, found.blocks, attempt < retries)
                if not retry_disturbed(outcome.reason if outcome.status == "disturbed" else None, attempt, retries):
                    break
                found.disturbed += 1
                log(f"block {found.blocks + 1}, {item}: disturbed ({outcome.reason}); measuring it again")
                attempt += 1
            if outcome.status != "pass":
                found.dropped[item] = outcome
                found.kept.pop(item, None)
                active.remove(item)
                continue
            found.kept[item].append(outcome)
        if after_block is not None and found.kept:
            after_block(found.blocks)
        found.blocks += 1
        values = found.values(figure)
        judged: dict[Hashable, list[float]] = dict(values.items())
        judged.update(derived(values) if derived else {})
        if settled is not None and found.blocks >= repetitions.minimum:
            done = settled(values)
            found.settled += [item for item in active if item in done]
            active = [item for item in active if item not in done]
        if not active or repetitions.enough(judged, found.blocks, seed):
            found.wide = repetitions.wide(judged, seed) if active else []
            break
        if found.blocks >= repetitions.minimum and not fits(time.monotonic() - block_started):
            found.wide, found.budget_stopped = repetitions.wide(judged, seed), True
            break
    return found
