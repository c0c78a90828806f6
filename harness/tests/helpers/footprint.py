"""What the footprint's unit tests share (tests/unit/test_footprint*.py): the shipped plan with
one text replaced, and a stored cell as the report reads it."""

from pathlib import Path

from helpers import REPO
from uabench import plan

PLAN = (REPO / "suites" / "plans" / "footprint.toml").read_text()


def edited_plan(tmp_path: Path, old: str, new: str) -> plan.Plan:
    """The shipped footprint plan with `old` replaced by `new` (once), loaded."""
    assert old in PLAN, old
    path = tmp_path / "footprint.toml"
    path.write_text(PLAN.replace(old, new, 1))
    return plan.load(str(path))


def cell(kind, server, variant, parameter, footprint=None, status="pass", client="open62541", **extra):
    """A stored cell as the report reads it; a passed one's result carries `footprint`."""
    result = {"footprint": footprint} if footprint is not None else None
    return {
        "kind": kind,
        "server": server,
        "client": client,
        "variant": variant,
        "parameter": str(parameter),
        "repetition": 0,
        "status": status,
        "reason": extra.get("reason"),
        "result": result,
        "client_resources": extra.get("client_resources"),
    }
