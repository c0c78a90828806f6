"""Security policies and certificate trust for both roles."""

from __future__ import annotations

from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from asyncua import Client, Server, ua
from asyncua.common.utils import ServiceError
from asyncua.crypto import security_policies
from asyncua.crypto.uacrypto import CertProperties

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


class TrustedCertificates:
    """Certificate validator that accepts exactly the listed client certificates.

    asyncua accepts any client certificate unless a validator is set; it calls the
    validator in CreateSession, so an untrusted client gets BadCertificateUntrusted
    there and never obtains a session."""

    def __init__(self, paths: list[str]) -> None:
        self._trusted = {_der(x509.load_der_x509_certificate(Path(p).read_bytes())) for p in paths}

    async def __call__(self, certificate: x509.Certificate, _description: ua.ApplicationDescription) -> None:
        if _der(certificate) not in self._trusted:
            raise ServiceError(ua.StatusCodes.BadCertificateUntrusted)


def _der(certificate: x509.Certificate) -> bytes:
    return certificate.public_bytes(Encoding.DER)


async def configure_server(server: Server, security: dict) -> None:
    endpoints = [SERVER_ENDPOINTS[(e["policy"], e["mode"])] for e in security["endpoints"]]
    server.set_security_policy(endpoints)
    if security["certificate"]:
        await server.load_certificate(security["certificate"], format="der")
        await server.load_private_key(security["private_key"], format="pem")
    server.set_certificate_validator(TrustedCertificates(security["trusted_certificates"]))


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
