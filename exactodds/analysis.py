"""One call from a shoe to priced wagers: :func:`analyze`.

>>> a = analyze(Shoe.decks(8), wagers=["tie"], paytables=["8-to-1"])
>>> [(r.wager.id, r.paytable.id, f"{float(r.house_edge):.4%}") for r in a]
[('tie', '8-to-1', '14.3596%')]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .engine import deal
from .errors import ExactOddsError
from .pricing import WagerResult, check_wagers, price
from .render import Results
from .report import analysis_dict, render
from .shoe import Shoe
from .walk import WalkDistribution
from .wagers import Catalogue, Wager, load_catalogue, read_file

__all__ = ["Analysis", "analyze", "select", "load_file", "priced_pairs", "MAIN_WAGERS", "ROUTES"]

#: The main-game wagers `exactodds analyze` prices when none is named.
MAIN_WAGERS = (
    "banker", "player", "tie", "ez-banker", "commission-free-banker",
    "rising-phoenix-banker-commission-free",
)

#: The two exact routes: the vectorised enumeration and the recursive memoized walk.
ROUTES = ("vector", "walk")


@dataclass(frozen=True)
class Analysis(Results[WagerResult]):
    """Priced wagers for one shoe; shows itself as text, HTML or a DataFrame."""

    shoe: Shoe
    results: tuple[WagerResult, ...]
    route: str = "vector"

    def render(self, fmt: str) -> str:
        return render(fmt, self.shoe, self.results, route=self.route)

    def to_dict(self) -> dict[str, Any]:
        return analysis_dict(self.shoe, self.results, route=self.route)

    def to_dataframe(self) -> Any:
        """One row per wager, paytable and outcome (needs pandas: the 'notebooks' extra)."""
        try:
            import pandas as pd
        except ImportError:
            raise ExactOddsError("to_dataframe() needs pandas: pip install 'exactodds[notebooks]'") from None
        rows = [
            {"wager": r.wager.id, "paytable": r.paytable.id, "outcome": ln.name, "pays": ln.pay.text,
             "combinations": ln.combinations, "probability": ln.probability, "return": ln.contribution}
            for r in self.results for ln in r.lines
        ]
        return pd.DataFrame(rows)

    def summary(self) -> Any:
        """One row per wager and paytable: exact return, edge, variance, hit frequency (pandas)."""
        import pandas as pd

        return pd.DataFrame([{"wager": r.wager.id, "paytable": r.paytable.id, "section": r.wager.section,
                              "expected_return": r.expected_return,
                              "house_edge": None if r.symbolic else r.house_edge,
                              "house_edge_%": None if r.symbolic else float(r.house_edge) * 100,
                              "variance": None if r.symbolic else r.variance,
                              "hit_frequency": r.hit_frequency} for r in self.results])


def load_file(path: str | Path) -> Catalogue:
    """Wagers from a user's own data file, checked exactly like the shipped ones: as data
    when read, and every outcome against every possible round of its exact table."""
    catalogue = read_file(path)
    check_wagers(catalogue)
    return catalogue


def priced_pairs(catalogue: Mapping[str, Wager], specs: Iterable[str], *,
                 where: str = "WAGER:PAYTABLE") -> list[tuple[Wager, str]]:
    """``WAGER:PAYTABLE`` (or a bare ``WAGER``: all its paytables) → (wager, paytable id) pairs.

    >>> [(w.id, t) for w, t in priced_pairs(load_catalogue(), ["tie", "dragon-bonus-player:b"])]
    [('tie', '8-to-1'), ('tie', '9-to-1'), ('dragon-bonus-player', 'B')]
    """
    pairs: list[tuple[Wager, str]] = []
    for spec in specs:
        wid, sep, table = spec.strip().partition(":")
        if not wid:
            raise ExactOddsError(f"{where} {spec!r}: write WAGER or WAGER:PAYTABLE (see 'exactodds list')")
        try:
            w = catalogue[wid]
            tables = [w.paytable(table).id] if sep else list(w.paytables)
        except ExactOddsError as exc:
            raise ExactOddsError(f"{where} {spec!r}: {exc}") from None
        pairs.extend((w, t) for t in tables if (w, t) not in pairs)
    return pairs


def select(
    catalogue: Mapping[str, Wager],
    *,
    wagers: Iterable[str] = (),
    paytables: Iterable[str] = (),
    everything: bool = False,
    alternatives: Mapping[str, str] | None = None,
) -> list[tuple[Wager, str]]:
    """The (wager, paytable id) pairs a request names, checked against the catalogue."""
    ids = list(catalogue) if everything else list(wagers) or [w for w in MAIN_WAGERS if w in catalogue]
    wanted = [p.lower() for p in paytables]
    alternatives = dict(alternatives or {})
    for wid in alternatives:
        if wid not in ids:
            raise ExactOddsError(f"--alternative names wager {wid!r}, which is not selected")
    pairs: list[tuple[Wager, str]] = []
    used: set[str] = set()
    for wid in ids:
        if wid not in catalogue:
            raise ExactOddsError(f"unknown wager {wid!r} (see 'exactodds list')")
        w = catalogue[wid]
        if wid in alternatives:
            w = w.with_alternative(alternatives[wid])
        elif w.follows in alternatives and alternatives[w.follows] in w.alternatives:
            w = w.with_alternative(alternatives[w.follows])     # e.g. Cover All reads Blazing 7's as chosen
        tables = [t for t in w.paytables if not wanted or t.lower() in wanted]
        if not tables and not everything:
            raise ExactOddsError(
                f"wager {wid!r} has no paytable {', '.join(paytables)} (it has {', '.join(w.paytables)})"
            )
        used.update(t.lower() for t in tables)
        pairs.extend((w, t) for t in tables)
    if missing := [p for p, low in zip(paytables, wanted) if low not in used]:
        raise ExactOddsError(f"no selected wager has paytable {missing[0]!r}")
    return pairs


def analyze(
    shoe: Shoe | None = None,
    *,
    wagers: Iterable[str] = (),
    paytables: Iterable[str] = (),
    everything: bool = False,
    catalogue: Catalogue | None = None,
    alternatives: Mapping[str, str] | None = None,
    route: str = "vector",
) -> Analysis:
    """Price the selected wagers exactly, off the top of ``shoe`` (8 decks by default)."""
    shoe = shoe if shoe is not None else Shoe.decks(8)
    if route not in ROUTES:
        raise ExactOddsError(f"unknown route {route!r} (use {' or '.join(ROUTES)})")
    pairs = select(catalogue if catalogue is not None else load_catalogue(), wagers=wagers,
                   paytables=paytables, everything=everything, alternatives=alternatives)
    dist = deal(shoe) if route == "vector" else WalkDistribution(shoe)
    return Analysis(shoe, tuple(price(w, w.paytables[t], dist) for w, t in pairs), route)
