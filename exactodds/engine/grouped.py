"""Exact sums of big integers by group: per group, Σ value × the multiple its kind names; and a batch's rounds
tallied at once (:func:`round_tally`).

A batch's rounds each carry a numerator (``int64``, or a Python integer) and a *kind*, whose multiple (a
Python integer of hundreds of bits) takes it to the batch's common denominator; the exposure tally sums
numerator × multiple by key. :func:`grouped_sums` forms those sums exactly: in C where the compiled core
is in use and the values are ``int64`` (limb by limb of each multiple, in 128 bits under a proven bound,
then carried into a Python integer: ``exactodds/engine/_core.c``), else in Python integers through NumPy
object arrays. Both give the same integers; :class:`Multiples` holds the multiples in both forms (Python
integers and 32-bit limbs), made once.

>>> m = Multiples([3, 2**70])
>>> sums = grouped_sums(np.array([5, -1, 7]), np.array([1, 0, 1]), np.array([0, 0, 2]), 3, m)
>>> sums.tolist() == [5 * 2**70 - 3, 0, 7 * 2**70]
True
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from exactodds.engine import native

__all__ = ["Multiples", "grouped_sums", "RoundTally", "round_tally"]

_INT64_MAX = 2**63 - 1
#: The items the compiled kernel takes at most (its 128-bit sums' bound: fewer than 2^31); past it, the pure route.
_ITEMS_C = 2**31 - 1


class Multiples:
    """Non-negative Python integers, as an object array (:attr:`values`) and as little-endian 32-bit limbs
    (:attr:`limbs`, ``uint32``, C-contiguous, shape ``(K, L)`` with L the limbs of the largest, at least 1),
    both read-only: made once, read by every :func:`grouped_sums` over them.

    >>> m = Multiples([0, 1, 2**32 + 5])
    >>> m.limbs.tolist(), m.values.tolist()
    ([[0, 0], [1, 0], [5, 1]], [0, 1, 4294967301])
    >>> Multiples([4, -2])
    Traceback (most recent call last):
    ...
    ValueError: Multiples: multiple 1 is -2, not a non-negative integer
    """

    __slots__ = ("values", "limbs")

    values: np.ndarray
    limbs: np.ndarray

    def __init__(self, multiples: Sequence[int]) -> None:
        ints = [operator.index(m) for m in multiples]
        for k, m in enumerate(ints):
            if m < 0:
                raise ValueError(f"Multiples: multiple {k} is {m}, not a non-negative integer")
        width = max(1, (max((m.bit_length() for m in ints), default=0) + 31) // 32)
        raw = b"".join(m.to_bytes(4 * width, "little") for m in ints)
        limbs = np.frombuffer(raw, dtype="<u4").astype(np.uint32).reshape(len(ints), width)   # native order, owned
        values = np.empty(len(ints), dtype=object)
        values[:] = ints
        limbs.flags.writeable = False
        values.flags.writeable = False
        self.values, self.limbs = values, limbs

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"Multiples({len(self)} of at most {self.limbs.shape[1]} 32-bit limbs)"


def _index_array(a: np.ndarray, name: str, items: int) -> np.ndarray:
    """``a`` checked to be a 1-D integer array of ``items`` items."""
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        raise TypeError(f"grouped_sums: {name} must be an integer array, not {a.dtype}")
    if a.shape != (items,):
        raise ValueError(f"grouped_sums: {name} has shape {a.shape}, values has ({items},)")
    return a


def _first_out_of_range(kinds: np.ndarray, size: int, groups: np.ndarray, n: int) -> str | None:
    """The error naming the first item whose kind is not in [0, ``size``) or whose group is not in [0, ``n``)
    (its kind first), or None: the compiled kernel's words."""
    bad_kind = (kinds < 0) | (kinds >= size)
    bad = bad_kind | (groups < 0) | (groups >= n)
    if not bad.any():
        return None
    i = int(np.argmax(bad))
    if bad_kind[i]:
        return f"grouped_sums: kinds[{i}] = {int(kinds[i])} is not in [0, {size})"
    return f"grouped_sums: groups[{i}] = {int(groups[i])} is not in [0, {n})"


def _pure(values: np.ndarray, kinds: np.ndarray, groups: np.ndarray, n: int, multiples: Multiples) -> np.ndarray:
    """The sums in Python integers: every product, then the products sorted by group and added per run."""
    out = np.zeros(n, dtype=object)                   # Python 0s
    if len(values) == 0:
        return out
    if values.dtype == object:
        products = np.array([operator.index(x) for x in values.tolist()], dtype=object) * multiples.values[kinds]
    else:
        products = values.astype(object) * multiples.values[kinds]
    order = np.argsort(groups, kind="stable")
    ordered = groups[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    out[ordered[starts]] = np.add.reduceat(products[order], starts)
    return out


def grouped_sums(values: np.ndarray, kinds: np.ndarray, groups: np.ndarray, n: int,
                 multiples: Multiples) -> np.ndarray:
    """Per group g from 0 to ``n`` − 1, Σ ``values[i]`` × ``multiples.values[kinds[i]]`` over the items i with
    ``groups[i]`` == g, exactly: an object array of ``n`` Python integers (0 for a group with no item).

    ``values`` is ``int64`` (any integer dtype that fits it), summed in C where the compiled core is in use,
    or an object array of Python integers (summed in Python); ``kinds`` and ``groups`` are integer arrays of
    the same length. A kind not in [0, K) or a group not in [0, ``n``) is a ValueError naming the first such
    item, on either route.

    >>> m = Multiples([2**64, 1])
    >>> grouped_sums(np.array([2, -3, 4]), np.array([0, 1, 1]), np.array([1, 1, 1]), 2, m).tolist()
    [0, 36893488147419103233]
    >>> grouped_sums(np.array([1]), np.array([2]), np.array([0]), 1, m)
    Traceback (most recent call last):
    ...
    ValueError: grouped_sums: kinds[0] = 2 is not in [0, 2)
    """
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"grouped_sums: n = {n}, a number of groups, must not be negative")
    values = np.asarray(values)
    if values.ndim != 1 or (values.dtype != object and values.dtype.kind not in "iu"):
        raise TypeError(f"grouped_sums: values must be a 1-D integer or object array, not {values.dtype} of "
                        f"shape {values.shape}")
    kinds = _index_array(kinds, "kinds", len(values))
    groups = _index_array(groups, "groups", len(values))
    core = native.kernels()
    wide = values.dtype == object or (values.dtype == np.uint64 and int(values.max(initial=0)) > _INT64_MAX)
    unsigned = kinds.dtype == np.uint64 or groups.dtype == np.uint64       # could wrap in int64: checked here
    if core is None or wide or len(values) > _ITEMS_C or unsigned:
        error = _first_out_of_range(kinds, len(multiples), groups, n)
        if error is not None:
            raise ValueError(error)
    if core is None or wide or len(values) > _ITEMS_C:
        return _pure(values, kinds, groups, n, multiples)
    sums = core.grouped_sums(np.ascontiguousarray(values, dtype=np.int64), np.ascontiguousarray(kinds, dtype=np.int64),
                             np.ascontiguousarray(groups, dtype=np.int64), n, multiples.limbs)
    out = np.empty(n, dtype=object)
    out[:] = sums
    return out


# -- round_tally --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RoundTally:
    """A batch's rounds tallied (:func:`round_tally`): Python integers, and lists of them, with v_i = ``values[i]`` ×
    the multiple of ``kinds[i]``, S_s the sum of v_i over shoe s's rounds.

    ``by_count[c]``: Σ v_i over the rounds of count c; ``threshold_squares[t]``: Σ_s (Σ v_i over shoe s's rounds of
    count ≥ t)², so ``threshold_squares[0]`` = Σ_s S_s²; ``total``: Σ v_i; ``total_by_rounds``: Σ_s S_s × shoe s's
    rounds; ``ahead_total``: Σ v_i over the rounds ahead; ``ahead_squares``: Σ_s (Σ v_i over shoe s's rounds ahead)²;
    ``by_pen[b]``, ``pen_least[b]``, ``pen_most[b]``: the sum, least and most v_i over the rounds of pen b (least and
    most 0 where it has none); ``by_place[p]``: Σ v_i over the rounds of place p.
    """

    by_count: list[int]
    threshold_squares: list[int]
    total: int
    total_by_rounds: int
    ahead_total: int
    ahead_squares: int
    by_pen: list[int]
    pen_least: list[int]
    pen_most: list[int]
    by_place: list[int]


def _tally_index(a: np.ndarray, name: str, items: int) -> np.ndarray:
    """``a`` checked to be a 1-D integer (or, for ``ahead``, boolean) array of ``items`` items."""
    a = np.asarray(a)
    if a.dtype.kind not in ("iub" if name == "ahead" else "iu"):
        raise TypeError(f"round_tally: {name} must be an integer array, not {a.dtype}")
    if a.shape != (items,):
        raise ValueError(f"round_tally: {name} has shape {a.shape}, values has ({items},)")
    return a


def _tally_error(kinds: list[int], size: int, index: dict[str, list[int]], ranges: dict[str, int]) -> str | None:
    """The error naming the first round with an index out of range, or None: the compiled kernel's words. A round's
    are checked in the order kinds, shoe (in [0, n_shoes), then not below the round before's), count, pen, place,
    ahead (0 or 1)."""
    for i in range(len(kinds)):
        if not 0 <= kinds[i] < size:
            return f"round_tally: kinds[{i}] = {kinds[i]} is not in [0, {size})"
        for name, n in ranges.items():
            x = index[name][i]
            if not 0 <= x < n:
                return f"round_tally: {name}[{i}] = {x} is not in [0, {n})"
            if name == "shoe" and i > 0 and x < index["shoe"][i - 1]:
                return (f"round_tally: shoe[{i}] = {x} is below shoe[{i - 1}] = {index['shoe'][i - 1]} "
                        f"(shoe must not decrease)")
    return None


def _tally_pure(values: list[int], kinds: list[int], multiples: Multiples, index: dict[str, list[int]],
                ranges: dict[str, int]) -> RoundTally:
    """The tally in Python integers, round by round (the reference the compiled kernel is held to)."""
    m = multiples.values
    v = [values[i] * int(m[kinds[i]]) for i in range(len(values))]
    shoe, count, pen, place, ahead = (index[name] for name in ("shoe", "count", "pen", "place", "ahead"))
    n_counts, n_pens, n_places = ranges["count"], ranges["pen"], ranges["place"]
    by_count = [0] * n_counts
    by_pen = [0] * n_pens
    by_place = [0] * n_places
    least: dict[int, int] = {}                            # pen -> its least v_i so far (its rounds so far)
    most: dict[int, int] = {}
    ahead_total = 0
    for i, x in enumerate(v):
        b = pen[i]
        by_count[count[i]] += x
        by_pen[b] += x
        by_place[place[i]] += x
        least[b] = min(least.get(b, x), x)
        most[b] = max(most.get(b, x), x)
        if ahead[i]:
            ahead_total += x
    threshold_squares = [0] * n_counts
    total = total_by_rounds = ahead_squares = 0
    start = 0
    while start < len(v):                                   # shoe by shoe: its rounds are start..end
        end = start
        while end < len(v) and shoe[end] == shoe[start]:
            end += 1
        rounds = range(start, end)
        shoe_sum = sum(v[i] for i in rounds)
        total += shoe_sum
        total_by_rounds += shoe_sum * (end - start)
        ahead_squares += sum(v[i] for i in rounds if ahead[i]) ** 2
        at = [0] * n_counts                                 # the shoe's sum per count, then from the top down
        for i in rounds:
            at[count[i]] += v[i]
        above = 0
        for t in range(n_counts - 1, -1, -1):
            above += at[t]                                  # Σ over the shoe's rounds of count ≥ t
            threshold_squares[t] += above * above
        start = end
    return RoundTally(by_count, threshold_squares, total, total_by_rounds, ahead_total, ahead_squares, by_pen,
                      [least.get(b, 0) for b in range(n_pens)], [most.get(b, 0) for b in range(n_pens)], by_place)


def round_tally(values: np.ndarray, kinds: np.ndarray, multiples: Multiples, *, shoe: np.ndarray, n_shoes: int,
                count: np.ndarray, n_counts: int, pen: np.ndarray, n_pens: int, place: np.ndarray, n_places: int,
                ahead: np.ndarray) -> RoundTally:
    """A batch's R rounds of an exposure study tallied exactly: v_i = ``values[i]`` × ``multiples.values[kinds[i]]``
    summed by count, by pen (with the least and most), by place, in all, over the rounds ahead, and squared per shoe
    (see :class:`RoundTally`).

    ``values`` is ``int64`` (any integer dtype that fits it), tallied in C where the compiled core is in use, or an
    object array of Python integers (tallied in Python); ``kinds``, ``shoe``, ``count``, ``pen`` and ``place`` are
    integer arrays of R items, ``ahead`` a boolean array (or integers 0 and 1). ``shoe`` must not decrease (the
    rounds come shoe after shoe) and be in [0, ``n_shoes``), ``count`` in [0, ``n_counts``), ``pen`` in [0,
    ``n_pens``), ``place`` in [0, ``n_places``), ``kinds`` in [0, K): else a ValueError naming the first offending
    round, on either route.

    >>> m = Multiples([3, 2**70])
    >>> t = round_tally(np.array([5, -1, 7]), np.array([1, 0, 1]), m, shoe=np.array([0, 0, 1]), n_shoes=2,
    ...                 count=np.array([2, 0, 1]), n_counts=3, pen=np.array([0, 0, 0]), n_pens=1,
    ...                 place=np.array([0, 1, 0]), n_places=2, ahead=np.array([True, False, True]))
    >>> t.total == 12 * 2**70 - 3, t.pen_least, t.by_count[0]
    (True, [-3], -3)
    >>> t.threshold_squares[2] == 25 * 2**140 + 0, t.ahead_squares == 25 * 2**140 + 49 * 2**140
    (True, True)
    """
    values = np.asarray(values)
    if values.ndim != 1 or (values.dtype != object and values.dtype.kind not in "iu"):
        raise TypeError(f"round_tally: values must be a 1-D integer or object array, not {values.dtype} of "
                        f"shape {values.shape}")
    items = len(values)
    kinds = _tally_index(kinds, "kinds", items)
    arrays = {"shoe": shoe, "count": count, "pen": pen, "place": place, "ahead": ahead}
    ranges = {"shoe": n_shoes, "count": n_counts, "pen": n_pens, "place": n_places, "ahead": 2}
    if not isinstance(multiples, Multiples):
        raise TypeError(f"round_tally: multiples must be a Multiples, not {type(multiples).__name__}")
    for name, n in list(ranges.items()):
        n = ranges[name] = operator.index(n)
        if not 0 <= n <= _ITEMS_C:                   # a list of n Python integers per table: bounded
            raise ValueError(f"round_tally: n_{name}s = {n} must be from 0 to {_ITEMS_C:,}")
    index = {name: _tally_index(a, name, items) for name, a in arrays.items()}
    core = native.kernels()
    wide = values.dtype == object or (values.dtype == np.uint64 and int(values.max(initial=0)) > _INT64_MAX)
    unsigned = any(a.dtype == np.uint64 for a in (kinds, *index.values()))   # could wrap in int64: checked here
    if core is None or wide or items > _ITEMS_C or unsigned:
        lists = {name: a.tolist() for name, a in index.items()}
        kind_list = kinds.tolist()
        error = _tally_error(kind_list, len(multiples), lists, ranges)
        if error is not None:
            raise ValueError(error)
        if core is None or wide or items > _ITEMS_C:
            given = values.tolist()
            if any(type(x) is bool for x in given):        # an int to operator.index, but no value: as the C route
                raise TypeError("round_tally: values must be integers, not True or False")
            value_list = [operator.index(x) for x in given]
            return _tally_pure(value_list, kind_list, multiples, lists, ranges)
    c64 = {name: np.ascontiguousarray(a, dtype=np.int64) for name, a in index.items()}
    parts = core.round_tally(np.ascontiguousarray(values, dtype=np.int64), np.ascontiguousarray(kinds, dtype=np.int64),
                             multiples.limbs, c64["shoe"], ranges["shoe"], c64["count"], ranges["count"], c64["pen"],
                             ranges["pen"], c64["place"], ranges["place"], c64["ahead"])
    return RoundTally(*parts)
