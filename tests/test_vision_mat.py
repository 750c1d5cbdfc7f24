"""The play mat: geometry, files, and calibration from its ArUco markers."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from vision.calibration import Calibrator
from vision.mat import MatError, draw_mat, mat_layout, seats_for, write_mat
from vision.scenes import camera_homography


@pytest.mark.parametrize("paper", ["A3", "A2"])
def test_zones_fit_on_the_sheet_and_do_not_overlap(paper):
    layout = mat_layout(paper)
    boxes = {}
    for name, zone in layout.zones.items():
        c = zone.corners()
        assert c.min() > 0 and c[:, 0].max() < layout.width and c[:, 1].max() < layout.height
        boxes[name] = c
    for corners in layout.markers.values():
        boxes[f"marker{len(boxes)}"] = corners
    for (a, ca), (b, cb) in itertools.combinations(boxes.items(), 2):
        if {a, b} == {"stock", "briscola"}:
            continue  # the briscola lies half under the stock on purpose
        inter, _ = cv2.intersectConvexConvex(ca.astype(np.float32), cb.astype(np.float32))
        assert inter < 1.0, f"{a} overlaps {b}"


def test_briscola_half_under_the_stock():
    z = mat_layout("A3").zones
    inter, _ = cv2.intersectConvexConvex(z["stock"].corners().astype(np.float32),
                                         z["briscola"].corners().astype(np.float32))
    area = z["briscola"].size[0] * z["briscola"].size[1]
    assert 0.3 * area < inter < 0.7 * area


def test_play_zone_lookup_and_seats():
    layout = mat_layout("A3")
    for seat in range(4):
        assert layout.zone_at(layout.play_zone(seat).center) == f"play{seat}"
    assert layout.zone_at((1.0, 1.0)) is None
    assert seats_for(2) == (0, 2)
    with pytest.raises(MatError, match="7 players"):
        seats_for(7)


def test_unknown_size_and_format_are_refused(tmp_path):
    with pytest.raises(MatError, match="A5"):
        mat_layout("A5")
    with pytest.raises(MatError, match="gif"):
        write_mat(tmp_path / "mat.gif")
    assert not (tmp_path / "mat.gif").exists()


def test_pdf_has_the_real_paper_size(tmp_path):
    path = write_mat(tmp_path / "mat.pdf", "A2", px_per_mm=2)
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 1683.78 1190.55]" in data  # 594 x 420 mm in points


def test_png_markers_are_detected(tmp_path):
    path = write_mat(tmp_path / "mat.png", "A3", px_per_mm=3)
    img = cv2.imread(str(path))
    assert img.shape[:2] == (891, 1260)
    found = Calibrator(mat_layout("A3")).detect_markers(img)
    assert sorted(found) == [0, 1, 2, 3]


def _camera_view(layout, tilt, yaw, roll, size=(1280, 720), shift=(0, 0)):
    ppm = 3.0
    mat = draw_mat(layout, ppm)
    h = camera_homography((layout.width, layout.height), ppm, size, tilt, yaw, roll,
                          fill=0.95, shift=shift)
    img = cv2.warpPerspective(mat, h, size, borderValue=(90, 90, 90))
    return img, h, ppm


def _mm_to_image(h, ppm, pts_mm):
    return cv2.perspectiveTransform(np.float32(pts_mm)[None] * ppm, h)[0]


def test_homography_maps_mat_millimetres_to_the_image():
    layout = mat_layout("A3")
    img, h, ppm = _camera_view(layout, tilt=25, yaw=30, roll=8)
    cal = Calibrator(layout, px_per_mm=2.0)
    assert cal.update(img) is not None
    centers = [z.center for z in layout.zones.values()]
    got = cal.to_image(np.array(centers))
    want = _mm_to_image(h, ppm, centers)
    assert np.abs(got - want).max() < 2.0
    rect = cal.rectify(img)
    assert rect.shape[:2] == (594, 840)


def test_hidden_markers_keep_or_refit_the_homography():
    layout = mat_layout("A3")
    img, h, ppm = _camera_view(layout, tilt=20, yaw=10, roll=0)
    cal = Calibrator(layout)
    first = cal.update(img)
    assert first.markers_seen == 4
    # Hands over two markers: the other two still give a good homography.
    covered = img.copy()
    for mid in (0, 2):
        pts = _mm_to_image(h, ppm, layout.markers[mid]).astype(np.int32)
        cv2.fillConvexPoly(covered, cv2.convexHull(pts), (120, 150, 200))
    assert cal.update(covered) is not None
    # All markers hidden: the last good homography stays in force.
    blank = np.full_like(img, 100)
    assert cal.update(blank) is cal.current
    assert np.allclose(cal.current.homography, cal.current.homography)
    centre = cal.to_image(np.array([[layout.width / 2, layout.height / 2]]))
    want = _mm_to_image(h, ppm, [[layout.width / 2, layout.height / 2]])
    assert np.abs(centre - want).max() < 2.0


def test_a_bumped_camera_recovers_by_itself():
    layout = mat_layout("A3")
    cal = Calibrator(layout)
    img, _, _ = _camera_view(layout, tilt=10, yaw=0, roll=0)
    cal.update(img)
    moved, h, ppm = _camera_view(layout, tilt=18, yaw=40, roll=5, shift=(25, -10))
    cal.update(moved)
    pts = [z.center for z in layout.zones.values()]
    assert np.abs(cal.to_image(np.array(pts)) - _mm_to_image(h, ppm, pts)).max() < 2.0


def test_cli_mat(tmp_path, capsys):
    from table_controller.cli import main as cli_main

    out = tmp_path / "mat.png"
    assert cli_main(["mat", "--out", str(out), "--size", "a2", "--dpi", "50"]) == 0
    img = cv2.imread(str(out))
    assert abs(img.shape[1] - 594 * 50 / 25.4) <= 1 and abs(img.shape[0] - 420 * 50 / 25.4) <= 1
    assert cli_main(["mat", "--out", str(tmp_path / "m.pdf"), "--size", "B4"]) == 2
    assert "unknown mat size 'B4'" in capsys.readouterr().err
    assert not (tmp_path / "m.pdf").exists()
