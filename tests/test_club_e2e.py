"""The club's grid in a real browser (Debian's Chromium driven by Playwright): club.js
follows the stream and redraws a table's tile, cards as images, without reloading."""

import json
import threading
import time

import pytest
from test_dashboard_e2e import ARGS, CHROMIUM, sync_api, wait_for  # skips as it does

from table_controller.club.view import ClubFeed
from web_dashboard.club import create_club_app

CLUB = "e2e"


class Msg:
    def __init__(self, topic, doc):
        self.topic = topic
        self.payload = doc if isinstance(doc, bytes) else json.dumps(doc).encode()


@pytest.fixture
def club(tmp_path):
    from werkzeug.serving import make_server

    feed = ClubFeed("127.0.0.1", 1, CLUB, db=str(tmp_path / "c.db"))  # fed directly
    app = create_club_app(feed, {"CLUB_NAME": CLUB, "CLUB_SSE_KEEPALIVE": 0.5,
                                 "CLUB_SSE_GAP": 0.01, "CLUB_SSE_MAX_SECONDS": 5})
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield feed, f"http://127.0.0.1:{srv.server_port}/"
    srv.shutdown()
    feed.close()


def test_the_grid_follows_the_tables_live_without_reloading(club):
    feed, url = club
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(locale="en-GB").new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))  # the script's, the CSP's
        page.on("console", lambda m: errors.append(m.text)
                if m.type == "error" and "Failed to load resource" not in m.text else None)
        page.on("response", lambda r: errors.append(f"{r.status} {r.url}")
                if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
        try:
            page.goto(url)
            page.evaluate("window.notReloaded = true")
            assert page.is_visible("#club-none")
            feed._on_message(None, None, Msg(f"briscola/{CLUB}/t1/status", b"online"))
            feed._on_message(None, None, Msg(f"briscola/{CLUB}/t1/state", {
                "sent": time.time(), "state": {
                    "match": {"id": 1, "players": 2, "names": ["Ada", ""]},
                    "standing": {"hands_won": [0, 0]},
                    "hand": {"number": 1, "over": False, "players": 2, "turn": 1,
                             "briscola": "5s", "trick": [{"seat": 0, "card": "7c"}],
                             "tricks_played": 3, "tricks_left": 17}}}))
            wait_for(page, "!!document.querySelector('#table-t1 img[src=\"/cards/builtin/7c\"]')")
            tile = page.inner_text("#table-t1")
            assert "P2 to play" in tile and "3 tricks played, 17 to go" in tile
            assert "Ada" in tile and not page.is_visible("#club-none")
            assert page.get_attribute('#table-t1 img[src="/cards/builtin/7c"]', "alt") \
                == "7 of cups"
            # The card's picture is drawn (it loads after the tile appears: waited for).
            wait_for(page, "document.querySelector('#table-t1 img').complete && "
                           "document.querySelector('#table-t1 img').naturalWidth > 0")
            # The hand over: the result, the page never reloaded.
            feed._on_message(None, None, Msg(f"briscola/{CLUB}/t1/state", {
                "sent": time.time(), "state": {
                    "match": {"id": 1, "players": 2, "names": ["Ada", ""]},
                    "standing": {"hands_won": [1, 0]},
                    "reveal": {"points": [70, 50], "winners": [0], "outcome": "win"},
                    "hand": {"number": 1, "over": True, "players": 2, "turn": None,
                             "briscola": "5s", "trick": [], "tricks_played": 20,
                             "tricks_left": 0}}}))
            wait_for(page, "document.querySelector('#table-t1').innerText"
                           ".includes('Ada wins the hand!')")
            assert "70–50" in page.inner_text("#table-t1")
            assert page.evaluate("window.notReloaded === true")
            assert not errors, errors
        finally:
            browser.close()
