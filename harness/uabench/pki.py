"""Certificates for the secure endpoints: self-signed RSA certificates with the
ApplicationUri in the SAN, DER certificates and PEM private keys (mode 0600)."""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class Identity:
    certificate: Path
    private_key: Path
    application_uri: str


def make_identity(directory: Path, name: str, application_uri: str, valid_days: int = 365) -> Identity:
    """Create (or reuse) `name`'s certificate and key in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    certificate, private_key = directory / f"{name}.der", directory / f"{name}.pem"
    if certificate.exists() and private_key.exists():
        return Identity(certificate, private_key, application_uri)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, f"uabench {name}"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "uabench"),
        ]
    )
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=valid_days))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.UniformResourceIdentifier(application_uri),
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,
                key_encipherment=True,
                data_encipherment=True,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    fd = os.open(private_key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as stream:
        stream.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
            )
        )
    certificate.write_bytes(cert.public_bytes(serialization.Encoding.DER))
    return Identity(certificate, private_key, application_uri)


@dataclass(frozen=True)
class Pki:
    server: Identity
    client: Identity
    stranger: Identity  # a client nobody trusts: for the negative tests


NAMES = {"server": "urn:uabench:server", "client": "urn:uabench:client", "stranger": "urn:uabench:client"}


def make_pki(directory: Path, valid_days: int = 365) -> Pki:
    return Pki(**{name: make_identity(directory, name, uri, valid_days) for name, uri in NAMES.items()})


def kept_pki(directory: Path) -> Pki:
    """The PKI kept in `directory` (made once, by make_pki), as it is: never made anew."""
    identities = {
        name: Identity(directory / f"{name}.der", directory / f"{name}.pem", application_uri)
        for name, application_uri in NAMES.items()
    }
    paths = [path for one in identities.values() for path in (one.certificate, one.private_key)]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise FileNotFoundError(f"the kept PKI lacks {', '.join(missing)}")
    return Pki(**identities)
