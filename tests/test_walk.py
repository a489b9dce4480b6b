"""The recursive walk (exactodds.walk): a second route for every wager, against the tables.

The walk counts rounds card by card over the classes of cards each wager tells apart and settles
each round with the wager's own conditions; it shares no counting code with the multiset tables.
Here it must give the same count for every outcome of every wager: the whole catalogue (every
paytable and alternative reading) and the example files, on small depleted shoes with unequal
suits, on 6 and 8 full decks and on depleted 8-deck shoes. The example bets that read the suits
of third cards or of the Banker's three cards take the walk many minutes on a deck or more (it
carries every card's value and suit until then): they are compared with the tables and with the
brute force over card identities (tests/brute.py) on small shoes instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from exactodds import ExactOddsError, Shoe, deal, load_catalogue, load_file, price
from exactodds.analysis import analyze
from exactodds.walk import WalkDistribution
from exactodds.wagers import Wager

from . import brute
from .test_cli import run

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"


def readings(catalogue: dict) -> list[Wager]:
    """Every wager of ``catalogue`` under each of its readings."""
    return [r for w in catalogue.values() for r in (w, *(w.with_alternative(a) for a in w.alternatives))]


def assert_routes_agree(shoe: Shoe, wagers: list[Wager]) -> None:
    tables, walked = deal(shoe), WalkDistribution(shoe)
    walked.prepare(wagers)
    for w in wagers:
        for t in w.paytables.values():
            want, got = price(w, t, tables), price(w, t, walked)
            assert got.lines == want.lines, (w.id, w.reading_id, t.id)


CATALOGUE = readings(dict(load_catalogue()))
LIGHT = readings(dict(load_file(EXAMPLES / "side-bets.toml")))
NEW = readings(dict(load_file(EXAMPLES / "new-bets.toml")))
#: Bets the walk takes minutes over on a deck or more (the suits of third cards, or of the Banker's
#: three cards: every card before them is walked by value and suit): checked on small shoes only.
SLOW = {"third-card-suits", "suited-dragon-7", "three-red-sevens", "banker-three-card-poker", "suited-dragon-panda"}

#: Small shoes with unequal suits, pairs, nines, Kings and Queens, one suit and colour heavy.
SMALL = {
    "one deck less Kh 7d 2s 9h Qc As": Shoe.decks(1).remove("Kh", "7d", "2s", "9h", "Qc", "As"),
    "lopsided 20 cards": Shoe.from_card_counts({"9s": 3, "9d": 1, "Ks": 2, "Kh": 1, "Qs": 2, "Qh": 1, "7h": 2,
                                                "7d": 1, "As": 2, "8c": 2, "3s": 2, "5c": 1}),
}


@pytest.mark.parametrize("name", SMALL)
def test_walk_equals_tables_for_every_wager_on_small_depleted_shoes(name: str) -> None:
    """The example files on the lopsided shoe (the one deck: the catalogue; the example files are
    compared on a depleted 8-deck shoe below)."""
    shoe = SMALL[name]
    assert_routes_agree(shoe, CATALOGUE + (LIGHT + NEW if shoe.size < 30 else []))


@pytest.mark.parametrize("shoe", [Shoe.decks(6), Shoe.decks(8)], ids=["6 decks", "8 decks"])
def test_walk_equals_tables_for_the_whole_catalogue_on_full_shoes(shoe: Shoe) -> None:
    """About 20 s a shoe."""
    assert_routes_agree(shoe, CATALOGUE)


def test_walk_equals_tables_for_the_example_files_on_a_depleted_8_deck_shoe() -> None:
    """About 30 s; the bet of SLOW is checked on a small shoe above."""
    shoe = Shoe.decks(8).remove("Kh", "7d", "7d", "2s", "9s", "9s", "Qh")
    assert_routes_agree(shoe, [w for w in LIGHT + NEW if w.id not in SLOW])


#: Small shoes on which the slow bets of side-bets.toml happen (the suits of three Banker cards).
HEAVY_SHOES = {
    "sevens, A-2-3 and Q-K-A": {"7s": 2, "7h": 2, "Kc": 2, "Ad": 1, "2s": 1, "3h": 1, "Qd": 1},
    "red and black sevens": {"7h": 2, "7d": 2, "7s": 1, "Kc": 2, "Ks": 1, "3d": 1},
    "a spade flush": {"Qs": 2, "Ks": 1, "As": 2, "2s": 1, "3s": 1, "Kh": 1, "9d": 1},
    "a suited Panda 8": {"8d": 2, "Kd": 1, "Jd": 2, "Qc": 1, "7d": 2, "9s": 1},
}


@pytest.mark.parametrize("name", HEAVY_SHOES)
def test_walk_equals_brute_force_for_the_slow_examples(name: str) -> None:
    shoe = Shoe.from_card_counts(HEAVY_SHOES[name], label=name)
    pairs = [(w, t) for w in LIGHT if w.id in SLOW for t in w.paytables]
    assert len(pairs) == len(SLOW) - 1
    want = brute.settle_all(shoe, pairs)
    walked = WalkDistribution(shoe)
    hits = 0
    for w, t in pairs:
        got = {ln.id: ln.combinations for ln in price(w, w.paytables[t], walked).lines}
        expected = want[(w.id, t)]
        assert got.pop("lose") == expected.pop(None, 0), (w.id, t)
        assert {k: v for k, v in got.items() if v} == dict(expected), (w.id, t)
        hits += sum(got.values())
    assert hits > 0                                     # some bet wins on this shoe: not vacuous


def test_analyze_all_by_the_walk_equals_the_tables_on_a_depleted_shoe() -> None:
    """`analyze --all --route walk` prints what `analyze --all` prints (about 40 s)."""
    args = ["analyze", "--all", "--decks", "8", "--remove", "Kh,7d,7d,2s,9s", "--format", "json"]
    code_v, vec, _ = run(*args)
    code_w, wlk, err = run(*args, "--route", "walk")
    assert code_v == code_w == 0, err
    a, b = json.loads(vec), json.loads(wlk)
    assert a.pop("route") == "vector" and b.pop("route") == "walk"
    assert a == b and len(a["wagers"]) == sum(len(w.paytables) for w in load_catalogue().values())


def test_walk_refuses_a_suit_wager_on_a_shoe_whose_suits_are_unknown() -> None:
    """A rank removed without its suit: the suits of the shoe are unknown, in one line, exit 2."""
    code, out, err = run("analyze", "--wager", "house-money", "--route", "walk", "--decks", "1", "--remove", "9")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "wager 'house-money'" in err and "reads suits, but the shoe's suits are unknown" in err


def test_walk_prices_a_rank_wager_on_a_shoe_whose_suits_are_unknown() -> None:
    shoe = Shoe.decks(1).remove("9", "K", "K")
    bets = [w for w in NEW if w.id == "four-card-poker"]
    assert_routes_agree(shoe, bets)


def test_walk_settles_a_clash_of_exclusive_outcomes_as_an_error(tmp_path: Path) -> None:
    """A guard, not a finding: the walk no longer reaches the tables' check of exclusive outcomes,
    so it must refuse the clash itself (Wager.settle_row) rather than settle the round as one."""
    path = tmp_path / "clash.toml"
    path.write_text('''[[wager]]
id = "clash"
name = "Two outcomes that meet"
section = "example"
  [[wager.outcome]]
  id = "a"
  name = "a pair"
  when = "player_pair != 'none'"
  [[wager.outcome]]
  id = "b"
  name = "a suited pair"
  when = "player_pair == 'perfect'"
  [[wager.paytable]]
  id = "A"
  pays = { a = "1 to 1", b = "2 to 1" }
''', encoding="utf-8")
    with pytest.raises(ExactOddsError, match="outcomes 'a' and 'b' both hold on one round"):
        analyze(Shoe.decks(2), wagers=["clash"], catalogue=load_file(path), route="walk")
