"""Plots for notebooks (matplotlib, from the 'notebooks' extra); each takes an ``ax``.

The numbers plotted are the exact figures converted to floats at the last
moment, for drawing only.
"""

from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from exactodds import extras
from exactodds.analyses.analysis import analyze
from exactodds.analyses.eor import PER, effects_of_removal
from exactodds.analyses.pricing import WagerResult
from exactodds.analyses.progressive import ProgressiveAnalysis, load_meters, progressive_analysis
from exactodds.errors import ExactOddsError
from exactodds.files import check_output, write_atomically
from exactodds.game.shoe import Shoe

__all__ = ["edge_by_decks", "outcome_probabilities", "progressive_return", "removal_effect", "effects_bars",
           "edge_by_penetration", "position_distribution", "save_plot", "check_plot_path"]


def _one(result: Any, name: str) -> Any:
    """One wager's result: itself, or the only result of a table of them."""
    if hasattr(result, "results"):
        if len(result.results) != 1:
            raise ExactOddsError(f"{name}() draws one wager: pass one result, e.g. table[0]")
        return result.results[0]
    return result


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    try:
        plt = extras.load("matplotlib.pyplot")
    except ImportError:
        raise ExactOddsError("plots need matplotlib: pip install 'exactodds[notebooks]'") from None
    return plt.subplots(figsize=(7, 4))[1]


def _title(ax: Any, text: str) -> None:
    """The panel's title, each line wrapped to the width of its axes (panels side by side never overlap their
    titles)."""
    ax.set_title("", fontsize="medium")
    width = ax.get_position().width * ax.figure.get_figwidth() * 72            # points
    chars = max(24, int(width / (0.55 * ax.title.get_fontproperties().get_size_in_points())))
    ax.set_title("\n".join(textwrap.fill(line, chars) for line in text.split("\n")), fontsize="medium")


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
    ax.set_ylabel("house edge, % (positive: the house wins)")
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
    _title(ax, f"{result.wager.name} — paytable {result.paytable.id}")
    return ax


def progressive_return(analysis: Any, *, meter: Sequence[float], symbol: str | None = None, ax: Any = None) -> Any:
    """Expected return against one meter (units of the wager), the break-even marked.

    ``analysis`` is a :class:`~exactodds.analyses.progressive.ProgressiveAnalysis`, or a priced progressive
    (a :class:`~exactodds.analyses.pricing.WagerResult`, or an :class:`~exactodds.analyses.analysis.Analysis` of one);
    ``symbol`` defaults to the meter of the top award.
    """
    if not isinstance(analysis, ProgressiveAnalysis):
        result = _one(analysis, "progressive_return")
        if not getattr(result, "symbolic", False):
            raise ExactOddsError("progressive_return() draws a progressive wager (one whose pays include a meter)")
        analysis = progressive_analysis(result, load_meters()[0].get((result.wager.id, result.paytable.id)))
    if symbol is None:
        symbol = max(analysis.coefficients, key=lambda s: (analysis.coefficients[s] == 0, -analysis.coefficients[s]))
    elif symbol not in analysis.coefficients:
        raise ExactOddsError(f"no meter {symbol!r} (meters: {', '.join(analysis.coefficients)})")
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
    """Effect of removing one card of each rank on the player's expected return (exact); drawn as
    :func:`effects_bars` draws it (x100,000, positive: the removal helps the player).

    Returns rank -> change in the player's expected return per unit (exact Fraction), the effects
    :func:`exactodds.analyses.eor.effects_of_removal` gives; the change in the house edge is its negative.
    """
    r = effects_of_removal(Shoe.decks(decks), [(wager, paytable)])[0]
    effects_bars(r, ax=ax)
    return {item: e for item, e in zip(r.items, r.numeric()) if e is not None}


def effects_bars(effects: Any, *, ax: Any = None) -> Any:
    """Bars of a :class:`~exactodds.analyses.eor.RemovalEffects`: the change in the player's expected return x100,000
    per card removed (positive: the removal helps the player), with the count's tags written above them."""
    effects = _one(effects, "effects_bars")
    ax = _axes(ax)
    values = [0.0 if v is None else float(v) * PER for v in effects.numeric()]
    bars = ax.bar(list(effects.items), values, color=["tab:green" if v > 0 else "tab:red" for v in values])
    if effects.count is not None and effects.count.betting_correlation is not None:
        for bar, item in zip(bars, effects.items):
            tag = effects.count.tags.get(item, 0)
            ax.annotate(f"{tag:+d}" if tag else "0", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom" if bar.get_height() >= 0 else "top", fontsize="x-small")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("card removed" + ("  (tags of the count above the bars)" if effects.count else ""))
    ax.set_ylabel(f"change in player's expected return x{PER:,}")
    _title(ax, f"Effect of removal: {effects.wager.name} ({effects.paytable.id}), {effects.shoe.label}")
    if len(effects.items) > 13:
        ax.tick_params(axis="x", labelsize="xx-small", rotation=90)
    return ax


def edge_by_penetration(result: Any, *, ax: Any = None) -> Any:
    """The player's expected return against penetration of a :class:`~exactodds.simulation.exposure.WagerExposure`:
    its exact mean per tenth of the shoe seen, its middle 80% (to the 1% bin), the lowest and highest,
    and the share of rounds with a player advantage (positive: the player wins, as everywhere a
    player's view is drawn)."""
    result = _one(result, "edge_by_penetration")
    ax = _axes(ax)
    rows = result.penetration()
    x = [float(r["seen_from"] + r["seen_to"]) / 2 * 100 for r in rows]
    mean = [float(r["mean_player_expected_return"]) * 100 for r in rows]
    ax.fill_between(x, [float(r["decile_1_player_expected_return"]) * 100 for r in rows],
                    [float(r["decile_9_player_expected_return"]) * 100 for r in rows],
                    alpha=0.25, label="middle 80% of rounds")
    ax.plot(x, [float(r["min_player_expected_return"]) * 100 for r in rows], linestyle=":", color="tab:blue",
            linewidth=0.8, label="lowest and highest")
    ax.plot(x, [float(r["max_player_expected_return"]) * 100 for r in rows], linestyle=":", color="tab:blue",
            linewidth=0.8)
    ax.plot(x, mean, marker="o", label="mean exact player's expected return")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("shoe seen, %")
    ax.set_ylabel("player's expected return, %")
    twin = ax.twinx()
    twin.bar(x, [float(r["advantage_share"]) * 100 for r in rows], width=6, alpha=0.25, color="tab:green",
             label="rounds with a player advantage, %")
    twin.set_ylabel("rounds with a player advantage, %")
    ax.set_zorder(twin.get_zorder() + 1)                # the returns in front of the bars
    ax.patch.set_visible(False)
    _title(ax, f"{result.wager.name} ({result.paytable.id})\n{result.shoes:,} shoes: the player's exact expected "
               "return before every round")
    lines, labels = ax.get_legend_handles_labels()
    bars, bar_labels = twin.get_legend_handles_labels()
    ax.legend(lines + bars, labels + bar_labels, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
              fontsize="small", frameon=False)             # under the axes: over no bar or line
    return ax


def position_distribution(position: Any, *, ax: Any = None) -> Any:
    """The exact distribution of a :class:`~exactodds.analyses.positions.Position`'s net result per round:
    each result's probability (log scale), losses red, wins green."""
    ax = _axes(ax)
    if position.distribution is None:
        raise ExactOddsError(f"this position has no distribution to draw ({position.note})")
    items = sorted(position.distribution.items())
    x = [float(v) for v, _ in items]
    p = [c / position.total for _, c in items]
    ax.bar([str(v) if v.denominator == 1 else f"{float(v):g}" for v, _ in items], p,
           color=["tab:red" if v < 0 else "tab:green" if v > 0 else "grey" for v in x])
    ax.set_yscale("log")
    ax.set_xlabel("net result of the position per round (units)")
    ax.set_ylabel("probability")
    _title(ax, f"Position: {', '.join(line.wager.id for line in position.lines)}, {position.shoe.label}")
    if len(items) > 12:
        ax.tick_params(axis="x", labelsize="xx-small", rotation=90)
    return ax


#: What ``--plot FILE`` writes, by the file's extension.
PLOT_FORMATS = (".png", ".svg")


def check_plot_path(path: str) -> None:
    """``--plot FILE``: a .png or .svg whose folder exists (checked before anything is computed)."""
    if Path(path).suffix.lower() not in PLOT_FORMATS:
        raise ExactOddsError(f"--plot {path}: a .png or .svg file")
    check_output(path, option="--plot")


def save_plot(draw: Callable[[Any, Any], Any], items: Sequence[Any], path: str) -> None:
    """Draw each of ``items`` on an axes of its own (``draw(item, ax)``), one above the other, and write the
    figure to ``path`` (PNG or SVG by its extension) whole or not at all."""
    os.environ.setdefault("MPLBACKEND", "Agg")           # no screen: draw to a file
    plt = extras.load("matplotlib.pyplot")
    figure, axes = plt.subplots(len(items), 1, figsize=(8, 4 * len(items)), squeeze=False)
    try:
        for item, ax in zip(items, axes[:, 0]):
            draw(item, ax)
        figure.tight_layout()
        out = io.BytesIO()
        figure.savefig(out, format=Path(path).suffix.lower()[1:], dpi=120)
    finally:
        plt.close(figure)
    write_atomically(path, out.getvalue(), option="--plot")
