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
from uabench.report import comparison
from uabench.results import compare

# between two versions a change is a finding, not a failure (comparison.STATUS marks it as one
# between two runs of the same thing); an inconclusive one is marked as in compare
VERDICT = {compare.INCONCLUSIVE: Status.MARKED}


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


def trend(runs: Iterable[dict], cells_of: dict[int, list[dict]]) -> dict[str, dict[str, dict[str, compare.Figure]]]:
    """Per SDK measured at two or more versions: per version, its headline figures by column
    title ("<suite>: <figure>")."""
    found: dict[str, dict[str, dict[str, compare.Figure]]] = {}
    for run in runs:
        figures = [f for f in compare.run_figures(run, cells_of[run["id"]]) if f.headline]
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
    judged = compare.judge(older.estimate, newer.estimate)
    if judged.verdict == compare.INCONCLUSIVE:
        why.append(f"{what}: inconclusive: {judged.reason}.")
    change = judged.change
    if change is None or not all(math.isfinite(x) for x in (change.center, change.low, change.high)):
        return Cell(judged.verdict, VERDICT.get(judged.verdict), judged.reason)
    # signed, as compare's change column: B / A - 1 with its 95 % interval
    text = f"{100 * change.center:+.1f} % [{100 * change.low:+.1f}, {100 * change.high:+.1f}]"
    return Cell(judged.verdict, VERDICT.get(judged.verdict), text)


def version_section(runs: list[dict], cells_of: dict[int, list[dict]]) -> Section | None:
    found = trend(runs, cells_of)
    if not found:
        return None
    parts = []
    for base, versions in sorted(found.items()):
        ordered = sorted(versions, key=_order)
        titles = sorted({title for figures in versions.values() for title in figures})
        units = {title: f.unit for figures in versions.values() for title, f in figures.items()}
        # a ratio needs its decimals, a rate none
        columns = [Column("version", kind="text")] + [
            Column(t, units[t], 2 if units[t] == "ratio" else 0) for t in titles
        ]
        rows = [
            [Cell(version)]
            + [
                Cell(comparison.interval(f.estimate), detail=f.detail)
                if (f := versions[version].get(t))
                else Cell(None)
                for t in titles
            ]
            for version in ordered
        ]
        why: list[str] = []
        rows += [
            [Cell(f"{older} → {newer}")]
            + [_change(versions[older].get(t), versions[newer].get(t), why, f"{older} → {newer}, {t}") for t in titles]
            for older, newer in zip(ordered, ordered[1:], strict=False)
        ]
        parts.append(Section(f"{base}: {' → '.join(ordered)}", tables=[Table(columns, rows)], notes=why))
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
            "versions only."
        ],
        subsections=parts,
    )
