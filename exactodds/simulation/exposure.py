"""Exposure to counting: real shoes dealt at random, the exact edge before every round.

Shoes are dealt as the reference simulator deals them (§627a.5: shuffle, burn,
cover card ``cut`` cards from the end; the last hand of §627a.9(e)). Before each
round the wager's **exact** expected return is computed on the cards a player has
not seen — every card but the exposed burn card and the cards of earlier rounds.
(The face-down burn cards are unseen: leaving them in changes nothing, for the
same reason the effects of removal sum to zero; the alternative, the edge on the
cards physically left in the shoe, is not what any player can know.) A running
count of the seen cards is kept beside it, and its true count (per 52 unseen
cards, rounded down).

The rounds of a batch are priced together where a wager is read at point values
(:func:`exactodds.analyses.door.value_moments`: one pass over the multisets
the wagers pay on, shared by every wager of the run that reads the same table),
and one by one otherwise; the totals run in integers over one denominator.

Every shoe is shuffled from its own seed, ``(seed, shoe number)``, and every
total is an exact sum, so a run gives the same numbers however its shoes are
split into batches and wherever the batches run: in this process, on the local
cores, or on a Dask cluster (``scheduler``).

>>> x = exposure([("dragon-7-insurance", "standard")], shoes=2, seed=1)
>>> r = x[0]
>>> r.shoes, r.rounds, r.rounds == sum(row[0] for row in r.by_penetration.values())
(2, 164, True)
"""

from __future__ import annotations

import functools
import json
import math
import os
import resource
import signal
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from exactodds.analyses.betting import Play, checked_ramp, ramp_units
from exactodds.analyses.counting import Count
from exactodds.analyses.eor import effects_of_removal, resolve_pairs
from exactodds.analyses.door import Door, returns_many, route_in_force, routed, value_moments
from exactodds.engine import budget
from exactodds.engine.grouped import Multiples, grouped_sums, round_tally
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import CARDS_PER_ROUND, Shoe
from exactodds.render.tables import (
    Column,
    Report,
    Results,
    SIGN_CONVENTION,
    Table,
    cited,
    counted,
    dataframe,
    decimal,
    exact,
    percent,
)
from exactodds.simulation.checkpoint import (
    CHECKPOINT_EVERY,
    State,
    covered,
    definition,
    first_difference,
    load_state,
    save_state,
)
from exactodds.simulation.cluster import Shipped, dask_client, numpy_heap
from exactodds.simulation.rounds import settle_many
from exactodds.simulation.simulate import deal_shoes
from exactodds.wagers.catalogue import Catalogue, Paytable, Wager, load_catalogue

__all__ = ["Exposure", "WagerExposure", "exposure", "exposure_batch", "ExposureSpec", "TC_RANGE", "Throughput",
           "merge_exposure", "estimate", "Estimate", "check_bankroll"]

#: True counts are binned by their floor and clamped to this range (both ends inclusive).
TC_RANGE = (-20, 30)
#: Penetration bins: cards seen per 1/PEN_BINS of the shoe.
PEN_BINS = 10
#: The bankroll, in units, whose risk of ruin a run shows unless told another.
BANKROLL = 100
#: The most local worker processes a run starts (more belong on a cluster: ``scheduler``).
MAX_WORKERS = 64
#: The CPU seconds a Dask task aims at (several batches): the scheduler's cost per task, milliseconds, disappears.
TASK_SECONDS = 2.0
#: The CPU seconds a task of local worker processes aims at: what this process does per task (a result
#: unpickled and added, a checkpoint's bookkeeping) disappears, and the progress shown still moves.
LOCAL_TASK_SECONDS = 0.25
#: The fewest Dask tasks submitted and not finished (two per worker thread when there are more threads).
DASK_WINDOW = 16
#: The largest first shoe a part of a study may start from.
MAX_FIRST_SHOE = 10**12
#: The largest bankroll, in units, whose risk of ruin a run shows (it is read as a float: exact to 2^53).
MAX_BANKROLL = 10**15


@dataclass(frozen=True)
class ExposureSpec:
    """Everything a batch needs, picklable: the wagers, the shoe, the counts, the seed."""

    pairs: tuple[tuple[Wager, str], ...]
    decks: int
    cut: int
    seed: int
    tags: tuple[tuple[int, ...], ...]           # per pair: the tag of each of the 52 cards
    team: bool = False                           # tally every two wagers' expected product (a team's variance)
    route: str = "auto"                          # the exact route of every door a batch opens (the same numbers)


@dataclass
class Tally:
    """Exact sums over the rounds of some shoes, for one wager; tallies add up."""

    shoes: int = 0
    rounds: int = 0
    sum_edge: Fraction = Fraction(0)
    advantage_rounds: int = 0
    sum_advantage: Fraction = Fraction(0)          # Σ edge over the rounds with a player advantage
    realized_advantage: Fraction = Fraction(0)     # Σ net result of those rounds, as dealt
    sum_sq_shoe_advantage: Fraction = Fraction(0)  # Σ over shoes of (Σ advantage edges in the shoe)²
    sum_square_advantage: Fraction = Fraction(0)   # Σ expected squared result over the rounds with an advantage
    # true count bin -> [rounds, Σ edge, rounds with advantage, Σ realized net, Σ expected squared result]
    by_tc: dict[int, list[Any]] = field(default_factory=dict)
    # threshold -> Σ over shoes of (Σ edges of rounds at or above it)²
    sum_sq_threshold: dict[int, Fraction] = field(default_factory=dict)
    # penetration bin -> [rounds, Σ edge, rounds with advantage, min edge, max edge]
    by_penetration: dict[int, list[Any]] = field(default_factory=dict)
    # (penetration bin, edge percent floor) -> rounds
    histogram: dict[tuple[int, int], int] = field(default_factory=dict)
    # round of the shoe (1: its first) -> [rounds, Σ edge]
    by_round: dict[int, list[Any]] = field(default_factory=dict)
    # per shoe s with n_s rounds and y_s = Σ edge: Σ y_s², Σ y_s·n_s, Σ n_s² (the cut card's standard error)
    sum_sq_shoe_edge: Fraction = Fraction(0)
    sum_shoe_edge_rounds: Fraction = Fraction(0)
    sum_sq_shoe_rounds: int = 0
    # (a later wager of the run, this wager's true count, its true count) -> [rounds, Σ E[X · X_other]]
    cross: dict[tuple[int, int, int], list[Any]] = field(default_factory=dict)

    def add(self, other: Tally) -> Tally:
        self.shoes += other.shoes
        self.rounds += other.rounds
        self.sum_edge += other.sum_edge
        self.advantage_rounds += other.advantage_rounds
        self.sum_advantage += other.sum_advantage
        self.realized_advantage += other.realized_advantage
        self.sum_sq_shoe_advantage += other.sum_sq_shoe_advantage
        self.sum_square_advantage += other.sum_square_advantage
        for k, row in other.by_tc.items():
            mine = self.by_tc.setdefault(k, [0, Fraction(0), 0, Fraction(0), Fraction(0)])
            for i in range(5):
                mine[i] += row[i]
        for t, v in other.sum_sq_threshold.items():
            self.sum_sq_threshold[t] = self.sum_sq_threshold.get(t, Fraction(0)) + v
        for k, row in other.by_penetration.items():
            if k not in self.by_penetration:
                self.by_penetration[k] = list(row)
                continue
            mine = self.by_penetration[k]
            mine[0] += row[0]
            mine[1] += row[1]
            mine[2] += row[2]
            mine[3] = min(mine[3], row[3])
            mine[4] = max(mine[4], row[4])
        for cell, n in other.histogram.items():
            self.histogram[cell] = self.histogram.get(cell, 0) + n
        for k, row in other.by_round.items():
            mine = self.by_round.setdefault(k, [0, Fraction(0)])
            mine[0] += row[0]
            mine[1] += row[1]
        self.sum_sq_shoe_edge += other.sum_sq_shoe_edge
        self.sum_shoe_edge_rounds += other.sum_shoe_edge_rounds
        self.sum_sq_shoe_rounds += other.sum_sq_shoe_rounds
        for key, row in other.cross.items():
            mine = self.cross.setdefault(key, [0, Fraction(0)])
            mine[0] += row[0]
            mine[1] += row[1]
        return self

    @classmethod
    def summed(cls, tallies: Sequence[Tally]) -> Tally:
        """``tallies`` added up, as :meth:`add` gives them one by one, but each total of Fractions formed over
        one common denominator (Fractions added one by one reduce at every step: over ten batches, 3 to 4
        times the time)."""
        out = cls()
        for name in _SCALARS:
            setattr(out, name, _total([getattr(t, name) for t in tallies]))
        for name in _TABLES:
            rows: dict[Any, list[Any]] = {}
            for t in tallies:
                for key, value in getattr(t, name).items():
                    rows.setdefault(key, []).append(value)
            if name in _SINGLE:
                setattr(out, name, {key: _total(values) for key, values in rows.items()})
            else:
                setattr(out, name, {key: [min(column) if (name, i) in _LEAST else max(column) if (name, i) in _MOST
                                          else _total(column) for i, column in enumerate(zip(*values))]
                                    for key, values in rows.items()})
        return out

    def to_json(self) -> dict[str, Any]:
        """The tally as JSON, exactly: integers as numbers, Fractions as ``"n/d"`` strings, each table as rows
        sorted by their key (``[*key, *values]``)."""
        out: dict[str, Any] = {name: _out(getattr(self, name)) for name in _SCALARS}
        for name, width in _TABLES.items():
            rows = []
            for key, value in sorted(getattr(self, name).items()):
                keys = list(key) if isinstance(key, tuple) else [key]
                rows.append([*map(int, keys), *map(_out, value if isinstance(value, list) else [value])])
            out[name] = rows
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        """The tally :meth:`to_json` wrote."""
        tally = cls(**{name: _in(data[name]) for name in _SCALARS})
        for name, width in _TABLES.items():
            table: dict[Any, Any] = {}
            for row in data[name]:
                key = row[0] if width == 1 else tuple(row[:width])
                values = [_in(v) for v in row[width:]]
                table[key] = values if name not in _SINGLE else values[0]
            setattr(tally, name, table)
        return tally


_SCALARS = ("shoes", "rounds", "sum_edge", "advantage_rounds", "sum_advantage", "realized_advantage",
            "sum_sq_shoe_advantage", "sum_square_advantage", "sum_sq_shoe_edge", "sum_shoe_edge_rounds",
            "sum_sq_shoe_rounds")
#: Each keyed table of a tally and the width of its key; those in _SINGLE hold one value per key.
_TABLES = {"by_tc": 1, "sum_sq_threshold": 1, "by_penetration": 1, "histogram": 2, "by_round": 1, "cross": 3}
_SINGLE = frozenset({"sum_sq_threshold", "histogram"})
#: The columns of a table that keep the least or the largest value, not a sum (by_penetration's edges).
_LEAST, _MOST = frozenset({("by_penetration", 3)}), frozenset({("by_penetration", 4)})
_KEPT = frozenset(name for name, _ in _LEAST | _MOST)


#: What each total of a tally is a sum of, for :class:`_Sums`: ``"edge"`` (edges, over the wager's scale times the
#: run's common denominator of rounds), ``"edge2"`` (squares of such sums, over that squared), ``"net"`` (nets as
#: dealt), ``"square"`` (expected squared results), ``"cross"`` (expected products with another wager, over a
#: denominator per other wager); None for counts. A keyed table names one per column.
_OVER: dict[str, Any] = {
    "shoes": None, "rounds": None, "sum_edge": "edge", "advantage_rounds": None, "sum_advantage": "edge",
    "realized_advantage": "net", "sum_sq_shoe_advantage": "edge2", "sum_square_advantage": "square",
    "sum_sq_shoe_edge": "edge2", "sum_shoe_edge_rounds": "edge", "sum_sq_shoe_rounds": None,
    "by_tc": (None, "edge", None, "net", "square"), "sum_sq_threshold": ("edge2",),
    "by_penetration": (None, "edge", None, "edge", "edge"), "histogram": (None,), "by_round": (None, "edge"),
    "cross": (None, "cross"),
}


@dataclass
class _Sums:
    """A :class:`Tally` in integers, as batches make it: each total of Fractions a numerator over a denominator
    of its kind (:data:`_OVER`), which a run's batches share, so that adding them is adding integers (Fractions
    reduce at every step: for three wagers, half the tally's time). :meth:`tally` makes the Fractions, once."""

    scalars: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_SCALARS, 0))
    #: per table of :data:`_TABLES` but the histogram, key -> its columns (a table of one value per key: a list
    #: of one)
    tables: dict[str, dict[Any, list[int]]] = field(
        default_factory=lambda: {name: {} for name in _TABLES if name != "histogram"})
    #: the denominators: ``"edge"``, ``"net"``, ``"square"``, ``("cross", other wager)``; a kind not named
    #: has no total but 0 (an empty batch)
    over: dict[Any, int] = field(default_factory=dict)
    #: the histogram's rounds per (penetration bin, edge's floor in percent): counts, over no denominator, kept
    #: as plain integers (a batch has hundreds of cells: a list per cell cost a third of its tally's Python)
    histogram: dict[tuple[int, int], int] = field(default_factory=dict)

    def _scaled(self, factors: dict[Any, int]) -> _Sums:
        """These sums over denominators ``factors`` times larger (each kind's numerators times its factor)."""
        def times(kind: Any, key: Any) -> int:
            if kind is None:
                return 1
            if kind == "edge2":
                return factors.get("edge", 1) ** 2
            return factors.get(("cross", key[0]) if kind == "cross" else kind, 1)
        scalars = {name: v * times(_OVER[name], None) for name, v in self.scalars.items()}
        tables = {name: {key: [v * times(kind, key) for v, kind in zip(row, _OVER[name])] for key, row in rows.items()}
                  for name, rows in self.tables.items()}
        return _Sums(scalars, tables, {k: d * factors.get(k, 1) for k, d in self.over.items()}, dict(self.histogram))

    def add(self, other: _Sums) -> _Sums:
        """Add ``other`` in place (over common denominators first where the two differ) and return self."""
        if other.over != self.over:
            common = {k: math.lcm(self.over.get(k, 1), other.over.get(k, 1)) for k in {*self.over, *other.over}}
            scaled = self._scaled({k: d // self.over[k] for k, d in common.items() if k in self.over})
            other = other._scaled({k: d // other.over[k] for k, d in common.items() if k in other.over})
            self.scalars, self.tables, self.over = scaled.scalars, scaled.tables, common
        for name, v in other.scalars.items():
            self.scalars[name] += v
        histogram = self.histogram
        for cell, n in other.histogram.items():
            histogram[cell] = histogram.get(cell, 0) + n
        for name, rows in other.tables.items():
            table = self.tables[name]
            kept = name in _KEPT
            for key, row in rows.items():
                mine = table.get(key)
                if mine is None:
                    table[key] = list(row)
                elif not kept:
                    for i, v in enumerate(row):
                        mine[i] += v
                else:
                    for i, v in enumerate(row):
                        mine[i] = (min(mine[i], v) if (name, i) in _LEAST else max(mine[i], v) if (name, i) in _MOST
                                   else mine[i] + v)
        return self

    def tally(self) -> Tally:
        """The :class:`Tally` these sums make (each a Fraction over its denominator, reduced once)."""
        def exact(v: int, kind: Any, key: Any) -> Any:
            if kind is None:
                return v
            if kind == "edge2":
                return Fraction(v, self.over["edge"] ** 2)
            return Fraction(v, self.over[("cross", key[0]) if kind == "cross" else kind])
        out = Tally(**{name: exact(v, _OVER[name], None) for name, v in self.scalars.items()})
        for name, rows in self.tables.items():
            kinds = _OVER[name]
            setattr(out, name, {key: [exact(v, kind, key) for v, kind in zip(row, kinds)] if name not in _SINGLE
                                else exact(row[0], kinds[0], key) for key, row in rows.items()})
        out.histogram = dict(self.histogram)
        return out


def _total(values: Sequence[Any]) -> Any:
    """The sum of integers, or of Fractions over one common denominator (a Fraction, reduced once)."""
    if not any(isinstance(v, Fraction) for v in values):
        return sum(values)
    common = math.lcm(*(v.denominator for v in values))
    return Fraction(sum(v.numerator * (common // v.denominator) for v in values), common)


def _out(v: Any) -> Any:
    return str(v) if isinstance(v, Fraction) else int(v)


def _in(v: Any) -> Any:
    if isinstance(v, str):
        return Fraction(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"a total {v!r}")
    return v


def _shuffled(decks: int, seed: int, first: int, stop: int) -> np.ndarray:
    """Shoes ``first`` to ``stop - 1`` of a run, each shuffled by its own generator (seed, shoe number)."""
    cards = np.repeat(np.arange(52, dtype=np.int16), decks)
    return np.stack([np.random.default_rng([seed, i]).permutation(cards) for i in range(first, stop)])


def exposure_batch(spec: ExposureSpec, first: int, stop: int) -> list[Tally]:
    """Deal shoes ``first`` to ``stop - 1`` of the run and tally every wager (the unit of work)."""
    return [sums.tally() for sums in _batch_sums(spec, first, stop)]


@functools.lru_cache(maxsize=8)
def _round_multiples(size: int) -> tuple[int, Multiples]:
    """The common denominator of a run's rounds on a shoe of ``size`` cards: D, the least common multiple of
    the ordered 6-card sequences of every shoe of 6 to ``size`` cards; and per number of cards n from 0 to
    ``size``, D over n's sequences (Python integers; 0 below 6 cards, where no round is dealt). Every batch of
    the run counts its rounds over D, so the batches' sums add as integers.

    >>> d, multiples = _round_multiples(8)           # 6·5·4·3·2·1 = 720, 7·6·…·2 = 5,040, 8·7·…·3 = 20,160
    >>> d, multiples.values.tolist()
    (20160, [0, 0, 0, 0, 0, 0, 28, 4, 1])
    """
    sequences = [math.perm(n, CARDS_PER_ROUND) for n in range(CARDS_PER_ROUND, size + 1)]
    common = math.lcm(*sequences)
    return common, Multiples([0] * CARDS_PER_ROUND + [common // t for t in sequences])


def _batch_sums(spec: ExposureSpec, first: int, stop: int) -> list[_Sums]:
    """:func:`exposure_batch` as integers over the run's denominators (:class:`_Sums`), as the runs add them,
    by the spec's route (a worker's process has no route in force of its own)."""
    with routed(spec.route):
        return _route_sums(spec, first, stop)


def _route_sums(spec: ExposureSpec, first: int, stop: int) -> list[_Sums]:
    stack = _shuffled(spec.decks, spec.seed, first, stop)
    size = stack.shape[1]
    player, banker, shoe_row, _burned = deal_shoes(stack, cut=spec.cut)
    n = len(player)
    cards = np.concatenate([player, banker], axis=1).astype(np.int64)    # a round's cards, -1 where none
    rows = np.repeat(np.arange(n, dtype=np.int64), cards.shape[1])
    dealt = np.bincount((rows * 52 + cards.reshape(-1))[cards.reshape(-1) >= 0], minlength=n * 52).reshape(n, 52)
    starts = np.flatnonzero(np.r_[True, shoe_row[1:] != shoe_row[:-1]])
    opening = starts[np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))]    # each round's shoe's first
    before = np.cumsum(dealt, axis=0) - dealt             # the batch's cards dealt before each round
    seen = before - before[opening]                       # its shoe's
    burn = stack[shoe_row, 0]                             # the exposed burn card of its shoe (§627a.5(f))
    seen[np.arange(n), burn] += 1
    unseen = spec.decks - seen
    unseen_total = size - seen.sum(axis=1)
    settled = settle_many([(w, w.paytable(t)) for w, t in spec.pairs], player, banker)
    tallies = [_Sums() for _ in spec.pairs]
    for empty in tallies:
        empty.scalars["shoes"] = stop - first
    nets = [[w.paytable(t).pays[o.id].net for o in w.outcomes] for w, t in spec.pairs]
    # per wager, each round's running count: the tags of the cards its shoe dealt before it, and of the burn card
    # (the rows of seen @ tags.T, by a round's few cards rather than all 52 identities: a third of the time a wager)
    tags = np.array(spec.tags, dtype=np.int64).reshape(len(spec.tags), 52)
    tagged = np.concatenate([tags, np.zeros((len(tags), 1), dtype=np.int64)], axis=1)   # card -1 (none): tag 0
    own = sum(tagged[:, cards[:, k]] for k in range(cards.shape[1]))                     # each round's cards' tags
    so_far = np.cumsum(own, axis=1) - own
    running = list(so_far - so_far[:, opening] + tags[:, burn])
    ranks = unseen.reshape(n, 13, 4).sum(axis=2)
    values = np.concatenate([ranks[:, 9:].sum(axis=1, keepdims=True), ranks[:, :9]], axis=1)
    # every round of the batch at once where the wager is read at point values; shoe by shoe otherwise
    batched = value_moments([(w, w.paytable(t)) for w, t in spec.pairs], values, second=True, cross=spec.team,
                            route=spec.route)
    # per wager: the edges and the expected squared results, each exactly (_PerRound), and the edges' floors in percent
    moments: list[tuple[_PerRound, _PerRound, int | None, np.ndarray]] = []
    totals = next((found.totals for found in batched if found is not None), np.zeros(0, dtype=np.int64))
    common, multiples = _round_multiples(size)
    kind = unseen_total                                    # each round over common: its numerator times multiples[n]
    for found in batched:
        if found is None:
            moments.append((_PerRound.none(), _PerRound.none(), None, np.zeros(0, dtype=np.int64)))
            continue
        assert found.second is not None
        s = found.scale
        edge = _exact_sum(found.first, -s, totals)
        moments.append((_PerRound(edge, kind, multiples, s * common),
                        _PerRound(_exact_sum(found.second, s * s, totals), kind, multiples, s * s * common),
                        found.ratio, _floor_percent(edge, s, totals)))
    if any(found is None for found in batched):
        rest = [j for j in range(len(spec.pairs)) if batched[j] is None]          # many shoes at once: the door's
        unseen_shoes = [Shoe(tuple(r), tuple(u), "unseen cards") for r, u in zip(ranks.tolist(), unseen.tolist())]
        priced = returns_many([(spec.pairs[j][0], spec.pairs[j][0].paytable(spec.pairs[j][1])) for j in rest],
                              unseen_shoes, square=True, warn=False)
        for j, pairs in zip(rest, priced):
            squares = [y for _, y in pairs if y is not None]
            edges = _PerRound.over(*_one_denominator((x.numerator, x.denominator) for x, _ in pairs))
            moments[j] = (edges, _PerRound.over(*_one_denominator((y.numerator, y.denominator) for y in squares)),
                          None, _floor_percent(edges.numerators, edges.scale, np.ones(n, dtype=np.int64)))
    counts = [np.clip(r * 52 // unseen_total, *TC_RANGE) for r in running]     # floors, as Python's //
    shoes = _Rounds.of(starts, n, np.minimum(PEN_BINS - 1, (size - unseen_total) * PEN_BINS // size))
    for j in range(len(spec.pairs)):
        net_scale = math.lcm(*(x.denominator for x in nets[j]))
        paid = [int(x * net_scale) for x in nets[j]] + [-net_scale]                         # a loss (-1) last
        outcome = np.where(settled[j] < 0, len(nets[j]), settled[j])
        _tally(tallies[j], *moments[j], outcome, paid, net_scale, counts[j], shoes)
        found = batched[j]
        if found is None:
            continue
        for other, sums in found.cross.items():
            partner = batched[other]
            assert partner is not None                  # a cross moment exists only between two wagers read so
            _tally_cross(tallies[j], other, sums.tolist(), found.scale * partner.scale, totals.tolist(),
                         multiples.values[kind].tolist(), common, counts[j].tolist(), counts[other].tolist())
    return tallies


def _one_denominator(fractions: Iterable[tuple[int, int]]) -> tuple[list[int], int]:
    """Fractions given as (numerator, denominator), as numerators over one common denominator, and it:
    integers that add without reducing at every step.

    >>> _one_denominator([(1, 6), (-3, 4), (5, 2)])
    ([2, -9, 30], 12)
    """
    pairs = list(fractions)
    common = math.lcm(*{d for _, d in pairs})
    return [n * (common // d) for n, d in pairs], common


_INT64_MAX = 2**63 - 1
#: The multiple of rounds all over one denominator (priced shoe by shoe).
_ONE = Multiples([1])


def _largest(x: np.ndarray) -> int:
    """The largest |item| of ``x`` (0 for none), a Python integer."""
    return max(-int(x.min(initial=0)), int(x.max(initial=0)))


def _exact_sum(x: np.ndarray, c: int, y: np.ndarray) -> np.ndarray:
    """``x + c · y`` item by item: in ``int64`` where |x| + |c| · |y| ≤ 2^63 − 1 for the largest of each, else
    in Python integers."""
    if x.dtype != object and y.dtype != object and _largest(x) + abs(c) * _largest(y) <= _INT64_MAX:
        return x + c * y  # type: ignore[no-any-return]
    return x.astype(object) + c * y.astype(object)  # type: ignore[no-any-return]


def _floor_percent(x: np.ndarray, c: int, y: np.ndarray) -> np.ndarray:
    """⌊100 · x / (c · y)⌋ item by item (c · y > 0), ``int64`` (an edge's floor in percent is small): in
    ``int64`` where 100 · |x| and c · |y| are at most 2^63 − 1 (NumPy's // floors, as Python's), else in
    Python integers."""
    if x.dtype != object and 100 * _largest(x) <= _INT64_MAX and c * _largest(y) <= _INT64_MAX:
        return (100 * x) // (c * y)  # type: ignore[no-any-return]
    return np.array(((100 * x.astype(object)) // (c * y.astype(object))).tolist(), dtype=np.int64)


@dataclass(frozen=True)
class _PerRound:
    """A number per round of a batch, exactly: round i's is ``numerators[i] · multiples[kind[i]] / scale``.

    The batch route gives each round's numerator over its own denominator, a wager's scale times the
    round's ordered 6-card sequences; ``multiples`` takes each (a ``kind`` of round: its unseen cards) to the
    run's common denominator (:func:`_round_multiples`). Sums by a key are
    :func:`~exactodds.engine.grouped.grouped_sums` (the edges' tally, :func:`~exactodds.engine.grouped.round_tally`):
    numerator times multiple, added per key, exactly (in C where the compiled core is in use)."""

    numerators: np.ndarray                      # int64 or Python integers
    kind: np.ndarray                            # int64, into multiples
    multiples: Multiples
    scale: int

    @classmethod
    def none(cls) -> _PerRound:
        """A place held for a wager priced shoe by shoe."""
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), _ONE, 1)

    @classmethod
    def over(cls, numerators: list[int], common: int) -> _PerRound:
        """Numerators over one ``common`` denominator (every round of one kind)."""
        return cls(np.array(numerators, dtype=object), np.zeros(len(numerators), dtype=np.int64), _ONE, common)

    def sums(self, keys: np.ndarray, n: int) -> np.ndarray:
        """Per key from 0 to ``n`` − 1, the sum of its rounds' numbers times ``scale`` (Python integers)."""
        return grouped_sums(self.numerators, self.kind, keys, n, self.multiples)


@dataclass(frozen=True)
class _Rounds:
    """What the rounds of a batch share across wagers: each one's shoe, its penetration bin, the rounds by
    their place in their shoe (1: the first)."""

    shoe: np.ndarray                            # per round, its shoe's place among the batch's shoes with rounds
    lengths: np.ndarray                         # rounds per shoe
    pen: np.ndarray
    place: np.ndarray                           # per round, its place in its shoe less 1 (the first: 0)
    places: np.ndarray                          # per place from 1, its rounds' count (every place to the most has some)

    @classmethod
    def of(cls, starts: np.ndarray, rounds: int, pen: np.ndarray) -> _Rounds:
        """From each shoe's first round (``starts``) and the number of rounds."""
        lengths = np.diff(np.r_[starts, rounds])
        shoe = np.repeat(np.arange(len(starts)), lengths)
        place = np.arange(rounds) - starts[shoe]
        return cls(shoe, lengths, pen, place, np.bincount(place))


def _tally_cross(tally: _Sums, other: int, sums: list[int], scale: int, totals: list[int], per_round: list[int],
                 common: int, tc: list[int], tc_other: list[int]) -> None:
    """Add Σ E[X · X_other] per pair of true counts (this wager's, the other's) to ``tally``'s cross table, over
    ``scale · common``: round i's is ``sums[i] / (scale · totals[i]) + 1``
    (:func:`~exactodds.analyses.pricing.return_numerators`), and ``totals[i] · per_round[i]`` is ``common``."""
    cells: dict[tuple[int, int, int], list[int]] = {}
    for x, t, k, a, b in zip(sums, totals, per_round, tc, tc_other):
        cell = cells.setdefault((other, a, b), [0, 0])
        cell[0] += 1
        cell[1] += (x + scale * t) * k
    tally.over[("cross", other)] = scale * common
    table = tally.tables["cross"]
    for key, (rounds, total) in cells.items():
        mine = table.setdefault(key, [0, 0])
        mine[0] += rounds
        mine[1] += total


def _tally(tally: _Sums, edge: _PerRound, square: _PerRound, ratio: int | None, percent: np.ndarray,
           outcome: np.ndarray, paid: list[int], net_scale: int, tc: np.ndarray, rounds: _Rounds) -> None:
    """Add a batch's rounds to ``tally``: the edges and the expected squared results (exactly, :class:`_PerRound`;
    ``ratio``: see :attr:`~exactodds.analyses.pricing.MomentArrays.ratio`), the edges' floors in percent, the nets
    as dealt (each round's ``outcome``, an index into ``paid``: its net times ``net_scale``), true counts, and the
    rounds' shoes.

    The sums run in integers, each kept over its denominator (:class:`_Sums`: a sum of Fractions reduces at every
    step): the edges' by :func:`~exactodds.engine.grouped.round_tally` (by count, penetration bin and place, per shoe
    and squared), the others by NumPy over the rounds.
    """
    if not len(tc):
        return
    scale, span = edge.scale, TC_RANGE[1] - TC_RANGE[0] + 1
    count = tc - TC_RANGE[0]                                         # 0 for the least true count
    ahead = np.asarray(edge.numerators > 0, dtype=bool)              # the rounds with a player advantage
    # the edges summed by count, place and penetration bin, per shoe (all, at or above each true count as a
    # threshold: squared) and over the rounds with an advantage, exactly (round_tally: in C where it can)
    by = round_tally(edge.numerators, edge.kind, edge.multiples, shoe=rounds.shoe, n_shoes=len(rounds.lengths),
                     count=count, n_counts=span, pen=rounds.pen, n_pens=PEN_BINS, place=rounds.place,
                     n_places=len(rounds.places), ahead=ahead)
    rounds_at = np.bincount(count, minlength=span)
    seen = np.flatnonzero(rounds_at)
    edge_at = np.array(by.by_count, dtype=object)
    # per true count: rounds, Σ edge, rounds with advantage, Σ net as dealt, Σ expected squared result
    ahead_at = np.bincount(count[ahead], minlength=span)
    # the nets as dealt: rounds per (count, outcome), times each outcome's net, in Python integers
    nets_by = np.bincount(count * len(paid) + outcome, minlength=span * len(paid)).reshape(span, len(paid))
    net_at = np.array([sum(k * p for k, p in zip(row, paid)) for row in nets_by.tolist()], dtype=object)
    if ratio is None:
        square_at = square.sums(2 * count + ahead, 2 * span)         # (count, with advantage or not)
        square_in, square_ahead = square_at[0::2] + square_at[1::2], square_at[1::2].sum()
    else:
        # round i's squared result is q_i / (s² T_i) and its edge e_i / (s T_i), with q_i = r (e_i + s T_i) + s² T_i
        # (second = r · first): over rounds G, Σ q_i k_i = r Σ e_i k_i + (r s L + s² L) · |G|, as T_i k_i = L
        per_round = ratio * scale + square.scale
        square_in = ratio * edge_at + per_round * rounds_at.astype(object)
        square_ahead = ratio * by.ahead_total + per_round * int(ahead.sum())
    tally.over.update(edge=scale, net=net_scale, square=square.scale)
    tables, scalars = tally.tables, tally.scalars
    columns = [list(map(int, a.tolist())) for a in (rounds_at, edge_at, ahead_at, net_at, square_in)]   # Python ints
    tables["by_tc"] = {c + TC_RANGE[0]: [column[c] for column in columns] for c in seen.tolist()}
    scalars["rounds"] = len(count)
    scalars["advantage_rounds"] = int(ahead.sum())
    scalars["sum_edge"] = by.total
    scalars["sum_advantage"] = by.ahead_total
    scalars["realized_advantage"] = sum(k * p for k, p in zip(np.bincount(outcome[ahead], minlength=len(paid)).tolist(),
                                                              paid))
    scalars["sum_square_advantage"] = int(square_ahead)
    scalars["sum_sq_shoe_advantage"] = by.ahead_squares
    # per penetration bin: rounds, Σ edge, rounds with advantage, least and largest edge
    pens = rounds.pen
    rounds_in = np.bincount(pens, minlength=PEN_BINS)
    ahead_in = np.bincount(pens[ahead], minlength=PEN_BINS)
    tables["by_penetration"] = {b: [int(rounds_in[b]), by.by_pen[b], int(ahead_in[b]), by.pen_least[b],
                                    by.pen_most[b]] for b in np.flatnonzero(rounds_in).tolist()}
    # (penetration bin, edge's floor in percent) -> rounds
    low_pct = int(percent.min())
    width = int(percent.max()) - low_pct + 1
    spot = pens * width + (percent - low_pct)
    if PEN_BINS * width <= 1 << 20:                                  # a count per spot, or the spots sorted
        found = np.bincount(spot, minlength=PEN_BINS * width)
        spots = np.flatnonzero(found)
        found = found[spots]
    else:
        spots, found = np.unique(spot, return_counts=True)
    tally.histogram = dict(zip(zip((spots // width).tolist(), (spots % width + low_pct).tolist()), found.tolist()))
    # per round of the shoe: rounds, Σ edge
    tables["by_round"] = {k: [n, e] for k, (n, e) in enumerate(zip(rounds.places.tolist(), by.by_place), start=1)}
    # per shoe: Σ y², Σ y · n, Σ n² (y: the shoe's Σ edge, n: its rounds); per threshold T, Σ over shoes of
    # (Σ edge of the shoe's rounds at or above T)²
    scalars["sum_sq_shoe_edge"] = by.threshold_squares[0]
    scalars["sum_shoe_edge_rounds"] = by.total_by_rounds
    scalars["sum_sq_shoe_rounds"] = int((rounds.lengths.astype(object) ** 2).sum())
    tables["sum_sq_threshold"] = {c + TC_RANGE[0]: [v] for c, v in enumerate(by.threshold_squares) if v}


@dataclass(frozen=True)
class WagerExposure:
    """What counting does to one wager over a run of shoes: exact sums, and the figures read from them."""

    wager: Wager
    paytable: Paytable
    decks: int
    cut: int
    seed: int
    count: Count
    tally: Tally
    #: A bet ramp by true count (``((tc, units), ...)``, :func:`exactodds.analyses.betting.parse_ramp`).
    ramp: tuple[tuple[int, int], ...] = ()
    #: The bankroll, in units, whose risk of ruin is shown.
    bankroll: int = BANKROLL
    #: The run's first shoe of the study (shoe i is shuffled from (seed, i)).
    first_shoe: int = 0

    @property
    def shoes(self) -> int:
        return self.tally.shoes

    @property
    def rounds(self) -> int:
        return self.tally.rounds

    @property
    def by_penetration(self) -> dict[int, list[Any]]:
        return self.tally.by_penetration

    @property
    def mean_player_expected_return(self) -> Fraction:
        """The player's exact expected return averaged over every round dealt (positive: the player wins)."""
        return self.tally.sum_edge / self.rounds

    @property
    def mean_edge(self) -> Fraction:
        """Deprecated: :attr:`mean_player_expected_return` (the old name said "edge" of the player's figure)."""
        warnings.warn("WagerExposure.mean_edge is deprecated: use mean_player_expected_return (the same value; "
                      "the old name goes in the next release)", DeprecationWarning, stacklevel=2)
        return self.mean_player_expected_return

    @property
    def advantage_share(self) -> Fraction:
        """The share of rounds in which the wager favours the player."""
        return Fraction(self.tally.advantage_rounds, self.rounds)

    @property
    def perfect_per_100(self) -> Fraction:
        """Expected win per 100 rounds dealt, betting one unit on exactly the rounds with an advantage."""
        return 100 * self.tally.sum_advantage / self.rounds

    @property
    def perfect_per_shoe(self) -> Fraction:
        return self.tally.sum_advantage / self.shoes

    @property
    def perfect_per_shoe_se(self) -> float:
        """Standard error of :attr:`perfect_per_shoe` over the shoes of the run (for printing)."""
        return _se(self.tally.sum_sq_shoe_advantage, self.tally.sum_advantage, self.shoes)

    @property
    def realized_per_shoe(self) -> Fraction:
        """What those bets actually won in the shoes dealt (a check on the exact expectation)."""
        return self.tally.realized_advantage / self.shoes

    def thresholds(self) -> list[dict[str, Any]]:
        """Betting one unit whenever the true count is at least T: one row per T."""
        rows = []
        bins = self.tally.by_tc
        for t in range(TC_RANGE[0], TC_RANGE[1] + 1):
            inside = [row for k, row in bins.items() if k >= t]
            bet = sum(r[0] for r in inside)
            if not bet:
                continue
            edge = sum((r[1] for r in inside), Fraction(0))
            rows.append({"threshold": t, "rounds_bet": bet, "share_bet": Fraction(bet, self.rounds),
                         "mean_player_expected_return": edge / bet,
                         "advantage_share": Fraction(sum(r[2] for r in inside), bet),
                         "win_per_100": 100 * edge / self.rounds, "win_per_shoe": edge / self.shoes,
                         "win_per_shoe_se": _se(self.tally.sum_sq_threshold.get(t, Fraction(0)), edge, self.shoes),
                         "realized_per_shoe": sum((r[3] for r in inside), Fraction(0)) / self.shoes})
        return rows

    def best_threshold(self) -> dict[str, Any] | None:
        """The threshold with the largest expected win (None if no threshold wins)."""
        rows = [r for r in self.thresholds() if r["win_per_100"] > 0]
        return max(rows, key=lambda r: (r["win_per_100"], r["threshold"])) if rows else None

    def by_count(self, name: str, units: Callable[[int], int]) -> Play:
        """Betting ``units(true count)`` units on each round (0: left out), as exact sums over the run."""
        rows = [(units(tc), row) for tc, row in self.tally.by_tc.items()]
        return Play(name, self.rounds, self.shoes, sum(row[0] for u, row in rows if u),
                    sum(u * row[0] for u, row in rows), sum((u * row[1] for u, row in rows), Fraction(0)),
                    sum((u * u * row[4] for u, row in rows), Fraction(0)))

    def plays(self) -> list[Play]:
        """Perfect information (1 unit on exactly the rounds with an advantage), the count at its best
        threshold (1 unit from there up), and the ramp if one is given."""
        t = self.tally
        out = [Play("perfect information", self.rounds, self.shoes, t.advantage_rounds, t.advantage_rounds,
                    t.sum_advantage, t.sum_square_advantage)]
        best = self.best_threshold()
        if best is not None:
            threshold = best["threshold"]
            out.append(self.by_count(f"1 unit at true count >= {threshold}", lambda tc: int(tc >= threshold)))
        if self.ramp:
            steps = ", ".join(f"{n} from {tc:+d}" for tc, n in self.ramp)
            out.append(self.by_count(f"ramp ({steps})", lambda tc: ramp_units(self.ramp, tc)))
        return out

    def verdict(self) -> str:
        """One line: is the wager countable with this count, clear of the run's noise?"""
        best = self.best_threshold()
        name = f"{self.wager.id}:{self.paytable.id}"
        if best is None:
            return (f"{name}: not countable — no true count gives the player an edge over these "
                    f"{self.shoes:,} shoes (perfect information: {decimal(self.perfect_per_shoe, 4)} units per shoe)")
        se = best["win_per_shoe_se"]
        play = self.by_count("", lambda tc: int(tc >= best["threshold"]))
        clear = not math.isnan(se) and best["win_per_shoe"] > 2 * se
        figures = (f"{decimal(best['win_per_shoe'], 4)} units per shoe at true count >= {best['threshold']} "
                   f"(standard error {_pm(se)}; N0 {_rounds(play.n0)})")
        return f"{name}: countable — {figures}" if clear else f"{name}: not countable — best {figures}, within the noise"

    def penetration(self) -> list[dict[str, Any]]:
        """Edge against penetration: per tenth of the shoe seen, rounds, mean, spread, advantage share."""
        out = []
        for k in sorted(self.tally.by_penetration):
            n, s, adv, lo, hi = self.tally.by_penetration[k]
            out.append({"seen_from": Fraction(k, PEN_BINS), "seen_to": Fraction(k + 1, PEN_BINS), "rounds": n,
                        "mean_player_expected_return": s / n, "advantage_share": Fraction(adv, n),
                        "min_player_expected_return": lo, "max_player_expected_return": hi,
                        "decile_1_player_expected_return": self._quantile(k, Fraction(1, 10)),
                        "decile_9_player_expected_return": self._quantile(k, Fraction(9, 10))})
        return out

    @functools.cached_property
    def off_the_top(self) -> Fraction:
        """The player's exact expected return off the top of a full shoe of the run's decks."""
        return Fraction(Door(Shoe.decks(self.decks), warn=False).expected_return(self.wager, self.paytable))

    @property
    def cut_card_effect(self) -> Fraction:
        """The player's expected return averaged over the rounds dealt with the cover card at ``cut``,
        less the figure off the top: what the cut card does to the hold (negative: the house holds more)."""
        return self.mean_player_expected_return - self.off_the_top

    @property
    def cut_card_effect_se(self) -> float:
        """Standard error of :attr:`cut_card_effect` over the shoes of the run (shoes independent; the
        ratio Σ edges / Σ rounds by the delta method), for printing."""
        t, shoes = self.tally, self.shoes
        if shoes < 2:
            return float("nan")
        r = self.mean_player_expected_return
        spread = (t.sum_sq_shoe_edge - 2 * r * t.sum_shoe_edge_rounds + r * r * t.sum_sq_shoe_rounds) / (shoes - 1)
        per_shoe = Fraction(self.rounds, shoes)
        return math.sqrt(max(float(spread), 0.0) / shoes) / float(per_shoe)

    def by_round_rows(self) -> list[dict[str, Any]]:
        """The player's expected return by round of the shoe (1: the first round after the burn)."""
        return [{"round": k, "rounds": n, "mean_player_expected_return": total / n}
                for k, (n, total) in sorted(self.tally.by_round.items())]

    def _quantile(self, pen_bin: int, q: Fraction) -> Fraction:
        """The edge below which a share ``q`` of the bin's rounds lie, to the 1% bin (its upper end)."""
        bins = sorted((e, n) for (p, e), n in self.tally.histogram.items() if p == pen_bin)
        total = sum(n for _, n in bins)
        seen = 0
        for e, n in bins:
            seen += n
            if seen >= q * total:
                return Fraction(e + 1, 100)
        return Fraction(bins[-1][0] + 1, 100)

    def summary(self) -> dict[str, Any]:
        best = self.best_threshold()
        return {"wager": self.wager.id, "paytable": self.paytable.id, "section": self.wager.section,
                "shoes": self.shoes, "rounds": self.rounds, "mean_player_expected_return": self.mean_player_expected_return,
                "advantage_share": self.advantage_share, "perfect_win_per_100": self.perfect_per_100,
                "perfect_win_per_shoe": self.perfect_per_shoe, "perfect_win_per_shoe_se": self.perfect_per_shoe_se,
                "realized_perfect_per_shoe": self.realized_per_shoe,
                "best_threshold": None if best is None else best["threshold"],
                "count_win_per_100": None if best is None else best["win_per_100"],
                "count_win_per_shoe": None if best is None else best["win_per_shoe"],
                "betting_correlation": self.count.betting_correlation,
                "off_the_top_player_expected_return": self.off_the_top, "cut_card_effect": self.cut_card_effect,
                "cut_card_effect_se": self.cut_card_effect_se}


def _se(sum_sq: Fraction, total: Fraction, shoes: int) -> float:
    if shoes < 2:
        return float("nan")
    mean = total / shoes
    var = (sum_sq - shoes * mean * mean) / (shoes - 1)
    return math.sqrt(max(float(var), 0.0) / shoes)


@dataclass(frozen=True)
class Exposure(Results[WagerExposure]):
    """An exposure run over several wagers; renders as text, JSON, CSV, Markdown or HTML."""

    results: tuple[WagerExposure, ...]
    #: Whether the run tallied what a team needs (every two wagers' expected product): see :meth:`team_play`.
    team: bool = False
    #: How fast the run went (None for a merge): not a figure of the result, so never in its rendering.
    throughput: Throughput | None = field(default=None, compare=False, repr=False)

    def team_play(self) -> Play | None:
        """A team at one table, each player counting his own wager and betting 1 unit on it from its best
        threshold: the team's win, and its variance with the covariance of bets on the same round
        (exact sums of E[X_a · X_b] by the two true counts). None unless the run was made with ``team``."""
        if not self.team or not self.results:
            return None
        best = [r.best_threshold() for r in self.results]
        limits = [None if b is None else int(b["threshold"]) for b in best]

        def bets(i: int, tc: int) -> bool:
            limit = limits[i]
            return limit is not None and tc >= limit

        win, square, placed = Fraction(0), Fraction(0), 0
        for i, r in enumerate(self.results):
            for tc, row in r.tally.by_tc.items():
                if bets(i, tc):
                    win += row[1]
                    square += row[4]
                    placed += row[0]
            for (j, a, b), (_rounds, product) in r.tally.cross.items():
                if bets(i, a) and bets(j, b):
                    square += 2 * product
        members = ", ".join(f"{r.wager.id} from {limit:+d}" if limit is not None else f"{r.wager.id} never"
                            for r, limit in zip(self.results, limits))
        first = self.results[0]
        return Play(f"team ({members})", first.rounds, first.shoes, placed, placed, win, square)

    def __repr__(self) -> str:
        first = self.results[0] if self.results else None
        run = f"{first.shoes:,} shoes of {first.decks} decks, seed {first.seed}" if first else "no run"
        return f"<Exposure of {counted(len(self.results), 'wager table')}: {run}>"

    def to_dataframe(self) -> Any:
        """One row per wager: float columns, with the exact values beside them (``*_exact``)."""
        rows = []
        for r in self.results:
            row: dict[str, Any] = {"decks": r.decks, "cut": r.cut, "seed": r.seed}
            for k, v in r.summary().items():
                row[k] = float(v) if isinstance(v, Fraction) else v
                if isinstance(v, Fraction):
                    row[k + "_exact"] = v
            rows.append(row)
        return dataframe(rows)

    def thresholds_dataframe(self) -> Any:
        return dataframe([{"wager": r.wager.id, "paytable": r.paytable.id,
                        **{k: float(v) if isinstance(v, Fraction) else v for k, v in row.items()}}
                       for r in self.results for row in r.thresholds()])

    def penetration_dataframe(self) -> Any:
        return dataframe([{"wager": r.wager.id, "paytable": r.paytable.id,
                        **{k: float(v) if isinstance(v, Fraction) else v for k, v in row.items()}}
                       for r in self.results for row in r.penetration()])

    def report(self) -> Report:
        """Per wager: the run's figures, betting by the count, the player's expected return against
        penetration; CSV one row per wager and true-count threshold."""
        def plain(v: Any) -> Any:
            return exact(v) if isinstance(v, Fraction) else v

        tidy = Table(_TIDY, tuple((r.wager.id, r.paytable.id, r.decks, r.cut, r.seed, r.shoes, r.rounds,
                                   row["threshold"], row["rounds_bet"], row["share_bet"],
                                   row["mean_player_expected_return"], row["win_per_100"], row["win_per_shoe"])
                                  for r in self.results for row in r.thresholds()))
        data: dict[str, Any] = {
            "player_expected_return": _MEANING,
            "wagers": [{**{k: plain(v) for k, v in r.summary().items()},
                        "decks": r.decks, "cut": r.cut, "seed": r.seed, "first_shoe": r.first_shoe,
                        "count": r.count.to_dict(),
                        "thresholds": [{k: plain(v) for k, v in row.items()} for row in r.thresholds()],
                        "plays": [_play_dict(p, r.bankroll) for p in r.plays()], "verdict": r.verdict(),
                        "by_round": [{k: plain(v) for k, v in row.items()} for row in r.by_round_rows()],
                        "penetration": [{k: plain(v) for k, v in row.items()} for row in r.penetration()]}
                       for r in self.results]}
        team = self.team_play()
        tables = tuple(t for r in self.results for t in _tables(r))
        if team is not None:
            bankroll = self.results[0].bankroll
            data["team"] = _play_dict(team, bankroll)
            tables += (Table(_plays_columns(bankroll), (_play_row(team, bankroll),),
                             title="The team: each player counts his own wager and bets 1 unit on it from its best "
                                   "threshold (rounds bet: bets placed; the variance counts bets on the same round "
                                   "together)"),)
        verdicts = tuple(f"Verdict: {r.verdict()}" for r in self.results)     # the answer, last
        return Report("exposure", tables=tables, tidy=tidy, data=data,
                      notes=(f"Sign convention: {SIGN_CONVENTION}.", *verdicts))


_MEANING = "the player's exact expected return per unit on the cards not yet seen, before each round"


def _play_dict(p: Play, bankroll: int) -> dict[str, Any]:
    """A play as JSON: exact sums and rates, floats where a square root or an exponential is taken."""
    return {"play": p.name, "rounds_bet": p.rounds_bet, "units": exact(Fraction(p.units)),
            "win_per_round": exact(p.per_round), "win_per_100": exact(p.per_100), "win_per_shoe": exact(p.per_shoe),
            "variance_per_round": exact(p.variance), "sd_per_round": p.sd_per_round, "sd_per_shoe": p.sd_per_shoe,
            "n0": None if p.n0 is None else exact(p.n0), "di": p.di, "bankroll": bankroll,
            "risk_of_ruin": p.risk_of_ruin(bankroll)}

_TIDY = (Column("wager"), Column("paytable"), Column("decks", kind="int"), Column("cut", kind="int"),
         Column("seed", kind="int"), Column("shoes", kind="int"), Column("rounds", kind="int"),
         Column("threshold", kind="int"), Column("rounds_bet", kind="int"),
         Column("share_bet", kind="decimal", places=6),
         Column("mean_player_expected_return", kind="decimal", places=6),
         Column("win_per_100", kind="decimal", places=6), Column("win_per_shoe", kind="decimal", places=6, twin=True))

_THRESHOLDS = (Column("threshold", "True count ≥"), Column("rounds_bet", "Rounds bet", "int"),
               Column("share_bet", "Share", "percent", 2),
               Column("mean_player_expected_return", "Player's expected return", "percent", 3),
               Column("advantage_share", "Advantage share", "percent", 2),
               Column("win_per_100", "Win /100 rounds", "decimal", 4), Column("win_per_shoe", "Win /shoe", "decimal", 4))

def _play_row(p: Play, bankroll: int) -> tuple[Any, ...]:
    return (p.name, p.rounds_bet, p.per_100, p.per_shoe, f"{p.sd_per_shoe:.3f}", _rounds(p.n0).removesuffix(" rounds"),
            "n/a" if math.isnan(p.di) else f"{p.di:.2f}", f"{p.risk_of_ruin(bankroll):.2%}")


def _plays_columns(bankroll: int) -> tuple[Column, ...]:
    return (Column("play", "Play"), Column("rounds_bet", "Rounds bet", "int"),
            Column("win_per_100", "Win /100 rounds", "decimal", 4), Column("win_per_shoe", "Win /shoe", "decimal", 4),
            Column("sd_per_shoe", "SD /shoe"), Column("n0", "N0 (rounds)"), Column("di", "DI"),
            Column("ror", f"Risk of ruin, {bankroll:,} units"))


_BY_ROUND = (Column("round", "Rounds of the shoe"), Column("rounds", "Rounds dealt", "int"),
             Column("mean_player_expected_return", "Player's expected return", "percent", 3))

_PENETRATION = (Column("seen", "Shoe seen"), Column("rounds", "Rounds", "int"),
                Column("mean_player_expected_return", "Player's expected return", "percent", 3),
                Column("advantage_share", "Advantage share", "percent", 2),
                Column("min_player_expected_return", "Lowest", "percent", 2),
                Column("max_player_expected_return", "Highest", "percent", 2))


def _tables(r: WagerExposure) -> tuple[Table, ...]:
    part = f" (shoes {r.first_shoe:,}–{r.first_shoe + r.shoes - 1:,} of the seed)" if r.first_shoe else ""
    title = (f"{r.wager.name} — {cited(r.wager.section)} — paytable {r.paytable.id}: {_n(r.shoes, 'shoe')}{part} of "
             f"{_n(r.decks, 'deck')}, "
             f"cover card {r.cut} from the end, seed {r.seed}; {r.rounds:,} rounds")
    best = r.best_threshold()
    lines = (
        f"Player's expected return, exact, averaged over the rounds dealt: {percent(r.mean_player_expected_return, 4)}",
        f"Rounds with a player advantage: {percent(r.advantage_share, 3)}",
        f"Perfect information (bet 1 unit on exactly those rounds): {decimal(r.perfect_per_100, 4)} units per "
        f"100 rounds, {decimal(r.perfect_per_shoe, 4)} per shoe expected (standard error {_pm(r.perfect_per_shoe_se)}); "
        f"won as dealt in these shoes: {decimal(r.realized_per_shoe, 4)} per shoe",
        f"{r.count}",
        ("Count: no threshold wins" if best is None else
         f"Count at its best threshold (true count >= {best['threshold']}): {decimal(best['win_per_100'], 4)} units "
         f"per 100 rounds, {decimal(best['win_per_shoe'], 4)} per shoe (standard error {_pm(best['win_per_shoe_se'])}), "
         f"betting {percent(best['share_bet'], 2)} of rounds"),
    )
    # the table printed stops where fewer than 0.5% of rounds are bet; JSON and CSV hold every threshold
    th_rows = tuple((f"{row['threshold']:+d}", row["rounds_bet"], row["share_bet"], row["mean_player_expected_return"],
                     row["advantage_share"], row["win_per_100"], row["win_per_shoe"]) for row in r.thresholds()
                    if row["threshold"] >= -2 and row["share_bet"] >= Fraction(1, 200))
    pen_rows = tuple((f"{percent(row['seen_from'], 0)}–{percent(row['seen_to'], 0)}", row["rounds"],
                      row["mean_player_expected_return"], row["advantage_share"], row["min_player_expected_return"],
                      row["max_player_expected_return"]) for row in r.penetration())
    plays = tuple(_play_row(p, r.bankroll) for p in r.plays())
    se = r.cut_card_effect_se
    cut_line = (f"Cut card: {percent(r.mean_player_expected_return, 4)} averaged over the rounds dealt against {percent(r.off_the_top, 4)} "
                f"off the top: {percent(r.cut_card_effect, 4)} (standard error "
                f"{'n/a with one shoe' if math.isnan(se) else f'{se:.4%}'}")
    cut_line += ")" if math.isnan(se) or se == 0 else f"; z = {float(r.cut_card_effect) / se:+.2f})"
    by_round = r.by_round_rows()
    round_rows = tuple((f"{by_round[i]['round']}–{by_round[min(i + 4, len(by_round) - 1)]['round']}",
                        sum(x["rounds"] for x in by_round[i:i + 5]),
                        sum((x["mean_player_expected_return"] * x["rounds"] for x in by_round[i:i + 5]), Fraction(0))
                        / sum(x["rounds"] for x in by_round[i:i + 5]))
                       for i in range(0, len(by_round), 5))
    return (Table((), (), title=title, notes=(*lines, cut_line, f"Verdict: {r.verdict()}")),
            Table(_plays_columns(r.bankroll), plays, title="What each play wins and risks (N0: rounds for the "
                  "win to reach one standard deviation; DI = 1000 × win / SD per round)"),
            Table(_THRESHOLDS, th_rows, title="Betting by the count"),
            Table(_PENETRATION, pen_rows, title="The player's expected return against penetration"),
            Table(_BY_ROUND, round_rows, title="The player's expected return by round of the shoe (JSON: every round)"))


def _rounds(n0: Fraction | None) -> str:
    return "n/a" if n0 is None else f"{float(n0):,.0f} rounds"


def _pm(se: float) -> str:
    return "n/a with one shoe" if math.isnan(se) else f"{se:.4f}"


def _n(k: int, word: str) -> str:
    return f"{k:,} {word}" + ("" if k == 1 else "s")


def _batches(shoes: int, batch: int) -> list[tuple[int, int]]:
    return [(a, min(a + batch, shoes)) for a in range(0, shoes, batch)]


def exposure(
    pairs: Iterable[tuple[Wager | str, Paytable | str]],
    *,
    shoes: int,
    seed: int,
    decks: int = 8,
    cut: int = 14,
    tags: dict[str, int] | None = None,
    catalogue: Catalogue | None = None,
    batch: int = 100,
    workers: int = 1,
    scheduler: Any = None,
    progress: Callable[[int], None] | None = None,
    ramp: tuple[tuple[int, int], ...] = (),
    bankroll: int = BANKROLL,
    team: bool = False,
    first_shoe: int = 0,
    checkpoint: str | os.PathLike[str] | None = None,
    checkpoint_every: float = CHECKPOINT_EVERY,
    route: str | None = None,
) -> Exposure:
    """Deal ``shoes`` shoes and tally the exact edge and the count of each wager before every round.

    ``workers`` > 1 runs the batches on that many local processes; ``scheduler``
    (a Dask scheduler address, or a ``dask.distributed.Client``) runs them on a
    Dask cluster. ``progress`` is called with the number of shoes done. ``ramp`` (``((true count,
    units), ...)``) and ``bankroll`` (units) add a play by the count's ramp and its risk of ruin; ``team``
    adds the play of a team whose players each count and bet one of the wagers (:meth:`Exposure.team_play`).

    ``first_shoe`` makes the run a part of a larger study: shoes ``first_shoe`` to ``first_shoe + shoes - 1``
    of it (parts merge with :func:`merge_exposure`). ``checkpoint`` names a file that keeps the finished
    shoes' exact totals, written atomically every ``checkpoint_every`` seconds and at the end: the same
    call with the same file resumes where a killed run stopped, with the same result. ``route`` (auto, vector,
    walk; None: the route in force, :func:`exactodds.analyses.door.routed`) is every batch's exact route: the
    same numbers, so not a part of the study a checkpoint names.
    """

    run = _prepare(pairs, shoes=shoes, seed=seed, decks=decks, cut=cut, tags=tags, catalogue=catalogue, batch=batch,
                   workers=workers, ramp=ramp, bankroll=bankroll, team=team, first_shoe=first_shoe, route=route)
    state = State(run.study, first_shoe, first_shoe + shoes, [], [Tally().to_json() for _ in run.resolved])
    if checkpoint is not None and os.path.exists(checkpoint):
        state = _resumed(checkpoint, state)
    totals = _totals(state.totals, where=f"--checkpoint {checkpoint}", wagers=len(run.resolved))
    done = state.shoes_done
    last_save = time.monotonic()
    throughput = Throughput(0, 0.0, 0.0)

    adding = False          # while a batch is added, the totals and the shoes done disagree: nothing is saved
    new: list[_Sums] | None = None           # the batches done in this run, in integers (_Sums), one per wager

    def added() -> list[Tally]:
        nonlocal new
        if new is not None:
            totals[:] = [sums.tally() if t == Tally() else Tally.summed([t, sums.tally()]) for t, sums in zip(totals, new)]
            new = None
        return totals

    def save() -> None:
        assert checkpoint is not None
        state.totals = [t.to_json() for t in added()]
        save_state(checkpoint, state, option="--checkpoint")

    def collect(part: list[_Sums], span: tuple[int, int], cpu: float) -> None:
        nonlocal done, last_save, adding, new
        adding = True
        new = part if new is None else [total.add(p) for total, p in zip(new, part)]
        state.done = covered([*state.done, span])
        adding = False
        done += span[1] - span[0]
        throughput.shoes += span[1] - span[0]
        throughput.cpu_seconds += cpu
        if checkpoint is not None and time.monotonic() - last_save >= checkpoint_every:
            save()
            last_save = time.monotonic()
        if progress is not None:
            progress(done)

    if progress is not None and done:
        progress(done)
    work = state.remaining(batch=batch)
    started = time.perf_counter()
    fit = "fewer --shoes" + (", more --workers or a --scheduler" if scheduler is None else "")
    if checkpoint is not None:
        fit += " (the shoes done are kept in the checkpoint: the same command resumes them)"
    try:
        with budget.units(f"the study of {counted(len(run.resolved), 'wager table')}",
                          sum(b - a for a, b in work), unit="shoe", instead=fit, fits=True,
                          after=2 if scheduler is not None else max(workers, 1)) as timed:
            def timed_collect(part: list[_Sums], span: tuple[int, int], cpu: float) -> None:
                collect(part, span, cpu)
                timed.done(span[1] - span[0])

            _run_batches(run.spec, work, workers=workers, scheduler=scheduler, collect=timed_collect)
    finally:
        throughput.wall_seconds = time.perf_counter() - started
        if checkpoint is not None and work and not adding:
            save()                            # what is done, whether the run ended or was stopped; stopped
                                              # half-way through adding a batch, the file keeps the last write
    return _result(run, added(), throughput)


@dataclass
class Throughput:
    """How fast a run went: the shoes it dealt (not those resumed from a checkpoint), its wall time, and the
    CPU time of its batches summed over the processes that ran them."""

    shoes: int
    wall_seconds: float
    cpu_seconds: float

    def __str__(self) -> str:
        if not self.shoes:
            return "rate: no shoe left to deal (every one was done in the checkpoint)"
        per_wall = self.shoes / self.wall_seconds if self.wall_seconds > 0 else float("nan")
        per_cpu = self.shoes / self.cpu_seconds if self.cpu_seconds > 0 else float("nan")
        return (f"rate: {_n(self.shoes, 'shoe')} in {self.wall_seconds:,.2f} s: {per_wall:,.1f} shoes per second, "
                f"{per_cpu:,.1f} per CPU-second ({self.cpu_seconds:,.2f} CPU-s in the batches)")


@dataclass(frozen=True)
class _Run:
    """A run made ready: its wagers, their counts, the spec its batches take, and the study it is part of."""

    resolved: tuple[tuple[Wager, Paytable], ...]
    counts: tuple[Count | None, ...]
    spec: ExposureSpec
    study: dict[str, Any]
    ramp: tuple[tuple[int, int], ...]
    bankroll: int
    first_shoe: int


def _prepare(pairs: Iterable[tuple[Wager | str, Paytable | str]], *, shoes: int, seed: int, decks: int, cut: int,
             tags: dict[str, int] | None, catalogue: Catalogue | None, batch: int, workers: int,
             ramp: tuple[tuple[int, int], ...], bankroll: int, team: bool, first_shoe: int,
             route: str | None = None) -> _Run:
    route = route_in_force(route)
    cat = catalogue if catalogue is not None else load_catalogue()
    resolved = tuple(resolve_pairs(pairs, cat))
    for w, t in resolved:
        if any(t.pays[o.id].symbolic for o in w.outcomes if t.pays[o.id].offered):
            raise ExactOddsError(f"wager {w.id!r} ({t.id}) pays a progressive meter; exposure needs fixed pays "
                                 "(see 'exactodds progressive' for the return at a meter)")
    _check_run(shoes=shoes, seed=seed, decks=decks, cut=cut, batch=batch, workers=workers)
    if not (type(first_shoe) is int and 0 <= first_shoe <= MAX_FIRST_SHOE):
        raise ExactOddsError(f"--first-shoe must be a whole number from 0 to 10^12, got {first_shoe!r}")
    check_bankroll(bankroll)
    ramp = checked_ramp(ramp)
    if team:
        _check_team(resolved, decks)
    with routed(route):
        counts = _counts(resolved, decks, tags, cat, route)
    spec = ExposureSpec(tuple((w, t.id) for w, t in resolved), decks, cut, seed,
                        tuple(tuple(c.card_tags()) if c else (0,) * 52 for c in counts), team, route)
    study = {"wagers": [f"{w.id}:{t.id}" for w, t in resolved],
             "definitions": [definition(w, t) for w, t in resolved],
             "decks": decks, "cut": cut, "seed": seed, "tags": None if tags is None else dict(sorted(tags.items())),
             "card_tags": [list(t) for t in spec.tags], "team": team, "ramp": [list(step) for step in ramp],
             "bankroll": bankroll}
    return _Run(resolved, counts, spec, study, tuple(ramp), bankroll, first_shoe)


#: The counts of the last few studies made in this process, with the pairs they were made for (held, so that
#: their ids are not reused): the next study of the same wagers off the same shoe (a notebook's next run) does
#: not price their effects of removal again.
_COUNTS: dict[tuple[Any, ...], tuple[tuple[tuple[Wager, Paytable], ...], tuple[Count | None, ...]]] = {}


def _counts(resolved: tuple[tuple[Wager, Paytable], ...], decks: int, tags: dict[str, int] | None,
            cat: Catalogue, route: str) -> tuple[Count | None, ...]:
    """Each pair's count off ``decks`` full decks (its effects of removal; ``tags`` replaces the suggested)."""
    key = (decks, route, tuple((id(w), id(t)) for w, t in resolved), None if tags is None else tuple(sorted(tags.items())))
    kept = _COUNTS.get(key)
    if kept is not None and all(a is b for pair, other in zip(kept[0], resolved) for a, b in zip(pair, other)):
        return kept[1]
    with budget.part_of("the study's counts"):              # made before its shoes: a part of the study
        counts = tuple(r.count for r in effects_of_removal(Shoe.decks(decks), resolved, catalogue=cat, tags=tags))
    _COUNTS[key] = (resolved, counts)
    while len(_COUNTS) > 4:
        _COUNTS.pop(next(iter(_COUNTS)))
    return counts


def _resumed(path: str | os.PathLike[str], fresh: State) -> State:
    """The state in ``path`` if it is of this very run (one line naming the first difference otherwise)."""
    stored = load_state(path, option="--checkpoint")
    differs = first_difference(stored.study, fresh.study)
    if differs is None and (stored.first, stored.stop) != (fresh.first, fresh.stop):
        differs = (f"shoes: {stored.first}–{stored.stop - 1} there, {fresh.first}–{fresh.stop - 1} here "
                   "(--first-shoe, --shoes)")
    if differs is not None:
        raise ExactOddsError(f"--checkpoint {path}: made by another run ({differs}); name another file, or run "
                             "the command that made it")
    return stored


def _run_batches(spec: ExposureSpec, work: list[tuple[int, int]], *, workers: int, scheduler: Any,
                 collect: Callable[[list[_Sums], tuple[int, int], float], None]) -> None:
    """Run the batches ``work`` here, on local processes or on Dask, and hand each one's totals to ``collect``."""
    if not work:
        return
    if scheduler is not None:
        _on_dask(spec, work, scheduler, collect)
    elif workers > 1:
        pool = ProcessPoolExecutor(max_workers=min(workers, len(work)), initializer=_worker_signals)
        tasks = _Tasks(work, LOCAL_TASK_SECONDS)
        try:
            pending = {pool.submit(_timed_spans, spec, tasks.next(workers)) for _ in range(2 * workers) if tasks.queued}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    part, span, cpu = f.result()
                    tasks.done(span, cpu)
                    collect(part, span, cpu)
                    if tasks.queued:
                        pending.add(pool.submit(_timed_spans, spec, tasks.next(workers)))
        except BaseException:             # Ctrl-C, SIGTERM, an error: the workers stop now, mid-batch
            running = list((getattr(pool, "_processes", None) or {}).values())      # no public way to stop them
            pool.shutdown(wait=False, cancel_futures=True)
            for worker in running:
                worker.terminate()
            raise
        pool.shutdown(wait=True)
    else:
        for a, b in work:
            part, cpu = _timed_batch(spec, a, b)
            collect(part, (a, b), cpu)


def _worker_signals() -> None:
    """A local worker leaves Ctrl-C and SIGTERM to the run that started it, which stops it (it would otherwise
    inherit the command's handlers and print a traceback of its own)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _timed_batch(spec: ExposureSpec, first: int, stop: int) -> tuple[list[_Sums], float]:
    """:func:`_batch_sums` and the CPU seconds it took in the process that ran it."""
    started = time.process_time()
    part = _batch_sums(spec, first, stop)
    return part, time.process_time() - started


def _result(run: _Run, totals: list[Tally], throughput: Throughput | None) -> Exposure:
    decks, cut, seed = run.spec.decks, run.spec.cut, run.spec.seed
    return Exposure(tuple(WagerExposure(w, t, decks, cut, seed, c, tally, run.ramp,  # type: ignore[arg-type]
                                        run.bankroll, run.first_shoe)
                          for (w, t), c, tally in zip(run.resolved, run.counts, totals)), run.spec.team, throughput)


@dataclass(frozen=True)
class Estimate:
    """What a study of ``shoes`` shoes will cost, from a short run measured on this machine."""

    shoes: int
    sample: int                 # shoes measured
    sample_cpu: float           # their CPU seconds
    setup_cpu: float            # CPU seconds of the first shoe, which builds the tables
    peak_bytes: int             # this process's peak resident memory
    state_bytes: int            # the size of a checkpoint
    workers: int

    @property
    def per_cpu_second(self) -> float:
        return self.sample / self.sample_cpu if self.sample_cpu > 0 else float("inf")

    @property
    def cpu_seconds(self) -> float:
        """The study's CPU time: the tables once per process, and every shoe at the measured rate."""
        return self.workers * self.setup_cpu + self.shoes / self.per_cpu_second

    def __str__(self) -> str:
        wall = self.setup_cpu + self.shoes / self.per_cpu_second / self.workers
        return "\n".join((
            f"Study plan for {_n(self.shoes, 'shoe')} (measured here: {_n(self.sample, 'shoe')} in "
            f"{self.sample_cpu:.2f} CPU-s after a first shoe of {self.setup_cpu:.2f} CPU-s, which builds the tables "
            "or reads them from the cache; nothing else run)",
            f"  CPU time: {_duration(self.cpu_seconds)} ({self.per_cpu_second:,.1f} shoes per CPU-second)",
            f"  Wall time on {_processes(self.workers)}: at least {_duration(wall)} (the CPU time shared "
            "perfectly; measure the efficiency on your machines with a short run)",
            f"  Memory: about {self.peak_bytes / 2**20:,.0f} MB per process (peak measured here), "
            f"{self.workers * self.peak_bytes / 2**20:,.0f} MB on {_processes(self.workers)}; the totals do not "
            "grow with the shoes",
            f"  Checkpoint: about {self.state_bytes / 1024:,.0f} kB, rewritten every {CHECKPOINT_EVERY:g} s",
        )) + "\n"


def _processes(k: int) -> str:
    return "1 process" if k == 1 else f"{k:,} processes"


def _duration(seconds: float) -> str:
    """A duration in the unit that reads best: ``42.0 s``, ``3.5 min``, ``7.2 hours``, ``3.1 days``."""
    for unit, size in (("days", 86400), ("hours", 3600), ("min", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.1f} {unit}"
    return f"{seconds:,.1f} s"


def estimate(pairs: Iterable[tuple[Wager | str, Paytable | str]], *, shoes: int, seed: int, decks: int = 8,
             cut: int = 14, tags: dict[str, int] | None = None, catalogue: Catalogue | None = None, batch: int = 100,
             workers: int = 1, team: bool = False, first_shoe: int = 0, sample_seconds: float = 2.0,
             route: str | None = None) -> Estimate:
    """Measure the study's first shoes here (for about ``sample_seconds`` of CPU, at most ``shoes``) and
    say what all ``shoes`` will cost on ``workers`` processes. The study itself is not run."""
    run = _prepare(pairs, shoes=shoes, seed=seed, decks=decks, cut=cut, tags=tags, catalogue=catalogue, batch=batch,
                   workers=workers, ramp=(), bankroll=BANKROLL, team=team, first_shoe=first_shoe, route=route)
    stop = first_shoe + shoes
    totals, setup = _timed_batch(run.spec, first_shoe, first_shoe + 1)       # builds the tables
    at, sample, cpu = first_shoe + 1, 0, 0.0
    while at < stop and cpu < sample_seconds:
        part, used = _timed_batch(run.spec, at, min(at + batch, stop))
        for total, p in zip(totals, part):
            total.add(p)
        sample += min(at + batch, stop) - at
        cpu += used
        at += batch
    if not sample:                              # one shoe in all: the first is the only measure
        sample, cpu = 1, setup
    state = State(run.study, first_shoe, stop, [(first_shoe, at)], [t.tally().to_json() for t in totals])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024                 # Linux: kB
    return Estimate(shoes, sample, cpu, setup, peak, len(state.to_text()), workers)


def merge_exposure(paths: Sequence[str | os.PathLike[str]], *, catalogue: Catalogue | None = None) -> Exposure:
    """The run that the finished parts in state files ``paths`` make together: the same figures as one run over
    all their shoes. Parts of another study, parts not finished, parts that overlap or leave a gap are refused."""
    if len(paths) < 1:
        raise ExactOddsError("merge: name the state files of the parts (exposure --checkpoint FILE)")
    states = [(str(p), load_state(p, option="")) for p in paths]
    (first_path, base), *others = states
    for path, s in states:
        if not s.finished:
            raise ExactOddsError(f"{path}: unfinished (shoes {s.first}–{s.stop - 1}, {s.shoes_done:,} done); "
                                 "resume it with the command that made it first")
    for path, s in others:
        differs = first_difference(base.study, s.study)
        if differs is not None:
            raise ExactOddsError(f"{path}: a part of another study than {first_path} ({differs})")
    ordered = sorted(states, key=lambda ps: ps[1].first)
    for (p1, s1), (p2, s2) in zip(ordered, ordered[1:]):
        if s2.first < s1.stop:
            raise ExactOddsError(f"{p1} and {p2} both hold shoes {s2.first}–{min(s1.stop, s2.stop) - 1}: "
                                 "a shoe would count twice")
        if s2.first > s1.stop:
            raise ExactOddsError(f"no part holds shoes {s1.stop}–{s2.first - 1} (between {p1} and {p2})")
    study = base.study
    try:
        run = _prepare([tuple(name.split(":", 1)) for name in study["wagers"]], shoes=1, seed=study["seed"],
                       decks=study["decks"], cut=study["cut"], tags=study["tags"], catalogue=catalogue, batch=1,
                       workers=1, ramp=tuple((int(a), int(b)) for a, b in study["ramp"]),
                       bankroll=study["bankroll"], team=study["team"], first_shoe=ordered[0][1].first)
    except (KeyError, TypeError, AttributeError) as exc:        # a digest made anew over a forged study
        raise ExactOddsError(f"{first_path}: its study is malformed ({exc!r})") from None
    differs = first_difference(study, run.study)
    if differs is not None:
        raise ExactOddsError(f"{first_path}: its wagers are not defined here as they were when it was made "
                             f"({differs}); give the same --paytables files")
    totals = _totals(ordered[0][1].totals, where=ordered[0][0], wagers=len(run.resolved))
    for path, s in ordered[1:]:
        for total, part in zip(totals, _totals(s.totals, where=path, wagers=len(run.resolved))):
            total.add(part)
    return _result(run, totals, None)


def _totals(data: list[Any], *, where: str, wagers: int) -> list[Tally]:
    """The tallies of a state file's totals, one per wager, or one line naming the file (a digest recomputed
    over a forged total)."""
    if len(data) != wagers:
        raise ExactOddsError(f"{where}: holds the totals of {len(data)} wagers, not {wagers}")
    try:
        return [Tally.from_json(t) for t in data]
    except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as exc:
        raise ExactOddsError(f"{where}: its totals are malformed ({exc!r})") from None


def _check_team(pairs: Sequence[tuple[Wager, Paytable]], decks: int) -> None:
    """A team needs two wagers or more, every two read from one table of point values (their product)."""
    if len(pairs) < 2:
        raise ExactOddsError("--team: name two wagers or more (each player of the team bets one)")
    shoe = Shoe.decks(decks)
    if 2 * shoe.sequences > 2**63 - 1:                # past the bound of the batch route that counts the products
        raise ExactOddsError(f"--team: a shoe of {decks} decks ({shoe.size:,} cards) is past the 64-bit bound the "
                             "covariance of a team's bets is counted under (2 x its sequences < 2^63: at most 1,292 "
                             "cards, 24 decks); use fewer decks or leave --team out")
    found = value_moments(list(pairs), np.array([shoe.value_counts]), cross=True)
    for (w, _t), m in zip(pairs, found):
        if m is None:
            raise ExactOddsError(f"--team: wager {w.id!r} reads more than point values, so the covariance of the "
                                 "team's bets is not counted; leave it out")
    for k, (w, _t) in enumerate(pairs):
        m = found[k]
        assert m is not None
        for j in sorted(set(range(k + 1, len(pairs))) - set(m.cross)):
            raise ExactOddsError(f"--team: wagers {w.id!r} and {pairs[j][0].id!r} read different tables, so the "
                                 "covariance of their bets is not counted; leave one out")


def _on_dask(spec: ExposureSpec, work: list[tuple[int, int]], scheduler: Any,
             collect: Callable[[list[_Sums], tuple[int, int], float], None]) -> None:
    """Run the batches on a Dask cluster and reduce them here as they finish.

    The spec goes to every worker once (unpickled once per process: its tables built once there). A task runs
    several batches of consecutive shoes and adds their totals up on the worker, so that what comes back,
    and what the scheduler and this process do per task, is small beside the work: about :data:`TASK_SECONDS`
    of CPU a task, from the rate measured so far, smaller at the end so the workers finish together. Tasks
    are submitted as others finish, :data:`DASK_WINDOW` or two per worker thread waiting (the cluster's
    workers counted anew each time: an adaptive cluster sees the work and grows), so a study of 10^8 shoes is
    not 10^6 futures at once.
    """

    with dask_client(scheduler) as (client, as_completed):
        shipped = client.scatter(Shipped.of(spec), broadcast=True)
        tasks = _Tasks(work, TASK_SECONDS)
        waiting = 0

        def refill() -> list[Any]:
            nonlocal waiting
            slots = _threads(client)
            submitted = [client.submit(_dask_batches, shipped, tasks.next(slots), pure=False)
                         for _ in range(max(DASK_WINDOW, 2 * slots) - waiting) if tasks.queued]
            waiting += len(submitted)
            return submitted

        pending = as_completed(refill())
        for f in pending:
            part, span, cpu = f.result()
            waiting -= 1
            tasks.done(span, cpu)
            collect(part, span, cpu)
            for g in refill():
                pending.add(g)


class _Tasks:
    """The batches of a run handed out as tasks of several batches of consecutive shoes, each about ``seconds``
    of CPU at the rate measured so far (the first ones a batch each, while the workers build their tables),
    and smaller at the end, so that the workers finish together."""

    def __init__(self, work: list[tuple[int, int]], seconds: float) -> None:
        self.runs = _contiguous(work)
        self.queued = sum(len(r) for r in self.runs)
        self.batch = max(b - a for a, b in work)          # the run's --batch (a resumed run's first may be less)
        self.seconds = seconds
        self.shoes, self.cpu = 0, 0.0

    def next(self, slots: int) -> list[tuple[int, int]]:
        """The next task's batches, for ``slots`` workers (the queue must not be empty)."""
        if self.shoes and self.cpu > 0:                   # as many batches as take the seconds at the rate so far
            size = max(1, int(self.seconds / (self.cpu / self.shoes * self.batch)))
        else:
            size = 1
        size = min(size, max(1, self.queued // (2 * slots)))    # the end of the run shared among the workers
        spans, self.runs[0] = self.runs[0][:size], self.runs[0][size:]
        if not self.runs[0]:
            self.runs.pop(0)
        self.queued -= len(spans)
        return spans

    def done(self, span: tuple[int, int], cpu: float) -> None:
        """A task over shoes ``span`` took ``cpu`` seconds."""
        self.shoes += span[1] - span[0]
        self.cpu += cpu


def _threads(client: Any) -> int:
    """The worker threads of the cluster now (one call to its scheduler: a millisecond a task of seconds)."""
    workers = client.scheduler_info().get("workers", {})
    return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))


def _contiguous(work: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The batches in runs of consecutive shoes (a resumed run's may have gaps): a task takes from one run.

    >>> _contiguous([(0, 5), (5, 10), (20, 25), (25, 27)])
    [[(0, 5), (5, 10)], [(20, 25), (25, 27)]]
    """
    runs: list[list[tuple[int, int]]] = []
    for a, b in sorted(work):
        if runs and runs[-1][-1][1] == a:
            runs[-1].append((a, b))
        else:
            runs.append([(a, b)])
    return runs


def _dask_batches(shipped: Shipped, spans: list[tuple[int, int]]) -> tuple[list[_Sums], tuple[int, int], float]:
    """A Dask task: the batches ``spans`` (consecutive shoes), their totals added up here, the shoes they cover
    and the CPU seconds they took in this worker's process."""
    spec = shipped.value()
    numpy_heap()
    return _timed_spans(spec, spans)


def _timed_spans(spec: ExposureSpec, spans: list[tuple[int, int]]) -> tuple[list[_Sums], tuple[int, int], float]:
    """A task: the batches ``spans`` (consecutive shoes), their totals added up here, the shoes they cover and the
    CPU seconds they took in this process."""
    started = time.process_time()
    totals = _batch_sums(spec, *spans[0])
    for a, b in spans[1:]:
        for total, part in zip(totals, _batch_sums(spec, a, b)):
            total.add(part)
    return totals, (spans[0][0], spans[-1][1]), time.process_time() - started


def check_bankroll(bankroll: int) -> None:
    """Refuse, in one line, a bankroll that is no whole number of units from 1 to :data:`MAX_BANKROLL`."""
    if not (type(bankroll) is int and 1 <= bankroll <= MAX_BANKROLL):
        raise ExactOddsError(f"--bankroll: a whole number of units from 1 to 10^15, got {bankroll!r}")


def _check_run(*, shoes: int, seed: int, decks: int, cut: int, batch: int, workers: int) -> None:
    checks = [
        (type(shoes) is int and 1 <= shoes <= 10**8, f"--shoes must be a whole number from 1 to 10^8, got {shoes!r}"),
        (type(seed) is int and 0 <= seed < 2**63, f"--seed must be a whole number from 0 to 2^63 - 1, got {seed!r}"),
        (type(decks) is int and 1 <= decks <= 100, f"--decks must be a whole number from 1 to 100, got {decks!r}"),
        (type(batch) is int and batch >= 1, f"--batch must be a whole number, at least 1, got {batch!r}"),
        (type(workers) is int and 1 <= workers <= MAX_WORKERS,
         f"--workers must be from 1 to {MAX_WORKERS} local processes (use --scheduler for more), got {workers!r}"),
        (type(cut) is int, f"--cut must be a whole number of cards, got {cut!r}"),
    ]
    for ok, message in checks:                   # type(x) is int: True is an int to Python, never a count
        if not ok:
            raise ExactOddsError(message)
    if not 14 <= cut <= 52 * decks - 20:
        raise ExactOddsError(f"--cut: the cover card goes at least 14 cards from the end (§627a.5(d)) and "
                             f"leaves 20 to deal, got {cut}")
