"""Briscola chiamata: the called card's holder (the secret partner) reaches no phone
before the called card is played: not through any read endpoint, the page's boot
state, nor any message of the live stream. The table shows the called card and the
bid to everyone from the call on."""

import random
import re
import threading
import time

from test_dashboard_leak import StreamReader, boot_json, walk
from werkzeug.serving import make_server

from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from web_dashboard import create_app, hub_of

SIDE_KEYS = {"partner", "teams", "team_points"}  # what would tell the caller's side


def side_revealed(doc) -> list[str]:
    """The key paths of ``doc`` that say who the partner is (None: they do not)."""
    return [path for path, key, value in walk(doc) if key in SIDE_KEYS and value is not None]


def called_late(seed_from: int = 0):
    """A chiamata hand whose partner is not the caller and whose called card is played
    after the first trick: several events during which the partner is secret."""
    for seed in range(seed_from, seed_from + 200):
        sim = play_hand(HandRules(5), 0, random.Random(seed), style="sensible")
        plays = [e for e in sim.events if e.type == "play"]
        at = next(i for i, e in enumerate(plays) if e.card is sim.called)
        if sim.partner != sim.caller and at >= 8:
            return sim
    raise AssertionError("no such hand")


def test_the_partner_is_secret_on_every_endpoint_and_stream_until_the_card_is_played(
        tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "p.sqlite3"), "TESTING": True,
                      "SSE_KEEPALIVE": 0.2})
    hub = hub_of(app)
    session = app.extensions["briscola"]["session"]
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    phone = StreamReader(server.server_port)
    phone.start()
    assert phone.connected.wait(5)
    client = app.test_client()
    match_id = hub.submit("setup", players=5, names=[f"P{s}" for s in range(5)],
                          variants=[], length=1, deck="builtin", dealer=0)["match"]
    sim = called_late()
    secret_until = None  # the live stream's message that first may name the partner
    checked = 0
    try:
        # The auction's result is entered on an unlocked phone's form: neither the form
        # nor the answers to it tell the partner (the server knows no hand anyway).
        call = sim.events[1]
        assert call.type == "call"
        phone_client = app.test_client()
        app.extensions["pin"].set("2468")
        page = phone_client.get("/unlock").get_data(as_text=True)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        phone_client.post("/unlock", data={"pin": "2468", "csrf_token": token})
        form_page = phone_client.get("/").get_data(as_text=True)
        form = re.search(r'<form[^>]*id="auction-form".*?</form>', form_page, re.S).group(0)
        assert side_revealed(boot_json(form_page)["state"]) == []
        token = re.search(r'name="csrf_token" value="([^"]+)"', form).group(1)
        # Every seat and every rank and suit are offered, whatever was dealt.
        assert len(re.findall(r"<option", form)) == 5 + 10 + 4
        answer = phone_client.post("/table/call", data={
            "csrf_token": token, "caller": str(call.seat), "rank": str(call.card.rank),
            "suit": call.card.suit.value, "bid": str(call.points)})
        assert answer.status_code == 302 and "partner" not in answer.get_data(as_text=True)
        after_call = phone_client.get("/").get_data(as_text=True)
        assert 'id="auction-form"' not in after_call and 'class="flash ok"' in after_call
        assert side_revealed(boot_json(after_call)["state"]) == []
        shown = hub.snapshot()["hand"]
        assert (shown["caller"], shown["called"], shown["bid"]) == (
            call.seat, str(call.card), call.points)
        for event in sim.events[2:]:
            decision = session.feed(event.to_json())
            assert decision.accepted, decision.violation
            if decision.partner is not None:
                secret_until = hub.last.n
                break
            where = f"after {event}"
            docs = {"table": client.get("/api/v1/table").get_json(),
                    "matches": client.get("/api/v1/matches").get_json(),
                    "match": client.get(f"/api/v1/matches/{match_id}").get_json(),
                    "page": boot_json(client.get("/").get_data(as_text=True))["state"]}
            for name, doc in docs.items():
                assert side_revealed(doc) == [], f"{where}: {name} tells the partner"
            hand = client.get(f"/api/v1/matches/{match_id}/hands/0")
            assert hand.status_code == 409 and "partner" not in hand.get_json()
            assert client.get(f"/api/v1/matches/{match_id}/record.bgn").data == b""
            # The call itself is public: the called card and the bid, on the table.
            table = docs["table"]
            assert str(sim.called) in {v for _, k, v in walk(table) if k == "called"}, where
            checked += 1
        assert secret_until is not None and checked >= 8
        # Once the card is down the partner is public, where the checks above looked.
        shown = client.get("/api/v1/table").get_json()
        assert sim.partner in {v for _, k, v in walk(shown) if k == "partner"}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (
                phone.messages and phone.messages[-1]["seq"] >= secret_until):
            time.sleep(0.02)
    finally:
        hub.close()
        phone.join(10)
        server.shutdown()
    before = [m for m in phone.messages if m["seq"] < secret_until]
    assert len(before) >= checked
    for message in before:
        assert side_revealed(message) == [], f"SSE {message['seq']} tells the partner"
    after = next(m for m in phone.messages if m["seq"] == secret_until)
    assert sim.partner in {v for _, k, v in walk(after) if k == "partner"}
