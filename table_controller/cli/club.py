"""``briscola-table club``: the club's view of its tables, served on the club's network.

Either ``--config club.toml`` with a ``[club]`` section (``broker``, ``club``, and the
reader's ``username`` and ``password``/``password_file``; ``table`` is not needed), or
the same as options. The view subscribes in the background: a broker that is down is
said once on the terminal, and the page fills in when it comes back.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

from table_controller.cli.common import _t, fail


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "club", help=_t("the club's view: every table live, the finished hands, the ranking"),
        description=_t("Subscribe to the club's MQTT broker and serve the club's view: a grid "
                       "of the tables live, the finished hands and the club-wide ranking."))
    from table_controller.cli.table import add_network_options

    add_network_options(p, "0.0.0.0", 8100)
    p.add_argument("--config", type=Path, metavar="TOML",
                   help=_t("a file with a [club] section (broker, club, username, password or "
                           "password_file)"))
    p.add_argument("--broker", metavar="HOST[:PORT]", help=_t("the club's MQTT broker"))
    p.add_argument("--club", metavar="NAME", help=_t("the club's name in the topics"))
    p.add_argument("--username", metavar="USER", help=_t("the broker's reader user"))
    p.add_argument("--password-file", type=Path, metavar="FILE",
                   help=_t("the reader's password (or BRISCOLA_CLUB_PASSWORD)"))
    p.add_argument("--db", type=Path, metavar="FILE",
                   help=_t("keep the finished hands in this SQLite file (default: in memory, "
                           "the broker's persistent session keeps what arrives while the view "
                           "is down)"))
    p.set_defaults(handler=run)


def _settings(args: argparse.Namespace) -> dict:
    """broker, club, username, password from --config, then the options; ValueError
    naming the key or option when one is bad."""
    from table_controller.config import TOPIC_NAME, parse_broker

    out: dict = {"broker": None, "club": None, "username": None, "password": None}
    if args.config is not None:
        import tomllib

        try:
            data = tomllib.loads(args.config.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(_t("{path}: no such configuration file",
                                path=args.config)) from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ValueError(_t("{path}: cannot read: {problem}", path=args.config,
                                problem=exc)) from None
        section = data.get("club")
        if not isinstance(section, dict):
            raise ValueError(_t("{path}: no [club] section", path=args.config))
        for key, value in section.items():
            if key not in ("broker", "club", "table", "username", "password",
                           "password_file"):
                raise ValueError(_t("{path}: [club] {key}: unknown key (misspelt?)",
                                    path=args.config, key=key))
            if not isinstance(value, str):
                raise ValueError(_t("{path}: [club] {key}: expected a string, got {value}",
                                    path=args.config, key=key, value=repr(value)))
        if "password_file" in section:
            try:
                section["password"] = Path(section["password_file"]).read_text(
                    encoding="utf-8").strip()
            except OSError as exc:
                raise ValueError(_t("{path}: [club] password_file: cannot read {file}: "
                                    "{problem}", path=args.config,
                                    file=section["password_file"],
                                    problem=exc.strerror)) from None
        out.update({k: section.get(k) for k in out if section.get(k) is not None})
        where = f"{args.config}: [club] "
    else:
        where = ""
    for key in ("broker", "club", "username"):
        if getattr(args, key) is not None:
            out[key] = getattr(args, key)
    if args.password_file is not None:
        try:
            out["password"] = args.password_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ValueError(_t("--password-file: cannot read {file}: {problem}",
                                file=args.password_file, problem=exc.strerror)) from None
    elif out["password"] is None and os.environ.get("BRISCOLA_CLUB_PASSWORD"):
        out["password"] = os.environ["BRISCOLA_CLUB_PASSWORD"]
    for key in ("broker", "club"):
        if not out[key]:
            raise ValueError(_t("--{key} (or {key} in a --config file's [club]) is required",
                                key=key))
    name = "--broker" if args.broker is not None else f"{where}broker"
    try:
        out["host"], out["port"] = parse_broker(out["broker"])
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    if not TOPIC_NAME.fullmatch(out["club"]):
        name = "--club" if args.club is not None else f"{where}club"
        raise ValueError(_t("{name}: expected 1 to 32 letters, digits, - or _, got {value}",
                            name=name, value=repr(out["club"][:40])))
    return out


def run(args: argparse.Namespace) -> int:
    import logging

    try:
        settings = _settings(args)
    except ValueError as exc:
        return fail("club", exc)
    from web_dashboard.listen import ListenError, listen

    try:
        sock, _ = listen(args.host, args.port)
    except ListenError as exc:
        return fail("club", exc)
    logging.getLogger("werkzeug").setLevel(logging.INFO if args.verbose else logging.WARNING)
    from table_controller.club.view import ClubFeed
    from web_dashboard.club import create_club_app
    from web_dashboard.listen import make_server_on
    from web_dashboard.qr import phone_url

    feed = ClubFeed(settings["host"], settings["port"], settings["club"],
                    username=settings["username"], password=settings["password"],
                    db=str(args.db) if args.db else ":memory:").start()
    app = create_club_app(feed, {"CLUB_NAME": settings["club"]})
    server = make_server_on(sock, app)
    threading.Thread(target=server.serve_forever, name="club-view", daemon=True).start()
    print(f"club {settings['club']}: {phone_url(args.host, server.server_port)} "
          f"(broker {settings['host']}:{settings['port']})", flush=True)
    said = None
    try:
        while True:
            time.sleep(1.0)
            now = "connected" if feed.connected.is_set() else (feed.refused or "waiting")
            if now != said:
                if now != "connected" or said is not None:
                    print(f"briscola-table club: broker {settings['host']}:{settings['port']}:"
                          f" {now}", file=sys.stderr, flush=True)
                said = now
    finally:
        server.shutdown()
        feed.close()
