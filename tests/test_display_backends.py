"""The display: the same 128x64 pixels from Python (PNG, luma) and from the firmware's OLED."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.display import BoardDisplay, ImageDisplay, LumaDisplay, read_png
from firmware_bridge.emulator import Emulator, build, compiler
from firmware_bridge.link import BoardLink
from firmware_bridge.screen import from_pages, render, to_pages, wrap
from firmware_bridge.table_state import BLANK, TableState

SCENES = [
    BLANK,
    TableState(players=2, dealer=1, turn=0),
    TableState(players=4, dealer=1, turn=2, trick_seat=1, trick_no=3, draw_order=(1, 2, 3, 0),
               trump_suit="s", trump_rank=9),
    TableState(players=3, dealer=0, trump_suit="b", trump_rank=0, turn=None, trick_seat=2),
    TableState(players=2, trump_suit="d", trump_rank=1, error_kind=1, error_seat=1,
               error_text="P2 played 7c, but it is P1's turn to play"),  # as Indicators sends it
    TableState(players=2, error_kind=2, error_text="x" * 60),
    TableState(players=2, error_kind=9, error_text="a" * 25 + " " + "b" * 30),
    TableState(text=("Briscola!", "", "~ all printable ~", "0123456789abcdefghijk")),
    TableState(players=6, outcome=1, winners=(0, 2, 4), points=(20, 21, 22, 19, 18, 20),
               team_points=(63, 57), trump_suit="c", trump_rank=10),
    TableState(players=3, outcome=2, points=(40, 40, 40)),
    TableState(players=5, dealer=4, turn=5, trick_seat=0, trick_no=255,
               draw_order=(0, 1, 2, 3, 4, 5), trump_suit="c", trump_rank=7),
    # Six drawers do not fit the line: the first ones and "..." (screen.draw_label).
    TableState(players=6, dealer=2, turn=4, trick_seat=4, trick_no=2,
               draw_order=(4, 5, 0, 1, 2, 3), trump_suit="s", trump_rank=3),
]
# The same in Italian and French (the LANGUAGE message; words from the catalogs).
SCENES += [scene.replace(language=lang) for lang in (1, 2) for scene in SCENES[1:]]


def test_page_layout_round_trip_and_bit_order():
    frame = np.zeros((64, 128), dtype=np.uint8)
    frame[9, 3] = 1  # page 1, bit 1
    pages = to_pages(frame)
    assert pages[128 + 3] == 0b10 and sum(pages) == 2
    assert (from_pages(pages) == frame).all()


def test_layout_basics():
    f = render(BLANK)
    assert f.shape == (64, 128) and set(np.unique(f)) <= {0, 1}
    assert f[0].all()  # the header bar
    assert wrap("aaa bbb", 5) == ["aaa", "bbb"]
    assert wrap("abcdefgh", 3) == ["abc", "def", "gh"]
    assert wrap("x " * 60)[-1].startswith("x") and len(wrap("x " * 60)) == 4
    assert not render(BLANK, online=False)[0].all()


def test_image_backend_writes_exactly_the_framebuffer(tmp_path):
    out = tmp_path / "screen" / "table.png"
    disp = ImageDisplay(out)
    for state in SCENES:
        disp.show(state)
        back = read_png(out)
        assert back.shape == (64, 128)
        assert (back == render(state)).all()
    import cv2
    big = cv2.imdecode(np.frombuffer(disp.png(scale=4), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert big.shape == (256, 512) and ((big > 127) == np.kron(disp.frame, np.ones((4, 4)))).all()


def test_luma_backend_pushes_the_same_pixels():
    pytest.importorskip("PIL")

    class FakeDevice:
        def __init__(self):
            self.images, self.contrasts = [], []

        def display(self, img):
            self.images.append(np.array(img, dtype=np.uint8))

        def contrast(self, level):
            self.contrasts.append(level)

        def cleanup(self):
            pass

    dev = FakeDevice()
    disp = LumaDisplay(device=dev)
    disp.show(SCENES[2].replace(brightness=77))
    assert (dev.images[-1].astype(bool) == render(SCENES[2]).astype(bool)).all()
    assert dev.contrasts == [77]


needs_gcc = pytest.mark.skipif(compiler() is None, reason="gcc not installed: cannot build "
                               "the firmware emulator")


@pytest.fixture(scope="module")
def synced_board():
    if compiler() is None:
        pytest.skip("gcc not installed")
    with Emulator(binary=build()) as emu, BoardLink(emu.port, ack_timeout=0.03) as link:
        yield emu, link


def show_on_board(emu, link, state):
    BoardDisplay(link).show(state)
    assert link.wait_synced(3)
    import time
    for _ in range(50):  # the board redraws in its main loop, just after the ACK
        fb = emu.framebuffer()
        if (fb == render(state)).all():
            return fb
        time.sleep(0.01)
    return fb


@needs_gcc
@pytest.mark.parametrize("index", range(len(SCENES)))
def test_firmware_oled_shows_the_same_pixels_as_python(synced_board, index):
    emu, link = synced_board
    state = SCENES[index]
    fb = show_on_board(emu, link, state)
    diff = np.argwhere(fb != render(state))
    assert len(diff) == 0, f"{len(diff)} pixels differ, first at (y, x) {diff[:5].tolist()}"
    assert emu.state()["contrast"] == state.brightness


printable = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60)


@needs_gcc
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=printable, lines=st.lists(printable.map(lambda s: s[:21]), max_size=4),
       seat=st.none() | st.integers(0, 5), kind=st.integers(1, 9))
def test_firmware_and_python_wrap_and_draw_any_text_alike(synced_board, text, lines, seat, kind):
    emu, link = synced_board
    for state in (TableState(players=2, error_kind=kind, error_seat=seat, error_text=text),
                  TableState(text=tuple(lines))):
        assert (show_on_board(emu, link, state) == render(state)).all()


def test_board_display_hands_the_state_to_the_link():
    class Link:
        def set_state(self, s):
            self.s = s

    link = Link()
    BoardDisplay(link).show(SCENES[1])
    assert link.s == SCENES[1]
