"""The reference simulator: seeded, vectorised, dealing as §627a.5 and §627a.9(e) say.

Two ways to deal:

* ``"shoe"`` — real shoes: shuffle, burn per §627a.5(f) (expose the first card,
  then discard as many more as its face value, 10/J/Q/K counting ten), a cover
  card ``cut`` cards from the end (at least 14, §627a.5(d)), and the "last
  hand" rule of §627a.9(e): the hand in which the cover card appears is
  completed, one more hand is dealt, and the shoe is reshuffled. Many shoes are
  dealt side by side, one round of each per step.
* ``"fresh"`` — every round off the top of a freshly shuffled full shoe: the
  distribution the exact engine computes.

``faults`` deliberately breaks the simulator (for tests and for learning what
check-sim catches): ``"table1:B,X"`` flips Table 1's cell for Banker total B and
Player third card X; ``"with-replacement"`` deals each card from a full shoe.

>>> rounds = simulate(decks=8, rounds=5, seed=1, mode="fresh")
>>> rounds.player.shape, rounds.banker.shape
((5, 3), (5, 3))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any
from dataclasses import dataclass

import numpy as np

from .cards import Card
from .errors import ExactOddsError
from .rounds import _DRAW, POINTS, cards_used, deal_from
from .shoe import Shoe

__all__ = ["SimulatedRounds", "simulate", "simulate_chunks", "deal_shoes", "write_records", "record_table", "FAULTS"]

FAULTS = ("table1:B,X", "with-replacement", "perfect-pairs-mixed-as-coloured")


@dataclass(frozen=True)
class SimulatedRounds:
    """Rounds as card indices: ``player``/``banker`` ``(n, 3)`` (-1: no third card)."""

    player: np.ndarray
    banker: np.ndarray
    shoe_number: np.ndarray
    mode: str
    faults: tuple[str, ...] = ()
    burned: np.ndarray | None = None       # cards burned per shoe (§627a.5(f)), shoe mode

    def __len__(self) -> int:
        return len(self.player)


def _draw_table(faults: Iterable[str]) -> np.ndarray:
    table = _DRAW.copy()
    for fault in faults:
        if fault.startswith("table1:"):
            try:
                b, x = (int(t) for t in fault[7:].split(","))
            except ValueError:
                raise ExactOddsError(f"fault {fault!r}: write table1:B,X with B in 3-6 and X in 0-9") from None
            if not (3 <= b <= 6 and 0 <= x <= 9):
                raise ExactOddsError(f"fault {fault!r}: Table 1 has Banker totals 3-6 and third cards 0-9")
            table[b, x] = not table[b, x]
        elif fault not in ("with-replacement", "perfect-pairs-mixed-as-coloured"):
            raise ExactOddsError(f"unknown fault {fault!r} (faults: {', '.join(FAULTS)})")
    return table


def _shoe_cards(decks: int) -> np.ndarray:
    shoe = Shoe.decks(decks)
    assert shoe.card_counts is not None
    return np.repeat(np.arange(52, dtype=np.int16), shoe.card_counts)


def _fresh(cards: np.ndarray, n: int, rng: np.random.Generator, replacement: bool) -> np.ndarray:
    """``(n, 6)`` cards, each row six draws without replacement off a full shoe."""
    size = len(cards)
    if replacement:
        return cards[rng.integers(0, size, (n, 6))]
    picks = np.empty((n, 6), dtype=np.int64)
    for i in range(6):
        r = rng.integers(0, size - i, n)
        # Map r to the r-th position not yet drawn: step over earlier draws in increasing order.
        earlier = np.sort(picks[:, :i], axis=1) if i else picks[:, :0]
        for j in range(i):
            r = r + (r >= earlier[:, j])
        picks[:, i] = r
    return cards[picks]


#: Bounds that keep a run finite and its memory small.
MAX_ROUNDS = 10**10
MAX_DECKS = 1000


def _check(decks: int, rounds: int, seed: int, mode: str, cut: int) -> None:
    checks = [
        (isinstance(rounds, int) and 1 <= rounds <= MAX_ROUNDS,
         f"--rounds must be a whole number from 1 to {MAX_ROUNDS:,}, got {rounds!r}"),
        (isinstance(decks, int) and 1 <= decks <= MAX_DECKS,
         f"--decks must be a whole number from 1 to {MAX_DECKS:,} for the simulator, got {decks!r}"),
        (isinstance(seed, int) and 0 <= seed < 2**128, f"--seed must be a whole number from 0 to 2^128 - 1, got {seed!r}"),
        (mode in ("shoe", "fresh"), f"--mode must be 'shoe' or 'fresh', got {mode!r}"),
    ]
    for ok, message in checks:
        if not ok:
            raise ExactOddsError(message)
    if mode == "shoe" and not 14 <= cut <= 52 * decks - 20:
        raise ExactOddsError(f"the cover card goes at least 14 cards from the end (§627a.5(d)) and leaves 20 "
                             f"to deal, got {cut}")


def simulate_chunks(*, decks: int = 8, rounds: int, seed: int, mode: str = "shoe", cut: int = 14,
                    faults: Iterable[str] = (), batch: int = 2000) -> Iterator[SimulatedRounds]:
    """Deal at least ``rounds`` rounds (whole shoes in ``"shoe"`` mode), reproducibly from ``seed``,
    in chunks of ``batch`` shoes (or 500,000 fresh rounds): memory does not grow with ``rounds``."""
    faults = tuple(faults)
    table = _draw_table(faults)
    _check(decks, rounds, seed, mode, cut)
    cards = _shoe_cards(decks)
    rng = np.random.default_rng(seed)
    if mode == "fresh":
        done = 0
        while done < rounds:
            n = min(500_000, rounds - done)
            dealt = _fresh(cards, n, rng, "with-replacement" in faults)
            p, b = deal_from(dealt, draw_table=table)
            yield SimulatedRounds(p, b, np.zeros(n, dtype=np.int64), mode, faults)
            done += n
        return
    batch = max(1, min(batch, 4_000_000 // len(cards),          # about 4 million cards in memory at once
                       -(-rounds * 6 // len(cards)) + 1))          # and not many more shoes than the rounds need
    dealt_rounds, first_shoe = 0, 0
    while dealt_rounds < rounds:
        stack = rng.permuted(np.broadcast_to(cards, (batch, len(cards))), axis=1)
        if "with-replacement" in faults:
            stack = cards[rng.integers(0, len(cards), stack.shape)]
        p, b, shoe_no, burned = deal_shoes(stack, cut=cut, draw_table=table)
        yield SimulatedRounds(p, b, first_shoe + shoe_no, mode, faults, burned)
        dealt_rounds += len(p)
        first_shoe += batch


def simulate(*, decks: int = 8, rounds: int, seed: int, mode: str = "shoe", cut: int = 14,
             faults: Iterable[str] = (), batch: int = 2000,
             progress: Callable[[int], None] | None = None) -> SimulatedRounds:
    """Deal at least ``rounds`` rounds (whole shoes in ``"shoe"`` mode), reproducibly from ``seed``, in memory.

    ``progress`` is called with the number of rounds dealt so far after each batch.
    """
    parts = []
    done = 0
    for part in simulate_chunks(decks=decks, rounds=rounds, seed=seed, mode=mode, cut=cut, faults=faults,
                                batch=batch):
        parts.append(part)
        done += len(part)
        if progress is not None:
            progress(done)
    burned = [p.burned for p in parts if p.burned is not None]
    return SimulatedRounds(np.concatenate([p.player for p in parts]), np.concatenate([p.banker for p in parts]),
                           np.concatenate([p.shoe_number for p in parts]), mode, tuple(faults),
                           np.concatenate(burned) if burned else None)


def deal_shoes(stack: np.ndarray, *, cut: int, draw_table: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Deal every shoe of ``stack`` (shuffled shoes, one per row) to its cover card, side by side.

    Burn per §627a.5(f), cover card ``cut`` cards from the end (§627a.5(d)), last
    hand per §627a.9(e). Returns (player, banker, shoe row, burned per shoe): the
    rounds shoe by shoe, in the order dealt.
    """
    s, size = stack.shape
    table = _DRAW if draw_table is None else draw_table
    first = POINTS[stack[:, 0]].astype(np.int64)
    face = np.where(stack[:, 0] // 4 >= 9, 10, first)       # §627a.5(f): 10, J, Q, K burn ten
    ptr = 1 + face
    burned = ptr.copy()
    cover = size - cut
    phase = np.zeros(s, dtype=np.int8)       # 0 dealing, 1 last hand to come, 2 done
    rows = np.arange(s)
    players, bankers, shoes = [], [], []
    while (phase < 2).any():
        live = rows[phase < 2]
        take = stack[live[:, None], ptr[live][:, None] + np.arange(6)]
        p, b = deal_from(take, draw_table=table)
        k = cards_used(p, b)
        players.append(p)
        bankers.append(b)
        shoes.append(live)
        start = ptr[live]
        appears = (start <= cover) & (start + k > cover)           # §627a.9(e)
        was_last = phase[live] == 1
        phase[live] = np.where(was_last, 2, np.where(appears, 1, 0))
        ptr[live] = start + k
    shoe_no = np.concatenate(shoes)
    order = np.argsort(shoe_no, kind="stable")       # shoe by shoe, rounds in the order dealt
    return np.concatenate(players)[order], np.concatenate(bankers)[order], shoe_no[order], burned


_TOKENS = [f"{Card.from_index(i).rank}{Card.from_index(i).suit.value}" for i in range(52)]


def record_table(rounds: SimulatedRounds, settle: Sequence[tuple[Any, Any]] = ()) -> Any:
    """Rounds as a pyarrow Table in the check-sim schema (cards and settlements dictionary-encoded)."""
    import pyarrow as pa

    from .recordio import CARD_COLUMNS
    from .rounds import settle_iter

    tokens = pa.array(_TOKENS)
    columns: dict[str, Any] = {}
    for name, hand, k in zip(CARD_COLUMNS, (0, 0, 0, 1, 1, 1), (0, 1, 2, 0, 1, 2)):
        idx = (rounds.player, rounds.banker)[hand][:, k]
        columns[name] = pa.DictionaryArray.from_arrays(pa.array(idx.astype(np.int8), mask=idx < 0), tokens)
    for (wager, table), assign in settle_iter(list(settle), rounds.player, rounds.banker):
        ids = [o.id for o in wager.outcomes] + ["lose"]
        if "perfect-pairs-mixed-as-coloured" in rounds.faults and wager.id.startswith("perfect-pairs-"):
            ids = ["coloured" if i == "mixed" else i for i in ids]
        codes = np.where(assign < 0, len(ids) - 1, assign).astype(np.int8)
        columns[f"{wager.id}:{table.id}"] = pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(ids))
    return pa.table(columns)


def write_records(rounds: SimulatedRounds, path: str, *, fmt: str = "csv",
                  settle: Iterable[tuple[object, object]] = ()) -> int:
    """Write per-round records in the check-sim schema (see :mod:`exactodds.recordio`); returns the number
    written. CSV columns ``player1,...,banker3`` then one ``WAGER:PAYTABLE`` column per settled wager."""
    from .recordio import CARD_COLUMNS, RecordWriter

    pairs = list(settle)
    columns = [*CARD_COLUMNS, *(f"{w.id}:{t.id}" for w, t in pairs)]   # type: ignore[attr-defined]
    with RecordWriter(path, fmt, columns) as out:
        out.write(record_table(rounds, pairs))
    return len(rounds)
