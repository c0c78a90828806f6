"""Whether the committed reference report is current for a checkout (issue 38): published figures
are true today only when the code that measured them is the code checked out.

The reference (reports/reference/) is current when every run of its store was measured at one
clean commit on one machine, and the measured code (MEASURED) at that commit equals the
checkout's, committed and in the work tree. Anything else is a sentence saying what differs:
`uabench reference --check` prints them and exits 1, as `git diff --exit-code` does."""

from __future__ import annotations

import subprocess
from pathlib import Path

from uabench import paths
from uabench.results.store import open_store

# What measures, as git pathspecs: a change here may change a figure the store holds (reports/,
# docs and the README do not). Left out: what only reads the stored cells and renders them (the
# report, the document model, compare and its margins, the suites' report sections) and the
# tests. A change there changes no measured figure, but may change how the report shows it: the
# committed report and comparisons must then be what the checkout renders from the stores, which
# make test's unit tests render again to see (report/files.unrendered, report/comparison.unrendered).
MEASURED = (
    "harness",
    "adapters",
    "implementations",
    "contract",
    "suites",
    ":(exclude)harness/tests",
    ":(exclude)harness/uabench/report",
    ":(exclude)harness/uabench/document",
    ":(exclude,glob)harness/uabench/*/report.py",
    ":(exclude)harness/uabench/results/compare.py",
    ":(exclude)harness/uabench/results/margins.py",
    ":(exclude)harness/uabench/results/ranking.py",
    ":(exclude)harness/uabench/results/reference.py",  # this check
    ":(exclude,glob)**/*.md",
)
DIRECTORY = paths.REPO / "reports" / "reference"
STORE = DIRECTORY / "uabench.sqlite"


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=paths.REPO, capture_output=True, text=True)


def uncommitted(commit: object) -> bool:
    """Whether a run's recorded commit names no code that can be checked out: measured by a work
    tree with uncommitted changes to the measured code ("-dirty"), or by no commit at all."""
    return commit in (None, "unknown") or str(commit).endswith("-dirty")


def _same_code(one: str, other: str) -> bool:
    """Whether two clean commits of this history hold the same measured code (MEASURED)."""
    if one == other:
        return True
    if uncommitted(one) or uncommitted(other):
        return False
    differs = _git("diff", "--quiet", one, other, "--", *MEASURED).returncode
    return differs == 0


def problems(store_path: Path = STORE) -> list[str]:
    """Why the reference in `store_path` is not current for the checkout; empty when it is.
    A store that cannot be read is a StoreError (one line)."""
    store = open_store(store_path, readonly=True)
    try:
        runs = [run for run in store.runs() if run["status"] == "finished"]
    finally:
        store.close()
    if not runs:
        return [f"{store_path} holds no finished run"]
    found = []
    commits = sorted({str(run["provenance"].get("git_commit") or "unknown") for run in runs})
    machines = sorted({str((run["provenance"].get("machine") or {}).get("fingerprint")) for run in runs})
    # commits that differ only outside the measured code (a README, the reference's own data committed
    # between two sessions of runs) measured with one code: they are one commit for the reference
    codes: list[str] = []
    for commit in commits:
        if not any(_same_code(commit, other) for other in codes):
            codes.append(commit)
    if len(codes) > 1:
        found.append(
            f"its runs were measured at {len(codes)} commits whose measured code differs "
            f"({', '.join(c[:12] for c in codes)}), not one"
        )
    if len(machines) > 1:
        found.append(
            f"its runs were measured on {len(machines)} machines (fingerprints {', '.join(machines)}), not one"
        )
    dirty = [c for c in commits if uncommitted(c)]
    if dirty:
        found.append(f"{', '.join(c[:18] for c in dirty)}: a work tree with uncommitted changes or no commit recorded")
    for commit in (c for c in commits if c not in dirty):
        if _git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
            found.append(f"commit {commit[:12]} of its runs is not in this repository's history")
            continue
        changed = _git("diff", "--name-only", commit, "--", *MEASURED).stdout.split()
        if changed:
            shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
            found.append(
                f"the measured code changed since {commit[:12]}, the commit that made it: {len(changed)} file(s) "
                f"({shown})"
            )
    return found


def commands(store_path: Path = STORE) -> list[tuple[int, str, str]]:
    """(run id, suite, the command that made it) of every finished run, as its provenance says."""
    store = open_store(store_path, readonly=True)
    try:
        return [
            (run["id"], run["suite"], str(run["provenance"].get("command") or "not recorded"))
            for run in store.runs()
            if run["status"] == "finished"
        ]
    finally:
        store.close()
