"""The card check (``card_net.CardCheck``, trained by ``vision.check_train``): the last
look at each report of a photo's search, on what rules on outlines cannot tell from a
card (issue 11): a wallet, a written note, lettering on a cover."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.test_vision_detect_photos import card_box as box
from vision import detect
from vision.card_net import CHECK_PATH
from vision.check_train import clutter, label
from vision.deck_art import DeckStyle, render_deck
from vision.detect import Quad, card_check, checked
from vision.detect_scenes import TruthCard, background, lay_cards

W, H = 1280, 720

needs_model = pytest.mark.skipif(not CHECK_PATH.is_file() or card_check() is None,
                                 reason="no card check model or TFLite runtime")


@pytest.fixture(scope="module")
def deck():
    return render_deck(DeckStyle.from_seed(2_000_321))  # a style never trained on


def test_a_report_is_taught_as_a_card_only_when_half_of_it_shows_and_it_is_outlined_whole():
    card = TruthCard(box(400, 300, 10), 1.0, False, "5d")
    under = TruthCard(box(900, 300, 0), 0.3, False, "7c")
    cards = [card, under]
    assert label(card.corners, cards) == 1.0
    assert label(card.corners + 4, cards) == 1.0  # a few pixels off: still that card
    assert label(under.corners, cards) == 0.0  # mostly hidden: never reported
    pips = box(400, 300, 10, long_px=90)  # a block inside the card
    assert label(pips, cards) == 0.0
    assert label(box(640, 620, 0, long_px=150), cards) == 0.0  # the cloth
    # Halfway: a rough outline of a card is taught neither way.
    assert label(box(400, 300, 10, long_px=360), cards) is None


def test_a_part_of_a_card_outlined_as_a_card_lies_inside_it_and_is_taught_as_no_card():
    """``part_of``: a pip block, a back's panel or a card's visible end outlined as a
    smaller card, along the card or across it, inside it and of its shape."""
    from vision.card_net import quad_inside
    from vision.check_train import PART_AREA, part_of

    card = TruthCard(box(400, 300, 25), 1.0, False, "5d")
    rng = np.random.default_rng(3)
    area = abs(cv2.contourArea(card.corners))
    across = 0
    for _ in range(40):
        q = part_of(rng, card.corners)
        share = abs(cv2.contourArea(q)) / area
        assert PART_AREA[0] - 0.01 <= share <= PART_AREA[1] + 0.01
        assert quad_inside(q, card.corners) > 0.95
        short, long_ = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])
        assert long_ / short == pytest.approx(300 / 190, rel=0.1)  # a card's shape (box)
        # Its long side along the card's short one: turned across the card.
        across += abs(np.dot((q[3] - q[0]) / long_, (card.corners[1] - card.corners[0])
                             / np.linalg.norm(card.corners[1] - card.corners[0]))) > 0.9
        assert label(q, [card]) in (0.0, None)  # never a card
    assert 10 <= across <= 30


@needs_model
def test_part_negatives_are_added_to_the_crops_only_when_asked():
    from vision.check_train import _make

    x0, y0 = _make((5, 40, [2_000_400], 0.0, 0.0, 0.0, 0.0, 0.0))
    x1, y1 = _make((5, 40, [2_000_400], 0.0, 0.0, 0.0, 1.0, 0.0))
    assert y1.mean() < y0.mean()  # the same scenes, more crops taught as no card


@needs_model
def test_phone_look_scenes_are_drawn_only_when_asked():
    """``--phone-look``: that share of the scenes drawn as phone photos look; at 0 the
    committed recipe's scenes, to the pixel."""
    from vision.check_train import _make

    x0, y0 = _make((5, 20, [2_000_400], 0.0, 0.0, 0.0, 0.0, 0.0))
    again, _ = _make((5, 20, [2_000_400], 0.0, 0.0, 0.0, 0.0, 0.0))
    x1, y1 = _make((5, 20, [2_000_400], 0.0, 0.0, 0.0, 0.0, 1.0))
    assert np.array_equal(x0, again)
    assert x1.shape == x0.shape and not np.array_equal(x1, x0)
    assert set(np.unique(y1)) <= {0.0, 1.0}


def test_clutter_draws_on_the_table_and_leaves_the_scenes_without_it_unchanged():
    from vision.detect_scenes import detection_scene, scene_decks

    decks = scene_decks([11], width=64)
    a = detection_scene(np.random.default_rng(4), decks, (320, 240))[0]
    b = detection_scene(np.random.default_rng(4), decks, (320, 240))[0]
    assert np.array_equal(a, b)
    img = np.full((400, 600, 3), 128, np.uint8)
    drawn = [not np.array_equal(img, (c := img.copy(), clutter(c, np.random.default_rng(s),
                                                                150))[0])
             for s in range(12)]
    assert sum(drawn) >= 8


def test_reports_under_the_floor_are_dropped_and_each_keeps_its_score(monkeypatch):
    class Check:
        def scores(self, image, quads):
            return [0.9, 0.01, 0.6]

    monkeypatch.setattr(detect, "card_check", lambda: Check())
    reports = [Quad(box(200 + 300 * i, 300, 0), 1.0, 1.0) for i in range(3)]
    kept = checked(np.zeros((H, W, 3), np.uint8), reports, 0.5)
    assert kept == [reports[0], reports[2]]
    assert [q.check for q in reports] == [0.9, 0.01, 0.6]
    monkeypatch.setattr(detect, "card_check", lambda: None)  # no model: the rules alone
    assert checked(np.zeros((H, W, 3), np.uint8), reports) == reports


def clutter_scene(seed: int):
    """A generated scene of unseen styles with the check's extra clutter (not a training
    scene: those are drawn from other seeds)."""
    from vision.detect_scenes import detection_scene, scene_decks

    decks = scene_decks([2_000_000 + 4242 + k for k in range(3)], width=320)
    return detection_scene(np.random.default_rng(seed), decks, (W, H), (90, 420),
                           clutter=clutter)


def kinds(quads, cards) -> list[str]:
    from vision.card_net import quad_inside, quad_iou

    out = []
    for q in quads:
        best = max((quad_iou(q.corners, c.corners) for c in cards), default=0.0)
        if best >= 0.6:
            out.append("card")
        elif best > 0.3:
            out.append("other")
        else:
            out.append("inside" if any(quad_inside(q.corners, c.corners) > 0.7
                                       for c in cards) else "false")
    return out


@needs_model
@pytest.mark.parametrize("seed, what", [(26, "a written note of a card's size"),
                                        (13, "lettering on a book's cover")])
def test_what_the_rules_take_for_a_card_the_check_does_not(seed, what, monkeypatch):
    img, cards = clutter_scene(seed)
    check = card_check()
    monkeypatch.setattr(detect, "card_check", lambda: None)
    before = kinds(detect.find_cards(img), cards)
    assert "false" in before, f"{what} is no longer reported by the rules alone"
    monkeypatch.setattr(detect, "card_check", lambda: check)
    after = kinds(detect.find_cards(img), cards)
    assert "false" not in after, what
    assert after.count("card") == before.count("card")  # every card found stays


@needs_model
@pytest.mark.parametrize("kind", ["felt", "wood", "checks", "paper", "towel"])
def test_a_card_and_a_back_are_cards_and_a_wallet_is_not(deck, kind):
    rng = np.random.default_rng(4)
    img = background(rng, H, W, kind)
    wallet = box(900, 360, 20, 240)  # a dark slab of a card's size, stitched round
    cv2.fillConvexPoly(img, wallet.astype(np.int32), (40, 50, 70), cv2.LINE_AA)
    cv2.polylines(img, [box(900, 360, 20, 220).astype(np.int32)], True, (120, 140, 160), 1,
                  cv2.LINE_AA)
    face, back = box(400, 360, -15), box(650, 360, 5)
    img, _ = lay_cards(img, [(deck["5d"], face, False), (deck["back"], back, True)])
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    s_face, s_back, s_wallet = card_check().scores(img, [face, back, wallet])
    assert s_face > 0.9 and s_back > 0.5
    assert s_wallet < detect.CHECK_FLOOR


@needs_model
def test_training_crops_are_the_searchs_reports_labelled_by_the_truth_on_dressed_decks_too():
    """``check_train`` makes its crops from generated scenes, with the printed decks'
    looks (busy backs, art to the edge) on a share of the decks and more cards partly
    under others on a share of the scenes when asked: upright
    64x96 crops, each taught as a card or as no card."""
    from vision.check_train import CROP_H, CROP_W, _make

    for dressed, overlapping in ((0.0, 0.0), (1.0, 1.0)):
        x, y = _make((11, 30, [2_000_400, 2_000_401], 0.5, dressed, overlapping, 0.0, 0.0))
        assert x.shape == (30, CROP_H, CROP_W, 3) and x.dtype == np.uint8
        assert set(np.unique(y)) == {0.0, 1.0}  # cards and things that are no card
