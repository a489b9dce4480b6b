"""Rendering: exact values formatted once, and one renderer per output format (text, Markdown, CSV, JSON, HTML).

Results of every layer above describe themselves as tidy tables; this layer turns them into text.
It sits just above the game (a table names its shoe) and below everything that prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Each name is imported from its module when first used, so importing one module of this layer
# does not import the others.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "report": [
        "decimal", "percent", "exact", "render", "FORMATS", "result_dict", "analysis_dict", "analysis_report",
        "summary_report", "result_report", "progressive_report", "mystery_report", "render_progressive",
        "render_mystery"
    ],
    "tables": [
        "Column", "Table", "Figure", "Report", "Results", "render_report", "RENDERERS", "grid", "GRID_FORMATS",
        "dataframe", "signed", "write_csv", "SIGN_CONVENTION", "Describes", "merge", "render_text", "render_markdown",
        "render_csv", "render_json", "render_html"
    ],
})

if TYPE_CHECKING:  # what a type checker and an IDE see
    from exactodds.render.report import (
        FORMATS,
        analysis_dict,
        analysis_report,
        decimal,
        exact,
        mystery_report,
        percent,
        progressive_report,
        render,
        render_mystery,
        render_progressive,
        result_dict,
        result_report,
        summary_report,
    )
    from exactodds.render.tables import (
        GRID_FORMATS,
        RENDERERS,
        SIGN_CONVENTION,
        Column,
        Describes,
        Figure,
        Report,
        Results,
        Table,
        dataframe,
        grid,
        merge,
        render_csv,
        render_html,
        render_json,
        render_markdown,
        render_report,
        render_text,
        signed,
        write_csv,
    )
