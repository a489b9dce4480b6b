"""The CLI's one option vocabulary, declared once: each shared option has the same name, meaning,
default and help in every command that takes it, and is read here into what the library takes.

``--wager WAGER[:PAYTABLE]`` (repeatable, but once where a command prices one wager) chooses wagers, ``--paytables FILE`` adds your files,
``--decks N`` (8) and ``--remove CARDS`` make the shoe, ``--bet DOLLARS`` is the bet size, ``--seed N``
repeats a random run, and ``--format`` is the format of the printed result (a data file's own format
has its own option: ``--record-format``, ``--input-format``).
"""

from __future__ import annotations

from fractions import Fraction

import functools
import secrets
from collections.abc import Callable
from typing import Any

import click

from exactodds.analyses.analysis import load_text
from exactodds.analyses.door import routed
from exactodds.analyses.designer import carries
from exactodds.cli.core import ARGV, deprecated
from exactodds.engine import budget
from exactodds.errors import ExactOddsError
from exactodds.game.shoe import Shoe, parse_card_list
from exactodds.wagers.pays import parse_amount
from exactodds.wagers.catalogue import Catalogue, did_you_mean, file_text, load_catalogue

#: The formats of a printed result, the same in every command (the first is the default).
FORMATS = ("text", "markdown", "csv", "json", "html")

Decorator = Callable[[Any], Any]


#: The help of ``--route`` (``analyze`` passes it on; the other analyses through :func:`route`).
ROUTE_HELP = ("Exact route: the multiset tables, and the walk for a wager whose table would be too large (auto, with "
              "one line saying so); the tables alone (vector); or the recursive memoized walk.")


def route(f: Any) -> Any:
    """``--route auto|vector|walk`` for a whole analysis: every door into the engine it opens takes the route
    (:func:`exactodds.analyses.door.routed`)."""
    @functools.wraps(f)
    def routed_run(*args: Any, route: str, **kwargs: Any) -> Any:
        with routed(route):
            return f(*args, **kwargs)
    return click.option("--route", "route", type=click.Choice(["auto", "vector", "walk"]), default="auto",
                        show_default=True, help=ROUTE_HELP)(routed_run)


def max_time(f: Any) -> Any:
    """``--max-time TIME`` (an hour by default): the command's analysis is timed against it as it goes
    (:mod:`exactodds.engine.budget`) and refused in one line once its projection passes it; a long one says
    what it has left."""
    @functools.wraps(f)
    def bounded_run(*args: Any, max_time: str, **kwargs: Any) -> Any:
        with budget.bounded(budget.parse_duration(max_time), option="--max-time"):
            return f(*args, **kwargs)
    return click.option("--max-time", "max_time", default="1h", show_default=True, metavar="TIME",
                        help="The most the analysis may take (90s, 10m, 2h, 1d or none): measured on its first "
                             "units of work, refused once it would take longer; a long one says what is left.")(
        bounded_run)


def each_once(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """A repeatable WAGER[:PAYTABLE] given twice is an error, as a key given twice is."""
    seen: set[str] = set()
    for item in value:
        if (key := item.strip().lower()) in seen:
            name = param.opts[0] if isinstance(param, click.Option) else "WAGER[:PAYTABLE]"
            raise ExactOddsError(f"{name} {item.strip()!r} given twice")
        seen.add(key)
    return value


_WAGER: dict[str, Any] = {
    "multiple": True, "metavar": "WAGER[:PAYTABLE]",
    "help": "A wager, or one paytable of it (repeatable; a bare WAGER means each of its paytables; "
            "see 'exactodds list')."}

wager: Decorator = click.option("--wager", "wagers", callback=each_once, **_WAGER)

#: ``--wager`` where naming a wager twice is harmless (a certificate certifies each wager once).
wager_once_each: Decorator = click.option("--wager", "wagers", **_WAGER)

#: ``--wager`` of a command that prices one wager (``design`` writes one paytable; ``progressive``'s meters,
#: increments and reseeds are those of one wager): not repeatable, and given twice is an error.
one_wager: Decorator = click.option(
    "--wager", "wager_spec", metavar="WAGER[:PAYTABLE]",
    help="The wager, or one paytable of it (one wager: a bare WAGER means its first paytable; see 'exactodds list').")

stake: Decorator = click.option(
    "--wager", "wagers", multiple=True, metavar="WAGER[:PAYTABLE][=STAKE]",
    help="A wager of the position and its stake in units (repeatable; default stake 1).")

paytables: Decorator = click.option(
    "--paytables", "paytables_files", multiple=True, metavar="FILE",
    help="Your own data file (TOML) of wagers and paytables, added to the catalogue (repeatable).")

decks: Decorator = click.option(
    "--decks", type=int, default=8, show_default=True, metavar="N", help="Full 52-card decks in the shoe.")

shoes: Decorator = click.option(
    "--decks", "decks", type=int, multiple=True, default=(8,), show_default=True, metavar="N",
    help="Full 52-card decks in the shoe; repeat for several shoes, e.g. --decks 6 --decks 8.")

remove: Decorator = click.option(
    "--remove", metavar="CARDS", help="Cards taken out, comma-separated, may repeat: 5S,5S,KH,9.")

bet: Decorator = click.option(
    "--bet", metavar="DOLLARS",
    help="Bet size in dollars (a vigorish on a win is rounded up to 25¢, 627a.12(c)).")

seed: Decorator = click.option(
    "--seed", type=int, default=None, metavar="N",
    help="Seed of the run, to repeat it (default: one is drawn and shown on stderr as 'seed: N').")


def output_format(*extra: str) -> Decorator:
    """``--format`` of the printed result: the shared choices, plus any ``extra`` only this command has."""
    return click.option(
        "--format", "fmt", type=click.Choice([*FORMATS, *extra]), default="text", show_default=True,
        help="Format of the printed result; JSON and CSV keep exact values exact.")


result_format: Decorator = output_format()

plot: Decorator = click.option(
    "--plot", metavar="FILE", help="Also draw it to FILE (.png or .svg; needs exactodds[notebooks]).")

record_format: Decorator = click.option(
    "--record-format", type=click.Choice(["csv", "jsonl", "parquet"]), default=None,
    help="Record format (default: from the extension of --output, else csv).")


class OldWagers(click.Argument):
    """The positional WAGER[:PAYTABLE] of a release ago, still read (with a deprecation line) but no
    longer shown in the usage line."""

    def get_usage_pieces(self, ctx: click.Context) -> list[str]:
        return []


def _old_wagers(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    if value:
        deprecated("a positional WAGER[:PAYTABLE]", "--wager WAGER[:PAYTABLE]")
    return each_once(ctx, param, value)


old_wagers: Decorator = click.argument("old_wagers", nargs=-1, cls=OldWagers, callback=_old_wagers)


def _is_number(text: str) -> bool:
    try:
        Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return False
    return True


def _old_stakes(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """A position's positional words: a number there is a stake written apart from its wager
    (``--wager banker 25``), answered with the spelling meant (``banker=25``), not as a wager named '25'."""
    argv = ctx.meta.get(ARGV, [])
    for item in value:
        if not _is_number(item):
            continue
        at = argv.index(item) if item in argv else 0
        wager = argv[at - 1] if at >= 1 else ""
        if wager and not wager.startswith("-") and "=" not in wager and not _is_number(wager):
            written = f"--wager {wager} {item}" if at >= 2 and argv[at - 2] == "--wager" else f"{wager} {item}"
            raise ExactOddsError(f"{written}: a stake follows its wager after '=': write --wager {wager}={item}")
        raise ExactOddsError(f"{item!r} is not a wager: a stake follows its wager after '=', as in "
                             f"--wager banker={item}")
    return _old_wagers(ctx, param, value)


#: A position's deprecated positional WAGER[:PAYTABLE][=STAKE], where a lone number is a misplaced stake.
old_stakes: Decorator = click.argument("old_wagers", nargs=-1, cls=OldWagers, callback=_old_stakes)


def hidden_alias(old: str, name: str, **kwargs: Any) -> Decorator:
    """A deprecated spelling ``old`` kept for one release (not shown in --help); read with core.either."""
    return click.option(old, name, hidden=True, **kwargs)


def wagers_of(new: tuple[str, ...], old: tuple[str, ...]) -> tuple[str, ...]:
    """The wagers given with --wager, or (deprecated, already announced) as positional arguments."""
    if new and old:
        raise ExactOddsError("give wagers with --wager only (not also as arguments)")
    return new or old


def drawn_seed(value: int | None) -> int:
    """``--seed`` as given, or a fresh one, shown on stderr so that the run can be repeated."""
    if value is not None:
        return value
    value = secrets.randbelow(2**32)
    click.echo(f"seed: {value}", err=True)
    return value


def shoe(n: int, cards: str | None) -> Shoe:
    """The shoe of ``--decks n`` with ``--remove cards`` taken out."""
    try:
        made = Shoe.decks(n)
    except ExactOddsError as exc:
        raise ExactOddsError(f"--decks: {exc}") from None
    if cards:
        taken = parse_card_list(cards, where="--remove")
        try:
            made = made.remove(*taken)
        except ExactOddsError as exc:
            raise ExactOddsError(f"--remove: {exc}") from None
    return made


def number_or_percent(text: str, option: str, example: str = "2.5% or 0.025") -> Fraction:
    """An option's value written as a percentage (``2.5%``) or a number (``0.025``), exactly."""
    try:
        raw = text.strip()
        return Fraction(raw[:-1].strip()) / 100 if raw.endswith("%") else Fraction(raw)
    except (ValueError, ZeroDivisionError):
        raise ExactOddsError(f"{option}: {text!r} is not a number such as {example}") from None


def user_files(paths: tuple[str, ...]) -> list[tuple[str, str]]:
    """(path, text) of each ``--paytables FILE``, each read once."""
    if any(not p.strip() for p in paths):
        raise ExactOddsError("--paytables: an empty file name")
    return [(p, file_text(p)) for p in paths]


def with_files(files: list[tuple[str, str]], *, check_all: bool = False) -> tuple[Catalogue, list[str]]:
    """The catalogue with users' files added, and the files' own ``WAGER[:PAYTABLE]`` (what they define).

    Every wager is read and checked as data; against its exact table when first
    priced, or every one now with ``check_all`` (which compiles every table).
    """
    cat, own = load_catalogue(), []
    for k, (path, text) in enumerate(files):
        mine = load_text(text, source=path, check_all=check_all)      # read once
        try:
            cat = cat.merged(mine)
        except ExactOddsError:
            _carried_twice(files[:k], path, text)
            raise
        own += [*mine, *(f"{wid}:{raw['id']}" for wid, raw, _ in mine.extensions)]
    return cat, own


def _carried_twice(earlier: list[tuple[str, str]], path: str, text: str) -> None:
    """A file 'design --output' wrote carries its wager's file: given beside it, the wager is defined twice. Say so
    in one line, naming the one to leave out."""
    for before, was in earlier:
        for carrier, inside, carried, its in ((path, text, before, was), (before, was, path, text)):
            if carries(inside, its):
                raise ExactOddsError(f"--paytables {carrier} carries {carried} (design --output wrote it to stand "
                                     f"alone): give {carrier} without {carried}")


def catalogue(paths: tuple[str, ...], *, check_all: bool = False) -> Catalogue:
    """The catalogue with ``--paytables`` files added."""
    return with_files(user_files(paths), check_all=check_all)[0]


#: ``--meter``'s one unit, the same in every command that takes it (``progressive``, ``position``, ``eor``).
METER_HELP = ("in units of the wager: the meter's dollars ÷ the bet's dollars, e.g. J=2000 for a $10,000 meter "
              "on a $5 bet")


def meter_option(metavar: str, help: str, also: str = "") -> Decorator:
    """``--meter``: a progressive meter, in units of the wager everywhere (:data:`METER_HELP`)."""
    return click.option("--meter", "meters", multiple=True, metavar=metavar,
                        help=f"{help}, {METER_HELP}{'; ' + also if also else ''}.")


def meter_amount(raw: str, *, where: str, bet: Fraction | None = None) -> Fraction:
    """A meter in units of the wager; written ``$X`` it is dollars, divided by ``bet`` (which a command
    without a bet size does not have: there, one line asks for units)."""
    text = raw.strip()
    if text.startswith("$"):
        if bet is None:
            raise ExactOddsError(f"{where}: a meter is in units of the wager here, not dollars (this command has "
                                 "no bet size): write the meter's dollars ÷ the bet's, e.g. 2000 for $10,000 on $5")
        return _amount(text[1:], where=where, what="a dollar amount") / bet
    return _amount(text, where=where, what="a number of units of the wager")


def _amount(text: str, *, where: str, what: str) -> Fraction:
    value = parse_amount(text, where=where, what=what)
    if not 0 <= value <= 10**12:
        raise ExactOddsError(f"{where}: a meter is from 0 to 1,000,000,000,000, got {text[:30]!r}")
    return value


def meter_units(items: tuple[str, ...]) -> dict[str, Any]:
    """``--meter J=2000`` (units of the wager) → {'J': Fraction(2000)}."""
    values: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise ExactOddsError(f"--meter {item!r}: write NAME=UNITS, e.g. J=2000")
        if name.strip() in values:
            raise ExactOddsError(f"--meter {name.strip()} given twice")
        values[name.strip()] = meter_amount(raw, where=f"--meter {item!r}")
    return values


__all__ = ["FORMATS", "bet", "catalogue", "decks", "did_you_mean", "drawn_seed", "each_once", "hidden_alias",
           "max_time", "number_or_percent", "plot",
           "METER_HELP", "meter_amount", "meter_option", "meter_units", "old_stakes", "old_wagers", "one_wager", "output_format", "paytables", "record_format", "remove", "result_format",
           "seed", "shoe", "shoes", "stake", "user_files", "wager", "wager_once_each", "wagers_of",
           "with_files"]
