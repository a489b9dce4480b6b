"""One way to lay out a table of already formatted cells in each output format.

Text, Markdown and HTML come from ``tabulate``; CSV from the standard ``csv``
module. Cells are strings (numbers are formatted by the caller from their
exact values), so nothing is re-rounded here.

>>> print(grid(["Removed", "Effect"], [["7", "-358.44"], ["8", "+537.82"]], "markdown"))
| Removed   |   Effect |
|:----------|---------:|
| 7         |  -358.44 |
| 8         |  +537.82 |
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from typing import Any, Generic, TypeVar

from .errors import ExactOddsError

__all__ = ["grid", "GRID_FORMATS", "Results", "dataframe"]

T = TypeVar("T")


class Results(Sequence[T], Generic[T]):
    """A tuple of results (``self.results``) that renders itself: ``str()`` as text, HTML in Jupyter."""

    results: tuple[T, ...]

    def __getitem__(self, i: Any) -> Any:
        return self.results[i]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[T]:
        return iter(self.results)

    def render(self, fmt: str) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.render("text")

    def _repr_html_(self) -> str:
        return self.render("html")

GRID_FORMATS = {"text": "simple", "markdown": "pipe", "html": "html"}


def grid(head: Sequence[str], rows: Sequence[Sequence[Any]], fmt: str, *,
         align: Sequence[str] | None = None) -> str:
    """``rows`` under ``head`` as a text, Markdown, HTML or CSV table (``align``: per column;
    by default a label column, then figures)."""
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(head)
        writer.writerows(rows)
        return buf.getvalue()
    if fmt not in GRID_FORMATS:
        raise ExactOddsError(f"unknown table format {fmt!r} (use {', '.join([*GRID_FORMATS, 'csv'])})")
    from tabulate import tabulate

    align = tuple(align) if align is not None else ("left",) + ("right",) * (len(head) - 1)
    return str(tabulate(rows, headers=list(head), tablefmt=GRID_FORMATS[fmt], disable_numparse=True,
                        colalign=align))


def dataframe(rows: list[dict[str, Any]]) -> Any:
    """``rows`` as a pandas DataFrame (pandas comes with the 'notebooks' extra)."""
    try:
        import pandas as pd
    except ImportError:
        raise ExactOddsError("to_dataframe() needs pandas: pip install 'exactodds[notebooks]'") from None
    return pd.DataFrame(rows)
