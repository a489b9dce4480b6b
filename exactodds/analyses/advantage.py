"""Readable backs (edge sorting): what a player gains who tells two classes of cards apart before the bet.

The cards are split into those named (point values or ranks) and the rest, the two classes a player can tell
apart by their backs; ``seen`` of them are seen before the bet, in the order of the deal (627a.9(a): the first
card to the Player, the second to the Banker, the third to the Player, the fourth to the Banker). Each
pattern of classes seen is a state; each wager is priced exactly given it (:mod:`exactodds.analyses.given`,
through the engine's door), and the player's advantage is what betting the best wager in each state gains:
one unit every round, or only where it is positive.

>>> from exactodds.game.shoe import Shoe
>>> a = readable_backs(Shoe.decks(8), sorted_cards="6,7,8,9", seen=1, wagers=["player", "banker"])
>>> [s.pattern for s in a.states], f"{float(a.when_positive):.3%}"      # the published 6.765%
(['H', 'L'], '6.765%')
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np

from exactodds.analyses.analysis import _selected
from exactodds.analyses.door import Door
from exactodds.analyses.eor import resolution
from exactodds.analyses.given import _counts as _line_counts
from exactodds.analyses.given import forget, priced_given
from exactodds.analyses.positions import joint_counts
from exactodds.analyses.pricing import WagerResult, _offered
from exactodds.engine.roundtable import round_table, round_weights
from exactodds.errors import ExactOddsError, InconsistentCounts, SuitsUnknown
from exactodds.game.cards import Card, Rank
from exactodds.game.shoe import Shoe
from exactodds.render.tables import Column, Figure, Report, Table, counted, render_report
from exactodds.wagers.catalogue import Catalogue, Paytable, Wager, load_catalogue, read_text
from exactodds.wagers.outcomes import feature_kind, point_row

#: The positions whose cards are seen, in the order of the deal (627a.9(a)): the four cards dealt before the
#: round's third cards. The fifth and sixth cards of the shoe (``--seen 5``, ``6``) are a third card or not as
#: the round goes, and seen all the same (:func:`_shoe_states`).
SEEN_ORDER = ("player_rank_1", "banker_rank_1", "player_rank_2", "banker_rank_2")
SHOWN = {"player_rank_1": "P1", "banker_rank_1": "B1", "player_rank_2": "P2", "banker_rank_2": "B2"}
#: The most cards of the shoe whose classes are seen: the six a round may deal (a fully sorted shoe's bound).
MOST_SEEN = 6

_RANK_OF = {"A": 1, "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13} | {str(r): r for r in range(2, 10)}


def sorted_ranks(text: str, *, where: str = "--sorted") -> tuple[int, ...]:
    """The ranks (1 to 13) of the class ``text`` names: point values 0 to 9 (0 the ten-valued ranks, 1 the ace)
    or ranks A, 2 to 9, T (or 10), J, Q, K, comma-separated.

    >>> sorted_ranks("6,7,8,9"), sorted_ranks("0"), sorted_ranks("A,K")
    ((6, 7, 8, 9), (10, 11, 12, 13), (1, 13))
    """
    if not isinstance(text, str):
        raise ExactOddsError(f"{where}: name point values or ranks, comma-separated, e.g. 6,7,8,9; got {text!r}")
    if text.strip().lower() == "best":
        raise ExactOddsError(f"{where} best: the search over every split is best_splits(), not a class: name the "
                             "class, e.g. 6,7,8,9")
    ranks: set[int] = set()
    for token in (t.strip().upper() for t in text.split(",")):
        if token == "0":
            ranks.update((10, 11, 12, 13))
        elif token == "1":
            ranks.add(1)
        elif token in _RANK_OF:
            ranks.add(_RANK_OF[token])
        else:
            raise ExactOddsError(f"{where} {text!r}: {token!r} is neither a point value (0 to 9) nor a rank "
                                 "(A, 2 to 9, T, J, Q, K)")
    if len(ranks) == 13:
        raise ExactOddsError(f"{where} {text!r}: names every rank, so the other class is empty: nothing is told "
                             "apart")
    return tuple(sorted(ranks))


def class_reading(ranks: Sequence[int]) -> tuple[str, str]:
    """How a condition reads a class of ranks: at point values where the class is a union of them (the tables
    read a card's point value in far fewer keys than its rank), else by rank; and the members, as the condition
    language writes a tuple.

    >>> class_reading((6, 7, 8, 9)), class_reading((10, 11, 12, 13)), class_reading((1, 13))
    (('value', '6, 7, 8, 9'), ('value', '0,'), ('rank', '1, 13'))
    """
    values = sorted({min(r, 10) % 10 for r in ranks})
    if sorted(r for r in range(1, 14) if min(r, 10) % 10 in values) == sorted(ranks):
        members = values
        kind = "value"
    else:
        members, kind = sorted(ranks), "rank"
    return kind, ", ".join(map(str, members)) + ("," if len(members) == 1 else "")


def class_condition(position: str, ranks: Sequence[int], high: bool = True) -> str:
    """The condition that the card at ``position`` (``player_rank_1`` ...: a position's rank feature) is of the
    class (``high``) or of the rest.

    >>> class_condition("banker_rank_2", (6, 7, 8, 9), False)
    'banker_value_2 not in (6, 7, 8, 9)'
    """
    kind, members = class_reading(ranks)
    return f"{position.replace('_rank_', f'_{kind}_')} {'in' if high else 'not in'} ({members})"


@dataclass(frozen=True)
class State:
    """One state of what the player knows (a pattern of classes seen, ``H`` a card of the class named and ``L``
    of the rest; or an exposed card), how likely it is, and every wager priced in it (none where it never
    comes)."""

    pattern: str
    condition: str
    probability: Fraction
    results: tuple[WagerResult, ...]

    def best(self) -> WagerResult | None:
        """The wager with the highest expected return in this state (None where it never comes)."""
        return max(self.results, key=lambda r: r.expected_return) if self.results else None


@dataclass(frozen=True)
class Advantage:
    """The states of what a player knows before the bet and what he gains in them (:func:`readable_backs`,
    :func:`exposed_card`)."""

    shoe: Shoe
    knows: str                               # what the player knows, in words
    pairs: tuple[str, ...]                   # WAGER:PAYTABLE, in the order of every state's results
    states: tuple[State, ...]
    ranks: tuple[int, ...] = ()              # the class named (readable backs)
    seen: int = 0                            # the cards whose class is seen (readable backs)

    @property
    def every_round(self) -> Fraction:
        """The expected return of betting one unit, every round, on the best wager of the state seen."""
        return sum((s.probability * b.expected_return for s in self.states if (b := s.best()) is not None),
                   Fraction(0))

    @property
    def when_positive(self) -> Fraction:
        """The same, betting only in a state where the best wager's return is positive (nothing elsewhere)."""
        return sum((s.probability * max(Fraction(0), b.expected_return) for s in self.states
                    if (b := s.best()) is not None), Fraction(0))

    def given_away(self) -> list[tuple[str, Fraction]]:
        """Each wager, what it alone gives a player who bets it only where it is positive, the most first."""
        gains = {p: Fraction(0) for p in self.pairs}
        for s in self.states:
            for p, r in zip(self.pairs, s.results):
                gains[p] += s.probability * max(Fraction(0), r.expected_return)
        return sorted(gains.items(), key=lambda kv: -kv[1])

    def report(self) -> Report:
        columns = (Column("state", "State"), Column("condition", "Known"),
                   Column("probability", "Probability", "decimal", 8, twin=True),
                   *(Column(p, p, "percent", 4, twin=True, signed=True) for p in self.pairs),
                   Column("best", "Best"))
        rows = tuple((s.pattern, s.condition, s.probability, *(r.expected_return for r in s.results),
                      b.wager.id + ":" + b.paytable.id if (b := s.best()) is not None else "")
                     for s in self.states if s.results)
        table = Table(columns, rows, title="Each wager's expected return in each state")
        away = Table((Column("wager", "Wager"), Column("gain", "Player's gain, betting it where positive",
                                                       "percent", 4, twin=True, signed=True)),
                     tuple(self.given_away()), title="The wagers by what they give away")
        return Report("advantage", headline={
            "Shoe": self.shoe.describe(),
            "Known before the bet": self.knows,
            "Betting the best wager every round": Figure(self.every_round, "percent", 4, signed=True),
            "Betting only where it is positive": Figure(self.when_positive, "percent", 4, signed=True),
        }, tables=(table, away), data=self.to_dict)

    def render(self, fmt: str) -> str:
        return render_report(self.report(), fmt)

    def to_dict(self) -> dict[str, Any]:
        def ex(x: Fraction) -> str:
            return f"{x.numerator}/{x.denominator}"
        return {"shoe": self.shoe.to_dict(), "knows": self.knows, "sorted_ranks": list(self.ranks),
                "seen": self.seen, "wagers": list(self.pairs),
                "states": [{"pattern": s.pattern, "condition": s.condition, "probability": ex(s.probability),
                            "expected_returns": {p: ex(r.expected_return) for p, r in zip(self.pairs, s.results)}}
                           for s in self.states],
                "every_round": ex(self.every_round), "when_positive": ex(self.when_positive),
                "given_away": [{"wager": p, "gain": ex(g)} for p, g in self.given_away()]}


def _rank_name(rank: int) -> str:
    return {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))


def readable_backs(shoe: Shoe | None = None, *, sorted_cards: str, seen: int = 1, wagers: Iterable[str] = (),
                   everything: bool = False, catalogue: Catalogue | None = None,
                   alternatives: Mapping[str, str] | None = None) -> Advantage:
    """What a player gains who tells the class ``sorted_cards`` (:func:`sorted_ranks`) from the rest by the
    cards' backs and sees ``seen`` (1 to 6) cards' classes before the bet, for the wagers named (the main game
    by default, as ``analyze``), off the top of ``shoe`` (8 decks by default). A wager that is not priced with
    a fixed pay (a progressive's meter) is refused: its edge has no one value to compare."""
    shoe = shoe if shoe is not None else Shoe.decks(8)
    ranks = sorted_ranks(sorted_cards)
    if type(seen) is not int or not 1 <= seen <= MOST_SEEN:
        raise ExactOddsError(f"--seen {seen!r}: from 1 to {MOST_SEEN}, the cards of the shoe whose classes are seen "
                             "(1 to 4: the cards dealt before the third cards; 5, 6: the next cards, dealt or not)")
    pairs, selection = _fixed(wagers, everything, catalogue, alternatives)
    door = Door(shoe)
    if seen > len(SEEN_ORDER):
        states = _shoe_states(door, selection, ranks, seen)
    else:
        patterns = list(itertools.product((True, False), repeat=seen))
        conditions = [" and ".join(class_condition(p, ranks, high) for p, high in zip(SEEN_ORDER, bits))
                      for bits in patterns]
        states = [State("".join("H" if b else "L" for b in bits), condition, Fraction(total, shoe.sequences),
                        tuple(results))
                  for bits, condition, (total, results) in zip(patterns, conditions,
                                                                priced_states(door, selection, conditions))]
    _covered(states)
    cls = ", ".join(_rank_name(r) for r in ranks)
    shown = [SHOWN[p] for p in SEEN_ORDER[:seen]] + ["the 5th card", "the 6th card"][:max(0, seen - 4)]
    dealt_or_not = ", dealt or not" if seen > len(SEEN_ORDER) else ""
    knows = (f"the class of {counted(seen, 'card')} ({', '.join(shown)}{dealt_or_not}): {cls} (H) or the rest "
             "(L)")
    return Advantage(shoe, knows, tuple(f"{w.id}:{t}" for w, t in pairs), tuple(states), ranks, seen)


def _state_wager(conditions: Sequence[str]) -> tuple[Wager, Paytable]:
    """A wager whose outcomes are the states (``conditions``, no round meeting two of them: its outcomes are
    exclusive, so such a round is refused), each paid 1 to 1: what the joint counts beside a wager read. Made from
    a data file's text, so that its conditions are checked as every wager's are."""
    outcomes = "".join(f'  [[wager.outcome]]\n  id = "s{k}"\n  name = "state {k}"\n  when = {json.dumps(c)}\n'
                       for k, c in enumerate(conditions))
    pays = ", ".join(f's{k} = "1 to 1"' for k in range(len(conditions)))
    text = (f'[[wager]]\nid = "state"\nname = "What the player knows"\nsection = "the states of advantage play"\n'
            f'{outcomes}  [[wager.paytable]]\n  id = "states"\n  pays = {{ {pays} }}\n')
    wager = read_text(text, source="advantage")["state"]
    return wager, wager.paytable("states")


def priced_states(door: Door, selection: Sequence[tuple[Any, Any]], conditions: Sequence[str]
                  ) -> list[tuple[int, tuple[WagerResult, ...]]]:
    """Each state of ``conditions`` (conditions no round meets two of) off ``door``'s shoe: its ordered 6-card
    sequences and each pair of ``selection`` priced over its rounds (none where it never holds). One count per
    pair of the states beside it, settled together on each round (:func:`~exactodds.analyses.positions.
    joint_counts`: one table of what both read, or both walked), rather than a pricing per state: the states of
    six cards seen are 112 conditions."""
    state = _state_wager(conditions)
    totals: list[int] | None = None
    per_pair: list[list[tuple[Any, list[int]]]] = []
    for wager, paytable in selection:
        door.price(wager, paytable)                       # says its route (a table refused is walked from here)
        joint = (joint_counts(door, [state, (wager, paytable)]) if door.route_of(wager) != "walk"
                 else _walked_states(door, (wager, paytable), conditions))
        offered = _offered(wager, paytable)               # (outcome index, id, name, pay), the loss (-1) last
        by_state: list[dict[int, int]] = [{} for _ in conditions]
        for (s, o), n in joint.items():
            if s >= 0:
                by_state[s][o] = by_state[s].get(o, 0) + n
        sums = [sum(d.values()) for d in by_state]
        if totals is None:
            totals = sums
        elif sums != totals:                              # every pair counts the same rounds in each state
            raise InconsistentCounts("internal: two wagers count a state's rounds differently: a defect of "
                                     "exactodds, please report it")
        rows = []
        for d, total in zip(by_state, sums):
            counts = [d.get(k, 0) for k, *_ in offered[:-1]]
            counts.append(total - sum(counts))            # the loss: every round of the state not paid
            if counts[-1] < 0:                            # more rounds paid than the state holds
                raise InconsistentCounts(f"internal: {wager.id}:{paytable.id}'s lines do not add up to a state's "
                                         "rounds: a defect of exactodds, please report it")
            rows.append((offered, counts))
        per_pair.append(rows)
    if totals is None:
        return [(0, ()) for _ in conditions]
    shoe = door.shoe.describe()
    return [(total, tuple(WagerResult.counted(w, t, f"{shoe}, given {condition}", total, *per_pair[j][s])
                          for j, (w, t) in enumerate(selection)) if total else ())
            for s, (condition, total) in enumerate(zip(conditions, totals))]


def _walked_states(door: Door, pair: tuple[Any, Any], conditions: Sequence[str]) -> dict[tuple[int, int], int]:
    """:func:`joint_counts` of the states beside a wager the door walks, state by state: the wager walked given
    each (through --given), which keeps one state's walk at a time where the walk of every state together would
    carry them all (the six cards' states beside House Money: 4.5 GB)."""
    wager = pair[0]
    index = {o.id: j for j, o in enumerate(wager.outcomes)}
    out: dict[tuple[int, int], int] = {}
    for s, condition in enumerate(conditions):
        given, results = priced_given(door, [pair], condition, never="none")[:2]
        forget([pair], condition)
        for line in (results[0].lines if results else ()):
            if line.combinations:
                out[(s, index.get(line.id, -1))] = line.combinations
    return out


def _third(slot: str, high: bool, ranks: Sequence[int]) -> str:
    """A third card dealt (``slot``: player or banker) and of the class (``high``) or of the rest."""
    return f"{slot}_cards == 3 and {class_condition(f'{slot}_rank_3', ranks, high)}"


def _shoe_states(door: Door, selection: tuple[tuple[Any, Any], ...], ranks: tuple[int, ...],
                 seen: int) -> list[State]:
    """The states of the classes of the shoe's first ``seen`` (5 or 6) cards, dealt or not.

    The shoe's fifth card is the Player's third where he draws, else the Banker's third where she draws, else
    not dealt; the sixth is the Banker's third where both draw. A round that deals k cards (``cards == k``) is
    priced given the classes of its dealt cards (through the door, as every state); the classes of the seen
    cards it does not deal change only the orderings of the cards not dealt. Its count, ``orderings × (n − k)
    (n − k − 1) ... (n − 5)`` where n is the shoe's size, becomes ``orderings × F × (n − seen) ... (n − 5)`` with F
    the falling product of the class's cards left (H − h)(H − h − 1) ... for the undealt seen cards of the class
    and the same of the rest: a whole number of the round's count / (n − k) ... (n − 5), the same for every round
    given the same classes dealt (h of them of the class)."""
    shoe = door.shoe
    n = shoe.size
    high = sum(shoe.rank_counts[r - 1] for r in ranks)
    low = n - high

    def first_four(bits: Sequence[bool]) -> list[str]:
        return [class_condition(p, ranks, b) for p, b in zip(SEEN_ORDER, bits)]

    dealt: dict[tuple[int, tuple[bool, ...]], tuple[str, int, tuple[WagerResult, ...]]] = {}
    asked: list[tuple[tuple[int, tuple[bool, ...]], str]] = []
    for k in (4, 5, 6):
        width = min(k, seen)
        for bits in itertools.product((True, False), repeat=width):
            parts = first_four(bits[:4])
            parts.append("cards == 4" if k == 4 else f"cards {'>=' if k == seen == 5 else '=='} {k}")
            if width >= 5:
                fifth = bits[4]
                parts.append(f"(({_third('player', fifth, ranks)}) or (player_cards == 2 and "
                             f"{_third('banker', fifth, ranks)}))")
            if width == 6:
                parts.append(_third("banker", bits[5], ranks))
            if k == 6 and seen == 5:
                continue                                  # counted with k = 5: cards >= 5
            asked.append(((k, bits), " and ".join(parts)))
    for (where, condition), (count, priced) in zip(asked, priced_states(door, selection, [c for _, c in asked])):
        dealt[where] = (condition, count, priced)
    states = []
    for pattern in itertools.product((True, False), repeat=seen):
        total = 0
        sums: list[list[int]] | None = None
        offered: list[Any] = []
        for k in (4, 5, 6):
            width = min(k, seen)
            entry = dealt.get((k, pattern[:width]))
            if entry is None or not entry[1]:
                continue
            _, combinations, results = entry
            h = sum(pattern[:width])
            rest = pattern[width:]
            if width == seen:                                 # every card seen is dealt: counted as it is
                f = per = 1
            else:
                f = math.perm(high - h, sum(rest)) * math.perm(low - (width - h), len(rest) - sum(rest)) \
                    * math.perm(n - seen, 6 - seen)
                per = math.perm(n - width, 6 - width)         # the orderings of a round's undealt cards
            if combinations % per:
                raise InconsistentCounts("internal: a round's count is not a whole number of its undealt cards' "
                                         "orderings: a defect of exactodds, please report it")
            total += combinations // per * f
            made = [_line_counts(r) for r in results]
            if sums is None:
                sums = [[0] * len(c) for _, c in made]
                offered = [o for o, _ in made]
            for acc, (_, c) in zip(sums, made):
                for i, x in enumerate(c):
                    if x % per:
                        raise InconsistentCounts("internal: an outcome's count is not a whole number of its undealt "
                                                 "cards' orderings: a defect of exactodds, please report it")
                    acc[i] += x // per * f
        label = "".join("H" if b else "L" for b in pattern)
        words = ", ".join(f"{name} {'H' if b else 'L'}" for name, b in
                          zip(["P1", "B1", "P2", "B2", "5th", "6th"], pattern))
        if not total or sums is None:
            states.append(State(label, words, Fraction(0), ()))
            continue
        shown = f"{shoe.describe()}, given {words}"
        results_out = tuple(WagerResult.counted(w, t, shown, total, o, c)
                            for (w, t), o, c in zip(selection, offered, sums))
        states.append(State(label, words, Fraction(total, shoe.sequences), results_out))
    return states


def _fixed(wagers: Iterable[str], everything: bool, catalogue: Catalogue | None,
           alternatives: Mapping[str, str] | None) -> tuple[list[tuple[Any, str]], tuple[tuple[Any, Any], ...]]:
    """The pairs named (as ``analyze`` selects them), refused where a pay is a progressive's meter."""
    if isinstance(wagers, str):
        wagers = (wagers,)
    pairs, selection = _selected(catalogue if catalogue is not None else load_catalogue(), tuple(wagers), (),
                                 everything, alternatives)

    def meter(w: Any, t: Any) -> bool:
        return any(t.pays[o.id].symbolic for o in w.outcomes if t.pays[o.id].offered)

    if everything:                                       # every wager of fixed pays: the meters left out
        kept = [k for k, (w, t) in enumerate(selection) if not meter(w, t)]
        return [pairs[k] for k in kept], tuple(selection[k] for k in kept)
    for w, t in selection:
        if meter(w, t):
            raise ExactOddsError(f"wager {w.id!r} ({t.id}) pays a progressive meter: its edge has no one value to "
                                 "compare (see 'exactodds progressive')")
    return pairs, selection


def _covered(states: Sequence[State]) -> None:
    """The invariant of every set of states: they cover every round, once."""
    if sum(s.probability for s in states) != 1:
        raise InconsistentCounts("internal: the states of what the player knows do not cover every round: a "
                                 "defect of exactodds, please report it")


#: Where an exposed card is seen: the first card dealt (627a.9(a), flashed), the burn card (exposed by
#: 627a.5(f)), the bottom card of the stack (behind the second cover card, never dealt: 627a.5(d)).
EXPOSED = ("first", "burn", "bottom")


def exposed_card(shoe: Shoe | None = None, *, position: str, wagers: Iterable[str] = (), everything: bool = False,
                 catalogue: Catalogue | None = None, alternatives: Mapping[str, str] | None = None) -> Advantage:
    """What a player gains who sees one card before the bet: each card it could be (by rank where every wager
    reads point values and ranks alone, else by rank and suit), its probability, each wager's exact edge given
    it, and the average advantage. ``position``: ``first`` (the round's first card, the Player's: the wagers
    priced given it), ``burn`` or ``bottom`` (a card known not to be dealt: the rounds off the shoe less it)."""
    shoe = shoe if shoe is not None else Shoe.decks(8)
    if position not in EXPOSED:
        raise ExactOddsError(f"--exposed {position!r}: one of {', '.join(EXPOSED)}")
    pairs, selection = _fixed(wagers, everything, catalogue, alternatives)
    by_card = any(resolution(w) == "card" for w, _ in selection)
    if by_card and shoe.card_counts is None:
        raise SuitsUnknown("--exposed: a wager chosen reads suits, so the card is seen with its suit, but the "
                           "shoe's suits are unknown (cards were given by rank only); give them with their suits")
    items: list[Any] = [Card.from_index(i) for i in range(52)] if by_card else list(Rank)
    door = Door(shoe)
    states = []
    for item in items:
        cards = shoe.card_counts
        held = cards[item.index] if isinstance(item, Card) and cards is not None else shoe.rank_counts[item.value - 1]
        label = str(item)
        if not held:
            states.append(State(label, "", Fraction(0), ()))
            continue
        if position == "first":
            rank = item.rank.value if isinstance(item, Card) else item.value
            condition = f"player_rank_1 == {rank}" + (
                f" and player_suit_1 == '{item.suit.value}'" if isinstance(item, Card) else "")
            given, results = priced_given(door, selection, condition)[:2]
            forget(selection, condition)
            states.append(State(label, condition, given.probability, tuple(results)))
        else:
            less = shoe.remove(item)
            results, _ = Door(less).price_all(selection)
            states.append(State(label, f"the {position} card: {label}", Fraction(held, shoe.size), tuple(results)))
    _covered(states)
    where = {"first": "the first card dealt (the Player's)", "burn": "the burn card (627a.5(f))",
             "bottom": "the bottom card (never dealt, 627a.5(d))"}[position]
    knows = f"{where}, by its {'rank and suit' if by_card else 'rank'}"
    return Advantage(shoe, knows, tuple(f"{w.id}:{t}" for w, t in pairs), tuple(states))


__all__: Sequence[str] = ("Advantage", "BestSplits", "State", "best_splits", "readable_backs", "exposed_card",
                          "sorted_ranks", "class_condition", "class_reading", "SEEN_ORDER", "EXPOSED", "MOST_SEEN")


#: Where ``--sorted best`` names what it found: the first splits, the most given away first.
BEST_SHOWN = 5


@dataclass(frozen=True)
class BestSplits:
    """The splits of the ten point values into two classes, each with what an edge sorter gains by it at the
    ``seen`` asked for (betting the best wager where it is positive), the most first; ``best``: the first
    priced again through the engine's door (:func:`readable_backs`), the same figure by a second route."""

    splits: tuple[tuple[tuple[int, ...], Fraction, Fraction], ...]     # (values, when positive, every round)
    best: Advantage

    def report(self) -> Report:
        shown = self.splits[:BEST_SHOWN]
        table = Table((Column("values", "High class (point values)"),
                       Column("when_positive", "Gain, betting only where positive", "percent", 4, twin=True,
                              signed=True),
                       Column("every_round", "Gain, betting every round", "percent", 4, twin=True, signed=True)),
                      tuple((", ".join(map(str, v)), g, e) for v, g, e in shown),
                      title=f"The best {len(shown)} of {len(self.splits)} splits of the point values")
        inner = self.best.report()
        return replace(inner, tables=(table, *inner.tables), data=self.to_dict)

    def render(self, fmt: str) -> str:
        return render_report(self.report(), fmt)

    def to_dict(self) -> dict[str, Any]:
        return {"splits": [{"values": list(v), "when_positive": f"{g.numerator}/{g.denominator}",
                            "every_round": f"{e.numerator}/{e.denominator}"} for v, g, e in self.splits],
                "best": self.best.to_dict()}


def best_splits(shoe: Shoe | None = None, *, seen: int = 1, wagers: Iterable[str] = (),
                catalogue: Catalogue | None = None) -> BestSplits:
    """Every split of the point values into two classes (511: a class and its complement are one split), what
    a player gains by it who sees ``seen`` cards' classes, for wagers read at point-level features (the main
    game's: a wager that reads cards is refused). Counted from the value-level rounds: each round's weight
    off ``shoe`` (:func:`~exactodds.engine.roundtable.round_weights`) summed per state and point-level key,
    each key settled by the per-row interpreter of the wagers' conditions; the best split is then priced
    through the engine's door (:func:`readable_backs`) and must give the same figure."""
    shoe = shoe if shoe is not None else Shoe.decks(8)
    if type(seen) is not int or not 1 <= seen <= len(SEEN_ORDER):
        raise ExactOddsError(f"--seen {seen!r}: --sorted best searches the splits for 1 to {len(SEEN_ORDER)} cards "
                             "seen (the initial cards)")
    pairs, selection = _fixed(wagers, False, catalogue, None)
    for w, _ in selection:
        if feature_kind(w.features) != "point":
            raise ExactOddsError(f"--sorted best searches the splits for wagers read at point level (the main "
                                 f"game's); wager {w.id!r} reads the cards: name its split instead, e.g. 6,7,8,9")
    table = round_table()
    weights = round_weights(shoe)
    points = np.stack([table.player_total, table.banker_total, table.player_cards, table.banker_cards], axis=1)
    keys, key_of = np.unique(points, axis=0, return_inverse=True)
    key_of = key_of.ravel()
    seen_values = table.order[:, :seen].astype(np.int64)            # the first cards' values, in the order dealt
    nets = [[Fraction(t.pays[o.id].net) for o in w.outcomes] + [Fraction(-1)] for w, t in selection]
    unit = math.lcm(*(n.denominator for row in nets for n in row))   # the nets in integers over one denominator
    ints = [[int(n * unit) for n in row] for row in nets]
    paid = [[_paid(w, t, (int(k[0]), int(k[1]), int(k[2]), int(k[3]))) for k in keys] for w, t in selection]
    net_of_key = [[ints[j][o] for o in paid[j]] for j in range(len(selection))]
    found = []
    for subset in range(1, 2 ** 9):                                 # the class without the ten-valued (value 0)
        values = tuple(v for v in range(1, 10) if subset >> (v - 1) & 1)
        high = np.zeros(10, dtype=np.int64)
        high[list(values)] = 1
        state = (high[seen_values] << np.arange(seen)).sum(axis=1)  # bit i: the i-th card seen is high
        per = np.zeros((2 ** seen, len(keys)), dtype=weights.dtype)
        np.add.at(per, (state, key_of), weights)
        every = positive = 0
        for row in per.tolist():
            total = sum(row)
            if not total:
                continue
            best = max(sum(n * x for n, x in zip(row, net_of_key[j]) if n) for j in range(len(selection)))
            every += best
            positive += max(0, best)
        found.append((values, Fraction(positive, unit * shoe.sequences), Fraction(every, unit * shoe.sequences)))
    found.sort(key=lambda f: (-f[1], f[0]))
    best = readable_backs(shoe, sorted_cards=",".join(map(str, found[0][0])), seen=seen,
                          wagers=[f"{w.id}:{t}" for w, t in pairs], catalogue=catalogue)
    if best.when_positive != found[0][1]:                           # two routes to one figure
        raise InconsistentCounts(f"internal: the best split counted {found[0][1]} from the value-level rounds "
                                 f"and {best.when_positive} through the engine: a defect of exactodds, please "
                                 "report it")
    return BestSplits(tuple(found), best)


def _paid(wager: Any, paytable: Any, key: tuple[int, int, int, int]) -> int:
    """The outcome index a point-level key is paid as (the wager's outcomes, then the loss last)."""
    oid = wager.settle_row(point_row(key), paytable)
    return len(wager.outcomes) if oid is None else [o.id for o in wager.outcomes].index(oid)
