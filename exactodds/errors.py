"""The exceptions of exactodds: bad input, counts that break an invariant, a stop asked for by a signal;
and its warnings."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

__all__ = ["ExactOddsError", "InconsistentCounts", "SuitsUnknown", "TooLarge", "ExactOddsWarning", "Interrupted", "DuplicateKey", "unique_keys",
           "read_json", "whole_number", "exact_number"]


class ExactOddsError(ValueError):
    """Bad input: the message names the bad value and where it came from.

    Raised at construction (a card, a shoe, a data file, an option), never
    half-way through a computation, so nothing is left half-written.

    >>> raise ExactOddsError("unknown card 'Zz' in --remove")
    Traceback (most recent call last):
    ...
    exactodds.errors.ExactOddsError: unknown card 'Zz' in --remove
    """


class InconsistentCounts(ExactOddsError):
    """Counts that break an invariant of the counting (they do not add up to the shoe's
    sequences): a defect, or a forged cache file, never bad input. No figure is made of
    them; the CLI prints the message as one line and exits 1."""


class SuitsUnknown(ExactOddsError):
    """A wager that reads suits asked of a shoe whose suits are unknown (cards removed by rank only)."""


class TooLarge(ExactOddsError):
    """A table or a walk refused before it grows past its limit of memory (one line saying what it
    reads and what to read instead); the other route may still price the wager."""


class ExactOddsWarning(UserWarning):
    """Something exactodds worked around (e.g. a damaged cache file, built again); the CLI prints one line."""


class Interrupted(KeyboardInterrupt):
    """SIGINT (Ctrl-C) or SIGTERM arrived; ``signum`` says which (the exit status is 128 + it)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class DuplicateKey(ExactOddsError):
    """A JSON object names one key twice: a person reads the first, a parser keeps the last."""

    def __init__(self, key: str):
        super().__init__(f"key {key!r} given twice in one object")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for ``json.loads`` that refuses a key given twice (:class:`DuplicateKey`)."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(key)
        seen[key] = value
    return seen


def read_json(path: str | Path, *, what: str = "JSON") -> Any:
    """Read a JSON file, or raise :class:`ExactOddsError` naming the file and the problem (a key given
    twice in an object is one: a person reads the first, a parser keeps the last)."""

    try:
        return json.loads(Path(path).read_text(encoding="utf-8"), object_pairs_hook=unique_keys)
    except DuplicateKey as exc:
        raise ExactOddsError(f"{path}: {exc}") from None
    except OSError as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ExactOddsError(f"{path}: not {what} ({exc})") from None
    except RecursionError:
        raise ExactOddsError(f"{path}: nested too deeply to be {what}") from None


def whole_number(value: object, where: str) -> int:
    """``value`` where it is a whole number (an ``int``; ``True`` is one to Python, never a count), else one line
    naming ``where``: what a function of the Python API is given is held to what its option takes.

    >>> whole_number(3, "--top"), whole_number(True, "--top")
    Traceback (most recent call last):
    exactodds.errors.ExactOddsError: --top must be a whole number, got True
    """
    if type(value) is not int:
        raise ExactOddsError(f"{where} must be a whole number, got {value!r}")
    return value


def exact_number(value: object, where: str) -> Fraction:
    """``value`` as a Fraction where it is exact (an ``int`` or a ``Fraction``; never a float, whose binary digits
    would enter an exact figure, nor ``True``), else one line naming ``where``.

    >>> exact_number(Fraction(1, 2), "--max-sd")
    Fraction(1, 2)
    >>> exact_number(0.1, "--max-sd")
    Traceback (most recent call last):
    exactodds.errors.ExactOddsError: --max-sd must be an exact number (an int or a Fraction), got 0.1
    """
    if type(value) is not int and not isinstance(value, Fraction):
        raise ExactOddsError(f"{where} must be an exact number (an int or a Fraction), got {value!r}")
    return Fraction(value)
