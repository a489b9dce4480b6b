"""Commands for card counters: ``eor`` (the exact effect of removing each card), ``exposure``
(real shoes dealt, the exact edge before every round) and ``merge`` (the parts of a study, or of a
check-sim over a record set, joined)."""

from __future__ import annotations

import os
import sys

import click

from exactodds.analyses.advantage import EXPOSED, Advantage, BestSplits, best_splits, exposed_card, readable_backs
from exactodds.analyses.analysis import priced_pairs
from exactodds.analyses.betting import parse_ramp
from exactodds.analyses.counting import parse_tags
from exactodds.analyses.eor import effects_of_removal, second_order_effects
from exactodds.cli import options
from exactodds.cli.core import EXIT_CHECK_FAILED, command, progress
from exactodds.documents.plots import check_plot_path, edge_by_penetration, effects_bars, save_plot
from exactodds.errors import ExactOddsError
from exactodds.files import check_output
from exactodds.render.tables import counted
from exactodds.simulation.checkpoint import state_kind
from exactodds.simulation.checksim import render as render_check
from exactodds.simulation.checkstate import merge_checks
from exactodds.simulation.exposure import (BANKROLL, CHECKPOINT_EVERY, MAX_WORKERS, check_bankroll, estimate,
                                           merge_exposure)
from exactodds.simulation.exposure import exposure as run_exposure

_TAGS = click.option("--tags", metavar="RANK=TAG,...",
                     help="Your own count instead of the suggested one, e.g. 4=-1,5=-1,6=-1,7=-1,8=2,9=2.")


@command()
@options.old_wagers
@options.wager
@click.option("--all", "everything", is_flag=True, help="Every wager and paytable of the catalogue.")
@options.decks
@options.remove
@options.paytables
@_TAGS
@click.option("--level", "--max-tag", "max_tag", type=click.IntRange(1, 10), default=3, show_default=True,
              help="Level of the suggested count: its largest tag (1, 2, 3, ...).")
@options.meter_option("NAME=UNITS", "Read a progressive's effects at this meter (default: the reseed)")
@click.option("--second-order", is_flag=True, help="Instead: the effects of removing one, two and three copies of "
              "each card, and how far they are from linear (what a linear count misses).")
@options.plot
@options.result_format
@options.max_time
@options.route
def eor(old_wagers: tuple[str, ...], wagers: tuple[str, ...], everything: bool, decks: int, remove: str | None,
        paytables_files: tuple[str, ...], tags: str | None, max_tag: int, meters: tuple[str, ...], second_order: bool,
        plot: str | None, fmt: str) -> None:
    """Exact effect of removal of each card on a wager's return, and a count built from it."""
    specs = options.wagers_of(wagers, old_wagers)
    if everything and specs:
        raise ExactOddsError("--all and --wager exclude each other")
    cat = options.catalogue(paytables_files)
    if not specs and not everything:
        raise ExactOddsError("name a wager (--wager WAGER or WAGER:PAYTABLE, see 'exactodds list') or give --all")
    pairs = priced_pairs(cat, list(cat) if everything else specs, where="--wager")
    given = parse_tags(tags) if tags is not None else None
    if plot is not None:
        if second_order:
            raise ExactOddsError("--plot draws the effects of removal; --second-order has no plot")
        check_plot_path(plot)
    if second_order:
        click.echo(second_order_effects(options.shoe(decks, remove), pairs, catalogue=cat).render(fmt), nl=False)
        return
    shoe = options.shoe(decks, remove)
    with progress(everything and sys.stderr.isatty(), length=1, label="removing (cards)") as bar:
        done = [0]

        def advance(priced: int, total: int) -> None:
            bar.length = total                      # known once the wagers' resolutions are
            bar.update(priced - done[0])
            done[0] = priced

        table = effects_of_removal(shoe, pairs, catalogue=cat, tags=given, max_tag=max_tag,
                                   meters=options.meter_units(meters) or None, progress=advance)
    click.echo(table.render(fmt), nl=False)
    if plot is not None:
        save_plot(lambda r, ax: effects_bars(r, ax=ax), table.results, plot)
        click.echo(f"wrote {plot}: the effects of removal of {counted(len(table.results), 'wager table')}", err=True)


@command()
@options.wager
@click.option("--all", "everything", is_flag=True, help="Every wager and paytable of the catalogue (fixed pays).")
@click.option("--sorted", "sorted_cards", metavar="CARDS",
              help="The class a player tells from the rest by the cards' backs: point values 0-9 or ranks A, 2-9, "
                   "T, J, Q, K, comma-separated (e.g. 6,7,8,9); or best: every split of the point values searched "
                   "(main-game wagers), the best first.")
@click.option("--seen", type=click.IntRange(1, 6), default=None,
              help="With --sorted: how many cards' classes are seen before the bet, in the order of the deal: 1 "
                   "(the first, at the mouth of the shoe; the default) to 4 (the four initial cards), 5 or 6 (the "
                   "shoe's next cards, dealt or not: 6 is a fully sorted shoe's bound).")
@click.option("--exposed", type=click.Choice(EXPOSED), help="Instead: one card seen, each card it could be: the "
              "first card dealt (flashed), the burn card (exposed by 627a.5(f)) or the bottom card (never dealt).")
@options.decks
@options.remove
@options.paytables
@options.result_format
@options.max_time
@options.route
def advantage(wagers: tuple[str, ...], everything: bool, sorted_cards: str | None, seen: int | None,
              exposed: str | None, decks: int, remove: str | None, paytables_files: tuple[str, ...],
              fmt: str) -> None:
    """What a player gains by knowing a card before the bet: readable backs (--sorted, edge sorting) or an
    exposed card (--exposed). Each wager's exact edge in each state, and the advantage betting the best wager
    in each (every round, and only where it is positive).

    By default the main game, as analyze; --all every wager with fixed pays.
    """
    if everything and wagers:
        raise ExactOddsError("--all and --wager exclude each other")
    if (sorted_cards is None) == (exposed is None):
        raise ExactOddsError("give --sorted CARDS (readable backs) or --exposed POSITION (a card seen), one of them")
    if seen is not None and sorted_cards is None:
        raise ExactOddsError("--seen goes with --sorted")
    cat = options.catalogue(paytables_files)
    shoe = options.shoe(decks, remove)
    result: Advantage | BestSplits
    if exposed is not None:
        result = exposed_card(shoe, position=exposed, wagers=wagers, catalogue=cat, everything=everything)
    elif sorted_cards is not None and sorted_cards.strip().lower() == "best":
        if everything:
            raise ExactOddsError("--sorted best searches the splits for the main game's wagers: name them with "
                                 "--wager, not --all")
        result = best_splits(shoe, seen=seen or 1, wagers=wagers, catalogue=cat)
    else:
        assert sorted_cards is not None                  # one of --sorted and --exposed, checked above
        result = readable_backs(shoe, sorted_cards=sorted_cards, seen=seen or 1, wagers=wagers, catalogue=cat,
                                everything=everything)
    click.echo(result.render(fmt), nl=False)


@command()
@options.old_wagers
@options.wager
@click.option("--shoes", type=int, required=True, help="Shoes to deal.")
@options.seed
@options.decks
@click.option("--cut", type=int, default=14, show_default=True, help="Cards behind the cover card (>= 14, §627a.5(d)).")
@_TAGS
@options.paytables
@click.option("--batch", type=int, default=100, show_default=True, help="Shoes per unit of work.")
@click.option("--workers", type=int, default=None, help="Local processes (default: every core).")
@click.option("--scheduler", metavar="ADDRESS", help="Run on a Dask cluster, e.g. tcp://10.0.0.5:8786.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--ramp", metavar="TC:UNITS,...", help="A bet ramp by true count, e.g. 2:1,4:2,6:4 (nothing below "
              "the first step); shown beside perfect information and the best threshold.")
@click.option("--bankroll", type=int, default=BANKROLL, show_default=True, metavar="UNITS",
              help="Bankroll, in units, whose risk of ruin is shown.")
@click.option("--team", is_flag=True, help="Also the play of a team at one table: each player counts his own wager "
              "and bets it from its best threshold (wagers read at point values).")
@click.option("--first-shoe", type=int, default=0, show_default=True, metavar="N",
              help="Run shoes N to N + --shoes - 1 of the seed's study: one part of a study spread over machines "
                   "or days (merge the parts' checkpoints with 'exactodds merge').")
@click.option("--checkpoint", metavar="FILE", help="Keep the finished shoes' exact totals in FILE as the run goes; "
              "the same command with the same FILE resumes a run that was stopped.")
@click.option("--checkpoint-every", type=click.FloatRange(0), default=CHECKPOINT_EVERY, show_default=True,
              metavar="SECONDS", help="Seconds between two writes of --checkpoint (and one at the end).")
@click.option("--estimate", "estimate_only", is_flag=True, help="Instead: measure a few shoes here and print the "
              "CPU time and memory the --shoes will take on --workers processes (the study is not run).")
@options.plot
@options.result_format
@options.max_time
@options.route
def exposure(old_wagers: tuple[str, ...], wagers: tuple[str, ...], shoes: int, seed: int | None, decks: int, cut: int,
             tags: str | None, paytables_files: tuple[str, ...], batch: int, workers: int | None,
             scheduler: str | None, quiet: bool, ramp: str | None, bankroll: int, team: bool, first_shoe: int,
             checkpoint: str | None, checkpoint_every: float, estimate_only: bool, plot: str | None,
             fmt: str) -> None:
    """Deal real shoes; the exact edge and the count before every round; what a counter wins.

    Shoe i is shuffled from (seed, i). At the end, the shoes per second and per CPU-second go to stderr
    (not with --quiet).
    """
    specs = options.wagers_of(wagers, old_wagers)
    if not specs:
        raise ExactOddsError("name a wager: --wager WAGER or WAGER:PAYTABLE (repeatable; see 'exactodds list')")
    cat = options.catalogue(paytables_files)
    pairs = priced_pairs(cat, specs, where="--wager")
    given = parse_tags(tags) if tags is not None else None
    steps = parse_ramp(ramp) if ramp is not None else ()
    check_bankroll(bankroll)
    if plot is not None:
        check_plot_path(plot)
    if checkpoint is not None:
        check_output(checkpoint, option="--checkpoint")
    local = workers if workers is not None else min(os.cpu_count() or 1, MAX_WORKERS)
    if estimate_only:
        if plot is not None or checkpoint is not None:
            raise ExactOddsError("--estimate runs no study: it takes neither --plot nor --checkpoint")
        seed = seed if seed is not None else 0          # the cost does not depend on the seed
        click.echo(str(estimate(pairs, shoes=shoes, seed=seed, decks=decks, cut=cut, tags=given, catalogue=cat,
                                batch=batch, workers=local, team=team, first_shoe=first_shoe)), nl=False)
        return
    seed = options.drawn_seed(seed)
    with progress(not quiet and sys.stderr.isatty(), length=shoes, label="shoes") as bar:
        done = [0]

        def advance(total: int) -> None:
            bar.update(total - done[0])
            done[0] = total

        result = run_exposure(pairs, shoes=shoes, seed=seed, decks=decks, cut=cut, tags=given, catalogue=cat,
                              batch=batch, workers=local, scheduler=scheduler, progress=advance, ramp=steps,
                              bankroll=bankroll, team=team, first_shoe=first_shoe, checkpoint=checkpoint,
                              checkpoint_every=checkpoint_every)
    click.echo(result.render(fmt), nl=False)
    if not quiet and result.throughput is not None:
        click.echo(str(result.throughput), err=True)
    if plot is not None:
        save_plot(lambda r, ax: edge_by_penetration(r, ax=ax), result.results, plot)
        click.echo(f"wrote {plot}: the player's expected return against penetration", err=True)


@command()
@click.argument("states", nargs=-1, required=True, metavar="FILE...")
@options.paytables
@click.option("--verbose", is_flag=True, help="check-sim parts: show every test, not only flagged ones.")
@options.result_format
def merge(states: tuple[str, ...], paytables_files: tuple[str, ...], verbose: bool, fmt: str) -> None:
    """Join the parts of an exposure study, or of a check of a record set, into the whole, exactly.

    Each FILE is the --checkpoint of a finished part: of exposure (exposure --first-shoe N --shoes M
    --checkpoint FILE), the parts must be of one study and hold every shoe from the first part's first once;
    of check-sim (check-sim SOURCE... --checkpoint FILE), one command line over records no other part holds,
    joined in the order given. The result is the one run over all their shoes or records would print
    (check-sim's: exit 1 if a test is flagged).
    """
    cat = options.catalogue(paytables_files)
    if state_kind(states[0]) == "check-sim":
        check = merge_checks(states, catalogue=cat)
        click.echo(render_check(check, fmt, verbose=verbose), nl=False)
        if not check.ok:
            sys.exit(EXIT_CHECK_FAILED)
        return
    if verbose:
        raise ExactOddsError("--verbose shows every test of check-sim parts; these are exposure parts")
    click.echo(merge_exposure(states, catalogue=cat).render(fmt), nl=False)
