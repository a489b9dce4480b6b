"""Wagers that read ranks, suits and colours: definitions, invariants, published figures."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactodds import Card, ExactOddsError, Shoe, deal, load_catalogue, price
from exactodds.engine.identity import hand_attributes
from exactodds.wagers.outcomes import initial_row

from .brute import _hand


def lines(wager: str, paytable: str, shoe: Shoe) -> dict[str, int]:
    w = load_catalogue()[wager]
    return {ln.id: ln.combinations for ln in price(w, w.paytable(paytable), deal(shoe)).lines}


def settle_initial(wager: str, paytable: str, p: tuple[str, str], b: tuple[str, str]) -> str | None:
    """Settle an initial-card wager on the Player's and Banker's first two cards."""
    w = load_catalogue()[wager]
    row = initial_row(hand_attributes(*map(Card.parse, p)), hand_attributes(*map(Card.parse, b)))
    return w.settle_row(row, w.paytable(paytable))


def test_627b_1_a_pair_kinds() -> None:
    assert hand_attributes(Card.parse("Jh"), Card.parse("Jh"))[0] == "perfect"
    assert hand_attributes(Card.parse("Jh"), Card.parse("Jd"))[0] == "coloured"
    assert hand_attributes(Card.parse("Jh"), Card.parse("Js"))[0] == "mixed"


def test_627b_1_c_a_jack_and_a_king_are_not_a_pair() -> None:
    assert hand_attributes(Card.parse("Jh"), Card.parse("Kh"))[0] == "none"
    assert hand_attributes(Card.parse("10h"), Card.parse("Kh"))[0] == "none"     # both worth 0, not a pair


def test_hand_attributes_match_the_brute_force_descriptions() -> None:
    """Two independent readings of the definitions agree on all 2,704 ordered pairs."""
    from exactodds.wagers.outcomes import HAND_ATTRIBUTES

    cards = [Card.from_index(i) for i in range(52)]
    for x in cards:
        for y in cards:
            assert hand_attributes(x, y) == tuple(_hand(x, y)[a] for a in HAND_ATTRIBUTES), (x, y)


def test_627b_1_d_1_both_hands_win_both_are_paid() -> None:
    assert settle_initial("perfect-pairs-both", "A", ("7s", "7s"), ("Qd", "Qh")) == "perfect+coloured"
    w = load_catalogue()["perfect-pairs-both"]
    assert w.paytable("A").pays["perfect+coloured"].net == Fraction(25 + 12, 2)     # per unit of two


def test_627a_7_a_7_house_money() -> None:
    assert settle_initial("house-money", "standard", ("7s", "7h"), ("Qd", "Qh")) == "both_pairs"
    assert settle_initial("house-money", "standard", ("7s", "7h"), ("Qd", "Kh")) == "one_pair"
    assert settle_initial("house-money", "standard", ("7s", "8h"), ("Qd", "Kh")) is None


def test_631b_4_lucky_nines_lines() -> None:
    assert settle_initial("lucky-nines", "A", ("9d", "2s"), ("3c", "4h")) == "one_diamond"
    assert settle_initial("lucky-nines", "A", ("9s", "2s"), ("3c", "4h")) == "one"
    assert settle_initial("lucky-nines", "B", ("9s", "9s"), ("9s", "4h")) == "three_same_suit"
    assert settle_initial("lucky-nines", "B", ("9s", "9h"), ("9s", "4h")) == "three"
    assert settle_initial("lucky-nines", "C", ("9h", "2s"), ("9h", "4h")) == "two_same_suit"
    assert settle_initial("lucky-nines", "D", ("9h", "9c"), ("9s", "9d")) == "four"


def test_631b_7_majestic_match() -> None:
    assert settle_initial("majestic-match-player", "standard", ("Kh", "Qh"), ("2c", "3c")) == "royal"
    assert settle_initial("majestic-match-player", "standard", ("Kh", "Jh"), ("2c", "3c")) == "suited"
    assert settle_initial("majestic-match-banker", "standard", ("Kh", "Qh"), ("2c", "3d")) is None


def test_627b_3_royal_9_definitions_and_highest_award() -> None:
    # Seat 1 owns K♠9♠ by default.
    assert settle_initial("royal-9-progressive", "$5", ("Ks", "9s"), ("9s", "Ks")) == "mega"
    assert settle_initial("royal-9-progressive", "$5", ("2s", "3s"), ("9s", "Ks")) == "major"
    assert settle_initial("royal-9-progressive", "$5", ("Ks", "9s"), ("Qh", "9h")) == "minor"
    assert settle_initial("royal-9-progressive", "$5", ("Kh", "9h"), ("9h", "Kh")) == "mega_envy"  # seat 2's
    assert settle_initial("royal-9-progressive", "$5", ("Jh", "9h"), ("Qc", "9c")) == "suited_tie"
    assert settle_initial("royal-9-progressive", "$5", ("Jh", "9c"), ("Qc", "9c")) == "tie"
    assert settle_initial("royal-9-progressive", "$1", ("Jh", "9h"), ("2c", "9c")) == "any_suited"
    assert settle_initial("royal-9-progressive", "$1", ("Jh", "9d"), ("2c", "9c")) == "any"
    assert settle_initial("royal-9-progressive", "$1", ("Kh", "Qd"), ("2c", "9c")) is None


def test_627b_3_e_9_mega_envy_for_a_combination_not_printed_at_any_position() -> None:
    w = load_catalogue()["royal-9-progressive"].with_parameters({"combinations": ("K♠9♠",)})
    row = initial_row(hand_attributes(Card.parse("Kh"), Card.parse("9h")),
                      hand_attributes(Card.parse("9h"), Card.parse("Kh")))
    assert w.settle_row(row, w.paytable("$5")) == "suited_tie"


def test_627b_3_fixed_awards_on_the_denomination() -> None:
    w = load_catalogue()["royal-9-progressive"]
    assert w.paytable("$5").pays["any"].net == Fraction(25, 5) - 1          # $25 for a $5 wager
    alt = w.with_alternative("awards-to-1")
    assert alt.paytable("$5").pays["any"].net == 5


def test_perfect_pairs_partition_a_pair_and_equal_player_pair() -> None:
    """Perfect + coloured + mixed = any pair; Player Pair wins exactly then."""
    for shoe in (Shoe.decks(8), Shoe.decks(6).remove("7s", "7s", "7h", "Kd")):
        pp = lines("perfect-pairs-player", "A", shoe)
        pair = lines("player-pair", "standard", shoe)
        assert pp["perfect"] + pp["coloured"] + pp["mixed"] == pair["pair"]
        bp = lines("perfect-pairs-banker", "B", shoe)
        assert bp["lose"] == lines("banker-pair", "standard", shoe)["lose"]


@pytest.mark.parametrize(("table", "edge"), [("A", Fraction(17, 415)), ("B", Fraction(14, 415)), ("C", Fraction(9, 415))])
def test_perfect_pairs_8_decks_exact(table: str, edge: Fraction) -> None:
    """8 decks: the second card matches the first as a perfect, coloured, mixed pair 7, 8, 16 times in 415."""
    w = load_catalogue()["perfect-pairs-player"]
    assert price(w, w.paytable(table), deal(Shoe.decks(8))).house_edge == edge


def test_player_pair_published_edge() -> None:
    w = load_catalogue()["player-pair"]
    r = price(w, w.paytable("standard"), deal(Shoe.decks(8)))
    assert r.house_edge == 1 - Fraction(12 * 31, 415) and f"{float(r.house_edge):.4%}" == "10.3614%"


def test_both_hands_wager_averages_the_two_and_keeps_the_correlation() -> None:
    shoe = Shoe.decks(8)
    dist = deal(shoe)
    cat = load_catalogue()
    both = price(cat["perfect-pairs-both"], cat["perfect-pairs-both"].paytable("C"), dist)
    one = price(cat["perfect-pairs-player"], cat["perfect-pairs-player"].paytable("C"), dist)
    assert both.expected_return == one.expected_return
    assert both.variance != one.variance / 2           # the two hands are not independent


def test_suits_unknown_is_a_clear_error() -> None:
    shoe = Shoe.decks(8).remove("9")
    w = load_catalogue()["lucky-nines"]
    with pytest.raises(ExactOddsError, match="reads suits, but the shoe's suits are unknown"):
        price(w, w.paytable("A"), deal(shoe))


def test_heavenly_9_and_harmony_are_linear_in_the_meter() -> None:
    import sympy

    dist = deal(Shoe.decks(8))
    cat = load_catalogue()
    for wid, table in (("heavenly-9-progressive", "standard"), ("harmony-progressive", "A")):
        r = price(cat[wid], cat[wid].paytable(table), dist)
        e = sympy.expand(r.expected_return.to_sympy())
        j = sympy.Symbol("J", positive=True)
        top = r.lines[0]
        assert sympy.Poly(e, j).degree() == 1
        assert e.coeff(j) == sympy.Rational(top.probability.numerator, top.probability.denominator)
