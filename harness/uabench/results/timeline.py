"""Figures read from a result record's timeline (SPEC §6: what completed, by completion time,
in windows from the start of warm-up), shared by the engine's capacity search and the report."""

from __future__ import annotations


def completed_in_window(result: dict) -> int:
    """Requests that completed successfully inside the measured window [start_ns, end_ns), from
    the timeline (SPEC §6: counted by completion time). A window that straddles an edge counts
    in proportion to its overlap: completions inside a 100-ms window are taken as even."""
    timeline = result["timeline"]
    width = timeline["window_ms"] * 1e6
    start = (result["start_ns"] - timeline["start_ns"]) / width
    end = (result["end_ns"] - timeline["start_ns"]) / width
    total = 0.0
    for k, ops in enumerate(timeline["ops"]):
        overlap = min(k + 1, end) - max(k, start)
        if overlap > 0:
            total += ops * min(overlap, 1.0)
    return round(total)
