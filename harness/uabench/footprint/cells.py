"""The kinds of the cells the footprint suite records (footprint/runner.py) and reports
(footprint/report.py): registered in suite.py's SuiteKind (`cells`)."""

from __future__ import annotations

from enum import StrEnum


class FootprintCell(StrEnum):
    SERVER = "footprint"  # a server's RSS at one step of what it holds
    STARTUP = "footprint-startup"
    WARMUP = "footprint-warmup"  # a start before a server's start-up points, discarded from them
    CLIENT = "footprint-client"
    IMAGE = "footprint-image"  # a built image's size
    IMPORT = "footprint-import"  # a server started with (or without) a companion model's files


# the variant of the import points that import nothing: what each model is set beside
NO_MODEL = "none"
# the reason's start of a failed import that the server's sdk.toml declares ([nodeset_import])
KNOWN = "known: "
