"""One resilience test: an incident staged (incident.py), what it did read from the client's
record (recovery.py), judged and stored as one "resilience" cell per repetition."""

from __future__ import annotations

import dataclasses

from uabench.engine.cells import Outcome
from uabench.engine.finding import Finding
from uabench.resilience.cells import ResilienceCell
from uabench.resilience.incident import Staged, stage
from uabench.resilience.plan import ResilienceProfile
from uabench.resilience.recovery import Recovery, recovery
from uabench.sdks import Sdk

RESUMED = ("resumed", "resumed unnoticed")


def _declared(client: Sdk, found: Recovery) -> str | None:
    """What the client's sdk.toml declares it lacks that explains a load that did not resume:
    `reconnect` (no automatic reconnection, or one that gives up), or `resubscribe` (it
    reconnects, but leaves subscriptions the server no longer has to the application, or
    re-creates them without publishing again)."""
    if "reconnect" in client.not_supported:
        return "reconnect"
    # the session came back (or the SDK said what became of its subscriptions) but no notification
    # did: what `resubscribe` declares, whether the SDK calls them lost or re-creates them idle
    came_back = found.subscriptions == "lost" or (found.subscriptions is not None and found.reconnected_s is not None)
    if came_back and "resubscribe" in client.not_supported:
        return "resubscribe"
    return None


def assess(staged: Staged, client: Sdk, server: Sdk) -> tuple[Outcome, Recovery | None]:
    """The cell's status and reason: pass when the load resumed with every value right; not
    supported when it did not and the client's SDK declares why (_declared);
    fail otherwise (the harness could not stage it, the client broke, the server could not be
    started again on its port, the load did not resume, values were wrong). A failure the
    server's sdk.toml declares for this client ([resilience]), or the client's for this server
    ([client_resilience]), stays a failure, its result marked `known` with the behaviour that
    causes it and `known_on`, whose it is."""
    outcome, result = staged.outcome, staged.outcome.result
    if staged.incident is None:
        return Outcome("fail", f"the client never connected: {outcome.reason or outcome.status}"), None
    if result is None:
        return Outcome("fail", f"the client gave no result: {outcome.reason or outcome.status}"), None
    found = recovery(result, staged.incident)
    stored = {
        **result,
        "incident": dataclasses.asdict(staged.incident),
        "recovery": found.summary(),
        "restart_failure": staged.restart_failure,
    }
    wrong = result["verification"]["failed"]
    if staged.restart_failure:
        status, reason = "fail", f"the server could not be started again on its port: {staged.restart_failure}"
    elif wrong:
        examples = "; ".join(result["verification"]["examples"][:3])
        status, reason = "fail", f"{wrong} values wrong through the incident: {examples}"
    elif found.verdict in RESUMED:
        status, reason = "pass", None
    elif found.verdict == "did not resume" and (declared := _declared(client, found)):
        status, reason = "not_supported", f"did not resume: {client.reason_unsupported(declared)}"
    else:
        status, reason = "fail", f"{found.verdict}: {found.why}"
    test = f"{staged.incident.kind}/{staged.client_config.get('workload', '')}"
    for owner, role, peer, known in (
        (server, "server", client, server.resilience.get(test)),
        (client, "client", server, client.client_resilience.get(test)),
    ):
        if status == "fail" and known and known.matches(peer.id, reason or ""):
            stored["known"], stored["known_on"] = known.why, f"{owner.id} ({role})"
            break
    return Outcome(status, reason, result=stored), found


def measure(
    session, client: Sdk, server: Sdk, kind: str, workload: str, chosen: ResilienceProfile, signals: int
) -> list[tuple[Outcome, Recovery | None]]:
    """Every repetition of one incident, each stored as it is measured."""
    found = []
    for repetition in range(chosen.repetitions):
        staged = stage(session, client, server, kind, workload, chosen, signals)
        outcome, figures = assess(staged, client, server)
        session.recorder.record(
            ResilienceCell.RECOVERY,
            client,
            server,
            f"{kind}/{workload}",
            repetition,
            staged.client_config,
            outcome,
            staged.server_config,
        )
        found.append((outcome, figures))
    return found


def describe(figures: Recovery | None) -> str:
    """One line for the log."""
    if figures is None:
        return "no recovery figures"

    def s(value: float | None) -> str:
        return "–" if value is None else f"{value:.2f} s"

    return (
        f"{figures.verdict}: detected {s(figures.detected_s)}, reconnected {s(figures.reconnected_s)}, "
        f"resumed {s(figures.resumed_s)} after the restoration (outage {s(figures.outage_s)}); "
        f"{figures.failed} operations failed; subscriptions {figures.subscriptions or '–'}; "
        f"tick gaps {figures.tick_gaps if figures.tick_gaps is not None else '–'}, "
        f"duplicates {figures.duplicates if figures.duplicates is not None else '–'}"
    )


def recovery_finding(
    client_id: str, server_id: str, incident: str, workload: str, found: list[tuple[Outcome, Recovery | None]]
) -> Finding:
    """The test's verdict on the incident's repetitions: a failed one fails it, unless every
    failure is the server's or the client's own known behaviour (sdk.toml [resilience] or
    [client_resilience]; the assessment marks it `known`): then skipped, shown; a repetition not
    supported skips it."""
    notes = [describe(figures) for _outcome, figures in found]
    failed = [o for o, _ in found if o.status == "fail"]
    if failed and all((o.result or {}).get("known") for o in failed):
        result = failed[0].result or {}
        known, whose = result["known"], result.get("known_on", f"{server_id} (server)")
        warning = f"{client_id} → {server_id}: {incident} during {workload}: {failed[0].reason} (known: {known})"
        reason = f"known failure on {whose}'s behaviour: {known}; found again: {failed[0].reason}"
        return Finding("skip", reason, [warning], notes)
    if failed:
        return Finding(
            "fail", f"{client_id} → {server_id}, {incident} during {workload}: {failed[0].reason}", [], notes
        )
    if any(o.status == "not_supported" for o, _ in found):
        return Finding("skip", f"not supported: {found[0][0].reason}", [], notes)
    return Finding(notes=notes)
