"""Every route of the dashboard through Flask's test client."""

import json
import random
import re
from pathlib import Path

import pytest

from table_controller.engine.record import parse_records, replay_match
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from web_dashboard import create_app, hub_of, store_of

PIN = "2468"


@pytest.fixture
def app(tmp_path):
    decks = tmp_path / "decks" / "mydeck"
    decks.mkdir(parents=True)
    (decks / "3c.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    app = create_app({"DATABASE": str(tmp_path / "t.sqlite3"), "TESTING": True,
                      "DECKS_DIR": str(tmp_path / "decks"), "SSE_KEEPALIVE": 0.05,
                      "SSE_MAX_SECONDS": 0.3})
    yield app
    hub_of(app).close()


@pytest.fixture
def client(app):
    return app.test_client()


def csrf(client, path="/setup/"):
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


@pytest.fixture
def unlocked(app, client):
    app.extensions["pin"].set(PIN)
    r = client.post("/unlock", data={"pin": PIN, "csrf_token": csrf(client, "/unlock"),
                                     "next": "/"})
    assert r.status_code == 302
    return client


def session_of(app):
    return app.extensions["briscola"]["session"]


def setup_match(app, players=2, names=("Tu", "Ada"), length=3, dealer=1):
    result = hub_of(app).submit("setup", players=players, names=list(names), variants=[],
                                length=length, deck="builtin", dealer=dealer)
    assert result["accepted"], result
    return result["match"]


def play_events(app, seed=1, upto=None):
    referee = session_of(app).referee
    sim = play_hand(HandRules(referee.hand.players), referee.hand.dealer, random.Random(seed),
                    style="sensible")
    for event in sim.events[1:][:upto]:  # the setup already fed the hand event
        session_of(app).feed(event.to_json())
    return sim


# -- pages ------------------------------------------------------------------------------

def test_pages_render_with_security_headers(client):
    for path in ("/", "/history/", "/setup/", "/setup/pin"):
        r = client.get(path)
        assert r.status_code == 200, path
        assert r.headers["Content-Security-Policy"].startswith("default-src 'self'")
        assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["Referrer-Policy"] == "no-referrer"
        assert r.headers["X-Frame-Options"] == "DENY"
    page = client.get("/").get_data(as_text=True)
    assert "cdn" not in page.lower() and "http://" not in page.split('<p class="url">')[0]
    assert '<script src="/static/live.js">' in page
    assert client.get("/static/live.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200


def test_language_from_browser_cookie_and_switch(client):
    assert "Tavolo" in client.get("/", headers={"Accept-Language": "it"}).get_data(True)
    assert "History" in client.get("/", headers={"Accept-Language": "en-GB"}).get_data(True)
    assert "Historique" in client.get("/", headers={"Accept-Language": "fr-CH, en;q=0.5"}) \
        .get_data(True)
    assert "Tavolo" in client.get("/", headers={"Accept-Language": "de"}).get_data(True)
    r = client.get("/lang/fr?next=/history/")
    assert r.status_code == 302 and r.headers["Location"] == "/history/"
    assert "lang=fr" in r.headers["Set-Cookie"]
    assert '<html lang="fr">' in client.get("/", headers={"Accept-Language": "en"}).get_data(True)
    assert client.get("/lang/fr?next=//evil.example/").headers["Location"] == "/"
    assert client.get("/lang/de").status_code == 400


def test_live_page_embeds_the_snapshot_and_the_catalogue(app, client):
    setup_match(app, names=("Giulia", "Marco"))
    page = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    boot = json.loads(re.search(r'<script type="application/json" id="boot">(.*?)</script>',
                                page, re.S).group(1))
    assert boot["state"]["match"]["names"] == ["Giulia", "Marco"]
    assert boot["messages"]["trump"] == "Trump" and boot["streamUrl"] == "/api/v1/stream"
    assert "Hand 1" in page


def test_names_cannot_inject_markup(app, client):
    evil = '</script><img src=x onerror=alert(1)>'
    setup_match(app, names=(evil, "Ada & <b>"))
    for path in ("/", "/history/", "/history/1", "/setup/"):
        page = client.get(path).get_data(as_text=True)
        assert "<img src=x" not in page and "<b>" not in page, path
    page = client.get("/").get_data(as_text=True)
    boot = json.loads(re.search(r'<script type="application/json" id="boot">(.*?)</script>',
                                page, re.S).group(1))
    assert boot["state"]["match"]["names"] == [evil, "Ada & <b>"]


def test_qr_code_points_at_the_dashboard(app, client):
    r = client.get("/qr.svg", base_url="http://192.168.1.20:8000")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    # A file of its own: with the namespace, a browser draws it instead of showing XML.
    assert b'xmlns="http://www.w3.org/2000/svg"' in r.data
    page = client.get("/", base_url="http://192.168.1.20:8000").get_data(as_text=True)
    assert "http://192.168.1.20:8000/" in page and "<svg" in page
    app.config["PUBLIC_URL"] = "http://briscola.local:8000/"
    assert "http://briscola.local:8000/" in client.get("/").get_data(as_text=True)


def test_card_faces_builtin_french_enrolled(client):
    r = client.get("/cards/builtin/10s")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b">R<" in r.data
    assert b">K<" in client.get("/cards/french/10s").data
    assert client.get("/cards/enrolled:mydeck/3c").data.endswith(b"fake")
    # A face the enrolled deck lacks falls back to the drawing.
    assert client.get("/cards/enrolled:mydeck/4c").mimetype == "image/svg+xml"
    assert client.get("/cards/builtin/11s").status_code == 404
    assert client.get("/cards/nodeck/3c").status_code == 404
    assert client.get("/cards/back.svg").status_code == 200
    assert client.get("/api/v1/decks").get_json()["decks"][:2] == ["builtin", "french"]
    assert "enrolled:mydeck" in client.get("/api/v1/decks").get_json()["decks"]


# -- PIN, CSRF ---------------------------------------------------------------------------

def test_first_start_sets_the_pin_then_changing_it_needs_the_old_one(app, client):
    assert client.get("/unlock").headers["Location"] == "/setup/pin"
    token = csrf(client, "/setup/pin")
    r = client.post("/setup/pin", data={"pin": "12", "pin2": "12", "csrf_token": token})
    assert r.status_code == 400
    r = client.post("/setup/pin", data={"pin": "1234", "pin2": "1235", "csrf_token": token})
    assert r.status_code == 400
    r = client.post("/setup/pin", data={"pin": "1234", "pin2": "1234", "csrf_token": "x"})
    assert r.status_code == 400 and not app.extensions["pin"].is_set
    r = client.post("/setup/pin", data={"pin": "1234", "pin2": "1234", "csrf_token": token})
    assert r.status_code == 302
    stored = store_of(app).get_setting("pin_hash")
    assert stored and "1234" not in stored  # hashed
    other = app.test_client()
    r = other.post("/setup/pin", data={"current": "0000", "pin": "5678", "pin2": "5678",
                                       "csrf_token": csrf(other, "/setup/pin")})
    assert r.status_code == 403 and app.extensions["pin"].check("1234")


def test_unlock_wrong_pin_lockout_and_lock(app, client):
    app.extensions["pin"].set(PIN)
    clock = [1000.0]
    app.extensions["pin"].clock = lambda: clock[0]
    token = csrf(client, "/unlock")
    for _ in range(4):
        assert client.post("/unlock", data={"pin": "0000", "csrf_token": token}).status_code \
            == 403
    assert client.post("/unlock", data={"pin": "0000", "csrf_token": token}).status_code == 403
    # Five failures: even the right PIN is refused for a while.
    assert client.post("/unlock", data={"pin": PIN, "csrf_token": token}).status_code == 429
    # Another phone is not locked out by this one.
    other = app.test_client()
    r = other.post("/unlock", data={"pin": PIN, "csrf_token": csrf(other, "/unlock")},
                   environ_base={"REMOTE_ADDR": "10.0.0.7"})
    assert r.status_code == 302
    clock[0] += 30.5  # the 30 s lockout is over
    r = client.post("/unlock", data={"pin": PIN, "csrf_token": token, "next": "/history/"})
    assert r.status_code == 302 and r.headers["Location"] == "/history/"
    assert "Set-Cookie" in r.headers and PIN not in r.headers["Location"]
    assert "HttpOnly" in r.headers["Set-Cookie"] and "SameSite=Strict" in r.headers["Set-Cookie"]
    page = client.get("/").get_data(as_text=True)
    assert 'id="btn-new-hand"' in page
    client.post("/lock", data={"csrf_token": csrf(client, "/")})
    assert 'id="btn-new-hand"' not in client.get("/").get_data(as_text=True)


def test_forms_need_the_pin_and_a_csrf_token(app, client):
    setup_match(app)
    assert client.post("/table/undo").headers["Location"] == "/setup/pin"
    app.extensions["pin"].set(PIN)
    assert client.post("/table/undo").headers["Location"].startswith("/unlock")
    token = csrf(client, "/unlock")
    client.post("/unlock", data={"pin": PIN, "csrf_token": token})
    assert client.post("/table/undo", data={}).status_code == 400
    assert len(session_of(app).referee.hands) == 1  # nothing was undone


def test_the_setup_pages_refusal_is_said_in_the_pages_language(app, unlocked):
    import html

    unlocked.get("/lang/fr")
    for data, said in (
            ({"players": "2", "dealer": "2"},
             "'dealer' doit être une place de 0 (P1) à 1 (P2), pas 2"),
            ({"players": "2", "variants": ["swap9"]},
             "variante inconnue 'swap9' : les variantes connues sont swap7, swap2")):
        r = unlocked.post("/setup/", data={"csrf_token": csrf(unlocked), **data},
                          follow_redirects=True)
        flashes = re.findall(r'<p class="flash error">(.*?)</p>', r.get_data(as_text=True))
        assert [html.unescape(f) for f in flashes] == [said]
    assert hub_of(app).snapshot().get("match") is None  # nothing was set up
    # The API's JSON keeps the English text.
    r = unlocked.post("/api/v1/setup", json={"variants": ["swap9"]},
                      headers={"X-Table-PIN": PIN})
    assert r.get_json()["error"] == "unknown variant 'swap9': known variants are swap7, swap2"


def test_setup_form_new_hand_correction_and_undo(app, unlocked):
    token = csrf(unlocked, "/setup/")
    r = unlocked.post("/setup/", data={"csrf_token": token, "players": "2", "name0": "Giulia",
                                       "name1": "Marco", "length": "3", "deck": "french",
                                       "variants": ["swap7"], "dealer": "1", "language": "fr"})
    assert r.status_code == 302 and r.headers["Location"] == "/"
    snap = hub_of(app).snapshot()
    assert snap["match"] == {"id": snap["match"]["id"], "players": 2,
                             "names": ["Giulia", "Marco"], "variants": ["swap7"],
                             "length": 3, "deck": "french"}
    assert snap["hand"]["dealer"] == 1
    # The table's language is the default for phones that ask for none of the three.
    assert '<html lang="fr">' in app.test_client().get(
        "/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    token = csrf(unlocked, "/")
    unlocked.post("/table/event", data={"csrf_token": token, "type": "trump", "card": "5s"})
    unlocked.post("/table/event", data={"csrf_token": token, "type": "play", "seat": "0",
                                        "rank": "9", "suit": "b"})  # the pickers
    assert hub_of(app).snapshot()["hand"]["trick"] == [{"seat": 0, "card": "9b"}]
    r = unlocked.post("/table/event", data={"csrf_token": token, "type": "play", "seat": "x",
                                            "card": "9b"})
    assert "the seat must be a number" in unlocked.get("/").get_data(as_text=True)
    unlocked.post("/table/undo", data={"csrf_token": token})
    assert hub_of(app).snapshot()["hand"]["trick"] == []
    # Said when it is done, in the language of the phone that asked (the table's, here).
    assert '<p class="flash ok">Dernier événement annulé.</p>' in unlocked.get(
        "/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    unlocked.post("/table/event", data={"csrf_token": token, "type": "play", "seat": "1",
                                        "card": "3c"})
    # During a hand a phone is told no card off the table (3c lies in no trick).
    assert "seat 1 played a card but it is seat 0&#39;s turn" in unlocked.get("/").get_data(True)
    unlocked.post("/table/new-hand", data={"csrf_token": token})
    assert hub_of(app).snapshot()["hand"]["number"] == 2  # the abandoned hand is redealt
    match_id = snap["match"]["id"]
    hands = unlocked.get(f"/api/v1/matches/{match_id}").get_json()["hands"]
    assert [h["status"] for h in hands] == ["abandoned", "in_progress"]
    r = unlocked.get(f"/api/v1/matches/{match_id}/hands/0")
    assert r.status_code == 404 and "abandoned" in r.get_json()["error"]
    assert unlocked.get(f"/api/v1/matches/{match_id}/hands/1").status_code == 409
    assert "abandoned and redealt" in unlocked.get(
        f"/history/{match_id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    r = unlocked.post("/setup/", data={"csrf_token": token, "players": "9"})
    assert r.headers["Location"] == "/setup/"
    # The refusal in the page's language (the table's, French since the setup above).
    assert "doit être de 2 à 6, pas 9" in unlocked.get("/setup/").get_data(as_text=True)


# -- JSON API ----------------------------------------------------------------------------

def test_api_reads(app, client):
    match_id = setup_match(app)
    sim = play_events(app, seed=2)
    table = client.get("/api/v1/table").get_json()
    assert table["reveal"]["points"] == sim.points and table["hand"]["over"]
    assert client.get("/api/v1/table").headers["Cache-Control"] == "no-store"
    matches = client.get("/api/v1/matches").get_json()["matches"]
    assert [m["id"] for m in matches] == [match_id]
    assert client.get("/api/v1/matches?limit=1").get_json()["matches"] == matches
    assert matches[0]["hands"][0]["result"]["points"] == sim.points
    assert "tricks" not in matches[0]["hands"][0]["result"]  # the list stays light
    assert "'limit' must be a number" in client.get("/api/v1/matches?limit=x").get_json()["error"]
    match = client.get(f"/api/v1/matches/{match_id}").get_json()
    assert match["hands"][0]["result"]["points"] == sim.points
    assert match["standing"]["hands_played"] == 1
    hand = client.get(f"/api/v1/matches/{match_id}/hands/0").get_json()
    assert [t["winner"] for t in hand["reveal"]["tricks"]] == sim.winners
    assert client.get(f"/api/v1/matches/{match_id}/hands/5").status_code == 404
    events = client.get(f"/api/v1/matches/{match_id}/hands/0/events").get_json()["events"]
    assert events[0]["event"] == {"type": "hand", "players": 2, "dealer": 1}  # from the setup
    assert [e["event"] for e in events[1:]] == [e.to_json() for e in sim.events[1:]]
    assert all(e["accepted"] and e["violation"] is None for e in events)
    assert client.get(f"/api/v1/matches/{match_id}/hands/5/events").status_code == 404
    assert client.get("/api/v1/matches/99").get_json() == {
        "error": "no such resource: /api/v1/matches/99"}
    assert client.get("/api/v1/i18n/fr").get_json()["trump"] == "Atout"
    assert client.get("/api/v1/i18n/de").status_code == 404
    spec = client.get("/api/v1/openapi.yaml")
    assert spec.status_code == 200 and b"/api/v1/table" in spec.data


def test_api_writes_need_the_pin(app, client):
    r = client.post("/api/v1/undo")
    assert r.status_code == 403 and "no PIN" in r.get_json()["error"]
    app.extensions["pin"].set(PIN)
    assert client.post("/api/v1/undo").status_code == 401
    assert client.post("/api/v1/undo", headers={"X-Table-PIN": "0000"}).status_code == 403


def test_api_writes_with_pin_header(app, client):
    app.extensions["pin"].set(PIN)
    h = {"X-Table-PIN": PIN}
    r = client.post("/api/v1/setup", json={"players": 2, "names": ["Tu", "Ada"],
                                           "length": 1, "dealer": 1}, headers=h)
    assert r.status_code == 200 and r.get_json()["accepted"]
    assert client.post("/api/v1/events", json={"type": "trump", "card": "5s"},
                       headers=h).status_code == 200
    r = client.post("/api/v1/events", json={"type": "play", "seat": 1, "card": "3c"}, headers=h)
    assert r.status_code == 409 and r.get_json()["kind"] == "out_of_turn"
    assert client.post("/api/v1/undo", headers=h).get_json()["accepted"]
    assert client.post("/api/v1/hands", json={}, headers=h).get_json()["accepted"]
    assert client.post("/api/v1/names", json={"names": ["A", "B"]}, headers=h).status_code == 200
    assert hub_of(app).snapshot()["match"]["names"] == ["A", "B"]


@pytest.mark.parametrize("path,body,message", [
    ("/api/v1/setup", {"players": 7}, "'players' must be 2 to 6"),
    ("/api/v1/setup", {"players": "two"}, "'players' must be a number"),
    ("/api/v1/setup", {"length": 4}, "'length' must be 1, 3, 5 or null"),
    ("/api/v1/setup", {"variants": ["swap9"]}, "unknown variant 'swap9'"),
    ("/api/v1/setup", {"deck": "tarot"}, "unknown deck 'tarot'"),
    ("/api/v1/setup", {"names": "Tu"}, "'names' must be a list"),
    ("/api/v1/setup", {"players": 2, "dealer": 2},
     "'dealer' must be a seat from 0 (P1) to 1 (P2), not 2"),
    ("/api/v1/setup", {"players": 5, "variants": ["swap7"]}, "chiamata"),
    ("/api/v1/setup", [1, 2], "must be a JSON object, not list"),
    ("/api/v1/events", {"type": "hand"}, "'type' must be play, collect"),
    ("/api/v1/hands", {"dealer": "x"}, "'dealer' must be a seat number"),
    ("/api/v1/names", {"names": [1]}, "'names' must be a list of strings"),
])
def test_api_bad_input_names_the_problem(app, client, path, body, message):
    app.extensions["pin"].set(PIN)
    r = client.post(path, json=body, headers={"X-Table-PIN": PIN})
    assert r.status_code == 400 and message in r.get_json()["error"], r.get_json()


def test_every_offered_deck_can_be_chosen(app, client):
    app.extensions["pin"].set(PIN)
    for deck in client.get("/api/v1/decks").get_json()["decks"]:
        r = client.post("/api/v1/setup", json={"players": 2, "deck": deck},
                        headers={"X-Table-PIN": PIN})
        assert r.status_code == 200 and hub_of(app).snapshot()["match"]["deck"] == deck, deck
        assert client.get(f"/cards/{deck}/1d").status_code == 200


def test_api_writes_from_a_page_session_need_the_csrf_header(app, unlocked):
    assert unlocked.post("/api/v1/undo").status_code == 403
    token = csrf(unlocked, "/")
    r = unlocked.post("/api/v1/setup", json={"players": 2}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.get_json()["accepted"]


def test_api_body_must_be_json(app, client):
    app.extensions["pin"].set(PIN)
    r = client.post("/api/v1/events", data="nope", headers={"X-Table-PIN": PIN})
    assert r.status_code == 400 and "JSON object" in r.get_json()["error"]
    assert client.get("/api/v1/undo").status_code == 405


# -- history -----------------------------------------------------------------------------

def test_the_history_of_a_hand_shows_the_trump_who_led_and_who_played_what(app, client):
    import html
    import re

    match_id = setup_match(app, players=4, names=("Ada", "", "Carla", "Dario"), dealer=3)
    play_events(app, seed=7)
    report = app.extensions["briscola"]["store"].hand(match_id, 0).result
    page = client.get(f"/history/{match_id}/hands/0",
                      headers={"Accept-Language": "en"}).get_data(as_text=True)
    names = ["Ada", "P2", "Carla", "Dario"]  # an unnamed player is P2, never seat 1
    trump = report["trump"]
    rank, suit = int(trump[:-1]), trump[-1]
    words = {"d": "coins", "c": "cups", "s": "swords", "b": "batons"}
    assert '<strong id="hand-trump">' in page and f" of {words[suit]}</strong>" in page, rank
    assert "dealer: Dario" in page and "Ada leads" in page  # the seat after the dealer
    tricks = page.split('<ol class="tricks account" id="hand-tricks">')[1].split("</ol>")[0]
    shown = tricks.split('data-leader="')[1:]  # each trick, its plays nested in it
    assert len(shown) == 10
    for trick, item in zip(report["tricks"], shown, strict=True):
        assert html.unescape(f"{names[trick['leader']]} leads") in html.unescape(item)
        plays = [(int(seat), card) for seat, card in
                 re.findall(r'data-seat="(\d)" data-card="(\w+)"', item)]
        assert plays == [(p["seat"], p["card"]) for p in trick["plays"]]
        for play in trick["plays"]:
            assert f'<span class="player">{names[play["seat"]]}</span>' in item
        assert f"{names[trick['winner']]} takes it" in html.unescape(item)
    # The Italian page: the same account in the table's words.
    page = client.get(f"/history/{match_id}/hands/0", headers={"Accept-Language": "it"})
    assert "Ada apre" in page.get_data(as_text=True)


def test_history_pages_and_record_download(app, client):
    match_id = setup_match(app, names=("Giulia", "Marco"))
    sim = play_events(app, seed=4)
    hub_of(app).submit("new_hand")
    play_events(app, seed=5, upto=9)  # the second hand is in progress
    page = client.get("/history/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Match 1" in page and "Giulia, Marco" in page
    page = client.get(f"/history/{match_id}", headers={"Accept-Language": "en"}) \
        .get_data(as_text=True)
    assert "–".join(map(str, sim.points)) in page and "in progress" in page
    page = client.get(f"/history/{match_id}/hands/0").get_data(as_text=True)
    assert page.count('class="n"') == 20
    assert client.get(f"/history/{match_id}/hands/1").status_code == 404  # not over yet
    assert client.get("/history/42").status_code == 404
    r = client.get(f"/history/{match_id}/record.bgn")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    records = parse_records(r.get_data(as_text=True))
    assert len(records) == 1  # only the finished hand
    assert records[0].names == ["Giulia", "Marco"]
    assert replay_match(records).hands[0].points == sim.points
    assert client.get(f"/api/v1/matches/{match_id}/record.bgn").data == r.data


def test_not_found_pages(client):
    assert client.get("/nowhere").status_code == 404
    assert client.get("/api/v1/nowhere").get_json()["error"].startswith("no such resource")


# -- the stream ----------------------------------------------------------------------------

def read_sse(response, limit=50):
    """Parse the SSE frames of a finished (time-limited) stream."""
    text = b"".join(response.response).decode()
    frames = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if fields:
            frames.append(fields)
    return frames[:limit]


def test_stream_sends_the_snapshot_then_updates_and_pings(app, client):
    setup_match(app)
    r = client.get("/stream", buffered=False)
    assert r.mimetype == "text/event-stream" and r.headers["Cache-Control"] == "no-store"
    frames = read_sse(r)
    assert frames[0] == {"retry": "2000"} or "retry" in frames[0]
    states = [f for f in frames if f.get("event") == "state"]
    assert len(states) == 1 and json.loads(states[0]["data"])["hand"]["number"] == 1
    assert any(f.get("event") == "ping" for f in frames)


def test_stream_reconnecting_gets_the_current_snapshot_only(app, client):
    """A phone reconnecting with the id it last saw is brought up to date with the
    current snapshot, never a replay of the past ones (finding 1 of issue 12)."""
    setup_match(app)
    seen = hub_of(app).last.id
    session_of(app).feed({"type": "trump", "card": "5s"})
    session_of(app).feed({"type": "play", "seat": 0, "card": "9b"})
    for r in (client.get("/api/v1/stream", headers={"Last-Event-ID": seen}, buffered=False),
              client.get(f"/stream?last_id={seen}", buffered=False)):
        frames = read_sse(r)
        states = [json.loads(f["data"]) for f in frames if f.get("event") == "state"]
        assert [s["hand"]["trick"] for s in states] == [[{"seat": 0, "card": "9b"}]]
        assert states[0]["hand"]["briscola"] == "5s"
        assert [f["id"] for f in frames if f.get("event") == "state"] == [hub_of(app).last.id]
    # Up to date already: nothing is sent again, the stream just waits (and pings).
    r = client.get("/stream", headers={"Last-Event-ID": hub_of(app).last.id}, buffered=False)
    frames = read_sse(r)
    assert not [f for f in frames if f.get("event") == "state"]
    assert any(f.get("event") == "ping" for f in frames)


def test_every_api_route_is_in_the_openapi_description(app):
    spec = (Path(app.static_folder) / "openapi.yaml").read_text()
    documented = set(re.findall(r"^  (/api/v1/\S+):$", spec, re.M))
    routes = {re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule) for rule in app.url_map.iter_rules()
              if rule.rule.startswith("/api/v1/") and rule.endpoint != "api.openapi"}
    assert routes == documented


def test_open_streams_are_capped_and_counted(app, client):
    app.config["SSE_MAX_CLIENTS"] = 1
    hub = hub_of(app)
    first = client.get("/stream", buffered=False)
    assert first.status_code == 200 and hub.streams == 1
    second = client.get("/stream")
    assert second.status_code == 503 and second.headers["Retry-After"] == "5"
    read_sse(first)
    first.close()
    assert hub.streams == 0
    assert client.get("/stream", buffered=False).status_code == 200
