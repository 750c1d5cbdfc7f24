"""Camera sources behind one small interface.

``read(timeout)`` returns the next ``Frame`` or None; it never blocks longer than
``timeout`` even when the camera is unplugged or a stream stalls, because the
device is read by a background thread. ``state`` says why frames stopped
(``"ended"`` at the end of a file or folder, ``"lost"`` when a camera went
away) and ``reopen()`` tries again. ``open_source(spec)`` picks the source:
an integer (USB camera index), ``picamera`` (Raspberry Pi camera, when the OS
package is installed), a folder of images, a video file or a stream URL.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from table_controller.engine.words import Say

IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff"}


class SourceError(ValueError):
    """A source specification that names nothing usable."""


@dataclass
class Frame:
    image: np.ndarray  # BGR
    t: float  # seconds: capture time (live) or position in the recording
    index: int


class FrameSource:
    """Base class: a reader thread fills a one-frame slot; ``read`` waits on it."""

    name = "source"

    def __init__(self) -> None:
        self.state = "closed"  # "open", "ended", "lost", "closed"
        self.frames_read = 0
        self.frames_dropped = 0  # overwritten before the caller took them
        self._cond = threading.Condition()
        self._slot: Frame | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    # Subclasses implement these three; _grab returns None when the source is done.
    def _open(self) -> None: ...
    def _grab(self) -> tuple[np.ndarray, float] | None: ...
    def _close(self) -> None: ...

    live = True  # a live source drops stale frames; a recording waits for the reader

    def open(self) -> FrameSource:
        if self.state == "open":
            return self
        self._open()
        self._stop.clear()
        self.state = "open"
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                got = self._grab()
            except Exception:  # a driver error is a lost camera, not a crash
                got = None
            with self._cond:
                if got is None:
                    self.state = "ended" if not self.live else "lost"
                    self._cond.notify_all()
                    return
                if not self.live:
                    while self._slot is not None and not self._stop.is_set():
                        self._cond.wait(0.1)
                elif self._slot is not None:
                    self.frames_dropped += 1
                self._slot = Frame(got[0], got[1], self.frames_read)
                self.frames_read += 1
                self._cond.notify_all()

    def read(self, timeout: float = 1.0) -> Frame | None:
        """The next frame, or None after ``timeout`` seconds or when the source stopped."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._slot is None:
                if self.state != "open":
                    return None
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            frame, self._slot = self._slot, None
            self._cond.notify_all()
            return frame

    def frames(self, timeout: float = 1.0) -> Iterator[np.ndarray]:
        """Images until the source stops (a stall of ``timeout`` yields None)."""
        self.open()
        while True:
            f = self.read(timeout)
            if f is None:
                if self.state != "open":
                    return
                yield None
                continue
            yield f.image

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._close()
        self.state = "closed"
        self._slot = None

    def reopen(self) -> FrameSource:
        self.close()
        return self.open()

    def __enter__(self) -> FrameSource:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


class VideoCaptureSource(FrameSource):
    """OpenCV ``VideoCapture``: a USB camera index, a video file or a stream URL."""

    def __init__(self, spec: int | str, size: tuple[int, int] | None = None) -> None:
        super().__init__()
        self.spec = spec
        self.size = size
        self.name = f"camera {spec}"
        self.live = not (isinstance(spec, str) and Path(spec).is_file())
        self._cap = None

    def _open(self) -> None:
        import cv2

        self._cap = cv2.VideoCapture(self.spec)
        if self.size:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        self._fps = self._cap.get(cv2.CAP_PROP_FPS) or 30.0
        self._n = 0

    def _grab(self) -> tuple[np.ndarray, float] | None:
        if self._cap is None or not self._cap.isOpened():
            return None
        ok, img = self._cap.read()
        if not ok or img is None:
            return None
        self._n += 1
        return img, (time.monotonic() if self.live else (self._n - 1) / self._fps)

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class PicameraSource(FrameSource):
    """The Raspberry Pi camera through Picamera2 (an OS package, hence optional)."""

    name = "picamera"

    def __init__(self, size: tuple[int, int] = (1280, 720)) -> None:
        super().__init__()
        self.size = size
        self._cam = None

    def _open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise SourceError(Say("Picamera2 is not installed (sudo apt install "
                                  "python3-picamera2)")) from exc
        self._cam = Picamera2()
        cfg = self._cam.create_video_configuration(main={"size": self.size, "format": "BGR888"})
        self._cam.configure(cfg)
        self._cam.start()

    def _grab(self) -> tuple[np.ndarray, float] | None:
        return self._cam.capture_array(), time.monotonic()

    def _close(self) -> None:
        if self._cam is not None:
            self._cam.stop()
            self._cam.close()
            self._cam = None


class FolderSource(FrameSource):
    """The images of a folder in name order, as frames ``1/fps`` seconds apart.

    An unreadable image is skipped and counted in ``frames_dropped``.
    """

    live = False

    def __init__(self, folder: str | Path, fps: float = 30.0) -> None:
        super().__init__()
        self.folder = Path(folder)
        self.fps = fps
        self.name = f"folder {self.folder}"

    def _open(self) -> None:
        self._files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_EXTS)
        self._i = 0

    def _grab(self) -> tuple[np.ndarray, float] | None:
        import cv2

        while self._i < len(self._files):
            p = self._files[self._i]
            self._i += 1
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is not None:
                return img, (self._i - 1) / self.fps
            self.frames_dropped += 1
        return None


class IterSource(FrameSource):
    """Frames from Python: the table simulator, tests, a replay."""

    live = False

    def __init__(self, frames: Iterable[np.ndarray] | Callable[[], Iterable[np.ndarray]],
                 fps: float = 30.0, name: str = "simulated table") -> None:
        super().__init__()
        self._factory = frames if callable(frames) else (lambda: frames)
        self.fps = fps
        self.name = name

    def _open(self) -> None:
        self._it = iter(self._factory())
        self._n = 0

    def _grab(self) -> tuple[np.ndarray, float] | None:
        img = next(self._it, None)
        if img is None:
            return None
        self._n += 1
        return img, (self._n - 1) / self.fps


def open_source(spec: str | int, fps: float = 30.0) -> FrameSource:
    """A source for ``spec`` (see the module docstring), opened."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return VideoCaptureSource(int(spec)).open()
    if spec == "picamera":
        return PicameraSource().open()
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, fps).open()
    if path.is_file() or "://" in spec:
        return VideoCaptureSource(str(spec)).open()
    raise SourceError(Say("no camera, folder, video file or URL named {name}",
                          name=repr(spec)))
