"""The table's PIN, CSRF tokens and security headers.

Reading needs nothing; every write (setup, new hand, corrections, undo) needs
the PIN. A phone enters it once and gets a session cookie (HttpOnly,
SameSite=Strict, Secure over HTTPS) that carries the table's session generation;
scripts may send the PIN in an ``X-Table-PIN`` header on API writes instead.
Secrets never travel in URLs. Forms carry a CSRF token, and write API calls
from the pages send it in ``X-CSRF-Token``. :class:`PinGuard` bounds how fast, and
how many at once, PINs can be tried (see its docstring and the README).
"""

from __future__ import annotations

import enum
import functools
import hmac
import ipaddress
import math
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import Response, current_app, jsonify, redirect, request, session, url_for
from werkzeug.security import check_password_hash, generate_password_hash

PIN_RE = re.compile(r"^\d{4,12}$")

# scrypt with N=2**13, r=8: 128*N*r = 8 MiB a check, 18 ms on the development machine
# (a Pi is a few times slower; werkzeug's default, N=2**15, takes 32 MiB). A 4-digit
# PIN is safe by the rate limits below, not by the hash's cost: an offline attacker
# tries 10,000 PINs whatever the cost.
HASH_METHOD = "scrypt:8192:8:1"
MAX_HASHING = 2  # checks being hashed at once, table-wide; more are refused at once

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")


@dataclass(frozen=True)
class Schedule:
    """Exponential back-off: after ``free`` failures, each one makes the next attempt
    wait ``base * 2**k`` s (k = failures beyond ``free``), at most ``cap``; the count
    starts over after ``forget`` s without a failure."""

    free: int
    base: float
    cap: float
    forget: float = 24 * 3600.0

    def wait(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return min(self.cap, self.base * 2.0 ** min(failures - self.free, 40))


# Per address: five wrong PINs in a row, then 30 s, 60 s, ... up to an hour.
PER_CLIENT = Schedule(free=5, base=30.0, cap=3600.0)
# The whole table, whatever the addresses (a LAN can have many, IPv6 more): after 10
# failures, 1 s, 2 s, ... up to 5 minutes between attempts. 10,000 PINs then take
# over a month (``benchmarks/bench_pin_attack.py`` measures it).
TABLE = Schedule(free=10, base=1.0, cap=300.0)
MAX_TRACKED = 4096  # addresses remembered; only ones no longer locked are forgotten


@dataclass
class _Failures:
    count: int = 0
    last: float = -math.inf  # monotonic time of the last failure
    hashing: bool = False

    def until(self, schedule: Schedule, now: float) -> float:
        """The monotonic time before which no attempt is allowed."""
        if now - self.last > schedule.forget:
            self.count = 0
        return self.last + schedule.wait(self.count) if self.count else -math.inf

    def fail(self, now: float) -> None:
        self.count += 1
        self.last = now


class Verdict(enum.Enum):
    OK = "ok"
    WRONG = "wrong"  # hashed and wrong (or no PIN set, or not a PIN at all)
    REFUSED = "refused"  # not hashed: back-off, a check of this client's in flight, busy


@dataclass(frozen=True)
class Attempt:
    verdict: Verdict
    retry_after: float = 0.0  # seconds, when refused

    def __bool__(self) -> bool:
        return self.verdict is Verdict.OK


class PinGuard:
    """Checks PINs against the stored hash, with every attempt counted before it is
    hashed: a client (by address; an IPv6 /64 is one client) may have one check in
    flight, the table MAX_HASHING; each failure adds to the client's and the table's
    exponential back-off (``PER_CLIENT``, ``TABLE``); an attempt refused for any of
    these costs no hash. The memory is bounded by remembering at most MAX_TRACKED
    clients, forgetting only ones that are no longer locked out (when every one is,
    new clients are refused), so nobody's lockout is ever wiped by others knocking.

    Also the session generation: a random token stored with the table's settings
    that an unlocked session must carry; a PIN change and "lock" replace it, which
    ends every unlocked session (a saved cookie too).
    """

    def __init__(self, store, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, _Failures] = OrderedDict()  # oldest first
        self._table = _Failures()
        self._hashing = 0
        self.refused = 0  # attempts refused before hashing, since start
        self.hashed = 0  # attempts hashed
        if store.get_setting("session_generation") is None:
            self.end_sessions()  # made once here, not racing in concurrent requests

    @property
    def is_set(self) -> bool:
        return self.store.get_setting("pin_hash") is not None

    def set(self, pin: str) -> None:
        """A new PIN; it ends every unlocked session."""
        if not PIN_RE.match(pin or ""):
            raise ValueError("the PIN must be 4 to 12 digits")
        self.store.set_setting("pin_hash", generate_password_hash(pin, HASH_METHOD))
        self.end_sessions()

    # -- sessions ---------------------------------------------------------------------

    @property
    def generation(self) -> str:
        """The current session generation (made at first use)."""
        value = self.store.get_setting("session_generation")
        return value if value is not None else self.end_sessions()

    def end_sessions(self) -> str:
        """Replace the session generation: every unlocked session is locked again."""
        value = secrets.token_urlsafe(16)
        self.store.set_setting("session_generation", value)
        return value

    # -- attempts ---------------------------------------------------------------------

    def locked(self, who: str = "") -> bool:
        """Whether an attempt from ``who`` would be refused now without being hashed."""
        with self._lock:
            return self._refusal(_client_key(who), self.clock()) is not None

    def retry_after(self, who: str = "") -> float:
        """Seconds until ``who`` may try again (0 if now)."""
        with self._lock:
            return self._refusal(_client_key(who), self.clock()) or 0.0

    def check(self, pin: str | None, who: str = "") -> bool:
        return bool(self.attempt(pin, who))

    def attempt(self, pin: str | None, who: str = "") -> Attempt:
        """Check ``pin`` for client address ``who``: OK, WRONG, or REFUSED unhashed."""
        stored = self.store.get_setting("pin_hash")
        if stored is None or not isinstance(pin, str) or not PIN_RE.match(pin):
            return Attempt(Verdict.WRONG)  # can never match: nothing to hash or count
        key = _client_key(who)
        with self._lock:
            now = self.clock()
            wait = self._refusal(key, now)
            if wait is None and key not in self._clients and not self._make_room(now):
                wait = PER_CLIENT.base  # every remembered client is locked out
            if wait is not None:
                self.refused += 1
                return Attempt(Verdict.REFUSED, max(wait, 1.0))
            # Counted as a failure before hashing: a check cut short still counts.
            mine = self._clients.setdefault(key, _Failures())
            self._clients.move_to_end(key)
            mine.fail(now)
            mine.hashing = True
            self._table.fail(now)
            self._hashing += 1
            self.hashed += 1
        ok = False
        try:
            ok = check_password_hash(stored, pin)
        finally:
            with self._lock:
                self._hashing -= 1
                mine.hashing = False
                if ok:  # it knew the PIN: its failures were typos, forgiven (the table's too)
                    self._clients.pop(key, None)
                    self._table.count = max(0, self._table.count - mine.count)
        if ok and not stored.startswith(HASH_METHOD + "$"):
            # An older hash (e.g. werkzeug's 32 MiB scrypt): rehash at today's cost.
            self.store.set_setting("pin_hash", generate_password_hash(pin, HASH_METHOD))
        return Attempt(Verdict.OK if ok else Verdict.WRONG)

    def _refusal(self, key: str, now: float) -> float | None:
        """Seconds to wait if an attempt from ``key`` is refused now, else None."""
        mine = self._clients.get(key)
        if mine is not None and mine.hashing:
            return 1.0
        if self._hashing >= MAX_HASHING:
            return 1.0
        until = max(self._table.until(TABLE, now),
                    mine.until(PER_CLIENT, now) if mine is not None else -math.inf)
        return until - now if until > now else None

    def _make_room(self, now: float) -> bool:
        """Room for one more client: forget the oldest one no longer locked out."""
        if len(self._clients) < MAX_TRACKED:
            return True
        for key, entry in self._clients.items():
            if not entry.hashing and entry.until(PER_CLIENT, now) <= now:
                del self._clients[key]
                return True
        return False


def _client_key(who: str) -> str:
    """One client per IPv4 address, and per IPv6 /64 (one host may hold all of it)."""
    try:
        address = ipaddress.ip_address(who)
    except ValueError:
        return who
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


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
    """Whether this browser session is unlocked: it carries the table's current session
    generation (so "lock" and a PIN change end it, saved copies of the cookie too).
    Pages never read ``X-Table-PIN``: only API writes do, so that a page view costs no
    hash."""
    mark = session.get("unlocked")
    return isinstance(mark, str) and hmac.compare_digest(
        mark, current_app.extensions["pin"].generation)


def unlock_session() -> None:
    """A fresh session (and CSRF token), unlocked for the current generation."""
    session.clear()
    session.permanent = True
    session["unlocked"] = current_app.extensions["pin"].generation


def refused_response(attempt: Attempt) -> Response:
    response = jsonify(error="too many PIN attempts (or one still being checked): try "
                             f"again in {math.ceil(attempt.retry_after)} s")
    response.status_code = 429
    response.headers["Retry-After"] = str(math.ceil(attempt.retry_after))
    return response


def require_pin_form(view: Callable) -> Callable:
    """For form posts: PIN session and the form's CSRF token, else back to the PIN page."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any):
        guard = current_app.extensions["pin"]
        if not guard.is_set:
            return redirect(url_for("auth.set_pin"))
        if not unlocked():
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
            attempt = guard.attempt(header_pin, client())
            if attempt.verdict is Verdict.REFUSED:
                return refused_response(attempt)
            if not attempt:
                return jsonify(error="wrong PIN in X-Table-PIN"), 403
            return view(*args, **kwargs)
        if not unlocked():
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


__all__ = ["PinGuard", "Attempt", "Verdict", "Schedule", "csrf_token", "csrf_ok", "unlocked",
           "unlock_session", "require_pin_form", "require_pin_api", "add_security_headers",
           "safe_next", "PIN_RE", "HASH_METHOD"]
