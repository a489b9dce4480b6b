"""Exact sums of big integers by group: per group, Σ value × the multiple its kind names.

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

import numpy as np

from exactodds.engine import native

__all__ = ["Multiples", "grouped_sums"]

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
