"""Security policies and certificate trust for both roles."""

from __future__ import annotations

import logging
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import Encoding

from asyncua import Client, Server, ua
from asyncua.crypto import security_policies, uacrypto
from asyncua.crypto.permission_rules import SimpleRoleRuleset
from asyncua.crypto.uacrypto import CertProperties

import uabench_contract as contract

log = logging.getLogger("uabench_asyncua.server")

POLICY_CLASSES = {
    "Basic256Sha256": security_policies.SecurityPolicyBasic256Sha256,
    "Aes128_Sha256_RsaOaep": security_policies.SecurityPolicyAes128Sha256RsaOaep,
    "Aes256_Sha256_RsaPss": security_policies.SecurityPolicyAes256Sha256RsaPss,
}
MODES = {
    "None": ua.MessageSecurityMode.None_,
    "Sign": ua.MessageSecurityMode.Sign,
    "SignAndEncrypt": ua.MessageSecurityMode.SignAndEncrypt,
}
_T = ua.SecurityPolicyType
SERVER_ENDPOINTS = {
    ("None", "None"): _T.NoSecurity,
    ("Basic256Sha256", "Sign"): _T.Basic256Sha256_Sign,
    ("Basic256Sha256", "SignAndEncrypt"): _T.Basic256Sha256_SignAndEncrypt,
    ("Aes128_Sha256_RsaOaep", "Sign"): _T.Aes128Sha256RsaOaep_Sign,
    ("Aes128_Sha256_RsaOaep", "SignAndEncrypt"): _T.Aes128Sha256RsaOaep_SignAndEncrypt,
    ("Aes256_Sha256_RsaPss", "Sign"): _T.Aes256Sha256RsaPss_Sign,
    ("Aes256_Sha256_RsaPss", "SignAndEncrypt"): _T.Aes256Sha256RsaPss_SignAndEncrypt,
}
# What both roles of this adapter offer (capabilities and sdk.toml list the same pairs).
SUPPORTED = list(SERVER_ENDPOINTS)


class TrustedClientsOnly(security_policies.SecurityPolicyFactory):
    """Opens a secure channel only for a client certificate listed in trusted_certificates.

    asyncua trusts every client certificate by default, and its certificate-validator hook
    runs in CreateSession for every channel, None included, where OPC UA says the client
    certificate is to be ignored (node-opcua clients send one there). So the check sits
    where asyncua creates each channel's security policy from the OpenSecureChannel
    sender certificate. BadUserAccessDenied is the error asyncua's UaProcessor answers by
    closing the connection, which is the rejection; any other error would leave the
    client waiting for its timeout."""

    def __init__(
        self, policy_type: ua.SecurityPolicyType, server: Server, trusted: set[bytes]
    ) -> None:
        policy, mode, _level = security_policies.SECURITY_POLICY_TYPE_MAP[policy_type]
        super().__init__(
            policy,
            mode,
            server.iserver.certificate,
            server.iserver.private_key,
            permission_ruleset=SimpleRoleRuleset(),
        )
        self._trusted = trusted

    def create(
        self, peer_certificate: bytes | None
    ) -> security_policies.SecurityPolicy:
        if self.cls is not security_policies.SecurityPolicyNone:
            leaf = (
                uacrypto.x509_from_der(peer_certificate) if peer_certificate else None
            )
            if leaf is None or _der(leaf) not in self._trusted:
                log.warning(
                    "rejecting a secure channel: client certificate not in trusted_certificates"
                )
                raise ua.uaerrors.BadUserAccessDenied()
        return super().create(peer_certificate)


def check_files(settings: dict, keys: list[str]) -> None:
    """Certificates (DER) and private keys (PEM) are part of the config: a file that is
    unreadable or not in its format is a config error naming the key."""
    for key in keys:
        value = settings.get(key)
        for path in value if isinstance(value, list) else [value] if value else []:
            try:
                content = Path(path).read_bytes()
                if key == "private_key":
                    serialization.load_pem_private_key(content, password=None)
                else:
                    x509.load_der_x509_certificate(content)
            except OSError as error:
                raise contract.ConfigError(
                    f"config: key 'security.{key}': cannot read {path}: "
                    f"{error.strerror}"
                ) from error
            except (ValueError, TypeError) as error:
                kind = (
                    "an unencrypted PEM private key"
                    if key == "private_key"
                    else "a DER certificate"
                )
                raise contract.ConfigError(
                    f"config: key 'security.{key}': {path} is not {kind}"
                ) from error


def _der(certificate: x509.Certificate) -> bytes:
    return certificate.public_bytes(Encoding.DER)


async def configure_server(
    server: Server, security: dict
) -> list[ua.SecurityPolicyType]:
    """Loads the server's certificate and selects its endpoints; returns the endpoint types."""
    endpoints = [
        SERVER_ENDPOINTS[(e["policy"], e["mode"])] for e in security["endpoints"]
    ]
    server.set_security_policy(endpoints)
    if security["certificate"]:
        await server.load_certificate(security["certificate"], format="der")
        await server.load_private_key(security["private_key"], format="pem")
    return endpoints


def trust_only(
    server: Server, endpoints: list[ua.SecurityPolicyType], trusted_paths: list[str]
) -> None:
    """Replaces the started server's channel policies by ones that check the client certificate."""
    trusted = {
        _der(x509.load_der_x509_certificate(Path(p).read_bytes()))
        for p in trusted_paths
    }
    server.bserver.set_policies(
        [TrustedClientsOnly(e, server, trusted) for e in endpoints]
    )


async def configure_client(client: Client, security: dict) -> None:
    """Apply the client's security settings; the server certificate it is offered is trusted."""
    if security["policy"] == "None":
        return
    client.application_uri = security["application_uri"]
    await client.set_security(
        POLICY_CLASSES[security["policy"]],
        certificate=CertProperties(security["certificate"], extension="der"),
        private_key=CertProperties(security["private_key"], extension="pem"),
        mode=MODES[security["mode"]],
    )
