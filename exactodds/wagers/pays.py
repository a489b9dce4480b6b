"""Pays as the regulations write them, parsed into exact values in one place.

"N to 1" pays N and returns the wager; "N for 1" returns N in all, the wager
included, so it wins N - 1. A pay's :attr:`Pay.net` is the amount won per unit
wagered (a loss is -1):

>>> [str(parse_pay(t).net) for t in ("30 to 1", "299 for 1", "1 to 2", "2.5 to 1", "push")]
['30', '298', '1/2', '5/2', '0']
>>> str(parse_pay("1 to 1 less 5% vigorish").net)      # §627a.12(c)
'19/20'
>>> str(parse_pay("$1,500", denomination=5).net)       # a fixed award on a $5 wager
'300'
>>> str(parse_pay("100% of progressive").net), str(parse_pay("100% of progressive", award_basis="for").net)
('J', 'J - 1')
>>> parse_pay("30 too 1")
Traceback (most recent call last):
...
exactodds.errors.ExactOddsError: unknown pay form '30 too 1' (write e.g. '30 to 1', '299 for 1', 'push', 'N/A', '$1,500' or '100% of progressive')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactodds.errors import ExactOddsError, exact_number
from exactodds.wagers.forms import Form

__all__ = ["Pay", "parse_pay", "parse_amount", "THOUSANDS", "vigorish_terms", "Net"]

#: An exact net pay: a Fraction, or a :class:`~exactodds.wagers.forms.Form` for a progressive share.
Net = Any

_NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
_TO = re.compile(rf"^{_NUM}\s+to\s+{_NUM}(?:\s+less\s+{_NUM}%\s+(?:vigorish|commission))?$", re.I)
_FOR = re.compile(rf"^{_NUM}\s+for\s+{_NUM}$", re.I)
_DOLLARS = re.compile(rf"^\$\s*{_NUM}$")
_PROGRESSIVE = re.compile(r"^(\d+(?:\.\d+)?)%\s+(?:of\s+)?(?:the\s+)?(.*?)\s*$", re.I)


#: A comma in an amount separates thousands, and nothing else: 1,500 and $1,000.50, never 7,5 or ,75.
THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?$")


def parse_amount(raw: object, *, where: str, what: str = "an amount") -> Fraction:
    """An exact amount as a person writes it: ``7``, ``7.50``, ``$1,500``, ``1/2`` (no bounds checked).

    A comma is read only as a thousands separator; ``7,5`` is refused rather than read as 75.

    >>> parse_amount("$1,000.50", where="--bet"), parse_amount(" 7.5 ", where="--bet")
    (Fraction(2001, 2), Fraction(15, 2))
    """
    text = str(raw).strip()
    text = text[1:].strip() if text.startswith("$") else text
    if "," in text:
        if not THOUSANDS.match(text):
            raise ExactOddsError(f"{where}: {str(raw)[:40]!r} is not {what} (a comma only separates "
                                 "thousands, as in 1,500)")
        text = text.replace(",", "")
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise ExactOddsError(f"{where}: {str(raw)[:40]!r} is not {what}") from None


def _num(text: str) -> Fraction:
    if len(text) - text.count(",") > 100:
        raise ExactOddsError(f"a number in a pay has at most 100 digits, got {text[:20]}…")
    return parse_amount(text, where="pay")


def _sane(net: Fraction, text: str) -> Fraction:
    """A net pay a paytable can print: at most a billion to one, and not a sliver of a unit."""
    if net > 10**9:
        raise ExactOddsError(f"pay {text[:40]!r} pays more than a billion to one")
    if 0 < net < Fraction(1, 10**9):
        raise ExactOddsError(f"pay {text[:40]!r} pays less than a billionth of the wager")
    return net


@dataclass(frozen=True)
class Pay:
    """One pay: the regulation's words and the exact net win per unit wagered.

    ``kind`` is ``to``, ``for``, ``push``, ``dollars``, ``progressive``,
    ``combined`` or ``not offered`` (an "N/A" cell: the outcome loses under that
    paytable). A progressive pay keeps its share of the meter in ``value`` and
    builds its exact polynomial in the meter (:class:`~exactodds.wagers.forms.Form`) when
    :attr:`net` is read.
    """

    text: str
    kind: str
    value: Fraction
    meter: str | None = None
    basis_less: int = 0

    @property
    def net(self) -> Net:
        """Net win per unit wagered; for a meter share, ``share·J − (1 if paid 'for')``."""
        if self.meter is None:
            return self.value
        return self.value * Form.meter(self.meter) - self.basis_less

    @property
    def offered(self) -> bool:
        return self.kind != "not offered"

    @property
    def symbolic(self) -> bool:
        return self.kind == "progressive"


def vigorish_terms(text: str) -> tuple[Fraction, Fraction] | None:
    """For a pay with a vigorish, (win per unit before it, its rate); None otherwise.

    >>> vigorish_terms("1 to 1 less 5% vigorish"), vigorish_terms("8 to 1")
    ((Fraction(1, 1), Fraction(1, 20)), None)
    """
    m = _TO.match(" ".join(str(text).split()))
    if m is None or m[3] is None:
        return None
    return _num(m[1]) / _num(m[2]), _num(m[3]) / 100


def parse_pay(text: str, *, denomination: Fraction | int | None = None, award_basis: str = "to") -> Pay:
    """Parse a pay as written in the regulation (see the module doctest).

    ``award_basis`` says how a dollar award or a share of a meter is paid:
    ``"to"`` on top of the returned wager, ``"for"`` as the whole amount paid
    (the wager is collected), as in a paytable whose other pays are "for 1".
    """
    if award_basis not in ("to", "for"):
        raise ExactOddsError(f"award basis must be 'to' or 'for', got {award_basis!r}")
    less = 1 if award_basis == "for" else 0
    if not isinstance(text, str):
        raise ExactOddsError(f"a pay must be text such as '30 to 1', got {text!r}")
    t = " ".join(text.split())
    low = t.lower()
    if low == "push":
        return Pay(t, "push", Fraction(0))
    if low in ("n/a", "not offered"):
        return Pay(t, "not offered", Fraction(-1))
    if m := _TO.match(t):
        win, stake = _num(m[1]), _num(m[2])
        if stake == 0:
            raise ExactOddsError(f"pay {t!r} has a zero stake")
        net = win / stake
        if m[3] is not None:
            rate = _num(m[3]) / 100
            if not 0 <= rate < 1:
                raise ExactOddsError(f"vigorish in {t!r} must be below 100%")
            net *= 1 - rate
        return Pay(t, "to", _sane(net, t))
    if m := _FOR.match(t):
        back, stake = _num(m[1]), _num(m[2])
        if stake == 0:
            raise ExactOddsError(f"pay {t!r} has a zero stake")
        return Pay(t, "for", _sane(back / stake - 1, t))
    if m := _DOLLARS.match(t):
        if denomination is None:
            raise ExactOddsError(f"pay {t!r} is in dollars but the paytable states no denomination")
        if not exact_number(denomination, "denomination") > 0:     # -5 paid a win as a loss
            raise ExactOddsError(f"denomination must be above $0, got {denomination!r}")
        return Pay(t, "dollars", _sane(_num(m[1]) / Fraction(denomination) - less, t))
    if m := _PROGRESSIVE.match(t):
        share = _num(m[1]) / 100
        meter = m[2].strip().lower() or "progressive"
        name = "J" if meter in ("progressive", "progressive jackpot") else "J_" + re.sub(
            r"\W+", "_", meter.replace("jackpot", "").strip()).strip("_").lower()
        return Pay(t, "progressive", share, name, less)
    raise ExactOddsError(
        f"unknown pay form {t!r} (write e.g. '30 to 1', '299 for 1', 'push', 'N/A', "
        "'$1,500' or '100% of progressive')"
    )
