"""Effect of removal: how a wager's exact return moves when one card leaves the shoe.

The effect of removing a card is ``E(shoe less the card) − E(shoe)``, the change
in the player's expected return per unit wagered, exact. A wager that reads
only point values and ranks gets one effect per rank (13); a wager that reads
suits or colours gets one per card identity (52). Because removing an unseen
card at random does not change the odds, the effects weighted by the shoe's
counts of each card add up to zero exactly — a check every table passes.

>>> t = effects_of_removal(Shoe.decks(8), [("dragon-7-insurance", "standard")])[0]
>>> [(item, f"{float(e) * 100_000:+.1f}") for item, e in zip(t.items, t.effects)][6:9]
[('7', '-358.4'), ('8', '+537.8'), ('9', '+478.5')]
>>> sum(n * e for n, e in zip(t.counts, t.effects))
Fraction(0, 1)

Positive effects help the player (the sign convention of docs/formats.md: a player's view is
the player's expected return): a counter adds a card's tag when it is seen,
so tags carry the sign of the effect (:mod:`exactodds.analyses.counting`).
"""

from __future__ import annotations

import math

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from exactodds.analyses.analysis import priced_pairs
from exactodds.analyses.counting import Count, check_max_tag, suggest_tags
from exactodds.analyses.door import Door, returns_many, value_returns
from exactodds.analyses.progressive import load_meters
from exactodds.engine import budget
from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card, Rank
from exactodds.game.shoe import Shoe
from exactodds.render.tables import (
    Column,
    Describes,
    Report,
    Results,
    Table,
    cited,
    counted,
    dataframe,
    decimal,
    exact,
    percent,
)
from exactodds.wagers.catalogue import Catalogue, Paytable, Wager, check_meter_names, load_catalogue
from exactodds.wagers.outcomes import CARD_FEATURES, VALUE_LEVEL

__all__ = ["RemovalEffects", "EffectsTable", "effects_of_removal", "resolution", "PER", "least_squares_effects", "second_order_effects", "SecondOrder"]

#: The scale of the usual printed form: effects × 100,000.
PER = 100_000

_RANK_ONLY = frozenset(n for n in CARD_FEATURES if "_rank_" in n) | {"same_rank"}


def resolution(wager: Wager) -> str:
    """'rank' when the wager reads point values and ranks only, 'card' when it reads suits or colours."""
    return "rank" if wager.features <= VALUE_LEVEL | _RANK_ONLY else "card"


def _items(kind: str) -> list[Rank | Card]:
    return list(Rank) if kind == "rank" else [Card.from_index(i) for i in range(52)]


def _count(shoe: Shoe, item: Rank | Card) -> int:
    if isinstance(item, Rank):
        return shoe.rank_counts[item.value - 1]
    if shoe.card_counts is None:
        raise ExactOddsError(f"the shoe ({shoe.describe()}) does not know its suits; "
                             "effects per card need cards removed with their suits (e.g. 5s, not 5)")
    return shoe.card_counts[item.index]


def item_id(item: Rank | Card) -> str:
    """Plain-text name of a removed item: 'A', '10', 'K' or 'Ks', '10h'."""
    return str(item) if isinstance(item, Rank) else f"{item.rank}{item.suit.value}"


@dataclass(frozen=True)
class RemovalEffects(Describes):
    """The effects of removal of one wager under one paytable, off the top of one shoe."""

    wager: Wager
    paytable: Paytable
    shoe: Shoe
    resolution: str                         # 'rank' or 'card'
    items: tuple[str, ...]                  # 'A' ... 'K', or 'As' ... 'Kc'
    counts: tuple[int, ...]                 # copies of each item in the shoe
    base: Any                               # E(shoe): a Fraction, or a Form in the meters
    effects: tuple[Any, ...]                # E(shoe less item) − E(shoe); None if the shoe has none
    meters: dict[str, Fraction] | None = None   # a progressive: the meters its numbers are read at
    count: Count | None = None              # the suggested (or given) linear count

    @property
    def symbolic(self) -> bool:
        return not isinstance(self.base, Fraction)

    def __repr__(self) -> str:
        return f"<RemovalEffects {self.wager.id}:{self.paytable.id} on {self.shoe.describe()}, per {self.resolution}>"

    def numeric(self) -> list[Fraction | None]:
        """The effects as numbers (a progressive's at :attr:`meters`; None where not computable)."""
        if not self.symbolic:
            return list(self.effects)
        if self.meters is None:
            return [None] * len(self.effects)
        return [None if e is None else (e.at(self.meters) if hasattr(e, "at") else Fraction(e))
                for e in self.effects]

    @property
    def weighted_sum(self) -> Any:
        """Σ count × effect over the shoe: exactly zero (removing an unseen card changes nothing)."""
        return sum((n * e for n, e in zip(self.counts, self.effects) if e is not None), Fraction(0))

    def favourable_share(self, *, cut: int = 14) -> float | None:
        """About what share of rounds, dealt down to ``cut`` cards from the end, the edge is in the player's
        favour: a linear estimate from the effects (None for a progressive without meters).

        After m cards of the N are seen, the return moves by Σ (removed − expected) × effect, each effect
        grown N/(N − m) as the shoe shrinks: a sum over a random draw without replacement whose standard
        deviation is N/(N − m) · √(m (N − m)/(N − 1) · Σ n · effect² / N) (Σ n · effect is exactly 0). The
        share is the normal chance that the return passes 0, averaged over the depths dealt. An estimate
        to say whether a study is worth making, never a figure: ``exposure`` measures it exactly.
        """
        values = self.numeric()
        base = self.base.at(self.meters) if self.symbolic and self.meters and hasattr(self.base, "at") else self.base
        if not isinstance(base, Fraction) or any(v is None for v, n in zip(values, self.counts) if n):
            return None
        size = self.shoe.size
        spread = sum((n * float(v) ** 2 for n, v in zip(self.counts, values) if n and v is not None), 0.0) / size
        if spread == 0 or size <= cut + 1:
            return 1.0 if base > 0 else 0.0
        shares = []
        for m in range(0, size - cut, max(1, (size - cut) // 200)):
            sigma = size / (size - m) * math.sqrt(m * (size - m) / (size - 1) * spread)
            shares.append(1.0 if sigma == 0 and base > 0 else 0.0 if sigma == 0 else
                          0.5 * math.erfc(-float(base) / (sigma * math.sqrt(2))))
        return sum(shares) / len(shares)

    def verdict(self, *, cut: int = 14) -> str:
        """One line: is a count worth studying for this wager? (From :meth:`favourable_share`.)"""
        name = f"{self.wager.id}:{self.paytable.id}"
        share = self.favourable_share(cut=cut)
        if share is None:
            return f"{name}: give --meter to read a verdict (a progressive's effects depend on its meter)"
        base = self.base.at(self.meters) if self.symbolic and self.meters and hasattr(self.base, "at") else self.base
        if base > 0:
            return f"{name}: the player has the edge off the top ({percent(base, 4)}): no count needed"
        about = f"about {share:.1%} of rounds" if share >= 0.001 else "under 0.1% of rounds"
        if share >= 0.01:
            return (f"{name}: worth a count — by its effects of removal (a linear estimate) the edge is the "
                    f"player's in {about} dealt to a cut card {cut} from the end; "
                    f"exactodds exposure --wager {name} measures it")
        return (f"{name}: not countable — by its effects of removal (a linear estimate) the edge is the player's "
                f"in {about} dealt to a cut card {cut} from the end")

    def rows(self) -> list[dict[str, Any]]:
        """One row per removed item: exact effect, its ×100,000 float, the tag."""
        tags = self.count.tags if self.count else {}
        out = []
        for item, n, e, v in zip(self.items, self.counts, self.effects, self.numeric()):
            out.append({"wager": self.wager.id, "paytable": self.paytable.id, "shoe": self.shoe.describe(),
                        "removed": item, "in_shoe": n, "effect": None if v is None else float(v),
                        "effect_exact": e, "effect_x100000": None if v is None else float(v * PER),
                        "tag": tags.get(item)})
        return out

    def to_dataframe(self) -> Any:
        return dataframe(self.rows())

    def report(self) -> Report:
        return EffectsTable(self.shoe, (self,)).report()


@dataclass(frozen=True)
class EffectsTable(Results[RemovalEffects]):
    """Effects of removal of several wagers off one shoe; renders as text, JSON, CSV, Markdown, HTML."""

    shoe: Shoe
    results: tuple[RemovalEffects, ...]

    def __repr__(self) -> str:
        return f"<EffectsTable of {counted(len(self.results), 'wager table')} on {self.shoe.describe()}>"

    def to_dataframe(self) -> Any:
        return dataframe([row for r in self.results for row in r.rows()])

    def summary(self) -> list[dict[str, Any]]:
        """One row per wager: its return, the largest effect, the suggested count and its correlation."""
        out = []
        for r in self.results:
            nums = [abs(v) for v in r.numeric() if v is not None]
            out.append({"wager": r.wager.id, "paytable": r.paytable.id, "section": r.wager.section,
                        "resolution": r.resolution, "player_expected_return": r.base,
                        "largest_effect_x100000": float(max(nums) * PER) if nums else None,
                        "betting_correlation": r.count.betting_correlation if r.count else None})
        return out

    def report(self) -> Report:
        """A table per wager (effect x100,000, tag) with its notes; CSV one row per wager and removed item."""
        tidy = Table(_TIDY, tuple((row["shoe"], r.wager.id, r.paytable.id, r.wager.section, r.resolution,
                                   row["removed"], row["in_shoe"], v, row["effect_exact"],
                                   None if v is None else v * PER, row["tag"])
                                  for r in self.results for row, v in zip(r.rows(), r.numeric())))
        return Report("effects-of-removal",
                      title=f"Shoe: {self.shoe.describe()}. Effect of removal: the change in the player's expected "
                            f"return per unit wagered when one card leaves the shoe, x{PER:,} (positive: the "
                            "removal helps the player; see 'Sign convention' in docs/formats.md).",
                      tables=tuple(_table(r) for r in self.results), tidy=tidy,
                      data={"shoe": self.shoe.to_dict(),
                            "sign": "change in the player's expected return per unit when the card is removed",
                            "wagers": [_as_dict(r) for r in self.results]})


_TIDY = (Column("shoe"), Column("wager"), Column("paytable"), Column("section"), Column("resolution"),
         Column("removed"), Column("in_shoe", kind="int"), Column("effect", kind="decimal", places=12),
         Column("effect_exact", kind="exact"), Column("effect_x100000", kind="decimal", places=4),
         Column("tag", kind="int"))
_SHOWN = (Column("removed", "Removed"), Column("in_shoe", "In shoe", "int"),
          Column("effect_x100000", "Effect x100,000", "decimal", 2, signed=True), Column("tag", "Tag", align="right"))


def _table(r: RemovalEffects) -> Table:
    """One wager's effects: a row per removed item, then the expected return, the count and the check."""
    notes = []
    if r.symbolic:
        at = ", ".join(f"{k}={decimal(v, 2)}" for k, v in sorted((r.meters or {}).items()))
        notes.append(f"Player's expected return: {r.base} (J: the meter in units of the wager); "
                     + (f"the figures in the table are at the meters {at} (units of the wager; the reseed "
                        "unless --meter gives them); exact formulas in the JSON and CSV" if r.meters else
                        "no reseed is known: give --meter NAME=UNITS to read numbers (the exact formulas "
                        "are in the JSON and CSV)"))
    else:
        notes.append(f"Player's expected return off the top: {percent(r.base, 4)} (exact {r.base})")
    tags = r.count.tags if r.count else {}
    rows = tuple((item, n, ("none left" if n == 0 else "formula") if v is None else v * PER,
                  "" if item not in tags else f"{tags[item]:+d}" if tags[item] else "0")
                 for item, n, v in zip(r.items, r.counts, r.numeric()))
    if r.count is not None and r.count.betting_correlation is not None:
        c = r.count
        balance = "balanced on a full shoe" if sum(c.tags.values()) == 0 else \
            f"unbalanced: a full shoe counts {sum(c.tags.values()) * (4 if c.resolution == 'rank' else 1):+d} per deck"
        notes.append(f"Count ({c.source}): betting correlation {c.betting_correlation:.4f} "
                     f"(exact square {c.betting_correlation_squared}); {balance}")
    elif r.count is not None and r.count.source == "given":
        notes.append("Count (given): no betting correlation, since every tag is zero or every effect is")
    elif r.count is not None:
        notes.append("No count: the effects are all zero (no card moves the return)")
    notes.append(f"Check: Σ copies × effect = {r.weighted_sum} (exactly zero)")
    notes.append(f"Verdict: {r.verdict()}")
    return Table(_SHOWN, rows, title=f"{r.wager.name} — {cited(r.wager.section)} — paytable {r.paytable.id}",
                 notes=tuple(notes))


def _as_dict(r: RemovalEffects) -> dict[str, Any]:
    out: dict[str, Any] = {
        "wager": r.wager.id, "paytable": r.paytable.id, "section": r.wager.section, "resolution": r.resolution,
        "player_expected_return": exact(r.base),
        "effects": {item: None if e is None else exact(e) for item, e in zip(r.items, r.effects)},
        "in_shoe": dict(zip(r.items, r.counts)),
        "weighted_sum": exact(r.weighted_sum),
        "favourable_share_estimate": r.favourable_share(),     # a linear estimate, not an exact figure
        "verdict": r.verdict(),
    }
    if r.meters is not None:
        out["meters"] = {k: exact(v) for k, v in r.meters.items()}
    if r.count is not None:
        out["count"] = r.count.to_dict()
    return out


def _meters(wager: Wager, paytable: Paytable, base: Any, given: dict[str, Fraction]) -> dict[str, Fraction] | None:
    """The meters a progressive's numbers are read at: those given, else the reseed (None if unknown)."""
    if all(m in given for m in base.meters):
        return {m: given[m] for m in base.meters}
    reseed = _reseed_meters(wager, paytable, base)
    return None if reseed is None else {**reseed, **{m: v for m, v in given.items() if m in reseed}}


def _reseed_meters(wager: Wager, paytable: Paytable, base: Any) -> dict[str, Fraction] | None:
    """The meters of a progressive at their reseed, in units of the minimum wager, if all are known."""

    spec = load_meters()[0].get((wager.id, paytable.id))
    if spec is None or spec.minimum_wager is None:
        return None
    out = {}
    for symbol in base.meters:
        m = spec.meters.get(symbol)
        if m is None or m.reseed is None:
            return None
        out[symbol] = m.reseed / spec.minimum_wager
    return out


def resolve_pairs(pairs: Iterable[tuple[Wager | str, Paytable | str] | str],
                  catalogue: Catalogue | None = None) -> list[tuple[Wager, Paytable]]:
    """(wager or its id, paytable or its id) pairs → (Wager, Paytable) pairs of ``catalogue``;
    a bare ``"WAGER"`` or ``"WAGER:PAYTABLE"`` string stands for the pairs it names."""
    cat = catalogue if catalogue is not None else load_catalogue()
    resolved: list[tuple[Wager, Paytable]] = []
    for item in pairs:
        if isinstance(item, str):

            resolved.extend((w, w.paytable(t)) for w, t in priced_pairs(cat, [item], where="wager"))
            continue
        w, t = item
        wager = cat[w] if isinstance(w, str) else w
        resolved.append((wager, wager.paytable(t) if isinstance(t, str) else t))
    return resolved


def effects_of_removal(
    shoe: Shoe | Iterable[Any] | None = None,
    pairs: Iterable[tuple[Wager | str, Paytable | str] | str] = (),
    *,
    catalogue: Catalogue | None = None,
    tags: dict[str, int] | None = None,
    max_tag: int = 3,
    meters: dict[str, Fraction] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> EffectsTable:
    """Exact effects of removal of each (wager, paytable) off ``shoe``, with a suggested count.
    ``progress(done, total)``: called as each removed item is priced.

    One exact distribution is dealt per removed item and shared by every wager
    that needs it. ``tags`` (item → integer) replaces the suggested count.
    A progressive's effects are exact formulas in its meters; its numbers (and
    count) are read at ``meters`` (units of the wager), or at the reseed.
    """
    if shoe is None or not isinstance(shoe, Shoe):          # effects_of_removal(["dragon-7-insurance"]): 8 decks
        pairs, shoe = (shoe if shoe is not None else pairs), Shoe.decks(8)
    resolved = resolve_pairs(pairs, catalogue)
    check_max_tag(max_tag)
    meters_given = dict(meters or {})
    if not resolved:
        raise ExactOddsError("no wager to compute effects of removal for")
    check_meter_names(meters_given, (t for _, t in resolved))
    kinds = {resolution(w) for w, _ in resolved}
    if "card" in kinds and shoe.card_counts is None:
        _count(shoe, Card.from_index(0))            # the clear error about unknown suits
    base_door = Door(shoe)                                  # each wager by the route that prices it (a hard bet: the walk)
    bases = [base_door.expected_return(w, t) for w, t in resolved]
    walked = {}                                             # the walked wagers: every removal at once
    for kind in kinds:
        live = [i for i, item in enumerate(_items(kind)) if _count(shoe, item)]
        ks = [k for k, (w, _) in enumerate(resolved) if resolution(w) == kind and base_door.route_of(w) == "walk"]
        if ks and live and shoe.card_counts is not None:
            found = returns_many([resolved[k] for k in ks], [shoe.remove(_items(kind)[i]) for i in live], warn=False)
            walked.update({(k, i): e for k, rows in zip(ks, found) for i, (e, _) in zip(live, rows)})
    removed: dict[tuple[str, int], list[Any]] = {}
    todo = sum(len(_items(kind)) for kind in kinds)
    done = 0
    with budget.units(f"effects of removal of {counted(len(resolved), 'wager table')}", todo, unit="removal",
                      instead="ask fewer wagers in one run" if len(resolved) > 1 else "") as timed:
        for kind in sorted(kinds):
            for i, item in enumerate(_items(kind)):
                done += 1
                if progress is not None:
                    progress(done, todo)
                if _count(shoe, item) == 0:
                    timed.done()
                    continue
                door = Door(shoe.remove(item), warn=False)      # the route said once, for the full shoe
                removed[(kind, i)] = [None if resolution(w) != kind else
                                      (walked[(k, i)] if (k, i) in walked else door.expected_return(w, t)) - b
                                      for k, ((w, t), b) in enumerate(zip(resolved, bases))]
                timed.done()
    out = []
    for k, ((w, t), base) in enumerate(zip(resolved, bases)):
        kind = resolution(w)
        items = _items(kind)
        effects = tuple(removed[(kind, i)][k] if (kind, i) in removed else None for i in range(len(items)))
        meters = _meters(w, t, base, meters_given) if not isinstance(base, Fraction) else None
        r = RemovalEffects(w, t, shoe, kind, tuple(item_id(i) for i in items),
                           tuple(_count(shoe, i) for i in items), base, effects, meters)
        numbers = r.numeric()
        if any(v is not None for v in numbers):
            count = suggest_tags(r.items, numbers, r.counts, max_tag=max_tag, given=tags)
            r = RemovalEffects(w, t, shoe, kind, r.items, r.counts, base, effects, meters, count)
        out.append(r)
    return EffectsTable(shoe, tuple(out))


def least_squares_effects(wager: Wager, paytable: Paytable, shoe: Shoe, *, removed: int, samples: int,
                          seed: int) -> tuple[Fraction, ...]:
    """The direct least-squares fit of the edge on the cards removed: ``samples`` shoes, each ``shoe``
    less ``removed`` cards taken at random (seeded), priced exactly; then the per-rank values b (A to K)
    that minimise Σ_s (E(shoe_s) − E(shoe) − Σ_r b_r · removed_{s,r})², solved exactly in Fractions.

    With one card removed the fit is the effects of removal themselves; with more it shows how far the
    linear count the effects suggest still holds deep in a shoe (Griffin, *The Theory of Blackjack*).
    Wagers read at point values only (they are priced a batch at a time).

    >>> from exactodds.wagers import load_catalogue
    >>> d7 = load_catalogue()["dragon-7-insurance"]
    >>> fit = least_squares_effects(d7, d7.paytable("standard"), Shoe.decks(1), removed=1, samples=60, seed=1)
    >>> table = effects_of_removal(Shoe.decks(1), [(d7, "standard")])[0]
    >>> fit == table.effects
    True
    """
    if resolution(wager) != "rank":
        raise ExactOddsError(f"wager {wager.id!r} reads suits: the least-squares fit is made per rank only")
    if not 0 < removed <= shoe.size - 6:
        raise ExactOddsError(f"remove between 1 and {shoe.size - 6} cards, got {removed}")
    if not isinstance(seed, int) or seed < 0:
        raise ExactOddsError(f"seed: a whole number >= 0, got {seed!r}")
    if not 13 <= samples <= 100_000:
        raise ExactOddsError(f"samples: from 13 to 100,000, got {samples}")
    cards = np.repeat(np.arange(13), shoe.rank_counts)
    rng = np.random.default_rng(seed)
    taken = np.stack([np.bincount(rng.permutation(cards)[:removed], minlength=13) for _ in range(samples)])
    left = np.asarray(shoe.rank_counts) - taken
    values = np.concatenate([left[:, 9:].sum(axis=1, keepdims=True), left[:, :9]], axis=1)
    edges = value_returns(wager, paytable, values)
    if edges is None:
        raise ExactOddsError(f"wager {wager.id!r} is not read at point values: no batch to fit")
    base = Door(shoe).expected_return(wager, paytable)
    live = [r for r in range(13) if taken[:, r].any()]
    x = taken[:, live].tolist()
    normal = [[Fraction(sum(row[i] * row[j] for row in x)) for j in range(len(live))] for i in range(len(live))]
    right = [sum((row[i] * (e - base) for row, e in zip(x, edges)), Fraction(0)) for i in range(len(live))]
    solved = _solve(normal, right)
    fit: list[Fraction | None] = [None] * 13
    for r, b in zip(live, solved):
        fit[r] = b
    if any(b is None for b in fit):
        raise ExactOddsError("a rank was never removed: take more samples or remove more cards")
    return tuple(b for b in fit if b is not None)


def _solve(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """The exact solution of the square system a · x = b (Gauss–Jordan in Fractions)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = next((r for r in range(col, n) if m[r][col] != 0), None)
        if pivot is None:
            raise ExactOddsError("the removals do not tell every rank apart: take more samples")
        m[col], m[pivot] = m[pivot], m[col]
        lead = m[col][col]
        m[col] = [v / lead for v in m[col]]
        for r in range(n):
            if r != col and m[r][col] != 0:
                factor = m[r][col]
                m[r] = [v - factor * w for v, w in zip(m[r], m[col])]
    return [m[r][n] for r in range(n)]


@dataclass(frozen=True)
class SecondOrder(Results[RemovalEffects]):
    """Effects of removing one, two and three copies of each item, and how far they are from linear:
    what a linear count cannot see (a pair wager's first-order effects are exactly zero on a full shoe,
    where every rank is alike; it moves only as the ranks come apart)."""

    shoe: Shoe
    results: tuple[RemovalEffects, ...]
    #: per result: per item, the effects of removing (2, 3) copies (None where the shoe has fewer)
    deeper: tuple[tuple[tuple[Any, Any], ...], ...]

    def rows(self, k: int) -> list[dict[str, Any]]:
        r = self.results[k]
        return [{"removed": item, "in_shoe": n, "one": e1, "two": e2, "three": e3,
                 "two_less_twice_one": None if e2 is None or e1 is None else e2 - 2 * e1,
                 "three_less_thrice_one": None if e3 is None or e1 is None else e3 - 3 * e1}
                for item, n, e1, (e2, e3) in zip(r.items, r.counts, r.numeric(), self.deeper[k])]

    def to_dataframe(self) -> Any:
        return dataframe([{"wager": r.wager.id, "paytable": r.paytable.id, **row}
                          for k, r in enumerate(self.results) for row in self.rows(k)])

    def report(self) -> Report:
        """A table per wager: each item's effects (×100,000) of removing one, two and three copies, and the
        second- and third-order parts (two less twice one, three less three times one)."""
        tables = []
        for k, r in enumerate(self.results):
            rows = tuple((row["removed"], row["in_shoe"], *(None if row[c] is None else row[c] * PER for c in _ORDERS))
                         for row in self.rows(k))
            tables.append(Table(_SECOND, rows, title=f"{r.wager.name} — {cited(r.wager.section)} — paytable {r.paytable.id}"))
        data = {"shoe": self.shoe.describe(), "per": PER,
                "wagers": [{"wager": r.wager.id, "paytable": r.paytable.id,
                            "rows": [{c: (exact(v) if isinstance(v, Fraction) else v) for c, v in row.items()}
                                     for row in self.rows(k)]} for k, r in enumerate(self.results)]}
        tidy = Table((Column("wager"), Column("paytable"), *(Column(c.key, c.label, c.kind, 12, twin=True)
                                                             if c.kind == "decimal" else c for c in _SECOND)),
                     tuple((r.wager.id, r.paytable.id, row["removed"], row["in_shoe"], *(row[c] for c in _ORDERS))
                           for k, r in enumerate(self.results) for row in self.rows(k)))
        return Report("second-order-effects",
                      title=f"Shoe: {self.shoe.describe()}. Effects of removing copies of each card on the player's "
                            f"expected return, x{PER:,}; the orders past the first are what a linear count misses.",
                      tables=tuple(tables), tidy=tidy, data=data)


_ORDERS = ("one", "two", "three", "two_less_twice_one", "three_less_thrice_one")
_SECOND = (Column("removed", "Removed"), Column("in_shoe", "In shoe", "int"),
           Column("one", "One", "decimal", 2), Column("two", "Two", "decimal", 2), Column("three", "Three", "decimal", 2),
           Column("two_less_twice_one", "Two − 2 × one", "decimal", 2),
           Column("three_less_thrice_one", "Three − 3 × one", "decimal", 2))


def second_order_effects(shoe: Shoe, pairs: Iterable[tuple[Wager | str, Paytable | str] | str], *,
                         catalogue: Catalogue | None = None) -> SecondOrder:
    """Exact effects of removing one, two and three copies of each rank (or card) off ``shoe``.

    >>> from exactodds.wagers import load_catalogue
    >>> pair = load_catalogue()["player-pair"]
    >>> s = second_order_effects(Shoe.decks(8), [(pair, "standard")])
    >>> {row["one"] for row in s.rows(0)}                 # every rank alike on a full shoe: no linear effect
    {Fraction(0, 1)}
    >>> all(row["two"] > 0 for row in s.rows(0))          # ranks coming apart make pairs likelier
    True
    """
    first = effects_of_removal(shoe, pairs, catalogue=catalogue)
    deeper = []
    for r in first:
        rows = []
        base = r.base
        for item_name, n in zip(r.items, r.counts):
            item = Card.parse(item_name) if r.resolution == "card" else Rank.parse(item_name)
            found: list[Any] = []
            for k in (2, 3):
                if n < k or shoe.size - k < 6:
                    found.append(None)
                    continue
                e = Door(shoe.remove(*[item] * k), warn=False).expected_return(r.wager, r.paytable) - base
                found.append(e if not r.symbolic else None)
            rows.append((found[0], found[1]))
        deeper.append(tuple(rows))
    return SecondOrder(shoe, first.results, tuple(deeper))
