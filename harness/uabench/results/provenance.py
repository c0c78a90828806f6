"""Where and with what a run was measured, so published figures can be reproduced and
results from different machines are never silently mixed."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

import psutil

from uabench import paths
from uabench.results.reference import MEASURED, uncommitted


def git_commit() -> str:
    """HEAD, with "-dirty" when the measured code (results/reference.MEASURED) has uncommitted
    changes. Only that: a run into a committed store (the reference's) changes that store, and
    every later run of the same checkout was called dirty although it measured the commit."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=paths.REPO, capture_output=True, text=True).stdout.strip()

    commit = git("rev-parse", "HEAD") or "unknown"
    return commit + ("-dirty" if git("status", "--porcelain", "--untracked-files=no", "--", *MEASURED) else "")


def uncommitted_warning(runs: list[dict]) -> str | None:
    """What a report says of runs measured by uncommitted code: no commit reproduces them."""
    found = [run["id"] for run in runs if uncommitted((run.get("provenance") or {}).get("git_commit"))]
    if not found:
        return None
    runs_were = f"Runs {', '.join(map(str, found))} were" if len(found) > 1 else f"Run {found[0]} was"
    return (
        f"{runs_were} measured by a work tree with uncommitted changes to the measured code (or with no "
        "commit recorded): no commit holds that code, so those figures cannot be reproduced from the history"
    )


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as stream:
            for line in stream:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    info = {
        "hostname": platform.node(),
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "memory_bytes": psutil.virtual_memory().total,
        "kernel": platform.release(),
        "arch": platform.machine(),
        "os": _os_release(),
        "python": sys.version.split()[0],
    }
    fingerprint = {k: info[k] for k in ("cpu_model", "cores", "memory_bytes", "kernel", "arch")}
    info["fingerprint"] = config_hash(fingerprint)
    return info


def _os_release() -> str:
    try:
        with open("/etc/os-release", encoding="utf-8") as stream:
            for line in stream:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def config_hash(config: dict) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def collect(**extra) -> dict:
    # the command that made the run (uabench run …, or robot …: Robot runs in the same process)
    command = shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv and sys.argv[0] else None
    return {"git_commit": git_commit(), "machine": machine(), "command": command, **extra}


def handicap_warning(runs: list[dict]) -> str | None:
    """What a report or a comparison says first of runs made with `uabench run --handicap`
    (engine/handicap.py): their figures test the tool, they are not the SDK's."""
    found = {
        f"{sdk}'s server limited to {share:.0%} of its CPU": None
        for run in runs
        for sdk, share in ((run.get("provenance") or {}).get("handicap") or {}).items()
    }
    if not found:
        return None
    return (
        f"Handicapped on purpose (uabench run --handicap): {', '.join(found)}. These figures test whether a "
        "comparison sees a change of known size; they are not that SDK's performance"
    )
