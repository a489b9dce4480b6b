"""Figures from the literature, reproduced digit by digit (6-card convention)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactodds import Shoe, analyze, deal, load_catalogue, price

# Published main-game counts: Banker wins, Player wins, Tie, total sequences.
MAIN = {
    8: (2_292_252_566_437_888, 2_230_518_282_592_256, 475_627_426_473_216, 4_998_398_275_503_360),
    6: (403_095_751_234_560, 392_220_492_728_832, 83_552_962_932_288, 878_869_206_895_680),
    1: (6_737_232_640, 6_548_674_432, 1_372_227_328, 14_658_134_400),
}


@pytest.mark.parametrize("decks", sorted(MAIN))
def test_main_game_counts(decks: int) -> None:
    banker, player, tie, total = MAIN[decks]
    dist = deal(Shoe.decks(decks))
    assert dist.main_game() == {"banker": banker, "player": player, "tie": tie}
    assert dist.total == total == banker + player + tie


@pytest.mark.parametrize(
    ("wager", "paytable", "edge"),
    [("banker", "standard", "1.0579%"), ("player", "standard", "1.2351%"), ("tie", "8-to-1", "14.3596%")],
)
def test_main_game_house_edges_8_decks(wager: str, paytable: str, edge: str) -> None:
    (r,) = analyze(Shoe.decks(8), wagers=[wager], paytables=[paytable])
    assert f"{float(r.house_edge) * 100:.4f}%" == edge


def _lines(wager: str, paytable: str = "standard", decks: int = 8) -> dict[str, int]:
    w = load_catalogue()[wager]
    r = price(w, w.paytable(paytable), deal(Shoe.decks(decks)))
    return {ln.id: ln.combinations for ln in r.lines}


def test_dragon_7_and_panda_8_counts() -> None:
    """EZ Baccarat insurances, 8 decks: the published event counts."""
    assert _lines("dragon-7-insurance")["dragon_7"] == 112_633_011_329_024
    assert _lines("panda-8-insurance")["panda_8"] == 172_660_763_262_976


def test_dragon_bonus_player_counts() -> None:
    """Dragon Bonus on the Player, 8 decks: every winning and pushing line as published."""
    lines = _lines("dragon-bonus-player", "A")
    assert lines == lines | {
        "win_by_9": 18_409_431_764_992, "win_by_8": 34_097_645_543_424, "win_by_7": 89_590_261_473_280,
        "win_by_6": 141_238_897_317_888, "win_by_5": 166_169_165_987_840, "win_by_4": 186_780_352_174_080,
        "natural_win": 812_685_054_124_032, "natural_tie": 89_325_908_267_520,
    }


def test_dragon_bonus_banker_counts() -> None:
    lines = _lines("dragon-bonus-banker", "A")
    assert lines == lines | {
        "win_by_9": 15_390_342_909_952, "win_by_8": 28_305_092_784_128, "win_by_7": 79_517_099_278_336,
        "win_by_6": 119_200_072_366_080, "win_by_5": 157_275_882_332_160, "win_by_4": 201_147_167_287_296,
        "natural_win": 812_685_054_124_032, "natural_tie": 89_325_908_267_520,
    }


@pytest.mark.parametrize(
    ("wager", "paytable", "edge"),
    [
        ("dragon-bonus-player", "A", "2.65%"),
        ("dragon-bonus-banker", "A", "9.37%"),
        ("fortune-7", "A", "7.61%"),
        ("golden-8", "A", "10.19%"),
        ("ez-banker", "standard", "1.02%"),
        ("commission-free-banker", "standard", "1.46%"),
    ],
)
def test_published_side_wager_edges(wager: str, paytable: str, edge: str) -> None:
    (r,) = analyze(Shoe.decks(8), wagers=[wager], paytables=[paytable])
    assert f"{float(r.house_edge) * 100:.2f}%" == edge


def test_banker_edge_exact_fraction() -> None:
    """-E for Banker is exactly (0.95·B − P)/total turned around; no float anywhere."""
    (r,) = analyze(Shoe.decks(8), wagers=["banker"])
    b, p, _t, total = MAIN[8]
    assert r.expected_return == (Fraction(19, 20) * b - p) / total


def test_lucky_nines_paytable_c_published_table() -> None:
    """8 decks, counted over unordered 4-card hands (C(416, 4)) as the published table does."""
    import math

    (r,) = analyze(Shoe.decks(8), wagers=["lucky-nines"], paytables=["C"])
    hands = math.comb(416, 4)
    assert {ln.id: ln.probability * hands for ln in r.lines} == {
        "four": 35_960, "three_same_suit": 86_016, "three": 1_818_624, "two_same_suit": 8_236_032,
        "two": 28_237_824, "one_diamond": 74_908_672, "one": 224_726_016, "lose": 891_881_376}
    assert f"{float(r.house_edge):.2%}" == "8.27%"


def test_fortune_7_golden_8_and_player_pair_published() -> None:
    assert _lines("fortune-7", "A")["fortune_7"] == 112_633_011_329_024
    assert _lines("golden-8", "B")["golden_8"] == 172_660_763_262_976
    (pp,) = analyze(Shoe.decks(8), wagers=["player-pair"])
    assert f"{float(pp.house_edge):.2%}" == "10.36%"
