"""The one door into the engine (exactodds.analyses.door): every analysis prices a bet whose table is too large
exactly as analyze does, and each answer agrees with the one built from analyze on the same shoes."""

from __future__ import annotations

import dataclasses
import random
import re
import tempfile
import warnings
import zlib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from exactodds.analyses.analysis import analyze
from exactodds.analyses.designer import design
from exactodds.analyses.door import Door, returns_many, route_of
from exactodds.analyses.eor import effects_of_removal
from exactodds.analyses.positions import position
from exactodds.engine import native
from exactodds.engine.walk import WalkDistribution, joint_counts, outcome_counts_many, reading
from exactodds.errors import ExactOddsWarning, TooLarge
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.simulation.exposure import ExposureSpec, exposure_batch
from exactodds.wagers.catalogue import load_catalogue, read_file, read_text

from . import brute
from .test_exposure import _dealt_by_the_rules

BETS = read_file(Path(__file__).parent / "suit-bets.toml")
#: Contrast: the colours of six positions (its table, 5.0 GB at 8 decks over colours, is refused: the walk prices it)
CONTRAST = BETS["contrast"]
TABLE = CONTRAST.paytable("A")
CATALOGUE = load_catalogue().merged(BETS)


def _edge(shoe: Shoe) -> Fraction:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        return analyze(shoe, wagers=["contrast:A"], catalogue=CATALOGUE)[0].expected_return


def test_a_bet_whose_table_is_refused_is_walked_by_every_door_with_one_warning():
    door = Door(Shoe.decks(8))
    with pytest.warns(ExactOddsWarning, match=r"^contrast:A priced by the walk \(player_suit_1, banker_suit_1, player_suit_2, "
                                              r"banker_suit_2, player_suit_3, banker_suit_3 together: the first card by its colour\): its table would be too large to build "
                                              r"\(about 20,588,800 rows, 5\.0 GB to compile \(limit 2\.0 GB\)\)$"):
        first = door.expected_return(CONTRAST, TABLE)
    assert route_of(CONTRAST) == "walk" and door.walked == ["contrast:A"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # said once per door; a door that is told not to, never
        assert door.expected_return(CONTRAST, TABLE) == first
        assert Door(Shoe.decks(8), warn=False).expected_return(CONTRAST, TABLE) == first
    with pytest.raises(TooLarge, match=r"reads the colours of 6 card positions .*: about 20,588,800 rows, 5\.0 GB to compile .*; --route auto \(the default\) walks a wager whose"):
        Door(Shoe.decks(8), route="vector").expected_return(CONTRAST, TABLE)


def test_effects_of_removal_of_a_walked_bet_are_the_differences_of_analyze():
    """Every one of the 52 effects equals analyze on the shoe less the card, less analyze on the shoe; they sum to 0."""
    shoe = Shoe.decks(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        table = effects_of_removal(shoe, [(CONTRAST, TABLE)])[0]
    base = _edge(shoe)
    assert table.resolution == "card" and table.base == base
    for item, effect in zip(table.items, table.effects):
        assert effect == _edge(shoe.remove(Card.parse(item))) - base, item
    assert table.weighted_sum == 0 and len(set(table.effects)) > 4


def test_every_exposure_round_of_a_walked_bet_is_analyze_on_the_cards_not_yet_seen():
    decks, cut, seed, shoe_number = 2, 14, 7, 1
    spec = ExposureSpec(((CONTRAST, "A"),), decks, cut, seed, ((0,) * 52,))
    tally = exposure_batch(spec, shoe_number, shoe_number + 1)[0]
    rounds = _dealt_by_the_rules(seed, shoe_number, decks=decks, cut=cut)
    edges = [_edge(Shoe.decks(decks).remove(*(Card.from_index(c) for c in seen))) for seen, _ in rounds]
    assert tally.rounds == len(rounds) > 10
    assert tally.sum_edge == sum(edges, Fraction(0))
    assert tally.advantage_rounds == sum(e > 0 for e in edges)
    assert min(row[3] for row in tally.by_penetration.values()) == min(edges)


def test_a_paytable_designed_for_a_walked_bet_prices_back_to_its_edge():
    shoe = Shoe.decks(8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        found = design(CONTRAST, TABLE, shoe, target_edge=Fraction(5, 100), tolerance=Fraction(1, 1000))
        best = found.best
        text = found.paytable_toml(paytable_id="designed", carrying=("suit-bets.toml",
                                                                     (Path(__file__).parent / "suit-bets.toml").read_text()))
        again = load_catalogue().merged(read_text(text, source="designed.toml"))["contrast"]
        priced = Door(shoe, warn=False).price(again, again.paytable("designed"))
    assert -priced.expected_return == best.edge
    assert abs(best.edge - Fraction(5, 100)) <= Fraction(1, 1000)


@pytest.mark.parametrize("other", ["banker:standard", "player:standard", "tie:8-to-1"])
def test_a_positions_joint_counts_of_a_walked_bet_sum_to_each_wagers_own(other):
    shoe = Shoe.decks(2)
    wid, table = other.split(":")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        p = position(shoe, [(CONTRAST, "A", 1), (wid, table, 10)], catalogue=CATALOGUE)
        own = [analyze(shoe, wagers=[w], catalogue=CATALOGUE)[0] for w in ("contrast:A", other)]
    assert p.joint is not None and sum(p.joint.values()) == shoe.sequences
    for k, result in enumerate(own):
        marginal: dict[str, int] = {}
        for key, n in p.joint.items():
            marginal[key[k]] = marginal.get(key[k], 0) + n
        assert marginal == {ln.id: ln.combinations for ln in result.lines if ln.combinations}
    assert p.expected_value == own[0].expected_return + 10 * own[1].expected_return


def test_the_joint_walk_equals_the_brute_force_on_a_tiny_shoe():
    """Contrast with the Player Pair, walked together, against a plain enumerator of card identities."""
    shoe = Shoe.from_card_counts({c: 1 for c in "As Ah 2d 3c 6h 9s 9h Kd Kc Ks".split()}, label="10 cards")
    pair = load_catalogue()["player-pair"]
    pairs = [(CONTRAST, TABLE), (pair, pair.paytable("standard"))]
    got = joint_counts(shoe, pairs)
    want: dict[tuple[int, ...], int] = {}
    for cards, rnd, n in brute.rounds(shoe):
        row = brute.all_features(cards, rnd)
        key = []
        for w, t in pairs:
            oid = w.settle_row(row, t)
            key.append(-1 if oid is None else [o.id for o in w.outcomes].index(oid))
        want[tuple(key)] = want.get(tuple(key), 0) + n
    assert got == want and sum(got.values()) == shoe.sequences
    assert len(got) > 3


def test_the_walk_and_the_tables_agree_on_random_depleted_shoes():
    """A suit bet both routes can answer, on shoes with cards removed at random: the same counts outcome by outcome."""
    bet = read_text('[[wager]]\nid = "suited-thirds"\nname = "x"\nsection = "test"\n'
                    '  [[wager.outcome]]\n  id = "same"\n  name = "x"\n'
                    '  when = "player_suit_1 == banker_suit_1 and player_suit_3 in (\'h\', \'d\')"\n'
                    '  [[wager.paytable]]\n  id = "A"\n  pays = { same = "5 to 1" }\n', source="t.toml")["suited-thirds"]
    rng = random.Random(54)
    for _ in range(6):
        decks = rng.choice([1, 2, 6])
        cards = [Card.from_index(i) for i in range(52) for _ in range(decks)]
        shoe = Shoe.decks(decks).remove(*rng.sample(cards, rng.randrange(0, 20)))
        by_walk = Door(shoe, route="walk").outcome_counts(bet, bet.paytable("A"))
        by_tables = Door(shoe, route="vector").outcome_counts(bet, bet.paytable("A"))
        assert by_walk == by_tables and sum(by_walk.values()) == shoe.sequences


def test_route_auto_asks_the_tables_first_for_a_wager_they_price():
    cat = load_catalogue()
    assert {route_of(cat[w]) for w in ("banker", "player-pair", "dragon-7-insurance")} == {"vector"}
    door = Door(Shoe.decks(8))
    tie = cat["tie"]
    assert door.price(tie, tie.paytable("8-to-1")).lines == analyze(Shoe.decks(8), wagers=["tie:8-to-1"])[0].lines
    assert door.walked == []


@pytest.mark.parametrize("name", ["contrast", "one-colour-named", "mirror"])
def test_the_walk_of_many_shoes_at_once_is_the_walk_of_each(name):
    """One program of the walk for a batch of depleted shoes (compiled), against a walk of each shoe, compiled and
    pure; in 64 bits for 8 decks, in 128 bits past them (32 decks: N^6 > 2^64)."""
    wager = BETS[name]
    table = next(iter(wager.paytables.values()))
    rng = random.Random(zlib.crc32(name.encode()))                   # not hash(): it changes with PYTHONHASHSEED
    shoes = []
    for decks in (8, 8, 8, 2, 32):
        cards = [Card.from_index(i) for i in range(52) for _ in range(decks)]
        shoes.append(Shoe.decks(decks).remove(*rng.sample(cards, rng.randrange(1, min(300, len(cards) - 6)))))
    shoes.append(Shoe.decks(8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        many = outcome_counts_many(wager, table, shoes)
        each = [WalkDistribution(s).outcome_counts(wager, table) for s in shoes]
        with native.pure():
            small = [s for s in shoes if s.size <= 104]
            assert outcome_counts_many(wager, table, small) == [WalkDistribution(s).outcome_counts(wager, table)
                                                               for s in small]
    assert many == each and all(sum(c.values()) == s.sequences for c, s in zip(many, shoes))
    assert outcome_counts_many(wager, table, shoes[:4]) == each[:4]               # 64 bits: no shoe past 1,625 cards
    assert len({tuple(sorted(c.items())) for c in many}) == len(shoes)          # the shoes do differ


def test_exposure_of_a_walked_bet_is_its_round_by_round_walk():
    """The exposure of a walked bet, its rounds counted at once, equals each round's own walk (returns_many against
    a door per round)."""
    shoes = [Shoe.decks(2).remove(*(Card.from_index(c) for c in seen))
             for seen, _ in _dealt_by_the_rules(3, 0, decks=2, cut=14)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        [got] = returns_many([(CONTRAST, TABLE)], shoes, square=True)
        want = [(Door(s).expected_return(CONTRAST, TABLE), Door(s).expected_square(CONTRAST, TABLE)) for s in shoes]
    assert got == want


def test_the_live_page_answers_a_card_for_a_walked_bet_as_analyze_does():
    from exactodds.serve import edges
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        got = edges(8, ["5h", "Kc"], ["contrast:A", "banker:standard"], catalogue=CATALOGUE)
        want = [_edge(Shoe.decks(8).remove(Card.parse("5h"), Card.parse("Kc"))),
                analyze(Shoe.decks(8).remove(Card.parse("5h"), Card.parse("Kc")), wagers=["banker:standard"])[0]
                .expected_return]
    assert [Fraction(r["player_expected_return"]) for r in got["wagers"]] == want


def test_a_bet_that_asks_only_for_colours_is_read_by_colour_whether_it_names_them_by_set_or_suit_by_suit():
    """The same bet written with colour sets and suit by suit: one number on a depleted shoe, and the walk reads
    the cards by colour in both, as the route's warning says; a bet that names one suit is read by suit."""
    by_set = BETS["one-colour-named"]
    when = by_set.outcomes[0].condition.text
    spelled = re.sub(r"(\w+_suit_\d) in \(([^)]*)\)",
                     lambda m: "(" + " or ".join(f"{m[1]} == {x.strip()}" for x in m[2].split(",")) + ")", when)
    assert "==" in spelled and " in (" not in spelled
    other = read_text('[[wager]]\nid = "one-colour-spelled"\nname = "x"\nsection = "test"\n'
                      f'  [[wager.outcome]]\n  id = "one"\n  name = "x"\n  when = "{spelled}"\n'
                      '  [[wager.paytable]]\n  id = "A"\n  pays = { one = "12 to 1" }\n', source="t.toml")["one-colour-spelled"]
    for w in (by_set, other):
        assert reading(w).endswith("together: the first card by its colour"), w.id
    assert reading(BETS["one-suit-named"]).endswith("the first card by its suit")
    shoe = Shoe.decks(8).remove(*(Card.parse(c) for c in ("5h", "5d", "Ks", "2c", "9h")))
    assert (Door(shoe, route="walk").outcome_counts(by_set, by_set.paytable("A"))
            == Door(shoe, route="walk").outcome_counts(other, other.paytable("A")))
    with pytest.warns(ExactOddsWarning, match=r"priced by the walk \(.*the first card by its colour\)"):
        Door(shoe).expected_return(other, other.paytable("A"))


def test_a_position_read_alone_is_read_by_the_blocks_its_conditions_tell_apart_however_spelt():
    """One position's suit, named suit by suit, is read by colour; compared with another card, as itself."""
    def bet(when: str) -> Any:
        return read_text('[[wager]]\nid = "w"\nname = "w"\nsection = "test"\n[[wager.outcome]]\nid = "o"\n'
                         f'name = "o"\nwhen = "{when}"\n[[wager.paytable]]\nid = "A"\npays = {{ o = "1 to 1" }}\n',
                         source="w.toml")["w"]
    red = "(player_suit_1 == 'h' or player_suit_1 == 'd')"
    assert reading(bet(f"{red} and player > banker")) == "the suit of player_1 by its colour (hd|sc)"
    assert reading(bet("player_suit_1 == 'h' and player > banker")) == "the suit of player_1 by its block of suits (h|sdc)"
    assert reading(bet("player_suit_1 == banker_suit_1 and player > banker")) == (
        "player_suit_1, banker_suit_1 together: the first card by its suit")
    shoe = Shoe.decks(6).remove(*(Card.parse(c) for c in ("5h", "5h", "Kd", "2c")))
    one, two = bet(f"{red} and player > banker"), bet("player_suit_1 in ('h', 'd') and player > banker")
    assert (Door(shoe, route="walk").outcome_counts(one, one.paytable("A"))
            == Door(shoe, route="walk").outcome_counts(two, two.paytable("A"))
            == Door(shoe, route="vector").outcome_counts(two, two.paytable("A")))


@pytest.mark.parametrize("name", ["one-suit-compared", "mirror"])
def test_many_shoes_that_are_renamed_images_of_each_other_are_walked_once_and_counted_alike(name):
    """Effects of removal's shoes (a full shoe less one card of each identity): a shoe and its image under a
    renaming of the suits the wager keeps count alike, so one of each orbit is walked, and the shoes walked are
    grouped by the renamings each keeps; every shoe's counts against a walk of its own."""
    wager = BETS[name]
    table = next(iter(wager.paytables.values()))
    shoes = [Shoe.decks(2).remove(Card.from_index(i)) for i in range(52)] + [Shoe.decks(2)]
    shoes += [Shoe.decks(2).remove(Card.parse("5h"), Card.parse("5d")), Shoe.decks(2).remove(Card.parse("5s"), Card.parse("Kc"))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        assert outcome_counts_many(wager, table, shoes) == [WalkDistribution(s).outcome_counts(wager, table)
                                                            for s in shoes]


@pytest.mark.parametrize("name, decks, every", [("contrast", 2, True), ("mirror", 1, False),
                                                ("favourite", 1, False)])
def test_many_shoes_one_card_short_are_counted_by_one_walk_after_a_burn_card(name, decks, every):
    """Effects of removal's shoes (a shoe, and the shoe less one card of each identity it holds, or of a few):
    counted by one walk of the shoe after a burn card, each against a walk of its own, compiled and pure; on a
    depleted shoe that keeps few renamings of the suits, and with a card of which the shoe holds one."""
    from exactodds.engine import walk
    wager = BETS[name]
    table = next(iter(wager.paytables.values()))
    rng = random.Random(decks * 100 + len(name))
    cards = [Card.from_index(i) for i in range(52) for _ in range(decks)]
    base = Shoe.decks(decks).remove(*rng.sample(cards, 11))
    held = [i for i in range(52) if base.card_counts[i]]
    assert any(base.card_counts[i] == 1 for i in held)          # a card the shoe holds one of
    taken = held if every else rng.sample(held, 9) + [i for i in held if base.card_counts[i] == 1][:1]
    shoes = [base] + [base.remove(Card.from_index(i)) for i in taken]
    found = walk._counts_one_short(wager, table, base, taken, "test")
    assert found is not None                                    # the burn card's walk, not a walk per shoe
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        many = outcome_counts_many(wager, table, shoes)
        each = [WalkDistribution(s).outcome_counts(wager, table) for s in shoes]
        with native.pure():
            assert outcome_counts_many(wager, table, shoes[:4]) == each[:4]
    assert many == each == [found[0]] + [found[1][i] for i in taken]
    assert all(sum(c.values()) == s.sequences for c, s in zip(many, shoes))
    assert len({tuple(sorted(c.items())) for c in many}) > 2    # the shoes do differ


def test_shoes_one_card_short_of_a_tiny_shoe_or_repeated_or_without_their_shoe_count_as_their_own_walks():
    """The edges of the burn card's walk: a shoe of 7 or 8 cards (the shoes short hold 6 or 7), the same shoe asked
    twice, the shoe they are short of not among them, and a shoe two cards short mixed in (walked as before)."""
    wager = BETS["mirror"]
    table = wager.paytable("A")
    names = ["As", "Ah", "7s", "7d", "Kc", "Kh", "2s", "9d"]
    full = Shoe.decks(1)
    batches = []
    for size in (8, 7):
        base = Shoe.from_card_counts({c: 1 for c in names[:size]})
        batches.append([base] + [base.remove(Card.parse(c)) for c in names[:size]])
    five, king = Card.parse("5h"), Card.parse("Kc")
    batches += [[full.remove(five), full.remove(five), full.remove(king)],
                [full, full.remove(five), full.remove(five), full.remove(five, king)]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactOddsWarning)
        for shoes in batches:
            assert outcome_counts_many(wager, table, shoes) == [WalkDistribution(s).outcome_counts(wager, table)
                                                                for s in shoes]


def test_every_analysis_takes_the_route_it_is_given_and_the_same_numbers_come_back():
    """``--route`` on eor, position, design, vigorish, progressive, exposure (on two workers) and tables, as on
    analyze: the walk forced gives the tables' output byte for byte on a bet they price (Dragon 7, the Banker's
    vigorish, a progressive's meter on a 2-deck shoe), and the tables forced refuse Contrast in one line."""
    from .test_cli import run
    shoe = ["--decks", "2"]
    for argv in (["eor", "--wager", "dragon-7-insurance", "--format", "json"],
                 ["position", "--wager", "banker", "--wager", "dragon-7-insurance", "--format", "json"],
                 ["design", "--wager", "dragon-7-insurance", "--target-edge", "5%", "--format", "json"],
                 ["vigorish", "--bets", "5,20", "--format", "json"],
                 ["progressive", "--wager", "heavenly-9-progressive", "--format", "json"],
                 ["exposure", "--wager", "dragon-7-insurance", "--shoes", "3", "--seed", "1", "--workers", "2",
                  "--quiet", "--format", "json"]):
        code, tables, err = run(*argv, *shoe)
        assert code == 0 and tables, err
        code, walked, err = run(*argv, *shoe, "--route", "walk")
        assert (code, walked) == (0, tables), (argv, err)
    with tempfile.TemporaryDirectory() as tmp:                  # the files tables writes, by either route
        written = {}
        for route in ("vector", "walk"):
            code, _out, err = run("tables", "--output-dir", f"{tmp}/{route}", *shoe, "--wager", "dragon-7-insurance",
                                  "--route", route)
            assert code == 0, err
            written[route] = {p.name: p.read_bytes() for p in Path(tmp, route).iterdir()}
        assert written["walk"] == written["vector"] and written["walk"]
    for argv in (["eor", "--wager", "contrast:A"], ["position", "--wager", "banker", "--wager", "contrast:A"],
                 ["design", "--wager", "contrast:A", "--target-edge", "5%"],
                 ["exposure", "--wager", "contrast:A", "--shoes", "2", "--seed", "1", "--workers", "2", "--quiet"],
                 ["tables", "--output-dir", "never-written", "--wager", "contrast:A"]):
        code, out, err = run(*argv, "--paytables", str(Path(__file__).parent / "suit-bets.toml"), "--route", "vector")
        assert code == 2 and out == "" and len(err.splitlines()) == 1, (argv, err)
        assert "reads the colours of 6 card positions" in err and "--route walk" in err, err
    spec = ExposureSpec(((CONTRAST, "A"),), 8, 14, 1, ((0,) * 52,), route="vector")   # a worker: the spec's route
    with pytest.raises(TooLarge, match="reads the colours of 6 card positions"):
        exposure_batch(spec, 0, 1)
    assert exposure_batch(dataclasses.replace(spec, route="auto"), 0, 1)[0].rounds > 0
    code, out, err = run("eor", "--wager", "tie", "--decks", "1", "--route", "walk", "--route", "vector")
    assert (code, out) == (2, "")
    assert err == "exactodds: error: --route given twice ('walk', 'vector'): it takes one value\n"
