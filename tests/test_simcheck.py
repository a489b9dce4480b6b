"""The reference simulator and check-sim: honest simulators pass, broken ones are caught."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from exactodds import analyze, load_catalogue
from exactodds.cli import cli
from exactodds.game.cards import Card
from exactodds.simulation.checksim import Records, check, check_counts, read_records
from exactodds.simulation.recordio import read_chunks
from exactodds.simulation.rounds import invalid_rounds
from exactodds.simulation.simulate import (
    SimulatedRounds,
    deal_shoes,
    shuffled_shoes,
    simulate,
    simulate_chunks,
    write_records,
)
from exactodds.simulation.testing import assert_matches

from .brute import deal_shoe_by_the_rules
from .test_cli import run


@pytest.fixture(scope="module")
def fresh_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sim") / "fresh.csv"
    rounds = simulate(decks=8, rounds=1_000_000, seed=20261122, mode="fresh")
    cat = load_catalogue()
    write_records(rounds, str(path), settle=[(cat["perfect-pairs-player"], cat["perfect-pairs-player"].paytable("A")),
                                             (cat["banker"], cat["banker"].paytable("standard"))])
    return path


@pytest.mark.slow
def test_reference_simulator_passes_every_wager(fresh_csv: Path) -> None:
    result = check(read_records(fresh_csv))
    assert result.ok, [r for r in result.flagged]
    checked = {(r.wager, r.paytable) for r in result.rows if r.wager != "cards"}
    assert len(checked) == sum(len(w.paytables) for w in load_catalogue().values())
    assert {r.test for r in result.rows if r.wager == "cards"} == {"cards", "suits", "ranks"}


def test_real_shoes_to_the_cut_card_pass() -> None:
    rounds = simulate(decks=8, rounds=400_000, seed=5, mode="shoe")
    assert len(invalid_rounds(rounds.player, rounds.banker)) == 0
    assert_matches(rounds, wagers=["banker", "player", "tie", "perfect-pairs-player", "lucky-nines", "dragon-bonus-player"])


def test_627a_9_e_last_hand_rule_and_burn() -> None:
    """Every shoe deals all its rounds before the cover card plus exactly one more hand."""
    rounds = simulate(decks=1, rounds=300, seed=11, mode="shoe", cut=14)
    assert rounds.burned is not None and set(rounds.burned) <= set(range(2, 12))     # §627a.5(f)
    used = (rounds.player >= 0).sum(1) + (rounds.banker >= 0).sum(1)
    cover = 52 - 14
    for shoe in range(int(rounds.shoe_number.max()) + 1):
        k = used[rounds.shoe_number == shoe]
        start = rounds.burned[shoe] + np.r_[0, np.cumsum(k)[:-1]]
        appears = (start <= cover) & (start + k > cover)
        assert list(np.flatnonzero(appears)) == [len(k) - 2]     # the cover card shows in the next-to-last hand
        assert start[-1] + k[-1] <= 52


@pytest.mark.parametrize(("decks", "cut"), [(1, 14), (2, 20), (6, 40), (8, 14)])
def test_deal_shoes_deals_as_the_rules_do_card_by_card(decks: int, cut: int) -> None:
    """The vectorised dealer gives exactly the rounds of a card-by-card deal of the same shoes."""
    stack = shuffled_shoes(np.repeat(np.arange(52, dtype=np.int16), decks), 40, np.random.default_rng(decks))
    player, banker, shoe_row, burned = deal_shoes(stack, cut=cut)
    want = [(row, cards) for row in range(len(stack)) for cards in deal_shoe_by_the_rules(stack[row].tolist(), cut=cut)]
    got = []
    for row, p, b in zip(shoe_row.tolist(), player.tolist(), banker.tolist()):
        third = [c for c in (p[2], b[2]) if c >= 0]          # shoe order: P B P B, then the Player's, the Banker's
        got.append((row, [p[0], b[0], p[1], b[1], *third]))
    assert got == want
    faces = [Card.from_index(int(c)) for c in stack[:, 0]]
    assert burned.tolist() == [1 + (10 if f.rank.value >= 10 else f.points) for f in faces]      # §627a.5(f)


def test_the_dealer_reads_who_draws_off_the_sums_as_off_the_five_values() -> None:
    """The dealer's short code (P·19 + B)·10 + x gives, for all 100,000 windows, what the rules give."""
    from exactodds.simulation.rounds import _DRAW, window_draws
    from exactodds.simulation.simulate import _sums_draws

    p1, b1, p2, b2, x = np.arange(100_000)[None, :] // 10 ** np.arange(4, -1, -1)[:, None] % 10
    assert np.array_equal(_sums_draws(_DRAW.tobytes())[((p1 + p2) * 19 + b1 + b2) * 10 + x], window_draws())


def test_shuffled_shoes_are_permutations_and_uniform() -> None:
    """Every shoe holds its cards; on a three-card shoe the six orders come out equally often."""
    cards = np.repeat(np.arange(52, dtype=np.int16), 2)
    stack = shuffled_shoes(cards, 500, np.random.default_rng(1))
    assert (np.sort(stack, axis=1) == cards).all()
    orders = shuffled_shoes(np.arange(3, dtype=np.int16), 60_000, np.random.default_rng(2))
    seen = np.bincount(orders[:, 0] * 9 + orders[:, 1] * 3 + orders[:, 2], minlength=27)
    counts = seen[seen > 0]
    assert len(counts) == 6
    chi2 = float(((counts - 10_000) ** 2 / 10_000).sum())
    assert chi2 < 20.5                                       # chi-square, 5 df: p = 0.001


def test_a_shoe_whose_keys_tie_is_drawn_again() -> None:
    """The first keys all tie (a generator that starts with zeros): every shoe is drawn again."""
    real = np.random.default_rng(3)
    calls = []

    class StartsWithTies:
        def integers(self, low: int, high: int, size: tuple[int, int], dtype: type) -> np.ndarray:
            calls.append(size)
            return np.zeros(size, dtype=dtype) if len(calls) == 1 else real.integers(low, high, size=size, dtype=dtype)

    cards = np.repeat(np.arange(52, dtype=np.int16), 8)
    stack = shuffled_shoes(cards, 20, StartsWithTies())     # type: ignore[arg-type]
    assert calls[:2] == [(20, 416), (20, 416)] and (np.sort(stack, axis=1) == cards).all()
    assert not (stack == cards).all(axis=1).any()           # not the position order the tied keys would give


def test_only_shoes_whose_random_parts_tie_are_drawn_again() -> None:
    """Keys whose random parts are neighbours (their keys differ by less than the position part)
    are not ties: of two shoes, only the one with a real tie is drawn again."""
    real = np.random.default_rng(4)
    calls = []
    near = np.arange(416, dtype=np.int32)[::-1].copy()        # random part r at position 415 - r: the sorted
    tie = near.copy()                                          # keys step by 512 - 1, all "near", none tied
    tie[7] = tie[8]                                            # two positions with the same random part

    class Crafted:
        def integers(self, low: int, high: int, size: tuple[int, int], dtype: type) -> np.ndarray:
            calls.append(size)
            return np.stack([near, tie]).astype(dtype) if len(calls) == 1 else real.integers(low, high, size, dtype)

    cards = np.repeat(np.arange(52, dtype=np.int16), 8)
    stack = shuffled_shoes(cards, 2, Crafted())              # type: ignore[arg-type]
    assert calls == [(2, 416), (1, 416)]
    assert (stack[0] == cards[::-1]).all() and (np.sort(stack[1]) == cards).all()


def test_a_seed_deals_the_same_shoes_whatever_the_length_and_the_workers() -> None:
    """A shorter run is a prefix of a longer one (whole shoes), and threads change nothing."""
    long = simulate(decks=8, rounds=700_000, seed=3)
    short = simulate(decks=8, rounds=1_000, seed=3)
    assert 1_000 <= len(short) < 1_100 and long.shoe_number[len(short)] == short.shoe_number[-1] + 1   # whole shoes
    assert np.array_equal(long.player[:len(short)], short.player) and np.array_equal(long.banker[:len(short)], short.banker)
    one = list(simulate_chunks(decks=8, rounds=700_000, seed=3, workers=1))
    assert np.array_equal(np.concatenate([c.player for c in one]), long.player)
    assert np.array_equal(np.concatenate([c.shoe_number for c in one]), long.shoe_number)
    assert np.array_equal(long.shoe_number, np.sort(long.shoe_number))


def test_fresh_rounds_of_a_seed_are_a_prefix_of_a_longer_run() -> None:
    """Fresh rounds come in whole blocks, each from its own generator: the length changes no round."""
    long = simulate(decks=6, rounds=600_000, seed=9, mode="fresh")     # past the first chunk of 8 blocks
    for n in (1, 65_537, 524_289):
        short = simulate(decks=6, rounds=n, seed=9, mode="fresh")
        assert len(short) == n and np.array_equal(long.player[:n], short.player)
        assert np.array_equal(long.banker[:n], short.banker)


def test_wrong_table_1_cell_is_caught(tmp_path: Path) -> None:
    rounds = simulate(decks=8, rounds=50_000, seed=3, mode="fresh", faults=["table1:6,5"])
    path = tmp_path / "broken.csv"
    write_records(rounds, str(path))
    code, out, err = run("check-sim", str(path), "--wager", "banker")      # a failed check, not bad input
    assert code == 1 and _rate_only(err) and "rounds break the drawing rules of §627a.10, left out" in out
    flagged = [line for line in out.splitlines() if line.endswith("FLAG") or "  FLAG  " in line]
    assert len(flagged) == 1 and "drawing rules" in flagged[0]            # the test named for it, alone
    assert "Rounds that break the drawing rules of §627a.10" in out and f"{path}  " in out
    code, out, _ = run("check-sim", str(path), "--wager", "banker", "--format", "json")
    data = json.loads(out)
    first = data["rule_breaks"][0]
    assert code == 1 and first["source"] == str(path) and first["line"] >= 2
    assert first["cards"].startswith("Player ") and ", Banker " in first["cards"]
    broken = {t["test"]: t for t in data["tests"]}["drawing rules"]
    assert data["rounds"] + int(broken["statistic"]) == len(rounds)     # every round: counted, or left out


def test_dealing_with_replacement_is_caught() -> None:
    rounds = simulate(decks=8, rounds=1_000_000, seed=4, mode="fresh", faults=["with-replacement"])
    with pytest.raises(AssertionError, match="FLAG"):
        assert_matches(rounds, wagers=["perfect-pairs-player:A", "player-pair", "banker"])


def test_perfect_pairs_paid_as_coloured_on_mixed_pairs_is_caught(tmp_path: Path) -> None:
    rounds = simulate(decks=8, rounds=20_000, seed=6, mode="fresh", faults=["perfect-pairs-mixed-as-coloured"])
    path = tmp_path / "pp.csv"
    cat = load_catalogue()
    write_records(rounds, str(path), settle=[(cat["perfect-pairs-banker"], cat["perfect-pairs-banker"].paytable("B"))])
    code, out, _ = run("check-sim", str(path), "--wager", "perfect-pairs-banker:B", "--format", "json")
    assert code == 1
    data = json.loads(out)
    (bad,) = [t for t in data["tests"] if t["test"] == "settlement"]
    assert bad["flagged"] and "paid 'coloured', the cards say 'mixed'" in bad["detail"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("player1,player2,player3,banker1,banker2,banker3\nKs,9h,,Qd,Qs,\n4c,4d,,9", ":3: expected 6 fields, found 4"),
        ("player1,player2,player3,banker1,banker2,banker3\nKs,9h,,Qd,Zz,\n", ":2: unreadable card in field(s) banker2"),
        ("p1,p2\nKs,2h\n", ":1: the header must start with player1"),
        ('{"player": ["Ks", "9h"], "banker": ["Qd"]}\n', ":1: unreadable record ('banker' must list 2 or 3 cards)"),
        ('{"player": [13, 9], "banker": ["Qd", "Kd"]}\n', "cards are text such as \"Ks\", not numbers"),
        ("player1,player2,player3,banker1,banker2,banker3,tie:8-to-1,tie:8-to-1\nKs,9h,,Qd,Qs,,lose,lose\n",
         ":1: settlement column 'tie:8-to-1' appears twice"),
    ],
)
def test_bad_records_name_the_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    code, out, err = run("check-sim", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err


def test_jsonl_records_and_aggregated_counts(tmp_path: Path) -> None:
    rounds = simulate(decks=6, rounds=3000, seed=9, mode="fresh")
    path = tmp_path / "r.jsonl"
    write_records(rounds, str(path), fmt="jsonl")
    assert len(read_records(path)) == 3000
    code, _, _ = run("check-sim", str(path), "--decks", "6", "--wager", "banker")
    assert code == 0
    counts = tmp_path / "counts.json"
    counts.write_text(json.dumps({"decks": 8, "wagers": {"banker:standard": {"banker_wins": 4586, "tie": 952, "lose": 4462}}}))
    code, out, _ = run("check-sim", str(counts), "--counts")
    assert code == 0 and "OK" in out
    counts.write_text(json.dumps({"decks": 8, "wagers": {"banker:standard": {"banker_wins": 4000, "tie": 1500, "lose": 4500}}}))
    code, out, _ = run("check-sim", str(counts), "--counts")
    assert code == 1 and "FLAG" in out


def test_cli_simulate_is_seeded(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for p in (a, b):
        code, _, _ = run("simulate", "--rounds", "2000", "--seed", "42", "--output", str(p), "--wager", "lucky-six")
        assert code == 0
    assert a.read_bytes() == b.read_bytes()
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--cut", "5", "--output", str(a))
    assert code == 2 and "at least 14 cards from the end" in err


def test_lenient_lists_a_truncated_line(tmp_path: Path) -> None:
    path = tmp_path / "trunc.csv"
    path.write_text("player1,player2,player3,banker1,banker2,banker3\nKs,9h,,Qd,Qs,\n4c,4d,,9", encoding="utf-8")
    records = read_records(path, lenient=True)
    assert len(records) == 1 and records.invalid == ((3, "expected 6 fields, found 4 (a truncated or malformed line)"),)


def _rate_only(err: str) -> bool:
    """Standard error holds only the rate line check-sim prints at the end (issue 39)."""
    return err.count("\n") == 1 and err.startswith("rate: ") and " records per second, " in err


def test_check_sim_prints_its_rate_at_the_end(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    write_records(simulate(decks=8, rounds=3_000, seed=2, mode="fresh"), str(path))
    code, out, err = run("check-sim", str(path), "--wager", "tie:8-to-1")
    assert code in (0, 1) and _rate_only(err) and "tie:8-to-1" in out
    rounds = int(err.split()[1].replace(",", ""))
    assert rounds == 3_000 and "per CPU-second (" in err and "CPU-s in this process)" in err
    code, out, err = run("check-sim", str(path), "--wager", "tie:8-to-1", "--quiet")
    assert code in (0, 1) and err == ""


def _binomial_pmf(x: int, n: int, p: Fraction) -> Fraction:
    return math.comb(n, x) * p ** x * (1 - p) ** (n - x)


@pytest.mark.parametrize("n, p", [(1, Fraction(3, 10)), (10, Fraction(11, 20)), (12, Fraction(1, 2)),
                                  (30, Fraction(1, 10)), (40, Fraction(1, 97))])
def test_the_binomial_test_is_the_exact_sum_over_outcomes_no_more_likely(n: int, p: Fraction) -> None:
    """The two-sided p-value is the probability, summed exactly, of every count no more likely than k."""
    from exactodds.simulation.checksim import _binomial_p

    for k in range(n + 1):
        here = _binomial_pmf(k, n, p)
        want = sum((q for x in range(n + 1) if (q := _binomial_pmf(x, n, p)) <= here * (1 + Fraction(1, 10**7))),
                   Fraction(0))
        assert _binomial_p(k, n, float(p)) == pytest.approx(float(min(want, Fraction(1))), rel=1e-9), (n, p, k)


def test_the_chi_square_pools_small_bins_and_sums_pearson_terms() -> None:
    """Bins expecting fewer than 5 rounds are pooled; the statistic is Pearson's and its tail the
    chi-square distribution's (for 2 degrees of freedom, exactly exp(-x/2))."""
    from exactodds.simulation.checksim import _chi_square

    observed = [52, 44, 3, 1]                           # 100 rounds
    expected = [50.0, 45.0, 3.0, 2.0]                   # the last two pool into a bin expecting 5
    got = _chi_square(observed, expected)
    assert got is not None
    stat, df, p = got
    want = Fraction(2 ** 2, 50) + Fraction(1 ** 2, 45) + Fraction(1 ** 2, 5)
    assert df == 2 and stat == pytest.approx(float(want), rel=1e-12)
    assert p == pytest.approx(math.exp(-float(want) / 2), rel=1e-9)
    assert _chi_square([3, 1], [2.0, 2.0]) is None      # one pooled bin: nothing to test


def _holm_rejections(p_values: list[Fraction], alpha: Fraction) -> set[int]:
    """Holm's procedure as defined: step down the sorted p-values, rejecting while the i-th smallest
    (i from 0) is below alpha / (m - i)."""
    m = len(p_values)
    rejected: set[int] = set()
    for i, j in enumerate(sorted(range(m), key=lambda j: p_values[j])):
        if p_values[j] >= alpha / (m - i):
            break
        rejected.add(j)
    return rejected


def test_holm_adjusted_p_values_reject_what_the_step_down_procedure_rejects() -> None:
    """At every level, the tests whose adjusted p-value is below it are those Holm's procedure rejects."""
    import random

    from exactodds.simulation.checksim import holm_adjusted

    rng = random.Random(27)
    for m in (1, 2, 3, 5, 8):
        for _ in range(40):
            ps = [Fraction(rng.choice([1, 2, 5, 10, 30, 200, 1000]), 1000) for _ in range(m)]
            adjusted = holm_adjusted(ps)
            assert all(0 <= a <= 1 and a >= q for a, q in zip(adjusted, ps))
            levels = {Fraction(1, 100), Fraction(1, 20), *ps, *(q * k for q in ps for k in range(1, m + 1))}
            for alpha in sorted(a for a in levels if a < 1):              # --alpha is below 1
                assert {j for j, a in enumerate(adjusted) if a < alpha} == _holm_rejections(ps, alpha), (ps, alpha)


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.csv"
    write_records(simulate(decks=8, rounds=300_000, seed=12, mode="fresh"), str(path))
    return path


def test_an_early_error_while_the_file_is_still_being_read_exits_cleanly(big_csv: Path) -> None:
    """The read-ahead thread is stopped and joined before the process ends (it crashed the interpreter)."""
    import subprocess
    import sys

    for _ in range(3):
        r = subprocess.run([sys.executable, "-c", "from exactodds.cli import main; main()", "check-sim", str(big_csv),
                            "--quiet", "--wager", "nosuch"], capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "nosuch" in r.stderr, (r.returncode, r.stderr)


def test_an_unterminated_quote_names_its_line(tmp_path: Path, big_csv: Path) -> None:
    lines = big_csv.read_text().splitlines()
    lines[3] = "Ks,9h"                                        # a short record first: the exact, line-by-line reader
    lines[5] = 'Ks,"9h,,2d,3c,'                               # then a quote never closed, 128 KB before the end
    path = tmp_path / "quote.csv"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run("check-sim", str(path), "--lenient")
    assert code == 2 and out == "" and err.count("\n") == 1 and f"{path}:6: not a readable CSV record" in err


def test_every_invalid_round_is_counted_not_only_the_first_thousand(tmp_path: Path) -> None:
    rows = ["Ks,9h,,Qd,Qs,"] * 3000 + ["Ks,Zz,,Qd,Qs,"] * 2500
    path = tmp_path / "bad.csv"
    path.write_text("player1,player2,player3,banker1,banker2,banker3\n" + "\n".join(rows) + "\n")
    code, out, _ = run("check-sim", str(path), "--lenient", "--wager", "tie", "--format", "json")
    data = json.loads(out)
    assert data["invalid_rounds"] == 2500 and data["rounds"] == 3000 and len(data["invalid"]) == 1000


def test_shards_must_carry_the_same_settlement_columns(tmp_path: Path) -> None:
    cat = load_catalogue()
    rounds = simulate(decks=8, rounds=2000, seed=13, mode="fresh")
    shards = tmp_path / "shards"
    shards.mkdir()
    write_records(rounds, str(shards / "a.csv"), settle=[(cat["banker"], cat["banker"].paytable("standard"))])
    write_records(rounds, str(shards / "b.csv"))
    code, out, err = run("check-sim", str(shards))
    assert code == 2 and out == "" and "b.csv: settlement columns none, but the first shard has banker:standard" in err


def test_simulate_writes_a_settlement_column_once(tmp_path: Path) -> None:
    path = tmp_path / "twice.csv"
    code, _, _ = run("simulate", "--rounds", "3000", "--seed", "1", "--output", str(path), "--wager", "banker",
                     "--wager", "banker:standard", "--wager", "tie")
    assert code == 0 and path.read_text().splitlines()[0].endswith(",banker3,banker:standard,tie:8-to-1,tie:9-to-1")
    code, _, _ = run("check-sim", str(path), "--wager", "banker")
    assert code == 0


def test_simulated_parquet_declares_only_third_cards_nullable(tmp_path: Path) -> None:
    """A round always has two cards a hand and a settlement for each wager: only a third card may be null."""
    import pyarrow.parquet as pq

    path = tmp_path / "r.parquet"
    code, _, _ = run("simulate", "--rounds", "3000", "--seed", "5", "--output", str(path), "--wager", "dragon-bonus-player")
    schema = pq.read_schema(path)
    assert code == 0 and [f.name for f in schema if f.nullable] == ["player3", "banker3"]
    assert pq.read_table(path).column("player3").null_count > 0
    code, _, _ = run("check-sim", str(path), "--wager", "dragon-bonus-player")
    assert code == 0


def test_a_damaged_parquet_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    write_records(simulate(decks=8, rounds=20_000, seed=14, mode="fresh"), str(path), fmt="parquet")
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 4000] = bytes(4000)
    path.write_bytes(bytes(data))
    code, out, err = run("check-sim", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1 and f"{path}: not a readable Parquet file" in err


def test_many_small_row_groups_are_read_together(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from exactodds.simulation.recordio import read_chunks
    from exactodds.simulation.simulate import record_table

    path = tmp_path / "groups.parquet"
    pq.write_table(record_table(simulate(decks=8, rounds=30_000, seed=15, mode="fresh")), str(path), row_group_size=100)
    chunks = list(read_chunks(str(path), rows=10_000))
    assert [len(c) for c in chunks] == [5_000] * 6
    assert chunks[1].lines[0] == 5_001


def test_blank_lines_do_not_shift_the_line_named(tmp_path: Path, big_csv: Path) -> None:
    lines = big_csv.read_text().splitlines()
    lines[10:10] = ["", "", ""]                              # skipped by the fast reader, counted by the file
    lines[200_000] = "Ks,9h,,Qd,Qs,5c"                       # the Player's natural: the Banker must not draw
    path = tmp_path / "blank.csv"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run("check-sim", str(path))
    assert code == 1 and f"first at {path}:200001: Player K♠ 9♥, Banker Q♦ Q♠ 5♣" in out


def test_a_format_that_contradicts_the_file_name_is_refused(tmp_path: Path) -> None:
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--record-format", "parquet", "--output",
                       str(tmp_path / "x.csv"))
    assert code == 2 and "--record-format parquet but --output" in err and not (tmp_path / "x.csv").exists()
    code, _, _ = run("simulate", "--rounds", "10", "--seed", "1", "--record-format", "csv", "--output",
                     str(tmp_path / "x.txt"))
    assert code == 0


def test_the_table_formats_say_how_many_rounds_were_left_out(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("player1,player2,player3,banker1,banker2,banker3\n" + "Ks,9h,,Qd,Qs,\n" * 50 + "Ks,Zz,,Qd,Qs,\n")
    for fmt in ("markdown", "html"):
        code, out, _ = run("check-sim", str(path), "--lenient", "--wager", "tie", "--format", fmt)
        assert f"1 invalid round left out (first: {path}:52: " in out


def test_messages_name_the_file_the_option_and_the_range(tmp_path: Path) -> None:
    path = tmp_path / "odd.csv"
    path.write_text("player1,player2,player3,banker1,banker2,banker3,banker:nonsense\nKs,9h,,Qd,Qs,,lose\n")
    code, _, err = run("check-sim", str(path))
    assert code == 2 and f"{path}: settlement column 'banker:nonsense': no such wager:paytable" in err
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--cut", "400", "--output", str(tmp_path / "x.csv"))
    assert code == 2 and "--cut:" in err and "from 14 to 396 for 8 decks, got 400" in err
    code, _, err = run("simulate", "--rounds", "10", "--seed", "1", "--mode", "fresh", "--cut", "20", "--output", "-")
    assert code == 2 and "--cut places the cover card of a real shoe" in err
    binary = tmp_path / "packed"
    binary.write_bytes(gzip.compress(b"player1,player2,player3,banker1,banker2,banker3\n"))
    code, _, err = run("check-sim", str(binary))
    assert code == 2 and "this is not text: a compressed or Parquet file is named by its extension" in err


@pytest.mark.parametrize("counts, key", [
    ('{"rounds": 10000, "wagers": {"tie:8-to-1": {"tie": 5000, "lose": 5000}, '
     '"tie:8-to-1": {"tie": 952, "lose": 9048}}}', "tie:8-to-1"),
    ('{"rounds": 10000, "wagers": {"tie:8-to-1": {"tie": 5000, "lose": 9048, "tie": 952}}}', "tie"),
    ('{"rounds": 10000, "rounds": 20000, "wagers": {"tie:8-to-1": {"tie": 952, "lose": 9048}}}', "rounds"),
])
def test_f8_check_sim_counts_refuse_a_key_given_twice(tmp_path: Path, counts: str, key: str) -> None:
    path = tmp_path / "counts.json"
    path.write_text(counts)
    out = CliRunner().invoke(cli, ["check-sim", "--counts", str(path)])
    assert out.exit_code == 2, out.output
    (line,) = out.output.strip().splitlines()
    assert str(path) in line and repr(key) in line


@pytest.mark.parametrize("record", [
    '{"player": ["9s", "Ks"], "player": ["5d", "Ks"], "banker": ["7s", "Ad"], "settled": {"tie:8-to-1": "lose"}}',
    '{"player" : ["9s", "Ks"], "player": ["5d", "Ks"], "banker": ["7s", "Ad"], "settled": {"tie:8-to-1": "lose"}}',
    '{"player": ["5d", "Ks"], "banker": ["7s", "Ad"], "settled": {"tie:8-to-1": "tie", "tie:8-to-1": "lose"}}',
    '{"player": ["5d", "Ks"], "banker": ["7s", "Ad"], "settled": {"tie:8-to-1": "lose"}, "settled": {}}',
])
@pytest.mark.parametrize("first", [True, False])
def test_f8b_check_sim_json_lines_refuse_a_key_given_twice(tmp_path: Path, record: str, first: bool) -> None:
    good = '{"player": ["5d", "Ks"], "banker": ["7s", "Ad"], "settled": {"tie:8-to-1": "lose"}}'
    path = tmp_path / "sim.jsonl"
    path.write_text("\n".join([record, good, good] if first else [good, good, record]) + "\n")
    out = CliRunner().invoke(cli, ["check-sim", str(path)])
    assert out.exit_code == 2, out.output
    (line,) = out.output.strip().splitlines()
    assert f"{path}:{1 if first else 3}:" in line and "duplicate key" in line


def test_f8b_json_lines_with_colons_and_spacing_read_as_before(tmp_path: Path) -> None:
    records = ['{"player" : ["5d", "Ks"], "banker" :["7s", "Ad"], "settled" : {"tie:8-to-1" : "lose"}}',
               '{"player": ["9s", "9h"], "banker": ["Ks", "9d"], "settled": {"tie:8-to-1": "tie"}}']
    path = tmp_path / "sim.jsonl"
    path.write_text("\n".join(records) + "\n")
    chunks = list(read_chunks(str(path)))
    assert sum(len(c.lines) for c in chunks) == 2 and not any(c.invalid for c in chunks)


def test_counts_of_an_outcome_the_paytable_does_not_offer_are_refused(tmp_path: Path) -> None:
    """Lucky Six's standard paytable does not offer the six tie (N/A): such rounds lose the wager, so
    counting them apart would leave them on no line of the exact distribution (the chi-square's totals
    would disagree, and the mean return would be wrong). A zero count is fine."""
    path = tmp_path / "counts.json"
    counts = {"two_card_6": 30, "three_card_6": 20, "six_tie": 5, "lose": 945}
    path.write_text(json.dumps({"rounds": 1000, "wagers": {"lucky-six:standard": counts}}))
    code, out, err = run("check-sim", str(path), "--counts", "--quiet")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "wagers.lucky-six:standard.six_tie: paytable 'standard' does not offer 'six_tie' (N/A)" in err
    path.write_text(json.dumps({"rounds": 1000, "wagers": {"lucky-six:standard": {**counts, "six_tie": 0,
                                                                                   "lose": 950}}}))
    code, out, err = run("check-sim", str(path), "--counts", "--quiet")
    assert code == 0, err


def test_a_simulators_settlement_naming_no_outcome_is_flagged_and_its_chi_square_still_made(tmp_path: Path) -> None:
    """--lenient: rounds the simulator paid as an outcome the wager does not have are on none of its
    lines; the settlement test flags them, and the chi-square of the reported counts is over the
    rounds that are on its lines (scipy refuses totals that disagree)."""
    path = tmp_path / "settled.csv"
    code, _, err = run("simulate", "--rounds", "3000", "--seed", "5", "--mode", "fresh", "--wager", "tie:8-to-1",
                       "--quiet", "--output", str(path))
    assert code == 0, err
    lines = path.read_text().splitlines()
    changed = [ln[:-len("lose")] + "Lose" if i and i < 40 and ln.endswith(",lose") else ln for i, ln in enumerate(lines)]
    wrong = sum(a != b for a, b in zip(lines, changed))
    assert wrong > 10
    path.write_text("\n".join(changed) + "\n")
    code, out, err = run("check-sim", str(path), "--lenient", "--wager", "tie:8-to-1", "--verbose", "--quiet")
    assert code == 1 and err == "", err
    assert f"{wrong} rounds settled differently" in out and "reported chi-square" in out
def test_check_sim_renders_one_report_in_every_format(tmp_path: Path) -> None:
    """Issue 27, one rendering path: the tests and the flagged wager's observed-against-expected table are
    the same rows in text, Markdown, HTML, CSV and JSON; p-values keep their significant digits."""
    counts = tmp_path / "counts.json"
    counts.write_text(json.dumps({"decks": 8, "wagers": {
        "banker:standard": {"banker_wins": 4000, "tie": 1500, "lose": 4500},
        "tie:8-to-1": {"tie": 952, "lose": 9048}}}))
    code, out, _ = run("check-sim", str(counts), "--counts", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["kind"] == "check-sim" and data["rounds"] == 10_000 and not data["ok"]
    flagged = [t for t in data["tests"] if t["flagged"]]
    passed = [t for t in data["tests"] if not t["flagged"]]
    assert flagged and passed and {t["wager"] for t in flagged} == {"banker"}
    assert data["observed"]["banker:standard"]["Tie"] == {"observed": 1500, "expected": pytest.approx(951.56, abs=0.01)}

    code, out, _ = run("check-sim", str(counts), "--counts", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 1
    assert list(rows[0])[:7] == ["wager", "test", "statistic", "p_value", "adjusted_p_value", "flagged", "detail"]
    assert list(rows[0])[7:10] == ["observed_return", "observed_return_exact", "exact_return"]   # its wager's return
    assert [(r["wager"], r["test"], r["flagged"]) for r in rows] == [
        (f"{t['wager']}:{t['paytable']}", t["test"], "FLAG" if t["flagged"] else "") for t in data["tests"]]
    assert [float(r["p_value"]) for r in rows] == [t["p_value"] for t in data["tests"]]      # every digit

    for fmt in ("text", "markdown", "html"):
        code, shown, _ = run("check-sim", str(counts), "--counts", "--format", fmt)
        assert code == 1 and "10,000 rounds" in shown and "FLAGGED — 4 tests" in shown     # chi-square, per outcome, z, top
        assert "Observed against expected, banker:standard" in shown and "4,586.0" in shown
        assert all(f"{t['p_value']:.3g}" in shown and t["detail"] in shown for t in flagged)
        assert not any(t["detail"] in shown for t in passed)                  # the flagged tests only ...
        _, every, _ = run("check-sim", str(counts), "--counts", "--format", fmt, "--verbose")
        assert all(t["detail"] in every for t in data["tests"])               # ... or every one
        assert "Observed against expected, tie:8-to-1" not in every
    assert "<td" in shown and "<table" in shown


def test_a_check_shows_itself_in_jupyter_with_every_test_escaped() -> None:
    result = check_counts({"wagers": {"tie:8-to-1": {"tie": 952, "lose": 9048}}})
    page = result._repr_html_()
    heads_and_rows = (1 + len(result.rows)) + (1 + len(result.returns))        # the tests, then the returns
    assert page.count("<tr>") == heads_and_rows and "tie:8-to-1" in page and "OK — nothing flagged" in page
    assert len(result.returns) == 1 and "bug or variance?" in page
    assert str(result).startswith("check-sim: 10,000 rounds, 3 tests, Holm-adjusted at alpha 0.01\n")
    odd = replace(result, rows=(replace(result.rows[0], detail="<b>bold</b> & more"),) + result.rows[1:])
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; more" in odd._repr_html_() and "<b>bold" not in odd._repr_html_()
    df = result.to_dataframe()
    assert list(df["test"]) == [r.test for r in result.rows] and list(df["p_value"]) == [r.p_value for r in result.rows]


# -- "bug or variance?" (issue 25): the return's interval and power, the cards, --wager, the false alarms ----------

def test_a_shoe_without_the_five_of_spades_is_caught_by_the_card_test(tmp_path: Path) -> None:
    """A simulator that never deals 5♠ is flagged by the card test, which names the card, while the wagers'
    tests at this size see nothing."""
    path = tmp_path / "no5s.csv"
    write_records(simulate(decks=8, rounds=100_000, seed=2, mode="shoe", faults=["without:5s"]), str(path))
    code, out, _ = run("check-sim", str(path), "--wager", "banker", "--format", "json")
    tests = {t["test"]: t for t in json.loads(out)["tests"]}
    assert code == 1 and tests["cards"]["flagged"] and "5♠ dealt 0 times" in tests["cards"]["detail"]
    assert not tests["z return"]["flagged"] and not tests["ranks"]["flagged"]


def test_the_card_tests_pass_a_true_shoe_dealt_to_its_cut_card() -> None:
    rounds = simulate(decks=6, rounds=300_000, seed=8, mode="shoe")
    result = check(read_records_of(rounds), wagers=["banker"])
    cards = {r.test: r for r in result.rows if r.wager == "cards"}
    assert set(cards) == {"cards", "suits", "ranks"} and not any(r.flagged for r in cards.values())
    assert cards["cards"].detail.startswith("df 42;")


def read_records_of(rounds: SimulatedRounds) -> Records:
    """Rounds of the simulator as check-sim's records, in memory (line numbers as in a CSV file)."""
    return Records(rounds.player, rounds.banker, np.arange(2, len(rounds.player) + 2))


def test_the_return_row_is_the_exact_mean_with_its_exact_standard_error() -> None:
    """Observed return = Σ net pay over the rounds exactly; SE = the exact σ of a round / √n; the interval is
    ± z SE at Holm's level over every test (alpha / (tests - flagged)); the detectable deviation and the rounds to
    detect one agree with each other, at that level."""
    from scipy.stats import norm

    rounds = simulate(decks=8, rounds=40_000, seed=12, mode="fresh")
    result = check(read_records_of(rounds), wagers=["tie:8-to-1"], detect=Fraction(1, 100))
    (row,) = result.returns
    counts = {k: n for k, (n, _) in result.observed["tie:8-to-1"].items()}
    n = result.rounds
    assert row.observed == Fraction(8 * counts["Tie"] - counts["Loses"], n)      # a push on nothing: 8 to 1
    exact = analyze(wagers=["tie:8-to-1"]).results[0]
    assert row.exact == exact.expected_return
    assert math.isclose(row.se, math.sqrt(float(exact.variance) / n), rel_tol=1e-12)
    level = 0.01 / (len(result.rows) - len(result.flagged))
    assert row.interval is not None and math.isclose(row.confidence, 1 - level)
    lo, hi = row.interval
    critical = float(norm.isf(level / 2))
    assert math.isclose((hi - lo) / 2, critical * row.se, rel_tol=1e-9) and lo < float(row.observed) < hi
    reach = critical + 0.8416212335729143                         # and the z of the 80% power
    assert math.isclose(row.detectable, reach * row.se, rel_tol=1e-9)
    assert row.rounds_to_detect == math.ceil((reach * math.sqrt(float(exact.variance)) / 0.01) ** 2)


def test_detect_is_read_as_a_percentage_or_a_number(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    write_records(simulate(decks=8, rounds=2_000, seed=1, mode="fresh"), str(path))
    for text in ("0.5%", "0.005"):
        code, out, _ = run("check-sim", str(path), "--wager", "banker", "--detect", text, "--format", "json")
        (row,) = json.loads(out)["returns"]
        assert code in (0, 1) and row["detect"] == "1/200" and row["rounds_to_detect"] > 2_000
    for bad in ("0", "-1%", "abc", "250%"):
        code, out, err = run("check-sim", str(path), "--detect", bad)
        assert code == 2 and out == "" and err.startswith("exactodds: error: --detect:") and err.count("\n") == 1


def test_wager_restricts_the_check_when_the_file_carries_settlements(tmp_path: Path) -> None:
    cat = load_catalogue()
    path = tmp_path / "settled.csv"
    write_records(simulate(decks=8, rounds=5_000, seed=4, mode="fresh"), str(path),
                  settle=[(cat["tie"], cat["tie"].paytable("8-to-1")), (cat["banker"], cat["banker"].paytable("standard"))])
    code, out, _ = run("check-sim", str(path), "--wager", "tie:8-to-1", "--verbose", "--format", "json")
    assert code in (0, 1)
    assert {t["wager"] for t in json.loads(out)["tests"]} == {"tie", "cards"}
    code, out, _ = run("check-sim", str(path), "--verbose", "--format", "json")
    assert {"tie", "banker"} <= {t["wager"] for t in json.loads(out)["tests"]}


@pytest.mark.slow
def test_a_true_simulator_is_flagged_about_as_often_as_alpha_says() -> None:
    """100 seeded runs of a true simulator at alpha 0.01 (Holm over the wagers' and the cards' tests): the share
    flagged is a false-alarm rate at most about alpha (the card tests are conservative)."""
    flagged = 0
    for seed in range(100):
        rounds = simulate(decks=8, rounds=4_000, seed=1000 + seed, mode="fresh")
        flagged += not check(read_records_of(rounds), wagers=["banker", "tie:8-to-1", "player-pair"], alpha=0.01).ok
    assert flagged <= 4                   # P(more than 4 of 100 | rate 0.01) < 0.004


def test_the_return_the_simulator_paid_is_shown_beside_the_cards_own(tmp_path: Path) -> None:
    """Perfect Pairs paying mixed pairs as coloured: the cards' return looks like variance, the paid one does not."""
    cat = load_catalogue()
    path = tmp_path / "pp.csv"
    rounds = simulate(decks=8, rounds=20_000, seed=6, mode="fresh", faults=["perfect-pairs-mixed-as-coloured"])
    write_records(rounds, str(path), settle=[(cat["perfect-pairs-player"], cat["perfect-pairs-player"].paytable("A"))])
    code, out, _ = run("check-sim", str(path), "--wager", "perfect-pairs-player:A", "--format", "json")
    returns = {r["wager"]: r for r in json.loads(out)["returns"]}
    paid = returns["perfect-pairs-player:A (as the simulator settled)"]
    with path.open(newline="", encoding="utf-8") as fh:
        column = [row["perfect-pairs-player:A"] for row in csv.DictReader(fh)]
    nets = {o.id: o_pay.net for o in cat["perfect-pairs-player"].outcomes
            if (o_pay := cat["perfect-pairs-player"].paytable("A").pays[o.id]).offered}
    assert code == 1 and Fraction(paid["observed"]) == sum((nets.get(v, Fraction(-1)) for v in column),
                                                           Fraction(0)) / len(column)
    assert Fraction(paid["observed"]) > Fraction(returns["perfect-pairs-player:A"]["observed"])


def test_extreme_alpha_and_tiny_files_stay_sound(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    write_records(simulate(decks=8, rounds=3_000, seed=5, mode="fresh"), str(path))
    code, out, err = run("check-sim", str(path), "--wager", "tie:8-to-1", "--alpha", "1e-200", "--detect", "0.1%",
                         "--format", "json")
    (row,) = json.loads(out)["returns"]
    assert code == 0, err
    assert math.isfinite(row["detectable"]) and row["detectable"] > 0 and row["rounds_to_detect"] > 3_000
    one = tmp_path / "one.csv"                       # a single Tie: a chance of 0.095, not a z of 3
    one.write_text("player1,player2,player3,banker1,banker2,banker3\n2h,5d,,5s,2d,\n", encoding="utf-8")
    code, out, _ = run("check-sim", str(one), "--wager", "tie:8-to-1", "--format", "json")
    assert code == 0 and "z return" not in {t["test"] for t in json.loads(out)["tests"]}


def test_wager_ignores_settlement_columns_of_wagers_not_loaded(tmp_path: Path) -> None:
    """A column of a wager from a data file not given is not read when --wager chose what is checked."""
    path = tmp_path / "own.csv"
    write_records(simulate(decks=8, rounds=2_000, seed=7, mode="fresh"), str(path))
    lines = path.read_text(encoding="utf-8").splitlines()
    lines = [lines[0] + ",perfect-9:A"] + [line + ",lose" for line in lines[1:]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = run("check-sim", str(path), "--wager", "tie:8-to-1")
    assert code in (0, 1) and _rate_only(err) and "tie:8-to-1" in out
    code, _, err = run("check-sim", str(path))
    assert code == 2 and "settlement column 'perfect-9:A': no such wager:paytable" in err


def test_rounds_breaking_the_rules_are_not_counted_as_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "f.csv"
    write_records(simulate(decks=8, rounds=5_000, seed=3, mode="fresh", faults=["table1:6,5"]), str(path))
    code, out, _ = run("check-sim", str(path), "--wager", "banker", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["invalid_rounds"] == 0 and data["invalid"] == [] and data["rule_breaks"]


def test_per_outcome_names_a_rare_outcome_dealt_too_often_holm_adjusted_within_the_wager() -> None:
    """Counts at their exact expectation but for the rarest outcome, dealt 5 standard deviations too often: the wager's
    chi-square pools it with the rest, the per-outcome test names it, with Holm over the wager's outcomes
    (worked out here from scipy's binomial test and the step-down rule, not from checksim)."""
    from scipy.stats import binomtest, chi2

    from exactodds.analyses.pricing import price
    from exactodds.engine import deal
    from exactodds.game.shoe import Shoe

    cat = load_catalogue()
    wager = cat["dragon-bonus-banker"]
    table = next(iter(wager.paytables))
    r = price(wager, wager.paytables[table], deal(Shoe.decks(8)))
    n = 200_000
    counts = {ln.id: round(float(ln.probability) * n) for ln in r.lines}
    rare = min((ln for ln in r.lines if ln.probability > 0), key=lambda ln: ln.probability)
    counts[rare.id] += round(5 * math.sqrt(counts[rare.id]))          # 5 standard deviations
    biggest = max(counts, key=counts.__getitem__)
    counts[biggest] += n - sum(counts.values())
    result = check_counts({"wagers": {f"{wager.id}:{table}": counts}}, alpha=0.01)
    row = next(t for t in result.rows if t.test == "per outcome")
    assert row.flagged and row.detail.startswith(f"{rare.name}: {counts[rare.id]:,} vs ")

    def two_sided(k: int, p: float) -> float:
        e = n * p
        return (binomtest(k, n, p).pvalue if min(e, n - e) < 5 else chi2.sf((k - e) ** 2 / (e * (1 - p)), 1))

    raw = sorted(two_sided(counts[ln.id], float(ln.probability)) for ln in r.lines if 0 < ln.probability < 1)
    assert 0 < row.p_value == pytest.approx(min(1.0, len(raw) * raw[0]), rel=1e-9)   # Holm's first step
    fair = {ln.id: round(float(ln.probability) * n) for ln in r.lines}
    fair[biggest] += n - sum(fair.values())
    calm = check_counts({"wagers": {f"{wager.id}:{table}": fair}}, alpha=0.01)
    assert not next(t for t in calm.rows if t.test == "per outcome").flagged


def test_the_csv_carries_each_wagers_return_and_detect_says_what_it_cannot(tmp_path: Path) -> None:
    """Issue 25's audit: check-sim's CSV rows carry their wager's return (the JSON's figures); a deviation too
    small for a float's digits gives rounds to 3 significant digits; --detect with no fixed paytable is refused."""
    path = tmp_path / "r.csv"
    write_records(simulate(decks=8, rounds=3_000, seed=12, mode="fresh"), str(path))
    code, out, _ = run("check-sim", str(path), "--wager", "banker", "--format", "csv", "--detect", "1e-12")
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["wager"] == "banker:standard"]
    _, doc, _ = run("check-sim", str(path), "--wager", "banker", "--format", "json", "--detect", "1e-12")
    back = json.loads(doc)["returns"][0]
    assert code == 0 and rows and all(r["observed_return_exact"] == back["observed"] and
                                      float(r["se"]) == back["se"] for r in rows)
    needed = back["rounds_to_detect"]
    assert needed > 10**20 and str(needed)[3:] == "0" * (len(str(needed)) - 3)
    assert all(r["rounds_to_detect"] == str(needed) for r in rows)
    code, _, err = run("check-sim", str(path), "--wager", "heavenly-9-progressive", "--detect", "1%")
    assert code == 2 and "--detect: no wager checked has a fixed paytable" in err


# -- issue 42: one answer per row ----------------------------------------------------------------------------------

def _outside(row) -> bool:  # type: ignore[no-untyped-def]
    """Whether the exact return lies outside the row's printed interval (as printed: 5 decimals)."""
    lo, hi = row.interval
    return not float(f"{lo:+.5f}") <= float(row.exact) <= float(f"{hi:+.5f}")


def test_twenty_seeds_of_a_true_simulator_no_row_outside_its_interval_when_the_headline_is_ok() -> None:
    """20 seeded runs of the reference simulator (every round off a fresh shoe, and real shoes to the cut card):
    each row's interval is at Holm's level, worked out here from the tests themselves (alpha / (tests - flagged)),
    a row is flagged exactly when the exact return is outside it, and no row is when the headline is OK; the
    headline is OK at the stated rate (at most alpha of runs flagged: 3 or more of 20 at 1% has a chance of 0.001)."""
    from scipy.stats import norm

    ok = 0
    for seed in range(20):
        rounds = simulate(decks=8, rounds=3_000, seed=4200 + seed, mode="fresh" if seed % 2 else "shoe")
        result = check(read_records_of(rounds), wagers=["banker", "tie:8-to-1", "player-pair", "dragon-bonus-banker:A"],
                       alpha=0.01)
        level = 0.01 / (len(result.rows) - len(result.flagged)) if len(result.flagged) < len(result.rows) else 0.01
        z_flags = {f"{r.wager}:{r.paytable}": r.flagged for r in result.rows if r.test == "z return"}
        assert len(result.returns) == 4
        for row in result.returns:
            assert row.interval is not None and row.verdict in ("variance", "FLAG: bug (outside its interval)")
            critical = float(norm.isf(level / 2))
            assert math.isclose(row.interval[1] - float(row.observed), critical * row.se, rel_tol=1e-9)
            assert row.flagged == z_flags[row.wager] == _outside(row) == (row.verdict != "variance")
            if result.ok:
                assert not _outside(row)
        ok += result.ok
    assert ok >= 18


def test_a_row_outside_its_interval_is_the_flagged_one_and_the_note_counts_the_tests() -> None:
    """Counts of the Tie bet 5 standard deviations off, beside a fair Banker: the Tie's row alone is FLAG, the exact
    return outside its interval; the note under the table names the tests run and the 1 in 20 of a plain 95%."""
    from exactodds.analyses.pricing import price
    from exactodds.engine import deal
    from exactodds.game.shoe import Shoe

    cat = load_catalogue()
    n = 100_000
    dist = deal(Shoe.decks(8))
    data: dict[str, dict[str, int]] = {}
    for wid, table in (("tie", "8-to-1"), ("banker", "standard")):
        r = price(cat[wid], cat[wid].paytable(table), dist)
        counts = {ln.id: round(float(ln.probability) * n) for ln in r.lines}
        counts["lose"] += n - sum(counts.values())
        data[f"{wid}:{table}"] = counts
    tie = data["tie:8-to-1"]
    shift = round(5 * math.sqrt(tie["tie"]))
    tie["tie"] += shift
    tie["lose"] -= shift
    data["banker:standard"] = {k: v for k, v in data["banker:standard"].items()}
    result = check_counts({"rounds": n, "wagers": data}, alpha=0.01)
    rows = {x.wager: x for x in result.returns}
    assert rows["tie:8-to-1"].flagged and _outside(rows["tie:8-to-1"])
    assert not rows["banker:standard"].flagged and not _outside(rows["banker:standard"])
    assert rows["tie:8-to-1"].verdict == "FLAG: bug (outside its interval)" and rows["banker:standard"].verdict == "variance"
    text = str(result)
    assert f"{len(result.rows)} tests were run: a plain 95% interval misses the exact return 1 time in 20 by chance" in text
    assert f"Holm at alpha 0.01 over the {len(result.rows)} tests" in text and "95% interval  " not in text


def test_the_simulators_own_settlement_is_shown_only_where_it_differs_and_labelled(tmp_path: Path) -> None:
    cat = load_catalogue()
    right = tmp_path / "right.csv"
    write_records(simulate(decks=8, rounds=5_000, seed=2, mode="fresh"), str(right),
                  settle=[(cat["banker"], cat["banker"].paytable("standard"))])
    code, out, _ = run("check-sim", str(right), "--wager", "banker", "--verbose", "--format", "json")
    data = json.loads(out)
    assert [x["wager"] for x in data["returns"]] == ["banker:standard"]            # no duplicate row
    assert not any(t["test"].startswith("reported ") for t in data["tests"])       # nor duplicate tests
    assert {t["test"] for t in data["tests"] if t["wager"] == "banker"} >= {"settlement", "z return"}
    wrong = tmp_path / "wrong.csv"
    write_records(simulate(decks=8, rounds=20_000, seed=6, mode="fresh", faults=["perfect-pairs-mixed-as-coloured"]),
                  str(wrong), settle=[(cat["perfect-pairs-player"], cat["perfect-pairs-player"].paytable("A"))])
    code, out, _ = run("check-sim", str(wrong), "--wager", "perfect-pairs-player:A")
    settled = next(line for line in out.splitlines() if line.startswith("perfect-pairs-player:A (as the simulator "
                                                                        "settled)"))
    assert code == 1 and "FLAG: bug (" in settled and "settled differently from their cards" in settled
    assert "(as reported)" not in out and "the return of the outcomes the simulator wrote, shown where they differ" in out


def test_a_drawing_rule_broken_is_named_and_the_side_bets_verdicts_are_withheld(tmp_path: Path) -> None:
    """Table 1's cell (Banker 6, Player's third card 5) flipped: the rule is named with its paragraph; the rounds
    left out make the rest no fair sample, so no side bet is flagged as a second bug: their verdicts are withheld,
    with the reason, and the headline counts one flagged test."""
    path = tmp_path / "t1.csv"
    write_records(simulate(decks=8, rounds=200_000, seed=3, mode="fresh", faults=["table1:6,5"]), str(path))
    rule = "Banker must stay on 6 when the Player's third card is 5 (Table 1), §627a.10(c)(2)(iii)"
    code, out, _ = run("check-sim", str(path), "--wager", "banker", "--wager", "dragon-7-insurance",
                       "--wager", "lucky-six", "--format", "json")
    data = json.loads(out)
    assert code == 1 and [t["test"] for t in data["tests"] if t["flagged"]] == ["drawing rules"]
    assert rule in next(t["detail"] for t in data["tests"] if t["test"] == "drawing rules")
    assert all(b["rule"] == rule for b in data["rule_breaks"])
    assert data["withheld"].startswith(f"{data['tests'][0]['statistic']:,.0f} rounds that break the drawing rules "
                                       "were left out")
    assert all(t["withheld"] for t in data["tests"] if t["wager"] not in ("cards",))
    assert all(x["verdict"] == "withheld" and x["interval"] is None for x in data["returns"])
    code, out, _ = run("check-sim", str(path), "--wager", "dragon-7-insurance")
    assert code == 1 and "Withheld: the wagers' and the shoes' tests are shown, not judged: " in out and rule in out
    assert "tests, Holm-adjusted at alpha 0.01 (" in out.splitlines()[0] and "more withheld)" in out.splitlines()[0]


def test_a_validation_file_read_as_a_simulators_output_is_named_in_one_line(tmp_path: Path) -> None:
    from exactodds.game.shoe import Shoe
    from exactodds.simulation.validation import validation_rounds, write_validation

    cat = load_catalogue()
    pairs = [(cat["tie"], cat["tie"].paytable("8-to-1"))]
    path = tmp_path / "validation.csv"
    write_validation(validation_rounds(pairs, [Shoe.decks(8)]), pairs, str(path), "csv")
    code, out, err = run("check-sim", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"exactodds: error: {path}: a validation file") and "check-sim --validation" in err
    code, out, _ = run("check-sim", str(path), "--validation")
    assert code == 0 and "every settlement and the drawing rules checked" in out


def test_alpha_is_a_percentage_like_every_other(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    write_records(simulate(decks=8, rounds=2_000, seed=1, mode="fresh"), str(path))
    outs = [run("check-sim", str(path), "--wager", "tie:8-to-1", "--alpha", a, "--format", "json")[1]
            for a in ("1%", "0.01", " 1 % ")]
    assert json.loads(outs[0])["alpha"] == 0.01 and outs[0] == outs[1] == outs[2]
    for bad in ("0", "100%", "abc", "-1%"):
        code, out, err = run("check-sim", str(path), "--alpha", bad)
        assert code == 2 and out == "" and err.startswith("exactodds: error: --alpha") and err.count("\n") == 1


def test_certificate_and_check_sim_validation_read_alike() -> None:
    """``certificate --validation FILE`` writes the file, ``check-sim --validation`` reads it: each help names the
    other with the same words."""
    _, cert, _ = run("certificate", "--help")
    _, sim, _ = run("check-sim", "--help")
    flat = [" ".join(text.split()) for text in (cert, sim)]
    assert "check-sim --validation" in flat[0] and "certificate --validation FILE" in flat[1]
    assert all("validation file" in text for text in flat)
