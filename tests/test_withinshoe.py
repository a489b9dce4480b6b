"""Issue 25, item 3: the within-shoe tests (a shoe column), each fault caught by the test named for it."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np

from exactodds import analyze
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.simulation.checksim import _main_game_chances
from exactodds.simulation.simulate import simulate_chunks, write_records
from exactodds.simulation.withinshoe import Carry, WithinShoe, tally_within

from .test_cli import run


def _cards(*rounds: tuple[str, ...]) -> np.ndarray:
    """Rounds given as Player 1-3, Banker 1-3 ('' for no third card)."""
    return np.array([[Card.parse(c).index if c else -1 for c in r] for r in rounds], dtype=np.int16)


def test_the_chances_are_the_cards_left_in_the_shoe_worked_out_by_hand() -> None:
    """One natural, dealt K♠ 2♦ 9♥ 3♣ from 8 decks: each card after the first is guessed to be of the previous
    card's rank, and to be of its colour, with the chance the cards left give (Fractions written out here)."""
    w, carry = WithinShoe(), Carry()
    tally_within(w, carry, _cards(("Ks", "9h", "", "2d", "3c", "")), np.array(["a"]), 8, _main_game_chances)
    rank = [Fraction(31, 415), Fraction(31, 414), Fraction(31, 413)]          # K then 2 then 9: one of each seen
    colour = [(Fraction(207, 415), 0), (Fraction(207, 414), 1), (Fraction(206, 413), 0)]
    guess, runs = w.sums["card guessing"], w.sums["runs"]
    assert guess[0] == float(-sum(rank)) and guess[3] == 3 and guess[2] == 0
    assert math.isclose(guess[1], float(sum(c * (1 - c) for c in rank)), rel_tol=1e-15)
    assert math.isclose(runs[0], float(sum(h - c for c, h in colour)), rel_tol=1e-14) and runs[2] == 1
    assert w.shoes == 1 and "serial correlation" not in w.sums            # one round: no round before it


def test_the_main_games_chances_are_analyzes_on_the_cards_left() -> None:
    shoes = [Shoe.decks(8).remove(*"AAAA55559999"), Shoe.decks(6).remove(*"KKQQJJTT2233")]
    values = np.array([s.value_counts for s in shoes])
    got = _main_game_chances(values)
    for shoe, row in zip(shoes, got):
        main = analyze(shoe, wagers=["banker", "player", "tie"])
        exact = {r.wager.id: {ln.id: ln.probability for ln in r.lines} for r in main}
        want = (exact["banker"]["banker_wins"], exact["player"]["player_wins"], exact["tie"]["tie"])
        assert all(abs(g - float(x)) < 1e-15 for g, x in zip(row, want))


def test_a_file_read_in_pieces_gives_the_sums_read_whole() -> None:
    """A shoe carried across chunks: the same sums however the rounds are cut."""
    part = next(simulate_chunks(decks=8, rounds=3000, seed=5, mode="shoe"))
    cards = np.concatenate([part.player, part.banker], axis=1)[:3000]
    ids = part.shoe_number[:3000].astype(str)
    whole, carry = WithinShoe(), Carry()
    tally_within(whole, carry, cards, ids, 8, _main_game_chances)
    pieces, carry = WithinShoe(), Carry()
    cuts = [0, 1, 2, 77, 78, 500, 1999, 3000]
    for a, b in zip(cuts, cuts[1:]):
        tally_within(pieces, carry, cards[a:b], ids[a:b], 8, _main_game_chances)
    assert pieces.shoes == whole.shoes >= 30
    for name, row in whole.sums.items():
        assert pieces.sums[name][2:] == row[2:] and all(math.isclose(x, y, abs_tol=1e-9) for x, y in
                                                        zip(pieces.sums[name][:2], row[:2])), name


def _within(path: Path, *extra: str) -> dict[str, dict]:
    code, out, err = run("check-sim", str(path), "--wager", "banker", "--verbose", "--format", "json", *extra)
    assert code in (0, 1), err
    return {t["test"]: t for t in json.loads(out)["tests"] if t["wager"] == "shoes"}


def test_a_riffled_shoe_is_caught_by_card_guessing_and_a_shuffled_one_is_not(tmp_path: Path) -> None:
    """Nine riffles of a shoe assembled card by card (``--fault riffle:9``) leave neighbouring cards together:
    card guessing flags it; the same size of a true shoe simulator, in CSV and JSON Lines, flags nothing."""
    riffled, true_csv, true_jsonl = tmp_path / "r.csv", tmp_path / "t.csv", tmp_path / "t.jsonl"
    for path, faults in ((riffled, ["--fault", "riffle:9"]), (true_csv, []), (true_jsonl, [])):
        code, _, err = run("simulate", "--rounds", "30000", "--seed", "8", "--shoe-column", "--output", str(path),
                           "--quiet", *faults)
        assert code == 0, err
    caught = _within(riffled)
    assert caught["card guessing"]["flagged"] and caught["card guessing"]["statistic"] > 4
    assert "cards of the previous card's rank against" in caught["card guessing"]["detail"]
    assert caught["card guessing"]["detail"].startswith("cards of the same rank come together more often than a "
                                                        "random shuffle allows (neighbouring cards stay together); ")
    calm = _within(true_csv)
    assert set(calm) == {"card guessing", "runs", "serial correlation"} and not any(t["flagged"] for t in calm.values())
    assert _within(true_jsonl) == calm                                 # the same rounds read from JSON Lines


def test_shoe_ids_are_checked(tmp_path: Path) -> None:
    code, _, err = run("simulate", "--rounds", "100", "--mode", "fresh", "--shoe-column", "--output",
                       str(tmp_path / "x.csv"))
    assert code == 2 and "--shoe-column numbers real shoes" in err
    code, _, err = run("simulate", "--rounds", "100", "--fault", "riffle:0", "--output", str(tmp_path / "x.csv"))
    assert code == 2 and "riffle:K with K riffles from 1 to 20" in err
    rounds = next(simulate_chunks(decks=8, rounds=200, seed=1, mode="shoe"))
    path = tmp_path / "all.csv"
    write_records(rounds, str(path), shoe=True)
    lines = path.read_text().splitlines()
    middle = next(i for i in range(2, len(lines)) if lines[i].rsplit(",", 1)[1] == lines[i - 1].rsplit(",", 1)[1]
                  and i > 40)
    (tmp_path / "a.csv").write_text("\n".join(lines[:middle]) + "\n")
    (tmp_path / "b.csv").write_text("\n".join([lines[0]] + lines[middle:]) + "\n")
    code, _, err = run("check-sim", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--wager", "tie")
    assert code == 2 and "is split between files" in err and err.count("\n") == 1


def test_a_shoe_id_covering_more_cards_than_a_shoe_or_left_empty_is_refused(tmp_path: Path) -> None:
    """From an audit: two real shoes under one id gave NaN and 'OK'; now one line naming the shoe."""
    rounds = next(simulate_chunks(decks=8, rounds=400, seed=2, mode="shoe"))
    path = tmp_path / "r.csv"
    write_records(rounds, str(path), shoe=True)
    lines = path.read_text().splitlines()
    same = [lines[0]] + [line.rsplit(",", 1)[0] + ",one" for line in lines[1:]]      # every round: shoe 'one'
    (tmp_path / "one.csv").write_text("\n".join(same) + "\n")
    code, out, err = run("check-sim", str(tmp_path / "one.csv"), "--wager", "tie")
    assert code == 2 and out == "" and "shoe 'one' deals" in err and "more often than an 8-deck shoe" in err
    assert err.count("\n") == 1
    empty = [lines[0]] + [line.rsplit(",", 1)[0] + "," for line in lines[1:]]
    (tmp_path / "empty.csv").write_text("\n".join(empty) + "\n")
    code, _, err = run("check-sim", str(tmp_path / "empty.csv"), "--wager", "tie")
    assert code == 2 and "an empty id" in err


def test_riffles_go_with_real_shoes_one_fault_a_run(tmp_path: Path) -> None:
    out = str(tmp_path / "x.csv")
    code, _, err = run("simulate", "--rounds", "100", "--mode", "fresh", "--fault", "riffle:3", "--output", out)
    assert code == 2 and "goes with --mode shoe" in err
    code, _, err = run("simulate", "--rounds", "100", "--fault", "riffle:3", "--fault", "riffle:5", "--output", out)
    assert code == 2 and "one riffle fault a run" in err
