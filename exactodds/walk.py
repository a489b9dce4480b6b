"""A second route to the same numbers: a recursive walk, memoized on the shoe.

Depth-first, one card at a time, the walk deals P1, B1, P2, B2 and any third
cards from the remaining value counts, following :mod:`exactodds.rules`. The
rest of a round depends only on the remaining counts and the round's state so
far, so each sub-result is memoized on exactly that — not on the order in
which the cards came. It uses Python integers only (no NumPy, no bound on the
shoe) and shares nothing with :mod:`exactodds.engine` but the drawing rules,
which makes agreement between the two a check of the counting in each.

A wager on the point values of single cards (``player_value_3``, the two-card
totals, ``count_0`` ...) is walked the same way, with those values carried in
the state. A wager on the ranks or suits of the four initial cards alone (a
poker hand of the first four cards, a suited two-card 9) is walked over ranks,
suits or whole cards at just the positions it reads — by exchangeability the
other cards of the round are the unread tail, whatever they are.

>>> counts = walk(Shoe.decks(1))
>>> sum(n for (p, b, _, _), n in counts.items() if b > p)
6737232640
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict

from .errors import ExactOddsError
from .outcomes import ALL_CARD_FEATURES, VALUE_LEVEL, point_row
from .rules import banker_draws, is_natural, player_draws
from .shoe import CARDS_PER_ROUND, Shoe

__all__ = ["walk"]

Key = tuple[int, int, int, int]     # player total, banker total, player cards, banker cards
Counts = tuple[int, ...]


def walk(shoe: Shoe) -> dict[Key, int]:
    """Counts per (player total, banker total, player cards, banker cards)."""
    return {(k[0], k[1], k[2], k[3]): n for k, n in _walk(shoe.value_counts, (), False)}


@functools.lru_cache(maxsize=64)
def _walk(value_counts: Counts, record: tuple[int, ...], dealt: bool) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Counts per (player total, banker total, player cards, banker cards, the values at the
    positions ``record`` (0-2 the Player's cards, 3-5 the Banker's; -1 if not dealt), and,
    with ``dealt``, how many cards of each value the round dealt)."""
    size = sum(value_counts)

    @functools.cache
    def step(counts: Counts, state: State, seen: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
        """Sequences that finish the round from ``state`` (the unread cards included)."""
        hand = _next_hand(state)
        pt, pn, bt, bn, _ = state
        if hand is None:                          # the round is over: count the unread cards
            used = pn + bn
            tail = math.perm(size - used, CARDS_PER_ROUND - used)
            spent = tuple(a - b for a, b in zip(value_counts, counts)) if dealt else ()
            return (((pt, bt, pn, bn, *seen, *spent), tail),)
        out: defaultdict[tuple[int, ...], int] = defaultdict(int)
        position = pn if hand == "player" else 3 + bn
        for v, c in enumerate(counts):
            if c == 0:
                continue
            rest = counts[:v] + (c - 1,) + counts[v + 1:]
            if hand == "player":
                nxt = ((pt + v) % 10, pn + 1, bt, bn, v if pn == 2 else -1)
            else:
                nxt = (pt, pn, (bt + v) % 10, bn + 1, state[4])
            now = tuple(v if r == position else x for r, x in zip(record, seen))
            for key, n in step(rest, nxt, now):
                out[key] += c * n
        return tuple(out.items())

    return step(value_counts, (0, 0, 0, 0, -1), (-1,) * len(record))


#: (player total, player cards, banker total, banker cards, player's third card or -1)
State = tuple[int, int, int, int, int]


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


class WalkDistribution:
    """The walk's counts behind the interface pricing reads (wagers on point values)."""

    def __init__(self, shoe: Shoe):
        self.shoe = shoe
        self.total = shoe.sequences
        self._counts = walk(shoe)

    def point_counts(self) -> dict[Key, int]:
        return self._counts

    def value_counts(self, names: tuple[str, ...]) -> dict[tuple[object, ...], int]:
        """Counts per value of the point-value features ``names`` (a tuple in ``names`` order)."""
        slots = {"player": 0, "banker": 3}
        record: set[int] = set()
        for name in names:
            hand = name.split("_")[0]
            if "_value_" in name:
                record.add(slots[hand] + int(name[-1]) - 1)
            elif name.endswith("_two_card_total"):
                record |= {slots[hand], slots[hand] + 1}
        order = tuple(sorted(record))
        dealt = any(n.startswith("count_") for n in names)
        out: defaultdict[tuple[object, ...], int] = defaultdict(int)
        for key, n in _walk(self.shoe.value_counts, order, dealt):
            pt, bt, pn, bn = key[:4]
            at = dict(zip(order, key[4:4 + len(order)]))
            row: dict[str, object] = point_row((pt, bt, pn, bn))
            for hand, first in slots.items():
                for k in range(3):
                    row[f"{hand}_value_{k + 1}"] = at.get(first + k, -1)
                if first in at and first + 1 in at:
                    row[f"{hand}_two_card_total"] = (at[first] + at[first + 1]) % 10
            for v, m in enumerate(key[4 + len(order):]):
                row[f"count_{v}"] = m
            out[tuple(row[name] for name in names)] += n
        return dict(out)

    def initial_counts(self, names: tuple[str, ...], *, limit: int = 300_000) -> dict[tuple[object, ...], int]:
        """Counts per value of ``names``, features of the four initial cards only (ranks,
        suits, their point values), by a walk over the cards at the positions they read."""
        import numpy as np

        from .columns import INITIAL_SLOTS, identity_columns, slots_read, value_columns
        from .multiset import _atom_counts, _atoms, _join

        resolution, read = "value", set()
        for name in names:
            if name.endswith("_two_card_total"):
                first = 0 if name.startswith("player") else 3
                read |= {first, first + 1}
            elif "_value_" in name:
                read.add((0 if name.startswith("player") else 3) + int(name[-1]) - 1)
            elif name in VALUE_LEVEL or name in ALL_CARD_FEATURES:
                raise ExactOddsError(f"it reads {name!r} of the whole round together with ranks or suits")
            else:
                slots, need = slots_read(name)
                read |= set(slots)
                resolution = _join(resolution, need)
        positions = sorted(read)
        if not read <= set(INITIAL_SLOTS):
            raise ExactOddsError("the walk reads ranks and suits of the four initial cards only")
        if resolution == "value":
            counts = list(self.shoe.value_counts)
            value, rank, suit = np.arange(10), np.full(10, -1), np.full(10, -1)
        else:
            counts = _atom_counts(self.shoe, resolution)
            value, rank, suit = _atoms(resolution)
        if len(counts) ** len(positions) > limit:
            raise ExactOddsError(f"{len(counts)}**{len(positions)} orderings are too many to walk")
        leaves: list[tuple[tuple[int, ...], int]] = []

        def deal(chosen: tuple[int, ...], ways: int) -> None:
            if len(chosen) == len(positions):
                leaves.append((chosen, ways))
                return
            for a, c in enumerate(counts):
                if c:
                    counts[a] -= 1
                    deal(chosen + (a,), ways * c)
                    counts[a] += 1

        deal((), 1)
        tail = math.perm(self.shoe.size - len(positions), CARDS_PER_ROUND - len(positions))
        atoms = np.array([chosen for chosen, _ in leaves], dtype=np.intp).reshape(len(leaves), len(positions))
        grid = {name: np.full((len(leaves), 6), -1, dtype=np.int64) for name in ("value", "rank", "suit")}
        for k, slot in enumerate(positions):
            for name, of in (("value", value), ("rank", rank), ("suit", suit)):
                grid[name][:, slot] = of[atoms[:, k]]
        cols = value_columns(grid["value"], names)
        cols.update(identity_columns(grid["value"], grid["rank"], grid["suit"], names))
        out: defaultdict[tuple[object, ...], int] = defaultdict(int)
        for i, (_chosen, ways) in enumerate(leaves):
            out[tuple(cols[name][i].item() for name in names)] += ways * tail
        return dict(out)
