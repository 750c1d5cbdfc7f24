"""The board display speaks the table's language: every word from the catalogs fits the
128x64 screen in Italian, English and French, the firmware's table (core/words.h) is the
catalogs', and the host's texts on it (a violation, a dealer note) are in that language
too. The C twin draws the same pixels: tests/test_display_backends.py."""

import pytest

from firmware_bridge import words as W
from firmware_bridge.indicators import Indicators
from firmware_bridge.screen import CELL_WIDTH, WIDTH, render, trick_label, trump_label
from firmware_bridge.table_state import ERROR_CHARS, ERROR_TITLES, LINE_CHARS, TableState
from table_controller.engine.cards import Card
from table_controller.engine.events import HandStart, Play, Trump
from table_controller.engine.referee import Referee


@pytest.mark.parametrize("lang", W.LANGUAGES)
def test_every_word_fits_the_screen(lang):
    w = W.words(lang)
    assert set(w) == set(W.WORDS) | set(W.HOST_WORDS)
    for key, text in w.items():
        assert text.isascii() and "%" not in text, (lang, key, text)
        assert W.placeholders(text) == W.placeholders({**W.WORDS, **W.HOST_WORDS}[key]), key
    worst = {"player": "P6", "n": "20", "total": "20", "players": "6", "turn": "P6",
             "card": "10b", "suit": "", "rank": ""}
    for key in ("waiting", "link_down", "title", "no_hand", "trump_none", "last_trick",
                "leads", "leads_n", "dealer", "note_title", "note_dealt", "note_expected"):
        assert len(w[key].format(**worst)) <= LINE_CHARS, (lang, key, w[key])
    for kind in range(1, 10):
        assert len(f"! {w[f'error_{kind}']} P6") <= LINE_CHARS, (lang, kind)
    assert len(w["turn"].format(player="P6")) * 2 * CELL_WIDTH <= WIDTH, lang  # big font
    assert 2 * CELL_WIDTH * len(w["win"]) + 6 + CELL_WIDTH * len("P1 P3 P5") <= WIDTH
    assert len(w["tie"]) * 2 * CELL_WIDTH <= WIDTH
    # (with 6 players the draw order runs past the edge in English too: 23 characters)
    assert len(w["draw"] + " P1 P2 P3 P4") <= LINE_CHARS
    assert len(w["teams"] + " 120 120 120") <= LINE_CHARS
    for key in W.HOST_WORDS:
        if key.startswith("msg_"):
            assert len(w[key].format(**worst)) <= ERROR_CHARS, (lang, key)
    for suit in "dcsb":  # the trump line always fits, in one of its forms
        for rank in range(0, 11):
            state = TableState(players=2, trump_suit=suit, trump_rank=rank,
                               language=W.language_index(lang))
            assert len(trump_label(state)) <= LINE_CHARS, (lang, suit, rank)


def test_english_is_the_source_and_the_board_starts_in_it():
    assert W.words("en") == {k: v for k, v in {**W.WORDS, **W.HOST_WORDS}.items()}
    assert [W.WORDS[f"error_{k}"] for k in range(1, 10)] == list(ERROR_TITLES.values())
    assert TableState().language == 0 and W.LANGUAGES[0] == "en"
    assert W.words("de") == W.words("en")


def test_the_display_reads_italian_and_french():
    it, fr = W.language_index("it"), W.language_index("fr")
    assert trump_label(TableState(players=2, trump_suit="c", trump_rank=10, language=it)) == \
        "Briscola: Re di coppe"
    assert trump_label(TableState(players=2, trump_suit="b", trump_rank=9, language=it)) == \
        "Cavallo bastoni"  # the long forms would not fit
    assert trump_label(TableState(players=2, trump_suit="s", trump_rank=1, language=fr)) == \
        "Atout : As de epees"  # ASCII: the display's font has no accents
    assert trick_label(TableState(players=2, trick_seat=0, trick_no=16, language=it)) == \
        "P1 apre presa 17/20"
    assert trick_label(TableState(players=4, trick_seat=2, trick_no=3, language=fr)) == \
        "P3 entame pli 4/10"
    # Different words, different pixels; English unchanged.
    state = TableState(players=2, dealer=1, turn=0)
    frames = [render(state.replace(language=i)) for i in range(3)]
    assert (frames[0] != frames[1]).any() and (frames[1] != frames[2]).any()


def test_the_host_writes_the_tables_language_on_the_display():
    ind = Indicators()
    ind.language("it")
    referee = Referee(players=2)
    ind.apply(referee.feed(HandStart(players=2, dealer=1)), referee.hand)
    assert ind.state.language == 1  # kept through the new hand
    ind.apply(referee.feed(Trump(Card.parse("5s"))), referee.hand)
    d = referee.feed(Play(1, Card.parse("7c")))  # P2 before P1
    ind.apply(d, referee.hand)
    assert ind.state.error_kind == 1 and ind.state.error_seat == 1
    assert ind.state.error_text == "P2 ha giocato 7c: tocca a P1"
    assert "seat" not in ind.state.error_text
    # A dealer out of rotation, in Italian.
    d = referee.feed(HandStart(players=2, dealer=1))  # abandoned, redealt by the same: fine
    ind.apply(d, referee.hand)
    assert ind.state.text == ()
    ind.language("fr")
    d = referee.feed(HandStart(players=2, dealer=0))
    assert d.note is not None
    ind.apply(d, referee.hand)
    assert ind.state.text == ("DONNEUR HORS TOUR", "P1 distribue ;", "c'etait a P2")
    ind.clear()
    assert ind.state.language == 2  # a clear keeps the table's language
    ind.language("xx")
    assert ind.state.language == 0
