"""One rendering path: a result describes itself as a :class:`Report`; one renderer per format prints it.

A :class:`Report` is a few headline figures and tidy tables whose columns are
typed (:class:`Column`); an exact value (an int or a Fraction) travels in the
cell and is formatted here, never re-rounded from a float: decimals are rounded
half-even from the exact fraction, and CSV and JSON carry the exact value
(``"p/q"``) beside its decimal. The renderers — text (tabulate), Markdown,
CSV (the ``csv`` module), JSON (the ``json`` module) and HTML (a Jinja2
template, autoescaped) — are in :data:`RENDERERS`; the only branch on a format
is the look-up there.

>>> print(grid(["Removed", "Effect"], [["7", "-358.44"], ["8", "+537.82"]], "markdown"))
| Removed   |   Effect |
|:----------|---------:|
| 7         |  -358.44 |
| 8         |  +537.82 |
>>> decimal(Fraction(2, 3), 6), percent(Fraction(114753351728, 10847218479825), 4)
('0.666667', '1.0579%')
"""

from __future__ import annotations

import re

import csv
import io
import json
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any, Generic, Literal, TypeVar

from exactodds import extras
from exactodds._version import __version__
from exactodds.errors import ExactOddsError

__all__ = ["Column", "Table", "Figure", "Report", "Results", "render_report", "RENDERERS", "FORMATS",
           "grid", "GRID_FORMATS", "dataframe", "decimal", "percent", "exact", "signed", "a_or_an", "counted", "cited",
           "write_csv", "SIGN_CONVENTION", "PLAYER_HAS_THE_EDGE", "house_edge_words", "Describes", "merge",
           "render_text", "render_markdown", "render_csv", "render_json",
           "render_html"]

T = TypeVar("T")

FORMATS = ("text", "json", "csv", "markdown", "html")

#: Said once, pointed to wherever a player's view is printed (docs/formats.md, "Sign convention").
SIGN_CONVENTION = ("house edge is the house's (positive when the house wins); the player's expected return "
                   "is its negative (positive when the player wins): see 'Sign convention' in docs/formats.md")

#: What a negative house edge means, said beside it wherever one is printed.
PLAYER_HAS_THE_EDGE = "the player has the edge"


def house_edge_words(value: Any) -> str:
    """``" (the player has the edge)"`` after a negative house edge, else nothing.

    >>> house_edge_words(Fraction(-1, 100)), house_edge_words(Fraction(1, 100))
    (' (the player has the edge)', '')
    """
    return f" ({PLAYER_HAS_THE_EDGE})" if _is_exact(value) and value < 0 else ""


Kind = Literal["text", "int", "exact", "decimal", "percent", "float"]


# -- numbers ------------------------------------------------------------------

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


def signed(text: str) -> str:
    """A printed figure with its sign: ``+0.5``, ``-0.5``."""
    return text if text.startswith(("-", "+")) else "+" + text



#: A section that begins with a citation of the regulations (``627a.7``, ``631b.12``).
_CITATION = re.compile(r"\d{3}[a-z]\.\d")


def cited(section: str) -> str:
    """A wager's or paytable's ``section`` as printed: '§' before a citation of the regulations
    (``631b.9(f) Paytable C``), never before a user's free text ("inventor's proposal").

    >>> cited("631b.3(h) Paytable A"), cited("inventor's proposal")
    ('§631b.3(h) Paytable A', "inventor's proposal")
    """
    return "§" + section if _CITATION.match(section) else section


def a_or_an(n: int) -> str:
    """The article that goes before the number ``n`` as it is said: 'an' before eight, eleven, eighteen,
    eighty, eight hundred (and those thousands), else 'a'.

    >>> [f"{a_or_an(n)} {n}-deck shoe" for n in (1, 6, 8, 11, 18, 80, 100, 11_000)]
    ['a 1-deck shoe', 'a 6-deck shoe', 'an 8-deck shoe', 'an 11-deck shoe', 'an 18-deck shoe', 'an 80-deck shoe', 'a 100-deck shoe', 'an 11000-deck shoe']
    """
    digits = str(abs(n))
    lead = int(digits[:len(digits) % 3 or 3])          # the leading group of three, as said before "thousand"
    return "an" if digits[0] == "8" or lead in (11, 18) else "a"


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, singular for one: '1 wager table', '3 wager tables'."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def exact(value: Any) -> Any:
    """JSON form of an exact value: int stays int, Fraction becomes ``"p/q"``; None stays None."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return str(value)      # a Fraction "p/q", or a formula in the meters, e.g. "J/1000 - 1/2"


def _is_exact(value: Any) -> bool:
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


# -- the description of a result ------------------------------------------------

@dataclass(frozen=True)
class Column:
    """A typed column: ``key`` names it in CSV, JSON and DataFrames, ``label`` in text, Markdown and HTML.

    ``kind``: text, int, exact (the fraction itself), decimal, percent, or float (a figure that is
    not exact, e.g. a normal approximation). ``places``: the decimals shown; ``csv_places``: in CSV
    (default ``places``). ``twin``: CSV carries ``KEY_exact`` beside a decimal or percent column.
    ``signed``: a leading ``+`` on positive figures. ``empty``: shown for a cell without a value.
    ``house_edge``: the column is a house edge, and a negative one is said in words ("the player has the
    edge") where a reader sees it (CSV keeps the number alone).
    """

    key: str
    label: str = ""
    kind: Kind = "text"
    places: int = 6
    csv_places: int | None = None
    twin: bool = False
    signed: bool = False
    empty: str = ""
    prefix: str = ""          # e.g. "$" (display only)
    align: str | None = None
    house_edge: bool = False

    @property
    def heading(self) -> str:
        return self.label or self.key

    @property
    def alignment(self) -> str:
        return self.align or ("left" if self.kind == "text" else "right")

    def show(self, value: Any) -> str:
        """The cell as a reader sees it (text, Markdown, HTML)."""
        if value is None or value == "":
            return self.empty
        if self.kind == "text" or isinstance(value, str):
            return str(value)
        if self.kind == "int":
            text = f"{value:,}"
        elif self.kind == "exact":
            text = str(value)
        elif self.kind == "float" or not _is_exact(value):
            text = f"{float(value):,.{self.places}f}"
        elif self.kind == "percent":
            text = percent(value, self.places)
        else:
            text = decimal(value, self.places)
        text = signed(text) if self.signed else text
        text = text[0] + self.prefix + text[1:] if self.prefix and text[0] in "+-" else self.prefix + text
        return text + house_edge_words(value) if self.house_edge else text

    def tidy(self, value: Any) -> list[Any]:
        """The cell in CSV: the decimal (a fraction, not a percentage), then its exact twin if ``twin``."""
        if value is None:
            out: list[Any] = [""]
        elif self.kind in ("decimal", "percent") and _is_exact(value):
            out = [decimal(value, self.csv_places if self.csv_places is not None else self.places)]
        elif isinstance(value, float):
            out = [repr(value)]
        elif self.kind in ("decimal", "percent") and self.twin:
            out = [""]                      # a formula in the meters: no decimal, the exact twin carries it
        else:
            out = [exact(value)]
        if self.twin:
            out.append("" if value is None else exact(value))
        return out

    def tidy_heads(self) -> list[str]:
        return [self.key, f"{self.key}_exact"] if self.twin else [self.key]


@dataclass(frozen=True)
class Figure:
    """A headline figure: the value formatted as ``kind`` at ``places``, with the exact value beside it."""

    value: Any
    kind: Kind = "decimal"
    places: int = 6
    signed: bool = False
    show_exact: bool = True
    after: str = ""           # words after the figure, e.g. "(J: the meter in units of the wager)"
    house_edge: bool = False  # a house edge: a negative one is said in words

    def show(self) -> str:
        text = Column("", kind=self.kind, places=self.places, signed=self.signed).show(self.value)
        words = house_edge_words(self.value).strip(" ()") if self.house_edge else ""
        if self.show_exact and isinstance(self.value, Fraction) and self.kind != "exact":
            text += f" (exact {self.value}{'; ' + words if words else ''})"
        elif words:
            text += f" ({words})"
        return f"{text} {self.after}" if self.after else text


def _shown(value: Any) -> str:
    return value.show() if isinstance(value, Figure) else str(value)


@dataclass(frozen=True)
class Table:
    """Rows under typed columns, with an optional title, labelled lines before it (``intro``: label -> text),
    headline figures and notes after it.

    ``totals``: how many of the last rows are totals (text draws a rule above them).
    """

    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]
    title: str = ""
    intro: Mapping[str, str] = field(default_factory=dict)
    figures: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    totals: int = 0

    def shown_rows(self) -> list[list[str]]:
        return [[c.show(v) for c, v in zip(self.columns, row)] for row in self.rows]

    def tidy_rows(self) -> list[list[Any]]:
        return [[x for c, v in zip(self.columns, row) for x in c.tidy(v)] for row in self.rows]

    def tidy_heads(self) -> list[str]:
        return [h for c in self.columns for h in c.tidy_heads()]


@dataclass(frozen=True)
class Report:
    """What a result says: its kind, a title, headline figures, tables and notes.

    ``tidy``: the table CSV prints (one row per observation; the first table if not given).
    ``no_tidy``: why there is no tidy table (CSV is refused with it). ``data``: the JSON document
    (exact values as ``exact()`` gives them), or a function that builds it when JSON is asked for;
    built from the headline and tables if not given.
    """

    kind: str
    title: str = ""
    headline: Mapping[str, Any] = field(default_factory=dict)
    tables: tuple[Table, ...] = ()
    notes: tuple[str, ...] = ()
    tidy: Table | None = None
    data: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None
    no_tidy: str = ""


# -- the renderers --------------------------------------------------------------

GRID_FORMATS = {"text": "simple", "markdown": "pipe", "html": "html"}


def _tabulate(head: Sequence[str], rows: Sequence[Sequence[Any]], tablefmt: str, align: Sequence[str]) -> str:
    tabulate = extras.load("tabulate").tabulate
    return str(tabulate(rows, headers=list(head), tablefmt=tablefmt, disable_numparse=True, colalign=tuple(align)))


def write_csv(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """The one CSV writer: a header and rows, ``\\n`` line ends, quoted as the ``csv`` module quotes."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(head)
    writer.writerows(rows)
    return buf.getvalue()


def grid(head: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, *,
         align: Sequence[str] | None = None) -> str:
    """``rows`` of formatted cells under ``head`` as a text, Markdown, HTML or CSV table (``align``: per
    column; by default a label column, then figures)."""
    if fmt == "csv":
        return write_csv(head, rows)
    if fmt not in GRID_FORMATS:
        raise ExactOddsError(f"unknown table format {fmt!r} (use {', '.join([*GRID_FORMATS, 'csv'])})")
    align = tuple(align) if align is not None else ("left",) + ("right",) * (len(head) - 1)
    return _tabulate(head, rows, GRID_FORMATS[fmt], align)


def _grid_of(t: Table, fmt: str, escape: Callable[[str], str] = str) -> str:
    rows = [[escape(c) for c in row] for row in t.shown_rows()]
    text = grid([escape(c.heading) for c in t.columns], rows, fmt, align=[c.alignment for c in t.columns])
    if t.totals and fmt == "text":
        lines = text.splitlines()
        text = "\n".join(lines[:-t.totals] + [lines[1]] + lines[-t.totals:])      # a rule above the totals
    return text


#: Where the text form wraps a table's introduction (a wager's reading runs to 600 characters).
TEXT_WIDTH = 100


def render_text(report: Report) -> str:
    """Plain text: title, headline lines, each table with its title, figures and notes, then the notes."""
    out: list[str] = []
    if report.title:
        out.append(report.title)
    out += [f"{k}: {_shown(v)}" for k, v in report.headline.items()]
    if out:
        out.append("")
    for t in report.tables:
        block = ([t.title] if t.title else []) + [textwrap.fill(f"{k}: {v}", TEXT_WIDTH, subsequent_indent="  ",
                                                                break_on_hyphens=False)
                                                  for k, v in t.intro.items()]
        block += [_grid_of(t, "text")] if t.columns else []
        block += [f"{k}: {_shown(v)}" for k, v in t.figures.items()] + list(t.notes)
        out += block + [""]
    out += list(report.notes)
    return "\n".join(out).rstrip("\n") + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(report: Report) -> str:
    """Markdown: a bold title, a paragraph per headline figure, each table under a heading."""
    out: list[str] = []
    if report.title:
        out += [f"**{_md(report.title)}**", ""]
    for k, v in report.headline.items():
        out += [f"**{_md(k)}:** {_md(_shown(v))}", ""]
    for t in report.tables:
        if t.title:
            out += [f"### {_md(t.title)}", ""]
        for k, line in t.intro.items():
            out += [f"*{_md(k)}:* {_md(line)}", ""]
        out += [_grid_of(t, "markdown", _md), ""] if t.columns else []
        lines = [f"- **{_md(k)}:** {_md(_shown(v))}" for k, v in t.figures.items()] + [f"- {_md(n)}" for n in t.notes]
        out += lines + ([""] if lines else [])
    out += [f"- {_md(n)}" for n in report.notes]
    return "\n".join(out).rstrip("\n") + "\n"


def render_csv(report: Report) -> str:
    """CSV of the report's tidy table: decimals with their exact twins, named as the DataFrames are."""
    if report.tidy is None and report.no_tidy:
        raise ExactOddsError(report.no_tidy)
    t = report.tidy if report.tidy is not None else report.tables[0] if report.tables else Table((), ())
    return write_csv(t.tidy_heads(), t.tidy_rows())


def _json_table(t: Table) -> dict[str, Any]:
    return {"title": t.title, "rows": [{c.key: exact(v) for c, v in zip(t.columns, row)} for row in t.rows]}


def render_json(report: Report) -> str:
    """JSON: ``{"exactodds": version, "kind": ..., ...}`` with exact values as ints and ``"p/q"`` strings."""
    if report.data is not None:
        body = dict(report.data() if callable(report.data) else report.data)
    else:
        body = {k: exact(v.value if isinstance(v, Figure) else v) for k, v in report.headline.items()}
        body["tables"] = [_json_table(t) for t in report.tables]
    doc = {"exactodds": __version__, "kind": report.kind, **body}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _environment() -> Any:
    jinja2 = extras.load("jinja2")
    return jinja2.Environment(loader=jinja2.PackageLoader("exactodds", "templates"), autoescape=True,
                              trim_blocks=True, lstrip_blocks=True)


def render_html(report: Report) -> str:
    """An HTML fragment (templates/report.html.j2, autoescaped; exact values in the cells' tooltips)."""
    tables = [{"title": t.title, "intro": list(t.intro.items()), "notes": t.notes,
               "figures": [(k, _shown(v)) for k, v in t.figures.items()],
               "heads": [(c.heading, c.alignment) for c in t.columns],
               "rows": [[(c.show(v), c.alignment, str(v) if isinstance(v, Fraction) else "")
                         for c, v in zip(t.columns, row)] for row in t.rows]} for t in report.tables]
    return str(_environment().get_template("report.html.j2").render(
        kind=report.kind, title=report.title, headline=[(k, _shown(v)) for k, v in report.headline.items()],
        tables=tables, notes=report.notes))


#: The renderer of each output format: the one place a format is chosen.
RENDERERS: dict[str, Callable[[Report], str]] = {
    "text": render_text, "markdown": render_markdown, "csv": render_csv, "json": render_json, "html": render_html,
}


def render_report(report: Report, fmt: str) -> str:
    """``report`` in ``fmt`` (one of :data:`FORMATS`)."""
    try:
        renderer = RENDERERS[fmt]
    except KeyError:
        raise ExactOddsError(f"unknown output format {fmt!r} (use {', '.join(FORMATS)})") from None
    return renderer(report)


def merge(reports: Sequence[Report], *, kind: str, keys: Sequence[Column] = (),
          key_values: Sequence[Sequence[Any]] = (), data: Mapping[str, Any] | None = None) -> Report:
    """Several reports as one: their tables in turn, one tidy table with ``keys`` columns first."""
    if len(reports) == 1:
        return reports[0]
    tables = tuple(t for r in reports for t in ((Table((), (), title=r.title, figures=r.headline),) if r.title
                                                 or r.headline else ()) + r.tables)
    tables = tuple(t for t in tables if t.columns or t.figures or t.title)
    tidies = [r.tidy if r.tidy is not None else r.tables[0] for r in reports]
    tidy = Table(tuple(keys) + (tidies[0].columns if tidies else ()),
                 tuple(tuple(kv) + row for kv, t in zip(key_values, tidies) for row in t.rows)) if tidies else None
    return Report(kind, tables=tables, notes=tuple(n for r in reports for n in r.notes), tidy=tidy, data=data)


# -- results that render themselves ------------------------------------------------

class Describes:
    """A result that describes itself (:meth:`report`) and so renders in every format, shows in Jupyter."""

    def report(self) -> Report:
        raise NotImplementedError

    def render(self, fmt: str) -> str:
        return render_report(self.report(), fmt)

    def __str__(self) -> str:
        return self.render("text")

    def _repr_html_(self) -> str:
        return self.render("html")


class Results(Describes, Sequence[T], Generic[T]):
    """A tuple of results (``self.results``) that renders itself: ``str()`` as text, HTML in Jupyter."""

    results: tuple[T, ...]

    def __getitem__(self, i: Any) -> Any:
        return self.results[i]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[T]:
        return iter(self.results)


def dataframe(rows: list[dict[str, Any]]) -> Any:
    """``rows`` as a pandas DataFrame (pandas comes with the 'notebooks' extra)."""
    try:
        pd = extras.load("pandas")
    except ImportError:
        raise ExactOddsError("to_dataframe() needs pandas: pip install 'exactodds[notebooks]'") from None
    return pd.DataFrame(rows)
