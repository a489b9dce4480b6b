"""The exact distribution of rounds off the top of a shoe.

:func:`deal` returns a :class:`RoundDistribution`: counts are computed when a
wager reads them, each from the shoe-independent table it needs — the
multiset tables of :mod:`exactodds.engine.multiset` (point values, and ranks and
suits of single cards), the identity categories of every card dealt, or the
quadratic forms of the four initial cards (:mod:`exactodds.engine.identity`) — and
kept for the next wager that reads the same table.

>>> dist = deal(Shoe.decks(8))
>>> main = dist.main_game()
>>> main["banker"], main["player"], main["tie"]
(2292252566437888, 2230518282592256, 475627426473216)

The recursive, memoized walk in :mod:`exactodds.engine.walk` and the per-round
weights of :mod:`exactodds.engine.roundtable` reach the same numbers by other routes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exactodds.engine.identity import all_card_categories, categories_fit_int64, initial_counts
from exactodds.engine.modular import crt, exact_sum, primes_for
from exactodds.engine.multiset import EVERY_SUIT, Varies, compile_table
from exactodds.engine.roundtable import POINT_NAMES, RoundTable, round_table, round_weights
from exactodds.game.shoe import CARDS_PER_ROUND, Shoe, int64_safe

__all__ = ["RoundDistribution", "deal", "round_table", "round_weights", "POINT_NAMES"]


@dataclass(frozen=True, eq=False)
class RoundDistribution:
    """The exact distribution of rounds off the top of one shoe, counted as wagers read it.

    Every count is a number of ordered 6-card sequences of the shoe; each table's
    counts add up to :attr:`total`, the shoe's :attr:`~exactodds.game.shoe.Shoe.sequences`.
    :attr:`weights` gives the same distribution round by round (the slower per-round
    route of :mod:`exactodds.engine.roundtable`).
    """

    shoe: Shoe
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    @property
    def total(self) -> int:
        return self.shoe.sequences

    @property
    def table(self) -> RoundTable:
        return round_table()

    @property
    def weights(self) -> np.ndarray:
        """Each value-level round's number of ordered 6-card sequences (computed on first use)."""
        if "weights" not in self._cache:
            self._cache["weights"] = round_weights(self.shoe)
        return self._cache["weights"]  # type: ignore[no-any-return]

    def table_counts(self, names: tuple[str, ...], told: str = EVERY_SUIT,
                     varies: Varies | None = None) -> np.ndarray:
        """Counts per key of the multiset table of ``names`` telling suits apart as ``told``, compiled
        for the wagers ``varies`` names if given (see :mod:`exactodds.engine.multiset`)."""
        key = ("multiset", names, told, varies)
        if key not in self._cache:
            self._cache[key] = compile_table(names, told=told, varies=varies).counts(self.shoe)
        return self._cache[key]  # type: ignore[no-any-return]

    def block_counts(self, names: tuple[str, ...], key_block: np.ndarray, told: str = EVERY_SUIT,
                     varies: Varies | None = None) -> list[int]:
        """Counts per block of keys of the multiset table of ``names`` (``key_block[k]``: key ``k``'s block),
        as Python integers: what wagers that settle each block's keys alike need (see
        :meth:`~exactodds.engine.multiset.MultisetTable.block_counts`). Where this shoe's counts per key are
        already kept, they are summed; else the blocks are counted without them."""
        key = ("multiset", names, told, varies)
        if key in self._cache:
            out = [0] * (int(key_block.max(initial=-1)) + 1)
            for b, n in zip(key_block.tolist(), self._cache[key].tolist()):
                out[b] += n
            return out
        return compile_table(names, told=told, varies=varies).block_counts(self.shoe, key_block)

    def point_counts(self) -> dict[tuple[int, ...], int]:
        """Counts keyed by (player total, banker total, player cards, banker cards)."""
        names = tuple(sorted(POINT_NAMES))
        where = [names.index(n) for n in POINT_NAMES]
        keys = compile_table(names).keys
        return {tuple(k[i] for i in where): int(n) for k, n in zip(keys, self.table_counts(names))}

    def every_card_counts(self, names: tuple[str, ...], *, what: str = "this wager") -> np.ndarray:
        """Counts per (key of the value-level table of ``names``, category of every card dealt):
        ``(keys, 6)``, categories as in :data:`exactodds.engine.identity.ALL_CARD_CATEGORIES`.

        The value multisets of the table are split into identity categories by
        per-suit and per-rank falling factorials (:func:`exactodds.engine.identity.all_card_categories`).
        In ``int64`` while the shoe's counts fit it, in ``uint64`` while they are below 2**64 (about 31 decks),
        else in Python integers.
        """
        cache_key = ("every card", names)
        if cache_key not in self._cache:
            table = compile_table(names)
            values, read = table.value_multiplicities()
            n = self.shoe.size
            tail = [math.perm(n - k, CARDS_PER_ROUND - k) for k in range(CARDS_PER_ROUND + 1)]
            if int64_safe(n):
                per_multiset = self._categories(values, what, None) * np.array(tail, dtype=np.int64)[read][:, None]
                out = table.key_sums(per_multiset)
            elif self.total < 2**64 and categories_fit_int64(self.shoe):
                # past int64, below 2**64 (to about 31 decks): a multiset's draws in a category times the unread
                # cards' are ordered 6-card sequences of the shoe, at most its total, and so is every key's sum
                per_multiset = (self._categories(values, what, None).astype(np.uint64)
                                * np.array(tail, dtype=np.uint64)[read][:, None])
                out = table.wide_key_sums(per_multiset)
            else:                   # past 2**64: modulo primes, rebuilt exactly
                primes = primes_for(self.total, bits=31)
                # a residue (< 2**31) times an entry's orderings, summed over every entry, stays below 2**63
                # unreduced: the table's sums in int64 (key_sums), reduced once
                largest = int(np.abs(table.entry_orderings).max(initial=1))
                unreduced = (largest * len(table.entry_orderings)).bit_length() + 31 < 63
                residues = []
                for p in primes:
                    per = self._categories(values, what, p) * (np.array(tail, dtype=object) % p).astype(np.int64)[read][:, None] % p
                    if unreduced:
                        sums = table.key_sums(per)
                    else:
                        sums = np.add.reduceat(per[table.entry_multiset] * (table.entry_orderings % p)[:, None] % p,
                                               table.key_starts, axis=0)
                    residues.append(sums % p)
                out = crt(residues, primes)
            if exact_sum(out) != self.total:     # an invariant of the counting
                raise table.inconsistent(f"counts by {', '.join(names)} and every card do not add up to the "
                                         "shoe's sequences")
            self._cache[cache_key] = out
        return self._cache[cache_key]  # type: ignore[no-any-return]

    def _categories(self, values: np.ndarray, what: str, modulus: int | None) -> np.ndarray:
        """Identity categories per value multiset, shared by every table of the same multisets."""

        key = ("categories", id(values), modulus)         # the table keeps ``values``: checked below
        if key not in self._cache or self._cache[key][0] is not values:
            self._cache[key] = (values, all_card_categories(self.shoe, values, what=what, modulus=modulus))
        return self._cache[key][1]  # type: ignore[no-any-return]

    def initial_counts(self, needs_player: tuple[str, ...], needs_banker: tuple[str, ...],
                       *, what: str = "this wager") -> dict[tuple[Any, ...], int]:
        """Counts per (Player, Banker) attributes of the four initial cards (see identity)."""
        cache_key = ("initial", needs_player, needs_banker)
        if cache_key not in self._cache:

            self._cache[cache_key] = initial_counts(self.shoe, needs_player=needs_player,
                                                    needs_banker=needs_banker, what=what, shared=self._cache)
        return self._cache[cache_key]  # type: ignore[no-any-return]

    def main_game(self) -> dict[str, int]:
        """Banker wins, Player wins and ties (§627a.7(a)(1)–(3))."""
        out = {"banker": 0, "player": 0, "tie": 0}
        for (p, b, _pc, _bc), n in self.point_counts().items():
            out["banker" if b > p else "player" if p > b else "tie"] += n
        return out


def deal(shoe: Shoe) -> RoundDistribution:
    """The exact distribution of rounds off the top of ``shoe`` (counted when read)."""
    return RoundDistribution(shoe)
