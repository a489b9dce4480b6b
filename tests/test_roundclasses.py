"""Counting rounds by class gives exactly the counts of settling every round one by one."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from exactodds.analyses.analysis import load_file
from exactodds.simulation.checksim import Tally, tally_chunk
from exactodds.simulation.recordio import Chunk
from exactodds.simulation.roundclasses import (
    RoundHistogram,
    all_same_flags,
    breaks_rules,
    decode_values,
    initial_codes,
    settle_grouped,
    value_codes,
)
from exactodds.simulation.rounds import POINTS, features, invalid_rounds, settle_rounds
from exactodds.simulation.simulate import simulate
from exactodds.wagers.catalogue import load_catalogue


def _rounds() -> tuple[np.ndarray, np.ndarray]:
    """Real shoes of two decks (many all-same rounds) and fresh eight-deck rounds."""
    a = simulate(decks=2, rounds=20_000, seed=1)
    b = simulate(decks=8, rounds=20_000, seed=2, mode="fresh")
    return np.concatenate([a.player, b.player]), np.concatenate([a.banker, b.banker])


def test_class_counts_equal_settling_every_round() -> None:
    """Every table of the catalogue and of the example file (whose signatures need their own keys),
    counted in three chunks and added up, equals settling each of the 40,000-odd rounds by itself."""
    cat = load_catalogue().merged(load_file("examples/new-bets.toml"))
    pairs = [(w, t) for w in cat.values() for t in w.paytables]
    player, banker = _rounds()
    total = Tally()
    for part in np.array_split(np.arange(len(player)), 3):
        chunk = Chunk(player[part], banker[part], part + 2, "test")
        total.add(tally_chunk(chunk, pairs, decks=8, lenient=False))
    counted = total.outcome_counts(pairs)
    cols = features(player, banker)                        # every round, no grouping
    assert total.rounds == len(player)
    for w, t in pairs:
        assign = settle_rounds(w, w.paytables[t], cols)
        want = np.bincount(np.where(assign < 0, len(w.outcomes), assign), minlength=len(w.outcomes) + 1)
        assert counted[f"{w.id}:{t}"].tolist() == want.tolist(), (w.id, t)


def test_settling_by_groups_pays_every_round_as_settling_it_alone() -> None:
    """What simulate writes (rounds grouped by value code, then by each signature's key) is, round
    by round, what settling each round by itself gives, for every table and the example file's."""
    cat = load_catalogue().merged(load_file("examples/new-bets.toml"))
    pairs = [(w, w.paytables[t]) for w in cat.values() for t in w.paytables]
    player, banker = _rounds()
    cols = features(player, banker)
    for (w, table), assign in settle_grouped(pairs, player, banker):
        assert np.array_equal(assign, settle_rounds(w, table, cols)), (w.id, table.id)


def test_settlement_columns_are_compared_round_by_round() -> None:
    """A simulator's settlements, some made wrong on purpose (and one value no outcome has,
    read with --lenient): the mismatches and the outcomes reported are, for every table, those
    counted round by round."""
    cat = load_catalogue()
    pairs = [(w, t) for w in cat.values() for t in w.paytables]
    player, banker = _rounds()
    cols = features(player, banker)
    rng = np.random.default_rng(5)
    settled, want = {}, {}
    for w, t in pairs:
        ids = [o.id for o in w.outcomes] + ["lose"]
        paid = settle_rounds(w, w.paytables[t], cols)
        paid = np.where(paid < 0, len(ids) - 1, paid)
        written = np.where(rng.random(len(paid)) < 0.01, rng.integers(0, len(ids) + 1, len(paid)), paid)
        values = ["not-an-outcome", *ids[::-1]]            # the file's own order of values
        codes = np.where(written == len(ids), 0, len(ids) - written)
        settled[f"{w.id}:{t}"] = (codes.astype(np.int64), values)
        want[f"{w.id}:{t}"] = (int((written != paid).sum()),
                               np.bincount(written, minlength=len(ids) + 1).tolist())
    chunk = Chunk(player, banker, np.arange(len(player)) + 2, "test", settled=settled)
    t = tally_chunk(chunk, pairs, decks=8, lenient=True)
    for key, (mismatches, reported) in want.items():
        assert (t.mismatches[key], t.reported[key].tolist()) == (mismatches, reported), key


def test_decoded_rounds_carry_their_value_code_and_no_all_same_flag_they_need_not() -> None:
    from exactodds.engine.roundtable import slot_values

    values = np.asarray(slot_values())                      # every sequence of point values a round can have
    codes = np.where(values >= 0, values + 1, 0) @ 11 ** np.arange(5, -1, -1)
    rounds = decode_values(codes)
    assert np.array_equal(value_codes(rounds), codes)
    present = values >= 0
    forced = (~present | (values == values[:, :1])).all(1) & (values[:, 0] > 0)   # all one point value, 1-9
    flags = all_same_flags(rounds)
    assert np.array_equal(flags != 0, forced) and set(flags[forced]) == {4}       # those share a rank


def test_the_drawing_rules_are_checked_per_value_code() -> None:
    player, banker = _rounds()
    broken = simulate(decks=8, rounds=5_000, seed=3, mode="fresh", faults=["table1:6,5"])
    for p, b in ((player, banker), (broken.player, broken.banker)):
        cards = np.concatenate([p, b], axis=1)
        wrong = np.zeros(len(p), dtype=bool)
        wrong[invalid_rounds(p, b)] = True
        assert np.array_equal(breaks_rules(value_codes(cards)), wrong)
    assert breaks_rules(value_codes(np.concatenate([broken.player, broken.banker], axis=1))).any()


def test_initial_codes_and_histogram_merge() -> None:
    player, banker = _rounds()
    cards = np.concatenate([player, banker], axis=1)
    codes = initial_codes(cards)
    a, b = RoundHistogram(), RoundHistogram()
    a.add(cards[:100], kinds={"initial", "flagged"})
    b.add(cards[100:], kinds={"initial", "flagged"})
    a.merge(b)
    whole = RoundHistogram()
    whole.add(cards, kinds={"initial", "flagged"})
    assert np.array_equal(a.initial, whole.initial) and np.array_equal(a.values, whole.values)
    assert np.array_equal(a.flagged.compact().keys, whole.flagged.compact().keys)
    assert np.array_equal(a.flagged.counts, whole.flagged.counts)
    assert a.rounds == len(cards) and int(whole.initial.sum()) == len(codes)
    assert POINTS[cards[0, 0]] == (value_codes(cards[:1])[0] // 11 ** 5) - 1


def test_a_histogram_pickles_sparse_and_whole() -> None:
    """What a Dask worker sends back for a file: the value codes counted, not the 14 MB table of every one."""
    player, banker = _rounds()
    cards = np.concatenate([player, banker], axis=1)
    h = RoundHistogram()
    h.add(cards, kinds={"initial", "flagged"})
    h.values[123] = 2**40                                # a count past 32 bits keeps its value
    h.classes(("multiset", ("banker",)))                 # a cached view, not sent
    data = pickle.dumps(h)
    back = pickle.loads(data)
    assert len(data) < h.values.nbytes // 20
    for name in ("values", "initial"):
        assert getattr(back, name).dtype == np.int64 and np.array_equal(getattr(back, name), getattr(h, name))
    assert np.array_equal(back.flagged.compact().keys, h.flagged.compact().keys) and back.rounds == h.rounds
    empty = pickle.loads(pickle.dumps(RoundHistogram()))
    assert empty.values is None and empty.rounds == 0


@pytest.mark.parametrize("decks", [1, 8])
def test_flagged_classes_add_up(decks: int) -> None:
    r = simulate(decks=decks, rounds=3_000, seed=4)
    cards = np.concatenate([r.player, r.banker], axis=1)
    h = RoundHistogram()
    h.add(cards, kinds={"flagged"})
    classes = h.classes(("round", ("banker", "banker_cards", "player", "player_cards")))
    assert int(classes.counts.sum()) == len(cards) and (classes.counts > 0).all()
    reps = classes.rounds(np.arange(len(classes.counts)))
    assert np.array_equal(value_codes(reps), classes.codes) and np.array_equal(all_same_flags(reps), classes.flags)
    assert int(h.flagged.compact().counts.sum()) == int((all_same_flags(cards) != 0).sum())


def test_the_dealable_value_codes_are_the_round_tables() -> None:
    """Two routes to the rounds the rules can deal: who draws in each five-card window, and the
    engine's round table (a separate walk of the deal)."""
    from exactodds.engine.roundtable import slot_values
    from exactodds.simulation.roundclasses import _dealable

    values = np.asarray(slot_values(), dtype=np.int64)
    table = np.zeros(11 ** 6, dtype=bool)
    table[np.where(values >= 0, values + 1, 0) @ 11 ** np.arange(5, -1, -1)] = True
    assert np.array_equal(_dealable(), table) and int(table.sum()) == 339_400
