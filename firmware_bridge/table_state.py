"""What the table shows, as one immutable value, and its messages to the board.

``TableState`` is what the ``Indicators`` facade keeps and what every output
renders. ``apply`` has exactly the semantics of ``table_apply`` in the firmware
(``hardware/firmware/core/table.c``), so the link can keep a model of what the
board shows and send only what differs; ``canonical`` is the byte string whose
CRC the board reports in its heartbeat, so a board that drifted is re-synced.

Seats are 0-based here and on the wire; screens label them ``P1``..``P6``.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from dataclasses import dataclass

from .protocol import DEFAULT_BRIGHTNESS, MAX_SEATS, SEAT_NONE, MsgType

MAX_LINES = 4
LINE_CHARS = 21
ERROR_CHARS = 60
MAX_TEAMS = 3
MAX_POINTS = 120
SUITS = "dcsb"

# Violation kinds of the referee, as numbered on the wire (0 means no error).
ERROR_KINDS = {
    "out_of_turn": 1, "duplicate_card": 2, "not_in_deck": 3, "illegal_swap": 4,
    "no_trump": 5, "hand_over": 6, "bad_event": 7, "other": 8, "not_held": 9,
}
ERROR_TITLES = {
    1: "NOT YOUR TURN", 2: "CARD PLAYED", 3: "NOT IN DECK", 4: "BAD SWAP",
    5: "NO TRUMP YET", 6: "HAND IS OVER", 7: "BAD EVENT", 8: "ERROR", 9: "NOT HELD",
}
OUTCOME_NONE, OUTCOME_WIN, OUTCOME_TIE = 0, 1, 2
LANGUAGE_COUNT = 3  # en, it, fr: firmware_bridge.words.LANGUAGES


class StateError(ValueError):
    """A table state or board message with a field out of range; names the field."""


def ascii_text(text: str, limit: int) -> str:
    """Printable ASCII the board can draw: accents dropped (``è`` -> ``e``), rest '?'."""
    flat = unicodedata.normalize("NFKD", str(text))
    flat = "".join(c for c in flat if not unicodedata.combining(c))
    return "".join(c if " " <= c <= "~" else "?" for c in flat)[:limit]


def _seat_byte(seat: int | None) -> int:
    return SEAT_NONE if seat is None else seat


def _seat(b: int, what: str) -> int | None:
    if b == SEAT_NONE:
        return None
    if b >= MAX_SEATS:
        raise StateError(f"{what}: seat {b} is not 0-{MAX_SEATS - 1}")
    return b


def _printable(raw: bytes, limit: int, what: str) -> str:
    if len(raw) > limit or any(not 0x20 <= b <= 0x7E for b in raw):
        raise StateError(f"{what}: at most {limit} printable ASCII characters")
    return raw.decode("ascii")


def _check_text(text: str, limit: int, what: str) -> None:
    if not isinstance(text, str) or len(text) > limit or any(
            not " " <= c <= "~" for c in text):
        raise StateError(f"{what}: {text!r} is not at most {limit} printable ASCII "
                         "characters (use ascii_text)")


@dataclass(frozen=True)
class TableState:
    players: int = 0  # 0: no hand
    dealer: int = 0
    turn: int | None = None
    trick_seat: int | None = None
    trick_no: int = 0  # tricks taken this hand: changes per trick (a repeated winner flashes)
    draw_order: tuple[int, ...] = ()
    trump_suit: str = ""  # "" or one of "dcsb"
    trump_rank: int = 0  # 0 unknown, else 1-10
    error_kind: int = 0  # 0: no error; see ERROR_KINDS
    error_seat: int | None = None
    error_text: str = ""
    text: tuple[str, ...] = ()
    outcome: int = OUTCOME_NONE
    winners: tuple[int, ...] = ()
    points: tuple[int, ...] = ()
    team_points: tuple[int, ...] = ()
    brightness: int = DEFAULT_BRIGHTNESS
    language: int = 0  # the display's words: 0 en, 1 it, 2 fr (LANGUAGES)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        def seat_ok(name: str, s: int | None) -> None:
            if s is not None and not (isinstance(s, int) and 0 <= s < MAX_SEATS):
                raise StateError(f"{name}: seat {s!r} is not 0-{MAX_SEATS - 1}")

        if self.players and not 2 <= self.players <= MAX_SEATS:
            raise StateError(f"players: {self.players} is not 0 (no hand) or 2-{MAX_SEATS}")
        if not (0 <= self.dealer < max(self.players, 1)):
            raise StateError(f"dealer: seat {self.dealer} is not a seat of "
                             f"{self.players} players")
        seat_ok("turn", self.turn)
        seat_ok("trick_seat", self.trick_seat)
        if not 0 <= self.trick_no <= 255:
            raise StateError(f"trick_no: {self.trick_no} is not 0-255")
        if len(self.draw_order) > MAX_SEATS or len(set(self.draw_order)) != len(self.draw_order):
            raise StateError(f"draw_order: {self.draw_order} must be distinct seats")
        for s in self.draw_order:
            seat_ok("draw_order", s)
        if self.trump_suit not in ("", *SUITS) or not 0 <= self.trump_rank <= 10 or (
                not self.trump_suit and self.trump_rank):
            raise StateError(f"trump: suit {self.trump_suit!r} rank {self.trump_rank} "
                             "is not a suit of dcsb with rank 0-10")
        if self.error_kind not in ERROR_TITLES and self.error_kind != 0:
            raise StateError(f"error_kind: {self.error_kind} is not 0-{len(ERROR_TITLES)}")
        seat_ok("error_seat", self.error_seat)
        if not self.error_kind and (self.error_seat is not None or self.error_text):
            raise StateError("error_seat/error_text: set without an error_kind")
        _check_text(self.error_text, ERROR_CHARS, "error_text")
        if len(self.text) > MAX_LINES:
            raise StateError(f"text: {len(self.text)} lines, at most {MAX_LINES}")
        for line in self.text:
            _check_text(line, LINE_CHARS, "text")
        if self.outcome not in (OUTCOME_NONE, OUTCOME_WIN, OUTCOME_TIE):
            raise StateError(f"outcome: {self.outcome} is not 0, 1 (win) or 2 (tie)")
        if self.outcome == OUTCOME_NONE and (self.winners or self.points or self.team_points):
            raise StateError("result: points or winners without an outcome")
        for s in self.winners:
            seat_ok("winners", s)
        if tuple(sorted(set(self.winners))) != self.winners:
            raise StateError(f"winners: {self.winners} must be sorted distinct seats")
        if len(self.points) > MAX_SEATS or len(self.team_points) > MAX_TEAMS:
            raise StateError("points/team_points: too many entries")
        if any(not 0 <= p <= MAX_POINTS for p in self.points + self.team_points):
            raise StateError(f"points: values must be 0-{MAX_POINTS}")
        if not 0 <= self.brightness <= 255:
            raise StateError(f"brightness: {self.brightness} is not 0-255")
        if not 0 <= self.language < LANGUAGE_COUNT:
            raise StateError(f"language: {self.language} is not 0-{LANGUAGE_COUNT - 1}")

    def replace(self, **changes: object) -> TableState:
        return dataclasses.replace(self, **changes)

    # --- payloads, one per message -------------------------------------------

    def payload(self, msg_type: MsgType) -> bytes:
        """The payload of ``msg_type`` that sets this state's field(s) on the board."""
        if msg_type == MsgType.NEW_HAND:
            return bytes((self.players, self.dealer))
        if msg_type == MsgType.TURN:
            return bytes((_seat_byte(self.turn),))
        if msg_type == MsgType.TRICK_WON:
            return bytes((_seat_byte(self.trick_seat), self.trick_no))
        if msg_type == MsgType.DRAW_ORDER:
            return bytes((len(self.draw_order), *self.draw_order))
        if msg_type == MsgType.TRUMP:
            return bytes((ord(self.trump_suit) if self.trump_suit else 0, self.trump_rank))
        if msg_type == MsgType.ERROR:
            return bytes((self.error_kind, _seat_byte(self.error_seat))) + \
                self.error_text.encode("ascii")
        if msg_type == MsgType.TEXT:
            out = bytearray((len(self.text),))
            for line in self.text:
                out += bytes((len(line),)) + line.encode("ascii")
            return bytes(out)
        if msg_type == MsgType.RESULT:
            mask = sum(1 << s for s in self.winners)
            return bytes((self.outcome, mask, len(self.points), *self.points,
                          len(self.team_points), *self.team_points))
        if msg_type == MsgType.BRIGHTNESS:
            return bytes((self.brightness,))
        if msg_type == MsgType.LANGUAGE:
            return bytes((self.language,))
        if msg_type == MsgType.CLEAR:
            return b""
        raise StateError(f"message type {msg_type!r} carries no table state")

    def canonical(self) -> bytes:
        """The bytes whose CRC-16 the board reports as its state digest."""
        return b"".join(self.payload(t) for t in (
            MsgType.NEW_HAND, MsgType.TURN, MsgType.TRICK_WON, MsgType.DRAW_ORDER,
            MsgType.TRUMP, MsgType.ERROR, MsgType.TEXT, MsgType.RESULT, MsgType.BRIGHTNESS,
            MsgType.LANGUAGE))

    def digest(self) -> int:
        from .crc16 import crc16
        return crc16(self.canonical())

    # --- what the board does with a message ------------------------------------

    def apply(self, msg_type: int, payload: bytes) -> TableState:
        """The state after the board accepts ``msg_type``; ``StateError`` if it would not."""
        p = bytes(payload)
        n = len(p)

        def need(size: int) -> None:
            if n != size:
                raise StateError(f"{MsgType(msg_type).name}: payload of {n} bytes, "
                                 f"expected {size}")

        if msg_type == MsgType.CLEAR:
            need(0)
            return TableState(brightness=self.brightness, language=self.language)
        if msg_type == MsgType.NEW_HAND:
            need(2)
            if not 2 <= p[0] <= MAX_SEATS or p[1] >= p[0]:
                raise StateError(f"NEW_HAND: {p[0]} players with dealer {p[1]}")
            return TableState(players=p[0], dealer=p[1], brightness=self.brightness,
                              language=self.language)
        if msg_type == MsgType.TURN:
            need(1)
            return self.replace(turn=_seat(p[0], "TURN"))
        if msg_type == MsgType.TRICK_WON:
            need(2)
            return self.replace(trick_seat=_seat(p[0], "TRICK_WON"), trick_no=p[1])
        if msg_type == MsgType.DRAW_ORDER:
            if n < 1 or p[0] > MAX_SEATS or n != 1 + p[0]:
                raise StateError(f"DRAW_ORDER: bad length {n}")
            seats = tuple(p[1:])
            if any(s >= MAX_SEATS for s in seats) or len(set(seats)) != len(seats):
                raise StateError(f"DRAW_ORDER: seats {seats} are not distinct seats")
            return self.replace(draw_order=seats)
        if msg_type == MsgType.TRUMP:
            need(2)
            suit = "" if p[0] == 0 else chr(p[0])
            if suit not in ("", *SUITS) or p[1] > 10 or (not suit and p[1]):
                raise StateError(f"TRUMP: suit byte {p[0]} rank {p[1]}")
            return self.replace(trump_suit=suit, trump_rank=p[1])
        if msg_type == MsgType.ERROR:
            if n < 2 or p[0] > len(ERROR_TITLES):
                raise StateError("ERROR: bad kind or length")
            seat = _seat(p[1], "ERROR")
            text = _printable(p[2:], ERROR_CHARS, "ERROR")
            if p[0] == 0 and (seat is not None or text):
                raise StateError("ERROR: kind 0 (clear) with a seat or text")
            return self.replace(error_kind=p[0], error_seat=seat, error_text=text)
        if msg_type == MsgType.TEXT:
            if n < 1 or p[0] > MAX_LINES:
                raise StateError("TEXT: bad line count")
            lines, i = [], 1
            for _ in range(p[0]):
                if i >= n or i + 1 + p[i] > n:
                    raise StateError("TEXT: line runs past the payload")
                lines.append(_printable(p[i + 1:i + 1 + p[i]], LINE_CHARS, "TEXT"))
                i += 1 + p[i]
            if i != n:
                raise StateError("TEXT: trailing bytes")
            return self.replace(text=tuple(lines))
        if msg_type == MsgType.RESULT:
            if n < 4 or p[0] > OUTCOME_TIE or p[1] >= 1 << MAX_SEATS or p[2] > MAX_SEATS:
                raise StateError("RESULT: bad header")
            k = 3 + p[2]
            if n < k + 1 or p[k] > MAX_TEAMS or n != k + 1 + p[k]:
                raise StateError("RESULT: bad length")
            points, teams = tuple(p[3:k]), tuple(p[k + 1:])
            winners = tuple(s for s in range(MAX_SEATS) if p[1] >> s & 1)
            if any(v > MAX_POINTS for v in points + teams):
                raise StateError("RESULT: points above 120")
            if p[0] == OUTCOME_NONE and (winners or points or teams):
                raise StateError("RESULT: outcome 0 (clear) with points")
            return self.replace(outcome=p[0], winners=winners, points=points, team_points=teams)
        if msg_type == MsgType.BRIGHTNESS:
            need(1)
            return self.replace(brightness=p[0])
        if msg_type == MsgType.LANGUAGE:
            need(1)
            if p[0] >= LANGUAGE_COUNT:
                raise StateError(f"LANGUAGE: {p[0]} is not 0-{LANGUAGE_COUNT - 1}")
            return self.replace(language=p[0])
        raise StateError(f"message type {msg_type} carries no table state")


BLANK = TableState()

_HAND_FIELDS = ("players", "dealer")
# Message per group of fields, in the order a sync sends them.
_GROUPS: tuple[tuple[MsgType, tuple[str, ...]], ...] = (
    (MsgType.TURN, ("turn",)),
    (MsgType.TRICK_WON, ("trick_seat", "trick_no")),
    (MsgType.DRAW_ORDER, ("draw_order",)),
    (MsgType.TRUMP, ("trump_suit", "trump_rank")),
    (MsgType.ERROR, ("error_kind", "error_seat", "error_text")),
    (MsgType.TEXT, ("text",)),
    (MsgType.RESULT, ("outcome", "winners", "points", "team_points")),
    (MsgType.BRIGHTNESS, ("brightness",)),
    (MsgType.LANGUAGE, ("language",)),
)


def next_message(board: TableState | None, want: TableState) -> tuple[MsgType, bytes] | None:
    """The next message that brings ``board`` closer to ``want`` (None: in sync).

    ``board`` None means unknown (after a handshake): start with CLEAR. Applying
    the messages one after another always converges, whatever the order of changes.
    """
    if board is None:
        return MsgType.CLEAR, b""
    if any(getattr(board, f) != getattr(want, f) for f in _HAND_FIELDS):
        if want.players == 0:
            return MsgType.CLEAR, b""
        return MsgType.NEW_HAND, want.payload(MsgType.NEW_HAND)
    for msg_type, fields in _GROUPS:
        if any(getattr(board, f) != getattr(want, f) for f in fields):
            return msg_type, want.payload(msg_type)
    return None
