"""The C firmware core on the host: generated headers, shared constants, random-input test."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from firmware_bridge import gen_headers, protocol, table_state
from firmware_bridge.emulator import FIRMWARE_DIR, build, compiler

needs_gcc = pytest.mark.skipif(compiler() is None, reason="gcc not installed: cannot build "
                               "the firmware for the host")


def c_defines(header: str) -> dict[str, int]:
    text = (FIRMWARE_DIR / "core" / header).read_text()
    return {m[1]: int(m[2], 0) for m in re.finditer(r"#define (\w+) (0x[0-9A-Fa-f]+|\d+)\b", text)}


@pytest.mark.parametrize("name", sorted(gen_headers.HEADERS))
def test_generated_headers_are_up_to_date(name):
    on_disk = (FIRMWARE_DIR / "core" / name).read_text()
    assert on_disk == gen_headers.HEADERS[name](), \
        f"{name} is stale: run python -m firmware_bridge.gen_headers"


def test_c_and_python_agree_on_the_protocol_constants():
    c = c_defines("proto.h")
    assert c["PROTO_VERSION"] == protocol.PROTOCOL_VERSION
    assert c["PROTO_MAX_PAYLOAD"] == protocol.MAX_PAYLOAD
    assert c["PROTO_MAX_SEATS"] == protocol.MAX_SEATS
    assert c["PROTO_SEAT_NONE"] == protocol.SEAT_NONE
    assert c["PROTO_DEFAULT_BRIGHTNESS"] == protocol.DEFAULT_BRIGHTNESS
    for t in protocol.MsgType:
        assert c[f"MSG_{t.name}"] == t.value, t
    for s in protocol.Status:
        assert c[f"STATUS_{s.name}"] == s.value, s
    for b in protocol.Button:
        assert c[f"BUTTON_{b.name}"] == b.value, b
    for cap in ("CAP_RING", "CAP_DISPLAY", "CAP_BUTTONS"):
        assert c[cap] == getattr(protocol, cap)
    t = c_defines("table.h")
    assert t["TABLE_MAX_LINES"] == table_state.MAX_LINES
    assert t["TABLE_LINE_CHARS"] == table_state.LINE_CHARS
    assert t["TABLE_ERROR_CHARS"] == table_state.ERROR_CHARS
    assert t["TABLE_MAX_TEAMS"] == table_state.MAX_TEAMS
    assert t["TABLE_ERROR_KINDS"] == max(table_state.ERROR_TITLES)


def test_c_error_titles_match():
    # The firmware's English words (words.h, generated) open with the same error titles.
    text = (FIRMWARE_DIR / "core" / "words.h").read_text()
    english = re.search(r"\{ /\* en \*/\n(.*?)\n    \},", text, re.S)[1]
    names = re.findall(r"W_(\w+),", text)
    strings = dict(zip(names, re.findall(r'"([^"]*)"', english), strict=True))
    assert [strings[f"ERROR_{k}"] for k in sorted(table_state.ERROR_TITLES)] == \
        list(table_state.ERROR_TITLES.values())
    assert c_defines("proto.h")["MSG_LANGUAGE"] == protocol.MsgType.LANGUAGE


@needs_gcc
def test_random_input_never_crashes_the_firmware():
    """Random streams, mutated frames and payloads through decoder, table and render,
    under AddressSanitizer and UBSan: any memory error or broken invariant aborts."""
    fuzz = build("fuzz", sanitize=True)
    for seed in (1, 2):
        proc = subprocess.run([str(fuzz), "150000", str(seed)], capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        stats = json.loads(proc.stdout)
        assert stats["iterations"] == 150000
        # every kind of damage was seen and dropped, and good frames still got through
        for key in ("frames", "cobs_errors", "crc_errors", "truncated", "oversized",
                    "unknown_type", "bad_payload"):
            assert stats[key] > 0, key


@needs_gcc
@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_firmware_builds_with_make():
    proc = subprocess.run(["make", "-s", "-C", str(FIRMWARE_DIR), "BUILD=build/make-test",
                           "emulator"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (FIRMWARE_DIR / "build" / "make-test" / "emulator").exists()
