"""The mathematics section of a lab submission (issue 41): the words of the certificate, the rules of the bet
as counted, the figures a lab asks for beside the return, and files that stand alone."""

from __future__ import annotations

import copy
import csv
import hashlib
import html
import json
import math
import re
import shutil
import tomllib
import unicodedata
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from click.testing import CliRunner
from pypdf import PdfReader

from exactodds.analyses.analysis import analyze
from exactodds.analyses.positions import position
from exactodds.cli import cli
from exactodds.documents.certificate import build, verify
from exactodds.documents.pages import read_document, render_html, render_markdown
from exactodds.game.shoe import Shoe, parse_card_list
from exactodds.simulation.exposure import exposure
from exactodds.simulation.rounds import POINTS
from exactodds.simulation.simulate import simulate

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
    assert "verify the JSON, HTML, PDF or workbook form" in out
    for fmt in ("markdown", "csv"):                              # verify names what it does read, the workbook too
        code, _, _ = run("certificate", "--wager", "tie:8-to-1", "--format", fmt, "--one-route",
                         "--output", str(tmp_path / f"c.{fmt}"))
        code, out, err = run("verify", str(tmp_path / f"c.{fmt}"))
        assert code == 2 and out == "" and err.count("\n") == 1
        assert "a Markdown or CSV certificate is for reading: verify its JSON, HTML, PDF or workbook" in err


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


# -- volatility, payout, liability, the game and its paytables ------------------------------------------------

@pytest.fixture(scope="module")
def game() -> dict:
    return build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1"), ("banker", "standard"),
                 ("lucky-six", "standard"), ("harmony-progressive", "D")], issued="2026-11-27", second_route=False,
                 game="Lucky Baccarat", game_version="1.2", table_max="5000",
                 revisions=["1.0 (2026-10-01): first submission", "1.2 (2026-11-27): Lucky Six added"])


def _block(cert: dict, wager: str) -> dict:
    (b,) = [b for b in cert["results"][0]["wagers"] if b["wager"] == wager]
    return b


def test_the_volatility_index_is_z_times_the_sd_as_position_prints_it(game: dict) -> None:
    tie = _block(game, "tie")
    p = Fraction(int(next(r["combinations"] for r in tie["outcomes"] if r["id"] == "tie")), int(tie["game_cycle"]))
    sd = 9 * math.sqrt(p * (1 - p))                         # a two-point result: 8 or -1, spread 9
    z = {"90%": NormalDist().inv_cdf(0.95), "95%": NormalDist().inv_cdf(0.975), "99%": NormalDist().inv_cdf(0.995)}
    for b in (tie, _block(game, "banker"), _block(game, "lucky-six")):
        vi = b["summary"]["volatility_index"]
        assert list(vi) == ["90%", "95%", "99%"]
        sigma = math.sqrt(Fraction(b["summary"]["variance"]))
        for level, value in vi.items():
            assert abs(float(value) - z[level] * sigma) < 1e-8
        line = position(Shoe.decks(8), [(b["wager"], b["paytable"], 1)])
        for level in ("90%", "95%"):
            assert abs(float(vi[level]) - line.volatility_index(Fraction(int(level[:2]), 100))) < 1e-8
    assert abs(float(tie["summary"]["volatility_index"]["95%"]) - z["95%"] * sd) < 1e-8


def test_maximum_payout_and_liability_from_the_paytable(game: dict) -> None:
    want = {"tie": (Fraction(8), "8 to 1"), "banker": (Fraction(95, 100), "1 to 1 less 5% vigorish"),
            "lucky-six": (Fraction(20), "20 to 1")}             # the largest pay each paytable writes
    for wager, (net, text) in want.items():
        payout = _block(game, wager)["payout"]
        assert payout["maximum_payout"]["pays"] == text and Fraction(payout["maximum_payout"]["net_per_unit"]) == net
        assert Fraction(payout["liability"]["per_round"]) == net * 5000 and payout["liability"]["table_max"] == "5000"
    harmony = _block(game, "harmony-progressive")["payout"]
    assert harmony["maximum_payout"] is None and harmony["liability"] is None and "meter" in harmony["note"]
    md = render_markdown(game)
    assert "Liability per round at the table limit of $5,000.00:** $100,000.00" in md
    assert "Liability per round at the table limit of $5,000.00:** $4,750.00" in md


def test_the_game_its_revisions_and_paytables_are_printed_and_verified(game: dict) -> None:
    assert game["inputs"]["game"] == {"name": "Lucky Baccarat", "version": "1.2",
                                      "revisions": ["1.0 (2026-10-01): first submission",
                                                    "1.2 (2026-11-27): Lucky Six added"]}
    md, page = render_markdown(game), _visible(render_html(game))
    for text in (md, page):
        assert "Lucky Baccarat" in text and "1.2 (2026-11-27): Lucky Six added" in text and "$5,000.00" in text
    cross = md.split("## Paytables: cross-reference")[1].split("\n## ")[0]
    rows = [line for line in cross.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert [r.split(" | ")[0].lstrip("| ") for r in rows] == ["8-to-1", "standard", "standard", "D"]
    assert ok_verified(game)
    for change in (lambda d: d["inputs"]["game"]["revisions"].pop(),
                   lambda d: d["inputs"].__setitem__("table_max", "10000"),
                   lambda d: _block(d, "tie")["payout"]["liability"].__setitem__("per_round", "40001")):
        changed = copy.deepcopy(game)
        change(changed)
        assert not verify(changed)[0]


def ok_verified(cert: dict) -> bool:
    ok, message = verify(cert)
    assert ok, message
    return ok


@pytest.mark.parametrize(("args", "words"), [
    (["--table-max", "0"], "--table-max"), (["--table-max", "ten"], "--table-max"),
    (["--game", "A\u202eB"], "--game: "), (["--revision", ""], "--revision: ")])
def test_bad_game_and_limit_are_one_line(args: list[str], words: str) -> None:
    code, out, err = run("certificate", "--wager", "tie:8-to-1", "--one-route", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err


# -- files that stand alone -----------------------------------------------------------------------------------

def _analyzed(path: Path, wager: str) -> dict:
    code, out, err = run("analyze", "--paytables", str(path), "--wager", wager, "--format", "json")
    assert code == 0, err
    (w,) = json.loads(out)["wagers"]
    return w


def test_a_designed_paytable_of_a_shipped_wager_offers_what_its_draft_offers(tmp_path: Path) -> None:
    out = tmp_path / "ls.toml"
    code, _, err = run("design", "--wager", "lucky-six", "--target-edge", "5%", "--output", str(out))
    assert code == 0, err
    pays = tomllib.loads(out.read_text(encoding="utf-8"))["paytable"][0]["pays"]
    assert list(pays) == ["two_card_6", "three_card_6", "six_tie"] and pays["six_tie"] == "N/A"
    w = _analyzed(out, "lucky-six:designed")
    lines = {o["id"]: o for o in w["outcomes"]}
    assert "six_tie" not in lines                               # not offered: a 6-6 tie loses, as under 'standard'
    net = {oid: Fraction(pays[oid].split(" to ")[0]) for oid in ("two_card_6", "three_card_6")}
    total = w["combinations"]
    won = sum(lines[o]["combinations"] * net[o] for o in net)
    assert Fraction(w["house_edge"]) == (lines["lose"]["combinations"] - won) / total   # the designer's closed form


def test_a_designed_paytable_of_a_users_wager_carries_its_file(tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text(OWN, encoding="utf-8")
    out = tmp_path / "house.toml"
    code, _, err = run("design", "--paytables", str(tmp_path / "own.toml"), "--wager", "lucky-tie",
                       "--target-edge", "5%", "--output", str(out))
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert OWN in text and hashlib.sha256(OWN.encode()).hexdigest() in text
    w = _analyzed(out, "lucky-tie:designed")                      # the file alone: no own.toml given
    pays = tomllib.loads(text)["paytable"][0]["pays"]
    lines = {o["id"]: o for o in w["outcomes"]}
    won = sum(lines[o]["combinations"] * Fraction(pays[o].split(" to ")[0]) for o in pays)
    assert Fraction(w["house_edge"]) == (lines["lose"]["combinations"] - won) / w["combinations"]
    assert _analyzed(out, "lucky-tie:A")["house_edge"] == _analyzed(tmp_path / "own.toml", "lucky-tie:A")["house_edge"]
    for given in ([own, out], [out, own]):                       # the file beside the one that carries it
        code, stdout, err = run("analyze", *(x for f in given for x in ("--paytables", str(f))))
        assert code == 2 and stdout == "" and err.count("\n") == 1
        assert f"--paytables {out} carries {own} (design --output wrote it to stand alone): give {out} without {own}" in err
    table = tmp_path / "table.toml"                              # a paytable alone, its wager's file not given
    table.write_text(text[text.index("[[paytable]]"):], encoding="utf-8")
    code, _, err = run("analyze", "--paytables", str(table))
    assert code == 2 and err.count("\n") == 1 and "paytable for unknown wager 'lucky-tie'" in err
    assert "give the --paytables file that defines it before this one" in err
    code, _, err = run("analyze", "--paytables", str(own), "--paytables", str(table), "--wager", "lucky-tie:designed")
    assert code == 0, err


def test_the_certificate_records_its_validation_file_and_verify_checks_one(tmp_path: Path) -> None:
    cert, rounds = tmp_path / "c.json", tmp_path / "v.csv"
    code, _, err = run("certificate", "--wager", "tie:8-to-1", "--one-route", "--issued", "2026-11-27", "--format",
                       "json", "--output", str(cert), "--validation", str(rounds))
    assert code == 0, err
    record = json.loads(cert.read_text())["inputs"]["validation"]
    with rounds.open(newline="") as fh:
        rows = sum(1 for _ in csv.reader(fh)) - 1                         # the header
    assert record == {"name": "v.csv", "format": "csv", "sha256": hashlib.sha256(rounds.read_bytes()).hexdigest(),
                      "rows": rows}
    code, out, err = run("verify", str(cert), "--validation", str(rounds))
    assert code == 0 and f"{rows:,} rounds" in out, err
    changed = tmp_path / "changed.csv"
    changed.write_bytes(rounds.read_bytes().replace(b",tie\n", b",lose\n", 1))
    code, out, err = run("verify", str(cert), "--validation", str(changed))
    assert code == 1 and out == "" and "is not the recorded" in err and err.count("\n") == 1
    doc = json.loads(cert.read_text())
    doc["inputs"]["validation"]["rows"] += 1
    cert.write_text(json.dumps(doc))
    code, _, err = run("verify", str(cert))
    assert code == 1 and "certificate_number" in err
    code, _, err = run("certificate", "--wager", "tie:8-to-1", "--one-route", "--format", "json", "--output",
                       str(tmp_path / "plain.json"))
    code, out, err = run("verify", str(tmp_path / "plain.json"), "--validation", str(rounds))
    assert code == 2 and out == "" and "records no validation file" in err and err.count("\n") == 1


@pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                    reason="Debian's chromium is not installed")
@pytest.mark.parametrize("paper", ["letter", "a4"])
def test_the_printed_pages_hold_the_rules_and_the_new_figures(paper: str, tmp_path: Path) -> None:
    """A two-wager certificate printed: its text (pypdf) holds every outcome's condition, the paytable's file,
    the volatility index, the payout and liability, the game and the cross-reference; verify accepts it."""
    (tmp_path / "house-tie.toml").write_text(HOUSE, encoding="utf-8")
    out = tmp_path / "c.pdf"
    code, _, err = run("certificate", "--wager", "lucky-six", "--wager", "tie:7-to-1", "--paytables",
                       str(tmp_path / "house-tie.toml"), "--game", "Lucky Baccarat", "--game-version", "1.2",
                       "--revision", "1.2 (2026-11-27): Lucky Six added", "--table-max", "5000", "--one-route",
                       "--paper", paper, "--format", "pdf", "--output", str(out))
    assert code == 0, err
    document, kind, _ = read_document(str(out))
    text = " ".join(unicodedata.normalize("NFKC", " ".join(p.extract_text() for p in PdfReader(out).pages)).split())
    for block in document["results"][0]["wagers"]:
        for row in block["outcomes"]:
            assert row["condition"] in text, row["condition"]
        for level, value in block["summary"]["volatility_index"].items():
            assert str(Decimal(value).quantize(Decimal("0.0001"), ROUND_HALF_EVEN)) in text
    digest = hashlib.sha256(HOUSE.encode()).hexdigest()
    for words in (f"house-tie.toml, SHA-256 {digest}", "Liability per round at the table limit of $5,000.00",
                  "$100,000.00", "$35,000.00", "Lucky Baccarat", "1.2 (2026-11-27): Lucky Six added",
                  "Paytables: cross-reference", "Not offered under paytable standard", "House edge"):
        assert words in text, words
    assert "§house" not in text and "hold)" not in text
    code, stdout, err = run("verify", str(out))
    assert code == 0 and "verified" in stdout, err


# -- the simulation check -------------------------------------------------------------------------------------

def test_the_simulation_counts_are_the_simulators_rounds_settled_by_their_cards() -> None:
    """20,000 rounds: the tie and Lucky Six counts equal those of the same seeded rounds settled here from the
    cards' points alone; the observed RTP, its interval and z follow from them and the exact SD (closed forms)."""
    n, seed = 20_000, 41
    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("tie", "8-to-1"), ("lucky-six", "standard")],
                 issued="2026-11-27", second_route=False, simulation={"rounds": n, "seed": seed})
    rounds = simulate(decks=8, rounds=n, seed=seed, mode="fresh")
    points = POINTS[np.where(rounds.player >= 0, rounds.player, 0)] * (rounds.player >= 0)
    banker_points = POINTS[np.where(rounds.banker >= 0, rounds.banker, 0)] * (rounds.banker >= 0)
    player, banker = points.sum(axis=1) % 10, banker_points.sum(axis=1) % 10
    banker_cards = (rounds.banker >= 0).sum(axis=1)
    ties = int((player == banker).sum())
    six = (banker > player) & (banker == 6)
    want = {"tie": {"tie": ties, "lose": n - ties},
            "lucky-six": {"two_card_6": int((six & (banker_cards == 2)).sum()),
                          "three_card_6": int((six & (banker_cards == 3)).sum()),
                          "lose": n - int(six.sum())}}
    nets = {"tie": {"tie": 8, "lose": -1}, "lucky-six": {"two_card_6": 12, "three_card_6": 20, "lose": -1}}
    for b in cert["results"][0]["wagers"]:
        sim = b["simulation"]
        assert {k: int(v) for k, v in sim["counts"].items()} == want[b["wager"]]
        observed = 1 + Fraction(sum(nets[b["wager"]][k] * v for k, v in want[b["wager"]].items()), n)
        assert Fraction(sim["observed_rtp"]) == observed
        se = math.sqrt(Fraction(b["summary"]["variance"]) / n)
        lo, hi = (float(x) / 100 for x in sim["interval_95_percent"])
        assert abs(lo - (float(observed) - 1.959963984540054 * se)) < 1e-6
        assert abs(hi - (float(observed) + 1.959963984540054 * se)) < 1e-6
        z = (float(observed) - float(Fraction(b["summary"]["rtp"]))) / se
        assert abs(float(sim["z"]) - z) < 1e-4
        assert sim["verdict"].startswith("consistent" if abs(z) <= 1.959963984540054 else "outside")
    ok, message = verify(cert)                                   # it says what it dealt again
    assert ok and message.endswith("; the simulation check (20,000 rounds a shoe, seed 41) dealt again from the "
                                   "seed, equal")
    changed = copy.deepcopy(cert)
    changed["results"][0]["wagers"][0]["simulation"]["counts"]["tie"] = str(ties + 1)
    assert verify(changed) == (False, "value differs at results[0].wagers[0].simulation.counts.tie")


def test_the_simulation_is_printed_and_bad_requests_are_one_line() -> None:
    code, out, err = run("certificate", "--wager", "tie:8-to-1", "--simulate", "10000", "--seed", "5", "--one-route")
    assert code == 0, err
    assert "Simulation check:* 10,000 rounds dealt by the reference simulator (seed 5)" in out and "z = " in out
    assert "are seeded runs, named as such and dealt again from their seed by `exactodds verify`" in out
    code, out, _ = run("certificate", "--wager", "tie:8-to-1", "--one-route")
    assert code == 0 and "- **Method:** every figure is an exact rational number" in out
    assert "no simulation was used." in out and "dealt again" not in out
    for args, words in ((["--simulate", "0"], "--simulate: from 1 to 100,000,000 rounds in all (1 shoe certified), "
                                               "got 0"), (["--simulate", "10", "--remove", "5s"],
                        "full shoes"), (["--seed", "3"], "--seed goes with --simulate")):
        code, out, err = run("certificate", "--wager", "tie:8-to-1", "--one-route", *args)
        assert code == 2 and out == "" and words in err and err.count("\n") == 1, err


# -- exposure to counting -------------------------------------------------------------------------------------

def test_the_exposure_section_against_removal_correlation_and_the_exposure_command() -> None:
    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("lucky-six", "standard"), ("tie", "8-to-1")],
                 issued="2026-11-27", second_route=False, exposures={"shoes": 60, "seed": 9})
    shoe = Shoe.decks(8)
    run_again = exposure([("lucky-six", "standard"), ("tie", "8-to-1")], shoes=60, seed=9)
    for b, again in zip(cert["results"][0]["wagers"], run_again):
        x = b["exposure"]
        effects = {e["removed"]: Fraction(e["effect"]) for e in x["effects"]}
        assert list(effects) == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
        assert sum(32 * e for e in effects.values()) == 0                   # removing an unseen card changes nothing
        base = Fraction(b["summary"]["expected_return"])
        for rank in ("6", "K"):                                             # E(shoe less one card) − E(shoe)
            (less,) = analyze(shoe.remove(parse_card_list(f"{rank}s", where="test")[0]), wagers=[b["wager"]],
                              paytables=[b["paytable"]])
            assert Fraction(less.expected_return) - base == effects[rank]
        tags = x["count"]["tags"]
        n = 13 * 32
        mean_e, mean_t = sum(32 * e for e in effects.values()) / n, Fraction(sum(32 * t for t in tags.values()), n)
        cov = sum(32 * (effects[r] - mean_e) * (tags[r] - mean_t) for r in effects)
        var_e = sum(32 * (effects[r] - mean_e) ** 2 for r in effects)
        var_t = sum(32 * (tags[r] - mean_t) ** 2 for r in effects)
        assert Fraction(x["count"]["betting_correlation_squared"]) == cov * cov / (var_e * var_t)
        m = x["measured"]                                                   # the exposure command, same seed
        assert (m["shoes"], m["rounds"], m["seed"]) == (again.shoes, again.rounds, 9)
        assert Fraction(m["perfect_per_shoe"]) == again.perfect_per_shoe
        assert Fraction(m["advantage_share"]) == again.advantage_share
        assert Fraction(m["mean_player_expected_return"]) == again.mean_player_expected_return
        assert abs(float(m["perfect_per_shoe_se"]) - again.perfect_per_shoe_se) < 1e-8
        assert x["verdict"].startswith(f"{b['wager']}:{b['paytable']}: ")
    ok, message = verify(cert)
    assert ok and message.endswith("; the measured exposure (60 shoes, seed 9) dealt again from the seed, equal")
    changed = copy.deepcopy(cert)
    changed["results"][0]["wagers"][1]["exposure"]["measured"]["perfect_per_shoe"] = "0"
    assert verify(changed) == (False, "value differs at results[0].wagers[1].exposure.measured.perfect_per_shoe")


def test_the_exposure_section_is_printed_and_its_options_checked() -> None:
    code, out, err = run("certificate", "--wager", "lucky-six", "--exposure", "--exposure-shoes", "20", "--seed", "2",
                         "--one-route")
    assert code == 0, err
    assert "*Exposure to counting:* lucky-six:standard: worth a count" in out and "| Tag |" in out
    assert "Measured exposure:** 20 shoes of 8 decks (seed 2)" in out and "Betting correlation" in out
    for args, words in ((["--exposure-shoes", "5"], "--exposure-shoes goes with --exposure"),
                        (["--exposure", "--exposure-shoes", "1"], "--exposure-shoes: from 2 to 20,000 shoes dealt in "
                                                                  "all (1 shoe certified), got 1 a shoe"),
                        (["--exposure", "--exposure-shoes", "5", "--remove", "5s"], "full shoes")):
        code, out, err = run("certificate", "--wager", "tie:8-to-1", "--one-route", *args)
        assert code == 2 and out == "" and words in err and err.count("\n") == 1, err
