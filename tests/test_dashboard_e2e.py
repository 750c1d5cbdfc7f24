"""End to end in a real browser: Debian's Chromium driven by Playwright, phone-sized.

The page follows a hand live over SSE (reconnecting with Last-Event-ID when the
stream drops, without reloading), shows no points before the last trick, then
reveals the right score. Needs ``pip install playwright`` and ``apt-get install
chromium`` (Playwright's own browser download is not used: the table is offline).
"""

import os
import random
import threading
import time

import pytest

from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import play_hand
from web_dashboard import create_app, hub_of

CHROMIUM = os.environ.get("BRISCOLA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the playwright Python package is not installed")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)",
                allow_module_level=True)


class StreamLog:
    """WSGI middleware noting each stream request's Last-Event-ID."""

    def __init__(self, app):
        self.app = app
        self.last_ids: list[str | None] = []

    def __call__(self, environ, start_response):
        if environ["PATH_INFO"] in ("/stream", "/api/v1/stream"):
            self.last_ids.append(environ.get("HTTP_LAST_EVENT_ID"))
        return self.app(environ, start_response)


@pytest.fixture
def server(tmp_path):
    from werkzeug.serving import make_server
    # Streams end every second so that the browser has to reconnect during the hand.
    app = create_app({"DATABASE": str(tmp_path / "e2e.sqlite3"), "SSE_MAX_SECONDS": 1.0,
                      "SSE_KEEPALIVE": 0.5})
    log = StreamLog(app.wsgi_app)
    app.wsgi_app = log
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{srv.server_port}/", log
    hub_of(app).close()
    srv.shutdown()


@pytest.fixture
def page():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 390, "height": 844},
                                      device_scale_factor=2, locale="en-GB", is_mobile=True,
                                      has_touch=True)
        yield context.new_page()
        browser.close()


def wait_for(page, expression: str, timeout: float = 10.0) -> None:
    """Poll ``expression`` in the page (wait_for_function's eval is barred by our CSP)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        time.sleep(0.02)


def wait_seq(page, n: int) -> None:
    wait_for(page, f"Number(document.body.dataset.seq) >= {n}")


def test_phone_follows_a_hand_live_and_reveals_the_score_only_at_the_end(server, page,
                                                                           tmp_path):
    app, url, log = server
    hub = hub_of(app)
    session = app.extensions["briscola"]["session"]
    hub.submit("setup", players=2, names=["Giulia", "Marco"], variants=[], length=3,
               deck="builtin", dealer=1)
    sim = play_hand(HandRules(2), 1, random.Random(5), style="sensible")
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(url)
    page.evaluate("window.__sameDocument = true")
    wait_seq(page, hub.last.n)
    assert "Hand 1" in page.inner_text("#status")

    events = [e.to_json() for e in sim.events[1:]]
    last_play = max(i for i, e in enumerate(events) if e["type"] == "play")
    names = ["Giulia", "Marco"]
    for i, obj in enumerate(events[:last_play]):
        session.feed(obj)
        if i == 10:  # a card put down out of turn: the phone shows it, in English
            turn = session.referee.hand.turn
            card = next(e["card"] for e in events[i + 1:]
                        if e["type"] == "play" and e["card"] != str(sim.briscola))
            assert not session.feed({"type": "play", "seat": 1 - turn, "card": card}).accepted
            wait_seq(page, hub.last.n)
            assert page.is_visible("#violation")
            assert page.inner_text("#violation-message") == \
                f"{names[1 - turn]} played out of turn: it is {names[turn]}'s turn"
        if i == 20:  # a captured card seen again: the phone is not told which one
            hand = session.referee.hand
            taken = str(hand.tricks[0].plays[0].card)
            decision = session.feed({"type": "play", "seat": hand.turn, "card": taken})
            assert decision.violation.kind.value == "duplicate_card"
            wait_seq(page, hub.last.n)
            assert page.is_visible("#violation")
            assert page.inner_text("#violation-message") == "That card was already played"
            assert page.locator("#violation-what img").count() == 0
        if i % 4 and i != last_play - 1:
            continue  # several events between looks: the page must catch up
        wait_seq(page, hub.last.n)
        view = session.referee.hand.view()
        assert page.is_hidden("#reveal")
        assert page.locator("#reveal *").count() == 0
        assert page.locator(".pts").count() == 0
        shown = page.locator("#trick-cards li").evaluate_all(
            "els => els.map(e => e.dataset.card)")
        assert shown == [str(p.card) for p in view.trick]
        assert page.inner_text("#progress-text") == \
            f"{view.tricks_played} tricks played, {view.tricks_left} to go"
        assert page.inner_text("#turn-name") == f"{names[view.turn]} to play"
    page.screenshot(path=str(tmp_path / "before-last-trick.png"))
    assert "Points stay hidden" in page.inner_text("#seats")

    session.feed(events[last_play])  # the last card: the hand is over
    wait_seq(page, hub.last.n)
    page.wait_for_selector("#reveal", state="visible")
    for seat, points in enumerate(sim.points):
        wait_for(page, f"document.querySelector('.scores .pts[data-seat=\"{seat}\"]')"
                       f".textContent === '{points}'")
    winner = max(range(2), key=lambda s: sim.points[s])
    banner = page.inner_text("#banner")
    if sim.points[0] == sim.points[1]:
        assert "tie" in banner
    else:
        assert banner == f"{['Giulia', 'Marco'][winner]} wins the hand!"
    assert page.locator(".tricks li").count() == 20
    page.screenshot(path=str(tmp_path / "reveal.png"))

    # An undo that reopens the last trick takes the reveal away again; replaying the
    # card brings it back.
    session.feed({"type": "undo"})
    wait_seq(page, hub.last.n)
    assert page.is_hidden("#reveal") and page.locator(".pts").count() == 0
    session.feed(events[last_play])
    wait_seq(page, hub.last.n)
    page.wait_for_selector("#banner", state="visible")

    # The stream dropped and came back during the hand, asking for what it missed,
    # and the page was never reloaded.
    assert len(log.last_ids) >= 2 and any(log.last_ids[1:])
    assert hub.streams <= 1  # the dropped streams were counted out
    assert page.evaluate("window.__sameDocument") is True
    # No script error and nothing the Content-Security-Policy had to block.
    assert not problems, problems
    # Everything came from the table itself: no CDN, no font service.
    assert requested and all(u.startswith(url) for u in requested), \
        [u for u in requested if not u.startswith(url)]


def test_first_start_pin_and_setup_from_a_phone(server, page):
    app, url, _ = server
    # A phone that only follows the table is not told to choose a PIN, nor alarmed.
    page.goto(url)
    assert page.locator(".flash.error, a.button[href='/setup/pin']").count() == 0
    assert "Following the table needs nothing." in page.inner_text("#pin-first")
    page.goto(url + "setup/")
    assert page.locator(".flash.error").count() == 0
    assert page.locator("#pin-first.flash.info").count() == 1
    page.goto(url + "setup/pin")
    assert page.locator(".flash.error").count() == 0
    # Too short: the browser refuses it in the page's words, not its generic phrase.
    page.fill("input[name=pin]", "12")
    page.fill("input[name=pin2]", "12")
    page.click("button[type=submit]")
    assert page.url == url + "setup/pin"
    message = page.eval_on_selector("input[name=pin]", "e => e.validationMessage")
    assert message == "The PIN has 4 to 12 digits.", message
    page.fill("input[name=pin]", "2580")
    page.fill("input[name=pin2]", "2580")
    page.click("button[type=submit]")
    page.wait_for_url(url + "setup/")
    page.check("input[name=players][value='4']")
    assert page.locator(".name-field:visible").count() == 4
    for seat, name in enumerate(["Anna", "Bruno", "Carla", "Dario"]):
        page.fill(f"input[name=name{seat}]", name)
    page.check("input[name=length][value='3']")
    page.click("button.wide")
    page.wait_for_url(url)
    wait_for(page, "document.querySelectorAll('#seat-list li').length === 4")
    assert page.locator("#seat-list .name").all_inner_texts() == ["Anna", "Bruno", "Carla",
                                                                  "Dario"]
    assert "Match set up." in page.inner_text(".flashes")
    # Four players: two teams, by name, and no points while the hand goes on.
    wait_for(page, "document.querySelectorAll('#team-list li').length === 2")
    assert page.locator("#team-list li").all_inner_texts() == ["Team 1 Anna + Carla",
                                                               "Team 2 Bruno + Dario"]
    teams = page.locator("#seat-list li").evaluate_all("els => els.map(e => e.dataset.team)")
    assert teams == ["0", "1", "0", "1"]
    assert not any(c.isdigit() for c in page.inner_text("#team-list").replace("Team 1", "")
                   .replace("Team 2", ""))
    match = hub_of(app).snapshot()["match"]
    assert match["players"] == 4 and match["length"] == 3


def test_a_held_card_is_named_with_the_likely_cards_or_the_rank_and_suit_chooser(tmp_path,
                                                                                 page):
    """The phone offers the camera's few likely cards, then a rank + suit chooser over the
    whole deck; a card the rules rule out is refused with one line."""
    from werkzeug.serving import make_server

    from table_controller.controller import Controller, HubOutput
    from table_controller.store import Store
    from vision.tracker import FrameObs, Tracker, ZoneObs
    from web_dashboard.live import LiveTable

    store = Store(tmp_path / "t.sqlite3")
    info = store.new_match(players=2, names=["Giulia", "Marco"])
    hub = LiveTable()

    class Seen:
        def observe(self, frame, t):
            return frame

    ctl = Controller(info.referee(), store=store, match_id=info.id, observer=Seen(),
                     outputs=[HubOutput(hub)])
    ctl.tracker = Tracker({0: "play0", 1: "play1"}, lambda: ctl.referee.hand)
    hub.executor = lambda c: ctl.execute(c.kind, dict(c.args))
    app = create_app({"DATABASE": str(tmp_path / "d.sqlite3")}, hub=hub, store=store)
    app.extensions["pin"].set("2468")
    hub.set_match(store.match(info.id), ctl.referee)
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_port}/"
    try:
        ctl.submit({"type": "hand", "dealer": 1})
        for i in range(20):
            zones = {"briscola": ZoneObs("5s", (50.0, 50.0))}
            if i >= 5:
                zones["play0"] = ZoneObs("?", (100.0, 100.0), candidates=("7c", "6c"))
            ctl.on_frame(FrameObs(i / 30, zones), i / 30)
        assert "play0" in ctl.tracker.holds
        page.goto(url + "unlock?next=/")
        page.fill("input[name=pin]", "2468")
        page.click("button[type=submit]")
        page.wait_for_url(url)
        page.wait_for_selector("#holds", state="visible")
        likely = page.locator("#holds .pick-likely").evaluate_all(
            "els => els.map(e => e.dataset.card)")
        assert likely == ["7c", "6c"]
        assert page.locator("#holds select[name=rank] option").count() == 10
        assert page.locator("#holds select[name=suit] option").all_inner_texts() == \
            ["coins", "cups", "swords", "batons"]
        page.select_option("#holds select[name=rank]", "5")
        page.select_option("#holds select[name=suit]", "s")  # the briscola: under the stock
        # The form posts and comes back to the same URL: wait for that page, not the URL
        # (which already matches, so the next step would race the navigation).
        with page.expect_navigation():
            page.click("#holds .pick-choose button")
        assert "5 of swords: that card cannot be there now." in page.inner_text(".flashes")
        assert ctl.referee.hand.current == []
        page.wait_for_selector("#holds", state="visible")
        page.select_option("#holds select[name=rank]", "9")
        page.select_option("#holds select[name=suit]", "b")
        with page.expect_navigation():
            page.click("#holds .pick-choose button")
        assert "Card named." in page.inner_text(".flashes")
        assert [(p.seat, str(p.card)) for p in ctl.referee.hand.current] == [(0, "9b")]
        wait_for(page, "document.getElementById('holds').hidden === true")
    finally:
        hub.close()
        srv.shutdown()


def test_chiamata_s_auction_is_entered_on_an_unlocked_phone_and_shown_to_all(server, page):
    """The script draws the auction's form for an unlocked phone while the hand has no
    call; a spectator waits for the result, then sees it live, and never the partner."""
    app, url, _ = server
    hub = hub_of(app)
    app.extensions["pin"].set("2468")
    assert hub.submit("setup", players=5, names=["Ada", "Bruno", "Carla", "Dario", "Elena"],
                      variants=[], length=1, deck="builtin", dealer=0)["accepted"]
    spectator = page.context.new_page()
    spectator.goto(url)
    spectator.wait_for_selector("#auction-waiting")
    assert spectator.locator("#auction form").count() == 0
    page.goto(url + "unlock?next=/")
    page.fill("input[name=pin]", "2468")
    page.click("button[type=submit]")
    page.wait_for_url(url)
    page.wait_for_selector("#auction-form")
    assert page.locator("#auction select[name=caller] option").all_inner_texts() == [
        "P1 · Ada", "P2 · Bruno", "P3 · Carla", "P4 · Dario", "P5 · Elena"]
    assert page.locator("#auction select[name=rank] option").count() == 10
    assert page.input_value("#auction input[name=bid]") == "61"
    page.select_option("#auction select[name=caller]", "3")
    page.select_option("#auction select[name=rank]", "3")
    page.select_option("#auction select[name=suit]", "c")
    page.fill("#auction input[name=bid]", "70")
    with page.expect_navigation():  # (the page is at url already: wait for the post's)
        page.click("#btn-call")
    assert "Call recorded." in page.inner_text(".flashes")
    for phone in (page, spectator):
        phone.wait_for_selector("#auction-result")
        assert phone.inner_text("#auction-result") == "Dario calls 3 of cups for 70"
        assert phone.locator("#auction form").count() == 0
        assert "partner" not in phone.inner_text("#seats").lower()
    hand = hub.snapshot()["hand"]
    assert (hand["caller"], hand["called"], hand["bid"], hand["partner"]) == (3, "3c", 70, None)


def test_every_page_fits_a_phone_s_width_after_a_hand(server, page):
    """Nothing runs off a 390 px screen: the ranking's six columns once made its page
    about 490 px wide, so that the phone scrolled sideways and "Average points" was cut."""
    app, url, _ = server
    hub = hub_of(app)
    session = app.extensions["briscola"]["session"]
    hub.submit("setup", players=2, names=["Giulia Bianchi", "Marco Esposito"], variants=[],
               length=1, deck="builtin", dealer=0)
    sim = play_hand(HandRules(2), 0, random.Random(8), style="sensible")
    for e in sim.events[1:]:
        assert session.feed(e.to_json()).accepted
    headers = {"en": "Average points", "it": "Punti medi", "fr": "Points moyens"}
    tricks = {"en": "tricks", "it": "prese", "fr": "plis"}
    for lang, header in headers.items():  # (Italian's words are the longest)
        page.context.add_cookies([{"name": "lang", "value": lang, "url": url}])
        for path in ("", "ranking/", "history/", "setup/", "players/Giulia Bianchi"):
            page.goto(url + path)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, (lang, path)
            if path == "":  # each player's count of tricks says what it counts
                wait_for(page, "document.querySelectorAll('#seats .piles-label').length == 2")
                assert page.inner_text("#seats .piles-label") == tricks[lang]
        page.goto(url + "ranking/")
        assert header in page.inner_text("table.ranking")
        # The six columns fit the panel: the table does not scroll inside it either.
        assert page.evaluate("document.querySelector('table.ranking').getBoundingClientRect()"
                             ".right <= document.querySelector('.table-scroll')"
                             ".getBoundingClientRect().right + 0.5"), lang
