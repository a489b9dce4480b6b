"""Exact polynomials in the progressive meters, for pricing without sympy.

A pay of "100% of progressive" is worth ``J`` units of the wager, where ``J``
is the meter; "10% of progressive" paid 'for' one is ``J/10 - 1``. Pricing
needs only sums and products of such pays with fractions — the expected
return is linear in the meters, the variance quadratic — so a small exact
polynomial type with :class:`fractions.Fraction` coefficients carries them
(sympy is imported only to solve for a meter, or when a user asks for a sympy
expression with :meth:`Form.to_sympy`). Meters are positive, as sympy's
``Symbol(name, positive=True)``; the text form is sympy's, so tables read the same.

>>> j = Form.meter("J")
>>> e = Fraction(1, 1000) * (j - 1) + Fraction(-1, 2)
>>> str(e), e.coefficient("J"), e.constant
('J/1000 - 501/1000', Fraction(1, 1000), Fraction(-501, 1000))
>>> str((j - 1) * (j - 1)), (j * Fraction(1, 2)).is_positive, (j - 1).is_positive
('J**2 - 2*J + 1', True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from exactodds import extras

__all__ = ["Form"]

Monomial = tuple[str, ...]          # meter names, sorted, repeated for powers; () is the constant


class Form:
    """A polynomial in named meters with exact rational coefficients (immutable)."""

    __slots__ = ("_terms",)

    def __init__(self, terms: Mapping[Monomial, Fraction | int] | None = None):
        self._terms: dict[Monomial, Fraction] = {
            m: Fraction(c) for m, c in (terms or {}).items() if c != 0}

    @classmethod
    def meter(cls, name: str) -> Form:
        """The meter ``name`` itself."""
        return cls({(name,): 1})

    # -- arithmetic ------------------------------------------------------------
    @staticmethod
    def _lift(other: Any) -> Form | None:
        if isinstance(other, Form):
            return other
        if isinstance(other, (int, Fraction)):
            return Form({(): other})
        return None

    def __add__(self, other: Any) -> Form:
        o = self._lift(other)
        if o is None:
            return NotImplemented
        terms = dict(self._terms)
        for m, c in o._terms.items():
            terms[m] = terms.get(m, Fraction(0)) + c
        return Form(terms)

    __radd__ = __add__

    def __neg__(self) -> Form:
        return Form({m: -c for m, c in self._terms.items()})

    def __sub__(self, other: Any) -> Form:
        o = self._lift(other)
        return NotImplemented if o is None else self + (-o)

    def __rsub__(self, other: Any) -> Form:
        o = self._lift(other)
        return NotImplemented if o is None else o + (-self)

    def __mul__(self, other: Any) -> Form:
        o = self._lift(other)
        if o is None:
            return NotImplemented
        terms: dict[Monomial, Fraction] = {}
        for m1, c1 in self._terms.items():
            for m2, c2 in o._terms.items():
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, Fraction(0)) + c1 * c2
        return Form(terms)

    __rmul__ = __mul__

    def __pow__(self, n: int) -> Form:
        out = Form({(): 1})
        for _ in range(n):
            out = out * self
        return out

    def __eq__(self, other: object) -> bool:
        o = self._lift(other)
        return o is not None and o._terms == self._terms

    def __hash__(self) -> int:
        return hash(frozenset(self._terms.items()))

    # -- reading ---------------------------------------------------------------
    @property
    def meters(self) -> tuple[str, ...]:
        """The meters that appear, sorted."""
        return tuple(sorted({s for m in self._terms for s in m}))

    @property
    def constant(self) -> Fraction:
        return self._terms.get((), Fraction(0))

    @property
    def degree(self) -> int:
        return max((len(m) for m in self._terms), default=0)

    def coefficient(self, meter: str) -> Fraction:
        """The coefficient of the first-degree term in ``meter``."""
        return self._terms.get((meter,), Fraction(0))

    @property
    def is_positive(self) -> bool:
        """True when positive for every positive value of the meters (as sympy decides it
        for a sum of terms: every coefficient at least 0 and some term present)."""
        return bool(self._terms) and all(c > 0 for m, c in self._terms.items() if m) and self.constant >= 0

    def at(self, values: Mapping[str, Fraction | int]) -> Fraction:
        """The exact value with each meter set."""
        total = Fraction(0)
        for m, c in self._terms.items():
            term = c
            for s in m:
                term *= Fraction(values[s])
            total += term
        return total

    def to_sympy(self) -> Any:
        """The same polynomial as a sympy expression (meters as positive symbols)."""
        sympy = extras.load("sympy")
        out = sympy.Integer(0)
        for m, c in self._terms.items():
            term = sympy.Rational(c.numerator, c.denominator)
            for s in m:
                term = term * sympy.Symbol(s, positive=True)
            out = out + term
        return out

    def terms(self) -> list[tuple[Monomial, Fraction]]:
        """(meters, coefficient) of every term, in the order the text prints them."""
        meters = self.meters
        power = {m: tuple(m.count(s) for s in meters) for m in self._terms}
        return [(m, self._terms[m]) for m in sorted(self._terms, key=lambda m: power[m], reverse=True)]

    def __str__(self) -> str:
        ordered = [m for m, _ in self.terms()]                # sympy's 'lex' order
        if not ordered:
            return "0"
        parts = []
        for i, m in enumerate(ordered):
            c = self._terms[m]
            sign = "-" if c < 0 else "+"
            body = _term(abs(c), m)
            parts.append((sign if sign == "-" else "") + body if i == 0 else f" {sign} {body}")
        return "".join(parts)

    def __repr__(self) -> str:
        return f"Form({str(self)!r})"


def _term(c: Fraction, monomial: Monomial) -> str:
    """One positive term as sympy prints it: ``J``, ``3*J``, ``J/2``, ``3*J**2*K/4``, ``5/7``."""
    if not monomial:
        return str(c)
    names: list[str] = []
    for s in sorted(set(monomial)):
        k = monomial.count(s)
        names.append(s if k == 1 else f"{s}**{k}")
    body = "*".join(names)
    if c.numerator != 1:
        body = f"{c.numerator}*{body}"
    return body if c.denominator == 1 else f"{body}/{c.denominator}"
