"""§627a.8(d)(1)(i)–(ii): House Money's let-it-ride option, exact and checked by brute force."""

from __future__ import annotations

import functools
import itertools
import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from exactodds.analyses.analysis import analyze
from exactodds.analyses.house_money import house_money
from exactodds.cli import cli
from exactodds.errors import ExactOddsError
from exactodds.game.cards import Rank
from exactodds.game.rules import play
from exactodds.game.shoe import Shoe

#: A small lopsided shoe with pairs aplenty: 10 cards, every ordered 6-card deal walked.
SMALL = Shoe.from_rank_counts({"A": 2, "3": 2, "8": 2, "9": 1, "K": 2, "Q": 1}, label="small shoe")


@functools.cache
def _walk(shoe: Shoe) -> tuple[Fraction, int, tuple[tuple[int, Fraction, Fraction], ...]]:
    """Every ordered deal of six physical cards: (Σ House Money net, deals, per winning four-card
    start: (payout, Σ Player net, Σ Banker net))."""
    cards = [r for r, n in enumerate(shoe.rank_counts) for _ in range(n)]
    groups: dict[tuple[int, ...], list] = {}
    hm_total = Fraction(0)
    count = 0
    for seq in itertools.permutations(range(len(cards)), 6):
        ranks = tuple(cards[i] for i in seq)
        pairs = (ranks[0] == ranks[2]) + (ranks[1] == ranks[3])
        count += 1
        if not pairs:
            hm_total -= 1
            continue
        payout = 3 if pairs == 1 else 15
        hm_total += payout
        rnd = play([Rank(r + 1).points for r in ranks])
        p, b = rnd.player_total, rnd.banker_total
        player = Fraction(1) if p > b else Fraction(-1) if b > p else Fraction(0)
        banker = Fraction(19, 20) if b > p else Fraction(-1) if p > b else Fraction(0)
        g = groups.setdefault(ranks[:4], [payout, Fraction(0), Fraction(0)])
        g[1] += player
        g[2] += banker
    return hm_total, count, tuple(tuple(g) for g in groups.values())


def _brute(shoe: Shoe, bet: str, portion: Fraction) -> tuple[Fraction, Fraction, Fraction]:
    """(never, always, optimal), the decision made per four-card start on its summed main results."""
    hm_total, count, groups = _walk(shoe)
    k = 1 if bet == "player" else 2
    never = hm_total / count
    always = never + sum((g[0] * portion * g[k] for g in groups), Fraction(0)) / count
    optimal = never + sum((g[0] * portion * g[k] for g in groups if g[k] > 0), Fraction(0)) / count
    return never, always, optimal


@pytest.mark.parametrize("bet", ["player", "banker"])
def test_627a_8_d_1_the_option_equals_a_brute_force_walk_of_a_small_shoe(bet):
    exact = house_money(SMALL, bet=bet)
    assert (exact.never, exact.always, exact.optimal) == _brute(SMALL, bet, Fraction(1))
    assert exact.optimal > exact.always and exact.optimal > exact.never      # the option matters here


def test_627a_8_d_1_i_a_specified_portion_rides():
    half = house_money(SMALL, bet="banker", portion=Fraction(1, 2))
    assert (half.never, half.always, half.optimal) == _brute(SMALL, "banker", Fraction(1, 2))


@functools.cache
def _eight(bet: str):
    return house_money(Shoe.decks(8), bet=bet)


@pytest.mark.slow
@pytest.mark.parametrize("shoe", [None, Shoe.decks(6).remove("Ks", "Kh", "Kd", "5c", "9s")],
                         ids=["8 decks", "depleted 6 decks"])
def test_optimal_is_at_least_never_and_always_exactly(shoe):
    for bet in ("player", "banker"):
        o = _eight(bet) if shoe is None else house_money(shoe, bet=bet)
        shoe = o.shoe
        assert all(isinstance(v, Fraction) for v in (o.never, o.always, o.optimal))
        assert o.optimal >= o.always and o.optimal >= o.never
        assert o.never == analyze(shoe, wagers=["house-money"])[0].expected_return


def test_the_option_is_worth_more_than_ten_points_on_8_decks():
    for bet in ("player", "banker"):
        assert _eight(bet).option_value > Fraction(10, 100)


def test_a_natural_shown_decides_the_ride():
    """A Player natural 9 against a Banker pair of 2s (total 4): the Player has won; the Banker bettor keeps."""
    decisions = {bet: _eight(bet).decisions() for bet in ("player", "banker")}
    assert decisions["player"][(9, 4)] == "ride" and decisions["banker"][(9, 4)] == "keep"
    assert decisions["banker"][(0, 9)] == "ride" and decisions["player"][(0, 9)] == "keep"


@pytest.mark.slow
def test_cli_house_money():
    out = CliRunner().invoke(cli, ["house-money", "--hand", "player", "--format", "json", "--ratio", "4"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)["bettors"][0]
    assert Fraction(data["optimal"]) - Fraction(data["never"]) == Fraction(data["option_value"])
    assert Fraction(data["per_main_unit"]["4"]) == Fraction(data["option_value"]) / 4
    text = CliRunner().invoke(cli, ["house-money", "--hand", "banker", "--decks", "1"]).output
    assert "Banker bettor: let it ride" in text
    for args, words in [(["--portion", "2"], "at most 1"), (["--portion", "x"], "not a number"),
                        (["--ratio", "0"], "above 0"), (["--bet", "tie"], "Invalid value")]:
        bad = CliRunner().invoke(cli, ["house-money", *args])
        assert bad.exit_code == 2 and words in bad.output, (args, bad.output)
    with pytest.raises(ExactOddsError, match="'player' or 'banker'"):
        house_money(SMALL, bet="tie")
