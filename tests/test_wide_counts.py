"""Counts past int64 but below 2**64 (shoes of 1,449 to 1,627 cards, about 28 to 31 decks) in machine integers.

The every-card counts there are one pass in ``uint64``: the categories per value multiset in int64 (they are
draws of a few values' cards, far below the shoe's bound), times the unread cards' draws, summed per key by
``wide_key_sums`` in 128 bits under a bound it proves (the pure route: modulo 2**64, exact as every count is
below it). Each route is held against the others and against a count in Python integers on shoes just below
and just above each bound: the int64 bound (1,448 cards), 2**64 (1,627 cards), and the categories' own bound
(1,448 cards of one value); past the last two the counts go modulo primes, as before.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from exactodds.engine import native
from exactodds.engine.distribution import deal
from exactodds.engine.identity import all_card_categories, categories_fit_int64
from exactodds.engine.multiset import compile_table
from exactodds.errors import InconsistentCounts
from exactodds.game.shoe import Shoe, int64_safe

core = native.kernels()
compiled = pytest.mark.skipif(core is None, reason=f"the compiled core is not in use here: {native.status()}")

POINT = ("banker", "banker_cards", "player", "player_cards")
CARDS = [f"{r}{s}" for r in "A23456789TJQK" for s in "shdc"]


def _cards(shoe: Shoe, size: int) -> Shoe:
    """``shoe`` less its first cards, one of each in turn, down to ``size`` cards."""
    return shoe.remove(*(CARDS * 10)[:shoe.size - size])


def _tens(per_rank: int, aces: int) -> Shoe:
    """A shoe of ``per_rank`` cards of each ten-valued rank and ``aces`` aces, spread over the suits."""
    counts = {f"{r}{s}": n // 4 + (k < n % 4) for r, n in (("T", per_rank), ("J", per_rank), ("Q", per_rank),
                                                            ("K", per_rank), ("A", aces)) for k, s in enumerate("shdc")}
    return Shoe.from_card_counts(counts)


#: (shoe, the dtype of its every-card counts: the route taken)
SHOES = {
    "1,448 cards (int64)": (_cards(Shoe.decks(28), 1448), np.int64),
    "1,449 cards (past int64)": (_cards(Shoe.decks(28), 1449), np.uint64),
    "30 decks": (Shoe.decks(30), np.uint64),
    "1,627 cards (below 2^64)": (_cards(Shoe.decks(32), 1627), np.uint64),
    "1,628 cards (past 2^64: primes)": (_cards(Shoe.decks(32), 1628), object),
    "1,440 tens of 1,600 cards": (_tens(360, 160), np.uint64),
    "1,480 tens of 1,600 cards (primes)": (_tens(370, 120), object),
}


def _in_python_integers(shoe: Shoe, names: tuple[str, ...]) -> list[int]:
    """The every-card counts per key with every product and sum in Python integers."""
    table = compile_table(names)
    values, read = table.value_multiplicities()
    per = all_card_categories(shoe, values).astype(object)         # int64 (checked), or Python integers
    tail = np.array([math.perm(shoe.size - k, 6 - k) for k in range(7)], dtype=object)[read]
    terms = (per * tail[:, None])[table.entry_multiset] * table.entry_orderings.astype(object)[:, None]
    return [int(x) for x in np.add.reduceat(terms, table.key_starts, axis=0).ravel()]


def test_the_shoes_sit_either_side_of_each_bound() -> None:
    below, above = SHOES["1,627 cards (below 2^64)"][0], SHOES["1,628 cards (past 2^64: primes)"][0]
    assert below.sequences < 2**64 <= above.sequences
    assert int64_safe(SHOES["1,448 cards (int64)"][0].size) and not int64_safe(SHOES["1,449 cards (past int64)"][0].size)
    assert categories_fit_int64(SHOES["1,440 tens of 1,600 cards"][0])
    tens = SHOES["1,480 tens of 1,600 cards (primes)"][0]
    assert not categories_fit_int64(tens) and tens.sequences < 2**64


@pytest.mark.parametrize("name", sorted(SHOES))
def test_every_card_counts_compiled_and_pure_equal_python_integers(name: str) -> None:
    shoe, dtype = SHOES[name]
    want = _in_python_integers(shoe, POINT)
    assert sum(want) == shoe.sequences
    got = deal(shoe).every_card_counts(POINT)
    with native.pure():
        pure = deal(shoe).every_card_counts(POINT)
    assert got.dtype == pure.dtype == np.dtype(dtype)
    assert [int(x) for x in got.ravel()] == [int(x) for x in pure.ravel()] == want


# -- the kernel -----------------------------------------------------------------------------------

def _u64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.uint64)


def _i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


@compiled
def test_the_wide_key_sums_are_exact_where_terms_pass_2_64_and_refuse_a_sum_outside_it() -> None:
    top = 2**64 - 1
    out = np.empty(1, dtype=np.uint64)
    core.wide_key_sums(_u64(top, top), 1, _i64(0, 1), _i64(2, -1), _i64(0), out)     # 2^65 - 2 on the way
    assert int(out[0]) == top
    with pytest.raises(OverflowError):                                              # 2^65 - 2
        core.wide_key_sums(_u64(top), 1, _i64(0), _i64(2), _i64(0), out)
    with pytest.raises(OverflowError):                                              # below 0
        core.wide_key_sums(_u64(1), 1, _i64(0), _i64(-1), _i64(0), out)
    core.wide_key_sums(_u64(0, 0), 1, _i64(0, 1), _i64(2**62, 2**62), _i64(0), out)  # H x e = 2^63: proven
    with pytest.raises(OverflowError):                                              # 3 x 2^62: not, refused
        core.wide_key_sums(_u64(0, 0, 0), 1, _i64(0, 1, 2), _i64(2**62, 2**62, 2**62), _i64(0), out)


@compiled
def test_the_wide_key_sums_refuse_an_index_out_of_range_or_another_type() -> None:
    out = np.empty(1, dtype=np.uint64)
    with pytest.raises(IndexError):                     # an entry's multiset past the weights
        core.wide_key_sums(_u64(1), 1, _i64(1), _i64(1), _i64(0), out)
    with pytest.raises(IndexError):                     # a key starting past the entries
        core.wide_key_sums(_u64(1), 1, _i64(0), _i64(1), _i64(2), out)
    with pytest.raises(TypeError):                      # weights in uint64 only
        core.wide_key_sums(_i64(1), 1, _i64(0), _i64(1), _i64(0), out)
    with pytest.raises(TypeError):                      # and the sums
        core.wide_key_sums(_u64(1), 1, _i64(0), _i64(1), _i64(0), np.empty(1, dtype=np.int64))


@compiled
def test_an_overflow_in_a_wide_table_sum_is_one_line_naming_a_defect_never_a_number() -> None:
    table = compile_table(POINT)
    huge = np.full((len(table.multisets), 6), 2**63, dtype=np.uint64)
    with pytest.raises(InconsistentCounts, match=r"counts by banker, .*: wide_key_sums: a count does not fit 64 bits"):
        table.wide_key_sums(huge)
