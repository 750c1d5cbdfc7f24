"""The host's end under attack: a fake board on a pty sends garbage and hostile frames."""

from __future__ import annotations

import os
import time
import tty

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.link import BoardLink
from firmware_bridge.protocol import (
    PROTOCOL_VERSION,
    BoardInfo,
    FrameDecoder,
    MsgType,
    Status,
    encode_frame,
)
from firmware_bridge.table_state import TableState


class FakeBoard:
    """The master side of a pty: a scripted board that says whatever the test wants."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave  # kept open so the master never reads EIO
        os.set_blocking(self.master, False)
        self.dec = FrameDecoder()
        self.frames = []

    def read(self, seconds: float = 0.05):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.frames += self.dec.feed(os.read(self.master, 4096))
            except BlockingIOError:
                time.sleep(0.002)
        return self.frames

    def take(self, msg_type: int, timeout: float = 2.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for i, f in enumerate(self.frames):
                if f.type == msg_type:
                    return self.frames.pop(i)
            self.read(0.01)
        raise AssertionError(f"the host sent no {MsgType(msg_type).name}")

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    def handshake(self) -> None:
        """Answer the newest HELLO: the host re-sends it every ``hello_interval`` and
        takes a reply only to the one still current."""
        hello = self.take(MsgType.HELLO)
        self.read(0.01)
        newer = [f for f in self.frames if f.type == MsgType.HELLO]
        if newer:
            hello = newer[-1]
            self.frames = [f for f in self.frames if f.type != MsgType.HELLO]
        info = BoardInfo(PROTOCOL_VERSION, int.from_bytes(hello.payload[1:3], "big"), 6, 4,
                         128, 64, 3, (1, 0), 42, 7)
        self.write(encode_frame(MsgType.HELLO_REPLY, hello.seq, info.pack()))

    def close(self) -> None:
        os.close(self.master)
        os.close(self._slave)


@pytest.fixture(scope="module")
def rig():
    board = FakeBoard()
    got = []
    link = BoardLink(board.path, ack_timeout=0.02, heartbeat=0.1, link_timeout=5.0,
                     hello_interval=0.05, on_button=got.append).start()
    # A loaded machine may hold the reply past the next HELLO: answer until connected.
    end = time.monotonic() + 10
    while time.monotonic() < end:
        board.handshake()
        if link.wait_connected(0.3):
            break
    assert link.wait_connected(0)
    yield board, link, got
    link.close()
    board.close()


frames = st.builds(encode_frame, st.integers(0, 255), st.integers(0, 255),
                   st.binary(max_size=120))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(frames, st.binary(max_size=200)), max_size=10))
def test_host_survives_any_frames_and_bytes(rig, chunks):
    board, link, _ = rig
    for chunk in chunks:
        board.write(chunk)
    board.write(b"\x00")
    time.sleep(0.005)
    assert link._thread is not None and link._thread.is_alive()


def test_after_the_barrage_the_host_still_works(rig):
    board, link, got = rig
    board.read(0.1)
    board.frames.clear()
    link.set_state(TableState(players=2, dealer=0, turn=1))
    # answer whatever state frames the host sends (after a fuzzed HELLO_REPLY it
    # may have re-handshaken: answer that too)
    end = time.monotonic() + 5
    while not link.synced and time.monotonic() < end:
        for f in board.read(0.02):
            if f.type == MsgType.HELLO:
                board.frames.insert(0, f)
                board.handshake()
            elif 0x10 <= f.type <= 0x19:
                board.write(encode_frame(MsgType.ACK, 0, bytes((f.seq, Status.OK))))
        board.frames.clear()
    assert link.synced
    # a button twice with one seq: delivered once
    got.clear()
    board.write(encode_frame(MsgType.BUTTON, 77, b"\x01\x01") * 2)
    time.sleep(0.2)
    assert got == ["undo"]
    acks = [f for f in board.read(0.1) if f.type == MsgType.ACK]
    assert [a.payload for a in acks] == [bytes((77, 0)), bytes((77, 0))]
    assert link.stats.decoder.dropped > 0  # the barrage was counted


def test_a_board_of_another_protocol_version_is_not_driven():
    board = FakeBoard()
    # a slow HELLO rate: the reply below must answer the HELLO still current
    with BoardLink(board.path, hello_interval=1.0) as link:
        hello = board.take(MsgType.HELLO)
        assert hello.payload[0] == PROTOCOL_VERSION
        info = BoardInfo(PROTOCOL_VERSION + 1, int.from_bytes(hello.payload[1:3], "big"), 6, 4,
                         128, 64, 3, (9, 0), 1, 7)
        board.write(encode_frame(MsgType.HELLO_REPLY, hello.seq, info.pack()))
        link.set_state(TableState(players=2))
        assert not link.wait_connected(0.3)
        assert link.stats.incompatible == 1
        assert not [f for f in board.read(0.1) if 0x10 <= f.type <= 0x19]
    board.close()


def test_late_or_forged_hello_replies_are_ignored():
    board = FakeBoard()
    with BoardLink(board.path, hello_interval=1.0) as link:
        hello = board.take(MsgType.HELLO)
        nonce = int.from_bytes(hello.payload[1:3], "big")
        for seq, n in ((hello.seq + 100, nonce), (hello.seq, nonce ^ 1)):
            info = BoardInfo(PROTOCOL_VERSION, n, 6, 4, 128, 64, 3, (1, 0), 1, 7)
            board.write(encode_frame(MsgType.HELLO_REPLY, seq % 256, info.pack()))
        board.write(encode_frame(MsgType.HELLO_REPLY, hello.seq, b"short"))
        assert not link.wait_connected(0.2)
        assert link.stats.bad_payload == 1
    board.close()
