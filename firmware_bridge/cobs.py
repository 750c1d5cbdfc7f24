"""Consistent Overhead Byte Stuffing: frames contain no 0x00, which delimits them.

Hand-written (it is 20 lines) so that the host and the firmware agree byte for
byte; ``hardware/firmware/core/cobs.c`` is the same algorithm.
"""

from __future__ import annotations


class CobsError(ValueError):
    """A byte string that is not a valid COBS encoding."""


def encode(data: bytes) -> bytes:
    """COBS-encode ``data`` (the result holds no zero byte and no delimiter)."""
    out = bytearray([0])
    code_at, code = 0, 1
    for b in data:
        if b:
            out.append(b)
            code += 1
        if not b or code == 0xFF:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code
    return bytes(out)


def decode(data: bytes) -> bytes:
    """Invert ``encode``; raises ``CobsError`` on a zero byte or a code past the end."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise CobsError(f"zero byte at offset {i} inside a COBS frame")
        end = i + code
        if end > n:
            raise CobsError(f"COBS code {code} at offset {i} runs past the frame end ({n})")
        block = data[i + 1:end]
        if 0 in block:
            raise CobsError(f"zero byte inside the COBS block at offset {i}")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
