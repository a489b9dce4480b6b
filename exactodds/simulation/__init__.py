"""Simulation: the reference simulator, simulator records on disk, check-sim and its statistics,
exposure studies of real shoes dealt at random, check-player (a player's bets against their exact edges) and the
simulated players it is validated on, and the cluster adapter (Dask).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

# Each name is imported from its module when first used, so importing one module of this layer
# does not import the others.
__getattr__, __dir__, __all__ = lazy_loader.attach(__name__, submod_attrs={
    "amounts": ["amounts_of", "amount_text", "pays_per_stake"],
    "checksim": [
        "Records", "read_records", "read_counts", "CheckResult", "TestRow", "ReturnRow", "RuleBreaks", "Tally",
        "check", "check_files", "check_counts", "tally_chunk", "tally_file"
    ],
    "checkplayer": ["PlayerCheck", "check_player", "round_edges", "bet_against_edge"],
    "checkstate": ["Checkpoint", "merge_checks"],
    "cluster": ["dask_client"],
    "explain": ["rule_broken", "meaning"],
    "exposure": ["Exposure", "WagerExposure", "exposure_batch", "ExposureSpec", "TC_RANGE"],
    "recordio": [
        "Chunk", "CARD_COLUMNS", "SHOE_COLUMN", "STAKE_COLUMN", "FORMATS", "MAX_RECORD_BYTES", "CHUNK_ROWS", "expand_sources",
        "read_chunks",
        "RecordWriter", "card_index", "arrow_strings", "dictionary_column", "read_ahead"
    ],
    "roundclasses": [
        "VALUE_SPACE", "value_codes", "decode_digits", "decode_values", "all_same_flags", "initial_codes",
        "breaks_rules", "Sparse", "RoundHistogram", "Classes", "histogram_kind", "distinct", "settlement_groups",
        "settle_grouped"
    ],
    "players": ["player_log"],
    "rounds": [
        "POINTS", "deal_from", "window_draws", "invalid_rounds", "features", "settle_rounds", "settle_many",
        "round_keys", "slot_arrays", "settle_iter"
    ],
    "simulate": ["SimulatedRounds", "simulate_chunks", "deal_shoes", "write_records", "record_table", "record_columns",
                 "FAULTS"],
    "testing": ["assert_matches"],
    "validation": ["ValidationRounds", "validation_rounds", "write_validation", "SEARCH_BATCHES"],
    "withinshoe": ["SERIAL_ROUNDS", "WithinShoe", "Carry", "tally_within", "within_rows", "split_shoes"],
})

if TYPE_CHECKING:  # what a type checker and an IDE see
    from exactodds.simulation.amounts import amount_text, amounts_of, pays_per_stake
    from exactodds.simulation.checkplayer import PlayerCheck, bet_against_edge, check_player, round_edges
    from exactodds.simulation.checksim import (
        CheckResult,
        Records,
        ReturnRow,
        RuleBreaks,
        Tally,
        TestRow,
        check,
        check_counts,
        check_files,
        read_counts,
        read_records,
        tally_chunk,
        tally_file,
    )
    from exactodds.simulation.checkstate import Checkpoint, merge_checks
    from exactodds.simulation.cluster import dask_client
    from exactodds.simulation.explain import meaning, rule_broken
    from exactodds.simulation.exposure import TC_RANGE, Exposure, ExposureSpec, WagerExposure, exposure_batch
    from exactodds.simulation.recordio import (
        CARD_COLUMNS,
        CHUNK_ROWS,
        FORMATS,
        MAX_RECORD_BYTES,
        SHOE_COLUMN,
        STAKE_COLUMN,
        Chunk,
        RecordWriter,
        arrow_strings,
        card_index,
        dictionary_column,
        expand_sources,
        read_ahead,
        read_chunks,
    )
    from exactodds.simulation.roundclasses import (
        VALUE_SPACE,
        Classes,
        RoundHistogram,
        Sparse,
        all_same_flags,
        breaks_rules,
        decode_digits,
        decode_values,
        distinct,
        histogram_kind,
        initial_codes,
        settle_grouped,
        settlement_groups,
        value_codes,
    )
    from exactodds.simulation.players import player_log
    from exactodds.simulation.rounds import (
        POINTS,
        deal_from,
        features,
        invalid_rounds,
        round_keys,
        settle_iter,
        settle_many,
        settle_rounds,
        slot_arrays,
        window_draws,
    )
    from exactodds.simulation.simulate import (
        FAULTS,
        SimulatedRounds,
        deal_shoes,
        record_columns,
        record_table,
        simulate_chunks,
        write_records,
    )
    from exactodds.simulation.testing import assert_matches
    from exactodds.simulation.validation import SEARCH_BATCHES, ValidationRounds, validation_rounds, write_validation
    from exactodds.simulation.withinshoe import (
        SERIAL_ROUNDS,
        Carry,
        WithinShoe,
        split_shoes,
        tally_within,
        within_rows,
    )
