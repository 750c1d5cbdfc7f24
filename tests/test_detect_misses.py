"""Cards ``find_cards`` used to miss on generated scenes (bench_vision_detect.py, dev
seeds), each reproduced on one staged scene."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.card_net import quad_iou
from vision.deck_art import DeckStyle, render_deck
from vision.detect import find_cards
from vision.detect_scenes import background, lay_cards

W, H = 1280, 720


@pytest.fixture(scope="module")
def deck():
    return render_deck(DeckStyle.from_seed(0))


def card_box(cx: float, cy: float, angle_deg: float, long_px: float = 260.0,
             ratio: float = 1.57) -> np.ndarray:
    """Corners TL TR BR BL of a card centred at (cx, cy), turned by ``angle_deg``."""
    w, h = long_px / ratio, long_px
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return ((np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2) @ rot.T
            + np.array([cx, cy])).astype(np.float32)


def scene(deck, kind: str, cards: list[tuple[str, np.ndarray]], seed: int = 1):
    rng = np.random.default_rng(seed)
    img = background(rng, H, W, kind)
    img, truth = lay_cards(img, [(deck[code], box, False) for code, box in cards])
    return cv2.GaussianBlur(img, (0, 0), 0.8), truth


@pytest.mark.parametrize("kind", ["felt", "wood", "paper"])
@pytest.mark.parametrize("angle", [0.0, 35.0])
def test_two_cards_side_by_side_are_two_cards_not_one_clean_blob(deck, kind, angle):
    """Two cards touching side by side make one clean, squat outline (2 x 0.64 : 1, within
    a tilted card's proportions) that steps to the table all round; the network sees
    two whole cards in it, each longer for its width than the outline: two cards."""
    w = 260.0 / 1.57
    a = math.radians(angle)
    along = np.array([math.cos(a), math.sin(a)]) * w / 2
    boxes = [card_box(*(np.array([640.0, 360.0]) + s * along), angle) for s in (-1, 1)]
    img, truth = scene(deck, kind, [("2d", boxes[0]), ("5c", boxes[1])])
    quads = find_cards(img)
    for t in truth:
        assert max((quad_iou(q.corners, t.corners) for q in quads), default=0.0) > 0.8
    assert len(quads) == 2, [q.corners.round().tolist() for q in quads]
