"""A validation data file: a fixed set of rounds, each with the settlement the certified mathematics
gives it, for a game developer to feed to the game's software and compare (``check-sim --validation``).

Two parts, in this order:

* **Every outcome, rare ones included.** For every certified wager and paytable, one round of each
  outcome it offers that the shoe can deal (a Royal Match of kings and queens, six cards of one suit,
  a three-card 7 that wins): found by a seeded search over rounds dealt by the rules of §627a.10
  from small sets of card identities (one to six identities a round, so that suits, colours and
  ranks repeat as the rare outcomes need), in batches, until every outcome has its round.
* **Every value-level round class.** One round of each value code (the point value of each of the
  six card slots, or none: :mod:`exactodds.simulation.roundclasses`) the drawing rules can deal:
  every decision of §627a.10 and Table 1, each Player and Banker total, each count of cards.

Every round can come out of the shoe certified (of several, out of each): no card identity more
often than the shoe holds it. The same selection and shoes give the same file, byte for byte.

A file whose wagers a user's data file defines carries that file, exactly as read, with its SHA-256,
in its note (:func:`exactodds.simulation.recordio.read_note`: the lines beginning ``#`` before a CSV's
header, or Parquet's metadata), so that ``check-sim FILE --validation`` needs nothing else
(:func:`carried_by`); a file changed since is refused by its digest.

>>> from exactodds.wagers import load_catalogue
>>> from exactodds.game.shoe import Shoe
>>> cat = load_catalogue()
>>> v = validation_rounds([(cat["dragon-7-insurance"], cat["dragon-7-insurance"].paytable("standard"))],
...                       [Shoe.decks(8)])
>>> v.classes, len(v.player) - v.classes
(339400, 1)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from exactodds._version import __version__
from exactodds.analyses.door import Door
from exactodds.errors import ExactOddsError
from exactodds.files import Outputs
from exactodds.game.cards import Card
from exactodds.game.shoe import Shoe
from exactodds.simulation.recordio import CARD_COLUMNS, RecordWriter, read_note
from exactodds.simulation.roundclasses import _dealable, decode_values, settle_grouped
from exactodds.simulation.rounds import POINTS, deal_from
from exactodds.simulation.simulate import SimulatedRounds, record_table
from exactodds.wagers.catalogue import MAX_FILE_BYTES

__all__ = ["ValidationRounds", "validation_rounds", "write_validation", "SEARCH_BATCHES", "files_note", "carried_files",
           "carried_by"]

#: The search for rare outcomes: batches of this many rounds, at most this many batches.
SEARCH_ROUNDS = 100_000
SEARCH_BATCHES = 40
#: Sizes of the sets of card identities a searched round is dealt from (one: six copies of one card).
_ALPHABETS = (1, 2, 3, 4, 6, 13)


@dataclass(frozen=True)
class ValidationRounds:
    """The rounds of a validation file: ``player``/``banker`` ``(n, 3)`` card indices (-1 no third card);
    the first ``len - classes`` rounds hit the outcomes (``hits``: wager:paytable -> outcome -> round),
    the last ``classes`` are one per value-level round class."""

    player: np.ndarray
    banker: np.ndarray
    classes: int
    hits: dict[str, dict[str, int]]
    impossible: tuple[str, ...]          # wager:paytable outcome the shoe cannot deal (its chance is 0)
    not_dealable: int                    # value-level classes the shoe cannot deal (too few of a value)
    not_found: tuple[str, ...] = ()      # outcomes the shoe can deal that the search found no round of


def _floor(shoes: Sequence[Shoe]) -> Shoe:
    """The cards every one of ``shoes`` holds: a round that comes out of it comes out of each."""
    if all(s.card_counts is not None for s in shoes):    # the least of each card; its ranks are its cards'
        least: dict[Card | str, int] = {Card.from_index(i): min(s.card_counts[i] for s in shoes)  # type: ignore[index]
                                        for i in range(52)}
        return Shoe.from_card_counts(least, label="the cards every certified shoe holds")
    ranks = tuple(min(s.rank_counts[r] for s in shoes) for r in range(13))
    return Shoe(ranks, None, "the cards every certified shoe holds")


def _units(shoe: Shoe) -> tuple[np.ndarray, np.ndarray]:
    """What a shoe limits: per card index its unit (the identity, or the rank in a shoe of unknown suits),
    and each unit's count."""
    if shoe.card_counts is not None:
        return np.arange(52), np.array(shoe.card_counts)
    return np.arange(52) // 4, np.array(shoe.rank_counts)


def _fits(cards: np.ndarray, shoe: Shoe) -> np.ndarray:
    """Per row of ``cards`` ((n, 6), -1 none): does no identity (or rank, in a shoe of unknown suits)
    come more often than ``shoe`` holds it?"""
    unit, limits = _units(shoe)
    used = np.zeros((len(cards), len(limits) + 1), dtype=np.int16)
    for k in range(cards.shape[1]):
        np.add.at(used, (np.arange(len(cards)), np.where(cards[:, k] >= 0, unit[cards[:, k]], len(limits))), 1)
    return np.asarray((used[:, :-1] <= limits).all(axis=1))


def _class_rounds(shoe: Shoe) -> tuple[np.ndarray, int]:
    """One round ``(n, 6)`` of each value-level class the drawing rules deal and ``shoe`` holds, and how
    many classes it cannot hold. A class's round is :func:`decode_values`'s where that fits the shoe;
    otherwise its cards are taken slot by slot, each the same card where the shoe still holds one, else
    the card of its value the shoe holds most of (a one-deck shoe has one 5♠)."""
    rounds = decode_values(np.flatnonzero(_dealable())).astype(np.int16)
    bad = np.flatnonzero(~_fits(rounds, shoe))
    unit, limits = _units(shoe)
    left = np.tile(limits, (len(bad), 1)).astype(np.int64)
    rows = np.arange(len(bad))
    ok = np.ones(len(bad), dtype=bool)
    for slot in range(6):
        card = rounds[bad, slot].astype(np.int64)
        present = card >= 0
        value = POINTS[np.maximum(card, 0)]
        have = left[:, unit]                                              # (rows, 52): what each card has left
        other = np.argmax(np.where(POINTS[None, :] == value[:, None], have, -1), axis=1)
        card = np.where(~present | (have[rows, np.maximum(card, 0)] > 0), card, other)
        ok &= ~present | (have[rows, np.maximum(card, 0)] > 0)
        np.subtract.at(left, (rows[present], unit[card[present]]), 1)
        rounds[bad, slot] = card
    keep = np.ones(len(rounds), dtype=bool)
    keep[bad[~ok]] = False
    return rounds[keep], int((~ok).sum())


def _search_batch(rng: np.random.Generator, shoe: Shoe) -> np.ndarray:
    """Rounds ``(n, 6)`` dealt by the rules from six cards drawn, each round, from a small random set of
    identities, all of one suit, of one colour, of one point value, or of any (so that a one-deck shoe,
    which holds each identity once, still deals six cards of a suit or four nines); only those the shoe
    holds."""
    n = SEARCH_ROUNDS
    size = rng.choice(_ALPHABETS, size=n)
    suit = np.arange(52) % 4
    group = rng.integers(0, 4, size=n)[:, None]         # 0 any card, 1 one suit, 2 one colour, 3 one value
    chosen = rng.integers(0, 10, size=n)[:, None]
    red = np.isin(suit, (1, 2))
    outside = np.select([group == 1, group == 2, group == 3],
                        [suit != chosen % 4, red != (chosen % 2 == 1), POINTS != chosen], False)
    alphabet = np.argsort(rng.random((n, 52)) + outside, axis=1)[:, :max(_ALPHABETS)]   # the group's first
    pick = (rng.random((n, 6)) * size[:, None]).astype(np.int64)
    sequence = np.take_along_axis(alphabet, pick, axis=1)
    player, banker = deal_from(sequence)
    cards = np.concatenate([player, banker], axis=1).astype(np.int16)
    return cards[_fits(cards, shoe)]


def _assign(pairs: Sequence[tuple[Any, Any]], cards: np.ndarray) -> list[np.ndarray]:
    """Per pair, the outcome index each round is paid as (-1 a loss)."""
    return [a for _, a in settle_grouped(list(pairs), cards[:, :3], cards[:, 3:])]


def validation_rounds(pairs: Sequence[tuple[Any, Any]], shoes: Sequence[Shoe], *, seed: int = 627) -> ValidationRounds:
    """The rounds of a validation file for ``pairs`` (wager, paytable) certified on ``shoes``."""
    if not pairs or not shoes:
        raise ExactOddsError("a validation file needs at least one wager and one shoe")
    floor = _floor(shoes)
    door = Door(floor)
    wanted: dict[tuple[int, int], str] = {}              # (pair, outcome index) -> "wager:paytable outcome"
    impossible: list[str] = []
    for j, (w, t) in enumerate(pairs):
        combos = {ln.id: ln.combinations for ln in door.price(w, t).lines}
        for k, o in enumerate(w.outcomes):
            if t.pays[o.id].offered:
                if combos.get(o.id, 0) > 0:
                    wanted[j, k] = o.id
                else:
                    impossible.append(f"{w.id}:{t.id} {o.id}")
    classes, not_dealable = _class_rounds(floor)
    found: dict[tuple[int, int], np.ndarray] = {}
    for j, assigned in enumerate(_assign(pairs, classes)):  # the classes hit most outcomes already
        for k in np.unique(assigned[assigned >= 0]).tolist():
            if (j, k) in wanted:
                found[j, k] = classes[int(np.argmax(assigned == k))]
    rng = np.random.default_rng(seed)
    for _ in range(SEARCH_BATCHES):
        missing = [key for key in wanted if key not in found]
        if not missing:
            break
        batch = _search_batch(rng, floor)
        need = sorted({j for j, _ in missing})
        for j, assigned in zip(need, _assign([pairs[j] for j in need], batch)):
            for k in [k for jj, k in missing if jj == j]:
                hit = np.flatnonzero(assigned == k)
                if len(hit):
                    found[j, k] = batch[hit[0]]
    not_found = tuple(f"{pairs[j][0].id}:{pairs[j][1].id} {wanted[j, k]}" for j, k in wanted if (j, k) not in found)
    targeted: list[np.ndarray] = []
    hits: dict[str, dict[str, int]] = {}
    where: dict[bytes, int] = {}
    for (j, k) in sorted(found):                         # one round per outcome; shared where one serves two
        row = found[j, k]
        place = where.setdefault(row.tobytes(), len(targeted))
        if place == len(targeted):
            targeted.append(row)
        hits.setdefault(f"{pairs[j][0].id}:{pairs[j][1].id}", {})[wanted[j, k]] = place
    cards = np.concatenate([np.array(targeted, dtype=np.int16).reshape(-1, 6), classes])
    return ValidationRounds(cards[:, :3], cards[:, 3:], len(classes), hits, tuple(impossible), not_dealable,
                            not_found)


def write_validation(rounds: ValidationRounds, pairs: Sequence[tuple[Any, Any]], path: str, fmt: str, *,
                     outputs: Outputs | None = None, files: Sequence[tuple[str, str]] = ()) -> int:
    """Write ``rounds`` with every pair's settlement in the check-sim schema (atomically; with ``outputs``, as one
    of that group of files, all written or none); the rounds written. ``files``: users' data files (name, text)
    that define wagers of ``pairs``, carried in the file (:func:`files_note`). An error names ``--validation``."""
    columns = [*CARD_COLUMNS, *(f"{w.id}:{t.id}" for w, t in pairs)]
    table = record_table(SimulatedRounds(rounds.player, rounds.banker, np.zeros(len(rounds.player), dtype=np.int64),
                                         "validation"), list(pairs))
    with RecordWriter(path, fmt, columns, option="--validation", outputs=outputs, note=files_note(files)) as out:
        out.write(table)
    return len(rounds.player)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def files_note(files: Sequence[tuple[str, str]]) -> str | None:
    """The note of a validation file carrying users' data files (name, text): a line ``file sha256=HEX lines=N
    name=NAME`` before each file, then each of its lines after a ``|``, exactly; None without files.

    >>> note = files_note([("mine.toml", "[[wager]]\\nid = 'x'\\n")])
    >>> note.splitlines()[3:]
    ['|[[wager]]', "|id = 'x'", '|']
    >>> carried_files(note, "v.csv")
    [('mine.toml', "[[wager]]\\nid = 'x'\\n")]
    """
    if not files:
        return None
    out = [f"exactodds {__version__} validation file. It carries the data files that define its wagers: each one "
           "exactly as read",
           "(a '|' before each of its lines) after a line naming it with its SHA-256. 'check-sim FILE --validation' "
           "reads them from here."]
    for name, text in files:
        lines = text.split("\n")
        out += [f"file sha256={_sha256(text)} lines={len(lines)} name={name}", *("|" + line for line in lines)]
    return "\n".join(out)


#: A note's line naming a carried file.
_FILE_LINE = re.compile(r"file sha256=([0-9a-f]{64}) lines=([1-9][0-9]{0,8}) name=(.{1,255})")


def carried_files(note: str, where: str) -> list[tuple[str, str]]:
    """The data files (name, text) a validation file's note carries, each checked against its SHA-256; other
    lines of the note are words. ``where`` names the file in an error."""
    lines = note.split("\n")
    files: list[tuple[str, str]] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        k += 1
        if line.startswith("|"):
            raise ExactOddsError(f"{where}: its note has a data file's line ('|') with no 'file' line before it")
        if not line.startswith("file "):
            continue
        head = _FILE_LINE.fullmatch(line)
        if head is None:
            raise ExactOddsError(f"{where}: its note's line {line[:80]!r} is not 'file sha256=HEX lines=N name=NAME'")
        digest, count, name = head[1], int(head[2]), head[3]
        if not name.isprintable():                                        # a name shown in messages
            raise ExactOddsError(f"{where}: its note names a carried file {name!r}, which is not printable text")
        body = lines[k:k + count]
        k += count
        if len(body) < count or not all(b.startswith("|") for b in body):
            raise ExactOddsError(f"{where}: its note carries {name!r} in {count:,} lines, but fewer follow its "
                                 "'file' line: the file was cut or changed")
        text = "\n".join(b[1:] for b in body)
        if len(text.encode("utf-8")) > MAX_FILE_BYTES or _sha256(text) != digest:
            raise ExactOddsError(f"{where}: the data file {name!r} it carries is not the one its SHA-256 "
                                 f"{digest[:16]}… names (now {_sha256(text)[:16]}…): it was changed; make the file "
                                 "again with 'certificate --validation'")
        files.append((name, text))
    return files


def carried_by(path: str, *, fmt: str | None = None, given: Sequence[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    """The data files (name, text) the records file at ``path`` carries (:func:`carried_files`; none from standard
    input), which its wagers are read from in place of ``given`` (``--paytables``: path, text). A file of the
    catalogue's wagers, or one written before files were carried, carries none: ``given`` then serve. Files given
    that are not the ones it carries (by SHA-256) are refused, naming both."""
    note = read_note(path, fmt=fmt) if path != "-" else None
    carried = carried_files(note, path) if note is not None else []
    if carried and given:
        mine = {_sha256(text): name for name, text in carried}
        theirs = {_sha256(text): name for name, text in given}
        if mine.keys() != theirs.keys():
            shown = ", ".join(f"{n} (SHA-256 {d[:16]}…)" for d, n in mine.items())
            extra = [(d, n) for d, n in theirs.items() if d not in mine]
            if extra:
                raise ExactOddsError(f"--paytables {extra[0][1]} (SHA-256 {extra[0][0][:16]}…) is not a data file "
                                     f"{path} carries: it carries {shown}; leave --paytables out (the file stands "
                                     "alone) or give the files it was made with")
            lacking = next((d, n) for d, n in mine.items() if d not in theirs)
            raise ExactOddsError(f"{path} carries {lacking[1]} (SHA-256 {lacking[0][:16]}…), which --paytables "
                                 f"{' '.join(theirs.values())} does not give; leave --paytables out (the file stands "
                                 "alone) or give the files it was made with")
    return carried
