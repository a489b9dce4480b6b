"""Plots for notebooks (matplotlib, from the 'notebooks' extra); each takes an ``ax``.

The numbers plotted are the exact figures converted to floats at the last
moment, for drawing only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from .analysis import analyze
from .errors import ExactOddsError
from .pricing import WagerResult
from .shoe import Shoe

__all__ = ["edge_by_decks", "outcome_probabilities", "progressive_return", "removal_effect"]


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ExactOddsError("plots need matplotlib: pip install 'exactodds[notebooks]'") from None
    return plt.subplots(figsize=(7, 4))[1]


def edge_by_decks(pairs: Sequence[tuple[str, str]], *, decks: Iterable[int] = range(1, 9), ax: Any = None) -> Any:
    """House edge of each (wager, paytable) against the number of decks."""
    ax = _axes(ax)
    decks = list(decks)
    edges: dict[tuple[str, str], list[float]] = {p: [] for p in pairs}
    for n in decks:
        results = analyze(Shoe.decks(n), wagers=list(dict.fromkeys(w for w, _ in pairs)))
        for r in results:
            if (r.wager.id, r.paytable.id) in edges:
                edges[(r.wager.id, r.paytable.id)].append(float(r.house_edge) * 100)
    for (w, t), ys in edges.items():
        ax.plot(decks, ys, marker="o", label=f"{w} ({t})")
    ax.set_xlabel("decks in the shoe")
    ax.set_ylabel("house edge, %")
    ax.legend(fontsize="small")
    return ax


def outcome_probabilities(result: WagerResult, *, ax: Any = None, log: bool = True) -> Any:
    """Probability of each outcome of one priced wager (log scale by default)."""
    ax = _axes(ax)
    names = [ln.name for ln in result.lines]
    ax.barh(names, [float(ln.probability) for ln in result.lines])
    if log:
        ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set_xlabel("probability")
    ax.set_title(f"{result.wager.name} — paytable {result.paytable.id}", fontsize="medium")
    return ax


def progressive_return(analysis: Any, *, meter: Sequence[float], symbol: str = "J", ax: Any = None) -> Any:
    """Expected return against one meter (units of the wager), the break-even marked."""
    ax = _axes(ax)
    others = {s: analysis.reseed_units(s) or Fraction(0) for s in analysis.coefficients if s != symbol}
    ys = [float(analysis.at({**others, symbol: Fraction(x)})) for x in meter]
    ax.plot(list(meter), ys)
    be = analysis.break_even(symbol, others)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.axvline(float(be), color="red", linestyle="--", label=f"break-even {symbol}* = {float(be):,.0f} wagers")
    ax.set_xlabel(f"meter {symbol} (units of the wager)")
    ax.set_ylabel("expected return per unit")
    ax.legend(fontsize="small")
    return ax


def removal_effect(wager: str, paytable: str, *, decks: int = 8, ax: Any = None) -> dict[str, Fraction]:
    """Effect of removing one card of each rank on the house edge (exact); plotted if ``ax`` or pyplot.

    Returns rank -> change in house edge (exact Fraction).
    """
    base = analyze(Shoe.decks(decks), wagers=[wager], paytables=[paytable])[0].house_edge
    effect = {}
    for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"):
        shoe = Shoe.decks(decks).remove(f"{rank}s")
        effect[rank] = analyze(shoe, wagers=[wager], paytables=[paytable])[0].house_edge - base
    ax = _axes(ax)
    ax.bar(list(effect), [float(v) * 100 for v in effect.values()])
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("rank removed (one card, spades)")
    ax.set_ylabel("change in house edge, % points")
    ax.set_title(f"Effect of removal: {wager} ({paytable}), {decks} decks", fontsize="medium")
    return effect
