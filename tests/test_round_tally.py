"""engine/grouped.py's round_tally: the compiled kernel (exactodds/engine/_core.c) and the pure route, each against a
plain Python loop written here (dicts, one round at a time), on seeded random inputs over many shapes and at the
edges (int64's extremes, multiples of one limb and of twenty, a multiple of 0, empty bins, one round, shoes of one
round, all or no rounds ahead), and what both must refuse in the same words."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import asdict, fields
from typing import Any

import numpy as np
import pytest

from exactodds.engine import native
from exactodds.engine.grouped import Multiples, RoundTally, round_tally

core = native.kernels()
compiled = pytest.mark.skipif(core is None, reason=f"the compiled core is not in use here: {native.status()}")

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
LISTS = {"by_count": "n_counts", "threshold_squares": "n_counts", "by_pen": "n_pens", "pen_least": "n_pens",
         "pen_most": "n_pens", "by_place": "n_places"}


def loop(values: list[int], kinds: list[int], multiples: list[int], shoe: list[int], count: list[int],
         pen: list[int], place: list[int], ahead: list[bool], n_counts: int, n_pens: int, n_places: int) -> dict:
    """The definition, one round at a time, in dicts keyed by shoe, count, pen and place."""
    v = [x * multiples[k] for x, k in zip(values, kinds)]
    per_shoe: dict[int, list[int]] = {}                  # shoe -> its rounds
    for i, s in enumerate(shoe):
        per_shoe.setdefault(s, []).append(i)
    by_count = {c: 0 for c in range(n_counts)}
    by_pen = {b: 0 for b in range(n_pens)}
    by_place = {p: 0 for p in range(n_places)}
    of_pen: dict[int, list[int]] = {}
    for i, x in enumerate(v):
        by_count[count[i]] += x
        by_pen[pen[i]] += x
        by_place[place[i]] += x
        of_pen.setdefault(pen[i], []).append(x)
    squares = {t: 0 for t in range(n_counts)}
    total = by_rounds = ahead_total = ahead_squares = 0
    for rounds in per_shoe.values():
        s_sum = 0
        a_sum = 0
        for i in rounds:
            s_sum += v[i]
            if ahead[i]:
                a_sum += v[i]
        total += s_sum
        by_rounds += s_sum * len(rounds)
        ahead_total += a_sum
        ahead_squares += a_sum * a_sum
        for t in range(n_counts):
            above = 0
            for i in rounds:
                if count[i] >= t:
                    above += v[i]
            squares[t] += above * above
    return {"by_count": [by_count[c] for c in range(n_counts)],
            "threshold_squares": [squares[t] for t in range(n_counts)],
            "total": total, "total_by_rounds": by_rounds, "ahead_total": ahead_total, "ahead_squares": ahead_squares,
            "by_pen": [by_pen[b] for b in range(n_pens)],
            "pen_least": [min(of_pen[b]) if b in of_pen else 0 for b in range(n_pens)],
            "pen_most": [max(of_pen[b]) if b in of_pen else 0 for b in range(n_pens)],
            "by_place": [by_place[p] for p in range(n_places)]}


def call(values: Any, kinds: Any, multiples: list[int], shoe: Any, n_shoes: int, count: Any, n_counts: int, pen: Any,
         n_pens: int, place: Any, n_places: int, ahead: Any) -> RoundTally:
    return round_tally(np.asarray(values, dtype=np.int64) if not isinstance(values, np.ndarray) else values,
                       np.asarray(kinds, dtype=np.int64), Multiples(multiples), shoe=np.asarray(shoe, dtype=np.int64),
                       n_shoes=n_shoes, count=np.asarray(count, dtype=np.int64), n_counts=n_counts,
                       pen=np.asarray(pen, dtype=np.int64), n_pens=n_pens, place=np.asarray(place, dtype=np.int64),
                       n_places=n_places, ahead=np.asarray(ahead, dtype=bool) if not isinstance(ahead, np.ndarray)
                       else ahead)


def pure_route(*args: Any) -> RoundTally:
    with native.pure():
        return call(*args)


def compiled_route(*args: Any) -> RoundTally:
    assert native.kernels() is not None
    return call(*args)


ROUTES = [pytest.param(pure_route, id="pure"), pytest.param(compiled_route, id="compiled", marks=compiled)]
Route = Callable[..., RoundTally]


def edge_multiples(rng: np.random.Generator, limbs: int) -> list[int]:
    """0, 1, 2^32 boundaries and random multiples of up to ``limbs`` 32-bit limbs (and one of exactly that many)."""
    top = 32 * limbs
    out = [0, 1, 2**32 - 1, 2**top - 1]
    if limbs > 1:
        out += [2**32, 2**64 - 1, 2**(top - 1)]
    out += [int(rng.integers(0, 2**62)) * 2**(top - 62) + int(rng.integers(0, 2**62)) if top > 62
            else int(rng.integers(0, 2**top)) for _ in range(6)]
    return out


def edge_values(rng: np.random.Generator, rounds: int, scale: int) -> list[int]:
    pool = [I64_MIN, I64_MIN + 1, I64_MAX, -I64_MAX, 0, 1, -1]
    return [int(rng.choice(pool)) if rng.random() < 0.2 else int(rng.integers(-scale, scale, endpoint=True))
            for _ in range(rounds)]


def case(seed: int, rounds: int, n_shoes: int, n_counts: int, n_pens: int, n_places: int, limbs: int,
         ahead_rate: float) -> tuple:
    rng = np.random.default_rng(seed)
    multiples = edge_multiples(rng, limbs)
    values = edge_values(rng, rounds, 2**int(rng.integers(1, 64)) - 1)
    kinds = rng.integers(0, len(multiples), rounds).tolist()
    shoe = sorted(rng.integers(0, n_shoes, rounds).tolist()) if n_shoes else []
    count = rng.integers(0, n_counts, rounds).tolist() if n_counts else []
    pen = rng.integers(0, n_pens, rounds).tolist() if n_pens else []
    place = rng.integers(0, n_places, rounds).tolist() if n_places else []
    ahead = (rng.random(rounds) < ahead_rate).tolist()
    return values, kinds, multiples, shoe, n_shoes, count, n_counts, pen, n_pens, place, n_places, ahead


def check(got: RoundTally, args: tuple) -> None:
    values, kinds, multiples, shoe, n_shoes, count, n_counts, pen, n_pens, place, n_places, ahead = args
    want = loop(values, kinds, multiples, shoe, count, pen, place, ahead, n_counts, n_pens, n_places)
    assert asdict(got) == want
    sizes = {"n_counts": n_counts, "n_pens": n_pens, "n_places": n_places}
    for f in fields(got):
        x = getattr(got, f.name)
        if f.name in LISTS:
            assert type(x) is list and len(x) == sizes[LISTS[f.name]]
            assert all(type(y) is int for y in x)
        else:
            assert type(x) is int


SHAPES = [  # seed, rounds, n_shoes, n_counts, n_pens, n_places, limbs, ahead rate
    (0, 200, 5, 7, 3, 11, 19, 0.5), (1, 1, 1, 1, 1, 1, 1, 0.5), (2, 1, 3, 5, 4, 6, 20, 1.0),
    (3, 300, 1, 51, 10, 90, 19, 0.3), (4, 60, 60, 4, 2, 3, 2, 0.5), (5, 40, 200, 9, 9, 9, 5, 0.0),
    (6, 500, 20, 3, 40, 2, 1, 1.0), (7, 0, 0, 0, 0, 0, 1, 0.5), (8, 0, 4, 5, 6, 7, 3, 0.5),
    (9, 700, 10, 51, 10, 90, 20, 0.7), (10, 30, 2, 200, 50, 300, 8, 0.5), (11, 1000, 3, 2, 1, 1, 19, 0.5),
]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s[0]) for s in SHAPES])
def test_the_routes_equal_the_loop(route: Route, shape: tuple) -> None:
    args = case(*shape)
    check(route(*args), args)


@pytest.mark.parametrize("route", ROUTES)
def test_the_extremes_of_int64_times_the_largest_multiples(route: Route) -> None:
    """Every round at ±(2^63 - 1) or -2^63 times 2^640 - 1, in one shoe and one count: the sums and squares at their
    largest for the limbs, of both signs, and sums that cancel."""
    big = 2**640 - 1
    for values in ([I64_MIN] * 300, [I64_MAX] * 300, [I64_MIN, I64_MAX] * 150, [I64_MIN] * 299 + [-I64_MAX]):
        n = len(values)
        args = (values, [1] * n, [0, big], [0] * n, 1, [0] * n, 1, [0] * n, 1, [0] * n, 1, [True] * n)
        check(route(*args), args)


@pytest.mark.parametrize("route", ROUTES)
def test_shoes_of_one_round_and_empty_bins(route: Route) -> None:
    rng = np.random.default_rng(42)
    n = 50
    args = (edge_values(rng, n, 2**40), rng.integers(0, 3, n).tolist(), [0, 5, 2**600 + 1], list(range(0, 2 * n, 2)),
            2 * n, [7] * n, 20, [3] * n, 8, [n - 1 - i for i in range(n)], n + 5, [i % 2 == 0 for i in range(n)])
    got = route(*args)
    check(got, args)
    assert got.pen_least[0] == got.pen_most[0] == got.by_pen[0] == 0          # a pen with no rounds reads 0


@pytest.mark.parametrize("route", ROUTES)
def test_other_dtypes_and_object_values(route: Route) -> None:
    """int32 values and indices, uint8 ahead; object values (the pure route on either) past int64."""
    args = case(3, 120, 6, 8, 4, 5, 3, 0.5)
    values, kinds, multiples, shoe, n_shoes, count, n_counts, pen, n_pens, place, n_places, ahead = args
    small = [x % 1000 - 500 for x in values]
    with native.pure() if route is pure_route else contextlib.nullcontext():
        got = round_tally(np.array(small, dtype=np.int32), np.array(kinds, dtype=np.int32), Multiples(multiples),
                          shoe=np.array(shoe, dtype=np.uint16), n_shoes=n_shoes, count=np.array(count, dtype=np.int8),
                          n_counts=n_counts, pen=np.array(pen, dtype=np.uint64), n_pens=n_pens,
                          place=np.array(place), n_places=n_places, ahead=np.array(ahead, dtype=np.uint8))
    check(got, (small, *args[1:]))
    wide = [x * 2**70 + 3 for x in values]
    obj = np.empty(len(wide), dtype=object)
    obj[:] = wide
    check(route(obj, *args[1:]), (wide, *args[1:]))


BAD = [  # what to change in a good case (index, value), and the message
    ("kinds", 2, 99, r"round_tally: kinds\[2\] = 99 is not in \[0, \d+\)"),
    ("kinds", 0, -1, r"round_tally: kinds\[0\] = -1 is not in"),
    ("shoe", 4, 3, r"round_tally: shoe\[4\] = 3 is not in \[0, 3\)"),
    ("shoe", 1, -1, r"round_tally: shoe\[1\] = -1 is not in \[0, 3\)"),
    ("count", 5, 4, r"round_tally: count\[5\] = 4 is not in \[0, 4\)"),
    ("pen", 3, -2**63, r"round_tally: pen\[3\] = -9223372036854775808 is not in \[0, 2\)"),
    ("place", 0, 5, r"round_tally: place\[0\] = 5 is not in \[0, 5\)"),
    ("ahead", 6, 2, r"round_tally: ahead\[6\] = 2 is not in \[0, 2\)"),
]


def good() -> dict:
    return {"values": [1, -2, 3, 4, -5, 6, 7, 8], "kinds": [0, 1, 2, 0, 1, 2, 0, 1],
            "shoe": [0, 0, 1, 1, 1, 2, 2, 2], "count": [0, 1, 2, 3, 0, 1, 2, 3], "pen": [0, 1] * 4,
            "place": [0, 1, 2, 3, 4, 0, 1, 2], "ahead": [0, 1] * 4}


def run(route: Route, a: dict) -> RoundTally:
    return route(a["values"], a["kinds"], [1, 2**100, 3], a["shoe"], 3, a["count"], 4, a["pen"], 2, a["place"], 5,
                 np.array(a["ahead"], dtype=np.int64))


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name, at, value, message", BAD)
def test_out_of_range_indices_are_refused_in_the_same_words(route: Route, name: str, at: int, value: int,
                                                            message: str) -> None:
    a = good()
    a[name][at] = value
    with pytest.raises(ValueError, match=message):
        run(route, a)


@pytest.mark.parametrize("route", ROUTES)
def test_a_decreasing_shoe_is_refused_and_the_first_offence_is_named(route: Route) -> None:
    a = good()
    a["shoe"][5] = 0
    with pytest.raises(ValueError, match=r"round_tally: shoe\[5\] = 0 is below shoe\[4\] = 1 \(shoe must not "
                                         r"decrease\)"):
        run(route, a)
    a["count"][7] = 9                                  # later: the shoe named still
    a["kinds"][2] = 3                                  # earlier: named first
    with pytest.raises(ValueError, match=r"kinds\[2\] = 3"):
        run(route, a)
    a = good()
    a["count"][1], a["pen"][1] = 9, 9                  # one round: count before pen
    with pytest.raises(ValueError, match=r"count\[1\] = 9"):
        run(route, a)


@pytest.mark.parametrize("route", ROUTES)
def test_mismatched_lengths_and_malformed_inputs(route: Route) -> None:
    for name in ("kinds", "shoe", "count", "pen", "place", "ahead"):
        a = good()
        a[name] = a[name][:-1]
        with pytest.raises(ValueError, match=rf"round_tally: {name} has shape \(7,\), values has \(8,\)"):
            run(route, a)
    a = good()
    for n in (-1, 2**31, 2**63):                     # refused before anything is made of n items
        with pytest.raises(ValueError, match=rf"n_counts = {n} must be from 0 to 2,147,483,647"):
            route(a["values"], a["kinds"], [1, 2, 3], a["shoe"], 3, a["count"], n, a["pen"], 2, a["place"], 5,
                  np.array(a["ahead"]))
    with pytest.raises(TypeError, match="round_tally: multiples must be a Multiples, not list"):
        round_tally(np.array(a["values"]), np.array(a["kinds"]), [1, 2, 3],  # type: ignore[arg-type]
                    shoe=np.array(a["shoe"]), n_shoes=3,
                    count=np.array(a["count"]), n_counts=4, pen=np.array(a["pen"]), n_pens=2,
                    place=np.array(a["place"]), n_places=5, ahead=np.array(a["ahead"]))
    with pytest.raises(TypeError, match="values"):
        route(np.array([0.5] * 8), a["kinds"], [1, 2, 3], a["shoe"], 3, a["count"], 4, a["pen"], 2, a["place"], 5,
              np.array(a["ahead"]))
    with pytest.raises(TypeError, match="values must be integers, not True or False"):     # Python integers
        round_tally(np.array([True, *a["values"][1:]], dtype=object), np.array(a["kinds"]), Multiples([1, 2, 3]),
                    shoe=np.array(a["shoe"]), n_shoes=3, count=np.array(a["count"]), n_counts=4,
                    pen=np.array(a["pen"]), n_pens=2, place=np.array(a["place"]), n_places=5,
                    ahead=np.array(a["ahead"]))
    with native.pure() if route is pure_route else contextlib.nullcontext(), pytest.raises(TypeError, match="count"):
        round_tally(np.array(a["values"]), np.array(a["kinds"]), Multiples([1, 2, 3]), shoe=np.array(a["shoe"]),
                    n_shoes=3, count=np.array(a["count"], dtype=float), n_counts=4, pen=np.array(a["pen"]), n_pens=2,
                    place=np.array(a["place"]), n_places=5, ahead=np.array(a["ahead"]))


@compiled
def test_the_kernel_checks_its_inputs_itself() -> None:
    """Called directly (not through round_tally): shapes, dtypes and every index checked in C."""
    assert core is not None
    i64 = np.zeros(3, dtype=np.int64)
    limbs = Multiples([1, 2]).limbs
    ok = (i64, i64, limbs, i64, 1, i64, 1, i64, 1, i64, 1, i64)
    assert core.round_tally(*ok)[2] == 0
    with pytest.raises(TypeError, match="values"):
        core.round_tally(i64.astype(np.int32), *ok[1:])
    with pytest.raises(TypeError, match="limbs"):
        core.round_tally(i64, i64, limbs.astype(np.int64), *ok[3:])
    with pytest.raises(TypeError, match="ahead"):
        core.round_tally(*ok[:11], i64.astype(bool))
    with pytest.raises(ValueError, match="one length"):
        core.round_tally(i64, i64[:2], *ok[2:])
    with pytest.raises(ValueError, match="one length"):
        core.round_tally(*ok[:6], -1, *ok[7:])
    with pytest.raises(ValueError, match=r"shoe\[2\] = 0 is below shoe\[1\] = 1"):
        core.round_tally(i64, i64, limbs, np.array([0, 1, 0]), 2, *ok[5:])
    with pytest.raises(ValueError, match=r"place\[0\] = -1 is not in \[0, 1\)"):
        core.round_tally(*ok[:9], np.array([-1, 0, 0]), 1, i64)
    for n_counts in (2**59, 2**62):                          # the words for them past size_t, or past memory
        with pytest.raises(MemoryError):
            core.round_tally(*ok[:6], n_counts, *ok[7:])     # refused: no wrap, no crash


@compiled
def test_the_kernel_runs_beside_other_threads() -> None:
    args = case(9, 700, 10, 51, 10, 90, 20, 0.7)
    want = asdict(compiled_route(*args))
    results: list[dict] = []

    def work() -> None:
        for _ in range(5):
            results.append(asdict(compiled_route(*args)))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 15 and all(r == want for r in results)
