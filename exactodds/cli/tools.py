"""Commands that answer one question about a wager or a table position: ``progressive``,
``vigorish``, ``position``, ``house-money`` and ``mystery``."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import click

from exactodds.analyses.analysis import analyze as run_analysis
from exactodds.analyses.analysis import priced_pairs
from exactodds.analyses.house_money import house_money, render_options
from exactodds.analyses.positions import parse_stake
from exactodds.analyses.positions import position as run_position
from exactodds.analyses.progressive import (
    MysterySpec,
    _dollars,
    load_meters,
    long_run_return,
    mystery_return,
    parse_rate,
    progressive_analysis,
)
from exactodds.analyses.vigorish import COMMON_BETS, VigorishTables, vigorish_table
from exactodds.cli import options
from exactodds.cli.core import command, either
from exactodds.documents.plots import check_plot_path, position_distribution, save_plot
from exactodds.errors import ExactOddsError
from exactodds.render.report import render_mystery, render_progressive
from exactodds.render.tables import decimal
from exactodds.wagers.bet_size import money, parse_dollars
from exactodds.wagers.pays import THOUSANDS, vigorish_terms


def _named(items: tuple[str, ...], symbols: list[str], option: str) -> dict[str, tuple[str, str]]:
    """``25000`` (the one meter) or ``mega=60000`` / ``J_mega=60000`` (named) → {symbol: (item, value)}."""
    out: dict[str, tuple[str, str]] = {}
    for item in items:
        name, sep, raw = item.rpartition("=")
        if not sep:
            if len(symbols) != 1:
                raise ExactOddsError(f"{option} {item!r}: this wager has meters {', '.join(symbols)}; write NAME=VALUE")
            symbol = symbols[0]
        else:
            symbol = name if name in symbols else f"J_{name.lower()}"
            if symbol not in symbols:
                raise ExactOddsError(f"{option} {item!r}: no meter {name!r}{options.did_you_mean(name, symbols)} "
                                     f"(meters: {', '.join(symbols)})")
        if symbol in out:
            raise ExactOddsError(f"{option} {symbol} given twice")
        out[symbol] = (item, raw)
    return out


def _meter_values(items: tuple[str, ...], symbols: list[str], bet: Fraction | None) -> dict[str, Fraction]:
    """``--meter`` in units of the wager (``$X``: dollars at the bet), with one line, for a release, on the
    unit it had here before (dollars)."""
    named = _named(items, symbols, "--meter")
    if bet is None and any(raw.strip().startswith("$") for _, raw in named.values()):
        raise ExactOddsError("--meter in dollars needs the bet size: give --bet (or the meter in units of the wager)")
    values = {s: options.meter_amount(raw, where=f"--meter {item!r}", bet=bet) for s, (item, raw) in named.items()}
    if any(not raw.strip().startswith("$") for _, raw in named.values()):
        shown = ", ".join(f"{s} = {decimal(v, 2)} units" + (f", a meter of {money(v * bet)}" if bet else "")
                          for s, v in values.items())
        click.echo(f"exactodds: warning: --meter is in units of the wager, as in eor and position (until this "
                   f"release progressive read it in dollars): {shown}" + (f" at the {money(bet)} bet" if bet else "")
                   + "; write --meter '$25000' for dollars", err=True)
    return values


def _rates(items: tuple[str, ...], symbols: list[str], option: str) -> dict[str, Any]:
    out = {}
    for item in items:
        name, sep, raw = item.rpartition("=")
        symbol = symbols[0] if not sep and len(symbols) == 1 else (name if name in symbols else f"J_{name.lower()}")
        if symbol not in symbols:
            raise ExactOddsError(f"{option} {item!r}: write NAME=RATE with a meter of {', '.join(symbols)}"
                                 + options.did_you_mean(name, symbols))
        if symbol in out:
            raise ExactOddsError(f"{option} {symbol} given twice")
        out[symbol] = parse_rate(raw, where=f"{option} {item!r}")
    return out


@command()
@options.old_wagers
@options.one_wager
@click.option("--paytable", help="Paytable (default: the wager's first).")
@options.decks
@options.remove
@options.meter_option("[NAME=]UNITS", "Meter value(s) to price at", "written '$25000', dollars at --bet")
@options.bet
@options.hidden_alias("--wager-amount", "wager_amount")
@click.option("--increment", "increments", multiple=True, metavar="[NAME=]RATE", help="Increment rate, e.g. 10%.")
@click.option("--reserve", "reserves", multiple=True, metavar="[NAME=]RATE", help="Reserve (reseed) rate.")
@click.option("--reseed", "reseeds", multiple=True, metavar="[NAME=]DOLLARS", help="Reseed amount in dollars.")
@options.paytables
@options.result_format
@options.route
def progressive(old_wagers: tuple[str, ...], wager_spec: str | None, paytable: str | None, decks: int,
                remove: str | None, meters: tuple[str, ...], bet: str | None, wager_amount: str | None,
                increments: tuple[str, ...], reserves: tuple[str, ...], reseeds: tuple[str, ...],
                paytables_files: tuple[str, ...], fmt: str) -> None:
    """Return of a progressive wager as an exact function of its meter(s).

    --wager names the one progressive wager; --bet is the bet size (default: the stated minimum).
    """
    chosen = options.wagers_of((wager_spec,) if wager_spec is not None else (), old_wagers)
    if len(chosen) != 1:
        raise ExactOddsError("name one progressive wager: --wager WAGER[:PAYTABLE]" if not chosen else
                             f"{len(chosen)} wagers given: progressive prices one wager")
    wager = chosen[0]
    bet = either(bet, wager_amount, "--wager-amount", "--bet")
    if ":" in wager:                                      # WAGER:PAYTABLE, as every command names it
        if paytable is not None:
            raise ExactOddsError("give the paytable once: WAGER:PAYTABLE or --paytable")
        wager, paytable = wager.split(":", 1)
    cat = options.catalogue(paytables_files)
    w = cat[wager]
    table = w.paytable(paytable).id if paytable else next(iter(w.paytables))
    (result,) = run_analysis(options.shoe(decks, remove), wagers=[wager], paytables=[table], catalogue=cat)
    spec = load_meters()[0].get((w.id, table))
    analysis = progressive_analysis(result, spec)
    symbols = list(analysis.coefficients)
    amount = analysis.minimum_wager
    if bet is not None:
        amount = parse_dollars(bet, where="--bet")           # bounded as analyze --bet is
    at = _meter_values(meters, symbols, amount) if meters else None
    inc = {s: m.increment_rate for s, m in (spec.meters.items() if spec else []) if m.increment_rate is not None}
    inc.update(_rates(increments, symbols, "--increment"))
    res = {s: m.reserve_rate for s, m in (spec.meters.items() if spec else []) if m.reserve_rate is not None}
    res.update(_rates(reserves, symbols, "--reserve"))
    seeds = {s: m.reseed for s, m in (spec.meters.items() if spec else []) if m.reseed is not None}
    seeds.update({k: _dollars(raw, where=f"--reseed {item!r}")
                  for k, (item, raw) in _named(reseeds, symbols, "--reseed").items()})
    long_run = None
    funded = {s: q for s, q in res.items() if s not in seeds or reserves}       # reserve-funded reseeds
    if all(s in inc for s in symbols) and all(s in funded or (s in seeds and amount) for s in symbols):
        long_run = long_run_return(analysis, wager=amount or Fraction(1), increment=inc, reseed=seeds,
                                   reserve=funded)
    click.echo(render_progressive(analysis, fmt, wager_amount=amount, at=at, long_run=long_run,
                                  increments=inc, reserves=res, reseeds=seeds, funded=funded), nl=False)


@command()
@options.decks
@options.remove
@click.option("--bets", metavar="DOLLARS,...", help="Bet sizes (default: $1 to $25, then every $5 to $100).")
@options.wager
@options.paytables
@options.result_format
@options.route
def vigorish(decks: int, remove: str | None, bets: str | None, wagers: tuple[str, ...],
             paytables_files: tuple[str, ...], fmt: str) -> None:
    """The Banker's exact edge at each bet size, the vigorish rounded up to 25¢ (627a.12(c)).

    --wager names wagers that charge a vigorish (default banker; a bare WAGER: each of its paytables that
    charges one). Several wagers: one CSV with the wager and paytable first, JSON tables.
    """
    if bets is not None and "," in bets and THOUSANDS.match(bets.strip().lstrip("$")):
        raise ExactOddsError(f"--bets {bets!r}: a comma separates bets here; write one bet of {bets} without the "
                             f"comma, or several as {', '.join(bets.split(','))}")
    sizes = ([parse_dollars(b, where="--bets") for b in bets.split(",") if b.strip()] if bets is not None
             else list(COMMON_BETS))
    if not sizes:
        raise ExactOddsError("--bets: give at least one bet size")
    cat = options.catalogue(paytables_files)
    pairs = []
    for spec in wagers or ("banker",):
        chosen = priced_pairs(cat, [spec], where="--wager")
        charged = [(w, t) for w, t in chosen if any(vigorish_terms(p.text) for p in w.paytables[t].pays.values())]
        if not charged or (":" in spec and len(charged) < len(chosen)):
            w, t = chosen[0]
            raise ExactOddsError(f"--wager {spec!r}: wager {w.id!r}" + (f" paytable {t!r}" if ":" in spec else "")
                                 + " charges no vigorish")
        pairs += [p for p in charged if p not in pairs]
    shoe = options.shoe(decks, remove)
    tables = VigorishTables(tuple(vigorish_table(shoe, sizes, wager=w, paytable=t) for w, t in pairs))
    click.echo(tables.render(fmt), nl=False)


@command()
@options.old_stakes
@options.stake
@options.decks
@options.remove
@options.paytables
@options.meter_option("NAME=UNITS", "A progressive meter of a wager of the position (repeatable)")
@click.option("--mystery", "mystery", multiple=True, metavar="CONFIGURATION",
              help="Add a must-hit-by bonus the position qualifies for (see 'exactodds mystery'), e.g. A-$5.")
@options.plot
@options.result_format
@options.max_time
@options.route
def position(old_wagers: tuple[str, ...], wagers: tuple[str, ...], decks: int, remove: str | None,
             paytables_files: tuple[str, ...], meters: tuple[str, ...], mystery: tuple[str, ...], plot: str | None,
             fmt: str) -> None:
    """Several wagers on one round: the exact joint result, its variance and covariances."""
    stakes = options.wagers_of(wagers, old_wagers)
    if not stakes:
        raise ExactOddsError("name the wagers of the position: --wager WAGER[:PAYTABLE][=STAKE] (repeatable)")
    cat = options.catalogue(paytables_files)
    parsed = [parse_stake(s) for s in stakes]
    values = options.meter_units(meters)
    for wid, table, _ in parsed:
        try:
            w = cat[wid]
            if table is not None:
                w.paytable(table)
        except ExactOddsError as exc:
            raise ExactOddsError(f"stake {wid}{':' + table if table else ''}: {exc}") from None
    if plot is not None:
        check_plot_path(plot)
    result = run_position(options.shoe(decks, remove), parsed, catalogue=cat, meters=values or None, mystery=mystery)
    if plot is not None and result.distribution is None:
        raise ExactOddsError(f"--plot draws the position's distribution, which is not computed here ({result.note})")
    click.echo(result.render(fmt), nl=False)
    if plot is not None:
        save_plot(lambda r, ax: position_distribution(r, ax=ax), [result], plot)
        click.echo(f"wrote {plot}: the distribution of the position's net result", err=True)


def _fraction(raw: str, option: str) -> Fraction:
    try:
        value = Fraction(raw.strip())
    except (ValueError, ZeroDivisionError):
        raise ExactOddsError(f"{option} {raw!r}: not a number (write e.g. 1/2 or 0.5)") from None
    if not 0 < value <= 10**6:
        raise ExactOddsError(f"{option} {raw!r}: must be above 0 and at most 1,000,000")
    return value


@command(name="house-money")
@options.decks
@options.remove
@click.option("--hand", "hands", type=click.Choice(["player", "banker"]), multiple=True,
              help="The main wager the payout rides on (default: both, one after the other).")
@options.hidden_alias("--bet", "old_hands", type=click.Choice(["player", "banker"]), multiple=True)
@click.option("--portion", default="1", show_default=True, metavar="FRACTION",
              help="The share of the payout that may ride, if the Rules Submission specifies one (e.g. 1/2).")
@click.option("--ratio", "ratios", multiple=True, metavar="R",
              help="Main wager ÷ House Money stake, for the value per unit of the main wager (default 1, 5, 10).")
@options.result_format
def house_money_command(decks: int, remove: str | None, hands: tuple[str, ...], old_hands: tuple[str, ...],
                        portion: str, ratios: tuple[str, ...], fmt: str) -> None:
    """House Money's let-it-ride option (627a.8(d)(1)): never, always and optimal, exactly."""
    hands = either(hands, old_hands, "--bet player|banker", "--hand")
    shoe = options.shoe(decks, remove)
    share = _fraction(portion, "--portion")
    choices = [house_money(shoe, bet=b, portion=share) for b in (hands or ("player", "banker"))]
    click.echo(render_options(choices, fmt, ratios=[_fraction(r, "--ratio") for r in ratios] or
                              [Fraction(1), Fraction(5), Fraction(10)]), nl=False)


@command()
@click.option("--whole-cents", is_flag=True, help="Hit point uniform on whole cents (default: continuous).")
@click.option("--minimum", metavar="DOLLARS", help="Your own configuration: minimum (reset) dollars.")
@click.option("--maximum", metavar="DOLLARS", help="Your own configuration: maximum (must-hit-by) dollars.")
@click.option("--rate", metavar="RATE", help="Your own configuration: contribution rate, e.g. 2%.")
@options.bet
@options.hidden_alias("--wager-amount", "wager_amount")
@options.result_format
def mystery(whole_cents: bool, minimum: str | None, maximum: str | None, rate: str | None, bet: str | None,
            wager_amount: str | None, fmt: str) -> None:
    """Long-run return of every Must-Hit-By mystery configuration (631b.6, 627b.3(h)).

    Your own configuration: --minimum, --maximum, --rate and --bet (the qualifying wager).
    """
    bet = either(bet, wager_amount, "--wager-amount", "--bet")
    custom = (minimum, maximum, rate, bet)
    if any(x is not None for x in custom):
        if any(x is None for x in custom):
            raise ExactOddsError("a configuration of your own needs --minimum, --maximum, --rate and --bet")
        low, high = _dollars(minimum, where="--minimum"), _dollars(maximum, where="--maximum")  # type: ignore[arg-type]
        share = parse_rate(rate, where="--rate")  # type: ignore[arg-type]
        if high <= low:                                 # named by option here, as the configuration's own check cannot
            raise ExactOddsError(f"--maximum {maximum}: must be above --minimum {minimum}")
        if share == 0:
            raise ExactOddsError(f"--rate {rate}: must be above 0, or the meter never moves")
        specs = [MysterySpec("custom", "Your configuration", "631b.6(c) rule",
                             _dollars(bet, where="--bet", allow_zero=False), low, high, share)]  # type: ignore[arg-type]
    else:
        specs = list(load_meters()[1].values())
    if whole_cents:
        for spec in specs:
            if (spec.maximum - spec.minimum) * 100 > 10**7:
                raise ExactOddsError(f"--maximum: with --whole-cents the span from minimum to maximum is at most "
                                     f"$100,000 (10 million cents); {spec.id!r} spans ${spec.maximum - spec.minimum}")
    rows = [mystery_return(spec, whole_cents=whole_cents) for spec in specs]
    click.echo(render_mystery(rows, fmt), nl=False)
