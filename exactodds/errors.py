"""The one exception type of exactodds."""

from __future__ import annotations

__all__ = ["ExactOddsError"]


class ExactOddsError(ValueError):
    """Bad input: the message names the bad value and where it came from.

    Raised at construction (a card, a shoe, a data file, an option), never
    half-way through a computation, so nothing is left half-written.

    >>> raise ExactOddsError("unknown card 'Zz' in --remove")
    Traceback (most recent call last):
    ...
    exactodds.errors.ExactOddsError: unknown card 'Zz' in --remove
    """
