"""Check a simulator's output against the exact distribution.

Input is per-round records (CSV or JSON Lines, see :func:`read_records`) or
aggregated outcome counts per wager (JSON, see :func:`read_counts`). For every
wager and paytable checked, three tests compare the observed rounds with the
exact probabilities off the top of the stated shoe:

* a chi-square goodness-of-fit over the wager's outcomes, rare outcomes pooled
  until every bin expects at least 5 rounds;
* a z-test of the observed mean return against the exact return, with the
  exact variance (wagers with a fixed paytable);
* an exact two-sided binomial test of the top award's count.

When the records carry the simulator's own settlement (a column
``WAGER:PAYTABLE`` holding the outcome id it paid, or the net amount it paid:
:mod:`exactodds.simulation.amounts`), every round's settlement is also recomputed
from its cards, and any disagreement is flagged outright; so is a round whose
third cards break the drawing rules of §627a.10 (left out and listed, the rule
broken named in words). The rounds kept are then no fair sample of a true deal,
so the wagers' and the shoes' tests are shown but withheld from judgement. The
dealt cards are tested for what the rules cannot tell apart (every card of a
point value, every suit, the ranks 10, J, Q, K equally often), and each wager's
observed return is set beside the exact one with its standard error, interval,
verdict and the deviation this many rounds can detect (:class:`ReturnRow`).
p-values are adjusted for testing many wagers at once (Holm); a test is flagged
when its adjusted p-value is below ``alpha``, which is when its p-value is below
Holm's level for the tests not flagged (:attr:`CheckResult.level`): each row's
interval is drawn at that level, so a row is flagged exactly when the exact
return lies outside its interval (or its rounds were settled or paid wrong).

Exact probabilities describe rounds dealt off the top of a full shoe. A
simulator that deals shoes to a cut card draws from depleted shoes, which
shifts the distribution slightly (the cut-card effect, measured in
``notebooks/``); with very large samples that shift itself becomes detectable.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from exactodds import extras
from exactodds.analyses.analysis import priced_pairs
from exactodds.analyses.door import Door
from exactodds.analyses.pricing import WagerResult, return_numerators, table_signature
from exactodds.engine.columns import value_columns
from exactodds.engine.multiset import codes
from exactodds.errors import ExactOddsError, exact_number, read_json
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.render.tables import Column, Describes, Report, Table, a_or_an, dataframe, render_report
from exactodds.simulation.amounts import amount_text, amounts_of, pays_per_stake
from exactodds.simulation.cluster import Shipped, dask_client, numpy_heap
from exactodds.simulation.explain import meaning, rule_broken
from exactodds.simulation.recordio import (
    CARD_COLUMNS,
    ROUND_COLUMN,
    STAKE_COLUMN,
    Chunk,
    expand_sources,
    read_ahead,
    read_chunks,
)
from exactodds.simulation.roundclasses import (
    VALUE_SPACE,
    RoundHistogram,
    _dealable,
    breaks_rules,
    decode_digits,
    distinct,
    histogram_kind,
    settlement_groups,
    value_codes,
)
from exactodds.simulation.rounds import features, round_keys, settle_rounds
from exactodds.simulation.withinshoe import SHOE_COLUMN, Carry, WithinShoe, split_shoes, tally_within, within_rows
from exactodds.wagers.catalogue import Catalogue, Wager, did_you_mean, load_catalogue

__all__ = ["Records", "read_records", "read_counts", "CheckResult", "TestRow", "ReturnRow", "RuleBreaks", "Tally",
           "check", "check_files", "check_counts", "tally_chunk", "tally_file", "Keeper",
           "result_from_tally"]


@dataclass
class RuleBreaks:
    """Rounds whose third cards break the drawing rules of §627a.10 (Table 1 and Player's rule): how many, and
    the first :attr:`KEPT` as (source, line, the cards)."""

    KEPT = 1000
    count: int = 0
    first: list[tuple[str, int, str, str]] = field(default_factory=list)     # (source, line, cards, rule broken)
    rules: dict[str, int] = field(default_factory=dict)                     # rule broken (in words) -> rounds

    def add(self, other: RuleBreaks) -> RuleBreaks:
        self.count += other.count
        self.first = (self.first + other.first)[:self.KEPT]
        for rule, n in other.rules.items():
            self.rules[rule] = self.rules.get(rule, 0) + n
        return self

    def summary(self, most: int = 3) -> str:
        """The rules broken, most rounds first: ``Player must draw on 5, §627a.10(b)(1) (12 rounds); ...``."""
        ranked = sorted(self.rules.items(), key=lambda x: (-x[1], x[0]))
        return "; ".join(f"{rule} ({_rounds(n, 'round')})" for rule, n in ranked[:most]) + (
            f"; and {len(ranked) - most} more" if len(ranked) > most else "")


@dataclass(frozen=True)
class Records:
    """Rounds read from a file: card indices (-1 none), line numbers, reported settlements."""

    player: np.ndarray
    banker: np.ndarray
    lines: np.ndarray
    settled: dict[str, np.ndarray] = field(default_factory=dict)
    invalid: tuple[tuple[int, str], ...] = ()
    rule_breaks: RuleBreaks = field(default_factory=RuleBreaks)     # left out, and a failed check

    def __len__(self) -> int:
        return len(self.player)


# -- reading ----------------------------------------------------------------------

def read_records(path: str | Path, *, lenient: bool = False, fmt: str | None = None) -> Records:
    """All the rounds of a file, directory or glob of shards, in memory (see :mod:`exactodds.simulation.recordio`).

    A record that cannot be read is an error naming its line — or, with ``lenient``,
    is listed in :attr:`Records.invalid` and left out. A round that breaks the drawing
    rules is left out and kept in :attr:`Records.rule_breaks` (a failed check). For files too large to hold, use
    :func:`check_files`, which reads them in chunks.
    """

    players, bankers, lines = [], [], []
    settled: dict[str, list[np.ndarray]] = {}
    invalid: list[tuple[int, str]] = []
    broken = RuleBreaks()
    total = 0
    for source in expand_sources(str(path)):
        for chunk in read_chunks(source, fmt=fmt):
            good, problems, _, _, breaks = _valid(chunk, decks=None)
            broken.add(breaks)
            problems = sorted(chunk.invalid + problems, key=lambda x: x[1])
            if problems and not lenient:
                src, line, what = problems[0]
                raise ExactOddsError(f"{src}:{line}: {what}")
            invalid += [(line, what) for _, line, what in problems]
            players.append(chunk.player[good])
            bankers.append(chunk.banker[good])
            lines.append(chunk.lines[good])
            for name, (codes, values) in chunk.settled.items():
                settled.setdefault(name, []).append(np.array(values, dtype=str)[codes[good]])
            total += int(good.sum())
    if not total and not broken.count:
        raise ExactOddsError(f"{path}: no readable rounds")
    return Records(np.concatenate(players), np.concatenate(bankers), np.concatenate(lines),
                   {k: np.concatenate(v) for k, v in settled.items()}, tuple(sorted(invalid)), broken)


def _valid(chunk: Any, *, decks: int | None) -> tuple[np.ndarray, list[tuple[str, int, str]], np.ndarray, np.ndarray,
                                                     RuleBreaks]:
    """Which rounds of a chunk can be checked, what is wrong with the others (source, line, problem),
    the value codes of the rounds with their bincount over the checkable ones
    (:mod:`exactodds.simulation.roundclasses`: the drawing rules are checked once per value code), and the
    rounds whose third cards break the drawing rules: a failed check, not bad input, so apart."""

    player, banker, lines = chunk.player, chunk.banker, chunk.lines
    cards = chunk.cards
    problems: list[tuple[str, int, str]] = []
    column = [cards[:, j] for j in range(6)]
    unreadable = np.minimum(np.minimum(np.minimum(column[0], column[1]), np.minimum(column[2], column[3])),
                            np.minimum(column[4], column[5])) == -2
    for i in np.flatnonzero(unreadable)[:1000]:
        fields = [CARD_COLUMNS[j] for j, c in enumerate(cards[i]) if c == -2]
        problems.append((chunk.source, chunk.line(int(lines[i])), f"unreadable card in field(s) {', '.join(fields)}"))
    missing = (np.minimum(np.minimum(column[0], column[1]), np.minimum(column[3], column[4])) < 0) & ~unreadable
    for i in np.flatnonzero(missing)[:1000]:
        problems.append((chunk.source, chunk.line(int(lines[i])), "a hand is missing one of its first two cards"))
    ok = ~(unreadable | missing)
    if decks is not None and decks < 6:                  # six cards a round: more copies only below 6 decks
        ordered = np.sort(cards, axis=1)
        same = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
        run = np.zeros(len(cards), dtype=np.int64)
        longest = np.zeros(len(cards), dtype=np.int64)
        for k in range(same.shape[1]):
            run = np.where(same[:, k], run + 1, 0)
            longest = np.maximum(longest, run)
        too_many = ok & (longest + 1 > decks)
        for i in np.flatnonzero(too_many)[:1000]:
            problems.append((chunk.source, chunk.line(int(lines[i])), f"deals {int(longest[i]) + 1} copies of one card from a "
                             f"shoe of {decks} deck{'s' if decks > 1 else ''} (Player {_show(player[i])}, "
                             f"Banker {_show(banker[i])})"))
        ok &= ~too_many
    codes = value_codes(cards)
    rule_breaks = breaks_rules(codes) & ok
    broken = RuleBreaks()
    if rule_breaks.any():
        broken.count = int(rule_breaks.sum())
        which, per_code = np.unique(codes[rule_breaks], return_counts=True)     # the rule broken: by value code
        said = {int(c): rule_broken(*(d.tolist() for d in np.split(decode_digits(np.array([c]))[0], 2)))
                for c in which.tolist()}
        for c, n in zip(which.tolist(), per_code.tolist()):
            broken.rules[said[c]] = broken.rules.get(said[c], 0) + n
        broken.first = [(chunk.source, chunk.line(int(lines[i])), f"Player {_show(player[i])}, Banker {_show(banker[i])}",
                         said[int(codes[i])]) for i in np.flatnonzero(rule_breaks)[:RuleBreaks.KEPT]]
        ok &= ~rule_breaks
    counts = np.bincount(codes if ok.all() else codes[ok], minlength=VALUE_SPACE)
    return ok, problems, codes, counts, broken


def _show(cards: np.ndarray) -> str:
    return " ".join(str(Card.from_index(int(c))) for c in cards if c >= 0)


#: The largest count a counts file may state (far beyond any simulation: a thousand trillion rounds).
MAX_COUNT = 10**15


def read_counts(path: str | Path) -> dict[str, Any]:
    """Aggregated counts: ``{"rounds": N, "decks": D, "wagers": {"WAGER:PAYTABLE": {"outcome": n, ..., "lose": n}}}``.

    ``rounds`` and ``decks`` are optional; every wager's counts must add up to the
    same number of rounds (``rounds`` where it is stated).
    """
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("wagers"), dict):
        raise ExactOddsError(f"{path}: expected an object with 'wagers' (see 'exactodds check-sim --help')")
    if extra := set(data) - {"rounds", "decks", "wagers"}:
        raise ExactOddsError(f"{path}: unknown key {sorted(extra)[0]!r} (keys: rounds, decks, wagers)")
    for key in ("rounds", "decks"):
        if key in data:
            v = data[key]
            limit = MAX_COUNT if key == "rounds" else 10**7
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= limit:
                raise ExactOddsError(f"{path}: {key!r} must be a whole number from 1 to {limit:,}, got {json.dumps(v)}")
    return data


# -- statistics -------------------------------------------------------------------

@dataclass(frozen=True)
class TestRow:
    """One test of one wager and paytable."""

    __test__ = False                     # not a pytest test class

    wager: str
    paytable: str
    test: str
    statistic: float
    p_value: float
    adjusted: float = math.nan
    flagged: bool = False
    detail: str = ""
    withheld: str = ""                   # why the test is shown but not judged (not one of Holm's tests)


def _rounds(n: int, what: str) -> str:
    """``1 round``, ``2,500 rounds``."""
    return f"{n:,} {what}{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class _Significant(Column):
    """A float shown to ``places`` significant digits: p-values span many orders of magnitude."""

    def show(self, value: Any) -> str:
        return self.empty if value is None or value == "" else f"{float(value):.{self.places}g}"


#: The tests, one row each: CSV columns by ``key`` (the wager column holds WAGER:PAYTABLE), text by label.
_TESTS = (Column("wager", "Wager:paytable"), Column("test", "Test"),
          _Significant("statistic", "Statistic", "float", places=4), _Significant("p_value", "p", "float", places=3),
          _Significant("adjusted_p_value", "Adjusted p", "float", places=3), Column("flagged", "Flag"),
          Column("detail", "Detail"))

#: The label of a return computed from the simulator's own settlement (its outcome ids), shown where it differs.
SETTLED = " (as the simulator settled)"

#: Per wager: the observed return against the exact one (:class:`ReturnRow`), with its verdict.
_RETURNS = (Column("wager", "Wager:paytable"), Column("observed", "Observed", "decimal", places=6, signed=True, twin=True),
            Column("exact", "Exact", "decimal", places=6, signed=True, twin=True), Column("se", "SE", "float", places=6),
            Column("interval", "Interval"), Column("z", "z", "float", places=2, signed=True),
            _Significant("p_value", "p", "float", places=3), Column("verdict", "Verdict"),
            Column("detectable", "Detectable", "float", places=6))

#: The column of the return paid, where a settlement column holds amounts.
_PAID = Column("paid", "Paid", "decimal", places=6, signed=True, twin=True)

#: The CSV's further columns: each test's row carries its wager's return (:class:`ReturnRow`), blank where
#: the wager has none (a share of a meter, or a row of the cards or the shoes).
_RETURN_TIDY = (Column("observed_return", "Observed return", "decimal", places=6, signed=True, twin=True),
                Column("exact_return", "Exact return", "decimal", places=6, signed=True, twin=True),
                Column("paid_return", "Paid return", "decimal", places=6, signed=True, twin=True),
                Column("se", "SE", "float", places=6), Column("low", "Interval low", "float", places=6),
                Column("high", "Interval high", "float", places=6),
                _Significant("confidence", "Confidence", "float", places=6), Column("verdict", "Verdict"),
                Column("detectable", "Detectable", "float", places=6),
                Column("rounds_to_detect", "Rounds to detect", "int"))


def _return_cells(x: ReturnRow | None) -> tuple[Any, ...]:
    if x is None:
        return (None,) * len(_RETURN_TIDY)
    low, high = x.interval if x.interval is not None else (None, None)
    return (x.observed, x.exact, x.paid, x.se, low, high, x.confidence, x.verdict, x.detectable, x.rounds_to_detect)


#: The rounds that break the drawing rules.
_BROKEN = (Column("source", "Source"), Column("line", "Line", "int"), Column("cards", "Cards"),
           Column("rule", "Rule broken"))

#: A flagged wager's rounds per outcome against the exact expectation.
_OBSERVED = (Column("outcome", "Outcome"), Column("observed", "Observed", "int"),
             Column("expected", "Expected", "float", places=1))


def _level(t: float) -> str:
    """A test's level as a confidence: ``99.9969%``, or ``1 - 1e-200`` where a percentage would read 100%."""
    places = max(1, min(8, math.ceil(-math.log10(t * 100)) + 1)) if t > 0 else 8
    text = f"{(1 - t) * 100:.{places}f}%"
    return text if not text.startswith("100") else f"1 - {t:.2g}"


@dataclass(frozen=True)
class CheckResult(Describes):
    """The tests of a check, Holm-adjusted; ``str()`` and Jupyter show every test, ``render`` the flagged ones."""

    rounds: int
    alpha: float
    rows: tuple[TestRow, ...]
    observed: dict[str, dict[str, tuple[int, float]]]      # wager:paytable -> outcome -> (observed, expected)
    invalid: tuple[tuple[int, str], ...] = ()
    invalid_count: int = 0
    first_invalid: str = ""                                  # the first, as SOURCE:LINE: problem
    returns: tuple[ReturnRow, ...] = ()                      # per wager with a fixed paytable
    rule_breaks: tuple[tuple[str, int, str, str], ...] = ()  # the first rounds that break §627a.10, with the rule
    detect: Fraction | None = None                           # --detect
    validation: bool = False                                 # a validation file: settlements only, no statistic
    level: float = math.nan                                  # Holm's level for every test not flagged (and the
                                                             # intervals'): alpha / (tests - flagged)
    withheld: str = ""                                       # why the statistics are shown but not judged

    @property
    def flagged(self) -> list[TestRow]:
        return [r for r in self.rows if r.flagged]

    @property
    def tests_run(self) -> int:
        """The tests Holm's rule judged (withheld ones shown, not counted)."""
        return sum(1 for r in self.rows if not r.withheld)

    @property
    def ok(self) -> bool:
        return not self.flagged and not self.invalid

    def verdict(self) -> str:
        """``OK — nothing flagged``, or what was flagged."""
        if self.ok:
            return "OK — nothing flagged"
        return "FLAGGED — " + ", ".join(([_rounds(len(self.flagged), "test")] if self.flagged else [])
                                        + (["invalid rounds"] if self.invalid else []))

    def report(self, *, verbose: bool = True) -> Report:
        """The headline (rounds, alpha, verdict), the tests (every one if ``verbose``, else the flagged
        ones; CSV always every one) and each flagged wager's observed-against-expected table, once, from
        the counts its flagged tests used (the simulator's own settlement for 'reported' tests)."""
        headline: dict[str, str] = {}
        if self.invalid:
            headline["Invalid rounds"] = (f"{_rounds(self.invalid_count or len(self.invalid), 'invalid round')} "
                                          f"left out (first: {self.first_invalid})")
        headline["Result"] = self.verdict()
        if self.withheld:
            headline["Withheld"] = (f"the wagers' and the shoes' tests are shown, not judged: {self.withheld} "
                                    "(fix the drawing rules and check again)")
        every = Table(_TESTS, tuple((f"{r.wager}:{r.paytable}" if r.paytable else r.wager, r.test, r.statistic,
                                       r.p_value, r.adjusted, "FLAG" if r.flagged else "withheld" if r.withheld else "",
                                       r.detail)
                                      for r in self.rows))
        shown = every if verbose or self.validation else Table(_TESTS, tuple(row for row in every.rows
                                                                              if row[5] == "FLAG"))
        returns = {x.wager: x for x in self.returns}
        tidy = Table(_TESTS + _RETURN_TIDY, tuple(                 # CSV: each test with its wager's return
            row + _return_cells(returns.get(row[0] + (SETTLED if test.test.startswith("reported ") else "")))
            for row, test in zip(every.rows, self.rows)))
        tables = [shown] if shown.rows else []
        if self.returns:
            tables.append(self._returns_table())
        if self.rule_breaks:
            tables.append(Table(_BROKEN, self.rule_breaks[:None if verbose else 20],
                                title="Rounds that break the drawing rules of §627a.10"
                                      + ("" if len(self.rule_breaks) <= (1000 if verbose else 20) else
                                         f" (the first {1000 if verbose else 20:,}; --verbose lists up to 1,000)")))
        keys: list[str] = []
        for r in self.flagged:
            key = f"{r.wager}:{r.paytable}" + (SETTLED if r.test.startswith("reported ") else "")
            if key in keys or key not in self.observed or r.test in ("settlement", "amounts"):
                continue
            keys.append(key)
            tables.append(Table(_OBSERVED, tuple((name, ob, ex) for name, (ob, ex) in self.observed[key].items()),
                                title=f"Observed against expected, {key}"))
        data = {
            "rounds": self.rounds, "alpha": self.alpha, "ok": self.ok, "invalid_rounds": self.invalid_count,
            "invalid": [{"line": ln, "problem": what} for ln, what in self.invalid],
            "tests_run": self.tests_run, "level": self.level, "withheld": self.withheld or None,
            "tests": [{"wager": r.wager, "paytable": r.paytable, "test": r.test, "statistic": r.statistic,
                       "p_value": r.p_value, "adjusted_p_value": r.adjusted, "flagged": r.flagged,
                       "withheld": bool(r.withheld), "detail": r.detail} for r in self.rows],
            "observed": {k: {o: {"observed": ob, "expected": ex} for o, (ob, ex) in v.items()}
                         for k, v in self.observed.items()},
            "returns": [{"wager": x.wager, "observed": str(x.observed), "exact": str(x.exact),
                         "paid": None if x.paid is None else str(x.paid), "se": x.se, "z": x.z,
                         "p_value": x.p_value, "interval": None if x.interval is None else list(x.interval),
                         "confidence": x.confidence, "verdict": x.verdict, "flagged": x.flagged,
                         "detectable": x.detectable, "power": POWER,
                         **({"detect": str(self.detect), "rounds_to_detect": x.rounds_to_detect}
                            if self.detect is not None else {})} for x in self.returns],
            "rule_breaks": [{"source": src, "line": line, "cards": cards, "rule": rule}
                            for src, line, cards, rule in self.rule_breaks],
        }
        data["validation"] = self.validation
        title = (f"check-sim --validation: {self.rounds:,} rounds, every settlement and the drawing rules checked "
                 "round by round" if self.validation else
                 f"check-sim: {self.rounds:,} rounds, {_rounds(self.tests_run, 'test')}, "
                 f"Holm-adjusted at alpha {self.alpha}"
                 + (f" ({len(self.rows) - self.tests_run:,} more withheld)" if self.withheld else ""))
        return Report("check-sim", title=title,
                      headline=headline, tables=tuple(tables), tidy=tidy, data=data)

    def _returns_table(self) -> Table:
        """Per wager: observed against exact return, its standard error and interval, the verdict, and what this
        many rounds can tell apart."""
        paid = any(x.paid is not None for x in self.returns)
        columns = _RETURNS[:3] + ((_PAID,) if paid else ()) + _RETURNS[3:] + (
            (Column("rounds_to_detect", f"Rounds to detect {float(self.detect) * 100:g}%", "int"),)
            if self.detect is not None else ())
        rows = tuple((x.wager, x.observed, x.exact, *((x.paid,) if paid else ()), x.se,
                      "" if x.interval is None else f"{x.interval[0]:+.5f} to {x.interval[1]:+.5f}",
                      x.z, x.p_value, x.verdict, x.detectable,
                      *((x.rounds_to_detect,) if self.detect is not None else ())) for x in self.returns)
        judged = sum(1 for x in self.returns if x.interval is not None)
        m = self.tests_run
        many = (f"so a correct simulator would put about {round(judged / 20):,} of these {judged:,} rows outside "
                "one" if judged >= 20 else "so a correct simulator puts about 1 row in 20 outside one")
        notes = [f"{_rounds(m, 'test')} {'was' if m == 1 else 'were'} run: a plain 95% interval misses the exact "
                 f"return 1 time in 20 by chance, {many}."
                 + (f" Each interval here is the one the verdict reads (Holm at alpha {self.alpha} over the {m:,} "
                    f"tests, as the headline: each row at {self.level:.3g}, a {_level(self.level)} interval): a row "
                    "is FLAG exactly when its observed return lies outside it, or when rounds were settled or paid "
                    "differently from their cards (checked round by round)." if judged else "")]
        if any(x.wager.endswith(SETTLED) for x in self.returns):
            notes.append("Observed: the return of the rounds settled from their cards; a row marked"
                         f"{SETTLED} is the return of the outcomes the simulator wrote, shown where they differ.")
        if paid:
            notes.append("Paid: the return the settlement column's amounts paid, per unit staked (with a stake in "
                         "dollars, a vigorish rounded up to 25¢ as §627a.12(c) allows is paid right).")
        if self.withheld:
            notes.append(f"Withheld: {self.withheld}.")
        notes.append(f"Detectable: the smallest deviation of the return that {_rounds(self.rounds, 'round')} detect "
                     f"at the row's level with {POWER:.0%} power (two-sided, normal with the exact standard deviation "
                     "of a round).")
        return Table(columns, rows, title="Return per unit: observed against exact (bug or variance?)",
                     notes=tuple(notes))

    def to_dataframe(self) -> Any:
        """One row per test (wager, paytable, test, statistic, p_value, adjusted, flagged, detail)."""
        return dataframe([dict(r.__dict__) for r in self.rows])


def _pooled_bins(observed: Sequence[int], expected: Sequence[float]) -> tuple[list[float], list[float]]:
    """Observed and expected counts with bins expecting fewer than 5 rounds pooled (smallest first),
    so that every bin of the chi-square expects at least 5 (unless all of them together expect fewer)."""
    bins = sorted(zip(expected, observed))
    merged: list[list[float]] = []
    pool_e, pool_o = 0.0, 0.0
    for e, o in bins:
        if pool_e + e < 5 or (pool_e and pool_e < 5):
            pool_e, pool_o = pool_e + e, pool_o + o
            if pool_e >= 5:
                merged.append([pool_e, pool_o])
                pool_e = pool_o = 0.0
        else:
            merged.append([e, o])
    if pool_e:
        if merged:
            merged[0][0] += pool_e
            merged[0][1] += pool_o
        else:
            merged.append([pool_e, pool_o])
    return [o for _, o in merged], [e for e, _ in merged]


def _scipy_stats() -> Any:
    """scipy.stats, loaded when a check starts, on the caller's thread: it takes about a second to load, so
    pricing never pays for it. Not on a thread while counting: a SIGTERM that came meanwhile waited for
    that import to finish before the process could end (up to 2 s, loaded). Not after counting either:
    its 30 MB then sat on top of what counting 10^7 rounds had left behind (a peak 16% above 10^6's)."""
    return extras.load("scipy.stats")


def _chi_square(observed: Sequence[int], expected: Sequence[float]) -> tuple[float, int, float] | None:
    """Pearson's chi-square goodness-of-fit over the pooled bins: (statistic, degrees of freedom,
    p-value), or None when pooling leaves a single bin."""
    pooled_observed, pooled_expected = _pooled_bins(observed, expected)
    df = len(pooled_expected) - 1
    if df < 1:
        return None
    chi = _scipy_stats().chisquare(pooled_observed, pooled_expected)
    return float(chi.statistic), df, float(chi.pvalue)


def _binomial_p(k: int, n: int, p: float) -> float:
    """The exact two-sided binomial test's p-value of ``k`` successes in ``n`` rounds of chance ``p``."""
    return float(_scipy_stats().binomtest(k, n, p).pvalue)


#: The z-test of the return runs when the rounds expect at least this many hits and as many misses: a file of
#: a few rounds is far from normal (one Tie in one round would read as p 0.002, where its chance is 0.095).
Z_ROUNDS = 10


def _tests(key: str, r: WagerResult, counts: Mapping[str, int], n: int, ret: ReturnRow | None) -> list[TestRow]:
    """The tests of a wager's counts; its z-test of the return is ``ret``'s (so that its verdict and its
    interval read the same z)."""
    wager, table = key.split(":", 1)
    ids = [ln.id for ln in r.lines]
    observed = [int(counts.get(i, 0)) for i in ids]
    rows = []
    # The rounds on the wager's lines: all n, but for a simulator's own settlement (--lenient) that paid
    # an outcome the wager does not have (flagged by the settlement test); the chi-square needs the
    # observed and expected totals to agree.
    on_lines = sum(observed)
    chi = _chi_square(observed, [float(ln.probability) * on_lines for ln in r.lines])
    if chi is not None:
        stat, df, p_chi = chi
        rows.append(TestRow(wager, table, "chi-square", stat, p_chi, detail=f"df {df}"))
    if ret is not None and ret.tested:                   # a normal approximation of the mean
        rows.append(TestRow(wager, table, "z return", ret.z, ret.p_value,
                            detail=f"mean {float(ret.observed):+.6f} vs exact {float(ret.exact):+.6f}"))
    per_outcome = _per_outcome(r, observed, on_lines)
    if per_outcome is not None:
        k, p_outcome, which = per_outcome
        rows.append(TestRow(wager, table, "per outcome", k, p_outcome, detail=which))
    tops = [ln for ln in r.lines if ln.pay.symbolic] or sorted(
        (ln for ln in r.lines if ln.id != "lose"), key=lambda ln: ln.net, reverse=True)
    if tops and tops[0].probability > 0:
        top = tops[0]
        k = int(counts.get(top.id, 0))
        p = _binomial_p(k, n, float(top.probability))
        rows.append(TestRow(wager, table, "binomial top", float(k), p,
                            detail=f"{top.name}: {k} vs {float(top.probability) * n:.2f} expected"))
    return rows


def _outcome_p(k: int, n: int, p: float) -> float:
    """The two-sided p-value of ``k`` rounds of an outcome of chance ``p`` in ``n``: the chi-square with one
    degree of freedom where both the outcome and the rest expect 5 rounds or more, the exact binomial test
    otherwise (where the chi-square's approximation is poor)."""
    expected = n * p
    if min(expected, n - expected) < 5:
        return _binomial_p(k, n, p)
    return float(_scipy_stats().chi2.sf((k - expected) ** 2 / (expected * (1 - p)), 1))


def _per_outcome(r: WagerResult, observed: Sequence[int], n: int) -> tuple[float, float, str] | None:
    """Each outcome of the wager tested alone (its rounds against the exact chance), Holm-adjusted over the
    wager's outcomes: (the smallest adjusted p-value's raw statistic — the outcome's rounds —, that adjusted
    p-value, which outcome it is). A wager's chi-square sees a shift spread over its outcomes; this one sees
    a rare outcome dealt too often or too seldom, and names it. None with fewer than three outcomes to test
    (with two, each alone is the chi-square again)."""
    tested = [(ln, k) for ln, k in zip(r.lines, observed) if 0 < ln.probability < 1]
    if not n or len(tested) < 3:
        return None
    raw = [_outcome_p(k, n, float(ln.probability)) for ln, k in tested]
    adjusted = holm_adjusted(raw)
    i = min(range(len(tested)), key=lambda j: (adjusted[j], raw[j]))     # ties (Holm's caps): the furthest out
    line, k = tested[i]
    return (float(k), adjusted[i], f"{line.name}: {k:,} vs {float(line.probability) * n:,.2f} expected "
            f"(Holm over {_rounds(len(tested), 'outcome')})")


#: Points of each card identity (in card-index order) and the identities of each point value.
_POINTS = np.array([Card.from_index(i).rank.points for i in range(52)])
_BY_POINTS = [np.flatnonzero(_POINTS == v) for v in range(10)]


def _uniform(observed: np.ndarray, names: Sequence[str]) -> tuple[float, int, str, float]:
    """Pearson's statistic of ``observed`` against equal counts, its degrees of freedom, and the cell
    furthest from its expectation, described, with its standardized residual's size."""
    total = int(observed.sum())
    if total == 0 or len(observed) < 2:
        return 0.0, 0, "", -1.0
    expected = total / len(observed)
    residual = (observed - expected) / math.sqrt(expected)
    k = int(np.argmax(np.abs(residual)))
    return (float((residual ** 2).sum()), len(observed) - 1,
            f"{names[k]} dealt {int(observed[k]):,} times against {expected:,.1f}", float(abs(residual[k])))


def _card_tests(cards: np.ndarray) -> list[TestRow]:
    """Frequency tests of the cards dealt, per identity: ``cards`` (within each point value, every suit and
    rank alike), ``suits`` (all cards) and ``ranks`` (10, J, Q, K, the ranks of the value 0).

    Each compares cards the rules cannot tell apart: a shuffled shoe of whole decks deals them equally
    often in expectation, however the shoe is dealt (off the top, to a cut card), so no true simulator is
    flagged at any scale. Rounds are not multinomial draws (the cards of a round come without
    replacement, and a shoe dealt to its cut card deals every card about equally), which makes the counts
    less variable than Pearson's statistic assumes: the tests are conservative. A test of the point values
    themselves against the figures off the top is left out for that reason: to a cut card they differ
    (the cut-card effect), and a lab-sized run of a true simulator would be flagged.
    """
    if not cards.any():
        return []
    chi2 = _scipy_stats().chi2
    names = [str(Card.from_index(i)) for i in range(52)]
    stat, df, worst = 0.0, 0, (-1.0, "")
    for ids in _BY_POINTS:                          # within each value: its identities alike
        x, d, far, size = _uniform(cards[ids], [names[i] for i in ids])
        stat, df = stat + x, df + d
        if size > worst[0]:
            worst = (size, far)
    rows = [TestRow("cards", "", "cards", stat, float(chi2.sf(stat, df)),
                    detail=f"df {df}; every card alike within its point value; furthest: {worst[1]}")]
    suits = cards.reshape(13, 4).sum(axis=0)
    x, d, far, _ = _uniform(suits, [Card.from_index(i).suit.symbol for i in range(4)])
    rows.append(TestRow("cards", "", "suits", x, float(chi2.sf(x, d)), detail=f"df {d}; furthest: {far}"))
    faces = cards.reshape(13, 4).sum(axis=1)[9:]
    x, d, far, _ = _uniform(faces, ["10", "J", "Q", "K"])
    if d:
        rows.append(TestRow("cards", "", "ranks", x, float(chi2.sf(x, d)),
                            detail=f"df {d}; the ranks of the value 0 alike; furthest: {far}"))
    return rows


@dataclass(frozen=True)
class ReturnRow:
    """A wager's observed return against its exact return, and the verdict: "bug or variance?"."""

    wager: str                   # WAGER:PAYTABLE (+ SETTLED: from the simulator's own settlement)
    observed: Fraction           # Σ net pay over the rounds, / rounds: exact
    exact: Fraction
    se: float                    # the exact σ / √rounds
    z: float
    p_value: float
    tested: bool = True          # the z-test ran: enough rounds for a normal approximation (:data:`Z_ROUNDS`)
    interval: tuple[float, float] | None = None    # observed ± the z of the row's level · se: what the verdict reads
    confidence: float = math.nan                   # 1 - the row's level (Holm's, see CheckResult.level)
    verdict: str = ""            # "variance", "FLAG: bug (...)", "withheld", "not tested (...)"
    flagged: bool = False
    detectable: float = math.nan  # the smallest deviation of the return detected at the row's level with 80% power
    rounds_to_detect: int | None = None  # for ``--detect``
    paid: Fraction | None = None  # the return paid (a settlement column of amounts): Σ amount / Σ stake
    sigma: float = math.nan      # the exact standard deviation of a round


#: The power the detectable deviation and the rounds for ``--detect`` are stated at.
POWER = 0.8


def _return_row(key: str, r: WagerResult, counts: Mapping[str, int], n: int) -> ReturnRow:
    """Observed return, its exact standard error (the exact variance of one round over the rounds), z and two-sided
    p (normal); whether there are rounds enough for the normal approximation (then it is one of the tests). Its
    interval and verdict come once every test is judged (:func:`_judged`)."""
    norm = _scipy_stats().norm
    observed = sum((Fraction(counts.get(ln.id, 0)) * ln.net for ln in r.lines), Fraction(0)) / n
    sigma = math.sqrt(float(r.variance))
    se = sigma / math.sqrt(n)
    z = (float(observed - r.expected_return) / se) if se else 0.0
    hit = float(r.hit_frequency)
    tested = bool(se) and n * min(hit, 1 - hit) >= Z_ROUNDS
    return ReturnRow(key, observed, Fraction(r.expected_return), se, z, float(2 * norm.sf(abs(z))), tested,
                     sigma=sigma)


def _judged(x: ReturnRow, level: float, *, flagged: bool, outright: str, withheld: str,
            detect: Fraction | None) -> ReturnRow:
    """``x`` with its interval at ``level`` (Holm's level for the tests not flagged: a row is outside it exactly when
    its z-test is flagged), its verdict (``flagged``: its z-test was; ``outright``: rounds settled or paid wrong,
    round by round), the deviation detectable at that level with 80% power and the rounds to detect ``detect``."""
    norm = _scipy_stats().norm
    critical = float(norm.isf(level / 2))
    reach = critical + float(norm.ppf(POWER))               # the upper tail: exact for the smallest level
    needed = None
    if detect and math.isfinite(reach):
        needed = math.ceil((reach * x.sigma / float(detect)) ** 2)
        if needed >= 10**15:                                  # past a float's digits: 3 significant, the rest zeros
            needed = round(needed, 3 - len(str(needed)))
    interval = None
    if x.tested and not withheld:
        interval = (float(x.observed) - critical * x.se, float(x.observed) + critical * x.se)
    reasons = ([] if withheld or not flagged else ["outside its interval"]) + ([outright] if outright else [])
    if reasons:
        verdict = "FLAG: bug (" + "; ".join(reasons) + ")"
    elif withheld:
        verdict = "withheld"
    elif not x.tested:
        verdict = "not tested (too few rounds)"
    else:
        verdict = "variance"
    return replace(x, interval=interval, confidence=1 - level, verdict=verdict, flagged=bool(reasons),
                   detectable=reach * x.se, rounds_to_detect=needed)


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    The i-th smallest of m p-values is multiplied by m - i + 1 (i from 1), capped at 1, and made
    non-decreasing in that order; a test is rejected at ``alpha`` when its adjusted p-value is below
    it. This is ``statsmodels.stats.multitest.multipletests(method="holm")``; scipy, a dependency
    already, has only Benjamini-Hochberg/Yekutieli (``false_discovery_control``), a different
    procedure, and statsmodels would add itself, pandas and patsy (about 130 MB) and a further
    second of imports to every check for these eight lines (a test checks them against
    statsmodels' definition, step by step).
    """
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m = len(p_values)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def _holm(rows: list[TestRow], alpha: float) -> tuple[list[TestRow], float]:
    """The rows with their Holm-adjusted p-values, flagged when one is below ``alpha`` (withheld rows are shown,
    not judged: not among the m tests), and the level every test not flagged was held to.

    Holm's rule stops at its first test not rejected: with k of m rejected, that one's p is at least
    alpha / (m - k), and every rejected p is below alpha / (m - k + 1). So a test is flagged exactly when its
    p-value is below ``alpha / (m - k)``: the one level at which each row's interval is drawn.
    """
    judged = [i for i, r in enumerate(rows) if not r.withheld]
    adjusted = holm_adjusted([rows[i].p_value for i in judged])
    out = list(rows)
    for k, i in enumerate(judged):
        r = rows[i]
        out[i] = replace(r, adjusted=adjusted[k], flagged=r.flagged or adjusted[k] < alpha)
    m, rejected = len(judged), sum(out[i].flagged for i in judged)
    return out, alpha / (m - rejected) if rejected < m else alpha


def _pairs(catalogue: Catalogue, wagers: Iterable[str] | None) -> list[tuple[Wager, str]]:
    if wagers:

        return priced_pairs(catalogue, list(wagers), where="--wager")
    return [(w, t) for w in catalogue.values() for t in w.paytables]


@dataclass
class Tally:
    """What checking needs from a set of rounds: exact counts, added up chunk by chunk (a map-reduce).

    Rounds are counted by class (:class:`~exactodds.simulation.roundclasses.RoundHistogram`) and settled
    once per class at the end; a counts file's outcome counts are held as given.
    """

    rounds: int = 0
    histogram: RoundHistogram = field(default_factory=RoundHistogram)
    counts: dict[str, np.ndarray] = field(default_factory=dict)        # given counts: key -> per outcome, 'lose' last
    reported: dict[str, np.ndarray] = field(default_factory=dict)      # the simulator's own, 'other' last
    mismatches: dict[str, int] = field(default_factory=dict)
    first_mismatch: dict[str, tuple[str, int, str, str]] = field(default_factory=dict)
    paid: dict[str, Fraction] = field(default_factory=dict)            # a column of amounts: Σ amount paid,
    staked: dict[str, Fraction] = field(default_factory=dict)          # Σ stake,
    mispaid: dict[str, int] = field(default_factory=dict)              # rounds paid wrong, and the first:
    first_mispaid: dict[str, tuple[str, int, str, str, str]] = field(default_factory=dict)  # (source, line, paid,
                                                                       # the paytable's amount, the outcome)
    invalid: list[tuple[str, int, str]] = field(default_factory=list)   # the first 1000
    invalid_count: int = 0
    columns: frozenset[str] | None = None       # the settlement columns of the first chunk read
    rule_breaks: RuleBreaks = field(default_factory=RuleBreaks)
    cards: np.ndarray = field(default_factory=lambda: np.zeros(52, dtype=np.int64))   # dealt, per identity
    within: WithinShoe = field(default_factory=WithinShoe)      # the within-shoe tests, with a shoe column
    carry: Carry = field(default_factory=Carry, repr=False)     # a file's shoe across its chunks (not added)

    def add(self, other: Tally) -> Tally:
        if self.columns is None:
            self.columns = other.columns
        self.rule_breaks.add(other.rule_breaks)
        self.cards = self.cards + other.cards
        self.within.add(other.within)
        self.rounds += other.rounds
        self.histogram.merge(other.histogram)
        for mine, theirs in ((self.counts, other.counts), (self.reported, other.reported)):
            for k, v in theirs.items():
                mine[k] = mine[k] + v if k in mine else v.copy()
        for k, n in other.mismatches.items():
            self.mismatches[k] = self.mismatches.get(k, 0) + n
        for k, first in other.first_mismatch.items():
            self.first_mismatch.setdefault(k, first)
        for k, amount in other.paid.items():
            self.paid[k] = self.paid.get(k, Fraction(0)) + amount
        for k, amount in other.staked.items():
            self.staked[k] = self.staked.get(k, Fraction(0)) + amount
        for k, n in other.mispaid.items():
            self.mispaid[k] = self.mispaid.get(k, 0) + n
        for k, bad in other.first_mispaid.items():
            self.first_mispaid.setdefault(k, bad)
        self.invalid = (self.invalid + other.invalid)[:1000]
        self.invalid_count += other.invalid_count
        return self

    def outcome_counts(self, pairs: Sequence[tuple[Wager, str]]) -> dict[str, np.ndarray]:
        """Rounds per outcome ('lose' last) of every (wager, paytable): given, or settled class by class."""

        out = {f"{w.id}:{tid}": self.counts[f"{w.id}:{tid}"] for w, tid in pairs if f"{w.id}:{tid}" in self.counts}
        by_signature: dict[Any, list[tuple[Wager, str]]] = {}
        for w, tid in pairs:
            if f"{w.id}:{tid}" not in out:
                by_signature.setdefault(table_signature(w), []).append((w, tid))
        value_level = [s for s in by_signature if histogram_kind(s) in ("values", "flagged")]
        base = np.zeros(0, dtype=np.int64)
        if value_level:                                  # the point-value features of each value code, once
            present = self.histogram.classes(("multiset", ()), every=True).codes
            assert present is not None
            base = present
            value_cols = value_columns(decode_digits(base), sorted({n for s in value_level for n in s[1]}))
        shared: dict[str, Any] = {}                      # per histogram: its classes
        described: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]] = {}      # and their features
        for sig, group in by_signature.items():
            kind = histogram_kind(sig)
            if kind not in shared or kind == "other":         # by value code: every class, seen or not,
                shared[kind] = self.histogram.classes(sig, every=True)   # so memory does not grow with rounds
            classes = shared[kind]
            if kind in ("values", "flagged"):            # the classes of the point-value features read, ...
                assert classes.codes is not None
                _, by_values = distinct(codes([value_cols[n] for n in sig[1]]))
                keys = by_values[np.searchsorted(base, classes.codes)] if kind == "flagged" else by_values
                if kind == "flagged":                     # ... and the all-same flags
                    assert classes.flags is not None
                    keys = keys * 8 + classes.flags
                first, inverse = distinct(keys)
                rounds = classes.rounds(first)
                cols = features(rounds[:, :3], rounds[:, 3:])
            else:                                        # every class's features, once per histogram
                whose = "initial" if kind == "initial" else repr(sig)
                if whose not in described:
                    every = classes.rounds(np.arange(len(classes.counts)))
                    described[whose] = (every, features(every[:, :3], every[:, 3:]))
                every, every_cols = described[whose]
                first, inverse = distinct(round_keys(every[:, :3], every[:, 3:], sig))
                cols = {name: column[first] for name, column in every_cols.items()}
            per_class = np.zeros(len(first), dtype=np.int64)
            np.add.at(per_class, inverse, classes.counts)
            for w, tid in group:
                assign = settle_rounds(w, w.paytables[tid], cols)
                total = np.zeros(len(w.outcomes) + 1, dtype=np.int64)
                np.add.at(total, np.where(assign < 0, len(w.outcomes), assign), per_class)
                out[f"{w.id}:{tid}"] = total
        return out


def tally_chunk(chunk: Any, pairs: Sequence[tuple[Wager, str]], *, decks: int, lenient: bool,
                into: Tally | None = None, signatures: Sequence[tuple[Any, ...]] | None = None,
                within: bool = True) -> Tally:
    """Count one chunk of rounds for every (wager, paytable): the map step of a check (added
    to ``into`` when given, which is then returned). ``signatures``: the pairs' table
    signatures, when already known."""

    good, problems, codes, value_counts, breaks = _valid(chunk, decks=decks)
    problems = sorted(chunk.invalid + problems, key=lambda x: x[1])
    if problems and not lenient:
        src, line, what = problems[0]
        raise ExactOddsError(f"{src}:{line}: {what}")
    everything = bool(good.all())
    cards = chunk.cards if everything else chunk.cards[good]
    player, banker = cards[:, :3], cards[:, 3:]
    lines = chunk.lines if everything else chunk.lines[good]
    t = Tally() if into is None else into
    t.rule_breaks.add(breaks)
    t.cards += np.bincount(cards[cards >= 0], minlength=52)
    t.rounds += len(player)
    t.invalid = (t.invalid + problems[:1000])[:1000]
    t.invalid_count += len(chunk.invalid) + int((~good).sum()) - breaks.count   # problems lists only the first of
                                                                                # each kind; rule breaks apart
    if signatures is None:
        signatures = sorted({table_signature(w) for w, _ in pairs}, key=repr)
    if len(player):
        t.histogram.add(cards, kinds={histogram_kind(s) for s in signatures}, signatures=signatures,
                        value_counts=value_counts, codes=codes if everything else codes[good])
    if within and SHOE_COLUMN in chunk.settled and len(player):      # the order dealt within each shoe
        shoe_codes, shoe_names = chunk.settled[SHOE_COLUMN]
        named = np.asarray([str(x) for x in shoe_names] or [""])[shoe_codes if everything else shoe_codes[good]]
        tally_within(t.within, t.carry, cards, named, decks, _main_game_chances)
    groups: dict[Any, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
    cache: dict[str, Any] = {}
    stakes: tuple[np.ndarray, list[Fraction]] | None = None
    for w, tid in pairs:                               # the simulator's own settlements
        key = f"{w.id}:{tid}"
        if key not in chunk.settled or not len(player):
            continue
        ids = [o.id for o in w.outcomes] + ["lose"]
        sig = table_signature(w)
        if sig not in groups:
            groups[sig] = settlement_groups(player, banker, sig, cache)
        inverse, cols = groups[sig]
        assign = settle_rounds(w, w.paytables[tid], cols)                  # per group of rounds, -1 a loss
        ours = np.where(assign < 0, len(ids) - 1, assign)                  # per group: the outcome we pay
        codes_paid, values = chunk.settled[key]
        paid_codes = codes_paid if everything else codes_paid[good]       # per round: the value written
        amounts = amounts_of(values)
        if amounts is not None:                          # net amounts won or lost, not outcome ids
            if key in t.reported:
                raise ExactOddsError(f"{chunk.source}: settlement column {key!r} holds outcome ids in some rounds, "
                                     "amounts in others")
            if stakes is None:
                stakes = _stakes(chunk, good, everything)
            _tally_amounts(t, chunk, w, tid, ours[inverse], paid_codes, values, amounts, stakes,
                           lines)
            continue
        if key in t.staked:
            raise ExactOddsError(f"{chunk.source}: settlement column {key!r} holds amounts in some rounds, "
                                 "outcome ids in others")
        index = {i: k for k, i in enumerate(ids)}
        value_id = np.array([index.get(v, -2) for v in values] or [-2], dtype=np.int64)   # -2: no outcome
        width = len(value_id)
        if len(ours) * width <= len(paid_codes):         # few groups: rounds by (group, value written)
            by_group = np.bincount(inverse * width + paid_codes, minlength=len(ours) * width).reshape(-1, width)
            written = by_group.sum(axis=0)
            wrong = int(by_group[value_id[None, :] != ours[:, None]].sum())
        else:                                            # about a group a round: round by round
            written = np.bincount(paid_codes, minlength=width)
            wrong = int(np.count_nonzero(value_id[paid_codes] != ours[inverse]))
        if not lenient and written[value_id == -2].any():     # not a settlement at all: bad input
            i = int(np.argmax(value_id[paid_codes] == -2))
            raise ExactOddsError(f"{chunk.source}:{chunk.line(int(lines[i]))}: settlement column {key!r}: "
                                 f"{values[int(paid_codes[i])]!r} is not an outcome of {w.id} "
                                 f"({', '.join(ids)})")
        t.mismatches[key] = t.mismatches.get(key, 0) + wrong
        if wrong and key not in t.first_mismatch:        # the first round that differs, found only now
            i = int(np.argmax(value_id[paid_codes] != ours[inverse]))
            t.first_mismatch[key] = (chunk.source, chunk.line(int(lines[i])), values[int(paid_codes[i])],
                                     ids[int(ours[inverse[i]])])
        reported = np.zeros(len(ids) + 1, dtype=np.int64)                  # rounds per outcome written
        np.add.at(reported, np.where(value_id < 0, len(ids), value_id), written)
        t.reported[key] = t.reported[key] + reported if key in t.reported else reported
    return t


def _stakes(chunk: Any, good: np.ndarray, everything: bool) -> tuple[np.ndarray, list[Fraction]]:
    """Each checkable round's stake (a code into the distinct stakes), from the ``stake`` column, else 1."""
    if STAKE_COLUMN not in chunk.settled:
        return np.zeros(int(good.sum()), dtype=np.int64), [Fraction(1)]
    codes, values = chunk.settled[STAKE_COLUMN]
    parsed = []
    for k, v in enumerate(values):
        try:
            x = Fraction(str(v).strip())
        except (ValueError, ZeroDivisionError):
            x = Fraction(0)
        if x <= 0:
            at = int(np.argmax(np.asarray(codes) == k))
            raise ExactOddsError(f"{chunk.source}:{chunk.line(int(chunk.lines[at]))}: {STAKE_COLUMN} {v!r} is not an "
                                 "amount above 0 (the stake of the round's wagers, in the unit of their amounts)")
        parsed.append(x)
    return (np.asarray(codes) if everything else np.asarray(codes)[good]).astype(np.int64), parsed


def _tally_amounts(t: Tally, chunk: Any, w: Wager, tid: str, ours: np.ndarray, paid_codes: np.ndarray,
                   values: Sequence[str], amounts: list[Fraction], stakes: tuple[np.ndarray, list[Fraction]],
                   lines: np.ndarray) -> None:
    """Check a settlement column of amounts round by round: the amount paid is what the paytable pays on the
    round's stake for the outcome its cards make (``ours``, per round); add the amounts paid and the stakes."""
    key = f"{w.id}:{tid}"
    stake_codes, stake_values = stakes
    canon: dict[Fraction, int] = {}
    amount_id = np.array([canon.setdefault(a, k) for k, a in enumerate(amounts)], dtype=np.int64)
    width = 2                                            # the exact net, and with a rounded vigorish
    expected = np.full((len(stake_values), len(w.outcomes) + 1, width), -1, dtype=np.int64)
    said: dict[tuple[int, int], Fraction] = {}
    for j, stake in enumerate(stake_values):
        for o, nets in enumerate(pays_per_stake(w, tid, stake, dollars=STAKE_COLUMN in chunk.settled)):
            said[j, o] = nets[0]
            for k, net in enumerate(nets[:width]):
                expected[j, o, k] = canon.get(net, -1)
    got = amount_id[paid_codes]
    right = (expected[stake_codes, ours] == got[:, None]).any(axis=1)
    wrong = int(len(right) - np.count_nonzero(right))
    t.mispaid[key] = t.mispaid.get(key, 0) + wrong
    if wrong and key not in t.first_mispaid:
        i = int(np.argmax(~right))
        t.first_mispaid[key] = (chunk.source, chunk.line(int(lines[i])), str(values[int(paid_codes[i])]).strip(),
                                amount_text(said[int(stake_codes[i]), int(ours[i])]),
                                ([o.id for o in w.outcomes] + ["lose"])[int(ours[i])])
    per_amount = np.bincount(paid_codes, minlength=len(amounts)).tolist()
    per_stake = np.bincount(stake_codes, minlength=len(stake_values)).tolist()
    t.paid[key] = t.paid.get(key, Fraction(0)) + sum((n * a for n, a in zip(per_amount, amounts)), Fraction(0))
    t.staked[key] = t.staked.get(key, Fraction(0)) + sum((n * x for n, x in zip(per_stake, stake_values)), Fraction(0))


def _amounts_row(t: Tally, wager: str, table: str) -> TestRow:
    """Whether every round of a settlement column of amounts was paid what the paytable pays for its cards (a
    failed check naming the first round that was not), with the return paid."""
    key = f"{wager}:{table}"
    wrong = t.mispaid.get(key, 0)
    paid = t.paid[key] / t.staked[key]
    if wrong:
        src, line, amount, should, outcome = t.first_mispaid[key]
        return TestRow(wager, table, "amounts", float(wrong), 0.0, 0.0, True,
                       f"{_rounds(wrong, 'round')} paid wrong; first at {src}:{line}: paid {amount}, the paytable "
                       f"pays {should} for {outcome!r}; return paid {float(paid):+.6f} per unit staked")
    return TestRow(wager, table, "amounts", 0.0, 1.0, 1.0, False,
                   f"every round paid as its cards say ({t.rounds:,}); return paid {float(paid):+.6f} per unit staked")


def _check_settled_names(names: Iterable[str], cat: Catalogue, pairs: list[tuple[Wager, str]],
                         source: str = "records", *, add: bool = True) -> None:
    """Every settlement column names a wager:paytable of the catalogue; with ``add``, those not yet
    checked are added to ``pairs``. Without (``--wager`` chose what is checked), the other columns are
    not read at all: they may name wagers of a data file not given."""
    chosen = {f"{w.id}:{t}" for w, t in pairs}
    for name in names:
        if name in (SHOE_COLUMN, STAKE_COLUMN, ROUND_COLUMN) or (not add and name not in chosen):
            continue
        wid, _, table = name.partition(":")
        if wid not in cat or table not in cat[wid].paytables:
            near = did_you_mean(name, [f"{w}:{p}" for w in cat for p in cat[w].paytables])
            raise ExactOddsError(f"{source}: settlement column {name!r}: no such wager:paytable{near} "
                                 "(see 'exactodds list'; a wager of your own: give --paytables FILE, the data "
                                 "file that defines it)")
        if add and not any(w.id == wid and t == table for w, t in pairs):
            pairs.append((cat[wid], table))


def result_from_tally(t: Tally, pairs: Sequence[tuple[Wager, str]], *, decks: int, alpha: float,
                      detect: Fraction | None = None, validation: bool = False, complete: bool = True,
                      source: str = "") -> CheckResult:
    """The tests of a check, from its counts (the reduce step's last part). ``detect``: a deviation of the
    return whose rounds needed to detect it are shown per wager (``--detect``); ``source``: what was read. With ``validation`` the
    rounds are a validation file's (:mod:`exactodds.simulation.validation`), chosen, not dealt: only the
    drawing rules and every settlement are checked, no statistic."""

    if not 0 < alpha < 1:
        raise ExactOddsError(f"--alpha must be between 0 and 1, got {alpha}")
    n = t.rounds
    if n == 0 and not t.rule_breaks.count:
        raise ExactOddsError("no valid rounds to check")
    rows: list[TestRow] = []
    withheld = ""
    if t.rule_breaks.count:                                # a failed check outright, like a wrong settlement
        src, line, cards, rule = t.rule_breaks.first[0]
        rows.append(TestRow("cards", "", "drawing rules", float(t.rule_breaks.count), 0.0, 0.0, True,
                            f"{_rounds(t.rule_breaks.count, 'round')} "
                            f"{'breaks' if t.rule_breaks.count == 1 else 'break'} the drawing rules of §627a.10, "
                            f"left out: {t.rule_breaks.summary()}; first at {src}:{line}: {cards}"))
        withheld = (f"{_rounds(t.rule_breaks.count, 'round')} that break the drawing rules were left out, so the "
                    "rounds kept are not a fair sample of a true deal (their gap would read as a second bug)")
    if validation:
        return _validation_result(t, pairs, rows, decks=decks, complete=complete)
    if not withheld:
        _not_a_validation_file(t, decks, source)
    rows += _card_tests(t.cards)                          # each card alike within its point value: rounds left out
    split = split_shoes(t.within)                         # by their point values leave these tests fair
    if split:
        raise ExactOddsError(f"shoe {split[0]} is split between files: the within-shoe tests read a shoe's rounds "
                             "from one file")
    rows += [TestRow("shoes", "", name, z, p, detail=what, withheld=withheld) for name, z, p, what in within_rows(t.within)]
    observed: dict[str, dict[str, tuple[int, float]]] = {}
    pending: list[tuple[ReturnRow, str, str]] = []      # a return row, its z-test's name, what it failed outright
    tallied = t.outcome_counts(pairs) if n else {}
    door = Door(Shoe.decks(decks))
    for w, tid in pairs if n else ():
        r = door.price(w, w.paytables[tid])
        ids = [o.id for o in w.outcomes] + ["lose"]
        key = f"{w.id}:{tid}"
        counts = dict(zip(ids, tallied[key].tolist()))
        ret = None if r.symbolic else _return_row(key, r, counts, n)
        rows += [replace(x, withheld=withheld) for x in _tests(key, r, counts, n, ret)]
        observed[key] = {ln.name: (int(counts.get(ln.id, 0)), float(ln.probability) * n) for ln in r.lines}
        outright = ""
        if key in t.staked:                               # a settlement column of amounts: each round's, checked
            rows.append(_amounts_row(t, w.id, tid))
            wrong = t.mispaid.get(key, 0)
            outright = f"{_rounds(wrong, 'round')} paid wrong" if wrong else ""
            if ret is not None:
                ret = replace(ret, paid=t.paid[key] / t.staked[key])
        if ret is not None:
            pending.append((ret, f"{key} z return", outright))
        if key in t.reported:
            rows.append(_settlement_row(t, w.id, tid))
            wrong = t.mismatches.get(key, 0)
            if not wrong:                                 # the same rounds per outcome: the same tests, not repeated
                continue
            rep = dict(zip(ids, t.reported[key][:-1].tolist()))
            observed[key + SETTLED] = {ln.name: (int(rep.get(ln.id, 0)), float(ln.probability) * n) for ln in r.lines}
            mine = None if r.symbolic else _return_row(key + SETTLED, r, rep, n)
            rows += [TestRow(x.wager, x.paytable, "reported " + x.test, x.statistic, x.p_value, detail=x.detail,
                             withheld=withheld) for x in _tests(key, r, rep, n, mine)]
            if mine is not None:                          # the return the simulator paid, beside the cards' own
                pending.append((mine, f"{key} reported z return", f"{_rounds(wrong, 'round')} settled differently "
                                                                  "from their cards"))
    if detect is not None and n and not pending:
        raise ExactOddsError("--detect: no wager checked has a fixed paytable (a progressive's return depends on "
                             "its meter): name one with --wager")
    judged, level = _holm(rows, alpha)
    judged = [replace(r, detail=f"{said}; {r.detail}") if r.flagged and (said := meaning(r.test, r.statistic)) else r
              for r in judged]
    flags = {f"{r.wager}:{r.paytable} {r.test}": r.flagged for r in judged}
    returns = [_judged(x, level, flagged=flags.get(name, False), outright=outright, withheld=withheld, detect=detect)
               for x, name, outright in pending]
    invalid = tuple((line, f"{src}: {what}") for src, line, what in t.invalid)
    first = f"{t.invalid[0][0]}:{t.invalid[0][1]}: {t.invalid[0][2]}" if t.invalid else ""
    return CheckResult(n, alpha, tuple(judged), observed, invalid, t.invalid_count, first,
                       tuple(returns), tuple(t.rule_breaks.first), detect, level=level, withheld=withheld)


def _main_game_chances(value_counts: np.ndarray) -> np.ndarray:
    """The exact chances of Banker, Player and Tie off each shoe of ``value_counts`` (shoes, 10), as floats
    (a test's chances; each from exact integer counts): from the batched returns of the Player bet (2 on a
    win, 1 on a tie, §627a.12) and the Tie bet, whose pays give P(Tie) and then P(Player)."""
    cat = load_catalogue()
    player, tie = cat["player"], cat["tie"]
    p_table, t_table = player.paytable("standard"), tie.paytable("8-to-1")
    got_p, got_t = return_numerators([(player, p_table), (tie, t_table)], value_counts)
    assert got_p is not None and got_t is not None
    tie_back = float(t_table.pays["tie"].net + 1)                    # a tie returns 9 units
    out = np.empty((len(value_counts), 3))
    for i, (fp, ft, total) in enumerate(zip(got_p.first, got_t.first, got_p.totals)):
        p_tie = ft / (got_t.scale * total) / tie_back
        p_player = (fp / (got_p.scale * total) - p_tie) / 2           # E[return + 1] = 2 P(Player) + P(Tie)
        out[i] = (1 - p_player - p_tie, p_player, p_tie)
    return out


def _by_line(w: Wager, tid: str, counted: Mapping[str, np.ndarray]) -> list[int]:
    """The rounds of each of the wager's priced lines (offered outcomes, then a loss), from ``counted``."""
    ids = [o.id for o in w.outcomes] + ["lose"]
    per = dict(zip(ids, counted[f"{w.id}:{tid}"].tolist())) if f"{w.id}:{tid}" in counted else {}
    return [int(per.get(o.id, 0)) for o in w.outcomes if w.paytables[tid].pays[o.id].offered] + [per.get("lose", 0)]


def _settlement_row(t: Tally, wager: str, table: str) -> TestRow:
    """Whether every round's reported settlement of ``wager:table`` is the one its cards say (a failed check
    naming the first round that is not)."""
    wrong = t.mismatches.get(f"{wager}:{table}", 0)
    if wrong:
        src, line, paid, ours = t.first_mismatch[f"{wager}:{table}"]
        return TestRow(wager, table, "settlement", float(wrong), 0.0, 0.0, True,
                       f"{_rounds(wrong, 'round')} settled differently; first at {src}:{line}: "
                       f"paid {paid!r}, the cards say {ours!r}")
    return TestRow(wager, table, "settlement", 0.0, 1.0, 1.0, False,
                   f"every round settled as its cards say ({t.rounds:,})")


def _coverage(t: Tally, decks: int) -> tuple[int, int]:
    """How many value-level round classes a full shoe of ``decks`` deals, and how many of them the rounds lack."""
    dealable = _dealable()
    if decks < 2:                                      # a deck holds four of each value but 0 (sixteen)
        digits = decode_digits(np.arange(VALUE_SPACE))
        dealable = dealable & ~(np.stack([(digits == v).sum(axis=1) for v in range(1, 10)], axis=1) > 4 * decks
                                ).any(axis=1)
    seen = t.histogram.values if t.histogram.values is not None else np.zeros(VALUE_SPACE, dtype=np.int64)
    return int(np.count_nonzero(dealable)), int(np.count_nonzero(dealable & (seen == 0)))


def _not_a_validation_file(t: Tally, decks: int, source: str) -> None:
    """A validation file (``certificate --validation``) read as a simulator's output is named, not flagged test by
    test: it holds a round of every value-level class, its rarest ones included, in barely more rounds than there
    are classes; dealt rounds need some 10^8 to see them all (the rarest comes about once in 5 million rounds)."""
    classes, lacking = _coverage(t, decks)
    if not lacking and t.rounds <= 2 * classes:
        raise ExactOddsError(f"{source or 'the records'}: a validation file ({t.rounds:,} rounds, one of every round class the rules deal, "
                             "written by 'certificate --validation'): its rounds are chosen, not dealt, so no "
                             "statistic applies; check it with 'check-sim --validation'")


def _validation_result(t: Tally, pairs: Sequence[tuple[Wager, str]], rows: list[TestRow], *, decks: int,
                       complete: bool) -> CheckResult:
    """A validation file's check: the drawing rules (``rows``), each wager's settlement round by round, and
    (with ``complete``) that the file holds a round of every value-level class and of every outcome a full
    shoe of ``decks`` can deal, so a game cannot pass by leaving out the rounds it gets wrong."""
    unsettled = [f"{w.id}:{tid}" for w, tid in pairs if f"{w.id}:{tid}" not in t.reported
                 and f"{w.id}:{tid}" not in t.staked]
    if unsettled or not pairs:
        raise ExactOddsError(f"--validation checks the settlements a file carries; it has no column "
                             f"{', '.join(unsettled[:3])}" if pairs else
                             "--validation checks the settlements a file carries; it has no WAGER:PAYTABLE column")
    rows += [_amounts_row(t, w.id, tid) if f"{w.id}:{tid}" in t.staked else _settlement_row(t, w.id, tid)
             for w, tid in pairs]
    dealable, lacking = _coverage(t, decks)
    counted = t.outcome_counts(pairs) if t.rounds else {}
    door = Door(Shoe.decks(decks))
    unseen = [f"{w.id}:{tid} {ln.id}" for w, tid in pairs
              for ln, k in zip(door.price(w, w.paytables[tid]).lines, _by_line(w, tid, counted))
              if ln.id != "lose" and ln.combinations > 0 and k == 0]
    short = bool(lacking or unseen)
    rows.append(TestRow("rounds", "", "coverage", float(lacking + len(unseen)), 0.0 if short else 1.0,
                        0.0 if short else 1.0, short and complete,
                        (f"{dealable - lacking:,} of {dealable:,} value-level "
                         f"round classes {a_or_an(decks)} {decks}-deck shoe deals" + (f"; no round of {', '.join(unseen[:4])}"
                                                                       + (" ..." if len(unseen) > 4 else "")
                                                                       if unseen else "; every outcome")
                         + ("" if complete else " (--lenient: not flagged)"))))
    invalid = tuple((line, f"{src}: {what}") for src, line, what in t.invalid)
    first = f"{t.invalid[0][0]}:{t.invalid[0][1]}: {t.invalid[0][2]}" if t.invalid else ""
    return CheckResult(t.rounds, 0.0, tuple(rows), {}, invalid, t.invalid_count, first, (),
                       tuple(t.rule_breaks.first), None, validation=True)


def check(records: Records, *, decks: int = 8, wagers: Iterable[str] | None = None, alpha: float = 0.01,
          catalogue: Catalogue | None = None, detect: Fraction | None = None) -> CheckResult:
    """Compare per-round records held in memory with the exact distribution off the top of ``decks`` decks."""

    if detect is not None and not 0 < exact_number(detect, "--detect") < 2:      # as the option is held
        raise ExactOddsError(f"--detect: a deviation of the return is above 0 and below 2 (200%), got {detect!r}")
    cat = catalogue if catalogue is not None else load_catalogue()
    pairs = _pairs(cat, wagers)
    _check_settled_names(records.settled, cat, pairs, add=not wagers)
    settled = {}
    for name, values in records.settled.items():
        distinct, codes = np.unique(np.asarray(values).astype(str), return_inverse=True)
        settled[name] = (codes.ravel().astype(np.int64), [str(v) for v in distinct])
    chunk = Chunk(np.asarray(records.player), np.asarray(records.banker), np.asarray(records.lines), "records",
                  settled)
    t = tally_chunk(chunk, pairs, decks=decks, lenient=True)
    t.invalid = [("records", line, what) for line, what in records.invalid] + t.invalid
    t.invalid_count += len(records.invalid)
    t.rule_breaks.add(records.rule_breaks)
    return result_from_tally(t, pairs, decks=decks, alpha=alpha, detect=detect)


class Keeper(Protocol):
    """What keeps a check's state as it goes (:class:`exactodds.simulation.checkstate.Checkpoint`): told what
    the check is, asked where to resume, told which file is opened, each chunk counted, and when a file's tally
    is added to the total (begun, then finished)."""

    def begin(self, *, specs: list[str], files: list[str], pairs: list[tuple[Wager, str]], catalogue: Catalogue,
              settings: dict[str, Any]) -> None: ...

    def resumed(self, pairs: list[tuple[Wager, str]]) -> tuple[Tally, int, tuple[Tally, int] | None]: ...

    def opening(self, file: int) -> None: ...

    def counted(self, current: Tally, chunks: int) -> None: ...

    def adding(self) -> None: ...

    def finished(self, file: int, total: Tally) -> None: ...

    def close(self) -> None: ...


def tally_file(source: str, pairs: list[tuple[Wager, str]], *, decks: int, lenient: bool,
               fmt: str | None = None, progress: Any = None, catalogue: Catalogue | None = None,
               chunks: Iterator[Any] | None = None, settled: frozenset[str] | None = None,
               add: bool = True, within: bool = True, resume: tuple[Tally, int] | None = None,
               keeper: Keeper | None = None) -> Tally:
    """Read one file in chunks and count it (the unit of work of a check on a cluster).

    With ``catalogue``, the settlement columns of the first chunk are checked against it and
    added to ``pairs`` (unless not ``add``: ``--wager`` chose what is checked) before anything is counted
    (standard input can be read only once).
    ``chunks``: the file's chunks, when its reading has already begun. ``settled``: the
    settlement columns every chunk must have (those of a data set's first shard). ``resume``: the tally of
    the file's first chunks, counted before a stop, and how many they are: those are read again (their
    boundaries decide the rest's) but not counted. ``keeper`` is told of each chunk counted.
    """

    total, skip = resume if resume is not None else (Tally(), 0)
    read = 0
    signatures = None
    chosen = frozenset(f"{w.id}:{t}" for w, t in pairs)           # with --wager, the columns read
    if chunks is None:
        chunks = read_chunks(source, fmt=fmt) if source == "-" else read_ahead.of(source, fmt=fmt)
    try:
        for chunk in chunks:
            if catalogue is not None:
                _check_settled_names(chunk.settled, catalogue, pairs, source, add=add)
                catalogue = None
            if total.columns is None:
                total.columns = frozenset(chunk.settled) if add else frozenset(chunk.settled) & chosen
                if settled is not None and total.columns != settled:
                    raise ExactOddsError(f"{source}: settlement columns {', '.join(sorted(total.columns)) or 'none'}"
                                         f", but the first shard has {', '.join(sorted(settled)) or 'none'}")
            if signatures is None:
                signatures = sorted({table_signature(w) for w, _ in pairs}, key=repr)
            read += 1
            if read > skip:                              # else counted before a stop: in ``resume``
                tally_chunk(chunk, pairs, decks=decks, lenient=lenient, into=total, signatures=signatures,
                            within=within)
                if keeper is not None:
                    keeper.counted(total, read)
            if progress is not None:
                progress(len(chunk))
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    if read < skip:
        raise ExactOddsError(f"{source}: {read:,} chunks of records, but {skip:,} were counted before the stop: "
                             "the file changed since")
    if total.carry.first is not None and total.carry.shoe is not None:     # its first and last shoe
        total.within.edges.append((source, total.carry.first, total.carry.shoe))
    return total


def check_files(source: str | Sequence[str], *, decks: int = 8, wagers: Iterable[str] | None = None, alpha: float = 0.01,
                lenient: bool = False, fmt: str | None = None, catalogue: Catalogue | None = None,
                scheduler: Any = None, progress: Any = None, detect: Fraction | None = None,
                validation: bool = False, checkpoint: Keeper | None = None) -> CheckResult:
    """Check a file, a directory or a glob of shards (or several of these, read as one data set)
    in chunks, in bounded memory.

    Without ``scheduler`` the files are counted here, one after another; with it
    (a Dask scheduler address or a ``dask.distributed.Client``), each file is
    counted on the cluster and the counts are added up here. ``checkpoint``
    (:class:`exactodds.simulation.checkstate.Checkpoint`) keeps the exact tallies of what is counted
    in a file as the check goes, and resumes a check stopped before from where it stood.
    """

    if not 0 < alpha < 1:
        raise ExactOddsError(f"--alpha must be between 0 and 1, got {alpha}")
    specs = [source] if isinstance(source, str) else list(source)
    if len(specs) > 1 and "-" in specs:
        raise ExactOddsError("standard input ('-') is read alone, not with other sources")
    files = [f for spec in specs for f in expand_sources(spec)]
    source = " ".join(specs)
    if checkpoint is not None and (scheduler is not None or files[0] == "-"):
        raise ExactOddsError("--checkpoint keeps a check counted here, from files read again on resuming: "
                             + ("not with --scheduler" if scheduler is not None else "not standard input"))
    ahead = None
    if scheduler is None and files[0] != "-" and checkpoint is None:   # reading starts now (standard input:
        ahead = read_ahead.of(files[0], fmt=fmt)                         # when counted; a resume: where it stood)
    try:
        cat = catalogue if catalogue is not None else load_catalogue()
        pairs = _pairs(cat, wagers) if wagers or not validation else []     # a validation file: its columns
        _scipy_stats()              # before counting, so its memory is not added to what counting leaves behind
    except BaseException:
        if ahead is not None:
            ahead.close()
        raise
    total, start, resume = Tally(), 0, None
    if checkpoint is not None:
        checkpoint.begin(specs=specs, files=files, pairs=pairs, catalogue=cat, settings={
            "decks": decks, "alpha": alpha, "detect": None if detect is None else str(detect), "lenient": lenient,
            "input_format": fmt, "validation": validation, "wagers_given": bool(wagers)})
        head = read_chunks(files[0], fmt=fmt, rows=1)                   # the settlement columns, checked first
        first = next(head, None)
        head.close()                                  # type: ignore[attr-defined]  # a generator: its file closed
        if first is not None:
            _check_settled_names(first.settled, cat, pairs, files[0], add=not wagers)
        total, start, resume = checkpoint.resumed(pairs)
        if progress is not None and total.rounds + total.invalid_count:
            progress(total.rounds + total.invalid_count + total.rule_breaks.count)
    if scheduler is None:
        try:
            for k in range(start, len(files)):           # the first chunk's settlement columns checked first
                if checkpoint is not None:
                    checkpoint.opening(k)
                part = tally_file(files[k], pairs, decks=decks, lenient=lenient, fmt=fmt, progress=progress,
                                  catalogue=cat if k == 0 else None, chunks=ahead if k == 0 else None,
                                  settled=total.columns if k else None, add=not wagers, within=not validation,
                                  resume=resume if k == start else None, keeper=checkpoint)
                if checkpoint is not None:
                    checkpoint.adding()
                total.add(part)
                if checkpoint is not None:
                    checkpoint.finished(k, total)
        finally:
            if checkpoint is not None:
                checkpoint.close()
    else:
        first = next(read_chunks(files[0], fmt=fmt, rows=1), None)       # the settlement columns, checked first
        if first is not None:
            _check_settled_names(first.settled, cat, pairs, files[0], add=not wagers)
        for part in _on_dask(files, pairs, decks=decks, lenient=lenient, fmt=fmt, scheduler=scheduler,
                             settled=(frozenset(first.settled) if not wagers else
                                      frozenset(first.settled) & {f"{w.id}:{t}" for w, t in pairs})
                             if first is not None else frozenset(), add=not wagers):
            total.add(part)
            if progress is not None:
                progress(part.rounds + part.invalid_count)
    if total.rounds == 0 and not total.rule_breaks.count:
        raise ExactOddsError(f"{source}: no valid rounds to check"
                             + (f" ({total.invalid_count:,} invalid)" if total.invalid_count else ""))
    return result_from_tally(total, pairs, decks=decks, alpha=alpha, detect=detect, validation=validation,
                             complete=not lenient, source=source)


def _on_dask(files: list[str], pairs: list[tuple[Wager, str]], *, decks: int, lenient: bool, fmt: str | None,
             scheduler: Any, settled: frozenset[str], add: bool = True) -> Iterable[Tally]:
    """Count each file on the cluster; the counts come back to be added up here."""

    if "-" in files:
        raise ExactOddsError("--scheduler reads files the workers can open, not standard input")
    with dask_client(scheduler) as (client, as_completed):
        shipped = client.scatter(Shipped.of(list(pairs)), broadcast=True)    # once per worker process: the wagers'
        futures = [client.submit(_dask_file, f, shipped, decks=decks, lenient=lenient, fmt=fmt,  # tables built once
                                 settled=settled, add=add, pure=False) for f in files]
        for f in as_completed(futures):
            yield f.result()


def _dask_file(source: str, shipped: Shipped, **options: Any) -> Tally:
    """A Dask task: :func:`tally_file` with the wagers this worker process has kept."""
    numpy_heap()
    return tally_file(source, shipped.value(), **options)


def check_counts(data: Mapping[str, Any], *, decks: int = 8, alpha: float = 0.01,
                 catalogue: Catalogue | None = None, wagers: Iterable[str] | None = None,
                 detect: Fraction | None = None) -> CheckResult:
    """Compare aggregated outcome counts per wager with the exact distribution (only those of
    ``wagers``, ``WAGER`` or ``WAGER:PAYTABLE``, if given: each must be counted in ``data``)."""
    cat = catalogue if catalogue is not None else load_catalogue()
    stated = data.get("rounds")
    pairs: list[tuple[Wager, str]] = []
    t = Tally()
    total = None
    items = list(data["wagers"].items())
    if wagers:

        keep: list[str] = []
        for spec in wagers:
            keys = [f"{w.id}:{p}" for w, p in priced_pairs(cat, [spec], where="--wager")]
            counted = [k for k in keys if k in data["wagers"]]
            if not counted or (":" in spec and len(counted) < len(keys)):
                raise ExactOddsError(f"--wager {spec!r}: not in the counts file (it counts "
                                     f"{', '.join(data['wagers']) or 'nothing'})")
            keep += [k for k in counted if k not in keep]
        items = [(k, data["wagers"][k]) for k in keep]
    for key, counts in items:
        wid, _, table = key.partition(":")
        if wid not in cat or table not in cat[wid].paytables:
            near = did_you_mean(key, [f"{w}:{p}" for w in cat for p in cat[w].paytables])
            raise ExactOddsError(f"wagers.{key}: no such wager:paytable{near} (see 'exactodds list')")
        w = cat[wid]
        ids = [o.id for o in w.outcomes] + ["lose"]
        if not isinstance(counts, dict):
            raise ExactOddsError(f"wagers.{key}: counts must map outcome ids ({', '.join(ids)}) to whole numbers")
        for k, v in counts.items():
            if k not in ids:
                raise ExactOddsError(f"wagers.{key}.{k}: no such outcome (outcomes: {', '.join(ids)})")
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_COUNT:
                raise ExactOddsError(f"wagers.{key}.{k}: a count is a whole number from 0 to {MAX_COUNT:,}, "
                                     f"got {json.dumps(v)}")
            if v and k != "lose" and not w.paytables[table].pays[k].offered:
                raise ExactOddsError(f"wagers.{key}.{k}: paytable {table!r} does not offer {k!r} (N/A): "
                                     "its rounds lose the wager, count them as 'lose'")
        n = sum(counts.values())
        if stated is not None and n != stated:
            raise ExactOddsError(f"wagers.{key}: the counts add up to {n:,} rounds, not the stated {stated:,}")
        if total is not None and n != total:
            raise ExactOddsError(f"wagers.{key}: {n:,} rounds, but other wagers have {total:,}")
        total = n
        pairs.append((w, table))
        t.counts[key] = np.array([counts.get(i, 0) for i in ids], dtype=np.int64)
    if not total:
        raise ExactOddsError("no rounds to check: every count is 0" if data["wagers"] else "no wagers to check")
    t.rounds = total
    return result_from_tally(t, pairs, decks=decks, alpha=alpha, detect=detect)


def render(result: CheckResult, fmt: str, *, verbose: bool = False) -> str:
    """The check in ``fmt`` (text, Markdown, CSV, JSON or HTML; see :meth:`CheckResult.report`):
    the flagged tests, or every one if ``verbose``."""
    return render_report(result.report(verbose=verbose), fmt)
