"""The 128x64 table display, with interchangeable backends.

Every backend is a table output: ``show(state)``. The pixels come from
``screen.render`` (twin of the firmware's renderer), so all of them show the
same thing:

* ``BoardDisplay``: the OLED on the microcontroller; the board renders it from
  the state the ``BoardLink`` keeps in sync.
* ``LumaDisplay``: an SSD1306 wired to the Pi's I2C, through ``luma.oled``
  (optional: ``pip install 'briscola-table[oled]'``).
* ``ImageDisplay``: the framebuffer as a 1-bit 128x64 PNG, for tests, the demo
  and the dashboard.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from .screen import HEIGHT, WIDTH, render
from .table_state import BLANK, TableState


def png_bytes(frame: np.ndarray, scale: int = 1) -> bytes:
    """PNG of a 0/1 frame; ``scale`` > 1 enlarges it with square pixels for a screen."""
    import cv2

    img = (frame.astype(np.uint8) * 255)
    if scale > 1:
        img = np.kron(img, np.ones((scale, scale), dtype=np.uint8))
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_BILEVEL, 1])
    if not ok:
        raise RuntimeError("OpenCV could not encode the PNG")
    return buf.tobytes()


def read_png(path: str | os.PathLike) -> np.ndarray:
    """A PNG written by ``ImageDisplay`` back as a 0/1 frame."""
    import cv2

    img = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise ValueError(f"{path}: not a readable image")
    return (img > 127).astype(np.uint8)


class ImageDisplay:
    """Keeps the current frame; writes it to ``path`` (atomically) when given."""

    def __init__(self, path: str | os.PathLike | None = None, scale: int = 1) -> None:
        self.path = Path(path) if path else None
        self.scale = scale
        self._lock = threading.Lock()
        self.frame = render(BLANK)

    def show(self, state: TableState) -> None:
        frame = render(state)
        with self._lock:
            self.frame = frame
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp.png")
            tmp.write_bytes(png_bytes(frame, self.scale))
            os.replace(tmp, self.path)  # the dashboard never reads half a file

    def png(self, scale: int = 1) -> bytes:
        with self._lock:
            frame = self.frame
        return png_bytes(frame, scale)

    def close(self) -> None:
        pass


class BoardDisplay:
    """The board's OLED: the state goes over the serial link, the board draws it."""

    def __init__(self, link) -> None:
        self.link = link

    def show(self, state: TableState) -> None:
        self.link.set_state(state)

    def close(self) -> None:
        pass


class LumaDisplay:
    """An SSD1306 128x64 on the Pi's I2C bus, drawn with luma.oled."""

    def __init__(self, port: int = 1, address: int = 0x3C, device=None) -> None:
        if device is None:
            try:
                from luma.core.interface.serial import i2c
                from luma.oled.device import ssd1306
            except ImportError as exc:
                raise RuntimeError("the i2c display needs luma.oled: "
                                   "pip install 'briscola-table[oled]'") from exc
            device = ssd1306(i2c(port=port, address=address), width=WIDTH, height=HEIGHT)
        self.device = device
        self._contrast: int | None = None

    def show(self, state: TableState) -> None:
        from PIL import Image  # a luma.oled dependency

        frame = render(state)
        img = Image.fromarray(frame * 255).convert("1")
        if state.brightness != self._contrast:
            self.device.contrast(state.brightness)
            self._contrast = state.brightness
        self.device.display(img)

    def close(self) -> None:
        try:
            self.device.cleanup()
        except Exception:
            pass
