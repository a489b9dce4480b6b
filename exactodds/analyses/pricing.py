"""Pricing: a wager's paytable against the exact distribution of rounds.

Every figure is exact: combination counts are integers in the 6-card
convention, probabilities and returns are :class:`fractions.Fraction`.

>>> from exactodds.engine import deal
>>> from exactodds.game.shoe import Shoe
>>> from exactodds.wagers import load_catalogue
>>> banker = load_catalogue()["banker"]
>>> r = price(banker, banker.paytable("standard"), deal(Shoe.decks(8)))
>>> f"{float(r.house_edge):.4%}"              # the published Banker edge, 8 decks
'1.0579%'
>>> r.expected_return
Fraction(-114753351728, 10847218479825)
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol, TypeGuard

import numpy as np

from exactodds import cache, engine
from exactodds.engine import bounds, tens
from exactodds.engine.budget import OverBudget
from exactodds.engine.distribution import RoundDistribution
from exactodds.engine.identity import ALL_CARD_CATEGORIES, _labels
from exactodds.engine.multiset import (
    BY_COLOUR,
    EVERY_SUIT,
    Varies,
    compile_table,
    estimate,
    point_names,
    resolution_of,
    told_apart,
)
from exactodds.errors import ExactOddsError, InconsistentCounts, TooLarge
from exactodds.game.shoe import CARDS_PER_ROUND, Shoe
from exactodds.render.report import result_dataframe, result_report, result_text
from exactodds.render.tables import Report, cited, house_edge_words, render_report
from exactodds.wagers.catalogue import Paytable, Wager
from exactodds.wagers.outcomes import DERIVED, POINT_FEATURES, VALUE_LEVEL, feature_kind, initial_needs, initial_row
from exactodds.wagers.pays import Pay

__all__ = ["OutcomeLine", "WagerResult", "PointDistribution", "price", "expected_return", "classify",
           "check_wagers", "LOSE"]

#: The line every round that meets no outcome falls into.
LOSE = "lose"

_POINT_NAMES = tuple(sorted(POINT_FEATURES))


class PointDistribution(Protocol):
    """What pricing reads from a route: the shoe, its total, counts per point-level round."""

    @property
    def shoe(self) -> Shoe: ...

    @property
    def total(self) -> int: ...

    def point_counts(self) -> Mapping[Any, int]: ...


class SettlesRounds(PointDistribution, Protocol):
    """A route that settles each round itself and counts the outcomes of a wager (the second route,
    :class:`exactodds.engine.WalkDistribution`), where the first gives counts per round to settle here."""

    def outcome_counts(self, wager: Wager, paytable: Paytable) -> Mapping[int, int]: ...


def settles_rounds(dist: PointDistribution) -> TypeGuard[SettlesRounds]:
    """Whether ``dist`` settles rounds itself (a plain attribute test: an ``isinstance`` against a
    runtime protocol would cost more than pricing the main game)."""
    return hasattr(dist, "outcome_counts")


@dataclass(frozen=True)
class OutcomeLine:
    """One line of a per-outcome table."""

    id: str
    name: str
    pay: Pay
    combinations: int
    total: int                  #: the shoe's ordered 6-card sequences

    @classmethod
    def made(cls, id: str, name: str, pay: Pay, combinations: int, total: int) -> OutcomeLine:
        """The same as ``OutcomeLine(...)``, made faster (a frozen dataclass sets its fields one by one; a
        catalogue makes 450 lines a shoe)."""
        line = object.__new__(cls)
        fields = line.__dict__
        fields["id"], fields["name"], fields["pay"], fields["combinations"], fields["total"] = \
            id, name, pay, combinations, total
        return line

    @functools.cached_property
    def probability(self) -> Fraction:
        """``combinations / total``, built when first read (a catalogue prices 450 lines a shoe)."""
        return Fraction(self.combinations, self.total)

    @property
    def net(self) -> Any:
        return self.pay.net

    @property
    def contribution(self) -> Any:
        """This line's share of the expected return: net pay × probability."""
        return self.pay.net * self.probability


@dataclass(frozen=True)
class WagerResult:
    """A wager under one paytable, priced exactly off the top of one shoe."""

    wager: Wager
    paytable: Paytable
    shoe_description: str
    total: int
    lines: tuple[OutcomeLine, ...]

    @classmethod
    def counted(cls, wager: Wager, paytable: Paytable, shoe_description: str, total: int,
                offered: Sequence[tuple[int, str, str, Pay]], counts: Sequence[int]) -> WagerResult:
        """A result from its counts per line (``offered``: as :func:`_offered` gives them, ``counts`` in their
        order), its :attr:`lines` made when first read: pricing shoe after shoe for a figure or two (the main
        game's four paytables count in 20 µs) need not make an object per outcome each time."""
        result = object.__new__(cls)
        fields = result.__dict__
        fields["wager"], fields["paytable"], fields["shoe_description"], fields["total"], fields["_counted"] = \
            wager, paytable, shoe_description, total, (offered, counts)
        return result

    def __getattr__(self, name: str) -> Any:
        """:attr:`lines`, made from the counts on first use (:meth:`counted`)."""
        fields = self.__dict__
        counted = fields.get("_counted")
        if name != "lines" or counted is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        offered, counts = counted                       # kept: two threads may read the lines at once
        total, made = fields["total"], OutcomeLine.made
        lines = tuple([made(oid, line, pay, n, total) for (_, oid, line, pay), n in zip(offered, counts)])
        return fields.setdefault("lines", lines)

    @functools.cached_property
    def expected_return(self) -> Any:
        """Expected net win per unit wagered (negative: the house's advantage)."""
        return self._mean([line.net for line in self.lines])

    @property
    def house_edge(self) -> Any:
        """Expected loss per unit wagered, pushes included in the base."""
        return -self.expected_return

    @property
    def return_to_player(self) -> Any:
        """RTP: 1 + expected return."""
        return 1 + self.expected_return

    @functools.cached_property
    def variance(self) -> Any:
        """Variance of the net result of one unit wagered."""
        return self._mean([line.net * line.net for line in self.lines]) - self.expected_return ** 2

    @property
    def standard_deviation(self) -> float:
        """For printing only; the exact figure is :attr:`variance`."""
        return math.sqrt(float(self.variance))

    @functools.cached_property
    def hit_frequency(self) -> Fraction:
        """Probability that the wager wins something (net pay above zero)."""
        return Fraction(sum(ln.combinations for ln in self.lines if _positive(ln.net)), self.total)

    @functools.cached_property
    def push_frequency(self) -> Fraction:
        return Fraction(sum(ln.combinations for ln in self.lines if ln.pay.kind == "push"), self.total)

    def _mean(self, values: Sequence[Any]) -> Any:
        """Σ value × combinations / total over the lines, exactly: in integers over one common
        denominator when every value is a Fraction (a sum of Fractions reduces at every step), and
        as a sum of terms where a value is a share of a meter."""
        if all(isinstance(v, Fraction) for v in values):
            common = math.lcm(*(v.denominator for v in values))
            numerator = sum(v.numerator * (common // v.denominator) * ln.combinations
                            for v, ln in zip(values, self.lines))
            return Fraction(numerator, common * self.total)
        return sum((v * ln.probability for v, ln in zip(values, self.lines)), Fraction(0))

    @property
    def symbolic(self) -> bool:
        return any(line.pay.symbolic for line in self.lines)

    def __repr__(self) -> str:
        figure = ("expected return in the meters" if self.symbolic else
                  f"house edge {float(self.house_edge):.4%}{house_edge_words(self.house_edge)}")
        return f"<WagerResult {self.wager.id}:{self.paytable.id} on {self.shoe_description}: {figure}>"

    def report(self) -> Report:
        """The outcome table with its totals and summary figures (:func:`exactodds.render.report.result_report`)."""
        return result_report(self)

    def render(self, fmt: str) -> str:
        return render_report(self.report(), fmt)

    def __str__(self) -> str:
        return result_text(self)

    def _repr_html_(self) -> str:
        return self.render("html")

    def to_dataframe(self) -> Any:
        """One row per outcome (needs pandas: the 'notebooks' extra)."""
        return result_dataframe(self)


def _positive(net: Any) -> bool:
    """Whether a pay is a win. A share of a meter always is: the meter is never below its reset,
    which is many times the wager, so even a share paid 'for 1' (``J − 1``) wins money."""
    if isinstance(net, Fraction):
        return net > 0
    return any(net.coefficient(m) > 0 for m in net.meters)


_LOSE_PAY = Pay("lose", "lose", Fraction(-1))


def table_signature(wager: Wager) -> tuple[Any, ...]:
    """Which exact table a wager reads.

    ('multiset', names) for the multiset tables of :mod:`exactodds.engine.multiset`
    (point values, and ranks and suits of single cards), ('multiset', names, told)
    where suits are read by pattern, ``told`` how finely they are told apart, or read by colour alone
    (``told`` :data:`~exactodds.engine.multiset.BY_COLOUR`); ('round', names) for
    same suit, colour or rank of every card dealt, with the point-value
    ``names``; ('initial', p, b) for the four initial cards' identities,
    counted by quadratic forms (:mod:`exactodds.engine.identity`).
    """
    return signature_for(wager.features, kind=wager.kind, texts=wager.texts, wagers=(wager,))


def signature_for(features: frozenset[str], *, kind: str | None = None, texts: Iterable[Iterable[str]] = (),
                  wagers: Sequence[Wager] = ()) -> tuple[Any, ...]:
    """The exact table that reads ``features`` (see :func:`table_signature`); ``texts`` are the sets of
    texts the conditions name (suits named are told apart: :func:`exactodds.engine.multiset.told_apart`).

    A table of suit patterns too large to build, or of more than :data:`SHARED_ROWS` rows, is compiled
    for the ``wagers`` that read it alone (:class:`exactodds.engine.multiset.Varies`): rounds whose outcomes
    no suit changes are read at their values, and the signature names those wagers.

    Where every one of ``wagers`` that reads suits reads each card's suit by its colour alone (proven from the
    conditions: :func:`exactodds.engine.walk.suits_by_colour`), the table reads colours, not suits: a point
    value and red or black per card, compiled for the wagers alone (its cards' atoms make many more multisets
    than a table of patterns has, unless colours are read only where they change an outcome: three red sevens
    for the Banker, 7,575 multisets, 0.6 ms a shoe, where its patterns took 1.2 ms and every colour 7.6 ms).
    A table of single cards' ranks alone tells the ten-valued ranks apart only as finely as those wagers'
    conditions do (proven: :func:`exactodds.engine.tens.tens_told`; a face card against a 10, ``T|JQK``)."""
    kind = kind if kind is not None else feature_kind(features)
    if kind == "round":
        return ("round", point_names(features & VALUE_LEVEL | frozenset(POINT_FEATURES)))
    if kind == "initial":
        return ("initial", *initial_needs(features))
    names = point_names(features)
    told = told_apart(names, texts)
    readers = [w for w in wagers if resolution_of(w.features) != "value"]        # a main-game wager beside
    by_colour = bool(readers) and resolution_of(names) == "suit" and all(engine.suits_by_colour(w) for w in readers)
    if by_colour:                 # compiled for its wagers: a colour read only where it changes their outcomes
        return ("multiset", names, BY_COLOUR, _varies(wagers))
    if readers and tens.reads_ranks_alone(names):  # ranks alone: the ten-valued ones by the split they need
        split = tens.tens_told(readers)
        return ("multiset", names) if split == tens.EVERY_TEN else ("multiset", names, split)
    if wagers and not _shared(names, told):
        return ("multiset", names, told, _varies(wagers))
    return ("multiset", names) if told == EVERY_SUIT else ("multiset", names, told)


def table_bytes(wager: Wager) -> int:
    """The estimated peak bytes of building the multiset table ``wager`` reads (0 for the other tables, which
    are small), kept on the wager."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    if "table bytes" not in cache:
        signature = table_signature(wager)
        cache["table bytes"] = 0 if signature[0] != "multiset" else estimate(
            signature[1], told=signature[2] if len(signature) > 2 else EVERY_SUIT,
            varies=signature[3] if len(signature) > 3 else None).bytes
    return cache["table bytes"]  # type: ignore[no-any-return]


#: The most rows a table of suit patterns is built with for every wager that reads its features; a larger
#: one is built for the wagers that read it (a few seconds saved for each, e.g. three red sevens: 5 s to 0.5 s).
SHARED_ROWS = 1_000_000


@functools.cache
def _shared(names: tuple[str, ...], told: str) -> bool:
    """Whether the table of ``names`` telling suits apart as ``told`` is built as it is, for every wager
    (as any table is that reads ranks too: only suits are skipped where no outcome needs them)."""
    if resolution_of(names) != "suit":
        return True
    size = estimate(names, told=told)
    return size.fits and size.rows <= SHARED_ROWS


def _varies(wagers: Sequence[Wager]) -> Varies:
    """The outcome masks of ``wagers``, for a table compiled for them alone."""
    conditions = [(o.condition, dict(w.parameters)) for w in wagers for o in w.outcomes]
    key = repr([(c.text, sorted(p.items())) for c, p in conditions])

    def masks(columns: dict[str, np.ndarray], n: int) -> np.ndarray:
        return np.stack([c.mask(columns, n, p) for c, p in conditions])
    return Varies(key, masks)


@dataclass(frozen=True, eq=False)
class FeatureTable:
    """Every key a table can hold, and the named features as NumPy columns (shoe-independent)."""

    keys: tuple[tuple[Any, ...], ...]
    columns: Mapping[str, np.ndarray]
    names: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.keys)

    def describe(self, row: int) -> str:
        """One row in words, e.g. 'player=7, banker=7, player_cards=3'."""
        names = self.names or tuple(f"#{i}" for i in range(len(self.keys[row])))
        return ", ".join(f"{n}={v!r}" if isinstance(v, str) else f"{n}={v}" for n, v in zip(names, self.keys[row]))


def _with_derived(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    for name, (_doc, fn) in DERIVED.items():
        columns[name] = np.asarray(fn(columns))
    return columns


@cache.register_memo                    # it holds columns of tables that may come from the disk cache
@functools.cache
def feature_table(signature: tuple[Any, ...]) -> FeatureTable:
    """The feature table of a signature (see :func:`table_signature`)."""
    kind = signature[0]
    keys: tuple[tuple[Any, ...], ...]
    if kind == "multiset":
        table = compile_table(signature[1], told=signature[2] if len(signature) > 2 else EVERY_SUIT,
                              varies=signature[3] if len(signature) > 3 else None)
        cols = dict(table.columns)
        if "player" in cols:
            _with_derived(cols)
        return FeatureTable(table.keys, cols, table.names)
    if kind == "round":

        table = compile_table(signature[1])
        bounds.check(bounds.round_estimate(table.names, keys=len(table.keys)))
        cats = ALL_CARD_CATEGORIES
        keys = tuple(k + tuple(c) for k in table.keys for c in cats)
        cols = {n: np.repeat(c, len(cats)) for n, c in table.columns.items()}
        for i, n in enumerate(("same_rank", "same_suit", "same_colour")):
            cols[n] = np.tile(np.array([c[i] for c in cats], dtype=bool), len(table.keys))
        return FeatureTable(keys, _with_derived(cols), table.names + ("same_rank", "same_suit", "same_colour"))

    needs_p, needs_b = signature[1], signature[2]
    bounds.check(bounds.initial_estimate(len(_labels(needs_p)[1]), len(_labels(needs_b)[1])))
    keys = tuple((p, b) for p in _labels(needs_p)[1] for b in _labels(needs_b)[1])
    rows = [initial_row(p, b) for p, b in keys]
    cols = {n: np.array([r[n] for r in rows]) for n in rows[0] if rows[0][n] is not None}
    return FeatureTable(keys, cols, ("player", "banker"))


def outcome_masks(wager: Wager) -> np.ndarray:
    """Bool matrix: outcome x row of the wager's feature table (shoe-independent, cached).

    The first call also checks that the outcomes of an exclusive wager never
    meet on one round (every possible round of the table is tried).
    """
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    if "masks refused" in cache:            # refused before: said again at once (its estimate takes 0.3 s)
        raise TooLarge(cache["masks refused"])
    if "masks" not in cache:
        try:
            table = feature_table(table_signature(wager))
        except (InconsistentCounts, OverBudget):    # no route answers these otherwise
            raise
        except ExactOddsError as exc:       # a table too large to build, say (the walk may price it)
            alt = f": alternative {wager.reading_id!r}" if wager.reading_id != "regulation" else ""
            if isinstance(exc, TooLarge):
                cache["masks refused"] = f"{wager.source}: wager {wager.id!r}{alt}: {exc}"
                raise TooLarge(cache["masks refused"]) from None
            raise ExactOddsError(f"{wager.source}: wager {wager.id!r}{alt}: {exc}") from None
        masks = np.stack([o.condition.mask(table.columns, len(table), wager.parameters) for o in wager.outcomes])
        clash = np.flatnonzero(masks.sum(axis=0) > 1) if wager.settle == "exclusive" else np.zeros(0, int)
        if len(clash):
            row = int(clash[0])
            a, b = (wager.outcomes[k].id for k in np.flatnonzero(masks[:, row])[:2])
            alt = f": alternative {wager.reading_id!r}" if wager.reading_id != "regulation" else ""
            raise ExactOddsError(
                f"{wager.source}: wager {wager.id!r}{alt}: outcomes {a!r} and {b!r} both hold on one round "
                f"({table.describe(row)}); make them exclusive or say settle = \"highest\""
            )
        cache["masks"] = masks
    return cache["masks"]  # type: ignore[no-any-return]


def check_wagers(wagers: Mapping[str, Wager], *, tables: bool = True) -> None:
    """Check every wager, and every alternative reading of it: which exact table reads it and,
    with ``tables``, that its outcomes never meet on one round of that table (which compiles it;
    without ``tables`` that check waits until the wager is first priced: :func:`assign_outcomes`)."""
    for w in wagers.values():
        for reading in (w, *(w.with_alternative(alt) for alt in w.alternatives)):
            if tables:
                outcome_masks(reading)
            else:
                table_signature(reading)


def settlement(wager: Wager, paytable: Paytable) -> np.ndarray:
    """For each row, the index of the outcome it is paid as, or -1 for a loss."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    key = ("settle", paytable.id, paytable.award_basis)
    if key not in cache:
        cache[key] = assign_outcomes(wager, paytable, outcome_masks(wager))
    return cache[key]  # type: ignore[no-any-return]


def _groups(wager: Wager, paytable: Paytable) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Rows sorted by the outcome they are paid as: (order, group starts, outcome index per group)."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    key = ("groups", paytable.id, paytable.award_basis)
    if key not in cache:
        assign = settlement(wager, paytable)
        order = np.argsort(assign, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(assign[order]) != 0])
        cache[key] = (order, starts, assign[order][starts].tolist())
    return cache[key]  # type: ignore[no-any-return]


def assign_outcomes(wager: Wager, paytable: Paytable, masks: np.ndarray) -> np.ndarray:
    """Given outcome x row masks, the outcome each row is paid as (-1: a loss).

    Outcomes "N/A" under the paytable never pay; under ``settle = "highest"``
    a row meeting several outcomes is paid the best (a meter share first).
    The wager is checked first (:func:`outcome_masks`): nothing is settled
    under an exclusive wager whose outcomes can meet.
    """
    if "masks" not in wager.__dict__.get("_cache", {}):
        try:
            outcome_masks(wager)
        except TooLarge:                   # no table to try every round on (the walk prices it): these rounds
            clash = np.flatnonzero(masks.sum(axis=0) > 1) if wager.settle == "exclusive" else np.zeros(0, int)
            if len(clash):                 # are checked instead, and none is settled as one outcome of several
                a, b = (wager.outcomes[k].id for k in np.flatnonzero(masks[:, int(clash[0])])[:2])
                raise ExactOddsError(f"{wager.source}: wager {wager.id!r}: outcomes {a!r} and {b!r} both hold on one "
                                     "round; make them exclusive or say settle = \"highest\"") from None
    order = [k for k, o in enumerate(wager.outcomes) if paytable.pays[o.id].offered]
    if wager.settle == "highest":      # the best pay first; ties keep the data's order
        order.sort(key=lambda k: wager.rank(paytable, wager.outcomes[k].id), reverse=True)
    assign = np.full(masks.shape[1], -1, dtype=np.intp)
    for k in reversed(order):          # earlier in ``order`` overwrites later
        assign[masks[k]] = k
    return assign


def classify(wager: Wager, paytable: Paytable) -> Mapping[tuple[Any, ...], str | None]:
    """Which outcome each possible round of the wager's table is paid as (shoe-independent)."""
    table = feature_table(table_signature(wager))
    assign = settlement(wager, paytable)
    return {key: (wager.outcomes[a].id if a >= 0 else None) for key, a in zip(table.keys, assign)}


def _counts(wager: Wager, dist: PointDistribution) -> np.ndarray:
    """The shoe's counts aligned with the wager's feature table."""
    signature = _signature(wager)
    return counts_for(signature, dist, what=wager.__dict__["_cache"]["signature"][1])


def counts_for(signature: tuple[Any, ...], dist: PointDistribution, *, what: str) -> np.ndarray:
    """The shoe's counts aligned with the rows of :func:`feature_table` of ``signature``."""
    if not isinstance(dist, RoundDistribution):
        raise ExactOddsError(f"{what}: the walk route counts per settled outcome, not per row of the tables "
                             "(use --route vector)")
    if signature[0] == "multiset":
        try:
            return dist.table_counts(*signature[1:])
        except ExactOddsError as exc:
            raise type(exc)(f"{what}: {exc}") from None
    if signature[0] == "round":
        return dist.every_card_counts(signature[1], what=what).ravel()
    kept = dist._cache.get(("aligned", signature))       # the pairs of one wager read it alike: made once
    if kept is None:
        joint = dist.initial_counts(signature[1], signature[2], what=what)
        kept = dist._cache[("aligned", signature)] = np.array(
            [joint[k] for k in feature_table(signature).keys], dtype=np.int64 if dist.total < 2**63 else object)
    return kept  # type: ignore[no-any-return]


def settled_together(pairs: Sequence[tuple[Wager, Paytable]], dist: PointDistribution) -> dict[int, dict[int, int]]:
    """For the pairs (by position in ``pairs``), the counts per outcome index (-1: lost) that :func:`price`
    would sum, counted together: the keys of a table that every pair reading it settles alike form one
    block, and the shoe is counted once per block (the main game's four paytables read three blocks of the
    point table's 205 keys, by the compiled kernel), or each key's count added up once per block (every
    card, the initial cards). Pairs whose table is refused are left to :func:`price` (which says why)."""
    if not isinstance(dist, RoundDistribution):
        return {}
    out: dict[int, dict[int, int]] = {}
    for entry, counts in _counted(pairs, dist):
        out.update(_sums(entry, counts))
    return out


def priced_together(pairs: Sequence[tuple[Wager, Paytable]], dist: PointDistribution) -> dict[int, WagerResult]:
    """For the pairs (by position in ``pairs``) :func:`settled_together` counts, their results, as :func:`price`
    makes them from those counts: where each block of a table is one outcome of a pair, its lines are read
    from the blocks' counts directly (the main game's four paytables, shoe after shoe)."""
    if not isinstance(dist, RoundDistribution):
        return {}
    out: dict[int, WagerResult] = {}
    total, shown, counted = dist.total, dist.shoe.describe(), WagerResult.counted
    for entry, counts in _counted(pairs, dist):
        recipes = entry[6]
        if recipes is None:
            out.update((i, price(*pairs[i], dist, sums)) for i, sums in _sums(entry, counts).items())
            continue
        for i, (offered, lines_of) in zip(entry[1], recipes):
            lines = lines_of(counts)
            if sum(lines) != total:                   # an invariant of the counting, as price checks it
                raise InconsistentCounts(f"{pairs[i][0].id}: outcome counts do not add up to the shoe's sequences")
            wager, paytable = pairs[i]
            out[i] = counted(wager, paytable, shown, total, offered, lines)
    return out


def _counted(pairs: Sequence[tuple[Wager, Paytable]], dist: RoundDistribution
             ) -> Iterator[tuple[tuple[Any, ...], list[int]]]:
    """Each group of :func:`_plan` the tables count, with its counts per block (a table refused is left to
    :func:`price`, which says why)."""
    for entry in _plan(pairs):
        signature, positions, _columns, key_block, (order, starts), _sums_by, _recipes = entry
        try:
            if signature[0] == "multiset":
                counts = dist.block_counts(signature[1], key_block, *signature[2:])
            else:                                      # every card, or the initial cards: their counts per key,
                per_key = _counts(pairs[positions[0]][0], dist)                             # added up per block
                counts = [int(n) for n in np.add.reduceat(per_key[order], starts).tolist()]
        except (InconsistentCounts, OverBudget):      # a check of the counting failed, or the time: said
            raise
        except ExactOddsError:                         # price says why, in its turn
            continue
        yield entry, counts


def _sums(entry: tuple[Any, ...], counts: list[int]) -> dict[int, dict[int, int]]:
    """The counts per outcome index (-1: lost) of each pair of a group of :func:`_plan`, from its blocks'."""
    _signature, positions, columns, _kb, _os, sums_by, _recipes = entry
    out: dict[int, dict[int, int]] = {}
    if sums_by is None:                                # a few blocks and pairs: added up here
        for i, (labels, distinct) in zip(positions, columns):
            if distinct:                               # each block its own outcome
                out[i] = dict(zip(labels, counts))
                continue
            sums: dict[int, int] = {}
            for label, n in zip(labels, counts):
                sums[label] = sums.get(label, 0) + n
            out[i] = sums
        return out
    one_hot, rows = sums_by                            # many: one product, in uint64 below 2**64 (no sum wraps:
    fits = sum(counts) < 2**64                         # the blocks part the keys, so each is at most the total)
    totals = (one_hot if fits else one_hot.astype(object)) @ np.array(counts, dtype=np.uint64 if fits else object)
    for (i, label), n in zip(rows, totals.tolist()):
        out.setdefault(i, {})[label] = n
    return out


def _recipe(wager: Wager, paytable: Paytable, labels: list[int]) -> tuple[list[Any], Callable[[list[int]], Any]] | None:
    """For a pair of a group of :func:`_plan` (``labels``: each block's outcome index, -1 lost), its lines as
    :func:`_offered` lists them and how their counts are read from the blocks' counts; None where a block's
    outcome is no line of the table (it is then left to :func:`price`)."""
    offered = _offered(wager, paytable)
    blocks: dict[int, list[int]] = {}
    for b, label in enumerate(labels):
        blocks.setdefault(label, []).append(b)
    if set(blocks) - {k for k, _, _, _ in offered}:
        return None
    at = [tuple(blocks.get(k, ())) for k, _, _, _ in offered]
    if len(at) > 1 and all(len(x) == 1 for x in at):                 # each line one block
        return offered, operator.itemgetter(*(x[0] for x in at))
    if len(at) == 2 and len(at[0]) == 1 and len(at[1]) > 1:         # one line, and the loss (a Tie bet)
        (win,), rest = at
        lost = operator.itemgetter(*rest)
        return offered, lambda counts: (counts[win], sum(lost(counts)))
    return offered, lambda counts: [sum([counts[b] for b in x]) for x in at]


#: Where a group of :func:`_plan` has more pairs x blocks than this, its sums are one matrix product.
_ADDED_BY_HAND = 64

_Plan = list[tuple[tuple[Any, ...], list[int], list[tuple[list[int], bool]], np.ndarray, tuple[np.ndarray, np.ndarray],
                   tuple[np.ndarray, list[tuple[int, int]]] | None, list[Any] | None]]

#: The plans of :func:`_plan`, per tuple of the pairs' identities (the pairs kept beside, so that an identity is
#: never another object's): a selection priced shoe after shoe is planned once (the last 64 selections).
_PLANS: dict[tuple[int, ...], tuple[list[Any], _Plan]] = {}
#: Each kept plan's arrays' bytes (a plan of a large table holds a few arrays as long as its keys).
_PLAN_BYTES: dict[tuple[int, ...], int] = {}
#: The most the kept plans hold: a selection priced given condition after condition (advantage --seen 4 of the
#: catalogue: 16 conditions a wager) plans each once, and keeps only the last few of a large table.
_PLANS_HELD_BYTES = 256 << 20
#: The last tuple of pairs planned, kept beside its plan (a tuple: no one changes it), for the same selection
#: priced shoe after shoe without looking at each pair again.
_LAST_PLAN: list[tuple[tuple[Any, ...], _Plan] | None] = [None]


def _plan(pairs: Sequence[tuple[Wager, Paytable]]) -> _Plan:
    """The pairs grouped by the table they read: (signature, their positions, each block's outcome index
    under each of them with whether no two of its blocks share one, each key's block, the keys in block order
    with each block's start, and for many blocks their one-hot matrix). The keys every pair of a group pays
    alike form one block."""
    if type(pairs) is tuple:                           # the very selection planned last (analyze keeps it)
        last = _LAST_PLAN[0]
        if last is not None and last[0] is pairs:
            return last[1]
    flat = [x for pair in pairs for x in pair]
    key = tuple(id(x) for x in flat)
    kept = _PLANS.get(key)
    if kept is not None and all(map(operator.is_, kept[0], flat)):
        if type(pairs) is tuple:
            _LAST_PLAN[0] = (pairs, kept[1])
        return kept[1]
    members: dict[tuple[Any, ...], list[tuple[int, np.ndarray]]] = {}
    for i, (wager, paytable) in enumerate(pairs):
        try:
            signature = _signature(wager)
            settled = settlement(wager, paytable)
            members.setdefault(signature, []).append((i, settled))
        except (InconsistentCounts, OverBudget):
            raise
        except ExactOddsError:                         # price says why, in its turn
            continue
    plan: _Plan = []
    for signature, group in members.items():
        labels, key_block = _blocks(np.stack([a for _, a in group]))
        positions = [i for i, _ in group]
        sums_by = None
        if labels.size > _ADDED_BY_HAND:               # one row per (pair, outcome index): 1 where a block is it
            rows = [(i, int(label)) for i, row in zip(positions, labels) for label in np.unique(row)]
            one_hot = np.array([labels[positions.index(i)] == label for i, label in rows], dtype=np.uint64)
            sums_by = (one_hot, rows)
        key_block = key_block.reshape(-1).astype(np.int64)
        order = np.argsort(key_block, kind="stable")                 # blocks are numbered from 0, none empty
        starts = np.flatnonzero(np.r_[True, np.diff(key_block[order]) != 0])
        rows = labels.tolist()
        recipes = None if sums_by is not None else [_recipe(*pairs[i], row) for i, row in zip(positions, rows)]
        plan.append((signature, positions, [(row, len(set(row)) == len(row)) for row in rows], key_block,
                     (order, starts), sums_by, None if recipes is None or None in recipes else recipes))
    _PLANS[key] = (flat, plan)
    _PLAN_BYTES[key] = sum(x.nbytes for entry in plan for x in _arrays(entry))
    while len(_PLANS) > 64 or (len(_PLANS) > 1 and sum(_PLAN_BYTES.values()) > _PLANS_HELD_BYTES):
        oldest = next(iter(_PLANS))                    # the oldest plans go first: a bound on what is kept
        _PLANS.pop(oldest)
        _PLAN_BYTES.pop(oldest, None)
    if type(pairs) is tuple:
        _LAST_PLAN[0] = (pairs, plan)
    return plan


def _blocks(settled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(settled, axis=1, return_inverse=True)``: the distinct columns (each key's outcome index under
    every pair, -1 lost), in the same order, and each key's column. Where the rows' indices fit 62 bits side by
    side, each column is packed into one integer first (a sort of integers, not of rows: a table of many keys
    priced given condition after condition plans each in a tenth of the time).

    >>> labels, inverse = _blocks(np.array([[0, -1, 0, 2], [1, 1, 1, -1]]))
    >>> labels.tolist(), inverse.reshape(-1).tolist()
    ([[-1, 0, 2], [1, 1, -1]], [1, 0, 1, 2])
    """
    shifted = settled.astype(np.int64) + 1                     # every index >= 0
    widths = [max(1, int(row.max(initial=0)).bit_length()) for row in shifted]
    if not len(shifted) or sum(widths) > 62:
        return np.unique(settled, axis=1, return_inverse=True)  # type: ignore[no-any-return]
    packed = np.zeros(shifted.shape[1], dtype=np.int64)
    for row, width in zip(shifted, widths):                     # the first row highest: the rows' order kept
        packed = (packed << width) | row
    distinct, inverse = np.unique(packed, return_inverse=True)
    labels = np.empty((len(shifted), len(distinct)), dtype=np.int64)
    for k in range(len(shifted) - 1, -1, -1):
        labels[k] = (distinct & ((1 << widths[k]) - 1)) - 1
        distinct = distinct >> widths[k]
    return labels.astype(settled.dtype), inverse


def forget_plans() -> None:
    """Drop the kept plans (each is made again when next asked for)."""
    _PLANS.clear()
    _PLAN_BYTES.clear()
    _LAST_PLAN[0] = None


def _arrays(entry: tuple[Any, ...]) -> list[np.ndarray]:
    """The NumPy arrays one entry of a plan holds (what :data:`_PLANS_HELD_BYTES` bounds)."""
    found: list[np.ndarray] = []
    stack: list[Any] = list(entry)
    while stack:
        x = stack.pop()
        if isinstance(x, np.ndarray):
            found.append(x)
        elif isinstance(x, (tuple, list)) and len(x) < 64:
            stack.extend(x)
    return found


def _signature(wager: Wager) -> tuple[Any, ...]:
    """:func:`table_signature`, kept on the wager (the same for every shoe)."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    if "signature" not in cache:
        cache["signature"] = (table_signature(wager), f"wager {wager.id!r} ({cited(wager.section)})")
    return cache["signature"][0]  # type: ignore[no-any-return]


def price(wager: Wager, paytable: Paytable, dist: PointDistribution,
          sums: Mapping[int, int] | None = None) -> WagerResult:
    """Price ``wager`` under ``paytable`` against the distribution ``dist`` (``sums``: its counts per outcome
    index, -1 lost, where :func:`settled_together` counted them already)."""
    if sums is None and settles_rounds(dist):              # the second route settles each round itself
        sums = dist.outcome_counts(wager, paytable)
    elif sums is None:
        order, starts, paid_as = _groups(wager, paytable)  # first: a table refused names the wager's file
        counts = _counts(wager, dist)
        sums = dict(zip(paid_as, np.add.reduceat(counts[order], starts).tolist()))
    total, offered, get = dist.total, _offered(wager, paytable), sums.get
    counted = [int(get(k, 0)) for k, _, _, _ in offered]
    if not sum(counted) == sum(sums.values()) == total:   # an invariant of the counting, and the lines printed
        raise InconsistentCounts(f"{wager.id}: outcome counts do not add up to the shoe's sequences")  # hold it all
    return WagerResult.counted(wager, paytable, dist.shoe.describe(), total, offered, counted)


def _offered(wager: Wager, paytable: Paytable) -> list[tuple[int, str, str, Pay]]:
    """The lines of a priced table, in order: (outcome index, id, name, pay) of each outcome the paytable
    offers, then the loss (index -1); kept on the wager (the same for every shoe)."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    key = ("offered", paytable.id, paytable.award_basis)
    if key not in cache or cache[key][0] is not paytable:
        offered = [(k, o.id, o.name, paytable.pays[o.id]) for k, o in enumerate(wager.outcomes)
                   if paytable.pays[o.id].offered]
        cache[key] = (paytable, [*offered, (-1, LOSE, "Loses", _LOSE_PAY)])
    return cache[key][1]  # type: ignore[no-any-return]


def _nets(wager: Wager, paytable: Paytable) -> list[Any]:
    """Net pay of each group of :func:`_groups` (a loss pays -1)."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    key = ("nets", paytable.id, paytable.award_basis)
    if key not in cache:
        paid_as = _groups(wager, paytable)[2]
        cache[key] = [Fraction(-1) if k < 0 else paytable.pays[wager.outcomes[k].id].net for k in paid_as]
    return cache[key]  # type: ignore[no-any-return]


#: The largest sum the batch route keeps in 64 bits (see :func:`return_numerators`).
_INT64_MAX = 2**63 - 1


def expected_returns(wager: Wager, paytable: Paytable, value_counts: np.ndarray) -> list[Fraction] | None:
    """The exact expected return of ``wager`` under ``paytable`` for many shoes at once, given each
    shoe's cards per point value (shape (shoes, 10)); equal, shoe by shoe, to :func:`expected_return`.

    One pass over the multisets the wager pays on: a shoe's expected return is Σ_m W[m] · U[m] over
    (L × its sequences) − 1, with W the shoe's weight of multiset m (:meth:`MultisetTable.sums_many`)
    and U[m] = L · Σ over m's entries of orderings × (net pay + 1), the same for every shoe (a loss adds
    nothing, so only multisets that feed a paid or pushed outcome are read). Exact in 64-bit integers:
    see :func:`return_numerators`. ``None`` where this route does not read the wager (it tells ranks
    or suits apart, or a pay is a share of a meter): price those shoe by shoe.

    >>> from exactodds.engine import deal
    >>> from exactodds.wagers import load_catalogue
    >>> d7 = load_catalogue()["dragon-7-insurance"]
    >>> full, less = Shoe.decks(8), Shoe.decks(8).remove(*"AAAA")
    >>> got = expected_returns(d7, d7.paytable("standard"), np.array([full.value_counts, less.value_counts]))
    >>> got == [expected_return(d7, d7.paytable("standard"), deal(s)) for s in (full, less)]
    True
    """
    return expected_returns_many([(wager, paytable)], value_counts)[0]


def expected_returns_many(pairs: Sequence[tuple[Wager, Paytable]], value_counts: np.ndarray
                          ) -> list[list[Fraction] | None]:
    """:func:`expected_returns` of several wagers on the same shoes: the wagers that read the same
    table share the shoes' weights of its multisets, so pricing three of them costs little more
    than one (the weights are the work; each wager adds a column to one matrix product)."""
    out: list[list[Fraction] | None] = []
    for found in return_numerators(pairs, value_counts):
        out.append(None if found is None else
                   [Fraction(n - found.scale * t, found.scale * t) for n, t in zip(found.first, found.totals)])
    return out


@dataclass(frozen=True)
class Moments:
    """A wager's first two moments on many shoes, as integers (:func:`return_numerators`): shoe i's
    expected return is ``first[i] / (scale · totals[i]) − 1`` and its expected squared result
    ``second[i] / (scale² · totals[i]) + 1`` (``totals``: the shoes' ordered 6-card sequences)."""

    first: list[int]
    second: list[int] | None
    totals: list[int]
    scale: int
    #: With ``cross``: for a later wager j of the same table, E[X · X_j] of shoe i is
    #: ``cross[j][i] / (scale · scale_j · totals[i]) + 1``.
    cross: dict[int, list[int]] = field(default_factory=dict)


def return_numerators(pairs: Sequence[tuple[Wager, Paytable]], value_counts: np.ndarray, *,
                      second: bool = False, cross: bool = False) -> list[Moments | None]:
    """What :func:`expected_returns_many` makes Fractions of, for callers that sum many of them, and
    with ``second`` the expected squared results too (a round's variance is E[X²] − E[X]²).

    Per key of the table a moment is an integer v (``(net + 1) · L`` for the first, ``(net² − 1) · L²``
    for the second: a loss adds nothing to either), so a shoe's sum of it depends only on the nets the
    wagers read from the table pay on each key. The keys fall into classes, one per distinct tuple of
    the wagers' nets (all losing: no class), and one pass over the multisets counts each class's
    sequences, S_c = Σ_m W[m] · U_c[m] with U_c[m] the orderings of m's entries in class c
    (:meth:`MultisetTable.sums_many`); every moment is then Σ_c v_c · S_c, exactly (:func:`_class_sums`).
    Each S_c is at most the shoe's sequences (its terms are non-negative), so it fits 64 bits wherever
    those do twice over. ``None`` where this route does not read the wager (it tells ranks or suits apart, or
    a pay is a share of a meter). With ``cross``, the expected product of the results of every two
    wagers read from the same table (``(net_a · net_b − 1) · L_a · L_b`` per key) comes from the same
    counts: what a team whose players bet different wagers of one round needs for the variance of its win.
    """
    out: list[Moments | None] = []
    for found in moment_arrays(pairs, value_counts, second=second, cross=cross):
        out.append(None if found is None else
                   Moments(found.first.tolist(), None if found.second is None else found.second.tolist(),
                           found.totals.tolist(), found.scale, {j: c.tolist() for j, c in found.cross.items()}))
    return out


@dataclass(frozen=True)
class MomentArrays:
    """:class:`Moments` as NumPy arrays, one item per shoe: ``int64`` where a bound proves every item fits
    (see :func:`_class_sums`), else Python integers (``object``); ``totals`` ``int64``."""

    first: np.ndarray
    second: np.ndarray | None
    totals: np.ndarray
    scale: int
    cross: dict[int, np.ndarray] = field(default_factory=dict)
    #: Where every key the wager does not lose on pays one net n: second = ratio · first, shoe by shoe
    #: (per key (n² − 1) · L² = (n − 1) · L · (n + 1) · L), ratio = (n − 1) · L; else None.
    ratio: int | None = None


def moment_arrays(pairs: Sequence[tuple[Wager, Paytable]], value_counts: np.ndarray, *,
                  second: bool = False, cross: bool = False) -> list[MomentArrays | None]:
    """:func:`return_numerators` as arrays, for callers that sum them over many shoes with NumPy."""
    value_counts = _checked_value_counts(value_counts)
    out: list[MomentArrays | None] = [None] * len(pairs)
    sizes, where = np.unique(value_counts.sum(axis=1), return_inverse=True)
    if _INT64_MAX // max(math.perm(int(sizes.max(initial=0)), CARDS_PER_ROUND), 1) < 2:
        return out
    totals = np.array([math.perm(int(n), CARDS_PER_ROUND) for n in sizes], dtype=np.int64)[where.reshape(-1)]
    groups: dict[tuple[str, ...], list[tuple[int, list[Fraction], int]]] = {}
    for k, (wager, paytable) in enumerate(pairs):
        signature = table_signature(wager)
        if signature[0] != "multiset" or len(signature) != 2:
            continue
        table = compile_table(signature[1])
        if table.resolution != "value" or table.patterned:
            continue
        found = _key_nets(wager, paytable)
        if found is not None:
            groups.setdefault(signature[1], []).append((k, *found))
    for names, members in groups.items():
        table = compile_table(names)
        classes, multisets, columns = _class_columns(table, [nets for _, nets, _ in members])
        counts = (table.sums_many(value_counts, multisets, columns) if len(multisets)
                  else np.zeros((len(totals), 0), dtype=np.int64))

        memo: dict[tuple[Any, ...], tuple[list[tuple[Fraction, ...]], list[Fraction]]] = \
            table.__dict__.setdefault("_moment_values", {})

        def summed(*key: Any) -> np.ndarray:
            """Σ_c v_c · S_c, the moment's values on the classes (:func:`_moment_values`) made once per run: the
            classes are the very list every batch of a run reads (:func:`_class_columns`), kept beside."""
            found = memo.get((id(classes), *key))
            if found is None or found[0] is not classes:
                if len(memo) >= 256:
                    memo.pop(next(iter(memo)))
                found = memo[(id(classes), *key)] = (classes, _moment_values(classes, *key))
            return _class_sums(found[1], counts)

        crosses: dict[int, dict[int, np.ndarray]] = {}
        if cross:
            for (i, (a, _, la)), (j, (b, _, lb)) in itertools.combinations(enumerate(members), 2):
                crosses.setdefault(a, {})[b] = summed("cross", i, la, j, lb)
        for i, (k, _, scale) in enumerate(members):
            first = summed("first", i, scale)
            squared = summed("second", i, scale) if second else None
            paid = {n[i] for n in classes if n[i] != -1}
            ratio = int((paid.pop() - 1) * scale) if len(paid) == 1 else None
            out[k] = MomentArrays(first, squared, totals, scale, crosses.get(k, {}), ratio)
    return out


def _moment_values(classes: Sequence[tuple[Fraction, ...]], kind: str, i: int, scale: int, j: int = 0,
                   other: int = 1) -> list[Fraction]:
    """A moment's value on each class (the tuple of the nets its wagers pay), an integer over the scales:
    ``first`` (X + 1) · L, ``second`` (X² − 1) · L² of wager ``i`` (scale L), ``cross`` (X_i · X_j − 1) · L_i · L_j.

    >>> _moment_values([(Fraction(40), Fraction(-1))], "first", 0, 1), _moment_values([(Fraction(1, 2),)], "second", 0, 4)
    ([Fraction(41, 1)], [Fraction(-12, 1)])
    """
    if kind == "first":
        return [(n[i] + 1) * scale for n in classes]
    if kind == "second":
        return [(n[i] * n[i] - 1) * scale * scale for n in classes]
    return [(n[i] * n[j] - 1) * scale * other for n in classes]


def _key_nets(wager: Wager, paytable: Paytable) -> tuple[list[Fraction], int] | None:
    """Each key's net pay under ``paytable`` (a loss: −1) and their common denominator L; None when
    a pay is a share of a meter."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    key = ("key nets", paytable.id, paytable.award_basis)
    if key not in cache:
        nets = [Fraction(-1) if k < 0 else paytable.pays[wager.outcomes[k].id].net
                for k in settlement(wager, paytable).tolist()]
        cache[key] = ((nets, math.lcm(*(n.denominator for n in nets)))
                      if all(isinstance(n, Fraction) for n in nets) else None)
    return cache[key]  # type: ignore[no-any-return]


def _class_sums(values: Iterable[Fraction], counts: np.ndarray) -> np.ndarray:
    """Per shoe (a row of ``counts``, one column per class), Σ over classes of a moment's value on the class
    (an integer) times the class's count. In ``int64`` where B = Σ_c |v_c| · (largest |count| of class c)
    is below 2^63: every partial sum of a row is at most B in size, so none wraps; else in Python integers.
    B is first bounded by Σ_c |v_c| · (largest |count| of all): one pass over the whole array, where NumPy's
    extremes per column of a tall, narrow array cost some 60 times more (a loop per row).

    >>> _class_sums([Fraction(3), Fraction(0), Fraction(-2)], np.array([[1, 5, 2], [10, 5, 0]])).tolist()
    [-1, 30]
    """
    v = []
    for x in values:
        if x.denominator != 1:
            raise ValueError(f"a moment's value on a class is not an integer ({x})")
        v.append(int(x))
    if counts.dtype != object and max(map(abs, v), default=0) <= _INT64_MAX:      # each value an int64 first
        overall = max(-int(counts.min(initial=0)), int(counts.max(initial=0)))                 # Python ints
        if sum(abs(k) for k in v) * overall <= _INT64_MAX:
            return counts @ np.array(v, dtype=np.int64)  # type: ignore[no-any-return]
    largest = [max(-low, high) for low, high in zip(counts.min(axis=0, initial=0).tolist(),
                                                    counts.max(axis=0, initial=0).tolist())]
    if (counts.dtype != object and max(map(abs, v), default=0) <= _INT64_MAX
            and sum(abs(k) * c for k, c in zip(v, largest)) <= _INT64_MAX):
        return counts @ np.array(v, dtype=np.int64)  # type: ignore[no-any-return]
    return counts.astype(object) @ np.array(v, dtype=object)  # type: ignore[no-any-return]


def _class_columns(table: Any, nets: Sequence[Sequence[Fraction]]
                   ) -> tuple[list[tuple[Fraction, ...]], np.ndarray, np.ndarray]:
    """For :func:`return_numerators`: the classes of the table's keys by the tuple of nets the wagers pay
    on them (keys where every wager loses left out), the multisets some class reads, and for each of
    them its orderings in each class (``int64``, multisets × classes; at most 6! in a row). Shoe-free,
    kept on the table by the classes' keys, and the classes by the very lists of nets (a wager keeps its
    own, :func:`_key_nets`: the same for every batch of a run)."""
    by_nets: dict[tuple[int, ...], tuple[list[Sequence[Fraction]], list[tuple[Fraction, ...]], np.ndarray]] = \
        table.__dict__.setdefault("_classes_by_nets", {})
    kept = by_nets.get(tuple(map(id, nets)))
    if kept is not None and all(a is b for a, b in zip(kept[0], nets)):      # held there, so no id is reused
        classes, class_of_key = kept[1], kept[2]
    else:
        joint = list(zip(*nets))
        lose = (Fraction(-1),) * len(nets)
        classes = list(dict.fromkeys(t for t in joint if t != lose))
        index = {t: c for c, t in enumerate(classes)}
        class_of_key = np.array([index.get(t, -1) for t in joint], dtype=np.int64)
        if len(by_nets) >= 64:                         # a session trying many paytables: the oldest go
            by_nets.pop(next(iter(by_nets)))
        by_nets[tuple(map(id, nets))] = (list(nets), classes, class_of_key)
    memo: dict[bytes, tuple[np.ndarray, np.ndarray]] = table.__dict__.setdefault("_class_columns", {})
    if class_of_key.tobytes() not in memo:
        key_of_entry = np.repeat(np.arange(len(table.key_starts)),
                                 np.diff(np.r_[table.key_starts, len(table.entry_multiset)]))
        entry_class = class_of_key[key_of_entry]
        paid = entry_class >= 0
        u = np.zeros((len(table.multisets), max(len(classes), 1)), dtype=np.int64)
        np.add.at(u, (table.entry_multiset[paid], entry_class[paid]), table.entry_orderings[paid].astype(np.int64))
        multisets = np.flatnonzero(np.any(u != 0, axis=1))
        if len(memo) >= 64:                            # a session trying many paytables: the oldest go
            memo.pop(next(iter(memo)))
        memo[class_of_key.tobytes()] = (multisets, np.ascontiguousarray(u[multisets, :len(classes)]))
    return (classes, *memo[class_of_key.tobytes()])


def _checked_value_counts(value_counts: Any) -> np.ndarray:
    """The shoes' cards per point value as an int64 array (shoes, 10), or one line saying what is wrong."""
    counts = np.asarray(value_counts)
    if counts.ndim != 2 or counts.shape[1] != 10:
        raise ExactOddsError(f"value counts: one row of 10 counts (point values 0-9) per shoe, got shape {counts.shape}")
    if counts.size and (counts.dtype.kind not in "iu" or int(counts.min()) < 0):
        raise ExactOddsError("value counts: whole numbers of cards, none below 0")
    if counts.size and int(counts.sum(axis=1).min()) < CARDS_PER_ROUND:
        raise ExactOddsError(f"value counts: every shoe needs at least {CARDS_PER_ROUND} cards for a round")
    return counts.astype(np.int64)


def expected_square(wager: Wager, paytable: Paytable, dist: PointDistribution) -> Fraction:
    """The exact expected squared net result of one unit on ``wager`` (a round's variance is this less
    the square of :func:`expected_return`); the shoe-by-shoe twin of ``return_numerators(second=True)``.
    Fixed pays only (a share of a meter has no number to square).

    >>> from exactodds.engine import deal
    >>> from exactodds.wagers import load_catalogue
    >>> tie = load_catalogue()["tie"]
    >>> r = price(tie, tie.paytable("8-to-1"), deal(Shoe.decks(8)))
    >>> expected_square(tie, tie.paytable("8-to-1"), deal(Shoe.decks(8))) == r.variance + r.expected_return ** 2
    True
    """
    if settles_rounds(dist):
        result = price(wager, paytable, dist)
        return result.variance + result.expected_return ** 2   # type: ignore[no-any-return]
    order, starts, _paid_as = _groups(wager, paytable)
    sums = np.add.reduceat(_counts(wager, dist)[order], starts).tolist()
    nets = _nets(wager, paytable)
    if not all(isinstance(net, Fraction) for net in nets):
        raise ExactOddsError(f"wager {wager.id!r} ({paytable.id}) pays a share of a meter: no fixed square")
    common = math.lcm(*(net.denominator ** 2 for net in nets))
    numerator = sum(int(net.numerator ** 2 * (common // net.denominator ** 2)) * int(n) for net, n in zip(nets, sums))
    return Fraction(numerator, common * dist.total)


def expected_return(wager: Wager, paytable: Paytable, dist: PointDistribution) -> Any:
    """The exact expected return of ``wager`` under ``paytable``: :attr:`WagerResult.expected_return`
    without the per-outcome table (the fast path of effects of removal and exposure runs).

    >>> from exactodds.engine import deal
    >>> from exactodds.wagers import load_catalogue
    >>> d7 = load_catalogue()["dragon-7-insurance"]
    >>> shoe = Shoe.decks(8)
    >>> expected_return(d7, d7.paytable("standard"), deal(shoe)) == price(d7, d7.paytable("standard"), deal(shoe)).expected_return
    True
    """
    if settles_rounds(dist):                              # the second route: counts per outcome
        return price(wager, paytable, dist).expected_return
    order, starts, _paid_as = _groups(wager, paytable)
    counts = _counts(wager, dist)
    sums = np.add.reduceat(counts[order], starts).tolist()
    if sum(sums) != dist.total:                           # an invariant of the counting
        raise InconsistentCounts(f"{wager.id}: outcome counts do not add up to the shoe's sequences")
    nets = _nets(wager, paytable)
    if any(not isinstance(net, Fraction) for net in nets):
        return sum((net * n for net, n in zip(nets, sums)), Fraction(0)) * Fraction(1, dist.total)
    common = math.lcm(*(net.denominator for net in nets))
    numerator = sum(int(net.numerator * (common // net.denominator)) * int(n) for net, n in zip(nets, sums))
    return Fraction(numerator, common * dist.total)
