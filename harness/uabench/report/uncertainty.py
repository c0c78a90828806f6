"""How the report shows uncertainty: a figure with its interval and repetitions, the method
stated once per table, ranks as intervals, unstable figures marked (with the reason as a note)
and never given a rank, ratios with their interval and how it was found."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from uabench.document.model import Cell, Column, Interval, Rank, Status, Table, row
from uabench.results import stats
from uabench.results.figures import Point
from uabench.results.ranking import RULE, Noise, Ranking, rank_points, unranked

UNSTABLE = "noisy"  # the mark of a figure with a quality note (stats.unstable)


def interval(found: stats.Estimate | None) -> Interval | None:
    """The figure for the report; a single value has an unbounded interval, shown as none."""
    if found is None:
        return None
    bounded = math.isfinite(found.low) and math.isfinite(found.high)
    return Interval(found.center, found.low if bounded else None, found.high if bounded else None, tuple(found.values))


def method_notes(estimates: Iterable[stats.Estimate | None]) -> list[str]:
    """Each method a table's intervals come from, once."""
    methods = dict.fromkeys(e.method for e in estimates if e is not None and e.method)
    return [f"Intervals: {method}." for method in methods]


@dataclass(frozen=True)
class Standing:
    """Where a server stands in a ranking: its rank interval, or why it has none; and the quality
    note on its figure (CV, interval width, drift: said beside it, never a veto)."""

    rank: Rank | None
    unstable: str | None  # the quality note: why the figure is noisy (it ranks all the same)
    excluded: str | None  # why it ranks as a lower bound (client-bound) or not at all: emulated, too few blocks

    def cell(self) -> Cell:
        if self.rank is not None:
            return Cell(self.rank, Status.MARKED, LOWER_BOUND) if self.excluded else Cell(self.rank)
        return Cell(None, Status.MARKED, self.excluded or "not ranked")


# A client-bound figure is what the load generator could deliver, so the server did at least this
# much: it ranks as a lower bound (its ratios open on its side), never as a value.
LOWER_BOUND = "client-bound: a lower bound"


def standings(points: list[Point], noise: Noise, paired: bool = True) -> tuple[dict[str, Standing], Ranking]:
    """Ranks by values/s (higher is better) by the rank rule (results/ranking.py): each pair of
    servers ordered where the interval of their paired ratio lies wholly beyond `noise`'s margin.
    The quality note (stats.unstable: CV, interval width, drift) is said beside a figure and does
    not take its rank: on the 2-core VMs of this project the host alone varies 17-23 % between
    blocks, and the CV veto of before ranked no server at all while the paired ratios ordered most
    pairs and none inverted between runs. A client-bound figure ranks as a lower bound."""
    found = {}
    for p in points:
        why = unranked(p)
        excluded = "client-bound" if p.client_bound and why is None else why
        found[p.server] = Standing(None, stats.unstable(p.throughput) if p.throughput else None, excluded)
    ranking = rank_points(points, noise, paired)
    for server, (low, high) in ranking.ranks.items():
        found[server] = replace(found[server], rank=Rank(low, high))
    return found, ranking


def figure_cell(found: stats.Estimate | None, standing: Standing | None = None, unstable: str | None = None) -> Cell:
    """A figure with its interval; marked when it is unstable (by its standing, or for the given
    reason) or not comparable."""
    reason = unstable or (standing.unstable if standing else None)
    excluded = standing.excluded if standing else None
    marks = [m for m in (excluded, UNSTABLE if reason else None) if m]
    return Cell(interval(found), Status.MARKED if marks else None, ", ".join(marks) or None)


def unstable_notes(reasons: dict[str, str | None]) -> list[str]:
    return [f"{name}: {reason}" for name, reason in reasons.items() if reason]


def ranking_notes(points: list[Point], found: dict[str, Standing], ranking: Ranking) -> list[str]:
    return [
        *method_notes(p.throughput for p in points),
        f"Rank: {RULE}",
        ranking.sentence(),
        *unstable_notes({server: s.unstable for server, s in found.items() if s.excluded is None}),
    ]


REPETITION_COLUMNS = [
    Column("server", kind="text"),
    Column("run"),
    Column("block"),
    Column("repetition"),
    Column("values/s", "values/s"),
]


def repetition_table(points: list[Point], about: str) -> Table | None:
    """Every repetition behind a table's figures, folded away in the HTML page."""
    rows = [
        row(p.server, r.run_id, r.block, r.repetition, r.value)
        for p in points
        for r in sorted(p.per_repetition, key=lambda r: (r.run_id, r.block, r.repetition))
    ]
    return Table(REPETITION_COLUMNS, rows, collapsed=f"Per-repetition values: {about}") if rows else None


# --- ratios ------------------------------------------------------------------------------------------

PAIRED = "paired per block (same run, same block)"


def ratio_cell(
    found: stats.Estimate | None, paired: bool, above_one_suspect: bool = False, unstable: str | None = None
) -> Cell:
    """A ratio with its interval; "paired" or "unpaired" says how it was found. A ratio that
    should not exceed 1 (encryption faster than plain) is marked unless its interval excludes 1;
    an unstable one (its reason given in a note) is marked so."""
    value = interval(found)
    if value is None:
        return Cell(None)
    marks = ["paired" if paired else "unpaired"]
    if value.low is None:
        marks.append("no interval")  # a single block, or a denominator whose interval reaches 0
    if above_one_suspect and value.center is not None and value.center > 1:
        marks.append("> 1: needs explaining" if value.excludes(1) else "interval includes 1")
    if unstable:
        marks.append(UNSTABLE)
    return Cell(value, Status.MARKED if len(marks) > 1 else None, ", ".join(marks))


def ratio_method_notes(found: Iterable[tuple[stats.Estimate | None, bool]]) -> list[str]:
    notes = []
    for estimate, paired in found:
        if estimate is None:
            continue
        how = f"{PAIRED}; {estimate.method}" if paired else estimate.method
        text = f'Ratios marked "{"paired" if paired else "unpaired"}": {how}.'
        if text not in notes:
            notes.append(text)
    return notes


def above_one_notes(label: str, ratios: dict[str, stats.Estimate | None]) -> list[str]:
    """A sentence for every ratio above 1 where the work got heavier (encryption over plain)."""
    notes = []
    for name, found in ratios.items():
        value = interval(found)
        if value is None or value.center is None or value.center <= 1:
            continue
        if value.excludes(1):
            notes.append(
                f"{name}: {label} is {value.center:.2f} [{value.low:.2f}–{value.high:.2f}], above 1 with an interval "
                "that excludes 1 — encryption measured faster than plain. That needs explaining (warm-up or order "
                "effects, a different code path) before the figure is used."
            )
        else:
            notes.append(
                f"{name}: {label} is {value.center:.2f}, but its interval includes 1: not distinguishable from no "
                "cost; it is not shown as a gain."
            )
    return notes
