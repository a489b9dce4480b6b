"""The compiled core (exactodds/engine/_core.c) against the pure route and the brute force.

Each kernel is held against the code it stands in for, run in the same process with the extension
switched off (:func:`exactodds.engine.native.pure`), and the walk also against tests/brute.py, on
shoes and conditions drawn at random: the walk over conditions from the grammar's fuzzer on small
shoes of unequal suits, the tables over the whole catalogue on depleted shoes, the exposure kernel
over batches of shoes. Then what C must never do: wrap an overflow, read out of range, grow without
bound.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from exactodds.analyses.analysis import analyze
from exactodds.analyses.pricing import return_numerators
from exactodds.engine import native, walk
from exactodds.engine.walk import WalkDistribution
from exactodds.errors import ExactOddsError, TooLarge
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import load_catalogue

from .strategies import conditions, depleted_shoes
from .test_conditions import SHOES, deals, one_outcome, reference

core = native.kernels()
compiled = pytest.mark.skipif(core is None, reason=f"the compiled core is not in use here: {native.status()}")


def _lines(result: Any) -> list[tuple[str, str, tuple[tuple[str, int], ...]]]:
    return [(r.wager.id, r.paytable.id, tuple((line.id, line.combinations) for line in r.lines)) for r in result.results]


def test_the_extension_is_built_and_used_unless_switched_off() -> None:
    """CI and the README's install build it: a build that silently fell back to the pure route would
    leave every compiled kernel untested."""
    if os.environ.get(native.PURE_VARIABLE, "") not in ("", "0"):
        assert native.kernels() is None and "switched off" in native.status()
        return
    assert native.status() == "compiled", native.status()
    with native.pure():
        assert native.kernels() is None
    assert native.kernels() is core


@pytest.mark.slow
@compiled
@settings(max_examples=120, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(conditions(depth=2))
def test_the_compiled_walk_equals_the_pure_walk_and_the_brute_force_on_generated_conditions(text: str) -> None:
    wager = one_outcome(text)
    for k, cards in enumerate(SHOES):
        shoe = Shoe.from_card_counts(cards)
        rows, weights = deals(k)
        python = reference(text)
        want = sum(w for row, w in zip(rows, weights) if python(row))
        try:
            got = WalkDistribution(shoe).outcome_counts(wager, wager.paytables["A"])
        except ExactOddsError as exc:              # a feature the walk does not read: refused, in one line
            assume("does not know" not in str(exc))
            raise
        with native.pure():
            pure = WalkDistribution(shoe).outcome_counts(wager, wager.paytables["A"])
        assert got == pure, text
        assert got.get(0, 0) == want, f"{text!r} on shoe {cards}"


@compiled
@settings(max_examples=12, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(depleted_shoes())
def test_the_catalogue_by_the_compiled_tables_equals_the_pure_tables(shoe: Shoe) -> None:
    got = analyze(shoe, everything=True)
    with native.pure():
        want = analyze(shoe, everything=True)
    assert _lines(got) == _lines(want)


@pytest.mark.slow
@compiled
@pytest.mark.parametrize("shoe", [Shoe.decks(8), Shoe.decks(1).remove("9s", "9h", "Kd", "Qc"), Shoe.decks(30)],
                         ids=["8 decks", "1 deck less 4 cards", "30 decks (past int64)"])
def test_the_catalogue_by_the_compiled_walk_equals_the_tables(shoe: Shoe) -> None:
    """Two routes that share no counting code, every wager of the catalogue: the walk in C, the
    tables (at 30 decks modulo primes, rebuilt by the CRT)."""
    assert _lines(analyze(shoe, everything=True, route="walk")) == _lines(analyze(shoe, everything=True))


@pytest.mark.slow
@compiled
def test_the_compiled_walk_equals_the_pure_walk_on_the_catalogue_one_deck() -> None:
    shoe = Shoe.decks(1).remove("As", "Kh", "7d")
    got = analyze(shoe, everything=True, route="walk")
    with native.pure():
        want = analyze(shoe, everything=True, route="walk")
    assert _lines(got) == _lines(want)


@compiled
@settings(max_examples=20, deadline=None, database=None, derandomize=True)
@given(st.lists(st.lists(st.integers(0, 140), min_size=10, max_size=10), min_size=1, max_size=40))
def test_the_exposure_kernel_equals_the_pure_batch(values: list[list[int]]) -> None:
    counts = np.array(values, dtype=np.int64)
    counts[:, 0] += 6                                   # every shoe holds a round
    cat = load_catalogue()
    pairs = [(cat[w], cat[w].paytable(t)) for w, t in
             (("dragon-7-insurance", "standard"), ("panda-8-insurance", "standard"), ("tie", "8-to-1"))]
    got = return_numerators(pairs, counts, second=True, cross=True)
    with native.pure():
        want = return_numerators(pairs, counts, second=True, cross=True)
    assert got == want
    assert all(found is not None for found in got)


@compiled
def test_kernels_release_the_gil_and_give_the_same_counts_from_threads() -> None:
    shoe = Shoe.decks(8).remove("5s", "9h")
    wager = load_catalogue()["dragon-bonus-player"]
    want = WalkDistribution(shoe).outcome_counts(wager, wager.paytable("A"))
    got: list[dict[int, int]] = []

    def run() -> None:
        got.append(WalkDistribution(shoe).outcome_counts(wager, wager.paytable("A")))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 3


# -- what the C must never do ---------------------------------------------------------------------

def _i64(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _i32(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int32)


@compiled
def test_an_overflow_in_the_key_sums_is_an_error_never_a_wrap() -> None:
    out = np.empty(1, dtype=np.int64)
    big = 2**62
    with pytest.raises(OverflowError):                  # 2 x 2^62 does not fit
        core.key_sums(_i64(big), 1, _i64(0), _i64(2), _i64(0), None, out)
    with pytest.raises(OverflowError):                  # 2^62 + 2^62 does not fit
        core.key_sums(_i64(big, big), 1, _i64(0, 1), _i64(1, 1), _i64(0), None, out)
    # a sum that passes 2^63 on the way to a result that fits is exact (counted again in 128 bits)
    core.key_sums(_i64(big, big, big), 1, _i64(0, 1, 2), _i64(1, 1, -1), _i64(0), None, out)
    assert int(out[0]) == big


@compiled
def test_an_index_out_of_range_is_an_error_never_a_read() -> None:
    out = np.empty(1, dtype=np.int64)
    with pytest.raises(IndexError):                     # an entry's multiset past the weights
        core.key_sums(_i64(1), 1, _i64(1), _i64(1), _i64(0), None, out)
    with pytest.raises(IndexError):                     # a key starting past the entries
        core.key_sums(_i64(1), 1, _i64(0), _i64(1), _i64(2), None, out)
    ten = np.full((1, 10), 10, dtype=np.int64)
    with pytest.raises(IndexError):                     # a tree's parent past its level
        core.batch_sums(ten, _i32(0, 1), _i32(0, 5), _i64(1, 1), _i32(0), _i32(0), _i64(1), _i64(0, 1), out)
    with pytest.raises(IndexError):                     # a term's multiset past the tree's last level
        core.batch_sums(ten, _i32(0), _i32(0), _i64(1), _i32(1), _i32(0), _i64(1), _i64(0, 1), out)
    with pytest.raises(IndexError):                     # a column's terms past the terms
        core.batch_sums(ten, _i32(0), _i32(0), _i64(1), _i32(0), _i32(0), _i64(1), _i64(0, 2), out)
    with pytest.raises(TypeError):                      # only int64 arrays are read
        core.key_sums(np.array([1.0]), 1, _i64(0), _i64(1), _i64(0), None, out)


@compiled
def test_the_walk_refuses_a_shoe_past_its_128_bit_bound_and_the_pure_walk_takes_it() -> None:
    auto = walk._automaton(walk._Walk((), ()), (True,) * 52)
    rounds = walk._round_states()
    with pytest.raises(OverflowError):
        core.walk(2**22, auto.node_offset, auto.class_value, np.full(len(auto.class_value), 2**19, dtype=np.int64),
                  auto.trans_offset, auto.trans_next, auto.trans_merge, auto.merges, rounds.position, rounds.cards,
                  rounds.next, rounds.over, 1000)
    assert walk._walk_kernels(2**22) is None and walk._walk_kernels(416) is core


@compiled
def test_a_walk_past_its_state_limit_is_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "WALK_STATES_LIMIT", 50)
    wager = one_outcome("player_suit_1 == banker_suit_1 and player_rank_2 == banker_rank_2")
    with pytest.raises(TooLarge, match=r"more than 50 states .* refused") as exc:
        WalkDistribution(Shoe.decks(8)).outcome_counts(wager, wager.paytables["A"])
    assert "\n" not in str(exc.value)


def test_the_pure_switch_is_read_from_the_environment() -> None:
    import subprocess
    import sys
    code = "from exactodds.engine import native; print(native.status())"
    env = {**os.environ, native.PURE_VARIABLE: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "switched off (EXACTODDS_PURE)"


def _batch(counts: np.ndarray, slots: list[list[int]], parents: list[list[int]], terms: list[tuple[int, int, int, int]],
           columns: int) -> np.ndarray:
    """``core.batch_sums`` of a tree given level by level (the last level's items named by the terms:
    (item of the last level given, slot, column, weight))."""
    out = np.empty((len(counts), columns), dtype=np.int64)
    p, s, c, w = zip(*sorted(terms, key=lambda term: term[2]))            # by column
    core.batch_sums(counts, np.array(sum(slots, []), dtype=np.int32), np.array(sum(parents, []), dtype=np.int32),
                    np.array([len(x) for x in slots], dtype=np.int64), _i32(*p), _i32(*s), _i64(*w),
                    np.searchsorted(np.array(c), np.arange(columns + 1)).astype(np.int64), out)
    return out


def _batch_by_hand(counts: np.ndarray, slots: list[list[int]], parents: list[list[int]],
                   terms: list[tuple[int, int, int, int]], columns: int) -> list[list[int]]:
    """The same sums in Python integers: slot t*6 + o is count[t] - o (value 10: the shoe's size)."""
    out = []
    for row in counts.tolist():
        tokens = [*row, sum(row)]
        factor = [max(tokens[k // 6] - k % 6, 0) for k in range(66)]
        level = [1]
        for ss, ps in zip(slots, parents):
            level = [level[p] * factor[x] for x, p in zip(ss, ps)]
        sums = [0] * columns
        for p, x, c, w in terms:
            sums[c] += level[p] * factor[x] * w
        out.append(sums)
    return out


@compiled
@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.lists(st.lists(st.integers(0, 200), min_size=10, max_size=10), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 2), st.integers(0, 65), st.integers(0, 3),
                          st.one_of(st.integers(-1000, 1000), st.integers(-2**62, 2**62))), min_size=1, max_size=12))
def test_the_exposure_kernel_equals_its_sums_in_python_integers_or_refuses(
        values: list[list[int]], terms: list[tuple[int, int, int, int]]) -> None:
    """Terms of small weights (the bound proves the residues) and of weights near
    2^62 (the bound term by term, or the shoe counted again in 128 bits): the kernel gives the exact sums,
    or an OverflowError where one does not fit 64 bits; never a wrapped number."""
    counts = np.array(values, dtype=np.int64)
    slots, parents = [[0, 7, 65], [3, 60, 13]], [[0, 0, 0], [2, 0, 1]]          # three items, then three
    want = _batch_by_hand(counts, slots, parents, terms, 4)
    if all(-2**63 <= x < 2**63 for row in want for x in row):
        assert _batch(counts, slots, parents, terms, 4).tolist() == want
    else:
        with pytest.raises(OverflowError):
            _batch(counts, slots, parents, terms, 4)


@compiled
def test_the_exposure_kernel_counts_again_in_128_bits_where_its_bound_does_not_prove_the_residue() -> None:
    """One shoe of 10 cards per value; slots 0 (n = 10) and 60 (N = 100): weights 10 and 100. A column
    whose terms pass 2^62 on the way to a small sum is counted again, exactly; one whose sum does not
    fit 64 bits is an error."""
    counts = np.full((1, 10), 10, dtype=np.int64)
    big = 2**62
    terms = [(0, 0, 0, big // 10), (0, 60, 0, -(big // 100)), (0, 0, 1, 3), (0, 60, 1, 4)]
    assert _batch(counts, [], [], terms, 2).tolist() == [[10 * (big // 10) - 100 * (big // 100), 430]]
    with pytest.raises(OverflowError):
        _batch(counts, [], [], [(0, 0, 0, big // 5), (0, 60, 0, big // 100)], 1)


@compiled
def test_the_exposure_kernel_takes_a_shoe_whose_weights_pass_its_first_bound() -> None:
    """Weights whose largest times the sum of the shoe's products passes 2^63 while every column's terms
    stay far below: the bound term by term proves the residues (the same sums as in Python integers)."""
    counts = np.array([[1000] * 9 + [1]], dtype=np.int64)
    terms = [(0, 0, 0, 3), (0, 54, 1, 2**62)]                         # 1000 x 3 and 1 x 2^62, tree-free
    want = _batch_by_hand(counts, [], [], terms, 2)
    assert want == [[3000, 2**62]] and _batch(counts, [], [], terms, 2).tolist() == want


@compiled
@settings(max_examples=25, deadline=None, database=None, derandomize=True)
@given(st.lists(st.lists(st.integers(0, 160), min_size=10, max_size=10), min_size=9, max_size=27),
       st.lists(st.tuples(st.integers(0, 1), st.integers(0, 65), st.integers(0, 3),
                          st.one_of(st.sampled_from([1, 6, 720]), st.integers(0, 720))), min_size=1, max_size=40))
def test_the_exposure_kernel_counts_shoes_eight_at_a_time_as_one_by_one(
        values: list[list[int]], terms: list[tuple[int, int, int, int]]) -> None:
    """More shoes than one block of lanes, the last block part full, terms of a few weights in runs and not:
    the sums of each shoe in Python integers."""
    counts = np.array(values, dtype=np.int64)
    slots, parents = [[0, 7, 65], [3, 60, 13], [1, 2]], [[0, 0, 0], [2, 0, 1], [0, 2]]
    assert _batch(counts, slots, parents, terms, 4).tolist() == _batch_by_hand(counts, slots, parents, terms, 4)


@compiled
def test_the_exposure_kernel_takes_shoes_either_side_of_its_proven_size_in_one_block() -> None:
    """1,448 cards (1448^6 < 2^63: counted side by side) and 1,449 (past it: counted alone, every product
    checked) in the same block of shoes, with shoes of a few cards between them: the exact sums."""
    counts = np.array([[1448, *[0] * 9], [1449, *[0] * 9], [3, 2, 1, *[0] * 7], [1448, *[0] * 9]], dtype=np.int64)
    slots, parents = [[0], [1], [2], [3], [4]], [[0], [0], [0], [0], [0]]        # the product of six cards of value 0
    terms = [(0, 5, 0, 1), (0, 5, 0, -1), (0, 5, 1, 1), (0, 60, 1, -1)]           # 0 in column 0; column 1 small
    want = _batch_by_hand(counts, slots, parents, terms, 2)
    assert _batch(counts, slots, parents, terms, 2).tolist() == want and want[0][0] == 0


@compiled
def test_the_exposure_kernel_sums_products_near_2_63_in_chunks_that_cannot_wrap() -> None:
    """Three products of about 2^63 each (1,448 cards of one value): their sum passes 2^64, so summed in one
    64-bit word it would wrap to a number that seems to prove the residue; in chunks of two (the kernel's
    K = floor((2^64 - 1) / 1448^6) = 2) the 128-bit sum does not, and a sum past 64 bits is an error.
    With signs that cancel, the same products give the exact small sum (counted again in 128 bits)."""
    counts = np.array([[1448, *[0] * 9]] * 3, dtype=np.int64)
    slots, parents = [[0], [1], [2], [3], [4]], [[0], [0], [0], [0], [0]]
    x = 1448 * 1447 * 1446 * 1445 * 1444 * 1443
    assert 2**63 > 1448**6 >= x > 2**62 and (2**64 - 1) // 1448**6 == 2 and (3 * x) % 2**64 < 2**63
    with pytest.raises(OverflowError):
        _batch(counts, slots, parents, [(0, 5, 0, 1)] * 3, 1)
    # terms of one last slot and weight are added up before their product: a chunk ends inside such a group too
    # (the term of slot 60 leaves room for one more, so the two of slot 5 fall into two chunks)
    y = x // 1443 * 1448
    assert (x + x + y) % 2**64 < 2**63 and ((x + y) // 2**64, (2 * x) // 2**64) == (0, 0)
    with pytest.raises(OverflowError):
        _batch(counts, slots, parents, [(0, 60, 0, 1), (0, 5, 0, 1), (0, 5, 0, 1)], 1)
    assert _batch(counts, slots, parents, [(0, 5, 0, 1), (0, 5, 0, -1), (0, 5, 0, 1)], 1).tolist() == [[x]] * 3


def test_a_walk_whose_split_would_pass_its_limit_is_refused_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk by point values splits each round by the suits it reads: the terms are counted first; past
    the limit, it is refused in one line (a wager then is walked card by card). Its counts equal the walk's
    that reads the three suits compared together (the default for this bet: tests/test_walk_joint.py)."""
    wager = one_outcome("banker_cards == 3 and banker_suit_1 == banker_suit_2 == banker_suit_3")
    shoe = Shoe.decks(8).remove("As")
    cards = walk._trackers(wager.features)           # each position read on its own, as the split reads them
    split = walk._LazyWalk(cards, [wager]).run(shoe, "a test")
    assert walk._Walk(walk._wager_trackers(wager), [wager]).run(shoe, "a test") == split
    monkeypatch.setattr(walk, "SPLIT_LIMIT", 10)
    with pytest.raises(TooLarge, match=r"would split [\d,]+ classes of rounds into [\d,]+ by the ranks or suits they "
                                       r"read \(limit 10\): refused"):
        walk._LazyWalk(cards, [wager]).run(shoe, "a test")


@compiled
def test_an_overflow_in_a_table_sum_is_one_line_naming_a_defect_never_a_number() -> None:
    from exactodds.engine.multiset import compile_table
    from exactodds.errors import InconsistentCounts
    table = compile_table(("banker", "banker_cards", "player", "player_cards"))
    huge = np.full(len(table.multisets), 2**62, dtype=np.int64)
    with pytest.raises(InconsistentCounts, match=r"counts by banker, .*: key_sums: a count does not fit 64 bits"):
        table.key_sums(huge)


@compiled
def test_the_category_kernel_equals_the_pure_route_and_refuses_what_is_out_of_range() -> None:
    """The every-card categories' products (category_products) against NumPy's, on shoes from full to
    nearly empty; then an index out of range and an overflow, each an error, never a read or a wrap."""
    from exactodds.engine import identity
    from exactodds.engine.multiset import compile_table
    values, _ = compile_table(("banker", "banker_cards", "player", "player_cards")).value_multiplicities()
    for shoe in (Shoe.decks(8), Shoe.decks(8).remove("As", "Ah", "9d", "9c", "Ks"),
                 Shoe.decks(1).remove(*[f"{r}{s}" for r in "A23456789" for s in "shdc"])):
        got = identity.all_card_categories(shoe, values)
        with native.pure():
            assert np.array_equal(got, identity.all_card_categories(shoe, values))
    plan = identity._plan(values)
    flat = np.ones((70, 7), dtype=np.int64)
    out = np.empty((len(values), 3), dtype=np.int64)
    broken = list(plan.halves32)
    broken[0] = np.array(broken[0], copy=True)
    broken[0][0, 0] = 70                                    # a slot past the table of factorials
    with pytest.raises(IndexError):
        core.category_products(flat, *broken, out)
    with pytest.raises(OverflowError):                      # products past 2^63
        core.category_products(np.full((70, 7), 2**20, dtype=np.int64), *plan.halves32, out)
