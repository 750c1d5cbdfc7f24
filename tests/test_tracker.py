"""The tracker's temporal logic on scripted frame observations, refereed for real."""

from table_controller.engine.referee import Referee
from vision.tracker import FrameObs, Tracker, ZoneObs

SEATS = {0: "play0", 1: "play2"}


class Table:
    """A referee plus a tracker, fed frame by frame at 30 fps."""

    def __init__(self, variants=()):
        self.ref = Referee(players=2, variants=variants)
        self.ref.feed_json({"type": "hand", "players": 2, "dealer": 1})
        self.tracker = Tracker(SEATS, lambda: self.ref.hand)
        self.t = 0.0
        self.zones: dict[str, ZoneObs] = {}
        self.events: list[dict] = []
        self.decisions = []

    def frames(self, n=1, hands_from=(), **zones):
        for name, value in zones.items():
            if value is None:
                self.zones.pop(name, None)
            else:
                self.zones[name] = value
        for _ in range(n):
            obs = FrameObs(self.t, dict(self.zones), hands_from)
            for e in self.tracker.update(obs):
                self.events.append(e)
                self.decisions.append(self.ref.feed_json(e))
            self.t += 1 / 30


def card(code, x=100.0, y=100.0, hidden=False):
    return ZoneObs(code, (x, y), hidden)


def kinds(table):
    return [e["type"] for e in table.events]


def deal(table, trump="5s"):
    table.frames(5, briscola=card(trump))
    assert table.events[-1] == {"type": "trump", "card": trump, "t": table.events[-1]["t"]}


def test_a_card_is_played_once_it_lies_still_for_three_frames():
    tb = Table()
    deal(tb)
    tb.frames(2, play0=card("3c", hidden=True))  # the hand still over it
    tb.frames(2, play0=card("3c"))
    assert kinds(tb) == ["trump"]
    tb.frames(1)
    assert tb.events[-1]["type"] == "play" and tb.events[-1]["card"] == "3c"
    assert tb.decisions[-1].accepted and tb.ref.hand.turn == 1
    tb.frames(30)
    assert kinds(tb) == ["trump", "play"]  # lying there is not news


def test_a_moving_card_is_not_played_until_it_stops():
    tb = Table()
    deal(tb)
    for x in range(0, 60, 6):
        tb.frames(1, play0=card("3c", x=100 + x))
    assert kinds(tb) == ["trump"]
    tb.frames(3)
    assert kinds(tb) == ["trump", "play"]


def test_hand_covering_a_card_mid_trick_makes_no_event():
    tb = Table()
    deal(tb)
    tb.frames(5, play0=card("3c"))
    tb.frames(30, play0=ZoneObs(None, None, hidden=True))  # covered: looks empty
    tb.frames(30, play0=ZoneObs("?", (100, 100)))  # glare: unknown face
    tb.frames(10, play0=card("3c"))
    assert kinds(tb) == ["trump", "play"]


def test_shadow_flicker_shorter_than_gone_window_is_ignored():
    tb = Table()
    deal(tb)
    tb.frames(5, play0=card("3c"))
    tb.frames(5, play0=ZoneObs(None))
    tb.frames(5, play0=card("3c"))
    assert kinds(tb) == ["trump", "play"]


def test_trick_collected_when_all_its_cards_are_gone():
    tb = Table()
    deal(tb)
    tb.frames(5, play0=card("3c"))
    tb.frames(5, play2=card("1c"))
    assert tb.decisions[-1].trick_winner == 1
    tb.frames(20, play0=ZoneObs(None), play2=ZoneObs(None))
    assert kinds(tb) == ["trump", "play", "play", "collect"]
    assert tb.decisions[-1].accepted and tb.ref.hand.table == ()


def test_card_taken_back_is_undone():
    tb = Table()
    deal(tb)
    tb.frames(5, play0=card("3c"))
    tb.frames(20, play0=ZoneObs(None))
    assert kinds(tb) == ["trump", "play", "undo"]
    assert tb.ref.hand.current == [] and tb.ref.hand.turn == 0


def test_card_knocked_into_another_zone_is_no_news_there_nor_put_back():
    tb = Table()
    deal(tb)
    tb.frames(5, play0=card("3c"))
    # 3c is seat 0's card of this trick: in seat 1's zone it cannot honestly be, so it
    # is never reported there (no duplicate), its own zone emptying is not an undo, and
    # it raises no hold (a moved card, not an unknown one).
    tb.frames(20, play0=ZoneObs(None), play2=card("3c", x=200))
    assert kinds(tb) == ["trump", "play"] and tb.tracker.holds == {}
    assert tb.tracker.stats.impossible > 0
    tb.frames(20, play0=card("3c"), play2=ZoneObs(None))
    assert kinds(tb) == ["trump", "play"]
    tb.frames(5, play2=card("1c", x=200))
    assert kinds(tb) == ["trump", "play", "play"]
    assert tb.decisions[-1].accepted and tb.decisions[-1].trick_winner == 1


def test_out_of_turn_card_is_rejected_and_its_removal_is_no_news():
    tb = Table()
    deal(tb)
    tb.frames(5, play2=card("1c", x=200))
    assert tb.decisions[-1].violation.kind == "out_of_turn"
    tb.frames(20, play2=ZoneObs(None))
    assert kinds(tb) == ["trump", "play"]
    tb.frames(5, play0=card("3c"))
    assert tb.decisions[-1].accepted


def test_swap7_seat_is_the_last_winner():
    tb = Table(variants=("swap7",))
    deal(tb, "10s")
    tb.frames(5, play0=card("2s"))
    tb.frames(5, play2=card("4c", x=200))
    tb.frames(20, play0=ZoneObs(None), play2=ZoneObs(None))
    tb.frames(4, briscola=ZoneObs(None, hidden=True), hands_from=(0,))
    tb.frames(5, briscola=card("7s"))
    assert tb.events[-1]["type"] == "swap" and tb.events[-1]["seat"] == 0
    assert tb.decisions[-1].accepted


def test_swap2_seat_comes_from_the_hand_that_made_it():
    tb = Table(variants=("swap2",))
    deal(tb, "10s")
    tb.frames(4, briscola=ZoneObs(None, hidden=True), hands_from=(1,))
    tb.frames(5, briscola=card("2s"))
    assert tb.events[-1] == {"type": "swap", "seat": 1, "card": "2s", "t": tb.events[-1]["t"]}
    assert tb.decisions[-1].accepted


def test_event_time_is_the_settling_frame():
    tb = Table()
    deal(tb)
    t0 = tb.t
    tb.frames(3, play0=card("3c"))
    assert abs(tb.events[-1]["t"] - (t0 + 2 / 30)) < 1e-9


def test_next_deal_after_the_last_trick_starts_a_hand():
    import random

    from table_controller.engine.rules import HandRules
    from table_controller.engine.simulation import play_hand

    tb = Table()
    sim = play_hand(HandRules(2), 1, random.Random(2))
    for e in sim.events[1:]:
        assert tb.ref.feed(e).accepted
    assert tb.ref.hand.is_over()
    tb.frames(5, briscola=card("4d"))
    assert kinds(tb) == ["hand", "trump"]
    assert all(d.accepted for d in tb.decisions) and len(tb.ref.hands) == 2
    assert tb.ref.hand.dealer == 0 and str(tb.ref.hand.briscola) == "4d"
