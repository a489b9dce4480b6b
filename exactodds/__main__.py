"""The ``exactodds`` command's entry point (the console script, and ``python -m exactodds``).

Its first act is to answer Ctrl-C and SIGTERM: before it, Python's own handler would print a
KeyboardInterrupt traceback for an interrupt that lands while the command imports what it needs
(click, NumPy, the command's modules: a few hundred milliseconds). So nothing is imported before
the handlers are in place but this module and the package's ``__init__``, which imports nothing
(Python's start-up and the console script's own two lines come before any code of exactodds: an
interrupt there is Python's). The command takes the signals over once it runs
(:meth:`exactodds.cli._Cli.main`: Ctrl-C unwinds, files are removed) and hands them back when it
is done; an interrupt before or in between ends in one line and exit status 128 + the signal (130
for Ctrl-C, 143 for SIGTERM), never a traceback, and one after the run is over leaves its status.
"""

from __future__ import annotations

import os
import signal
import sys

#: The line each signal ends the run with.
_WORDS: dict[int, bytes] = {signal.SIGINT: b"exactodds: interrupted\n", signal.SIGTERM: b"exactodds: terminated\n"}


def _stop(signum: int, frame: object = None) -> None:
    """End the run at once in one line: nothing is being written (the command's own handlers do that)."""
    try:
        os.write(2, _WORDS.get(signum, b"exactodds: interrupted\n"))     # not sys.stderr: it may be mid-write
    except OSError:
        pass
    os._exit(128 + signum)


def _over() -> None:
    """The run is over, its status decided and its output written: a signal from now on is ignored. Python,
    shutting down, puts back the default action of a signal it handled, and the process would die of one
    that lands then, in silence and with another status; so unless the shutdown still waits for a thread or a
    process (which Ctrl-C must be able to stop), the run ends with its own status."""
    threading, processes = sys.modules.get("threading"), sys.modules.get("multiprocessing")
    if threading is not None and any(not t.daemon and t is not threading.main_thread() for t in threading.enumerate()):
        return
    if processes is not None and processes.active_children():
        return
    for signum in _WORDS:
        signal.signal(signum, signal.SIG_IGN)


#: The thread pools of the numerical libraries NumPy may load, set to one thread unless the user set them:
#: exactodds's kernels run one thread each (the compiled core's in C, the GIL released), and its parallel
#: work is processes (exposure, check-sim), whose BLAS threads would fight each other for the cores.
_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS")


def _one_thread() -> None:
    """Set each of :data:`_ONE_THREAD` to 1 where the environment does not set it."""
    for name in _ONE_THREAD:
        os.environ.setdefault(name, "1")


def main() -> None:
    """Install the one-line handlers, then import and run the command under them."""
    for signum in _WORDS:
        signal.signal(signum, _stop)
    _one_thread()                                      # before NumPy is imported, so its libraries read them
    try:
        from exactodds.cli import main as command      # deferred: the heavy imports, after the handlers
        command()
    except KeyboardInterrupt as exc:                   # raised where the command could not answer it (in its
        _stop(getattr(exc, "signum", signal.SIGINT))   # own answer to an error): one line all the same
    except SystemExit as exc:
        if exc.code in (128 + signal.SIGINT, 128 + signal.SIGTERM):
            _end(exc.code)                             # stopped by a signal, answered, cleaned up: end now
        raise
    finally:
        _over()


def _end(status: int) -> None:
    """End a run a signal stopped, once the command has answered it (its line written, its files removed),
    without Python's shutdown: had the interrupt passed through code Python made with exec() (a dataclass
    or a named tuple being defined), Python would take it for one nobody caught and, under ``python -m``, kill
    the process with SIGINT as it exits (status -2, not 130); and a thread still at work is not waited for."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


if __name__ == "__main__":
    main()
