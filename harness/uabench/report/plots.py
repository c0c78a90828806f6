"""Plots for the report, rendered with matplotlib to PNG and embedded as base64, so the
HTML page needs no network and no files beside it."""

from __future__ import annotations

import base64
import io

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (the backend must be chosen first)

Series = dict[str, list[tuple[float, float]]]


def _png(figure) -> str:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=90)
    pyplot.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()


def _axes(title: str, xlabel: str, ylabel: str, logx: bool = False, logy: bool = False):
    figure, axes = pyplot.subplots(figsize=(7, 4))
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    if logx:
        axes.set_xscale("log")
    if logy:
        axes.set_yscale("log")
    axes.grid(True, which="both", alpha=0.3)
    return figure, axes


def line_plot(title: str, xlabel: str, ylabel: str, series: Series, logx: bool = False,
              logy: bool = False, hline: float | None = None) -> str | None:
    series = {k: sorted(v) for k, v in series.items() if v}
    if not series:
        return None
    figure, axes = _axes(title, xlabel, ylabel, logx, logy)
    for label, points in series.items():
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    if hline is not None:
        axes.axhline(hline, color="grey", linestyle="--", linewidth=1)
    axes.legend(fontsize=8)
    return _png(figure)


def step_plot(title: str, xlabel: str, ylabel: str, series: Series, logx: bool = False) -> str | None:
    series = {k: v for k, v in series.items() if v}
    if not series:
        return None
    figure, axes = _axes(title, xlabel, ylabel, logx)
    for label, points in series.items():
        axes.step([p[0] for p in points], [p[1] for p in points], where="post", label=label)
    axes.legend(fontsize=8)
    return _png(figure)


def bar_plot(title: str, ylabel: str, groups: dict[str, dict[str, float]], hline: float | None = None) -> str | None:
    """Bars per category (x) and series (colour): groups = {series: {category: value}}."""
    categories = sorted({c for values in groups.values() for c in values})
    if not categories:
        return None
    figure, axes = _axes(title, "", ylabel)
    width = 0.8 / max(1, len(groups))
    for index, (label, values) in enumerate(sorted(groups.items())):
        xs = [i + index * width for i in range(len(categories))]
        axes.bar(xs, [values.get(c, 0) for c in categories], width=width, label=label)
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(categories))])
    axes.set_xticklabels(categories, rotation=20, ha="right", fontsize=8)
    if hline is not None:
        axes.axhline(hline, color="grey", linestyle="--", linewidth=1)
    axes.legend(fontsize=8)
    return _png(figure)
