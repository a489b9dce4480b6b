"""Conditional odds (analyze --given, exactodds.analyses.given): each table over the rounds where a condition on
the round's cards holds, shown by independent routes: the brute force card by card, the walk against the tables,
and the whole return rebuilt from the condition and its negation."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from exactodds.analyses.analysis import analyze
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import load_catalogue, read_file
from exactodds.wagers.conditions import Condition

from . import brute
from .test_cli import run

BETS = Path(__file__).parent / "suit-bets.toml"
CATALOGUE = load_catalogue().merged(read_file(BETS))

#: What a player may know before the bet: a card's class (edge sorting), a flashed card, a colour, a hand.
GIVENS = ("player_rank_1 in (7, 8, 9)", "banker_rank_1 == 13 and banker_suit_1 == 'h'", "player_suit_1 in ('h', 'd')",
          "player_rank_1 in (6, 7, 8, 9) and banker_rank_1 not in (6, 7, 8, 9)", "player_cards == 2")
WAGERS = ("banker", "player", "tie", "dragon-7-insurance", "player-pair", "perfect-pairs-both", "lucky-six")


def _by_line(result) -> dict[str, int]:
    return {ln.id: ln.combinations for ln in result.lines}


@pytest.mark.parametrize("given", GIVENS)
def test_the_return_is_the_condition_and_its_negation_weighted_by_how_often_each_holds(given):
    """P(G) E[R | G] + P(not G) E[R | not G] = E[R] exactly, line by line of counts too, on a depleted shoe; each
    conditional table sums to the rounds where its condition holds."""
    shoe = Shoe.decks(8).remove("Kh", "9s", "9d", "7c", "2h", "Qs")
    whole = analyze(shoe, wagers=WAGERS)
    held = analyze(shoe, wagers=WAGERS, given=given)
    other = analyze(shoe, wagers=WAGERS, given=f"not ({given})")
    assert held.given.combinations + other.given.combinations == shoe.sequences
    assert 0 < held.given.probability < 1 and held.given.total == shoe.sequences
    for w, g, n in zip(whole, held, other):
        assert (g.wager.id, g.paytable.id) == (w.wager.id, w.paytable.id)
        assert g.total == held.given.combinations and sum(ln.combinations for ln in g.lines) == g.total
        assert Counter(_by_line(g)) + Counter(_by_line(n)) == Counter({k: v for k, v in _by_line(w).items() if v})
        assert (held.given.probability * g.expected_return + other.given.probability * n.expected_return
                == w.expected_return)
        assert sum(ln.probability for ln in g.lines) == 1


#: A small shoe of few identities, every deal of which the brute force settles card by card.
SMALL = {"Kh": 2, "Qs": 1, "Tc": 1, "9d": 2, "7h": 1, "6s": 1, "3c": 1, "Ah": 1, "8d": 1}


@pytest.mark.slow
def test_a_conditional_table_is_the_brute_force_over_the_rounds_where_the_condition_holds():
    """The brute force deals every sequence of card identities, keeps the rounds the condition holds on (read by
    the per-round evaluation of the condition), and settles them: the same counts, line by line."""
    shoe = Shoe.from_card_counts(SMALL, label="small")
    pairs = [(CATALOGUE[w], t) for w in ("banker", "player-pair", "dragon-7-insurance", "mirror")
             for t in CATALOGUE[w].paytables][:6]
    for given in ("player_rank_1 in (7, 8, 9)", "banker_suit_1 == player_suit_2", "player_cards == 3"):
        cond = Condition.parse(given, where="test")
        want: dict[tuple[str, str], Counter] = {(w.id, t): Counter() for w, t in pairs}
        holds = 0
        for cards, rnd, weight in brute.rounds(shoe):
            row = brute.all_features(cards, rnd)
            if not cond(row, {}):
                continue
            holds += weight
            for w, t in pairs:
                want[(w.id, t)][w.settle_row(row, w.paytables[t]) or "lose"] += weight
        got = analyze(shoe, wagers=[f"{w.id}:{t}" for w, t in pairs], catalogue=CATALOGUE, given=given)
        assert got.given.combinations == holds > 0
        for r in got:
            assert {k: v for k, v in _by_line(r).items() if v} == dict(want[(r.wager.id, r.paytable.id)]), given


@pytest.mark.slow
def test_the_walk_gives_the_tables_conditional_odds_and_prices_a_bet_the_tables_refuse():
    """Route walk against the tables, given a card's class (main game and side bets, 8 decks); Contrast given a
    red first Player card, by the walk (the tables refuse it), rebuilt from the condition and its negation."""
    shoe = Shoe.decks(8).remove("5c", "Td")
    given = "player_rank_1 in (6, 7, 8, 9)"
    tables = analyze(shoe, wagers=("banker", "tie", "dragon-7-insurance"), given=given, route="vector")
    walked = analyze(shoe, wagers=("banker", "tie", "dragon-7-insurance"), given=given, route="walk")
    assert [_by_line(r) for r in tables] == [_by_line(r) for r in walked] and tables.given == walked.given
    whole = analyze(Shoe.decks(8), wagers=["contrast:A"], catalogue=CATALOGUE)[0]
    red = "player_suit_1 in ('h', 'd')"
    with pytest.warns(Warning):
        held = analyze(Shoe.decks(8), wagers=["contrast:A"], catalogue=CATALOGUE, given=red)
        other = analyze(Shoe.decks(8), wagers=["contrast:A"], catalogue=CATALOGUE, given=f"not ({red})")
    assert held.given.probability == Fraction(1, 2)
    assert (held.given.probability * held[0].expected_return + other.given.probability * other[0].expected_return
            == whole.expected_return)


def test_the_command_says_how_often_the_condition_holds_and_keeps_it_exact_in_json_and_csv():
    code, out, err = run("analyze", "--wager", "player", "--given", "player_rank_1 in (7, 8, 9)", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["given"]["condition"] == "player_rank_1 in (7, 8, 9)"
    assert data["given"]["probability"] == "3/13" and data["given"]["total"] == Shoe.decks(8).sequences
    assert data["wagers"][0]["combinations"] == data["given"]["combinations"]
    code, out, err = run("analyze", "--wager", "player", "--given", "player_rank_1 in (7, 8, 9)")
    assert code == 0 and "Given: player_rank_1 in (7, 8, 9): 1,153,476,525,116,160 of 4,998,398,275,503,360" in out
    code, out, err = run("analyze", "--wager", "player", "--given", "player_rank_1 in (7, 8, 9)", "--format", "csv")
    assert code == 0 and "given player_rank_1 in (7, 8, 9)" in out.splitlines()[1]


@pytest.mark.parametrize("given, problem", [
    ("player_rank_1 == 14", "never holds on 8 decks"),
    ("player_cards == 4", "never holds on 8 decks"),
    ("player_rank_1 == 'X'", "compared with text"),
    ("player_rank_1 in", "--given"),
    ("", "empty condition"),
    ("no_such_feature == 1", "no_such_feature"),
])
def test_a_condition_that_cannot_be_priced_is_refused_in_one_line(given, problem):
    code, out, err = run("analyze", "--given", given)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and problem in err, err
    with pytest.raises(ExactOddsError, match="--given"):
        analyze(Shoe.decks(8), wagers=["banker"], given=given)
    with pytest.raises(ExactOddsError, match="a condition must be text"):
        analyze(Shoe.decks(8), wagers=["banker"], given=7)  # type: ignore[arg-type]


#: The classes of a sorted shoe in the published analyses: high {6, 7, 8, 9} against low {T, J, Q, K, A, 2, ..., 5}
#: (E. Jacobson, "Edge Sorting in Baccarat" and "Edge Sorting in Baccarat, Update #1", apheat.net, 2012).
HIGH = "(6, 7, 8, 9)"


def _best(shoe: Shoe, givens: list[str], wagers: tuple[str, ...]) -> Fraction:
    """The player's advantage betting, in each state, the best of ``wagers`` where it is positive (nothing else)."""
    total = Fraction(0)
    covered = Fraction(0)
    for given in givens:
        a = analyze(shoe, wagers=wagers, given=given)
        covered += a.given.probability
        total += a.given.probability * max(0, *(r.expected_return for r in a))
    assert covered == 1                               # the states cover every round, once
    return total


def test_a_player_who_sees_the_first_cards_class_gains_the_published_edge():
    """8 decks, the first card's class seen (Player if high, Banker if low): 6.765% (Jacobson, Update #1)."""
    first = f"player_rank_1 in {HIGH}"
    edge = _best(Shoe.decks(8), [first, f"not ({first})"], ("player", "banker"))
    assert f"{float(edge):.3%}" == "6.765%"


@pytest.mark.slow
def test_every_wager_of_the_catalogue_is_priced_given_a_card_and_its_counts_rebuild_the_whole():
    """--all given the first card's class: every paytable's conditional counts and those of the negation add up
    to its counts, line by line; a wager whose every-card features no table reads beside a card's rank (Heavenly
    9's same_colour and same_suit) is walked, with one warning saying why."""
    shoe = Shoe.decks(8)
    whole = analyze(shoe, everything=True)
    given = f"player_rank_1 in {HIGH}"
    with pytest.warns(Warning, match="heavenly-9-progressive:.*the tables cannot read its features together"):
        held = analyze(shoe, everything=True, given=given)
    other = analyze(shoe, everything=True, given=f"not ({given})")
    assert len(whole) == len(held) == len(other) > 80
    for w, g, n in zip(whole, held, other):
        assert Counter(_by_line(g)) + Counter(_by_line(n)) == Counter({k: v for k, v in _by_line(w).items() if v}), \
            w.wager.id


def test_a_shoe_whose_suits_are_unknown_leaves_out_the_wagers_that_read_them_and_refuses_a_condition_on_suits():
    """As without --given: the wagers that read suits are left out and named; a condition that reads suits is
    refused in one line naming --given, not a wager."""
    code, out, err = run("analyze", "--remove", "9", "--wager", "player", "--wager", "player-pair", "--given",
                         "player_rank_1 == 9", "--summary")
    assert code == 0 and "Skipped 1 wager paytable that read suits" in out and "player-pair:standard" in out, err
    assert "exact 31/415" in out                       # 31 nines left of 415 cards
    code, out, err = run("analyze", "--remove", "9", "--wager", "player", "--given", "player_suit_1 == 'h'")
    assert code == 2 and out == "" and err.startswith("exactodds: error: --given \"player_suit_1 == 'h'\" reads "
                                                       "suits, but the shoe's suits are unknown"), err


def test_the_python_results_say_what_was_given():
    a = analyze(Shoe.decks(8), wagers=["player"], given="player_rank_1 == 13")
    assert repr(a) == "<Analysis of 1 wager table on 8 decks (416 cards), given player_rank_1 == 13>"
    assert a.to_dict()["given"]["probability"] == "1/13"
    assert a.to_dataframe()["shoe"].iloc[0] == "8 decks (416 cards), given player_rank_1 == 13"
