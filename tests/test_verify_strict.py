"""verify trusts only what exactodds wrote: a PDF's pages are exactly the print of its certificate, and the
names a certificate carries can only read as themselves (issue 22, part 5)."""

from __future__ import annotations

import base64
import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from exactodds.cli import cli
from exactodds.documents.certificate import build, verify
from exactodds.documents.signing import canonical, keygen, load_public_key, sign
from exactodds.errors import ExactOddsError

from .browser import NO_CHROMIUM

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return keygen(tmp_path_factory.mktemp("keys") / "lab")


@pytest.fixture(scope="module")
def pdf(key: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One signed PDF certificate, printed once for the module (Chromium takes seconds)."""
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    out = tmp_path_factory.mktemp("pdf") / "tie.pdf"
    code, _, err = run("certificate", "--wager", "tie:8-to-1", "--decks", "8", "--format", "pdf", "--issued",
                       "2026-11-23", "--sign", str(key[0]), "--signer", "A. Analyst", "--output", str(out))
    assert code == 0 and out.read_bytes()[:4] == b"%PDF", err
    return out


# -- the PDF: pages exactly the print of the attached certificate ------------------------------------------

def _tampered(pdf: Path, tmp_path: Path, change: Callable[[Any], None]) -> Path:
    """The PDF rewritten by pypdf after ``change(writer)``."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(pdf))
    change(writer)
    out = tmp_path / "tampered.pdf"
    with out.open("wb") as fh:
        writer.write(fh)
    return out


def _stream(writer: Any, data: bytes, **entries: Any) -> Any:
    from pypdf.generic import DecodedStreamObject, NameObject

    stream = DecodedStreamObject()
    stream.set_data(data)
    for k, v in entries.items():
        stream[NameObject(f"/{k}")] = v
    return writer._add_object(stream)


def _helvetica() -> Any:
    from pypdf.generic import DictionaryObject, NameObject

    return DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})


#: Paints a white box over most of the page and a false house edge on it.
_FALSE_EDGE = b"q 1 1 1 rg 40 300 515 400 re f Q BT /Fx 14 Tf 60 600 Td (House edge 0.5000%) Tj ET"
#: Hides the whole page under white: no text is added, so no figure of the page text changes.
_WHITE_OUT = b"q 1 1 1 rg 0 0 595 842 re f Q"


def _verify_fails(path: Path, public: Path, *words: str) -> str:
    code, out, err = run("verify", str(path), "--public-key", str(public))
    assert code == 1 and out == "" and err.count("\n") == 1, (code, out, err)
    for word in words:
        assert word in err, err
    return err


@needs_chromium
def test_the_untampered_pdf_verifies_signed_by_the_trusted_key(pdf: Path, key: tuple[Path, Path]) -> None:
    code, out, err = run("verify", str(pdf), "--public-key", str(key[1]))
    assert code == 0 and "signed by 'A. Analyst'" in out and "the trusted key" in out, err


@needs_chromium
@pytest.mark.parametrize("kind", ["FreeText", "Stamp"])
def test_an_annotation_painting_a_house_edge_over_page_2_fails(pdf: Path, key: tuple[Path, Path], tmp_path: Path,
                                                               kind: str) -> None:
    """The finding: an annotation painting "House edge 0.5000%" over page 2 verified as signed by the trusted key."""
    from pypdf.annotations import FreeText
    from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, TextStringObject

    def annotate(writer: Any) -> None:
        rect = (60, 560, 400, 620)
        if kind == "FreeText":
            note: Any = FreeText(text="House edge 0.5000%", rect=rect, font_size="18pt")
        else:
            look = _stream(writer, _FALSE_EDGE.replace(b"40 300 515 400", b"0 0 340 60").replace(b"60 600", b"5 20"),
                           Type=NameObject("/XObject"), Subtype=NameObject("/Form"),
                           BBox=ArrayObject(FloatObject(v) for v in (0, 0, 340, 60)),
                           Resources=DictionaryObject({NameObject("/Font"): DictionaryObject(
                               {NameObject("/Fx"): _helvetica()})}))
            note = DictionaryObject({NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject(
                "/Stamp"), NameObject("/Rect"): ArrayObject(FloatObject(v) for v in rect),
                NameObject("/Contents"): TextStringObject("House edge 0.5000%"),
                NameObject("/AP"): DictionaryObject({NameObject("/N"): look})})
        writer.add_annotation(page_number=1, annotation=note)

    _verify_fails(_tampered(pdf, tmp_path, annotate), key[1], "page 2 holds an annotation", f"/{kind}")


@needs_chromium
def test_a_form_field_fails(pdf: Path, key: tuple[Path, Path], tmp_path: Path) -> None:
    from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject, TextStringObject

    def add_field(writer: Any) -> None:
        field = writer._add_object(DictionaryObject({
            NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject("/Widget"),
            NameObject("/FT"): NameObject("/Tx"), NameObject("/T"): TextStringObject("edge"),
            NameObject("/V"): TextStringObject("House edge 0.5000%"), NameObject("/DA"): TextStringObject(
                "/Helv 18 Tf 0 g"), NameObject("/Rect"): ArrayObject(FloatObject(v) for v in (60, 560, 400, 620)),
            NameObject("/P"): writer.pages[1].indirect_reference}))
        writer.pages[1][NameObject("/Annots")] = ArrayObject([field])
        writer._root_object[NameObject("/AcroForm")] = DictionaryObject({
            NameObject("/Fields"): ArrayObject([field]), NameObject("/NeedAppearances"): TextStringObject("true")})

    _verify_fails(_tampered(pdf, tmp_path, add_field), key[1], "a form field (AcroForm)")


@pytest.mark.slow
@needs_chromium
def test_an_added_page_fails(pdf: Path, key: tuple[Path, Path], tmp_path: Path) -> None:
    def add_page(writer: Any) -> None:
        writer.add_page(writer.pages[-1])

    n = len(__import__("pypdf").PdfReader(pdf).pages)
    _verify_fails(_tampered(pdf, tmp_path, add_page), key[1], f"{n + 1} pages where the certificate prints on {n}")


@needs_chromium
def test_a_replaced_page_showing_only_its_header_and_footer_fails(pdf: Path, key: tuple[Path, Path],
                                                                 tmp_path: Path) -> None:
    """Page 2 swapped for one that shows only the certificate number and 'page 2 of N': no stray figure,
    nothing for a reading of the page text to object to (today's check passed it)."""
    from pypdf import PdfReader
    from pypdf.generic import DictionaryObject, NameObject

    number = PdfReader(pdf).attachments["exactodds-certificate.json"][0].decode()
    number = json.loads(number)["certificate_number"]
    n = len(PdfReader(pdf).pages)

    def replace(writer: Any) -> None:
        writer.insert_blank_page(595, 842, index=1)
        page = writer.pages[1]
        text = f"BT /Fx 9 Tf 40 810 Td ({number}) Tj ET BT /Fx 9 Tf 500 20 Td (page 2 of {n}) Tj ET".encode()
        page[NameObject("/Contents")] = _stream(writer, text)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject(
            {NameObject("/Fx"): _helvetica()})})
        del writer.pages[2]

    _verify_fails(_tampered(pdf, tmp_path, replace), key[1], "page 2 is not the page the certificate prints")


@pytest.mark.slow
@needs_chromium
def test_an_extra_content_stream_drawn_over_a_page_fails(pdf: Path, key: tuple[Path, Path], tmp_path: Path) -> None:
    from pypdf.generic import ArrayObject, NameObject

    def cover(writer: Any) -> None:
        page = writer.pages[1]
        page[NameObject("/Contents")] = ArrayObject([page.raw_get("/Contents"), _stream(writer, _WHITE_OUT)])

    _verify_fails(_tampered(pdf, tmp_path, cover), key[1], "page 2 has 2 content streams where the rendering has 1")


@needs_chromium
def test_an_extra_xobject_drawn_over_a_page_fails(pdf: Path, key: tuple[Path, Path], tmp_path: Path) -> None:
    from pypdf.generic import ArrayObject, DictionaryObject, FloatObject, NameObject

    def draw(writer: Any) -> None:
        page = writer.pages[1]
        cover = _stream(writer, _WHITE_OUT, Type=NameObject("/XObject"), Subtype=NameObject("/Form"),
                        BBox=ArrayObject(FloatObject(v) for v in (0, 0, 595, 842)))
        page[NameObject("/Resources")].get_object().setdefault(NameObject("/XObject"), DictionaryObject())[
            NameObject("/Cover")] = cover
        page[NameObject("/Contents")] = _stream(writer, page.get_contents().get_data() + b"\nq /Cover Do Q")

    _verify_fails(_tampered(pdf, tmp_path, draw), key[1], "page 2 draws an XObject (/Cover)")


@needs_chromium
def test_javascript_and_an_open_action_fail(pdf: Path, key: tuple[Path, Path], tmp_path: Path) -> None:
    from pypdf.generic import ArrayObject, DictionaryObject, NameObject, TextStringObject

    def script() -> DictionaryObject:
        return DictionaryObject({NameObject("/Type"): NameObject("/Action"), NameObject("/S"): NameObject(
            "/JavaScript"), NameObject("/JS"): TextStringObject("app.alert('House edge 0.5000%')")})

    def javascript(writer: Any) -> None:
        names = writer._root_object[NameObject("/Names")]
        names[NameObject("/JavaScript")] = DictionaryObject({NameObject("/Names"): ArrayObject(
            [TextStringObject("edge"), writer._add_object(script())])})

    def open_action(writer: Any) -> None:
        writer._root_object[NameObject("/OpenAction")] = writer._add_object(script())

    _verify_fails(_tampered(pdf, tmp_path, javascript), key[1], "JavaScript")
    _verify_fails(_tampered(pdf, tmp_path, open_action), key[1], "an OpenAction")


@needs_chromium
def test_another_attached_file_fails(pdf: Path, key: tuple[Path, Path], tmp_path: Path) -> None:
    def attach(writer: Any) -> None:
        writer.add_attachment("errata.txt", b"The house edge is 0.5000%.")

    _verify_fails(_tampered(pdf, tmp_path, attach), key[1], "another attached file, 'errata.txt'")


@needs_chromium
def test_an_incremental_update_that_changes_nothing_visible_fails(pdf: Path, key: tuple[Path, Path],
                                                                  tmp_path: Path) -> None:
    from pypdf import PdfWriter

    writer = PdfWriter(pdf, incremental=True)
    writer.add_metadata({"/Keywords": "reviewed"})
    out = tmp_path / "updated.pdf"
    with out.open("wb") as fh:
        writer.write(fh)
    assert out.read_bytes().startswith(pdf.read_bytes())               # the original bytes, then the update
    _verify_fails(out, key[1], "incremental update")


@pytest.mark.slow
@needs_chromium
def test_bytes_after_the_end_and_a_changed_title_fail(pdf: Path, key: tuple[Path, Path], tmp_path: Path) -> None:
    appended = tmp_path / "appended.pdf"
    appended.write_bytes(pdf.read_bytes() + b"\n% House edge 0.5000%\n")
    _verify_fails(appended, key[1], "bytes were added after the end of the PDF")

    def retitle(writer: Any) -> None:
        writer.add_metadata({"/Title": "House edge 0.5000%"})

    _verify_fails(_tampered(pdf, tmp_path, retitle), key[1], "its document information /Title differs")


@needs_chromium
def test_without_chromium_a_pdf_is_never_passed(pdf: Path, key: tuple[Path, Path], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a browser to print the certificate again, what is found without one still fails (exit 1), and
    the rest cannot pass: exit 2, saying what is missing."""
    from pypdf.annotations import FreeText

    def annotate(writer: Any) -> None:
        writer.add_annotation(page_number=1, annotation=FreeText(text="House edge 0.5000%", rect=(60, 560, 400, 620)))

    annotated = _tampered(pdf, tmp_path, annotate)
    monkeypatch.setattr("exactodds.documents.pages.shutil.which", lambda name: None)
    _verify_fails(annotated, key[1], "page 2 holds an annotation (/FreeText)")
    code, out, err = run("verify", str(pdf), "--public-key", str(key[1]))
    assert code == 2 and out == "" and err.count("\n") == 1 and "verifying a PDF needs Debian's chromium" in err


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
