"""ECC alignment of a view with an enrolled face (vision/align.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.align import AFFINE, HOMOGRAPHY, EccTemplate, align
from vision.enroll import builtin_faces


@pytest.fixture(scope="module")
def face() -> np.ndarray:
    grey = cv2.cvtColor(builtin_faces()["7c"], cv2.COLOR_BGR2GRAY)
    grey = cv2.resize(grey, (64, 96), interpolation=cv2.INTER_AREA).astype(np.float32)
    return cv2.GaussianBlur(grey, (0, 0), 1.0)


def _corners(m: np.ndarray, w: int, h: int) -> np.ndarray:
    pts = np.float64([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]).reshape(-1, 1, 2)
    full = np.eye(3)
    full[: m.shape[0]] = m
    return cv2.perspectiveTransform(pts, full).reshape(4, 2)


def test_recovers_a_homography_from_the_identity(face):
    h, w = face.shape
    true = np.float64([[1.04, 0.02, -1.5], [-0.015, 0.97, 2.0], [4e-4, -3e-4, 1.0]])
    view = cv2.warpPerspective(face, true, (w, h), borderMode=cv2.BORDER_REPLICATE)
    found = align(EccTemplate(face, HOMOGRAPHY), view, np.eye(3, dtype=np.float32), 30, 1e-6)
    assert found is not None and found.shape == (3, 3)
    # Where the face's corners land in the view: within a fifth of a pixel.
    assert np.abs(_corners(found, w, h) - _corners(true, w, h)).max() < 0.2


def test_affine_at_least_as_close_as_opencv(face):
    small = cv2.resize(face, (32, 48), interpolation=cv2.INTER_AREA)
    true = np.float32([[1.03, 0.02, -1.0], [-0.01, 0.98, 1.2]])
    view = cv2.warpAffine(small, true, (32, 48), borderMode=cv2.BORDER_REPLICATE)
    start = np.eye(2, 3, dtype=np.float32)
    found = align(EccTemplate(small, AFFINE), view, start, 30, 1e-4)
    _, ref = cv2.findTransformECC(small, view, start.copy(), cv2.MOTION_AFFINE,
                                  (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 1e-4),
                                  None, 1)
    assert found is not None and found.shape == (2, 3)
    err = np.abs(_corners(found, 32, 48) - _corners(true, 32, 48)).max()
    assert err < 0.3
    assert err <= np.abs(_corners(ref, 32, 48) - _corners(true, 32, 48)).max() + 0.05


def test_starts_from_the_warp_it_is_given(face):
    h, w = face.shape
    true = np.float64([[1.0, 0.0, 6.0], [0.0, 1.0, -5.0], [0.0, 0.0, 1.0]])
    view = cv2.warpPerspective(face, true, (w, h), borderMode=cv2.BORDER_REPLICATE)
    tpl = EccTemplate(face, HOMOGRAPHY)
    near = np.float32([[1, 0, 5.5], [0, 1, -4.6], [0, 0, 1]])
    found = align(tpl, view, near, 10, 1e-4)
    assert np.abs(_corners(found, w, h) - _corners(true, w, h)).max() < 0.3
    # No step at all leaves the start as it was.
    assert np.array_equal(align(tpl, view, near, 0, 1e-4), near)


def test_a_blank_view_cannot_be_aligned(face):
    blank = np.full_like(face, 128.0)
    assert align(EccTemplate(face, AFFINE), blank, np.eye(2, 3, dtype=np.float32), 30,
                 1e-4) is None


def test_motion_must_be_affine_or_homography(face):
    with pytest.raises(ValueError, match="motion"):
        EccTemplate(face, cv2.MOTION_TRANSLATION)
