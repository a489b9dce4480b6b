"""Card notation (issue: K♠, Ks, KS, 10h, Th, case-insensitive, bare ranks)."""

from __future__ import annotations

import pytest

from exactodds import Card, ExactOddsError, Rank, Suit, parse_card_or_rank


@pytest.mark.parametrize("text", ["K♠", "Ks", "KS", "ks", "k♤"])
def test_king_of_spades_notations(text: str) -> None:
    assert Card.parse(text) == Card(Rank.KING, Suit.SPADES)


@pytest.mark.parametrize("text", ["10h", "Th", "th", "10H", "10♥"])
def test_ten_of_hearts_notations(text: str) -> None:
    assert Card.parse(text) == Card(Rank.TEN, Suit.HEARTS)


def test_bare_rank_where_suit_does_not_matter() -> None:
    assert parse_card_or_rank("9") is Rank.NINE
    assert parse_card_or_rank("q") is Rank.QUEEN


@pytest.mark.parametrize("text", ["", "Zz", "11h", "Kx", "K♠♠"])
def test_unknown_notation_is_one_clear_error(text: str) -> None:
    with pytest.raises(ExactOddsError) as exc:
        parse_card_or_rank(text)
    assert "\n" not in str(exc.value)


def test_627a_6_point_values_and_colours() -> None:
    """§627a.6(a): 2-9 face value, 10/J/Q/K zero, ace one; hearts and diamonds red."""
    assert [r.points for r in Rank] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0]
    assert {s: s.colour for s in Suit} == {
        Suit.SPADES: "black", Suit.HEARTS: "red", Suit.DIAMONDS: "red", Suit.CLUBS: "black"}


def test_card_index_round_trips() -> None:
    assert [Card.from_index(i).index for i in range(52)] == list(range(52))
    assert str(Card.parse("qd")) == "Q♦"
