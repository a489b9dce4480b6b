"""The exact engine against the recursive walk and the brute force."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings

from exactodds import Shoe, deal, load_catalogue, walk
from exactodds.engine import round_table
from exactodds.shoe import INT64_MAX_CARDS

from . import brute
from .strategies import depleted_shoes, small_shoes


def test_round_table_shape() -> None:
    """339,400 value-level rounds; weights of a full deck add up to the sequence count."""
    t = round_table()
    assert len(t) == 339_400
    assert set(map(int, t.cards_used)) == {4, 5, 6}


def nonzero(counts: dict) -> dict:
    return {k: v for k, v in counts.items() if v}


def test_walk_agrees_with_engine_on_regulated_shoes() -> None:
    for decks in (6, 8):
        shoe = Shoe.decks(decks)
        assert walk(shoe) == deal(shoe).point_counts()


@settings(max_examples=15, deadline=None)
@given(depleted_shoes())
def test_walk_agrees_with_engine_on_depleted_shoes(shoe: Shoe) -> None:
    dist = deal(shoe)
    assert sum(dist.point_counts().values()) == shoe.sequences
    assert nonzero(walk(shoe)) == nonzero(dist.point_counts())


def test_python_int_route_beyond_int64() -> None:
    """Past 1,448 cards NumPy int64 could overflow; the engine counts in Python ints."""
    shoe = Shoe.decks(28)
    assert shoe.size > INT64_MAX_CARDS
    dist = deal(shoe)
    assert dist.weights.dtype == object
    assert nonzero(dist.point_counts()) == nonzero(walk(shoe))


def _brute_point_counts(shoe: Shoe) -> Counter:
    counts: Counter = Counter()
    for _cards, rnd, weight in brute.rounds(shoe):
        counts[(rnd.player_total, rnd.banker_total, len(rnd.player_cards), len(rnd.banker_cards))] += weight
    return counts


@settings(max_examples=25, deadline=None)
@given(small_shoes())
def test_engine_agrees_with_brute_force(shoe: Shoe) -> None:
    brute_counts = _brute_point_counts(shoe)
    assert sum(brute_counts.values()) == shoe.sequences
    engine = {k: v for k, v in deal(shoe).point_counts().items() if v}
    assert engine == dict(brute_counts)


def test_brute_force_weights_are_the_six_card_convention() -> None:
    """On a tiny shoe, count literally every ordered 6-card sequence and play it."""
    from exactodds.rules import play

    shoe = Shoe.from_card_counts({"As": 2, "5h": 1, "9d": 1, "Kc": 2, "7s": 1, "3h": 1})
    literal: Counter = Counter()
    for cards, weight in brute.all_six_card_sequences(shoe):
        rnd = play([c.points for c in cards])
        literal[(rnd.player_total, rnd.banker_total, len(rnd.player_cards), len(rnd.banker_cards))] += weight
    assert dict(literal) == dict(_brute_point_counts(shoe))
    assert dict(literal) == {k: v for k, v in deal(shoe).point_counts().items() if v}


@settings(max_examples=10, deadline=None)
@given(small_shoes(max_identities=6))
def test_every_wager_agrees_with_brute_force(shoe: Shoe) -> None:
    """Every wager and paytable of the catalogue: engine counts == brute-force counts."""
    from exactodds.pricing import price

    cat = load_catalogue()
    pairs = [(w, t) for w in cat.values() for t in w.paytables]
    brute_counts = brute.settle_all(shoe, pairs)
    dist = deal(shoe)
    for w, t in pairs:
        r = price(w, w.paytables[t], dist)
        got = {ln.id: ln.combinations for ln in r.lines}
        want = brute_counts[(w.id, t)]
        assert got.pop("lose") == want.pop(None, 0), (w.id, t)
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}, (w.id, t)


@settings(max_examples=20, deadline=None)
@given(depleted_shoes())
def test_every_wager_probabilities_sum_to_one(shoe: Shoe) -> None:
    from exactodds.pricing import price

    dist = deal(shoe)
    for w in load_catalogue().values():
        for t in w.paytables.values():
            r = price(w, t, dist)
            assert sum(ln.combinations for ln in r.lines) == shoe.sequences
            assert sum(ln.probability for ln in r.lines) == 1
