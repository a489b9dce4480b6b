"""The shoe: a multiset of the 52 card identities, full or depleted.

§627a.3 regulates six to eight decks; any number of decks works here, and so
does a shoe with cards removed. Every figure is "off the top" of the shoe as
given, counted in the published convention: each round is weighted by the
number of ordered 6-card sequences of the shoe that produce it.

>>> Shoe.decks(8).sequences
4998398275503360
>>> Shoe.decks(1).remove("5s", "5s")
Traceback (most recent call last):
...
exactodds.errors.ExactOddsError: cannot remove 5♠: the shoe holds no more of it (removing card 2 of 2)
>>> Shoe.decks(8).remove("9").describe()
'8 decks less 9 (415 cards; suits of removed ranks not given)'
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card, Rank, parse_card_or_rank

__all__ = ["Shoe", "CARDS_PER_ROUND", "int64_safe", "parse_card_list"]

#: The most cards a round can use (two hands of at most three, §627a.9(d)).
CARDS_PER_ROUND = 6

#: Largest shoe whose 6-card sequence count fits a signed 64-bit integer
#: (1448**6 < 2**63 - 1 < 1449**6): about 27 decks.
INT64_MAX_CARDS = 1448
#: The largest shoe counted: 10 million decks (the modular counting is checked to 3·10^7 decks; beyond
#: about 10^8 its residues would overflow, and the invariant that counts add up would refuse the result).
MAX_CARDS = 52 * 10**7

#: The description's note where the suits of removed cards are not known.
_UNKNOWN = "; suits of removed ranks not given"


def _bad_count(counts: tuple[Any, ...]) -> int | None:
    """The place of the first of ``counts`` that is not a whole number >= 0 (an ``int``: not a ``bool``, not a
    float), or None: checked all at once, and item by item only to name one (a shoe is made for every round an
    exposure prices by the shoe)."""
    if set(map(type, counts)) <= {int} and min(counts, default=0) >= 0:
        return None
    return next(i for i, n in enumerate(counts) if type(n) is not int or n < 0)


def int64_safe(size: int) -> bool:
    """True when every count of a shoe of ``size`` cards fits NumPy's int64."""
    return size <= INT64_MAX_CARDS


@dataclass(frozen=True)
class Shoe:
    """Counts of the card identities in a shoe.

    ``card_counts`` holds 52 counts in :attr:`Card.index` order, or ``None``
    when the suits of some cards are not known (a rank was removed without its
    suit, or counts were given per rank); ``rank_counts`` always holds the 13
    counts per rank. ``removed`` records what was taken out, for display.
    """

    rank_counts: tuple[int, ...]
    card_counts: tuple[int, ...] | None
    label: str
    # what the engine reads, worked out when the shoe is made (a shoe never changes):
    #: Number of cards in the shoe.
    size: int = field(init=False, repr=False, compare=False)
    #: Cards per point value 0–9 (§627a.6): 10, J, Q, K all count as 0.
    value_counts: tuple[int, ...] = field(init=False, repr=False, compare=False)
    #: Ordered 6-card sequences of the shoe: the denominator of every figure.
    sequences: int = field(init=False, repr=False, compare=False)
    _description: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.rank_counts, tuple) or len(self.rank_counts) != 13:
            raise ExactOddsError(f"a shoe needs a tuple of 13 rank counts, got {self.rank_counts!r:.60}")
        if (i := _bad_count(self.rank_counts)) is not None:
            raise ExactOddsError(f"count of {Rank(i + 1)} must be a whole number >= 0, got {self.rank_counts[i]!r}")
        if self.card_counts is not None:
            if not isinstance(self.card_counts, tuple) or len(self.card_counts) != 52:
                raise ExactOddsError(f"a shoe needs a tuple of 52 card counts, got {self.card_counts!r:.60}")
            if (i := _bad_count(self.card_counts)) is not None:
                raise ExactOddsError(f"count of {Card.from_index(i)} must be a whole number >= 0, "
                                     f"got {self.card_counts[i]!r}")
            by_rank = tuple(map(sum, zip(*[iter(self.card_counts)] * 4)))     # each rank's four suits
            if by_rank != self.rank_counts:
                r = next(r for r in range(13) if by_rank[r] != self.rank_counts[r])
                raise ExactOddsError(f"the shoe's counts disagree: {by_rank[r]} cards of {Rank(r + 1)} by suit, "
                                     f"{self.rank_counts[r]} by rank")
        if not isinstance(self.label, str):
            raise ExactOddsError(f"a shoe's label must be text, got {self.label!r:.60}")
        size = sum(self.rank_counts)
        if size > MAX_CARDS:
            raise ExactOddsError(f"the shoe holds {size:,} cards; at most {MAX_CARDS:,} (10 million decks) "
                                 "are counted")
        if size < CARDS_PER_ROUND:
            raise ExactOddsError(
                f"the shoe holds {size} cards; a round may need {CARDS_PER_ROUND}"
            )
        # what every count reads, worked out once (plain attributes: a cached property's first read costs
        # more than pricing the main game's settlement, and on Python 3.11 takes a lock)
        known = self.__dict__
        known["size"] = size
        known["value_counts"] = (sum(self.rank_counts[9:13]), *self.rank_counts[0:9])
        known["sequences"] = math.perm(size, CARDS_PER_ROUND)
        known["_description"] = f"{self.label} ({size} cards{'' if self.card_counts is not None else _UNKNOWN})"

    def __setstate__(self, state: dict[str, object]) -> None:
        """Unpickled: the counts and label checked again and what is worked out from them made again (a shoe
        pickled by an earlier version holds only them)."""
        self.__dict__.update(state)
        self.__post_init__()

    # -- construction -------------------------------------------------------
    @classmethod
    def decks(cls, n: int) -> Shoe:
        """``n`` full 52-card decks (§627a.3: six to eight in play; any n >= 1 here)."""
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CARDS // 52:
            raise ExactOddsError(f"number of decks must be a whole number from 1 to {MAX_CARDS // 52:,}, got {n!r}")
        return cls((4 * n,) * 13, (n,) * 52, f"{n} deck" + ("s" if n != 1 else ""))

    @classmethod
    def from_card_counts(cls, counts: Mapping[Card | str, int], *, label: str = "custom shoe") -> Shoe:
        """A shoe from counts per card identity (cards not named count zero)."""
        per_card = [0] * 52
        for key, n in counts.items():
            card = key if isinstance(key, Card) else Card.parse(key)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ExactOddsError(f"count of {card} must be a whole number >= 0, got {n!r}")
            per_card[card.index] += n
        return cls._from_cards(tuple(per_card), label)

    @classmethod
    def from_rank_counts(cls, counts: Mapping[Rank | str, int], *, label: str = "custom shoe") -> Shoe:
        """A shoe from counts per rank; suits unknown (wagers that read suits refuse it)."""
        per_rank = [0] * 13
        for key, n in counts.items():
            rank = key if isinstance(key, Rank) else Rank.parse(str(key))
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise ExactOddsError(f"count of {rank} must be a whole number >= 0, got {n!r}")
            per_rank[rank.value - 1] += n
        return cls(tuple(per_rank), None, label)

    @classmethod
    def _from_cards(cls, per_card: tuple[int, ...], label: str) -> Shoe:
        ranks = tuple(sum(per_card[4 * r: 4 * r + 4]) for r in range(13))
        return cls(ranks, per_card, label)

    def remove(self, *cards: Card | Rank | str) -> Shoe:
        """The shoe with the listed cards taken out; a card may repeat.

        A bare rank (``"9"``) removes a card of that rank whose suit is not
        given; the shoe then knows its ranks but no longer its suits.
        """
        per_rank = list(self.rank_counts)
        per_card = list(self.card_counts) if self.card_counts is not None else None
        parsed = [c if isinstance(c, (Card, Rank)) else parse_card_or_rank(c) for c in cards]
        seen: Counter[Card | Rank] = Counter(parsed)
        done: Counter[Card | Rank] = Counter()
        for item in parsed:
            done[item] += 1
            where = f"removing card {done[item]} of {seen[item]}"
            if isinstance(item, Card):
                r = item.rank.value - 1
                if per_card is not None:
                    if per_card[item.index] == 0:
                        raise ExactOddsError(f"cannot remove {item}: the shoe holds no more of it ({where})")
                    per_card[item.index] -= 1
                elif per_rank[r] == 0:
                    raise ExactOddsError(f"cannot remove {item}: the shoe holds no more {item.rank} ({where})")
                per_rank[r] -= 1
            else:
                r = item.value - 1
                if per_rank[r] == 0:
                    raise ExactOddsError(f"cannot remove {item}: the shoe holds no more of it ({where})")
                per_rank[r] -= 1
                per_card = None
        removed = ", ".join(str(c) for c in parsed)
        label = f"{self.label} less {removed}" if removed else self.label
        return Shoe(tuple(per_rank), tuple(per_card) if per_card is not None else None, label)

    @property
    def suits_known(self) -> bool:
        return self.card_counts is not None

    def describe(self) -> str:
        """The label with the card count, e.g. ``'8 decks (416 cards)'``."""
        return self._description

    def to_dict(self) -> dict[str, object]:
        """The shoe as plain data (JSON): counts per rank and, when known, per card."""
        data: dict[str, object] = {
            "description": self.describe(),
            "cards": self.size,
            "sequences": self.sequences,
            "rank_counts": {str(r): n for r, n in zip(Rank, self.rank_counts)},
        }
        if self.card_counts is not None:
            data["card_counts"] = {
                str(Card.from_index(i)): n for i, n in enumerate(self.card_counts)
            }
        return data

    def __repr__(self) -> str:
        return f"<Shoe {self.describe()}>"

    def __str__(self) -> str:
        return self.describe()


def parse_card_list(text: str, *, where: str) -> list[Card | Rank]:
    """Parse a comma-separated list such as ``5S,5S,KH,9``; ``where`` names the option."""
    items = [part.strip() for part in text.split(",")]
    if any(not t for t in items):
        raise ExactOddsError(f"{where}: an empty entry in {text!r} (write cards separated by commas, e.g. 5S,5S,KH,9)")
    out: list[Card | Rank] = []
    for t in items:
        try:
            out.append(parse_card_or_rank(t))
        except ExactOddsError as exc:
            raise ExactOddsError(f"{where}: {exc}") from None
    return out
