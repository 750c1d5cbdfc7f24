"""The club's outbox in the store (no broker needed): written in the hand's own
transaction only when a club is configured, idempotent keys, revisions when a
published hand changes, the [club] configuration's errors named by key."""

import json
import random
import sqlite3

import pytest

from table_controller.config import ConfigError, config_from_dict, parse_broker
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from table_controller.store import SCHEMA_VERSION, Store
from table_controller.store.database import _MIGRATIONS


def feed_hand(store, info, referee, seed, upto=None):
    sim = play_hand(HandRules(info.players), referee.next_dealer(), random.Random(seed),
                    style="sensible")
    events = [e.to_json() for e in sim.events][:upto]
    for obj in events:
        store.append_event(info.id, obj, referee.feed_json(obj), referee)
    return sim


def test_a_version_1_store_gains_the_outbox_and_keeps_working(tmp_path):
    path = tmp_path / "v1.db"
    conn = sqlite3.connect(path)
    conn.executescript(_MIGRATIONS[1])
    conn.execute("PRAGMA user_version=1")
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.schema_version == SCHEMA_VERSION == 3
    store.enable_outbox()
    info = store.new_match(players=2, names=["A", "B"], length=1, first_dealer=0)
    feed_hand(store, info, info.referee(), 1)
    assert store.outbox_counts()["entries"] == 2  # the hand and the match's result
    store.close()


def test_no_club_no_outbox_and_with_a_club_one_entry_per_hand_after_it_ends(tmp_path):
    store = Store(tmp_path / "t.db")
    info = store.new_match(players=2, names=["A", "B"], length=3, first_dealer=0)
    referee = info.referee()
    feed_hand(store, info, referee, 1)
    assert store.outbox_counts()["entries"] == 0 and store.get_setting("store_id") is None
    store_id = store.enable_outbox()
    assert store.enable_outbox() == store_id  # kept: the keys stay the same
    sim = play_hand(HandRules(2), referee.next_dealer(), random.Random(2), style="sensible")
    events = [e.to_json() for e in sim.events]
    for obj in events:
        store.append_event(info.id, obj, referee.feed_json(obj), referee)
        if not referee.hand.is_over():
            assert store.outbox_pending() == []  # nothing while the hand is played
    entry = store.outbox_pending()[0]
    doc = json.loads(entry["payload"])
    assert entry["key"] == doc["key"] == f"{store_id}/{info.id}/1" and entry["revision"] == 1
    assert doc["result"]["points"] == sim.points and doc["names"] == ["A", "B"]
    assert doc["players"] == ["A", "B"] and doc["kind"] == "hand"
    store.outbox_sent(entry["id"], entry["revision"])
    counts = store.outbox_counts()
    assert counts["sent"] == 1 and counts["pending"] == counts["entries"] - 1
    over = referee.standing().over  # then the match's result is queued too
    assert [e["kind"] for e in store.outbox_pending()] == (["match"] if over else [])


def test_an_undone_hand_is_withdrawn_and_a_replayed_one_is_a_new_revision(tmp_path):
    store = Store(tmp_path / "t.db")
    store.enable_outbox()
    info = store.new_match(players=2, names=["A", "B"], length=3, first_dealer=0)
    referee = info.referee()
    sim = feed_hand(store, info, referee, 5)
    [entry] = store.outbox_pending()
    store.outbox_sent(entry["id"], 1)
    events = [e.to_json() for e in sim.events]
    last = max(i for i, e in enumerate(events) if e["type"] == "play")
    for _ in events[last:]:  # back to before the last card (and the collect after it)
        undo = {"type": "undo"}
        decision = referee.feed_json(undo)
        assert decision.accepted, decision.violation
        store.append_event(info.id, undo, decision, referee)
    assert not referee.hand.is_over()
    [entry] = store.outbox_pending()
    assert entry["revision"] == 2 and json.loads(entry["payload"])["withdrawn"] is True
    store.outbox_sent(entry["id"], 1)  # an old revision's ack leaves the new one pending
    assert store.outbox_counts()["pending"] == 1
    for obj in events[last:]:
        store.append_event(info.id, obj, referee.feed_json(obj), referee)
    [entry] = store.outbox_pending()
    assert entry["revision"] == 3 and json.loads(entry["payload"])["result"]["complete"]


@pytest.mark.parametrize("club, message", [
    ({"club": "c", "table": "t"}, "[club] broker: required"),
    ({"broker": "h:70000", "club": "c", "table": "t"}, "[club] broker: the port must be"),
    ({"broker": "mqtts://h", "club": "c", "table": "t"}, "[club] broker: expected host"),
    ({"broker": "h", "club": "c/#", "table": "t"}, "[club] club: expected 1 to 32"),
    ({"broker": "h", "club": "c", "table": "t+"}, "[club] table: expected 1 to 32"),
    ({"broker": "h", "club": "c"}, "[club] table: required"),
    ({"broker": "h", "club": "c", "table": "t", "port": 1}, "[club] port: unknown key"),
    ({"broker": "h", "club": "c", "table": "t", "password": 5}, "[club] password: expected"),
    ({"broker": "h", "club": "c", "table": "t", "password_file": "/nonexistent/x"},
     "[club] password_file: cannot read"),
    ({"broker": "h", "club": "c", "table": "t", "username": " "}, "[club] username: must"),
])
def test_bad_club_settings_are_one_line_naming_the_key(club, message):
    with pytest.raises(ConfigError) as exc:
        config_from_dict({"club": club}, "table.toml")
    assert str(exc.value).startswith(f"table.toml: {message}"), str(exc.value)
    assert "\n" not in str(exc.value)


def test_club_settings_and_brokers():
    assert config_from_dict({}).club is None
    club = config_from_dict({"club": {"broker": "mqtt://10.0.0.2:1884", "club": "circolo",
                                      "table": "tavolo-1", "password": "pw"}}).club
    assert (club.host, club.port, club.username, club.password) == (
        "10.0.0.2", 1884, "tavolo-1", "pw")
    assert club.prefix == "briscola/circolo/tavolo-1" and "pw" not in repr(club)
    assert parse_broker("[fe80::1]:1883") == ("fe80::1", 1883)
    assert parse_broker("broker.lan") == ("broker.lan", 1883)
