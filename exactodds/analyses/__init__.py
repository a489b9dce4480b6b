"""Analyses: a wager's paytable priced against the exact distribution, and what follows from it —
effects of removal and card counts, positions of several wagers, player options (House Money),
the Banker's vigorish by bet size, progressive and mystery jackpots, and the paytable designer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Each name is imported from its module when first used, so importing one module of this layer
# does not import the others.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "analysis": ["Analysis", "analyze", "select", "load_file", "load_text", "priced_pairs", "MAIN_WAGERS", "ROUTES"],
    "betting": ["Play", "parse_ramp", "ramp_units"],
    "designer": ["Design", "Designs", "design", "SEARCH_BUDGET"],
    "counting": ["Count", "suggest_tags", "betting_correlation_squared", "parse_tags", "RANKS", "CARDS"],
    "eor": [
        "RemovalEffects", "EffectsTable", "effects_of_removal", "resolution", "PER", "least_squares_effects",
        "second_order_effects", "SecondOrder"
    ],
    "given": ["Given", "priced_given"],
    "house_money": ["HouseMoneyOption", "options_report", "render_options", "BETS"],
    "positions": ["Position", "PositionLine", "position", "parse_stake", "ROUNDS", "CONFIDENCE", "JOINT_ROWS"],
    "pricing": [
        "OutcomeLine", "WagerResult", "PointDistribution", "price", "expected_return", "classify", "check_wagers",
        "LOSE"
    ],
    "progressive": [
        "MeterSpec", "ProgressiveSpec", "MysterySpec", "ProgressiveAnalysis", "MysteryReturn", "load_meters",
        "progressive_analysis", "mystery_return", "long_run_return", "parse_rate"
    ],
    "vigorish": ["VigorishTable", "VigorishTables", "vigorish_table", "COMMON_BETS"],
})

if TYPE_CHECKING:  # what a type checker and an IDE see
    from exactodds.analyses.given import Given, priced_given
    from exactodds.analyses.designer import SEARCH_BUDGET, Design, Designs, design
    from exactodds.analyses.analysis import (
        MAIN_WAGERS,
        ROUTES,
        Analysis,
        analyze,
        load_file,
        load_text,
        priced_pairs,
        select,
    )
    from exactodds.analyses.betting import Play, parse_ramp, ramp_units
    from exactodds.analyses.counting import CARDS, RANKS, Count, betting_correlation_squared, parse_tags, suggest_tags
    from exactodds.analyses.eor import (
        PER,
        EffectsTable,
        RemovalEffects,
        SecondOrder,
        effects_of_removal,
        least_squares_effects,
        resolution,
        second_order_effects,
    )
    from exactodds.analyses.house_money import BETS, HouseMoneyOption, options_report, render_options
    from exactodds.analyses.positions import (
        CONFIDENCE,
        JOINT_ROWS,
        ROUNDS,
        Position,
        PositionLine,
        parse_stake,
        position,
    )
    from exactodds.analyses.pricing import (
        LOSE,
        OutcomeLine,
        PointDistribution,
        WagerResult,
        check_wagers,
        classify,
        expected_return,
        price,
    )
    from exactodds.analyses.progressive import (
        MeterSpec,
        MysteryReturn,
        MysterySpec,
        ProgressiveAnalysis,
        ProgressiveSpec,
        load_meters,
        long_run_return,
        mystery_return,
        parse_rate,
        progressive_analysis,
    )
    from exactodds.analyses.vigorish import COMMON_BETS, VigorishTable, VigorishTables, vigorish_table
