"""The engine: exact counts of every round off the top of a shoe.

The value-level round table (built once from the drawing rules), multiset tables compiled once per
feature set and priced per shoe by a sparse sum, suit and rank patterns, modular counts past 64 bits,
sizes estimated before anything is built, and the second route: the recursive walk of the deal,
memoized on the shoe, which shares no counting code with the tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Each name is imported from its module when first used, so importing one module of this layer
# does not import the others.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "bounds": [
        "Estimate", "LIMIT_BYTES", "BYTES_PER_LEAF", "SECONDS_PER_LEAF", "multiset_estimate", "round_estimate",
        "initial_estimate", "check"
    ],
    "budget": ["Budget", "OverBudget", "BudgetNote", "bounded", "units", "part_of", "check_seconds", "parse_duration", "duration"],
    "columns": [
        "value_columns", "identity_columns", "SLOT_INDEX", "INITIAL_SLOTS", "SUIT_LETTERS", "slots_read", "RANK_NINE",
        "VALUES_READ"
    ],
    "distribution": ["RoundDistribution", "deal", "round_table", "round_weights", "POINT_NAMES"],
    "grouped": ["Multiples", "grouped_sums"],
    "identity": ["hand_attributes", "initial_counts", "all_card_categories", "ALL_CARD_CATEGORIES"],
    "modular": ["primes_for", "crt"],
    "native": ["kernels", "status"],
    "multiset": [
        "MultisetTable", "compile_table", "told_apart", "Varies", "resolution_of", "SUITS", "EVERY_SUIT", "BY_COLOUR",
        "estimate", "RESOLUTIONS", "slot_values", "codes", "point_names"
    ],
    "roundtable": ["RoundTable"],
    "walk": ["WalkDistribution", "reads_by_group", "joint_counts", "outcome_counts_many", "reading", "suits_by_colour"],
})

if TYPE_CHECKING:  # what a type checker and an IDE see
    from exactodds.engine.bounds import (
        BYTES_PER_LEAF,
        LIMIT_BYTES,
        SECONDS_PER_LEAF,
        Estimate,
        check,
        initial_estimate,
        multiset_estimate,
        round_estimate,
    )
    from exactodds.engine.budget import (
        Budget,
        BudgetNote,
        OverBudget,
        bounded,
        check_seconds,
        duration,
        parse_duration,
        part_of,
        units,
    )
    from exactodds.engine.columns import (
        INITIAL_SLOTS,
        RANK_NINE,
        SLOT_INDEX,
        SUIT_LETTERS,
        VALUES_READ,
        identity_columns,
        slots_read,
        value_columns,
    )
    from exactodds.engine.distribution import POINT_NAMES, RoundDistribution, deal, round_table, round_weights
    from exactodds.engine.grouped import Multiples, grouped_sums
    from exactodds.engine.identity import ALL_CARD_CATEGORIES, all_card_categories, hand_attributes, initial_counts
    from exactodds.engine.modular import crt, primes_for
    from exactodds.engine.native import kernels, status
    from exactodds.engine.multiset import (
        BY_COLOUR,
        EVERY_SUIT,
        RESOLUTIONS,
        SUITS,
        MultisetTable,
        Varies,
        codes,
        compile_table,
        estimate,
        point_names,
        resolution_of,
        slot_values,
        told_apart,
    )
    from exactodds.engine.roundtable import RoundTable
    from exactodds.engine.walk import (
        WalkDistribution,
        joint_counts,
        outcome_counts_many,
        reading,
        reads_by_group,
        suits_by_colour,
    )
