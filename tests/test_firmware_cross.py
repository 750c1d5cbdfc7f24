"""The portable firmware core cross-compiled for bare-metal targets.

``make cross-m0`` links every ``core/*.c`` with a no-op board layer
(``cross/stub_board.c``) for the RP2040's Cortex-M0+ against picolibc, with
-Wall -Wextra -Werror: it proves the core needs nothing from a host OS and
measures it. ``make cross-avr`` does the same for AVR (16-bit int, const data
in RAM). Each test skips when its toolchain is missing (Debian packages:
gcc-arm-none-eabi picolibc-arm-none-eabi; gcc-avr avr-libc binutils-avr).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parent.parent / "hardware" / "firmware"
PICOLIBC_SPECS = Path("/usr/lib/picolibc/arm-none-eabi/picolibc.specs")

RP2040_FLASH = 2 * 1024 * 1024
RP2040_RAM = 264 * 1024
ATMEGA2560_RAM = 8 * 1024


def _make(target: str, build: Path, *extra: str) -> subprocess.CompletedProcess:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    return subprocess.run(["make", "-C", str(FIRMWARE), target, f"BUILD={build}", *extra],
                          capture_output=True, text=True, timeout=120)


def _sections(size_tool: str, elf: Path) -> dict[str, int]:
    """Section sizes from ``<size> -A``."""
    out = subprocess.run([size_tool, "-A", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    sections = {}
    for line in out.splitlines():
        m = re.match(r"^(\.\S+)\s+(\d+)\s+\d+\s*$", line)
        if m:
            sections[m[1]] = int(m[2])
    return sections


def _require_arm() -> None:
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc is not on PATH "
                    "(apt-get install gcc-arm-none-eabi picolibc-arm-none-eabi)")
    if not PICOLIBC_SPECS.exists():
        pytest.skip(f"picolibc for arm-none-eabi is not installed ({PICOLIBC_SPECS} missing: "
                    "apt-get install picolibc-arm-none-eabi)")


def test_core_builds_for_cortex_m0plus_and_fits_the_rp2040(tmp_path):
    _require_arm()
    run = _make("cross-m0", tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    elf = tmp_path / "cross-m0" / "core.elf"
    assert elf.is_file()

    # An ARMv6-M (Cortex-M0/M0+) executable, entered in Thumb state (odd address) in flash.
    header = subprocess.run(["arm-none-eabi-readelf", "-h", "-A", str(elf)],
                            capture_output=True, text=True, check=True).stdout
    assert re.search(r"Machine:\s+ARM\b", header), header
    assert re.search(r"Tag_CPU_arch: v6S?-M\b", header), header
    entry = int(re.search(r"Entry point address:\s+(0x[0-9a-f]+)", header)[1], 16)
    assert entry & 1 and 0x10000000 <= entry < 0x10000000 + RP2040_FLASH, hex(entry)
    # Every part of the core is in the image: nothing was left unresolved or dropped.
    symbols = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True,
                             check=True).stdout.split()
    for name in ("fw_init", "fw_rx_bytes", "fw_poll", "fw_button", "decoder_push",
                 "frame_encode", "table_apply", "screen_render", "ring_render", "crc16",
                 "main", "board_millis"):
        assert name in symbols, name

    s = _sections("arm-none-eabi-size", elf)
    flash = s[".init"] + s[".text"] + s.get(".data", 0)
    ram = s.get(".data", 0) + s[".bss"]
    # Measured: flash 10448 B (the display's words in three languages: 1.4 KB of it),
    # RAM 1960 B (+ 2048 B of stack reserved by picolibc.ld).
    # The 1 KB framebuffer and the engine's state are most of the RAM.
    assert 1024 < ram < 4 * 1024, s
    assert ram + s.get(".stack", 0) < 32 * 1024 < RP2040_RAM, s
    assert 4 * 1024 < flash < 32 * 1024 < RP2040_FLASH, s
    summary = re.search(r"cortex-m0plus: flash (\d+) B .*RAM (\d+) B", run.stdout)
    assert summary and (int(summary[1]), int(summary[2])) == (flash, ram), run.stdout


def _require_avr() -> None:
    if shutil.which("avr-gcc") is None:
        pytest.skip("avr-gcc is not on PATH (apt-get install gcc-avr avr-libc binutils-avr)")


def test_core_builds_for_avr_mega2560_with_16_bit_int(tmp_path):
    _require_avr()
    run = _make("cross-avr", tmp_path, "AVR_MCU=atmega2560")
    assert run.returncode == 0, run.stdout + run.stderr
    s = _sections("avr-size", tmp_path / "cross-avr-atmega2560" / "core.elf")
    ram = s[".data"] + s[".bss"]
    # Measured: 4293 B (.data 2384: the font, CRC table and strings, the display's words
    # in three languages among them, copied to RAM on AVR).
    assert 2 * 1024 < ram < 5 * 1024 < ATMEGA2560_RAM, s


def test_core_does_not_fit_an_atmega328p(tmp_path):
    """The README says the Uno/Nano (2 KB RAM) are too small: the build must compile
    cleanly and fail only at the link, for want of RAM. If this starts to link,
    the core shrank: update hardware/firmware/README.md."""
    _require_avr()
    run = _make("cross-avr", tmp_path, "AVR_MCU=atmega328p")
    assert run.returncode != 0
    assert not re.search(r"\.[ch]:\d+:\d+: (error|warning)", run.stderr), run.stderr
    assert re.search(r"section [`'].bss' is not within region [`']data'", run.stderr), run.stderr
