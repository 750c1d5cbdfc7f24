"""The live table page, the QR code, the language switch and the table's write forms."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Response,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    url_for,
)

from web_dashboard.i18n import (
    FRENCH_RANKS,
    LANGUAGES,
    N_,
    RANK_LABELS,
    RANKS,
    _,
    card_name,
    catalogue,
    suit_name,
)
from web_dashboard.qr import lan_address, qr_svg
from web_dashboard.security import csrf_token, require_pin_form, safe_next, unlocked
from web_dashboard.setup import small_int

bp = Blueprint("table", __name__)


def hub():
    return current_app.extensions["briscola"]["hub"]


def dashboard_url() -> str:
    """The address other phones should open: ``PUBLIC_URL`` if configured. Else the
    Host the phone used only if it is one of ``TRUSTED_HOSTS`` (checked by Flask): any
    client can send any Host, and the page and QR code must not point elsewhere. Else
    this machine's LAN address and the port the server listens on (neither comes from
    the request's headers). A loopback name is swapped for the LAN address, which
    other phones can reach."""
    configured = current_app.config.get("PUBLIC_URL")
    if configured:
        return configured
    if current_app.config.get("TRUSTED_HOSTS"):
        parts = urlsplit(request.host_url)
        host, port = parts.hostname or "localhost", parts.port
    else:
        host = request.environ.get("SERVER_NAME") or "localhost"
        port = int(request.environ.get("SERVER_PORT") or 80)
    if host in ("localhost", "127.0.0.1", "::1", "0.0.0.0", "::"):
        host = lan_address() or ("127.0.0.1" if host in ("0.0.0.0", "::") else host)
    if ":" in host:
        host = f"[{host}]"
    scheme = request.scheme
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}{'' if port in (None, default) else f':{port}'}/"


@bp.get("/")
def live():
    state = hub().snapshot()
    boot = {"state": state, "lang": g.lang, "messages": catalogue(g.lang),
            "ranks": RANK_LABELS[g.lang],
            "suits": {s: suit_name(g.lang, s) for s in "dcsb"},
            "streamUrl": url_for("stream.events"),
            # The held cards' pickers are forms the script draws: they need the token.
            "csrf": csrf_token() if unlocked() else None,
            "pickUrl": url_for("table.pick"), "callUrl": url_for("table.call"),
            "auctionRanks": AUCTION_RANKS}
    rank_names = {r: _(word) for r, word in RANKS.items()}
    hand = state.get("hand")
    french = (state.get("match") or {}).get("deck") == "french"
    called = hand.get("called") if hand else None
    # The auction's choosers in the deck's own words (a French deck: hearts, J/Q/K).
    ranks = {**RANKS, **(FRENCH_RANKS if french else {})}
    auction_ranks = [(r, _(ranks[r]) if r in ranks else str(r)) for r in AUCTION_RANKS]
    auction_suits = [(s, suit_name(g.lang, s, french)) for s in "dcsb"]
    # |tojson in the template escapes < > & so that no name can close the script tag.
    return render_template("table.html", boot=boot,
                           state=state, url=dashboard_url(), qr=qr_svg(dashboard_url()),
                           rank_names=rank_names, auction_open=auction_open(hand),
                           auction_ranks=auction_ranks, auction_suits=auction_suits,
                           called_name=card_name(g.lang, called, french) if called else None)


@bp.get("/qr.svg")
def qr():
    svg = qr_svg(dashboard_url(), standalone=True)
    if svg is None:
        return Response(f"segno is not installed; open {dashboard_url()}", 404,
                        mimetype="text/plain")
    return Response(svg, mimetype="image/svg+xml")


@bp.get("/lang/<code>")
def language(code: str):
    """Remember the chosen language in a cookie and go back (a preference, not a secret)."""
    if code not in LANGUAGES:
        return Response(f"unknown language {code[:20]!r}: expected it, en or fr", 400,
                        mimetype="text/plain")
    response = redirect(safe_next(request.args.get("next")))
    response.set_cookie("lang", code, max_age=365 * 24 * 3600, samesite="Lax", httponly=True,
                        secure=bool(current_app.config["SESSION_COOKIE_SECURE"]))
    return response


DONE = {"new_hand": N_("New hand dealt."), "undo": N_("Last event undone."),
        "event": N_("Correction accepted."), "correct": N_("Card corrected."),
        "pick": N_("Card named."), "call": N_("Call recorded.")}
# Chiamata's auction: ranks from the strongest, as players call them (as the buttons do).
AUCTION_RANKS = (1, 3, 10, 9, 8, 7, 6, 5, 4, 2)
DEFAULT_BID, MAX_BID = 61, 120


def auction_open(hand: dict | None) -> bool:
    """A chiamata (5-player) hand is waiting for its auction's result."""
    return bool(hand) and hand.get("players") == 5 and hand.get("called") is None \
        and not hand.get("over") and not hand.get("trick") and not hand.get("tricks_played")


def _submit(kind: str, **args):
    return _flash_result(kind, hub().submit(kind, **args))


def _flash_result(kind: str, result: dict):
    if result.get("accepted"):
        flash(_(DONE[kind]), "ok")
    else:
        flash(result.get("message", "refused"), "error")
    return redirect(url_for("table.live"))


@bp.post("/table/new-hand")
@require_pin_form
def new_hand():
    return _submit("new_hand")


@bp.post("/table/undo")
@require_pin_form
def undo():
    return _submit("undo")


@bp.post("/table/event")
@require_pin_form
def correction():
    """A correction typed on a phone: a play, collect, trump or swap the camera missed."""
    f = request.form
    kind = f.get("type", "play")
    event: dict = {"type": kind}
    if kind in ("play", "swap", "correct"):
        event["seat"] = small_int(f.get("seat", ""))
        if event["seat"] is None:
            flash("the seat must be a number", "error")
            return redirect(url_for("table.live"))
    if kind in ("play", "swap", "trump", "correct"):
        # From the rank and suit pickers, or a typed code such as "3c".
        typed = f.get("card", "").strip()
        event["card"] = typed or f"{f.get('rank', '')}{f.get('suit', '')}"
    return _submit("event", event=event)


# A refused pick in the phone's language; none of them says where a card is.
PICK_REFUSALS = {
    "not_possible": N_("{card}: that card cannot be there now."),
    "too_many": N_("Too many cards refused for this one: straighten it, or lift it and lay "
                   "it again."),
    "bad_card": N_("Choose a rank and a suit."),
}


@bp.post("/table/pick")
@require_pin_form
def pick():
    """A card the table holds, named on a phone: one of the camera's likely cards, or any
    card from the rank and suit chooser (the server checks it can be there)."""
    f = request.form
    card = f.get("card", "").strip() or f"{f.get('rank', '').strip()}{f.get('suit', '').strip()}"
    if not card:
        flash(_("Choose a rank and a suit."), "error")
        return redirect(url_for("table.live"))
    if f.get("zone") == "briscola":
        args: dict = {"zone": "briscola"}
    else:
        args = {"seat": small_int(f.get("seat", ""))}
        if args["seat"] is None:
            flash("the seat must be a number", "error")
            return redirect(url_for("table.live"))
    result = hub().submit("pick", card=card, **args)
    key = PICK_REFUSALS.get(result.get("kind", ""))
    if result.get("accepted") or key is None:
        return _flash_result("pick", result)
    match = hub().snapshot().get("match") or {}
    name = card_name(g.lang, card, french=match.get("deck") == "french")
    flash(_(key, card=name), "error")
    return redirect(url_for("table.live"))


@bp.post("/table/call")
@require_pin_form
def call():
    """Chiamata's spoken auction, entered on a phone: the caller, the called card and the
    bid go through the controller's ``call`` command, as the buttons send them. Nothing
    here depends on the cards dealt: the partner stays secret."""
    f = request.form
    if not auction_open(hub().snapshot().get("hand")):
        flash(_("No auction is open now."), "error")
        return redirect(url_for("table.live"))
    seat = small_int(f.get("caller", ""))
    rank, suit = small_int(f.get("rank", "")), f.get("suit", "").strip()
    bid = small_int(f.get("bid", "").strip() or str(DEFAULT_BID))
    if seat is None or not 0 <= seat < 5 or rank not in AUCTION_RANKS \
            or suit not in ("d", "c", "s", "b") or bid is None \
            or not DEFAULT_BID <= bid <= MAX_BID:
        # Refused here: nothing is sent.
        flash(_("Choose the caller, a rank, a suit and a bid of 61 to 120."), "error")
        return redirect(url_for("table.live"))
    return _submit("call", seat=seat, card=f"{rank}{suit}", points=bid)
