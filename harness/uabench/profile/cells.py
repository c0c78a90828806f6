"""The kinds of the cells the profile suite records (profile/keywords.py): registered in suite.py's
SuiteKind (`cells`)."""

from __future__ import annotations

from enum import StrEnum


class ProfileCell(StrEnum):
    PROFILE = "profile"  # one profiled phase: folded stacks, attribution
    TIMING = "profile-timing"  # the same workload without the profiler
