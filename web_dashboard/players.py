"""Players without accounts: the general ranking, each player's page, renames.

A player is a name typed at setup. The ranking (``web_dashboard.ranking``) is
recomputed from the store's finished hands whenever they or the renames change
(the store's fingerprint says when), so it never drifts from the history. The
hand being played has no result in the store yet: nothing here can tell its points.
Renaming or merging two spellings is a PIN action; the matches keep the names as
typed.
"""

from __future__ import annotations

import threading
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)

from table_controller.store import StoreError
from web_dashboard.i18n import _
from web_dashboard.ranking import Ranking, from_store, points_plot
from web_dashboard.security import require_pin_form

bp = Blueprint("players", __name__)

_cache_lock = threading.Lock()


def store():
    return current_app.extensions["briscola"]["store"]


def current_ranking() -> Ranking:
    """The ranking of the store as it is now (recomputed when its hands or renames
    changed since the last one)."""
    st = store()
    key = st.ranking_fingerprint()
    ext = current_app.extensions["briscola"]
    with _cache_lock:
        cached = ext.get("ranking")
        if cached is not None and cached[0] == key:
            return cached[1]
        ranking = from_store(st)
        ext["ranking"] = (key, ranking)
        return ranking


def player_doc(ranking: Ranking, name: str) -> dict[str, Any] | None:
    """A player's page as JSON: the rating and rank, every rated hand, the matches."""
    ordered = ranking.ordered()
    stats = ranking.player(name)
    if stats is None:
        return None
    rank = next(i for i, p in enumerate(ordered, 1) if p.name == name)
    doc = stats.to_json(rank, history=True)
    doc["match_ids"] = sorted({m for _, m in stats.matches})
    aliases = store().aliases()
    doc["also_named"] = sorted(n for n, p in aliases.items() if p == name)
    return doc


def rename(old: str, new: str) -> str:
    """The rename (or merge); raises StoreError naming what is wrong."""
    return store().rename_player(old, new)


@bp.get("/ranking/")
def ranking_page():
    ranking = current_ranking()
    return render_template("ranking.html", ranking=ranking.to_json(),
                           names=store().player_names())


@bp.get("/players/<path:name>")
def player_page(name: str):
    ranking = current_ranking()
    doc = player_doc(ranking, name)
    if doc is None:
        player = store().player_of(name)
        if player != name:  # an old spelling: its player's page
            return redirect(url_for("players.player_page", name=player))
        abort(404)
    return render_template("player.html", player=doc, plot=points_plot(doc["history"]),
                           recent=list(reversed(doc["history"][-50:])))


@bp.post("/ranking/rename")
@require_pin_form
def rename_form():
    old, new = request.form.get("old", ""), request.form.get("new", "")
    try:
        player = rename(old, new)
    except StoreError as exc:
        flash(str(exc), "error")
        return redirect(url_for("players.ranking_page"))
    flash(_("{old} is now {new}.", old=old.strip(), new=player), "ok")
    return redirect(url_for("players.ranking_page"))
