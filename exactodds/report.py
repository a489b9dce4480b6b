"""Renderers: the same exact numbers as text, JSON, CSV, Markdown and HTML.

Decimals are for reading only and are rounded half-even from the exact
fraction (:func:`decimal`); JSON and CSV carry the exact values too, integers
as integers and fractions as ``"p/q"`` strings.

>>> decimal(Fraction(2, 3), 6), percent(Fraction(114753351728, 10847218479825), 4)
('0.666667', '1.0579%')
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any, Protocol

from .shoe import Shoe


class WagerResult(Protocol):
    """What a renderer reads of a priced wager (:class:`exactodds.pricing.WagerResult`).

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

__all__ = ["decimal", "percent", "exact", "render", "FORMATS", "result_dict", "analysis_dict"]

FORMATS = ("text", "json", "csv", "markdown", "html")

#: The rounding policy of every decimal printed: half-even at the stated places.
ROUNDING = "decimals are rounded half-even from the exact fractions; exact values are in the JSON and CSV"


def decimal(value: Any, places: int = 6) -> str:
    """``value`` (a Fraction or int) rounded half-even to ``places`` decimals."""
    if not isinstance(value, (int, Fraction)):
        return str(value)
    fr = Fraction(value)
    with localcontext() as ctx:
        ctx.prec = 60
        d = Decimal(fr.numerator) / Decimal(fr.denominator)
        q = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)
    return f"{q:f}" if q != 0 else f"{Decimal(0).quantize(Decimal(1).scaleb(-places)):f}"


def percent(value: Any, places: int = 4) -> str:
    """``value`` as a percentage, rounded half-even to ``places`` decimals."""
    if not isinstance(value, (int, Fraction)):
        return str(value)
    return decimal(Fraction(value) * 100, places) + "%"


def exact(value: Any) -> Any:
    """JSON form of an exact value: int stays int, Fraction becomes ``"p/q"``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Fraction):
        return str(value)
    return str(value)      # a sympy expression, e.g. "J/1000 - 1/2"


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
        "expected_return": exact(r.expected_return),
        "house_edge": exact(r.house_edge),
        "variance": exact(r.variance),
        "standard_deviation": round(r.standard_deviation, 12) if not r.symbolic else None,
        "hit_frequency": exact(r.hit_frequency),
        "push_frequency": exact(r.push_frequency),
    }


def analysis_dict(shoe: Shoe, results: Sequence[WagerResult], *, route: str) -> dict[str, Any]:
    from . import __version__

    return {
        "exactodds": __version__,
        "route": route,
        "shoe": shoe.to_dict(),
        "wagers": [result_dict(r) for r in results],
    }


# -- text -------------------------------------------------------------------

def _title(r: WagerResult) -> str:
    return f"{r.wager.name} — §{r.wager.section} — paytable {r.paytable.id} (§{r.paytable.section})"


def _table_rows(r: WagerResult) -> list[tuple[str, str, str, str, str]]:
    rows = [
        (ln.name, ln.pay.text, f"{ln.combinations:,}", decimal(ln.probability, 8), _signed(ln.contribution))
        for ln in r.lines
    ]
    rows.append(("Total", "", f"{r.total:,}", decimal(sum((ln.probability for ln in r.lines), Fraction(0)), 8),
                 _signed(r.expected_return)))
    return rows


def _signed(value: Any) -> str:
    """A return as a signed decimal; a polynomial in a meter with decimal coefficients
    (``+0.00074100·J_major − 0.00074100``: the exact formula is in the summary, JSON and CSV)."""
    if not isinstance(value, (int, Fraction)):
        terms = getattr(value, "terms", None)
        if terms is None:
            return str(value)
        parts = []
        for mono, c in terms():
            s = decimal(abs(c), 8)
            body = s + "".join(f"·{m}" for m in mono)
            parts.append(("−" if c < 0 else "+") + body)
        return " ".join(parts) or "0"
    s = decimal(value, 8)
    return s if s.startswith("-") else "+" + s


def _summary(r: WagerResult) -> list[tuple[str, str]]:
    if r.symbolic:
        return [("Expected return", f"{r.expected_return} (J: the meter in units of the wager)"),
                ("Hit frequency", percent(r.hit_frequency, 4))]
    return [
        ("Expected return", f"{_signed(r.expected_return)} (exact {r.expected_return})"),
        ("House edge", f"{percent(r.house_edge, 4)} (exact {r.house_edge})"),
        ("Variance", f"{decimal(r.variance, 6)} (exact {r.variance})"),
        ("Standard deviation", f"{r.standard_deviation:.6f}"),
        ("Hit frequency", percent(r.hit_frequency, 4)),
    ]


def result_text(r: WagerResult) -> str:
    """One priced wager as a plain-text table with its summary."""
    from .render import grid

    out = [_title(r)]
    if r.wager.reading:
        out.append(f"Reading: {r.wager.reading}")
    if getattr(r.wager, "implausible", None):
        out.append(f"IMPLAUSIBLE READING: {r.wager.implausible}")
    table = grid(["Outcome", "Pays", "Combinations", "Probability", "Return"], _table_rows(r), "text",
                 align=("left", "left", "right", "right", "right"))
    lines = table.splitlines()
    out.extend(lines[:-1] + [lines[1]] + lines[-1:])            # a rule above the totals row
    out.extend(f"{k}: {v}" for k, v in _summary(r))
    return "\n".join(out) + "\n"


def result_html(r: WagerResult) -> str:
    """One priced wager as an HTML table (Jinja2, escaped; exact fractions in the tooltips and summary)."""
    import jinja2

    exacts = [exact(ln.probability) for ln in r.lines] + [exact(sum((ln.probability for ln in r.lines), Fraction(0)))]
    env = jinja2.Environment(loader=jinja2.PackageLoader("exactodds", "templates"), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True)
    return str(env.get_template("result.html.j2").render(
        title=_title(r), shoe=r.shoe_description, reading=r.wager.reading,
        rows=[{"cells": row, "exact": fr} for row, fr in zip(_table_rows(r), exacts)], summary=_summary(r)))


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
            "expected_return": _number(r.expected_return), "expected_return_exact": r.expected_return,
            "house_edge": _number(edge) if edge is not None else float("nan"), "house_edge_exact": edge,
            "variance": float("nan") if r.symbolic else float(r.variance),
            "variance_exact": None if r.symbolic else r.variance,
            "hit_frequency": float(r.hit_frequency), "hit_frequency_exact": r.hit_frequency,
            "push_frequency": float(r.push_frequency), "push_frequency_exact": r.push_frequency}


def summary_grid(shoe: Shoe, results: Sequence[WagerResult], fmt: str) -> str:
    """One row per wager and paytable as a text, Markdown or HTML table."""
    from .render import grid

    rows = [[r.wager.id, r.paytable.id, f"§{r.wager.section}",
             "meter" if r.symbolic else percent(r.house_edge, 4),
             "meter" if r.symbolic else f"{r.standard_deviation:.4f}", percent(r.hit_frequency, 4)] for r in results]
    table = grid(["Wager", "Paytable", "Section", "House edge", "SD", "Hit frequency"], rows, fmt)
    head = f"Shoe: {shoe.describe()}"
    return (f"<p>{html.escape(head)}</p>" + table if fmt == "html" else f"{head}\n\n{table}\n")


def result_dataframe(r: WagerResult) -> Any:
    """One priced wager as a pandas DataFrame: one row per outcome (see :func:`outcome_rows`)."""
    from .render import dataframe

    return dataframe(outcome_rows(r))


def render_text(shoe: Shoe, results: Sequence[WagerResult]) -> str:
    out = [f"Shoe: {shoe.describe()}; {shoe.sequences:,} ordered 6-card sequences", ""]
    for r in results:
        out.append(result_text(r))
    return "\n".join(out)


def render_markdown(shoe: Shoe, results: Sequence[WagerResult]) -> str:
    from .render import grid

    out = [f"**Shoe:** {shoe.describe()}; {shoe.sequences:,} ordered 6-card sequences", ""]
    for r in results:
        out.append(f"### {_md(_title(r))}")
        out.append("")
        if r.wager.reading:
            out += [f"*Reading:* {_md(r.wager.reading)}", ""]
        out.append(grid(["Outcome", "Pays", "Combinations", "Probability", "Return"],
                        [[_md(c) for c in row] for row in _table_rows(r)], "markdown",
                        align=("left", "left", "right", "right", "right")))
        out.append("")
        out.extend(f"- **{k}:** {_md(v)}" for k, v in _summary(r))
        out.append("")
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_csv(shoe: Shoe, results: Sequence[WagerResult], *, summary: bool = False) -> str:
    """Tidy CSV, named as the DataFrames are: one row per outcome, each figure as a decimal with its exact
    twin beside it (``probability``, ``probability_exact``); ``summary``: one row per wager and paytable."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")

    def both(value: Any, places: int = 12) -> list[Any]:
        return [decimal(value, places) if isinstance(value, (int, Fraction)) else "", exact(value)]

    if summary:
        w.writerow(["shoe", "wager", "wager_name", "section", "paytable", "expected_return", "expected_return_exact",
                    "house_edge", "house_edge_exact", "variance", "variance_exact", "hit_frequency",
                    "hit_frequency_exact", "push_frequency", "push_frequency_exact"])
        for r in results:
            w.writerow([shoe.describe(), r.wager.id, r.wager.name, r.wager.section, r.paytable.id,
                        *both(r.expected_return), *(both(r.house_edge) if not r.symbolic else ["", ""]),
                        *(both(r.variance) if not r.symbolic else ["", ""]), *both(r.hit_frequency),
                        *both(r.push_frequency)])
        return buf.getvalue()
    w.writerow(["shoe", "wager", "wager_name", "section", "paytable", "outcome_id", "outcome", "pays", "net",
                "net_exact", "combinations", "probability", "probability_exact", "return", "return_exact"])
    for r in results:
        base = [shoe.describe(), r.wager.id, r.wager.name, r.wager.section, r.paytable.id]
        for ln in r.lines:
            w.writerow(base + [ln.id, ln.name, ln.pay.text, *both(ln.net, 8), ln.combinations,
                               *both(ln.probability), *both(ln.contribution)])
    return buf.getvalue()


def render_html(shoe: Shoe, results: Sequence[WagerResult]) -> str:
    """An HTML fragment (tables) for notebooks and reports."""
    head = f"<p><b>Shoe:</b> {html.escape(shoe.describe())}; {shoe.sequences:,} ordered 6-card sequences</p>"
    return "\n".join([head, *(result_html(r) for r in results)])


def render(fmt: str, shoe: Shoe, results: Sequence[WagerResult], *, route: str = "vector") -> str:
    """Render ``results`` in one of :data:`FORMATS`."""
    if fmt == "json":
        return json.dumps(analysis_dict(shoe, results, route=route), indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return render_csv(shoe, results)
    if fmt == "markdown":
        return render_markdown(shoe, results)
    if fmt == "html":
        return render_html(shoe, results)
    return render_text(shoe, results)


# -- progressives and mystery meters ------------------------------------------------

def _one_in(p: Fraction) -> str:
    return "never" if p == 0 else f"1 in {decimal(1 / p, 1)}"


def render_progressive(a: Any, fmt: str, *, wager_amount: Fraction | None, at: dict[str, Fraction] | None,
                       long_run: Fraction | None, increments: dict[str, Fraction],
                       reserves: dict[str, Fraction], reseeds: dict[str, Fraction],
                       funded: dict[str, Fraction] | None = None) -> str:
    """The return of a progressive wager as a function of its meters (text or JSON).

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
    from . import __version__

    data: dict[str, Any] = {
        "exactodds": __version__,
        "id": r.wager.id, "name": r.wager.name, "section": r.wager.section, "paytable": r.paytable.id,
        "shoe": r.shoe_description, "meter_units": "meter dollars / wager dollars",
        "expected_return": str(a.expression), "fixed_return": exact(a.fixed_return),
        "wager_amount": exact(wager_amount) if wager_amount is not None else None,
        "meters": meters,
    }
    if a.spec is not None:
        data["meter_section"] = a.spec.section
    if at is not None:
        data["at"] = {"meters_units": {k: exact(v) for k, v in at.items()}, "expected_return": exact(a.at(at))}
    if long_run is not None:
        data["long_run_rtp"] = exact(long_run)
        data["long_run_includes"] = {k: "increment + reserve" if k in (funded or {}) else "increment + reseed"
                                     for k in increments}
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt in ("csv", "markdown", "html"):
        from .render import grid

        head = ["meter", "top_award", "probability", "odds", "break_even_units", "break_even_dollars"]
        rows = [[m["symbol"], m["top_award"], m["probability"], m["odds"], m.get("break_even_units", ""),
                 m.get("break_even_dollars", "")] for m in meters]
        if fmt == "csv":
            return grid(head, rows, "csv")
        facts = [f"{r.wager.name} — §{r.wager.section} — paytable {r.paytable.id}; {r.shoe_description}",
                 f"Expected return E = {a.expression} (each J = meter ÷ wager)"]
        if at is not None:
            facts.append("At " + ", ".join(f"{k} = {decimal(v, 4)}" for k, v in at.items())
                         + f": expected return {decimal(a.at(at), 8)} (exact {a.at(at)})")
        if long_run is not None:
            facts.append(f"Long-run RTP: {percent(long_run, 4)} (exact {long_run})")
        readable = [[m, award, decimal(Fraction(p), 10), odds, decimal(Fraction(be), 2) if be != "" else "",
                     decimal(Fraction(bd), 2) if bd != "" else ""] for m, award, p, odds, be, bd in rows]
        text = grid(head, readable, fmt)
        if fmt == "html":
            return "".join(f"<p>{html.escape(f)}</p>" for f in facts) + text + "\n"
        return "\n\n".join(facts) + "\n\n" + text + "\n"
    out = [f"{r.wager.name} — §{r.wager.section} — paytable {r.paytable.id}; {r.shoe_description}",
           f"Expected return E = {a.expression}   (each J = meter ÷ wager)",
           f"Fixed awards alone (every J = 0): {decimal(a.fixed_return, 8)} (exact {a.fixed_return})"]
    for m in meters:
        line = f"{m['symbol']}: {m['top_award']}: probability {m['probability']} ({m['odds']})"
        out.append(line)
        if "break_even_units" in m:
            be = f"  break-even {m['symbol']}* = {decimal(Fraction(m['break_even_units']), 4)} wagers"
            if "break_even_dollars" in m:
                be += f" = ${decimal(Fraction(m['break_even_dollars']), 2)} on a ${decimal(wager_amount, 2)} wager"
            out.append(be)
        else:
            out.append(f"  break-even: {m.get('break_even_note', '')}")
    if at is not None:
        shown = ", ".join(f"{k} = {decimal(v, 4)}" for k, v in at.items())
        out.append(f"At {shown}: expected return {decimal(a.at(at), 8)} (exact {a.at(at)})")
    if long_run is not None:
        funded = funded or {}
        rates = ", ".join(f"{k}: increment {percent(v, 2)} + " + (
            f"reserve {percent(funded[k], 2)}" if k in funded else
            f"reseed ${decimal(reseeds[k], 2)} when hit" if k in reseeds else "reseed") for k, v in increments.items())
        out.append(f"Long-run RTP with the meter rates ({rates}): {percent(long_run, 4)} (exact {long_run})")
    return "\n".join(out) + "\n"


def render_mystery(rows: Sequence[Any], fmt: str) -> str:
    """Must-hit-by configurations with their exact long-run figures."""
    data = [{"id": m.spec.id, "name": m.spec.name, "section": m.spec.section,
             "wager": exact(m.spec.wager), "minimum": exact(m.spec.minimum), "maximum": exact(m.spec.maximum),
             "rate": exact(m.spec.rate), "hit_point": "whole cents" if m.discrete else "continuous",
             "wagers_between_hits": exact(m.wagers_between_hits), "mean_award": exact(m.mean_award),
             "return": exact(m.return_per_unit), "from_contributions": exact(m.from_contributions),
             "from_reset": exact(m.from_reset)} for m in rows]
    if fmt == "json":
        from . import __version__

        return json.dumps({"exactodds": __version__, "kind": "mystery", "configurations": data},
                          indent=2, ensure_ascii=False) + "\n"
    from .render import grid

    if fmt == "csv":
        return grid(list(data[0]) if data else [], [list(d.values()) for d in data], "csv")
    head = ["Configuration", "Wager", "Min", "Max", "Rate", "Wagers/hit", "Mean award", "Return"]
    body = [[d["id"], f"${d['wager']}", f"${d['minimum']}", f"${d['maximum']}", percent(Fraction(d["rate"]), 1),
             decimal(Fraction(d["wagers_between_hits"]), 2), "$" + decimal(Fraction(d["mean_award"]), 2),
             percent(Fraction(d["return"]), 4)] for d in data]
    basis = "whole-cent hit points" if rows and rows[0].discrete else "a continuous hit point"
    note = f"Return per unit wagered, exact under {basis} uniform between min and max (631b.6(c)(3))."
    table = grid(head, body, fmt)
    if fmt == "html":
        return table + f"<p>{html.escape(note)}</p>\n"
    return table + "\n\n" + note + "\n" if fmt == "markdown" else table + "\n" + note + "\n"
