"""Settlements written as amounts: the net amount a wager won or lost on its stake, read exactly and checked
against what the paytable pays for the round's outcome.

A settlement column ``WAGER:PAYTABLE`` holds either the outcome id paid or, here, the net amount: per unit
staked, or on the round's stake where a ``stake`` column gives it (in dollars: a vigorish may then be rounded up
to 25¢ as §627a.12(c) allows).

>>> from exactodds.wagers import load_catalogue
>>> [amount_text(n[-1]) for n in pays_per_stake(load_catalogue()["banker"], "standard", Fraction(7), dollars=True)]
['6.5', '0', '-7']
>>> amounts_of(["-1", "0.95", "8"]), amounts_of(["lose", "tie"])
([Fraction(-1, 1), Fraction(19, 20), Fraction(8, 1)], None)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from exactodds.errors import ExactOddsError
from exactodds.wagers.bet_size import at_bet
from exactodds.wagers.catalogue import Wager

__all__ = ["amounts_of", "amount_text", "pays_per_stake"]


def amounts_of(values: Sequence[str]) -> list[Fraction] | None:
    """A settlement column's distinct values as amounts (``-1``, ``0.95``, ``6.50``, ``19/20``), or None when it
    holds outcome ids (a value that is not a number)."""
    out = []
    for v in values:
        try:
            out.append(Fraction(str(v).strip()))
        except (ValueError, ZeroDivisionError):
            return None
    return out or None


def amount_text(x: Fraction) -> str:
    """An exact amount as written: ``8``, ``-1``, ``0.95``, ``6.5``; ``p/q`` where no decimal is exact."""
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d != 1:
        return str(x)
    places = 1
    while (x * 10**places).denominator != 1:
        places += 1
    return f"{float(x):.{places}f}" if abs(x) < 10**12 else str(x)


def pays_per_stake(wager: Wager, table: str, stake: Fraction, *, dollars: bool = False) -> list[list[Fraction]]:
    """Per outcome (a loss last) the net amounts the paytable pays on ``stake``: the exact net, and with a stake in
    ``dollars`` where a vigorish is charged, also the net with it rounded up to 25¢ (§627a.12(c) allows either)."""
    pays = wager.paytables[table].pays
    if any(pays[o.id].symbolic for o in wager.outcomes if pays[o.id].offered):
        raise ExactOddsError(f"{wager.id}:{table} pays a share of a meter: its amounts are not checked; "
                             "write the outcome id")
    nets = [[pays[o.id].net * stake] if pays[o.id].offered else [-stake] for o in wager.outcomes] + [[-stake]]
    if not dollars:
        return nets
    try:
        rounded = at_bet(wager, stake).paytables[table].pays
    except ExactOddsError:                       # no vigorish: nothing rounded
        return nets
    for k, o in enumerate(wager.outcomes):
        if rounded[o.id].offered and rounded[o.id].net * stake not in nets[k]:
            nets[k].append(rounded[o.id].net * stake)
    return nets
