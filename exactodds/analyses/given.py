"""Conditional odds: every wager priced given a condition on the round's cards (``analyze --given``).

What a player who knows something before the bet faces: the first card's class seen at the mouth of the shoe
(edge sorting), a flashed card. The condition is any condition of the paytable-file language
(docs/paytable-files.md), on the cards of the round about to be dealt, off the top of the given shoe.

It is one more question asked through the engine's one door (:class:`~exactodds.analyses.door.Door`), so every
route answers it: each wager is priced again with every outcome's condition joined to the given one by
``and`` (its outcome counts *and* the condition), beside a wager of one outcome, the condition itself (the
rounds where it holds). The conditional table is then those counts over the rounds where it holds, the loss
the rest of them::

    P(outcome | G) = N(outcome and G) / N(G)

A wager that settles "highest" or "exclusive" settles each round where G holds as it did: joining every
outcome to G keeps which outcomes hold on such a round, and holds none on the others.

>>> from exactodds.game.shoe import Shoe
>>> from exactodds.analyses.analysis import analyze
>>> a = analyze(Shoe.decks(8), wagers=["player"], given="player_rank_1 in (7, 8, 9)")
>>> a.given.probability                       # 3 ranks of 13
Fraction(3, 13)
>>> f"{float(a.results[0].house_edge):.4%}"   # the Player's first card a 7, 8 or 9: the player's edge
'-15.3956%'
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from exactodds.analyses import pricing
from exactodds.analyses.door import Door
from exactodds.analyses.pricing import WagerResult
from exactodds.errors import ExactOddsError, InconsistentCounts, SuitsUnknown, TooLarge
from exactodds.wagers.catalogue import Paytable, Wager, read_text
from exactodds.wagers.conditions import Condition
from exactodds.wagers.pays import Pay

#: Where a given condition is named in messages (the option that gives it).
WHERE = "--given"


@dataclass(frozen=True)
class Given:
    """A condition on the round's cards, and how often it holds off the top of one shoe (exact)."""

    text: str
    combinations: int           #: the ordered 6-card sequences whose round the condition holds on
    total: int                  #: the shoe's ordered 6-card sequences

    @property
    def probability(self) -> Fraction:
        return Fraction(self.combinations, self.total)

    def to_dict(self) -> dict[str, Any]:
        return {"condition": self.text, "combinations": self.combinations, "total": self.total,
                "probability": f"{self.probability.numerator}/{self.probability.denominator}",
                "probability_float": float(self.probability)}

    def line(self) -> str:
        """One line: the condition and how often it holds."""
        p = self.probability
        return (f"{self.text}: {self.combinations:,} of {self.total:,} ordered 6-card sequences, probability "
                f"{float(p):.8f} (exact {p.numerator}/{p.denominator})")


def condition(text: str) -> Condition:
    """``text`` checked as a condition of the paytable-file language (one line naming the problem)."""
    if not isinstance(text, str):
        raise ExactOddsError(f"{WHERE}: a condition must be text, got {text!r}")
    return _parsed(text)


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> Condition:
    return Condition.parse(text, where=WHERE)


@functools.lru_cache(maxsize=64)
def _holds(cond: Condition) -> tuple[Wager, Paytable]:
    """A wager of one outcome, ``cond`` itself, paid 1 to 1: its count is N(G). Made from a data file's text, so
    it is checked as every wager is. It reads the round's totals too (``player >= 0`` holds on every round),
    so that the tables count it in the one table of the main-game wagers joined to ``cond``, not in one more."""
    when = f"({cond.text}) and player >= 0"
    text = (f'[[wager]]\nid = "given"\nname = "Given"\nsection = "a condition given ({WHERE})"\n'
            f'  [[wager.outcome]]\n  id = "holds"\n  name = "the condition holds"\n  when = {json.dumps(when)}\n'
            f'  [[wager.paytable]]\n  id = "given"\n  pays = {{ holds = "1 to 1" }}\n')
    wager = read_text(text, source=WHERE)["given"]
    return wager, wager.paytable("given")


def _joined(wager: Wager, cond: Condition) -> Wager:
    """``wager`` with every outcome's condition joined to ``cond`` by ``and`` (kept on the wager, per text)."""
    cache: dict[Any, Any] = wager.__dict__.setdefault("_cache", {})
    key = ("given", cond.text)
    if key not in cache:
        outcomes = tuple(replace(o, condition=Condition.parse(f"({o.condition.text}) and ({cond.text})",
                                                              where=f"{WHERE} with wager {wager.id!r}, outcome "
                                                                    f"{o.id!r}", parameters=wager.parameters))
                         for o in wager.outcomes)
        cache[key] = replace(wager, outcomes=outcomes)
    return cache[key]  # type: ignore[no-any-return]


def _asked(selection: tuple[tuple[Wager, Paytable], ...], cond: Condition) -> tuple[tuple[Wager, Paytable], ...]:
    """The pairs priced for ``selection`` given ``cond``: each joined to it, then the condition itself (one tuple
    per selection and condition, so that a selection priced shoe after shoe is planned once)."""
    cache: dict[Any, Any] = _ASKED
    key = (id(selection), cond.text)
    found = cache.get(key)
    if found is None or found[0] is not selection:
        if len(cache) >= 64:
            cache.pop(next(iter(cache)))
        found = cache[key] = (selection, (*((_joined(w, cond), t) for w, t in selection), _holds(cond)))
    return found[1]  # type: ignore[no-any-return]


#: The pairs :func:`_asked` made, with the selection they were made for (held: its id is not reused).
_ASKED: dict[tuple[int, str], tuple[Any, tuple[tuple[Wager, Paytable], ...]]] = {}


def priced_given(door: Door, selection: Sequence[tuple[Wager, Paytable]], text: str, *,
                 skip_suits_unknown: bool = False, never: str = "refuse") -> tuple[Given, list[WagerResult], list[int]]:
    """Each (wager, paytable) of ``selection`` priced off ``door``'s shoe given the condition ``text``: how often
    it holds, each wager's table over the rounds where it holds (module doc), and (``skip_suits_unknown``) the
    places of the pairs left out as reading suits of a shoe whose suits are unknown. A condition that never
    holds on the shoe, or reads suits it does not know, is refused in one line (``never="none"``: a condition that
    never holds gives no result, one state of several that the shoe cannot deal)."""
    cond = condition(text)
    asked = _asked(tuple(selection), cond)
    if door.shoe.card_counts is None:                     # the condition's own suits first: not a wager's
        try:
            door.price(*asked[-1])
        except SuitsUnknown:
            raise SuitsUnknown(f"{WHERE} {cond.text!r} reads suits, but the shoe's suits are unknown (cards were "
                               "given by rank only); give removed cards with their suits, e.g. 9h") from None
    try:
        results, skipped = door.price_all(asked, skip_suits_unknown=skip_suits_unknown)
    except (SuitsUnknown, TooLarge) as exc:               # the condition may be what reads them, or makes it large
        raise type(exc)(f"{WHERE} {cond.text!r}: {exc}") from None
    kept = [i for i in range(len(selection)) if i not in set(skipped)]
    given = Given(cond.text, results[-1].lines[0].combinations, results[-1].total)
    if not given.combinations and never == "none":
        return given, [], skipped
    if not given.combinations:
        raise ExactOddsError(f"{WHERE} {cond.text!r}: never holds on {door.shoe.describe()}: no round to price "
                             "given it")
    shown = f"{door.shoe.describe()}, given {cond.text}"
    out = []
    for (wager, paytable), joined in zip([selection[i] for i in kept], results[:-1]):
        offered, counts = _counts(joined)                 # the loss last (pricing._offered)
        won = sum(counts[:-1])
        if won > given.combinations:                      # an invariant: N(o and G) <= N(G)
            raise InconsistentCounts(f"internal: {wager.id}:{paytable.id} given {cond.text!r} counted {won:,} "
                                     f"rounds paid of {given.combinations:,}: a defect of exactodds, please report it")
        out.append(WagerResult.counted(wager, paytable, shown, given.combinations, offered,
                                       [*counts[:-1], given.combinations - won]))
    return given, out, skipped


def forget(selection: Sequence[tuple[Wager, Paytable]], text: str) -> None:
    """Drop what pricing ``selection`` given ``text`` kept in the process: the wagers joined to the condition (and
    the outcome masks and settlements they hold, an array as long as their table's keys each), the condition's
    own wager, and the kept plans that name them. An analysis that asks one condition after another, each once
    (every state of what a player knows), calls it after each, and holds one condition's arrays at a time."""
    cond = condition(text)
    for wager, _ in selection:
        wager.__dict__.get("_cache", {}).pop(("given", cond.text), None)
    for key in [k for k in _ASKED if k[1] == cond.text]:
        _ASKED.pop(key)
    _holds.cache_clear()
    pricing.forget_plans()


def _counts(result: WagerResult) -> tuple[Sequence[tuple[int, str, str, Pay]], list[int]]:
    """A result's lines as (outcome index, id, name, pay) and their counts, read without making its lines (the
    index is the line's place where the result was made from its lines: nothing reads it)."""
    counted = result.__dict__.get("_counted")
    if counted is not None:
        return counted[0], list(counted[1])
    return ([(k, ln.id, ln.name, ln.pay) for k, ln in enumerate(result.lines)],
            [ln.combinations for ln in result.lines])
