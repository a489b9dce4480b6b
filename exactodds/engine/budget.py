"""The bound on a whole analysis's time: said before the bulk of its work, and refused past it in one line.

An analysis is a run of like units of work: the walks of a shoe after each kind of burn card (effects of
removal of a walked bet), the shoes a wager's renamings tell apart, the cards an effects table removes, the
batches of a study. Its first unit is bounded as every pricing is (a table by its estimate, before it is
built; a walk by its states), and it measures the rest: after each unit the time so far projects the
whole (from the units after the first, which carries what is made once), which is said once where the rest is long (a note: what is left, on what it was measured, and the
peak memory so far, which the first unit reaches) and refused in one line where it passes the budget, naming
what would fit. A table whose estimated build time is past what is left of the budget is refused before it is
built (:func:`check_seconds`). Loops nest (a study's batches walk shoes): each checks its own projection,
which is never more than the whole's, and only the outermost says its note.

>>> import time
>>> with bounded(1000):
...     with units("a demonstration", 4, unit="step") as u:
...         for _ in range(4):
...             u.done()
>>> with bounded(0.01, option="--max-time"):
...     with units("a demonstration", 1_000, unit="step", instead="take fewer steps", fits=True) as u:
...         for _ in range(1_000):
...             time.sleep(0.001)
...             u.done()  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
exactodds.engine.budget.OverBudget: a demonstration: 1,000 steps; ... past --max-time 0.01 s (about ... would fit): take fewer steps, or raise --max-time

Outside :func:`bounded` nothing is bounded (the Python API; the CLI bounds every long analysis by
``--max-time``, an hour by default), and nothing is said.
"""

from __future__ import annotations

import contextlib
import resource
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field

from exactodds.errors import ExactOddsError, ExactOddsWarning

__all__ = ["Budget", "OverBudget", "BudgetNote", "bounded", "units", "part_of", "check_seconds", "parse_duration", "duration",
           "NOTE_SECONDS"]

#: The rest of an analysis is said (a note on stderr from the CLI) where it would take longer than this.
NOTE_SECONDS = 10.0


class OverBudget(ExactOddsError):
    """An analysis whose projected time passes its budget: refused in one line (not a route's refusal, which the
    other route may answer: no route answers it faster)."""


class BudgetNote(ExactOddsWarning):
    """What the rest of a long analysis will take, said once (the CLI prints it as one line)."""


#: The clock every budget reads (the tests put a clock of their own here).
_clock: Callable[[], float] = time.monotonic


@dataclass
class Budget:
    """The most an analysis may take (``seconds``; None: no bound), how the user named it (``option``), and
    when it started."""

    seconds: float | None
    option: str = "max_seconds"
    started: float = field(default_factory=lambda: _clock())
    depth: int = 0
    said: bool = False
    within: tuple[str, ...] = ()

    def elapsed(self) -> float:
        return _clock() - self.started

    def left(self) -> float | None:
        return None if self.seconds is None else self.seconds - self.elapsed()


_current: ContextVar[Budget | None] = ContextVar("exactodds_budget", default=None)


@contextlib.contextmanager
def bounded(seconds: float | None, *, option: str = "max_seconds") -> Iterator[Budget]:
    """Bound the analyses run within to ``seconds`` in all (None: unbounded, but long ones still say what is
    left); ``option`` names the bound in a refusal."""
    if seconds is not None and not seconds > 0:
        raise ExactOddsError(f"{option}: a time above 0, got {seconds!r}")
    budget = Budget(seconds, option)
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


class Units:
    """A loop of ``total`` like units timed against the budget in force: :meth:`done` after each."""

    def __init__(self, what: str, total: int, *, unit: str, instead: str, fits: bool, after: int):
        self.what, self.total, self.unit, self.instead, self.fits, self.after = what, total, unit, instead, fits, after
        self.calls = 0
        self.first = (0.0, 0)
        self.budget = _current.get()
        self.outermost = False
        self.finished = 0
        self.started = _clock()

    def done(self, n: int = 1) -> None:
        """``n`` more units finished: project the rest; say it once (outermost loop), refuse it past the budget.
        The first unit carries what is made once (tables, a program), so the rest is projected from the units
        after it, and nothing is said or refused before a second has finished."""
        self.finished += n
        self.calls += 1
        budget = self.budget
        if budget is None or self.finished >= self.total:
            return
        now = _clock()
        if self.calls == 1:
            self.first = (now, self.finished)
            return
        since, before = self.first
        rest = (now - since) / (self.finished - before) * (self.total - self.finished)
        whole = now - budget.started + rest
        measured = (f"{''.join(w + ': ' for w in budget.within)}{self.what}: {self.total:,} "
                    f"{_plural(self.unit, self.total)}; {self.finished:,} took {duration(now - self.started)}")
        if budget.seconds is not None and whole > budget.seconds and self.calls >= self.after:
            way = f"{self.instead}, or raise {budget.option}" if self.instead else f"raise {budget.option}"
            fit = int(self.total * budget.seconds / whole)
            fits = f" (about {fit:,} of the {self.total:,} would fit)" if fit and self.fits else ""
            raise OverBudget(f"{measured}, so all would take about {duration(whole)}, past {budget.option} "
                             f"{duration(budget.seconds)}{fits}: {way}")
        if self.outermost and not budget.said and rest > NOTE_SECONDS and self.calls >= self.after:
            budget.said = True
            warnings.warn(BudgetNote(f"{measured}: about {duration(rest)} more (peak memory so far "
                                     f"{_peak_gb()})"), stacklevel=2)


@contextlib.contextmanager
def units(what: str, total: int, *, unit: str = "unit", instead: str = "", fits: bool = False, after: int = 1
          ) -> Iterator[Units]:
    """Time a loop of ``total`` like units of ``what`` against the budget in force (see the module);
    ``instead`` says what would fit (fewer shoes, a smaller shoe), and with ``fits`` a refusal says how many of the
    units would (where the user chooses how many: shoes). Units run side by side on ``after`` processes are said and
    refused only once that many have reported (the first reports misjudge the rest: two batches finished together
    made a study of 100,000 shoes on two workers say 'about 59 s more' of what would take 70 minutes)."""
    u = Units(what, total, unit=unit, instead=instead, fits=fits, after=after)
    budget = u.budget
    if budget is not None:
        u.outermost = budget.depth == 0
        budget.depth += 1
    try:
        yield u
    finally:
        if budget is not None:
            budget.depth -= 1


@contextlib.contextmanager
def part_of(what: str) -> Iterator[None]:
    """Work done as a part of ``what`` (a study's counts, made before its shoes): its loops are inner ones (they
    say nothing), and a refusal names ``what`` first."""
    budget = _current.get()
    if budget is None:
        yield
        return
    budget.depth += 1
    budget.within += (what,)
    try:
        yield
    finally:
        budget.depth -= 1
        budget.within = budget.within[:-1]


def check_seconds(what: str, seconds: float) -> None:
    """Refuse, before it starts, work estimated to take ``seconds`` where less of the budget is left."""
    budget = _current.get()
    left = budget.left() if budget is not None else None
    if budget is not None and left is not None and seconds > left:
        raise OverBudget(f"{what} would take about {duration(seconds)} (estimated), more than the "
                         f"{duration(max(left, 0))} left of {budget.option} {duration(budget.seconds or 0)}: "
                         f"raise {budget.option}")


def _plural(unit: str, n: int) -> str:
    if n == 1:
        return unit
    if unit.endswith("y"):
        return unit[:-1] + "ies"
    return unit + ("es" if unit.endswith(("s", "sh", "ch", "x")) else "s")


def _peak_gb() -> str:
    """The process's peak resident memory so far (Linux reports kB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return f"{peak / 1e9:.1f} GB"


_UNITS = {"s": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def parse_duration(text: str, *, option: str = "--max-time") -> float | None:
    """Seconds from ``90``, ``90s``, ``10m``, ``1.5h`` or ``2d``; ``none`` for no bound.

    >>> parse_duration("10m"), parse_duration("1.5h"), parse_duration("45"), parse_duration("none")
    (600.0, 5400.0, 45.0, None)
    """
    raw = text.strip().lower()
    if raw == "none":
        return None
    number = raw.rstrip("abcdefghijklmnopqrstuvwxyz")
    suffix = raw[len(number):] or "s"
    try:
        seconds = float(number) * _UNITS[suffix]
    except (ValueError, KeyError):
        raise ExactOddsError(f"{option} {text!r}: write a time such as 90s, 10m, 2h or 1d, or none") from None
    if not 0 < seconds < float("inf"):
        raise ExactOddsError(f"{option} {text!r}: a time above 0 (or none)")
    return seconds


def duration(seconds: float) -> str:
    """A time as a person reads it.

    >>> duration(0.25), duration(49.2), duration(150), duration(7200)
    ('0.25 s', '49 s', '2.5 min', '2.0 h')
    """
    if seconds < 10:
        return f"{seconds:.2g} s"
    if seconds < 100:
        return f"{seconds:.0f} s"
    if seconds < 6000:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
