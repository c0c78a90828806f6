"""`uabench outdated` (issue 44): each SDK's pinned version beside the newest release its registry
serves, so a maintainer sees when to try a new release side by side (README: versions side by side).

Each SDK says how to look it up, in its own folder: `implementations/<sdk>/newest` (adapters/SPEC.md
§1) prints the newest version through the SDK's own package client (pip, npm, cargo, go, Maven's
metadata), one line. The look-ups run at once, each bounded in time."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from uabench import paths, sdks

LOOKUP_S = 120.0  # one registry look-up; open62541's fetches a crate when a newer one exists

UP_TO_DATE, NEWER, BEHIND, DECLARED, UNKNOWN = (
    "up to date",
    "newer release",
    "pinned is newer than the registry's newest",
    "newest declared beside the pinned",
    "look-up failed",
)

Runner = Callable[..., subprocess.CompletedProcess]


@dataclass(frozen=True)
class Finding:
    sdk: str
    pinned: str
    declared: tuple[str, ...]  # its other versions, side by side (sdk.toml [versions])
    newest: str | None = None
    problem: str | None = None  # why the look-up failed

    @property
    def verdict(self) -> str:
        if self.newest is None:
            return UNKNOWN
        if self.newest == self.pinned:
            return UP_TO_DATE
        if self.newest in self.declared:
            return DECLARED
        return NEWER if Version(self.newest) > Version(self.pinned) else BEHIND


def look_up(sdk: sdks.Sdk, others: Sequence[str] = (), run: Runner = subprocess.run) -> Finding:
    """The newest release of `sdk` as its `newest` script says, or why it cannot say."""
    found = Finding(sdk.id, sdk.version, tuple(others))
    script = paths.IMPLEMENTATIONS / sdk.id / "newest"
    if not script.is_file():
        return _failed(found, f"no {script.relative_to(paths.REPO)} (adapters/SPEC.md §1)")
    try:
        done = run([str(script)], capture_output=True, text=True, timeout=LOOKUP_S, cwd=paths.REPO)
    except subprocess.TimeoutExpired:
        return _failed(found, f"no answer within {LOOKUP_S:g} s")
    except OSError as error:
        return _failed(found, f"{script.name} does not run: {error.strerror or error}")
    said = (done.stderr or "").strip().splitlines()
    if done.returncode != 0:
        return _failed(found, f"exit {done.returncode}" + (f": {said[-1]}" if said else ""))
    lines = (done.stdout or "").split()
    if len(lines) != 1:
        return _failed(found, f"printed {len(lines)} words, not one version: {(done.stdout or '').strip()[:80]!r}")
    try:
        Version(lines[0])
    except InvalidVersion:
        return _failed(found, f"printed {lines[0][:80]!r}, not a version")
    return Finding(found.sdk, found.pinned, found.declared, newest=lines[0])


def _failed(found: Finding, problem: str) -> Finding:
    return Finding(found.sdk, found.pinned, found.declared, problem=problem)


def survey(wanted: Sequence[str] | None = None, run: Runner = subprocess.run) -> list[Finding]:
    """Every SDK (or those `wanted`), looked up at once, in the registry's order."""
    chosen = [versions for versions in sdks.registry() if wanted is None or versions[0].id in wanted]
    with ThreadPoolExecutor(max_workers=max(1, len(chosen))) as pool:
        return list(pool.map(lambda v: look_up(v[0], [s.version for s in v[1:]], run), chosen))


def exit_status(findings: Sequence[Finding]) -> int:
    """3 when a look-up failed, else 1 when a newer release exists, else 0 (a watch can act on it)."""
    if any(f.verdict == UNKNOWN for f in findings):
        return 3
    return 1 if any(f.verdict == NEWER for f in findings) else 0


def table(findings: Sequence[Finding]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = [("sdk", "pinned", "also declared", "newest", "verdict")]
    for f in findings:
        verdict = f.verdict if f.problem is None else f"{f.verdict}: {f.problem}"
        rows.append((f.sdk, f.pinned, ",".join(f.declared) or "-", f.newest or "?", verdict))
    return rows
