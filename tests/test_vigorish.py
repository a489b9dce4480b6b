"""§627a.12(c): the Banker's 5% vigorish at a bet size, rounded up to a multiple of 25¢."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from exactodds.analyses.analysis import analyze
from exactodds.analyses.vigorish import vigorish_table
from exactodds.cli import cli
from exactodds.engine.distribution import deal
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe
from exactodds.wagers.bet_size import at_bet, parse_dollars, vigorish
from exactodds.wagers.catalogue import load_catalogue

SHOE = Shoe.decks(8)


def test_627a_12_c_rounding_up_to_the_next_quarter():
    assert [vigorish(Fraction(b)) for b in (1, 4, 5, 6, 7, 10, 11)] == [
        Fraction(1, 4), Fraction(1, 4), Fraction(1, 4), Fraction(1, 2), Fraction(1, 2), Fraction(1, 2), Fraction(3, 4)]


def test_627a_12_c_multiples_of_5_dollars_are_not_changed_by_rounding():
    table = vigorish_table(SHOE, range(5, 101, 5))
    assert all(r.house_edge == r.unrounded_edge and r.charged == r.exact_vigorish for r in table)
    assert table[0].unrounded_edge == analyze(SHOE, wagers=["banker"])[0].house_edge


def test_627a_12_c_a_1_dollar_bet_by_hand():
    """$1 on the Banker: a win pays $1 less a 25¢ vigorish (5¢ rounded up), so it nets 75¢."""
    main = deal(SHOE).main_game()
    total = SHOE.sequences
    by_hand = -(Fraction(main["banker"], total) * Fraction(3, 4) - Fraction(main["player"], total))
    (row,) = vigorish_table(SHOE, [1])
    assert row.house_edge == by_hand
    assert f"{float(by_hand):.4%}" == "10.2299%"


def test_a_bet_size_between_quarters_costs_the_rounding_exactly():
    (row,) = vigorish_table(SHOE, [7])
    main = deal(SHOE).main_game()
    p_banker = Fraction(main["banker"], SHOE.sequences)
    # 35¢ owed, 50¢ charged: 15¢ more on each $7 win
    assert row.house_edge - row.unrounded_edge == p_banker * Fraction(15, 100) / 7


def test_analyze_set_bet_and_the_table_agree():
    out = CliRunner().invoke(cli, ["analyze", "--wager", "banker", "--set", "banker:bet=7", "--format", "json"])
    assert out.exit_code == 0, out.output
    edge = Fraction(json.loads(out.output)["wagers"][0]["house_edge"])
    assert edge == vigorish_table(SHOE, [7])[0].house_edge
    assert "rounded up" in json.loads(out.output)["wagers"][0]["reading"]


def test_the_certificate_carries_the_bet_and_verifies(tmp_path):
    from exactodds.documents.certificate import build, verify

    cert = build(shoes=[{"decks": 8, "remove": []}], selection=[("banker", "standard")], bet="7")
    assert cert["inputs"]["bet"] == "7"
    assert Fraction(cert["results"][0]["wagers"][0]["summary"]["house_edge"]) == vigorish_table(SHOE, [7])[0].house_edge
    ok, _ = verify(json.loads(json.dumps(cert)))
    assert ok
    cert["inputs"]["bet"] = "10"
    assert not verify(cert)[0]


@pytest.mark.parametrize("raw, words", [("0", r"above \$0"), ("abc", "not a dollar amount"), ("1.005", "cents"),
                                        ("-5", r"above \$0"), ("1e999", "at most")])
def test_bad_bets(raw, words):
    with pytest.raises(ExactOddsError, match=words):
        parse_dollars(raw, where="--bets")


def test_wagers_without_a_vigorish_refuse_a_bet_size():
    with pytest.raises(ExactOddsError, match="charges no vigorish"):
        at_bet(load_catalogue()["tie"], Fraction(5))
    out = CliRunner().invoke(cli, ["vigorish", "--wager", "player"])
    assert out.exit_code == 2 and "charges no vigorish" in out.output


def test_cli_vigorish_table():
    out = CliRunner().invoke(cli, ["vigorish", "--bets", "1,7.50,10", "--format", "csv"])
    assert out.exit_code == 0, out.output
    rows = out.output.splitlines()
    assert rows[0].startswith("bet,") and len(rows) == 4
    assert rows[3].split(",")[-1] == "0.0000000000"


@pytest.mark.parametrize("args, value", [
    (["certificate", "--wager", "banker", "--bet", "7,5"], "7,5"),
    (["analyze", "--wager", "banker", "--set", "banker:bet=7,5", "--summary"], "7,5"),
    (["analyze", "--wager", "banker", "--set", "banker:bet=,75", "--summary"], ",75"),
    (["position", "--wager", "banker=7,5"], "7,5"),
    (["position", "--wager", "banker=12,34,5"], "12,34,5"),
    (["mystery", "--minimum", "1,0", "--maximum", "10", "--rate", "0.1", "--bet", "1"], "1,0"),
    (["progressive", "--wager", "royal-9-progressive", "--bet", "7,5"], "7,5"),
    (["progressive", "--wager", "royal-9-progressive", "--meter", "J_mega=1,0"], "1,0"),
])
def test_f11_a_comma_that_is_not_a_thousands_separator_is_refused(args, value):
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 2, out.output
    (line,) = out.output.strip().splitlines()
    assert repr(value) in line and "comma" in line


def test_f11_a_comma_separates_thousands():
    assert parse_dollars("1,500", where="--bet") == 1500
    assert parse_dollars("$1,000.50", where="--bet") == Fraction(2001, 2)
    assert parse_dollars("1,000,000", where="--bet") == 10**6
    for bad in ("7,5", "1,0", ",75", "1,5000", "1,,000", "1,000,"):
        with pytest.raises(ExactOddsError, match="comma"):
            parse_dollars(bad, where="--bet")
    out = CliRunner().invoke(cli, ["analyze", "--wager", "banker", "--set", "banker:bet=1,500", "--format", "json"])
    plain = CliRunner().invoke(cli, ["analyze", "--wager", "banker", "--set", "banker:bet=1500", "--format", "json"])
    assert out.exit_code == 0 and out.output == plain.output


def test_f11_vigorish_bets_is_a_list_and_refuses_what_reads_as_one_amount():
    out = CliRunner().invoke(cli, ["vigorish", "--bets", "7,5", "--format", "csv"])
    assert out.exit_code == 0 and len(out.output.strip().splitlines()) == 3      # header, $7, $5
    out = CliRunner().invoke(cli, ["vigorish", "--bets", "1,500"])
    assert out.exit_code == 2 and "--bets '1,500'" in out.output and len(out.output.strip().splitlines()) == 1
