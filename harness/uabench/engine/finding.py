"""What a plain function concludes of one test, for its keyword to hand to Robot
(engine/keywords.conclude): pure data, so the judging is tested without Robot."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass
class Finding:
    """What a plain function concludes of one test: `status` pass, skip (not supported, a
    known deviation) or fail, with the reason, and warnings to log whatever the status."""

    status: Literal["pass", "skip", "fail"] = "pass"
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # informational lines, logged in order

    @classmethod
    def failed(cls, reason: str, warnings: list[str] | None = None) -> Finding:
        return cls("fail", reason, warnings or [])

    @classmethod
    def skipped(cls, reason: str, warnings: list[str] | None = None) -> Finding:
        return cls("skip", reason, warnings or [])
