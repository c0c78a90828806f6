"""The kinds of the cells the instructions suite records beside its counted loads
(results.kinds.CellKind.INSTRUCTIONS): registered in suite.py's SuiteKind (`cells`)."""

from __future__ import annotations

from enum import StrEnum


class InstructionsCell(StrEnum):
    TIMING = "instructions-timing"  # the counted workload timed without valgrind
    CLIENT = "instructions-client"  # a load of the load generator under callgrind (results: CLIENT_KIND)
