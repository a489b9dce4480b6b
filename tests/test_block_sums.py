"""Counts per block of a table's keys (issue 38: the main game at C speed).

A selection of wagers that settle some keys of the point table alike (the main game's four paytables read
three blocks of its 205 keys) is counted once per block: the table's entries merged per (block, multiset),
weights and sums in one call of the compiled kernel (``block_sums``, exact in 128 bits under a bound it
proves first), by a dense matrix for a few blocks and by the merged entries for more. These tests hold it
against the table's counts per key summed by hand, compiled and pure, on shoes from one deck less many
cards to past the kernel's bound (where it hands over to the modular route), and every priced line of
the catalogue against the line priced wager by wager; then what the kernel must refuse.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exactodds.analyses.analysis import select
from exactodds.analyses.pricing import price, priced_together, settled_together
from exactodds.engine import native
from exactodds.engine.distribution import deal
from exactodds.engine.multiset import _DENSE_BLOCKS, compile_table
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import load_catalogue

from .strategies import depleted_shoes

core = native.kernels()
compiled = pytest.mark.skipif(core is None, reason=f"the compiled core is not in use here: {native.status()}")

POINT = ("banker", "banker_cards", "player", "player_cards")

SHOES = {
    "8 decks": Shoe.decks(8),
    "1 deck less 9 cards": Shoe.decks(1).remove("9s", "9h", "9d", "9c", "8s", "8h", "Ks", "Qd", "5c"),
    "7 cards": Shoe.decks(1).remove(*[f"{r}{s}" for r in "A23456789TJQK" for s in "shdc"][:45]),
    "30 decks (past int64)": Shoe.decks(30),
    "40 decks (past the kernel's bound)": Shoe.decks(40),
}


def _by_hand(shoe: Shoe, key_block: np.ndarray) -> list[int]:
    """The table's counts per key, added up per block in Python integers."""
    out = [0] * (int(key_block.max()) + 1)
    for b, n in zip(key_block.tolist(), compile_table(POINT).counts(shoe).tolist()):
        out[b] += int(n)
    return out


@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SHOES)), st.integers(1, 40), st.randoms(use_true_random=False))
def test_the_counts_per_block_are_the_counts_per_key_added_up(name: str, blocks: int, rnd: object) -> None:
    """Any partition of the keys, dense (up to the dense layout's blocks) or sparse, compiled or pure."""
    table, shoe = compile_table(POINT), SHOES[name]
    key_block = np.array([rnd.randrange(blocks) for _ in table.keys], dtype=np.int64)  # type: ignore[attr-defined]
    key_block = np.unique(key_block, return_inverse=True)[1].reshape(-1).astype(np.int64)   # blocks from 0, none empty
    want = _by_hand(shoe, key_block)
    assert sum(want) == shoe.sequences
    assert table.block_counts(shoe, key_block) == want
    with native.pure():
        assert table.block_counts(shoe, key_block) == want


@compiled
def test_both_layouts_of_the_kernel_are_used_and_agree() -> None:
    """The main game's three blocks read the dense matrix; the same keys split further, the merged entries."""
    table, shoe = compile_table(POINT), Shoe.decks(6).remove("5s", "5h", "Td")
    banker, player = table.columns["banker"], table.columns["player"]
    three = np.where(banker > player, 0, np.where(player > banker, 1, 2)).astype(np.int64)
    many = three * 100 + table.columns["banker_cards"] * 10 + table.columns["player_cards"]
    many = np.unique(many, return_inverse=True)[1].reshape(-1).astype(np.int64)
    assert table._merged(three)[0] is None and int(many.max()) + 1 > _DENSE_BLOCKS
    assert table._merged(many)[0] is not None
    got = table.block_counts(shoe, many)
    folded = [0, 0, 0]
    for block, outcome in {int(b): int(o) for b, o in zip(many, three)}.items():
        folded[outcome] += got[block]
    assert folded == table.block_counts(shoe, three) == _by_hand(shoe, three)


@pytest.mark.parametrize("shoe", [Shoe.decks(8).remove("9s", "9h", "8d"), Shoe.decks(30), Shoe.decks(40)],
                         ids=["8 decks less 3", "30 decks (sums in uint64)", "40 decks (past 2^64: in Python integers)"])
def test_every_line_of_the_catalogue_counted_together_is_the_line_priced_alone(shoe: Shoe) -> None:
    """settled_together (one count per block of the keys every pair pays alike) and priced_together (the lines
    read from the blocks' counts) against price's own route (each pair's counts per key, grouped by its
    outcomes), for every pair of the catalogue, and for the main game's four paytables alone (one block each)."""
    for pairs in ([(w, w.paytables[t]) for w, t in select(load_catalogue(), everything=True)],
                  [(w, w.paytables[t]) for w, t in select(load_catalogue(), wagers=("banker", "player", "tie"))]):
        dist = deal(shoe)
        together, results = settled_together(pairs, dist), priced_together(tuple(pairs), dist)
        assert set(together) == set(results) and len(together) >= min(40, len(pairs))
        for i, (w, t) in enumerate(pairs):
            if i in together:
                alone = [(x.id, x.combinations) for x in price(w, t, deal(shoe)).lines]
                assert [(x.id, x.combinations) for x in price(w, t, dist, together[i]).lines] == alone, w.id
                assert [(x.id, x.combinations) for x in results[i].lines] == alone, w.id
                assert results[i].total == shoe.sequences and results[i].paytable is t


# -- what the kernel must refuse -------------------------------------------------------------------

def _args() -> list[object]:
    """block_plan's arguments for the point table in 20 blocks (the merged entries' layout)."""
    table = compile_table(POINT)
    multiset, orderings, starts = table._merged(np.arange(len(table.keys), dtype=np.int64) % 20)
    return [*table._halves32(), multiset, orderings, starts]


_TOKENS = (*Shoe.decks(8).value_counts, Shoe.decks(8).size)


@compiled
def test_an_index_out_of_range_in_the_block_kernel_is_refused_when_its_plan_is_made() -> None:
    args = _args()
    assert sum(core.block_sums(_TOKENS, core.block_plan(*args))) == Shoe.decks(8).sequences
    for at, bad in ((0, np.int32(9_999)), (0, np.int32(-1)), (1, np.int32(9_999)), (3, np.int32(-1)),
                    (4, np.int32(1 << 30))):
        broken = list(args)
        arr = np.array(broken[at], copy=True)
        arr.reshape(-1)[0] = bad
        broken[at] = arr
        if at == 0 and bad == 9_999:                 # a slot past the shoe's tokens: refused by the sums
            with pytest.raises(ValueError, match="reaching every slot"):
                core.block_sums(_TOKENS, core.block_plan(*broken))
            continue
        with pytest.raises(IndexError):
            core.block_plan(*broken)
    broken = list(args)
    broken[6] = np.array([0, 10**9], dtype=np.int64)                     # a block starting past the entries
    with pytest.raises(IndexError):
        core.block_plan(*broken)


@compiled
def test_a_plan_is_held_by_the_kernel_so_that_changing_the_arrays_it_was_made_from_changes_nothing() -> None:
    args = [np.array(a, copy=True) for a in _args()]                   # copies: the table keeps its own
    plan = core.block_plan(*args)
    want = core.block_sums(_TOKENS, plan)
    for arr in args:
        arr.reshape(-1)[:] = 0 if arr.dtype != np.int32 else -7            # the caller's arrays, spoiled
    assert core.block_sums(_TOKENS, plan) == want
    with pytest.raises(TypeError):                                       # a plan is the kernel's own object
        core.block_sums(_TOKENS, args[0])


@compiled
def test_the_block_kernel_refuses_a_shoe_past_its_bound_and_the_table_counts_it_modulo_primes() -> None:
    """Past F^6 < 2^64 the kernel refuses (OverflowError); block_counts then counts by the modular route."""
    with pytest.raises(OverflowError):
        core.block_sums((*(2_000,) * 10, 20_000), core.block_plan(*_args()))
    table, shoe = compile_table(POINT), Shoe.decks(40)
    key_block = (table.columns["banker"] > table.columns["player"]).astype(np.int64)
    assert table.block_counts(shoe, key_block) == _by_hand(shoe, key_block)


@compiled
def test_the_block_kernel_reads_only_the_types_it_names() -> None:
    args = _args()
    with pytest.raises(TypeError):
        core.block_sums(np.array(_TOKENS), core.block_plan(*args))       # tokens: a tuple
    for token in (-1, -(2**63)):                                         # counts of cards: never below 0
        with pytest.raises(ValueError, match="below 0"):
            core.block_sums((token, *_TOKENS[1:]), core.block_plan(*args))
    for at, wrong in ((0, np.asarray(args[0], dtype=np.int64)), (5, np.asarray(args[5], dtype=np.int64))):
        broken = list(args)
        broken[at] = wrong
        with pytest.raises(TypeError):
            core.block_plan(*broken)
    dense = np.zeros((len(args[1]), 9), dtype=np.uint16)                # more blocks than the dense layout
    with pytest.raises(ValueError):
        core.block_plan(*args[:4], None, dense, None)
