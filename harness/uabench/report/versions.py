"""The version trend (issue 19): an SDK measured at more than one of its versions in the same
runs (sdk.toml `[versions."V"]`, a plan's `versions` profiles; adapters/SPEC.md §1), its
headline figures per version with their intervals, and the `uabench compare` verdict from each
version to the next. The versions were measured in the same interleaved blocks as the ranking,
against the same reference client, so a verdict compares them under one load and one machine
state; the verdict rule is compare's (results/compare.py: faster or slower only when the whole
95 % interval of the change lies beyond ±5 % and Mann-Whitney U agrees)."""

from __future__ import annotations

import math
from collections.abc import Iterable

from uabench.document.model import Cell, Column, Section, Status, Table
from uabench.plan import suite_kinds
from uabench.report import comparison
from uabench.results import compare

# between two versions a change is a finding, not a failure (comparison.STATUS marks it as one
# between two runs of the same thing); an inconclusive one is marked as in compare
VERDICT = {compare.INCONCLUSIVE: Status.MARKED}
MEMORY_UNITS = ("MiB", "KiB")
MEMORY = {compare.FASTER: "less", compare.SLOWER: "more"}  # of memory, lower better


def variant(server: str) -> bool:
    """A server measured at another version than its pinned one (`asyncua@1.1.8`)."""
    return "@" in server


def without_versions(cells: list[dict]) -> list[dict]:
    """The cells of the pinned versions only: what the rankings, matrices and summary show."""
    return [c for c in cells if not variant(c["server"]) and not variant(c["client"])]


def _version(server: str, run: dict) -> str:
    """The version a server ran at, as its run's provenance recorded it."""
    version = server.partition("@")[2]
    declared = (run["provenance"].get("sdks") or {}).get(server) or {}
    return version or str(declared.get("version", "pinned"))


def _order(version: str) -> tuple:
    from packaging.version import InvalidVersion, Version

    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def _trended(figure: compare.Figure) -> bool:
    """A figure the trend shows: a headline, or a server's own instruction or estimated cycle count
    (the instructions suite's; the load generator's counts are the reference client's, not the
    version's)."""
    counted = figure.unit in ("instructions", "cycles") and not figure.name.startswith("load generator")
    return figure.headline or counted


def run_figures(run: dict, cells: list[dict]) -> list[compare.Figure]:
    """A run's figures as compare finds them in every run, and its suite's own (plan.SuiteKind.figures:
    the footprint's)."""
    own = [kind.figures for kind in suite_kinds().values() if kind.figures and kind.table == run["suite"]]
    return compare.run_figures(run, cells) + [f for figures in own for f in figures(run, cells)]


def trend(runs: Iterable[dict], cells_of: dict[int, list[dict]]) -> dict[str, dict[str, dict[str, compare.Figure]]]:
    """Per SDK measured at two or more versions: per version, its headline figures by column
    title ("<suite>: <figure>")."""
    found: dict[str, dict[str, dict[str, compare.Figure]]] = {}
    for run in runs:
        figures = [f for f in run_figures(run, cells_of[run["id"]]) if _trended(f)]
        measured = {f.server.partition("@")[0] for f in figures if variant(f.server)}
        for f in figures:
            base = f.server.partition("@")[0]
            if base in measured:
                versions = found.setdefault(base, {})
                versions.setdefault(_version(f.server, run), {})[f"{f.suite}: {f.name}"] = f
    return {base: versions for base, versions in found.items() if len(versions) > 1}


def _change(older: compare.Figure | None, newer: compare.Figure | None, why: list[str], what: str) -> Cell:
    """The change from one version to the next: percent with its interval, and the verdict; an
    inconclusive one's reason (which of compare's rules withheld the verdict) goes to `why`."""
    if older is None or newer is None:
        return Cell(None, detail="measured at one version only")
    if older.deterministic and newer.deterministic:  # an instruction count: compare's rule for counts
        judged = compare.judge_count(older.estimate, newer.estimate)
    else:
        judged = compare.judge(older.estimate, newer.estimate, older.higher_is_better)
    if judged.verdict == compare.INCONCLUSIVE:
        why.append(f"{what}: inconclusive: {judged.reason}.")
    # memory is not fast or slow: compare's "faster" of a figure lower better is less of it
    verdict = MEMORY.get(judged.verdict, judged.verdict) if older.unit in MEMORY_UNITS else judged.verdict
    change = judged.change
    if change is None or not all(math.isfinite(x) for x in (change.center, change.low, change.high)):
        return Cell(verdict, VERDICT.get(judged.verdict), judged.reason)
    # signed, as compare's change column: B / A - 1 with its 95 % interval
    text = f"{100 * change.center:+.1f} % [{100 * change.low:+.1f}, {100 * change.high:+.1f}]"
    return Cell(verdict, VERDICT.get(judged.verdict), text)


def _table(
    versions: dict[str, dict[str, compare.Figure]], ordered: list[str], titles: list[str], why: list[str]
) -> Table:
    """One suite's figures of an SDK: a row per version, then a change row per consecutive pair."""
    units = {title: f.unit for figures in versions.values() for title, f in figures.items()}
    # a ratio needs its decimals, a rate or a count none, memory and times one
    digits = {"ratio": 2, "MiB": 1, "KiB": 1, "ms": 0, "µs": 0}
    columns = [Column("version", kind="text")] + [Column(t, units[t], digits.get(units[t], 0)) for t in titles]
    rows = [
        [Cell(version)]
        + [
            Cell(comparison.interval(f.estimate), detail=f.detail) if (f := versions[version].get(t)) else Cell(None)
            for t in titles
        ]
        for version in ordered
    ]
    rows += [
        [Cell(f"{older} → {newer}")]
        + [_change(versions[older].get(t), versions[newer].get(t), why, f"{older} → {newer}, {t}") for t in titles]
        for older, newer in zip(ordered, ordered[1:], strict=False)
    ]
    return Table(columns, rows)


def _machine(run: dict) -> dict:
    return run["provenance"].get("machine") or {}


def _where(runs: list[dict], others: list[dict]) -> str:
    """Which runs the trend was measured in, by which commit, on which machine; and where that
    machine is not the one of the report's other runs, that its figures compare only among
    themselves."""
    commits = sorted({str(run["provenance"].get("git_commit") or "unknown")[:12] for run in runs})
    machines = {_machine(run).get("fingerprint"): _machine(run) for run in runs}
    named = "; ".join(
        f"{compare.machine_name(run)} (fingerprint {fingerprint})"
        for fingerprint, run in {_machine(run).get("fingerprint"): run for run in runs}.items()
    )
    ids = ", ".join(f"{run['id']} ({run['suite']})" for run in sorted(runs, key=lambda r: r["id"]))
    text = f"Measured in runs {ids}, by {', '.join(commits)}, on {named}."
    elsewhere = {_machine(run).get("fingerprint") for run in others} - set(machines)
    if elsewhere:
        text += (
            " The report's other runs were measured on another machine (their provenance names it): a version "
            "compares with the other versions of its own runs, which shared its blocks and machine, not with "
            "the rankings' figures."
        )
    return text


def version_section(
    runs: list[dict], cells_of: dict[int, list[dict]], others: Iterable[dict] = (), sdks: list[str] | None = None
) -> Section | None:
    """The version trend of `runs` (their cells in `cells_of`, every version's), of `sdks` only where
    given; `others`, the report's other runs, only to say whether they were measured elsewhere."""
    found = {base: v for base, v in trend(runs, cells_of).items() if sdks is None or base in sdks}
    if not found:
        return None
    parts = []
    for base, versions in sorted(found.items()):
        ordered = sorted(versions, key=_order)
        # each suite's figures in the order its runs give them (the footprint's as its section's columns)
        titles = sorted(
            dict.fromkeys(title for figures in versions.values() for title in figures),
            key=lambda title: title.partition(":")[0],
        )
        by_suite: dict[str, list[str]] = {}
        for title in titles:
            by_suite.setdefault(title.partition(":")[0], []).append(title)
        why: list[str] = []
        tables = [_table(versions, ordered, of_suite, why) for of_suite in by_suite.values()]
        parts.append(Section(f"{base}: {' → '.join(ordered)}", tables=tables, notes=why))
    measured = [run for run in runs if any(variant(c["server"]) for c in cells_of[run["id"]])]
    return Section(
        "Version trend",
        paragraphs=[
            "Does upgrading an SDK make it faster or slower? Each SDK below was measured at every version its "
            "sdk.toml declares (adapters/SPEC.md §1, versions side by side: one adapter, the version chosen by "
            "UABENCH_SDK_VERSION), as a server under the reference client's load, in the same interleaved blocks "
            "as the rankings: the same workloads, the same machine state. Figures are medians with 95 % bootstrap "
            "intervals. Each change row is `uabench compare`'s verdict from the older version to the newer one, "
            "with the change in percent and its 95 % interval: faster or slower only when the whole interval lies "
            "beyond ±5 % and Mann-Whitney U agrees (p < 0.05), inconclusive otherwise; for the SignAndEncrypt / "
            "None ratio, faster means the security costs less. The rankings and the summary show the pinned "
            "versions only.",
            "A table per suite. The footprint's figures (its section: every point a server process of its own; "
            "a version's points in a shuffled order, the versions one after another, not interleaved) are lower "
            "better: memory is called less or more, a time "
            "faster or slower. Its idle RSS and times are medians with the range of their processes, and a "
            "change is judged by those ranges (the change between their extreme quotients: beyond ±5 % where "
            "they lie apart by more, same where within); a slope (per session, subscription, monitored item, "
            "1,000 signals) by its 95 % interval. An instruction count (the instructions suite: simulated, per "
            "request) is judged as compare judges counts: the same within ±0.5 %, more or fewer instructions "
            "beyond 1 %.",
            _where(measured or runs, list(others)),
        ],
        subsections=parts,
    )
