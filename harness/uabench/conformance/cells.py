"""The kinds of the cells the conformance suite records, one per check and server: registered in
suite.py's SuiteKind (`cells`)."""

from __future__ import annotations

from enum import StrEnum


class ConformanceCell(StrEnum):
    CHECK = "conformance"
