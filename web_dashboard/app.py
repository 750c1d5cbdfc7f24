"""The dashboard's app factory.

``create_app(config, hub, store)`` builds the Flask app. With a ``hub`` from the
controller the app only reads the hub and sends it commands; without one it
makes its own hub and a :class:`~web_dashboard.session.TableSession` that owns
a referee, so the dashboard also works alone.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from pathlib import Path
from typing import Any

from flask import Flask, g, jsonify, render_template, request
from werkzeug.routing import IntegerConverter

from table_controller.store import Store, StoreDamaged
from web_dashboard import i18n
from web_dashboard.i18n import _, seat_name
from web_dashboard.live import LiveTable
from web_dashboard.security import PinGuard, add_security_headers, csrf_token, unlocked

DEFAULTS: dict[str, Any] = {
    "DATABASE": None,  # default: <instance>/briscola.sqlite3
    # The table's language while the setup page has chosen none (the configuration's
    # [table] language when the table starts the dashboard).
    "LANGUAGE": i18n.DEFAULT,
    "DECKS_DIR": None,  # enrolled decks: DECKS_DIR/<name>/<code>.png
    # The dashboard's address for the page and the QR code. Without it the LAN address
    # and the listening port; the request's Host header only when it is one of
    # TRUSTED_HOSTS (Flask checks it), since anyone can send any Host.
    "PUBLIC_URL": None,
    "TRUSTED_HOSTS": None,
    # Served behind this many reverse proxies (e.g. 1 for Caddy or nginx doing TLS):
    # the client address and scheme are then taken from their X-Forwarded-For and
    # X-Forwarded-Proto headers (werkzeug's ProxyFix), never from a direct client.
    "PROXY_HOPS": 0,
    # Secure cookies (sent over HTTPS only); None: when PUBLIC_URL is https://.
    "SESSION_COOKIE_SECURE": None,
    "SSE_KEEPALIVE": 15.0,  # seconds between pings on an idle stream
    "SSE_MAX_SECONDS": 1800.0,  # then the stream ends and the browser reconnects
    "SSE_MAX_CLIENTS": 100,  # open streams at once (each holds a server thread)
    "SSE_MAX_PER_CLIENT": 4,  # open streams at once from one address (then 429)
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
    "PERMANENT_SESSION_LIFETIME": 12 * 3600,  # a PIN unlock lasts an evening
    "MAX_CONTENT_LENGTH": 64 * 1024,
}


class RowId(IntegerConverter):
    """``<id:name>``: a non-negative integer that fits SQLite (larger ones are a 404)."""

    def __init__(self, map, *args, **kwargs) -> None:  # noqa: A002 (werkzeug's name)
        kwargs.setdefault("max", 2**63 - 1)
        super().__init__(map, *args, **kwargs)


def people(text: str, names: list[str]) -> str:
    """A referee's message (its seats count from 0) as people read it: names, else P1..Pn."""
    from table_controller.engine.seats import player_labels

    return player_labels(text, lambda seat: seat_name(names, seat))


def create_app(config: dict[str, Any] | None = None, hub: LiveTable | None = None,
               store: Store | None = None) -> Flask:
    app = Flask("web_dashboard", instance_relative_config=False)
    app.config.from_mapping(DEFAULTS)
    app.config.from_prefixed_env("BRISCOLA")  # e.g. BRISCOLA_PUBLIC_URL for a systemd unit
    if config:
        app.config.from_mapping(config)
    if app.config["SESSION_COOKIE_SECURE"] is None:
        app.config["SESSION_COOKIE_SECURE"] = str(
            app.config["PUBLIC_URL"] or "").lower().startswith("https://")
    hops = int(app.config["PROXY_HOPS"] or 0)
    if hops > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    app.url_map.converters["id"] = RowId
    if store is None:
        db = app.config["DATABASE"]
        if db is None:
            os.makedirs(app.instance_path, exist_ok=True)
            db = str(Path(app.instance_path) / "briscola.sqlite3")
        store = Store(db)
    if not app.config.get("SECRET_KEY"):
        # Generated at first start and kept, so PIN sessions survive a restart.
        key = store.get_setting("secret_key")
        if key is None:
            key = secrets.token_hex(32)
            store.set_setting("secret_key", key)
        app.config["SECRET_KEY"] = key

    session = None
    if hub is None:
        from web_dashboard.session import TableSession
        hub = LiveTable()
        session = TableSession(store, hub)
        hub.executor = session
    app.extensions["briscola"] = {"store": store, "hub": hub, "session": session,
                                  "enroll": None}  # a guided enrollment: web_dashboard.enroll
    app.extensions["pin"] = PinGuard(store)

    i18n.init_flask(app, lambda: i18n.table_language(app))

    @app.context_processor
    def _template_helpers() -> dict[str, Any]:
        return {**i18n.template_helpers(g.get("lang", i18n.DEFAULT)), "people": people,
                "csrf_token": csrf_token, "unlocked": unlocked(),
                "pin_set": app.extensions["pin"].is_set}

    app.after_request(add_security_headers)

    from web_dashboard import api, auth, cards, enroll, history, players, setup, stream, table
    for module in (table, history, setup, auth, api, stream, cards, enroll, players):
        app.register_blueprint(module.bp)

    @app.errorhandler(404)
    def _not_found(exc):
        if request.path.startswith("/api/"):
            return jsonify(error=f"no such resource: {request.path}"), 404
        return render_template("error.html", message=_("Page not found.")), 404

    @app.errorhandler(405)
    def _bad_method(exc):
        if request.path.startswith("/api/"):
            return jsonify(error=f"{request.method} is not allowed on {request.path}"), 405
        return exc

    @app.errorhandler(413)
    def _too_large(exc):
        return jsonify(error="request body too large"), 413

    @app.errorhandler(StoreDamaged)
    @app.errorhandler(sqlite3.DatabaseError)
    def _store_damaged(exc):
        # A page touching a row damaged while the table runs: say so, never a 500.
        app.logger.error("store damaged: %s", exc)
        if request.path.startswith("/api/"):
            return jsonify(error="the table's store is damaged: restart the table"), 503
        return render_template("error.html", message=_(
            "The table's store is damaged: restart the table.")), 503

    return app


def hub_of(app: Flask) -> LiveTable:
    return app.extensions["briscola"]["hub"]


def store_of(app: Flask) -> Store:
    return app.extensions["briscola"]["store"]


__all__ = ["create_app", "hub_of", "store_of"]
