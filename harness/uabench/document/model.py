"""The report as a document: sections of paragraphs, typed tables and plot data. Figures are
computed once into it and stay numbers until a renderer (Markdown, HTML) turns them into text,
so both renderers show the same content and tables sort on numbers, never on formatted text."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from enum import Enum


class Status(Enum):
    """What a cell says about a verdict; renderers style it (HTML) or leave the text alone."""

    PASS = "pass"
    FAIL = "fail"
    NOT_SUPPORTED = "not-supported"
    MARKED = "marked"  # shown but not comparable: client-bound, emulated, not sustained


@dataclass(frozen=True)
class Estimate:
    """A mean with its 95% confidence half-width."""

    mean: float | None
    ci95: float | None = None


@dataclass(frozen=True)
class Interval:
    """A figure (a median, a ratio) with its 95% confidence interval, and the per-repetition
    values it was estimated from (the HTML page shows them on hover)."""

    center: float | None
    low: float | None = None
    high: float | None = None
    values: tuple[float, ...] = ()

    def excludes(self, value: float) -> bool:
        return self.low is not None and self.high is not None and not self.low <= value <= self.high


@dataclass(frozen=True)
class Rank:
    """A rank, or the ranks a server may hold when its interval overlaps others' ("2–3")."""

    low: int
    high: int


@dataclass(frozen=True)
class CpuShare:
    """CPU % of one core, split into user and system time."""

    total: float | None
    user: float | None
    system: float | None


@dataclass(frozen=True)
class Span:
    """Two numbers that belong together: a range (low–high) or a before → after pair."""

    first: float | None
    second: float | None
    separator: str = "–"


@dataclass(frozen=True)
class Tally:
    passed: int
    total: int


Value = None | bool | int | float | str | Estimate | Interval | Rank | CpuShare | Span | Tally


@dataclass(frozen=True)
class Cell:
    value: Value
    status: Status | None = None
    detail: Value = None  # shown in parentheses after the value: "(client-bound)", "(1/1)"

    def sort_key(self) -> tuple:
        """Numbers before text, numbers by magnitude; a missing figure sorts last."""
        number = _number(self.value)
        if number is not None:
            return (0, number, "")
        if self.value is None:
            return (2, 0.0, "")
        return (1, 0.0, str(self.value))


def _number(value: Value) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, Estimate):
        return value.mean
    if isinstance(value, Interval):
        return value.center
    if isinstance(value, Rank):
        return value.low + value.high / 1000  # "1–2" after "1", before "2"
    if isinstance(value, CpuShare):
        return value.total
    if isinstance(value, Span):
        return value.first
    if isinstance(value, Tally):
        return value.passed / value.total if value.total else None
    return None


@dataclass(frozen=True)
class Column:
    """title is the header text; unit what its numbers count (shown as the header's tooltip).
    kind: "number" (grouped, `digits` decimals), "percent" (a fraction shown × 100 with %),
    "scientific", "band" (± number), "text" (names, verdicts, marks). A counter column (e.g. CPU
    cycles) is dropped when the machine measured it nowhere in the table."""

    title: str
    unit: str = ""
    digits: int = 0
    kind: str = "number"
    counter: bool = False
    # the section its title links to: given as the start of that section's title, made its anchor
    # ("#read-server-ranking") when the report is built, and dropped where no section has it
    link: str = ""


@dataclass
class Table:
    """collapsed: a detail table (e.g. per-repetition values) that the HTML page folds away
    behind this summary line; Markdown shows it under that line."""

    columns: list[Column]
    rows: list[list[Cell]]
    notes: list[str] = field(default_factory=list)
    collapsed: str | None = None

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"a row has {len(row)} cells for {len(self.columns)} columns")

    def column(self, title: str) -> int:
        return [c.title for c in self.columns].index(title)

    def sorted_by(self, title: str, descending: bool = False) -> Table:
        """The rows in order of one column's values (numbers by magnitude, missing last)."""
        index = self.column(title)
        present = [r for r in self.rows if r[index].value is not None]
        missing = [r for r in self.rows if r[index].value is None]
        ordered = sorted(present, key=lambda r: r[index].sort_key(), reverse=descending)
        return Table(self.columns, ordered + missing, self.notes, self.collapsed)

    def without_missing_counters(self) -> Table:
        """Counter columns that no row measured are dropped, with a note naming them."""
        missing = [
            i for i, c in enumerate(self.columns) if c.counter and all(row[i].value is None for row in self.rows)
        ]
        if not missing:
            return self
        keep = [i for i in range(len(self.columns)) if i not in missing]
        names = ", ".join(self.columns[i].title for i in missing)
        note = f"Not shown: {names} — this machine's performance counters measured none of them."
        return Table(
            [self.columns[i] for i in keep],
            [[row[i] for i in keep] for row in self.rows],
            [*self.notes, note],
            self.collapsed,
        )


def cell(value: Value, status: Status | None = None, detail: Value = None) -> Cell:
    return Cell(value, status, detail)


def row(*values: Value | Cell) -> list[Cell]:
    """A table row; plain values become cells without status."""
    return [v if isinstance(v, Cell) else Cell(v) for v in values]


@dataclass(frozen=True)
class Series:
    """One line, step curve or scatter of a plot. sdk picks its colour (one per SDK across the
    report); style tells apart several series of one SDK in a plot (e.g. client/server and PubSub,
    or two load generators); fitted holds an intercept and slope drawn as a line over the points."""

    label: str
    sdk: str
    points: list[tuple[float, float]]
    style: str = ""
    fitted: tuple[float, float] | None = None


@dataclass(frozen=True)
class Figure:
    """Plot data: kind "line" (points joined), "scatter" (points, optionally a fitted line),
    "step" (a CDF) or "bar" (x = categories: series points are (category index, value))."""

    title: str
    kind: str
    xlabel: str
    ylabel: str
    series: list[Series]
    logx: bool = False
    logy: bool = False
    hline: float | None = None
    categories: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Image:
    """A drawing made by a tool rather than from plot data (a flame graph): SVG text, written
    beside the report as `file` (report-relative); the HTML page holds it inline."""

    title: str
    file: str
    svg: str = field(repr=False)


@dataclass
class Section:
    title: str
    anchor: str = ""
    paragraphs: list[str] = field(default_factory=list)  # before the tables
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # after the tables: verdicts, reasons, unmeasured points
    subsections: list[Section] = field(default_factory=list)
    warning: str | None = None

    def walk(self):
        yield self
        for sub in self.subsections:
            yield from sub.walk()


@dataclass
class Report:
    title: str
    sections: list[Section]

    def __post_init__(self) -> None:
        """Anchors unique across the report, in the form GitHub gives Markdown headings, so the
        table of contents links work in report.md on GitHub and in report.html alike."""
        seen: dict[str, int] = {}
        for section in self.sections:
            for part in section.walk():
                base = slug(part.title)
                count = seen.get(base, 0)
                seen[base] = count + 1
                part.anchor = base if count == 0 else f"{base}-{count}"
        parts = [part for section in self.sections for part in section.walk()]
        for part in parts:
            for table in part.tables:
                table.columns = [_linked(column, parts) for column in table.columns]

    def figures(self) -> list[Figure]:
        return [f for s in self.sections for part in s.walk() for f in part.figures]


def _linked(column: Column, parts: list[Section]) -> Column:
    """A column whose link names a section by the start of its title, linked to that section's
    anchor (the first such section), or not linked where the report has none."""
    if not column.link or column.link.startswith("#"):
        return column
    target = next((part for part in parts if part.title.startswith(column.link)), None)
    return replace(column, link=f"#{target.anchor}" if target else "")


def slug(title: str) -> str:
    """GitHub's heading anchor: lower case, punctuation and symbols removed, spaces to hyphens."""
    kept = "".join(c for c in title.lower() if c in " -_" or unicodedata.category(c)[0] in "LMN")
    return re.sub(" ", "-", kept)
