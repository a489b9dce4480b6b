"""Certificates: exact totals, strict verification, signatures, documents a lab files, tables baseline."""

from __future__ import annotations

import copy
import csv
import io
import json
import shutil
import subprocess
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.analyses.analysis import load_text
from exactodds.cli import cli
from exactodds.documents.certificate import build, verify
from exactodds.documents.pages import read_document, render_html, render_markdown, write_pdf
from exactodds.documents.signing import canonical, keygen, load_public_key, sign
from exactodds.documents.tables import table_texts
from exactodds.errors import ExactOddsError
from exactodds.wagers.catalogue import load_catalogue

from .browser import NO_CHROMIUM

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def cert() -> dict:
    return build(shoes=[{"decks": 8, "remove": []}, {"decks": 6, "remove": ["5♠", "K♥"]}],
                 selection=[("banker", "standard"), ("golden-talons-player", "B"), ("harmony-progressive", "D")],
                 issued="2026-11-23", parties={"issuer": "Test Lab", "prepared_by": "A. Analyst", "approved_by": None},
                 second_route=False)            # the walk of Harmony takes seconds a shoe: see the two-route tests


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict:
    d = tmp_path_factory.mktemp("keys")
    lab = keygen(d / "lab")
    other = keygen(d / "other")
    return {"lab": lab, "other": other}


@pytest.fixture(scope="module")
def signed(cert: dict, keys: dict) -> dict:
    return sign(cert, keys["lab"][0], signer="A. Analyst")


def test_totals_add_up_exactly(cert: dict) -> None:
    for res in cert["results"]:
        for block in res["wagers"]:
            rows = block["outcomes"]
            assert sum(int(r["combinations"]) for r in rows) == int(block["totals"]["combinations"]) \
                == int(res["shoe"]["sequences"])
            assert sum(Fraction(r["probability"]) for r in rows) == Fraction(block["totals"]["probability"]) == 1
            s = block["summary"]
            assert Fraction(s["hit_frequency"]) + Fraction(s["push_frequency"]) + Fraction(s["loss_frequency"]) == 1
            if "expected_return" in s:
                assert sum(Fraction(r["return"]) for r in rows) == Fraction(s["expected_return"])


def test_the_number_is_derived_from_the_content(cert: dict) -> None:
    again = build(shoes=cert["inputs"]["shoes"], selection=[(s["wager"], s["paytable"]) for s in
                  cert["inputs"]["selection"]], issued="2026-11-23", parties=cert["parties"], second_route=False)
    assert again["certificate_number"] == cert["certificate_number"]
    other_day = build(shoes=[{"decks": 8, "remove": []}], selection=[("banker", "standard")], issued="2026-11-24")
    same_day = build(shoes=[{"decks": 8, "remove": []}], selection=[("banker", "standard")], issued="2026-11-23")
    assert other_day["certificate_number"] != same_day["certificate_number"]
    assert cert["certificate_number"].startswith("EO-") and len(cert["certificate_number"]) == 17
    canonical(cert)                                   # RFC 8785 takes it: no integer beyond a double's


def test_verify_passes_on_a_fresh_and_on_a_signed_certificate(cert: dict, signed: dict, keys: dict) -> None:
    ok, message = verify(json.loads(json.dumps(cert)))
    assert ok and "not signed" in message
    ok, message = verify(json.loads(json.dumps(signed)), public_key=load_public_key(keys["lab"][1]))
    assert ok and "signed by 'A. Analyst'" in message and "the trusted key" in message


def _mutations(doc: dict) -> list[tuple[str, dict]]:
    """Every kind of tampering: a figure, a key, provenance, a signature."""
    out = []

    def change(name: str, fn) -> None:
        d = copy.deepcopy(doc)
        fn(d)
        out.append((name, d))

    block = "results", 0, "wagers", 1
    change("a combination count", lambda d: d["results"][0]["wagers"][1]["outcomes"][0].update(
        combinations=str(int(d["results"][0]["wagers"][1]["outcomes"][0]["combinations"]) + 10)))
    change("a probability", lambda d: d["results"][1]["wagers"][0]["outcomes"][0].update(probability="1/2"))
    change("the house edge", lambda d: d["results"][0]["wagers"][0]["summary"].update(house_edge="1/200"))
    change("a pay's words", lambda d: d["results"][0]["wagers"][1]["outcomes"][0].update(pays="60 to 1"))
    change("the title", lambda d: d.update(title="Another title"))
    change("the date", lambda d: d.update(issued="2027-01-01"))
    change("a party", lambda d: d["parties"].update(approved_by="Somebody Else"))
    change("the certificate number", lambda d: d.update(certificate_number="EO-0000-0000-0000"))
    change("the inputs", lambda d: d["inputs"]["shoes"][0].update(decks=6))
    change("the version", lambda d: d["provenance"].update(exactodds_version="9.9.9"))
    change("the commit", lambda d: d["provenance"].update(source_commit="0" * 40))
    change("a data hash", lambda d: d["provenance"]["data_sha256"].update({"data/627a.toml": "0" * 64}))
    change("the content hash", lambda d: d["provenance"].update(content_sha256="0" * 64))
    change("the assumptions", lambda d: d["assumptions"].append("Nothing is assumed."))
    del block
    return out


def test_every_mutation_fails_verify(signed: dict, keys: dict) -> None:
    trusted = load_public_key(keys["lab"][1])
    for name, doc in _mutations(signed):
        try:
            ok, message = verify(doc, public_key=trusted)
        except ExactOddsError:
            continue                                  # refused as malformed: also a failure
        assert not ok, name


def test_signature_mutations_fail(signed: dict, keys: dict, cert: dict) -> None:
    trusted = load_public_key(keys["lab"][1])
    assert verify(copy.deepcopy(cert), public_key=trusted) == (False, "the certificate is not signed")
    resigned = sign(copy.deepcopy(cert), keys["other"][0], signer="A. Analyst")
    ok, message = verify(resigned, public_key=trusted)
    assert not ok and "not with the trusted key" in message
    tampered = copy.deepcopy(signed)
    tampered["signature"]["signer"] = "Somebody Else"
    assert verify(tampered, public_key=trusted)[0] is False
    forged = copy.deepcopy(signed)
    forged["signature"]["value"] = resigned["signature"]["value"]
    assert verify(forged, public_key=trusted)[0] is False


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(extra=1), "unknown key 'extra'"),
    (lambda d: d["results"][0]["wagers"][0].update(note="x"), "unknown key 'note'"),
    (lambda d: d["results"][0]["wagers"][0]["outcomes"][0].update(combinations=5), "must be text"),
    (lambda d: d.pop("parties"), "no 'parties'"),
    (lambda d: d["inputs"].update(selection=[]), "prices no wager"),
    (lambda d: d["inputs"]["shoes"][0].update(decks="8"), "'decks' is a whole number"),
    (lambda d: d["provenance"].pop("source_commit"), "provenance holds exactly"),
    (lambda d: d["signature"].update(algorithm="RSA"), "only Ed25519"),
    (lambda d: d.update(format="exactodds-certificate/1"), "older exactodds"),
])
def test_malformed_certificates_are_refused(signed: dict, change, words: str) -> None:
    doc = copy.deepcopy(signed)
    change(doc)
    with pytest.raises(ExactOddsError, match=words):
        verify(doc)


def test_a_duplicated_key_is_refused_not_read_twice(signed: dict, tmp_path: Path) -> None:
    """A person reads the first 'house_edge', a parser keeps the last: refuse the document."""
    text = json.dumps(signed)
    real = f'"house_edge": "{signed["results"][0]["wagers"][0]["summary"]["house_edge"]}"'
    assert real in text
    path = tmp_path / "dup.json"
    path.write_text(text.replace(real, f'"house_edge": "1/200", {real}', 1))
    code, out, err = run("verify", str(path))
    assert code == 2 and out == "" and "duplicate key 'house_edge'" in err and err.count("\n") == 1


def test_other_versions_need_the_flag(cert: dict) -> None:
    doc = copy.deepcopy(cert)
    doc["provenance"]["exactodds_version"] = "0.0.1"
    ok, message = verify(doc)
    assert not ok and "another version" in message
    # the content hash does not cover the provenance; every figure still matches
    ok, message = verify(doc, allow_other_version=True)
    assert ok and "provenance differs, accepted" in message


def test_markdown_and_html_carry_every_section(cert: dict) -> None:
    md, page = render_markdown(cert), render_html(cert)
    for heading in ("Summary", "Assumptions", "Rounding policy", "Appendix: exact values", "Provenance"):
        assert heading in md and heading in page
    assert cert["certificate_number"] in md and cert["certificate_number"] in page
    assert "Test Lab" in page and "Approved by" in page
    assert "<mfrac>" in page and "<mi>J</mi>" in page      # fractions and the meter formula typeset
    assert 'type="application/json" id="exactodds-certificate"' in page
    assert "http" not in page.replace("http://www.w3.org", "")    # self-contained


def test_cli_certificate_keygen_and_verify_every_form(tmp_path: Path) -> None:
    prefix = tmp_path / "lab"
    code, out, _ = run("keygen", "--output", str(prefix))
    assert code == 0 and (prefix.stat().st_mode & 0o777) == 0o600 and Path(f"{prefix}.pub").exists()
    code, _, err = run("keygen", "--output", str(prefix))
    assert code == 2 and "never overwritten" in err
    for fmt, routes in (("json", []), ("html", ["--one-route"])):       # the walk once: it takes a while
        out = tmp_path / f"cert.{fmt}"
        code, _, err = run("certificate", "--wager", "lucky-six", "--decks", "6", "--decks", "8", "--format", fmt,
                           "--output", str(out), "--sign", str(prefix), "--signer", "A. Analyst", "--issuer", "Test Lab",
                           *routes)
        assert code == 0, err
        code, stdout, err = run("verify", str(out), "--public-key", f"{prefix}.pub")
        assert code == 0 and "verified EO-" in stdout and "signed by 'A. Analyst'" in stdout, err
    page = (tmp_path / "cert.html").read_text()
    (tmp_path / "cert.html").write_text(page.replace("Test Lab</dd>", "Another Lab</dd>"))
    code, _, err = run("verify", str(tmp_path / "cert.html"))
    assert code == 1 and "visible text differs" in err
    doc = json.loads((tmp_path / "cert.json").read_text())
    doc["results"][1]["wagers"][0]["outcomes"][0]["probability"] = "1/2"
    (tmp_path / "cert.json").write_text(json.dumps(doc))
    code, _, err = run("verify", str(tmp_path / "cert.json"))
    assert code == 1 and "value differs at results[1].wagers[0].outcomes[0].probability" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["certificate", "--wager", "no-such"], "unknown wager 'no-such'"),
        (["certificate", "--wager", "banker", "--paytable", "Z"], "has no paytable 'Z'"),
        (["certificate", "--section", "999x.1"], "no wager cites section"),
        (["certificate", "--wager", "banker", "--output", "/nonexistent/dir/c.md"], "does not exist"),
        (["certificate", "--wager", "banker", "--issued", "23/11/2026"], "YYYY-MM-DD"),
        (["certificate", "--wager", "banker", "--signer", "X"], "--signer goes with --sign"),
        (["certificate", "--wager", "banker", "--format", "json", "--sign", "/nonexistent/key"], "cannot read"),
        (["verify", "/nonexistent/c.json"], "cannot read"),
        (["verify", "README.md"], "not a certificate"),
        (["certificate", "--wager", "tie", "--decks", "8", "--decks", "8"], "--decks 8 is given twice"),
    ],
)
def test_certificate_bad_input(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_unwritable_output_leaves_no_partial_file(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        code, _, err = run("certificate", "--wager", "banker", "--output", str(locked / "c.md"))
        if code == 0:                      # running as root: permissions do not bind
            pytest.skip("directory permissions are not enforced for this user")
        assert code == 2 and "not writable" in err
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o700)


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": "something-else"}), "[1, 2]",
                                     json.dumps({"format": "exactodds-certificate/1"}), "NaN"])
def test_verify_malformed_certificate(tmp_path: Path, content: str) -> None:
    p = tmp_path / "bad.json"
    p.write_text(content)
    code, out, err = run("verify", str(p))
    assert code == 2 and out == "" and err.startswith("exactodds: error: ")


def test_provenance_comes_from_the_build_not_a_surrounding_repository() -> None:
    """An editable install has no _build.py: the commit is 'not recorded', never read from git."""
    import importlib.util

    from exactodds.documents.certificate import provenance

    p = provenance()
    built = importlib.util.find_spec("exactodds._build") is not None
    assert (p["source_commit"] is not None) == built
    if built:
        assert len(p["source_commit"]) == 40 and isinstance(p["source_modified"], bool)


def test_tables_baseline_is_current() -> None:
    """The committed tables/ equal a fresh regeneration, byte for byte."""
    for name, text in table_texts((6, 8)).items():
        committed = (ROOT / "tables" / name).read_text(encoding="utf-8")
        assert committed == text, f"tables/{name} is stale: run `exactodds tables --decks 6 --decks 8`"


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--disable-sync", "--no-first-run"]

#: Measures the page at the width of its paper's text and writes what overflows into the DOM.
_PROBE = """<script>
document.addEventListener('DOMContentLoaded', () => {
  const bad = [];
  for (const cell of document.querySelectorAll('td, th')) {
    if (cell.scrollWidth > cell.clientWidth + 1) bad.push(cell.textContent.trim().slice(0, 40));
  }
  for (const t of document.querySelectorAll('table')) {
    if (t.getBoundingClientRect().right > document.body.getBoundingClientRect().right + 1) bad.push('table ' + t.className);
  }
  document.body.setAttribute('data-overflow', JSON.stringify(bad));
});
</script>"""


@pytest.mark.skipif(_chromium() is None, reason=NO_CHROMIUM)
@pytest.mark.parametrize(("paper", "pixels"), [("letter", 695), ("a4", 673)])      # the text's width at 96 dpi
def test_html_fits_the_page_in_headless_chromium(cert: dict, tmp_path: Path, paper: str, pixels: int) -> None:
    page = tmp_path / "cert.html"
    shown = copy.deepcopy(cert)
    shown["inputs"]["paper"] = paper
    page.write_text(render_html(shown).replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    dom = subprocess.run([_chromium(), *_FLAGS, f"--user-data-dir={tmp_path / 'p'}", f"--window-size={pixels},900",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120, check=True).stdout
    for section in ("cover", "summary", "assumptions", "appendix", "provenance"):
        assert f'id="{section}"' in dom
    assert dom.count('class="wager"') == 6
    overflow = json.loads(dom.split('data-overflow="', 1)[1].split('"', 1)[0].replace("&quot;", '"'))
    assert overflow == []


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason=NO_CHROMIUM)
def test_pdf_pages_are_numbered_and_carry_the_certificate(tmp_path: Path) -> None:
    pdfium = pytest.importorskip("pypdfium2")
    out = tmp_path / "c.pdf"
    code, _, err = run("certificate", "--section", "627a.7", "--decks", "8", "--format", "pdf", "--output", str(out),
                       "--issuer", "Test Lab", "--one-route")
    assert code == 0 and out.read_bytes()[:4] == b"%PDF", err
    document, kind, _ = read_document(str(out))
    assert kind == "pdf" and verify(document)[0]
    code, stdout, err = run("verify", str(out))
    assert code == 0 and "verified" in stdout, err
    pdf = pdfium.PdfDocument(str(out))
    n = len(pdf)
    assert n >= 3
    for i in range(n):
        text = pdf[i].get_textpage().get_text_range()
        assert f"page {i + 1} of {n}" in text
        if i:
            assert document["certificate_number"] in text           # the running header
    image = pdf[1].render(scale=1).to_pil()
    assert image.size[0] > 500 and image.getextrema() != ((255, 255), (255, 255), (255, 255))
    code, _, err = run("certificate", "--wager", "tie", "--format", "pdf")
    assert code == 2 and "--format pdf needs --output FILE" in err


def read_document_text(page: str, tmp_path: Path):
    path = tmp_path / "page.html"
    path.write_text(page, encoding="utf-8")
    return read_document(str(path))


def test_names_are_escaped_so_the_page_cannot_be_made_to_lie(tmp_path: Path) -> None:
    style = '<style>td{font-size:0}</style><script>alert(1)</script>'
    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1")], parties={"issuer": style})
    page = render_html(cert)
    assert "<script>alert" not in page and "<style>td{" not in page       # nowhere, the embedded JSON included
    assert "&lt;style&gt;" in page
    document, _, _ = read_document_text(page, tmp_path)
    assert document["parties"]["issuer"] == style


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason=NO_CHROMIUM)
def test_a_pdf_whose_pages_were_reprinted_with_other_figures_fails(tmp_path: Path) -> None:
    """The genuine JSON attached to pages that show another RTP: verify reads the pages too."""
    from pypdf import PdfReader, PdfWriter

    from exactodds.documents.pages import ATTACHMENT

    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("banker", "standard")], issued="2026-11-23")
    rtp = "98.9421%"
    page = render_html(cert)
    assert rtp in page
    forged_html = tmp_path / "forged.html"
    forged_html.write_text(page.replace(rtp, "99.9421%"), encoding="utf-8")
    printed = tmp_path / "printed.pdf"
    subprocess.run([_chromium(), *_FLAGS, f"--user-data-dir={tmp_path / 'p'}", "--no-pdf-header-footer",
                    f"--print-to-pdf={printed}", forged_html.as_uri()], capture_output=True, timeout=180, check=True)
    writer = PdfWriter(clone_from=PdfReader(printed))
    writer.add_attachment(ATTACHMENT, json.dumps(cert).encode("utf-8"))
    forged = tmp_path / "forged.pdf"
    with forged.open("wb") as fh:
        writer.write(fh)
    code, _, err = run("verify", str(forged))
    assert code == 1 and "printed pages differ" in err and "99.9421%" in err


# -- format 3 (issue 25): what labs ask for, each field checked against an independent route -------------------

@pytest.fixture(scope="module")
def lab() -> dict:
    """Both routes, two paytables of fixed pays and a user's data file."""
    text = (ROOT / "examples" / "new-bets.toml").read_text(encoding="utf-8")
    own = next(iter(load_text(text, source="new-bets.toml").values()))
    return build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1"), ("banker", "standard"),
                 (own.id, next(iter(own.paytables)))], issued="2026-11-26",
                 files=[{"name": "new-bets.toml", "text": text}])


def _two_point_moments(p: Fraction, win: Fraction, lose: Fraction) -> tuple[float, float, Fraction]:
    """SD, skewness and excess kurtosis of a result that is ``win`` with chance p, else ``lose`` (closed forms)."""
    q = 1 - p
    spread = win - lose
    return (float(spread) * float(p * q) ** 0.5, float(q - p) / float(p * q) ** 0.5, (1 - 6 * p * q) / (p * q))


def test_moments_of_the_tie_equal_the_closed_forms_of_a_two_point_result(lab: dict) -> None:
    tie = lab["results"][0]["wagers"][0]
    p = Fraction(tie["outcomes"][0]["probability"])
    sd, skew, kurtosis = _two_point_moments(p, Fraction(8), Fraction(-1))
    s = tie["summary"]
    assert abs(float(s["standard_deviation"]) - sd) < 1e-11 and abs(float(s["skewness"]) - skew) < 1e-11
    assert Fraction(s["excess_kurtosis"]) == kurtosis                          # rational: exactly
    assert Fraction(s["standard_deviation"]) ** 2 - Fraction(s["variance"]) < Fraction(1, 10**11)


def test_one_in_n_is_the_reciprocal_and_the_game_cycle_the_shoes_sequences(lab: dict) -> None:
    for result in lab["results"]:
        for block in result["wagers"]:
            assert block["game_cycle"] == result["shoe"]["sequences"] == "4998398275503360"
            for row in block["outcomes"]:
                p = Fraction(row["probability"])
                assert (row["one_in"] is None) if p == 0 else Fraction(row["one_in"]) * p == 1
                assert Fraction(int(row["combinations"]), int(block["game_cycle"])) == p


def test_bands_are_the_normal_ranges_with_the_exact_sd(lab: dict) -> None:
    banker = lab["results"][0]["wagers"][1]
    rtp, sd = float(Fraction(banker["summary"]["rtp"])), float(banker["summary"]["standard_deviation"])
    z = {"90%": 1.6448536269514722, "95%": 1.959963984540054, "99%": 2.5758293035489004}
    for band in banker["bands"]["ranges"]:
        for level, (lo, hi) in band["rtp_percent"].items():
            half = z[level] * sd / band["rounds"] ** 0.5
            assert abs(float(lo) - 100 * (rtp - half)) <= 6e-5 and abs(float(hi) - 100 * (rtp + half)) <= 6e-5
    assert [b["rounds"] for b in banker["bands"]["ranges"]] == [1_000, 10_000, 100_000, 1_000_000]


def test_each_table_names_its_data_file_and_both_routes_agree(lab: dict) -> None:
    shipped = lab["provenance"]["data_sha256"]
    blocks = lab["results"][0]["wagers"]
    assert blocks[0]["data_file"] == {"name": "627a.toml", "sha256": shipped["data/627a.toml"]}
    assert blocks[2]["data_file"] == {"name": "new-bets.toml", "sha256": lab["inputs"]["files"][0]["sha256"]}
    assert all(b["routes"]["second"] and b["routes"]["agreement"].startswith("every outcome's combinations equal")
               for b in blocks)
    assert lab["inputs"]["paper"] == "letter" and lab["inputs"]["second_route"] is True
    assert any("Non-adaptive" in a for a in lab["assumptions"])


def test_the_routes_disagreeing_makes_no_certificate(monkeypatch: pytest.MonkeyPatch) -> None:
    from exactodds.analyses import analysis
    from exactodds.documents import certificate as module
    real = analysis.analyze

    def off_by_one(*args: object, **kwargs: object) -> object:
        result = real(*args, **kwargs)
        if kwargs.get("route") != "walk":
            return result
        line = result.results[0].lines[0]
        changed = replace(line, combinations=line.combinations + 1)
        first = replace(result.results[0], lines=(changed, *result.results[0].lines[1:]))
        return replace(result, results=(first, *result.results[1:]))
    monkeypatch.setattr(module, "analyze", off_by_one)
    with pytest.raises(ExactOddsError, match="the two routes count different combinations"):
        build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1")])


def test_every_new_field_changed_fails_verify(lab: dict) -> None:
    one_route = build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1"), ("banker", "standard")],
                      issued="2026-11-26", second_route=False)          # verified 11 times: the walk left out

    def changed(fn) -> dict:
        d = copy.deepcopy(one_route)
        fn(d)
        return d
    block = lambda d: d["results"][0]["wagers"][1]         # noqa: E731
    for name, fn in [
        ("one in n", lambda d: block(d)["outcomes"][0].update(one_in="2")),
        ("standard deviation", lambda d: block(d)["summary"].update(standard_deviation="0.930000000000")),
        ("skewness", lambda d: block(d)["summary"].update(skewness="0.100000000000")),
        ("excess kurtosis", lambda d: block(d)["summary"].update(excess_kurtosis="-2")),
        ("third moment", lambda d: block(d)["summary"].update(third_central_moment="0")),
        ("a band", lambda d: block(d)["bands"]["ranges"][0]["rtp_percent"]["95%"].__setitem__(0, "90.0000")),
        ("the band method", lambda d: block(d)["bands"].update(method="exact")),
        ("a data file's digest", lambda d: block(d)["data_file"].update(sha256="0" * 64)),
        ("the routes", lambda d: block(d)["routes"].update(agreement="every outcome's combinations equal")),
        ("the second route", lambda d: d["inputs"].update(second_route=True)),
        ("the game cycle", lambda d: block(d).update(game_cycle="1")),
        ("the paper", lambda d: d["inputs"].update(paper="a4")),
    ]:
        try:
            ok, message = verify(changed(fn))
        except ExactOddsError:
            continue
        assert not ok and "value differs at" in message, name


def test_cli_paper_and_one_route(tmp_path: Path) -> None:
    for paper, size in (("letter", "size: Letter"), ("a4", "size: A4")):
        code, out, _ = run("certificate", "--wager", "tie:8-to-1", "--format", "html", "--paper", paper)
        assert code == 0 and size in out
    code, out, _ = run("certificate", "--wager", "tie:8-to-1", "--format", "json", "--one-route")
    doc = json.loads(out)
    assert code == 0 and doc["inputs"]["second_route"] is False and doc["results"][0]["wagers"][0]["routes"]["second"] is None
    assert verify(doc)[0]
    code, _, err = run("certificate", "--wager", "tie", "--paper", "legal")
    assert code == 2 and "--paper" in err


@pytest.fixture(scope="module")
def catalogue_cert() -> dict:
    """The whole catalogue (88 tables) on 8 decks, by the tables alone."""
    selection = [(w.id, t) for w in load_catalogue().values() for t in w.paytables]
    return build(shoes=[{"decks": 8, "remove": []}], selection=selection, issued="2026-11-26", second_route=False)


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason=NO_CHROMIUM)
@pytest.mark.parametrize(("paper", "points"), [("letter", (612, 792))])     # A4 looked at, and its width tested above
def test_the_whole_catalogue_summary_fits_three_pages(catalogue_cert: dict, paper: str, points: tuple[int, int],
                                                       tmp_path: Path) -> None:
    """88 tables, one row each: the summary from page 2 to at most page 4."""
    pdfium = pytest.importorskip("pypdfium2")
    out = tmp_path / f"all-{paper}.pdf"
    printed = copy.deepcopy(catalogue_cert)
    printed["inputs"]["paper"] = paper                  # printed only (its number is that of the Letter one)
    write_pdf(printed, str(out))
    pdf = pdfium.PdfDocument(str(out))
    assert tuple(round(x) for x in pdf[0].get_size()) == points
    texts = [pdf[i].get_textpage().get_text_range() for i in range(8)]
    first_table = next(i for i, t in enumerate(texts) if "Game cycle:" in t)
    assert "Summary" in texts[1] and first_table <= 4                        # pages 2, 3, 4 at most


@pytest.mark.slow
def test_a_default_title_fits_however_long_the_names() -> None:
    text = (ROOT / "examples" / "side-bets.toml").read_text(encoding="utf-8")
    own = load_text(text, source="side-bets.toml")
    doc = build(shoes=[{"decks": 8, "remove": []}], selection=[(w.id, next(iter(w.paytables))) for w in own.values()][:4],
                files=[{"name": "side-bets.toml", "text": text}], second_route=False)
    assert doc["title"].startswith("Return-to-player certificate: ") and len(doc["title"]) <= 200


def test_the_csv_carries_one_in_n_and_a_changed_input_is_named_as_one(lab: dict, tmp_path: Path) -> None:
    """Issue 25's audit: the certificate's CSV has each outcome's '1 in N' (the JSON's), and verify of a
    certificate whose stated input was changed says the change is beside the figures, not in them."""
    code, out, _ = run("certificate", "--wager", "tie:8-to-1", "--format", "csv", "--one-route", "--issued",
                       "2026-11-26")
    rows = list(csv.DictReader(io.StringIO(out)))
    code_json, doc, _ = run("certificate", "--wager", "tie:8-to-1", "--format", "json", "--one-route", "--issued",
                            "2026-11-26")
    outcomes = json.loads(doc)["results"][0]["wagers"][0]["outcomes"]
    assert code == code_json == 0 and [r["one_in"] for r in rows] == [o["one_in"] for o in outcomes]
    changed = json.loads(doc)
    changed["inputs"]["paper"] = "a4"
    ok, message = verify(changed)
    assert not ok and "something stated beside them was changed" in message and "paper" in message
