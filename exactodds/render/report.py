"""Renderers: the same exact numbers as text, JSON, CSV, Markdown and HTML.

Decimals are for reading only and are rounded half-even from the exact
fraction (:func:`decimal`); JSON and CSV carry the exact values too, integers
as integers and fractions as ``"p/q"`` strings.

>>> decimal(Fraction(2, 3), 6), percent(Fraction(114753351728, 10847218479825), 4)
('0.666667', '1.0579%')
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Protocol

from exactodds._version import __version__
from exactodds.game.shoe import Shoe
from exactodds.render.tables import (
    Column,
    FORMATS,
    Figure,
    Report,
    Table,
    cited,
    dataframe,
    decimal,
    exact,
    percent,
    render_report,
)


class WagerResult(Protocol):
    """What a renderer reads of a priced wager (:class:`exactodds.analyses.pricing.WagerResult`).

    Results render themselves through this module, so it names their shape
    instead of importing them: pricing sits below reports, never beside them.
    """

    @property
    def wager(self) -> Any: ...

    @property
    def paytable(self) -> Any: ...

    @property
    def shoe_description(self) -> str: ...

    @property
    def total(self) -> int: ...

    @property
    def lines(self) -> Any: ...

    @property
    def expected_return(self) -> Any: ...

    @property
    def house_edge(self) -> Any: ...

    @property
    def variance(self) -> Any: ...

    @property
    def standard_deviation(self) -> float: ...

    @property
    def hit_frequency(self) -> Any: ...

    @property
    def push_frequency(self) -> Any: ...

    @property
    def symbolic(self) -> bool: ...

__all__ = ["decimal", "percent", "exact", "render", "FORMATS", "result_dict", "analysis_dict", "analysis_report",
           "summary_report", "result_report", "progressive_report", "mystery_report", "render_progressive",
           "render_mystery"]

#: The rounding policy of every decimal printed: half-even at the stated places.
ROUNDING = "decimals are rounded half-even from the exact fractions; exact values are in the JSON and CSV"


def result_dict(r: WagerResult) -> dict[str, Any]:
    """One priced wager as plain data with exact values."""
    w, t = r.wager, r.paytable
    return {
        "id": w.id,
        "name": w.name,
        "game": w.game,
        "section": w.section,
        "paytable": t.id,
        "paytable_section": t.section,
        "reading": w.reading,
        "reading_id": w.reading_id,
        "implausible": getattr(w, "implausible", None),
        "outcomes": [
            {
                "id": ln.id,
                "name": ln.name,
                "pays": ln.pay.text,
                "net": exact(ln.net),
                "combinations": ln.combinations,
                "probability": exact(ln.probability),
                "return": exact(ln.contribution),
            }
            for ln in r.lines
        ],
        "combinations": r.total,
        "player_expected_return": exact(r.expected_return),
        "house_edge": exact(r.house_edge),
        "variance": exact(r.variance),
        "standard_deviation": round(r.standard_deviation, 12) if not r.symbolic else None,
        "hit_frequency": exact(r.hit_frequency),
        "push_frequency": exact(r.push_frequency),
    }


def analysis_dict(shoe: Shoe, results: Sequence[WagerResult], *, route: str) -> dict[str, Any]:
    """An analysis as plain data with exact values (the JSON document)."""
    return {
        "exactodds": __version__,
        "route": route,
        "shoe": shoe.to_dict(),
        "wagers": [result_dict(r) for r in results],
    }


# -- priced wagers ------------------------------------------------------------

def _title(r: WagerResult) -> str:
    return f"{r.wager.name} — {cited(r.wager.section)} — paytable {r.paytable.id} ({cited(r.paytable.section)})"


def _signed(value: Any) -> Any:
    """A return as it is shown: a number as itself (the column signs it); a polynomial in a meter with
    decimal coefficients (``+0.00074100·J_major − 0.00074100``: the exact formula is in the JSON and CSV)."""
    terms = getattr(value, "terms", None)
    if isinstance(value, (int, Fraction)) or terms is None:
        return value
    parts = []
    for mono, c in terms():
        body = decimal(abs(c), 8) + "".join(f"·{m}" for m in mono)
        parts.append(("−" if c < 0 else "+") + body)
    return " ".join(parts) or "0"


_OUTCOME_COLUMNS = (Column("outcome", "Outcome"), Column("pays", "Pays"),
                    Column("combinations", "Combinations", "int"),
                    Column("probability", "Probability", "decimal", 8),
                    Column("return", "Return", "decimal", 8, signed=True))


def _figures(r: WagerResult) -> dict[str, Any]:
    if r.symbolic:
        return {"Expected return": f"{r.expected_return} (J: the meter in units of the wager)",
                "Hit frequency": Figure(r.hit_frequency, "percent", 4, show_exact=False)}
    return {
        "Expected return": Figure(r.expected_return, "decimal", 8, signed=True),
        "House edge": Figure(r.house_edge, "percent", 4, house_edge=True),
        "Variance": Figure(r.variance, "decimal", 6),
        "Standard deviation": Figure(r.standard_deviation, "float", 6),
        "Hit frequency": Figure(r.hit_frequency, "percent", 4, show_exact=False),
    }


def result_table(r: WagerResult) -> Table:
    """One priced wager as a table of its outcomes with a totals row, and its summary figures."""
    rows = [(ln.name, ln.pay.text, ln.combinations, ln.probability, _signed(ln.contribution)) for ln in r.lines]
    rows.append(("Total", "", r.total, sum((ln.probability for ln in r.lines), Fraction(0)),
                 _signed(r.expected_return)))
    intro = {"Reading": r.wager.reading} if r.wager.reading else {}
    if getattr(r.wager, "implausible", None):
        intro["IMPLAUSIBLE READING"] = r.wager.implausible
    return Table(_OUTCOME_COLUMNS, tuple(rows), title=_title(r), intro=intro, figures=_figures(r), totals=1)


_TIDY_KEYS = (Column("shoe"), Column("wager"), Column("wager_name"), Column("section"), Column("paytable"))
_TIDY_OUTCOMES = _TIDY_KEYS + (
    Column("outcome_id"), Column("outcome"), Column("pays"), Column("net", kind="decimal", places=8, twin=True),
    Column("combinations", kind="int"), Column("probability", kind="decimal", places=12, twin=True),
    Column("return", kind="decimal", places=12, twin=True))
_TIDY_SUMMARY = _TIDY_KEYS + tuple(Column(k, kind="decimal", places=12, twin=True) for k in (
    "player_expected_return", "house_edge", "variance", "hit_frequency", "push_frequency"))


def _keys(shoe: Shoe, r: WagerResult) -> tuple[Any, ...]:
    return (r.shoe_description, r.wager.id, r.wager.name, r.wager.section, r.paytable.id)   # "…, given G" too


def result_report(r: WagerResult) -> Report:
    """One priced wager: its outcome table and summary (the shoe as the table's second line)."""
    t = result_table(r)
    return Report("wager", tables=(Table(t.columns, t.rows, title=t.title, intro={"Shoe": r.shoe_description,
                                                                                   **t.intro},
                                         figures=t.figures, totals=1),),
                  data={"shoe": r.shoe_description, **result_dict(r)})


def analysis_report(shoe: Shoe, results: Sequence[WagerResult], *, route: str = "vector") -> Report:
    """Priced wagers off one shoe: a table per wager and paytable; CSV one row per outcome."""
    tidy = Table(_TIDY_OUTCOMES, tuple(_keys(shoe, r) + (ln.id, ln.name, ln.pay.text, ln.net, ln.combinations,
                                                          ln.probability, ln.contribution)
                                       for r in results for ln in r.lines))

    def data() -> dict[str, Any]:                  # the JSON document, built only when JSON is asked for
        body = analysis_dict(shoe, results, route=route)
        del body["exactodds"]
        return body

    return Report("analysis", headline={"Shoe": f"{shoe.describe()}; {shoe.sequences:,} ordered 6-card sequences"},
                  tables=tuple(result_table(r) for r in results), tidy=tidy, data=data)


def summary_report(shoe: Shoe, results: Sequence[WagerResult], *, route: str = "vector") -> Report:
    """One row per wager and paytable (``analyze --summary``)."""
    columns = (Column("wager", "Wager"), Column("paytable", "Paytable"), Column("section", "Section"),
               Column("house_edge", "House edge", "percent", 4, empty="meter", house_edge=True),
               Column("standard_deviation", "SD", "float", 4, empty="meter"),
               Column("hit_frequency", "Hit frequency", "percent", 4))
    rows = tuple((r.wager.id, r.paytable.id, cited(r.wager.section), None if r.symbolic else r.house_edge,
                  None if r.symbolic else r.standard_deviation, r.hit_frequency) for r in results)
    tidy = Table(_TIDY_SUMMARY, tuple(_keys(shoe, r) + (
        r.expected_return if not r.symbolic else None, None if r.symbolic else r.house_edge,
        None if r.symbolic else r.variance, r.hit_frequency, r.push_frequency) for r in results))
    data = analysis_dict(shoe, results, route=route)
    del data["exactodds"]
    return Report("analysis", headline={"Shoe": shoe.describe()}, tables=(Table(columns, rows),), tidy=tidy, data=data)


def result_text(r: WagerResult) -> str:
    """One priced wager as a plain-text table with its summary."""
    return render_report(Report("wager", tables=(result_table(r),)), "text")


def result_html(r: WagerResult) -> str:
    """One priced wager as an HTML table (exact fractions in the tooltips and summary)."""
    return render_report(result_report(r), "html")


def _number(value: Any) -> float:
    """A float for pandas beside its exact twin (NaN for a polynomial in a meter)."""
    return float(value) if isinstance(value, (int, Fraction)) else float("nan")


def outcome_rows(r: WagerResult) -> list[dict[str, Any]]:
    """One row per outcome: floats for pandas, each beside its exact twin (``*_exact``)."""
    return [{"shoe": r.shoe_description, "wager": r.wager.id, "paytable": r.paytable.id, "section": r.wager.section,
             "outcome_id": ln.id, "outcome": ln.name, "pays": ln.pay.text,
             "net": _number(ln.net), "net_exact": ln.net, "combinations": ln.combinations,
             "probability": float(ln.probability), "probability_exact": ln.probability,
             "return": _number(ln.contribution), "return_exact": ln.contribution} for ln in r.lines]


def summary_row(r: WagerResult) -> dict[str, Any]:
    """One row per wager and paytable: the summary figures, floats beside exact twins."""
    edge = None if r.symbolic else r.house_edge
    return {"shoe": r.shoe_description, "wager": r.wager.id, "paytable": r.paytable.id, "section": r.wager.section,
            "player_expected_return": _number(r.expected_return), "player_expected_return_exact": r.expected_return,
            "house_edge": _number(edge) if edge is not None else float("nan"), "house_edge_exact": edge,
            "variance": float("nan") if r.symbolic else float(r.variance),
            "variance_exact": None if r.symbolic else r.variance,
            "hit_frequency": float(r.hit_frequency), "hit_frequency_exact": r.hit_frequency,
            "push_frequency": float(r.push_frequency), "push_frequency_exact": r.push_frequency}


def result_dataframe(r: WagerResult) -> Any:
    """One priced wager as a pandas DataFrame: one row per outcome (see :func:`outcome_rows`)."""
    return dataframe(outcome_rows(r))


def render(fmt: str, shoe: Shoe, results: Sequence[WagerResult], *, route: str = "vector") -> str:
    """Render ``results`` in one of :data:`FORMATS`."""
    return render_report(analysis_report(shoe, results, route=route), fmt)


# -- progressives and mystery meters ------------------------------------------------

def _one_in(p: Fraction) -> str:
    return "never" if p == 0 else f"1 in {decimal(1 / p, 1)}"


def _dollars(x: Fraction) -> str:
    """``$25,000.00``: dollars to the cent, rounded half-even, with thousands separated."""
    whole, _, cents = decimal(x, 2).partition(".")
    return f"${int(whole):,}.{cents}"


def progressive_report(a: Any, *, wager_amount: Fraction | None, at: dict[str, Fraction] | None,
                       long_run: Fraction | None, increments: dict[str, Fraction],
                       reserves: dict[str, Fraction], reseeds: dict[str, Fraction],
                       funded: dict[str, Fraction] | None = None) -> Report:
    """The return of a progressive wager as a function of its meters.

    ``funded``: the meters whose reseed the long-run figure takes from a reserve
    rate (the others add back the reseed as it is paid).
    """
    r = a.result
    meters = []
    for symbol, p in a.coefficients.items():
        entry: dict[str, Any] = {"symbol": symbol, "top_award": a.top_lines.get(symbol, ""),
                                 "probability": exact(p), "odds": _one_in(p)}
        try:
            be = a.break_even(symbol)
            entry["break_even_units"] = exact(be)
            if wager_amount is not None:
                entry["break_even_dollars"] = exact(be * wager_amount)
        except Exception as exc:          # noqa: BLE001 - reported, not raised: other meters unknown
            entry["break_even_note"] = str(exc)
        for name, table in (("increment_rate", increments), ("reserve_rate", reserves), ("reseed_dollars", reseeds)):
            if symbol in table:
                entry[name] = exact(table[symbol])
        meters.append(entry)
    data: dict[str, Any] = {
        "id": r.wager.id, "name": r.wager.name, "section": r.wager.section, "paytable": r.paytable.id,
        "shoe": r.shoe_description, "meter_units": "meter dollars / wager dollars",
        "player_expected_return": str(a.expression), "fixed_return": exact(a.fixed_return),
        "wager_amount": exact(wager_amount) if wager_amount is not None else None,
        "meters": meters,
    }
    if a.spec is not None:
        data["meter_section"] = a.spec.section
    if at is not None:
        data["at"] = {"meters_units": {k: exact(v) for k, v in at.items()}, "player_expected_return": exact(a.at(at))}
    if long_run is not None:
        data["long_run_rtp"] = exact(long_run)
        data["long_run_includes"] = {k: "increment + reserve" if k in (funded or {}) else "increment + reseed"
                                     for k in increments}
    columns = (Column("meter", "Meter"), Column("top_award", "Top award"),
               Column("probability", "Probability", "decimal", 10, csv_places=12, twin=True),
               Column("odds", "Odds", align="right"),
               Column("break_even_units", "break-even (wagers)", "decimal", 4, csv_places=12, twin=True),
               Column("break_even_dollars", "break-even ($)", "decimal", 2, csv_places=12, twin=True, prefix="$"))

    def value(m: dict[str, Any], key: str) -> Fraction | None:
        return Fraction(m[key]) if key in m else None

    rows = tuple((m["symbol"], m["top_award"], value(m, "probability"), m["odds"],
                  value(m, "break_even_units"), value(m, "break_even_dollars")) for m in meters)
    headline: dict[str, Any] = {
        "Expected return E": f"{a.expression} (each J = meter ÷ wager)",
        "Fixed awards alone (every J = 0)": Figure(a.fixed_return, "decimal", 8),
    }
    if wager_amount is not None:
        headline["Wager"] = f"${decimal(wager_amount, 2)}"
    if at is not None:
        shown = ", ".join(f"{k} = {decimal(v, 4)}" + (f" (a meter of {_dollars(v * wager_amount)})"
                                                      if wager_amount is not None else "") for k, v in at.items())
        headline[f"At {shown}: expected return"] = Figure(a.at(at), "decimal", 8)
    notes = [f"{m['symbol']}: break-even: {m['break_even_note']}" for m in meters if "break_even_note" in m]
    if long_run is not None:
        funded = funded or {}
        rates = ", ".join(f"{k}: increment {percent(v, 2)} + " + (
            f"reserve {percent(funded[k], 2)}" if k in funded else
            f"reseed ${decimal(reseeds[k], 2)} when hit" if k in reseeds else "reseed") for k, v in increments.items())
        headline[f"Long-run RTP with the meter rates ({rates})"] = Figure(long_run, "percent", 4)
    return Report("progressive",
                  title=f"{r.wager.name} — {cited(r.wager.section)} — paytable {r.paytable.id}; {r.shoe_description}",
                  headline=headline, tables=(Table(columns, rows, title="Meters"),), notes=tuple(notes), data=data)


def render_progressive(a: Any, fmt: str, *, wager_amount: Fraction | None, at: dict[str, Fraction] | None,
                       long_run: Fraction | None, increments: dict[str, Fraction],
                       reserves: dict[str, Fraction], reseeds: dict[str, Fraction],
                       funded: dict[str, Fraction] | None = None) -> str:
    """The return of a progressive wager as a function of its meters, in ``fmt``."""
    return render_report(progressive_report(a, wager_amount=wager_amount, at=at, long_run=long_run,
                                            increments=increments, reserves=reserves, reseeds=reseeds,
                                            funded=funded), fmt)


def mystery_report(rows: Sequence[Any]) -> Report:
    """Must-hit-by configurations with their exact long-run figures."""
    data = [{"id": m.spec.id, "name": m.spec.name, "section": m.spec.section,
             "wager": exact(m.spec.wager), "minimum": exact(m.spec.minimum), "maximum": exact(m.spec.maximum),
             "rate": exact(m.spec.rate), "hit_point": "whole cents" if m.discrete else "continuous",
             "wagers_between_hits": exact(m.wagers_between_hits), "mean_award": exact(m.mean_award),
             "return": exact(m.return_per_unit), "from_contributions": exact(m.from_contributions),
             "from_reset": exact(m.from_reset)} for m in rows]
    columns = (Column("id", "Configuration"), Column("name", "Name"), Column("section", "Section"),
               Column("wager", "Wager", "exact", prefix="$"), Column("minimum", "Min", "exact", prefix="$"),
               Column("maximum", "Max", "exact", prefix="$"), Column("rate", "Rate", "exact"),
               Column("hit_point", "Hit point"),
               Column("wagers_between_hits", "Wagers/hit", "exact"), Column("mean_award", "Mean award", "exact"),
               Column("return", "Return", "exact"), Column("from_contributions", "From contributions", "exact"),
               Column("from_reset", "From reset", "exact"))
    tidy = Table(columns, tuple((m.spec.id, m.spec.name, m.spec.section, m.spec.wager, m.spec.minimum,
                                 m.spec.maximum, m.spec.rate, "whole cents" if m.discrete else "continuous",
                                 m.wagers_between_hits, m.mean_award, m.return_per_unit, m.from_contributions,
                                 m.from_reset) for m in rows))
    shown = (Column("id", "Configuration"), Column("wager", "Wager", "exact", prefix="$"),
             Column("minimum", "Min", "exact", prefix="$"), Column("maximum", "Max", "exact", prefix="$"),
             Column("rate", "Rate", "percent", 1), Column("wagers_between_hits", "Wagers/hit", "decimal", 2),
             Column("mean_award", "Mean award", "decimal", 2, prefix="$"), Column("return", "Return", "percent", 4))
    table = Table(shown, tuple((m.spec.id, m.spec.wager, m.spec.minimum, m.spec.maximum, m.spec.rate,
                                m.wagers_between_hits, m.mean_award, m.return_per_unit) for m in rows))
    basis = "whole-cent hit points" if rows and rows[0].discrete else "a continuous hit point"
    note = f"Return per unit wagered, exact under {basis} uniform between min and max (631b.6(c)(3))."
    return Report("mystery", tables=(table,), notes=(note,), tidy=tidy, data={"configurations": data})


def render_mystery(rows: Sequence[Any], fmt: str) -> str:
    """Must-hit-by configurations with their exact long-run figures, in ``fmt``."""
    return render_report(mystery_report(rows), fmt)

