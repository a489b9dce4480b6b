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
>>> from exactodds.shoe import Shoe
>>> counts = t.counts(Shoe.decks(8))
>>> int(counts.sum()) == Shoe.decks(8).sequences
True
>>> p = compile_table(("player_rank_1", "player_rank_2", "banker_rank_1", "banker_rank_2"))
>>> len(p.keys), p.resolution                            # every ordered rank quadruple
(28561, 'rank')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import bounds, cache
from .cards import Rank
from .columns import INITIAL_SLOTS, identity_columns, slots_read, value_columns
from .errors import ExactOddsError, InconsistentCounts
from .outcomes import ALL_CARD_FEATURES, DERIVED, KNOWN_FEATURES, POINT_FEATURES, VALUE_LEVEL
from .modular import crt, primes_for
from .roundtable import slot_values
from .shoe import CARDS_PER_ROUND, Shoe, int64_safe

__all__ = ["MultisetTable", "compile_table", "estimate", "RESOLUTIONS", "slot_values", "codes", "point_names"]

#: How finely cards are read, coarsest first.
RESOLUTIONS = ("value", "rank", "suit", "card")

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
def _atoms(resolution: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Atoms of a resolution: (value, rank or -1, suit or -1) per atom id."""
    if resolution == "rank":
        return _POINTS.copy(), np.arange(13), np.full(13, -1)
    if resolution == "suit":
        return np.repeat(np.arange(10), 4), np.full(40, -1), np.tile(np.arange(4), 10)
    if resolution == "card":
        return np.repeat(_POINTS, 4), np.repeat(np.arange(13), 4), np.tile(np.arange(4), 13)
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)


@functools.cache
def _atoms_by_value(resolution: str) -> tuple[np.ndarray, np.ndarray]:
    """(number of atoms of each value, (10, width) table of their ids)."""
    value, _r, _s = _atoms(resolution)
    per = [np.flatnonzero(value == v) for v in range(10)]
    width = max(len(p) for p in per)
    table = np.zeros((10, width), dtype=np.int64)
    for v, ids in enumerate(per):
        table[v, :len(ids)] = ids
    return np.array([len(p) for p in per]), table


def _atom_counts(shoe: Shoe, resolution: str) -> list[int]:
    if resolution == "rank":
        return list(shoe.rank_counts)
    if shoe.card_counts is None:
        raise ExactOddsError(
            "it reads suits, but the shoe's suits are unknown (cards were given by rank only); "
            "give removed cards with their suits, e.g. 9h"
        )
    cards = shoe.card_counts
    if resolution == "card":
        return list(cards)
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

    def factors(self, shoe: Shoe, dtype: Any = object) -> np.ndarray:
        """Slot ``t*6 + o`` holds ``n_t - o`` for atom or value token ``t``; the tail
        slots hold ``N - j``."""
        atoms = _atom_counts(shoe, self.resolution) if self.resolution != "value" else []
        counts = [*atoms, *shoe.value_counts]
        f = np.empty((len(counts) + 1) * _OFFSETS, dtype=object)
        for t, n in enumerate(counts):
            for o in range(_OFFSETS):
                f[t * _OFFSETS + o] = n - o
        for j in range(_OFFSETS):
            f[len(counts) * _OFFSETS + j] = shoe.size - j
        return f if dtype is object else f.astype(dtype)

    def value_multiplicities(self) -> tuple[np.ndarray, np.ndarray]:
        """For a table read at point values: each multiset's cards per value ``(M, 10)``
        and how many cards it reads."""
        if self.resolution != "value":
            raise ValueError("value multiplicities exist for point-value tables only")
        tokens = self.multisets // _OFFSETS
        per_value = np.stack([(tokens == v).sum(1) for v in range(10)], axis=1)
        return per_value, per_value.sum(1)

    def counts(self, shoe: Shoe) -> np.ndarray:
        """Ordered 6-card sequences of ``shoe`` per key (aligned with :attr:`keys`).

        In ``int64`` while the shoe's counts fit it; beyond, modulo primes and
        rebuilt exactly (:mod:`exactodds.modular`).
        """
        if int64_safe(shoe.size):
            out = self._sum(self.factors(shoe, np.int64), None)
        else:
            primes = primes_for(shoe.sequences, bits=self.modulus_bits)
            factors = np.maximum(self.factors(shoe), 0).astype(np.uint64)  # a negative factor meets a 0 first
            out = crt([self._sum(factors, p) for p in primes], primes)
        if int(out.sum()) != shoe.sequences:          # an invariant of the counting, never of the input
            raise self.inconsistent(f"counts by {', '.join(self.names)} do not add up to the shoe's sequences "
                                    f"({int(out.sum())}, not {shoe.sequences})")
        return out

    def inconsistent(self, problem: str) -> InconsistentCounts:
        """The error for counts of this table that break an invariant; a table read from the disk
        cache is discarded first, so that the next run builds it again."""
        if self.from_disk:
            cache.discard("multiset", _key(self.names))
            return InconsistentCounts(f"{problem}: the table read from the disk cache is wrong; it is discarded, "
                                      "run again")
        return InconsistentCounts(f"{problem}: a defect of exactodds, please report it")

    def counts_in_python_integers(self, shoe: Shoe) -> np.ndarray:
        """The same counts in Python integers throughout (slow; a check of the modular route)."""
        return self._sum(self.factors(shoe), None)

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
        return 63 - int(self.entry_orderings.max(initial=1)).bit_length() - len(self.entry_orderings).bit_length()

    @property
    def modulus_bits(self) -> int:
        """The size of the primes a shoe past the int64 bound is counted modulo."""
        return max(min(32, self._spare_bits), 20)

    def _sum(self, f: np.ndarray, modulus: int | None) -> np.ndarray:
        """Σ over entries of orderings × multiset weight, per key.

        With a modulus (a prime of :attr:`modulus_bits` bits) the weight is
        reduced after every product, and the entries' sum needs no reduction
        until the end, unless the table is too large for that (then each entry is).
        """
        m = self._by_card()
        if modulus is None:
            w = f[m[0]]
            for j in range(1, CARDS_PER_ROUND):
                w = w * f[m[j]]
            orderings = self.entry_orderings if f.dtype != object else self.entry_orderings.astype(object)
            return np.add.reduceat(w[self.entry_multiset] * orderings, self.key_starts)
        # factors lie in 0..N: multiply raw ones while the product fits 64 bits, then reduce
        per = max(int(f.max(initial=1)).bit_length(), 1)
        w = f[m[0]].copy()
        bits = per
        for j in range(1, CARDS_PER_ROUND):
            if bits + per > 64:
                w %= modulus
                bits = modulus.bit_length()
            w *= f[m[j]]
            bits += per
        w %= modulus
        contributions = w[self.entry_multiset] * self._orderings_mod(modulus)
        if modulus.bit_length() > self._spare_bits:
            contributions %= modulus
        return np.add.reduceat(contributions, self.key_starts) % modulus

    def _by_card(self) -> np.ndarray:
        """The multisets' factor indices as six contiguous rows (faster to gather)."""
        memo: dict[str, np.ndarray] = self.__dict__.setdefault("_rows", {})
        if "rows" not in memo:
            memo["rows"] = np.ascontiguousarray(self.multisets.T)
        return memo["rows"]


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


def compile_table(names: Iterable[str] | str) -> MultisetTable:
    """The multiset table of a set of features (names as listed by ``exactodds features``):
    compiled once per process, and kept on disk between processes (:mod:`exactodds.cache`).

    ``table.counts(shoe)`` gives the ordered 6-card sequences of a shoe per key,
    aligned with ``table.keys`` (tuples of feature values in ``table.names`` order).
    Features of every card dealt (``same_suit``, ...) are counted by the wagers
    that read them, not by a multiset table.
    """
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
        if name in ALL_CARD_FEATURES:
            raise ExactOddsError(f"{name!r} reads every card dealt: it is counted per value multiset by the "
                                 "wagers that read it, not in a multiset table")
    return _table(chosen)


@cache.register_memo
@functools.cache
def _table(names: tuple[str, ...]) -> MultisetTable:
    key = _key(names)
    saved = cache.load("multiset", key)
    if saved is not None:
        problem = _malformed(names, saved)
        if problem is None:
            return _from_arrays(names, saved)
        cache.reject("multiset", key, problem)
    table = _compile(names)
    cache.save("multiset", key, _to_arrays(table))
    return table


def _key(names: tuple[str, ...]) -> str:
    return "|".join(names)


def _to_arrays(t: MultisetTable) -> dict[str, np.ndarray]:
    return {"resolution": np.array(t.resolution), "leaves": np.array(t.leaves),
            "multisets": t.multisets.astype(np.int16), "entry_multiset": t.entry_multiset.astype(np.int32),
            "entry_orderings": t.entry_orderings, "key_starts": t.key_starts,
            **{f"column:{n}": c for n, c in t.columns.items()}}


def _from_arrays(names: tuple[str, ...], a: dict[str, np.ndarray]) -> MultisetTable:
    columns = {n: a[f"column:{n}"] for n in names}
    for c in columns.values():
        c.flags.writeable = False
    return MultisetTable(
        names=names, resolution=str(a["resolution"]), keys=tuple(zip(*(c.tolist() for c in columns.values()))),
        columns=columns, multisets=a["multisets"].astype(np.intp), entry_multiset=a["entry_multiset"].astype(np.intp),
        entry_orderings=a["entry_orderings"], key_starts=a["key_starts"], leaves=int(a["leaves"]), from_disk=True,
    )


def _malformed(names: tuple[str, ...], a: dict[str, np.ndarray]) -> str | None:
    """What makes saved arrays no table of ``names`` (shapes, types, indices out of range), or None."""
    wanted = {"resolution", "leaves", "multisets", "entry_multiset", "entry_orderings", "key_starts",
              *(f"column:{n}" for n in names)}
    if set(a) != wanted:
        return "holds other arrays"
    ints = ("leaves", "multisets", "entry_multiset", "entry_orderings", "key_starts")
    if a["resolution"].shape != () or str(a["resolution"]) not in RESOLUTIONS or a["leaves"].shape != () or \
            any(a[n].dtype.kind not in "iu" for n in ints) or a["multisets"].ndim != 2 or \
            a["multisets"].shape[1] != CARDS_PER_ROUND:
        return "is no table"
    entries, starts, multisets = a["entry_multiset"], a["key_starts"], a["multisets"]
    factors = (len(_atoms(str(a["resolution"]))[0]) + 11) * _OFFSETS
    if entries.ndim != 1 or a["entry_orderings"].shape != entries.shape or starts.ndim != 1 or \
            any(a[f"column:{n}"].shape != starts.shape or a[f"column:{n}"].dtype.kind == "O" for n in names):
        return "has arrays of unequal lengths"
    if not len(starts) or starts[0] != 0 or np.any(np.diff(starts) <= 0) or starts[-1] >= len(entries) or \
            entries.min(initial=0) < 0 or entries.max(initial=0) >= len(multisets) or \
            multisets.min(initial=0) < 0 or multisets.max(initial=0) >= factors:
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

    @property
    def leaves(self) -> int:
        """Rows the refinement makes: each group times the atoms of every refined position's value class."""
        n_atoms = _atoms_by_value(self.resolution)[0]
        per = np.ones(len(self.values), dtype=np.float64)
        for s in self.refined:
            v = self.values[:, s]
            per *= np.where(v >= 0, n_atoms[np.maximum(v, 0)], 1)
        return int(per.sum())

    @property
    def keys(self) -> int:
        """At most how many keys: the value-level keys times every card the refined positions may hold."""
        value_keys = len(np.unique(codes(list(self.vcols.values())))) if self.vcols else 1
        cards = {"value": 1, "rank": 13, "suit": 4, "card": 52}[self.resolution]
        return value_keys * math.prod(cards + (s in (2, 5)) for s in self.refined)

    def estimate(self) -> bounds.Estimate:
        return bounds.multiset_estimate(self.names, resolution=self.resolution, slots=self.refined,
                                        leaves=self.leaves, keys=self.keys, groups=len(self.values))


def _plan(names: tuple[str, ...]) -> _Plan:
    """The value-level part of a compile (at most the 339,400 rounds of the round table)."""
    value_names = {n for n in names if n in VALUE_LEVEL}
    id_names = [n for n in names if n not in VALUE_LEVEL]
    resolution, id_slots = "value", set[int]()
    for name in id_names:
        slots, need = slots_read(name)
        id_slots.update(slots)
        resolution = _join(resolution, need)
    refined = sorted(id_slots)

    values = _base(value_names, id_slots)
    vcols = value_columns(values, sorted(value_names))
    read_by_value = _per_value(values)
    # merge value rows that read alike and weigh alike before refining them
    group_code = codes([*vcols.values(), *(values[:, s] for s in refined), *read_by_value.T])
    _u, first, inverse = np.unique(group_code, return_index=True, return_inverse=True)
    weight = np.bincount(inverse.ravel(), minlength=len(first)).astype(np.int64)   # value rows merged
    return _Plan(names, resolution, refined, id_names, values[first], {n: c[first] for n, c in vcols.items()},
                 weight)


def estimate(names: Iterable[str]) -> bounds.Estimate:
    """The size of compiling the multiset table of ``names``, from what the compiler enumerates
    before refining (see :mod:`exactodds.bounds`)."""
    return _plan(tuple(sorted(set(names)))).estimate()


def _compile(names: tuple[str, ...]) -> MultisetTable:
    """Walk the round table, refine it where ``names`` read ranks or suits, and sum it into entries.

    A table estimated beyond :data:`exactodds.bounds.LIMIT_BYTES` is refused before it is refined."""
    plan = _plan(names)
    bounds.check(plan.estimate())
    resolution, refined, id_names = plan.resolution, plan.refined, plan.id_names
    values, vcols, weight = plan.values, plan.vcols, plan.weight

    # refine: each read position becomes every atom of its value class
    n_atoms, atom_table = _atoms_by_value(resolution)
    atom_value, atom_rank, atom_suit = _atoms(resolution)
    rows = np.arange(len(values))
    chosen: list[np.ndarray] = []
    for s in refined:
        v = values[rows, s]
        options = np.where(v >= 0, n_atoms[np.maximum(v, 0)], 1)
        pick = np.repeat(np.arange(len(rows)), options)
        within = np.arange(len(pick)) - np.repeat(np.cumsum(options) - options, options)
        vv = v[pick]
        atom = np.where(vv >= 0, atom_table[np.maximum(vv, 0), within], -1)
        chosen = [c[pick] for c in chosen] + [atom]
        rows = rows[pick]
    leaf_values = values[rows]
    ranks = np.full(leaf_values.shape, -1, dtype=np.int8)
    suits = np.full(leaf_values.shape, -1, dtype=np.int8)
    tokens_atom = np.full(leaf_values.shape, -1, dtype=np.int16)
    for s, atom in zip(refined, chosen):
        ok = atom >= 0
        ranks[:, s] = np.where(ok, atom_rank[np.maximum(atom, 0)], -1) if len(atom_rank) else -1
        suits[:, s] = np.where(ok, atom_suit[np.maximum(atom, 0)], -1) if len(atom_suit) else -1
        tokens_atom[:, s] = atom
    columns = {n: c[rows] for n, c in vcols.items()}
    columns.update(identity_columns(leaf_values, ranks, suits, id_names))
    multisets, multiset_code = _multisets(leaf_values, tokens_atom, atom_value)

    key_code = codes([columns[n] for n in names])
    order = np.lexsort((multiset_code, key_code))
    kc, mc = key_code[order], multiset_code[order]
    starts = np.flatnonzero(np.r_[True, (kc[1:] != kc[:-1]) | (mc[1:] != mc[:-1])])
    orderings = np.add.reduceat(weight[rows][order], starts)
    _unique, ms_first, ms_index = np.unique(mc[starts], return_index=True, return_inverse=True)
    entry_keys = kc[starts]
    key_starts = np.flatnonzero(np.r_[True, entry_keys[1:] != entry_keys[:-1]])
    representative = order[starts[key_starts]]
    key_columns = {n: columns[n][representative] for n in names}
    keys = tuple(zip(*(c.tolist() for c in key_columns.values())))
    ms_rows = order[starts[ms_first]]
    for a in (*key_columns.values(), orderings, key_starts):
        a.flags.writeable = False
    return MultisetTable(
        names=names, resolution=resolution, keys=keys, columns=key_columns,
        multisets=multisets[ms_rows].astype(np.intp), entry_multiset=ms_index.ravel(), entry_orderings=orderings,
        key_starts=key_starts, leaves=len(rows),
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
    for j in range(CARDS_PER_ROUND):
        t = tokens[:, j]
        before = np.zeros(len(t), dtype=np.int16)
        for i in range(j):
            before += tokens[:, i] == t
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
