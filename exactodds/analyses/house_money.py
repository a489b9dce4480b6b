"""House Money's let-it-ride option, §627a.8(d)(1)(i)–(ii), priced exactly.

A winning House Money wager (§627a.7(a)(7): a pair in either hand's first two
cards, 3 to 1; both, 15 to 1, §627a.12(h)) is settled after the four initial
cards are shown and before any third card (§627a.8(d)). The player may then add
the payout — all of it, or the portion the casino's Rules Submission specifies —
to the original wager on the Player's or Banker's Hand, where it is settled with
that wager. The player decides having seen the four initial cards: settling
House Money needs both hands' pairs to be known, so under either dealing option
of §627a.8(c) both hands are face up by then.

Priced here per unit of House Money: *never* letting it ride (the wager as the
catalogue prices it), *always*, and *optimally* — riding exactly when the main
wager's exact expected result, given the four cards seen and the rest of the
shoe, is positive. The optimal value is at least the other two, exactly.

>>> hm = house_money(Shoe.decks(8), bet="player")
>>> hm.optimal >= max(hm.never, hm.always), f"{float(hm.never):.4%}", f"{float(hm.optimal):.4%}"
(True, '-35.7764%', '-23.9721%')
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from exactodds.errors import ExactOddsError, exact_number
from exactodds.game.cards import Rank
from exactodds.game.rules import play
from exactodds.game.shoe import Shoe
from exactodds.render.tables import Column, Report, Table, dataframe, exact, percent, render_report
from exactodds.wagers.catalogue import Catalogue, Wager, load_catalogue
from exactodds.wagers.outcomes import point_row

__all__ = ["HouseMoneyOption", "house_money", "options_report", "render_options", "BETS"]

_POINTS = tuple(r.points for r in Rank)

#: The main wagers a House Money payout can ride on (§627a.8(d)(1)(i)), by catalogue id.
BETS = {"player": "player", "banker": "banker"}


@dataclass(frozen=True)
class Situation:
    """Four initial ranks (Player 1, Banker 1, Player 2, Banker 2, the deal order of §627a.8(c))."""

    ranks: tuple[int, int, int, int]        # 0 = ace ... 12 = king
    weight: int                              # ordered ways to deal them
    payout: int                              # House Money payout per unit: 15, 3 (or 0: it lost)
    main: Fraction                           # the main wager's expected net, given these four cards

    @property
    def totals(self) -> tuple[int, int]:
        pts = [Rank(r + 1).points for r in self.ranks]
        return (pts[0] + pts[2]) % 10, (pts[1] + pts[3]) % 10


@dataclass(frozen=True)
class HouseMoneyOption:
    """The let-it-ride option of one House Money bettor, exact."""

    shoe: Shoe
    bet: str                                 # 'player' or 'banker'
    portion: Fraction                        # of the payout that may ride (§627a.8(d)(1)(i))
    situations: tuple[Situation, ...]        # every winning deal of four initial ranks
    total: int                               # ordered ways to deal four cards
    house_money_return: Fraction             # the wager alone, per unit

    def _value(self, rule: Any) -> Fraction:
        extra = sum((Fraction(s.weight) * s.payout * self.portion * s.main for s in self.situations if rule(s)),
                    Fraction(0))
        return self.house_money_return + extra / self.total

    @property
    def never(self) -> Fraction:
        """Return per unit of House Money, never letting the payout ride."""
        return self.house_money_return

    @property
    def always(self) -> Fraction:
        return self._value(lambda s: True)

    @property
    def optimal(self) -> Fraction:
        """Riding exactly when the main wager's expected result, given the four cards, is positive."""
        return self._value(lambda s: s.main > 0)

    @property
    def option_value(self) -> Fraction:
        """What optimal use adds per unit of House Money."""
        return self.optimal - self.never

    @property
    def ride_probability(self) -> Fraction:
        """The share of rounds in which an optimal player lets it ride."""
        return Fraction(sum(s.weight for s in self.situations if s.main > 0), self.total)

    def per_main_unit(self, ratio: Fraction) -> Fraction:
        """The option's value per unit of the main wager, when the main wager is ``ratio`` × House Money."""
        return self.option_value / ratio

    def decisions(self) -> dict[tuple[int, int], str]:
        """(Player two-card total, Banker two-card total) → 'ride', 'keep' or 'depends' (on the ranks)."""
        cells: dict[tuple[int, int], set[bool]] = {}
        for s in self.situations:
            cells.setdefault(s.totals, set()).add(s.main > 0)
        return {k: "depends" if len(v) > 1 else "ride" if True in v else "keep" for k, v in sorted(cells.items())}

    def to_dataframe(self) -> Any:
        return dataframe([{"player_1": str(Rank(s.ranks[0] + 1)), "banker_1": str(Rank(s.ranks[1] + 1)),
                        "player_2": str(Rank(s.ranks[2] + 1)), "banker_2": str(Rank(s.ranks[3] + 1)),
                        "player_total": s.totals[0], "banker_total": s.totals[1], "payout": s.payout,
                        "probability": s.weight / self.total, "probability_exact": Fraction(s.weight, self.total),
                        "main_expected": float(s.main),
                        "main_expected_exact": s.main, "ride": s.main > 0, "bet": self.bet,
                        "shoe": self.shoe.describe()} for s in self.situations])

    def __repr__(self) -> str:
        return (f"<HouseMoneyOption {self.bet} bettor on {self.shoe.describe()}: never {float(self.never):+.4%}, "
                f"optimal {float(self.optimal):+.4%}>")

    def report(self, *, ratios: Sequence[Fraction] = (Fraction(1), Fraction(5), Fraction(10))) -> Report:
        return options_report([self], ratios=ratios)

    def render(self, fmt: str, *, ratios: Sequence[Fraction] = (Fraction(1), Fraction(5), Fraction(10))) -> str:
        return render_report(self.report(ratios=ratios), fmt)

    def __str__(self) -> str:
        return self.render("text")

    def _repr_html_(self) -> str:
        return self.render("html")


def options_report(options: Sequence[HouseMoneyOption], *,
                   ratios: Sequence[Fraction] = (Fraction(1), Fraction(5), Fraction(10))) -> Report:
    """Never / always / optimal for each bettor, the value per unit of the main wager, the decision tables."""
    if not options:
        raise ExactOddsError("options_report: give at least one House Money option")
    for r in ratios:
        if not exact_number(r, "a ratio of the main wager to House Money") > 0:
            raise ExactOddsError(f"a ratio of the main wager to House Money must be above 0, got {r!r}")
    head = (Column("bet", "Main wager"), *(Column(k, label, "percent", 4) for k, label in (
        ("never", "Never"), ("always", "Always"), ("optimal", "Optimal"), ("option_value", "Option value"))),
        Column("ride_probability", "Rides in", "percent", 3),
        *(Column(f"per_main_unit_{r}", f"Per unit of main, main = {r}×HM", "percent", 4) for r in ratios))
    rows = tuple((o.bet.capitalize(), o.never, o.always, o.optimal, o.option_value, o.ride_probability,
                  *(o.per_main_unit(r) for r in ratios)) for o in options)
    shoe = options[0].shoe
    intro = (f"House Money let-it-ride (§627a.8(d)(1)), {shoe.describe()}: return per unit of House Money when "
             f"the payout{'' if options[0].portion == 1 else f' ({percent(options[0].portion, 0)} of it)'} "
             "never rides, always rides, or rides when the four initial cards make the main wager favourable")
    tables = [Table(head, rows, title=intro)]
    dhead = (Column("player_total", "Player \\ Banker"), *(Column(str(b), str(b), align="right") for b in range(10)))
    for o in options:
        table = o.decisions()
        drows = tuple((str(p), *({"ride": "R", "keep": ".", "depends": "~"}.get(table.get((p, b), ""), " ")
                                 for b in range(10))) for p in range(10))
        tables.append(Table(dhead, drows, title=f"{o.bet.capitalize()} bettor: let it ride (R), keep it (.), depends "
                                                "on the ranks (~), by the two-card totals; blank: no House Money win "
                                                "reaches it"))
    tidy = Table((Column("bet"), Column("portion", kind="exact"),
                  *(Column(k, kind="decimal", places=8) for k in ("never", "always", "optimal", "option_value")),
                  *(Column(f"{k}_exact", kind="exact") for k in ("never", "always", "optimal")),
                  Column("ride_probability", kind="exact")),
                 tuple((o.bet, o.portion, o.never, o.always, o.optimal, o.option_value, o.never, o.always, o.optimal,
                        o.ride_probability) for o in options))
    data = {"section": "627a.8(d)(1)(i)-(ii), 627a.7(a)(7), 627a.12(h)", "shoe": shoe.to_dict(),
            "bettors": [{"bet": o.bet, "portion": exact(o.portion), "never": exact(o.never),
                         "always": exact(o.always), "optimal": exact(o.optimal),
                         "option_value": exact(o.option_value), "ride_probability": exact(o.ride_probability),
                         "per_main_unit": {str(r): exact(o.per_main_unit(r)) for r in ratios},
                         "decisions": [{"player_total": p, "banker_total": b, "decision": d}
                                       for (p, b), d in o.decisions().items()]} for o in options]}
    return Report("house-money-option", tables=tuple(tables), tidy=tidy, data=data)


def render_options(options: Sequence[HouseMoneyOption], fmt: str, *,
                   ratios: Sequence[Fraction] = (Fraction(1), Fraction(5), Fraction(10))) -> str:
    """:func:`options_report` in ``fmt``."""
    return render_report(options_report(options, ratios=ratios), fmt)


def house_money(shoe: Shoe | None = None, *, bet: str = "player", portion: Fraction = Fraction(1),
                catalogue: Catalogue | None = None) -> HouseMoneyOption:
    """The let-it-ride option of a House Money bettor whose main wager is ``bet`` ('player' or 'banker')."""
    shoe = shoe if shoe is not None else Shoe.decks(8)
    if bet not in BETS:
        raise ExactOddsError(f"--bet must be 'player' or 'banker', got {bet!r}")
    if not 0 < exact_number(portion, "--portion") <= 1:
        raise ExactOddsError(f"--portion must be above 0 and at most 1 (all of the payout), got {portion}")
    cat = catalogue if catalogue is not None else load_catalogue()
    hm = cat["house-money"]
    table = hm.paytable("standard")
    pays = {o.id: table.pays[o.id].net for o in hm.outcomes}
    main = cat[BETS[bet]]
    main_table = next(iter(main.paytables.values()))
    nets = {o.id: main_table.pays[o.id].net for o in main.outcomes if main_table.pays[o.id].offered}
    ranks = list(shoe.rank_counts)
    n = shoe.size
    total = math.perm(n, 4)
    situations = []
    won = 0
    rides = _MainWager(main, main_table, nets, {}, {})
    for r1 in range(13):
        for r2 in range(13):
            for r3 in range(13):
                for r4 in range(13):
                    player_pair, banker_pair = r1 == r3, r2 == r4
                    if not (player_pair or banker_pair):
                        continue                # House Money lost: nothing to let ride
                    weight = _ways(ranks, (r1, r2, r3, r4))
                    if not weight:
                        continue
                    payout = pays["both_pairs"] if player_pair and banker_pair else pays["one_pair"]
                    won += weight * int(payout + 1)             # the payout and the wager returned
                    left = list(ranks)
                    for r in (r1, r2, r3, r4):
                        left[r] -= 1
                    values = (_POINTS[r1], _POINTS[r2], _POINTS[r3], _POINTS[r4])
                    situations.append(Situation((r1, r2, r3, r4), weight, int(payout),
                                                rides.given(values, _value_counts(left))))
    house_money_return = Fraction(won, total) - 1
    return HouseMoneyOption(shoe, bet, Fraction(portion), tuple(situations), total, house_money_return)


def _ways(counts: Sequence[int], ranks: Sequence[int]) -> int:
    """Ordered ways to deal ``ranks`` off ``counts`` (a falling factorial per rank)."""
    left = list(counts)
    ways = 1
    for r in ranks:
        ways *= left[r]
        left[r] -= 1
        if ways <= 0:
            return 0
    return ways


def _value_counts(rank_counts: Sequence[int]) -> tuple[int, ...]:
    return (sum(rank_counts[9:13]),) + tuple(rank_counts[0:9])


@functools.lru_cache(maxsize=None)
def _outcome(values: tuple[int, ...]) -> tuple[int, int, int, int]:
    r = play(values)
    return r.player_total, r.banker_total, len(r.player_cards), len(r.banker_cards)


@dataclass
class _MainWager:
    """The main wager's exact expected net given the four initial cards, memoized."""

    wager: Wager
    table: Any
    nets: dict[str, Fraction]
    expected: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction]
    settled: dict[tuple[int, int, int, int], str | None]

    @property
    def denominator(self) -> int:
        return math.lcm(*(n.denominator for n in self.nets.values()))

    def given(self, first4: tuple[int, ...], left: tuple[int, ...]) -> Fraction:
        """Over the 5th and 6th cards, in the 6-card convention: every ordered pair of the
        remaining cards (by value), used or not."""
        key = (first4, left)
        if key in self.expected:
            return self.expected[key]
        if sum(left) < 2:
            raise ExactOddsError("the shoe needs at least six cards")
        total = 0
        acc = 0                                   # in units of 1/den: integers, one Fraction at the end
        den = self.denominator
        for v5 in range(10):
            if not left[v5]:
                continue
            for v6 in range(10):
                w = left[v5] * (left[v6] - (v5 == v6))
                if w <= 0:
                    continue
                point = _outcome(first4 + (v5, v6))
                if point not in self.settled:
                    self.settled[point] = self.wager.settle_row(point_row(point), self.table)
                outcome = self.settled[point]
                net = self.nets[outcome] if outcome is not None else Fraction(-1)
                acc += w * (net.numerator * (den // net.denominator))
                total += w
        self.expected[key] = Fraction(acc, den * total)
        return self.expected[key]
