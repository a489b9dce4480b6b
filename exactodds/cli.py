"""The ``exactodds`` command: thin — parse, call the library, render, exit.

Exit codes: 0 ok, 1 a check failed (also counts that break an invariant), 2 bad
input, 128 + the signal when Ctrl-C (130) or SIGTERM (143) stops it. Results go to
stdout, errors and exactodds's warnings to stderr as one line each (``exactodds:
error: ...``, ``exactodds: warning: ...``), never a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import warnings
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import click

from .errors import ExactOddsError, ExactOddsWarning, InconsistentCounts, Interrupted

__all__ = ["cli", "main"]

EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT = 0, 1, 2
EXIT_INTERRUPTED = 130                      # 128 + SIGINT, as shells report Ctrl-C


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


def _terminate(signum: int, frame: Any) -> None:
    raise Interrupted(signum)


_show_warning = warnings.showwarning


def _warn(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: Any = None,
          line: str | None = None) -> None:
    """exactodds's own warnings as one line on stderr, like its errors; others as Python shows them."""
    if issubclass(category, ExactOddsWarning):
        click.echo(f"exactodds: warning: {' '.join(str(message).split())}", err=True)
    else:
        _show_warning(message, category, filename, lineno, file, line)


class _Once:
    """Refuses an option that takes one value (or a flag) given more than once, which click would
    settle silently by keeping the last: ``--wager A --wager B`` is an error, not B."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
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


class _Command(_Once, click.Command):
    """A command of the CLI (see :class:`_Once`)."""


class _Cli(_Once, click.Group):
    """A click group whose errors are one line on stderr with exit code 2."""

    command_class = _Command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:                         # Ctrl-C, or SIGTERM: context managers
            signum = getattr(exc, "signum", signal.SIGINT)        # have run (files removed, cursor shown)
            raise _Stopped(128 + signum, "interrupted" if signum == signal.SIGINT else "terminated") from None
        except BrokenPipeError:                                  # `exactodds ... | head`: the reader is done
            _silence_stdout()
            raise _Stopped(EXIT_OK) from None

    def main(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D401
        kwargs["standalone_mode"] = False
        previous = signal.getsignal(signal.SIGTERM)
        try:
            signal.signal(signal.SIGTERM, _terminate)            # SIGTERM unwinds as Ctrl-C does
        except ValueError:                                       # not the main thread: leave it
            previous = None
        shown, warnings.showwarning = warnings.showwarning, _warn
        try:
            rv = super().main(*args, **kwargs)
            sys.stdout.flush()                               # a full disk shows here, not at exit
        except InconsistentCounts as exc:                    # a check of the counting failed: no figure
            _fail(str(exc), EXIT_CHECK_FAILED)
        except ExactOddsError as exc:
            _fail(str(exc))
        except click.exceptions.NoArgsIsHelpError as exc:   # bare `exactodds`: help, not an error
            click.echo(exc.ctx.get_help() if exc.ctx else "")
            sys.exit(EXIT_OK)
        except click.ClickException as exc:
            _fail(exc.format_message())
        except _Stopped as stop:
            if stop.message:
                click.echo(f"exactodds: {stop.message}", err=True)
            sys.exit(stop.status)
        except (click.exceptions.Abort, KeyboardInterrupt):      # Ctrl-C while click itself parsed
            click.echo("exactodds: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(EXIT_OK)
        except OSError as exc:                               # a full disk, a closed terminal
            if exc.filename is None:
                _fail(f"cannot write to standard output ({exc.strerror or exc})")
            raise
        finally:
            warnings.showwarning = shown
            if previous is not None:
                signal.signal(signal.SIGTERM, previous)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)


def _did_you_mean(name: str, known: Any) -> str:
    from .wagers import did_you_mean

    return did_you_mean(name, known)


def _fail(message: str, status: int = EXIT_BAD_INPUT) -> None:
    click.echo(f"exactodds: error: {' '.join(message.split())}", err=True)
    sys.exit(status)


def _each_once(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """A repeatable WAGER[:PAYTABLE] given twice is an error, as a key given twice is."""
    seen: set[str] = set()
    for item in value:
        if (key := item.strip().lower()) in seen:
            name = param.opts[0] if isinstance(param, click.Option) else "WAGER[:PAYTABLE]"
            raise ExactOddsError(f"{name} {item.strip()!r} given twice")
        seen.add(key)
    return value


_FORMAT = click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
    show_default=True, help="Output format; JSON and CSV keep exact values exact.",
)


@click.group(cls=_Cli, no_args_is_help=True,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120,
                               "terminal_width": 120})
@click.version_option(package_name="exactodds")
def cli() -> None:
    """Exact odds of Pennsylvania baccarat wagers (58 Pa. Code 627a, 627b, 629b, 631b)."""


def _shoe(decks: int, remove: str | None) -> Any:
    from .shoe import Shoe, parse_card_list

    try:
        shoe = Shoe.decks(decks)
    except ExactOddsError as exc:
        raise ExactOddsError(f"--decks: {exc}") from None
    if remove:
        cards = parse_card_list(remove, where="--remove")
        try:
            shoe = shoe.remove(*cards)
        except ExactOddsError as exc:
            raise ExactOddsError(f"--remove: {exc}") from None
    return shoe


def _meter_units(items: tuple[str, ...]) -> dict[str, Any]:
    """``--meter J=2000`` (units of the wager) → {'J': Fraction(2000)}."""
    from .vigorish import parse_dollars

    values: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise ExactOddsError(f"--meter {item!r}: write NAME=UNITS, e.g. J=2000")
        if name.strip() in values:
            raise ExactOddsError(f"--meter {name.strip()} given twice")
        values[name.strip()] = parse_dollars(raw, where=f"--meter {item!r}")
    return values


_PAYTABLES = click.option(
    "--paytables", "paytables_files", multiple=True, metavar="FILE",
    help="Your own data file (TOML) of wagers and paytables, added to the catalogue (repeatable).")


def _user_files(paths: tuple[str, ...]) -> list[tuple[str, str]]:
    """(path, text) of each ``--paytables FILE``, each read once."""
    from .wagers import file_text

    if any(not p.strip() for p in paths):
        raise ExactOddsError("--paytables: an empty file name")
    return [(p, file_text(p)) for p in paths]


def _with_files(files: list[tuple[str, str]], *, check_all: bool = False) -> tuple[Any, list[str]]:
    """The catalogue with users' files added, and the files' own ``WAGER[:PAYTABLE]`` (what they define).

    Every wager is read and checked as data; against its exact table when first
    priced, or every one now with ``check_all`` (which compiles every table).
    """
    from .analysis import load_text
    from .wagers import load_catalogue

    cat, own = load_catalogue(), []
    for path, text in files:
        mine = load_text(text, source=path, check_all=check_all)      # read once
        cat = cat.merged(mine)
        own += [*mine, *(f"{wid}:{raw['id']}" for wid, raw, _ in mine.extensions)]
    return cat, own


def _catalogue(paths: tuple[str, ...], *, check_all: bool = False) -> Any:
    return _with_files(_user_files(paths), check_all=check_all)[0]


@cli.command()
@click.option("--decks", type=int, default=8, show_default=True, help="Full 52-card decks in the shoe.")
@click.option("--remove", metavar="CARDS", help="Cards taken out, comma-separated, may repeat: 5S,5S,KH,9.")
@click.option("--wager", "wagers", multiple=True, metavar="WAGER[:PAYTABLE]", callback=_each_once, help="WAGER or WAGER:PAYTABLE to price (repeatable; a bare WAGER prices all its paytables; see list).")
@click.option("--paytable", "paytables", multiple=True, metavar="ID", help="Shorthand: this paytable of every bare --wager (alone: of every wager that has it).")
@click.option("--all", "everything", is_flag=True, help="Every wager and paytable of the catalogue.")
@_PAYTABLES
@click.option("--alternative", "alternatives", multiple=True, metavar="WAGER=READING",
              help="Price a wager under a documented alternative reading.")
@click.option("--set", "settings", multiple=True, metavar="WAGER:NAME=VALUE",
              help="Set a wager parameter, e.g. royal-9-progressive:seat=5 or "
                   "royal-9-progressive:combinations=Ks9s,Kh9h (a list is comma-separated).")
@click.option("--route", type=click.Choice(["vector", "walk"]), default="vector", show_default=True,
              help="Exact route: vectorised enumeration, or the recursive memoized walk.")
@click.option("--summary", is_flag=True, help="One row per wager and paytable (return, edge, variance, hit "
              "frequency) instead of the outcome tables.")
@_FORMAT
def analyze(decks: int, remove: str | None, wagers: tuple[str, ...], paytables: tuple[str, ...],
            everything: bool, paytables_files: tuple[str, ...], alternatives: tuple[str, ...],
            settings: tuple[str, ...], route: str, summary: bool, fmt: str) -> None:
    """Exact per-outcome tables, return, edge and variance for a shoe."""
    from .analysis import analyze as run

    if everything and wagers:
        raise ExactOddsError("--all and --wager exclude each other")
    alts: dict[str, str] = {}
    for item in alternatives:
        wid, sep, alt = item.partition("=")
        if not sep or not wid.strip() or not alt.strip():
            raise ExactOddsError(f"--alternative {item!r}: write WAGER=READING")
        if wid.strip() in alts:
            raise ExactOddsError(f"--alternative {wid.strip()}: given twice (a wager is priced under one reading)")
        alts[wid.strip()] = alt.strip()
    shoe = _shoe(decks, remove)
    cat, own = _with_files(_user_files(paytables_files))
    if paytables_files and not wagers and not everything:     # the files' own wagers and paytables
        wagers = tuple(own)
    if settings:
        cat = _with_settings(cat, settings)
        from .analysis import select

        chosen = {w.id for w, _ in select(cat, wagers=wagers, paytables=paytables, everything=everything,
                                          alternatives=alts)}
        for item in settings:
            wid = item.partition("=")[0].partition(":")[0].strip()
            if wid not in chosen:
                raise ExactOddsError(f"--set names wager {wid!r}, which is not selected")
    result = run(shoe, wagers=wagers, paytables=paytables, everything=everything, catalogue=cat,
                 alternatives=alts, route=route)
    click.echo(result.render(fmt, summary=summary), nl=False)
    for w in {r.wager.id: r.wager for r in result if r.wager.implausible}.values():
        click.echo(f"exactodds: warning: {w.id} under the reading {w.reading_id!r} is implausible: "
                   f"{w.implausible}", err=True)


def _with_settings(cat: Any, settings: tuple[str, ...]) -> Any:
    """The catalogue with ``--set WAGER:NAME=VALUE`` applied."""
    from .wagers import Catalogue

    values: dict[str, dict[str, object]] = {}
    for item in settings:
        target, sep, raw = item.partition("=")
        wid, colon, name = target.partition(":")
        if not sep or not colon or not wid.strip() or not name.strip():
            raise ExactOddsError(f"--set {item!r}: write WAGER:NAME=VALUE")
        if name.strip() in values.get(wid.strip(), {}):
            raise ExactOddsError(f"--set {wid.strip()}:{name.strip()}: given twice")
        try:
            values.setdefault(wid.strip(), {})[name.strip()] = (raw.strip() if name.strip() == "bet"  # dollars
                                                                else _parameter_value(raw.strip()))
        except ExactOddsError as exc:
            raise ExactOddsError(f"--set {target.strip()}=…: {str(exc).removeprefix('--set: ')}") from None
    wagers = dict(cat)
    for wid, params in values.items():
        if wid not in wagers:
            raise ExactOddsError(f"--set: unknown wager {wid!r}{_did_you_mean(wid, wagers)}")
        try:
            if "bet" in params:                 # a bet size: the vigorish rounded to 25¢ (627a.12(c))
                from .vigorish import at_bet, parse_dollars

                bet = params.pop("bet")
                wagers[wid] = at_bet(wagers[wid], parse_dollars(bet, where=f"{wid}:bet"))
            if params:
                wagers[wid] = wagers[wid].with_parameters(params)
        except ExactOddsError as exc:
            raise ExactOddsError(f"--set: {exc}") from None
    return Catalogue(wagers.values())


def _parameter_value(raw: str) -> object:
    """``5`` → 5; ``Ks9s,Kh9h`` → ('K♠9♠', 'K♥9♥'); card pairs are written with suit symbols."""
    from .cards import Card

    def one(text: str) -> object:
        text = text.strip()
        if text.lstrip("-").isdigit():
            if len(text) > 18:
                raise ExactOddsError(f"--set: {text[:20]}…: a number has at most 18 digits")
            return int(text)
        for cut in range(2, len(text) - 1):
            try:
                a, b = Card.parse(text[:cut]), Card.parse(text[cut:])
            except ExactOddsError:
                continue
            return f"{a}{b}"
        return text

    if "," in raw:
        return tuple(one(t) for t in raw.split(",") if t.strip())
    return one(raw)


@cli.command(name="list")
@_PAYTABLES
@_FORMAT
def list_(paytables_files: tuple[str, ...], fmt: str) -> None:
    """Every wager of the catalogue with its section and paytables (a file's wagers each checked
    against every possible round)."""
    cat = _catalogue(paytables_files, check_all=True)
    rows = [
        {"id": w.id, "name": w.name, "game": w.game, "section": w.section,
         "paytables": list(w.paytables), "alternatives": list(w.alternatives), "source": w.source,
         "reading": w.reading,
         "implausible_alternatives": {a.id: a.implausible for a in w.alternatives.values() if a.implausible}}
        for w in cat.values()
    ]
    if fmt == "json":
        from . import __version__

        click.echo(json.dumps({"exactodds": __version__, "kind": "catalogue", "wagers": rows}, indent=2,
                              ensure_ascii=False))
        return
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        out = csv.writer(buf, lineterminator="\n")
        out.writerow(["id", "name", "game", "section", "paytables", "alternatives", "source"])
        for r in rows:
            out.writerow([r["id"], r["name"], r["game"], r["section"], " ".join(r["paytables"]),
                          " ".join(r["alternatives"]), r["source"]])
        click.echo(buf.getvalue(), nl=False)
        return
    if fmt in ("markdown", "html"):
        from .render import grid

        click.echo(grid(["id", "wager", "section", "paytables", "alternatives"],
                        [[r["id"], r["name"], f"§{r['section']}", ", ".join(r["paytables"]),
                          ", ".join(r["alternatives"])] for r in rows], fmt))
        return
    width = max(len(r["id"]) for r in rows)
    for r in rows:
        names = [a + (" (implausible)" if a in r["implausible_alternatives"] else "") for a in r["alternatives"]]
        alt = f"  [alternatives: {', '.join(names)}]" if names else ""
        click.echo(f"{r['id']:<{width}}  §{r['section']}  paytables: {', '.join(r['paytables'])}{alt}")


@cli.command()
@click.argument("paths", nargs=-1, required=True, metavar="FILE...")
def check(paths: tuple[str, ...]) -> None:
    """Check every wager of your data files: as data, and each outcome against every possible round."""
    from .analysis import load_text

    for path, text in _user_files(paths):
        mine = load_text(text, source=path, check_all=True)
        click.echo(f"{path}: {len(mine)} wager(s) checked against every possible round")


@cli.command()
@_FORMAT
def features(fmt: str) -> None:
    """Every feature a condition in a paytable file can read, with its meaning."""
    import csv
    import io

    from .outcomes import vocabulary

    rows = vocabulary()
    if fmt == "json":
        from . import __version__

        click.echo(json.dumps({"version": __version__, "features": rows}, indent=2, ensure_ascii=False))
    elif fmt == "csv":
        buf = io.StringIO()
        out = csv.DictWriter(buf, fieldnames=["name", "type", "group", "meaning"], lineterminator="\n")
        out.writeheader()
        out.writerows(rows)
        click.echo(buf.getvalue(), nl=False)
    elif fmt == "markdown":
        click.echo("| feature | type | group | meaning |\n|---|---|---|---|")
        for r in rows:
            click.echo(f"| `{r['name']}` | {r['type']} | {r['group']} | {r['meaning']} |")
    else:
        width = max(len(r["name"]) for r in rows)
        group = None
        for r in rows:
            if r["group"] != group:
                group = r["group"]
                click.echo(("" if r is rows[0] else "\n") + f"{group} features:")
            click.echo(f"  {r['name']:<{width}}  {r['type']:<6}  {r['meaning']}")


def _meter_values(items: tuple[str, ...], symbols: list[str], wager: Any, option: str = "--meter") -> dict[str, Any]:
    """``--meter 25000`` (one meter) or ``--meter mega=60000`` (named) in dollars → units of the wager."""
    from .progressive import _dollars

    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.rpartition("=")
        if not sep:
            if len(symbols) != 1:
                raise ExactOddsError(f"{option} {item!r}: this wager has meters {', '.join(symbols)}; write NAME=DOLLARS")
            symbol = symbols[0]
        else:
            symbol = name if name in symbols else f"J_{name.lower()}"
            if symbol not in symbols:
                raise ExactOddsError(f"{option} {item!r}: no meter {name!r}{_did_you_mean(name, symbols)} "
                                     f"(meters: {', '.join(symbols)})")
        if symbol in out:
            raise ExactOddsError(f"{option} {symbol} given twice")
        dollars = _dollars(raw, where=f"{option} {item!r}")
        if wager is None:
            raise ExactOddsError(f"{option} in dollars needs the wager amount: give --wager-amount")
        out[symbol] = dollars / wager
    return out


def _rates(items: tuple[str, ...], symbols: list[str], option: str) -> dict[str, Any]:
    from .progressive import parse_rate

    out = {}
    for item in items:
        name, sep, raw = item.rpartition("=")
        symbol = symbols[0] if not sep and len(symbols) == 1 else (name if name in symbols else f"J_{name.lower()}")
        if symbol not in symbols:
            raise ExactOddsError(f"{option} {item!r}: write NAME=RATE with a meter of {', '.join(symbols)}"
                                 + _did_you_mean(name, symbols))
        if symbol in out:
            raise ExactOddsError(f"{option} {symbol} given twice")
        out[symbol] = parse_rate(raw, where=f"{option} {item!r}")
    return out


@cli.command()
@click.argument("wager", metavar="WAGER[:PAYTABLE]")
@click.option("--paytable", help="Paytable (default: the wager's first).")
@click.option("--decks", type=int, default=8, show_default=True)
@click.option("--remove", metavar="CARDS", help="Cards taken out, comma-separated.")
@click.option("--meter", "meters", multiple=True, metavar="[NAME=]DOLLARS", help="Meter value(s) to price at.")
@click.option("--wager-amount", metavar="DOLLARS", help="Wager in dollars (default: the stated minimum).")
@click.option("--increment", "increments", multiple=True, metavar="[NAME=]RATE", help="Increment rate, e.g. 10%.")
@click.option("--reserve", "reserves", multiple=True, metavar="[NAME=]RATE", help="Reserve (reseed) rate.")
@click.option("--reseed", "reseeds", multiple=True, metavar="[NAME=]DOLLARS", help="Reseed amount in dollars.")
@_PAYTABLES
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
              show_default=True)
def progressive(wager: str, paytable: str | None, decks: int, remove: str | None, meters: tuple[str, ...],
                wager_amount: str | None, increments: tuple[str, ...], reserves: tuple[str, ...],
                reseeds: tuple[str, ...], paytables_files: tuple[str, ...], fmt: str) -> None:
    """Return of a progressive wager as an exact function of its meter(s)."""
    from fractions import Fraction

    if ":" in wager:                                      # WAGER:PAYTABLE, as every command names it
        if paytable is not None:
            raise ExactOddsError("give the paytable once: WAGER:PAYTABLE or --paytable")
        wager, paytable = wager.split(":", 1)

    from .analysis import analyze as run
    from .pays import parse_amount
    from .progressive import load_meters, long_run_return, progressive_analysis
    from .report import render_progressive

    cat = _catalogue(paytables_files)
    w = cat[wager]
    table = w.paytable(paytable).id if paytable else next(iter(w.paytables))
    (result,) = run(_shoe(decks, remove), wagers=[wager], paytables=[table], catalogue=cat)
    spec = load_meters()[0].get((w.id, table))
    analysis = progressive_analysis(result, spec)
    symbols = list(analysis.coefficients)
    amount = analysis.minimum_wager
    if wager_amount is not None:
        amount = parse_amount(wager_amount, where="--wager-amount", what="a dollar amount")
        if amount <= 0:
            raise ExactOddsError(f"--wager-amount {wager_amount!r}: must be above 0")
    at = _meter_values(meters, symbols, amount) if meters else None
    inc = {s: m.increment_rate for s, m in (spec.meters.items() if spec else []) if m.increment_rate is not None}
    inc.update(_rates(increments, symbols, "--increment"))
    res = {s: m.reserve_rate for s, m in (spec.meters.items() if spec else []) if m.reserve_rate is not None}
    res.update(_rates(reserves, symbols, "--reserve"))
    seeds = {s: m.reseed for s, m in (spec.meters.items() if spec else []) if m.reseed is not None}
    for item in reseeds:
        seeds.update({k: v * (amount or 1) for k, v in _meter_values((item,), symbols, amount or 1,
                                                                     option="--reseed").items()})
    long_run = None
    funded = {s: q for s, q in res.items() if s not in seeds or reserves}       # reserve-funded reseeds
    if all(s in inc for s in symbols) and all(s in funded or (s in seeds and amount) for s in symbols):
        long_run = long_run_return(analysis, wager=amount or Fraction(1), increment=inc, reseed=seeds,
                                   reserve=funded)
    click.echo(render_progressive(analysis, fmt, wager_amount=amount, at=at, long_run=long_run,
                                  increments=inc, reserves=res, reseeds=seeds, funded=funded), nl=False)


@cli.command()
@click.option("--decks", type=int, default=8, show_default=True, help="Full 52-card decks in the shoe.")
@click.option("--remove", metavar="CARDS", help="Cards taken out, comma-separated, may repeat: 5S,5S,KH,9.")
@click.option("--bets", metavar="DOLLARS,...", help="Bet sizes (default: $1 to $25, then every $5 to $100).")
@click.option("--wager", "wagers", multiple=True, metavar="WAGER[:PAYTABLE]", callback=_each_once,
              help="A wager that charges a vigorish (repeatable; default banker; a bare WAGER: each of its "
                   "paytables that charges one).")
@_PAYTABLES
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
              show_default=True, help="Output format; JSON and CSV keep exact values exact (several wagers: one "
              "CSV with the wager and paytable first, JSON tables).")
def vigorish(decks: int, remove: str | None, bets: str | None, wagers: tuple[str, ...],
             paytables_files: tuple[str, ...], fmt: str) -> None:
    """The Banker's exact edge at each bet size, the vigorish rounded up to 25¢ (627a.12(c))."""
    from .analysis import priced_pairs
    from .pays import THOUSANDS, vigorish_terms
    from .vigorish import COMMON_BETS, VigorishTables, parse_dollars, vigorish_table

    if bets is not None and "," in bets and THOUSANDS.match(bets.strip().lstrip("$")):
        raise ExactOddsError(f"--bets {bets!r}: a comma separates bets here; write one bet of {bets} without the "
                             f"comma, or several as {', '.join(bets.split(','))}")
    sizes = ([parse_dollars(b, where="--bets") for b in bets.split(",") if b.strip()] if bets is not None
             else list(COMMON_BETS))
    if not sizes:
        raise ExactOddsError("--bets: give at least one bet size")
    cat = _catalogue(paytables_files)
    pairs = []
    for spec in wagers or ("banker",):
        chosen = priced_pairs(cat, [spec], where="--wager")
        charged = [(w, t) for w, t in chosen if any(vigorish_terms(p.text) for p in w.paytables[t].pays.values())]
        if not charged or (":" in spec and len(charged) < len(chosen)):
            w, t = chosen[0]
            raise ExactOddsError(f"--wager {spec!r}: wager {w.id!r}" + (f" paytable {t!r}" if ":" in spec else "")
                                 + " charges no vigorish")
        pairs += [p for p in charged if p not in pairs]
    shoe = _shoe(decks, remove)
    tables = VigorishTables(tuple(vigorish_table(shoe, sizes, wager=w, paytable=t) for w, t in pairs))
    click.echo(tables.render(fmt), nl=False)


@cli.command()
@click.argument("stakes", nargs=-1, required=True, metavar="WAGER[:PAYTABLE][=STAKE]...")
@click.option("--decks", type=int, default=8, show_default=True, help="Full 52-card decks in the shoe.")
@click.option("--remove", metavar="CARDS", help="Cards taken out, comma-separated, may repeat: 5S,5S,KH,9.")
@_PAYTABLES
@click.option("--meter", "meters", multiple=True, metavar="NAME=UNITS",
              help="A progressive meter in units of its wager, e.g. J=2000 (repeatable).")
@click.option("--mystery", "mystery", multiple=True, metavar="CONFIGURATION",
              help="Add a must-hit-by bonus the position qualifies for (see 'exactodds mystery'), e.g. A-$5.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
              show_default=True, help="Output format; JSON and CSV keep exact values exact.")
def position(stakes: tuple[str, ...], decks: int, remove: str | None, paytables_files: tuple[str, ...],
             meters: tuple[str, ...], mystery: tuple[str, ...], fmt: str) -> None:
    """Several wagers on one round: the exact joint result, its variance and covariances."""
    from .positions import parse_stake
    from .positions import position as run

    cat = _catalogue(paytables_files)
    parsed = [parse_stake(s) for s in stakes]
    values = _meter_units(meters)
    for wid, table, _ in parsed:
        try:
            w = cat[wid]
            if table is not None:
                w.paytable(table)
        except ExactOddsError as exc:
            raise ExactOddsError(f"stake {wid}{':' + table if table else ''}: {exc}") from None
    result = run(_shoe(decks, remove), parsed, catalogue=cat, meters=values or None, mystery=mystery)
    click.echo(result.render(fmt), nl=False)


@cli.command(name="house-money")
@click.option("--decks", type=int, default=8, show_default=True, help="Full 52-card decks in the shoe.")
@click.option("--remove", metavar="CARDS", help="Cards taken out, comma-separated, may repeat: 5S,5S,KH,9.")
@click.option("--bet", "bets", type=click.Choice(["player", "banker"]), multiple=True,
              help="The main wager the payout rides on (default: both, one after the other).")
@click.option("--portion", default="1", show_default=True, metavar="FRACTION",
              help="The share of the payout that may ride, if the Rules Submission specifies one (e.g. 1/2).")
@click.option("--ratio", "ratios", multiple=True, metavar="R",
              help="Main wager ÷ House Money stake, for the value per unit of the main wager (default 1, 5, 10).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
              show_default=True, help="Output format; JSON and CSV keep exact values exact.")
def house_money_command(decks: int, remove: str | None, bets: tuple[str, ...], portion: str,
                        ratios: tuple[str, ...], fmt: str) -> None:
    """House Money's let-it-ride option (627a.8(d)(1)): never, always and optimal, exactly."""
    from fractions import Fraction

    from .house_money import house_money, render_options

    def fraction(raw: str, option: str) -> Fraction:
        try:
            value = Fraction(raw.strip())
        except (ValueError, ZeroDivisionError):
            raise ExactOddsError(f"{option} {raw!r}: not a number (write e.g. 1/2 or 0.5)") from None
        if not 0 < value <= 10**6:
            raise ExactOddsError(f"{option} {raw!r}: must be above 0 and at most 1,000,000")
        return value

    shoe = _shoe(decks, remove)
    share = fraction(portion, "--portion")
    options = [house_money(shoe, bet=b, portion=share) for b in (bets or ("player", "banker"))]
    click.echo(render_options(options, fmt, ratios=[fraction(r, "--ratio") for r in ratios] or
                              [Fraction(1), Fraction(5), Fraction(10)]), nl=False)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (this machine only by default).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--decks", type=click.IntRange(1, 100), default=8, show_default=True, help="Decks of a new shoe.")
@click.option("--wager", "wagers", multiple=True, metavar="WAGER[:PAYTABLE]", callback=_each_once,
              help="Wagers shown at first (repeatable; default: the countable side bets and the main game).")
@_PAYTABLES
def serve(host: str, port: int, decks: int, wagers: tuple[str, ...], paytables_files: tuple[str, ...]) -> None:
    """A live shoe page: enter cards as they are dealt and watch every wager's exact edge (served by waitress)."""
    from .serve import create_app, listen

    files = _user_files(paytables_files)
    _with_files(files)                                   # a bad file is named by its path here
    app = create_app(decks=decks, wagers=list(wagers),
                     files=[{"name": Path(path).name, "text": text} for path, text in files])
    server = listen(app, host, port)                     # a bad --host or --port is one line here
    try:
        bound = getattr(server, "effective_listen", None) or [(server.effective_host, server.effective_port)]
        where, at = bound[0]
        where = f"[{where}]" if ":" in str(where) else where
        click.echo(f"exactodds: the live shoe page is at http://{where}:{at}/ (Ctrl-C stops it)", err=True)
        server.run()                                     # returns only on Ctrl-C or SIGTERM: waitress catches it
    finally:
        server.close()
    raise KeyboardInterrupt                              # so the run ends as an interrupted one, not as a success


@cli.command()
@click.option("--whole-cents", is_flag=True, help="Hit point uniform on whole cents (default: continuous).")
@click.option("--minimum", metavar="DOLLARS", help="Your own configuration: minimum (reset) dollars.")
@click.option("--maximum", metavar="DOLLARS", help="Your own configuration: maximum (must-hit-by) dollars.")
@click.option("--rate", metavar="RATE", help="Your own configuration: contribution rate, e.g. 2%.")
@click.option("--wager-amount", metavar="DOLLARS", help="Your own configuration: qualifying wager.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
              show_default=True)
def mystery(whole_cents: bool, minimum: str | None, maximum: str | None, rate: str | None,
            wager_amount: str | None, fmt: str) -> None:
    """Long-run return of every Must-Hit-By mystery configuration (631b.6, 627b.3(h))."""
    from .progressive import MysterySpec, _dollars, load_meters, mystery_return, parse_rate
    from .report import render_mystery

    custom = (minimum, maximum, rate, wager_amount)
    if any(x is not None for x in custom):
        if any(x is None for x in custom):
            raise ExactOddsError("a configuration of your own needs --minimum, --maximum, --rate and --wager-amount")
        specs = [MysterySpec(
            "custom", "Your configuration", "631b.6(c) rule",
            _dollars(wager_amount, where="--wager-amount", allow_zero=False),
            _dollars(minimum, where="--minimum"), _dollars(maximum, where="--maximum"),
            parse_rate(rate, where="--rate"))]
    else:
        specs = list(load_meters()[1].values())
    if whole_cents:
        for spec in specs:
            if (spec.maximum - spec.minimum) * 100 > 10**7:
                raise ExactOddsError(f"--maximum: with --whole-cents the span from minimum to maximum is at most "
                                     f"$100,000 (10 million cents); {spec.id!r} spans ${spec.maximum - spec.minimum}")
    rows = [mystery_return(spec, whole_cents=whole_cents) for spec in specs]
    click.echo(render_mystery(rows, fmt), nl=False)


@cli.command()
@click.option("--wager", "wagers", multiple=True, metavar="WAGER[:PAYTABLE]",
              help="A wager (all its paytables, or the one named); repeatable, each is certified.")
@click.option("--paytable", "paytables", multiple=True, metavar="ID",
              help="Shorthand: this paytable of every bare --wager (repeatable).")
@click.option("--section", "sections", multiple=True, help="Every wager citing a section, e.g. 631b.9 or 627a.12(e) "
              "(repeatable).")
@click.option("--all", "everything", is_flag=True, help="The whole catalogue (with your files' wagers).")
@_PAYTABLES
@click.option("--decks", "decks", multiple=True, type=int, help="Decks (repeatable; default 6 and 8).")
@click.option("--remove", metavar="CARDS", help="Cards taken out of every shoe, comma-separated.")
@click.option("--title", help="Title of the certificate.")
@click.option("--format", "fmt", type=click.Choice(["markdown", "html", "json", "pdf"]), default="markdown",
              show_default=True, help="pdf prints the HTML with Debian's chromium and attaches the JSON "
              "(needs --output).")
@click.option("--output", "output", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.option("--bet", metavar="DOLLARS", help="Bet size: wagers with a vigorish are priced with it rounded up "
              "to 25¢ (627a.12(c)).")
@click.option("--issued", metavar="YYYY-MM-DD", help="Date of issue (default: today, UTC).")
@click.option("--issuer", metavar="NAME", help="Who issues the certificate (cover page).")
@click.option("--prepared-by", metavar="NAME", help="Who prepared it (cover page; a blank line if not given).")
@click.option("--approved-by", metavar="NAME", help="Who approved it (cover page; a blank line if not given).")
@click.option("--sign", "key", metavar="KEY", help="Sign with this Ed25519 private key (from 'exactodds keygen').")
@click.option("--signer", metavar="NAME", help="The signer's name, signed with the certificate.")
def certificate(wagers: tuple[str, ...], paytables: tuple[str, ...], sections: tuple[str, ...], everything: bool,
                paytables_files: tuple[str, ...], decks: tuple[int, ...], remove: str | None, title: str | None,
                fmt: str, output: str | None,
                bet: str | None, issued: str | None, issuer: str | None, prepared_by: str | None,
                approved_by: str | None, key: str | None, signer: str | None) -> None:
    """An exact return-to-player certificate a lab files (Markdown, HTML, JSON or PDF), optionally signed.

    With --paytables FILE the certificate carries the file's text and SHA-256, and verify recomputes from them;
    without --wager, --section or --all it certifies the files' own wagers and paytables.
    """
    from .certificate import build, select_for_certificate, shoes_from_options, write_atomically
    from .documents import render_html, render_markdown
    from .signing import check_name

    files = _user_files(paytables_files)
    cat, own = _with_files(files)
    if files and not (wagers or sections or everything):
        wagers = tuple(own)
    selection = select_for_certificate(cat, wagers=wagers, paytables=paytables, sections=sections,
                                       everything=everything)
    shoes = shoes_from_options(decks or (6, 8), remove)
    if output is not None:
        _check_writable(output)
    if fmt == "pdf" and output is None:
        raise ExactOddsError("--format pdf needs --output FILE")
    if signer is not None and key is None:
        raise ExactOddsError("--signer goes with --sign KEY")
    check_name(signer, "--signer", optional=True)            # before the figures are computed
    cert = build(shoes=shoes, selection=selection, title=title, bet=bet, issued=issued,
                 parties={"issuer": issuer, "prepared_by": prepared_by, "approved_by": approved_by},
                 files=[{"name": Path(path).name, "text": text} for path, text in files])
    if key is not None:
        from .signing import sign

        cert = sign(cert, key, signer=signer)
    done = f"certificate {cert['certificate_number']}" + (" (signed)" if key else "")
    if fmt == "pdf":
        from .documents import write_pdf

        write_pdf(cert, output)  # type: ignore[arg-type]
        click.echo(f"wrote {output}: {done}, pdf", err=True)
        return
    text = {"json": lambda c: json.dumps(c, indent=2, ensure_ascii=False) + "\n",
            "html": render_html, "markdown": render_markdown}[fmt](cert)
    if output is None:
        click.echo(text, nl=False)
    else:
        write_atomically(output, text)
        click.echo(f"wrote {output}: {done}, {fmt}", err=True)


@cli.command()
@click.option("--output", "prefix", required=True, metavar="PREFIX",
              help="The private key goes to PREFIX (readable by you only), the public key to PREFIX.pub.")
def keygen(prefix: str) -> None:
    """Make an Ed25519 key pair for signing certificates (never overwrites a file)."""
    from .signing import keygen as make

    private, public = make(prefix)
    click.echo(f"wrote {private} (private: keep it to yourself) and {public} (public: give it to whoever verifies)")


def _check_writable(output: str) -> None:
    from .files import check_output

    check_output(output)


@cli.command()
@click.argument("path", metavar="CERTIFICATE")
@click.option("--public-key", metavar="KEY.pub", help="The signer's public key: the certificate must be signed with it.")
@click.option("--allow-other-version", is_flag=True,
              help="Accept a certificate made by another version of exactodds or other data, if every figure matches.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def verify(path: str, public_key: str | None, allow_other_version: bool, quiet: bool) -> None:
    """Recompute a certificate (JSON, HTML or PDF); exit 0 if everything matches, 1 if not, 2 if malformed.

    A certificate holds at most 16 shoes, 256 wagers, 512 wager paytables, 2,048 priced tables (shoes ×
    paytables) and 64 MiB, so that verifying it takes minutes at most; a larger one is refused (exit 2).
    A progress bar (tables priced) shows on standard error when it is a terminal.
    """
    from .certificate import priced_tables
    from .certificate import verify as check
    from .documents import read_document, render_html
    from .signing import load_public_key

    trusted = load_public_key(public_key) if public_key else None
    document, kind, html_text = read_document(path)
    show = not quiet and sys.stderr.isatty()
    try:
        with click.progressbar(length=max(1, priced_tables(document)), label="verifying (tables)",
                               file=sys.stderr) if show else _NoBar() as bar:
            done = [0]

            def advance(priced: int, total: int) -> None:
                bar.update(priced - done[0])
                done[0] = priced

            ok, message = check(document, public_key=trusted, allow_other_version=allow_other_version,
                                progress=advance)
    except ExactOddsError as exc:
        raise ExactOddsError(f"{path}: {exc}") from None
    if ok and kind == "html" and render_html(document) != html_text:
        ok, message = False, ("the page's visible text differs from the certificate embedded in it"
                              + (" (or it was made by another version: verify its JSON)" if allow_other_version else ""))
    if ok and kind == "pdf":
        from .documents import pdf_differs

        differs = pdf_differs(path, document)
        if differs:
            ok, message = False, differs + (" (or it was made by another version: verify its JSON)"
                                            if allow_other_version else "")
    if ok:
        click.echo(f"{path}: {message}")
        return
    click.echo(f"{path}: FAILED: {message}", err=True)
    sys.exit(EXIT_CHECK_FAILED)


@cli.command()
@click.option("--output-dir", default="tables", show_default=True, metavar="DIR", help="Where to write the tables.")
@click.option("--decks", "decks", multiple=True, type=int, help="Decks (repeatable; default 6 and 8).")
@click.option("--wager", "wagers", multiple=True, metavar="WAGER[:PAYTABLE]", callback=_each_once,
              help="Only these (repeatable; default: every wager and paytable, your files' too).")
@_PAYTABLES
def tables(output_dir: str, decks: tuple[int, ...], wagers: tuple[str, ...], paytables_files: tuple[str, ...]) -> None:
    """Write the exact tables of every wager and paytable (CSV and Markdown) for each shoe."""
    from .tables import write_tables

    for n in decks:                                  # named before anything is written
        _shoe(n, None)
    cat = _catalogue(paytables_files)
    for path in write_tables(output_dir, decks or (6, 8), catalogue=cat, wagers=wagers):
        click.echo(path)


@cli.command()
@click.argument("specs", nargs=-1, metavar="WAGER[:PAYTABLE]...", callback=_each_once)
@click.option("--all", "everything", is_flag=True, help="Every wager and paytable of the catalogue.")
@click.option("--decks", type=int, default=8, show_default=True, help="Full 52-card decks in the shoe.")
@click.option("--remove", metavar="CARDS", help="Cards taken out first, comma-separated, may repeat: 5S,5S,KH,9.")
@_PAYTABLES
@click.option("--tags", metavar="RANK=TAG,...", help="Your own count instead of the suggested one, e.g. 4=-1,5=-1,6=-1,7=-1,8=2,9=2.")
@click.option("--max-tag", type=click.IntRange(1, 10), default=3, show_default=True, help="Largest tag of a suggested count.")
@click.option("--meter", "meters", multiple=True, metavar="NAME=UNITS",
              help="Read a progressive's effects at this meter, in units of its wager (default: the reseed).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
              show_default=True, help="Output format; JSON and CSV keep exact values exact.")
def eor(specs: tuple[str, ...], everything: bool, decks: int, remove: str | None, paytables_files: tuple[str, ...],
        tags: str | None, max_tag: int, meters: tuple[str, ...], fmt: str) -> None:
    """Exact effect of removal of each card on a wager's return, and a count built from it."""
    from .analysis import priced_pairs
    from .counting import parse_tags
    from .eor import effects_of_removal

    if everything and specs:
        raise ExactOddsError("--all and WAGER arguments exclude each other")
    cat = _catalogue(paytables_files)
    if not specs and not everything:
        raise ExactOddsError("name a wager (WAGER or WAGER:PAYTABLE, see 'exactodds list') or give --all")
    pairs = priced_pairs(cat, list(cat) if everything else specs, where="wager")
    given = parse_tags(tags) if tags is not None else None
    table = effects_of_removal(_shoe(decks, remove), pairs, catalogue=cat, tags=given, max_tag=max_tag,
                               meters=_meter_units(meters) or None)
    click.echo(table.render(fmt), nl=False)


@cli.command()
@click.argument("specs", nargs=-1, required=True, metavar="WAGER[:PAYTABLE]...", callback=_each_once)
@click.option("--shoes", type=int, required=True, help="Shoes to deal.")
@click.option("--seed", type=int, required=True, help="Seed of the run: shoe i is shuffled from (seed, i).")
@click.option("--decks", type=int, default=8, show_default=True, help="Full 52-card decks in the shoe.")
@click.option("--cut", type=int, default=14, show_default=True, help="Cards behind the cover card (>= 14, §627a.5(d)).")
@click.option("--tags", metavar="RANK=TAG,...", help="Your own count instead of the suggested one, e.g. 4=-1,5=-1,6=-1,7=-1,8=2,9=2.")
@_PAYTABLES
@click.option("--batch", type=int, default=25, show_default=True, help="Shoes per unit of work.")
@click.option("--workers", type=int, default=None, help="Local processes (default: every core).")
@click.option("--scheduler", metavar="ADDRESS", help="Run on a Dask cluster, e.g. tcp://10.0.0.5:8786.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
              show_default=True, help="Output format; JSON and CSV keep exact values exact.")
def exposure(specs: tuple[str, ...], shoes: int, seed: int, decks: int, cut: int, tags: str | None,
             paytables_files: tuple[str, ...], batch: int, workers: int | None, scheduler: str | None, quiet: bool,
             fmt: str) -> None:
    """Deal real shoes; the exact edge and the count before every round; what a counter wins."""
    import os

    from .analysis import priced_pairs
    from .counting import parse_tags
    from .exposure import MAX_WORKERS
    from .exposure import exposure as run

    cat = _catalogue(paytables_files)
    pairs = priced_pairs(cat, specs, where="wager")
    given = parse_tags(tags) if tags is not None else None
    show = not quiet and sys.stderr.isatty()
    with click.progressbar(length=shoes, label="shoes", file=sys.stderr) if show else _NoBar() as bar:
        done = [0]

        def advance(total: int) -> None:
            bar.update(total - done[0])
            done[0] = total

        result = run(pairs, shoes=shoes, seed=seed, decks=decks, cut=cut, tags=given, catalogue=cat, batch=batch,
                     workers=workers if workers is not None else min(os.cpu_count() or 1, MAX_WORKERS),
                     scheduler=scheduler, progress=advance)
    click.echo(result.render(fmt), nl=False)


@cli.command()
@click.option("--decks", type=int, default=8, show_default=True)
@click.option("--rounds", type=int, default=1_000_000, show_default=True, help="At least this many rounds.")
@click.option("--seed", type=int, required=True, help="Seed of the random generator (reproducible output).")
@click.option("--mode", type=click.Choice(["shoe", "fresh"]), default="shoe", show_default=True,
              help="Deal real shoes to a cut card, or every round off a fresh shoe.")
@click.option("--cut", type=int, default=14, show_default=True, help="Cards behind the cover card (>= 14).")
@click.option("--settle", "settle", multiple=True, metavar="WAGER[:PAYTABLE]", callback=_each_once,
              help="Write the settlement of these wagers (repeatable; 'all' for the whole catalogue).")
@_PAYTABLES
@click.option("--fault", "faults", multiple=True, help="Break the simulator on purpose (repeatable): table1:B,X, "
              "with-replacement or perfect-pairs-mixed-as-coloured.")
@click.option("--format", "fmt", type=click.Choice(["csv", "jsonl", "parquet"]), default=None,
              help="Record format (default: from the extension of --output, else csv).")
@click.option("--output", required=True, metavar="FILE", help="Where to write (.csv, .jsonl, .parquet; .gz, .zst, "
              ".bz2 or .lz4 after a CSV or JSON Lines name; '-' for standard output).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def simulate(decks: int, rounds: int, seed: int, mode: str, cut: int, settle: tuple[str, ...],
             paytables_files: tuple[str, ...], faults: tuple[str, ...], fmt: str | None, output: str,
             quiet: bool) -> None:
    """Deal rounds with the seeded reference simulator and write check-sim records, in bounded memory."""
    import time
    from pathlib import PurePath

    from .recordio import CARD_COLUMNS, RecordWriter, detect
    from .simulate import record_table, simulate_chunks

    pairs = []
    if paytables_files and not settle:
        raise ExactOddsError("--paytables goes with --settle (the wagers whose settlement is written)")
    if settle:                                           # the catalogue only when something is settled
        from .analysis import priced_pairs

        cat = _catalogue(paytables_files)
        for item in settle:
            if item == "all":
                pairs += [(w, w.paytables[t]) for w in cat.values() for t in w.paytables]
            else:
                pairs += [(w, w.paytables[t]) for w, t in priced_pairs(cat, [item], where="--settle")]
        pairs = list({(w.id, t.id): (w, t) for w, t in pairs}.values())   # each settlement column once
    try:
        kind = fmt or (detect(output, None)[0] if output != "-" else "csv")
    except ExactOddsError as exc:
        raise ExactOddsError(f"--output {exc}") from None
    named = [x.lstrip(".") for x in PurePath(output).suffixes if x.lstrip(".").lower() in ("csv", "jsonl", "parquet")]
    if fmt is not None and output != "-" and named and named[-1].lower() != fmt:
        raise ExactOddsError(f"--format {fmt} but --output {output} names a .{named[-1]} file")
    chunks = simulate_chunks(decks=decks, rounds=rounds, seed=seed, mode=mode, cut=cut, faults=faults)
    columns = [*CARD_COLUMNS, *(f"{w.id}:{t.id}" for w, t in pairs)]
    t0 = time.perf_counter()
    show = not quiet and sys.stderr.isatty() and output != "-"
    try:
        with RecordWriter(output, kind, columns) as out, (
                click.progressbar(length=rounds, label="dealing", file=sys.stderr) if show else _NoBar()) as bar:
            for part in chunks:
                out.write(record_table(part, pairs))
                bar.update(min(len(part), max(0, rounds - (out.rows - len(part)))))
    except OSError as exc:                           # a full disk: the file named, its temporary file gone
        if output == "-" or isinstance(exc, BrokenPipeError):
            raise
        raise ExactOddsError(f"--output {output}: cannot write ({exc.strerror or exc})") from None
    wall = time.perf_counter() - t0
    click.echo(f"dealt and wrote {out.rows:,} rounds in {wall:.2f} s ({out.rows / wall / 1e6:.2f} M rounds/s)"
               + ("" if output == "-" else f" to {output}"), err=True)


def _no_total() -> Iterator[int]:
    """An iterable without a length: the progress bar counts without a total."""
    yield from ()


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int) -> None:
        return None


@cli.command(name="check-sim")
@click.argument("paths", metavar="SOURCE...", nargs=-1, required=True)
@click.option("--decks", type=int, default=None, help="Decks of the simulated shoe (default 8, or the counts file's).")
@click.option("--wager", "wagers", multiple=True, metavar="WAGER[:PAYTABLE]", callback=_each_once, help="Check only these (repeatable).")
@_PAYTABLES
@click.option("--alpha", type=float, default=0.01, show_default=True, help="Significance after Holm's correction.")
@click.option("--counts", is_flag=True, help="SOURCE holds aggregated outcome counts (JSON), not rounds.")
@click.option("--input-format", "input_format", type=click.Choice(["csv", "jsonl", "parquet"]), default=None,
              help="Record format (default: from each file's extension).")
@click.option("--lenient", is_flag=True, help="List unreadable or rule-breaking rounds instead of stopping.")
@click.option("--scheduler", metavar="ADDRESS", help="Count the shards on a Dask cluster, e.g. tcp://10.0.0.5:8786.")
@click.option("--verbose", is_flag=True, help="Show every test, not only flagged ones.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown", "html"]), default="text",
              show_default=True)
def check_sim(paths: tuple[str, ...], decks: int | None, wagers: tuple[str, ...], paytables_files: tuple[str, ...],
              alpha: float, counts: bool,
              input_format: str | None, lenient: bool, scheduler: str | None, verbose: bool, quiet: bool,
              fmt: str) -> None:
    """Test a simulator's output against the exact distribution: files, directories or globs of
    shards (read as one data set), or '-'.

    Records are read in chunks and only their counts are kept, so memory stays bounded however
    many there are. A CSV or JSON Lines record is one line of at most 65,536 bytes (64 KiB); a
    longer line is an error naming it.

    Exit 0 ok, 1 flagged, 2 bad input.
    """
    from .checksim import check_counts, check_files, read_counts, render

    if counts and len(paths) > 1:
        raise ExactOddsError(f"--counts reads one counts file, got {len(paths)} sources")
    path = paths[0]

    if decks is not None and not 1 <= decks <= 10**7:
        raise ExactOddsError(f"--decks: number of decks must be a whole number from 1 to 10,000,000, got {decks}")
    if not 0 < alpha < 1:
        raise ExactOddsError(f"--alpha must be between 0 and 1, got {alpha}")
    cat = _catalogue(paytables_files)
    if counts:
        data = read_counts(path)
        stated = data.get("decks")
        if stated is not None and decks is not None and stated != decks:
            raise ExactOddsError(f"{path}: 'decks' is {stated} but --decks says {decks}")
        result = check_counts(data, decks=stated or decks or 8, alpha=alpha, catalogue=cat, wagers=wagers or None)
    else:
        show = not quiet and sys.stderr.isatty()
        with click.progressbar(_no_total(), label="checking (rounds)", file=sys.stderr, show_pos=True,
                               show_eta=False) if show else _NoBar() as bar:
            result = check_files(list(paths), decks=decks or 8, wagers=wagers or None, alpha=alpha, lenient=lenient,
                                 fmt=input_format, scheduler=scheduler, progress=bar.update, catalogue=cat)
    click.echo(render(result, fmt, verbose=verbose), nl=False)
    if not result.ok:
        sys.exit(EXIT_CHECK_FAILED)


def main() -> None:
    """Console-script entry point."""
    signal.signal(signal.SIGINT, signal.default_int_handler)       # from here on, Ctrl-C unwinds (see _Stopped)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for stream in (sys.stdout, sys.stderr):               # a terminal that cannot show ♠ gets '?'
        if hasattr(stream, "reconfigure") and (stream.encoding or "").lower().replace("-", "") != "utf8":
            stream.reconfigure(errors="replace")
    cli()


if __name__ == "__main__":
    main()
