"""Rounds as arrays of cards: playing, checking and describing many rounds at once.

A batch of ``n`` rounds is two ``(n, 3)`` integer arrays of card indices
(:attr:`exactodds.game.cards.Card.index`, -1 where a hand has no third card). The
simulator deals such batches and check-sim reads them; both settle wagers by
evaluating the catalogue's conditions on :func:`features`, the same feature
names the exact tables use.

>>> from exactodds.game.cards import Card
>>> p, b = deal_from(np.array([[Card.parse(c).index for c in ("Ks", "2h", "2d", "3c", "5s", "7d")]]))
>>> [str(Card.from_index(int(i))) for i in p[0] if i >= 0], [str(Card.from_index(int(i))) for i in b[0] if i >= 0]
(['K♠', '2♦', '5♠'], ['2♥', '3♣', '7♦'])
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from exactodds.analyses.pricing import assign_outcomes, table_signature
from exactodds.engine.columns import identity_columns, value_columns
from exactodds.engine.identity import _all_attributes
from exactodds.engine.multiset import codes
from exactodds.game.cards import Card
from exactodds.game.rules import BANKER_DRAW_MATRIX, PLAYER_STOOD
from exactodds.wagers.outcomes import DERIVED, KNOWN_FEATURES, POINT_FEATURES, VALUE_LEVEL

__all__ = ["POINTS", "deal_from", "window_draws", "invalid_rounds", "features", "settle_rounds", "settle_many",
           "round_keys", "slot_arrays", "settle_iter"]

#: Point value of each card index 0-51 (§627a.6(a)).
POINTS = np.array([Card.from_index(i).points for i in range(52)], dtype=np.int8)
_RANK = np.arange(52) // 4                       # 0 = ace ... 12 = king
_SUIT = np.arange(52) % 4                        # s h d c
_DRAW = np.array(BANKER_DRAW_MATRIX + ((False,) * 11,) * 2, dtype=bool)


def deal_from(cards: np.ndarray, *, draw_table: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Play rounds off ``(n, 6)`` card indices in shoe order; returns (player, banker) ``(n, 3)``."""
    table = _DRAW if draw_table is None else draw_table
    v = POINTS[cards]
    pt = (v[:, 0] + v[:, 2]) % 10
    bt = (v[:, 1] + v[:, 3]) % 10
    natural = (pt >= 8) | (bt >= 8)
    p_draws = ~natural & (pt < 6)
    column = np.where(p_draws, v[:, 4], PLAYER_STOOD)
    b_draws = ~natural & table[bt, column]
    n = len(cards)
    player = np.full((n, 3), -1, dtype=np.int16)
    banker = np.full((n, 3), -1, dtype=np.int16)
    player[:, 0], player[:, 1] = cards[:, 0], cards[:, 2]
    banker[:, 0], banker[:, 1] = cards[:, 1], cards[:, 3]
    player[:, 2] = np.where(p_draws, cards[:, 4], -1)
    banker[:, 2] = np.where(b_draws, np.where(p_draws, cards[:, 5], cards[:, 4]), -1)
    return player, banker


@functools.cache
def window_draws(draw_table: bytes = _DRAW.tobytes()) -> np.ndarray:
    """Who draws, for every window of five point values ``P B P B x`` dealt in that order (as the
    code ``P·10⁴ + B·10³ + P·10² + B·10 + x``): bit 0 the Player draws, bit 1 the Banker draws.
    Built by :func:`deal_from` itself, the one copy of the drawing rules, on a card of each point
    value; ``draw_table`` is Table 1 as bytes (a simulator's fault may flip a cell).

    >>> int(window_draws()[3_2_3_3_0])        # Player 6 stands; Banker 5 draws
    2
    >>> [int(window_draws()[2_3_2_3_0 + x]) for x in (6, 9)]   # Player 4 draws; Banker 6 only on a 6 or 7
    [3, 1]
    """
    table = np.frombuffer(draw_table, dtype=bool).reshape(_DRAW.shape)
    totals = np.arange(1000)                                  # Player total, Banker total, fifth card
    value = np.stack([totals // 100, totals // 10 % 10, 0 * totals, 0 * totals, totals % 10, 0 * totals], axis=1)
    card_of_value = np.array([36] + [4 * (v - 1) for v in range(1, 10)])      # a ten, then an ace to a nine
    player, banker = deal_from(card_of_value[value], draw_table=table)       # P, B, 0, 0, x: the totals P and B
    by_totals = ((player[:, 2] >= 0) | ((banker[:, 2] >= 0) << 1)).astype(np.int8)
    p1, b1, p2, b2, x = np.arange(100_000)[:, None].T // 10 ** np.arange(4, -1, -1)[:, None] % 10
    return by_totals[(p1 + p2) % 10 * 100 + (b1 + b2) % 10 * 10 + x]


def invalid_rounds(player: np.ndarray, banker: np.ndarray) -> np.ndarray:
    """Indices of rounds whose third cards break §627a.10 (drew when it must stand, or the reverse)."""
    p3, b3 = player[:, 2], banker[:, 2]
    shoe_order = np.stack([player[:, 0], banker[:, 0], player[:, 1], banker[:, 1],
                           np.where(p3 >= 0, p3, b3), np.where(p3 >= 0, b3, -1)], axis=1)
    ep, eb = deal_from(np.maximum(shoe_order, 0))   # a missing card reads as a placeholder: the rule decides
    wrong = (ep[:, 2] >= 0) != (p3 >= 0)
    wrong |= (eb[:, 2] >= 0) != (b3 >= 0)
    return np.flatnonzero(wrong)


def slot_arrays(player: np.ndarray, banker: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point values, ranks and suits in :data:`~exactodds.wagers.outcomes.SLOTS` order (-1: no card)."""
    dealt = np.concatenate([player, banker], axis=1).astype(np.intp)
    present = dealt >= 0
    safe = np.maximum(dealt, 0)
    return (np.where(present, POINTS[safe], -1), np.where(present, _RANK[safe], -1),
            np.where(present, _SUIT[safe], -1))


def features(player: np.ndarray, banker: np.ndarray, names: frozenset[str] | None = None) -> dict[str, np.ndarray]:
    """The features a wager can read (all, or those in ``names`` and the totals), one entry per round."""
    want = KNOWN_FEATURES if names is None else names | frozenset(POINT_FEATURES) | frozenset(DERIVED)
    values, ranks, suits = slot_arrays(player, banker)
    cols = value_columns(values, sorted(want & VALUE_LEVEL))
    cols.update(identity_columns(values, ranks, suits, sorted(want - VALUE_LEVEL)))
    return cols


@functools.cache
def _hand_codes() -> np.ndarray:
    """A code per ordered pair of identities: equal codes, equal :func:`hand_attributes`."""

    seen: dict[tuple[object, ...], int] = {}
    return np.array([seen.setdefault(a, len(seen)) for a in _all_attributes()], dtype=np.int64).reshape(52, 52)


def round_keys(player: np.ndarray, banker: np.ndarray, signature: tuple[Any, ...]) -> np.ndarray:
    """An integer per round such that rounds with equal keys settle alike for every wager
    of ``signature`` (see :func:`exactodds.analyses.pricing.table_signature`)."""

    if signature[0] == "initial":
        hand = _hand_codes()
        return hand[player[:, 0], player[:, 1]] * (int(hand.max()) + 1) + hand[banker[:, 0], banker[:, 1]]
    names = signature[1] + (("same_suit", "same_colour", "same_rank") if signature[0] == "round" else ())
    cols = features(player, banker, frozenset(names))
    return codes([cols[n] for n in names])


def settle_many(pairs: Sequence[tuple[Any, Any]], player: np.ndarray, banker: np.ndarray) -> list[np.ndarray]:
    """Settle every (wager, paytable) on every round: each distinct round key is settled once."""
    return [assign for _, assign in settle_iter(pairs, player, banker)]


def settle_iter(pairs: Sequence[tuple[Any, Any]], player: np.ndarray, banker: np.ndarray
                ) -> Iterator[tuple[tuple[Any, Any], np.ndarray]]:
    """Like :func:`settle_many`, one (pair, settlement) at a time, so only one is held in memory."""

    groups: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]] = {}
    for wager, paytable in pairs:
        sig = table_signature(wager)
        if sig not in groups:
            keys = round_keys(player, banker, sig)
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            groups[sig] = (first, inverse.ravel(), features(player[first], banker[first]))
        first, inverse, cols = groups[sig]
        yield (wager, paytable), settle_rounds(wager, paytable, cols)[inverse]


def settle_rounds(wager: Any, paytable: Any, cols: Mapping[str, np.ndarray]) -> np.ndarray:
    """For each round, the index of the outcome the wager is paid as, or -1 for a loss."""

    n = len(next(iter(cols.values())))
    masks = np.stack([o.condition.mask(cols, n, wager.parameters) for o in wager.outcomes])
    return assign_outcomes(wager, paytable, masks)
