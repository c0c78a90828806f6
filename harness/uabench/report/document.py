"""The report's document model from the results store: the chosen runs' sections in reading
order, computed once from their cells."""

from __future__ import annotations

import dataclasses
from collections import Counter

from uabench.document.model import Report, Section
from uabench.plan import suite_kinds
from uabench.report.capacity import capacity_section, latency_section
from uabench.report.decision import decision_section
from uabench.report.overhead import overhead_section
from uabench.report.pubsub import client_server_signal_points, pubsub_section
from uabench.report.sections import (
    capability_section,
    headroom_section,
    interop_section,
    negative_section,
    provenance_section,
    ranking_section,
    sweep_section,
)
from uabench.report.sizing import model_section
from uabench.report.steady import steady_section
from uabench.report.summary import summary_section
from uabench.report.versions import version_section, without_versions
from uabench.results import kinds
from uabench.results.compare import machine_name
from uabench.results.runs import place, rankings, slot, versioned
from uabench.results.store import Store


def latest_runs(store: Store) -> list[dict]:
    """The newest run of every suite that measured anything in each place (this machine, an SSH
    target, the VM target: results.runs.place; check runs are not reports) and of a version plan's
    in a slot of its own (results.runs.slot), finished or not, in the order the suites were run."""
    latest: dict[tuple[str, str, bool], dict] = {}
    for run in store.runs():
        if run["suite"] != "check":
            run, key = slot(store, run)  # a version plan's run in a slot of its own
            latest.pop(key, None)
            latest[key] = run
    return sorted(latest.values(), key=lambda run: run["id"])


def run_sections(run: dict, cells: list[dict], runs: list[dict], cells_of: dict[int, list[dict]]) -> list[Section]:
    """A run's sections in reading order: results before the tests that only pass or fail."""
    found = [ranking_section(run, cells), headroom_section(run, cells), interop_section(run["suite"], cells)]
    sweeps = (run["provenance"].get("plan") or {}).get("sweeps") or {}
    found += [sweep_section(run, cells, name, about) for name, about in sweeps.items()]
    found += [negative_section(run, cells), capacity_section(run, cells), latency_section(run, cells)]
    found.append(overhead_section(run, cells))
    # each suite's own section (plan.SuiteKind.section, registered by its package)
    found += [kind.section(run, cells) for kind in suite_kinds().values() if kind.section]
    if any(c["kind"] in kinds.PUBSUB for c in cells):
        found.append(pubsub_section(cells, client_server_signal_points(runs, cells_of)))
    return [s for s in found if s]


def emulated(run: dict, cells: list[dict]) -> bool:
    """A run with a role on an emulated target (targets/), or with emulated cells."""
    placed = run["provenance"].get("targets") or {}
    return any(one.get("emulated") for one in placed.values()) or any(c.get("emulated") for c in cells)


EMULATION_WARNINGS = {
    "qemu-user": "These figures were measured with servers under qemu-user emulation: they say that the "
    "ARM builds work and what they do, not how fast a real ARM machine is (their memory is qemu's, its "
    "translation cache included). They are not ranked, and no native figure is compared with them.",
    "qemu-system": "These figures were measured with servers on an arm64 machine that qemu-system emulates "
    "in software here (the VM target): its own arm64 kernel counted their memory, as a board's kernel "
    "would, but their times and rates are the emulation's, not an ARM CPU's. They are not ranked, and no "
    "native figure is compared with them.",
}


def emulation(run: dict) -> str:
    """What emulated a run's servers: qemu-system (the VM target) or qemu-user (anything else)."""
    placed = run["provenance"].get("targets") or {}
    return "qemu-system" if any(one.get("emulation") == "qemu-system" for one in placed.values()) else "qemu-user"


def emulated_section(runs: list[dict], cells_of: dict[int, list[dict]]) -> Section | None:
    """The emulated runs' sections apart from the native ones: their figures are qemu's, and
    neither rank among themselves nor compare with a native figure."""
    if not runs:
        return None
    parts = [
        Section(
            f"{run['suite']} (run {run['id']}, " + (f"{place(run)}, " if place(run) else "") + "emulated)",
            subsections=run_sections(run, cells_of[run["id"]], runs, cells_of),
        )
        for run in runs
    ]
    return Section(
        "Emulated targets",
        subsections=parts,
        warning=" ".join(EMULATION_WARNINGS[how] for how in sorted({emulation(run) for run in runs})),
    )


def elsewhere_section(runs: list[dict], cells_of: dict[int, list[dict]]) -> Section | None:
    """Native runs whose servers ran on another machine (a board over SSH): each run's sections on
    their own, ranked among that machine's servers only, never with this machine's figures."""
    if not runs:
        return None
    return Section(
        "Other targets",
        paragraphs=[
            "Runs whose servers ran natively on another machine, named in each title (its CPU, kernel and "
            "images are in the run's provenance). Their figures rank among that machine's servers only."
        ],
        subsections=[
            Section(
                f"{run['suite']} (run {run['id']}, {place(run)})",
                subsections=run_sections(run, cells_of[run["id"]], runs, cells_of),
            )
            for run in runs
        ],
    )


def _here(run: dict) -> str:
    """This machine's run as a column calls it: 'here', or 'here (container)' when its servers ran
    in this machine's containers (the images a target runs, built for this architecture)."""
    server = (run["provenance"].get("targets") or {}).get("server") or {}
    return "here (container)" if server.get("kind") == "container" else "here"


def beside_sections(runs: list[dict], cells_of: dict[int, list[dict]]) -> list[Section]:
    """Each other target's runs of a suite beside this machine's run of it, where the suite says
    how (plan.SuiteKind.beside): the footprint's memory on an ARM target beside this machine's. A
    target's runs of one suite (each chosen for the servers it measured last: results/runs.py)
    make one section."""
    here = {run["suite"]: run for run in runs if not place(run)}
    there: dict[tuple[str, str], list[list[dict]]] = {}  # (suite, place): each run's cells
    for run in runs:
        if place(run) and run["suite"] in here:
            there.setdefault((run["suite"], place(run)), []).append(cells_of[run["id"]])
    found = []
    for (suite, where), parts in there.items():
        mine = here[suite]
        theirs = [c for cells in parts for c in cells]
        for kind in suite_kinds().values():
            if kind.beside:
                found.append(kind.beside(cells_of[mine["id"]], theirs, _here(mine), where))
    return [s for s in found if s]


def _fingerprint(run: dict) -> str | None:
    return (run["provenance"].get("machine") or {}).get("fingerprint")


def _usual_machine(runs: list[dict]) -> str | None:
    """The machine most of the runs were measured on (by fingerprint), None without runs."""
    found = Counter(_fingerprint(run) for run in runs)
    return found.most_common(1)[0][0] if found else None


def _said_elsewhere(sections: list[Section], run: dict, usual: str | None) -> list[Section]:
    """A run's sections, the first warned where the run was measured on another machine than most
    of the report's (a store a later run added to on another machine): its figures compare with
    the other figures of its run, not with the rest of the report's."""
    if not sections or _fingerprint(run) == usual:
        return sections
    said = (
        f"Measured on another machine than most of this report: {machine_name(run)} "
        f"(fingerprint {_fingerprint(run)}), in run {run['id']}. Its figures "
        "compare with each other, not with the figures of the other machine's runs."
    )
    first = sections[0]
    warning = f"{said} {first.warning}" if first.warning else said
    return [dataclasses.replace(first, warning=warning), *sections[1:]]


SIDE_BY_SIDE = {"footprint"}  # suites whose sections show every version measured, each in its own rows


def _trend_runs(chosen: list[dict], cells_of: dict[int, list[dict]]) -> list[dict]:
    """The version runs the trend reads: this machine's native ones (a version plan in a slot of
    its own: results/runs.VERSIONED)."""
    return [run for run in versioned(chosen) if not place(run) and not emulated(run, cells_of[run["id"]])]


def trend_section(chosen: list[dict], cells_of: dict[int, list[dict]], sdks: list[str] | None = None) -> Section | None:
    """The version trend of the chosen runs alone (`uabench trend`), of `sdks` only where given."""
    runs = rankings(chosen)
    native = [run for run in runs if not place(run) and not emulated(run, cells_of[run["id"]])]
    return version_section(_trend_runs(chosen, cells_of) or native, cells_of, native, sdks)


def document(chosen: list[dict], cells_of: dict[int, list[dict]]) -> Report:
    """The report of the chosen runs (results/runs.latest_finished): the version runs' trend, and
    every other section of the runs the rankings take (runs.rankings)."""
    runs = rankings(chosen)
    # the version trend of this machine's version runs, or where there are none, of the other
    # versions the ranking runs measured beside their servers
    trend = _trend_runs(chosen, cells_of)
    apart = [run for run in runs if emulated(run, cells_of[run["id"]])]
    native = [run for run in runs if run not in apart and not place(run)]
    # native runs on another machine (a board): apart, as the emulated ones are
    elsewhere = [run for run in runs if run not in apart and place(run)]
    if not native and len({place(run) for run in elsewhere}) == 1:
        native, elsewhere = elsewhere, []  # a board's runs alone (`--store pi.sqlite`): the report is theirs
    # the other versions of an SDK have a section of their own; everything else shows the pinned ones
    measured = cells_of
    cells_of = {run_id: without_versions(cells) for run_id, cells in measured.items()}
    summary = summary_section(native, cells_of) if native else None
    # the answer first, then the summary it is picked from; the version trend after the rankings
    sections = [decision_section(summary, native, cells_of), summary]
    usual = _usual_machine(native)
    for run in native:
        # a footprint table ranks nothing: a server's other versions (`run footprint --versions`)
        # are rows of their own beside it
        own = measured if run["suite"] in SIDE_BY_SIDE else cells_of
        sections += _said_elsewhere(run_sections(run, own[run["id"]], runs, own), run, usual)
    sections.append(version_section(trend or native, measured, native))
    sections.append(elsewhere_section(elsewhere, cells_of))
    sections.append(emulated_section(apart, cells_of))
    sections += beside_sections(runs, measured)
    # the sizing model is fitted to native figures only: an emulated server's CPU is qemu's
    everything = [c for run in native for c in cells_of[run["id"]]]
    sections += [
        steady_section(runs, cells_of),
        model_section(everything),
        capability_section(runs),
        provenance_section(runs + [run for run in trend if run not in runs], measured),
    ]
    return Report("uabench report", [s for s in sections if s])
