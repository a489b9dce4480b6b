"""Simulated players at real shoes, written as a surveillance log (:mod:`exactodds.simulation.checkplayer`).

What check-player is validated against: shoes dealt by the reference simulator (627a.5(f) burn, a cover card,
627a.9(e) last hand), and one of four players betting at them:

* ``flat``: one unit on the first wager watched, every round;
* ``random``: in each round, with chance one half, one to five units on a wager watched drawn at random (the
  choice independent of the cards);
* ``counter``: one unit on the first wager every round, and on the second the units of a ramp by its true count
  (the count of :mod:`exactodds.analyses.counting` for that wager, as ``exposure`` counts it: the tags of the
  cards of the shoe's rounds so far, per deck left, floored);
* ``sorter``: reads the first card's class (readable backs, :mod:`exactodds.analyses.advantage`) and bets one
  unit, every round, on the wager watched whose exact return off the full shoe given that class is the best.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
>>> player_log(path, kind="flat", shoes=2, seed=1)
2
>>> open(path).readline().strip()
'player1,player2,player3,banker1,banker2,banker3,shoe,round,banker:standard,player:standard'
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Sequence
from typing import Any

import numpy as np

from exactodds.analyses.advantage import readable_backs
from exactodds.analyses.betting import checked_ramp, ramp_units
from exactodds.analyses.eor import effects_of_removal
from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.simulation.recordio import CARD_COLUMNS, ROUND_COLUMN, SHOE_COLUMN
from exactodds.simulation.simulate import _shoe_cards, deal_shoes, shuffled_shoes
from exactodds.wagers.catalogue import load_catalogue

__all__ = ["KINDS", "player_log"]

KINDS = ("flat", "random", "counter", "sorter")
#: The counter's ramp on the second wager by default: 1 unit from true count +4, 2 from +6, 4 from +8.
RAMP = ((4, 1), (6, 2), (8, 4))


def _token(card: int) -> str:
    c = Card.from_index(card)
    return f"{c.rank.symbol}{'shdc'[card % 4]}"


def player_log(path: str, *, kind: str, shoes: int, seed: int, decks: int = 8, cut: int = 14,
               wagers: Sequence[str] = ("banker:standard", "player:standard"), sorted_cards: str = "6,7,8,9",
               ramp: tuple[tuple[int, int], ...] = RAMP, bet_seed: int | None = None) -> int:
    """Deal ``shoes`` shoes from ``seed`` and write a log of the ``kind`` of player at them to ``path`` (CSV,
    whole or not at all); the shoes written. ``bet_seed`` (default ``seed``) draws a random player's bets: players
    of one table see the same shoes."""
    if kind not in KINDS:
        raise ExactOddsError(f"player kind {kind!r}: one of {', '.join(KINDS)}")
    if kind == "counter" and len(wagers) < 2:
        raise ExactOddsError("a counter bets the first wager flat and ramps the second: name two wagers")
    cat = load_catalogue()
    pairs = []
    for spec in wagers:
        wid, _, tid = spec.partition(":")
        pairs.append((cat[wid], cat[wid].paytable(tid)))
    stack = shuffled_shoes(_shoe_cards(decks), shoes, np.random.default_rng([seed, 7]))
    rng = np.random.default_rng([seed if bet_seed is None else bet_seed, 11])
    player, banker, shoe_row, _ = deal_shoes(stack, cut=cut)
    cards = np.concatenate([player, banker], axis=1)
    amounts = np.zeros((len(cards), len(pairs)), dtype=np.int64)
    if kind == "flat":
        amounts[:, 0] = 1
    elif kind == "random":
        bet = rng.random(len(cards)) < 0.5
        amounts[np.flatnonzero(bet), rng.integers(len(pairs), size=int(bet.sum()))] = rng.integers(1, 6, int(bet.sum()))
    elif kind == "sorter":
        backs = readable_backs(Shoe.decks(decks), sorted_cards=sorted_cards, seen=1, wagers=list(wagers))
        best = {s.pattern: max(range(len(pairs)), key=lambda j: s.results[j].expected_return) for s in backs.states}
        high = np.isin(cards[:, 0] // 4 + 1, backs.ranks)
        amounts[np.arange(len(cards)), np.where(high, best["H"], best["L"])] = 1
    else:
        steps = checked_ramp(ramp)
        count = effects_of_removal(Shoe.decks(decks), [pairs[1]], catalogue=cat)[0].count
        tags = np.array(list(count.card_tags()) + [0], dtype=np.int64)            # card -1 (none): 0
        own = tags[cards].sum(axis=1)
        amounts[:, 0] = 1
        running, left, previous = 0, decks * 52, -1
        for i in range(len(cards)):
            if shoe_row[i] != previous:
                running, left, previous = 0, decks * 52, shoe_row[i]
            amounts[i, 1] = ramp_units(steps, running * 52 // left)
            running += int(own[i])
            left -= int((cards[i] >= 0).sum())
    _write(path, cards, shoe_row, amounts, list(wagers))
    return int(shoe_row.max()) + 1 if len(shoe_row) else 0


def _write(path: str, cards: np.ndarray, shoe_row: np.ndarray, amounts: np.ndarray, names: list[str]) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".log-", suffix=".csv")
    try:
        with os.fdopen(fd, "w", newline="") as f:
            out: Any = csv.writer(f)
            out.writerow([*CARD_COLUMNS, SHOE_COLUMN, ROUND_COLUMN, *names])
            number, previous = 0, -1
            for row, shoe, bets in zip(cards.tolist(), shoe_row.tolist(), amounts.tolist()):
                number = number + 1 if shoe == previous else 1
                previous = shoe
                out.writerow([*(_token(c) if c >= 0 else "" for c in row), f"s{shoe + 1}", number,
                              *(b if b else "" for b in bets)])
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
