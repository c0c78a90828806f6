"""Which runs a report or a comparison uses: the newest *finished* run of every suite (check
runs are not reports). A run that is still running, failed, was interrupted or abandoned holds
only part of its plan; taking it as the latest would silently drop the figures it never reached,
so it is skipped, and named (note)."""

from __future__ import annotations

from uabench.results.store import Store

FINISHED = "finished"


def latest_finished(store: Store) -> tuple[list[dict], list[dict]]:
    """(the newest finished run of every suite in the order the suites were run, the runs not
    finished that are newer than their suite's chosen run)."""
    chosen: dict[str, dict] = {}
    newer: dict[str, list[dict]] = {}
    for run in store.runs():
        if run["suite"] == "check":
            continue
        if run["status"] == FINISHED:
            chosen.pop(run["suite"], None)  # re-inserted: the suites in the order they last ran
            chosen[run["suite"]] = run
            newer[run["suite"]] = []
        else:
            newer.setdefault(run["suite"], []).append(run)
    skipped = sorted((run for runs in newer.values() for run in runs), key=lambda run: run["id"])
    return sorted(chosen.values(), key=lambda run: run["id"]), skipped


def note(skipped: list[dict]) -> str | None:
    """One line naming the skipped runs, or None."""
    if not skipped:
        return None
    named = ", ".join(f"{run['id']} ({run['suite']}, {run['status']})" for run in skipped)
    return f"skipped runs that did not finish: {named}"
