"""Issue 28, item 1: the paytable designer, against closed forms and a brute force over every paytable."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest

from exactodds import load_catalogue
from exactodds.analyses.analysis import load_text
from exactodds.analyses.designer import design
from exactodds.analyses.pricing import price
from exactodds.engine import deal
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe

from .test_cli import run

EIGHT = Shoe.decks(8)


def test_a_one_outcome_bet_lands_on_the_pay_whose_edge_is_the_target() -> None:
    """The Tie: edge(N to 1) = 1 - (N + 1) P(tie); asked for that edge exactly, the designer pays N to 1."""
    tie = load_catalogue()["tie"]
    p_tie = next(ln.probability for ln in price(tie, tie.paytable("8-to-1"), deal(EIGHT)).lines if ln.id == "tie")
    for n in (Fraction(7), Fraction(17, 2), Fraction(12)):
        d = design(tie, tie.paytable("8-to-1"), EIGHT, target_edge=1 - (n + 1) * p_tie, tolerance=Fraction(0))
        assert d.best.pays["tie"] == n and d.best.edge == 1 - (n + 1) * p_tie and d.complete


def _brute(c: list[int], base: list[Fraction], lose: int, total: int, target: Fraction, highest: int,
           tolerance: Fraction, top: int) -> list[tuple[Fraction, Fraction, tuple[int, ...]]]:
    """Every paytable in whole numbers 1..highest, rarer paying at least as much (c sorted most common
    first), within the tolerance (widened tenfold as the designer does), nearest the base first."""
    within = tolerance
    while True:
        found = []
        for ks in itertools.product(range(1, highest + 1), repeat=len(c)):
            if any(ks[i] > ks[i + 1] for i in range(len(ks) - 1)):
                continue
            edge = Fraction(lose - sum(ci * k for ci, k in zip(c, ks)), total)
            if abs(edge - target) <= within:
                found.append((sum(abs(k - b) / b for k, b in zip(ks, base)), abs(edge - target), ks))
        if found:
            return sorted(found)[:top]
        within *= 10


@pytest.mark.parametrize("target", [Fraction(25, 1000), Fraction(1, 10), Fraction(-1, 100)])
def test_the_search_finds_what_a_brute_force_over_every_paytable_finds(target: Fraction) -> None:
    """Perfect Pairs (three outcomes), whole pays up to 40 to 1: the branch and bound's best five are the
    brute force's, in the same order, with the same exact edges."""
    pp = load_catalogue()["perfect-pairs-player"]
    table = pp.paytable("A")
    r = price(pp, table, deal(EIGHT))
    lines = sorted((ln for ln in r.lines if ln.id != "lose"), key=lambda ln: (-ln.combinations, ln.id))
    c = [ln.combinations for ln in lines]
    base = [table.pays[ln.id].net for ln in lines]
    lose = next(ln.combinations for ln in r.lines if ln.id == "lose")
    want = _brute(c, base, lose, r.total, target, 40, Fraction(1, 10_000), 5)
    got = design(pp, table, EIGHT, target_edge=target, max_pay=Fraction(40), step=Fraction(1), top=5)
    assert [tuple(int(d.pays[ln.id]) for ln in lines) for d in got.designs] == [ks for _, _, ks in want]
    assert [d.change for d in got.designs] == [dist for dist, _, _ in want]
    for k, d in enumerate(got.designs):                     # written as a paytable file, priced back exactly
        cat = load_catalogue().merged(load_text(got.paytable_toml(paytable_id=f"d{k}", k=k), source="d.toml"))
        assert -price(cat[pp.id], cat[pp.id].paytable(f"d{k}"), deal(EIGHT)).expected_return == d.edge


def test_constraints_hold_and_the_written_paytable_prices_back(tmp_path: Path) -> None:
    out = tmp_path / "d.toml"
    code, shown, err = run("design", "--wager", "dragon-bonus-banker:A", "--target-edge", "3%", "--max-pay", "60",
                           "--max-sd", "3", "--format", "json", "--output", str(out))
    assert code == 0, err
    data = json.loads(shown)
    cat = load_catalogue()
    combos = {o["id"]: o["combinations"] for o in data["outcomes"]}
    for d in data["designs"]:
        nets = {k: Fraction(v.split(" to ")[0]) if v != "push" else None for k, v in d["pays"].items()}
        assert nets["natural_tie"] is None                                   # the push kept
        paid = [k for k, v in nets.items() if v is not None]
        assert all(Fraction(2) * nets[k] == int(2 * nets[k]) and 0 < nets[k] <= 60 for k in paid)  # halves
        assert all(nets[a] >= nets[b] for a in paid for b in paid if combos[a] < combos[b])         # rarer pays more
        assert float(d["standard_deviation"]) <= 3
    code, priced, _ = run("analyze", "--paytables", str(out), "--format", "json")
    back = json.loads(priced)
    edge = next(t for t in back["wagers"] if t["paytable"] == "designed")["house_edge"]
    assert code == 0 and edge == data["designs"][0]["house_edge"] and "house edge" in err
    assert cat["dragon-bonus-banker"]                                      # the catalogue itself unchanged


@pytest.mark.parametrize(("args", "message"), [
    (["design", "--wager", "tie", "--target-edge", "two"], "--target-edge: 'two' is not a number"),
    (["design", "--wager", "heavenly-9-progressive", "--target-edge", "2%"], "not meters or dollar amounts"),
    (["design", "--wager", "tie", "--target-edge", "2%", "--max-pay", "0.2"], "below the smallest pay"),
    (["design", "--wager", "tie", "--target-edge", "150%"], "between -100% and 100%"),
    (["design", "--wager", "no-such", "--target-edge", "2%"], "unknown wager 'no-such'"),
    (["design", "--wager", "tie", "--wager", "banker", "--target-edge", "2%"], "--wager given twice"),
    (["design", "--target-edge", "2%"], "give --wager WAGER[:PAYTABLE]"),
])
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


@pytest.mark.parametrize(("paytable_id", "message"), [
    ("a b", "--id 'a b' holds ' ' at position 2"),
    ('a"b', "--id 'a\"b' holds '\"' at position 2"),          # wrote a file that was not TOML, blamed on the file
    ("x" * 65, "is 65 characters long; an id has at most 64"),
    ("x" * 100_000, "is 100,000 characters long"),
    ("𝓭𝓮𝓼𝓲𝓰𝓷", "holds '𝓭' at position 1"),
    ("", "--id: an empty id"),
    ("8-TO-1", "--id 8-TO-1: wager 'tie' already has a paytable '8-to-1'"),
])
def test_i40_a_bad_id_is_named_as_id_and_nothing_is_written(tmp_path: Path, paytable_id: str, message: str) -> None:
    """Issue 40, item 6: ``--id`` was checked only when the written file was read back, so the error named the
    output file the user never wrote (``d.toml: not valid TOML``); an id of any length was taken."""
    out = tmp_path / "d.toml"
    code, stdout, err = run("design", "--wager", "tie", "--target-edge", "5%", "--output", str(out),
                            "--id", paytable_id)
    assert code == 2 and stdout == "" and err.count("\n") == 1 and message in err, err
    assert str(out) not in err and list(tmp_path.iterdir()) == []


def test_i40_the_designer_writes_only_an_id_a_file_can_hold() -> None:
    tie = load_catalogue()["tie"]
    d = design(tie, tie.paytable("8-to-1"), EIGHT, target_edge=Fraction(5, 100))
    assert 'id = "my.best-1"' in d.paytable_toml(paytable_id="my.best-1")
    with pytest.raises(ExactOddsError, match="paytable_id 'x\"' holds"):
        d.paytable_toml(paytable_id='x"')


def _p_tie() -> Fraction:
    return Fraction(deal(EIGHT).main_game()["tie"], EIGHT.sequences)


def test_a_best_paytable_on_the_players_side_is_said_in_words_and_warned_of() -> None:
    """Tie at -5%: 10 to 1 is nearest (edge 1 - 11 P(tie) < 0), the player's side, and 0.33% off the target."""
    code, out, err = run("design", "--wager", "tie", "--target-edge", "-5%", "--top", "1", "--format", "json")
    data = json.loads(out)
    (best,) = data["designs"]
    assert code == 0 and best["pays"] == {"tie": "10 to 1"} and Fraction(best["house_edge"]) == 1 - 11 * _p_tie() < 0
    assert [c.split(":")[0] for c in data["cautions"]] == ["the best paytable gives the player the edge",
                                                            "the best paytable is +0.3284% off the target -5.0000%, "
                                                            "more than 10 times the tolerance asked (0.0100%)"]
    assert err.splitlines() == [f"exactodds: warning: design: {c}" for c in data["cautions"]]
    text = run("design", "--wager", "tie", "--target-edge", "-5%", "--top", "1")[1]
    assert "-4.6716% (the player has the edge)" in text and "Caution: the best paytable gives the player" in text


def test_a_paytable_on_target_has_no_caution_and_the_heading_says_its_order() -> None:
    code, out, err = run("design", "--wager", "dragon-bonus-banker:A", "--target-edge", "2.5%", "--top", "4")
    assert code == 0 and err == "" and "Caution" not in out
    assert ("Paytables within 0.0100% of the target, in order of change from paytable 'A' (fewest changes first), "
            "then nearest the target") in out
    data = json.loads(run("design", "--wager", "dragon-bonus-banker:A", "--target-edge", "2.5%", "--top", "4",
                          "--format", "json")[1])
    changes = [Fraction(d["change"]) for d in data["designs"]]
    assert changes == sorted(changes) and data["cautions"] == []            # the order the heading says
    assert Fraction(data["target_house_edge"]) == Fraction(1, 40)


@pytest.mark.parametrize("written", ["0.5", "0.1", "-0.25", " 0.5 "])
def test_a_target_written_as_a_bare_number_from_10_percent_up_is_asked_about(written: str) -> None:
    code, out, err = run("design", "--wager", "tie", "--target-edge", written)
    value = Fraction(written.strip())
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"that is a house edge of {float(value):.4%}; write {float(value) * 100:g}% if you mean it" in err
    assert f"or {written.strip()}% for {written.strip()} percent" in err


def test_a_target_written_plainly_is_read_as_it_always_was() -> None:
    as_number = run("design", "--wager", "tie", "--target-edge", "0.05", "--format", "json")
    assert as_number[0] == 0 and as_number[1] == run("design", "--wager", "tie", "--target-edge", "5%", "--format",
                                                     "json")[1]
    assert run("design", "--wager", "tie", "--target-edge", "50%")[0] == 0         # written with %: meant
