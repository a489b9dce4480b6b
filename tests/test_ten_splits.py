"""A bet that reads single cards' ranks tells the ten-valued ranks apart only as its conditions need (issue 54,
item 3: a face card against a 10 is one split).

Only point value 0 holds more than one rank (10, J, Q, K: 627a.6(a)), so the coarsest reading of ranks is a
split of those four. The proof is :func:`exactodds.engine.tens.tens_told` (every place a condition reads a
rank lies in a part that reads that rank alone; ranks on which every such part agrees are one block); the
table is then compiled with one atom per block. Shown here: the proof on each spelling and its refusals,
the split table against the table of every rank summed per block on random shoes of unequal ranks, against
the brute force over every deal of small shoes, against the walk at 8 decks, and its estimate's words.
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from exactodds import Shoe, deal, price
from exactodds.analyses.pricing import table_signature
from exactodds.engine.multiset import compile_table, estimate
from exactodds.engine.tens import EVERY_TEN, blocks_of, tens_told
from exactodds.engine import native
from exactodds.engine.walk import WalkDistribution, _walked_together, reading
from exactodds.errors import ExactOddsError
from exactodds.wagers.catalogue import Wager, read_text

from . import brute


def _bet(*whens: str, parameters: str = "") -> Wager:
    outcomes = "".join(f'[[wager.outcome]]\nid = "o{i}"\nname = "o{i}"\nwhen = "{w}"\n' for i, w in enumerate(whens))
    pays = ", ".join(f'o{i} = "{i + 2} to 1"' for i in range(len(whens)))
    given = f"[wager.parameters]\n{parameters}\n" if parameters else ""
    return read_text(f'[[wager]]\nid = "w"\nname = "w"\nsection = "a test"\nsettle = "highest"\n{given}{outcomes}'
                     f'[[wager.paytable]]\nid = "A"\npays = {{ {pays} }}\n', source="tens.toml")["w"]


FACE = "player_rank_1 in (11, 12, 13)"
#: The Player's first two cards face cards and the Player wins; else the Banker's third card a face card.
FACES = _bet(f"{FACE} and player_rank_2 >= 11 and player > banker",
             "player <= banker and banker_cards == 3 and banker_rank_3 > 10")


@pytest.mark.parametrize("whens, split", [
    ((FACE,), "T|JQK"),
    (("player_rank_1 >= 11 and banker_rank_2 != 10",), "T|JQK"),               # two positions, one split
    (("player_rank_1 == 13 or player_rank_1 == 9",), "TJQ|K"),                  # a king apart
    (("player_rank_1 == 13", "banker_rank_1 == 10"), "T|JQ|K"),                 # the blocks of both
    (("player_rank_1 % 2 == 0 and player_cards == 2",), "TQ|JK"),               # arithmetic, read on each rank
    (("banker_rank_2 == 7",), "TJQK"),                                           # no ten-valued rank told apart
    (("player_rank_1 in faces",), "T|JQK"),                                      # a parameter's list
    (("player_rank_1 == banker_rank_1",), EVERY_TEN),                            # compared: each rank apart
    (("max(player_rank_1, banker_rank_1) >= 11",), EVERY_TEN),                   # read together
    (("player_rank_1 + banker_rank_1 == 23",), EVERY_TEN),
    (("banker in (banker_rank_1,)",), EVERY_TEN),                                # a value of an 'in' (found by
    (("player_rank_1 in (banker_rank_1, 11)",), EVERY_TEN),                      # the walk's fuzz in CI)
    (("player_rank_1 >= 11 and player_suit_1 == 'h'",), EVERY_TEN),            # a suit too: read as a card
])
def test_the_proof_of_the_split_of_the_ten_valued_ranks(whens: tuple[str, ...], split: str) -> None:
    wager = _bet(*whens, parameters="faces = [11, 12, 13]")
    assert tens_told([wager]) == split
    signature = table_signature(wager)
    if split != EVERY_TEN:
        assert signature[0] == "multiset" and signature[2:] == (split,), signature
    else:
        assert "T" not in "".join(x for x in signature[2:] if isinstance(x, str)), signature


def test_a_split_table_equals_the_table_of_every_rank_summed_per_block_on_shoes_of_unequal_ranks() -> None:
    """Six random shoes, two decks less 5 to 40 of their cards drawn at random (the ten-valued ranks unequal):
    each key of the split tables counts what the keys of every rank of its blocks count."""
    names = ("banker", "banker_cards", "player", "player_cards", "player_rank_1", "banker_rank_3")
    every = compile_table(names)
    rng = random.Random(54)
    cards = [f"{r}{s}" for r in "A23456789TJQK" for s in "shdc"] * 2
    shoes = [Shoe.decks(2).remove(*rng.sample(cards, rng.randrange(5, 40))) for _ in range(6)]
    ranks = [i for i, n in enumerate(every.names) if "_rank_" in n]
    for split in ("T|JQK", "TJQ|K", "TQ|JK", "TJQK"):
        table = compile_table(names, told=split)
        assert table.names == every.names and table.leaves < every.leaves
        first = {r: block[0] for block in blocks_of(split) for r in block}
        for shoe in shoes:
            summed: Counter[tuple[object, ...]] = Counter()
            for key, n in zip(every.keys, every.counts(shoe).tolist()):
                summed[tuple(first.get(v, v) if i in ranks else v for i, v in enumerate(key))] += n
            got = dict(zip(table.keys, table.counts(shoe).tolist()))
            assert {k: n for k, n in got.items() if n} == {k: n for k, n in summed.items() if n}, (split, shoe)


def test_the_split_is_refused_for_a_table_that_reads_more_than_ranks() -> None:
    for names in (("player_rank_1", "player_suit_1"), ("player_suit_1",), ("player", "player_royal_9")):
        with pytest.raises(ExactOddsError, match="splits the ten-valued ranks: it is for a table of single"):
            compile_table(names, told="T|JQK")


#: Small shoes of unequal ten-valued ranks, every deal of which the brute force settles card by card.
SMALL = {
    "faces and tens": {"Kh": 2, "Qh": 1, "Js": 1, "Tc": 2, "7d": 1, "3h": 1, "9d": 1},
    "a king short": {"Kh": 1, "Qs": 2, "Jc": 1, "Td": 1, "9s": 1, "2c": 1, "5h": 1, "Ts": 1},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", SMALL)
def test_a_split_table_equals_the_brute_force_on_small_shoes(name: str) -> None:
    shoe = Shoe.from_card_counts(SMALL[name], label=name)
    for wager in (FACES, _bet("player_rank_1 % 2 == 0 and player_rank_2 == 13", "banker_rank_1 == 10")):
        want = brute.settle_all(shoe, [(wager, "A")])[(wager.id, "A")]
        got = {ln.id: ln.combinations for ln in price(wager, wager.paytables["A"], deal(shoe)).lines}
        assert got.pop("lose", 0) == want.pop(None, 0)
        assert {k: v for k, v in got.items() if v} == dict(want) and sum(want.values()) > 0


@pytest.mark.slow
def test_a_split_table_equals_the_walk_at_8_decks() -> None:
    paytable = FACES.paytables["A"]
    assert table_signature(FACES)[2] == "T|JQK"
    for shoe in (Shoe.decks(8), Shoe.decks(8).remove("Kh", "Kd", "Qs", "Jc", "Jc", "9d", "2h")):
        table = {ln.id: ln.combinations for ln in price(FACES, paytable, deal(shoe)).lines}
        walked = {ln.id: ln.combinations for ln in price(FACES, paytable, WalkDistribution(shoe)).lines}
        assert table == walked and sum(table.values()) == shoe.sequences


def test_the_estimate_says_how_the_ten_valued_ranks_are_read() -> None:
    six = tuple(f"{hand}_rank_{k}" for hand in ("player", "banker") for k in "123") + ("player", "banker")
    split, every = estimate(six, told="T|JQK"), estimate(six)
    assert split.rows < every.rows / 2
    assert split.reads == ("the ranks of 6 card positions (player_1, player_2, player_3, banker_1, banker_2, "
                           "banker_3), the ten-valued ones told apart only as {10} {J, Q, K} with banker, player")
    assert "ten-valued" not in every.reads


# -- random conditions on ranks: whatever split the proof finds, the table over it prices the brute force's counts

_RANKS = ("player_rank_1", "player_rank_2", "banker_rank_1")


@st.composite
def _rank_numbers(draw: st.DrawFn, depth: int = 2) -> str:
    """A number over the positions' ranks (and the Banker's points): + - %, abs(), min()/max()."""
    leaf = st.one_of(st.sampled_from([*_RANKS, "banker"]), st.integers(8, 14).map(str))
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(leaf)
    sub = _rank_numbers(depth - 1)
    form = draw(st.sampled_from(["+", "-", "abs", "min", "max", "%"]))
    if form in ("+", "-"):
        return f"({draw(sub)} {form} {draw(sub)})"
    if form == "%":
        return f"({draw(sub)}) % {draw(st.integers(2, 5))}"
    if form == "abs":
        return f"abs({draw(sub)})"
    return f"{form}({', '.join(draw(st.lists(sub, min_size=1, max_size=3)))})"


@st.composite
def _rank_conditions(draw: st.DrawFn, depth: int = 2) -> str:
    """A condition of comparisons (chained, ``in``) of those numbers, joined by and, or, not."""
    if depth == 0 or draw(st.integers(0, 1)) == 0:
        left = draw(_rank_numbers())
        if draw(st.booleans()):
            chosen = draw(st.lists(st.integers(8, 14), min_size=1, max_size=3))
            return f"{left} {draw(st.sampled_from(['in', 'not in']))} ({', '.join(map(str, chosen))},)"
        return f"{left} {draw(st.sampled_from(['==', '!=', '<', '<=', '>', '>=']))} {draw(_rank_numbers(1))}"
    sub = _rank_conditions(depth - 1)
    form = draw(st.sampled_from(["and", "or", "not"]))
    if form == "not":
        return f"not ({draw(sub)})"
    return f" {form} ".join(f"({p})" for p in draw(st.lists(sub, min_size=2, max_size=3)))


#: Shoes of 7 and 8 cards, each ten-valued rank in its own number (the brute force deals them in 0.2 and 0.8 s).
FUZZED = ({"Kh": 2, "Qh": 1, "Tc": 1, "Js": 1, "7d": 1, "9d": 1},
          {"Kh": 1, "Qs": 2, "Jc": 1, "Td": 1, "9s": 1, "5h": 1, "Ts": 1})


@pytest.mark.slow
@settings(max_examples=40, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(_rank_conditions())
def test_a_random_condition_on_ranks_priced_over_its_split_equals_the_brute_force(when: str) -> None:
    try:
        wager = _bet(when)
    except ExactOddsError:                        # outside the language's checks (a value no feature takes ...)
        assume(False)
    split = tens_told([wager])
    for cards in FUZZED:
        shoe = Shoe.from_card_counts(cards)
        want = brute.settle_all(shoe, [(wager, "A")])[(wager.id, "A")]
        got = {ln.id: ln.combinations for ln in price(wager, wager.paytables["A"], deal(shoe)).lines}
        assert got.pop("lose", 0) == want.pop(None, 0), (when, split)
        assert {k: v for k, v in got.items() if v} == dict(want), (when, split)


# -- the walk reads a rank by the same split ------------------------------------------------------------------

#: A lone position's rank read by a split (not with another position: the walk reads such a group by its own
#: classes), beside a wager that splits the same position otherwise (walked together: the blocks of both).
LONE = {"face": _bet("banker_cards == 3 and banker_rank_3 >= 11 and banker > player"),
        "king": _bet("banker_cards == 3 and banker_rank_3 == 13", "player_rank_1 == 13 and player > banker")}


def test_the_walk_reads_a_lone_rank_by_the_split() -> None:
    assert reading(LONE["face"]) == "the rank of banker_3 with the ten-valued ones only as {10} {J, Q, K}"
    trackers = _walked_together(list(LONE.values()))
    split = {f"{t.hand}_{t.k + 1}": t.tens for t in trackers if getattr(t, "attr", "") == "rank"}
    assert split == {"banker_3": "T|JQ|K", "player_1": "TJQ|K"}, trackers      # one split per wager: its positions'
    assert _walked_together([LONE["face"], _bet("banker_rank_3 + player > 20")])[0].tens == ""


@pytest.mark.slow
@pytest.mark.parametrize("route", ["compiled", "pure"])
def test_the_walk_by_the_split_equals_the_tables_alone_and_together(route: str) -> None:
    rng = random.Random(7)
    cards = [f"{r}{s}" for r in "A23456789TJQK" for s in "shdc"] * 8
    shoes = [Shoe.decks(8), *(Shoe.decks(8).remove(*rng.sample(cards, rng.randrange(10, 60))) for _ in range(3))]
    pairs = [(w, w.paytables["A"]) for w in LONE.values()]
    with native.pure() if route == "pure" else contextlib.nullcontext():
        for shoe in shoes:
            tables = [[ln.combinations for ln in price(w, t, deal(shoe)).lines] for w, t in pairs]
            walked = WalkDistribution(shoe)
            walked.prepare([w for w, _ in pairs])                  # the two walked together
            assert [[ln.combinations for ln in price(w, t, walked).lines] for w, t in pairs] == tables
            alone = [[ln.combinations for ln in price(w, t, WalkDistribution(shoe)).lines] for w, t in pairs]
            assert alone == tables and all(sum(x) == shoe.sequences for x in tables), shoe.describe()
