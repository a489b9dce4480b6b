"""Cards: ranks, suits, colours, point values (§627a.6) and card notation.

A card is a rank and a suit. Its point value is what the drawing rules read:

>>> [Rank.parse(r).points for r in ("A", "5", "9", "10", "J", "Q", "K")]
[1, 5, 9, 0, 0, 0, 0]
>>> Card.parse("10h"), Card.parse("K♠"), Card.parse("td")
(Card(rank=<Rank.TEN: 10>, suit=<Suit.HEARTS: 'h'>), Card(rank=<Rank.KING: 13>, suit=<Suit.SPADES: 's'>), Card(rank=<Rank.TEN: 10>, suit=<Suit.DIAMONDS: 'd'>))
>>> str(Card.parse("QD")), Card.parse("QD").suit.colour
('Q♦', 'red')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from exactodds.errors import ExactOddsError

__all__ = ["Rank", "Suit", "Card", "parse_card_or_rank", "VALUES"]

#: The ten point values of §627a.6(a); the drawing rules read nothing else.
VALUES = tuple(range(10))


class Rank(enum.Enum):
    """A card's rank, A (1) to K (13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def points(self) -> int:
        """Point value per §627a.6(a): 2–9 face, 10/J/Q/K zero, ace one."""
        return self.value if self.value <= 9 else 0

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOL[self]

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Parse ``A``, ``2``–``10``, ``T``, ``J``, ``Q``, ``K`` (any case)."""
        rank = _RANK_BY_TEXT.get(text.strip().upper())
        if rank is None:
            raise ExactOddsError(f"unknown rank {text!r} (use A, 2-10, T, J, Q or K)")
        return rank

    def __str__(self) -> str:
        return self.symbol


class Suit(enum.Enum):
    """A card's suit; hearts and diamonds are red, spades and clubs black."""

    SPADES = "s"
    HEARTS = "h"
    DIAMONDS = "d"
    CLUBS = "c"

    @property
    def colour(self) -> str:
        return "red" if self in (Suit.HEARTS, Suit.DIAMONDS) else "black"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOL[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        suit = _SUIT_BY_TEXT.get(text.strip().lower())
        if suit is None:
            raise ExactOddsError(f"unknown suit {text!r} (use s, h, d, c or ♠ ♥ ♦ ♣)")
        return suit

    def __str__(self) -> str:
        return self.symbol


_RANK_SYMBOL = {
    Rank.ACE: "A", Rank.TEN: "10", Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K",
    **{r: str(r.value) for r in Rank if 2 <= r.value <= 9},
}
_RANK_BY_TEXT = {sym: r for r, sym in _RANK_SYMBOL.items()} | {"T": Rank.TEN, "1": Rank.ACE}
_SUIT_SYMBOL = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_BY_TEXT = (
    {s.value: s for s in Suit}
    | {sym: s for s, sym in _SUIT_SYMBOL.items()}
    | {"♤": Suit.SPADES, "♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS}
)


@dataclass(frozen=True)
class Card:
    """One card identity: a rank and a suit."""

    rank: Rank
    suit: Suit

    @property
    def points(self) -> int:
        """Point value per §627a.6(a)."""
        return self.rank.points

    @property
    def colour(self) -> str:
        return self.suit.colour

    @property
    def index(self) -> int:
        """Position 0–51 in the shoe's identity order (rank-major, suits s h d c)."""
        return (self.rank.value - 1) * 4 + _SUIT_ORDER[self.suit]

    @classmethod
    def from_index(cls, index: int) -> Card:
        return cls(Rank(index // 4 + 1), _SUITS[index % 4])

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``K♠``, ``Ks``, ``KS``, ``10h``, ``Th`` (case-insensitive)."""
        parsed = parse_card_or_rank(text)
        if not isinstance(parsed, Card):
            raise ExactOddsError(f"card {text!r} has no suit (write e.g. {text.strip()}s)")
        return parsed

    def __str__(self) -> str:
        return f"{self.rank.symbol}{self.suit.symbol}"

    def __lt__(self, other: object) -> bool:  # order by shoe index, not by enum
        if not isinstance(other, Card):
            return NotImplemented
        return self.index < other.index


_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_SUIT_ORDER = {s: i for i, s in enumerate(_SUITS)}


def parse_card_or_rank(text: str) -> Card | Rank:
    """Parse a card (``Ks``, ``10♥``) or a bare rank (``9``) where suit does not matter.

    >>> parse_card_or_rank("9"), str(parse_card_or_rank("tH"))
    (<Rank.NINE: 9>, '10♥')
    """
    raw = text.strip()
    if not raw:
        raise ExactOddsError("empty card notation")
    if raw.upper() in _RANK_BY_TEXT:
        return _RANK_BY_TEXT[raw.upper()]
    rank_text, suit_text = raw[:-1], raw[-1]
    rank = _RANK_BY_TEXT.get(rank_text.upper())
    suit = _SUIT_BY_TEXT.get(suit_text.lower())
    if rank is None or suit is None:
        raise ExactOddsError(
            f"unknown card {text!r} (write a rank A,2-10,T,J,Q,K and a suit s,h,d,c or ♠♥♦♣, e.g. Ks, 10h)"
        )
    return Card(rank, suit)
