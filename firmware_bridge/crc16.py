"""CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor).

The same table is compiled into the firmware (``core/crc16_table.h`` is written
from ``TABLE`` by ``firmware_bridge.gen_headers``). Check value: ``crc16(b"123456789")
== 0x29B1``.
"""

from __future__ import annotations

POLY = 0x1021
INIT = 0xFFFF


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ POLY) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


TABLE: tuple[int, ...] = _make_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = INIT) -> int:
    """The CRC of ``data``, continuing from ``crc`` when computing it in pieces."""
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ TABLE[((crc >> 8) ^ b) & 0xFF]
    return crc
