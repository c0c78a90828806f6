"""Plots of the report's figures, rendered with matplotlib to SVG for embedding inline in the
HTML page (no network, no files beside it, sharp at any zoom). Every SDK has one colour across
all plots, so a reader learns it once."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (the backend must be chosen first)

from uabench import sdks  # noqa: E402
from uabench.document.model import Figure, Series  # noqa: E402

# Each SDK's colour is its sdk.toml's `colour`. An id that declares none (another version of an
# SDK, an SDK no longer here whose figures an old store holds) takes a colour of matplotlib's
# "tab10" that no SDK declares, in the sorted order of the ids.
TAB10 = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
LINE_STYLES = ("-", "--", ":", "-.")
MARKERS = ("o", "s", "^", "D")


def palette(ids: Iterable[str]) -> dict[str, str]:
    """SDK id -> colour: the colour its sdk.toml declares, a spare one by sorted order otherwise."""
    declared = {sdk.id: sdk.colour for sdk in sdks.all_sdks() if sdk.colour}
    spare = [colour for colour in TAB10 if colour not in declared.values()] or list(TAB10)
    unknown = sorted(set(ids) - set(declared))
    return {**declared, **{sdk: spare[i % len(spare)] for i, sdk in enumerate(unknown)}}


def report_palette(figures: Iterable[Figure]) -> dict[str, str]:
    return palette(s.sdk for f in figures for s in f.series)


def svg(figure: Figure, colours: dict[str, str], salt: str = "plot") -> str | None:
    """The figure as an <svg> element, or None if it has nothing to show. `salt` keeps the ids
    inside the SVG unique among the plots of one page."""
    series = [s for s in figure.series if s.points]
    if not series:
        return None
    plot, axes = pyplot.subplots(figsize=(7.5, 4.2))
    try:
        axes.set_title(figure.title)
        axes.set_xlabel(figure.xlabel)
        axes.set_ylabel(figure.ylabel)
        if figure.logx:
            axes.set_xscale("log")
        if figure.logy:
            axes.set_yscale("log")
        axes.grid(True, which="both", alpha=0.3)
        styles = sorted({s.style for s in series})
        if figure.kind == "bar":
            _bars(axes, figure, series, colours, salt)
        else:
            for index, one in enumerate(series):
                _draw(axes, figure.kind, one, colours[one.sdk], styles.index(one.style), f"{salt}-{index}-{one.sdk}")
        if figure.hline is not None:
            axes.axhline(figure.hline, color="grey", linestyle="--", linewidth=1)
        # beside the axes, so that no legend hides a curve
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        buffer = io.StringIO()
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
            plot.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    finally:
        pyplot.close(plot)
    return _inline(buffer.getvalue(), salt)


def _inline(text: str, salt: str) -> str:
    """The <svg> element alone, without matplotlib's automatic group ids ("figure_1", "axes_1"),
    which every plot repeats and a page must not: ids that something references (salted
    hashes) and our series ids stay."""
    referenced = set(re.findall(r"#([^\s\")]+)", text))

    def keep(match: re.Match) -> str:
        name = match.group(1)
        return match.group(0) if name in referenced or name.startswith(f"{salt}-") else ""

    text = re.sub(r' id="([^"]+)"', keep, text)
    return text[text.index("<svg") :]


def _draw(axes, kind: str, series: Series, colour: str, style: int, gid: str) -> None:
    """Draws one series; its SVG groups get ids "<gid>-line", "-points", "-fit" (salt, index, SDK),
    so a reader of the SVG (or a test) finds each series."""
    points = sorted(series.points) if kind != "step" else series.points
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    line, marker = LINE_STYLES[style % len(LINE_STYLES)], MARKERS[style % len(MARKERS)]
    if kind == "step":
        axes.step(xs, ys, where="post", label=series.label, color=colour, linestyle=line, gid=f"{gid}-line")
    elif kind == "scatter":
        axes.scatter(xs, ys, color=colour, marker=marker, s=22, gid=f"{gid}-points")
        if series.fitted is not None:
            intercept, slope = series.fitted
            # sampled evenly in log space, so the line keeps its shape on a logarithmic x axis too
            low, high = min(xs), max(xs)
            line_xs = (
                [low * (high / low) ** (i / 50) for i in range(51)]
                if low > 0
                else [low + (high - low) * i / 50 for i in range(51)]
            )
            axes.plot(line_xs, [intercept + slope * x for x in line_xs], color=colour, linestyle=line, gid=f"{gid}-fit")
        # one legend entry per series, showing its marker and (if fitted) its line
        axes.plot(
            [],
            [],
            color=colour,
            marker=marker,
            linestyle=line if series.fitted else "none",
            label=series.label + (" and fitted line" if series.fitted else ""),
        )
    else:
        axes.plot(xs, ys, label=series.label, color=colour, linestyle=line, marker=marker, gid=f"{gid}-line")


def _bars(axes, figure: Figure, series: list[Series], colours: dict[str, str], salt: str) -> None:
    width = 0.8 / len(series)
    for index, one in enumerate(series):
        values = dict(one.points)
        xs = [i + index * width for i in range(len(figure.categories))]
        bars = axes.bar(
            xs,
            [values.get(i, 0) for i in range(len(figure.categories))],
            width=width,
            label=one.label,
            color=colours[one.sdk],
        )
        for category, bar in enumerate(bars):
            bar.set_gid(f"{salt}-{index}-{one.sdk}-bar{category}")
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(figure.categories))])
    axes.set_xticklabels(figure.categories, rotation=20, ha="right", fontsize=8)
