"""Camera-to-mat homography from the four ArUco markers, kept up to date.

Every marker that is seen gives four point pairs, so one marker already fixes a
homography; two or more are preferred (RANSAC, better conditioned). When the
markers are hidden (hands, cards on top) the last good homography is kept; when
the ones seen disagree with it the camera was bumped and it is replaced.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.mat import ARUCO_DICT, MatLayout


@dataclass
class Calibration:
    homography: np.ndarray  # image pixels -> rectified pixels
    markers_seen: int
    error_px: float  # mean reprojection error of the marker corners, rectified pixels


class Calibrator:
    """Finds and tracks the mat in camera frames; rectifies frames to a top-down view."""

    def __init__(self, layout: MatLayout, px_per_mm: float = 2.0,
                 moved_px: float = 6.0) -> None:
        self.layout = layout
        self.px_per_mm = px_per_mm
        self.moved_px = moved_px  # rectified-pixel disagreement meaning "the camera moved"
        self.size = (round(layout.width * px_per_mm), round(layout.height * px_per_mm))
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICT))
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        # The white margin round each marker is a square too; do not let the detector
        # drop the marker as a near-duplicate of it.
        params.minMarkerDistanceRate = 0.01
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)
        self.current: Calibration | None = None
        self.updates = 0

    def detect_markers(self, frame: np.ndarray) -> dict[int, np.ndarray]:
        """Visible mat markers: id -> 4x2 image corners (TL, TR, BR, BL)."""
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        corners, ids = None, None
        if min(gray.shape) >= 600:
            # Markers are large in a 720p frame: search at half size (4x fewer pixels),
            # then put the corners back on the full-size picture to a fraction of a pixel.
            corners, ids, _ = self._detector.detectMarkers(cv2.pyrDown(gray))
            if ids is not None and len(ids) >= min(2, len(self.layout.markers)):
                pts = np.concatenate([c.reshape(4, 2) for c in corners]) * 2 + 0.5
                crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05)
                pts = cv2.cornerSubPix(gray, pts.astype(np.float32).reshape(-1, 1, 2),
                                       (5, 5), (-1, -1), crit).reshape(-1, 4, 2)
                corners = list(pts)
            else:
                corners, ids = None, None
        if ids is None:
            corners, ids, _ = self._detector.detectMarkers(gray)
        found: dict[int, np.ndarray] = {}
        if ids is not None:
            for c, i in zip(corners, ids.ravel(), strict=True):
                if int(i) in self.layout.markers:
                    found[int(i)] = c.reshape(4, 2)
        return found

    def update(self, frame: np.ndarray) -> Calibration | None:
        """Re-estimate from ``frame``; returns the calibration in force (maybe the old one)."""
        found = self.detect_markers(frame)
        if not found:
            return self.current
        src = np.concatenate([found[i] for i in sorted(found)]).astype(np.float32)
        dst = np.concatenate([self.layout.markers[i] for i in sorted(found)]).astype(
            np.float32) * self.px_per_mm
        if self.current is not None:
            # Do the markers seen still agree with the homography we have?
            proj = cv2.perspectiveTransform(src[None], self.current.homography)[0]
            if float(np.abs(proj - dst).max()) <= self.moved_px and len(found) < 2:
                return self.current
        if len(found) >= 2:
            h, _ = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
        else:
            h, _ = cv2.findHomography(src, dst, 0)
        if h is None:
            return self.current
        err = float(np.linalg.norm(
            cv2.perspectiveTransform(src[None], h)[0] - dst, axis=1).mean())
        if err > 4.0:
            return self.current
        self.current = Calibration(h, len(found), err)
        self.updates += 1
        return self.current

    def rectify(self, frame: np.ndarray) -> np.ndarray | None:
        """The frame warped to the top-down mat view, or None before any calibration."""
        if self.current is None:
            return None
        return cv2.warpPerspective(frame, self.current.homography, self.size,
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    def to_mm(self, points_px: np.ndarray) -> np.ndarray:
        """Rectified pixels -> mat millimetres."""
        return np.asarray(points_px, float) / self.px_per_mm

    def to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """Mat millimetres -> camera image pixels (needs a calibration)."""
        if self.current is None:
            raise RuntimeError("not calibrated yet: no mat marker seen")
        inv = np.linalg.inv(self.current.homography)
        pts = np.asarray(points_mm, np.float32).reshape(1, -1, 2) * self.px_per_mm
        return cv2.perspectiveTransform(pts, inv)[0]
