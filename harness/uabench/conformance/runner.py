"""Runs the conformance probe (tools/uabench_tools/probe.py) against one server, in the tools' venv (tools/.venv), and
returns each check's verdict. The probe prints what the server answered; checks.py judges it."""

from __future__ import annotations

import json
from dataclasses import dataclass

from uabench.conformance import checks
from uabench.engine import tools_venv

# Starting the probe's process and importing asyncua; and each check's own bound besides its waits.
STARTUP_S = 30.0
PER_CHECK_S = 20.0


@dataclass(frozen=True)
class Found:
    check: checks.Check
    observed: dict | None
    verdict: checks.Verdict


# The typical seconds of one group's probe run besides the probe's start (measured on the smoke
# profile, 2 cores): the Session group waits for the revised session timeout and token
# lifetime, bounded by the profile's session_wait_s.
PROBE_START_S = 1.5
TYPICAL_S = {
    "Attribute services": 3.0,
    "View services": 0.5,
    "Subscription services": 2.5,
    "Session and SecureChannel": 9.0,
    "Operation limits": 4.0,
}


def typical_seconds(group: str, session_wait_s: float, gates: dict) -> float:
    if group == "Profile capacity gates":  # a session costs most (its own channel), then items
        return (
            PROBE_START_S + 0.02 * gates["sessions"] + 0.01 * gates["subscriptions"] + gates["monitored_items"] / 2000
        )
    if group == "Session and SecureChannel":
        return PROBE_START_S + min(TYPICAL_S[group], session_wait_s)
    return PROBE_START_S + TYPICAL_S[group]


def probe_version() -> str:
    return tools_venv.version()


def run(endpoint: str, group: str, settings: dict) -> list[Found]:
    """The verdict of every check of `group` against the server at `endpoint`. `settings`: the
    probe's arguments besides the endpoint and the checks (the address space's sizes, the
    configured endpoints, the wait bound, the capacity gates' caps)."""
    chosen = checks.of_group(group)
    arguments = {**settings, "endpoint": endpoint, "checks": [c.id for c in chosen]}
    bound = STARTUP_S + len(chosen) * PER_CHECK_S + 2 * float(settings.get("session_wait_s", 0))
    bound += sum(float(cap) for cap in settings.get("gates", {}).values()) * 0.1 if group.endswith("gates") else 0
    done = tools_venv.run("probe", arguments, bound, "conformance probe")
    lines = {}
    for line in done.stdout.splitlines():
        try:
            one = json.loads(line)
            lines[one["check"]] = one
        except (ValueError, KeyError, TypeError):
            continue
    if not lines:
        raise tools_venv.failure(done, "conformance probe")
    found = []
    for check in chosen:
        one = lines.get(check.id) or {"error": f"no line for it (probe exit {done.returncode})"}
        verdict = checks.judge(check.id, one.get("observed"), error=one.get("error"))
        found.append(Found(check, one.get("observed"), verdict))
    return found
