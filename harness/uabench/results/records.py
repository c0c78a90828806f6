"""The check of every result record before the harness stores it: an adapter that breaks the
contract (contract/schema, SPEC §5-§6) must not put numbers into the store."""

from __future__ import annotations

import uabench_contract as contract
from uabench_contract import validation


def validate_result(record: dict) -> list[str]:
    """The problems of one adapter's result record (as printed, before the harness combines
    records of several processes), each naming its JSON path; empty if it keeps the contract."""
    problems = validation.problems("result", record)
    # The rules beyond the schema read fields the schema guarantees.
    return problems or contract.record_problems(record)
