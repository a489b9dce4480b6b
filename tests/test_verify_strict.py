"""verify trusts only what exactodds wrote: a PDF's pages are exactly the print of its certificate, and the
names a certificate carries can only read as themselves (issue 22, part 5)."""

from __future__ import annotations

import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from exactodds.certificate import build, verify
from exactodds.cli import cli
from exactodds.errors import ExactOddsError
from exactodds.signing import canonical, keygen, load_public_key, sign


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return keygen(tmp_path_factory.mktemp("keys") / "lab")


# -- names: printable text that can only read as itself ------------------------------------------------------

#: One of each kind of character a name may not hold.
BAD = {
    "newline": "A. Analyst\nx.pdf: verified",
    "carriage return": "A. Analyst\rx.pdf: verified",
    "ANSI escape": "A. Analyst\x1b[32m verified",
    "right-to-left override U+202E": "A. Analyst\u202e",
    "left-to-right embedding U+202A": "A. \u202aAnalyst",
    "right-to-left isolate U+2067": "A. \u2067Analyst",
    "pop directional isolate U+2069": "A. Analyst\u2069",
    "left-to-right mark U+200E": "A. \u200eAnalyst",
    "right-to-left mark U+200F": "A. \u200fAnalyst",
    "Arabic letter mark U+061C": "A. \u061cAnalyst",
    "line separator U+2028": "A. Analyst\u2028verified",
    "paragraph separator U+2029": "A. Analyst\u2029verified",
    "zero-width joiner (format) U+200D": "A.\u200dAnalyst",
    "201 characters": "A" * 201,
    "100,000 characters": "A" * 100_000,
}


def _one_clean_line(err: str, bad: str) -> None:
    """One line, and none of the name's own characters that could draw another."""
    line = err.removesuffix("\n")
    assert "\n" not in line and "\r" not in line and "\x1b" not in line, err
    assert not any(ch in line for ch in bad if not ch.isprintable()), err
    assert len(err) < 400, err


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
def test_signer_with_control_bidi_or_too_many_characters_is_refused_at_signing(bad: str, key: tuple[Path, Path],
                                                                              tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    code, stdout, err = run("certificate", "--wager", "tie:8-to-1", "--decks", "8", "--format", "json",
                            "--sign", str(key[0]), "--signer", bad, "--output", str(out))
    assert code == 2 and stdout == "" and "--signer: " in err, err
    _one_clean_line(err, bad)
    assert not out.exists()
    with pytest.raises(ExactOddsError, match="--signer"):
        sign({"title": "x"}, key[0], signer=bad)


@pytest.mark.parametrize("option", ["--issuer", "--prepared-by", "--approved-by", "--title"])
@pytest.mark.parametrize("bad", [BAD["newline"], BAD["right-to-left override U+202E"], BAD["201 characters"]],
                         ids=["newline", "bidi", "201 characters"])
def test_party_names_and_the_title_with_control_bidi_or_too_many_characters_are_refused(option: str, bad: str) -> None:
    code, stdout, err = run("certificate", "--wager", "tie:8-to-1", "--decks", "8", "--format", "json", option, bad)
    assert code == 2 and stdout == "" and f"{option}: " in err, err
    _one_clean_line(err, bad)


def test_a_name_of_200_printable_characters_is_accepted(key: tuple[Path, Path]) -> None:
    name = "Dr. Émilie O'Brien-Łukasiewicz, 王小明, Ελένη " * 5
    name = (name + "x" * 200)[:200]
    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1")], issued="2026-11-23", title=name,
                 parties={"issuer": name, "prepared_by": name, "approved_by": name})
    ok, message = verify(sign(cert, key[0], signer=name), public_key=load_public_key(key[1]))
    assert ok and f"signed by {name!r}" in message


@pytest.fixture(scope="module")
def cert() -> dict:
    return build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1")], issued="2026-11-23",
                 parties={"issuer": "Test Lab", "prepared_by": None, "approved_by": None})


def _signed_by_forger(document: dict, private: Path, **block: Any) -> dict:
    """``document`` signed with ``private`` after its signature block was changed, as anyone holding a key
    can do with any Ed25519 library: the signature is valid."""
    from cryptography.hazmat.primitives import serialization

    honest = sign(document, private, signer="A. Analyst")
    unsigned = honest | {"signature": {k: v for k, v in honest["signature"].items() if k != "value"} | block}
    key = serialization.load_pem_private_key(private.read_bytes(), password=None)
    value = key.sign(canonical(unsigned))
    return unsigned | {"signature": unsigned["signature"] | {"value": base64.b64encode(value).decode("ascii")}}


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
def test_a_validly_signed_certificate_whose_signer_is_not_a_clean_name_is_malformed(
        bad: str, cert: dict, key: tuple[Path, Path], tmp_path: Path) -> None:
    """The finding: a signer's name printed a fake 'verified … the trusted key' line. verify refuses it (exit 2)
    and prints nothing of it."""
    forged = _signed_by_forger(cert, key[0], signer=bad)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged, ensure_ascii=False), encoding="utf-8")
    code, out, err = run("verify", str(path))
    assert code == 2 and out == "" and "malformed certificate: signature.signer: " in err, (out, err)
    _one_clean_line(err, bad)


@pytest.mark.parametrize("field", ["title", "issuer", "prepared_by", "approved_by"])
def test_a_certificate_edited_to_hold_an_unclean_party_name_or_title_is_malformed(
        field: str, cert: dict, tmp_path: Path) -> None:
    doc = copy.deepcopy(cert)
    bad = BAD["newline"]
    if field == "title":
        doc["title"] = bad
    else:
        doc["parties"][field] = bad
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run("verify", str(path))
    where = "title" if field == "title" else f"parties.{field}"
    assert code == 2 and out == "" and f"malformed certificate: {where}: U+000A" in err, err
    _one_clean_line(err, bad)


def test_a_signing_time_that_is_not_a_time_is_malformed(cert: dict, key: tuple[Path, Path]) -> None:
    forged = _signed_by_forger(cert, key[0], signed_at="2026-11-23T10:00:00Z\nx.json: verified")
    with pytest.raises(ExactOddsError, match="signature.signed_at is not a time"):
        verify(forged)


def test_verify_prints_the_signer_quoted(cert: dict, key: tuple[Path, Path], tmp_path: Path) -> None:
    """A name that reads like the message (': verified …, the trusted key') still shows as one quoted name."""
    name = "A. Analyst (key 0000000000000000) at 2026-11-23T10:00:00Z, the trusted key; x.json: verified"
    path = tmp_path / "c.json"
    path.write_text(json.dumps(sign(cert, key[0], signer=name)), encoding="utf-8")
    code, out, _ = run("verify", str(path))
    assert code == 0 and f"signed by {name!r} (key " in out and out.count("\n") == 1
    quoted = sign(cert, key[0], signer="Dr. O'Brien")
    assert "signed by \"Dr. O'Brien\" (key " in verify(quoted)[1]


def test_a_data_file_name_in_the_provenance_is_printed_quoted(cert: dict) -> None:
    doc = copy.deepcopy(cert)
    doc["provenance"]["data_sha256"]["data/x.toml\nx.json: verified"] = "0" * 64
    ok, message = verify(doc, allow_other_version=True)
    assert ok and "\n" not in message and "'data/x.toml\\nx.json: verified' changed" in message
