"""Issue 25, item 2: the validation data file (``certificate --validation``) and ``check-sim --validation``; issue 41,
item 7: a validation file of a user's own wager carries the data file that defines it and stands alone."""

from __future__ import annotations

import csv
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from exactodds import load_catalogue
from exactodds.analyses.pricing import price
from exactodds.engine import deal
from exactodds.game.cards import Card
from exactodds.game.rules import play
from exactodds.game.shoe import Shoe
from exactodds.simulation.recordio import read_note
from exactodds.simulation.roundclasses import _dealable, decode_digits, value_codes
from exactodds.simulation.validation import carried_files, validation_rounds

from .brute import all_features
from .test_cli import run


def _dealt(player: np.ndarray, banker: np.ndarray) -> tuple[Card, ...]:
    """A round's cards in the order dealt (Player, Banker, Player, Banker, then the thirds)."""
    order = [player[0], banker[0], player[1], banker[1]] + [c for c in (player[2], banker[2]) if c >= 0]
    return tuple(Card.from_index(int(c)) for c in order)


def _settled_apart(wager, paytable, player: np.ndarray, banker: np.ndarray) -> str:  # type: ignore[no-untyped-def]
    """The outcome of one round from the regulation's words (tests/brute.py), not from exactodds.simulation."""
    cards = _dealt(player, banker)
    rnd = play([c.points for c in cards])
    assert rnd.cards_used == len(cards)                      # dealt as §627a.10 says, no card more or less
    outcome = wager.settle_row(all_features(cards, rnd), paytable)
    return "lose" if outcome is None else outcome


@pytest.fixture(scope="module")
def catalogue_rounds():  # type: ignore[no-untyped-def]
    cat = load_catalogue()
    pairs = [(w, w.paytables[t]) for w in cat.values() for t in w.paytables]
    return pairs, validation_rounds(pairs, [Shoe.decks(8)])


@pytest.mark.slow
def test_every_outcome_of_the_catalogue_has_a_round_that_settles_as_it(catalogue_rounds) -> None:  # type: ignore[no-untyped-def]
    """Every outcome of every paytable that 8 decks can deal has its round, rare ones included (six cards of a
    suit, a Royal Match), and the round settles as that outcome by the brute-force features of tests/brute.py."""
    pairs, v = catalogue_rounds
    assert v.impossible == () and v.not_dealable == 0
    dist = deal(Shoe.decks(8))
    checked = 0
    for w, t in pairs:
        key = f"{w.id}:{t.id}"
        possible = {ln.id for ln in price(w, t, dist).lines if ln.id != "lose" and ln.combinations > 0}
        assert set(v.hits[key]) == possible, key
        for outcome, row in v.hits[key].items():
            try:
                got = _settled_apart(w, t, v.player[row], v.banker[row])
            except KeyError:                                   # a feature brute.py does not describe
                continue
            assert got == outcome, (key, outcome)
            checked += 1
    assert checked >= 300


def test_every_value_level_round_class_once_and_out_of_the_shoe(catalogue_rounds) -> None:  # type: ignore[no-untyped-def]
    _, v = catalogue_rounds
    cards = np.concatenate([v.player, v.banker], axis=1)[-v.classes:]
    codes = value_codes(cards)
    assert np.array_equal(np.sort(codes), np.flatnonzero(_dealable())) and v.classes == 339_400
    assert (np.stack([(cards == c).sum(axis=1) for c in range(52)], axis=1) <= 8).all()


@pytest.mark.slow
def test_a_one_deck_shoe_gets_rounds_it_can_deal_and_says_what_it_cannot() -> None:
    cat = load_catalogue()
    pp = cat["perfect-pairs-player"]
    v = validation_rounds([(pp, pp.paytable("A"))], [Shoe.decks(1)])
    cards = np.concatenate([v.player, v.banker], axis=1)
    assert (np.stack([(cards == c).sum(axis=1) for c in range(52)], axis=1) <= 1).all()     # each card once
    digits = decode_digits(np.flatnonzero(_dealable()))
    too_many = (np.stack([(digits == value).sum(axis=1) for value in range(1, 10)], axis=1) > 4).any(axis=1)
    assert v.not_dealable == int(too_many.sum()) == 185          # five 5s from four, worked out apart
    assert v.impossible == ("perfect-pairs-player:A perfect",)   # a suited pair needs two of one card
    assert set(v.hits["perfect-pairs-player:A"]) == {"mixed", "coloured"}


@pytest.mark.slow
def test_the_same_selection_gives_the_same_rounds() -> None:
    cat = load_catalogue()
    pairs = [(cat["heavenly-9-progressive"], cat["heavenly-9-progressive"].paytable("standard"))]
    a, b = validation_rounds(pairs, [Shoe.decks(6)]), validation_rounds(pairs, [Shoe.decks(6)])
    assert np.array_equal(a.player, b.player) and np.array_equal(a.banker, b.banker) and a.hits == b.hits


@pytest.mark.slow
def test_the_file_round_trips_through_check_sim_and_a_changed_settlement_fails(tmp_path: Path) -> None:
    out, val = tmp_path / "c.json", tmp_path / "v.csv"
    code, _, err = run("certificate", "--wager", "dragon-7-insurance", "--wager", "lucky-nines:A", "--decks", "6",
                       "--format", "json", "--output", str(out), "--validation", str(val))
    assert code == 0 and f"wrote {val}: " in err and "value-level round classes" in err and out.exists()
    code, shown, _ = run("check-sim", str(val), "--validation", "--decks", "6")
    assert code == 0 and "OK — nothing flagged" in shown and shown.count("every round settled as its cards say") == 2
    rows = list(csv.reader(val.open()))
    assert rows[0][6:] == ["dragon-7-insurance:standard", "lucky-nines:A"]
    line = next(i for i, r in enumerate(rows) if r[6] == "dragon_7")
    rows[line][6] = "lose"                                        # a game paying a Dragon 7 as a loss
    broken = tmp_path / "broken.csv"
    with broken.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    code, shown, _ = run("check-sim", str(broken), "--validation", "--decks", "6")
    assert code == 1 and f"first at {broken}:{line + 1}: paid 'lose', the cards say 'dragon_7'" in shown
    short = tmp_path / "short.csv"                               # a game that leaves out the rounds it gets wrong
    with short.open("w", newline="") as fh:
        csv.writer(fh).writerows([row for k, row in enumerate(rows) if k < 1000 and k != line and row[6] != "dragon_7"])
    code, shown, _ = run("check-sim", str(short), "--validation", "--decks", "6")
    assert code == 1 and "of 339,400 value-level round classes a 6-deck shoe deals" in shown
    assert "no round of dragon-7-insurance:standard dragon_7" in shown
    code, _, _ = run("check-sim", str(short), "--validation", "--decks", "6", "--lenient")
    assert code == 0


def test_validation_inputs_are_refused_in_one_line(tmp_path: Path) -> None:
    val = tmp_path / "v.csv"
    code, _, err = run("certificate", "--wager", "tie", "--format", "json", "--output", str(val), "--validation", str(val))
    assert code == 2 and "the same file as --output" in err and not val.exists()
    code, _, err = run("certificate", "--wager", "tie", "--format", "json", "--validation", str(tmp_path / "no" / "v.csv"))
    assert code == 2 and err.startswith("exactodds: error: --validation ") and err.count("\n") == 1
    code, _, err = run("check-sim", str(val), "--validation", "--counts")
    assert code == 2 and "does not go with --counts" in err
    plain = tmp_path / "plain.csv"
    plain.write_text("player1,player2,player3,banker1,banker2,banker3\nKs,9h,,2d,3c,\n")
    code, _, err = run("check-sim", str(plain), "--validation")
    assert code == 2 and "no WAGER:PAYTABLE column" in err


def test_parquet_validation_files_read_back(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    val = tmp_path / "v.parquet"
    code, _, _ = run("certificate", "--wager", "dragon-7-insurance", "--format", "json", "--validation", str(val))
    assert code == 0
    code, shown, _ = run("check-sim", str(val), "--validation")
    assert code == 0 and "339,4" in shown


@pytest.mark.slow
def test_an_outcome_the_search_misses_is_named_not_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From an audit: a user's outcome of six given ranks escaped the search and failed the certificate; now
    the certificate and the file are written and the outcome is named in a warning."""
    from exactodds.simulation import validation

    monkeypatch.setattr(validation, "SEARCH_BATCHES", 1)
    bet = tmp_path / "ladder.toml"
    bet.write_text('[[wager]]\nid = "face-ladder"\nname = "J Q 3 against K 10 6"\nsection = "test"\n'
                   '  [[wager.outcome]]\n  id = "jackpot"\n  name = "Player J Q 3, Banker K 10 6"\n'
                   '  when = "player_rank_1 == 11 and player_rank_2 == 12 and player_rank_3 == 3 and '
                   'banker_rank_1 == 13 and banker_rank_2 == 10 and banker_rank_3 == 6"\n'
                   '  [[wager.paytable]]\n  id = "A"\n  pays = { jackpot = "100000 to 1" }\n')
    out, val = tmp_path / "c.json", tmp_path / "v.csv"
    code, _, err = run("certificate", "--paytables", str(bet), "--one-route", "--format", "json", "--output", str(out),
                       "--validation", str(val))
    assert code == 0 and out.exists() and val.exists()
    assert "warning: the validation file has no round of 1 outcome" in err and "face-ladder:A jackpot" in err


# -- issue 41, item 7: a validation file of a user's own wager stands alone -----------------------------

#: A user's own bet, in a file whose exact text (a non-ASCII name, no line end at its end) the validation file carries.
OWN = ('# A bet of one\'s own \u2014 "Lucky Tie \u2660"\n[[wager]]\nid = "lucky-tie"\nname = "Lucky Tie \u2660"\n'
       'section = "inventor\'s proposal"\n  [[wager.outcome]]\n  id = "natural_tie"\n  name = "Tie of two-card hands"\n'
       '  when = "tie and player_cards == 2 and banker_cards == 2"\n  [[wager.outcome]]\n  id = "other_tie"\n'
       '  name = "Any other tie"\n  when = "tie and not (player_cards == 2 and banker_cards == 2)"\n'
       '  [[wager.paytable]]\n  id = "A"\n  pays = { natural_tie = "10 to 1", other_tie = "7 to 1" }')
FORMATS = ("v.csv", "v.jsonl.gz", "v.parquet")


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A certificate of the user's wager and the catalogue's Tie, with a validation file in each record format."""
    where = tmp_path_factory.mktemp("own")
    bet = where / "lucky.toml"
    bet.write_bytes(OWN.encode("utf-8"))
    for name in FORMATS:
        code, _, err = run("certificate", "--paytables", str(bet), "--wager", "lucky-tie", "--wager", "tie:8-to-1",
                           "--decks", "6", "--one-route", "--format", "json", "--output", str(where / f"{name}.json"),
                           "--validation", str(where / name))
        assert code == 0 and "it carries lucky.toml" in err and "needs no --paytables" in err
    return where, bet


def _check(*args: str) -> tuple[int, str, str]:
    return run("check-sim", *args, "--validation", "--decks", "6", "--quiet")     # no rate line: compared whole


def _note_and_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    """A CSV validation file's '#' lines, and its header and records as the csv module reads them."""
    lines = path.read_text(encoding="utf-8").split("\n")
    note = [ln for ln in lines if ln.startswith("#")]
    return note, list(csv.reader(lines[len(note):-1]))


def _write(path: Path, note: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        fh.write("".join(f"{ln}\n" for ln in note))
        csv.writer(fh, lineterminator="\n").writerows(rows)
    return path


@pytest.mark.parametrize("name", FORMATS)
def test_a_validation_file_carries_its_wagers_file_byte_for_byte(own: tuple[Path, Path], name: str) -> None:
    where, bet = own
    note = read_note(str(where / name))
    assert note is not None
    [(carried, text)] = carried_files(note, name)
    assert carried == "lucky.toml" and text.encode("utf-8") == bet.read_bytes()
    assert f"file sha256={hashlib.sha256(bet.read_bytes()).hexdigest()} lines=16 name=lucky.toml" in note


@pytest.mark.slow
@pytest.mark.parametrize("name", FORMATS)
def test_check_sim_of_a_users_wager_needs_no_paytables_and_says_the_same(own: tuple[Path, Path], name: str) -> None:
    """The file alone and the file with the --paytables it was made with give the same check, word for word."""
    where, bet = own
    for fmt in ("json", "text"):
        alone = _check(str(where / name), "--format", fmt)
        given = _check(str(where / name), "--format", fmt, "--paytables", str(bet))
        assert alone == given and alone[0] == 0 and alone[2] == ""
    assert all(re.search(rf"^{key} +settlement", alone[1], re.M) for key in ("lucky-tie:A", "tie:8-to-1"))
    code, out, err = run("check-sim", str(where / name), "--decks", "6")      # without --validation: named as one
    assert code == 2 and out == "" and err.count("\n") == 1 and "check it with 'check-sim --validation'" in err


@pytest.mark.slow
def test_a_wrong_settlement_and_a_bad_record_are_found_alike_with_and_without_paytables(own: tuple[Path, Path],
                                                                                      tmp_path: Path) -> None:
    where, bet = own
    note, rows = _note_and_rows(where / "v.csv")
    column = rows[0].index("lucky-tie:A")
    k = next(i for i, r in enumerate(rows) if r[column] == "natural_tie")
    rows[k][column] = "lose"                                       # a game paying a natural tie as a loss
    rows[k + 1][0] = "Zz"                                          # and a card it cannot read, the line after
    broken = _write(tmp_path / "broken.csv", note, rows)
    alone = _check(str(broken), "--lenient")
    assert alone == _check(str(broken), "--lenient", "--paytables", str(bet)) and alone[0] == 1
    line = len(note) + k + 1                                       # the file's own line: the note's lines counted
    assert broken.read_text(encoding="utf-8").split("\n")[line - 1].endswith(",lose,tie")
    assert f"first at {broken}:{line}: paid 'lose', the cards say 'natural_tie'" in alone[1]
    assert f"{broken}:{line + 1}: unreadable card" in alone[1]


@pytest.mark.slow
def test_a_csv_tool_writing_the_file_back_keeps_the_carried_file(own: tuple[Path, Path], tmp_path: Path) -> None:
    """The game's software may read the file with a CSV library and write it back: every line a row (the note's
    lines too), CRLF line ends, short rows padded with empty fields to the width of the records."""
    where, _ = own
    rows = list(csv.reader((where / "v.csv").open(newline="", encoding="utf-8")))
    assert len(rows[0]) == 1 and rows[0][0].startswith("# exactodds ")           # the note, each line one field
    width = max(len(r) for r in rows)
    again = tmp_path / "again.csv"
    with again.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(r + [""] * (width - len(r)) for r in rows)
    assert b",,\r\n" in again.read_bytes()
    assert _check(str(again)) == _check(str(where / "v.csv"))


def test_paytables_that_disagree_with_the_file_are_refused_naming_both(own: tuple[Path, Path], tmp_path: Path) -> None:
    where, bet = own
    other = tmp_path / "other.toml"
    other.write_text(OWN.replace('"10 to 1"', '"11 to 1"'), encoding="utf-8")
    for given in ([str(other)], [str(bet), str(other)]):
        code, out, err = _check(str(where / "v.csv"), *(x for g in given for x in ("--paytables", g)))
        assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
        assert f"--paytables {other}" in err and "lucky.toml" in err and "carries" in err
    code, out, err = _check(str(where / "v.csv"), "--paytables", str(tmp_path / "none.toml"))
    assert code == 2 and err.count("\n") == 1


@pytest.mark.parametrize("change", ["pays", "cut", "sha", "name"])
def test_a_carried_file_that_was_changed_is_refused_in_one_line(own: tuple[Path, Path], tmp_path: Path,
                                                                change: str) -> None:
    where, _ = own
    note, rows = _note_and_rows(where / "v.csv")
    if change == "pays":                                           # the rules changed, its digest not
        note = [ln.replace("%2210 to 1%22", "%2212 to 1%22") for ln in note]
    elif change == "cut":                                          # a line of the file lost
        note = [ln for ln in note if "other_tie" not in ln or "pays" in ln]
    elif change == "name":                                         # a name that would turn a terminal's text around
        note = [ln.replace("name=lucky.toml", "name=lucky\u202e.toml") for ln in note]
    else:
        note = [re.sub("sha256=(.)", lambda m: "sha256=" + ("0" if m[1] != "0" else "1"), ln) for ln in note]
    changed = _write(tmp_path / "changed.csv", note, rows)
    code, out, err = _check(str(changed))
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"exactodds: error: {changed}: ") and "lucky" in err and "\u202e" not in err
    assert changed.read_text(encoding="utf-8") != (where / "v.csv").read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_older_file_without_its_wagers_file_names_paytables_and_reads_with_it(own: tuple[Path, Path],
                                                                               tmp_path: Path) -> None:
    where, bet = own
    _, rows = _note_and_rows(where / "v.csv")
    older = _write(tmp_path / "older.csv", [], rows)               # as certificate --validation wrote it before
    code, out, err = _check(str(older))
    assert code == 2 and err.count("\n") == 1 and "'lucky-tie:A': no such wager:paytable" in err
    assert "--paytables" in err
    assert _check(str(older), "--paytables", str(bet)) == _check(str(where / "v.csv"))


@pytest.mark.slow
def test_verify_reads_back_the_rounds_of_a_file_with_a_note(own: tuple[Path, Path]) -> None:
    where, _ = own
    for name in ("v.csv", "v.parquet"):
        code, out, _ = run("verify", str(where / f"{name}.json"), "--validation", str(where / name))
        assert code == 0 and "339,4" in out
