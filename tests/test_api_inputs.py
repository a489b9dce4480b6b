"""The Python API holds what it is given to what the command-line options take: a value that is no whole or exact
number, or out of its range, is refused in one line (ExactOddsError) rather than read as something else. Each case
below ran before, most with a wrong or meaningless figure and no error (an audit of the API, issue 38's session)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactodds import design_paytable, parse_pay, simulate
from exactodds.analyses.analysis import analyze
from exactodds.analyses.counting import RANKS, suggest_tags
from exactodds.analyses.eor import effects_of_removal
from exactodds.analyses.house_money import house_money, options_report
from exactodds.analyses.positions import position
from exactodds.analyses.progressive import MysterySpec, mystery_return
from exactodds.analyses.vigorish import vigorish_table
from exactodds.errors import ExactOddsError
from exactodds.game.rules import banker_draws, play, player_draws, point_count
from exactodds.game.shoe import Shoe
from exactodds.simulation.checksim import check
from exactodds.wagers.catalogue import load_catalogue

CAT = load_catalogue()
ONE = Shoe.decks(1)
SPEC = dict(id="m", name="m", section="631b.6", wager=Fraction(1), minimum=Fraction(100), maximum=Fraction(200),
            rate=Fraction(1, 100))

CASES = {
    # a standard deviation of at most -1 was squared: it read as "at most 1"
    "design max_sd -1": (lambda: design_paytable(CAT["tie"], CAT["tie"].paytable("8-to-1"), ONE,
                                                 target_edge=Fraction(1, 20), top=1, max_sd=Fraction(-1)),
                         "--max-sd: a standard deviation above 0"),
    "design target_edge float": (lambda: design_paytable(CAT["tie"], CAT["tie"].paytable("8-to-1"), ONE,
                                                         target_edge=0.05), "--target-edge must be an exact number"),
    "design top True": (lambda: design_paytable(CAT["tie"], CAT["tie"].paytable("8-to-1"), ONE,
                                                target_edge=Fraction(1, 20), top=True), "--top must be a whole number"),
    # a denomination of -5 paid a win as a loss; 0.1 put a float's binary digits into the exact pay
    "pay denomination -5": (lambda: parse_pay("$100", denomination=-5), "denomination must be above $0"),
    "pay denomination 0.1": (lambda: parse_pay("$100", denomination=0.1), "denomination must be an exact number"),
    "pay denomination True": (lambda: parse_pay("$100", denomination=True), "denomination must be an exact number"),
    "pay denomination 0": (lambda: parse_pay("$100", denomination=0), "denomination must be above $0"),
    "vigorish bet -5": (lambda: vigorish_table(ONE, bets=[-5]), "--bets: a bet size from above $0"),
    "vigorish bet 0.1": (lambda: vigorish_table(ONE, bets=[0.1]), "--bets: a bet size must be an exact number"),
    "vigorish bet True": (lambda: vigorish_table(ONE, bets=[True]), "--bets: a bet size must be an exact number"),
    "vigorish bet twice": (lambda: vigorish_table(ONE, bets=[5, 5]), "--bets: the bet size 5 given twice"),
    "position stake True": (lambda: position(ONE, [("banker", "standard", True)]), "a stake must be an exact number"),
    "position stake '10'": (lambda: position(ONE, [("banker", "standard", "10")]), "a stake must be an exact number"),
    "house money portion True": (lambda: house_money(ONE, portion=True), "--portion must be an exact number"),
    "house money portion 0.5": (lambda: house_money(ONE, portion=0.5), "--portion must be an exact number"),
    # zip cut the items short and all-zero tags came back
    "tags one weight short": (lambda: suggest_tags(["A", "2"], [Fraction(1), Fraction(-1)], [1]),
                              "suggest_tags: one effect and one weight per item"),
    "tags an item twice": (lambda: suggest_tags(["A", "A"], [Fraction(1), Fraction(-1)], [1, 1]),
                           "suggest_tags: one effect and one weight per item, each item once"),
    "tags a weight below 0": (lambda: suggest_tags(["A", "2"], [Fraction(1), Fraction(-1)], [1, -1]),
                              "suggest_tags: weights are the shoe's copies"),
    "tags max_tag True": (lambda: suggest_tags(list(RANKS), [Fraction(k - 6) for k in range(13)], [4] * 13,
                                               max_tag=True), "--max-tag must be a whole number from 1 to 10"),
    "eor max_tag 11": (lambda: effects_of_removal(ONE, ["tie"], max_tag=11), "--max-tag must be a whole number"),
    "simulate rounds True": (lambda: simulate(decks=1, rounds=True, seed=1), "--rounds must be a whole number"),
    "simulate seed True": (lambda: simulate(decks=1, rounds=10, seed=True), "--seed must be a whole number"),
    "mystery wager True": (lambda: MysterySpec(**{**SPEC, "wager": True}), "mystery 'm': the wager must be an exact"),
    "mystery rate float": (lambda: MysterySpec(**{**SPEC, "rate": 0.01}), "mystery 'm': the rate must be an exact"),
    "mystery whole_cents 'no'": (lambda: mystery_return(MysterySpec(**SPEC), whole_cents="no"),
                                 "whole_cents must be True or False"),
    "options_report ratio 0": (lambda: options_report([house_money(ONE)], ratios=[Fraction(0)]),
                               "a ratio of the main wager to House Money must be above 0"),
    "options_report none": (lambda: options_report([]), "options_report: give at least one House Money option"),
    "analyze everything 'no'": (lambda: analyze(ONE, everything="no"), "everything must be True or False"),
    "check detect -1": (lambda: check(simulate(decks=1, rounds=10, seed=1), decks=1, detect=Fraction(-1)),
                        "--detect: a deviation of the return is above 0"),
    # the rules' functions: -1 read as the column for 9, 1.5 and True as cards
    "banker_draws third -1": (lambda: banker_draws(3, -1), "the Player's third card must be a point value"),
    "player_draws 5.5": (lambda: player_draws(5.5), "the Player's total must be a point value"),
    "point_count -1": (lambda: point_count([-1]), "a card must be a point value"),
    "point_count True": (lambda: point_count([9, True]), "a card must be a point value"),
    "play a card -1": (lambda: play([-1, 5, 5, 5, 5, 5]), "a card must be a point value"),
}


@pytest.mark.parametrize("call, words", CASES.values(), ids=CASES.keys())
def test_a_value_no_option_would_take_is_refused_in_one_line(call, words):
    with pytest.raises(ExactOddsError) as refused:
        call()
    assert str(refused.value).startswith(words), str(refused.value)
    assert "\n" not in str(refused.value)


def test_one_wager_named_as_a_string_is_that_wager_not_its_letters():
    assert analyze(ONE, wagers="banker").results == analyze(ONE, wagers=["banker"]).results


def test_the_checks_take_what_they_took_before():
    """NumPy's integers are point values; exact stakes, bets and pays are priced as they were."""
    import numpy as np

    assert point_count(np.array([1, 2, 9])) == 2 and player_draws(np.int64(5)) and not banker_draws(3, 8)
    assert parse_pay("$100", denomination=Fraction(5, 2)).net == 40
    assert vigorish_table(ONE, bets=[5, Fraction(25, 2)]).results[1].bet == Fraction(25, 2)
    assert position(ONE, [("banker", "standard", 2)]).staked == 2
