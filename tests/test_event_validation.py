"""Issue 12, findings 3 and 10: every event is checked whole before the referee sees it,
the referee never runs ahead of the store, and ``referee --events`` ends every bad
input with one clear line (exit 2) or a ``bad_event`` violation: no traceback, no hang."""

import json
import random
import sqlite3

import pytest

from table_controller.cli import main
from table_controller.controller import Controller
from table_controller.engine.events import (
    MAX_DEPTH,
    EventError,
    decode_event,
    event_from_json,
)
from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from table_controller.store import Store


def hand_events(seed, dealer=1):
    sim = play_hand(HandRules(2), dealer, random.Random(seed), style="sensible")
    return [e.to_json() for e in sim.events]


def half_a_hand(referee, upto=15):
    for obj in hand_events(2)[:upto]:
        assert referee.feed_json(obj).accepted
    return referee


def last_play(referee):
    return next(e for e in reversed(referee.hand.move_stack) if e.type == "play")


# -- the checks themselves ---------------------------------------------------------------

BAD_EVENTS = {
    "401-digit t": {"type": "collect", "t": 10**401},
    "t infinite": {"type": "collect", "t": float("inf")},
    "t NaN": {"type": "collect", "t": float("nan")},
    "t a string": {"type": "collect", "t": "12.5"},
    "t a boolean": {"type": "collect", "t": True},
    "t past 1e12": {"type": "collect", "t": 1e13},
    "huge seat": {"type": "play", "seat": 10**30, "card": "3c"},
    "seat past a small int": {"type": "play", "seat": 5000, "card": "3c"},
    "huge players": {"type": "hand", "players": 10**100},
    "huge integer in an extra field": {"type": "collect", "frame": 10**5000},
    "long string": {"type": "play", "seat": 0, "card": "3" * 5000},
    "long field name": {"type": "collect", "x" * 300: 1},
    "too many fields": {"type": "collect", **{f"f{i}": i for i in range(40)}},
    "deep nesting": {"type": "collect", "x": [[[[[[1]]]]]]},
    "not JSON": {"type": "collect", "x": {1, 2}},
    "type not a string": {"type": ["play"]},
}


@pytest.mark.parametrize("name", list(BAD_EVENTS))
def test_malformed_events_are_refused_whole_with_a_short_message(name):
    with pytest.raises(EventError) as caught:
        decode_event(BAD_EVENTS[name])
    assert caught.value.kind.value == "bad_event"
    assert isinstance(caught.value, ValueError) and len(caught.value.message) < 200


BAD_LINES = {
    "deep nesting": "[" * 100_000 + "]" * 100_000,  # RecursionError before the fix
    "deep nesting, short": '{"type":"collect","x":' + "[" * 900 + "]" * 900 + "}",
    "nesting in strings is not nesting": None,
    "5000-digit integer": '{"type":"play","seat":' + "7" * 5000 + ',"card":"3c"}',
    "50-digit integer": '{"type":"play","seat":' + "7" * 50 + ',"card":"3c"}',
    "1e999": '{"type":"collect","t":1e999}',
    "NaN": '{"type":"collect","t":NaN}',
    "-Infinity": '{"type":"collect","t":-Infinity}',
    "invalid UTF-8": b'{"type":"collect","x":"\xff"}',
    "a list": "[1, 2]",
    "truncated": '{"type":"play","seat":0,',
}


@pytest.mark.parametrize("name", [n for n, v in BAD_LINES.items() if v is not None])
def test_malformed_lines_are_refused_before_the_json_parser_can_crash(name):
    referee = Referee()
    decision = referee.feed_json(BAD_LINES[name])
    assert not decision.accepted and decision.violation.kind.value == "bad_event"
    assert len(decision.violation.message) < 200
    assert referee.hands == []


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"type": "collect", "note": "[" * (MAX_DEPTH + 40)})
    assert decode_event(text)["note"].startswith("[[[")


def test_every_event_the_tracker_and_the_referee_write_passes_unchanged():
    for seed in range(5):
        for obj in hand_events(seed):
            obj = dict(obj, t=12.25 + seed, source="pick")
            assert decode_event(obj) == obj
            assert decode_event(json.dumps(obj)) == obj


# -- finding 3: the referee changes nothing for an event that cannot be stored ----------


def test_a_correction_with_a_401_digit_t_is_refused_and_changes_nothing():
    referee = half_a_hand(Referee())
    before = referee.hand.move_stack[:]
    play = last_play(referee)
    correction = {"type": "correct", "seat": play.seat, "card": "10d" if str(play.card) !=
                  "10d" else "10c", "t": int("9" * 401)}
    decision = referee.feed_json(correction)
    assert not decision.accepted and decision.violation.kind.value == "bad_event"
    assert "'t' must be a finite number" in decision.violation.message or \
        "too large" in decision.violation.message
    assert referee.hand.move_stack == before


def test_through_the_controller_it_is_stored_as_refused_and_the_replay_agrees(tmp_path):
    # Finding 3: applied by the referee, then float(t) raised before the store write
    # (a 500, or the live demo killed), and the replay resumed two tricks earlier.
    store = Store(tmp_path / "t.db")
    info = store.new_match(2, first_dealer=1)
    controller = Controller(info.referee(), store=store, match_id=info.id)
    events = hand_events(2)
    for obj in events[:15]:
        controller.submit(obj)
    play = last_play(controller.referee)
    decision = controller.submit({"type": "correct", "seat": play.seat, "card": "10d",
                                  "t": 10**401})
    assert not decision.accepted
    for obj in events[15:25]:
        assert controller.submit(obj).accepted
    rows = store.events(info.id)
    assert [r.accepted for r in rows] == [True] * 15 + [False] + [True] * 10
    assert rows[15].event == {"unreadable": rows[15].event["unreadable"]}
    resumed, _ = store.resume()
    assert store.notes == []  # every stored verdict survives the restart
    assert resumed.hand == controller.referee.hand
    assert resumed.violations == controller.referee.violations  # word for word
    store.close()


def test_a_store_failure_leaves_the_referee_where_the_store_is(tmp_path):
    store = Store(tmp_path / "t.db")
    info = store.new_match(2, first_dealer=1)
    controller = Controller(info.referee(), store=store, match_id=info.id)
    events = hand_events(3)
    for obj in events[:6]:
        controller.submit(obj)
    stack = controller.referee.hand.move_stack[:]
    real = store.append_event

    def disk_full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    store.append_event = disk_full
    with pytest.raises(sqlite3.OperationalError):
        controller.submit(events[6])
    assert controller.referee.hand.move_stack == stack  # not run ahead of the store
    store.append_event = real
    assert controller.submit(events[6]).accepted
    store.close()


def _tamper(path, sql, *params):
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


def test_replay_keeps_the_stored_verdicts_and_reports_each_change_in_one_line(tmp_path):
    path = tmp_path / "t.db"
    store = Store(path)
    info = store.new_match(2, first_dealer=1)
    referee = info.referee()
    events = hand_events(4)
    for obj in events[:10]:
        store.append_event(info.id, obj, referee.feed_json(obj), referee)
    bad = {"type": "play", "seat": 0, "card": "nonsense"}
    store.append_event(info.id, bad, referee.feed_json(bad), referee)  # seq 11, refused
    for obj in events[10:14]:
        store.append_event(info.id, obj, referee.feed_json(obj), referee)
    store.close()
    # As if an older program had judged differently: seq 11 becomes a legal play stored
    # as refused, and seq 13 (accepted) becomes a play out of turn.
    legal = events[10]
    _tamper(path, "UPDATE events SET event=? WHERE seq=11", json.dumps(legal))
    stack = Store(path).replay(info.id).hand.move_stack
    wrong = {"type": "play", "seat": (legal["seat"] + 1) % 2, "card": legal["card"]}
    _tamper(path, "UPDATE events SET event=? WHERE seq=13", json.dumps(wrong))
    store = Store(path)
    resumed, _ = store.resume()
    kept, changed = store.notes
    assert kept.startswith(f"match {info.id}, event 11: stored as refused (not_in_deck)")
    assert "kept refused" in kept
    assert changed.startswith(f"match {info.id}, event 13: stored as accepted, refused on "
                              "replay: ")
    assert "\n" not in kept + changed
    # The stored refusal stands (the legal play of seq 11 is not in the hand); seq 13
    # could not be forced in.
    assert resumed.hand.move_stack != stack
    assert resumed.violations[0].kind.value == "not_in_deck"
    store.close()


def test_the_dashboard_command_path_refuses_before_the_referee(tmp_path):
    from web_dashboard.live import LiveTable
    from web_dashboard.session import TableSession

    store = Store(tmp_path / "d.db")
    session = TableSession(store, LiveTable())
    session._cmd_setup(players=2, dealer=1)
    for obj in hand_events(2, 1)[:5]:
        assert session._cmd_event(event=obj)["accepted"]
    stack = session.referee.hand.move_stack[:]
    out = session._cmd_event(event={"type": "correct", "seat": 0, "card": "10d",
                                    "t": 10**401})
    assert out["accepted"] is False and out["kind"] == "bad_event"
    assert session.referee.hand.move_stack == stack
    store.close()


# -- finding 10: the referee command --------------------------------------------------


def run_cli(capsys, path):
    code = main(["referee", "--events", str(path)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", ["deep nesting", "5000-digit integer", "1e999", "NaN"])
def test_the_referee_command_reports_a_bad_line_as_a_bad_event(tmp_path, capsys, name):
    path = tmp_path / "in.jsonl"
    good = hand_events(1)[:3]
    text = BAD_LINES[name]
    path.write_text("\n".join([json.dumps(good[0]), text] +
                              [json.dumps(e) for e in good[1:]]) + "\n")
    code, out, err = run_cli(capsys, path)
    assert code == 0 and err == ""
    assert "line 2" in out and "bad_event" in out
    assert max(len(line) for line in out.splitlines()) < 300


RECORD = '[Game "Briscola"]\n[Players "{players}"]\n[Dealer "1"]\n\ntrump:5s\n*\n'


@pytest.mark.parametrize("players,said", [
    ("1" + "0" * 4400, "a record's lines are at most"),
    ("1" + "0" * 3000, "the Players header is 3001 characters"),
    ("1" + "0" * 200, "the Players header must be 2..6"),
    ("1000000000", "the Players header must be 2..6"),  # hung with 1.7 GB before the fix
    ("x", "the Players header must be 2..6"),  # ValueError, exit 1 before the fix
    ("²", "the Players header must be 2..6"),
    ("7", "the Players header must be 2..6"),
])
def test_a_record_with_a_bad_players_header_is_one_line_exit_2(tmp_path, capsys, players,
                                                               said):
    path = tmp_path / "in.bgn"
    path.write_text(RECORD.format(players=players), encoding="utf-8")
    code, out, err = run_cli(capsys, path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and said in err and len(err) < 300


@pytest.mark.parametrize("content,said", [
    (b"\xff\xfe garbage", "cannot read"),
    (b"\x00" * 64, "NUL bytes"),
    ('[Seat0 "' + "a" * 300 + '"]\n\ntrump:5s\n', "at most 256"),
    ("".join(f'[K{i} "v"]\n' for i in range(70)) + "\ntrump:5s\n", "more than 64 headers"),
    ('[Players "2"]\n[Dealer "1"]\n\n' + "0:" + "1" * 500 + "d\n", "a token is at most"),
    ('[Players "2"]\n[Dealer "1"]\n\n' + "x" * 5000 + "\n", "characters: a record's lines"),
    ('[Players "2"]\n[Dealer "9"]\n\ntrump:5s\n', "the Dealer header must be 0..5"),
    ('[Players "2"]\n\ntrump:5s\n', "no Dealer header"),
    # Found by the fuzz: a 250-character variant or card named in full made a long line.
    ('[Players "2"]\n[Dealer "1"]\n[Variants "' + "x" * 250 + '"]\n\ntrump:5s\n',
     "unknown variant"),
    ('[Players "2"]\n[Dealer "1"]\n[Removed "' + "x" * 250 + '"]\n\ntrump:5s\n',
     "invalid card code"),
])
def test_bad_files_are_one_line_exit_2(tmp_path, capsys, content, said):
    path = tmp_path / "in.bgn"
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    code, out, err = run_cli(capsys, path)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert said in err and len(err) < 300 + len(str(path))


def test_event_from_json_checks_the_event_whole_for_every_caller():
    with pytest.raises(EventError):
        event_from_json({"type": "play", "seat": 0, "card": "3c", "t": float("inf")})
    assert str(event_from_json('{"type":"play","seat":0,"card":"3c","t":1.5}')) == "0:3c"


def test_the_standalone_dashboard_too_stays_where_its_store_is(tmp_path):
    from web_dashboard.live import LiveTable
    from web_dashboard.session import TableSession

    store = Store(tmp_path / "d.db")
    session = TableSession(store, LiveTable())
    session._cmd_setup(players=2, dealer=1)
    events = hand_events(2, 1)
    for obj in events[:5]:
        session.feed(obj)
    stack = session.referee.hand.move_stack[:]

    def disk_full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    real, store.append_event = store.append_event, disk_full
    with pytest.raises(sqlite3.OperationalError):
        session.feed(events[5])
    assert session.referee.hand.move_stack == stack
    store.append_event = real
    assert session.feed(events[5]).accepted
    store.close()


def test_a_long_bad_card_code_is_named_short():
    # Found by the fuzz: 256 characters, each shown as \U000xxxxx, made a 400-character
    # message on the phone.
    decision = Referee().feed_json({"type": "play", "seat": 0,
                                    "card": "0" * 200 + "\U0002ebe1" * 50})
    assert not decision.accepted and len(decision.violation.message) < 120


def test_a_long_unknown_variant_is_named_short():
    decision = Referee().feed_json({"type": "hand", "players": 2,
                                    "variants": ["\U0002ebe1" * 250]})
    assert not decision.accepted and len(decision.violation.message) < 160


def test_the_size_bound_holds_for_the_stored_form_of_any_event():
    from table_controller.engine.events import MAX_EVENT_CHARS, event_text

    # Non-ASCII text is stored as it is, so what was accepted reads back whole.
    line = json.dumps({"type": "hand", "players": 2, "dealer": 1, "by": "è" * 250},
                      ensure_ascii=False)
    checked = decode_event(line)
    assert decode_event(event_text(checked)) == checked
    # A decoded object has no text to measure: its stored form is what is bounded.
    big = {"type": "hand", **{f"k{i}": "x" * 200 for i in range(30)}}
    assert len(event_text(big)) > MAX_EVENT_CHARS
    with pytest.raises(EventError, match=f"at most {MAX_EVENT_CHARS} characters"):
        decode_event(big)
