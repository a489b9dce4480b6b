"""A second route to the same numbers: a recursive walk, memoized on the shoe.

Depth-first, one card at a time, the walk deals P1, B1, P2, B2 and any third
cards from the remaining value counts, following :mod:`exactodds.game.rules`. The
rest of a round depends only on the remaining counts and the round's state so
far, so each sub-result is memoized on exactly that — not on the order in
which the cards came. It shares nothing with the tables of :mod:`exactodds.engine`
but the drawing rules, which makes agreement between the two a check of the
counting in each. It runs in the compiled core where that is built (see the end
of this module: the same walk, forward, over automata built here, in 128-bit
integers up to 2,190,000 cards), else in Python integers, with no bound on the shoe.

Every wager is walked the same way (:class:`WalkDistribution`): the cards are
counted per class of the cards the wager tells apart, given what it has read so
far — point values for the drawing rules, a rank or suit at the positions it
reads, the first card of a hand until the second settles a pair, the suit of
the first card while every card so far shares it — and each finished round is
settled by the wager's own conditions. The classes merge as the wager reads
less, so the memo stays small.

A wager that reads of a card, besides point values, only the rank or suit at
single positions (a suit of the Banker's third card, three red sevens, a
three-card poker hand) would be walked by value and suit from the first card
on. It is dealt by point value alone instead, and each finished round is split
by the ranks or suits at the positions it reads, weighted by the chance of
drawing them among the cards of their values: the count of rounds does not
depend on the order in which their cards are read (exchangeability; see
:class:`_LazyWalk`). The weights are fractions; every total is checked to be a
whole number.

>>> counts = walk(Shoe.decks(1))
>>> sum(n for (p, b, _, _), n in counts.items() if b > p)
6737232640
"""

from __future__ import annotations

import ast
import functools
import itertools
import math
import re
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from exactodds.engine import bounds, budget, native, program
from exactodds.engine import tens as ten_valued
from exactodds.errors import ExactOddsError, InconsistentCounts, SuitsUnknown, TooLarge
from exactodds.game.cards import Card
from exactodds.game.rules import banker_draws, is_natural, player_draws
from exactodds.game.shoe import CARDS_PER_ROUND, Shoe
from exactodds.wagers.conditions import Condition
from exactodds.wagers.outcomes import DERIVED, KNOWN_FEATURES, POINT_FEATURES, SUITS_TOLD_APART, point_row
from exactodds.render.tables import cited

if TYPE_CHECKING:
    from exactodds.wagers.catalogue import Paytable, Wager

__all__ = ["walk", "WalkDistribution", "reads_by_group", "joint_counts", "outcome_counts_many", "reading",
           "suits_by_colour"]

Key = tuple[int, int, int, int]     # player total, banker total, player cards, banker cards
Counts = tuple[int, ...]


def walk(shoe: Shoe) -> dict[Key, int]:
    """Counts per (player total, banker total, player cards, banker cards)."""
    return dict(_walk(shoe.value_counts, _walk_kernels(shoe.size) is not None))


@functools.lru_cache(maxsize=64)
def _walk(value_counts: Counts, compiled: bool) -> tuple[tuple[Key, int], ...]:
    """Counts per (player total, banker total, player cards, banker cards): by the compiled walk (the
    walk of a wager that reads nothing but the totals and cards) or, without it, here."""
    core = _walk_kernels(sum(value_counts)) if compiled else None
    if core is not None:
        counts = tuple(value_counts[cast(int, label[0])] for label in _partition(()).labels)   # in class order
        leaves = _compiled_leaves(core, _Walk((), (), points=True), counts, "the main game")
        return tuple((point, n) for (point, _none), n in leaves.items())
    size = sum(value_counts)

    @functools.cache
    def step(counts: Counts, state: State) -> tuple[tuple[Key, int], ...]:
        """Sequences that finish the round from ``state`` (the unread cards included)."""
        hand = _next_hand(state)
        pt, pn, bt, bn, _ = state
        if hand is None:                          # the round is over: count the unread cards
            used = pn + bn
            return (((pt, bt, pn, bn), math.perm(size - used, CARDS_PER_ROUND - used)),)
        out: defaultdict[Key, int] = defaultdict(int)
        for v, c in enumerate(counts):
            if c == 0:
                continue
            rest = counts[:v] + (c - 1,) + counts[v + 1:]
            for key, n in step(rest, _dealt(state, hand, v)):
                out[key] += c * n
        return tuple(out.items())

    return step(value_counts, (0, 0, 0, 0, -1))


#: (player total, player cards, banker total, banker cards, player's third card or -1)
State = tuple[int, int, int, int, int]


def _dealt(state: State, hand: str, v: int) -> State:
    """The round's state once ``hand`` ('player' or 'banker') is dealt a card worth ``v`` points."""
    pt, pn, bt, bn, px = state
    if hand == "player":
        return (pt + v) % 10, pn + 1, bt, bn, v if pn == 2 else -1
    return pt, pn, (bt + v) % 10, bn + 1, px


def _next_card(counts: Counts, state: State) -> tuple[str, int, int]:
    """Who is dealt the next card, the index of that card in the hand, and the ways to draw the unread
    cards of the round after it (were it the last card read)."""
    hand = _next_hand(state)
    assert hand is not None
    _pt, pn, _bt, bn, _px = state
    return hand, (pn if hand == "player" else bn), math.perm(sum(counts) - 1, CARDS_PER_ROUND - pn - bn - 1)


def _next_hand(state: State) -> str | None:
    """Which hand takes the next card (§627a.8(c), §627a.9(c), §627a.10), or None."""
    pt, pn, bt, bn, px = state
    if pn < 2 or bn < 2:
        return "player" if pn == bn else "banker"
    if pn == 2 and bn == 2:
        if is_natural(pt) or is_natural(bt):                 # §627a.10(a)
            return None
        if player_draws(pt):                                 # §627a.10(b)
            return "player"
        return "banker" if banker_draws(bt, None) else None  # §627a.10(c)(1)
    if pn == 3 and bn == 2:
        return "banker" if banker_draws(bt, px) else None    # §627a.10(c)(2)
    return None



# -- every wager: the walk over the card classes a wager tells apart ---------------------------
#
# A card is an identity (rank 1-13, suit letter). At each node of the walk the remaining cards
# are counted per *class*: cards that agree on their point value and on everything the wager
# can still read of the cards to come, given what it has seen (a summary per tracker below).
# Dealing a class of count c multiplies the ways by c. When a summary changes, the classes
# merge (never split); every merge is checked against every identity, so a representative of a
# class always gives exactly what the wager reads of each card in it.

Identity = tuple[int, str]
Spec = tuple[Any, ...]

_SUITS = ("s", "h", "d", "c")
_SYMBOL = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
#: The 52 identities in :attr:`Card.index` order.
_IDENTITIES: tuple[Identity, ...] = tuple((c.rank.value, c.suit.value) for c in map(Card.from_index, range(52)))
#: The index of each identity in :data:`_IDENTITIES`.
_INDEX: dict[Identity, int] = {card: i for i, card in enumerate(_IDENTITIES)}
_PENDING = None
_BROKEN = "*"


def _points(rank: int) -> int:
    return rank if rank <= 9 else 0


def _colour(suit: str) -> str:
    return "red" if suit in ("h", "d") else "black"


#: Each identity's point value, in order; and a row of None (a tracker that reads nothing of a card).
_POINTS_OF: tuple[int, ...] = tuple(_points(rank) for rank, _ in _IDENTITIES)
_NONE_OF: tuple[None, ...] = (None,) * len(_IDENTITIES)


def _hand_attribute(name: str, a: Identity, b: Identity) -> object:
    """One attribute of a hand's first two cards ``a`` and ``b`` (the features of
    :data:`exactodds.wagers.outcomes.INITIAL_FEATURES`, written out here card by card)."""
    (ra, sa), (rb, sb) = a, b
    if name == "pair":
        if ra != rb:
            return "none"
        return "perfect" if sa == sb else "coloured" if _colour(sa) == _colour(sb) else "mixed"
    if name == "suited":
        return sa == sb
    if name == "royal_match":
        return sa == sb and {ra, rb} == {12, 13}
    if name == "royal_9":
        if {ra, rb} & {9} and {ra, rb} & {11, 12, 13} and ra != rb:
            return "suited" if sa == sb else "unsuited"
        return "none"
    if name == "king_9":
        if {ra, rb} != {9, 13}:
            return ""
        king, nine = (sa, sb) if ra == 13 else (sb, sa)
        return f"K{_SYMBOL[king]}9{_SYMBOL[nine]}"
    if name == "nines":
        return "".join(sorted(s for r, s in (a, b) if r == 9))
    raise ExactOddsError(f"unknown hand attribute {name!r}")


@functools.cache
def _first_classes(attrs: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[Identity, ...]]:
    """Classes of a hand's first card: two cards are alike when, with any second card, they give
    the same attributes ``attrs``. (class of each identity, a representative of each class)."""
    seen: dict[tuple[object, ...], int] = {}
    reps: list[Identity] = []
    of: list[int] = []
    for a in _IDENTITIES:
        sig = tuple(_hand_attribute(n, a, b) for b in _IDENTITIES for n in attrs)
        if sig not in seen:
            seen[sig] = len(reps)
            reps.append(a)
        of.append(seen[sig])
    return tuple(of), tuple(reps)


@functools.lru_cache(maxsize=1 << 17)        # bounded: a long session walks many wagers
def _component(spec: Spec, card: Identity) -> Hashable:
    """What a tracker with need ``spec`` reads of ``card``."""
    rank, suit = card
    kind = spec[0]
    if kind == "rank":
        return rank
    if kind == "suit":
        return suit
    if kind == "colour":
        return _colour(suit)
    if kind == "block":                                # ('block', blocks): the first suit of the card's block
        return next(b for b in spec[1].split("|") if suit in b)[0]
    if kind == "tens":                                 # ('tens', split): a ten-valued rank as its block's first
        return rank if rank < 10 else next(b for b in ten_valued.blocks_of(spec[1]) if rank in b)[0]
    if kind == "card":
        return card
    if kind == "joint":                                # ('joint', a _Joint, its summary): what the card makes of it
        return spec[1].after(spec[2], card)
    if kind == "is":                                   # ('is', attribute, value): equal to it or not
        return _component((spec[1],), card) == spec[2]
    if kind == "hand-first":                           # a hand's first card and, for any, its second
        of, reps = _first_classes(spec[1])
        return (of[_INDEX[card]],
                tuple(tuple(_hand_attribute(n, r, card) for n in spec[1]) for r in reps))
    if kind == "hand-second":                          # the second card, the first's class known
        rep = _first_classes(spec[1])[1][spec[2]]
        return tuple(_hand_attribute(n, rep, card) for n in spec[1])
    raise ExactOddsError(f"unknown need {spec!r}")


@dataclass(frozen=True)
class _Partition:
    labels: tuple[tuple[Hashable, ...], ...]     # per class: (point value, *what each tracker reads)
    of: tuple[int, ...]                           # the class of each identity


@functools.lru_cache(maxsize=1 << 15)        # bounded: a long session walks many wagers
def _partition(specs: tuple[Spec | None, ...]) -> _Partition:
    seen: dict[tuple[Hashable, ...], int] = {}
    of = [seen.setdefault(label, len(seen))
          for label in zip(_POINTS_OF, *(_NONE_OF if s is None else _read_of(s) for s in specs))]
    return _Partition(tuple(seen), tuple(of))


@functools.lru_cache(maxsize=1 << 15)        # bounded: a long session walks many wagers
def _read_of(spec: Spec) -> tuple[Hashable, ...]:
    """What a tracker with need ``spec`` reads of each identity (:func:`_component`), in order: kept per need,
    which many partitions share."""
    if spec[0] == "joint":                              # one per summary of a group: not kept per card
        return spec[1].reads_of(spec[2])
    return tuple(_component(spec, card) for card in _IDENTITIES)


@functools.lru_cache(maxsize=1 << 15)        # bounded: a long session walks many wagers
def _merge(finer: tuple[Spec | None, ...], coarser: tuple[Spec | None, ...]) -> tuple[int, ...]:
    """The class of ``coarser`` each class of ``finer`` falls into (checked for every identity)."""
    into = _into(_partition(finer), _partition(coarser).of)
    if into is None:
        raise ExactOddsError(f"internal: the walk would split a class ({finer!r} -> {coarser!r})")
    return into


def _into(a: _Partition, image: Sequence[int]) -> tuple[int, ...] | None:
    """Per class of ``a``, the class ``image`` gives each of its identities (``image[i]``: identity i's); None
    where two identities of one class are given two."""
    into = dict(zip(a.of, image))                     # each class's last identity's; its first's, reversed:
    if into != dict(zip(reversed(a.of), reversed(image))):      # unequal where a class's identities go apart
        return None
    return tuple(into.values())                       # by class: a's classes are numbered as they first come


class _Tracker:
    """What a wager reads of the cards as they come: a summary, its need, its features."""

    start: Hashable = _PENDING

    def need(self, s: Any) -> Spec | None:
        return None

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        return s

    def changes_at(self, hand: str, k: int) -> bool:
        """Whether a card dealt to ``hand`` as its card ``k`` may change a summary (else :meth:`update`
        leaves every summary as it is there)."""
        return True

    def done(self, s: Any) -> bool:
        """Whether the summary can no longer change."""
        return False

    def keeps(self, suits: Mapping[str, str]) -> bool:
        """Whether the summary of cards with their suits renamed by ``suits`` (a permutation) can be
        told from the summary of the cards (:meth:`relabel`)."""
        return True

    def relabel(self, s: Any, suits: Mapping[str, str]) -> Any:
        """The summary of the same cards with their suits renamed by ``suits``, a permutation the
        tracker :meth:`keeps` (see :func:`_symmetries`)."""
        return s

    def features(self, s: Any, row: dict[str, object]) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class _Card(_Tracker):
    """The value, rank or suit of the card at one position (k: 0-2 in the hand). A suit that the
    wagers read only against suits they name (``told``: the blocks of suits no name tells apart, joined
    by '|') is read as its block, and shown as the block's first suit: every suit of a block gives the
    same hits, as no condition compares it with another card's. A rank is read likewise by the split of the
    ten-valued ranks its wagers' conditions tell apart (``tens``, :func:`exactodds.engine.tens.tens_told`; '':
    every rank), shown as its block's first rank."""

    hand: str
    k: int
    attr: str
    told: str = ""
    tens: str = ""

    def need(self, s: Any) -> Spec | None:
        if s is not _PENDING or self.attr == "value":
            return None
        if self.tens and self.attr == "rank":
            return ("tens", self.tens)
        return ("block", self.told) if self.told else (self.attr,)

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        if hand != self.hand or k != self.k:
            return s
        return value if self.attr == "value" else seen

    def done(self, s: Any) -> bool:
        return s is not _PENDING

    def keeps(self, suits: Mapping[str, str]) -> bool:
        return not self.told or all(set(map(suits.get, b)) == set(b) for b in self.told.split("|"))

    def relabel(self, s: Any, suits: Mapping[str, str]) -> Any:
        # a block read keeps its first suit: the renamings it keeps map each block to itself
        return suits[s] if self.attr == "suit" and not self.told and s is not _PENDING else s

    def features(self, s: Any, row: dict[str, object]) -> None:
        missing = "" if self.attr == "suit" else -1
        row[f"{self.hand}_{self.attr}_{self.k + 1}"] = missing if s is _PENDING else s


@dataclass(frozen=True)
class _TwoCardTotal(_Tracker):
    hand: str
    start: Hashable = (0, 0)                              # (total, cards)

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        return ((s[0] + value) % 10, s[1] + 1) if hand == self.hand and k < 2 else s

    def done(self, s: Any) -> bool:
        return s[1] == 2  # type: ignore[no-any-return]

    def features(self, s: Any, row: dict[str, object]) -> None:
        row[f"{self.hand}_two_card_total"] = s[0]


@dataclass(frozen=True)
class _Count(_Tracker):
    """Cards of one point value dealt in the round."""

    value: int
    start: Hashable = 0

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        return s + (value == self.value)

    def features(self, s: Any, row: dict[str, object]) -> None:
        row[f"count_{self.value}"] = s


@dataclass(frozen=True)
class _Every(_Tracker):
    """One suit, colour or rank for every card dealt: the first card's, until a card differs."""

    attr: str

    def need(self, s: Any) -> Spec | None:
        if s is _PENDING:
            return (self.attr,)
        return None if s == _BROKEN else ("is", self.attr, s)

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        if s is _PENDING:
            return seen
        return s if s != _BROKEN and seen else _BROKEN

    def done(self, s: Any) -> bool:
        return s == _BROKEN

    def keeps(self, suits: Mapping[str, str]) -> bool:
        return self.attr != "colour" or _keeps_colours(suits)

    def relabel(self, s: Any, suits: Mapping[str, str]) -> Any:
        if s is _PENDING or s == _BROKEN or self.attr == "rank":
            return s
        return suits[s] if self.attr == "suit" else _colour(suits["h" if s == "red" else "s"])

    def features(self, s: Any, row: dict[str, object]) -> None:
        row[f"same_{self.attr}"] = s != _BROKEN


@dataclass(frozen=True)
class _Hand(_Tracker):
    """Attributes of a hand's first two cards: the first card's class, then the attributes."""

    hand: str
    attrs: tuple[str, ...]

    def need(self, s: Any) -> Spec | None:
        if s is _PENDING:
            return ("hand-first", self.attrs)
        return ("hand-second", self.attrs, s[1]) if s[0] == "first" else None

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        if hand != self.hand or k > 1:
            return s
        return ("first", seen[0]) if k == 0 else ("both", seen)

    def done(self, s: Any) -> bool:
        return s is not _PENDING and s[0] == "both"

    def keeps(self, suits: Mapping[str, str]) -> bool:
        return "pair" not in self.attrs or _keeps_colours(suits)      # a pair's kind reads colours

    def relabel(self, s: Any, suits: Mapping[str, str]) -> Any:
        if s is _PENDING:
            return s
        if s[0] == "first":                               # the first card's class: the class of its image
            of, reps = _first_classes(self.attrs)
            rank, suit = reps[s[1]]
            return ("first", of[_INDEX[(rank, suits[suit])]])
        return ("both", tuple(_renamed_attribute(n, x, suits) for n, x in zip(self.attrs, s[1])))

    def features(self, s: Any, row: dict[str, object]) -> None:
        for name, value in zip(self.attrs, s[1]):
            row[f"{self.hand}_{name}"] = value


# -- cards read together: of a group of positions, only what can still change its conditions -------
#
# A wager whose conditions read the ranks or suits of several positions together (``player_rank_1 ==
# banker_rank_2 and player_suit_1 == banker_suit_2 and ...``, every card one suit named in turn) would
# have the walk keep each of those cards, as a :class:`_Card` does, until the round ends: millions of
# summaries for six positions. But the parts of its conditions that read ranks and suits and nothing
# else fall into groups that share features (:func:`_find_groups`), and no feature of a group is read
# anywhere else. So a :class:`_Joint` tracker keeps of the cards dealt at its group's positions only
# what can still change the truths of its parts: two sets of cards whose parts come out the same
# however the positions left are dealt (a third card not dealt included) are one summary, the least of
# them standing for both; and of the next card it reads only which summary that card would make at each
# position left. Once every position is dealt, it keeps the truths alone. A finished round is settled
# on the summary's cards (the least cards with those truths, once all are dealt), on which every
# condition of the wager takes the value it takes on the cards dealt. A wager the walk by point values
# reads (its ranks and suits at few positions: :class:`_LazyWalk`) is read so still.

#: The most assignments of a group's features (13 ranks or 4 suits each, a third card's also missing)
#: the walk tabulates (the ranks of all six positions: 5,597,956, about 200 MB while the table is made);
#: past it, the wager's cards are read one by one (as without groups).
JOINT_ASSIGNMENTS = 6_000_000
#: The most parts a group may hold (a bit each in its truths).
JOINT_PARTS = 64


@dataclass(frozen=True, eq=False)
class _JointTable:
    """A group's parts on every assignment of its features, for :class:`_Joint`. A feature's value
    is an index into its domain: a rank's 1 to 13, a suit's s h d c, then at a third card 'not dealt'."""

    positions: tuple[Position, ...]                  # in deal order
    of: tuple[tuple[int, ...], ...]                  # per position, its features (indices)
    attrs: tuple[str, ...]                           # per feature, 'rank' or 'suit'
    truths: np.ndarray                               # per assignment (axes: the features), a bit per part
    witness: dict[int, tuple[int, ...]]              # per truths of the group's cards all dealt, the least assignment
    named: frozenset[str]                            # the suits the parts name
    least: dict[int, np.ndarray] = field(default_factory=dict)        # see :meth:`canonical`
    memo: dict[Any, Any] = field(default_factory=dict)                 # canonical and renamed summaries
    reads: tuple[bool, bool] = field(init=False)     # whether it reads ranks, suits

    def __post_init__(self) -> None:
        object.__setattr__(self, "reads", ("rank" in self.attrs, "suit" in self.attrs))

    def value(self, f: int, x: int) -> object:
        """Feature ``f``'s value of index ``x``, as a round's row holds it."""
        if self.attrs[f] == "rank":
            return x + 1 if x < 13 else -1
        return _SUITS[x] if x < 4 else ""

    def canonical(self, s: tuple[int | None, ...]) -> tuple[int | None, ...] | int:
        """The least assignment of the features known in ``s`` (the others None) on which every part comes
        out as on ``s``, however the others are dealt; the truths where none is left."""
        found = self.memo.get(s)
        if found is None:
            found = self.memo[s] = self._canonical(s)
        return found  # type: ignore[no-any-return]

    def _canonical(self, s: tuple[int | None, ...]) -> tuple[int | None, ...] | int:
        known = tuple(f for f, x in enumerate(s) if x is not None)
        if len(known) == len(s):
            return int(self.truths[s])
        mask = sum(1 << f for f in known)
        sizes = [13 if self.attrs[f] == "rank" else 4 for f in known]        # known: dealt
        if mask not in self.least:                 # per set of features known: each row's least equal row
            rest = [f for f in range(len(s)) if f not in known]
            rows = self.truths.transpose(*known, *rest)[tuple(slice(0, n) for n in sizes)]
            self.least[mask] = _least_equal_rows(rows.reshape(int(np.prod(sizes)), -1))
        row = 0
        for f, n in zip(known, sizes):
            row = row * n + s[f]  # type: ignore[operator]
        least = int(self.least[mask][row])
        out = list(s)
        for f, n in zip(reversed(known), reversed(sizes)):
            least, out[f] = divmod(least, n)
        return tuple(out)


def _least_equal_rows(rows: np.ndarray) -> np.ndarray:
    """For each row of ``rows``, the index of the first row equal to it: rows grouped by a hash (a random
    linear form modulo 2^64, the same in every run), each group then checked equal to its first row in full,
    and grouped row by row where a hash ever joins two that differ.

    >>> _least_equal_rows(np.array([[1, 2], [3, 4], [1, 2]])).tolist()
    [0, 1, 0]
    """
    weights = np.random.default_rng(38).integers(0, 2**63, size=rows.shape[1], dtype=np.uint64) | np.uint64(1)
    with np.errstate(over="ignore"):
        hashed = rows.astype(np.uint64) @ weights
    least = _first_of(np.unique(hashed, return_inverse=True)[1])
    if not np.array_equal(rows, rows[least]):          # two rows that differ share a hash: compare them whole
        least = _first_of(np.unique(rows, axis=0, return_inverse=True)[1])
    return least


def _first_of(inverse: np.ndarray) -> np.ndarray:
    """For each item of ``inverse`` (a group per item), the index of the first item of its group."""
    inverse = inverse.reshape(-1)
    first = np.full(inverse.max(initial=0) + 1, len(inverse))
    np.minimum.at(first, inverse, np.arange(len(inverse)))
    return first[inverse]


@functools.lru_cache(maxsize=16)
def _joint_layout(names: tuple[str, ...]) -> tuple[tuple[Position, ...], tuple[int, ...], tuple[str, ...]]:
    """A group's positions in deal order, the place of each feature's position among them, and each
    feature's attribute ('rank' or 'suit'): tuples, as the cache shares them."""
    parsed = [m for f in names if (m := _POSITION.match(f))]
    positions = tuple(sorted({(m[1], int(m[3]) - 1) for m in parsed}, key=_POSITIONS.index))
    return positions, tuple(positions.index((m[1], int(m[3]) - 1)) for m in parsed), tuple(m[2] for m in parsed)


@functools.lru_cache(maxsize=16)
def _joint_table(joint: _Joint) -> _JointTable:
    """The table of ``joint``'s group (the last 16 kept: the largest, six ranks, takes about 30 MB)."""
    positions, at, attrs = _joint_layout(joint.names)
    sizes = [(13 if a == "rank" else 4) + (positions[j][1] == 2) for j, a in zip(at, attrs)]
    grid = np.indices(sizes, dtype=np.int8).reshape(len(sizes), -1)        # small types: up to 6 M assignments
    ranks, letters = np.array([*range(1, 14), -1], dtype=np.int16), np.array([*_SUITS, ""])
    columns = {f: (ranks if a == "rank" else letters)[grid[k]] for k, (f, a) in enumerate(zip(joint.names, attrs))}
    size = grid.shape[1]
    parameters = dict(joint.parameters)
    conditions = [Condition.parse(text, where="a part of a condition", parameters=parameters) for text in joint.atoms]
    kind = next(t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if len(conditions) <= 8 * np.dtype(t).itemsize)
    truths = np.zeros(size, dtype=kind)
    for k, c in enumerate(conditions):
        truths[c.mask(columns, size, parameters)] |= np.array(1 << k, dtype=kind)
    dealt = np.all(grid < np.array([13 if a == "rank" else 4 for a in attrs])[:, None], axis=0)
    found, first = np.unique(truths[dealt], return_index=True)
    witness = {int(t): tuple(int(x) for x in grid[:, i]) for t, i in zip(found, np.flatnonzero(dealt)[first])}
    named = frozenset(s for c in conditions for t in c.texts for s in t if s in _SUITS)
    return _JointTable(positions, tuple(tuple(f for f, j in enumerate(at) if j == p) for p in range(len(positions))),
                       attrs, truths.reshape(sizes), witness, named)


@dataclass(frozen=True)
class _Joint(_Tracker):
    """A group of parts of a wager's conditions over the ranks and suits of several positions (see above): per
    feature, the index of its value (None until its card is dealt), as :meth:`_JointTable.canonical` leaves
    it; once every position is dealt, the truths of the parts, a bit each."""

    names: tuple[str, ...]                            # its features, sorted
    atoms: tuple[str, ...]                            # each part's text (a comparison, or 'and'/'or'/'not' of them)
    parameters: tuple[tuple[str, object], ...]        # the wager's, lists as tuples

    def __post_init__(self) -> None:                  # hashed at every move of the walk: once here
        object.__setattr__(self, "_hash", hash((self.names, self.atoms, self.parameters)))
        positions, at, _attrs = _joint_layout(self.names)
        object.__setattr__(self, "_at", {p: i for i, p in enumerate(positions)})      # each position's place
        # the Player's third card (§627a.10), the one position a later card can come after undealt: its place
        # and its first feature, or -1
        third = self._at.get(("player", 2), -1)  # type: ignore[attr-defined]
        object.__setattr__(self, "_third", (third, at.index(third) if third >= 0 else -1))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined,no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        """Made anew where unpickled: its hash is of this process's strings."""
        return _Joint, (self.names, self.atoms, self.parameters)

    @property
    def start(self) -> Hashable:  # type: ignore[override]
        return (None,) * len(self.names)

    def need(self, s: Any) -> Spec | None:
        return None if isinstance(s, int) else ("joint", self, s)

    def after(self, s: tuple[int | None, ...], card: Identity) -> tuple[Any, ...]:
        """What ``card`` would make of the summary ``s`` at each position not dealt yet (in deal order)."""
        table = _joint_table(self)
        rank, suit = card
        key = ("after", s, rank if table.reads[0] else 0, suit if table.reads[1] else "")   # all it reads of the card
        found = table.memo.get(key)
        if found is not None:
            return found  # type: ignore[no-any-return]
        out = []
        for features in table.of:
            if s[features[0]] is None:
                dealt = list(s)
                for f in features:
                    dealt[f] = rank - 1 if table.attrs[f] == "rank" else _SUITS.index(suit)
                out.append(table.canonical(tuple(dealt)))
        found = table.memo[key] = tuple(out)
        return found  # type: ignore[no-any-return]

    def reads_of(self, s: tuple[int | None, ...]) -> tuple[tuple[Any, ...], ...]:
        """:meth:`after` of each card identity in turn (made once per rank or suit where the group reads
        only ranks or only suits)."""
        by_rank, by_suit = _joint_table(self).reads
        if by_rank and by_suit:
            return tuple(self.after(s, card) for card in _IDENTITIES)
        if by_rank:
            made = [self.after(s, (r, "s")) for r in range(1, 14)]
            return tuple(made[r - 1] for r, _suit in _IDENTITIES)
        of = {x: self.after(s, (1, x)) for x in _SUITS}
        return tuple(of[x] for _r, x in _IDENTITIES)

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        place = self._at.get((hand, k))  # type: ignore[attr-defined]
        if place is None or isinstance(s, int):
            return s
        # seen: per position not dealt, in deal order; the positions before this one are all dealt but the
        # Player's third card, which a Banker's third card can come without
        third, first = self._third  # type: ignore[attr-defined]
        return seen[1 if 0 <= third < place and s[first] is None else 0]

    def changes_at(self, hand: str, k: int) -> bool:
        return (hand, k) in self._at  # type: ignore[attr-defined]

    def done(self, s: Any) -> bool:
        return isinstance(s, int)

    def keeps(self, suits: Mapping[str, str]) -> bool:
        return all(suits[x] == x for x in _joint_table(self).named)

    def relabel(self, s: Any, suits: Mapping[str, str]) -> Any:
        if isinstance(s, int):                            # the truths: a renaming kept changes none
            return s
        table = _joint_table(self)
        key = (s, suits["s"], suits["h"], suits["d"])
        found = table.memo.get(key)
        if found is None:
            renamed = tuple(x if x is None or table.attrs[f] == "rank" else _SUITS.index(suits[_SUITS[x]])
                            for f, x in enumerate(s))
            found = table.memo[key] = table.canonical(renamed)
        return found

    def features(self, s: Any, row: dict[str, object]) -> None:
        table = _joint_table(self)
        values = table.witness[s] if isinstance(s, int) else s
        for f, (name, x) in enumerate(zip(self.names, values)):
            # not dealt (None): a third card the round did not take
            row[name] = table.value(f, 13 if table.attrs[f] == "rank" else 4) if x is None else table.value(f, x)


def _joint_groups(wager: Wager) -> tuple[_Joint, ...]:
    """Kept on the wager: :func:`_find_groups`."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    if "joint groups" not in cache:
        cache["joint groups"] = _find_groups(wager)
    return cache["joint groups"]  # type: ignore[no-any-return]


def reads_by_group(wager: Wager) -> bool:
    """Whether the walk reads some of ``wager``'s ranks and suits by group (see above): where its table would be
    large, the walk is then the cheaper route (a Mirror bet: 1.2 s and 150 MB, against 8 s and 1.5 GB)."""
    return bool(_joint_groups(wager))


def _find_groups(wager: Wager) -> tuple[_Joint, ...]:
    """The groups of ``wager``'s conditions over the ranks and suits of two positions or more (see above).

    A part of a condition is taken whole where it reads nothing but ranks and suits (``player_suit_1 in
    ('h', 'd') and banker_suit_1 in ('h', 'd')``: one part, true or not), and the parts that share a feature
    form a group; a group of more than :data:`JOINT_ASSIGNMENTS` assignments is read by the parts of its
    parts ('and', 'or', 'not'), down to single comparisons. () where a rank or suit is compared with another
    feature of the round (``player_rank_1 == player``), or a group of comparisons alone is still too large:
    the walk then reads the cards one by one."""
    parts: dict[str, frozenset[str]] = {}
    nodes: dict[str, ast.expr] = {}
    for outcome in wager.outcomes:
        tree = ast.parse(" ".join(outcome.condition.text.split()), mode="eval")
        if not _card_parts(tree.body, wager, parts, nodes):
            return ()
    while True:
        groups: list[tuple[set[str], list[str]]] = []
        for text, cards in parts.items():                 # the connected parts, by shared features
            joined = [g for g in groups if g[0] & cards]
            merged = (set(cards).union(*(g[0] for g in joined)), [t for g in joined for t in g[1]] + [text])
            groups = [g for g in groups if not g[0] & cards] + [merged]
        if any(len(texts) > JOINT_PARTS for _, texts in groups):
            return ()
        large = [texts for cards, texts in groups if _assignments(cards) > JOINT_ASSIGNMENTS]
        if not large:
            break
        split = [t for texts in large for t in texts if _yes_no_parts(nodes[t])]
        if not split:
            return ()
        for text in split:                               # read by its parts instead
            del parts[text]
            for part in _yes_no_parts(nodes.pop(text)):
                _card_parts(part, wager, parts, nodes)
    parameters = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in sorted(wager.parameters.items()))
    out = [_Joint(tuple(sorted(cards)), tuple(texts), parameters) for cards, texts in groups
           if len({f.rsplit("_", 2)[0] + f[-1] for f in cards}) >= 2]           # one position: read as a card
    return tuple(sorted(out, key=lambda j: j.names))


def _card_parts(node: ast.expr, wager: Wager, parts: dict[str, frozenset[str]], nodes: dict[str, ast.expr]) -> bool:
    """Add to ``parts`` the largest parts of the yes/no expression ``node`` that read ranks and suits of
    positions and nothing else of the round (by text: the features each reads); False where a rank or suit
    is read beside another feature within one comparison."""
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in KNOWN_FEATURES
            and n.id not in wager.parameters}
    cards = frozenset(f for f in read if _card_feature(f, wager))
    if not cards:
        return True
    if cards == read and _yes_no(node):
        text = ast.unparse(node)
        parts[text], nodes[text] = cards, node
        return True
    inside = _yes_no_parts(node)
    return bool(inside) and all(_card_parts(v, wager, parts, nodes) for v in inside)


def _yes_no_parts(node: ast.expr) -> list[ast.expr]:
    """The yes/no parts of ``node`` whose truths decide it: the operands of 'and' and 'or', of 'not', and of
    '==' or '!=' between yes/no expressions, chained or not (``(player_suit_1 == banker_suit_1) == (player_rank_1
    + ... == 40)``), and of 'in' or 'not in' a list of them; [] for any other node (a comparison of ranks or
    suits is decided by the cards themselves)."""
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [node.operand]
    if (isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops)
            and all(_yes_no(x) for x in (node.left, *node.comparators))):
        return [node.left, *node.comparators]
    if (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn))
            and isinstance(listed := node.comparators[0], (ast.Tuple, ast.List)) and _yes_no(node.left)
            and all(_yes_no(x) for x in listed.elts)):
        return [node.left, *listed.elts]
    return []


def _yes_no(node: ast.expr) -> bool:
    """Whether ``node`` is a yes/no expression by its form: a comparison, 'and', 'or' or 'not'."""
    return isinstance(node, (ast.Compare, ast.BoolOp)) or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)


def _assignments(cards: Iterable[str]) -> int:
    """The assignments of a group's features: 13 ranks or 4 suits each, a third card's also 'not dealt'."""
    return math.prod((13 if "_rank_" in f else 4) + f.endswith("_3") for f in cards)


def _card_feature(name: str, wager: Wager) -> bool:
    """Whether ``name`` is a position's rank or suit (not a parameter of ``wager``)."""
    return name not in wager.parameters and (m := _POSITION.match(name)) is not None and m[2] != "value"


def _keeps_colours(suits: Mapping[str, str]) -> bool:
    """Whether a renaming of the suits maps the red suits to one colour (a pair's kind, one colour)."""
    return len({_colour(suits[x]) for x in "hd"}) == 1


def _renamed_attribute(name: str, value: Any, suits: Mapping[str, str]) -> Any:
    """A hand attribute (:func:`_hand_attribute`) of two cards, once their suits are renamed by ``suits``."""
    if name == "nines":                                   # the letters of the nines, in order
        return "".join(sorted(suits[x] for x in value))
    if name == "king_9" and value:                        # 'K♠9♥': the suits' symbols renamed
        named = {v: k for k, v in _SYMBOL.items()}
        return f"K{_SYMBOL[suits[named[value[1]]]]}9{_SYMBOL[suits[named[value[3]]]]}"
    return value                                          # a pair's kind (colours kept), suited, royal: unchanged


_HAND_ATTRS = ("pair", "suited", "royal_match", "royal_9", "king_9", "nines")
_POSITION = re.compile(r"^(player|banker)_(value|rank|suit)_([123])$")


def _wager_trackers(wager: Wager, *, joint: bool = True) -> tuple[_Tracker, ...]:
    """The trackers of ``wager``'s features, a suit read only against named suits read by block. Where the
    wager's conditions are proven unchanged by renaming suits it names (:func:`_renamings_kept`), every
    suit it reads is read as itself, so that the walk may rename them (:func:`_symmetries`). With ``joint``,
    the ranks and suits its conditions read of two positions or more together (:func:`_joint_groups`) are
    read by group."""
    blocks = [set(_SUITS)]
    for named in wager.texts:
        blocks = [part for b in blocks for part in (b & named, b - named) if part]
    told = "|".join(sorted("".join(s for s in _SUITS if s in b) for b in blocks))
    if (read := _suits_read_by_block(wager)) is not None:
        told = read                                      # proven: the conditions read no finer, however spelt
    joined = wager.joined
    if _renamings_kept(wager) not in (None, told):
        joined = joined | {f for f in wager.features if (m := _POSITION.match(f)) and m[2] == "suit"}
    joints = _joint_groups(wager) if joint else ()
    split = ten_valued.tens_told([wager])                # proven: '' where every rank is told apart
    return _trackers(wager.features.difference(*(j.names for j in joints)), told=told, joined=joined,
                     tens_read="" if split == ten_valued.EVERY_TEN else split) + joints


def reading(wager: Wager) -> str:
    """How coarsely the walk reads the cards of ``wager``: each position's suit by the blocks of suits its
    conditions tell apart (proven: :func:`_suits_read_by_block`), or as itself where it is compared with
    another card; a group read together (:class:`_Joint`) tells its first card apart only as far as the
    group's truths can still differ, shown here by the classes it falls into ('' where the walk reads only
    points, or ranks one by one). Either spelling of a colour is read as a colour:

    >>> from exactodds.wagers.catalogue import read_text
    >>> def bet(when): return read_text('[[wager]]\\nid = "w"\\nname = "w"\\nsection = "test"\\n[[wager.outcome]]\\n'
    ...     f'id = "red"\\nname = "red"\\nwhen = "{when}"\\n[[wager.paytable]]\\nid = "A"\\n'
    ...     'pays = { red = "1 to 1" }\\n', source="w.toml")["w"]
    >>> reading(bet("player_suit_1 == 'h' or player_suit_1 == 'd'"))
    'the suit of player_1 by its colour (hd|sc)'
    >>> reading(bet("player_suit_1 in ('h', 'd') and banker_suit_1 in ('h', 'd')"))
    'player_suit_1, banker_suit_1 together: the first card by its colour'
    """
    by: dict[str, list[str]] = {}
    out = []
    for t in _wager_trackers(wager):
        if isinstance(t, _Card) and t.attr == "suit":
            by.setdefault(t.told, []).append(f"{t.hand}_{t.k + 1}")
        elif isinstance(t, _Card) and t.attr == "rank" and t.tens:
            out.append(f"the rank of {t.hand}_{t.k + 1} with the ten-valued ones only as {ten_valued.shown(t.tens)}")
        elif isinstance(t, _Joint):
            out.append(", ".join(sorted(t.names, key=lambda f: _POSITIONS.index(_position_of(f))))
                       + " together: the first card " + _first_read(t))
    for told, where in sorted(by.items()):
        one = "the suit of " if len(where) == 1 else "the suits of "
        how = "as itself" if not told else "by its colour" if told == "hd|sc" else "by its block of suits"
        if len(where) > 1:
            how = how.replace("itself", "themselves").replace("its", "each one's")
        out.insert(0, one + ", ".join(where) + f" {how}" + (f" ({told})" if told else ""))
    return "; ".join(out)


def _position_of(feature: str) -> Position:
    m = _POSITION.match(feature)
    assert m is not None
    return (m[1], int(m[3]) - 1)


def _first_read(joint: _Joint) -> str:
    """How a group tells its first card apart: the classes of the 52 identities by what each makes of it."""
    made: dict[Any, set[Identity]] = {}
    for card in _IDENTITIES:
        made.setdefault(joint.after(joint.start, card), set()).add(card)  # type: ignore[arg-type]
    classes = sorted((frozenset(c) for c in made.values()), key=sorted)
    def split(of: Callable[[Identity], Hashable]) -> set[frozenset[Identity]]:
        return {frozenset(c for c in _IDENTITIES if of(c) == x) for x in {of(c) for c in _IDENTITIES}}
    for name, of in (("its colour", lambda c: _colour(c[1])), ("its suit", lambda c: c[1]),
                     ("its rank", lambda c: c[0]), ("itself", lambda c: c)):
        if set(classes) == split(of):
            return f"by {name}"
    return f"as one of {len(classes)} classes"


#: The most rounds :func:`_renamings_kept` evaluates a wager's conditions on (every value of each feature it
#: reads with every value of the others).
RENAMING_PROOF_ROWS = 200_000


def _renamings_kept(wager: Wager) -> str | None:
    """The coarsest partition of the suits ('|' between blocks) such that swapping two suits of one block
    changes none of ``wager``'s conditions, though they name suits (every card one suit, each suit named in
    turn: ``player_suit_1 == 's' and ... or player_suit_1 == 'h' and ...``), proven by evaluating each
    condition on every combination of the values of the features it reads, the suits swapped and not.
    None where the proof is not tried: a wager that reads features other than the positions' suits and the
    round's points (a swap of suits would change them too), or too many combinations. Kept on the wager.

    Such a wager's hits are the same on a round and on its renamed image under any renaming within the
    blocks (swaps generate them), which is what lets the walk carry the two as one."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    if "renamings kept" not in cache:
        cache["renamings kept"] = _prove_renamings(wager)
    return cache["renamings kept"]  # type: ignore[no-any-return]


def _suits_read_by_block(wager: Wager) -> str | None:
    """The coarsest partition of the suits ('|' between blocks) such that changing the suit of one position
    the wager does not compare with another (not ``joined``) to another suit of its block changes none of
    its conditions: each such position is then read by its block alone, however the conditions spell it
    (``player_suit_1 in ('h', 'd')`` or ``player_suit_1 == 'h' or player_suit_1 == 'd'``: its colour).
    Proven as :func:`_renamings_kept` is, on every combination of the values of the features it reads;
    None where that proof is not tried or every suit it reads is compared with another. Kept on the wager."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    if "suits read by block" not in cache:
        proof = _suit_proof(wager)
        alone = [[f] for f in proof.suits if f not in wager.joined] if proof is not None else []
        cache["suits read by block"] = proof(alone) if proof is not None and alone else None
    return cache["suits read by block"]  # type: ignore[no-any-return]


def suits_by_colour(wager: Wager) -> bool:
    """Whether every suit ``wager`` reads is a single position's, read by its colour alone: no suit is compared
    with another, and changing one position's suit to the other of its colour changes none of the conditions
    (proven by :func:`_suits_read_by_block`). A table of such suits is compiled over colours
    (:data:`exactodds.engine.multiset.BY_COLOUR`).

    >>> from exactodds.wagers.catalogue import read_text
    >>> def bet(when): return read_text('[[wager]]\\nid = "w"\\nname = "w"\\nsection = "test"\\n[[wager.outcome]]\\n'
    ...     f'id = "o"\\nname = "o"\\nwhen = "{when}"\\n[[wager.paytable]]\\nid = "A"\\n'
    ...     'pays = { o = "1 to 1" }\\n', source="w.toml")["w"]
    >>> suits_by_colour(bet("player_suit_1 == 'h' or player_suit_1 == 'd'")), suits_by_colour(bet("player_suit_1 == 'h'"))
    (True, False)
    >>> suits_by_colour(bet("player_suit_1 == banker_suit_1"))                 # compared: read as itself
    False
    """
    suits = {f for f in wager.features if (m := _POSITION.match(f)) and m[2] == "suit"}
    if not suits or suits & wager.joined:
        return False
    blocks = _suits_read_by_block(wager)
    if blocks is None:
        return False
    of = {x: b for b in blocks.split("|") for x in b}
    return of["h"] == of["d"] and of["s"] == of["c"]


def _prove_renamings(wager: Wager) -> str | None:
    proof = _suit_proof(wager)
    return None if proof is None else proof([proof.suits])


@dataclass(frozen=True)
class _SuitProof:
    """Every combination of the values of the features a wager reads (its positions' suits, 'not dealt'
    among them, and the round's points), and its conditions' hits on them."""

    wager: Wager
    suits: list[str]
    grid: np.ndarray
    columns: dict[str, np.ndarray]
    plain: list[np.ndarray]

    def masks(self, cols: dict[str, np.ndarray]) -> list[np.ndarray]:
        return [o.condition.mask(cols, self.grid.shape[1], self.wager.parameters) for o in self.wager.outcomes]

    def __call__(self, swapped_together: list[list[str]]) -> str:
        """The blocks of suits within which a swap of two suits changes no condition, a swap made in turn
        in each group of ``swapped_together`` (its positions' suits swapped at once, the others kept)."""
        letters = np.array([*_SUITS, ""])
        blocks = {x: {x} for x in _SUITS}
        for a, b in itertools.combinations(_SUITS, 2):
            renamed = np.array([{a: b, b: a}.get(x, x) for x in letters])
            if all(all(np.array_equal(x, y) for x, y in zip(self.plain, self.masks(
                    {f: renamed[self.grid[1 + self.suits.index(f)]] if f in group else c
                     for f, c in self.columns.items()})))
                   for group in swapped_together):
                joined = blocks[a] | blocks[b]
                for x in joined:
                    blocks[x] = joined
        return "|".join(sorted({"".join(x for x in _SUITS if x in b) for b in blocks.values()}))


def _suit_proof(wager: Wager) -> _SuitProof | None:
    """The grid :func:`_renamings_kept` and :func:`_suits_read_by_block` prove on; None where the wager reads
    features other than the positions' suits and the round's points, or the grid would pass
    :data:`RENAMING_PROOF_ROWS`."""
    suits = sorted(f for f in wager.features if (m := _POSITION.match(f)) and m[2] == "suit")
    cards = sorted(f for f in wager.features if (m := _POSITION.match(f)) and m[2] == "value")
    points = sorted(wager.features - set(suits) - set(cards))
    if not suits or not set(points) <= set(POINT_FEATURES) | set(DERIVED):
        return None
    if 11 ** len(cards) * 5 ** len(suits) > RENAMING_PROOF_ROWS:
        return None
    rounds = _round_states()
    keys = {(st[0], st[2], st[1], st[3]) for st, over in zip(rounds.states, rounds.over.tolist()) if over}
    # a position's point value (-1: not dealt) takes each of its values beside every round: a few rows no round
    # makes are proven too, which a proof may spare (none changes what a round's swap of suits does)
    values = [(*row, *card) for row in sorted({tuple(point_row(k)[f] for f in points) for k in keys}, key=repr)
              for card in itertools.product(range(-1, 10), repeat=len(cards))]
    points += cards
    if len(values) * 5 ** len(suits) > RENAMING_PROOF_ROWS:
        return None
    grid = np.indices((len(values), *(5,) * len(suits))).reshape(1 + len(suits), -1)
    letters = np.array([*_SUITS, ""])
    columns: dict[str, np.ndarray] = {f: np.array([v[j] for v in values])[grid[0]] for j, f in enumerate(points)}
    columns.update({f: letters[grid[1 + j]] for j, f in enumerate(suits)})
    proof = _SuitProof(wager, suits, grid, columns, [])
    proof.plain.extend(proof.masks(columns))
    return proof


def _trackers(features: frozenset[str], *, told: str = "", joined: frozenset[str] = frozenset(),
              tens_read: str = "") -> tuple[_Tracker, ...]:
    """The trackers that give the features ``features`` of a round (point features come from the
    round's state); with ``told``, a suit not ``joined`` (compared with another feature) is read by
    the blocks of ``told``; with ``tens_read``, a rank by that split of the ten-valued ranks."""
    out: list[_Tracker] = []
    hand_attrs: dict[str, set[str]] = {"player": set(), "banker": set()}
    for name in sorted(features):
        if name in POINT_FEATURES or name in DERIVED:
            continue
        if m := _POSITION.match(name):
            by_block = told if m[2] == "suit" and name not in joined else ""
            out.append(_Card(m[1], int(m[3]) - 1, m[2], by_block, tens_read if m[2] == "rank" else ""))
        elif name.endswith("_two_card_total") and name.split("_")[0] in hand_attrs:
            out.append(_TwoCardTotal(name.split("_")[0]))
        elif name.startswith("count_") and name[6:].isdigit() and len(name) == 7:
            out.append(_Count(int(name[6:])))
        elif name in ("same_suit", "same_colour", "same_rank"):
            out.append(_Every(name[5:]))
        elif name in ("nines", "nines_same_suit", "nine_of_diamonds"):
            hand_attrs["player"].add("nines")
            hand_attrs["banker"].add("nines")
        elif (hand := name.partition("_")[0]) in hand_attrs and name.partition("_")[2] in _HAND_ATTRS:
            hand_attrs[hand].add(name.partition("_")[2])
        else:
            raise ExactOddsError(f"the walk does not know feature {name!r}")
    for hand, attrs in hand_attrs.items():
        if attrs:
            out.append(_Hand(hand, tuple(a for a in _HAND_ATTRS if a in attrs)))
    return tuple(out)


def _row(point: Key, trackers: tuple[_Tracker, ...], summary: tuple[Any, ...]) -> dict[str, object]:
    """The features of one finished round (``point``: totals and cards of each hand)."""
    row = point_row(point)
    for t, s in zip(trackers, summary):
        t.features(s, row)
    if "player_nines" in row and "banker_nines" in row:
        suits = str(row["player_nines"]) + str(row["banker_nines"])
        row["nines"] = len(suits)
        row["nines_same_suit"] = len(suits) >= 2 and len(set(suits)) == 1
        row["nine_of_diamonds"] = suits.count("d")
    return row


def _root_counts(shoe: Shoe, specs: tuple[Spec | None, ...], what: str) -> tuple[int, ...]:
    """The shoe's cards per class."""
    part = _partition(specs)
    counts = [0] * len(part.labels)
    if shoe.card_counts is not None:
        for i, n in enumerate(shoe.card_counts):
            counts[part.of[i]] += n
        return tuple(counts)
    for r, n in enumerate(shoe.rank_counts):              # suits unknown: only whole ranks can be told apart
        classes = {part.of[4 * r + j] for j in range(4)}
        if len(classes) > 1:
            raise SuitsUnknown(f"{what} reads suits, but the shoe's suits are unknown (cards were given by "
                                 "rank only); give removed cards with their suits, e.g. 9h")
        counts[classes.pop()] += n
    return tuple(counts)


class _Frozen:
    """Stands for a summary that can no longer change, in the memo of a walk over point values."""

    def __repr__(self) -> str:
        return "frozen"


_FROZEN = _Frozen()
Result = tuple[tuple[tuple[int, ...], int], ...]


#: The most states the walk in Python keeps in its memo (about 1.5 KB each; the catalogue needs 77,804):
#: past it the walk is refused, as the compiled one is past :data:`WALK_STATES_LIMIT`.
PURE_STATES_LIMIT = 400_000
#: Per (trackers, wagers): a round of each hit tuple, and the hits of each finished round (:class:`_Walk`).
_SETTLED: dict[tuple[object, ...], tuple[dict[Any, Any], dict[Any, Any]]] = {}


class _Walk:
    """One walk of a shoe for wagers that read the same cards: counts per tuple of each wager's
    outcome hits (a bit per outcome whose condition holds)."""

    def __init__(self, trackers: tuple[_Tracker, ...], wagers: Sequence[Wager],
                 classes: Mapping[Key, Key] | None = None, *, points: bool | None = None):
        self.trackers = trackers
        self.wagers = tuple(wagers)
        #: each finished round's (totals, cards) to the one standing for it (else: all or nothing, by ``points``)
        self.classes = classes
        #: a round of each hit tuple, and the hits of each finished round (shoe-free: kept for the next
        #: shoe of the same wagers, the last 64 sets of wagers)
        settled = _SETTLED.get((trackers, tuple(_wager_key(w) for w in wagers)))
        if settled is None:
            if len(_SETTLED) >= 64:
                del _SETTLED[next(iter(_SETTLED))]
            settled = _SETTLED[(trackers, tuple(_wager_key(w) for w in wagers))] = ({}, {})
        self.rows: dict[tuple[int, ...], dict[str, object]] = settled[0]
        #: whether the wagers read the totals or card counts of the hands (else one key stands for all)
        self.points = points if points is not None else \
            any(w.features & (frozenset(POINT_FEATURES) | frozenset(DERIVED)) for w in wagers)
        self._leaves: dict[tuple[Key, tuple[Any, ...]], tuple[int, ...]] = settled[1]
        self._memo: dict[tuple[Counts, State, tuple[Any, ...]], Result] = {}
        self._tails: dict[tuple[Counts, State, tuple[Any, ...]], tuple[tuple[tuple[Key, tuple[Any, ...]], int], ...]] = {}
        self._moves: dict[tuple[Any, ...], tuple[int, tuple[Any, ...], tuple[int, ...] | None, int]] = {}
        #: per (hand, card index), the trackers a card dealt there may change
        self._changing: dict[tuple[str, int], tuple[int, ...]] = {}
        #: the renamings of the suits the walk of the shoe at hand may make (:func:`_symmetries`)
        self._symmetries: tuple[tuple[str, ...], ...] = ()

    def _too_many(self) -> None:
        raise TooLarge(f"the walk of {getattr(self, '_what', '') or 'a wager'} would keep more than "
                       f"{PURE_STATES_LIMIT:,} states (the pure route, about {bounds._gb(PURE_STATES_LIMIT * 1500)}): "
                       "refused; read fewer cards' ranks or suits apart, or walk it with the compiled core "
                       "(built by pip install from a clone, with a C compiler)")

    def _specs(self, summary: tuple[Any, ...]) -> tuple[Spec | None, ...]:
        return tuple(t.need(s) for t, s in zip(self.trackers, summary))

    def _point(self, state: State) -> Key:
        """What the wagers read of a finished round's state."""
        pt, pn, bt, bn, _ = state
        if self.classes is not None:
            return self.classes[(pt, bt, pn, bn)]
        return (pt, bt, pn, bn) if self.points else (0, 0, 2, 2)

    def _hits(self, point: Key, summary: tuple[Any, ...]) -> tuple[int, ...]:
        key = (point, summary)
        if key not in self._leaves:
            row = _row(point, self.trackers, summary)
            hits = tuple(sum(1 << k for k, o in enumerate(w.outcomes) if o.condition(row, w.parameters))
                         for w in self.wagers)
            self.rows.setdefault(hits, row)
            self._leaves[key] = hits
        return self._leaves[key]

    def _settle(self, leaves: Iterable[tuple[Key, tuple[Any, ...]]]) -> None:
        """The hits of many finished rounds at once (kept as :meth:`_hits` keeps them): each wager's
        conditions evaluated over columns of the rounds' features, as the tables evaluate them."""
        new = [key for key in dict.fromkeys(leaves) if key not in self._leaves]
        if not new:
            return
        rows = [_row(point, self.trackers, summary) for point, summary in new]
        columns = {name: np.array([r[name] for r in rows]) for name in rows[0]}
        bits: list[Any] = [sum(((o.condition.mask(columns, len(rows), w.parameters).astype(object) << k)
                                for k, o in enumerate(w.outcomes)), np.zeros(len(rows), dtype=object))
                           for w in self.wagers]
        for i, (key, row) in enumerate(zip(new, rows)):
            hits = tuple(int(b[i]) for b in bits)
            self.rows.setdefault(hits, row)
            self._leaves[key] = hits

    def run(self, shoe: Shoe, what: str) -> dict[tuple[int, ...], int]:
        summary = tuple(t.start for t in self.trackers)
        counts = _root_counts(shoe, self._specs(summary), what)
        out: defaultdict[tuple[int, ...], int] = defaultdict(int)
        core = _walk_kernels(shoe.size)
        if core is not None:                              # the same walk, forward, in C
            leaves = _compiled_leaves(core, self, shoe, what)
            self._settle(leaves)
            for (point, last), n in leaves.items():
                out[self._leaves[(point, last)]] += n
            return dict(out)
        self._symmetries = _symmetries(self, shoe)
        self._moves.clear()                               # they rename suits as this shoe allows
        _bounded_automaton(self, shoe, what, self._symmetries)      # the compiled walk's bound, checked here too
        self._what = what
        for hits, n in self._enter(counts, (0, 0, 0, 0, -1), summary):
            out[hits] += n
        return dict(out)

    def _enter(self, counts: Counts, state: State, summary: tuple[Any, ...]) -> Result:
        """:meth:`_step`, or once the wagers read nothing but point values of the cards to come,
        :meth:`_tail` with the summaries that can no longer change left out of its memo."""
        if any(self._specs(summary)):
            return self._step(counts, state, summary)
        live = tuple(_FROZEN if t.done(s) else s for t, s in zip(self.trackers, summary))
        out: defaultdict[tuple[int, ...], int] = defaultdict(int)
        for (point, last), n in self._tail(counts, state, live):
            full = tuple(s if x is _FROZEN else x for s, x in zip(summary, last))
            out[self._hits(point, full)] += n
        return tuple(out.items())

    def _move(self, summary: tuple[Any, ...], hand: str, k: int, i: int
              ) -> tuple[int, tuple[Any, ...], tuple[int, ...] | None, int]:
        """Dealing class ``i`` to ``hand`` as its card ``k``: (point value, the summary after it, how
        the classes merge then or None, how many classes there are then)."""
        key = (summary, hand, k, i)
        move = self._moves.get(key)
        if move is None:
            specs = tuple(None if s is _FROZEN else t.need(s) for t, s in zip(self.trackers, summary))
            label = _partition(specs).labels[i]
            v = label[0]
            assert isinstance(v, int)
            after = self._updated(summary, label, hand, k)
            by = None
            if self._symmetries and _FROZEN not in after:   # renamed as the compiled walk's automaton does
                after, by = _least_image(self.trackers, after, self._symmetries)
            then = tuple(None if s is _FROZEN else t.need(s) for t, s in zip(self.trackers, after))
            merge = _renamed(specs, then, by) if by is not None else _merge(specs, then) if then != specs else None
            if merge is not None and merge == tuple(range(len(merge))) and len(_partition(then).labels) == len(merge):
                merge = None                              # a renaming that moves no class
            move = self._moves[key] = (v, after, merge, len(_partition(then).labels))
        return move

    def _updated(self, summary: tuple[Any, ...], label: tuple[Hashable, ...], hand: str, k: int) -> tuple[Any, ...]:
        """The summaries after a card of the class ``label`` (its point value, then what each tracker reads of
        it) is dealt to ``hand`` as its card ``k``; a frozen summary stays as it is."""
        v = cast(int, label[0])
        changing = self._changing.get((hand, k))
        if changing is None:
            changing = self._changing[(hand, k)] = tuple(j for j, t in enumerate(self.trackers) if t.changes_at(hand, k))
        after = list(summary)
        for j in changing:
            s = summary[j]
            if s is not _FROZEN:
                after[j] = self.trackers[j].update(s, label[j + 1], v, hand, k)
        return tuple(after)

    def _step(self, counts: Counts, state: State, summary: tuple[Any, ...]) -> Result:
        """Counts per hit tuple of the sequences that finish the round from here (the unread
        cards included)."""
        key = (counts, state, summary)
        done = self._memo.get(key)
        if done is not None:
            return done
        hand, k, tail = _next_card(counts, state)
        out: defaultdict[tuple[int, ...], int] = defaultdict(int)
        for i, c in enumerate(counts):
            if c == 0:
                continue
            v, after, merge, width = self._move(summary, hand, k, i)
            nxt = _dealt(state, hand, v)
            if _next_hand(nxt) is None:                   # the round is over: the unread cards follow
                out[self._hits(self._point(nxt), after)] += c * tail
                continue
            rest = list(counts)
            rest[i] -= 1
            if merge is not None:                         # classes merge as the wager reads less
                merged = [0] * width
                for j, into in enumerate(merge):
                    merged[into] += rest[j]
                rest = merged
            for hits, n in self._enter(tuple(rest), nxt, after):
                out[hits] += c * n
        result = tuple(out.items())
        self._memo[key] = result
        if len(self._memo) + len(self._tails) > PURE_STATES_LIMIT:
            self._too_many()
        return result

    def _tail(self, counts: Counts, state: State, live: tuple[Any, ...]
              ) -> tuple[tuple[tuple[Key, tuple[Any, ...]], int], ...]:
        """The rest of the round over point values only: counts per (what the wagers read of the
        final state, the final summaries, frozen ones left as they are)."""
        key = (counts, state, live)
        done = self._tails.get(key)
        if done is not None:
            return done
        hand, k, tail = _next_card(counts, state)
        out: defaultdict[tuple[Key, tuple[Any, ...]], int] = defaultdict(int)
        for i, c in enumerate(counts):
            if c == 0:
                continue
            v, after, merge, _width = self._move(live, hand, k, i)
            assert merge is None
            nxt = _dealt(state, hand, v)
            if _next_hand(nxt) is None:
                out[(self._point(nxt), after)] += c * tail
                continue
            rest = counts[:i] + (c - 1,) + counts[i + 1:]
            for end, n in self._tail(rest, nxt, after):
                out[end] += c * n
        result = tuple(out.items())
        self._tails[key] = result
        if len(self._memo) + len(self._tails) > PURE_STATES_LIMIT:
            self._too_many()
        return result


# -- wagers that read single positions: point values, and a rank or suit only where read -------
#
# Exchangeability: how many ordered rounds show a given set of observations does not depend on
# the order in which they are made. When the cards at some positions are read in full (by point
# value and by the rank and/or suit the wagers read there, a *component*) and the rest by point
# value only, the count of rounds is
#
#     prod over components g of (m_g)_(k_g)  *  prod over values v of (n_v - f_v)_(c_v)
#
# (falling factorials; m_g cards of component g in the shoe, k_g of them read; n_v cards of value
# v, f_v of them read in full and c_v by value only). As (n_v)_(f_v + c_v) = (n_v)_(f_v) (n_v -
# f_v)_(c_v), that is the count of the round by point values alone times
#
#     Q = prod over values v of  prod over components g of v (m_g)_(k_g) / (n_v)_(f_v),
#
# the chance that the f_v cards of value v read in full show these components, drawn from the n_v
# cards of value v; Q depends on the positions read only. So when the wagers read of a card no
# more than its point value except the rank or suit at single positions, the shoe is dealt by point
# value alone (10 counts, the round's state, the values at the positions read: a few thousand
# states), and each finished round is split by the components at its positions read, with the
# weights Q (:func:`_split_weight`). This holds because the views are nested (a value, then its
# components). Every total is checked to be a whole number, and all to add up to the shoe's
# sequences.
#
# A round is split only at the positions its hits can depend on: for each class of finished round
# (what the wagers read of the totals and cards, and of the other trackers), every assignment of
# components is tried, and a position whose component alone never changes the hits is not read
# (then together they change nothing either: the assignments are connected by single changes). A
# Suited Dragon 7 or Panda 8 reads the Banker's three suits on a Dragon 7, the Player's on a Panda
# 8 and none otherwise, and one walk is made for each set of positions read, carrying the values
# at those positions only. When no condition names a suit, the hits do not change when the suits
# are renamed, so a round is settled with its suits renamed in order of appearance.

Position = tuple[str, int]                   # (hand, index of the card in it, 0-2)
Component = tuple[int | None, str | None]     # (rank, suit) of a card, None where not read
Split = dict[int, dict[Component, int]]       # the shoe's cards of each point value per component

_START: State = (0, 0, 0, 0, -1)
#: The most (round, components read) terms the split of a walk by point values may take (about 14 s at the
#: limit: 13.6 µs a term, measured on 279,136 terms of two conditions of four and five parts, their rounds settled
#: together; one by one, 31 µs); a larger one is refused before it starts.
SPLIT_LIMIT = 1_000_000
#: The most assignments of components tried to find the positions a class of rounds depends on
#: (beyond it, every position dealt is read: more work, the same counts).
_DEPENDENCE_BUDGET = 5_000


@functools.cache
def _point_classes(features: frozenset[str], third: tuple[bool, bool]) -> dict[Key, Key]:
    """Each finished round's (player total, banker total, player cards, banker cards) to the first
    one with the same point features ``features`` and, where ``third`` says the wagers read the
    player's or the banker's third card, the same number of cards in that hand."""
    read = sorted(features & (frozenset(POINT_FEATURES) | frozenset(DERIVED)))
    seen: dict[tuple[object, ...], Key] = {}
    out: dict[Key, Key] = {}
    for pn, bn, pt, bt in itertools.product((2, 3), (2, 3), range(10), range(10)):
        key = (pt, bt, pn, bn)
        row = point_row(key)
        sig = (pn if third[0] else 0, bn if third[1] else 0, *(row[f] for f in read))
        out[key] = seen.setdefault(sig, key)
    return out


@functools.cache
def _transitions(state: State) -> tuple[str, int, tuple[tuple[State, bool], ...]]:
    """Who takes the next card, its index in the hand, and for each point value the state after it
    and whether the round is then over."""
    hand = _next_hand(state)
    assert hand is not None
    after = tuple(_dealt(state, hand, v) for v in range(10))
    return hand, state[1] if hand == "player" else state[3], tuple((s, _next_hand(s) is None) for s in after)


def _by_value(walk: _Walk, counts: Counts, summary: tuple[Any, ...], what: str = ""
              ) -> dict[tuple[Key, tuple[Any, ...]], int]:
    """Counts per (what the wagers read of the final state, the final summaries) of the rounds dealt
    by point value, for trackers that read nothing else of a card: forward, one card at a time, each
    distinct (counts, state, summaries) carried once with the ways to reach it. Once no summary can
    change, the rest of the round is walked backwards, memoized on (counts, state) alone."""
    core = _walk_kernels(sum(counts))
    if core is not None:                                  # the same counts, by the compiled walk
        return _compiled_leaves(core, walk, counts, what)
    of = _partition(walk._specs(summary)).of              # the compiled walk's bound, checked here too
    _automaton(walk, tuple(counts[of[i]] > 0 for i in range(52)), what or "a wager")
    value = cast(tuple[int, ...], tuple(label[0] for label in _partition((None,) * len(walk.trackers)).labels))
    size = sum(counts)
    finished: dict[tuple[Counts, State], tuple[tuple[Key, int], ...]] = {}

    def finish(left: Counts, state: State) -> tuple[tuple[Key, int], ...]:
        """Ways per (what the wagers read of) the final state, from ``state`` on."""
        done = finished.get((left, state))
        if done is None:
            ways: defaultdict[Key, int] = defaultdict(int)
            _hand, _k, nexts = _transitions(state)
            tail = math.perm(sum(left) - 1, CARDS_PER_ROUND - state[1] - state[3] - 1)
            for i, c in enumerate(left):
                if c:
                    nxt, over = nexts[value[i]]
                    if over:
                        ways[walk._point(nxt)] += c * tail
                    else:
                        for point, n in finish(left[:i] + (c - 1,) + left[i + 1:], nxt):
                            ways[point] += c * n
            done = finished[(left, state)] = tuple(ways.items())
        return done

    layer: dict[tuple[Counts, State, tuple[Any, ...]], int] = {(counts, _START, summary): 1}
    out: defaultdict[tuple[Key, tuple[Any, ...]], int] = defaultdict(int)
    moves: dict[tuple[tuple[Any, ...], str, int], tuple[tuple[Any, ...], ...]] = {}
    dealt = 0
    while layer:
        tail = math.perm(size - dealt - 1, CARDS_PER_ROUND - dealt - 1)   # the unread cards, if the round ends
        after_card: defaultdict[tuple[Counts, State, tuple[Any, ...]], int] = defaultdict(int)
        for (left, state, seen), ways in layer.items():
            if all(t.done(s) for t, s in zip(walk.trackers, seen)):
                for point, n in finish(left, state):
                    out[(point, seen)] += ways * n
                continue
            hand, k, nexts = _transitions(state)
            afters = moves.get((seen, hand, k))
            if afters is None:
                afters = moves[(seen, hand, k)] = tuple(walk._move(seen, hand, k, i)[1] for i in range(len(left)))
            for i, c in enumerate(left):
                if c:
                    nxt, over = nexts[value[i]]
                    if over:
                        out[(walk._point(nxt), afters[i])] += ways * c * tail
                    else:
                        after_card[(left[:i] + (c - 1,) + left[i + 1:], nxt, afters[i])] += ways * c
        layer, dealt = after_card, dealt + 1
    return dict(out)


def _read_split(shoe: Shoe, by_rank: bool, by_suit: bool, what: str) -> Split:
    """The shoe's cards of each point value per component read (rank, suit or both), with counts."""
    per: defaultdict[int, dict[Component, int]] = defaultdict(dict)
    if shoe.card_counts is not None:
        for (rank, suit), n in zip(_IDENTITIES, shoe.card_counts):
            c = (rank if by_rank else None, suit if by_suit else None)
            per[_points(rank)][c] = per[_points(rank)].get(c, 0) + n
    elif by_suit:
        raise SuitsUnknown(f"{what} reads suits, but the shoe's suits are unknown (cards were given by "
                             "rank only); give removed cards with their suits, e.g. 9h")
    else:
        for rank, n in enumerate(shoe.rank_counts, start=1):
            c = (rank if by_rank else None, None)
            per[_points(rank)][c] = per[_points(rank)].get(c, 0) + n
    return {v: {c: n for c, n in cs.items() if n} for v, cs in per.items()}


def _split_weight(values: Sequence[int], seen: Sequence[Component], split: Split) -> tuple[int, int]:
    """The chance that cards of point values ``values``, read in full, show the components ``seen``
    (drawn without replacement from the cards of each value of ``split``), as (numerator, denominator).

    Two decks: both cards worth 7 read as spades, 2/8 * 1/7 = 1/28 (the second has one spade left
    among seven); a card worth 7 and one worth 0, 2/8 * 8/32 = 1/16 (independent), however the rest
    of the round went.

    >>> two = _read_split(Shoe.decks(2), False, True, "a test")
    >>> _split_weight([7, 7], [(None, "s"), (None, "s")], two)
    (2, 56)
    >>> _split_weight([7, 0], [(None, "s"), (None, "s")], two)
    (16, 256)
    """
    num = den = 1
    used: dict[object, int] = {}
    for v, c in zip(values, seen):
        cards = split.get(v, {})
        num *= cards.get(c, 0) - used.get((v, c), 0)
        den *= sum(cards.values()) - used.get(v, 0)
        used[(v, c)] = used.get((v, c), 0) + 1
        used[v] = used.get(v, 0) + 1
    return num, den


class _LazyWalk:
    """One walk for wagers that read of a card, besides point values (two-card totals, counts), only
    the rank or suit at single positions: the shoe is dealt by point value, and each finished round
    split by the components at the positions read (see above). Holds nothing of a shoe."""

    def __init__(self, trackers: tuple[_Tracker, ...], wagers: Sequence[Wager]):
        self.trackers = trackers
        self.fine = {i: t for i, t in enumerate(trackers) if isinstance(t, _Card) and t.attr != "value"}
        self.coarse = tuple(t for i, t in enumerate(trackers) if i not in self.fine)
        reads: defaultdict[Position, set[str]] = defaultdict(set)
        for t in self.fine.values():
            assert isinstance(t, _Card)
            reads[(t.hand, t.k)].add(t.attr)
        #: the positions read (in deal order within each hand), and what is read at each
        self.positions = tuple(sorted(reads))
        self.reads = tuple(frozenset(reads[p]) for p in self.positions)
        self.by_rank = any("rank" in a for a in self.reads)
        self.by_suit = any("suit" in a for a in self.reads)
        named = frozenset().union(*(w.texts for w in wagers))
        self.renamable = self.by_suit and not any(t & frozenset(_SUITS) for t in named)
        features = frozenset().union(*(w.features for w in wagers))
        self.classes = _point_classes(features, (("player", 2) in reads, ("banker", 2) in reads))
        self.settler = _Walk(trackers, wagers, self.classes)     # the hits of a finished round
        self.rows = self.settler.rows
        self._settled: dict[tuple[Key, tuple[Any, ...], tuple[Component | None, ...]], tuple[int, ...]] = {}
        self._depends: dict[tuple[Key, tuple[Any, ...]], tuple[int, ...]] = {}

    @staticmethod
    def fits(trackers: tuple[_Tracker, ...]) -> bool:
        """Whether wagers with these trackers read a rank or suit, and only at single positions."""
        return (any(isinstance(t, _Card) and t.attr != "value" for t in trackers)
                and all(isinstance(t, (_Card, _TwoCardTotal, _Count)) for t in trackers))

    def _dealt(self, point: Key) -> tuple[int, ...]:
        """The positions read (their indices) that are dealt a card in a round of this class."""
        _pt, _bt, pn, bn = point
        return tuple(j for j, (hand, k) in enumerate(self.positions) if k < (pn if hand == "player" else bn))

    def _alphabet(self, j: int) -> list[Component]:
        """Every component the trackers at the ``j``-th position read can see."""
        ranks = range(1, 14) if "rank" in self.reads[j] else (None,)
        suits = _SUITS if "suit" in self.reads[j] else (None,)
        return list(itertools.product(ranks, suits))

    def _key(self, point: Key, coarse: tuple[Any, ...], seen: tuple[Component | None, ...]
             ) -> tuple[tuple[Key, tuple[Any, ...], tuple[Component | None, ...]], tuple[Any, ...]]:
        """A round's key among the rounds settled (``coarse`` the summaries of the other trackers, ``seen`` the
        component at each position read, None where no card is dealt; the suits renamed in order of appearance
        where no wager names one), and the summaries of all its trackers, as the settler reads them."""
        if self.renamable:                                  # the suits renamed in order of appearance
            names: dict[str | None, str | None] = {None: None}
            for c in seen:
                if c is not None and c[1] not in names:
                    names[c[1]] = _SUITS[len(names) - 1]
            seen = tuple(c if c is None else (c[0], names[c[1]]) for c in seen)
        at = dict(zip(self.positions, seen))
        summary: list[Any] = []
        rest = iter(coarse)
        for i, t in enumerate(self.trackers):
            if i not in self.fine:
                summary.append(next(rest))
                continue
            assert isinstance(t, _Card)
            c = at[(t.hand, t.k)]
            summary.append(_PENDING if c is None else c[0] if t.attr == "rank" else c[1])
        return (point, coarse, seen), tuple(summary)

    def _hits(self, point: Key, coarse: tuple[Any, ...], seen: tuple[Component | None, ...]) -> tuple[int, ...]:
        """The hits of a round (see :meth:`_key`)."""
        key, summary = self._key(point, coarse, seen)
        hits = self._settled.get(key)
        if hits is None:
            hits = self._settled[key] = self.settler._hits(point, summary)
        return hits

    def _settle(self, keys: list[tuple[tuple[Key, tuple[Any, ...], tuple[Component | None, ...]], tuple[Any, ...]]]
                ) -> None:
        """The hits of many rounds (their :meth:`_key`) at once: each wager's conditions over columns of the rounds'
        features, as the tables evaluate them (:meth:`_Walk._settle`), where one round at a time took 30 µs."""
        new = {key: summary for key, summary in keys if key not in self._settled}
        self.settler._settle((key[0], summary) for key, summary in new.items())
        for key, summary in new.items():
            self._settled[key] = self.settler._leaves[(key[0], summary)]

    def _unread(self, point: Key) -> list[Component | None]:
        """A component at each position read that is dealt, None at the others."""
        dealt = self._dealt(point)
        return [self._alphabet(j)[0] if j in dealt else None for j in range(len(self.positions))]

    def _depends_on(self, point: Key, coarse: tuple[Any, ...]) -> tuple[int, ...]:
        """The positions (indices) whose component can change the hits of a round of this class: found
        by trying every assignment where there are few, else every position dealt."""
        key = (point, coarse)
        if key not in self._depends:
            dealt = self._dealt(point)
            alphabets = [self._alphabet(j) for j in dealt]
            if math.prod(map(len, alphabets)) > _DEPENDENCE_BUDGET:
                self._depends[key] = dealt
            else:
                seen = self._unread(point)
                table: dict[tuple[Component, ...], tuple[int, ...]] = {}
                found: set[int] = set()
                for a in itertools.product(*alphabets):      # each assignment after the ones it is compared with
                    for j, c in zip(dealt, a):
                        seen[j] = c
                    h = table[a] = self._hits(point, coarse, tuple(seen))
                    found.update(x for x in range(len(dealt)) if x not in found and a[x] != alphabets[x][0]
                                 and h != table[a[:x] + (alphabets[x][0],) + a[x + 1:]])
                    if len(found) == len(dealt):             # every position matters: no need to try the rest
                        break
                self._depends[key] = tuple(j for x, j in enumerate(dealt) if x in found)
        return self._depends[key]

    def run(self, shoe: Shoe, what: str) -> dict[tuple[int, ...], int]:
        """Counts per hit tuple of the rounds of ``shoe`` (each ordered 6-card sequence once)."""
        split = _read_split(shoe, self.by_rank, self.by_suit, what)
        counts = _root_counts(shoe, (None,) * len(self.coarse), what)
        start = tuple(t.start for t in self.coarse)
        out: defaultdict[tuple[int, ...], int] = defaultdict(int)
        reading: set[tuple[int, ...]] = set()
        for (point, coarse), n in _by_value(_Walk(self.coarse, (), self.classes), counts, start, what).items():
            if read := self._depends_on(point, coarse):
                reading.add(read)
            else:
                out[self._hits(point, coarse, tuple(self._unread(point)))] += n
        if (widest := max(map(len, reading), default=0)) >= 5:   # 10^5 nodes of values, 10 moves each: past the limit
            raise TooLarge(f"the walk of {what} by point values would carry the values of {widest} positions read "
                           f"(more than {AUTOMATON_MOVES_LIMIT:,} ways its cards can come apart): refused")
        parts: defaultdict[tuple[tuple[int, ...], int], int] = defaultdict(int)    # (hits, denominator): numerator
        rounds = []                       # every walk first, then the split: its size is known before it starts
        for read in sorted(reading):
            at = tuple(_Card(*self.positions[j], "value") for j in read)
            walk = _Walk(self.coarse + at, (), self.classes)
            for (point, summary), n in _by_value(walk, counts, start + tuple(t.start for t in at), what).items():
                coarse, values = summary[:len(self.coarse)], summary[len(self.coarse):]
                if self._depends_on(point, coarse) == read:
                    rounds.append((point, coarse, read, values, n))
        terms = sum(math.prod(len(split.get(v, ())) for v in values) for _p, _c, _r, values, _n in rounds)
        if terms > SPLIT_LIMIT:
            raise TooLarge(f"the walk of {what} would split {len(rounds):,} classes of rounds into {terms:,} by the "
                           f"ranks or suits they read (limit {SPLIT_LIMIT:,}): refused; read fewer cards' ranks or "
                           "suits apart")
        for point, coarse, read, values, n in rounds:
            self._split(point, coarse, read, values, n, split, parts)
        total: defaultdict[tuple[int, ...], Fraction] = defaultdict(Fraction)
        for (hits, den), num in parts.items():
            total[hits] += Fraction(num, den)
        for hits, x in total.items():
            if x.denominator != 1:
                raise ExactOddsError(f"internal: the walk of {what} counted {x} rounds, not a whole number")
            out[hits] += int(x)
        if sum(out.values()) != shoe.sequences:
            raise ExactOddsError(f"internal: the walk of {what} counted {sum(out.values())} rounds, "
                                 f"not the shoe's {shoe.sequences}")
        return dict(out)

    def _split(self, point: Key, coarse: tuple[Any, ...], read: tuple[int, ...], values: tuple[int, ...],
               n: int, split: Split, parts: defaultdict[tuple[tuple[int, ...], int], int]) -> None:
        """Add the ``n`` rounds by point value (``values`` at the positions ``read``) to ``parts``,
        split by the components at those positions (numerators over one denominator)."""
        seen = self._unread(point)
        terms = []
        for choice in itertools.product(*(split[v] for v in values)):
            num, den = _split_weight(values, choice, split)
            if num:
                for j, c in zip(read, choice):
                    seen[j] = c
                terms.append((self._key(point, coarse, tuple(seen)), den, n * num))
        self._settle([key for key, _den, _x in terms])
        for (key, _summary), den, x in terms:
            parts[(self._settled[key], den)] += x


_LAZY: dict[tuple[object, ...], _LazyWalk] = {}


def _lazy_walk(trackers: tuple[_Tracker, ...], wagers: Sequence[Wager]) -> _LazyWalk:
    """A :class:`_LazyWalk` for these wagers, kept with the rounds it has settled for the next shoe
    (the last 16 kept)."""
    key = (trackers, tuple(_wager_key(w) for w in wagers))
    if key not in _LAZY:
        if len(_LAZY) >= 16:
            del _LAZY[next(iter(_LAZY))]
        _LAZY[key] = _LazyWalk(trackers, wagers)
    return _LAZY[key]


def _wager_key(wager: Wager) -> tuple[object, ...]:
    """What a wager's hits depend on: its conditions and parameters."""
    return (tuple(o.condition.text for o in wager.outcomes), repr(sorted(wager.parameters.items())))


class WalkDistribution:
    """The second route: counts per settled outcome by the walk (see :meth:`outcome_counts`).

    >>> from exactodds.wagers import load_catalogue
    >>> hm = load_catalogue()["house-money"]
    >>> d = WalkDistribution(Shoe.decks(1))
    >>> sum(d.outcome_counts(hm, hm.paytable("standard")).values()) == Shoe.decks(1).sequences
    True
    """

    def __init__(self, shoe: Shoe):
        self.shoe = shoe
        self.total = shoe.sequences
        self._hits: dict[tuple[object, ...], tuple[dict[tuple[int, ...], int], int, _Walk | _LazyWalk]] = {}

    def point_counts(self) -> dict[Key, int]:
        return walk(self.shoe)

    def prepare(self, wagers: Iterable[Wager]) -> None:
        """Walk the shoe once for each group of ``wagers`` that read the same cards."""
        groups: defaultdict[tuple[tuple[_Tracker, ...], tuple[_Tracker, ...]], list[Wager]] = defaultdict(list)
        for w in wagers:
            key = _wager_key(w)
            read = (_wager_trackers(w), _wager_trackers(w, joint=False))
            if key not in self._hits and all(_wager_key(x) != key for x in groups[read]):
                groups[read].append(w)
        for (trackers, cards), members in groups.items():
            if not members:
                continue
            what = f"wager {members[0].id!r} ({cited(members[0].section)})"
            run: _Walk | _LazyWalk = _Walk(trackers, members)
            # by group first where the compiled walk runs it (as fast or faster on every bet tried: 1.3 against
            # 0.5 s for a poker bet), else by point value; the pure walk by group is the slower (60 against 9 s
            # for the example bets), so there the walk by point values goes first
            if _LazyWalk.fits(cards) and trackers != cards and _walk_kernels(self.shoe.size) is not None:
                try:
                    hits = run.run(self.shoe, what)
                except TooLarge as by_group:
                    lazy = _lazy_walk(cards, members)
                    try:
                        hits, run = lazy.run(self.shoe, what), lazy
                    except TooLarge:                            # the refusal that says what to read instead
                        raise by_group from None
            elif _LazyWalk.fits(cards):                   # by point value, split at the end: fastest where it fits
                try:
                    lazy = _lazy_walk(cards, members)
                    hits, run = lazy.run(self.shoe, what), lazy
                except TooLarge:                          # too many positions read at once: card by card
                    hits = run.run(self.shoe, what)
            else:
                hits = run.run(self.shoe, what)
            for k, w in enumerate(members):
                self._hits[_wager_key(w)] = (hits, k, run)

    def outcome_counts(self, wager: Wager, paytable: Paytable) -> dict[int, int]:
        """Ordered 6-card sequences per settled outcome: the index of the outcome in
        ``wager.outcomes``, or -1 for a loss (settled by :meth:`Wager.settle_row`)."""
        key = _wager_key(wager)
        if key not in self._hits:
            self.prepare([wager])
        hits, k, run = self._hits[key]
        index = {o.id: j for j, o in enumerate(wager.outcomes)}
        settled: dict[int, int] = {}
        paid: dict[int, int] = {}
        # a row may hold cards that stand for the rounds' (read by group, or tried by the walk by point values)
        standing = isinstance(run, _LazyWalk) or any(isinstance(t, _Joint) for t in run.trackers)
        for h, n in hits.items():
            if h[k] not in paid:
                oid = wager.settle_row(run.rows[h], paytable, standing=standing)
                paid[h[k]] = -1 if oid is None else index[oid]
            settled[paid[h[k]]] = settled.get(paid[h[k]], 0) + n
        return settled


def joint_counts(shoe: Shoe, pairs: Sequence[tuple[Wager, Paytable]]) -> dict[tuple[int, ...], int]:
    """Ordered 6-card sequences per tuple of the settled outcomes of ``pairs`` on one round (each wager's outcome
    index, -1 a loss), the wagers walked together: what a position of several wagers needs where no table of all
    they read fits (:func:`_walked_together` says which cards it reads).

    >>> from exactodds.wagers import load_catalogue
    >>> cat = load_catalogue()
    >>> pairs = [(cat["banker"], cat["banker"].paytable("standard")), (cat["player-pair"], cat["player-pair"].paytable("standard"))]
    >>> both = joint_counts(Shoe.decks(1), pairs)
    >>> sum(both.values()) == Shoe.decks(1).sequences
    True
    """
    wagers = [w for w, _ in pairs]
    trackers = _walked_together(wagers)
    what = " and ".join(f"{w.id!r}" for w in wagers)
    run = _Walk(trackers, wagers)
    hits = run.run(shoe, f"wagers {what}")
    standing = any(isinstance(t, _Joint) for t in trackers)
    index = [{o.id: j for j, o in enumerate(w.outcomes)} for w in wagers]
    paid: list[dict[int, int]] = [{} for _ in pairs]
    out: dict[tuple[int, ...], int] = {}
    for h, n in hits.items():
        key = []
        for k, (w, t) in enumerate(pairs):
            if h[k] not in paid[k]:
                oid = w.settle_row(run.rows[h], t, standing=standing)
                paid[k][h[k]] = -1 if oid is None else index[k][oid]
            key.append(paid[k][h[k]])
        out[tuple(key)] = out.get(tuple(key), 0) + n
    return out


def _walked_together(wagers: Sequence[Wager]) -> tuple[_Tracker, ...]:
    """The trackers of every wager of ``wagers`` at once: each wager's own (:func:`_wager_trackers`), one of each
    kind; a card's suit read by block by one wager and as itself (or by other blocks) by another is read by the
    blocks of both. A group read by one wager (:class:`_Joint`) whose cards another reads otherwise is refused:
    the group stands for its cards by the least cards with the same truths, which the other would read."""
    out: list[_Tracker] = []
    for w in wagers:
        for t in _wager_trackers(w):
            if t in out:
                continue
            same = next((i for i, u in enumerate(out) if isinstance(t, _Card) and isinstance(u, _Card)
                         and (u.hand, u.k, u.attr) == (t.hand, t.k, t.attr)), None)
            if same is not None:
                u = out[same]
                assert isinstance(t, _Card) and isinstance(u, _Card)
                out[same] = _Card(t.hand, t.k, t.attr, _finer(u.told, t.told), _finer_tens(u.tens, t.tens))
                continue
            out.append(t)
    written = [(t, _written(t)) for t in out]
    for t, names in written:
        if isinstance(t, _Joint):
            other = next((n for u, ns in written if u is not t for n in ns & names), None)
            if other is not None:
                raise TooLarge(f"the walk reads {other} of one wager by group, and of another card by card: these "
                               "wagers cannot be walked together; price them apart")
    return tuple(out)


def _finer(a: str, b: str) -> str:
    """The blocks of suits two readings tell apart together ('' : every suit as itself).

    >>> _finer("hd|sc", "h|d|sc"), _finer("hd|sc", ""), _finer("shdc", "hd|sc")
    ('d|h|sc', '', 'hd|sc')
    """
    if not a or not b:
        return ""
    blocks = {"".join(s for s in _SUITS if s in x and s in y) for x in a.split("|") for y in b.split("|")} - {""}
    return "|".join(sorted(blocks))


def _finer_tens(a: str, b: str) -> str:
    """The split of the ten-valued ranks two readings tell apart together ('': every rank as itself).

    >>> _finer_tens("T|JQK", "TJQ|K"), _finer_tens("T|JQK", "")
    ('T|JQ|K', '')
    """
    if not a or not b:
        return ""
    blocks = {"".join(r for r in ten_valued.TENS if r in x and r in y)
              for x in a.split("|") for y in b.split("|")} - {""}
    written = "|".join(sorted(blocks, key=lambda block: ten_valued.TENS.index(block[0])))
    return "" if written == ten_valued.EVERY_TEN else written


def _written(t: _Tracker) -> frozenset[str]:
    """The features a tracker writes of a finished round."""
    if isinstance(t, _Card):
        return frozenset({f"{t.hand}_{t.attr}_{t.k + 1}"})
    if isinstance(t, _Joint):
        return frozenset(t.names)
    if isinstance(t, _Hand):
        return frozenset(f"{t.hand}_{a}" for a in t.attrs)
    if isinstance(t, _Every):
        return frozenset({f"same_{t.attr}"})
    if isinstance(t, _Count):
        return frozenset({f"count_{t.value}"})
    if isinstance(t, _TwoCardTotal):
        return frozenset({f"{t.hand}_two_card_total"})
    return frozenset()


# -- the walk in C: the automaton of what a wager reads, built here, walked by the extension -----
#
# The compiled walk (exactodds/engine/_core.c, walk) knows neither the rules nor the wagers. It is
# handed two finite automata built here from the same pieces the walk above uses: the round states
# (totals, cards, the player's third card) with, per point value, the state after a card of it
# (:func:`_transitions`, from exactodds.game.rules), and the summaries of the trackers with, per
# class of cards at each position, the summary after it and how the classes merge
# (:meth:`_Walk._move`). It deals forward, one layer per card, each distinct (cards dealt per class,
# round state, summary) carried once with its ways, and returns the ways per (final round state,
# final summary), the unread cards counted: what :meth:`_Walk._enter` returns per hit tuple before
# the hits are read. Both automata are shoe-free and kept per set of trackers.

#: The most states one layer of the compiled walk may hold (each takes at most 128 bytes of its hash
#: table, two layers and the leaves at once: about 1.5 GB at the limit); a larger walk is refused.
WALK_STATES_LIMIT = 4_000_000
#: Cards of a position (P1 B1 P2 B2 P3 B3) in deal order: the index of each (hand, card index).
_POSITIONS = (("player", 0), ("banker", 0), ("player", 1), ("banker", 1), ("player", 2), ("banker", 2))
#: The positions that can take the card after one at each position (§627a.8(c), §627a.10): a hand's
#: third card comes after the four initial cards, the Banker's after the Player's or alone.
_AFTER = ((1,), (2,), (3,), (4, 5), (5,), ())
#: Each position as a refusal names it.
_SHOWN = ("Player's first card", "Banker's first card", "Player's second card", "Banker's second card",
          "Player's third card", "Banker's third card")


@dataclass(frozen=True)
class _RoundStates:
    """Every round state the deal reaches, as arrays for the compiled walk."""

    states: tuple[State, ...]
    position: np.ndarray                # per state, the position of the next card, -1 once over
    cards: np.ndarray                   # per state, the cards dealt
    next: np.ndarray                    # per (state, point value), the state after a card of it
    over: np.ndarray                    # per state, 1 if the round is over


@functools.cache
def _round_states() -> _RoundStates:
    order = [_START]
    index = {_START: 0}
    rows: dict[int, list[int]] = {}
    for state in order:                                   # breadth first: ``order`` grows as states are found
        if _next_hand(state) is None:
            continue
        row = []
        for after, _over in _transitions(state)[2]:
            if after not in index:
                index[after] = len(order)
                order.append(after)
            row.append(index[after])
        rows[index[state]] = row
    states = tuple(index)
    position = [_POSITIONS.index((h, st[1] if h == "player" else st[3])) if (h := _next_hand(st)) else -1
                for st in states]
    nxt = [rows.get(i, [i] * 10) for i in range(len(states))]
    return _RoundStates(states, np.array(position, dtype=np.int64), np.array([st[1] + st[3] for st in states], dtype=np.int64),
                        np.array(nxt, dtype=np.int64).reshape(-1), np.array([p < 0 for p in position], dtype=np.int64))


@dataclass(frozen=True)
class _Automaton:
    """The summaries of a walk's trackers (nodes) and how dealing each class at each position moves
    between them, as arrays for the compiled walk (node 0: the start)."""

    summaries: tuple[tuple[Any, ...], ...]
    specs: tuple[tuple[Spec | None, ...], ...]
    node_offset: np.ndarray             # node s's classes: node_offset[s] to node_offset[s + 1]
    class_value: np.ndarray             # per (node, class), its point value
    trans_offset: np.ndarray            # per (node, position), where its transitions start, or -1
    trans_next: np.ndarray              # per transition, the node after it
    trans_merge: np.ndarray             # per transition, where in ``merges`` its map of classes starts, or -1
    merges: np.ndarray
    class_of: list[np.ndarray] = field(default_factory=list, compare=False, repr=False)   # see :meth:`class_counts`

    def class_counts(self, card_counts: np.ndarray) -> np.ndarray:
        """Shoes' cards per (node, class), in ``class_value``'s order, from their cards per identity (a row a
        shoe, or one shoe): each identity's class at each node made once per automaton, then one sum per class
        (every class holds an identity)."""
        if not self.class_of:
            offsets = self.node_offset.tolist()
            index = np.empty((len(self.specs), 52), dtype=np.int64)
            for node, sp in enumerate(self.specs):
                index[node] = offsets[node] + np.array(_partition(sp).of, dtype=np.int64)
            flat = index.reshape(-1)
            order = np.argsort(flat, kind="stable")
            starts = np.flatnonzero(np.r_[True, np.diff(flat[order]) != 0])
            if len(starts) != len(self.class_value):
                raise InconsistentCounts("internal: a class of the walk holds no card: a defect of exactodds")
            self.class_of.extend((order % 52, starts))
        identity, starts = self.class_of
        return np.add.reduceat(np.asarray(card_counts, dtype=np.int64)[..., identity], starts, axis=-1)


_AUTOMATA: dict[tuple[tuple[_Tracker, ...], tuple[bool, ...], tuple[tuple[str, ...], ...]], _Automaton] = {}
#: The most moves (a class of cards dealt at a position from a summary) an automaton may hold (a wager
#: that reads the ranks or suits of many cards apart, at once, on a shoe that holds most identities):
#: a larger one is refused before the position at which it would pass the limit is built (the bet of
#: tests/test_bounds.py refused there, at 2,237,104: 11 s and 540 MB, the whole process, 8 decks). The
#: catalogue's largest: 44,780; six positions' ranks and suits compared in pairs (tests/test_bounds.py): 449,597;
#: three positions' ranks kept apart beside suits in two groups: 703,913 (4 s of CPU to build, 7.6 s and 460 MB
#: in all); beside the six suits in one group: 1,593,660 (11-20 s and 710-725 MB in all) and, the heaviest
#: found under the limit by an audit of 75 bets, 1,938,296 (14 s and 1.0 GB in all; 28 s beside another such
#: run on two cores).
AUTOMATON_MOVES_LIMIT = 2_000_000
#: CPU seconds and bytes per move of an automaton's build (measured 5 to 6 µs and about 120 bytes on
#: automata of 0.7 to 1.6 million moves, 8 decks): what a refusal says the moves would have cost.
SECONDS_PER_MOVE = 6e-6
BYTES_PER_MOVE = 120


def _automaton(walk: _Walk, present: tuple[bool, ...], what: str = "a wager",
               symmetries: tuple[tuple[str, ...], ...] = ()) -> _Automaton:
    """The automaton of ``walk``'s trackers over the card identities ``present`` (52 flags: a class
    none of whose cards is in the shoe is never dealt), built on first use and kept (the last 32).

    With ``symmetries`` (permutations of the suits, images of ``_SUITS``, that change neither the shoe
    nor any wager's hits: :func:`_symmetries`), each summary reached is renamed to the least of its
    images, and the cards dealt with it (the move's map of classes): two states of the walk that one
    renaming makes equal have the same rounds to come, renamed, so they are carried as one."""
    found = _AUTOMATA.get((walk.trackers, present, symmetries))
    if found is not None:
        return found
    # :func:`_least_image`, its parts kept here: each summary's least image, each tracker's images of its own
    least: dict[tuple[Any, ...], tuple[tuple[Any, ...], tuple[str, ...] | None]] = {}
    orbits: dict[tuple[int, Any], tuple[Any, ...]] = {}
    moving, renamings = frozenset(_moving(walk.trackers)), _renamings(symmetries)

    def orbit(i: int, s: Any) -> tuple[Any, ...]:
        found = orbits.get((i, s))
        if found is None:
            if i in moving:
                relabel = walk.trackers[i].relabel
                found = orbits[(i, s)] = tuple(relabel(s, names) for _p, names in renamings)
            else:
                found = orbits[(i, s)] = (s,) * len(renamings)
        return found

    def canonical(summary: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[str, ...] | None]:
        if not symmetries:
            return summary, None
        found = least.get(summary)
        if found is None:
            found = least[summary] = _least_of(summary, list(zip(*(orbit(i, s) for i, s in enumerate(summary)))),
                                               symmetries)
        return found

    start = tuple(t.start for t in walk.trackers)
    # the nodes: each summary reached (after its least image), numbered as first met, with its needs and the number
    # of its partition of the identities (their ``of``, numbered as first met)
    nodes: dict[tuple[Any, ...], int] = {start: 0}
    summaries_of: list[tuple[Any, ...]] = [start]
    specs_of: list[tuple[Spec | None, ...]] = [walk._specs(start)]
    parts: dict[tuple[int, ...], int] = {_partition(specs_of[0]).of: 0}
    part_of: list[int] = [0]
    transitions: dict[tuple[int, int], list[tuple[int, int]]] = {}     # per (node, position): (node after, map)
    # position by position in the order of the deal (a card's successors come later): the nodes that take each
    # position's card, each once; before a position's moves are made, their number (a move per class of each
    # node's cards) is known, and the automaton is refused there if it would pass its limit
    layers: list[dict[int, None]] = [{0: None}] + [{} for _ in _POSITIONS[1:]]
    # a move's map of classes depends only on the two nodes' partitions and the renaming: a few thousand such
    # triples stand for hundreds of thousands of moves; each map is kept once in ``merges`` (-1: none)
    maps: dict[tuple[int, int, tuple[str, ...] | None], int] = {}
    merges: list[int] = []
    merge_at: dict[tuple[int, ...], int] = {}
    made = 0
    for pos, layer in enumerate(layers):
        coming = made + sum(len(_partition(specs_of[node]).labels) for node in layer)
        if coming > AUTOMATON_MOVES_LIMIT:
            raise TooLarge(f"the walk of {what} would tell more than {AUTOMATON_MOVES_LIMIT:,} ways its cards can "
                           f"come apart ({coming:,} once the {_SHOWN[pos]} is dealt, counted before; those alone about "
                           f"{coming * SECONDS_PER_MOVE:.0f} s and {bounds._gb(coming * BYTES_PER_MOVE)} to build): "
                           "refused; read fewer cards' ranks or suits apart")
        hand, k = _POSITIONS[pos]
        for node in layer:
            summary, at, p_at = summaries_of[node], specs_of[node], part_of[node]
            read = _partition(at).labels
            moves = transitions[(node, pos)] = []
            for i, here in enumerate(_present_classes(at, present)):
                if not here:                              # never dealt: a place holder
                    moves.append((0, -1))
                    continue
                after, by = canonical(walk._updated(summary, read[i], hand, k))   # what the trackers read, as _move
                to = nodes.get(after)
                if to is None:
                    to = nodes[after] = len(summaries_of)
                    summaries_of.append(after)
                    specs_of.append(walk._specs(after))
                    part_of.append(parts.setdefault(_partition(specs_of[to]).of, len(parts)))
                key = (p_at, part_of[to], by)
                m = maps.get(key)
                if m is None:
                    then = specs_of[to]
                    merge = _renamed(at, then, by) if by is not None else _merge(at, then) if key[1] != p_at else None
                    if merge is None:
                        m = -1
                    elif merge in merge_at:
                        m = merge_at[merge]
                    else:
                        m = merge_at[merge] = len(merges)
                        merges.extend(merge)
                    maps[key] = m
                moves.append((to, m))
                for nxt in _AFTER[pos]:
                    layers[nxt][to] = None
            made += len(moves)
    summaries = tuple(summaries_of)
    specs = tuple(specs_of)
    labels = [_partition(sp).labels for sp in specs]
    offsets = np.cumsum([0, *map(len, labels)]).astype(np.int64)
    trans_offset = np.full(len(summaries) * len(_POSITIONS), -1, dtype=np.int64)
    trans_next: list[int] = []
    trans_merge: list[int] = []
    for (node, pos), moves in transitions.items():
        trans_offset[node * len(_POSITIONS) + pos] = len(trans_next)
        trans_next.extend(to for to, _m in moves)
        trans_merge.extend(m for _to, m in moves)
    built = _Automaton(summaries, specs, offsets, np.array([lab[0] for ls in labels for lab in ls], dtype=np.int64),
                       trans_offset, np.array(trans_next, dtype=np.int64), np.array(trans_merge, dtype=np.int64),
                       np.array(merges, dtype=np.int64))
    if len(_AUTOMATA) >= 32:
        del _AUTOMATA[next(iter(_AUTOMATA))]
    _AUTOMATA[(walk.trackers, present, symmetries)] = built
    return built


@functools.lru_cache(maxsize=1 << 18)
def _least_image(trackers: tuple[_Tracker, ...], summary: tuple[Any, ...], symmetries: tuple[tuple[str, ...], ...]
                 ) -> tuple[tuple[Any, ...], tuple[str, ...] | None]:
    """The least image of the summaries ``summary`` of ``trackers`` under the renamings of the suits
    ``symmetries`` (a group), and the renaming that gives it (None: the summaries themselves). Least by hash,
    ties by text: any image would give the same counts (the walk renames the cards dealt with it); the least
    is the same for every summary of one orbit, so that they are carried as one."""
    moving = _moving(trackers)
    n = len(symmetries)
    # the images under each renaming, made from each tracker's images of its own summary (kept per summary:
    # many states of the walk share each part)
    return _least_of(summary, list(zip(*(_orbit(t, s, symmetries) if i in moving else (s,) * n
                                         for i, (t, s) in enumerate(zip(trackers, summary))))), symmetries)


def _least_of(summary: tuple[Any, ...], images: list[tuple[Any, ...]], symmetries: tuple[tuple[str, ...], ...]
              ) -> tuple[tuple[Any, ...], tuple[str, ...] | None]:
    """The least of ``summary`` and its ``images`` under the renamings ``symmetries`` (one each, in turn), and
    the renaming that gives it: :func:`_least_image`."""
    hashes = list(map(hash, images))
    least = min(hashes, default=hash(summary))
    if hash(summary) <= least:                            # the summary itself first, as it comes
        least = hash(summary)
        best: tuple[Any, ...] = summary
        by = None
    else:
        j = hashes.index(least)
        best, by = images[j], symmetries[j]
    for j in range(len(images)):                          # ties by text, the first of the least kept
        if hashes[j] == least and images[j] != best and repr(images[j]) < repr(best):
            best, by = images[j], symmetries[j]
    return best, by


@functools.lru_cache(maxsize=1 << 18)
def _orbit(tracker: _Tracker, s: Any, symmetries: tuple[tuple[str, ...], ...]) -> tuple[Any, ...]:
    """The images of ``tracker``'s summary ``s`` under each renaming of ``symmetries``."""
    return tuple(tracker.relabel(s, names) for _p, names in _renamings(symmetries))


@functools.cache
def _moving(trackers: tuple[_Tracker, ...]) -> tuple[int, ...]:
    """The trackers whose summaries a renaming of the suits can change (a card's value or rank, a suit read
    by block, a count: none)."""
    return tuple(i for i, t in enumerate(trackers) if type(t).relabel is not _Tracker.relabel
                 and not (isinstance(t, _Card) and (t.attr != "suit" or t.told)))


@functools.cache
def _renamings(symmetries: tuple[tuple[str, ...], ...]) -> tuple[tuple[tuple[str, ...], dict[str, str]], ...]:
    """Each renaming of ``symmetries`` with its map of the suits."""
    return tuple((p, dict(zip(_SUITS, p))) for p in symmetries)


@functools.lru_cache(maxsize=1 << 15)        # bounded: a long session walks many wagers
def _renamed(finer: tuple[Spec | None, ...], coarser: tuple[Spec | None, ...], suits: tuple[str, ...]) -> tuple[int, ...]:
    """The class of ``coarser`` into which each class of ``finer`` falls once its cards' suits are
    renamed by ``suits`` (images of ``_SUITS``), checked for every identity as :func:`_merge` is."""
    b = _partition(coarser).of
    into = _into(_partition(finer), [b[j] for j in _renaming_index(suits)])
    if into is None:
        raise ExactOddsError(f"internal: renaming the suits would split a class ({finer!r} -> {coarser!r})")
    return into


@functools.cache
def _renaming_index(suits: tuple[str, ...]) -> tuple[int, ...]:
    """Per identity, the identity its suit renamed by ``suits`` (images of ``_SUITS``) makes."""
    names = dict(zip(_SUITS, suits))
    return tuple(_INDEX[(rank, names[suit])] for rank, suit in _IDENTITIES)


def _symmetries(walk: _Walk, shoe: Shoe) -> tuple[tuple[str, ...], ...]:
    """The renamings of the suits (images of ``_SUITS``, the identity left out) under which ``shoe``
    holds as many cards of each rank and suit, and which map every set of suits ``walk``'s wagers
    name (in a condition, or through a feature that reads given suits: a pair's colour, nines' letters)
    to itself: such a renaming changes no wager's hits, so the walk may carry a state and its renamed
    image as one. None where the shoe's suits are unknown."""
    if shoe.card_counts is None:
        return ()
    counts = shoe.card_counts
    return tuple(p for p in _kept_renamings(walk)
                 if all(counts[i] == counts[j] for i, j in enumerate(_renaming_index(p))))


def _kept_renamings(walk: _Walk) -> tuple[tuple[str, ...], ...]:
    """The renamings of the suits (the identity left out) that change none of ``walk``'s wagers' hits on any
    round, whatever the shoe (:func:`_symmetries`: those a shoe also keeps). A group: a shoe and its renamed
    image under one of them have the same counts per outcome."""
    if not walk.wagers:
        return ()
    named: list[set[str]] = []
    for w in walk.wagers:
        kept = _renamings_kept(w)                       # proven: a renaming within its blocks changes no hit
        named += [set(b) for b in kept.split("|")] if kept is not None else [set(t) & set(_SUITS) for t in w.texts]
    named += [set(x) for w in walk.wagers for f in w.features for x in SUITS_TOLD_APART.get(f, ())]
    out = []
    for p in itertools.permutations(_SUITS):
        names = dict(zip(_SUITS, p))
        if p != _SUITS and all({names[x] for x in n} == n for n in named) and all(t.keeps(names) for t in walk.trackers):
            out.append(p)
    return tuple(out)


@functools.cache
def _present_classes(specs: tuple[Spec | None, ...], present: tuple[bool, ...]) -> tuple[bool, ...]:
    """Per class of ``specs``, whether any of its card identities is ``present``."""
    part = _partition(specs)
    out = [False] * len(part.labels)
    for i, here in enumerate(present):
        out[part.of[i]] |= here
    return tuple(out)


def _present(shoe: Shoe) -> tuple[bool, ...]:
    """Per card identity, whether the shoe holds one (by rank where its suits are unknown)."""
    if shoe.card_counts is not None:
        return tuple(n > 0 for n in shoe.card_counts)
    return tuple(shoe.rank_counts[i // 4] > 0 for i in range(52))


def _unequal_suits(walk: _Walk, shoe: Shoe | Counts) -> str:
    """Why a walk that reads suits may grow past its limit on ``shoe`` where it would not on a full shoe: its suits
    hold different numbers of cards, so fewer renamings of them leave it as it is (:func:`_symmetries`); else ''."""
    if not isinstance(shoe, Shoe) or shoe.card_counts is None:
        return ""
    here, full = len(_symmetries(walk, shoe)) + 1, len(_symmetries(walk, Shoe.decks(1))) + 1   # the identity too
    if here >= full:
        return ""
    return (f" (this shoe holds its suits in unequal numbers, so the walk carries {here} renaming"
            f"{'s' if here > 1 else ''} of the suits as one, where it carries {full} on a full shoe; where "
            "same_suit or same_colour says what the wager asks, read it instead: the tables count it on any shoe)")


def _bounded_automaton(walk: _Walk, shoe: Shoe, what: str,
                       symmetries: tuple[tuple[str, ...], ...] | None = None) -> _Automaton:
    """:func:`_automaton` for ``shoe`` (``symmetries``: its :func:`_symmetries`, where the caller has them), a
    refusal at its limit saying where the shoe's unequal suits are why."""
    try:
        return _automaton(walk, _present(shoe), what, _symmetries(walk, shoe) if symmetries is None else symmetries)
    except TooLarge as exc:
        raise TooLarge(f"{exc}{_unequal_suits(walk, shoe)}") from None


def _walk_kernels(size: int) -> Any:
    """The compiled kernels where they are built and a shoe of ``size`` cards keeps every count of the
    walk below 2^127 (size^6 < 2^127: up to 2,190,000 cards); else None, and the pure walk counts."""
    core = native.kernels()
    return core if core is not None and size**CARDS_PER_ROUND < 2**127 else None


def _compiled_leaves(core: Any, walk: _Walk, shoe: Shoe | Counts, what: str
                     ) -> dict[tuple[Key, tuple[Any, ...]], int]:
    """Counts per (what ``walk``'s wagers read of the final state, the final summaries) of the rounds
    of ``shoe`` (or, for trackers that read point values only, of these cards per point value), by
    the compiled walk; the invariant (they add up to the shoe's sequences) checked."""
    if isinstance(shoe, Shoe):
        present = _present(shoe)
    else:                                                 # cards per class of the start: value classes
        of = _partition(walk._specs(tuple(t.start for t in walk.trackers))).of
        present = tuple(shoe[of[i]] > 0 for i in range(52))
    auto = (_bounded_automaton(walk, shoe, what or "a wager") if isinstance(shoe, Shoe)
            else _automaton(walk, present, what or "a wager"))
    rounds = _round_states()
    if isinstance(shoe, Shoe) and shoe.card_counts is not None:     # per (node, class), by one sum
        counts = np.ascontiguousarray(auto.class_counts(np.array(shoe.card_counts)))
        size = shoe.size
    else:
        per_specs: dict[tuple[Spec | None, ...], Counts] = {}
        listed: list[int] = []
        for sp in auto.specs:
            if sp not in per_specs:
                per_specs[sp] = shoe if not isinstance(shoe, Shoe) else _root_counts(shoe, sp, what)
            listed.extend(per_specs[sp])
        counts, size = np.array(listed, dtype=np.int64), sum(per_specs[auto.specs[0]])
    if len(counts) != len(auto.class_value):
        raise ExactOddsError(f"internal: the compiled walk of {what or 'a wager'} was given the wrong cards")
    try:
        leaves = core.walk(size, auto.node_offset, auto.class_value, counts,
                           auto.trans_offset, auto.trans_next, auto.trans_merge, auto.merges, rounds.position,
                           rounds.cards, rounds.next, rounds.over, WALK_STATES_LIMIT)
    except MemoryError:
        raise TooLarge(f"the walk of {what or 'a wager'} would hold more than {WALK_STATES_LIMIT:,} states "
                       f"after one card (about {bounds._gb(WALK_STATES_LIMIT * 384)} at the limit, which the walk stops before "
                       "reaching): refused; read fewer "
                       f"cards' ranks or suits apart{_unequal_suits(walk, shoe)}") from None
    except (IndexError, ValueError, OverflowError) as exc:     # a malformed automaton: a defect, one line
        raise InconsistentCounts(f"internal: the compiled walk of {what or 'a wager'} failed ({exc}): a defect of "
                                 "exactodds, please report it") from None
    out: defaultdict[tuple[Key, tuple[Any, ...]], int] = defaultdict(int)
    for state, node, n in leaves:
        out[(walk._point(rounds.states[state]), auto.summaries[node])] += n
    total = sum(out.values())
    if total != math.perm(size, CARDS_PER_ROUND):
        raise InconsistentCounts(f"internal: the compiled walk of {what or 'a wager'} counted {total} rounds, not "
                                 f"the shoe's {math.perm(size, CARDS_PER_ROUND)}: a defect of exactodds, please report it")
    return dict(out)


# -- many shoes at once: the walk made once, shoe-free, and evaluated per shoe in the compiled core ------
#
# Exposure, effects of removal and the live page ask for many shoes that differ by a few cards. The states
# the compiled walk reaches, and the steps between them, depend on the shoes only through which classes of
# cards some shoe holds: walked once for the batch (``walk_program`` in the core, every state numbered and
# every step kept), each shoe's counts are one pass over the steps (``walk_many``: the ways of a state times
# the cards of the class left), where a walk of its own would hash every state again. Both the program and
# the walk it replays are the same automaton's, so the counts are the walk's, shoe by shoe.

#: The most steps a program for many shoes may hold (16 bytes each: 320 MB at the limit); past it, or without
#: the compiled core, each shoe is walked on its own.
PROGRAM_STEPS_LIMIT = 20_000_000


def outcome_counts_many(wager: Wager, paytable: Paytable, shoes: Sequence[Shoe]) -> list[dict[int, int]]:
    """For each shoe, what :meth:`WalkDistribution.outcome_counts` gives: ordered 6-card sequences per outcome
    index of ``wager`` (-1 a loss), all the shoes counted by one program of the walk where the compiled core is
    built and every shoe's suits are known (else shoe by shoe).

    >>> from exactodds.wagers import load_catalogue
    >>> pp = load_catalogue()["player-pair"]
    >>> shoes = [Shoe.decks(1), Shoe.decks(1).remove("As", "Ah")]
    >>> outcome_counts_many(pp, pp.paytable("standard"), shoes) == [WalkDistribution(s).outcome_counts(pp, pp.paytable("standard")) for s in shoes]
    True
    """
    shoes = list(shoes)
    core = native.kernels()
    what = f"wager {wager.id!r} ({cited(wager.section)})"
    if (core is None or not shoes or any(s.card_counts is None for s in shoes)
            or _walk_kernels(max(s.size for s in shoes)) is None):
        return _each_walked(wager, paytable, shoes, what)
    short = _one_card_short(shoes)
    if short is not None:                         # effects of removal: one walk of the shoe they are short of
        burnt = _counts_one_short(wager, paytable, short[0], {c for c in short[1] if c is not None}, what)
        if burnt is not None:
            return [dict(burnt[0] if c is None else burnt[1][c]) for c in short[1]]
    run = _Walk(_wager_trackers(wager), [wager])
    kept = _kept_renamings(run)
    images = [np.array(_renaming_index(p)) for p in kept]
    # a shoe and its image under a renaming the wager keeps count alike: one shoe of each orbit is walked
    first: dict[bytes, int] = {}
    orbit = []
    for i, shoe in enumerate(shoes):
        row = np.array(shoe.card_counts, dtype=np.int64)
        least = min([row.tobytes(), *(row[m].tobytes() for m in images)])
        orbit.append(first.setdefault(least, i))
    walked = sorted(set(orbit))
    # the shoes walked, by the renamings each keeps (its symmetries): a program per group, so that a batch of shoes
    # that keep more (each less one card of one suit, as effects of removal ask) is not walked with the fewest
    by: dict[tuple[tuple[str, ...], ...], list[int]] = {}
    for i in walked:
        row = np.array(shoes[i].card_counts, dtype=np.int64)
        by.setdefault(tuple(p for p, m in zip(kept, images) if np.array_equal(row, row[m])), []).append(i)
    groups = sorted(by.items(), key=lambda g: -len(g[1]))
    merged: list[tuple[tuple[tuple[str, ...], ...], list[int]]] = []
    for symmetries, members in groups:         # a small group joins a larger one whose renamings it keeps too
        into = next((g for g in merged if len(members) < MANY_GROUP and set(g[0]) <= set(symmetries)), None)
        if into is None:
            merged.append((symmetries, list(members)))
        else:
            into[1].extend(members)
    found: dict[int, dict[int, int]] = {}
    with budget.units(f"the walk of {what} for {len(shoes):,} shoes", len(walked), unit="shoe walked",
                      instead="fewer shoes", fits=True) as timed:
        for symmetries, members in merged:
            members.sort()
            found.update(zip(members, _many_by_program(run, wager, paytable, [shoes[i] for i in members],
                                                       symmetries, what)))
            timed.done(len(members))
    return [dict(found[k]) for k in orbit]


def _each_walked(wager: Wager, paytable: Paytable, shoes: Sequence[Shoe], what: str) -> list[dict[int, int]]:
    """:func:`outcome_counts_many` shoe by shoe, each walked on its own (timed against the budget in force)."""
    out = []
    with budget.units(f"the walk of {what} for {len(shoes):,} shoes, each on its own", len(shoes), unit="shoe",
                      instead="fewer shoes", fits=True) as timed:
        for s in shoes:
            out.append(WalkDistribution(s).outcome_counts(wager, paytable))
            timed.done()
    return out


#: The fewest shoes :func:`outcome_counts_many` walks by one program of their own renamings (fewer join a group
#: that keeps fewer).
MANY_GROUP = 8


# -- shoes one card short of one shoe: one walk of that shoe after a burn card ----------------------------------
#
# Effects of removal ask for a shoe less each card in turn. A depleted shoe keeps fewer renamings of the suits than
# the full one, so a walk of its own carries more states (a wager that reads six ranks beside six suits is refused
# one card short where the full shoe walks in 20 s). Draw a burn card first, then the round: of the 7-card
# sequences whose burn card is a copy of c and whose next six produce outcome o there are n_c N(o; shoe - c). The
# walk reads the shoe through classes of cards (the coarsest its conditions need), so every card of one class of
# its start leaves the same counts, and so does every card of a class a renaming it carries as one makes of it:
# one walk of the shoe, the burn card's class kept (renamed with the state), counts every shoe one card short.

def _one_card_short(shoes: Sequence[Shoe]) -> tuple[Shoe, list[int | None]] | None:
    """(the shoe whose cards are the most of each identity among ``shoes``, per shoe the identity it is one card
    short of it or None where it is that shoe), where every shoe is it or one card short of it and at least two
    are short; else None."""
    rows = np.array([s.card_counts for s in shoes], dtype=np.int64)
    top = rows.max(axis=0)
    short = top - rows
    missing = short.sum(axis=1)
    if missing.max() > 1 or int(missing.sum()) < 2:
        return None
    base = Shoe._from_cards(tuple(int(x) for x in top), shoes[int(np.argmin(missing))].label)
    return base, [int(np.argmax(row)) if m else None for row, m in zip(short, missing.tolist())]


def _counts_one_short(wager: Wager, paytable: Paytable, shoe: Shoe, wanted: Iterable[int], what: str
                      ) -> tuple[dict[int, int], dict[int, dict[int, int]]] | None:
    """(what :meth:`WalkDistribution.outcome_counts` gives for ``shoe``, and per identity of ``wanted`` it holds
    the same for the shoe one card of it short), by one compiled walk of ``shoe`` after a burn card per label
    (see above); None where the compiled core is not built, the shoe is too small or too large (N^7 < 2^127),
    or the walk would pass its limit (each shoe walked on its own then says what fits)."""
    core = native.kernels()
    cards = np.array(shoe.card_counts, dtype=np.int64)
    if core is None or shoe.size < CARDS_PER_ROUND + 1 or shoe.size ** (CARDS_PER_ROUND + 1) >= 2 ** 127:
        return None
    run = _Walk(_wager_trackers(wager), [wager])
    symmetries = _symmetries(run, shoe)
    auto = _bounded_automaton(run, shoe, what, symmetries)
    start = _partition(auto.specs[0]).of                  # each identity's class at the start
    label = list(range(int(auto.node_offset[1])))
    for p in symmetries:                                  # a class and its renamed images: one label
        for i, j in enumerate(_renaming_index(p)):
            x, y = label[start[i]], label[start[j]]
            if x != y:
                label = [min(x, y) if z in (x, y) else z for z in label]
    labels = np.unique(label, return_inverse=True)[1].astype(np.int64)
    if labels.max() > 255:
        return None
    held = np.bincount(labels[np.array(start)], weights=cards, minlength=int(labels.max()) + 1).astype(np.int64)
    counts = np.ascontiguousarray(auto.class_counts(cards))
    rounds = _round_states()
    asked = sorted({int(labels[start[c]]) for c in wanted if cards[c] > 0})
    every = set(asked) == set(np.flatnonzero(held).tolist())
    leaves = []
    with budget.units(f"the walk of {what} after a burn card", len(asked), unit="walk") as timed:
        for k in asked:                                   # one label at a time: its states, not all labels'
            try:
                leaves += core.walk_removals(shoe.size, auto.node_offset, auto.class_value, counts, auto.trans_offset,
                                             auto.trans_next, auto.trans_merge, auto.merges, rounds.position,
                                             rounds.cards, rounds.next, rounds.over,
                                             np.where(labels == k, labels, -1), WALK_STATES_LIMIT)
            except MemoryError:
                return None
            except (IndexError, ValueError, OverflowError) as exc:     # a malformed automaton: a defect, one line
                raise InconsistentCounts(f"internal: the walk of {what} after a burn card failed ({exc}): a defect "
                                         "of exactodds, please report it") from None
            timed.done()
    keys = {(state, node): (run._point(rounds.states[state]), auto.summaries[node]) for state, node, _, _ in leaves}
    run._settle(keys.values())
    standing = any(isinstance(t, _Joint) for t in run.trackers)
    index = {o.id: j for j, o in enumerate(wager.outcomes)}
    paid: dict[tuple[int, ...], int] = {}
    burnt: defaultdict[int, defaultdict[int, int]] = defaultdict(lambda: defaultdict(int))
    for state, node, k, n in leaves:
        hits = run._leaves[keys[(state, node)]]
        if hits not in paid:
            oid = wager.settle_row(run.rows[hits], paytable, standing=standing)
            paid[hits] = -1 if oid is None else index[oid]
        burnt[k][paid[hits]] += n
    fewer = math.perm(shoe.size - 1, CARDS_PER_ROUND)
    by_label: dict[int, dict[int, int]] = {}
    for k in asked:
        out = {}
        for o, n in burnt[k].items():
            out[o], rest = divmod(n, int(held[k]))
            if rest:
                raise InconsistentCounts(f"internal: the walk of {what} after a burn card did not divide exactly: a "
                                         "defect of exactodds, please report it")
        if sum(out.values()) != fewer:                    # an invariant, per label of the burn card
            raise InconsistentCounts(f"internal: the walk of {what} after a burn card counted {sum(out.values())} "
                                     f"rounds, not the shoe's {fewer}: a defect of exactodds, please report it")
        by_label[k] = {o: n for o, n in out.items() if n}
    if every:                                     # the burn card first or after the six: N(o; shoe) (N - 6)
        full: dict[int, int] = {}
        for k in asked:
            for o, n in burnt[k].items():
                full[o] = full.get(o, 0) + n
        for o, n in full.items():
            full[o], rest = divmod(n, shoe.size - CARDS_PER_ROUND)
            if rest:
                raise InconsistentCounts(f"internal: the walk of {what} after a burn card did not divide exactly: "
                                         "a defect of exactodds, please report it")
        full = {o: n for o, n in full.items() if n}
    else:
        full = WalkDistribution(shoe).outcome_counts(wager, paytable)
    if sum(full.values()) != shoe.sequences:
        raise InconsistentCounts(f"internal: the walk of {what} counted {sum(full.values())} rounds, not the shoe's "
                                 f"{shoe.sequences}: a defect of exactodds, please report it")
    return full, {c: by_label[int(labels[start[c]])] for c in wanted if cards[c] > 0}


def _many_by_program(run: _Walk, wager: Wager, paytable: Paytable, shoes: Sequence[Shoe],
                     symmetries: tuple[tuple[str, ...], ...], what: str) -> list[dict[int, int]]:
    """:func:`outcome_counts_many` of ``shoes``, which all keep the renamings ``symmetries``: one program."""
    core = native.kernels()
    assert core is not None                               # the caller walks shoe by shoe without it
    cards = np.array([s.card_counts for s in shoes], dtype=np.int64)
    present = tuple(bool(x) for x in np.any(cards, axis=0).tolist())
    try:
        auto = _automaton(run, present, what, symmetries)
    except TooLarge as exc:
        raise TooLarge(f"{exc}{_unequal_suits(run, shoes[0])}") from None
    counts = np.ascontiguousarray(auto.class_counts(cards))
    most = np.ascontiguousarray(counts.max(axis=0))
    key = (id(wager), id(paytable), present, symmetries, most.tobytes())    # the pair kept with it: ids not reused
    cached = _PROGRAMS.get(key)
    if cached is None or cached[0] is not wager or cached[1] is not paytable:
        try:
            cached = (wager, paytable, *_program(run, wager, paytable, auto, most))
        except MemoryError:                               # too large a program: each shoe walked on its own
            return _each_walked(wager, paytable, shoes, what)
        _PROGRAMS[key] = cached
        while len(_PROGRAMS) > _PROGRAMS_KEPT:
            _PROGRAMS.pop(next(iter(_PROGRAMS)))
    made, columns = cached[2], cached[3]
    sizes = cards.sum(axis=1)
    try:
        found = core.walk_many(made.states, *made.edges, np.ascontiguousarray(made.leaf_cards, dtype=np.int64),
                               np.ascontiguousarray(made.leaf_column, dtype=np.int64), len(columns),
                               made.counts(counts), np.ascontiguousarray(sizes))
    except (IndexError, ValueError, OverflowError) as exc:     # a malformed program: a defect, one line
        raise InconsistentCounts(f"internal: the walk of {what} for many shoes failed ({exc}): a defect of "
                                 "exactodds, please report it") from None
    out = []
    for shoe, row in zip(shoes, found):
        if sum(row) != shoe.sequences:                    # an invariant of the counting, shoe by shoe
            raise InconsistentCounts(f"internal: the walk of {what} for many shoes counted {sum(row)} rounds, not "
                                     f"the shoe's {shoe.sequences}: a defect of exactodds, please report it")
        out.append({outcome: n for outcome, n in zip(columns, row) if n})
    return out


#: The programs of :func:`_program` kept (the last few: a study's batches, each led by a full shoe, share one).
_PROGRAMS: dict[tuple[Any, ...], tuple[Wager, Paytable, program.Program, list[int]]] = {}
_PROGRAMS_KEPT = 2


def _program(run: _Walk, wager: Wager, paytable: Paytable, auto: _Automaton,
             most: np.ndarray) -> tuple[program.Program, list[int]]:
    """The program of the walk of ``wager`` for shoes holding at most ``most`` cards of each class of ``auto``
    (:func:`exactodds.engine.program.gathered`), and the outcome (-1 a loss) each of its columns pays.
    MemoryError past the bounds of a program."""
    core = native.kernels()
    assert core is not None                               # its caller walks shoe by shoe without it
    rounds = _round_states()
    n_states, *steps, leaf_bytes = core.walk_program(
        auto.node_offset, auto.class_value, most, auto.trans_offset, auto.trans_next, auto.trans_merge, auto.merges,
        rounds.position, rounds.cards, rounds.next, rounds.over, WALK_STATES_LIMIT, PROGRAM_STEPS_LIMIT)
    leaf_keys = np.frombuffer(leaf_bytes, dtype=np.int64).reshape(-1, 2)
    keys = [(run._point(rounds.states[state]), auto.summaries[node]) for state, node in leaf_keys.tolist()]
    run._settle(keys)
    standing = any(isinstance(t, _Joint) for t in run.trackers)
    index = {o.id: j for j, o in enumerate(wager.outcomes)}
    paid: dict[tuple[int, ...], int] = {}
    for key in keys:
        hits = run._leaves[key]
        if hits not in paid:
            oid = wager.settle_row(run.rows[hits], paytable, standing=standing)
            paid[hits] = -1 if oid is None else index[oid]
    columns = sorted(set(paid.values()))
    column = {outcome: j for j, outcome in enumerate(columns)}
    leaf_column = np.array([column[paid[run._leaves[key]]] for key in keys], dtype=np.int64)
    leaf_cards = rounds.cards[leaf_keys[:, 0]] if len(keys) else np.zeros(0, dtype=np.int64)
    made = program.gathered(n_states, tuple(np.frombuffer(b, dtype=np.int32) for b in steps),  # type: ignore[arg-type]
                            leaf_cards, leaf_column, len(most))
    return made, columns
