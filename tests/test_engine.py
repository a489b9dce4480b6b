"""The exact engine against the recursive walk and the brute force."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactodds import Card, Shoe, deal, load_catalogue, price, walk
from exactodds.engine.roundtable import round_table
from exactodds.game.shoe import INT64_MAX_CARDS

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
    from exactodds.game.rules import play

    shoe = Shoe.from_card_counts({"As": 2, "5h": 1, "9d": 1, "Kc": 2, "7s": 1, "3h": 1})
    literal: Counter = Counter()
    for cards, weight in brute.all_six_card_sequences(shoe):
        rnd = play([c.points for c in cards])
        literal[(rnd.player_total, rnd.banker_total, len(rnd.player_cards), len(rnd.banker_cards))] += weight
    assert dict(literal) == dict(_brute_point_counts(shoe))
    assert dict(literal) == {k: v for k, v in deal(shoe).point_counts().items() if v}


def assert_every_wager_agrees(shoe: Shoe, catalogue: dict | None = None) -> None:
    """Every wager and paytable: engine counts == brute-force counts over card identities."""
    from exactodds.analyses.pricing import price

    cat = catalogue if catalogue is not None else load_catalogue()
    pairs = [(w, t) for w in cat.values() for t in w.paytables]
    brute_counts = brute.settle_all(shoe, pairs)
    dist = deal(shoe)
    for w, t in pairs:
        r = price(w, w.paytables[t], dist)
        got = {ln.id: ln.combinations for ln in r.lines}
        want = brute_counts[(w.id, t)]
        assert got.pop("lose") == want.pop(None, 0), (w.id, t)
        assert {k: v for k, v in got.items() if v} == {k: v for k, v in want.items() if v}, (w.id, t)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(small_shoes(max_identities=6))
def test_every_wager_agrees_with_brute_force(shoe: Shoe) -> None:
    assert_every_wager_agrees(shoe)


# Small shoes with unequal suits, built so that the rare identity outcomes occur.
TARGETED = {
    "harmony: six-of-a-kind, four 8s, six 0-value cards": {"Ks": 3, "Kh": 3, "8s": 2, "8h": 2, "Qd": 1, "3c": 4},
    "heavenly 9: same-suit and same-colour 3-card 9 ties": {"2s": 2, "As": 1, "3s": 1, "5s": 2, "5c": 1, "9d": 1},
    "royal 9, majestic match, lucky nines": {"Ks": 2, "Kh": 1, "9s": 3, "9d": 1, "Qs": 1, "Jh": 1, "9h": 1},
    "pairs of every kind": {"7s": 2, "7h": 1, "7c": 1, "Qd": 2, "Qs": 1, "4h": 1},
}


#: Outcomes each targeted shoe must make possible, so that agreement is not vacuous.
MUST_OCCUR = {
    "harmony: six-of-a-kind, four 8s, six 0-value cards": [
        ("harmony-progressive", "A", "six_of_a_kind"), ("harmony-progressive", "A", "four_8s"),
        ("harmony-progressive", "B", "four_of_a_kind"), ("harmony-progressive", "E", "six_zero")],
    "heavenly 9: same-suit and same-colour 3-card 9 ties": [
        ("heavenly-9-progressive", "standard", "tie_same_suit"),
        ("heavenly-9-progressive", "standard", "tie_same_colour"),
        ("heavenly-9-progressive", "standard", "tie")],
    "royal 9, majestic match, lucky nines": [
        ("royal-9-progressive", "$5", "mega"), ("royal-9-progressive", "$5", "suited_tie"),
        ("royal-9-progressive", "$1", "any"), ("majestic-match-player", "standard", "royal"),
        ("lucky-nines", "A", "three_same_suit"), ("lucky-nines", "D", "one_diamond")],
    "pairs of every kind": [
        ("perfect-pairs-both", "A", "perfect+coloured"), ("perfect-pairs-player", "C", "mixed"),
        ("house-money", "standard", "both_pairs")],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TARGETED))
def test_rank_and_suit_wagers_on_targeted_shoes(name: str) -> None:
    shoe = Shoe.from_card_counts(TARGETED[name], label=name)
    cat = {w.id: w for w in load_catalogue().values() if w.kind != "point"}
    assert_every_wager_agrees(shoe, cat)
    dist = deal(shoe)
    for wid, table, outcome in MUST_OCCUR[name]:
        lines = {ln.id: ln.combinations for ln in price(cat[wid], cat[wid].paytable(table), dist).lines}
        assert lines[outcome] > 0, (wid, table, outcome)


def test_royal_9_seat_parameter_agrees_with_brute_force() -> None:
    w = load_catalogue()["royal-9-progressive"].with_parameters({"seat": 5})      # K♠9♥
    shoe = Shoe.from_card_counts({"Ks": 2, "9h": 2, "9s": 1, "Kd": 1, "Qc": 1, "5h": 1})
    assert_every_wager_agrees(shoe, {w.id: w})


def test_one_deck_without_diamonds_against_brute_force_sample() -> None:
    """A deck with every diamond removed: unequal suits; initial-card wagers checked exactly."""
    from exactodds.game.cards import Suit

    shoe = Shoe.decks(1).remove(*[c for c in (Card.from_index(i) for i in range(52)) if c.suit is Suit.DIAMONDS])
    dist = deal(shoe)
    assert sum(dist.point_counts().values()) == shoe.sequences
    cat = load_catalogue()
    for wid in ("lucky-nines", "perfect-pairs-both", "majestic-match-banker", "house-money"):
        for t in cat[wid].paytables:
            r = price(cat[wid], cat[wid].paytables[t], dist)
            assert sum(ln.probability for ln in r.lines) == 1
    (nine_d,) = [ln for ln in price(cat["lucky-nines"], cat["lucky-nines"].paytable("A"), dist).lines
                 if ln.id == "one_diamond"]
    assert nine_d.combinations == 0           # no nine of diamonds left in the shoe


@settings(max_examples=20, deadline=None)
@given(depleted_shoes())
def test_every_wager_probabilities_sum_to_one(shoe: Shoe) -> None:
    from exactodds.analyses.pricing import price

    dist = deal(shoe)
    for w in load_catalogue().values():
        for t in w.paytables.values():
            r = price(w, t, dist)
            assert sum(ln.combinations for ln in r.lines) == shoe.sequences
            assert sum(ln.probability for ln in r.lines) == 1


# -- past the int64 bound: counts modulo primes, rebuilt by the Chinese remainder theorem ------

@pytest.mark.parametrize("names", [
    ("banker", "banker_cards", "player", "player_cards"),
    ("banker_rank_1", "banker_rank_2", "player_rank_1", "player_rank_2"),
    ("banker", "banker_suit_3", "player", "player_suit_3"),
])
@pytest.mark.parametrize("shoe", [Shoe.decks(28), Shoe.decks(30).remove("5s", "5s", "Kh"), Shoe.decks(400)],
                         ids=["28", "30-depleted", "400"])
def test_modular_counts_equal_python_integers(names: tuple[str, ...], shoe: Shoe) -> None:
    from exactodds.engine.multiset import compile_table

    table = compile_table(names)
    assert [int(x) for x in table.counts(shoe)] == [int(x) for x in table.counts_in_python_integers(shoe)]


def test_modular_every_card_counts_equal_python_integers() -> None:
    import math

    import numpy as np

    from exactodds.engine.identity import all_card_categories
    from exactodds.engine.multiset import compile_table

    shoe = Shoe.decks(40).remove("Ks", "Kh", "9d", "9d")
    names = ("banker", "banker_cards", "count_0", "count_8", "player", "player_cards")
    got = deal(shoe).every_card_counts(names)
    table = compile_table(names)
    values, read = table.value_multiplicities()
    per = all_card_categories(shoe, values).astype(object)   # in int64 (640 tens: each checked), then Python integers
    tail = np.array([math.perm(shoe.size - k, 6 - k) for k in range(7)], dtype=object)[read]
    want = np.add.reduceat((per * tail[:, None])[table.entry_multiset] * table.entry_orderings.astype(object)[:, None],
                           table.key_starts, axis=0)
    assert [int(x) for x in got.ravel()] == [int(x) for x in want.ravel()]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 10 ** 60), st.sampled_from([20, 31, 32]))
def test_chinese_remainders_rebuild_the_number(x: int, bits: int) -> None:
    import numpy as np

    from exactodds.engine.modular import crt, primes_for

    primes = primes_for(10 ** 60, bits=bits)
    assert int(crt([np.array([x % p], dtype=np.uint64) for p in primes], primes)[0]) == x


@pytest.mark.parametrize("decks", [30, 200])
def test_perfect_pair_chance_on_big_shoes(decks: int) -> None:
    """The Player's second card matches the first's rank and suit: (n - 1) of 52n - 1 cards."""
    w = load_catalogue()["perfect-pairs-player"]
    shoe = Shoe.decks(decks)
    (perfect,) = [ln for ln in price(w, w.paytable("A"), deal(shoe)).lines if ln.id == "perfect"]
    assert perfect.probability == Fraction(decks - 1, 52 * decks - 1)
