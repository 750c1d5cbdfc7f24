"""One numbering for players on the table: P1 is seat 0.

The referee numbers seats from 0 in its JSON and its messages (a contract the
tests of the referee pin down); the board's screen, its LED legends and the
mat's labels number players from 1. ``Indicators.violation`` rewrites the seat
numbers of the referee's message for the screen, so the title ("! NOT YOUR
TURN P2") and the text under it name the same player the same way.
"""

from __future__ import annotations

import re
import time

import pytest

from firmware_bridge.emulator import Emulator, build, compiler
from firmware_bridge.indicators import Indicators
from firmware_bridge.link import BoardLink
from firmware_bridge.screen import player_labels, render, seat_label
from firmware_bridge.table_state import ERROR_KINDS, TableState
from table_controller.engine.referee import Referee

SEAT_NUMBER = re.compile(r"\bseats?(\(s\))? \d", re.IGNORECASE)


@pytest.mark.parametrize(("message", "shown"), [
    # the formats the referee writes (table_controller/engine/hand.py, referee.py)
    ("seat 1 played 3c but it is seat 0's turn", "P2 played 3c but it is P1's turn"),
    ("5s is in seat 2's hand, not seat 0's", "5s is in P3's hand, not P1's"),
    ("the match is over: won by seat(s) 0, 2", "the match is over: won by P1, P3"),
    ("the match is over: won by seat(s) 1", "the match is over: won by P2"),
    ("play by seat 4: seats are 0..3 with 4 players",
     "play by P5: seats are P1..P4 with 4 players"),
    ("dealer must be a seat 0..2, not 3", "dealer must be a seat P1..P3, not P4"),
    ("seat 2 deals this hand; by the rotation it was seat 1's deal (after a finished hand "
     "the deal passes on)",
     "P3 deals this hand; by the rotation it was P2's deal (after a finished hand "
     "the deal passes on)"),
    ("only the winner of the last trick (seat 1) may swap the 7 of trump, not seat 0",
     "only the winner of the last trick (P2) may swap the 7 of trump, not P1"),
    ("the auction is over: seat 3 already called 3c", "the auction is over: P4 already called 3c"),
    ("the hand is over: all 20 tricks were played (7b by seat 1)",
     "the hand is over: all 20 tricks were played (7b by P2)"),
    ("Seat 5 played 1d", "P6 played 1d"),
    ("seats 0 and 2 tie", "P1 and P3 tie"),
    # numbers that are not seats stay as they are
    ("7d was already played this hand", "7d was already played this hand"),
    ("this match is for 2 players, not 4", "this match is for 2 players, not 4"),
    ("seat 3 and 4 cards", "P4 and 4 cards"),
    ("play by seat -1: seats are 0..1 with 2 players",
     "play by seat -1: seats are P1..P2 with 2 players"),
    ("", ""),
])
def test_player_labels_rewrites_only_seat_numbers(message, shown):
    assert player_labels(message) == shown


def test_labels_are_one_based_everywhere():
    assert [seat_label(s) for s in range(6)] == ["P1", "P2", "P3", "P4", "P5", "P6"]
    assert player_labels("seat 0") == seat_label(0)


def referee_violation(events, indicators=None):
    """Feeds the events to a real referee (and its decisions, with the hand, to
    ``indicators``); the last one must be refused. Returns its decision."""
    ref = Referee(players=2)
    decision = None
    for ev in events:
        decision = ref.feed_json(ev)
        if indicators is not None:
            indicators.apply(decision, ref.hand)
    assert decision is not None and not decision.accepted and decision.violation is not None
    return decision


OUT_OF_TURN = [{"type": "hand", "players": 2, "dealer": 1}, {"type": "trump", "card": "5s"},
               {"type": "play", "seat": 1, "card": "3c"}]


@pytest.mark.parametrize(("events", "title", "text"), [
    (OUT_OF_TURN, "P2", "P2 played 3c but it is P1's turn"),
    ([{"type": "hand", "players": 2, "dealer": 1}, {"type": "trump", "card": "5s"},
      {"type": "play", "seat": 0, "card": "1c"}, {"type": "play", "seat": 0, "card": "2c"}],
     "P1", "P1 played 2c but it is P2's turn"),
    ([{"type": "hand", "players": 2, "dealer": 1}, {"type": "trump", "card": "5s"},
      {"type": "play", "seat": 4, "card": "3c"}],
     None, "play by P5: seats are P1..P2 with 2 players"),
])
def test_the_screen_names_players_as_its_title_does(events, title, text):
    ind = Indicators()
    decision = referee_violation(events, ind)
    referee_message = decision.violation.message
    state = ind.state
    assert state.players == 2 and state.error_kind
    # What the screen gets: P-labels, no "seat N" left...
    assert state.error_text == text
    assert not SEAT_NUMBER.search(state.error_text)
    # ... and the same player as the title, which the screen labels from error_seat.
    if title is None:
        assert state.error_seat is None  # seat 4 is not at a 2-player table
    else:
        assert seat_label(state.error_seat) == title
        assert state.error_text.startswith(title + " ")
    # The referee's message, its contract, still numbers seats from 0.
    assert decision.violation.message == referee_message
    assert decision.violation.to_json()["message"] == referee_message
    assert SEAT_NUMBER.search(referee_message)


def test_direct_violation_calls_are_rewritten_too():
    ind = Indicators()
    ind.new_hand(4, 0)
    ind.violation("out_of_turn", "seat 3 played 1d but it is seat 1's turn", seat=3)
    assert (ind.state.error_kind, ind.state.error_seat) == (ERROR_KINDS["out_of_turn"], 3)
    assert ind.state.error_text == "P4 played 1d but it is P2's turn"


@pytest.mark.skipif(compiler() is None, reason="gcc not installed: cannot build the firmware "
                    "emulator")
def test_the_board_oled_shows_player_labels():
    """Through the real firmware: the OLED draws exactly the rewritten text."""
    expected = TableState(players=2, dealer=1, turn=0, trump_suit="s", trump_rank=5,
                          error_kind=ERROR_KINDS["out_of_turn"], error_seat=1,
                          error_text="P2 played 3c but it is P1's turn")
    with Emulator(binary=build()) as emu:
        link = BoardLink(emu.port, ack_timeout=0.2, retries=5).start()
        with Indicators([link]) as ind:
            referee_violation(OUT_OF_TURN, ind)
            assert ind.state == expected
            assert link.wait_synced(5)
            assert emu.table() == expected
            end = time.monotonic() + 3
            while not (emu.framebuffer() == render(expected)).all():
                assert time.monotonic() < end, "the OLED never showed the violation"
                time.sleep(0.01)


def test_a_dealer_out_of_rotation_is_said_on_the_display_until_the_table_moves_on():
    from table_controller.engine.cards import Card
    from table_controller.engine.events import HandStart, Trump

    referee = Referee(players=3)
    ind = Indicators()
    d = referee.feed(HandStart(players=3, dealer=0))
    ind.apply(d, referee.hand)
    assert ind.state.text == ()  # the first hand: no rotation to break
    # Abandoned, redealt by another seat: taken, with a note the display says.
    d = referee.feed(HandStart(players=3, dealer=2))
    assert d.note is not None and d.note.expected == 0
    ind.apply(d, referee.hand)
    assert ind.state.text == ("DEALER OUT OF TURN", "P3 deals;", "it was P1's deal")
    assert ind.state.dealer == 2 and ind.state.players == 3
    d = referee.feed(Trump(Card.parse("5s")))
    ind.apply(d, referee.hand)
    assert ind.state.text == () and ind.state.trump_suit == "s"
    assert "DEALER" not in "".join(ind.state.text)
    assert render(ind.state).any()
