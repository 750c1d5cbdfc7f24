"""The table's PIN, CSRF tokens and security headers.

Reading needs nothing; every write (setup, new hand, corrections, undo) needs
the PIN. A phone enters it once and gets a session cookie (HttpOnly,
SameSite=Strict); scripts may send it in an ``X-Table-PIN`` header instead.
Secrets never travel in URLs. Forms carry a CSRF token, and write API calls
from the pages send it in ``X-CSRF-Token``.
"""

from __future__ import annotations

import functools
import hmac
import re
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from flask import Response, current_app, jsonify, redirect, request, session, url_for
from werkzeug.security import check_password_hash, generate_password_hash

PIN_RE = re.compile(r"^\d{4,12}$")
MAX_FAILURES = 5  # then the PIN is refused for LOCKOUT seconds, whatever is typed
LOCKOUT = 30.0

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")


class PinGuard:
    """Checks the PIN against the stored hash; a client (by address) that gets it wrong
    MAX_FAILURES times in a row is refused for LOCKOUT seconds, whatever it types."""

    def __init__(self, store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._failures: dict[str, list[float]] = {}  # who -> [failures, locked until]

    @property
    def is_set(self) -> bool:
        return self.store.get_setting("pin_hash") is not None

    def set(self, pin: str) -> None:
        if not PIN_RE.match(pin or ""):
            raise ValueError("the PIN must be 4 to 12 digits")
        self.store.set_setting("pin_hash", generate_password_hash(pin))

    def locked(self, who: str = "") -> bool:
        with self._lock:
            entry = self._failures.get(who)
            return entry is not None and time.monotonic() < entry[1]

    def check(self, pin: str | None, who: str = "") -> bool:
        stored = self.store.get_setting("pin_hash")
        if stored is None or not pin or self.locked(who):
            return False
        ok = check_password_hash(stored, pin)
        with self._lock:
            if ok:
                self._failures.pop(who, None)
            else:
                if len(self._failures) > 1000:  # bounded, whoever is knocking
                    self._failures.clear()
                entry = self._failures.setdefault(who, [0, 0.0])
                entry[0] += 1
                if entry[0] >= MAX_FAILURES:
                    entry[0] = 0
                    entry[1] = time.monotonic() + LOCKOUT
        return ok


def client() -> str:
    return request.remote_addr or ""


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(24)
    return token


def csrf_ok(sent: str | None) -> bool:
    expected = session.get("csrf")
    return bool(expected and sent and hmac.compare_digest(expected, sent))


def unlocked() -> bool:
    """Whether this request may write: a PIN session (with CSRF), or the PIN header."""
    header_pin = request.headers.get("X-Table-PIN")
    if header_pin is not None:
        return current_app.extensions["pin"].check(header_pin, client())
    return bool(session.get("unlocked"))


def require_pin_form(view: Callable) -> Callable:
    """For form posts: PIN session and the form's CSRF token, else back to the PIN page."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any):
        guard = current_app.extensions["pin"]
        if not guard.is_set:
            return redirect(url_for("auth.set_pin"))
        if not session.get("unlocked"):
            # Back to a page after unlocking (the form's own URL only takes POSTs).
            back = request.path if request.path == url_for("setup.form") else "/"
            return redirect(url_for("auth.unlock", next=back))
        if not csrf_ok(request.form.get("csrf_token")):
            return Response("CSRF token missing or wrong: reload the page and try again",
                            status=400, mimetype="text/plain")
        return view(*args, **kwargs)

    return wrapped


def require_pin_api(view: Callable) -> Callable:
    """For JSON writes: the X-Table-PIN header, or a PIN session plus X-CSRF-Token."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any):
        guard = current_app.extensions["pin"]
        if not guard.is_set:
            return jsonify(error="no PIN is set yet: set the table's PIN on /setup/pin "
                                 "first"), 403
        header_pin = request.headers.get("X-Table-PIN")
        if header_pin is not None:
            if guard.locked(client()):
                return jsonify(error="too many wrong PINs: try again in a moment"), 429
            if not guard.check(header_pin, client()):
                return jsonify(error="wrong PIN in X-Table-PIN"), 403
            return view(*args, **kwargs)
        if not session.get("unlocked"):
            return jsonify(error="writing needs the table's PIN: unlock on /unlock or send "
                                 "an X-Table-PIN header"), 401
        if not csrf_ok(request.headers.get("X-CSRF-Token")):
            return jsonify(error="missing or wrong X-CSRF-Token header"), 403
        return view(*args, **kwargs)

    return wrapped


def add_security_headers(response: Response) -> Response:
    h = response.headers
    h.setdefault("Content-Security-Policy", CSP)
    h.setdefault("X-Content-Type-Options", "nosniff")
    h.setdefault("Referrer-Policy", "no-referrer")
    h.setdefault("X-Frame-Options", "DENY")
    h.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
    h.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    if request.path.startswith("/api/") and "Cache-Control" not in h:
        h["Cache-Control"] = "no-store"
    return response


MAX_NEXT = 512  # a redirect target longer than this is no page of the table's


def safe_next(target: str | None, default: str = "/") -> str:
    """A redirect target only if it is a path on this site, else ``default``.

    Refused: anything not starting with one ``/`` (``//host`` is another site), a
    scheme or a host (``urlsplit``), backslashes (browsers read ``/\\host`` as
    ``//host``), control characters and whitespace (browsers drop tabs and newlines,
    so ``/<TAB>/host`` would become ``//host``; a newline would break the header),
    and anything over MAX_NEXT characters.
    """
    if not isinstance(target, str) or not target or len(target) > MAX_NEXT:
        return default
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    if any(not ch.isprintable() or ch.isspace() for ch in target):
        return default
    try:
        parts = urlsplit(target)
    except ValueError:
        return default
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return default
    return target


__all__ = ["PinGuard", "csrf_token", "csrf_ok", "unlocked", "require_pin_form",
           "require_pin_api", "add_security_headers", "safe_next", "PIN_RE"]
