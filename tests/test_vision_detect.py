"""Card quadrilaterals: corner order, warping, detection on photos and on the mat."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.augment import random_texture
from vision.deck_art import CARD_H_MM, CARD_W_MM
from vision.detect import find_cards, find_cards_on_mat, order_corners, warp_card
from vision.enroll import builtin_faces
from vision.mat import draw_mat, mat_layout
from vision.scenes import PlacedCard, camera_homography, paste_cards, render, scatter


@settings(max_examples=200, deadline=None)
@given(angle=st.floats(0, 360), w=st.floats(20, 200), ratio=st.floats(1.2, 2.0),
       cx=st.floats(-500, 500), cy=st.floats(-500, 500), shuffle=st.permutations(range(4)))
def test_corners_come_out_clockwise_with_a_short_top_side(angle, w, ratio, cx, cy, shuffle):
    h = w * ratio
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    box = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2 @ rot.T + [cx, cy]
    q = order_corners(box[list(shuffle)])
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    assert sides[0] < sides[1] and sides[2] < sides[3]
    # Clockwise on screen (y down): positive shoelace area.
    x, y = q[:, 0], q[:, 1]
    assert np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)) > 0
    assert q[0, 1] + q[1, 1] <= q[2, 1] + q[3, 1] + 1e-6  # the top side is the higher one


def test_warp_card_stands_the_card_up():
    face = builtin_faces()["7s"]
    canvas = np.zeros((400, 400, 3), np.uint8)
    m = cv2.getRotationMatrix2D((200, 200), 90, 1.0)
    fh, fw = face.shape[:2]
    canvas[80:80 + fh, 120:120 + fw] = face
    turned = cv2.warpAffine(canvas, m, (400, 400))
    pts = cv2.transform(np.float32([[120, 80], [120 + fw, 80], [120 + fw, 80 + fh],
                                    [120, 80 + fh]])[None], m)[0]
    patch = warp_card(turned, order_corners(pts))
    want = cv2.resize(face, (64, 96), interpolation=cv2.INTER_AREA)
    d_up = np.abs(patch.astype(int) - want).mean()
    d_turned = np.abs(patch[::-1, ::-1].astype(int) - want).mean()
    assert min(d_up, d_turned) < 12


PPM = 3.0  # plane pixels per mm


def _tilted_photo(rng, faces, plane, plane_mm, codes, fill, dark_table=False):
    """``codes`` scattered on ``plane``, seen by a camera tilted up to 30 degrees; with
    ``dark_table`` the plane is a cloth lying on a darker table."""
    cards = scatter(rng, codes, plane_mm)
    h = camera_homography(plane_mm, PPM, (1280, 720), tilt=rng.uniform(0, 30),
                          yaw=rng.uniform(0, 360), roll=rng.uniform(-90, 90), fill=fill)
    table = (random_texture(rng, 720, 1280) * 0.6).astype(np.uint8) if dark_table else None
    return render(plane, PPM, faces, cards, h, (1280, 720), rng, background=table), cards


def test_find_cards_in_tilted_photos():
    faces = builtin_faces()
    rng = np.random.default_rng(8)
    total = found = extra = 0
    for _ in range(5):
        plane_mm = (520.0, 320.0)
        plane = random_texture(rng, int(plane_mm[1] * PPM), int(plane_mm[0] * PPM))
        img, cards = _tilted_photo(rng, faces, plane, plane_mm, ["1d", "5c", "9s", "10b"], 1.0)
        quads = find_cards(img)
        for c in cards:
            if c.corners.min() < 2 or c.corners[:, 0].max() > 1278 or c.corners[:, 1].max() > 718:
                continue
            total += 1
            match = [q for q in quads if cv2.pointPolygonTest(
                c.corners.reshape(-1, 1, 2), tuple(map(float, q.center)), False) >= 0]
            if match:
                found += 1
                # Corners within a few pixels of the truth (either way up).
                err = min(np.abs(match[0].corners - np.roll(c.corners, k, axis=0)).max()
                          for k in range(4))
                assert err < 12
        extra += len(quads) - found
    assert total >= 15 and found >= total - 1
    assert extra <= 1


def test_refined_corners_lie_on_the_card_to_a_fraction_of_a_pixel():
    """Naming compares pixels: corners a pixel or two off leave a card to be aligned, or
    unknown. Each side goes to the top of its edge's step, between samples; from rough
    corners 3 px off, the median corner lands within a pixel (was 1.6 px: the outermost
    half-height sample of a blurred edge's ramp lies outside the edge)."""
    from vision.detect import refine_corners

    faces = builtin_faces()
    rng = np.random.default_rng(31)
    errs = []
    for _ in range(6):
        plane_mm = (520.0, 320.0)
        plane = random_texture(rng, int(plane_mm[1] * PPM), int(plane_mm[0] * PPM))
        img, cards = _tilted_photo(rng, faces, plane, plane_mm, ["1d", "5c", "9s", "10b"], 0.95)
        for c in cards:
            if c.corners.min() < 20 or c.corners[:, 0].max() > 1260 or \
                    c.corners[:, 1].max() > 700:
                continue
            rough = c.corners + rng.uniform(-3, 3, (4, 2)).astype(np.float32)
            errs += list(np.linalg.norm(refine_corners(img, rough) - c.corners, axis=1))
    assert len(errs) >= 60
    assert np.median(errs) < 1.0 and np.percentile(errs, 90) < 2.5


def test_cards_refined_together_get_the_corners_each_gets_alone():
    """The quick path refines a frame's cards in one pass; cards of different sizes
    search edge profiles of different lengths, and a card at the picture's border
    samples past it: each must come out as it would alone, to the bit."""
    from vision.detect import refine_corners, refine_corners_all

    faces = builtin_faces()
    rng = np.random.default_rng(32)
    img = random_texture(rng, 720, 1280)
    boxes = [((200, 300), 90, 140, 10), ((560, 360), 150, 235, -25),
             ((900, 200), 60, 95, 40), ((1230, 660), 120, 190, 5)]  # the last off the edge
    quads = []
    for (cx, cy), w, h, deg in boxes:
        a = np.deg2rad(deg)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        q = (np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2) @ rot.T + (cx, cy)
        face = faces["5c"]
        m = cv2.getPerspectiveTransform(
            np.float32([[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]],
                        [0, face.shape[0]]]), np.float32(q))
        card = cv2.warpPerspective(face, m, (1280, 720))
        mask = cv2.warpPerspective(np.full(face.shape[:2], 255, np.uint8), m, (1280, 720))
        img[mask > 0] = card[mask > 0]
        quads.append((q + rng.uniform(-3, 3, (4, 2))).astype(np.float32))
    for reach, inset in ((0.04, 0.0), (0.1, 0.0), (0.04, 1.0)):
        # (inset: the rough outline drawn in by the reach, each edge at its search's end)
        tries = []
        for q, (_, w, h, _) in zip(quads, boxes, strict=True):
            inward = q.mean(axis=0) - q
            inward /= np.linalg.norm(inward, axis=1, keepdims=True)
            tries.append(np.float32(q + inset * reach * min(w, h) * inward))
        together = refine_corners_all(img, tries, reach)
        alone = [refine_corners(img, q, reach) for q in tries]
        assert all(np.array_equal(t, a) for t, a in zip(together, alone, strict=True))
    assert any(not np.array_equal(t, q) for t, q in zip(together, quads, strict=True))
    assert refine_corners_all(img, []) == []


def test_a_phone_held_upright_sees_the_same_cards():
    # A 1080x1920 frame is searched at the size of a 720p one turned, with windows in
    # proportion: the same picture turned a quarter gives the same cards.
    from vision.detect import find_cards_classical

    faces = builtin_faces()
    rng = np.random.default_rng(31)
    for _ in range(3):
        plane_mm = (520.0, 320.0)
        plane = random_texture(rng, int(plane_mm[1] * PPM), int(plane_mm[0] * PPM))
        cards = scatter(rng, ["2d", "6c", "7s", "3b"], plane_mm)
        h = camera_homography(plane_mm, PPM, (1920, 1080), tilt=rng.uniform(0, 30),
                              yaw=rng.uniform(0, 360), roll=rng.uniform(-90, 90), fill=1.0)
        img = render(plane, PPM, faces, cards, h, (1920, 1080), rng)
        wide = find_cards_classical(img)
        upright = find_cards_classical(cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE))
        assert len(wide) >= 3 and len(upright) == len(wide)
        # (x, y) in the wide frame is (1079 - y, x) in the upright one.
        centres = [np.array([1079 - q.center[1], q.center[0]]) for q in wide]
        for q in upright:
            assert min(np.linalg.norm(q.center - c) for c in centres) < 4


def _light_cloth(rng, h, w):
    """A pale, grainy cloth (a tablecloth a few shades darker than card stock)."""
    base = rng.uniform(150, 205) * rng.uniform(0.9, 1.05, 3)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.5)
    img = base[None, None, :] + grain[..., None] * rng.uniform(20, 45)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_find_cards_on_a_light_cloth_over_a_darker_table():
    """White cards on a pale grainy cloth, itself lying on a darker table: a global
    threshold puts cards and cloth together; the local cloth colour tells them apart.
    The figures' robes, card-shaped panels inside the card, are not taken for cards."""
    faces = builtin_faces()
    rng = np.random.default_rng(3)
    total, errors, extra = 0, [], 0
    for _ in range(6):
        plane_mm = (420.0, 280.0)
        plane = _light_cloth(rng, int(plane_mm[1] * PPM), int(plane_mm[0] * PPM))
        img, cards = _tilted_photo(rng, faces, plane, plane_mm, ["10b", "9c", "8d", "4s"], 0.8,
                                   dark_table=True)
        quads = find_cards(img)
        matched = 0
        for c in cards:
            total += 1
            match = [q for q in quads if cv2.pointPolygonTest(
                c.corners.reshape(-1, 1, 2), tuple(map(float, q.center)), False) >= 0]
            assert len(match) <= 1, "one card found twice"
            matched += len(match)
            if match:
                errors.append(min(np.abs(match[0].corners - np.roll(c.corners, k, axis=0)).max()
                                  for k in range(4)))
        extra += len(quads) - matched
    # One card, under glare on the cloth, has a corner washed out (found 23 of 24).
    assert total == 24 and len(errors) >= total - 2
    assert np.median(errors) < 6 and max(errors) < 20
    assert extra == 0


@pytest.mark.parametrize("turn", [80.0, 95.0])
def test_cards_touching_corner_to_corner_on_the_mat_are_split(turn):
    # Two cards meeting at a corner make one blob that fills half its outline (the
    # benchmark's 4-player hand: a card laid crosswise touching the next zone's card).
    layout = mat_layout("A3")
    ppm = 1.25
    mat = draw_mat(layout, ppm)
    cx, cy = layout.width / 2, layout.height / 2
    upright = PlacedCard("4b", (cx - CARD_W_MM / 2 - 2, cy + CARD_H_MM / 2 - 4), 0.0)
    # The crosswise card's near corner on the upright card's top-right corner.
    a = math.radians(turn)
    half = np.array([CARD_W_MM, CARD_H_MM]) / 2
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    corner = np.array(upright.center_mm) + [CARD_W_MM / 2, -CARD_H_MM / 2]
    far = min((rot @ (half * s) for s in ([1, 1], [1, -1], [-1, 1], [-1, -1])),
              key=lambda v: v[0] + -v[1])  # the crosswise card's lower-left corner
    crosswise = PlacedCard("7d", tuple(corner - far + [-1.0, 1.0]), turn)  # 1 mm over
    top = paste_cards(mat, ppm, builtin_faces(), [upright, crosswise], shadow=False)
    quads, mask = find_cards_on_mat(top, ppm, (CARD_W_MM, CARD_H_MM))
    _, labels = cv2.connectedComponents(mask)
    blob = {int(labels[round(c.center_mm[1] * ppm), round(c.center_mm[0] * ppm)])
            for c in (upright, crosswise)}
    assert len(blob) == 1 and 0 not in blob  # one blob: the failure is staged
    centers = sorted(tuple(np.round(q.center / ppm)) for q in quads)
    assert len(centers) == 2
    for (x, y), c in zip(centers, sorted([upright, crosswise], key=lambda c: c.center_mm),
                         strict=True):
        assert math.dist((x, y), c.center_mm) < 4


@pytest.mark.parametrize("turn", [0.0, 90.0, 33.0])
@pytest.mark.parametrize("end_to_end", [False, True])
def test_touching_cards_on_the_mat_are_split(turn, end_to_end):
    layout = mat_layout("A3")
    ppm = 2.0
    mat = draw_mat(layout, ppm)
    cx, cy = layout.width / 2, layout.height / 2
    step = (CARD_H_MM if end_to_end else CARD_W_MM) / 2 - 1  # overlapping by ~2 mm
    t = math.radians(turn)
    d = (-math.sin(t) * step, math.cos(t) * step) if end_to_end else (
        math.cos(t) * step, math.sin(t) * step)
    cards = [PlacedCard("3c", (cx - d[0], cy - d[1]), turn),
             PlacedCard("4d", (cx + d[0], cy + d[1]), turn + 1.0)]
    top = paste_cards(mat, ppm, builtin_faces(), cards, shadow=False)
    quads, _ = find_cards_on_mat(top, ppm, (CARD_W_MM, CARD_H_MM))
    centers = sorted(tuple(np.round(q.center / ppm)) for q in quads)
    assert len(centers) == 2
    for (x, y), c in zip(centers, sorted(cards, key=lambda c: c.center_mm), strict=True):
        assert math.dist((x, y), c.center_mm) < 4
