"""Commands of the simulation: ``simulate`` (the seeded reference simulator's records) and
``check-sim`` (a simulator's output tested against the exact distribution)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import PurePath
from typing import Any

import click

from exactodds import extras
from exactodds.analyses.analysis import priced_pairs
from exactodds.cli import options
from exactodds.cli.core import EXIT_CHECK_FAILED, command, either, given, progress
from exactodds.errors import ExactOddsError
from exactodds.files import check_output
from exactodds.documents.plots import check_plot_path, save_plot
from exactodds.simulation.checkplayer import bet_against_edge
from exactodds.simulation.checkplayer import check_player as run_check
from exactodds.simulation.checkpoint import CHECKPOINT_EVERY
from exactodds.simulation.checksim import check_counts, check_files, read_counts, render
from exactodds.simulation.checkstate import Checkpoint
from exactodds.simulation.players import player_log
from exactodds.simulation.cluster import dask_client, workers_cpu
from exactodds.simulation.recordio import RecordWriter, detect, expand_sources
from exactodds.simulation.simulate import record_columns, record_table, simulate_chunks
from exactodds.simulation.validation import carried_by
from exactodds.wagers.bet_size import parse_dollars

_RECORD_FORMATS = click.Choice(["csv", "jsonl", "parquet"])


@command()
@options.decks
@click.option("--rounds", type=int, default=1_000_000, show_default=True, help="At least this many rounds.")
@options.seed
@click.option("--mode", type=click.Choice(["shoe", "fresh"]), default="shoe", show_default=True,
              help="Deal real shoes to a cut card, or every round off a fresh shoe.")
@click.option("--cut", type=int, default=14, show_default=True, help="Cards behind the cover card (>= 14).")
@options.wager
@options.hidden_alias("--settle", "settle", multiple=True, callback=options.each_once)
@options.paytables
@options.bet
@click.option("--fault", "faults", multiple=True, help="Break the simulator on purpose (repeatable): table1:B,X, "
              "with-replacement, perfect-pairs-mixed-as-coloured, without:CARD (e.g. without:5s), riffle:K "
              "(K riffles, not a full shuffle) or mispay:WAGER (with --bet: its top award paid one unit more).")
@click.option("--shoe-column", is_flag=True, help="Write a 'shoe' column numbering each round's shoe, for "
              "check-sim's within-shoe tests (--mode shoe).")
@options.record_format
@options.hidden_alias("--format", "old_format", type=_RECORD_FORMATS, default=None)
@click.option("--output", required=True, metavar="FILE", help="Where to write (.csv, .jsonl, .parquet; .gz, .zst, "
              ".bz2 or .lz4 after a CSV or JSON Lines name; '-' for standard output).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def simulate(decks: int, rounds: int, seed: int | None, mode: str, cut: int, wagers: tuple[str, ...],
             settle: tuple[str, ...], paytables_files: tuple[str, ...], bet: str | None, faults: tuple[str, ...],
             shoe_column: bool, record_format: str | None, old_format: str | None, output: str, quiet: bool) -> None:
    """Deal rounds with the seeded reference simulator and write check-sim records, in bounded memory.

    Each --wager adds the settlement column of that wager paytable ('--wager all': every one of the catalogue).
    With --bet, each settlement column holds the net amount the wager won or lost on a bet of that size (a
    vigorish rounded up to 25¢, §627a.12(c)), and a 'stake' column the bet: what a real game's log records,
    which check-sim checks round by round against the paytable.
    """
    fmt = either(record_format, old_format, "--format (of simulate's records)", "--record-format")
    settle = either(wagers, settle, "--settle", "--wager")
    option = "--record-format" if record_format is not None else "--format"
    pairs = []
    if paytables_files and not settle:
        raise ExactOddsError("--paytables goes with --wager (the wagers whose settlement is written)")
    if settle:                                           # the catalogue only when something is settled
        cat = options.catalogue(paytables_files)
        for item in settle:
            if item == "all":
                pairs += [(w, w.paytables[t]) for w in cat.values() for t in w.paytables]
            else:
                pairs += [(w, w.paytables[t]) for w, t in priced_pairs(cat, [item], where="--wager")]
        pairs = list({(w.id, t.id): (w, t) for w, t in pairs}.values())   # each settlement column once
    stake = parse_dollars(bet, where="--bet") if bet is not None else None
    if stake is not None and not settle:
        raise ExactOddsError("--bet goes with --wager (the wagers whose amounts are written)")
    for fault in faults:
        if fault.startswith("mispay:"):
            name = fault[len("mispay:"):]
            if stake is None:
                raise ExactOddsError(f"--fault {fault}: a mispayment is written as an amount: it goes with --bet")
            if not any(w.id == name for w, _ in pairs):
                raise ExactOddsError(f"--fault {fault}: {name!r} is not settled here (give --wager {name})")
    for w, t in pairs if stake is not None else ():
        if any(t.pays[o.id].symbolic for o in w.outcomes if t.pays[o.id].offered):
            raise ExactOddsError(f"--bet: {w.id}:{t.id} pays a share of a meter, which an amount cannot be "
                                 "written without: settle it without --bet")
    try:
        kind = fmt or (detect(output, None)[0] if output != "-" else "csv")
    except ExactOddsError as exc:
        raise ExactOddsError(f"--output {exc}") from None
    named = [x.lstrip(".") for x in PurePath(output).suffixes if x.lstrip(".").lower() in ("csv", "jsonl", "parquet")]
    if fmt is not None and output != "-" and named and named[-1].lower() != fmt:
        raise ExactOddsError(f"{option} {fmt} but --output {output} names a .{named[-1]} file")
    if shoe_column and mode != "shoe":
        raise ExactOddsError("--shoe-column numbers real shoes: it goes with --mode shoe")
    extras.load("pyarrow")                               # before the seed is drawn and said: one line if missing
    seed = options.drawn_seed(seed)
    chunks = simulate_chunks(decks=decks, rounds=rounds, seed=seed, mode=mode, cut=cut, faults=faults)
    columns = record_columns(pairs, shoe=shoe_column, bet=stake)
    t0 = time.perf_counter()
    show = not quiet and sys.stderr.isatty() and output != "-"
    with RecordWriter(output, kind, columns) as out, progress(show, length=rounds, label="dealing") as bar:
        for part in chunks:                          # a full disk: one line naming --output, no file left
            out.write(record_table(part, pairs, shoe=shoe_column, bet=stake))
            bar.update(min(len(part), max(0, rounds - (out.rows - len(part)))))
    wall = time.perf_counter() - t0
    click.echo(f"dealt and wrote {out.rows:,} rounds in {wall:.2f} s ({out.rows / wall / 1e6:.2f} M rounds/s)"
               + ("" if output == "-" else f" to {output}"), err=True)


def _deviation(text: str) -> Fraction:
    """``--detect``: a deviation of the return, as a percentage (``0.1%``) or a number (``0.001``), exactly."""
    value = options.number_or_percent(text, "--detect", "0.1% or 0.001")
    if not 0 < value < 2:
        raise ExactOddsError(f"--detect: a deviation of the return is above 0 and below 2 (200%), got {text!r}")
    return value


def _alpha(text: str) -> float:
    """``--alpha``: a significance level, as a percentage (``1%``) or a number (``0.01``), above 0 and below 1."""
    value = options.number_or_percent(text, "--alpha", "1% or 0.01")
    if not 0 < value < 1:
        raise ExactOddsError(f"--alpha: a significance level is above 0 and below 1 (100%), got {text!r}")
    return float(value)


def _no_total() -> Iterator[int]:
    """An iterable without a length: the progress bar counts without a total."""
    yield from ()


@dataclass(frozen=True)
class _Started:
    """When a check began, for the rate it prints at the end: the wall clock, and the CPU seconds used so far here
    or, on Dask, here and on the cluster's workers (read from them through a client of its own)."""

    wall: float
    cpu: float
    scheduler: str | None
    resumed: bool

    @classmethod
    def now(cls, scheduler: str | None, *, resumed: bool) -> _Started:
        return cls(time.perf_counter(), _cpu(scheduler), scheduler, resumed)

    def rate(self, records: int) -> str:
        """The line: records per second and per CPU-second (not measured for a check resumed from a checkpoint,
        whose records counted before the stop are in its totals)."""
        if self.resumed:
            return ("rate: not measured on a resumed check (the records counted before the stop are in its "
                    "totals); a check run whole says it")
        wall, cpu = time.perf_counter() - self.wall, _cpu(self.scheduler) - self.cpu
        per_wall = records / wall if wall > 0 else float("nan")
        per_cpu = records / cpu if cpu > 0 else float("nan")
        where = "in this process" if self.scheduler is None else "here and on the Dask workers"
        return (f"rate: {records:,} records in {wall:,.2f} s: {per_wall:,.0f} records per second, "
                f"{per_cpu:,.0f} per CPU-second ({cpu:,.2f} CPU-s {where})")


def _cpu(scheduler: str | None) -> float:
    """CPU seconds used so far by this process and, with a scheduler, by the cluster's workers."""
    if scheduler is None:
        return time.process_time()
    with dask_client(scheduler) as (client, _):
        return time.process_time() + workers_cpu(client)


@command(name="check-sim")
@click.argument("paths", metavar="SOURCE...", nargs=-1, required=True)
@options.decks
@options.wager
@options.paytables
@click.option("--alpha", "alpha_text", default="1%", show_default=True, metavar="LEVEL",
              help="Significance after Holm's correction over every test, e.g. 1% or 0.01: the headline, each "
              "row's verdict and its interval read it.")
@click.option("--counts", is_flag=True, help="SOURCE holds aggregated outcome counts (JSON), not rounds.")
@click.option("--input-format", "input_format", type=_RECORD_FORMATS, default=None,
              help="Record format (default: from each file's extension).")
@click.option("--lenient", is_flag=True, help="List unreadable or rule-breaking rounds instead of stopping.")
@click.option("--scheduler", metavar="ADDRESS", help="Count the shards on a Dask cluster, e.g. tcp://10.0.0.5:8786.")
@click.option("--verbose", is_flag=True, help="Show every test, not only flagged ones.")
@click.option("--detect", metavar="DEVIATION", help="Also show the rounds needed to detect a deviation of the return "
              "this large, e.g. 0.1% or 0.001 (at --alpha, with 80% power).")
@click.option("--validation", is_flag=True, help="SOURCE is a validation file: the rounds 'certificate "
              "--validation FILE' wrote, settled by your software. Checks each round's settlement and the drawing "
              "rules, no statistics. The data files that define a wager of your own are read from the file "
              "itself (its '#' lines), so no --paytables is needed.")
@click.option("--checkpoint", metavar="FILE", help="Keep the exact tallies of the records counted in FILE as the "
              "check goes; the same command with the same FILE resumes a check that was stopped. Parts of a record "
              "set checked apart join with 'exactodds merge'.")
@click.option("--checkpoint-every", type=click.FloatRange(0), default=CHECKPOINT_EVERY, show_default=True,
              metavar="SECONDS", help="Seconds between two writes of --checkpoint (and one at the end).")
@click.option("--quiet", is_flag=True, help="No progress bar, and no rate line at the end.")
@options.result_format
@click.pass_context
def check_sim(ctx: click.Context, paths: tuple[str, ...], decks: int, wagers: tuple[str, ...],
              paytables_files: tuple[str, ...], alpha_text: str, counts: bool, input_format: str | None, lenient: bool,
              scheduler: str | None, verbose: bool, detect: str | None, validation: bool, checkpoint: str | None,
              checkpoint_every: float, quiet: bool, fmt: str) -> None:
    """Test a simulator's output against the exact distribution: files, directories or globs of
    shards (read as one data set), or '-'.

    Records are read in chunks and only their counts are kept, so memory stays bounded however
    many there are. A CSV or JSON Lines record is one line of at most 65,536 bytes (64 KiB); a
    longer line is an error naming it. With --counts, the counts file's own 'decks' is used unless
    --decks is given.

    At the end, on standard error (not with --quiet): records per second and per CPU-second, to plan a
    cluster.

    Exit 0 ok, 1 flagged (a test, a wrong settlement or a round that breaks the drawing rules),
    2 bad input.
    """
    deviation = _deviation(detect) if detect is not None else None
    alpha = _alpha(alpha_text)
    if validation and (counts or detect is not None):
        raise ExactOddsError(f"--validation checks rounds one by one: it does not go with "
                             f"{'--counts' if counts else '--detect'}")
    if counts and len(paths) > 1:
        raise ExactOddsError(f"--counts reads one counts file, got {len(paths)} sources")
    if checkpoint is not None:
        if counts:
            raise ExactOddsError("--checkpoint keeps the tallies of records read in chunks: not with --counts")
        check_output(checkpoint, option="--checkpoint")
    path = paths[0]
    stated_decks = given(ctx, "decks")
    if not 1 <= decks <= 10**7:
        raise ExactOddsError(f"--decks: number of decks must be a whole number from 1 to 10,000,000, got {decks}")
    files = options.user_files(paytables_files)
    if not counts:                                      # the data files a validation file carries serve as --paytables
        first = expand_sources(path)[0] if path != "-" else "-"
        files = [(f"{first}: {name}", text) for name, text in carried_by(first, fmt=input_format, given=files)] or files
    cat = options.with_files(files)[0]
    if counts:
        data = read_counts(path)
        stated = data.get("decks")
        if stated is not None and stated_decks and stated != decks:
            raise ExactOddsError(f"{path}: 'decks' is {stated} but --decks says {decks}")
        result = check_counts(data, decks=stated or decks, alpha=alpha, catalogue=cat, wagers=wagers or None,
                              detect=deviation)
    else:
        started = _Started.now(scheduler if checkpoint is None else None,      # --scheduler: not with --checkpoint
                               resumed=checkpoint is not None and os.path.exists(checkpoint))
        bar: Any
        with progress(not quiet and sys.stderr.isatty(), iterable=_no_total(), label="checking (rounds)",
                      show_pos=True, show_eta=False) as bar:
            result = check_files(list(paths), decks=decks, wagers=wagers or None, alpha=alpha, lenient=lenient,
                                 fmt=input_format, scheduler=scheduler, progress=bar.update, catalogue=cat,
                                 detect=deviation, validation=validation,
                                 checkpoint=None if checkpoint is None else Checkpoint(checkpoint,
                                                                                       every=checkpoint_every))
        rate = started.rate(result.rounds + result.invalid_count)
    click.echo(render(result, fmt, verbose=verbose), nl=False)
    if not quiet and not counts:
        click.echo(rate, err=True)
    if not result.ok:
        sys.exit(EXIT_CHECK_FAILED)


@command(name="check-player")
@click.argument("log", metavar="LOG")
@options.decks
@options.paytables
@click.option("--sorted", "sorted_cards", metavar="CARDS", help="Also the class of each round's first card, read "
              "from the backs (edge sorting): the point values or ranks of one class, e.g. 6,7,8,9.")
@click.option("--alpha", "alpha_text", default="1%", show_default=True, metavar="LEVEL",
              help="Flag the player where the permutation p-value is at most this, e.g. 1% or 0.01.")
@click.option("--permutations", type=int, default=999, show_default=True, metavar="N",
              help="Permutations of each shoe's rounds (19 to 99,999).")
@click.option("--permutation-seed", "seed", type=int, default=0, show_default=True, metavar="N",
              help="Seed of the permutations (shoe k's from (N, k)).")
@click.option("--input-format", "input_format", type=_RECORD_FORMATS, default=None,
              help="Log format (default: from the file's extension).")
@options.plot
@click.option("--quiet", is_flag=True, help="No progress bar.")
@options.result_format
def check_player(log: str, decks: int, paytables_files: tuple[str, ...], sorted_cards: str | None, alpha_text: str,
                 permutations: int, seed: int, input_format: str | None, plot: str | None, quiet: bool,
                 fmt: str) -> None:
    """Check a player's bets in a surveillance LOG against the exact edge each bet had when it was placed.

    LOG has one record per round dealt (CSV, JSON Lines or Parquet, as check-sim reads): the round's cards
    (player1 ... banker3), 'shoe', optionally 'round' (1, 2, 3 ... within the shoe), and one column per wager
    watched, WAGER:PAYTABLE, holding the amount the player bet on it (empty or 0: no bet). Each bet's edge is
    the wager's exact return off the shoe less the cards of the shoe's rounds before it (counting), given the
    class of the round's first card with --sorted (edge sorting). A permutation test moves each shoe's bets
    among its rounds.

    Exit 0 not flagged, 1 flagged, 2 bad input.
    """
    alpha = options.number_or_percent(alpha_text, "--alpha", "1% or 0.01")
    if plot is not None:
        check_plot_path(plot)
    cat = options.catalogue(paytables_files)
    with progress(not quiet and sys.stderr.isatty(), iterable=_no_total(), label="checking (shoes)",
                  show_pos=True, show_eta=False) as bar:
        done = [0]

        def advance(total: int) -> None:
            bar.update(total - done[0])
            done[0] = total

        result = run_check(log, decks=decks, sorted_cards=sorted_cards, permutations=permutations, seed=seed,
                           alpha=alpha, catalogue=cat, fmt=input_format, progress=advance)
    click.echo(result.render(fmt), nl=False)
    if plot is not None:
        save_plot(bet_against_edge, [result], plot)
        click.echo(f"wrote {plot}: each bet's amount against its exact edge", err=True)
    if result.flagged:
        sys.exit(EXIT_CHECK_FAILED)


@command(name="simulate-player")
@click.argument("kind", type=click.Choice(["flat", "random", "counter", "sorter"]))
@click.option("--shoes", type=click.IntRange(1, 100_000), default=10, show_default=True, help="Shoes dealt.")
@options.seed
@options.decks
@click.option("--bet-seed", type=int, default=None, metavar="N", help="Seed of a random player's bets (default "
              "--seed): players of one table at the same shoes.")
@options.wager
@click.option("--sorted", "sorted_cards", default="6,7,8,9", show_default=True, metavar="CARDS",
              help="The class an edge sorter reads.")
@click.option("--output", required=True, metavar="FILE", help="The surveillance log to write (CSV).")
def simulate_player(kind: str, shoes: int, seed: int | None, decks: int, bet_seed: int | None,
                    wagers: tuple[str, ...], sorted_cards: str, output: str) -> None:
    """Deal shoes with the reference simulator and write a surveillance log of one kind of player at them
    (flat, random, counter or sorter), for check-player.

    The wagers watched are --wager's (default banker:standard and player:standard); a counter bets the first flat
    and ramps the second by its count (1 unit from true count +4, 2 from +6, 4 from +8)."""
    check_output(output, option="--output")
    cat = options.catalogue(())
    chosen = wagers or ("banker:standard", "player:standard")
    named = [f"{w.id}:{t}" for w, t in priced_pairs(cat, list(chosen), where="--wager")]
    seed = options.drawn_seed(seed)
    written = player_log(output, kind=kind, shoes=shoes, seed=seed, decks=decks, wagers=named,
                         sorted_cards=sorted_cards, bet_seed=bet_seed)
    click.echo(f"wrote {output}: {written:,} shoes of a {kind} player", err=True)
