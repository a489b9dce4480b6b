"""Counting at the level of multisets: compile once, then price any shoe with a sparse sum.

A round's weight in a shoe — the number of ordered 6-card sequences that
produce it (the published convention) — depends only on *which* cards it
reads, as a multiset, and on how many; what a wager reads depends on their
order. So the order-dependent part is compiled once per process, shoe-free:
for a set of features, every way the deal can come out is walked (the round
table of :mod:`exactodds.engine`, refined to ranks or suits exactly where the
features read them) and summed into sparse entries

    (multiset of cards read, feature key)  ->  number of orderings.

Per shoe only the multisets' weights are computed — products of falling
factorials, six factors each — and summed into each key:

    count(key) = Σ_multiset  orderings(multiset, key) × Π_atoms (n_a)_(m_a) × (N-k)...(N-5)

Cards are read at the coarsest *resolution* the features need: point values
(the drawing rules), ranks, suits within a value class, or whole cards. A
card read only for its value, in a class where other cards are read finer,
contributes ``(n_v - r_v)_(u_v)``, the ways to draw it from what the finer
cards leave. A position no feature reads is not read at all: it falls into
the tail factors, exactly like the unread cards of a short round.

>>> t = compile_table(("banker", "banker_cards", "player", "player_cards"))
>>> len(t.multisets), len(t.keys), len(slot_values())     # value multisets, point keys, rounds
(6958, 205, 339400)
>>> from exactodds.game.shoe import Shoe
>>> counts = t.counts(Shoe.decks(8))
>>> int(counts.sum()) == Shoe.decks(8).sequences
True
>>> p = compile_table(("player_rank_1", "player_rank_2", "banker_rank_1", "banker_rank_2"))
>>> len(p.keys), p.resolution                            # every ordered rank quadruple
(28561, 'rank')
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from exactodds import cache
from exactodds.engine import bounds, native, tens
from exactodds.engine.columns import INITIAL_SLOTS, VALUES_READ, identity_columns, slots_read, value_columns
from exactodds.engine.modular import crt, primes_for
from exactodds.engine.roundtable import slot_values
from exactodds.errors import ExactOddsError, InconsistentCounts, SuitsUnknown, TooLarge
from exactodds.game.cards import Rank
from exactodds.game.shoe import CARDS_PER_ROUND, Shoe, int64_safe
from exactodds.wagers.outcomes import (
    ALL_CARD_FEATURES,
    DERIVED,
    KNOWN_FEATURES,
    POINT_FEATURES,
    SUITS_TOLD_APART,
    VALUE_LEVEL,
)

__all__ = ["MultisetTable", "compile_table", "told_apart", "Varies", "resolution_of", "SUITS", "EVERY_SUIT", "BY_COLOUR",
           "estimate", "RESOLUTIONS",
           "slot_values", "codes", "point_names"]

#: How finely cards are read, coarsest first ('colour': a point value and whether the card is red or black).
RESOLUTIONS = ("value", "rank", "colour", "suit", "card")
#: Suit letters by suit code (0-3).
SUITS = "shdc"
#: Suits told apart, as a partition of ``SUITS`` into blocks joined by '|' (see :func:`compile_table`):
#: every suit its own block (no symmetry), or one block (a condition that names no suit).
EVERY_SUIT = "s|h|d|c"
#: How finely a table of suits alone tells them apart where its wagers read each card's suit only by its colour,
#: proven from their conditions (:func:`exactodds.engine.walk.suits_by_colour`): each card is read as red or
#: black, its suit never (the table's resolution is then 'colour').
BY_COLOUR = "colour"
#: A single position's suit (``player_suit_1`` ...): the features a table read by colour may read beside points.
_ONE_SUIT = re.compile(r"(player|banker)_suit_[123]")
#: The suits (codes of ``SUITS``) of each colour: black (spades, clubs), red (hearts, diamonds); a table over
#: colours writes each colour as its first suit.
_COLOURS = ((0, 3), (1, 2))

_POINTS = np.array([r.points for r in Rank], dtype=np.int8)          # by rank code 0-12
_OFFSETS = CARDS_PER_ROUND                                           # factor slots per token
_INITIAL_VALUES = frozenset({"player_value_1", "player_value_2", "banker_value_1", "banker_value_2",
                             "player_two_card_total", "banker_two_card_total"})


def _join(a: str, b: str) -> str:
    """The coarsest resolution finer than both."""
    if a == b or b == "value":
        return a
    if a == "value":
        return b
    return "card"


@functools.cache
def _atoms(resolution: str, told: str = EVERY_SUIT) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Atoms of a resolution: (value, rank or -1, suit or -1) per atom id. A table of ranks that tells the
    ten-valued ranks apart by a split ``told`` (:mod:`exactodds.engine.tens`) has one atom per block, written
    as the block's first rank, after the nine ranks of one value each."""
    if resolution == "rank" and tens.coarser(told):
        ranks = np.array([*range(9), *(block[0] - 1 for block in tens.blocks_of(told))])
        return _POINTS[ranks], ranks, np.full(len(ranks), -1)
    if resolution == "rank":
        return _POINTS.copy(), np.arange(13), np.full(13, -1)
    if resolution == "suit":
        return np.repeat(np.arange(10), 4), np.full(40, -1), np.tile(np.arange(4), 10)
    if resolution == "colour":                     # black written as spades, red as hearts
        return np.repeat(np.arange(10), 2), np.full(20, -1), np.tile([s[0] for s in _COLOURS], 10)
    if resolution == "card":
        return np.repeat(_POINTS, 4), np.repeat(np.arange(13), 4), np.tile(np.arange(4), 13)
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)


@functools.cache
def _atoms_by_value(resolution: str, told: str = EVERY_SUIT) -> tuple[np.ndarray, np.ndarray]:
    """(number of atoms of each value, (10, width) table of their ids)."""
    value, _r, _s = _atoms(resolution, told)
    per = [np.flatnonzero(value == v) for v in range(10)]
    width = max(len(p) for p in per)
    table = np.zeros((10, width), dtype=np.int64)
    for v, ids in enumerate(per):
        table[v, :len(ids)] = ids
    return np.array([len(p) for p in per]), table


#: In a table of suit patterns that reads ranks, the 'rank' of a ten-valued card read for its suit alone
#: (any of 10, J, Q, K): its atoms follow the 52 cards', one per suit (see :func:`_every_card_leaves`).
ANY_TEN = 13


def _pattern_atom_counts(shoe: Shoe, resolution: str) -> list[int]:
    """The cards of each atom of a table of suit patterns: per (point value, suit), or per card and then
    per suit the ten-valued cards (:data:`ANY_TEN`)."""
    counts = _atom_counts(shoe, resolution)
    if resolution == "card":
        counts += [sum(counts[r * 4 + x] for r in range(13) if _POINTS[r] == 0) for x in range(4)]
    return counts


def _atom_counts(shoe: Shoe, resolution: str, told: str = EVERY_SUIT) -> list[int]:
    if resolution == "rank":
        ranks = list(shoe.rank_counts)
        if tens.coarser(told):     # the ten-valued ranks per block of the split
            return ranks[:9] + [sum(ranks[r - 1] for r in block) for block in tens.blocks_of(told)]
        return ranks
    if shoe.card_counts is None:
        raise SuitsUnknown(
            "it reads suits, but the shoe's suits are unknown (cards were given by rank only); "
            "give removed cards with their suits, e.g. 9h"
        )
    cards = shoe.card_counts
    if resolution == "card":
        return list(cards)
    if resolution == "colour":
        return [sum(cards[r * 4 + s] for r in range(13) if _POINTS[r] == v for s in suits)
                for v in range(10) for suits in _COLOURS]
    return [sum(cards[r * 4 + s] for r in range(13) if _POINTS[r] == v) for v in range(10) for s in range(4)]


@dataclass(frozen=True, eq=False)
class MultisetTable:
    """Sparse (multiset, feature key) -> orderings, for one set of features (shoe-free).

    ``keys[k]`` is a tuple of feature values in :attr:`names` order and
    ``columns[name][k]`` the same values as NumPy columns; ``multisets`` holds
    each multiset's six indices into the per-shoe factor vector; the entries
    (``entry_multiset``, ``entry_orderings``) are sorted by key, key ``k``'s
    starting at ``key_starts[k]``.
    """

    names: tuple[str, ...]
    resolution: str
    keys: tuple[tuple[Any, ...], ...]
    columns: dict[str, np.ndarray] = field(repr=False)
    multisets: np.ndarray = field(repr=False)
    entry_multiset: np.ndarray = field(repr=False)
    entry_orderings: np.ndarray = field(repr=False)
    key_starts: np.ndarray = field(repr=False)
    leaves: int = 0
    from_disk: bool = field(default=False, repr=False)
    #: The suits the table tells apart (see :func:`compile_table`); suits in one block are read up
    #: to a permutation, by suit pattern.
    told: str = EVERY_SUIT
    #: For a table read by suit pattern: each entry's pattern, and each pattern's images (their atoms'
    #: factor indices, how many suit assignments each stands for), pattern ``p``'s from ``pattern_starts[p]``.
    entry_pattern: np.ndarray | None = field(default=None, repr=False)
    pattern_images: np.ndarray | None = field(default=None, repr=False)
    pattern_multiplicity: np.ndarray | None = field(default=None, repr=False)
    pattern_starts: np.ndarray | None = field(default=None, repr=False)
    #: The wagers the table was compiled for, where it skips suits they do not need (see :class:`Varies`).
    varies: Varies | None = field(default=None, repr=False)

    @property
    def patterned(self) -> bool:
        """Whether suits are read by pattern (the multisets then hold point values only)."""
        return self.entry_pattern is not None

    def factors(self, shoe: Shoe, dtype: Any = object) -> np.ndarray:
        """Slot ``t*6 + o`` holds ``n_t - o`` for atom or value token ``t``; the tail
        slots hold ``N - j``; a table read by suit pattern has one more slot, 1, for a card read by its suit."""
        atoms = _atom_counts(shoe, self.resolution, self.told) if self.resolution != "value" and not self.patterned \
            else []
        counts = [*atoms, *shoe.value_counts]
        return _falling(counts, shoe.size, dtype, one=self.patterned)

    def atom_factors(self, shoe: Shoe, dtype: Any = object) -> np.ndarray:
        """For a table read by suit pattern: slot ``a*6 + o`` holds ``n_a - o`` for atom ``a`` (a point value
        or rank, with a suit), and the last slot 1."""
        return _falling(_pattern_atom_counts(shoe, self.resolution), None, dtype, one=True)

    def value_multiplicities(self) -> tuple[np.ndarray, np.ndarray]:
        """For a table read at point values: each multiset's cards per value ``(M, 10)``
        and how many cards it reads."""
        if self.resolution != "value":
            raise ValueError("value multiplicities exist for point-value tables only")
        if "_per_value" not in self.__dict__:                  # shoe-free: built once per table
            shared = self.multisets.tobytes()
            if shared not in _PER_VALUE:                       # tables of the same multisets share one array,
                tokens = self.multisets // _OFFSETS            # so work keyed on it is done once a shoe
                per_value = np.stack([(tokens == v).sum(1) for v in range(10)], axis=1)
                cards = per_value.sum(1)
                for kept in (per_value, cards):        # handed out again and again: a change would go unseen
                    kept.flags.writeable = False
                _PER_VALUE[shared] = (per_value, cards)
            self.__dict__["_per_value"] = _PER_VALUE[shared]
        return self.__dict__["_per_value"]  # type: ignore[no-any-return]

    def counts(self, shoe: Shoe) -> np.ndarray:
        """Ordered 6-card sequences of ``shoe`` per key (aligned with :attr:`keys`).

        In ``int64`` while the shoe's counts fit it; beyond, modulo primes and
        rebuilt exactly (:mod:`exactodds.engine.modular`).
        """
        if int64_safe(shoe.size):
            atoms = self.atom_factors(shoe, np.int64) if self.patterned else None
            out = self._sum(self.factors(shoe, np.int64), atoms, None)
        else:
            primes = primes_for(shoe.sequences, bits=self.modulus_bits)
            factors = np.maximum(self.factors(shoe), 0).astype(np.uint64)  # a negative factor meets a 0 first
            atoms = np.maximum(self.atom_factors(shoe), 0).astype(np.uint64) if self.patterned else None
            out = crt([self._sum(factors, atoms, p) for p in primes], primes)
        if int(out.sum()) != shoe.sequences:          # an invariant of the counting, never of the input
            raise self.inconsistent(f"counts by {', '.join(self.names)} do not add up to the shoe's sequences "
                                    f"({int(out.sum())}, not {shoe.sequences})")
        return out

    def block_counts(self, shoe: Shoe, key_block: np.ndarray) -> list[int]:
        """Ordered 6-card sequences of ``shoe`` per block of keys (``key_block[k]``: key ``k``'s block, blocks
        numbered from 0), as Python integers: the counts a selection of wagers needs when it settles the keys
        of a block alike (the main game's three outcomes, say, read from 205 keys).

        By the compiled kernel where it is built, over the table's entries merged per (block, multiset), shoe-free
        and made once per ``key_block``: weights and sums in one call, exact in 128 bits under a bound it proves
        first (to about 31 decks); else, and past the bound, by :meth:`counts` summed per block. The invariant
        is checked either way: the blocks add up to the shoe's sequences.

        >>> t = compile_table(("banker", "player"))
        >>> banker_wins = np.array([int(b > p) for b, p in t.keys])
        >>> t.block_counts(Shoe.decks(8), banker_wins)[1]
        2292252566437888
        """
        core = native.kernels()
        out: list[int] | None = None
        if core is not None and self._summed_by_kernel():
            tokens = (*_atom_counts(shoe, self.resolution, self.told), *shoe.value_counts, shoe.size) \
                if self.resolution != "value" else (*shoe.value_counts, shoe.size)
            kept = self._by_blocks(key_block)
            try:
                out = core.block_sums(tokens, kept[2] if kept[2] is not None else self._block_plan(core, key_block))
            except OverflowError:                      # past the kernel's bound: the modular route below
                pass
        if out is None:
            by_key = self.counts(shoe)
            out = [0] * (int(key_block.max(initial=-1)) + 1)
            for b, n in zip(key_block.tolist(), by_key.tolist()):
                out[b] += n
        if sum(out) != shoe.sequences:                 # an invariant of the counting, never of the input
            raise self.inconsistent(f"counts by {', '.join(self.names)} per block do not add up to the shoe's "
                                    f"sequences ({sum(out)}, not {shoe.sequences})")
        return out

    def _summed_by_kernel(self) -> bool:
        """Whether :meth:`block_counts` sums by the compiled kernel (not a table of suit patterns, and more than
        one card read), kept on the table."""
        kept = self.__dict__.get("_by_kernel")
        if kept is None:
            kept = self.__dict__["_by_kernel"] = not self.patterned and len(self._by_card()) > 1
        return kept  # type: ignore[no-any-return]

    def _merged(self, key_block: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
        """The entries merged per (block, multiset), shoe-free, kept per ``key_block``: for a few blocks, a
        dense (multisets, blocks) matrix of orderings (``None``, it, ``None``); else their multisets (``int32``),
        orderings and each block's first entry (``int64``). Orderings are ``uint16``: a merged entry holds at
        most a multiset's 6! orderings."""
        return self._by_blocks(key_block)[1]  # type: ignore[no-any-return]

    def _block_plan(self, core: Any, key_block: np.ndarray) -> Any:
        """The compiled kernel's plan of :meth:`_merged` with :meth:`_halves32`: their indices checked once
        and held where no Python code can change them, so that each shoe's sums read them unchecked."""
        kept = self._by_blocks(key_block)
        if kept[2] is None:
            kept[2] = core.block_plan(*self._halves32(), *kept[1])
        return kept[2]

    def _by_blocks(self, key_block: np.ndarray) -> list[Any]:
        """What is kept per ``key_block`` (the caller's own array, kept beside: never another's): [it,
        :meth:`_merged`, the kernel's plan or None until asked]."""
        memo: dict[int, list[Any]] = self.__dict__.setdefault("_merged_by", {})
        kept = memo.get(id(key_block))
        if kept is not None and kept[0] is key_block:
            return kept
        kept = [key_block, self._merge_blocks(key_block), None]
        if len(memo) >= 64:                            # a session trying many selections: the oldest go
            memo.pop(next(iter(memo)))
        memo[id(key_block)] = kept
        return kept

    def _merge_blocks(self, key_block: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
        key_block = np.asarray(key_block, dtype=np.int64)
        if len(key_block) != len(self.keys) or (len(key_block) and int(key_block.min()) < 0):
            raise ValueError("key_block: one block number (from 0) per key of the table")
        blocks = int(key_block.max(initial=-1)) + 1
        sizes = np.diff(np.r_[self.key_starts, len(self.entry_multiset)])
        code = np.repeat(key_block, sizes) * len(self.multisets) + self.entry_multiset
        pairs, which = np.unique(code, return_inverse=True)
        orderings = np.zeros(len(pairs), dtype=np.int64)
        np.add.at(orderings, which.reshape(-1), self.entry_orderings.astype(np.int64))
        if int(orderings.max(initial=0)) > math.factorial(CARDS_PER_ROUND):    # a multiset's orderings, split
            raise self.inconsistent("a multiset's orderings over its keys pass 6!")     # among its keys
        multiset, block = pairs % len(self.multisets), pairs // len(self.multisets)
        merged: tuple[np.ndarray | None, np.ndarray, np.ndarray | None]
        if blocks <= _DENSE_BLOCKS:
            dense = np.zeros((len(self.multisets), blocks), dtype=np.uint16)
            dense[multiset, block] = orderings
            merged = (None, dense, None)
        else:
            merged = (np.ascontiguousarray(multiset, dtype=np.int32), orderings.astype(np.uint16),
                      np.searchsorted(block, np.arange(blocks)).astype(np.int64))
        return merged

    def _halves32(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The halves of :meth:`_weights` (each distinct first and second half of the multisets' slots, and
        which each multiset takes) in ``int32``, for the compiled kernel."""
        if "_halves_int32" not in self.__dict__:
            self.__dict__["_halves_int32"] = tuple(np.ascontiguousarray(a, dtype=np.int32) for a in self._halves())
        return self.__dict__["_halves_int32"]  # type: ignore[no-any-return]

    def sums_many(self, value_counts: np.ndarray, multisets: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """For many shoes at once: Σ over ``multisets`` (indices into :attr:`multisets`) of the shoe's
        weight of the multiset times its row of ``weights`` (shoe-free integers, one column per sum).

        A shoe's weight of a multiset is the product of the falling factors its cards take from the
        shoe: the shoe-dependent half of :meth:`counts` (the other, the orderings, is the same for every
        shoe and belongs in ``weights``). ``value_counts`` holds each shoe's cards per point value, shape
        (shoes, 10); the result is ``int64``, shape (shoes, columns of ``weights``). The caller sees that every sum fits 64
        bits (its terms are non-negative and none is larger than the sum); a weight is at most the shoe's
        ordered 6-card sequences, and :func:`int64_safe` is checked for the largest shoe. Shoes go in
        blocks of :data:`_SHOES_PER_BLOCK`, so that a block's weights stay in the processor's cache.
        For point-value tables only (others tell ranks or suits apart, which value counts do not give).
        """
        if self.resolution != "value" or self.patterned:
            raise ValueError("sums for many shoes exist for point-value tables only")
        sizes = value_counts.sum(axis=1)
        if len(sizes) and not int64_safe(int(sizes.max())):
            raise ValueError("a shoe too large for 64-bit weights")
        out = np.empty((len(sizes), weights.shape[1]), dtype=np.int64)
        core = native.kernels()
        if core is not None:                           # exact by a checked bound or counted again: never a wrap
            slots, parents, level_sizes, term_parent, term_slot, term_weight, starts = self._terms(multisets, weights)
            try:
                core.batch_sums(np.ascontiguousarray(value_counts, dtype=np.int64), slots, parents, level_sizes,
                                term_parent, term_slot, term_weight, starts, out)
            except OverflowError as exc:               # the caller's bound broken: a defect, one line
                raise self.inconsistent(f"sums for many shoes by {', '.join(self.names)}: {exc}") from None
            return out
        levels, last = self._prefix_tree(multisets)
        weights = weights[np.argsort(last)]            # rows in the order of the tree's last level
        tokens = np.concatenate([value_counts, sizes[:, None]], axis=1).astype(np.int64)
        f = (tokens[:, :, None] - np.arange(_OFFSETS, dtype=np.int64)).reshape(len(sizes), tokens.shape[1] * _OFFSETS)
        for first in range(0, len(sizes), _SHOES_PER_BLOCK):
            block = f[first:first + _SHOES_PER_BLOCK]
            slots, _ = levels[0]
            w = np.take(block, slots, axis=1)
            for slots, parents in levels[1:]:         # a negative factor meets a 0 first: the product is 0
                w = np.take(w, parents, axis=1) * np.take(block, slots, axis=1)
            out[first:first + _SHOES_PER_BLOCK] = w @ weights
        return out

    def _terms(self, multisets: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, ...]:
        """The compiled kernel's arrays for :meth:`sums_many`: :meth:`_flat_tree`'s inner levels, then its
        terms column by column (a zero costs nothing), by weight and last slot within a column (a group of one
        weight and last slot: its items added up, then one product by the slot's factor and one by the weight):
        each term's parent in the last level, its last slot, its weight, and where each column's terms start.
        Shoe-free: kept for the last few (``multisets``, ``weights``), which a run's batches
        share (the very arrays, checked by identity)."""
        memo: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]] = \
            self.__dict__.setdefault("_terms_memo", {})
        found = memo.get((id(multisets), id(weights)))
        if found is not None and found[0] is multisets and found[1] is weights:
            return found[2]
        slots, parents, level_sizes, last_slots, last_parents = self._flat_tree(multisets)
        ordered = weights[np.argsort(self._prefix_tree(multisets)[1])]     # rows as the tree's last level
        column, leaf = np.nonzero(ordered.T)
        weight = ordered[leaf, column].astype(np.int64)
        by = np.lexsort((leaf, last_slots[leaf], weight, column))
        column, leaf, weight = column[by], leaf[by], weight[by]
        made = (slots, parents, level_sizes, last_parents[leaf], last_slots[leaf], weight,
                np.searchsorted(column, np.arange(weights.shape[1] + 1)).astype(np.int64))
        if len(memo) >= 8:
            memo.pop(next(iter(memo)))
        memo[(id(multisets), id(weights))] = (multisets, weights, made)
        return made

    def _prefix_tree(self, multisets: np.ndarray) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
        """The weights of ``multisets`` as a tree of shared products, for :meth:`sums_many`.

        A weight is the product of six factors, one per card (its slots in :meth:`factors`), and many
        multisets share their first cards: level k lists the distinct first k + 1 slots, each as (its
        slot, the index of its first k slots in level k − 1). Dragon 7's 2,116 multisets have 6, 29,
        115, 389, 1,094 and 2,116 distinct prefixes: 3,749 products instead of 12,696. Also returned:
        each multiset's place in the last level.
        """
        memo: dict[bytes, tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]] = \
            self.__dict__.setdefault("_trees", {})
        key = multisets.tobytes()
        if key not in memo:
            rows = self._by_card()[:, multisets]
            levels: list[tuple[np.ndarray, np.ndarray]] = []
            parent_of = np.zeros(len(multisets), dtype=np.intp)
            for k in range(len(rows)):
                prefixes, first, place = np.unique(rows[:k + 1].T, axis=0, return_index=True, return_inverse=True)
                place = place.reshape(-1)
                levels.append((prefixes[:, k].astype(np.intp), parent_of[first]))
                parent_of = place
            memo[key] = (levels, parent_of)
        return memo[key]

    def _flat_tree(self, multisets: np.ndarray) -> tuple[np.ndarray, ...]:
        """:meth:`_prefix_tree` as arrays for the compiled kernel: every level's slots but the last's,
        their parents, each of those levels' size (``int64``), and the last level's slots and parents (the
        kernel multiplies each multiset's last card in beside the columns it feeds); indices ``int32``."""
        memo: dict[bytes, tuple[np.ndarray, ...]] = self.__dict__.setdefault("_flat_trees", {})
        key = multisets.tobytes()
        if key not in memo:
            levels, _ = self._prefix_tree(multisets)
            *inner, (last_slots, last_parents) = levels
            memo[key] = (np.concatenate([np.zeros(0, np.intp), *(s for s, _ in inner)]).astype(np.int32),
                         np.concatenate([np.zeros(0, np.intp), *(p for _, p in inner)]).astype(np.int32),
                         np.array([len(s) for s, _ in inner], dtype=np.int64),
                         last_slots.astype(np.int32), last_parents.astype(np.int32))
        return memo[key]

    def inconsistent(self, problem: str) -> InconsistentCounts:
        """The error for counts of this table that break an invariant; a table read from the disk
        cache is discarded first, so that the next run builds it again."""
        if self.from_disk:
            cache.discard("multiset", _key(self.names, self.told, self.varies))
            return InconsistentCounts(f"{problem}: the table read from the disk cache is wrong; it is discarded, "
                                      "run again")
        return InconsistentCounts(f"{problem}: a defect of exactodds, please report it")

    def counts_in_python_integers(self, shoe: Shoe) -> np.ndarray:
        """The same counts in Python integers throughout (slow; a check of the modular route)."""
        return self._sum(self.factors(shoe), self.atom_factors(shoe) if self.patterned else None, None)

    def _orderings_mod(self, modulus: int) -> np.ndarray:
        """The entries' orderings modulo a prime (shoe-independent, kept for the next shoe)."""
        memo: dict[int, np.ndarray] = self.__dict__.setdefault("_mod", {})
        if modulus not in memo:
            memo[modulus] = (self.entry_orderings % modulus).astype(np.uint64)
        return memo[modulus]

    @property
    def _spare_bits(self) -> int:
        """How large a residue may be for its products with the entries' orderings,
        summed over every entry, to stay below 2**64 (unsigned) unreduced."""
        largest = int(np.abs(self.entry_orderings).max(initial=1))        # same_suit's entries may be negative
        return 63 - largest.bit_length() - len(self.entry_orderings).bit_length()

    @property
    def modulus_bits(self) -> int:
        """The size of the primes a shoe past the int64 bound is counted modulo."""
        return max(min(32, self._spare_bits), 20)

    def _sum(self, f: np.ndarray, atoms: np.ndarray | None, modulus: int | None) -> np.ndarray:
        """Σ over entries of orderings × multiset weight (× pattern weight), per key.

        With a modulus (a prime of :attr:`modulus_bits` bits) the weight is
        reduced after every product, and the entries' sum needs no reduction
        until the end, unless the table is too large for that (then each entry is).
        """
        if modulus is None and f.dtype == np.int64:
            return self._sum_int64(f, atoms)
        w = _products(f, self._by_card(), modulus)[self.entry_multiset]
        if atoms is not None:
            assert self.pattern_multiplicity is not None and self.pattern_starts is not None
            images = _products(atoms, self._by_card("pattern_images"), modulus)
            c = self.pattern_multiplicity if atoms.dtype != object else self.pattern_multiplicity.astype(object)
            if modulus is not None:
                c = c.astype(np.uint64)
            pw = np.add.reduceat(images * c, self.pattern_starts)
            if modulus is None:
                w = w * pw[self.entry_pattern]
            else:
                w = w * (pw % modulus)[self.entry_pattern] % modulus
        if modulus is None:
            orderings = self.entry_orderings if f.dtype != object else self.entry_orderings.astype(object)
            return np.add.reduceat(w * orderings, self.key_starts)
        contributions = w * self._orderings_mod(modulus)
        if modulus.bit_length() > self._spare_bits or atoms is not None:
            contributions %= modulus
        return np.add.reduceat(contributions, self.key_starts) % modulus

    def _sum_int64(self, f: np.ndarray, atoms: np.ndarray | None) -> np.ndarray:
        """:meth:`_sum` in ``int64`` (the shoe fits it), by :meth:`key_sums`."""
        weights = self._weights(f)
        if atoms is None:
            return self.key_sums(weights)
        assert self.pattern_multiplicity is not None and self.pattern_starts is not None
        assert self.entry_pattern is not None
        images = self._weights(atoms, "pattern_images")
        pw = np.add.reduceat(images * self.pattern_multiplicity, self.pattern_starts)
        return self.key_sums(weights, np.take(pw, self.entry_pattern, mode="clip", out=_scratch("patterns", pw.dtype,
                                                                                     self.entry_multiset.shape)))

    def key_sums(self, per_multiset: np.ndarray, per_entry: np.ndarray | None = None) -> np.ndarray:
        """Per key, Σ over its entries of the orderings × the multiset's row of ``per_multiset`` (× the
        entry's ``per_entry``), in ``int64``: the caller sees that every sum fits.

        By the compiled kernel where it is built (each product and sum checked: an overflow is an
        error, never a wrap); else the terms are formed in place in a work array this thread keeps from
        shoe to shoe: a new array of that size each shoe costs more in the memory pages the system hands
        out than the arithmetic does (the point table's counts: 0.14 against 0.45 ms)."""
        core = native.kernels()
        if core is not None:
            multiset, orderings, starts = self._int64_entries()
            out = np.empty((len(starts), *per_multiset.shape[1:]), dtype=np.int64)
            try:
                core.key_sums(np.ascontiguousarray(per_multiset, dtype=np.int64),
                              max(math.prod(per_multiset.shape[1:]), 1), multiset, orderings, starts,
                              None if per_entry is None else np.ascontiguousarray(per_entry, dtype=np.int64), out)
            except OverflowError as exc:               # the caller's bound broken: a defect, one line
                raise self.inconsistent(f"counts by {', '.join(self.names)}: {exc}") from None
            return out
        terms = _scratch("terms", per_multiset.dtype, (len(self.entry_multiset), *per_multiset.shape[1:]))
        # mode="clip": the table's indices are in range, and the default ("raise") copies through a buffer
        np.take(per_multiset, self.entry_multiset, axis=0, out=terms, mode="clip")
        orderings = self.entry_orderings.reshape(-1, *(1,) * (per_multiset.ndim - 1))
        if per_entry is not None:
            terms *= per_entry.reshape(orderings.shape)
        terms *= orderings
        return np.add.reduceat(terms, self.key_starts, axis=0)

    def wide_key_sums(self, per_multiset: np.ndarray) -> np.ndarray:
        """:meth:`key_sums` of weights past ``int64``: ``per_multiset`` and the sums ``uint64``, for a caller that
        sees every sum is a count below 2**64 (its terms may pass it, or be negative, on the way).

        By the compiled kernel where it is built (in 128 bits under a bound it proves: an overflow is an error,
        never a wrap); else in NumPy's ``uint64``, that is modulo 2**64, which gives a count below 2**64 itself."""
        core = native.kernels()
        out = np.empty((len(self.key_starts), *per_multiset.shape[1:]), dtype=np.uint64)
        if core is not None:
            multiset, orderings, starts = self._int64_entries()
            try:
                core.wide_key_sums(np.ascontiguousarray(per_multiset, dtype=np.uint64),
                                   max(math.prod(per_multiset.shape[1:]), 1), multiset, orderings, starts, out)
            except OverflowError as exc:               # the caller's bound broken: a defect, one line
                raise self.inconsistent(f"counts by {', '.join(self.names)}: {exc}") from None
            return out
        terms = np.take(per_multiset.astype(np.uint64, copy=False), self.entry_multiset, axis=0, mode="clip")
        terms *= self.entry_orderings.astype(np.uint64).reshape(-1, *(1,) * (per_multiset.ndim - 1))
        return np.add.reduceat(terms, self.key_starts, axis=0, out=out)

    def _int64_entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The entries' multisets and orderings and the keys' starts as contiguous ``int64`` (for the
        compiled kernels; made once per table)."""
        if "_entries64" not in self.__dict__:
            self.__dict__["_entries64"] = tuple(np.ascontiguousarray(a, dtype=np.int64) for a in
                                                    (self.entry_multiset, self.entry_orderings, self.key_starts))
        return self.__dict__["_entries64"]  # type: ignore[no-any-return]

    def _weights(self, f: np.ndarray, name: str = "multisets") -> np.ndarray:
        """:func:`_products` in ``int64`` by halves (:meth:`_halves`): each distinct first half of the cards'
        factor slots is multiplied out once, and so is each second half; a multiset's weight is then one
        product of two."""
        rows = self._by_card(name)
        if len(rows) < 2:                                    # one card: nothing to share
            return _products(f, rows, None)
        first, first_at, second, second_at = self._halves(name)
        w = np.take(_products(f, first, None), first_at)
        w *= np.take(_products(f, second, None), second_at)
        return w

    def _halves(self, name: str = "multisets") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The distinct first halves of the cards' factor slots (cards x halves), which each multiset takes,
        and the same for the second halves (the point table's 6,958 multisets have 220 and 829); shoe-free,
        made once (for tables of two cards or more)."""
        memo: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = \
            self.__dict__.setdefault("_halves_of", {})
        if name not in memo:
            rows = self._by_card(name)
            cut = len(rows) // 2
            first, first_at = _distinct_columns(rows[:cut])
            second, second_at = _distinct_columns(rows[cut:])
            memo[name] = (first, first_at, second, second_at)
        return memo[name]

    def _by_card(self, name: str = "multisets") -> np.ndarray:
        """The multisets' (or the pattern images') factor indices as contiguous rows (faster to gather)."""
        memo: dict[str, np.ndarray] = self.__dict__.setdefault("_rows", {})
        if name not in memo:
            memo[name] = np.ascontiguousarray(getattr(self, name).T)
        return memo[name]


def _distinct_columns(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct columns of ``rows`` (non-negative integers, a few rows), in the order of their rows read
    as digits, and which each column is: ``numpy.unique(rows.T, axis=0)`` by one integer per column, many
    times faster on the colour tables' half a million multisets.

    >>> first, at = _distinct_columns(np.array([[3, 1, 3], [0, 2, 0]]))
    >>> first.tolist(), at.tolist()
    ([[1, 3], [2, 0]], [1, 0, 1])
    """
    bits = max(int(rows.max(initial=0)).bit_length(), 1)
    if bits * len(rows) > 62:                          # too wide for one integer: NumPy's own way
        found, at = np.unique(rows.T, axis=0, return_inverse=True)
        return np.ascontiguousarray(found.T), at.reshape(-1)
    code = np.zeros(rows.shape[1], dtype=np.int64)
    for row in rows:
        code = (code << bits) | row.astype(np.int64)
    _u, first, at = np.unique(code, return_index=True, return_inverse=True)
    return np.ascontiguousarray(rows[:, first]), at.reshape(-1)


#: The value multiplicities of :meth:`MultisetTable.value_multiplicities`, by the multisets' bytes: the
#: point table and its refinements (e.g. by the count of zeros) have the same 6,958 multisets.
_PER_VALUE: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}

#: At most this many blocks, :meth:`MultisetTable.block_counts` reads a dense matrix of orderings (multisets x
#: blocks), each weight spent as it is made; more, the merged entries one by one.
_DENSE_BLOCKS = 8

#: Shoes per block of :meth:`MultisetTable.sums_many` (64 shoes × 2,116 multisets of Dragon 7 is 1 MB).
_SHOES_PER_BLOCK = 64


_SCRATCH = threading.local()
#: The largest work array a thread keeps between shoes (a larger one is made for the call and let go).
_SCRATCH_KEPT_BYTES = 16 * 2**20


def _scratch(name: str, dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    """A work array of ``shape``, this thread's own, reused from shoe to shoe (its contents are stale)."""
    buffers: dict[str, np.ndarray] = _SCRATCH.__dict__.setdefault("buffers", {})
    size = math.prod(shape)
    if size * np.dtype(dtype).itemsize > _SCRATCH_KEPT_BYTES:
        return np.empty(shape, dtype=dtype)
    if name not in buffers or buffers[name].dtype != dtype or len(buffers[name]) < size:
        buffers[name] = np.empty(size, dtype=dtype)
    return buffers[name][:size].reshape(shape)


def _falling(counts: Sequence[int], size: int | None, dtype: Any, *, one: bool) -> np.ndarray:
    """Factor slots ``t*6 + o`` = ``counts[t] - o``; then, with ``size``, the tail slots ``size - j``;
    then, with ``one``, a slot holding 1."""
    if dtype is not object:            # the caller saw the counts fit ``dtype``
        numbers = np.array([*counts, *([size] if size is not None else [])], dtype=dtype)
        slots = (numbers[:, None] - np.arange(_OFFSETS, dtype=dtype)).reshape(-1)
        return np.concatenate([slots, np.ones(1, dtype=dtype)]) if one else slots
    tokens = len(counts) + (size is not None)
    f = np.empty(tokens * _OFFSETS + one, dtype=object)
    for t, n in enumerate([*counts, *([size] if size is not None else [])]):
        for o in range(_OFFSETS):
            f[t * _OFFSETS + o] = n - o
    if one:
        f[-1] = 1
    return f if dtype is object else f.astype(dtype)


def _products(f: np.ndarray, rows: np.ndarray, modulus: int | None) -> np.ndarray:
    """Per column of ``rows`` (factor indices, one row per card), the product of its factors;
    modulo ``modulus`` if given (``f`` then holds unsigned factors of 0..N)."""
    if modulus is None:
        w = np.take(f, rows[0])
        for j in range(1, len(rows)):
            w *= np.take(f, rows[j])
        return w
    # factors lie in 0..N: multiply raw ones while the product fits 64 bits, then reduce
    per = max(int(f.max(initial=1)).bit_length(), 1)
    w = f[rows[0]].copy()
    bits = per
    for j in range(1, len(rows)):
        if bits + per > 64:
            w %= modulus
            bits = modulus.bit_length()
        w *= f[rows[j]]
        bits += per
    return w % modulus


def codes(columns: Sequence[np.ndarray]) -> np.ndarray:
    """One int64 code per row such that equal codes mean equal rows."""
    code = np.zeros(len(columns[0]), dtype=np.int64)
    room = 1
    for col in columns:
        if col.dtype.kind in "biu" and col.min(initial=0) >= -1:
            inv = col.astype(np.int64) + 1            # small whole numbers from -1 up
        else:
            inv = np.unique(col, return_inverse=True)[1].ravel()
        radix = int(inv.max(initial=0)) + 1
        room *= radix
        if room >= 2 ** 62:                           # too many combinations for one int64: renumber
            code = np.unique(code, return_inverse=True)[1].ravel()
            room = (int(code.max(initial=0)) + 1) * radix
        code = code * radix + inv
    return code


def _per_value(values: np.ndarray) -> np.ndarray:
    """``(n, 10)``: how many of each row's cards have each point value."""
    n = len(values)
    slots = (np.arange(n, dtype=np.int64)[:, None] * 11 + values.astype(np.int64) + 1).ravel()
    return np.bincount(slots, minlength=n * 11).reshape(n, 11)[:, 1:]


def _base(value_names: set[str], id_slots: set[int]) -> np.ndarray:
    """The value-level rows the table is built on (``(n, 6)`` point values, -1: not read).

    When only the four initial cards are read, every combination of their values
    is a row and the rest of the round is unread; otherwise every round is.
    """
    if value_names <= _INITIAL_VALUES and id_slots <= set(INITIAL_SLOTS):
        read = set(id_slots)
        for name in value_names:
            hand = 0 if name.startswith("player") else 3
            read |= {hand + int(name[-1]) - 1} if "_value_" in name else {hand, hand + 1}
        slots = sorted(read)
        grid = np.indices((10,) * len(slots)).reshape(len(slots), -1).T
        values = np.full((len(grid), 6), -1, dtype=np.int8)
        values[:, slots] = grid
        return values
    return slot_values()


@dataclass(frozen=True)
class Varies:
    """What a table is compiled for, where it may skip reading suits: the outcome masks of some wagers'
    conditions (``masks(columns, n)`` -> ``(outcomes, n)`` bool), named by ``key`` (their text).

    A value-level round whose masks are the same for every suit pattern of its cards is not read by
    pattern: one row stands for all of its suit assignments, its suits written as one of them. The
    table then prices exactly the wagers ``key`` names, and no other."""

    key: str
    masks: Callable[[dict[str, np.ndarray], int], np.ndarray] = field(compare=False, hash=False, repr=False)


def told_apart(names: Iterable[str], texts: Iterable[Iterable[str]] = ()) -> str:
    """How finely a table of ``names`` must tell suits apart for conditions that name ``texts``
    (sets of texts, each read as one: ``x in ('h', 'd')`` names {h, d}, ``x == 'h'`` names {h}).

    A permutation of the suits that maps every named set to itself, and keeps what the features
    read (a pair's colour, the nine of diamonds, the letters of nines), changes no condition's
    value. Those permutations permute the suits within the blocks of one partition of the suits,
    returned as blocks joined by '|' (:data:`EVERY_SUIT` where the table reads no suit).

    >>> told_apart(("banker_suit_1", "banker_suit_2", "dragon_7"))           # suits compared only
    'shdc'
    >>> told_apart(("banker_suit_1",), [{"h", "d"}]), told_apart(("player_pair", "banker_suit_3"), [{"c"}])
    ('sc|hd', 's|hd|c')
    """
    names = set(names)
    identities = [n for n in names if n in KNOWN_FEATURES and n not in VALUE_LEVEL and n not in ALL_CARD_FEATURES]
    reads_suits = bool(identities and names & set(ALL_CARD_FEATURES)) or \
        any(slots_read(n)[1] in ("suit", "card") for n in identities)
    if not reads_suits:
        return EVERY_SUIT
    named = [set(t) & set(SUITS) for t in texts] + [set(x) for n in names for x in SUITS_TOLD_APART.get(n, ())]
    blocks = [set(SUITS)]
    for cut in named:
        blocks = [part for b in blocks for part in (b & cut, b - cut) if part]
    return _partition(blocks)


def resolution_of(names: Iterable[str]) -> str:
    """How finely a table of ``names`` reads cards (:data:`RESOLUTIONS`): 'suit' for suits alone, 'card'
    where ranks are read with them. Only a 'suit' table is compiled for its wagers (:class:`Varies`)."""
    resolution = "value"
    for name in names:
        if name not in VALUE_LEVEL:
            resolution = _join(resolution, _EVERY_RESOLUTION.get(name) or slots_read(name)[1])
    return resolution


#: How finely a feature of every card read with single cards reads them (:func:`_every_card_leaves`).
_EVERY_RESOLUTION = {"same_suit": "suit", "same_colour": "suit", "same_rank": "card"}


def _partition(blocks: Iterable[Iterable[str]]) -> str:
    """A partition of the suits written canonically: blocks by their first suit, each in ``shdc`` order."""
    written = ["".join(c for c in SUITS if c in b) for b in blocks]
    return "|".join(sorted((w for w in written if w), key=lambda w: SUITS.index(w[0])))


def compile_table(names: Iterable[str] | str, *, told: str = EVERY_SUIT,
                  varies: Varies | None = None) -> MultisetTable:
    """The multiset table of a set of features (names as listed by ``exactodds features``):
    compiled once per process, and kept on disk between processes (:mod:`exactodds.cache`).

    ``table.counts(shoe)`` gives the ordered 6-card sequences of a shoe per key,
    aligned with ``table.keys`` (tuples of feature values in ``table.names`` order).
    Features of every card dealt (``same_suit``, ...) are counted by the wagers
    that read them, not by a multiset table, but where they are read with single
    cards' ranks or suits. ``varies`` compiles the table for some wagers alone
    (:class:`Varies`).

    ``told`` is how finely suits are told apart: a partition of the suits into blocks
    joined by '|' (:func:`told_apart`), by default every suit its own block. Suits are
    exchangeable until the shoe breaks the symmetry, so a condition that names no suit
    sees only which cards share one: with ``told="shdc"`` a key's suits stand for every
    assignment alike up to a permutation of the suits (the first suit to appear is written
    's', the next 'h', ...; within a block, its suits in order), and its count is theirs
    together. The table is compiled over suit *patterns*, and each shoe resolves a
    pattern by its per-(value or rank, suit) falling factorials:

    >>> from exactodds.game.shoe import Shoe
    >>> t = compile_table(("banker_suit_1", "banker_suit_2"), told="shdc")
    >>> t.keys
    (('s', 'h'), ('s', 's'))
    >>> suited = int(t.counts(Shoe.decks(8))[1])     # the Banker's first two cards suited
    >>> suited * 415 == Shoe.decks(8).sequences * 103
    True

    A table of single cards' ranks alone takes, as ``told``, the split of the ten-valued ranks its
    conditions tell apart (:func:`exactodds.engine.tens.tens_told`): a face card against a 10 is
    ``"T|JQK"``, one atom per block, each read as its first rank (every rank apart by default):

    >>> f = compile_table(("player_rank_1",), told="T|JQK")
    >>> f.keys[-2:], compile_table(("player_rank_1",)).keys[-2:]
    (((10,), (11,)), ((12,), (13,)))
    >>> int(f.counts(Shoe.decks(8))[-1]) == 3 * int(compile_table(("player_rank_1",)).counts(Shoe.decks(8))[-1])
    True
    """
    if type(names) is tuple and type(told) is str:
        try:
            return _table(*_checked(names, told, varies))   # asked for before: its checks were passed
        except TypeError:                              # unhashable: the checks below say what is wrong
            pass
    return _table(*_checked.__wrapped__(names, told, varies))


@functools.lru_cache(maxsize=1024)
def _checked(names: Iterable[str] | str, told: str, varies: Varies | None) -> tuple[tuple[str, ...], str, Varies | None]:
    """:func:`compile_table`'s arguments checked and written as :func:`_table` keeps its tables (a selection
    priced shoe after shoe checks them once)."""
    if isinstance(names, str):
        names = (names,)
    try:
        chosen = tuple(sorted(set(names)))
    except TypeError:
        raise ExactOddsError("compile_table takes feature names, e.g. ('player', 'banker')") from None
    if not chosen:
        raise ExactOddsError("compile_table needs at least one feature name")
    for name in chosen:
        if not isinstance(name, str) or name not in KNOWN_FEATURES:
            raise ExactOddsError(f"unknown feature {name!r} (see 'exactodds features')")
        if name in ALL_CARD_FEATURES and set(chosen) <= VALUE_LEVEL | set(ALL_CARD_FEATURES):
            raise ExactOddsError(f"{name!r} reads every card dealt: it is counted per value multiset by the "
                                 "wagers that read it, not in a multiset table (it is, with a single card's "
                                 "rank or suit)")
    resolution = resolution_of(chosen)
    if told == BY_COLOUR:
        if resolution != "suit" or set(chosen) & set(ALL_CARD_FEATURES) or \
                any(n not in VALUE_LEVEL and not _ONE_SUIT.fullmatch(n) for n in chosen):
            raise ExactOddsError("told='colour' is for a table of single cards' suits (beside point features) "
                                 f"alone, not of {', '.join(chosen)}")
        return chosen, told, varies
    if tens.is_split(told):            # the ten-valued ranks a table of ranks alone tells apart
        if resolution != "rank" or not tens.reads_ranks_alone(chosen):
            raise ExactOddsError(f"told={told!r} splits the ten-valued ranks: it is for a table of single cards' "
                                 f"ranks (beside point features) alone, not of {', '.join(chosen)}")
        return chosen, EVERY_SUIT if told == tens.EVERY_TEN else told, None
    if not isinstance(told, str) or sorted(told.replace("|", "")) != sorted(SUITS):
        raise ExactOddsError(f"told must be a partition of the suits {SUITS!r} into blocks joined by '|' "
                             f"(e.g. 's|h|d|c' or 'sc|hd'), or {BY_COLOUR!r}, not {told!r}")
    apart = _partition(told.split("|"))
    if resolution not in ("suit", "card"):
        apart = EVERY_SUIT
    return chosen, apart, varies if resolution == "suit" else None


@cache.register_memo
@functools.cache
def _table(names: tuple[str, ...], told: str = EVERY_SUIT, varies: Varies | None = None) -> MultisetTable:
    key = _key(names, told, varies)
    saved = cache.load("multiset", key)
    if saved is not None:
        problem = _malformed(names, told, saved)
        if problem is None:
            return _from_arrays(names, told, saved, varies)
        cache.reject("multiset", key, problem)
    table = _compile(names, told, varies)
    cache.save("multiset", key, _to_arrays(table))
    return table


def _key(names: tuple[str, ...], told: str, varies: Varies | None = None) -> str:
    key = "|".join(names) + ("" if told == EVERY_SUIT else f"#told={told}")
    return key + (f"#for={hashlib.sha256(varies.key.encode()).hexdigest()[:32]}" if varies is not None else "")


_PATTERN_ARRAYS = ("entry_pattern", "pattern_images", "pattern_multiplicity", "pattern_starts")


def _to_arrays(t: MultisetTable) -> dict[str, np.ndarray]:
    patterns = {n: getattr(t, n) for n in _PATTERN_ARRAYS} if t.patterned else {}
    return {"resolution": np.array(t.resolution), "leaves": np.array(t.leaves),
            "multisets": t.multisets.astype(np.int16), "entry_multiset": t.entry_multiset.astype(np.int32),
            "entry_orderings": t.entry_orderings, "key_starts": t.key_starts, **patterns,
            **{f"column:{n}": c for n, c in t.columns.items()}}


def _from_arrays(names: tuple[str, ...], told: str, a: dict[str, np.ndarray],
                 varies: Varies | None = None) -> MultisetTable:
    columns = {n: a[f"column:{n}"] for n in names}
    for c in columns.values():
        c.flags.writeable = False
    patterns = {n: a[n].astype(np.intp) if n != "pattern_multiplicity" else a[n]
                for n in _PATTERN_ARRAYS if n in a}
    return MultisetTable(
        names=names, resolution=str(a["resolution"]), keys=tuple(zip(*(c.tolist() for c in columns.values()))),
        columns=columns, multisets=a["multisets"].astype(np.intp), entry_multiset=a["entry_multiset"].astype(np.intp),
        entry_orderings=a["entry_orderings"], key_starts=a["key_starts"], leaves=int(a["leaves"]), from_disk=True,
        told=told, varies=varies, **patterns,
    )


def _malformed(names: tuple[str, ...], told: str, a: dict[str, np.ndarray]) -> str | None:
    """What makes saved arrays no table of ``names`` (shapes, types, indices out of range), or None."""
    wanted = {"resolution", "leaves", "multisets", "entry_multiset", "entry_orderings", "key_starts",
              *(f"column:{n}" for n in names)}
    patterned = "entry_pattern" in a
    if set(a) != wanted | (set(_PATTERN_ARRAYS) if patterned else set()):
        return "holds other arrays"
    ints = ("leaves", "multisets", "entry_multiset", "entry_orderings", "key_starts",
            *(_PATTERN_ARRAYS if patterned else ()))
    if a["resolution"].shape != () or str(a["resolution"]) not in RESOLUTIONS or a["leaves"].shape != () or \
            any(a[n].dtype.kind not in "iu" for n in ints) or a["multisets"].ndim != 2 or \
            a["multisets"].shape[1] != CARDS_PER_ROUND:
        return "is no table"
    entries, starts, multisets = a["entry_multiset"], a["key_starts"], a["multisets"]
    atoms = len(_atoms(str(a["resolution"]), told)[0]) + 4 * (patterned and str(a["resolution"]) == "card")
    factors = (11 + (0 if patterned else atoms)) * _OFFSETS + patterned
    if entries.ndim != 1 or a["entry_orderings"].shape != entries.shape or starts.ndim != 1 or \
            any(a[f"column:{n}"].shape != starts.shape or a[f"column:{n}"].dtype.kind == "O" for n in names):
        return "has arrays of unequal lengths"
    if not len(starts) or starts[0] != 0 or np.any(np.diff(starts) <= 0) or starts[-1] >= len(entries) or \
            entries.min(initial=0) < 0 or entries.max(initial=0) >= len(multisets) or \
            multisets.min(initial=0) < 0 or multisets.max(initial=0) >= factors:
        return "has an index out of range"
    if patterned:
        ep, images, mult, pstarts = (a[n] for n in _PATTERN_ARRAYS)
        if ep.shape != entries.shape or images.ndim != 2 or mult.shape != images.shape[:1] or pstarts.ndim != 1:
            return "has arrays of unequal lengths"
        if not len(pstarts) or pstarts[0] != 0 or np.any(np.diff(pstarts) <= 0) or \
                pstarts[-1] >= len(images) or ep.min(initial=0) < 0 or ep.max(initial=0) >= len(pstarts) or \
                images.min(initial=0) < 0 or images.max(initial=0) > atoms * _OFFSETS or mult.min(initial=1) < 1:
            return "has an index out of range"
    return None


@dataclass(frozen=True, eq=False)
class _Plan:
    """What a compile enumerates, before it refines anything: the value rows merged (those that
    read alike and weigh alike), the positions read finer than their value, and the resolution."""

    names: tuple[str, ...]
    resolution: str
    refined: list[int]
    id_names: list[str]
    values: np.ndarray              # (groups, 6) point values, -1: not read
    vcols: dict[str, np.ndarray]
    weight: np.ndarray              # value rows merged into each group
    told: str = EVERY_SUIT          # how finely suits are told apart (see compile_table)
    #: ``(10, refined)``: at which point values each refined position is read for its rank and suit
    #: (:data:`exactodds.engine.columns.VALUES_READ`); at the others it is read at its value alone.
    values_read: np.ndarray = field(default_factory=lambda: np.ones((10, 0), dtype=bool))
    #: a feature of every card (same_suit, same_colour, same_rank) read with single cards' identities
    every: str | None = None
    #: ``(groups, refined)``: the positions whose suits the wagers of :attr:`varies` read, per group
    #: (None: every position read finely); the others are written as a suit but counted at their value.
    suits_read: np.ndarray | None = None
    varies: Varies | None = None

    def fine(self, rows: np.ndarray | None = None) -> np.ndarray:
        """``(n, refined)``: the refined positions of groups ``rows`` (all by default) that are dealt
        and read finely."""
        at = self.values[:, self.refined] if rows is None else self.values[rows][:, self.refined]
        out = (at >= 0) & np.take_along_axis(self.values_read, np.maximum(at, 0), axis=0) if len(at) else at >= 0
        if self.suits_read is not None:
            out &= self.suits_read if rows is None else self.suits_read[rows]
        return out

    @property
    def patterned(self) -> bool:
        """Whether suits are read by pattern (see :func:`compile_table`)."""
        return self.resolution in ("suit", "card")

    @property
    def leaves(self) -> int:
        """Rows the refinement makes: each group times the ranks of every refined position's value class
        (card resolution), times the suit patterns of its refined cards dealt."""
        n_atoms = (_atoms_by_value("rank") if self.patterned else _atoms_by_value(self.resolution, self.told))[0]
        per = np.ones(len(self.values), dtype=np.float64)
        if self.patterned and self.resolution == "suit":
            n_atoms = np.ones(10, dtype=np.int64)
        fine = self.fine() if self.patterned or self.suits_read is not None else self.values[:, self.refined] >= 0
        for j, s in enumerate(self.refined):
            v = self.values[:, s]
            per *= np.where(fine[:, j], n_atoms[np.maximum(v, 0)], 1)
        ranks = per.copy()
        if self.patterned:
            patterns = np.array([len(_suit_patterns(d, _blocks(self.told))) for d in range(len(self.refined) + 1)])
            per *= patterns[fine.sum(1)]
        if self.every is not None:      # twice (signs) the leaves of rounds of one suit, colour or rank
            per += 2 * self._every_leaves(fine, ranks)
        return int(per.sum())

    def _every_leaves(self, fine: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """Per group, at most how many leaves :func:`_every_card_leaves` adds (each with its twin of
        opposite sign): for every rank of the finely read cards, every suit, colour or rank all the
        cards may share, and every rank and suit of the cards the group leaves unread within it."""
        dealt = (self.values >= 0).sum(1)
        unread = dealt - fine.sum(1)
        unread_zeros = (self.values == 0).sum(1) - (fine & (self.values[:, self.refined] == 0)).sum(1)
        # a ten-valued card is read at each of its ranks only beside one of its suit read at its rank (ANY_TEN)
        ranked = (self.values[:, self.refined] == 0).sum(1) if self.refined else np.zeros(len(fine), dtype=np.int64)
        card = self.resolution == "card"
        if self.every == "same_suit":   # one suit per block (none read) or the finely read cards' suit
            return ranks * len(_blocks(self.told)) * (np.where(ranked > 0, 4.0 ** unread_zeros, 1) if card else 1)
        if self.every == "same_colour":  # either colour, each unread card either suit of it
            # a ten-valued one: the suit of one ranked ten at four ranks, the other at one; of two, both at four
            per_ten = np.where(ranked == 0, 2, np.where(ranked == 1, 5, 8)) if card else 2
            return ranks * 2 * 2.0 ** (unread - unread_zeros) * per_ten ** unread_zeros.astype(np.float64)
        values = np.where(self.values >= 0, self.values, 10)
        alike = values.min(1) == np.where(self.values >= 0, self.values, -1).max(1)
        return np.where(alike, ranks * 4 * 4.0 ** unread, 0)

    @property
    def keys(self) -> int:
        """At most how many keys: the value-level keys times every card the refined positions may hold."""
        value_keys = len(np.unique(codes(list(self.vcols.values())))) if self.vcols else 1
        cards = {"value": 1, "rank": len(_atoms("rank", self.told)[0]), "colour": 2, "suit": 1, "card": 13}[
            self.resolution]
        per = math.prod(cards + (s in (2, 5)) for s in self.refined)
        if self.patterned:
            per *= len(_suit_patterns(len(self.refined), _blocks(self.told))) + 1
        return value_keys * per

    def estimate(self) -> bounds.Estimate:
        return bounds.multiset_estimate(self.names, resolution=self.resolution, slots=self.refined,
                                        leaves=self.leaves, keys=self.keys, groups=len(self.values),
                                        tens=self.told if self.resolution == "rank" and self.told != EVERY_SUIT
                                        else None)


def _plan(names: tuple[str, ...], told: str = EVERY_SUIT, varies: Varies | None = None) -> _Plan:
    """The value-level part of a compile (at most the 339,400 rounds of the round table)."""
    value_names = {n for n in names if n in VALUE_LEVEL}
    every_names = [n for n in names if n in ALL_CARD_FEATURES]
    if len(every_names) > 1:
        raise TooLarge(f"{every_names[0]!r} and {every_names[1]!r} cannot be read together with single "   # the walk
                       "cards' ranks or suits by the tables; read one feature of every card")              # reads them
    every = every_names[0] if every_names else None
    id_names = [n for n in names if n not in VALUE_LEVEL and n not in ALL_CARD_FEATURES]
    resolution, id_slots = "value", set[int]()
    read_at: dict[int, set[int]] = {}
    for name in id_names:
        slots, need = slots_read(name)
        id_slots.update(slots)
        resolution = _join(resolution, need)
        for s in slots:
            read_at.setdefault(s, set()).update(VALUES_READ.get(name, range(10)))
    refined = sorted(id_slots)
    if every is not None:            # the cards of one rank are read by rank and suit, the others by suit
        resolution = _join(resolution, "card" if every == "same_rank" else "suit")
    if told == BY_COLOUR:            # suits read by colour alone (checked by compile_table)
        resolution = "colour"
    values_read = np.array([[v in read_at[s] for s in refined] for v in range(10)], dtype=bool)
    values_read = values_read.reshape(10, len(refined))

    values = _base(value_names, id_slots) if every is None else slot_values()
    vcols = value_columns(values, sorted(value_names))
    read_by_value = _per_value(values)
    # merge value rows that read alike and weigh alike before refining them
    group_code = codes([*vcols.values(), *(values[:, s] for s in refined), *read_by_value.T])
    _u, first, inverse = np.unique(group_code, return_index=True, return_inverse=True)
    weight = np.bincount(inverse.ravel(), minlength=len(first)).astype(np.int64)   # value rows merged
    plan = _Plan(names, resolution, refined, id_names, values[first], {n: c[first] for n, c in vcols.items()},
                 weight, told, values_read, every)
    if varies is not None and resolution in ("suit", "colour") and every is None:
        read = _suits_read(plan, varies)
        if read is not None:
            plan = replace(plan, suits_read=read, varies=varies)
    return plan


#: The most rows :func:`_suits_read` evaluates the wagers' conditions on (every suit of every position).
PROBE_ROWS = 4_000_000


def _suits_read(plan: _Plan, varies: Varies) -> np.ndarray | None:
    """``(groups, refined)``: per group of the plan, the positions whose suits change some mask of
    ``varies``; None where that is too costly to find (every position is then read).

    Groups alike in their value-level features and the positions they deal (and, where a feature reads
    more than suits, their values there) are probed once, each against every assignment of suits to
    its positions (``4**refined`` rows). A mask that no change of position ``j``'s suit alters, whatever
    the other suits, does not depend on ``j`` at all; so neither do those masks on all such positions
    together, which are then counted at their values.
    """
    fine = plan.fine()
    k = len(plan.refined)
    by_value = [plan.values[:, s] for s in plan.refined] if any("_suit_" not in n for n in plan.id_names) else []
    code = codes([*plan.vcols.values(), *fine.T, *by_value])
    _u, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    if len(first) * 4 ** k > PROBE_ROWS:
        return None
    grid = np.indices((4,) * k, dtype=np.int8).reshape(k, -1).T                      # every suit assignment
    key = np.repeat(np.arange(len(first)), len(grid))
    suits = np.full((len(key), CARDS_PER_ROUND), -1, dtype=np.int8)
    for j, s in enumerate(plan.refined):
        suits[:, s] = np.where(fine[first][key, j], np.tile(grid[:, j], len(first)), -1)
    columns = {n: c[first][key] for n, c in plan.vcols.items()}
    columns.update(identity_columns(plan.values[first][key], np.full(suits.shape, -1, dtype=np.int8), suits,
                                    plan.id_names))
    if "player" in columns:                          # the derived predicates (dragon_7 ...) the conditions read
        columns.update({name: np.asarray(fn(columns)) for name, (_doc, fn) in DERIVED.items()})
    masks = np.asarray(varies.masks(columns, len(key))).reshape(-1, len(first), *(4,) * k)
    read = np.zeros((len(first), k), dtype=bool)
    for j in range(k):
        axis = 2 + j
        changes = masks.max(axis=axis) != masks.min(axis=axis)
        read[:, j] = changes.reshape(changes.shape[0], len(first), -1).any(axis=(0, 2))
    return read[inverse.ravel()] & fine


def _pattern_suits(patterns: list[np.ndarray], count: np.ndarray, within: np.ndarray,
                   ordinal: np.ndarray) -> np.ndarray:
    """The suit of card ``ordinal`` in pattern ``within`` of ``count`` cards, row by row."""
    width = max(len(patterns) - 1, 1)
    padded = np.zeros((len(patterns), max(len(p) for p in patterns), width), dtype=np.int8)
    for d, p in enumerate(patterns):
        padded[d, :len(p), :d] = p
    return padded[count, within, np.minimum(ordinal, width - 1)]


def estimate(names: Iterable[str], *, told: str = EVERY_SUIT, varies: Varies | None = None) -> bounds.Estimate:
    """The size of compiling the multiset table of ``names``, from what the compiler enumerates
    before refining (see :mod:`exactodds.engine.bounds`); kept per table (wagers made anew, as ``--given``
    makes them, read tables already estimated)."""
    return _estimate(tuple(sorted(set(names))), told, varies)


@functools.lru_cache(maxsize=256)
def _estimate(names: tuple[str, ...], told: str, varies: Varies | None) -> bounds.Estimate:
    return _plan(names, told, varies).estimate()


def _compile(names: tuple[str, ...], told: str = EVERY_SUIT, varies: Varies | None = None) -> MultisetTable:
    """Walk the round table, refine it where ``names`` read ranks or suits, and sum it into entries.

    A table estimated beyond :data:`exactodds.engine.bounds.LIMIT_BYTES` is refused before it is refined."""
    plan = _plan(names, told, varies)
    bounds.check(plan.estimate())
    if plan.patterned:
        return _compile_patterns(plan)
    resolution, refined, id_names = plan.resolution, plan.refined, plan.id_names
    values, vcols, weight = plan.values, plan.vcols, plan.weight

    # refine: each read position becomes every atom of its value class
    n_atoms, atom_table = _atoms_by_value(resolution, plan.told)
    atom_value, atom_rank, atom_suit = _atoms(resolution, plan.told)
    rows = np.arange(len(values))
    chosen: list[np.ndarray] = []
    # a table over colours compiled for some wagers reads a colour only where it changes their outcomes
    fine = plan.fine() if plan.suits_read is not None else values[:, refined] >= 0
    for j, s in enumerate(refined):
        v, read = values[rows, s], fine[rows, j]
        pick, within = _expand(np.where(read, n_atoms[np.maximum(v, 0)], 1))
        vv, read = v[pick], read[pick]
        atom = np.where(read, atom_table[np.maximum(vv, 0), within], -1)
        chosen = [c[pick] for c in chosen] + [atom]
        rows = rows[pick]
    leaf_values = values[rows]
    ranks = np.full(leaf_values.shape, -1, dtype=np.int8)
    suits = np.full(leaf_values.shape, -1, dtype=np.int8)
    tokens_atom = np.full(leaf_values.shape, -1, dtype=np.int16)
    unread = 0 if plan.suits_read is not None else -1    # a card whose colour no wager reads: written as spades,
    for s, atom in zip(refined, chosen):                 # counted at its value
        ok = atom >= 0
        ranks[:, s] = np.where(ok, atom_rank[np.maximum(atom, 0)], -1) if len(atom_rank) else -1
        suits[:, s] = np.where(ok, atom_suit[np.maximum(atom, 0)], np.where(leaf_values[:, s] >= 0, unread, -1)) \
            if len(atom_suit) else -1
        tokens_atom[:, s] = atom
    columns = {n: c[rows] for n, c in vcols.items()}
    columns.update(identity_columns(leaf_values, ranks, suits, id_names))
    multisets, multiset_code = _multisets(leaf_values, tokens_atom, atom_value)

    e = _Entries.sum(names, columns, weight[rows], multiset_code)
    return MultisetTable(
        names=names, resolution=resolution, keys=e.keys, columns=e.key_columns,
        multisets=multisets[e.multiset_rows].astype(np.intp), entry_multiset=e.entry_multiset,
        entry_orderings=e.orderings, key_starts=e.key_starts, leaves=len(rows), told=plan.told, varies=plan.varies,
    )


def _multisets(values: np.ndarray, atoms: np.ndarray, atom_value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each leaf's six factor-vector indices (sorted) and a code for the multiset they make.

    Tokens: atom ``a`` for a card read finer than its value, ``n_atoms + v`` for a
    card read at value ``v``, ``n_atoms + 10`` for a position not read (the tail).
    """
    n_atoms = len(atom_value)
    tail = n_atoms + 10
    tokens = np.where(atoms >= 0, atoms, np.where(values >= 0, n_atoms + values.astype(np.int16), tail))
    tokens = np.sort(tokens.astype(np.int16), axis=1)
    read = (tokens < tail).sum(1, dtype=np.int16)
    fine_value = np.where(atoms >= 0, np.append(atom_value, -1)[atoms], -1)         # cards read finer
    fine = np.stack([(fine_value == v).sum(1, dtype=np.int8) for v in range(10)], axis=1)
    rows = np.arange(len(tokens))
    gathers = np.empty(tokens.shape, dtype=np.int16)
    repeats = _repeats(tokens)
    for j in range(CARDS_PER_ROUND):
        t, before = tokens[:, j], repeats[:, j]
        is_value = (t >= n_atoms) & (t < tail)
        shift = np.where(is_value, fine[rows, np.clip(t - n_atoms, 0, 9)], 0).astype(np.int16)
        shift = np.where(t == tail, read, shift)
        gathers[:, j] = t * _OFFSETS + shift + before
    code = np.zeros(len(tokens), dtype=np.int64)
    for j in range(CARDS_PER_ROUND):
        code = code * 512 + gathers[:, j]
    return gathers, code


def point_names(names: frozenset[str]) -> tuple[str, ...]:
    """The base features a table is compiled on: derived predicates become the point features, and a
    condition that reads no feature (``when = "True"``) is counted on the point table."""
    base = {n for n in names if n not in DERIVED}
    if not names or names & (frozenset(DERIVED) | frozenset(POINT_FEATURES)):
        base |= set(POINT_FEATURES)
    return tuple(sorted(base))


# -- suits by pattern ---------------------------------------------------------------------------

def _blocks(told: str) -> tuple[tuple[int, ...], ...]:
    """The blocks of a partition of the suits, as suit codes (0-3)."""
    return tuple(tuple(SUITS.index(c) for c in block) for block in told.split("|"))


@functools.cache
def _suit_patterns(dealt: int, blocks: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """``(patterns, dealt)``: one suit vector per class of the vectors of ``dealt`` cards that are alike
    up to permuting the suits within each block (a block's suits are relabelled in the order they
    first appear). With one block, 5 patterns for three cards (Bell's number) against 64 vectors.

    >>> _suit_patterns(3, ((0, 1, 2, 3),)).tolist()
    [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [0, 1, 2]]
    """
    block_of = {s: b for b in blocks for s in b}
    seen: set[tuple[int, ...]] = set()
    for vector in itertools.product(range(4), repeat=dealt):
        relabel: dict[int, int] = {}
        for s in vector:
            if s not in relabel:
                block = block_of[s]
                relabel[s] = block[sum(t in block for t in relabel)]
        seen.add(tuple(relabel[s] for s in vector))
    return np.array(sorted(seen), dtype=np.int8).reshape(len(seen), dealt)


@functools.cache
def _suit_group(blocks: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """``(|G|, 4)``: every permutation of the suits that maps each block to itself."""
    out = []
    for images in itertools.product(*(itertools.permutations(b) for b in blocks)):
        g = list(range(4))
        for block, image in zip(blocks, images):
            for s, t in zip(block, image):
                g[s] = t
        out.append(g)
    return np.array(out, dtype=np.int64)


def _expand(options: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row ``i`` repeated ``options[i]`` times: (the row of each copy, which copy it is)."""
    pick = np.repeat(np.arange(len(options)), options)
    within = np.arange(len(pick)) - np.repeat(np.cumsum(options) - options, options)
    return pick, within


def _compile_patterns(plan: _Plan) -> MultisetTable:
    """Compile a table that reads suits: ranks refined where read (value 0 is four ranks), suits by pattern.

    Each leaf is a value row, the ranks of its refined cards, and a suit pattern of its refined cards
    dealt. A round's weight in a shoe is the product of two parts: its cards read at their point values
    and the tail, ``Π_v (n_v - r_v)_(u_v) · (N-k)...(N-5)`` (a multiset of values, as for any table),
    and its refined cards, ``Π_(x,s) (n_(x,s))_(m_(x,s))`` over their (value or rank, suit) atoms. A
    pattern stands for every suit assignment alike up to the untold suits; each shoe sums the second
    part over those (the pattern's *images*, each with the number of assignments it stands for).
    """
    told = _blocks(plan.told)
    card = plan.resolution == "card"
    values, refined = plan.values, plan.refined
    rows = np.arange(len(values))
    rank_of: dict[int, np.ndarray] = {}
    if card:                                             # ranks: one per value, four for value 0
        n_ranks, rank_table = _atoms_by_value("rank")
        for j, s in enumerate(refined):
            v = values[rows, s]
            read = plan.fine(rows)[:, j]
            pick, within = _expand(np.where(read, n_ranks[np.maximum(v, 0)], 1))
            rank_of = {k: r[pick] for k, r in rank_of.items()}
            vv, read = v[pick], read[pick]
            rank_of[s] = np.where(read, rank_table[np.maximum(vv, 0), within], -1)
            rows = rows[pick]
    dealt = plan.fine(rows)                              # the refined cards each row deals and reads finely
    count = dealt.sum(1)
    patterns = [_suit_patterns(d, told) for d in range(len(refined) + 1)]
    pick, within = _expand(np.array([len(p) for p in patterns])[count])
    rows, dealt, count = rows[pick], dealt[pick], count[pick]
    rank_of = {k: r[pick] for k, r in rank_of.items()}
    ordinal = np.maximum(np.cumsum(dealt, axis=1) - 1, 0)
    refined_suits = np.where(dealt, _pattern_suits(patterns, count[:, None], within[:, None], ordinal), -1)
    if plan.suits_read is not None:       # a card whose suit the wagers do not read: written as spades, not read
        unread = (values[rows][:, refined] >= 0) & ~dealt
        refined_suits = np.where(unread, 0, refined_suits)

    leaf_values = values[rows]
    ranks = np.full(leaf_values.shape, -1, dtype=np.int8)
    suits = np.full(leaf_values.shape, -1, dtype=np.int8)
    fine = np.zeros(leaf_values.shape, dtype=bool)
    fine[:, refined] = dealt
    for j, s in enumerate(refined):
        suits[:, s] = refined_suits[:, j]
        if card:
            ranks[:, s] = rank_of[s]
    sign = np.ones(len(rows), dtype=np.int64)
    every: dict[str, np.ndarray] = {}
    if plan.every is not None:
        rows, leaf_values, ranks, suits, fine, sign, every[plan.every] = _every_card_leaves(
            plan.every, rows, leaf_values, ranks, suits, fine, told, card, plan.refined)
    columns = {n: c[rows] for n, c in plan.vcols.items()}
    columns.update(identity_columns(leaf_values, ranks, suits, plan.id_names))
    columns.update(every)

    multisets, multiset_code = _value_part(leaf_values, fine)
    # the finely read cards' atoms: (value or rank) * 4 + suit, sorted, padded with the 'one' atom
    n_x = ANY_TEN + 1 if card else 10
    x = ranks if card else leaf_values
    atoms = np.where(fine, x.astype(np.int64) * 4 + suits, n_x * 4)
    atoms = np.sort(atoms, axis=1)[:, :max(int(fine.sum(1).max(initial=1)), 1)]
    pattern_code = _atom_code(atoms)
    _u, pattern_first, pattern_id = np.unique(pattern_code, return_index=True, return_inverse=True)
    pattern_id = pattern_id.ravel()
    images, multiplicity, pattern_starts = _images(atoms[pattern_first], told, n_x)

    e = _Entries.sum(plan.names, columns, plan.weight[rows] * sign, multiset_code, pattern_id)
    for a in (images, multiplicity, pattern_starts):
        a.flags.writeable = False
    return MultisetTable(
        names=plan.names, resolution=plan.resolution, keys=e.keys, columns=e.key_columns,
        multisets=multisets[e.multiset_rows].astype(np.intp), entry_multiset=e.entry_multiset,
        entry_orderings=e.orderings, key_starts=e.key_starts, leaves=len(rows), told=plan.told,
        entry_pattern=e.entry_pattern, pattern_images=images, pattern_multiplicity=multiplicity,
        pattern_starts=pattern_starts, varies=plan.varies,
    )


_Leaves = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]



def _every_card_leaves(every: str, rows: np.ndarray, values: np.ndarray, ranks: np.ndarray, suits: np.ndarray,
                       fine: np.ndarray, told: tuple[tuple[int, ...], ...], card: bool, refined: list[int]
                       ) -> _Leaves:
    """The leaves of a feature of every card dealt (``same_suit``, ``same_colour`` or ``same_rank``)
    read with single cards' ranks and suits.

    A leaf leaves the other cards unread; its rounds may have every card of one suit (colour, rank)
    only where its finely read cards do. For each such leaf, more leaves read every card dealt, with
    the feature true: each suit (colour, rank) all the cards may share and, for the cards the leaf
    left unread, each rank of their value (where the table reads ranks) and each suit that keeps the
    feature true. Each is counted once under the feature true, and once more with a minus sign under
    it false, so that the first leaf's count, which held those rounds, keeps only the others. Of the
    suit assignments alike up to the permutations within the blocks ``told``, one is kept: the one the
    pattern of the leaf's finely read cards, extended card by card, writes (the first suit to appear
    in a block is its first suit, and so on). Returns the leaves' rows, values, ranks, suits, finely
    read cards, signs and the feature.
    """
    n_ranks, rank_table = _atoms_by_value("rank")
    dealt_all = values >= 0
    read = np.asarray(fine.any(1), dtype=bool)
    first = np.argmax(fine, axis=1)                         # a finely read card of each leaf (if any)
    at = np.arange(len(rows))
    if every == "same_suit":
        key = np.where(fine, suits, -1)
    elif every == "same_colour":
        key = np.where(fine, np.isin(suits, _COLOURS[1]), -1).astype(np.int8)
    else:
        key = np.where(fine, ranks, -1)
    alike = (np.where(fine, key, 99).min(1) == key.max(1)) | ~read
    if every == "same_rank":                                # and every card dealt of one point value
        alike &= np.where(dealt_all, values, 10).min(1) == np.where(dealt_all, values, -1).max(1)
    uniform = np.flatnonzero(alike)
    # what every card shares: the finely read cards', or each choice where none is read
    shared_read = key[at, first][uniform]
    zero = values[uniform].max(1) == 0
    choices = {"same_suit": np.full(len(uniform), len(told)), "same_colour": np.full(len(uniform), 2),
               "same_rank": np.where(zero, 4, 1)}[every]
    pick, within = _expand(np.where(read[uniform], 1, choices))
    base = uniform[pick]
    shared: np.ndarray
    if every == "same_suit":
        firsts = np.array([b[0] for b in told])
        shared = np.where(read[base], shared_read[pick], firsts[np.minimum(within, len(told) - 1)])
    elif every == "same_colour":
        shared = np.where(read[base], shared_read[pick], within)
    else:
        top = np.where(dealt_all[base], values[base], -1).max(1)
        shared = np.where(read[base], shared_read[pick], rank_table[np.maximum(top, 0), within])
    v: np.ndarray = values[base]
    dealt: np.ndarray = v >= 0
    r: np.ndarray = ranks[base].copy()
    s: np.ndarray = suits[base].copy()
    options = {"same_suit": 1, "same_colour": 2, "same_rank": 4}[every]
    for slot in range(v.shape[1]):                          # each unread card's suit (and rank, if one rank)
        need = dealt[:, slot] & ~fine[base, slot]
        more, which = _expand(np.where(need, options, 1))
        base, shared, v, dealt, r, s, need = (a[more] for a in (base, shared, v, dealt, r, s, need))
        if every == "same_colour":
            suit = np.array(_COLOURS)[np.where(need, shared, 0), np.minimum(which, 1)]
        else:
            suit = shared if every == "same_suit" else which
        s[:, slot] = np.where(need, suit, s[:, slot])
        if every == "same_rank":
            r[:, slot] = np.where(need, shared, r[:, slot])
    keep = _canonical(s, fine[base], told)
    base, v, dealt, r, s = base[keep], v[keep], dealt[keep], r[keep], s[keep]
    if card and every != "same_rank":
        # the unread cards' ranks: one of a value other than 0; a ten-valued card is read as one of any of
        # the four ranks of its suit (the atom ANY_TEN), unless another ten-valued card of that suit in the
        # leaf is read at its rank (finely, or at a position whose rank a wager reads): then every rank
        unread = dealt & ~fine[base]
        ranked = (v == 0) & (fine[base] | (unread & np.isin(np.arange(v.shape[1]), refined)))
        ranked_suit = np.stack([(ranked & (s == x)).any(1) for x in range(4)], axis=1)
        for slot in range(v.shape[1]):
            need = unread[:, slot]
            ten = need & (v[:, slot] == 0)
            every_rank = ten & ranked_suit[np.arange(len(s)), np.maximum(s[:, slot], 0)]
            more, which = _expand(np.where(every_rank, 4, 1))
            base, v, dealt, r, s, need, ten, every_rank, unread, ranked_suit = (
                a[more] for a in (base, v, dealt, r, s, need, ten, every_rank, unread, ranked_suit))
            rank = np.where(ten & ~every_rank, ANY_TEN, rank_table[np.maximum(v[:, slot], 0), which])
            r[:, slot] = np.where(need, rank, r[:, slot])
    s = np.where(dealt, s, -1).astype(np.int8)
    r = np.where(dealt, r, -1).astype(np.int8) if card else ranks[base]
    n, m = len(rows), len(base)
    return (np.concatenate([rows, rows[base], rows[base]]), np.concatenate([values, v, v]),
            np.concatenate([ranks, r, r]), np.concatenate([suits, s, s]),
            np.concatenate([fine, dealt, dealt]),
            np.concatenate([np.ones(n, np.int64), np.ones(m, np.int64), -np.ones(m, np.int64)]),
            np.concatenate([np.zeros(n, bool), np.ones(m, bool), np.zeros(m, bool)]))


def _canonical(suits: np.ndarray, fine: np.ndarray, told: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """Which rows of suits (-1: no card) write their class under the permutations within the blocks
    ``told`` as :func:`_suit_patterns` does, read with the finely read cards first, then the others,
    each in the order of their positions: the first suit to appear in a block is its first suit, the
    next its second, and so on.

    >>> _canonical(np.array([[0, 0, 1], [1, 0, 0], [0, -1, 1], [0, -1, 3]]), np.zeros((4, 3), bool), ((0, 1, 2, 3),))
    array([ True, False,  True, False])
    """
    order = np.argsort(np.where(fine, 0, 1) * suits.shape[1] + np.arange(suits.shape[1]), axis=1, kind="stable")
    ordered = np.take_along_axis(suits, order, axis=1)
    block_of = np.zeros(4, dtype=np.intp)
    nth = np.full((len(told), 4), -1, dtype=np.int64)
    for b, block in enumerate(told):
        block_of[list(block)] = b
        nth[b, :len(block)] = block
    rows = np.arange(len(suits))
    seen = np.zeros((len(suits), 4), dtype=bool)
    used = np.zeros((len(suits), len(told)), dtype=np.intp)
    ok = np.ones(len(suits), dtype=bool)
    for j in range(suits.shape[1]):
        s = ordered[:, j]
        card = s >= 0
        b = block_of[np.maximum(s, 0)]
        new = card & ~seen[rows, np.maximum(s, 0)]
        ok &= ~new | (s == nth[b, np.minimum(used[rows, b], 3)])
        seen[rows[new], s[new]] = True
        used[rows[new], b[new]] += 1
    return ok


@dataclass(frozen=True)
class _Entries:
    """Leaves summed into sparse entries (key, multiset[, pattern]) -> orderings, sorted by key."""

    keys: tuple[tuple[Any, ...], ...]
    key_columns: dict[str, np.ndarray]
    key_starts: np.ndarray
    orderings: np.ndarray
    entry_multiset: np.ndarray
    multiset_rows: np.ndarray           # a leaf of each multiset, to read its factor indices
    entry_pattern: np.ndarray | None

    @classmethod
    def sum(cls, names: tuple[str, ...], columns: dict[str, np.ndarray], weight: np.ndarray,
            multiset_code: np.ndarray, pattern_id: np.ndarray | None = None) -> _Entries:
        key_code = codes([columns[n] for n in names])
        parts = [multiset_code, key_code] if pattern_id is None else [pattern_id, multiset_code, key_code]
        order = np.lexsort(parts)
        changed = np.zeros(len(order) - 1, dtype=bool)
        for p in parts:
            changed |= p[order][1:] != p[order][:-1]
        starts = np.flatnonzero(np.r_[True, changed])
        orderings = np.add.reduceat(weight[order], starts)
        mc = multiset_code[order]
        _unique, ms_first, ms_index = np.unique(mc[starts], return_index=True, return_inverse=True)
        entry_keys = key_code[order][starts]
        key_starts = np.flatnonzero(np.r_[True, entry_keys[1:] != entry_keys[:-1]])
        representative = order[starts[key_starts]]
        key_columns = {n: columns[n][representative] for n in names}
        pattern = None if pattern_id is None else pattern_id[order][starts].astype(np.intp)
        for a in (*key_columns.values(), orderings, key_starts, *([pattern] if pattern is not None else [])):
            a.flags.writeable = False
        return cls(tuple(zip(*(c.tolist() for c in key_columns.values()))), key_columns, key_starts, orderings,
                   ms_index.ravel(), order[starts[ms_first]], pattern)


def _atom_code(atoms: np.ndarray) -> np.ndarray:
    """One code per row of sorted atoms (each below 64)."""
    code = np.zeros(len(atoms), dtype=np.int64)
    for j in range(atoms.shape[1]):
        code = code * 64 + atoms[:, j]
    return code


def _images(patterns: np.ndarray, told: tuple[tuple[int, ...], ...], n_x: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each pattern's images under the permutations within the blocks ``told``: their atoms' factor
    indices (``(images, width)``, the padding atom reads the factor 1), how many suit assignments of
    the pattern's cards each stands for, and where each pattern's images start.

    A pattern ``M`` (atoms of distinct positions) stands for the assignments ``g·s`` of its suit
    vector ``s``, ``g`` in the group ``G`` of those permutations: ``|G| / |Stab(s)|`` of them, where
    ``Stab(s)`` fixes each suit ``s`` uses, so ``|Stab(s)| = Π_blocks (size - used)!``. Each image
    ``M'`` of the multiset is reached by ``|Stab(M)|`` permutations, so it stands for
    ``|Stab(M)| / |Stab(s)|`` assignments (a whole number: ``Stab(s)`` lies in ``Stab(M)``).
    """
    group = _suit_group(told)
    pad = n_x * 4
    real = patterns < pad
    base, suit = patterns // 4, patterns % 4
    image_atoms = np.stack([np.sort(np.where(real, base * 4 + g[suit], pad), axis=1) for g in group])  # (G, P, w)
    image_code = np.stack([_atom_code(a) for a in image_atoms])                                          # (G, P)
    n_p = len(patterns)
    pid = np.tile(np.arange(n_p), len(group))
    flat_code = image_code.ravel()
    _u, first, reached = np.unique(pid * (1 << 40) + flat_code, return_index=True, return_counts=True)
    which = first // n_p                                   # the permutation that first reached each image
    of = pid[first]
    atoms = image_atoms[which, of]
    stab = np.ones(n_p, dtype=np.int64)
    for block in told:
        used = sum((real & (suit == s)).any(1).astype(np.int64) for s in block)
        stab *= np.array([math.factorial(len(block) - b) for b in range(len(block) + 1)])[used]
    stab = stab[of]
    if np.any(reached % stab):
        raise InconsistentCounts("a suit pattern's images do not divide evenly: a defect of exactodds, "
                                 "please report it")
    gathers = np.where(atoms < pad, atoms * _OFFSETS + _repeats(atoms), pad * _OFFSETS).astype(np.intp)
    starts = np.flatnonzero(np.r_[True, of[1:] != of[:-1]])
    return gathers, (reached // stab).astype(np.int64), starts


def _repeats(tokens: np.ndarray) -> np.ndarray:
    """For sorted rows of tokens: how many equal tokens come before each (its falling-factorial offset)."""
    before = np.zeros(tokens.shape, dtype=np.int16)
    for j in range(1, tokens.shape[1]):
        before[:, j] = np.where(tokens[:, j] == tokens[:, j - 1], before[:, j - 1] + 1, 0)
    return before


def _value_part(values: np.ndarray, fine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each leaf's six factor indices for its cards read at their point values and its tail (sorted),
    and a code for the multiset they make: a card read finer (``fine``) reads the factor 1 here,
    and shifts the cards of its value read after it."""
    tail, one = 10, 11
    tokens = np.where(fine, one, np.where(values >= 0, values.astype(np.int16), tail)).astype(np.int16)
    tokens = np.sort(tokens, axis=1)
    read = (values >= 0).sum(1, dtype=np.int16)
    taken = np.stack([(fine & (values == v)).sum(1, dtype=np.int16) for v in range(10)], axis=1)
    rows = np.arange(len(tokens))
    gathers = np.empty(tokens.shape, dtype=np.int16)
    repeats = _repeats(tokens)
    for j in range(CARDS_PER_ROUND):
        t, before = tokens[:, j], repeats[:, j]
        shift = np.where(t < tail, taken[rows, np.minimum(t, 9)], np.where(t == tail, read, 0)).astype(np.int16)
        gathers[:, j] = np.where(t == one, one * _OFFSETS, t * _OFFSETS + shift + before)
    code = np.zeros(len(tokens), dtype=np.int64)
    for j in range(CARDS_PER_ROUND):
        code = code * 128 + gathers[:, j]
    return gathers, code
