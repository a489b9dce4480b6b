"""Shoes: full, depleted, per-rank and per-card counts, and their errors."""

from __future__ import annotations

import math

import pytest

from exactodds import Card, ExactOddsError, Rank, Shoe


@pytest.mark.parametrize("decks", [1, 2, 6, 8, 13])
def test_n_decks(decks: int) -> None:
    shoe = Shoe.decks(decks)
    assert shoe.size == 52 * decks
    assert shoe.value_counts == (16 * decks,) + (4 * decks,) * 9
    assert shoe.sequences == math.perm(52 * decks, 6)


def test_eight_deck_sequences_are_the_published_total() -> None:
    assert Shoe.decks(8).sequences == 416 * 415 * 414 * 413 * 412 * 411 == 4_998_398_275_503_360


@pytest.mark.parametrize("bad", [0, -1, 2.5, "8", True])
def test_bad_deck_counts(bad: object) -> None:
    with pytest.raises(ExactOddsError, match="number of decks"):
        Shoe.decks(bad)  # type: ignore[arg-type]


def test_remove_repeated_cards() -> None:
    shoe = Shoe.decks(1).remove("5S", "KH")
    assert shoe.size == 50
    assert shoe.card_counts is not None
    assert shoe.card_counts[Card.parse("5s").index] == 0
    with pytest.raises(ExactOddsError, match="cannot remove 5♠"):
        shoe.remove("5s")


def test_remove_bare_rank_forgets_suits() -> None:
    shoe = Shoe.decks(8).remove("9", "9")
    assert shoe.rank_counts[8] == 30
    assert not shoe.suits_known
    assert "suits of removed ranks not given" in shoe.describe()


def test_counts_per_rank_and_per_card() -> None:
    per_rank = Shoe.from_rank_counts({"K": 4, "9": 3, Rank.ACE: 2})
    assert per_rank.value_counts == (4, 2, 0, 0, 0, 0, 0, 0, 0, 3)
    per_card = Shoe.from_card_counts({"Ks": 2, Card.parse("9h"): 4})
    assert per_card.size == 6 and per_card.suits_known


def test_negative_count_is_rejected() -> None:
    with pytest.raises(ExactOddsError, match="count of K"):
        Shoe.from_rank_counts({"K": -1, "9": 10})


def test_fewer_than_six_cards_is_rejected() -> None:
    with pytest.raises(ExactOddsError, match="holds 5 cards; a round may need 6"):
        Shoe.from_rank_counts({"K": 5})
    with pytest.raises(ExactOddsError, match="holds 5 cards"):
        Shoe.from_card_counts({"Ks": 6}).remove("Ks")
