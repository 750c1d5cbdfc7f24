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
            assert said != msgid or (lang, msgid) == ("fr", "options")  # the same word
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


# -- the enrollment's refusals, mat's, backup's and recognize's lines, the port, the
# -- configuration's direction and variants ---------------------------------------------

@pytest.fixture(scope="module")
def faces():
    from vision.enroll import builtin_faces

    return builtin_faces()


def _deck_folder(folder, faces, skip=()):
    import cv2

    folder.mkdir()
    for code, img in faces.items():
        if code not in skip:
            cv2.imwrite(str(folder / f"{code}.png"), img)
    return folder


@pytest.mark.parametrize("lang, expected", [
    ("it", "briscola-table enroll: impossibile registrare {d}: manca 1 carta: 1d; 9b.png e "
           "9s.png sono la stessa foto; immagine illeggibile: 10b.png (ignorati i file senza "
           "il codice di una carta nel nome: junk.png)"),
    ("fr", "briscola-table enroll: impossible d'enregistrer {d} : 1 carte manquante : 1d ; "
           "9b.png et 9s.png sont la même photo ; image illisible : 10b.png (fichiers "
           "ignorés, non nommés par un code de carte : junk.png)"),
    # English word for word as before: scripts and benchmarks read it.
    ("en", "briscola-table enroll: cannot enroll {d}: missing 1 card(s): 1d; 9b.png and "
           "9s.png are the same picture; unreadable image(s): 10b.png (ignored files not "
           "named by card code: junk.png)"),
])
def test_enrollments_refusals_are_said_in_the_terminals_language(tmp_path, capsys, locale,
                                                                 faces, lang, expected):
    import cv2

    d = _deck_folder(tmp_path / "deck", faces, skip=("1d",))
    cv2.imwrite(str(d / "9s.png"), faces["9b"])
    (d / "10b.png").write_bytes(b"\x89PNG broken")
    cv2.imwrite(str(d / "junk.png"), faces["2d"])
    out = tmp_path / "deck.npz"
    locale(lang)
    assert refused(capsys, ["enroll", "--images", str(d), "--out", str(out)]) == \
        expected.format(d=d)
    assert not out.exists()


def test_enrollments_plurals_and_lost_cards_in_each_language(tmp_path, capsys, locale, faces):
    import numpy as np

    from vision.enroll import EnrollmentError, read_enrollment_dir

    d = _deck_folder(tmp_path / "two", faces, skip=("3c", "10b"))
    with pytest.raises(EnrollmentError) as err:
        read_enrollment_dir(d)
    assert str(err.value) == f"cannot enroll {d}: missing 2 card(s): 3c, 10b"
    assert i18n.said("it", err.value) == f"impossibile registrare {d}: mancano 2 carte: 3c, 10b"
    assert i18n.said("fr", err.value) == \
        f"impossible d'enregistrer {d} : 2 cartes manquantes : 3c, 10b"
    with pytest.raises(EnrollmentError) as err:
        read_enrollment_dir(tmp_path / "nope")
    assert i18n.said("it", err.value) == \
        f"cartella da registrare non trovata: {tmp_path / 'nope'}"
    # A picture with no card in it: named, with what to do, in the terminal's language.
    import cv2

    d = _deck_folder(tmp_path / "lost", faces, skip=("7s",))
    cv2.imwrite(str(d / "7s.jpg"), np.full((200, 300, 3), 128, np.uint8))
    locale("fr")
    assert refused(capsys, ["enroll", "--images", str(d), "--out", str(tmp_path / "x.npz")]) \
        == (f"briscola-table enroll: impossible d'enregistrer {d} : aucune carte trouvée "
            "dans 7s.jpg (photographiez la carte entière, sur une surface unie, ou "
            "recadrez-la)")


def test_mat_backup_and_recognize_say_their_lines_in_the_terminals_language(
        tmp_path, capsys, locale):
    import numpy as np

    from table_controller.store import Store

    locale("it")
    mat = tmp_path / "mat.png"
    assert main(["mat", "--out", str(mat), "--dpi", "10", "--players", "2"]) == 0
    assert capsys.readouterr().out == f"scritto {mat} (A3, 2 giocatori, 10 dpi)\n"
    db, copy = tmp_path / "t.db", tmp_path / "copy.db"
    Store(db).close()
    locale("fr")
    assert main(["backup", "--db", str(db), str(copy)]) == 0
    line = capsys.readouterr().out
    # French: 0 takes the singular.
    assert re.fullmatch(rf"copie de {re.escape(str(db))} dans {re.escape(str(copy))} : "
                        r"0 match, 0 donne, 0 événement, \d+ Kio, intégrité vérifiée\n",
                        line), line
    import cv2

    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((240, 320, 3), 90, np.uint8))
    locale("it")
    assert main(["recognize", str(blank)]) == 0
    line = capsys.readouterr().out
    assert re.fullmatch(rf"{re.escape(str(blank))}: nessuna carta \(\d+\.\d ms\)\n", line), line
    assert main(["recognize", str(blank), "--json"]) == 0  # JSON keeps its own words
    assert '"cards": []' in capsys.readouterr().out


def test_a_port_in_use_is_said_in_the_terminals_language(tmp_path, capsys, locale):
    import socket

    from web_dashboard.listen import listen

    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    try:
        locale("it")
        assert refused(capsys, ["dashboard", "--host", "127.0.0.1", "--port", str(port),
                                "--db", str(tmp_path / "d.db")]) == \
            (f"briscola-table dashboard: la porta {port} è occupata (un'altra dashboard in "
             "funzione?): indicane un'altra")
        assert not (tmp_path / "d.db").exists()
        sock, note = listen("127.0.0.1", port, tries=5)
        with sock:
            other = sock.getsockname()[1]
        assert isinstance(note, Say)
        assert i18n.said("fr", note) == \
            f"le port {port} est occupé : le tableau de bord est sur le port {other}"
    finally:
        taken.close()


def test_a_bad_direction_or_variant_is_said_in_the_terminals_language(tmp_path, capsys,
                                                                       locale):
    from table_controller.engine.rules import Direction

    config = tmp_path / "table.toml"
    config.write_text('[table]\ndirection = "sideways"\n')
    locale("it")
    assert refused(capsys, ["run", "--config", str(config), "--offline"]) == \
        (f"briscola-table run: {config}: [table] direction: senso di gioco sconosciuto "
         "'sideways': usa 'ccw' o 'cw'")
    config.write_text('[table]\nvariants = ["swap9"]\n')
    locale("fr")
    assert refused(capsys, ["run", "--config", str(config), "--offline"]) == \
        (f"briscola-table run: {config} : [table] variants : variante inconnue 'swap9' : les "
         "variantes connues sont swap7, swap2")
    # The engine's own exception: a ValueError whose str is the English text.
    with pytest.raises(ValueError) as err:
        Direction.parse("sideways")
    assert str(err.value) == "unknown play direction 'sideways': use 'ccw' or 'cw'"


# -- --help in the terminal's language ------------------------------------------------------

def helped(capsys, monkeypatch, argv: list[str]) -> str:
    """What ``argv --help`` prints (exit 0), on a terminal 100 columns wide."""
    monkeypatch.setenv("COLUMNS", "100")
    assert main([*argv, "--help"]) == 0
    out, err = capsys.readouterr()
    assert not err
    return out


# A line of --help in each language: (command, {lang: line}).
HELP_LINES = [
    ([], {"it": "uso: briscola-table [-h] COMMAND ...",
          "fr": "utilisation : briscola-table [-h] COMMAND ...",
          "en": "usage: briscola-table [-h] COMMAND ..."}),
    ([], {"it": "Un arbitro per la Briscola giocata con carte vere su un tavolo strumentato.",
          "fr": "Un arbitre pour la Briscola jouée avec de vraies cartes sur une table "
                "instrumentée.",
          "en": "A referee for Briscola played with real cards on an instrumented table."}),
    ([], {"it": "argomenti posizionali:", "fr": "arguments positionnels:",
          "en": "positional arguments:"}),
    ([], {"it": "opzioni:", "fr": "options:", "en": "options:"}),
    ([], {"it": "  -h, --help       mostra questo aiuto ed esce",
          "fr": "  -h, --help       affiche cette aide et quitte",
          "en": "  -h, --help       show this help message and exit"}),
    ([], {"it": "    recognize      trova e nomina le carte nelle foto",
          "fr": "    recognize      trouve et nomme les cartes sur des photos",
          "en": "    recognize      find and name the cards in photos"}),
    (["demo"], {"it": "  --fast                il più veloce possibile invece che in tempo "
                      "reale, e uscire a fine partita",
                "fr": "  --fast                aussi vite que possible au lieu du temps réel, "
                      "et quitter à la fin du",
                "en": "  --fast                as fast as possible instead of real time, "
                      "and exit when the match is over"}),
    (["demo"], {"it": "  --match {1,3,5}       al meglio di 1, 3 o 5 smazzate (predefinito 3)",
                "fr": "  --match {1,3,5}       au meilleur de 1, 3 ou 5 donnes (par défaut 3)",
                "en": "  --match {1,3,5}       best of 1, 3 or 5 hands (default 3)"}),
]


@pytest.mark.parametrize("lang", ["it", "fr", "en"])
@pytest.mark.parametrize("argv", [[], ["demo"]])
def test_help_is_in_the_terminals_language(capsys, monkeypatch, locale, lang, argv):
    locale(lang)
    out = helped(capsys, monkeypatch, argv).splitlines()
    for line in [said[lang] for command, said in HELP_LINES if command == argv]:
        assert line in out, (line, out)


def test_the_demos_help_in_french_translates_its_faults_and_keeps_their_names(
        capsys, monkeypatch, locale):
    locale("fr")
    out = " ".join(helped(capsys, monkeypatch, ["demo"]).split())
    assert ("incidents (--fault) : out_of_turn: un joueur joue avant son tour, puis reprend "
            "la carte") in out
    assert "(par défaut 8 ; 0 avec --fast)" in out and "[--pause SECONDS]" in out


def test_the_english_help_keeps_its_words(capsys, monkeypatch, locale):
    locale("en")
    out = " ".join(helped(capsys, monkeypatch, ["demo"]).split())
    assert ("counting down (default 8; 0 with --fast)" in out
            and "faults (--fault): out_of_turn: a player plays before their turn" in out
            and "--port PORT the dashboard's port, 1-65535 (default 8000; 0: any free one)"
            in out)


def parser_texts(monkeypatch, lang: str) -> dict[tuple[str, str], str]:
    """Every help, description, epilog and group title of the whole parser tree, built
    in ``lang``'s locale, keyed by (command, option or part)."""
    from table_controller.cli import build_parser

    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", {"it": "it_IT", "fr": "fr_FR", "en": "C"}[lang] + ".UTF-8")
    texts: dict[tuple[str, str], str] = {}

    def walk(parser: argparse.ArgumentParser) -> None:
        for part in ("description", "epilog"):
            if getattr(parser, part):
                texts[(parser.prog, part)] = getattr(parser, part)
        for i, group in enumerate(parser._action_groups):
            texts[(parser.prog, f"group {i}")] = group.title
        for action in parser._actions:
            if action.help and action.help != argparse.SUPPRESS:
                texts[(parser.prog, "/".join(action.option_strings) or action.dest)] = \
                    action.help
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    texts[(parser.prog, "command " + choice.dest)] = choice.help
                for child in action.choices.values():
                    walk(child)

    walk(build_parser())
    return texts


# The same word in French and English: not a text left untranslated.
SAME_IN = {"fr": {"options", "photos (JPEG, PNG, ...)"}, "it": set()}


@pytest.mark.parametrize("lang", ["it", "fr"])
def test_every_help_of_every_command_is_translated(monkeypatch, lang):
    english = parser_texts(monkeypatch, "en")
    translated = parser_texts(monkeypatch, lang)
    assert english.keys() == translated.keys() and len(english) > 150  # the same tree
    left = [(key, text) for key, text in english.items()
            if translated[key] == text and text not in SAME_IN[lang]]
    assert not left, left


# -- the engine's event and record refusals, a deck file's ----------------------------------

@pytest.mark.parametrize("lang, text, expected", [
    ("it", 'hello world\n{"type": "play"}\n',
     "{path}: non si è potuta iniziare nessuna smazzata dai suoi 2 eventi (riga 1: JSON "
     "malformato: Expecting value (colonna 1))"),
    ("en", 'hello world\n{"type": "play"}\n',
     "{path}: no hand could be started from its 2 events (line 1: malformed JSON: Expecting "
     "value (column 1))"),
    ("fr", '[Event "x"]\n[Players "9"]\n\n1. 0:1d\n',
     "{path} : ligne 2 : l'en-tête Players doit être 2..6 (joueurs), pas '9'"),
    # a bad card code (a CardError, said inside the line in the same language)
    ("it", '[Event "x"]\n[Players "2"]\n[Dealer "1"]\n\n1. 0:1d 1:zz\n',
     "{path}: riga 5: elemento della registrazione errato '1:zz': codice di carta non valido "
     "'zz': atteso un valore da 1 a 10 e poi il seme d, c, s o b (es. '1d', '3c', '10s')"),
    ("fr", '[Event "x"]\n[Players "2"]\n[Dealer "1"]\n\n1. 0:1d 1:zz\n',
     "{path} : ligne 5 : élément d'enregistrement incorrect '1:zz' : code de carte invalide "
     "'zz' : attendu une valeur de 1 à 10 puis la couleur d, c, s ou b (par ex. '1d', '3c', "
     "'10s')"),
    ("en", '[Event "x"]\n[Players "2"]\n[Dealer "1"]\n\n1. 0:1d 1:zz\n',
     "{path}: line 5: bad record token '1:zz': invalid card code 'zz': expected rank 1-10 "
     "then suit d, c, s or b (e.g. '1d', '3c', '10s')"),
    ("it", '[Event "x"]\n[Players "3"]\n[Dealer "0"]\n[Removed "2d 3d"]\n\n1. 0:1d\n',
     "{path}: non si è potuta iniziare nessuna smazzata dai suoi 2 eventi (riga None: evento "
     "hand errato: in 3 giocatori si toglie dal mazzo esattamente 1 carta, non 2 (2d 3d))"),
    ("en", '[Event "x"]\n[Players "3"]\n[Dealer "0"]\n[Removed "2d 3d"]\n\n1. 0:1d\n',
     "{path}: no hand could be started from its 2 events (line None: bad hand event: 3 "
     "players remove exactly 1 card(s) from the deck, not 2 (2d 3d))"),
])
def test_a_bad_events_file_or_record_is_said_in_the_terminals_language(
        tmp_path, capsys, locale, lang, text, expected):
    events = tmp_path / "garbage.txt"
    events.write_text(text)
    locale(lang)
    assert refused(capsys, ["referee", "--events", str(events)]) == \
        "briscola-table referee: " + expected.format(path=events)


BAD_CARDS = '{"type":"hand","players":2}\n{"type":"trump","card":"1d"}\n' \
    '{"type":"play","seat":0,"card":"zz"}\n{"type":"play","seat":1,"card":7}\n'


@pytest.mark.parametrize("lang, expected", [
    ("it", ["  violazione riga 3: not_in_deck: codice di carta non valido 'zz': atteso un "
            "valore da 1 a 10 e poi il seme d, c, s o b (es. '1d', '3c', '10s')",
            "  violazione riga 4: not_in_deck: il codice di una carta deve essere un testo "
            "come '3c', non 7"]),
    ("fr", ["  violation ligne 3 : not_in_deck : code de carte invalide 'zz' : attendu une "
            "valeur de 1 à 10 puis la couleur d, c, s ou b (par ex. '1d', '3c', '10s')",
            "  violation ligne 4 : not_in_deck : le code d'une carte doit être un texte comme "
            "'3c', pas 7"]),
    # English: as before the card's refusals went through the catalogs.
    ("en", ["  violation line 3: not_in_deck: invalid card code 'zz': expected rank 1-10 then "
            "suit d, c, s or b (e.g. '1d', '3c', '10s')",
            "  violation line 4: not_in_deck: card code must be a string like '3c', not 7"]),
])
def test_a_bad_card_code_in_the_events_is_said_in_the_terminals_language(
        tmp_path, capsys, locale, lang, expected):
    import json

    events = tmp_path / "cards.jsonl"
    events.write_text(BAD_CARDS)
    locale(lang)
    assert main(["referee", "--events", str(events)]) == 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines() if "not_in_deck" in line] == expected
    assert main(["referee", "--json", "--events", str(events)]) == 0
    said = json.dumps(json.loads(capsys.readouterr().out))
    assert "invalid card code 'zz': expected rank 1-10 then suit d, c, s or b" in said


def test_a_card_error_is_english_and_said_in_each_language():
    from table_controller.engine.cards import Card, CardError, deck_for
    from table_controller.engine.hand import Hand
    from table_controller.engine.rules import HandRules

    with pytest.raises(CardError) as err:
        Card.parse("zz")
    assert str(err.value) == ("invalid card code 'zz': expected rank 1-10 then suit d, c, s "
                              "or b (e.g. '1d', '3c', '10s')")
    assert isinstance(err.value.args[0], Say)
    with pytest.raises(CardError) as err:
        deck_for(7)
    assert str(err.value) == "Briscola is played by 2 to 6 players, not 7"
    assert i18n.said("it", err.value) == "la Briscola si gioca da 2 a 6 giocatori, non 7"
    assert i18n.said("fr", err.value) == "la Briscola se joue de 2 à 6 joueurs, pas 7"
    with pytest.raises(CardError) as err:
        deck_for(6, [Card.parse("2d")])
    assert str(err.value) == "6 players remove exactly 4 card(s) from the deck, not 1 (2d)"
    assert i18n.said("it", err.value) == \
        "in 6 giocatori si tolgono dal mazzo esattamente 4 carte, non 1 (2d)"
    with pytest.raises(CardError) as err:
        deck_for(3, [])
    assert str(err.value) == "3 players remove exactly 1 card(s) from the deck, not 0 (none)"
    assert i18n.said("fr", err.value) == \
        "à 3 joueurs, on retire du jeu exactement 1 carte, pas 0 (aucune)"
    with pytest.raises(CardError) as err:
        Card.from_french("QX")
    assert str(err.value) == "invalid French suit in 'QX': expected D, H, S or C"
    assert i18n.said("it", err.value) == "seme francese non valido in 'QX': atteso D, H, S o C"
    # Hand's and HandRules' own refusals: English, said with seats from 1.
    with pytest.raises(ValueError) as err:
        Hand(HandRules(4), 7)
    assert str(err.value) == "dealer must be a seat 0..3, not 7"
    assert i18n.said("fr", err.value) == "le donneur doit être P1..P4, pas P8"
    with pytest.raises(ValueError) as err:
        HandRules(7)
    assert str(err.value) == "players must be 2, 3, 4, 5 or 6, not 7"
    assert i18n.said("it", err.value) == "i giocatori devono essere 2, 3, 4, 5 o 6, non 7"


def test_the_engines_refusals_stay_english_in_its_exceptions_and_the_json(tmp_path, capsys,
                                                                          locale):
    import json

    from table_controller.engine.events import event_from_json
    from table_controller.engine.record import RecordError, parse_records

    with pytest.raises(ValueError) as err:
        event_from_json('{"type": "play", "seat": 0}')
    assert str(err.value) == "'play' event needs a 'card' field"
    assert isinstance(err.value.args[0], Say)
    assert i18n.said("fr", err.value) == "l'événement 'play' demande un champ 'card'"
    with pytest.raises(RecordError) as err:
        parse_records("1. 0:1d\n")
    assert str(err.value) == 'line 1: a record starts with [Key "value"] headers'
    assert i18n.said("it", err.value) == \
        'riga 1: una registrazione inizia con intestazioni [Key "value"]'
    events = tmp_path / "e.txt"
    events.write_text('{"type":"hand","players":2}\n{"type":"trump","card":"1d"}\nnot json\n')
    locale("it")
    assert main(["referee", "--json", "--events", str(events)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "malformed JSON: Expecting value (column 1)" in json.dumps(doc)


def test_a_deck_file_that_cannot_be_used_is_said_in_the_terminals_language(tmp_path, capsys,
                                                                          locale):
    from vision.deck import DeckFileError, EnrolledDeck

    garbage = tmp_path / "garbage.txt"
    garbage.write_text("not a deck")
    photo = tmp_path / "photo.png"
    photo.write_bytes(b"")
    locale("it")
    assert refused(capsys, ["recognize", "--deck", str(garbage), str(photo)]) == \
        f"briscola-table recognize: --deck: {garbage} non è un file del mazzo creato da 'enroll'"
    locale("fr")
    assert refused(capsys, ["recognize", "--deck", str(tmp_path), str(photo)]) == \
        f"briscola-table recognize: --deck : {tmp_path} est un dossier, pas un fichier de jeu"
    with pytest.raises(DeckFileError) as err:
        EnrolledDeck.load(tmp_path / "none.npz")
    assert str(err.value) == f"deck file not found: {tmp_path / 'none.npz'}"
    assert i18n.said("it", err.value) == f"file del mazzo non trovato: {tmp_path / 'none.npz'}"


# -- the referee's account and its rule violations ------------------------------------------

ONE_VIOLATION = """\
{"type": "hand", "players": 2, "dealer": 1}
{"type": "trump", "card": "1d"}
{"type": "play", "seat": 0, "card": "3c"}
{"type": "play", "seat": 0, "card": "7c"}
{"type": "play", "seat": 1, "card": "7c"}
{"type": "collect"}
"""
# What `referee --events` printed for it before the account went through the catalogs.
ONE_VIOLATION_BEFORE = """\
Hand 1: 2 players, dealer P2, briscola 1d
  trick  1: P1 3c, P2 7c  -> P1 +10
  points: P1 10, P2 0
  unfinished: 1 trick played
  violation line 4: out_of_turn: P1 played 7c but it is P2's turn
Match: hands won 0-0
"""
ONE_VIOLATION_JSON = (
    '{"hands": [{"dealer": 1, "trump": "1d", "tricks": [{"leader": 0, "plays": [{"seat": 0, '
    '"card": "3c"}, {"seat": 1, "card": "7c"}], "winner": 0, "points": 10}], "points": [10, '
    '0], "team_points": null, "outcome": null, "winners": [], "complete": false, '
    '"violations": [{"line": 4, "kind": "out_of_turn", "seat": 0, "card": "7c", "message": '
    '"seat 0 played 7c but it is seat 1\'s turn"}], "players": 2, "variants": [], "removed": '
    '[], "teams": null, "reason": null, "current_trick": [], "briscola_taker": null, "swaps": '
    '[], "caller": null, "called": null, "bid": null, "partner": null, "notes": []}], '
    '"match": {"hands_won": [0, 0], "winner": null, "winners": [], "length": null, '
    '"hands_played": 0}}\n')


@pytest.mark.parametrize("lang, expected", [
    ("en", ONE_VIOLATION_BEFORE),
    ("it", """\
Smazzata 1: 2 giocatori, mazziere P2, briscola 1d
  presa  1: P1 3c, P2 7c  -> P1 +10
  punti: P1 10, P2 0
  non finita: 1 presa giocata
  violazione riga 4: out_of_turn: P1 ha giocato 7c ma è il turno di P2
Partita: smazzate vinte 0-0
"""),
    ("fr", """\
Donne 1 : 2 joueurs, donneur P2, briscola 1d
  pli  1 : P1 3c, P2 7c  -> P1 +10
  points : P1 10, P2 0
  inachevée : 1 pli joué
  violation ligne 4 : out_of_turn : P1 a joué 7c mais c'est le tour de P2
Match : donnes gagnées 0-0
"""),
])
def test_the_referees_account_is_in_the_terminals_language(tmp_path, capsys, locale, lang,
                                                           expected):
    events = tmp_path / "hand.jsonl"
    events.write_text(ONE_VIOLATION)
    locale(lang)
    assert main(["referee", "--events", str(events)]) == 0
    assert capsys.readouterr().out == expected
    assert main(["referee", "--json", "--events", str(events)]) == 0
    assert capsys.readouterr().out == ONE_VIOLATION_JSON  # English, 0-based, as before


RICH = """\
{"type": "hand", "players": 4, "dealer": 3, "variants": ["swap7"]}
{"type": "trump", "card": "1d"}
{"type": "play", "seat": 0, "card": "3c"}
{"type": "play", "seat": 1, "card": "5c"}
{"type": "play", "seat": 2, "card": "1c"}
{"type": "play", "seat": 3, "card": "2c"}
{"type": "collect"}
{"type": "swap", "seat": 2, "card": "7d"}
{"type": "play", "seat": 7, "card": "4s"}
{"type": "play", "seat": 1, "card": "3c"}
{"type": "collect"}
{"type": "hand", "players": 4, "dealer": 1}
{"type": "trump", "card": "5s"}
{"type": "play", "seat": 2, "card": "5s"}
"""
RICH_BEFORE = """\
Hand 1: 4 players, dealer Dario (P4), briscola 1d, variants swap7
  trick  1: Ada 3c, Bruno 5c, Carla 1c, Dario 2c  -> Carla (P3) +21
  swap after trick 1: Carla (P3) put 7d face up
  points: Ada (P1) 0, Bruno (P2) 0, Carla (P3) 21, Dario (P4) 0
  teams: P1+P3 21  vs  P2+P4 0
  unfinished: 1 trick played
  violation line 9: bad_event: play by P8: seats are P1..P4 with 4 players
  violation line 10: duplicate_card: 3c was already played this hand
  violation line 11: bad_event: collect with no trick on the table
Hand 2: 4 players, dealer Bruno (P2), briscola 5s
  points: Ada (P1) 0, Bruno (P2) 0, Carla (P3) 0, Dario (P4) 0
  teams: P1+P3 0  vs  P2+P4 0
  unfinished: 0 tricks played
  note line 12: dealer_out_of_rotation: P2 deals this hand; by the rotation it was P4's deal \
(the same dealer redeals an abandoned hand)
  violation line 14: duplicate_card: 5s is the face-up briscola, still lying under the stock
Match: hands won 0-0-0-0
"""


def test_a_richer_account_in_english_is_as_before_and_translated_in_it(tmp_path, capsys,
                                                                        locale):
    events = tmp_path / "rich.jsonl"
    events.write_text(RICH)
    argv = ["referee", "--events", str(events), "--names", "Ada,Bruno,Carla,Dario"]
    locale("en")
    assert main(argv) == 0
    assert capsys.readouterr().out == RICH_BEFORE
    locale("it")
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Smazzata 1: 4 giocatori, mazziere Dario (P4), briscola 1d, varianti swap7"
    assert out[2] == "  scambio dopo la presa 1: Carla (P3) ha scoperto 7d"
    assert out[4] == "  squadre: P1+P3 21  contro  P2+P4 0"
    assert out[6] == ("  violazione riga 9: bad_event: play da P8: i posti sono P1..P4 con 4 "
                      "giocatori")
    assert out[12] == "  non finita: 0 prese giocate"
    assert out[13] == ("  nota riga 12: dealer_out_of_rotation: P2 dà le carte in questa "
                       "smazzata; secondo il giro toccava a P4 (lo stesso mazziere ridà le "
                       "carte di una smazzata abbandonata)")
    locale("fr")
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[12] == "  inachevée : 0 pli joué"  # French: 0 is singular
    assert out[-1] == "Match : donnes gagnées 0-0-0-0"


BAD_LINES = [  # each refused by the referee, with what it says
    '{"type": "hand", "players": 2, "dealer": 5}',
    '{"type": "hand", "players": 2, "dealer": 0, "variants": ["swap7", "swap2"]}',
    '{"type": "undo"}',
    '{"type": "undo"}',
    '{"type": "collect"}',
    '{"type": "play", "seat": 1, "card": "3c"}',
    '{"type": "trump", "card": "1d"}',
    '{"type": "trump", "card": "2d"}',
    '{"type": "play", "seat": 0, "card": "3c"}',
    '{"type": "play", "seat": 1, "card": "1d"}',
    '{"type": "play", "seat": 9, "card": "4c"}',
    '{"type": "swap", "seat": 1, "card": "7d"}',
    '{"type": "swap", "seat": 0, "card": "5d"}',
    '{"type": "collect"}',
    '{"type": "play", "seat": 0, "card": "3c"}',
    '{"type": "correct", "seat": 0, "card": "3c"}',
    '{"type": "call", "seat": 0, "card": "1c", "points": 61}',
    '{"type": "hand", "players": 4}',
]


def test_every_rule_violation_is_said_with_seats_from_1_in_every_language():
    from table_controller.engine.referee import Referee
    from table_controller.engine.seats import player_labels
    from table_controller.engine.words import Seat

    referee = Referee(players=2)
    for n, line in enumerate(BAD_LINES, 1):
        referee.feed_json(line, n)
    messages = [v.message for v in referee.violations]
    said = [m for m in messages if isinstance(m, Say)]
    assert len(said) >= 12, messages
    for m in said:
        person = m.for_people()
        # English: exactly the referee's words with its seats as labels, as before.
        assert str(person) == player_labels(str(m))
        assert i18n.said("en", person) == str(person) == i18n.said("en", m)
        for lang in ("it", "fr"):
            text = i18n.said(lang, person)
            assert text != str(person) and text == i18n.said(lang, m), (lang, m)
            assert not re.search(r"(?i)\b(seats?|posto|places?) \d", text), text
    assert "play by seat 9: seats are 0..1 with 2 players" in messages  # the JSON's words
    assert i18n.said("fr", messages[messages.index("play by seat 9: seats are 0..1 with 2 "
                                                   "players")]) == \
        "play par P10 : les places sont P1..P2 à 2 joueurs"
    assert i18n.said("it", messages[-5]) == \
        "raccolta con la presa incompleta: carte giocate 1 su 2"
    out_of_turn = Say("{player} played {card} but it is {turn}'s turn", player=Seat(1),
                      card="7c", turn=Seat(0))
    assert out_of_turn == "seat 1 played 7c but it is seat 0's turn"  # the JSON's words
    assert i18n.said("it", out_of_turn) == "P2 ha giocato 7c ma è il turno di P1"
    assert i18n.said("fr", out_of_turn.for_people(["Ada", "Bruno"].__getitem__)) == \
        "Bruno a joué 7c mais c'est le tour de Ada"


def test_a_refusal_without_a_phrase_of_its_own_is_said_on_the_terminal_in_its_language():
    import argparse

    from table_controller.cli.table import TerminalReport
    from table_controller.engine.referee import Referee

    ref = Referee(players=2, dealer=1)
    ref.feed_json('{"type": "hand", "players": 2, "dealer": 1}')
    ref.feed_json('{"type": "trump", "card": "1d"}')
    ref.feed_json('{"type": "play", "seat": 0, "card": "3c"}')
    bad = ref.feed_json('{"type": "correct", "seat": 0, "card": "3c"}').violation
    controller = argparse.Namespace(referee=ref)
    assert TerminalReport(controller, ["Ada", "Bruno"], lang="it").violation(bad) == \
        "  ! bad_event: niente da correggere: la carta di Ada è già 3c"
    assert TerminalReport(controller, ["Ada", "Bruno"], lang="fr").violation(bad) == \
        "  ! bad_event: rien à corriger : la carte de Ada est déjà 3c"
    # In English the referee's words, its seats named where the line is printed (say()).
    assert TerminalReport(controller, ["Ada", "Bruno"], lang="en").violation(bad) == \
        "  ! bad_event: nothing to correct: seat 0's card is already 3c"


def test_an_accounts_results_agree_with_their_winners_in_every_language():
    import json

    from table_controller.engine.report import text_report

    doc = json.loads(ONE_VIOLATION_JSON)
    hand = doc["hands"][0]
    hand.update(complete=True, outcome="win", winners=[0, 2], violations=[])
    doc["match"].update(winner=0, winners=[0, 2])
    english = text_report(doc, ["Ada", "Bruno", "Carla"])
    assert english.splitlines()[-2:] == ["  result: Ada (P1) and Carla (P3) win",
                                         "Match: hands won 0-0; the match goes to Ada (P1) "
                                         "and Carla (P3)"]
    assert text_report(doc, ["Ada", "Bruno", "Carla"], lambda s: i18n.said("en", s)) == english
    lines = text_report(doc, ["Ada", "Bruno", "Carla"], lambda s: i18n.said("it", s))
    assert lines.splitlines()[-2:] == ["  risultato: vincono Ada (P1) e Carla (P3)",
                                       "Partita: smazzate vinte 0-0; la partita va a Ada (P1) "
                                       "e Carla (P3)"]
    hand.update(winners=[1])
    assert text_report(doc, None, lambda s: i18n.said("fr", s)).splitlines()[-2] == \
        "  résultat : P2 gagne"
    assert text_report(doc).splitlines()[-2] == "  result: P2 wins"
