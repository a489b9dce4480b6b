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
``WAGER:PAYTABLE`` holding the outcome id it paid), every round's settlement is
also recomputed from its cards, and any disagreement is flagged outright.
p-values are adjusted for testing many wagers at once (Holm); a test is
flagged when its adjusted p-value is below ``alpha``.

Exact probabilities describe rounds dealt off the top of a full shoe. A
simulator that deals shoes to a cut card draws from depleted shoes, which
shifts the distribution slightly (the cut-card effect, measured in
``notebooks/``); with very large samples that shift itself becomes detectable.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .cards import Card
from .errors import ExactOddsError, read_json
from .pricing import WagerResult, price
from .rounds import invalid_rounds, settle_many
from .shoe import Shoe
from .wagers import Catalogue, Wager, load_catalogue

__all__ = ["Records", "read_records", "read_counts", "CheckResult", "TestRow", "check", "check_counts"]

CARD_COLUMNS = ("player1", "player2", "player3", "banker1", "banker2", "banker3")


@dataclass(frozen=True)
class Records:
    """Rounds read from a file: card indices (-1 none), line numbers, reported settlements."""

    player: np.ndarray
    banker: np.ndarray
    lines: np.ndarray
    settled: dict[str, np.ndarray] = field(default_factory=dict)
    invalid: tuple[tuple[int, str], ...] = ()

    def __len__(self) -> int:
        return len(self.player)


# -- reading ----------------------------------------------------------------------

_RANK_BYTE = np.full(256, -1, dtype=np.int16)
for _i, _ch in enumerate("A23456789"):
    _RANK_BYTE[ord(_ch)] = _i
for _ch, _i in (("T", 9), ("J", 10), ("Q", 11), ("K", 12)):
    _RANK_BYTE[ord(_ch)] = _i
    _RANK_BYTE[ord(_ch.lower())] = _i
_RANK_BYTE[ord("a")] = 0
_SUIT_BYTE = np.full(256, -1, dtype=np.int16)
for _i, _ch in enumerate("shdc"):
    _SUIT_BYTE[ord(_ch)] = _i
    _SUIT_BYTE[ord(_ch.upper())] = _i


def _card_tokens(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Card index per token (``Ks``, ``10h``, ``Th``), -1 for an empty token, -2 if unreadable."""
    length = ends - starts
    first = buf[np.minimum(starts, len(buf) - 1)]
    last = buf[np.maximum(ends - 1, 0)]
    rank = _RANK_BYTE[first]
    ten = (length == 3) & (first == ord("1")) & (buf[np.minimum(starts + 1, len(buf) - 1)] == ord("0"))
    rank = np.where(ten, 9, rank)
    suit = _SUIT_BYTE[last]
    ok = ((length == 2) | ten) & (rank >= 0) & (suit >= 0)
    return np.where(length == 0, -1, np.where(ok, rank * 4 + suit, -2)).astype(np.int16)


def _text_column(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The tokens of one CSV column as a NumPy string array (decoded once per distinct value)."""
    width = int((ends - starts).max(initial=0)) or 1
    idx = starts[:, None] + np.arange(width)
    inside = idx < ends[:, None]
    block = np.where(inside, buf[np.minimum(idx, len(buf) - 1)], 0).astype(np.uint8)
    raw = np.ascontiguousarray(block).view(f"S{width}").ravel()
    values, inverse = np.unique(raw, return_inverse=True)
    decoded = np.array([v.decode("utf-8", "replace").strip() for v in values.tolist()])
    return decoded[inverse.ravel()]


def read_records(path: str | Path, *, lenient: bool = False) -> Records:
    """Per-round records from CSV (``player1..banker3`` + ``WAGER:PAYTABLE`` columns) or JSON Lines.

    A record that cannot be read, or a round that breaks the drawing rules, is
    an error naming its line — or, with ``lenient``, is listed in
    :attr:`Records.invalid` and left out.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not raw.strip():
        raise ExactOddsError(f"{path}: empty file")
    if raw.lstrip()[:1] == b"{":
        return _read_jsonl(p, raw, lenient=lenient)
    return _read_csv(p, raw, lenient=lenient)


def _problem(path: Path, line: int, what: str) -> ExactOddsError:
    return ExactOddsError(f"{path}:{line}: {what}")


def _read_csv(path: Path, raw: bytes, *, lenient: bool) -> Records:
    raw = raw.replace(b"\r\n", b"\n")
    if not raw.endswith(b"\n"):
        raw += b"\n"
    header_end = raw.index(b"\n")
    header = raw[:header_end].decode("utf-8", "replace").strip().split(",")
    if tuple(h.strip() for h in header[:6]) != CARD_COLUMNS:
        raise _problem(path, 1, f"header must start with {','.join(CARD_COLUMNS)}")
    extra = [h.strip() for h in header[6:]]
    ncols = len(header)
    body = np.frombuffer(raw, dtype=np.uint8)[header_end + 1:]
    if not len(body):
        raise ExactOddsError(f"{path}: no rounds after the header")
    newline = body == ord("\n")
    sep = np.flatnonzero(newline | (body == ord(",")))
    is_end = newline[sep]
    end_at = np.flatnonzero(is_end)                 # index in ``sep`` of each line's end
    line_ends = sep[end_at]
    commas_per_line = np.diff(np.r_[-1, end_at]) - 1
    bad_lines = np.flatnonzero(commas_per_line != ncols - 1)
    if len(bad_lines) and not lenient:
        raise _problem(path, int(bad_lines[0]) + 2, f"expected {ncols} fields (a truncated or malformed line)")
    starts = np.r_[0, sep[:-1] + 1]
    ends = sep
    line_of_token = np.cumsum(np.r_[0, is_end[:-1].astype(np.int64)]) + 2
    if len(bad_lines):       # lenient: drop malformed lines' tokens
        keep_line = np.ones(len(line_ends), dtype=bool)
        keep_line[bad_lines] = False
        keep = keep_line[line_of_token - 2]
        starts, ends, line_of_token = starts[keep], ends[keep], line_of_token[keep]
    n = len(starts) // ncols
    field_starts = starts.reshape(n, ncols)
    field_ends = ends.reshape(n, ncols)
    lines = line_of_token.reshape(n, ncols)[:, 0]
    cards = _card_tokens(body, field_starts[:, :6], field_ends[:, :6])
    settled: dict[str, np.ndarray] = {}
    for k, name in enumerate(extra):
        settled[name] = _text_column(body, field_starts[:, 6 + k], field_ends[:, 6 + k])
    invalid = [(int(lines[i]), f"unreadable card in field(s) {', '.join(CARD_COLUMNS[j] for j in np.flatnonzero(cards[i] == -2))}")
               for i in np.flatnonzero((cards == -2).any(1))]
    return _finish(path, cards[:, :3], cards[:, 3:], lines, settled, invalid, lenient,
                   dropped=[(int(b) + 2, f"expected {ncols} fields") for b in bad_lines])


def _read_jsonl(path: Path, raw: bytes, *, lenient: bool) -> Records:
    players, bankers, lines, settled_rows = [], [], [], []
    invalid: list[tuple[int, str]] = []
    for number, text in enumerate(raw.decode("utf-8", "replace").splitlines(), start=1):
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
            hands = []
            for hand in ("player", "banker"):
                cards = [Card.parse(c).index for c in rec[hand]]
                if not 2 <= len(cards) <= 3:
                    raise ExactOddsError(f"{hand} has {len(cards)} cards")
                hands.append(cards + [-1] * (3 - len(cards)))
            settle = rec.get("settled", {})
            if not isinstance(settle, dict):
                raise ExactOddsError("'settled' must be an object")
        except (json.JSONDecodeError, KeyError, TypeError, ExactOddsError) as exc:
            if not lenient:
                raise _problem(path, number, f"unreadable record ({exc})") from None
            invalid.append((number, f"unreadable record ({exc})"))
            continue
        players.append(hands[0])
        bankers.append(hands[1])
        lines.append(number)
        settled_rows.append(settle)
    if not players:
        raise ExactOddsError(f"{path}: no readable rounds")
    names = sorted({k for s in settled_rows for k in s})
    settled = {n: np.array([str(s.get(n, "")) for s in settled_rows]) for n in names}
    return _finish(path, np.array(players, dtype=np.int16), np.array(bankers, dtype=np.int16),
                   np.array(lines), settled, invalid, lenient, dropped=[])


def _finish(path: Path, player: np.ndarray, banker: np.ndarray, lines: np.ndarray, settled: dict[str, np.ndarray],
            invalid: list[tuple[int, str]], lenient: bool, *, dropped: list[tuple[int, str]]) -> Records:
    bad = (player[:, :2] < 0).any(1) | (banker[:, :2] < 0).any(1) | (player == -2).any(1) | (banker == -2).any(1)
    for i in np.flatnonzero(bad & ~((player == -2).any(1) | (banker == -2).any(1))):
        invalid.append((int(lines[i]), "a hand is missing one of its first two cards"))
    good = ~bad
    rule_breaks = invalid_rounds(np.where(good[:, None], player, 0), np.where(good[:, None], banker, 0))
    rule_breaks = rule_breaks[good[rule_breaks]]
    for i in rule_breaks:
        invalid.append((int(lines[i]), "third cards break the drawing rules of §627a.10 "
                        f"(Player {_show(player[i])}, Banker {_show(banker[i])})"))
    invalid.sort()
    if invalid and not lenient:
        line, what = invalid[0]
        raise _problem(path, line, what)
    keep = good.copy()
    keep[rule_breaks] = False
    return Records(player[keep], banker[keep], lines[keep], {k: v[keep] for k, v in settled.items()},
                   tuple(sorted(invalid + dropped)))


def _show(cards: np.ndarray) -> str:
    return " ".join(str(Card.from_index(int(c))) for c in cards if c >= 0)


def read_counts(path: str | Path) -> dict[str, Any]:
    """Aggregated counts: ``{"rounds": N, "wagers": {"WAGER:PAYTABLE": {"outcome": n, ..., "lose": n}}}``."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("wagers"), dict):
        raise ExactOddsError(f"{path}: expected an object with 'wagers' (see 'exactodds check-sim --help')")
    return data


# -- statistics -------------------------------------------------------------------

@dataclass(frozen=True)
class TestRow:
    """One test of one wager and paytable."""

    wager: str
    paytable: str
    test: str
    statistic: float
    p_value: float
    adjusted: float = math.nan
    flagged: bool = False
    detail: str = ""


@dataclass(frozen=True)
class CheckResult:
    rounds: int
    alpha: float
    rows: tuple[TestRow, ...]
    observed: dict[str, dict[str, tuple[int, float]]]      # wager:paytable -> outcome -> (observed, expected)
    invalid: tuple[tuple[int, str], ...] = ()

    @property
    def flagged(self) -> list[TestRow]:
        return [r for r in self.rows if r.flagged]

    @property
    def ok(self) -> bool:
        return not self.flagged and not self.invalid

    def __str__(self) -> str:
        return render(self, "text", verbose=True)

    def _repr_html_(self) -> str:
        import html

        head = "<tr><th>wager:paytable</th><th>test</th><th>statistic</th><th>p</th><th>adjusted p</th><th></th><th>detail</th></tr>"
        body = "".join(
            f"<tr><td>{html.escape(r.wager)}:{html.escape(r.paytable)}</td><td>{html.escape(r.test)}</td>"
            f"<td>{r.statistic:.4g}</td><td>{r.p_value:.3g}</td><td>{r.adjusted:.3g}</td>"
            f"<td>{'<b>FLAG</b>' if r.flagged else ''}</td><td>{html.escape(r.detail)}</td></tr>" for r in self.rows)
        verdict = "OK — nothing flagged" if self.ok else f"FLAGGED — {len(self.flagged)} tests"
        return (f"<p><b>check-sim:</b> {self.rounds:,} rounds, alpha {self.alpha} (Holm): {verdict}</p>"
                f"<table>{head}{body}</table>")

    def to_dataframe(self) -> Any:
        import pandas as pd

        return pd.DataFrame([r.__dict__ for r in self.rows])


def _pooled_chi_square(observed: Sequence[int], expected: Sequence[float]) -> tuple[float, int]:
    """Chi-square with bins of expected count below 5 pooled (smallest first); returns (stat, df)."""
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
    stat = sum((o - e) ** 2 / e for e, o in merged if e > 0)
    return stat, len(merged) - 1


def _tests(key: str, r: WagerResult, counts: Mapping[str, int], n: int) -> list[TestRow]:
    from scipy import stats

    wager, table = key.split(":", 1)
    ids = [ln.id for ln in r.lines]
    observed = [int(counts.get(i, 0)) for i in ids]
    expected = [float(ln.probability) * n for ln in r.lines]
    rows = []
    stat, df = _pooled_chi_square(observed, expected)
    if df >= 1:
        rows.append(TestRow(wager, table, "chi-square", stat, float(stats.chi2.sf(stat, df)), detail=f"df {df}"))
    if not r.symbolic:
        nets = [float(ln.net) for ln in r.lines]
        mean = sum(o * v for o, v in zip(observed, nets)) / n
        sd = math.sqrt(float(r.variance) / n)
        if sd > 0:
            z = (mean - float(r.expected_return)) / sd
            rows.append(TestRow(wager, table, "z return", z, float(2 * stats.norm.sf(abs(z))),
                                detail=f"mean {mean:+.6f} vs exact {float(r.expected_return):+.6f}"))
    tops = [ln for ln in r.lines if ln.pay.symbolic] or sorted(
        (ln for ln in r.lines if ln.id != "lose"), key=lambda ln: ln.net, reverse=True)
    if tops and tops[0].probability > 0:
        top = tops[0]
        k = int(counts.get(top.id, 0))
        p = float(stats.binomtest(k, n, float(top.probability)).pvalue)
        rows.append(TestRow(wager, table, "binomial top", float(k), p,
                            detail=f"{top.name}: {k} vs {float(top.probability) * n:.2f} expected"))
    return rows


def _holm(rows: list[TestRow], alpha: float) -> list[TestRow]:
    order = sorted(range(len(rows)), key=lambda i: rows[i].p_value)
    m = len(rows)
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * rows[i].p_value))
        adjusted[i] = running
    return [TestRow(r.wager, r.paytable, r.test, r.statistic, r.p_value, adjusted[i],
                    r.flagged or adjusted[i] < alpha, r.detail) for i, r in enumerate(rows)]


def _pairs(catalogue: Catalogue, wagers: Iterable[str] | None) -> list[tuple[Wager, str]]:
    if wagers:
        out: list[tuple[Wager, str]] = []
        for item in wagers:
            wid, _, table = item.partition(":")
            w = catalogue[wid]
            out.extend((w, t) for t in ([w.paytable(table).id] if table else list(w.paytables)))
        return out
    return [(w, t) for w in catalogue.values() for t in w.paytables]


def check(records: Records, *, decks: int = 8, wagers: Iterable[str] | None = None, alpha: float = 0.01,
          catalogue: Catalogue | None = None) -> CheckResult:
    """Compare per-round records with the exact distribution off the top of ``decks`` decks."""
    from .engine import deal

    if not 0 < alpha < 1:
        raise ExactOddsError(f"alpha must be between 0 and 1, got {alpha}")
    cat = catalogue if catalogue is not None else load_catalogue()
    n = len(records)
    if n == 0:
        raise ExactOddsError("no valid rounds to check")
    dist = deal(Shoe.decks(decks))
    pairs = _pairs(cat, wagers)
    for name in records.settled:
        wid, _, table = name.partition(":")
        if wid not in cat or table not in cat[wid].paytables:
            raise ExactOddsError(f"settlement column {name!r}: no such wager:paytable (see 'exactodds list')")
        if not any(w.id == wid and t == table for w, t in pairs):
            pairs.append((cat[wid], table))
    settled_all = settle_many([(w, w.paytables[t]) for w, t in pairs], records.player, records.banker)
    rows: list[TestRow] = []
    observed: dict[str, dict[str, tuple[int, float]]] = {}
    for (w, t), assign in zip(pairs, settled_all):
        r = price(w, w.paytables[t], dist)
        ids = [o.id for o in w.outcomes] + ["lose"]
        counts = dict(zip(ids, np.bincount(assign + 1, minlength=len(ids) + 1)[1:].tolist() + [0]))
        counts["lose"] = int((assign == -1).sum())
        key = f"{w.id}:{t}"
        rows += _tests(key, r, counts, n)
        observed[key] = {ln.name: (int(counts.get(ln.id, 0)), float(ln.probability) * n) for ln in r.lines}
        if key in records.settled:
            reported = records.settled[key]
            ours = np.array(ids)[assign]
            wrong = np.flatnonzero(reported != ours)
            if len(wrong):
                i = int(wrong[0])
                rows.append(TestRow(w.id, t, "settlement", float(len(wrong)), 0.0, 0.0, True,
                                    f"{len(wrong)} rounds settled differently; first at line {int(records.lines[i])}: "
                                    f"paid {str(reported[i])!r}, the cards say {str(ours[i])!r}"))
            else:
                rows.append(TestRow(w.id, t, "settlement", 0.0, 1.0, 1.0, False, "every round settled as its cards say"))
            rep_counts = {i_: int((reported == i_).sum()) for i_ in ids}
            rows += [TestRow(x.wager, x.paytable, "reported " + x.test, x.statistic, x.p_value, detail=x.detail)
                     for x in _tests(key, r, rep_counts, n)]
    return CheckResult(n, alpha, tuple(_holm(rows, alpha)), observed, records.invalid)


def check_counts(data: Mapping[str, Any], *, decks: int = 8, alpha: float = 0.01,
                 catalogue: Catalogue | None = None) -> CheckResult:
    """Compare aggregated outcome counts per wager with the exact distribution."""
    from .engine import deal

    cat = catalogue if catalogue is not None else load_catalogue()
    dist = deal(Shoe.decks(int(data.get("decks", decks))))
    rows: list[TestRow] = []
    observed: dict[str, dict[str, tuple[int, float]]] = {}
    total = None
    for key, counts in data["wagers"].items():
        wid, _, table = key.partition(":")
        if wid not in cat or table not in cat[wid].paytables:
            raise ExactOddsError(f"wagers.{key}: no such wager:paytable (see 'exactodds list')")
        w = cat[wid]
        known = {o.id for o in w.outcomes} | {"lose"}
        if not isinstance(counts, dict) or any(k not in known or not isinstance(v, int) or v < 0 for k, v in counts.items()):
            raise ExactOddsError(f"wagers.{key}: counts must map outcome ids ({', '.join(sorted(known))}) to whole numbers")
        n = sum(counts.values())
        if total is not None and n != total:
            raise ExactOddsError(f"wagers.{key}: {n} rounds, but other wagers have {total}")
        total = n
        r = price(w, w.paytables[table], dist)
        rows += _tests(key, r, counts, n)
        observed[key] = {ln.name: (int(counts.get(ln.id, 0)), float(ln.probability) * n) for ln in r.lines}
    if not total:
        raise ExactOddsError("no counts to check")
    return CheckResult(total, alpha, tuple(_holm(rows, alpha)), observed)


def render(result: CheckResult, fmt: str, *, verbose: bool = False) -> str:
    """The check as a table (text) or JSON."""
    if fmt == "json":
        return json.dumps({
            "rounds": result.rounds, "alpha": result.alpha, "ok": result.ok,
            "invalid_rounds": [{"line": ln, "problem": what} for ln, what in result.invalid],
            "tests": [{"wager": r.wager, "paytable": r.paytable, "test": r.test, "statistic": r.statistic,
                       "p_value": r.p_value, "adjusted_p_value": r.adjusted, "flagged": r.flagged,
                       "detail": r.detail} for r in result.rows],
            "observed": {k: {o: {"observed": ob, "expected": ex} for o, (ob, ex) in v.items()}
                         for k, v in result.observed.items()},
        }, indent=2, ensure_ascii=False) + "\n"
    shown = result.rows if verbose else (result.flagged or [])
    out = [f"check-sim: {result.rounds:,} rounds, {len(result.rows)} tests, Holm-adjusted at alpha {result.alpha}"]
    if result.invalid:
        out.append(f"{len(result.invalid)} invalid rounds left out; first: line {result.invalid[0][0]}: {result.invalid[0][1]}")
    if shown:
        out.append(f"{'wager:paytable':<44} {'test':<22} {'statistic':>12} {'p':>10} {'adj. p':>10}  flag  detail")
        for r in shown:
            out.append(f"{r.wager + ':' + r.paytable:<44} {r.test:<22} {r.statistic:>12.4g} {r.p_value:>10.3g} "
                       f"{r.adjusted:>10.3g}  {'FLAG' if r.flagged else '    '}  {r.detail}")
    for r in result.flagged[:5]:
        key = f"{r.wager}:{r.paytable}"
        out.append(f"observed vs expected, {key}:")
        for name, (ob, ex) in result.observed.get(key, {}).items():
            out.append(f"    {name:<52} {ob:>12,} {ex:>16,.1f}")
    out.append("result: " + ("OK — nothing flagged" if result.ok else
                             f"FLAGGED — {len(result.flagged)} tests" + (", invalid rounds" if result.invalid else "")))
    return "\n".join(out) + "\n"

