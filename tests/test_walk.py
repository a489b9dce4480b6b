"""The recursive walk (exactodds.engine.walk): a second route for every wager, against the tables.

The walk counts rounds card by card over the classes of cards each wager tells apart and settles
each round with the wager's own conditions; it shares no counting code with the multiset tables.
Here it must give the same count for every outcome of every wager: the whole catalogue (every
paytable and alternative reading) and the example files, on small depleted shoes with unequal
suits, on 6 and 8 full decks and on two depleted 8-deck shoes with unequal suits. The example bets
that read the suits or ranks of single cards (of the third cards, of the Banker's three cards) are
walked by point value and split by what they read at the end (exchangeability): they are also
compared with the brute force over card identities (tests/brute.py) on small shoes.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from exactodds import ExactOddsError, Shoe, deal, load_catalogue, load_file, price
from exactodds.analyses.analysis import analyze
import exactodds.engine.walk as walk_module
from exactodds.engine.walk import WalkDistribution, _read_split, _split_weight
from exactodds.game.cards import Card
from exactodds.wagers.catalogue import Wager

from . import brute
from .test_cli import run

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"


def readings(catalogue: dict) -> list[Wager]:
    """Every wager of ``catalogue`` under each of its readings."""
    return [r for w in catalogue.values() for r in (w, *(w.with_alternative(a) for a in w.alternatives))]


def assert_routes_agree(shoe: Shoe, wagers: list[Wager]) -> None:
    tables, walked = deal(shoe), WalkDistribution(shoe)
    walked.prepare(wagers)
    for w in wagers:
        for t in w.paytables.values():
            want, got = price(w, t, tables), price(w, t, walked)
            assert got.lines == want.lines, (w.id, w.reading_id, t.id)


CATALOGUE = readings(dict(load_catalogue()))
LIGHT = readings(dict(load_file(EXAMPLES / "side-bets.toml")))
NEW = readings(dict(load_file(EXAMPLES / "new-bets.toml")))
#: Bets that read the suits or ranks of the Banker's three cards or of the third cards (once walked by
#: value and suit from the first card, for many minutes a deck): also checked by brute force below.
SLOW = {"third-card-suits", "suited-dragon-7", "three-red-sevens", "banker-three-card-poker", "suited-dragon-panda"}

#: Small shoes with unequal suits, pairs, nines, Kings and Queens, one suit and colour heavy.
SMALL = {
    "one deck less Kh 7d 2s 9h Qc As": Shoe.decks(1).remove("Kh", "7d", "2s", "9h", "Qc", "As"),
    "lopsided 20 cards": Shoe.from_card_counts({"9s": 3, "9d": 1, "Ks": 2, "Kh": 1, "Qs": 2, "Qh": 1, "7h": 2,
                                                "7d": 1, "As": 2, "8c": 2, "3s": 2, "5c": 1}),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", SMALL)
def test_walk_equals_tables_for_every_wager_on_small_depleted_shoes(name: str) -> None:
    assert_routes_agree(SMALL[name], CATALOGUE + LIGHT + NEW)


@pytest.mark.parametrize("shoe", [Shoe.decks(6), Shoe.decks(8)], ids=["6 decks", "8 decks"])
def test_walk_equals_tables_for_the_whole_catalogue_on_full_shoes(shoe: Shoe) -> None:
    """About 20 s a shoe."""
    assert_routes_agree(shoe, CATALOGUE)


#: Full and depleted shoes for the example files; the depleted ones with suits far from equal.
LARGE = {
    "6 decks": Shoe.decks(6),
    "8 decks": Shoe.decks(8),
    "8 decks less Kh 7d 7d 2s 9s 9s Qh": Shoe.decks(8).remove("Kh", "7d", "7d", "2s", "9s", "9s", "Qh"),
    "8 decks less 14 hearts and diamonds": Shoe.decks(8).remove(
        "Ah", "2h", "3h", "7h", "7h", "7h", "Kh", "Qh", "9h", "7d", "7d", "8d", "Jd", "Td"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", LARGE)
def test_walk_equals_tables_for_the_example_files_on_6_and_8_decks_full_and_depleted(name: str) -> None:
    """Every example bet, those that read single cards' suits and ranks included."""
    shoe = LARGE[name]
    bets = LIGHT + NEW
    assert SLOW <= {w.id for w in bets}
    assert_routes_agree(shoe, bets)


#: Small shoes on which the slow bets of side-bets.toml happen (the suits of three Banker cards).
HEAVY_SHOES = {
    "sevens, A-2-3 and Q-K-A": {"7s": 2, "7h": 2, "Kc": 2, "Ad": 1, "2s": 1, "3h": 1, "Qd": 1},
    "red and black sevens": {"7h": 2, "7d": 2, "7s": 1, "Kc": 2, "Ks": 1, "3d": 1},
    "a spade flush": {"Qs": 2, "Ks": 1, "As": 2, "2s": 1, "3s": 1, "Kh": 1, "9d": 1},
    "a suited Panda 8": {"8d": 2, "Kd": 1, "Jd": 2, "Qc": 1, "7d": 2, "9s": 1},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", HEAVY_SHOES)
def test_walk_equals_brute_force_for_the_slow_examples(name: str) -> None:
    shoe = Shoe.from_card_counts(HEAVY_SHOES[name], label=name)
    pairs = [(w, t) for w in LIGHT if w.id in SLOW for t in w.paytables]
    assert len(pairs) == len(SLOW) - 1
    want = brute.settle_all(shoe, pairs)
    walked = WalkDistribution(shoe)
    hits = 0
    for w, t in pairs:
        got = {ln.id: ln.combinations for ln in price(w, w.paytables[t], walked).lines}
        expected = want[(w.id, t)]
        assert got.pop("lose") == expected.pop(None, 0), (w.id, t)
        assert {k: v for k, v in got.items() if v} == dict(expected), (w.id, t)
        hits += sum(got.values())
    assert hits > 0                                     # some bet wins on this shoe: not vacuous


def points(rank: int) -> int:
    return rank if rank <= 9 else 0


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("values", [(7, 7, 0), (0, 0), (9, 0, 9), (3,)])
@pytest.mark.parametrize("read", [(True, True), (False, True), (True, False)], ids=["identity", "suit", "rank"])
def test_a_round_by_value_is_split_by_the_chances_of_the_ranks_and_suits_read(
        name: str, values: tuple[int, ...], read: tuple[bool, bool]) -> None:
    """The weight of each component (rank, suit or both) at cards of the given point values equals
    the share of ordered draws of distinct cards of those values that show them."""
    shoe = SMALL[name]
    cards = [(c.rank.value, c.suit.value) for c in map(Card.from_index, range(52))
             for _ in range(shoe.card_counts[c.index])]
    draws: Counter[tuple[tuple[int | None, str | None], ...]] = Counter()
    for picked in itertools.permutations([c for c in cards if points(c[0]) in values], len(values)):
        if tuple(points(r) for r, _ in picked) == values:
            draws[tuple((r if read[0] else None, s if read[1] else None) for r, s in picked)] += 1
    split = _read_split(shoe, *read, "a test")
    total = sum(draws.values())
    for seen in itertools.product(*(split.get(v, {}) for v in values)):
        num, den = _split_weight(values, seen, split)
        assert Fraction(num, den) == Fraction(draws.pop(seen, 0), total), seen
    assert not draws and total > 0


def test_analyze_all_by_the_walk_equals_the_tables_on_a_depleted_shoe() -> None:
    """`analyze --all --route walk` prints what `analyze --all` prints (about 40 s)."""
    args = ["analyze", "--all", "--decks", "8", "--remove", "Kh,7d,7d,2s,9s", "--format", "json"]
    code_v, vec, _ = run(*args)
    code_w, wlk, err = run(*args, "--route", "walk")
    assert code_v == code_w == 0, err
    a, b = json.loads(vec), json.loads(wlk)
    assert a.pop("route") == "vector" and b.pop("route") == "walk"
    assert a == b and len(a["wagers"]) == sum(len(w.paytables) for w in load_catalogue().values())


def test_walk_refuses_a_suit_wager_on_a_shoe_whose_suits_are_unknown() -> None:
    """A rank removed without its suit: the suits of the shoe are unknown, in one line, exit 2."""
    code, out, err = run("analyze", "--wager", "house-money", "--route", "walk", "--decks", "1", "--remove", "9")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "wager 'house-money'" in err and "reads suits, but the shoe's suits are unknown" in err


def test_walk_prices_a_rank_wager_on_a_shoe_whose_suits_are_unknown() -> None:
    shoe = Shoe.decks(1).remove("9", "K", "K")
    bets = [w for w in NEW if w.id == "four-card-poker"]
    assert_routes_agree(shoe, bets)


def test_walk_settles_a_clash_of_exclusive_outcomes_as_an_error(tmp_path: Path) -> None:
    """A guard, not a finding: the walk no longer reaches the tables' check of exclusive outcomes,
    so it must refuse the clash itself (Wager.settle_row) rather than settle the round as one."""
    path = tmp_path / "clash.toml"
    path.write_text('''[[wager]]
id = "clash"
name = "Two outcomes that meet"
section = "example"
  [[wager.outcome]]
  id = "a"
  name = "a pair"
  when = "player_pair != 'none'"
  [[wager.outcome]]
  id = "b"
  name = "a suited pair"
  when = "player_pair == 'perfect'"
  [[wager.paytable]]
  id = "A"
  pays = { a = "1 to 1", b = "2 to 1" }
''', encoding="utf-8")
    with pytest.raises(ExactOddsError, match="outcomes 'a' and 'b' both hold on one round"):
        analyze(Shoe.decks(2), wagers=["clash"], catalogue=load_file(path), route="walk")


def test_the_automatic_route_walks_a_wager_whose_table_is_refused_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Route auto (the default): a wager whose table the tables route refuses as too large is priced by
    the walk, with one warning naming it; the numbers are the tables' own where both can count."""
    from exactodds.analyses import door
    from exactodds.errors import ExactOddsWarning, TooLarge
    want = analyze(Shoe.decks(6), wagers=["dragon-bonus-player:A", "tie:8-to-1"], route="vector")
    real = door.price

    def refusing(wager: Wager, paytable: object, dist: object, sums: object = None) -> object:
        if wager.id == "dragon-bonus-player" and not isinstance(dist, WalkDistribution):
            raise TooLarge("wager 'dragon-bonus-player': reads it all: about 9 rows, 99.0 GB to compile "
                           "(limit 2.0 GB); read less")
        return real(wager, paytable, dist, sums)  # type: ignore[arg-type]

    real_together = door.priced_together

    def together(pairs: list, dist: object) -> dict:           # the pairs counted together: it is refused there too
        return {i: r for i, r in real_together(pairs, dist).items() if pairs[i][0].id != "dragon-bonus-player"}

    monkeypatch.setattr(door, "price", refusing)
    monkeypatch.setattr(door, "priced_together", together)
    with pytest.warns(ExactOddsWarning, match=r"^dragon-bonus-player:A priced by the walk( \(.*\))?: its table would be too "
                                              r"large to build \(about 9 rows, 99.0 GB to compile \(limit 2.0 GB\)\)$"):
        got = analyze(Shoe.decks(6), wagers=["dragon-bonus-player:A", "tie:8-to-1"])
    assert [[(x.id, x.combinations) for x in r.lines] for r in got.results] == \
        [[(x.id, x.combinations) for x in r.lines] for r in want.results]
    assert got.route == "vector; walk for dragon-bonus-player:A"
    with pytest.raises(TooLarge, match="99.0 GB"):                    # a route asked for is kept to
        analyze(Shoe.decks(6), wagers=["dragon-bonus-player:A"], route="vector")


@pytest.mark.slow
def test_a_wager_both_routes_refuse_is_one_line_naming_both(monkeypatch: pytest.MonkeyPatch) -> None:
    # refused at a tenth of the automaton's limit, sooner (tests/test_bounds.py runs it to the real limit)
    monkeypatch.setattr(walk_module, "AUTOMATON_MOVES_LIMIT", walk_module.AUTOMATON_MOVES_LIMIT // 10)
    text = ("[[wager]]\nid = \"every-card-suit\"\nname = \"x\"\nsection = \"test\"\n  [[wager.outcome]]\n  id = \"x\"\n"
            "  name = \"x\"\n  when = \"abs(player_rank_1 - banker_rank_3) + abs(banker_rank_1 - player_rank_3) == "
            "abs(player_rank_2 - banker_rank_2) + 3 and player_suit_1 in (banker_suit_1, banker_suit_3) and player_suit_2 "
            "not in (player_suit_3, banker_suit_2) and banker_suit_2 in (player_suit_1, banker_suit_3)\"\n  [[wager.paytable]]\n  id = \"A\"\n"
            "  pays = { x = \"200 to 1\" }\n")
    from exactodds.analyses.analysis import load_text
    from exactodds.errors import TooLarge
    with pytest.raises(TooLarge, match=r"GB to compile .*; and by the walk: the walk of wager 'every-card-suit' .* "
                                       r"\(\d{3},\d{3} once the Banker's second card is dealt, counted before; those alone "
                                       r"about \d+ s and \d+\.\d GB to build\): refused") as exc:
        analyze(Shoe.decks(8), wagers=["every-card-suit"], catalogue=load_text(text, source="t.toml"))
    assert "\n" not in str(exc.value)


def test_the_walk_route_on_a_shoe_of_unknown_suits_skips_the_wagers_that_read_them_as_the_tables_do() -> None:
    """It refused the whole catalogue at the first wager that reads suits (walked all at once, up front)."""
    shoe = Shoe.decks(2).remove("9", "9", "K", "5h")                 # a bare rank: the suits are unknown
    walked, tables = (analyze(shoe, everything=True, route=r) for r in ("walk", "vector"))
    assert walked.skipped == tables.skipped and walked.skipped
    assert [[(x.id, x.combinations) for x in r.lines] for r in walked.results] == \
        [[(x.id, x.combinations) for x in r.lines] for r in tables.results]
