"""The conformance suite's verdict: each check's cell (its status and what the report shows)
and the test's finding, from the probe's checks, what the server's sdk.toml declares and
whether the server survived the probe. Plain, so it is tested without Robot or a server."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from uabench.conformance.runner import Found
from uabench.engine.cells import Outcome
from uabench.engine.finding import Finding
from uabench.sdks import Sdk

# a check's outcome -> its cell's status (a deviation and the probe's own error fail)
STATUS = {"pass": "pass", "not_supported": "not_supported", "inconclusive": "not_run"}


@dataclass(frozen=True)
class Judged:
    cells: list[tuple[Found, Outcome]]  # one per check, to record
    finding: Finding


def judge(found: list[Found], group: str, server: Sdk, alive: bool, death: str = "") -> Judged:
    """A deviation the server's sdk.toml [conformance] declares (and whose text it matches) is a
    warning, any other fails the test; after the server died, every check it did not pass is a
    deviation, and the death fails the test first (`death`: why it died)."""
    unexpected, warnings, notes, cells = [], [], [], []
    for one in found:
        verdict = one.verdict
        if not alive and verdict.outcome != "pass":
            verdict = dataclasses.replace(verdict, outcome="deviation", got=f"the server died: {verdict.got}")
        declared = server.conformance.get(one.check.id)
        failed = verdict.outcome in ("deviation", "error")
        line = f"{one.check.unit}: {one.check.title}: {verdict.got}"
        # a probe's error may be the server's doing too (a renewal left unanswered times out)
        known = bool(failed and declared and declared.matches(verdict.got))
        if known and declared:
            warnings.append(f"{server.id}: known deviation: {line} (known: {declared.why})")
        elif failed:
            unexpected.append(f"{line} (expected {one.check.expected})")
        elif declared:
            warnings.append(f"{server.id}: {one.check.id} {verdict.outcome}, though sdk.toml declares: {declared.why}")
        result = {
            "unit": one.check.unit,
            "group": group,
            "title": one.check.title,
            "cite": one.check.cite,
            "expected": one.check.expected,
            "outcome": verdict.outcome,
            "got": verdict.got,
            "headroom": verdict.headroom,
            "known": declared.why if declared and failed else None,
            "observed": one.observed,
        }
        cells.append((one, Outcome(STATUS.get(verdict.outcome, "fail"), verdict.got, result=result)))
        notes.append(f"{one.check.id}: {verdict.outcome}: {verdict.got}")
    if not alive:
        unexpected.insert(0, f"the server died during the probe: {death}")
    if unexpected:
        reason = f"{server.id}: {len(unexpected)} deviation(s): " + "; ".join(unexpected)
        return Judged(cells, Finding("fail", reason, warnings, notes))
    return Judged(cells, Finding(warnings=warnings, notes=notes))
