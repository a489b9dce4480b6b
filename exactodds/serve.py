"""A live shoe page: enter the cards as they are dealt, watch every wager's exact edge move.

``exactodds serve`` starts a local web page (Flask; plain HTML and a little
JavaScript, no build step). Pick the shoe and the wagers, type cards as they
come out of the shoe (``Ks 9h``, or paste a list), and each wager's exact
expected return on the cards not yet seen is recomputed after every card; the
wagers that have turned in the player's favour are highlighted — what a
surveillance room watches when a counter is suspected. Every wager's outcome
table opens beside it, and its certificate for the current shoe downloads as a
self-verifying HTML file.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from .errors import ExactOddsError, unique_keys

__all__ = ["create_app", "edges"]

#: The wagers shown at first: the countable side bets and the main game.
DEFAULT_WAGERS = ("dragon-7-insurance:standard", "panda-8-insurance:standard", "tie:8-to-1", "banker:standard",
                  "player:standard", "lucky-six:standard", "dragon-bonus-player:A", "player-pair:standard")


def _shoe(decks: Any, removed: Any) -> Any:
    from .shoe import Shoe, parse_card_list

    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 100:
        raise ExactOddsError(f"decks must be a whole number from 1 to 100, got {decks!r}")
    if not isinstance(removed, list) or not all(isinstance(c, str) for c in removed) or len(removed) > 52 * decks:
        raise ExactOddsError("removed must list the cards dealt, as text such as 'Ks'")
    shoe = Shoe.decks(decks)
    if removed:
        shoe = shoe.remove(*parse_card_list(",".join(removed), where="cards"))
    return shoe


def choices(catalogue: Any = None) -> list[dict[str, str]]:
    """Every wager and paytable with fixed pays (a progressive's edge needs its meter)."""
    from .wagers import load_catalogue

    cat = catalogue if catalogue is not None else load_catalogue()
    out = []
    for wid in cat:
        w = cat[wid]
        for tid, t in w.paytables.items():
            if not any(p.symbolic for p in t.pays.values()):
                out.append({"key": f"{wid}:{tid}", "name": f"{w.name} ({tid})", "section": w.section})
    return out


def edges(decks: int, removed: list[str], keys: list[str], *, catalogue: Any = None) -> dict[str, Any]:
    """The exact expected return of each ``WAGER:PAYTABLE`` on the shoe less ``removed``."""
    from .analysis import priced_pairs
    from .engine import deal
    from .pricing import expected_return
    from .report import percent
    from .wagers import load_catalogue

    shoe = _shoe(decks, removed)
    if not isinstance(keys, list) or not keys or len(keys) > 100:
        raise ExactOddsError("choose 1 to 100 wagers")
    dist = deal(shoe)
    rows = []
    for w, tid in priced_pairs(catalogue if catalogue is not None else load_catalogue(), keys, where="wager"):
        e = expected_return(w, w.paytable(tid), dist)
        if not isinstance(e, Fraction):
            raise ExactOddsError(f"{w.id}:{tid} pays a progressive meter; choose fixed-pay wagers")
        rows.append({"key": f"{w.id}:{tid}", "name": w.name, "paytable": tid, "section": w.section,
                     "expected_return": str(e), "percent": percent(e, 4), "value": float(e), "favourable": e > 0})
    return {"shoe": shoe.describe(), "cards_left": shoe.size, "removed": 52 * decks - shoe.size, "wagers": rows}


def create_app(*, decks: int = 8, wagers: list[str] | None = None,
               files: list[dict[str, str]] | None = None) -> Any:
    """The Flask application of the live shoe page: ``wagers`` (``WAGER:PAYTABLE``) are shown at first;
    ``files`` (users' data files, ``{'name': ..., 'text': ...}``) add their wagers and paytables."""
    try:
        from flask import Flask, Response, jsonify, render_template, request
    except ImportError:
        raise ExactOddsError("exactodds serve needs Flask: pip install flask") from None
    from importlib import resources

    from .analysis import priced_pairs
    from .certificate import catalogue_with

    files = list(files or [])
    cat = catalogue_with(files)
    offered = choices(cat)
    keys = {c["key"] for c in offered}
    chosen: list[str] = []
    for spec in wagers or DEFAULT_WAGERS:
        found = [f"{w.id}:{t}" for w, t in priced_pairs(cat, [spec], where="--wager")]
        shown = [k for k in found if k in keys]
        if not shown or (":" in spec and len(shown) < len(found)):
            raise ExactOddsError(f"--wager {spec!r}: pays a progressive meter (the page shows fixed-pay wagers)")
        chosen += [k for k in shown if k not in chosen]
    app = Flask("exactodds", template_folder=str(resources.files("exactodds") / "templates"))
    app.jinja_env.autoescape = True                     # every name on the page is escaped

    @app.errorhandler(ExactOddsError)
    def bad_input(exc: ExactOddsError) -> Any:
        return jsonify({"error": str(exc)}), 400

    @app.get("/")
    def page() -> Any:
        return render_template("shoe.html.j2", decks=decks, choices=offered, chosen=chosen)

    @app.post("/api/edges")
    def api_edges() -> Any:
        try:
            body = json.loads(request.get_data(as_text=True), object_pairs_hook=unique_keys)
        except ExactOddsError:
            raise
        except (ValueError, RecursionError):                # not JSON: the line below says what to send
            body = None
        if not isinstance(body, dict):
            raise ExactOddsError("send a JSON object with decks, removed and wagers")
        if extra := set(body) - {"decks", "removed", "wagers"}:
            raise ExactOddsError(f"unknown key {sorted(extra)[0]!r} (keys: decks, removed, wagers)")
        return jsonify(edges(body.get("decks", decks), body.get("removed", []), body.get("wagers", []), catalogue=cat))

    def _query() -> tuple[Any, list[str]]:
        for key in request.args:
            if key not in ("decks", "removed"):
                raise ExactOddsError(f"unknown query parameter {key!r} (parameters: decks, removed)")
            if len(request.args.getlist(key)) > 1:
                raise ExactOddsError(f"query parameter {key!r} given twice (removed lists cards with commas: "
                                     "removed=Ks,Kh)")
        try:
            n = int(request.args.get("decks", decks))
        except ValueError:
            raise ExactOddsError("decks must be a whole number") from None
        removed = [c for c in request.args.get("removed", "").split(",") if c.strip()]
        return n, removed

    @app.get("/table/<wager>/<paytable>")
    def table(wager: str, paytable: str) -> Any:
        from .analysis import analyze
        from .report import result_html

        n, removed = _query()
        r = analyze(_shoe(n, removed), wagers=[f"{wager}:{paytable}"], catalogue=cat)[0]
        return Response(f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{wager}</title></head>"
                        f"<body>{result_html(r)}</body></html>", mimetype="text/html")

    @app.get("/certificate/<wager>/<paytable>")
    def certificate(wager: str, paytable: str) -> Any:
        from .certificate import build
        from .documents import render_html

        n, removed = _query()
        _shoe(n, removed)
        cert = build(shoes=[{"decks": n, "remove": removed}], selection=[(wager, paytable)], files=files)
        name = f"{cert['certificate_number']}.html"
        return Response(render_html(cert), mimetype="text/html",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    return app
