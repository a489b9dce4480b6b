"""The example side bets on suits and ranks (examples/side-bets.toml).

Each bet is checked against the brute force over card identities on small shoes with unequal
suits (random, and targeted so that every outcome happens), and on 8 decks, 6 decks and depleted
shoes against an independent count written here: a plain enumeration of the rounds by point
value over the rules of §627a (exactodds.game.rules.play), weighted by the rank, suit or card
multiplicities of the shoe. The heaviest compiles within 1.5 GB of address space.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Hashable, Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings

from exactodds import ExactOddsError, Shoe, deal, load_file, price
from exactodds.analyses.pricing import table_signature
from exactodds.engine import multiset
from exactodds.game.cards import Card
from exactodds.game.rules import play

from .strategies import depleted_shoes, small_shoes
from .test_bounds import _run
from .test_engine import assert_every_wager_agrees

ROOT = Path(__file__).parent.parent
LIGHT = ROOT / "examples" / "side-bets.toml"


@pytest.fixture(scope="module")
def bets() -> dict:
    return dict(load_file(LIGHT))


def lines(bets: dict, wager: str, shoe: Shoe) -> dict[str, int]:
    w = bets[wager]
    return {ln.id: ln.combinations for ln in price(w, w.paytable("A"), deal(shoe)).lines}


# -- the brute force over card identities on small shoes -----------------------------------

@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(small_shoes(max_identities=6))
def test_side_bets_agree_with_brute_force_on_random_small_shoes(shoe: Shoe) -> None:
    assert_every_wager_agrees(shoe, dict(load_file(LIGHT)))


# Small shoes with unequal suits, each making some rare outcomes happen (asserted below).
TARGETED: dict[str, dict[Card | str, int]] = {
    "sevens, A-2-3 and Q-K-A": {"7s": 2, "7h": 2, "Kc": 2, "Ad": 1, "2s": 1, "3h": 1, "Qd": 1},
    "mostly spades, a few red": {"As": 3, "2s": 2, "Ks": 2, "Qh": 1, "3d": 1, "5c": 1},
    "suited naturals": {"9s": 1, "Ks": 1, "8h": 2, "Qh": 1, "4d": 2, "5d": 1, "Kc": 1},
    "Kings and Jacks as third cards": {"Kh": 2, "Ks": 1, "Jd": 2, "5c": 2, "Ah": 1},
    "red and black sevens": {"7h": 2, "7d": 2, "7s": 1, "Kc": 2, "Ks": 1, "3d": 1},
    "suited straights and flushes": {"Qh": 2, "Kh": 1, "Ah": 2, "2h": 1, "3h": 1, "9s": 1, "5h": 1},
    "a suited Panda 8": {"8d": 2, "Kd": 1, "Jd": 2, "Qc": 1, "7d": 2, "9s": 1},
}
MUST_OCCUR = {
    "sevens, A-2-3 and Q-K-A": [("banker-three-card-poker", "three_of_a_kind"),
                                ("banker-three-card-poker", "straight"), ("suited-dragon-7", "suited_dragon_7"),
                                ("suited-dragon-panda", "suited_dragon_7")],
    "mostly spades, a few red": [("one-suit-round", "one_suit"), ("six-cards-one-colour", "one_colour")],
    "suited naturals": [("suited-naturals", "suited_naturals")],
    "Kings and Jacks as third cards": [("third-cards-same-rank", "same_rank")],
    "red and black sevens": [("three-red-sevens", "three_red_sevens")],
    "suited straights and flushes": [("banker-three-card-poker", "straight_flush"),
                                     ("banker-three-card-poker", "flush")],
    "a suited Panda 8": [("suited-dragon-panda", "suited_panda_8")],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", TARGETED)
def test_side_bets_agree_with_brute_force_on_targeted_shoes(name: str, bets: dict) -> None:
    shoe = Shoe.from_card_counts(TARGETED[name], label=name)
    assert_every_wager_agrees(shoe, bets)
    for wager, outcome in MUST_OCCUR[name]:           # so the agreement is not vacuous
        assert lines(bets, wager, shoe)[outcome] > 0, (wager, outcome)


def test_three_card_straights_count_ace_high_and_low_but_do_not_wrap(bets: dict) -> None:
    """The reading: A-2-3 and Q-K-A are straights, K-A-2 is not."""
    cases: list[tuple[dict[Card | str, int], bool]] = [
        ({"Qd": 1, "Kc": 1, "As": 4, "Kh": 2}, True),       # Banker Q,K then an Ace
        ({"Ad": 1, "2c": 1, "3s": 4, "Kh": 2}, True),       # Banker A,2 then a 3
        ({"Kd": 1, "Ac": 1, "2s": 4, "Kh": 2}, False)]      # Banker K,A then a 2
    for cards, want in cases:
        shoe = Shoe.from_card_counts(cards)
        assert_every_wager_agrees(shoe, bets)
        assert (lines(bets, "banker-three-card-poker", shoe)["straight"] > 0) is want, cards


# -- an independent count on full and depleted shoes ----------------------------------------

@pytest.fixture(scope="module")
def value_rounds() -> dict[str, Counter]:
    """Every round by point values in deal order (P1, B1, P2, B2, then the third cards), played by
    exactodds.game.rules.play, then grouped by what each bet's count depends on (the values dealt, as a
    sorted tuple, and the values of the cards the bet reads) with the number of rounds in each."""
    groups: dict[str, Counter] = {k: Counter() for k in ("all", "naturals", "thirds", "banker", "dragon", "panda")}
    total = 0

    def extend(seq: list[int]) -> None:
        nonlocal total
        try:
            rnd = play(seq)
        except ExactOddsError:                     # the rules call for another card
            for v in range(10):
                extend(seq + [v])
            return
        total += 1
        key = tuple(sorted(seq))
        p, b = rnd.player_cards, rnd.banker_cards
        groups["all"][key] += 1
        if (p[0] + p[1]) % 10 >= 8 and (b[0] + b[1]) % 10 >= 8:
            groups["naturals"][key, (p[0], p[1]), (b[0], b[1])] += 1
        if len(p) == 3 and len(b) == 3 and p[2] == b[2]:
            groups["thirds"][key, p[2]] += 1
        if len(b) == 3:
            groups["banker"][key, tuple(sorted(b))] += 1
            if rnd.banker_total == 7 and rnd.banker_total > rnd.player_total:      # Dragon 7 (627a.1)
                groups["dragon"][key, tuple(sorted(b))] += 1
        if len(p) == 3 and rnd.player_total == 8 and rnd.player_total > rnd.banker_total:   # Panda 8 (627a.1)
            groups["panda"][key, tuple(sorted(p))] += 1

    for first in itertools.product(range(10), repeat=4):
        extend(list(first))
    assert total == 339_400
    return groups


class Cells:
    """A shoe's cards counted by point value and by (point value, rank / suit / colour)."""

    def __init__(self, shoe: Shoe) -> None:
        assert shoe.card_counts is not None
        self.size = shoe.size
        self.value: Counter = Counter()
        self.cell: Counter = Counter()
        for i, n in enumerate(shoe.card_counts):
            card = Card.from_index(i)
            self.value[card.points] += n
            for key in (card.rank.value, card.suit.value, card.colour, (card.rank.value, card.suit.value)):
                self.cell[card.points, key] += n

    def ways(self, values: Iterable[int], spec: list[tuple[int, Hashable]]) -> int:
        """Ordered draws of cards of these values (a round's), in which the positions listed in
        ``spec`` take the named rank, suit or colour, times the ways to draw the unread cards."""
        counts = Counter(values)
        used = sum(counts.values())
        w = math.perm(self.size - used, 6 - used)
        for (v, key), t in Counter(spec).items():
            w *= math.perm(self.cell[v, key], t)
        if not w:
            return 0
        named = Counter(v for v, _key in spec)
        for v, c in counts.items():
            w *= math.perm(self.value[v] - named[v], c - named[v])
        return w


RANKS_OF = {0: [10, 11, 12, 13], **{v: [v] for v in range(1, 10)}}
SUITS = ("s", "h", "d", "c")


def _straight(ranks: tuple[int, ...]) -> bool:
    r = sorted(ranks)
    return len(set(r)) == 3 and (r[2] - r[0] == 2 or r == [1, 12, 13])


def independent_counts(shoe: Shoe, value_rounds: dict[str, Counter]) -> Counter:
    """Every line of side-bets.toml, counted from the value-level rounds and the shoe's cells."""
    c = Cells(shoe)
    want: Counter = Counter()
    for seq, n in value_rounds["all"].items():
        want["one-suit-round", "one_suit"] += n * sum(c.ways(seq, [(v, s) for v in seq]) for s in SUITS)
        if len(seq) == 6:
            want["six-cards-one-colour", "one_colour"] += n * sum(c.ways(seq, [(v, k) for v in seq])
                                                                  for k in ("red", "black"))
    for (seq, p, b), n in value_rounds["naturals"].items():
        want["suited-naturals", "suited_naturals"] += n * sum(
            c.ways(seq, [(p[0], s), (p[1], s), (b[0], t), (b[1], t)]) for s in SUITS for t in SUITS)
    for (seq, v), n in value_rounds["thirds"].items():
        want["third-cards-same-rank", "same_rank"] += n * sum(c.ways(seq, [(v, r), (v, r)]) for r in RANKS_OF[v])
    poker = "banker-three-card-poker"
    for (seq, b), n in value_rounds["banker"].items():
        for ranks in itertools.product(*(RANKS_OF[v] for v in b)):
            every = c.ways(seq, list(zip(b, ranks)))
            flush = sum(c.ways(seq, [(v, (r, s)) for v, r in zip(b, ranks)]) for s in SUITS)
            if _straight(ranks):                       # paid its highest outcome (settle = "highest")
                want[poker, "straight_flush"] += n * flush
                want[poker, "straight"] += n * (every - flush)
            elif len(set(ranks)) == 1:
                want[poker, "three_of_a_kind"] += n * every
            else:
                want[poker, "flush"] += n * flush
        if b == (7, 7, 7):
            want["three-red-sevens", "three_red_sevens"] += n * sum(c.ways(seq, [(7, s) for s in suits])
                                                                    for suits in itertools.product("hd", repeat=3))
    for (seq, b), n in value_rounds["dragon"].items():
        suited = n * sum(c.ways(seq, [(v, s) for v in b]) for s in SUITS)
        want["suited-dragon-7", "suited_dragon_7"] += suited
        want["suited-dragon-panda", "suited_dragon_7"] += suited
    for (seq, p), n in value_rounds["panda"].items():
        want["suited-dragon-panda", "suited_panda_8"] += n * sum(c.ways(seq, [(v, s) for v in p]) for s in SUITS)
    return want


def assert_independent_counts(shoe: Shoe, bets: dict, value_rounds: dict, *, every_outcome: bool = True) -> None:
    """The exact lines equal the independent count (and, with ``every_outcome``, each one happens)."""
    want = independent_counts(shoe, value_rounds)
    for (wager, outcome), n in want.items():
        assert n > 0 or not every_outcome, (wager, outcome)
        assert lines(bets, wager, shoe)[outcome] == n, (wager, outcome, shoe.label)
    assert {w for w, _o in want} == set(bets)


@pytest.mark.slow
def test_the_independent_count_agrees_with_the_brute_force(bets: dict, value_rounds: dict) -> None:
    """The count used on full shoes is itself checked on a small shoe, identity by identity."""
    from . import brute

    shoe = Shoe.from_card_counts(TARGETED["sevens, A-2-3 and Q-K-A"])
    pairs = [(w, "A") for w in bets.values()]
    by_brute = brute.settle_all(shoe, pairs)
    want = independent_counts(shoe, value_rounds)
    for (wager, outcome), n in want.items():
        assert by_brute[wager, "A"].get(outcome, 0) == n, (wager, outcome)


@pytest.mark.slow
@pytest.mark.parametrize("shoe", [Shoe.decks(8), Shoe.decks(6),
                                  Shoe.decks(8).remove("7h", "7h", "7d", "Ks", "Kh", "Qc", "As", "2s", "9d")],
                         ids=["8 decks", "6 decks", "8 decks depleted"])
def test_side_bets_by_an_independent_count(shoe: Shoe, bets: dict, value_rounds: dict) -> None:
    assert_independent_counts(shoe, bets, value_rounds)


@pytest.mark.slow
@settings(max_examples=3, deadline=None)
@given(shoe=depleted_shoes())
def test_side_bets_by_an_independent_count_on_random_depleted_shoes(bets: dict, value_rounds: dict,
                                                                    shoe: Shoe) -> None:
    assert_independent_counts(shoe, bets, value_rounds, every_outcome=False)   # a shoe may lack the red sevens


# -- within bounds -------------------------------------------------------------------------

@pytest.mark.slow
def test_the_heaviest_example_compiles_within_1_5_gb(tmp_path: Path) -> None:
    """Every bet of the file priced on 8 decks, from an empty cache, in a process whose address space
    is limited to 1.5 GB (the suits of three cards with their values, told apart as red or black, are
    the largest table)."""
    r = _run(["-m", "exactodds.cli", "analyze", "--paytables", str(LIGHT), "--format", "csv"], tmp_path / "cache",
             limit=1_500_000_000)
    assert r.returncode == 0, r.stderr[-2000:]
    assert all(wid in r.stdout for wid in ("three-red-sevens", "banker-three-card-poker", "suited-dragon-7"))


def test_the_bets_are_sized_before_they_are_built() -> None:
    for w in load_file(LIGHT).values():         # loading checks every condition, compiles nothing
        sig = table_signature(w)
        if sig[0] == "multiset":
            told, varies = (sig[2] if len(sig) > 2 else multiset.EVERY_SUIT), (sig[3] if len(sig) > 3 else None)
            assert multiset.estimate(sig[1], told=told, varies=varies).fits, w.id
