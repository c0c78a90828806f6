"""The kinds of the cells the robustness and soak plans record (robustness/trials.py): registered
in suite.py's SuiteKind (`cells`)."""

from __future__ import annotations

from enum import StrEnum


class RobustnessCell(StrEnum):
    TRIAL = "robustness"  # one hostile client's trial
    SOAK = "soak"
