"""The kinds of the cells the resilience suite records, one per fault and server: registered in
suite.py's SuiteKind (`cells`)."""

from __future__ import annotations

from enum import StrEnum


class ResilienceCell(StrEnum):
    RECOVERY = "resilience"
