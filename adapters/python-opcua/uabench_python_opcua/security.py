"""Security policies, certificate files and the server's client-certificate trust list."""

from __future__ import annotations

import logging

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from opcua import ua
from opcua.crypto import security_policies
from opcua.server.binary_server_asyncio import BinaryServer, OPCUAProtocol
from opcua.ua.ua_binary import uatcp_to_binary
from uabench_contract import ConfigError, NotSupported

log = logging.getLogger("uabench.python_opcua.security")

# Policy name -> python-opcua class (client side). Only Basic256Sha256 is also offered by
# the library's server; the Aes* policies do not exist in 0.98.13 at all.
CLIENT_POLICIES = {"Basic256Sha256": security_policies.SecurityPolicyBasic256Sha256}
MODES = {
    "None": ua.MessageSecurityMode.None_,
    "Sign": ua.MessageSecurityMode.Sign,
    "SignAndEncrypt": ua.MessageSecurityMode.SignAndEncrypt,
}
SERVER_ENDPOINTS = {
    ("None", "None"): ua.SecurityPolicyType.NoSecurity,
    ("Basic256Sha256", "Sign"): ua.SecurityPolicyType.Basic256Sha256_Sign,
    (
        "Basic256Sha256",
        "SignAndEncrypt",
    ): ua.SecurityPolicyType.Basic256Sha256_SignAndEncrypt,
}


def server_policy_types(endpoints: list[dict]) -> list:
    types = []
    for endpoint in endpoints:
        key = (endpoint["policy"], endpoint["mode"])
        if key not in SERVER_ENDPOINTS:
            raise NotSupported(
                f"python-opcua's server cannot offer policy {key[0]} mode {key[1]}"
            )
        if SERVER_ENDPOINTS[key] not in types:
            types.append(SERVER_ENDPOINTS[key])
    return types


def client_policy(policy: str):
    if policy not in CLIENT_POLICIES:
        raise NotSupported(f"python-opcua's client has no security policy {policy}")
    return CLIENT_POLICIES[policy]


def load_certificate(path: str, key: str) -> x509.Certificate:
    """A DER certificate (PEM accepted too), or ConfigError naming the config key."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as error:
        raise ConfigError(
            f"config: key '{key}': cannot read {path}: {error.strerror}"
        ) from error
    try:
        return x509.load_der_x509_certificate(data)
    except ValueError:
        try:
            return x509.load_pem_x509_certificate(data)
        except ValueError as error:
            raise ConfigError(
                f"config: key '{key}': {path} is not a DER or PEM certificate"
            ) from error


def load_private_key(path: str, key: str):
    """A PEM private key (PKCS#8 or traditional RSA). The library's own loader picks PEM or
    DER from the file extension, which would break on names like client.key."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError as error:
        raise ConfigError(
            f"config: key '{key}': cannot read {path}: {error.strerror}"
        ) from error
    try:
        return serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as error:
        raise ConfigError(
            f"config: key '{key}': {path} is not an unencrypted PEM private key"
        ) from error


def der(certificate: x509.Certificate) -> bytes:
    return certificate.public_bytes(serialization.Encoding.DER)


# --- the server's trust list ---------------------------------------------------------------
#
# python-opcua's server accepts every client certificate: SecureConnection.select_policy
# hands the sender certificate straight to SecurityPolicyFactory.create. The guard below
# wraps each endpoint's factory so that an untrusted certificate aborts the
# OpenSecureChannel, and wraps the connection's processor so that the client gets an OPC UA
# TCP Error message (BadSecurityChecksFailed) and the socket is closed, instead of the
# library's default of logging the exception and leaving the client waiting. An
# OpenSecureChannel with a bad signature, or for a policy/mode the server does not offer, is
# refused the same way.


class UntrustedCertificate(Exception):
    pass


class TrustedPolicyFactory(ua.SecurityPolicyFactory):
    def __init__(
        self, factory: ua.SecurityPolicyFactory, trusted: frozenset[bytes]
    ) -> None:
        super().__init__(
            factory.cls, factory.mode, factory.certificate, factory.private_key
        )
        self.trusted = trusted

    def create(self, peer_certificate):
        if (
            self.cls is not ua.SecurityPolicy
            and _normalised(peer_certificate) not in self.trusted
        ):
            raise UntrustedCertificate(_describe(peer_certificate))
        return super().create(peer_certificate)


def _normalised(certificate: bytes | None) -> bytes | None:
    if not certificate:
        return None
    try:
        return der(x509.load_der_x509_certificate(certificate))
    except ValueError:
        return None


def _describe(certificate: bytes | None) -> str:
    if not certificate:
        return "no client certificate"
    try:
        return f"untrusted client certificate {x509.load_der_x509_certificate(certificate).subject.rfc4514_string()}"
    except ValueError:
        return "unparsable client certificate"


class _GuardedProtocol(OPCUAProtocol):
    def connection_made(self, transport):
        super().connection_made(transport)
        process = self.processor.process

        def guarded_process(header, body):
            try:
                return process(header, body)
            except (UntrustedCertificate, InvalidSignature) as rejection:
                # InvalidSignature: e.g. a client key that does not match its certificate
                return self._refuse(
                    ua.StatusCodes.BadSecurityChecksFailed,
                    str(rejection) or "invalid signature",
                )
            except ua.UaError as error:
                if header.MessageType != ua.MessageType.SecureOpen:
                    raise
                # e.g. "No matching policy": a policy/mode this server does not offer
                return self._refuse(
                    ua.StatusCodes.BadSecurityPolicyRejected, str(error)
                )

        self.processor.process = guarded_process

    def _refuse(self, status: int, reason: str) -> bool:
        log.warning("refusing secure channel from %s: %s", self.peername, reason)
        error = ua.ErrorMessage()
        error.Error = ua.StatusCode(status)
        error.Reason = reason
        self.transport.write(uatcp_to_binary(ua.MessageType.Error, error))
        return False  # the protocol closes the connection


class GuardedBinaryServer(BinaryServer):
    """BinaryServer whose endpoints only accept client certificates from `trusted`."""

    def __init__(
        self, internal_server, hostname: str, port: int, trusted: frozenset[bytes]
    ) -> None:
        super().__init__(internal_server, hostname, port)
        self.trusted = trusted

    def set_policies(self, policies):
        super().set_policies([TrustedPolicyFactory(p, self.trusted) for p in policies])

    def start(self):
        # Same as BinaryServer.start, with the guarded protocol class.
        properties = dict(
            iserver=self.iserver,
            loop=self.loop,
            logger=self.logger,
            policies=self._policies,
            clients=self.clients,
        )
        protocol_factory = type("OPCUAProtocol", (_GuardedProtocol,), properties)
        self._server = self.loop.run_coro_and_wait(
            self.loop.create_server(protocol_factory, self.hostname, self.port)
        )
