"""A plain brute-force enumerator over card identities, for small shoes.

Independent of exactodds.engine and exactodds.walk: it deals actual cards one
by one from the multiset, follows exactodds.rules.play, and settles every
wager round by round. Each round is weighted by the ordered 6-card sequences
that start with its cards: the product of the counts as they are drawn, times
the number of ways to draw the unread cards. Only for shoes of a few dozen
cards with few distinct identities.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

from exactodds.cards import Card
from exactodds.errors import ExactOddsError
from exactodds.rules import Round, play
from exactodds.shoe import Shoe


def rounds(shoe: Shoe) -> Iterator[tuple[tuple[Card, ...], Round, int]]:
    """Every distinct sequence of cards a round can deal, with its 6-card weight."""
    assert shoe.card_counts is not None
    counts = {Card.from_index(i): n for i, n in enumerate(shoe.card_counts) if n}
    size = shoe.size

    def needed(cards: list[Card]) -> Round | None:
        values = [c.points for c in cards]
        try:
            return play(values)
        except ExactOddsError:
            return None

    def rec(cards: list[Card], weight: int) -> Iterator[tuple[tuple[Card, ...], Round, int]]:
        if len(cards) >= 4:
            rnd = needed(cards)
            if rnd is not None and rnd.cards_used == len(cards):
                yield tuple(cards), rnd, weight * math.perm(size - len(cards), 6 - len(cards))
                return
        for card, n in counts.items():
            if n:
                counts[card] = n - 1
                cards.append(card)
                yield from rec(cards, weight * n)
                cards.pop()
                counts[card] = n

    yield from rec([], 1)


def point_features(rnd: Round) -> dict[str, object]:
    from exactodds.outcomes import point_row

    return point_row((rnd.player_total, rnd.banker_total, len(rnd.player_cards), len(rnd.banker_cards)))


def settle_all(shoe: Shoe, pairs: list) -> dict[tuple[str, str], Counter]:
    """For each (wager, paytable id): counts per outcome id (None for a loss)."""
    out: dict[tuple[str, str], Counter] = {(w.id, t): Counter() for w, t in pairs}
    for _cards, rnd, weight in rounds(shoe):
        row = point_features(rnd)
        for w, t in pairs:
            out[(w.id, t)][w.settle_row(row, w.paytables[t])] += weight
    return out


def all_six_card_sequences(shoe: Shoe) -> Iterator[tuple[tuple[Card, ...], int]]:
    """Literally every ordered 6-card sequence (as distinct identities with weights)."""
    assert shoe.card_counts is not None
    counts = {Card.from_index(i): n for i, n in enumerate(shoe.card_counts) if n}

    def rec(cards: list[Card], weight: int) -> Iterator[tuple[tuple[Card, ...], int]]:
        if len(cards) == 6:
            yield tuple(cards), weight
            return
        for card, n in counts.items():
            if n:
                counts[card] = n - 1
                cards.append(card)
                yield from rec(cards, weight * n)
                cards.pop()
                counts[card] = n

    yield from rec([], 1)
