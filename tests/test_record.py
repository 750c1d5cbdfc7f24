import datetime
import random
from pathlib import Path

import pytest

from table_controller.engine.cards import Card
from table_controller.engine.events import Play
from table_controller.engine.record import (
    Record,
    RecordError,
    dumps,
    match_records,
    parse_records,
    replay_match,
)
from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_match

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_bundled_example_is_a_full_two_player_hand_that_replays():
    (record,) = parse_records((EXAMPLES / "hand-2p.bgn").read_text())
    assert record.headers["Players"] == "2" and record.names == ["Tu", "Ada"]
    hand = record.replay()
    assert hand.is_over() and len(hand.tricks) == 20
    assert "-".join(map(str, hand.points)) == record.headers["Result"] == record.result


def test_jsonl_example_gives_the_same_hand_as_the_record():
    ref = Referee()
    for n, line in enumerate((EXAMPLES / "hand-2p.jsonl").read_text().splitlines(), 1):
        assert ref.feed_json(line, n).accepted
    (record,) = parse_records((EXAMPLES / "hand-2p.bgn").read_text())
    assert record.replay() == ref.hand


def test_match_record_round_trips_with_headers():
    rng = random.Random(4)
    sims = play_match(4, 3, rng, variants=("swap7",))
    ref = Referee(players=4, match=3, variants=("swap7",))
    for sim in sims:
        for e in sim.events:
            assert ref.feed(e).accepted
    text = dumps(match_records(ref, ["Ada", "Bea", "Carlo", "Dino"],
                               date=datetime.date(2026, 11, 29)))
    records = parse_records(text)
    assert len(records) == len(sims)
    assert records[0].headers["Date"] == "2026.11.29" and records[0].headers["Match"] == "3"
    again = replay_match(records)
    assert [h._key() for h in again.hands] == [h._key() for h in ref.hands]
    assert again.standing() == ref.standing()
    assert dumps(match_records(again, ["Ada", "Bea", "Carlo", "Dino"],
                               date=datetime.date(2026, 11, 29))) == text


def test_names_with_quotes_survive():
    ref = Referee()
    ref.feed_json({"type": "hand", "players": 2, "dealer": 0})
    rec = Record.from_hand(ref.hand, ['Zio "Peppe"', "Nonna\\Rosa"])
    (back,) = parse_records(str(rec))
    assert back.names == ['Zio "Peppe"', "Nonna\\Rosa"]


def test_comments_and_trick_numbers_are_ignored():
    text = '[Players "2"]\n[Dealer "1"]\n\n{the deal} trump:5s ; a comment\n1. 0:3c 1:4c\n*\n'
    (rec,) = parse_records(text)
    hand = rec.replay()
    assert hand.tricks[0].plays == (Play(0, Card.parse("3c")), Play(1, Card.parse("4c")))
    assert len(hand.tricks) == 1 and rec.result == "*"


@pytest.mark.parametrize("text,message", [
    ("", "no record"),
    ("0:3c", "headers"),
    ('[Players "2"]\n[Dealer "1"]\n\ntrump:5s 0:3x\n', "line 4"),
    ('[Players "2"]\n[Dealer "1"]\n\ntrump:5s 1:3c\n', "line 4"),
    ('[Players "9"]\n[Dealer "1"]\n\ntrump:5s\n', "players"),
])
def test_bad_records_name_the_problem(text, message):
    with pytest.raises(RecordError, match=message):
        for rec in parse_records(text):
            rec.replay()


def test_result_header_must_match_the_replay():
    text = (EXAMPLES / "hand-2p.bgn").read_text().replace('[Result "63-57"]',
                                                         '[Result "70-50"]')
    (rec,) = parse_records(text)
    with pytest.raises(RecordError, match="70-50"):
        rec.replay()


def test_hand_copy_equals_and_diverges():
    ref = Referee()
    for line in (EXAMPLES / "hand-2p.jsonl").read_text().splitlines()[:9]:
        ref.feed_json(line)
    copy = ref.hand.copy()
    assert copy == ref.hand
    copy.pop()
    assert copy != ref.hand
    assert HandRules(2) == ref.hand.rules
