"""The gettext catalogs (it, en, fr): complete, compiled as committed, plurals and
team agreement right, and no 0-based seat in any language."""

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from web_dashboard import create_app, i18n

ROOT = Path(__file__).resolve().parents[1]
LANGS = ("it", "en", "fr")


def po(lang):
    with open(i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f, locale=lang)


def entries(catalog):
    def key(v):
        return tuple(v) if isinstance(v, list | tuple) else v
    return {(m.context, key(m.id)): key(m.string) for m in catalog if m.id}


def extracted():
    """What pybabel extract finds in the code and templates, with babel.cfg's keywords."""
    with open(ROOT / "babel.cfg") as f:
        method_map, options_map = parse_mapping_cfg(f)
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(
            str(ROOT), method_map, options_map):
        found.add((context, message if isinstance(message, str) else tuple(message)))
    return found


def forms(value):
    return list(value) if isinstance(value, tuple) else [value]


def test_every_message_in_the_code_has_it_en_and_fr():
    used = extracted()
    assert len(used) > 150  # the pages, the terminal, the display
    # ... and what the lower floors say (Say, say_in, say_n), argparse's refusals.
    assert {(None, "unknown key (misspelt?)"), ("display", "Show {card}"),
            (None, "Show {card_name} ({card})"), (None, "expected one argument"),
            (None, ("{n} card", "{n} cards")),
            # every command's --help, and argparse's own words in it
            (None, "as fast as possible instead of real time, and exit when the match is over"),
            (None, "show this help message and exit"), (None, "usage: "),
            # the engine's event and record refusals, a deck file's (Say)
            (None, "malformed JSON: {problem} (column {column})"),
            (None, "line {line}: {event} does not replay: {problem}"),
            (None, "{path} is not a deck file made by 'enroll'"),
            # the referee's account and its rule violations (Say)
            (None, ("Hand {hand}: {n} player, dealer {dealer}",
                    "Hand {hand}: {n} players, dealer {dealer}")),
            (None, ("unfinished: {n} trick played", "unfinished: {n} tricks played")),
            (None, ("result: {players} wins", "result: {players} win")),
            (None, "violation line {line}: {kind}: {message}"),
            (None, "{player} played {card} but it is {turn}'s turn"),
            (None, "{card} is in {holder}'s hand, not {player}'s"),
            (None, "the match is over: won by {players}"),
            # a card's refusals (CardError), Hand's and its rules' own (Say)
            (None, "card code must be a string like '3c', not {value}"),
            (None, "Briscola is played by 2 to 6 players, not {players}"),
            (None, ("{players} players remove exactly {n} card(s) from the deck, not {count} "
                    "({cards})",) * 2),
            (None, "players must be 2, 3, 4, 5 or 6, not {value}"),
            (None, "{path} {problem}; nothing in it was changed (--reset-store moves it "
                   "aside to a dated name and starts a new store)")} <= used
    for lang in LANGS:
        catalog = entries(po(lang))
        missing = used - set(catalog)
        assert not missing, f"{lang}: not in the catalog: {sorted(missing, key=str)[:5]}"
        for key in used:
            assert all(forms(catalog[key])), f"{lang}: {key} is not translated"
        assert not [m.id for m in po(lang) if m.id and m.fuzzy], f"{lang}: fuzzy entries"


def test_the_committed_mo_is_the_po_compiled():
    for lang in LANGS:
        with open(i18n.TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo", "rb") as f:
            compiled = entries(read_mo(f))
        source = {k: v for k, v in entries(po(lang)).items() if all(forms(v))}
        assert compiled == source, f"{lang}: messages.mo is stale: run pybabel compile"


def test_translations_keep_the_placeholders():
    for lang in LANGS:
        for m in po(lang):
            if not m.id:
                continue
            ids = forms(m.id)
            want = set(re.findall(r"{(\w+)}", ids[-1]))
            for text in forms(m.string):
                got = set(re.findall(r"{(\w+)}", text))
                # A singular may write the count out ("one card") but names no other field.
                assert got == want or (len(ids) == 2 and got <= want), (lang, m.id, text)


def test_no_text_in_any_language_shows_a_0_based_seat():
    seat_number = re.compile(r"(?i)\b(seats?|posto|posti|places?|joueur|giocatore|player)"
                             r"\s*#?\d|\bP0\b|#0\b|{seat}")
    for lang in LANGS:
        for m in po(lang):
            # --call's and --dealer's help explain the command line's SEAT, counted from 0.
            if "counted from 0" in forms(m.id)[0]:
                continue
            for text in forms(m.id) + forms(m.string):
                assert not seat_number.search(text or ""), (lang, text)
    # People are named, else numbered from 1.
    assert i18n.seat_name([], 0) == "P1" and i18n.seat_name(["Ada", ""], 1) == "P2"
    assert i18n.seat_name(["Ada", "Bruno"], 0) == "Ada"


@pytest.mark.parametrize("lang, expected", [
    ("it", ["0 smazzate vinte", "1 smazzata vinta", "2 smazzate vinte"]),
    ("en", ["0 hands won", "1 hand won", "2 hands won"]),
    ("fr", ["0 donne gagnée", "1 donne gagnée", "2 donnes gagnées"]),  # French: 0 is one
])
def test_plural_forms_for_0_1_2(lang, expected):
    assert [i18n.hands_won(lang, n) for n in (0, 1, 2)] == expected


def test_plurals_of_tricks_and_cards():
    assert i18n.tricks_played("en", 1, 19) == "1 trick played, 19 to go"
    assert i18n.tricks_played("en", 2, 18) == "2 tricks played, 18 to go"
    assert i18n.tricks_played("it", 1, 19) == "1 presa giocata, 19 da giocare"
    assert i18n.tricks_played("it", 0, 20) == "0 prese giocate, 20 da giocare"
    assert i18n.tricks_played("fr", 2, 18) == "2 plis joués, 18 à jouer"
    assert i18n.trn("fr", "{n} card", "{n} cards", 1) == "1 carte"
    assert i18n.trn("it", "{n} card", "{n} cards", 1) == "1 carta"
    assert i18n.trn("it", "{n} card", "{n} cards", 30) == "30 carte"


@pytest.mark.parametrize("lang, one, team, three", [
    ("en", "Ada wins the match!", "Ada and Carla win the match!",
     "Ada, Bruno and Carla win the match!"),
    ("it", "Ada vince la partita!", "Ada e Carla vincono la partita!",
     "Ada, Bruno e Carla vincono la partita!"),
    ("fr", "Ada gagne le match !", "Ada et Carla gagnent le match !",
     "Ada, Bruno et Carla gagnent le match !"),
])
def test_teams_agree_with_the_verb(lang, one, team, three):
    assert i18n.wins_match(lang, ["Ada"]) == one
    assert i18n.wins_match(lang, ["Ada", "Carla"]) == team
    assert i18n.wins_match(lang, ["Ada", "Bruno", "Carla"]) == three
    assert i18n.wins_hand("en", ["Ada", "Carla"]) == "Ada and Carla win the hand!"
    assert i18n.wins_hand("it", ["Ada"]) == "Ada vince la smazzata!"


def test_the_script_gets_every_form_and_the_catalogs_rule():
    fr, it = i18n.catalogue("fr"), i18n.catalogue("it")
    # The script picks forms[plural[n]]: the same words as the server's.
    for cat, lang in ((fr, "fr"), (it, "it")):
        for n in (0, 1, 2, 20):
            assert cat["hands_won"][cat["plural"][n]].format(n=n) == i18n.hands_won(lang, n)
    assert fr["briscola_spot"] == "Atout retourné" and it["briscola_spot"] == "Briscola"
    assert it["suit_c"] == "coppe" and fr["rank_9"] == "Cavalier"
    script = (ROOT / "web_dashboard" / "static" / "live.js").read_text()
    used = set(re.findall(r'\bt\("(\w+)"(?!\s*\+)', script))
    assert used and not used - set(fr), sorted(used - set(fr))


def test_the_page_language_comes_from_flask_babel_locale_selector(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "t.db"), "TESTING": True})
    client = app.test_client()
    assert "Nessuna partita in corso." in client.get("/").get_data(True)  # the table's
    assert "No match in progress." in client.get(
        "/", headers={"Accept-Language": "en-GB,en;q=0.8"}).get_data(True)
    client.get("/lang/fr")
    assert "Aucune partie en cours." in client.get(
        "/", headers={"Accept-Language": "en"}).get_data(True)  # the cookie wins
    with app.test_request_context("/", headers={"Accept-Language": "fr-CH"}):
        from flask_babel import get_locale
        assert str(get_locale()) == "fr"
        assert i18n._("Hand {n}", n=2) == "Donne 2"
        assert i18n.ngettext("{n} card", "{n} cards", 2) == "2 cartes"


def test_a_language_without_a_catalog_reads_english():
    assert i18n.tr("de", "Hand {n}", n=3) == "Hand 3"


def test_every_plural_agrees_with_its_count_in_each_language():
    """Each text with a plural (the terminal's and the commands' too) reads 1 with its
    singular and 2 with its plural, and French 0 with its singular, wherever the two
    English forms differ or the language's do."""
    for lang in ("it", "fr"):
        t = i18n.translations(lang)
        for m in po(lang):
            if not m.id or not isinstance(m.id, tuple):
                continue
            one, many = m.string[0], m.string[t.plural(2)]
            assert t.ngettext(*m.id, 1) == one and t.ngettext(*m.id, 2) == many, (lang, m.id)
            if m.id[0] != m.id[1]:
                assert one != many, (lang, m.id, "one form for 1 and 2")
            if lang == "fr":
                assert t.ngettext(*m.id, 0) == one, m.id
    # The commands' own counts, as the terminal prints them.
    assert i18n.trn("it", "{path}: no hand could be started from its {n} event",
                    "{path}: no hand could be started from its {n} events", 1, path="x") == \
        "x: non si è potuta iniziare nessuna smazzata dal suo 1 evento"
    assert i18n.trn("fr", "--names gives {n} name for {players} players",
                    "--names gives {n} names for {players} players", 0, players=2) == \
        "--names donne 0 nom pour 2 joueurs"


def test_french_card_names_elide_de_before_a_vowel():
    assert i18n.card_name("fr", "10s") == "Roi d'épées"
    assert i18n.card_name("fr", "1s") == "As d'épées"
    assert i18n.card_name("fr", "7c") == "7 de coupes"  # no vowel: no elision
    assert i18n.card_name("it", "10s") == "Re di spade"
    assert i18n.card_name("en", "10s") == "King of swords"
