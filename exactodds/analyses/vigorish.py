"""The Banker's vigorish over many bet sizes: what the 25¢ rounding of §627a.12(c) adds to the house edge.

The rounding itself, and a wager priced at one bet size, are :mod:`exactodds.wagers.bet_size`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactodds._version import __version__
from exactodds.analyses.door import Door
from exactodds.errors import ExactOddsError, exact_number
from exactodds.game.shoe import Shoe
from exactodds.render.tables import (
    Column,
    Report,
    Results,
    Table,
    dataframe,
    exact,
    merge,
    percent,
)
from exactodds.wagers.bet_size import at_bet, vigorish
from exactodds.wagers.catalogue import Wager, load_catalogue
from exactodds.wagers.pays import vigorish_terms

__all__ = ["VigorishTable", "VigorishTables", "vigorish_table", "COMMON_BETS"]

#: The bet sizes of the default table: every dollar to $25, then the multiples of $5 to $100.
COMMON_BETS = tuple(range(1, 26)) + tuple(range(30, 101, 5))


@dataclass(frozen=True)
class VigorishRow:
    bet: Fraction
    won: Fraction
    exact_vigorish: Fraction
    charged: Fraction
    house_edge: Fraction
    unrounded_edge: Fraction

    @property
    def difference(self) -> Fraction:
        """What the rounding adds to the house edge."""
        return self.house_edge - self.unrounded_edge


@dataclass(frozen=True)
class VigorishTable(Results[VigorishRow]):
    """The Banker's exact edge at each bet size, the vigorish rounded up to 25¢."""

    wager: Wager
    shoe: Shoe
    results: tuple[VigorishRow, ...]
    paytable: str | None = None

    def to_dataframe(self) -> Any:
        return dataframe([{"bet": float(r.bet), "bet_exact": r.bet, "vigorish": float(r.charged),
                        "vigorish_unrounded": float(r.exact_vigorish), "house_edge": float(r.house_edge),
                        "house_edge_exact": r.house_edge, "added_by_rounding": float(r.difference),
                        "shoe": self.shoe.describe()} for r in self.results])

    def report(self) -> Report:
        """The bet sizes as a table; CSV one row per bet, the edge beside its exact twin."""
        shown = (Column("bet", "Bet", "decimal", 2, prefix="$"),
                 Column("vigorish_unrounded", "5% of the win", "decimal", 4, prefix="$"),
                 Column("vigorish", "Vigorish charged", "decimal", 2, prefix="$"),
                 Column("house_edge", "House edge", "percent", 4, house_edge=True),
                 Column("added_by_rounding", "Added by rounding", "percent", 4))
        tidy = (Column("bet", kind="decimal", places=2), Column("vigorish_unrounded", kind="decimal", places=4),
                Column("vigorish", kind="decimal", places=2), Column("house_edge", kind="decimal", places=10, twin=True),
                Column("added_by_rounding", kind="decimal", places=10))
        rows = tuple((r.bet, r.exact_vigorish, r.charged, r.house_edge, r.difference) for r in self.results)
        title = (f"{self.wager.name} at each bet size, {self.shoe.describe()}: the vigorish rounded up to a "
                 f"multiple of 25¢ (§627a.12(c)); unrounded edge {percent(self.results[0].unrounded_edge, 4)}")
        return Report("vigorish", tables=(Table(shown, rows, title=title),), tidy=Table(tidy, rows), data=self.data())

    def data(self) -> dict[str, Any]:
        """The table as plain data with exact values (the JSON document)."""
        return {"wager": self.wager.id, "paytable": self.paytable, "section": "627a.12(c)",
                "shoe": self.shoe.to_dict(),
                "rows": [{"bet": exact(r.bet), "won": exact(r.won), "vigorish_unrounded": exact(r.exact_vigorish),
                          "vigorish": exact(r.charged), "house_edge": exact(r.house_edge),
                          "added_by_rounding": exact(r.difference)} for r in self.results]}


def vigorish_table(shoe: Shoe, bets: Iterable[Fraction | int] = COMMON_BETS, *, wager: Wager | None = None,
                   paytable: str | None = None) -> VigorishTable:
    """The exact edge of ``wager`` (the Banker by default) at each bet size, off the top of ``shoe``."""

    w = wager if wager is not None else load_catalogue()["banker"]
    if paytable is None:
        paytable = next((tid for tid, t in w.paytables.items()
                         if any(vigorish_terms(p.text) for p in t.pays.values())), None)
        if paytable is None:
            raise ExactOddsError(f"wager {w.id!r} charges no vigorish")
    door = Door(shoe)
    base = -door.expected_return(w, w.paytable(paytable))
    rows: list[VigorishRow] = []
    sizes: set[Fraction] = set()
    for raw in bets:
        bet = exact_number(raw, "--bets: a bet size")
        if not 0 < bet <= 10**9:                             # -5 was priced as a bet of -5
            raise ExactOddsError(f"--bets: a bet size from above $0 to $1,000,000,000, got {raw!r}")
        if bet in sizes:
            raise ExactOddsError(f"--bets: the bet size {raw!r} given twice")
        sizes.add(bet)
        priced = at_bet(w, bet)
        gross, rate = _terms(w, paytable)
        won = bet * gross
        rows.append(VigorishRow(bet, won, won * rate, vigorish(won, rate=rate),
                                -door.expected_return(priced, priced.paytable(paytable)), base))
    if not rows:
        raise ExactOddsError("--bets: give at least one bet size")
    return VigorishTable(w, shoe, tuple(rows), w.paytable(paytable).id)


@dataclass(frozen=True)
class VigorishTables(Results[VigorishTable]):
    """Several wagers' vigorish tables: one renders as itself; several as each table in turn (text,
    Markdown, HTML), one CSV with the wager and paytable first, or JSON ``{"kind": "vigorish", "tables": [...]}``."""

    results: tuple[VigorishTable, ...]

    def report(self) -> Report:
        reports = [t.report() for t in self.results]
        return merge(reports, kind="vigorish", keys=(Column("wager"), Column("paytable")),
                     key_values=[(t.wager.id, t.paytable or "") for t in self.results],
                     data={"tables": [{"exactodds": __version__, "kind": "vigorish", **t.data()}
                                      for t in self.results]})


def _terms(w: Wager, paytable: str) -> tuple[Fraction, Fraction]:
    found: Sequence[tuple[Fraction, Fraction]] = [t for p in w.paytable(paytable).pays.values()
                                                  if (t := vigorish_terms(p.text)) is not None]
    if not found:
        raise ExactOddsError(f"wager {w.id!r} charges no vigorish")
    return found[0]
