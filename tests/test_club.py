"""The club with a real Mosquitto (the shipped deploy/mosquitto config on a temporary
port): three simulated tables playing at once publish, the club view shows all three and
the ranking; the broker is stopped mid-match and restarted, one table is cut off the
network for a whole hand; afterwards the club has every finished hand exactly once, and
no message the broker carried told anything secret during a hand (a subscriber on '#'
sees them all). Then the ACL: a table cannot write another table's topics."""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import replace

import paho.mqtt.client as mqtt
import pytest
from mqtt_broker import CLUB, PASSWORD, Broker, Proxy
from test_dashboard_leak import walk

from table_controller.app import build_table
from table_controller.club.view import ClubFeed
from table_controller.config import ClubConfig, Config, TableConfig
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from web_dashboard.club import create_club_app
from web_dashboard.state import face_up

TABLES = {"tavolo-1": 2, "tavolo-2": 4, "tavolo-3": 5}  # name -> players
USERS = [*TABLES, "club-view", "tap"]
TAP_ACL = "\n# The tests' tap: reads everything the broker carries.\nuser tap\ntopic read #\n"
CARD = r"(?<![0-9A-Za-z])(?:10|[1-9])[dcsb](?![0-9A-Za-z])"


def wait_for(what, timeout=30.0, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = what()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what}")


class Tap:
    """Every message the broker carries, with a persistent session (so that what is
    published while the tap reconnects after a broker restart still reaches it)."""

    def __init__(self, port: int) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.connected = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="tests-tap",
                                  clean_session=False)
        self.client.username_pw_set("tap", PASSWORD.format(user="tap"))
        self.client.reconnect_delay_set(0.1, 1)
        self.client.on_connect = self._on_connect
        self.client.on_message = lambda c, u, m: self.messages.append(
            (m.topic, bytes(m.payload), bool(m.retain)))
        self.client.on_disconnect = lambda *a: self.connected.clear()
        self.client.connect_async("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        client.subscribe("#", qos=1)
        self.connected.set()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class SimTable:
    """A whole table (build_table: controller, store, club publisher) fed simulated
    hands event by event, as its camera would."""

    def __init__(self, tmp_path, name: str, players: int, port: int) -> None:
        self.name, self.players = name, players
        names = tuple(f"{name[-1]}{chr(65 + s)}" for s in range(players))
        if name == "tavolo-2":
            names = ("Zoe",) + names[1:]  # a player who also sits at tavolo-1 later
        config = replace(Config(), table=TableConfig(players=players, names=names, match=1,
                                                     first_dealer=0),
                         club=ClubConfig("127.0.0.1", port, CLUB, name, name,
                                         PASSWORD.format(user=name)))
        self.config = config
        self.table = build_table(config, db_path=tmp_path / f"{name}.db", dashboard=False,
                                 vision=False)
        self.store = self.table.store
        self.hands_played = 0
        # chiamata: (match id, hand number) -> how many cards were played before the
        # called one (its holder, the partner, is secret until then)
        self.called_at: dict[tuple[int, int], int] = {}

    def play_hand(self, seed: int, pause: float = 0.003, midway=None) -> None:
        c = self.table.controller
        ref = c.referee
        dealer = 0 if ref.standing().over or not ref.hands else ref.next_dealer()
        sim = play_hand(HandRules(self.players), dealer, random.Random(seed),
                        style="sensible")
        events = [e.to_json() for e in sim.events]
        for i, event in enumerate(events):
            decision = c.submit(event)
            assert decision.accepted, (self.name, event, decision.violation)
            if i == 0 and sim.called is not None:
                plays = [e for e in sim.events if e.type == "play"]
                self.called_at[(c.match_id, len(c.referee.hands))] = next(
                    k for k, e in enumerate(plays) if e.card is sim.called)
            if midway is not None and i == len(events) // 2:
                midway()
            time.sleep(pause)
        self.hands_played += 1

    def finished_keys(self) -> dict[str, dict]:
        store_id = self.store.get_setting("store_id")
        out = {}
        for info in self.store.matches():
            for row in self.store.hands(info.id):
                if row.result is not None:
                    out[f"{store_id}/{info.id}/{row.idx}"] = row.result
        return out

    def close(self) -> None:
        self.table.close()


def check_no_leak(messages, tables: dict[str, SimTable]) -> int:
    """Every state message the broker carried: during a hand no points, no reveal, no
    card but the ones face up, and chiamata's partner only once the called card lies
    on the table or in a taken trick (after its play). Returns how many were checked
    during a hand."""
    import re

    during = 0
    for topic, payload, _retained in messages:
        parts = topic.split("/")
        if parts[-1] != "state":
            continue
        state = json.loads(payload)["state"]
        hand = state.get("hand")
        if hand is None or hand.get("over"):
            continue
        during += 1
        where = f"{topic} during hand {hand['number']}"
        assert state.get("reveal") is None, where
        for path, key, value in walk(state):
            assert not any(w in str(key) for w in ("point", "score", "running")) or \
                value is None or key == "points" and path.startswith("$.note"), \
                f"{where}: {path}"
        named = set(re.findall(CARD, json.dumps(state)))
        assert named <= face_up(hand), f"{where}: names {named - face_up(hand)}"
        if hand.get("players") == 5:
            n = hand["players"]
            plays = hand["tricks_played"] * n + (0 if hand["trick_complete"] else
                                                 len(hand["trick"]))
            at = tables[parts[2]].called_at[(state["match"]["id"], hand["number"])]
            if plays <= at:  # the called card is not yet on the table: its holder secret
                assert hand.get("partner") is None and hand.get("teams") is None, where
                assert state.get("note") is None or state["note"].get("partner") is None
    return during


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path / "mosquitto", USERS, extra_acl=TAP_ACL).start()
    yield b
    b.stop()


def test_three_tables_broker_restart_and_a_table_offline_for_a_hand(tmp_path, broker):
    tap = Tap(broker.port)
    assert tap.connected.wait(10)
    feed = ClubFeed("127.0.0.1", broker.port, CLUB, username="club-view",
                    password=PASSWORD.format(user="club-view"),
                    db=str(tmp_path / "club.db")).start()
    assert feed.connected.wait(10)
    proxy = Proxy(broker.port)  # tavolo-3 reaches the broker through it
    tables = {}
    for name, players in TABLES.items():
        port = proxy.port if name == "tavolo-3" else broker.port
        tables[name] = SimTable(tmp_path, name, players, port)
    try:
        for t in tables.values():
            assert t.table.club.connected.wait(10), t.name
        app = create_club_app(feed, dict(LIVE, CLUB_SSE_MAX_SECONDS=600))
        client = app.test_client()
        stream = GridStream(client)  # the grid page's live stream, all along

        # 1. All three play a hand at once; the club shows them live meanwhile.
        seen_live = set()
        served = []  # what the club view's API served, as messages for the leak check

        def look():
            for entry in feed.tables():
                hand = (entry.get("state") or {}).get("hand")
                if hand and not hand["over"]:
                    seen_live.add(entry["table"])
            for t in client.get("/api/v1/club").get_json()["tables"]:
                if t["state"] is not None:
                    served.append((f"briscola/{CLUB}/{t['table']}/state",
                                   json.dumps({"state": t["state"]}).encode(), False))

        def run_all(seed, midway=None, only=None):
            threads = [threading.Thread(target=t.play_hand, args=(seed + i,),
                                        kwargs={"midway": midway if i == 0 else None})
                       for i, t in enumerate(tables.values()) if only is None or
                       t.name in only]
            for th in threads:
                th.start()
            while any(th.is_alive() for th in threads):
                look()
                time.sleep(0.01)
            for th in threads:
                th.join()

        run_all(100)
        assert seen_live == set(TABLES), seen_live
        grid = client.get("/").get_data(as_text=True)
        for name in TABLES:
            assert f'id="table-{name}"' in grid
        assert "Zoe" in grid

        # 2. The broker is stopped in the middle of a hand (all three playing) and
        # restarted while they go on: the tables never wait for it.
        stopped = {}

        def stop_broker():
            t0 = time.monotonic()
            broker.stop()
            stopped["after"] = time.monotonic() - t0

        t0 = time.monotonic()
        run_all(200, midway=stop_broker)
        assert "after" in stopped
        played_while_down = time.monotonic() - t0
        assert played_while_down < 30
        pending = sum(t.store.outbox_counts()["pending"] for t in tables.values())
        assert pending >= 3  # the hands finished while the broker was down
        broker.start()

        # 3. tavolo-3 loses its network for a whole hand while the others play on.
        wait_for(lambda: tables["tavolo-3"].table.club.connected.is_set())
        proxy.cut()
        wait_for(lambda: not tables["tavolo-3"].table.club.connected.is_set(), 15)
        run_all(300)
        assert tables["tavolo-3"].store.outbox_counts()["pending"] >= 1
        run_all(400, only={"tavolo-1", "tavolo-2"})
        proxy.mend()

        # Afterwards: every finished hand at the club, once, as the table stored it.
        expected = {(t.name, k): v for t in tables.values()
                    for k, v in t.finished_keys().items()}
        assert len(expected) == 3 * 3 + 2 * 1

        def club_has_all():
            got = {(h["table"], h["key"]) for h in feed.hands()}
            return got == set(expected) and all(
                t.store.outbox_counts()["pending"] == 0 for t in tables.values())

        wait_for(club_has_all, 60)
        hands = feed.hands()
        assert len(hands) == len(expected)  # exactly once
        for h in hands:
            assert h["result"] == expected[(h["table"], h["key"])]
        # Each table's hand went out at least once on the wire; duplicates were kept once.
        on_wire = [json.loads(p)["key"] for topic, p, _ in tap.messages if "/hands/" in topic]
        assert set(on_wire) == {k for _, k in expected}
        assert feed.stats["refused"] == 0

        # The club view: the grid, the finished hands, the ranking (page and JSON).
        wait_for(lambda: all((e.get("state") or {}).get("hand") for e in feed.tables()))
        page = client.get("/hands").get_data(as_text=True)
        assert page.count("<li>") >= len(expected)
        ranking = client.get("/api/v1/club/ranking").get_json()
        names = {p["name"] for p in ranking["players"]}
        assert names == {n for t in tables.values() for n in t.config.table.names}
        assert ranking["hands_rated"] == len(expected)
        zoe = next(p for p in ranking["players"] if p["name"] == "Zoe")
        assert zoe["hands"] == tables["tavolo-2"].hands_played
        assert "Zoe" in client.get("/ranking").get_data(as_text=True)
        doc = client.get("/api/v1/club").get_json()
        assert [t["table"] for t in doc["tables"]] == sorted(TABLES)
        assert all(t["status"] == "online" for t in doc["tables"])

        # Nothing secret on the wire during any hand.
        wait_for(lambda: any("/state" in m[0] for m in tap.messages))
        during = check_no_leak(list(tap.messages), tables)
        assert during > 50, during
        assert check_no_leak(served, tables) > 20  # nor on the club's own pages
        # Nor on the grid's stream, which showed every table live, cards and all.
        stream.close()
        assert check_tiles_no_leak(stream.grids) > 20
        for name in TABLES:
            live = [t for t in stream.tiles(name) if t["hand"] and not t["hand"]["over"]]
            assert any(t["trick"] for t in live) and any(t["trump"] for t in live), name
            assert any(t["result"] for t in stream.tiles(name)), name
    finally:
        for t in tables.values():
            t.close()
        proxy.close()
        feed.close()
        tap.close()


def test_the_leak_check_finds_points_a_taken_card_and_an_early_partner():
    """The wire check itself can fail: a state with points, one naming a card that is
    not face up, one with the partner before the called card is played."""
    class T:
        called_at = {(1, 1): 7}

    hand = {"number": 1, "players": 5, "over": False, "tricks_played": 0, "trick": [
        {"seat": 0, "card": "3c"}], "trick_complete": False, "briscola": None,
        "called": "1d", "partner": None, "teams": None}
    state = {"match": {"id": 1}, "hand": hand, "reveal": None, "note": None}

    def msg(st):
        return [("briscola/c/t/state", json.dumps({"state": st}).encode(), True)]

    assert check_no_leak(msg(state), {"t": T}) == 1
    with pytest.raises(AssertionError):
        check_no_leak(msg(dict(state, standing={"points": [40, 0]})), {"t": T})
    with pytest.raises(AssertionError):
        check_no_leak(msg(dict(state, note={"event": {"card": "7s"}})), {"t": T})
    with pytest.raises(AssertionError):
        check_no_leak(msg(dict(state, hand=dict(hand, partner=2))), {"t": T})


def test_a_table_without_a_club_publishes_nothing_and_keeps_no_outbox(tmp_path):
    config = replace(Config(), table=TableConfig(players=2, names=("A", "B"), match=1,
                                                 first_dealer=0))
    table = build_table(config, db_path=tmp_path / "t.db", dashboard=False, vision=False)
    try:
        assert table.club is None
        assert not any("Club" in type(o).__name__ for o in table.controller.outputs)
        sim = play_hand(HandRules(2), 0, random.Random(3), style="sensible")
        for event in sim.events:
            table.controller.submit(event.to_json())
        assert table.store.hands(table.controller.match_id)[0].result is not None
        assert table.store.outbox_counts() == {"entries": 0, "sent": 0, "pending": 0}
        assert table.store.get_setting("store_id") is None
    finally:
        table.close()


def test_a_table_starts_and_plays_at_once_with_its_broker_down(tmp_path):
    """No broker at all (a closed port): the table starts, plays a hand at full speed,
    and keeps the hand in its outbox."""
    from mqtt_broker import free_port

    port = free_port()
    config = replace(Config(), table=TableConfig(players=2, names=("A", "B"), match=1,
                                                 first_dealer=0),
                     club=ClubConfig("127.0.0.1", port, CLUB, "solo", "solo", "x"))
    t0 = time.monotonic()
    table = build_table(config, db_path=tmp_path / "t.db", dashboard=False, vision=False)
    try:
        sim = play_hand(HandRules(2), 0, random.Random(4), style="sensible")
        for event in sim.events:
            table.controller.submit(event.to_json())
        assert time.monotonic() - t0 < 5
        assert table.store.outbox_counts() == {"entries": 2, "sent": 0, "pending": 2}
        assert not table.club.connected.is_set()
    finally:
        t0 = time.monotonic()
        table.close()
        assert time.monotonic() - t0 < 5


def test_the_acl_lets_a_table_write_only_its_own_topics(tmp_path, broker):
    tap = Tap(broker.port)
    assert tap.connected.wait(10)

    def connect(user, password=None):
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"acl-{user}")
        c.username_pw_set(user, password or PASSWORD.format(user=user))
        result = {}
        c.on_connect = lambda cl, u, f, rc, p: result.setdefault("rc", rc)
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        wait_for(lambda: "rc" in result, 10)
        return c, result["rc"]

    t1, rc = connect("tavolo-1")
    assert not rc.is_failure
    t1.publish(f"briscola/{CLUB}/tavolo-2/state", b'{"forged": true}', qos=1).wait_for_publish(5)
    t1.publish(f"briscola/{CLUB}/tavolo-2/hands/1-0", b'{"forged": true}', qos=1
               ).wait_for_publish(5)
    t1.publish(f"briscola/{CLUB}/tavolo-1/state", b'{"mine": true}', qos=1).wait_for_publish(5)
    t1.publish("briscola/other-club/tavolo-1/state", b'{"forged": true}', qos=1
               ).wait_for_publish(5)
    wait_for(lambda: any(t == f"briscola/{CLUB}/tavolo-1/state" for t, _, _ in tap.messages))
    time.sleep(0.3)
    topics = [t for t, _, _ in tap.messages]
    assert f"briscola/{CLUB}/tavolo-1/state" in topics
    assert not any(b"forged" in p for _, p, _ in tap.messages), topics
    # The club's reader reads but cannot write; a wrong password is refused.
    reader, rc = connect("club-view")
    assert not rc.is_failure
    reader.publish(f"briscola/{CLUB}/tavolo-1/state", b'{"forged": true}', qos=1
                   ).wait_for_publish(5)
    time.sleep(0.3)
    assert not any(b"forged" in p for _, p, _ in tap.messages)
    bad, rc = connect("tavolo-1", "wrong")
    assert rc.is_failure
    for c in (t1, reader, bad):
        c.disconnect()
        c.loop_stop()
    tap.close()


def test_the_club_keeps_one_copy_per_key_takes_revisions_and_withdrawals(tmp_path):
    """ClubFeed's bookkeeping, fed messages directly (no broker)."""
    feed = ClubFeed("127.0.0.1", 1, CLUB, db=str(tmp_path / "c.db"))

    class Msg:
        def __init__(self, topic, doc):
            self.topic, self.payload = topic, json.dumps(doc).encode()

    result = {"complete": True, "points": [70, 50], "teams": None, "winners": [0],
              "outcome": "win"}
    hand = {"key": "s1/1/0", "kind": "hand", "revision": 1, "match": 1, "hand": 0,
            "finished": "2026-12-01T10:00:00+00:00", "names": ["A", "B"],
            "players": ["A", "B"], "result": result}
    topic = f"briscola/{CLUB}/t1/hands/1-0"
    for _ in range(3):
        feed._on_message(None, None, Msg(topic, hand))
    feed._on_message(None, None, Msg(f"briscola/{CLUB}/t2/hands/1-0", hand))  # another table
    assert len(feed.hands()) == 2 and feed.stats["duplicates"] == 2
    feed._on_message(None, None, Msg(topic, dict(hand, revision=2, result=dict(
        result, points=[50, 70], winners=[1]))))
    assert {h["table"]: h["result"]["winners"] for h in feed.hands()} == {"t1": [1],
                                                                          "t2": [0]}
    feed._on_message(None, None, Msg(topic, dict(hand, revision=1)))  # an older copy
    assert {h["table"]: h["revision"] for h in feed.hands()} == {"t1": 2, "t2": 1}
    feed._on_message(None, None, Msg(topic, {"key": "s1/1/0", "revision": 3,
                                             "withdrawn": True}))
    assert [h["table"] for h in feed.hands()] == ["t2"]
    feed._on_message(None, None, Msg("briscola/other/t1/hands/1-0", hand))
    feed._on_message(None, None, Msg(f"briscola/{CLUB}/t1/state/x", {}))
    assert feed.stats["refused"] == 2
    # A state is shown through the phones' gate again: no points during a hand.
    feed._on_message(None, None, Msg(f"briscola/{CLUB}/t1/state", {"sent": 1.0, "state": {
        "hand": {"number": 1, "over": False, "trick": []}, "reveal": {"points": [1, 2]},
        "secret": 1}}))
    [t1] = [t for t in feed.tables() if t["table"] == "t1"]
    assert t1["state"]["reveal"] is None and "secret" not in t1["state"]
    ranking = compute_club(feed)
    assert [p["name"] for p in ranking["players"]] == ["A", "B"]


def compute_club(feed):
    from web_dashboard.ranking import compute

    return compute(feed.summaries()).to_json()


def test_briscola_table_club_serves_the_view_and_refuses_bad_input(tmp_path, broker):
    import subprocess
    import sys
    import urllib.request

    from mqtt_broker import free_port

    def club_cli(*args, **kw):
        return subprocess.run([sys.executable, "-m", "table_controller", "club", *args],
                              capture_output=True, text=True, timeout=30, **kw)

    for args, said in ((["--club", CLUB], "--broker (or broker in a --config file's [club]) "
                                          "is required"),
                       (["--broker", "h:0x", "--club", CLUB], "--broker: expected host"),
                       (["--broker", "h", "--club", "a/b"], "--club: expected 1 to 32"),
                       (["--config", str(tmp_path / "none.toml")],
                        f"{tmp_path / 'none.toml'}: no such")):
        r = club_cli(*args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
        assert r.stderr.startswith(f"briscola-table club: {said}"), r.stderr
    (tmp_path / "club.toml").write_text(
        f'[club]\nbroker = "127.0.0.1:{broker.port}"\nclub = "{CLUB}"\n'
        'username = "club-view"\n'
        f'password_file = "{tmp_path / "pw"}"\n')
    (tmp_path / "pw").write_text(PASSWORD.format(user="club-view") + "\n")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "table_controller", "club", "--config",
                             str(tmp_path / "club.toml"), "--host", "127.0.0.1", "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    table = SimTable(tmp_path, "tavolo-1", 2, broker.port)
    try:
        assert f"127.0.0.1:{port}" in proc.stdout.readline()
        table.play_hand(9, pause=0)

        def page():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/club/hands") as r:
                return json.load(r)["hands"]

        wait_for(page, 30)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as r:
            assert 'id="table-tavolo-1"' in r.read().decode()
    finally:
        table.close()
        proc.terminate()
        proc.wait(10)


def test_a_table_restarted_after_playing_offline_sends_what_it_missed(tmp_path, broker):
    """The outbox survives the table itself: hands finished while the network was gone,
    then the table stopped; started again with the network back, it sends them."""
    feed = ClubFeed("127.0.0.1", broker.port, CLUB, username="club-view",
                    password=PASSWORD.format(user="club-view")).start()
    assert feed.connected.wait(10)
    proxy = Proxy(broker.port)
    proxy.cut()
    table = SimTable(tmp_path, "tavolo-1", 2, proxy.port)
    try:
        table.play_hand(21, pause=0)
        assert table.store.outbox_counts()["pending"] == 2  # the hand and the match
    finally:
        table.close()
    proxy.mend()
    again = SimTable(tmp_path, "tavolo-1", 2, proxy.port)
    try:
        wait_for(lambda: len(feed.hands()) == 1 and len(feed.matches()) == 1, 30)
        # Marked sent once the broker's acknowledgement is back (just after delivery).
        wait_for(lambda: again.store.outbox_counts()["pending"] == 0, 30)
        assert feed.hands()[0]["key"] in again.finished_keys()
    finally:
        again.close()
        proxy.close()
        feed.close()


# -- the grid live: Server-Sent Events ---------------------------------------------------

LIVE = {"CLUB_NAME": CLUB, "CLUB_SSE_KEEPALIVE": 0.2, "CLUB_SSE_GAP": 0.01,
        "CLUB_SSE_MAX_SECONDS": 30}


class GridStream:
    """The club page's stream, read as the browser does, on a thread: every grid it
    sends, parsed."""

    def __init__(self, client) -> None:
        self.response = client.get("/stream", buffered=False)
        assert self.response.status_code == 200
        assert self.response.mimetype == "text/event-stream"
        self.grids: list[list[dict]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        buffer = ""
        for chunk in self.response.response:
            buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
            while "\n\n" in buffer:
                message, buffer = buffer.split("\n\n", 1)
                lines = message.split("\n")
                if any(line.startswith("event:") for line in lines):
                    continue  # a ping
                data = [line[6:] for line in lines if line.startswith("data: ")]
                if data:
                    self.grids.append(json.loads("\n".join(data))["tables"])
            if self.stop.is_set():
                break

    def tiles(self, table):
        return [t for grid in self.grids for t in grid if t["table"] == table]

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.response.close()


def check_tiles_no_leak(grids) -> int:
    """Every tile the stream sent: during a hand no result, no key about points, no
    partner or teams, and no card but the trump and the trick's. Returns how many were
    checked during a hand."""
    import re

    during = 0
    for grid in grids:
        for t in grid:
            hand = t.get("hand")
            if hand is None or hand.get("over"):
                continue
            during += 1
            where = f"{t['table']} during hand {hand['number']}"
            assert t["result"] is None, where
            for path, key, _value in walk(t):
                assert not any(w in str(key) for w in ("point", "score", "running",
                                                       "partner", "teams", "reveal")), \
                    f"{where}: {path}"
            named = set(re.findall(CARD, json.dumps(t)))
            shown = {p["card"] for p in t["trick"]} | {t["trump"]}
            assert named <= shown, f"{where}: names {named - shown}"
    return during


def test_the_grid_is_live_over_sse_with_card_images_and_nothing_secret(tmp_path):
    feed = ClubFeed("127.0.0.1", 1, CLUB, db=str(tmp_path / "c.db"))  # fed directly

    class Msg:
        def __init__(self, topic, doc):
            self.topic = topic
            self.payload = doc if isinstance(doc, bytes) else json.dumps(doc).encode()

    def state(table, doc):
        feed._on_message(None, None, Msg(f"briscola/{CLUB}/{table}/state",
                                         {"sent": time.time(), "state": doc}))

    app = create_club_app(feed, LIVE)
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    # Without JavaScript the page reloads itself; with it, club.js follows the stream.
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    assert 'src="/static/club.js"' in page and client.get("/static/club.js").status_code == 200
    stream = GridStream(client)
    try:
        wait_for(lambda: stream.grids, 5)
        assert stream.grids[0] == []  # the grid as it is: no table yet
        # A chiamata hand being played, its state carrying what must not go out (the
        # table's gate and the club's take most of it; the tile keeps only known keys).
        match = {"id": 1, "players": 5, "names": ["Ada", "", "Cid", "Dan", "Eva"]}
        during = {"match": match, "standing": {"hands_won": [0, 0], "points": [40, 20]},
                  "reveal": {"points": [70, 50], "winners": [0, 2]}, "running_points": 9,
                  "hand": {"number": 1, "over": False, "players": 5, "turn": 1,
                           "trick": [{"seat": 0, "card": "7c", "points": 0}],
                           "briscola": None, "called": "3d", "caller": 0, "partner": 2,
                           "teams": [[0, 2], [1, 3, 4]], "tricks_played": 2,
                           "tricks_left": 6, "tricks_won": [1, 0, 1, 0, 0]}}
        feed._on_message(None, None, Msg(f"briscola/{CLUB}/t1/status", b"online"))
        state("t1", during)
        wait_for(lambda: any(t["hand"] for t in stream.tiles("t1")), 5)
        live = [t for t in stream.tiles("t1") if t["hand"]][-1]
        assert live["status"] == "online" and live["names"] == ["Ada", "P2", "Cid", "Dan",
                                                                  "Eva"]
        assert live["turn"] == "P2" and live["trump"] == "3d"
        assert live["trick"] == [{"name": "Ada", "card": "7c"}]
        assert live["hand"] == {"number": 1, "tricks_played": 2, "tricks_left": 6,
                                "over": False}
        assert live["result"] is None and live["hands_won"] == [0, 0]
        # The tile on the page: the cards as images, the names, no points.
        page = client.get("/").get_data(as_text=True)
        tile = page[page.index('id="table-t1"'):]
        tile = tile[:tile.index("</section>")]
        assert '<img src="/cards/builtin/7c" alt="7 di coppe"' in tile
        assert '<img src="/cards/builtin/3d" alt="3 di denari"' in tile
        assert "Ada" in tile and "P2" in tile and "70" not in tile and "40" not in tile
        face = client.get("/cards/builtin/7c")
        assert face.status_code == 200 and face.mimetype == "image/svg+xml"
        # The hand over: the result goes out, with the winners' names.
        state("t1", dict(during, hand=dict(during["hand"], over=True, turn=None,
                                           tricks_played=8, tricks_left=0)))
        wait_for(lambda: any(t["result"] for t in stream.tiles("t1")), 5)
        done = [t for t in stream.tiles("t1") if t["result"]][-1]
        assert done["result"] == {"points": [70, 50], "outcome": None,
                                  "winners": ["Ada", "Cid"]}
        assert done["turn"] is None
        assert check_tiles_no_leak(stream.grids) >= 1
    finally:
        stream.close()
        feed.close()


def test_the_tile_leak_check_finds_points_a_partner_and_a_hidden_card():
    tile = {"table": "t", "hand": {"number": 1, "over": False}, "trump": "3d",
            "trick": [{"name": "A", "card": "7c"}], "result": None}
    assert check_tiles_no_leak([[tile]]) == 1
    for bad in (dict(tile, result={"points": [1, 2]}), dict(tile, partner="Cid"),
                dict(tile, hand=dict(tile["hand"], running_points=3)),
                dict(tile, names=["A", "5s"])):
        with pytest.raises(AssertionError):
            check_tiles_no_leak([[bad]])


def test_the_grid_streams_are_capped(tmp_path):
    feed = ClubFeed("127.0.0.1", 1, CLUB, db=str(tmp_path / "c.db"))
    client = create_club_app(feed, dict(LIVE, CLUB_SSE_MAX_STREAMS=1)).test_client()
    first = GridStream(client)
    try:
        wait_for(lambda: first.grids, 5)
        refused = client.get("/stream")
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    finally:
        first.close()
        feed.close()
