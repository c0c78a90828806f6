"""The report as Markdown (GitHub flavour): a table of contents linking the headings' anchors,
then every section with its tables. Plots are only in the HTML page; each is named where it is."""

from __future__ import annotations

from uabench.document.model import Report, Section, Table
from uabench.report.text import cell_text, units_text


def table(found: Table) -> list[str]:
    def line(texts: list[str]) -> str:
        return "| " + " | ".join(t.replace("|", "\\|") for t in texts) + " |"

    caption = [f"*{found.collapsed}:*", ""] if found.collapsed else []
    titles = [f"[{c.title}]({c.link})" if c.link else c.title for c in found.columns]
    lines = [*caption, line(titles), "|" + "|".join(" --- " for _ in found.columns) + "|"]
    lines += [
        line([cell_text(cell, column) for cell, column in zip(row, found.columns, strict=True)]) for row in found.rows
    ]
    units = [f"*{units_text(found)}*", ""] if units_text(found) else []
    return [*lines, "", *units, *(f"*{note}*\n" for note in found.notes)]


def contents(sections: list[Section], depth: int = 0) -> list[str]:
    lines = []
    for section in sections:
        lines.append(f"{'  ' * depth}- [{section.title}](#{section.anchor})")
        lines += contents(section.subsections, depth + 1)
    return lines


def section(part: Section, level: int = 2) -> list[str]:
    lines = [f"{'#' * level} {part.title}", ""]
    if part.warning:
        lines += [f"**WARNING: {part.warning}**", ""]
    lines += [line for paragraph in part.paragraphs for line in (paragraph, "")]
    for found in part.tables:
        lines += table(found)
    if part.notes:
        lines += [*(f"- {note}" for note in part.notes), ""]
    lines += [f"*Plot (in report.html): {figure.title}*\n" for figure in part.figures]
    lines += [f"![{image.title}]({image.file})\n" for image in part.images]
    for sub in part.subsections:
        lines += section(sub, level + 1)
    return lines


def render(report: Report) -> str:
    lines = [f"# {report.title}", "", "Contents:", "", *contents(report.sections), ""]
    for part in report.sections:
        lines += section(part)
    return "\n".join(lines).rstrip("\n") + "\n"


def first_difference(committed: list[str], fresh: list[str]) -> int | None:
    """The index of the first line where a committed page and a fresh rendering of it differ
    (where the shorter one ends, if it is a prefix of the other); None when they are the same."""
    if committed == fresh:
        return None
    return next(
        (i for i, (a, b) in enumerate(zip(committed, fresh, strict=False)) if a != b), min(len(committed), len(fresh))
    )
