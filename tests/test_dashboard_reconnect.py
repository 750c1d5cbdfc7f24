"""Issue 12, findings 1, 7 and 8: the stream's reconnection replays no past snapshot,
redirects stay on the table's own pages, one client cannot hold every stream.

Finding 1: message ids are ``<boot>-<n>``; a phone reconnecting with ``Last-Event-ID:
<boot>-0`` (or ``?last_id=``) used to get up to 256 past snapshots, each with a trick as
it lay and who took it, from which every captured card and the running score could be
rebuilt mid-hand. Now a (re)connecting phone gets the current snapshot only, whatever
the id, and every channel (page, API, stream) shows the same ``phone_view`` document.
"""

import json
import random

import pytest
from test_dashboard_leak import assert_hidden, boot_json, card_codes, table_cards

from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from web_dashboard import create_app, hub_of
from web_dashboard.security import safe_next
from web_dashboard.state import phone_view, table_state

PIN = "2468"


@pytest.fixture
def app(tmp_path):
    # Streams that end at once: each connection yields what it sends on connecting,
    # one ping, and closes.
    app = create_app({"DATABASE": str(tmp_path / "r.sqlite3"), "TESTING": True,
                      "SSE_KEEPALIVE": 0.01, "SSE_MAX_SECONDS": 0.01})
    yield app
    hub_of(app).close()


def frames_of(response) -> list[dict]:
    assert response.status_code == 200, response.get_data(as_text=True)
    text = b"".join(response.response).decode()
    response.close()
    frames = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if fields:
            frames.append(fields)
    return frames


def id_forms(hub) -> dict[str, str]:
    """Every kind of Last-Event-ID a phone (or a prober) may send."""
    n = hub.last.n
    other_boot = "deadbeef" if hub.boot != "deadbeef" else "cafebabe"
    return {
        "current": hub.last.id,
        "current, padded": f"  {hub.last.id} ",
        "valid, a few back": f"{hub.boot}-{max(0, n - 3)}",
        "valid, the first": f"{hub.boot}-1",
        "boot-0": f"{hub.boot}-0",
        "old boot": f"{other_boot}-{n - 1}",
        "zero": "0",
        "empty": "",
        "5,000 digits": "9" * 5000,
        "boot-5,000 digits": f"{hub.boot}-{'1' * 5000}",
        "from the future": f"{hub.boot}-{n + 10}",
        "negative": f"{hub.boot}--1",
        "superscript digit": f"{hub.boot}-\u00b2",
        "garbage": "garbage\x7f!%00<script>",
        "dash only": "-",
    }


def replayed(client, form: str) -> dict[str, list[dict]]:
    """The state messages each channel sends a phone connecting with ``form``."""
    got = {}
    for name, response in (
            ("header /stream", client.get("/stream", headers={"Last-Event-ID": form},
                                          buffered=False)),
            ("header /api/v1/stream", client.get("/api/v1/stream",
                                                 headers={"Last-Event-ID": form},
                                                 buffered=False)),
            ("?last_id=", client.get("/stream", query_string={"last_id": form},
                                     buffered=False))):
        frames = frames_of(response)
        states = [f for f in frames if f.get("event") == "state"]
        for f in states:
            f["json"] = json.loads(f["data"])
        got[name] = states
    return got


@pytest.mark.parametrize("players,seed", [(2, 41), (4, 43)])
def test_reconnecting_with_any_last_event_id_replays_nothing_of_the_past(app, players, seed):
    hub = hub_of(app)
    session = app.extensions["briscola"]["session"]
    client = app.test_client()
    result = hub.submit("setup", players=players, names=[f"P{s}" for s in range(players)],
                        variants=[], length=3, deck="builtin", dealer=0)
    assert result["accepted"], result
    sim = play_hand(HandRules(players), 0, random.Random(seed), style="sensible")
    events = [e.to_json() for e in sim.events[1:]]
    checked = 0
    for i, obj in enumerate(events):
        session.feed(obj)
        referee = session.referee
        if referee.hand.is_over():
            break
        # After some taken tricks (and mid-trick now and then): that is when a replay
        # would give them away.
        if not referee.hand.tricks or (obj["type"] != "collect" and i % 7):
            continue
        checked += 1
        visible = table_cards(referee)
        points = list(referee.hand.points)  # the referee's secret, for comparison only
        captured = {str(p.card) for t in referee.hand.tricks for p in t.plays}
        assert captured and any(points)
        current = hub.last
        # Every channel shows the one filtered document.
        assert client.get("/api/v1/table").get_json() == current.data
        assert boot_json(client.get("/").get_data(as_text=True))["state"] == current.data
        for form_name, form in id_forms(hub).items():
            for channel, states in replayed(client, form).items():
                where = f"{form_name} on {channel} after {obj}"
                # The current snapshot only (nothing when the phone already has it).
                up_to_date = form.strip() == current.id
                assert [s["id"] for s in states] == ([] if up_to_date else [current.id]), \
                    where
                for s in states:
                    assert s["json"] == current.data, where
                    assert_hidden(s["json"], visible, where, points)
                    leaked = card_codes(s["json"]) & captured - visible
                    assert not leaked, f"{where}: captured cards {leaked}"
    assert checked >= 3
    assert session.referee.hand.is_over()
    # After the hand: a reconnecting phone gets what the reveal shows, and only that.
    for form_name, form in id_forms(hub).items():
        for channel, states in replayed(client, form).items():
            if form.strip() == hub.last.id:
                assert states == [], f"{form_name} on {channel}"
                continue
            assert len(states) == 1, f"{form_name} on {channel}"
            assert states[0]["json"]["reveal"]["points"] == sim.points
            assert [t["winner"] for t in states[0]["json"]["reveal"]["tricks"]] == sim.winners


def test_phone_view_is_the_one_gate_of_what_a_phone_sees():
    """Whatever a caller puts in a snapshot, only known keys pass; during a hand no
    points, no reveal and no card off the table (e.g. a corrected captured card)."""
    from table_controller.engine.referee import Referee

    referee = Referee(players=2)
    sim = play_hand(HandRules(2), 1, random.Random(5), style="sensible")
    for event in sim.events:
        referee.feed(event)
        if len(referee.hand.tricks) >= 3 and not referee.hand.current:
            break
    captured = str(referee.hand.tricks[0].plays[0].card)
    state = table_state(referee, {"id": 1, "players": 2, "names": ["A", "B"],
                                  "secret": "x"})
    state["hand"]["points"] = list(referee.hand.points)
    state["reveal"] = {"points": [1, 2]}
    state["score"] = [1, 2]
    state["note"] = {"type": "correct", "accepted": True, "debug": captured,
                     "event": {"type": "correct", "seat": 0, "card": captured,
                               "was": captured, "points": 3},
                     "replaced": {"seat": 0, "card": captured}}
    state["holds"] = [{"zone": "play0", "seat": 0, "reason": "unknown", "card": None,
                       "likely": ["1c", "2c", "3c", "4c", "5c", "6c"],
                       "possible": ["7c", "1b"]}]
    view = phone_view(state)
    assert "score" not in view and view["reveal"] is None
    assert "points" not in view["hand"] and "secret" not in view["match"]
    assert "debug" not in view["note"] and "points" not in view["note"]["event"]
    assert view["note"]["event"]["card"] is None and view["note"]["event"]["was"] is None
    assert view["note"]["replaced"] == {"seat": 0, "card": None}
    assert view["holds"] == [{"zone": "play0", "seat": 0, "reason": "unknown", "card": None,
                              "likely": ["1c", "2c", "3c", "4c"]}]
    assert phone_view(view) == view  # idempotent
    assert_hidden(view, table_cards(referee), "phone_view", list(referee.hand.points))


# -- finding 7: redirects --------------------------------------------------------------

EVIL = [
    "//evil.example", "/%09/evil.example", "/\t/evil.example", "/\n/evil.example",
    "/\r/evil.example", "/\\evil.example", "\\\\evil.example", "/\\/evil.example",
    "https://evil.example/", "http:/evil.example", "javascript:alert(1)",
    "evil.example", " //evil.example", "/ /evil.example", "/\x00/evil.example",
    "/\x7f/evil.example", "///evil.example", "/" + "a" * 600, "/\u2028/evil.example",
]


def decoded(target: str) -> str:
    """What the app receives for ``next=<target>`` in a query (``%09`` is a tab)."""
    from urllib.parse import unquote
    return unquote(target)


@pytest.mark.parametrize("target", EVIL)
def test_safe_next_accepts_same_origin_paths_only(target):
    assert safe_next(decoded(target)) == "/"
    if "%" not in target:  # undecoded, "/%09/x" is a path of this site (the tab is text)
        assert safe_next(target) == "/"


def test_safe_next_keeps_the_tables_own_pages():
    for target in ("/", "/history/", "/history/3?x=1#top", "/setup/", "/a/b/../c"):
        assert safe_next(target) == target


@pytest.mark.parametrize("target", EVIL)
def test_language_switch_redirects_only_to_this_site(app, target):
    client = app.test_client()
    r = client.get("/lang/en", query_string={"next": decoded(target)})
    assert r.status_code == 302 and r.headers["Location"] == "/", target


@pytest.mark.parametrize("url", [
    "/lang/en?next=/%09/evil.example", "/lang/en?next=//evil.example",
    "/lang/en?next=%2F%2Fevil.example", "/lang/en?next=/%5Cevil.example",
    "/lang/en?next=/%0A/evil.example", "/lang/en?next=/%0D%0ASet-Cookie:x=1",
    "/lang/en?next=https://evil.example/", "/lang/en?next=/%00/evil.example",
])
def test_the_reported_redirect_urls_go_home(app, url):
    r = app.test_client().get(url)
    assert r.status_code == 302 and r.headers["Location"] == "/", url


def test_language_switch_goes_back_to_a_page_of_the_table(app):
    r = app.test_client().get("/lang/en?next=/history/")
    assert r.status_code == 302 and r.headers["Location"] == "/history/"


def _token(client) -> str:
    import re
    page = client.get("/unlock").get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


@pytest.mark.parametrize("target", EVIL)
def test_unlock_redirects_only_to_this_site(app, target):
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    r = client.post("/unlock", data={"pin": PIN, "csrf_token": _token(client),
                                     "next": decoded(target)})
    assert r.status_code == 302 and r.headers["Location"] == "/", target
    # Nor does the form carry it along: the page's hidden field is the safe target.
    client = app.test_client()
    page = client.get("/unlock", query_string={"next": decoded(target)}).get_data(True)
    assert 'name="next" value="/"' in page, target


def test_unlock_goes_back_to_the_page_asked_for(app):
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    r = client.post("/unlock", data={"pin": PIN, "csrf_token": _token(client),
                                     "next": "/history/"})
    assert r.status_code == 302 and r.headers["Location"] == "/history/"


# -- finding 8: one client cannot hold every stream -------------------------------------

def test_streams_are_capped_per_address_below_the_global_cap(app):
    app.config["SSE_MAX_SECONDS"] = 5.0
    hub = hub_of(app)
    assert app.config["SSE_MAX_PER_CLIENT"] == 4 < app.config["SSE_MAX_CLIENTS"]
    client = app.test_client()
    greedy = {"REMOTE_ADDR": "10.0.0.66"}
    held = [client.get("/stream", environ_base=greedy, buffered=False) for _ in range(4)]
    assert [r.status_code for r in held] == [200] * 4 and hub.streams == 4
    for _ in range(3):  # the fifth and later from that address: refused, clearly
        r = client.get("/stream", environ_base=greedy)
        assert r.status_code == 429 and r.headers["Retry-After"] == "5"
        assert r.mimetype == "text/plain"
        assert "too many open streams from this address (at most 4)" in r.get_data(True)
        assert "Traceback" not in r.get_data(True)
    assert client.get("/api/v1/stream", environ_base=greedy).status_code == 429
    assert hub.streams == 4  # the refused ones were never counted
    # Every other phone still gets the live view.
    others = [client.get("/stream", environ_base={"REMOTE_ADDR": f"10.0.0.{i}"},
                         buffered=False) for i in range(1, 4)]
    assert [r.status_code for r in others] == [200] * 3 and hub.streams == 7
    for r in others:
        r.close()
    # One of the greedy client's streams closes: it may open one again.
    held.pop().close()
    assert hub.streams == 3
    again = client.get("/stream", environ_base=greedy, buffered=False)
    assert again.status_code == 200
    assert client.get("/stream", environ_base=greedy).status_code == 429
    for r in [*held, again]:
        r.close()
    assert hub.streams == 0 and hub._streams_of == {}


def test_the_per_address_cap_is_configurable_and_the_global_cap_still_holds(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "TESTING": True,
                      "SSE_MAX_PER_CLIENT": 2, "SSE_MAX_CLIENTS": 3})
    client = app.test_client()
    try:
        a = [client.get("/stream", environ_base={"REMOTE_ADDR": "10.0.0.1"}, buffered=False)
             for _ in range(2)]
        assert [r.status_code for r in a] == [200, 200]
        r = client.get("/stream", environ_base={"REMOTE_ADDR": "10.0.0.1"})
        assert r.status_code == 429 and "at most 2" in r.get_data(True)
        b = client.get("/stream", environ_base={"REMOTE_ADDR": "10.0.0.2"}, buffered=False)
        assert b.status_code == 200
        full = client.get("/stream", environ_base={"REMOTE_ADDR": "10.0.0.3"})
        assert full.status_code == 503 and full.headers["Retry-After"] == "5"
        for r in [*a, b]:
            r.close()
        assert hub_of(app).streams == 0
    finally:
        hub_of(app).close()


def test_odd_last_event_ids_over_real_http_log_no_traceback(tmp_path, caplog):
    """Through a real server (where an exception would be logged, not raised): every
    id form answers 200 with the current snapshot, and nothing is logged as an error."""
    import http.client
    import logging
    import threading

    from werkzeug.serving import make_server

    app = create_app({"DATABASE": str(tmp_path / "h.sqlite3"), "SSE_KEEPALIVE": 0.01,
                      "SSE_MAX_SECONDS": 0.05})
    hub = hub_of(app)
    hub.submit("setup", players=2, names=["A", "B"], variants=[], length=3,
               deck="builtin", dealer=0)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with caplog.at_level(logging.ERROR):
            for name, form in id_forms(hub).items():
                conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=10)
                conn.putrequest("GET", "/stream")
                conn.putheader("Last-Event-ID", form.encode("latin-1"))
                conn.endheaders()
                response = conn.getresponse()
                body = response.read().decode()
                conn.close()
                assert response.status == 200, name
                assert "Traceback" not in body, name
                ids = [line[4:] for line in body.splitlines() if line.startswith("id: ")]
                assert ids == ([] if form.strip() == hub.last.id else [hub.last.id]), name
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    finally:
        hub.close()
        server.shutdown()
