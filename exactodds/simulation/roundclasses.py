"""Rounds counted by class: what checking a simulator needs from any number of rounds.

A wager reads a round only through a few features, so a check need not settle
every round: it counts how many rounds fall in each *class* of rounds that
settle alike, chunk by chunk (a bincount, no sort), and settles one
representative of each class once, at the end. Three keys cover every table
signature of the catalogue (:func:`exactodds.analyses.pricing.table_signature`):

* the **value code** — the point value of each of the six card slots, or none
  (11 states each): decides every table that reads point values only, and the
  drawing rules of §627a.10;
* the value code with the round's **all-same flags** — every card dealt of one
  suit, one colour, one rank: decides the ``round`` tables;
* the **initial code** — the classes of the two-card hands
  (:func:`exactodds.simulation.rounds.round_keys`): decides the ``initial`` tables.

Any other signature is counted by its own key (:func:`~exactodds.simulation.rounds.round_keys`)
with one real round kept per key.

>>> import numpy as np
>>> from exactodds.game.cards import Card
>>> cards = np.array([[Card.parse(c).index for c in ("Ks", "9h")] + [-1]
...                   + [Card.parse(c).index for c in ("2d", "3c", "5s")]])
>>> int(value_codes(cards)[0]) == ((((1 * 11 + 10) * 11 + 0) * 11 + 3) * 11 + 4) * 11 + 6
True
>>> h = RoundHistogram()
>>> h.add(cards, kinds={"values"})
>>> [str(Card.from_index(int(c))) for c in decode_values(np.flatnonzero(h.values))[0] if c >= 0]
['10♠', '9♥', '2♥', '3♠', '5♥']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exactodds.analyses.pricing import table_signature
from exactodds.simulation.rounds import POINTS, _hand_codes, features, round_keys, settle_rounds, window_draws
from exactodds.wagers.outcomes import VALUE_LEVEL

__all__ = ["VALUE_SPACE", "value_codes", "decode_digits", "decode_values", "all_same_flags", "initial_codes", "breaks_rules",
           "Sparse", "RoundHistogram", "Classes", "histogram_kind", "distinct", "settlement_groups", "settle_grouped"]

#: Value codes: six slots (Player 1-3, Banker 1-3), each 0 for no card or 1 + its point value.
VALUE_SPACE = 11 ** 6

#: By card index + 2 (-2 unreadable and -1 no card both read as no card): 0 for no card, else 1 + the
#: card's point value.
_SLOT_VALUE = np.concatenate([[0, 0], 1 + POINTS]).astype(np.int32)


def value_codes(cards: np.ndarray) -> np.ndarray:
    """The value code of each round of ``cards`` (``(n, 6)`` card indices, -1 none)."""
    code = np.take(_SLOT_VALUE, cards[:, 0] + 2)
    for k in range(1, 6):
        code *= 11
        code += np.take(_SLOT_VALUE, cards[:, k] + 2)
    return code


#: ``_DECODE[slot][digit]``: the card decode_values puts in a slot for a value-code digit.
_DECODE = np.array([[-1] + [(v - 1 if v else 9 + slot % 2) * 4 + slot % 2 for v in range(10)] for slot in range(6)])


def decode_digits(codes: np.ndarray) -> np.ndarray:
    """The point values of each value code's six slots, ``(n, 6)`` (-1: no card)."""
    rest = np.array(codes, dtype=np.int64)
    out = np.empty((len(rest), 6), dtype=np.int16)
    for slot in range(5, -1, -1):
        out[:, slot] = rest % 11 - 1
        rest //= 11
    return out


def decode_values(codes: np.ndarray) -> np.ndarray:
    """A round for each value code, ``(n, 6)`` card indices: suits alternate spades and hearts and
    the 0-point cards alternate tens and jacks, so it is all of one suit, colour or rank only
    where every round of that code must be."""
    digits = decode_digits(codes) + 1
    return np.stack([np.take(_DECODE[slot], digits[:, slot]) for slot in range(6)], axis=1)


#: Per card (index + 2; 0 and 1 no card): a bit for its suit (0-3), its colour (4 red, 5 black), its rank (6-18).
_ATTRIBUTES = np.array([0, 0] + [(1 << (i % 4)) | (1 << (4 if i % 4 in (1, 2) else 5)) | (1 << (6 + i // 4))
                                 for i in range(52)], dtype=np.int32)


def all_same_flags(cards: np.ndarray) -> np.ndarray:
    """Per round: bit 0 every card dealt is of one suit, bit 1 of one colour, bit 2 of one rank."""
    seen = np.take(_ATTRIBUTES, cards[:, 0] + 2)
    for k in range(1, 6):
        seen |= np.take(_ATTRIBUTES, cards[:, k] + 2)
    flags = np.zeros(len(seen), dtype=np.int64)
    for bit, part in enumerate((seen & 0xF, seen & 0x30, seen >> 6)):
        flags |= ((part & (part - 1)) == 0).astype(np.int64) << bit         # exactly one bit set
    return flags


@functools.cache
def _hands() -> tuple[np.ndarray, int, np.ndarray]:
    """(hand class of each ordered pair of cards, flattened; how many classes; one pair of each class)."""

    hand = _hand_codes()
    count = int(hand.max()) + 1
    first = np.full(count, -1, dtype=np.int64)
    flat = hand.reshape(-1)
    first[flat[::-1]] = np.arange(len(flat) - 1, -1, -1)            # the first pair of each class
    return flat, count, np.stack([first // 52, first % 52], axis=1)


def initial_codes(cards: np.ndarray) -> np.ndarray:
    """The initial code of each round: the Player's two-card class, then the Banker's."""
    flat, count, _ = _hands()
    c = np.asarray(cards, dtype=np.int16)
    return np.take(flat, c[:, 0] * 52 + c[:, 1]) * count + np.take(flat, c[:, 3] * 52 + c[:, 4])


def _decode_initial(codes: np.ndarray) -> np.ndarray:
    _, count, pair = _hands()
    p, b = pair[codes // count], pair[codes % count]
    none = np.full(len(codes), -1)
    return np.stack([p[:, 0], p[:, 1], none, b[:, 0], b[:, 1], none], axis=1)


@functools.cache
def _dealable() -> np.ndarray:
    """By value code: can the drawing rules of §627a.10 deal it? Read off who draws in each window of
    five values (:func:`~exactodds.simulation.rounds.window_draws`), the sixth card free when both draw."""
    draws = window_draws().astype(np.int64)
    p1, b1, p2, b2, x = (np.arange(100_000)[:, None] // 10 ** np.arange(4, -1, -1) % 10 + 1).T
    player3 = np.where(draws & 1, x, 0)                         # 0: no card; else 1 + the value
    banker3 = np.where(draws == 2, x, 0)                        # the Banker alone draws: the fifth card
    code = ((((p1 * 11 + p2) * 11 + player3) * 11 + b1) * 11 + b2) * 11 + banker3
    both = draws == 3
    table = np.zeros(VALUE_SPACE, dtype=bool)
    table[code[~both]] = True
    table[(code[both][:, None] + np.arange(1, 11)).ravel()] = True   # both draw: any sixth card
    return table


@functools.cache
def _plain() -> np.ndarray:
    """By value code: is it dealable and its :func:`decode_values` round of no all-same flag? (All
    dealable codes but those whose cards must be of one rank.)"""
    codes = np.flatnonzero(_dealable())
    plain = np.zeros(VALUE_SPACE, dtype=bool)
    plain[codes[all_same_flags(decode_values(codes)) == 0]] = True
    return plain


def breaks_rules(codes: np.ndarray) -> np.ndarray:
    """Whether rounds of these value codes break the drawing rules of §627a.10."""
    return ~np.take(_dealable(), codes)


@dataclass
class Sparse:
    """A histogram over keys too many for a table: distinct keys, their counts, one real round each."""

    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rounds: np.ndarray = field(default_factory=lambda: np.zeros((0, 6), dtype=np.int16))
    _pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list, repr=False)
    _size: int = 0

    def add(self, keys: np.ndarray, rounds: np.ndarray) -> None:
        """Count ``keys`` (one per round of ``rounds``)."""
        if len(keys):
            distinct, first, counts = np.unique(keys, return_index=True, return_counts=True)
            self.add_counts(distinct, counts.astype(np.int64), rounds[first])

    def add_counts(self, keys: np.ndarray, counts: np.ndarray, rounds: np.ndarray) -> None:
        self._pending.append((keys, counts, np.asarray(rounds, dtype=np.int16)))
        self._size += len(keys)
        if self._size > len(self.keys) + max(len(self.keys) // 4, 65_536):   # merge now and then: amortised
            self.compact()                                  # linear, and what waits stays small beside the keys

    def compact(self) -> Sparse:
        if self._pending:
            keys = np.concatenate([self.keys, *(k for k, _, _ in self._pending)])
            counts = np.concatenate([self.counts, *(c for _, c, _ in self._pending)])
            rounds = np.concatenate([self.rounds, *(r for _, _, r in self._pending)])
            self.keys, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            self.counts = np.zeros(len(self.keys), dtype=np.int64)
            np.add.at(self.counts, inverse.ravel(), counts)
            self.rounds = rounds[first]
            self._pending, self._size = [], len(self.keys)
        return self

    def merge(self, other: Sparse) -> None:
        other.compact()
        self.add_counts(other.keys, other.counts, other.rounds)


def histogram_kind(signature: tuple[Any, ...]) -> str:
    """Which histogram decides tables of this signature: 'values', 'flagged', 'initial' or 'other'."""
    if signature[0] == "initial":
        return "initial"
    if set(signature[1]) <= VALUE_LEVEL:
        return "values" if signature[0] == "multiset" else "flagged"
    return "other"


@dataclass
class RoundHistogram:
    """How many rounds fell in each class (the map step's result; add them up in any order)."""

    values: np.ndarray | None = None                         # by value code
    initial: np.ndarray | None = None                        # by initial code
    flagged: Sparse = field(default_factory=Sparse)          # value code × 8 + all-same flags, flags > 0
    other: dict[tuple[Any, ...], Sparse] = field(default_factory=dict)
    _present: np.ndarray | None = field(default=None, repr=False, compare=False)   # value codes counted

    def add(self, cards: np.ndarray, *, kinds: Iterable[str], signatures: Sequence[tuple[Any, ...]] = (),
            value_counts: np.ndarray | None = None, codes: np.ndarray | None = None) -> None:
        """Count rounds (``(n, 6)`` card indices) into the histograms ``kinds`` needs; the value codes
        and their bincount may be given when already computed."""
        kinds = set(kinds)
        self._present = None
        cards = np.asarray(cards, dtype=np.int16)
        if codes is None:
            codes = value_codes(cards)
        if value_counts is None:
            value_counts = np.bincount(codes, minlength=VALUE_SPACE)
        if self.values is None:
            self.values = value_counts.copy()
        else:
            self.values += value_counts
        if "initial" in kinds:
            count = _hands()[1]
            seen = np.bincount(initial_codes(cards), minlength=count * count)
            self.initial = seen if self.initial is None else self.initial + seen
        if "flagged" in kinds:
            flags = all_same_flags(cards)
            rows = np.flatnonzero(flags)
            self.flagged.add(codes[rows].astype(np.int64) * 8 + flags[rows], cards[rows])
        for sig in signatures:
            if histogram_kind(sig) == "other":
                self.other.setdefault(sig, Sparse()).add(round_keys(cards[:, :3], cards[:, 3:], sig), cards)

    def merge(self, other: RoundHistogram) -> None:
        self._present = None
        for name in ("values", "initial"):
            theirs = getattr(other, name)
            if theirs is not None:
                mine = getattr(self, name)
                if mine is None:
                    setattr(self, name, theirs.copy())
                else:
                    mine += theirs
        self.flagged.merge(other.flagged)
        for sig, sparse in other.other.items():
            self.other.setdefault(sig, Sparse()).merge(sparse)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled with the dense tables sparse (a file's counts come back from a cluster's worker): the
        value codes counted, 2 MB where the whole table is 14 MB."""
        state = dict(self.__dict__, _present=None)
        for name in ("values", "initial"):
            if state[name] is not None:
                state[name] = _packed(state[name])
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in ("values", "initial"):
            if state[name] is not None:
                state[name] = _unpacked(*state[name])
        self.__dict__.update(state)

    @property
    def rounds(self) -> int:
        return 0 if self.values is None else int(self.values.sum())

    def classes(self, signature: tuple[Any, ...], *, every: bool = False) -> Classes:
        """The classes of rounds that decide tables of a signature, with their counts. ``every``: by
        value code, every dealable class, counted or not (none for 0 rounds), so that settling them
        takes the same time and memory however many rounds were read."""
        kind = histogram_kind(signature)
        if kind == "initial":
            initial = self.initial if self.initial is not None else np.zeros(0, dtype=np.int64)
            codes = np.flatnonzero(initial)
            return Classes(initial[codes], lambda at: _decode_initial(codes[at]))
        if kind == "other":
            sparse = self.other.get(signature, Sparse()).compact()
            return Classes(sparse.counts, lambda at: sparse.rounds[at].astype(np.int64))
        values = self.values if self.values is not None else np.zeros(VALUE_SPACE, dtype=np.int64)
        if kind == "values":
            if every:
                codes = np.flatnonzero(_dealable() | (values > 0))
            elif self._present is None:
                self._present = codes = np.flatnonzero(values)
            else:
                codes = self._present
            return Classes(values[codes], lambda at: decode_values(codes[at]), codes)
        flagged = self.flagged.compact()
        unflagged = values.copy()                            # rounds with no all-same flag: the rest
        np.subtract.at(unflagged, flagged.keys // 8, flagged.counts)
        if (unflagged < 0).any():
            raise AssertionError("all-same flags counted more rounds than the value codes")
        plain = np.flatnonzero((unflagged > 0) | _plain()) if every else np.flatnonzero(unflagged)

        def rounds(at: np.ndarray) -> np.ndarray:
            out = np.empty((len(at), 6), dtype=np.int64)
            decoded = at < len(plain)
            out[decoded] = decode_values(plain[at[decoded]])
            if all_same_flags(out[decoded]).any():
                raise AssertionError("a round counted without an all-same flag where every such round has one")
            out[~decoded] = flagged.rounds[at[~decoded] - len(plain)]
            return out

        return Classes(np.concatenate([unflagged[plain], flagged.counts]), rounds,
                       np.concatenate([plain, flagged.keys // 8]),
                       np.concatenate([np.zeros(len(plain), dtype=np.int64), flagged.keys % 8]))


def _packed(table: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """A table of counts as (its length, where it is not 0, the counts there in the narrowest unsigned type)."""
    where = np.flatnonzero(table)
    counts = table[where]
    if len(counts) and counts.min() < 0:
        raise AssertionError("a negative count of rounds")
    kind = np.min_scalar_type(int(counts.max())) if len(counts) else np.dtype(np.uint8)
    return len(table), where.astype(np.min_scalar_type(len(table))), counts.astype(kind)


def _unpacked(size: int, where: np.ndarray, counts: np.ndarray) -> np.ndarray:
    table = np.zeros(size, dtype=np.int64)
    table[where] = counts
    return table


@dataclass(frozen=True)
class Classes:
    """Classes of rounds: how many rounds each holds, a representative round of any of them
    (``rounds(indices)``, ``(n, 6)`` card indices) and, by value code, the value code and all-same
    flags of each."""

    counts: np.ndarray
    rounds: Callable[[np.ndarray], np.ndarray]
    codes: np.ndarray | None = None
    flags: np.ndarray | None = None


# -- settling the rounds of a chunk, group by group ---------------------------------------------

def distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row, inverse) of the distinct keys: by a table when they are small whole numbers
    (no sort: linear in the rounds), else by sorting."""
    keys = np.asarray(keys, dtype=np.int64)
    if len(keys) and keys.min() >= 0 and keys.max() < max(1 << 20, 2 * len(keys)):
        present = np.zeros(int(keys.max()) + 1, dtype=bool)
        present[keys] = True
        ids = np.cumsum(present) - 1
        inverse = ids[keys]
        first = np.empty(int(present.sum()), dtype=np.int64)
        first[inverse[::-1]] = np.arange(len(keys) - 1, -1, -1)        # the earliest row wins
        return first, inverse
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def settlement_groups(player: np.ndarray, banker: np.ndarray, sig: tuple[Any, ...], cache: dict[str, Any]
                      ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Rounds that settle alike for every wager of a table signature: (each round's group, the
    features of one round of each group). ``cache`` (one per set of rounds) keeps the
    distinct value codes for the next signature: point-value tables key only those."""
    kind = histogram_kind(sig)
    if kind in ("values", "flagged"):
        if "values" not in cache:                       # point values decide: the distinct value sequences
            cache["cards"] = np.concatenate([player, banker], axis=1)
            cache["values"] = distinct(value_codes(cache["cards"]))
        first_v, inverse_v = cache["values"]
        point_sig = ("multiset", sig[1])
        keys = round_keys(player[first_v], banker[first_v], point_sig)[inverse_v]
        if kind == "flagged":                            # and whether every card shares a suit, colour, rank
            _, keys = np.unique(keys, return_inverse=True)
            keys = keys.ravel() * 8 + all_same_flags(cache["cards"])
    else:
        keys = round_keys(player, banker, sig)
    first, inverse = distinct(keys)
    return inverse, features(player[first], banker[first])


def settle_grouped(pairs: Sequence[tuple[Any, Any]], player: np.ndarray, banker: np.ndarray
                   ) -> Iterator[tuple[tuple[Any, Any], np.ndarray]]:
    """For each (wager, paytable), the outcome index each round is paid as (-1 a loss), one at a
    time: what :func:`exactodds.simulation.rounds.settle_iter` gives, with the rounds grouped by
    :func:`settlement_groups` (each group settled once)."""
    if not pairs:
        return                                    # nothing to settle: the pricing module is not imported

    cache: dict[str, Any] = {}
    groups: dict[tuple[Any, ...], tuple[np.ndarray, dict[str, np.ndarray]]] = {}
    for wager, paytable in pairs:
        sig = table_signature(wager)
        if sig not in groups:
            groups[sig] = settlement_groups(player, banker, sig, cache)
        inverse, cols = groups[sig]
        yield (wager, paytable), settle_rounds(wager, paytable, cols)[inverse]
