"""Which ten-valued ranks a wager's conditions tell apart: the coarsest split of 10, J, Q, K a table needs.

A point value holds one rank, except 0 (627a.6(a): the 10, jack, queen and king all count zero). So a
table that reads single cards' ranks reads them finer than their points only among those four, and a
condition that asks whether a card is a face card (``player_rank_1 in (11, 12, 13)``) tells the 10 from
the face cards and nothing more: its table is compiled over that split (:mod:`exactodds.engine.multiset`,
``told`` of a table of ranks), one atom per block, read as the block's first rank.

The split is proven from the conditions, not from their spelling: every place a condition reads a
position's rank lies in a largest part that reads that rank alone
(:meth:`exactodds.wagers.conditions.Condition.parts_alone`), so the condition depends on the rank only
through those parts' values; two ranks on which every such part of every condition agrees are never told
apart. A rank compared with another card's is its own part, and tells all four apart.

>>> from exactodds.wagers.catalogue import read_text
>>> def bet(when): return read_text('[[wager]]\\nid = "w"\\nname = "w"\\nsection = "test"\\n[[wager.outcome]]\\n'
...     f'id = "o"\\nname = "o"\\nwhen = "{when}"\\n[[wager.paytable]]\\nid = "A"\\n'
...     'pays = { o = "1 to 1" }\\n', source="w.toml")["w"]
>>> tens_told([bet("player_rank_1 >= 11 and banker_rank_1 in (11, 12, 13)")])
'T|JQK'
>>> tens_told([bet("player_rank_1 == 13 or player_rank_1 == 9")]), tens_told([bet("banker_rank_2 == 7")])
('TJQ|K', 'TJQK')
>>> tens_told([bet("player_rank_1 == banker_rank_1")])                 # compared: every rank apart
'T|J|Q|K'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from exactodds.wagers.outcomes import VALUE_LEVEL

if TYPE_CHECKING:
    from exactodds.wagers.catalogue import Wager

__all__ = ["TENS", "EVERY_TEN", "tens_told", "blocks_of", "is_split", "coarser", "reads_ranks_alone", "shown"]

#: The ten-valued ranks by letter (T for the 10), in rank order: 10, J, Q, K are ranks 10 to 13.
TENS = "TJQK"
#: Every ten-valued rank told apart.
EVERY_TEN = "T|J|Q|K"
#: A single position's rank: the features a table of ranks may coarsen (beside point features).
RANK_FEATURE = re.compile(r"(player|banker)_rank_[123]")
_TEN_RANKS = np.arange(10, 14, dtype=np.int16)


def reads_ranks_alone(features: Iterable[str]) -> bool:
    """Whether ``features`` are point features and single positions' ranks, at least one (a table of them
    reads ranks and nothing finer, and may read the ten-valued ones by a coarser split)."""
    features = set(features)
    ranks = {f for f in features if RANK_FEATURE.fullmatch(f)}
    return bool(ranks) and features - ranks <= VALUE_LEVEL


def blocks_of(told: str) -> list[list[int]]:
    """The ranks (10 to 13) of each block of a split of :data:`TENS` written as blocks joined by '|'.

    >>> blocks_of("T|JQK")
    [[10], [11, 12, 13]]
    """
    return [[10 + TENS.index(x) for x in block] for block in told.split("|")]


def shown(told: str) -> str:
    """A split in words, e.g. ``{10} {J, Q, K}``.

    >>> shown("T|JQK")
    '{10} {J, Q, K}'
    """
    return " ".join("{" + ", ".join("10" if x == "T" else x for x in block) + "}" for block in told.split("|"))


def is_split(told: object) -> bool:
    """Whether ``told`` is a split of :data:`TENS` written canonically (as :func:`tens_told` writes one)."""
    return isinstance(told, str) and sorted(told.replace("|", "")) == sorted(TENS) and \
        _written({tuple(b) for b in blocks_of(told)}) == told


def coarser(told: object) -> bool:
    """Whether ``told`` is a split that joins some ten-valued ranks (a table then has one atom per block)."""
    return is_split(told) and told != EVERY_TEN


def tens_told(wagers: Sequence[Wager]) -> str:
    """The coarsest split of the ten-valued ranks that tells apart every pair of them some condition of
    ``wagers`` tells apart at some position, as blocks joined by '|' in rank order (:data:`EVERY_TEN` where a
    wager reads features other than points and single positions' ranks). Kept on each wager."""
    if not wagers:
        return EVERY_TEN
    signatures: list[tuple[Any, ...]] = [() for _ in TENS]
    for wager in wagers:
        for rank, seen in enumerate(_signature(wager)):
            signatures[rank] = (*signatures[rank], *seen)
    blocks: dict[tuple[Any, ...], list[int]] = {}
    for rank, seen in enumerate(signatures):
        blocks.setdefault(seen, []).append(10 + rank)
    return _written({tuple(b) for b in blocks.values()})


def _signature(wager: Wager) -> list[tuple[Any, ...]]:
    """Per ten-valued rank, the values every part of the wager's conditions that reads one rank alone takes
    on it (ranks with equal signatures are never told apart); each rank its own where the proof is not made."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    if "tens signature" not in cache:
        cache["tens signature"] = _prove(wager)
    return cache["tens signature"]  # type: ignore[no-any-return]


def _prove(wager: Wager) -> list[tuple[Any, ...]]:
    apart: list[tuple[Any, ...]] = [(rank,) for rank in range(len(TENS))]
    if not reads_ranks_alone(wager.features):
        return apart
    seen: list[tuple[Any, ...]] = [() for _ in TENS]
    for outcome in wager.outcomes:
        condition = outcome.condition
        parameters = dict(condition.declared)
        for feature in sorted(f for f in condition.names if RANK_FEATURE.fullmatch(f)):
            try:
                parts = condition.parts_alone(feature)
            except Exception:          # a condition not taken apart: all four apart (safe)
                return apart
            for part in parts:
                try:
                    values = np.broadcast_to(np.asarray(part({**parameters, feature: _TEN_RANKS})), (len(TENS),))
                except Exception:      # a part that cannot be read on a ten-valued rank: all four apart (safe)
                    return apart
                for rank, value in enumerate(values.tolist()):
                    seen[rank] = (*seen[rank], value)
    return seen


def _written(blocks: set[tuple[int, ...]]) -> str:
    return "|".join("".join(TENS[r - 10] for r in b) for b in sorted(blocks, key=min))
