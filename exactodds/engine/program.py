"""The walk's program for many shoes, made smaller before any shoe is counted by it.

``walk_program`` (the compiled core) numbers every state the walk of a wager reaches and keeps every step
between two states as an edge: (from, to, the class of the card dealt, the cards of that class dealt before
it). ``walk_many`` then counts each shoe by one pass over the edges: the ways of a state are the sum over the
edges into it of the ways before times the cards of the class the shoe has left. Most of those edges end the
round, and what ends a round matters only through two numbers: the cards it dealt and the column it is paid
in. So, shoe-free and exactly:

- *a state whose every way ends in one column is decided*: its ways reach that column times the orderings
  of the cards not yet dealt, ``falling(N - cards, 6 - cards)``, whatever comes next (the published convention
  counts every ordered 6-card sequence once). Its steps are dropped, and a step into it ends the round there.
- *the steps from one state that end in the same (cards, column) are one step*: the ways times the sum over
  their classes of the cards left, the sum of the classes' counts less the sum of the cards dealt before.
  Exact, because a state that some shoe reaches at all holds no more cards of a class than that shoe has
  (``count - dealt >= 0`` for every class, so the sum of the clamped terms is the clamped sum).

A class gathered so is a new column of the shoes' counts: the sum of its classes' columns.

For Contrast (tests/suit-bets.toml) at 8 decks: 583,670 edges become 73,412 (the last card's twenty
(value, colour) classes become its two colours; a state whose colours already disagree is a loss).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The most cards a round deals (627a.9, 627a.10), and so the deepest layer of states.
_ROUND = 6


@dataclass(frozen=True)
class Program:
    """The arrays ``walk_many`` takes: states, edges (int32), and per leaf its cards and column; ``groups`` the
    classes each gathered class sums (one array per class past the automaton's ``width``)."""

    states: int
    edges: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    leaf_cards: np.ndarray
    leaf_column: np.ndarray
    width: int
    groups: tuple[np.ndarray, ...] = ()

    def counts(self, class_counts: np.ndarray) -> np.ndarray:
        """The shoes' cards per class (shoes x classes, int64), a column more per gathered class."""
        if not self.groups:
            return np.ascontiguousarray(class_counts, dtype=np.int64)
        flat = np.concatenate(self.groups)
        starts = np.cumsum([0, *(len(g) for g in self.groups[:-1])])
        sums = np.add.reduceat(class_counts[:, flat], starts, axis=1)
        return np.ascontiguousarray(np.hstack([class_counts, sums]), dtype=np.int64)


def gathered(states: int, edges: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], leaf_cards: np.ndarray,
             leaf_column: np.ndarray, width: int) -> Program:
    """The program of ``walk_program`` with its decided states ended and its last steps gathered (module doc):
    every shoe counts to the same integers by either, in fewer steps.

    >>> # three classes, one state: the first card ends the round, classes 0 and 1 in column 0: two steps
    >>> p = gathered(1, (np.array([0, 0, 0]), np.array([-1, -2, -3]), np.array([0, 1, 2]), np.array([0, 0, 0])),
    ...              np.array([1, 1, 1]), np.array([0, 0, 1]), 3)
    >>> p.states, p.edges[2].tolist(), p.groups
    (1, [3, 2], (array([0, 1]),))
    """
    frm, to, cls, dealt = (np.asarray(a, dtype=np.int64) for a in edges)
    leaf_cards = np.asarray(leaf_cards, dtype=np.int64)
    leaf_column = np.asarray(leaf_column, dtype=np.int64)
    inner = to >= 0
    into = np.where(inner, to, 0)
    leaf = np.where(inner, 0, -1 - to)
    depth = np.zeros(states, dtype=np.int64)          # cards dealt at each state: each state is in one layer
    for _ in range(_ROUND):
        depth[into[inner]] = depth[frm[inner]] + 1
    # the least and the most column each state's ways end in, the layers from the last
    lo = np.full(states, np.iinfo(np.int64).max, dtype=np.int64)
    hi = np.full(states, -1, dtype=np.int64)
    column = leaf_column[leaf] if len(leaf_column) else np.zeros(len(frm), dtype=np.int64)
    for d in range(_ROUND - 1, -1, -1):
        at = depth[frm] == d
        np.minimum.at(lo, frm[at], np.where(inner[at], lo[into[at]], column[at]))
        np.maximum.at(hi, frm[at], np.where(inner[at], hi[into[at]], column[at]))
    decided = lo == hi
    if states == 0 or not len(leaf_column) or decided[0] or hi.min() < 0:
        order = np.argsort(frm, kind="stable")      # one column from the start, or a state with no step: as made
        return Program(states, tuple(np.ascontiguousarray(a[order], dtype=np.int32)  # type: ignore[arg-type]
                                     for a in (frm, to, cls, dealt)), leaf_cards, leaf_column, width)
    alive = ~decided
    number = np.cumsum(alive) - 1                     # the states kept, in their order (layer by layer)
    kept = alive[frm]
    ends = kept & (~inner | decided[into])            # a step that ends the round, or reaches a decided state
    steps = kept & inner & ~decided[into]
    cards = np.where(inner, depth[into], leaf_cards[leaf] if len(leaf_cards) else 0)
    paid = np.where(inner, lo[into], column)
    columns = int(leaf_column.max()) + 1
    keys, end_leaf = np.unique(cards[ends] * columns + paid[ends], return_inverse=True)
    # the ending steps of one state into one (cards, column), their classes in order
    e_from, e_leaf, e_cls, e_dealt = frm[ends], end_leaf.ravel(), cls[ends], dealt[ends]
    classes = int(cls.max()) + 1
    if states * len(keys) * classes < 2**62:          # one key sorts them (every factor below int32's bound)
        order = np.argsort((e_from * len(keys) + e_leaf) * classes + e_cls, kind="stable")
    else:
        order = np.lexsort((e_cls, e_leaf, e_from))
    e_from, e_leaf, e_cls, e_dealt = e_from[order], e_leaf[order], e_cls[order], e_dealt[order]
    new = np.ones(len(e_from), dtype=bool)
    new[1:] = (e_from[1:] != e_from[:-1]) | (e_leaf[1:] != e_leaf[:-1])
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, len(e_from)))
    g_cls = e_cls[starts].copy()
    g_dealt = np.add.reduceat(e_dealt, starts) if len(starts) else e_dealt
    groups: tuple[np.ndarray, ...] = ()
    many = sizes > 1
    if many.any():
        firsts, set_of = _sets(e_cls, starts[many], sizes[many], classes)
        g_cls[many] = width + set_of
        groups = tuple(e_cls[f:f + n] for f, n in zip(starts[many][firsts].tolist(), sizes[many][firsts].tolist()))
    out_from = np.concatenate([number[frm[steps]], number[e_from[starts]]])
    out_to = np.concatenate([number[into[steps]], -1 - e_leaf[starts]])
    out_cls = np.concatenate([cls[steps], g_cls])
    out_dealt = np.concatenate([dealt[steps], g_dealt])
    order = np.argsort(out_from, kind="stable")       # every step into a state before every step out of it
    arrays = tuple(np.ascontiguousarray(a[order], dtype=np.int32) for a in (out_from, out_to, out_cls, out_dealt))
    return Program(int(alive.sum()), arrays, keys // columns, keys % columns, width, groups)  # type: ignore[arg-type]


def _sets(members: np.ndarray, starts: np.ndarray, sizes: np.ndarray, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct sets among ``members[start:start + size]`` (each in order): the index of each set's first
    run, and each run's set number. Runs are told apart by a sum of random words, and each run is then compared
    member by member with the first run of its sum: exact (a collision of sums falls back to comparing rows).

    >>> firsts, set_of = _sets(np.array([1, 2, 3, 1, 2]), np.array([0, 3]), np.array([2, 2]), 4)
    >>> firsts.tolist(), set_of.tolist()
    ([0], [0, 0])
    """
    words = _words(classes)
    with np.errstate(over="ignore"):
        running = np.concatenate([[0], np.cumsum(words[members])])
        sums = (running[starts + sizes] - running[starts]) * 64 + sizes    # unequal sizes: unequal sums
    _, firsts, set_of = np.unique(sums, return_index=True, return_inverse=True)
    set_of = set_of.ravel()
    run = np.repeat(np.arange(len(starts)), sizes)
    offset = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    at = np.repeat(starts, sizes) + offset
    if np.array_equal(sizes, sizes[firsts[set_of]]):
        first_at = np.repeat(starts[firsts[set_of]], sizes) + offset
        if np.array_equal(members[at], members[first_at]):
            return firsts, set_of
    rows = np.full((len(starts), int(sizes.max())), -1, dtype=np.int64)     # a collision: the rows themselves
    rows[run, offset] = members[at]
    _, firsts, set_of = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    return firsts, set_of.ravel()


def _words(classes: int) -> np.ndarray:
    """A random 63-bit word per class, the same in every run (a sum of them names a set of classes, almost
    surely alone: :func:`_sets` checks it)."""
    return np.random.default_rng(0).integers(0, 2**63, size=classes, dtype=np.int64)
