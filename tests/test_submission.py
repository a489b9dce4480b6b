"""The mathematics section of a lab submission (issue 41): the words of the certificate, the rules of the bet
as counted, the figures a lab asks for beside the return, and files that stand alone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.cli import cli
from exactodds.documents.certificate import build
from exactodds.documents.pages import render_html, render_markdown

#: A user's own bet, cited by no regulation: its section is free text, its paytable has none.
OWN = """\
[[wager]]
id = "lucky-tie"
name = "Lucky Tie"
section = "inventor's proposal"
game = "Minibaccarat"
reading = "A tie of two-card hands pays more than any other tie."
  [[wager.outcome]]
  id = "natural_tie"
  name = "Tie of two-card hands"
  when = "tie and player_cards == 2 and banker_cards == 2"
  [[wager.outcome]]
  id = "other_tie"
  name = "Any other tie"
  when = "tie and not (player_cards == 2 and banker_cards == 2)"
  [[wager.paytable]]
  id = "A"
  pays = { natural_tie = "10 to 1", other_tie = "7 to 1" }
"""


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture(scope="module")
def own() -> dict:
    return build(shoes=[{"decks": 8, "remove": []}], selection=[("lucky-tie", "A"), ("fortune-7", "A")],
                 issued="2026-11-27", files=[{"name": "own.toml", "text": OWN}])


def _visible(page: str) -> str:
    return re.sub(r"<[^>]+>", " ", page.split('<script type="application/json"')[0])


def test_section_sign_only_before_a_citation(own: dict) -> None:
    for text in (render_markdown(own), _visible(render_html(own))):
        assert "§inventor" not in text and "inventor's proposal" in text.replace("&#39;", "'")
        assert "§631b.3(f)(1), (h)" in text and "§631b.3(h) Paytable A" in text
        assert not re.search(r"§\s*[^\d\s]", text)          # every § is followed by a number: a citation


def test_house_edge_is_named_alone(own: dict) -> None:
    for text in (render_markdown(own), render_html(own)):
        assert "House edge" in text and "hold" not in text.lower()


def test_markdown_says_it_is_unsigned_and_sign_refuses_it(tmp_path: Path) -> None:
    code, _, err = run("keygen", "--output", str(tmp_path / "lab"))
    assert code == 0, err
    for fmt in ("markdown", "text", "csv"):
        code, out, err = run("certificate", "--wager", "tie", "--format", fmt, "--sign", str(tmp_path / "lab"),
                             "--output", str(tmp_path / "c.out"))
        assert code == 2 and out == "" and err.count("\n") == 1 and "--sign" in err and fmt in err
        assert not (tmp_path / "c.out").exists()
    code, out, err = run("certificate", "--wager", "tie:8-to-1", "--format", "markdown", "--one-route")
    assert code == 0, err
    assert "Signature:** none" in out and "cannot be verified" in out and "Signed:" not in out
