"""Pricing: a wager's paytable against the exact distribution of rounds.

Every figure is exact: combination counts are integers in the 6-card
convention, probabilities and returns are :class:`fractions.Fraction`.

>>> from exactodds.engine import deal
>>> from exactodds.shoe import Shoe
>>> from exactodds.wagers import load_catalogue
>>> banker = load_catalogue()["banker"]
>>> r = price(banker, banker.paytable("standard"), deal(Shoe.decks(8)))
>>> f"{float(r.house_edge):.4%}"              # the published Banker edge, 8 decks
'1.0579%'
>>> r.expected_return
Fraction(-114753351728, 10847218479825)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from .engine import round_table
from .outcomes import point_row
from .pays import Pay
from .shoe import Shoe
from .wagers import Paytable, Wager

__all__ = ["OutcomeLine", "WagerResult", "PointDistribution", "price", "classify", "LOSE"]

#: The line every round that meets no outcome falls into.
LOSE = "lose"


class PointDistribution(Protocol):
    """What pricing reads from a route: the shoe, its total, counts per point-level round."""

    @property
    def shoe(self) -> Shoe: ...

    @property
    def total(self) -> int: ...

    def point_counts(self) -> Mapping[tuple[int, int, int, int], int]: ...


@dataclass(frozen=True)
class OutcomeLine:
    """One line of a per-outcome table."""

    id: str
    name: str
    pay: Pay
    combinations: int
    probability: Fraction

    @property
    def net(self) -> Any:
        return self.pay.net

    @property
    def contribution(self) -> Any:
        """This line's share of the expected return: net pay × probability."""
        return self.pay.net * self.probability


@dataclass(frozen=True)
class WagerResult:
    """A wager under one paytable, priced exactly off the top of one shoe."""

    wager: Wager
    paytable: Paytable
    shoe_description: str
    total: int
    lines: tuple[OutcomeLine, ...]

    @property
    def expected_return(self) -> Any:
        """Expected net win per unit wagered (negative: the house's advantage)."""
        return sum((line.contribution for line in self.lines), Fraction(0))

    @property
    def house_edge(self) -> Any:
        """Expected loss per unit wagered, pushes included in the base."""
        return -self.expected_return

    @property
    def return_to_player(self) -> Any:
        """RTP: 1 + expected return."""
        return 1 + self.expected_return

    @property
    def variance(self) -> Any:
        """Variance of the net result of one unit wagered."""
        second = sum((line.net * line.net * line.probability for line in self.lines), Fraction(0))
        return second - self.expected_return ** 2

    @property
    def standard_deviation(self) -> float:
        """For printing only; the exact figure is :attr:`variance`."""
        return math.sqrt(float(self.variance))

    @property
    def hit_frequency(self) -> Fraction:
        """Probability that the wager wins something (net pay above zero)."""
        return sum((ln.probability for ln in self.lines if _positive(ln.net)), Fraction(0))

    @property
    def push_frequency(self) -> Fraction:
        return sum((ln.probability for ln in self.lines if ln.pay.kind == "push"), Fraction(0))

    @property
    def symbolic(self) -> bool:
        return any(line.pay.symbolic for line in self.lines)


def _positive(net: Any) -> bool:
    if isinstance(net, Fraction):
        return net > 0
    return bool(getattr(net, "is_positive", False))     # a progressive share of a positive meter


_LOSE_PAY = Pay("lose", "lose", Fraction(-1))


def classify(wager: Wager, paytable: Paytable) -> Mapping[tuple[int, int, int, int], str | None]:
    """Which outcome each possible point-level round is paid as (shoe-independent)."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_classified", {})
    if paytable.id not in cache:
        cache[paytable.id] = {
            key: wager.settle_row(point_row(key), paytable) for key in round_table().point_keys
        }
    return cache[paytable.id]  # type: ignore[no-any-return]


def price(wager: Wager, paytable: Paytable, dist: PointDistribution) -> WagerResult:
    """Price ``wager`` under ``paytable`` against the distribution ``dist``."""
    by_outcome = {o.id: 0 for o in wager.outcomes}
    lost = 0
    for key, outcome_id in classify(wager, paytable).items():
        n = dist.point_counts().get(key, 0)
        if outcome_id is None:
            lost += n
        else:
            by_outcome[outcome_id] += n
    total = dist.total
    lines = [
        OutcomeLine(o.id, o.name, paytable.pays[o.id], by_outcome[o.id], Fraction(by_outcome[o.id], total))
        for o in wager.outcomes
        if paytable.pays[o.id].offered
    ]
    lines.append(OutcomeLine(LOSE, "Loses", _LOSE_PAY, lost, Fraction(lost, total)))
    return WagerResult(wager, paytable, dist.shoe.describe(), total, tuple(lines))
