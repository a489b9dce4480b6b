"""The condition language (exactodds.wagers.conditions) against plain Python, on every deal of small shoes.

The compiler builds NumPy evaluators from a checked condition; the reference here is CPython's own
evaluation of the same text on one round's features at a time (``min``/``max`` of one argument
read as that argument). Rounds come from tests/brute.py, which deals card identities one by one
from shoes with unequal suits. Number columns are handed to the compiler as int8 on purpose: its
arithmetic must never wrap around.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings

from exactodds.analyses.pricing import price
from exactodds.engine.distribution import deal
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import Outcome, Paytable, Wager
from exactodds.wagers.conditions import Condition
from exactodds.wagers.outcomes import FEATURE_TYPES, INITIAL_FEATURES, VALUE_LEVEL
from exactodds.wagers.pays import parse_pay

from . import brute
from .strategies import conditions, loose_conditions

#: Small shoes with unequal suits and ranks: pairs, a King and Queen, nines, naturals and third cards.
SHOES = ({"9s": 2, "9h": 1, "Kd": 1, "Qs": 1, "5c": 1, "3h": 1, "Ad": 1},
         {"As": 2, "Ah": 1, "4d": 1, "6s": 1, "8h": 1, "Jc": 1, "10d": 1})

EXAMPLES = settings(max_examples=2000, deadline=None, database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def deals(shoe_index: int = -1) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Every distinct round of the shoes (-1: all of them), as feature rows, with their 6-card weights."""
    indices = range(len(SHOES)) if shoe_index < 0 else [shoe_index]
    rows: dict[tuple[Any, ...], int] = {}
    for k in indices:
        for cards, rnd, weight in brute.rounds(Shoe.from_card_counts(SHOES[k])):
            key = (k, *sorted(brute.all_features(cards, rnd).items()))
            rows[key] = rows.get(key, 0) + weight
    return [dict(key[1:]) for key in rows], np.array(list(rows.values()), dtype=object)


@functools.cache
def columns() -> dict[str, np.ndarray]:
    rows, _ = deals()
    dtype = {"number": np.int8, "yes/no": np.bool_, "text": np.str_}
    return {name: np.array([r[name] for r in rows], dtype=dtype[FEATURE_TYPES[name]]) for name in FEATURE_TYPES}


def reference(text: str) -> Callable[[dict[str, Any]], bool]:
    """Plain Python: the condition's text evaluated on one round at a time."""
    code = compile(text, "<condition>", "eval")
    env = {"__builtins__": {}, "abs": abs, "min": lambda *a: min(a), "max": lambda *a: max(a)}
    return lambda row: eval(code, env, row)  # noqa: S307 - the tests' own generated text


def assert_agrees(cond: Condition, text: str) -> None:
    rows, weights = deals()
    python = reference(text)
    got = cond.mask(columns(), len(rows))
    want = np.array([bool(python(row)) for row in rows])
    if (got != want).any():
        i = int(np.flatnonzero(got != want)[0])
        shown = {n: rows[i][n] for n in sorted(cond.names)}
        pytest.fail(f"{text!r}: compiled {bool(got[i])}, Python {bool(want[i])} on the round {shown}")
    assert sum(weights[got]) == sum(weights[want])
    for row in rows[:: max(1, len(rows) // 25)]:              # the one-round path (settle_row) too
        assert cond(row) == bool(python(row)), text


@pytest.mark.slow
@EXAMPLES
@given(conditions())
def test_every_generated_condition_is_accepted_and_agrees_with_python_on_every_deal(text: str) -> None:
    """2,000 random conditions of the grammar: numbers, text, every-card features, nested arithmetic,
    %, abs, min/max of 1-6 arguments, chained comparisons, in, not."""
    assert_agrees(Condition.parse(text, where="generated"), text)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(loose_conditions())
def test_a_condition_outside_the_grammar_is_refused_in_one_line_never_evaluated_wrong(text: str) -> None:
    try:
        cond = Condition.parse(text, where="f.toml: wager 'w': outcome 'x'")
    except ExactOddsError as exc:
        assert str(exc).startswith("f.toml: wager 'w': outcome 'x': ") and "\n" not in str(exc)
        return
    rows, _ = deals()
    python = reference(text)
    try:
        for row in rows:
            python(row)
    except Exception as exc:                     # Python cannot evaluate it: the compiler must have refused
        pytest.fail(f"{text!r} was accepted, but Python cannot evaluate it: {exc!r}")
    assert_agrees(cond, text)


# -- the findings of issue 22, each a test --------------------------------------------------------

EIGHT_DECKS = Shoe.decks(8)


def one_outcome(text: str, *, wid: str = "generated") -> Wager:
    cond = Condition.parse(text, where=f"{wid}: outcome 'x'")
    return Wager(id=wid, name=wid, section="test", game="Minibaccarat", outcomes=(Outcome("x", "x", cond),),
                 paytables={"A": Paytable("A", "test", {"x": parse_pay("1 to 1")})}, source="test")


def combinations(wager: Wager, shoe: Shoe) -> int:
    return price(wager, wager.paytables["A"], deal(shoe)).lines[0].combinations


def test_max_of_three_arguments_counts_the_three() -> None:
    """max(a, b, c + 0) == 9 was priced as max(a, b) (NumPy's third argument is its output):
    740,263,247,845,632 on 8 decks; the count is that of a 9 among three cards."""
    from fractions import Fraction

    total = 416 * 415 * 414 * 413 * 412 * 411
    want = total * (1 - Fraction(384 * 383 * 382, 416 * 415 * 414))
    assert want == 1_069_394_457_712_896
    for text in ("max(player_value_1, player_value_2, banker_value_1 + 0) == 9",
                 "max(player_value_1, player_value_2, banker_value_1) == 9",
                 "max(player_value_1, max(player_value_2), banker_value_1, 0, -1, 9 - 9) == 9"):
        assert combinations(one_outcome(text), EIGHT_DECKS) == want, text


def test_min_and_max_take_any_number_of_arguments() -> None:
    row = {"player": 3, "banker": 7, "player_cards": 2, "banker_cards": 3}
    assert Condition.parse("min(player) == 3 and max(player, banker, player_cards, banker_cards) == 7",
                           where="t")(row)
    assert Condition.parse("min(player, banker, player_cards, banker_cards, 9, 8) == 2", where="t")(row)


def test_a_number_compared_with_values_in_parentheses_is_refused() -> None:
    """player == (9,) was priced as player == 9; Python says it is never true. It is not a condition."""
    with pytest.raises(ExactOddsError, match=r"only read by 'in'"):
        Condition.parse("player == (9,)", where="t")
    with pytest.raises(ExactOddsError, match=r"only read by 'in'"):
        Condition.parse("(player, banker) == (9, 9)", where="t")


def test_sums_of_narrow_columns_do_not_wrap_around() -> None:
    """Ranks are held as int16 (and int8 in these tests): a long sum is done in int64."""
    cond = Condition.parse(" + ".join(["player_rank_1"] * 20) + " == 260", where="t")
    got = cond.mask({"player_rank_1": np.array([13, 12], dtype=np.int8)}, 2)
    assert got.tolist() == [True, False]


def test_a_condition_that_reads_no_feature_is_priced() -> None:
    """when = "True" used to stop with "compile_table needs at least one feature name"."""
    total = 416 * 415 * 414 * 413 * 412 * 411
    assert combinations(one_outcome("True"), EIGHT_DECKS) == total
    assert combinations(one_outcome("1 == 2"), EIGHT_DECKS) == 0


def test_an_index_outside_a_list_parameter_is_an_error_not_the_last_item() -> None:
    """Python reads combinations[-1] as the last item; a seat 0 must not price seat 9."""
    cond = Condition.parse("player_king_9 == combinations[seat - 1]", where="t",
                           parameters={"seat": 1, "combinations": ("K♠9♠", "K♥9♥")})
    row = {"player_king_9": "K♥9♥"}
    assert cond(row, {"seat": 2, "combinations": ("K♠9♠", "K♥9♥")})
    with pytest.raises(ExactOddsError, match="index -1 of 'combinations' is outside 0 to 1"):
        cond(row, {"seat": 0, "combinations": ("K♠9♠", "K♥9♥")})
    with pytest.raises(ExactOddsError, match="fixed by the wager's parameters"):
        Condition.parse("player_king_9 == combinations[player - 1]", where="t",
                        parameters={"combinations": ("K♠9♠",)})


@pytest.mark.parametrize("text", ["player * 2 == 4", "player / 2 == 4", "player ** 2 == 4", "player // 2 == 1",
                                  "player & 1 == 1", "player is 9", "player % 0 == 1", "player % banker == 1",
                                  "player == 10000000000", "player if tie else banker", "[player] == [9]",
                                  "player.real == 9", "f'{player}' == '9'", "player in player_cards",
                                  "player in (1, 2) in (3,)", "player_natural + 1 == 2", "abs() == 0",
                                  "min(player=1) == 1", "not player", "player_suit_1 < 's'", "'s' == 3"])
def test_constructs_outside_the_grammar_are_refused_in_one_line(text: str) -> None:
    with pytest.raises(ExactOddsError) as err:
        Condition.parse(text, where="bad.toml: wager 'w': outcome 'x'")
    assert str(err.value).startswith("bad.toml: wager 'w': outcome 'x': ") and "\n" not in str(err.value)


# -- the engine's tables read what the compiler reads ----------------------------------------------

#: What the engine's tables compile in moments: point values with the every-card features, or the
#: four initial cards' identities (ranks and suits of several positions are issue 23's).
_QUICK = (VALUE_LEVEL | {"same_suit", "same_colour", "same_rank"}, frozenset(INITIAL_FEATURES))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(conditions(depth=2))
def test_generated_conditions_priced_by_the_engine_equal_the_brute_force(text: str) -> None:
    cond = Condition.parse(text, where="generated")
    assume(any(cond.names <= quick for quick in _QUICK))
    wager = one_outcome(text)
    for k, cards in enumerate(SHOES):
        rows, weights = deals(k)
        python = reference(text)
        want = sum(w for row, w in zip(rows, weights) if python(row))
        try:
            got = combinations(wager, Shoe.from_card_counts(cards))
        except ExactOddsError as exc:            # a combination the engine cannot read is refused, clearly
            assert "cannot be read together" in str(exc), exc
            return
        assert got == want, f"{text!r} on shoe {cards}"


def test_a_parameter_keeps_the_type_its_conditions_were_checked_for() -> None:
    from exactodds.wagers.catalogue import load_catalogue

    royal = load_catalogue()["royal-9-progressive"]
    assert royal.with_parameters({"seat": 3}).parameters["seat"] == 3
    with pytest.raises(ExactOddsError, match="parameter 'seat' is number, not text"):
        royal.with_parameters({"seat": "3"})
    with pytest.raises(ExactOddsError, match="is an empty list"):
        Condition.parse("player_king_9 in combinations", where="t", parameters={"combinations": ()})


def test_a_condition_travels_to_worker_processes() -> None:
    """Exposure runs price wagers in other processes: a condition pickles as its text."""
    import pickle

    cond = Condition.parse("player_king_9 == combinations[seat - 1] and max(player, 1) == 9", where="t",
                           parameters={"seat": 2, "combinations": ("K♠9♠", "K♥9♥")})
    again = pickle.loads(pickle.dumps(cond))
    assert again == cond and again.declared == cond.declared
    row = {"player_king_9": "K♥9♥", "player": 9}
    assert again(row, {"seat": 2, "combinations": ("K♠9♠", "K♥9♥")})


# -- found by an audit as a new user: each was accepted and priced wrong, or accepted when it should not be --

def test_a_comment_in_a_condition_is_refused_not_allowed_to_hide_the_lines_after_it() -> None:
    """A multi-line when = \"\"\"player_wins  # ...\\n and player_natural\"\"\" priced player_wins alone."""
    for text in ("player_wins  # the Player's hand is higher\n and player_natural  # a natural",
                 "player_wins # and player_natural"):
        with pytest.raises(ExactOddsError, match="holds no comment"):
            Condition.parse(text, where="t")
    assert Condition.parse("player_suit_1 == 's' and '#' != 'x'", where="t").names == {"player_suit_1"}


def test_a_number_parameter_is_bounded_so_no_sum_overflows() -> None:
    """n = 2**63 - 1 made player_value_1 + n > 0 false on 9 of 13 cards; 2**70 was a traceback."""
    for n in (2**63 - 1, -2**63, 2**70, 10**9 + 1):
        with pytest.raises(ExactOddsError, match="at most 1,000,000,000"):
            Condition.parse("player_value_1 + n > 0", where="t", parameters={"n": n})
    cond = Condition.parse("player_value_1 + n > 0", where="t", parameters={"n": 10**9})
    assert cond({"player_value_1": 0}, {"n": 10**9})


@pytest.mark.parametrize("text,parameters,message", [
    ("player_suit_1 == suit", {"suit": "H"}, "'H' (suit) is not a value of 'player_suit_1'"),
    ("player_king_9 == combinations[seat - 1]", {"seat": 1, "combinations": ("9♠K♠",)},
     "'9♠K♠' (combinations[seat - 1]) is not a value of 'player_king_9'"),
    ("player_king_9 in combinations", {"combinations": ("K♠9♠", "Q♠9♠")}, "'Q♠9♠' (combinations) is not a value"),
    ("'H' in (player_suit_1, player_suit_2)", {}, "'H' is not a value of 'player_suit_1'"),
    ("player_suit_1 == player_pair", {}, "never equal"),
])
def test_text_never_equal_to_the_feature_it_is_compared_with_is_refused(text: str, parameters: dict,
                                                                       message: str) -> None:
    with pytest.raises(ExactOddsError) as err:
        Condition.parse(text, where="t", parameters=parameters)
    assert message in str(err.value)


def test_set_with_a_card_pair_no_king_nine_takes_is_refused() -> None:
    """--set royal-9-progressive:combinations=9sKs,Kh9h priced every seat outcome at 0, exit 0."""
    from click.testing import CliRunner

    from exactodds.cli import cli

    r = CliRunner().invoke(cli, ["analyze", "--wager", "royal-9-progressive:$5", "--set",
                                 "royal-9-progressive:combinations=9sKs,Kh9h", "--format", "csv"])
    assert r.exit_code == 2 and "is not a value of 'player_king_9'" in r.stderr, r.output
    ok = CliRunner().invoke(cli, ["analyze", "--wager", "royal-9-progressive:$5", "--set",
                                  "royal-9-progressive:combinations=Ks9s,Kh9h", "--format", "csv"])
    assert ok.exit_code == 0, ok.output


@pytest.mark.parametrize(("text", "words"), [
    ("𝓹𝓵𝓪𝔂𝓮𝓻 == 9", "'𝓹𝓵𝓪𝔂𝓮𝓻' is not a name a condition reads (it looks like 'player')"),
    ("ｐｌａｙｅｒ == 9", "(it looks like 'player')"),
    ("player == 9 and ｔｉｅ", "(it looks like 'tie')"),
    ("ｍａｘ(player, banker) == 9", "(it looks like 'max')"),
    ("player == 9 and ñ == 1", "'ñ' is not a name a condition reads: names are written in ASCII"),
])
def test_i40_a_name_is_ascii_not_a_look_alike_python_would_fold(text: str, words: str) -> None:
    """Issue 40, item 8: Python reads a name by its NFKC form, so '𝓹𝓵𝓪𝔂𝓮𝓻 == 9' priced as 'player == 9'."""
    with pytest.raises(ExactOddsError) as caught:
        Condition.parse(text, where="mine.toml: w")
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_i40_a_text_in_quotes_may_still_hold_any_character() -> None:
    """Only names are held to ASCII: a value in quotes is compared as written (and refused if no feature takes it)."""
    with pytest.raises(ExactOddsError, match="is not a value of 'player_suit_1'"):
        Condition.parse("player_suit_1 == '♠'", where="w")
    assert Condition.parse("player_suit_1 == 's'", where="w").names == {"player_suit_1"}


@pytest.mark.parametrize(("written", "meant"), [
    ("banker = 6", "banker == 6"),
    ("player = 9 and not banker_natural", "player == 9 and not banker_natural"),
])
def test_a_single_equals_sign_is_answered_with_use_double_equals(written: str, meant: str) -> None:
    with pytest.raises(ExactOddsError) as caught:
        Condition.parse(written, where="outcome 'six'")
    assert str(caught.value) == f"outcome 'six': '=' in a condition: use == to compare, as in {meant!r} (read {written!r})"
    Condition.parse(meant, where="outcome 'six'")           # what it says to write reads
