"""Pays as the regulations write them."""

from __future__ import annotations

from fractions import Fraction

import pytest

from exactodds import ExactOddsError, parse_pay


@pytest.mark.parametrize(
    ("text", "net"),
    [
        ("30 to 1", Fraction(30)),        # N to 1 pays N and returns the wager
        ("299 for 1", Fraction(298)),     # N for 1 returns N in all
        ("1,000 for 1", Fraction(999)),
        ("1 to 2", Fraction(1, 2)),       # §627b.2(i)
        ("2.5 to 1", Fraction(5, 2)),     # §631b.7(d)
        ("push", Fraction(0)),
        ("Push", Fraction(0)),
        ("1 to 1 less 5% vigorish", Fraction(19, 20)),   # §627a.12(c)
    ],
)
def test_pay_forms(text: str, net: Fraction) -> None:
    assert parse_pay(text).net == net


def test_dollar_award_on_a_stated_denomination() -> None:
    assert parse_pay("$1,500", denomination=5).net == 300
    with pytest.raises(ExactOddsError, match="states no denomination"):
        parse_pay("$1,500")


def test_not_offered() -> None:
    assert not parse_pay("N/A").offered


def test_progressive_share_is_a_symbol() -> None:
    import sympy

    pay = parse_pay("100% of progressive")
    assert pay.symbolic and pay.net.to_sympy() == sympy.Symbol("J", positive=True)
    assert parse_pay("100% Mega Jackpot").net.to_sympy() == sympy.Symbol("J_mega", positive=True)


@pytest.mark.parametrize("text", ["30 too 1", "thirty to 1", "30 to 0", "", "1 to 1 less 150% vigorish"])
def test_unknown_pay_forms(text: str) -> None:
    with pytest.raises(ExactOddsError):
        parse_pay(text)
