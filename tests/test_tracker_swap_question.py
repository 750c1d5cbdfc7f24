"""The face-up briscola under the stock shows the same half as a card a swap may leave
there: after a hand reached the stock, the table asks once, and never guesses."""

from __future__ import annotations

import pytest

from table_controller.controller import Controller
from table_controller.engine.referee import Referee
from vision.tracker import UNKNOWN, FrameObs, Tracker, ZoneObs

SEATS = {0: "play0", 1: "play1"}


class Seen:
    def observe(self, frame, t):
        return frame


@pytest.fixture
def table():
    referee = Referee(players=2, variants=("swap7",), dealer=1)
    ctl = Controller(referee, observer=Seen())
    ctl.tracker = Tracker(SEATS, lambda: ctl.referee.hand)
    state = {"t": 0.0, "zones": {}}

    def frames(n=1, **zones):
        for name, value in zones.items():
            if value is None:
                state["zones"].pop(name, None)
            else:
                state["zones"][name] = value
        out = []
        for _ in range(n):
            out += ctl.on_frame(FrameObs(state["t"], dict(state["zones"])), state["t"])
            state["t"] += 1 / 30
        return out

    ctl.submit({"type": "hand", "players": 2, "dealer": 1, "variants": ["swap7"]})
    frames(5, briscola=ZoneObs("8s", (300.0, 57.0)))
    assert str(referee.hand.briscola) == "8s"
    # A trick won by seat 0 (Asso of coppe over the 4), then the cards are collected.
    frames(5, play0=ZoneObs("1c", (100.0, 200.0)))
    frames(5, play1=ZoneObs("4c", (200.0, 100.0)))
    frames(12, play0=None, play1=None)
    assert len(referee.hand.tricks) == 1 and referee.hand.tricks[0].winner == 0
    # Seat 0 reaches for the stock; the card there now reads like both the 8 and the 7.
    frames(3, briscola=ZoneObs("8s", (300.0, 57.0), hidden=True))
    frames(12, briscola=ZoneObs(UNKNOWN, (300.0, 57.0), candidates=("8s", "7s")))
    return ctl, referee, frames


def test_an_ambiguous_half_after_a_reach_is_asked_not_guessed(table):
    ctl, referee, _ = table
    hold = ctl.tracker.holds.get("briscola")
    assert hold is not None and set(hold.likely) == {"8s", "7s"}
    assert str(referee.hand.briscola) == "8s"  # nothing was guessed


def test_the_answer_swapped_makes_the_swap(table):
    ctl, referee, frames = table
    result = ctl.execute("pick", {"zone": "briscola", "card": "7s"})
    assert result["accepted"], result
    assert str(referee.hand.briscola) == "7s"
    swap = referee.hand.move_stack[-1]
    assert swap.type == "swap" and swap.seat == 0  # by the trick's winner
    assert "briscola" not in ctl.tracker.holds
    frames(12, briscola=ZoneObs(UNKNOWN, (300.0, 57.0), candidates=("8s", "7s")))
    assert "briscola" not in ctl.tracker.holds  # asked once


def test_the_answer_not_swapped_changes_nothing(table):
    ctl, referee, _ = table
    before = len(referee.hand.move_stack)
    assert ctl.execute("pick", {"zone": "briscola", "card": "8s"})["accepted"]
    assert str(referee.hand.briscola) == "8s" and len(referee.hand.move_stack) == before
    assert "briscola" not in ctl.tracker.holds


def test_without_swap_variants_there_is_nothing_to_ask():
    referee = Referee(players=2, dealer=1)
    ctl = Controller(referee, observer=Seen())
    ctl.tracker = Tracker(SEATS, lambda: ctl.referee.hand)
    ctl.submit({"type": "hand", "players": 2, "dealer": 1})
    t = 0.0
    for obs in [ZoneObs("8s", (300.0, 57.0))] * 5 + [ZoneObs("8s", (300.0, 57.0),
                                                           hidden=True)] * 3 + \
            [ZoneObs(UNKNOWN, (300.0, 57.0), candidates=("8s", "7s"))] * 12:
        ctl.on_frame(FrameObs(t, {"briscola": obs}), t)
        t += 1 / 30
    assert not ctl.tracker.holds
