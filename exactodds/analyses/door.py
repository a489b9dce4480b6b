"""One door from the analyses into the engine: these wagers, with their paytables, on this shoe.

Every analysis asks the engine one kind of question: the exact counts per outcome of some wagers under
their paytables off the top of a shoe (one shoe, or many that differ by a few cards, one door each), and,
for a position, the joint counts of several wagers settled on one round. It asks it here. A :class:`Door`
chooses the route of each wager from an up-front estimate that every caller shares — the multiset tables
(:mod:`exactodds.engine.multiset`) where the table the wager reads is small enough to build, else the
recursive walk (:mod:`exactodds.engine.walk`), which reads the ranks and suits of many positions by group —
and refuses in one line, naming what each route would take, what neither can answer. No analysis beyond
this module names a route or a table: ``eor``, ``position``, ``design``, ``vigorish``, ``exposure``, the
certificate and its lab submission, ``check-sim``'s exact distribution and the live page price the hard
bets exactly as ``analyze`` does.

>>> from exactodds.wagers import load_catalogue
>>> tie = load_catalogue()["tie"]
>>> door = Door(Shoe.decks(8))
>>> f"{float(-door.expected_return(tie, tie.paytable('8-to-1'))):.4%}", door.route_of(tie)
('14.3596%', 'vector')

A condition on the round's cards that a player knows before the bet (the advantage-play analyses) will be
one more argument of the same door: the question is the same, asked of the rounds that meet it.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from exactodds import engine
from exactodds.analyses import pricing
from exactodds.analyses.pricing import (MomentArrays, PointDistribution, WagerResult, price, priced_together,
                                       settled_together, table_bytes)
from exactodds.engine import budget
from exactodds.engine.distribution import RoundDistribution, deal
from exactodds.errors import ExactOddsError, ExactOddsWarning, InconsistentCounts, SuitsUnknown, TooLarge
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import Paytable, Wager

__all__ = ["Door", "ROUTES", "WALK_FIRST_BYTES", "route_of", "returns_many", "value_moments", "value_returns", "check_route",
           "routed"]

#: The exact routes: ``auto`` (the tables, and the walk for a wager whose table would be too large
#: to build), the vectorised enumeration over multiset tables, and the recursive memoized walk.
ROUTES = ("auto", "vector", "walk")
#: Route auto: a wager whose table would take more than this to build (estimated; and no more than the tables'
#: limit, past which the walk prices it anyway), and whose ranks and suits the walk reads by group
#: (:func:`exactodds.engine.walk.reads_by_group`), is walked first; the table is built only where the walk
#: refuses it.
WALK_FIRST_BYTES = 1_000_000_000

#: A position's rank or suit (the features the walk reads by group).
_CARD = re.compile(r"^(player|banker)_(rank|suit)_([123])$")


def check_route(route: str) -> str:
    """``route`` if it is one of :data:`ROUTES`, else one line naming them."""
    if route not in ROUTES:
        raise ExactOddsError(f"unknown route {route!r} (use {', '.join(ROUTES)})")
    return route


#: The route of every door made without one (see :func:`routed`).
_ROUTE: contextvars.ContextVar[str] = contextvars.ContextVar("exactodds_route", default="auto")


@contextlib.contextmanager
def routed(route: str) -> Iterator[None]:
    """Every :class:`Door` (and :func:`returns_many`) made within, without a route of its own, takes ``route``:
    a command's ``--route``, for every analysis it runs (``eor``, ``position``, ``design`` ...), as
    :func:`exactodds.engine.budget.bounded` sets its ``--max-time``.

    >>> with routed("walk"):
    ...     Door(Shoe.decks(1)).route
    'walk'
    >>> Door(Shoe.decks(1)).route
    'auto'
    """
    token = _ROUTE.set(check_route(route))
    try:
        yield
    finally:
        _ROUTE.reset(token)


def route_in_force(route: str | None = None) -> str:
    """``route`` (checked), or where it is None the route in force (:func:`routed`; auto outside any).

    >>> with routed("walk"):
    ...     route_in_force(), route_in_force("vector")
    ('walk', 'vector')
    """
    return check_route(_ROUTE.get() if route is None else route)


def route_of(wager: Wager) -> str:
    """The route auto asks first for ``wager``, chosen before anything is built and the same for every shoe whose
    suits are known: ``walk`` where its table would take more than :data:`WALK_FIRST_BYTES` and the walk reads it
    by group, else ``vector`` (a table refused by its estimate, before anything is built, is then walked:
    :meth:`Door.price`).

    >>> from exactodds.wagers import load_catalogue
    >>> route_of(load_catalogue()["banker"])
    'vector'
    """
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    if "route" not in cache:
        cache["route"] = "walk" if _walk_first(wager) else "vector"
    return cache["route"]  # type: ignore[no-any-return]


def _walk_first(wager: Wager) -> bool:
    """Whether route auto walks ``wager`` before it builds its table (see :data:`WALK_FIRST_BYTES`): asked in
    turn from the cheapest (a table's estimate takes 0.1 s, and most wagers read no two positions' cards)."""
    if len({m[1] + m[3] for f in wager.features if (m := _CARD.match(f))}) < 2 or not engine.reads_by_group(wager):
        return False
    try:
        return WALK_FIRST_BYTES < table_bytes(wager) <= engine.LIMIT_BYTES
    except ExactOddsError:                                 # the table is refused: price says why, in its turn
        return False


def _estimate_refuses(wager: Wager) -> bool:
    """Whether the estimate of the table ``wager`` reads is past the tables' limit (it is refused for every shoe)."""
    try:
        return table_bytes(wager) > engine.LIMIT_BYTES
    except ExactOddsError:
        return False


class Door:
    """The exact answer for any wager under any paytable off the top of ``shoe``, by the route that can give it.

    ``route`` ``auto`` (the default, unless :func:`routed` says another) prices each wager by the tables or the
    walk as :func:`route_of` and the tables' own refusals say, and warns once per wager and paytable walked
    (``warn``); ``vector`` or ``walk`` forces one. :attr:`walked` names the ``WAGER:PAYTABLE`` the walk priced.
    """

    def __init__(self, shoe: Shoe, *, route: str | None = None, warn: bool = True):
        self.shoe = shoe
        self.route = route_in_force(route)
        self.total = shoe.sequences
        self.warn = warn
        self.tables: RoundDistribution = deal(shoe)
        self._walk: Any = None
        self.walked: list[str] = []

    def __repr__(self) -> str:
        return f"<Door to {self.shoe.describe()}, route {self.route}>"

    @property
    def walk(self) -> Any:
        """The walk's distribution of this shoe (made on first use: its module loads only when it is asked for)."""
        if self._walk is None:
            self._walk = engine.WalkDistribution(self.shoe)
        return self._walk

    @property
    def default(self) -> PointDistribution:
        """The distribution the route prices by when it does not choose per wager (the tables, or the walk)."""
        return self.walk if self.route == "walk" else self.tables

    def route_of(self, wager: Wager) -> str:
        """The route this door asks first for ``wager``: ``vector`` or ``walk``."""
        if self.route != "auto":
            return self.route
        if self.shoe.card_counts is None:                  # suits unknown: the tables say which wagers they price
            return "vector"
        return route_of(wager)

    def prepare(self, wagers: Iterable[Wager]) -> None:
        """Walk the shoe once for each group of ``wagers`` read alike (route walk, a shoe whose suits are known)."""
        if self.route == "walk" and self.shoe.card_counts is not None:
            self.walk.prepare(wagers)

    def price(self, wager: Wager, paytable: Paytable, sums: dict[int, int] | None = None) -> WagerResult:
        """``wager`` under ``paytable`` priced exactly (``sums``: its counts per outcome, where counted already)."""
        if sums is not None:                                # counted by the tables already: nothing to choose
            try:
                return price(wager, paytable, self.tables, sums)
            except TooLarge:                                # as below, the refusal leads to the walk
                pass
        cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
        if self.route == "auto" and self.route_of(wager) == "walk":
            refused = cache.get("tables refused")          # the tables' own line, where they refused the table
            try:
                result = price(wager, paytable, self.walk)
            except TooLarge as walk:
                if refused is not None:
                    raise TooLarge(f"{refused}; and by the walk: {walk}") from None
                return price(wager, paytable, self.tables)          # the table, within its limit
            self._walked(wager, paytable, _why_walked(wager))
            return result
        try:
            return price(wager, paytable, self.default, sums)
        except TooLarge as tables:
            if self.route == "vector":                      # forced: the user may not know the walk is there
                raise TooLarge(f"{tables}; --route auto (the default) walks a wager whose table is too large, "
                               "or --route walk") from None
            if self.route != "auto":
                raise
            if self.shoe.card_counts is not None and _estimate_refuses(wager):   # refused before anything is
                cache["tables refused"], cache["route"] = str(tables), "walk"      # built, for every shoe: walked
                return self.price(wager, paytable)                                 # from now on
            try:                                               # e.g. suits unknown: the walk says if it reads it
                result = price(wager, paytable, self.walk)
            except TooLarge as walk:
                raise TooLarge(f"{tables}; and by the walk: {walk}") from None
            size = re.search(r"about [^;]*\(limit [^)]*\)", str(tables))
            why = ("the tables cannot read its features together" if "cannot be read together" in str(tables) else
                   "its table would be too large to build" + (f" ({size[0]})" if size else ""))
            self._walked(wager, paytable, why)
            return result

    def _walked(self, wager: Wager, paytable: Paytable, why: str) -> None:
        name = f"{wager.id}:{paytable.id}"
        if name not in self.walked:
            self.walked.append(name)
            if self.warn:
                read = engine.reading(wager)                    # how coarsely it reads the cards
                warnings.warn(ExactOddsWarning(f"{name} priced by the walk{f' ({read})' if read else ''}: {why}"),
                              stacklevel=4)

    def price_all(self, pairs: Sequence[tuple[Wager, Paytable]], *, skip_suits_unknown: bool = False
                  ) -> tuple[list[WagerResult], list[int]]:
        """Every pair priced, those the tables price counted together (one count per table read, a block per
        outcome: :func:`~exactodds.analyses.pricing.settled_together`); with ``skip_suits_unknown``, a pair that
        reads suits of a shoe whose suits are unknown is left out, its place in ``pairs`` returned beside."""
        if self.route == "walk":
            self.prepare(w for w, _ in pairs)
            together: dict[int, dict[int, int]] = {}
        elif self.route == "vector" or self.shoe.card_counts is None or all([route_of(w) == "vector" for w, _ in pairs]):
            if not skip_suits_unknown:                 # the tables count every pair they can, priced at once
                done = priced_together(pairs, self.tables)
                if len(done) == len(pairs):
                    return [done[i] for i in range(len(pairs))], []
                return [done[i] if i in done else self.price(w, t) for i, (w, t) in enumerate(pairs)], []
            together = settled_together(pairs, self.tables)
        else:
            first = [i for i, (w, _) in enumerate(pairs) if self.route_of(w) == "vector"]
            counted = settled_together([pairs[i] for i in first], self.tables)
            together = {first[k]: sums for k, sums in counted.items()}
        if not skip_suits_unknown:
            return [self.price(w, t, together.get(i)) for i, (w, t) in enumerate(pairs)], []
        priced, skipped = [], []
        for i, (w, t) in enumerate(pairs):
            try:
                priced.append(self.price(w, t, together.get(i)))
            except SuitsUnknown:
                skipped.append(i)
        return priced, skipped

    def expected_return(self, wager: Wager, paytable: Paytable) -> Any:
        """The exact expected return of one unit (a Fraction, or a form in a progressive's meters)."""
        if self.route_of(wager) == "vector" and self.route != "walk":
            try:
                return pricing.expected_return(wager, paytable, self.tables)
            except TooLarge:                               # the refusal said as price says it
                pass
        return self.price(wager, paytable).expected_return

    def expected_square(self, wager: Wager, paytable: Paytable) -> Fraction:
        """The exact expected squared result of one unit (fixed pays only)."""
        if self.route_of(wager) == "vector" and self.route != "walk":
            try:
                return pricing.expected_square(wager, paytable, self.tables)
            except TooLarge:                               # the refusal said as price says it
                pass
        result = self.price(wager, paytable)
        if result.symbolic:
            raise ExactOddsError(f"wager {wager.id!r} ({paytable.id}) pays a share of a meter: no fixed square")
        return result.variance + result.expected_return ** 2  # type: ignore[no-any-return]

    def outcome_counts(self, wager: Wager, paytable: Paytable) -> dict[int, int]:
        """Sequences per outcome index of ``wager`` (-1 a loss), by the route that prices it."""
        index = {o.id: k for k, o in enumerate(wager.outcomes)}
        return {index.get(ln.id, -1): ln.combinations for ln in self.price(wager, paytable).lines}

    def joint(self, pairs: Sequence[tuple[Wager, Paytable]], *, tables: Any = None) -> dict[tuple[int, ...], int]:
        """Sequences per tuple of the pairs' outcome indices (-1 a loss) on one round. ``tables``: a callable that
        counts them off one table of every feature they read (the caller's), asked first where every pair is
        priced by the tables; where that table is refused, or a pair is walked, the wagers are walked together."""
        if tables is not None and self.route != "walk" and all(self.route_of(w) == "vector" for w, _ in pairs):
            try:
                return tables()  # type: ignore[no-any-return]
            except TooLarge as refused:
                if self.route == "vector":
                    raise
                first: TooLarge | None = refused
        else:
            first = None
        try:
            found = engine.joint_counts(self.shoe, pairs)
        except TooLarge as walk:
            raise TooLarge(f"{first}; and by the walk: {walk}" if first else str(walk)) from None
        if sum(found.values()) != self.total:             # an invariant of the counting
            raise InconsistentCounts("the joint counts do not add up to the shoe's sequences")
        return found


def value_moments(pairs: Sequence[tuple[Wager, Paytable]], value_counts: np.ndarray, *, route: str = "auto",
                  second: bool = False, cross: bool = False) -> list[MomentArrays | None]:
    """Many shoes at once (a row of ``value_counts`` per shoe: its cards per point value) for the pairs read at
    point values by the tables: their moments as integer arrays
    (:func:`~exactodds.analyses.pricing.moment_arrays`); None for the others, which a :class:`Door` per shoe
    prices (route walk: None for every pair)."""
    if check_route(route) == "walk":
        return [None] * len(pairs)
    return pricing.moment_arrays(pairs, value_counts, second=second, cross=cross)


def value_returns(wager: Wager, paytable: Paytable, value_counts: np.ndarray) -> list[Fraction] | None:
    """Many shoes at once (a row of ``value_counts`` per shoe) for a wager the tables read at point values: its
    exact expected return on each (:func:`~exactodds.analyses.pricing.expected_returns`); None for another."""
    return pricing.expected_returns(wager, paytable, value_counts)


def returns_many(pairs: Sequence[tuple[Wager, Paytable]], shoes: Sequence[Shoe], *, route: str | None = None,
                 square: bool = False, warn: bool = True) -> list[list[tuple[Any, Fraction | None]]]:
    """Many shoes at once (shoes that differ by a few cards: exposure's rounds, effects of removal): per pair, per
    shoe, the exact expected return of one unit and, with ``square``, the expected squared result (fixed pays).
    A pair the walk prices is counted for every shoe by one program of the walk
    (:func:`exactodds.engine.walk.outcome_counts_many`); the others by a :class:`Door` per shoe (the first shoe
    says the route, and warns once where ``warn``)."""
    route = route_in_force(route)
    shoes = list(shoes)
    out: list[list[tuple[Any, Fraction | None]]] = []
    doors = [Door(s, route=route, warn=warn and k == 0) for k, s in enumerate(shoes)]
    for wager, paytable in pairs:
        if not shoes:
            out.append([])
            continue
        counted = None
        if route != "vector" and all(s.card_counts is not None for s in shoes) and doors[0].route_of(wager) == "walk":
            try:                                                # the route known already: no shoe walked twice
                counted = engine.outcome_counts_many(wager, paytable, shoes)
                if route == "auto":
                    doors[0]._walked(wager, paytable, _why_walked(wager))
            except TooLarge:                                    # the walk refused: the door says what prices it
                counted = None
        if counted is None:
            first = doors[0].price(wager, paytable)             # says the route (and why), once
            walked = doors[0].route == "walk" or f"{wager.id}:{paytable.id}" in doors[0].walked
            if not walked or shoes[0].card_counts is None:
                rows = [(first.expected_return, _square(first) if square else None)]
                with budget.units(f"wager {wager.id}:{paytable.id} on {len(shoes):,} shoes", len(shoes) - 1,
                                  unit="shoe", instead="fewer shoes", fits=True) as timed:
                    for d in doors[1:]:
                        rows.append((d.expected_return(wager, paytable),
                                     d.expected_square(wager, paytable) if square else None))
                        timed.done()
                out.append(rows)
                continue
            counted = engine.outcome_counts_many(wager, paytable, shoes)
        nets = {k: paytable.pays[o.id].net for k, o in enumerate(wager.outcomes)} | {-1: Fraction(-1)}
        out.append(_priced(nets, shoes, counted, square))
    return out


def _priced(nets: dict[int, Any], shoes: Sequence[Shoe], counted: Sequence[dict[int, int]],
            square: bool) -> list[tuple[Any, Any]]:
    """Per shoe, the mean (and with ``square`` the mean square) of the nets paid per outcome index of
    ``counted``: in integers over one denominator where every net is a fraction (a meter's share: as it is).

    >>> n = Shoe.decks(1).sequences                 # half the rounds paid 1 to 2, half lost
    >>> _priced({0: Fraction(1, 2), -1: Fraction(-1)}, [Shoe.decks(1)], [{0: n // 2, -1: n // 2}], True)
    [(Fraction(-1, 4), Fraction(5, 8))]
    """
    rows: list[tuple[Any, Any]] = []
    if not all(isinstance(n, (int, Fraction)) for n in nets.values()):
        for shoe, counts in zip(shoes, counted):
            mean = sum((nets[k] * n for k, n in counts.items()), Fraction(0)) / shoe.sequences
            second = sum((nets[k] * nets[k] * n for k, n in counts.items()), Fraction(0)) / shoe.sequences \
                if square else None
            rows.append((mean, second))
        return rows
    unit = math.lcm(*(Fraction(n).denominator for n in nets.values()))
    ints = {k: int(n * unit) for k, n in nets.items()}
    for shoe, counts in zip(shoes, counted):
        total = shoe.sequences
        mean = Fraction(sum(ints[k] * n for k, n in counts.items()), unit * total)
        second = Fraction(sum(ints[k] * ints[k] * n for k, n in counts.items()), unit * unit * total) \
            if square else None
        rows.append((mean, second))
    return rows


def _why_walked(wager: Wager) -> str:
    """Why route auto walks ``wager`` (:func:`route_of` said walk): its table refused, or larger than the walk."""
    refused = wager.__dict__.setdefault("_cache", {}).get("tables refused")
    if refused is not None:
        size = re.search(r"about [^;]*\(limit [^)]*\)", refused)
        return "its table would be too large to build" + (f" ({size[0]})" if size else "")
    return (f"its table would take about {table_bytes(wager) / 1e9:.1f} GB to build, the walk less (it "
            "reads the cards' ranks and suits by group)")


def _square(result: WagerResult) -> Fraction:
    if result.symbolic:
        raise ExactOddsError(f"wager {result.wager.id!r} ({result.paytable.id}) pays a share of a meter: no fixed "
                             "square")
    return result.variance + result.expected_return ** 2  # type: ignore[no-any-return]
