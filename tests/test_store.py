"""The table's SQLite store: schema, durability, hands bookkeeping, crash recovery."""

import json
import random
import sqlite3
import threading

import pytest

from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from table_controller.store import SCHEMA_VERSION, Store, StoreError


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "table.sqlite3")
    yield s
    s.close()


def feed(store, info, referee, obj):
    decision = referee.feed_json(obj)
    store.append_event(info.id, obj, decision, referee)
    return decision


def play(store, info, referee, seed, players=2, upto=None):
    sim = play_hand(HandRules(players), referee.next_dealer(), random.Random(seed),
                    style="sensible")
    events = [e.to_json() for e in sim.events]
    for obj in events[:upto]:
        feed(store, info, referee, obj)
    return sim


def test_schema_is_versioned_in_wal_mode_with_full_sync(store, tmp_path):
    assert store.schema_version == SCHEMA_VERSION
    conn = sqlite3.connect(tmp_path / "table.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"matches", "hands", "events", "settings"} <= tables
    assert store._conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_reopening_keeps_data_and_refuses_a_newer_schema(tmp_path):
    path = tmp_path / "t.sqlite3"
    s = Store(path)
    s.set_setting("language", "fr")
    s.close()
    assert Store(path).get_setting("language") == "fr"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_settings_round_trip_and_overwrite(store):
    assert store.get_setting("pin_hash") is None
    assert store.get_setting("pin_hash", "x") == "x"
    store.set_setting("pin_hash", "a")
    store.set_setting("pin_hash", "b")
    assert store.get_setting("pin_hash") == "b"


def test_new_match_checks_its_settings(store):
    info = store.new_match(4, ["A", "B"], ("swap7",), 3, deck="french")
    assert info.players == 4 and info.names == ("A", "B", "", "")
    assert info.variants == ("swap7",) and info.length == 3 and info.deck == "french"
    assert store.matches()[0] == info
    with pytest.raises(StoreError, match="1, 3 or 5"):
        store.new_match(2, length=2)
    with pytest.raises(StoreError, match="3 names for 2 players"):
        store.new_match(2, ["a", "b", "c"])
    with pytest.raises(StoreError, match="players"):
        store.new_match(7)
    with pytest.raises(StoreError, match="no match with id 99"):
        store.match(99)


def test_every_event_is_stored_with_its_decision_and_visible_to_another_connection(
        store, tmp_path):
    info = store.new_match(2, ["Tu", "Ada"])
    referee = info.referee()
    feed(store, info, referee, {"type": "hand", "players": 2, "dealer": 1})
    feed(store, info, referee, {"type": "trump", "card": "5s", "t": 1.25})
    feed(store, info, referee, {"type": "play", "seat": 1, "card": "3c"})  # out of turn
    other = Store(tmp_path / "table.sqlite3")  # a fresh connection: the commit is done
    rows = other.events(info.id)
    assert [r.seq for r in rows] == [1, 2, 3]
    assert rows[1].t == 1.25 and rows[1].accepted
    assert not rows[2].accepted and rows[2].violation_kind == "out_of_turn"
    assert "seat 0's turn" in rows[2].violation_message
    assert rows[2].event == {"type": "play", "seat": 1, "card": "3c"}
    assert [r.seq for r in other.hand_events(info.id, 0)] == [1, 2, 3]
    other.close()


def test_hands_rows_follow_new_hands_results_and_undo(store):
    info = store.new_match(2, ["Tu", "Ada"], length=3)
    referee = info.referee()
    sim = play_hand(HandRules(2), referee.next_dealer(), random.Random(1), style="sensible")
    events = [e.to_json() for e in sim.events]
    last_play = max(i for i, e in enumerate(events) if e["type"] == "play")
    for obj in events[:last_play + 1]:
        feed(store, info, referee, obj)
    (row,) = store.hands(info.id)
    assert row.result is not None and row.result["points"] == sim.points
    assert store.match(info.id).standing["hands_played"] == 1
    feed(store, info, referee, {"type": "undo"})  # reopens the last trick
    assert store.hand(info.id, 0).result is None
    assert store.match(info.id).standing["hands_played"] == 0
    feed(store, info, referee, events[last_play])
    assert store.hand(info.id, 0).result["points"] == sim.points
    feed(store, info, referee, {"type": "hand"})
    assert [h.idx for h in store.hands(info.id)] == [0, 1]
    feed(store, info, referee, {"type": "undo"})  # takes the hand event back
    assert [h.idx for h in store.hands(info.id)] == [0]


def test_resume_rebuilds_the_identical_referee(tmp_path):
    path = tmp_path / "crash.sqlite3"
    store = Store(path)
    info = store.new_match(2, ["Tu", "Ada"], length=3)
    referee = info.referee()
    play(store, info, referee, seed=3)
    play(store, info, referee, seed=4, upto=17)
    feed(store, info, referee, {"type": "play", "seat": 0, "card": "nonsense"})
    store.close()  # the process dies here

    resumed, again = Store(path).resume()
    assert again == Store(path).match(info.id)
    assert len(resumed.hands) == len(referee.hands) == 2
    for mine, theirs in zip(resumed.hands, referee.hands, strict=True):
        assert mine == theirs
    assert resumed.violations == referee.violations
    assert resumed.standing() == referee.standing()


def test_resume_is_none_without_a_match_in_progress(store):
    assert store.resume() is None
    info = store.new_match(2, length=1)
    referee = info.referee()
    sim = play(store, info, referee, seed=5)
    if not referee.standing().over:  # a tie: play another
        sim = play(store, info, referee, seed=6)
    assert referee.standing().over, sim.points
    assert store.match(info.id).finished is not None
    assert store.resume() is None


def test_concurrent_writers_and_readers(store):
    infos = [store.new_match(2) for _ in range(4)]
    errors = []

    def writer(info, seed):
        try:
            referee = info.referee()
            play(store, info, referee, seed)
            store.matches()
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(info, i)) for i, info in enumerate(infos)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for info in infos:
        rows = store.events(info.id)
        assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
        assert store.hands(info.id)[0].result is not None


def test_replay_of_a_stored_match_matches_its_record(store):
    info = store.new_match(2, ["Tu", "Ada"])
    referee = info.referee()
    play(store, info, referee, seed=8)
    replayed = store.replay(info.id)
    assert replayed.hands[0] == referee.hands[0]
    assert json.loads(json.dumps(store.hands(info.id)[0].result))["complete"] is True


def test_match_referee_uses_the_stored_settings(store):
    info = store.new_match(3, variants=("swap2",), length=5, first_dealer=1)
    ref = info.referee()
    assert isinstance(ref, Referee)
    assert ref.defaults.players == 3 and [v.value for v in ref.defaults.variants] == ["swap2"]
    assert ref.match_length == 5 and ref.next_dealer() == 1


def test_a_thread_per_request_opens_no_new_files(store):
    """The web server runs each request on a new thread: no connection may pile up."""
    import os
    store.new_match(2)
    before = len(os.listdir("/proc/self/fd"))
    threads = [threading.Thread(target=store.matches) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(os.listdir("/proc/self/fd")) <= before + 1


def test_a_closed_store_says_so(tmp_path):
    s = Store(tmp_path / "c.sqlite3")
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.matches()


CHILD = """
import json, random, sys
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from table_controller.store import Store
store = Store(sys.argv[1])
info = store.new_match(2)
referee = info.referee()
sim = play_hand(HandRules(2), 1, random.Random(2), style="sensible")
for event in sim.events:
    obj = event.to_json()
    seq = store.append_event(info.id, obj, referee.feed_json(obj), referee)
    print(seq, flush=True)
import time; time.sleep(60)
"""


def test_an_event_is_stored_once_append_returns_even_if_the_process_is_killed(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path
    path = tmp_path / "killed.sqlite3"
    root = Path(__file__).resolve().parent.parent
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], cwd=root,
                             stdout=subprocess.PIPE, text=True)
    acknowledged = [int(child.stdout.readline()) for _ in range(12)]
    os.kill(child.pid, signal.SIGKILL)
    child.wait(10)
    store = Store(path)
    (info,) = store.matches()
    stored = [r.seq for r in store.events(info.id)]
    assert stored[:12] == acknowledged
    resumed, _ = store.resume()
    assert len(resumed.hand.move_stack) == len(stored) - 1  # all but the hand event
