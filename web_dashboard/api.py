"""The JSON API beside the pages (documented in ``static/openapi.yaml``).

Reads need nothing; writes need the PIN (see :mod:`web_dashboard.security`).
Bad input gets a 400 whose ``error`` names what is wrong.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, abort, current_app, jsonify, request, send_from_directory

from table_controller.store import StoreError
from web_dashboard.history import (
    HISTORY_LIMIT,
    hand_status,
    load_match,
    match_summary,
    record_response,
)
from web_dashboard.i18n import LANGUAGES, catalogue
from web_dashboard.players import current_ranking, player_doc, rename
from web_dashboard.security import require_pin_api
from web_dashboard.setup import SetupError, available_decks, parse_setup
from web_dashboard.state import match_json, reveal_from_report

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def hub():
    return current_app.extensions["briscola"]["hub"]


def store():
    return current_app.extensions["briscola"]["store"]


def bad(message: str, status: int = 400):
    return jsonify(error=message), status


def json_body() -> Any:
    """The request's JSON, or None when it is not JSON (or nested too deeply to parse:
    ``[[[[...]]]]`` raises RecursionError, which ``silent`` does not cover)."""
    try:
        return request.get_json(silent=True)
    except RecursionError:
        return None


def body() -> dict[str, Any]:
    data = json_body()
    if data is None:
        raise SetupError("the request body must be a JSON object (Content-Type: "
                         "application/json)")
    if not isinstance(data, dict):
        raise SetupError(f"the request body must be a JSON object, not "
                         f"{type(data).__name__}")
    return data


def command_response(result: dict[str, Any]):
    return jsonify(result), (200 if result.get("accepted") else 409)


# -- reads ----------------------------------------------------------------------------

@bp.get("/table")
def table():
    """The live snapshot: the same document the stream sends."""
    return jsonify(hub().snapshot())


@bp.get("/matches")
def matches():
    """The newest matches first; ``?limit=N`` (default and most 200)."""
    try:
        limit = int(request.args.get("limit", HISTORY_LIMIT))
    except ValueError:
        return bad("'limit' must be a number")
    limit = max(1, min(limit, HISTORY_LIMIT))
    return jsonify(matches=[match_summary(m, tricks=False)
                            for m in store().matches(limit=limit)])


@bp.get("/matches/<id:match_id>")
def match(match_id: int):
    info = load_match(match_id) or abort(404)
    return jsonify(match_summary(info))


@bp.get("/matches/<id:match_id>/hands/<id:idx>")
def hand(match_id: int, idx: int):
    """A finished hand's account; 409 while it is being played (its points are secret)."""
    info = load_match(match_id) or abort(404)
    row = store().hand(match_id, idx)
    if row is None:
        abort(404)
    if row.result is None:
        last = store().hands(match_id)[-1].idx
        if hand_status(row, last) == "abandoned":
            return bad(f"hand {idx} of match {match_id} was abandoned and redealt: it has no "
                       "account", 404)
        return bad(f"hand {idx} of match {match_id} is still being played: its account is "
                   "shown when it ends", 409)
    return jsonify(match=match_json(info), index=idx, reveal=reveal_from_report(row.result))


@bp.get("/matches/<id:match_id>/hands/<id:idx>/events")
def hand_events(match_id: int, idx: int):
    """Every event fed during a finished hand, accepted or not, as stored."""
    load_match(match_id) or abort(404)
    row = store().hand(match_id, idx)
    if row is None:
        abort(404)
    if row.result is None:
        return bad(f"hand {idx} of match {match_id} is not finished: its events are shown "
                   "when it ends", 409)
    return jsonify(events=[{"seq": e.seq, "event": e.event, "accepted": e.accepted,
                            "violation": None if e.accepted else
                            {"kind": e.violation_kind, "message": e.violation_message},
                            "t": e.t, "wall": e.wall}
                           for e in store().hand_events(match_id, idx)])


@bp.get("/matches/<id:match_id>/record.bgn")
def record(match_id: int):
    info = load_match(match_id) or abort(404)
    return record_response(info)


@bp.get("/i18n/<lang>")
def messages(lang: str):
    if lang not in LANGUAGES:
        return bad(f"unknown language {lang[:20]!r}: expected one of {', '.join(LANGUAGES)}", 404)
    return jsonify(catalogue(lang))


@bp.get("/decks")
def decks():
    return jsonify(decks=available_decks())


@bp.get("/ranking")
def ranking():
    """The general ranking, recomputed from the store's finished hands."""
    return jsonify(current_ranking().to_json())


@bp.get("/players")
def players():
    """The names seen at this table, most recently seated first (renames resolved)."""
    return jsonify(players=store().player_names())


@bp.get("/players/<path:name>")
def player(name: str):
    doc = player_doc(current_ranking(), store().player_of(name))
    if doc is None:
        return bad(f"no rated player named {_short(name)}", 404)
    return jsonify(doc)


@bp.get("/openapi.yaml")
def openapi():
    return send_from_directory(current_app.static_folder, "openapi.yaml",
                               mimetype="application/yaml")


# -- writes ---------------------------------------------------------------------------

@bp.post("/setup")
@require_pin_api
def setup():
    try:
        args = parse_setup(body())
    except SetupError as exc:
        return bad(str(exc))
    return command_response(hub().submit("setup", **args))


@bp.post("/hands")
@require_pin_api
def new_hand():
    data = json_body()
    if data is None and request.get_data(cache=True).strip():
        return bad("the request body must be a JSON object such as {\"dealer\": 1}, or empty")
    data = data or {}
    if not isinstance(data, dict):
        return bad("the request body must be a JSON object")
    dealer = data.get("dealer")
    if dealer is not None and not _is_seat(dealer):
        return bad(f"'dealer' must be a seat number, not {_short(dealer)}")
    return command_response(hub().submit("new_hand", dealer=dealer))


@bp.post("/events")
@require_pin_api
def event():
    """A correction: one table event as in the referee's JSON Lines."""
    try:
        data = body()
    except SetupError as exc:
        return bad(str(exc))
    if data.get("type") not in ("play", "collect", "trump", "swap", "call", "correct"):
        return bad("'type' must be play, collect, trump, swap, call or correct (use /hands "
                   "for a new hand and /undo to take an event back)")
    t = data.get("t")
    if t is not None and not (isinstance(t, (int, float)) and not isinstance(t, bool)
                              and abs(t) < 1e15 and math.isfinite(t)):
        return bad(f"'t' must be a finite number of seconds, not {_short(t)}")
    return command_response(hub().submit("event", event=data))


def _is_seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10


def _short(value: Any) -> str:
    """A bad value for a message, cut short (a 4,000-digit number is not echoed back)."""
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**12 else "a huge number"
    return text if len(text) <= 40 else text[:37] + "..."


def _seat_and_card(data: dict[str, Any]) -> str | None:
    seat, card = data.get("seat"), data.get("card")
    if seat is not None and not _is_seat(seat):
        return f"'seat' must be a seat number (0-based), not {_short(seat)}"
    if not isinstance(card, str) or not card.strip():
        return "'card' must be a card code such as \"6c\""
    return None


@bp.post("/correct")
@require_pin_api
def correct():
    """The card in a seat's zone is ``card``: its last play this hand (or its play of
    ``was``) is replaced and the rest re-refereed."""
    try:
        data = body()
    except SetupError as exc:
        return bad(str(exc))
    error = _seat_and_card(data) or (None if data.get("seat") is not None
                                     else "'seat' is required")
    if error:
        return bad(error)
    was = data.get("was")
    if was is not None and not isinstance(was, str):
        return bad(f"'was' must be a card code, not {_short(was)}")
    return command_response(hub().submit("correct", seat=data["seat"],
                                         card=data["card"].strip(), was=was))


@bp.post("/pick")
@require_pin_api
def pick():
    """Name a card the table holds: ``seat`` (or ``zone`` "briscola") and ``card``."""
    try:
        data = body()
    except SetupError as exc:
        return bad(str(exc))
    error = _seat_and_card(data)
    if error:
        return bad(error)
    if data.get("seat") is None and data.get("zone") != "briscola":
        return bad("'seat' (or 'zone': \"briscola\") is required")
    args = {"card": data["card"].strip()}
    if data.get("seat") is not None:
        args["seat"] = data["seat"]
    else:
        args["zone"] = "briscola"
    return command_response(hub().submit("pick", **args))


@bp.post("/players/rename")
@require_pin_api
def rename_player():
    """Rename a player, or merge two spellings: ``{"from": "Ada", "to": "Adele"}``."""
    try:
        data = body()
    except SetupError as exc:
        return bad(str(exc))
    old, new = data.get("from"), data.get("to")
    if not isinstance(old, str) or not isinstance(new, str):
        return bad("'from' and 'to' must be players' names (strings)")
    try:
        player = rename(old, new[:24])
    except StoreError as exc:
        return bad(str(exc), 409 if "no player" in str(exc) or "already" in str(exc)
                   else 400)
    return jsonify(accepted=True, player=player, message=f"{old.strip()} is now {player}")


@bp.post("/undo")
@require_pin_api
def undo():
    return command_response(hub().submit("undo"))


@bp.post("/names")
@require_pin_api
def names():
    try:
        data = body()
    except SetupError as exc:
        return bad(str(exc))
    names = data.get("names")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return bad("'names' must be a list of strings, one per seat")
    return command_response(hub().submit("names", names=[n.strip()[:24] for n in names]))
