"""`uabench compare A B`: the figures of two sets of runs side by side (two stores, or two runs of
one store), each with its change, the change's interval and a verdict, and whether the rankings
agree. A re-run on the same machine should come out "same" or "inconclusive" everywhere; an SDK
upgrade shows which figures moved.

The verdict of a figure, from its per-repetition values on either side:

- same: the 95% interval of the relative change (B / A - 1) lies within ±MARGIN (equivalence
  within a stated margin, as a two one-sided test would decide; checked first, so a real but small
  shift inside the margin is "same");
- faster / slower: the whole interval lies beyond ±MARGIN on one side (as criterion's noise
  threshold, 1 % by default, does for its benchmarks: a change is reported only when it is larger
  than what re-runs on one machine differ by; MARGIN is ours, not criterion's) and the
  Mann-Whitney U test of the two sets of repetitions gives p < ALPHA (both have to agree: the
  rank test makes no assumption on the shape of the distribution, the interval says how large
  the change is);
- inconclusive: anything else, e.g. too few repetitions for either to decide, a change that may
  lie inside the margin, or repetitions that drift (stats.drift) on either side: a figure that
  was still moving when it was measured cannot be compared.

A figure without per-repetition values (a ratio of two medians) is judged by its intervals alone:
disjoint intervals are a change, anything else is inconclusive.

A simulated instruction count (the instructions suite) is deterministic, not sampled: valgrind
counts what the server executes, whatever the host does. Such a count is judged by the change
between the lowest and highest of its repeated differences on either side (_interval_change: a
spread between them widens it), with fixed thresholds instead of a margin and a test: "same"
within ±COUNT_SAME (0.5 %), "more" or "fewer" instructions beyond COUNT_CHANGE (1 %),
inconclusive between. A rank test cannot decide here (two differences a side never give
p < 0.05), and the host's noise, which the margins hold, does not reach a count. The count of a
runtime that schedules by the wall clock (the plan's time_driven languages: Go, tokio), or one of
a single difference, is judged as a measured figure."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import scipy.stats

from uabench.results import figures, kinds, margins, ranking, stats, sustain
from uabench.results import instruction_counts as counts
from uabench.results.kinds import CellKind
from uabench.results.runs import VERSIONED, latest_finished, place
from uabench.results.store import Store, open_store

MARGIN = 0.05  # the equivalence margin: a change within ±5 % is "same"
ALPHA = 0.05
SAME, FASTER, SLOWER, INCONCLUSIVE, MISSING = "same", "faster", "slower", "inconclusive", "missing"
MORE, FEWER = "more", "fewer"  # a deterministic count's change: more or fewer instructions
VERDICTS = (SAME, FASTER, SLOWER, MORE, FEWER, INCONCLUSIVE, MISSING)
COUNT_SAME = 0.005  # a count that moved less than this either way is the same count
COUNT_CHANGE = 0.01  # and one that moved more than this is more or fewer instructions
HEADLINE_SECURITY = "Basic256Sha256/SignAndEncrypt"
NO_SECURITY = "None/None"
HOST = "host"  # the server of the host probe's figures (proc/hostprobe.py): the machine itself
HOST_PROBE_NAME = "host probe operations/s, "  # and the start of their names, the comparison's variant follows


# --- the figures of one side ---------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """One figure of a set of runs: which suite, what (``name``), for which server, its estimate
    (center, interval, the per-repetition values). ``ranking`` names the group whose servers are
    ranked against each other; ``headline`` figures are the ones the report's summary shows."""

    suite: str
    name: str
    server: str
    unit: str
    estimate: stats.Estimate
    headline: bool
    ranking: str | None = None
    detail: str | None = None  # e.g. the sweep point a sustained rate was found at, "client-bound"
    higher_is_better: bool = True  # an instruction count is better lower
    deterministic: bool = False  # an instruction count of a runtime that does not run by the clock: judge_count

    @property
    def key(self) -> tuple[str, str, str]:
        return self.suite, self.name, self.server


@dataclass(frozen=True)
class Side:
    """What one side of the comparison is: a label, its store and runs, and its figures."""

    label: str
    store: str
    runs: list[dict]
    figures: list[Figure]
    # each ranking by the rank rule (results/ranking.py), by (suite, the ranking figure's name)
    rankings: dict[tuple[str, str], ranking.Ranking] = field(default_factory=dict)


def _plan(run: dict) -> dict:
    return run["provenance"].get("plan") or {}


def _marks(point: figures.Point) -> str | None:
    return ", ".join(m for m, on in (("client-bound", point.client_bound), ("emulated", point.emulated)) if on) or None


def _bracketed(held: stats.Estimate, limit: sustain.Limit) -> stats.Estimate:
    """A sustained rate as what its sweep knows of the limit: at least the rate delivered at the
    point that held, below the rate of the point that missed (the held rate scaled by the two
    points' signal counts), unbounded where the top grid point held. Its repetitions at the held
    point measure that point, not the limit: judged by them, a limit that moved one grid step
    between two make bench runs of one commit was called "faster" by +124 % at an interval of
    zero width (28 Nov); judged by the bracket (_interval_change) it is inconclusive, and "same"
    or "faster" only when the brackets are narrow enough to say so."""
    if limit.missed is None or not limit.held:
        high = math.inf  # the top grid point held: a lower bound
    else:
        high = held.center * float(limit.missed) / float(limit.held)  # type: ignore[arg-type]
    return stats.Estimate(held.center, held.center, high, held.n, None, (), "the sweep's bracket: held to missed")


def _under(point: figures.Point, primary: str | None) -> str:
    """What a throughput figure's name says of its load generator: nothing for the plan's own,
    " (C load)" for a second one (plan.second_load_generator), whose figures rank apart."""
    return f" ({point.client} load)" if primary and point.client != primary else ""


def run_figures(run: dict, cells: list[dict]) -> list[Figure]:
    """Every figure with repetitions of one run: throughput per variant (the plan's ranking
    variant is a headline), the highest sustained rate of each signal sweep and the
    SignAndEncrypt/None throughput ratio (headlines), every other sweep and PubSub point."""
    suite, plan = run["suite"], _plan(run)
    sweeps = plan.get("sweeps") or {}
    found: list[Figure] = []
    # a second load generator's ranking (plan.second_load_generator) is a figure and ranking of its own
    primary = plan.get("load_generator")

    for p in figures.points(cells, "throughput"):
        if p.throughput is not None:
            under = _under(p, primary)
            found.append(
                Figure(
                    suite,
                    f"values/s, {p.sweep}{under}",
                    p.server,
                    "values/s",
                    p.throughput,
                    p.sweep == plan.get("ranking"),
                    ranking=f"{suite}: {p.sweep}{under}",
                    detail=_marks(p),
                )
            )
    ranked = [p for p in figures.points(cells, CellKind.THROUGHPUT) if p.sweep == plan.get("ranking")]
    reference = figures.reference_server(run)
    for server, ratio in figures.reference_ratios(run, [p for p in ranked if p.client == primary]).items():
        # headline: the host's drift between runs cancels in it (issue 38); the value/s figure keeps it
        name = f"values/s ÷ {reference}'s, {plan.get('ranking')}"
        found.append(Figure(suite, name, server, "ratio", ratio, True, detail="paired"))
    swept = figures.points(cells)
    for p in swept:
        if p.throughput is not None:
            name = f"values/s, {p.sweep} = {p.parameter}"
            found.append(Figure(suite, name, p.server, "values/s", p.throughput, False, detail=_marks(p)))
    signal_sweeps = {name for name, about in sweeps.items() if about.get("kind") == "signals"}
    limits = {server: limit for (sweep, server), limit in figures.sweep_limits(cells).items() if sweep in signal_sweeps}
    sustained = figures.highest_sustained([p for p in swept if p.sweep in signal_sweeps])
    if limits:  # the point each sweep's limit names (a store from before limits: the highest sustained)
        by_key = {(p.server, p.parameter): p for p in swept if p.sweep in signal_sweeps}
        named = {server: (server, str(limit.limit.held)) for server, limit in limits.items()}
        sustained = {server: by_key[key] for server, key in named.items() if key in by_key}
    for server, p in sustained.items():
        if p.throughput is not None:
            publishing_ms = p.config.get("publishing_interval_ms", 100)
            name = f"sustained signals/s at {publishing_ms:g} ms"
            detail = limits[server].text if server in limits else f"at {p.parameter}"
            rate = _bracketed(p.throughput, limits[server].limit) if server in limits else p.throughput
            found.append(Figure(suite, name, server, "signals/s", rate, True, detail=detail))
    found += _security_ratios(suite, sweeps, swept, run)
    probed = dict.fromkeys((c["variant"], str(c.get("parameter"))) for c in cells if c["kind"] == CellKind.HOST_PROBE)
    for variant, probed_kind in probed:
        probe = figures.host_probe(cells, variant, probed_kind)
        if probe:  # the machine's own speed in the blocks of a comparison: its drift between A and B
            found.append(Figure(suite, f"{HOST_PROBE_NAME}{variant}", HOST, "operations/s", probe[0], False))
    measured = {c["kind"] for c in cells if c["kind"] in kinds.PUBSUB_MEASURED}
    for kind in sorted(measured):
        for row in figures.pubsub_rows(cells, kind):
            if row.held_throughput is not None:
                name = f"{kind} held signals/s, {row.parameter}"
                found.append(Figure(suite, name, row.publisher, "signals/s", row.held_throughput, False))
    return found + _count_figures(suite, cells, plan)


def run_rankings(run: dict, cells: list[dict]) -> dict[tuple[str, str], ranking.Ranking]:
    """Every throughput ranking of a run (one per workload and load generator) by the rank rule,
    keyed as run_figures names its figures, judged with the margin of the run's machine."""
    primary = _plan(run).get("load_generator")
    noise = margins.of_run(run)
    groups: dict[tuple[str, str], list[figures.Point]] = {}
    for p in figures.points(cells, "throughput"):
        groups.setdefault((run["suite"], f"values/s, {p.sweep}{_under(p, primary)}"), []).append(p)
    return {key: ranking.rank_points(found, noise, figures.interleaved(run)) for key, found in groups.items()}


def _count_figures(suite: str, cells: list[dict], plan: dict) -> list[Figure]:
    """The instructions suite's counts (and with the cache simulated, estimated cycles) per
    operation, of each server and of the load generator, per workload."""
    found = []
    # runtimes that schedule by the wall clock (the plan's [instructions.time_driven]: Go, tokio)
    time_driven = set((plan.get("instructions") or {}).get("time_driven") or {})
    language = {c["server"]: (c.get("result") or {}).get("language") for c in cells if c["kind"] == counts.KIND}
    clients = {
        (c["server"], c["variant"]): (c["client"], (c.get("result") or {}).get("language"))
        for c in cells
        if c["kind"] == counts.CLIENT_KIND
    }
    for kind in (counts.KIND, counts.CLIENT_KIND):
        for (server, workload), (differences, per) in counts.counted(cells, kind).items():
            if kind == counts.CLIENT_KIND:  # the load generator's own (instructions/runner.client_loads)
                client, counted_language = clients[server, workload]
                whose = f"load generator ({client}) "
            else:
                whose, counted_language = "", language.get(server)
            by_clock = counted_language in time_driven
            per_request = [d.per_request for d in differences]
            name = f"{whose}instructions per {per}, {workload}"
            found.append(_count_figure(suite, name, server, per_request, by_clock, "instructions"))
            cycles = [d.estimated_cycles for d in differences if d.estimated_cycles is not None]
            if cycles:  # with the cache simulated (the profile's cache_simulation)
                name = f"{whose}estimated cycles per {per}, {workload}"
                found.append(_count_figure(suite, name, server, cycles, by_clock, "cycles"))
    return found


def _count_figure(suite: str, name: str, server: str, values: list[float], by_clock: bool, unit: str) -> Figure:
    """A count's repeated differences as a figure: deterministic (judge_count) unless its runtime
    schedules by the clock or it is a single difference."""
    deterministic = len(values) >= 2 and not by_clock
    counted = _count(values) if deterministic else stats.estimate(values)
    return Figure(suite, name, server, unit, counted, False, higher_is_better=False, deterministic=deterministic)


def _count(values: list[float]) -> stats.Estimate:
    """A deterministic count as an estimate: its mean, and its lowest and highest differences as
    its interval (no sampling interval: each difference is the count, up to how far they lie apart)."""
    return stats.Estimate(
        sum(values) / len(values),
        min(values),
        max(values),
        len(values),
        None,
        tuple(values),
        "the repeated differences",
    )


def _security_ratios(suite: str, sweeps: dict, swept: list[figures.Point], run: dict) -> list[Figure]:
    """The SignAndEncrypt/None throughput ratio per server, in the security sweep that keeps the most
    requests in flight (the summary's throughput figure)."""
    security = [p for p in swept if sweeps.get(p.sweep, {}).get("kind") == "security"]
    if not security:
        return []
    busiest = max(
        {p.sweep for p in security},
        key=lambda name: max(p.config.get("in_flight", 1) for p in security if p.sweep == name),
    )
    base = {p.server: p for p in security if p.sweep == busiest and p.parameter == NO_SECURITY}
    found = []
    for p in security:
        if p.sweep == busiest and p.parameter == HEADLINE_SECURITY and p.server in base:
            ratio, paired = figures.throughput_ratio(p, base[p.server], figures.interleaved(run))
            if ratio is not None:
                name = f"{HEADLINE_SECURITY.split('/')[1]} / None throughput"
                found.append(
                    Figure(suite, name, p.server, "ratio", ratio, True, detail="paired" if paired else "medians")
                )
    return found


def machines(side: Side) -> dict[str | None, str]:
    """The machines a side's runs measured on, by fingerprint (results/provenance.py: CPU model,
    cores, memory, kernel, architecture), each as "AMD EPYC, 2 cores"; None: not recorded."""
    return {(run["provenance"].get("machine") or {}).get("fingerprint"): machine_name(run) for run in side.runs}


def machine_name(run: dict) -> str:
    """The machine a run measured on, as "AMD EPYC, 2 cores" (compare's header, the report's notes)."""
    machine = run["provenance"].get("machine") or {}
    if not machine:
        return "a machine not recorded"
    return f"{machine.get('cpu_model') or 'CPU model unknown'}, {machine.get('cores', '?')} cores"


def machine_difference(a: Side, b: Side) -> str | None:
    """Why a change between A and B is not the code's alone: their runs were measured on
    different machines (or A's or B's machine is not recorded). None when one machine measured
    both: only then does "faster" or "slower" say what the code did."""
    found_a, found_b = machines(a), machines(b)
    if found_a.keys() == found_b.keys() and None not in found_a and len(found_a) == 1:
        return None

    def named(found: dict[str | None, str]) -> str:
        return "; ".join(f"{text} (fingerprint {key})" if key else text for key, text in found.items())

    return (
        f"A and B were not measured on one machine: A on {named(found_a)}, B on {named(found_b)}. "
        "A change between them is the machines' as much as the code's: faster or slower here does not "
        "say what a change of code did (compare runs of one machine for that)"
    )


def latest_runs(store: Store) -> list[dict]:
    """The newest finished run of every suite that measured anything on this machine, of the pinned
    versions only (a version plan's runs have the version trend's verdicts: report/versions.py),
    unless a store holds version runs alone; a run on another target, or a version run beside
    the others, is compared by its run id (`compare A B --store S`)."""
    here = [run for run in latest_finished(store)[0] if not place(run)]
    return [run for run in here if not run.get(VERSIONED)] or here


def load_side(location: str, run_id: int | None = None) -> Side:
    """One side: the newest run of every suite in a store, or one run of it. A missing store or
    run is a ValueError (StoreError) with a sentence saying which."""
    store = open_store(location, readonly=True)
    try:
        if run_id is None:
            runs = latest_runs(store)
            if not runs:
                raise ValueError(f"the store {location} holds no runs")
            label = str(location)
        else:
            runs = [r for r in store.runs() if r["id"] == run_id]
            if not runs:
                raise ValueError(f"the store {location} holds no run {run_id}")
            label = f"run {run_id}"
        found: list[Figure] = []
        rankings: dict[tuple[str, str], ranking.Ranking] = {}
        for run in runs:
            cells = store.cells([run["id"]])
            found += run_figures(run, cells)
            rankings |= run_rankings(run, cells)
    finally:
        store.close()
    return Side(label, str(location), runs, found, rankings)


# --- verdicts ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    key: tuple[str, str, str]
    a: Figure | None
    b: Figure | None
    change: stats.Estimate | None  # B / A - 1
    p_value: float | None  # Mann-Whitney U, two-sided
    verdict: str
    reason: str
    margin: float = MARGIN  # the margin it was judged with (relative)


def _percent(x: float) -> str:
    return f"{x * 100:+.1f} %"


def judge(
    a: stats.Estimate,
    b: stats.Estimate,
    higher_is_better: bool = True,
    seed: int = 0,
    margin: float | None = MARGIN,
) -> Comparison:
    """The change from a to b with its interval, the Mann-Whitney U p-value and the verdict (the
    rules in the module docstring, with `margin` for MARGIN). ``key``, ``a`` and ``b`` of the
    result are left empty.

    The host probe of each side's blocks is not divided out of the change (it was, 3bee051 to
    this): on the 2-core VM of 28 Nov, in three pairs of make bench runs of one commit, the probe
    moved -19 % to +14 % between runs while the servers moved as much either way, unrelated to it,
    so the division left the changes as large (median |change| 0.11-0.17 either way) and, adding
    the probe's own uncertainty, doubled their intervals (median width 1.05-1.36 against
    0.50-0.69): with margins measured by an A/A pair, which hold the machine's drift, the plain
    change decided more (A/A 8-9 same against 5-6; the handicap 3 slower against 2, none false).
    The probe is compared as a figure of its own, and said beside the servers'."""
    if a.values and b.values:
        change = stats.relative_change(a.values, b.values, seed=seed)
        p = float(scipy.stats.mannwhitneyu(a.values, b.values, alternative="two-sided").pvalue)
    else:
        change, p = _interval_change(a, b), None
    low, high = change.low, change.high
    drifts = {side: stats.drift(e) for side, e in (("A", a), ("B", b))}
    drifting = "; ".join(f"{side} {why}" for side, why in drifts.items() if why)
    bounded = math.isfinite(low) and math.isfinite(high)
    if margin is None:
        verdict = INCONCLUSIVE
        reason = (
            f"the change's interval [{_percent(low)}, {_percent(high)}]; no verdict on a wall-clock figure of a "
            f"machine whose noise between runs was not measured ({NO_MARGIN})"
        )
    elif margin >= 1:
        # an A/A pair of this machine moved figures of this kind by 100 % or more: "same" within it
        # says nothing (on 28 Nov it called a sustained rate -63.5 % [-83.7, +15.4] the same) and
        # "slower" cannot be reached, so no verdict is given
        verdict = INCONCLUSIVE
        reason = (
            f"the change's interval [{_percent(low)}, {_percent(high)}]; this kind's A/A margin, "
            f"±{margin * 100:g} %, is beyond 100 %: on this machine no change of it can be told from the noise"
        )
    elif bounded and -margin <= low and high <= margin:
        verdict = SAME
        reason = f"the change's interval [{_percent(low)}, {_percent(high)}] lies within ±{margin * 100:g} %"
    elif bounded and (low > margin or high < -margin) and (p is None or p < ALPHA) and not drifting:
        verdict = FASTER if (low > 0) == higher_is_better else SLOWER
        test = "the intervals are disjoint" if p is None else f"Mann-Whitney U p = {p:.3g} < {ALPHA:g}"
        reason = f"the change's interval [{_percent(low)}, {_percent(high)}] lies beyond ±{margin * 100:g} % and {test}"
    else:
        verdict = INCONCLUSIVE
        interval = f"the change's interval [{_percent(low)}, {_percent(high)}]"
        if not bounded:
            single = min(a.n, b.n) < 2
            reason = "no interval: " + ("a single repetition" if single else "A's interval reaches 0")
        elif drifting:
            reason = f"{interval}, but in {drifting}"
        elif low > 0 or high < 0:
            if p is not None and not p < ALPHA:
                reason = f"{interval} excludes 0 but Mann-Whitney U p = {p:.3g} (not below {ALPHA:g})"
            else:
                reason = f"{interval} excludes 0 but reaches inside the ±{margin * 100:g} % noise threshold"
        else:
            reason = f"{interval} includes 0 and reaches beyond ±{margin * 100:g} %"
    return Comparison(("", "", ""), None, None, change, p, verdict, reason, margin if margin is not None else math.nan)


def judge_count(a: stats.Estimate, b: stats.Estimate) -> Comparison:
    """The change from count a to count b (the module docstring's rule for deterministic counts):
    the change between their lowest and highest differences, "same" within ±COUNT_SAME, "more" or
    "fewer" beyond COUNT_CHANGE."""
    change = _interval_change(a, b)
    low, high = change.low, change.high
    interval = f"the change between the two counts' differences [{_percent(low)}, {_percent(high)}]"
    if not (math.isfinite(low) and math.isfinite(high)):
        verdict, reason = INCONCLUSIVE, "no count to compare against (A counted no instructions)"
    elif -COUNT_SAME <= low and high <= COUNT_SAME:
        verdict, reason = SAME, f"{interval} lies within ±{COUNT_SAME * 100:g} % (a deterministic count)"
    elif low > COUNT_CHANGE or high < -COUNT_CHANGE:
        verdict = MORE if low > 0 else FEWER
        reason = f"{interval} lies beyond ±{COUNT_CHANGE * 100:g} % (a deterministic count)"
    else:
        verdict = INCONCLUSIVE
        reason = (
            f"{interval} reaches between the ±{COUNT_SAME * 100:g} % of the same count and the "
            f"±{COUNT_CHANGE * 100:g} % of a change"
        )
    return Comparison(("", "", ""), None, None, change, None, verdict, reason, COUNT_SAME)


def _interval_change(a: stats.Estimate, b: stats.Estimate) -> stats.Estimate:
    """The change between two figures known only by their intervals: its extreme quotients, a
    conservative interval (as figures.ratio_of_estimates bounds a ratio)."""
    center = b.center / a.center - 1 if a.center else math.nan
    ends = (a.low, a.high, b.low, b.high)
    low, high = -math.inf, math.inf
    if all(math.isfinite(x) for x in ends) and a.low > 0:
        low, high = b.low / a.high - 1, b.high / a.low - 1
    return stats.Estimate(center, low, high, b.n, None, (), "change from the two intervals (extreme quotients)")


# Where no A/A pair measured a machine's noise, an absolute wall-clock figure gets no verdict: the
# host's speed moved every such figure by +30 % to +127 % between two days on VMs of one kind
# (issue 67), and an assumed margin called a re-run of one code "slower".
NO_MARGIN = "`uabench margins A B` measures the margins from two runs of one commit on this machine"


def margin_of(figure: Figure, measured: margins.Margins | None) -> float | None:
    """The margin `figure` is judged with: a paired ratio's is the larger of its kind's A/A margin
    on this machine and the spread between runs (margins.noise; the stated default where none was
    measured); any other figure's is its kind's A/A margin, and None (no verdict) where this machine's
    A/A pair did not measure it."""
    kind = margins.kind_of(figure.name, figure.unit)
    if kind in margins.BETWEEN_RUNS:
        return margins.margin(kind, measured)
    found = measured.margin(kind) if measured else None
    return found.margin if found else None


def applicable(measured: margins.Margins | None, a: Side, b: Side) -> margins.Margins | None:
    """`measured` when both sides ran on the one machine it was measured on; else None (the
    noise of another machine says nothing of this one's)."""
    if measured is None:
        return None
    on = set(machines(a)) | set(machines(b))
    return measured if on == {measured.machine} else None


def compare(a: Iterable[Figure], b: Iterable[Figure], measured: margins.Margins | None = None) -> list[Comparison]:
    """Every figure of either side, matched by (suite, figure, server), in A's order then B's;
    each judged with its margin (margin_of)."""
    mine = {f.key: f for f in a}
    theirs = {f.key: f for f in b}
    found = []
    for key in [*mine, *(k for k in theirs if k not in mine)]:
        left, right = mine.get(key), theirs.get(key)
        if left is None or right is None:
            where = "B" if left is None else "A"
            found.append(Comparison(key, left, right, None, None, MISSING, f"measured only in {where}"))
            continue
        if left.deterministic and right.deterministic:
            judged = judge_count(left.estimate, right.estimate)
        else:
            judged = judge(left.estimate, right.estimate, left.higher_is_better, margin=margin_of(left, measured))
        found.append(replace(judged, key=key, a=left, b=right))
    return found


# --- rankings ------------------------------------------------------------------------------------------


def ranks(side: Side) -> dict[tuple[str, str, str], tuple[int, int]]:
    """Rank intervals of every ranking of a side by the rank rule (results/ranking.py), by the key
    of the figure each ranks."""
    return {
        (suite, name, server): rank
        for (suite, name), found in side.rankings.items()
        for server, rank in found.ranks.items()
    }


def ranking_disagreements(a: Side, b: Side) -> tuple[list[str], int]:
    """Pairs of servers the rule orders one way in A and the other way in B (a sentence each), and
    how many pairs it ordered on both sides (what agreement rests on)."""
    disagreements, both = [], 0
    for key, left in a.rankings.items():
        right = b.rankings.get(key)
        if right is None:
            continue
        group = f"{key[0]}: {key[1].removeprefix('values/s, ')}"
        disagreements += [f"{group}: {x} above {y} in A, below it in B" for x, y in ranking.inversions(left, right)]
        both += len(left.better & (right.better | {(y, x) for x, y in right.better}))
    return disagreements, both
