"""Nothing a phone can reach reveals points (or face-down cards) before the hand ends.

A hand is played through the standalone session; after every event every read
endpoint is fetched, and every SSE message sent on a real connection is kept.
All of it must be free of points until the last trick, and cards may only be
the ones lying face up on the table. Then the reveal must give the right score.
"""

import http.client
import json
import random
import re
import threading
import time

import pytest
from werkzeug.serving import make_server

from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from web_dashboard import create_app, hub_of

POINT_KEYS = {"points", "team_points", "running", "score", "pts"}
CARD_KEYS = {"card", "briscola", "called"}
# Public lists of small numbers that may equal the points by chance (e.g. [2, 0, 0]).
PUBLIC_COUNTS = {"tricks_won", "hands_won", "trick_winners", "draw_order", "winners", "names"}


def walk(doc, path=""):
    """(key path, key, value) for every key in a JSON document."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield f"{path}.{k}", k, v
            yield from walk(v, f"{path}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from walk(v, f"{path}[{i}]")


def assert_hidden(doc, visible: set[str], where: str, points: list[int] | None = None) -> None:
    """No key about points, no list equal to the seats' points so far, no reveal, and
    only cards in ``visible``."""
    for path, key, value in walk(doc):
        assert key not in POINT_KEYS and "point" not in key and "score" not in key, \
            f"{where}: points leaked at {path}"
        if points and any(points) and isinstance(value, list) and key not in PUBLIC_COUNTS:
            assert value != points, f"{where}: the seats' points so far at {path}"
        if key == "reveal":
            assert value is None, f"{where}: a reveal before the hand ended at {path}"
        if key == "result" and path.endswith("].result"):
            assert value is None or value.get("complete", True), where
        if key in CARD_KEYS and value is not None:
            assert value in visible, f"{where}: {value} at {path} is not face up on the table"


def boot_json(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="boot">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


class StreamReader(threading.Thread):
    """A phone: one real SSE connection, every state message kept."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.messages: list[dict] = []
        self.connected = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", "/stream")
        response = conn.getresponse()
        self.connected.set()
        event, data = None, []
        for raw in response:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
            elif not line:
                if event == "state":
                    self.messages.append(json.loads("\n".join(data)))
                event, data = None, []
        conn.close()


def table_cards(referee) -> set[str]:
    """What lies face up right now: the trick, the face-up briscola, the called card."""
    view = referee.hand.view()
    cards = {str(p.card) for p in view.trick}
    if view.briscola is not None:
        cards.add(str(view.briscola))
    if view.called is not None:
        cards.add(str(view.called))
    return cards


@pytest.mark.parametrize("players,seed,variants", [
    (2, 21, ()), (3, 22, ()), (4, 23, ()), (5, 24, ()), (6, 25, ()),
    (2, 26, ("swap2", "swap7")),
])
def test_no_points_reach_a_phone_before_the_hand_ends(tmp_path, players, seed, variants):
    app = create_app({"DATABASE": str(tmp_path / "leak.sqlite3"), "TESTING": True,
                      "SSE_KEEPALIVE": 0.2})
    hub = hub_of(app)
    session = app.extensions["briscola"]["session"]
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    phone = StreamReader(server.server_port)
    phone.start()
    assert phone.connected.wait(5)
    client = app.test_client()
    names = [f"P{s}" for s in range(players)]
    result = hub.submit("setup", players=players, names=names, variants=list(variants),
                        length=3, deck="builtin", dealer=0)
    match_id = result["match"]
    sim = play_hand(HandRules(players, frozenset(variants)), 0, random.Random(seed),
                    style="sensible")
    if variants:
        assert sim.swaps, "pick a seed whose hand has a swap"
    # Seen on the table at each step; a rejected card was physically put down too.
    seen_per_seq: dict[int, set[str]] = {}
    points_per_seq: dict[int, list[int]] = {}
    try:
        events = [e.to_json() for e in sim.events[1:]]
        # A mistake mid-hand (a card played again): its violation is public, and the
        # card lies on the table again for everyone to see.
        first = next(e for e in events if e["type"] == "play")
        events.insert(len(events) // 2, {"type": "play", "seat": 0, "card": first["card"]})
        for obj in events:
            decision = session.feed(obj)
            referee = session.referee
            visible = table_cards(referee)
            if decision.violation and decision.violation.card is not None:
                visible.add(str(decision.violation.card))
            if hub.snapshot().get("violation") and hub.snapshot()["violation"]["card"]:
                visible.add(hub.snapshot()["violation"]["card"])
            if getattr(decision.event, "card", None) is not None and decision.accepted:
                visible.add(str(decision.event.card))
            seen_per_seq[hub.last.n] = visible
            if referee.hand.is_over():
                break
            where = f"after {obj}"
            points = list(referee.hand.points)  # the referee's secret, for comparison only
            points_per_seq[hub.last.n] = points
            assert_hidden(client.get("/api/v1/table").get_json(), visible, where, points)
            assert_hidden(client.get("/api/v1/matches").get_json(), visible, where, points)
            assert_hidden(client.get(f"/api/v1/matches/{match_id}").get_json(), visible, where,
                          points)
            r = client.get(f"/api/v1/matches/{match_id}/hands/0")
            assert r.status_code == 409 and "points" not in r.get_json()
            assert client.get(f"/api/v1/matches/{match_id}/hands/0/events").status_code == 409
            assert client.get(f"/api/v1/matches/{match_id}/record.bgn").data == b""
            html = client.get("/").get_data(as_text=True)
            assert_hidden(boot_json(html)["state"], visible, where, points)
            assert 'class="pts"' not in html  # nor in the page for phones without script
            page = client.get(f"/history/{match_id}").get_data(as_text=True)
            assert 'class="pts"' not in page and "–" not in page.split("<ol class=\"hands\">")[1]
            assert client.get(f"/history/{match_id}/hands/0").status_code == 404
            # The enrollment page shows an enrollment's captures only, never the hand.
            assert 'id="enroll-none"' in client.get("/enroll").get_data(as_text=True)
        assert referee.hand.is_over()
        assert [v.kind.value for v in referee.violations] == ["duplicate_card"]
        # Let the phone's stream catch up with the last message before it is closed (on
        # a loaded machine the reader thread may lag behind the hub).
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (
                phone.messages and phone.messages[-1]["seq"] == hub.last.n):
            time.sleep(0.02)
    finally:
        hub.close()
        phone.join(10)
        server.shutdown()
    assert hub.streams == 0  # the closed stream was counted out
    # Every message the phone received before the last trick hides the points too.
    assert phone.messages, "the phone received nothing"
    received = [m["seq"] for m in phone.messages]
    assert received == sorted(received) and received[-1] == hub.last.n
    for message in phone.messages[:-1]:
        if message["seq"] in seen_per_seq:
            assert_hidden(message, seen_per_seq[message["seq"]], f"SSE {message['seq']}",
                          points_per_seq.get(message["seq"]))
        else:  # the connection's first snapshot, before the match
            assert_hidden(message, set(), f"SSE {message['seq']}")
    final = phone.messages[-1]
    assert final["hand"]["over"] and final["reveal"]["points"] == sim.points
    assert [t["winner"] for t in final["reveal"]["tricks"]] == sim.winners
    account = client.get(f"/api/v1/matches/{match_id}/hands/0").get_json()["reveal"]
    assert account["points"] == sim.points
    # An undo reopening the last trick hides everything again.
    if sim.events[-1].type == "collect":
        session.feed({"type": "undo"})
    session.feed({"type": "undo"})
    assert not session.referee.hand.is_over()
    visible = table_cards(session.referee) | {first["card"]}
    points = list(session.referee.hand.points)
    assert_hidden(client.get("/api/v1/table").get_json(), visible, "after undo", points)
    assert_hidden(client.get(f"/api/v1/matches/{match_id}").get_json(), visible, "after undo",
                  points)
    assert client.get(f"/api/v1/matches/{match_id}/hands/0").status_code == 409
    assert client.get(f"/api/v1/matches/{match_id}/record.bgn").data == b""


CODE = re.compile(r"^(10|[1-9])[dcsb]$")


def card_codes(doc) -> set[str]:
    """Every string in a JSON document that is a card code."""
    if isinstance(doc, dict):
        return set().union(*(card_codes(v) for v in doc.values())) if doc else set()
    if isinstance(doc, list):
        return set().union(*(card_codes(v) for v in doc)) if doc else set()
    return {doc} if isinstance(doc, str) and CODE.match(doc) else set()


def assert_hold_shows_few(holds: list, guesses: set[str], where: str) -> None:
    """A hold shows the camera's few likely cards and nothing else: no list of the cards
    still possible (which would tell the ones already taken, hence the points)."""
    for h in holds:
        assert set(h) == {"zone", "seat", "reason", "likely", "card"}, where
        assert len(h["likely"]) <= 4 and set(h["likely"]) <= guesses, where
        assert card_codes(h) <= guesses | {h["card"]} - {None}, where


def test_held_cards_and_picks_reveal_no_points(tmp_path):
    """A hand through the tracker where every fifth card is not recognised: the phone
    shows the hold and its picker (the few likely cards, then a rank + suit chooser), a
    pick names it; nothing shown carries points, lists the possible cards, or tells
    where a refused card is."""
    from firmware_bridge.indicators import Indicators
    from table_controller.controller import Controller, HubOutput, IndicatorsOutput
    from table_controller.store import Store
    from vision.tracker import FrameObs, Tracker, ZoneObs
    from web_dashboard.live import LiveTable

    store = Store(tmp_path / "t.sqlite3")
    info = store.new_match(players=2)
    hub, indicators = LiveTable(), Indicators()

    class Seen:
        def observe(self, frame, t):
            return frame

    ctl = Controller(info.referee(), store=store, match_id=info.id, observer=Seen(),
                     outputs=[IndicatorsOutput(indicators), HubOutput(hub)])
    hub.executor = lambda c: ctl.execute(c.kind, dict(c.args))
    ctl.tracker = Tracker({0: "play0", 1: "play1"}, lambda: ctl.referee.hand)
    app = create_app({"DATABASE": str(tmp_path / "d.sqlite3"), "TESTING": True},
                     hub=hub, store=store)
    app.extensions["pin"].set("2468")
    client = app.test_client()
    sim = play_hand(HandRules(2), 1, random.Random(31), style="sensible", collect_prob=0)
    zones: dict[str, ZoneObs] = {}
    clock = [0.0]

    def frames(n: int) -> None:
        for _ in range(n):
            ctl.on_frame(FrameObs(clock[0], dict(zones)), clock[0])
            clock[0] += 1 / 30

    def check(where: str) -> None:
        referee = ctl.referee
        if referee.hand.is_over():
            return
        visible = table_cards(referee) | {h["card"] for h in hub.snapshot()["holds"]
                                          if h["card"]}
        points = list(referee.hand.points)
        assert_hidden(client.get("/api/v1/table").get_json(), visible, where, points)
        assert_hidden(boot_json(client.get("/").get_data(as_text=True))["state"], visible,
                      where, points)
        for line in indicators.state.text:
            assert "pt" not in line.lower() and "point" not in line.lower(), where

    ctl.submit({"type": "hand", "players": 2, "dealer": 1})
    zones["briscola"] = ZoneObs(str(sim.briscola), (50.0, 50.0))
    frames(5)
    held = 0
    plays = [e for e in sim.events if e.type == "play"]
    for i, play in enumerate(plays):
        zone = f"play{play.seat}"
        code = str(play.card)
        if i % 5 == 2:
            # The camera's guesses: the card, cards of taken tricks, the rest of the deck.
            taken = [str(p.card) for t in ctl.referee.hand.tricks for p in t.plays]
            guesses = ("1d", *taken[-3:], code, "2c", "3c", "4c", "5c")
            zones[zone] = ZoneObs("?", (100.0 * play.seat, 100.0), candidates=guesses)
            frames(15)
            holds = hub.snapshot()["holds"]
            assert [h["seat"] for h in holds] == [play.seat], f"play {i}"
            where = f"held {code}"
            check(where)
            possible = ctl.tracker.possible(zone)
            assert_hold_shows_few(holds, set(guesses) & possible, where)
            assert_hold_shows_few(client.get("/api/v1/table").get_json()["holds"],
                                  set(guesses) & possible, where)
            boot = boot_json(client.get("/").get_data(as_text=True))
            assert_hold_shows_few(boot["state"]["holds"], set(guesses) & possible, where)
            # The whole page: no card code but the trick, the briscola and the few likely.
            assert card_codes(boot) <= table_cards(ctl.referee) | set(guesses) & possible
            # Refused picks: a card of a taken trick, one in the trick on the table, one
            # never seen (in the other hand, if any): the same line, which names no place.
            refused = {json.dumps(client.post(
                "/api/v1/pick", json={"seat": play.seat, "card": other},
                headers={"X-Table-PIN": "2468"}).get_json())
                for other in [*taken[:1], *(str(p.card) for p in ctl.referee.hand.current)]}
            assert len(refused) == 1, refused
            for doc in refused:
                assert json.loads(doc)["message"] == "that card cannot be there now"
            r = client.post("/api/v1/pick", json={"seat": play.seat, "card": code},
                            headers={"X-Table-PIN": "2468"})
            assert r.status_code == 200, r.get_json()
            assert "point" not in json.dumps(r.get_json())
            held += 1
        else:
            zones[zone] = ZoneObs(code, (100.0 * play.seat, 100.0))
            frames(4)
        check(f"after {code}")
        if len(ctl.referee.hand.current) == 0 and not ctl.referee.hand.is_over():
            zones.pop("play0", None)
            zones.pop("play1", None)
            frames(10)
            if ctl.referee.hand.stock == 0:
                zones.pop("briscola", None)
    assert held == 8 and ctl.referee.hand.is_over()
    assert ctl.referee.hand.points == sim.points and not ctl.referee.violations
