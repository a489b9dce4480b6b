"""A bet that reads single cards' suits only by their colour is tabulated over colours (issue 54, item 3).

The proof is the walk's (``exactodds.engine.walk.suits_by_colour``: changing one position's suit to the
other of its colour changes no condition, checked on every combination of what the wager reads); the
table then reads each card as a point value and red or black, written as spades or hearts. Shown here:
the proof on each spelling of a colour and its refusals, the same bet written three ways priced alike,
the colour table against the table of every suit summed per colour on shoes of unequal suits, against
the brute force over every deal of small shoes and against the walk at 8 decks, and the estimate and a
table kept on disk saying 'colours'.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from exactodds import Shoe, deal, price
from exactodds.analyses.pricing import table_signature
from exactodds.engine.multiset import BY_COLOUR, compile_table, estimate
from exactodds.engine.walk import WalkDistribution, suits_by_colour
from exactodds.errors import ExactOddsError
from exactodds.wagers.catalogue import Wager, read_text

from . import brute

RED, BLACK = ("h", "d"), ("s", "c")


def _bet(*whens: str, source: str = "colours.toml") -> Wager:
    outcomes = "".join(f'[[wager.outcome]]\nid = "o{i}"\nname = "o{i}"\nwhen = "{w}"\n' for i, w in enumerate(whens))
    pays = ", ".join(f'o{i} = "{i + 2} to 1"' for i in range(len(whens)))
    return read_text(f'[[wager]]\nid = "w"\nname = "w"\nsection = "a test"\n{outcomes}'
                     f'[[wager.paytable]]\nid = "A"\npays = {{ {pays} }}\n', source=source)["w"]


def _in(feature: str, suits: tuple[str, ...]) -> str:
    return f"{feature} in ({', '.join(repr(s) for s in suits)})"


def _either(feature: str, suits: tuple[str, ...]) -> str:
    return "(" + " or ".join(f"{feature} == {s!r}" for s in suits) + ")"


#: The Player's first two cards red and the Player wins; else the Banker's third card black (the same bet
#: in three spellings: a colour's suits listed, each suit compared, and every suit of the four named).
SPELLINGS = {
    "listed": (f"{_in('player_suit_1', RED)} and {_in('player_suit_2', RED)} and player > banker",
               f"player <= banker and banker_cards == 3 and {_in('banker_suit_3', BLACK)}"),
    "compared": (f"{_either('player_suit_1', RED)} and {_either('player_suit_2', RED)} and player > banker",
                 f"player <= banker and banker_cards == 3 and {_either('banker_suit_3', BLACK)}"),
    "every suit": (" or ".join(f"player_suit_1 == {a!r} and player_suit_2 == {b!r} and player > banker"
                               for a in RED for b in RED),
                   f"player <= banker and banker_cards == 3 and not {_in('banker_suit_3', RED + ('',))}"),
}
BETS = {name: _bet(*whens) for name, whens in SPELLINGS.items()}


def _lines(wager: Wager, counts: object) -> dict[str, int]:
    return {ln.id: ln.combinations for ln in price(wager, wager.paytables["A"], counts).lines}  # type: ignore[arg-type]


@pytest.mark.parametrize("when, by_colour", [
    ("player_suit_1 in ('h', 'd')", True),
    ("player_suit_1 == 'h' or player_suit_1 == 'd'", True),
    ("player_suit_1 != 's' and player_suit_1 != 'c' and player_suit_1 != ''", True),
    ("banker_value_1 == 7 and banker_suit_1 in ('h', 'd') and banker_suit_2 in ('s', 'c')", True),
    ("player_suit_1 == 'h'", False),                                      # one suit named: hearts apart
    ("player_suit_1 in ('h', 's')", False),                               # a red and a black suit together
    ("player_suit_1 == banker_suit_1", False),                            # compared with another card
    ("player_suited and player_suit_1 in ('h', 'd')", False),             # read beside a hand's suitedness
    ("player_rank_1 == 12 and player_suit_1 in ('h', 'd')", False),       # with a rank: read as a card
    ("player > banker", False),                                           # no suit at all
])
def test_the_proof_that_suits_are_read_by_colour_alone(when: str, by_colour: bool) -> None:
    wager = _bet(when)
    assert suits_by_colour(wager) is by_colour
    signature = table_signature(wager)
    assert (signature[0] == "multiset" and signature[2:3] == (BY_COLOUR,)) is by_colour, signature


def test_the_three_spellings_are_tabulated_over_colours_and_give_one_number() -> None:
    """Each spelling's table (1.5 million rows over colours: compiled for the wager alone, reading a colour only
    where it changes an outcome) prices the same counts on a shoe of unequal suits."""
    for wager in BETS.values():
        signature = table_signature(wager)
        assert signature[2] == BY_COLOUR and len(signature) == 4, signature        # compiled for the wager
        table = compile_table(signature[1], told=BY_COLOUR, varies=signature[3])
        assert table.resolution == "colour" and not table.patterned
        assert table.leaves < compile_table(signature[1], told=BY_COLOUR).leaves
    shoe = Shoe.decks(8).remove("Ah", "Kh", "Qd", "Jd", "9d", "7h", "2s", "5c", "5c")
    results = [price(w, w.paytables["A"], deal(shoe)) for w in BETS.values()]
    assert len({r.expected_return for r in results}) == 1
    lines = [{ln.id: ln.combinations for ln in r.lines} for r in results]
    assert lines[0] == lines[1] == lines[2] and sum(lines[0].values()) == shoe.sequences
    assert all(lines[0][o] > 0 for o in ("o0", "o1"))


def _random_shoes(seed: int, n: int) -> list[Shoe]:
    rng = random.Random(seed)
    cards = [f"{r}{s}" for r in "A23456789TJQK" for s in "shdc"] * 2
    return [Shoe.decks(2).remove(*rng.sample(cards, rng.randrange(5, 40))) for _ in range(n)]


def test_a_colour_table_equals_the_table_of_every_suit_summed_per_colour_on_shoes_of_unequal_suits() -> None:
    """Six random shoes, two decks less 5 to 40 of their cards drawn at random (the suits unequal within each
    colour): each key of the colour table counts what the keys of every suit of its colours count."""
    names = ("banker", "banker_cards", "player", "player_cards", "player_suit_1", "banker_suit_3")
    by_colour, every = compile_table(names, told=BY_COLOUR), compile_table(names)
    assert by_colour.leaves * 3 < every.leaves
    colour = {"h": "h", "d": "h", "s": "s", "c": "s", "": ""}
    suits = [i for i, n in enumerate(every.names) if "_suit_" in n]
    assert every.names == by_colour.names
    for shoe in _random_shoes(54, 6):
        summed: Counter[tuple[object, ...]] = Counter()
        for key, n in zip(every.keys, every.counts(shoe).tolist()):
            summed[tuple(colour[v] if i in suits else v for i, v in enumerate(key))] += n   # type: ignore[index]
        got = dict(zip(by_colour.keys, by_colour.counts(shoe).tolist()))
        assert {k: n for k, n in got.items() if n} == {k: n for k, n in summed.items() if n}, shoe.describe()


#: Small shoes of unequal suits, every deal of which the brute force settles card by card.
SMALL = {
    "unequal suits": {"Kh": 2, "Qh": 1, "Kc": 1, "Qs": 1, "7d": 1, "3h": 1, "3s": 1, "9d": 1},
    "reds short": {"Kh": 1, "Ks": 2, "Kc": 2, "9s": 1, "9d": 1, "2c": 1, "5h": 1, "5s": 1},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", SMALL)
def test_a_colour_table_equals_the_brute_force_on_small_shoes(name: str) -> None:
    shoe = Shoe.from_card_counts(SMALL[name], label=name)
    wager = BETS["listed"]
    want = brute.settle_all(shoe, [(wager, "A")])[(wager.id, "A")]
    got = _lines(wager, deal(shoe))
    assert got.pop("lose", 0) == want.pop(None, 0)
    assert {k: v for k, v in got.items() if v} == dict(want) and sum(want.values()) > 0


@pytest.mark.slow
def test_a_bet_over_colours_equals_the_walk_at_8_decks_less_some_reds() -> None:
    shoe = Shoe.decks(8).remove("Ah", "Kh", "Qd", "Jd", "9d", "7h", "2h", "2h", "5c")
    for wager in BETS.values():
        assert _lines(wager, deal(shoe)) == _lines(wager, WalkDistribution(shoe))


@pytest.mark.slow
def test_three_red_sevens_is_tabulated_over_colours_and_equals_the_walk_at_8_decks() -> None:
    """The example's three red sevens for the Banker (each card's value and colour): its table over colours
    and the walk give one count per outcome, on a full shoe and on one short of red sevens."""
    from exactodds.wagers.catalogue import read_file
    wager = read_file("examples/side-bets.toml")["three-red-sevens"]
    paytable = next(iter(wager.paytables.values()))
    assert table_signature(wager)[2] == BY_COLOUR
    for shoe in (Shoe.decks(8), Shoe.decks(8).remove("7h", "7h", "7d", "7s")):
        table = {ln.id: ln.combinations for ln in price(wager, paytable, deal(shoe)).lines}
        walked = {ln.id: ln.combinations for ln in price(wager, paytable, WalkDistribution(shoe)).lines}
        assert table == walked and sum(table.values()) == shoe.sequences


def test_the_estimate_reads_colours_and_a_refusal_says_so() -> None:
    six = tuple(f"{hand}_suit_{k}" for hand in ("player", "banker") for k in "123") + ("player", "banker")
    colours, patterns = estimate(six, told=BY_COLOUR), estimate(six, told="sc|hd")
    assert colours.rows < patterns.rows / 10
    assert colours.refusal().startswith("reads the colours of 6 card positions (player_1, player_2, player_3, "
                                        "banker_1, banker_2, banker_3) with banker, player: about ")
    assert colours.refusal().endswith("or the colours of fewer positions")


@pytest.mark.parametrize("names", [("player_rank_1", "player_suit_1"), ("player_suited", "player_suit_1"),
                                   ("same_colour", "player_suit_1"), ("player", "player_pair")])
def test_a_table_over_colours_is_only_for_single_cards_suits(names: tuple[str, ...]) -> None:
    with pytest.raises(ExactOddsError, match="told='colour' is for a table of single cards' suits"):
        compile_table(names, told=BY_COLOUR)
