"""Commands that price and describe the catalogue: ``analyze``, ``list``, ``check``, ``features`` and
``design`` (pays for a target house edge)."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import click

from exactodds._version import __version__
from exactodds.analyses.analysis import analyze as run_analysis
from exactodds.analyses.analysis import load_text, priced_pairs, select
from exactodds.analyses.designer import design as design_paytables
from exactodds import documents                 # its plots are loaded when --plot is given (lazy_loader)
from exactodds.analyses.door import Door
from exactodds.cli import options
from exactodds.cli.core import command
from exactodds.errors import ExactOddsError, InconsistentCounts
from exactodds.files import check_output, write_atomically
from exactodds.game.cards import Card
from exactodds.render.tables import Column, Report, Table, cited, counted, render_report
from exactodds.wagers.bet_size import at_bet, parse_dollars
from exactodds.wagers.catalogue import Catalogue, check_id, load_catalogue
from exactodds.wagers.outcomes import vocabulary
from exactodds.wagers.pays import vigorish_terms


@command()
@options.decks
@options.remove
@options.wager
@click.option("--paytable", "paytables", multiple=True, metavar="ID", help="Shorthand: this paytable of every bare --wager (alone: of every wager that has it).")
@click.option("--all", "everything", is_flag=True, help="Every wager and paytable of the catalogue.")
@options.paytables
@click.option("--alternative", "alternatives", multiple=True, metavar="WAGER=READING",
              help="Price a wager under a documented alternative reading.")
@click.option("--set", "settings", multiple=True, metavar="WAGER:NAME=VALUE",
              help="Set a wager parameter, e.g. royal-9-progressive:seat=5 or "
                   "royal-9-progressive:combinations=Ks9s,Kh9h (a list is comma-separated).")
@options.bet
@click.option("--route", type=click.Choice(["auto", "vector", "walk"]), default="auto", show_default=True,
              help=options.ROUTE_HELP)
@click.option("--given", metavar="CONDITION", help="Price every table given a condition on the round's cards, in "
              "the paytable-file language, e.g. \"player_rank_1 in (7, 8, 9)\": its exact probability, and each "
              "table over the rounds where it holds.")
@click.option("--full", is_flag=True, help="With --all in a terminal: every outcome table, not the summary.")
@click.option("--summary", is_flag=True, help="One row per wager and paytable (return, edge, variance, hit "
              "frequency) instead of the outcome tables.")
@options.plot
@options.result_format
def analyze(decks: int, remove: str | None, wagers: tuple[str, ...], paytables: tuple[str, ...],
            everything: bool, paytables_files: tuple[str, ...], alternatives: tuple[str, ...],
            settings: tuple[str, ...], bet: str | None, route: str, given: str | None, full: bool, summary: bool,
            plot: str | None, fmt: str) -> None:
    """Exact per-outcome tables, return, edge and variance for a shoe.

    --bet prices every chosen wager that charges a vigorish at that bet size (as --set WAGER:bet=DOLLARS).
    --given prices them given what a player may know before the bet (a card's class seen, a flashed card).
    --plot draws the probability of each outcome, a panel per wager paytable (at most 24).
    """
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
    shoe = options.shoe(decks, remove)
    cat, own = options.with_files(options.user_files(paytables_files))
    if paytables_files and not wagers and not everything:     # the files' own wagers and paytables
        wagers = tuple(own)
    if settings:
        cat = _with_settings(cat, settings)
    if settings or bet is not None:
        chosen = {w.id for w, _ in select(cat, wagers=wagers, paytables=paytables, everything=everything,
                                          alternatives=alts)}
        for item in settings:
            wid, _, name = item.partition("=")[0].partition(":")
            if wid.strip() not in chosen:
                raise ExactOddsError(f"--set names wager {wid.strip()!r}, which is not selected")
            if bet is not None and name.strip() == "bet":
                raise ExactOddsError(f"--bet and --set {wid.strip()}:bet both give the bet size: give one")
        if bet is not None:
            cat = _at_bet(cat, chosen, bet)
    if full and summary:
        raise ExactOddsError("--full and --summary exclude each other")
    if everything and not summary and not full and fmt == "text" and _terminal():
        summary = True                        # 88 paytables' outcome tables are 1,400 lines: a row each instead
        click.echo("exactodds: note: the whole catalogue, a row per paytable (--full: every outcome table)",
                   err=True)
    if plot is not None:
        documents.check_plot_path(plot)
        panels = len(select(cat, wagers=wagers, paytables=paytables, everything=everything, alternatives=alts))
        if panels > MAX_PANELS:
            raise ExactOddsError(f"--plot draws a panel per wager paytable, at most {MAX_PANELS}; {panels} are "
                                 "chosen: name fewer with --wager")
    result = run_analysis(shoe, wagers=wagers, paytables=paytables, everything=everything, catalogue=cat,
                          alternatives=alts, route=route, given=given)
    click.echo(result.render(fmt, summary=summary), nl=False)
    if plot is not None:
        documents.save_plot(lambda r, ax: documents.outcome_probabilities(r, ax=ax), list(result), plot)
        click.echo(f"wrote {plot}: the outcome probabilities of {_tables(len(result))}", err=True)
    for w in {r.wager.id: r.wager for r in result if r.wager.implausible}.values():
        click.echo(f"exactodds: warning: {w.id} under the reading {w.reading_id!r} is implausible: "
                   f"{w.implausible}", err=True)


#: A target house edge written as a bare number from here up (10%) is refused: ``0.5`` may mean 50% or 0.5%.
AMBIGUOUS_TARGET = Fraction(1, 10)


def _target(text: str) -> Fraction:
    """``--target-edge``: ``2.5%`` or ``0.025``; a bare number of 0.1 or more is refused, not guessed at."""
    value = options.number_or_percent(text, "--target-edge")
    if not text.strip().endswith("%") and abs(value) >= AMBIGUOUS_TARGET:
        raise ExactOddsError(f"--target-edge {text.strip()}: read as a fraction, that is a house edge of "
                             f"{float(value):.4%}; write {float(value) * 100:g}% if you mean it, or "
                             f"{text.strip()}% for {text.strip()} percent")
    return value


#: The most panels ``analyze --plot`` draws (one per wager paytable, one above the other).
MAX_PANELS = 24


def _tables(n: int) -> str:
    return f"{n} wager paytable{'s' if n != 1 else ''}"


def _terminal() -> bool:
    """Is the output a terminal (a person reading, not a pipe or a file)?"""
    return sys.stdout.isatty()


def _at_bet(cat: Catalogue, chosen: set[str], bet: str) -> Catalogue:
    """The catalogue with every chosen wager that charges a vigorish priced at ``--bet`` dollars."""
    dollars = parse_dollars(bet, where="--bet")
    charged = {wid for wid in chosen
               if any(vigorish_terms(p.text) for t in cat[wid].paytables.values() for p in t.pays.values())}
    if not charged:
        raise ExactOddsError("--bet: no selected wager charges a vigorish")
    return Catalogue([at_bet(cat[w], dollars) if w in charged else cat[w] for w in cat])


def _with_settings(cat: Catalogue, settings: tuple[str, ...]) -> Catalogue:
    """The catalogue with ``--set WAGER:NAME=VALUE`` applied."""
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
            raise ExactOddsError(f"--set: unknown wager {wid!r}{options.did_you_mean(wid, wagers)}")
        try:
            if "bet" in params:                 # a bet size: the vigorish rounded to 25¢ (627a.12(c))
                bet = params.pop("bet")
                wagers[wid] = at_bet(wagers[wid], parse_dollars(bet, where=f"{wid}:bet"))
            if params:
                wagers[wid] = wagers[wid].with_parameters(params)
        except ExactOddsError as exc:
            raise ExactOddsError(f"--set: {exc}") from None
    return Catalogue(wagers.values())


def _parameter_value(raw: str) -> object:
    """``5`` → 5; ``Ks9s,Kh9h`` → ('K♠9♠', 'K♥9♥'); card pairs are written with suit symbols."""

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


#: ``list``: as shown (the names are in CSV and JSON: with them a line is too wide for a terminal),
#: and as CSV gives it (paytables and alternatives space-separated).
_WAGERS = (Column("id", "Wager"), Column("section", "Section"), Column("paytables", "Paytables"),
           Column("alternatives", "Alternatives"))
_WAGERS_TIDY = (Column("id"), Column("name"), Column("game"), Column("section"), Column("paytables"),
                Column("alternatives"), Column("source"))


@command(name="list")
@options.paytables
@options.result_format
def list_(paytables_files: tuple[str, ...], fmt: str) -> None:
    """Every wager of the catalogue with its section and paytables (a file's wagers each checked
    against every possible round)."""
    cat = options.catalogue(paytables_files, check_all=True)
    rows: list[dict[str, Any]] = [
        {"id": w.id, "name": w.name, "game": w.game, "section": w.section,
         "paytables": list(w.paytables), "alternatives": list(w.alternatives), "source": w.source,
         "reading": w.reading,
         "implausible_alternatives": {a.id: a.implausible for a in w.alternatives.values() if a.implausible}}
        for w in cat.values()
    ]
    shown = tuple((r["id"], cited(r['section']), ", ".join(r["paytables"]),
                   ", ".join(a + (" (implausible)" if a in r["implausible_alternatives"] else "")
                             for a in r["alternatives"])) for r in rows)
    tidy = tuple((r["id"], r["name"], r["game"], r["section"], " ".join(r["paytables"]), " ".join(r["alternatives"]),
                  r["source"]) for r in rows)
    report = Report("catalogue", tables=(Table(_WAGERS, shown),), tidy=Table(_WAGERS_TIDY, tidy), data={"wagers": rows})
    click.echo(render_report(report, fmt), nl=False)


@command()
@click.argument("paths", nargs=-1, metavar="[FILE]...")
@options.paytables
def check(paths: tuple[str, ...], paytables_files: tuple[str, ...]) -> None:
    """Check every wager of your data files: as data, and each outcome against every possible round.

    The files are named as arguments or with --paytables FILE, as every other command takes them.
    """
    files = tuple(dict.fromkeys((*paths, *paytables_files)))
    if not files:
        raise ExactOddsError("name a data file to check: exactodds check FILE, or --paytables FILE")
    for path, text in options.user_files(files):
        mine = load_text(text, source=path, check_all=True)
        click.echo(f"{path}: {counted(len(mine), 'wager')} checked against every possible round")


_FEATURES = (Column("name", "Feature"), Column("type", "Type"), Column("meaning", "Meaning"))
_FEATURES_TIDY = (Column("name"), Column("type"), Column("group"), Column("meaning"))


@command()
@options.result_format
def features(fmt: str) -> None:
    """Every feature a condition in a paytable file can read, with its meaning."""
    rows = vocabulary()
    groups = list(dict.fromkeys(r["group"] for r in rows))
    tables = tuple(Table(_FEATURES, tuple((r["name"], r["type"], r["meaning"]) for r in rows if r["group"] == g),
                         title=f"{g} features") for g in groups)
    tidy = Table(_FEATURES_TIDY, tuple((r["name"], r["type"], r["group"], r["meaning"]) for r in rows))
    # "version": the key of the previous release, beside the "exactodds" every JSON document carries
    report = Report("features", tables=tables, tidy=tidy, data={"version": __version__, "features": rows})
    click.echo(render_report(report, fmt), nl=False)


@command()
@options.one_wager
@click.option("--target-edge", required=True, metavar="EDGE", help="The house edge to reach: 2.5% or 0.025.")
@click.option("--max-pay", default="1000", show_default=True, metavar="N", help="The largest pay, N of 'N to 1'.")
@click.option("--step", type=click.Choice(["1", "0.5"]), default="0.5", show_default=True,
              help="Pays in whole numbers or halves.")
@click.option("--form", type=click.Choice(["to", "for"]), default="to", show_default=True,
              help="Pays written 'N to 1' or 'N for 1'.")
@click.option("--max-sd", metavar="SD", help="Only paytables whose standard deviation of a round is at most this.")
@click.option("--tolerance", default="0.01%", show_default=True, metavar="EDGE",
              help="How near the target counts as on it; ten times wider, and again, if nothing is.")
@click.option("--top", type=int, default=5, show_default=True, help="How many paytables to list.")
@options.decks
@options.remove
@options.paytables
@click.option("--output", metavar="FILE", help="Write the best paytable as a paytable file (TOML) for "
              "--paytables FILE.")
@click.option("--id", "paytable_id", default="designed", show_default=True, help="The id of the paytable written.")
@options.result_format
@options.max_time
@options.route
def design(wager_spec: str | None, target_edge: str, max_pay: str, step: str, form: str, max_sd: str | None, tolerance: str,
           top: int, decks: int, remove: str | None, paytables_files: tuple[str, ...], output: str | None,
           paytable_id: str, fmt: str) -> None:
    """Pays for a wager's outcomes that give a target house edge, exactly or as near as the constraints allow.

    Starts from the paytable named (or the wager's first): its paid outcomes get pays 'N to 1' (N whole or
    a half), a rarer outcome paying at least as much, at most --max-pay; its pushes stay pushes. Lists the
    paytables within --tolerance of the target that change the draft's pays least, each with its exact edge,
    SD and hit frequency; --output writes the best as a paytable file.
    """
    if wager_spec is None:
        raise ExactOddsError("design sets the pays of one wager: give --wager WAGER[:PAYTABLE]")
    files = options.user_files(paytables_files)
    cat = options.with_files(files)[0]
    wager, table_id = priced_pairs(cat, [wager_spec], where="--wager")[0]           # a bare wager: its first paytable
    target = _target(target_edge)
    pay_limit = options.number_or_percent(max_pay, "--max-pay", "200")
    sd = options.number_or_percent(max_sd, "--max-sd", "5 or 2.5") if max_sd is not None else None   # > 0: design
    check_id(paytable_id, where="--id")                 # named here, not as a fault of the file written
    if taken := [t for t in wager.paytables if t.lower() == paytable_id.lower()]:
        raise ExactOddsError(f"--id {paytable_id}: wager {wager.id!r} already has a paytable {taken[0]!r} (ids are "
                             "read in any case); choose another")
    if output is not None:
        check_output(output)
    shoe = options.shoe(decks, remove)
    found = design_paytables(wager, wager.paytables[table_id], shoe, target_edge=target, max_pay=pay_limit,
                             step=Fraction(step), form=form, max_sd=sd, top=top,
                             tolerance=options.number_or_percent(tolerance, "--tolerance", "0.01%"))
    click.echo(found.render(fmt), nl=False)
    if output is not None:
        own = dict(files).get(wager.source)                 # a user's wager: its file is carried
        text = found.paytable_toml(paytable_id=paytable_id,
                                   carrying=None if own is None else (Path(wager.source).name, own))
        merged = load_catalogue().merged(load_text(text, source=output))  # what is written reads back alone ...
        again = Door(shoe).price(merged[wager.id], merged[wager.id].paytable(paytable_id))
        if -again.expected_return != found.best.edge:                   # ... and prices to the same edge
            raise InconsistentCounts(f"{output}: the paytable written prices to {-again.expected_return}, not "
                                     f"{found.best.edge}: a defect of exactodds, please report it")
        write_atomically(output, text)
        click.echo(f"wrote {output}: paytable {paytable_id!r} of {wager.id}, house edge "
                   f"{float(found.best.edge):.6%}", err=True)
