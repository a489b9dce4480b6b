"""Helpers for users' own test suites.

>>> from exactodds.simulation.simulate import simulate
>>> assert_matches(simulate(decks=8, rounds=20_000, seed=7, mode="fresh"), wagers=["banker", "player-pair"]).ok
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from exactodds.simulation.checksim import CheckResult, Records, check, check_counts, read_records, render

__all__ = ["assert_matches"]


def assert_matches(data: Any, *, decks: int = 8, wagers: Iterable[str] | None = None,
                   alpha: float = 0.01) -> CheckResult:
    """Raise ``AssertionError`` with a readable report unless ``data`` matches the exact odds.

    ``data`` is a path to per-round records, a :class:`~exactodds.simulation.checksim.Records`,
    rounds from :func:`exactodds.simulation.simulate.simulate` (anything with ``player`` and
    ``banker`` card arrays), or aggregated counts (a mapping with ``"wagers"``).
    """
    if isinstance(data, (str, Path)):
        records: Any = read_records(data)
    elif isinstance(data, Mapping):
        result = check_counts(data, decks=decks, alpha=alpha)
        if not result.ok:
            raise AssertionError("\n" + render(result, "text"))
        return result
    elif isinstance(data, Records):
        records = data
    else:
        player, banker = np.asarray(data.player), np.asarray(data.banker)
        records = Records(player, banker, np.arange(2, len(player) + 2))
    result = check(records, decks=decks, wagers=wagers, alpha=alpha)
    if not result.ok:
        raise AssertionError("\n" + render(result, "text"))
    return result
