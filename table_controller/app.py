"""Putting the table together: camera, vision, referee, store, indicators, dashboard.

:func:`build_table` wires one :class:`~table_controller.controller.Controller`
from a configuration; the demo passes a simulated table as the camera and mock
hardware (gpiozero's MockFactory, the firmware emulator on a pty, the display
rendered to a PNG). Each optional part that cannot start is reported in
``Table.notes`` and left out; the referee always runs.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_controller.buttons import attach as attach_buttons
from table_controller.config import Config
from table_controller.controller import Controller, HubOutput, IndicatorsOutput
from table_controller.engine.referee import Referee
from table_controller.engine.rules import draw_first_dealer
from table_controller.engine.words import Say

log = logging.getLogger(__name__)


@dataclass
class Table:
    controller: Controller
    config: Config
    store: Any = None
    hub: Any = None
    indicators: Any = None
    emulator: Any = None
    server: Any = None  # werkzeug server serving the dashboard
    url: str | None = None
    observer: Any = None
    tracker: Any = None
    club: Any = None  # the club's publisher, when [club] is configured
    language: str = "it"  # the table's: the display's words (and the terminal's, told)
    # Told the table's language when the setup page changes it (the terminal's account).
    on_language: list[Callable[[str], None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for close in reversed(self._closers):
            try:
                close()
            except Exception:  # closing must go on for the others
                log.exception("while closing")
        self._closers.clear()


def _new_match(config: Config, store: Any, names: list[str]) -> tuple[Referee, int | None]:
    t = config.table
    dealer = t.first_dealer if t.first_dealer is not None else draw_first_dealer(t.players)
    referee = Referee(players=t.players, variants=tuple(v.value for v in t.variants),
                      match=t.match, dealer=dealer)
    match_id = None
    if store is not None:
        info = store.new_match(players=t.players, names=names,
                               variants=tuple(v.value for v in t.variants), length=t.match,
                               first_dealer=dealer, deck=config.deck)
        match_id = info.id
    return referee, match_id


def build_table(config: Config, *, db_path: str | Path | None, dashboard: bool,
                vision: bool = True, layout: Any = None, emulator: bool = False,
                display_png: str | Path | None = None, resume: bool = True,
                pin_factory: Any = None, reset_store: bool = False,
                next_free_port: bool = False) -> Table:
    """Everything but the camera. ``layout`` is the mat (default: the config's size);
    ``next_free_port``: a dashboard port in use moves on to the next free one (said in
    ``notes``) instead of leaving the dashboard out.

    A damaged store raises ``StoreDamaged`` before anything starts (with
    ``reset_store`` it is moved aside and a new one begins: see ``store.open_store``).
    """
    names = [config.table.name(s) for s in range(config.table.players)]
    store = None
    if db_path is not None:
        from table_controller.store import open_store

        store = open_store(db_path, reset_damaged=reset_store)
    try:
        resumed = store.resume() if (store is not None and resume) else None
    except BaseException:
        if store is not None:
            store.close()
        raise
    set_aside_match = None
    if resumed is not None and (resumed[1].players != config.table.players):
        set_aside_match = resumed[1]
        resumed = None  # a different table now: start afresh, and say so
    if resumed is not None:
        referee, info = resumed
        match_id = info.id
    else:
        referee, match_id = _new_match(config, store, names)
    controller = Controller(referee, store=store, match_id=match_id,
                            new_match=lambda: _new_match(config, store, names))
    # The language chosen on the setup page, kept in the store, else the configuration's.
    language = (store.get_setting("language") if store is not None else None) \
        or config.table.language
    table = Table(controller, config, store=store, language=language)
    if store is not None:
        table._closers.append(store.close)
        table.notes.extend(store.notes)  # a damaged file set aside, verdicts that changed
    if set_aside_match is not None:
        table.notes.append(Say("match {id} in the store is for {players} players, the "
                               "configuration for {configured}: it stays in the history; "
                               "match {new} begins", id=set_aside_match.id,
                               players=set_aside_match.players,
                               configured=config.table.players, new=match_id))
    if resumed is not None:
        hand = referee.hand
        where = Say("no hand yet") if hand is None else Say(
            "hand {hand}, trick {trick}", hand=len(referee.hands), trick=len(hand.tricks) + 1)
        table.notes.append(Say("resumed match {id} where it was: {where}", id=match_id,
                               where=where))

    # Indicators: LEDs and buttons on GPIO, the board (or its emulator), the display PNG.
    ind_config = config.indicators
    try:
        from dataclasses import replace

        from firmware_bridge.indicators import Indicators

        changes: dict[str, Any] = {}
        if emulator:
            try:
                from firmware_bridge.emulator import Emulator

                emu = Emulator(seats=max(config.table.players, 2)).start()
                table.emulator = emu
                table._closers.append(emu.close)
                changes["serial_port"] = emu.port
                table.notes.append(Say("firmware emulator running on {path}", path=emu.pty))
            except Exception as exc:  # no gcc, or it would not start: go on without
                table.notes.append(Say("firmware emulator not started: {problem}",
                                       problem=exc))
        if display_png is not None:
            changes.update(display="image", image_path=str(display_png))
        if changes:
            ind_config = replace(ind_config, **changes)
        indicators = Indicators.from_config(ind_config, pin_factory=pin_factory)
        indicators.language(language)  # the display speaks the table's
        # Buttons name held and misread cards too (long presses): table_controller.buttons.
        naming = attach_buttons(controller, indicators, ind_config)
        table.indicators = indicators
        table._closers.append(indicators.close)
        controller.outputs.append(IndicatorsOutput(indicators, naming=naming))
    except Exception as exc:
        naming = None
        table.notes.append(Say("indicators not available: {problem}", problem=exc))
    _add_language_command(table, naming)

    _add_match_commands(table, names)
    if config.club is not None:
        _join_club(table)
    if dashboard:
        try:
            _start_dashboard(table, names, next_free_port)
        except Exception as exc:
            table.notes.append(Say("dashboard not started: {problem}", problem=exc))

    if vision:
        _attach_vision(table, layout)
    if resumed is not None:
        controller.refresh()
    return table


def _join_club(table: Table) -> None:
    """``[club]``: publish the public state and the outbox to the club's broker, in the
    background (``table_controller.club.publisher``): the table never waits on it."""
    club = table.config.club
    if table.store is None:
        table.notes.append(Say("club not joined: the club's outbox lives in the store, and "
                               "this table keeps none"))
        return
    from table_controller.club.publisher import ClubOutput, ClubPublisher

    table.store.enable_outbox()
    publisher = ClubPublisher(club, table.store).start()
    table.club = publisher
    table._closers.append(publisher.close)  # closed before the store (closers run reversed)
    output = ClubOutput(publisher, table.controller)
    table.controller.outputs.append(output)
    output.publish(table.controller.referee, None)  # the club sees the table at once
    table.notes.append(Say("club {club}: publishing as table {table} to {address} (in the "
                           "background)", club=club.club, table=club.table,
                           address=f"{club.host}:{club.port}"))


def _add_language_command(table: Table, naming: Any) -> None:
    """The ``language`` command (the setup page chose the table's language): the display
    redraws in it, the buttons' question too, and ``table.on_language`` is told."""
    def language(code: str = "") -> dict[str, Any]:
        from web_dashboard.i18n import LANGUAGES

        if code not in LANGUAGES:
            return {"accepted": False, "message": f"unknown language {str(code)[:20]!r}: "
                    f"expected one of {', '.join(LANGUAGES)}"}
        if code != table.language:
            table.language = code
            if table.indicators is not None:
                table.indicators.language(code)
                if naming is not None and table.indicators.state.text:
                    naming.refresh()  # a question on the display: asked again in it
            for listener in list(table.on_language):
                listener(code)
        return {"accepted": True, "message": "ok"}

    table.controller.handlers["language"] = language


def _add_match_commands(table: Table, names: list[str]) -> None:
    """The phones' ``setup`` (a new match) and ``names`` commands, run by the controller."""
    controller = table.controller
    store = table.store

    def publish_match() -> None:
        if table.hub is not None and store is not None and controller.match_id is not None:
            table.hub.set_match(store.match(controller.match_id), controller.referee)

    def setup(players: int = 2, names: list[str] | None = None,
              variants: list[str] | tuple[str, ...] = (), length: int | None = None,
              deck: str = "builtin", dealer: int | None = None,
              start: bool = True) -> dict[str, Any]:
        if players != table.config.table.players:
            return {"accepted": False, "message": (
                f"this table is set up for {table.config.table.players} players: the mat's "
                "zones and the LEDs follow the configuration file; change it there")}
        if store is None:
            return {"accepted": False, "message": "this table keeps no store"}
        info = store.new_match(players, names, tuple(variants), length, first_dealer=dealer,
                               deck=deck)
        controller.referee, controller.match_id = info.referee(), info.id
        if controller.tracker is not None:
            controller.tracker.reset()
        publish_match()
        result: dict[str, Any] = {"accepted": True, "message": "match set up",
                                  "match": info.id}
        if start:
            event: dict[str, Any] = {"type": "hand", "players": players,
                                     "variants": list(variants)}
            if dealer is not None:
                event["dealer"] = dealer
            decision = controller.submit(event)
            if not decision.accepted:
                result.update(accepted=False, message=decision.violation.message)
        return result

    def set_names(names: list[str] | None = None) -> dict[str, Any]:
        if store is None or controller.match_id is None:
            return {"accepted": False, "message": "this table keeps no store"}
        store.set_names(controller.match_id, list(names or []))
        publish_match()
        return {"accepted": True, "message": "names saved"}

    controller.handlers.update(setup=setup, names=set_names)


def _attach_vision(table: Table, layout: Any) -> None:
    from vision.enroll import load_deck
    from vision.mat import mat_layout
    from vision.observer import seat_zones_for, table_eyes
    from vision.recognize import Recognizer

    config = table.config
    controller = table.controller
    zones = seat_zones_for(config.table.players, config.table.direction.value)
    deck = load_deck(None if config.deck == "builtin" else config.deck)
    layout = layout or mat_layout(config.mat_size, config.table.players,
                                  config.table.direction.value)
    observer, tracker = table_eyes(layout, Recognizer(deck),
                                   zones, lambda: controller.referee.hand)
    controller.observer, controller.tracker = observer, tracker
    table.observer, table.tracker = observer, tracker
    if controller.referee.hand is not None:
        tracker.prime()  # resumed: the cards on the table are already refereed


def _start_dashboard(table: Table, names: list[str], next_free_port: bool = False) -> None:
    from web_dashboard import create_app
    from web_dashboard.listen import listen, make_server_on
    from web_dashboard.live import LiveTable
    from web_dashboard.qr import phone_url

    config = table.config
    controller = table.controller
    host, port = config.dashboard.host, config.dashboard.port
    # The port first: when it cannot be had, nothing of the dashboard has started.
    sock, note = listen(host, port, tries=10 if next_free_port else 1)
    if note:
        table.notes.append(note)
    hub = LiveTable(executor=controller.hub_executor)
    # The pages' language until the setup page chooses one: the configuration's.
    app_config: dict[str, Any] = {"LANGUAGE": config.table.language}
    if table.store is None:
        app_config["DATABASE"] = ":memory:"
    app = create_app(app_config, hub=hub, store=table.store)
    if table.store is not None and controller.match_id is not None:
        hub.set_match(table.store.match(controller.match_id), controller.referee)
    controller.outputs.append(HubOutput(hub))
    # The setup page's language reaches the display on the controller's thread.
    hub.language_listeners.append(
        lambda code: controller.command("language", {"code": code}))
    server = make_server_on(sock, app)
    thread = threading.Thread(target=server.serve_forever, name="dashboard", daemon=True)
    thread.start()
    table.hub, table.server = hub, server
    # The terminal's QR code and the page's show this one address, which a phone on the
    # table's network can open (127.0.0.1 only when the server listens there only).
    table.url = app.config.get("PUBLIC_URL") or phone_url(host, server.server_port)
    if not app.config.get("TRUSTED_HOSTS"):  # else the page follows the Host it was sent
        app.config["PUBLIC_URL"] = table.url
    table._closers.append(server.shutdown)
    table._closers.append(hub.close)


def paced(frames: Iterator[tuple[float, Any]], fps: float, realtime: bool,
          stop: threading.Event | None = None,
          hold: Callable[[], float] | None = None) -> Iterator[tuple[float, Any]]:
    """Frames at camera rate (``realtime``) or as fast as they come. ``hold`` is asked
    before each frame and may keep the table still (the demo's pause between hands): it
    returns the seconds it held, which the pace then allows for instead of catching up."""
    start = time.monotonic()
    for t, frame in frames:
        if hold is not None:
            start += hold()
        if stop is not None and stop.is_set():
            return
        if realtime:
            delay = start + t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        yield t, frame


def camera_frames(spec: int | str, fps: float = 30.0, stop: threading.Event | None = None,
                  retry_s: float = 1.0, hint: str = "") -> Iterator[tuple[float, Any]]:
    """(t, image) pairs from a camera, video file, folder or stream (``vision.sources``).

    A camera that gives no picture (not plugged in, unplugged, stream dropped) is said
    once, with ``hint`` (what to do), then reopened quietly every ``retry_s`` until it
    comes back, which is said too; a recording or folder that ends ends the stream.
    Raises ``vision.sources.SourceError`` when ``spec`` names nothing usable.
    """
    from vision.sources import open_source

    source = open_source(spec, fps)
    seen = False  # a picture came since the camera was (re)opened
    waiting = False  # the terminal was told the camera gives no picture
    try:
        while stop is None or not stop.is_set():
            frame = source.read(timeout=1.0)
            if frame is not None:
                if waiting:
                    log.warning(Say("camera {name}: picture received, the table is watching",
                                    name=spec))
                    waiting = False
                seen = True
                yield frame.t, frame.image
                continue
            if source.state == "ended":
                return
            if source.state == "lost":
                if not waiting:
                    said = Say("camera {name} lost: waiting for it", name=spec) if seen else \
                        Say("camera {name} gives no picture (not found?): waiting for it",
                            name=spec)
                    # A Say as the record's message: the terminal says it in its language.
                    log.warning(Say("{problem}; {hint}", problem=said, hint=hint) if hint
                                else said)
                    waiting = True
                seen = False
                if stop is not None and stop.wait(retry_s):
                    return
                if stop is None:
                    time.sleep(retry_s)
                try:
                    source.reopen()
                except Exception as exc:  # still unplugged: try again later, quietly
                    log.debug("camera %s not back yet: %s", spec, exc)
    finally:
        source.close()
