"""``briscola-table dashboard``: serve the phones' dashboard on the table's network."""

from __future__ import annotations

import argparse
import getpass
import signal
import sys
from pathlib import Path

from table_controller.cli.common import _t, fail, said


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "dashboard", help=_t("serve the phone dashboard (live table, reveal, history, setup)"),
        description=_t("Serve the phones' dashboard. Without a controller attached it runs its "
                       "own referee, so matches can be entered by hand from a phone."))
    from table_controller.cli.table import _home, add_network_options
    from table_controller.config import default_database

    add_network_options(p, "0.0.0.0", 8000)
    p.add_argument("--db", type=Path,
                   help=_t("the table's SQLite database (default {path})",
                           path=_home(default_database())))
    p.add_argument("--decks", type=Path, metavar="DIR",
                   help=_t("enrolled decks: DIR/<name>/<code>.png"))
    p.add_argument("--public-url", help=_t("the address in the QR code (default: found)"))
    p.add_argument("--cert", type=Path, metavar="PEM",
                   help=_t("serve HTTPS with this certificate (with --key); cookies are then "
                           "Secure"))
    p.add_argument("--key", type=Path, metavar="PEM", help=_t("the certificate's private key"))
    p.add_argument("--proxy-hops", type=int, default=0, metavar="N",
                   help=_t("behind N reverse proxies (e.g. 1 for Caddy or nginx doing TLS): take "
                           "the client's address and scheme from X-Forwarded-For/-Proto"))
    p.add_argument("--no-mdns", action="store_true",
                   help=_t("do not announce briscola.local on the network"))
    p.add_argument("--demo", type=float, metavar="SECONDS",
                   help=_t("play simulated hands, one event every SECONDS (no camera needed)"))
    p.add_argument("--set-pin", action="store_true",
                   help=_t("set the table's PIN (asked on the terminal) and exit"))
    p.add_argument("--reset-store", action="store_true",
                   help=_t("if the database is damaged, rename it (and its -wal/-shm) to "
                           "NAME.damaged-DATE and start a new one; a sound one is never moved"))
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import logging

    from table_controller.cli.table import store_path
    from table_controller.config import Config
    from table_controller.store import StoreDamaged, StoreError, open_store

    # werkzeug prints a line per request unless its logger says otherwise.
    logging.getLogger("werkzeug").setLevel(logging.INFO if args.verbose else logging.WARNING)
    sock = None
    if not args.set_pin:  # the port first: when it is taken, no file is opened or made
        from web_dashboard.listen import ListenError, listen

        try:
            sock, _ = listen(args.host, args.port)
        except ListenError as exc:
            return fail("dashboard", exc)
    if args.db is None:
        args.db = store_path(Config())  # the user's data folder, made when missing
    try:
        store = open_store(args.db, reset_damaged=args.reset_store)
    except StoreDamaged as exc:
        return fail("dashboard", exc)
    except (StoreError, OSError) as exc:
        return fail("dashboard", _t("cannot open {path}: {problem}", path=args.db,
                                    problem=exc))
    if args.set_pin:
        try:
            return _set_pin(store)
        finally:
            store.close()
    from web_dashboard import create_app, hub_of
    from web_dashboard.announce import Announcer
    from web_dashboard.listen import make_server_on
    from web_dashboard.qr import ANY_ADDRESS, lan_address, phone_url

    if (args.cert is None) != (args.key is None):
        store.close()
        return fail("dashboard", _t("--cert and --key go together"))
    ssl_context = None
    if args.cert:
        import ssl
        ssl_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            ssl_context.load_cert_chain(args.cert, args.key)
        except (OSError, ssl.SSLError) as exc:
            store.close()
            return fail("dashboard", _t("cannot use {cert} / {key}: {problem}",
                                        cert=args.cert, key=args.key, problem=exc))
    config: dict = {"DATABASE": str(args.db), "PROXY_HOPS": max(0, args.proxy_hops)}
    if args.cert:
        config["SESSION_COOKIE_SECURE"] = True
    if args.decks:
        config["DECKS_DIR"] = str(args.decks)
    announcer = None
    address = lan_address() if args.host in ANY_ADDRESS else None  # else: only that host
    if args.public_url:
        config["PUBLIC_URL"] = args.public_url
    elif not args.no_mdns and args.host not in ("127.0.0.1", "localhost") and address:
        announcer = Announcer(args.port, address)
        if announcer.start():
            config["PUBLIC_URL"] = announcer.url
        else:
            announcer = None
    try:
        app = create_app(config, store=store)  # resumes the match in progress
    except StoreError as exc:
        store.close()
        return fail("dashboard", exc)
    for note in store.notes:  # a damaged file set aside, replayed verdicts that changed
        print(f"briscola-table dashboard: {said(note)}", file=sys.stderr, flush=True)
    if args.demo:
        from web_dashboard.demo import run_demo
        run_demo(app.extensions["briscola"]["session"], args.demo)
    server = make_server_on(sock, app, ssl_context=ssl_context)
    port = server.server_port
    scheme = "https" if ssl_context else "http"
    shown = config.get("PUBLIC_URL") or phone_url(args.host, port, scheme)
    if not app.config.get("TRUSTED_HOSTS"):  # else the page follows the Host it was sent
        app.config["PUBLIC_URL"] = shown  # the page's QR code shows the same address
    print(_t("briscola-table dashboard on {url} (Ctrl-C to stop); store: {path}", url=shown,
             path=args.db), flush=True)
    if not app.extensions["pin"].is_set:
        print(_t("no PIN yet: open the dashboard and set it on the setup page, or run "
                 "'briscola-table dashboard --set-pin'"), flush=True)
    if sys.stdout.isatty():  # the code the phones scan, as the demo shows it (not in logs)
        from table_controller.cli.table import _terminal_qr

        _terminal_qr(shown)
    def _stop(*_):  # a service stop (SIGTERM) closes the store as Ctrl-C does
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        hub_of(app).close()
        server.server_close()
        if announcer:
            announcer.close()
        store.close()  # checkpoints the WAL into the main file
    return 0


def _set_pin(store) -> int:
    from web_dashboard.security import PinGuard

    pin = getpass.getpass(_t("New table PIN (4-12 digits): "))
    if pin != getpass.getpass(_t("Repeat it: ")):
        return fail("dashboard", _t("the two PINs differ"))
    try:
        PinGuard(store).set(pin)
    except ValueError as exc:
        return fail("dashboard", exc)
    print(_t("PIN saved"))
    return 0
