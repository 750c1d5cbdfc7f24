"""Wire format of the Pi <-> board link (see ``hardware/PROTOCOL.md``).

A frame is ``type:u8 seq:u8 len:u8 payload:0..120 crc:u16be``, CRC-16/CCITT-FALSE
over everything before it, COBS-encoded and sent as ``00 <cobs> 00`` (the leading
zero flushes any garbage left on the line). The length byte is not redundant: a
CRC without final XOR cannot see a trailing zero byte go missing, and a bit
flip in the last COBS code byte does exactly that. The constants here are mirrored by
``hardware/firmware/core/proto.h``; a test checks that the two agree.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass, field

from . import cobs
from .crc16 import crc16

PROTOCOL_VERSION = 2  # 2: the LANGUAGE message (a board of version 1 is refused, not half-synced)
MAX_PAYLOAD = 120
MAX_FRAME = MAX_PAYLOAD + 5  # type, seq, len, payload, crc
MAX_ENCODED = MAX_FRAME + 2  # COBS adds one byte per 254; one spare
MAX_SEATS = 6
SEAT_NONE = 0xFF
DEFAULT_BRIGHTNESS = 128


class MsgType(enum.IntEnum):
    ACK = 0x01
    HELLO = 0x02
    HELLO_REPLY = 0x03
    HEARTBEAT = 0x04
    PING = 0x05
    PONG = 0x06
    # host -> board table state, acknowledged
    CLEAR = 0x10
    NEW_HAND = 0x11
    TURN = 0x12
    TRICK_WON = 0x13
    DRAW_ORDER = 0x14
    TRUMP = 0x15
    ERROR = 0x16
    TEXT = 0x17
    RESULT = 0x18
    BRIGHTNESS = 0x19
    LANGUAGE = 0x1A  # the display's words: 0 English, 1 Italian, 2 French
    # board -> host, acknowledged
    BUTTON = 0x20


STATE_TYPES = frozenset(range(MsgType.CLEAR, MsgType.LANGUAGE + 1))
RELIABLE_TYPES = STATE_TYPES | {MsgType.BUTTON}


class Status(enum.IntEnum):
    OK = 0
    UNKNOWN_TYPE = 1
    BAD_PAYLOAD = 2
    BAD_DIRECTION = 3


class Button(enum.IntEnum):
    CONFIRM = 0
    UNDO = 1
    NEW_HAND = 2


BUTTON_NAMES = {Button.CONFIRM: "confirm", Button.UNDO: "undo", Button.NEW_HAND: "new_hand"}

# BUTTON's event byte. Today's firmware sends presses only (the host tells a long press
# by a double press); a firmware with CAP_LONG_PRESS sends a short press on release and
# LONG once the button has been held for 2 s (see hardware/PROTOCOL.md).
BUTTON_PRESS = 1
BUTTON_LONG = 3

# Capability bits in HELLO_REPLY.
CAP_RING = 0x01
CAP_DISPLAY = 0x02
CAP_BUTTONS = 0x04
CAP_LONG_PRESS = 0x08  # reserved: the board reports long presses itself (BUTTON_LONG)


class FrameError(ValueError):
    """A frame that cannot be built (payload too long, bad type or sequence)."""


@dataclass(frozen=True, slots=True)
class Frame:
    type: int
    seq: int
    payload: bytes = b""


def encode_frame(msg_type: int, seq: int, payload: bytes = b"") -> bytes:
    """The bytes on the wire for one frame, delimiters included."""
    if not 0 <= msg_type <= 0xFF or not 0 <= seq <= 0xFF:
        raise FrameError(f"frame type {msg_type} and seq {seq} must be bytes")
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((msg_type, seq, len(payload))) + bytes(payload)
    body += struct.pack(">H", crc16(body))
    return b"\x00" + cobs.encode(body) + b"\x00"


def parse_frame(encoded: bytes) -> Frame:
    """Decode one COBS frame without its delimiters; raises ``ValueError`` subclasses."""
    raw = cobs.decode(encoded)
    if len(raw) < 5:
        raise TruncatedFrame(f"frame of {len(raw)} bytes is shorter than 5")
    if struct.unpack(">H", raw[-2:])[0] != crc16(raw[:-2]):
        raise CrcMismatch("CRC mismatch")
    if raw[2] != len(raw) - 5:
        raise TruncatedFrame(f"frame says {raw[2]} payload bytes, holds {len(raw) - 5}")
    if len(raw) - 5 > MAX_PAYLOAD:
        raise OversizedFrame(f"payload of {len(raw) - 5} bytes exceeds {MAX_PAYLOAD}")
    return Frame(raw[0], raw[1], bytes(raw[3:-2]))


class TruncatedFrame(ValueError):
    """A frame too short for its header and CRC, or shorter than its length byte says."""


class CrcMismatch(ValueError):
    """A frame whose CRC does not match: corrupted on the line."""


class OversizedFrame(ValueError):
    """A frame longer than the protocol allows."""


@dataclass
class DecoderStats:
    frames: int = 0
    cobs_errors: int = 0
    crc_errors: int = 0
    truncated: int = 0
    oversized: int = 0

    @property
    def dropped(self) -> int:
        return self.cobs_errors + self.crc_errors + self.truncated + self.oversized


@dataclass
class FrameDecoder:
    """Splits a byte stream into frames; bad frames are counted in ``stats`` and dropped."""

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray)
    _overflow: bool = False

    def reset(self) -> None:
        self._buf.clear()
        self._overflow = False

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        chunks = bytes(data).split(b"\x00")
        for i, chunk in enumerate(chunks):
            if not self._overflow:
                self._buf += chunk
                if len(self._buf) > MAX_ENCODED:
                    self._overflow = True
                    self._buf.clear()
            if i == len(chunks) - 1:
                break  # no delimiter after this chunk yet
            if self._overflow:
                self.stats.oversized += 1
            elif self._buf:
                self._finish(bytes(self._buf), out)
            self._buf.clear()
            self._overflow = False
        return out

    def _finish(self, encoded: bytes, out: list[Frame]) -> None:
        try:
            out.append(parse_frame(encoded))
        except TruncatedFrame:
            self.stats.truncated += 1
        except CrcMismatch:
            self.stats.crc_errors += 1
        except OversizedFrame:
            self.stats.oversized += 1
        except cobs.CobsError:
            self.stats.cobs_errors += 1
        else:
            self.stats.frames += 1


# --- payloads of the link-level messages -------------------------------------

_HELLO_REPLY = struct.Struct(">BHBBHHBBBIB")
_BOARD_HEARTBEAT = struct.Struct(">IIHH")
_HOST_HEARTBEAT = struct.Struct(">I")


def hello_payload(nonce: int) -> bytes:
    return struct.pack(">BH", PROTOCOL_VERSION, nonce & 0xFFFF)


@dataclass(frozen=True)
class BoardInfo:
    """What the board said about itself in its HELLO_REPLY."""

    version: int
    nonce: int
    seats: int
    leds_per_seat: int
    display_width: int
    display_height: int
    buttons: int
    firmware: tuple[int, int]
    boot_id: int
    caps: int

    @classmethod
    def parse(cls, payload: bytes) -> BoardInfo:
        if len(payload) != _HELLO_REPLY.size:
            raise ValueError(f"HELLO_REPLY payload of {len(payload)} bytes, "
                             f"expected {_HELLO_REPLY.size}")
        v, nonce, seats, lps, w, h, buttons, fmaj, fmin, boot, caps = _HELLO_REPLY.unpack(payload)
        return cls(v, nonce, seats, lps, w, h, buttons, (fmaj, fmin), boot, caps)

    def pack(self) -> bytes:
        return _HELLO_REPLY.pack(self.version, self.nonce, self.seats, self.leds_per_seat,
                                 self.display_width, self.display_height, self.buttons,
                                 *self.firmware, self.boot_id, self.caps)


@dataclass(frozen=True)
class BoardHeartbeat:
    boot_id: int
    uptime_ms: int
    digest: int
    rx_errors: int

    @classmethod
    def parse(cls, payload: bytes) -> BoardHeartbeat:
        if len(payload) != _BOARD_HEARTBEAT.size:
            raise ValueError(f"board HEARTBEAT payload of {len(payload)} bytes, "
                             f"expected {_BOARD_HEARTBEAT.size}")
        return cls(*_BOARD_HEARTBEAT.unpack(payload))


def host_heartbeat_payload(uptime_ms: int) -> bytes:
    return _HOST_HEARTBEAT.pack(uptime_ms & 0xFFFFFFFF)


def ack_payload(seq: int, status: int) -> bytes:
    return bytes((seq, status))
