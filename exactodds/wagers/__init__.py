"""Wagers and their language: the features a wager reads, the condition language, pays as the
regulations write them, exact meter forms, and the catalogue loaded from data files that cite the
regulations.

The engine compiles what this language says, so the language sits below the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Each name is imported from its module when first used, so importing one module of this layer
# does not import the others.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "bet_size": ["vigorish", "at_bet", "parse_dollars", "money", "QUARTER"],
    "catalogue": [
        "Outcome", "Paytable", "Wager", "Catalogue", "load_catalogue", "read_file", "read_text", "file_text",
        "did_you_mean", "check_meter_names", "check_id", "DATA_FILES", "MAX_FILE_BYTES", "ID_CHARACTERS", "MAX_ID"
    ],
    "conditions": ["Condition", "MAX_LENGTH", "MAX_CONSTANT", "MAX_DEPTH", "FUNCTIONS", "parameter_type"],
    "forms": ["Form"],
    "outcomes": [
        "POINT_FEATURES", "VALUE_FEATURES", "ALL_CARD_FEATURES", "INITIAL_FEATURES", "DERIVED", "KNOWN_FEATURES",
        "HAND_ATTRIBUTES", "point_row", "initial_row", "feature_kind", "initial_needs", "SLOTS", "POSITION_FEATURES",
        "CARD_FEATURES", "VALUE_LEVEL", "FEATURE_TYPES", "vocabulary", "TEXT_VALUES", "SUITS_TOLD_APART"
    ],
    "pays": ["Pay", "parse_pay", "parse_amount", "THOUSANDS", "vigorish_terms", "Net"],
})

if TYPE_CHECKING:  # what a type checker and an IDE see
    from exactodds.wagers.bet_size import QUARTER, at_bet, money, parse_dollars, vigorish
    from exactodds.wagers.catalogue import (
        DATA_FILES,
        ID_CHARACTERS,
        MAX_FILE_BYTES,
        MAX_ID,
        Catalogue,
        Outcome,
        Paytable,
        Wager,
        check_id,
        check_meter_names,
        did_you_mean,
        file_text,
        load_catalogue,
        read_file,
        read_text,
    )
    from exactodds.wagers.conditions import FUNCTIONS, MAX_CONSTANT, MAX_DEPTH, MAX_LENGTH, Condition, parameter_type
    from exactodds.wagers.forms import Form
    from exactodds.wagers.outcomes import (
        ALL_CARD_FEATURES,
        CARD_FEATURES,
        DERIVED,
        FEATURE_TYPES,
        HAND_ATTRIBUTES,
        INITIAL_FEATURES,
        KNOWN_FEATURES,
        POINT_FEATURES,
        POSITION_FEATURES,
        SLOTS,
        SUITS_TOLD_APART,
        TEXT_VALUES,
        VALUE_FEATURES,
        VALUE_LEVEL,
        feature_kind,
        initial_needs,
        initial_row,
        point_row,
        vocabulary,
    )
    from exactodds.wagers.pays import THOUSANDS, Net, Pay, parse_amount, parse_pay, vigorish_terms
