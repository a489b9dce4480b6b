"""A count written apart from the engine, for conditions that are a part on ranks and a part on suits: every
sequence of ranks the six positions can take (NumPy, the third-card rules of §627a.10 written out here), and
for each one the ways its dealt cards' suits can fall, summed per pattern of equal ranks.

A round's weight is the number of ordered 6-card sequences that deal it, as the engine's: the falling
factorials of each identity's count over the dealt cards, times the ways the shoe's other cards fill the
places a round of four or five cards leaves. Used by tests/test_walk_joint.py to check the walk at 8 decks
(about 20 s there), and itself checked against the brute force on small shoes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping

import numpy as np

SUITS = ("s", "h", "d", "c")
#: Deal order: P1 B1 P2 B2, then the third cards.
POSITIONS = ("player_{}_1", "banker_{}_1", "player_{}_2", "banker_{}_2", "player_{}_3", "banker_{}_3")
#: The Banker's third card by its total (3 to 6) and the Player's third card's point value (§627a.10(c)):
#: D draws, S stands.
_BANKER_TABLE = {3: "DDDDDDDDSD", 4: "SSDDDDDDSS", 5: "SSSSDDDDSS", 6: "SSSSSSDDSS"}
_BANKER_DRAWS = np.array([[bt < 3 or (bt in _BANKER_TABLE and _BANKER_TABLE[bt][v] == "D") for v in range(10)]
                          for bt in range(10)])

RankPart = Callable[[Mapping[str, np.ndarray]], np.ndarray]
SuitPart = Callable[[Mapping[str, str]], bool]


def _value(rank: np.ndarray) -> np.ndarray:
    return np.where(rank >= 10, 0, rank)


def count(card_counts: Mapping[tuple[int, str], int], ranks: RankPart, suits: SuitPart) -> int:
    """The ordered 6-card sequences of the shoe ``card_counts`` ((rank 1–13, suit) → cards) on which ``ranks``
    (vectorised over the rounds' ``player_rank_1`` ... ``banker_rank_3`` arrays, −1 for a third card not dealt)
    and ``suits`` (of one round's ``player_suit_1`` ... ``banker_suit_3``, '' for one not dealt) both hold."""
    n = sum(card_counts.values())
    present = sorted({r for (r, _), k in card_counts.items() if k})
    rank = np.array(present, dtype=np.int64)
    grid = np.indices((len(present),) * 6).reshape(6, -1)       # a rank per place of the 6-card sequence
    p1, b1, p2, b2, fifth, sixth = (rank[g] for g in grid)
    pt, bt = (_value(p1) + _value(p2)) % 10, (_value(b1) + _value(b2)) % 10
    natural = (pt >= 8) | (bt >= 8)
    player_draws = ~natural & (pt <= 5)
    banker_draws = ~natural & np.where(player_draws, _BANKER_DRAWS[bt, np.where(player_draws, _value(fifth), 0)],
                                       bt <= 5)
    p3 = np.where(player_draws, fifth, -1)
    b3 = np.where(banker_draws, np.where(player_draws, sixth, fifth), -1)
    # each round once: a place the round leaves unread takes the first rank only
    once = ((player_draws | banker_draws) | (grid[4] == 0)) & ((player_draws & banker_draws) | (grid[5] == 0))
    dealt = [a[once] for a in (p1, b1, p2, b2, p3, b3)]
    holds = np.asarray(ranks({POSITIONS[i].format("rank"): dealt[i] for i in range(6)}), dtype=bool)
    holds = np.broadcast_to(holds, dealt[0].shape)
    # per round, its pattern: each position's first position of equal rank (6: not dealt), and each rank's
    # cards per suit (shoes whose ranks differ there)
    kinds: dict[tuple[int, ...], int] = {}
    kind_of = np.zeros(14, dtype=np.int64)
    for r in present:
        kind_of[r] = kinds.setdefault(tuple(card_counts.get((r, s), 0) for s in SUITS), len(kinds))
    key = np.zeros(len(dealt[0]), dtype=np.int64)
    for i in range(6):
        first = np.full(len(key), 6, dtype=np.int64)
        for j in range(i, -1, -1):
            first = np.where((dealt[i] >= 0) & (dealt[j] == dealt[i]), j, first)
        key = (key * 7 + first) * len(kinds) + np.where(dealt[i] >= 0, kind_of[np.maximum(dealt[i], 0)], 0)
    per_suit = list(kinds)
    total = 0
    for k, rounds in zip(*(a.tolist() for a in np.unique(key[holds], return_counts=True))):
        first, kind = [0] * 6, [0] * 6
        for i in range(5, -1, -1):
            k, kind[i] = divmod(k, len(kinds))
            k, first[i] = divmod(k, 7)
        at = [i for i in range(6) if first[i] != 6]
        ways = 0
        held = [[s for s in range(4) if per_suit[kind[i]][s]] for i in at]     # the suits its rank has cards of
        for fallen in itertools.product(*held):
            row = {POSITIONS[i].format("suit"): "" for i in range(6)}
            same: dict[tuple[int, int], int] = {}
            for i, s in zip(at, fallen):
                row[POSITIONS[i].format("suit")] = SUITS[s]
                same[(first[i], s)] = same.get((first[i], s), 0) + 1
            if suits(row):
                ways += math.prod(math.perm(per_suit[kind[g]][s], m) for (g, s), m in same.items())
        total += rounds * ways * math.perm(n - len(at), 6 - len(at))
    return total
