"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from exactodds.cards import Card
from exactodds.shoe import Shoe

ALL_CARDS = [Card.from_index(i) for i in range(52)]


@st.composite
def small_shoes(draw: st.DrawFn, max_identities: int = 7, max_count: int = 3) -> Shoe:
    """A shoe of a few distinct card identities, small enough for the brute force."""
    cards = draw(st.lists(st.sampled_from(ALL_CARDS), min_size=2, max_size=max_identities, unique=True))
    counts = draw(st.lists(st.integers(1, max_count), min_size=len(cards), max_size=len(cards)))
    if sum(counts) < 6:
        counts[0] += 6 - sum(counts)
    return Shoe.from_card_counts(dict(zip(cards, counts)), label="random small shoe")


@st.composite
def depleted_shoes(draw: st.DrawFn) -> Shoe:
    """One to eight decks with up to 40 random cards removed."""
    decks = draw(st.integers(1, 8))
    shoe = Shoe.decks(decks)
    removed = draw(st.lists(st.sampled_from(ALL_CARDS), max_size=40))
    counts = list(shoe.card_counts or ())
    keep = []
    for c in removed:
        if counts[c.index] > 0 and sum(counts) > 6:
            counts[c.index] -= 1
            keep.append(c)
    return shoe.remove(*keep)
