"""The on-disk cache of shoe-independent tables and parsed data files: it can only make things faster.

The user names a directory — ``$EXACTODDS_CACHE_DIR`` if set (``off`` turns the
cache off), else the platform's user cache directory for exactodds
(``platformdirs.user_cache_dir``: ``$XDG_CACHE_HOME/exactodds``, else
``~/.cache/exactodds`` on Linux) — and the cache keeps its files in its own subfolder of it, ``exactodds-cache-v1``
(``SUBFOLDER``). What it guarantees:

* A file is used only if it carries the SHA-256 digest of its arrays, its kind,
  its key and the version of the code (a hash of the package version and of the
  source of every module the tables are built from, ``SOURCES``). A file that
  is damaged, edited, foreign, filed under another key, written by other code, or
  whose arrays make no table, is never used: it is removed and built again, with
  one warning (``CacheWarning``, one line from the CLI).
* Counts from a table are checked to add up to the shoe's sequences before any
  figure is made of them; where they do not, the table is discarded and the error
  is one line (``InconsistentCounts``).
* The digest is keyed (HMAC-SHA-256) with a secret of the user's own, kept
  outside the cache in ``cache.key`` in the platform's user configuration directory
  for exactodds (``platformdirs.user_config_dir``: ``$XDG_CONFIG_HOME/exactodds``,
  else ``~/.config/exactodds`` on Linux), readable by the user only and made on first
  use. So a file written into a shared cache directory by anyone without that
  key — another user, a copied cache, an edit with a recomputed plain digest — is
  never used. Where no key can be read or made, the cache is off. The key guards
  against others, not against the user's own account: ``certificate`` and
  ``verify`` never read the cache (``disabled()``); they compute every figure
  from the rules and the data files.
* It deletes only what it wrote: files named as it names them, of other code
  versions, in its own subfolder; never anything else in the directory.

Files are NumPy ``.npz`` (no pickles), written atomically (a temporary file
renamed into place); a directory that cannot be written is passed over and the
tables are built in memory.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
import re
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import numpy as np
import platformdirs

from exactodds._version import __version__
from exactodds.errors import ExactOddsWarning

__all__ = ["CacheWarning", "SUBFOLDER", "cache_dir", "code_version", "load", "save", "reject", "discard",
           "disabled", "register_memo", "forget"]

#: The cache's own folder inside the directory the user names (the layout's version in its name).
SUBFOLDER = "exactodds-cache-v1"

#: The modules whose source decides what a cached file holds.
SOURCES = ("game/rules.py", "engine/roundtable.py", "engine/columns.py", "wagers/outcomes.py",
           "engine/multiset.py", "game/cards.py", "game/shoe.py", "cache.py")

_NAME = re.compile(r"[a-z]+-[0-9a-f]{20}-(?P<version>[0-9a-f]{16})\.npz")
_DIGEST = "__digest__"


class CacheWarning(ExactOddsWarning):
    """A cache file was not used (damaged, changed or foreign): it is removed and built again."""


class _Memo(Protocol):
    def cache_clear(self) -> None: ...


_M = TypeVar("_M", bound=_Memo)

_memos: list[Callable[[], None]] = []
_off = 0                # how many disabled() blocks are open
_read = False           # whether this process has used anything read from disk since it last forgot


def cache_dir() -> Path | None:
    """The directory the user named for the cache (its files are in ``SUBFOLDER``), or None when off."""
    if _off:
        return None
    env = os.environ.get("EXACTODDS_CACHE_DIR")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "0", "none") else Path(env)
    return Path(platformdirs.user_cache_dir("exactodds", appauthor=False))


@functools.cache
def code_version() -> str:
    """A short hash of the package version and of the source of ``SOURCES``."""

    h = hashlib.sha256(__version__.encode())
    package = Path(__file__).parent
    for name in SOURCES:
        h.update(name.encode() + b"\0" + (package / name).read_bytes())
    return h.hexdigest()[:16]


def _path(kind: str, key: str) -> Path | None:
    directory = cache_dir()
    if directory is None or _secret() is None:
        return None
    digest = hashlib.sha256(key.encode()).hexdigest()[:20]
    return directory / SUBFOLDER / f"{kind}-{digest}-{code_version()}.npz"


@functools.cache
def _secret() -> bytes | None:
    """The user's own key for the cache's digests (made on first use, readable by the user only), or None."""
    path = Path(platformdirs.user_config_dir("exactodds", appauthor=False)) / "cache.key"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(os.urandom(32))
            data = path.read_bytes()
        except OSError:                  # made by another process meanwhile, or nowhere to keep it
            try:
                data = path.read_bytes()
            except OSError:
                return None
    except OSError:
        return None
    return data if len(data) == 32 else None


def _digest(kind: str, key: str, arrays: dict[str, np.ndarray]) -> str:
    """HMAC-SHA-256, under the user's key, of the arrays (names, types, shapes, bytes), bound to their kind,
    key and code version."""
    secret = _secret()
    assert secret is not None                    # _path() is None, so nothing is read or written, without it
    h = hmac.new(secret, f"{SUBFOLDER}\0{code_version()}\0{kind}\0{key}\0".encode(), hashlib.sha256)
    for name in sorted(arrays):
        a = np.asarray(arrays[name])
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(np.ascontiguousarray(a).data)
    return h.hexdigest()


def load(kind: str, key: str) -> dict[str, np.ndarray] | None:
    """The arrays saved under (kind, key) by this version of the code, or None.

    A file that cannot be read or does not match its digest is never returned:
    it is removed, with a ``CacheWarning``, and the caller builds it again.
    """
    global _read
    path = _path(kind, key)
    if path is None or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except Exception:          # not an .npz of arrays: damaged, cut short or foreign
        _reject(path, "cannot be read")
        return None
    stated = arrays.pop(_DIGEST, None)
    if stated is None or stated.shape != () or not hmac.compare_digest(str(stated), _digest(kind, key, arrays)):
        _reject(path, "does not match its digest")
        return None
    _read = True
    return arrays


def save(kind: str, key: str, arrays: dict[str, np.ndarray]) -> None:
    """Save arrays under (kind, key) with their digest; any failure leaves the cache as it was."""
    path = _path(kind, key)
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **cast(dict[str, Any], {_DIGEST: np.array(_digest(kind, key, arrays)), **arrays}))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        _prune(path.parent)
    except OSError:
        return


def reject(kind: str, key: str, problem: str) -> None:
    """Remove the file under (kind, key), whose content its reader found wrong, with a ``CacheWarning``."""
    path = _path(kind, key)
    if path is not None:
        _reject(path, problem)


def _reject(path: Path, problem: str) -> None:
    warnings.warn(f"the cache file {path} {problem}: not used, built again", CacheWarning, stacklevel=3)
    with contextlib.suppress(OSError):
        path.unlink()


def discard(kind: str, key: str) -> None:
    """Remove the file under (kind, key), found wrong after use, and ``forget()`` what this process holds."""
    path = _path(kind, key)
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()
    forget()


@functools.cache
def _prune(directory: Path) -> None:
    """Remove the cache's files of other code versions from its subfolder (once per process): never read again."""
    current = code_version()
    for old in directory.iterdir():
        match = _NAME.fullmatch(old.name)
        if match and match["version"] != current:
            with contextlib.suppress(OSError):
                old.unlink()


def register_memo(memo: _M) -> _M:
    """Register an in-process cache (``functools.cache``) that may hold what was read from disk:
    ``forget()`` clears it."""
    _memos.append(memo.cache_clear)
    return memo


def forget() -> None:
    """Clear every registered in-process cache: what they held is computed again when next asked for."""
    global _read
    for clear in _memos:
        clear()
    _read = False


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """The disk cache off for the whole process (nothing read or written), and nothing read from it
    earlier used: the registered in-process caches are cleared first if they may hold it.

    ``verify`` recomputes within it. Also a decorator.

    >>> from exactodds import Shoe, analyze
    >>> with disabled():
    ...     (banker,) = analyze(Shoe.decks(8), wagers=["banker"], paytables=["standard"])
    ...     cache_dir() is None
    True
    >>> f"{float(banker.house_edge):.4%}"          # the published Banker edge, 8 decks
    '1.0579%'
    """
    global _off
    if _read:
        forget()
    _off += 1
    try:
        yield
    finally:
        _off -= 1
