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
Player third card X; ``"with-replacement"`` deals each card from a full shoe;
``"without:CARD"`` (e.g. ``without:5s``) leaves every copy of that card out of the shoe;
``"riffle:K"`` shuffles each shoe by K riffles only, leaving neighbouring cards together;
``"mispay:WAGER"`` (records of amounts, :func:`record_table` with a ``bet``) pays WAGER's top award one unit
of the stake more than its paytable says.

>>> rounds = simulate(decks=8, rounds=5, seed=1, mode="fresh")
>>> rounds.player.shape, rounds.banker.shape
((5, 3), (5, 3))
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from exactodds import extras
from exactodds.errors import ExactOddsError
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.simulation.amounts import amount_text, pays_per_stake
from exactodds.simulation.recordio import CARD_COLUMNS, STAKE_COLUMN, RecordWriter, arrow_strings, dictionary_column
from exactodds.simulation.roundclasses import settle_grouped
from exactodds.simulation.rounds import _DRAW, POINTS, deal_from, window_draws
from exactodds.simulation.withinshoe import SHOE_COLUMN

__all__ = ["SimulatedRounds", "simulate", "simulate_chunks", "deal_shoes", "write_records", "record_table",
           "record_columns", "FAULTS"]

FAULTS = ("table1:B,X", "with-replacement", "perfect-pairs-mixed-as-coloured", "without:CARD", "riffle:K",
          "mispay:WAGER")


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
        elif fault.startswith("without:"):
            _missing(fault)
        elif fault.startswith("riffle:"):
            _riffles(fault)
        elif fault not in ("with-replacement", "perfect-pairs-mixed-as-coloured") and not fault.startswith("mispay:"):
            raise ExactOddsError(f"unknown fault {fault!r} (faults: {', '.join(FAULTS)})")
    return table


def _riffles(fault: str) -> int:
    """The riffles of a ``riffle:K`` fault: the shoe, assembled with each card's copies together, is
    given K riffle shuffles instead of a full shuffle, and neighbouring cards stay together."""
    try:
        k = int(fault[len("riffle:"):])
    except ValueError:
        k = 0
    if not 1 <= k <= 20:
        raise ExactOddsError(f"fault {fault!r}: write riffle:K with K riffles from 1 to 20")
    return k


def _riffled(cards: np.ndarray, shoes: int, rng: np.random.Generator, k: int) -> np.ndarray:
    """``shoes`` copies of ``cards`` each given ``k`` (inverse) riffle shuffles: each card draws k random
    bits and the cards are put in the order of those bits, keeping their order within equal bits (the
    Gilbert-Shannon-Reeds model run backwards: far from uniform for k below about 1.5 log2 of the size)."""
    keys = rng.integers(0, 1 << k, size=(shoes, len(cards)))
    return np.take(np.asarray(cards), np.argsort(keys, axis=1, kind="stable"))


def _missing(fault: str) -> int:
    """The card a ``without:CARD`` fault leaves out of every shoe (every copy of it), e.g. ``without:5s``."""
    try:
        return Card.parse(fault[len("without:"):]).index
    except ExactOddsError:
        raise ExactOddsError(f"fault {fault!r}: write without:CARD with a card such as 5s") from None


def _shoe_cards(decks: int, faults: Iterable[str] = ()) -> np.ndarray:
    shoe = Shoe.decks(decks)
    assert shoe.card_counts is not None
    cards = np.repeat(np.arange(52, dtype=np.int16), shoe.card_counts)
    for fault in faults:
        if fault.startswith("without:"):
            cards = cards[cards != _missing(fault)]
    return cards


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


#: Fresh rounds are drawn in blocks of this many, each from its own generator and always in full,
#: so a shorter run is a prefix of a longer one.
FRESH_BLOCK = 1 << 16

#: Bounds that keep a run finite and its memory small.
MAX_ROUNDS = 10**10
MAX_DECKS = 1000


def _check(decks: int, rounds: int, seed: int, mode: str, cut: int) -> None:
    checks = [
        (type(rounds) is int and 1 <= rounds <= MAX_ROUNDS,           # type(x) is int: True is no count
         f"--rounds must be a whole number from 1 to {MAX_ROUNDS:,}, got {rounds!r}"),
        (type(decks) is int and 1 <= decks <= MAX_DECKS,
         f"--decks must be a whole number from 1 to {MAX_DECKS:,} for the simulator, got {decks!r}"),
        (type(seed) is int and 0 <= seed < 2**128, f"--seed must be a whole number from 0 to 2^128 - 1, got {seed!r}"),
        (mode in ("shoe", "fresh"), f"--mode must be 'shoe' or 'fresh', got {mode!r}"),
    ]
    for ok, message in checks:
        if not ok:
            raise ExactOddsError(message)
    if mode == "fresh" and cut != 14:
        raise ExactOddsError("--cut places the cover card of a real shoe; --mode fresh deals every round "
                             "off the top of a full shoe")
    if mode == "shoe" and not 14 <= cut <= 52 * decks - 20:
        raise ExactOddsError(f"--cut: the cover card goes at least 14 cards from the end (§627a.5(d)) and leaves "
                             f"20 to deal: from 14 to {52 * decks - 20:,} for {decks} decks, got {cut}")


#: Shoes shuffled together from one generator, seeded by (seed, batch number): a seed deals the
#: same shoes whatever ``rounds`` asks for, so a longer run extends a shorter one.
SHOES_PER_BATCH = 4096
CARDS_PER_BATCH = 2_000_000


def _batch_shoes(shoe_size: int) -> int:
    return max(1, min(SHOES_PER_BATCH, CARDS_PER_BATCH // shoe_size))


def _deal_batch(number: int, *, cards: np.ndarray, seed: int, cut: int, table: np.ndarray,
                faults: tuple[str, ...]) -> SimulatedRounds:
    """Batch ``number`` of a run: its shoes shuffled by the generator of (seed, number), then dealt."""
    rng = np.random.default_rng([seed, number])
    shoes = _batch_shoes(len(cards))
    stack = shuffled_shoes(cards, shoes, rng)
    riffles = [_riffles(f) for f in faults if f.startswith("riffle:")]
    if riffles:                                       # one riffle fault a run (checked in simulate_chunks)
        stack = _riffled(cards, shoes, rng, riffles[0])
    if "with-replacement" in faults:
        stack = cards[rng.integers(0, len(cards), stack.shape)]
    p, b, shoe_no, burned = deal_shoes(stack, cut=cut, draw_table=table)
    return SimulatedRounds(p, b, number * shoes + shoe_no, "shoe", faults, burned)


def _through_shoe(part: SimulatedRounds, rounds: int) -> SimulatedRounds:
    """The first rounds of ``part`` up to the end of the shoe that deals round number ``rounds``."""
    if rounds >= len(part):
        return part
    shoe = part.shoe_number[rounds - 1]
    end = int(np.searchsorted(part.shoe_number, shoe, side="right"))
    burned = None if part.burned is None else part.burned[:int(shoe - part.shoe_number[0]) + 1]
    return SimulatedRounds(part.player[:end], part.banker[:end], part.shoe_number[:end], part.mode, part.faults,
                           burned)


def simulate_chunks(*, decks: int = 8, rounds: int, seed: int, mode: str = "shoe", cut: int = 14,
                    faults: Iterable[str] = (), workers: int = 2) -> Iterator[SimulatedRounds]:
    """Deal at least ``rounds`` rounds (whole shoes in ``"shoe"`` mode), reproducibly from ``seed``,
    in chunks (batches of shoes, or 524,288 fresh rounds): memory does not grow with ``rounds``.
    A shorter run is a prefix of a longer one with the same seed (in whole shoes in ``"shoe"`` mode).

    In ``"shoe"`` mode the batches are dealt on ``workers`` threads; what is dealt depends
    only on the seed, never on the number of workers.
    """
    faults = tuple(faults)
    table = _draw_table(faults)
    _check(decks, rounds, seed, mode, cut)
    riffles = [f for f in faults if f.startswith("riffle:")]
    if riffles and mode != "shoe":
        raise ExactOddsError(f"fault {riffles[0]!r} riffles real shoes: it goes with --mode shoe")
    if len(riffles) > 1:
        raise ExactOddsError(f"faults {', '.join(riffles)}: one riffle fault a run")
    cards = _shoe_cards(decks, faults)
    if mode == "fresh":
        number = done = 0
        while done < rounds:
            blocks: list[np.ndarray] = []
            while len(blocks) < 8 and done < rounds:      # block k: the generator of (seed, k), drawn whole
                rng = np.random.default_rng([seed, number])
                blocks.append(_fresh(cards, FRESH_BLOCK, rng, "with-replacement" in faults)[:rounds - done])
                number, done = number + 1, done + len(blocks[-1])
            drawn = np.concatenate(blocks)
            p, b = deal_from(drawn, draw_table=table)
            yield SimulatedRounds(p, b, np.zeros(len(drawn), dtype=np.int64), mode, faults)
        return

    deal = functools.partial(_deal_batch, cards=cards, seed=seed, cut=cut, table=table, faults=faults)
    expected = _batch_shoes(len(cards)) * (len(cards) - cut) / 5          # rounds a batch deals, about
    pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="exactodds-deal")
    pending: deque[Future[SimulatedRounds]] = deque()
    submitted = dealt = 0
    try:
        while dealt < rounds:
            while not pending or (len(pending) < max(1, workers) + 1
                                  and dealt + len(pending) * expected < rounds):
                pending.append(pool.submit(deal, submitted))
                submitted += 1
            part = _through_shoe(pending.popleft().result(), rounds - dealt)
            dealt += len(part)
            yield part
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def simulate(*, decks: int = 8, rounds: int, seed: int, mode: str = "shoe", cut: int = 14,
             faults: Iterable[str] = (), progress: Callable[[int], None] | None = None) -> SimulatedRounds:
    """Deal at least ``rounds`` rounds (whole shoes in ``"shoe"`` mode), reproducibly from ``seed``, in memory.

    ``progress`` is called with the number of rounds dealt so far after each batch.
    """
    parts = []
    done = 0
    for part in simulate_chunks(decks=decks, rounds=rounds, seed=seed, mode=mode, cut=cut, faults=faults):
        parts.append(part)
        done += len(part)
        if progress is not None:
            progress(done)
    burned = [p.burned for p in parts if p.burned is not None]
    return SimulatedRounds(np.concatenate([p.player for p in parts]), np.concatenate([p.banker for p in parts]),
                           np.concatenate([p.shoe_number for p in parts]), mode, tuple(faults),
                           np.concatenate(burned) if burned else None)


@functools.lru_cache(maxsize=8)
def _sums_draws(draw_table: bytes) -> np.ndarray:
    """Who draws (bit 0 Player, bit 1 Banker) by the code (P·19 + B)·10 + x of the sums P and B
    (0-18) of the two hands' first two point values and the fifth card's value x: read off
    :func:`~exactodds.simulation.rounds.window_draws` at a window with those sums."""
    code = np.arange(19 * 19 * 10)
    p, b, x = code // 190, code // 10 % 19, code % 10
    p1, b1 = np.minimum(p, 9), np.minimum(b, 9)
    return window_draws(draw_table)[p1 * 10_000 + b1 * 1_000 + (p - p1) * 100 + (b - b1) * 10 + x]


def deal_shoes(stack: np.ndarray, *, cut: int, draw_table: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Deal every shoe of ``stack`` (shuffled shoes, one per row) to its cover card, side by side.

    Burn per §627a.5(f), cover card ``cut`` cards from the end (§627a.5(d)), last
    hand per §627a.9(e). Returns (player, banker, shoe row, burned per shoe): the
    rounds shoe by shoe, in the order dealt.

    Each step finds, for every shoe at once, how many cards its next round takes
    (4, 5 or 6, read off the five point values at its position), so only the
    rounds' starting positions are walked; the cards are gathered once at the end.
    """
    s, size = stack.shape
    draws = _sums_draws(_DRAW.tobytes() if draw_table is None else np.asarray(draw_table, dtype=bool).tobytes())
    flat = np.ascontiguousarray(stack).reshape(-1)
    n = len(flat)
    value = np.zeros(n + 4, dtype=np.int16)                   # point values (§627a.6(a)), padded past the end
    value[:n] = ((flat >> 2) + 1) * (flat < 36)               # card index // 4 is the rank: A-9 count 1-9, 10-K 0
    window = value[:n] + value[2:n + 2]                       # from each position, P B P B x: the Player's sum,
    window *= 19
    window += value[1:n + 1]                                  # the Banker's sum,
    window += value[3:n + 3]
    window *= 10
    window += value[4:n + 4]                                  # and the fifth card: (P·19 + B)·10 + x
    taken = (4 + draws % 2 + draws // 2).astype(np.int64)     # cards a round takes, by its window's code
    base = np.arange(s, dtype=np.int64) * size
    burned = 1 + np.where(flat[base] >= 36, 10, value[base]).astype(np.int64)     # §627a.5(f): 10-K burn ten
    last = base + size - cut                                  # the cover card's position
    beyond = base + size - 8                                  # a place past it, still inside the shoe
    pos = base + burned                                       # where each shoe's next round starts
    previous = np.full(s, -1, dtype=np.int64)
    starts = []
    while (previous <= last).any():                           # a round is dealt if the one before it began
        starts.append(pos)                                    # at or before the cover card (§627a.9(e): the
        previous = pos                                        # hand it appears in, then one more)
        pos = np.minimum(pos + np.take(taken, np.take(window, pos)), beyond)
    start_table = np.stack(starts, axis=1)                    # (shoes, steps): shoe by shoe, in the order dealt
    before = np.concatenate([np.full((s, 1), -1, dtype=np.int64), start_table[:, :-1]], axis=1)
    at = start_table[before <= last[:, None]]
    code = np.take(draws, np.take(window, at))
    p_draws, b_draws = code % 2 == 1, code >= 2
    card = [np.take(flat, at + j) for j in range(6)]          # the cover card is 14+ from the end: all inside
    player = np.stack([card[0], card[2], np.where(p_draws, card[4], -1)], axis=1)
    banker = np.stack([card[1], card[3], np.where(b_draws, np.where(p_draws, card[5], card[4]), -1)], axis=1)
    return player, banker, at // size, burned


def shuffled_shoes(cards: np.ndarray, shoes: int, rng: np.random.Generator) -> np.ndarray:
    """``shoes`` independently shuffled copies of ``cards``, one per row.

    Each position draws a random key and the shoe is put in key order (NumPy's sort, which
    runs without the GIL). The keys carry the position in their low bits; a shoe in which two
    random parts tie is drawn again, so every shoe kept has distinct independent uniform keys,
    and its order is a uniformly random permutation, exactly.
    """
    size = len(cards)
    position_bits = max(1, (size - 1).bit_length())
    dtype: Any = np.int32 if position_bits <= 11 else np.int64   # at least 20 random bits a key
    random_bits = (31 if dtype is np.int32 else 63) - position_bits
    position: Any = np.arange(size, dtype=dtype)
    low = (1 << position_bits) - 1

    def keys(n: int) -> np.ndarray:
        k = rng.integers(0, 1 << random_bits, size=(n, size), dtype=dtype)
        k <<= position_bits
        k |= position
        k.sort(axis=1)
        return k

    def tied(k: np.ndarray) -> np.ndarray:          # the rows in which two random parts tie
        near = np.flatnonzero((np.diff(k, axis=1) <= low).any(axis=1))      # a tie's keys differ by <= low
        return near[((k[near, 1:] ^ k[near, :-1]) >> position_bits == 0).any(axis=1)]

    order = keys(shoes)
    redo = tied(order)
    while len(redo):                                  # only the rows drawn again are looked at again
        fresh = keys(len(redo))
        order[redo] = fresh
        redo = redo[tied(fresh)]
    order &= low
    return np.take(np.asarray(cards, dtype=np.int8), order)


_TOKENS = [f"{Card.from_index(i).rank}{Card.from_index(i).suit.value}" for i in range(52)]


def record_table(rounds: SimulatedRounds, settle: Sequence[tuple[Any, Any]] = (), *, shoe: bool = False,
                 bet: Fraction | None = None) -> Any:
    """Rounds as a pyarrow Table in the check-sim schema (cards and settlements dictionary-encoded;
    only ``player3`` and ``banker3`` may be null); with ``shoe``, a ``shoe`` column numbering each round's
    shoe (for check-sim's within-shoe tests). With ``bet`` (dollars), each settlement is the net amount won or
    lost on that bet (a vigorish rounded up to 25¢, §627a.12(c)) and a ``stake`` column holds the bet."""
    pa = extras.load("pyarrow")
    tokens = arrow_strings(_TOKENS)
    columns = [dictionary_column(hand[:, k], tokens) for hand in (rounds.player, rounds.banker) for k in range(3)]
    names = list(CARD_COLUMNS)
    mispaid = {f[len("mispay:"):] for f in rounds.faults if f.startswith("mispay:")}
    for (wager, table), assign in settle_grouped(list(settle), rounds.player, rounds.banker):
        ids = [o.id for o in wager.outcomes] + ["lose"]
        if "perfect-pairs-mixed-as-coloured" in rounds.faults and wager.id.startswith("perfect-pairs-"):
            ids = ["coloured" if i == "mixed" else i for i in ids]
        if bet is not None:                              # the amount of each outcome on the bet, as written
            nets = [n[-1] for n in pays_per_stake(wager, table.id, bet, dollars=True)]
            if wager.id in mispaid:                      # the top award paid one unit of the stake too much
                top = max(range(len(nets) - 1), key=lambda k: nets[k])
                nets[top] += bet
            ids = [amount_text(n) for n in nets]
        columns.append(dictionary_column(np.where(assign < 0, len(ids) - 1, assign), arrow_strings(ids)))
        names.append(f"{wager.id}:{table.id}")
    if shoe:
        columns.append(pa.array(rounds.shoe_number.astype(np.int64)))
        names.append(SHOE_COLUMN)
    if bet is not None and settle:
        columns.append(dictionary_column(np.zeros(len(rounds), dtype=np.int64), arrow_strings([amount_text(bet)])))
        names.append(STAKE_COLUMN)
    # Only a third card may be missing: the other columns are declared not null, which also
    # spares the Parquet writer their definition levels (a fifth of its time).
    schema = pa.schema([pa.field(name, column.type, nullable=name in ("player3", "banker3"))
                        for name, column in zip(names, columns)])
    return pa.Table.from_arrays(columns, schema=schema)


def record_columns(pairs: Sequence[tuple[Any, Any]], *, shoe: bool = False, bet: Fraction | None = None) -> list[str]:
    """The columns :func:`record_table` writes: the cards, a ``WAGER:PAYTABLE`` per settled wager, ``shoe``,
    ``stake``."""
    return [*CARD_COLUMNS, *(f"{w.id}:{t.id}" for w, t in pairs), *([SHOE_COLUMN] if shoe else []),
            *([STAKE_COLUMN] if bet is not None and pairs else [])]


def write_records(rounds: SimulatedRounds, path: str, *, fmt: str = "csv",
                  settle: Iterable[tuple[object, object]] = (), shoe: bool = False, bet: Fraction | None = None) -> int:
    """Write per-round records in the check-sim schema (see :mod:`exactodds.simulation.recordio`); returns the number
    written. CSV columns ``player1,...,banker3`` then one ``WAGER:PAYTABLE`` column per settled wager (with
    ``bet``, the amount won or lost on it, and a ``stake`` column)."""

    pairs = list(settle)
    with RecordWriter(path, fmt, record_columns(pairs, shoe=shoe, bet=bet)) as out:
        out.write(record_table(rounds, pairs, shoe=shoe, bet=bet))
    return len(rounds)
