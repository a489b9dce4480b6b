"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe

ALL_CARDS = [Card.from_index(i) for i in range(52)]


@st.composite
def small_shoes(draw: st.DrawFn, max_identities: int = 7, max_count: int = 3) -> Shoe:
    """A shoe of a few distinct card identities, small enough for the brute force."""
    cards = draw(st.lists(st.sampled_from(ALL_CARDS), min_size=2, max_size=max_identities, unique=True))
    counts = draw(st.lists(st.integers(1, max_count), min_size=len(cards), max_size=len(cards)))
    if sum(counts) < 6:
        counts[0] += 6 - sum(counts)
    return Shoe.from_card_counts(dict(zip(cards, counts)), label="random small shoe")


@st.composite
def depleted_shoes(draw: st.DrawFn) -> Shoe:
    """One to eight decks with up to 40 random cards removed."""
    decks = draw(st.integers(1, 8))
    shoe = Shoe.decks(decks)
    removed = draw(st.lists(st.sampled_from(ALL_CARDS), max_size=40))
    counts = list(shoe.card_counts or ())
    keep = []
    for c in removed:
        if counts[c.index] > 0 and sum(counts) > 6:
            counts[c.index] -= 1
            keep.append(c)
    return shoe.remove(*keep)


# -- the condition language (exactodds.wagers.conditions): random well-typed conditions ------------------

def _features(kind: str) -> list[str]:
    from exactodds.wagers.outcomes import FEATURE_TYPES

    return sorted(n for n, t in FEATURE_TYPES.items() if t == kind)


def _paren(draw: st.DrawFn, text: str) -> str:
    """Parentheses around a part, sometimes: both routes read the text with Python's own parser."""
    return f"({text})" if draw(st.booleans()) else text


@st.composite
def number_expressions(draw: st.DrawFn, depth: int = 3) -> str:
    """A number: features, whole numbers, + - %, unary minus, abs(), min()/max() of 1 to 6 arguments."""
    leaf = st.one_of(st.sampled_from(_features("number")), st.integers(-3, 14).map(str))
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(leaf)
    sub = number_expressions(depth - 1)
    form = draw(st.sampled_from(["+", "-", "neg", "abs", "min", "max", "%"]))
    if form in ("+", "-"):
        return _paren(draw, f"{draw(sub)} {form} {_paren(draw, draw(sub))}")
    if form == "neg":
        return f"-({draw(sub)})"
    if form == "abs":
        return f"abs({draw(sub)})"
    if form == "%":
        return f"({draw(sub)}) % {draw(st.integers(1, 12))}"
    args = draw(st.lists(sub, min_size=1, max_size=6))
    return f"{form}({', '.join(args)})"


@st.composite
def _text_comparisons(draw: st.DrawFn) -> str:
    from exactodds.wagers.outcomes import TEXT_VALUES

    feature = draw(st.sampled_from(_features("text")))
    values = TEXT_VALUES[feature]
    # text features are compared only where they can be equal (the language refuses the others)
    akin = [f for f in _features("text") if set(TEXT_VALUES[f]) & set(values)]
    form = draw(st.sampled_from(["const", "feature", "in", "chain"]))
    op = draw(st.sampled_from(["==", "!="]))
    if form == "const":
        return f"{feature} {op} {draw(st.sampled_from(values))!r}"
    if form == "feature":
        return f"{feature} {op} {draw(st.sampled_from(akin))}"
    if form == "in":
        chosen = draw(st.lists(st.sampled_from(values), min_size=1, max_size=4))
        written = ", ".join(repr(v) for v in chosen) + ("," if len(chosen) == 1 else "")
        return f"{feature} {draw(st.sampled_from(['in', 'not in']))} ({written})"
    other = draw(st.sampled_from(akin))
    return f"{other} == {feature} {op} {draw(st.sampled_from(values))!r}"


@st.composite
def _number_comparisons(draw: st.DrawFn, depth: int) -> str:
    ops = ["==", "!=", "<", "<=", ">", ">="]
    if draw(st.integers(0, 3)) == 0:
        left = draw(number_expressions(depth))
        values = draw(st.lists(number_expressions(depth - 1 if depth else 0), min_size=1, max_size=4))
        written = ", ".join(values) + ("," if len(values) == 1 else "")
        return f"{left} {draw(st.sampled_from(['in', 'not in']))} ({written})"
    parts = draw(st.lists(number_expressions(depth), min_size=2, max_size=4))
    out = parts[0]
    for p in parts[1:]:
        out += f" {draw(st.sampled_from(ops))} {p}"
    return out


@st.composite
def conditions(draw: st.DrawFn, depth: int = 3) -> str:
    """A random condition of the language's grammar over the whole feature vocabulary: comparisons
    (chained), ``in``, ``not``, ``and``/``or``, yes/no features and yes/no compared with yes/no."""
    leaf = st.one_of(st.sampled_from(_features("yes/no")), st.sampled_from(["True", "False"]),
                     _number_comparisons(min(depth, 2)), _text_comparisons())
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(leaf)
    sub = conditions(depth - 1)
    form = draw(st.sampled_from(["and", "or", "not", "same"]))
    if form == "not":
        return f"not ({draw(sub)})"
    if form == "same":
        return f"({draw(sub)}) {draw(st.sampled_from(['==', '!=']))} ({draw(sub)})"
    parts = draw(st.lists(sub, min_size=2, max_size=4))
    return _paren(draw, f" {form} ".join(f"({p})" for p in parts))


@st.composite
def loose_conditions(draw: st.DrawFn) -> str:
    """Text that looks like a condition but mixes types and constructs freely (most of it is refused)."""
    atoms = st.one_of(
        st.sampled_from(_features("number") + _features("yes/no") + _features("text")),
        st.integers(-10**10, 10**10).map(str), st.sampled_from(["'s'", "'perfect'", "''", "(9,)", "(1, 2)", "()",
                                                                "True", "None", "1.5", "[1]", "x"]),
        number_expressions(1), conditions(1))
    ops = st.sampled_from([" + ", " - ", " * ", " / ", " % ", " == ", " < ", " in ", " not in ", " and ",
                           " or ", " is ", " ** ", " // ", " & "])
    parts = draw(st.lists(atoms, min_size=1, max_size=4))
    out = parts[0]
    for p in parts[1:]:
        out += draw(ops) + p
    wrap = draw(st.sampled_from(["{}", "not {}", "({})", "min({})", "max({}, 1)", "abs({})", "-{}", "{}[0]"]))
    return wrap.format(out)
