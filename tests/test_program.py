"""The walk's program for many shoes, made smaller (exactodds.engine.program): every shoe counts to the same
integers by the program as walk_program made it and by the program gathered, and by each shoe's own walk."""

from __future__ import annotations

import random
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest

from exactodds.engine import native, program, walk
from exactodds.engine.walk import WalkDistribution, outcome_counts_many
from exactodds.errors import ExactOddsWarning
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.wagers.catalogue import load_catalogue, read_file

BETS = read_file(Path(__file__).parent / "suit-bets.toml")
CATALOGUE = load_catalogue().merged(BETS)

pytestmark = pytest.mark.skipif(native.kernels() is None, reason="the program is the compiled core's")


def _as_made(states, edges, leaf_cards, leaf_column, width):
    """The program as walk_program made it: its steps in the order of the states they leave, nothing gathered."""
    order = np.argsort(edges[0], kind="stable")
    return program.Program(states, tuple(np.ascontiguousarray(np.asarray(a)[order], dtype=np.int32) for a in edges),
                           np.asarray(leaf_cards, dtype=np.int64), np.asarray(leaf_column, dtype=np.int64), width)


def _shoes(name: str, n: int = 6) -> list[Shoe]:
    rng = random.Random(zlib.crc32(name.encode()))
    out = [Shoe.decks(8)]
    for decks in (8, 8, 6, 2, 1)[: n - 1]:
        cards = [Card.from_index(i) for i in range(52) for _ in range(decks)]
        out.append(Shoe.decks(decks).remove(*rng.sample(cards, rng.randrange(1, min(200, len(cards) - 6)))))
    return out


def _counted(wager_id: str, shoes: list[Shoe], monkeypatch: pytest.MonkeyPatch | None = None,
             gather=None) -> list[dict[int, int]]:
    wager = CATALOGUE[wager_id]
    table = next(iter(wager.paytables.values()))
    walk._PROGRAMS.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        if gather is None:
            return outcome_counts_many(wager, table, shoes)
        assert monkeypatch is not None
        with monkeypatch.context() as m:
            m.setattr(program, "gathered", gather)
            return outcome_counts_many(wager, table, shoes)


@pytest.mark.parametrize("wager_id", ["contrast", "one-colour-named", "mirror", "one-suit-named", "player-pair",
                                      "dragon-7-insurance", "banker", "lucky-six", "perfect-pairs-both",
                                      "royal-9-progressive"])
def test_the_program_gathered_counts_every_shoe_as_the_program_made(wager_id, monkeypatch):
    """Decided states ended and last steps gathered: the same integers per shoe as the program as made, summing
    to each shoe's ordered 6-card sequences, and (full and depleted, 1 to 8 decks) as each shoe's own walk."""
    shoes = _shoes(wager_id)
    gathered = _counted(wager_id, shoes)
    made = _counted(wager_id, shoes, monkeypatch, _as_made)
    assert gathered == made
    assert all(sum(c.values()) == s.sequences for c, s in zip(gathered, shoes))
    wager = CATALOGUE[wager_id]
    table = next(iter(wager.paytables.values()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        assert gathered[:3] == [WalkDistribution(s).outcome_counts(wager, table) for s in shoes[:3]]


def test_gathering_makes_the_program_of_contrast_several_times_smaller(monkeypatch):
    """What the gathering is for: Contrast's program at 8 decks, its steps before and after (module doc)."""
    sizes = []
    gathered = program.gathered

    def measured(states, edges, leaf_cards, leaf_column, width):
        made = gathered(states, edges, leaf_cards, leaf_column, width)
        sizes.append((len(edges[0]), len(made.edges[0]), len(leaf_cards), len(made.leaf_cards)))
        return made

    monkeypatch.setattr(program, "gathered", measured)
    walk._PROGRAMS.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        outcome_counts_many(CATALOGUE["contrast"], CATALOGUE["contrast"].paytable("A"),
                            [Shoe.decks(8), Shoe.decks(8).remove("As")])
    (before, after, leaves_before, leaves_after), = sizes
    assert after * 5 < before and leaves_after < leaves_before
    assert leaves_after <= 6 * 3                      # a leaf per (cards, column): 1 to 6 cards, 3 columns


def test_a_collision_of_the_sums_that_name_sets_of_classes_is_found_and_counted_alike(monkeypatch):
    """Every set of classes given one sum (every word 0): runs of one size all collide, the runs are compared
    member by member, and the sets are told apart by their rows; the counts are those of the program as made."""
    shoes = _shoes("collision", 4)
    made = _counted("contrast", shoes, monkeypatch, _as_made)
    with monkeypatch.context() as m:
        m.setattr(program, "_words", lambda classes: np.zeros(classes, dtype=np.int64))
        collided = _counted("contrast", shoes)
    assert collided == made
    firsts, set_of = program._sets(np.array([0, 1, 0, 2, 0, 1]), np.array([0, 2, 4]), np.array([2, 2, 2]), 3)
    assert set_of.tolist()[0] == set_of.tolist()[2] != set_of.tolist()[1] and len(firsts) == 2


def test_a_wager_decided_before_its_first_card_is_counted_as_made():
    """A program whose start is decided (every way in one column) is kept as made, its steps in order."""
    edges = (np.array([0, 0]), np.array([-1, -2]), np.array([1, 0]), np.array([0, 0]))
    p = program.gathered(1, edges, np.array([1, 1]), np.array([0, 0]), 2)
    assert p.states == 1 and p.groups == () and len(p.edges[0]) == 2
    counts = np.array([[3, 4]], dtype=np.int64)
    assert np.array_equal(p.counts(counts), counts)
