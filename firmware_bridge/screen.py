"""The 128x64 1-bit screen: layout of a ``TableState`` into a framebuffer.

``render`` is a line-for-line twin of ``screen_render`` in
``hardware/firmware/core/screen.c``; a test renders many states in both and
compares every pixel, so the PNG on the dashboard is what the OLED shows.
Frames are ``uint8`` arrays of shape (64, 128) holding 0 or 1.
"""

from __future__ import annotations

import numpy as np

from table_controller.engine.seats import player_labels, seat_label  # noqa: F401  (the table's words)

from .font import CELL_WIDTH, glyph
from .table_state import (
    LINE_CHARS,
    OUTCOME_NONE,
    OUTCOME_TIE,
    TableState,
)
from .words import words

WIDTH, HEIGHT = 128, 64


class Canvas:
    """A framebuffer with the few drawing primitives the layout uses."""

    def __init__(self) -> None:
        self.px = np.zeros((HEIGHT, WIDTH), dtype=np.uint8)

    def fill_rect(self, x: int, y: int, w: int, h: int, value: int) -> None:
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, WIDTH), min(y + h, HEIGHT)
        if x0 < x1 and y0 < y1:
            self.px[y0:y1, x0:x1] = value

    def char(self, x: int, y: int, ch: str, scale: int = 1, value: int = 1) -> None:
        for col, bits in enumerate(glyph(ch)):
            for row in range(8):
                if bits >> row & 1:
                    self.fill_rect(x + col * scale, y + row * scale, scale, scale, value)

    def text(self, x: int, y: int, s: str, scale: int = 1, value: int = 1) -> None:
        for i, ch in enumerate(s):
            self.char(x + i * CELL_WIDTH * scale, y, ch, scale, value)


def trump_label(state: TableState) -> str:
    """"Trump: King of cups" in the table's language; shorter forms where the line
    would not fit ("Trump: Knight swords", then only "Cavallo bastoni")."""
    w = words(state.language)
    if not state.trump_suit:
        return w["trump_none"]
    suit = w["suit_" + state.trump_suit]
    if not state.trump_rank:
        return w["trump_suit"].format(suit=suit)
    rank = w.get(f"rank_{state.trump_rank}", str(state.trump_rank))
    for form in (w["trump_card"], w["trump_short"], "{rank} {suit}"):
        label = form.format(rank=rank, suit=suit)
        if len(label) <= LINE_CHARS:
            break
    return label


TRICKS_PER_HAND = {2: 20, 3: 13, 4: 10, 5: 8, 6: 6}


def trick_label(state: TableState) -> str:
    """Who leads which trick of how many: "P1 leads trick 17/20" ("Trick: P1 #16" left
    a player to guess what P1 and 16 were). The trick winner leads the next; before
    the first, the seat after the dealer. At most 21 characters, the line's width."""
    w = words(state.language)
    total = TRICKS_PER_HAND.get(state.players, 0)
    if state.trick_seat is None:
        leader, number = (state.dealer + 1) % state.players, 1
    else:
        leader, number = state.trick_seat, state.trick_no + 1
    seat = seat_label(leader)
    if total and number > total:
        return w["last_trick"].format(player=seat)
    if total:
        return w["leads"].format(player=seat, n=number, total=total)
    return w["leads_n"].format(player=seat, n=number)


MORE = "..."  # the drawers left out: they follow in turn, as the order always does


def draw_label(state: TableState) -> str:
    """"Draw: P3 P4 P1 P2", who draws from the stock in which order (the trick winner
    first, then in turn). When the whole order does not fit the line (6 players: 23
    characters in English), the first drawers that fit and "...": the rest follow in
    turn, and the winner, the first, is on the line above."""
    w = words(state.language)
    labels = [" " + seat_label(s) for s in state.draw_order]
    line = w["draw"] + "".join(labels)
    if len(line) <= LINE_CHARS:
        return line
    line = w["draw"]
    for label in labels:
        if len(line) + len(label) + 1 + len(MORE) > LINE_CHARS:
            break
        line += label
    return line + " " + MORE


def wrap(text: str, width: int = LINE_CHARS, max_lines: int = 4) -> list[str]:
    """Break at the last space that fits, else hard; the firmware wraps identically."""
    lines: list[str] = []
    while text and len(lines) < max_lines:
        if len(text) <= width:
            lines.append(text)
            break
        cut = text.rfind(" ", 1, width + 1)
        if cut > 0:
            lines.append(text[:cut])
            text = text[cut + 1:]
        else:
            lines.append(text[:width])
            text = text[width:]
    return lines


def render(state: TableState, online: bool = True) -> np.ndarray:
    """The pixels the board's OLED shows for ``state``."""
    c = Canvas()
    w = words(state.language)

    def centred(y: int, text: str) -> None:
        c.text((WIDTH - CELL_WIDTH * len(text)) // 2, y, text)

    if not online:
        centred(24, w["waiting"])
        centred(36, w["link_down"])
        return c.px
    c.fill_rect(0, 0, WIDTH, 9, 1)
    c.text(1, 1, trump_label(state), value=0)
    if state.outcome != OUTCOME_NONE:
        if state.outcome == OUTCOME_TIE:
            c.text(0, 12, w["tie"], 2)
        else:
            c.text(0, 12, w["win"], 2)
            c.text(2 * CELL_WIDTH * len(w["win"]) + 6, 16,
                   " ".join(seat_label(s) for s in state.winners))
        for i, pts in enumerate(state.points):
            c.text((i % 3) * 42, 32 + (i // 3) * 9, f"{seat_label(i)}:{pts:3d}")
        if state.team_points:
            c.text(0, 52, w["teams"] + "".join(f" {p}" for p in state.team_points))
    elif state.error_kind:
        c.fill_rect(0, 11, WIDTH, 9, 1)
        title = "! " + w[f"error_{state.error_kind}"]
        if state.error_seat is not None:
            title += " " + seat_label(state.error_seat)
        c.text(1, 12, title, value=0)
        for i, line in enumerate(wrap(state.error_text)):
            c.text(0, 22 + 9 * i, line)
    elif state.text:
        for i, line in enumerate(state.text):
            c.text(0, 14 + 10 * i, line)
    elif not state.players:
        centred(24, w["title"])
        centred(36, w["no_hand"])
    else:
        c.text(0, 12, w["dealer"].format(players=state.players, player=seat_label(state.dealer)))
        turn = "-" if state.turn is None else seat_label(state.turn)
        c.text(0, 22, w["turn"].format(player=turn), 2)
        c.text(0, 40, trick_label(state))
        if state.draw_order:
            c.text(0, 50, draw_label(state))
    return c.px


def to_pages(frame: np.ndarray) -> bytes:
    """SSD1306 page layout: byte ``page*128 + x`` holds rows 8*page..8*page+7, bit 0 on top."""
    bits = frame.reshape(HEIGHT // 8, 8, WIDTH).astype(np.uint8)
    weights = (1 << np.arange(8, dtype=np.uint8)).reshape(1, 8, 1)
    return (bits * weights).sum(axis=1, dtype=np.uint8).tobytes()


def from_pages(data: bytes) -> np.ndarray:
    """Invert ``to_pages``: a (64, 128) array of 0/1 from 1024 SSD1306 bytes."""
    if len(data) != WIDTH * HEIGHT // 8:
        raise ValueError(f"an SSD1306 framebuffer is {WIDTH * HEIGHT // 8} bytes, not {len(data)}")
    pages = np.frombuffer(data, dtype=np.uint8).reshape(HEIGHT // 8, 1, WIDTH)
    bits = (pages >> np.arange(8, dtype=np.uint8).reshape(1, 8, 1)) & 1
    return bits.reshape(HEIGHT, WIDTH).astype(np.uint8)
