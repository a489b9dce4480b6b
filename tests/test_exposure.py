"""Exposure runs (exactodds.simulation.exposure): exact edges before every round, split-invariant, on Dask too."""

from __future__ import annotations

import json
from dataclasses import asdict
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from exactodds.analyses.analysis import analyze
from exactodds.cli import cli
from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.simulation import exposure as exposure_module
from exactodds.simulation.exposure import ExposureSpec, Tally, exposure, exposure_batch
from exactodds.wagers.catalogue import load_catalogue

from .brute import deal_shoe_by_the_rules

PAIRS = [("dragon-7-insurance", "standard"), ("panda-8-insurance", "standard")]


def _dealt_by_the_rules(seed: int, shoe_number: int, *, decks: int, cut: int) -> list[tuple[list[int], list[int]]]:
    """(cards seen before the round, the round's cards) for each round of one shoe, dealt card by card
    from §627a.5 and §627a.9(e) with :func:`exactodds.game.rules.play` — not the simulator's vectorised loop."""
    stack = np.random.default_rng([seed, shoe_number]).permutation(np.repeat(np.arange(52), decks)).tolist()
    seen = [stack[0]]
    out = []
    for cards in deal_shoe_by_the_rules(stack, cut=cut):
        out.append((list(seen), cards))
        seen += cards
    return out


def test_edges_equal_analyze_on_the_cards_not_yet_seen():
    """Every round's exact edge, summed, equals analyze on the unseen cards round by round."""
    decks, cut, seed, shoe_number = 6, 20, 11, 3
    spec = ExposureSpec(tuple((load_catalogue()[w], t) for w, t in PAIRS), decks, cut, seed, ((0,) * 52,) * 2)
    tallies = exposure_batch(spec, shoe_number, shoe_number + 1)
    rounds = _dealt_by_the_rules(seed, shoe_number, decks=decks, cut=cut)
    for (wager, table), tally in zip(PAIRS, tallies):
        edges = []
        for seen, _cards in rounds[::7]:      # spot-check every seventh round through analyze
            unseen = Shoe.decks(decks).remove(*(Card.from_index(c) for c in seen))
            edges.append(analyze(unseen, wagers=[wager], paytables=[table])[0].expected_return)
        assert tally.rounds == len(rounds)
        assert edges[0] == analyze(Shoe.decks(decks).remove(Card.from_index(rounds[0][0][0])),
                                   wagers=[wager], paytables=[table])[0].expected_return
        everything = _all_edges(wager, table, rounds, decks)
        assert everything[::7] == edges
        assert tally.sum_edge == sum(everything, Fraction(0))
        assert tally.advantage_rounds == sum(e > 0 for e in everything)
        assert tally.sum_advantage == sum((e for e in everything if e > 0), Fraction(0))
        lows = [row[3] for row in tally.by_penetration.values()]
        assert min(lows) == min(everything)
        squares = _all_squares(wager, table, rounds, decks)         # E[X²] = variance + E[X]², from price()
        assert sum((row[4] for row in tally.by_tc.values()), Fraction(0)) == sum(squares, Fraction(0))
        assert tally.sum_square_advantage == sum((q for e, q in zip(everything, squares) if e > 0), Fraction(0))


def test_true_counts_are_the_tags_of_the_cards_seen_before_each_round():
    """Each wager's rounds per true count, from its own tags, equal a count made round by round from the cards
    seen before it (the exposed burn card and the rounds before, dealt by the rules): floor(running · 52 /
    cards left), clipped to TC_RANGE."""
    decks, cut, seed = 6, 20, 5
    tags = (tuple(((i // 4) % 5) - 2 for i in range(52)),            # every card tagged, the two wagers apart
            tuple(3 if i // 4 in (0, 7, 8) else -1 if i // 4 >= 9 else 0 for i in range(52)))
    spec = ExposureSpec(tuple((load_catalogue()[w], t) for w, t in PAIRS), decks, cut, seed, tags)
    tallies = exposure_batch(spec, 2, 5)
    for j, tally in enumerate(tallies):
        expected: dict[int, int] = {}
        for shoe_number in range(2, 5):
            for seen, _cards in _dealt_by_the_rules(seed, shoe_number, decks=decks, cut=cut):
                running = sum(tags[j][c] for c in seen)
                tc = min(max(running * 52 // (52 * decks - len(seen)), exposure_module.TC_RANGE[0]),
                         exposure_module.TC_RANGE[1])
                expected[tc] = expected.get(tc, 0) + 1
        assert {tc: row[0] for tc, row in tally.by_tc.items()} == expected
        assert len(expected) > 3                                     # the counts move: the tags are read


def _results(wager, table, rounds, decks):
    from exactodds.analyses.pricing import price
    from exactodds.engine.distribution import deal

    w = load_catalogue()[wager]
    for seen, _cards in rounds:
        unseen = Shoe.decks(decks).remove(*(Card.from_index(c) for c in seen))
        yield price(w, w.paytable(table), deal(unseen))


def _all_edges(wager, table, rounds, decks):
    return [r.expected_return for r in _results(wager, table, rounds, decks)]


def _all_squares(wager, table, rounds, decks):
    return [r.variance + r.expected_return ** 2 for r in _results(wager, table, rounds, decks)]


def _figures(x):
    return [(r.summary(), r.thresholds(), r.penetration(), r.tally.histogram, r.by_round_rows(), r.tally.by_tc)
            for r in x]


def test_cut_card_effect_is_the_average_over_rounds_dealt_less_the_figure_off_the_top():
    x = exposure([("dragon-7-insurance", "standard"), ("tie", "8-to-1")], shoes=12, seed=21, decks=6, cut=30)
    for r in x:
        rows = r.by_round_rows()
        assert [row["round"] for row in rows] == list(range(1, len(rows) + 1))
        assert sum(row["rounds"] for row in rows) == r.rounds and rows[0]["rounds"] == r.shoes
        assert sum((row["mean_player_expected_return"] * row["rounds"] for row in rows), Fraction(0)) == r.tally.sum_edge
        top = analyze(Shoe.decks(6), wagers=[r.wager.id], paytables=[r.paytable.id])[0].expected_return
        assert r.off_the_top == top and r.cut_card_effect == r.mean_player_expected_return - top
        assert r.cut_card_effect_se > 0
        assert r.tally.sum_sq_shoe_rounds == sum(n * n for n in _rounds_per_shoe(21, 12, decks=6, cut=30))
    one = exposure([("tie", "8-to-1")], shoes=1, seed=21, decks=6, cut=30)[0]
    assert one.cut_card_effect_se != one.cut_card_effect_se                  # nan: no spread with one shoe


def _rounds_per_shoe(seed, shoes, *, decks, cut):
    return [len(_dealt_by_the_rules(seed, i, decks=decks, cut=cut)) for i in range(shoes)]


def test_the_split_does_not_change_the_numbers():
    one = exposure(PAIRS, shoes=6, seed=5, batch=6)
    small = exposure(PAIRS, shoes=6, seed=5, batch=1)
    pool = exposure(PAIRS, shoes=6, seed=5, batch=2, workers=2)
    assert _figures(one) == _figures(small) == _figures(pool)
    other = exposure(PAIRS, shoes=6, seed=6, batch=6)
    assert _figures(other) != _figures(one)


def test_local_workers_take_tasks_of_several_batches(monkeypatch):
    """Tasks of the local workers grow to several batches of consecutive shoes once a rate is measured (here as
    large as the end of the run allows), smaller at the end; the numbers are the run's in one process."""
    tasks = exposure_module._Tasks([(a, a + 2) for a in range(0, 40, 2)] + [(50, 52), (52, 53)], 1e9)
    first = tasks.next(2)
    tasks.done(first[-1], 0.5)
    handed = [first]
    while tasks.queued:
        handed.append(tasks.next(2))
    assert first == [(0, 2)] and len(handed[1]) == 5 and [s for t in handed for s in t] == \
        [(a, a + 2) for a in range(0, 40, 2)] + [(50, 52), (52, 53)]
    assert all(b == c for t in handed for (_, b), (c, _) in zip(t, t[1:]))          # consecutive shoes in a task
    monkeypatch.setattr(exposure_module, "LOCAL_TASK_SECONDS", 60.0)
    pool = exposure(PAIRS, shoes=9, seed=5, batch=1, workers=2)
    assert [r.tally.to_json() for r in pool] == [r.tally.to_json() for r in exposure(PAIRS, shoes=9, seed=5, batch=9)]


def test_tallies_added_at_once_are_the_tallies_added_one_by_one():
    """Tally.summed against Tally.add batch by batch (every field, every key in the same order), and both against
    the batches added in integers, as a run adds them, over one denominator or several."""
    spec = ExposureSpec(tuple((load_catalogue()[w], t) for w, t in PAIRS), 6, 14, 4, ((0,) * 52,) * len(PAIRS), True)
    parts = [exposure_batch(spec, a, b) for a, b in [(0, 2), (2, 3), (3, 7)]]
    for j in range(len(PAIRS)):
        one_by_one = Tally()
        for part in parts:
            one_by_one.add(part[j])
        at_once = Tally.summed([Tally(), *(part[j] for part in parts)])
        assert asdict(at_once) == asdict(one_by_one)
        assert [list(getattr(at_once, name)) for name in ("by_tc", "by_penetration", "histogram", "cross")] == \
               [list(getattr(one_by_one, name)) for name in ("by_tc", "by_penetration", "histogram", "cross")]
        # the batches in integers (_Sums, as a run adds them), over the run's denominators and over others
        # (a batch of a wager priced shoe by shoe has its own): the same Fractions
        spans = [(0, 2), (2, 3), (3, 7)]
        total = exposure_module._batch_sums(spec, *spans[0])[j]
        for a, b in spans[1:]:
            total.add(exposure_module._batch_sums(spec, a, b)[j])
        assert asdict(total.tally()) == asdict(one_by_one)
        first, second = (exposure_module._batch_sums(spec, *span)[j] for span in spans[:2])
        factors = {kind: 3 + i for i, kind in enumerate(second.over)}
        assert second._scaled(factors).tally() == second.tally() and second._scaled(factors).over != second.over
        assert first.add(second._scaled(factors)).tally() == Tally.summed([parts[0][j], parts[1][j]])


@pytest.mark.slow
def test_the_dask_path_gives_the_local_numbers():
    distributed = pytest.importorskip("dask.distributed")
    local = exposure(PAIRS[:1], shoes=4, seed=9, batch=4)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        on_cluster = exposure(PAIRS[:1], shoes=4, seed=9, batch=1, scheduler=cluster.scheduler_address)
        with distributed.Client(cluster) as client:
            by_client = exposure(PAIRS[:1], shoes=4, seed=9, batch=3, scheduler=client)
    assert _figures(on_cluster) == _figures(local) == _figures(by_client)


def test_the_figures_are_read_exactly_from_the_sums():
    r = exposure(PAIRS[:1], shoes=5, seed=2)[0]
    assert r.rounds == sum(row[0] for row in r.tally.by_tc.values()) == sum(r.tally.histogram.values())
    assert r.advantage_share == Fraction(r.tally.advantage_rounds, r.rounds)
    assert r.perfect_per_100 == 100 * r.tally.sum_advantage / r.rounds
    lowest = r.thresholds()[0]
    assert lowest["rounds_bet"] == r.rounds and lowest["win_per_100"] == 100 * r.mean_player_expected_return
    best = r.best_threshold()
    assert best is None or all(best["win_per_100"] >= row["win_per_100"] for row in r.thresholds())
    assert r.count.tags["8"] > 0 and r.count.tags["7"] < 0


def test_given_tags_are_used():
    r = exposure(PAIRS[:1], shoes=2, seed=2, tags={"4": -1, "5": -1, "6": -1, "7": -1, "8": 2, "9": 2})[0]
    assert r.count.source == "given" and r.count.tags["8"] == 2 and r.count.tags["K"] == 0


@pytest.mark.parametrize("tag", [10**18, 1001, True, 0.5, "2", None])
def test_tags_that_are_no_whole_number_within_the_limit_are_refused_in_one_line(tag):
    """A tag of 10^18 ran and wrapped the 64-bit running count (true counts of the wrong sign, exit 0); True was
    taken as 1; 0.5 and "2" failed with a TypeError."""
    with pytest.raises(ExactOddsError, match=r"^--tags: the tag of '8' must be a whole number from -1000 to 1000, "
                                             r"got "):
        exposure(PAIRS[:1], shoes=2, seed=2, tags={"4": -1, "8": tag})


@pytest.mark.parametrize("kwargs, words", [
    ({"shoes": True}, "--shoes must be a whole number"), ({"seed": True}, "--seed must be a whole number"),
    ({"batch": True}, "--batch must be a whole number"), ({"cut": 14.5}, "--cut must be a whole number of cards"),
    ({"first_shoe": True}, "--first-shoe must be a whole number"),
    ({"bankroll": 2.5}, "--bankroll: a whole number of units from 1 to 10^15, got 2.5"),
    ({"bankroll": 10**30}, "--bankroll: a whole number of units"), ({"bankroll": True}, "--bankroll: a whole number"),
    ({"ramp": ((0, 1.5),)}, "--ramp: (0, 1.5): units are a whole number from 0 to 1,000"),
    ({"ramp": ((0, -1),)}, "--ramp: (0, -1): units are"), ({"ramp": ((True, 2),)}, "--ramp: (True, 2) is not a"),
    ({"ramp": ((1, 1), (1, 2))}, "--ramp: true count 1 given twice"),
])
def test_what_the_python_api_is_given_is_held_to_what_the_options_take(kwargs, words):
    """True ran as 1 shoe or seed 1, a cut of 14.5 cards and bankrolls of 2.5 or 10^30 units ran, and a ramp of
    1.5 or -1 units gave plays of such bets: each is refused in one line, as the command-line options are."""
    with pytest.raises(ExactOddsError) as refused:
        exposure(PAIRS[:1], **{"shoes": 2, "seed": 2, **kwargs})
    assert str(refused.value).startswith(words) and "\n" not in str(refused.value)


def test_a_ramp_given_out_of_order_is_read_in_order_of_true_count():
    """ramp_units reads the steps in order: ((4, 4), (1, 1)) bet 1 unit at +5 (the last step at or below it)."""
    r = exposure(PAIRS[:1], shoes=2, seed=2, ramp=((4, 4), (1, 1)))[0]
    assert r.ramp == ((1, 1), (4, 4)) == exposure(PAIRS[:1], shoes=2, seed=2, ramp=((1, 1), (4, 4)))[0].ramp


@pytest.mark.parametrize("kwargs, words", [
    ({"seed": -1}, "--seed"), ({"shoes": 0}, "--shoes"), ({"cut": 10}, "--cut"), ({"batch": 0}, "--batch"),
    ({"decks": 0}, "--decks"),
])
def test_bad_runs_are_refused(kwargs, words):
    args = {"shoes": 1, "seed": 1} | kwargs
    with pytest.raises(ExactOddsError, match=words):
        exposure(PAIRS[:1], **args)


def test_progressives_are_refused():
    with pytest.raises(ExactOddsError, match="progressive meter"):
        exposure([("royal-9-progressive", "$5")], shoes=1, seed=1)


@pytest.mark.slow
def test_cli_exposure():
    runner = CliRunner()
    out = runner.invoke(cli, ["exposure", "--wager", "dragon-7-insurance", "--shoes", "3", "--seed", "4", "--workers", "1",
                              "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)["wagers"][0]          # the rate goes to stderr
    assert data["shoes"] == 3 and data["seed"] == 4 and data["thresholds"]
    assert Fraction(data["advantage_share"]) >= 0
    # the player's view is named so, in one name: the old key is gone from the JSON
    assert Fraction(data["mean_player_expected_return"]) <= 1 and "mean_edge" not in data
    assert not [k for row in data["penetration"] for k in row if k.endswith("edge")]
    text = runner.invoke(cli, ["exposure", "--wager", "tie:8-to-1", "--shoes", "2", "--seed", "4", "--workers", "1"]).output
    assert "Betting by the count" in text and "The player's expected return against penetration" in text
    assert "Sign convention" in text                      # a player's view points to the convention
    bad = runner.invoke(cli, ["exposure", "--wager", "tie", "--shoes", "2", "--seed", "-3"])
    assert bad.exit_code == 2 and "--seed" in bad.output and "Traceback" not in bad.output
    bad = runner.invoke(cli, ["exposure", "--wager", "tie", "--shoes", "2", "--seed", "1", "--scheduler", "tcp://127.0.0.1:1"])
    assert bad.exit_code == 2 and "--scheduler" in bad.output


def test_mean_edge_is_read_with_a_deprecation_warning_for_one_release():
    r = exposure(PAIRS[:1], shoes=2, seed=3)[0]
    with pytest.warns(DeprecationWarning, match="use mean_player_expected_return"):
        old = r.mean_edge
    assert old == r.mean_player_expected_return == r.tally.sum_edge / r.rounds
    frame = exposure(PAIRS[:1], shoes=2, seed=3).to_dataframe()
    assert "mean_player_expected_return" in frame.columns and "mean_edge" not in frame.columns
