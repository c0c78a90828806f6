"""The asyncua side of the negative security tests' probe (engine.security_probe): one
handshake, step by step, against a server. asyncua is not in the harness's venv; this script
runs with asyncua's own (implementations/asyncua/.venv, whose lock pins the asyncua the adapter
uses) and imports nothing of uabench.

    implementations/asyncua/.venv/bin/python security_handshake.py '<JSON arguments>'

The arguments are those of `_handshake`; the one line it prints is how far it got: {"step",
"status", "ms", "detail"} (security_probe.Handshake)."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from asyncua import Client, ua
from asyncua.crypto import security_policies

POLICIES = {
    "Basic256Sha256": security_policies.SecurityPolicyBasic256Sha256,
    "Aes128_Sha256_RsaOaep": security_policies.SecurityPolicyAes128Sha256RsaOaep,
    "Aes256_Sha256_RsaPss": security_policies.SecurityPolicyAes256Sha256RsaPss,
}
MODES = {
    "Sign": ua.MessageSecurityMode.Sign,
    "SignAndEncrypt": ua.MessageSecurityMode.SignAndEncrypt,
}
# ServerStatus_State (i=2259): a node every server has, read to show the session works.
SERVER_STATE = ua.NodeId.from_string(f"i={ua.ObjectIds.Server_ServerStatus_State}")


async def _handshake(
    endpoint: str,
    policy: str,
    mode: str,
    certificate: str,
    private_key: str,
    application_uri: str,
    server_certificate: str,
    timeout_s: float,
) -> dict:
    logging.getLogger("asyncua").setLevel(
        logging.CRITICAL + 1
    )  # the refusals it logs are the point
    client = Client(endpoint, timeout=timeout_s)
    client.application_uri = application_uri
    # the server's certificate given: set_security neither asks for nor matches endpoints
    policy_class: Any = POLICIES[
        policy
    ]  # concrete classes, which mypy sees as their abstract base
    await client.set_security(
        policy_class,
        certificate=certificate,
        private_key=private_key,
        server_certificate=server_certificate,
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
                return _ended(
                    step, started, ua.StatusCode(status.code).name, str(status)
                )
            except TimeoutError:
                return _ended(step, started, None, f"no answer within {timeout_s:g} s")
            except (ConnectionError, OSError) as error:
                return _ended(
                    step,
                    started,
                    None,
                    f"connection closed without a status ({_text(error)})",
                )
            except (
                Exception
            ) as error:  # anything else asyncua raises is the probe's own failure
                return _ended(
                    step, started, None, f"{type(error).__name__}: {_text(error)}"
                )
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

    protocol._send_request = keeping
    try:
        await client.open_secure_channel()
    except AssertionError:
        answer = answers[0] if answers else None
        if (
            answer is not None
            and answer.done()
            and not answer.cancelled()
            and answer.exception() is None
        ):
            protocol.check_answer(
                answer.result(), " in response to OpenSecureChannelRequest"
            )
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
        client._policy_ids = [
            token for endpoint in endpoints for token in endpoint.UserIdentityTokens
        ]


def _ended(step: str, started: float, status: str | None, detail: str) -> dict:
    return {
        "step": step,
        "status": status,
        "ms": (time.perf_counter() - started) * 1000.0,
        "detail": detail.splitlines()[0] if detail else "",
    }


def _text(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


if __name__ == "__main__":
    print(json.dumps(asyncio.run(_handshake(**json.loads(sys.argv[1])))), flush=True)
