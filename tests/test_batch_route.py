"""The batch route (exactodds.analyses.pricing.expected_returns): many shoes' exact expected returns in
one pass over the multisets, against pricing each shoe alone; and exposure runs through it against
exposure runs shoe by shoe."""

from __future__ import annotations

import contextlib
from dataclasses import asdict, replace
from fractions import Fraction

import numpy as np
import pytest

from exactodds.analyses import pricing
from exactodds.analyses.pricing import (
    expected_return,
    expected_returns,
    expected_returns_many,
    expected_square,
    moment_arrays,
    return_numerators,
)
from exactodds.engine import native
from exactodds.engine.distribution import deal
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe
from exactodds.simulation import exposure as exposure_module
from exactodds.simulation.exposure import ExposureSpec, exposure_batch
from exactodds.wagers.catalogue import load_catalogue


def _shoes(seed: int) -> list[Shoe]:
    """Full, lightly and heavily depleted shoes of 1 to 8 decks, and a few of the smallest possible."""
    rng = np.random.default_rng(seed)
    shoes = [Shoe.decks(8), Shoe.decks(6), Shoe.decks(1)]
    while len(shoes) < 40:
        decks = int(rng.integers(1, 9))
        taken = rng.integers(0, 4 * decks + 1, size=13) if len(shoes) % 3 == 0 else rng.integers(0, 3, size=13)
        ranks = np.maximum(4 * decks - taken, 0)
        if ranks.sum() >= 6:
            shoes.append(Shoe(tuple(int(x) for x in ranks), None, "depleted"))
    shoes.append(Shoe((0,) * 9 + (6, 0, 0, 0), None, "six tens"))          # every round a natural-less 0-0 tie
    shoes.append(Shoe((1, 1, 1, 1, 1, 1) + (0,) * 7, None, "A to 6"))
    return shoes


def test_batch_route_equals_pricing_each_shoe_alone():
    """For every paytable of the catalogue the batch route reads, every shoe's return is the same
    Fraction as :func:`expected_return` on that shoe's own distribution."""
    shoes = _shoes(5)
    values = np.array([s.value_counts for s in shoes])
    read = []
    for wager in load_catalogue().values():
        for paytable in wager.paytables.values():
            got = expected_returns(wager, paytable, values)
            if got is None:
                continue
            read.append(wager.id)
            assert got == [expected_return(wager, paytable, deal(s)) for s in shoes], (wager.id, paytable.id)
    # the main game and the value-level side wagers go this way
    assert {"banker", "player", "tie", "dragon-7-insurance", "panda-8-insurance", "dragon-bonus-banker"} <= set(read)


def test_several_wagers_share_one_pass():
    """Priced together (one matrix of weights over the union of their multisets) or one by one: the same."""
    cat = load_catalogue()
    pairs = [(cat[w], cat[w].paytable(t)) for w, t in
             [("dragon-7-insurance", "standard"), ("tie", "8-to-1"), ("panda-8-insurance", "standard"),
              ("player-pair", "standard"), ("banker", "standard")]]
    values = np.array([s.value_counts for s in _shoes(9)[:12]])
    together = expected_returns_many(pairs, values)
    assert together == [expected_returns(w, p, values) for w, p in pairs]
    assert together[3] is None                       # a pair reads ranks: priced shoe by shoe


def test_not_read_where_values_do_not_tell():
    """Wagers that read ranks or suits, and pays that are shares of a meter, are left to the shoe-by-shoe route."""
    cat = load_catalogue()
    values = np.array([Shoe.decks(8).value_counts])
    for wid in ("player-pair", "perfect-pairs-both", "house-money"):
        for paytable in cat[wid].paytables.values():
            assert return_numerators([(cat[wid], paytable)], values) == [None]
    symbolic = [(w, p) for w in cat.values() for p in w.paytables.values()
                if any(not isinstance(pay.net, Fraction) for pay in p.pays.values())]
    assert symbolic and all(r is None for r in return_numerators(symbolic, values))


def test_the_route_reads_a_shoe_only_where_its_sequences_fit_64_bits_twice(monkeypatch):
    """Each class's count is at most the shoe's sequences: the route refuses a shoe whose sequences pass
    half of its 64-bit bound (forced here with a tiny bound) and reads it below, to the same Fractions."""
    cat = load_catalogue()
    pairs = [(cat[w], cat[w].paytable(t)) for w, t in [("dragon-7-insurance", "standard"), ("banker", "standard")]]
    values = np.array([s.value_counts for s in _shoes(3)[:10]])
    want = expected_returns_many(pairs, values)
    monkeypatch.setattr(pricing, "_INT64_MAX", 2 * Shoe.decks(8).sequences)
    assert expected_returns_many(pairs, values) == want
    monkeypatch.setattr(pricing, "_INT64_MAX", 2 * Shoe.decks(8).sequences - 1)
    assert expected_returns_many(pairs, values) == [None, None]


@pytest.mark.parametrize("pure", [False, True])
def test_moments_on_shoes_near_the_bound_equal_the_shoe_by_shoe_moments(pure):
    """Shoes of 24 decks (the largest the route reads: their sequences are near 2^62) lightly depleted, a
    wager that pays, pushes and loses beside two that pay once: every moment equals the shoe's own, and
    the team's cross moments are the same compiled and pure."""
    cat = load_catalogue()
    pairs = [(cat[w], cat[w].paytable(t)) for w, t in [("banker", "standard"), ("dragon-7-insurance", "standard"),
                                                       ("tie", "8-to-1")]]
    shoes = [Shoe.decks(24), Shoe.decks(24).remove(*"AAAAKKQ9"), Shoe.decks(24).remove(*"5555555566")]
    assert all(2 * s.sequences <= pricing._INT64_MAX < 4 * s.sequences for s in shoes)
    values = np.array([s.value_counts for s in shoes])
    with native.pure() if pure else contextlib.nullcontext():
        found = return_numerators(pairs, values, second=True, cross=True)
    for (w, p), moments in zip(pairs, found):
        assert moments is not None and moments.second is not None
        for x, y, t, shoe in zip(moments.first, moments.second, moments.totals, shoes):
            dist = deal(shoe)
            assert Fraction(x, moments.scale * t) - 1 == expected_return(w, p, dist)
            assert Fraction(y, moments.scale ** 2 * t) + 1 == expected_square(w, p, dist)
    banker = found[0]
    assert banker is not None and sorted(banker.cross) == [1, 2]
    with native.pure():
        assert return_numerators(pairs, values, second=True, cross=True) == found


@pytest.mark.parametrize("decks,cut,seed", [(8, 14, 3), (6, 20, 17), (1, 14, 5)])
def test_exposure_by_batch_equals_exposure_shoe_by_shoe(decks, cut, seed, monkeypatch):
    """The same seeded shoes tallied through the batch route and shoe by shoe: equal tallies."""
    cat = load_catalogue()
    pairs = tuple((cat[w], t) for w, t in [("dragon-7-insurance", "standard"), ("tie", "9-to-1"),
                                           ("panda-8-insurance", "standard"), ("player-pair", "standard")])
    tags = ((0,) * 12 + (-1,) * 16 + (0,) * 16 + (1,) * 8,) * len(pairs)      # 0, 4-7: -1, 8-J: 0, Q-K: +1
    spec = ExposureSpec(pairs, decks, cut, seed, tags)
    batched = exposure_batch(spec, 0, 6)
    monkeypatch.setattr(exposure_module, "value_moments", lambda pairs, values, **how: [None] * len(pairs))
    alone = exposure_batch(spec, 0, 6)
    assert [asdict(t) for t in batched] == [asdict(t) for t in alone]
    assert batched[0].rounds > 6 * 5 and batched[0].by_tc and batched[0].sum_sq_threshold


@pytest.mark.parametrize("decks,team", [(8, False), (2, True)])
def test_a_batch_tallied_in_python_integers_throughout_gives_the_same_tallies(decks, team, monkeypatch):
    """The tally's int64 routes (each under a bound it checks; the kernels over int64 numerators) against Python
    integers everywhere: no bound holds when the largest int64 is taken to be 0."""
    cat = load_catalogue()
    pairs = tuple((cat[w], t) for w, t in [("dragon-7-insurance", "standard"), ("panda-8-insurance", "standard"),
                                           ("tie", "8-to-1"), ("banker", "standard")])       # one net each; two
    spec = ExposureSpec(pairs, decks, 14, 11, ((0,) * 12 + (-1,) * 16 + (0,) * 16 + (1,) * 8,) * len(pairs), team)
    fast = exposure_batch(spec, 0, 9)
    monkeypatch.setattr(exposure_module, "_INT64_MAX", 0)
    slow = exposure_batch(spec, 0, 9)
    monkeypatch.setattr(exposure_module, "value_moments", lambda pairs, values, route="auto", **how: [
        None if m is None else replace(m, ratio=None) for m in moment_arrays(pairs, values, **how)])
    squared = exposure_batch(spec, 0, 9)                         # the squared results summed, not read off the edges
    assert [t.to_json() for t in fast] == [t.to_json() for t in slow] == [t.to_json() for t in squared]
    assert fast[0].sum_sq_threshold and fast[1].histogram and (not team or fast[0].cross)


def test_a_wager_paying_one_net_has_its_squared_results_in_proportion_to_its_returns():
    """Dragon 7 pays 40 to 1 or loses: per key (40² − 1) = 39 · (40 + 1), so second = 39 · first; the Banker
    bet wins or pushes (two nets): no ratio."""
    cat = load_catalogue()
    values = np.array([Shoe.decks(8).value_counts, Shoe.decks(8).remove(*"AAAA").value_counts])
    d7, banker = moment_arrays([(cat["dragon-7-insurance"], cat["dragon-7-insurance"].paytable("standard")),
                                (cat["banker"], cat["banker"].paytable("standard"))], values, second=True)
    assert d7 is not None and banker is not None and d7.second is not None
    assert d7.ratio == 39 and d7.second.tolist() == [39 * x for x in d7.first.tolist()] and banker.ratio is None


def test_the_class_sums_are_int64_within_their_bound_and_python_integers_past_it():
    """Σ_c |v_c| · (largest count of c) below 2^63: int64; at 2^63 or more: Python integers, the same sums."""
    small = pricing._class_sums([Fraction(3), Fraction(-5)], np.array([[2**59, 3], [1, 2**59]]))
    assert small.dtype == np.int64 and small.tolist() == [3 * 2**59 - 15, 3 - 5 * 2**59]
    large = pricing._class_sums([Fraction(3), Fraction(-5)], np.array([[2**61, 3], [1, 2**61]]))
    assert large.dtype == object and large.tolist() == [3 * 2**61 - 15, 3 - 5 * 2**61]
    # the bound by the largest count of all (8 · 2^61) fails, the bound column by column (3 · 2^61 + 5 · 3) holds
    apart = pricing._class_sums([Fraction(3), Fraction(-5)], np.array([[2**61, 3], [1, -3]]))
    assert apart.dtype == np.int64 and apart.tolist() == [3 * 2**61 - 15, 18]
    # a value past int64 on counts of 0 (a bound of 0): Python integers, not an OverflowError from NumPy
    zero = pricing._class_sums([Fraction(2**70), Fraction(1)], np.zeros((2, 2), dtype=np.int64))
    assert zero.tolist() == [0, 0]


@pytest.mark.parametrize("counts,problem", [
    ([[5] + [0] * 9], "at least 6 cards"),
    ([[40, -1] + [32] * 8], "none below 0"),
    ([[32] * 13], "got shape"),
    ([[128.5] + [32] * 9], "whole numbers"),
    ([128] + [32] * 9, "got shape"),
])
def test_value_counts_that_are_no_shoe_are_refused(counts, problem):
    """A shoe of fewer than 6 cards, a negative count, ranks given for values, fractions of a card: one line,
    never a number (13 columns were once read as if they were 10 values)."""
    d7 = load_catalogue()["dragon-7-insurance"]
    with pytest.raises(ExactOddsError, match=problem):
        expected_returns(d7, d7.paytable("standard"), np.array(counts))


def test_no_shoes_no_returns():
    d7 = load_catalogue()["dragon-7-insurance"]
    assert expected_returns(d7, d7.paytable("standard"), np.zeros((0, 10), dtype=np.int64)) == []
