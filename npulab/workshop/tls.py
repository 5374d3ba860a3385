"""A TLS certificate for the hub when the instructor has none: self-signed, for the names participants type.

A hub that listens beyond loopback without TLS sends the shared password in clear text to everyone on the
network. With a certificate from the institution, set ``WORKSHOP_SSL_CERT`` / ``WORKSHOP_SSL_KEY`` to it; without
one, ``make_self_signed`` writes a certificate for this host's names and addresses (the browser asks once whether
to trust it; participants compare the SHA-256 fingerprint the instructor shows). Uses ``cryptography``, which
JupyterHub already installs (through certipy).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
from pathlib import Path


def host_names() -> list[str]:
    """The names and addresses participants may type: host name, fully qualified name, loopback."""
    names = [socket.gethostname(), socket.getfqdn(), "localhost", "127.0.0.1"]
    return list(dict.fromkeys(n for n in names if n))


def _subject_names(names: list[str]):
    from cryptography import x509

    entries = []
    for name in names:
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            entries.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(entries)


def make_self_signed(cert: Path | str, key: Path | str, names: list[str], days: int = 30) -> str:
    """Write a self-signed certificate for ``names`` (key mode 0600); returns its SHA-256 fingerprint."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    private = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0]),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "npulab workshop")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
                   .public_key(private.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=days))
                   .add_extension(_subject_names(names), critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(private, hashes.SHA256()))
    key_path, cert_path = Path(key), Path(cert)
    for path in (key_path, cert_path):
        path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return fingerprint(cert_path)


def fingerprint(cert: Path | str) -> str:
    """The certificate's SHA-256 fingerprint as browsers show it (AB:CD:…)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    digest = x509.load_pem_x509_certificate(Path(cert).read_bytes()).fingerprint(hashes.SHA256())
    return ":".join(f"{b:02X}" for b in digest)
