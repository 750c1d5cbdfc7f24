"""The live hub: snapshots, SSE ids and backlog, commands to the controller."""

import json
import random
import threading
import time

import pytest

from table_controller.engine.referee import Referee
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from web_dashboard.live import LiveTable
from web_dashboard.session import TableSession


def start(hub, referee, obj):
    decision = referee.feed_json(obj)
    return hub.publish(referee, decision)


def test_messages_have_increasing_ids_and_are_framed_as_sse():
    hub = LiveTable()
    referee = Referee(players=2)
    first = hub.last
    m1 = start(hub, referee, {"type": "hand", "dealer": 1})
    m2 = start(hub, referee, {"type": "trump", "card": "5s"})
    assert first.n < m1.n < m2.n
    assert m2.id == f"{hub.boot}-{m2.n}"
    text = m2.wire.decode()
    assert text.startswith(f"id: {m2.id}\nevent: state\ndata: ") and text.endswith("\n\n")
    data = json.loads(text.split("data: ", 1)[1])
    assert data["seq"] == m2.n and data["hand"]["trump"] == "s"
    assert data["hand"]["briscola"] == "5s" and data["hand"]["turn"] == 0


def test_since_gives_the_current_snapshot_only_whatever_the_id():
    hub = LiveTable()
    referee = Referee(players=2)
    sent = [start(hub, referee, {"type": "hand", "dealer": 1})]
    sent.append(start(hub, referee, {"type": "trump", "card": "5s"}))
    for card in ("9b", "7b", "1c", "2c", "3c", "4c"):
        sent.append(start(hub, referee, {"type": "play", "seat": 0, "card": card}))
    assert hub.since(hub.last.id) == []  # up to date
    assert hub.since(f" {hub.last.id}\n") == []
    # Never a replay of past snapshots: a run of them would rebuild the captured cards.
    for old in (sent[0].id, sent[1].id, f"{hub.boot}-0", f"{hub.boot}-1", None, "",
                "deadbeef-1", f"{hub.boot}-999", "garbage", "0", "9" * 5000,
                f"{hub.boot}-{'9' * 5000}", f"{hub.boot}-\u00b2", "-", f"{hub.boot}--1"):
        assert hub.since(old) == [hub.last], old
        assert hub.catch_up(old) == ([hub.last], hub.last.n), old
    assert not hasattr(hub, "_backlog")  # nothing past is kept to be replayed


def test_wait_wakes_on_publish_and_times_out_quietly():
    hub = LiveTable()
    referee = Referee(players=2)
    after = hub.last.n
    t0 = time.monotonic()
    assert hub.wait(after, 0.05) == []
    assert time.monotonic() - t0 >= 0.04
    got = []
    waiter = threading.Thread(target=lambda: got.extend(hub.wait(after, 5)))
    waiter.start()
    time.sleep(0.05)
    start(hub, referee, {"type": "hand"})
    waiter.join(2)
    assert [m.n for m in got] == [after + 1]
    # A phone that fell behind skips to the newest snapshot: no run of past ones.
    behind = hub.last.n
    for obj in ({"type": "trump", "card": "5s"}, {"type": "play", "seat": 1, "card": "9b"},
                {"type": "play", "seat": 0, "card": "7b"}, {"type": "collect"}):
        start(hub, referee, obj)
    assert hub.last.n == behind + 4 and hub.wait(behind, 0) == [hub.last]
    hub.close()
    assert hub.wait(hub.last.n, 5) == []  # closed: returns at once


def test_snapshot_has_no_points_during_the_hand_and_the_reveal_after():
    hub = LiveTable()
    referee = Referee(players=2)
    sim = play_hand(HandRules(2), 1, random.Random(11), style="sensible")
    for event in sim.events:
        decision = referee.feed(event)
        snap = hub.publish(referee, decision).data
        if not referee.hand.is_over():
            assert snap["reveal"] is None
            assert "points" not in json.dumps(snap)
    assert snap["reveal"]["points"] == sim.points
    assert [t["winner"] for t in snap["reveal"]["tricks"]] == sim.winners
    assert snap["reveal"]["tricks"][-1]["running"] == sim.points


def test_violation_is_kept_with_its_hand():
    hub = LiveTable()
    referee = Referee(players=2)
    start(hub, referee, {"type": "hand", "dealer": 1})
    start(hub, referee, {"type": "trump", "card": "5s"})
    snap = start(hub, referee, {"type": "play", "seat": 1, "card": "3c"}).data
    assert snap["violation"]["kind"] == "out_of_turn" and snap["violation"]["hand"] == 0
    assert snap["note"]["accepted"] is False
    snap = start(hub, referee, {"type": "play", "seat": 0, "card": "3c"}).data
    assert snap["violation"]["kind"] == "out_of_turn"  # still the last one
    assert snap["hand"]["trick"] == [{"seat": 0, "card": "3c"}]


def test_commands_go_to_the_queue_and_back():
    hub = LiveTable(command_timeout=2)

    def controller():
        command = hub.commands.get(timeout=2)
        command.reply({"accepted": True, "message": f"did {command.kind}",
                       "dealer": command.args["dealer"]})

    t = threading.Thread(target=controller)
    t.start()
    assert hub.submit("new_hand", dealer=1) == {"accepted": True, "message": "did new_hand",
                                                 "dealer": 1}
    t.join()
    refused = hub.submit("explode")
    assert not refused["accepted"] and "unknown command 'explode'" in refused["message"]


def test_a_silent_controller_times_out_with_a_message():
    hub = LiveTable(command_timeout=0.05)
    result = hub.submit("undo")
    assert not result["accepted"] and "did not answer" in result["message"]


def test_standalone_session_feeds_stores_and_publishes(tmp_path):
    from table_controller.store import Store
    store = Store(tmp_path / "s.sqlite3")
    hub = LiveTable()
    session = TableSession(store, hub)
    hub.executor = session
    assert hub.snapshot()["match"] is None
    result = hub.submit("setup", players=2, names=["Tu", "Ada"], variants=[], length=3,
                        deck="builtin", dealer=1)
    assert result["accepted"], result
    snap = hub.snapshot()
    assert snap["match"]["names"] == ["Tu", "Ada"] and snap["hand"]["dealer"] == 1
    assert hub.submit("event", event={"type": "trump", "card": "5s"})["accepted"]
    bad = hub.submit("event", event={"type": "play", "seat": 1, "card": "3c"})
    assert bad == {"accepted": False, "message": bad["message"], "kind": "out_of_turn"}
    malformed = hub.submit("event", event={"type": "play", "card": "3c"})
    assert not malformed["accepted"] and "'seat'" in malformed["message"]
    assert hub.submit("undo")["accepted"]
    assert hub.snapshot()["hand"]["trump"] is None
    assert [r.event["type"] for r in store.events(result["match"])] == \
        ["hand", "trump", "play", "undo"]
    assert hub.submit("names", names=["A", "B"])["accepted"]
    assert hub.snapshot()["match"]["names"] == ["A", "B"]
    assert not hub.submit("names", names=["A"])["accepted"]
    # A restart resumes the match from the store.
    again = TableSession(Store(tmp_path / "s.sqlite3"), LiveTable())
    assert again.referee.hands[0] == session.referee.hands[0]
    assert again.hub.snapshot()["match"]["names"] == ["A", "B"]


@pytest.mark.parametrize("players", [4, 5])
def test_teams_and_chiamata_partner_only_once_public(players):
    hub = LiveTable()
    referee = Referee(players=players)
    sim = play_hand(HandRules(players), 0, random.Random(players), style="sensible")
    partner_seen = False
    for event in sim.events:
        snap = hub.publish(referee, referee.feed(event)).data
        h = snap["hand"]
        if players == 4:
            assert h["teams"] == [[0, 2], [1, 3]]
        elif not h["over"]:
            played = {p["card"] for p in h["trick"]}
            partner_seen = partner_seen or str(sim.called) in played
            assert (h["partner"] is not None) == partner_seen
            assert (h["teams"] is not None) == partner_seen
    assert snap["reveal"]["points"] == sim.points


def test_catch_up_gives_the_point_reached_with_the_messages():
    hub = LiveTable()
    referee = Referee(players=2)
    m1 = start(hub, referee, {"type": "hand", "dealer": 1})
    assert hub.catch_up(m1.id) == ([], m1.n)  # up to date: wait after m1, skip nothing
    m2 = start(hub, referee, {"type": "trump", "card": "5s"})
    assert hub.catch_up(m1.id) == ([m2], m2.n)
    assert hub.catch_up(None) == ([m2], m2.n)
