"""The Indicators facade driven by the real referee, pins checked with gpiozero's mocks."""

from __future__ import annotations

import random

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware_bridge.config import IndicatorsConfig
from firmware_bridge.display import ImageDisplay
from firmware_bridge.indicators import IndicatorError, Indicators
from firmware_bridge.screen import render
from firmware_bridge.table_state import OUTCOME_WIN
from table_controller.engine.cards import deck_for
from table_controller.engine.referee import Referee

SEATS = (17, 27, 22, 23)
WINNERS = (5, 6, 13, 19)
BUZZER = 18
BUTTONS = {"confirm": 16, "undo": 20, "new_hand": 12}


@pytest.fixture
def factory():
    f = MockFactory(pin_class=MockPWMPin)
    yield f
    f.reset()


@pytest.fixture
def table(factory):
    config = IndicatorsConfig(seat_leds=SEATS, winner_leds=WINNERS, buzzer=BUZZER,
                              buttons=BUTTONS, bounce_ms=0)
    image = ImageDisplay()
    ind = Indicators.from_config(config, pin_factory=factory, extra=[image])
    yield ind, image
    ind.close()


def lit(factory, pins):
    return [seat for seat, pin in enumerate(pins) if factory.pin(pin).state]


def play_hand(players, seed, mistakes=()):
    """Events of a whole legal hand, the referee deciding whose turn it is. Yields
    (event, decision, referee) after feeding each one."""
    rng = random.Random(seed)
    ref = Referee(players=players)
    deck = list(deck_for(players))
    rng.shuffle(deck)
    face_up = deck.pop()
    for ev in ({"type": "hand", "players": players, "dealer": players - 1},
               {"type": "trump", "card": str(face_up)}):
        yield ev, ref.feed_json(ev), ref
    pool = deck + [face_up]
    played = []
    turn = 0
    while pool:
        hand = ref.hand
        if face_up in pool and hand.briscola_taker == turn:
            card = face_up
        else:
            card = next(c for c in pool if c is not face_up)
        if len(played) in mistakes:  # someone else plays out of turn, or a card twice
            bad = ({"type": "play", "seat": (turn + 1) % players, "card": str(card)}
                   if mistakes[len(played)] == "out_of_turn" else
                   {"type": "play", "seat": turn, "card": str(played[-1])})
            yield bad, ref.feed_json(bad), ref
        ev = {"type": "play", "seat": turn, "card": str(card)}
        decision = ref.feed_json(ev)
        assert decision.accepted, decision
        pool.remove(card)
        played.append(card)
        yield ev, decision, ref
        turn = decision.turn if decision.turn is not None else turn


@pytest.mark.parametrize("players", [2, 4])
def test_turn_and_trick_winner_leds_follow_a_whole_hand(table, factory, players):
    ind, image = table
    tricks = 0
    mistakes = {3: "out_of_turn", 8: "duplicate_card"}
    beeps = 0
    for ev, decision, ref in play_hand(players, seed=players, mistakes=mistakes):
        ind.apply(decision, ref.hand)
        if ev["type"] == "hand":
            assert lit(factory, SEATS[:players]) == [0]  # the seat after the dealer leads
            assert lit(factory, WINNERS) == []
        if not decision.accepted:
            beeps += wait_for_beep(factory, len(factory.pin(BUZZER).states))
            assert ind.state.error_kind != 0
            assert ind.state.error_text
            # the seat that really has the turn stays lit
            assert lit(factory, SEATS) == [decision.turn]
            continue
        assert ind.state.error_kind == 0
        if decision.trick_winner is not None:
            tricks += 1
            assert ind.state.trick_seat == decision.trick_winner
            assert ind.state.draw_order == decision.draw_order
            assert ind.state.trick_no == tricks
            if not decision.hand_over:
                assert lit(factory, WINNERS) == [decision.trick_winner], f"after trick {tricks}"
                # the winner leads the next trick: their turn LED, nobody else's
                assert lit(factory, SEATS) == [decision.trick_winner]
        elif decision.turn is not None and ev["type"] == "play":
            assert lit(factory, SEATS) == [decision.turn]
        assert (image.frame == render(ind.state)).all()
    assert tricks == 40 // players
    result = ref.hand.outcome()
    assert ind.state.outcome == OUTCOME_WIN or result.result == "tie"
    assert ind.state.points == result.points
    assert lit(factory, SEATS) == []  # hand over: no turn
    assert lit(factory, WINNERS) == sorted(result.winners)
    assert ind.state.trump_suit and ind.state.trump_rank
    assert beeps == 2  # one beep per violation


def wait_for_beep(factory, seen):
    """1 if the buzzer pin goes high within 0.5 s (it beeps in a background thread)."""
    import time
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        if any(s.state for s in factory.pin(BUZZER).states[seen:]):
            return 1
        time.sleep(0.005)
    return 0


def test_buttons_are_debounced_and_reported(factory):
    config = IndicatorsConfig(seat_leds=SEATS, buttons=BUTTONS, bounce_ms=50)
    got = []
    with Indicators.from_config(config, pin_factory=factory) as ind:
        ind.on_button(got.append)
        pin = factory.pin(BUTTONS["undo"])
        for _ in range(5):  # a bouncing contact: one press
            pin.drive_low()
            pin.drive_high()
        import time
        time.sleep(0.08)
        factory.pin(BUTTONS["confirm"]).drive_low()
        factory.pin(BUTTONS["confirm"]).drive_high()
        time.sleep(0.08)
        factory.pin(BUTTONS["new_hand"]).drive_low()
    assert got == ["undo", "confirm", "new_hand"]


def test_rgb_leds_mix_turn_winner_and_violation(factory):
    rgb = ((4, 5, 6), (7, 8, 9))
    with Indicators.from_config(IndicatorsConfig(rgb_leds=rgb), pin_factory=factory) as ind:
        ind.new_hand(2, 1)
        assert [factory.pin(p).state for p in rgb[0]] == [0, 0, 1]  # seat 0 leads: blue
        ind.trick_won(1)
        ind.turn(1)
        assert [factory.pin(p).state for p in rgb[1]] == [0, 1, 1]  # won and leads: cyan
        ind.violation("out_of_turn", "seat 1 played out of turn", seat=0)
        assert [factory.pin(p).state for p in rgb[0]] == [1, 0, 0]  # red
        ind.hand_result((70, 50), winners=(0,))
        assert [factory.pin(p).state for p in rgb[0]] == [1, 1, 0]
        assert [factory.pin(p).state for p in rgb[1]] == [0, 0, 0]


def test_facade_refuses_seats_outside_the_hand(table):
    ind, _ = table
    ind.new_hand(2, 0)
    with pytest.raises(IndicatorError, match="turn"):
        ind.turn(3)
    with pytest.raises(IndicatorError, match="trump"):
        ind.trump("zz")
    ind.trump("10b")
    assert (ind.state.trump_suit, ind.state.trump_rank) == ("b", 10)
    ind.violation("no_such_kind", "è strano", seat=9)
    assert ind.state.error_kind == 8 and ind.state.error_seat is None
    assert ind.state.error_text == "e strano"


def test_undo_restores_the_previous_trick(table, factory):
    ind, _ = table
    ref = Referee(players=2)
    events = [{"type": "hand", "players": 2, "dealer": 1}, {"type": "trump", "card": "5s"},
              {"type": "play", "seat": 0, "card": "1d"}, {"type": "play", "seat": 1, "card": "3d"},
              {"type": "play", "seat": 0, "card": "2c"}, {"type": "play", "seat": 1, "card": "1c"},
              {"type": "undo"}]
    for ev in events:
        ind.apply(ref.feed_json(ev), ref.hand)
        if ev.get("card") == "3d":
            assert lit(factory, WINNERS) == [0]
        if ev.get("card") == "1c":
            assert lit(factory, WINNERS) == [1]
    assert lit(factory, WINNERS) == [0]  # the second trick was undone
    assert lit(factory, SEATS) == [1]
    assert ind.state.trump_suit == "s" and ind.state.trump_rank == 5


def test_a_swap_changes_the_face_up_card_shown(table):
    ind, image = table
    ref = Referee(players=2, variants=("swap7",))
    for ev in ({"type": "hand", "players": 2, "dealer": 1}, {"type": "trump", "card": "9s"},
               {"type": "play", "seat": 0, "card": "1d"}, {"type": "play", "seat": 1, "card": "3d"},
               {"type": "swap", "seat": 0, "card": "7s"}):
        decision = ref.feed_json(ev)
        assert decision.accepted, decision
        ind.apply(decision, ref.hand)
    assert (ind.state.trump_suit, ind.state.trump_rank) == ("s", 7)
    assert (image.frame == render(ind.state)).all()
    ind.apply(ref.feed_json({"type": "swap", "seat": 1, "card": "2s"}), ref.hand)
    assert ind.state.error_kind != 0 and ind.state.trump_rank == 7  # refused: unchanged
