"""New bets written as paytable files with the positional features, priced exactly.

Each bet of ``examples/new-bets.toml`` is checked three ways: against the brute
force over card identities on small shoes (unequal suits included), against
an independent count on 8 decks (closed forms over identities or ranks, and a
plain value-level enumeration written here), and for the invariants.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exactodds import ExactOddsError, Shoe, deal, load_file, price
from exactodds.game.cards import Card, Rank
from exactodds.game.rules import play

from .strategies import depleted_shoes, small_shoes
from .test_engine import assert_every_wager_agrees

EXAMPLES = Path(__file__).parent.parent / "examples" / "new-bets.toml"
EIGHT = Shoe.decks(8)


@pytest.fixture(scope="module")
def bets() -> dict:
    return dict(load_file(EXAMPLES))


def lines(bets: dict, wager: str, shoe: Shoe = EIGHT) -> dict[str, int]:
    w = bets[wager]
    return {ln.id: ln.combinations for ln in price(w, w.paytable("A"), deal(shoe)).lines}


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(small_shoes(max_identities=6))
def test_new_bets_agree_with_brute_force(shoe: Shoe) -> None:
    assert_every_wager_agrees(shoe, dict(load_file(EXAMPLES)))


@pytest.mark.slow
@pytest.mark.parametrize("cards", [
    {"9s": 2, "Ks": 2, "Kh": 1, "9h": 1, "Qs": 1, "4c": 1},         # suited nines, kings, unequal suits
    {"2d": 2, "7d": 2, "3h": 2, "8h": 1, "5c": 2, "Kc": 1},         # two-card 9s, third cards of one suit
    {"Ah": 3, "As": 1, "Ad": 1, "6h": 2, "6c": 1, "Jd": 1},         # four of a kind possible, suits unequal
])
def test_new_bets_agree_with_brute_force_on_targeted_shoes(cards: dict[str, int], bets: dict) -> None:
    shoe = Shoe.from_card_counts(cards, label="targeted")
    assert_every_wager_agrees(shoe, bets)


def test_the_targeted_shoes_make_the_rare_lines_happen(bets: dict) -> None:
    """So the agreement above is not vacuous."""
    assert lines(bets, "perfect-9", Shoe.from_card_counts({"9s": 2, "Ks": 2, "Kh": 1, "9h": 1, "Qs": 1, "4c": 1}))[
        "suited_9"] > 0
    third = lines(bets, "third-card-suits", Shoe.from_card_counts(
        {"2d": 2, "7d": 2, "3h": 2, "8h": 1, "5c": 2, "Kc": 1}))
    assert third["suited_player_win"] > 0 and third["suited_banker_win"] > 0
    assert lines(bets, "four-card-poker", Shoe.from_card_counts(
        {"Ah": 3, "As": 1, "Ad": 1, "6h": 2, "6c": 1, "Jd": 1}))["four_of_a_kind"] > 0


# -- independent counts on 8 decks -------------------------------------------------

def test_banker_first_card_is_one_card_in_thirteen(bets: dict) -> None:
    """Any single position is a uniform draw from the shoe: 32 Kings in 416 cards."""
    got = lines(bets, "banker-first-card")
    assert got["king"] == got["nine"] == EIGHT.sequences * 32 // 416
    depleted = Shoe.decks(8).remove("Ks", "Kh", "9d")
    got = lines(bets, "banker-first-card", depleted)
    assert Fraction(got["king"], depleted.sequences) == Fraction(30, 413)


def _identity_pairs(shoe: Shoe) -> list[tuple[Card, Card, int]]:
    """Ordered pairs of identities with the number of ways to draw them first and second."""
    counts = {Card.from_index(i): n for i, n in enumerate(shoe.card_counts or ()) if n}
    return [(x, y, nx * (counts[y] - (x == y))) for x, nx in counts.items() for y in counts]


def test_perfect_9_by_a_sum_over_identity_pairs(bets: dict) -> None:
    for shoe in (EIGHT, Shoe.decks(6).remove("9s", "9s", "Ah", "8h")):
        hits = sum(n for x, y, n in _identity_pairs(shoe)
                   if x.suit == y.suit and (x.points + y.points) % 10 == 9 and x.points != 0)
        assert lines(bets, "perfect-9", shoe)["suited_9"] == hits * math.perm(shoe.size - 2, 4)
    # by hand for 8 decks: a 1-8 needs the one suited rank completing 9, a 9 any suited 10-value card
    assert Fraction(lines(bets, "perfect-9")["suited_9"], EIGHT.sequences) == Fraction(8 * 32 * 8 + 32 * 32,
                                                                                      416 * 415)


@settings(max_examples=15, deadline=None)
@given(depleted_shoes())
def test_single_positions_and_suited_pairs_on_random_depleted_shoes(shoe: Shoe) -> None:
    """Unequal suits and ranks: a position is a uniform draw; a suited 9 is a sum over identity pairs."""
    bets = dict(load_file(EXAMPLES))
    first = lines(bets, "banker-first-card", shoe)
    assert first["king"] * shoe.size == shoe.rank_counts[12] * shoe.sequences
    assert first["nine"] * shoe.size == shoe.rank_counts[8] * shoe.sequences
    hits = sum(n for x, y, n in _identity_pairs(shoe)
               if x.suit == y.suit and (x.points + y.points) % 10 == 9 and x.points != 0)
    assert lines(bets, "perfect-9", shoe)["suited_9"] == hits * math.perm(shoe.size - 2, 4)


def test_four_card_poker_by_rank_quadruples(bets: dict) -> None:
    shoe = Shoe.decks(8).remove("As", "Ah", "Kd")
    n = list(shoe.rank_counts)
    want: Counter = Counter()
    for a in range(13):
        for b in range(13):
            for c in range(13):
                for d in range(13):
                    left = list(n)
                    ways = 1
                    for r in (a, b, c, d):
                        ways *= left[r]
                        left[r] -= 1
                    sizes = sorted(Counter((a, b, c, d)).values())
                    kind = {(4,): "four_of_a_kind", (1, 3): "three_of_a_kind", (2, 2): "two_pair"}.get(tuple(sizes))
                    want[kind] += ways
    got = lines(bets, "four-card-poker", shoe)
    tail = math.perm(shoe.size - 4, 2)
    for kind in ("four_of_a_kind", "three_of_a_kind", "two_pair"):
        assert got[kind] == want[kind] * tail, kind


def _value_rounds(shoe: Shoe):
    """Every value-level round, enumerated plainly: (values in shoe order, Round, weight)."""

    def extend(seq: list[int]):
        try:
            rnd = play(seq)
        except ExactOddsError:                     # the rules call for another card
            for v in range(10):
                yield from extend(seq + [v])
            return
        yield seq, rnd, _weight(list(shoe.value_counts), seq, shoe.size)

    for first in itertools.product(range(10), repeat=4):
        yield from extend(list(first))


def _weight(counts: list[int], seq: list[int], size: int) -> int:
    left = list(counts)
    w = 1
    for v in seq:
        w *= left[v]
        left[v] -= 1
    return w * math.perm(size - len(seq), 6 - len(seq))


@pytest.fixture(scope="module")
def value_rounds_8() -> list:
    out = list(_value_rounds(EIGHT))
    assert all(rnd.cards_used == len(seq) for seq, rnd, _w in out) and len(out) == 339_400
    assert sum(w for *_x, w in out) == EIGHT.sequences
    return out


@pytest.mark.slow
def test_comeback_by_plain_enumeration(bets: dict, value_rounds_8: list) -> None:
    want = sum(w for _s, r, w in value_rounds_8
               if sum(r.player_cards[:2]) % 10 in (0, 1, 2) and r.player_total > r.banker_total)
    assert lines(bets, "comeback-player")["comeback"] == want


@pytest.mark.slow
def test_third_card_suits_by_suit_symmetry(bets: dict, value_rounds_8: list) -> None:
    """In a full shoe the suits are symmetric: two third cards of different values share a
    suit with chance 1/4; of one value v, (n_v/4 - 1)/(n_v - 1) (two cards of one class)."""
    n = EIGHT.value_counts
    want = {"suited_player_win": Fraction(0), "suited_banker_win": Fraction(0), "banker_3_player_8": Fraction(0)}
    for _s, r, w in value_rounds_8:
        if len(r.player_cards) == 3 and len(r.banker_cards) == 3:
            p3, b3 = r.player_cards[2], r.banker_cards[2]
            same = Fraction(1, 4) if p3 != b3 else Fraction(n[p3] // 4 - 1, n[p3] - 1)
            if r.player_total > r.banker_total:
                want["suited_player_win"] += w * same
            elif r.banker_total > r.player_total:
                want["suited_banker_win"] += w * same
        if len(r.player_cards) == 3 and sum(r.banker_cards[:2]) % 10 == 3 and r.player_cards[2] == 8:
            stood = len(r.banker_cards) == 2
            want["banker_3_player_8"] += w * (1 if stood else 1 - (Fraction(1, 4) if r.banker_cards[2] != 8
                                                                    else Fraction(n[8] // 4 - 1, n[8] - 1)))
    got = lines(bets, "third-card-suits")
    for k, v in want.items():
        assert got[k] == v, k


# -- a second route on full shoes for the four initial cards ---------------------------

@pytest.mark.parametrize("wager,features", [
    ("perfect-pairs-player", ("player_pair",)),
    ("majestic-match-banker", ("banker_royal_match", "banker_suited")),
])
def test_initial_card_wagers_two_routes_on_a_depleted_shoe(wager: str, features: tuple[str, ...]) -> None:
    """Quadratic forms over identities (identity.py) against the multiset table (multiset.py)."""
    from exactodds import load_catalogue
    from exactodds.engine.multiset import compile_table

    shoe = Shoe.decks(8).remove("7s", "7s", "7h", "Kd", "Qd", "Qd", "9c")
    w = load_catalogue()[wager]
    table = compile_table(tuple(sorted(features)))
    counts = table.counts(shoe)
    for t in w.paytables.values():
        by_line = {ln.id: ln.combinations for ln in price(w, t, deal(shoe)).lines}
        for o in w.outcomes:
            mask = o.condition.mask(table.columns, len(table.keys))
            assert by_line[o.id] == int(counts[mask].sum()), (wager, o.id)


def one_outcome_file(path: Path, wager: str, when: str) -> Path:
    """A data file of one wager with one outcome, paid 2 to 1."""
    when = when.replace('"', '\\"')
    path.write_text(f'''[[wager]]
id = "{wager}"
name = "{wager}"
section = "example"
  [[wager.outcome]]
  id = "x"
  name = "x"
  when = "{when}"
  [[wager.paytable]]
  id = "A"
  pays = {{ x = "2 to 1" }}
''', encoding="utf-8")
    return path


def test_in_with_features_reads_each_round(tmp_path: Path) -> None:
    """``x in (a, b)`` with features on the right compares within the round (brute force agrees)."""
    path = one_outcome_file(tmp_path / "in.toml", "matching-first-card",
                            "player_value_1 in (banker_value_1, banker_value_2) "
                            "and player_suit_1 not in ('h', banker_suit_1)")
    cat = dict(load_file(path))
    for cards in ({"9s": 2, "9h": 2, "Ks": 1, "4d": 2, "4c": 1}, {"As": 3, "Ad": 1, "2h": 2, "Qc": 2}):
        assert_every_wager_agrees(Shoe.from_card_counts(cards), cat)
    got = lines(cat, "matching-first-card")["x"]
    assert 0 < got < EIGHT.sequences // 2


# -- bad conditions still fail with one line naming the file and the outcome ------------

@pytest.mark.parametrize("when,message", [
    ("player_suit_1 == 3", "text feature 'player_suit_1' is compared with number 3"),
    ("player_rank_1 == 's'", "number feature 'player_rank_1' is compared with text 's'"),
    ("player_sute_1 == 's'", "unknown feature 'player_sute_1'"),
    ("player_suit_1 + 1 == 2", "arithmetic on text feature 'player_suit_1'"),
    ("player_suit_1 == 'S'", "'S' is not a value of 'player_suit_1'"),
    ("player_pair == 'perfekt'", "'perfekt' is not a value of 'player_pair'"),
    ("'h' in player_nines", "'in' needs values in parentheses"),
    ("player", "number feature 'player' is not yes/no"),
    ("player_suit_1 < player_suit_2", "have no order"),
    ("player_wins == 1", "yes/no feature 'player_wins' is compared with number 1"),
    ("min() == 1", "min() takes one or more numbers"),
    ("player == (9,)", "values in parentheses ((9,)) are only read by 'in'"),
    ("max(player, banker, *cards) == 9", "max() takes one or more numbers"),
    ("not " * 600 + "tie", "too long or too deeply nested"),
])
def test_bad_conditions_name_the_file_and_outcome(tmp_path: Path, when: str, message: str) -> None:
    path = one_outcome_file(tmp_path / "bad.toml", "bad", when)
    with pytest.raises(ExactOddsError) as err:
        load_file(path)
    text = str(err.value)
    assert text.startswith(f"{path}: wager 'bad': outcome 'x': ") and message in text
    assert "\n" not in text


def test_two_every_card_features_with_a_single_card_feature_are_refused_clearly(tmp_path: Path) -> None:
    # one of them is read with single cards by suit pattern (tests/test_patterns.py); two are not
    path = one_outcome_file(tmp_path / "mix.toml", "mix", "same_colour and same_rank and player_rank_1 == 13")
    with pytest.raises(ExactOddsError, match="'same_colour' and 'same_rank' cannot be read together with "
                                             "'player_rank_1'"):
        load_file(path)


def test_a_shoe_with_unknown_suits_prices_ranks_but_refuses_suits(bets: dict) -> None:
    shoe = Shoe.decks(8).remove("K", "K")               # two Kings, suits not given
    assert Fraction(lines(bets, "four-card-poker", shoe)["four_of_a_kind"], shoe.sequences) > 0
    with pytest.raises(ExactOddsError, match="reads suits, but the shoe's suits are unknown"):
        lines(bets, "perfect-9", shoe)


def test_big_shoes_count_in_python_integers(bets: dict) -> None:
    """Past the int64 bound (about 27 decks) the same tables count in Python integers."""
    shoe = Shoe.decks(30)
    got = lines(bets, "banker-first-card", shoe)
    assert got["king"] * 13 == shoe.sequences
    poker = lines(bets, "four-card-poker", shoe)
    n = 120
    assert poker["four_of_a_kind"] == 13 * n * (n - 1) * (n - 2) * (n - 3) * math.perm(shoe.size - 4, 2)
    assert Rank.KING.points == 0


# -- dealt rounds are settled by the same definitions ----------------------------------

def test_dealt_rounds_settle_as_the_brute_force_reads_them(bets: dict) -> None:
    """The simulator's settlement (rounds.py over columns.py) against brute.all_features."""
    import numpy as np

    from exactodds.simulation.rounds import settle_many
    from exactodds.simulation.simulate import simulate

    from . import brute

    sim = simulate(rounds=3000, seed=11, mode="fresh", decks=1)
    pairs = [(w, w.paytable("A")) for w in bets.values()]
    settled = settle_many(pairs, sim.player, sim.banker)
    for i in range(len(sim.player)):
        p = [Card.from_index(int(c)) for c in sim.player[i] if c >= 0]
        b = [Card.from_index(int(c)) for c in sim.banker[i] if c >= 0]
        order = [p[0], b[0], p[1], b[1]] + p[2:] + b[2:]
        rnd = play([c.points for c in order])
        row = brute.all_features(tuple(order), rnd)
        for (w, t), column in zip(pairs, settled):
            want = w.settle_row(row, t)
            got = w.outcomes[int(column[i])].id if column[i] >= 0 else None
            assert got == want, (w.id, i)
    assert any(np.any(c >= 0) for c in settled)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=6, max_size=6))
def test_every_feature_of_a_dealt_round_matches_the_brute_force(indices: list[int]) -> None:
    """columns.py (tables and dealt rounds) against brute.all_features (written apart), feature by feature."""
    import numpy as np

    from exactodds.simulation.rounds import deal_from, features
    from exactodds.wagers.outcomes import KNOWN_FEATURES

    from . import brute

    player, banker = deal_from(np.array([indices]))
    cols = features(player, banker)
    p = [Card.from_index(int(c)) for c in player[0] if c >= 0]
    b = [Card.from_index(int(c)) for c in banker[0] if c >= 0]
    order = [p[0], b[0], p[1], b[1]] + p[2:] + b[2:]
    want = brute.all_features(tuple(order), play([c.points for c in order]))
    assert set(cols) == KNOWN_FEATURES == set(want)
    for name in sorted(KNOWN_FEATURES):
        got = cols[name][0]
        assert (got.item() if hasattr(got, "item") else got) == want[name], name


# -- the recursive walk: a second route on full shoes for every wager on point values -------

VALUE_BETS = '''[[wager]]
id = "value-mix"
name = "Point values by position, card counts and the result"
section = "example"
  [[wager.outcome]]
  id = "a"
  name = "Banker starts on 3, the Player draws an 8"
  when = "banker_two_card_total == 3 and player_value_3 == 8"
  [[wager.outcome]]
  id = "b"
  name = "Two or more 0-value cards and the Banker wins with its first card a 9"
  when = "count_0 >= 2 and banker_wins and banker_value_1 == 9"
  [[wager.outcome]]
  id = "c"
  name = "The Banker's third card equals the Player's first, Player wins"
  when = "banker_value_3 == player_value_1 and player_wins and not (banker_two_card_total == 3 and player_value_3 == 8)"
  [[wager.paytable]]
  id = "A"
  pays = { a = "10 to 1", b = "20 to 1", c = "5 to 1" }
'''


@pytest.mark.slow
@pytest.mark.parametrize("shoe", [Shoe.decks(6), Shoe.decks(8).remove("9", "9", "K", "3", "Q")],
                         ids=["6 decks", "8 decks depleted"])
def test_walk_route_agrees_on_point_value_bets(tmp_path: Path, shoe: Shoe, bets: dict) -> None:
    from exactodds import analyze

    path = tmp_path / "values.toml"
    path.write_text(VALUE_BETS, encoding="utf-8")
    cat = {**dict(load_file(path)), "comeback-player": bets["comeback-player"]}
    for wid in cat:
        (tables,) = analyze(shoe, wagers=[wid], catalogue=cat)
        (walked,) = analyze(shoe, wagers=[wid], catalogue=cat, route="walk")
        assert tables.lines == walked.lines, wid
        assert all(ln.combinations > 0 for ln in tables.lines), wid


@pytest.mark.slow
@pytest.mark.parametrize("wager", ["perfect-9", "four-card-poker", "banker-first-card"])
def test_walk_route_agrees_on_the_initial_cards(wager: str, bets: dict) -> None:
    """Ranks and suits of the four initial cards, walked card by card on a depleted shoe."""
    from exactodds import analyze

    shoe = Shoe.decks(6).remove("Ks", "9h", "9h", "As", "Ac", "4d")
    (tables,) = analyze(shoe, wagers=[wager], catalogue=bets)
    (walked,) = analyze(shoe, wagers=[wager], catalogue=bets, route="walk")
    assert tables.lines == walked.lines

