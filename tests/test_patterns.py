"""Suits read by pattern (exactodds.engine.multiset, issue 23): a condition that compares suits sees only
which cards share one, and which of the suits it names; the tables are compiled over those
patterns and each shoe resolves them. Every count here is compared with the brute force over
card identities (tests/brute.py) on small shoes whose suits are unequal, so that a pattern
resolved as if the suits were exchangeable would be caught.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactodds.analyses.pricing import price, table_signature
from exactodds.engine.distribution import deal
from exactodds.engine.multiset import EVERY_SUIT, compile_table, told_apart
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import Outcome, Paytable, Wager
from exactodds.wagers.conditions import Condition
from exactodds.wagers.pays import parse_pay

from .test_conditions import SHOES, deals, reference

_SUIT = [f"{h}_suit_{k}" for h in ("player", "banker") for k in "123"]
_RANK = [f"{h}_rank_{k}" for h in ("player", "banker") for k in "12"]
_POINT = ["dragon_7", "panda_8", "banker == 7", "player_cards == 3", "banker_cards == 3", "player_wins",
          "player_value_3 == banker_value_3", "tie"]


@st.composite
def suit_conditions(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    """A condition on the suits of up to three positions (compared, named, or named through a
    parameter), sometimes with a rank or the totals; and the wager's parameters."""
    read = draw(st.lists(st.sampled_from(_SUIT), min_size=1, max_size=3, unique=True))
    params: dict[str, Any] = {}
    clauses = []
    for _ in range(draw(st.integers(1, 3))):
        a, b = draw(st.sampled_from(read)), draw(st.sampled_from(read))
        suit = draw(st.sampled_from(["s", "h", "d", "c", ""]))
        form = draw(st.sampled_from(["equal", "chain", "named", "in", "list", "index", "text"]))
        if form == "equal":
            clauses.append(f"{a} {draw(st.sampled_from(['==', '!=']))} {b}")
        elif form == "chain":
            clauses.append(" == ".join(read) if len(read) > 1 else f"{a} == {b}")
        elif form == "named":
            clauses.append(f"{a} {draw(st.sampled_from(['==', '!=']))} {suit!r}")
        elif form == "in":
            chosen = draw(st.lists(st.sampled_from("shdc"), min_size=1, max_size=3, unique=True))
            clauses.append(f"{a} {draw(st.sampled_from(['in', 'not in']))} ({', '.join(map(repr, chosen))},)")
        elif form == "list":
            params["suits"] = draw(st.lists(st.sampled_from("shdc"), min_size=1, max_size=2, unique=True))
            clauses.append(f"{a} in suits")
        elif form == "index":
            params["seat"] = draw(st.lists(st.sampled_from("shdc"), min_size=2, max_size=2, unique=True))
            clauses.append(f"{a} == seat[{draw(st.integers(0, 1))}]")
        else:
            params["colour"] = suit
            clauses.append(f"{a} != colour")
    if draw(st.booleans()):
        clauses.append(draw(st.sampled_from(_POINT)))
    if draw(st.integers(0, 3)) == 0:
        clauses.append(f"{draw(st.sampled_from(_RANK))} {draw(st.sampled_from(['==', '>=']))} 12")
    joined = f" {draw(st.sampled_from(['and', 'or']))} ".join(f"({c})" for c in clauses)
    return (f"not ({joined})" if draw(st.integers(0, 4)) == 0 else joined), params


def _wager(text: str, params: dict[str, Any]) -> Wager:
    cond = Condition.parse(text, where="generated: outcome 'x'", parameters=params)
    return Wager(id="generated", name="generated", section="test", game="Minibaccarat",
                 outcomes=(Outcome("x", "x", cond),),
                 paytables={"A": Paytable("A", "test", {"x": parse_pay("1 to 1")})},
                 source="test", parameters=params)


def _brute(text: str, params: dict[str, Any], shoe_index: int) -> int:
    rows, weights = deals(shoe_index)
    python = reference(text)
    return sum(w for row, w in zip(rows, weights) if python({**params, **row}))


@pytest.mark.slow
@settings(max_examples=30, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(suit_conditions())
def test_conditions_on_suits_priced_by_pattern_equal_the_brute_force(drawn: tuple[str, dict[str, Any]]) -> None:
    text, params = drawn
    wager = _wager(text, params)
    for k, cards in enumerate(SHOES):
        try:
            got = price(wager, wager.paytables["A"], deal(Shoe.from_card_counts(cards))).lines[0].combinations
        except ExactOddsError as exc:                 # beyond the bound: refused in one line, never wrong
            assert "GB to compile (limit" in str(exc) and "\n" not in str(exc), exc
            return
        assert got == _brute(text, params, k), (text, params, table_signature(wager), cards)


def test_what_a_condition_names_decides_which_suits_are_told_apart() -> None:
    def told(text: str, **params: Any) -> str:
        w = _wager(text, params)
        return told_apart(w.features, w.texts)

    assert told("banker_suit_1 == banker_suit_2 == banker_suit_3 and dragon_7") == "shdc"      # compared only
    assert told("banker_suit_1 in ('h', 'd')") == "sc|hd"                  # red or black: h and d alike
    assert told("banker_suit_1 in ('h', 'd') and banker_suit_2 == 'h'") == "sc|h|d"
    assert told("banker_suit_1 == seat[0]", seat=["h", "c"]) == "sd|h|c"      # either item may be read
    assert told("banker_suit_1 in suits", suits=["h", "c"]) == "sd|hc"
    assert told("player_pair == 'coloured' and banker_suit_3 == player_suit_3") == "sc|hd"
    assert told("player_value_1 == 3") == EVERY_SUIT                     # no suit read: nothing to tell


@pytest.mark.parametrize("told", ["shdc", "sc|hd", "s|h|dc", EVERY_SUIT])
def test_a_pattern_table_adds_up_and_stands_for_every_suit_assignment(told: str) -> None:
    """Keys of a table read by pattern stand for whole classes of suit assignments: on a full shoe the
    counts add up to the shoe and give the exact shares, e.g. the Banker's first two cards suited
    (the second card matches the first's suit in 103 of the 415 cards left)."""
    names = ("banker_cards", "banker_suit_1", "banker_suit_2", "banker_suit_3")
    t = compile_table(names, told=told)
    shoe = Shoe.decks(8)
    counts = t.counts(shoe)
    assert int(counts.sum()) == shoe.sequences
    suited = sum(int(n) for key, n in zip(t.keys, counts) if key[1] == key[2])
    assert suited * 415 == shoe.sequences * 103


@pytest.mark.parametrize("wid", ["lucky-nines", "perfect-pairs-player", "majestic-match-banker", "player-pair"])
def test_a_wager_on_the_initial_cards_read_with_the_totals_keeps_its_own_counts(wid: str) -> None:
    """A position reads a wager on the initial cards' identities off one table with the Banker's
    totals, by suit pattern (nines read finely only where the card is a nine); its outcomes there
    add up to what the quadratic forms of exactodds.engine.identity count for it alone."""
    from collections import Counter

    import numpy as np

    from exactodds.analyses.pricing import assign_outcomes, counts_for, feature_table, signature_for
    from exactodds.wagers.catalogue import load_catalogue

    cat = load_catalogue()
    wager, banker = cat[wid], cat["banker"]
    paytable = next(iter(wager.paytables.values()))
    shoe = Shoe.decks(8).remove("9d", "9d", "9h", "Kh", "Qh", "Ks", "5c", "2s", "Jd")
    dist = deal(shoe)
    joint = signature_for(wager.features | banker.features, texts=wager.texts | banker.texts)
    assert joint[0] == "multiset" and table_signature(wager)[0] == "initial"
    table = feature_table(joint)
    masks = np.stack([o.condition.mask(table.columns, len(table), wager.parameters) for o in wager.outcomes])
    together: Counter = Counter()
    for k, n in zip(assign_outcomes(wager, paytable, masks).tolist(), counts_for(joint, dist, what=wid).tolist()):
        together[k] += int(n)
    alone = {ln.id: ln.combinations for ln in price(wager, paytable, dist).lines}
    assert {wager.outcomes[k].id if k >= 0 else "lose": n for k, n in together.items() if n} == \
        {o: n for o, n in alone.items() if n}


#: Small shoes with unequal suits where every card of a round may be of one suit.
_ONE_SUIT_SHOES = ({"As": 3, "2s": 2, "Ks": 2, "Qh": 1, "3d": 1, "5c": 1},
                   {"Kh": 2, "Ks": 1, "Jd": 2, "5c": 2, "Ah": 1},
                   {"Ah": 2, "2h": 2, "Kh": 2, "Qh": 1, "5h": 1, "3s": 1})


#: Small shoes where every card of a round may be of one colour, or of one rank, with the suits unequal.
_ONE_COLOUR_SHOES = ({"Kh": 2, "Kd": 2, "Qh": 1, "Ks": 1, "Kc": 1, "7d": 1},
                     {"9h": 3, "9d": 2, "9s": 1, "Jd": 2, "4c": 1},
                     {"Qh": 3, "Qd": 1, "Qs": 2, "3h": 1, "2c": 1, "Kd": 1})


@functools.cache
def _brute_rows(index: int) -> list[tuple[dict[str, Any], int]]:
    """Every round of small shoe ``index`` (by identity, tests/brute.py): its features and weight."""
    from . import brute

    shoe = Shoe.from_card_counts((*SHOES, *_ONE_SUIT_SHOES, *_ONE_COLOUR_SHOES)[index])
    return [(brute.all_features(dealt, rnd), w) for dealt, rnd, w in brute.rounds(shoe)]


@pytest.mark.slow
@pytest.mark.parametrize("text", [
    "same_suit and banker_rank_3 == 13", "same_suit and banker_suit_1 == 'h'",
    "same_suit or player_suit_1 == banker_suit_1", "not same_suit and player_pair != 'none'",
    "same_suit and banker_cards == 3 and player_rank_1 == 1", "same_suit == (banker_suit_2 in ('h', 'd'))",
    "same_colour and banker_suit_1 == 'h'", "same_colour == (banker_suit_2 in ('h', 'd'))",
    "same_colour or player_suit_1 == banker_suit_1", "same_colour and banker_rank_3 == 13",
    "same_colour or player_rank_1 == 12", "same_suit and player_rank_1 == 12",
    "same_rank and banker_suit_1 == 'h'", "same_rank or player_rank_1 == banker_rank_1",
    "not same_rank and banker_rank_1 == 13", "same_rank and player_rank_1 == 13 and player_suit_1 == banker_suit_1",
])
def test_every_card_features_read_with_single_cards_equal_the_brute_force(text: str) -> None:
    """same_suit, same_colour or same_rank beside single cards' ranks and suits (extension leaves of
    opposite signs, one suit assignment per class of the told blocks) against the brute force."""
    wager = _wager(text, {})
    python = reference(text)
    hit = 0
    for index, cards in enumerate((*SHOES, *_ONE_SUIT_SHOES, *_ONE_COLOUR_SHOES)):
        want = sum(w for row, w in _brute_rows(index) if python(row))
        assert price(wager, wager.paytables["A"], deal(Shoe.from_card_counts(cards))).lines[0].combinations \
            == want, (text, cards)
        hit += want > 0
    assert hit                                          # not vacuous


@pytest.mark.slow
@pytest.mark.parametrize("every, single", [
    ("same_suit", "banker_suit_1 == banker_suit_1"),
    ("same_colour", "banker_suit_1 == banker_suit_1"),
    ("same_rank", "banker_rank_2 == banker_rank_2"),
])
def test_every_card_features_read_by_pattern_equal_the_count_per_value_multiset(every: str, single: str) -> None:
    """Two routes: an every-card feature read with a single card (suit patterns, signs) against the
    feature read alone (per value multiset, exactodds.engine.identity), on 8 decks less a few cards of unequal
    suits."""
    shoe = Shoe.decks(8).remove("Kh", "Kh", "7d", "2s", "9c", "9c", "Qs")
    alone, joint = _wager(every, {}), _wager(f"{every} and {single}", {})
    assert table_signature(alone)[0] == "round" and table_signature(joint)[0] == "multiset"
    counts = [price(w, w.paytables["A"], deal(shoe)).lines[0].combinations for w in (alone, joint)]
    assert counts[0] == counts[1] > 0


def test_same_colour_beside_two_ranks_is_refused_before_it_is_built() -> None:
    """A ten-valued card beside two read at their ranks is read at four ranks and two suits: about
    2.5 GB, refused in one line."""
    wager = _wager("same_colour and banker_rank_1 == 12 and banker_rank_2 == 13", {})
    with pytest.raises(ExactOddsError, match=r"with same_colour: about [\d,]+ rows, [\d.]+ GB to compile.*"
                                             r"beside same_colour, read single cards' suits or point values"):
        price(wager, wager.paytables["A"], deal(Shoe.decks(8)))


@pytest.mark.parametrize("names, told", [
    (("banker", "banker_cards", "player", "player_cards", "banker_suit_1", "banker_suit_2", "banker_suit_3"), "shdc"),
    (("banker_cards", "banker_rank_3", "banker_suit_1", "same_suit"), "shdc"),
    (("player_pair", "player_cards"), "sc|hd"),
])
def test_past_the_int64_bound_patterns_are_counted_modulo_primes_exactly(names: tuple[str, ...], told: str) -> None:
    shoe = Shoe.decks(40).remove("Kh", "Kh", "7d", "2s", "9c")
    assert shoe.sequences >= 2 ** 63
    t = compile_table(names, told=told)
    assert t.patterned
    assert [int(n) for n in t.counts(shoe)] == [int(n) for n in t.counts_in_python_integers(shoe)]


_DRAGON = "dragon_7 and banker_suit_1 == banker_suit_2 == banker_suit_3"
_PANDA = "panda_8 and player_suit_1 == player_suit_2 == player_suit_3"


def _two_outcomes() -> Wager:
    outcomes = tuple(Outcome(i, i, Condition.parse(t, where=f"both: outcome {i!r}")) for i, t in
                     (("dragon", _DRAGON), ("panda", _PANDA)))
    pays = {"dragon": parse_pay("650 to 1"), "panda": parse_pay("400 to 1")}
    return Wager(id="both", name="both", section="test", game="Minibaccarat", outcomes=outcomes,
                 paytables={"A": Paytable("A", "test", pays)}, source="test")


def test_a_wager_on_six_suits_is_compiled_for_itself_reading_suits_only_where_they_change_its_outcome() -> None:
    """A suited Dragon 7 and a suited Panda 8 in one wager read the suits of all six positions: 58.8
    million rows by pattern, beyond the bound. Compiled for the wager alone, a round reads the Banker's
    suits only where it is a Dragon 7, the Player's only where it is a Panda 8 (the issue's first bet:
    killed by the system at 22.9 GB before suits were read by pattern)."""
    from exactodds.engine.multiset import Varies

    both = _two_outcomes()
    sig = table_signature(both)
    assert len(sig) == 4 and isinstance(sig[3], Varies)
    for shoe in (Shoe.decks(8), Shoe.decks(6), Shoe.decks(8).remove("7h", "7h", "7d", "Ks", "8c", "8c", "2s", "9d")):
        got = {ln.id: ln.combinations for ln in price(both, both.paytables["A"], deal(shoe)).lines}
        for oid, text in (("dragon", _DRAGON), ("panda", _PANDA)):           # each alone fits the bound
            alone = _wager(text, {})
            assert table_signature(alone)[3:] == ()
            assert got[oid] == price(alone, alone.paytables["A"], deal(shoe)).lines[0].combinations > 0
        assert sum(got.values()) == shoe.sequences


@pytest.mark.slow
def test_a_wager_compiled_for_itself_equals_the_brute_force() -> None:
    from . import brute

    both = _two_outcomes()
    shoes = ({"7s": 2, "7h": 1, "Ks": 2, "Qs": 1, "8h": 1, "10h": 2, "2c": 1},
             {"8d": 2, "Kd": 1, "Jd": 2, "Qc": 1, "7d": 2, "9s": 1}, *SHOES)
    seen = set()
    for cards in shoes:
        shoe = Shoe.from_card_counts(cards)
        got = {ln.id: ln.combinations for ln in price(both, both.paytables["A"], deal(shoe)).lines}
        for oid, text in (("dragon", _DRAGON), ("panda", _PANDA)):
            python = reference(text)
            want = sum(w for dealt, rnd, w in brute.rounds(shoe) if python(brute.all_features(dealt, rnd)))
            assert got[oid] == want, (oid, cards)
            seen |= {oid} if want else set()
    assert seen == {"dragon", "panda"}                  # not vacuous


@pytest.mark.slow
@settings(max_examples=20, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(drawn=suit_conditions())
def test_conditions_on_suits_compiled_for_themselves_equal_the_brute_force(
        drawn: tuple[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The same conditions, every table of suit patterns compiled for its wager alone (multiset.Varies):
    suits are read only where they change an outcome, which the brute force must not notice."""
    from exactodds.analyses import pricing

    monkeypatch.setattr(pricing, "SHARED_ROWS", 0)
    pricing._shared.cache_clear()
    try:
        text, params = drawn
        wager = _wager(text, params)
        sig = table_signature(wager)
        for k, cards in enumerate(SHOES):
            try:
                got = price(wager, wager.paytables["A"], deal(Shoe.from_card_counts(cards))).lines[0].combinations
            except ExactOddsError as exc:
                assert "GB to compile (limit" in str(exc) and "\n" not in str(exc), exc
                return
            assert got == _brute(text, params, k), (text, params, sig, cards)
    finally:
        pricing._shared.cache_clear()


@pytest.mark.parametrize("text", ["same_colour and banker_rank_3 == 13", "same_rank and banker_suit_1 == 'h'",
                                  "same_colour or player_suit_1 == banker_suit_1", "same_suit and player_rank_1 == 12"])
def test_every_card_features_read_with_single_cards_equal_the_walk_on_a_deck(text: str) -> None:
    """The second route (the walk, which shares no counting code) on a deck less six cards of unequal suits."""
    from exactodds.engine.walk import WalkDistribution

    shoe = Shoe.decks(1).remove("Kh", "7d", "2s", "9h", "Qc", "As")
    wager = _wager(text, {})
    walked = price(wager, wager.paytables["A"], WalkDistribution(shoe)).lines
    assert walked == price(wager, wager.paytables["A"], deal(shoe)).lines and walked[0].combinations > 0
