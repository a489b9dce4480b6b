"""Betting measures (exactodds.analyses.betting) against their closed forms, and the plays of an exposure run."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from exactodds.analyses.betting import Play, parse_ramp, ramp_units
from exactodds.errors import ExactOddsError
from exactodds.simulation.exposure import exposure


def test_measures_follow_from_mean_and_variance():
    p = Play("x", rounds=400, shoes=5, rounds_bet=40, units=60, win=Fraction(3), square=Fraction(250))
    mu = Fraction(3, 400)
    var = Fraction(250, 400) - mu * mu
    assert (p.per_round, p.per_100, p.per_shoe, p.variance) == (mu, 100 * mu, Fraction(3, 5), var)
    assert p.n0 == var / mu ** 2                                  # rounds for the win to reach one SD
    assert p.di == pytest.approx(1000 * float(mu) / math.sqrt(float(var)))
    assert p.sd_per_shoe == pytest.approx(math.sqrt(float(var) * 80))
    for bankroll in (10, 100, 1000):                             # the diffusion formula exp(-2 mu B / var)
        assert p.risk_of_ruin(bankroll) == pytest.approx(math.exp(-2 * float(mu) * bankroll / float(var)))
    losing = Play("y", rounds=10, shoes=1, rounds_bet=10, units=10, win=Fraction(-1), square=Fraction(10))
    assert losing.n0 is None and losing.risk_of_ruin(1000) == 1.0


def test_ramps_are_read_and_refused_in_one_line():
    ramp = parse_ramp("4:2, 2:1,6:4")
    assert ramp == ((2, 1), (4, 2), (6, 4))
    assert [ramp_units(ramp, tc) for tc in (-3, 1, 2, 3, 4, 5, 6, 20)] == [0, 0, 1, 1, 2, 2, 4, 4]
    for bad in ("2", "2:x", "2:-1", "2:1,2:3", "a:1", "2:100000"):
        with pytest.raises(ExactOddsError, match="--ramp"):
            parse_ramp(bad)


def test_plays_of_a_run():
    """A flat unit on every round wins the off-the-top average edge; a threshold play equals its row of
    the threshold table; the verdict names the threshold and the win it reports."""
    x = exposure([("dragon-7-insurance", "standard"), ("banker", "standard")], shoes=30, seed=4,
                 ramp=((3, 1), (6, 2)))
    d7, banker = x
    flat = d7.by_count("flat", lambda tc: 1)
    assert flat.per_round == d7.mean_player_expected_return and flat.rounds_bet == d7.rounds
    perfect, best, ramp = d7.plays()
    assert perfect.win == d7.tally.sum_advantage and perfect.per_100 == d7.perfect_per_100
    row = d7.best_threshold()
    assert row is not None and best.per_100 == row["win_per_100"] and best.rounds_bet == row["rounds_bet"]
    assert ramp.units == sum(ramp_units(((3, 1), (6, 2)), tc) * r[0] for tc, r in d7.tally.by_tc.items())
    assert f"true count >= {row['threshold']}" in d7.verdict()
    assert "not countable" in banker.verdict()          # a few rounds at the top of the count: noise
    data = x.to_dict() if hasattr(x, "to_dict") else None
    text = x.render("text")
    assert "Verdict: dragon-7-insurance:standard" in text and "Risk of ruin, 100 units" in text
    assert data is None or "plays" in data["wagers"][0]


@pytest.mark.slow
def test_team_play_against_every_round_priced_alone():
    """The team's win and second moment, summed round by round from each round's own exact distribution
    (both wagers' nets on the same rounds of the table), equal what the run tallied."""
    from exactodds.analyses.pricing import _counts, _key_nets
    from exactodds.engine.distribution import deal
    from exactodds.game.cards import Card
    from exactodds.game.shoe import Shoe

    from .test_exposure import _dealt_by_the_rules

    decks, cut, seed, shoes = 6, 20, 8, 4
    wagers = [("dragon-7-insurance", "standard"), ("panda-8-insurance", "standard")]
    x = exposure(wagers, shoes=shoes, seed=seed, decks=decks, cut=cut, team=True)
    team = x.team_play()
    assert team is not None
    limits = [None if (b := r.best_threshold()) is None else b["threshold"] for r in x]
    tags = [r.count.card_tags() for r in x]
    nets = [_key_nets(r.wager, r.paytable) for r in x]
    win = square = Fraction(0)
    for i in range(shoes):
        for seen, _cards in _dealt_by_the_rules(seed, i, decks=decks, cut=cut):
            unseen = Shoe.decks(decks).remove(*(Card.from_index(c) for c in seen))
            counts = _counts(x[0].wager, deal(unseen))          # the two wagers read the same table
            bets = [limit is not None and max(-20, min(30, sum(t[c] for c in seen) * 52 // unseen.size)) >= limit
                    for t, limit in zip(tags, limits)]
            moment = [sum((a * b * int(n) for a, b, n in zip(nets[p][0], nets[q][0], counts)), Fraction(0))
                      / unseen.sequences for p, q in ((0, 0), (1, 1), (0, 1))]
            for k in (0, 1):
                if bets[k]:
                    win += sum((a * int(n) for a, n in zip(nets[k][0], counts)), Fraction(0)) / unseen.sequences
                    square += moment[k]
            if bets[0] and bets[1]:
                square += 2 * moment[2]
    assert all(limit is not None for limit in limits)               # both players bet somewhere
    assert team.win == win and team.square == square
    assert team.per_shoe == sum((p.per_shoe for r in x for p in r.plays()[1:2]), Fraction(0))
    assert "team (dragon-7-insurance from" in x.render("text")


def test_team_play_does_not_depend_on_how_the_shoes_are_split():
    wagers = [("dragon-7-insurance", "standard"), ("panda-8-insurance", "standard"), ("tie", "8-to-1")]
    runs = [exposure(wagers, shoes=8, seed=3, team=True, batch=batch, workers=workers)
            for batch, workers in ((8, 1), (1, 1), (3, 2))]
    plays = [x.team_play() for x in runs]
    assert plays[0] is not None and plays[0] == plays[1] == plays[2]
    assert runs[0][0].tally.cross == runs[1][0].tally.cross == runs[2][0].tally.cross


def test_a_team_past_the_bound_of_its_covariance_is_refused_naming_the_shoe_not_the_wagers():
    from exactodds.simulation.exposure import _check_team
    from exactodds.wagers import load_catalogue
    cat = load_catalogue()
    pairs = [(cat[w], cat[w].paytable(next(iter(cat[w].paytables)))) for w in ("dragon-7-insurance", "tie")]
    _check_team(pairs, 24)                                      # 1,248 cards: counted
    with pytest.raises(ExactOddsError, match=r"a shoe of 25 decks \(1,300 cards\) is past the 64-bit bound"):
        _check_team(pairs, 25)
