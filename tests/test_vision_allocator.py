"""The C heap keeps frames' freed buffers (vision.allocator)."""

from __future__ import annotations

import ctypes
import platform
import sys

import pytest

from vision import allocator


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="mallopt is glibc's")
def test_glibc_accepts_the_settings():
    assert allocator.keep_freed_memory() is True
    assert allocator.keep_freed_memory() is True  # again: harmless


def test_without_a_c_library_nothing_changes(monkeypatch):
    def missing(*_args, **_kwargs):
        raise OSError("no libc here")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    assert allocator.keep_freed_memory() is False


def test_the_command_line_asks_for_it(monkeypatch):
    from table_controller.cli import main

    calls = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: calls.append(1) or True)
    main(["--help"])
    assert calls == [1]
