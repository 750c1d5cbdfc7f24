"""Briscola chiamata's auction on the phone: while a 5-player hand has no call, an
unlocked phone gets the form (caller, called card, bid), a locked one waits; the form
posts the controller's ``call`` command; bad values are refused with one line and
change nothing; after the call every phone shows the called card and the bid."""

import json
import re

import pytest

from web_dashboard import create_app, hub_of

PIN = "2468"
NAMES = ["Ada", "", "Carla", "Dario", "Elena"]


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "a.sqlite3"), "TESTING": True})
    app.extensions["pin"].set(PIN)
    yield app
    hub_of(app).close()


def client_of(app, lang="en"):
    client = app.test_client()
    client.set_cookie("lang", lang)  # the flashed replies are in the phone's language
    return client


def token_of(page: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def unlock(client) -> str:
    token = token_of(client.get("/unlock").get_data(as_text=True))
    assert client.post("/unlock", data={"pin": PIN, "csrf_token": token}).status_code == 302
    return token_of(client.get("/").get_data(as_text=True))


def setup(app, players=5, dealer=0):
    result = hub_of(app).submit("setup", players=players, names=NAMES[:players] + [""] * (
        players - 5), variants=[], length=1, deck="builtin", dealer=dealer)
    assert result["accepted"], result


def auction(page: str) -> str:
    return re.search(r'<section id="auction".*?</section>', page, re.S).group(0)


def page(client, lang=None) -> str:
    if lang:
        client.set_cookie("lang", lang)
    html = client.get("/").get_data(as_text=True)
    client.set_cookie("lang", "en")
    return html


def flashes(html: str) -> list[str]:
    return re.findall(r'<p class="flash (\w+)">([^<]*)</p>', html)


def test_only_an_unlocked_phone_gets_the_form_and_only_while_the_auction_is_open(app):
    locked, phone = client_of(app), client_of(app)
    unlock(phone)
    assert 'id="auction-form"' not in page(phone)  # no match yet
    setup(app)
    mine, theirs = auction(page(phone)), auction(page(locked))
    assert 'id="auction-form"' in mine and 'action="/table/call"' in mine
    assert 'name="csrf_token"' in mine
    # Every player by P-number (and name when there is one), the seat to lead chosen.
    options = re.findall(r'<option value="(\d)"( selected)?>([^<]*)</option>',
                         mine.split('name="rank"')[0])
    assert [(v, t) for v, _, t in options] == [
        ("0", "P1 · Ada"), ("1", "P2"), ("2", "P3 · Carla"), ("3", "P4 · Dario"),
        ("4", "P5 · Elena")]
    assert [v for v, sel, _ in options if sel] == ["1"]
    assert re.search(r'name="bid" min="61" max="120" step="1" value="61"', mine)
    # Ranks and suits in the page's language, all ten and all four.
    assert ">Ace<" in mine and ">King<" in mine and ">cups<" in mine
    assert len(re.findall(r"<option", mine.split('name="rank"')[1])) == 14
    assert "Asso" in auction(page(phone, "it")) and "coupe" in auction(page(phone, "fr"))
    # A spectator sees only that the table waits for the auction's result.
    assert 'id="auction-form"' not in theirs and "<select" not in theirs
    assert "Waiting for the auction" in theirs
    # Outside chiamata there is no auction at all.
    setup(app, players=4)
    assert 'id="auction-form"' not in page(phone)
    assert re.search(r'<section id="auction"[^>]* hidden>', page(phone))
    boot = json.loads(re.search(r'id="boot">(.*?)</script>', page(phone), re.S).group(1))
    assert boot["callUrl"] == "/table/call" and boot["auctionRanks"][:3] == [1, 3, 10]


def test_the_form_posts_the_call_and_every_phone_shows_it(app):
    phone, locked = client_of(app), client_of(app)
    token = unlock(phone)
    setup(app)
    r = phone.post("/table/call", data={"csrf_token": token, "caller": "2", "rank": "1",
                                        "suit": "d", "bid": "75"})
    assert r.status_code == 302
    assert flashes(page(phone)) == [("ok", "Call recorded.")]
    hand = hub_of(app).snapshot()["hand"]
    assert (hand["caller"], hand["called"], hand["bid"], hand["partner"]) == (2, "1d", 75,
                                                                                None)
    session = app.extensions["briscola"]["session"]
    stored = [e.event for e in session.store.events(hand_match(app))]
    assert stored[-1] == {"type": "call", "seat": 2, "card": "1d", "points": 75}
    for client in (phone, locked):
        shown = auction(page(client))
        assert 'id="auction-form"' not in shown
        assert "Carla calls Ace of coins for 75" in shown
    assert "Carla chiama Asso di denari a 75" in auction(page(locked, "it"))
    # The bid may be left out: 61, the least there is.
    setup(app)
    token = token_of(page(phone))
    phone.post("/table/call", data={"csrf_token": token, "caller": "0", "rank": "3",
                                    "suit": "s"})
    assert hub_of(app).snapshot()["hand"]["bid"] == 61


def hand_match(app) -> int:
    return hub_of(app).snapshot()["match"]["id"]


@pytest.mark.parametrize("fields", [
    {"caller": "5"}, {"caller": "-1"}, {"caller": "x"}, {"caller": ""}, {"caller": "²"},
    {"rank": "11"}, {"rank": "0"}, {"rank": "A"}, {"suit": "z"}, {"suit": ""},
    {"bid": "60"}, {"bid": "121"}, {"bid": "70.5"}, {"bid": "1e9"}, {"bid": "sixty"},
])
def test_bad_values_are_refused_with_one_line_and_change_nothing(app, fields):
    phone = client_of(app)
    token = unlock(phone)
    setup(app)
    hub = hub_of(app)
    before, events = json.dumps(hub.snapshot()["hand"]), hub.last.n
    data = dict({"csrf_token": token, "caller": "1", "rank": "3", "suit": "c", "bid": "61"},
                **fields)
    r = phone.post("/table/call", data=data)
    assert r.status_code == 302
    assert flashes(page(phone)) == [
        ("error", "Choose the caller, a rank, a suit and a bid of 61 to 120.")]
    assert json.dumps(hub.snapshot()["hand"]) == before and hub.last.n == events
    assert 'id="auction-form"' in page(phone)  # still asked


def test_a_call_needs_the_pin_and_the_token_and_an_open_auction(app):
    setup(app)
    hub = hub_of(app)
    data = {"caller": "1", "rank": "3", "suit": "c", "bid": "61"}
    locked = client_of(app)
    r = locked.post("/table/call", data=data)
    assert r.status_code == 302 and "/unlock" in r.headers["Location"]
    phone = client_of(app)
    token = unlock(phone)
    assert phone.post("/table/call", data=dict(data, csrf_token="x")).status_code == 400
    assert hub.snapshot()["hand"]["called"] is None
    assert phone.post("/table/call", data=dict(data, csrf_token=token)).status_code == 302
    # A second call (another phone was quicker): refused, the first one stands.
    phone.get("/")
    phone.post("/table/call", data=dict(data, csrf_token=token, caller="4", suit="b"))
    assert flashes(page(phone)) == [("error", "No auction is open now.")]
    assert hub.snapshot()["hand"]["called"] == "3c"
    # Outside chiamata the same.
    setup(app, players=4)
    phone.post("/table/call", data=dict(data, csrf_token=token))
    assert flashes(page(phone)) == [("error", "No auction is open now.")]
    assert hub.snapshot()["hand"]["called"] is None


def test_the_standalone_session_takes_the_call_command(app):
    setup(app)
    hub = hub_of(app)
    r = hub.submit("call", seat=1, card="3z", points=61)
    assert not r["accepted"] and r["kind"] == "not_in_deck"
    r = hub.submit("call", seat=1, card="3c", points=200)
    assert not r["accepted"] and "61..120" in r["message"]
    assert hub.snapshot()["hand"]["called"] is None
    assert hub.submit("call", seat=1, card="3c")["accepted"]
    assert hub.snapshot()["hand"]["bid"] == 61
