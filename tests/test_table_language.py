"""The table's language chosen on the setup page reaches the display and the terminal:
the assembled table (store, indicators drawing to a PNG and to a fake display, the
dashboard), driven through Flask's test client."""

from __future__ import annotations

import io
import re
import threading

import pytest

from firmware_bridge.display import read_png
from firmware_bridge.gpio import make_pin_factory
from firmware_bridge.screen import render
from firmware_bridge.words import language_index
from table_controller.app import build_table
from table_controller.cli.table import TerminalReport
from table_controller.config import Config, DashboardConfig, TableConfig

PIN = "2468"


class FakeDisplay:
    """A display output that keeps every state it is shown."""

    def __init__(self) -> None:
        self.shown: list = []

    def show(self, state) -> None:
        self.shown.append(state)

    def close(self) -> None:
        pass


def csrf(client, path: str) -> str:
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


@pytest.fixture
def table(tmp_path):
    config = Config(table=TableConfig(players=2, first_dealer=1, language="en"),
                    dashboard=DashboardConfig(host="127.0.0.1", port=0))
    table = build_table(config, db_path=tmp_path / "t.db", dashboard=True, vision=False,
                        display_png=tmp_path / "display.png",
                        pin_factory=make_pin_factory("mock"))
    stop = threading.Event()

    def controller_loop() -> None:  # the table's own thread answers the dashboard
        while not stop.wait(0.01):
            table.controller.run_commands()

    thread = threading.Thread(target=controller_loop, daemon=True)
    thread.start()
    yield table
    stop.set()
    thread.join(5)
    table.close()


def test_the_setup_pages_language_switches_the_display_and_the_terminal(table, tmp_path):
    assert table.url is not None, table.notes
    fake = FakeDisplay()
    table.indicators.outputs.append(fake)
    out = io.StringIO()
    report = TerminalReport(table.controller, ["Ada", "Bruno"], out=out, lang="en")
    table.controller.listeners.append(report)
    table.on_language.append(report.set_language)
    assert table.indicators.state.language == language_index("en")  # the configuration's

    app = table.server.app
    app.extensions["pin"].set(PIN)
    client = app.test_client()
    client.post("/unlock", data={"pin": PIN, "csrf_token": csrf(client, "/unlock")})
    r = client.post("/setup/", data={"csrf_token": csrf(client, "/setup/"), "players": "2",
                                     "name0": "Ada", "name1": "Bruno", "length": "3",
                                     "deck": "builtin", "dealer": "1", "language": "fr"})
    assert r.status_code == 302 and r.headers["Location"] == "/", r.get_data(True)

    state = table.indicators.state
    assert state.language == language_index("fr") and state.players == 2
    assert fake.shown[-1] == state  # the display was shown the French state
    # The PNG the display renderer draws is the French screen, not the English one.
    png = read_png(tmp_path / "display.png")
    assert (png == render(state)).all()
    assert (png != render(state.replace(language=language_index("en")))).any()

    # The lines from now on: the terminal's and the buttons' question on the display.
    table.controller.submit({"type": "trump", "card": "5s"})
    assert "atout 5s" in out.getvalue()
    assert table.controller.execute("button", {"name": "undo_long"})["accepted"] is False
    assert table.indicators.state.text == ("Rien a corriger",)

    # Italian next, and the setting is kept in the store.
    client.post("/setup/", data={"csrf_token": csrf(client, "/setup/"), "players": "2",
                                 "length": "3", "deck": "builtin", "language": "it"})
    assert table.indicators.state.language == language_index("it")
    assert report.lang == "it"
    assert table.store.get_setting("language") == "it"


def test_a_language_the_table_does_not_speak_is_refused(table):
    before = table.indicators.state.language
    result = table.controller.execute("language", {"code": "de"})
    assert result["accepted"] is False and "it, en, fr" in result["message"]
    assert table.indicators.state.language == before
    assert table.controller.execute("language", {"code": "it"})["accepted"]
    assert table.indicators.state.language == language_index("it")


def test_a_table_starts_in_the_language_last_chosen_on_the_setup_page(tmp_path):
    from table_controller.store import Store

    db = tmp_path / "t.db"
    store = Store(db)
    store.set_setting("language", "fr")
    store.close()
    config = Config(table=TableConfig(players=2, language="en"))
    table = build_table(config, db_path=db, dashboard=False, vision=False,
                        pin_factory=make_pin_factory("mock"))
    try:
        assert table.language == "fr"
        assert table.indicators.state.language == language_index("fr")
    finally:
        table.close()
    # With nothing chosen yet, the configuration's.
    table = build_table(config, db_path=tmp_path / "new.db", dashboard=False, vision=False,
                        pin_factory=make_pin_factory("mock"))
    try:
        assert table.indicators.state.language == language_index("en")
    finally:
        table.close()
