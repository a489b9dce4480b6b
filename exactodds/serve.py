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

import errno
import json
import re
import secrets
import socket
import time
from fractions import Fraction
from importlib import resources
from typing import Any

from flask import Flask, Response, g, jsonify, render_template, request
from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import ErrorTask
from werkzeug.exceptions import HTTPException

from exactodds.analyses.analysis import analyze, priced_pairs
from exactodds.analyses.eor import effects_of_removal
from exactodds.analyses.door import Door
from exactodds.documents.certificate import build, catalogue_with
from exactodds.documents.pages import render_html
from exactodds.errors import ExactOddsError, unique_keys
from exactodds.game.rules import play
from exactodds.game.shoe import Shoe, parse_card_list
from exactodds.render.report import percent, result_html
from exactodds.render.tables import cited, signed
from exactodds.wagers.catalogue import load_catalogue

__all__ = ["create_app", "edges", "listen"]

#: The largest request body taken, in bytes: every card of a 100-deck shoe and 100 wagers fit several times over.
MAX_BODY = 128 * 1024
#: The most wagers one request prices, and the longest ``WAGER:PAYTABLE`` text.
MAX_WAGERS, MAX_KEY = 100, 200
#: Threads answering requests: each request holds at most a few MB, so memory stays bounded. A thread is
#: given only a request that has arrived whole, so a slow client never holds one while it sends.
THREADS = 4
#: Seconds a request (its line, headers and body) may take to arrive from its first byte: a client that
#: sends a header a byte at a time is cut off after this.
REQUEST_SECONDS = 10
#: Seconds a connection may stay open with no request under way and nothing to send.
IDLE_SECONDS = 30
#: Connections kept open from one address, and in all: a new connection beyond either closes the connection of
#: that address (or of any) that has waited longest for a whole request, so that slow or idle clients never
#: lock out a new one (waitress would stop accepting, and a legitimate request would wait in the queue).
PER_CLIENT, CONNECTIONS = 32, 256

#: The wagers shown at first: the countable side bets and the main game.
DEFAULT_WAGERS = ("dragon-7-insurance:standard", "panda-8-insurance:standard", "tie:8-to-1", "banker:standard",
                  "player:standard", "lucky-six:standard", "dragon-bonus-player:A", "player-pair:standard")


def _shoe(decks: Any, removed: Any) -> tuple[Shoe, list[Any]]:
    """The shoe of ``decks`` less the cards ``removed``, and those cards in the order entered."""

    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 100:
        raise ExactOddsError(f"decks must be a whole number from 1 to 100, got {decks!r}")
    if not isinstance(removed, list) or not all(isinstance(c, str) for c in removed) or len(removed) > 52 * decks:
        raise ExactOddsError("removed must list the cards dealt, as text such as 'Ks'")
    shoe = Shoe.decks(decks)
    cards = parse_card_list(",".join(removed), where="cards") if removed else []
    return (shoe.remove(*cards) if cards else shoe), cards


#: The picker's groups, in its order: the regulations' parts, then the wagers and paytables of the user's files.
GROUPS = ("§627a", "§627b", "§629b", "§631b", "your files")


def choices(catalogue: Any = None) -> list[dict[str, Any]]:
    """Every wager and paytable with fixed pays (a progressive's edge needs its meter), each with the groups
    the page's picker files it under: every part of the regulations its section cites (§627a, §627b, §629b,
    §631b; Perfect Pairs, of §627b.1, §629b.1 and §631b.1, under all three), or 'your files' for a wager or
    paytable that a user's data file adds.

    >>> picked = {c["key"]: c["groups"] for c in choices()}
    >>> picked["banker:standard"], picked["perfect-pairs-both:A"], picked["lucky-six:standard"]
    (['§627a'], ['§627b', '§629b', '§631b'], ['§627b', '§631b'])
    """

    shipped = load_catalogue()
    cat = catalogue if catalogue is not None else shipped
    out = []
    for wid in cat:
        w = cat[wid]
        for tid, t in w.paytables.items():
            if not any(p.symbolic for p in t.pays.values()):
                ours = wid in shipped and tid in shipped[wid].paytables
                parts = dict.fromkeys(f"§{part}" for part in re.findall(r"\b(6\d\d[ab])\.", w.section))
                groups = sorted(parts, key=_group_order) if ours and parts else ["your files"]
                out.append({"key": f"{wid}:{tid}", "name": f"{w.name} ({tid})", "section": w.section,
                            "cited": cited(w.section),
                            "groups": groups})
    return sorted(out, key=lambda c: (_group_order(c["groups"][0]), c["section"], c["key"]))


def _group_order(group: str) -> tuple[int, str]:
    """The picker's order: the parts of :data:`GROUPS`, any other part cited, then 'your files'."""
    return (GROUPS.index(group) if group in GROUPS[:-1] else len(GROUPS) if group == GROUPS[-1] else len(GROUPS) - 1,
            group)


def rounds_dealt(cards: list[Any]) -> tuple[int, int]:
    """The rounds the cards entered make, read in the order dealt by the drawing rules (§627a.8(c), §627a.10),
    and the cards entered of the round under way.

    >>> rounds_dealt(parse_card_list("Ks,9h,Qd,9c, As,2h,3d,2c,5s,6h, 4d", where="cards"))   # a natural; both draw
    (2, 1)
    """
    values = [c.points for c in cards]
    rounds = used = 0
    while len(values) - used >= 4:
        try:
            used += play(values[used:]).cards_used
        except ExactOddsError:                      # the round under way needs a card not yet entered
            break
        rounds += 1
    return rounds, len(values) - used


def count_for(decks: int, key: str, *, catalogue: Any = None) -> dict[str, Any]:
    """The suggested count of ``WAGER:PAYTABLE`` on a full shoe of ``decks`` (tags per rank, or per card for
    a wager that reads suits) and whether its effects of removal make it worth counting."""
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 100:
        raise ExactOddsError(f"decks must be a whole number from 1 to 100, got {decks!r}")
    cached = _COUNTS.get((decks, key, id(catalogue)))
    if cached is None:
        r = effects_of_removal(Shoe.decks(decks), [key], catalogue=catalogue)[0]
        share = r.favourable_share()
        cached = {"key": key, "resolution": r.resolution, "tags": dict(r.count.tags) if r.count else {},
                  "countable": share is not None and share >= 0.01, "verdict": r.verdict()}
        _COUNTS[(decks, key, id(catalogue))] = cached
    return cached


#: Counts already worked out: (decks, WAGER:PAYTABLE, catalogue) -> the answer of :func:`count_for`.
_COUNTS: dict[tuple[int, str, int], dict[str, Any]] = {}


def edges(decks: int, removed: list[str], keys: list[str], *, catalogue: Any = None) -> dict[str, Any]:
    """The player's exact expected return of each ``WAGER:PAYTABLE`` on the shoe less ``removed`` (positive:
    the wager favours the player; the sign convention of docs/formats.md)."""

    shoe, cards = _shoe(decks, removed)
    if not isinstance(keys, list) or not keys or len(keys) > MAX_WAGERS:
        raise ExactOddsError(f"wagers: choose 1 to {MAX_WAGERS} wagers, as a list of texts WAGER:PAYTABLE")
    for i, key in enumerate(keys, 1):
        if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY:
            raise ExactOddsError(f"wagers: item {i} must be a text WAGER:PAYTABLE of 1 to {MAX_KEY} characters, "
                                 f"got {json.dumps(key)[:40]}")
    door = Door(shoe)
    rows = []
    for w, tid in priced_pairs(catalogue if catalogue is not None else load_catalogue(), keys, where="wager"):
        e = door.expected_return(w, w.paytable(tid))
        if not isinstance(e, Fraction):
            raise ExactOddsError(f"{w.id}:{tid} pays a progressive meter; choose fixed-pay wagers")
        rows.append({"key": f"{w.id}:{tid}", "name": w.name, "paytable": tid, "section": w.section,
                     "cited": cited(w.section),
                     "player_expected_return": str(e),
                     "percent": signed(percent(e, 4)), "value": float(e), "favourable": e > 0})
    rounds, under_way = rounds_dealt(cards)
    return {"shoe": shoe.describe(), "cards_left": shoe.size, "removed": 52 * decks - shoe.size,
            "rounds": rounds, "round_cards": under_way, "wagers": rows}


def create_app(*, decks: int = 8, wagers: list[str] | None = None,
               files: list[dict[str, str]] | None = None) -> Any:
    """The Flask application of the live shoe page: ``wagers`` (``WAGER:PAYTABLE``) are shown at first;
    ``files`` (users' data files, ``{'name': ..., 'text': ...}``) add their wagers and paytables."""
    files = list(files or [])
    cat = catalogue_with(files)
    offered = choices(cat)
    keys = {c["key"] for c in offered}
    groups = sorted({g for c in offered for g in c["groups"]}, key=_group_order)
    chosen: list[str] = []
    for spec in wagers or DEFAULT_WAGERS:
        found = [f"{w.id}:{t}" for w, t in priced_pairs(cat, [spec], where="--wager")]
        shown = [k for k in found if k in keys]
        if not shown or (":" in spec and len(shown) < len(found)):
            raise ExactOddsError(f"--wager {spec!r}: pays a progressive meter (the page shows fixed-pay wagers)")
        chosen += [k for k in shown if k not in chosen]
    app = Flask("exactodds", template_folder=str(resources.files("exactodds") / "templates"))
    app.jinja_env.autoescape = True                     # every name on the page is escaped
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY         # a larger body is a 413, read no further

    @app.errorhandler(ExactOddsError)
    def bad_input(exc: ExactOddsError) -> Any:
        return _error(str(exc), 400)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        if exc.code == 413:
            return _error(_too_large(), 413)
        return _error(f"{exc.name} ({request.method} {request.path})", exc.code or 500)

    @app.errorhandler(Exception)
    def internal(exc: Exception) -> Any:                 # never a traceback in a response: it goes to the log
        app.logger.error("%s %s failed", request.method, request.path, exc_info=exc)
        return _error("internal error: the server's log says more", 500)

    @app.after_request
    def secured(response: Any) -> Any:
        response.headers.update(security_headers(g.get("nonce"), inline_styles=g.get("inline_styles", False)))
        return response

    @app.get("/")
    def page() -> Any:
        g.nonce = secrets.token_urlsafe(18)
        return render_template("shoe.html.j2", nonce=g.nonce,
                               init={"decks": decks, "choices": offered, "chosen": chosen, "groups": groups})

    @app.post("/api/edges")
    def api_edges() -> Any:
        if request.mimetype != "application/json":     # a form another site's page can post is not read
            return _error(f"request body: Content-Type {request.mimetype or 'missing'!r}; send a JSON object "
                          "with decks, removed and wagers as application/json", 415)
        try:
            body = json.loads(request.get_data(), object_pairs_hook=unique_keys)
        except ExactOddsError:
            raise
        except RecursionError:
            raise ExactOddsError("request body: JSON nested too deeply; send a JSON object with decks, removed "
                                 "and wagers") from None
        except json.JSONDecodeError as exc:
            raise ExactOddsError(f"request body: not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                                 "send a JSON object with decks, removed and wagers") from None
        except ValueError:                                  # not UTF-8
            raise ExactOddsError("request body: not UTF-8 text; send a JSON object with decks, removed "
                                 "and wagers") from None
        if not isinstance(body, dict):
            raise ExactOddsError(f"request body: a JSON {type(body).__name__}; send a JSON object with decks, "
                                 "removed and wagers")
        if extra := set(body) - {"decks", "removed", "wagers"}:
            raise ExactOddsError(f"unknown key {sorted(extra)[0]!r} (keys: decks, removed, wagers)")
        return jsonify(edges(body.get("decks", decks), body.get("removed", []), body.get("wagers", []), catalogue=cat))

    def _only(*names: str, hint: str) -> None:
        """The query names only ``names``, each once (a repeated one is refused, never settled by taking one)."""
        for key in request.args:
            if key not in names:
                raise ExactOddsError(f"unknown query parameter {key!r} (parameters: {', '.join(names)})")
            if len(request.args.getlist(key)) > 1:
                raise ExactOddsError(f"query parameter {key!r} given twice ({hint})")

    def _query() -> tuple[Any, list[str]]:
        _only("decks", "removed", hint="removed lists cards with commas: removed=Ks,Kh")
        try:
            n = int(request.args.get("decks", decks))
        except ValueError:
            raise ExactOddsError("decks must be a whole number") from None
        removed = [c for c in request.args.get("removed", "").split(",") if c.strip()]
        return n, removed

    @app.get("/api/count")
    def api_count() -> Any:
        _only("decks", "wager", hint="one wager a request: ask again for another")
        key = request.args.get("wager", "")
        if key not in keys:
            raise ExactOddsError(f"wager: {key[:MAX_KEY]!r} is not a fixed-pay WAGER:PAYTABLE of this page")
        try:
            n = int(request.args.get("decks", decks))
        except ValueError:
            raise ExactOddsError("decks must be a whole number") from None
        return jsonify(count_for(n, key, catalogue=cat))

    @app.get("/table/<wager>/<paytable>")
    def table(wager: str, paytable: str) -> Any:

        n, removed = _query()
        r = analyze(_shoe(n, removed)[0], wagers=[f"{wager}:{paytable}"], catalogue=cat)[0]
        g.inline_styles = True
        return Response(render_template("page.html.j2", title=wager, body=result_html(r)), mimetype="text/html")

    @app.get("/certificate/<wager>/<paytable>")
    def certificate(wager: str, paytable: str) -> Any:

        n, removed = _query()
        _shoe(n, removed)
        cert = build(shoes=[{"decks": n, "remove": removed}], selection=[(wager, paytable)], files=files)
        name = f"{cert['certificate_number']}.html"
        return Response(render_html(cert), mimetype="text/html",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    return app


def security_headers(nonce: str | None = None, *, inline_styles: bool = False) -> dict[str, str]:
    """The headers of every response: scripts and styles only the page's own (by ``nonce``), no framing,
    no type sniffing; ``inline_styles`` lets the outcome table keep its cells' alignment (no script runs there)."""
    own = f"'nonce-{nonce}'" if nonce else "'none'"
    styles = "'unsafe-inline'" if inline_styles else own
    return {"Content-Security-Policy": f"default-src 'none'; script-src {own}; style-src {styles}; "
                                       "connect-src 'self'; base-uri 'none'; form-action 'none'; "
                                       "frame-ancestors 'none'",
            "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def _too_large() -> str:
    return f"request body larger than {MAX_BODY} bytes, the most this page takes"


def _error(message: str, status: int) -> Any:
    """A JSON error of one line."""

    return jsonify({"error": " ".join(message.split())}), status


def listen(app: Any, host: str, port: int) -> Any:
    """A production WSGI server (waitress) for ``app`` bound to ``host``:``port``, not yet serving
    (``.run()`` serves); a bad address is an error naming ``--host`` or ``--port``."""
    try:
        socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise ExactOddsError(f"--host {host!r}: not an address to listen on "
                             f"({getattr(exc, 'strerror', None) or exc})") from None
    try:
        server = create_server(app, host=host, port=port, threads=THREADS, ident="exactodds",
                               max_request_body_size=MAX_BODY, max_request_header_size=MAX_BODY,
                               # past CONNECTIONS the channel makes room itself (see _channel); waitress's own
                               # limit, which stops accepting, is only reached by requests all being answered
                               connection_limit=CONNECTIONS + THREADS + 8, channel_timeout=IDLE_SECONDS,
                               cleanup_interval=1, asyncore_use_poll=True)       # poll: no limit of 1024 sockets
    except (OSError, ValueError) as exc:
        busy = getattr(exc, "errno", None) in (errno.EADDRINUSE, errno.EACCES)
        option = f"--port {port}" if busy else f"--host {host!r}"
        raise ExactOddsError(f"{option}: cannot listen ({getattr(exc, 'strerror', None) or exc})") from None
    channel = _channel()
    for each in (server, *getattr(server, "map", {}).values()):      # one server, or one per address
        if hasattr(each, "channel_class"):
            each.channel_class = channel
    return server


def _channel() -> Any:
    """waitress's connection, answering what waitress refuses itself (a body over the limit, a malformed
    request) as the application does: one JSON line, with the security headers."""

    class OneLineError(ErrorTask):                               # type: ignore[misc]
        def execute(self) -> None:
            e = self.request.error
            message = _too_large() if e.code == 413 else f"{e.reason}: {e.body}"
            body = (json.dumps({"error": " ".join(message.split())}) + "\n").encode()
            self.status = f"{e.code} {e.reason}"
            self.response_headers.extend([("Content-Type", "application/json"), *security_headers().items()])
            self.set_close_on_finish()
            self.content_length = len(body)
            self.write(body)

    class Channel(HTTPChannel):                                  # type: ignore[misc]
        """A connection that makes room for itself (closing the one that has waited longest for a whole
        request, past :data:`PER_CLIENT` from its address or :data:`CONNECTIONS` in all) and gives a request
        :data:`REQUEST_SECONDS` to arrive."""

        error_task_class = OneLineError
        will_close: bool                                     # waitress's: set, the loop closes the connection

        def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
            super().__init__(server, sock, addr, adj, map=map)
            self.waiting_since = self.creation_time          # for a whole request: since it opened, or the last one
            self.request_began: float | None = None          # the first byte of the request under way
            _make_room(self)

        def received(self, data: bytes) -> bool:
            if data and self.request is None:
                self.request_began = time.monotonic()
            done = bool(super().received(data))
            if self.request is None:                         # every request received whole (one may be answered)
                self.request_began = None
                self.waiting_since = time.time()
            return done

        def readable(self) -> bool:                          # asked on every turn of the loop (at least each second)
            began = self.request_began
            if began is not None and not self.will_close and time.monotonic() - began > REQUEST_SECONDS:
                self.will_close = True                       # the loop closes it (writable() says so)
            return bool(super().readable())

        def evictable(self) -> bool:
            """Neither answering a request nor closing already: only waiting for its client."""
            return not (self.requests or self.will_close or self.close_when_flushed) and self.connected

    def _make_room(new: Any) -> None:
        """Close the connections that have waited longest for a whole request, as many as ``new`` puts over the
        limits of its address and of all (one at most, in the usual case)."""
        channels = [c for c in list(new._map.values()) if isinstance(c, Channel) and c is not new]
        host = new.addr[0] if isinstance(new.addr, tuple) else new.addr
        for limit, group in ((PER_CLIENT, [c for c in channels if (c.addr[0] if isinstance(c.addr, tuple)
                                                                   else c.addr) == host]), (CONNECTIONS, channels)):
            waiting = sorted((c for c in group if c.connected and c.evictable()),
                             key=lambda c: (bool(c.total_outbufs_len), c.waiting_since))
            for c in waiting[:max(0, len([c for c in group if c.connected]) + 1 - limit)]:
                c.handle_close()

    return Channel
