"""Tests of the order in which a simulator deals within a shoe, when its rounds carry a shoe id.

A uniformly shuffled shoe deals each next card uniformly from the cards not yet seen in that shoe:
the burned cards (§627a.5(f)) are unseen, and by exchangeability the next card is still uniform over
the shoe less the cards seen (the first card's chance of being any given unseen card is the same).
So before each card (or round) the exact chance of what a test counts is known from the cards seen,
and the test's statistic Σ (hit − chance) has mean exactly 0 with variance Σ chance · (1 − chance) (a
martingale: no independence is assumed, and depletion, however deep, is no false alarm). Only the
shoe's last rounds, whether dealt at all depending on where the cover card lay, carry a bias, of the
order of one card in the shoe's size a shoe: below what 10^9 shoes could see.

* ``card guessing`` (in the manner of Diaconis, Fulman and Holmes): before each card, guess it is
  of the previous card's rank. A shuffle that leaves neighbouring cards together (a few riffles of
  a shoe assembled deck by deck, each card's copies together) makes the guess right too often.
* ``runs`` of colours: each card the colour of the one before, against its exact chance.
* ``serial correlation`` of outcomes: each round's outcome (Banker, Player, Tie) the previous
  round's, against the exact chance of that outcome off the cards not yet seen. The exact chance
  of a depleted shoe costs a pricing per round, so this one reads the first
  :data:`SERIAL_ROUNDS` rounds of each file.

A shoe is a run of consecutive records with the same id; its rounds are read in the order written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card
from exactodds.render.tables import a_or_an
from exactodds.simulation.recordio import SHOE_COLUMN
from exactodds.simulation.rounds import POINTS

__all__ = ["SHOE_COLUMN", "SERIAL_ROUNDS", "WithinShoe", "Carry", "tally_within", "within_rows", "split_shoes"]

#: Rounds of each file whose outcomes the serial-correlation test reads (an exact pricing each).
SERIAL_ROUNDS = 20_000
#: Rounds handled at once (their cards' running counts are (cards, 52) integers).
_BLOCK = 10_000
_RANK = np.arange(52) // 4
_RED = np.isin(np.arange(52) % 4, (1, 2)).astype(np.int64)
#: Dealing order of a record's slots: Player 1, Banker 1, Player 2, Banker 2, Player 3, Banker 3.
_DEALT = [0, 3, 1, 4, 2, 5]


@dataclass
class WithinShoe:
    """Sums of the within-shoe tests, added up over chunks and files: per test [Σ (hit − chance),
    Σ chance (1 − chance), hits, predictions]; floats within a file, exact Fractions once files are added."""

    shoes: int = 0
    sums: dict[str, list[float | Fraction]] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)    # per file: (source, first id, last id)

    def add(self, other: WithinShoe) -> WithinShoe:
        """Add the sums of other files, exactly (as Fractions: each float is a dyadic rational), so that files
        add up to the same sums in any order or grouping: two halves of a record set merged, or files counted
        on a cluster in the order they finish, give the bytes of one run."""
        self.shoes += other.shoes
        for name, row in other.sums.items():
            mine = self.sums.setdefault(name, [0.0, 0.0, 0.0, 0.0])
            for k in range(4):
                mine[k] = Fraction(mine[k]) + Fraction(row[k])
        self.edges += other.edges
        return self

    def _add(self, name: str, hit: np.ndarray, chance: np.ndarray) -> None:
        """A block's sums, added in floats in the order the file is read (a file's chunks are always the same)."""
        row = self.sums.setdefault(name, [0.0, 0.0, 0.0, 0.0])
        for k, x in enumerate((float((hit - chance).sum()), float((chance * (1 - chance)).sum()), float(hit.sum()),
                               float(len(hit)))):
            row[k] = row[k] + (Fraction(x) if isinstance(row[k], Fraction) else x)


@dataclass
class Carry:
    """Where a file's reading stands at the end of a chunk: the shoe being dealt and what it has shown."""

    shoe: str | None = None
    seen: np.ndarray = field(default_factory=lambda: np.zeros(52, dtype=np.int64))
    last_card: int = -1
    last_outcome: int = -1
    serial_left: int = SERIAL_ROUNDS
    first: str | None = None


def _outcomes(cards: np.ndarray) -> np.ndarray:
    """Per round: 0 Banker wins, 1 Player wins, 2 Tie."""
    points = np.where(cards >= 0, POINTS[np.maximum(cards, 0)], 0)
    player, banker = points[:, :3].sum(axis=1) % 10, points[:, 3:].sum(axis=1) % 10
    return np.where(banker > player, 0, np.where(player > banker, 1, 2))


def tally_within(into: WithinShoe, carry: Carry, cards: np.ndarray, shoe_ids: np.ndarray, decks: int,
                 main_game: Any) -> None:
    """Add a chunk's rounds (``cards`` (n, 6), in the order written; ``shoe_ids`` their shoes) to ``into``,
    continuing the shoe ``carry`` holds. ``main_game(value_counts)``: the exact chances of Banker, Player
    and Tie off each of many shoes given by their cards per point value (shape (shoes, 10))."""
    for first in range(0, len(cards), _BLOCK):
        _block(into, carry, cards[first:first + _BLOCK], shoe_ids[first:first + _BLOCK], decks, main_game)


def _block(into: WithinShoe, carry: Carry, cards: np.ndarray, shoe_ids: np.ndarray, decks: int,
           main_game: Any) -> None:
    n = len(cards)
    if not n:
        return
    ids = shoe_ids.astype(str)
    if (np.char.strip(ids) == "").any():
        raise ExactOddsError(f"{SHOE_COLUMN} column: an empty id (round {int(np.argmax(np.char.strip(ids) == '')) + 1} "
                             "of a chunk); every round names its shoe, or the column is left out")
    if carry.first is None:
        carry.first = str(ids[0])
    new = np.r_[ids[0] != carry.shoe, ids[1:] != ids[:-1]]            # a round that starts a shoe
    carried = not new[0]                                              # the first shoe began in an earlier chunk
    into.shoes += int(new.sum())
    round_shoe = np.cumsum(new) - (0 if carried else 1)               # this block's shoes, from 0
    dealt = cards[:, _DEALT]
    present = dealt >= 0
    stream = dealt[present].astype(np.int64)                          # the cards in the order dealt
    per_round = present.sum(axis=1)
    shoe = np.repeat(round_shoe, per_round)
    onehot = np.zeros((len(stream), 52), dtype=np.int32)
    onehot[np.arange(len(stream)), stream] = 1
    seen = np.cumsum(onehot, axis=0, dtype=np.int32) - onehot         # before each card, in the block
    starts = np.flatnonzero(np.r_[True, shoe[1:] != shoe[:-1]])       # each shoe's first card
    seen -= seen[starts][shoe]                                        # ... in its shoe
    if carried:
        seen[shoe == 0] += carry.seen.astype(np.int32)
    previous = np.r_[-1, stream[:-1]]
    previous[starts] = -1                                             # a shoe's first card has none before it
    if carried:
        previous[0] = carry.last_card
    over = np.flatnonzero(seen[np.arange(len(stream)), stream] >= decks)      # a copy the shoe does not hold
    if len(over):
        k = int(over[0])
        raise ExactOddsError(f"shoe {str(ids[np.repeat(np.arange(n), per_round)[k]])!r} deals "
                             f"{Card.from_index(int(stream[k]))} more often than {a_or_an(decks)} {decks}-deck shoe holds it: give "
                             f"each shoe its own id (a run of rounds), or the shoe's --decks")
    has = previous >= 0
    prev, card, seen_h = previous[has], stream[has], seen[has].astype(np.int64)
    total = decks * 52 - seen_h.sum(axis=1)
    rank_left = decks * 4 - seen_h.reshape(-1, 13, 4).sum(axis=2)[np.arange(len(prev)), _RANK[prev]]
    into._add("card guessing", (_RANK[card] == _RANK[prev]).astype(np.float64), rank_left / total)
    red_left = decks * 26 - seen_h @ _RED
    colour_left = np.where(_RED[prev] == 1, red_left, total - red_left)
    into._add("runs", (_RED[card] == _RED[prev]).astype(np.float64), colour_left / total)
    # serial correlation: each round after a shoe's first, while this file's budget lasts
    outcome = _outcomes(cards)
    before = np.r_[carry.last_outcome if carried else -1, outcome[:-1]]
    before[new] = -1                                                  # a shoe's first round: none before it
    usable = np.flatnonzero(before >= 0)[:max(carry.serial_left, 0)]
    if len(usable):
        first_card = np.r_[0, np.cumsum(per_round)[:-1]]
        left = decks * 4 - seen[first_card[usable]].astype(np.int64).reshape(-1, 13, 4).sum(axis=2)
        values = np.concatenate([left[:, 9:].sum(axis=1, keepdims=True), left[:, :9]], axis=1)
        chances = np.asarray(main_game(values))                       # (rounds, 3): Banker, Player, Tie
        into._add("serial correlation", (outcome[usable] == before[usable]).astype(np.float64),
                  chances[np.arange(len(usable)), before[usable]])
        carry.serial_left -= len(usable)
    carry.seen = (seen[-1] + onehot[-1]).astype(np.int64)
    carry.shoe, carry.last_card, carry.last_outcome = str(ids[-1]), int(stream[-1]), int(outcome[-1])


def within_rows(w: WithinShoe) -> list[tuple[str, float, float, str]]:
    """Per test: (name, z, two-sided p, what it counted), for tests with something to count."""
    out = []
    for name in ("card guessing", "runs", "serial correlation"):
        row = [float(x) for x in w.sums.get(name, ())]
        if not row or row[1] <= 0:
            continue
        z = row[0] / math.sqrt(row[1])
        expected = row[2] - row[0]
        what = {"card guessing": "cards of the previous card's rank",
                "runs": "cards of the previous card's colour",
                "serial correlation": "rounds with the previous round's outcome"}[name]
        scope = f" (the first {SERIAL_ROUNDS:,} rounds of each file)" if name == "serial correlation" else ""
        out.append((name, z, math.erfc(abs(z) / math.sqrt(2)),
                    f"{int(row[2]):,} {what} against {expected:,.1f} expected given the cards seen, "
                    f"{int(row[3]):,} predictions in {w.shoes:,} shoes{scope}"))
    return out


def split_shoes(w: WithinShoe) -> list[str]:
    """Shoe ids at the end of one file and the start of another: a shoe split between files, whose second
    part would be read as a new shoe."""
    ends = {last: src for src, _, last in w.edges}
    return [f"{first} ({ends[first]} and {src})" for src, first, _ in w.edges if first in ends and ends[first] != src]
