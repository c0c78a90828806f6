"""Where things live in a uabench checkout."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(os.environ.get("UABENCH_REPO", Path(__file__).resolve().parents[2]))
IMPLEMENTATIONS = REPO / "implementations"
ADAPTERS = REPO / "adapters"
SUITES = REPO / "suites"
RESULTS = Path(os.environ.get("UABENCH_RESULTS", REPO / "results"))


def default_store() -> Path:
    return RESULTS / "uabench.sqlite"
