"""The rank rule (issue 67): one rule for every ranked figure, stated once (RULE) and quoted by the
README, the report and `uabench compare`.

Two SDKs are ordered where the interval of the ratio of their figures lies wholly beyond the
noise margin of that kind of figure on the machine that measured them: a/b above 1 + margin
orders a above b, below 1 / (1 + margin) orders it below (the same margin whichever of the two is
the numerator). The ratio is paired per block where both were measured in the same interleaved
blocks (the host's drift between blocks cancels in it) and otherwise bounded by the quotients of
the two figures' own intervals. The margin is what re-running does to such a ratio
(results/margins.py): a run's own interval says how far its blocks scattered, not how far the next
run will land (on the 2-core VMs of this project, a ratio moved by more than its interval from one
run to the next, while no pair ordered beyond the margin ever inverted).

Ranks are intervals: a figure ranks from 1 + the number of figures ordered above it to the number
not ordered below it, so what the rule cannot order shares a rank ("2–4"). A tie is an answer:
the two are within what re-running does. CV, interval width, drift and the host probe are quality
notes beside a figure, never by themselves a veto (the CV veto of before ranked nothing on a host
whose own speed varies 17–23 % between blocks). A figure that cannot rank says why in one line.

Written here rather than taken from a library: the ordering is a comparison of an interval with a
margin, and the rank interval a count over the pairs (what ann-benchmarks and TechEmpower publish
as a plain order, made honest about ties); no statistics package names it."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from uabench.results import figures, stats

RULE = (
    "Two SDKs are ordered where the 95 % interval of the ratio of their figures (paired per block where both "
    "were measured in the same blocks) lies wholly beyond the noise margin of that kind of figure on the machine "
    "that measured them: what re-running moves such a ratio by (`uabench margins`, or the stated default where "
    'none was measured). Ranks are intervals ("2–4"): a tie is an honest answer. CV, interval width, drift and '
    "the host probe are quality notes beside a figure, never a veto."
)

ABOVE, BELOW, NOT_ORDERED = 1, -1, 0


@dataclass(frozen=True)
class Noise:
    """The margin a kind of figure is ordered beyond on one machine, and where it comes from."""

    margin: float  # relative: 0.35 is a ratio beyond 1.35 (or below 1 / 1.35)
    source: str  # one sentence: measured by an A/A pair on this machine, or the stated default

    def text(self) -> str:
        return f"±{self.margin * 100:.0f} % ({self.source})"


def order(ratio: stats.Estimate | None, margin: float) -> int:
    """ABOVE where the interval of a/b lies wholly above 1 + margin, BELOW where it lies wholly
    below 1 / (1 + margin), NOT_ORDERED otherwise (no interval, or one that reaches into the margin)."""
    if ratio is None or not (math.isfinite(ratio.low) or math.isfinite(ratio.high)):
        return NOT_ORDERED
    if ratio.low > 1 + margin:
        return ABOVE
    if ratio.high < 1 / (1 + margin):
        return BELOW
    return NOT_ORDERED


def decided(ratio: stats.Estimate | None, margin: float) -> bool:
    """Whether more blocks can change what the rule says of a pair: its ratio's interval lies
    wholly beyond the margin (ordered) or wholly within it (a tie, provably within what
    re-running does)."""
    if order(ratio, margin) != NOT_ORDERED:
        return True
    return ratio is not None and ratio.low >= 1 / (1 + margin) and ratio.high <= 1 + margin


def settled(values: dict, margin: float, seed: int = 0) -> set:
    """The items of an interleaved ranking (their figure per block, in block order, each measured
    in every block until it settled) whose every pair is decided, paired over the blocks both were
    measured in: measuring them further would change no rank (criterion and pyperf stop on a
    precision target instead; a rank needs only its pairs decided)."""
    undecided = set()
    names = list(values)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            common = min(len(values[a]), len(values[b]))
            if common < 2 or not all(values[b][:common]):
                undecided |= {a, b}
                continue
            ratio = stats.paired_ratio(values[a][:common], values[b][:common], seed=seed)
            if not decided(ratio, margin):
                undecided |= {a, b}
    return set(names) - undecided


@dataclass(frozen=True)
class Ranking:
    """Rank intervals of the figures of one ranking, and how many of its pairs the rule ordered."""

    ranks: dict[str, tuple[int, int]]
    better: frozenset[tuple[str, str]]  # (a, b): a is ordered better than b
    pairs: int
    noise: Noise
    ratios: dict[tuple[str, str], float]  # (a, b) with a before b in the names given: a's figure over b's

    @property
    def ordered(self) -> int:
        return len(self.better)

    def sentence(self) -> str:
        """How much the ranking decides, for its table's notes."""
        said = f"This ranking orders {self.ordered} of its {self.pairs} pairs beyond the margin {self.noise.text()}"
        if self.ordered == self.pairs:
            return f"{said}."
        return f"{said}; the others may lie within what re-running does, and share ranks."


def rank(
    names: Iterable[str],
    ratio: Callable[[str, str], stats.Estimate | None],
    noise: Noise,
    higher_is_better: bool = True,
) -> Ranking:
    """Rank intervals of `names` by the rule, `ratio(a, b)` giving the interval of a's figure over
    b's (None where there is none: the pair is not ordered). Lower is better for a cost (an
    instruction count): the order is then reversed."""
    names = list(names)
    better: set[tuple[str, str]] = set()  # (a, b): a is ordered better than b
    ratios = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            estimate = ratio(a, b)
            if estimate is not None:
                ratios[a, b] = estimate.center
            found = order(estimate, noise.margin)
            if not higher_is_better:
                found = -found
            if found == ABOVE:
                better.add((a, b))
            elif found == BELOW:
                better.add((b, a))
    ranks = {}
    for name in names:
        above = sum((other, name) in better for other in names)
        below = sum((name, other) in better for other in names)
        ranks[name] = (1 + above, len(names) - below)
    pairs = len(names) * (len(names) - 1) // 2
    return Ranking(ranks, frozenset(better), pairs, noise, ratios)


# Fewer blocks than this give no interval worth ordering by (a t-interval of two values is ±12.7
# standard errors): the figure is shown and says so, and takes no rank.
MIN_BLOCKS = 3


def unranked(point: figures.Point) -> str | None:
    """Why a throughput figure takes no rank, in a few words (None where it ranks)."""
    if point.emulated:
        return "emulated"
    if point.throughput is None:
        return "not measured"
    if point.throughput.n < MIN_BLOCKS:
        return f"{point.throughput.n} block{'s' if point.throughput.n != 1 else ''} only: too few to rank"
    return None


def ranking_ratio(a: figures.Point, b: figures.Point, paired: bool) -> stats.Estimate | None:
    """a's values/s over b's with its interval as the rule orders by: paired per block where both
    ran in the same blocks (figures.throughput_ratio); a client-bound side as a lower bound (the
    interval opens on its side: the server did at least what its load generator delivered)."""
    found, _ = figures.throughput_ratio(a, b, paired)
    if found is None:
        return None
    low = 0.0 if b.client_bound else found.low
    high = math.inf if a.client_bound else found.high
    return replace(found, low=low, high=high)


def rank_points(points: list[figures.Point], noise: Noise, paired: bool) -> Ranking:
    """The servers of one ranking (one workload, one load generator) by values/s, by the rule: each
    pair's ratio paired per block where `paired` (the run interleaved them), a client-bound figure
    as a lower bound, the figures that cannot rank (unranked) left out."""
    ranked = {p.server: p for p in points if unranked(p) is None}
    return rank(ranked, lambda a, b: ranking_ratio(ranked[a], ranked[b], paired), noise)


def security_ranking(
    encrypted: dict[str, figures.Point], plain: dict[str, figures.Point], noise: Noise, paired: bool
) -> Ranking:
    """Servers by what a security mode costs them (higher is better: each one's throughput with
    the mode over without it), by the rule: a/b is (a's ratio) / (b's ratio), per block where all
    four figures ran in the same blocks, else the quotient of the two ratios' intervals. A server
    with fewer than MIN_BLOCKS blocks of either is left out."""

    def per_block(server: str) -> dict[tuple[int, int], float]:
        top = {(r.run_id, r.block): r.value for r in encrypted[server].per_repetition}
        bottom = {(r.run_id, r.block): r.value for r in plain[server].per_repetition}
        return {key: top[key] / bottom[key] for key in top.keys() & bottom.keys() if bottom[key]}

    def ratio(a: str, b: str) -> stats.Estimate | None:
        mine, theirs = per_block(a), per_block(b)
        common = sorted(mine.keys() & theirs.keys())
        if paired and len(common) >= 2:
            return stats.paired_ratio([mine[k] for k in common], [theirs[k] for k in common])
        return figures.ratio_of_estimates(
            figures.throughput_ratio(encrypted[a], plain[a], paired)[0],
            figures.throughput_ratio(encrypted[b], plain[b], paired)[0],
        )

    ranked = [
        server
        for server in encrypted
        if server in plain and all(unranked(p) is None for p in (encrypted[server], plain[server]))
    ]
    return rank(ranked, ratio, noise)


def distinct(ranking: Ranking) -> int:
    """How many distinct ranks the ranking gives ("1", "2–3" and "4" are three)."""
    return len(set(ranking.ranks.values()))


def ratio_changes(a: Ranking, b: Ranking) -> list[float]:
    """How far each pair's ratio moved from `a` to `b` (B / A - 1), for the pairs both hold: what
    `uabench margins` measures the PAIRS margin from."""
    changes = []
    for (x, y), before in a.ratios.items():
        after = b.ratios.get((x, y)) or (1 / b.ratios[y, x] if b.ratios.get((y, x)) else None)
        if after is not None and before:
            changes.append(after / before - 1)
    return changes


def inversions(a: Ranking, b: Ranking) -> list[tuple[str, str]]:
    """Pairs ordered one way in `a` and the other way in `b` (an A/A pair should have none): each
    as (better in a, worse in a)."""
    return sorted((x, y) for x, y in a.better if (y, x) in b.better)
