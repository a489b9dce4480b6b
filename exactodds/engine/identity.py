"""Ranks, suits and colours, counted exactly without walking card identities.

The drawing rules read point values only; wagers on pairs, suits and colours
read the cards' identities. Two exact counts serve them, both in integers:

**The four initial cards** (pairs, Lucky Nines, Majestic Match, Royal 9). Each
hand's first two cards form an ordered pair of identities ``(x, y)``; a wager
reads an *attribute* of each hand (pair kind, suitedness, ...). The number of
ordered 6-card sequences whose Player cards are ``(i, j)`` and whose Banker
cards fall in class ``b`` is

    c_i (c_j - [i=j]) · B_b(c - e_i - e_j) · (N-4)(N-5),
    B_b(c') = Σ_{(x,y) in b} c'_x (c'_y - [x=y]) = c'ᵀ G_b c' - diag(G_b)·c',

a quadratic form in the remaining counts ``c'``. Expanding ``c' = c - e_i - e_j``
turns it into a few gathers from ``G_b c``, ``cᵀ G_b`` and ``G_b`` itself, so
the joint count of every (Player class, Banker class) is one vectorised pass
over the 2,704 ordered Player pairs per Banker class.

**Every card dealt** (same suit, same colour, same rank: Heavenly 9, Harmony).
Given a value-level round with ``m_v`` cards of value ``v``, the identities in
each value class are an ordered draw without replacement from that class, and
draws in different classes are independent. So the sequences in which every
card is of suit ``s`` number ``Π_v (n_{v,s})_(m_v)``, the falling factorial of
the class's cards of that suit; likewise for colours and ranks.

>>> from exactodds.game.shoe import Shoe
>>> joint = initial_counts(Shoe.decks(8), needs_player=("pair",), needs_banker=())
>>> perfect = {k[0][0]: v for k, v in joint.items()}["perfect"]   # Player perfect pairs, 8 decks
>>> perfect, perfect * 415 == Shoe.decks(8).sequences * 7          # the 2nd card matches 7 of 415
(84310332357888, True)
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from exactodds.errors import ExactOddsError, InconsistentCounts
from exactodds.game.cards import Card, Rank, Suit
from exactodds.game.shoe import Shoe, int64_safe
from exactodds.wagers.outcomes import HAND_ATTRIBUTES

__all__ = ["hand_attributes", "initial_counts", "all_card_categories", "ALL_CARD_CATEGORIES"]

_CARDS = tuple(Card.from_index(i) for i in range(52))
_FACES = (Rank.KING, Rank.QUEEN, Rank.JACK)


def hand_attributes(first: Card, second: Card) -> tuple[object, ...]:
    """The attributes of a hand's first two cards, in :data:`HAND_ATTRIBUTES` order.

    >>> hand_attributes(Card.parse("Kh"), Card.parse("Qh"))
    ('none', True, True, 'none', '', '')
    >>> hand_attributes(Card.parse("9d"), Card.parse("Js"))
    ('none', False, False, 'unsuited', '', 'd')
    """
    if first.rank is second.rank:
        if first.suit is second.suit:
            pair = "perfect"                      # 627b.1(a)(3)
        elif first.colour == second.colour:
            pair = "coloured"                     # 627b.1(a)(1)
        else:
            pair = "mixed"                        # 627b.1(a)(2)
    else:
        pair = "none"
    suited = first.suit is second.suit
    ranks = {first.rank, second.rank}
    royal_match = suited and ranks == {Rank.KING, Rank.QUEEN}           # 631b.7(e)(1)
    royal_9 = "none"
    if Rank.NINE in ranks and ranks & set(_FACES) and len(ranks) == 2:   # 627b.3(b)
        royal_9 = "suited" if suited else "unsuited"
    king_9 = ""
    if ranks == {Rank.KING, Rank.NINE}:
        king = first if first.rank is Rank.KING else second
        nine = second if king is first else first
        king_9 = f"K{king.suit.symbol}9{nine.suit.symbol}"
    nines = "".join(sorted(c.suit.value for c in (first, second) if c.rank is Rank.NINE))
    return (pair, suited, royal_match, royal_9, king_9, nines)


@functools.cache
def _all_attributes() -> tuple[tuple[object, ...], ...]:
    """:func:`hand_attributes` of all 2,704 ordered identity pairs, row-major."""
    return tuple(hand_attributes(x, y) for x in _CARDS for y in _CARDS)


@functools.cache
def _labels(needs: tuple[str, ...]) -> tuple[np.ndarray, tuple[tuple[object, ...], ...]]:
    """Label every ordered identity pair by the attributes in ``needs`` (others None)."""
    keep = [k for k, a in enumerate(HAND_ATTRIBUTES) if a in needs]
    seen: dict[tuple[object, ...], int] = {}
    labels = np.empty(52 * 52, dtype=np.intp)
    blank = [None] * len(HAND_ATTRIBUTES)
    for n, attrs in enumerate(_all_attributes()):
        projected: list[object] = list(blank)
        for k in keep:
            projected[k] = attrs[k]
        labels[n] = seen.setdefault(tuple(projected), len(seen))
    return labels, tuple(seen)


def _card_counts(shoe: Shoe, what: str) -> tuple[int, ...]:
    if shoe.card_counts is None:
        raise ExactOddsError(
            f"{what} reads suits, but the shoe's suits are unknown (cards were given by rank only); "
            "give removed cards with their suits, e.g. 9h"
        )
    return shoe.card_counts


@functools.cache
def _groups_of(needs: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The 2,704 ordered identity pairs sorted by their label of ``needs``, and where each label's run starts."""
    labels = _labels(needs)[0]
    order = np.argsort(labels, kind="stable")
    return order, np.flatnonzero(np.r_[True, np.diff(labels[order]) != 0])


@functools.cache
def _class_matrices(needs: tuple[str, ...]) -> np.ndarray:
    """``G[b, x, y]`` = 1 when the ordered pair of identities (x, y) is in Banker class b."""
    labels, keys = _labels(needs)
    return (labels[None, :] == np.arange(len(keys))[:, None]).reshape(len(keys), 52, 52).astype(np.int64)


def initial_counts(
    shoe: Shoe, *, needs_player: Sequence[str], needs_banker: Sequence[str], what: str = "this wager"
) -> dict[tuple[tuple[object, ...], tuple[object, ...]], int]:
    """Counts per (Player attributes, Banker attributes) of the four initial cards."""
    counts = _card_counts(shoe, what)
    n = shoe.size
    dtype: Any = np.int64 if n ** 4 < 2 ** 62 else object     # the tail (N-4)(N-5) is applied in Python
    c = np.array(counts, dtype=dtype)
    tail = (n - 4) * (n - 5)
    p_labels, p_keys = _labels(tuple(needs_player))
    b_keys = _labels(tuple(needs_banker))[1]
    order, starts = _groups_of(tuple(needs_player))
    p_of_group = p_labels[order][starts]
    g = _class_matrices(tuple(needs_banker))                          # (Banker classes, 52, 52)
    if dtype is object:
        g = g.astype(object)
    # Banker's ordered pairs in class b once Player holds (i, j): Σ_xy G[b,x,y] (c_x − [x=i] − [x=j])
    # (c_y − [y=i] − [y=j] − [y=x]), expanded: G[b,i,j] + G[b,j,i] + a[b,i] + a[b,j] + k[b], where
    # a = 2·diag(G) − G·c − c·G and k = c·G·c − diag(G)·c
    diag = np.diagonal(g, axis1=1, axis2=2)
    gc, cg = g @ c, c @ g                                             # (classes, 52) each
    a = 2 * diag - gc - cg
    inner = g + g.transpose(0, 2, 1)
    inner += a[:, :, None]
    inner += a[:, None, :]
    inner += (cg @ c - diag @ c)[:, None, None]
    w_player = c[:, None] * (c[None, :] - np.eye(52, dtype=np.int64).astype(dtype))   # Player's (i, j)
    inner *= w_player
    sums = np.add.reduceat(inner.reshape(len(b_keys), 52 * 52)[:, order], starts, axis=1)
    out: dict[tuple[tuple[object, ...], tuple[object, ...]], int] = {}
    for b, b_key in enumerate(b_keys):
        for p, total in zip(p_of_group, sums[b].tolist()):
            out[(p_keys[p], b_key)] = int(total) * tail
    if sum(out.values()) != shoe.sequences:      # an invariant of the counting
        raise InconsistentCounts("initial-card counts do not add up to the shoe's sequences")
    return out


#: (same rank, same suit, same colour) for the six categories of :func:`all_card_categories`.
ALL_CARD_CATEGORIES = (
    (True, True, True), (True, False, True), (True, False, False),
    (False, True, True), (False, False, True), (False, False, False),
)


def _ff_table(counts: np.ndarray, dtype: Any, modulus: int | None = None) -> np.ndarray:
    """``F[..., m]`` = falling factorial ``counts (counts-1) ... (counts-m+1)``, m = 0..6
    (modulo ``modulus`` when given; a factor below 0 follows a 0, so it is read as 0)."""
    f = np.empty(counts.shape + (7,), dtype=dtype)
    f[..., 0] = 1
    for m in range(1, 7):
        f[..., m] = f[..., m - 1] * np.maximum(counts - (m - 1), 0)
        if modulus is not None:
            f[..., m] %= modulus
    return f


@dataclass(frozen=True)
class _Plan:
    """What :func:`all_card_categories` needs of its value multisets, the same for every shoe.

    A weight is a product over values, so each half (values 0–4, 5–9) of the products is formed once per
    distinct half-row: the point table's 6,958 multisets have 424 and 417 distinct halves."""

    halves: tuple[tuple[range, np.ndarray, np.ndarray], ...]   # (its columns, distinct rows, each multiset's row)
    cards: np.ndarray            # cards per multiset
    single: np.ndarray           # whether all its cards are of one value
    value: np.ndarray            # that value


_PLANS: dict[int, tuple[weakref.ref[np.ndarray], np.ndarray, _Plan]] = {}


def _plan(multiplicities: np.ndarray) -> _Plan:
    """The :class:`_Plan` of ``multiplicities``, kept while that array lives (tables keep theirs) and holds
    what it held (an array changed in place gets a new plan)."""
    hit = _PLANS.get(id(multiplicities))
    if hit is not None and hit[0]() is multiplicities and np.array_equal(hit[1], multiplicities):
        return hit[2]
    m = multiplicities.astype(np.intp)
    halves = []
    for columns in (range(0, 5), range(5, 10)):
        rows, where = np.unique(m[:, columns.start:columns.stop], axis=0, return_inverse=True)
        halves.append((columns, rows, where.reshape(-1)))
    cards = m.sum(1)
    plan = _Plan(tuple(halves), cards, (m == cards[:, None]).any(1), np.argmax(m, axis=1))
    for dead in [k for k, (ref, _, _) in _PLANS.items() if ref() is None]:
        del _PLANS[dead]
    _PLANS[id(multiplicities)] = (weakref.ref(multiplicities), multiplicities.copy(), plan)
    return plan


def _sum_by_value(per_rank: np.ndarray, rank_value: np.ndarray) -> np.ndarray:
    """Rows of a per-rank table summed into the ten point-value classes."""
    out = np.zeros((10,) + per_rank.shape[1:], dtype=per_rank.dtype)
    for r, v in enumerate(rank_value):
        out[v] = out[v] + per_rank[r]
    return out


def all_card_categories(shoe: Shoe, multiplicities: np.ndarray, *, what: str = "this wager",
                        modulus: int | None = None) -> np.ndarray:
    """For each value multiset (rows of ``multiplicities``, 10 columns), the number of
    ordered identity draws in each of :data:`ALL_CARD_CATEGORIES` (columns).

    With ``modulus`` (a prime below 2**31) every figure is its residue, in int64:
    each product of two residues is reduced before the next (see :mod:`exactodds.engine.modular`).
    """
    counts = _card_counts(shoe, what)
    dtype: Any = np.int64 if int64_safe(shoe.size) or modulus is not None else object

    def mod(x: Any) -> Any:
        return x % modulus if modulus is not None else x

    per = np.array(counts, dtype=dtype).reshape(13, 4)          # rank x suit
    rank_value = np.array([r.points for r in Rank])
    by_value_suit = np.zeros((10, 4), dtype=dtype)
    for r in range(13):
        by_value_suit[rank_value[r]] += per[r]
    red = [k for k, s in enumerate((Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)) if s.colour == "red"]
    black = [k for k in range(4) if k not in red]
    by_value_colour = np.stack([by_value_suit[:, red].sum(1), by_value_suit[:, black].sum(1)], axis=1)
    by_value = by_value_suit.sum(1)
    plan = _plan(multiplicities)
    # falling factorials per value class: the whole class, each suit, each colour (7 tables)
    tables = np.stack([_ff_table(by_value, dtype, modulus)]
                      + [_ff_table(by_value_suit[:, q], dtype, modulus) for q in range(4)]
                      + [_ff_table(by_value_colour[:, q], dtype, modulus) for q in range(2)])      # (7, 10, 7)
    products = None
    for columns, halves, where in plan.halves:     # each half's distinct rows, then every multiset from two
        part = tables[:, columns[0], halves[:, 0]]
        for k in range(1, len(columns)):
            part = mod(part * tables[:, columns[k], halves[:, k]])
        products = part[:, where] if products is None else mod(products * part[:, where])
    assert products is not None
    total, suit, colour = products[0], mod(products[1:5].sum(0)), mod(products[5:7].sum(0))
    # a multiset of one value class: every card of one rank (and suit, colour), summed per value
    per_colour = np.stack([per[:, red].sum(1), per[:, black].sum(1)], axis=1)
    by_rank = (_ff_table(per.sum(1), dtype, modulus), _ff_table(per, dtype, modulus).sum(1),
               _ff_table(per_colour, dtype, modulus).sum(1))
    same_rank, rank_suit, rank_colour = (
        np.where(plan.single, mod(_sum_by_value(t, rank_value))[plan.value, plan.cards], 0) for t in by_rank)
    return mod(np.stack([
        rank_suit,
        rank_colour - rank_suit,
        same_rank - rank_colour,
        suit - rank_suit,
        colour - suit - rank_colour + rank_suit,
        total - same_rank - colour + rank_colour,
    ], axis=1))
