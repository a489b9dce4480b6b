"""Cards compared with each other, read together (exactodds.engine.walk, ``_Joint``).

A bet that compares the ranks or suits of several positions is walked with each group of comparisons
that share a feature read as one: the cards at its positions until the last, then only the truths of
its comparisons. Held here against the brute force over every deal of small shoes (by the compiled and
the pure walk), and at 8 decks against counts written apart from the engine: for one bet alone (its six
cards are forced in pairs, so it runs over the 52^4 choices left, the drawing rules read straight from
§627a.10), and for a bet that is a part on ranks and a part on suits (tests/factored.py: every rank sequence,
and per pattern of equal ranks the ways the suits fall).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import pickle
import warnings
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from exactodds import Shoe, analyze, price
from exactodds.analyses import door
from exactodds.analyses.door import WALK_FIRST_BYTES
from exactodds.analyses.pricing import table_bytes
from exactodds.engine import native, walk
from exactodds.engine.walk import WalkDistribution, _Joint, _joint_groups, _wager_trackers, reads_by_group
from exactodds.errors import ExactOddsError, ExactOddsWarning, TooLarge
from exactodds.game.rules import banker_draws, is_natural, player_draws
from exactodds.wagers.catalogue import Catalogue, Wager, read_file, read_text

from . import brute, factored
from .test_conditions import SHOES, deals, one_outcome, reference

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
    "six ranks added up": "player_rank_1 + banker_rank_1 + player_rank_2 + banker_rank_2 + player_rank_3 + "
                          "banker_rank_3 == 20 and player_suit_1 == banker_suit_3",
    "third cards alike beside a perfect pair": "player_pair == 'perfect' and banker_suit_3 == player_suit_3 and "
                                              "banker_rank_3 == player_rank_3 and banker_suit_1 == 'h'",
}
SIX_NAME = "six positions in pairs"
#: Three pairs of positions' ranks kept apart beside suits in two groups (also tests/test_bounds.py): its automaton
#: holds 703,913 moves at 8 decks. Its parts on ranks and on suits, for the count by rank and suit pattern.
APART = ("abs(player_rank_1 - banker_rank_3) + abs(banker_rank_1 - player_rank_3) == abs(player_rank_2 - "
         "banker_rank_2) + 3 and player_suit_1 in (banker_suit_1, banker_suit_3) and player_suit_2 not in "
         "(player_suit_3, banker_suit_2)")
CONDITIONS["three pairs of ranks apart beside suits"] = APART


def _apart_ranks(f: Mapping[str, np.ndarray]) -> np.ndarray:
    return (np.abs(f["player_rank_1"] - f["banker_rank_3"]) + np.abs(f["banker_rank_1"] - f["player_rank_3"])
            == np.abs(f["player_rank_2"] - f["banker_rank_2"]) + 3)


def _apart_suits(s: Mapping[str, str]) -> bool:
    return s["player_suit_1"] in (s["banker_suit_1"], s["banker_suit_3"]) and \
        s["player_suit_2"] not in (s["player_suit_3"], s["banker_suit_2"])


def _by_identity(shoe: Shoe) -> dict[tuple[int, str], int]:
    """The shoe's cards per (rank, suit): Card.index is (rank − 1) · 4 + the suit's place in s h d c."""
    assert shoe.card_counts is not None
    return {(i // 4 + 1, factored.SUITS[i % 4]): k for i, k in enumerate(shoe.card_counts)}

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
    again = pickle.loads(pickle.dumps(trackers))                 # made anew: the hash of this process's strings
    assert again == trackers and hash(again) == hash(trackers)


@pytest.mark.parametrize("when", [
    "player_rank_1 == player",                     # a rank against a total: read card by card
    "player_rank_1 == 13 and player_suit_1 == 'h' or banker_natural and banker_suit_1 == 'h'",  # one position each
])
def test_no_group_where_a_card_is_read_otherwise_or_alone(when: str) -> None:
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


def _walked_at_8_decks(when: str) -> dict[str, int] | None:
    """The walk's counts of :func:`wager` on 8 decks (their sum checked), or None by the pure route, whose walk
    keeps at most 400,000 states: there it is refused, in one line (checked)."""
    w = wager(when)
    shoe = Shoe.decks(8)
    if native.kernels() is None:
        with pytest.raises(TooLarge, match=r"\(the pure route, .*\): refused; .* compiled core"):
            WalkDistribution(shoe).outcome_counts(w, w.paytables["A"])
        return None
    got = {ln.id: ln.combinations for ln in price(w, w.paytables["A"], WalkDistribution(shoe)).lines}
    assert sum(got.values()) == shoe.sequences
    return got


@pytest.mark.slow
def test_six_positions_compared_in_pairs_at_8_decks_equal_a_count_written_for_them() -> None:
    got = _walked_at_8_decks(SIX)
    if got is not None:
        holds, _ = _six_by_hand(Shoe.decks(8))
        assert got["win"] == holds == 167_210_050_560


@pytest.mark.parametrize("shoe_name", SMALL)
def test_the_count_by_rank_and_suit_pattern_equals_the_brute_force_on_small_shoes(shoe_name: str) -> None:
    shoe = Shoe.from_card_counts(SMALL[shoe_name], label=shoe_name)
    got = factored.count(_by_identity(shoe), _apart_ranks, _apart_suits)
    assert got == _brute(shoe_name)["three pairs of ranks apart beside suits"]["win"]
    assert got > 0 or shoe_name == "two ranks, four suits"      # Aces and Kings: differences 0 or 12, never + 3
    assert factored.count(_by_identity(shoe), lambda f: np.array(True), lambda s: True) == shoe.sequences


@pytest.mark.slow
def test_three_pairs_of_ranks_apart_at_8_decks_equal_a_count_by_rank_and_suit_pattern() -> None:
    """Refused by both routes until the automaton's limit rose to 1,000,000 moves: priced by the walk in about 17 s."""
    got = _walked_at_8_decks(APART)
    if got is not None:
        assert got["win"] == factored.count(_by_identity(Shoe.decks(8)), _apart_ranks, _apart_suits) \
            == 52_904_510_224_896


#: The bets of tests/suit-bets.toml that keep the ranks apart beside the six suits in one group: the part added
#: to APART, the same part on a round's suits, and the sequences that win at 8 decks.
APART_SIX_SUITS = {
    "ranks-apart-three (1,593,660 moves)": (
        " and banker_suit_2 in (player_suit_1, banker_suit_3)",
        lambda s: s["banker_suit_2"] in (s["player_suit_1"], s["banker_suit_3"]), 17_082_939_815_424),
    "ranks-apart-four (1,938,296 moves)": (
        " and banker_suit_2 == banker_suit_3 and player_suit_1 != player_suit_3",
        lambda s: s["banker_suit_2"] == s["banker_suit_3"] and s["player_suit_1"] != s["player_suit_3"],
        7_279_229_253_120),
}


@pytest.mark.slow
@pytest.mark.parametrize("added, on_suits, wins", APART_SIX_SUITS.values(), ids=APART_SIX_SUITS.keys())
def test_ranks_apart_beside_the_six_suits_at_8_decks_equal_a_count_by_rank_and_suit_pattern(
        added: str, on_suits: Callable[[Mapping[str, str]], bool], wins: int) -> None:
    """Refused by both routes until the automaton's limit rose to 2,000,000 moves (the heaviest: about 12 s)."""
    got = _walked_at_8_decks(APART + added)
    if got is not None:
        assert got["win"] == factored.count(_by_identity(Shoe.decks(8)), _apart_ranks,
                                            lambda s: _apart_suits(s) and on_suits(s)) == wins


def test_the_count_written_for_six_positions_equals_the_brute_force_on_a_small_shoe() -> None:
    shoe = Shoe.from_card_counts(SMALL["mixed"], label="mixed")
    holds, _ = _six_by_hand(shoe)
    assert _brute("mixed")[SIX_NAME]["win"] == holds > 0


_POSITIONS = [f"{h}_{{}}_{k}" for h in ("player", "banker") for k in (1, 2, 3)]


@st.composite
def card_conditions(draw: st.DrawFn, depth: int = 3) -> str:
    """Random conditions over the ranks and suits of positions, compared with each other and with constants,
    joined by and/or/not, compared (== or !=, two or three of them) or one in a list of two, now and then beside
    a feature of the round (a part then reads it too)."""
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        a, b = (draw(st.sampled_from(_POSITIONS)) for _ in range(2))
        form = draw(st.sampled_from(["rank", "rank", "sum", "suit", "suit", "in", "round"]))
        if form == "rank":
            op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
            return f"{a.format('rank')} {op} {b.format('rank') if draw(st.booleans()) else draw(st.integers(-1, 13))}"
        if form == "sum":
            return f"{a.format('rank')} + {b.format('rank')} {draw(st.sampled_from(['==', '<', '>']))} " \
                   f"{draw(st.integers(2, 26))}"
        if form == "suit":
            other = b.format("suit") if draw(st.booleans()) else repr(draw(st.sampled_from(["s", "h", "d", "c", ""])))
            return f"{a.format('suit')} {draw(st.sampled_from(['==', '!=']))} {other}"
        if form == "in":
            return f"{a.format('suit')} in ({b.format('suit')}, {draw(st.sampled_from(['s', 'h', 'd', 'c', '']))!r})"
        return draw(st.sampled_from(["player_wins", "banker == 7", "player_cards == 3", f"{a.format('rank')} == player"]))
    sub = card_conditions(depth - 1)
    form = draw(st.sampled_from(["and", "or", "not", "==", "!=", "in"]))
    if form == "not":
        return f"not ({draw(sub)})"
    if form == "in":                                     # a yes/no part in a list of them
        return f"({draw(sub)}) {draw(st.sampled_from(['in', 'not in']))} ({draw(sub)}, {draw(sub)})"
    if form in ("==", "!="):                             # yes/no parts compared, chained or not: their truths decide it
        text = f"({draw(sub)}) {form} ({draw(sub)})"
        return text + f" {draw(st.sampled_from(['==', '!=']))} ({draw(sub)})" if draw(st.booleans()) else text
    return f" {form} ".join(f"({p})" for p in draw(st.lists(sub, min_size=2, max_size=3)))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(card_conditions())
def test_generated_conditions_on_ranks_and_suits_equal_the_brute_force(text: str) -> None:
    """Read by group where the walk forms groups (most of these), card by card elsewhere: compiled and pure,
    against the condition's text evaluated on every deal of two small shoes."""
    wager = one_outcome(text)
    python = reference(text)
    for k, cards in enumerate(SHOES):
        shoe = Shoe.from_card_counts(cards)
        rows, weights = deals(k)
        want = sum(w for row, w in zip(rows, weights) if python(row))
        routes = [contextlib.nullcontext(), native.pure()] if native.kernels() is not None else [native.pure()]
        for route in routes:
            with route:
                try:
                    got = WalkDistribution(shoe).outcome_counts(wager, wager.paytables["A"])
                except TooLarge:                   # read card by card (a rank beside a total): refused past its
                    assert not _joint_groups(wager)    # bound, in one line, even on a small shoe
                    assume(False)
            assert got.get(0, 0) == want, f"{text!r} on shoe {cards}"
            assert sum(got.values()) == shoe.sequences


def test_route_auto_walks_first_a_wager_read_by_group_whose_table_is_large() -> None:
    # Mirror's table takes about 1.5 GB to build (8 s); the walk, reading its four suits as one group, 150 MB
    bets = read_file(Path(__file__).parent / "suit-bets.toml")
    assert table_bytes(bets["mirror"]) > WALK_FIRST_BYTES and reads_by_group(bets["mirror"])
    with pytest.warns(ExactOddsWarning, match=r"^mirror:A priced by the walk \(.* together: the first card by its suit\): its table would take about 1\.5 GB to "
                                              r"build, the walk less"):
        result = analyze(Shoe.decks(8), wagers=["mirror"], catalogue=bets)
    assert result.route == "walk"
    w = bets["mirror"]
    assert [(x.id, x.combinations) for x in result.results[0].lines] == \
        [(x.id, x.combinations) for x in price(w, w.paytables["A"], WalkDistribution(Shoe.decks(8))).lines]


def test_two_yes_no_parts_compared_are_read_by_their_parts_at_8_decks() -> None:
    """(A) == (B), A two suits compared and B six ranks added up: too large as one group, read by its two parts
    (it was read card by card, and refused after 20 s); its count is total - A - B + 2 (A and B), with A and B by
    the tables and (A and B) by the walk's groups. (A) in (B, C) likewise, by the counts of A, B, C together."""
    suits, total = "player_suit_1 == banker_suit_1", " + ".join(f"{p}_rank_{k}" for p in ("player", "banker")
                                                                  for k in (1, 2, 3)) + " == 40"
    both = one_outcome(f"({suits}) == ({total})")
    assert sorted(j.names for j in _joint_groups(both)) == [
        tuple(sorted(f"{p}_rank_{k}" for p in ("player", "banker") for k in (1, 2, 3))), ("banker_suit_1", "player_suit_1")]

    def hits(w: Wager, route: str) -> int:
        return analyze(Shoe.decks(8), wagers=[w.id], catalogue=Catalogue([w]), route=route).results[0].lines[0] \
            .combinations

    a, b = (hits(one_outcome(text), "vector") for text in (suits, total))
    ab = hits(one_outcome(f"{suits} and {total}"), "walk")
    assert hits(both, "walk") == Shoe.decks(8).sequences - a - b + 2 * ab == 3_675_185_469_296_640
    # (A) in (B, C), C two more suits compared: false where A alone holds of the three, or B and C without A
    other = "player_suit_2 == banker_suit_2"
    listed = one_outcome(f"({suits}) in ({total}, {other})")
    ac = hits(one_outcome(f"{suits} and {other}"), "vector")
    bc, abc = (hits(one_outcome(text), "walk") for text in (f"{total} and {other}", f"{suits} and {total} and {other}"))
    assert hits(listed, "walk") == Shoe.decks(8).sequences - (a - ab - ac + abc) - (bc - abc) == 4_065_742_458_475_776


def test_route_vector_forced_names_the_routes_that_walk_a_table_too_large() -> None:
    bets = read_file(Path(__file__).parent / "suit-bets.toml")
    with pytest.raises(TooLarge, match=r"164 GB to compile .*; --route auto \(the default\) walks a wager whose table "
                                       r"is too large, or --route walk$"):
        analyze(Shoe.decks(8), wagers=["crossed-pairs"], catalogue=bets, route="vector")


def test_route_auto_builds_the_table_where_the_walk_first_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    w = wager("player_suit_1 == banker_suit_1")
    monkeypatch.setattr(door, "WALK_FIRST_BYTES", 0)               # any table is large
    shoe = Shoe.decks(1)
    with pytest.warns(ExactOddsWarning, match=r"priced by the walk( \(.*\))?: its table would take"):
        walked = analyze(shoe, wagers=["bet"], catalogue=Catalogue([w]))
    monkeypatch.setattr(walk, "WALK_STATES_LIMIT", 1)                  # the walk refuses it now: the table
    monkeypatch.setattr(walk, "PURE_STATES_LIMIT", 1)
    monkeypatch.setattr(walk._LazyWalk, "fits", staticmethod(lambda cards: False))     # nor by point values
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tables = analyze(shoe, wagers=["bet"], catalogue=Catalogue([w]))
    assert tables.route == "vector" and walked.route == "walk"
    assert [(x.id, x.combinations) for x in tables.results[0].lines] == \
        [(x.id, x.combinations) for x in walked.results[0].lines]


def test_outcomes_that_overlap_are_refused_naming_cards_that_stand_for_the_round() -> None:
    # the walk settles a round on the least cards with its truths: an A of spades here, which the shoe lacks
    text = ("[[wager]]\nid = \"bet\"\nname = \"Bet\"\nsection = \"test\"\n  [[wager.outcome]]\n  id = \"a\"\n"
            "  name = \"a\"\n  when = \"player_suit_3 == '' and banker_suit_3 != ''\"\n  [[wager.outcome]]\n"
            "  id = \"b\"\n  name = \"b\"\n  when = \"player_rank_3 < banker_rank_3\"\n  [[wager.paytable]]\n  id = \"A\"\n"
            "  pays = { a = \"2 to 1\", b = \"3 to 1\" }\n")
    w = read_text(text, source="o.toml")["bet"]
    with pytest.raises(ExactOddsError, match=r"outcomes 'a' and 'b' both hold on one round \(cards that give the "
                                             r"conditions the same truths as such a round: "):
        WalkDistribution(Shoe.from_card_counts(SMALL["mixed"])).outcome_counts(w, w.paytables["A"])
