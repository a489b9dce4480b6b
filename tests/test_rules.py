"""The round per §627a.6, §627a.8(c), §627a.9, §627a.10."""

from __future__ import annotations

import pytest

from exactodds import TABLE_1, banker_draws, play, player_draws, point_count


def test_627a_6_b_examples() -> None:
    assert point_count([1, 2, 4]) == 7        # §627a.6(b)(1)
    assert point_count([1, 2, 9]) == 2        # §627a.6(b)(2)


def test_627a_10_g_worked_example() -> None:
    """Banker 5 after two cards, Player's third card 4: the Banker draws."""
    assert banker_draws(5, 4)


def test_627a_10_table_1_as_printed() -> None:
    printed = {3: "DDDDDDDDSD", 4: "SSDDDDDDSS", 5: "SSSSDDDDSS", 6: "SSSSSSDDSS"}
    for b, row in printed.items():
        assert "".join(TABLE_1[b].split()) == row
        assert [banker_draws(b, x) for x in range(10)] == [c == "D" for c in row]


def test_627a_10_c_2_i_and_ii() -> None:
    assert all(banker_draws(b, x) for b in (0, 1, 2) for x in range(10))
    assert not any(banker_draws(7, x) for x in range(10))


def test_627a_10_b_and_c_1() -> None:
    assert [player_draws(p) for p in range(8)] == [True] * 6 + [False] * 2
    assert [banker_draws(b, None) for b in range(8)] == [True] * 6 + [False] * 2


def test_627a_10_a_natural_stops_both_hands() -> None:
    r = play([4, 0, 4, 3, 9, 9])             # Player 8 natural against Banker 3
    assert (r.player_cards, r.banker_cards) == ((4, 4), (0, 3))


def test_627a_8_c_and_627a_9_c_deal_order() -> None:
    r = play([1, 2, 3, 4, 5, 6])             # P: 1,3 → 4 draws 5; B: 2,4 → 6, third card 5 → stays
    assert r.player_cards == (1, 3, 5) and r.banker_cards == (2, 4)
    assert r.deal_order == (1, 2, 3, 4, 5)


@pytest.mark.parametrize("values", [[1, 2, 3], [0, 0, 0, 0]])
def test_play_needs_enough_cards(values: list[int]) -> None:
    from exactodds import ExactOddsError

    with pytest.raises(ExactOddsError):
        play(values)
