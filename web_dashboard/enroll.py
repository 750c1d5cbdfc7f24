"""The phone's view of a guided enrollment at the table (``vision.guided``).

``/enroll`` shows the card asked for, the last capture, why the last one was
refused, and a "re-take" button per captured card (PIN). It reloads itself every
2 s (no script). The enrollment's ``EnrollSession`` is set with
:func:`set_enrollment`; without one the page says that none is running.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    url_for,
)

from web_dashboard.i18n import N_, _, card_name, said
from web_dashboard.security import require_pin_form

bp = Blueprint("enroll", __name__)


def set_enrollment(app: Any, session: Any) -> None:
    """Show ``session`` (a ``vision.guided.EnrollSession``, or None) at /enroll."""
    app.extensions["briscola"]["enroll"] = session


REFUSALS = {"blurred": N_("Capture refused: blurred."),
            "partial": N_("Capture refused: the card is not whole in view."),
            "covered": N_("Capture refused: something covers the card."),
            "duplicate": N_("Capture refused: this is {other}, already captured.")}


def _session() -> Any:
    return current_app.extensions["briscola"].get("enroll")


def _name(code: str) -> str:
    return _("the back") if code == "back" else card_name(g.lang, code)


@bp.get("/enroll")
def page():
    session = _session()
    snap = session.snapshot() if session is not None else None
    refusal = None
    if snap and snap["refusal"]:
        r = snap["refusal"]
        refusal = _(REFUSALS.get(r["reason"], r["reason"]),
                    other=_name(r["other"]) if r["other"] else "")
    if snap:  # the deck check's lines, in the page's language
        snap["report"] = [said(g.lang, line) for line in snap["report"]]
    return render_template("enroll.html", snap=snap, refusal=refusal, name=_name)


@bp.get("/enroll/capture/<code>.png")
def capture(code: str):
    session = _session()
    png = session.capture_png(code) if session is not None else None
    if png is None:
        abort(404)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "no-store"})


@bp.post("/enroll/retake")
@require_pin_form
def retake():
    session = _session()
    code = request.form.get("code", "")
    if session is None:
        flash(_("No enrollment is running."), "error")
    else:
        error = session.retake(code)
        if error:
            flash(said(g.lang, error), "error")
        else:
            flash(_("{card} will be asked again.", card=_name(code.strip().lower())),
                  "ok")
    return redirect(url_for("enroll.page"))
