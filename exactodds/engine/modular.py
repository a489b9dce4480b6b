"""Exact counts too big for 64 bits, in machine integers: modulo primes, then the Chinese remainder theorem.

Past about 27 decks a shoe's 6-card sequence count no longer fits NumPy's
``int64``. Every count here is built from sums and products of integers, so it
is determined by its residues modulo a few primes whose product exceeds it:
each residue is computed in ``int64`` (reducing after every product, so nothing
overflows), and the Chinese remainder theorem rebuilds the exact count in
Python integers. The prime size is chosen by the caller so that nothing it
multiplies or adds before reducing can pass 64 bits (unsigned).

>>> rs = [np.array([10**20 % p]) for p in primes_for(10**20)]
>>> int(crt(rs, primes_for(10**20))[0]) == 10**20
True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

__all__ = ["primes_for", "crt", "exact_sum"]


@functools.cache
def _primes_below(limit: int, count: int) -> tuple[int, ...]:
    """The ``count`` largest primes below ``limit`` (trial division; done once)."""
    out: list[int] = []
    n = limit - 1
    while len(out) < count:
        if n % 2 and all(n % d for d in range(3, int(n ** 0.5) + 1, 2)):
            out.append(n)
        n -= 1
    return tuple(out)


def primes_for(bound: int, *, bits: int = 31) -> tuple[int, ...]:
    """Primes below ``2**bits`` whose product exceeds ``bound`` (which every count is below)."""
    primes: list[int] = []
    product = 1
    k = 0
    while product <= bound:
        batch = _primes_below(2 ** bits, k + 8)
        while k < len(batch) and product <= bound:
            primes.append(batch[k])
            product *= batch[k]
            k += 1
    return tuple(primes)


def crt(residues: Sequence[np.ndarray], primes: Sequence[int]) -> np.ndarray:
    """The integers (an object array of Python ints) below the product of ``primes``
    with the given residues (primes below 2**32, residues as unsigned or signed int64).

    Garner's mixed-radix form: the digits are found in 64-bit arithmetic, and only
    the last step, ``d0 + p0·(d1 + p1·(d2 + ...))``, is done in Python integers.
    """
    digits: list[np.ndarray] = []
    for i, (r, p) in enumerate(zip(residues, primes)):
        x = np.zeros(r.shape, dtype=np.uint64)          # the number so far, modulo p
        scale = 1
        for d, q in zip(digits, primes[:i]):
            x = np.asarray((x + d * np.uint64(scale % p)) % np.uint64(p), dtype=np.uint64)
            scale *= q
        inverse = np.uint64(pow(scale % p, -1, p))
        diff = (r.astype(np.uint64) % np.uint64(p) + np.uint64(p) - x) % np.uint64(p)
        digits.append((diff * inverse) % np.uint64(p))
    out = digits[-1].astype(object)
    for d, p in zip(reversed(digits[:-1]), reversed(primes[:-1])):
        out = d.astype(object) + p * out
    return out


def exact_sum(counts: np.ndarray) -> int:
    """The sum of ``counts`` as a Python integer, also where it passes 64 bits: ``uint64`` items are summed by
    their 32-bit halves (each half's sum fits 64 bits below 2**32 items); others by NumPy, in their own type.

    >>> exact_sum(np.array([2**63, 2**63, 5], dtype=np.uint64)) == 2**64 + 5
    True
    """
    if counts.dtype != np.uint64:
        return int(counts.sum())
    flat = counts.reshape(-1)
    if len(flat) >= 2**32:
        raise ValueError("exact_sum: 2**32 items or more")
    return (int((flat >> np.uint64(32)).sum()) << 32) + int((flat & np.uint64(2**32 - 1)).sum())
