"""The Pi's end of the serial link to the board: handshake, ACKs, retries, re-sync.

``BoardLink`` owns the serial port in one I/O thread. The application only sets
the *desired* ``TableState``; the thread keeps a model of what the board
*confirmed* (each acknowledged message applied with ``TableState.apply``) and
sends, one frame at a time (stop-and-wait), the next message that closes the
gap. All table messages are absolute and idempotent, so a retransmission, a
replay after reconnecting or a coalesced burst of changes all converge on
the same picture, and nothing shown is ever stale:

* no valid frame for ``link_timeout`` (heartbeats every ``heartbeat``), a port
  error (cable pulled), or a new ``boot_id`` (board rebooted) -> handshake
  again, then resend the whole state;
* the board's heartbeat carries a CRC of its state; a mismatch while idle and
  in sync -> resend the whole state.

Serial port paths such as ``/dev/serial/by-id/usb-Raspberry_Pi_Pico_...`` are
reopened every ``reopen_interval`` after they vanish.
"""

from __future__ import annotations

import logging
import os
import queue
import select
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .protocol import (
    BUTTON_LONG,
    BUTTON_NAMES,
    PROTOCOL_VERSION,
    BoardHeartbeat,
    BoardInfo,
    Button,
    FrameDecoder,
    MsgType,
    Status,
    ack_payload,
    encode_frame,
    hello_payload,
    host_heartbeat_payload,
)
from .table_state import BLANK, TableState, next_message

log = logging.getLogger(__name__)


class LinkError(RuntimeError):
    """The board did not answer in time."""


@dataclass
class LinkStats:
    frames_tx: int = 0
    retransmits: int = 0
    send_failures: int = 0  # a frame unacknowledged after every retry
    acks: int = 0
    naks: int = 0
    duplicates: int = 0
    unknown_type: int = 0
    bad_payload: int = 0
    handshakes: int = 0
    port_opens: int = 0
    port_errors: int = 0  # cable pulled, device vanished
    link_timeouts: int = 0
    board_reboots: int = 0
    incompatible: int = 0  # HELLO_REPLYs with another protocol version
    digest_mismatches: int = 0
    buttons: int = 0
    heartbeats_rx: int = 0
    decoder: object = None  # the FrameDecoder's DecoderStats

    def as_dict(self) -> dict[str, int]:
        out = {k: v for k, v in vars(self).items() if k != "decoder"}
        out.update({f"rx_{k}": v for k, v in vars(self.decoder).items()})
        return out


@dataclass
class _Outgoing:
    msg_type: int
    payload: bytes
    seq: int
    wire: bytes
    deadline: float
    tries: int = 1
    state: TableState | None = None  # the desired state it was computed from


@dataclass
class _Ping:
    payload: bytes
    done: threading.Event = field(default_factory=threading.Event)
    sent_at: float = 0.0
    rtt: float | None = None


# USB vendor ids of the boards the firmware runs on and of common USB-serial chips.
BOARD_VIDS = {0x2E8A: "Raspberry Pi (Pico)", 0x2341: "Arduino", 0x2A03: "Arduino",
              0x239A: "Adafruit", 0x1A86: "CH340", 0x0403: "FTDI", 0x10C4: "CP210x"}


def find_board_port() -> str | None:
    """The first USB serial port that looks like the table's board (for port "auto")."""
    from serial.tools import list_ports

    for info in sorted(list_ports.comports(), key=lambda p: p.device):
        if info.vid in BOARD_VIDS:
            return info.device
    return None


def _open_serial(port: str, baud: int):
    import serial  # pyserial; imported here so the module loads without it

    if port == "auto":
        found = find_board_port()
        if found is None:
            raise OSError("no USB serial board found")
        port = found
    return serial.Serial(port=port, baudrate=baud, timeout=0, write_timeout=1.0,
                         exclusive=True)


class BoardLink:
    """Keeps the board showing ``desired``; see the module docstring."""

    def __init__(self, port: str, baud: int = 115200, *, ack_timeout: float = 0.06,
                 retries: int = 6, heartbeat: float = 0.5, link_timeout: float = 1.6,
                 hello_interval: float = 0.2, reopen_interval: float = 0.25,
                 on_button: Callable[[str], None] | None = None,
                 open_port: Callable[[str, int], object] = _open_serial) -> None:
        if retries < 1 or ack_timeout <= 0 or heartbeat <= 0 or link_timeout <= heartbeat:
            raise ValueError("link timing: retries >= 1, ack_timeout > 0 and "
                             "link_timeout > heartbeat > 0")
        self.port_name, self.baud = port, baud
        self.ack_timeout, self.retries = ack_timeout, retries
        self.heartbeat, self.link_timeout = heartbeat, link_timeout
        self.hello_interval, self.reopen_interval = hello_interval, reopen_interval
        self.on_button = on_button
        self._open_port = open_port
        self._decoder = FrameDecoder()
        self.stats = LinkStats(decoder=self._decoder.stats)
        self.info: BoardInfo | None = None
        self._cond = threading.Condition()
        self._desired = BLANK
        self._confirmed: TableState | None = None
        self._brightness_known = False  # CLEAR keeps the board's brightness, unknown to us
        self._blocked: TableState | None = None  # a desired state the board refused
        self._pings: dict[int, _Ping] = {}
        self._ping_queue: list[int] = []
        self._port = None
        self._handshaken = False
        self._thread: threading.Thread | None = None
        self._stop = False
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._t0 = time.monotonic()
        # Button callbacks run on their own thread: a slow or re-entrant handler
        # (one that pings the board, say) must not stall the link.
        self._events: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._dispatcher: threading.Thread | None = None

    # --- application side ------------------------------------------------------

    def start(self) -> BoardLink:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="board-link", daemon=True)
            self._thread.start()
            self._dispatcher = threading.Thread(target=self._dispatch, name="board-buttons",
                                                daemon=True)
            self._dispatcher.start()
        return self

    def close(self) -> None:
        if self._stop:
            return
        self._stop = True
        try:
            os.write(self._wake_w, b"\x01")  # the I/O thread sees _stop at once
        except OSError:
            pass
        if self._thread:
            self._thread.join(timeout=5)
            self._thread = None
        if self._dispatcher:
            self._events.put(None)
            self._dispatcher.join(timeout=5)
            self._dispatcher = None
        self._drop_port()
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> BoardLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def set_state(self, state: TableState) -> None:
        """Make the board show ``state`` as soon as the link allows (never blocks)."""
        with self._cond:
            self._desired = state
        self._wake()

    show = set_state  # a TableOutput, like the displays and the GPIO indicators

    @property
    def desired(self) -> TableState:
        return self._desired

    @property
    def connected(self) -> bool:
        return self._handshaken

    def _in_sync(self) -> bool:
        return (self._handshaken and self._brightness_known
                and self._confirmed == self._desired)

    @property
    def synced(self) -> bool:
        with self._cond:
            return self._in_sync()

    def status(self) -> dict:
        """For the dashboard: link health in plain JSON-able values."""
        info = self.info
        return {"port": self.port_name, "connected": self._handshaken, "synced": self.synced,
                "board": None if info is None else {
                    "version": info.version, "firmware": "{}.{}".format(*info.firmware),
                    "seats": info.seats, "leds_per_seat": info.leds_per_seat,
                    "display": [info.display_width, info.display_height],
                    "buttons": info.buttons, "boot_id": info.boot_id},
                "stats": self.stats.as_dict()}

    def wait_connected(self, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._handshaken, timeout)

    def wait_synced(self, timeout: float) -> bool:
        """True once the board has acknowledged everything of the desired state."""
        with self._cond:
            return self._cond.wait_for(self._in_sync, timeout)

    def ping(self, payload: bytes = b"", timeout: float = 1.0) -> float:
        """Round-trip time in seconds of a PING answered by a PONG; ``LinkError`` if none."""
        with self._cond:
            seq = next(s for s in range(1, 256) if s not in self._pings)
            p = self._pings[seq] = _Ping(bytes(payload))
            self._ping_queue.append(seq)
        self._wake()
        try:
            if not p.done.wait(timeout) or p.rtt is None:
                raise LinkError(f"no PONG within {timeout:.3f} s")
            return p.rtt
        finally:
            with self._cond:
                self._pings.pop(seq, None)

    def _wake(self) -> None:
        if self._stop:
            return  # the pipe is closed (or closing): its fd number may be reused
        try:
            os.write(self._wake_w, b"\x01")
        except OSError:
            pass

    # --- the I/O thread --------------------------------------------------------

    def _now(self) -> float:
        return time.monotonic()

    def _run(self) -> None:
        self._tx_seq = 0
        self._inflight: _Outgoing | None = None
        self._next_open = 0.0
        while not self._stop:
            now = self._now()
            if self._port is None:
                if now < self._next_open:
                    self._wait(self._next_open - now, None)
                    continue
                self._try_open(now)
                continue
            self._timers(now)
            if self._port is None:
                continue
            self._wait(self._next_deadline(self._now()), self._port)

    def _wait(self, timeout: float, port: object | None) -> None:
        fds = [self._wake_r] + ([port.fileno()] if port is not None else [])
        try:
            ready, _, _ = select.select(fds, [], [], max(0.0, timeout))
        except (OSError, ValueError):
            if port is not None:
                self._port_failed()
            return
        if self._wake_r in ready:
            try:
                while os.read(self._wake_r, 64):
                    pass
            except OSError:
                pass
        if port is not None and port.fileno() in ready:
            self._read()

    def _try_open(self, now: float) -> None:
        try:
            port = self._open_port(self.port_name, self.baud)
        except Exception as exc:  # SerialException, OSError, ValueError: retry later
            log.debug("cannot open %s: %s", self.port_name, exc)
            self._next_open = now + self.reopen_interval
            return
        self.stats.port_opens += 1
        self._port = port
        try:
            port.reset_input_buffer()
        except Exception:
            pass
        self._decoder.reset()
        self._begin_session(now)

    def _begin_session(self, now: float) -> None:
        with self._cond:
            self._handshaken = False
            self._cond.notify_all()
        self._inflight = None
        self._hello_nonce = int.from_bytes(os.urandom(2), "big")
        self._hello_seq = 0
        self._next_hello = now
        self._last_rx = now
        self._last_tx = now

    def _drop_port(self) -> None:
        port, self._port = self._port, None
        with self._cond:
            self._handshaken = False
            self._cond.notify_all()
        if port is not None:
            try:
                port.close()
            except Exception:
                pass

    def _port_failed(self) -> None:
        self.stats.port_errors += 1
        log.info("serial port %s lost; reopening", self.port_name)
        self._drop_port()
        self._next_open = self._now() + self.reopen_interval

    def _write(self, data: bytes) -> None:
        try:
            self._port.write(data)
        except Exception:
            self._port_failed()
            return
        self.stats.frames_tx += 1
        self._last_tx = self._now()

    def _send(self, msg_type: int, seq: int, payload: bytes = b"") -> None:
        self._write(encode_frame(msg_type, seq, payload))

    def _read(self) -> None:
        try:
            data = self._port.read(max(1, self._port.in_waiting))
        except Exception:
            self._port_failed()
            return
        if not data:
            return
        for frame in self._decoder.feed(data):
            self._on_frame(frame.type, frame.seq, frame.payload)
            if self._port is None:
                return

    def _next_deadline(self, now: float) -> float:
        times = [self._last_tx + self.heartbeat, self._last_rx + self.link_timeout]
        if not self._handshaken:
            times.append(self._next_hello)
        if self._inflight:
            times.append(self._inflight.deadline)
        return max(0.0, min(times) - now)

    def _timers(self, now: float) -> None:
        if now - self._last_rx > self.link_timeout:
            if self._handshaken:
                self.stats.link_timeouts += 1
                log.info("board silent for %.1f s; handshaking again", now - self._last_rx)
            self._begin_session(now)
        if not self._handshaken:
            if now >= self._next_hello:
                self._hello_seq = self._hello_seq % 255 + 1
                self._send(MsgType.HELLO, self._hello_seq, hello_payload(self._hello_nonce))
                self._next_hello = now + self.hello_interval
            return
        self._send_pings(now)
        out = self._inflight
        if out is not None and now >= out.deadline:
            if out.tries < self.retries:
                out.tries += 1
                out.deadline = now + self.ack_timeout
                self.stats.retransmits += 1
                self._write(out.wire)
            else:
                # Unknown whether it was applied; the messages are idempotent, so
                # the next pass simply sends it again under a new sequence number.
                self.stats.send_failures += 1
                self._inflight = None
        if self._inflight is None and self._port is not None:
            self._send_next_state(now)
        if self._port is not None and now - self._last_tx >= self.heartbeat:
            self._send(MsgType.HEARTBEAT, 0, host_heartbeat_payload(int((now - self._t0) * 1000)))

    def _send_pings(self, now: float) -> None:
        with self._cond:
            queued, self._ping_queue = self._ping_queue, []
            pings = [(s, self._pings.get(s)) for s in queued]
        for seq, p in pings:
            if p is not None:
                p.sent_at = self._now()
                self._send(MsgType.PING, seq, p.payload)

    def _send_next_state(self, now: float) -> None:
        with self._cond:
            want, board = self._desired, self._confirmed
            if board is not None and not self._brightness_known:
                board = board.replace(brightness=(want.brightness + 1) % 256)  # so it is sent
        if want is self._blocked:
            return
        msg = next_message(board, want)
        if msg is None:
            return
        msg_type, payload = msg
        self._tx_seq = self._tx_seq % 255 + 1
        wire = encode_frame(msg_type, self._tx_seq, payload)
        self._inflight = _Outgoing(msg_type, payload, self._tx_seq, wire,
                                   now + self.ack_timeout, state=want)
        self._write(wire)

    # --- frames from the board -------------------------------------------------

    def _on_frame(self, msg_type: int, seq: int, payload: bytes) -> None:
        now = self._now()
        self._last_rx = now
        if msg_type == MsgType.HELLO_REPLY:
            self._on_hello_reply(seq, payload)
        elif not self._handshaken:
            return  # nothing else counts before the handshake
        elif msg_type == MsgType.ACK:
            self._on_ack(payload)
        elif msg_type == MsgType.HEARTBEAT:
            self._on_heartbeat(payload, now)
        elif msg_type == MsgType.PONG:
            with self._cond:
                p = self._pings.get(seq)
            if p is not None and p.payload == payload and p.rtt is None and p.sent_at:
                p.rtt = now - p.sent_at
                p.done.set()
        elif msg_type == MsgType.PING:
            self._send(MsgType.PONG, seq, payload)
        elif msg_type == MsgType.BUTTON:
            self._on_button(seq, payload)
        else:
            self.stats.unknown_type += 1
            if seq:
                self._send(MsgType.ACK, 0, ack_payload(seq, Status.UNKNOWN_TYPE))

    def _on_hello_reply(self, seq: int, payload: bytes) -> None:
        if self._handshaken or seq != self._hello_seq:
            return  # a late reply to an earlier HELLO
        try:
            info = BoardInfo.parse(payload)
        except ValueError:
            self.stats.bad_payload += 1
            return
        if info.nonce != self._hello_nonce:
            return
        if info.version != PROTOCOL_VERSION:
            self.stats.incompatible += 1
            log.error("board speaks protocol %d, this host %d: not syncing",
                      info.version, PROTOCOL_VERSION)
            self._next_hello = self._now() + 5.0
            return
        if self.info is not None and info.boot_id != self.info.boot_id:
            self.stats.board_reboots += 1
        self.info = info
        self.stats.handshakes += 1
        self._rx_seq: int | None = None
        with self._cond:
            self._handshaken = True
            self._confirmed = None  # re-send the whole table state
            self._brightness_known = False
            self._blocked = None
            self._cond.notify_all()

    def _on_ack(self, payload: bytes) -> None:
        if len(payload) != 2:
            self.stats.bad_payload += 1
            return
        out = self._inflight
        if out is None or payload[0] != out.seq:
            return  # a late ACK of a retransmitted frame
        self._inflight = None
        with self._cond:
            if payload[1] == Status.OK:
                self.stats.acks += 1
                # after a handshake the first message is a CLEAR: from there on known
                base = self._confirmed if self._confirmed is not None else BLANK
                self._confirmed = base.apply(out.msg_type, out.payload)
                if out.msg_type == MsgType.BRIGHTNESS:
                    self._brightness_known = True
            else:
                self.stats.naks += 1
                log.error("board refused %s %s: status %s", MsgType(out.msg_type).name,
                          out.payload.hex(), payload[1])
                self._blocked = out.state
            self._cond.notify_all()
        self._send_next_state(self._now())

    def _on_heartbeat(self, payload: bytes, now: float) -> None:
        try:
            hb = BoardHeartbeat.parse(payload)
        except ValueError:
            self.stats.bad_payload += 1
            return
        self.stats.heartbeats_rx += 1
        if self.info is not None and hb.boot_id != self.info.boot_id:
            self.stats.board_reboots += 1
            log.info("board rebooted; handshaking again")
            self._begin_session(now)
            return
        with self._cond:
            steady = self._inflight is None and self._in_sync()
            if steady and hb.digest != self._confirmed.digest():
                self.stats.digest_mismatches += 1
                log.warning("board state digest differs; re-sending the table state")
                self._confirmed = None
                self._brightness_known = False
        if self._confirmed is None:
            self._send_next_state(now)

    def _on_button(self, seq: int, payload: bytes) -> None:
        if not seq or len(payload) != 2:
            self.stats.bad_payload += 1
            if seq:
                self._send(MsgType.ACK, 0, ack_payload(seq, Status.BAD_PAYLOAD))
            return
        self._send(MsgType.ACK, 0, ack_payload(seq, Status.OK))
        if seq == self._rx_seq:
            self.stats.duplicates += 1  # our ACK was lost; the press is not repeated
            return
        self._rx_seq = seq
        try:
            name = BUTTON_NAMES[Button(payload[0])]
        except ValueError:
            self.stats.bad_payload += 1
            return
        if payload[1] == BUTTON_LONG:
            name += "_long"
        self.stats.buttons += 1
        self._events.put(name)

    def _dispatch(self) -> None:
        while (name := self._events.get()) is not None:
            if self.on_button is not None:
                try:
                    self.on_button(name)
                except Exception:
                    log.exception("button callback failed")
