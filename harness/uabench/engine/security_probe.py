"""Negative security tests that ask the server itself (issue 12, item 8).

A reference client cannot be the probe: it matches the server's endpoints first and gives up
on its own when the policy is not offered ("no suitable endpoint"), so no server is ever
asked; and any failure of it, a timeout or a crashed server included, looks like a refusal.
The probe is asyncua's low-level client API (the same asyncua the asyncua adapter pins): the
channel's policy, mode and certificate are set explicitly with the server's certificate
given, which skips endpoint matching, and each handshake step (OpenSecureChannel,
CreateSession, ActivateSession, then a Read) is sent on its own, so the step the server
refuses at and its status are known. A refusal is a security-related Bad status sent by the
server; a timeout, a connection closed without a status, a dead server or Good are not."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from asyncua import Client, ua
from asyncua.crypto import security_policies

from uabench.pki import Identity

VERSION = version("asyncua")
POLICIES = {
    "Basic256Sha256": security_policies.SecurityPolicyBasic256Sha256,
    "Aes128_Sha256_RsaOaep": security_policies.SecurityPolicyAes128Sha256RsaOaep,
    "Aes256_Sha256_RsaPss": security_policies.SecurityPolicyAes256Sha256RsaPss,
}
MODES = {"Sign": ua.MessageSecurityMode.Sign, "SignAndEncrypt": ua.MessageSecurityMode.SignAndEncrypt}
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
# ServerStatus_State (i=2259): a node every server has, read to show the session works.
SERVER_STATE = ua.NodeId.from_string(f"i={ua.ObjectIds.Server_ServerStatus_State}")


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
    return asyncio.run(_handshake(endpoint, policy, mode, identity, server_certificate, timeout_s))


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


async def _handshake(
    endpoint: str, policy: str, mode: str, identity: Identity, server_certificate: Path, timeout_s: float
) -> Handshake:
    logging.getLogger("asyncua").setLevel(logging.CRITICAL + 1)  # the refusals it logs are the point
    client = Client(endpoint, timeout=timeout_s)
    client.application_uri = identity.application_uri
    # the server's certificate given: set_security neither asks for nor matches endpoints
    policy_class: Any = POLICIES[policy]  # concrete classes, which mypy sees as their abstract base
    await client.set_security(
        policy_class,
        certificate=str(identity.certificate),
        private_key=str(identity.private_key),
        server_certificate=str(server_certificate),
        mode=MODES[mode],
    )
    steps: list[tuple[str, Callable[[], Awaitable[object]]]] = [
        ("connect", client.connect_socket),
        ("Hello", client.send_hello),
        ("OpenSecureChannel", lambda: _open_secure_channel(client)),
        ("CreateSession", lambda: _create_session(client)),
        ("ActivateSession", client.activate_session),
        ("Read", client.get_node(SERVER_STATE).read_value),
    ]
    started = time.perf_counter()
    try:
        for step, send in steps:
            try:
                # a bound of our own too: a server that never answers must not hang the probe
                await asyncio.wait_for(send(), timeout_s + 1.0)
            except ua.UaStatusCodeError as status:
                return _ended(step, started, ua.StatusCode(status.code).name, str(status))
            except TimeoutError:
                return _ended(step, started, None, f"no answer within {timeout_s:g} s")
            except (ConnectionError, OSError) as error:
                return _ended(step, started, None, f"connection closed without a status ({_text(error)})")
            except Exception as error:  # anything else asyncua raises is the probe's own failure
                return _ended(step, started, None, f"{type(error).__name__}: {_text(error)}")
        return _ended("done", started, "Good", "")
    finally:
        client.disconnect_socket()


async def _open_secure_channel(client: Client) -> None:
    """OpenSecureChannel, keeping the server's answer: asyncua 2.1.0 reads any answer to it as
    an OpenSecureChannelResponse, so a ServiceFault there (node-opcua refuses a channel with
    one) ends in an AssertionError and the server's status is lost. The answer is kept by
    wrapping the one send of this request, and a ServiceFault's status raised from it."""
    protocol = client.uaclient.protocol
    assert protocol is not None, "OpenSecureChannel before the socket is open"
    send = protocol._send_request
    answers: list[asyncio.Future] = []

    def keeping(*args, **kwargs) -> asyncio.Future:
        answers.append(send(*args, **kwargs))
        return answers[-1]

    protocol._send_request = keeping  # type: ignore[method-assign]
    try:
        await client.open_secure_channel()
    except AssertionError:
        answer = answers[0] if answers else None
        if answer is not None and answer.done() and not answer.cancelled() and answer.exception() is None:
            protocol.check_answer(answer.result(), " in response to OpenSecureChannelRequest")
        raise
    finally:
        del protocol._send_request  # the class's own again


async def _create_session(client: Client) -> None:
    """CreateSession, going on when the server created a session for a policy/mode its
    endpoints do not list: asyncua's client then gives up on its own ("No matching
    endpoints"), but whether the server lets it activate the session is the question."""
    try:
        await client.create_session()
    except ua.UaStatusCodeError:
        raise
    except ua.UaError as error:
        if "No matching endpoints" not in str(error):
            raise
        endpoints = await client.get_endpoints()
        # asyncua keeps the user token policies of the matched endpoint here (no public setter)
        client._policy_ids = [token for endpoint in endpoints for token in endpoint.UserIdentityTokens]


def _ended(step: str, started: float, status: str | None, detail: str) -> Handshake:
    return Handshake(step, status, (time.perf_counter() - started) * 1000.0, detail.splitlines()[0] if detail else "")


def _text(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__
