"""Cards compared with each other, read together (exactodds.engine.walk, ``_Joint``).

A bet that compares the ranks or suits of several positions is walked with each group of comparisons
that share a feature read as one: the cards at its positions until the last, then only the truths of
its comparisons. Held here against the brute force over every deal of small shoes (by the compiled and
the pure walk), and at 8 decks against a count written for one bet alone: its six cards are forced in
pairs, so it runs over the 52^4 choices left, the drawing rules read straight from §627a.10.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
from collections import Counter

import numpy as np
import pytest

from exactodds import Shoe, price
from exactodds.engine import native
from exactodds.engine.walk import WalkDistribution, _Joint, _joint_groups, _wager_trackers
from exactodds.errors import TooLarge
from exactodds.game.rules import banker_draws, is_natural, player_draws
from exactodds.wagers.catalogue import Wager, read_text

from . import brute

#: Six positions, their ranks and suits compared in pairs (also tests/test_bounds.py).
SIX = ("player_rank_1 == banker_rank_2 and player_suit_1 == banker_suit_2 and player_rank_2 + banker_rank_3 == 14 "
       "and player_suit_3 != banker_suit_1 and player_rank_3 > banker_rank_1 and player_suit_2 == banker_suit_3")

#: Conditions that compare cards, each beside a second outcome that reads the same cards otherwise.
CONDITIONS = {
    "rank and suit of two positions": "player_rank_1 == banker_rank_2 and player_suit_1 == banker_suit_2",
    "a third card's rank against a first's": "player_rank_2 + banker_rank_3 == 14 or banker_suit_3 == player_suit_2",
    "both third cards, missing ones equal": "player_rank_3 == banker_rank_3",
    "a chain over three positions": "player_rank_1 < banker_rank_1 < player_rank_2",
    "a named suit beside a compared one": "banker_suit_3 in (player_suit_1, 'h') and player_suit_1 != 'c'",
    "a list parameter": "player_rank_1 + banker_rank_1 in sums and player_wins",
    "six positions in pairs": SIX,
    "third cards alike beside a perfect pair": "player_pair == 'perfect' and banker_suit_3 == player_suit_3 and "
                                              "banker_rank_3 == player_rank_3 and banker_suit_1 == 'h'",
}
SIX_NAME = "six positions in pairs"

#: Small shoes: ranks and suits repeated, one with as many cards of each rank in every suit (renamed).
SMALL = {
    "two ranks, four suits": {f"{r}{s}": 1 for r in "AK" for s in "shdc"},
    "mixed": {"Ah": 2, "3d": 1, "9s": 1, "5s": 2, "Kh": 1, "Qc": 1},      # SIX holds on A 3 9 A 5 5
}


def wager(when: str) -> Wager:
    text = ("[[wager]]\nid = \"bet\"\nname = \"Bet\"\nsection = \"test\"\nparameters = { sums = [10, 14, 20] }\n"
            f"  [[wager.outcome]]\n  id = \"win\"\n  name = \"Win\"\n  when = {json.dumps(when)}\n"
            "  [[wager.outcome]]\n  id = \"also\"\n  name = \"Also\"\n"
            f"  when = {json.dumps('banker_wins and not (' + when + ')')}\n"
            "  [[wager.paytable]]\n  id = \"A\"\n  pays = { win = \"30 to 1\", also = \"1 to 1\" }\n")
    return read_text(text, source="joint.toml")["bet"]


def test_comparisons_fall_into_groups_by_the_features_they_share() -> None:
    groups = _joint_groups(wager(SIX))
    assert [g.names for g in groups] == [("banker_rank_1", "player_rank_3"), ("banker_rank_2", "player_rank_1"),
                                         ("banker_rank_3", "player_rank_2"), ("banker_suit_1", "player_suit_3"),
                                         ("banker_suit_2", "player_suit_1"), ("banker_suit_3", "player_suit_2")]
    (chain,) = _joint_groups(wager(CONDITIONS["a chain over three positions"]))
    assert chain.names == ("banker_rank_1", "player_rank_1", "player_rank_2")
    trackers = _wager_trackers(wager(SIX))
    assert all(isinstance(t, _Joint) for t in trackers)          # no position read on its own


@pytest.mark.parametrize("when", [
    "player_rank_1 == player",                     # a rank against a total: read card by card
    "player_rank_1 == 13 and player_suit_1 == 'h' or banker_natural and banker_suit_1 == 'h'",  # one position each
    " and ".join(f"{h}_{a}_1 == {h}_{a}_2 == {h}_{a}_3 == {o}_{a}_1" for h, o in (("player", "banker"),
                 ("banker", "player")) for a in ("rank", "suit")),          # one group of 13^6 4^6 assignments
])
def test_no_group_where_a_card_is_read_otherwise_alone_or_past_the_table(when: str) -> None:
    assert _joint_groups(wager(when)) == ()


@pytest.mark.parametrize("route", ["compiled", "pure"])
@pytest.mark.parametrize("shoe_name", SMALL)
def test_small_shoes_equal_the_brute_force(shoe_name: str, route: str) -> None:
    if route == "compiled" and native.kernels() is None:
        pytest.skip("the compiled core is not built")
    shoe = Shoe.from_card_counts(SMALL[shoe_name], label=shoe_name)
    bets = {name: wager(when) for name, when in CONDITIONS.items()}
    want = _brute(shoe_name)
    won = 0
    with native.pure() if route == "pure" else contextlib.nullcontext():
        walked = WalkDistribution(shoe)
        for name, w in bets.items():
            got = {ln.id: ln.combinations for ln in price(w, w.paytables["A"], walked).lines}
            expected = copy.deepcopy(want[name])
            assert got.pop("lose", 0) == expected.pop(None, 0), name
            assert {k: v for k, v in got.items() if v} == dict(expected), name
            won += got.get("win", 0)
    assert won > 0                                 # some comparison holds on this shoe: not vacuous


@functools.cache
def _brute(shoe_name: str) -> dict[str, Counter[str | None]]:
    shoe = Shoe.from_card_counts(SMALL[shoe_name], label=shoe_name)
    return {name: brute.settle_all(shoe, [(wager(when), "A")])[("bet", "A")] for name, when in CONDITIONS.items()}


def _six_by_hand(shoe: Shoe) -> tuple[int, int]:
    """The sequences on which SIX holds, and those of them the Player wins: written for this bet alone.
    It holds only on rounds of six cards; B2 is P1's identity, B3 the rank 14 − P2's in P2's suit, and P3
    a higher rank than B1's in another suit: what is left to choose is P1, P2, B1 and P3."""
    assert shoe.card_counts is not None
    n = np.array(shoe.card_counts, dtype=np.int64)
    card = np.arange(52)
    rank, suit = card // 4 + 1, card % 4                      # Card.index: (rank − 1) · 4 + suit (s h d c)
    value = np.where(rank >= 10, 0, rank)
    six = np.zeros((10, 10, 10), dtype=bool)                  # [player total, banker total, player's third]
    for pt in range(10):
        for bt in range(10):
            if not (is_natural(pt) or is_natural(bt)) and player_draws(pt):
                six[pt, bt] = [banker_draws(bt, third) for third in range(10)]
    p2, b1, p3 = (a.ravel() for a in np.meshgrid(card, card, card, indexing="ij"))
    keep = (suit[p3] != suit[b1]) & (rank[p3] > rank[b1])
    p2, b1, p3 = p2[keep], b1[keep], p3[keep]
    b3 = (13 - rank[p2]) * 4 + suit[p2]
    holds = wins = 0
    for p1 in range(52):
        cards = np.stack([np.full_like(p2, p1), b1, p2, np.full_like(p2, p1), p3, b3])   # P1 B1 P2 B2 P3 B3
        pt, bt = (value[cards[0]] + value[cards[2]]) % 10, (value[cards[1]] + value[cards[3]]) % 10
        dealt = six[pt, bt, value[cards[4]]]
        ordered = np.sort(cards, axis=0)                      # the ways: per identity, a falling factorial
        ways = np.ones(cards.shape[1], dtype=np.int64)
        for k in range(6):
            ways *= np.maximum(n[ordered[k]] - (ordered[:k] == ordered[k]).sum(axis=0), 0)
        player_wins = (pt + value[cards[4]]) % 10 > (bt + value[cards[5]]) % 10
        holds += int(ways[dealt].sum())
        wins += int(ways[dealt & player_wins].sum())
    return holds, wins


@pytest.mark.slow
def test_six_positions_compared_in_pairs_at_8_decks_equal_a_count_written_for_them() -> None:
    w = wager(SIX)
    shoe = Shoe.decks(8)
    if native.kernels() is None:                   # the pure walk keeps at most 400,000 states: refused, one line
        with pytest.raises(TooLarge, match=r"\(the pure route, .*\): refused; .* compiled core"):
            WalkDistribution(shoe).outcome_counts(w, w.paytables["A"])
        return
    got = {ln.id: ln.combinations for ln in price(w, w.paytables["A"], WalkDistribution(shoe)).lines}
    holds, _ = _six_by_hand(shoe)
    assert got["win"] == holds == 167_210_050_560
    assert sum(got.values()) == shoe.sequences


def test_the_count_written_for_six_positions_equals_the_brute_force_on_a_small_shoe() -> None:
    shoe = Shoe.from_card_counts(SMALL["mixed"], label="mixed")
    holds, _ = _six_by_hand(shoe)
    assert _brute("mixed")[SIX_NAME]["win"] == holds > 0
