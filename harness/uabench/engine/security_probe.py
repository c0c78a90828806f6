"""Negative security tests that ask the server itself (issue 12, item 8).

A reference client cannot be the probe: it matches the server's endpoints first and gives up
on its own when the policy is not offered ("no suitable endpoint"), so no server is ever
asked; and any failure of it, a timeout or a crashed server included, looks like a refusal.
The probe is asyncua's low-level client API (the same asyncua the asyncua adapter pins): the
channel's policy, mode and certificate are set explicitly with the server's certificate
given, which skips endpoint matching, and each handshake step (OpenSecureChannel,
CreateSession, ActivateSession, then a Read) is sent on its own, so the step the server
refuses at and its status are known. asyncua lives in its own venv, not the harness's: the
handshake runs there (tools/uabench_tools/security_handshake.py, one process per probe) and this module
judges what it reports. A refusal is a security-related Bad status sent by the
server; a timeout, a connection closed without a status, a dead server or Good are not."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from uabench.engine import tools_venv
from uabench.engine.finding import Finding
from uabench.engine.tools_venv import PYTHON, version
from uabench.pki import Identity
from uabench.sdks import Sdk

__all__ = ["PYTHON", "version"]  # the venv's python and asyncua's version, for the probe's callers
POLICIES = ("Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss")
MODES = ("Sign", "SignAndEncrypt")
STEPS = ("connect", "Hello", "OpenSecureChannel", "CreateSession", "ActivateSession", "Read")
# A step the server does not answer within this is a timeout, never a refusal.
STEP_TIMEOUT_S = 5.0
# Status codes that say "refused for security" (OPC UA Part 4 §7.38, Part 6 §6.7): the policy,
# the mode, the certificate or its trust; and the session refusals a server answers in
# ActivateSession when the channel matches none of its endpoints (open62541 sends
# BadIdentityTokenInvalid there). Any other Bad status is not a security refusal.
SECURITY_STATUS_PREFIXES = ("BadSecurity", "BadCertificate")
SECURITY_STATUSES = {
    "BadNoValidCertificates",
    "BadApplicationSignatureInvalid",
    "BadIdentityTokenInvalid",
    "BadIdentityTokenRejected",
    "BadUserAccessDenied",
}
# Starting the probe's process and importing asyncua, before the first step: the process's
# own bound is this plus each step's.
STARTUP_S = 30.0


@dataclass(frozen=True)
class Handshake:
    """How far one probe got: the step it ended at, the server's status there (None when it
    sent none), how long from the socket connect to that end, and what ended it."""

    step: str  # one of STEPS, or "done" when every step succeeded
    status: str | None  # the status name the server sent (e.g. BadSecurityPolicyRejected)
    ms: float
    detail: str  # one line: what happened at `step`

    @property
    def accepted(self) -> bool:
        return self.step == "done"

    @property
    def security_refusal(self) -> bool:
        return self.status is not None and is_security_status(self.status)


@dataclass(frozen=True)
class Verdict:
    refused: bool
    reason: str


def is_security_status(name: str) -> bool:
    return name.startswith(SECURITY_STATUS_PREFIXES) or name in SECURITY_STATUSES


def handshake(
    endpoint: str,
    policy: str,
    mode: str,
    identity: Identity,
    server_certificate: Path,
    timeout_s: float = STEP_TIMEOUT_S,
) -> Handshake:
    """Opens a channel with `policy`/`mode` as `identity`, creates and activates a session
    and reads one node, step by step; returns where it ended."""
    if policy not in POLICIES or mode not in MODES:
        raise ValueError(f"security probe: unknown policy/mode {policy}/{mode}")
    arguments = {
        "endpoint": endpoint,
        "policy": policy,
        "mode": mode,
        "certificate": str(identity.certificate),
        "private_key": str(identity.private_key),
        "application_uri": identity.application_uri,
        "server_certificate": str(server_certificate),
        "timeout_s": timeout_s,
    }
    what = "security probe"
    done = tools_venv.run("security_handshake", arguments, STARTUP_S + len(STEPS) * (timeout_s + 1.0), what)
    found = tools_venv.last_line(done, what)
    try:
        return Handshake(found["step"], found["status"], float(found["ms"]), found["detail"])
    except (KeyError, TypeError, ValueError):
        raise tools_venv.failure(done, what) from None


def judge(found: Handshake, server_alive: bool, what: str) -> Verdict:
    """A refusal is a security-related Bad status from a server that is still running."""
    where = f"at {found.step} after {found.ms:.0f} ms"
    if not server_alive:
        return Verdict(False, f"the server died during the probe ({what}), {where}: {found.detail}")
    if found.accepted:
        return Verdict(False, f"the server accepted {what}: session activated and a Read answered Good")
    if found.status is None:
        return Verdict(False, f"no status from the server for {what} {where}: {found.detail}")
    if not found.security_refusal:
        return Verdict(False, f"the server answered {what} with {found.status} {where}, not a security refusal")
    return Verdict(True, f"refused with {found.status} at {found.step} after {found.ms:.0f} ms")


def refusal_finding(server: Sdk, what: str, found: Handshake, verdict: Verdict, server_alive: bool) -> Finding:
    """The negative test's verdict: no refusal fails it, unless the server's sdk.toml
    [deviations] declares this very ending (step, status, detail) and the server still runs:
    then skipped, shown; a refusal where a deviation is declared is a warning (the entry is
    stale)."""
    declared = server.deviations.get(what)
    if not verdict.refused:
        if declared and server_alive and declared.matches(found.step, found.status, found.detail):
            return Finding.skipped(f"known deviation of {server.id}: {declared.why}; found again: {verdict.reason}")
        return Finding.failed(f"{server.id}: {verdict.reason}")
    warnings = (
        [f"{server.id} refused as it should, though its sdk.toml declares a deviation: {declared.why}"]
        if declared
        else []
    )
    return Finding(reason=verdict.reason, warnings=warnings)
