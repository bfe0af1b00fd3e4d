"""Ed25519 signatures over a result set's manifest, with a key the publisher supplies.

What is signed: the RFC 8785 canonical encoding of ``manifest.json``. The manifest
pins every row (canonical digest) and every evidence file (byte digest), so one
signature covers the whole result set. ``manifest.sig`` records the signature and the
raw public key; a verifier pins the key it expects with ``--pubkey``.

Example::

    memlab keygen ~/.memlab/sign.pem          # writes sign.pem (0600) and sign.pub.pem
    memlab sign results/2026... --key ~/.memlab/sign.pem
    memlab verify results/2026... --pubkey ~/.memlab/sign.pub.pem

An encrypted private key is read with the passphrase in ``$MEMLAB_SIGN_PASSPHRASE``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from lab import safewrite
from lab.resultset.loading import JSONProblem, read_strict

SIGNATURE_FILE = "manifest.sig"
SIGNATURE_SCHEMA = "memlab.signature/1"
PASSPHRASE_ENV = "MEMLAB_SIGN_PASSPHRASE"


class SigningKeyError(ValueError):
    """A key file that cannot be used, with what to do about it."""


def key_id(public: Ed25519PublicKey) -> str:
    """``ed25519:<first 16 hex of SHA-256 of the raw public key>``: a short name for a key."""
    return "ed25519:" + hashlib.sha256(raw_public(public)).hexdigest()[:16]


def raw_public(public: Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key."""
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def keygen(path: Path) -> tuple[Path, Path, str]:
    """Write a new private key (PEM, mode 0600) and ``<stem>.pub.pem`` beside it; refuse to overwrite."""
    path = Path(path)
    pub_path = path.with_name(path.name.removesuffix(".pem") + ".pub.pem")
    for target in (path, pub_path):
        if target.exists() or target.is_symlink():
            raise SigningKeyError(f"{target} exists; memlab keygen never overwrites a key (choose another path)")
    path.parent.mkdir(parents=True, exist_ok=True)
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    fd = os.open(pub_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)  # never through a link either
    with os.fdopen(fd, "wb") as fh:
        fh.write(private.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo))
    return path, pub_path, key_id(private.public_key())


def load_private_key(path: Path) -> Ed25519PrivateKey:
    """An Ed25519 private key from a PEM file (encrypted ones need ``$MEMLAB_SIGN_PASSPHRASE``)."""
    passphrase = os.environ.get(PASSPHRASE_ENV)
    password = passphrase.encode() if passphrase else None
    return _load_pem(path, lambda data: serialization.load_pem_private_key(data, password=password),
                     Ed25519PrivateKey, "not a readable PEM private key ({exc}); make one with `memlab keygen KEY.pem`",
                     "not an Ed25519 key; make one with `memlab keygen`")


def load_public_key(path: Path) -> Ed25519PublicKey:
    """An Ed25519 public key from a PEM file (``*.pub.pem`` as ``memlab keygen`` writes it)."""
    return _load_pem(path, serialization.load_pem_public_key, Ed25519PublicKey,
                     "not a PEM public key ({exc}); pass the .pub.pem `memlab keygen` wrote",
                     "not an Ed25519 public key")


def _load_pem(path: Path, load: Any, kind: type, unreadable: str, wrong: str) -> Any:
    """``load`` over the file's bytes; ``SigningKeyError`` saying what to do when it is not a ``kind``."""
    data = _read_key_file(path)
    try:
        key = load(data)
    except TypeError as exc:  # an encrypted key without its passphrase
        raise SigningKeyError(f"{path}: {exc}; set {PASSPHRASE_ENV} for an encrypted key") from None
    except ValueError as exc:
        raise SigningKeyError(f"{path}: {unreadable.format(exc=exc)}") from None
    if not isinstance(key, kind):
        raise SigningKeyError(f"{path}: a {type(key).__name__}, {wrong}")
    return key


#: The largest key file read: a PEM Ed25519 key is a few hundred bytes.
MAX_KEY_BYTES = 64 * 1024


def _read_key_file(path: Path) -> bytes:
    """The bytes of a key file: a regular file of at most ``MAX_KEY_BYTES`` (``/dev/zero`` would be read
    until memory runs out, a FIFO would wait for a writer forever); SigningKeyError naming it otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise SigningKeyError(f"cannot read key file {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SigningKeyError(f"key file {path} is not a regular file (a device, FIFO or socket); "
                                  "pass the .pem file `memlab keygen` wrote")
        if info.st_size > MAX_KEY_BYTES:
            raise SigningKeyError(f"key file {path} is {info.st_size} bytes, over the 64 KiB a key file may be; "
                                  "pass the .pem file `memlab keygen` wrote")
        data = b""
        while len(data) <= MAX_KEY_BYTES and (chunk := os.read(fd, MAX_KEY_BYTES + 1 - len(data))):
            data += chunk
        if len(data) > MAX_KEY_BYTES:  # grew since fstat
            raise SigningKeyError(f"key file {path} is over the 64 KiB a key file may be; "
                                  "pass the .pem file `memlab keygen` wrote")
        return data
    except OSError as exc:
        raise SigningKeyError(f"cannot read key file {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def signed_bytes(manifest: dict[str, Any]) -> bytes:
    """The bytes a signature covers: the canonical encoding of the manifest."""
    return rfc8785.dumps(manifest)


def sign(root: Path, private: Ed25519PrivateKey) -> dict[str, Any]:
    """Sign ``root/manifest.json`` and write ``root/manifest.sig``; returns what was written."""
    manifest = read_strict(Path(root) / "manifest.json")
    data = signed_bytes(manifest)
    public = private.public_key()
    record = {
        "schema": SIGNATURE_SCHEMA, "algorithm": "Ed25519",
        "signed": "RFC 8785 canonical encoding of manifest.json",
        "manifest_digest": "sha256:" + hashlib.sha256(data).hexdigest(),
        "public_key": base64.b64encode(raw_public(public)).decode(), "key_id": key_id(public),
        "signature": base64.b64encode(private.sign(data)).decode(),
    }
    safewrite.write_text(Path(root) / SIGNATURE_FILE, json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record


def check_file(root: Path, manifest: dict[str, Any],
               pinned: Ed25519PublicKey | None) -> tuple[list[tuple[str, str]], str | None]:
    """The set's ``manifest.sig`` checked: its problems as ``(ground, detail)`` and, when it verifies, the
    signer's key id. No signature is a problem only when ``pinned`` (``--pubkey``) asks for one."""
    path = Path(root) / SIGNATURE_FILE
    if not path.exists():
        return ([("signature-missing", f"--pubkey pins {key_id(pinned)} but the result set is not signed "
                                       "(sign it with `memlab sign DIR --key KEY.pem`)")] if pinned else []), None
    try:
        record = read_strict(path)
    except (OSError, JSONProblem) as exc:
        return [("bad-signature", f"cannot be read: {exc}")], None
    problems = check(manifest, record, pinned)
    return problems, None if problems else record.get("key_id")


def check(manifest: dict[str, Any], record: Any, pinned: Ed25519PublicKey | None) -> list[tuple[str, str]]:
    """Problems with a signature record as ``(ground, detail)``; empty when it verifies (and matches ``pinned``)."""
    if not isinstance(record, dict) or record.get("schema") != SIGNATURE_SCHEMA:
        return [("bad-signature", f"not a {SIGNATURE_SCHEMA} record")]
    if record.get("algorithm") != "Ed25519":
        return [("bad-signature", f"algorithm {record.get('algorithm')!r}; only Ed25519 is verified")]
    try:
        public = Ed25519PublicKey.from_public_bytes(base64.b64decode(record["public_key"], validate=True))
        signature = base64.b64decode(record["signature"], validate=True)
    except (KeyError, TypeError, ValueError) as exc:
        return [("bad-signature", f"public_key or signature missing or not base64 ({exc})")]
    try:
        public.verify(signature, signed_bytes(manifest))
    except InvalidSignature:
        return [("bad-signature", f"the signature by {key_id(public)} does not match manifest.json "
                                  "(the manifest changed after signing, or the signature was altered)")]
    if pinned is not None and raw_public(pinned) != raw_public(public):
        return [("signature-key-mismatch", f"signed by {key_id(public)}, but --pubkey pins {key_id(pinned)}")]
    return []
