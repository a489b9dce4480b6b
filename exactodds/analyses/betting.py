"""What a way of betting earns and risks, in the measures card counters and surveillance teams use.

A *play* bets some units on some rounds of a run of shoes (every unit at the player's exact expected
return before that round). From two exact sums over the rounds — Σ units × expected return, and
Σ units² × expected squared result — follow, per round dealt:

* the win rate ``μ`` (and per 100 rounds, per shoe), exact;
* the variance ``σ² = E[(bX)²] − μ²``, exact, and the standard deviation per round and per shoe
  (per shoe as σ·√(rounds per shoe): rounds taken as independent);
* N0 = σ²/μ², the rounds it takes for the expected win to equal one standard deviation, exact;
* the desirability index DI = 1000·μ/σ (Schlesinger, *Blackjack Attack*);
* the risk of ruin of a bankroll of B units, exp(−2μB/σ²): the standard diffusion formula for a
  game of mean μ and variance σ² per round.

>>> p = Play("flat", rounds=100, shoes=1, rounds_bet=100, units=100, win=Fraction(2), square=Fraction(100))
>>> p.per_round, p.variance, p.n0
(Fraction(1, 50), Fraction(2499, 2500), Fraction(2499, 1))
>>> round(p.risk_of_ruin(50), 4)        # exp(-2 · 0.02 · 50 / 0.9996)
0.1352
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactodds.errors import ExactOddsError

__all__ = ["Play", "parse_ramp", "checked_ramp", "ramp_units"]


@dataclass(frozen=True)
class Play:
    """Exact sums of a way of betting over a run: ``rounds`` dealt in ``shoes``, ``rounds_bet`` of them
    with ``units`` in all; ``win`` = Σ units × expected return; ``square`` = Σ units² × E[result²]."""

    name: str
    rounds: int
    shoes: int
    rounds_bet: int
    units: Fraction | int
    win: Fraction
    square: Fraction

    @property
    def per_round(self) -> Fraction:
        """Expected win per round dealt, in units."""
        return Fraction(self.win) / self.rounds

    @property
    def per_100(self) -> Fraction:
        return 100 * self.per_round

    @property
    def per_shoe(self) -> Fraction:
        return Fraction(self.win) / self.shoes

    @property
    def variance(self) -> Fraction:
        """Variance of the result per round dealt (a round not bet counts as a result of 0)."""
        return Fraction(self.square) / self.rounds - self.per_round ** 2

    @property
    def sd_per_round(self) -> float:
        return math.sqrt(float(self.variance))

    @property
    def sd_per_shoe(self) -> float:
        """σ·√(rounds per shoe), the rounds of a shoe taken as independent."""
        return self.sd_per_round * math.sqrt(self.rounds / self.shoes)

    @property
    def n0(self) -> Fraction | None:
        """Rounds for the expected win to equal one standard deviation (None where nothing is won)."""
        return self.variance / self.per_round ** 2 if self.per_round > 0 else None

    @property
    def di(self) -> float:
        """Desirability index: 1000·μ/σ per round."""
        return 1000 * float(self.per_round) / self.sd_per_round if self.variance > 0 else float("nan")

    def risk_of_ruin(self, bankroll: float) -> float:
        """exp(−2μB/σ²) for a bankroll of B units: 1 where the play does not win."""
        if self.per_round <= 0 or self.variance <= 0:
            return 1.0
        return math.exp(-2 * float(self.per_round) * bankroll / float(self.variance))


def parse_ramp(text: str, *, where: str = "--ramp") -> tuple[tuple[int, int], ...]:
    """A bet ramp ``TC:UNITS,...`` (``1:1,2:2,4:4``: 1 unit from true count +1, 2 from +2, 4 from +4;
    nothing below the first step: a side wager may be left out of any round)."""
    steps: dict[int, int] = {}
    for part in (p.strip() for p in text.split(",")):
        count, sep, units = part.partition(":")
        try:
            tc, n = int(count), int(units)
        except ValueError:
            raise ExactOddsError(f"{where}: {part!r} is not TRUE_COUNT:UNITS (e.g. 2:1,4:2)") from None
        if not sep or n < 0 or n > 1000:
            raise ExactOddsError(f"{where}: {part!r}: units are a whole number from 0 to 1,000")
        if tc in steps:
            raise ExactOddsError(f"{where}: true count {tc} given twice")
        steps[tc] = n
    return tuple(sorted(steps.items()))


def checked_ramp(steps: Iterable[Any], *, where: str = "--ramp") -> tuple[tuple[int, int], ...]:
    """A bet ramp given to the Python API as (true count, units) pairs, held to what :func:`parse_ramp` takes
    (whole numbers, units from 0 to 1,000, each true count once) and sorted by true count, as :func:`ramp_units`
    reads it; one line naming the first bad step.

    >>> checked_ramp([(4, 4), (1, 1)])
    ((1, 1), (4, 4))
    >>> checked_ramp([(1, 1.5)])
    Traceback (most recent call last):
    exactodds.errors.ExactOddsError: --ramp: (1, 1.5): units are a whole number from 0 to 1,000
    """
    seen: dict[int, int] = {}
    for step in steps:
        if not (isinstance(step, tuple | list) and len(step) == 2 and type(step[0]) is int):
            raise ExactOddsError(f"{where}: {step!r} is not a (true count, units) pair of whole numbers")
        tc, n = step
        if type(n) is not int or not 0 <= n <= 1000:
            raise ExactOddsError(f"{where}: {tuple(step)!r}: units are a whole number from 0 to 1,000")
        if tc in seen:
            raise ExactOddsError(f"{where}: true count {tc} given twice")
        seen[tc] = n
    return tuple(sorted(seen.items()))


def ramp_units(ramp: tuple[tuple[int, int], ...], true_count: int) -> int:
    """Units the ramp bets at ``true_count``: those of the highest step at or below it, else 0."""
    units = 0
    for tc, n in ramp:
        if tc <= true_count:
            units = n
    return units
