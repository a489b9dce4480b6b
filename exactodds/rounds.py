"""Rounds as arrays of cards: playing, checking and describing many rounds at once.

A batch of ``n`` rounds is two ``(n, 3)`` integer arrays of card indices
(:attr:`exactodds.cards.Card.index`, -1 where a hand has no third card). The
simulator deals such batches and check-sim reads them; both settle wagers by
evaluating the catalogue's conditions on :func:`features`, the same feature
names the exact tables use.

>>> from exactodds.cards import Card
>>> p, b = deal_from(np.array([[Card.parse(c).index for c in ("Ks", "2h", "2d", "3c", "5s", "7d")]]))
>>> [str(Card.from_index(int(i))) for i in p[0] if i >= 0], [str(Card.from_index(int(i))) for i in b[0] if i >= 0]
(['K♠', '2♦', '5♠'], ['2♥', '3♣', '7♦'])
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .cards import Card
from .outcomes import DERIVED, HAND_ATTRIBUTES
from .rules import BANKER_DRAW_MATRIX, PLAYER_STOOD

__all__ = ["POINTS", "deal_from", "cards_used", "invalid_rounds", "features", "settle_rounds", "settle_many",
           "round_keys"]

#: Point value of each card index 0-51 (§627a.6(a)).
POINTS = np.array([Card.from_index(i).points for i in range(52)], dtype=np.int8)
_RANK = np.arange(52) // 4                       # 0 = ace ... 12 = king
_SUIT = np.arange(52) % 4                        # s h d c
_RED = np.isin(_SUIT, [1, 2])
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


def cards_used(player: np.ndarray, banker: np.ndarray) -> np.ndarray:
    return 4 + (player[:, 2] >= 0) + (banker[:, 2] >= 0)


def invalid_rounds(player: np.ndarray, banker: np.ndarray) -> np.ndarray:
    """Indices of rounds whose third cards break §627a.10 (drew when it must stand, or the reverse)."""
    p3, b3 = player[:, 2], banker[:, 2]
    shoe_order = np.stack([player[:, 0], banker[:, 0], player[:, 1], banker[:, 1],
                           np.where(p3 >= 0, p3, b3), np.where(p3 >= 0, b3, -1)], axis=1)
    ep, eb = deal_from(np.maximum(shoe_order, 0))   # a missing card reads as a placeholder: the rule decides
    wrong = (ep[:, 2] >= 0) != (p3 >= 0)
    wrong |= (eb[:, 2] >= 0) != (b3 >= 0)
    return np.flatnonzero(wrong)


@functools.cache
def _hand_attribute_table() -> dict[str, np.ndarray]:
    """Each attribute of :data:`HAND_ATTRIBUTES` for every ordered pair (52 x 52)."""
    from .identity import _all_attributes

    attrs = _all_attributes()
    return {name: np.array([a[k] for a in attrs]).reshape(52, 52) for k, name in enumerate(HAND_ATTRIBUTES)}


def features(player: np.ndarray, banker: np.ndarray, names: frozenset[str] | None = None) -> dict[str, np.ndarray]:
    """The features a wager can read (all, or those in ``names``), one entry per round."""
    from .outcomes import KNOWN_FEATURES

    want = KNOWN_FEATURES if names is None else names
    n = len(player)
    pv = np.where(player >= 0, POINTS[np.maximum(player, 0)], 0)
    bv = np.where(banker >= 0, POINTS[np.maximum(banker, 0)], 0)
    cols: dict[str, Any] = {
        "player": pv.sum(1) % 10, "banker": bv.sum(1) % 10,
        "player_cards": 2 + (player[:, 2] >= 0), "banker_cards": 2 + (banker[:, 2] >= 0),
    }
    dealt = np.concatenate([player, banker], axis=1)
    present = dealt >= 0
    safe = np.maximum(dealt, 0)
    if any(w.startswith("count_") for w in want):
        values = np.where(present, POINTS[safe], -1).astype(np.intp)
        slots = (np.arange(n, dtype=np.intp)[:, None] * 11 + values + 1).ravel()
        counts = np.bincount(slots, minlength=n * 11).reshape(n, 11)
        for v in range(10):
            cols[f"count_{v}"] = counts[:, v + 1]
    if want & {"same_suit", "same_colour", "same_rank"}:
        first = safe[:, 0:1]
        for name, prop in (("same_suit", _SUIT), ("same_colour", _RED), ("same_rank", _RANK)):
            cols[name] = ~(present & (prop[safe] != prop[first])).any(1)
    table = _hand_attribute_table()
    for hand, cards in (("player", player), ("banker", banker)):
        for name, lookup in table.items():
            if f"{hand}_{name}" in want:
                cols[f"{hand}_{name}"] = lookup[cards[:, 0], cards[:, 1]]
    if want & {"nines", "nine_of_diamonds", "nines_same_suit"}:
        four = np.stack([player[:, 0], player[:, 1], banker[:, 0], banker[:, 1]], axis=1)
        is_nine = _RANK[four] == 8
        nine_suits = np.where(is_nine, _SUIT[four], -1)
        cols["nines"] = is_nine.sum(1)
        cols["nine_of_diamonds"] = (nine_suits == 2).sum(1)
        lowest = np.where(is_nine, nine_suits, 9).min(1)
        cols["nines_same_suit"] = (cols["nines"] >= 2) & (nine_suits.max(1) == lowest)
    for name, (_doc, fn) in DERIVED.items():
        cols[name] = np.asarray(fn(cols))
    return cols


@functools.cache
def _hand_codes() -> np.ndarray:
    """A code per ordered pair of identities: equal codes, equal :func:`hand_attributes`."""
    from .identity import _all_attributes

    seen: dict[tuple[object, ...], int] = {}
    return np.array([seen.setdefault(a, len(seen)) for a in _all_attributes()], dtype=np.int64).reshape(52, 52)


def round_keys(player: np.ndarray, banker: np.ndarray, signature: tuple[Any, ...],
               _memo: dict[str, np.ndarray] | None = None) -> np.ndarray:
    """An integer per round such that rounds with equal keys settle alike for every wager
    of ``signature`` (see :func:`exactodds.pricing.table_signature`)."""
    memo = _memo if _memo is not None else {}
    if signature[0] == "initial":
        codes = _hand_codes()
        return codes[player[:, 0], player[:, 1]] * 100_000 + codes[banker[:, 0], banker[:, 1]]
    if "point" not in memo:
        dealt = np.concatenate([player, banker], axis=1)
        values = np.where(dealt >= 0, POINTS[np.maximum(dealt, 0)], -1).astype(np.int8)
        pv = values[:, :3].clip(0).sum(1, dtype=np.int64) % 10
        bv = values[:, 3:].clip(0).sum(1, dtype=np.int64) % 10
        memo["values"] = values
        memo["point"] = ((pv * 10 + bv) * 2 + (player[:, 2] >= 0)) * 2 + (banker[:, 2] >= 0)
    key = memo["point"]
    if signature[0] == "round":
        names, all_cards = signature[1], signature[2]
        for name in names[4:]:
            key = key * 7 + (memo["values"] == int(name[6:])).sum(1)
        if all_cards:
            if "flags" not in memo:
                f = features(player, banker, frozenset({"same_suit", "same_colour", "same_rank"}))
                memo["flags"] = f["same_suit"] * 4 + f["same_colour"] * 2 + f["same_rank"]
            key = key * 8 + memo["flags"]
    return key


def settle_many(pairs: Sequence[tuple[Any, Any]], player: np.ndarray, banker: np.ndarray) -> list[np.ndarray]:
    """Settle every (wager, paytable) on every round: each distinct round key is settled once."""
    from .pricing import table_signature

    groups: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]] = {}
    memo: dict[str, np.ndarray] = {}
    out = []
    for wager, paytable in pairs:
        sig = table_signature(wager)
        if sig not in groups:
            keys = round_keys(player, banker, sig, memo)
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            groups[sig] = (first, inverse.ravel(), features(player[first], banker[first]))
        first, inverse, cols = groups[sig]
        out.append(settle_rounds(wager, paytable, cols)[inverse])
    return out


def settle_rounds(wager: Any, paytable: Any, cols: Mapping[str, np.ndarray]) -> np.ndarray:
    """For each round, the index of the outcome the wager is paid as, or -1 for a loss."""
    from .pricing import assign_outcomes

    n = len(next(iter(cols.values())))
    masks = np.stack([o.condition.mask(cols, n, wager.parameters) for o in wager.outcomes])
    return assign_outcomes(wager, paytable, masks)
