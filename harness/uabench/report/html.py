"""The report as one self-contained HTML page, from Jinja2 templates (autoescaped): inline CSS,
plots as inline SVG, a table of contents, wide tables in scrolling boxes, cells styled by the
status the model gives them."""

from __future__ import annotations

import base64

import jinja2
from markupsafe import Markup

from uabench.document.model import Cell, Column, Figure, Image, Report
from uabench.report import plots
from uabench.report.text import cell_text, repetitions_text, units_text

ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("uabench.report", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)

PROSE = 50  # characters: longer text cells (reasons, details) may wrap; names and figures never do


def cell_classes(cell: Cell, column: Column) -> str:
    classes = ["text" if column.kind == "text" else "num"]
    if column.kind == "text" and len(cell_text(cell, column)) > PROSE:
        classes.append("prose")
    if cell.status:
        classes.append(cell.status.value)
    return " ".join(classes)


def render(report: Report) -> str:
    colours = plots.report_palette(report.figures())
    images = {}
    for index, figure in enumerate(report.figures()):
        image = plots.svg(figure, colours, salt=f"plot{index}")
        # matplotlib writes the SVG and escapes the text in it; it holds no data we did not plot
        images[id(figure)] = Markup(image) if image else None

    def plot(figure: Figure) -> Markup | None:
        return images[id(figure)]

    return ENVIRONMENT.get_template("report.html.j2").render(
        report=report,
        plot=plot,
        embed=embed,
        text=cell_text,
        classes=cell_classes,
        hover=repetitions_text,
        units=units_text,
    )


def embed(image: Image) -> str:
    """A data URI: the page stays one self-contained file, and an <img> runs none of the SVG's
    scripts (inferno's flame graphs carry their own search and zoom; the written file has them)."""
    return "data:image/svg+xml;base64," + base64.b64encode(image.svg.encode()).decode()
