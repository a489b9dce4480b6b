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

from exactodds.engine import native
from exactodds.errors import ExactOddsError, InconsistentCounts, SuitsUnknown
from exactodds.game.cards import Card, Rank, Suit
from exactodds.game.shoe import Shoe, int64_safe
from exactodds.wagers.outcomes import HAND_ATTRIBUTES

__all__ = ["hand_attributes", "initial_counts", "all_card_categories", "ALL_CARD_CATEGORIES"]

_CARDS = tuple(Card.from_index(i) for i in range(52))
_FACES = (Rank.KING, Rank.QUEEN, Rank.JACK)
#: ``[v, r]`` = 1 when rank r counts v points (§627a.6).
_RANKS_BY_VALUE = (np.arange(10)[:, None] == np.array([r.points for r in Rank])[None, :]).astype(np.int64)
#: ``[s, c]`` = 1 when suit s (in card-index order) is of colour c (red, black).
_COLOURS = np.array([[s.colour == "red", s.colour != "red"] for s in (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS,
                                                                        Suit.CLUBS)], dtype=np.int64)


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
        raise SuitsUnknown(
            f"{what} reads suits, but the shoe's suits are unknown (cards were given by rank only); "
            "give removed cards with their suits, e.g. 9h"
        )
    return shoe.card_counts


@functools.cache
def _pair_groups(needs_player: tuple[str, ...], needs_banker: tuple[str, ...]) -> dict[str, tuple[Any, ...]]:
    """Shoe-free groupings of the 2,704 ordered identity pairs (x, y), row-major, for
    :func:`initial_counts`: each as (sort order, run starts, the group of each run, number of groups).

    With p and b the pair's Player and Banker class: "p" by p; "bp" by (b, p); "tp" by (the Banker
    class of (y, x), p); "xp" by (x, p); "yp" by (y, p); "xb" by (x, b); "yb" by (y, b); "b" by b.
    """
    p, n_p = _labels(needs_player)[0], len(_labels(needs_player)[1])
    b, n_b = _labels(needs_banker)[0], len(_labels(needs_banker)[1])
    x, y = np.divmod(np.arange(52 * 52), 52)
    codes = {"p": (p, n_p), "bp": (b * n_p + p, n_b * n_p), "tp": (b.reshape(52, 52).T.reshape(-1) * n_p + p, n_b * n_p),
             "xp": (x * n_p + p, 52 * n_p), "yp": (y * n_p + p, 52 * n_p), "xb": (x * n_b + b, 52 * n_b),
             "yb": (y * n_b + b, 52 * n_b), "b": (b, n_b)}
    out = {}
    for name, (code, size) in codes.items():
        order = np.argsort(code, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(code[order]) != 0])
        out[name] = (order, starts, code[order][starts], size)
    return out


def _grouped(values: np.ndarray, grouping: tuple[Any, ...]) -> np.ndarray:
    """Σ of ``values`` (one per ordered pair) within each group of a :func:`_pair_groups` grouping."""
    order, starts, groups, size = grouping
    out = np.zeros(size, dtype=values.dtype)
    out[groups] = np.add.reduceat(values[order], starts)
    return out


def initial_counts(
    shoe: Shoe, *, needs_player: Sequence[str], needs_banker: Sequence[str], what: str = "this wager",
    shared: dict[Any, Any] | None = None,
) -> dict[tuple[tuple[object, ...], tuple[object, ...]], int]:
    """Counts per (Player attributes, Banker attributes) of the four initial cards (``shared``: a dict kept
    with the shoe, where what every pair of needs reads of it is made once)."""
    n = shoe.size
    kept = shared.get(("initial cards", id(shoe))) if shared is not None else None
    if kept is None or kept[0] is not shoe:
        kept = (shoe, *_initial_base(shoe, what))
        if shared is not None:
            shared[("initial cards", id(shoe))] = kept
    _, dtype, c, cx, cy, w, cxy = kept
    tail = (n - 4) * (n - 5)
    p_keys = _labels(tuple(needs_player))[1]
    b_keys = _labels(tuple(needs_banker))[1]
    n_p, n_b = len(p_keys), len(b_keys)
    group = _pair_groups(tuple(needs_player), tuple(needs_banker))
    # Banker's ordered pairs in class b once Player holds (i, j), with G[b,x,y] = [(x, y) in class b]:
    # Σ_xy G[b,x,y] (c_x − [x=i] − [x=j]) (c_y − [y=i] − [y=j] − [y=x]), expanded:
    # G[b,i,j] + G[b,j,i] + a[b,i] + a[b,j] + k[b], with a = 2·diag(G) − G·c − c·G and k = c·G·c − diag(G)·c.
    # Weighted by Player's ordered pairs w[i,j] = c_i (c_j − [i=j]) and summed per Player class p, every
    # term is a sum over a shoe-free grouping of the pairs, or a product of two small matrices.
    b_labels = _labels(tuple(needs_banker))[0]
    diag = np.zeros((n_b, 52), dtype=dtype)
    diag[b_labels.reshape(52, 52).diagonal(), np.arange(52)] = 1
    gc = _grouped(cy, group["xb"]).reshape(52, n_b).T                  # (G·c)[b, x]
    cg = _grouped(cx, group["yb"]).reshape(52, n_b).T                  # (c·G)[b, y]
    a = 2 * diag - gc - cg
    k = _grouped(cxy, group["b"]) - diag @ c
    sums = (_grouped(w, group["bp"]).reshape(n_b, n_p) + _grouped(w, group["tp"]).reshape(n_b, n_p)
            + a @ (_grouped(w, group["xp"]).reshape(52, n_p) + _grouped(w, group["yp"]).reshape(52, n_p))
            + k[:, None] * _grouped(w, group["p"])[None, :])
    if dtype is not object and n ** 6 < 2 ** 63:                     # each count is at most N^6: int64 holds it
        counts = (sums * tail).ravel().tolist()
    else:
        counts = [int(total) * tail for total in sums.ravel().tolist()]
    out = dict(zip(_key_pairs(tuple(needs_player), tuple(needs_banker)), counts))
    if sum(counts) != shoe.sequences:            # an invariant of the counting
        raise InconsistentCounts("initial-card counts do not add up to the shoe's sequences")
    return out


@functools.lru_cache(maxsize=256)
def _key_pairs(needs_player: tuple[str, ...], needs_banker: tuple[str, ...]
               ) -> tuple[tuple[tuple[object, ...], tuple[object, ...]], ...]:
    """The (Player attributes, Banker attributes) keys of :func:`initial_counts`, in the order of its sums
    (by Banker key, then Player key)."""
    p_keys, b_keys = _labels(needs_player)[1], _labels(needs_banker)[1]
    return tuple((p_key, b_key) for b_key in b_keys for p_key in p_keys)


def _initial_base(shoe: Shoe, what: str) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`initial_counts` reads of the shoe whatever the needs: the dtype, the counts per card, each
    ordered pair's first and second card's counts, the Player's ordered pairs w[i, j] = c_i (c_j - [i=j]), and
    the products c_i c_j."""
    counts = _card_counts(shoe, what)
    dtype: Any = np.int64 if shoe.size ** 4 < 2 ** 62 else object     # the tail (N-4)(N-5) is applied in Python
    c = np.array(counts, dtype=dtype)
    cx, cy = np.repeat(c, 52), np.tile(c, 52)
    same = np.eye(52, dtype=np.int64).reshape(-1).astype(dtype)
    return dtype, c, cx, cy, cx * (cy - same), cx * cy


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

    halves: tuple[tuple[np.ndarray, np.ndarray], ...]   # (per value of the half, the slots value × 7 + cards
                                                        # of each distinct half-row; each multiset's half-row)
    halves32: tuple[np.ndarray, ...]                    # the same, first then second, in int32 (for the kernel)
    single: np.ndarray           # the multisets whose cards are all of one value
    value: np.ndarray            # their value
    cards: np.ndarray            # and how many cards they hold


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
        slots = np.ascontiguousarray((np.array(columns)[None, :] * 7 + rows).T)
        halves.append((slots, where.reshape(-1)))
    cards = m.sum(1)
    single = np.flatnonzero((m == cards[:, None]).any(1))
    halves32 = tuple(np.ascontiguousarray(a, dtype=np.int32) for pair in halves for a in pair)
    plan = _Plan(tuple(halves), halves32, single, np.argmax(m[single], axis=1), cards[single])
    for dead in [k for k, (ref, _, _) in _PLANS.items() if ref() is None]:
        del _PLANS[dead]
    _PLANS[id(multiplicities)] = (weakref.ref(multiplicities), multiplicities.copy(), plan)
    return plan


def categories_fit_int64(shoe: Shoe) -> bool:
    """Whether every figure :func:`all_card_categories` forms fits int64: each is a number of ordered draws of
    at most six cards of the values a multiset reads (or a sum of disjoint such draws), at most V**6 for V the
    shoe's most cards of one point value; far past the shoe's own bound, as the tens are 4/13 of the cards.

    >>> categories_fit_int64(Shoe.decks(90)), categories_fit_int64(Shoe.decks(91))   # 1,440 and 1,456 tens
    (True, False)
    """
    return int64_safe(max(shoe.value_counts))


def all_card_categories(shoe: Shoe, multiplicities: np.ndarray, *, what: str = "this wager",
                        modulus: int | None = None) -> np.ndarray:
    """For each value multiset (rows of ``multiplicities``, 10 columns), the number of
    ordered identity draws in each of :data:`ALL_CARD_CATEGORIES` (columns).

    With ``modulus`` (a prime below 2**31) every figure is its residue, in int64:
    each product of two residues is reduced before the next (see :mod:`exactodds.engine.modular`).
    Without, in int64 where :func:`categories_fit_int64`, else in Python integers.
    """
    counts = _card_counts(shoe, what)
    dtype: Any = np.int64 if categories_fit_int64(shoe) or modulus is not None else object

    def mod(x: Any) -> Any:
        return x % modulus if modulus is not None else x

    per = np.array(counts, dtype=dtype).reshape(13, 4)          # rank x suit
    # per rank: all its cards, each suit, each colour (7 columns); then the same per value class
    by_rank = np.concatenate([per.sum(1, keepdims=True), per, per @ _COLOURS.astype(dtype)], axis=1)
    by_value = _RANKS_BY_VALUE.astype(dtype) @ by_rank
    plan = _plan(multiplicities)
    # falling factorials per value class and column, as slots value × 7 + cards: (70, 7)
    flat = _ff_table(by_value, dtype, modulus).transpose(0, 2, 1).reshape(70, 7)
    core = native.kernels()
    if core is not None and dtype is np.int64:        # the products in C, each step checked (or reduced)
        drawn = np.empty((len(multiplicities), 3), dtype=np.int64)
        try:
            core.category_products(np.ascontiguousarray(flat), *plan.halves32, drawn, modulus or 0)
        except OverflowError as exc:                   # the shoe was seen to fit: a defect, one line
            raise InconsistentCounts(f"every-card categories: {exc}: a defect of exactodds, please report it") from None
        total, suit, colour = drawn[:, 0], drawn[:, 1], drawn[:, 2]
    else:
        products = None
        for slots, where in plan.halves:           # each half's distinct rows, then every multiset from two
            part = np.take(flat, slots[0], axis=0)
            for row in slots[1:]:
                part = mod(part * np.take(flat, row, axis=0))
            part = np.take(part, where, axis=0)
            products = part if products is None else mod(np.multiply(products, part, out=products))
        assert products is not None
        total, suit, colour = products[:, 0], mod(products[:, 1:5].sum(1)), mod(products[:, 5:7].sum(1))
    out = np.zeros((len(total), 6), dtype=dtype)
    out[:, 3] = suit                               # the columns of multisets of two or more values
    out[:, 4] = colour - suit
    out[:, 5] = total - colour
    # a multiset of one value class: every card of one rank (and suit, colour), summed per value
    ff = _ff_table(by_rank, dtype, modulus)                                             # (13, 7 columns, 7)
    per_value = mod(np.stack([ff[:, 0], ff[:, 1:5].sum(1), ff[:, 5:7].sum(1)]))        # (3, 13, 7)
    summed = mod(np.tensordot(per_value, _RANKS_BY_VALUE.astype(dtype), ([1], [1])))          # (3, 7, 10 values)
    same_rank, rank_suit, rank_colour = summed[:, plan.cards, plan.value]
    one = plan.single
    out[one, 0] = rank_suit
    out[one, 1] = rank_colour - rank_suit
    out[one, 2] = same_rank - rank_colour
    out[one, 3] -= rank_suit
    out[one, 4] += rank_suit - rank_colour
    out[one, 5] += rank_colour - same_rank
    return mod(out)  # type: ignore[no-any-return]
