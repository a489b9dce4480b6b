"""Positions: several wagers on one round, settled together: exact moments and, where it fits, the joint distribution.

A player's position is a set of wagers with stakes (Banker $25 + Dragon 7 $5 +
Panda 8 $5, or a Dragon Bonus on both hands, §627a.7(a)(4)). The expected value,
the variance and the covariance of every two wagers are exact and need only
pairwise joint tables (every two wagers read off one table of the features
they read between them), so any number of wagers is priced in bounded memory.
The distribution of the net result needs one table over every feature the
wagers read: it is built where that table is known to fit (:data:`JOINT_ROWS`),
else skipped with a note saying so.

>>> p = position(Shoe.decks(8), [("banker", "standard", 25), ("dragon-7-insurance", "standard", 5)])
>>> p.expected_value == 25 * p.lines[0].expected + 5 * p.lines[1].expected
True
>>> p.variance == sum(a * b * p.covariance[i][j] for i, a in enumerate(p.stakes) for j, b in enumerate(p.stakes))
True

The figures a game report carries (standard deviation per round, volatility
index, the range of the result after n rounds) use the normal approximation
``n·E ± z·σ·√n`` and are printed as decimals; everything else is exact.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np

from exactodds.analyses.door import Door
from exactodds.analyses.eor import resolve_pairs
from exactodds.analyses.pricing import LOSE, assign_outcomes, counts_for, feature_table, signature_for
from exactodds.analyses.progressive import load_meters, mystery_return
from exactodds.engine.identity import _labels
from exactodds.errors import ExactOddsError, InconsistentCounts, TooLarge, exact_number
from exactodds.game.shoe import Shoe
from exactodds.render.tables import (
    Column,
    Describes,
    Figure,
    Report,
    Table,
    dataframe,
    decimal,
    exact,
)
from exactodds.wagers.bet_size import parse_dollars
from exactodds.wagers.catalogue import Catalogue, Paytable, Wager, check_meter_names, did_you_mean, load_catalogue

__all__ = ["Position", "PositionLine", "position", "parse_stake", "ROUNDS", "CONFIDENCE", "JOINT_ROWS"]

#: The horizons and confidence levels of the volatility table.
ROUNDS = (100, 1_000, 10_000)
CONFIDENCE = (Fraction(90, 100), Fraction(95, 100))


@dataclass(frozen=True)
class PositionLine:
    """One wager of a position: its stake and its own exact figures per unit."""

    wager: Wager
    paytable: Paytable
    stake: Fraction
    outcomes: dict[str, int]            # outcome id (or 'lose') -> combinations
    expected: Fraction                  # per unit staked
    variance: Fraction                  # per unit staked


@dataclass(frozen=True)
class Position(Describes):
    """The exact joint result of several wagers on one round."""

    shoe: Shoe
    lines: tuple[PositionLine, ...]
    total: int                                  # ordered 6-card sequences
    joint: dict[tuple[str, ...], int] | None           # outcome of each wager -> combinations (None: skipped)
    distribution: dict[Fraction, int] | None           # net result of the position -> combinations (None: skipped)
    covariance: tuple[tuple[Fraction, ...], ...]   # per unit staked, wager by wager
    mystery: tuple[tuple[str, Fraction], ...] = ()   # (configuration, expected dollars per round)
    note: str = ""                                     # why the distribution was skipped

    def __post_init__(self) -> None:
        if (self.joint is None) != (self.distribution is None) or (self.distribution is None and not self.note):
            raise ValueError("a position skips its joint distribution and net distribution together, with a note")

    @property
    def stakes(self) -> tuple[Fraction, ...]:
        return tuple(ln.stake for ln in self.lines)

    @property
    def staked(self) -> Fraction:
        return sum(self.stakes, Fraction(0))

    @property
    def expected_value(self) -> Fraction:
        """Expected net result of the round, in the stakes' units (a must-hit-by bonus included)."""
        rounds = sum((a * ln.expected for a, ln in zip(self.stakes, self.lines)), Fraction(0))
        return rounds + sum((m for _, m in self.mystery), Fraction(0))

    @property
    def variance(self) -> Fraction:
        """Variance of the round's net result: Σ a_i a_j Cov(i, j) (the must-hit-by bonus, paid at random,
        not included)."""
        a = self.stakes
        return sum((a[i] * a[j] * c for i, row in enumerate(self.covariance) for j, c in enumerate(row)), Fraction(0))

    @property
    def standard_deviation(self) -> float:
        return math.sqrt(float(self.variance))

    @property
    def house_edge(self) -> Fraction:
        """Expected loss per unit staked."""
        return -self.expected_value / self.staked

    def volatility_index(self, confidence: Fraction = Fraction(90, 100)) -> float:
        """z × standard deviation per unit staked (two-sided ``confidence``)."""
        return _z(confidence) * self.standard_deviation / float(self.staked)

    def ranges(self) -> list[dict[str, Any]]:
        """The player's result after n rounds: n·E ± z·σ·√n, for each horizon and confidence."""
        e, sd = float(self.expected_value), self.standard_deviation
        return [{"rounds": n, "confidence": float(c), "expected": n * e,
                 "low": n * e - _z(c) * sd * math.sqrt(n), "high": n * e + _z(c) * sd * math.sqrt(n)}
                for n in ROUNDS for c in CONFIDENCE]

    def _distribution(self) -> dict[Fraction, int]:
        if self.distribution is None:
            raise ExactOddsError(self.note)
        return self.distribution

    def to_dataframe(self) -> Any:
        """The distribution of the position's net result: one row per value."""
        return dataframe([{"net": float(v), "net_exact": v, "combinations": n,
                        "probability": n / self.total, "probability_exact": Fraction(n, self.total),
                        "shoe": self.shoe.describe()} for v, n in sorted(self._distribution().items())])

    def __repr__(self) -> str:
        names = " + ".join(f"{ln.wager.id}:{ln.paytable.id}={ln.stake}" for ln in self.lines)
        return f"<Position {names} on {self.shoe.describe()}: expected {float(self.expected_value):+.6f} a round>"

    def report(self) -> Report:
        """The stakes, their covariances, the net result and the ranges after n rounds; CSV the net result."""
        names = [f"{ln.wager.id}:{ln.paytable.id}" for ln in self.lines]
        stakes = Table((Column("wager", "Wager"), Column("stake", "Stake", "decimal", 2),
                        Column("expected_per_unit", "Expected per unit", "decimal", 6),
                        Column("house_edge", "House edge", "percent", 4, house_edge=True),
                        Column("sd_per_unit", "SD per unit", "float", 4)),
                       tuple((name, ln.stake, ln.expected, -ln.expected, math.sqrt(float(ln.variance)))
                             for name, ln in zip(names, self.lines)), title="Stakes")
        cov = Table((Column("wager", "Covariance per unit"), *(Column(n, n, "decimal", 6) for n in names)),
                    tuple((name, *row) for name, row in zip(names, self.covariance)),
                    title="Covariance of the wagers, per unit staked")
        net = Table((Column("net", "Net result", "decimal", 2), Column("probability", "Probability", "decimal", 8)),
                    tuple((v, Fraction(n, self.total)) for v, n in sorted((self.distribution or {}).items())),
                    title="Net result of the round")
        ranges = Table((Column("rounds", "Rounds", "int"), Column("confidence", "Confidence", "percent", 0),
                        *(Column(k, k.capitalize(), "float", 2) for k in ("expected", "low", "high"))),
                       tuple((r["rounds"], Fraction(r["confidence"]).limit_denominator(100), r["expected"], r["low"],
                              r["high"]) for r in self.ranges()),
                       title="The player's result after n rounds (normal approximation)")
        joint = f"{len(self.joint):,} joint outcomes" if self.joint is not None else "joint outcomes not tabulated"
        headline: dict[str, Any] = {
            "Shoe": f"{self.shoe.describe()}; {joint}",
            "Expected result per round": Figure(self.expected_value, "decimal", 6),
            f"House edge on {decimal(self.staked, 2)} staked": Figure(self.house_edge, "percent", 4, house_edge=True,
                                                                      show_exact=False),
            "Variance per round": Figure(self.variance, "decimal", 6),
            "Standard deviation": Figure(self.standard_deviation, "float", 4),
            "Volatility index (z × SD per unit staked)": ", ".join(
                f"{float(c):.0%}: {self.volatility_index(c):.4f}" for c in CONFIDENCE)}
        headline.update({f"Must-hit-by bonus {k}": f"{decimal(v, 6)} expected per round (long run; not in the variance)"
                         for k, v in self.mystery})
        tidy = Table((Column("net", kind="decimal", places=6, twin=True), Column("combinations", kind="int"),
                      Column("probability", kind="decimal", places=12, twin=True)),
                     tuple((v, n, Fraction(n, self.total)) for v, n in sorted(self.distribution.items())))\
            if self.distribution is not None else None
        return Report("position", headline=headline,
                      tables=(stakes, cov, *((net,) if self.distribution is not None else ()), ranges),
                      notes=(self.note,) if self.note else (), tidy=tidy, no_tidy=self.note, data=self.data())

    def data(self) -> dict[str, Any]:
        """The position as plain data with exact values (the JSON document)."""
        return {
            "shoe": self.shoe.to_dict(),
            "stakes": [{"wager": ln.wager.id, "paytable": ln.paytable.id, "section": ln.wager.section,
                        "stake": exact(ln.stake), "player_expected_return": exact(ln.expected),
                        "variance_per_unit": exact(ln.variance), "outcomes": ln.outcomes} for ln in self.lines],
            "total": self.total, "expected_value": exact(self.expected_value), "variance": exact(self.variance),
            "standard_deviation": self.standard_deviation, "house_edge": exact(self.house_edge),
            "covariance_per_unit": [[exact(c) for c in row] for row in self.covariance],
            "mystery": [{"configuration": k, "expected_dollars_per_round": exact(v)} for k, v in self.mystery],
            "distribution": None if self.distribution is None else
            [{"net": exact(v), "combinations": n} for v, n in sorted(self.distribution.items())],
            "joint": None if self.joint is None else
            [{"outcomes": list(k), "combinations": n} for k, n in sorted(self.joint.items())],
            "note": self.note or None,
            "volatility_index": {f"{float(c):.0%}": self.volatility_index(c) for c in CONFIDENCE},
            "ranges": self.ranges()}



def _z(confidence: Fraction) -> float:
    return NormalDist().inv_cdf(0.5 + float(confidence) / 2)


def parse_stake(text: str, *, where: str = "stake") -> tuple[str, str | None, Fraction]:
    """``WAGER[:PAYTABLE][=STAKE]`` → (wager, paytable or None, stake; 1 if not given).

    >>> parse_stake("dragon-bonus-player:A=5")
    ('dragon-bonus-player', 'A', Fraction(5, 1))
    """
    spec, sep, raw = text.strip().rpartition("=") if "=" in text else (text.strip(), "", "1")
    wid, colon, table = spec.partition(":")
    if not wid:
        raise ExactOddsError(f"{where} {text!r}: write WAGER[:PAYTABLE][=STAKE], e.g. banker:standard=25")

    return wid.strip(), (table.strip() or None) if colon else None, parse_dollars(raw, where=f"{where} {text!r}")


def _declared(item: tuple[tuple[int, ...], int]) -> tuple[bool, int]:
    """A wager's outcomes in the order it declares them, the loss (-1) last, whichever route counted them."""
    return item[0][0] < 0, item[0][0]


def position(
    shoe: Shoe,
    stakes: Iterable[tuple[Wager | str, Paytable | str | None, Fraction | int] | str],
    *,
    catalogue: Catalogue | None = None,
    meters: dict[str, Fraction] | None = None,
    mystery: Sequence[str] = (),
) -> Position:
    """The exact joint distribution of several wagers with stakes on one round off ``shoe``.

    A progressive's meters are read at ``meters`` (units of its wager). ``mystery``
    adds the long-run expected value of must-hit-by configurations (§631b.6) per
    round, for a position that qualifies for them.
    """

    chosen = [parse_stake(x) if isinstance(x, str) else x for x in stakes]   # 'WAGER[:PAYTABLE][=STAKE]' too
    if not chosen:
        raise ExactOddsError("a position needs at least one wager")
    pairs = resolve_pairs([(w, t if t is not None else _first(w, catalogue)) for w, t, _ in chosen], catalogue)
    staked: set[tuple[str, str]] = set()
    for w, t in pairs:                                  # two stakes on one bet would be added silently
        if (w.id, t.id) in staked:
            raise ExactOddsError(f"stake {w.id}:{t.id} given twice: give each wager and paytable once")
        staked.add((w.id, t.id))
    check_meter_names(meters or {}, (t for _, t in pairs))
    amounts = [exact_number(a, "a stake") for _, _, a in chosen]
    if any(a <= 0 for a in amounts):
        raise ExactOddsError("every stake must be above 0")
    door = Door(shoe)
    nets = [[_number(t.pays[o.id].net, w, meters) for o in w.outcomes] + [Fraction(-1)] for w, t in pairs]
    ids = [[o.id for o in w.outcomes] + [LOSE] for w, _ in pairs]
    total = door.total
    tables = _Tables(pairs, door)
    k_wagers = len(pairs)
    own = [tables.joint((i,)) for i in range(k_wagers)]
    means = [sum((nets[i][k] * n for (k,), n in own[i].items()), Fraction(0)) / total for i in range(k_wagers)]
    outcomes = [{ids[i][k]: n for (k,), n in sorted(own[i].items(), key=_declared)} for i in range(k_wagers)]
    second = [[Fraction(0)] * k_wagers for _ in range(k_wagers)]
    for i in range(k_wagers):
        second[i][i] = sum((nets[i][k] ** 2 * n for (k,), n in own[i].items()), Fraction(0)) / total
        for j in range(i + 1, k_wagers):
            both = tables.joint((i, j))
            second[i][j] = second[j][i] = sum((nets[i][a] * nets[j][b] * n for (a, b), n in both.items()),
                                              Fraction(0)) / total
    covariance = tuple(tuple(second[i][j] - means[i] * means[j] for j in range(k_wagers)) for i in range(k_wagers))
    lines = tuple(PositionLine(w, t, a, outcomes[i], means[i], covariance[i][i])
                  for i, ((w, t), a) in enumerate(zip(pairs, amounts)))
    everything = tuple(range(k_wagers))
    rows = tables.size(everything)
    walked = tables.walked(everything)
    if walked and k_wagers > 1:                         # the walk counts them all together where it can read them
        try:
            joint = tables.joint(everything)
        except TooLarge as refused:
            walked, note = False, f"Net result not tabulated: the walk of these {k_wagers} wagers together is refused " \
                                  f"({refused}); the expected value, variance and covariances are exact, from the " \
                                  "joint counts of every two wagers"
            return Position(shoe, lines, total, None, None, covariance, _mystery(mystery, pairs, amounts), note=note)
    elif rows is None or rows > JOINT_ROWS:
        size = "whose size is not known before compiling it" if rows is None else f"of {rows:,} rows"
        return Position(shoe, lines, total, None, None, covariance, _mystery(mystery, pairs, amounts),
                        note=f"Net result not tabulated: it needs one table over every feature these "
                             f"{k_wagers} wagers read together, {size} (the bound: at most {JOINT_ROWS:,} rows, "
                             "of a table already read for two of them or of the initial cards); the expected value, "
                             "variance and covariances are exact, from the tables of every two wagers")
    if not walked:
        joint = tables.joint(everything)
    distribution: dict[Fraction, int] = {}
    for key, n in joint.items():
        v = sum((a * nets[i][k] for i, (a, k) in enumerate(zip(amounts, key))), Fraction(0))
        distribution[v] = distribution.get(v, 0) + n
    named = {tuple(ids[i][k] for i, k in enumerate(key)): n for key, n in joint.items()}
    return Position(shoe, lines, total, named, distribution, covariance, _mystery(mystery, pairs, amounts))


#: The most rows the table over every feature of a position may have for its net result to be tabulated.
JOINT_ROWS = 1_000_000


def joint_counts(door: Door, pairs: Sequence[tuple[Wager, Paytable]]) -> dict[tuple[int, ...], int]:
    """Sequences per tuple of the pairs' outcome indices (-1 a loss) on one round off ``door``'s shoe: off one
    table of every feature they read where the tables price them all, else walked together (what a position
    reads, and the states of what a player knows beside a wager)."""
    return _Tables(pairs, door).joint(tuple(range(len(pairs))))


class _Tables:
    """Joint counts of the results of some of a position's wagers, asked through the door (:class:`Door`): each
    group read off the one table of the features they read together where the tables price them all (compiled
    only for the groups asked for), else walked together."""

    def __init__(self, pairs: Sequence[tuple[Wager, Paytable]], door: Door):
        self.pairs, self.door = pairs, door
        self.read: set[tuple[Any, ...]] = set()          # signatures compiled for this position
        self.assigned: dict[tuple[int, tuple[Any, ...]], list[int]] = {}
        self._walked: dict[int, bool] = {}

    def walked(self, group: tuple[int, ...]) -> bool:
        """Whether some wager of ``group`` is priced by the walk (so the group is walked together)."""
        for i in group:
            if i not in self._walked:
                w, t = self.pairs[i]
                if self.door.route_of(w) != "walk":
                    self.door.price(w, t)                  # a table refused by its estimate: walked from now on
                self._walked[i] = self.door.route_of(w) == "walk"
            if self._walked[i]:
                return True
        return False

    def signature(self, group: tuple[int, ...]) -> tuple[Any, ...]:
        features = frozenset().union(*(self.pairs[i][0].features for i in group))
        texts = frozenset().union(*(self.pairs[i][0].texts for i in group))
        try:
            return signature_for(features, texts=texts, wagers=[self.pairs[i][0] for i in group])
        except ExactOddsError as exc:
            names = " and ".join(repr(self.pairs[i][0].id) for i in group)
            raise ExactOddsError(f"these wagers cannot be read off one table ({names}): {exc}") from None

    def size(self, group: tuple[int, ...]) -> int | None:
        """Rows of the group's table, known without compiling it: a table already read, or the
        initial cards' labels; None otherwise."""
        try:
            signature = self.signature(group)
        except ExactOddsError:
            return None
        if signature in self.read:
            return len(feature_table(signature))
        if signature[0] == "initial":

            return len(_labels(signature[1])[1]) * len(_labels(signature[2])[1])
        return None

    def joint(self, group: tuple[int, ...]) -> dict[tuple[int, ...], int]:
        """(outcome index of each wager of ``group``, -1 a loss) -> combinations."""
        pairs = [self.pairs[i] for i in group]
        if len(group) == 1 and self.walked(group):         # one wager: its own counts, as the door priced them
            return {(k,): n for k, n in self.door.outcome_counts(*pairs[0]).items()}
        return self.door.joint(pairs, tables=None if self.walked(group) else lambda: self._tabulated(group))

    def _tabulated(self, group: tuple[int, ...]) -> dict[tuple[int, ...], int]:
        signature = self.signature(group)
        table = feature_table(signature)
        self.read.add(signature)
        counts = counts_for(signature, self.door.tables, what="this position").tolist()
        assigned = []
        for i in group:
            if (i, signature) not in self.assigned:
                w, t = self.pairs[i]
                masks = np.stack([o.condition.mask(table.columns, len(table), w.parameters) for o in w.outcomes])
                self.assigned[i, signature] = assign_outcomes(w, t, masks).tolist()
            assigned.append(self.assigned[i, signature])
        out: dict[tuple[int, ...], int] = {}
        for key, n in zip(zip(*assigned), counts):
            if n:
                out[key] = out.get(key, 0) + int(n)
        if sum(out.values()) != self.door.total:                 # an invariant of the counting
            raise InconsistentCounts("the joint counts do not add up to the shoe's sequences")
        return out


def _first(w: Wager | str, catalogue: Catalogue | None) -> str:

    wager = (catalogue if catalogue is not None else load_catalogue())[w] if isinstance(w, str) else w
    return next(iter(wager.paytables))


def _number(net: Any, w: Wager, meters: dict[str, Fraction] | None) -> Fraction:
    if isinstance(net, Fraction):
        return net
    missing = [m for m in net.meters if m not in (meters or {})]
    if missing:
        raise ExactOddsError(f"wager {w.id!r} pays a progressive meter: give --meter {missing[0]}=UNITS "
                             "(units of its wager)")
    return Fraction(net.at(meters))


def _mystery(configurations: Sequence[str], pairs: Sequence[tuple[Wager, Paytable]],
             amounts: Sequence[Fraction]) -> tuple[tuple[str, Fraction], ...]:
    """Expected dollars per round of each must-hit-by configuration the position qualifies for (§631b.6(c)(1))."""
    if not configurations:
        return ()

    specs = load_meters()[1]
    out = []
    for k, cid in enumerate(configurations):
        if cid not in specs:
            raise ExactOddsError(f"--mystery: unknown configuration {cid!r}{did_you_mean(cid, specs)} "
                                 "(see 'exactodds mystery')")
        if cid in configurations[:k]:
            raise ExactOddsError(f"--mystery {cid} given twice (a position qualifies for a bonus once)")
        spec = specs[cid]
        rides_on = "heavenly-9-progressive" if spec.section.startswith("631b.6") else "royal-9-progressive"
        stakes = [a for (w, _), a in zip(pairs, amounts) if w.id == rides_on]
        if not stakes:
            raise ExactOddsError(f"--mystery {cid}: the position has no qualifying wager for §{spec.section}")
        if stakes[0] != spec.wager:
            raise ExactOddsError(f"--mystery {cid}: the configuration is for a ${spec.wager} wager; "
                                 f"the position stakes {stakes[0]}")
        r = mystery_return(spec)
        out.append((cid, r.return_per_unit * spec.wager))
    return tuple(out)
