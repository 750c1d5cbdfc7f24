"""The ``correct`` event: a card named wrongly is replaced and the rest re-refereed."""

import random

import pytest

from table_controller.engine.cards import Card
from table_controller.engine.events import (
    Correct,
    IllegalEvent,
    Play,
    ViolationKind,
    event_from_json,
    parse_token,
)
from table_controller.engine.hand import Hand
from table_controller.engine.record import Record, parse_records
from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand, trick_winner
from table_controller.store import Store

C = Card.parse


def _misread_case(seed: int, players: int = 2):
    """A clean hand, and the same hand with one play misread and later corrected.

    The misread card is one played later in the hand (every card of a 2-player hand is
    played), chosen so that the misread does not change the trick's winner: the rest of
    the hand stays legal under the misread, as it would at a table whose players
    followed the LEDs. The correction comes at a random point before the misread card
    really turns up."""
    rng = random.Random(seed)
    sim = play_hand(HandRules.of(players), rng.randrange(players), rng)
    events = sim.events
    trump = sim.briscola.suit
    plays = [i for i, e in enumerate(events) if isinstance(e, Play)]
    for _ in range(200):
        i = rng.choice(plays[:-2])
        later = [j for j in plays if j > i + 1]
        j = rng.choice(later)
        wrong = events[j].card
        if wrong is sim.briscola:  # known to be in the taker's hand: refused, not misread
            continue
        # The trick holding play i, as (seat, card) pairs.
        k = plays.index(i)
        first = plays[k - k % players: k - k % players + players]
        trick = [(events[p].seat, events[p].card) for p in first]
        misread = [(s, wrong if p == i else c) for p, (s, c) in zip(first, trick, strict=True)]
        if trick_winner(trick, trump) != trick_winner(misread, trump):
            continue
        # The trick must be complete before the correction (or corrected mid-trick).
        fix_at = rng.randrange(i + 1, j + 1)
        bad = list(events)
        bad[i] = Play(events[i].seat, wrong)
        seat = events[i].seat
        # "was" names the play when the seat has played again since (else its latest).
        again = any(isinstance(e, Play) and e.seat == seat for e in events[i + 1:fix_at])
        bad.insert(fix_at, Correct(seat, events[i].card, wrong if again else None))
        return events, bad, fix_at
    raise AssertionError("no usable misread found")


@pytest.mark.parametrize("seed", range(12))
def test_a_correction_mid_hand_re_referees_the_rest_identically_to_a_clean_hand(seed):
    clean, misread, fix_at = _misread_case(seed)
    ref_clean, ref_fixed = Referee(), Referee()
    for e in clean:
        assert ref_clean.feed(e).accepted
    for n, e in enumerate(misread):
        d = ref_fixed.feed(e)
        assert d.accepted, (n, e, d.violation)
        if n == fix_at:
            assert d.replaced is not None and d.replaced.card is not e.card
    a, b = ref_clean.hand, ref_fixed.hand
    assert b.line == a.line  # the corrected line is the clean one, event for event
    assert (b.tricks, b.points, b.outcome(), b.view()) == (a.tricks, a.points, a.outcome(),
                                                          a.view())
    assert ref_fixed.standing() == ref_clean.standing()
    assert any(isinstance(e, Correct) for e in b.move_stack)  # the correction is kept
    assert b.copy() == b  # replaying move_stack, correction included, gives the same hand


def _start(ref, *plays):
    ref.feed_json({"type": "hand", "players": 2, "dealer": 1})
    ref.feed_json({"type": "trump", "card": "5s"})
    for seat, card in plays:
        d = ref.feed_json({"type": "play", "seat": seat, "card": card})
        assert d.accepted, d.violation


def test_a_correction_changing_a_trick_winner_re_referees_the_later_plays():
    ref = Referee()
    # Seat 1's 7b was read; it was 1b (Asso), which beats the 9b: seat 1 won and led.
    _start(ref, (0, "9b"), (1, "7b"))
    d = ref.feed_json({"type": "correct", "seat": 1, "card": "1b"})
    assert d.accepted and d.replaced == Play(1, C("7b"))
    assert ref.hand.tricks[-1].winner == 1 and d.turn == 1
    assert ref.hand.points == [0, 14]


def test_a_correction_the_rest_cannot_follow_is_rejected_and_changes_nothing():
    ref = Referee()
    # 9b beat 7b: seat 0 led again with 1c. If the 7b had been a 1b, seat 1 would have led.
    _start(ref, (0, "9b"), (1, "7b"), (0, "1c"))
    before = ref.hand._key(), ref.hand.line
    d = ref.feed_json({"type": "correct", "seat": 1, "card": "1b"})
    assert not d.accepted
    assert d.violation.kind is ViolationKind.OUT_OF_TURN
    assert "cannot correct seat 1's 7b to 1b" in d.violation.message
    assert "seat 0 played 1c but it is seat 1's turn" in d.violation.message
    assert (ref.hand._key(), ref.hand.line) == before


@pytest.mark.parametrize("event, kind, words", [
    ({"type": "correct", "seat": 1, "card": "9b"}, ViolationKind.DUPLICATE_CARD,
     "already played"),
    ({"type": "correct", "seat": 1, "card": "5s"}, ViolationKind.DUPLICATE_CARD,
     "face-up briscola"),
    ({"type": "correct", "seat": 1, "card": "7b"}, ViolationKind.BAD_EVENT, "already 7b"),
    ({"type": "correct", "seat": 1, "card": "6c", "was": "3c"}, ViolationKind.BAD_EVENT,
     "has not played a 3c"),
    ({"type": "correct", "seat": 5, "card": "6c"}, ViolationKind.BAD_EVENT, "seats are 0..1"),
    ({"type": "correct", "seat": 1, "card": "11c"}, ViolationKind.NOT_IN_DECK, "11c"),
    ({"type": "correct", "card": "6c"}, ViolationKind.BAD_EVENT, "'seat'"),
])
def test_bad_corrections_get_one_clear_violation(event, kind, words):
    ref = Referee()
    _start(ref, (0, "9b"), (1, "7b"))
    before = ref.hand._key()
    d = ref.feed_json(event)
    assert not d.accepted and d.violation.kind is kind
    assert words in d.violation.message and "\n" not in d.violation.message
    assert ref.hand._key() == before


def test_nothing_to_correct_before_a_play_and_without_a_hand():
    ref = Referee()
    d = ref.feed_json({"type": "correct", "seat": 0, "card": "6c"})
    assert not d.accepted and ref.hands == []
    _start(ref)
    d = ref.feed_json({"type": "correct", "seat": 0, "card": "6c"})
    assert not d.accepted and "has not played a card" in d.violation.message


def test_undo_of_a_correction_restores_the_original_and_the_most_recent_play_is_meant():
    ref = Referee()
    _start(ref, (0, "9b"), (1, "7b"), (0, "1c"), (1, "3c"))
    original = ref.hand._key()
    # Without "was": seat 1's most recent play (3c), not its 7b.
    assert ref.feed_json({"type": "correct", "seat": 1, "card": "2c"}).accepted
    assert ref.hand.tricks[-1].plays[-1] == Play(1, C("2c"))
    # With "was": the named one.
    assert ref.feed_json({"type": "correct", "seat": 1, "card": "6b", "was": "7b"}).accepted
    assert ref.hand.tricks[0].plays[-1] == Play(1, C("6b"))
    d = ref.feed_json({"type": "undo"})
    assert d.accepted and isinstance(d.undone, Correct) and d.undone.was == C("7b")
    assert ref.hand.tricks[0].plays[-1] == Play(1, C("7b"))
    assert ref.feed_json({"type": "undo"}).accepted
    assert ref.hand._key() == original
    d = ref.feed_json({"type": "undo"})  # then the plays themselves
    assert d.undone == Play(1, C("3c"))


def test_the_correction_token_round_trips_and_records_replay_to_the_corrected_state():
    assert parse_token("correct:1:6c") == Correct(1, C("6c"))
    assert parse_token("correct:1:6c:7c") == Correct(1, C("6c"), C("7c"))
    assert str(Correct(1, C("6c"), C("7c"))) == "correct:1:6c:7c"
    assert event_from_json({"type": "correct", "seat": 1, "card": "6c", "was": "7c"}) == \
        Correct(1, C("6c"), C("7c"))
    assert Correct(1, C("6c")).to_json() == {"type": "correct", "seat": 1, "card": "6c"}
    with pytest.raises(IllegalEvent):
        parse_token("correct:x:6c")
    clean, misread, _ = _misread_case(5)
    ref = Referee()
    for e in misread:
        ref.feed(e)
    record = Record.from_hand(ref.hand, ["A", "B"])
    text = str(record)
    assert "correct:" in text
    again = parse_records(text)[0].replay()
    assert again == ref.hand and again.line == ref.hand.line


def test_the_store_keeps_the_original_and_the_correction_and_resumes_corrected(tmp_path):
    clean, misread, fix_at = _misread_case(7)
    store = Store(tmp_path / "t.sqlite3")
    info = store.new_match(players=2)
    ref = info.referee()
    fed = misread[: fix_at + 3]
    for e in fed:
        d = ref.feed(e)
        assert d.accepted
        store.append_event(info.id, e.to_json(), d, ref)
    rows = store.events(info.id)
    # Every row as fed: the misread play's row stays, the correction is a row of its own.
    assert [r.event for r in rows] == [e.to_json() for e in fed]
    assert all(r.accepted for r in rows) and rows[fix_at].event["type"] == "correct"
    misread_play = next(e for e, c in zip(fed, clean, strict=False) if e != c)
    assert misread_play.to_json() in [r.event for r in rows]
    store.close()
    store = Store(tmp_path / "t.sqlite3")
    resumed, _ = store.resume()
    store.close()
    assert resumed.hand == ref.hand and resumed.hand.line == ref.hand.line
    plays = sum(1 for e in resumed.hand.line if isinstance(e, Play))
    ref_clean = Referee()
    for e in clean:
        if sum(1 for x in (ref_clean.hand.line if ref_clean.hand else ())
               if isinstance(x, Play)) == plays:
            break
        ref_clean.feed(e)
    assert [e for e in resumed.hand.line if isinstance(e, Play)] == \
        [e for e in ref_clean.hand.line if isinstance(e, Play)]


def test_a_hand_pushes_and_pops_corrections_like_any_event():
    hand = Hand(HandRules.of(2), dealer=1)
    for e in ("trump:5s", "0:9b", "1:7b", "correct:1:1b"):
        hand.push(parse_token(e))
    assert hand.turn == 1 and len(hand.move_stack) == 4 and len(hand.line) == 3
    assert hand.pop() == Correct(1, C("1b"))
    assert hand.turn == 0 and hand.line[-1] == Play(1, C("7b"))
