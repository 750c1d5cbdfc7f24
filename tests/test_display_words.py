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
                "leads", "leads_n", "dealer", "note_title", "note_dealt", "note_expected",
                "sample_press", "sample_start"):
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


# -- every line the display draws fits its width, 2..6 players, in it, en and fr ---------

def drawn_lines(state, monkeypatch):
    """What the renderer writes for ``state``: (x, y, text, scale) of each call."""
    from firmware_bridge import screen

    calls = []
    text = screen.Canvas.text

    def recording(self, x, y, s, scale=1, value=1):
        calls.append((x, y, s, scale))
        return text(self, x, y, s, scale, value)

    monkeypatch.setattr(screen.Canvas, "text", recording)
    screen.render(state)
    monkeypatch.undo()
    return calls


def right_edge(x, s, scale):
    """The last lit column's right edge: the font's cells, the last one without its gap."""
    from firmware_bridge.font import GLYPH_WIDTH

    return x + (len(s) - 1) * CELL_WIDTH * scale + GLYPH_WIDTH * scale if s else x


def scenes(players, language):
    from firmware_bridge.screen import TRICKS_PER_HAND

    last = players - 1
    tricks = TRICKS_PER_HAND[players]
    winners = tuple(range(0, players, 2)) if players in (4, 6) else (0, 1)[:min(2, players)]
    team_points = (120, 120, 120)[: 3 if players == 6 else 2] if players >= 4 else ()
    base = TableState(players=players, dealer=last, turn=last, language=language)
    for suit in "dcsb":
        for rank in (0, 1, 7, 8, 9, 10):
            yield base.replace(trump_suit=suit, trump_rank=rank, trick_seat=last,
                               trick_no=tricks - 2,
                               draw_order=tuple((last + i) % players for i in range(players)))
    yield base.replace(trick_seat=None)  # before the first trick
    yield base.replace(trick_seat=last, trick_no=tricks)  # the last trick
    yield base.replace(outcome=1, winners=winners, points=(120,) * players,
                       team_points=team_points, turn=None)
    yield base.replace(outcome=2, points=(60,) * players, turn=None)
    for kind in range(1, 10):
        yield base.replace(error_kind=kind, error_seat=last, error_text="x" * ERROR_CHARS)
    yield TableState(language=language)  # no hand yet


@pytest.mark.parametrize("lang", W.LANGUAGES)
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_line_the_display_draws_fits_its_width(lang, players, monkeypatch):
    from firmware_bridge.screen import HEIGHT

    for state in scenes(players, W.language_index(lang)):
        lines = drawn_lines(state, monkeypatch)
        assert lines
        for x, y, s, scale in lines:
            assert right_edge(x, s, scale) <= WIDTH, (lang, players, s, state)
            assert y + 7 * scale <= HEIGHT, (lang, players, s)
    # The draw order: whole when it fits, else its first drawers and "..." (6 players).
    from firmware_bridge.screen import draw_label

    order = tuple((1 + i) % players for i in range(players))
    label = draw_label(TableState(players=players, draw_order=order,
                                  language=W.language_index(lang)))
    whole = " ".join([W.words(lang)["draw"]] + [f"P{s + 1}" for s in order])
    if players <= 4:  # (5 players, chiamata, have no stock to draw from)
        assert label == whole
    if len(whole) > LINE_CHARS:
        assert label.endswith(" ...")
        assert whole.startswith(label[:-len(" ...")]) and len(label.split()) >= 4


def test_six_drawers_in_each_language():
    state = TableState(players=6, dealer=0, turn=1, trick_seat=4, trick_no=2,
                       draw_order=(4, 5, 0, 1, 2, 3))
    from firmware_bridge.screen import draw_label

    assert [draw_label(state.replace(language=W.language_index(lang)))
            for lang in ("en", "it", "fr")] == [
        "Draw: P5 P6 P1 P2 ...", "Pesca: P5 P6 P1 ...", "Pioche : P5 P6 P1 ..."]
    # Four drawers fit whole.
    assert draw_label(TableState(players=4, draw_order=(2, 3, 0, 1))) == "Draw: P3 P4 P1 P2"


@pytest.mark.parametrize("lang", W.LANGUAGES)
def test_the_buttons_questions_fit_a_line(lang):
    """The host's lines on the display (table_controller.buttons, the held cards): each
    one fits the line before the display would cut it."""
    from firmware_bridge.screen import wrap
    from table_controller.buttons import NAME_CHARS

    w = W.words(lang)
    who = max(w["briscola"], "P6", key=len)
    lines = [w["undo_next"], w["undo_back"], w["undo_cancel"], w["new_hand_leave"],
             w["auction"], w["call_refused"], w["names_no_store"], w["names_at_end"],
             w["names_none_seen"], w["names_set"], w["names_refused"], w["nothing_to_fix"],
             w["undo_next_of"].format(n=31, total=31), w["ask_caller"].format(player="P6"),
             w["ask_rank"].format(player="P6", rank=10), w["ask_bid"].format(n=120),
             w["fix"].format(player="P6", was="10b", card="10b"),
             w["hold_more"].format(n=5), w["pick_refused"].format(player=who, card="10b"),
             w["not_possible"].format(card="10b"), w["fix_refused"].format(card="10b"),
             f"P6: {w['no_name']}?", "P6: " + "x" * NAME_CHARS + "?"]
    lines += [w["ask_card"].format(rank=10, suit=w[f"suit_{s}"]) for s in "dcsb"]
    lines += [w["hint"].format(gesture=w[f"gesture_{g}"], action=w[f"action_{a}"])
              for g in ("hold", "both", "twice") for a in ("name", "set", "send")]
    for line in lines:
        assert line.isascii() and len(line) <= LINE_CHARS, (lang, line, len(line))
    # A held card's words: three lines when more wait (the fourth says how many).
    for reason in ("missing", "mismatch", "unplaced", "unknown"):
        text = w[f"hold_{reason}"].format(player=who, card="10b")
        assert len(wrap(text, max_lines=99)) <= 3, (lang, reason, wrap(text, max_lines=99))


def guided_display_texts():
    """The display's lines of the guided enrollment (vision/guided.py), as pybabel finds
    them (babel.cfg's keywords): every ``say_in("display", ...)`` and ``say_n``."""
    from pathlib import Path

    from babel.messages.extract import extract_from_file

    path = Path(__file__).resolve().parents[1] / "vision" / "guided.py"
    found = [(context, message) for _line, message, _comments, context in extract_from_file(
        "python", str(path), keywords={"say_in": ((1, "c"), 2), "say_n": (1, 2)})]
    assert len(found) >= 12, found
    return found


@pytest.mark.parametrize("lang", W.LANGUAGES)
def test_the_enrollments_display_lines_fit_a_line(lang):
    """Each request and refusal of the guided enrollment on the display, with its widest
    values (a 3-character code, 41 cards), fits the line in ASCII."""
    from web_dashboard.i18n import translations

    t = translations(lang)
    worst = {"card": "10b", "other": "10b", "n": 41, "total": 41}
    texts = guided_display_texts()
    for context, message in texts:
        if isinstance(message, tuple):  # a plural: each form
            lines = [t.ngettext(*message, n) for n in (1, 2, 41)]
        else:
            assert context == "display", message
            lines = [t.pgettext(context, message)]
        for line in lines:
            line = W.fold(line.format(**worst))
            assert len(line) <= LINE_CHARS and "?" not in line, (lang, message, line)
