"""The wire format on the Python side: CRC, COBS, frames, the decoder, table messages."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import cobs
from firmware_bridge.crc16 import crc16
from firmware_bridge.protocol import (
    MAX_ENCODED,
    MAX_PAYLOAD,
    FrameDecoder,
    FrameError,
    MsgType,
    encode_frame,
)
from firmware_bridge.table_state import (
    BLANK,
    StateError,
    TableState,
    ascii_text,
    next_message,
)


def test_crc_check_value_of_ccitt_false():
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF
    assert crc16(b"6789", crc16(b"12345")) == 0x29B1


@given(st.binary(max_size=700))
def test_cobs_round_trip_and_no_zero(data):
    enc = cobs.encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert cobs.decode(enc) == data


def test_cobs_known_vectors():
    assert cobs.encode(b"") == b"\x01"
    assert cobs.encode(b"\x00") == b"\x01\x01"
    assert cobs.encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert cobs.encode(bytes(range(1, 255))) == b"\xff" + bytes(range(1, 255)) + b"\x01"


@pytest.mark.parametrize("bad", [b"\x00\x01", b"\x05\x01\x02", b"\x03\x01\x00"])
def test_cobs_rejects_invalid(bad):
    with pytest.raises(cobs.CobsError):
        cobs.decode(bad)


def test_frame_round_trip_through_decoder():
    dec = FrameDecoder()
    wire = encode_frame(MsgType.TURN, 7, b"\x02") + encode_frame(MsgType.PING, 9, b"\x00\x00")
    frames = dec.feed(wire[:5]) + dec.feed(wire[5:])
    assert [(f.type, f.seq, f.payload) for f in frames] == [
        (MsgType.TURN, 7, b"\x02"), (MsgType.PING, 9, b"\x00\x00")]
    assert dec.stats.frames == 2 and dec.stats.dropped == 0


def test_frame_limits():
    assert len(encode_frame(MsgType.TEXT, 1, bytes(MAX_PAYLOAD))) <= MAX_ENCODED + 2
    with pytest.raises(FrameError, match="exceeds"):
        encode_frame(MsgType.TEXT, 1, bytes(MAX_PAYLOAD + 1))
    with pytest.raises(FrameError):
        encode_frame(300, 1)


def test_decoder_counts_each_kind_of_bad_frame():
    dec = FrameDecoder()
    good = encode_frame(MsgType.TURN, 1, b"\x01")
    flipped = bytearray(good)
    flipped[3] ^= 0x10
    assert dec.feed(bytes(flipped)) == []
    assert dec.stats.crc_errors == 1
    assert dec.feed(b"\x00\x02\x01\x00") == []  # decodes to one byte
    assert dec.stats.truncated == 1
    assert dec.feed(b"\x00\x05\x01\x00") == []  # code runs past the end
    assert dec.stats.cobs_errors == 1
    assert dec.feed(b"\x00" + b"\x41" * 500 + b"\x00") == []
    assert dec.stats.oversized == 1
    assert [f.seq for f in dec.feed(good)] == [1]  # and it still works


@settings(max_examples=300)
@given(st.lists(st.one_of(st.binary(max_size=300),
                          st.sampled_from([encode_frame(MsgType.TURN, 3, b"\x01")])),
                max_size=8))
def test_decoder_fuzz_never_raises_and_accounts_every_frame(chunks):
    dec = FrameDecoder()
    frames = []
    for chunk in chunks:
        frames += dec.feed(chunk)
    frames += dec.feed(b"\x00")
    assert dec.stats.frames == len(frames)
    for f in frames:
        assert 0 <= f.type <= 255 and len(f.payload) <= MAX_PAYLOAD


@settings(max_examples=300, derandomize=True)
@given(st.binary(min_size=1, max_size=MAX_PAYLOAD), st.integers(0, 255), st.data())
def test_single_bit_flip_is_dropped(payload, seq, data):
    wire = bytearray(encode_frame(MsgType.TEXT, seq, payload))
    i = data.draw(st.integers(1, len(wire) - 2))
    wire[i] ^= 1 << data.draw(st.integers(0, 7))
    dec = FrameDecoder()
    assert dec.feed(bytes(wire)) == []
    assert dec.stats.dropped >= 1


def crafted_frames():
    """Frames whose raw bytes end in 0x00 (CRC low byte zero, about 1 in 256): the
    case where a lost trailing zero kept the CRC valid before the length byte."""
    out, i = [], 0
    while len(out) < 40:
        payload = bytes((i & 0xFF, i >> 8, 0))[: 1 + i % 3]
        wire = encode_frame(MsgType.ACK, i % 256, payload)
        if crc16(bytes((MsgType.ACK, i % 256, len(payload))) + payload) & 0xFF == 0:
            out.append((i % 256, payload, wire))
        i += 1
    return out


def test_every_single_bit_flip_is_caught_even_at_a_trailing_zero():
    for _seq, _payload, wire in crafted_frames():
        for i in range(1, len(wire) - 1):
            for bit in range(8):
                bad = bytearray(wire)
                bad[i] ^= 1 << bit
                frames = FrameDecoder().feed(bytes(bad))
                assert frames == [], (wire.hex(), i, bit, frames)


# --- table state and its messages --------------------------------------------------

seats = st.integers(0, 5)
text_line = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=21)


@st.composite
def table_states(draw):
    players = draw(st.sampled_from([0, 2, 3, 4, 5, 6]))
    dealer = draw(st.integers(0, max(players - 1, 0)))
    kind = draw(st.integers(0, 9))
    outcome = draw(st.integers(0, 2))
    suit = draw(st.sampled_from(["", "d", "c", "s", "b"]))
    return TableState(
        players=players, dealer=dealer,
        turn=draw(st.none() | seats),
        trick_seat=draw(st.none() | seats), trick_no=draw(st.integers(0, 255)),
        draw_order=tuple(draw(st.permutations(range(6)))[:draw(st.integers(0, 6))]),
        trump_suit=suit, trump_rank=draw(st.integers(0, 10)) if suit else 0,
        error_kind=kind, error_seat=draw(st.none() | seats) if kind else None,
        error_text=draw(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126),
                                max_size=60)) if kind else "",
        text=tuple(draw(st.lists(text_line, max_size=4))),
        outcome=outcome,
        winners=tuple(sorted(set(draw(st.lists(seats, max_size=3))))) if outcome else (),
        points=tuple(draw(st.lists(st.integers(0, 120), max_size=6))) if outcome else (),
        team_points=tuple(draw(st.lists(st.integers(0, 120), max_size=3))) if outcome else (),
        brightness=draw(st.integers(0, 255)),
    )


def converge(board, want, limit=20):
    """Apply next_message until in sync; returns the states passed through."""
    path = []
    for _ in range(limit):
        msg = next_message(board, want)
        if msg is None:
            return path
        base = board if board is not None else BLANK
        board = base.apply(*msg)
        if path == [] and msg[0] == MsgType.CLEAR and base is BLANK:
            board = board.replace(brightness=(want.brightness + 1) % 256)
        path.append(board)
    raise AssertionError("next_message did not converge")


@settings(max_examples=300)
@given(table_states(), table_states())
def test_sync_converges_from_any_state_and_from_unknown(a, b):
    path = converge(a, b)
    assert (path[-1] if path else a) == b
    assert converge(None, b)[-1] == b


@settings(max_examples=300)
@given(table_states())
def test_every_field_round_trips_through_its_message(state):
    for msg_type in (MsgType.TURN, MsgType.TRICK_WON, MsgType.DRAW_ORDER, MsgType.TRUMP,
                     MsgType.ERROR, MsgType.TEXT, MsgType.RESULT, MsgType.BRIGHTNESS):
        payload = state.payload(msg_type)
        assert len(payload) <= MAX_PAYLOAD
        assert state.apply(msg_type, payload) == state
    assert len(state.canonical()) <= 192


@pytest.mark.parametrize("msg_type,payload", [
    (MsgType.NEW_HAND, b"\x07\x00"), (MsgType.NEW_HAND, b"\x02\x02"),
    (MsgType.TURN, b"\x06"), (MsgType.TURN, b""), (MsgType.TRICK_WON, b"\x01"),
    (MsgType.DRAW_ORDER, b"\x02\x01\x01"), (MsgType.DRAW_ORDER, b"\x03\x01"),
    (MsgType.TRUMP, b"x\x01"), (MsgType.TRUMP, b"\x00\x03"), (MsgType.TRUMP, b"d\x0b"),
    (MsgType.ERROR, b"\x0a\xff"), (MsgType.ERROR, b"\x00\x01"), (MsgType.ERROR, b"\x01\xff\x07"),
    (MsgType.TEXT, b"\x05"), (MsgType.TEXT, b"\x01\x03ab"), (MsgType.TEXT, b"\x01\x01ab"),
    (MsgType.RESULT, b"\x01\x40\x00\x00"), (MsgType.RESULT, b"\x01\x01\x01\x79\x00"),
    (MsgType.RESULT, b"\x00\x01\x00\x00"), (MsgType.BRIGHTNESS, b"\x01\x02"),
    (MsgType.CLEAR, b"\x00"), (MsgType.PING, b""),
])
def test_bad_payloads_are_refused_with_a_clear_error(msg_type, payload):
    with pytest.raises(StateError):
        BLANK.apply(msg_type, payload)


def test_state_validation_names_the_field():
    with pytest.raises(StateError, match="turn"):
        TableState(players=2, turn=7)
    with pytest.raises(StateError, match="dealer"):
        TableState(players=2, dealer=2)
    with pytest.raises(StateError, match="text"):
        TableState(text=("città",))
    assert ascii_text("città è già", 21) == "citta e gia"
    assert ascii_text("⚠ carta", 5) == "? car"


def test_new_hand_resets_the_hand_but_keeps_brightness():
    s = TableState(players=2, turn=1, trump_suit="s", text=("x",), brightness=9)
    after = s.apply(MsgType.NEW_HAND, b"\x04\x03")
    assert after == TableState(players=4, dealer=3, brightness=9)
    assert s.apply(MsgType.CLEAR, b"") == TableState(brightness=9)
