"""What tests/unit/test_contract.py and tests/integration/test_contract.py share."""

import json
from pathlib import Path

from helpers import REPO

VECTORS = REPO / "contract" / "vectors"


def _vectors(name: str) -> dict:
    return json.loads((VECTORS / f"{name}.json").read_text())


CONFIGS = _vectors("configs")


def _label(vector: dict) -> str:
    return f"{vector['role']}:{json.dumps(vector['config'], separators=(',', ':'))}"


def _unreadable_file(vector: dict, directory: Path) -> Path:
    path = directory / "config.json"
    path.write_bytes(b"".join(bytes.fromhex(text) * times for text, times in vector["parts"]))
    return path
