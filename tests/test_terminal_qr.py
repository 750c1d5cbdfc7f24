"""The terminal's QR code reads on light and dark terminals: the printed text is drawn
as a terminal with either colour scheme shows it (its ANSI colours applied, each half
block a module), and OpenCV's QR reader decodes the picture."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from table_controller.cli.table import _terminal_qr, terminal_qr_text

cv2 = pytest.importorskip("cv2")
segno = pytest.importorskip("segno")

URL = "http://192.168.1.23:8000/"
BLACK, WHITE = 0, 230  # ANSI 30 and 47: most terminals' 47 is a light grey
BASIC = {30: BLACK, 37: WHITE, 40: BLACK, 47: WHITE}
THEMES = {"light": (BLACK, WHITE), "dark": (WHITE, BLACK)}  # the terminal's (fg, bg)
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def as_the_terminal_shows_it(text: str, theme: str) -> np.ndarray:
    """Grey levels, one pixel a module: two a character cell, top and bottom half."""
    default_fg, default_bg = THEMES[theme]
    rows = []
    for line in text.splitlines():
        fg, bg, inverse = default_fg, default_bg, False
        top, bottom = [], []
        pos = 0
        for m in [*SGR.finditer(line), None]:
            end = m.start() if m else len(line)
            for ch in line[pos:end]:
                f, b = (bg, fg) if inverse else (fg, bg)
                top.append(f if ch in "\u2588\u2580" else b)
                bottom.append(f if ch in "\u2588\u2584" else b)
            if m is None:
                break
            pos = m.end()
            for code in [int(c) for c in (m.group(1) or "0").split(";")]:
                if code == 0:
                    fg, bg, inverse = default_fg, default_bg, False
                elif code == 7:
                    inverse = True
                elif code == 39:
                    fg = default_fg
                elif code == 49:
                    bg = default_bg
                elif 30 <= code <= 37:
                    fg = BASIC.get(code, WHITE)
                elif 40 <= code <= 47:
                    bg = BASIC.get(code, WHITE)
        rows += [top, bottom]
    width = max(len(r) for r in rows)
    return np.array([r + [default_bg] * (width - len(r)) for r in rows], dtype=np.uint8)


def decoded(text: str, theme: str) -> str:
    modules = as_the_terminal_shows_it(text, theme)
    # On a screen around the terminal: its background, then 8 pixels a module.
    picture = np.pad(modules, 4, constant_values=THEMES[theme][1])
    picture = cv2.resize(picture, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    found, _points, _straight = cv2.QRCodeDetector().detectAndDecode(picture)
    return found


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_terminal_qr_code_decodes_on_light_and_dark_terminals(theme):
    text = terminal_qr_text(URL)
    assert text is not None
    assert decoded(text, theme) == URL
    # Printed as it is: the same text, on stdout or the stream given.
    out = io.StringIO()
    _terminal_qr(URL, out)
    assert out.getvalue() == text


def test_the_code_keeps_its_quiet_zone_and_every_module():
    text = terminal_qr_text(URL)
    modules = as_the_terminal_shows_it(text, "light") == BLACK  # True: dark
    matrix = np.array(segno.make(URL, error="l").matrix, dtype=bool)
    n = len(matrix)
    assert modules[4:4 + n, 4:4 + n].tolist() == matrix.tolist()
    assert not modules[:4].any() and not modules[:, :4].any()
    assert not modules[4 + n:].any() and not modules[:, 4 + n:].any()
    assert modules.shape[1] == n + 8 and modules.shape[0] >= n + 8


def test_the_terminals_own_colours_would_invert_the_code_on_a_light_terminal():
    """What it printed before: segno's half blocks in the terminal's colours, the light
    modules drawn as the foreground. Unreadable on a light terminal."""
    out = io.StringIO()
    segno.make(URL, error="l").terminal(out=out, compact=True)
    assert decoded(out.getvalue(), "dark") == URL
    assert decoded(out.getvalue(), "light") == ""
