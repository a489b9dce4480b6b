"""The walk over bets that read the suits of many cards one by one (exactodds.engine.walk).

Two things let the walk price such a bet, written card by card, in seconds at 8 decks, where the
tables would need 14 to 80 GB:

* a suit that the conditions read only against suits they name (``player_suit_1 in ('h', 'd')``),
  never against another card's, is read as its block of suits no name tells apart (red or black),
  and suits compared with each other are read together, only the truths of the comparisons kept once
  their cards are dealt (tests/test_walk_joint.py);
* where the shoe holds as many cards of each rank in two suits, and no wager names one of them
  apart, the walk carries a state and the state with those suits renamed as one.

Both are held here against the brute force over every deal of small shoes (with equal suits, so
that the renaming is used, and with unequal ones), by the compiled and the pure walk, and against
the tables at 8 decks: the same bet written with an every-card feature, or a bet the tables can
still price.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import re
from collections import Counter
from pathlib import Path

import pytest

from exactodds import Shoe, deal, load_catalogue, price
from exactodds.engine import native, walk
from exactodds.engine.walk import WalkDistribution, _Joint, _symmetries, _Walk, _wager_trackers
from exactodds.errors import TooLarge
from exactodds.wagers.catalogue import Wager, read_file, read_text
from exactodds.wagers.conditions import Condition

from . import brute
from .test_cli import run

BETS_FILE = Path(__file__).parent / "suit-bets.toml"
BETS = read_file(BETS_FILE)
#: The wagers and paytables of the catalogue that read suits (nines' letters, a King-Nine's, pairs' colours:
#: renamed too).
CATALOGUE = [(w, t) for w in load_catalogue().values() for t in w.paytables
             if any(re.search("pair|suit|nine|king|royal|same_|colour", f) for f in w.features)]


def combinations(wager_id: str, counts: object) -> dict[str, int]:
    w = BETS[wager_id]
    return {ln.id: ln.combinations for ln in price(w, w.paytables["A"], counts).lines}  # type: ignore[arg-type]


@pytest.mark.parametrize("text, joined", [
    ("player_suit_1 in ('h', 'd') and banker_suit_2 == 's'", set()),
    ("player_suit_1 == banker_suit_1", {"player_suit_1", "banker_suit_1"}),
    ("player_suit_3 in (player_suit_1, '') and banker_suit_3 != 'c'", {"player_suit_1", "player_suit_3"}),
    ("player_suit_1 != 'h' and player_suit_2 == player_suit_1 == banker_suit_2",
     {"player_suit_1", "player_suit_2", "banker_suit_2"}),
])
def test_a_condition_knows_which_features_it_compares_with_another(text: str, joined: set[str]) -> None:
    assert Condition.parse(text, where="a test").joined == joined


def test_a_suit_named_only_is_read_by_its_block_and_suits_read_together_by_their_group() -> None:
    # the cards one by one (the walk by point values, and a walk card by card past its limit)
    told = {t.hand + str(t.k): getattr(t, "told", None) for t in _wager_trackers(BETS["contrast"], joint=False)}
    assert set(told.values()) == {"hd|sc"}                   # red and black: six positions, 2 blocks each
    # by group: a part of the conditions that reads suits and nothing else, and the parts that share a suit
    (contrast,) = _wager_trackers(BETS["contrast"])
    assert isinstance(contrast, _Joint) and len(contrast.names) == 6 and len(contrast.atoms) == 2   # six, fewer
    assert all(isinstance(t, _Joint) for t in _wager_trackers(BETS["one-suit-compared"]))
    mirror = {t.names for t in _wager_trackers(BETS["mirror"]) if isinstance(t, _Joint)}
    assert mirror == {("banker_suit_1", "banker_suit_2", "player_suit_1", "player_suit_2")}
    # a suit beside another feature of the round within one 'and': its own part, one position, read as a card
    alone = read_text("[[wager]]\nid = \"x\"\nname = \"x\"\nsection = \"test\"\n  [[wager.outcome]]\n  id = \"x\"\n"
                      "  name = \"x\"\n  when = \"player_natural and player_suit_1 in ('h', 'd') or banker_cards == 3 "
                      "and banker_suit_3 == 's'\"\n  [[wager.paytable]]\n  id = \"A\"\n  pays = { x = \"2 to 1\" }\n",
                      source="t.toml")["x"]
    assert {(t.hand, t.k, t.told) for t in _wager_trackers(alone)} == {("player", 0, "c|hd|s"), ("banker", 2, "c|hd|s")}


def test_the_renamings_keep_the_suits_the_wagers_name_and_the_shoes_counts() -> None:
    def renamings(wager_id: str, shoe: Shoe) -> int:
        w = BETS[wager_id]
        return len(_symmetries(_Walk(_wager_trackers(w), [w]), shoe))
    full = Shoe.decks(8)
    assert renamings("one-suit-compared", full) == 23                        # every renaming but the identity
    assert renamings("royal-echo", full) == 23
    assert renamings("mirror", full) == 1                                     # hearts named, a coloured pair: s <-> c
    assert renamings("one-suit-compared", full.remove("Ah")) == 5             # the other three suits only
    assert renamings("one-suit-compared", full.remove("Ah", "As")) == 3       # h <-> s, d <-> c, both
    assert renamings("one-suit-compared", full.remove("Ah", "2d", "3s")) == 0


#: Small shoes, the first three with as many cards of each rank in every suit (the renaming is used).
SMALL = {
    "Kings and Queens": {f"{r}{s}": 1 for r in "KQ" for s in "shdc"},
    "threes and Kings": {f"{r}{s}": 1 for r in "3K" for s in "shdc"},
    "nines and Kings": {f"{r}{s}": 1 for r in "9K" for s in "shdc"},
    "unequal suits": {"Kh": 2, "Qh": 1, "Kc": 1, "Qs": 1, "7d": 1, "3h": 1, "3s": 1, "9d": 1},
}


@pytest.mark.parametrize("route", ["compiled", "pure"])
@pytest.mark.parametrize("name", SMALL)
def test_tiny_shoes_every_bet_equals_the_brute_force(name: str, route: str) -> None:
    if route == "compiled" and native.kernels() is None:
        pytest.skip("the compiled core is not built")
    shoe = Shoe.from_card_counts(SMALL[name], label=name)
    pairs = _pairs(name)
    want = copy.deepcopy(_brute(name))
    hits = 0
    with native.pure() if route == "pure" else _nothing():
        walked = WalkDistribution(shoe)
        for w, t in pairs:
            got = {ln.id: ln.combinations for ln in price(w, w.paytables[t], walked).lines}
            expected = want[(w.id, t)]
            assert got.pop("lose", 0) == expected.pop(None, 0), (w.id, t)
            assert {k: v for k, v in got.items() if v} == dict(expected), (w.id, t)
            hits += sum(got.values())
    assert hits > 0                                       # some bet wins on this shoe: not vacuous


def _pairs(name: str) -> list[tuple[Wager, str]]:
    """The bets of tests/suit-bets.toml, and on the shoe with nines and Kings the catalogue's that read suits."""
    return [(BETS[w], "A") for w in BETS] + (CATALOGUE if name == "nines and Kings" else [])


@functools.cache
def _brute(name: str) -> dict[tuple[str, str], Counter[str | None]]:
    return brute.settle_all(Shoe.from_card_counts(SMALL[name], label=name), _pairs(name))


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.mark.parametrize("shoe", [Shoe.decks(8), Shoe.decks(8).remove("Ah", "Kh", "Qd", "Jd", "9d", "7h", "2s")],
                         ids=["8 decks", "8 decks, reds removed"])
def test_every_card_one_colour_named_card_by_card_equals_same_colour(shoe: Shoe) -> None:
    walked = combinations("one-colour-named", WalkDistribution(shoe))
    assert walked == combinations("one-colour-every", deal(shoe))
    assert walked["one"] > 0


def test_every_card_one_suit_compared_card_by_card_equals_same_suit_at_8_decks() -> None:
    shoe = Shoe.decks(8)
    walked = combinations("one-suit-compared", WalkDistribution(shoe))
    assert walked == combinations("one-suit-every", deal(shoe))
    assert walked["one"] > 0


def test_every_card_one_suit_each_suit_named_equals_same_suit_at_8_decks() -> None:
    """Each suit named in turn: the walk proves that renaming the suits changes no condition, reads every suit
    as itself, and carries renamed states as one (it was refused at 667 MB); the number is same_suit's."""
    for shoe in (Shoe.decks(8), Shoe.decks(8).remove("As", "Ah", "Ad", "Ac", "7s", "7h", "7d", "7c")):
        walked = combinations("one-suit-named", WalkDistribution(shoe))
        assert walked == combinations("one-suit-every", deal(shoe))
        assert walked["one"] > 0


@pytest.mark.parametrize("wager_id, kept", [("one-suit-named", "shdc"), ("spades-or-hearts-named", "c|d|sh"),
                                            ("contrast", "hd|sc"), ("one-suit-compared", "shdc"),
                                            ("favourite", None), ("one-suit-every", None)])
def test_the_renamings_a_wager_keeps_are_proven_swap_by_swap(wager_id: str, kept: str | None) -> None:
    """The coarsest partition of the suits within whose blocks a swap changes no condition, proven on every
    combination of the values the conditions read; None where a feature besides suits and points is read."""
    assert walk._renamings_kept(BETS[wager_id]) == kept


def test_a_swap_that_changes_one_round_is_not_kept() -> None:
    """Spades and hearts named alike but for one total: the proof finds the round, and the swap is not kept."""
    text = ("[[wager]]\nid = 'x'\nname = 'x'\nsection = 'a test'\n  [[wager.outcome]]\n  id = 'a'\n  name = 'a'\n"
            "  when = \"(player_suit_1 == 's' and banker_suit_1 == 's') or (player_suit_1 == 'h' and "
            "banker_suit_1 == 'h' and player != 7)\"\n  [[wager.paytable]]\n  id = 'A'\n  pays = { a = '9 to 1' }\n")
    wager = read_text(text, source="x.toml")["x"]
    assert walk._renamings_kept(wager) == "dc|h|s"             # diamonds and clubs, never named, may swap


@pytest.mark.parametrize("wager_id", ["mirror", "royal-echo", "favourite"])
def test_bets_renamed_by_the_walk_equal_the_tables_at_8_decks(wager_id: str) -> None:
    shoe = Shoe.decks(8)
    walked = combinations(wager_id, WalkDistribution(shoe))
    assert walked == combinations(wager_id, deal(shoe))
    assert all(walked.values())


def test_contrast_is_priced_by_the_walk_by_default_with_one_line_saying_so() -> None:
    code, out, err = run("analyze", "--paytables", str(BETS_FILE), "--wager", "contrast", "--decks", "8")
    assert code == 0, err
    assert err.count("\n") == 1 and "contrast:A priced by the walk" in err
    assert "4,998,398,275,503,360" in out


@pytest.mark.skipif(native.kernels() is None, reason="the compiled walk's limit (the pure walk has its own)")
def test_a_walk_past_its_limit_on_a_shoe_of_unequal_suits_says_why_and_what_to_read() -> None:
    # read by group, the walk prices it on such a shoe (below); card by card, as the walk reads the cards of a
    # group past JOINT_ASSIGNMENTS, it would hold too many states
    w = BETS["one-suit-compared"]
    unequal = Shoe.decks(8).remove("Ah", "2h", "Kd", "5s", "9c", "9c")
    with pytest.raises(TooLarge) as refused:
        _Walk(_wager_trackers(w, joint=False), [w]).run(unequal, "wager 'one-suit-compared'")
    message = str(refused.value)
    assert "\n" not in message and "more than 4,000,000 states" in message
    assert "suits in unequal numbers" in message and "same_suit or same_colour" in message
    # what it suggests, the same event as the every-card feature: counted by the tables on that shoe
    tables = combinations("one-suit-every", deal(unequal))
    assert sum(tables.values()) == unequal.sequences and tables["one"] > 0


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_a_walk_past_its_automatons_limit_says_where_the_shoes_unequal_suits_rename_fewer(
        pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A shoe short of one five of spades renames only the other three suits (6 of the 24 renamings a full
    shoe allows), and the walk of a bet on six suits compared card by card tells 330 moves apart, not 210: at a
    limit between the two, the full shoe prices it and the short one is refused, saying why."""
    monkeypatch.setattr(walk, "AUTOMATON_MOVES_LIMIT", 250)
    w = BETS["one-suit-compared"]
    with native.pure() if pure else contextlib.nullcontext():
        full = price(w, w.paytable("A"), WalkDistribution(Shoe.decks(8)))
        with pytest.raises(TooLarge) as refused:
            price(w, w.paytable("A"), WalkDistribution(Shoe.decks(8).remove("5s")))
    assert sum(x.combinations for x in full.lines) == Shoe.decks(8).sequences
    message = str(refused.value)
    assert "\n" not in message and "more than 250 ways" in message
    assert message.endswith(" (this shoe holds its suits in unequal numbers, so the walk carries 6 renamings of the"
                            " suits as one, where it carries 24 on a full shoe; where same_suit or same_colour says"
                            " what the wager asks, read it instead: the tables count it on any shoe)")


@pytest.mark.parametrize("shoe", [Shoe.decks(8).remove("Ah", "2h", "Kd", "5s", "9c", "9c"),
                                  Shoe.decks(6).remove("Ah", "Ah", "Qs")], ids=["8 decks", "6 decks"])
def test_suits_compared_card_by_card_on_a_shoe_of_unequal_suits_equal_same_suit(shoe: Shoe) -> None:
    # nothing to rename on such a shoe: the six suits are read together, only what can still change their
    # comparisons kept (tests/test_walk_joint.py)
    walked = combinations("one-suit-compared", WalkDistribution(shoe))
    assert walked == combinations("one-suit-every", deal(shoe)) and walked["one"] > 0
