"""A plain brute-force enumerator over card identities, for small shoes.

Independent of exactodds.engine.distribution and exactodds.engine.walk: it deals actual cards one
by one from the multiset, follows exactodds.game.rules.play, and settles every
wager round by round. Each round is weighted by the ordered 6-card sequences
that start with its cards: the product of the counts as they are drawn, times
the number of ways to draw the unread cards. Only for shoes of a few dozen
cards with few distinct identities.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator

from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card
from exactodds.game.rules import Round, play
from exactodds.game.shoe import Shoe


def _draws(shoe: Shoe, stop: Callable[[list[Card]], bool]) -> Iterator[tuple[tuple[Card, ...], int]]:
    """Ordered draws of card identities until ``stop`` says so, each with the number of
    ordered ways to draw it (the product of the counts as they are drawn)."""
    assert shoe.card_counts is not None
    counts = {Card.from_index(i): n for i, n in enumerate(shoe.card_counts) if n}

    def rec(cards: list[Card], weight: int) -> Iterator[tuple[tuple[Card, ...], int]]:
        if stop(cards):
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


def _complete(cards: list[Card]) -> Round | None:
    """The round, if these cards are exactly the cards it deals."""
    if len(cards) < 4:
        return None
    try:
        rnd = play([c.points for c in cards])
    except ExactOddsError:
        return None
    return rnd if rnd.cards_used == len(cards) else None


def rounds(shoe: Shoe) -> Iterator[tuple[tuple[Card, ...], Round, int]]:
    """Every distinct sequence of cards a round can deal, with its 6-card weight."""
    for cards, weight in _draws(shoe, lambda cs: _complete(cs) is not None):
        rnd = _complete(list(cards))
        assert rnd is not None
        yield cards, rnd, weight * math.perm(shoe.size - len(cards), 6 - len(cards))


def point_features(rnd: Round) -> dict[str, object]:
    from exactodds.wagers.outcomes import point_row

    return point_row((rnd.player_total, rnd.banker_total, len(rnd.player_cards), len(rnd.banker_cards)))


def _hand(first: Card, second: Card) -> dict[str, object]:
    """The first two cards of a hand, described straight from the regulation's words."""
    same_rank = first.rank == second.rank
    same_suit = first.suit == second.suit
    if not same_rank:
        pair = "none"
    elif same_suit:
        pair = "perfect"
    elif first.colour == second.colour:
        pair = "coloured"
    else:
        pair = "mixed"
    names = sorted([str(first.rank), str(second.rank)])
    royal_9 = "none"
    if names in (["9", "K"], ["9", "Q"], ["9", "J"]):
        royal_9 = "suited" if same_suit else "unsuited"
    king_9 = ""
    if names == ["9", "K"]:
        king, nine = (first, second) if str(first.rank) == "K" else (second, first)
        king_9 = "K" + king.suit.symbol + "9" + nine.suit.symbol
    nines = "".join(sorted(c.suit.value for c in (first, second) if str(c.rank) == "9"))
    return {"pair": pair, "suited": same_suit, "royal_match": same_suit and names == ["K", "Q"],
            "royal_9": royal_9, "king_9": king_9, "nines": nines}


def all_features(cards: tuple[Card, ...], rnd: Round) -> dict[str, object]:
    """Every feature a wager can read, computed from the actual cards of the round."""
    row = point_features(rnd)
    for v in range(10):
        row[f"count_{v}"] = sum(1 for c in cards if c.points == v)
    row["same_suit"] = len({c.suit for c in cards}) == 1
    row["same_colour"] = len({c.colour for c in cards}) == 1
    row["same_rank"] = len({c.rank for c in cards}) == 1
    for hand, (a, b) in (("player", (cards[0], cards[2])), ("banker", (cards[1], cards[3]))):
        row.update({f"{hand}_{k}": v for k, v in _hand(a, b).items()})
    for hand, held in (("player", rnd.player_cards), ("banker", rnd.banker_cards)):
        row[f"{hand}_two_card_total"] = (held[0] + held[1]) % 10
    player_cards = [cards[0], cards[2]] + ([cards[4]] if len(rnd.player_cards) == 3 else [])
    banker_cards = [cards[1], cards[3]] + ([cards[-1]] if len(rnd.banker_cards) == 3 else [])
    for hand, held_cards in (("player", player_cards), ("banker", banker_cards)):
        for k in range(3):
            card = held_cards[k] if k < len(held_cards) else None
            row[f"{hand}_value_{k + 1}"] = card.points if card else -1
            row[f"{hand}_rank_{k + 1}"] = card.rank.value if card else -1
            row[f"{hand}_suit_{k + 1}"] = card.suit.value if card else ""
    nines = [c for c in cards[:4] if str(c.rank) == "9"]
    row["nines"] = len(nines)
    row["nines_same_suit"] = len(nines) >= 2 and len({c.suit for c in nines}) == 1
    row["nine_of_diamonds"] = sum(1 for c in nines if c.suit.value == "d")
    return row


def settle_all(shoe: Shoe, pairs: list) -> dict[tuple[str, str], Counter]:
    """For each (wager, paytable id): counts per outcome id (None for a loss)."""
    by_row: Counter = Counter()
    for cards, rnd, weight in rounds(shoe):
        by_row[tuple(sorted(all_features(cards, rnd).items()))] += weight
    out: dict[tuple[str, str], Counter] = {(w.id, t): Counter() for w, t in pairs}
    for items, weight in by_row.items():
        row = dict(items)
        for w, t in pairs:
            out[(w.id, t)][w.settle_row(row, w.paytables[t])] += weight
    return out


def all_six_card_sequences(shoe: Shoe) -> Iterator[tuple[tuple[Card, ...], int]]:
    """Literally every ordered 6-card sequence (as distinct identities with weights)."""
    yield from _draws(shoe, lambda cs: len(cs) == 6)


def deal_shoe_by_the_rules(shoe: list[int], *, cut: int) -> list[list[int]]:
    """The rounds of one shuffled shoe (card indices in shoe order), dealt card by card: expose the
    first card and burn as many as its face (§627a.5(f)), deal with :func:`exactodds.game.rules.play`
    until the hand in which the cover card ``cut`` cards from the end appears, then one more
    hand (§627a.9(e)). Each round is its cards in the order dealt."""
    first = Card.from_index(shoe[0])
    pos = 1 + (10 if first.rank.value >= 10 else first.points)
    cover = len(shoe) - cut
    out, last_hand = [], False
    while True:
        rnd = play([Card.from_index(c).points for c in shoe[pos:pos + 6]])
        out.append(shoe[pos:pos + rnd.cards_used])
        appears = pos <= cover < pos + rnd.cards_used
        pos += rnd.cards_used
        if last_hand:
            return out
        last_hand = appears
