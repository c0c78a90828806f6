"""The document of `uabench compare` (results/compare.py judges; this renders): the figures of two
sides in tables with their changes, verdicts and ranks, the sides described, the verdict rule
stated, written as Markdown and HTML."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

from uabench.document.model import Cell, Column, Interval, Rank, Report, Section, Status, Table
from uabench.proc import whole
from uabench.report import html, markdown
from uabench.report.sections import placement_note
from uabench.results import margins, stats
from uabench.results.compare import (
    ALPHA,
    COUNT_CHANGE,
    COUNT_SAME,
    FASTER,
    FEWER,
    HOST,
    HOST_PROBE_NAME,
    INCONCLUSIVE,
    MISSING,
    MORE,
    NO_MARGIN,
    SAME,
    SLOWER,
    VERDICTS,
    Comparison,
    Side,
    applicable,
    compare,
    load_side,
    machine_difference,
    ranking_disagreements,
    ranks,
)
from uabench.results.provenance import handicap_warning, uncommitted_warning
from uabench.results.ranking import RULE

STATUS = {
    SAME: Status.PASS,
    FASTER: Status.FAIL,
    SLOWER: Status.FAIL,
    MORE: Status.FAIL,
    FEWER: Status.FAIL,
    INCONCLUSIVE: Status.MARKED,
    MISSING: None,
}


def _deterministic(c: Comparison) -> bool:
    """Judged as a deterministic count (compare.judge_count), not against a margin."""
    return c.a is not None and c.b is not None and c.a.deterministic and c.b.deterministic


def interval(e: stats.Estimate | None, scale: float = 1.0) -> Interval | None:
    """A figure and its interval for the report; none shown where there is none (a single
    repetition). Also the version trend's (report/versions.py)."""
    if e is None:
        return None
    bounded = math.isfinite(e.low) and math.isfinite(e.high)
    return Interval(
        e.center * scale,
        e.low * scale if bounded else None,
        e.high * scale if bounded else None,
        tuple(v * scale for v in e.values),
    )


def _rank(found: tuple[int, int] | None) -> Rank | None:
    return Rank(*found) if found else None


def table(
    found: list[Comparison], digits: int, ranks_a: dict, ranks_b: dict, collapsed: str | None = None
) -> Table | None:
    if not found:
        return None
    columns = [
        Column("suite", kind="text"),
        Column("figure", kind="text"),
        Column("server", kind="text"),
        Column("A", digits=digits),
        Column("B", digits=digits),
        Column("change %", "%: B / A - 1, with its 95% interval", 1),
        Column("p", "Mann-Whitney U, two-sided", 3),
        Column("verdict", kind="text"),
        Column("A rank", kind="text"),
        Column("B rank", kind="text"),
        Column("why", kind="text"),
    ]
    rows = []
    for c in found:
        suite, name, server = c.key
        detail = next((f.detail for f in (c.a, c.b) if f is not None and f.detail), None)
        rows.append(
            [
                Cell(suite),
                Cell(name),
                Cell(server, detail=detail),
                Cell(interval(c.a.estimate) if c.a else None),
                Cell(interval(c.b.estimate) if c.b else None),
                Cell(interval(c.change, 100.0)),
                Cell(c.p_value),
                Cell(c.verdict, STATUS[c.verdict]),
                Cell(_rank(ranks_a.get(c.key))),
                Cell(_rank(ranks_b.get(c.key))),
                Cell(c.reason),
            ]
        )
    return Table(columns, rows, collapsed=collapsed)


def _describe(side: Side, letter: str) -> str:
    runs = ", ".join(f"{r['suite']} (run {r['id']}, {r['profile']} profile, {r['status']})" for r in side.runs)
    where = f"the store {side.store}" if side.label == side.store else f"{side.label} of the store {side.store}"
    # where the adapters ran, which a host-against-container comparison is about
    isolated = dict.fromkeys(placement_note(r["provenance"]) for r in side.runs)
    return f"{letter}: {where}: {runs}; " + "; ".join(isolated) + "."


def document(
    a: Side, b: Side, measured: margins.Margins | None = None, margins_path: str | None = None
) -> tuple[Report, list[Comparison], list[str]]:
    """The comparison as a report document, the comparisons themselves and the ranking sentences.
    Only the suites both sides ran are compared; the others are named. `measured`: the margins
    of an A/A pair (results/margins.py, read from `margins_path`), used where they apply."""
    suites_a, suites_b = {r["suite"] for r in a.runs}, {r["suite"] for r in b.runs}
    common = suites_a & suites_b
    used = applicable(measured, a, b)
    found = compare([f for f in a.figures if f.suite in common], [f for f in b.figures if f.suite in common], used)
    ranks_a, ranks_b = ranks(a), ranks(b)
    disagreements, separated = ranking_disagreements(a, b)

    def unit_of(c: Comparison) -> str:
        return (c.a or c.b).unit  # type: ignore[union-attr]  # every comparison has a side

    def headline(c: Comparison) -> bool:
        return any(f is not None and f.headline for f in (c.a, c.b))

    tables = [
        table([c for c in found if headline(c) and unit_of(c) != "ratio"], 0, ranks_a, ranks_b),
        table([c for c in found if headline(c) and unit_of(c) == "ratio"], 3, ranks_a, ranks_b),
        table(
            [c for c in found if not headline(c)], 0, ranks_a, ranks_b, collapsed="Every other figure with repetitions"
        ),
    ]
    counts = {v: sum(1 for c in found if c.verdict == v) for v in VERDICTS}
    tally = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
    if disagreements:
        agreement = "The rankings disagree: " + "; ".join(disagreements) + "."
    elif separated:
        agreement = (
            f"The rankings agree: of the {separated} pairs of servers the rank rule orders in both, none inverted."
        )
    else:
        agreement = "The rankings cannot disagree: the rank rule orders no pair of servers in both A and B."
    elsewhere = machine_difference(a, b)
    handicapped = [
        f"{letter}: {warning}"
        for letter, side in (("A", a), ("B", b))
        for warning in (handicap_warning(side.runs), uncommitted_warning(side.runs))
        if warning
    ]
    paragraphs = [
        _describe(a, "A"),
        _describe(b, "B"),
        *(
            f"Not compared: {', '.join(sorted(only))} (run only in {letter})."
            for letter, only in (("A", suites_a - common), ("B", suites_b - common))
            if only
        ),
        f"Verdicts: {tally or 'no figure in common'}. {agreement}",
        "Verdict: same when the 95% interval of the change (B / A - 1) lies within ± the figure's margin (the "
        "equivalence margin); faster or slower when it lies wholly beyond it (a noise threshold, "
        "as criterion's 1 % is for its benchmarks) and the Mann-Whitney U test on the repetitions gives "
        f"p < {ALPHA:g}; inconclusive otherwise, "
        "and wherever the repetitions of either side drift (a trend in the order they were measured). "
        "Figures without repetitions (ratios of medians) are judged by "
        f"their intervals alone. Ranks: {RULE}",
    ]
    if any(_deterministic(c) for c in found):
        paragraphs.append(
            "Instruction counts (simulated: valgrind counts what the server executes) are deterministic: one is "
            "the same count when the change between the lowest and highest differences of A and B lies within "
            f"±{COUNT_SAME * 100:g} %, more or fewer instructions when it lies wholly beyond "
            f"±{COUNT_CHANGE * 100:g} %, inconclusive between; no margin or rank test applies (the host's noise "
            "does not reach a count). The count of a runtime that schedules by the wall clock (Go, tokio) is "
            "judged as a measured figure."
        )
    judged = [c for c in found if not _deterministic(c)]
    if judged or not found:
        paragraphs.append(margins_paragraph(measured, used, margins_path, judged))
    drift = host_drift(found)
    if drift:
        paragraphs.append(drift)
    methods = dict.fromkeys(c.change.method for c in found if c.change is not None)
    notes = [f"Change intervals: {m}." for m in methods]
    section = Section(
        "Comparison",
        paragraphs=paragraphs,
        tables=[t for t in tables if t],
        notes=notes,
        warning=". ".join([*handicapped, *([elsewhere] if elsewhere else [])]) + "."
        if handicapped or elsewhere
        else None,
    )
    return Report(f"uabench compare: {a.label} against {b.label}", [section]), found, disagreements


def host_drift(found: list[Comparison]) -> str | None:
    """What the host probe (proc/hostprobe.py) says of the machine between A and B: a change of a
    server's figure no larger than the machine's own is not the server's."""
    probes = [c for c in found if c.key[2] == HOST and c.change is not None]
    if not probes:
        return None
    parts = [
        f"{c.key[0]} ({c.key[1].removeprefix(HOST_PROBE_NAME)}) "
        f"{change.center:+.1%} [{change.low:+.1%}, {change.high:+.1%}] ({c.verdict})"
        for c in probes
        if (change := c.change) is not None
    ]
    return (
        "Host probe (perf bench sched pipe pinned to the servers' CPUs, once per block): the machine's own change "
        f"from A to B, {'; '.join(parts)}. It is said beside the servers' changes, not divided out of them: "
        "the margins measured by an A/A pair hold the machine's drift (results/compare.judge says why)."
    )


def margins_paragraph(
    measured: margins.Margins | None, used: margins.Margins | None, path: str | None, found: list[Comparison]
) -> str:
    """Which margin each kind of figure was judged with, and where it comes from."""
    kinds = dict.fromkeys(margins.kind_of((c.a or c.b).name, (c.a or c.b).unit) for c in found if c.a or c.b)  # type: ignore[union-attr]

    def each(kind: str) -> str:
        if kind in margins.BETWEEN_RUNS:  # a paired ratio: compare.margin_of
            return f"{kind} {margins.noise(kind, (used, Path(path or '')) if used else None).text()}"
        m = used.margin(kind) if used else None
        if m is None:
            return f"{kind}: no verdict, no margin measured on this machine"
        beyond = "; beyond 100 %: no change of them can be told from the noise here" if m.margin >= 1 else ""
        return f"{kind} ±{m.margin * 100:.1f} % (from {m.figures} figures of the A/A pair{beyond})"

    if used is not None:
        where = (
            f"Margins measured on this machine by an A/A pair (two runs of commit {used.commit[:12]}: {used.a}; "
            f"{used.b}), in {path}: the {margins.QUANTILE:.0%} quantile of how far the pair moved the figures of "
            f"each kind (|B / A - 1|), at least {margins.FLOOR_MARGIN:.0%}; a paired ratio's at least the spread "
            "between runs of one code on this project's VMs"
        )
    else:
        why = (
            f"the margins in {path} were measured on {measured.cpu_model or 'another machine'} (fingerprint "
            f"{measured.machine}), not the machine of both sides"
            if measured is not None
            else "no margins measured by an A/A pair were given"
        )
        where = (
            f"No margins measured on this machine ({why}): paired ratios are judged against the stated spread "
            f"between runs of one code on this project's VMs, and no absolute wall-clock figure gets a faster or "
            f"slower verdict ({NO_MARGIN})"
        )
    return f"{where}: {'; '.join(each(kind) for kind in kinds)}."


# The title a comparison's page starts with (document): the two stores as they were named
TITLE = re.compile(r"^# uabench compare: (?P<a>.+) against (?P<b>.+)$")


def unrendered(page: Path, margins_path: Path, root: Path) -> str | None:
    """Why `page`, a compare.md of two stores, is not what this checkout renders from the stores
    its title names, judged with the margins in `margins_path` (None when it is). Names relative
    to `root` are as `uabench compare` was given them from there, and are rendered so again."""
    lines = page.read_text(encoding="utf-8").splitlines()
    named = TITLE.match(lines[0]) if lines else None
    if named is None:
        return f"{page}: its first line names no two stores ('# uabench compare: A against B')"
    sides = []
    for name in (named["a"], named["b"]):
        where = Path(name) if Path(name).is_absolute() else root / name
        if not where.is_file():
            return f"{page}: the store {name} it compares is missing"
        sides.append(replace(load_side(str(where)), label=name, store=name))
    measured = margins.load(margins_path) if margins_path.is_file() else None
    shown = str(margins_path.relative_to(root)) if margins_path.is_relative_to(root) else str(margins_path)
    report, _, _ = document(sides[0], sides[1], measured, shown if measured else None)
    line = markdown.first_difference(lines, markdown.render(report).splitlines())
    if line is None:
        return None
    return (
        f"{page} is not what this checkout's compare renders from {named['a']} and {named['b']} (first at line "
        f"{line + 1}): compare them again with --margins {shown}"
    )


def write(report: Report, out_dir: Path) -> dict[str, Path]:
    outputs = {"markdown": out_dir / "compare.md", "html": out_dir / "compare.html"}
    whole.write({outputs["markdown"]: markdown.render(report), outputs["html"]: html.render(report)})
    return outputs
