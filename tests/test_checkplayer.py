"""check-player (issue 55, item 3): each bet's exact edge by a second route (a Door per depleted shoe, and
--given through the door for the first card's class), the exact sums rebuilt from those edges, the permutation
test's power on the project's simulated players (a counter with exposure's ramp, an edge sorter) and its level on
flat and random bettors over 200 seeds, and bad input refused in one line."""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import pytest

from exactodds.analyses.advantage import sorted_ranks
from exactodds.analyses.door import Door
from exactodds.analyses.given import priced_given
from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.simulation.checkplayer import check_player, round_edges
from exactodds.simulation.players import player_log
from exactodds.wagers.catalogue import load_catalogue

from .test_cli import run

MAIN = ("banker:standard", "player:standard")
COUNTED = ("banker:standard", "dragon-7-insurance:standard")


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _unseen_before(rows: list[dict[str, str]], k: int, decks: int) -> Shoe:
    """The shoe less the cards of rounds 0 .. k-1 of ``rows`` (one shoe), by the shoe's own remove()."""
    cards = [r[c] for r in rows[:k] for c in ("player1", "player2", "player3", "banker1", "banker2", "banker3") if r[c]]
    return Shoe.decks(decks).remove(*cards)


def test_each_bets_edge_is_the_doors_return_off_the_shoe_less_the_rounds_before(tmp_path):
    """Counting: every round's edge is, exactly, Door(shoe less the cards dealt before).expected_return; the
    check's expected win and its flat twin are the sums of those edges."""
    log = tmp_path / "log.csv"
    player_log(str(log), kind="random", shoes=2, seed=4, wagers=COUNTED)
    rows = _rows(log)
    cat = load_catalogue()
    pairs = [(cat[w], cat[w].paytable(t)) for w, t in (p.split(":") for p in COUNTED)]
    edges = list(round_edges(str(log)))
    assert len(edges) == len(rows)
    win = Fraction(0)
    flat = Fraction(0)
    shoes: dict[str, list[int]] = {}
    for k, (row, (shoe, line, edge)) in enumerate(zip(rows, edges)):
        assert shoe == row["shoe"] and line == k + 2
        shoes.setdefault(shoe, []).append(k)
    for shoe, ks in shoes.items():
        shoe_rows = [rows[k] for k in ks]
        for i, k in enumerate(ks):
            door = Door(_unseen_before(shoe_rows, i, 8))
            for name, (w, t) in zip(COUNTED, pairs):
                assert edges[k][2][name] == door.expected_return(w, t), (shoe, i, name)
                win += Fraction(rows[k][name] or 0) * edges[k][2][name]
        for name in COUNTED:
            stake = sum(Fraction(rows[k][name] or 0) for k in ks)
            flat += stake * sum(edges[k][2][name] for k in ks) / len(ks)
    result = check_player(str(log))
    assert result.expected_win == win and result.flat_win == flat
    assert result.rounds == len(rows) and result.shoes == 2
    assert sum(w.bets for w in result.wagers) == sum(1 for r in rows for n in COUNTED if r[n])


@pytest.mark.parametrize("split", ["6,7,8,9", "A,K"])
def test_each_bets_edge_given_the_first_cards_class_is_the_given_return(tmp_path, split):
    """Edge sorting: a round's edge given its first card's class is --given's return through the door on the
    shoe less the rounds before (the class a union of point values, read by the tables at point values, and a
    rank split, read by the door's other route); the class's own count is checked against its cards inside."""
    log = tmp_path / "log.csv"
    player_log(str(log), kind="sorter", shoes=1, seed=9, sorted_cards=split, decks=2)
    rows = _rows(log)[:8]
    cat = load_catalogue()
    pairs = [(cat[w], cat[w].paytable(t)) for w, t in (p.split(":") for p in MAIN)]
    edges = list(round_edges(str(log), decks=2, sorted_cards=split))   # the sorter bets the best off the full shoe
    ranks = sorted_ranks(split)
    for i, row in enumerate(rows):
        first = Card.parse(row["player1"]).rank.value
        cls = f"player_rank_1 in ({', '.join(map(str, ranks))})"
        text = cls if first in ranks else f"not ({cls})"
        _, results, _ = priced_given(Door(_unseen_before(rows, i, 2)), pairs, text)
        for name, r in zip(MAIN, results):
            assert edges[i][2][name] == r.expected_return, (i, name)


def test_a_counter_and_an_edge_sorter_are_flagged_a_flat_bettor_never(tmp_path):
    """The stated power: a counter of Dragon 7 (its count, ramp 1 unit from +4, 2 from +6, 4 from +8) within 5
    shoes, and an edge sorter of 6-9 within one shoe, each flagged at p < 0.01 on every seed tried; a flat bettor
    on the same shoes is never (each permutation of his bets is his bets)."""
    log = tmp_path / "log.csv"
    for seed in range(8):
        player_log(str(log), kind="counter", shoes=5, seed=seed, wagers=COUNTED)
        r = check_player(str(log))
        assert r.flagged and r.p_value < Fraction(1, 100) and r.advantage > r.flat_advantage, seed
        player_log(str(log), kind="sorter", shoes=1, seed=seed, wagers=MAIN)
        s = check_player(str(log), sorted_cards="6,7,8,9")
        assert s.flagged and s.p_value < Fraction(1, 100) and s.best_share > 0.85, seed   # the full shoe's best: deep in a shoe it can differ
        assert s.advantage > Fraction(2, 100) > s.flat_advantage       # one shoe's classes: near the published 6.8%
        player_log(str(log), kind="flat", shoes=1, seed=seed, wagers=MAIN)
        f = check_player(str(log), sorted_cards="6,7,8,9")
        assert not f.flagged and f.p_value == 1 and f.advantage == f.flat_advantage and f.correlation is None
        assert check_player(str(log)).p_value == 1


def test_random_bettors_are_flagged_at_no_more_than_the_level(tmp_path):
    """200 random bettors (bets independent of the cards) at the same two shoes, 199 permutations, alpha 1%:
    the permutation test is exact, so each is flagged with chance at most 1%; 8 or more flags of 200 would have
    chance about 0.1%. Their p-values average about one half (the test is not merely timid)."""
    log = tmp_path / "log.csv"
    flags, ps = 0, []
    for bettor in range(200):
        player_log(str(log), kind="random", shoes=2, seed=77, bet_seed=bettor, wagers=MAIN)
        r = check_player(str(log), permutations=199, seed=bettor)
        flags += r.flagged
        ps.append(float(r.p_value))
    assert flags <= 7
    assert 0.43 < sum(ps) / len(ps) < 0.57


def test_the_command_reads_a_log_and_says_its_verdict(tmp_path):
    log = tmp_path / "log.csv"
    player_log(str(log), kind="sorter", shoes=1, seed=3, wagers=MAIN)
    code, out, _ = run("check-player", str(log), "--sorted", "6,7,8,9", "--format", "json",
                       "--plot", str(tmp_path / "p.png"))
    data = json.loads(out)
    assert code == 1 and data["flagged"] is True and data["verdict"].startswith("FLAGGED")
    assert Fraction(data["p_value"]) == Fraction(1, 1000) and (tmp_path / "p.png").stat().st_size > 1000
    code, out, _ = run("check-player", str(log), "--alpha", "0.05%")
    assert code == 0 and "NOT FLAGGED" in out                  # no p-value of 999 permutations is below 0.1%
    code, out, _ = run("check-player", str(log))               # his bets read without the class: no count gain
    assert "Verdict:" in out


def _log(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "bad.csv"
    path.write_text("player1,player2,player3,banker1,banker2,banker3,shoe,round,banker:standard\n"
                    + "".join(line + "\n" for line in lines))
    return str(path)


@pytest.mark.parametrize("lines, args, message", [
    (["4s,5s,,Ts,Kd,,a,1,1", "4s,5h,,Th,Kh,,a,2,1"], ["--decks", "1"], "deals more 4♠ than 1 deck hold: the log's"),
    (["4s,5s,,Ts,Kd,,a,1,1", "4h,5h,,Th,Kh,,a,3,1"], [], "round 3 where round 2 comes"),
    (["4s,5s,,Ts,Kd,,a,1,1", "4h,5h,,Th,Kh,,b,1,1", "4d,5d,,Td,Kc,,a,1,1"], [], "shoe 'a' appears again"),
    (["4s,5s,,Ts,Kd,,a,1,-5"], [], "an amount bet is at least 0"),
    (["4s,5s,,Ts,Kd,,a,1,ten"], [], "is not an amount"),
    (["Ks,Kh,,Kd,Kc,,a,1,1"], [], "Player must draw on 0"),
    (["4s,5s,,Ts,Kd,,a,1,1"], ["--sorted", "A,2,3,4,5,6,7,8,9,T,J,Q,K"], "the other class is empty"),
    (["4s,5s,,Ts,Kd,,a,1,1"], ["--permutations", "5"], "--permutations"),
    (["4s,5s,,Ts,Kd,,a,1,1e400"], [], "is not an amount a table takes"),
    (["4s,5s,,Ts,Kd,,a,1,0.0000001"], [], "is not an amount a table takes"),
])
def test_bad_logs_are_refused_in_one_line(tmp_path, lines, args, message):
    code, out, err = run("check-player", _log(tmp_path, lines), *args)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, err


def test_a_log_without_shoes_or_with_an_unknown_wager_is_refused(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("player1,player2,player3,banker1,banker2,banker3,banker:standard\nAs,2s,5d,3s,4s,,1\n")
    with pytest.raises(ExactOddsError, match="no 'shoe' column"):
        check_player(str(path))
    path.write_text("player1,player2,player3,banker1,banker2,banker3,shoe,nope:standard\nAs,2s,5d,3s,4s,,a,1\n")
    with pytest.raises(ExactOddsError, match="no such wager:paytable"):
        check_player(str(path))
    path.write_text("player1,player2,player3,banker1,banker2,banker3,shoe,royal-9-progressive:$5\n4s,5s,,Ts,Kd,,a,1\n")
    with pytest.raises(ExactOddsError, match="pays a progressive meter"):
        check_player(str(path))
    path.write_text("player1,player2,player3,banker1,banker2,banker3,shoe,banker:standard\n")
    with pytest.raises(ExactOddsError, match="no round in the log"):
        check_player(str(path))


def test_a_parquet_log_reads_as_its_csv(tmp_path):
    """The same log as Parquet (its columns as text, as a surveillance system may export them) gives the same
    exact figures and the same p-value."""
    pa_csv = pytest.importorskip("pyarrow.csv")
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa
    log = tmp_path / "log.csv"
    player_log(str(log), kind="counter", shoes=2, seed=5, wagers=COUNTED)
    names = _rows(log)[0].keys()
    table = pa_csv.read_csv(log, convert_options=pa_csv.ConvertOptions(column_types={n: pa.string() for n in names}))
    pq.write_table(table, tmp_path / "log.parquet")
    a, b = check_player(str(log)), check_player(str(tmp_path / "log.parquet"))
    assert (a.expected_win, a.flat_win, a.p_value, a.rounds) == (b.expected_win, b.flat_win, b.p_value, b.rounds)
