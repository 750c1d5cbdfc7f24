"""Long presses from buttons that only report presses.

The table names a held card, or corrects a misread one, with a *long* CONFIRM or
UNDO, so that nobody names a card by accident (``table_controller.buttons``). The
Pi's own buttons measure a long press with gpiozero's hold detection
(``firmware_bridge.gpio``). The board's firmware reports presses only (its BUTTON
event byte is always 1), so for the board a double press stands for a long one:
two presses of the same button within ``window_s``. A single press is reported
once the window has passed without a second one; NEW_HAND has no long meaning and
goes through at once. A board that reports long presses itself (``CAP_LONG_PRESS``,
see hardware/PROTOCOL.md) is passed through unchanged.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

LONG_BUTTONS = ("confirm", "undo")  # the buttons whose long press means something


class DoublePress:
    """Turns a stream of press names into short and ``<name>_long`` gestures."""

    def __init__(self, emit: Callable[[str], None], window_s: float = 0.5,
                 passthrough: Callable[[], bool] = lambda: False) -> None:
        self.emit = emit
        self.window_s = window_s
        self.passthrough = passthrough
        self._lock = threading.Lock()
        self._pending: str | None = None
        self._timer: threading.Timer | None = None

    def __call__(self, name: str) -> None:
        if self.passthrough() or name.endswith("_long"):
            self.emit(name)
            return
        out: list[str] = []
        with self._lock:
            pending, self._pending = self._pending, None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if pending == name:
                out.append(f"{name}_long")  # the second press within the window
            else:
                if pending is not None:
                    out.append(pending)  # another button: the first was a single press
                if name in LONG_BUTTONS:
                    self._pending = name
                    self._timer = threading.Timer(self.window_s, self._expire)
                    self._timer.daemon = True
                    self._timer.start()
                else:
                    out.append(name)
        for gesture in out:
            self.emit(gesture)

    def _expire(self) -> None:
        with self._lock:
            pending, self._pending, self._timer = self._pending, None, None
        if pending is not None:
            self.emit(pending)

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._pending = self._timer = None
