"""How large a table may grow: every exact table is sized before it is built, and refused in one line if too large.

A user's condition may read any features together, and some sets of features
make tables far beyond any machine: the suits of all six cards, tabulated per
position, are 1,284,505,600 rows (hundreds of GB). So before any table is
built its size is estimated from the same quantities its builder enumerates,
and a table estimated above ``LIMIT_BYTES`` is refused with an
``ExactOddsError`` that gives the estimate and what to
read instead; nothing is allocated and the process is never killed.

The three kinds of table (see ``exactodds.analyses.pricing.table_signature``):

- **multiset** tables (``exactodds.engine.multiset``). The compiler merges the
  value-level rounds that read alike (at most the 339,400 rounds of the round
  table) and then *refines* every position read for its rank into the ranks of
  its value class (1 per value but 4 for value 0: 10, J, Q, K), and the
  positions read for their suits into suit *patterns* (which positions share a
  suit, and which named suit: 5 patterns for three cards when no suit is named,
  up to 64 when all four are). The rows it builds,
  its *leaves*, are the merged groups times those atoms, counted exactly
  before refining; it holds about ``BYTES_PER_LEAF`` bytes per leaf at its
  peak and takes about ``SECONDS_PER_LEAF`` per leaf, plus the keys
  (at most the leaves, and at most the combinations the features' values allow)
  as Python tuples;
- **round** tables (features of every card dealt): the value-level multiset
  table, whose keys are each split into the 6 identity categories;
- **initial** tables (the four initial cards' identities): one key per pair of
  (Player, Banker) attribute classes, at most 48 × 48.

>>> from exactodds.engine.multiset import estimate
>>> e = estimate(("player", "banker", "player_cards", "banker_cards",       # the catalogue's third-card suits
...               "player_value_3", "banker_value_3", "player_suit_3", "banker_suit_3"))
>>> e.rows, e.fits
(1430924, True)
>>> six = [f"{hand}_suit_{k}" for hand in ("player", "banker") for k in "123"]
>>> estimate(six, told="shdc").rows                   # compared only: patterns
58781400
>>> print(estimate(six).refusal())                    # every suit told apart
reads the suits of 6 card positions (player_1, player_2, player_3, banker_1, banker_2, banker_3): about 1,284,505,600 rows, 308 GB to compile (limit 2.0 GB); read same_suit or same_colour (every card), player_suited or banker_suited (a hand's first two cards) instead, or the suits of fewer positions

The limit keeps a compile below about 2 GB, which a 24 GB machine shared by
several processes can always give. A suited Dragon 7 written card by card
(the Banker's three suits with the totals) is 602,260 leaves by pattern
(7.6 million, 1.8 GB, when every suit was told apart); the heaviest example,
three red sevens for the Banker (red and black told apart), 2.4 million. The
estimate is checked against the measured peak in the tests (within a factor
of 3).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from exactodds.engine import budget
from exactodds.engine import tens as ten_valued
from exactodds.errors import ExactOddsError, TooLarge
from exactodds.wagers.outcomes import INITIAL_FEATURES, SLOTS

__all__ = ["Estimate", "LIMIT_BYTES", "BYTES_PER_LEAF", "SECONDS_PER_LEAF", "multiset_estimate", "round_estimate",
           "initial_estimate", "check"]

#: The most a table may take to build, in bytes (estimated); a larger one is refused before it is built.
LIMIT_BYTES = 2_000_000_000
#: Peak bytes of a multiset compile per leaf: its leaves' values, ranks, suits, atoms and factor
#: indices, their sort and the columns of the features (measured 200-225 on tables of 2-17 million leaves).
BYTES_PER_LEAF = 240
#: Bytes per value-level group the compile merges before refining (values, columns, codes).
BYTES_PER_GROUP = 100
#: Seconds per leaf of a multiset compile (measured 1.3-2 µs on one core).
SECONDS_PER_LEAF = 2e-6
#: Bytes of one key held as a Python tuple (the tuple, its pointers, a column entry), per feature.
BYTES_PER_KEY = 64
BYTES_PER_KEY_FEATURE = 16
#: Bytes of one key of an initial-card table (its tuple and its row of named features).
BYTES_PER_INITIAL_KEY = 2_000
#: Identity categories of every card dealt (``exactodds.engine.identity.ALL_CARD_CATEGORIES``).
_CATEGORIES = 6

_ATTRIBUTES = {"rank": "ranks", "colour": "colours", "suit": "suits", "card": "ranks and suits"}


@dataclass(frozen=True)
class Estimate:
    """The estimated size of one table: rows built, bytes at the peak, seconds; what it reads and
    what to read instead."""

    rows: int
    bytes: int
    seconds: float
    reads: str
    instead: str

    @property
    def fits(self) -> bool:
        return self.bytes <= LIMIT_BYTES

    def refusal(self) -> str:
        """The one line that refuses the table."""
        return (f"reads {self.reads}: about {self.rows:,} rows, {_gb(self.bytes)} to compile "
                f"(limit {_gb(LIMIT_BYTES)}); {self.instead}")


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB" if n < 1e11 else f"{n / 1e9:,.0f} GB"


def check(estimate: Estimate) -> None:
    """Refuse a table estimated above ``LIMIT_BYTES``, or to take longer than is left of the time budget in force
    (:mod:`exactodds.engine.budget`): one line, before anything is built."""
    if not estimate.fits:
        raise TooLarge(estimate.refusal())
    budget.check_seconds(f"compiling the table that reads {estimate.reads}", estimate.seconds)


def multiset_estimate(names: Iterable[str], *, resolution: str, slots: Iterable[int], leaves: int,
                      keys: int, groups: int = 0, tens: str | None = None) -> Estimate:
    """A multiset table of ``names`` refining ``slots`` at ``resolution`` into ``leaves`` rows
    (counted by the compiler before refining), with at most ``keys`` keys; ``tens``: the split of the
    ten-valued ranks a table of ranks reads them by, where it is coarser than every rank."""
    names = tuple(names)
    slots = tuple(slots)
    size = leaves * BYTES_PER_LEAF + groups * BYTES_PER_GROUP + min(keys, leaves) * (
        BYTES_PER_KEY + BYTES_PER_KEY_FEATURE * len(names))
    if resolution == "value":
        return Estimate(leaves, size, leaves * SECONDS_PER_LEAF, "point values only", "")
    positions = ", ".join(SLOTS[s] for s in slots)
    reads = f"the {_ATTRIBUTES[resolution]} of {len(slots)} card position{'s' * (len(slots) != 1)} ({positions})"
    if tens is not None:
        reads += f", the ten-valued ones told apart only as {ten_valued.shown(tens)}"
    others = [n for n in names if n not in _IDENTITY]
    initial = [n for n in names if n in INITIAL_FEATURES]
    if others:
        reads += " with " + ", ".join(others)
    if initial and others:
        instead = (f"read {', '.join(initial)} apart from the round's totals and third cards (the initial cards "
                   "alone are counted by hand attributes), or price such wagers separately")
    elif "same_colour" in others and resolution == "card":
        instead = ("beside same_colour, read single cards' suits or point values (player_value_1 ...), not their "
                   "ranks, or price such wagers separately")
    elif resolution in ("suit", "colour"):
        instead = ("read same_suit or same_colour (every card), player_suited or banker_suited (a hand's first "
                   f"two cards) instead, or the {_ATTRIBUTES[resolution]} of fewer positions")
    elif resolution == "rank":
        instead = "read point values (player_value_1 ...) where they suffice, or the ranks of fewer positions"
    else:
        instead = "read ranks or suits, not both, of fewer positions, or price such wagers separately"
    return Estimate(leaves, size, leaves * SECONDS_PER_LEAF, reads, instead)


def round_estimate(names: Iterable[str], *, keys: int) -> Estimate:
    """A table of every card dealt: the value-level table of ``names`` (``keys`` keys), each key
    split into the identity categories."""
    names = tuple(names)
    rows = keys * _CATEGORIES
    size = rows * (BYTES_PER_KEY + BYTES_PER_KEY_FEATURE * (len(names) + 3))
    return Estimate(rows, size, rows * SECONDS_PER_LEAF, f"every card dealt with {', '.join(names)}",
                    "read fewer point-value features beside same_suit, same_colour or same_rank")


def initial_estimate(player_classes: int, banker_classes: int) -> Estimate:
    """A table of the four initial cards: one key per (Player class, Banker class), each counted
    over the 2,704 ordered pairs of cards."""
    rows = player_classes * banker_classes
    size = rows * BYTES_PER_INITIAL_KEY + banker_classes * 2_704 * 8 * 16
    return Estimate(rows, size, rows * SECONDS_PER_LEAF, "the attributes of the four initial cards",
                    "read fewer attributes of the initial cards")


_IDENTITY = frozenset(INITIAL_FEATURES) | frozenset(f"{h}_{a}_{k}" for h in ("player", "banker")
                                                    for a in ("rank", "suit") for k in "123")
