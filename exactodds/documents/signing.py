"""Signatures on certificates: Ed25519 keys (``cryptography``) over RFC 8785 canonical JSON.

The signed bytes are the RFC 8785 (JSON Canonicalization Scheme) form of the
whole certificate with its ``signature`` block in place but without the
signature's ``value`` — so the signer's name, the key and the time are signed
too — and anyone can recompute them with any RFC 8785 implementation.

>>> canonical({"b": 1, "a": ["x", None]})
b'{"a":["x",null],"b":1}'
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from exactodds.errors import ExactOddsError

__all__ = ["canonical", "keygen", "sign", "check_signature", "load_public_key", "key_id", "check_name",
           "name_problem", "ALGORITHM", "NAME_LIMIT"]

ALGORITHM = "Ed25519"
_SIGNATURE_KEYS = {"algorithm", "key_id", "public_key", "signer", "signed_at", "value"}
_SIGNED_AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")      # as sign() writes it, in UTC

#: The longest name of a person or title of a certificate.
NAME_LIMIT = 200
#: Characters that change how what follows them is shown: they could make a name look like another line.
_HIDDEN = {"Cc": "is a control character", "Cf": "is a format character", "Zl": "is a line separator",
           "Zp": "is a paragraph separator"}
_BIDI = {*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C}


def name_problem(value: object, *, limit: int = NAME_LIMIT) -> str | None:
    """What makes ``value`` unfit to name a person or a certificate, or None if nothing does.

    A name is printable text of 1 to ``limit`` characters, with no control, format
    (bidirectional) or line-separating character, so that wherever it is printed it
    reads as itself and cannot pass for another line.

    >>> name_problem("A. Analyst") is None
    True
    >>> name_problem("A. Analyst\\u202e")
    'U+202E RIGHT-TO-LEFT OVERRIDE (character 11) is a bidirectional control'
    """
    if not isinstance(value, str):
        return "not text"
    if not value.strip():
        return "empty"
    if len(value) > limit:
        return f"{len(value):,} characters, more than {limit}"
    for i, ch in enumerate(value, start=1):
        code = ord(ch)
        what = ("is a bidirectional control" if code in _BIDI else _HIDDEN.get(unicodedata.category(ch))
                or (None if ch.isprintable() else "is not printable"))
        if what:
            name = unicodedata.name(ch, "")
            return f"U+{code:04X}{' ' + name if name else ''} (character {i}) {what}"
    return None


def check_name(value: object, where: str, *, optional: bool = False, limit: int = NAME_LIMIT) -> None:
    """Refuse, in one line naming ``where``, a name :func:`name_problem` finds unfit (None if ``optional``)."""
    if value is None and optional:
        return
    problem = name_problem(value, limit=limit)
    if problem:
        raise ExactOddsError(f"{where}: {problem}; a name is printable text of 1 to {limit} characters, "
                             "without control or bidirectional characters")


def canonical(document: Any) -> bytes:
    """The RFC 8785 canonical JSON of ``document`` (whole numbers must fit a double exactly)."""

    try:
        return bytes(rfc8785.dumps(document))
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise ExactOddsError(f"the certificate cannot be put in canonical JSON form ({exc})") from None


def key_id(raw_public: bytes) -> str:
    """A short name for a public key: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(raw_public).hexdigest()[:16]


def keygen(prefix: str | os.PathLike[str]) -> tuple[Path, Path]:
    """Write a new Ed25519 key pair: the private key to ``prefix`` (mode 0600), the public to ``prefix.pub``.

    Existing files are never overwritten.
    """

    private_path, public_path = Path(prefix), Path(f"{prefix}.pub")
    for path in (private_path, public_path):
        if path.exists() or path.is_symlink():
            raise ExactOddsError(f"--output {prefix}: {path} exists; a key is never overwritten")
        if not path.parent.is_dir():
            raise ExactOddsError(f"--output {prefix}: directory {path.parent} does not exist")
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
    public_pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo)
    try:
        fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)   # owner only, from the start
        with os.fdopen(fd, "wb") as fh:
            fh.write(private_pem)
        os.chmod(private_path, 0o600)
        fd = os.open(public_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(public_pem)
    except OSError as exc:
        private_path.unlink(missing_ok=True)
        raise ExactOddsError(f"--output {prefix}: cannot write the key ({exc.strerror or exc})") from None
    return private_path, public_path


def _read(path: str | os.PathLike[str], what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ExactOddsError(f"{what} {path}: cannot read ({exc.strerror or exc})") from None


def _private_key(path: str | os.PathLike[str]) -> Any:

    try:
        key = serialization.load_pem_private_key(_read(path, "--sign"), password=None)
    except (ValueError, TypeError) as exc:
        raise ExactOddsError(f"--sign {path}: not an unencrypted PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ExactOddsError(f"--sign {path}: not an Ed25519 key (make one with 'exactodds keygen')")
    return key


def load_public_key(path: str | os.PathLike[str]) -> Any:
    """An Ed25519 public key from a PEM file (as ``exactodds keygen`` writes it)."""

    try:
        key = serialization.load_pem_public_key(_read(path, "--public-key"))
    except (ValueError, TypeError) as exc:
        raise ExactOddsError(f"--public-key {path}: not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ExactOddsError(f"--public-key {path}: not an Ed25519 key")
    return key


def _raw(public_key: Any) -> bytes:

    return bytes(public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))


def sign(document: dict[str, Any], private_key_path: str | os.PathLike[str], *, signer: str | None = None,
         now: dt.datetime | None = None) -> dict[str, Any]:
    """``document`` with a ``signature`` block over its canonical form."""
    check_name(signer, "--signer", optional=True)
    key = _private_key(private_key_path)
    raw = _raw(key.public_key())
    moment = (now or dt.datetime.now(dt.timezone.utc)).astimezone(dt.timezone.utc)
    when = moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    block = {"algorithm": ALGORITHM, "key_id": key_id(raw), "public_key": base64.b64encode(raw).decode("ascii"),
             "signer": signer, "signed_at": when}
    unsigned = {k: v for k, v in document.items() if k != "signature"} | {"signature": block}
    value = key.sign(canonical(unsigned))
    return unsigned | {"signature": block | {"value": base64.b64encode(value).decode("ascii")}}


def check_signature(document: dict[str, Any], trusted: Any | None) -> tuple[bool, str]:
    """(valid, what it says): the signature block against the document, and against ``trusted``
    (a public key) when one is given."""

    block = document.get("signature")
    if block is None:
        return (False, "the certificate is not signed") if trusted is not None else (True, "not signed")
    if not isinstance(block, dict) or set(block) != _SIGNATURE_KEYS:
        raise ExactOddsError(f"malformed certificate: signature needs exactly {sorted(_SIGNATURE_KEYS)}")
    for name in ("algorithm", "key_id", "public_key", "signed_at", "value"):
        if not isinstance(block[name], str):
            raise ExactOddsError(f"malformed certificate: signature.{name} must be text")
    if block["signer"] is not None and not isinstance(block["signer"], str):
        raise ExactOddsError("malformed certificate: signature.signer must be text or null")
    check_name(block["signer"], "malformed certificate: signature.signer", optional=True)
    if not _SIGNED_AT.fullmatch(block["signed_at"]):
        raise ExactOddsError("malformed certificate: signature.signed_at is not a time written YYYY-MM-DDTHH:MM:SSZ")
    if block["algorithm"] != ALGORITHM:
        raise ExactOddsError(f"malformed certificate: signature algorithm {block['algorithm']!r} (only {ALGORITHM})")
    try:
        raw = base64.b64decode(block["public_key"], validate=True)
        value = base64.b64decode(block["value"], validate=True)
        embedded = Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        raise ExactOddsError("malformed certificate: signature key or value is not base64 of an Ed25519 key") from None
    if key_id(raw) != block["key_id"]:
        return False, "the signature's key_id does not match its public key"
    unsigned = dict(document) | {"signature": {k: v for k, v in block.items() if k != "value"}}
    try:
        embedded.verify(value, canonical(unsigned))
    except InvalidSignature:
        return False, "the signature does not match the certificate (changed after signing)"
    signer = "an unnamed signer" if block["signer"] is None else repr(block["signer"])   # quoted, never the message
    who = f"signed by {signer} (key {block['key_id']}) at {block['signed_at']}"
    if trusted is None:
        return True, who + "; the key was not checked against a trusted one (give --public-key)"
    if _raw(trusted) != raw:
        return False, f"signed with key {block['key_id']}, not with the trusted key {key_id(_raw(trusted))}"
    return True, who + ", the trusted key"
