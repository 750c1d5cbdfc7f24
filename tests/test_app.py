"""The table's assembly: build from a configuration, commands from the phones, resume."""

from table_controller.app import build_table
from table_controller.cli import main
from table_controller.config import Config, TableConfig


def config(players=2):
    return Config(table=TableConfig(players=players, names=("Ada", "Bruno")[:players]
                                    if players == 2 else (), first_dealer=1))


def test_phone_commands_names_and_setup(tmp_path):
    table = build_table(config(), db_path=tmp_path / "t.db", dashboard=False, vision=False)
    c = table.controller
    try:
        assert c.submit({"type": "hand", "players": 2, "dealer": 1}).accepted
        assert c.execute("names", {"names": ["Zia", "Nonno"]})["accepted"]
        assert table.store.match(c.match_id).names == ("Zia", "Nonno")
        refused = c.execute("setup", {"players": 4})
        assert not refused["accepted"] and "2 players" in refused["message"]
        first = c.match_id
        ok = c.execute("setup", {"players": 2, "names": ["A", "B"], "length": 3,
                                 "dealer": 0})
        assert ok["accepted"] and c.match_id != first
        assert c.referee.match_length == 3 and c.referee.hand.dealer == 0
        assert not c.execute("frobnicate", {})["accepted"]
    finally:
        table.close()


def test_restart_resumes_the_hand_where_it_was(tmp_path):
    db = tmp_path / "t.db"
    table = build_table(config(), db_path=db, dashboard=False, vision=False)
    c = table.controller
    for e in ({"type": "hand", "players": 2, "dealer": 1}, {"type": "trump", "card": "5s"},
              {"type": "play", "seat": 0, "card": "3c"}):
        assert c.submit(e).accepted
    key = c.referee.hand._key()
    table.close()
    again = build_table(config(), db_path=db, dashboard=False, vision=False)
    try:
        assert again.controller.referee.hand._key() == key
        assert any("resumed" in n for n in again.notes)
        assert again.controller.submit({"type": "play", "seat": 1, "card": "1c"}).accepted
    finally:
        again.close()


def test_demo_plays_a_match_and_agrees_with_the_truth(capsys):
    code = main(["demo", "--fast", "--headless", "--match", "1", "--seed", "5",
                 "--no-emulator", "--quit"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "agrees with the simulator's ground truth" in out
    assert "trick 20:" in out and "The match goes to" in out
