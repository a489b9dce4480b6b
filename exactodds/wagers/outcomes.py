"""The features a wager can read: the vocabulary of the condition language.

A wager's outcome is a condition on the features of a finished round
(:mod:`exactodds.wagers.conditions` holds the language). Each feature has a name, a
type (number, yes/no or text) and a meaning in the regulation's words;
``exactodds features`` lists them.

>>> FEATURE_TYPES["player"], FEATURE_TYPES["dragon_7"], FEATURE_TYPES["player_suit_1"]
('number', 'yes/no', 'text')
>>> point_row((2, 6, 3, 3))["banker_wins"]     # Player 2, Banker 6, three cards each
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from exactodds.errors import ExactOddsError, TooLarge

__all__ = [
    "POINT_FEATURES", "VALUE_FEATURES", "ALL_CARD_FEATURES", "INITIAL_FEATURES", "DERIVED",
    "KNOWN_FEATURES", "HAND_ATTRIBUTES", "point_row", "initial_row", "feature_kind",
    "initial_needs", "SLOTS", "POSITION_FEATURES", "CARD_FEATURES", "VALUE_LEVEL", "FEATURE_TYPES", "vocabulary",
    "TEXT_VALUES", "SUITS_TOLD_APART",
]

#: Features read off the point-level table of a round (see :mod:`exactodds.engine`).
POINT_FEATURES: dict[str, str] = {
    "player": "the Player's Hand final Point Count, 0-9 (§627a.6(b))",
    "banker": "the Banker's Hand final Point Count, 0-9",
    "player_cards": "cards in the Player's Hand, 2 or 3",
    "banker_cards": "cards in the Banker's Hand, 2 or 3",
}

#: Value-level features beyond the point table: how many cards of each point value were dealt.
VALUE_FEATURES: dict[str, str] = {
    f"count_{v}": f"cards of point value {v} dealt in the round" for v in range(10)
}

#: The six card positions of a round, by hand, in the order of §627a.8(c)/§627a.9(c).
SLOTS = ("player_1", "player_2", "player_3", "banker_1", "banker_2", "banker_3")

_ORDINAL = {"1": "first", "2": "second", "3": "third"}

#: Value-level features of single cards and of the first two cards of each hand.
POSITION_FEATURES: dict[str, str] = {
    **{f"{h}_value_{k}": f"point value 0-9 of the {h.capitalize()}'s {_ORDINAL[k]} card"
       + (", -1 if not dealt" if k == "3" else "") for h in ("player", "banker") for k in "123"},
    "player_two_card_total": "Point Count of the Player's first two cards, 0-9 (§627a.6(b))",
    "banker_two_card_total": "Point Count of the Banker's first two cards, 0-9 (§627a.6(b))",
}

#: Rank and suit of single cards, by position.
CARD_FEATURES: dict[str, str] = {
    **{f"{h}_rank_{k}": f"rank of the {h.capitalize()}'s {_ORDINAL[k]} card: 1 (Ace) ... 10, 11 (J), "
       "12 (Q), 13 (K)" + ("; -1 if not dealt" if k == "3" else "") for h in ("player", "banker") for k in "123"},
    **{f"{h}_suit_{k}": f"suit of the {h.capitalize()}'s {_ORDINAL[k]} card: 's', 'h', 'd' or 'c'"
       + ("; '' if not dealt" if k == "3" else "") for h in ("player", "banker") for k in "123"},
}

#: Identity features of all the cards dealt in the round (ranks, suits, colours).
ALL_CARD_FEATURES: dict[str, str] = {
    "same_suit": "every card dealt in the round is of one suit",
    "same_colour": "every card dealt in the round is of one colour",
    "same_rank": "every card dealt in the round is of one rank (e.g. six-of-a-kind)",
}

_HAND = ("player", "banker")

#: Identity features of the first two cards of each hand (settled before any third card).
INITIAL_FEATURES: dict[str, str] = {
    **{f"{h}_pair": f"first two {h} cards: 'none', 'mixed', 'coloured' or 'perfect' pair (627b.1(a))"
       for h in _HAND},
    **{f"{h}_suited": f"first two {h} cards of one suit" for h in _HAND},
    **{f"{h}_royal_match": f"first two {h} cards a King and Queen of one suit (631b.7(e)(1))" for h in _HAND},
    **{f"{h}_royal_9": f"first two {h} cards a face card and a nine: 'none', 'unsuited' or 'suited' (627b.3)"
       for h in _HAND},
    **{f"{h}_king_9": f"the King-Nine combination of the first two {h} cards, e.g. 'K♠9♥', or ''"
       for h in _HAND},
    **{f"{h}_nines": f"suits of the nines among the first two {h} cards, letters in alphabetical order, "
       "e.g. '', 'd', 'hs'" for h in _HAND},
    "nines": "nines among the four initial cards (631b.4)",
    "nines_same_suit": "two or more nines among the four initial cards, all of one suit",
    "nine_of_diamonds": "nines of diamonds among the four initial cards",
}


#: The sets of suits a feature tells apart from the others, where it does not treat the four alike:
#: a pair's kind reads colours (hearts and diamonds red), the nine of diamonds one suit, and the
#: letters of nines and of a King-Nine each suit. Every other feature reads suits as equal or not.
SUITS_TOLD_APART: dict[str, tuple[str, ...]] = {
    **{f"{h}_pair": ("hd",) for h in _HAND}, **{f"{h}_nines": ("s", "h", "d") for h in _HAND},
    **{f"{h}_king_9": ("s", "h", "d") for h in _HAND}, "nine_of_diamonds": ("d",), "same_colour": ("hd",),
}


# Derived predicates use & and | so that they work on single rounds and on NumPy columns alike.
def _dragon_7(r: Mapping[str, Any]) -> Any:
    """§627a.1: Banker 7 with three cards against a Player below 7."""
    return (r["banker"] == 7) & (r["banker_cards"] == 3) & (r["player"] < 7)


def _panda_8(r: Mapping[str, Any]) -> Any:
    """§627a.1: Player 8 with three cards against a Banker below 8."""
    return (r["player"] == 8) & (r["player_cards"] == 3) & (r["banker"] < 8)


#: Named predicates built from the point features (the regulation's own words).
DERIVED: dict[str, tuple[str, Callable[[Mapping[str, Any]], Any]]] = {
    "player_natural": ("Player 8 or 9 on the first two cards (§627a.1)",
                       lambda r: (r["player_cards"] == 2) & (r["player"] >= 8)),
    "banker_natural": ("Banker 8 or 9 on the first two cards (§627a.1)",
                       lambda r: (r["banker_cards"] == 2) & (r["banker"] >= 8)),
    "player_wins": ("Player's Point Count higher (§627a.7(a)(2))", lambda r: r["player"] > r["banker"]),
    "banker_wins": ("Banker's Point Count higher (§627a.7(a)(1))", lambda r: r["banker"] > r["player"]),
    "tie": ("equal Point Counts (§627a.7(a)(3))", lambda r: r["player"] == r["banker"]),
    "cards": ("cards dealt in the round, 4 to 6", lambda r: r["player_cards"] + r["banker_cards"]),
    "dragon_7": ("Dragon 7 (§627a.1)", _dragon_7),
    "panda_8": ("Panda 8 (§627a.1)", _panda_8),
}

def point_row(key: tuple[int, int, int, int], **extra: object) -> dict[str, object]:
    """The named features of one point-level row (player, banker, cards ...)."""
    row: dict[str, object] = dict(zip(POINT_FEATURES, key))
    for name, (_doc, fn) in DERIVED.items():
        row[name] = fn(row)  # type: ignore[arg-type]
    row.update(extra)
    return row


def initial_row(player: tuple[object, ...], banker: tuple[object, ...]) -> dict[str, object]:
    """The named features of the four initial cards, from each hand's attributes."""
    row: dict[str, object] = {}
    for hand, attrs in (("player", player), ("banker", banker)):
        row.update({f"{hand}_{name}": value for name, value in zip(HAND_ATTRIBUTES, attrs)})
    if row["player_nines"] is None or row["banker_nines"] is None:
        return row
    suits = str(row["player_nines"]) + str(row["banker_nines"])
    row["nines"] = len(suits)
    row["nines_same_suit"] = len(suits) >= 2 and len(set(suits)) == 1
    row["nine_of_diamonds"] = suits.count("d")
    return row


#: The attributes of one hand's first two cards, in the order of :func:`exactodds.engine.identity.hand_attributes`.
HAND_ATTRIBUTES = ("pair", "suited", "royal_match", "royal_9", "king_9", "nines")


def feature_kind(names: frozenset[str]) -> str:
    """Which exact table a set of features is read from.

    'point' (totals and card counts of each hand), 'value' (any point-value
    feature), 'initial' (identities of the four initial cards only), 'round'
    (same suit/colour/rank of every card, with point-value features) or
    'general' (ranks and suits of single cards with anything else).
    """
    names = names & KNOWN_FEATURES
    if names <= frozenset(POINT_FEATURES) | frozenset(DERIVED):
        return "point"
    if names <= VALUE_LEVEL:
        return "value"
    if names <= frozenset(INITIAL_FEATURES):
        return "initial"
    every = names & frozenset(ALL_CARD_FEATURES)
    if every:
        other = names - VALUE_LEVEL - every
        if other and len(every) == 1:
            return "general"                       # one suit, colour or rank for every card: read by suit pattern
        if other:                                  # no table reads them: refused as too large (the walk may)
            raise TooLarge(
                f"features {sorted(every)[0]!r} and {sorted(every)[1]!r} cannot be read together with "
                f"{sorted(other)[0]!r} (one feature of every card combines with single cards' ranks and suits)"
            )
        return "round"
    return "general"


#: Cross-hand initial features and the hand attribute each needs on both hands.
CROSS_INITIAL = {"nines": "nines", "nines_same_suit": "nines", "nine_of_diamonds": "nines"}


def initial_needs(names: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The hand attributes (Player, Banker) that initial features ``names`` read."""
    needs: dict[str, set[str]] = {"player": set(), "banker": set()}
    for name in names & frozenset(INITIAL_FEATURES):
        if name in CROSS_INITIAL:
            needs["player"].add(CROSS_INITIAL[name])
            needs["banker"].add(CROSS_INITIAL[name])
        else:
            hand, _, attr = name.partition("_")
            needs[hand].add(attr)
    return (tuple(a for a in HAND_ATTRIBUTES if a in needs["player"]),
            tuple(a for a in HAND_ATTRIBUTES if a in needs["banker"]))


KNOWN_FEATURES = frozenset(POINT_FEATURES) | frozenset(DERIVED) | frozenset(VALUE_FEATURES) | frozenset(
    POSITION_FEATURES) | frozenset(CARD_FEATURES) | frozenset(ALL_CARD_FEATURES) | frozenset(INITIAL_FEATURES)

#: Features that read only point values (the drawing rules' level); everything else reads identities.
VALUE_LEVEL = frozenset(POINT_FEATURES) | frozenset(DERIVED) | frozenset(VALUE_FEATURES) | frozenset(
    POSITION_FEATURES)

_TEXT = frozenset(f"{h}_{a}" for h in _HAND for a in ("pair", "royal_9", "king_9", "nines")) | frozenset(
    n for n in CARD_FEATURES if "_suit_" in n)
_BOOL = frozenset(DERIVED) - {"cards"} | frozenset(ALL_CARD_FEATURES) | frozenset(
    f"{h}_{a}" for h in _HAND for a in ("suited", "royal_match")) | {"nines_same_suit"}

#: The type of every feature: 'number', 'yes/no' or 'text'.
FEATURE_TYPES: dict[str, str] = {
    n: "text" if n in _TEXT else "yes/no" if n in _BOOL else "number" for n in sorted(KNOWN_FEATURES)
}


def vocabulary() -> list[dict[str, str]]:
    """Every feature a condition can read: name, type, group and meaning (``exactodds features``)."""
    groups = (("point", POINT_FEATURES), ("derived", {k: d for k, (d, _f) in DERIVED.items()}),
              ("position", POSITION_FEATURES), ("card", CARD_FEATURES), ("count", VALUE_FEATURES),
              ("initial", INITIAL_FEATURES), ("all cards", ALL_CARD_FEATURES))
    return [{"name": n, "type": FEATURE_TYPES[n], "group": g, "meaning": d}
            for g, table in groups for n, d in table.items()]


_SUITS = ("s", "h", "d", "c")
#: The values a text feature takes; a condition naming any other value is refused.
TEXT_VALUES: dict[str, tuple[str, ...]] = {
    **{n: (*_SUITS, "") for n in CARD_FEATURES if "_suit_" in n},
    **{f"{h}_pair": ("none", "mixed", "coloured", "perfect") for h in _HAND},
    **{f"{h}_royal_9": ("none", "unsuited", "suited") for h in _HAND},
    **{f"{h}_king_9": tuple(f"K{k}9{n}" for k in "♠♥♦♣" for n in "♠♥♦♣") + ("",) for h in _HAND},
    **{f"{h}_nines": ("",) + tuple(sorted({"".join(sorted(a + b)) for a in _SUITS for b in ("", *_SUITS)}))
       for h in _HAND},
}
