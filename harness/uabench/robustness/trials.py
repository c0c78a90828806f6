"""The robustness suite's two trials of a server, each measured and stored as one cell: a hostile
batch with the server's resources and a verified read before, right after and after the recovery
wait (survive, judged by survival.py), and the soak: a steady subscription with session churn
beside it, the server's resources sampled and their growth per hour estimated (soak, growth.py).
The Robot keywords (robot/library.py) only choose the server and say what was found."""

from __future__ import annotations

import dataclasses
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from uabench import plan as plans
from uabench.engine import search
from uabench.engine.cells import Outcome
from uabench.engine.finding import Finding
from uabench.engine.session import Session
from uabench.results import stats
from uabench.robustness import runner, survival
from uabench.robustness.cells import RobustnessCell
from uabench.robustness.growth import Growth, growth
from uabench.robustness.plan import RobustnessProfile
from uabench.robustness.soak import SoakProfile, SoakSetup
from uabench.sdks import Sdk

# the soak's subscription: every signal of the server's address space, every 100 ms
SOAK_INTERVAL_MS = 100
SOAK_WARMUP_S = 0.5
METRICS = ("rss_mb", "threads", "fds")


class NoBaseline(Exception):
    """The server served no verified read before the batch: nothing to compare with."""


def survive(
    session: Session,
    client: Sdk,
    server: Sdk,
    batch: str,
    seed: int,
    chosen: RobustnessProfile,
    corpus: Path,
    health_workload: dict,
) -> tuple[dict, survival.Verdict]:
    """One hostile batch against `server` (a server of its own, 10 signals and writes): what the
    hostile client reported and the verdict, stored as a "robustness" cell. A crashed or hung
    server is stopped, so the next batch gets a fresh one."""
    running = session.pool.get(server, warm=False, signals=10, writes=10)
    pid = running.measured.process.pid

    def health() -> survival.Health:
        outcome = session.run_client(client, running, session.client_config(running, dict(health_workload)))
        if outcome.status != "pass":
            return survival.Health(False, None, search.first_line(outcome.reason))
        return survival.Health(True, stats.latency_summary(search.merged_latency([outcome]))["p50_us"])

    before, baseline = runner.resources(pid), health()
    if before is None or not baseline.ok:
        raise NoBaseline(f"{server.id} did not serve a verified read before the batch: {baseline.reason}")
    found = runner.run_batch(
        running.endpoint, batch, corpus, session.workdir / "reproducers", seed, chosen.cases, chosen.time_s
    )
    alive_after = running.alive
    after = runner.resources(pid)
    health_after = health() if alive_after else None
    time.sleep(chosen.recovery_s)
    alive_recovered = running.alive
    recovered = runner.resources(pid)
    health_recovered = health() if alive_recovered else None
    answering = alive_recovered and runner.answers_hello(running.endpoint)
    observed = survival.Observed(
        before,
        baseline,
        alive_after,
        after,
        health_after,
        alive_recovered,
        recovered,
        health_recovered,
        answering,
        found.get("details", {}).get("served_a_newcomer_meanwhile"),
    )
    verdict = survival.classify(observed)
    if verdict.outcome in ("crashed", "hung"):
        session.pool.stop(running)
    result = {
        "batch": batch,
        "outcome": verdict.outcome,
        "reason": verdict.reason,
        "memory": verdict.memory,
        "hostile": found,
        "observed": dataclasses.asdict(observed),
    }
    status = "pass" if verdict.outcome in ("unaffected", "degraded and recovered") else "fail"
    session.recorder.record(
        RobustnessCell.TRIAL,
        client,
        server,
        batch,
        0,
        {"batch": batch, "seed": seed, "cases": chosen.cases},
        Outcome(status, verdict.reason or verdict.outcome, result=result),
        running.config,
    )
    return found, verdict


@dataclass(frozen=True)
class Soaked:
    """A soak's outcome: its stored status, the subscription's outcome, each resource's growth."""

    status: str
    subscription: Outcome
    rates: dict[str, Growth | None]
    leaks: list[str]


def soak(session: Session, client: Sdk, server: Sdk, setup: SoakSetup, chosen: SoakProfile, corpus: Path) -> Soaked:
    """`server` under `client`'s subscription for the profile's duration, with session churn
    beside it when the plan asks, sampled every `sample_s`; stored as a "soak" cell, which fails
    when the subscription failed or the server died, and names what grew."""
    running = session.pool.get(server, warm=False, signals=setup.signals)
    pid = running.measured.process.pid
    load = {
        "workload": "subscribe",
        "nodes": plans.signals(setup.signals),
        "publishing_interval_ms": SOAK_INTERVAL_MS,
        "sampling_interval_ms": SOAK_INTERVAL_MS,
        "warmup_s": SOAK_WARMUP_S,
        "duration_s": chosen.duration_s,
    }
    samples: list[tuple[float, survival.Resources]] = []
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool:
        loaded = pool.submit(session.run_client, client, running, session.client_config(running, load))
        churned = (
            pool.submit(
                runner.run_batch,
                running.endpoint,
                "session-churn",
                corpus,
                session.workdir / "reproducers",
                1,
                10**6,
                chosen.duration_s,
            )
            if setup.churn
            else None
        )
        while not (loaded.done() and (churned is None or churned.done())):
            found = runner.resources(pid)
            if found is not None:
                samples.append((time.monotonic() - started, found))
            time.sleep(chosen.sample_s)
        outcome, churn = loaded.result(), churned.result() if churned else None
    times = [t for t, _ in samples]
    rates = {metric: growth(metric, times, [float(getattr(r, metric)) for _, r in samples]) for metric in METRICS}
    leaks = [m for m, g in rates.items() if g is not None and g.leak]
    result = {
        "duration_s": chosen.duration_s,
        "growth": {m: dataclasses.asdict(g) if g else None for m, g in rates.items()},
        "leaks": leaks,
        "samples": [[round(t, 2), r.rss_mb, r.threads, r.fds] for t, r in samples],
        "churn": churn,
        "subscription": {"status": outcome.status, "reason": outcome.reason},
    }
    status = "pass" if outcome.status == "pass" and running.alive else "fail"
    reason = outcome.reason if outcome.status != "pass" else ("leak: " + ", ".join(leaks) if leaks else None)
    session.recorder.record(
        RobustnessCell.SOAK, client, server, "soak", 0, load, Outcome(status, reason, result=result), running.config
    )
    return Soaked(status, outcome, rates, leaks)


RESOURCE_UNITS = {"rss_mb": "MB", "threads": "threads", "fds": "descriptors"}


def soak_finding(server_id: str, soaked: Soaked) -> Finding:
    """The soak's verdict: a failed subscription load fails it; growth whose interval lies above
    zero (a leak) is a finding, stored and warned, not a failure."""
    note = "; ".join(f"{m}: {g.text(RESOURCE_UNITS[m])}" for m, g in soaked.rates.items() if g) or "too few samples"
    warnings = [f"{server_id}: growing over the soak: {', '.join(soaked.leaks)}"] if soaked.leaks else []
    if soaked.status == "fail":
        reason = f"{server_id}: the soak's subscription load failed: {search.first_line(soaked.subscription.reason)}"
        return Finding("fail", reason, warnings, [note])
    return Finding(warnings=warnings, notes=[note])
