"""The dealer as the table says: a hand event's dealer is taken, a broken rotation is a note.

Recorded files and the table's own setup say who dealt. The referee starts the
hand with that dealer, always, and notes (in the event's decision and the hand's
report) when it is not the rotation's: the next seat after a finished hand, the
same dealer again after an abandoned one.
"""

import json
import random

import pytest

from firmware_bridge.screen import player_labels
from table_controller.cli import main
from table_controller.engine.cards import Card
from table_controller.engine.events import HandStart, Play, Trump, event_to_json
from table_controller.engine.referee import NoteKind, Referee
from table_controller.engine.report import match_report, text_report
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand

C = Card.parse


def feed_ok(ref, events):
    for e in events:
        d = ref.feed(e)
        assert d.accepted, d.violation
    return d


def test_dealer_out_of_rotation_after_a_finished_hand_is_taken_with_a_note():
    ref = Referee(players=3)
    feed_ok(ref, play_hand(HandRules(3), 0, random.Random(1)).events)
    assert ref.next_dealer() == 1
    second = play_hand(HandRules(3), 2, random.Random(2))
    d = ref.feed(second.events[0], line=99)
    assert d.accepted and d.new_hand and ref.hand.dealer == 2
    assert d.turn == 0  # the seat after the named dealer leads
    note = d.note
    assert note.kind is NoteKind.DEALER_OUT_OF_ROTATION
    assert (note.seat, note.expected, note.line, note.hand) == (2, 1, 99, 1)
    assert "seat 2 deals" in note.message and "seat 1" in note.message
    assert "deal passes on" in note.message
    # The rest of the hand is refereed, not lost as hand_over.
    feed_ok(ref, second.events[1:])
    assert ref.hand.is_over() and list(ref.hand.points) == second.points
    assert ref.violations == []
    doc = match_report(ref)
    assert doc["hands"][0]["notes"] == []
    assert doc["hands"][1]["notes"] == [{"line": 99, "kind": "dealer_out_of_rotation",
                                         "seat": 2, "expected": 1, "message": note.message}]
    assert doc["hands"][1]["dealer"] == 2 and doc["hands"][1]["violations"] == []
    # The rotation goes on from the dealer who actually dealt.
    assert ref.next_dealer() == 0


def test_dealer_in_rotation_or_left_out_gets_no_note():
    ref = Referee(players=2)
    feed_ok(ref, play_hand(HandRules(2), 1, random.Random(3)).events)
    d = ref.feed(HandStart(2, dealer=0))
    assert d.accepted and d.note is None
    feed_ok(ref, play_hand(HandRules(2), 0, random.Random(4)).events[1:])
    d = ref.feed(HandStart(2))  # no dealer: the rotation's
    assert d.accepted and d.note is None and ref.hand.dealer == 1
    assert ref.notes == []


def test_the_first_hand_sets_the_rotation_and_is_never_noted():
    ref = Referee(players=4, dealer=2)
    d = ref.feed(HandStart(4, dealer=0))
    assert d.accepted and d.note is None and ref.hand.dealer == 0


def test_redeal_of_an_abandoned_hand_by_another_dealer_is_noted():
    ref = Referee(players=2)
    feed_ok(ref, [HandStart(2, dealer=1), Trump(C("5s")), Play(0, C("3c"))])
    d = ref.feed(HandStart(2, dealer=0), line=4)
    assert d.accepted and ref.hand.dealer == 0 and len(ref.hands) == 2
    assert d.note.kind is NoteKind.DEALER_OUT_OF_ROTATION
    assert (d.note.seat, d.note.expected) == (0, 1)
    assert "same dealer redeals" in d.note.message
    # The same dealer redealing is the rule: no note.
    ref = Referee(players=2)
    feed_ok(ref, [HandStart(2, dealer=1), Trump(C("5s")), Play(0, C("3c"))])
    assert ref.feed(HandStart(2, dealer=1)).note is None


def test_undoing_the_hand_event_takes_its_note_back():
    ref = Referee(players=2)
    feed_ok(ref, play_hand(HandRules(2), 1, random.Random(5)).events)
    assert ref.feed(HandStart(2, dealer=1)).note is not None
    assert len(ref.notes) == 1
    assert ref.feed_json({"type": "undo"}).accepted
    assert ref.notes == [] and len(ref.hands) == 1
    d = ref.feed(HandStart(2, dealer=0))
    assert d.note is None and ref.notes == []
    assert [h["notes"] for h in match_report(ref)["hands"]] == [[], []]


def test_the_note_reads_with_player_labels_on_the_table():
    ref = Referee(players=4)
    feed_ok(ref, play_hand(HandRules(4), 3, random.Random(6)).events)
    note = ref.feed(HandStart(4, dealer=2)).note
    shown = player_labels(note.message)
    assert "P3 deals" in shown and "P1's deal" in shown and "seat" not in shown.lower()


CONFIGS = [(2, ()), (2, ("swap7",)), (3, ()), (3, ("swap2",)), (4, ()), (4, ("swap7",)),
           (5, ()), (6, ())]


def _without_notes(hand: dict) -> dict:
    hand = dict(hand)
    hand.pop("notes")
    hand["violations"] = [dict(v, line=None) for v in hand["violations"]]
    return hand


@pytest.mark.parametrize(("players", "variants"), CONFIGS)
def test_a_file_of_hands_off_rotation_is_refereed_as_one_hand_per_file(players, variants):
    rng = random.Random(players * 31 + len(variants))
    rules = HandRules(players, frozenset(variants))
    hands = []
    for _ in range(6):
        sim = play_hand(rules, rng.randrange(players), rng, style="sensible")
        events = [event_to_json(e) for e in sim.events]
        if rng.random() < 0.3:  # an injected fault: a card out of turn, rejected
            events.insert(3, json.dumps({"type": "play", "seat": 0, "card": "1d"}))
        if rng.random() < 0.2:  # abandoned after a few events, then redealt
            hands.append(events[:4])
        hands.append(events)
    together = Referee(players=players)
    for line, text in enumerate((t for h in hands for t in h), 1):
        together.feed_json(text, line)
    alone = []
    for events in hands:
        ref = Referee(players=players)
        for line, text in enumerate(events, 1):
            ref.feed_json(text, line)
        alone.append(match_report(ref)["hands"][0])
    doc = match_report(together)
    assert len(doc["hands"]) == len(hands)
    assert [_without_notes(h) for h in doc["hands"]] == [_without_notes(h) for h in alone]
    # One note per broken rotation, on the hand whose event broke it.
    broken = []
    for i in range(1, len(hands)):
        prev, this = doc["hands"][i - 1], doc["hands"][i]
        expected = (prev["dealer"] + 1) % players if prev["complete"] else prev["dealer"]
        broken.append(this["dealer"] != expected)
    assert [bool(h["notes"]) for h in doc["hands"][1:]] == broken
    assert all(len(h["notes"]) <= 1 for h in doc["hands"])
    assert len(together.notes) == sum(broken) > 0


def test_cli_json_and_text_carry_the_note(tmp_path, capsys):
    lines = [event_to_json(e) for e in play_hand(HandRules(2), 1, random.Random(7)).events]
    second = [event_to_json(e) for e in play_hand(HandRules(2), 1, random.Random(8)).events]
    f = tmp_path / "two.jsonl"
    f.write_text("\n".join(lines + second) + "\n")
    assert main(["referee", "--events", str(f), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (note,) = doc["hands"][1]["notes"]
    assert note["line"] == len(lines) + 1 and note["seat"] == 1 and note["expected"] == 0
    assert doc["hands"][1]["complete"] and doc["hands"][1]["violations"] == []
    assert main(["referee", "--events", str(f)]) == 0
    out = capsys.readouterr().out
    assert f"note line {len(lines) + 1}: dealer_out_of_rotation: P2 deals" in out
    assert text_report(match_report(Referee())) == "Match: hands won 0-0"


def test_the_stored_hand_keeps_its_note(tmp_path):
    from table_controller.controller import Controller
    from table_controller.store import Store

    store = Store(tmp_path / "t.sqlite3")
    info = store.new_match(players=2, first_dealer=1)
    controller = Controller(info.referee(), store=store, match_id=info.id)
    for sim in (play_hand(HandRules(2), 1, random.Random(9)),
                play_hand(HandRules(2), 1, random.Random(10))):  # 1 deals again
        for event in sim.events:
            assert controller.submit(event.to_json()).accepted
    first, second = store.hands(info.id)
    assert first.result["notes"] == []
    (note,) = second.result["notes"]
    assert (note["kind"], note["seat"], note["expected"]) == ("dealer_out_of_rotation", 1, 0)
    assert second.dealer == 1
    # Replayed from the store, the hand and its note come back the same.
    again = store.replay(info.id)
    assert [h.dealer for h in again.hands] == [1, 1] and len(again.notes) == 1
    store.close()
