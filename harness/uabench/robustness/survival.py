"""How a server came through one hostile batch (issue 18): the outcome classes and the survival
score, as plain functions of what was observed before the batch, right after it and after a
recovery wait, so each class can be shown to be detected without a server."""

from __future__ import annotations

from dataclasses import dataclass

from uabench.engine.finding import Finding
from uabench.sdks import Sdk

OUTCOMES = ("unaffected", "degraded and recovered", "degraded", "crashed", "hung")
# A health read slower than this many times its time before the batch (plus LATENCY_SLACK_US,
# a timer's jitter on a small figure) is degraded service.
LATENCY_FACTOR = 3.0
LATENCY_SLACK_US = 2000.0
# Threads or descriptors held after the batch beyond these are degraded: resources of the
# operating system that a long-running server runs out of. Memory that grew by more than the share
# and the floor is reported beside the outcome, not judged: a JVM or a V8 heap that grew keeps its
# pages (RSS does not come back when the garbage does), so held memory is no sign of a fault by
# itself; a leak is the soak's to find (robustness/growth.py).
RSS_SHARE, RSS_FLOOR_MB = 0.5, 32.0
THREADS_MORE, FDS_MORE = 8, 16


@dataclass(frozen=True)
class Resources:
    rss_mb: float
    threads: int
    fds: int
    cpu_s: float

    def memory_held(self, before: Resources) -> str | None:
        """RSS grown past the thresholds above, as a note."""
        if self.rss_mb - before.rss_mb > max(RSS_FLOOR_MB, RSS_SHARE * before.rss_mb):
            return f"RSS {before.rss_mb:.0f} → {self.rss_mb:.0f} MB"
        return None

    def grown(self, before: Resources) -> list[str]:
        """The threads and descriptors `self` holds beyond `before` past the thresholds above."""
        found = []
        if self.threads - before.threads > THREADS_MORE:
            found.append(f"threads {before.threads} → {self.threads}")
        if self.fds - before.fds > FDS_MORE:
            found.append(f"file descriptors {before.fds} → {self.fds}")
        return found


@dataclass(frozen=True)
class Health:
    """A verified read after (or before) the batch: did it pass, and its median latency."""

    ok: bool
    p50_us: float | None
    reason: str = ""

    def slow(self, before: Health) -> bool:
        if self.p50_us is None or before.p50_us is None:
            return False
        return self.p50_us > LATENCY_FACTOR * before.p50_us + LATENCY_SLACK_US


@dataclass(frozen=True)
class Observed:
    before: Resources
    baseline: Health
    alive_after: bool
    after: Resources | None
    health_after: Health | None
    alive_recovered: bool
    recovered: Resources | None
    health_recovered: Health | None
    # after the wait, a new connection's Hello was acknowledged: a server that answers (a refusal,
    # BadTooManySessions say) but serves no read is degraded, one that answers nothing is hung
    answering_recovered: bool = True
    # while connections of the batch were held open (slowloris, idle connections), a newcomer's
    # Hello was acknowledged (None: the batch holds none): a server that serves nobody while
    # held is degraded during the batch, whatever it does once they are gone
    served_meanwhile: bool | None = None


@dataclass(frozen=True)
class Verdict:
    outcome: str
    reason: str
    memory: str | None = None  # RSS held after the recovery wait (a note, not judged)


def _problems(health: Health | None, resources: Resources | None, observed: Observed) -> list[str]:
    found = []
    if health is None or not health.ok:
        found.append(f"no verified read ({health.reason if health else 'not tried'})")
    elif health.slow(observed.baseline):
        found.append(f"read p50 {observed.baseline.p50_us:.0f} → {health.p50_us:.0f} µs")
    if resources is not None:
        found += resources.grown(observed.before)
    return found


def classify(observed: Observed) -> Verdict:
    """crashed: the process died; hung: alive but answering nothing, not even a Hello, after the
    recovery wait; degraded: serving slowly, or holding threads or descriptors, or answering but
    serving no verified read after the wait;
    degraded and recovered: so during the batch (no newcomer served while it held its connections)
    or right after it, not after the wait; else unaffected. Memory
    held after the wait is noted on the verdict, whatever the outcome."""
    if not observed.alive_after or not observed.alive_recovered:
        return Verdict("crashed", "the server process died")
    memory = observed.recovered.memory_held(observed.before) if observed.recovered else None
    right_after = _problems(observed.health_after, observed.after, observed)
    if observed.served_meanwhile is False:
        right_after.insert(0, "no newcomer served while the batch held its connections")
    later = _problems(observed.health_recovered, observed.recovered, observed)
    if observed.health_recovered is None or not observed.health_recovered.ok:
        if observed.answering_recovered:
            return Verdict("degraded", "; ".join(later) + "; it answers a Hello, but serves no read", memory)
        return Verdict("hung", "; ".join(later) + "; not even a Hello answered", memory)
    if later:
        return Verdict("degraded", "; ".join(later), memory)
    if right_after:
        return Verdict("degraded and recovered", "; ".join(right_after), memory)
    return Verdict("unaffected", "", memory)


def score(outcomes: list[str]) -> float | None:
    """The share of batches a server came through serving: unaffected, or degraded and
    recovered without intervention."""
    if not outcomes:
        return None
    return sum(o in ("unaffected", "degraded and recovered") for o in outcomes) / len(outcomes)


def survival_finding(server: Sdk, batch: str, found: dict, verdict: Verdict) -> Finding:
    """The test's verdict on one hostile batch: a crash or a hang fails it, unless the server's
    sdk.toml [robustness] declares that batch's failure (and its text matches): then skipped,
    stored as it is; a degradation is a warning; held memory a note."""
    answers = ", ".join(f"{kind} ×{n}" for kind, n in sorted(found["answers"].items()))
    notes = [f"{batch}: {found['cases']} cases; answers: {answers or 'none'}; {verdict.outcome}"]
    warnings = []
    if found.get("failure"):
        warnings.append(f"{server.id}: {batch}: reproducer {found['failure']['reproducer']}")
    if verdict.outcome in ("crashed", "hung"):
        found_again = f"{verdict.outcome}: {verdict.reason}"
        known = server.robustness.get(batch)
        if known and known.matches(found_again):
            warnings.append(f"{server.id} {found_again} under {batch}: known: {known.why}")
            reason = f"known failure of {server.id} under {batch}: {known.why}; again: {found_again}"
            return Finding("skip", reason, warnings, notes)
        return Finding("fail", f"{server.id} {verdict.outcome} under {batch}: {verdict.reason}", warnings, notes)
    if verdict.outcome != "unaffected":
        warnings.append(f"{server.id}: {batch}: {verdict.outcome}: {verdict.reason}")
    if verdict.memory:
        notes.append(f"{server.id}: {batch}: memory held after the wait: {verdict.memory}")
    return Finding(warnings=warnings, notes=notes)
