"""A second route to the same numbers: a recursive walk, memoized on the shoe.

Depth-first, one card at a time, the walk deals P1, B1, P2, B2 and any third
cards from the remaining value counts, following :mod:`exactodds.rules`. The
rest of a round depends only on the remaining counts and the round's state so
far, so each sub-result is memoized on exactly that — not on the order in
which the cards came. It uses Python integers only (no NumPy, no bound on the
shoe) and shares nothing with :mod:`exactodds.engine` but the drawing rules,
which makes agreement between the two a check of the counting in each.

Every wager is walked the same way (:class:`WalkDistribution`): the cards are
counted per class of the cards the wager tells apart, given what it has read so
far — point values for the drawing rules, a rank or suit at the positions it
reads, the first card of a hand until the second settles a pair, the suit of
the first card while every card so far shares it — and each finished round is
settled by the wager's own conditions. The classes merge as the wager reads
less, so the memo stays small.

>>> counts = walk(Shoe.decks(1))
>>> sum(n for (p, b, _, _), n in counts.items() if b > p)
6737232640
"""

from __future__ import annotations

import functools
import math
import re
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cards import Card
from .errors import ExactOddsError
from .outcomes import DERIVED, POINT_FEATURES, point_row
from .rules import banker_draws, is_natural, player_draws
from .shoe import CARDS_PER_ROUND, Shoe

if TYPE_CHECKING:
    from .wagers import Paytable, Wager

__all__ = ["walk", "WalkDistribution"]

Key = tuple[int, int, int, int]     # player total, banker total, player cards, banker cards
Counts = tuple[int, ...]


def walk(shoe: Shoe) -> dict[Key, int]:
    """Counts per (player total, banker total, player cards, banker cards)."""
    return dict(_walk(shoe.value_counts))


@functools.lru_cache(maxsize=64)
def _walk(value_counts: Counts) -> tuple[tuple[Key, int], ...]:
    """Counts per (player total, banker total, player cards, banker cards)."""
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
_PENDING = None
_BROKEN = "*"


def _points(rank: int) -> int:
    return rank if rank <= 9 else 0


def _colour(suit: str) -> str:
    return "red" if suit in ("h", "d") else "black"


def _hand_attribute(name: str, a: Identity, b: Identity) -> object:
    """One attribute of a hand's first two cards ``a`` and ``b`` (the features of
    :data:`exactodds.outcomes.INITIAL_FEATURES`, written out here card by card)."""
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
    if kind == "is":                                   # ('is', attribute, value): equal to it or not
        return _component((spec[1],), card) == spec[2]
    if kind == "hand-first":                           # a hand's first card and, for any, its second
        of, reps = _first_classes(spec[1])
        return (of[_IDENTITIES.index(card)],
                tuple(tuple(_hand_attribute(n, r, card) for n in spec[1]) for r in reps))
    if kind == "hand-second":                          # the second card, the first's class known
        rep = _first_classes(spec[1])[1][spec[2]]
        return tuple(_hand_attribute(n, rep, card) for n in spec[1])
    raise ExactOddsError(f"unknown need {spec!r}")


@dataclass(frozen=True)
class _Partition:
    labels: tuple[tuple[Hashable, ...], ...]     # per class: (point value, *what each tracker reads)
    of: tuple[int, ...]                           # the class of each identity


@functools.cache
def _partition(specs: tuple[Spec | None, ...]) -> _Partition:
    seen: dict[tuple[Hashable, ...], int] = {}
    of = []
    for card in _IDENTITIES:
        label = (_points(card[0]), *(None if s is None else _component(s, card) for s in specs))
        of.append(seen.setdefault(label, len(seen)))
    return _Partition(tuple(seen), tuple(of))


@functools.cache
def _merge(finer: tuple[Spec | None, ...], coarser: tuple[Spec | None, ...]) -> tuple[int, ...]:
    """The class of ``coarser`` each class of ``finer`` falls into (checked for every identity)."""
    a, b = _partition(finer), _partition(coarser)
    into: dict[int, int] = {}
    for i in range(52):
        if into.setdefault(a.of[i], b.of[i]) != b.of[i]:
            raise ExactOddsError(f"internal: the walk would split a class ({finer!r} -> {coarser!r})")
    return tuple(into[k] for k in range(len(a.labels)))


class _Tracker:
    """What a wager reads of the cards as they come: a summary, its need, its features."""

    start: Hashable = _PENDING

    def need(self, s: Any) -> Spec | None:
        return None

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        return s

    def done(self, s: Any) -> bool:
        """Whether the summary can no longer change."""
        return False

    def features(self, s: Any, row: dict[str, object]) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class _Card(_Tracker):
    """The value, rank or suit of the card at one position (k: 0-2 in the hand)."""

    hand: str
    k: int
    attr: str

    def need(self, s: Any) -> Spec | None:
        return (self.attr,) if s is _PENDING and self.attr != "value" else None

    def update(self, s: Any, seen: Any, value: int, hand: str, k: int) -> Any:
        if hand != self.hand or k != self.k:
            return s
        return value if self.attr == "value" else seen

    def done(self, s: Any) -> bool:
        return s is not _PENDING

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

    def features(self, s: Any, row: dict[str, object]) -> None:
        for name, value in zip(self.attrs, s[1]):
            row[f"{self.hand}_{name}"] = value


_HAND_ATTRS = ("pair", "suited", "royal_match", "royal_9", "king_9", "nines")
_POSITION = re.compile(r"^(player|banker)_(value|rank|suit)_([123])$")


def _trackers(features: frozenset[str]) -> tuple[_Tracker, ...]:
    """The trackers that give the features ``features`` of a round (point features come from the
    round's state)."""
    out: list[_Tracker] = []
    hand_attrs: dict[str, set[str]] = {"player": set(), "banker": set()}
    for name in sorted(features):
        if name in POINT_FEATURES or name in DERIVED:
            continue
        if m := _POSITION.match(name):
            out.append(_Card(m[1], int(m[3]) - 1, m[2]))
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
            raise ExactOddsError(f"{what} reads suits, but the shoe's suits are unknown (cards were given by "
                                 "rank only); give removed cards with their suits, e.g. 9h")
        counts[classes.pop()] += n
    return tuple(counts)


class _Frozen:
    """Stands for a summary that can no longer change, in the memo of a walk over point values."""

    def __repr__(self) -> str:
        return "frozen"


_FROZEN = _Frozen()
Result = tuple[tuple[tuple[int, ...], int], ...]


class _Walk:
    """One walk of a shoe for wagers that read the same cards: counts per tuple of each wager's
    outcome hits (a bit per outcome whose condition holds)."""

    def __init__(self, trackers: tuple[_Tracker, ...], wagers: Sequence[Wager]):
        self.trackers = trackers
        self.wagers = tuple(wagers)
        self.rows: dict[tuple[int, ...], dict[str, object]] = {}      # a round of each hit tuple
        #: whether the wagers read the totals or card counts of the hands (else one key stands for all)
        self.points = any(w.features & (frozenset(POINT_FEATURES) | frozenset(DERIVED)) for w in wagers)
        self._leaves: dict[tuple[Key, tuple[Any, ...]], tuple[int, ...]] = {}
        self._memo: dict[tuple[Counts, State, tuple[Any, ...]], Result] = {}
        self._tails: dict[tuple[Counts, State, tuple[Any, ...]], tuple[tuple[tuple[Key, tuple[Any, ...]], int], ...]] = {}
        self._moves: dict[tuple[Any, ...], tuple[int, tuple[Any, ...], tuple[int, ...] | None, int]] = {}

    def _specs(self, summary: tuple[Any, ...]) -> tuple[Spec | None, ...]:
        return tuple(t.need(s) for t, s in zip(self.trackers, summary))

    def _point(self, state: State) -> Key:
        """What the wagers read of a finished round's state."""
        pt, pn, bt, bn, _ = state
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

    def run(self, shoe: Shoe, what: str) -> dict[tuple[int, ...], int]:
        summary = tuple(t.start for t in self.trackers)
        counts = _root_counts(shoe, self._specs(summary), what)
        out: defaultdict[tuple[int, ...], int] = defaultdict(int)
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
            after = tuple(s if s is _FROZEN else t.update(s, label[j + 1], v, hand, k)
                          for j, (t, s) in enumerate(zip(self.trackers, summary)))
            then = tuple(None if s is _FROZEN else t.need(s) for t, s in zip(self.trackers, after))
            merge = _merge(specs, then) if then != specs else None
            move = self._moves[key] = (v, after, merge, len(_partition(then).labels))
        return move

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
        return result


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
        self._hits: dict[tuple[object, ...], tuple[dict[tuple[int, ...], int], int, _Walk]] = {}

    def point_counts(self) -> dict[Key, int]:
        return walk(self.shoe)

    def prepare(self, wagers: Iterable[Wager]) -> None:
        """Walk the shoe once for each group of ``wagers`` that read the same cards."""
        groups: defaultdict[tuple[_Tracker, ...], list[Wager]] = defaultdict(list)
        for w in wagers:
            key = _wager_key(w)
            if key not in self._hits and all(_wager_key(x) != key for x in groups[_trackers(w.features)]):
                groups[_trackers(w.features)].append(w)
        for trackers, members in groups.items():
            if not members:
                continue
            what = f"wager {members[0].id!r} (§{members[0].section})"
            run = _Walk(trackers, members)
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
        for h, n in hits.items():
            if h[k] not in paid:
                oid = wager.settle_row(run.rows[h], paytable)
                paid[h[k]] = -1 if oid is None else index[oid]
            settled[paid[h[k]]] = settled.get(paid[h[k]], 0) + n
        return settled
