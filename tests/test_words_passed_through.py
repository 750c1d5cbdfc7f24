"""What other parts of the table say reaches a person in their language: the
configuration's, the store's and the camera's refusals, argparse's own, the table's
notes, the guided enrollment's requests (terminal, display, phone), display-test's
screens; and the dashboard speaks the configuration's language until the setup page
chooses one. Each command still refuses in one line, exit status 2, no traceback."""

from __future__ import annotations

import argparse
import inspect
import re

import pytest

from table_controller.cli import main
from table_controller.cli.common import ARGPARSE_MESSAGES
from table_controller.engine.cards import Card
from table_controller.engine.words import Say, say_in, say_n
from web_dashboard import i18n


@pytest.fixture
def locale(monkeypatch):
    """``locale("it")``: the terminal's locale is it_IT.UTF-8 (fr_FR, en_GB)."""
    def use(lang: str) -> None:
        for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
            monkeypatch.delenv(var, raising=False)
        region = {"it": "IT", "fr": "FR", "en": "GB"}[lang]
        monkeypatch.setenv("LANG", f"{lang}_{region}.UTF-8")
    return use


def refused(capsys, argv: list[str]) -> str:
    """The one line a refused command prints (exit 2, nothing on stdout)."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


# -- Say: English as a str, its words in any language --------------------------------------

def test_a_say_is_its_english_text_and_is_said_in_each_language():
    s = Say("{path}: not valid TOML: {problem}", path="t.toml", problem="x")
    assert s == "t.toml: not valid TOML: x" and isinstance(s, str)
    assert i18n.said("it", s) == "t.toml: TOML non valido: x"
    assert i18n.said("fr", s) == "t.toml : TOML non valide : x"
    # Nested: the values said in the same language; a card by its name.
    show = Say("Show {card_name} ({card})", card_name=Card.parse("1d"), card="1d")
    assert show == "Show Ace of coins (1d)"
    assert i18n.said("it", show) == "Mostra Asso di denari (1d)"
    assert i18n.said("fr", Say("{reason}: show {card}", card="2d", reason=Say(
        "This looks like {other}, already captured", other="1d"))) == \
        "On dirait 1d, déjà prise : montrez 2d"
    assert i18n.said("it", say_in("display", "{n}/{total} captured", n=3, total=41)) == \
        "3/41 acquisite"
    assert [i18n.said("fr", say_n("{n} card", "{n} cards", n)) for n in (0, 1, 2)] == \
        ["0 carte", "1 carte", "2 cartes"]
    assert say_n("{n} card", "{n} cards", 1) == "1 card"
    # An exception made of a Say is said as its Say; any other text as it is.
    assert i18n.said("it", ValueError(Say("must not be empty"))) == "non deve essere vuoto"
    assert i18n.said("it", OSError("disk full")) == "disk full"


# -- argparse's refusals -------------------------------------------------------------------

def test_argparse_messages_are_pythons_own_word_for_word():
    source = inspect.getsource(argparse)
    for msgid in ARGPARSE_MESSAGES:
        assert repr(msgid)[1:-1] in source or msgid in source, msgid
    for lang in ("it", "fr"):
        for msgid in ARGPARSE_MESSAGES:  # argparse fills them with %: the same fields
            said = i18n.tr(lang, msgid)
            assert said != msgid
            assert sorted(re.findall(r"%(\(\w+\))?[sr]", said)) == \
                sorted(re.findall(r"%(\(\w+\))?[sr]", msgid)), (lang, msgid)


@pytest.mark.parametrize("lang, argv, expected", [
    ("it", ["mat", "--dpi"], "briscola-table mat: argomento --dpi: atteso un argomento "
                             "(vedi briscola-table mat --help)"),
    ("it", ["mat"], "briscola-table mat: sono obbligatori i seguenti argomenti: --out "
                    "(vedi briscola-table mat --help)"),
    ("fr", ["mat", "--out", "m.pdf", "--players", "9"],
     "briscola-table mat: argument --players : choix non valide : 9 (choisissez parmi 2, 3, "
     "4, 5, 6) (voir briscola-table mat --help)"),
    ("fr", ["referee", "--players", "x"],
     "briscola-table referee: argument --players : valeur int non valide : 'x' (voir "
     "briscola-table referee --help)"),
    ("en", ["mat", "--dpi"], "briscola-table mat: argument --dpi: expected one argument "
                             "(see briscola-table mat --help)"),
])
def test_argparse_refuses_in_the_terminals_language(capsys, locale, lang, argv, expected):
    locale(lang)
    assert refused(capsys, argv) == expected


# -- the configuration's, the store's and the camera's refusals ----------------------------

def test_a_bad_configuration_key_is_said_in_italian_and_named(tmp_path, capsys, locale):
    config = tmp_path / "table.toml"
    config.write_text("[table]\nplayerz = 3\n")
    locale("it")
    assert refused(capsys, ["run", "--config", str(config), "--offline"]) == \
        f"briscola-table run: {config}: [table] playerz: chiave sconosciuta (scritta male?)"
    config.write_text("[table]\nplayers = 9\n")
    locale("fr")
    assert refused(capsys, ["run", "--config", str(config), "--offline"]) == \
        f"briscola-table run: {config} : [table] players : attendu un entier 2..6, reçu 9"
    config.write_text("[gpio]\nbuzzer = 99\n")  # the indicators' own keys too
    locale("it")
    assert refused(capsys, ["run", "--config", str(config), "--offline"]) == \
        f"briscola-table run: {config}: gpio.buzzer: 99 non è un pin GPIO BCM in 0-27"


def test_a_damaged_store_is_said_in_the_terminals_language(tmp_path, capsys, locale):
    empty = tmp_path / "table.db"
    empty.write_bytes(b"")
    locale("it")
    line = refused(capsys, ["backup", str(tmp_path / "copy.db"), "--db", str(empty)])
    assert line.startswith(f"briscola-table backup: {empty} è vuoto (0 byte), non è il "
                           "database del tavolo; non vi è stato cambiato nulla")
    assert not (tmp_path / "copy.db").exists()


def test_a_camera_that_names_nothing_is_said_in_french(tmp_path, capsys, locale):
    config = tmp_path / "table.toml"
    config.write_text(f'[camera]\nsource = "{tmp_path / "nothing.mp4"}"\n'
                      f'[storage]\ndatabase = "{tmp_path / "t.db"}"\n')
    locale("fr")
    line = refused(capsys, ["run", "--config", str(config), "--offline"])
    assert line == ("briscola-table run: [camera] source : aucune caméra, aucun dossier, "
                    f"fichier vidéo ou URL nommé '{tmp_path / 'nothing.mp4'}'")


def test_the_tables_notes_are_said_in_the_terminals_language(tmp_path, capsys, locale):
    from table_controller.app import build_table
    from table_controller.cli.table import TerminalReport
    from table_controller.config import Config, TableConfig

    config = Config(table=TableConfig(players=2))
    table = build_table(config, db_path=tmp_path / "t.db", dashboard=False, vision=False)
    table.close()
    table = build_table(config, db_path=tmp_path / "t.db", dashboard=False, vision=False)
    try:
        note = next(n for n in table.notes if n.startswith("resumed match"))
        assert isinstance(note, Say)
        assert TerminalReport(table.controller, ["A", "B"], lang="it").said(note) == \
            "ripresa la partita 1 dov'era: ancora nessuna smazzata"
        assert i18n.said("fr", note) == "partie 1 reprise où elle en était : pas encore de donne"
    finally:
        table.close()


# -- display-test and the dashboard's language ---------------------------------------------

def test_display_test_draws_the_displays_language(tmp_path, locale):
    from firmware_bridge.display import read_png

    pictures = {}
    for lang, argv in (("it", []), ("en", []), ("fr", []), ("en", ["--language", "it"])):
        locale(lang)
        out = tmp_path / f"{lang}{len(argv)}"
        assert main(["display-test", "--out", str(out), "--scale", "1", *argv]) == 0
        pictures[lang, len(argv)] = {p.name: read_png(out / p.name)
                                     for p in out.iterdir()}
    it, en, fr = pictures["it", 0], pictures["en", 0], pictures["fr", 0]
    for name in ("idle", "turn", "violation", "text"):
        assert (it[f"{name}.png"] != en[f"{name}.png"]).any(), name
        assert (fr[f"{name}.png"] != en[f"{name}.png"]).any(), name
    # --language wins over the terminal's.
    assert all((pictures["en", 2][n] == it[n]).all() for n in it)


def test_the_dashboard_speaks_the_configurations_language_until_setup_chooses(tmp_path):
    from web_dashboard import create_app

    app = create_app({"DATABASE": str(tmp_path / "d.db"), "TESTING": True, "LANGUAGE": "fr"})
    client = app.test_client()
    assert "Aucune partie en cours." in client.get("/").get_data(True)
    assert 'value="fr" selected' in client.get("/setup/").get_data(True)
    app.extensions["briscola"]["store"].set_setting("language", "en")
    assert "No match in progress." in client.get("/").get_data(True)
    # Nothing configured: Italian, as before.
    app = create_app({"DATABASE": str(tmp_path / "e.db"), "TESTING": True})
    assert "Nessuna partita in corso." in app.test_client().get("/").get_data(True)


def test_the_tables_dashboard_gets_the_configurations_language(tmp_path):
    from table_controller.app import build_table
    from table_controller.config import Config, DashboardConfig, TableConfig

    config = Config(table=TableConfig(players=2, language="fr"),
                    dashboard=DashboardConfig(host="127.0.0.1", port=0))
    table = build_table(config, db_path=tmp_path / "t.db", dashboard=True, vision=False)
    try:
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{table.server.server_port}/") as r:
            assert "Aucune partie en cours." in r.read().decode()
    finally:
        table.close()


def test_the_deck_checks_report_is_said_in_each_language():
    from vision.deck_check import DeckReport

    report = DeckReport(faces=41, views=205, right=200, wrong=[("4d", "5d")], unknown=4,
                        hard_pairs=[("4d", "5d")], same_half=[("7c", "2c")])
    lines = report.lines()
    assert lines[0] == ("Deck check: 41 faces; 205 damaged views of your own pictures: "
                        "97.6% named right, 1 wrong, 4 left unknown (the table asks for "
                        "those)")
    it = [i18n.said("it", line) for line in lines]
    assert it[0].startswith("Controllo del mazzo: 41 facce; 205 viste danneggiate")
    assert it[1] == ("Riconosciute male: 4d->5d - rifai quelle foto (carta intera, luce "
                     "uniforme)")
    assert i18n.said("fr", lines[2]) == "Les plus difficiles à distinguer : 4d/5d"
