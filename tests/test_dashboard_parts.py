"""The dashboard's smaller parts: card faces, QR code, mDNS (the catalogs:
test_i18n_catalogs.py)."""

import importlib.util
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from table_controller.engine.cards import ALL_CARDS
from web_dashboard import i18n
from web_dashboard.announce import Announcer
from web_dashboard.card_faces import back_svg, card_svg, enrolled_decks, enrolled_face
from web_dashboard.qr import qr_rows, qr_svg

PACKAGE = Path(i18n.__file__).parent


@pytest.mark.parametrize("french", [False, True])
def test_all_forty_faces_are_valid_svg(french):
    for card in ALL_CARDS:
        root = ET.fromstring(card_svg(str(card), french))
        assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 100 150"
    ET.fromstring(back_svg())
    assert ">F<" in card_svg("8c") and ">J<" in card_svg("8c", french=True)
    assert ">7<" in card_svg("7b")


def test_enrolled_decks_are_found_and_paths_stay_inside(tmp_path):
    (tmp_path / "napoletane").mkdir()
    (tmp_path / "napoletane" / "1d.jpg").write_bytes(b"x")
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad name").mkdir()
    (tmp_path / "bad name" / "1d.png").write_bytes(b"x")
    assert enrolled_decks(tmp_path) == ["napoletane"]
    assert enrolled_decks(None) == [] and enrolled_decks(tmp_path / "none") == []
    assert enrolled_face(tmp_path, "napoletane", "1D") == tmp_path / "napoletane" / "1d.jpg"
    assert enrolled_face(tmp_path, "napoletane", "2d") is None
    assert enrolled_face(tmp_path, "..", "1d") is None


@pytest.mark.skipif(importlib.util.find_spec("segno") is None, reason="segno not installed")
def test_qr_code_for_page_and_display():
    svg = qr_svg("http://briscola.local:8000/")
    assert svg.startswith("<svg") and "path" in svg
    rows = qr_rows("http://briscola.local:8000/")
    assert len(rows) == len(rows[0]) >= 21 and any(map(any, rows))
    assert rows[0][:7] == [True] * 7  # the finder pattern's top edge


@pytest.mark.skipif(importlib.util.find_spec("zeroconf") is not None,
                    reason="checks the behaviour without zeroconf")
def test_announcer_is_a_no_op_without_zeroconf():
    announcer = Announcer(8000, "192.168.1.20")
    assert announcer.start() is False
    assert announcer.url == "http://briscola.local:8000/"
    announcer.close()


@pytest.mark.skipif(importlib.util.find_spec("zeroconf") is None,
                    reason="zeroconf (optional) is not installed")
def test_announcer_publishes_briscola_local():
    from zeroconf import Zeroconf

    from web_dashboard.qr import lan_address
    address = lan_address() or "127.0.0.1"
    announcer = Announcer(8765, address)
    if not announcer.start():
        pytest.skip("no multicast on this machine's network")
    try:
        zc = Zeroconf()
        info = zc.get_service_info("_http._tcp.local.", "Briscola table._http._tcp.local.",
                                   timeout=3000)
        zc.close()
        assert info is not None and info.server == "briscola.local." and info.port == 8765
        assert address in info.parsed_addresses()
    finally:
        announcer.close()


def test_demo_plays_hands_through_the_session(tmp_path):
    import threading

    from table_controller.store import Store
    from web_dashboard.demo import run_demo
    from web_dashboard.live import LiveTable
    from web_dashboard.session import TableSession
    store = Store(tmp_path / "demo.sqlite3")
    hub = LiveTable()
    session = TableSession(store, hub)
    stop = threading.Event()
    thread = run_demo(session, delay=0.001, seed=3, stop=stop)
    end = time.monotonic() + 10
    while hub.last.n < 30 and time.monotonic() < end:
        time.sleep(0.02)
    stop.set()
    thread.join(5)
    assert not thread.is_alive()
    assert hub.snapshot()["match"]["names"] == ["Giulia", "Marco"]
    events = store.events(session.info.id)
    assert len(events) >= 25 and all(e.accepted for e in events)
