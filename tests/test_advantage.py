"""Readable backs (exactodds advantage, exactodds.analyses.advantage): each state of the classes seen priced
exactly through --given; the published edges of an edge sorter reproduced; the states rebuild every wager's
return; bad input refused in one line."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pytest

from exactodds.analyses.advantage import readable_backs, sorted_ranks
from exactodds.analyses.analysis import analyze
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe

from .test_cli import run

#: The published sort (E. Jacobson, "Edge Sorting in Baccarat" and its "Update #1", apheat.net, 2012).
HIGH = "6,7,8,9"


def test_one_card_seen_gives_the_published_edge_and_the_states_rebuild_each_wagers_return():
    """The first card's class seen, Player and Banker: 6.765% (Update #1); per wager, the states' returns
    weighted by their probabilities are its return off the top, exactly (8 decks less a few cards too)."""
    a = readable_backs(Shoe.decks(8), sorted_cards=HIGH, seen=1, wagers=["player", "banker"])
    assert f"{float(a.when_positive):.3%}" == "6.765%" and a.every_round == a.when_positive
    for shoe in (Shoe.decks(8), Shoe.decks(8).remove("9h", "9s", "8d", "Kc", "2h")):
        a = readable_backs(shoe, sorted_cards=HIGH, seen=2, wagers=["player", "banker", "tie", "dragon-7-insurance"])
        assert [s.pattern for s in a.states] == ["HH", "HL", "LH", "LL"] and sum(s.probability for s in a.states) == 1
        whole = analyze(shoe, wagers=["player", "banker", "tie", "dragon-7-insurance"])
        for k, r in enumerate(whole):
            assert sum(s.probability * s.results[k].expected_return for s in a.states) == r.expected_return
        best = sum(s.probability * max(r.expected_return for r in s.results) for s in a.states)
        assert a.every_round == best and a.when_positive >= a.every_round
        assert max(g for _, g in a.given_away()) <= a.when_positive


@pytest.mark.slow
def test_four_cards_seen_give_the_published_edge():
    """The four initial cards' classes seen, Player, Banker or Tie at 8 to 1 where one has the edge: 20.928%
    ("Edge Sorting in Baccarat"), the player betting in 15 of the 16 states."""
    a = readable_backs(Shoe.decks(8), sorted_cards=HIGH, seen=4, wagers=["player", "banker", "tie:8-to-1"])
    assert len(a.states) == 16 and f"{float(a.when_positive):.3%}" == "20.928%"
    assert sum(1 for s in a.states if max(r.expected_return for r in s.results) > 0) == 15


def test_a_state_the_shoe_cannot_deal_is_left_out():
    """No nine left in the shoe: the first card is never of the class 9; the other state holds always."""
    shoe = Shoe.decks(1).remove("9h", "9s", "9d", "9c")
    a = readable_backs(shoe, sorted_cards="9", seen=1, wagers=["player"])
    assert [(s.pattern, s.probability, len(s.results)) for s in a.states] == [("H", 0, 0), ("L", 1, 1)]
    assert a.every_round == analyze(shoe, wagers=["player"])[0].expected_return


def test_the_command_prints_the_states_and_keeps_every_figure_exact_in_json():
    code, out, err = run("advantage", "--sorted", HIGH, "--wager", "player", "--wager", "banker", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert [s["pattern"] for s in data["states"]] == ["H", "L"] and data["states"][0]["probability"] == "4/13"
    assert f"{float(Fraction(data['when_positive'])):.3%}" == "6.765%"
    code, out, err = run("advantage", "--sorted", HIGH, "--wager", "player", "--wager", "banker")
    assert code == 0 and "Betting only where it is positive: +6.7647%" in out and "P1" in out, err


@pytest.mark.parametrize("argv, problem", [
    (["--sorted", ""], "neither a point value"),
    (["--sorted", "6,X"], "'X' is neither a point value"),
    (["--sorted", "0,1,2,3,4,5,6,7,8,9"], "names every rank"),
    (["--sorted", HIGH, "--seen", "7"], "--seen"),
    (["--sorted", HIGH, "--wager", "heavenly-9-progressive"], "pays a progressive meter"),
    (["--sorted", HIGH, "--all", "--wager", "player"], "exclude each other"),
])
def test_bad_input_is_refused_in_one_line(argv, problem):
    code, out, err = run("advantage", *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and problem in err, err


def _deal(v: list[int]) -> tuple[int, int, int]:
    """The round the point values ``v`` (the shoe's first six cards, in order) deal, by 627a.10 written out here:
    (Player's total, Banker's total, cards dealt)."""
    p, b = (v[0] + v[2]) % 10, (v[1] + v[3]) % 10
    if p >= 8 or b >= 8:
        return p, b, 4
    at = 4
    third = None
    if p <= 5:
        third, at = v[at], at + 1
        p = (p + third) % 10
    if third is None:
        draws = b <= 5
    else:
        draws = b <= 2 or (b == 3 and third != 8) or (b == 4 and 2 <= third <= 7) or (b == 5 and 4 <= third <= 7) \
            or (b == 6 and third in (6, 7))
    if draws:
        b, at = (b + v[at]) % 10, at + 1
    return p, b, at


@pytest.mark.parametrize("seen", [5, 6])
def test_the_fifth_and_sixth_cards_seen_dealt_or_not_equal_a_brute_force_over_the_shoes_orderings(seen):
    """--seen 5 and 6: every ordering of six of a ten-card shoe's cards, dealt by the rules written out in the test,
    each state (the classes of the first ``seen`` cards, dealt or not) and the Player's, Banker's and Tie's return
    in it: the same fractions as the door's states (which price the rounds dealt and count the undealt seen cards
    by their classes)."""
    ranks = [1, 6, 6, 7, 9, 9, 10, 12, 3, 8]                # point values 1 6 6 7 9 9 0 0 3 8
    shoe = Shoe.from_card_counts({f"{'A' if r == 1 else {10: 'T', 12: 'Q'}.get(r, str(r))}{'shdc'[i % 4]}": 1
                                  for i, r in enumerate(ranks)})
    high = {6, 7, 8, 9}
    counts: dict[str, list[int]] = {}                       # pattern -> [rounds, Player's, Banker's, Tie's sums]
    pays = {"player": lambda p, b: 1 if p > b else (0 if p == b else -1),
            "banker": lambda p, b: Fraction(95, 100) if b > p else (0 if p == b else -1),
            "tie": lambda p, b: 8 if p == b else -1}
    sums: dict[str, dict[str, Fraction]] = {}
    for order in itertools.permutations(range(10), 6):
        v = [min(ranks[i], 10) % 10 for i in order]
        p, b, _ = _deal(v)
        key = "".join("H" if (ranks[i] in high) else "L" for i in order[:seen])
        row = sums.setdefault(key, {"n": Fraction(0), **{w: Fraction(0) for w in pays}})
        row["n"] += 1
        for w, pay in pays.items():
            row[w] += pay(p, b)
    a = readable_backs(shoe, sorted_cards=HIGH, seen=seen, wagers=["player", "banker:standard", "tie:8-to-1"])
    total = math.perm(10, 6)
    assert sum(s.probability for s in a.states) == 1
    for s in a.states:
        row = sums.get(s.pattern)
        if row is None:
            assert s.probability == 0 and not s.results
            continue
        assert s.probability == row["n"] / total, s.pattern
        for w, r in zip(pays, s.results):
            assert r.expected_return == row[w] / row["n"], (s.pattern, w)


def test_the_states_are_the_same_whether_the_door_walks_the_wagers_or_reads_their_tables():
    """Each state is counted beside a wager at once (the joint counts of the states and the wager) where the tables
    price it, and state by state through --given where the door walks it: on a depleted shoe, the same fractions."""
    from exactodds.analyses.door import routed

    shoe = Shoe.decks(1).remove("9h", "9s", "8d", "Kc", "2h", "7s", "7c")
    wagers = ["banker:standard", "dragon-7-insurance"]
    tables = readable_backs(shoe, sorted_cards=HIGH, seen=2, wagers=wagers)
    with routed("walk"):
        walked = readable_backs(shoe, sorted_cards=HIGH, seen=2, wagers=wagers)
    assert [(s.pattern, s.probability, [r.expected_return for r in s.results]) for s in tables.states] == \
        [(s.pattern, s.probability, [r.expected_return for r in s.results]) for s in walked.states]


def test_a_class_is_named_by_point_values_or_ranks():
    assert sorted_ranks("0") == (10, 11, 12, 13) and sorted_ranks("t, J,q,K") == (10, 11, 12, 13)
    assert sorted_ranks("1") == sorted_ranks("A") == (1,)
    with pytest.raises(ExactOddsError, match="--seen"):
        readable_backs(Shoe.decks(8), sorted_cards=HIGH, seen=0)


def test_a_flashed_first_card_gives_what_its_best_split_gives_and_its_states_rebuild_each_return():
    """The first card seen by rank: in each of its 13 states the best bet is that of its class of 6-9 against the
    rest, so the gain is the one-card sort's exactly (another set of states, the same number); each wager's
    states rebuild its return."""
    from exactodds.analyses.advantage import exposed_card
    wagers = ["player", "banker", "tie:8-to-1"]
    first = exposed_card(Shoe.decks(8), position="first", wagers=wagers)
    assert len(first.states) == 13
    assert first.when_positive == readable_backs(Shoe.decks(8), sorted_cards=HIGH, seen=1, wagers=wagers).when_positive
    whole = analyze(Shoe.decks(8), wagers=wagers)
    for k, r in enumerate(whole):
        assert sum(s.probability * s.results[k].expected_return for s in first.states) == r.expected_return


def test_a_seen_burn_or_bottom_card_is_the_shoe_less_it_and_a_wager_on_suits_is_read_by_card():
    """The burn card (exposed by 627a.5(f)) or the bottom card: the rounds off the shoe less it; a random card
    removed unseen changes no return, so the states weighted by their probabilities give each return off the
    top, exactly; a wager that reads suits makes the states the 52 cards."""
    from exactodds.analyses.advantage import exposed_card
    shoe = Shoe.decks(6).remove("9h", "Kc")
    burn = exposed_card(shoe, position="burn", wagers=["banker", "player-pair"])
    bottom = exposed_card(shoe, position="bottom", wagers=["banker", "player-pair"])
    assert len(burn.states) == 52 and [s.results for s in burn.states] == [s.results for s in bottom.states]
    whole = analyze(shoe, wagers=["banker", "player-pair"])
    for k, r in enumerate(whole):
        assert sum(s.probability * s.results[k].expected_return for s in burn.states) == r.expected_return
    code, out, err = run("advantage", "--exposed", "burn", "--wager", "banker", "--decks", "6")
    assert code == 0 and "Betting only where it is positive: +0.0000% (exact 0)" in out, err
    code, out, err = run("advantage", "--exposed", "first", "--sorted", HIGH)
    assert code == 2 and "one of them" in err


def test_the_best_split_for_one_card_is_the_published_one_and_every_split_agrees_with_the_door():
    """511 splits of the point values from the value-level rounds: for the first card the best is 6-9 against
    the rest (6.765%); the next is priced again through the engine's door, to the same fraction."""
    from exactodds.analyses.advantage import best_splits
    found = best_splits(Shoe.decks(8), seen=1, wagers=["player", "banker"])
    assert len(found.splits) == 511 and found.splits[0][0] == (6, 7, 8, 9)
    assert f"{float(found.splits[0][1]):.3%}" == "6.765%" == f"{float(found.best.when_positive):.3%}"
    values, gain, every = found.splits[1]
    again = readable_backs(Shoe.decks(8), sorted_cards=",".join(map(str, values)), seen=1, wagers=["player", "banker"])
    assert (again.when_positive, again.every_round) == (gain, every)
    code, out, err = run("advantage", "--sorted", "best", "--wager", "player-pair")
    assert code == 2 and "reads the cards" in err and len(err.splitlines()) == 1


@pytest.mark.slow
def test_the_best_split_for_four_cards_gives_the_published_edge():
    """The four initial cards' classes, Player, Banker or Tie at 8 to 1: the best split gains 30.291% (F. Roach's
    search, confirmed in E. Jacobson's "Edge Sorting in Baccarat, Update #1"), confirmed through the door."""
    from exactodds.analyses.advantage import best_splits
    found = best_splits(Shoe.decks(8), seen=4, wagers=["player", "banker", "tie:8-to-1"])
    assert f"{float(found.splits[0][1]):.3%}" == "30.291%" == f"{float(found.best.when_positive):.3%}"


def test_the_certificates_advantage_section_is_exact_and_verified(tmp_path):
    """certificate --advantage (issue 55, item 4): per table, a flashed first card's states rebuild the return
    off the top; the most exposed split's gain is what readable_backs gives the same split by its class
    condition (a second route); a seen burn card's states rebuild it too; verify recomputes it, and a changed
    figure fails."""
    from exactodds.documents.certificate import build, verify

    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("banker", "standard"), ("dragon-7-insurance", "standard"),
                                                   ("player-pair", "standard")], second_route=False, advantage=True)
    returns = {r.wager.id: r.expected_return for r in analyze(Shoe.decks(8), wagers=[
        "banker:standard", "dragon-7-insurance:standard", "player-pair:standard"])}
    for block in cert["results"][0]["wagers"]:
        a, wid = block["advantage"], block["wager"]
        for seen in ("first_card", "burn_card"):
            states = a[seen]["states"]
            assert sum(Fraction(s["probability"]) for s in states) == 1
            assert sum(Fraction(s["probability"]) * Fraction(s["expected_return"]) for s in states) == returns[wid]
        ranks = a["edge_sorting"]["ranks"]
        if ranks:
            again = readable_backs(Shoe.decks(8), sorted_cards=",".join(r.replace("10", "T") for r in ranks), seen=1,
                                   wagers=[f"{wid}:standard"])
            assert again.when_positive == Fraction(a["edge_sorting"]["gain"]), wid
        assert Fraction(a["worst_case"]) >= Fraction(a["first_card"]["worst"]["expected_return"])
    assert [b["advantage"]["edge_sorting"]["ranks"] for b in cert["results"][0]["wagers"]][1] == ["6"]
    assert verify(cert)[0]
    cert["results"][0]["wagers"][1]["advantage"]["worst_case"] = "1/2"
    ok, why = verify(cert)
    assert not ok and "advantage.worst_case" in why
