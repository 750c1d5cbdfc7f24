"""The rules help the eyes: possible cards, held cards named on the phone, corrections
adopted by the tracker, and the restart that compares the table with the referee."""

import re

from firmware_bridge.indicators import Indicators
from table_controller.controller import Controller, HubOutput, IndicatorsOutput, hold_lines
from table_controller.store import Store
from vision.tracker import FrameObs, Tracker, ZoneObs
from web_dashboard import create_app
from web_dashboard.live import LiveTable

PIN = "2468"
SEATS2 = {0: "play0", 1: "play1"}
SEATS3 = {0: "play0", 1: "play1", 2: "play2"}


def card(code, x=100.0, y=100.0, hidden=False, candidates=()):
    return ZoneObs(code, (x, y), hidden, candidates=candidates)


class Seen:
    """An observer whose frames are already what each zone shows."""

    def observe(self, frame, t):
        return frame


class Table:
    """A controller (referee, store, indicators, hub) fed scripted frames at 30 fps."""

    def __init__(self, tmp_path, players=2, prime_with=None):
        self.store = Store(tmp_path / "t.sqlite3")
        self.info = self.store.new_match(players=players)
        self.indicators = Indicators()
        self.hub = LiveTable()
        seats = SEATS2 if players == 2 else SEATS3
        self.ctl = Controller(self.info.referee(), store=self.store, match_id=self.info.id,
                              outputs=[IndicatorsOutput(self.indicators), HubOutput(self.hub)],
                              observer=Seen())
        self.hub.executor = lambda c: self.ctl.execute(c.kind, dict(c.args))
        self.tracker = Tracker(seats, lambda: self.ctl.referee.hand)
        self.ctl.tracker = self.tracker
        self.fed: list[dict] = []
        self.ctl.listeners.append(lambda d: self.fed.append(d))
        self.t = 0.0
        self.zones: dict[str, ZoneObs] = {}

    def feed(self, *events):
        for e in events:
            d = self.ctl.submit(e)
            assert d.accepted, (e, d.violation)

    def frames(self, n=1, **zones):
        for name, value in zones.items():
            if value is None:
                self.zones.pop(name, None)
            else:
                self.zones[name] = value
        out = []
        for _ in range(n):
            for d in self.ctl.on_frame(FrameObs(self.t, dict(self.zones)), self.t):
                out.append(d)
            self.t += 1 / 30
        return out


def start(tb, trump="5s"):
    tb.feed({"type": "hand", "dealer": tb.ctl.referee.defaults.players - 1})
    tb.frames(5, briscola=card(trump))
    assert str(tb.ctl.referee.hand.briscola) == trump


def plays(tb):
    return [(p.seat, str(p.card)) for p in tb.ctl.referee.hand.current] or \
        [(p.seat, str(p.card)) for p in tb.ctl.referee.hand.table]


# -- possible() ----------------------------------------------------------------------------

def test_possible_leaves_out_played_removed_held_and_face_up_cards(tmp_path):
    tb = Table(tmp_path, players=3)  # 3 players: 2d is out of the deck
    assert tb.tracker.possible("play0") is None  # no hand: anything
    start(tb, "5s")
    tb.feed({"type": "play", "seat": 0, "card": "9b"})
    for zone in ("play1", "play2"):
        p = tb.tracker.possible(zone)
        assert "2d" not in p and "5s" not in p and "9b" not in p and len(p) == 37
    assert "9b" in tb.tracker.possible("play0")  # its own card, lying there
    assert tb.tracker.possible("briscola") == {"5s", "7s", "2s"}
    assert tb.tracker.unlikely("play1") >= {"9b", "2d", "5s"}  # still there for the observer


# -- the guarantee -------------------------------------------------------------------------

def test_an_impossible_card_is_never_fed_to_the_referee(tmp_path):
    tb = Table(tmp_path)
    start(tb)
    tb.frames(5, play0=card("9b"))
    tb.frames(5, play1=card("7b"))
    tb.frames(10, play0=ZoneObs(None), play1=ZoneObs(None))  # collected
    n = len(tb.fed)
    # The next card is read as 7b, a card of the trick just taken: it cannot be there.
    tb.frames(30, play0=card("7b", candidates=()))
    assert len(tb.fed) == n  # nothing reached the referee: no duplicate, no play
    assert tb.tracker.stats.impossible >= 25
    hold = tb.tracker.holds["play0"]
    assert hold.seat == 0 and hold.reason == "unknown" and "7b" not in hold.candidates
    assert "9b" not in hold.candidates and "5s" not in hold.candidates
    assert len(hold.candidates) == 40 - 3
    # Also when a card is read that the referee knows is in another seat's hand.
    assert all(d.accepted for d in tb.fed)


def test_held_cards_list_the_likely_ones_first_then_the_rest(tmp_path):
    tb = Table(tmp_path)
    start(tb)
    # The observer's guesses, best first; 5s (face up under the stock) is impossible.
    tb.frames(12, play0=card("?", candidates=("7c", "5s", "6c")))
    hold = tb.tracker.holds["play0"]
    assert hold.likely == ("7c", "6c")
    assert hold.others[:3] == ("1d", "2d", "3d") and "5s" not in hold.others
    assert set(hold.likely).isdisjoint(hold.others) and len(hold.candidates) == 39
    # An unknown face for a few frames only (a card being laid) makes no hold.
    (tmp_path / "b").mkdir()
    tb2 = Table(tmp_path / "b")
    start(tb2)
    tb2.frames(5, play0=card("?"))
    tb2.frames(5, play0=card("3c"))
    assert tb2.tracker.holds == {} and plays(tb2) == [(0, "3c")]


def test_a_held_card_is_released_by_a_pick_on_the_phone(tmp_path):
    tb = Table(tmp_path)
    app = create_app({"DATABASE": str(tmp_path / "d.sqlite3"), "TESTING": True},
                     hub=tb.hub, store=tb.store)
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    start(tb)
    tb.frames(5, play0=card("9b"))
    tb.frames(15, play1=card("?", x=200, candidates=("7c", "6c")))
    assert plays(tb) == [(0, "9b")]
    # The display says which seat's card is not recognised (P2 is seat 1).
    text = " ".join(tb.indicators.state.text)
    assert text.startswith("P2: can't read it") and "straighten it" in text
    # The phone shows the seat and the camera's likely cards only (any other card is
    # named with the rank + suit chooser, which lists the whole deck).
    snap = client.get("/api/v1/table").get_json()
    assert snap["holds"] == [{"zone": "play1", "seat": 1, "reason": "unknown",
                              "likely": ["7c", "6c"], "card": None}]
    # Without the PIN: refused, nothing changes.
    r = client.post("/api/v1/pick", json={"seat": 1, "card": "6c"})
    assert r.status_code == 401 and plays(tb) == [(0, "9b")]
    # An impossible pick: one clear line that does not say where the card is.
    r = client.post("/api/v1/pick", json={"seat": 1, "card": "9b"},
                    headers={"X-Table-PIN": PIN})
    assert r.status_code == 409
    assert r.get_json() == {"accepted": False, "kind": "not_possible",
                            "message": "that card cannot be there now"}
    assert plays(tb) == [(0, "9b")] and "play1" in tb.tracker.holds
    r = client.post("/api/v1/pick", json={"seat": 1, "card": "6x"},
                    headers={"X-Table-PIN": PIN})
    assert r.status_code == 409 and r.get_json()["kind"] == "bad_card"
    r = client.post("/api/v1/pick", json={"seat": 1, "card": "6c"},
                    headers={"X-Table-PIN": PIN})
    assert r.status_code == 200, r.get_json()
    assert plays(tb) == [(0, "9b"), (1, "6c")]  # the hand went on
    assert tb.tracker.holds == {} and tb.indicators.state.text == ()
    assert client.get("/api/v1/table").get_json()["holds"] == []
    # Stored first, like any event, marked as picked.
    last = tb.store.events(tb.info.id)[-1]
    assert last.event == {"type": "play", "seat": 1, "card": "6c", "source": "pick"}
    # The camera does not report it again, whatever it reads while the card lies there.
    n = len(tb.fed)
    tb.frames(20, play1=card("?", x=200))
    tb.frames(20, play1=card("7c", x=200))
    tb.frames(20, play1=card("6c", x=200))
    assert len(tb.fed) == n
    # The trick is collected as usual, and the next card is read again.
    tb.frames(10, play0=ZoneObs(None), play1=ZoneObs(None))
    assert tb.fed[-1].event.type == "collect"
    tb.frames(5, play0=card("7c"))
    assert tb.fed[-1].accepted and str(tb.fed[-1].event.card) == "7c"


def test_a_hold_clears_by_itself_once_the_card_is_straightened(tmp_path):
    tb = Table(tmp_path)
    start(tb)
    tb.frames(15, play0=card("?"))
    assert "play0" in tb.tracker.holds and tb.indicators.state.text
    tb.frames(4, play0=card("3c", x=104))
    assert tb.tracker.holds == {} and plays(tb) == [(0, "3c")]
    assert tb.indicators.state.text == ()


def test_the_live_page_draws_the_picker_only_for_an_unlocked_phone(tmp_path):
    tb = Table(tmp_path)
    app = create_app({"DATABASE": str(tmp_path / "d.sqlite3"), "TESTING": True},
                     hub=tb.hub, store=tb.store)
    client = app.test_client()
    start(tb)
    tb.frames(15, play0=card("?", candidates=("6c",)))
    page = client.get("/").get_data(as_text=True)
    assert 'id="holds"' in page and '"csrf": null' in page
    app.extensions["pin"].set(PIN)
    token = re.search(r'name="csrf_token" value="([^"]+)"',
                      client.get("/unlock").get_data(as_text=True)).group(1)
    client.post("/unlock", data={"pin": PIN, "csrf_token": token, "next": "/"})
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'"csrf": "([^"]+)"', page).group(1)
    # The chooser sends a rank and a suit; a card the rules rule out (the face-up
    # briscola, under the stock) gets the one line, in the phone's language.
    client.get("/lang/it")
    r = client.post("/table/pick", data={"seat": "0", "rank": "5", "suit": "s",
                                         "csrf_token": token}, follow_redirects=True)
    assert "5 di spade: questa carta non può essere lì ora." in r.get_data(as_text=True)
    assert plays(tb) == [] and "play0" in tb.tracker.holds
    r = client.post("/table/pick", data={"seat": "0", "rank": "6", "suit": "c",
                                         "csrf_token": token})
    assert r.status_code == 302 and plays(tb) == [(0, "6c")]


def test_a_hold_offers_at_most_four_likely_cards_and_stops_taking_guesses(tmp_path):
    tb = Table(tmp_path)
    start(tb)
    tb.frames(5, play0=card("9b"))
    # Six guesses, two of them impossible (played, under the stock): four are offered.
    tb.frames(15, play1=card("?", x=200, candidates=("9b", "7c", "6c", "5s", "4c", "3c",
                                                      "2c")))
    assert tb.tracker.holds["play1"].likely == ("7c", "6c", "4c", "3c")
    assert tb.hub.snapshot()["holds"][0]["likely"] == ["7c", "6c", "4c", "3c"]
    # Refusals are an oracle (each says "not there now"): after three, only the likely
    # cards are taken, and nothing else changed.
    for code in ("9b", "5s", "9b"):
        r = tb.hub.submit("pick", seat=1, card=code)
        assert r["kind"] == "not_possible" and r["message"] == "that card cannot be there now"
    r = tb.hub.submit("pick", seat=1, card="1d")  # possible, but no more guessing
    assert r["kind"] == "too_many" and plays(tb) == [(0, "9b")]
    assert tb.hub.submit("pick", seat=1, card="4C")["accepted"]
    assert plays(tb) == [(0, "9b"), (1, "4c")]


def test_a_wrong_card_corrected_from_the_phone_is_adopted_by_the_tracker(tmp_path):
    tb = Table(tmp_path)
    start(tb)
    tb.frames(5, play0=card("9b"))
    tb.frames(5, play1=card("7c", x=200))  # it was a 6c, misread
    assert plays(tb) == [(0, "9b"), (1, "7c")]
    r = tb.hub.submit("correct", seat=1, card="6c")
    assert r["accepted"], r
    assert plays(tb) == [(0, "9b"), (1, "6c")]
    # The camera goes on misreading the card lying there: no event, the correction stands.
    n = len(tb.fed)
    tb.frames(30, play1=card("7c", x=200))
    assert len(tb.fed) == n and tb.tracker.stats.overruled > 0
    # The store keeps the misread play and the correction, each its own row.
    kinds = [(e.event["type"], e.event.get("card")) for e in tb.store.events(tb.info.id)]
    assert kinds[-2:] == [("play", "7c"), ("correct", "6c")]
    # A bad correction: one clear line, nothing changes.
    r = tb.hub.submit("correct", seat=1, card="9b")
    assert not r["accepted"] and "already played" in r["message"]
    assert plays(tb) == [(0, "9b"), (1, "6c")]


def test_display_lines_fit_the_screen():
    from vision.tracker import Hold

    lines = hold_lines([Hold("play1", 1, "unknown", (), ()), Hold("play0", 0, "unknown", (),
                                                                  ())])
    assert lines[0].startswith("P2:") and lines[-1] == "(+1 more)"
    assert all(len(line) <= 21 for line in lines) and len(lines) <= 4
    assert hold_lines([]) == ()


# -- after a restart -----------------------------------------------------------------------

def restarted(tmp_path, players, events):
    """A table whose controller restarts after ``events``: a fresh tracker, primed."""
    tb = Table(tmp_path, players=players)
    tb.feed({"type": "hand", "dealer": players - 1}, *events)
    tb.tracker = Tracker(tb.tracker.seat_zones, lambda: tb.ctl.referee.hand)
    tb.ctl.tracker = tb.tracker
    tb.tracker.prime()
    return tb


def test_a_restart_reports_the_missed_plays_in_turn_order(tmp_path):
    tb = restarted(tmp_path, 3, [{"type": "trump", "card": "5s"},
                                 {"type": "play", "seat": 0, "card": "9b"}])
    # While the controller was down, seats 1 and 2 played: the trick is complete.
    out = tb.frames(12, briscola=card("5s"), play0=card("9b"), play1=card("7b", x=200),
                    play2=card("1b", x=300))
    assert [(d.event.seat, str(d.event.card)) for d in out] == [(1, "7b"), (2, "1b")]
    assert all(d.accepted for d in out) and tb.tracker.holds == {}
    assert tb.ctl.referee.hand.tricks[-1].winner == 2
    n = len(tb.fed)
    tb.frames(30)
    assert len(tb.fed) == n  # nothing replayed


def test_a_restart_asks_about_a_card_it_cannot_put_in_order(tmp_path):
    tb = restarted(tmp_path, 3, [{"type": "trump", "card": "5s"},
                                 {"type": "play", "seat": 0, "card": "9b"}])
    # Seat 1 (to play) shows nothing, seat 2 a card: it cannot be placed, so it is asked.
    out = tb.frames(12, briscola=card("5s"), play0=card("9b"), play2=card("1b", x=300))
    assert out == [] and tb.ctl.referee.hand.turn == 1
    hold = tb.tracker.holds["play2"]
    assert hold.reason == "unplaced" and hold.card == "1b" and hold.likely == ("1b",)
    assert "out of order" in " ".join(tb.indicators.state.text)
    # Seat 1 plays now; the camera sees it; the card of seat 2 is still only asked.
    out = tb.frames(5, play1=card("7b", x=200))
    assert [(d.event.seat, str(d.event.card)) for d in out] == [(1, "7b")]
    assert len(tb.ctl.referee.hand.current) == 2
    # Confirmed on the phone: played.
    assert tb.hub.submit("pick", seat=2, card="1b")["accepted"]
    assert tb.ctl.referee.hand.tricks[-1].winner == 2 and tb.tracker.holds == {}


def test_a_restart_asks_about_a_zone_contradicting_the_referee_and_an_unknown_face(tmp_path):
    tb = restarted(tmp_path, 3, [{"type": "trump", "card": "5s"},
                                 {"type": "play", "seat": 0, "card": "9b"}])
    out = tb.frames(15, briscola=card("5s"), play0=card("6b"), play1=card("?", x=200))
    assert out == []
    assert tb.tracker.holds["play0"].reason == "mismatch"
    assert tb.tracker.holds["play0"].likely == ("6b",)
    assert tb.tracker.holds["play1"].reason == "unknown"
    # The mismatch named on the phone is a correction of seat 0's card.
    assert tb.hub.submit("pick", seat=0, card="6b")["accepted"]
    assert [str(p.card) for p in tb.ctl.referee.hand.current] == ["6b"]
    assert tb.store.events(tb.info.id)[-1].event["type"] == "correct"
    # The unknown one, then straightened: reported in turn.
    out = tb.frames(4, play1=card("7b", x=204))
    assert [(d.event.seat, str(d.event.card)) for d in out] == [(1, "7b")]


def test_a_restart_collects_a_trick_taken_while_down_and_goes_on(tmp_path):
    tb = restarted(tmp_path, 2, [{"type": "trump", "card": "5s"},
                                 {"type": "play", "seat": 0, "card": "9b"},
                                 {"type": "play", "seat": 1, "card": "7b"}])
    # Seat 0 won; the trick was taken away and seat 0 led the next one.
    out = tb.frames(12, briscola=card("5s"), play0=card("3c"))
    assert [d.event.type for d in out] == ["play"] and out[0].accepted
    assert tb.ctl.referee.hand.current[0].seat == 0 and len(tb.ctl.referee.hand.tricks) == 1
    # Nothing on the table at all: just the collect.
    (tmp_path / "x").mkdir()
    tb2 = restarted(tmp_path / "x", 2,
                    [{"type": "trump", "card": "5s"},
                     {"type": "play", "seat": 0, "card": "9b"},
                     {"type": "play", "seat": 1, "card": "7b"}])
    out = tb2.frames(12, briscola=card("5s"))
    assert [d.event.type for d in out] == ["collect"]


def test_a_restart_with_the_table_as_refereed_reports_nothing(tmp_path):
    tb = restarted(tmp_path, 2, [{"type": "trump", "card": "5s"},
                                 {"type": "play", "seat": 0, "card": "9b"}])
    out = tb.frames(40, briscola=card("5s"), play0=card("9b"))
    assert out == [] and tb.tracker.holds == {}
    out = tb.frames(5, play1=card("7b", x=200))
    assert [(d.event.seat, str(d.event.card)) for d in out] == [(1, "7b")]


def test_a_restart_with_a_missing_card_asks_and_never_undoes(tmp_path):
    tb = restarted(tmp_path, 2, [{"type": "trump", "card": "5s"},
                                 {"type": "play", "seat": 0, "card": "9b"}])
    out = tb.frames(15, briscola=card("5s"))
    assert out == [] and tb.tracker.holds["play0"].reason == "missing"
    assert "9b is not on the table" in " ".join(tb.indicators.state.text)
    assert not tb.hub.submit("pick", seat=0, card="9b")["accepted"]
    out = tb.frames(5, play0=card("9b"))  # put back
    assert out == [] and tb.tracker.holds == {}
