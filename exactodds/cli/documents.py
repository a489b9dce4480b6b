"""Commands that make, sign and check documents: ``certificate``, ``keygen``, ``verify`` and ``tables``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from exactodds.cli import options
from exactodds.cli.core import EXIT_CHECK_FAILED, command, progress
from exactodds.documents.certificate import (
    PAPERS,
    build,
    check_exposure,
    check_simulation,
    check_validation,
    priced_tables,
    select_for_certificate,
    shoe_from_inputs,
    shoes_from_options,
    validation_record,
)
from exactodds.documents.certificate import verify as verify_certificate
from exactodds.documents.pages import (
    CERTIFICATE_RENDERERS,
    pdf_differs,
    read_document,
    render_html,
    write_pdf,
)
from exactodds.documents.signing import check_name, load_public_key, sign
from exactodds.documents.signing import keygen as make_keys
from exactodds.documents.tables import write_tables
from exactodds.documents.workbook import workbook_differs, write_xlsx
from exactodds.errors import ExactOddsError
from exactodds.files import Outputs, check_output
from exactodds.simulation.recordio import detect
from exactodds.simulation.validation import validation_rounds, write_validation
from exactodds.render.tables import Column, Report, Table, render_report

#: The formats that carry no embedded certificate: a signature on them could be checked by no one, so
#: ``--sign`` refuses them rather than print a "signed" line nothing backs.
UNSIGNABLE = ("text", "markdown", "csv")


@command()
@options.wager_once_each
@click.option("--paytable", "paytables", multiple=True, metavar="ID",
              help="Shorthand: this paytable of every bare --wager (repeatable).")
@click.option("--section", "sections", multiple=True, help="Every wager citing a section, e.g. 631b.9 or 627a.12(e) "
              "(repeatable).")
@click.option("--all", "everything", is_flag=True, help="The whole catalogue (with your files' wagers).")
@options.paytables
@options.shoes
@options.remove
@click.option("--title", help="Title of the certificate.")
@options.output_format("pdf", "xlsx")
@click.option("--output", "output", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@options.bet
@click.option("--issued", metavar="YYYY-MM-DD", help="Date of issue (default: today, UTC).")
@click.option("--issuer", metavar="NAME", help="Who issues the certificate (cover page).")
@click.option("--prepared-by", metavar="NAME", help="Who prepared it (cover page; a blank line if not given).")
@click.option("--approved-by", metavar="NAME", help="Who approved it (cover page; a blank line if not given).")
@click.option("--game", metavar="NAME", help="The game submitted, as its maker names it (cover page).")
@click.option("--game-version", metavar="VERSION", help="The version of the game submitted (cover page).")
@click.option("--revision", "revisions", multiple=True, metavar="TEXT",
              help="A line of the game's revision history, oldest first (repeatable; cover page).")
@click.option("--table-max", metavar="DOLLARS", help="The table limit: each wager's liability per round (the "
              "largest net win of one round) is stated at a wager of this many dollars.")
@click.option("--simulate", "simulate_rounds", type=int, metavar="ROUNDS", help="Also deal ROUNDS rounds of each "
              "shoe by the reference simulator (seeded: --seed) and state each table's observed RTP and its 95% "
              "interval beside the exact one; verify deals them again.")
@click.option("--exposure", "exposure_section", is_flag=True, help="Also state each table's exposure to counting: "
              "its exact effects of removal, the suggested count and its betting correlation, and the verdict.")
@click.option("--exposure-shoes", type=int, metavar="N", help="With --exposure, also deal N real shoes (seeded: "
              "--seed) and measure what perfect play on the favourable rounds wins a shoe, with its standard error; "
              "verify deals them again.")
@click.option("--advantage", "advantage_section", is_flag=True, help="Also state each table's advantage play: a "
              "flashed first card, a seen burn card and the most exposed split of the first card's class for edge "
              "sorting, each exact.")
@options.seed
@click.option("--sign", "key", metavar="KEY", help="Sign with this Ed25519 private key (from 'exactodds keygen'); "
              "json, html and pdf only: a Markdown or CSV certificate carries nothing to verify.")
@click.option("--signer", metavar="NAME", help="The signer's name, signed with the certificate.")
@click.option("--paper", type=click.Choice(PAPERS), default="letter", show_default=True,
              help="Page size of the HTML and PDF (an input of the certificate: it is recorded, and verified).")
@click.option("--one-route", is_flag=True, help="Count by the multiset tables alone, without confirming every table "
              "by the recursive walk (faster for wagers reading every card's suit; the certificate says so).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--validation", "validation", metavar="FILE", help="Also write a validation file FILE (.csv, .jsonl, "
              ".parquet; .gz after CSV or JSON Lines): a round of every outcome of every wager certified, rare ones "
              "included, and of every value-level round class, each with its settlement, for your software to "
              "settle and 'check-sim --validation' to check.")
@options.max_time
def certificate(wagers: tuple[str, ...], paytables: tuple[str, ...], sections: tuple[str, ...], everything: bool,
                paytables_files: tuple[str, ...], decks: tuple[int, ...], remove: str | None, title: str | None,
                fmt: str, output: str | None,
                bet: str | None, issued: str | None, issuer: str | None, prepared_by: str | None,
                approved_by: str | None, game: str | None, game_version: str | None, revisions: tuple[str, ...],
                table_max: str | None, simulate_rounds: int | None, exposure_section: bool,
                exposure_shoes: int | None, advantage_section: bool, seed: int | None, key: str | None,
                signer: str | None, paper: str, one_route: bool,
                quiet: bool, validation: str | None) -> None:
    """An exact return-to-player certificate a lab files (Markdown, HTML, JSON, CSV, PDF or an Excel workbook),
    optionally signed.

    Its text form is Markdown (--format text or markdown); html, json, csv (the priced outcomes), pdf,
    which prints the HTML with Debian's chromium, attaches the JSON and needs --output, or xlsx, a
    workbook (exactodds[xlsx]) that carries the JSON in a hidden sheet and needs --output. --bet prices the
    wagers that charge a vigorish at that bet size. With --paytables FILE the certificate carries the
    file's text and SHA-256, and verify recomputes from them; without --wager, --section or --all it
    certifies the files' own wagers and paytables.
    """
    files = options.user_files(paytables_files)
    cat, own = options.with_files(files)
    if files and not (wagers or sections or everything):
        wagers = tuple(own)
    selection = select_for_certificate(cat, wagers=wagers, paytables=paytables, sections=sections,
                                       everything=everything)
    shoes = shoes_from_options(decks, remove)
    if output is not None:
        check_output(output)
    if fmt in ("pdf", "xlsx") and output is None:
        raise ExactOddsError(f"--format {fmt} needs --output FILE")
    if signer is not None and key is None:
        raise ExactOddsError("--signer goes with --sign KEY")
    if key is not None and fmt in UNSIGNABLE:
        raise ExactOddsError(f"--sign: a {fmt} certificate carries neither the certificate nor a signature, so it "
                             "could not be verified; sign --format json, html or pdf")
    check_name(signer, "--signer", optional=True)            # before the figures are computed
    kind = None
    if validation is not None:
        check_output(validation, option="--validation")
        if output is not None and Path(validation).resolve() == Path(output).resolve():
            raise ExactOddsError(f"--validation {validation}: the same file as --output")
        try:
            kind = detect(validation, None)[0]
        except ExactOddsError as exc:
            raise ExactOddsError(f"--validation {exc}") from None
    if exposure_shoes is not None and not exposure_section:
        raise ExactOddsError("--exposure-shoes goes with --exposure")
    if seed is not None and simulate_rounds is None and exposure_shoes is None:
        raise ExactOddsError("--seed goes with --simulate ROUNDS or --exposure-shoes N")
    if simulate_rounds is not None:                # checked before a seed is drawn and shown
        check_simulation({"rounds": simulate_rounds, "seed": 0 if seed is None else seed}, shoes, "--simulate")
    if exposure_section:
        check_exposure({"shoes": exposure_shoes or 0, "seed": 0 if seed is None else seed}, shoes, "--exposure-shoes")
    drawn = options.drawn_seed(seed) if simulate_rounds is not None or exposure_shoes else 0
    simulation = None if simulate_rounds is None else {"rounds": simulate_rounds, "seed": drawn}
    exposures = None if not exposure_section else {"shoes": exposure_shoes or 0, "seed": drawn}
    show = not quiet and sys.stderr.isatty()
    wrote = []
    with Outputs() as out:                         # the certificate and its validation file: both written, or neither
        record = None
        if validation is not None:                 # first: the certificate records the file's SHA-256 and rounds
            pairs = [(cat[w], cat[w].paytables[t]) for w, t in selection]
            rounds = validation_rounds(pairs, [shoe_from_inputs(spec) for spec in shoes])
            written = write_validation(rounds, pairs, validation, kind, outputs=out,  # type: ignore[arg-type]
                                       files=[(Path(path).name, text) for path, text in files])
            record = validation_record(out.staged(validation), name=Path(validation).name,
                                       fmt=kind, rows=written)  # type: ignore[arg-type]
            wrote.append(f"wrote {validation}: {written:,} rounds to validate against ({written - rounds.classes:,} "
                         f"first, a round of each outcome of the {len(pairs)} wager paytable"
                         f"{'s' if len(pairs) != 1 else ''}, then one of each of {rounds.classes:,} value-level round "
                         "classes), each with its settlement"
                         + (f"; {len(rounds.impossible)} outcome{'s' if len(rounds.impossible) != 1 else ''} the shoe "
                            f"cannot deal, e.g. {rounds.impossible[0]}" if rounds.impossible else "")
                         + f"; its SHA-256 {record['sha256'][:16]}… is recorded in the certificate"
                         + (f"; it carries {', '.join(Path(p).name for p, _ in files)} (the data file"
                            f"{'s' if len(files) != 1 else ''} that define{'' if len(files) != 1 else 's'} its "
                            "wagers), so check-sim --validation needs no --paytables" if files else ""))
        with progress(show, length=max(1, len(shoes) * len(selection)), label="pricing (tables)") as bar:
            counted = [0]

            def advance(priced: int, total: int) -> None:
                bar.update(priced - counted[0])
                counted[0] = priced

            cert = build(shoes=shoes, selection=selection, title=title, bet=bet, issued=issued,
                         parties={"issuer": issuer, "prepared_by": prepared_by, "approved_by": approved_by},
                         files=[{"name": Path(path).name, "text": text} for path, text in files], paper=paper,
                         second_route=not one_route, progress=advance, game=game, game_version=game_version,
                         revisions=revisions, table_max=table_max, validation=record, simulation=simulation,
                         exposures=exposures, advantage=advantage_section)
        if key is not None:
            cert = sign(cert, key, signer=signer)
        done = f"certificate {cert['certificate_number']}" + (" (signed)" if key else "")
        if fmt == "xlsx":
            write_xlsx(cert, output, outputs=out)  # type: ignore[arg-type]
            wrote.insert(0, f"wrote {output}: {done}, xlsx")
        elif fmt == "pdf":
            if show:
                click.echo("printing the PDF with Chromium ...", err=True)
            write_pdf(cert, output, outputs=out)  # type: ignore[arg-type]
            wrote.insert(0, f"wrote {output}: {done}, pdf")
        else:
            text = CERTIFICATE_RENDERERS[fmt](cert)
            if output is None:
                click.echo(text, nl=False)
                sys.stdout.flush()                 # a full disk shows here, before the validation file is kept
            else:
                out.write(output, text)
                wrote.insert(0, f"wrote {output}: {done}, {fmt}")
    for line in wrote:
        click.echo(line, err=True)
    if validation is not None and rounds.not_found:
        click.echo(f"exactodds: warning: the validation file has no round of {len(rounds.not_found)} outcome"
                   f"{'s' if len(rounds.not_found) != 1 else ''} the shoe can deal (the search found none; "
                   f"add one by hand): {', '.join(rounds.not_found[:5])}", err=True)


@command()
@click.option("--output", "prefix", required=True, metavar="PREFIX",
              help="The private key goes to PREFIX (readable by you only), the public key to PREFIX.pub.")
def keygen(prefix: str) -> None:
    """Make an Ed25519 key pair for signing certificates (never overwrites a file)."""
    private, public = make_keys(prefix)
    click.echo(f"wrote {private} (private: keep it to yourself) and {public} (public: give it to whoever verifies)")


@command()
@click.argument("path", metavar="CERTIFICATE")
@click.option("--public-key", metavar="KEY.pub", help="The signer's public key: the certificate must be signed with it.")
@click.option("--allow-other-version", is_flag=True,
              help="Accept a certificate made by another version of exactodds or other data, if every figure matches.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--validation", metavar="FILE", help="Also check a validation file against the one the certificate "
              "records (certificate --validation): its SHA-256 and its rounds.")
def verify(path: str, public_key: str | None, allow_other_version: bool, quiet: bool, validation: str | None) -> None:
    """Recompute a certificate (JSON, HTML, PDF or workbook); exit 0 if everything matches, 1 if not, 2 if malformed.

    A certificate holds at most 16 shoes, 256 wagers, 512 wager paytables, 2,048 priced tables (shoes ×
    paytables) and 64 MiB, so that verifying it takes minutes at most; a larger one is refused (exit 2).
    A progress bar (tables priced) shows on standard error when it is a terminal.
    """
    trusted = load_public_key(public_key) if public_key else None
    document, kind, html_text = read_document(path)
    show = not quiet and sys.stderr.isatty()
    try:
        with progress(show, length=max(1, priced_tables(document)), label="verifying (tables)") as bar:
            done = [0]

            def advance(priced: int, total: int) -> None:
                bar.update(priced - done[0])
                done[0] = priced

            ok, message = verify_certificate(document, public_key=trusted, allow_other_version=allow_other_version,
                                             progress=advance)
    except ExactOddsError as exc:
        raise ExactOddsError(f"{path}: {exc}") from None
    other = " (or it was made by another version: verify its JSON)" if allow_other_version else ""
    if ok and kind == "html" and render_html(document) != html_text:
        ok, message = False, "the page's visible text differs from the certificate embedded in it" + other
    if ok and kind == "pdf":
        differs = pdf_differs(path, document)
        if differs:
            ok, message = False, differs + other
    if ok and kind == "xlsx":
        differs = workbook_differs(Path(path).read_bytes(), document, path)
        if differs:
            ok, message = False, "the workbook's sheets differ from the certificate it carries: " + differs + other
    if ok and validation is not None:
        try:
            ok, checked = check_validation(document, validation)
        except ExactOddsError as exc:
            raise ExactOddsError(f"{path}: {exc}") from None
        message = f"{message}; {checked}" if ok else checked
    if ok:
        click.echo(f"{path}: {message}")
        return
    click.echo(f"{path}: FAILED: {message}", err=True)
    sys.exit(EXIT_CHECK_FAILED)


@command()
@click.option("--output-dir", default="tables", show_default=True, metavar="DIR", help="Where to write the tables.")
@options.shoes
@options.wager
@options.paytables
@options.result_format
@options.route
def tables(output_dir: str, decks: tuple[int, ...], wagers: tuple[str, ...], paytables_files: tuple[str, ...],
           fmt: str) -> None:
    """Write the exact tables of every wager and paytable (CSV and Markdown) for each shoe, and list the
    files written (the repository's tables/ are made with --decks 6 --decks 8).

    Without --wager: every wager and paytable, your files' too.
    """
    for n in decks:                                  # named before anything is written
        options.shoe(n, None)
    cat = options.catalogue(paytables_files)
    paths = write_tables(output_dir, decks, catalogue=cat, wagers=wagers)
    written = [str(p) for p in paths]
    report = Report("tables", tables=(Table((Column("file", "Written"),), tuple((p,) for p in written)),),
                    data={"written": written})
    click.echo(render_report(report, fmt), nl=False)
