"""Issue 12: every route and every stream message, crawled during 2- to 6-player
hands, shows nothing a player could not see on the table.

A hand is played through the standalone session (the machinery of ``dashboard
--demo``), with a captured card seen again mid-hand (a camera's misreading, refused
as a duplicate). At checkpoints (after taken tricks, and mid-trick) every GET route of
the app is fetched, by a locked phone and by an unlocked one; every POST route is sent
a request that changes nothing (or is refused); both stream URLs are opened with
every form of ``Last-Event-ID`` (none, ``<boot>-0``, a foreign boot, 5,000 digits,
garbage, ``?last_id=`` ...); and one phone follows the hand on a real connection,
keeping every message. Nothing may carry points, a reveal, or the code of a card
lying in a taken trick; no response may be a 500. A route the crawl does not know
fails the test, so that a new route is crawled too.
"""

import json
import random
import re
import threading
import time
from pathlib import Path

import pytest
from test_dashboard_leak import StreamReader, assert_hidden, boot_json, table_cards
from test_dashboard_reconnect import frames_of, id_forms
from werkzeug.serving import make_server

from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from web_dashboard import create_app, hub_of

PIN = "2468"
CARD = re.compile(r"(?<![0-9A-Za-z])(?:10|[1-9])[dcsb](?![0-9A-Za-z])")
STATIC = sorted(p.name for p in (Path(__file__).parent.parent / "web_dashboard" /
                                 "static").iterdir())
# Bodies that hold no game state (the same whatever the hand): not scanned for codes.
OPAQUE = ("/static/", "/cards/", "/qr.svg", "/api/v1/openapi.yaml", "/api/v1/i18n/")


def get_urls(match_id: int, visible: str, captured: str) -> dict[str, list[str]]:
    """The URLs the crawl fetches for each GET rule of the app."""
    m = match_id
    return {
        "/static/<path:filename>": [f"/static/{name}" for name in STATIC],
        "/": ["/", "/?last_id=0"],
        "/qr.svg": ["/qr.svg"],
        "/lang/<code>": ["/lang/en?next=/history/", "/lang/xx"],
        "/history/": ["/history/"],
        "/history/<id:match_id>": [f"/history/{m}", f"/history/{m + 1}",
                                   "/history/" + "9" * 30],
        "/history/<id:match_id>/hands/<id:idx>": [f"/history/{m}/hands/0",
                                                  f"/history/{m}/hands/1",
                                                  f"/history/{m}/hands/{'9' * 30}"],
        "/history/<id:match_id>/record.bgn": [f"/history/{m}/record.bgn"],
        "/setup/": ["/setup/"],
        "/unlock": ["/unlock", "/unlock?next=/history/"],
        "/setup/pin": ["/setup/pin"],
        "/api/v1/table": ["/api/v1/table"],
        "/api/v1/matches": ["/api/v1/matches", "/api/v1/matches?limit=1e999"],
        "/api/v1/matches/<id:match_id>": [f"/api/v1/matches/{m}", "/api/v1/matches/" +
                                          "9" * 30],
        "/api/v1/matches/<id:match_id>/hands/<id:idx>": [f"/api/v1/matches/{m}/hands/0",
                                                         f"/api/v1/matches/{m}/hands/1"],
        "/api/v1/matches/<id:match_id>/hands/<id:idx>/events": [
            f"/api/v1/matches/{m}/hands/0/events"],
        "/api/v1/matches/<id:match_id>/record.bgn": [f"/api/v1/matches/{m}/record.bgn"],
        "/api/v1/i18n/<lang>": ["/api/v1/i18n/it", "/api/v1/i18n/en", "/api/v1/i18n/fr"],
        "/api/v1/decks": ["/api/v1/decks"],
        "/api/v1/openapi.yaml": ["/api/v1/openapi.yaml"],
        "/cards/back.svg": ["/cards/back.svg"],
        "/cards/<deck>/<code>": [f"/cards/builtin/{visible}", f"/cards/french/{captured}"],
        "/enroll": ["/enroll"],
        "/ranking/": ["/ranking/"],
        "/players/<path:name>": ["/players/P1", "/players/Nobody"],
        "/api/v1/ranking": ["/api/v1/ranking"],
        "/api/v1/players": ["/api/v1/players"],
        "/api/v1/players/<path:name>": ["/api/v1/players/P1", "/api/v1/players/x"],
        "/enroll/capture/<code>.png": [f"/enroll/capture/{captured}.png"],
        # The streams are crawled with every Last-Event-ID form below.
        "/stream": [], "/api/v1/stream": [],
    }


def post_requests(seat: int, captured: str, token: str) -> dict[str, list[dict]]:
    """For each POST rule: requests that change no hand (refused, or idempotent)."""
    play = {"type": "play", "seat": seat, "card": captured}
    form = {"csrf_token": token}
    return {
        "/table/new-hand": [{"data": {}}],
        "/table/undo": [{"data": {}}],
        "/table/event": [{"data": dict(form, **{k: str(v) for k, v in play.items()})}],
        "/table/pick": [{"data": dict(form, seat=str(seat), card=captured)}],
        "/table/call": [{"data": dict(form, caller=str(seat), rank=captured[:-1],
                                      suit=captured[-1], bid="61")}],
        "/setup/": [{"data": {"players": "²"}}],
        "/unlock": [{"data": dict(form, pin="0000")}],
        "/lock": [{"data": {}}],
        "/setup/pin": [{"data": dict(form, current="0000", pin="1111", pin2="1111")}],
        "/api/v1/setup": [{"json": {"players": 1e300}}],
        "/api/v1/hands": [{"json": {"dealer": "x"}}],
        "/api/v1/events": [{"json": play, "pin": True}],
        "/api/v1/correct": [{"json": {"seat": 99, "card": captured}, "pin": True}],
        "/api/v1/pick": [{"json": {"seat": seat, "card": captured}, "pin": True}],
        "/api/v1/undo": [{"json": {}}],
        "/api/v1/names": [{"json": {"names": "x"}}],
        "/enroll/retake": [{"data": dict(form, code=captured)}],
        "/ranking/rename": [{"data": dict(form, old="Nobody", new="x")}],
        "/api/v1/players/rename": [{"json": {"from": "Nobody", "to": "x"}, "pin": True}],
    }


class Crawl:
    """Fetches everything, checks each body against what lies face up now."""

    def __init__(self, app) -> None:
        self.app = app
        self.hub = hub_of(app)
        self.session = app.extensions["briscola"]["session"]
        self.fetched = 0
        self.rules_get = {r.rule for r in app.url_map.iter_rules() if "GET" in r.methods}
        self.rules_post = {r.rule for r in app.url_map.iter_rules() if "POST" in r.methods}
        # Card codes a page shows whatever the game (its icon, the decks' samples),
        # learnt before the first card is played.
        self.baseline: dict[str, set[str]] | None = None
        # The crawl's wrong PINs would lock its phones out: a day passes between rounds.
        self.now = 1e6
        app.extensions["pin"].clock = lambda: self.now

    def learn(self, clients: dict) -> None:
        """The card codes each page shows before any card is played."""
        self.baseline = {}
        for client in clients.values():
            for rule, urls in get_urls(self.hub.snapshot()["match"]["id"], "1d", "2d").items():
                for url in urls:
                    for lang in ("it", "en"):
                        r = client.get(url, headers={"Accept-Language": lang})
                        text = r.get_data(as_text=True)
                        if len(url.split("?")[0]) > 1:
                            text = text.replace(url.split("?")[0], "")
                        self.baseline.setdefault(rule, set()).update(CARD.findall(text))
                        r.close()

    def check_text(self, text: str, where: str, url: str = "", rule: str = "") -> None:
        referee = self.session.referee
        hand = referee.hand
        if hand is None or hand.is_over():
            return
        # The page's language links echo the phone's own URL (which may name any card).
        text = text.replace(url.split("?")[0], "") if len(url.split("?")[0]) > 1 else text
        visible = table_cards(referee)
        captured = {str(p.card) for t in hand.tricks for p in t.plays} - visible
        leaked = set(CARD.findall(text)) & captured - (self.baseline or {}).get(rule, set())
        assert not leaked, f"{where}: captured cards {leaked} named"
        assert 'class="pts"' not in text, f"{where}: points on the page"

    def check_json(self, doc, where: str, url: str = "", rule: str = "") -> None:
        referee = self.session.referee
        if referee.hand is None or referee.hand.is_over():
            return
        assert_hidden(doc, table_cards(referee), where, list(referee.hand.points))
        self.check_text(json.dumps(doc, ensure_ascii=False), where, url, rule)

    def check_response(self, r, url: str, who: str, rule: str = "") -> None:
        where = f"{who} {r.request.method} {url}"
        self.fetched += 1
        assert r.status_code < 500, f"{where}: {r.status_code}"
        body = r.get_data(as_text=True) if r.mimetype.startswith(("text/", "application/")) \
            else ""
        assert "Traceback" not in body, where
        for header in ("Location",):
            if header in r.headers:
                self.check_text(r.headers[header], where, url, rule)
        if any(url.startswith(p) for p in OPAQUE):
            return
        if r.is_json:
            self.check_json(r.get_json(), where, url, rule)
        elif r.mimetype == "text/html":
            if 'id="boot"' in body:
                self.check_json(boot_json(body)["state"], where, url, rule)  # catalogue:
        self.check_text(body, where, url, rule)  # as text

    def pages(self, clients: dict) -> None:
        referee = self.session.referee
        hand = referee.hand
        visible = (sorted(table_cards(referee)) or ["1d"])[0]
        taken = [str(p.card) for t in hand.tricks for p in t.plays]
        captured = taken[0] if taken else "1d"
        urls = get_urls(self.hub.snapshot()["match"]["id"], visible, captured)
        assert set(urls) == self.rules_get, "a GET route the crawl does not fetch: " \
            f"{self.rules_get ^ set(urls)}"
        for who, client in clients.items():
            for rule, rule_urls in urls.items():
                for url in rule_urls:
                    for lang in ("it", "en"):
                        r = client.get(url, headers={"Accept-Language": lang})
                        self.check_response(r, url, who, rule)
                        r.close()

    def posts(self, clients: dict) -> None:
        self.now += 86_401
        hand = self.session.referee.hand
        taken = [str(p.card) for t in hand.tricks for p in t.plays]
        captured = taken[0] if taken else "1d"
        for who, client in clients.items():
            page = client.get("/unlock").get_data(as_text=True)
            token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
            requests = post_requests(hand.turn or 0, captured, token)
            assert set(requests) == self.rules_post, "a POST route the crawl does not " \
                f"send: {self.rules_post ^ set(requests)}"
            state = json.dumps(self.hub.snapshot()["hand"])
            for url, sends in requests.items():
                if who == "unlocked" and url in ("/lock", "/unlock", "/setup/pin"):
                    continue  # would lock this phone out (or count a wrong PIN)
                for send in sends:
                    # Writes that would change the hand go without their CSRF token.
                    headers = {"X-CSRF-Token": token, "X-Table-PIN": PIN} \
                        if send.get("pin") else {}
                    kw = {"json": send["json"]} if "json" in send else {"data": send["data"]}
                    r = client.post(url, headers=headers, **kw)
                    self.check_response(r, url, who, url)
                    if r.status_code == 302:  # the flashed reply, shown on the next page
                        self.check_response(client.get("/"), "/", f"{who} after {url}", "/")
            # Nothing the crawl sent changed the hand (a refused play is only noted).
            assert json.dumps(self.hub.snapshot()["hand"]) == state

    def streams(self, client) -> None:
        for name, form in id_forms(self.hub).items():
            for url, kw in (("/stream", {"headers": {"Last-Event-ID": form}}),
                            ("/api/v1/stream", {"headers": {"Last-Event-ID": form}}),
                            ("/stream", {"query_string": {"last_id": form}}),
                            ("/api/v1/stream", {})):
                r = client.get(url, buffered=False, **kw)
                where = f"{url} {kw.get('headers') and 'Last-Event-ID' or '?last_id='} {name}"
                frames = frames_of(r)
                self.fetched += 1
                for frame in frames:
                    self.check_text(json.dumps(frame), where)
                    if frame.get("event") == "state":
                        self.check_json(json.loads(frame["data"]), where)


@pytest.mark.parametrize("players,seed", [(2, 61), (3, 62), (4, 63), (5, 64), (6, 65)])
def test_crawl_every_route_and_stream_message_during_a_hand(tmp_path, players, seed):
    app = create_app({"DATABASE": str(tmp_path / "crawl.sqlite3"), "TESTING": True,
                      "SSE_KEEPALIVE": 0.01, "SSE_MAX_SECONDS": 0.01})
    app.extensions["pin"].set(PIN)
    hub = hub_of(app)
    session = app.extensions["briscola"]["session"]
    # A phone follows the hand on a real connection (its stream outlasts the hand).
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    crawl = Crawl(app)
    locked, unlocked = app.test_client(), app.test_client()
    locked.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    page = unlocked.get("/unlock").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert unlocked.post("/unlock", data={"pin": PIN, "csrf_token": token}).status_code == 302
    clients = {"locked": locked, "unlocked": unlocked}
    result = hub.submit("setup", players=players, names=[f"P{s}" for s in range(players)],
                        variants=[], length=3, deck="builtin", dealer=0)
    assert result["accepted"], result
    crawl.learn(clients)
    sim = play_hand(HandRules(players), 0, random.Random(seed), style="sensible")
    events = [e.to_json() for e in sim.events[1:]]
    app.config["SSE_MAX_SECONDS"] = 60.0
    phone = StreamReader(server.server_port)
    phone.start()
    assert phone.connected.wait(5)
    app.config["SSE_MAX_SECONDS"] = 0.01
    seen: dict[int, tuple[set[str], set[str], list[int]]] = {}  # seq -> visible, captured, pts
    checkpoints = misread = 0
    marked: set[int] = set()
    try:
        for i, obj in enumerate(events):
            session.feed(obj)
            hand = session.referee.hand
            if hand.is_over():
                break
            seen[hub.last.n] = (table_cards(session.referee),
                                {str(p.card) for t in hand.tricks for p in t.plays},
                                list(hand.points))
            if len(hand.tricks) == 2 and not hand.current and not misread:
                # The camera sees a captured card again: refused, and announced.
                taken = str(hand.tricks[0].plays[-1].card)
                decision = session.feed({"type": "play", "seat": hand.turn, "card": taken})
                assert decision.violation.kind.value == "duplicate_card"
                assert taken in decision.violation.message  # the referee's words name it
                misread += 1
                seen[hub.last.n] = (table_cards(session.referee),
                                    {str(p.card) for t in hand.tricks for p in t.plays},
                                    list(hand.points))
            # After some taken tricks: the first event after the 1st, 2nd, middle and
            # last but one trick is taken (collected, or implied by the next play), and
            # now and then one card into a trick.
            total = hand.view().tricks_played + hand.view().tricks_left
            taken = len(hand.tricks)
            mark = taken in {1, 2, total // 2, total - 1} and taken not in marked
            if not taken or not (mark or len(hand.current) == 1 and i % 11 == 0):
                continue
            marked.add(taken)
            checkpoints += 1
            crawl.pages(clients)
            crawl.posts(clients)
            crawl.streams(locked)
            assert hub.snapshot()["violation"] is None or \
                hub.snapshot()["violation"]["card"] in table_cards(session.referee) | {None}
        assert session.referee.hand.is_over() and misread == 1
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (
                phone.messages and phone.messages[-1]["seq"] == hub.last.n):
            time.sleep(0.02)
    finally:
        hub.close()
        phone.join(10)
        server.shutdown()
    assert checkpoints >= 3, checkpoints
    assert crawl.fetched > 200 * checkpoints
    # Every message the live phone got during the hand: nothing off the table.
    assert phone.messages and phone.messages[-1]["seq"] == hub.last.n
    for message in phone.messages[:-1]:
        if message["seq"] not in seen:
            continue  # before the first event: no hand yet
        visible, captured, points = seen[message["seq"]]
        where = f"live SSE {message['seq']}"
        assert_hidden(message, visible, where, points)
        leaked = set(CARD.findall(json.dumps(message, ensure_ascii=False))) & captured - visible
        assert not leaked, f"{where}: captured cards {leaked}"
    assert sum(m["violation"] is not None and m["violation"]["kind"] == "duplicate_card"
               for m in phone.messages) >= 1
    # After the hand: the reveal, whole, on every channel.
    final = phone.messages[-1]
    assert final["hand"]["over"] and final["reveal"]["points"] == sim.points
    client = app.test_client()
    assert client.get("/api/v1/table").get_json()["reveal"]["points"] == sim.points
    match_id = hub.snapshot()["match"]["id"]
    r = client.get(f"/api/v1/matches/{match_id}/hands/0")
    assert r.status_code == 200 and r.get_json()["reveal"]["points"] == sim.points
