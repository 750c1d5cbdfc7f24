"""Camera sources: frames in order, a clear end, no hangs, reopen."""

from __future__ import annotations

import time

import cv2
import numpy as np
import pytest

from vision.sources import FolderSource, IterSource, SourceError, VideoCaptureSource, open_source


def _images(n, h=48, w=64):
    return [np.full((h, w, 3), 20 * i, np.uint8) for i in range(n)]


def test_folder_source_reads_in_order_skips_unreadable_and_ends(tmp_path):
    for i, img in enumerate(_images(4)):
        cv2.imwrite(str(tmp_path / f"f{i:02d}.png"), img)
    (tmp_path / "f02b.png").write_bytes(b"not an image")
    src = open_source(str(tmp_path), fps=10)
    got = []
    while (f := src.read(timeout=1.0)) is not None:
        got.append((int(f.image[0, 0, 0]), f.t))
    assert [g[0] for g in got] == [0, 20, 40, 60]
    assert [round(g[1], 2) for g in got] == [0.0, 0.1, 0.2, 0.4]  # f02b.png took a slot
    assert src.state == "ended"
    assert src.frames_dropped == 1
    src.reopen()
    assert src.read(1.0).image[0, 0, 0] == 0
    src.close()


def test_iter_source_frames_and_reopen():
    src = IterSource(lambda: iter(_images(3)), fps=30)
    with src:
        assert [int(i[0, 0, 0]) for i in src.frames()] == [0, 20, 40]
        assert src.state == "ended"
        src.reopen()
        assert [int(i[0, 0, 0]) for i in src.frames()] == [0, 20, 40]
    assert src.state == "closed"


def test_a_stalled_source_never_hangs_the_caller():
    def stall():
        yield np.zeros((8, 8, 3), np.uint8)
        time.sleep(5)  # a stream that stops sending
        yield np.zeros((8, 8, 3), np.uint8)

    src = IterSource(stall).open()
    assert src.read(1.0) is not None
    t0 = time.monotonic()
    assert src.read(timeout=0.2) is None
    assert time.monotonic() - t0 < 0.5
    assert src.state == "open"


def test_video_file_source_reports_its_end(tmp_path):
    path = tmp_path / "clip.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 25, (64, 48))
    if not out.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for img in _images(5):
        out.write(img)
    out.release()
    src = open_source(str(path))
    assert isinstance(src, VideoCaptureSource)
    frames = []
    while (f := src.read(2.0)) is not None:
        frames.append(f)
    assert len(frames) == 5
    assert frames[1].t == pytest.approx(1 / 25, abs=1e-3)
    assert src.state == "ended"
    src.close()


def test_missing_camera_is_lost_quickly():
    src = VideoCaptureSource("/nonexistent/stream.mjpg").open()
    t0 = time.monotonic()
    assert src.read(timeout=2.0) is None
    assert time.monotonic() - t0 < 2.5
    assert src.state in ("lost", "ended")
    src.close()


def test_unknown_spec_is_refused(tmp_path):
    with pytest.raises(SourceError, match="nothing-here"):
        open_source(str(tmp_path / "nothing-here"))


def test_folder_source_of_an_empty_folder_ends(tmp_path):
    src = FolderSource(tmp_path).open()
    assert src.read(0.5) is None and src.state == "ended"
