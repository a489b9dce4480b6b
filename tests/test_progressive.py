"""Progressive meters (sympy) and must-hit-by mystery meters, exactly."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from click.testing import CliRunner

from exactodds import Shoe, analyze, load_file
from exactodds.analyses.progressive import (
    MysterySpec,
    load_meters,
    long_run_return,
    mystery_return,
    progressive_analysis,
)
from exactodds.cli import cli


def analysis(wager: str, paytable: str, shoe: Shoe | None = None):
    (r,) = analyze(shoe or Shoe.decks(8), wagers=[wager], paytables=[paytable])
    return progressive_analysis(r, load_meters()[0].get((wager, paytable)))


def test_expression_at_a_meter_equals_a_plain_paytable(tmp_path: Path) -> None:
    """Heavenly 9 at J = 5000 wagers equals the same wager with '5000 for 1' written in."""
    a = analysis("heavenly-9-progressive", "standard")
    text = (Path(__file__).parent.parent / "exactodds" / "data" / "631b.toml").read_text(encoding="utf-8")
    start = text.index('id = "heavenly-9-progressive"')
    block = "[[wager]]\n" + text[start:text.index("[[wager]]", start)]
    plain = tmp_path / "plain.toml"
    plain.write_text(block.replace('"100% Progressive"', '"5000 for 1"').replace(
        'id = "heavenly-9-progressive"', 'id = "h9-at-5000"'), encoding="utf-8")
    (r,) = analyze(Shoe.decks(8), wagers=["h9-at-5000"], catalogue=load_file(plain))
    assert a.at({"J": Fraction(5000)}) == r.expected_return
    assert not r.symbolic


@pytest.mark.parametrize(("wager", "paytable"), [("heavenly-9-progressive", "standard"),
                                                 ("harmony-progressive", "E"), ("royal-9-progressive", "$1")])
def test_break_even_solves_to_exactly_zero(wager: str, paytable: str) -> None:
    a = analysis(wager, paytable)
    for symbol in a.coefficients:
        star = a.break_even(symbol, {s: Fraction(100) for s in a.coefficients if s != symbol})
        values = {s: Fraction(100) for s in a.coefficients} | {symbol: star}
        assert a.at(values) == 0
        assert sympy.expand(a.expression.to_sympy()).subs(
            {sympy.Symbol(s, positive=True): sympy.Rational(v.numerator, v.denominator)
             for s, v in values.items()}) == 0


def test_fixed_return_is_the_return_at_zero_meter() -> None:
    a = analysis("harmony-progressive", "A")
    assert a.at({"J": Fraction(0)}) == a.fixed_return
    top = a.result.lines[0]
    assert a.coefficients["J"] == top.probability          # E = a + p·J


def test_long_run_return_formulas() -> None:
    a = analysis("heavenly-9-progressive", "standard")
    p = a.coefficients["J"]
    house = long_run_return(a, wager=Fraction(5), increment={"J": Fraction(1, 10)}, reseed={"J": Fraction(10000)})
    assert house == 1 + a.fixed_return + p * 10000 / 5 + Fraction(1, 10)
    reserve = long_run_return(a, wager=Fraction(5), increment={"J": Fraction(1, 10)}, reserve={"J": Fraction(3, 100)})
    assert reserve == 1 + a.fixed_return + Fraction(1, 10) + Fraction(3, 100)
    balanced_seed = Fraction(3, 100) * 5 / p                  # R = q·w/p: both formulas agree
    assert long_run_return(a, wager=Fraction(5), increment={"J": Fraction(1, 10)},
                           reseed={"J": balanced_seed}) == reserve


def direct_summation(spec: MysterySpec) -> tuple[Fraction, Fraction]:
    """Walk the meter one wager at a time for every whole-cent hit point (no formula)."""
    d = spec.rate * spec.wager
    cents = int((spec.maximum - spec.minimum) * 100)
    total_k, total_award = 0, Fraction(0)
    for i in range(cents + 1):
        hit = spec.minimum + Fraction(i, 100)
        meter, k = spec.minimum, 0
        while meter <= hit:            # paid when a contribution takes the meter in excess of the hit point
            meter += d
            k += 1
        total_k += k
        total_award += meter
    n = cents + 1
    return Fraction(total_k, n), total_award / n


@pytest.mark.parametrize("rate", [Fraction(1, 50), Fraction(3, 200), Fraction(1, 200), Fraction(7, 100)])
def test_must_hit_by_formula_against_direct_summation(rate: Fraction) -> None:
    """A tiny worked example: $1 to $3 meter, $1 wagers, several contribution rates."""
    spec = MysterySpec("tiny", "tiny", "631b.6(c)(3)", Fraction(1), Fraction(1), Fraction(3), rate)
    k, award = direct_summation(spec)
    m = mystery_return(spec, whole_cents=True)
    assert m.wagers_between_hits == k and m.mean_award == award
    assert m.return_per_unit == award / k


def test_continuous_and_whole_cent_versions_are_close() -> None:
    for spec in load_meters()[1].values():
        a, b = mystery_return(spec), mystery_return(spec, whole_cents=True)
        assert abs(a.return_per_unit - b.return_per_unit) < Fraction(1, 10_000), spec.id
        assert a.from_contributions == spec.rate


def test_regulation_configurations_are_all_loaded() -> None:
    progressives, mysteries = load_meters()
    assert len([k for k in mysteries if not k.startswith("royal")]) == 12       # A-D x $1/$2/$5
    assert {k for k in mysteries if k.startswith("royal")} == {f"royal-9-{n}-${w}" for n in (1, 2, 3) for w in (1, 5)}
    assert progressives[("heavenly-9-progressive", "standard")].meters["J"].reseed == 10000
    assert progressives[("harmony-progressive", "H")].meters["J"].increment_rate == Fraction(19, 100)


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_cli_progressive_json() -> None:
    code, out, _ = run("progressive", "--wager", "heavenly-9-progressive", "--meter", "$25000", "--format", "json")
    assert code == 0
    data = json.loads(out)
    a = analysis("heavenly-9-progressive", "standard")
    assert Fraction(data["at"]["player_expected_return"]) == a.at({"J": Fraction(5000)})
    (meter,) = data["meters"]
    assert Fraction(meter["break_even_dollars"]) == a.break_even("J") * 5
    assert "long_run_rtp" in data


def test_cli_mystery() -> None:
    code, out, _ = run("mystery", "--format", "json")
    assert code == 0 and len(json.loads(out)["configurations"]) == 18
    code, out, _ = run("mystery", "--whole-cents")
    assert code == 0 and "whole-cent" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["progressive", "--wager", "heavenly-9-progressive", "--meter", "-5"], "a meter is from 0"),
        (["mystery", "--minimum", "100", "--maximum", "50", "--rate", "2%", "--bet", "1"],
         "--maximum 50: must be above --minimum 100"),                  # issue 40: the options named
        (["mystery", "--minimum", "100", "--maximum", "100", "--rate", "2%", "--bet", "1"],
         "--maximum 100: must be above --minimum 100"),
        (["mystery", "--minimum", "100", "--maximum", "500", "--rate", "0", "--bet", "1"],
         "--rate 0: must be above 0"),
        (["mystery", "--minimum", "100", "--maximum", "500", "--rate", "0%", "--bet", "1"],
         "--rate 0%: must be above 0"),
        (["mystery", "--minimum", "100", "--maximum", "500", "--rate", "100%", "--bet", "1"],
         "rate 100% is outside [0, 1)"),
        (["progressive", "--wager", "heavenly-9-progressive", "--increment", "-1%"], "outside [0, 1)"),
        (["progressive", "--wager", "banker"], "has no progressive award"),
        # issue 40: --bet bounded as analyze --bet is (1e999 ended in a traceback, 1e30 printed 36 digits)
        (["progressive", "--wager", "royal-9-progressive", "--bet", "1e999"], "--bet: a bet must be above $0 and at most $1,000,000,000"),
        (["progressive", "--wager", "royal-9-progressive", "--bet", "1e30"], "at most $1,000,000,000, got '1e30'"),
        (["progressive", "--wager", "royal-9-progressive", "--bet", "0"], "--bet: a bet must be above $0"),
        (["progressive", "--wager", "royal-9-progressive", "--bet", "5.001"], "--bet: a bet is a whole number of cents"),
    ],
)
def test_bad_progressive_input(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err
