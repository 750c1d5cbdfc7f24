"""What the board's LED ring shows, read back from the emulator."""

from __future__ import annotations

import time

import numpy as np
import pytest

from firmware_bridge.emulator import Emulator, build, compiler
from firmware_bridge.link import BoardLink
from firmware_bridge.table_state import TableState

pytestmark = pytest.mark.skipif(compiler() is None, reason="gcc not installed: cannot build "
                                "the firmware emulator")

LPS = 4  # LEDs per seat; 6 seats -> 24 LEDs


@pytest.fixture(scope="module")
def board():
    with Emulator(binary=build()) as emu, BoardLink(emu.port, ack_timeout=0.03) as link:
        yield emu, link


def show(emu, link, state, settle=0.06):
    link.set_state(state)
    assert link.wait_synced(3)
    time.sleep(settle)  # the ring refreshes every 20 ms
    return emu.ring()


def segment(ring, players, seat):
    start = seat * 24 // players
    return ring[[(start + k) % 24 for k in range(LPS)]]


def test_turn_seat_is_blue_and_scaled_by_brightness(board):
    emu, link = board
    ring = show(emu, link, TableState(players=4, dealer=3, turn=1, brightness=255))
    assert ring.shape == (24, 3)
    assert (segment(ring, 4, 1) == [0, 80, 255]).all()
    assert (segment(ring, 4, 0) == 0).all() and (segment(ring, 4, 2) == 0).all()
    assert (ring[18] == [24, 24, 24]).all()  # the dealer's (seat 3) first LED
    half = show(emu, link, TableState(players=4, dealer=3, turn=1, brightness=128))
    assert (segment(half, 4, 1) == [0, 80 * 128 // 255, 255 * 128 // 255]).all()


def test_trick_winner_flashes_green_then_stops(board):
    emu, link = board
    state = TableState(players=2, dealer=1, turn=None, trick_seat=0, trick_no=1,
                       draw_order=(0, 1), brightness=255)
    link.set_state(state)
    assert link.wait_synced(3)
    seen_green = False
    end = time.monotonic() + 0.6
    while time.monotonic() < end and not seen_green:
        seen_green = (segment(emu.ring(), 2, 0)[:, 1] == 255).all()
    assert seen_green
    time.sleep(1.6)  # RING_TRICK_FLASH_MS
    ring = emu.ring()
    assert (segment(ring, 2, 0)[:, 1] == 0)[:3].all()
    assert (ring[LPS - 1] == [255, 120, 0]).all()  # first drawer (seat 0), last LED: amber


def test_violation_then_result(board):
    emu, link = board
    base = TableState(players=2, dealer=1, turn=0, brightness=255)
    show(emu, link, base.replace(error_kind=1, error_seat=1, error_text="not your turn"),
         settle=0)
    reds = set()
    for _ in range(30):  # blinking at 4 Hz: sample over 0.3 s
        reds.add(int(segment(emu.ring(), 2, 1)[:, 0].max()))
        time.sleep(0.01)
    assert 255 in reds and 0 in {int(v) for v in segment(emu.ring(), 2, 0)[:, 0]}
    ring = show(emu, link, TableState(players=2, outcome=1, winners=(1,), points=(50, 70),
                                      brightness=255))
    assert (segment(ring, 2, 1) == [0, 255, 0]).all() and (segment(ring, 2, 0) == 0).all()
    ring = show(emu, link, TableState(players=2, outcome=2, points=(60, 60), brightness=255))
    assert (ring == [255, 120, 0]).all()


def test_host_gone_breathes_blue():
    with Emulator(binary=build()) as emu:
        ring = emu.ring()  # no host has ever spoken
        assert not emu.state()["online"]
        assert (ring[:, :2] == 0).all() and np.all(ring[:, 2] == ring[0, 2])
