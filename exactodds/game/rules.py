"""The round of Minibaccarat: §627a.6, §627a.8(c), §627a.9 and §627a.10.

Written once: the exact engine, the brute-force check and the simulator all
read the drawing rules from here.

Deal order (§627a.8(c)): cards 1 and 3 to the Player's Hand, 2 and 4 to the
Banker's Hand; any third card goes first to the Player, then to the Banker
(§627a.9(c)); no hand takes more than one (§627a.9(d)).

>>> r = play([1, 3, 2, 4, 5])       # Player A,2 draws a 5; Banker 3,4 stays on 7
>>> (r.player_total, r.banker_total, r.player_cards, r.banker_cards)
(8, 7, (1, 2, 5), (3, 4))
>>> banker_draws(5, 4)              # the worked example of §627a.10(g)
True
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import SupportsIndex, cast

from exactodds.errors import ExactOddsError

__all__ = [
    "TABLE_1",
    "point_count",
    "is_natural",
    "player_draws",
    "banker_draws",
    "Round",
    "play",
    "BANKER_DRAW_MATRIX",
    "PLAYER_STOOD",
]

#: §627a.10(c)(2)(iii) Table 1, as printed: rows are the Banker's Point Count
#: after two cards (3–6), columns the value of the Player's third card (0–9);
#: D draws, S stays (§627a.10(f)).
TABLE_1: dict[int, str] = {
    3: "D D D D D D D D S D",
    4: "S S D D D D D D S S",
    5: "S S S S D D D D S S",
    6: "S S S S S S D D S S",
}


def _point_value(v: object, what: str) -> int:
    """``v`` where it is a card's point value, a whole number from 0 to 9 (§627a.6(a)), else one line: these
    functions of the rules are exported, and -1 read as 9, 1.5 or True as a card. An int first (the brute
    force of the tests plays every deal), then NumPy's integers."""
    if type(v) is not int:
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise ExactOddsError(f"{what} must be a point value, a whole number from 0 to 9, got {v!r}")
        v = operator.index(cast(SupportsIndex, v))
    if not 0 <= v <= 9:
        raise ExactOddsError(f"{what} must be a point value, a whole number from 0 to 9, got {v!r}")
    return v


def point_count(values: Sequence[int]) -> int:
    """Point Count of a hand: the right digit of the total (§627a.6(b)).

    >>> point_count([1, 2, 9])   # §627a.6(b)(2): ace, 2 and 9 count 2
    2
    """
    total = 0
    for v in values:
        total += v if type(v) is int and 0 <= v <= 9 else _point_value(v, "a card")
    return total % 10


def is_natural(two_card_total: int) -> bool:
    """A Natural is 8 or 9 on the first two cards (§627a.1)."""
    return two_card_total >= 8


def player_draws(player_total: int) -> bool:
    """§627a.10(b): with no Natural, the Player draws on 0–5 and stays on 6–7."""
    return _point_value(player_total, "the Player's total") < 6


def _banker_draws(banker_total: int, player_third: int | None) -> bool:
    """:func:`banker_draws` of point values already checked."""
    if player_third is None:
        return banker_total <= 5
    if banker_total < 3:
        return True                                   # (c)(2)(i)
    if banker_total == 7:
        return False                                  # (c)(2)(ii)
    return TABLE_1[banker_total].split()[player_third] == "D"   # (c)(2)(iii)


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """§627a.10(c): does the Banker draw, given the Player's third card value?

    ``player_third`` is ``None`` when the Player stood (§627a.10(c)(1)).
    """
    return _banker_draws(_point_value(banker_total, "the Banker's total"),
                         None if player_third is None else _point_value(player_third, "the Player's third card"))


#: Column index meaning "the Player stood" in :data:`BANKER_DRAW_MATRIX`.
PLAYER_STOOD = 10

#: ``BANKER_DRAW_MATRIX[b][x]``: does a Banker on ``b`` (0–7, no Natural) draw
#: when the Player's third card is ``x`` (0–9) or the Player stood (10)?
BANKER_DRAW_MATRIX: tuple[tuple[bool, ...], ...] = tuple(
    tuple(banker_draws(b, None if x == PLAYER_STOOD else x) for x in range(11))
    for b in range(8)
)


@dataclass(frozen=True)
class Round:
    """The cards of one round as point values, in the order dealt to each hand."""

    player_cards: tuple[int, ...]
    banker_cards: tuple[int, ...]

    def __post_init__(self) -> None:
        for v in (*self.player_cards, *self.banker_cards):        # once: the totals below read them unchecked
            if not (type(v) is int and 0 <= v <= 9):
                _point_value(v, "a card")

    @property
    def player_total(self) -> int:
        return sum(self.player_cards) % 10

    @property
    def banker_total(self) -> int:
        return sum(self.banker_cards) % 10

    @property
    def cards_used(self) -> int:
        return len(self.player_cards) + len(self.banker_cards)

    @property
    def deal_order(self) -> tuple[int, ...]:
        """The values in the order they left the shoe (§627a.8(c), §627a.9(c))."""
        p, b = self.player_cards, self.banker_cards
        return (p[0], b[0], p[1], b[1]) + p[2:] + b[2:]


def play(values: Sequence[int]) -> Round:
    """Play a round off the front of ``values`` (point values in shoe order).

    Uses the first 4 to 6 of them, as the rules require; raises if too few.
    """
    if len(values) < 4:
        raise ExactOddsError(f"a round needs at least 4 cards, got {len(values)}")
    values = [_point_value(v, "a card") for v in values[:6]]      # checked once: the rules below take them
    p = [values[0], values[2]]
    b = [values[1], values[3]]
    nxt = 4
    pt, bt = sum(p) % 10, sum(b) % 10
    if is_natural(pt) or is_natural(bt):                      # §627a.10(a)
        return Round(tuple(p), tuple(b))
    third: int | None = None
    if pt < 6:                                                # player_draws
        if len(values) <= nxt:
            raise ExactOddsError("the round needs a fifth card")
        third = values[nxt]
        p.append(third)
        nxt += 1
    if _banker_draws(bt, third):
        if len(values) <= nxt:
            raise ExactOddsError(f"the round needs card {nxt + 1}")
        b.append(values[nxt])
    return Round(tuple(p), tuple(b))
