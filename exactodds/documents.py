"""Certificates as documents a lab files: HTML and PDF from one Jinja2 template, Markdown, and reading
any of them back.

The HTML carries the exact JSON certificate in a ``<script type="application/json"
id="exactodds-certificate">`` block and the PDF as an attached file
(``exactodds-certificate.json``), so one file carries its own proof:
``exactodds verify`` accepts the JSON, the HTML or the PDF. Print CSS gives the
PDF a running header with the certificate number and a "page N of M" footer.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from .errors import ExactOddsError
from .report import decimal, percent

__all__ = ["render_html", "render_markdown", "write_pdf", "read_document", "ATTACHMENT", "SCRIPT_ID"]

ATTACHMENT = "exactodds-certificate.json"
SCRIPT_ID = "exactodds-certificate"
_LABELS = {"issuer": "Issued by", "prepared_by": "Prepared by", "approved_by": "Approved by"}


def _environment() -> Any:
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("exactodds", "templates"),
                             autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",)),
                             trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    return env


def _fr(text: Any) -> Fraction:
    return Fraction(str(text))


def _mathml_number(value: Fraction) -> str:
    """An exact fraction typeset as MathML: a stacked fraction, or a whole number."""
    sign = "<mo>−</mo>" if value < 0 else ""
    v = abs(value)
    if v.denominator == 1:
        return f"<math>{sign}<mn>{v.numerator:,}</mn></math>"
    return f"<math>{sign}<mfrac><mn>{v.numerator:,}</mn><mn>{v.denominator:,}</mn></mfrac></math>"


def _mathml_formula(terms: list[dict[str, Any]], *, lhs: bool = True) -> str:
    """A progressive's expected return, a polynomial in its meters, typeset as MathML."""
    import html

    parts = []
    for i, term in enumerate(terms):
        c = _fr(term["coefficient"])
        op = ("<mo>−</mo>" if c < 0 else "") if i == 0 else ("<mo>−</mo>" if c < 0 else "<mo>+</mo>")
        c = abs(c)
        coefficient = f"<mn>{c.numerator:,}</mn>" if c.denominator == 1 else \
            f"<mfrac><mn>{c.numerator:,}</mn><mn>{c.denominator:,}</mn></mfrac>"
        meters = "".join(
            (f"<msub><mi>{html.escape(m.split('_', 1)[0])}</mi><mtext>{html.escape(m.split('_', 1)[1])}</mtext></msub>"
             if "_" in m else f"<mi>{html.escape(m)}</mi>") for m in term["meters"])
        product = coefficient if not meters else (coefficient + "<mo>&#x2062;</mo>" + meters
                                                  if c != 1 else meters)
        parts.append(op + product)
    if not lhs:
        return "<math>" + "".join(parts) + "</math>"
    return "<math display='block'><mi>E</mi><mo>=</mo>" + "".join(parts) + "</math>"


_TERM = re.compile(r"^(?:(\d+)\*)?([A-Za-z][A-Za-z0-9_]*)(?:/(\d+))?$|^(\d+)(?:/(\d+))?$")


def _form_terms(text: str) -> list[dict[str, Any]] | None:
    """The terms of an exact polynomial as :class:`~exactodds.forms.Form` prints it
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


def _view(cert: dict[str, Any]) -> dict[str, Any]:
    """Everything the templates print, formatted once here from the exact values."""
    prov = cert["provenance"]
    summary, sections, appendix = [], [], []
    for res in cert["results"]:
        shoe = res["shoe"]["description"]
        wagers = []
        for b in res["wagers"]:
            s = b["summary"]
            top = s.get("top_award")
            progressive = b.get("progressive")
            summary.append({
                "name": b["name"], "section": b["section"], "paytable": b["paytable"], "shoe": shoe,
                "rtp": "see the formula" if progressive else percent(_fr(s["rtp"]), 4),
                "rtp_exact": "" if progressive else s["rtp"],
                "edge": "meter-dependent" if progressive else percent(_fr(s["house_edge"]), 4),
                "edge_exact": "" if progressive else s["house_edge"],
                "hit": percent(_fr(s["hit_frequency"]), 4),
                "sd": "—" if progressive else f"{float(_fr(s['variance'])) ** 0.5:.4f}",
                "top": "—" if top is None else f"{top['outcome']}: {_odds(_fr(top['probability']))}",
            })
            rows = [{"outcome": o["outcome"], "pays": o["pays"], "combinations": f"{int(o['combinations']):,}",
                     "probability": decimal(_fr(o["probability"]), 10), "probability_exact": o["probability"],
                     "ret": _signed(o["return"]), "ret_math": _return_math(o["return"])} for o in b["outcomes"]]
            t = b["totals"]
            total = {"combinations": f"{int(t['combinations']):,}", "probability": decimal(_fr(t["probability"]), 10),
                     "ret": _signed(t["return"])}
            facts = [("Hit frequency", percent(_fr(s["hit_frequency"]), 4)),
                     ("Push frequency", percent(_fr(s["push_frequency"]), 4)),
                     ("Loss frequency", percent(_fr(s["loss_frequency"]), 4))]
            if not progressive:
                facts = [("Return to player", percent(_fr(s["rtp"]), 4)),
                         ("House edge (hold)", percent(_fr(s["house_edge"]), 4))] + (
                    [("Edge with pushes excluded", percent(_fr(s["edge_excluding_pushes"]), 4))]
                    if s.get("edge_excluding_pushes") is not None else []) + facts + [
                    ("Variance", decimal(_fr(s["variance"]), 8)),
                    ("Standard deviation", f"{float(_fr(s['variance'])) ** 0.5:.4f}")]
                for label, key in (("Expected return", "expected_return"), ("House edge", "house_edge"),
                                   ("Variance", "variance"), ("Hit frequency", "hit_frequency")):
                    appendix.append({"shoe": shoe, "wager": b["name"], "paytable": b["paytable"], "quantity": label,
                                     "math": _mathml_number(_fr(s[key])), "text": s[key]})
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
            wagers.append({"name": b["name"], "game": b["game"], "section": b["section"], "paytable": b["paytable"],
                           "paytable_section": b["paytable_section"], "reading": b["reading"], "rows": rows,
                           "total": total, "facts": facts, "meters": meters,
                           "formula": _mathml_formula(progressive["terms"]) if progressive else None,
                           "formula_text": progressive["expected_return"] if progressive else None})
        sections.append({"shoe": shoe, "sequences": f"{int(res['shoe']['sequences']):,}", "wagers": wagers})
    signature = cert.get("signature")
    commit = prov["source_commit"]
    return {
        "title": cert["title"], "number": cert["certificate_number"], "issued": cert["issued"],
        "parties": [(_LABELS[k], v) for k, v in cert["parties"].items()],
        "shoes": [res["shoe"]["description"] for res in cert["results"]],
        "bet": cert["inputs"].get("bet"),
        "files": [(f["name"], f["sha256"]) for f in cert["inputs"].get("files", [])],
        "version": prov["exactodds_version"],
        "commit": ("not recorded (not a built package)" if commit is None
                   else commit + (" (built from a modified tree)" if prov["source_modified"] else "")),
        "summary": summary, "sections": sections, "appendix": appendix,
        "assumptions": cert["assumptions"], "rounding": cert["rounding"],
        "data_sha256": sorted(prov["data_sha256"].items()), "content_sha256": prov["content_sha256"],
        "signature": signature,
        # inert inside <script type="application/json">: no '<', '>' or '&' left to end it or open a comment
        "json": json.dumps(cert, indent=1, ensure_ascii=False).replace("<", "\\u003c").replace(
            ">", "\\u003e").replace("&", "\\u0026"),
    }


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


def _chromium() -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise ExactOddsError("--format pdf needs Debian's chromium (apt-get install chromium); "
                             "or write --format html and print it")
    return browser


def write_pdf(cert: dict[str, Any], path: str) -> None:
    """Print the HTML certificate to PDF with headless Chromium and attach the JSON (written atomically)."""
    from pypdf import PdfReader, PdfWriter

    from .certificate import write_atomically

    browser = _chromium()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "certificate.html"
        page.write_text(render_html(cert), encoding="utf-8")
        pdf = Path(tmp) / "certificate.pdf"
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp}/profile",
               "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri()]
        try:
            subprocess.run(cmd, capture_output=True, timeout=300, check=True)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ExactOddsError(f"--output {path}: chromium could not print the PDF ({exc})") from None
        if not pdf.exists() or pdf.read_bytes()[:4] != b"%PDF":
            raise ExactOddsError(f"--output {path}: chromium produced no PDF")
        writer = PdfWriter(clone_from=PdfReader(pdf))
        writer.add_attachment(ATTACHMENT, json.dumps(cert, indent=1, ensure_ascii=False).encode("utf-8"))
        writer.add_metadata({"/Title": f"{cert['certificate_number']} — {cert['title']}",
                             "/Subject": "Return-to-player certificate", "/Creator": "exactodds"})
        out = Path(tmp) / "signed.pdf"
        with out.open("wb") as fh:
            writer.write(fh)
        data = out.read_bytes()
    write_atomically(path, data)


# -- reading a certificate back ------------------------------------------------------------------

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?%?")
_PAGE = re.compile(r"page \d+ of \d+")


def _figures(text: str) -> set[str]:
    return set(_NUMBER.findall(_PAGE.sub(" ", text)))


def printed_pages_differ(path: str, cert: dict[str, Any]) -> str | None:
    """Whether the printed pages of a PDF show the certificate attached to it: every page carries its
    number, and no page shows a figure the certificate's own rendering does not. None if they agree."""
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    expected = _figures(re.sub(r"<[^>]+>", " ", render_html(cert)).replace("&amp;", "&"))
    number = cert["certificate_number"]
    pages = PdfReader(path).pages
    for i, page in enumerate(pages, start=1):
        text = page.extract_text() or ""
        if i > 1 and number not in text:
            return f"page {i} does not carry certificate number {number}"
        if f"page {i} of {len(pages)}" not in text:
            return f"page {i} is not numbered 'page {i} of {len(pages)}'"
        stray = sorted(_figures(text) - expected)
        if stray:
            return f"page {i} shows {stray[0]!r}, which the attached certificate does not hold"
    return None


def _strict_json(text: str, where: str) -> Any:
    """JSON with every duplicated key refused (a person reads the first, a parser keeps the last)."""
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                raise ExactOddsError(f"{where}: duplicate key {key!r}: the certificate is malformed")
            seen[key] = value
        return seen

    def no_constant(name: str) -> Any:
        raise ExactOddsError(f"{where}: {name} is not JSON")

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=no_constant)
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
    """(the certificate, its kind 'json' / 'html' / 'pdf', the HTML text if HTML) from a file."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ExactOddsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if raw[:4] == b"%PDF":
        import logging

        from pypdf import PdfReader
        from pypdf.errors import PdfReadError

        logging.getLogger("pypdf").setLevel(logging.CRITICAL)      # its warnings would be a second line
        try:
            attachments = PdfReader(path).attachments
        except (PdfReadError, ValueError, KeyError, OSError) as exc:
            raise ExactOddsError(f"{path}: an unreadable PDF ({exc})") from None
        found = attachments.get(ATTACHMENT, [])
        if len(found) != 1:
            raise ExactOddsError(f"{path}: a PDF without exactly one attached {ATTACHMENT}")
        try:
            text = found[0].decode("utf-8")
        except UnicodeDecodeError:
            raise ExactOddsError(f"{path}: the attached {ATTACHMENT} is not UTF-8 text") from None
        return _strict_json(text, f"{path} ({ATTACHMENT})"), "pdf", None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ExactOddsError(f"{path}: neither JSON, HTML nor PDF (not UTF-8 text)") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise ExactOddsError(f"{path}: an empty file, not a certificate")
    if text.lstrip()[:1] in ("{", "["):
        return _strict_json(text, path), "json", None
    parser = _Script()
    parser.feed(text)
    if parser.found != 1:
        raise ExactOddsError(f"{path}: not a certificate: neither JSON, nor HTML or PDF from exactodds with the "
                             "certificate embedded (a Markdown certificate is for reading: verify its JSON, HTML or PDF)")
    return _strict_json(parser.text, f"{path} (embedded certificate)"), "html", text
