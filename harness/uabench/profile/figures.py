"""What a profile cell keeps (robot/library.py records it; profile/report.py shows it): the folded
stacks themselves, so the report draws the flame graph from the store alone, and the figures
derived from them."""

from __future__ import annotations

import statistics
from collections import Counter

from uabench.profile import folded, profilers


def summary(stacks: Counter[str], frequency_hz: int, top: int, language: str, ratios: list[float | None]) -> dict:
    measured = [r for r in ratios if r is not None]
    return {
        "profiler": profilers.tool(language),
        "frequency_hz": frequency_hz,
        "samples": sum(stacks.values()),
        "top": [f.__dict__ for f in folded.top(stacks, top)],
        "attribution": folded.attribution(stacks, folded.rules()),
        # values/s with the profiler / without it, per repetition: 1 − this is its cost
        "throughput_ratios": ratios,
        "throughput_ratio": statistics.median(measured) if measured else None,
        "folded": folded.render(stacks),
    }
