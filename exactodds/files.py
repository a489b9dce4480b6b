"""Writing output files safely: whole or not at all, never over a device, through symlinks to their target.

Every file exactodds writes goes to a temporary file beside its target and is
renamed into place when complete, so a reader never sees half a file and an
error, Ctrl-C or SIGTERM leaves the old file (or nothing) behind. ``--output``
must name a regular file or a new one: a directory, a device such as
``/dev/null`` or a pipe is refused (replacing a device node with a file, as
root, is how things break). A symlink is followed: its target is written. An
existing file keeps its permissions.
"""

from __future__ import annotations

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

__all__ = ["check_output", "write_atomically", "write_all_or_nothing", "cleanup_on_signals", "signals_held",
           "remove_all", "temporary_folder", "mode_for"]


def check_output(path: str | os.PathLike[str], *, option: str = "--output") -> Path:
    """The file to write for ``path`` (a symlink's target), or a one-line error naming ``option``."""
    p = Path(path)
    target = Path(os.path.realpath(p)) if p.is_symlink() else p
    try:
        st = target.stat()
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise ExactOddsError(f"{option} {path}: cannot write ({exc.strerror or exc})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise ExactOddsError(f"{option} {path}: is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise ExactOddsError(f"{option} {path}: not a regular file (a device or a pipe); write to a file")
        if not os.access(target, os.W_OK):
            raise ExactOddsError(f"{option} {path}: not writable")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise ExactOddsError(f"{option} {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ExactOddsError(f"{option} {path}: not writable (directory {parent})")
    return target


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


def write_atomically(path: str | os.PathLike[str], data: str | bytes, *, option: str = "--output") -> None:
    """Write ``data`` (text or bytes) to ``path`` in full or not at all."""
    write_all_or_nothing({path: data}, option=option)


def write_all_or_nothing(files: Mapping[str | os.PathLike[str], str | bytes], *, option: str = "--output") -> None:
    """Write every file or none: all are written to temporary files first, then renamed into place.

    A temporary file is recorded as it is made and removed in every way the write can end short: an
    error (a full disk), Ctrl-C or SIGTERM.
    """
    targets = [(check_output(p, option=option), data, p) for p, data in files.items()]
    temps: list[str] = []
    with cleanup_on_signals(temps):
        try:
            for target, data, _ in targets:
                with signals_held():
                    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
                    temps.append(tmp)
                    fh = os.fdopen(fd, "wb")
                with fh:
                    fh.write(data.encode("utf-8") if isinstance(data, str) else data)
                os.chmod(tmp, mode_for(target))
            with signals_held():                     # every file renamed, or none
                for (target, _, _), tmp in zip(targets, temps):
                    os.replace(tmp, target)
                temps.clear()
        except OSError as exc:
            remove_all(temps)
            raise ExactOddsError(f"{option} {targets[0][2]}: cannot write ({exc.strerror or exc})") from None
        except BaseException:
            remove_all(temps)
            raise
