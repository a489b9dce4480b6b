"""The features a wager can read, and the small expression language over them.

A wager's outcome is written in its data file as a condition on the features
of a finished round, in the regulation's own terms, for example Dragon Bonus
"Win by 9 points" (§627a.12(e)):

    when = "not player_natural and player - banker == 9"

Conditions are checked when the data file loads: only the names below,
integers, ``and``/``or``/``not``, comparisons, ``+``/``-`` and ``abs`` may
appear, so a data file can never run code.

>>> cond = Condition.parse("banker_wins and banker == 6 and banker_cards == 3", where="example")
>>> cond(point_row((2, 6, 3, 3)))     # Player 2, Banker 6, three cards each
True
>>> Condition.parse("banker_wins and bankr == 6", where="627b.toml: lucky-six")
Traceback (most recent call last):
...
exactodds.errors.ExactOddsError: 627b.toml: lucky-six: unknown feature 'bankr' in 'banker_wins and bankr == 6'
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import CodeType
from typing import Any

import numpy as np

from .errors import ExactOddsError

__all__ = [
    "POINT_FEATURES", "VALUE_FEATURES", "ALL_CARD_FEATURES", "INITIAL_FEATURES", "DERIVED",
    "KNOWN_FEATURES", "HAND_ATTRIBUTES", "Condition", "point_row", "initial_row", "feature_kind",
    "initial_needs", "SLOTS", "POSITION_FEATURES", "CARD_FEATURES", "VALUE_LEVEL", "FEATURE_TYPES", "vocabulary",
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

_FUNCTIONS = {"abs": abs, "min": min, "max": max}
_ALLOWED = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub,
    ast.BinOp, ast.Add, ast.Sub, ast.Compare, ast.Eq, ast.NotEq, ast.Lt, ast.LtE,
    ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Name, ast.Load, ast.Constant, ast.Tuple,
    ast.Call, ast.Subscript,
)


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


#: The attributes of one hand's first two cards, in the order of :func:`exactodds.identity.hand_attributes`.
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
        if other:
            raise ExactOddsError(
                f"features {sorted(every)[0]!r} and {sorted(other)[0]!r} cannot be read together "
                "(a feature of every card dealt combines with point-value features only)"
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


class _Vectorise(ast.NodeTransformer):
    """Rewrite a checked condition to work on NumPy columns: and/or/not become
    element-wise, chained comparisons are split, ``in`` becomes ``isin``."""

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        values = [self.visit(v) for v in node.values]
        op: ast.operator = ast.BitAnd() if isinstance(node.op, ast.And) else ast.BitOr()
        out = _call("_bool", values[0])
        for v in values[1:]:
            out = ast.BinOp(out, op, _call("_bool", v))
        return out

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        operand = self.visit(node.operand)
        return _call("_not", operand) if isinstance(node.op, ast.Not) else ast.UnaryOp(node.op, operand)

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        left = self.visit(node.left)
        parts: list[ast.expr] = []
        for op, right in zip(node.ops, node.comparators):
            right = self.visit(right)
            if isinstance(op, (ast.In, ast.NotIn)):
                part: ast.expr = _call("_isin", left, right)
                if isinstance(op, ast.NotIn):
                    part = _call("_not", part)
            else:
                part = ast.Compare(left, [op], [right])
            parts.append(_call("_bool", part))
            left = right
        out = parts[0]
        for p in parts[1:]:
            out = ast.BinOp(out, ast.BitAnd(), p)
        return out

    def visit_Call(self, node: ast.Call) -> ast.expr:
        assert isinstance(node.func, ast.Name)
        return _call("_" + node.func.id, *[self.visit(a) for a in node.args])


def _call(name: str, *args: ast.expr) -> ast.expr:
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


def _isin(left: Any, right: Any) -> Any:
    """``left in right`` on columns: against each value of the tuple, row by row
    (a value may itself be a feature's column)."""
    if not isinstance(left, np.ndarray) and not any(isinstance(v, np.ndarray) for v in right):
        return left in right
    out = np.zeros(np.shape(left) or len(next(v for v in right if isinstance(v, np.ndarray))), dtype=bool)
    for value in right:
        out = out | (np.asarray(left) == value)
    return out


_VECTOR_FUNCTIONS = {
    "_bool": lambda x: np.asarray(x, dtype=bool), "_not": np.logical_not, "_isin": _isin,
    "_abs": np.abs, "_min": np.minimum, "_max": np.maximum,
}


@functools.lru_cache(maxsize=4096)
def _compile(text: str, where: str, *, vector: bool) -> CodeType:
    tree = ast.parse(text, mode="eval")
    if vector:
        tree = ast.fix_missing_locations(_Vectorise().visit(tree))
    return compile(tree, where, "eval")


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


class _TypeCheck:
    """Refuse a condition whose parts do not fit: text compared with a number
    (``player_suit_1 == 3``), a text value no feature takes (``player_suit_1 == 'S'``),
    sums of text, a condition that is not yes/no (a bare ``player``)."""

    def __init__(self, where: str, text: str, parameters: frozenset[str]):
        self.where, self.text, self.parameters = where, text, parameters

    def kind(self, node: ast.expr) -> str:
        """'number', 'yes/no', 'text' or 'any' (a parameter or a subscript: checked when evaluated)."""
        if isinstance(node, ast.Constant):
            return "yes/no" if isinstance(node.value, bool) else "text" if isinstance(node.value, str) else "number"
        if isinstance(node, ast.Name):
            return "any" if node.id in self.parameters else FEATURE_TYPES.get(node.id, "any")
        if isinstance(node, ast.Tuple):
            kinds = {self.kind(e) for e in node.elts} - {"any"}
            if len(kinds) > 1:
                self.fail(f"({ast.unparse(node)}) mixes {' and '.join(sorted(kinds))}")
            return kinds.pop() if kinds else "any"
        if isinstance(node, ast.BinOp) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)):
            for o in [node.left, node.right] if isinstance(node, ast.BinOp) else [node.operand]:
                if self.kind(o) not in ("number", "any"):
                    self.fail(f"arithmetic on {self.show(o)}")
            return "number"
        if isinstance(node, ast.Call):
            name = node.func.id  # type: ignore[attr-defined]
            if (name == "abs") != (len(node.args) == 1) or not node.args:
                self.fail(f"{name}() takes {'one number' if name == 'abs' else 'two or more numbers'}")
            for arg in node.args:
                if self.kind(arg) not in ("number", "any"):
                    self.fail(f"{name}() of {self.show(arg)}")
            return "number"
        if isinstance(node, ast.Compare):
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                self.compare(left, op, right)
                left = right
            return "yes/no"
        if isinstance(node, ast.BoolOp):
            for value in node.values:
                self.truth(value)
            return "yes/no"
        if isinstance(node, ast.UnaryOp):                       # not
            self.truth(node.operand)
            return "yes/no"
        return "any"                                            # a subscript of a parameter

    def compare(self, left: ast.expr, op: ast.cmpop, right: ast.expr) -> None:
        a, b = self.kind(left), self.kind(right)
        if isinstance(op, (ast.In, ast.NotIn)):
            if not isinstance(right, ast.Tuple) and not (isinstance(right, ast.Name) and right.id in self.parameters):
                self.fail(f"'in' needs values in parentheses, e.g. player in (1, 2), not {ast.unparse(right)}")
        elif not isinstance(op, (ast.Eq, ast.NotEq)) and "number" not in (a, b) and "any" not in (a, b):
            self.fail(f"{self.show(left)} and {self.show(right)} have no order")
        if "any" not in (a, b) and a != b:
            self.fail(f"{self.show(left)} is compared with {self.show(right)}")
        for feature, other in ((left, right), (right, left)):
            if isinstance(feature, ast.Name) and feature.id in TEXT_VALUES:
                values = other.elts if isinstance(other, ast.Tuple) else [other]
                for v in values:
                    if isinstance(v, ast.Constant) and v.value not in TEXT_VALUES[feature.id]:
                        allowed = ", ".join(repr(x) for x in TEXT_VALUES[feature.id][:16])
                        self.fail(f"{v.value!r} is not a value of {feature.id!r} (it is one of {allowed})")

    def truth(self, node: ast.expr) -> None:
        """``node`` must be yes/no: a comparison, a yes/no feature, and/or/not of those."""
        if self.kind(node) not in ("yes/no", "any"):
            self.fail(f"{self.show(node)} is not yes/no (compare it, e.g. {ast.unparse(node)} == 0)")

    def check(self, node: ast.expr) -> None:
        self.truth(node)

    def show(self, node: ast.expr) -> str:
        kind = self.kind(node)
        if isinstance(node, ast.Name):
            return f"{kind} feature {node.id!r}"
        return f"{kind} {ast.unparse(node)}" if kind != "any" else ast.unparse(node)

    def fail(self, problem: str) -> None:
        raise ExactOddsError(f"{self.where}: {problem} in {_shorten(self.text)}")


def _shorten(text: str, limit: int = 160) -> str:
    """A condition as quoted in an error message, cut short if it is long."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f" ... ({len(text):,} characters)"


@dataclass(frozen=True)
class Condition:
    """A checked, compiled outcome condition over round features."""

    text: str
    names: frozenset[str]
    where: str

    @property
    def code(self) -> CodeType:
        """The condition compiled for one round at a time."""
        return self._compiled(vector=False)

    @property
    def vector_code(self) -> CodeType:
        """The condition compiled for NumPy columns (see :class:`_Vectorise`)."""
        return self._compiled(vector=True)

    def _compiled(self, *, vector: bool) -> CodeType:
        try:
            return _compile(self.text, self.where, vector=vector)
        except (RecursionError, MemoryError):
            raise ExactOddsError(
                f"{self.where}: condition too long or too deeply nested ({len(self.text):,} characters)") from None

    @classmethod
    def parse(cls, text: str, *, where: str, parameters: frozenset[str] = frozenset()) -> Condition:
        """Check ``text`` against the grammar, the known features and the wager's parameters."""
        known = KNOWN_FEATURES | parameters
        if not isinstance(text, str):
            raise ExactOddsError(f"{where}: a condition must be text in quotes, got {text!r}")
        if not text.strip():
            raise ExactOddsError(f"{where}: empty condition")
        text = " ".join(text.split())            # a condition may span lines in the data file
        try:
            tree = ast.parse(text, mode="eval")
            names = cls._check_nodes(tree, text, where=where, known=known)
            _TypeCheck(where, text, parameters).check(tree.body)
            compile(tree, where, "eval")
        except SyntaxError:
            raise ExactOddsError(f"{where}: cannot read condition {_shorten(text)}") from None
        except (RecursionError, MemoryError):
            raise ExactOddsError(f"{where}: condition too long or too deeply nested ({len(text):,} characters)") from None
        return cls(text, frozenset(names), where)

    @staticmethod
    def _check_nodes(tree: ast.AST, text: str, *, where: str, known: frozenset[str]) -> set[str]:
        """Only the allowed node types, names and constants; the features read."""
        names: set[str] = set()
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED):
                raise ExactOddsError(f"{where}: {type(node).__name__} not allowed in {_shorten(text)}")
            if isinstance(node, ast.Name) and node.id in _FUNCTIONS and id(node) not in called:
                raise ExactOddsError(f"{where}: {node.id} is a function, not a value: write {node.id}(...) "
                                     f"in {_shorten(text)}")
            if isinstance(node, ast.Subscript) and not (
                    isinstance(node.value, ast.Name) and node.value.id not in KNOWN_FEATURES):
                raise ExactOddsError(f"{where}: only a wager's list parameters can be indexed, "
                                     f"not a feature, in {_shorten(text)}")
            if isinstance(node, ast.Call):
                if not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS) or node.keywords:
                    raise ExactOddsError(f"{where}: only abs(), min(), max() may be called in {_shorten(text)}")
            elif isinstance(node, ast.Name) and node.id not in _FUNCTIONS:
                if node.id not in known:
                    raise ExactOddsError(f"{where}: unknown feature {node.id!r} in {_shorten(text)}")
                names.add(node.id)
            elif isinstance(node, ast.Constant) and not isinstance(node.value, (int, str)):
                raise ExactOddsError(f"{where}: only whole numbers and 'text' may appear in {_shorten(text)}")
        return names

    def __call__(self, row: Mapping[str, object], parameters: Mapping[str, object] | None = None) -> bool:
        """Evaluate on one round (plain Python; the brute-force route uses this)."""
        names = dict(row) if not parameters else {**parameters, **row}
        return bool(eval(self.code, {"__builtins__": {}, **_FUNCTIONS}, names))  # noqa: S307

    def mask(self, columns: Mapping[str, np.ndarray], size: int,
             parameters: Mapping[str, object] | None = None) -> np.ndarray:
        """Evaluate on every row of a feature table at once (NumPy columns)."""
        names = {**(parameters or {}), **columns}
        code = self.vector_code
        try:
            out = eval(code, {"__builtins__": {}, **_VECTOR_FUNCTIONS}, names)  # noqa: S307
        except RecursionError:
            raise ExactOddsError(
                f"{self.where}: condition too long or too deeply nested ({len(self.text):,} characters)") from None
        except (IndexError, TypeError, ValueError) as exc:
            shown = ", ".join(f"{k}={v!r}" for k, v in (parameters or {}).items())
            raise ExactOddsError(
                f"{self.where}: cannot evaluate {_shorten(self.text)} with {shown or 'no parameters'}: {exc}") from None
        return np.broadcast_to(np.asarray(out, dtype=bool), (size,))
