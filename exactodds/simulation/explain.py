"""What a failed check means, in words: the drawing rule a round breaks (with its paragraph of §627a.10),
and what a flagged test of the cards or of the order within a shoe says about the shuffle.

>>> rule_broken((5, 0, -1), (6, 0, -1))         # Player 5 did not draw
'Player must draw on 5, §627a.10(b)(1)'
>>> rule_broken((3, 1, 5), (6, 0, 3))           # Player 4 drew a 5; Banker 6 drew
"Banker must stay on 6 when the Player's third card is 5 (Table 1), §627a.10(c)(2)(iii)"
>>> meaning("card guessing", 4.2)
'cards of the same rank come together more often than a random shuffle allows (neighbouring cards stay together)'
"""

from __future__ import annotations

from collections.abc import Sequence

from exactodds.game.rules import banker_draws, is_natural, player_draws, point_count

__all__ = ["rule_broken", "meaning"]


def rule_broken(player: Sequence[int], banker: Sequence[int]) -> str:
    """The rule of §627a.10 a round breaks, in words with its citation; ``player`` and ``banker`` are the
    hands' point values in the order dealt (-1: no third card). Empty if the round keeps every rule."""
    p_total, b_total = point_count(player[:2]), point_count(banker[:2])
    p_third = player[2] if len(player) > 2 and player[2] >= 0 else None
    b_third = banker[2] if len(banker) > 2 and banker[2] >= 0 else None
    if is_natural(p_total) or is_natural(b_total):
        if p_third is None and b_third is None:
            return ""
        who = f"Player {p_total}" if is_natural(p_total) else f"Banker {b_total}"
        return f"no third card after a Natural ({who}), §627a.10(a)"
    if player_draws(p_total) and p_third is None:
        return f"Player must draw on {p_total}, §627a.10(b)(1)"
    if not player_draws(p_total) and p_third is not None:
        return f"Player must stay on {p_total}, §627a.10(b)(2)"
    should = banker_draws(b_total, p_third)
    if should == (b_third is not None):
        return ""
    verb = "draw" if should else "stay"
    if p_third is None:
        return f"Banker must {verb} on {b_total} when the Player stays, §627a.10(c)(1)"
    if b_total < 3:
        return f"Banker must draw on {b_total}, §627a.10(c)(2)(i)"
    if b_total == 7:
        return "Banker must stay on 7 when the Player draws, §627a.10(c)(2)(ii)"
    return (f"Banker must {verb} on {b_total} when the Player's third card is {p_third} (Table 1), "
            "§627a.10(c)(2)(iii)")


#: What a flagged test of the cards or of the order within a shoe means (its statistic's sign: more or less often).
_MEANINGS = {
    "card guessing": ("cards of the same rank come together {} often than a random shuffle allows",
                      " (neighbouring cards stay together)"),
    "runs": ("cards of one colour follow each other {} often than a random shuffle allows", ""),
    "serial correlation": ("a round's outcome repeats the previous round's {} often than the cards left allow",
                           " (rounds are not dealt independently)"),
    "cards": ("some cards are dealt more or less often than the others of their point value: the shoe is not "
              "whole decks (a card missing, added or favoured)", ""),
    "suits": ("one suit is dealt more or less often than the others: the suits of the shoe are not alike", ""),
    "ranks": ("10, J, Q and K are not dealt equally often: the ranks of the value 0 are not alike", ""),
}


def meaning(test: str, statistic: float) -> str:
    """What a flagged test of the shuffle or the cards means, in words (empty for other tests)."""
    if test not in _MEANINGS:
        return ""
    text, more = _MEANINGS[test]
    if "{}" not in text:
        return text
    return text.format("more" if statistic > 0 else "less") + (more if statistic > 0 else "")
