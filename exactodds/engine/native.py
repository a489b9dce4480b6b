"""The engine's compiled kernels (``exactodds/engine/_core.c``), or the pure route: one door.

The extension is built by ``pip install .`` where a C compiler is present. It is used unless
it is missing or the environment variable :data:`PURE_VARIABLE` (``EXACTODDS_PURE``) is set to
anything but ``0`` or nothing; either way every command gives the same exact numbers, the pure
route being NumPy and Python integers. Nothing above the engine imports the extension: the
engine's modules ask :func:`kernels` each time they count, so a test can switch it off with
:func:`pure`.

>>> status() in ("compiled", "switched off (EXACTODDS_PURE)") or status().startswith("not built")
True
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from types import ModuleType

__all__ = ["PURE_VARIABLE", "kernels", "status", "pure"]

#: Set to anything but ``0`` (or nothing), the engine counts by the pure route.
PURE_VARIABLE = "EXACTODDS_PURE"


def _load() -> tuple[ModuleType | None, str]:
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return None, f"switched off ({PURE_VARIABLE})"
    try:
        # here, not at the top: the extension may be absent (no compiler at install), the pure route then counts
        from exactodds.engine import _core
    except ImportError as exc:
        return None, f"not built ({exc})"
    return _core, "compiled"


_CORE, _STATUS = _load()
_forced_pure = 0


def kernels() -> ModuleType | None:
    """The compiled kernels, or None where the pure route counts."""
    return None if _forced_pure else _CORE


def status() -> str:
    """Which route counts, in words: ``compiled``, or why not."""
    return "switched off (pure())" if _forced_pure and _CORE is not None else _STATUS


@contextlib.contextmanager
def pure() -> Iterator[None]:
    """Count by the pure route inside the ``with`` block (for tests that hold the routes together)."""
    global _forced_pure
    _forced_pure += 1
    try:
        yield
    finally:
        _forced_pure -= 1
