"""Issue 25, item 2: the validation data file (``certificate --validation``) and ``check-sim --validation``."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from exactodds import load_catalogue
from exactodds.analyses.pricing import price
from exactodds.engine import deal
from exactodds.game.cards import Card
from exactodds.game.rules import play
from exactodds.game.shoe import Shoe
from exactodds.simulation.roundclasses import _dealable, decode_digits, value_codes
from exactodds.simulation.validation import validation_rounds

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
