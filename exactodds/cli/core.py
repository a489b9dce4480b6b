"""What every command of the CLI shares: exit codes, the refusal of an option given twice, the
one-line error and deprecation messages, and a progress bar that shows nothing."""

from __future__ import annotations

import sys
from typing import Any, Self

import click

from exactodds.errors import ExactOddsError

EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130                      # 128 + SIGINT, as shells report Ctrl-C

#: Where a command's context keeps its words as written (``ctx.meta``).
ARGV = "exactodds.argv"


class Once:
    """Refuses an option that takes one value (or a flag) given more than once, which click would
    settle silently by keeping the last: ``--wager A --wager B`` is an error, not B."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[ARGV] = list(args)             # the words as written, for messages that quote them
        parser = self.make_parser(ctx)  # type: ignore[attr-defined]
        for opt in {**getattr(parser, "_long_opt", {}), **getattr(parser, "_short_opt", {})}.values():
            opt.action = {"store": "append", "store_const": "append_const"}.get(opt.action, opt.action)
        values, _, order = parser.parse_args(args=list(args))      # a dry run: every value, in order
        for param in dict.fromkeys(order):
            if (isinstance(param, click.Option) and not param.multiple and not param.count
                    and order.count(param) > 1 and param.expose_value):
                name = max(param.opts, key=len)
                given = values.get(param.name) if not param.is_flag else None
                shown = f" ({', '.join(map(repr, given))})" if isinstance(given, list) else ""
                raise click.UsageError(f"{name} given {_times(order.count(param))}{shown}: it takes one value",
                                       ctx)
        return super().parse_args(ctx, args)  # type: ignore[misc,no-any-return]


def _times(n: int) -> str:
    return {2: "twice", 3: "three times"}.get(n, f"{n} times")


class Command(Once, click.Command):
    """A command of the CLI (see :class:`Once`)."""


def command(name: str | None = None, **kwargs: Any) -> Any:
    """``@command()``: a click command of this CLI (one value per option, see :class:`Once`)."""
    return click.command(name, cls=Command, **kwargs)


def fail(message: str, status: int = EXIT_BAD_INPUT) -> None:
    """One line ``exactodds: error: ...`` on stderr, then exit with ``status``."""
    click.echo(f"exactodds: error: {' '.join(message.split())}", err=True)
    sys.exit(status)


def deprecated(old: str, new: str) -> None:
    """One line on stderr: ``old`` still works this release; ``new`` is its spelling from now on."""
    click.echo(f"exactodds: warning: {old} is deprecated; use {new} (the old spelling goes in the next release)",
               err=True)


def given(ctx: click.Context, name: str) -> bool:
    """Whether parameter ``name`` was written on the command line (not left at its default)."""
    return ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE


def either(new: Any, old: Any, old_name: str, new_name: str) -> Any:
    """The value of an option written the new way or the deprecated way (one line on stderr), not both."""
    if old is None or old == ():
        return new
    if new is not None and new != ():
        raise ExactOddsError(f"{old_name} and {new_name} are the same option: give {new_name} only")
    deprecated(old_name, new_name)
    return old


class NoBar:
    """Stands in for a progress bar when none is shown."""

    length: int | None = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int) -> None:
        return None


def progress(show: bool, **kwargs: Any) -> Any:
    """A click progress bar on stderr when ``show``, else one that shows nothing."""
    return click.progressbar(file=sys.stderr, **kwargs) if show else NoBar()
