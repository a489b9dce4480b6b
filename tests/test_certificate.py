"""Certificates: totals add up exactly, verify catches a changed digit, bad input, tables baseline."""

from __future__ import annotations

import json
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.certificate import build, render_html, render_markdown, verify
from exactodds.cli import cli
from exactodds.tables import table_texts

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def cert() -> dict:
    return build(shoes=[{"decks": 8, "remove": []}, {"decks": 6, "remove": ["5♠", "K♥"]}],
                 selection=[("banker", "standard"), ("golden-talons-player", "B"), ("harmony-progressive", "D")])


def test_totals_add_up_exactly(cert: dict) -> None:
    for res in cert["results"]:
        for block in res["wagers"]:
            rows = block["outcomes"]
            assert sum(r["combinations"] for r in rows) == block["totals"]["combinations"] == res["shoe"]["sequences"]
            assert sum(Fraction(r["probability"]) for r in rows) == Fraction(block["totals"]["probability"]) == 1
            if "expected_return" in block["summary"]:
                assert sum(Fraction(r["return"]) for r in rows) == Fraction(block["summary"]["expected_return"])
                s = block["summary"]
                assert Fraction(s["hit_frequency"]) + Fraction(s["push_frequency"]) + Fraction(s["loss_frequency"]) == 1


def test_verify_passes_on_a_fresh_certificate(cert: dict) -> None:
    ok, message = verify(json.loads(json.dumps(cert)))
    assert ok, message


def test_verify_fails_on_a_single_changed_digit(cert: dict) -> None:
    doc = json.loads(json.dumps(cert))
    row = doc["results"][0]["wagers"][1]["outcomes"][0]
    row["combinations"] += 10            # one digit changed
    ok, message = verify(doc)
    assert not ok and message == "value differs at results[0].wagers[1].outcomes[0].combinations"


def test_verify_fails_when_only_the_hash_is_wrong(cert: dict) -> None:
    doc = json.loads(json.dumps(cert))
    doc["provenance"]["content_sha256"] = "0" * 64
    assert verify(doc) == (False, "content_sha256 does not match the certificate's content")


def test_markdown_and_html_carry_every_section(cert: dict) -> None:
    md, page = render_markdown(cert), render_html(cert)
    for heading in ("Identification", "Assumptions", "Rounding policy", "Appendix: exact fractions", "Provenance"):
        assert heading in md and heading in page
    assert "House edge (hold)" in md and "Edge with pushes excluded" in md
    assert "break-even" in md                     # the progressive's meter section
    assert "<script" not in page and "http" not in page     # self-contained


def test_cli_certificate_and_verify(tmp_path: Path) -> None:
    out = tmp_path / "cert.json"
    code, _, _ = run("certificate", "--wager", "lucky-six", "--format", "json", "--output", str(out))
    assert code == 0 and out.exists()
    code, stdout, _ = run("verify", str(out))
    assert code == 0 and "verified" in stdout
    doc = json.loads(out.read_text())
    doc["results"][1]["wagers"][0]["outcomes"][0]["probability"] = "1/2"
    out.write_text(json.dumps(doc))
    code, _, err = run("verify", str(out))
    assert code == 1 and "value differs at results[1].wagers[0].outcomes[0].probability" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["certificate", "--wager", "no-such"], "unknown wager 'no-such'"),
        (["certificate", "--wager", "banker", "--paytable", "Z"], "has no paytable 'Z'"),
        (["certificate", "--section", "999x.1"], "no wager cites section"),
        (["certificate", "--wager", "banker", "--output", "/nonexistent/dir/c.md"], "does not exist"),
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


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": "something-else"}),
                                     json.dumps({"format": "exactodds-certificate/1"})])
def test_verify_malformed_certificate(tmp_path: Path, content: str) -> None:
    p = tmp_path / "bad.json"
    p.write_text(content)
    code, out, err = run("verify", str(p))
    assert code == 2 and out == "" and err.startswith("exactodds: error: ")


def test_tables_baseline_is_current() -> None:
    """The committed tables/ equal a fresh regeneration, byte for byte."""
    for name, text in table_texts((6, 8)).items():
        committed = (ROOT / "tables" / name).read_text(encoding="utf-8")
        assert committed == text, f"tables/{name} is stale: run `exactodds tables`"


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(_chromium() is None, reason="Debian's chromium is not installed")
def test_html_renders_in_headless_chromium(cert: dict, tmp_path: Path) -> None:
    page = tmp_path / "cert.html"
    page.write_text(render_html(cert), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}"]
    dom = subprocess.run([_chromium(), *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    for section in ("identification", "assumptions", "appendix", "provenance"):
        assert f'id="{section}"' in dom
    assert dom.count('class="wager"') == 6
    shot = tmp_path / "cert.png"
    subprocess.run([_chromium(), *flags, f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    assert shot.stat().st_size > 10_000


@pytest.mark.skipif(_chromium() is None, reason="Debian's chromium is not installed")
def test_pdf_certificate(tmp_path: Path) -> None:
    out = tmp_path / "c.pdf"
    code, _, _ = run("certificate", "--wager", "tie", "--paytable", "8-to-1", "--decks", "8", "--format", "pdf",
                     "--output", str(out))
    assert code == 0 and out.read_bytes()[:4] == b"%PDF"
    code, _, err = run("certificate", "--wager", "tie", "--format", "pdf")
    assert code == 2 and "--format pdf needs --output FILE" in err
