"""The ``exactodds`` command: thin — parse, call the library, render, exit.

Exit codes: 0 ok, 1 a check failed (also counts that break an invariant), 2 bad
input, 128 + the signal when Ctrl-C (130) or SIGTERM (143) stops it. Results go to
stdout, errors and exactodds's warnings to stderr as one line each (``exactodds:
error: ...``, ``exactodds: warning: ...``), never a traceback.

Each family of commands is a module of this package (``pricing``, ``tools``, ``counting``,
``simulation``, ``documents``, ``live``), imported only when one of its commands runs or shows
its help, so that ``exactodds analyze`` loads nothing of the others; ``options`` declares the option
vocabulary they share.
"""

from __future__ import annotations

import difflib
import gc
import importlib
import os
import signal
import sys
import warnings
from typing import Any

import click

from exactodds.cli.core import EXIT_CHECK_FAILED, EXIT_INTERRUPTED, EXIT_OK, Once, fail
from exactodds.engine.budget import BudgetNote
from exactodds.errors import ExactOddsError, ExactOddsWarning, InconsistentCounts, Interrupted
from exactodds.extras import missing

__all__ = ["COMMANDS", "cli", "main"]

#: Every command, as ``module:function`` of this package, imported on first use.
COMMANDS = {
    "analyze": ".pricing:analyze", "list": ".pricing:list_", "check": ".pricing:check",
    "features": ".pricing:features", "design": ".pricing:design",
    "progressive": ".tools:progressive", "vigorish": ".tools:vigorish", "position": ".tools:position",
    "house-money": ".tools:house_money_command", "mystery": ".tools:mystery",
    "eor": ".counting:eor", "exposure": ".counting:exposure", "merge": ".counting:merge",
    "advantage": ".counting:advantage",
    "simulate": ".simulation:simulate", "check-sim": ".simulation:check_sim",
    "check-player": ".simulation:check_player", "simulate-player": ".simulation:simulate_player",
    "certificate": ".documents:certificate", "keygen": ".documents:keygen", "verify": ".documents:verify",
    "tables": ".documents:tables",
    "serve": ".live:serve",
}


#: Set by :func:`main` while the command loads with the garbage collector off (see :func:`_loaded`).
_collector_waits = False


def _loaded() -> None:
    """The command is loaded: turn the garbage collector back on, with what start-up made frozen.

    Nearly everything allocated while the command loads — modules, classes, tables — lives as long as
    the process, and the collector would only walk it again and again: during the imports, and once
    more at exit (about 7% of the instructions of a cold ``exactodds analyze``). So :func:`main` loads the
    command with the collector off, and here what was made is moved out of the collector's sight
    (:func:`gc.freeze`); everything the command allocates from now on is collected as usual.
    """
    global _collector_waits
    if _collector_waits:
        _collector_waits = False
        gc.freeze()
        gc.enable()


def _and(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _interrupt_in(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM behind ``exc``: Python wraps an exception raised while a class is being
    made (a signal arriving as a module of the command is imported) in a RuntimeError."""
    seen: BaseException | None = exc
    for _ in range(8):
        seen = seen.__cause__ or seen.__context__ if seen is not None else None
        if isinstance(seen, KeyboardInterrupt):
            return seen
    return None


def _stopped_by(interrupt: KeyboardInterrupt) -> _Stopped:
    signum = getattr(interrupt, "signum", signal.SIGINT)
    return _Stopped(128 + signum, "interrupted" if signum == signal.SIGINT else "terminated")


class _Stopped(Exception):
    """A run stopped by a signal or a closed pipe, carried past click's own handling (which would
    print a blank line, or exit 1 with no word): ``status`` to exit with, ``message`` to print."""

    def __init__(self, status: int, message: str = ""):
        super().__init__(message)
        self.status, self.message = status, message


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that what is still buffered has nowhere to fail."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


#: The signal that stopped the run, kept for the case Python swallows its exception (see :func:`_unraisable`).
_received: list[int] = []


def _interrupt(signum: int, frame: Any) -> None:
    """Ctrl-C and SIGTERM while the command runs: unwind (context managers remove files), and remember."""
    _received.append(signum)
    raise Interrupted(signum)


def _unraisable(hook: Any) -> Any:
    """Python's hook for exceptions it cannot raise, for a run whose signals are :func:`_interrupt`'s: an
    interrupt that lands in a callback Python calls on its own (a weak reference's, as a module is imported)
    is printed as "Exception ignored ... KeyboardInterrupt" and lost, and the run would go on to exit 0. Here it
    is kept silent, and the run ends stopped all the same (:meth:`_Cli.main` looks at :data:`_received`)."""
    def unraisable(seen: Any) -> None:
        if not (isinstance(seen.exc_value, KeyboardInterrupt) and _received):
            hook(seen)
    return unraisable


_show_warning = warnings.showwarning


def _warn(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
          line: str | None = None) -> None:
    """exactodds's own warnings as one line on stderr, like its errors; others as Python shows them."""
    if issubclass(category, BudgetNote):                 # what a long analysis has left: not a warning
        click.echo(f"exactodds: note: {' '.join(str(message).split())}", err=True)
    elif issubclass(category, ExactOddsWarning):
        click.echo(f"exactodds: warning: {' '.join(str(message).split())}", err=True)
    else:
        _show_warning(message, category, filename, lineno, file, line)


class _Cli(Once, click.Group):
    """The exactodds group: its commands are imported on first use (click's lazy loading of
    subcommands, from :data:`COMMANDS`), and its errors are one line on stderr with exit code 2."""

    _listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *COMMANDS])

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, name = COMMANDS[cmd_name].split(":")
        try:
            found = getattr(importlib.import_module(module, __name__), name)   # the one deferred import
        except ImportError as exc:                       # an extra's library not installed: one line naming it
            error = missing(exc)
            if error is None:
                raise
            if self._listing:                            # --help lists the command and what it needs
                return click.Command(cmd_name, help=str(error).replace("this needs", "needs"))
            fail(str(error))
        if not isinstance(found, click.Command):
            raise TypeError(f"{COMMANDS[cmd_name]} is not a click command")
        _loaded()
        return found

    def _takes(self, option: str) -> list[str]:
        """The commands that take ``option`` (every command loaded, as --help loads them)."""
        ctx = click.Context(self)
        self._listing = True                                   # a command whose extra is missing: skipped
        try:
            found = [(name, self.get_command(ctx, name)) for name in self.list_commands(ctx)]
        finally:
            self._listing = False
        return [name for name, command in found if command is not None and any(
            isinstance(p, click.Option) and option in p.opts and not p.hidden for p in command.params)]

    def _no_such_option(self, exc: click.exceptions.NoSuchOption) -> str:
        """``eor --seed``: "eor has no option --seed: exposure and simulate take it", naming the commands
        that have it, or the command's own option it is a near miss of, instead of click's guesses."""
        command = exc.ctx.command if exc.ctx is not None else None
        name = exc.option_name
        if command is None or command is self:
            return exc.format_message()
        others = [c for c in self._takes(name) if c != command.name]
        own = sorted({o for p in command.params if isinstance(p, click.Option) and not p.hidden for o in p.opts
                      if o.startswith("--")})
        close = difflib.get_close_matches(name, own, n=1, cutoff=0.8)
        said = f"{command.name} has no option {name}"
        if close:
            said += f" (did you mean {close[0]}?)"
        if others:
            named = others if len(others) <= 4 else [*others[:3], f"{len(others) - 3} other commands"]
            said += (f": {_and(named)} take{'s' if len(others) == 1 else ''} {name}")
        return said + f" (see 'exactodds {command.name} --help')"

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt as exc:                         # Ctrl-C or SIGTERM while the group's options
            raise _stopped_by(exc) from None                     # are parsed: past click's blank line and Abort

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:                         # Ctrl-C, or SIGTERM: context managers
            raise _stopped_by(exc) from None                     # have run (files removed, cursor shown)
        except RuntimeError as exc:
            interrupt = _interrupt_in(exc)
            if interrupt is None:
                raise
            raise _stopped_by(interrupt) from None
        except BrokenPipeError:                                  # `exactodds ... | head`: the reader is done
            _silence_stdout()
            raise _Stopped(EXIT_OK) from None

    def _run(self, args: list[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = False, **extra: Any) -> Any:
        """What click's own main does with ``standalone_mode`` off, without its handling of an interrupt: one
        that lands as the command's context is entered or closed (its files removed) would print click's blank
        line before ours. Here every exception goes to :meth:`main`'s handlers as it is."""
        args = sys.argv[1:] if args is None else list(args)
        if prog_name is None:
            prog_name = _program_name()
        self._main_shell_completion(extra, prog_name, complete_var)
        try:
            with self.make_context(prog_name, args, **extra) as ctx:
                return self.invoke(ctx)
        except click.exceptions.Exit as exc:                     # --version, --help: their status
            return exc.exit_code

    def main(self, *args: Any, **kwargs: Any) -> Any:
        previous: dict[int, Any] = {}
        shown, warnings.showwarning = warnings.showwarning, _warn
        unraisable_before = sys.unraisablehook
        try:
            _received.clear()
            sys.unraisablehook = _unraisable(unraisable_before)
            for signum, handler in ((signal.SIGINT, _interrupt),                    # Ctrl-C unwinds (see _Stopped),
                                    (signal.SIGTERM, _interrupt)):                  # and SIGTERM as Ctrl-C does:
                try:                                             # within this try, so that one arriving now is
                    previous[signum] = signal.getsignal(signum)  # answered below
                    signal.signal(signum, handler)
                except ValueError:                               # not the main thread: leave it
                    previous.pop(signum, None)
            rv = self._run(*args, **kwargs)
            if _received:                                    # a signal whose exception Python swallowed
                raise _stopped_by(Interrupted(_received[0]))
            sys.stdout.flush()                               # a full disk shows here, not at exit
        except InconsistentCounts as exc:                    # a check of the counting failed: no figure
            fail(str(exc), EXIT_CHECK_FAILED)
        except ExactOddsError as exc:
            fail(str(exc))
        except click.exceptions.NoArgsIsHelpError as exc:   # bare `exactodds`: help, not an error
            click.echo(exc.ctx.get_help() if exc.ctx else "")
            sys.exit(EXIT_OK)
        except click.exceptions.NoSuchOption as exc:           # click's guesses span unrelated options
            fail(self._no_such_option(exc))
        except click.ClickException as exc:
            fail(exc.format_message())
        except _Stopped as stop:
            if stop.message:
                click.echo(f"exactodds: {stop.message}", err=True)
            sys.exit(stop.status)
        except click.exceptions.Abort as exc:                    # Ctrl-C while click itself prompted
            cause = exc.__cause__
            stopped = _stopped_by(cause) if isinstance(cause, KeyboardInterrupt) else _Stopped(EXIT_INTERRUPTED,
                                                                                               "interrupted")
            click.echo(f"exactodds: {stopped.message}", err=True)
            sys.exit(stopped.status)
        except KeyboardInterrupt as exc:                         # Ctrl-C or SIGTERM anywhere else in click
            stopped = _stopped_by(exc)
            click.echo(f"exactodds: {stopped.message}", err=True)
            sys.exit(stopped.status)
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(EXIT_OK)
        except OSError as exc:                               # a full disk, a closed terminal
            if exc.filename is None:
                fail(f"cannot write to standard output ({exc.strerror or exc})")
            raise
        finally:                                                 # the signals handed back (to the entry
            warnings.showwarning = shown                         # point's one-line handlers, as the run ends)
            sys.unraisablehook = unraisable_before
            for number, before in previous.items():
                signal.signal(number, before)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)


def _program_name() -> str:
    """The name the command was run by, for its usage lines: ``python -m exactodds`` or the script's name."""
    main_module = sys.modules.get("__main__")
    package = getattr(main_module, "__package__", None)
    if package and os.path.basename(sys.argv[0] if sys.argv else "") in ("__main__.py", "-c"):
        return f"python -m {package}"
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "exactodds"


@click.group(cls=_Cli, no_args_is_help=True,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120,
                               "terminal_width": 120})
@click.version_option(package_name="exactodds")
def cli() -> None:
    """Exact odds of Pennsylvania baccarat wagers (58 Pa. Code 627a, 627b, 629b, 631b)."""


def main() -> None:
    """Run the command (the entry point, :func:`exactodds.__main__.main`, calls it once it answers Ctrl-C and
    SIGTERM itself; :meth:`_Cli.main` takes them over)."""
    global _collector_waits
    gc.disable()                                          # until the command is loaded: see _loaded
    _collector_waits = True
    for stream in (sys.stdout, sys.stderr):               # a terminal that cannot show ♠ gets '?'
        if hasattr(stream, "reconfigure") and (stream.encoding or "").lower().replace("-", "") != "utf8":
            stream.reconfigure(errors="replace")
    cli()
