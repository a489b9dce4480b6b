"""The mathematics section of a lab submission (issue 41): the words of the certificate, the rules of the bet
as counted, the figures a lab asks for beside the return, and files that stand alone."""

from __future__ import annotations

import copy
import hashlib
import html
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from exactodds.cli import cli
from exactodds.documents.certificate import build, verify
from exactodds.documents.pages import render_html, render_markdown

ROOT = Path(__file__).resolve().parent.parent

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
    return html.unescape(re.sub(r"<[^>]+>", " ", page.split('<script type="application/json"')[0]))


def test_section_sign_only_before_a_citation(own: dict) -> None:
    for text in (render_markdown(own), _visible(render_html(own))):
        assert "§inventor" not in text and "inventor's proposal" in text
        assert "§631b.3(f)(1), (h)" in text and "§631b.3(h) Paytable A" in text
        assert not re.search(r"§\s*[^\d\s]", text)          # every § is followed by a number: a citation


def test_house_edge_is_named_alone(own: dict) -> None:
    for text in (render_markdown(own), render_html(own)):
        assert "House edge" in text and not re.search(r"\bhold\b", text, re.IGNORECASE)


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


# -- the rules of the bet, as counted -------------------------------------------------------------------------

def _when(text: str) -> dict[tuple[str, str], str]:
    """(wager id, outcome id) -> its condition, read from a data file's text by the TOML reader alone."""
    data = tomllib.loads(text)
    return {(w["id"], o["id"]): " ".join(o["when"].split()) for w in data.get("wager", [])
            for o in w.get("outcome", [])}


@pytest.fixture(scope="module")
def house() -> dict:
    """A shipped wager (Lucky Six: one outcome not offered) and a paytable a second file adds to the Tie."""
    return build(shoes=[{"decks": 8, "remove": []}], selection=[("lucky-six", "standard"), ("tie", "7-to-1")],
                 issued="2026-11-27", files=[{"name": "house-tie.toml", "text": HOUSE}], second_route=False)


HOUSE = (ROOT / "examples" / "house-tie.toml").read_text(encoding="utf-8")


def test_every_outcome_carries_the_condition_its_data_file_writes(own: dict, house: dict) -> None:
    shipped = {**_when((ROOT / "exactodds" / "data" / "627a.toml").read_text(encoding="utf-8")),
               **_when((ROOT / "exactodds" / "data" / "627b.toml").read_text(encoding="utf-8")),
               **_when((ROOT / "exactodds" / "data" / "631b.toml").read_text(encoding="utf-8")), **_when(OWN)}
    seen = 0
    for cert in (own, house):
        for block in cert["results"][0]["wagers"]:
            for row in block["outcomes"]:
                if row["id"] == "lose":
                    assert row["condition"].startswith("otherwise")
                else:
                    assert row["condition"] == shipped[block["wager"], row["id"]]
                    seen += 1
    assert seen == 2 + 1 + 2 + 1          # Lucky Tie, Fortune 7, Lucky Six (two offered), Tie
    (lucky,) = [b for b in house["results"][0]["wagers"] if b["wager"] == "lucky-six"]
    assert [o["id"] for o in lucky["rules"]["not_offered"]] == ["six_tie"]
    assert lucky["rules"]["not_offered"][0]["condition"] == shipped["lucky-six", "six_tie"]
    assert "exclusive" in lucky["rules"]["settlement"]


def test_each_paytable_names_the_file_it_was_read_from(house: dict) -> None:
    lucky, tie = house["results"][0]["wagers"]
    shipped = hashlib.sha256((ROOT / "exactodds" / "data" / "627b.toml").read_bytes()).hexdigest()
    assert lucky["data_file"] == lucky["paytable_file"] == {"name": "627b.toml", "sha256": shipped}
    assert tie["data_file"]["name"] == "627a.toml"
    assert tie["paytable_file"] == {"name": "house-tie.toml", "sha256": hashlib.sha256(HOUSE.encode()).hexdigest()}


def test_the_rules_are_printed_and_verified(house: dict) -> None:
    md, page = render_markdown(house), _visible(render_html(house))
    for block in house["results"][0]["wagers"]:
        for row in block["outcomes"]:
            assert row["condition"] in md and row["condition"] in page
    assert "house-tie.toml" in md and "paytable 7-to-1 from house-tie.toml" in " ".join(page.split())
    assert "Tie of 6 and 6" in md and "player == 6 and banker == 6" in md
    ok, message = verify(house)
    assert ok, message
    changed = copy.deepcopy(house)
    changed["results"][0]["wagers"][0]["outcomes"][0]["condition"] = "banker_wins and banker == 6"
    assert verify(changed) == (False, "value differs at results[0].wagers[0].outcomes[0].condition")
