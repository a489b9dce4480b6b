"""Feature columns of many rounds at once, from the cards in each position.

A batch of rounds is three ``(n, 6)`` integer arrays in :data:`SLOTS` order
(Player's first, second, third card, then the Banker's): point values 0-9,
ranks 0-12 (Ace ... King) and suits 0-3 (s h d c), each -1 where the position
holds no card or the attribute is not known. One definition of every feature
serves the exact tables (:mod:`exactodds.engine.multiset`, where a rank or suit is
known only where a wager reads it) and the settlement of dealt rounds
(:mod:`exactodds.simulation.rounds`, where everything is known).

>>> v = np.array([[1, 2, 5, 3, 4, -1]])            # Player A,2 draws a 5; Banker 3,4 stands
>>> c = value_columns(v, ("player", "banker", "player_two_card_total", "banker_value_3", "count_4"))
>>> {k: int(a[0]) for k, a in c.items()}
{'player': 8, 'banker': 7, 'player_two_card_total': 3, 'banker_value_3': -1, 'count_4': 1}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from exactodds.wagers.outcomes import ALL_CARD_FEATURES, DERIVED, POINT_FEATURES, SLOTS, VALUE_LEVEL

__all__ = ["value_columns", "identity_columns", "SLOT_INDEX", "INITIAL_SLOTS", "SUIT_LETTERS",
           "slots_read", "RANK_NINE", "VALUES_READ"]

#: Column of each position in the slot arrays.
SLOT_INDEX = {name: i for i, name in enumerate(SLOTS)}
#: The four initial cards (§627a.8(c)): Player 1, 2 and Banker 1, 2.
INITIAL_SLOTS = (0, 1, 3, 4)
#: Suit letters by suit code; index -1 (no card) reads ''.
SUIT_LETTERS = np.array(["s", "h", "d", "c", ""])
#: Rank code of the nine (ranks are 0 = Ace ... 12 = King).
RANK_NINE = 8
_KING, _QUEEN, _JACK = 12, 11, 10
_SUIT_SYMBOLS = "♠♥♦♣"
_KING_9 = np.array([f"K{_SUIT_SYMBOLS[k]}9{_SUIT_SYMBOLS[n]}" for k in range(4) for n in range(4)] + [""])
_HANDS = {"player": (0, 1, 2), "banker": (3, 4, 5)}


def value_columns(values: np.ndarray, names: Iterable[str]) -> dict[str, np.ndarray]:
    """The point-value features ``names`` of every row of ``values`` (``(n, 6)``, -1: no card)."""
    want = set(names)
    cols: dict[str, Any] = {}
    v = np.maximum(values, 0).astype(np.int16)
    present = values >= 0
    if want & (set(POINT_FEATURES) | set(DERIVED)):
        cols["player"] = v[:, 0:3].sum(1) % 10
        cols["banker"] = v[:, 3:6].sum(1) % 10
        cols["player_cards"] = present[:, 0:3].sum(1)
        cols["banker_cards"] = present[:, 3:6].sum(1)
        for name, (_doc, fn) in DERIVED.items():
            if name in want:
                cols[name] = np.asarray(fn(cols))
    for name in want:
        if name.startswith("count_"):
            cols[name] = (values == int(name[6:])).sum(1)
        elif "_value_" in name:
            cols[name] = values[:, SLOT_INDEX[name.replace("_value", "")]].astype(np.int16)
        elif name.endswith("_two_card_total"):
            a, b = _HANDS[name.split("_")[0]][:2]
            cols[name] = (v[:, a] + v[:, b]) % 10
    return {n: cols[n] for n in names if n in cols}


def slots_read(name: str) -> tuple[tuple[int, ...], str]:
    """The positions an identity feature reads, and the finest attribute it needs:
    'rank', 'suit' or 'card' (rank and suit).

    >>> slots_read("banker_suit_3"), slots_read("player_pair"), slots_read("nines")
    (((5,), 'suit'), ((0, 1), 'card'), ((0, 1, 3, 4), 'suit'))
    """
    if "_rank_" in name or "_suit_" in name:
        slot = SLOT_INDEX[name.replace("_rank", "").replace("_suit", "")]
        return (slot,), "rank" if "_rank_" in name else "suit"
    if name in ("nines", "nines_same_suit", "nine_of_diamonds"):
        return INITIAL_SLOTS, "suit"                   # a nine is the only card worth 9 points
    hand, _, attribute = name.partition("_")
    if hand in _HANDS and attribute in ("suited", "nines"):
        return _HANDS[hand][:2], "suit"
    if hand in _HANDS and attribute in ("pair", "royal_match", "royal_9", "king_9"):
        return _HANDS[hand][:2], "card"
    raise KeyError(name)


#: Where a feature reads a card's rank and suit only when the card has one of these point values
#: (elsewhere it reads the card's value alone): nines are the only cards worth 9; a King, Queen or
#: Jack is worth 0. Every other identity feature reads every card it looks at.
VALUES_READ: dict[str, frozenset[int]] = {
    **{n: frozenset({9}) for n in ("nines", "nines_same_suit", "nine_of_diamonds", "player_nines", "banker_nines")},
    **{f"{h}_royal_match": frozenset({0}) for h in _HANDS},
    **{f"{h}_{a}": frozenset({0, 9}) for h in _HANDS for a in ("royal_9", "king_9")},
}


def identity_columns(values: np.ndarray, ranks: np.ndarray, suits: np.ndarray,
                     names: Iterable[str]) -> dict[str, np.ndarray]:
    """The rank, suit and colour features ``names`` of every row (see the module docstring)."""
    cols: dict[str, np.ndarray] = {}
    for name in names:
        if name in VALUE_LEVEL:
            continue
        if "_rank_" in name:
            r = ranks[:, SLOT_INDEX[name.replace("_rank", "")]]
            cols[name] = np.where(r >= 0, r + 1, -1).astype(np.int16)
        elif "_suit_" in name:
            cols[name] = SUIT_LETTERS[suits[:, SLOT_INDEX[name.replace("_suit", "")]]]
        elif name in ("nines", "nines_same_suit", "nine_of_diamonds"):
            four = list(INITIAL_SLOTS)
            nine = values[:, four] == 9
            s = suits[:, four]
            count = nine.sum(1)
            if name == "nines":
                cols[name] = count
            elif name == "nine_of_diamonds":
                cols[name] = (nine & (s == 2)).sum(1)
            else:
                low = np.where(nine, s, 9).min(1)
                high = np.where(nine, s, -1).max(1)
                cols[name] = (count >= 2) & (low == high)
        elif name in ALL_CARD_FEATURES:
            present = values >= 0
            prop = {"same_suit": suits, "same_rank": ranks, "same_colour": np.isin(suits, (1, 2))}[name]
            cols[name] = ~(present & (prop != prop[:, :1])).any(1)
        else:
            hand, _, attribute = name.partition("_")
            a, b = _HANDS[hand][:2]
            cols[name] = _hand_attribute(attribute, values[:, [a, b]], ranks[:, [a, b]], suits[:, [a, b]])
    return cols


def _hand_attribute(attribute: str, v: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """One attribute of a hand's first two cards (627b.1(a), 627b.3, 631b.4, 631b.7)."""
    suited = s[:, 0] == s[:, 1]
    if attribute == "suited":
        return suited
    if attribute == "nines":
        first = np.where(v[:, 0] == 9, SUIT_LETTERS[s[:, 0]], "")
        second = np.where(v[:, 1] == 9, SUIT_LETTERS[s[:, 1]], "")
        return np.where(first <= second, np.char.add(first, second), np.char.add(second, first))
    same_rank = r[:, 0] == r[:, 1]
    if attribute == "pair":
        red = np.isin(s, (1, 2))
        kind = np.where(suited, "perfect", np.where(red[:, 0] == red[:, 1], "coloured", "mixed"))
        return np.where(same_rank, kind, "none")
    lo, hi = np.minimum(r[:, 0], r[:, 1]), np.maximum(r[:, 0], r[:, 1])
    if attribute == "royal_match":
        return suited & (lo == _QUEEN) & (hi == _KING)
    if attribute == "royal_9":
        royal = (lo == RANK_NINE) & (hi >= _JACK)
        return np.where(royal, np.where(suited, "suited", "unsuited"), "none")
    # king_9: the King's suit, then the nine's
    king_first = r[:, 0] == _KING
    king_suit = np.where(king_first, s[:, 0], s[:, 1])
    nine_suit = np.where(king_first, s[:, 1], s[:, 0])
    hit = (lo == RANK_NINE) & (hi == _KING)
    return _KING_9[np.where(hit, king_suit * 4 + nine_suit, 16)]
