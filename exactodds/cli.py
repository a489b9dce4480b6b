"""The ``exactodds`` command: thin — parse, call the library, render, exit.

Exit codes: 0 ok, 1 a check failed, 2 bad input. Results go to stdout, errors
to stderr as one line (``exactodds: error: ...``), never a traceback.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .errors import ExactOddsError

__all__ = ["cli", "main"]

EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class _Cli(click.Group):
    """A click group whose errors are one line on stderr with exit code 2."""

    def main(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D401
        kwargs["standalone_mode"] = False
        try:
            rv = super().main(*args, **kwargs)
        except ExactOddsError as exc:
            _fail(str(exc))
        except click.exceptions.NoArgsIsHelpError as exc:   # bare `exactodds`: help, not an error
            click.echo(exc.ctx.get_help() if exc.ctx else "")
            sys.exit(EXIT_OK)
        except click.ClickException as exc:
            _fail(exc.format_message())
        except click.exceptions.Abort:
            _fail("aborted")
        except BrokenPipeError:                              # `exactodds ... | head`
            sys.stderr.close()
            sys.exit(EXIT_OK)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)


def _fail(message: str) -> None:
    click.echo(f"exactodds: error: {' '.join(message.split())}", err=True)
    sys.exit(EXIT_BAD_INPUT)


_FORMAT = click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "csv", "markdown"]), default="text",
    show_default=True, help="Output format; JSON and CSV keep exact values exact.",
)


@click.group(cls=_Cli, no_args_is_help=True)
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


def _catalogue(paytables_file: str | None) -> Any:
    from .wagers import load_catalogue, load_file

    cat = load_catalogue()
    if paytables_file:
        cat = cat.merged(load_file(paytables_file))
    return cat


@cli.command()
@click.option("--decks", type=int, default=8, show_default=True, help="Full 52-card decks in the shoe.")
@click.option("--remove", metavar="CARDS", help="Cards taken out, comma-separated, may repeat: 5S,5S,KH,9.")
@click.option("--wager", "wagers", multiple=True, metavar="ID", help="Wager to price (repeatable; see 'list').")
@click.option("--paytable", "paytables", multiple=True, metavar="ID", help="Paytable to price (repeatable).")
@click.option("--all", "everything", is_flag=True, help="Every wager and paytable of the catalogue.")
@click.option("--paytables", "paytables_file", metavar="FILE", help="Your own wager data file (TOML), added to the catalogue.")
@click.option("--alternative", "alternatives", multiple=True, metavar="WAGER=READING",
              help="Price a wager under a documented alternative reading.")
@click.option("--set", "settings", multiple=True, metavar="WAGER:NAME=VALUE",
              help="Set a wager parameter, e.g. royal-9-progressive:seat=5 or "
                   "royal-9-progressive:combinations=Ks9s,Kh9h (a list is comma-separated).")
@click.option("--route", type=click.Choice(["vector", "walk"]), default="vector", show_default=True,
              help="Exact route: vectorised enumeration, or the recursive memoized walk.")
@_FORMAT
def analyze(decks: int, remove: str | None, wagers: tuple[str, ...], paytables: tuple[str, ...],
            everything: bool, paytables_file: str | None, alternatives: tuple[str, ...],
            settings: tuple[str, ...], route: str, fmt: str) -> None:
    """Exact per-outcome tables, return, edge and variance for a shoe."""
    from .analysis import analyze as run

    if everything and wagers:
        raise ExactOddsError("--all and --wager exclude each other")
    alts: dict[str, str] = {}
    for item in alternatives:
        wid, sep, alt = item.partition("=")
        if not sep or not wid.strip() or not alt.strip():
            raise ExactOddsError(f"--alternative {item!r}: write WAGER=READING")
        alts[wid.strip()] = alt.strip()
    shoe = _shoe(decks, remove)
    cat = _catalogue(paytables_file)
    if settings:
        cat = _with_settings(cat, settings)
    if paytables_file and not wagers and not everything:
        from .wagers import load_file

        wagers = tuple(load_file(paytables_file))
    result = run(shoe, wagers=wagers, paytables=paytables, everything=everything, catalogue=cat,
                 alternatives=alts, route=route)
    click.echo(result.render(fmt), nl=False)


def _with_settings(cat: Any, settings: tuple[str, ...]) -> Any:
    """The catalogue with ``--set WAGER:NAME=VALUE`` applied."""
    from .wagers import Catalogue

    values: dict[str, dict[str, object]] = {}
    for item in settings:
        target, sep, raw = item.partition("=")
        wid, colon, name = target.partition(":")
        if not sep or not colon or not wid.strip() or not name.strip():
            raise ExactOddsError(f"--set {item!r}: write WAGER:NAME=VALUE")
        values.setdefault(wid.strip(), {})[name.strip()] = _parameter_value(raw.strip())
    wagers = dict(cat)
    for wid, params in values.items():
        if wid not in wagers:
            raise ExactOddsError(f"--set: unknown wager {wid!r}")
        try:
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
@click.option("--paytables", "paytables_file", metavar="FILE", help="Also list the wagers of your own data file.")
@_FORMAT
def list_(paytables_file: str | None, fmt: str) -> None:
    """Every wager of the catalogue with its section and paytables."""
    cat = _catalogue(paytables_file)
    rows = [
        {"id": w.id, "name": w.name, "game": w.game, "section": w.section,
         "paytables": list(w.paytables), "alternatives": list(w.alternatives), "source": w.source,
         "reading": w.reading}
        for w in cat.values()
    ]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
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
    if fmt == "markdown":
        click.echo("| id | wager | section | paytables |\n|---|---|---|---|")
        for r in rows:
            click.echo(f"| {r['id']} | {r['name']} | §{r['section']} | {', '.join(r['paytables'])} |")
        return
    width = max(len(r["id"]) for r in rows)
    for r in rows:
        alt = f"  [alternatives: {', '.join(r['alternatives'])}]" if r["alternatives"] else ""
        click.echo(f"{r['id']:<{width}}  §{r['section']}  paytables: {', '.join(r['paytables'])}{alt}")


def main() -> None:
    """Console-script entry point."""
    cli()


if __name__ == "__main__":
    main()
