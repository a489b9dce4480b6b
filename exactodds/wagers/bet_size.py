"""A bet size on a wager: the Banker's vigorish rounded as §627a.12(c) allows.

§627a.12(c): the vigorish is 5% of the amount won, and "the certificate holder
may round off the vigorish to 25¢ or the next highest multiple of 25¢". Read
here as rounding *up* each winning wager's vigorish to a multiple of 25¢ (a
vigorish that is already one is unchanged); the catalogue's Banker wager, with
no bet size, prices the 5% unrounded. Where the vigorish is tracked and
collected later (§627a.12(d)(2)), a casino that rounds the accumulated total
instead of each win charges less; that is not priced here. The table of the
vigorish over many bet sizes is :mod:`exactodds.analyses.vigorish`.

>>> vigorish(Fraction(7)), vigorish(Fraction(1)), vigorish(Fraction(20))
(Fraction(1, 2), Fraction(1, 4), Fraction(1, 1))
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

from exactodds.errors import ExactOddsError
from exactodds.wagers.catalogue import Wager
from exactodds.wagers.pays import Pay, parse_amount, vigorish_terms

__all__ = ["vigorish", "at_bet", "parse_dollars", "money", "QUARTER"]

#: The rounding step of §627a.12(c).
QUARTER = Fraction(1, 4)


def vigorish(won: Fraction, *, rate: Fraction = Fraction(5, 100), step: Fraction = QUARTER) -> Fraction:
    """The vigorish on ``won`` dollars won: ``rate`` of it, rounded up to a multiple of ``step``."""
    return math.ceil(won * rate / step) * step


def parse_dollars(raw: object, *, where: str) -> Fraction:
    """A bet in dollars: ``7``, ``7.50``, ``$12`` → an exact amount above zero (at most $1,000,000,000)."""
    value = parse_amount(raw, where=where, what="a dollar amount")
    if not 0 < value <= 10**9:
        raise ExactOddsError(f"{where}: a bet must be above $0 and at most $1,000,000,000, got {raw!r}")
    if (value * 100).denominator != 1:
        raise ExactOddsError(f"{where}: a bet is a whole number of cents, got {raw!r}")
    return value


def money(x: Fraction) -> str:
    """An exact amount of dollars as written on a bet: ``$1,234.50``."""
    return f"${x.numerator // x.denominator:,}.{round((x - x.numerator // x.denominator) * 100):02d}"


def at_bet(wager: Wager, bet: Fraction) -> Wager:
    """The wager at a bet of ``bet`` dollars, each pay with a vigorish charged as §627a.12(c) rounds it."""
    tables = {}
    changed = False
    for tid, table in wager.paytables.items():
        pays = dict(table.pays)
        for oid, pay in table.pays.items():
            terms = vigorish_terms(pay.text)
            if terms is None:
                continue
            gross, rate = terms
            won = bet * gross
            charged = vigorish(won, rate=rate)
            pays[oid] = Pay(f"{pay.text}, {money(charged)} on {money(won)} won (rounded up to 25¢)", "to",
                            (won - charged) / bet)
            changed = True
        tables[tid] = replace(table, pays=pays)
    if not changed:
        raise ExactOddsError(f"wager {wager.id!r} charges no vigorish: a bet size changes nothing")
    note = (f"A ${bet} bet: the vigorish on each win is rounded up to a multiple of 25¢ as 627a.12(c) "
            "allows (per winning wager).")
    return replace(wager, paytables=tables, reading=f"{wager.reading} {note}" if wager.reading else note,
                   parameters={**wager.parameters})
