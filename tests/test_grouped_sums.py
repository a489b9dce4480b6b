"""engine/grouped.py: the compiled grouped_sums (exactodds/engine/_core.c) and the pure route, each against a
plain Python loop, on seeded random inputs and at the edges (int64's extremes, multiples at 32-bit limb
boundaries, empty groups, no items, one group of many items), and what both must refuse."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable

import numpy as np
import pytest

from exactodds.engine import native
from exactodds.engine.grouped import Multiples, grouped_sums

core = native.kernels()
compiled = pytest.mark.skipif(core is None, reason=f"the compiled core is not in use here: {native.status()}")

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def loop(values: list[int], kinds: list[int], groups: list[int], n: int, multiples: list[int]) -> list[int]:
    """The definition, one item at a time."""
    out = [0] * n
    for v, k, g in zip(values, kinds, groups):
        out[g] += v * multiples[k]
    return out


def pure_route(*args: object) -> list[int]:
    with native.pure():
        return grouped_sums(*args).tolist()  # type: ignore[arg-type]


def compiled_route(*args: object) -> list[int]:
    assert native.kernels() is not None
    return grouped_sums(*args).tolist()  # type: ignore[arg-type]


ROUTES = [pytest.param(pure_route, id="pure"), pytest.param(compiled_route, id="compiled", marks=compiled)]
Route = Callable[..., list[int]]


def edge_multiples(rng: random.Random) -> list[int]:
    """0 and 1, 2^32·k boundaries (2^32, 2^64 - 1, 2^64, 2^96 + 2^32), random up to 2^700 and 2^700 itself."""
    out = [0, 1, 2**32, 2**32 - 1, 2**64 - 1, 2**64, 2**96 + 2**32, 2**(32 * 7) * 5, 2**700, 2**700 - 1]
    out += [rng.getrandbits(rng.randrange(1, 701)) for _ in range(20)]
    return out


def edge_values(rng: random.Random, count: int) -> list[int]:
    pool = [I64_MIN, I64_MIN + 1, I64_MAX, -I64_MAX, 0, 1, -1, 2**32, -(2**32), 2**31]
    return [rng.choice(pool) if rng.random() < 0.3 else rng.randrange(I64_MIN, I64_MAX + 1) for _ in range(count)]


def case(seed: int, items: int, n: int) -> tuple[list[int], list[int], list[int], list[int]]:
    rng = random.Random(seed)
    multiples = edge_multiples(rng)
    values = edge_values(rng, items)
    kinds = [rng.randrange(len(multiples)) for _ in range(items)]
    groups = [rng.randrange(n) for _ in range(items)] if n else []
    return values, kinds, groups, multiples


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("seed, items, n", [(0, 200, 37), (1, 1000, 5), (2, 50, 400), (3, 1, 1), (4, 300, 1),
                                            (5, 0, 0), (6, 0, 9), (7, 2000, 2000)])
def test_the_routes_equal_the_loop_on_random_inputs(route: Route, seed: int, items: int, n: int) -> None:
    values, kinds, groups, multiples = case(seed, items, n)
    want = loop(values, kinds, groups, n, multiples)
    got = route(np.array(values, dtype=np.int64), np.array(kinds, dtype=np.int64), np.array(groups, dtype=np.int64),
                n, Multiples(multiples))
    assert got == want
    assert all(type(x) is int for x in got)
    if n > items:
        assert 0 in got                                  # an empty group reads 0


@pytest.mark.parametrize("route", ROUTES)
def test_the_extremes_of_int64_times_the_largest_multiples_in_one_group(route: Route) -> None:
    """The accumulators' worst case in sign and size: every term at ±2^63 × (2^32 - 1) per limb."""
    multiples = [2**700 - 1, 2**64 - 1, 2**32 - 1, 0]
    values = [I64_MIN] * 500 + [I64_MAX] * 300 + [-I64_MAX] * 7
    kinds = [i % 4 for i in range(len(values))]
    groups = [0] * len(values)
    want = loop(values, kinds, groups, 1, multiples)
    assert route(np.array(values), np.array(kinds), np.array(groups), 1, Multiples(multiples)) == want
    only_min = route(np.array([I64_MIN] * 3), np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.int64), 1,
                     Multiples([2**700 - 1]))
    assert only_min == [3 * I64_MIN * (2**700 - 1)]


@pytest.mark.parametrize("route", ROUTES)
def test_many_items_in_one_group_and_sums_that_cancel(route: Route) -> None:
    rng = np.random.default_rng(11)
    values = rng.integers(I64_MIN, I64_MAX, size=100_000, endpoint=True, dtype=np.int64)
    values[:1000] = I64_MIN
    multiples = [2**700 - 1, 2**600 + 12345, 2**32]
    kinds = rng.integers(0, 3, size=len(values))
    groups = np.zeros(len(values), dtype=np.int64)
    want = loop(values.tolist(), kinds.tolist(), groups.tolist(), 1, multiples)
    assert route(values, kinds, groups, 1, Multiples(multiples)) == want
    pair = np.array([I64_MAX, -I64_MAX, I64_MIN, I64_MIN])       # cancelling in group 0, negative in group 1
    assert route(pair, np.zeros(4, dtype=np.int64), np.array([0, 0, 1, 1]), 3, Multiples([2**700])) == \
        [0, 2 * I64_MIN * 2**700, 0]


@pytest.mark.parametrize("route", ROUTES)
def test_groups_of_every_size_the_kernel_treats_apart(route: Route) -> None:
    """Groups of 1 to 4 items (summed at once), up to 128 (one run), past it (runs of 128 carried into digits),
    at int64's extremes, each over the largest multiples and a limb boundary."""
    sizes = [1, 2, 3, 4, 5, 8, 127, 128, 129, 256, 257, 1000]
    rng = random.Random(31)
    multiples = [2**700 - 1, 2**(56 * 12) - 1, 2**(56 * 12), 2**64 - 1, 2**56, 2**56 - 1, 1, 0]
    values, kinds, groups = [], [], []
    for g, size in enumerate(sizes):
        extreme = rng.choice([I64_MIN, I64_MAX])
        for _ in range(size):
            values.append(extreme if rng.random() < 0.8 else rng.randrange(I64_MIN, I64_MAX + 1))
            kinds.append(rng.randrange(len(multiples)) if rng.random() < 0.5 else 0)
            groups.append(g)
    order = list(range(len(values)))
    rng.shuffle(order)                                   # items of a group apart in the arrays
    values, kinds, groups = ([x[i] for i in order] for x in (values, kinds, groups))
    want = loop(values, kinds, groups, len(sizes), multiples)
    assert route(np.array(values), np.array(kinds), np.array(groups), len(sizes), Multiples(multiples)) == want


@pytest.mark.parametrize("route", ROUTES)
def test_multiples_of_a_megabyte(route: Route) -> None:
    """A multiple past 1 MiB: the kernel forms one group's integer at a time."""
    multiples = [2**(8 * 2**20 + 5) - 3, 2**64 + 1]
    values, kinds, groups = [I64_MIN, 5, -7, I64_MAX, 1], [0, 1, 0, 0, 1], [2, 0, 0, 2, 3]
    want = loop(values, kinds, groups, 4, multiples)
    assert route(np.array(values), np.array(kinds), np.array(groups), 4, Multiples(multiples)) == want


@pytest.mark.parametrize("route", ROUTES)
def test_other_integer_dtypes_and_object_values(route: Route) -> None:
    values, kinds, groups, multiples = case(21, 500, 40)
    want = loop(values, kinds, groups, 40, multiples)
    m = Multiples(multiples)
    as_object = np.array(values, dtype=object)
    assert route(as_object, np.array(kinds, dtype=np.int32), np.array(groups, dtype=np.uint16), 40, m) == want
    big = [v * 2**100 + 7 for v in values]              # Python integers past int64: always the pure route
    assert route(np.array(big, dtype=object), np.array(kinds), np.array(groups), 40, m) == \
        loop(big, kinds, groups, 40, multiples)
    small = [v % 2**31 for v in values]
    assert route(np.array(small, dtype=np.int32), np.array(kinds, dtype=np.uint64),
                 np.array(groups, dtype=np.int8), 40, m) == loop(small, kinds, groups, 40, multiples)
    high = np.array([2**64 - 1, 5], dtype=np.uint64)    # past int64: Python integers
    assert route(high, np.array([1, 1]), np.array([0, 1]), 2, m) == [(2**64 - 1) * multiples[1], 5 * multiples[1]]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("kinds, groups, message", [
    ([0, 3, 0], [0, 1, 2], r"kinds\[1\] = 3 is not in \[0, 3\)"),
    ([0, -1, 0], [0, 1, 2], r"kinds\[1\] = -1 is not in \[0, 3\)"),
    ([0, 1, 2], [0, 4, 2], r"groups\[1\] = 4 is not in \[0, 4\)"),
    ([0, 1, 2], [0, 1, -2], r"groups\[2\] = -2 is not in \[0, 4\)"),
    ([0, 1, 7], [0, 9, 2], r"groups\[1\] = 9 is not in \[0, 4\)"),        # the first item out of range
    ([0, 5, 2], [0, 9, 2], r"kinds\[1\] = 5 is not in \[0, 3\)"),         # its kind named first
])
def test_out_of_range_kinds_and_groups_are_refused_in_one_line(route: Route, kinds: list[int], groups: list[int],
                                                               message: str) -> None:
    m = Multiples([1, 2**40, 2**300])
    for values in (np.array([1, 2, 3]), np.array([1, 2, 3], dtype=object)):
        with pytest.raises(ValueError, match=message) as info:
            route(values, np.array(kinds), np.array(groups), 4, m)
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("route", ROUTES)
def test_no_multiples_and_no_groups(route: Route) -> None:
    empty = np.zeros(0, dtype=np.int64)
    assert route(empty, empty, empty, 0, Multiples([])) == []
    assert route(empty, empty, empty, 3, Multiples([])) == [0, 0, 0]
    with pytest.raises(ValueError, match=r"kinds\[0\] = 0 is not in \[0, 0\)"):
        route(np.array([1]), np.array([0]), np.array([0]), 1, Multiples([]))
    with pytest.raises(ValueError, match=r"groups\[0\] = 0 is not in \[0, 0\)"):
        route(np.array([1]), np.array([0]), np.array([0]), 0, Multiples([1]))


@pytest.mark.parametrize("route", ROUTES)
def test_malformed_inputs_are_refused(route: Route) -> None:
    m = Multiples([1, 2])
    one = np.array([0])
    with pytest.raises(TypeError, match="values"):
        route(np.array([1.5]), one, one, 1, m)
    with pytest.raises(TypeError, match="kinds"):
        route(np.array([1]), np.array([0.0]), one, 1, m)
    with pytest.raises(ValueError, match="groups has shape"):
        route(np.array([1, 2]), np.array([0, 0]), one, 1, m)
    with pytest.raises(ValueError, match="must not be negative"):
        route(np.array([1]), one, one, -1, m)
    with pytest.raises(TypeError):
        route(np.array([1.5, 2], dtype=object), np.array([0, 0]), np.array([0, 0]), 1, m)   # not integers


def test_multiples_hold_limbs_and_refuse_negatives() -> None:
    m = Multiples([0, 1, 2**32, 2**64 - 1, 2**96])
    assert m.limbs.dtype == np.uint32 and m.limbs.flags.c_contiguous and m.limbs.shape == (5, 4)
    assert [sum(int(x) << 32 * j for j, x in enumerate(row)) for row in m.limbs] == m.values.tolist()
    assert m.limbs[2].tolist() == [0, 1, 0, 0] and m.limbs[4].tolist() == [0, 0, 0, 1]
    assert Multiples([]).limbs.shape == (0, 1) and Multiples([0]).limbs.shape == (1, 1)
    assert not m.limbs.flags.writeable and not m.values.flags.writeable
    with pytest.raises(ValueError, match=r"multiple 2 is -5"):
        Multiples([1, 2, -5])
    with pytest.raises(TypeError):
        Multiples([1.0])  # type: ignore[list-item]


@compiled
def test_the_kernel_checks_its_inputs_itself() -> None:
    """What the Python face would never pass, the C refuses: dtypes, layouts, shapes, ranges."""
    assert core is not None
    v = np.array([1, 2], dtype=np.int64)
    z = np.zeros(2, dtype=np.int64)
    limbs = Multiples([1, 2**40]).limbs
    assert core.grouped_sums(v, np.array([1, 0]), np.array([1, 0]), 2, limbs) == [2, 2**40]
    with pytest.raises(TypeError, match="values"):
        core.grouped_sums(v.astype(np.int32), z, z, 1, limbs)
    with pytest.raises(TypeError, match="limbs"):
        core.grouped_sums(v, z, z, 1, limbs.astype(np.uint64))
    with pytest.raises(TypeError, match="kinds"):
        core.grouped_sums(v, np.zeros(4, dtype=np.int64)[::2], z, 1, limbs)      # not contiguous
    with pytest.raises(TypeError, match="limbs"):
        core.grouped_sums(v, z, z, 1, np.asfortranarray(np.zeros((2, 3), dtype=np.uint32)))
    with pytest.raises(ValueError, match="one length"):
        core.grouped_sums(v, z[:1], z, 1, limbs)
    with pytest.raises(ValueError, match="shape"):
        core.grouped_sums(v, z, z, 1, limbs.reshape(-1))
    with pytest.raises(ValueError, match="shape"):
        core.grouped_sums(v, z, z, 1, np.zeros((2, 0), dtype=np.uint32))
    with pytest.raises(ValueError, match="n_groups"):
        core.grouped_sums(v, z, z, -1, limbs)
    with pytest.raises(ValueError, match=r"kinds\[1\] = 2 is not in \[0, 2\)"):
        core.grouped_sums(v, np.array([0, 2]), z, 1, limbs)
    with pytest.raises(ValueError, match=r"groups\[0\] = -9223372036854775808 is not in \[0, 1\)"):
        core.grouped_sums(v, z, np.array([I64_MIN, 0]), 1, limbs)
    with pytest.raises(MemoryError):                     # the result's list itself cannot be made: no wrap, no crash
        core.grouped_sums(v, z, z, 2**62, limbs)


@compiled
def test_the_kernel_runs_beside_other_threads() -> None:
    """The GIL is released while it sums: threads at once give each its own exact answer."""
    cases = [case(100 + t, 3000, 300) for t in range(4)]
    results: dict[int, list[int]] = {}

    def run(t: int) -> None:
        values, kinds, groups, multiples = cases[t]
        m = Multiples(multiples)
        results[t] = grouped_sums(np.array(values), np.array(kinds), np.array(groups), 300, m).tolist()

    threads = [threading.Thread(target=run, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for t, (values, kinds, groups, multiples) in enumerate(cases):
        assert results[t] == loop(values, kinds, groups, 300, multiples)
