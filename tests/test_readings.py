"""Readings the regulation leaves open: each stated, each with its alternative, each named by its clause."""

from __future__ import annotations

from fractions import Fraction

from click.testing import CliRunner

from exactodds.analyses.analysis import analyze
from exactodds.cli import cli
from exactodds.engine.distribution import deal
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import load_catalogue

CAT = load_catalogue()
SHOE = Shoe.decks(8)


def _tie_of_sixes() -> Fraction:
    counts = deal(SHOE).point_counts()
    return Fraction(sum(n for (p, b, _pc, _bc), n in counts.items() if p == b == 6), SHOE.sequences)


def test_627b_2_c_3_lucky_six_loses_on_a_6_6_tie_and_the_push_alternative_returns_it():
    lucky = CAT["lucky-six"]
    assert "6-6 tie" in lucky.reading and "loss" in lucky.reading
    base = analyze(SHOE, wagers=["lucky-six"])[0]
    push = analyze(SHOE, wagers=["lucky-six"], alternatives={"lucky-six": "six-tie-pushes"})[0]
    tie = _tie_of_sixes()
    assert tie > 0
    # a push instead of a loss on exactly those rounds: the return rises by their probability
    assert push.expected_return - base.expected_return == tie
    assert push.push_frequency == tie and base.push_frequency == 0
    assert "six_tie" not in [ln.id for ln in base.lines]


def test_627b_3_e_royal_9_ranks_a_meter_above_dollar_awards_or_by_amount():
    r9 = CAT["royal-9-progressive"]
    assert "meter ranks above every dollar award" in r9.reading
    table = r9.paytable("$5")
    base = analyze(SHOE, wagers=["royal-9-progressive"], paytables=["$5"])[0]
    by_amount = analyze(SHOE, wagers=["royal-9-progressive"], paytables=["$5"],
                        alternatives={"royal-9-progressive": "highest-by-amount"})[0]
    b = {ln.id: ln.combinations for ln in base.lines}
    a = {ln.id: ln.combinations for ln in by_amount.lines}
    # seat 1 owns the suited K♠9♠: against a suited Royal 9 it now pays $1,500, not a $450 meter
    moved = b["minor"] - a["minor"]
    assert moved > 0 and b["major"] - a["major"] == moved
    assert a["suited_tie"] - b["suited_tie"] == 2 * moved
    assert a["mega"] == b["mega"] and sum(a.values()) == sum(b.values()) == SHOE.sequences
    # a meter above the $1,500 award pays the meter again, as under the regulation's reading
    high = r9.with_rank_meters("$5", {"J_mega": 10_000, "J_major": 400, "J_minor": 400})
    from exactodds.analyses.pricing import price

    again = price(high, table, deal(SHOE))
    assert {ln.id: ln.combinations for ln in again.lines} == b


def test_631b_3_f_4_the_mixed_7s_reading_is_labelled_implausible_and_cover_all_follows_it():
    blazing = CAT["blazing-7s"]
    assert blazing.alternatives["mixed-7s-as-3-card"].implausible
    priced = analyze(SHOE, wagers=["blazing-7s", "cover-all"], paytables=["A"],
                     alternatives={"blazing-7s": "mixed-7s-as-3-card"})
    assert [r.wager.reading_id for r in priced] == ["mixed-7s-as-3-card"] * 2
    assert priced[0].house_edge < -3                     # the player's edge that makes it implausible
    plain = analyze(SHOE, wagers=["cover-all"], paytables=["A"])[0]
    assert priced[1].house_edge != plain.house_edge
    out = CliRunner().invoke(cli, ["analyze", "--wager", "blazing-7s", "--alternative",
                                   "blazing-7s=mixed-7s-as-3-card"])
    assert out.exit_code == 0 and "IMPLAUSIBLE READING" in out.output
    listed = CliRunner().invoke(cli, ["list"]).output
    assert "mixed-7s-as-3-card (implausible)" in listed


def test_627b_3_hit_frequency_counts_every_jackpot():
    """A meter is never below its reset, so even a share paid 'for 1' is a win (6.9951%, not 6.8469%)."""
    r = analyze(SHOE, wagers=["royal-9-progressive"], paytables=["$5"])[0]
    assert r.hit_frequency == sum((ln.probability for ln in r.lines if ln.id != "lose"), Fraction(0))
    assert f"{float(r.hit_frequency):.4%}" == "6.9951%"


def test_627b_3_f_2_the_long_run_line_names_increment_and_reseed():
    out = CliRunner().invoke(cli, ["progressive", "--wager", "heavenly-9-progressive"]).output
    line = next(ln for ln in out.splitlines() if ln.startswith("Long-run RTP"))
    assert "increment" in line and "reseed" in line
