"""Settlements written as amounts (issue 42): check-sim derives each round's outcome from its cards, checks the
amount paid against the paytable round by round, and shows the return paid beside the exact one; ``simulate
--bet`` writes such records and ``--fault mispay:WAGER`` a one-unit mispayment that must be flagged on its row."""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

from exactodds import load_catalogue
from exactodds.game.rules import play
from exactodds.game.cards import Card
from exactodds.simulation.amounts import amount_text, amounts_of, pays_per_stake

from .test_cli import run

HEADER = "player1,player2,player3,banker1,banker2,banker3"


def _simulate(path: Path, *extra: str) -> None:
    code, _, err = run("simulate", "--rounds", "20000", "--seed", "11", "--mode", "fresh", "--wager", "tie:8-to-1",
                       "--wager", "banker", "--bet", "7", "--output", str(path), "--quiet", *extra)
    assert code == 0, err


def _column(path: Path, name: str) -> list[str]:
    with path.open(newline="", encoding="utf-8") as fh:
        return [row[name] for row in csv.DictReader(fh)]


def test_simulate_writes_amounts_on_the_bet_and_check_sim_finds_them_right(tmp_path: Path) -> None:
    """A Tie pays 8 × $7 = $56, a Banker win $7 less a vigorish of 35¢ rounded up to 50¢ (§627a.12(c)): $6.50. The
    return paid is Σ amount / Σ stake, worked out here from the file; with no vigorish it is the cards' own."""
    path = tmp_path / "amounts.csv"
    _simulate(path)
    assert set(_column(path, "tie:8-to-1")) == {"56", "-7"} and set(_column(path, "stake")) == {"7"}
    assert set(_column(path, "banker:standard")) == {"6.5", "0", "-7"}
    code, out, err = run("check-sim", str(path), "--wager", "tie:8-to-1", "--wager", "banker", "--format", "json")
    data = json.loads(out)
    returns = {x["wager"]: x for x in data["returns"]}
    assert code == 0, err
    for key in ("tie:8-to-1", "banker:standard"):
        column = _column(path, key)
        assert Fraction(returns[key]["paid"]) == sum(map(Fraction, column), Fraction(0)) / (7 * len(column))
        assert returns[key]["verdict"] == "variance"
    assert returns["tie:8-to-1"]["paid"] == returns["tie:8-to-1"]["observed"]
    assert Fraction(returns["banker:standard"]["paid"]) < Fraction(returns["banker:standard"]["observed"])
    amounts = {t["wager"]: t for t in data["tests"] if t["test"] == "amounts"}
    assert set(amounts) == {"tie", "banker"} and not any(t["flagged"] for t in amounts.values())


def test_a_one_unit_mispayment_is_flagged_on_its_row(tmp_path: Path) -> None:
    path = tmp_path / "mispaid.csv"
    _simulate(path, "--fault", "mispay:tie")
    ties = _column(path, "tie:8-to-1")
    assert set(ties) == {"63", "-7"}                           # 9 to 1 paid where the paytable says 8 to 1
    code, out, _ = run("check-sim", str(path), "--wager", "tie:8-to-1", "--wager", "banker")
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith(("tie:8-to-1 ", "banker:standard "))}
    wrong = ties.count("63")
    assert code == 1 and f"FLAG: bug ({wrong:,} rounds paid wrong)" in rows["tie:8-to-1"]
    assert "variance" in rows["banker:standard"] and "FLAG" not in rows["banker:standard"]
    first = ties.index("63") + 2                               # its line: the header is line 1
    assert f"first at {path}:{first}: paid 63, the paytable pays 56 for 'tie'" in out


def test_amounts_per_unit_staked_without_a_stake_column(tmp_path: Path) -> None:
    """Per unit staked a Banker win pays 0.95 exactly; 0.75 (a vigorish rounded up on a stake of 1) is wrong there.
    Each round's outcome is worked out here by the rules of §627a.10 (game.rules.play), not by check-sim."""
    deals = [("9h", "2d", "Kc", "3s"), ("2h", "9d", "3c", "Ks"), ("7h", "7d", "Kc", "Ks")]
    rows, nets = [], {"banker": "0.95", "player": "-1", "tie": "0"}
    for p1, b1, p2, b2 in deals:
        rnd = play([Card.parse(c).points for c in (p1, b1, p2, b2)])
        assert rnd.cards_used == 4                               # naturals or stands: no third card
        winner = ("banker" if rnd.banker_total > rnd.player_total else
                  "player" if rnd.player_total > rnd.banker_total else "tie")
        rows.append(f"{p1},{p2},,{b1},{b2},,{nets[winner]}")
    path = tmp_path / "units.csv"
    path.write_text(f"{HEADER},banker:standard\n" + "\n".join(rows) + "\n", encoding="utf-8")
    code, out, err = run("check-sim", str(path), "--wager", "banker", "--format", "json")
    assert code == 0, out + err
    paid = json.loads(out)["returns"][0]["paid"]
    assert Fraction(paid) == sum(Fraction(nets[w]) for w in ("player", "banker", "tie")) / 3
    path.write_text(path.read_text(encoding="utf-8").replace("0.95", "0.75"), encoding="utf-8")
    code, out, _ = run("check-sim", str(path), "--wager", "banker", "--format", "json")
    (amounts,) = [t for t in json.loads(out)["tests"] if t["test"] == "amounts"]
    assert code == 1 and amounts["flagged"] and f"{path}:3: paid 0.75, the paytable pays 0.95 for 'banker_wins'" in \
        amounts["detail"]


def test_json_lines_amounts_and_stakes_read_as_numbers_or_text(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"player": ["9h", "Kc"], "banker": ["2d", "3s"], "settled": {"tie:8-to-1": -25}, "stake": 25}\n'
                    '{"player": ["2h", "3c"], "banker": ["9d", "Ks"], "settled": {"tie:8-to-1": "-25"}, "stake": "25"}\n',
                    encoding="utf-8")
    code, out, err = run("check-sim", str(path), "--wager", "tie:8-to-1", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["returns"][0]["paid"] == "-1"


def test_bad_amounts_and_stakes_are_bad_input_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(f"{HEADER},tie:8-to-1,stake\n9h,Kc,,2d,3s,,-25,0\n", encoding="utf-8")
    code, out, err = run("check-sim", str(path), "--wager", "tie:8-to-1")
    assert code == 2 and out == "" and err.count("\n") == 1 and f"{path}:2: stake '0' is not an amount above 0" in err
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--output", str(path), "--bet", "5")
    assert code == 2 and "--bet goes with --wager" in err
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--output", str(path), "--wager", "tie",
                       "--fault", "mispay:tie")
    assert code == 2 and "it goes with --bet" in err


def test_the_paytables_amounts_on_a_stake() -> None:
    cat = load_catalogue()
    on_seven = pays_per_stake(cat["banker"], "standard", Fraction(7), dollars=True)
    assert on_seven[0] == [Fraction(133, 20), Fraction(13, 2)]          # 7 × 0.95, and with 50¢ vigorish
    assert pays_per_stake(cat["banker"], "standard", Fraction(1))[0] == [Fraction(19, 20)]
    assert [amount_text(x) for x in (Fraction(8), Fraction(-1), Fraction(19, 20), Fraction(1, 3))] == \
        ["8", "-1", "0.95", "1/3"]
    assert amounts_of(["6.50", "+8", "-1"]) == [Fraction(13, 2), Fraction(8), Fraction(-1)]
    assert amounts_of(["8", "lose"]) is None
