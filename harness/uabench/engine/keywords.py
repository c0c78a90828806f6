"""What every keyword component shares (robot/library.py assembles the suite's library from
them: its own, and the one its suite package registers as SuiteKind.keywords): the run's
context, and the few translations of a finding into Robot's verdicts.

A keyword stays a few lines: it calls a plain function of its suite or of the engine, which
measures, records and judges, and hands back a `Finding` (engine/finding.py); `conclude` turns that into Robot's
pass, skip (SkipExecution) or fail (AssertionError) and logs its warnings. The judging is
thereby testable without Robot (tests/unit), and every keyword concludes alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from robot.api import SkipExecution, logger
from robot.libraries.BuiltIn import BuiltIn
from robot.model import TagPatterns

from uabench import plan as plans
from uabench import sdks
from uabench.engine.cells import Outcome
from uabench.engine.finding import Finding
from uabench.engine.session import Session


@dataclass
class RunContext:
    """One suite's run as its keywords see it: the plan, the profile, the SDKs chosen, and the
    Session, opened by the library's Start Benchmark Run (`start`) the first time a keyword
    needs it."""

    suite: str
    plan: plans.Plan
    profile: str
    only: list[str] | None
    start: Callable[[], Session]
    opened: Session | None = None
    cleanups: list[Callable[[], None]] = field(default_factory=list)  # run by Finish Benchmark Run

    def session(self) -> Session:
        if self.opened is None:
            self.opened = self.start()
        return self.opened


def conclude(finding: Finding) -> None:
    """A finding as Robot's verdict: its notes and warnings logged, then skip or fail."""
    for note in finding.notes:
        logger.info(note)
    for warning in finding.warnings:
        logger.warn(warning)
    if finding.status == "skip":
        raise SkipExecution(finding.reason)
    if finding.status == "fail":
        raise AssertionError(finding.reason)
    if finding.reason:
        logger.info(finding.reason)


def passed(outcome: Outcome) -> Outcome:
    """The outcome of a cell that must pass; Robot skips what is not supported."""
    if outcome.status == "not_supported":
        raise SkipExecution(f"not supported: {outcome.reason}")
    if outcome.status != "pass":
        raise AssertionError(outcome.reason)
    return outcome


def included(servers: str) -> list[str]:
    """The servers of a comparison test that Robot's --include patterns select: the test carries
    every server's tag, so `--include server:milo` runs it, and here it measures milo alone
    (the patterns are matched against the test's tags with one server's tag in place of all)."""
    chosen = servers.split(",")
    patterns = TagPatterns(BuiltIn().get_variable_value("${OPTIONS.include}", []) or [])
    if not patterns:
        return chosen
    tags = [t for t in BuiltIn().get_variable_value("@{TEST TAGS}", []) if not t.startswith("server:")]
    return [server for server in chosen if patterns.match([*tags, f"server:{server}"])]


def load_client(reference: sdks.Sdk, server: sdks.Sdk, workload: str) -> sdks.Sdk:
    """The client that loads `server` where nothing is ranked (the robustness health reads, the
    soak's load, a footprint or profile workload): the reference client, unless the server
    declares it never gives that one a session (sdk.toml [interop], refused); then the server's
    own SDK's client, said in the log."""
    refused = server.refuses(reference.id, workload)
    if refused is None or "client" not in server.roles:
        return reference
    logger.warn(f"{server.id} refuses the {reference.id} client ({refused}): its own client loads it instead")
    return sdks.get(server.base)


def reference_for(server: sdks.Sdk, workload: str) -> sdks.Sdk:
    """load_client with the declared reference client (or the server's own SDK's, when none is
    installed)."""
    return load_client(sdks.get(plans.reference_client() or server.base), server, workload)


def us(value: float | None) -> str:
    """A latency percentile, or why there is none (too few requests to tell it: stats.min_count)."""
    return f"{value:.0f} µs" if value is not None else "– (too few requests)"


# a short verified read: what the negative security tests and the robustness health checks ask
NEGATIVE_WORKLOAD = {
    "workload": "read",
    "nodes": ["Real"],
    "nodes_per_request": 1,
    "in_flight": 1,
    "warmup_s": 0.1,
    "duration_s": 0.3,
}
