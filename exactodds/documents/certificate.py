"""Return-to-player certificates: exact, reproducible, verifiable, signed.

A certificate is one JSON document (format ``exactodds-certificate/4``). Its
*content* — the inputs, the date of issue, the parties, the assumptions, the
rounding policy and every exact result — determines its certificate number
(from the SHA-256 of its RFC 8785 canonical form). Its *provenance* names the
package version and the source commit fixed when the package was built, and the
SHA-256 of the rules and of each data file. A signature (Ed25519, see
:mod:`exactodds.documents.signing`) may follow. HTML, PDF and Markdown are renderings of
the same content (:mod:`exactodds.documents`); the HTML and the PDF carry the JSON
inside them.

:func:`verify` is strict: it refuses duplicate keys, unknown keys and wrong
types as malformed (:class:`~exactodds.errors.ExactOddsError`); it recomputes
every figure from the stated inputs and names the first that differs; it
compares the provenance with the running package.

Counts (combinations, sequences) are written as decimal strings: they exceed
the integers a JSON reader that uses doubles keeps exactly, and RFC 8785 allows
no others.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
import inspect
import math
import re
from collections.abc import Callable, Iterable, Sequence
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from importlib import resources
from typing import Any

import numpy as np

from exactodds import cache
from exactodds._version import __version__
from exactodds.analyses.advantage import Advantage, exposed_card
from exactodds.analyses.analysis import analyze, load_text
from exactodds.analyses.eor import effects_of_removal
from exactodds.analyses.pricing import LOSE, WagerResult
from exactodds.analyses.progressive import load_meters, progressive_analysis
from exactodds.documents.signing import canonical, check_name, check_signature, name_problem
from exactodds.errors import ExactOddsError, InconsistentCounts
from exactodds.files import write_atomically
from exactodds.game import rules
from exactodds.game.shoe import Shoe, parse_card_list
from exactodds.render.report import exact
from exactodds.render.tables import counted
from exactodds.simulation.exposure import exposure
from exactodds.simulation.recordio import read_chunks
from exactodds.simulation.rounds import settle_iter
from exactodds.simulation.simulate import simulate_chunks
from exactodds.wagers.bet_size import at_bet, parse_dollars
from exactodds.wagers.catalogue import DATA_FILES, MAX_FILE_BYTES, Catalogue, Paytable, Wager, load_catalogue, read_text
from exactodds.wagers.pays import vigorish_terms

__all__ = ["build", "verify", "write_atomically", "select_for_certificate", "shoes_from_options", "shoe_from_inputs",
           "provenance",
           "catalogue_with", "check_limits", "priced_tables", "FORMAT", "PARTIES", "MAX_BYTES", "MAX_SHOES",
           "MAX_WAGERS", "MAX_PAYTABLES", "MAX_TABLES", "LIMITS", "PAPERS", "ROUTES", "BAND_ROUNDS", "MAX_REVISIONS",
           "validation_record", "check_validation", "MAX_SIMULATED", "check_simulation",
           "MAX_EXPOSURE_SHOES", "check_exposure"]

FORMAT = "exactodds-certificate/4"
#: Paper sizes of the printed certificate (the HTML's page and the PDF): US Letter, as Pennsylvania's labs
#: file, by default.
PAPERS = ("letter", "a4")
#: Rounds of play the expected-range bands of the return to player are stated for, and their levels.
BAND_ROUNDS = (1_000, 10_000, 100_000, 1_000_000)
#: The two-sided normal quantiles of the bands, to 16 digits (a fixed text: the same figures on every machine).
BAND_Z = {"90%": "1.644853626951472", "95%": "1.959963984540054", "99%": "2.575829303548901"}
#: The most users' data files one certificate carries.
MAX_FILES = 16
#: The largest certificate file verify reads (JSON, HTML or PDF): room for every data file at its largest.
MAX_BYTES = 64 << 20
#: The most shoes, wagers and (wager, paytable) pairs one certificate prices, and shoes × pairs: the tables
#: priced. Together they keep building and verifying a certificate within minutes (the whole catalogue, 88
#: tables, on one shoe takes seconds), and ``certificate`` refuses what ``verify`` would.
MAX_SHOES = 16
MAX_WAGERS = 256
MAX_PAYTABLES = 512
MAX_TABLES = 2048
#: The limits in words, for the one-line error.
LIMITS = (f"a certificate holds at most {MAX_SHOES} shoes, {MAX_WAGERS} wagers, {MAX_PAYTABLES} wager paytables, "
          f"{MAX_TABLES:,} priced tables (shoes × paytables) and {MAX_BYTES >> 20} MiB")
#: The people a certificate names on its cover (blank signature lines where not given).
PARTIES = ("issuer", "prepared_by", "approved_by")

ASSUMPTIONS = [
    "Pennsylvania Minibaccarat rules: point values per §627a.6, initial deal per §627a.8(c), third cards per "
    "§627a.9 and §627a.10 with the Banker's Table 1 as printed.",
    "Figures are 'off the top' of the stated shoe: the round is dealt from the shoe exactly as composed, "
    "with no cards burned and no cut card.",
    "Every round is weighted by the number of ordered 6-card sequences of the shoe that produce it "
    "(the convention of published tables); a round that uses fewer than six cards counts every way "
    "the unread cards could follow.",
    "Commission, push and settlement rules are those of each wager's cited section and stated reading; "
    "pays are printed as the regulation writes them and converted exactly ('N to 1' pays N and returns "
    "the wager; 'N for 1' returns N in all).",
    "All figures are exact rational numbers; decimals are rounded for reading only.",
    "Non-adaptive: every wager's outcome and pay depend only on the cards of the round and the paytable "
    "stated; nothing depends on earlier rounds or results (progressive meters enter as stated symbols).",
    "Each outcome is counted by exactly the condition printed beside it, written in exactodds' condition "
    "language over the features of one round (its grammar: docs/formats.md, Conditions; every feature: "
    "'exactodds features'); where a rule of the regulation is ambiguous, the reading counted is stated with "
    "the wager.",
    "The complete game cycle of a shoe is every ordered 6-card sequence of its cards, each once: each "
    "outcome's combinations are counted over it, so its probability is combinations / game cycle.",
]

DECIMALS = ("Decimals are rounded half-even from the exact fractions: probabilities to 10 places, returns per "
            "unit wagered to 8 places, percentages to 4 places, standard deviations and volatility indexes to 4 "
            "places. Exact fractions are in the appendix and in the embedded JSON. A standard deviation and a "
            "skewness are irrational: they are rounded from the exact square root (to 12 places in the JSON); "
            "the expected-range bands are a normal approximation with the exact standard deviation of one round.")

_TOP = ("format", "title", "certificate_number", "issued", "parties", "inputs", "assumptions", "rounding",
        "results", "provenance")
_PROVENANCE = {"exactodds_version", "source_commit", "source_modified", "data_sha256", "content_sha256"}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def data_hashes() -> dict[str, str]:
    """SHA-256 of the drawing rules and of every shipped data file."""

    base = resources.files("exactodds") / "data"
    hashes = {"rules.TABLE_1": _sha256(canonical({str(k): v for k, v in rules.TABLE_1.items()})),
              "rules.py": _sha256(inspect.getsource(rules).encode("utf-8"))}
    for name in (*DATA_FILES, "meters.toml"):
        hashes[f"data/{name}"] = _sha256((base / name).read_bytes())
    return hashes


def provenance(hashes: dict[str, str] | None = None) -> dict[str, Any]:
    """The running package: its version, and the source commit fixed when it was built.

    The commit comes from ``exactodds/_build.py``, which ``setup.py`` writes when a
    wheel is built from a git checkout; it is never read from a git repository that
    happens to surround the installed files. An editable install has none. ``hashes``: the data
    files' digests when already worked out (:func:`data_hashes`).
    """

    try:
        built = importlib.import_module("._build", "exactodds")
        commit, modified = getattr(built, "SOURCE_COMMIT", None), getattr(built, "SOURCE_MODIFIED", None)
    except ImportError:
        commit, modified = None, None
    return {"exactodds_version": __version__, "source_commit": commit, "source_modified": modified,
            "data_sha256": hashes if hashes is not None else data_hashes()}


def select_for_certificate(catalogue: Catalogue, *, wagers: Sequence[str] = (), paytables: Sequence[str] = (),
                           sections: Sequence[str] = (), everything: bool = False) -> list[tuple[str, str]]:
    """(wager id, paytable id) pairs, in the order named, each once: every ``WAGER:PAYTABLE`` of
    ``wagers``, every paytable of a bare ``WAGER`` (or those of ``paytables`` it has), every wager
    citing one of ``sections``, or with ``everything`` the whole catalogue. A name that matches
    nothing is an error."""
    if everything == bool(wagers or sections):
        raise ExactOddsError("name the wagers (--wager WAGER[:PAYTABLE] or --section, each repeatable) or give --all")
    bare = [spec for spec in wagers if ":" not in spec]
    if paytables and not bare:
        raise ExactOddsError("--paytable goes with a bare --wager WAGER (or write --wager WAGER:PAYTABLE)")
    pairs: list[tuple[str, str]] = []
    used: set[str] = set()
    for spec in wagers:
        wid, colon, table = spec.strip().partition(":")
        if not wid or (colon and not table.strip()):
            raise ExactOddsError(f"--wager {spec!r}: write WAGER or WAGER:PAYTABLE (see 'exactodds list')")
        try:
            w = catalogue[wid]
            if colon:
                tables = [w.paytable(table.strip()).id]
            elif paytables:
                tables = [w.paytable(p).id for p in paytables if p.lower() in (t.lower() for t in w.paytables)]
                used.update(t.lower() for t in tables)
                tables = tables or [w.paytable(paytables[0]).id]      # none of them: the error names a near miss
            else:
                tables = list(w.paytables)
        except ExactOddsError as exc:
            raise ExactOddsError(f"--wager {spec!r}: {exc}") from None
        pairs += [(w.id, t) for t in tables]
    if missing := [p for p in paytables if p.lower() not in used]:
        raise ExactOddsError(f"--paytable {missing[0]!r}: no bare --wager has it")
    for section in sections:
        wanted = section.lstrip("§").strip()
        ids = [w.id for w in catalogue.values() if wanted and any(
            part.strip().lstrip("§").startswith(wanted) for part in w.section.replace(";", ",").split(","))]
        if not ids:
            raise ExactOddsError(f"--section: no wager cites section {section!r} (see 'exactodds list')")
        pairs += [(i, t) for i in ids for t in catalogue[i].paytables]
    if everything:
        pairs = [(w.id, t) for w in catalogue.values() for t in w.paytables]
    return list(dict.fromkeys(pairs))


def _files(files: Sequence[Any], where: str) -> list[dict[str, str]]:
    """Users' data files as a certificate records them: a name, the SHA-256 of the text and the text."""
    if len(files) > MAX_FILES:
        raise ExactOddsError(f"{where}: at most {MAX_FILES} data files, got {len(files)}")
    out = []
    for i, f in enumerate(files):
        if not isinstance(f, dict) or set(f) != {"name", "text"} or not all(isinstance(v, str) for v in f.values()):
            raise ExactOddsError(f"{where}[{i}]: a data file is {{'name': ..., 'text': ...}}")
        _check_text(f["name"], f"{where}[{i}].name")
        try:
            data = f["text"].encode("utf-8")
        except UnicodeEncodeError:
            raise ExactOddsError(f"{where}[{i}] ({f['name']}): not UTF-8 text") from None
        if len(data) > MAX_FILE_BYTES:
            raise ExactOddsError(f"{where}[{i}] ({f['name']}): larger than {MAX_FILE_BYTES:,} bytes, "
                                 "the most a wager data file may hold")
        out.append({"name": f["name"], "sha256": _sha256(data), "text": f["text"]})
    return out


def check_limits(shoes: int, selection: Sequence[tuple[str, str]], where: str = "", *,
                 options: bool = False) -> None:
    """Refuse a certificate of more shoes, wagers or paytables than :data:`LIMITS` allow (one line);
    with ``options`` the message names the command's options that chose them."""
    wagers = len({w for w, _ in selection})
    chosen = " (--wager, --section, --all)" if options else ""
    for count, most, what in ((shoes, MAX_SHOES, "shoes" + (" (--decks)" if options else "")),
                              (wagers, MAX_WAGERS, "wagers" + chosen),
                              (len(selection), MAX_PAYTABLES, "wager paytables" + chosen),
                              (shoes * len(selection), MAX_TABLES, "priced tables (shoes × paytables)")):
        if count > most:
            raise ExactOddsError(f"{where}{count:,} {what}, more than the {most:,} allowed ({LIMITS}): "
                                 "split it into several certificates")


def priced_tables(document: Any) -> int:
    """The tables a certificate prices (shoes × wager paytables), 0 if it does not say."""
    inputs = document.get("inputs") if isinstance(document, dict) else None
    if not isinstance(inputs, dict):
        return 0
    shoes, selection = inputs.get("shoes"), inputs.get("selection")
    return len(shoes) * len(selection) if isinstance(shoes, list) and isinstance(selection, list) else 0


def catalogue_with(files: Sequence[Any]) -> Catalogue:
    """The shipped catalogue with the wagers and paytables of users' data files ({'name', 'text'}) added."""

    cat = load_catalogue()
    for f in _files(files, "files"):
        cat = cat.merged(load_text(f["text"], source=f["name"]))
    return cat


def _added_paytables(recorded: Sequence[dict[str, str]]) -> dict[tuple[str, str], str]:
    """(wager id, paytable id in lower case) -> the user's file whose ``[[paytable]]`` adds it to a wager
    defined elsewhere (a designed paytable, say)."""
    return {(wid, str(raw.get("id", "")).lower()): f["name"] for f in recorded
            for wid, raw, _ in read_text(f["text"], source=f["name"]).extensions}


def shoe_from_inputs(spec: Any) -> Shoe:
    if not isinstance(spec, dict) or set(spec) != {"decks", "remove"}:
        raise ExactOddsError("malformed certificate: each of inputs.shoes needs exactly 'decks' and 'remove'")
    decks, remove = spec["decks"], spec["remove"]
    if isinstance(decks, bool) or not isinstance(decks, int) or not isinstance(remove, list) or not all(
            isinstance(c, str) for c in remove):
        raise ExactOddsError("malformed certificate: inputs.shoes: 'decks' is a whole number, 'remove' a list of cards")
    shoe = Shoe.decks(decks)
    return shoe.remove(*parse_card_list(",".join(remove), where="inputs.shoes.remove")) if remove else shoe


def _shoe_dict(shoe: Shoe) -> dict[str, Any]:
    d = shoe.to_dict()
    d["sequences"] = str(d["sequences"])          # beyond a double's exact integers
    return d


def _root(x: Fraction, places: int) -> str:
    """√x rounded to ``places`` decimals, exactly (from integer square roots; ties cannot occur unless √x is
    rational, and then it is exact to more places than shown).

    >>> _root(Fraction(2), 12), _root(Fraction(9, 4), 3)
    ('1.414213562373', '1.500')
    """
    a, b = x.numerator, x.denominator
    tenth = math.isqrt(a * b * 10 ** (2 * (places + 1))) // b         # floor(√x · 10^(places + 1))
    digits = (tenth + 5) // 10                                          # to nearest at ``places``
    whole, part = divmod(digits, 10 ** places)
    return f"{whole}.{part:0{places}d}" if places else str(whole)


def _moments(r: WagerResult) -> dict[str, Any]:
    """The net result's standard deviation, skewness and excess kurtosis from its exact central moments
    (the third and the kurtosis exact; the deviation and the skewness, irrational, to 12 places)."""
    mean = r.expected_return
    m2, m3, m4 = (sum((ln.probability * (ln.net - mean) ** k for ln in r.lines), Fraction(0)) for k in (2, 3, 4))
    if m2 == 0:
        return {"standard_deviation": "0", "third_central_moment": exact(m3), "skewness": None,
                "excess_kurtosis": None}
    skew = _root(m3 * m3 / m2 ** 3, 12)
    return {"standard_deviation": _root(m2, 12), "third_central_moment": exact(m3),
            "skewness": ("-" if m3 < 0 else "") + skew, "excess_kurtosis": exact(m4 / m2 ** 2 - 3)}


def _volatility(r: WagerResult) -> dict[str, str]:
    """The volatility index at each level of :data:`BAND_Z`: z · σ of one round per unit wagered (as ``position``
    defines it), to 8 places, worked in 40-digit decimals from the exact variance."""
    with localcontext() as context:
        context.prec = 40
        sd = Decimal(_root(r.variance, 24))
        return {level: str((Decimal(z) * sd).quantize(Decimal("1e-8"), ROUND_HALF_EVEN)) for level, z in BAND_Z.items()}


#: Pays whose win scales with the wager: a liability at a table limit is the limit times the largest of them.
_SCALED = ("to", "for", "push", "lose")


def _payout(r: WagerResult, table_max: Fraction | None) -> dict[str, Any]:
    """The largest net win one round pays per unit wagered (the outcomes the shoe can deal), and with a table
    limit the most one round at that wager can cost the house; a dollar or meter award does not scale with
    the wager, so then no liability is stated."""
    paid = [ln for ln in r.lines if ln.combinations and ln.id != LOSE]
    if any(ln.pay.kind not in _SCALED for ln in paid):
        return {"maximum_payout": None, "liability": None,
                "note": "not stated per unit: a fixed-dollar or meter award does not scale with the wager"}
    top = max(paid, key=lambda ln: ln.net, default=None)
    net = Fraction(0) if top is None or top.net < 0 else Fraction(top.net)
    out: dict[str, Any] = {"maximum_payout": {"outcome": None if top is None else top.name,
                                              "pays": None if top is None else top.pay.text,
                                              "net_per_unit": exact(net)},
                           "liability": None, "note": None}
    if table_max is not None:
        out["liability"] = {"table_max": exact(table_max), "per_round": exact(net * table_max)}
    return out


#: The most shoes a certificate's measured exposure deals, over all its shoes (verify deals them again: about
#: a second for 300 shoes of a few wagers read at point values).
MAX_EXPOSURE_SHOES = 20_000


def check_exposure(spec: Any, shoes: Sequence[dict[str, Any]], where: str) -> dict[str, int]:
    """The exposure section asked for ({'shoes': N, 'seed': S}; N = 0: effects of removal and the count alone),
    checked against the shoes it deals."""
    if not isinstance(spec, dict) or set(spec) != {"shoes", "seed"} or not all(
            type(spec[k]) is int for k in ("shoes", "seed")):
        raise ExactOddsError(f"{where}: an exposure section is {{'shoes': a whole number, 'seed': a whole number}}")
    if not 0 <= spec["shoes"] * len(shoes) <= MAX_EXPOSURE_SHOES or spec["shoes"] == 1:
        raise ExactOddsError(f"{where}: from 2 to {MAX_EXPOSURE_SHOES:,} shoes dealt in all "
                             f"({counted(len(shoes), 'shoe')} certified), got {spec['shoes']:,} a shoe")
    if not 0 <= spec["seed"] < 2 ** 53:
        raise ExactOddsError(f"{where}: the seed is a whole number from 0 to 2^53 - 1")
    if spec["shoes"] and any(isinstance(s, dict) and s.get("remove") for s in shoes):
        raise ExactOddsError(f"{where}: exposure deals full shoes; certify a shoe with cards removed without "
                             "--exposure-shoes")
    return {"shoes": spec["shoes"], "seed": spec["seed"]}


def _exposures(shoe: Shoe, decks: int, pairs: Sequence[tuple[Wager, Paytable]], spec: dict[str, int],
               cat: Catalogue) -> list[dict[str, Any]]:
    """Per pair, its exposure to counting off ``shoe``: the exact effects of removal, the suggested count and
    its betting correlation, the verdict, and with ``shoes`` a measured run (seeded, re-run by verify)."""
    effects = effects_of_removal(shoe, list(pairs), catalogue=cat)
    fixed = [(w, t) for w, t in pairs if not any(t.pays[o.id].symbolic for o in w.outcomes if t.pays[o.id].offered)]
    measured = {} if not spec["shoes"] or not fixed else {
        (x.wager.id, x.paytable.id): x for x in exposure(fixed, shoes=spec["shoes"], seed=spec["seed"],
                                                         decks=decks, catalogue=cat)}
    out = []
    for (w, t), r in zip(pairs, effects):
        count = None if r.count is None else {
            "tags": dict(r.count.tags), "source": r.count.source,
            "betting_correlation_squared": None if r.count.betting_correlation_squared is None else exact(
                r.count.betting_correlation_squared),
            "betting_correlation": None if r.count.betting_correlation_squared is None else
            ("-" if r.count.sign < 0 else "") + _root(r.count.betting_correlation_squared, 6)}
        block: dict[str, Any] = {
            "resolution": r.resolution,
            "effects": [{"removed": item, "in_shoe": n, "effect": None if e is None else
                         exact(e) if isinstance(e, Fraction) else str(e)}
                        for item, n, e in zip(r.items, r.counts, r.effects)],
            "count": count, "measured": None,
            "verdict": r.verdict() if not r.symbolic else (
                f"{w.id}:{t.id}: a progressive's effects of removal depend on its meters (each is stated as a "
                "formula in J, the meter divided by the wager): no verdict at a meter not stated")}
        x = measured.get((w.id, t.id))
        if spec["shoes"] and x is None:
            block["measured"] = {"note": "a progressive's exposure depends on its meters: not measured"}
        elif x is not None:
            tally, n = x.tally, x.shoes
            mean = tally.sum_advantage / n
            var = max((tally.sum_sq_shoe_advantage - n * mean * mean) / (n - 1), Fraction(0))
            block["measured"] = {
                "shoes": n, "seed": spec["seed"], "decks": decks, "cut": x.cut, "rounds": x.rounds,
                "dealt": "real shoes as the reference simulator deals them (§627a.5: shuffle, burn, cover card), "
                         "the exact edge on the unseen cards before every round (exactodds.simulation.exposure)",
                "mean_player_expected_return": exact(x.mean_player_expected_return),
                "advantage_share": exact(x.advantage_share),
                "perfect_per_shoe": exact(x.perfect_per_shoe), "perfect_per_shoe_se": _root(var / n, 8)}
        out.append(block)
    return out


def check_advantage(spec: Any, where: str) -> bool:
    """The advantage-play section asked for (``true``)."""
    if spec is not True:
        raise ExactOddsError(f"{where}: the advantage-play section is asked for by true")
    return True


def _seen_card(found: Advantage, by_rank: bool = False) -> dict[str, Any]:
    """One exposed card's states for one wager: each card it could be, how likely, the wager's edge given it, what
    betting it only where positive gains, and the state that gives the player the most (``by_rank``: the states
    of a card read by rank and suit added up by rank, the edge given the rank)."""
    states = [(s.pattern, s.probability, s.results[0].expected_return if s.results else None) for s in found.states]
    if by_rank:
        ranks: dict[str, list[Fraction]] = {}
        for label, p, e in states:
            if e is not None:
                acc = ranks.setdefault(label[:-1], [Fraction(0), Fraction(0)])
                acc[0] += p
                acc[1] += p * e
        states = [(r, p, pe / p) for r, (p, pe) in ranks.items()]
    live = [(label, p, e) for label, p, e in states if e is not None and p]
    worst = max(live, key=lambda x: x[2])
    return {"states": [{"card": label, "probability": exact(p), "expected_return": exact(e)} for label, p, e in states],
            "when_positive": exact(sum((p * max(Fraction(0), e) for _, p, e in live), Fraction(0))),
            "worst": {"card": worst[0], "expected_return": exact(worst[2])}}


def _advantages(shoe: Shoe, pairs: Sequence[tuple[Wager, Paytable]], cat: Catalogue) -> list[dict[str, Any]]:
    """Per pair, what a player gains by knowing a card before the bet (exactodds.analyses.advantage): the first
    card dealt flashed (each card it could be), the burn card seen (627a.5(f) exposes it), and the most exposed
    split of the first card's class for edge sorting: the ranks given which the wager's edge is positive (for one
    wager, betting it only where positive, no split of the ranks gains more than that one), its gain exact."""
    out: list[dict[str, Any]] = []
    for w, t in pairs:
        name = f"{w.id}:{t.id}"
        if any(t.pays[o.id].symbolic for o in w.outcomes if t.pays[o.id].offered):
            out.append({"note": f"{name}: a progressive's edge depends on its meters: not stated"})
            continue
        first = exposed_card(shoe, position="first", wagers=[name], catalogue=cat)
        burn = exposed_card(shoe, position="burn", wagers=[name], catalogue=cat)
        flashed = _seen_card(first)
        by_rank = _seen_card(first, by_rank=True) if len(first.states) == 52 else flashed
        split = [s["card"] for s in by_rank["states"] if s["expected_return"] is not None
                 and Fraction(s["expected_return"]) > 0]
        seen_burn = _seen_card(burn)
        gain = Fraction(by_rank["when_positive"])
        worst = max(Fraction(flashed["worst"]["expected_return"]), Fraction(seen_burn["worst"]["expected_return"]))
        words = (f"{name}: a flashed first card gives the player {float(Fraction(flashed['when_positive'])):.4%} "
                 f"betting it only where positive (at most {float(Fraction(flashed['worst']['expected_return'])):+.4%}"
                 f", first card {flashed['worst']['card']}); ")
        words += (f"an edge sorter who tells {', '.join(split)} from the rest, {float(gain):.4%}; " if split and
                  len(split) < 13 else "no split of the first card's ranks gives an edge sorter anything; "
                  if not split else "the wager favours the player off the top; ")
        words += f"a seen burn card, at most {float(Fraction(seen_burn['worst']['expected_return'])):+.4%}"
        out.append({"first_card": {"read_by": "rank and suit" if len(first.states) == 52 else "rank", **flashed},
                    "burn_card": seen_burn,
                    "edge_sorting": {"ranks": split, "gain": exact(gain),
                                     "seen": "the class of the first card dealt (627a.9(a))"},
                    "worst_case": exact(worst), "verdict": words})
    return out


#: The most rounds a certificate's simulation deals, over all its shoes (verify deals them again: about a
#: second a million rounds).
MAX_SIMULATED = 100_000_000


def check_simulation(spec: Any, shoes: Sequence[dict[str, Any]], where: str) -> dict[str, int]:
    """The simulation asked for ({'rounds': N, 'seed': S}), checked against the shoes it deals."""
    if not isinstance(spec, dict) or set(spec) != {"rounds", "seed"} or not all(
            type(spec[k]) is int for k in ("rounds", "seed")):
        raise ExactOddsError(f"{where}: a simulation is {{'rounds': a whole number, 'seed': a whole number}}")
    if not 1 <= spec["rounds"] * len(shoes) <= MAX_SIMULATED:
        raise ExactOddsError(f"{where}: from 1 to {MAX_SIMULATED:,} rounds in all ({counted(len(shoes), 'shoe')} "
                             f"certified), got {spec['rounds']:,} a shoe")
    if not 0 <= spec["seed"] < 2 ** 53:
        raise ExactOddsError(f"{where}: the seed is a whole number from 0 to 2^53 - 1")
    if any(isinstance(s, dict) and s.get("remove") for s in shoes):
        raise ExactOddsError(f"{where}: the reference simulator deals full shoes; certify a shoe with cards "
                             "removed without --simulate")
    return {"rounds": spec["rounds"], "seed": spec["seed"]}


def _simulated(shoe: Shoe, decks: int, pairs: Sequence[tuple[Wager, Paytable]], spec: dict[str, int]
               ) -> list[dict[str, int]]:
    """Per pair, the rounds the reference simulator settled as each outcome (and 'lose'): ``rounds`` rounds,
    each off the top of a freshly shuffled full shoe (the distribution counted), from ``seed``."""
    counts = [np.zeros(len(w.outcomes) + 1, dtype=np.int64) for w, _ in pairs]
    dealt = 0
    for part in simulate_chunks(decks=decks, rounds=spec["rounds"], seed=spec["seed"], mode="fresh"):
        dealt += len(part)
        for k, ((w, _), assign) in enumerate(settle_iter(list(pairs), part.player, part.banker)):
            counts[k] += np.bincount(np.where(assign < 0, len(w.outcomes), assign), minlength=len(w.outcomes) + 1)
    if dealt != spec["rounds"] or shoe.size != 52 * decks:
        raise InconsistentCounts(f"the simulator dealt {dealt:,} rounds, not {spec['rounds']:,}")
    return [{**{o.id: int(c[i]) for i, o in enumerate(w.outcomes) if c[i] or t.pays[o.id].offered},
             LOSE: int(c[-1])} for (w, t), c in zip(pairs, counts)]


def _simulation_block(r: WagerResult, counted: dict[str, int], spec: dict[str, int]) -> dict[str, Any]:
    """The simulation's figures for one table: its counts, observed RTP, 95% interval and verdict."""
    n = spec["rounds"]
    block: dict[str, Any] = {"rounds": n, "seed": spec["seed"], "dealt": "each round off the top of a freshly "
                             "shuffled full shoe (exactodds.simulation.simulate, mode 'fresh')",
                             "counts": {k: str(v) for k, v in counted.items()}}
    if r.symbolic:
        return block | {"observed_rtp": None, "interval_95_percent": None, "z": None,
                        "verdict": "a progressive's return depends on its meters: the counts alone are stated"}
    nets = {ln.id: Fraction(ln.net) for ln in r.lines}
    observed = 1 + sum((nets[k] * v for k, v in counted.items()), Fraction(0)) / n
    with localcontext() as context:
        context.prec = 40
        se = Decimal(_root(r.variance / n, 24))
        obs = Decimal(observed.numerator) / Decimal(observed.denominator)
        half = Decimal(BAND_Z["95%"]) * se
        q = Decimal("0.0001")
        interval = [str(((obs - half) * 100).quantize(q, ROUND_HALF_EVEN)),
                    str(((obs + half) * 100).quantize(q, ROUND_HALF_EVEN))]
        gap = obs - Decimal(r.return_to_player.numerator) / Decimal(r.return_to_player.denominator)
        z = (gap / se).quantize(q, ROUND_HALF_EVEN) if se else Decimal(0)
    inside = abs(gap) <= half
    return block | {"observed_rtp": exact(observed), "interval_95_percent": interval, "z": str(z),
                    "verdict": ("consistent: the exact RTP lies inside the 95% interval of the observed one" if inside
                                else "outside: the exact RTP lies outside the 95% interval of the observed one (a "
                                     "1 in 20 chance for a correct count; a longer run decides)")}


def _bands(r: WagerResult) -> list[dict[str, Any]]:
    """For 10^3 ... 10^6 rounds, the ranges the return to player falls in with 90%, 95% and 99% chance:
    RTP ± z·σ/√n (normal, exact σ), in percent to 4 places, worked in 40-digit decimals from exact figures."""
    with localcontext() as context:
        context.prec = 40
        rtp = Decimal(r.return_to_player.numerator) / Decimal(r.return_to_player.denominator)
        out = []
        for n in BAND_ROUNDS:
            se = Decimal(_root(r.variance / n, 24))
            ranges = {}
            for level, z in BAND_Z.items():
                half = Decimal(z) * se
                ranges[level] = [str(((rtp - half) * 100).quantize(Decimal("0.0001"), ROUND_HALF_EVEN)),
                                 str(((rtp + half) * 100).quantize(Decimal("0.0001"), ROUND_HALF_EVEN))]
            out.append({"rounds": n, "rtp_percent": ranges})
    return out


#: How the outcomes of a wager are settled, in words, by its ``settle`` (the conditions say the rest).
SETTLEMENT = {
    "exclusive": "The outcomes' conditions are exclusive: no round counted meets two of them (checked on every "
                 "round); a round that meets none of the offered outcomes' conditions loses the wager.",
    "highest": "A round that meets several offered outcomes' conditions is paid only the highest of them; a round "
               "that meets none loses the wager.",
}
#: The condition of the losing line: every round no offered outcome takes.
OTHERWISE = "otherwise: no offered outcome's condition holds"


def _rules(w: Wager, t: Paytable) -> dict[str, Any]:
    """The rules of the bet as counted: how outcomes are settled, and the outcomes this paytable does not offer."""
    return {"settlement": SETTLEMENT[w.settle],
            "not_offered": [{"id": o.id, "outcome": o.name, "condition": o.condition.text}
                            for o in w.outcomes if not t.pays[o.id].offered]}


def _wager_block(r: WagerResult, source: dict[str, str], second: WagerResult | None = None, *,
                 paytable_source: dict[str, str] | None = None, table_max: Fraction | None = None) -> dict[str, Any]:
    """One priced table of the certificate; ``source`` is the wager's data file, ``paytable_source`` the
    paytable's (the same file unless a second file added the paytable); ``table_max`` the table limit in
    dollars the liability per round is stated at."""
    w, t = r.wager, r.paytable
    conditions = {o.id: o.condition.text for o in w.outcomes}
    rows = [{"id": ln.id, "outcome": ln.name, "condition": conditions.get(ln.id, OTHERWISE), "pays": ln.pay.text,
             "net": exact(ln.net), "combinations": str(ln.combinations), "probability": exact(ln.probability),
             "one_in": exact(1 / ln.probability) if ln.probability else None,
             "return": exact(ln.contribution)}
            for ln in r.lines]
    totals = {"combinations": str(sum(ln.combinations for ln in r.lines)),
              "probability": exact(sum((ln.probability for ln in r.lines), Fraction(0))),
              "return": exact(r.expected_return)}
    block: dict[str, Any] = {
        "wager": w.id, "name": w.name, "game": w.game, "section": w.section, "paytable": t.id,
        "paytable_section": t.section, "reading": w.reading, "reading_id": w.reading_id,
        "parameters": {k: list(v) if isinstance(v, tuple) else v for k, v in w.parameters.items()},
        "data_file": source, "paytable_file": paytable_source or source, "rules": _rules(w, t),
        "game_cycle": str(r.total), "outcomes": rows, "totals": totals,
        "routes": _routes(r, second),
    }
    push = r.push_frequency
    loss = sum((ln.probability for ln in r.lines if ln.pay.kind == "lose"), Fraction(0))
    top_line = max((ln for ln in r.lines if ln.id != "lose" and ln.combinations),
                   key=lambda ln: w.rank(t, ln.id), default=None)
    top = None if top_line is None else {
        "outcome": top_line.name, "pays": top_line.pay.text, "probability": exact(top_line.probability)}
    summary: dict[str, Any] = {"hit_frequency": exact(r.hit_frequency), "push_frequency": exact(push),
                               "loss_frequency": exact(loss), "top_award": top}
    if not r.symbolic:
        summary |= {"expected_return": exact(r.expected_return), "house_edge": exact(r.house_edge),
                    "rtp": exact(r.return_to_player),
                    "edge_excluding_pushes": exact(r.house_edge / (1 - push)) if push < 1 else None,
                    "variance": exact(r.variance)} | _moments(r) | {"volatility_index": _volatility(r)}
        block["payout"] = _payout(r, table_max)
        block["summary"] = summary
        block["bands"] = {"method": "normal approximation with the exact standard deviation of one round: "
                                    "RTP ± z · σ / √rounds, z = " + ", ".join(f"{z} ({lv})" for lv, z in BAND_Z.items()),
                          "ranges": _bands(r)}
        return block

    block["summary"] = summary
    block["payout"] = _payout(r, table_max)
    a = progressive_analysis(r, load_meters()[0].get((w.id, t.id)))
    meters = {}
    for symbol, p in a.coefficients.items():
        m: dict[str, Any] = {"top_award": a.top_lines.get(symbol), "probability": exact(p)}
        try:
            m["break_even_units"] = exact(a.break_even(symbol))
            if a.minimum_wager is not None:
                m["break_even_dollars"] = exact(a.break_even(symbol) * a.minimum_wager)
        except ExactOddsError as exc:
            m["break_even_note"] = str(exc)
        meters[symbol] = m
    block["progressive"] = {
        "expected_return": str(a.expression),
        "terms": [{"meters": list(mono), "coefficient": exact(c)} for mono, c in a.expression.terms()],
        "fixed_return": exact(a.fixed_return), "units": "each J is the meter divided by the wager",
        "meters": meters, "minimum_wager": exact(a.minimum_wager) if a.minimum_wager else None}
    return block


ROUTES = {"vector": "the multiset tables: every ordered multiset of six cards weighted by falling factorials of the "
                     "shoe's counts, its orderings settled once (exactodds.engine.multiset)",
          "walk": "the recursive walk of the deal, card by card, memoized on the remaining counts and the round's "
                  "state; it shares no counting code with the tables (exactodds.engine.walk)"}


def _routes(r: WagerResult, second: WagerResult | None) -> dict[str, Any]:
    """The two routes that counted the table and their agreement (outcome by outcome, exactly)."""
    if second is None:
        return {"first": ROUTES["vector"], "second": None, "agreement": "not checked (the tables alone were asked for)"}
    if [(ln.id, ln.combinations) for ln in r.lines] != [(ln.id, ln.combinations) for ln in second.lines]:
        raise InconsistentCounts(f"{r.wager.id}:{r.paytable.id}: the two routes count different combinations "
                                 "(a defect of exactodds, please report it); no certificate is made")
    return {"first": ROUTES["vector"], "second": ROUTES["walk"],
            "agreement": f"every outcome's combinations equal ({len(r.lines)} outcomes, exactly)"}


def _check_text(value: Any, where: str, *, optional: bool = False) -> None:

    check_name(value, where, optional=optional)


_VALIDATION = {"name", "format", "sha256", "rows"}


def _validation(record: Any, where: str) -> dict[str, Any]:
    """A validation file's record, checked: its name, record format, SHA-256 and rounds."""
    if not isinstance(record, dict) or set(record) != _VALIDATION or not isinstance(record["format"], str) or not (
            isinstance(record["sha256"], str) and re.fullmatch("[0-9a-f]{64}", record["sha256"])) or not (
            type(record["rows"]) is int and 0 <= record["rows"] < 2 ** 53):
        raise ExactOddsError(f"{where}: a validation file is recorded as exactly {{'name': ..., 'format': ..., "
                             "'sha256': 64 hex digits, 'rows': a whole number}")
    _check_text(record["name"], f"{where}.name")
    return dict(record)


def _file_sha256(path: str, option: str) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    except OSError as exc:
        raise ExactOddsError(f"{option} {path}: cannot read ({exc.strerror or exc})") from None
    return digest.hexdigest()


def validation_record(path: str, *, name: str, fmt: str, rows: int) -> dict[str, Any]:
    """What a certificate records of the validation file at ``path`` (``name``: the file's name as given)."""
    return {"name": name, "format": fmt, "sha256": _file_sha256(path, "--validation"), "rows": rows}


def check_validation(document: dict[str, Any], path: str) -> tuple[bool, str]:
    """A validation file against the one the certificate records: (True, what matched) or (False, why not).
    Its SHA-256 must be the recorded one, and its rounds, read back, as many as recorded."""
    record = document.get("inputs", {}).get("validation")
    if record is None:
        raise ExactOddsError(f"--validation {path}: the certificate records no validation file "
                             "(make it with certificate --validation FILE)")
    record = _validation(record, "malformed certificate: inputs.validation")
    digest = _file_sha256(path, "--validation")
    if digest != record["sha256"]:
        return False, (f"validation file {path}: its SHA-256 {digest[:16]}… is not the recorded "
                       f"{record['sha256'][:16]}… of {record['name']!r} ({record['rows']:,} rounds): "
                       "another file, or the file was changed")
    try:
        rows = sum(len(chunk) for chunk in read_chunks(path, fmt=record["format"]))
    except ExactOddsError as exc:
        return False, f"validation file {path}: its SHA-256 matches but it cannot be read back ({exc})"
    if rows != record["rows"]:
        return False, f"validation file {path}: {rows:,} rounds read back, the certificate records {record['rows']:,}"
    return True, (f"validation file {path} is {record['name']!r} as recorded: SHA-256 {digest[:16]}…, "
                  f"{rows:,} rounds")


#: The most lines of a game's revision history one certificate states.
MAX_REVISIONS = 50


def _game(name: str | None, version: str | None, revisions: Sequence[str]) -> dict[str, Any] | None:
    """The game submitted as the certificate states it (None when nothing names it), each text checked."""
    _check_text(name, "--game", optional=True)
    _check_text(version, "--game-version", optional=True)
    if not isinstance(revisions, (list, tuple)) or len(revisions) > MAX_REVISIONS:
        raise ExactOddsError(f"--revision: at most {MAX_REVISIONS} lines of revision history")
    for line in revisions:
        _check_text(line, "--revision")
    if name is None and version is None and not revisions:
        return None
    return {"name": name, "version": version, "revisions": list(revisions)}


def _issued(value: str | None) -> str:
    if value is None:
        return dt.datetime.now(dt.timezone.utc).date().isoformat()

    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ExactOddsError(f"--issued: a date is written YYYY-MM-DD, got {value!r}")
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise ExactOddsError(f"--issued: {value!r} is not a date") from None
    if not 2000 <= day.year <= 2999:
        raise ExactOddsError(f"--issued: {value!r} is not a plausible date of issue")
    return day.isoformat()


def certificate_number(content: dict[str, Any]) -> str:
    """The number derived from the exact content: 'EO-' and 12 hex digits of its canonical SHA-256."""

    digest = _sha256(canonical(content)).upper()
    return f"EO-{digest[0:4]}-{digest[4:8]}-{digest[8:12]}"


@cache.disabled()          # what is signed is computed from the rules and data files, never read from the disk cache
def build(*, shoes: Sequence[dict[str, Any]], selection: Sequence[tuple[str, str]],
          catalogue: Catalogue | None = None, title: str | None = None, bet: str | None = None,
          issued: str | None = None, parties: dict[str, str | None] | None = None,
          files: Sequence[dict[str, str]] = (), progress: Callable[[int, int], None] | None = None,
          paper: str = "letter", second_route: bool = True, game: str | None = None,
          game_version: str | None = None, revisions: Sequence[str] = (),
          table_max: str | None = None, validation: dict[str, Any] | None = None,
          simulation: dict[str, int] | None = None, exposures: dict[str, int] | None = None,
          advantage: bool = False) -> dict[str, Any]:
    """The certificate for ``selection`` (wager id, paytable id) on each shoe of ``shoes``.

    ``bet`` (dollars) prices every wager that charges a vigorish at that bet size,
    the vigorish rounded up to 25¢ as §627a.12(c) allows. ``issued`` is the date of
    issue (today by default); ``parties`` names the issuer, preparer and approver.
    ``files`` are users' data files ({'name': ..., 'text': ...}) whose wagers and
    paytables join the catalogue; the certificate carries each one's text and
    SHA-256, so that :func:`verify` needs nothing else. ``progress`` is called with (tables
    priced, tables in all) after each table. At most :data:`LIMITS` are priced. ``paper`` is
    the printed page (:data:`PAPERS`), an input of the document like the others.

    Every table is counted by both routes (:data:`ROUTES`), which must agree outcome by outcome;
    ``second_route=False`` counts by the tables alone (the walk of a wager reading every card's suit
    takes seconds a shoe) and says so in the document, an input :func:`verify` follows.

    ``game`` and ``game_version`` name the game submitted, ``revisions`` are the lines of its revision
    history (oldest first), and ``table_max`` (dollars) the table limit each wager's liability per round is
    stated at: inputs of the document, printed on its cover. ``validation`` records the validation file
    written with it (:func:`validation_record`), which ``verify --validation FILE`` checks a file against.
    ``simulation`` ({'rounds': N, 'seed': S}) deals N rounds of each shoe by the reference simulator and
    states each table's observed RTP beside the exact one; :func:`verify` deals them again. ``exposures``
    ({'shoes': N, 'seed': S}) adds each table's exposure to counting: effects of removal, the suggested count,
    the verdict and, with N shoes, a measured run that :func:`verify` deals again. ``advantage`` adds each
    table's advantage play (:func:`_advantages`): a flashed first card, a seen burn card and the most exposed
    split for edge sorting, exact.
    """
    if paper not in PAPERS:
        raise ExactOddsError(f"--paper: {paper!r} is not a paper size ({' or '.join(PAPERS)})")

    if not selection:
        raise ExactOddsError("a certificate needs at least one wager")
    if not shoes:
        raise ExactOddsError("a certificate needs at least one shoe")
    check_limits(len(shoes), selection, "certificate too large: ", options=True)
    named = {p: None for p in PARTIES} | dict(parties or {})
    if set(named) != set(PARTIES):
        raise ExactOddsError(f"parties are {', '.join(PARTIES)}")
    for key, value in named.items():
        _check_text(value, f"--{key.replace('_', '-')}", optional=True)
    if files and catalogue is not None:
        raise ExactOddsError("give a certificate users' data files or a catalogue, not both")
    recorded = _files(files, "files")
    simulated = None if simulation is None else check_simulation(simulation, shoes, "--simulate")
    exposed = None if exposures is None else check_exposure(exposures, shoes, "--exposure-shoes")
    submitted = _game(game, game_version, revisions)
    limit = parse_dollars(table_max, where="--table-max") if table_max is not None else None
    cat = catalogue if catalogue is not None else catalogue_with(files) if files else load_catalogue()
    if bet is not None:

        dollars = parse_dollars(bet, where="--bet")
        charged = {wid for wid, _ in selection
                   if any(vigorish_terms(p.text) for t in cat[wid].paytables.values() for p in t.pays.values())}
        if not charged:
            raise ExactOddsError("--bet: no selected wager charges a vigorish")
        cat = Catalogue([at_bet(cat[w], dollars) if w in charged else cat[w] for w in cat])
    results: list[dict[str, Any]] = []
    total = len(shoes) * len(selection)
    shipped = data_hashes()
    sources = {f["name"]: f["sha256"] for f in recorded}
    added = _added_paytables(recorded)
    for spec in shoes:
        shoe = shoe_from_inputs(spec)
        walked: Sequence[WagerResult | None] = (
            analyze(shoe, wagers=[f"{w}:{t}" for w, t in selection], catalogue=cat, route="walk").results
            if second_route else [None] * len(selection))
        blocks = []
        observed = (_simulated(shoe, spec["decks"], [(cat[w], cat[w].paytables[t]) for w, t in selection], simulated)
                    if simulated is not None else [None] * len(selection))
        pairs = [(cat[w], cat[w].paytables[t]) for w, t in selection]
        counted = (_exposures(shoe, spec["decks"], pairs, exposed, cat) if exposed is not None
                   else [None] * len(selection))
        gains = _advantages(shoe, pairs, cat) if advantage else [None] * len(selection)
        for (wid, tid), second, seen, exposed_block, gained in zip(selection, walked, observed, counted, gains):
            (r,) = analyze(shoe, wagers=[wid], paytables=[tid], catalogue=cat)
            source = cat[wid].source
            digest = sources[source] if source in sources else shipped[f"data/{source}"]
            where = added.get((wid, tid.lower()))
            blocks.append(_wager_block(r, {"name": source, "sha256": digest}, second, paytable_source=None if where
                                       is None else {"name": where, "sha256": sources[where]}, table_max=limit))
            if seen is not None:
                blocks[-1]["simulation"] = _simulation_block(r, seen, simulated)  # type: ignore[arg-type]
            if exposed_block is not None:
                blocks[-1]["exposure"] = exposed_block
            if gained is not None:
                blocks[-1]["advantage"] = gained
            if progress is not None:
                progress(len(results) * len(selection) + len(blocks), total)
        results.append({"shoe": _shoe_dict(shoe), "wagers": blocks})
    wagers = list(dict.fromkeys(w for w, _ in selection))
    if title is not None and not title.strip():
        raise ExactOddsError("--title: an empty title")
    if title is None:                        # as many names as fit the limit of a title, then "and N more"
        for shown in range(min(3, len(wagers)), 0, -1):
            title = ("Return-to-player certificate: " + ", ".join(cat[w].name for w in wagers[:shown])
                     + (f" and {len(wagers) - shown} more" if len(wagers) > shown else ""))
            if name_problem(title) is None:
                break
        else:
            title = f"Return-to-player certificate: {len(wagers)} wager{'s' if len(wagers) > 1 else ''}"
    _check_text(title, "--title")
    content = {
        "format": FORMAT,
        "title": title,
        "issued": _issued(issued),
        "parties": named,
        "inputs": {"shoes": [dict(s) for s in shoes],
                   "selection": [{"wager": w, "paytable": t} for w, t in selection],
                   **({"bet": str(bet)} if bet is not None else {}),
                   **({"game": submitted} if submitted is not None else {}),
                   **({"table_max": str(table_max)} if table_max is not None else {}),
                   **({"validation": _validation(validation, "validation")} if validation is not None else {}),
                   **({"simulation": simulated} if simulated is not None else {}),
                   **({"exposure": exposed} if exposed is not None else {}),
                   **({"advantage": True} if advantage else {}),
                   **({"files": recorded} if recorded else {}), "paper": paper, "second_route": second_route},
        "assumptions": ASSUMPTIONS,
        "rounding": DECIMALS,
        "results": results,
    }
    number = certificate_number(content)
    document = {k: content[k] for k in ("format", "title")} | {"certificate_number": number} | {
        k: content[k] for k in ("issued", "parties", "inputs", "assumptions", "rounding", "results")}
    stated = {k: v for k, v in document.items()}
    return document | {"provenance": provenance(shipped) | {"content_sha256": _sha256(canonical(stated))}}


# -- verification ---------------------------------------------------------------------------

_KIND = {str: "text", int: "a whole number", bool: "true or false", list: "a list", dict: "an object",
         type(None): "null", float: "a number"}


def _compare(stated: Any, fresh: Any, path: str) -> str | None:
    """The first path where ``stated`` differs in value from ``fresh``; a different shape is malformed."""
    containers = (dict, list)
    if type(stated) is not type(fresh) and (
            not (stated is None or fresh is None) or isinstance(stated, containers) or isinstance(fresh, containers)):
        raise ExactOddsError(f"malformed certificate: {path or 'the document'} must be "
                             f"{_KIND.get(type(fresh), type(fresh).__name__)}, not "
                             f"{_KIND.get(type(stated), type(stated).__name__)}")
    if isinstance(fresh, dict) and isinstance(stated, dict):
        if unknown := [k for k in stated if k not in fresh]:
            raise ExactOddsError(f"malformed certificate: unknown key {unknown[0]!r} in {path or 'the document'}")
        if missing := [k for k in fresh if k not in stated]:
            raise ExactOddsError(f"malformed certificate: no {missing[0]!r} in {path or 'the document'}")
        for k in fresh:
            d = _compare(stated[k], fresh[k], f"{path}.{k}" if path else k)
            if d:
                return d
        return None
    if isinstance(fresh, list) and isinstance(stated, list):
        if len(stated) != len(fresh):
            return f"{path} (length {len(stated)} vs {len(fresh)})"
        for i, (x, y) in enumerate(zip(stated, fresh)):
            d = _compare(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if stated == fresh else path


def _inputs(document: dict[str, Any]) -> dict[str, Any]:
    """The stated inputs, checked for shape before anything is recomputed from them."""
    inputs = document["inputs"]
    if not isinstance(inputs, dict) or not {"shoes", "selection", "paper", "second_route"} <= set(inputs) <= {
            "shoes", "selection", "bet", "files", "paper", "second_route", "game", "table_max", "validation",
            "simulation", "exposure", "advantage"}:
        raise ExactOddsError("malformed certificate: inputs hold 'shoes', 'selection', 'paper', 'second_route' and "
                             "optionally 'bet', 'files', 'game', 'table_max', 'validation', 'simulation', "
                             "'exposure' and 'advantage'")
    if inputs["paper"] not in PAPERS:
        raise ExactOddsError(f"malformed certificate: inputs.paper is {' or '.join(PAPERS)}")
    if not isinstance(inputs["second_route"], bool):
        raise ExactOddsError("malformed certificate: inputs.second_route is true or false")
    shoes, selection = inputs["shoes"], inputs["selection"]
    if not isinstance(shoes, list) or not shoes:
        raise ExactOddsError("malformed certificate: inputs.shoes must list at least one shoe")
    if not isinstance(selection, list) or not selection:
        raise ExactOddsError("malformed certificate: it prices no wager (inputs.selection is empty)")
    for s in selection:
        if not isinstance(s, dict) or set(s) != {"wager", "paytable"} or not all(isinstance(v, str) for v in s.values()):
            raise ExactOddsError("malformed certificate: each of inputs.selection is {'wager': ..., 'paytable': ...}")
    check_limits(len(shoes), [(s["wager"], s["paytable"]) for s in selection], "certificate too large: ")
    for key in ("bet", "table_max"):
        if key in inputs and not isinstance(inputs[key], str):
            raise ExactOddsError(f"malformed certificate: inputs.{key} must be text")
    game = inputs.get("game", {"name": None, "version": None, "revisions": []})
    if not isinstance(game, dict) or set(game) != {"name", "version", "revisions"} or not isinstance(
            game["revisions"], list):
        raise ExactOddsError("malformed certificate: inputs.game holds exactly 'name', 'version' and 'revisions' "
                             "(a list)")
    for key in ("name", "version"):
        _check_text(game[key], f"malformed certificate: inputs.game.{key}", optional=True)
    for i, line in enumerate(game["revisions"][:MAX_REVISIONS + 1]):
        _check_text(line, f"malformed certificate: inputs.game.revisions[{i}]")
    files = inputs.get("files", [])
    if "files" in inputs and (not isinstance(files, list) or not files or not all(
            isinstance(f, dict) and set(f) == {"name", "sha256", "text"} and isinstance(f["sha256"], str)
            and re.fullmatch("[0-9a-f]{64}", f["sha256"]) for f in files)):
        raise ExactOddsError("malformed certificate: inputs.files lists data files, each exactly "
                             "{'name': ..., 'sha256': 64 hex digits, 'text': ...}")
    _files([{"name": f["name"], "text": f["text"]} for f in files], "malformed certificate: inputs.files")
    parties = document["parties"]
    if not isinstance(parties, dict) or set(parties) != set(PARTIES):
        raise ExactOddsError(f"malformed certificate: parties hold exactly {', '.join(PARTIES)}")
    for key in ("title", "issued"):
        if not isinstance(document[key], str):
            raise ExactOddsError(f"malformed certificate: {key} must be text")
    _check_text(document["title"], "malformed certificate: title")
    for key, value in parties.items():
        _check_text(value, f"malformed certificate: parties.{key}", optional=True)
    return {"shoes": shoes, "selection": [(s["wager"], s["paytable"]) for s in selection],
            "bet": inputs.get("bet"), "title": document["title"], "issued": document["issued"], "parties": parties,
            "files": [{"name": f["name"], "text": f["text"]} for f in files], "paper": inputs["paper"],
            "second_route": inputs["second_route"], "game": game["name"], "game_version": game["version"],
            "revisions": game["revisions"], "table_max": inputs.get("table_max"),
            "validation": None if "validation" not in inputs else _validation(
                inputs["validation"], "malformed certificate: inputs.validation"),
            "simulation": None if "simulation" not in inputs else check_simulation(
                inputs["simulation"], shoes, "malformed certificate: inputs.simulation"),
            "exposures": None if "exposure" not in inputs else check_exposure(
                inputs["exposure"], shoes, "malformed certificate: inputs.exposure"),
            "advantage": "advantage" in inputs and check_advantage(inputs["advantage"],
                                                                   "malformed certificate: inputs.advantage")}


def _changed_file(document: dict[str, Any]) -> str | None:
    """The first embedded data file whose text does not have its stated SHA-256, if any."""
    for i, f in enumerate(document["inputs"].get("files", [])):
        if _sha256(f["text"].encode("utf-8")) != f["sha256"]:
            return (f"inputs.files[{i}] ({f['name']!r}): the embedded text does not have the stated SHA-256 "
                    "(the text or the digest was changed after the certificate was made)")
    return None


@cache.disabled()          # every figure recomputed from the rules and data files, none read from the disk cache
def verify(document: Any, *, public_key: Any | None = None, allow_other_version: bool = False,
           progress: Callable[[int, int], None] | None = None) -> tuple[bool, str]:
    """Recompute a certificate: (True, what was verified) or (False, the first failure).

    A malformed certificate, or one beyond :data:`LIMITS`, raises :class:`ExactOddsError`
    before anything is recomputed. ``public_key`` (an Ed25519 public key) must have
    signed it; ``allow_other_version`` accepts a certificate made by another version
    of the package or other data, if every figure still matches. ``progress`` is
    called as :func:`build` calls it.
    """

    if not isinstance(document, dict) or document.get("format") != FORMAT:
        found = document.get("format") if isinstance(document, dict) else None
        hint = " (made by an older exactodds: build it again)" if isinstance(found, str) and \
            found.startswith("exactodds-certificate/") else ""
        raise ExactOddsError(f"not an exactodds certificate (format must be {FORMAT!r}){hint}")
    if unknown := [k for k in document if k not in (*_TOP, "signature")]:
        raise ExactOddsError(f"malformed certificate: unknown key {unknown[0]!r}")
    if missing := [k for k in _TOP if k not in document]:
        raise ExactOddsError(f"malformed certificate: no {missing[0]!r}")
    given = _inputs(document)
    if changed := _changed_file(document):
        return False, changed
    fresh = build(**given, progress=progress)
    stated = {k: v for k, v in document.items() if k not in ("provenance", "signature")}
    diff = _compare(stated, {k: v for k, v in fresh.items() if k != "provenance"}, "")
    if diff == "certificate_number":
        return False, ("value differs at certificate_number: every figure recomputed from the stated inputs "
                       "matches, so something stated beside them was changed after the number was made: the "
                       "inputs (shoes, wagers, bet, paper, route, files), the title, the date or a party")
    if diff:
        return False, f"value differs at {diff}"
    prov = document["provenance"]
    if not isinstance(prov, dict) or set(prov) != _PROVENANCE:
        raise ExactOddsError(f"malformed certificate: provenance holds exactly {', '.join(sorted(_PROVENANCE))}")
    for key, kinds in (("exactodds_version", (str,)), ("source_commit", (str, type(None))),
                       ("source_modified", (bool, type(None))), ("content_sha256", (str,)), ("data_sha256", (dict,))):
        if not isinstance(prov[key], kinds):
            raise ExactOddsError(f"malformed certificate: provenance.{key} has the wrong type")
    if prov["content_sha256"] != _sha256(canonical(stated)):
        return False, "content_sha256 does not match the certificate's content"
    here = fresh["provenance"]
    other = [f"{k} {prov[k]!r} (this package: {here[k]!r})" for k in ("exactodds_version", "source_commit")
             if prov[k] != here[k]]
    if not isinstance(prov["data_sha256"], dict):
        raise ExactOddsError("malformed certificate: provenance.data_sha256 must be an object")
    other += [f"{name!r} changed" for name in sorted(set(prov["data_sha256"]) | set(here["data_sha256"]))
              if prov["data_sha256"].get(name) != here["data_sha256"].get(name)]
    if prov["source_modified"] != here["source_modified"] and prov["source_commit"] == here["source_commit"]:
        other.append("source_modified differs")
    if other and not allow_other_version:
        return False, ("made by another version of the package or other data: " + "; ".join(other)
                       + " (--allow-other-version accepts it if every figure matches)")
    signed_ok, signed = check_signature(document, public_key)
    if not signed_ok:
        return False, signed
    n = sum(len(r["wagers"]) for r in document["results"])
    note = f"; provenance differs, accepted: {'; '.join(other)}" if other else ""
    note = _files_note(document) + _runs_note(document) + note
    return True, (f"verified {document['certificate_number']}: {n} priced wager tables match exactly; "
                  f"{signed}{note}")


def _runs_note(document: dict[str, Any]) -> str:
    """What verify dealt again: the seeded simulation check and measured exposure, when the certificate has them."""
    inputs = document["inputs"]
    runs = ([f"the simulation check ({inputs['simulation']['rounds']:,} rounds a shoe, seed "
             f"{inputs['simulation']['seed']})"] if "simulation" in inputs else []) + (
        [f"the measured exposure ({inputs['exposure']['shoes']:,} shoes, seed {inputs['exposure']['seed']})"]
        if inputs.get("exposure", {}).get("shoes") else [])
    return f"; {' and '.join(runs)} dealt again from the seed, equal" if runs else ""


def _files_note(document: dict[str, Any]) -> str:
    files = document["inputs"].get("files", [])
    return "".join(f"; data file {f['name']!r} matches its SHA-256 {f['sha256'][:16]}…" for f in files)


# -- files -----------------------------------------------------------------------------------

def shoes_from_options(decks: Iterable[int], remove: str | None) -> list[dict[str, Any]]:
    """Shoe inputs as the certificate states them (checked now, recomputed by verify)."""
    cards = [str(c) for c in parse_card_list(remove, where="--remove")] if remove else []
    decks = list(decks)
    twice = next((d for k, d in enumerate(decks) if d in decks[:k]), None)
    if twice is not None:
        raise ExactOddsError(f"--decks {twice} is given twice: each shoe is certified once")
    specs = [{"decks": d, "remove": cards} for d in decks]
    for spec in specs:
        try:
            shoe_from_inputs(spec)
        except ExactOddsError as exc:
            raise ExactOddsError(f"--decks/--remove: {exc}") from None
    return specs
