"""Writing output files safely: whole or not at all, together or not at all, never over a device or through a link.

Every file exactodds writes goes to a temporary file beside its target and is
renamed into place when complete, so a reader never sees half a file and an
error, Ctrl-C or SIGTERM leaves the old file (or nothing) behind. Files that
belong together (a certificate and its validation file, a folder of tables) are
renamed into place together, once every one of them is complete: all or none.
``--output`` must name a regular file or a new one: a directory, a device such
as ``/dev/null`` or a pipe is refused (replacing a device node with a file, as
root, is how things break), and so is a symbolic link (``d.toml → victim.txt``
would replace the file it points to; ``keygen`` refuses one too): name the file
itself. An existing file keeps its permissions. An error names the option and
the file it was writing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from exactodds.errors import ExactOddsError, Interrupted

__all__ = ["check_output", "write_atomically", "write_all_or_nothing", "Outputs", "cleanup_on_signals",
           "signals_held", "remove_all", "temporary_folder", "mode_for", "cannot_write"]


def check_output(path: str | os.PathLike[str], *, option: str = "--output") -> Path:
    """The file to write for ``path``, or a one-line error naming ``option``: a directory, a device, a pipe
    or a symbolic link is refused (a link's target is never written: it may be any file of the user's)."""
    p = Path(path)
    if p.is_symlink():
        raise ExactOddsError(f"{option} {path}: a symbolic link (to {os.readlink(p)}); exactodds writes no file "
                             "through a link: name the file itself")
    try:
        st = p.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise cannot_write(option, path, exc) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise ExactOddsError(f"{option} {path}: is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise ExactOddsError(f"{option} {path}: not a regular file (a device or a pipe); write to a file")
        if not os.access(p, os.W_OK):
            raise ExactOddsError(f"{option} {path}: not writable")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ExactOddsError(f"{option} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ExactOddsError(f"{option} {path}: not writable (directory {parent})")
    return p


def cannot_write(option: str, path: str | os.PathLike[str], exc: OSError) -> ExactOddsError:
    """The one-line error of a write to ``path`` (given as ``option``) that failed: a full disk, a folder where no
    file can be made."""
    reason = os.strerror(exc.errno) if exc.errno else exc.strerror or exc     # pyarrow's strerror is a paragraph
    return ExactOddsError(f"{option} {path}: cannot write ({reason})")


def mode_for(target: Path) -> int:
    """The permissions a file written over ``target`` takes: the existing file's, else a new file's."""
    try:
        return target.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


class _Hold(threading.local):
    """How deep the current thread is in :func:`signals_held`, and a signal that waits for the end."""

    depth = 0
    pending: int | None = None


_hold = _Hold()


@contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while a temporary file or folder is made and recorded, renamed or removed:
    under :func:`cleanup_on_signals` a signal that arrives meanwhile is acted on when the hold ends, so
    there is no moment when a file exists that the cleanup does not know of."""
    _hold.depth += 1
    try:
        yield
    finally:
        _hold.depth -= 1
        if not _hold.depth and _hold.pending is not None:
            signum, _hold.pending = _hold.pending, None
            signal.raise_signal(signum)              # to whichever handler is installed now


def remove_all(paths: list[str]) -> None:
    """Remove ``paths``, innermost first: files, and folders left empty (a folder still holding
    something stays); what is already gone is skipped. Signals wait until it is done."""
    with signals_held():
        for p in paths:
            try:
                if os.path.isdir(p) and not os.path.islink(p):
                    os.rmdir(p)
                else:
                    os.unlink(p)
            except OSError:                          # gone already, or a folder that is not empty
                pass


@contextmanager
def cleanup_on_signals(paths: list[str]) -> Iterator[None]:
    """Remove ``paths`` (temporary files, and folders made for them, innermost first) if SIGINT or
    SIGTERM arrives, then stop as Ctrl-C does (raising :class:`Interrupted`, whose ``signum`` gives the
    exit status 128 + signal). Within :func:`signals_held` the signal waits for the hold to end."""
    def handler(signum: int, frame: FrameType | None) -> None:
        if _hold.depth:
            _hold.pending = signum
            return
        remove_all(paths)
        raise Interrupted(signum)

    old: dict[signal.Signals, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, handler)
        except ValueError:                       # not the main thread
            pass
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


@contextmanager
def temporary_folder() -> Iterator[Path]:
    """A new temporary folder, removed with all it holds however the block ends (an error, Ctrl-C or
    SIGTERM); neither making it nor removing it is cut short by a signal."""
    folder: str | None = None
    with cleanup_on_signals([]):                 # a signal stops the block, but waits while the folder is
        try:                                     # made or removed
            with signals_held():
                folder = tempfile.mkdtemp(prefix="exactodds-")
            yield Path(folder)
        finally:
            if folder is not None:
                with signals_held():
                    shutil.rmtree(folder, ignore_errors=True)


class Outputs:
    """Files written together, all or none: each to a temporary file beside its target, renamed into place
    together when the ``with`` block ends normally; every temporary file is removed however else it ends (an
    error, a full disk, Ctrl-C or SIGTERM), and no target is touched.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with Outputs() as out:
    ...     out.write(folder / "a.txt", "one")
    ...     out.write(folder / "b.txt", b"two", option="--other")
    >>> sorted(p.name for p in folder.iterdir())
    ['a.txt', 'b.txt']
    """

    def __init__(self) -> None:
        self._temps: list[str] = []                           # what the cleanup removes, recorded as made
        self._targets: list[tuple[Path, str, str, str | os.PathLike[str]]] = []  # target, temporary, option, as given
        self._signals = contextlib.ExitStack()

    def __enter__(self) -> Outputs:
        self._signals.enter_context(cleanup_on_signals(self._temps))
        return self

    def temporary(self, path: str | os.PathLike[str], *, option: str = "--output") -> str:
        """A new empty temporary file for ``path`` (checked by :func:`check_output`), renamed onto it at the end."""
        target = check_output(path, option=option)
        try:
            with signals_held():                                 # made and recorded in one step
                fd, tmp = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".",
                                           prefix=f".{target.name}.", suffix=".tmp")
                self._temps.append(tmp)
            os.close(fd)
        except OSError as exc:                                   # e.g. a folder where no file can be made
            raise cannot_write(option, path, exc) from None
        self._targets.append((target, tmp, option, path))
        return tmp

    def write(self, path: str | os.PathLike[str], data: str | bytes, *, option: str = "--output") -> None:
        """Write ``data`` (text as UTF-8, or bytes) for ``path``."""
        tmp = self.temporary(path, option=option)
        try:
            with open(tmp, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as exc:                                   # a full disk: the file named
            raise cannot_write(option, path, exc) from None

    def staged(self, path: str | os.PathLike[str]) -> str:
        """The temporary file ``path`` is written to until the group ends (to read back what was written)."""
        for _, tmp, _, given in self._targets:
            if str(given) == str(path):
                return tmp
        raise KeyError(str(path))

    def _commit(self) -> None:
        for target, tmp, option, path in self._targets:
            try:
                os.chmod(tmp, mode_for(target))
            except OSError as exc:
                raise cannot_write(option, path, exc) from None
        with signals_held():                                     # every file renamed, or none begun
            for target, tmp, option, path in self._targets:
                try:
                    os.replace(tmp, target)                      # a link made there meanwhile is replaced, not followed
                except OSError as exc:
                    raise cannot_write(option, path, exc) from None
                self._temps.remove(tmp)

    def __exit__(self, kind: Any, value: Any, tb: Any) -> None:
        try:
            if kind is None:
                self._commit()
        finally:
            remove_all(self._temps)                              # what was not renamed: nothing, unless it failed
            self._temps.clear()
            self._signals.close()


def write_atomically(path: str | os.PathLike[str], data: str | bytes, *, option: str = "--output") -> None:
    """Write ``data`` (text or bytes) to ``path`` in full or not at all."""
    write_all_or_nothing({path: data}, option=option)


def write_all_or_nothing(files: Mapping[str | os.PathLike[str], str | bytes], *, option: str = "--output") -> None:
    """Write every file or none (:class:`Outputs`); an error names ``option`` and the file it was writing."""
    for path in files:                                           # every target checked before any is begun
        check_output(path, option=option)
    with Outputs() as out:
        for path, data in files.items():
            out.write(path, data, option=option)
