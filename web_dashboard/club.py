"""The club's view: every table live in a grid, the finished hands, the club ranking.

``create_club_app(feed)`` builds a second Flask app beside the table's dashboard. The
``feed`` is the club's subscriber (``table_controller.club.view.ClubFeed``, passed in
so that this package needs nothing of the club's networking): ``tables()``,
``hands()``, ``matches()`` and ``summaries()``. A table's state went through the
dashboard's gate (``web_dashboard.state.phone_view``) at the table and again when it
was received; this view only arranges it. Reading needs nothing and nothing here
writes. The grid follows the tables live over Server-Sent Events (``/stream``, drawn by
``static/club.js``, as the live page follows its table); without JavaScript it reloads
itself every few seconds. Each tile (:func:`tile`) is built from known keys only: whose
turn, the trump, the trick's cards, tricks played and left, the match's hands won; the
result only once the hand is over; never points nor the chiamata partner during a hand.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    g,
    jsonify,
    render_template,
    request,
)

from web_dashboard import i18n
from web_dashboard.cards import bp as cards_bp
from web_dashboard.i18n import _, card_name, catalogue
from web_dashboard.ranking import compute
from web_dashboard.security import add_security_headers

bp = Blueprint("club", __name__)

DEFAULTS: dict[str, Any] = {
    "CLUB_NAME": "club",
    "CLUB_REFRESH": 2,  # seconds between the grid's reloads
    "CLUB_HANDS_SHOWN": 200,
    "CLUB_DECK": "builtin",  # the faces the tiles show (/cards/<deck>/<code>)
    "CLUB_SSE_KEEPALIVE": 15.0,  # seconds between pings on a quiet stream
    "CLUB_SSE_MAX_SECONDS": 3600.0,  # a stream ends after this (the browser reopens it)
    "CLUB_SSE_GAP": 0.25,  # at most one grid per this many seconds: changes are merged
    "CLUB_SSE_MAX_STREAMS": 32,  # one server thread each
}


def feed() -> Any:
    return current_app.extensions["club_feed"]


def tile(entry: dict[str, Any], deck: str = "builtin") -> dict[str, Any]:
    """One table of the grid, like the live page in small: its players' names (P1..Pn
    for a seat left unnamed), the hand's number, whose turn, the trump (the face-up
    card, or chiamata's called one), the trick's cards, tricks played and left, the
    match's hands won; the result (points, winners) only once the hand is over. Only
    these keys, whatever the state carried: nothing else reaches the page or the stream."""
    state = entry.get("state") or {}
    match = state.get("match") or {}
    names = [n if isinstance(n, str) and n else f"P{i + 1}"
             for i, n in enumerate(match.get("names") or [])]

    def name(seat: Any) -> str | None:
        if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
            return None
        return names[seat] if seat < len(names) else f"P{seat + 1}"

    hand = state.get("hand")
    during = hand is not None and not hand.get("over")
    out: dict[str, Any] = {
        "table": entry["table"], "status": entry.get("status") or "unknown",
        "age": None if entry.get("received") is None else
        max(0.0, time.time() - entry["received"]),
        "names": names, "deck": deck, "hand": None, "turn": None, "trump": None,
        "trick": [], "hands_won": (state.get("standing") or {}).get("hands_won"),
        "match_over": bool(state.get("match_over")), "result": None}
    if hand is not None:
        out["hand"] = {k: hand.get(k) for k in ("number", "tricks_played", "tricks_left",
                                                "over")}
        out["trump"] = hand.get("briscola") or hand.get("called")
        out["trick"] = [{"name": name(p.get("seat")), "card": p.get("card")}
                        for p in hand.get("trick") or [] if isinstance(p, dict)]
        out["turn"] = name(hand.get("turn")) if during else None
    reveal = state.get("reveal")
    if reveal and not during:
        out["result"] = {"points": reveal.get("points"), "outcome": reveal.get("outcome"),
                         "winners": [name(s) for s in reveal.get("winners") or []]}
    return out


table_card = tile  # the earlier name


def tiles() -> list[dict[str, Any]]:
    deck = current_app.config["CLUB_DECK"]
    return [tile(t, deck) for t in feed().tables()]


def club_ranking() -> dict[str, Any]:
    doc = compute(feed().summaries()).to_json()
    return doc


@bp.get("/")
def grid():
    lang = g.get("lang", "it")
    boot = {"messages": catalogue(lang),
            "words": {"online": _("online"), "offline": _("offline"), "match": _("Match"),
                      "none": _("No table has been heard from yet.")}}
    return render_template("club/grid.html", tables=tiles(), hands=feed().hands()[:10],
                           boot=boot)


class _Streams:
    """How many grid streams are open: each holds a server thread."""

    def __init__(self) -> None:
        self.open = 0
        self.lock = threading.Lock()

    def admit(self, most: int) -> bool:
        with self.lock:
            if self.open >= most:
                return False
            self.open += 1
            return True

    def close(self) -> None:
        with self.lock:
            self.open -= 1


def grid_message(version: int, grid: list[dict[str, Any]]) -> bytes:
    return f"id: {version}\ndata: {json.dumps({'tables': grid})}\n\n".encode()


@bp.get("/stream")
@bp.get("/api/v1/club/stream")
def stream():
    """The grid, whole, as one message now and after each change (merged: at most one
    per ``CLUB_SSE_GAP``); a named ping on a quiet stream. A reconnecting page gets the
    grid as it is now, never past ones."""
    cfg = current_app.config
    streams: _Streams = current_app.extensions["club_streams"]
    if not streams.admit(int(cfg["CLUB_SSE_MAX_STREAMS"])):
        response = Response("too many open streams, try again shortly\n", 503,
                            mimetype="text/plain")
        response.headers["Retry-After"] = "5"
        return response
    club_feed, app = feed(), current_app._get_current_object()  # type: ignore[attr-defined]
    keepalive, gap = float(cfg["CLUB_SSE_KEEPALIVE"]), float(cfg["CLUB_SSE_GAP"])
    lifetime = float(cfg["CLUB_SSE_MAX_SECONDS"])

    def generate():
        deadline = time.monotonic() + lifetime
        yield b"retry: 2000\n\n"
        seen = club_feed.version
        with app.app_context():
            yield grid_message(seen, tiles())
        while time.monotonic() < deadline:
            version = club_feed.wait(seen, min(keepalive, max(0.0, deadline - time.monotonic())))
            if version == seen:
                yield f"event: ping\ndata: {int(time.time())}\n\n".encode()
                continue
            time.sleep(gap)  # the changes of the next moment go out in the same message
            seen = club_feed.version
            with app.app_context():
                yield grid_message(seen, tiles())

    response = Response(generate(), mimetype="text/event-stream")
    response.call_on_close(streams.close)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@bp.get("/hands")
def hands():
    return render_template("club/hands.html",
                           hands=feed().hands()[:current_app.config["CLUB_HANDS_SHOWN"]],
                           matches=feed().matches()[:50])


@bp.get("/ranking")
def ranking():
    return render_template("club/ranking.html", ranking=club_ranking())


@bp.get("/api/v1/club")
def api_tables():
    return jsonify(club=current_app.config["CLUB_NAME"],
                   tables=[{k: t.get(k) for k in ("table", "status", "state", "received")}
                           for t in feed().tables()])


@bp.get("/api/v1/club/hands")
def api_hands():
    return jsonify(hands=feed().hands(), matches=feed().matches())


@bp.get("/api/v1/club/ranking")
def api_ranking():
    return jsonify(club_ranking())


def create_club_app(club_feed: Any, config: dict[str, Any] | None = None) -> Flask:
    app = Flask("web_dashboard", instance_relative_config=False)
    app.config.from_mapping(DEFAULTS)
    if config:
        app.config.from_mapping(config)
    app.extensions["club_feed"] = club_feed
    app.extensions["club_streams"] = _Streams()

    i18n.init_flask(app, lambda: "it")

    @app.context_processor
    def _helpers() -> dict[str, Any]:
        lang = g.get("lang", "it")
        return {**i18n.template_helpers(lang), "card": lambda code: card_name(lang, code or ""),
                "club_name": app.config["CLUB_NAME"],
                "refresh": int(app.config["CLUB_REFRESH"])}

    app.after_request(add_security_headers)
    app.register_blueprint(bp)
    app.register_blueprint(cards_bp)  # the tiles' card faces

    @app.errorhandler(404)
    def _not_found(exc):
        return jsonify(error=f"no such resource: {request.path}"), 404

    return app


__all__ = ["create_club_app", "table_card", "tile"]
