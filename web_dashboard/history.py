"""Every match and hand played at the table, browsable and downloadable.

Only finished hands are shown in full: the hand in progress appears as "in
progress" with no cards and no points, and is left out of the game record.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template

from table_controller.engine.record import dumps, match_records
from table_controller.store import HandRow, MatchInfo, StoreError
from web_dashboard.state import match_json, reveal_from_report

bp = Blueprint("history", __name__, url_prefix="/history")

HISTORY_LIMIT = 200  # newest matches listed; older ones stay reachable by id


def store():
    return current_app.extensions["briscola"]["store"]


def load_match(match_id: int) -> MatchInfo | None:
    try:
        return store().match(match_id)
    except StoreError:
        return None


def match_summary(info: MatchInfo, tricks: bool = True) -> dict[str, Any]:
    """A match as the history shows it: settings, standing, and each hand's public result
    (without the trick-by-trick account when ``tricks`` is false, for long lists)."""
    hands = []
    rows = store().hands(info.id)
    for row in rows:
        reveal = reveal_from_report(row.result) if row.result else None
        if reveal is not None and not tricks:
            del reveal["tricks"]
        hands.append({"index": row.idx, "number": row.idx + 1, "dealer": row.dealer,
                      "started": row.started, "finished": row.finished,
                      "status": hand_status(row, rows[-1].idx),
                      "result": reveal, "winner_names": []})
    doc = match_json(info)
    for h in hands:
        if h["result"]:
            h["winner_names"] = [doc["names"][s] for s in h["result"]["winners"]]
    doc.update(created=info.created, finished=info.finished, standing=info.standing,
               hands=hands, winner_names=[doc["names"][s] for s in
                                           (info.standing or {}).get("winners", [])])
    return doc


def hand_status(row: HandRow, last_idx: int) -> str:
    """``finished``, ``in_progress``, or ``abandoned`` (redealt before its last trick)."""
    if row.result is not None:
        return "finished"
    return "in_progress" if row.idx == last_idx else "abandoned"


def match_record_text(info: MatchInfo) -> str:
    """The game record (BGN) of the match's finished hands."""
    referee = store().replay(info.id)
    names = [n or f"#{s + 1}" for s, n in enumerate(info.names)]
    date = _dt.date.fromisoformat(info.created[:10])
    records = [r for r, hand in zip(match_records(referee, names, date), referee.hands,
                                    strict=True) if hand.is_over()]
    return dumps(records) if records else ""


def record_response(info: MatchInfo) -> Response:
    response = Response(match_record_text(info), mimetype="text/plain; charset=utf-8")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="briscola-match-{info.id}.bgn"')
    return response


@bp.get("/")
def index():
    matches = [match_summary(m, tricks=False) for m in store().matches(limit=HISTORY_LIMIT)]
    return render_template("history.html", matches=matches)


@bp.get("/<id:match_id>")
def match(match_id: int):
    info = load_match(match_id) or abort(404)
    return render_template("match.html", match=match_summary(info))


@bp.get("/<id:match_id>/hands/<id:idx>")
def hand(match_id: int, idx: int):
    info = load_match(match_id) or abort(404)
    row = store().hand(match_id, idx)
    if row is None or row.result is None:
        abort(404)
    match = match_json(info)
    reveal = reveal_from_report(row.result)
    return render_template("hand.html", match=match, number=idx + 1, reveal=reveal,
                           winner_names=[match["names"][s] for s in reveal["winners"]],
                           dealer=row.dealer,
                           violations=row.result.get("violations", []))


@bp.get("/<id:match_id>/record.bgn")
def record(match_id: int):
    info = load_match(match_id) or abort(404)
    return record_response(info)
