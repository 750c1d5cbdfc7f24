"""Naming a held card and correcting a misread one from the table's buttons.

The Pi's buttons are gpiozero mocks (long press = held, gpiozero's hold detection);
the pipeline is the real one: tracker, controller, referee, store, Indicators.
"""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_bridge.buttons import DoublePress
from firmware_bridge.config import ConfigError, IndicatorsConfig
from firmware_bridge.indicators import Indicators
from table_controller.buttons import attach, lookalikes
from table_controller.controller import Controller, IndicatorsOutput
from table_controller.store import Store
from vision.tracker import FrameObs, Tracker, ZoneObs

BUTTONS = {"confirm": 16, "undo": 20, "new_hand": 12}
LONG_S = 0.15  # long_press_ms in these tests: 150 ms instead of 2 s



def press_and_run(factory, controller, name: str, long: bool = False) -> None:
    """Press and release button ``name`` on ``factory``'s pin (held past the long-press
    time when ``long``), then let ``controller`` run what it queued."""
    pin = factory.pin(BUTTONS[name])
    pin.drive_low()
    if long:
        time.sleep(LONG_S + 0.15)
    pin.drive_high()
    deadline = time.monotonic() + 2
    while controller.commands.empty() and time.monotonic() < deadline:
        time.sleep(0.005)
    controller.run_commands()

class Seen:
    def observe(self, frame, t):
        return frame


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


class Table:
    """Camera zones scripted per frame, the Pi's three buttons on mock pins."""

    def __init__(self, tmp_path, factory, idle_s=30.0):
        self.factory = factory
        self.store = Store(tmp_path / "t.sqlite3")
        self.info = self.store.new_match(players=2)
        config = IndicatorsConfig(buttons=BUTTONS, bounce_ms=0, long_press_ms=int(LONG_S * 1000))
        self.indicators = Indicators.from_config(config, pin_factory=factory)
        self.ctl = Controller(self.info.referee(), store=self.store, match_id=self.info.id,
                              observer=Seen())
        self.ctl.tracker = Tracker({0: "play0", 1: "play1"}, lambda: self.ctl.referee.hand)
        self.naming = attach(self.ctl, self.indicators, config, idle_s=idle_s)
        self.ctl.outputs.append(IndicatorsOutput(self.indicators, naming=self.naming))
        self.zones: dict[str, ZoneObs] = {}
        self.t = 0.0

    def frames(self, n=1, **zones):
        for name, value in zones.items():
            if value is None:
                self.zones.pop(name, None)
            else:
                self.zones[name] = value
        for _ in range(n):
            self.ctl.on_frame(FrameObs(self.t, dict(self.zones)), self.t)
            self.t += 1 / 30

    def press(self, name, long=False):
        """Press and release a button (held past the long-press time when ``long``), then
        let the controller run what it queued."""
        press_and_run(self.factory, self.ctl, name, long)

    @property
    def text(self):
        return self.indicators.state.text

    def plays(self):
        hand = self.ctl.referee.hand
        return [(p.seat, str(p.card)) for p in (*hand.table, *hand.current)]

    def close(self):
        self.indicators.close()


@pytest.fixture
def table(tmp_path, factory):
    tb = Table(tmp_path, factory)
    tb.ctl.submit({"type": "hand", "dealer": 1})
    tb.frames(5, briscola=ZoneObs("5s", (50.0, 50.0)))
    yield tb
    tb.close()


def test_a_held_card_is_named_with_undo_to_step_and_a_long_confirm(table):
    table.frames(5, play0=ZoneObs("9b", (100.0, 100.0)))
    table.frames(15, play1=ZoneObs("?", (200.0, 100.0), candidates=("7c", "9b", "6c", "4c")))
    assert table.ctl.tracker.holds["play1"].likely == ("7c", "6c", "4c")
    # The display asks for the likeliest card (P2 is seat 1), how to step and to name.
    assert table.text[:2] == ("P2: 7c?", "UNDO: next 1/3")
    assert all(len(line) <= 21 for line in table.text)
    # A short confirm names nothing.
    table.press("confirm")
    assert table.plays() == [(0, "9b")] and table.text[0] == "P2: 7c?"
    # UNDO steps to the next candidate and takes nothing back.
    table.press("undo")
    assert table.text[:2] == ("P2: 6c?", "UNDO: next 2/3") and table.plays() == [(0, "9b")]
    # A long confirm names it: refereed, stored as a pick, the hold gone.
    table.press("confirm", long=True)
    assert table.plays() == [(0, "9b"), (1, "6c")]
    assert table.store.events(table.info.id)[-1].event == {
        "type": "play", "seat": 1, "card": "6c", "source": "pick"}
    assert table.ctl.tracker.holds == {} and table.text == ()
    # The camera does not report the card again, and UNDO is an undo once more.
    n = len(table.store.events(table.info.id))
    table.frames(10, play1=ZoneObs("6c", (200.0, 100.0)))
    assert len(table.store.events(table.info.id)) == n
    table.press("undo")
    assert table.plays() == [(0, "9b")]


def test_steps_wrap_around_and_a_hold_without_likely_cards_keeps_undo(table):
    table.frames(15, play0=ZoneObs("?", (100.0, 100.0), candidates=("3c", "2c")))
    for expected in ("P1: 2c?", "P1: 3c?", "P1: 2c?"):
        table.press("undo")
        assert table.text[0] == expected
    table.press("confirm", long=True)
    assert table.plays() == [(0, "2c")]
    # No likely card: the display says to straighten it or use the phone; UNDO undoes.
    table.frames(15, play1=ZoneObs("?", (200.0, 100.0)))
    assert "straighten it" in " ".join(table.text)
    table.press("confirm", long=True)
    assert table.plays() == [(0, "2c")]
    table.press("undo")
    assert table.plays() == []


def test_a_misread_card_is_corrected_from_the_buttons(table):
    table.frames(5, play0=ZoneObs("9b", (100.0, 100.0)))
    table.frames(5, play1=ZoneObs("7c", (200.0, 100.0)))  # it is a 6c, misread
    assert table.plays() == [(0, "9b"), (1, "7c")]
    # A long UNDO opens the correction of the last card played; nothing is undone.
    table.press("undo", long=True)
    assert table.text[:2] == ("Fix P2: 7c->6c?", "UNDO: next 1/4")
    assert table.plays() == [(0, "9b"), (1, "7c")]
    for expected in ("5c", "4c", "3c", "6c"):  # its lookalikes, round again
        table.press("undo")
        assert table.text[0] == f"Fix P2: 7c->{expected}?"
    table.press("confirm")  # short: nothing
    assert table.plays() == [(0, "9b"), (1, "7c")]
    table.press("confirm", long=True)
    assert table.plays() == [(0, "9b"), (1, "6c")] and table.text == ()
    kinds = [(e.event["type"], e.event.get("card")) for e in table.store.events(table.info.id)]
    assert kinds[-2:] == [("play", "7c"), ("correct", "6c")]
    # The tracker adopted it: the camera's misreading makes no event.
    n = len(kinds)
    table.frames(20, play1=ZoneObs("7c", (200.0, 100.0)))
    assert len(table.store.events(table.info.id)) == n


def test_a_correction_to_an_impossible_card_is_refused_without_saying_where_it_is(table):
    table.frames(5, play0=ZoneObs("6c", (100.0, 100.0)))
    table.frames(5, play1=ZoneObs("5c", (200.0, 100.0)))
    table.frames(10, play0=None, play1=None)  # collected
    winner = table.ctl.referee.hand.turn
    zone = f"play{winner}"
    table.frames(5, **{zone: ZoneObs("7c", (100.0, 100.0))})  # it is a 4c
    n = len(table.store.events(table.info.id))
    table.press("undo", long=True)
    # The offers do not depend on what was played: 6c and 5c (taken) are offered too.
    assert table.text[0] == f"Fix P{winner + 1}: 7c->6c?"
    table.press("confirm", long=True)
    assert table.text[0] == "6c can't be there"
    assert "played" not in " ".join(table.text) and "trick" not in " ".join(table.text)
    assert len(table.store.events(table.info.id)) == n  # nothing reached the referee
    assert table.ctl.referee.violations == [] and table.indicators.state.error_kind == 0
    table.press("undo")
    table.press("undo")
    assert table.text[0] == f"Fix P{winner + 1}: 7c->4c?"
    table.press("confirm", long=True)
    assert table.plays() == [(winner, "4c")]


def test_a_correction_is_left_by_a_long_undo_an_event_or_time(tmp_path, factory):
    tb = Table(tmp_path, factory, idle_s=1.0)
    try:
        tb.ctl.submit({"type": "hand", "dealer": 1})
        tb.frames(5, briscola=ZoneObs("5s", (50.0, 50.0)))
        tb.press("undo", long=True)  # nothing played yet
        assert tb.text[0] == "Nothing to correct"
        tb.frames(5, play0=ZoneObs("9b", (100.0, 100.0)))
        tb.press("undo", long=True)
        assert tb.text[0] == "Fix P1: 9b->8b?"
        tb.press("undo", long=True)
        assert tb.text == () and tb.plays() == [(0, "9b")]
        # A card played meanwhile: the correction would name the wrong one.
        tb.press("undo", long=True)
        tb.frames(5, play1=ZoneObs("7b", (200.0, 100.0)))
        assert tb.text == () and tb.naming.fixing is None
        # Left alone: abandoned after idle_s, through the controller's queue.
        tb.press("undo", long=True)
        assert tb.text[0] == "Fix P2: 7b->6b?"
        time.sleep(1.3)
        tb.ctl.run_commands()
        assert tb.text == () and tb.plays() == [(0, "9b"), (1, "7b")]
    finally:
        tb.close()


def test_lookalikes_are_the_nearest_of_the_same_kind():
    assert lookalikes("7c") == ("6c", "5c", "4c", "3c")
    assert lookalikes("5s") == ("4s", "6s", "3s", "7s")
    assert lookalikes("9d") == ("8d", "10d", "7d", "6d")
    assert lookalikes("1b") == ("2b", "3b", "4b", "5b")


def test_the_gpio_reports_a_long_press_once_and_no_short_press_with_it(factory):
    config = IndicatorsConfig(buttons=BUTTONS, bounce_ms=0, long_press_ms=100)
    got = []
    with Indicators.from_config(config, pin_factory=factory) as ind:
        ind.on_button(got.append)
        pin = factory.pin(BUTTONS["undo"])
        pin.drive_low()
        time.sleep(0.4)  # held well past the long-press time: still one long press
        pin.drive_high()
        pin.drive_low()
        pin.drive_high()
        factory.pin(BUTTONS["new_hand"]).drive_low()  # no long meaning: at once
    assert got == ["undo_long", "undo", "new_hand"]


def test_the_boards_double_press_is_its_long_press():
    got = []
    double = DoublePress(got.append, window_s=0.1)
    double("undo")
    double("undo")
    assert got == ["undo_long"]
    double("confirm")
    assert got == ["undo_long"]  # not yet: a second press may come
    time.sleep(0.25)
    assert got == ["undo_long", "confirm"]
    double("undo")
    double("new_hand")  # another button: the undo was a single press
    assert got == ["undo_long", "confirm", "undo", "new_hand"]
    # A board that reports long presses itself is passed through.
    through = DoublePress(got.append, window_s=0.1, passthrough=lambda: True)
    through("undo")
    through("confirm_long")
    assert got[-2:] == ["undo", "confirm_long"]
    double.close()


def test_long_press_settings_are_checked():
    cfg = IndicatorsConfig.from_mapping({"gpio": {"long_press_ms": 1500},
                                         "serial": {"double_press_ms": 400}})
    assert (cfg.long_press_ms, cfg.double_press_ms) == (1500, 400)
    with pytest.raises(ConfigError, match="long_press_ms"):
        IndicatorsConfig(long_press_ms=20)


def test_the_assembled_table_wires_its_buttons_through_the_controller(tmp_path, factory):
    import dataclasses

    from table_controller.app import build_table
    from table_controller.config import Config, TableConfig

    config = Config(table=TableConfig(players=2, first_dealer=1))
    config = dataclasses.replace(config, indicators=IndicatorsConfig(
        buttons=BUTTONS, bounce_ms=0, long_press_ms=int(LONG_S * 1000)))
    table = build_table(config, db_path=tmp_path / "t.db", dashboard=False, vision=False,
                        pin_factory=factory)
    try:
        c = table.controller
        c.submit({"type": "hand", "dealer": 1})
        c.submit({"type": "trump", "card": "5s"})
        c.submit({"type": "play", "seat": 0, "card": "7d"})
        press_and_run(factory, c, "undo", long=True)
        pin = factory.pin(BUTTONS["undo"])
        # The display asks in the table's language (Italian, the configuration's default).
        assert table.indicators.state.text[0] == "Cambia P1: 7d->6d?"
        pin.drive_low()
        pin.drive_high()
        time.sleep(0.05)
        c.run_commands()
        assert table.indicators.state.text[0] == "Cambia P1: 7d->5d?"
        factory.pin(BUTTONS["confirm"]).drive_low()
        time.sleep(LONG_S + 0.15)
        factory.pin(BUTTONS["confirm"]).drive_high()
        time.sleep(0.05)
        c.run_commands()
        assert [str(p.card) for p in c.referee.hand.current] == ["5d"]
        assert table.store.events(c.match_id)[-1].event["type"] == "correct"
    finally:
        table.close()


# -- who sits where, from the names already seen ----------------------------------------


def seated_table(tmp_path, factory, *, match=None, idle_s=30.0):
    """The assembled table over a store that has seen Ada, Bea (an older match) and
    Cid, Ada (the match about to start, no hand yet)."""
    import dataclasses

    from table_controller.app import build_table
    from table_controller.config import Config, TableConfig

    db = tmp_path / "t.db"
    seen = Store(db)
    seen.new_match(players=2, names=["Ada", "Bea"])
    seen.new_match(players=2, names=["Cid", "Ada"], length=match)  # the table resumes it
    seen.close()
    config = Config(table=TableConfig(players=2, first_dealer=1, match=match, language="en"))
    config = dataclasses.replace(config, indicators=IndicatorsConfig(
        buttons=BUTTONS, bounce_ms=0, long_press_ms=int(LONG_S * 1000)))
    table = build_table(config, db_path=db, dashboard=False, vision=False,
                        pin_factory=factory)
    from table_controller.buttons import ButtonNaming

    naming = table.controller.handlers["button"].__self__
    assert isinstance(naming, ButtonNaming)
    naming.idle_s = idle_s
    return table


def push(table, name, long=False):
    """Press a button of the assembled table (as ``Table.press``); its display's text."""
    press_and_run(push.factory, table.controller, name, long)
    text = table.indicators.state.text
    assert all(len(line) <= 21 for line in text)
    return text


@pytest.fixture
def seats(tmp_path, factory):
    push.factory = factory
    table = seated_table(tmp_path, factory)
    yield table
    table.close()


def test_the_names_are_chosen_seat_by_seat_from_the_names_seen(seats):
    c, store = seats.controller, seats.store
    match_id = c.match_id
    assert store.player_names() == ["Cid", "Ada", "Bea"]  # the setup page's order
    # A long CONFIRM with no hand in play asks P1's name, most recently seated first.
    text = push(seats, "confirm", long=True)
    assert text == ("P1: Cid?", "UNDO: next 1/4", "hold OK: set", "NEW HAND: leave")
    steps = [push(seats, "undo")[0] for _ in range(4)]
    assert steps == ["P1: Ada?", "P1: Bea?", "P1: no name?", "P1: Cid?"]  # round again
    push(seats, "undo")
    assert push(seats, "confirm")[0] == "P1: Ada?"  # a short CONFIRM takes nothing
    # Taken: P2 is asked from the names left (Ada is seated), the last seat sends.
    text = push(seats, "confirm", long=True)
    assert text == ("P2: Cid?", "UNDO: next 1/3", "hold OK: send", "hold UNDO: back")
    assert store.match(match_id).names == ("Cid", "Ada")  # nothing set yet
    # A long UNDO goes back a seat; P1 is asked again.
    assert push(seats, "undo", long=True)[0] == "P1: Cid?"
    push(seats, "undo")
    push(seats, "confirm", long=True)  # P1: Ada
    push(seats, "undo")
    assert push(seats, "undo")[0] == "P2: no name?"  # P2 is left unnamed
    assert push(seats, "confirm", long=True)[0] == "Names set"
    # The names reach the match about to start, as the phone's names do; NEW HAND
    # starts it with them.
    assert c.match_id == match_id and store.match(match_id).names == ("Ada", "")
    push(seats, "new_hand")
    assert c.referee.hand is not None and c.match_id == match_id
    assert store.match(match_id).names == ("Ada", "")
    # During a hand a long CONFIRM asks no names.
    c.submit({"type": "trump", "card": "5s"})
    assert push(seats, "confirm", long=True) == ()
    assert c.handlers["button"].__self__.seating is None


def test_names_left_midway_change_nothing(tmp_path, factory):
    push.factory = factory
    table = seated_table(tmp_path, factory, idle_s=1.0)
    try:
        c, store = table.controller, table.store
        before = store.match(c.match_id).names
        naming = c.handlers["button"].__self__
        # NEW HAND on P2 leaves; it does not start the hand.
        push(table, "confirm", long=True)
        push(table, "confirm", long=True)
        assert push(table, "new_hand") == () and naming.seating is None
        assert c.referee.hand is None and store.match(c.match_id).names == before
        # A long UNDO on P1 leaves.
        push(table, "confirm", long=True)
        assert push(table, "undo", long=True) == () and naming.seating is None
        # Left alone: abandoned after idle_s, through the controller's queue.
        push(table, "confirm", long=True)
        push(table, "confirm", long=True)
        assert table.indicators.state.text[0] == "P2: Ada?"
        time.sleep(1.3)
        c.run_commands()
        assert table.indicators.state.text == () and naming.seating is None
        # A hand started from the phone meanwhile: the names are left.
        push(table, "confirm", long=True)
        c.submit({"type": "hand", "dealer": 1})
        assert naming.seating is None and table.indicators.state.text == ()
        assert store.match(c.match_id).names == before
    finally:
        table.close()


def play_a_whole_hand(controller) -> None:
    """A simulated two-player hand (dealer P2), every event accepted."""
    import random

    from table_controller.engine.rules import HandRules
    from table_controller.engine.simulation import play_hand

    sim = play_hand(HandRules(2), 1, random.Random(3), style="sensible")
    for e in sim.events:
        assert controller.submit(e.to_json()).accepted


def test_after_a_finished_match_the_names_go_to_a_new_one(tmp_path, factory):
    push.factory = factory
    table = seated_table(tmp_path, factory, match=1)
    try:
        c, store = table.controller, table.store
        old = c.match_id
        play_a_whole_hand(c)
        assert c.referee.standing().over
        assert push(table, "confirm", long=True)[0] == "P1: Cid?"
        push(table, "confirm", long=True)
        push(table, "undo")
        assert push(table, "confirm", long=True)[0] == "Names set"  # P2: Bea
        assert store.match(old).names == ("Cid", "Ada")  # the finished match keeps its own
        new = c.match_id
        assert new != old and store.match(new).names == ("Cid", "Bea")
        assert store.match(new).length == 1 and c.referee.hand is None  # not started
        push(table, "new_hand")
        assert c.match_id == new and c.referee.hand is not None
    finally:
        table.close()


def test_a_match_under_way_keeps_its_names(tmp_path, factory):
    push.factory = factory
    table = seated_table(tmp_path, factory, match=3)
    try:
        c = table.controller
        play_a_whole_hand(c)
        assert c.referee.hand.is_over() and not c.referee.standing().over
        assert push(table, "confirm", long=True)[0] == "Names: at match end"
        assert table.store.match(c.match_id).names == ("Cid", "Ada")
    finally:
        table.close()
