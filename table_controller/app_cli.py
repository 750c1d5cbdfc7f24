"""``briscola-table demo`` and ``briscola-table run``: the whole table, live."""

from __future__ import annotations

import argparse
import queue
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from table_controller.referee import Decision


def register(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser(
        "demo", help="a simulated match, seen by the real vision pipeline and refereed",
        description="Plays a whole match with bot players on a simulated table: rendered "
                    "frame by frame, seen by the real vision pipeline, refereed, shown on "
                    "mock LEDs, the firmware emulator's display and the dashboard.")
    d.add_argument("--players", type=int, default=2, choices=(2, 3, 4, 5, 6),
                   help="2-6 (default 2); 5 is Briscola chiamata, 6 teams of three; both "
                        "on the A2 mat")
    d.add_argument("--variant", action="append", default=[], dest="variants",
                   choices=("swap7", "swap2"))
    d.add_argument("--match", type=int, default=3, choices=(1, 3, 5),
                   help="best of 1, 3 or 5 hands (default 3)")
    d.add_argument("--names", help="players' names, comma-separated")
    d.add_argument("--seed", type=int, default=None, help="the simulation's seed")
    d.add_argument("--fast", action="store_true",
                   help="as fast as possible instead of real time")
    d.add_argument("--headless", action="store_true", help="no dashboard (for scripts)")
    d.add_argument("--port", type=int, default=8000, help="dashboard port (default 8000)")
    d.add_argument("--fault", action="append", default=[], dest="faults",
                   choices=("out_of_turn", "wrong_zone", "taken_back", "cover"),
                   help="stage this mishap once per hand")
    d.add_argument("--db", type=Path, help="keep the match in this SQLite file")
    d.add_argument("--reset-store", action="store_true", help=RESET_HELP)
    d.add_argument("--no-emulator", action="store_true", help="do not start the firmware "
                   "emulator")
    d.add_argument("--quit", action="store_true",
                   help="exit when the match is over (default: keep the dashboard up)")
    d.set_defaults(handler=demo)

    r = sub.add_parser("run", help="referee a real table: camera, GPIO, board, dashboard",
                       description="Runs the table described by a TOML configuration.")
    r.add_argument("--config", type=Path, help="the table's TOML file (default: all "
                   "defaults)")
    r.add_argument("--offline", action="store_true",
                   help="no network service at all: LEDs, display and buttons only")
    r.add_argument("--reset-store", action="store_true", help=RESET_HELP)
    r.set_defaults(handler=run)

    b = sub.add_parser(
        "backup", help="copy the table's database to a file, safely while the table plays",
        description="Copies the table's SQLite store (matches, hands, every event, the "
                    "settings: the PIN's hash included) to OUT with SQLite's online backup "
                    "API, as one self-contained file, checked before it is named OUT. The "
                    "table may keep playing meanwhile. Refuses a damaged store and an OUT "
                    "that exists.")
    b.add_argument("out", type=Path, metavar="OUT.db", help="the new file")
    b.add_argument("--db", type=Path, help="the store (default: the database of --config, "
                   "or briscola-table.db)")
    b.add_argument("--config", type=Path, help="the table's TOML file, for its database")
    b.set_defaults(handler=backup)


RESET_HELP = ("if the store is damaged (empty, not SQLite, no schema, failing SQLite's "
              "integrity check), rename it and its -wal/-shm to NAME.damaged-DATE and start "
              "a new one; a sound store is never moved, nothing is deleted")


def _store_refused(command: str, exc: Exception) -> int:
    print(f"briscola-table {command}: {exc}", file=sys.stderr)
    return 2


def backup(args: argparse.Namespace) -> int:
    from table_controller.config import ConfigError, load_config
    from table_controller.store import Store, StoreError

    db = args.db
    if db is None:
        try:
            db = Path(load_config(args.config).database) if args.config else \
                Path("briscola-table.db")
        except ConfigError as exc:
            return _store_refused("backup", exc)
    if not db.is_file():
        return _store_refused("backup", f"no store at {db} (give --db FILE or --config)")
    try:
        store = Store(db)  # checks it whole first: a damaged store is not copied
        try:
            got = store.backup(args.out)
        finally:
            store.close()
    except (StoreError, OSError) as exc:
        return _store_refused("backup", exc)
    print(f"backed up {db} to {args.out}: {got['matches']} matches, {got['hands']} hands, "
          f"{got['events']} events, {got['bytes'] // 1024} KiB, integrity ok")
    return 0


# -- terminal account -------------------------------------------------------------------


class TerminalReport:
    """Prints each trick and hand, with a progress bar for the match."""

    def __init__(self, controller: Any, names: list[str], out=None) -> None:
        self.controller = controller
        self.names = names
        self.out = out = out if out is not None else sys.stdout  # the stdout of now
        self.tty = out.isatty()
        self._bar_shown = False

    def name(self, seat: int) -> str:
        return self.names[seat] if seat < len(self.names) else f"seat {seat}"

    def _print(self, text: str) -> None:
        if self._bar_shown and self.tty:
            self.out.write("\r\033[K")
            self._bar_shown = False
        self.out.write(text + "\n")
        self.out.flush()

    def __call__(self, d: Decision) -> None:
        from firmware_bridge.screen import player_labels  # P1 is seat 0, as on the table

        ref = self.controller.referee
        hand = ref.hand
        if d.violation is not None:
            self._print(f"  ! {d.violation.kind}: {player_labels(d.violation.message)}")
        elif d.new_hand:
            self._print(f"Hand {len(ref.hands)}: {self.name(hand.dealer)} deals")
        elif d.event is not None and d.event.type == "trump":
            self._print(f"  briscola {d.event.card} ({d.event.card.name('en')})")
        elif d.event is not None and d.event.type == "call":
            self._print(f"  {self.name(d.event.seat)} calls {d.event.card} "
                        f"({d.event.card.name('en')}) for {d.event.points} points: its holder "
                        "is the secret partner")
        elif d.event is not None and d.event.type == "swap":
            self._print(f"  {self.name(d.event.seat)} swaps for the face-up card: "
                        f"{d.event.card} now lies under the stock")
        elif d.undone is not None:
            self._print(f"  undone: {d.undone}")
        if d.note is not None:
            self._print(f"  note: {player_labels(d.note.message)}")
        if d.partner is not None:
            self._print(f"  the called card is down: {self.name(d.partner)} is the partner")
        if d.trick is not None:
            plays = ", ".join(f"{self.name(p.seat)} {p.card}" for p in d.trick.plays)
            self._print(f"  trick {len(hand.tricks):2d}: {plays}  -> {self.name(d.trick_winner)}")
        if d.hand_over and d.result is not None:
            pts = ", ".join(f"{self.name(s)} {p}" for s, p in enumerate(d.result.points))
            who = " and ".join(self.name(s) for s in d.result.winners) or "nobody (a tie)"
            self._print(f"  points: {pts}; the hand goes to {who}")
            m = d.match
            if m is not None:
                self._print("  standing: " + ", ".join(
                    f"{self.name(s)} {w}" for s, w in enumerate(m.hands_won)))
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
        self.out.write(f"\r\033[K[{bar}] hand {len(ref.hands)}, trick {done}/{hand.n_tricks}, "
                       f"hands won {'-'.join(map(str, standing.hands_won))}")
        self.out.flush()
        self._bar_shown = True


def _terminal_qr(url: str) -> None:
    try:
        import segno
    except ImportError:
        return
    segno.make(url, error="l").terminal(compact=True)


# -- demo ---------------------------------------------------------------------------------


def _rendered(sim: Any, stop: threading.Event, depth: int = 8):
    """Frames rendered on a thread of their own, so that drawing the simulated table and
    seeing it overlap (OpenCV releases the GIL)."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    done = object()

    def produce() -> None:
        try:
            for spec, img in sim.frames():
                if stop.is_set():
                    break
                q.put((spec, img))
        finally:
            q.put(done)

    threading.Thread(target=produce, name="simulator", daemon=True).start()
    while True:
        item = q.get()
        if item is done:
            return
        yield item


def demo(args: argparse.Namespace) -> int:
    import random

    from firmware_bridge.gpio import make_pin_factory
    from table_controller.app import build_table, paced
    from table_controller.config import Config, DashboardConfig, TableConfig
    from table_controller.rules import Variant
    from vision.simtable import SimOptions, SimulatedTable

    names = [n.strip() for n in args.names.split(",")] if args.names else \
        ["Ada", "Bruno", "Carla", "Dario", "Elena", "Fabio"][:args.players]
    if len(names) != args.players:
        print(f"briscola-table demo: --names gives {len(names)} names for {args.players} "
              "players", file=sys.stderr)
        return 2
    if args.players == 5 and args.variants:
        print("briscola-table demo: Briscola chiamata (5 players) has no face-up card to "
              "swap: no --variant", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    config = Config(table=TableConfig(players=args.players, names=tuple(names),
                                      variants=frozenset(Variant(v) for v in args.variants),
                                      match=args.match,
                                      first_dealer=random.Random(seed).randrange(args.players)),
                    dashboard=DashboardConfig(host="127.0.0.1", port=args.port))
    workdir = Path(tempfile.mkdtemp(prefix="briscola-demo-"))
    db = args.db or workdir / "demo.sqlite3"
    size = (1280, 720)
    sim = SimulatedTable(SimOptions(players=args.players, variants=tuple(args.variants),
                                    match=args.match, seed=seed,
                                    pace="fast" if args.fast else "real", size=size,
                                    faults=tuple(args.faults),
                                    first_dealer=config.table.first_dealer))
    from table_controller.store import StoreError

    try:
        table = build_table(config, db_path=db, dashboard=not args.headless,
                            layout=sim.layout, emulator=not args.no_emulator,
                            display_png=workdir / "display.png", resume=False,
                            pin_factory=make_pin_factory("mock"),
                            reset_store=args.reset_store)
    except StoreError as exc:
        return _store_refused("demo", exc)
    controller = table.controller
    report = TerminalReport(controller, names)
    controller.listeners.append(report)
    print(f"briscola-table demo: {args.players} players, best of {args.match}, seed {seed}"
          f"{', variants ' + ' '.join(args.variants) if args.variants else ''}")
    for note in table.notes:
        print(f"  {note}")
    print(f"  the table's display is drawn to {workdir / 'display.png'}")
    if table.url:
        print(f"  dashboard: {table.url}")
        _terminal_qr(table.url)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    referee = controller.referee
    controller.submit({"type": "hand", "players": args.players,
                       "dealer": referee.first_dealer, "variants": sorted(args.variants)})
    t0 = time.monotonic()
    frames = _answering(_rendered(sim, stop), sim, controller, report, names)
    try:
        controller.run(paced(frames, 30.0, realtime=not args.fast, stop=stop), stop=stop)
        elapsed = time.monotonic() - t0
        report._print("")
        ok = _final_account(controller, sim, names, elapsed)
        if table.url and not args.quit and not args.fast and not stop.is_set():
            print(f"The match is over; the dashboard stays at {table.url} (Ctrl-C to quit).")
            while not stop.wait(0.5):
                controller.run_commands()
    finally:
        table.close()
    return 0 if ok else 1


DEMO_ANSWER_FRAMES = 5  # a player at the phone names a held card this many frames later


def _answering(rendered, sim: Any, controller: Any, report: Any, names: list[str]):
    """The demo's frames, with a player at the phone who names each card the table holds
    (one it could not recognise) as it really is, as a person at the table would."""
    since: dict[str, int] = {}
    for spec, img in rendered:
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
            who = "the briscola" if hold.seat is None else f"{names[hold.seat]}'s card"
            report._print(f"  ? {who} was not recognised: named on the phone as "
                          f"{truth.content}")
            controller.command("pick", {"zone": zone, "card": truth.content})
        for event in spec.spoken:
            # What the camera cannot see is entered on the phone: with no stock the next
            # hand (NEW HAND), and chiamata's spoken auction (caller, called card, bid).
            if event["type"] == "hand":
                controller.command("new_hand")
            elif event["type"] == "call":
                report._print(f"  the auction, entered on the phone: "
                              f"{names[event['seat']]} calls {event['card']} for "
                              f"{event['points']}")
                controller.command("call", {k: event[k] for k in ("seat", "card", "points")})
        yield spec.t, img


def _final_account(controller: Any, sim: Any, names: list[str], elapsed: float) -> bool:
    ref = controller.referee
    standing = ref.standing()
    stats = controller.stats
    print(f"Match over in {elapsed:.1f} s ({stats.frames} frames, "
          f"{stats.frames / max(elapsed, 1e-6):.0f} frames/s): hands won "
          + ", ".join(f"{names[s]} {w}" for s, w in enumerate(standing.hands_won)))
    if standing.winner is not None:
        print("The match goes to " + " and ".join(names[s] for s in standing.winners) + ".")
    agree = [h.points == bot.points for h, bot in zip(ref.hands, sim.hands, strict=False)]
    ok = len(ref.hands) == len(sim.hands) and all(agree)
    print(f"The referee {'agrees' if ok else 'DISAGREES'} with the simulator's ground truth "
          f"({sum(agree)} of {len(sim.hands)} hands).")
    return ok


# -- run ----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    from table_controller.app import build_table, camera_frames
    from table_controller.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"briscola-table run: {exc}", file=sys.stderr)
        return 2
    from table_controller.store import StoreError

    try:
        table = build_table(config, db_path=config.database,
                            dashboard=config.dashboard.enabled and not args.offline,
                            reset_store=args.reset_store)
    except StoreError as exc:
        return _store_refused("run", exc)
    for note in table.notes:
        print(note)
    if table.url:
        print(f"dashboard: {table.url}")
    controller = table.controller
    controller.listeners.append(TerminalReport(controller, [
        config.table.name(s) for s in range(config.table.players)]))
    if controller.referee.hand is None:
        referee = controller.referee
        controller.submit({"type": "hand", "players": config.table.players,
                           "dealer": referee.first_dealer,
                           "variants": sorted(v.value for v in config.table.variants)})
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    source = config.camera.source
    try:
        if source == "simulator":
            from vision.simtable import SimulatedTable

            sim = SimulatedTable(players=config.table.players,
                                 variants=tuple(v.value for v in config.table.variants),
                                 match=config.table.match,
                                 first_dealer=controller.referee.first_dealer)
            frames = ((spec.t, img) for spec, img in sim.frames())
            from table_controller.app import paced

            frames = paced(frames, 30.0, True, stop)
        else:
            frames = camera_frames(source, config.camera.fps, stop)
        controller.run(frames, stop)
    except Exception as exc:  # a camera that was never there: say so
        from vision.sources import SourceError

        if not isinstance(exc, SourceError):
            raise
        print(f"briscola-table run: [camera] source: {exc}", file=sys.stderr)
        return 2
    finally:
        table.close()
    return 0
