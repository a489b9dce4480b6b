"""Shoes: full, depleted, per-rank and per-card counts, and their errors."""

from __future__ import annotations

import math
import re

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


def test_a_shoe_whose_counts_disagree_or_are_not_whole_numbers_is_refused_in_one_line():
    import dataclasses
    for bad, said in (
            (((True,) * 13, None, "x"), "must be a whole number"),
            ((None, None, "x"), "a tuple of 13 rank counts"),
            (((4,) * 13, (1,) * 51 + (2,), "x"), "disagree: 5 cards of K by suit, 4 by rank"),
            (((4,) * 13, None, None), "label must be text")):
        with pytest.raises(ExactOddsError, match=re.escape(said)):
            Shoe(*bad)  # type: ignore[arg-type]
    with pytest.raises(ExactOddsError, match="disagree"):
        dataclasses.replace(Shoe.decks(8), rank_counts=(4,) * 13)


def test_a_shoe_unpickled_works_out_its_counts_again_even_from_an_older_pickle():
    import pickle
    shoe = Shoe.decks(6).remove("5s", "9")
    assert pickle.loads(pickle.dumps(shoe)).describe() == shoe.describe()
    state = {"rank_counts": shoe.rank_counts, "card_counts": shoe.card_counts, "label": shoe.label}
    again = Shoe.__new__(Shoe)
    again.__setstate__(state)                                  # what an earlier version's pickle holds
    assert (again.size, again.value_counts, again.sequences, again.describe()) == \
        (shoe.size, shoe.value_counts, shoe.sequences, shoe.describe())
    assert again == shoe and hash(again) == hash(shoe)
