"""Linear card counts: small integer tags from exact effects of removal, and how well they track them.

A count adds a card's tag each time the card is seen. The standard construction
scales the effects of removal, rounds them to integers and rebalances them so
that a full shoe sums to zero; of the scales tried, the one whose tags correlate
best with the exact effects wins. The *betting correlation* is the correlation
of tags and effects over the cards of the shoe; its square is exact.

>>> effects = [Fraction(v, 100_000) for v in (0, 0, 0, -50, -50, -50, -50, 100, 100, 0, 0, 0, 0)]
>>> c = suggest_tags(RANKS, effects, [32] * 13, max_tag=2)
>>> [c.tags[r] for r in ("4", "7", "8", "9", "K")], c.betting_correlation_squared
([-1, -1, 2, 2, 0], Fraction(1, 1))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card, Rank, parse_card_or_rank

__all__ = ["Count", "suggest_tags", "check_max_tag", "betting_correlation_squared", "parse_tags", "RANKS", "CARDS"]

#: Items of a rank-level count, and of a card-level count ('As', 'Ah', ... 'Kc': shoe index order).
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARDS = tuple(f"{r}{s}" for r in RANKS for s in "shdc")


@dataclass(frozen=True)
class Count:
    """A linear count: an integer tag per rank (or per card), and its betting correlation."""

    tags: Mapping[str, int]
    betting_correlation_squared: Fraction | None     # None when the effects are all zero
    sign: int = 1                                    # of the covariance of tags and effects
    source: str = "suggested"                        # or 'given'
    resolution: str = field(default="rank")

    @property
    def betting_correlation(self) -> float | None:
        """For printing; the exact figure is :attr:`betting_correlation_squared`."""
        if self.betting_correlation_squared is None:
            return None
        return self.sign * math.sqrt(float(self.betting_correlation_squared))

    def card_tags(self) -> list[int]:
        """The tag of each of the 52 card identities, in shoe index order."""
        if self.resolution == "card":
            return [self.tags.get(c, 0) for c in CARDS]
        return [self.tags.get(r, 0) for r in RANKS for _ in range(4)]

    def to_dict(self) -> dict[str, Any]:
        return {"tags": dict(self.tags), "source": self.source, "resolution": self.resolution,
                "betting_correlation": self.betting_correlation,
                "betting_correlation_squared": None if self.betting_correlation_squared is None
                else str(self.betting_correlation_squared)}

    def __str__(self) -> str:
        tags = ", ".join(f"{k}={v:+d}" for k, v in self.tags.items() if v)
        bc = "n/a" if self.betting_correlation is None else f"{self.betting_correlation:.4f}"
        return f"{self.source.capitalize()} count: {tags or 'all tags zero'}; betting correlation {bc}"


def _integers(effects: Sequence[Fraction | int | None]) -> list[int | None]:
    """The effects over one common denominator (a correlation does not see the scale)."""
    common = math.lcm(*(e.denominator for e in effects if e is not None)) if any(
        e is not None for e in effects) else 1
    return [None if e is None else e.numerator * (common // e.denominator) for e in effects]


def betting_correlation_squared(effects: Sequence[Fraction | int | None], tags: Sequence[int],
                                weights: Sequence[int]) -> tuple[Fraction | None, int]:
    """(exact squared correlation, sign) of ``tags`` and ``effects`` over the cards of a shoe.

    >>> betting_correlation_squared([Fraction(1, 2), Fraction(-1, 2), None], [2, -1, 5], [4, 4, 0])
    (Fraction(1, 1), 1)
    """
    ints = _integers([None if e is None else e if isinstance(e, int) else Fraction(e) for e in effects])
    live = [(w, e, t) for e, t, w in zip(ints, tags, weights) if e is not None and w > 0]
    total = sum(w for w, _, _ in live)
    if total == 0:
        return None, 1
    se = sum(w * e for w, e, _ in live)
    st = sum(w * t for w, _, t in live)
    cov = total * sum(w * e * t for w, e, t in live) - se * st           # each times total²
    var_e = total * sum(w * e * e for w, e, _ in live) - se * se
    var_t = total * sum(w * t * t for w, _, t in live) - st * st
    if var_e == 0 or var_t == 0:
        return None, 1
    return Fraction(cov * cov, var_e * var_t), 1 if cov >= 0 else -1


def _round_half_even(numerator: int, denominator: int) -> int:
    """``round(Fraction(numerator, denominator))`` (halves to even) in integers, for a positive denominator.

    >>> [_round_half_even(n, 2) for n in (-3, -1, 1, 3, 5)]
    [-2, 0, 0, 2, 2]
    """
    q, r = divmod(numerator, denominator)
    return q + (2 * r > denominator or 2 * r == denominator and q % 2 == 1)


def _rebalanced(numerators: list[int], denominator: int, live: list[int], max_tag: int,
                groups: list[list[list[int]]]) -> list[int] | None:
    """Round ``numerators / denominator`` and move tags by one until a full shoe sums to zero.

    ``groups`` holds levels of items that should move together: items with equal
    effects, then the cards of one rank among them. The largest group that the
    imbalance allows moves first, so equal cards keep equal tags where a balanced
    count allows it, and otherwise whole ranks move; single cards move last.
    """
    tags = [0] * len(numerators)
    for i in live:
        tags[i] = max(-max_tag, min(max_tag, _round_half_even(numerators[i], denominator)))
    imbalance = sum(tags)
    while imbalance:
        step = -1 if imbalance > 0 else 1
        fits = [g for level in groups for g in level
                if len(g) <= abs(imbalance) and -max_tag <= tags[g[0]] + step <= max_tag
                and len({tags[i] for i in g}) == 1]
        if fits:                            # the coarsest level that fits: whole classes, then whole ranks
            coarsest = max(len(g) for g in fits)
            fits = [g for g in fits if len(g) == coarsest or len(g) == 1 and coarsest == 1]
        if fits:                            # the group that rounding pushed furthest the wrong way
            g = max(fits, key=lambda g: (tags[g[0]] * denominator - numerators[g[0]]) * -step)
            for i in g:
                tags[i] += step
            imbalance += step * len(g)
            continue
        movable = [i for i in live if -max_tag <= tags[i] + step <= max_tag]
        if not movable:
            return None
        i = max(movable, key=lambda k: (tags[k] * denominator - numerators[k]) * -step)
        tags[i] += step
        imbalance += step
    return tags


def check_max_tag(max_tag: int) -> None:
    """Refuse, in one line, a largest tag that is no whole number from 1 to 10 (True was 1; 10^30 ran past any
    time), as ``--max-tag`` is held."""
    if type(max_tag) is not int or not 1 <= max_tag <= 10:
        raise ExactOddsError(f"--max-tag must be a whole number from 1 to 10, got {max_tag!r}")


def suggest_tags(items: Sequence[str], effects: Sequence[Fraction | None], weights: Sequence[int], *,
                 max_tag: int = 3, given: Mapping[str, int] | None = None) -> Count:
    """The balanced integer count (|tag| <= ``max_tag``) that best tracks ``effects``, or the ``given`` tags.

    ``weights`` are the shoe's copies of each item (for the correlation); balance
    is for a full shoe, where every item has the same number of copies.
    """
    if not len(items) == len(effects) == len(weights) or len(set(items)) != len(items):
        raise ExactOddsError(f"suggest_tags: one effect and one weight per item, each item once: got {len(items)} "
                             f"items ({len(set(items))} distinct), {len(effects)} effects, {len(weights)} weights")
    if any(type(n) is not int or n < 0 for n in weights):
        raise ExactOddsError(f"suggest_tags: weights are the shoe's copies of each item, whole numbers from 0: "
                             f"got {list(weights)!r}")
    kind = "card" if len(items) == 52 else "rank"
    if given is not None:
        tags = expand_tags(given, kind)
        seq = [tags.get(i, 0) for i in items]
        bc2, sign = betting_correlation_squared(effects, seq, weights)
        return Count(dict(zip(items, seq)), bc2, sign, "given", kind)
    check_max_tag(max_tag)
    ints = _integers(effects)
    live = [i for i, e in enumerate(ints) if e is not None]
    top = max((abs(ints[i]) for i in live), default=0)                    # type: ignore[arg-type]
    classes = _equal(ints, live)                         # items with equal effects, singletons included
    groups = [g for g in classes if len(g) > 1]
    per_rank = [sub for g in classes for sub in _by_rank(g, kind)] if kind == "card" else []
    levels = [classes, per_rank]
    best: tuple[Any, ...] | None = None
    seen: set[tuple[int, ...]] = set()                   # neighbouring scales often round to the same tags
    for step in range(10, 20 * max_tag + 10) if top else ():   # the largest tag scaled to 0.5 ... max_tag + 0.45
        candidate = _rebalanced([(e or 0) * step for e in ints], 20 * top, live, max_tag, levels)
        if candidate is None or not any(candidate) or tuple(candidate) in seen:
            continue
        seen.add(tuple(candidate))
        bc2, sign = betting_correlation_squared(ints, candidate, weights)
        if bc2 is None or sign < 0:
            continue
        split = sum(len({candidate[i] for i in g}) - 1 for g in groups)     # equal effects, unequal tags
        key = (-split, bc2, -sum(map(abs, candidate)), -max(map(abs, candidate)))
        if best is None or key > best[0]:
            best = (key, candidate, bc2, sign)
    if best is None:
        return Count(dict.fromkeys(items, 0), None, 1, "suggested", kind)
    return Count(dict(zip(items, best[1])), best[2], best[3], "suggested", kind)


def _by_rank(items: list[int], kind: str) -> list[list[int]]:
    """Split a class of card items (shoe index order) into the cards of each rank."""
    ranks: dict[int, list[int]] = {}
    for i in items:
        ranks.setdefault(i // 4, []).append(i)
    return list(ranks.values())


def _equal(values: Sequence[int | None], live: list[int]) -> list[list[int]]:
    by_value: dict[int, list[int]] = {}
    for i in live:
        by_value.setdefault(values[i], []).append(i)                      # type: ignore[arg-type]
    return list(by_value.values())


#: The largest tag a count may give a rank or card (in size): the running count of a shoe of any size then stays
#: far inside the 64-bit integers it is kept in.
TAG_LIMIT = 1000


def expand_tags(given: Mapping[str, int], kind: str) -> dict[str, int]:
    """Tags keyed by rank ('9') or card ('9s') → keyed by the items of a ``kind`` count; a tag that is not a whole
    number from −:data:`TAG_LIMIT` to :data:`TAG_LIMIT` is refused in one line.

    >>> expand_tags({"8": 2, "9s": -1}, "card")["8h"], expand_tags({"8": 2, "9s": -1}, "card")["9s"]
    (2, -1)
    >>> expand_tags({"8": True}, "rank")
    Traceback (most recent call last):
    exactodds.errors.ExactOddsError: --tags: the tag of '8' must be a whole number from -1000 to 1000, got True
    """
    out: dict[str, int] = {}
    for key, tag in given.items():
        if type(tag) is not int or abs(tag) > TAG_LIMIT:          # True is an int to Python, never a tag
            raise ExactOddsError(f"--tags: the tag of {key!r} must be a whole number from {-TAG_LIMIT} to {TAG_LIMIT}, "
                                 f"got {tag!r}")
        if key in RANKS:
            if kind == "rank":
                out[key] = tag
            else:
                out.update({f"{key}{s}": tag for s in "shdc"})
        elif key in CARDS:
            if kind == "rank":
                raise ExactOddsError(f"--tags: {key!r} names a card, but this wager's count is per rank (use {key[:-1]})")
            out[key] = tag
        else:
            raise ExactOddsError(f"--tags: unknown rank or card {key!r} (ranks A,2-10,J,Q,K; cards like 9s)")
    return out


def parse_tags(text: str, *, where: str = "--tags") -> dict[str, int]:
    """``'4=-1,5=-1,8=+2,9=+2'`` → ``{'4': -1, '5': -1, '8': 2, '9': 2}`` (ranks or cards like ``9s``).

    >>> parse_tags("4=-1, 8=+2, t=1")
    {'4': -1, '8': 2, '10': 1}
    """

    out: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            raise ExactOddsError(f"{where}: an empty entry in {text!r} (write RANK=TAG,RANK=TAG)")
        key, sep, value = part.partition("=")
        if not sep:
            raise ExactOddsError(f"{where}: write RANK=TAG (e.g. 8=+2), got {part!r}")
        try:
            item = parse_card_or_rank(key)
        except ExactOddsError as exc:
            raise ExactOddsError(f"{where}: {exc}") from None
        try:
            tag = int(value.strip())
        except ValueError:
            raise ExactOddsError(f"{where}: the tag of {key.strip()!r} must be a whole number, got {value.strip()!r}") from None
        if abs(tag) > TAG_LIMIT:
            raise ExactOddsError(f"{where}: the tag of {key.strip()!r} is out of range (|tag| <= {TAG_LIMIT})")
        name = str(item) if isinstance(item, Rank) else f"{item.rank}{item.suit.value}"
        assert isinstance(item, (Rank, Card))
        if name in out:
            raise ExactOddsError(f"{where}: {key.strip()!r} is given twice")
        out[name] = tag
    if not out:
        raise ExactOddsError(f"{where}: no tags given")
    return out
