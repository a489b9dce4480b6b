"""Documents: return-to-player certificates (built, rendered as Markdown, HTML, PDF and an Excel workbook,
signed and verified), the baseline tables, and plots for notebooks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Each name is imported from its module when first used, so importing one module of this layer
# does not import the others.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "certificate": [
        "build", "verify", "write_atomically", "select_for_certificate", "shoes_from_options", "provenance",
        "catalogue_with", "check_limits", "priced_tables", "FORMAT", "PARTIES", "MAX_BYTES", "MAX_SHOES", "MAX_WAGERS",
        "MAX_PAYTABLES", "MAX_TABLES", "LIMITS", "PAPERS", "ROUTES", "BAND_ROUNDS", "MAX_REVISIONS",
        "validation_record", "check_validation", "MAX_SIMULATED", "check_simulation", "MAX_EXPOSURE_SHOES",
        "check_exposure"
    ],
    "pages": [
        "render_html", "render_markdown", "write_pdf", "read_document", "pdf_differs", "ATTACHMENT", "SCRIPT_ID",
        "CERTIFICATE_RENDERERS", "certificate_csv", "certificate_json"
    ],
    "plots": [
        "edge_by_decks", "outcome_probabilities", "progressive_return", "removal_effect", "effects_bars",
        "edge_by_penetration", "position_distribution", "check_plot_path", "save_plot"
    ],
    "signing": [
        "canonical", "keygen", "sign", "check_signature", "load_public_key", "key_id", "check_name", "name_problem",
        "ALGORITHM", "NAME_LIMIT"
    ],
    "tables": ["write_tables", "table_texts"],
    "workbook": ["workbook_bytes", "write_xlsx", "read_workbook", "workbook_differs", "CERTIFICATE_SHEET",
                 "table_sheets"],
})

if TYPE_CHECKING:  # what a type checker and an IDE see
    from exactodds.documents.certificate import (
        BAND_ROUNDS,
        FORMAT,
        MAX_EXPOSURE_SHOES,
        LIMITS,
        MAX_BYTES,
        MAX_PAYTABLES,
        MAX_REVISIONS,
        MAX_SHOES,
        MAX_SIMULATED,
        MAX_TABLES,
        MAX_WAGERS,
        PAPERS,
        PARTIES,
        ROUTES,
        build,
        catalogue_with,
        check_exposure,
        check_limits,
        check_simulation,
        check_validation,
        priced_tables,
        provenance,
        select_for_certificate,
        shoes_from_options,
        validation_record,
        verify,
        write_atomically,
    )
    from exactodds.documents.pages import (
        ATTACHMENT,
        CERTIFICATE_RENDERERS,
        SCRIPT_ID,
        certificate_csv,
        certificate_json,
        pdf_differs,
        read_document,
        render_html,
        render_markdown,
        write_pdf,
    )
    from exactodds.documents.plots import (
        check_plot_path,
        edge_by_decks,
        edge_by_penetration,
        effects_bars,
        outcome_probabilities,
        position_distribution,
        progressive_return,
        removal_effect,
        save_plot,
    )
    from exactodds.documents.signing import (
        ALGORITHM,
        NAME_LIMIT,
        canonical,
        check_name,
        check_signature,
        key_id,
        keygen,
        load_public_key,
        name_problem,
        sign,
    )
    from exactodds.documents.tables import table_texts, write_tables
    from exactodds.documents.workbook import (
        CERTIFICATE_SHEET,
        read_workbook,
        table_sheets,
        workbook_bytes,
        workbook_differs,
        write_xlsx,
    )
