"""The setup page: players, names, variants, match length, deck."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for

from table_controller.engine.referee import MATCH_LENGTHS
from table_controller.engine.rules import TRICKS_PER_HAND, Variant
from table_controller.engine.words import Say
from web_dashboard.card_faces import enrolled_decks, printed_available
from web_dashboard.i18n import LANGUAGES, _, said
from web_dashboard.i18n import table_language as i18n_table_language
from web_dashboard.security import require_pin_form

bp = Blueprint("setup", __name__, url_prefix="/setup")


def available_decks() -> list[str]:
    decks = ["builtin", "french"]
    if printed_available():
        decks.append("printed")
    decks += [f"enrolled:{n}" for n in enrolled_decks(current_app.config.get("DECKS_DIR"))]
    return decks


KNOWN_NAMES = 30  # names suggested on the setup page, most recently seated first


class SetupError(ValueError):
    """Setup input refused: a ``Say`` (English for the API's JSON, the page's language on
    the setup page)."""


_INTEGER = re.compile(r"-?[0-9]{1,6}")  # ASCII digits only: int() also takes "²"-like ones


def small_int(value: Any) -> int | None:
    """``value`` as a small integer (a JSON integer or a string of a few ASCII digits),
    else None: no floats (``1e999`` is infinite), no booleans, no other digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if abs(value) < 10**6 else None
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    return None


def parse_setup(data: dict[str, Any]) -> dict[str, Any]:
    """Check setup input (a form or JSON) and return the setup command's arguments.

    Raises SetupError naming the field that is wrong.
    """
    players = small_int(data.get("players", 2))
    if players is None:
        raise SetupError(Say("'players' must be a number from 2 to 6"))
    if players not in TRICKS_PER_HAND:
        raise SetupError(Say("'players' must be 2 to 6, not {value}", value=players))
    names = data.get("names")
    if names is None:
        names = [data.get(f"name{s}", "") for s in range(players)]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise SetupError(Say("'names' must be a list of strings, one per seat"))
    names = [n.strip()[:24] for n in names][:players]
    variants = data.get("variants", [])
    if isinstance(variants, str):
        variants = [variants]
    if not isinstance(variants, list):
        raise SetupError(Say("'variants' must be a list such as [\"swap7\"]"))
    try:
        variants = sorted({Variant.parse(v).value for v in variants})
    except ValueError as exc:
        raise SetupError(exc.args[0]) from None  # the engine's Say
    length = data.get("length")
    if length in ("", "open", None):
        length = None
    else:
        length = small_int(length)
        if length is None:
            raise SetupError(Say("'length' must be 1, 3, 5 or null (an open series)"))
        if length not in MATCH_LENGTHS:
            raise SetupError(Say("'length' must be 1, 3, 5 or null, not {value}", value=length))
    deck = data.get("deck") or "builtin"
    if deck not in available_decks():
        raise SetupError(Say("unknown deck {value}: available are {decks}",
                             value=repr(str(deck)[:40]), decks=", ".join(available_decks())))
    dealer = data.get("dealer")
    if dealer in ("", None):
        dealer = None
    else:
        dealer = small_int(dealer)
        if dealer is None:
            raise SetupError(Say("'dealer' must be a seat number"))
        if not 0 <= dealer < players:
            # The field counts seats from 0 (as the JSON does): said with the P names.
            raise SetupError(Say("'dealer' must be a seat from 0 (P1) to {last} (P{n}), "
                                 "not {value}", last=players - 1, n=players, value=dealer))
    if players == 5 and variants:
        raise SetupError(Say("the swap variants need a face-up briscola; Briscola "
                             "chiamata (5 players) has none"))
    return {"players": players, "names": names, "variants": variants, "length": length,
            "deck": deck, "dealer": dealer}


@bp.get("/")
def form():
    hub = current_app.extensions["briscola"]["hub"]
    match = hub.snapshot().get("match") or {}
    table_language = i18n_table_language(current_app)
    return render_template("setup.html", match=match, decks=available_decks(),
                           lengths=MATCH_LENGTHS, variants=[v.value for v in Variant],
                           table_language=table_language,
                           known_names=current_app.extensions["briscola"]["store"]
                           .player_names(limit=KNOWN_NAMES))


@bp.post("/")
@require_pin_form
def submit():
    form = request.form
    data = {k: form.get(k) for k in ("players", "length", "deck", "dealer")}
    data["variants"] = form.getlist("variants")
    players = small_int(form.get("players", "2"))
    data["names"] = [form.get(f"name{s}", "") for s in range(players)] \
        if players in TRICKS_PER_HAND else None
    try:
        args = parse_setup(data)
    except SetupError as exc:
        flash(said(g.lang, exc), "error")
        return redirect(url_for("setup.form"))
    hub = current_app.extensions["briscola"]["hub"]
    language = form.get("language")
    store = current_app.extensions["briscola"]["store"]
    if language in LANGUAGES:
        # A table setting, kept even if the match is refused; the display and the
        # terminal switch to it now (each ignores its own language).
        store.set_setting("language", language)
        hub.set_language(language)
    result = hub.submit("setup", **args)
    if result.get("accepted"):
        flash(_("Match set up."), "ok")
    else:
        flash(result.get("message", ""), "error")
    return redirect(url_for("table.live") if result.get("accepted") else url_for("setup.form"))
