"""Every value-level round of Minibaccarat, built once from the drawing rules.

The drawing rules read point values only, so a round is enumerated over the
ten value classes (A=1, 2–9, and 0 for 10/J/Q/K). Its shape — which value
sequences are rounds, and how many cards each uses — does not depend on the
shoe; it is built once from :mod:`exactodds.game.rules` by walking the deal
(P1, B1, P2, B2, the Player's third card, the Banker's third card) level by
level, every partial round of a level held in one NumPy array. There are
339,400 value-level rounds.

A round's weight in a shoe is the number of ordered 6-card sequences that
produce it (the published convention): a product of falling factorials, one
per value class, times ``(N-k)(N-k-1)...(N-5)`` for the cards it leaves
unread. :func:`round_weights` computes it round by round — six gathers from a
76-entry factor vector and five multiplies per round — which is the plain
per-round reference that the multiset tables of :mod:`exactodds.engine.multiset`
beat, and a second count the tests compare them with.

>>> from exactodds.game.shoe import Shoe
>>> len(round_table()), int(round_weights(Shoe.decks(8)).sum())
(339400, 4998398275503360)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exactodds.errors import InconsistentCounts
from exactodds.game.rules import BANKER_DRAW_MATRIX, PLAYER_STOOD
from exactodds.game.shoe import CARDS_PER_ROUND, Shoe, int64_safe

__all__ = ["RoundTable", "round_table", "round_weights", "slot_values", "POINT_NAMES"]

#: The point-level features of a round (see :mod:`exactodds.wagers.outcomes`), in key order.
POINT_NAMES = ("player", "banker", "player_cards", "banker_cards")

_MAX_COPIES = CARDS_PER_ROUND + 1     # factor slots per value class
_TAIL = 10 * _MAX_COPIES             # first slot of the "unread card" factors


@dataclass(frozen=True, eq=False)
class RoundTable:
    """Every value-level round, in one set of parallel arrays (shoe-independent).

    ``order[i]`` holds round i's values in the order dealt, -1 past the last
    card; ``player_third`` / ``banker_third`` are -1 when the hand stood.
    """

    order: np.ndarray
    player_total: np.ndarray
    banker_total: np.ndarray
    player_cards: np.ndarray
    banker_cards: np.ndarray
    player_third: np.ndarray
    banker_third: np.ndarray
    gather: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.order)

    @property
    def cards_used(self) -> np.ndarray:
        return self.player_cards + self.banker_cards


@functools.cache
def round_table() -> RoundTable:
    """Build the table of all value-level rounds (once per process)."""
    draw = np.array(BANKER_DRAW_MATRIX + ((False,) * 11,) * 2, dtype=bool)  # rows 8, 9: natural
    p1, b1, p2, b2 = (a.ravel() for a in np.indices((10, 10, 10, 10), dtype=np.int8))
    pt = (p1 + p2) % 10
    bt = (b1 + b2) % 10
    natural = (pt >= 8) | (bt >= 8)                               # §627a.10(a)
    p_draws = ~natural & (pt < 6)                                 # §627a.10(b)
    p_stays = ~natural & ~p_draws
    b_draws_alone = p_stays & draw[bt, PLAYER_STOOD]              # §627a.10(c)(1)

    none = np.full(10_000, -1, dtype=np.int8)
    digits = np.arange(10, dtype=np.int8)

    groups: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []   # (rows, x, y)
    stand = natural | (p_stays & ~b_draws_alone)
    rows = np.flatnonzero(stand)
    groups.append((rows, none[rows], none[rows]))
    rows = np.repeat(np.flatnonzero(b_draws_alone), 10)
    groups.append((rows, none[rows], np.tile(digits, len(rows) // 10)))
    rows = np.repeat(np.flatnonzero(p_draws), 10)
    x = np.tile(digits, len(rows) // 10)
    b_draws = draw[bt[rows], x]                                   # §627a.10(c)(2)
    groups.append((rows[~b_draws], x[~b_draws], none[rows[~b_draws]]))
    rows2 = np.repeat(rows[b_draws], 10)
    groups.append((rows2, np.repeat(x[b_draws], 10), np.tile(digits, len(rows2) // 10)))

    rows = np.concatenate([g[0] for g in groups])
    px = np.concatenate([g[1] for g in groups])
    by = np.concatenate([g[2] for g in groups])
    order = np.full((len(rows), CARDS_PER_ROUND), -1, dtype=np.int8)
    order[:, 0], order[:, 1], order[:, 2], order[:, 3] = p1[rows], b1[rows], p2[rows], b2[rows]
    has_px = px >= 0
    order[:, 4] = np.where(has_px, px, by)
    order[:, 5] = np.where(has_px, by, -1)

    player_total = ((p1[rows] + p2[rows] + np.maximum(px, 0)) % 10).astype(np.int8)
    banker_total = ((b1[rows] + b2[rows] + np.maximum(by, 0)) % 10).astype(np.int8)
    player_cards = (2 + has_px).astype(np.int8)
    banker_cards = (2 + (by >= 0)).astype(np.int8)

    gather = np.empty((CARDS_PER_ROUND, len(rows)), dtype=np.intp)
    for j in range(CARDS_PER_ROUND):
        v = order[:, j].astype(np.intp)
        copies_before = np.zeros(len(rows), dtype=np.intp)
        for i in range(j):
            copies_before += order[:, i] == order[:, j]
        gather[j] = np.where(v >= 0, v * _MAX_COPIES + copies_before, _TAIL + j)

    for a in (order, player_total, banker_total, player_cards, banker_cards, px, by, gather):
        a.flags.writeable = False
    return RoundTable(
        order=order,
        player_total=player_total,
        banker_total=banker_total,
        player_cards=player_cards,
        banker_cards=banker_cards,
        player_third=px,
        banker_third=by,
        gather=gather,
    )


def _factors(value_counts: tuple[int, ...], size: int, dtype: Any) -> np.ndarray:
    """Factor vector: slot ``v*7+o`` holds ``c_v - o``; slot ``70+j`` holds ``N - j``."""
    f = np.empty(_TAIL + CARDS_PER_ROUND, dtype=dtype)
    for v, c in enumerate(value_counts):
        for o in range(_MAX_COPIES):
            f[v * _MAX_COPIES + o] = c - o
    for j in range(CARDS_PER_ROUND):
        f[_TAIL + j] = size - j
    return f



@functools.cache
def slot_values() -> np.ndarray:
    """Every value-level round as ``(n, 6)`` point values in :data:`~exactodds.wagers.outcomes.SLOTS`
    order (-1 where a hand has no third card)."""
    t = round_table()
    out = np.stack([t.order[:, 0], t.order[:, 2], t.player_third,
                    t.order[:, 1], t.order[:, 3], t.banker_third], axis=1).astype(np.int8)
    out.flags.writeable = False
    return out


def round_weights(shoe: Shoe) -> np.ndarray:
    """Each value-level round's weight in ``shoe``, round by round (six gathers per round)."""
    table = round_table()
    dtype: Any = np.int64 if int64_safe(shoe.size) else object
    f = _factors(shoe.value_counts, shoe.size, dtype)
    w = f[table.gather[0]]
    for j in range(1, CARDS_PER_ROUND):
        w = w * f[table.gather[j]]
    w.flags.writeable = False
    total = int(w.sum())
    if total != shoe.sequences:     # an invariant of the counting, never of the input
        raise InconsistentCounts(f"round weights add to {total}, not {shoe.sequences}")
    return w
