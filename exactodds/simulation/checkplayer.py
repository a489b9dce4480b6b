"""Detection from a player's bets: do they follow the exact edge each bet had when it was placed?

A surveillance log is a file of records (:mod:`exactodds.simulation.recordio`: CSV, JSON Lines or Parquet),
one per round dealt, bet on or not: the round's cards (``player1`` ... ``banker3``), its shoe (``shoe``), its
number in the shoe where the log keeps one (``round``: 1, 2, 3 ... with no gap), and one column per wager
watched, ``WAGER:PAYTABLE``, holding what the player bet on it that round (an amount; empty or 0 for no bet).
A shoe's rounds are written together, in the order dealt.

Before each round the player may know the cards of the shoe's rounds before it (a counter), and, with a class
split (``sorted_cards``, readable backs: :mod:`exactodds.analyses.advantage`), the class of the round's first
card (627a.9(a): the Player's first). Each bet's exact edge is the wager's expected return off the shoe less
those cards (the burn card and the cards burned after it are not in the log: unseen, they change nothing, as
every unseen card is equally likely to be any card not seen), given the first card's class where a split is
named. Then:

* the expected win of the bets, exactly, against a *flat bettor of the same action* (each wager's stake of a
  shoe spread evenly over its rounds): the advantage the pattern of the bets gains;
* a permutation test: the bets of a shoe moved at random among its rounds (each round's bets together), the
  statistic Σ amount × edge recomputed; the p-value is the share of permutations (and the log itself) at least
  as large. A bettor whose bets do not depend on what he knows is as likely to place them at any round of the
  shoe, so the p-value is exact under that null whatever the shoes dealt (the edges are exact; the statistic is
  summed in floating point, a permutation within a relative 10^-9 of the log's counted as at least as large);
* how the bet size follows the edge (Pearson's r over every round and wager watched) and the share of the
  action on the round's best wager, beside what the same bets at random rounds would give.

>>> from fractions import Fraction as F
>>> _flagged(F(1, 1000), F(1, 100)), _flagged(F(2, 100), F(1, 100))
(True, False)
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from exactodds.analyses.advantage import class_condition, sorted_ranks
from exactodds.analyses.door import returns_many, value_moments
from exactodds.analyses.given import _asked, condition
from exactodds.errors import ExactOddsError, InconsistentCounts
from exactodds.game.cards import Card
from exactodds.game.shoe import CARDS_PER_ROUND, Shoe
from exactodds.render.tables import Column, Figure, Report, Table, counted, render_report
from exactodds.simulation.explain import rule_broken
from exactodds.simulation.recordio import ROUND_COLUMN, SHOE_COLUMN, STAKE_COLUMN, Chunk, read_ahead, read_chunks
from exactodds.simulation.rounds import POINTS, invalid_rounds
from exactodds.wagers.catalogue import Catalogue, Paytable, Wager, load_catalogue

__all__ = ["PlayerCheck", "WagerFigures", "check_player", "round_edges", "bet_against_edge", "PERMUTATIONS", "ALPHA"]

#: The largest amount one bet of the log may be (a bound, so that every statistic is a finite float).
MAX_AMOUNT = 10 ** 12
#: Permutations of each shoe's rounds (the p-value's resolution is 1 / (PERMUTATIONS + 1)).
PERMUTATIONS = 999
#: The level at which a player is flagged: p-value <= ALPHA.
ALPHA = Fraction(1, 100)
#: Rounds of several shoes priced at once (their edges are one batch of the tables).
_BLOCK_ROUNDS = 16_384
#: Shoes shown by their expected win.
_TOP_SHOES = 5
#: Bets kept (a uniform sample) for the plot of bet against edge.
_PLOTTED = 20_000
#: A permutation's statistic within this share of the log's counts as at least as large (floating point).
_TIE = 1e-9


def _flagged(p: Fraction, alpha: Fraction) -> bool:
    """Flagged where the permutation p-value is at most the level: the test's chance of flagging a bettor whose
    bets ignore what he knows is then at most ``alpha`` (whole permutations, (PERMUTATIONS + 1) · alpha whole)."""
    return p <= alpha


@dataclass
class _Shoe:
    """One shoe of the log as read: its rounds' cards and each watched wager's amount bet."""

    name: str
    source: str
    lines: list[int]
    rows: list[np.ndarray]                  # per round, its 6 cards: Player 1-3, Banker 1-3 (-1: no third card)
    amounts: list[list[Fraction | int]]     # per round, per wager watched

    @property
    def cards(self) -> np.ndarray:
        """(rounds, 6) card indices."""
        return np.array(self.rows, dtype=np.int16).reshape(-1, 6)


@dataclass(frozen=True)
class WagerFigures:
    """One watched wager: its bets, its action and the exact expected win of the bets, and of the same action
    bet flat."""

    pair: str
    bets: int
    action: Fraction
    expected_win: Fraction
    flat_win: Fraction


@dataclass(frozen=True)
class PlayerCheck:
    """What :func:`check_player` found (exact figures as Fractions)."""

    source: str
    decks: int
    knows: str                               # what the bets are checked against, in words
    pairs: tuple[str, ...]
    shoes: int
    rounds: int
    wagers: tuple[WagerFigures, ...]
    p_value: Fraction
    permutations: int
    alpha: Fraction
    correlation: float | None                # Pearson's r, amount against edge, over rounds x wagers watched
    best_share: float | None                 # share of the action on the round's best wager
    best_share_flat: float | None            # the same bets at random rounds of their shoes
    top_shoes: tuple[tuple[str, Fraction, Fraction], ...]   # (shoe, action, expected win), the largest wins
    plotted: tuple[tuple[float, float, int], ...] = field(default=(), repr=False)   # (edge, amount, wager)

    @property
    def action(self) -> Fraction:
        return sum((w.action for w in self.wagers), Fraction(0))

    @property
    def expected_win(self) -> Fraction:
        return sum((w.expected_win for w in self.wagers), Fraction(0))

    @property
    def flat_win(self) -> Fraction:
        return sum((w.flat_win for w in self.wagers), Fraction(0))

    @property
    def advantage(self) -> Fraction | None:
        """The bets' expected win per unit of action (None: no bet)."""
        return self.expected_win / self.action if self.action else None

    @property
    def flat_advantage(self) -> Fraction | None:
        return self.flat_win / self.action if self.action else None

    @property
    def flagged(self) -> bool:
        return _flagged(self.p_value, self.alpha)

    def verdict(self) -> str:
        """One line for a surveillance manager."""
        if not self.action:
            return f"NOT FLAGGED: no bet in {counted(self.shoes, 'shoe')} of {self.source}"
        assert self.advantage is not None and self.flat_advantage is not None
        gain = (f"expected {float(self.advantage):+.3%} of the action against {float(self.flat_advantage):+.3%} for "
                "the same action bet flat")
        test = (f"p = {float(self.p_value):.4f} over {self.permutations:,} permutations of the rounds within "
                f"{counted(self.shoes, 'shoe')}, {self.knows}")
        if self.flagged:
            return f"FLAGGED at {float(self.alpha):.2%}: the bets follow the exact edge ({test}); {gain}"
        return f"NOT FLAGGED at {float(self.alpha):.2%}: the bets do not follow the edge more than chance ({test}); {gain}"

    def report(self) -> Report:
        def ex(x: Any) -> Figure:
            return Figure(x, "percent", 4, signed=True, show_exact=False)
        headline: dict[str, Any] = {
            "Log": self.source, "Shoe": f"{self.decks} decks, less the cards of the shoe's rounds before each bet",
            "Checked against": self.knows, "Shoes": f"{self.shoes:,}", "Rounds": f"{self.rounds:,}",
            "Bets": f"{sum(w.bets for w in self.wagers):,}", "Action": Figure(self.action, "decimal", 2),
        }
        if self.action:
            headline |= {"Expected win of the bets": Figure(self.expected_win, "decimal", 4, signed=True,
                                                            show_exact=False, after="(exact in --format json)"),
                         "Per unit of action": ex(self.advantage),
                         "The same action bet flat": ex(self.flat_advantage),
                         "Gained from the pattern": ex(self.advantage - self.flat_advantage),  # type: ignore[operator]
                         "Permutation p-value": Figure(self.p_value, "decimal", 4)}
        if self.correlation is not None:
            headline["Bet size against edge (Pearson r within each wager)"] = f"{self.correlation:+.3f}"
        if self.best_share is not None and self.best_share_flat is not None:
            headline["Action on the round's best wager"] = (f"{self.best_share:.1%} (the same bets at random rounds: "
                                                           f"{self.best_share_flat:.1%})")
        headline["Verdict"] = self.verdict()
        per = Table((Column("wager", "Wager"), Column("bets", "Bets", "int"), Column("action", "Action", "decimal", 2),
                     Column("win", "Expected win", "decimal", 4, twin=True, signed=True),
                     Column("advantage", "Per unit", "percent", 4, twin=True, signed=True),
                     Column("flat", "Bet flat, per unit", "percent", 4, twin=True, signed=True)),
                    tuple((w.pair, w.bets, w.action, w.expected_win,
                           w.expected_win / w.action if w.action else "", w.flat_win / w.action if w.action else "")
                          for w in self.wagers), title="Each wager watched")
        tops = Table((Column("shoe", "Shoe"), Column("action", "Action", "decimal", 2),
                      Column("win", "Expected win", "decimal", 4, twin=True, signed=True)),
                     self.top_shoes, title="The shoes of the largest expected win")
        return Report("check-player", headline=headline, tables=(per, tops), data=self.to_dict)

    def render(self, fmt: str) -> str:
        return render_report(self.report(), fmt)

    def to_dict(self) -> dict[str, Any]:
        def ex(x: Fraction | None) -> str | None:
            return None if x is None else f"{x.numerator}/{x.denominator}"
        return {"source": self.source, "decks": self.decks, "knows": self.knows, "wagers": list(self.pairs),
                "shoes": self.shoes, "rounds": self.rounds, "action": ex(self.action),
                "expected_win": ex(self.expected_win), "advantage": ex(self.advantage),
                "flat_advantage": ex(self.flat_advantage),
                "advantage_float": None if self.advantage is None else float(self.advantage),
                "p_value": ex(self.p_value), "p_value_float": float(self.p_value), "permutations": self.permutations,
                "alpha": ex(self.alpha), "flagged": self.flagged, "verdict": self.verdict(),
                "correlation": self.correlation, "best_share": self.best_share,
                "best_share_flat": self.best_share_flat,
                "per_wager": [{"wager": w.pair, "bets": w.bets, "action": ex(w.action),
                               "expected_win": ex(w.expected_win), "flat_win": ex(w.flat_win)} for w in self.wagers],
                "top_shoes": [{"shoe": s, "action": ex(a), "expected_win": ex(x)} for s, a, x in self.top_shoes]}


# -- reading the log -----------------------------------------------------------------------------------------------

def _amount(text: Any, where: str) -> Fraction | int:
    """An amount bet, exactly: an int where whole (the sums of whole amounts stay in integers)."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return 0
    try:
        value = Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise ExactOddsError(f"{where}: {text!r} is not an amount (a number such as 25 or 2.50)") from None
    if value < 0:
        raise ExactOddsError(f"{where}: an amount bet is at least 0, got {text!r}")
    if value > MAX_AMOUNT or value.denominator > 10 ** 6:
        raise ExactOddsError(f"{where}: {text!r} is not an amount a table takes (at most {MAX_AMOUNT:,}, in at "
                             "most six decimal places)")
    return value.numerator if value.denominator == 1 else value


def _pairs_of(chunk: Chunk, cat: Catalogue, source: str) -> list[tuple[str, Wager, Paytable]]:
    out = []
    for name in chunk.settled:
        if name in (SHOE_COLUMN, ROUND_COLUMN):
            continue
        if name == STAKE_COLUMN:
            raise ExactOddsError(f"{source}: column {STAKE_COLUMN!r}: a surveillance log gives each wager's amount in "
                                 "its WAGER:PAYTABLE column")
        wid, _, table = name.partition(":")
        if wid not in cat or table not in cat[wid].paytables:
            raise ExactOddsError(f"{source}: column {name!r}: no such wager:paytable (see 'exactodds list')")
        wager, paytable = cat[wid], cat[wid].paytable(table)
        if any(paytable.pays[o.id].symbolic for o in wager.outcomes if paytable.pays[o.id].offered):
            raise ExactOddsError(f"{source}: column {name!r}: the wager pays a progressive meter, so a bet's edge has "
                                 "no one value to check it against (see 'exactodds progressive')")
        out.append((name, wager, paytable))
    if not out:
        raise ExactOddsError(f"{source}: no WAGER:PAYTABLE column: a surveillance log holds the amount bet on each "
                             "wager watched, e.g. a column banker:standard")
    if SHOE_COLUMN not in chunk.settled:
        raise ExactOddsError(f"{source}: no {SHOE_COLUMN!r} column: each round names its shoe, so that the cards "
                             "before each bet are known")
    return out


def _shoes_of(path: str, fmt: str | None, cat: Catalogue, decks: int,
              pairs_seen: list[list[tuple[str, Wager, Paytable]]]) -> Iterator[_Shoe]:
    """The log's shoes, one at a time (a shoe's rounds may span chunks; memory holds one chunk and one shoe)."""
    finished: set[str] = set()
    current: _Shoe | None = None
    columns: list[str] | None = None
    last_round: int | None = None
    limit = 52 * decks // 4 + 1                            # a shoe deals at most a round per four cards
    for chunk in read_ahead(read_chunks(path, fmt=fmt)):
        if chunk.invalid:
            source, line, problem = chunk.invalid[0]
            raise ExactOddsError(f"{source}:{line}: {problem}")
        if columns is None:
            pairs = _pairs_of(chunk, cat, chunk.source)
            pairs_seen.append(pairs)
            columns = [name for name, _, _ in pairs]
        elif set(chunk.settled) - {SHOE_COLUMN, ROUND_COLUMN} != set(columns):
            raise ExactOddsError(f"{chunk.source}: its columns differ from the log's first file's")
        shoe_codes, shoe_names = chunk.settled[SHOE_COLUMN]
        round_col = chunk.settled.get(ROUND_COLUMN)
        amounts = []
        for name in columns:
            codes, values = chunk.settled[name]
            parsed = [_amount(v, f"{chunk.source}: column {name!r}") for v in values]
            amounts.append([parsed[c] for c in codes.tolist()])
        cards = chunk.cards
        bad = np.flatnonzero((cards[:, [0, 1, 3, 4]] < 0).any(axis=1))
        if len(bad):
            at = int(bad[0])
            raise ExactOddsError(f"{chunk.source}:{chunk.line(int(chunk.lines[at]))}: a round deals each hand at "
                                 "least two cards (player1, player2, banker1, banker2)")
        broken = invalid_rounds(chunk.player, chunk.banker)
        if len(broken):
            at = int(broken[0])
            pv = [int(POINTS[c]) if c >= 0 else -1 for c in chunk.player[at]]
            bv = [int(POINTS[c]) if c >= 0 else -1 for c in chunk.banker[at]]
            raise ExactOddsError(f"{chunk.source}:{chunk.line(int(chunk.lines[at]))}: the round breaks the rules of "
                                 f"the deal: {rule_broken(pv, bv)}")
        names = shoe_names
        for i, code in enumerate(shoe_codes.tolist()):
            line = chunk.line(int(chunk.lines[i]))
            name = names[code]
            if name is None or not str(name).strip():
                raise ExactOddsError(f"{chunk.source}:{line}: the round names no {SHOE_COLUMN}")
            name = str(name)
            if current is None or name != current.name:
                if current is not None:
                    finished.add(current.name)
                    yield current
                if name in finished:
                    raise ExactOddsError(f"{chunk.source}:{line}: shoe {name!r} appears again after other shoes: a "
                                         "shoe's rounds are written together, in the order dealt")
                current = _Shoe(name, chunk.source, [], [], [])
                last_round = None
            if round_col is not None:
                text = round_col[1][round_col[0][i]]
                try:
                    number = int(str(text).strip())
                except ValueError:
                    raise ExactOddsError(f"{chunk.source}:{line}: {ROUND_COLUMN} {text!r} is not a round number") \
                        from None
                expected = 1 if last_round is None else last_round + 1
                if number != expected:
                    raise ExactOddsError(f"{chunk.source}:{line}: shoe {name!r}: round {number} where round {expected} "
                                         "comes: a round missing from the log leaves the cards before the next bets "
                                         "unknown")
                last_round = number
            if len(current.lines) >= limit:
                raise ExactOddsError(f"{chunk.source}:{line}: shoe {name!r} has more rounds than {decks} decks deal")
            current.lines.append(line)
            current.rows.append(cards[i])
            current.amounts.append([col[i] for col in amounts])
    if current is not None:
        yield current


# -- the edges ---------------------------------------------------------------------------------------------------

def _unseen(shoe: _Shoe, decks: int) -> np.ndarray:
    """(rounds, 52): the cards not yet dealt before each round of ``shoe``; refused where the log deals a card the
    shoe does not hold."""
    cards = shoe.cards.astype(np.int64)
    n = len(cards)
    rows = np.repeat(np.arange(n), 6)
    flat = cards.reshape(-1)
    dealt = np.bincount((rows * 52 + flat)[flat >= 0], minlength=n * 52).reshape(n, 52)
    after = decks - np.cumsum(dealt, axis=0)
    if (after < 0).any():
        at, card = (int(x) for x in np.argwhere(after < 0)[0])
        raise ExactOddsError(f"{shoe.source}:{shoe.lines[at]}: shoe {shoe.name!r} deals more {Card.from_index(card)} "
                             f"than {decks} deck{'s' if decks != 1 else ''} hold: the log's cards contradict the shoe")
    return after + dealt


def _value_rows(unseen: np.ndarray) -> np.ndarray:
    ranks = unseen.reshape(len(unseen), 13, 4).sum(axis=2)
    return np.concatenate([ranks[:, 9:].sum(axis=1, keepdims=True), ranks[:, :9]], axis=1)


def _fallback(pairs: Sequence[tuple[Wager, Paytable]], unseen: np.ndarray) -> list[list[Fraction]]:
    """Per pair, per round: the expected return + 1, by the door, shoe by shoe (a wager the batch does not read)."""
    ranks = unseen.reshape(len(unseen), 13, 4).sum(axis=2)
    shoes = [Shoe(tuple(r), tuple(u), "unseen cards") for r, u in zip(ranks.tolist(), unseen.tolist())]
    return [[x + 1 for x, _ in found] for found in returns_many(list(pairs), shoes, warn=False)]


def _returns_plus_one(pairs: Sequence[tuple[Wager, Paytable]], unseen: np.ndarray
                      ) -> list[tuple[list[int], list[int]]]:
    """Per pair, per round: expected return + 1 as (numerators, denominators), exactly."""
    values = _value_rows(unseen)
    batched = value_moments(list(pairs), values)
    out: list[tuple[list[int], list[int]] | None] = []
    for found in batched:
        if found is None:
            out.append(None)
        else:
            dens = [found.scale * t for t in found.totals.tolist()]
            out.append(([int(x) for x in found.first.tolist()], dens))
    rest = [j for j, x in enumerate(out) if x is None]
    if rest:
        for j, plus in zip(rest, _fallback([pairs[j] for j in rest], unseen)):
            out[j] = ([q.numerator for q in plus], [q.denominator for q in plus])
    return out  # type: ignore[return-value]


def _edges(pairs: Sequence[tuple[Wager, Paytable]], unseen: np.ndarray, classes: np.ndarray | None,
           split: tuple[int, ...]) -> tuple[list[list[int]], list[list[int]]]:
    """Each round's edge + 1 for each pair as numerator / denominator (rows: rounds; columns: pairs): off the
    unseen cards, and given the class of the round's first card where ``classes`` (True: of the class named).
    The last few blocks are kept: the players of one table bet at the same shoes, checked one after another."""
    key = (tuple((w.id, t.id, id(w), id(t)) for w, t in pairs), unseen.tobytes(), unseen.shape,
           None if classes is None else classes.tobytes(), split)
    found = _EDGES.get(key)
    if found is None:
        found = _EDGES[key] = (list(pairs), _edges_of(pairs, unseen, classes, split))
        while len(_EDGES) > 4:
            _EDGES.pop(next(iter(_EDGES)))
    return found[1]


#: The edges of the last few blocks of rounds priced (with the pairs they were priced for, held: ids not reused).
_EDGES: dict[Any, tuple[list[Any], tuple[list[list[int]], list[list[int]]]]] = {}


def _edges_of(pairs: Sequence[tuple[Wager, Paytable]], unseen: np.ndarray, classes: np.ndarray | None,
              split: tuple[int, ...]) -> tuple[list[list[int]], list[list[int]]]:
    plain = _returns_plus_one(pairs, unseen)
    if classes is None:
        return [list(x) for x in zip(*(n for n, _ in plain))], [list(x) for x in zip(*(d for _, d in plain))]
    asked = _asked(tuple(pairs), condition(class_condition("player_rank_1", split)))     # each joined to the class; the class
    joined = _returns_plus_one(asked, unseen)
    n = unseen.sum(axis=1).tolist()
    named = unseen.reshape(len(unseen), 13, 4)[:, [r - 1 for r in split], :].sum(axis=(1, 2)).tolist()
    held = [m * math.perm(k - 1, CARDS_PER_ROUND - 1) for m, k in zip(named, n)]     # first card of the class
    totals = [math.perm(k, CARDS_PER_ROUND) for k in n]
    hn, hd = joined[-1]
    for i, (a, b) in enumerate(zip(hn, hd)):               # the class's own count, by the tables and by its cards
        if Fraction(a * totals[i], 2 * b) != held[i]:      # the condition paid 1 to 1: (E + 1) · T = 2 · N(G)
            raise InconsistentCounts(f"internal: the first card's class counted {Fraction(a * totals[i], 2 * b)} and "
                                     f"{held[i]} on one shoe: a defect of exactodds, please report it")
    nums: list[list[int]] = []
    dens: list[list[int]] = []
    for i, t in enumerate(totals):
        row_n, row_d = [], []
        for (pn, pd), (jn, jd) in zip(plain, joined[:-1]):
            if pd[i] % t == 0 and jd[i] % t == 0:          # the tables' numerators over scale · T: in integers
                sp, sj = pd[i] // t, jd[i] // t            # Σ (net + 1) over the shoe = pn / sp; over the class = jn / sj
                if classes[i]:
                    row_n.append(jn[i])
                    row_d.append(sj * held[i])
                else:
                    row_n.append(pn[i] * sj - jn[i] * sp)
                    row_d.append(sp * sj * (t - held[i]))
                continue
            whole = Fraction(pn[i] * t, pd[i])              # Σ (net + 1) over every round of the shoe
            part = Fraction(jn[i] * t, jd[i])               # ... over those whose first card is of the class
            q = part / held[i] if classes[i] else (whole - part) / (t - held[i])
            row_n.append(q.numerator)
            row_d.append(q.denominator)
        nums.append(row_n)
        dens.append(row_d)
    return nums, dens


# -- the check ---------------------------------------------------------------------------------------------------

@dataclass
class _Totals:
    """What the check adds up shoe after shoe: exact sums keyed by denominator, the permutations' statistics."""

    wagers: int
    permutations: int
    actual: list[dict[int, Any]] = field(default_factory=list)     # per wager: denominator -> Σ a · numerator
    flat: list[dict[int, Any]] = field(default_factory=list)
    action: list[Any] = field(default_factory=list)
    bets: list[int] = field(default_factory=list)
    observed: float = 0.0
    permuted: np.ndarray = field(default_factory=lambda: np.zeros(0))
    scale: float = 0.0
    moments: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)))   # per wager: n, Σx, Σy, Σxy, Σx², Σy²
    best: float = 0.0
    best_flat: float = 0.0
    stake: float = 0.0
    shoes: int = 0
    rounds: int = 0
    top: list[tuple[float, int, str, Fraction, Fraction]] = field(default_factory=list)
    plotted: list[tuple[float, float, int]] = field(default_factory=list)
    bets_seen: int = 0

    def __post_init__(self) -> None:
        self.actual = [{} for _ in range(self.wagers)]
        self.flat = [{} for _ in range(self.wagers)]
        self.action = [0] * self.wagers
        self.bets = [0] * self.wagers
        self.permuted = np.zeros(self.permutations)
        self.moments = np.zeros((self.wagers, 6))


def _add_shoe(t: _Totals, shoe: _Shoe, nums: list[list[int]], dens: list[list[int]], seed: int,
              rng_plot: np.random.Generator) -> None:
    rounds, w = len(shoe.amounts), t.wagers
    t.shoes += 1
    t.rounds += rounds
    stakes = [sum(row[j] for row in shoe.amounts) for j in range(w)]
    win: Any = 0
    for j in range(w):
        actual, flat, stake = t.actual[j], t.flat[j], stakes[j]
        for i in range(rounds):
            a = shoe.amounts[i][j]
            if a:
                actual[dens[i][j]] = actual.get(dens[i][j], 0) + a * nums[i][j]
                t.bets[j] += 1
            if stake:
                key = dens[i][j] * rounds
                flat[key] = flat.get(key, 0) + stake * nums[i][j]
        t.action[j] += stake
    a_f = np.array([[float(x) for x in row] for row in shoe.amounts]).reshape(rounds, w)
    e_f = np.array([[n / d - 1 for n, d in zip(rn, rd)] for rn, rd in zip(nums, dens)]).reshape(rounds, w)
    m = a_f @ e_f.T                                        # m[k, i]: round k's bets placed at round i
    observed = float(np.trace(m))
    t.observed += observed
    t.scale += float(np.abs(a_f * e_f).sum())
    if t.permutations and a_f.any():
        rng = np.random.default_rng([seed, t.shoes])
        perms = rng.permuted(np.tile(np.arange(rounds), (t.permutations, 1)), axis=1)
        t.permuted += m[perms, np.arange(rounds)].sum(axis=1)
    else:
        t.permuted += observed
    t.moments += np.stack([np.full(w, rounds), e_f.sum(axis=0), a_f.sum(axis=0), (e_f * a_f).sum(axis=0),
                           (e_f * e_f).sum(axis=0), (a_f * a_f).sum(axis=0)], axis=1)
    if w > 1:
        best = e_f >= e_f.max(axis=1, keepdims=True) - 1e-12
        t.best += float((a_f * best).sum())
        t.best_flat += float((a_f.sum(axis=0) * best.mean(axis=0)).sum())
    t.stake += float(a_f.sum())
    if a_f.any():
        for i, j in zip(*np.nonzero(a_f)):
            t.bets_seen += 1
            item = (float(e_f[i, j]), float(a_f[i, j]), int(j))
            if len(t.plotted) < _PLOTTED:
                t.plotted.append(item)
            else:                                          # a uniform sample of the bets (reservoir)
                k = int(rng_plot.integers(t.bets_seen))
                if k < _PLOTTED:
                    t.plotted[k] = item
        if len(t.top) < _TOP_SHOES or observed > t.top[0][0]:
            for i in range(rounds):
                for j in range(w):
                    if shoe.amounts[i][j]:
                        win += shoe.amounts[i][j] * (Fraction(nums[i][j], dens[i][j]) - 1)
            entry = (observed, t.shoes, shoe.name, Fraction(sum(stakes)), Fraction(win))
            if len(t.top) < _TOP_SHOES:
                heapq.heappush(t.top, entry)
            else:
                heapq.heappushpop(t.top, entry)


def _within(moments: np.ndarray) -> float | None:
    """Pearson's r of amount against edge within each wager (each wager's own means taken out, its sums then added):
    a player who bets one wager more than another because it is better is not counted as following the count. None
    where the amounts do not vary within any wager (a flat bettor).

    >>> one = [3, 6, 6, 14, 14, 14]             # edges 1, 2, 3 bet 1, 2, 3
    >>> other = [2, -1, 11, -5, 1, 61]          # edges -1, 0 bet 5, 6: more on the worse wager, yet y rises with x
    >>> round(_within(np.array([one, other])), 6)
    1.0
    """
    cov = vx = vy = 0.0
    for n, sx, sy, sxy, sxx, syy in moments.tolist():
        if n:
            cov += sxy - sx * sy / n
            vx += sxx - sx * sx / n
            vy += syy - sy * sy / n
    return cov / math.sqrt(vx * vy) if vx > 1e-300 and vy > 1e-300 else None


def _summed(sums: dict[int, Any]) -> Fraction:
    return sum((Fraction(v) / d for d, v in sums.items()), Fraction(0))


def check_player(path: str, *, decks: int = 8, sorted_cards: str | None = None, permutations: int = PERMUTATIONS,
                 seed: int = 0, alpha: Fraction = ALPHA, catalogue: Catalogue | None = None, fmt: str | None = None,
                 progress: Callable[[int], None] | None = None) -> PlayerCheck:
    """Check the bets of the surveillance log at ``path`` against the exact edge each had (module doc).

    ``sorted_cards``: the class split the player may read (``"6,7,8,9"``: :func:`~exactodds.analyses.advantage.
    sorted_ranks`); the edges are then given the class of each round's first card. ``seed`` seeds the
    permutations (shoe k's from ``(seed, k)``: the result does not depend on how the log is read).
    """
    if isinstance(decks, bool) or not isinstance(decks, int) or decks < 1:
        raise ExactOddsError(f"--decks: a whole number of decks, at least 1, got {decks!r}")
    if isinstance(permutations, bool) or not isinstance(permutations, int) or not 19 <= permutations <= 99_999:
        raise ExactOddsError(f"--permutations: a whole number from 19 to 99,999, got {permutations!r}")
    alpha = Fraction(alpha)
    if not 0 < alpha < 1:
        raise ExactOddsError(f"--alpha: a level between 0 and 1, got {alpha}")
    split = sorted_ranks(sorted_cards) if sorted_cards is not None else ()
    cat = catalogue if catalogue is not None else load_catalogue()
    shoe_cards = decks * 52
    if shoe_cards < CARDS_PER_ROUND + 6:
        raise ExactOddsError(f"--decks {decks}: too few cards for a shoe of rounds")
    if split:
        named = ", ".join(str(r) for r in split)
        knows = (f"the cards of the shoe's rounds before each bet and the class of the round's first card "
                 f"(ranks {named} against the rest)")
    else:
        knows = "the cards of the shoe's rounds before each bet (counting)"
    pairs_seen: list[list[tuple[str, Wager, Paytable]]] = []
    totals: _Totals | None = None
    rng_plot = np.random.default_rng([seed, 1 << 30])
    block: list[_Shoe] = []
    block_rounds = 0

    def priced(shoes: list[_Shoe]) -> None:
        nonlocal totals
        pairs = [(w, t) for _, w, t in pairs_seen[0]]
        if totals is None:
            totals = _Totals(len(pairs), permutations)
        unseen = np.concatenate([_unseen(s, decks) for s in shoes])
        classes = None
        if split:
            first = np.concatenate([s.cards[:, 0] for s in shoes]).astype(np.int64)
            classes = np.isin(first // 4 + 1, split)
        nums, dens = _edges(pairs, unseen, classes, split)
        at = 0
        for s in shoes:
            k = len(s.amounts)
            _add_shoe(totals, s, nums[at: at + k], dens[at: at + k], seed, rng_plot)
            at += k
        if progress is not None:
            progress(totals.shoes)

    for shoe in _shoes_of(path, fmt, cat, decks, pairs_seen):
        block.append(shoe)
        block_rounds += len(shoe.amounts)
        if block_rounds >= _BLOCK_ROUNDS:
            priced(block)
            block, block_rounds = [], 0
    if block:
        priced(block)
    if totals is None:
        raise ExactOddsError(f"{path}: no round in the log")
    names = tuple(name for name, _, _ in pairs_seen[0])
    figures = tuple(WagerFigures(name, totals.bets[j], Fraction(totals.action[j]),
                                 _summed(totals.actual[j]) - totals.action[j],
                                 _summed(totals.flat[j]) - totals.action[j]) for j, name in enumerate(names))
    tol = _TIE * max(totals.scale, 1e-300)
    at_least = int((totals.permuted >= totals.observed - tol).sum())
    p_value = Fraction(1 + at_least, 1 + permutations)
    correlation = _within(totals.moments)
    best = totals.best / totals.stake if len(names) > 1 and totals.stake else None
    best_flat = totals.best_flat / totals.stake if len(names) > 1 and totals.stake else None
    top = tuple((name, action, win) for _, _, name, action, win in sorted(totals.top, reverse=True))
    return PlayerCheck(path, decks, knows, names, totals.shoes, totals.rounds, figures, p_value, permutations, alpha,
                       correlation, best, best_flat, top, tuple(totals.plotted))


def round_edges(path: str, *, decks: int = 8, sorted_cards: str | None = None, catalogue: Catalogue | None = None,
                fmt: str | None = None) -> Iterator[tuple[str, int, dict[str, Fraction]]]:
    """Each round of the log at ``path``: (its shoe, its line, each watched wager's exact edge when the round's bets
    were placed), as :func:`check_player` reads them; one shoe priced at a time.

    What the live room asks of each round as it is dealt, and what a test compares with a second route."""
    split = sorted_ranks(sorted_cards) if sorted_cards is not None else ()
    cat = catalogue if catalogue is not None else load_catalogue()
    pairs_seen: list[list[tuple[str, Wager, Paytable]]] = []
    for shoe in _shoes_of(path, fmt, cat, decks, pairs_seen):
        names = [name for name, _, _ in pairs_seen[0]]
        unseen = _unseen(shoe, decks)
        classes = np.isin(shoe.cards[:, 0].astype(np.int64) // 4 + 1, split) if split else None
        nums, dens = _edges([(w, t) for _, w, t in pairs_seen[0]], unseen, classes, split)
        for line, rn, rd in zip(shoe.lines, nums, dens):
            yield shoe.name, line, {name: Fraction(n, d) - 1 for name, n, d in zip(names, rn, rd)}


def bet_against_edge(check: PlayerCheck, ax: Any) -> None:
    """Each bet (a sample of at most 20,000) by its exact edge (x, percent) and its amount (y), per wager."""
    for j, name in enumerate(check.pairs):
        pts = [(e, a) for e, a, k in check.plotted if k == j]
        if pts:
            xs, ys = zip(*pts)
            ax.scatter([100 * x for x in xs], ys, s=6, alpha=0.5, label=name)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("the bet's exact edge when placed (%)")
    ax.set_ylabel("amount bet")
    ax.set_title(f"{check.source}: {check.verdict()[:90]}", fontsize=8)
    if check.pairs:
        ax.legend(fontsize=8)

