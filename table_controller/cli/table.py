"""``briscola-table demo`` and ``briscola-table run``: the whole table, live."""

from __future__ import annotations

import argparse
import logging
import math
import queue
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from table_controller.cli.common import N_, _t, _tn, fail, terminal_language
from table_controller.config import default_database
from table_controller.engine.referee import Decision
from table_controller.engine.words import Say

FAULTS = {  # in --help (English) and, translated, in the demo's opening lines
    "out_of_turn": N_("a player plays before their turn, then takes the card back: the "
                      "referee refuses it (NOT YOUR TURN) and the hand goes on"),
    "wrong_zone": N_("a played card is knocked into the next player's zone, then put back: "
                     "no new play, nothing refused"),
    "taken_back": N_("a player lays a card, takes it back, then plays it again: the first "
                     "play is undone"),
    "cover": N_("a hand rests over a played card for a second: the table must not take the "
                "hand for a card, nothing is reported"),
}


STAGED = {  # the moment a fault is staged, as the terminal tells it
    "out_of_turn": N_("{who} plays {card} before their turn"),
    "wrong_zone": N_("{card} is knocked into {who}'s zone, and put back"),
    "taken_back": N_("{who} lays {card} and takes it back"),
    "cover": N_("a hand rests over {who}'s {card}"),
}


DEMO_PAUSE_S = 8.0  # between hands: long enough to read the reveal on a phone


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _t("{value} is not a number of seconds", value=repr(text[:20]))) from None
    if not 0 <= value <= 600:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(_t("{value} is not 0-600 seconds", value=text[:20]))
    return value


def port_number(text: str) -> int:
    """argparse type for a TCP port: 1-65535, or 0 for any free one (scripts and tests
    read the address printed). Anything else is refused, not wrapped round."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _t("{value} is not a port number", value=repr(text[:20]))) from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(_t("port {port} is not 1-65535", port=port))
    return port


def add_network_options(p: argparse.ArgumentParser, host: str | None,
                        port: int | None) -> None:
    """--host/--port/--verbose for a command that serves the dashboard."""
    where = _t("default {host}", host=host) if host \
        else _t("default: the configuration's [dashboard] host")
    p.add_argument("--host", default=host, metavar="ADDRESS",
                   help=_t("address to listen on ({where}; 0.0.0.0 is the table's whole "
                           "network, so phones can join; 127.0.0.1 this machine only)",
                           where=where))
    where = _t("default {port}", port=port) if port \
        else _t("default: the configuration's [dashboard] port")
    p.add_argument("--port", type=port_number, default=port,
                   help=_t("the dashboard's port, 1-65535 ({where}; 0: any free one)",
                           where=where))
    p.add_argument("--verbose", action="store_true",
                   help=_t("also print the dashboard's request log and debugging details"))


def register(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser(
        "demo", help=_t("a simulated match, seen by the real vision pipeline and refereed"),
        description=_t("Plays a whole match with bot players on a simulated table: rendered "
                       "frame by frame, seen by the real vision pipeline, refereed, shown on "
                       "mock LEDs, the firmware emulator's display and the dashboard. Ctrl-C "
                       "stops it (exit status 130)."),
        epilog=_t("faults (--fault): {faults}",
                  faults="; ".join(f"{k}: {_t(v)}" for k, v in FAULTS.items())))
    d.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5, 6),
                   help=_t("2-6 (default 2); 4 play in teams of two, 5 is Briscola chiamata, "
                           "6 teams of three; 5 and 6 on the A2 mat"))
    d.add_argument("--variant", action="append", default=[], dest="variants",
                   choices=("swap7", "swap2"),
                   help=_t("a house rule (repeatable): swap7, the 7 of trump takes the face-up "
                           "card; swap2, the 2 of trump does, before the first trick"))
    d.add_argument("--match", type=int, default=3, choices=(1, 3, 5),
                   help=_t("best of 1, 3 or 5 hands (default 3)"))
    d.add_argument("--names", help=_t("players' names, comma-separated, in order of play"))
    d.add_argument("--seed", type=int, default=None,
                   help=_t("the simulation's seed: the same seed plays the same match"))
    d.add_argument("--fast", action="store_true",
                   help=_t("as fast as possible instead of real time, and exit when the match "
                           "is over"))
    d.add_argument("--headless", action="store_true", help=_t("no dashboard (for scripts)"))
    d.add_argument("--pause", type=_seconds, default=None, metavar="SECONDS",
                   help=_t("between hands, hold the table this long so that the reveal "
                           "can be watched on the phones, counting down (default {seconds}; "
                           "0 with --fast)", seconds=f"{DEMO_PAUSE_S:g}"))
    add_network_options(d, "0.0.0.0", 8000)
    d.add_argument("--fault", action="append", default=[], dest="faults",
                   choices=tuple(FAULTS), metavar="FAULT",
                   help=_t("stage this mishap once per hand (repeatable): {faults}; "
                           "see below", faults=", ".join(FAULTS)))
    d.add_argument("--db", type=Path, help=_t("keep the match in this SQLite file (default: "
                      "a temporary one, removed at the end)"))
    d.add_argument("--reset-store", action="store_true", help=_t(RESET_HELP))
    d.add_argument("--no-emulator", action="store_true", help=_t("do not start the firmware "
                      "emulator"))
    d.add_argument("--quit", action="store_true",
                   help=_t("exit when the match is over (default: keep the dashboard up)"))
    d.set_defaults(handler=demo)

    r = sub.add_parser("run", help=_t("referee a real table: camera, GPIO, board, dashboard"),
                       description=_t("Runs the table described by a TOML configuration "
                                      "(see examples/table.toml). Ctrl-C stops it."))
    r.add_argument("--config", type=Path, help=_t("the table's TOML file (default: all "
                      "defaults)"))
    r.add_argument("--offline", action="store_true",
                   help=_t("no network service at all: LEDs, display and buttons only"))
    add_network_options(r, None, None)
    r.add_argument("--reset-store", action="store_true", help=_t(RESET_HELP))
    r.set_defaults(handler=run)

    b = sub.add_parser(
        "backup", help=_t("copy the table's database to a file, safely while the table plays"),
        description=_t("Copies the table's SQLite store (matches, hands, every event, the "
                       "settings: the PIN's hash included) to OUT with SQLite's online backup "
                       "API, as one self-contained file, checked before it is named OUT. The "
                       "table may keep playing meanwhile. Refuses a damaged store and an OUT "
                       "that exists."))
    b.add_argument("out", type=Path, metavar="OUT.db", help=_t("the new file"))
    b.add_argument("--db", type=Path, help=_t("the store (default: the database of "
                   "--config, or {path})", path=_home(default_database())))
    b.add_argument("--config", type=Path, help=_t("the table's TOML file, for its database"))
    b.set_defaults(handler=backup)


def _home(path: Path) -> str:
    """A path as a person reads it: ~/... under the home folder."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def store_path(config: Any, given: Path | None = None) -> Path:
    """The store's file: ``given`` (--db), else the configuration's, else the user's data
    folder, which is made when missing (an explicit path's folder must exist)."""
    path = given if given is not None else config.database_path
    if given is None and not config.database:
        path.parent.mkdir(parents=True, exist_ok=True)
    return path


RESET_HELP = N_("if the store is damaged (empty, not SQLite, no schema, failing SQLite's "
                "integrity check), rename it and its -wal/-shm to NAME.damaged-DATE and start "
                "a new one; a sound store is never moved, nothing is deleted")


def _store_refused(command: str, exc: Exception | str) -> int:
    return fail(command, exc)


def backup(args: argparse.Namespace) -> int:
    from table_controller.config import ConfigError, load_config
    from table_controller.store import Store, StoreError

    db = args.db
    if db is None:
        try:
            db = load_config(args.config).database_path
        except ConfigError as exc:
            return _store_refused("backup", exc)
    if not db.is_file():
        return _store_refused("backup", _t("no store at {path} (give --db FILE or --config)",
                                           path=db))
    try:
        store = Store(db)  # checks it whole first: a damaged store is not copied
        try:
            got = store.backup(args.out)
        finally:
            store.close()
    except (StoreError, OSError) as exc:
        return _store_refused("backup", exc)
    print(_t("backed up {path} to {out}: {matches}, {hands}, {events}, {size} KiB, "
             "integrity ok", path=db, out=args.out,
             matches=_tn("{n} match", "{n} matches", got["matches"]),
             hands=_tn("{n} hand", "{n} hands", got["hands"]),
             events=_tn("{n} event", "{n} events", got["events"]), size=got["bytes"] // 1024))
    return 0


# -- terminal account -------------------------------------------------------------------


def joined(names: list[str], lang: str = "en") -> str:
    """"Ada", "Ada and Carla", "Ada, Bruno and Carla" (in ``lang``)."""
    from web_dashboard.i18n import joined as joined_in

    return joined_in(lang, names)


class TerminalReport:
    """Prints each trick and hand, with a progress bar for the match.

    Everything the demo and ``run`` print goes through :meth:`say` (log records too, by
    :class:`TerminalLog`), so that nothing is glued to or overwritten by the bar: the bar
    is cleared, the line printed, the bar drawn again below it. People read players'
    names, or P1..Pn; never the referee's 0-based seats.
    """

    def __init__(self, controller: Any, names: list[str], out=None,
                 lang: str | None = None) -> None:
        self.controller = controller
        self.names = names
        self.lang = lang or terminal_language()
        self.out = out = out if out is not None else sys.stdout  # the stdout of now
        self.tty = out.isatty()
        self._bar: str | None = None  # the bar on screen now
        self._lock = threading.RLock()  # the dashboard's threads log too

    def name(self, seat: int) -> str:
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return f"P{seat + 1}"

    def say(self, text: str, err: bool = False) -> None:
        """One line (or a few), on stdout or stderr, never on top of the bar."""
        from firmware_bridge.screen import player_labels

        text = player_labels(text, self.name)
        with self._lock:
            bar, self._bar = self._bar, None
            if bar is not None:
                self.out.write("\r\033[K")
                self.out.flush()
            stream = sys.stderr if err else self.out
            stream.write(text + "\n")
            stream.flush()
            if bar is not None:
                self._draw(bar)

    _print = say  # the name other modules and tests know

    def set_language(self, code: str) -> None:
        """The setup page chose the table's language: the lines from now on are in it
        (until then the terminal speaks its user's, :func:`terminal_language`)."""
        self.lang = code

    def _t(self, msgid: str, **values: object) -> str:
        from web_dashboard.i18n import tr

        return tr(self.lang, msgid, **values)

    def _tn(self, singular: str, plural: str, n: int, **values: object) -> str:
        from web_dashboard.i18n import trn

        return trn(self.lang, singular, plural, n, **values)

    def said(self, text: object) -> str:
        """What another part said (a ``Say``: ``table.notes``), in the lines' language."""
        from web_dashboard.i18n import said

        return said(self.lang, text)

    def card(self, card: Any) -> str:
        """"7c (7 of cups)": the code the table uses and its name in words."""
        from web_dashboard.i18n import card_name

        return f"{card} ({card_name(self.lang, str(card))})"

    def describe(self, event: Any) -> str:
        """An event as a person reads it: "Bruno's 6b", not "1:6b"."""
        kind = getattr(event, "type", None)
        if kind == "play":
            return self._t("{name}'s {card}", name=self.name(event.seat), card=event.card)
        if kind == "trump":
            return self._t("the briscola {card}", card=event.card)
        if kind == "swap":
            return self._t("{name}'s swap ({card} under the stock)",
                           name=self.name(event.seat), card=event.card)
        if kind == "correct":
            return self._t("the correction of {name}'s card to {card}",
                           name=self.name(event.seat), card=event.card)
        if kind == "call":
            return self._t("{name}'s call", name=self.name(event.seat))
        if kind == "hand":
            return self._t("the new hand")
        return str(event)

    def violation(self, v: Any) -> str:
        """A refusal: the referee's kind, then its words with seats as names (English),
        or the phrase the phones read in the terminal's language."""
        from web_dashboard.i18n import SCRIPT_MESSAGES

        hand = self.controller.referee.hand
        turn = getattr(hand, "turn", None) if hand is not None else None
        phrase = SCRIPT_MESSAGES.get(f"msg_{v.kind.value}")
        text = v.message
        if self.lang != "en" and isinstance(phrase, str) and (
                v.card is not None or "{card}" not in phrase) and (
                v.seat is not None or "{name}" not in phrase) and (
                turn is not None or "{turn}" not in phrase):
            text = self._t(phrase, name="" if v.seat is None else self.name(v.seat),
                           card="" if v.card is None else self.card(v.card),
                           turn="" if turn is None else self.name(turn))
        elif self.lang != "en" and isinstance(text, Say):  # the referee's own words
            from web_dashboard.i18n import said

            text = said(self.lang, text.for_people(self.name))
        return f"  ! {v.kind.value}: {text}"

    def note(self, note: Any) -> str:
        if note.seat is not None and note.expected is not None:
            return "  " + self._t("note: {name} deals this hand; by the rotation it was "
                                  "{expected}'s deal", name=self.name(note.seat),
                                  expected=self.name(note.expected))
        return "  " + self._t("note: {message}", message=note.message)

    def __call__(self, d: Decision) -> None:
        ref = self.controller.referee
        hand = ref.hand
        _t = self._t
        if d.violation is not None:
            self.say(self.violation(d.violation))
        elif d.new_hand:
            self.say(_t("Hand {n}: {name} deals", n=len(ref.hands), name=self.name(hand.dealer)))
        elif d.event is not None and d.event.type == "trump":
            self.say("  " + _t("briscola {card}", card=self.card(d.event.card)))
        elif d.event is not None and d.event.type == "call":
            self.say("  " + _t("{name} calls {card} for {points} points: its holder is the "
                               "secret partner", name=self.name(d.event.seat),
                               card=self.card(d.event.card), points=d.event.points))
        elif d.event is not None and d.event.type == "swap":
            self.say("  " + _t("{name} swaps for the face-up card: {card} now lies under the "
                               "stock", name=self.name(d.event.seat), card=d.event.card))
        elif d.undone is not None:
            self.say("  " + _t("undone: {what}", what=self.describe(d.undone)))
        if d.note is not None:
            self.say(self.note(d.note))
        if d.partner is not None:
            self.say("  " + _t("the called card is down: {name} is the partner",
                               name=self.name(d.partner)))
        if d.trick is not None:
            plays = ", ".join(f"{self.name(p.seat)} {p.card}" for p in d.trick.plays)
            self.say("  " + _t("trick {n}: {plays}  -> {name}", n=f"{len(hand.tricks):2d}",
                               plays=plays, name=self.name(d.trick_winner)))
        if d.hand_over and d.result is not None:
            pts = ", ".join(f"{self.name(s)} {p}" for s, p in enumerate(d.result.points))
            winners = [self.name(s) for s in d.result.winners]
            if winners:
                self.say("  " + _t("points: {points}; the hand goes to {names}", points=pts,
                                   names=joined(winners, self.lang)))
            else:
                self.say("  " + _t("points: {points}; a tie: the hand counts for nobody",
                                   points=pts))
            r = d.result
            if r.team_points is not None and r.teams:  # 4 and 6 players, chiamata's sides
                self.say("  " + _t("teams: {teams}", teams=", ".join(
                    f"{joined([self.name(s) for s in team], self.lang)} {p}"
                    for team, p in zip(r.teams, r.team_points, strict=True))))
            m = d.match
            if m is not None:
                won = [f"{self.name(s)} " + self._tn("{n} hand", "{n} hands", w)
                       for s, w in enumerate(m.hands_won)]
                self.say("  " + _t("standing: {hands}", hands=", ".join(won)))
        self.progress()

    def progress(self) -> None:
        if not self.tty:
            return
        ref = self.controller.referee
        hand = ref.hand
        if hand is None:
            return
        done = len(hand.tricks)
        width = 30
        fill = int(width * done / hand.n_tricks)
        standing = ref.standing()
        bar = "#" * fill + "-" * (width - fill)
        text = f"[{bar}] " + self._t("hand {hand}, trick {done}/{total}, hands won {won}",
                                     hand=len(ref.hands), done=done, total=hand.n_tricks,
                                     won="-".join(map(str, standing.hands_won)))
        with self._lock:
            if text != self._bar:
                self._draw(text)

    def status(self, text: str) -> None:
        """A passing line in the bar's place (a countdown): the next one replaces it."""
        with self._lock:
            if self.tty:
                self._draw(text)

    def _draw(self, bar: str) -> None:
        self.out.write("\r\033[K" + bar)
        self.out.flush()
        self._bar = bar

    def end_bar(self) -> None:
        """Leave the bar where it is and go on below it."""
        with self._lock:
            if self._bar is not None:
                self.out.write("\n")
                self.out.flush()
                self._bar = None


class TerminalLog(logging.Handler):
    """Log records (a camera lost, the dashboard's request log with --verbose) printed by
    the terminal account on lines of their own, never glued to the progress bar."""

    def __init__(self, report: TerminalReport, level: int) -> None:
        super().__init__(level)
        self.report = report
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        from table_controller.engine.words import Say

        try:
            # What the table says (a Say) in the lines' language; a library's as it is.
            text = self.report.said(record.msg) if isinstance(record.msg, Say) and \
                not record.args else self.format(record)
            self.report.say(text, err=True)
        except Exception:
            self.handleError(record)


class routed_logs:
    """While in use, log records go to ``report``: warnings and up, and with ``verbose``
    everything, werkzeug's request lines included (which it otherwise prints itself, one
    per page load). Restores the loggers as they were."""

    def __init__(self, report: TerminalReport, verbose: bool) -> None:
        self.handler = TerminalLog(report, logging.DEBUG if verbose else logging.WARNING)
        self.verbose = verbose

    def __enter__(self) -> routed_logs:
        root, web = logging.getLogger(), logging.getLogger("werkzeug")
        self.saved = root.level, web.level
        root.addHandler(self.handler)
        root.setLevel(logging.INFO if self.verbose else logging.WARNING)
        web.setLevel(logging.INFO if self.verbose else logging.WARNING)
        return self

    def __exit__(self, *exc: object) -> None:
        root, web = logging.getLogger(), logging.getLogger("werkzeug")
        root.removeHandler(self.handler)
        root.setLevel(self.saved[0])
        web.setLevel(self.saved[1])


# Black on white, set explicitly: a code drawn in the terminal's own colours is inverted
# on a dark terminal or a light one, and most phones' readers cannot read it inverted.
QR_COLOURS = "\033[30;47m"
QR_RESET = "\033[0m"
QR_QUIET = 4  # modules of light margin all round, as the standard asks
# Two modules a character, top and bottom (1 dark): the dark ones in the foreground.
QR_BLOCKS = {(1, 1): "\u2588", (1, 0): "\u2580", (0, 1): "\u2584", (0, 0): " "}


def terminal_qr_text(url: str) -> str | None:
    """``url``'s QR code as lines of half blocks in explicit colours, with its quiet
    zone, readable on light and dark terminals alike; None without segno."""
    try:
        import segno
    except ImportError:
        return None
    rows = [list(r) for r in segno.make(url, error="l").matrix_iter(scale=1, border=QR_QUIET)]
    if len(rows) % 2:
        rows.append([0] * len(rows[0]))  # one more light row: the quiet zone only grows
    return "".join(QR_COLOURS + "".join(QR_BLOCKS[pair] for pair in zip(top, bottom,
                                                                         strict=True))
                   + QR_RESET + "\n" for top, bottom in zip(rows[::2], rows[1::2], strict=True))


def _terminal_qr(url: str, out=None) -> None:
    text = terminal_qr_text(url)
    if text is not None:
        stream = out if out is not None else sys.stdout
        stream.write(text)
        stream.flush()


def _for_phones(url: str, lang: str = "en") -> str:
    """The dashboard's address, and who can open it (in ``lang``)."""
    from urllib.parse import urlsplit

    from web_dashboard.i18n import tr

    if urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1"):
        return tr(lang, "{url} (this machine only: --host 0.0.0.0 lets phones join)", url=url)
    return tr(lang, "{url} (phones on this network: scan the code)", url=url)


def _stop_on_signals(stop: threading.Event) -> None:
    """Ctrl-C (and systemd's stop) end the match cleanly: the loop sees ``stop``, and
    ``stop.by`` says which (a service stopped by SIGTERM was not Ctrl-C'd)."""
    def stopped(signum: int, _frame: object) -> None:
        stop.by = "ctrl-c" if signum == signal.SIGINT else "signal"  # type: ignore[attr-defined]
        stop.set()

    signal.signal(signal.SIGINT, stopped)
    signal.signal(signal.SIGTERM, stopped)


# -- demo ---------------------------------------------------------------------------------


def _rendered(sim: Any, stop: threading.Event, depth: int = 8):
    """Frames rendered on a thread of their own, so that drawing the simulated table and
    seeing it overlap (OpenCV releases the GIL)."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    done = object()
    ended = threading.Event()  # the consumer is gone (a stop, or the match is over)

    def put(item: object) -> bool:
        while not (stop.is_set() or ended.is_set()):
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for spec, img in sim.frames():
                if stop.is_set() or ended.is_set() or not put((spec, img)):
                    break
        finally:
            put(done)

    thread = threading.Thread(target=produce, name="simulator", daemon=True)
    thread.start()
    try:
        while True:
            try:
                item = q.get(timeout=0.1)
            except queue.Empty:
                if thread.is_alive():
                    continue
                return  # stopped: the drawing ended without a last frame to hand over
            if item is done:
                return
            yield item
    finally:
        # The drawing ends before the interpreter does: a thread still inside OpenCV at
        # exit can abort the process ("terminate called without an active exception").
        ended.set()
        thread.join(timeout=10)


def demo(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.names.split(",")] if args.names else \
        ["Ada", "Bruno", "Carla", "Dario", "Elena", "Fabio"][:args.players]
    if len(names) != args.players or not all(names):
        return fail("demo", _tn("--names gives {n} name for {players} players",
                                "--names gives {n} names for {players} players",
                                len([n for n in names if n]), players=args.players))
    if args.players == 5 and args.variants:
        return fail("demo", _t("Briscola chiamata (5 players) has no face-up card to swap: "
                               "no --variant"))
    # The display's PNG and the match's store live here for the demo's time only.
    with tempfile.TemporaryDirectory(prefix="briscola-demo-") as workdir:
        return _demo(args, names, Path(workdir))


def _demo(args: argparse.Namespace, names: list[str], workdir: Path) -> int:
    import random

    from firmware_bridge.gpio import make_pin_factory
    from table_controller.app import build_table, paced
    from table_controller.config import Config, DashboardConfig, TableConfig
    from table_controller.engine.rules import Variant
    from table_controller.store import StoreError
    from vision.simtable import SimOptions, SimulatedTable

    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    config = Config(table=TableConfig(players=args.players, names=tuple(names),
                                      variants=frozenset(Variant(v) for v in args.variants),
                                      match=args.match,
                                      first_dealer=random.Random(seed).randrange(args.players)),
                    dashboard=DashboardConfig(host=args.host, port=args.port))
    db = args.db or workdir / "demo.sqlite3"
    size = (1280, 720)
    sim = SimulatedTable(SimOptions(players=args.players, variants=tuple(args.variants),
                                    match=args.match, seed=seed,
                                    pace="fast" if args.fast else "real", size=size,
                                    faults=tuple(args.faults),
                                    first_dealer=config.table.first_dealer))
    stop = threading.Event()
    _stop_on_signals(stop)
    try:
        table = build_table(config, db_path=db, dashboard=not args.headless,
                            layout=sim.layout, emulator=not args.no_emulator,
                            display_png=workdir / "display.png", resume=False,
                            pin_factory=make_pin_factory("mock"),
                            reset_store=args.reset_store, next_free_port=True)
    except StoreError as exc:
        return _store_refused("demo", exc)
    controller = table.controller
    report = TerminalReport(controller, names)
    controller.listeners.append(report)
    table.on_language.append(report.set_language)
    try:
        with routed_logs(report, args.verbose):
            return _play_demo(args, sim, table, report, names, seed, workdir, stop, paced)
    finally:
        table.close()


def _play_demo(args: argparse.Namespace, sim: Any, table: Any, report: TerminalReport,
               names: list[str], seed: int, workdir: Path, stop: threading.Event,
               paced: Any) -> int:
    controller = table.controller
    _t = report._t  # the terminal's language, and the setup page's once one is chosen
    opening = report._tn("briscola-table demo: {n} player, best of {match}, seed {seed}",
                         "briscola-table demo: {n} players, best of {match}, seed {seed}",
                         args.players, match=args.match, seed=seed)
    if args.variants:
        opening += _t(", variants {variants}", variants=" ".join(args.variants))
    print(opening)
    for fault in dict.fromkeys(args.faults):
        print("  " + _t("staged once per hand, {fault}: {what}", fault=fault,
                        what=_t(FAULTS[fault])))
    for note in table.notes:
        print(f"  {report.said(note)}")
    print("  " + _t("the table's display is drawn to {path} (removed at the end)",
                    path=workdir / "display.png"))
    if table.url:
        print("  " + _t("dashboard: {where}", where=_for_phones(table.url, report.lang)))
        if sys.stdout.isatty():  # a code to scan, not colour codes in a log or a file
            _terminal_qr(table.url)
    referee = controller.referee
    controller.submit({"type": "hand", "players": args.players,
                       "dealer": referee.first_dealer, "variants": sorted(args.variants)})
    pause = args.pause if args.pause is not None else (0.0 if args.fast else DEMO_PAUSE_S)
    between = BetweenHands(report, pause, stop, hub=table.hub)
    controller.listeners.append(between)
    t0 = time.monotonic()
    frames = _answering(_rendered(sim, stop), sim, controller, report, names)
    controller.run(paced(frames, 30.0, realtime=not args.fast, stop=stop, hold=between.hold),
                   stop=stop)
    elapsed = time.monotonic() - t0
    report.end_bar()
    if stop.is_set():
        return _stopped(controller, names, report, getattr(stop, "by", "ctrl-c"))
    ok = _final_account(controller, sim, names, elapsed, report)
    if table.url and not args.quit and not args.fast:
        print(report._t("The match is over; the dashboard stays at {url} (Ctrl-C to quit).",
                        url=table.url))
        while not stop.wait(0.5):
            controller.run_commands()
    return 0 if ok else 1


class BetweenHands:
    """The demo's pause after a hand that leaves the match open: the table is held still
    (the reveal stays on the phones and the display until the next hand starts), with a
    countdown on the terminal and the phones (``hub``: the dashboard's, if any)."""

    def __init__(self, report: TerminalReport, seconds: float, stop: threading.Event,
                 hub: Any = None) -> None:
        self.report, self.seconds, self.stop, self.hub = report, seconds, stop, hub
        self.pending = False

    def __call__(self, d: Decision) -> None:
        if d.hand_over and d.match is not None and d.match.winner is None:
            self.pending = self.seconds > 0

    def hold(self) -> float:
        """Called before each frame: counts the pause down once after such a hand."""
        if not self.pending:
            return 0.0
        self.pending = False
        t0 = time.monotonic()
        end = t0 + self.seconds
        report = self.report
        if not report.tty:
            report.say("  " + report._t("next hand in {s} s", s=f"{self.seconds:g}"))
        while (left := end - time.monotonic()) > 0:
            if self.hub is not None:
                self.hub.set_pause(left)
            if report.tty:
                report.status(report._tn(
                    "next hand in {n} s: the reveal is on the phones (Ctrl-C stops)",
                    "next hand in {n} s: the reveal is on the phones (Ctrl-C stops)",
                    math.ceil(left)))
            if self.stop.wait(min(1.0, left - math.floor(left) or 1.0)):
                break
            run_commands = getattr(self.report.controller, "run_commands", None)
            if run_commands is not None:  # the phones' commands are answered meanwhile
                run_commands()
        if self.hub is not None:
            self.hub.set_pause(None)  # the reveal stays until the next hand's event
        return time.monotonic() - t0


def _stopped(controller: Any, names: list[str], report: TerminalReport,
             by: str = "ctrl-c") -> int:
    """Ctrl-C (or a stop signal) mid-match: say where it stopped; the match is not judged
    against the simulator's (it was not finished)."""
    ref = controller.referee
    hand = ref.hand
    where = report._t("before the first hand") if hand is None else report._tn(
        "in hand {hand} after {n} trick", "in hand {hand} after {n} tricks", len(hand.tricks),
        hand=len(ref.hands))
    won = ", ".join(f"{names[s]} {w}" for s, w in enumerate(ref.standing().hands_won))
    how = report._t("The match was stopped (Ctrl-C) {where}; hands won: {won}.") \
        if by == "ctrl-c" else report._t("The match was stopped {where}; hands won: {won}.")
    print(how.format(where=where, won=won), flush=True)
    return 130


DEMO_ANSWER_FRAMES = 5  # a player at the phone names a held card this many frames later


def _answering(rendered, sim: Any, controller: Any, report: Any, names: list[str]):
    """The demo's frames, with a player at the phone who names each card the table holds
    (one it could not recognise) as it really is, as a person at the table would. Each
    staged fault is announced as it happens."""
    since: dict[str, int] = {}
    staged = getattr(sim, "faults_staged", [])
    told = 0
    for spec, img in rendered:
        while told < len(staged):
            f = staged[told]
            told += 1
            report.say("  " + report._t("(staged: {what})", what=report._t(
                STAGED[str(f.fault)], who=report.name(f.seat), card=f.card)))
        holds = getattr(controller.tracker, "holds", None) or {}
        for zone in [z for z in since if z not in holds]:
            del since[zone]
        for zone, hold in list(holds.items()):
            since[zone] = since.get(zone, 0) + 1
            if since[zone] != DEMO_ANSWER_FRAMES:
                continue
            truth = sim.truth_observation(spec).zones.get(zone)
            if truth is None or truth.content in (None, "back"):
                continue
            if hold.seat is None:
                said = report._t("the briscola was not recognised: named on the phone as "
                                 "{card}", card=truth.content)
            else:
                said = report._t("{name}'s card was not recognised: named on the phone as "
                                 "{card}", name=names[hold.seat], card=truth.content)
            report.say("  ? " + said)
            controller.command("pick", {"zone": zone, "card": truth.content})
        for event in spec.spoken:
            # What the camera cannot see is entered on the phone: with no stock the next
            # hand (NEW HAND), and chiamata's spoken auction (caller, called card, bid).
            if event["type"] == "hand":
                controller.command("new_hand")
            elif event["type"] == "call":
                report.say("  " + report._t(
                    "the auction, entered on the phone: {name} calls {card} for {points}",
                    name=names[event["seat"]], card=event["card"], points=event["points"]))
                controller.command("call", {k: event[k] for k in ("seat", "card", "points")})
        yield spec.t, img


def _final_account(controller: Any, sim: Any, names: list[str], elapsed: float,
                   report: TerminalReport) -> bool:
    ref = controller.referee
    standing = ref.standing()
    stats = controller.stats
    print(report._tn(
        "Match over in {s} s ({n} frame, {fps} frames/s): hands won {won}",
        "Match over in {s} s ({n} frames, {fps} frames/s): hands won {won}", stats.frames,
        s=f"{elapsed:.1f}", fps=f"{stats.frames / max(elapsed, 1e-6):.0f}",
        won=", ".join(f"{names[s]} {w}" for s, w in enumerate(standing.hands_won))))
    if standing.winner is not None:
        print(report._t("The match goes to {names}.", names=joined(
            [names[s] for s in standing.winners], report.lang)))
    agree = [h.points == bot.points for h, bot in zip(ref.hands, sim.hands, strict=False)]
    ok = len(ref.hands) == len(sim.hands) and all(agree)
    print(report._tn(
        "The referee agrees with the simulator's ground truth ({agree} of {n} hand).",
        "The referee agrees with the simulator's ground truth ({agree} of {n} hands).",
        len(sim.hands), agree=sum(agree)) if ok else report._tn(
        "The referee DISAGREES with the simulator's ground truth ({agree} of {n} hand).",
        "The referee DISAGREES with the simulator's ground truth ({agree} of {n} hands).",
        len(sim.hands), agree=sum(agree)))
    return ok


# -- run ----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from table_controller.app import build_table, camera_frames
    from table_controller.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        return fail("run", exc)
    if args.host is not None or args.port is not None:
        d = config.dashboard
        config = replace(config, dashboard=replace(
            d, host=args.host if args.host is not None else d.host,
            port=args.port if args.port is not None else d.port))
    from table_controller.store import StoreError

    stop = threading.Event()
    _stop_on_signals(stop)  # from the start: a Ctrl-C while it starts still closes it
    try:
        db = store_path(config)
        table = build_table(config, db_path=db,
                            dashboard=config.dashboard.enabled and not args.offline,
                            reset_store=args.reset_store)
    except (StoreError, OSError) as exc:
        return _store_refused("run", exc)
    controller = table.controller
    report = TerminalReport(controller, [
        config.table.name(s) for s in range(config.table.players)])
    controller.listeners.append(report)
    table.on_language.append(report.set_language)
    print(report._t("store: {path}", path=db))
    for note in table.notes:
        print(report.said(note))
    if table.url:
        print(report._t("dashboard: {where}", where=_for_phones(table.url, report.lang)))
        if sys.stdout.isatty():  # not into the service's journal
            _terminal_qr(table.url)
    if controller.referee.hand is None:
        referee = controller.referee
        controller.submit({"type": "hand", "players": config.table.players,
                           "dealer": referee.first_dealer,
                           "variants": sorted(v.value for v in config.table.variants)})
    source = config.camera.source
    where = str(args.config) if args.config else _t("a configuration file (--config)")
    hint = _t("check its cable, or set [camera] source in {where} (a camera index, a video "
              "file, an image folder or \"simulator\"); Ctrl-C stops", where=where)
    try:
        with routed_logs(report, args.verbose):
            if source == "simulator":
                from table_controller.app import paced
                from vision.simtable import SimulatedTable

                sim = SimulatedTable(players=config.table.players,
                                     variants=tuple(v.value for v in config.table.variants),
                                     match=config.table.match,
                                     first_dealer=controller.referee.first_dealer)
                frames = ((spec.t, img) for spec, img in sim.frames())
                frames = paced(frames, 30.0, True, stop)
            else:
                frames = camera_frames(source, config.camera.fps, stop, hint=hint)
            controller.run(frames, stop)
            report.end_bar()
    except Exception as exc:  # a camera that was never there: say so
        from vision.sources import SourceError

        if not isinstance(exc, SourceError):
            raise
        return fail("run", _t("[camera] source: {problem}", problem=exc))
    finally:
        table.close()
    if stop.is_set():
        print(report._t("stopped: everything is stored; the hand goes on where it was at "
                        "the next start"), flush=True)
        return 130
    return 0
