"""Wagers settled on hand-built rounds, straight from the regulation's words."""

from __future__ import annotations

import pytest

from exactodds import Shoe, analyze, deal, load_catalogue, play, price
from exactodds.wagers.outcomes import point_row


def settle(wager_id: str, values: list[int], paytable: str = "standard", alternative: str | None = None) -> str | None:
    """Deal ``values`` (point values in shoe order) and settle one wager on that round."""
    w = load_catalogue()[wager_id]
    if alternative:
        w = w.with_alternative(alternative)
    r = play(values)
    row = point_row((r.player_total, r.banker_total, len(r.player_cards), len(r.banker_cards)))
    t = w.paytable(paytable)
    outcome = w.settle_row(row, t)
    return outcome if outcome is None else f"{outcome}:{t.pays[outcome].text}"


# Rounds, as point values in the order dealt (P1, B1, P2, B2, then third cards).
NAT9_VS_NAT8 = [4, 4, 5, 4]            # Player 9 natural, Banker 8 natural
NAT8_VS_NAT8 = [4, 4, 4, 4]
NAT9_VS_ZERO = [9, 0, 0, 0]            # Player natural 9, Banker 0: a natural win by 9
P7_B0_DRAWS = [3, 0, 4, 0, 0]          # Player 7 stands; Banker 0 draws a 0: Player wins by 7, not a natural
DRAGON_7 = [2, 1, 2, 2, 0, 4]          # P: 2,2 → 4, draws 0 → 4; B: 1,2 → 3 draws 4 → 7 (3 cards)
PANDA_8 = [1, 7, 2, 0, 5]              # P: 1,2 → 3 draws 5 → 8; B: 7,0 → 7 stands
TIE_3_CARD_9S = [2, 1, 2, 3, 5, 5]     # P: 2,2 → 4 draws 5 → 9; B: 1,3 → 4, third 5 → D, draws 5 → 9


def test_627a_7_a_4_i_b_natural_9_against_natural_8_is_a_natural_win() -> None:
    assert settle("dragon-bonus-player", NAT9_VS_NAT8, "A") == "natural_win:1 to 1"
    assert settle("dragon-bonus-banker", NAT9_VS_NAT8, "A") is None     # (ii)(A): natural 8 loses to 9


def test_627a_7_a_4_iii_natural_tie_pushes() -> None:
    assert settle("dragon-bonus-banker", NAT8_VS_NAT8, "B") == "natural_tie:push"


def test_627a_7_a_4_i_a_natural_pays_natural_winner_whatever_the_margin() -> None:
    assert settle("dragon-bonus-player", NAT9_VS_ZERO, "C") == "natural_win:1 to 1"


def test_627a_7_a_4_i_c_non_natural_wins_by_margin() -> None:
    assert settle("dragon-bonus-player", P7_B0_DRAWS, "B") == "win_by_7:7 to 1"
    assert settle("dragon-bonus-player", [3, 0, 4, 0, 7], "B") is None   # P 7 v B 7: tie, not a natural


def test_627a_1_dragon_7_pushes_ez_banker_and_wins_insurance() -> None:
    assert settle("ez-banker", DRAGON_7) == "dragon_7:push"
    assert settle("dragon-7-insurance", DRAGON_7) == "dragon_7:40 to 1"
    assert settle("banker", DRAGON_7) == "banker_wins:1 to 1 less 5% vigorish"


def test_627a_1_panda_8_wins_insurance() -> None:
    assert settle("panda-8-insurance", PANDA_8) == "panda_8:25 to 1"
    assert settle("golden-8", PANDA_8, "A") == "golden_8:25 to 1"


def test_627b_2_i_banker_win_with_6_pays_1_to_2() -> None:
    r = [0, 3, 7, 3]              # P: 0,7 → 7 stands; B: 3,3 → 6 stands: Player wins
    assert settle("commission-free-banker", r) is None
    r = [0, 3, 6, 3]              # P 6 stands; B 6: tie
    assert settle("commission-free-banker", r) == "tie:push"
    r = [0, 3, 5, 3, 0]           # P 5 draws 0 → 5; B 6, third card 0 → S: Banker wins with 6
    assert settle("commission-free-banker", r) == "banker_wins_6:1 to 2"


def test_627b_2_k_lucky_six_two_and_three_cards() -> None:
    assert settle("lucky-six", [0, 3, 5, 3, 0]) == "two_card_6:12 to 1"
    # P: 0,0 → 0 draws 0; B: 0,2 → 2 draws 4 → 6 with three cards
    assert settle("lucky-six", [0, 0, 0, 2, 0, 4]) == "three_card_6:20 to 1"


def test_631b_8_g_1_iv_rising_phoenix_commission_free_3_card_7_pushes() -> None:
    assert settle("rising-phoenix-banker-commission-free", DRAGON_7) == "three_card_7:push"
    assert settle("rising-phoenix-sun-7", DRAGON_7) == "win:40 to 1"


def test_631b_3_f_3_heavenly_9_both_hands() -> None:
    assert settle("heavenly-9-bonus", TIE_3_CARD_9S, "A") == "both:75 to 1"
    assert settle("cover-all", TIE_3_CARD_9S, "A") == "any:6 to 1"


def test_631b_3_f_4_blazing_7s_two_card_is_na_under_paytable_a() -> None:
    two_card_7s = [3, 3, 4, 4]     # P 7, B 7 both stand
    assert settle("blazing-7s", two_card_7s, "A") is None
    assert settle("blazing-7s", two_card_7s, "B") == "two_card:50 to 1"
    assert settle("cover-all", two_card_7s, "A") is None
    assert settle("cover-all", two_card_7s, "B") == "two_card_blazing:6 to 1"


def test_631b_9_g_golden_talons_natural_pays_only_natural_win() -> None:
    assert settle("golden-talons-player", NAT9_VS_ZERO, "E") == "natural_win:1 to 1"
    assert settle("golden-talons-banker", NAT8_VS_NAT8, "B") == "natural_tie:2 to 1"


def test_631b_8_g_4_vii_eight_or_nine_each_regardless_of_winner() -> None:
    assert settle("rising-phoenix-player-and-banker-8-or-9", NAT8_VS_NAT8) == "win:20 to 1"
    assert settle("rising-phoenix-player-and-banker-8-or-9", NAT9_VS_NAT8) == "win:20 to 1"


@pytest.mark.parametrize("decks", [6, 8])
def test_same_event_same_count(decks: int) -> None:
    """Fortune 7 = Dragon 7 = Sun 7; Golden 8 = Panda 8 = Moon 8, counted exactly."""
    a = analyze(Shoe.decks(decks), wagers=["fortune-7", "dragon-7-insurance", "rising-phoenix-sun-7",
                                            "golden-8", "panda-8-insurance", "rising-phoenix-moon-8"])
    wins = {r.wager.id: r.lines[0].combinations for r in a if r.paytable.id in ("A", "standard")}
    assert wins["fortune-7"] == wins["dragon-7-insurance"] == wins["rising-phoenix-sun-7"]
    assert wins["golden-8"] == wins["panda-8-insurance"] == wins["rising-phoenix-moon-8"]


def test_golden_talons_paytables_a_c_e_match_dragon_bonus() -> None:
    """631b.9(f) Paytable A is 627a.12(e) Paytable A; E is Dragon Bonus C, D is Dragon Bonus B."""
    dist = deal(Shoe.decks(8))
    cat = load_catalogue()
    for hand in ("player", "banker"):
        for gt, db in (("A", "A"), ("D", "B"), ("E", "C")):
            g = price(cat[f"golden-talons-{hand}"], cat[f"golden-talons-{hand}"].paytable(gt), dist)
            d = price(cat[f"dragon-bonus-{hand}"], cat[f"dragon-bonus-{hand}"].paytable(db), dist)
            assert g.expected_return == d.expected_return and g.variance == d.variance


def test_cover_all_is_the_union_of_the_other_four() -> None:
    """Cover All under B wins on exactly the rounds where any other 5 Treasures wager wins."""
    cat = load_catalogue()
    from exactodds.analyses.pricing import classify

    others = ["fortune-7", "golden-8", "heavenly-9-bonus", "blazing-7s"]
    cover = classify(cat["cover-all"], cat["cover-all"].paytable("B"))
    for key, outcome in cover.items():
        any_win = any(classify(cat[o], cat[o].paytable("B"))[key] is not None for o in others)
        assert (outcome is not None) == any_win, key


def test_631b_8_rising_phoenix_commission_free_alternative_reading() -> None:
    """With 631b.5(i) brought in, a Banker 6 pays 1 to 2 (not lost); the 3-card 7 still pushes."""
    assert settle("rising-phoenix-banker-commission-free", [0, 3, 5, 3, 0]) == "banker_wins_6:1 to 1"
    assert settle("rising-phoenix-banker-commission-free", [0, 3, 5, 3, 0],
                  alternative="with-631b.5-six") == "banker_wins_6:1 to 2"
    cat = load_catalogue()
    dist = deal(Shoe.decks(8))
    w = cat["rising-phoenix-banker-commission-free"]
    regular = price(w, w.paytable("standard"), dist)
    alt = w.with_alternative("with-631b.5-six")
    six = price(alt, alt.paytable("standard"), dist)
    lines = {ln.id: ln for ln in regular.lines}
    assert six.expected_return == regular.expected_return - lines["banker_wins_6"].probability / 2
    assert {ln.id: ln.combinations for ln in six.lines} == {ln.id: ln.combinations for ln in regular.lines}
