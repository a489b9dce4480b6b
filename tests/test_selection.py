"""Issue 22, parts 3 and 4: a selection is exactly what was asked, and an unknown name is an error.

Every command takes any number of WAGER[:PAYTABLE] and users' data files (--paytables FILE); no
option that takes one value may be given twice; a certificate carries each data file (its text and
SHA-256) and verify recomputes from it.
"""

from __future__ import annotations

import copy
import hashlib
import html as html_lib
import json
import re
from fractions import Fraction
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from exactodds.analyses.analysis import analyze, load_file
from exactodds.cli import cli
from exactodds.documents.certificate import build, verify
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import load_catalogue

from .test_cli import run

ROOT = Path(__file__).resolve().parent.parent
#: The most bytes a users' data file may hold, as the README states it.
MAX_FILE_BYTES = 1 << 20

HOUSE = """\
# A casino's own wagers and paytables.
[[wager]]
id = "house-bet"
name = "House Bet (Banker wins with a natural)"
section = "house proposal"
  [[wager.outcome]]
  id = "natural"
  name = "Banker wins with a natural"
  when = "banker_wins and banker_natural"
  [[wager.paytable]]
  id = "A"
  pays = { natural = "2 to 1" }

[[wager]]
id = "house-banker"
name = "House Banker"
section = "house proposal on 627a.12(c)"
  [[wager.outcome]]
  id = "banker_wins"
  name = "Banker wins"
  when = "banker_wins"
  [[wager.outcome]]
  id = "tie"
  name = "Tie"
  when = "tie"
  [[wager.paytable]]
  id = "A"
  pays = { banker_wins = "1 to 1 less 5% vigorish", tie = "push" }

[[wager]]
id = "house-progressive"
name = "House Progressive (3-card 9 against 3-card 9)"
section = "house proposal"
  [[wager.outcome]]
  id = "nines"
  name = "Player and Banker 3-card 9"
  when = "player == 9 and banker == 9 and player_cards == 3 and banker_cards == 3"
  [[wager.paytable]]
  id = "A"
  pays = { nines = "100% of Progressive" }

[[paytable]]
wager = "tie"
id = "7-to-1"
section = "house proposal"
pays = { tie = "7 to 1" }
"""


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("house") / "house.toml"
    path.write_text(HOUSE)
    return path


# -- 3. Selection is exactly what was asked --------------------------------------------------

def test_certificate_wager_a_wager_b_certifies_both() -> None:
    """`certificate --wager A --wager B` exited 0 and certified only B."""
    code, out, err = run("certificate", "--wager", "tie", "--wager", "dragon-bonus-player:B", "--decks", "8",
                         "--format", "json")
    assert code == 0, err
    cert = json.loads(out)
    assert [(s["wager"], s["paytable"]) for s in cert["inputs"]["selection"]] == [
        ("tie", "8-to-1"), ("tie", "9-to-1"), ("dragon-bonus-player", "B")]
    blocks = cert["results"][0]["wagers"]
    exact = analyze(Shoe.decks(8), wagers=["tie", "dragon-bonus-player:B"])
    assert [Fraction(b["summary"]["house_edge"]) for b in blocks] == [r.house_edge for r in exact]


def _single_valued_options() -> list[tuple[str, click.Option]]:
    return [(name, p) for name, command in sorted(cli.commands.items()) for p in command.params
            if isinstance(p, click.Option) and not p.multiple and not p.count and p.expose_value]


@pytest.mark.parametrize(("command", "option"), _single_valued_options(),
                         ids=lambda x: x if isinstance(x, str) else max(x.opts, key=len))
def test_no_single_valued_option_is_silently_given_twice(command: str, option: click.Option) -> None:
    """click kept the last value of an option given twice, silently: every command now refuses it."""
    flag = max(option.opts, key=len)
    args = [flag, flag] if option.is_flag else [flag, "1", flag, "2"]
    code, out, err = run(command, *args)
    assert code == 2 and out == "" and err.count("\n") == 1, (command, args, out, err)
    assert f"{flag} given twice" in err


def test_an_option_given_twice_shows_both_values() -> None:
    code, _, err = run("progressive", "--wager", "royal-9-progressive", "--paytable", "A", "--paytable=B")
    assert code == 2 and err == "exactodds: error: --paytable given twice ('A', 'B'): it takes one value\n"


def test_certificate_of_a_casinos_own_paytables_verifies_from_the_embedded_file(house: Path, tmp_path: Path) -> None:
    """No command could certify a user's own wagers: now the file goes into the certificate, and
    verify recomputes from its embedded text and checks its SHA-256."""
    code, out, err = run("certificate", "--wager", "banker", "--wager", "tie:8-to-1", "--paytables", str(house),
                         "--wager", "house-bet", "--decks", "8", "--format", "json")
    assert code == 0, err
    cert = json.loads(out)
    assert [(s["wager"], s["paytable"]) for s in cert["inputs"]["selection"]] == [
        ("banker", "standard"), ("tie", "8-to-1"), ("house-bet", "A")]
    (f,) = cert["inputs"]["files"]
    assert f == {"name": "house.toml", "sha256": hashlib.sha256(house.read_bytes()).hexdigest(), "text": HOUSE}
    exact = analyze(Shoe.decks(8), wagers=["banker", "tie:8-to-1", "house-bet"],
                    catalogue=load_catalogue().merged(load_file(house)))
    assert [(b["wager"], b["paytable"], Fraction(b["summary"]["house_edge"])) for b in cert["results"][0]["wagers"]] \
        == [(r.wager.id, r.paytable.id, r.house_edge) for r in exact]

    saved = tmp_path / "cert.json"
    saved.write_text(out)
    house_moved = house.with_suffix(".gone")             # verify needs nothing but the certificate
    house.rename(house_moved)
    try:
        code, out, err = run("verify", str(saved))
    finally:
        house_moved.rename(house)
    assert code == 0, err
    assert "3 priced wager tables match exactly" in out and f"data file 'house.toml' matches its SHA-256 {f['sha256'][:16]}" in out

    for tamper in ("text", "sha256"):
        bad = copy.deepcopy(cert)
        bad["inputs"]["files"][0][tamper] = (HOUSE.replace('"2 to 1"', '"3 to 1"') if tamper == "text"
                                            else hashlib.sha256(b"another file").hexdigest())
        saved.write_text(json.dumps(bad))
        code, out, err = run("verify", str(saved))
        assert code == 1 and out == "" and "inputs.files[0] ('house.toml'): the embedded text does not have the " \
            "stated SHA-256" in err, (tamper, err)

    bad = copy.deepcopy(cert)                              # text and digest changed together: the figures differ
    bad["inputs"]["files"][0]["text"] = HOUSE.replace('"2 to 1"', '"3 to 1"')
    bad["inputs"]["files"][0]["sha256"] = hashlib.sha256(bad["inputs"]["files"][0]["text"].encode()).hexdigest()
    ok, message = verify(bad)
    assert not ok and "differs" in message


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: f.update(extra="x"), "inputs.files lists data files"),
    (lambda f: f.update(sha256="ABC"), "64 hex digits"),
    (lambda f: f.update(text=f["text"] + "#" * MAX_FILE_BYTES), "larger than 1,048,576 bytes"),
    (lambda f: f.update(name="a\nb"), "inputs.files[0].name"),
])
def test_certificate_files_are_checked_strictly(house: Path, change, message: str) -> None:
    cert = build(shoes=[{"decks": 1, "remove": []}], selection=[("house-bet", "A")],
                 files=[{"name": "house.toml", "text": house.read_text()}])
    assert verify(copy.deepcopy(cert))[0]
    change(cert["inputs"]["files"][0])
    with pytest.raises(ExactOddsError, match="malformed certificate") as info:
        verify(cert)
    assert message in str(info.value)


def test_a_certificate_without_its_file_names_the_unknown_wager(house: Path) -> None:
    cert = build(shoes=[{"decks": 1, "remove": []}], selection=[("house-bet", "A")],
                 files=[{"name": "house.toml", "text": house.read_text()}])
    del cert["inputs"]["files"]
    with pytest.raises(ExactOddsError, match="unknown wager 'house-bet'"):
        verify(cert)


def test_certificate_paytables_alone_certifies_the_files_own_wagers(house: Path) -> None:
    code, out, err = run("certificate", "--paytables", str(house), "--decks", "8", "--format", "json")
    assert code == 0, err
    assert [(s["wager"], s["paytable"]) for s in json.loads(out)["inputs"]["selection"]] == [
        ("house-bet", "A"), ("house-banker", "A"), ("house-progressive", "A"), ("tie", "7-to-1")]


@pytest.mark.parametrize(("args", "message"), [
    (["--wager", "tie", "--wager", "banker", "--paytable", "8-to-1"], "--wager 'banker': wager 'banker' has no paytable"),
    (["--wager", "tie:8-to-1", "--paytable", "8-to-1"], "--paytable goes with a bare --wager"),
    (["--wager", "tie", "--all"], "or give --all"),
    (["--section", "999", "--section", "627a.7"], "no wager cites section '999'"),
    (["--wager", "tie:"], "write WAGER or WAGER:PAYTABLE"),
])
def test_certificate_selection_errors(args: list[str], message: str) -> None:
    code, out, err = run("certificate", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_certificate_sections_and_paytables_repeat() -> None:
    code, out, err = run("certificate", "--wager", "tie", "--wager", "dragon-bonus-player", "--paytable", "9-to-1",
                         "--paytable", "b", "--section", "627a.12(b)", "--decks", "8", "--format", "json")
    assert code == 0, err
    assert [(s["wager"], s["paytable"]) for s in json.loads(out)["inputs"]["selection"]] == [
        ("tie", "9-to-1"), ("dragon-bonus-player", "B"), ("tie", "8-to-1")]


def test_a_huge_paytables_file_is_refused_in_one_line(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text("#" * (MAX_FILE_BYTES + 1))
    code, out, err = run("analyze", "--paytables", str(big))
    assert code == 2 and out == "" and err == (f"exactodds: error: {big}: larger than 1,048,576 bytes, the most a "
                                               "wager data file may hold\n")


def test_vigorish_takes_several_wagers_and_users_files(house: Path) -> None:
    """vigorish took one --wager (a second was silently dropped) and no --paytables."""
    code, out, err = run("vigorish", "--bets", "1,7", "--wager", "banker", "--wager", "house-banker",
                         "--paytables", str(house), "--format", "json")
    assert code == 0, err
    tables = json.loads(out)["tables"]
    assert [(t["wager"], t["paytable"]) for t in tables] == [("banker", "standard"), ("house-banker", "A")]
    assert [r["house_edge"] for r in tables[0]["rows"]] == [r["house_edge"] for r in tables[1]["rows"]]
    code, out, _ = run("vigorish", "--bets", "7", "--wager", "banker", "--wager", "house-banker",
                       "--paytables", str(house), "--format", "csv")
    assert out.splitlines()[0].startswith("wager,paytable,bet,") and out.splitlines()[2].startswith("house-banker,A,")
    code, _, err = run("vigorish", "--wager", "house-bet", "--paytables", str(house))
    assert code == 2 and "charges no vigorish" in err


def test_tables_take_wagers_and_users_files(house: Path, tmp_path: Path) -> None:
    code, out, err = run("tables", "--output-dir", str(tmp_path / "t"), "--decks", "8", "--wager", "house-bet",
                         "--wager", "tie:7-to-1", "--paytables", str(house))
    assert code == 0, err
    text = (tmp_path / "t" / "8-decks.csv").read_text()
    assert "house-bet" in text and "7-to-1" in text and "banker" not in text.replace("Banker", "")


def test_simulate_settles_and_check_sim_checks_users_wagers(house: Path, tmp_path: Path) -> None:
    rounds = tmp_path / "rounds.csv"
    code, _, err = run("simulate", "--rounds", "3000", "--seed", "7", "--output", str(rounds), "--wager", "house-bet",
                       "--wager", "tie:7-to-1", "--paytables", str(house))
    assert code == 0, err
    assert rounds.read_text().splitlines()[0].endswith(",house-bet:A,tie:7-to-1")
    code, out, err = run("check-sim", str(rounds), "--wager", "house-bet", "--paytables", str(house), "--format", "json")
    assert code == 0, err
    assert {t["wager"] for t in json.loads(out)["tests"]} >= {"house-bet"}
    code, _, err = run("check-sim", str(rounds), "--wager", "house-bet")
    assert code == 2 and "unknown wager 'house-bet'" in err
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--output", "-", "--paytables", str(house))
    assert code == 2 and "--paytables goes with --wager" in err


def test_check_sim_counts_with_wager_checks_only_those(tmp_path: Path) -> None:
    """check-sim --counts FILE --wager tie checked every wager of the file, ignoring --wager."""
    code, out, err = run("check-sim", "--counts", str(ROOT / "examples" / "counts.json"), "--wager", "tie", "--format", "json",
                         "--verbose")
    assert code == 0, err
    assert {(t["wager"], t["paytable"]) for t in json.loads(out)["tests"]} == {("tie", "8-to-1")}
    code, _, err = run("check-sim", "--counts", str(ROOT / "examples" / "counts.json"), "--wager", "tie:9-to-1")
    assert code == 2 and "--wager 'tie:9-to-1': not in the counts file" in err


def test_progressive_takes_a_users_file(house: Path) -> None:
    code, out, err = run("progressive", "--wager", "house-progressive", "--paytables", str(house), "--format", "json")
    assert code == 0, err
    assert "J" in json.loads(out)["player_expected_return"]


def test_serve_shows_users_wagers_and_certifies_with_the_file(house: Path) -> None:
    pytest.importorskip("flask")
    from exactodds.serve import create_app

    app = create_app(decks=8, wagers=["house-bet", "tie:7-to-1"],
                     files=[{"name": "house.toml", "text": house.read_text()}])
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    init = json.loads(html_lib.unescape(re.search(r"data-init='([^']*)'", page)[1]))    # the page's first state
    assert init["chosen"] == ["house-bet:A", "tie:7-to-1"]
    assert {"house-bet:A", "tie:7-to-1"} <= {c["key"] for c in init["choices"]}
    assert next(c for c in init["choices"] if c["key"] == "house-bet:A")["groups"] == ["your files"]
    r = client.post("/api/edges", json={"decks": 8, "removed": [], "wagers": ["house-bet:A"]}).get_json()
    (exact,) = analyze(Shoe.decks(8), wagers=["house-bet"], catalogue=load_catalogue().merged(load_file(house)))
    assert Fraction(r["wagers"][0]["player_expected_return"]) == exact.expected_return
    from exactodds.documents.pages import read_document

    html = client.get("/certificate/house-bet/A?decks=8").get_data(as_text=True)
    path = house.parent / "served.html"
    path.write_text(html)
    document, _, _ = read_document(str(path))
    assert verify(document)[0] and document["inputs"]["files"][0]["name"] == "house.toml"
    with pytest.raises(ExactOddsError, match="pays a progressive meter"):
        create_app(wagers=["house-progressive"], files=[{"name": "house.toml", "text": house.read_text()}])
    code, _, err = run("serve", "--wager", "bankr")
    assert code == 2 and "did you mean 'banker'" in err


# -- 4. Unknown names are errors -----------------------------------------------------------------

def test_eor_meter_q_for_a_wager_without_meter_q_is_an_error() -> None:
    """`eor heavenly-9-progressive --meter Q=5` printed what it printed without the meter."""
    code, out, err = run("eor", "--wager", "heavenly-9-progressive", "--meter", "Q=5")
    assert code == 2 and out == "" and err == ("exactodds: error: --meter Q: no selected wager has a meter 'Q' "
                                               "(meters: J)\n")
    code, _, err = run("eor", "--wager", "banker", "--meter", "J=5")
    assert code == 2 and "none of them is a progressive" in err


@pytest.mark.parametrize(("args", "message"), [
    (["position", "--wager", "banker", "--wager", "tie", "--meter", "J=5"], "--meter J: no selected wager has a meter 'J'"),
    (["position", "--wager", "royal-9-progressive", "--meter", "J_majr=5"], "did you mean 'J_major'?"),
    (["progressive", "--wager", "royal-9-progressive", "--meter", "majr=5"], "did you mean 'J_major'?"),
    (["progressive", "--wager", "royal-9-progressive", "--increment", "majr=5%"], "did you mean 'J_major'?"),
    (["analyze", "--wager", "banker", "--set", "bankr:bet=5"], "unknown wager 'bankr' (did you mean 'banker'?)"),
    (["analyze", "--wager", "royal-9-progressive", "--set", "royal-9-progressive:seet=5"], "did you mean 'seat'?"),
    (["analyze", "--wager", "banker", "--set", "royal-9-progressive:seat=5"], "which is not selected"),
    (["analyze", "--alternative", "blazing-7z=mixed-7s-as-3-card"], "did you mean 'blazing-7s'?"),
    (["analyze", "--wager", "blazing-7s", "--alternative", "blazing-7s=mixed-7s-as-3-crd"],
     "did you mean 'mixed-7s-as-3-card'?"),
    (["analyze", "--paytable", "8-to-2"], "no wager has paytable '8-to-2' (did you mean '8-to-1'?)"),
    (["certificate", "--wager", "tie", "--paytable", "8-to-2"], "did you mean '8-to-1'?"),
    (["vigorish", "--wager", "bankr"], "did you mean 'banker'?"),
    (["tables", "--wager", "bankr", "--output-dir", "/nonexistent/t"], "did you mean 'banker'?"),
    (["simulate", "--rounds", "10", "--seed", "1", "--output", "-", "--wager", "bankr"], "did you mean 'banker'?"),
    (["check-sim", "--counts", str(ROOT / "examples" / "counts.json"), "--wager", "bankr"], "did you mean 'banker'?"),
    (["eor", "--wager", "heavenly-9-progressive", "--tags", "X=1"], "--tags: unknown card 'X'"),
    (["position", "--wager", "heavenly-9-progressive=5", "--meter", "J=2000", "--mystery", "A-$6"], "did you mean 'A-$5'?"),
])
def test_unknown_names_are_refused_in_one_line(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize(("args", "message"), [
    (["eor", "--wager", "heavenly-9-progressive", "--meter", "J=5", "--meter", "J=6"], "--meter J given twice"),
    (["progressive", "--wager", "royal-9-progressive", "--meter", "major=5", "--meter", "J_major=6"],
     "--meter J_major given twice"),
    (["analyze", "--wager", "royal-9-progressive", "--set", "royal-9-progressive:seat=1",
      "--set", "royal-9-progressive:seat=2"], "--set royal-9-progressive:seat: given twice"),
    (["analyze", "--wager", "blazing-7s", "--alternative", "blazing-7s=mixed-7s-as-3-card",
      "--alternative", "blazing-7s=regulation"], "--alternative blazing-7s: given twice"),
])
def test_a_key_given_twice_is_refused(args: list[str], message: str) -> None:
    """``--meter J=5 --meter J=6`` and the like kept the last value silently."""
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_position_mystery_given_twice_is_refused_not_counted_twice() -> None:
    """`position ... --mystery A-$5 --mystery A-$5` added the bonus's value twice: a wrong expected result, exit 0."""
    stakes = ["position", "--wager", "heavenly-9-progressive=5", "--wager", "banker=5", "--meter", "J=2000", "--format", "json"]
    code, out, err = run(*stakes, "--mystery", "A-$5", "--mystery", "A-$5")
    assert code == 2 and out == "" and err == ("exactodds: error: --mystery A-$5 given twice (a position qualifies "
                                               "for a bonus once)\n")


@pytest.mark.parametrize("args, words", [
    (["analyze", "--wager", "banker", "--wager", "banker"], "--wager 'banker' given twice"),
    (["analyze", "--wager", "tie:8-to-1", "--wager", "tie:8-to-1"], "--wager 'tie:8-to-1' given twice"),
    (["vigorish", "--wager", "banker", "--wager", "banker"], "--wager 'banker' given twice"),
    (["eor", "--wager", "tie", "--wager", "banker", "--wager", "tie"], "'tie' given twice"),
    (["exposure", "--wager", "banker", "--wager", "banker", "--shoes", "1", "--seed", "1"], "'banker' given twice"),
    (["simulate", "--rounds", "10", "--seed", "1", "--wager", "tie", "--wager", "tie", "--output", "-"],
     "--wager 'tie' given twice"),
    (["check-sim", "--counts", "examples/counts.json", "--wager", "tie", "--wager", "tie"],
     "--wager 'tie' given twice"),
    (["position", "--wager", "banker=25", "--wager", "banker=5"], "stake banker:standard given twice"),
    (["position", "--wager", "banker=25", "--wager", "player", "--wager", "banker:standard=5"], "stake banker:standard given twice"),
])
def test_f3_a_wager_named_twice_is_refused(args, words):
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 2, out.output
    (line,) = out.output.strip().splitlines()
    assert words in line


def test_f3_certificate_certifies_a_wager_named_twice_once():
    twice = CliRunner().invoke(cli, ["certificate", "--wager", "tie:8-to-1", "--wager", "tie:8-to-1",
                                     "--format", "json", "--issued", "2026-01-01"])
    once = CliRunner().invoke(cli, ["certificate", "--wager", "tie:8-to-1", "--format", "json",
                                    "--issued", "2026-01-01"])
    assert twice.exit_code == 0 and json.loads(twice.output)["results"] == json.loads(once.output)["results"]
