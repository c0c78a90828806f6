"""The margins of `uabench compare`, measured rather than assumed (issue 38): how far two runs of
one commit on one machine (an A/A pair: two `make bench` runs back to back) differ, per kind of
figure. A change smaller than that is what re-running does; only a change beyond it may be
called faster or slower, and only within it is a figure "same".

`uabench margins A B` measures them from an A/A pair and writes them, with the machine, the
commit and the runs they came from, to a TOML file (reports/reference/margins.toml);
`uabench compare` uses that file's margins where both of its sides ran on the machine it was
measured on, and the fixed compare.MARGIN otherwise, and says which it used.

The margin of a kind of figure is the NEAREST_RANK quantile, over that kind's figures, of how far
the A/A pair moved them (|B / A - 1|, the point change): what re-running does to most of the
figures, without letting the single noisiest figure set it. It is at least FLOOR_MARGIN
(criterion's default noise threshold: no benchmark tells 1 % apart by re-running). A kind with
fewer than MIN_FIGURES figures gets no measured margin. The point change, not the end of its
interval: compare judges a change by its interval against the margin, so a margin that held the
A/A intervals too would count their width twice and make "same" certain and "slower"
unreachable (28 Nov, 3 repetitions a figure: interval ends of ±110 % against point changes of
±35 %). A margin may exceed 100 % on a host that noisy; compare then gives figures of that kind
no verdict (compare.judge), and the comparison says so.

Margins measured from one A/A pair decide a second A/A pair and the A/B runs; applied back to the
pair they came from they would make most of its figures "same" by construction."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

from uabench import paths
from uabench.results.ranking import Noise

QUANTILE = 0.9
FLOOR_MARGIN = 0.01
MIN_FIGURES = 3


PAIRS = "throughput ratio between servers"  # a ranking's pairs, paired per block (results/ranking.py)
REFERENCE_RATIO = "throughput ratio to the reference server"
SECURITY_RATIO = "security ratio"

# The paired ratios' margins where a machine's own A/A pair has not been measured (the stated
# default), and the least they are judged with where it has: what re-running moved them by on the
# 2-core VMs of this project. PAIRS and REFERENCE_RATIO: the 90 % quantile of how far the ranking
# pairs' paired ratios moved between make bench runs of one code on one machine was 26 % (four
# pairs of published stores: reports/reference/uabench{,-aa1,-aa2}.sqlite on a Xeon VM on 28 Nov,
# uabench-epyc-bench{1,2}.sqlite on an EPYC VM; 120 changes), and ratios to open62541 moved by up to
# +35 % between two days' runs of one code on two Xeon VMs (28 Nov and 7 Dec) with no pair ordered
# beyond that inverting: 35 %, so that a rank holds on another day too. SECURITY_RATIO: the
# reference VM's A/A pair moved it by 43 % (5 figures): 45 %.
# INSTRUCTIONS: a count judged as a measured figure (a runtime that schedules by the clock: Go,
# tokio; compare.judge_count takes the others) keeps the ±5 % compare judged every figure with
# before margins were measured: the host's speed reaches it only through the scheduler.
INSTRUCTIONS = "instructions"
BETWEEN_RUNS = {PAIRS: 0.35, REFERENCE_RATIO: 0.35, SECURITY_RATIO: 0.45, INSTRUCTIONS: 0.05}
BETWEEN_RUNS_SOURCE = "what re-running moved such figures by between runs of one code on this project's VMs"
# The files whose margins apply to a machine they were measured on: the user's own (`uabench
# margins A B` writes it by default) and the published reference's.
SEARCHED = (paths.RESULTS / "margins.toml", paths.REPO / "reports" / "reference" / "margins.toml")


def kind_of(name: str, unit: str) -> str:
    """The kind of a compare figure (results.compare.Figure's name and unit) its margin is
    measured for: figures that share a source of noise."""
    if "÷" in name:
        return REFERENCE_RATIO  # paired per block: the host's drift cancels
    if unit == "ratio":
        return SECURITY_RATIO  # SignAndEncrypt / None, paired per block
    if name.startswith("sustained"):
        return "sustained signal rate"
    if "held signals/s" in name:
        return "PubSub held rate"
    if unit in ("instructions", "cycles"):
        return INSTRUCTIONS
    if name.startswith("host probe"):  # compare.HOST_PROBE_NAME (compare imports this module)
        return "host probe"  # the machine itself (proc/hostprobe.py)
    if name.startswith("values/s"):
        return "throughput"  # values/s absolute: the host's speed on the day is in it
    return "sweep point"


class MarginsError(ValueError):
    pass


@dataclass(frozen=True)
class Margin:
    kind: str
    margin: float  # relative: 0.05 is ±5 %
    figures: int  # how many A/A figures it was measured from
    largest: float  # the noisiest figure's change, for the record


@dataclass(frozen=True)
class Margins:
    """Measured margins and where they come from."""

    machine: str  # the machine fingerprint (results/provenance.py)
    cpu_model: str
    commit: str
    a: str  # what each side of the A/A pair was (stores and runs)
    b: str
    by_kind: dict[str, Margin]

    def margin(self, kind: str) -> Margin | None:
        return self.by_kind.get(kind)

    def toml(self) -> str:
        """The file `uabench margins` writes (hand-written: tomllib reads TOML, nothing in the
        standard library writes it, and these few flat keys need no library)."""
        lines = [
            "# uabench compare's margins, measured by `uabench margins A B` from an A/A pair: two runs of one",
            "# commit on one machine (results/margins.py). compare uses them where both sides ran on this machine.",
            f"machine = {_quoted(self.machine)}",
            f"cpu_model = {_quoted(self.cpu_model)}",
            f"commit = {_quoted(self.commit)}",
            f"a = {_quoted(self.a)}",
            f"b = {_quoted(self.b)}",
            f"quantile = {QUANTILE}",
            f"floor = {FLOOR_MARGIN}",
            "",
        ]
        for kind, found in sorted(self.by_kind.items()):
            lines += [
                f"[margins.{_quoted(kind)}]",
                f"margin = {found.margin:.4f}",
                f"figures = {found.figures}",
                f"largest = {found.largest:.4f}",
                "",
            ]
        return "\n".join(lines)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def measure(changes: list[tuple[str, float]]) -> dict[str, Margin]:
    """Margins from an A/A pair's changes: (kind, B / A - 1) per figure with a finite change."""
    moved: dict[str, list[float]] = {}
    for kind, change in changes:
        if math.isfinite(change):
            moved.setdefault(kind, []).append(abs(change))
    found = {}
    for kind, values in moved.items():
        if len(values) < MIN_FIGURES:
            continue
        ordered = sorted(values)
        at = ordered[max(0, math.ceil(QUANTILE * len(ordered)) - 1)]  # nearest rank
        found[kind] = Margin(kind, max(FLOOR_MARGIN, at), len(values), ordered[-1])
    return found


def load(path: Path) -> Margins:
    """A margins file; a MarginsError of one line naming the file and what is wrong."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise MarginsError(f"{path}: cannot read the margins: {error}") from None
    try:
        by_kind = {
            kind: Margin(kind, float(entry["margin"]), int(entry["figures"]), float(entry.get("largest", 0.0)))
            for kind, entry in (data.get("margins") or {}).items()
        }
        found = Margins(
            str(data["machine"]),
            str(data.get("cpu_model", "")),
            str(data["commit"]),
            str(data["a"]),
            str(data["b"]),
            by_kind,
        )
    except (KeyError, TypeError, ValueError) as error:
        raise MarginsError(f"{path}: not a margins file written by `uabench margins`: {error}") from None
    wrong = [kind for kind, m in by_kind.items() if not (math.isfinite(m.margin) and m.margin > 0)]
    if wrong:
        raise MarginsError(f"{path}: the margin of {wrong[0]!r} must be a finite number above 0")
    return found


def measured_on(machine: str | None, searched: tuple[Path, ...] = SEARCHED) -> tuple[Margins, Path] | None:
    """The margins measured on `machine` (a fingerprint) and the file they are in: the first of
    `searched` whose machine it is; None where none is (or the machine is not recorded). A file
    that cannot be read is passed over here: `uabench compare --margins` and `uabench margins` say
    what is wrong with it."""
    if not machine:
        return None
    for path in searched:
        if path.is_file():
            try:
                found = load(path)
            except MarginsError:
                continue
            if found.machine == machine:
                return found, path
    return None


def margin(kind: str, measured: Margins | None) -> float | None:
    """The margin figures of `kind` are ordered and judged beyond on the machine `measured` was
    measured on (None: none measured there): the larger of its A/A margin and BETWEEN_RUNS, either
    where the other is missing; None where neither is."""
    found = measured.margin(kind) if measured else None
    known = [m for m in (BETWEEN_RUNS.get(kind), found.margin if found else None) if m is not None]
    return max(known) if known else None


def noise(kind: str, measured: tuple[Margins, Path] | None) -> Noise:
    """The margin figures of `kind` are ordered (results/ranking.py) and judged (results/compare.py)
    beyond on one machine: the larger of its A/A margin, where one was measured there, and the
    spread between runs (BETWEEN_RUNS), which a pair of runs minutes apart does not see; the stated
    default alone where none was measured."""
    value = margin(kind, measured[0] if measured else None)
    if value is None:
        raise KeyError(f"no margin is stated for {kind!r} where none was measured")
    found = measured[0].margin(kind) if measured else None
    if measured is None or found is None:
        why = (
            f"the A/A pair in {_shown(measured[1])} has too few figures of this kind"
            if measured
            else "no A/A pair was measured on this machine"
        )
        return Noise(value, f"the stated default, {BETWEEN_RUNS_SOURCE}: {why}")
    where = f"the A/A pair in {_shown(measured[1])}"
    if value > found.margin:
        return Noise(
            value, f"the stated default, {BETWEEN_RUNS_SOURCE}, above the ±{found.margin * 100:.0f} % of {where}"
        )
    return Noise(value, f"measured on this machine by {where}")


def _shown(path: Path) -> str:
    """A path as a reader finds it: relative to the checkout where it lies in it."""
    return str(path.relative_to(paths.REPO)) if path.is_relative_to(paths.REPO) else str(path)


def of_run(run: dict, kind: str = PAIRS) -> Noise:
    """The margin figures of `kind` of a stored run are ordered and judged beyond: noise() on the
    machine the run measured on (its provenance's fingerprint)."""
    machine = ((run.get("provenance") or {}).get("machine") or {}).get("fingerprint")
    return noise(kind, measured_on(machine))
