"""The club's view: every table live in a grid, the finished hands, the club ranking.

``create_club_app(feed)`` builds a second Flask app beside the table's dashboard. The
``feed`` is the club's subscriber (``table_controller.club.view.ClubFeed``, passed in
so that this package needs nothing of the club's networking): ``tables()``,
``hands()``, ``matches()`` and ``summaries()``. A table's state went through the
dashboard's gate (``web_dashboard.state.phone_view``) at the table and again when it
was received; this view only arranges it. Reading needs nothing and nothing here
writes. The page reloads itself every few seconds (no script: the CSP allows no
inline one, and a grid of tables needs none).
"""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, Flask, current_app, g, jsonify, render_template, request

from web_dashboard import i18n
from web_dashboard.i18n import card_name
from web_dashboard.ranking import compute
from web_dashboard.security import add_security_headers

bp = Blueprint("club", __name__)

DEFAULTS: dict[str, Any] = {
    "CLUB_NAME": "club",
    "CLUB_REFRESH": 2,  # seconds between the grid's reloads
    "CLUB_HANDS_SHOWN": 200,
}


def feed() -> Any:
    return current_app.extensions["club_feed"]


def table_card(entry: dict[str, Any]) -> dict[str, Any]:
    """One table of the grid: its public state, with the names a person reads."""
    state = entry.get("state") or {}
    match = state.get("match") or {}
    names = list(match.get("names") or [])
    hand = state.get("hand")

    def name(seat: Any) -> str | None:
        if not isinstance(seat, int):
            return None
        return names[seat] if 0 <= seat < len(names) else f"#{seat + 1}"

    trick = [{"name": name(p.get("seat")), "card": p.get("card")}
             for p in (hand or {}).get("trick") or []]
    standing = state.get("standing") or {}
    reveal = state.get("reveal")
    return {"table": entry["table"], "status": entry.get("status") or "unknown",
            "age": None if entry.get("received") is None else
            max(0.0, time.time() - entry["received"]),
            "names": names, "hand": hand, "trick": trick, "turn": name((hand or {}).get("turn")),
            "hands_won": standing.get("hands_won"), "match_over": state.get("match_over"),
            "reveal": reveal, "winner_names": [name(s) for s in (reveal or {}).get("winners", [])]}


def club_ranking() -> dict[str, Any]:
    doc = compute(feed().summaries()).to_json()
    return doc


@bp.get("/")
def grid():
    return render_template("club/grid.html", tables=[table_card(t) for t in feed().tables()],
                           hands=feed().hands()[:10])


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

    i18n.init_flask(app, lambda: "it")

    @app.context_processor
    def _helpers() -> dict[str, Any]:
        lang = g.get("lang", "it")
        return {**i18n.template_helpers(lang), "card": lambda code: card_name(lang, code or ""),
                "club_name": app.config["CLUB_NAME"],
                "refresh": int(app.config["CLUB_REFRESH"])}

    app.after_request(add_security_headers)
    app.register_blueprint(bp)

    @app.errorhandler(404)
    def _not_found(exc):
        return jsonify(error=f"no such resource: {request.path}"), 404

    return app


__all__ = ["create_club_app", "table_card"]
