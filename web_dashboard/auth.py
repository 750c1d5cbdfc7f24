"""Unlocking writes with the table's PIN, and setting the PIN at first start."""

from __future__ import annotations

from flask import (
    Blueprint,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from web_dashboard.i18n import _
from web_dashboard.security import (
    PIN_RE,
    Verdict,
    client,
    csrf_ok,
    safe_next,
    unlock_session,
    unlocked,
)

bp = Blueprint("auth", __name__)


def guard():
    return current_app.extensions["pin"]


@bp.route("/unlock", methods=["GET", "POST"])
def unlock():
    if not guard().is_set:
        return redirect(url_for("auth.set_pin"))
    nxt = safe_next(request.values.get("next"))
    error = None
    status = 200
    if request.method == "POST":
        if not csrf_ok(request.form.get("csrf_token")):
            error, status = _("The form expired: try again."), 400
        else:
            attempt = guard().attempt(request.form.get("pin", ""), client())
            if attempt:
                unlock_session()
                flash(_("Changes enabled on this phone."), "ok")
                return redirect(nxt)
            if attempt.verdict is Verdict.REFUSED:
                error, status = _("Too many attempts: try again shortly."), 429
            else:
                error, status = _("Wrong PIN."), 403
    return render_template("unlock.html", error=error, next=nxt), status


@bp.post("/lock")
def lock():
    """Lock the table: every unlocked phone (and any saved copy of its cookie) is
    locked again, by a new session generation."""
    if csrf_ok(request.form.get("csrf_token")):
        if unlocked():  # only an unlocked phone may lock the others out
            guard().end_sessions()
        session.clear()
    return redirect(url_for("table.live"))


@bp.route("/setup/pin", methods=["GET", "POST"])
def set_pin():
    """First start: anyone at the table chooses the PIN. Later: changing it needs the old one."""
    first = not guard().is_set
    error = None
    status = 200
    if request.method == "POST":
        f = request.form
        pin, again = f.get("pin", ""), f.get("pin2", "")
        # The current PIN is checked (and counted) before anything else is looked at.
        current = Verdict.OK if first or not csrf_ok(f.get("csrf_token")) else \
            guard().attempt(f.get("current", ""), client()).verdict
        if not csrf_ok(f.get("csrf_token")):
            error, status = _("The form expired: try again."), 400
        elif current is Verdict.REFUSED:
            error, status = _("Too many attempts: try again shortly."), 429
        elif current is Verdict.WRONG:
            error, status = _("Wrong PIN."), 403
        elif not PIN_RE.match(pin):
            error, status = _("The PIN has 4 to 12 digits."), 400
        elif pin != again:
            error, status = _("The two PINs differ."), 400
        else:
            guard().set(pin)  # ends every other session
            unlock_session()
            flash(_("PIN saved."), "ok")
            return redirect(url_for("setup.form"))
    return render_template("pin.html", first=first, error=error), status
