"""The engine's fast paths (work arrays kept by the thread, weights by halves, Banker's pairs by a closed
form, rounding in integers) against slower independent routes."""

from __future__ import annotations

import gc
import itertools
import math
import threading
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactodds.analyses.counting import _round_half_even
from exactodds.engine.identity import ALL_CARD_CATEGORIES, all_card_categories, hand_attributes, initial_counts
from exactodds.engine.multiset import compile_table
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.wagers.outcomes import HAND_ATTRIBUTES

from .strategies import depleted_shoes, small_shoes

TABLES = [
    ("banker", "banker_cards", "player", "player_cards"),
    ("banker_rank_1", "banker_rank_2", "player_rank_1", "player_rank_2"),
    ("banker", "banker_suit_3", "player", "player_suit_3"),          # read by suit pattern
    ("banker", "player_suit_1", "player"),                           # a pattern of one card: no halves
]


@pytest.mark.slow
@pytest.mark.parametrize("names", TABLES)
@given(shoe=depleted_shoes())
@settings(max_examples=15, deadline=None)
def test_int64_counts_equal_python_integers(names: tuple[str, ...], shoe: Shoe) -> None:
    """int64, weights by halves, terms in the thread's work array == Python integers, product by product."""
    table = compile_table(names)
    assert [int(x) for x in table.counts(shoe)] == [int(x) for x in table.counts_in_python_integers(shoe)]


def test_threads_keep_their_own_work_arrays() -> None:
    """Shoes counted at once in four threads give each its own counts (the work arrays are per thread)."""
    table = compile_table(TABLES[0])
    shoes = [Shoe.decks(8).remove(*["5s", "9h", "Kc", "2d"][:k]) for k in range(4)]
    expected = [table.counts_in_python_integers(s).tolist() for s in shoes]
    wrong: list[int] = []

    def work(k: int) -> None:
        for _ in range(30):
            if table.counts(shoes[k]).tolist() != expected[k]:
                wrong.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    assert len({tuple(e) for e in expected}) == 4            # the shoes differ, so a mix-up would show


def _initial_by_enumeration(shoe: Shoe, needs_player: tuple[str, ...],
                            needs_banker: tuple[str, ...]) -> Counter[tuple[object, object]]:
    """The four initial cards dealt one by one, each sequence weighed by the cards left of its kind (the
    deal's order P, B, P, B weighs every sequence alike), times the two cards that complete six."""
    counts = list(shoe.card_counts or ())
    cards = [Card.from_index(i) for i in range(52) if counts[i]]
    keep_p = [k for k, a in enumerate(HAND_ATTRIBUTES) if a in needs_player]
    keep_b = [k for k, a in enumerate(HAND_ATTRIBUTES) if a in needs_banker]
    n = shoe.size
    out: Counter[tuple[object, object]] = Counter()
    left = dict(zip(cards, (counts[c.index] for c in cards)))
    for p1 in cards:
        w1 = left[p1]
        left[p1] -= 1
        for p2 in cards:
            w2 = left[p2]
            if not w2:
                continue
            left[p2] -= 1
            for b1 in cards:
                w3 = left[b1]
                if not w3:
                    continue
                left[b1] -= 1
                for b2 in cards:
                    w4 = left[b2]
                    if not w4:
                        continue
                    pa, ba = hand_attributes(p1, p2), hand_attributes(b1, b2)
                    key = (tuple(pa[k] if k in keep_p else None for k in range(len(pa))),
                           tuple(ba[k] if k in keep_b else None for k in range(len(ba))))
                    out[key] += w1 * w2 * w3 * w4 * (n - 4) * (n - 5)
                left[b1] += 1
            left[p2] += 1
        left[p1] += 1
    return out


@given(shoe=small_shoes(max_identities=6), needs=st.sampled_from([
    (("pair",), ("pair",)), (("suited", "pair"), ("royal_match",)), ((), ("nines", "king_9")),
    (("royal_9",), ())]))
@settings(max_examples=25, deadline=None)
def test_initial_counts_equal_the_deal_enumerated(shoe: Shoe, needs: tuple[tuple[str, ...], ...]) -> None:
    """The closed form for Banker's pairs once Player holds two cards == the four cards dealt one by one."""
    got = initial_counts(shoe, needs_player=needs[0], needs_banker=needs[1])
    assert {k: v for k, v in got.items() if v} == dict(_initial_by_enumeration(shoe, *needs))


def _categories_by_enumeration(shoe: Shoe, multiplicities: np.ndarray) -> list[int]:
    """Ordered draws of card identities for one value multiset (its values in a fixed order), per category of
    :data:`ALL_CARD_CATEGORIES`: every identity tuple with those values, weighted by the copies it takes."""
    counts = shoe.card_counts or ()
    values = [v for v, n in enumerate(multiplicities.tolist()) for _ in range(n)]
    cards = [Card.from_index(i) for i in range(52) if counts[i]]
    out = [0] * len(ALL_CARD_CATEGORIES)
    for drawn in itertools.product(*[[c for c in cards if c.rank.points == v] for v in values]):
        weight = math.prod(math.perm(counts[c.index], k) for c, k in Counter(drawn).items())
        if weight:
            alike = tuple(len({f(c) for c in drawn}) == 1 for f in (lambda c: c.rank, lambda c: c.suit,
                                                                    lambda c: c.colour))
            out[ALL_CARD_CATEGORIES.index(alike)] += weight
    return out


@pytest.mark.slow
@given(shoe=small_shoes(max_identities=5))
@settings(max_examples=20, deadline=None)
def test_every_card_categories_equal_the_identities_enumerated(shoe: Shoe) -> None:
    """Each value multiset's draws split by same rank / suit / colour of every card == the identities drawn
    one by one (on the multisets whose enumeration is small)."""
    multiplicities = compile_table(TABLES[0]).value_multiplicities()[0]
    got = all_card_categories(shoe, multiplicities)
    per_value = Counter(c.rank.points for i, c in enumerate(Card.from_index(i) for i in range(52))
                        if (shoe.card_counts or ())[i])
    checked = 0
    for row, m in enumerate(multiplicities):
        if math.prod(per_value[v] ** int(n) for v, n in enumerate(m)) <= 2_000:
            assert got[row].tolist() == _categories_by_enumeration(shoe, m), m.tolist()
            checked += 1
    assert checked > 0


@pytest.mark.slow
def test_categories_plan_follows_the_array_not_its_address() -> None:
    """The shoe-free plan is kept per array while it lives: an array of other multisets gets its own,
    even where Python gives it the address of one that died."""
    shoe = Shoe.decks(2).remove("5s", "9h", "9h")
    a = compile_table(TABLES[0]).value_multiplicities()[0]
    b = compile_table(("player",)).value_multiplicities()[0]
    want_b = all_card_categories(shoe, b.copy())
    for _ in range(20):
        first = a.copy()
        all_card_categories(shoe, first)
        del first
        gc.collect()
        other = b.copy()                       # often at the address ``first`` had
        assert np.array_equal(all_card_categories(shoe, other), want_b)


@given(st.integers(-10**30, 10**30), st.integers(1, 10**12))
def test_rounding_in_integers_is_rounding_the_fraction(numerator: int, denominator: int) -> None:
    assert _round_half_even(numerator, denominator) == round(Fraction(numerator, denominator))


def test_a_table_past_the_kept_work_array_counts_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """Work arrays past the size a thread keeps are made for the call: the same counts either way."""
    from exactodds.engine import multiset

    table = compile_table(TABLES[0])
    shoe = Shoe.decks(8).remove("5s", "Kh")
    kept = table.counts(shoe).tolist()
    monkeypatch.setattr(multiset, "_SCRATCH_KEPT_BYTES", 1024)
    assert table.counts(shoe).tolist() == kept == table.counts_in_python_integers(shoe).tolist()


def test_categories_of_an_array_changed_in_place_are_its_new_ones() -> None:
    """A caller's array changed in place between calls is planned again, not read from the old plan."""
    shoe = Shoe.decks(1).remove("9h", "Kc")
    a = compile_table(TABLES[0]).value_multiplicities()[0].copy()
    b = compile_table(("player",)).value_multiplicities()[0]
    rows = min(len(a), len(b))
    view = a[:rows]
    before = all_card_categories(shoe, view)
    want = all_card_categories(shoe, b[::-1][:rows].copy())
    assert not np.array_equal(before, want)
    view[:] = b[::-1][:rows]
    assert np.array_equal(all_card_categories(shoe, view), want)


def test_a_tables_value_multiplicities_cannot_be_changed() -> None:
    """The table hands out the arrays it keeps: changing one in place is refused, not priced."""
    values, cards = compile_table(("player",)).value_multiplicities()
    for kept in (values, cards):
        with pytest.raises(ValueError):
            kept[0] = 0
