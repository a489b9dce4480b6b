"""Progressive and mystery jackpots, exactly.

**Progressive wagers.** A pay of "100% of progressive" is the meter ``J``, an
exact polynomial variable (:class:`~exactodds.wagers.forms.Form`; sympy only solves):
the meter in units of the wager (meter dollars ÷ wager dollars). The expected
return is exactly linear, ``E(J) = a + b·J`` (with one term per meter when a
wager has several, as Royal 9's Mega, Major and Minor). ``a`` is the return of
the fixed awards alone (``J = 0``), ``b`` the probability of the top award,
and the break-even meter is ``J* = -a / b``.

**Long run.** Let the meter restart at ``R`` dollars after each hit and grow
by a share ``r`` of every wager of ``w`` dollars, the hitting wager included.
The number of wagers to a hit, ``N``, is geometric with mean ``1/p``, so the
meter paid is ``R + r·w·N`` on average ``R + r·w/p``, and per unit wagered

    RTP = 1 + a + Σ_meters ( p·R/w + r ).

When a reserve share ``q`` of every wager funds the next reseed, the reserve
and the reseeds balance in the long run (``p·R/w = q``, i.e. ``R = q·w/p``),
and the return is ``1 + a + r + q``.

**Must-hit-by mystery** (§631b.6). The meter starts at the minimum ``m``;
a hit point ``H`` is drawn between ``m`` and the maximum ``M``; each qualifying
wager of ``w`` dollars adds ``d = c·w``; the bonus is paid to the wager whose
contribution takes the meter *in excess of* ``H`` (§631b.6(c)(3)), which is
wager number ``k = ⌊(H - m)/d⌋ + 1``, and the meter it pays is ``m + k·d``.
By the renewal-reward theorem the long-run return per unit wagered is
``E[m + k·d] / (w·E[k])``, and ``E[k]`` is the mean number of qualifying wagers
between hits. Two exact versions are given:

* *continuous*: ``H`` uniform on ``[m, M]`` and the meter exact to any
  fraction of a cent; with ``L = (M - m)/d`` and ``n = ⌊L⌋``,
  ``E⌊(H-m)/d⌋ = (n(n-1)/2 + n(L-n)) / L``;
* *whole cents*: ``H`` uniform on the whole-cent amounts ``m, m+0.01, ..., M``
  (the meter itself still exact), ``E⌊(H-m)/d⌋`` summed over those amounts.

They differ slightly when ``d`` is not a whole number of cents apart from the
grid; both are exact under their assumption.

>>> m = mystery_return(MysterySpec("x", "x", "x", Fraction(1), Fraction(100), Fraction(200), Fraction(1, 50)))
>>> m.wagers_between_hits, m.return_per_unit
(Fraction(5001, 2), Fraction(15001, 250050))
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from typing import Any

import numpy as np

from exactodds import extras
from exactodds.analyses.pricing import WagerResult
from exactodds.errors import ExactOddsError, exact_number
from exactodds.render.report import mystery_report, progressive_report
from exactodds.render.tables import Describes, Report, dataframe
from exactodds.wagers.pays import parse_amount

__all__ = [
    "MeterSpec", "ProgressiveSpec", "MysterySpec", "ProgressiveAnalysis", "MysteryReturn",
    "load_meters", "progressive_analysis", "mystery_return", "long_run_return", "parse_rate",
]


def parse_rate(text: object, *, where: str) -> Fraction:
    """A rate such as ``"10%"`` or ``0.1`` as an exact fraction in [0, 1)."""
    try:
        raw = str(text).strip()
        value = Fraction(raw[:-1]) / 100 if raw.endswith("%") else Fraction(raw)
    except (ValueError, ZeroDivisionError):
        raise ExactOddsError(f"{where}: {text!r} is not a rate (write e.g. 10% or 0.1)") from None
    if not 0 <= value < 1:
        raise ExactOddsError(f"{where}: rate {text} is outside [0, 1)")
    if value and value < Fraction(1, 10**6):
        raise ExactOddsError(f"{where}: rate {text} is below 0.0001%: a meter would take more than a million "
                             "wagers a dollar")
    return value


def _dollars(value: object, *, where: str, allow_zero: bool = True) -> Fraction:
    amount = parse_amount(value, where=where, what="a dollar amount")
    if amount < 0 or (amount == 0 and not allow_zero):
        raise ExactOddsError(f"{where}: amount must be {'>= 0' if allow_zero else 'above 0'}, got {value}")
    if amount > 10**12:
        raise ExactOddsError(f"{where}: at most $1,000,000,000,000, got {str(value)[:30]}")
    return amount


@dataclass(frozen=True)
class MeterSpec:
    """One meter's parameters: reseed dollars and rates, where the regulation gives them."""

    symbol: str
    reseed: Fraction | None = None
    increment_rate: Fraction | None = None
    reserve_rate: Fraction | None = None


@dataclass(frozen=True)
class ProgressiveSpec:
    """The meters of a progressive wager under one paytable, with their citation."""

    wager: str
    paytable: str
    section: str
    minimum_wager: Fraction | None
    meters: dict[str, MeterSpec] = field(default_factory=dict)
    note: str | None = None


@dataclass(frozen=True)
class MysterySpec:
    """A must-hit-by configuration: qualifying wager, minimum and maximum dollars, rate."""

    id: str
    name: str
    section: str
    wager: Fraction
    minimum: Fraction
    maximum: Fraction
    rate: Fraction
    note: str | None = None

    def __post_init__(self) -> None:
        where = f"mystery {self.id!r}"
        for name in ("wager", "minimum", "maximum", "rate"):      # exact: True was a wager of 1, a float entered it
            exact_number(getattr(self, name), f"{where}: the {name}")
        if self.wager <= 0:
            raise ExactOddsError(f"{where}: the qualifying wager must be above 0")
        if self.minimum < 0:
            raise ExactOddsError(f"{where}: the minimum must be >= 0, got {self.minimum}")
        if self.maximum <= self.minimum:
            raise ExactOddsError(f"{where}: the maximum {self.maximum} must be above the minimum {self.minimum}")
        if not 0 < self.rate < 1:
            raise ExactOddsError(f"{where}: the contribution rate must be in (0, 1) for the meter to move")


@functools.cache
def load_meters() -> tuple[dict[tuple[str, str], ProgressiveSpec], dict[str, MysterySpec]]:
    """The meter parameters of the regulations (``exactodds/data/meters.toml``)."""
    text = (resources.files("exactodds") / "data" / "meters.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    progressives: dict[tuple[str, str], ProgressiveSpec] = {}
    for entry in data.get("progressive", []):
        where = f"meters.toml: progressive {entry.get('wager')!r} {entry.get('paytable')!r}"
        meters = {
            sym: MeterSpec(
                sym,
                _dollars(m["reseed"], where=where) if "reseed" in m else None,
                parse_rate(m["increment_rate"], where=where) if "increment_rate" in m else None,
                parse_rate(m["reserve_rate"], where=where) if "reserve_rate" in m else None,
            )
            for sym, m in entry.get("meter", {}).items()
        }
        minimum = entry.get("minimum_wager")
        progressives[(entry["wager"], str(entry["paytable"]))] = ProgressiveSpec(
            entry["wager"], str(entry["paytable"]), entry["section"],
            _dollars(minimum, where=where, allow_zero=False) if minimum is not None else None,
            meters, entry.get("note"))
    mysteries = {}
    for entry in data.get("mystery", []):
        where = f"meters.toml: mystery {entry.get('id')!r}"
        mysteries[entry["id"]] = MysterySpec(
            entry["id"], entry["name"], entry["section"],
            _dollars(entry["wager"], where=where, allow_zero=False),
            _dollars(entry["minimum"], where=where), _dollars(entry["maximum"], where=where),
            parse_rate(entry["rate"], where=where), entry.get("note"))
    return progressives, mysteries


def _fraction(x: Any) -> Fraction:
    sympy = extras.load("sympy")
    r = sympy.nsimplify(x) if not isinstance(x, (sympy.Rational, int)) else sympy.Rational(x)
    return Fraction(int(r.p), int(r.q))


@dataclass(frozen=True)
class ProgressiveAnalysis(Describes):
    """The exact return of a progressive wager as a linear function of its meters."""

    result: WagerResult
    spec: ProgressiveSpec | None
    fixed_return: Fraction                      # a: E with every meter at zero
    coefficients: dict[str, Fraction]          # b per meter symbol: E = a + Σ b·J
    top_lines: dict[str, str]                  # meter symbol -> outcome name

    @property
    def expression(self) -> Any:
        return self.result.expected_return

    def report(self) -> Report:
        """The return as a function of the meters, the break-even of each (at the minimum wager)."""
        return progressive_report(self, wager_amount=self.minimum_wager, at=None, long_run=None,
                                  increments={}, reserves={}, reseeds={})

    def to_dataframe(self) -> Any:
        """One row per meter: the probability of its top award, its coefficient in the return and the
        break-even meter (units of the wager), floats beside exact twins."""

        rows = []
        for symbol, p in self.coefficients.items():
            try:
                be: Fraction | None = self.break_even(symbol)
            except ExactOddsError:
                be = None
            rows.append({"wager": self.result.wager.id, "paytable": self.result.paytable.id, "meter": symbol,
                         "top_award": self.top_lines.get(symbol, ""), "coefficient": float(p),
                         "coefficient_exact": p, "fixed_return": float(self.fixed_return),
                         "fixed_return_exact": self.fixed_return,
                         "break_even_units": None if be is None else float(be), "break_even_units_exact": be})
        return dataframe(rows)

    @property
    def minimum_wager(self) -> Fraction | None:
        return self.spec.minimum_wager if self.spec else None

    def reseed_units(self, symbol: str) -> Fraction | None:
        """A meter's reseed in units of the minimum wager, where both are known."""
        spec = self.spec.meters.get(symbol) if self.spec else None
        if spec is None or spec.reseed is None or self.minimum_wager is None:
            return None
        return spec.reseed / self.minimum_wager

    def at(self, meters: dict[str, Fraction]) -> Fraction:
        """The expected return with each meter at the given value (units of the wager)."""
        missing = [s for s in self.coefficients if s not in meters]
        if missing:
            raise ExactOddsError(f"no value for meter {missing[0]}")
        for s, v in meters.items():
            if s not in self.coefficients:
                raise ExactOddsError(f"wager {self.result.wager.id!r} has no meter {s}")
            if v < 0:
                raise ExactOddsError(f"meter {s} must be >= 0, got {v}")
        return self.fixed_return + sum((self.coefficients[s] * meters[s] for s in self.coefficients),
                                       Fraction(0))

    def break_even(self, symbol: str, others: dict[str, Fraction] | None = None) -> Fraction:
        """The value of meter ``symbol`` (units of the wager) at which the return is 0.

        Other meters are held at ``others`` or, by default, at their reseed.
        """
        sympy = extras.load("sympy")
        others = dict(others or {})
        for s in self.coefficients:
            if s != symbol and s not in others:
                reseed = self.reseed_units(s)
                if reseed is None:
                    raise ExactOddsError(f"give a value for meter {s} to solve for {symbol}")
                others[s] = reseed
        j = sympy.Symbol(symbol, positive=True)
        e = self.expression.to_sympy().subs(
            {sympy.Symbol(s, positive=True): sympy.Rational(v.numerator, v.denominator) for s, v in others.items()})
        (root,) = sympy.solve(sympy.Eq(e, 0), j) or (None,)
        if root is None:
            raise ExactOddsError(f"the return does not reach 0 for any meter {symbol} >= 0")
        return _fraction(root)


def progressive_analysis(result: WagerResult, spec: ProgressiveSpec | None = None) -> ProgressiveAnalysis:
    """Split a symbolic :class:`WagerResult` into ``a + Σ b·J``."""
    if not result.symbolic:
        raise ExactOddsError(f"wager {result.wager.id!r} has no progressive award")
    e = result.expected_return                                    # a Form, linear in the meters
    coefficients = {s: e.coefficient(s) for s in e.meters}
    tops = {}
    for line in result.lines:
        if line.pay.symbolic and line.pay.meter is not None:
            tops[line.pay.meter] = line.name
    return ProgressiveAnalysis(result, spec, e.constant, coefficients, tops)


def long_run_return(analysis: ProgressiveAnalysis, *, wager: Fraction,
                    increment: dict[str, Fraction], reseed: dict[str, Fraction] | None = None,
                    reserve: dict[str, Fraction] | None = None) -> Fraction:
    """Long-run RTP (see the module docstring): ``1 + a + Σ (p·R/w + r)``, with a reserve
    share ``q`` in place of ``p·R/w`` where the reserve funds the reseed."""
    if wager <= 0:
        raise ExactOddsError("the wager must be above 0")
    total = 1 + analysis.fixed_return
    for symbol, p in analysis.coefficients.items():
        r = increment.get(symbol)
        if r is None:
            raise ExactOddsError(f"give the increment rate of meter {symbol}")
        if not 0 <= r < 1:
            raise ExactOddsError(f"increment rate of {symbol} is outside [0, 1)")
        q = (reserve or {}).get(symbol)
        if q is not None:
            if not 0 <= q < 1:
                raise ExactOddsError(f"reserve rate of {symbol} is outside [0, 1)")
            total += r + q
            continue
        seed = (reseed or {}).get(symbol)
        if seed is None:
            raise ExactOddsError(f"give the reseed of meter {symbol} (or its reserve rate)")
        if seed < 0:
            raise ExactOddsError(f"reseed of {symbol} must be >= 0")
        total += p * seed / wager + r
    return total


@dataclass(frozen=True)
class MysteryReturn(Describes):
    """Exact long-run figures of one must-hit-by configuration."""

    spec: MysterySpec
    wagers_between_hits: Fraction     # E[k]
    mean_award: Fraction              # E[m + k·d], dollars
    return_per_unit: Fraction         # E[award] / (w · E[k])
    discrete: bool

    @property
    def from_contributions(self) -> Fraction:
        """The part of the return paid back from the players' own contributions: the rate."""
        return self.spec.rate

    @property
    def from_reset(self) -> Fraction:
        """The part paid from the reset amount (funded by the operator)."""
        return self.return_per_unit - self.spec.rate

    def report(self) -> Report:
        return mystery_report([self])


def mystery_return(spec: MysterySpec, *, whole_cents: bool = False) -> MysteryReturn:
    """The exact long-run return of a must-hit-by meter (see the module docstring)."""
    if type(whole_cents) is not bool:                 # "no" switched whole cents on
        raise ExactOddsError(f"whole_cents must be True or False, got {whole_cents!r}")
    d = spec.rate * spec.wager                      # dollars added per qualifying wager
    if not whole_cents:
        span = (spec.maximum - spec.minimum) / d      # L
        n = span.numerator // span.denominator
        mean_floor = (Fraction(n * (n - 1), 2) + n * (span - n)) / span
    else:
        cents = (spec.maximum - spec.minimum) * 100
        if cents.denominator != 1:
            raise ExactOddsError(f"mystery {spec.id!r}: minimum and maximum must be whole cents apart")
        q = d * 100                                   # contribution in cents
        i = np.arange(int(cents) + 1, dtype=np.int64)
        floors = int(((i * q.denominator) // q.numerator).sum())
        mean_floor = Fraction(floors, int(cents) + 1)
    k = mean_floor + 1
    award = spec.minimum + d * k
    return MysteryReturn(spec, k, award, award / (spec.wager * k), whole_cents)
