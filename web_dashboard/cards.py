"""Card face images: ``/cards/<deck>/<code>`` for the pages' ``<img>`` tags."""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, send_file

from table_controller.engine.cards import Card, CardError
from web_dashboard.card_faces import back_svg, card_svg, enrolled_face, printed_png

bp = Blueprint("cards", __name__, url_prefix="/cards")

CACHE = "public, max-age=86400"


def _svg(text: str) -> Response:
    response = Response(text, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = CACHE
    return response


@bp.get("/back.svg")
def back():
    return _svg(back_svg())


@bp.get("/<deck>/<code>")
def face(deck: str, code: str):
    """One face; an unknown enrolled face falls back to the built-in drawing."""
    code = code.removesuffix(".svg").removesuffix(".png")
    try:
        card = str(Card.parse(code))
    except CardError:
        abort(404)
    if deck.startswith("enrolled:"):
        path = enrolled_face(current_app.config.get("DECKS_DIR"), deck[9:], card)
        if path is not None:
            response = send_file(path, max_age=86400)
            return response
    elif deck == "printed":
        png = printed_png(card)
        if png is not None:
            response = Response(png, mimetype="image/png")
            response.headers["Cache-Control"] = CACHE
            return response
    elif deck not in ("builtin", "french"):
        abort(404)
    return _svg(card_svg(card, french=deck == "french"))
