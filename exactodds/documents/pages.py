"""Certificates as documents a lab files: HTML and PDF from one Jinja2 template, Markdown, and reading
any of them back.

The HTML carries the exact JSON certificate in a ``<script type="application/json"
id="exactodds-certificate">`` block and the PDF as an attached file
(``exactodds-certificate.json``), so one file carries its own proof:
``exactodds verify`` accepts the JSON, the HTML or the PDF. Print CSS gives the
PDF a running header with the certificate number and a "page N of M" footer.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Callable
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from markupsafe import Markup
from pypdf import PdfReader, PdfWriter
from pypdf.errors import PdfReadError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, StreamObject

from exactodds import extras
from exactodds.analyses.pricing import LOSE
from exactodds.documents.certificate import LIMITS, MAX_BYTES, write_atomically
from exactodds.documents.workbook import CERTIFICATE_SHEET, read_workbook
from exactodds.errors import DuplicateKey, ExactOddsError, unique_keys
from exactodds.files import Outputs, signals_held, temporary_folder
from exactodds.render.report import decimal, percent
from exactodds.render.tables import cited, write_csv
from exactodds.wagers.bet_size import money

__all__ = ["render_html", "render_markdown", "write_pdf", "read_document", "pdf_differs", "ATTACHMENT", "SCRIPT_ID",
           "CERTIFICATE_RENDERERS", "certificate_csv", "certificate_json"]

ATTACHMENT = "exactodds-certificate.json"
SCRIPT_ID = "exactodds-certificate"
_LABELS = {"issuer": "Issued by", "prepared_by": "Prepared by", "approved_by": "Approved by"}


def _environment() -> Any:
    jinja2 = extras.load("jinja2")
    env = jinja2.Environment(loader=jinja2.PackageLoader("exactodds", "templates"),
                             autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",)),
                             trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return env


def _fr(text: Any) -> Fraction:
    return Fraction(str(text))


#: MathML pieces: Markup.format escapes every value it is given, so no text reaches the page unescaped.
_MINUS, _PLUS, _TIMES = Markup("<mo>−</mo>"), Markup("<mo>+</mo>"), Markup("<mo>&#x2062;</mo>")
_MN, _FRACTION = Markup("<mn>{:,}</mn>"), Markup("<mfrac><mn>{:,}</mn><mn>{:,}</mn></mfrac>")
_METER, _SUBSCRIPTED = Markup("<mi>{}</mi>"), Markup("<msub><mi>{}</mi><mtext>{}</mtext></msub>")


def _mathml_magnitude(v: Fraction) -> Markup:
    return _MN.format(v.numerator) if v.denominator == 1 else _FRACTION.format(v.numerator, v.denominator)


def _mathml_number(value: Fraction) -> str:
    """An exact fraction typeset as MathML: a stacked fraction, or a whole number."""
    sign = _MINUS if value < 0 else Markup("")
    return str(Markup("<math>{}{}</math>").format(sign, _mathml_magnitude(abs(value))))


def _mathml_formula(terms: list[dict[str, Any]], *, lhs: bool = True) -> str:
    """A progressive's expected return, a polynomial in its meters, typeset as MathML."""

    parts = []
    for i, term in enumerate(terms):
        c = _fr(term["coefficient"])
        op = (_MINUS if c < 0 else Markup("")) if i == 0 else (_MINUS if c < 0 else _PLUS)
        c = abs(c)
        meters = Markup("").join(_SUBSCRIPTED.format(*m.split("_", 1)) if "_" in m else _METER.format(m)
                                 for m in term["meters"])
        coefficient = _mathml_magnitude(c)
        product = coefficient if not meters else (coefficient + _TIMES + meters if c != 1 else meters)
        parts.append(op + product)
    body = Markup("").join(parts)
    if not lhs:
        return str(Markup("<math>{}</math>").format(body))
    return str(Markup("<math display='block'><mi>E</mi><mo>=</mo>{}</math>").format(body))


_TERM = re.compile(r"^(?:(\d+)\*)?([A-Za-z][A-Za-z0-9_]*)(?:/(\d+))?$|^(\d+)(?:/(\d+))?$")


def _form_terms(text: str) -> list[dict[str, Any]] | None:
    """The terms of an exact polynomial as :class:`~exactodds.wagers.forms.Form` prints it
    (``28*J_mega/65889135 - 28/65889135``), or None if ``text`` is not one."""
    terms = []
    for sign, body in re.findall(r"(^-?|\s[+-]\s)([^\s]+)", text.strip()):
        m = _TERM.match(body)
        if m is None:
            return None
        negative = sign.strip() == "-"
        if m.group(2):
            c = Fraction(int(m.group(1) or 1), int(m.group(3) or 1))
            meters = [m.group(2)]
        else:
            c = Fraction(int(m.group(4)), int(m.group(5) or 1))
            meters = []
        terms.append({"coefficient": str(-c if negative else c), "meters": meters})
    return terms or None


def _grouped(text: str) -> str:
    """``'879252.98'`` → ``'879,252.98'``."""
    whole, dot, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    return f"{sign}{int(whole.lstrip('-')):,}{dot}{frac}"




def _odds(p: Fraction) -> str:
    return "never" if p == 0 else f"1 in {_grouped(decimal(1 / p, 1))}"


#: The CSS page size and the text width of each paper (:data:`exactodds.documents.certificate.PAPERS`).
_PAPER = {"letter": ("Letter", "184mm"), "a4": ("A4", "178mm")}


def _places(text: str, places: int) -> str:
    """A decimal string (already rounded to more places) rounded half-even to ``places``."""
    return decimal(Fraction(text), places)


def _view(cert: dict[str, Any]) -> dict[str, Any]:
    """Everything the templates print, formatted once here from the exact values."""
    prov = cert["provenance"]
    summary, sections, appendix = [], [], []
    tables: dict[tuple[str, str], dict[str, Any]] = {}
    for res in cert["results"]:
        shoe = res["shoe"]["description"]
        wagers = []
        for b in res["wagers"]:
            s = b["summary"]
            top = s.get("top_award")
            progressive = b.get("progressive")
            summary.append({
                "name": b["name"], "section": cited(b["section"]), "paytable": b["paytable"], "shoe": shoe,
                "rtp": "by meter" if progressive else percent(_fr(s["rtp"]), 4),
                "rtp_exact": "" if progressive else s["rtp"],
                "edge": "by meter" if progressive else percent(_fr(s["house_edge"]), 4),
                "edge_exact": "" if progressive else s["house_edge"],
                "hit": percent(_fr(s["hit_frequency"]), 4),
                "sd": "—" if progressive else _places(s["standard_deviation"], 4),
                "top": "—" if top is None else _odds(_fr(top["probability"])),
            })
            rows = [{"outcome": o["outcome"], "condition": o["condition"], "code": o["id"] != LOSE, "pays": o["pays"],
                     "combinations": f"{int(o['combinations']):,}",
                     "probability": decimal(_fr(o["probability"]), 10), "probability_exact": o["probability"],
                     "odds": _odds(_fr(o["probability"])),
                     "ret": _signed(o["return"]), "ret_math": _return_math(o["return"])} for o in b["outcomes"]]
            t = b["totals"]
            total = {"combinations": f"{int(t['combinations']):,}", "probability": decimal(_fr(t["probability"]), 10),
                     "ret": _signed(t["return"])}
            facts = [("Hit frequency", percent(_fr(s["hit_frequency"]), 4)),
                     ("Push frequency", percent(_fr(s["push_frequency"]), 4)),
                     ("Loss frequency", percent(_fr(s["loss_frequency"]), 4))]
            if not progressive:
                facts = [("Return to player", percent(_fr(s["rtp"]), 4)),
                         ("House edge", percent(_fr(s["house_edge"]), 4))] + (
                    [("Edge with pushes excluded", percent(_fr(s["edge_excluding_pushes"]), 4))]
                    if s.get("edge_excluding_pushes") is not None else []) + facts + [
                    ("Variance", decimal(_fr(s["variance"]), 8)),
                    ("Standard deviation", _places(s["standard_deviation"], 4)),
                    ("Skewness", "—" if s["skewness"] is None else _places(s["skewness"], 4)),
                    ("Excess kurtosis",
                     "—" if s["excess_kurtosis"] is None else decimal(_fr(s["excess_kurtosis"]), 4)),
                    ("Volatility index (z · SD), " + " / ".join(s["volatility_index"]),
                     " / ".join(_places(v, 4) for v in s["volatility_index"].values()))]
                for label, key in (("Expected return", "expected_return"), ("House edge", "house_edge"),
                                   ("Variance", "variance"), ("Hit frequency", "hit_frequency")):
                    appendix.append({"shoe": shoe, "wager": b["name"], "paytable": b["paytable"], "quantity": label,
                                     "math": _mathml_number(_fr(s[key])), "text": s[key]})
            facts += _payout_facts(b["payout"])
            meters = []
            if progressive:
                facts.append(("Fixed awards alone (every meter at 0)", _signed(progressive["fixed_return"])))
                for sym, m in progressive["meters"].items():
                    be = m.get("break_even_units")
                    meters.append({"symbol": sym, "award": m["top_award"], "odds": _odds(_fr(m["probability"])),
                                   "break_even": "—" if be is None else f"{_grouped(decimal(_fr(be), 2))} wagers" + (
                                       f" = ${_grouped(decimal(_fr(m['break_even_dollars']), 2))} on a "
                                       f"${decimal(_fr(progressive['minimum_wager']), 2)} wager"
                                       if "break_even_dollars" in m and progressive.get("minimum_wager") else ""),
                                   "note": m.get("break_even_note", "")})
                appendix.append({"shoe": shoe, "wager": b["name"], "paytable": b["paytable"],
                                 "quantity": "Expected return (J: meter ÷ wager)",
                                 "math": _mathml_formula(progressive["terms"]), "text": progressive["expected_return"]})
            bands = b.get("bands")
            levels = list(bands["ranges"][0]["rtp_percent"]) if bands else []
            crossed = tables.setdefault((b["wager"], b["paytable"]), {
                "paytable": b["paytable"], "wager": b["name"], "wager_id": b["wager"],
                "cited": cited(b["paytable_section"]),
                "file": b["paytable_file"]["name"], "sha256": b["paytable_file"]["sha256"], "shoes": []})
            crossed["shoes"].append(shoe)
            wagers.append({"name": b["name"], "game": b["game"], "section": cited(b["section"]),
                           "paytable": b["paytable"], "paytable_section": cited(b["paytable_section"]),
                           "reading": b["reading"], "rows": rows,
                           "data_file": b["data_file"]["name"], "data_sha256": b["data_file"]["sha256"],
                           "paytable_file": (None if b["paytable_file"] == b["data_file"] else
                                             (b["paytable_file"]["name"], b["paytable_file"]["sha256"])),
                           "settlement": b["rules"]["settlement"], "not_offered": b["rules"]["not_offered"],
                           "routes": (f"two routes: {b['routes']['first']}; and {b['routes']['second']}. "
                                      f"{b['routes']['agreement'].capitalize()}." if b["routes"]["second"] else
                                      f"{b['routes']['first']} alone; a second route {b['routes']['agreement']}."),
                           "simulation": _simulation_view(b.get("simulation"), s),
                           "exposure": _exposure_view(b.get("exposure")),
                           "advantage": _advantage_view(b.get("advantage")),
                           "band_levels": levels, "band_method": bands["method"] if bands else "",
                           "bands": [{"rounds": f"{x['rounds']:,}",
                                      "ranges": [f"{lo}% to {hi}%" for lo, hi in x["rtp_percent"].values()]}
                                     for x in bands["ranges"]] if bands else [],
                           "total": total, "facts": facts, "meters": meters,
                           "formula": _mathml_formula(progressive["terms"]) if progressive else None,
                           "formula_text": progressive["expected_return"] if progressive else None})
        sections.append({"shoe": shoe, "sequences": f"{int(res['shoe']['sequences']):,}", "wagers": wagers})
    signature = cert.get("signature")
    commit = prov["source_commit"]
    shoes = {res["shoe"]["description"] for res in cert["results"]}
    paper = cert["inputs"]["paper"]
    return {
        "paper": _PAPER[paper][0], "width": _PAPER[paper][1], "one_shoe": next(iter(shoes)) if len(shoes) == 1 else "",
        "title": cert["title"], "number": cert["certificate_number"], "issued": cert["issued"],
        "parties": [(_LABELS[k], v) for k, v in cert["parties"].items()],
        "shoes": [res["shoe"]["description"] for res in cert["results"]],
        "bet": cert["inputs"].get("bet"),
        "files": [(f["name"], f["sha256"]) for f in cert["inputs"].get("files", [])],
        "version": prov["exactodds_version"],
        "commit": ("not recorded (not a built package)" if commit is None
                   else commit + (" (built from a modified tree)" if prov["source_modified"] else "")),
        "summary": summary, "sections": sections, "appendix": appendix, "paytables": list(tables.values()),
        "game": cert["inputs"].get("game"), "validation": cert["inputs"].get("validation"),
        "runs": "simulation" in cert["inputs"] or bool(cert["inputs"].get("exposure", {}).get("shoes")),
        "table_max": money(_fr(cert["inputs"]["table_max"])) if "table_max" in cert["inputs"] else None,
        "assumptions": cert["assumptions"], "rounding": cert["rounding"],
        "data_sha256": sorted(prov["data_sha256"].items()), "content_sha256": prov["content_sha256"],
        "signature": signature,
        # inert inside <script type="application/json">: no '<', '>' or '&' left to end it or open a comment
        "json": json.dumps(cert, indent=1, ensure_ascii=False).replace("<", "\\u003c").replace(
            ">", "\\u003e").replace("&", "\\u0026"),
    }


def _exposure_view(x: dict[str, Any] | None) -> dict[str, Any] | None:
    """The exposure section of one table as the templates print it, or None when none was asked for."""
    if x is None:
        return None
    rows = []
    numeric = all(e["effect"] is None or _is_number(e["effect"]) for e in x["effects"])
    for k in range(0, len(x["effects"]) if numeric else 0, 13):
        part = x["effects"][k:k + 13]
        rows.append({"removed": [e["removed"] for e in part],
                     "effects": ["—" if e["effect"] is None else _signed_places(_fr(e["effect"]) * 100_000, 2)
                                 for e in part],
                     "tags": [str((x["count"] or {"tags": {}})["tags"].get(e["removed"], "")) for e in part]})
    count = x["count"]
    measured = x["measured"]
    facts = [] if numeric else [("Effects of removal", "each a formula in J, stated in the embedded JSON")]
    if count is not None and count["betting_correlation"] is not None:
        facts.append(("Betting correlation of the suggested count", count["betting_correlation"]))
    if measured is not None and "note" in measured:
        facts.append(("Measured exposure", measured["note"]))
    elif measured is not None:
        facts += [("Measured exposure", f"{measured['shoes']:,} shoes of {measured['decks']} decks (seed "
                                        f"{measured['seed']}), cover card {measured['cut']} from the end, "
                                        f"{measured['rounds']:,} rounds: {measured['dealt']}"),
                  ("Rounds in the player's favour", percent(_fr(measured["advantage_share"]), 4)),
                  ("Mean player's expected return", percent(_fr(measured["mean_player_expected_return"]), 4)),
                  ("Perfect play: units won a shoe, betting 1 unit on every favourable round",
                   f"{decimal(_fr(measured['perfect_per_shoe']), 4)} ± {_places(measured['perfect_per_shoe_se'], 4)} "
                   "(standard error)")]
    return {"verdict": x["verdict"], "resolution": x["resolution"], "rows": rows, "facts": facts}


def _advantage_view(x: dict[str, Any] | None) -> dict[str, Any] | None:
    """The advantage-play section of one table as the templates print it, or None when none was asked for."""
    if x is None:
        return None
    if "note" in x:
        return {"verdict": x["note"], "facts": []}
    first, burn, sort = x["first_card"], x["burn_card"], x["edge_sorting"]
    facts = [("A flashed first card (read by " + first["read_by"] + "): betting only where positive",
              percent(_fr(first["when_positive"]), 4)),
             ("Its best state for the player", f"first card {first['worst']['card']}: "
                                              f"{_signed_places(_fr(first['worst']['expected_return']) * 100, 4)}%"),
             ("The most exposed split of the first card's class (edge sorting)",
              (", ".join(sort["ranks"]) + " against the rest: " + percent(_fr(sort["gain"]), 4)) if sort["ranks"]
              else "none gains anything"),
             ("A seen burn card: its best state for the player", f"{burn['worst']['card']}: "
              f"{_signed_places(_fr(burn['worst']['expected_return']) * 100, 4)}%"),
             ("The worst case (the largest edge a seen card gives)", f"{_signed_places(_fr(x['worst_case']) * 100, 4)}%")]
    return {"verdict": x["verdict"], "facts": facts}


def _signed_places(value: Fraction, places: int) -> str:
    text = decimal(value, places)
    return text if text.startswith("-") else "+" + text


def _is_number(text: Any) -> bool:
    try:
        _fr(text)
        return True
    except (ValueError, ZeroDivisionError):
        return False


def _simulation_view(sim: dict[str, Any] | None, summary: dict[str, Any]) -> str | None:
    """The simulation check of one table in a sentence, or None when none was run."""
    if sim is None:
        return None
    head = f"{sim['rounds']:,} rounds dealt by the reference simulator (seed {sim['seed']}), {sim['dealt']}"
    if sim["observed_rtp"] is None:
        return f"{head}: {sim['verdict']}."
    lo, hi = sim["interval_95_percent"]
    return (f"{head}: observed RTP {percent(_fr(sim['observed_rtp']), 4)} (95% interval {lo}% to {hi}%), "
            f"exact RTP {percent(_fr(summary['rtp']), 4)}, z = {sim['z']}; {sim['verdict']}.")


def _payout_facts(payout: dict[str, Any]) -> list[tuple[str, str]]:
    """The maximum payout and the liability per round at the table limit, as the facts of a table print them."""
    top = payout["maximum_payout"]
    if top is None:
        return [("Maximum payout", payout["note"])]
    net = _fr(top["net_per_unit"])
    shown = _grouped(decimal(net, 8).rstrip("0").rstrip(".")) if (net * 10 ** 8).denominator == 1 else str(net)
    facts = [("Maximum payout", "nothing: no outcome wins" if top["outcome"] is None else
              f"{top['pays']} ({top['outcome']}): a net win of {shown} per unit wagered")]
    if payout["liability"] is not None:
        facts.append((f"Liability per round at the table limit of {money(_fr(payout['liability']['table_max']))}",
                      money(_fr(payout["liability"]["per_round"]))))
    return facts


def _return_math(value: str) -> str | None:
    """A progressive line's return (a polynomial in its meter) as MathML; None for a number."""
    try:
        _fr(value)
        return None
    except (ValueError, ZeroDivisionError):
        terms = _form_terms(value)
        return None if terms is None else _mathml_formula(terms, lhs=False)


def _signed(value: Any) -> str:
    try:
        text = decimal(_fr(value), 8)
    except (ValueError, ZeroDivisionError):
        return str(value)
    return text if text.startswith("-") else "+" + text


def render_html(cert: dict[str, Any]) -> str:
    """One self-contained, printable HTML file: cover page, summary, tables, appendix, embedded JSON."""
    return str(_environment().get_template("certificate.html.j2").render(**_view(cert)))


def render_markdown(cert: dict[str, Any]) -> str:
    """The certificate as Markdown (same content; exact fractions as text)."""
    return str(_environment().get_template("certificate.md.j2").render(**_view(cert)))


def _chromium(missing: str) -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise ExactOddsError(missing)
    return browser


_NO_CHROMIUM = ("--format pdf needs Debian's chromium (apt-get install chromium); "
                "or write --format html and print it")


def _run_chromium(cmd: list[str], profile: Path) -> None:
    """Run Chromium in a process group of its own, its TMPDIR the folder that holds ``profile``; however it
    ends (done, failed, timed out, or exactodds stopped by Ctrl-C or SIGTERM) the whole group, its helper
    processes too, is gone before its folders are removed, and its own temporary folder with them (made in
    that folder: a folder made just before a signal, before its profile names it, goes too), so nothing of
    it is left behind."""
    env = dict(os.environ, TMPDIR=str(profile.parent))
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, env=env)
    try:
        _, err = proc.communicate(timeout=300)
    finally:
        with signals_held():
            try:
                os.killpg(proc.pid, signal.SIGKILL)      # helpers that outlive it, or all of it if stopped
            except OSError:
                pass
            proc.wait()
            _remove_chromium_folder(profile)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd[0], stderr=err)


def _remove_chromium_folder(profile: Path) -> None:
    """The temporary folder a stopped Chromium leaves in TMPDIR (its profile's Singleton links point there)."""
    for name in ("SingletonSocket", "SingletonCookie"):
        try:
            folder = Path(os.readlink(profile / name)).parent
        except OSError:
            continue
        if folder.name.startswith("org.chromium.Chromium."):
            shutil.rmtree(folder, ignore_errors=True)


def _print_pdf(cert: dict[str, Any], *, where: str, missing: str = _NO_CHROMIUM,
               dates: tuple[str, str] | None = None) -> bytes:
    """The PDF exactodds writes for ``cert``: headless Chromium's print of its HTML, the JSON attached and
    the metadata set. ``dates`` (creation, modification) replace the print's own, the only part of it that
    changes from one print to the next."""

    browser = _chromium(missing)
    with temporary_folder() as tmp:
        page = Path(tmp) / "certificate.html"
        page.write_text(render_html(cert), encoding="utf-8")
        pdf = Path(tmp) / "certificate.pdf"
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp}/profile",
               "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri()]
        try:
            _run_chromium(cmd, Path(tmp) / "profile")
        except (OSError, subprocess.SubprocessError) as exc:
            raise ExactOddsError(f"{where}: chromium could not print the PDF ({exc})") from None
        if not pdf.exists() or pdf.read_bytes()[:4] != b"%PDF":
            raise ExactOddsError(f"{where}: chromium produced no PDF")
        writer = PdfWriter(clone_from=PdfReader(pdf))
        writer.add_attachment(ATTACHMENT, json.dumps(cert, indent=1, ensure_ascii=False).encode("utf-8"))
        writer.add_metadata({"/Title": f"{cert['certificate_number']} — {cert['title']}",
                             "/Subject": "Return-to-player certificate", "/Creator": "exactodds"})
        if dates is not None:
            writer.add_metadata({"/CreationDate": dates[0], "/ModDate": dates[1]})
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()


def write_pdf(cert: dict[str, Any], path: str, *, outputs: Outputs | None = None) -> None:
    """Print the HTML certificate to PDF with headless Chromium and attach the JSON (written atomically; with
    ``outputs``, as one of that group of files, all written or none)."""
    data = _print_pdf(cert, where=f"--output {path}")
    if outputs is None:
        write_atomically(path, data)
    else:
        outputs.write(path, data)


# -- checking a PDF against the rendering of its certificate -----------------------------------

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?%?")
_PAGE = re.compile(r"page \d+ of \d+")
_DATE = re.compile(r"D:\d{14}(?:Z|[+-]\d{2}'\d{2}')")          # as Chromium dates its print
_PRINTED = "the printed pages differ from the attached certificate"
_NEVER = "which exactodds never writes"


def _figures(text: str) -> set[str]:
    return set(_NUMBER.findall(_PAGE.sub(" ", text)))


def _shown(name: Any) -> str:
    """A PDF name or key from the file, printed so that it can only read as itself."""
    text = str(name)
    return text if re.fullmatch(r"/?[A-Za-z0-9_.+-]{1,40}", text) else repr(text)


def _held(cert: dict[str, Any]) -> set[str]:
    """The figures the certificate's rendering shows."""
    return _figures(re.sub(r"<[^>]+>", " ", render_html(cert)).replace("&amp;", "&"))


def _page_text_differs(page: Any, i: int, n: int, number: str, expected: set[str]) -> str | None:
    """What the text of page ``i`` of ``n`` shows that the certificate's rendering does not: a missing
    certificate number or page number, or a figure the certificate does not hold."""
    text = page.extract_text() or ""
    if i > 1 and number not in text:
        return f"page {i} does not carry certificate number {number}"
    if f"page {i} of {n}" not in text:
        return f"page {i} is not numbered 'page {i} of {n}'"
    stray = sorted(_figures(text) - expected)
    if stray:
        return f"page {i} shows {stray[0]!r}, which the attached certificate does not hold"
    return None


def _revisions(raw: bytes) -> int:
    """How many revisions the file holds: each ends in its own ``startxref``; exactodds writes one."""
    return len(re.findall(rb"(?:^|[\r\n])startxref[\s]", raw))


def _annotations(page: Any) -> list[Any]:
    found = page.get("/Annots")
    return [] if found is None else [a.get_object() for a in found.get_object()]


def _foreign(raw: bytes, reader: Any) -> str | None:
    """What the file holds that exactodds' writer never puts in a PDF, whatever Chromium printed it:
    an incremental update, a form, an action, JavaScript, another attachment, an annotation other than a link."""
    revisions = _revisions(raw)
    if revisions > 1 or "/Prev" in reader.trailer:
        return (f"the PDF was changed after it was written: an incremental update ({max(revisions, 2)} revisions, "
                "each with its own xref section and trailer)")
    root = reader.trailer["/Root"]
    for key, what in (("/AcroForm", "a form field (AcroForm)"), ("/OpenAction", "an OpenAction"),
                      ("/AA", "document actions (/AA)")):
        if key in root:
            return f"the PDF holds {what}, {_NEVER}"
    if "/JavaScript" in (root.get("/Names") or {}):
        return f"the PDF holds JavaScript (/Names /JavaScript), {_NEVER}"
    others = sorted(name for name in reader.attachments if name != ATTACHMENT)
    if others:
        return f"the PDF holds another attached file, {others[0]!r}"
    for i, page in enumerate(reader.pages, start=1):
        for annotation in _annotations(page):
            kind = annotation.get("/Subtype")
            if kind == "/Widget" or "/FT" in annotation:
                return f"page {i} holds a form field ({_shown(kind)} annotation), {_NEVER}"
            if kind != "/Link":
                return f"page {i} holds an annotation ({_shown(kind)}), {_NEVER}"
        if "/AA" in page:
            return f"page {i} holds page actions (/AA), {_NEVER}"
    return None


def _difference(got: Any, want: Any, path: str, seen: set[tuple[int, int]]) -> str | None:
    """The first place (keys and indexes from ``path``) where two PDF objects differ, or None.
    Page parents are not followed; an object pair already being compared counts as equal."""

    if isinstance(got, IndirectObject) and isinstance(want, IndirectObject):
        if (got.idnum, want.idnum) in seen:
            return None
        seen.add((got.idnum, want.idnum))
    got = got.get_object() if isinstance(got, IndirectObject) else got
    want = want.get_object() if isinstance(want, IndirectObject) else want
    if isinstance(got, DictionaryObject) and isinstance(want, DictionaryObject):
        if isinstance(got, StreamObject) != isinstance(want, StreamObject):
            return path
        for key in [k for k in dict.fromkeys([*want, *got]) if k != "/Parent"]:
            if key not in got or key not in want:
                return f"{path}/{_shown(key).lstrip('/')}"
            found = _difference(got.raw_get(key), want.raw_get(key), f"{path}/{_shown(key).lstrip('/')}", seen)
            if found:
                return found
        if isinstance(got, StreamObject) and isinstance(want, StreamObject) and got.get_data() != want.get_data():
            return f"{path} (its stream)"
        return None
    if isinstance(got, ArrayObject) and isinstance(want, ArrayObject):
        if len(got) != len(want):
            return f"{path} ({len(got)} items, not {len(want)})"
        for k, (a, b) in enumerate(zip(got, want)):
            found = _difference(a, b, f"{path}[{k}]", seen)
            if found:
                return found
        return None
    return None if type(got) is type(want) and got == want else path


def _streams(page: Any) -> list[Any]:
    contents = page.get("/Contents")
    if contents is None:
        return []
    contents = contents.get_object()
    return [c.get_object() for c in contents] if isinstance(contents, list) else [contents]


def _xobjects(page: Any) -> set[str]:
    resources = page.get("/Resources")
    found = resources.get_object().get("/XObject") if resources is not None else None
    return set() if found is None else {str(k) for k in found.get_object()}


def _page_differs(i: int, n: int, got: Any, want: Any, cert: dict[str, Any]) -> str | None:
    """How page ``i`` of the file differs from page ``i`` of the fresh print, or None."""
    links, printed = len(_annotations(got)), len(_annotations(want))
    if links != printed:
        return f"page {i} holds {links} link annotations where the rendering holds {printed}"
    streams, rendered = _streams(got), _streams(want)
    if len(streams) != len(rendered):
        return (f"page {i} has {len(streams)} content streams where the rendering has {len(rendered)}"
                + (" (an extra content stream)" if len(streams) > len(rendered) else ""))
    extra = sorted(_xobjects(got) - _xobjects(want))
    if extra:
        return f"page {i} draws an XObject ({_shown(extra[0])}) that the rendering does not hold"
    if b"".join(s.get_data() for s in streams) != b"".join(s.get_data() for s in rendered):
        return _page_text_differs(got, i, n, cert["certificate_number"], _held(cert)) or (
            f"page {i} is not the page the certificate prints (its content stream differs)")
    found = _difference(got, want, f"page {i} ", set())
    return None if found is None else f"page {i} is not the page the certificate prints ({found.strip()} differs)"


def _reader(data: bytes) -> Any:

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)      # its warnings would be a second line
    return PdfReader(io.BytesIO(data))


def _dates(reader: Any) -> tuple[str, str] | None:
    """The file's creation and modification dates, if they are dates as Chromium writes them."""
    info = reader.trailer.get("/Info")
    info = {} if info is None else info.get_object()
    dates = tuple(str(info.get(k, "")) for k in ("/CreationDate", "/ModDate"))
    return (dates[0], dates[1]) if all(_DATE.fullmatch(d) for d in dates) else None


def _named(raw: bytes, reader: Any, expected: bytes, cert: dict[str, Any]) -> str:
    """What makes the file differ from ``expected``, the fresh print of its certificate."""
    fresh = _reader(expected)
    producers = [str((r.metadata or {}).get("/Producer")) for r in (reader, fresh)]
    hint = "" if producers[0] == producers[1] else (
        f" (the file was printed by {producers[0]!r}, this machine's chromium prints {producers[1]!r}: "
        "verify it where that chromium is installed)")
    got, want = reader.pages, fresh.pages
    if len(got) != len(want):
        return (f"{_PRINTED}: {len(got)} pages where the certificate prints on {len(want)} "
                f"(a page added or taken out){hint}")
    for i, (page, printed) in enumerate(zip(got, want), start=1):
        found = _page_differs(i, len(got), page, printed, cert)
        if found:
            return f"{_PRINTED}: {found}{hint}"
    seen: set[tuple[int, int]] = set()
    for key, part in (("/Root", "catalog"), ("/Info", "document information")):
        found = _difference(reader.trailer.get(key), fresh.trailer.get(key), f"its {part} ", seen)
        if found:
            return f"the PDF is not what exactodds writes for the attached certificate: {found.strip()} differs{hint}"
    if raw.startswith(expected):
        return f"{len(raw) - len(expected):,} bytes were added after the end of the PDF"
    at = next((k for k, (a, b) in enumerate(zip(raw, expected)) if a != b), min(len(raw), len(expected)))
    return f"the PDF is not byte for byte what exactodds writes for the attached certificate (from byte {at:,}){hint}"


def pdf_differs(path: str, cert: dict[str, Any]) -> str | None:
    """Why the PDF at ``path`` is not exactly what exactodds writes for ``cert`` (the certificate attached
    to it), or None if it is.

    exactodds' PDF is a function of the certificate alone, once the dates of the print are set: the same
    Chromium with the same fonts prints the same bytes, and the writer that attaches the JSON adds nothing
    else. So the file must equal, byte for byte, a fresh print of its certificate carrying the file's own
    dates. Anything else fails, named: an incremental update, a form, an action, JavaScript, an annotation
    (found without Chromium), then a page added or taken out, a replaced page, an extra content stream or
    XObject, a figure the certificate does not hold.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        reader = _reader(raw)
        found = _foreign(raw, reader)
        if found is None and not (shutil.which("chromium") or shutil.which("chromium-browser")):
            n, number, held = len(reader.pages), cert["certificate_number"], _held(cert)
            found = next((f"{_PRINTED}: {d}" for i, page in enumerate(reader.pages, start=1)
                          if (d := _page_text_differs(page, i, n, number, held))), None)
        dates = _dates(reader)
    except Exception as exc:     # anything pypdf meets in a file exactodds did not write
        return f"the PDF's structure is not what exactodds writes ({type(exc).__name__}: it cannot be read)"
    if found:
        return found
    expected = _print_pdf(cert, where=path, dates=dates, missing=(
        f"{path}: verifying a PDF needs Debian's chromium (apt-get install chromium) to print its certificate "
        "again and compare the pages; or verify the certificate as JSON or HTML"))
    if raw == expected:
        return None
    try:
        return _named(raw, reader, expected, cert)
    except Exception as exc:     # the file differs all the same; say so even if it cannot be taken apart
        return f"the PDF is not what exactodds writes for the attached certificate ({type(exc).__name__})"


# -- reading a certificate back ------------------------------------------------------------------

def _strict_json(text: str, where: str) -> Any:
    """JSON with every duplicated key refused (a person reads the first, a parser keeps the last)."""
    def no_constant(name: str) -> Any:
        raise ExactOddsError(f"{where}: {name} is not JSON")

    try:
        return json.loads(text, object_pairs_hook=unique_keys, parse_constant=no_constant)
    except DuplicateKey as exc:
        raise ExactOddsError(f"{where}: duplicate key {exc.key!r}: the certificate is malformed") from None
    except json.JSONDecodeError as exc:
        raise ExactOddsError(f"{where}: not a JSON certificate ({exc})") from None
    except RecursionError:
        raise ExactOddsError(f"{where}: nested too deeply to be a certificate") from None


class _Script(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside, self.found, self.text = False, 0, ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("id") == SCRIPT_ID and a.get("type") == "application/json":
            self.inside = True
            self.found += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.text += data


def read_document(path: str) -> tuple[Any, str, str | None]:
    """(the certificate, its kind 'json' / 'html' / 'pdf' / 'xlsx', the HTML text if HTML) from a file."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)                       # never more than the limit into memory
    except OSError as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > MAX_BYTES:
        raise ExactOddsError(f"{path}: certificate too large: more than {MAX_BYTES:,} bytes ({LIMITS})")
    if raw[:4] == b"PK\x03\x04":                              # a zip: an exactodds workbook
        return _strict_json(read_workbook(raw, path), f"{path} (sheet {CERTIFICATE_SHEET})"), "xlsx", None
    if raw[:4] == b"%PDF":

        logging.getLogger("pypdf").setLevel(logging.CRITICAL)      # its warnings would be a second line
        try:
            attachments = PdfReader(path).attachments
        except (PdfReadError, ValueError, KeyError, OSError) as exc:
            raise ExactOddsError(f"{path}: an unreadable PDF ({exc})") from None
        found = attachments.get(ATTACHMENT, [])
        if len(found) != 1:
            raise ExactOddsError(f"{path}: a PDF without exactly one attached {ATTACHMENT}")
        if len(found[0]) > MAX_BYTES:
            raise ExactOddsError(f"{path}: the attached {ATTACHMENT} is larger than {MAX_BYTES:,} bytes ({LIMITS})")
        try:
            text = found[0].decode("utf-8")
        except UnicodeDecodeError:
            raise ExactOddsError(f"{path}: the attached {ATTACHMENT} is not UTF-8 text") from None
        return _strict_json(text, f"{path} ({ATTACHMENT})"), "pdf", None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ExactOddsError(f"{path}: neither JSON, HTML, PDF nor an exactodds workbook (not UTF-8 text)") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ExactOddsError(f"{path}: an empty file, not a certificate")
    if text.lstrip()[:1] in ("{", "["):
        return _strict_json(text, path), "json", None
    parser = _Script()
    parser.feed(text)
    if parser.found != 1:
        raise ExactOddsError(f"{path}: not a certificate: neither JSON, nor HTML, PDF or a workbook from exactodds "
                             "with the certificate embedded (a Markdown or CSV certificate is for reading: verify its "
                             "JSON, HTML, PDF or workbook)")
    return _strict_json(parser.text, f"{path} (embedded certificate)"), "html", text


# -- every format of a certificate, by name ------------------------------------------------------

CERTIFICATE_COLUMNS = ("certificate_number", "shoe", "wager", "paytable", "outcome_id", "outcome", "pays", "net",
                       "combinations", "probability", "one_in", "return")


def certificate_csv(cert: dict[str, Any]) -> str:
    """The certificate's priced outcomes as CSV (exact fractions, as in its JSON)."""
    return write_csv(CERTIFICATE_COLUMNS, [
        [cert["certificate_number"], result["shoe"]["description"], block["wager"], block["paytable"], row["id"],
         row["outcome"], row["pays"], row["net"], row["combinations"], row["probability"], row.get("one_in"),
         row["return"]]
        for result in cert["results"] for block in result["wagers"] for row in block["outcomes"]])


def certificate_json(cert: dict[str, Any]) -> str:
    """The certificate itself, the document verify reads (not a report of it: its keys are its format's)."""
    return json.dumps(cert, indent=2, ensure_ascii=False) + "\n"


#: The renderer of each format of a certificate (a document: Jinja2 templates above, not a
#: tidy Report); pdf is printed from the HTML and written by write_pdf, xlsx by write_xlsx.
CERTIFICATE_RENDERERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "json": certificate_json, "html": render_html, "markdown": render_markdown, "text": render_markdown,
    "csv": certificate_csv}
