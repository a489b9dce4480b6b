"""What a failed check means in words (issue 42): the drawing rule a round breaks, with its paragraph of §627a.10,
and what a flagged shuffle test says."""

from __future__ import annotations

import numpy as np
import pytest

from exactodds.simulation.explain import meaning, rule_broken
from exactodds.simulation.roundclasses import breaks_rules


@pytest.mark.parametrize("player, banker, said", [
    ((8, 0, 3), (1, 2, -1), "no third card after a Natural (Player 8), §627a.10(a)"),
    ((1, 2, -1), (9, 0, 4), "no third card after a Natural (Banker 9), §627a.10(a)"),
    ((5, 0, -1), (6, 0, -1), "Player must draw on 5, §627a.10(b)(1)"),
    ((6, 0, 2), (7, 0, -1), "Player must stay on 6, §627a.10(b)(2)"),
    ((6, 0, -1), (5, 0, -1), "Banker must draw on 5 when the Player stays, §627a.10(c)(1)"),
    ((7, 0, -1), (6, 0, 1), "Banker must stay on 6 when the Player stays, §627a.10(c)(1)"),
    ((1, 0, 4), (2, 0, -1), "Banker must draw on 2, §627a.10(c)(2)(i)"),
    ((1, 0, 4), (7, 0, 3), "Banker must stay on 7 when the Player draws, §627a.10(c)(2)(ii)"),
    ((2, 0, 6), (6, 0, -1), "Banker must draw on 6 when the Player's third card is 6 (Table 1), §627a.10(c)(2)(iii)"),
    ((3, 0, 8), (3, 0, 5), "Banker must stay on 3 when the Player's third card is 8 (Table 1), §627a.10(c)(2)(iii)"),
])
def test_each_paragraph_of_627a_10_is_named_in_words(player: tuple[int, ...], banker: tuple[int, ...],
                                                     said: str) -> None:
    assert rule_broken(player, banker) == said


def test_a_rule_is_named_exactly_for_the_rounds_the_dealer_would_not_deal() -> None:
    """Every two-card total of each hand (a card of the total, then a ten) with every third card or none: the round
    breaks a rule by :func:`breaks_rules` (read off the simulator's own dealing) exactly when one is named."""
    digits = []
    for p in range(10):
        for b in range(10):
            for p3 in range(-1, 10):
                for b3 in range(-1, 10):
                    digits.append((p, 0, p3, b, 0, b3))
    values = np.array(digits)
    codes = np.zeros(len(values), dtype=np.int64)
    for k in range(6):
        codes = codes * 11 + values[:, k] + 1
    broken = breaks_rules(codes)
    named = np.array([bool(rule_broken(d[:3], d[3:])) for d in digits])
    assert broken.sum() > 0 and np.array_equal(broken, named)


def test_a_flagged_shuffle_test_says_what_it_means() -> None:
    assert meaning("card guessing", 4.5) == ("cards of the same rank come together more often than a random shuffle "
                                             "allows (neighbouring cards stay together)")
    assert meaning("runs", -3.0) == "cards of one colour follow each other less often than a random shuffle allows"
    assert meaning("serial correlation", 3.0).startswith("a round's outcome repeats the previous round's more often")
    assert meaning("cards", 99.0).startswith("some cards are dealt more or less often than the others")
    assert meaning("chi-square", 99.0) == ""
