"""Return-to-player certificates: exact, reproducible, verifiable.

A certificate is one JSON document. Its *content* (the inputs, the assumptions,
the rounding policy and every exact result) is hashed with SHA-256 over a
canonical serialisation; its *provenance* names the package version, the git
commit where known, and the SHA-256 of the rules and of each data file used.
Markdown and HTML are renderings of the same content. :func:`verify`
recomputes everything from the certificate's stated inputs and names the first
value that differs.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from . import rules
from .analysis import analyze
from .errors import ExactOddsError
from .pricing import WagerResult
from .report import ROUNDING, decimal, exact, percent
from .shoe import Shoe, parse_card_list
from .wagers import DATA_FILES, Catalogue, Wager, load_catalogue

__all__ = ["build", "verify", "render_markdown", "render_html", "write_atomically", "write_pdf",
           "select_for_certificate", "FORMAT"]

FORMAT = "exactodds-certificate/1"

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
]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _git_commit() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def data_hashes() -> dict[str, str]:
    """SHA-256 of the drawing rules and of every shipped data file."""
    base = resources.files("exactodds") / "data"
    hashes = {"rules.TABLE_1": _sha256(_canonical(rules.TABLE_1)),
              "rules.py": _sha256(inspect.getsource(rules).encode("utf-8"))}
    for name in (*DATA_FILES, "meters.toml"):
        hashes[f"data/{name}"] = _sha256((base / name).read_bytes())
    return hashes


def select_for_certificate(catalogue: Catalogue, *, wager: str | None, paytable: str | None,
                           section: str | None, everything: bool) -> list[tuple[str, str]]:
    """(wager id, paytable id) pairs for a wager (and paytable), a section, or everything."""
    chosen = [x for x in (wager, section) if x]
    if len(chosen) + everything != 1:
        raise ExactOddsError("name exactly one of --wager, --section or --all")
    if wager:
        w = catalogue[wager]
        tables = [w.paytable(paytable).id] if paytable else list(w.paytables)
        return [(w.id, t) for t in tables]
    if paytable:
        raise ExactOddsError("--paytable goes with --wager")
    if section:
        wanted = section.lstrip("§").strip()
        ids = [w.id for w in catalogue.values() if any(
            part.strip().lstrip("§").startswith(wanted) for part in w.section.replace(";", ",").split(","))]
        if not ids:
            raise ExactOddsError(f"no wager cites section {section!r} (see 'exactodds list')")
        return [(i, t) for i in ids for t in catalogue[i].paytables]
    return [(w.id, t) for w in catalogue.values() for t in w.paytables]


def _shoe_from_inputs(spec: dict[str, Any]) -> Shoe:
    decks, remove = spec.get("decks"), spec.get("remove", [])
    if not isinstance(decks, int) or not isinstance(remove, list):
        raise ExactOddsError("inputs.shoes: each shoe needs 'decks' (a number) and 'remove' (a list)")
    shoe = Shoe.decks(decks)
    return shoe.remove(*parse_card_list(",".join(map(str, remove)), where="inputs.shoes.remove")) if remove else shoe


def _wager_block(r: WagerResult) -> dict[str, Any]:
    w, t = r.wager, r.paytable
    rows = [{"id": ln.id, "outcome": ln.name, "pays": ln.pay.text, "net": exact(ln.net),
             "combinations": ln.combinations, "probability": exact(ln.probability),
             "probability_decimal": decimal(ln.probability, 12), "return": exact(ln.contribution)}
            for ln in r.lines]
    totals = {"combinations": sum(ln.combinations for ln in r.lines),
              "probability": exact(sum((ln.probability for ln in r.lines), Fraction(0))),
              "return": exact(r.expected_return)}
    block: dict[str, Any] = {
        "wager": w.id, "name": w.name, "game": w.game, "section": w.section, "paytable": t.id,
        "paytable_section": t.section, "reading": w.reading, "reading_id": w.reading_id,
        "parameters": {k: list(v) if isinstance(v, tuple) else v for k, v in w.parameters.items()},
        "outcomes": rows, "totals": totals,
    }
    push = r.push_frequency
    loss = sum((ln.probability for ln in r.lines if ln.pay.kind == "lose"), Fraction(0))
    if not r.symbolic:
        top = max((ln for ln in r.lines if ln.net > 0), key=lambda ln: ln.net, default=None)
        block["summary"] = {
            "expected_return": exact(r.expected_return), "house_edge": exact(r.house_edge),
            "hold": exact(r.house_edge), "rtp": exact(r.return_to_player),
            "edge_excluding_pushes": exact(r.house_edge / (1 - push)) if push < 1 else None,
            "hit_frequency": exact(r.hit_frequency), "push_frequency": exact(push),
            "loss_frequency": exact(1 - r.hit_frequency - push),
            "variance": exact(r.variance), "standard_deviation": f"{r.standard_deviation:.9f}",
            "top_award": None if top is None else {
                "outcome": top.name, "pays": top.pay.text,
                "odds": f"1 in {decimal(1 / top.probability, 2)}" if top.probability else "never"},
        }
    else:
        from .progressive import load_meters, progressive_analysis

        a = progressive_analysis(r, load_meters()[0].get((w.id, t.id)))
        meters = {}
        for symbol, p in a.coefficients.items():
            m: dict[str, Any] = {"top_award": a.top_lines.get(symbol), "probability": exact(p),
                                 "odds": f"1 in {decimal(1 / p, 2)}" if p else "never"}
            try:
                m["break_even_units"] = exact(a.break_even(symbol))
                if a.minimum_wager is not None:
                    m["break_even_dollars"] = exact(a.break_even(symbol) * a.minimum_wager)
            except ExactOddsError as exc:
                m["break_even_note"] = str(exc)
            meters[symbol] = m
        block["summary"] = {"hit_frequency": exact(r.hit_frequency), "push_frequency": exact(push),
                            "loss_frequency": exact(loss)}
        block["progressive"] = {"expected_return": str(a.expression), "fixed_return": exact(a.fixed_return),
                                "units": "each J is the meter divided by the wager", "meters": meters,
                                "minimum_wager": exact(a.minimum_wager) if a.minimum_wager else None}
    return block


def build(*, shoes: Sequence[dict[str, Any]], selection: Sequence[tuple[str, str]],
          catalogue: Catalogue | None = None, title: str | None = None, bet: str | None = None) -> dict[str, Any]:
    """The certificate for ``selection`` (wager id, paytable id) on each shoe of ``shoes``.

    ``bet`` (dollars) prices every wager that charges a vigorish at that bet size,
    the vigorish rounded up to 25¢ as §627a.12(c) allows.
    """
    from . import __version__

    cat = catalogue if catalogue is not None else load_catalogue()
    if bet is not None:
        from .pays import vigorish_terms
        from .vigorish import at_bet, parse_dollars
        from .wagers import Catalogue as _Catalogue

        dollars = parse_dollars(bet, where="bet")
        charged = {wid for wid, _ in selection
                   if any(vigorish_terms(p.text) for t in cat[wid].paytables.values() for p in t.pays.values())}
        if not charged:
            raise ExactOddsError("--bet: no selected wager charges a vigorish")
        cat = _Catalogue([at_bet(cat[w], dollars) if w in charged else cat[w] for w in cat])
    results = []
    for spec in shoes:
        shoe = _shoe_from_inputs(spec)
        blocks = []
        for wid, tid in selection:
            (r,) = analyze(shoe, wagers=[wid], paytables=[tid], catalogue=cat)
            blocks.append(_wager_block(r))
        results.append({"shoe": shoe.to_dict(), "wagers": blocks})
    wagers = list(dict.fromkeys(w for w, _ in selection))
    content = {
        "format": FORMAT,
        "title": title or ("Return-to-player certificate: " + ", ".join(cat[w].name for w in wagers[:3])
                           + (f" and {len(wagers) - 3} more" if len(wagers) > 3 else "")),
        "inputs": {"shoes": [dict(s) for s in shoes],
                   "selection": [{"wager": w, "paytable": t} for w, t in selection],
                   **({"bet": str(bet)} if bet is not None else {})},
        "assumptions": ASSUMPTIONS,
        "rounding": ROUNDING + "; probabilities to 12 places in the tables, percentages to 4 places.",
        "results": results,
    }
    provenance = {"exactodds_version": __version__, "git_commit": _git_commit(),
                  "data_sha256": data_hashes(), "content_sha256": _sha256(_canonical(content))}
    return {**content, "provenance": provenance}


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if type(a) is not type(b):
        return path or "(root)"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}".lstrip(".")
            d = _first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d.lstrip(".")
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path} (length {len(a)} vs {len(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else path.lstrip(".")


def verify(document: Any) -> tuple[bool, str]:
    """Recompute a certificate from its inputs: (True, summary) or (False, the first difference)."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ExactOddsError(f"not an exactodds certificate (format must be {FORMAT!r})")
    for key in ("inputs", "results", "provenance", "assumptions", "rounding", "title"):
        if key not in document:
            raise ExactOddsError(f"malformed certificate: no {key!r}")
    inputs = document["inputs"]
    try:
        shoes = list(inputs["shoes"])
        selection = [(s["wager"], s["paytable"]) for s in inputs["selection"]]
    except (KeyError, TypeError):
        raise ExactOddsError("malformed certificate: inputs need 'shoes' and 'selection' (wager, paytable)") from None
    bet = inputs.get("bet") if isinstance(inputs, dict) else None
    fresh = build(shoes=shoes, selection=selection, title=document["title"], bet=bet)
    stated = {k: v for k, v in document.items() if k != "provenance"}
    recomputed = {k: v for k, v in fresh.items() if k != "provenance"}
    diff = _first_difference(stated, recomputed)
    if diff:
        return False, f"value differs at {diff}"
    claimed = document["provenance"].get("content_sha256")
    if claimed != _sha256(_canonical(stated)):
        return False, "content_sha256 does not match the certificate's content"
    stale = [k for k, v in document["provenance"].get("data_sha256", {}).items()
             if fresh["provenance"]["data_sha256"].get(k) != v]
    note = f" (rules or data changed since: {', '.join(stale)}; the numbers still match)" if stale else ""
    n = sum(len(r["wagers"]) for r in stated["results"])
    return True, f"verified: {n} priced wager tables match exactly{note}"


# -- rendering ------------------------------------------------------------------------

def _summary_items(block: dict[str, Any]) -> list[tuple[str, str]]:
    s = block["summary"]
    items = []
    if "expected_return" in s:
        items += [("Expected return", f"{decimal(Fraction(s['expected_return']), 8)} (exact {s['expected_return']})"),
                  ("House edge (hold)", percent(Fraction(s["house_edge"]), 4)),
                  ("Return to player", percent(Fraction(s["rtp"]), 4))]
        if s.get("edge_excluding_pushes") is not None:
            items.append(("Edge with pushes excluded", percent(Fraction(s["edge_excluding_pushes"]), 4)))
    items += [("Hit frequency", percent(Fraction(s["hit_frequency"]), 4)),
              ("Push frequency", percent(Fraction(s["push_frequency"]), 4)),
              ("Loss frequency", percent(Fraction(s["loss_frequency"]), 4))]
    if "variance" in s:
        items += [("Variance", f"{decimal(Fraction(s['variance']), 6)} (exact {s['variance']})"),
                  ("Standard deviation", s["standard_deviation"][:10])]
    if s.get("top_award"):
        t = s["top_award"]
        items.append(("Top award", f"{t['outcome']} ({t['pays']}): {t['odds']}"))
    p = block.get("progressive")
    if p:
        items.append(("Expected return as a function of the meter", f"{p['expected_return']} ({p['units']})"))
        items.append(("Fixed awards alone", f"{decimal(Fraction(p['fixed_return']), 8)} (exact {p['fixed_return']})"))
        for sym, m in p["meters"].items():
            be = m.get("break_even_units")
            text = f"{m['top_award']}: {m['odds']}"
            if be is not None:
                text += f"; break-even {sym}* = {decimal(Fraction(be), 4)} wagers"
                if "break_even_dollars" in m:
                    text += f" = ${decimal(Fraction(m['break_even_dollars']), 2)}"
            items.append((f"Meter {sym}", text))
    return items


def _table(block: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    head = ["Outcome", "Pays", "Net", "Combinations", "Probability (exact)", "Probability", "Return"]
    rows = [[o["outcome"], o["pays"], str(o["net"]), f"{o['combinations']:,}", str(o["probability"]),
             o["probability_decimal"], _ret(o["return"])] for o in block["outcomes"]]
    t = block["totals"]
    rows.append(["Total", "", "", f"{t['combinations']:,}", str(t["probability"]),
                 decimal(Fraction(t["probability"]), 12), _ret(t["return"])])
    return head, rows


def _ret(value: Any) -> str:
    try:
        return decimal(Fraction(value), 10)
    except (ValueError, TypeError):
        return str(value)


def render_markdown(cert: dict[str, Any]) -> str:
    out = [f"# {cert['title']}", "", "## Identification", ""]
    for res in cert["results"][:1]:
        for b in res["wagers"]:
            out.append(f"- {b['game']} — {b['name']} — §{b['section']} — paytable {b['paytable']} (§{b['paytable_section']})")
    out += ["", "## Assumptions", ""] + [f"- {a}" for a in cert["assumptions"]]
    out += ["", f"**Rounding policy:** {cert['rounding']}", ""]
    for res in cert["results"]:
        shoe = res["shoe"]
        out += [f"## Shoe: {shoe['description']}", "", f"{shoe['sequences']:,} ordered 6-card sequences.", ""]
        for b in res["wagers"]:
            out += [f"### {b['name']} — paytable {b['paytable']} (§{b['paytable_section']})", ""]
            if b["reading"]:
                out += [f"*Reading:* {b['reading']}", ""]
            head, rows = _table(b)
            out.append("| " + " | ".join(head) + " |")
            out.append("|" + "|".join(["---"] * 2 + ["---:"] * 5) + "|")
            out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
            out.append("")
            out += [f"- **{k}:** {v}" for k, v in _summary_items(b)]
            out.append("")
    out += ["## Appendix: exact fractions", ""]
    for res in cert["results"]:
        for b in res["wagers"]:
            s = b["summary"]
            exacts = {k: v for k, v in s.items() if isinstance(v, str) and k != "standard_deviation"}
            out.append(f"- {res['shoe']['description']}, {b['wager']} {b['paytable']}: " +
                       "; ".join(f"{k} = {v}" for k, v in exacts.items()))
    prov = cert["provenance"]
    out += ["", "## Provenance", "", f"- exactodds {prov['exactodds_version']}, git commit {prov['git_commit'] or 'not available'}",
            f"- content SHA-256: `{prov['content_sha256']}`"]
    out += [f"- {name} SHA-256: `{h}`" for name, h in prov["data_sha256"].items()]
    out += ["", "Verify with `exactodds verify CERTIFICATE.json` (the JSON form of this certificate).", ""]
    return "\n".join(out)


_CSS = """
body { font-family: Georgia, 'Times New Roman', serif; margin: 2em auto; max-width: 72em; color: #111; }
h1 { font-size: 1.6em; border-bottom: 2px solid #333; } h2 { font-size: 1.25em; margin-top: 1.6em; }
h3 { font-size: 1.05em; } table { border-collapse: collapse; margin: .6em 0; font-size: .86em; }
th, td { border: 1px solid #999; padding: .25em .5em; } th { background: #eee; }
td.num { text-align: right; font-family: 'DejaVu Sans Mono', monospace; } code { font-size: .85em; word-break: break-all; }
.reading { font-style: italic; } section.wager { page-break-inside: avoid; }
@media print { body { margin: 0; max-width: none; } h2 { page-break-before: auto; } }
"""


def render_html(cert: dict[str, Any]) -> str:
    """One self-contained, printable HTML file (inline CSS, no scripts, no links)."""
    e = _esc
    parts = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
             f"<title>{e(cert['title'])}</title><style>{_CSS}</style></head><body>",
             f"<h1>{e(cert['title'])}</h1>", "<section id='identification'><h2>Identification</h2><ul>"]
    for b in cert["results"][0]["wagers"] if cert["results"] else []:
        parts.append(f"<li>{e(b['game'])} — {e(b['name'])} — §{e(b['section'])} — paytable "
                     f"{e(b['paytable'])} (§{e(b['paytable_section'])})</li>")
    parts.append("</ul></section><section id='assumptions'><h2>Assumptions</h2><ul>")
    parts += [f"<li>{e(a)}</li>" for a in cert["assumptions"]]
    parts.append(f"</ul><p><b>Rounding policy:</b> {e(cert['rounding'])}</p></section>")
    for res in cert["results"]:
        shoe = res["shoe"]
        parts.append(f"<section class='shoe'><h2>Shoe: {e(shoe['description'])}</h2>"
                     f"<p>{shoe['sequences']:,} ordered 6-card sequences.</p>")
        for b in res["wagers"]:
            parts.append(f"<section class='wager'><h3>{e(b['name'])} — paytable {e(b['paytable'])} "
                         f"(§{e(b['paytable_section'])})</h3>")
            if b["reading"]:
                parts.append(f"<p class='reading'>Reading: {e(b['reading'])}</p>")
            head, rows = _table(b)
            parts.append("<table class='outcomes'><thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in head)
                         + "</tr></thead><tbody>")
            for row in rows:
                cells = [f"<td class='num'>{e(c)}</td>" if i >= 2 else f"<td>{e(c)}</td>" for i, c in enumerate(row)]
                parts.append("<tr>" + "".join(cells) + "</tr>")
            parts.append("</tbody></table><table class='summary'><tbody>")
            parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _summary_items(b)]
            parts.append("</tbody></table></section>")
        parts.append("</section>")
    parts.append("<section id='appendix'><h2>Appendix: exact fractions</h2><ul>")
    for res in cert["results"]:
        for b in res["wagers"]:
            exacts = {k: v for k, v in b["summary"].items() if isinstance(v, str) and k != "standard_deviation"}
            parts.append(f"<li>{e(res['shoe']['description'])}, {e(b['wager'])} {e(b['paytable'])}: "
                         + "; ".join(f"{e(k)} = <code>{e(v)}</code>" for k, v in exacts.items()) + "</li>")
    prov = cert["provenance"]
    parts.append("</ul></section><section id='provenance'><h2>Provenance</h2><ul>"
                 f"<li>exactodds {e(prov['exactodds_version'])}, git commit {e(prov['git_commit'] or 'not available')}</li>"
                 f"<li>content SHA-256: <code>{e(prov['content_sha256'])}</code></li>")
    parts += [f"<li>{e(n)} SHA-256: <code>{e(h)}</code></li>" for n, h in prov["data_sha256"].items()]
    parts.append("</ul><p>Verify with <code>exactodds verify CERTIFICATE.json</code>.</p></section></body></html>")
    return "\n".join(parts) + "\n"


def _esc(value: Any) -> str:
    import html

    return html.escape(str(value))


def write_atomically(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (text or bytes) to ``path`` in full or not at all (no partial file on failure)."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise ExactOddsError(f"--output {path}: directory {directory} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise ExactOddsError(f"--output {path}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)                 # as an ordinary new file, not mkstemp's 0600
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ExactOddsError(f"--output {path}: cannot write ({exc.strerror or exc})") from None


def write_pdf(cert: dict[str, Any], path: str) -> None:
    """Print the HTML certificate to PDF with Debian's headless chromium (written atomically)."""
    import shutil

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise ExactOddsError("--format pdf needs Debian's chromium (apt-get install chromium); "
                             "or write --format html and print it")
    target = Path(path)
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "certificate.html"
        page.write_text(render_html(cert), encoding="utf-8")
        pdf = Path(tmp) / "certificate.pdf"
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp}/profile",
               "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri()]
        try:
            subprocess.run(cmd, capture_output=True, timeout=180, check=True)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ExactOddsError(f"--output {path}: chromium could not print the PDF ({exc})") from None
        if not pdf.exists() or pdf.read_bytes()[:4] != b"%PDF":
            raise ExactOddsError(f"--output {path}: chromium produced no PDF")
        data = pdf.read_bytes()
    write_atomically(target, data)


def shoes_from_options(decks: Iterable[int], remove: str | None) -> list[dict[str, Any]]:
    """Shoe inputs as the certificate states them (checked now, recomputed by verify)."""
    cards = [str(c) for c in parse_card_list(remove, where="--remove")] if remove else []
    specs = [{"decks": d, "remove": cards} for d in decks]
    for spec in specs:
        try:
            _shoe_from_inputs(spec)
        except ExactOddsError as exc:
            raise ExactOddsError(f"--decks/--remove: {exc}") from None
    return specs
