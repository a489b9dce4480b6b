"""The condition language of outcomes: one grammar, one type check, one compiler.

A wager's outcome is written in its data file as a condition on the features
of a finished round (:mod:`exactodds.wagers.outcomes` lists them), in the regulation's
own terms, for example Dragon Bonus "Win by 9 points" (§627a.12(e)):

    when = "not player_natural and player - banker == 9"

The grammar (written out for users in ``docs/formats.md``, "Conditions")::

    condition  := yes/no expression
    yes/no     := yes/no "or" yes/no | yes/no "and" yes/no | "not" yes/no
                | comparison | YES/NO FEATURE | True | False | "(" yes/no ")"
    comparison := value (OP value)+                   OP: == != < <= > >= (a chain: 1 <= x <= 5)
                | value ["not"] "in" "(" value, ... ")" | value ["not"] "in" LIST PARAMETER
    number     := NUMBER FEATURE | WHOLE NUMBER | number ("+" | "-") number | "-" number
                | number "%" WHOLE NUMBER >= 1 | abs(number) | min(number, ...) | max(number, ...)
                | NUMBER PARAMETER | LIST PARAMETER "[" number "]" | "(" number ")"
    text       := TEXT FEATURE | 'a value the compared feature takes' | TEXT PARAMETER

Every value has one of three types, number, yes/no or text. Both sides of a
comparison have the same type; only numbers have an order; ``in`` takes a
parenthesised list (or a list parameter) of values of the left side's type and
is not chained; a yes/no expression is never used as a number. Arithmetic is on
whole numbers of at most :data:`MAX_CONSTANT` (no overflow is possible within
:data:`MAX_LENGTH` characters), ``%`` is Python's (the sign of the divisor), and
``min``/``max`` take one or more arguments. Anything else is refused when the
file loads, with one line naming the file, the wager and the outcome; nothing
is ever approximated, and a data file can never run code.

The compiler turns a checked condition into a tree of NumPy operations that
evaluates a whole feature table at once (:meth:`Condition.mask`) or one round
(:meth:`Condition.__call__`, the same code on scalars). The tests compare it with
plain Python evaluation of the same text on every deal of small shoes.

>>> from exactodds.wagers.outcomes import point_row
>>> cond = Condition.parse("banker_wins and banker == 6 and banker_cards == 3", where="example")
>>> cond(point_row((2, 6, 3, 3)))     # Player 2, Banker 6, three cards each
True
>>> Condition.parse("max(player, banker, 8) == 9", where="example")(point_row((9, 2, 2, 3)))
True
>>> Condition.parse("banker_wins and bankr == 6", where="627b.toml: lucky-six")
Traceback (most recent call last):
...
exactodds.errors.ExactOddsError: 627b.toml: lucky-six: unknown feature 'bankr' (did you mean 'banker'?) in 'banker_wins and bankr == 6'
"""

from __future__ import annotations

import ast
import difflib
import functools
import io
import tokenize
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from exactodds.errors import ExactOddsError
from exactodds.wagers.outcomes import FEATURE_TYPES, KNOWN_FEATURES, TEXT_VALUES

__all__ = ["Condition", "MAX_LENGTH", "MAX_CONSTANT", "MAX_DEPTH", "FUNCTIONS", "parameter_type"]

#: The longest condition accepted, in characters (after folding white space).
MAX_LENGTH = 5_000
#: The largest whole number a condition may write (so sums of features never leave int64).
MAX_CONSTANT = 10**9
#: The deepest nesting of a condition's parts.
MAX_DEPTH = 100
#: The functions a condition may call, with the arguments each takes.
FUNCTIONS = {"abs": "one number", "min": "one or more numbers", "max": "one or more numbers"}

NUMBER, YES_NO, TEXT = "number", "yes/no", "text"
_LIST = "list of "

#: An evaluator: the environment (feature columns or one round's values, and the parameters) to a value.
Evaluator = Callable[[Mapping[str, Any]], Any]

_ORDER: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: np.equal, ast.NotEq: np.not_equal, ast.Lt: np.less, ast.LtE: np.less_equal,
    ast.Gt: np.greater, ast.GtE: np.greater_equal,
}
_WRITTEN = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


def parameter_type(value: object) -> str:
    """The type of a wager parameter's value: number, text, or a list of either ('list of text')."""
    if isinstance(value, bool):
        raise ExactOddsError(f"a parameter is a number, text or a list of them, not {value!r}")
    if isinstance(value, int):
        if abs(value) > MAX_CONSTANT:
            raise ExactOddsError(f"a number parameter is at most {MAX_CONSTANT:,} in size, got {value}")
        return NUMBER
    if isinstance(value, str):
        return TEXT
    if isinstance(value, (list, tuple)):
        kinds = {parameter_type(v) for v in value}
        if len(kinds) > 1 or kinds & {_LIST + NUMBER, _LIST + TEXT}:
            raise ExactOddsError("a list parameter holds numbers only or text only")
        return _LIST + (kinds.pop() if kinds else "anything")
    raise ExactOddsError(f"a parameter is a number, text or a list of them, not {value!r}")


def _whole(x: Any) -> Any:
    """A number operand for arithmetic: narrow integer columns widened to int64 (no wrap-around)."""
    if isinstance(x, np.ndarray) and x.dtype != np.int64:
        return x.astype(np.int64)
    return x


class _Compiler:
    """Type-check a parsed condition and build its evaluator, node by node."""

    def __init__(self, text: str, where: str, parameters: Mapping[str, object]):
        self.text, self.where, self.values = text, where, dict(parameters)
        self.parameters = {}
        for name, value in parameters.items():
            try:
                self.parameters[name] = parameter_type(value)
            except ExactOddsError as exc:
                raise ExactOddsError(f"{where}: parameter {name!r}: {exc}") from None
        if empty := [name for name, kind in self.parameters.items() if kind == _LIST + "anything"]:
            raise ExactOddsError(f"{where}: parameter {empty[0]!r} is an empty list (give its values: their type "
                                 "is what its conditions are checked against)")
        self.names: set[str] = set()
        self.texts: list[frozenset[str]] = []    # the texts it names: each value, or the values of one 'in'
        self.joined: set[str] = set()            # the features compared with another feature ('==', '!=', 'in')


    def features_in(self, node: ast.AST) -> set[str]:
        """The round's features a part of the condition reads."""
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in KNOWN_FEATURES
                and n.id not in self.parameters}

    def join(self, *parts: ast.AST) -> None:
        """Note the features of ``parts`` as compared with each other, where two of them read any."""
        read = [self.features_in(p) for p in parts]
        if sum(bool(r) for r in read) >= 2:
            self.joined.update(*read)

    def fail(self, problem: str) -> ExactOddsError:
        return ExactOddsError(f"{self.where}: {problem} in {_shorten(self.text)}")

    def show(self, node: ast.AST) -> str:
        return ast.unparse(node)

    def describe(self, node: ast.AST, kind: str) -> str:
        """How a part is named in a message: "text feature 'player_suit_1'", "number 3"."""
        if isinstance(node, ast.Name):
            return f"{kind} {'parameter' if node.id in self.parameters else 'feature'} {node.id!r}"
        return f"{kind} {self.show(node)}"

    # -- the grammar, node by node: each returns (evaluator, type) -----------------------------
    def visit(self, node: ast.AST) -> tuple[Evaluator, str]:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.fail(f"{self._what(node)} is not part of the condition language")
        result: tuple[Evaluator, str] = method(node)
        return result

    @staticmethod
    def _what(node: ast.AST) -> str:
        named = {ast.Mult: "'*'", ast.Div: "'/'", ast.FloorDiv: "'//'", ast.Pow: "'**'", ast.BitAnd: "'&'",
                 ast.BitOr: "'|'", ast.BitXor: "'^'", ast.LShift: "'<<'", ast.RShift: "'>>'", ast.IfExp: "'if'",
                 ast.Lambda: "'lambda'", ast.Attribute: "an attribute ('.')", ast.List: "a list in brackets",
                 ast.Dict: "a dict", ast.Set: "a set", ast.Starred: "'*'", ast.UAdd: "unary '+'",
                 ast.Invert: "'~'", ast.Is: "'is'", ast.IsNot: "'is not'", ast.JoinedStr: "an f-string"}
        if isinstance(node, ast.BinOp):
            return named.get(type(node.op), type(node.op).__name__)
        if isinstance(node, ast.UnaryOp):
            return named.get(type(node.op), type(node.op).__name__)
        return named.get(type(node), type(node).__name__)

    def visit_Constant(self, node: ast.Constant) -> tuple[Evaluator, str]:
        value = node.value
        if isinstance(value, bool):
            return (lambda env: value), YES_NO
        if isinstance(value, int):
            if abs(value) > MAX_CONSTANT:
                raise self.fail(f"{value} is larger than {MAX_CONSTANT:,}")
            return (lambda env: value), NUMBER
        if isinstance(value, str):
            self.texts.append(frozenset({value}))
            return (lambda env: value), TEXT
        raise self.fail(f"only whole numbers and 'text' may appear, not {value!r}")

    def visit_Name(self, node: ast.Name) -> tuple[Evaluator, str]:
        name = node.id
        if name in FUNCTIONS:
            raise self.fail(f"{name} is a function, not a value: write {name}(...)")
        if name in self.parameters:
            kind = self.parameters[name]
            given = self.values[name]
            self.texts.extend(frozenset({v}) for v in (given if isinstance(given, (list, tuple)) else [given])
                              if isinstance(v, str))
        elif name in KNOWN_FEATURES:
            kind = FEATURE_TYPES[name]
            self.names.add(name)
        else:
            close = difflib.get_close_matches(name, [*KNOWN_FEATURES, *self.parameters], n=1, cutoff=0.75)
            hint = f" (did you mean {close[0]!r}?)" if close else " (see 'exactodds features')"
            raise self.fail(f"unknown feature {name!r}{hint}")
        where, text = self.where, self.text

        def read(env: Mapping[str, Any]) -> Any:
            try:
                return env[name]
            except KeyError:
                raise ExactOddsError(f"{where}: no value of {name!r} to evaluate {_shorten(text)}") from None
        return read, kind

    def visit_Subscript(self, node: ast.Subscript) -> tuple[Evaluator, str]:
        if not (isinstance(node.value, ast.Name) and self.parameters.get(node.value.id, "").startswith(_LIST)):
            raise self.fail(f"only a wager's list parameters can be indexed, not {self.show(node.value)}")
        kind = self.parameters[node.value.id][len(_LIST):]
        if read := [n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name) and n.id not in self.parameters
                    and n.id not in FUNCTIONS]:
            raise self.fail(f"an index is fixed by the wager's parameters, not by the round ({read[0]!r})")
        index, index_kind = self.visit(node.slice)
        if index_kind != NUMBER:
            raise self.fail(f"an index is a number, not {index_kind} {self.show(node.slice)}")
        name, where, text = node.value.id, self.where, self.text
        self.texts.extend(frozenset({v}) for v in _items(self.values[name]) if isinstance(v, str))   # any one

        def item(env: Mapping[str, Any]) -> Any:
            values, i = env[name], index(env)
            if not 0 <= int(i) < len(values):
                raise ExactOddsError(f"{where}: index {int(i)} of {name!r} is outside 0 to {len(values) - 1} "
                                     f"in {_shorten(text)}")
            return values[int(i)]
        return item, kind

    def visit_UnaryOp(self, node: ast.UnaryOp) -> tuple[Evaluator, str]:
        operand, kind = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            self.expect(node.operand, kind, YES_NO, "'not' of")
            return (lambda env: np.logical_not(operand(env))), YES_NO
        if isinstance(node.op, ast.USub):
            self.expect(node.operand, kind, NUMBER, "'-' of")
            return (lambda env: -_whole(operand(env))), NUMBER
        raise self.fail(f"{self._what(node)} is not part of the condition language")

    def visit_BinOp(self, node: ast.BinOp) -> tuple[Evaluator, str]:
        if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mod)):
            raise self.fail(f"{self._what(node)} is not part of the condition language (arithmetic is + - %)")
        left, lkind = self.visit(node.left)
        self.expect(node.left, lkind, NUMBER, "arithmetic on")
        if isinstance(node.op, ast.Mod):
            divisor = node.right
            if not (isinstance(divisor, ast.Constant) and type(divisor.value) is int and divisor.value >= 1):
                raise self.fail(f"'%' takes a whole number of at least 1 on its right, not {self.show(divisor)}")
            n = divisor.value
            if n > MAX_CONSTANT:
                raise self.fail(f"{n} is larger than {MAX_CONSTANT:,}")
            return (lambda env: np.remainder(_whole(left(env)), n)), NUMBER
        right, rkind = self.visit(node.right)
        self.expect(node.right, rkind, NUMBER, "arithmetic on")
        if isinstance(node.op, ast.Add):
            return (lambda env: _whole(left(env)) + _whole(right(env))), NUMBER
        return (lambda env: _whole(left(env)) - _whole(right(env))), NUMBER

    def visit_Call(self, node: ast.Call) -> tuple[Evaluator, str]:
        if not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            raise self.fail(f"only {', '.join(f + '()' for f in FUNCTIONS)} may be called")
        name = node.func.id
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) or not node.args or (
                name == "abs" and len(node.args) != 1):
            raise self.fail(f"{name}() takes {FUNCTIONS[name]}")
        args = []
        for a in node.args:
            fn, kind = self.visit(a)
            self.expect(a, kind, NUMBER, f"{name}() of")
            args.append(fn)
        if name == "abs":
            (x,) = args
            return (lambda env: np.abs(_whole(x(env)))), NUMBER
        combine = np.minimum if name == "min" else np.maximum
        if len(args) == 1:
            return args[0], NUMBER
        return (lambda env: functools.reduce(combine, (_whole(a(env)) for a in args))), NUMBER

    def visit_BoolOp(self, node: ast.BoolOp) -> tuple[Evaluator, str]:
        parts = []
        for v in node.values:
            fn, kind = self.visit(v)
            self.expect(v, kind, YES_NO, f"'{'and' if isinstance(node.op, ast.And) else 'or'}' of")
            parts.append(fn)
        combine = np.logical_and if isinstance(node.op, ast.And) else np.logical_or
        return (lambda env: functools.reduce(combine, (p(env) for p in parts))), YES_NO

    def visit_Compare(self, node: ast.Compare) -> tuple[Evaluator, str]:
        if any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            return self._membership(node)
        operands = [node.left, *node.comparators]
        compiled = [self.visit(o) for o in operands]
        tests = []
        for k, op in enumerate(node.ops):
            if type(op) not in _ORDER:
                raise self.fail(f"{self._what(op)} is not part of the condition language")
            (_, a), (_, b) = compiled[k], compiled[k + 1]
            left, right = operands[k], operands[k + 1]
            self.join(left, right)
            if a.startswith(_LIST) or b.startswith(_LIST):
                raise self.fail(f"a list is read with 'in' or an index, not {_WRITTEN[type(op)]}")
            if a != b:
                raise self.fail(f"{self.describe(left, a)} is compared with {self.describe(right, b)}")
            if a != NUMBER and not isinstance(op, (ast.Eq, ast.NotEq)):
                raise self.fail(f"{self.describe(left, a)} and {self.show(right)} have no order (only == and !=)")
            self.check_values(left, right)
            tests.append(_ORDER[type(op)])
        fns = [fn for fn, _ in compiled]

        def compare(env: Mapping[str, Any]) -> Any:
            values = [f(env) for f in fns]               # each operand evaluated once, as Python chains do
            out = tests[0](values[0], values[1])
            for k in range(1, len(tests)):
                out = np.logical_and(out, tests[k](values[k], values[k + 1]))
            return out
        return compare, YES_NO

    def _membership(self, node: ast.Compare) -> tuple[Evaluator, str]:
        if len(node.ops) != 1:
            raise self.fail("'in' is not chained with another comparison: join them with 'and'")
        negate = isinstance(node.ops[0], ast.NotIn)
        left, kind = self.visit(node.left)
        right_node = node.comparators[0]
        if kind.startswith(_LIST):
            raise self.fail(f"the left of 'in' is one value, not the list {self.show(node.left)}")
        if isinstance(right_node, ast.Tuple):
            if not right_node.elts:
                raise self.fail("'in ()' has no values")
            named = len(self.texts)
            values = []
            for e in right_node.elts:
                fn, ekind = self.visit(e)
                if ekind != kind:
                    raise self.fail(f"{self.describe(node.left, kind)} is looked up among {self.describe(e, ekind)}")
                values.append(fn)
                self.check_values(node.left, e)
            self.join(node.left, *right_node.elts)
            if all(isinstance(e, ast.Constant) for e in right_node.elts):      # one set of texts, read as one
                self.texts[named:] = [frozenset().union(*self.texts[named:])] if self.texts[named:] else []

            def member(env: Mapping[str, Any]) -> Any:
                x = left(env)
                return functools.reduce(np.logical_or, (np.equal(x, v(env)) for v in values))
        elif isinstance(right_node, ast.Name) and self.parameters.get(right_node.id, "").startswith(_LIST):
            lkind = self.parameters[right_node.id][len(_LIST):]
            if lkind != kind:
                raise self.fail(f"{self.describe(node.left, kind)} is looked up among the {lkind} of {right_node.id!r}")
            name = right_node.id
            self.check_values(node.left, right_node, every=True)
            self.texts.append(frozenset(v for v in _items(self.values[name]) if isinstance(v, str)))

            def member(env: Mapping[str, Any]) -> Any:
                x = left(env)
                return functools.reduce(np.logical_or, (np.equal(x, v) for v in env[name]), np.zeros_like(x, bool))
        else:
            raise self.fail(f"'in' needs values in parentheses, e.g. player in (1, 2), not {self.show(right_node)}")
        if negate:
            return (lambda env: np.logical_not(member(env))), YES_NO
        return member, YES_NO

    def visit_Tuple(self, node: ast.Tuple) -> tuple[Evaluator, str]:
        raise self.fail(f"values in parentheses ({self.show(node)}) are only read by 'in'")

    # -- checks -----------------------------------------------------------------------------------
    def expect(self, node: ast.AST, kind: str, want: str, rule: str) -> None:
        """``node`` must be of type ``want``; else "RULE KIND NODE", e.g. "arithmetic on text feature 'x'"."""
        if kind != want:
            hint = f" (compare it, e.g. {self.show(node)} == 0)" if want == YES_NO and kind == NUMBER else ""
            raise self.fail(f"{rule} {self.describe(node, kind)} (it takes {want}){hint}")

    def feature_values(self, node: ast.AST) -> tuple[str, ...] | None:
        """The values a text feature takes, if ``node`` is one."""
        if isinstance(node, ast.Name) and node.id in TEXT_VALUES and node.id not in self.parameters:
            return TEXT_VALUES[node.id]
        return None

    def fixed_values(self, node: ast.AST, *, every: bool = False) -> list[object]:
        """The values a part takes that are fixed before any card is dealt: a constant, a parameter, every
        item of a list parameter (read by an index, or ``every`` item for ``in``)."""
        if isinstance(node, ast.Constant):
            return [node.value]
        if isinstance(node, ast.Name) and node.id in self.values:
            value = self.values[node.id]
            return list(value) if every and isinstance(value, (list, tuple)) else [value]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.values:
            return list(self.values[node.value.id])  # type: ignore[call-overload]
        return []

    def check_values(self, a: ast.AST, b: ast.AST, *, every: bool = False) -> None:
        """Text compared with a text feature must be a value that feature takes (constants, parameters
        and list items alike), and two text features compared must have a value in common."""
        va, vb = self.feature_values(a), self.feature_values(b)
        if va is not None and vb is not None and not set(va) & set(vb):
            raise self.fail(f"{self.show(a)} and {self.show(b)} are never equal (they take different values)")
        for values, feature, other in ((va, a, b), (vb, b, a)):
            if values is None:
                continue
            for v in self.fixed_values(other, every=every):
                if v not in values:
                    allowed = ", ".join(repr(x) for x in values[:16])
                    source = "" if isinstance(other, ast.Constant) else f" ({self.show(other)})"
                    raise self.fail(f"{v!r}{source} is not a value of {self.show(feature)!r} (it is one of {allowed})")


def _items(value: object) -> list[object]:
    """A list parameter's values (checked to be a list by :func:`parameter_type`)."""
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _shorten(text: str, limit: int = 160) -> str:
    """A condition as quoted in an error message, cut short if it is long."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f" ... ({len(text):,} characters)"


def _has_comment(text: str) -> bool:
    """Whether Python would read part of ``text`` as a comment ('#' outside a quoted value)."""
    if "#" not in text:                          # no comment possible: spare the tokenizer (and its start-up)
        return False
    try:
        return any(t.type == tokenize.COMMENT for t in tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return "#" in text                       # unreadable anyway; a '#' in it is not hidden silently


def _with_double_equals(text: str) -> str | None:
    """``text`` with each lone ``=`` (an assignment, outside quotes) written ``==``, or None if it has none:
    ``banker_total = 6`` is the comparison ``banker_total == 6`` mistyped.

    >>> _with_double_equals("banker_total = 6 and player_total == 'x=y'"), _with_double_equals("a == 1")
    ("banker_total == 6 and player_total == 'x=y'", None)
    """
    try:
        at = [t.start[1] for t in tokenize.generate_tokens(io.StringIO(text).readline)
              if t.type == tokenize.OP and t.string == "="]
    except (tokenize.TokenError, SyntaxError):
        return None
    for column in reversed(at):
        text = text[:column] + "==" + text[column + 1:]
    return text if at else None


def _ascii_names(text: str, where: str) -> None:
    """Refuse a name written in other than ASCII letters, digits and '_' (a text in quotes may hold anything):
    Python folds a name to its NFKC form, so a look-alike of a feature's name would read as the feature."""
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and not token.string.isascii():
            folded = unicodedata.normalize("NFKC", token.string)
            like = f" (it looks like {folded!r})" if folded.isascii() else ""
            raise ExactOddsError(f"{where}: {token.string!r} is not a name a condition reads{like}: names are "
                                 f"written in ASCII letters, digits and _, in {_shorten(text)}")


def _depth(tree: ast.AST) -> int:
    """How deeply the parts of a parsed condition nest (walked without recursion)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(node))
    return deepest


@dataclass(frozen=True)
class Condition:
    """A checked, compiled outcome condition over round features (see the module's grammar)."""

    text: str
    names: frozenset[str]
    where: str
    evaluate: Evaluator = field(compare=False, hash=False, repr=False)
    #: The wager's parameters as the condition was checked against them (name, value).
    declared: tuple[tuple[str, object], ...] = field(default=(), compare=False, hash=False, repr=False)
    #: The texts the condition names, written or through a parameter: each value alone, or the values
    #: of one 'in' together (which suits it tells apart: :func:`exactodds.engine.multiset.told_apart`).
    texts: frozenset[frozenset[str]] = field(default=frozenset(), compare=False, hash=False, repr=False)
    #: The features the condition compares with another feature (``a == b``, ``a in (b, 'x')``): a suit
    #: read only against named suits is read no finer than they tell apart (the walk reads it so).
    joined: frozenset[str] = field(default=frozenset(), compare=False, hash=False, repr=False)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its text, and compiled again when unpickled (worker processes price wagers too)."""
        return _parse_again, (self.text, self.where, self.declared)

    @classmethod
    def parse(cls, text: str, *, where: str, parameters: Mapping[str, object] | None = None) -> Condition:
        """Check ``text`` against the grammar, the features and the wager's ``parameters`` (name: value)."""
        if not isinstance(text, str):
            raise ExactOddsError(f"{where}: a condition must be text in quotes, got {text!r}")
        text = " ".join(text.split())            # a condition may span lines in the data file
        if not text:
            raise ExactOddsError(f"{where}: empty condition")
        if len(text) > MAX_LENGTH:
            raise ExactOddsError(f"{where}: condition too long or too deeply nested ({len(text):,} characters; "
                                 f"at most {MAX_LENGTH:,})")
        params = dict(parameters or {})
        if clash := sorted(set(params) & (KNOWN_FEATURES | set(FUNCTIONS))):
            raise ExactOddsError(f"{where}: parameter {clash[0]!r} has the name of a feature or function")
        if _has_comment(text):
            raise ExactOddsError(f"{where}: a condition holds no comment ('#' hides the rest of the condition once "
                                 f"its lines are joined): write comments on TOML lines of their own, in "
                                 f"{_shorten(text)}")
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            meant = _with_double_equals(text)
            if meant is not None:
                raise ExactOddsError(f"{where}: '=' in a condition: use == to compare, as in {_shorten(meant)} "
                                     f"(read {_shorten(text)})") from None
            raise ExactOddsError(f"{where}: cannot read condition {_shorten(text)}") from None
        except (RecursionError, MemoryError):
            raise ExactOddsError(f"{where}: condition too long or too deeply nested") from None
        if not text.isascii():                   # Python reads a name by its NFKC form: '𝓹𝓵𝓪𝔂𝓮𝓻' would be 'player'
            _ascii_names(text, where)
        if _depth(tree) > MAX_DEPTH:
            raise ExactOddsError(f"{where}: condition too long or too deeply nested (more than {MAX_DEPTH} "
                                 f"levels) in {_shorten(text)}")
        compiler = _Compiler(text, where, params)
        evaluate, kind = compiler.visit(tree.body)
        if kind != YES_NO:
            hint = f" (compare it, e.g. {text} == 0)" if kind == NUMBER else ""
            raise compiler.fail(f"{compiler.describe(tree.body, kind)} is not yes/no{hint}")
        return cls(text, frozenset(compiler.names), where, evaluate, tuple(params.items()),
                   frozenset(t for t in compiler.texts if t), frozenset(compiler.joined))

    def __call__(self, row: Mapping[str, object], parameters: Mapping[str, object] | None = None) -> bool:
        """Evaluate on one round: ``row`` maps feature names to that round's values."""
        env = {**parameters, **row} if parameters else row
        return bool(self.evaluate(env))

    def parts_alone(self, feature: str) -> list[Evaluator]:
        """The evaluators of the largest parts of the condition that read ``feature`` and no other feature of
        the round (parameters aside): every place the condition reads ``feature`` lies in one of them, so its
        value depends on ``feature`` only through theirs (how :mod:`exactodds.engine.tens` proves which ranks
        a condition tells apart). A bare ``feature`` compared with another is its own part.

        >>> c = Condition.parse("player_rank_1 >= 11 and player_cards == 2", where="example")
        >>> [bool(part({"player_rank_1": 12})) for part in c.parts_alone("player_rank_1")]
        [True]
        >>> [part({"player_rank_1": 12}) for part in Condition.parse(
        ...     "player_rank_1 == banker_rank_1", where="example").parts_alone("player_rank_1")]
        [12]
        >>> [part({"banker_rank_1": 11}) for part in Condition.parse(
        ...     "banker in (banker_rank_1, 3)", where="example").parts_alone("banker_rank_1")]
        [11]
        """
        compiler = _Compiler(self.text, self.where, dict(self.declared))
        parts: list[Evaluator] = []

        def largest(node: ast.AST) -> None:
            read = compiler.features_in(node)
            if read == {feature} and not isinstance(node, ast.Tuple):   # the values of an 'in': each one a part
                try:
                    parts.append(compiler.visit(node)[0])
                    return
                except ExactOddsError:                  # a part read only within its parent: its own parts
                    pass
            if feature in read:
                for child in ast.iter_child_nodes(node):
                    largest(child)

        largest(ast.parse(self.text, mode="eval").body)
        return parts

    def mask(self, columns: Mapping[str, np.ndarray], size: int,
             parameters: Mapping[str, object] | None = None) -> np.ndarray:
        """Evaluate on every row of a feature table at once (NumPy columns of length ``size``)."""
        env = {**(parameters or {}), **columns}
        out = np.asarray(self.evaluate(env))
        if out.dtype != np.bool_:
            raise ExactOddsError(f"{self.where}: {_shorten(self.text)} did not evaluate to yes/no")
        return np.broadcast_to(out, (size,))


def _parse_again(text: str, where: str, declared: tuple[tuple[str, object], ...]) -> Condition:
    return Condition.parse(text, where=where, parameters=dict(declared))
