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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import CodeType

from .errors import ExactOddsError

__all__ = ["POINT_FEATURES", "DERIVED", "Condition", "point_row"]

#: Features read off the point-level table of a round (see :mod:`exactodds.engine`).
POINT_FEATURES: dict[str, str] = {
    "player": "the Player's Hand final Point Count, 0-9 (§627a.6(b))",
    "banker": "the Banker's Hand final Point Count, 0-9",
    "player_cards": "cards in the Player's Hand, 2 or 3",
    "banker_cards": "cards in the Banker's Hand, 2 or 3",
}


def _dragon_7(r: Mapping[str, int]) -> bool:
    """§627a.1: Banker 7 with three cards against a Player below 7."""
    return r["banker"] == 7 and r["banker_cards"] == 3 and r["player"] < 7


def _panda_8(r: Mapping[str, int]) -> bool:
    """§627a.1: Player 8 with three cards against a Banker below 8."""
    return r["player"] == 8 and r["player_cards"] == 3 and r["banker"] < 8


#: Named predicates built from the point features (the regulation's own words).
DERIVED: dict[str, tuple[str, Callable[[Mapping[str, int]], int | bool]]] = {
    "player_natural": ("Player 8 or 9 on the first two cards (§627a.1)",
                       lambda r: r["player_cards"] == 2 and r["player"] >= 8),
    "banker_natural": ("Banker 8 or 9 on the first two cards (§627a.1)",
                       lambda r: r["banker_cards"] == 2 and r["banker"] >= 8),
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
    ast.Call,
)


def point_row(key: tuple[int, int, int, int]) -> dict[str, int | bool]:
    """The named features of one point-level row (player, banker, cards ...)."""
    row: dict[str, int | bool] = dict(zip(POINT_FEATURES, key))
    for name, (_doc, fn) in DERIVED.items():
        row[name] = fn(row)  # type: ignore[arg-type]
    return row


@dataclass(frozen=True)
class Condition:
    """A checked, compiled outcome condition over round features."""

    text: str
    names: frozenset[str]
    code: CodeType

    @classmethod
    def parse(cls, text: str, *, where: str, features: frozenset[str] | None = None) -> Condition:
        """Check ``text`` against the grammar and the known feature names."""
        known = features if features is not None else frozenset(POINT_FEATURES) | frozenset(DERIVED)
        if not isinstance(text, str) or not text.strip():
            raise ExactOddsError(f"{where}: empty condition")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            raise ExactOddsError(f"{where}: cannot read condition {text!r}") from None
        names: set[str] = set()
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED):
                raise ExactOddsError(f"{where}: {type(node).__name__} not allowed in {text!r}")
            if isinstance(node, ast.Call):
                if not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS) or node.keywords:
                    raise ExactOddsError(f"{where}: only abs(), min(), max() may be called in {text!r}")
            elif isinstance(node, ast.Name) and node.id not in _FUNCTIONS:
                if node.id not in known:
                    raise ExactOddsError(f"{where}: unknown feature {node.id!r} in {text!r}")
                names.add(node.id)
            elif isinstance(node, ast.Constant) and not isinstance(node.value, int):
                raise ExactOddsError(f"{where}: only whole numbers may appear in {text!r}")
        return cls(text.strip(), frozenset(names), compile(tree, where, "eval"))

    def __call__(self, row: Mapping[str, object]) -> bool:
        return bool(eval(self.code, {"__builtins__": {}, **_FUNCTIONS}, dict(row)))  # noqa: S307
