"""Positions (exactodds.analyses.positions): several wagers on one round, one exact joint distribution."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from exactodds.analyses.positions import parse_stake, position
from exactodds.analyses.pricing import price
from exactodds.cli import cli
from exactodds.engine.distribution import deal
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import load_catalogue

CAT = load_catalogue()
SHOE = Shoe.decks(8)
DEPLETED = Shoe.decks(6).remove("9s", "9h", "Ks", "Kd", "Qh", "Jc", "5d", "5d")

POSITIONS = {
    "Banker 25 + Dragon 7 5 + Panda 8 5": [("banker", "standard", 25), ("dragon-7-insurance", "standard", 5),
                                          ("panda-8-insurance", "standard", 5)],
    "627a.7(a)(4) Dragon Bonus on both hands": [("dragon-bonus-player", "A", 10), ("dragon-bonus-banker", "A", 10)],
    "631b.9(e) Golden Talons on both hands": [("golden-talons-player", "C", 5), ("golden-talons-banker", "C", 5)],
    "631b.7(b) Majestic Match on both hands": [("majestic-match-player", "standard", 5),
                                               ("majestic-match-banker", "standard", 5)],
    "Tie at both paytables with the Player": [("player", "standard", 10), ("tie", "8-to-1", 1), ("lucky-six", "standard", 2)],
}


@pytest.mark.parametrize("name", list(POSITIONS))
@pytest.mark.parametrize("shoe", [SHOE, DEPLETED], ids=["8 decks", "depleted 6 decks"])
def test_marginals_equal_each_wagers_own_distribution(name, shoe):
    p = position(shoe, POSITIONS[name])
    dist = deal(shoe)
    for line in p.lines:
        own = price(line.wager, line.paytable, dist)
        assert line.outcomes == {ln.id: ln.combinations for ln in own.lines if ln.combinations}
        assert line.expected == own.expected_return and line.variance == own.variance
    assert sum(p.joint.values()) == sum(p.distribution.values()) == shoe.sequences


@pytest.mark.parametrize("name", list(POSITIONS))
def test_variance_of_the_sum_is_variances_plus_twice_covariances(name):
    p = position(SHOE, POSITIONS[name])
    a = p.stakes
    k = len(a)
    by_parts = sum((a[i] ** 2 * p.covariance[i][i] for i in range(k)), Fraction(0)) + 2 * sum(
        (a[i] * a[j] * p.covariance[i][j] for i in range(k) for j in range(i + 1, k)), Fraction(0))
    assert p.variance == by_parts
    assert p.expected_value == sum((ai * ln.expected for ai, ln in zip(a, p.lines)), Fraction(0))
    assert all(p.covariance[i][j] == p.covariance[j][i] for i in range(k) for j in range(k))


def test_dragon_bonus_on_both_hands_never_wins_twice():
    """§627a.7(a)(4): one hand wins; a natural tie pushes both bets."""
    p = position(SHOE, POSITIONS["627a.7(a)(4) Dragon Bonus on both hands"])
    for (player, banker), n in p.joint.items():
        assert not (player not in ("lose", "natural_tie") and banker not in ("lose", "natural_tie")), (player, banker)
    assert max(p.distribution) < 10 * 30 + 10        # one 30-to-1 win at most, the other bet lost


def test_progressive_needs_its_meter_and_mystery_adds_its_long_run_value():
    with pytest.raises(ExactOddsError, match="--meter J"):
        position(SHOE, [("heavenly-9-progressive", None, 5)])
    p = position(SHOE, [("heavenly-9-progressive", None, 5), ("banker", None, 5)], meters={"J": Fraction(2000)})
    q = position(SHOE, [("heavenly-9-progressive", None, 5), ("banker", None, 5)], meters={"J": Fraction(2000)},
                 mystery=["A-$5"])
    from exactodds.analyses.progressive import load_meters, mystery_return

    spec = load_meters()[1]["A-$5"]
    assert q.expected_value - p.expected_value == mystery_return(spec).return_per_unit * 5
    assert q.variance == p.variance
    with pytest.raises(ExactOddsError, match="no qualifying wager"):
        position(SHOE, [("banker", None, 5)], mystery=["A-$5"])


def test_wagers_that_no_table_reads_together_are_refused():
    with pytest.raises(ExactOddsError, match="cannot be read off one table"):
        position(SHOE, [("harmony-progressive", "A", 1), ("perfect-pairs-player", "A", 1)], meters={"J": Fraction(9)})


def test_parse_stake():
    assert parse_stake("banker") == ("banker", None, Fraction(1))
    assert parse_stake("tie:9-to-1=2.50") == ("tie", "9-to-1", Fraction(5, 2))
    with pytest.raises(ExactOddsError, match="above"):
        parse_stake("tie=0")


def test_cli_position():
    out = CliRunner().invoke(cli, ["position", "--wager", "banker=25", "--wager", "dragon-7-insurance=5",
                                   "--wager", "panda-8-insurance=5", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert sum(d["combinations"] for d in data["distribution"]) == data["total"]
    assert len(data["covariance_per_unit"]) == 3 and data["ranges"][0]["rounds"] == 100
    text = CliRunner().invoke(cli, ["position", "--wager", "banker=25", "--wager", "dragon-7-insurance=5"]).output
    assert "Volatility index" in text and "Covariance" in text
    bad = CliRunner().invoke(cli, ["position", "--wager", "banker:nope=5"])
    assert bad.exit_code == 2 and "no paytable 'nope'" in bad.output


# -- many wagers: mean, variance and covariances from pairwise tables (issue 23) ----------------------

EIGHT = ["banker=25", "player=25", "tie=5", "dragon-7-insurance=5", "panda-8-insurance=5", "lucky-six=5",
         "player-pair=5", "banker-pair=5"]
FITTING = {
    **POSITIONS,
    "Banker with a Player Pair and Dragon 7": ["banker=25", "player-pair=5", "dragon-7-insurance=5"],
    "Pairs, Lucky Nines and a Majestic Match": ["player-pair=5", "banker-pair=5", "perfect-pairs-both=1",
                                                "lucky-nines=1", "majestic-match-player=2"],
    "Player, Panda 8 and a Banker Pair": ["player=10", "panda-8-insurance=2", "banker-pair=3", "tie=1"],
}


def _net(line, outcome: str) -> Fraction:
    return Fraction(-1) if outcome == "lose" else line.paytable.pays[outcome].net


@pytest.mark.parametrize("name", list(FITTING))
@pytest.mark.parametrize("shoe", [Shoe.decks(6), DEPLETED], ids=["6 decks", "depleted 6 decks"])
def test_pairwise_mean_and_variance_equal_the_full_joint_table(name, shoe):
    """Mean, variance and every covariance from tables of two wagers equal those of the one table over all."""
    p = position(shoe, FITTING[name])
    assert p.distribution is not None and p.joint is not None and not p.note
    total = p.total
    assert sum(p.joint.values()) == total
    mean = sum((v * n for v, n in p.distribution.items()), Fraction(0)) / total
    assert p.expected_value == mean
    assert p.variance == sum((n * (v - mean) ** 2 for v, n in p.distribution.items()), Fraction(0)) / total
    nets = [{o: _net(ln, o) for o in {k[i] for k in p.joint}} for i, ln in enumerate(p.lines)]
    means = [sum((nets[i][k[i]] * n for k, n in p.joint.items()), Fraction(0)) / total for i in range(len(p.lines))]
    for i in range(len(p.lines)):
        assert p.lines[i].expected == means[i]
        for j in range(len(p.lines)):
            joint = sum((nets[i][k[i]] * nets[j][k[j]] * n for k, n in p.joint.items()), Fraction(0)) / total
            assert p.covariance[i][j] == joint - means[i] * means[j]


def test_eight_wagers_on_eight_decks_run_in_bounded_memory(tmp_path):
    """The 8-deck position of eight wagers (killed at 24 GB before) finishes under a 2 GiB address-space
    limit, with exact moments and a note that the distribution of the net was not tabulated."""
    import os
    import subprocess
    import sys

    script = ("import resource, sys\n"
              "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
              "from exactodds.cli import main\n"
              "sys.argv = ['exactodds', 'position', '--format', 'json', *sys.argv[1:]]\n"
              "main()\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "OPENBLAS_NUM_THREADS": "1"}
    r = subprocess.run([sys.executable, "-c", script, *EIGHT], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["distribution"] is None and data["joint"] is None
    assert data["note"].startswith("Net result not tabulated")
    a = [Fraction(s["stake"]) for s in data["stakes"]]
    cov = [[Fraction(c) for c in row] for row in data["covariance_per_unit"]]
    assert Fraction(data["variance"]) == sum(a[i] * a[j] * cov[i][j] for i in range(8) for j in range(8))
    banker = price(CAT["banker"], CAT["banker"].paytable("standard"), deal(SHOE))
    assert Fraction(data["stakes"][0]["player_expected_return"]) == banker.expected_return
    assert Fraction(data["stakes"][0]["variance_per_unit"]) == banker.variance


def test_banker_with_both_pairs_gives_exact_moments_and_says_the_net_is_not_tabulated():
    """`position banker player-pair banker-pair` on 8 decks was killed at 24 GB: now exact moments, a note,
    and a CSV of the untabulated distribution is refused in one line."""
    r = CliRunner().invoke(cli, ["position", "--wager", "banker", "--wager", "player-pair", "--wager", "banker-pair"])
    assert r.exit_code == 0 and "Net result not tabulated" in r.stdout and "Net result of the round" not in r.stdout
    p = position(SHOE, ["banker", "player-pair", "banker-pair"])
    dist = deal(SHOE)
    for line in p.lines:
        assert line.expected == price(line.wager, line.paytable, dist).expected_return
    assert p.expected_value == sum((ln.expected for ln in p.lines), Fraction(0))
    r = CliRunner().invoke(cli, ["position", "--wager", "banker", "--wager", "player-pair", "--wager", "banker-pair", "--format", "csv"])
    assert r.exit_code == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "not tabulated" in r.stderr
