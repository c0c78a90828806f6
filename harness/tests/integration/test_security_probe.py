"""The negative security tests' probe (engine.security_probe) against real servers and
purpose-built faulty ones: a server that accepts what it must refuse, one that never answers,
one that closes without a status, one that answers with a Bad status that is not about
security, and a dead one must each fail; a real server's refusal must pass.

The old rule ("the reference client failed") passed all of the faulty ones: each test here
asserts what that rule could not tell apart."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from uabench import pki, sdks
from uabench.engine import security_probe
from uabench.engine.servers import free_port
from uabench.targets.process import AdapterProcess

SERVER = "open62541"  # the quickest real server to start
READY_S = 30.0
QUICK_S = 0.5  # the probe's timeout against the fixtures that never answer


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> pki.Pki:
    return pki.make_pki(tmp_path_factory.mktemp("pki"))


def _server(workdir: Path, certificates: pki.Pki, endpoints: list[tuple[str, str]], trusted: pki.Identity):
    config = {
        "host": "127.0.0.1",
        "port": free_port(),
        "signals": 10,
        "update_interval_ms": 100,
        "writes": 10,
        "security": {
            "endpoints": [{"policy": policy, "mode": mode} for policy, mode in endpoints],
            "certificate": str(certificates.server.certificate),
            "private_key": str(certificates.server.private_key),
            "application_uri": certificates.server.application_uri,
            "trusted_certificates": [str(trusted.certificate)],
        },
    }
    process = AdapterProcess(sdks.get(SERVER), "server", config, workdir).start()
    try:
        ready = process.wait_event(("ready",), READY_S)
    except BaseException:
        process.stop()
        raise
    return process, ready["endpoint"]


@pytest.fixture
def real_server(tmp_path, certificates) -> Iterator:
    """Starts a real server with the endpoints and trusted client certificate asked for."""
    started: list[AdapterProcess] = []

    def start(endpoints: list[tuple[str, str]], trusted: pki.Identity):
        process, endpoint = _server(tmp_path, certificates, endpoints, trusted)
        started.append(process)
        return process, endpoint

    yield start
    for process in started:
        process.stop()


OFFERED = [("None", "None"), ("Basic256Sha256", "SignAndEncrypt")]


def _probe(endpoint: str, certificates: pki.Pki, mode: str, identity: pki.Identity, timeout_s: float = 5.0):
    return security_probe.handshake(
        endpoint, "Basic256Sha256", mode, identity, certificates.server.certificate, timeout_s
    )


def test_a_real_server_refuses_an_untrusted_certificate_and_the_probe_says_where(real_server, certificates):
    process, endpoint = real_server(OFFERED, trusted=certificates.client)
    found = _probe(endpoint, certificates, "SignAndEncrypt", certificates.stranger)
    verdict = security_probe.judge(found, process.running(), "an untrusted certificate")
    assert verdict.refused, verdict.reason
    assert found.step in ("OpenSecureChannel", "CreateSession", "ActivateSession")
    assert found.status is not None and security_probe.is_security_status(found.status)
    assert 0 < found.ms < 5000
    # and the trusted client is still served
    assert _probe(endpoint, certificates, "SignAndEncrypt", certificates.client).accepted


def test_a_server_that_trusts_the_stranger_fails_the_untrusted_test(real_server, certificates):
    process, endpoint = real_server(OFFERED, trusted=certificates.stranger)
    found = _probe(endpoint, certificates, "SignAndEncrypt", certificates.stranger)
    verdict = security_probe.judge(found, process.running(), "an untrusted certificate")
    assert found.accepted and not verdict.refused
    assert "accepted" in verdict.reason


def test_a_server_that_offers_the_policy_fails_the_unoffered_test(real_server, certificates):
    """The probe sets the policy itself: it asks a server offering Sign, which accepts; the
    reference client asked a server not offering it would have given up before asking."""
    process, endpoint = real_server([*OFFERED, ("Basic256Sha256", "Sign")], trusted=certificates.client)
    found = _probe(endpoint, certificates, "Sign", certificates.client)
    verdict = security_probe.judge(found, process.running(), "an unoffered policy")
    assert found.accepted and not verdict.refused


def test_a_real_server_not_offering_the_mode_is_asked_and_refuses(real_server, certificates):
    process, endpoint = real_server(OFFERED, trusted=certificates.client)
    found = _probe(endpoint, certificates, "Sign", certificates.client)
    assert found.status is not None, found  # the server itself answered, at some step
    assert security_probe.judge(found, process.running(), "an unoffered policy").refused, found


def test_a_dead_server_is_no_refusal(real_server, certificates):
    process, endpoint = real_server(OFFERED, trusted=certificates.client)
    process.stop()
    found = _probe(endpoint, certificates, "SignAndEncrypt", certificates.stranger)
    assert (found.step, found.status) == ("connect", None)
    verdict = security_probe.judge(found, process.running(), "an untrusted certificate")
    assert not verdict.refused and "died" in verdict.reason


# --- purpose-built faulty servers: TCP listeners that are no OPC UA server ---------------------


def _answers_hello_with(status: int):
    """A server that answers the client's Hello with an ERR of `status`, as a real one does:
    an ERR sent before the Hello arrives can reach the client before it listens for an answer."""

    def answer(connection: socket.socket) -> None:
        connection.recv(65536)
        connection.sendall(_error_message(status))

    return answer


@pytest.fixture
def listener() -> Iterator:
    """A TCP server on 127.0.0.1 whose every connection is handed to `answer(connection)`;
    it stands in for a faulty server (one that never answers, closes, or sends a set ERR)."""
    sockets: list[socket.socket] = []

    def start(answer) -> str:
        server = socket.create_server(("127.0.0.1", 0))
        sockets.append(server)

        def serve() -> None:
            while True:
                try:
                    connection, _ = server.accept()
                except OSError:
                    return
                sockets.append(connection)
                answer(connection)

        threading.Thread(target=serve, daemon=True).start()
        return f"opc.tcp://127.0.0.1:{server.getsockname()[1]}"

    yield start
    for one in sockets:
        one.close()


def _error_message(code: int) -> bytes:
    """An OPC UA ERR message (Part 6 §7.1.2.5) with `code` and no reason."""
    return struct.pack("<3scIIi", b"ERR", b"F", 16, code, -1)


def test_a_server_that_never_answers_times_out_and_that_is_no_refusal(listener, certificates):
    endpoint = listener(lambda connection: None)  # accepts and keeps the socket open, silent
    found = _probe(endpoint, certificates, "SignAndEncrypt", certificates.stranger, QUICK_S)
    assert (found.step, found.status) == ("Hello", None)
    assert "no answer" in found.detail
    assert not security_probe.judge(found, True, "an untrusted certificate").refused


def test_a_server_that_closes_without_a_status_is_no_refusal(listener, certificates):
    endpoint = listener(lambda connection: connection.close())
    found = _probe(endpoint, certificates, "SignAndEncrypt", certificates.stranger, QUICK_S)
    assert found.status is None
    verdict = security_probe.judge(found, True, "an untrusted certificate")
    assert not verdict.refused and "no status" in verdict.reason


BAD_TCP_INTERNAL_ERROR = 0x80820000
BAD_SECURITY_CHECKS_FAILED = 0x80130000


def test_a_bad_status_that_is_not_about_security_is_no_refusal(listener, certificates):
    endpoint = listener(_answers_hello_with(BAD_TCP_INTERNAL_ERROR))
    found = _probe(endpoint, certificates, "SignAndEncrypt", certificates.stranger, QUICK_S)
    assert (found.step, found.status) == ("Hello", "BadTcpInternalError")
    verdict = security_probe.judge(found, True, "an untrusted certificate")
    assert not verdict.refused and "not a security refusal" in verdict.reason


def test_a_security_status_from_the_server_is_a_refusal(listener, certificates):
    """The fixture above with the one thing changed: the status is BadSecurityChecksFailed."""
    endpoint = listener(_answers_hello_with(BAD_SECURITY_CHECKS_FAILED))
    found = _probe(endpoint, certificates, "SignAndEncrypt", certificates.stranger, QUICK_S)
    assert found.status == "BadSecurityChecksFailed"
    assert security_probe.judge(found, True, "an untrusted certificate").refused
