"""Which runs a report or a comparison uses: the newest *finished* run of every suite in each
place (this machine, an SSH target, the VM target; check runs are not reports). A run that is
still running, failed, was interrupted or abandoned holds only part of its plan; taking it as the
latest would silently drop the figures it never reached, so it is skipped, and named (note)."""

from __future__ import annotations

from uabench.results.store import Store

FINISHED = "finished"


def place(run: dict) -> str:
    """Where a run's servers ran when that was another machine: its SSH target's name and the
    images' architecture ('vm arm64', 'ssh://pi@pi arm64'); '' for this machine and its containers.
    A run elsewhere does not replace this machine's run of the suite: both are reported."""
    server = ((run.get("provenance") or {}).get("targets") or {}).get("server") or {}
    return f"{server.get('name', 'ssh')} {server.get('arch', '')}".strip() if server.get("kind") == "ssh" else ""


def latest_finished(store: Store) -> tuple[list[dict], list[dict]]:
    """(the newest finished run of every suite in each place (`place`), in the order the suites
    were run, the runs not finished that are newer than their suite's chosen run there)."""
    chosen: dict[tuple[str, str], dict] = {}
    newer: dict[tuple[str, str], list[dict]] = {}
    for run in store.runs():
        if run["suite"] == "check":
            continue
        key = (run["suite"], place(run))
        if run["status"] == FINISHED:
            chosen.pop(key, None)  # re-inserted: the suites in the order they last ran
            chosen[key] = run
            newer[key] = []
        else:
            newer.setdefault(key, []).append(run)
    skipped = sorted((run for runs in newer.values() for run in runs), key=lambda run: run["id"])
    return sorted(chosen.values(), key=lambda run: run["id"]), skipped


def note(skipped: list[dict]) -> str | None:
    """One line naming the skipped runs, or None."""
    if not skipped:
        return None
    named = ", ".join(f"{run['id']} ({run['suite']}, {run['status']})" for run in skipped)
    return f"skipped runs that did not finish: {named}"
