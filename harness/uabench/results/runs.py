"""Which runs a report or a comparison uses: the newest *finished* run of every suite in each
place (this machine, an SSH target, the VM target; check runs are not reports). A run that is
still running, failed, was interrupted or abandoned holds only part of its plan; taking it as the
latest would silently drop the figures it never reached, so it is skipped, and named (note).

Elsewhere (a board, the VM) the newest finished measurement of each *subject* is taken (a server,
or a client where a cell kind measures clients: results.kinds.subject): a slow machine's suite is
run an SDK or two at a time (the footprint of all seven servers on the emulated VM takes longer
than a working day's session), so an older finished run stays chosen for the subjects no newer one
measured, its run dict naming them (CHOSEN), and only their cells are read (cells_of). A client's
cells name the reference server it ran against: that server's own figures stay the older run's.
This machine's runs are never merged: what one ranks must be measured side by side.

A run that measured an SDK at another version than its pinned one (a version plan: `uabench run
... --versions`, cells of `asyncua@1.1.8`; adapters/SPEC.md §1) is chosen in a slot of its own
(VERSIONED): the report's version trend reads it, and it does not replace its suite's ranking
run. A version plan of one SDK (`--versions --sdk asyncua,open62541`) measures three servers of
seven; taking it as the suite's newest run dropped the others from every ranking of the store
(README's reference recipe ran the version plan into the store of make bench). Where a suite has
no run of the pinned versions only, its version run is its ranking run too (`rankings`)."""

from __future__ import annotations

from uabench.results.kinds import subject
from uabench.results.store import Store

FINISHED = "finished"
# a run chosen elsewhere for some of its subjects only: their names (sorted)
CHOSEN = "chosen_for"
# a run that measured another version of an SDK (its cells name `sdk@version`): True
VERSIONED = "versioned"


def place(run: dict) -> str:
    """Where a run's servers ran when that was another machine: its SSH target's name and the
    images' architecture ('vm arm64', 'ssh://pi@pi arm64'); '' for this machine and its containers.
    A run elsewhere does not replace this machine's run of the suite: both are reported."""
    server = ((run.get("provenance") or {}).get("targets") or {}).get("server") or {}
    return f"{server.get('name', 'ssh')} {server.get('arch', '')}".strip() if server.get("kind") == "ssh" else ""


def slot(store: Store, run: dict) -> tuple[dict, tuple[str, str, bool]]:
    """A run, marked VERSIONED where it measured another version of an SDK, and the slot it is
    chosen in: its suite, its place, and whether it is a version run."""
    if store.measured_versions(run["id"]):
        run = {**run, VERSIONED: True}
    return run, (run["suite"], place(run), bool(run.get(VERSIONED)))


def latest_finished(store: Store) -> tuple[list[dict], list[dict]]:
    """(the newest finished run of every suite in each place (`place`), elsewhere with the older
    ones still measuring a subject (CHOSEN), in the order they were run; the runs not finished
    that are newer than their suite's newest finished run there)."""
    chosen: dict[tuple[str, str, bool], dict] = {}
    newer: dict[tuple[str, str, bool], list[dict]] = {}
    earlier: dict[tuple[str, str, bool], list[dict]] = {}  # elsewhere: the finished runs a newer one followed
    for run in store.runs():
        if run["suite"] == "check":
            continue
        run, key = slot(store, run)
        if run["status"] == FINISHED:
            if key[1] and key in chosen:
                earlier.setdefault(key, []).append(chosen[key])
            chosen.pop(key, None)  # re-inserted: the suites in the order they last ran
            chosen[key] = run
            newer[key] = []
        else:
            newer.setdefault(key, []).append(run)
    skipped = sorted((run for runs in newer.values() for run in runs), key=lambda run: run["id"])
    kept = [run for key, older in earlier.items() for run in _still_measuring(store, chosen[key], older)]
    return sorted([*chosen.values(), *kept], key=lambda run: run["id"]), skipped


def rankings(runs: list[dict]) -> list[dict]:
    """Of the chosen runs (latest_finished), those the rankings, matrices and suites' sections show:
    each suite's newest run of the pinned versions in each place, or where it has none there, its
    newest version run (VERSIONED), in the order they were run."""
    plain = {(run["suite"], place(run)) for run in runs if not run.get(VERSIONED)}
    return [run for run in runs if not run.get(VERSIONED) or (run["suite"], place(run)) not in plain]


def versioned(runs: list[dict]) -> list[dict]:
    """Of the chosen runs, the version runs: what the version trend reads."""
    return [run for run in runs if run.get(VERSIONED)]


def _still_measuring(store: Store, newest: dict, older: list[dict]) -> list[dict]:
    """The `older` finished runs of a place elsewhere (oldest first) that measured a subject no newer
    finished run of their suite there measured; one that measured others too names the subjects it
    is chosen for (CHOSEN)."""
    covered = set(store.subjects(newest["id"]))  # grows below: never the store's own set
    kept = []
    for run in reversed(older):
        measured = store.subjects(run["id"])
        own = measured - covered
        if own == measured:
            kept.append(run)
        elif own:
            kept.append({**run, CHOSEN: sorted(own)})
        covered |= measured
    return kept


def cells_of(store: Store, runs: list[dict]) -> dict[int, list[dict]]:
    """Each run's cells; of a run chosen for some of its subjects (CHOSEN), those subjects' only."""
    found = {}
    for run in runs:
        cells = store.cells([run["id"]])
        if CHOSEN in run:
            cells = [c for c in cells if subject(c["kind"], c["server"], c["client"]) in run[CHOSEN]]
        found[run["id"]] = cells
    return found


def note(skipped: list[dict]) -> str | None:
    """One line naming the skipped runs, or None."""
    if not skipped:
        return None
    named = ", ".join(f"{run['id']} ({run['suite']}, {run['status']})" for run in skipped)
    return f"skipped runs that did not finish: {named}"
