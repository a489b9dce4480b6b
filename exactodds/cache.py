"""A versioned on-disk cache of the shoe-independent tables, so a cold process need not rebuild them.

Tables are saved as NumPy ``.npz`` files (no pickles) under

* ``$EXACTODDS_CACHE_DIR`` if set (``off`` turns the cache off), else
* ``$XDG_CACHE_HOME/exactodds``, else ``~/.cache/exactodds``.

Each file's name carries a hash of the source of every module the tables are
built from (the drawing rules, the round table, the feature columns and the
multiset compiler) and of the package version, so a change of rules or code
never reads an old table: it is rebuilt, and the tables of other code versions
are removed when a new one is saved. The cache
is only an optimisation: a directory that cannot be written, or a file that
cannot be read, is passed over silently and the table is built in memory.
Files are written atomically (a temporary file renamed into place).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path
from typing import Any, cast

import numpy as np

__all__ = ["cache_dir", "code_version", "load", "save"]

#: The modules whose source decides what a compiled table holds.
SOURCES = ("rules.py", "roundtable.py", "columns.py", "outcomes.py", "multiset.py", "cards.py", "shoe.py")


def cache_dir() -> Path | None:
    """Where tables are kept, or None when the cache is off."""
    env = os.environ.get("EXACTODDS_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "exactodds"


@functools.cache
def code_version() -> str:
    """A short hash of the package version and of the source of :data:`SOURCES`."""
    from . import __version__

    h = hashlib.sha256(__version__.encode())
    package = Path(__file__).parent
    for name in SOURCES:
        h.update(name.encode() + b"\0" + (package / name).read_bytes())
    return h.hexdigest()[:16]


def _path(kind: str, key: str) -> Path | None:
    directory = cache_dir()
    if directory is None:
        return None
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    return directory / f"{kind}-{digest}-{code_version()}.npz"


def load(kind: str, key: str) -> dict[str, np.ndarray] | None:
    """The arrays saved under (kind, key) by this version of the code, or None."""
    path = _path(kind, key)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except Exception:          # a damaged or foreign file: rebuild, and the next save replaces it
        return None
    if str(arrays.get("__key__", "")) != key:
        return None
    return arrays


def save(kind: str, key: str, arrays: dict[str, np.ndarray]) -> None:
    """Save arrays under (kind, key); any failure leaves the cache as it was."""
    path = _path(kind, key)
    if path is None:
        return
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **cast(dict[str, Any], {"__key__": np.array(key), **arrays}))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        _prune(path.parent)
    except OSError:
        return


@functools.cache
def _prune(directory: Path) -> None:
    """Remove the tables of other versions of the code (once per process): they are never read again."""
    current = f"-{code_version()}.npz"
    for old in directory.glob("*-*-*.npz"):
        if not old.name.endswith(current) and len(old.name.rsplit("-", 1)[-1]) == len(current) - 1:
            try:
                old.unlink()
            except OSError:
                pass
