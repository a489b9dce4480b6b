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

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from .cards import Card
from .errors import ExactOddsError
from .rounds import _DRAW, POINTS, cards_used, deal_from
from .shoe import Shoe

__all__ = ["SimulatedRounds", "simulate", "deal_shoes", "write_records", "FAULTS"]

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


def simulate(*, decks: int = 8, rounds: int, seed: int, mode: str = "shoe", cut: int = 14,
             faults: Iterable[str] = (), batch: int = 2000,
             progress: Callable[[int], None] | None = None) -> SimulatedRounds:
    """Deal at least ``rounds`` rounds (whole shoes in ``"shoe"`` mode), reproducibly from ``seed``.

    ``progress`` is called with the number of rounds dealt so far after each batch.
    """
    faults = tuple(faults)
    table = _draw_table(faults)
    if rounds < 1:
        raise ExactOddsError(f"rounds must be at least 1, got {rounds}")
    if mode not in ("shoe", "fresh"):
        raise ExactOddsError(f"mode must be 'shoe' or 'fresh', got {mode!r}")
    cards = _shoe_cards(decks)
    rng = np.random.default_rng(seed)
    if mode == "fresh":
        dealt = _fresh(cards, rounds, rng, "with-replacement" in faults)
        p, b = deal_from(dealt, draw_table=table)
        if progress is not None:
            progress(rounds)
        return SimulatedRounds(p, b, np.zeros(rounds, dtype=np.int64), mode, faults)
    if cut < 14 or cut > len(cards) - 20:
        raise ExactOddsError(f"the cover card goes at least 14 cards from the end (§627a.5(d)), got {cut}")
    players, bankers, shoes, burns = [], [], [], []
    dealt_rounds, first_shoe = 0, 0
    while dealt_rounds < rounds:
        stack = rng.permuted(np.broadcast_to(cards, (batch, len(cards))), axis=1)
        if "with-replacement" in faults:
            stack = cards[rng.integers(0, len(cards), stack.shape)]
        p, b, shoe_no, burned = deal_shoes(stack, cut=cut, draw_table=table)
        players.append(p)
        bankers.append(b)
        shoes.append(first_shoe + shoe_no)
        burns.append(burned)
        dealt_rounds += len(p)
        first_shoe += batch
        if progress is not None:
            progress(dealt_rounds)
    return SimulatedRounds(np.concatenate(players), np.concatenate(bankers), np.concatenate(shoes), mode, faults,
                           np.concatenate(burns))


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


_TOKENS = np.array([f"{Card.from_index(i).rank}{Card.from_index(i).suit.value}" for i in range(52)] + [""])


def write_records(rounds: SimulatedRounds, path: str, *, fmt: str = "csv",
                  settle: Iterable[tuple[object, object]] = ()) -> int:
    """Write per-round records in the check-sim schema; returns the number written.

    CSV columns: ``player1,player2,player3,banker1,banker2,banker3`` (cards as
    ``Ks``, ``10h``; an empty cell where a hand has no third card), then one
    column per settled wager, named ``WAGER:PAYTABLE``, holding the outcome id
    the round is paid as (``lose`` for a loss). JSON Lines: one object per round
    with ``player`` and ``banker`` lists and a ``settled`` object.
    """
    from .rounds import settle_many

    settle = list(settle)
    columns: list[tuple[str, np.ndarray]] = []
    if settle:
        for (wager, table), assign in zip(settle, settle_many(settle, rounds.player, rounds.banker)):
            ids = np.array([o.id for o in wager.outcomes] + ["lose"])    # type: ignore[attr-defined]
            if "perfect-pairs-mixed-as-coloured" in rounds.faults and wager.id.startswith("perfect-pairs-"):  # type: ignore[attr-defined]
                ids = np.where(ids == "mixed", "coloured", ids)
            columns.append((f"{wager.id}:{table.id}", ids[assign]))    # type: ignore[attr-defined]
    p = _TOKENS[np.where(rounds.player >= 0, rounds.player, 52)]
    b = _TOKENS[np.where(rounds.banker >= 0, rounds.banker, 52)]
    if fmt not in ("csv", "jsonl"):
        raise ExactOddsError(f"unknown record format {fmt!r} (csv or jsonl)")
    import io

    from .certificate import write_atomically

    with io.StringIO() as fh:
        if fmt == "csv":
            fh.write(",".join(["player1", "player2", "player3", "banker1", "banker2", "banker3",
                               *(name for name, _ in columns)]) + "\n")
            parts = [p[:, 0], p[:, 1], p[:, 2], b[:, 0], b[:, 1], b[:, 2], *(c for _, c in columns)]
            fh.write("\n".join(map(",".join, zip(*(part.tolist() for part in parts)))) + "\n")
        else:
            import json

            for i in range(len(p)):
                rec: dict[str, object] = {"player": [c for c in p[i] if c], "banker": [c for c in b[i] if c]}
                if columns:
                    rec["settled"] = {name: str(c[i]) for name, c in columns}
                fh.write(json.dumps(rec) + "\n")
        write_atomically(path, fh.getvalue())      # whole file or nothing
    return len(p)
