"""The learned detector on the failures real photographs showed (issue 11), each
reproduced on a generated scene: cards touching on gingham, a stack of three, the
pips inside a card, the briscola half under the stock, check cloth, white paper."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.card_net import NetCard, _suppress, quad_inside, quad_iou
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
    placed = [(deck[code], box, code == "back") for code, box in cards]
    img, truth = lay_cards(img, placed)
    return cv2.GaussianBlur(img, (0, 0), 0.8), truth


def best_iou(quads, corners) -> float:
    return max((quad_iou(q.corners, corners) for q in quads), default=0.0)


def test_two_cards_end_to_end_on_gingham_are_two_cards(deck):
    img, truth = scene(deck, "checks", [("5s", card_box(500, 230, 90)),
                                        ("7s", card_box(760, 230, 90))], seed=3)
    quads = find_cards(img)
    assert len(quads) == 2, [q.corners for q in quads]
    for t in truth:
        assert best_iou(quads, t.corners) > 0.85


@pytest.mark.parametrize("kind", ["felt", "wood", "paper"])
def test_three_cards_side_by_side_are_three_cards_not_one_card_shaped_blob(deck, kind):
    """Three cards touching side by side make an outline of a card's own proportions
    (3 x 0.64 : 1) that steps to the table all round: three cards, not one."""
    w = 260.0 / 1.57
    boxes = [card_box(640 + (i - 1) * w, 360, 0) for i in range(3)]
    img, truth = scene(deck, kind, [("2d", boxes[0]), ("5c", boxes[1]), ("4s", boxes[2])])
    quads = find_cards(img)
    for t in truth:
        assert best_iou(quads, t.corners) > 0.8
    assert len(quads) == 3, [q.corners.round().tolist() for q in quads]


def test_a_stack_of_three_gives_no_merged_blob_and_no_pip_block(deck):
    boxes = [card_box(480 + 90 * i, 360, 8 * i) for i in range(3)]
    img, truth = scene(deck, "felt", [("6d", boxes[0]), ("4c", boxes[1]), ("6c", boxes[2])])
    quads = find_cards(img)
    assert [t.visible >= 0.5 for t in truth] == [True, True, True]
    assert best_iou(quads, truth[-1].corners) > 0.85  # the top card, to a few pixels
    assert best_iou(quads, truth[0].corners) > 0.5  # the bottom one, its corners inferred
    card_area = cv2.contourArea(boxes[0])
    # Nothing much smaller than a card (a block of pips), nothing spanning two cards.
    assert all(q.area > 0.6 * card_area for q in quads), [q.area / card_area for q in quads]
    assert all(q.area < 1.4 * card_area for q in quads), [q.area / card_area for q in quads]


def test_a_single_number_card_is_one_card_not_its_pips(deck):
    img, truth = scene(deck, "wood", [("6d", card_box(640, 360, 25, long_px=420))])
    quads = find_cards(img)
    assert len(quads) == 1
    assert quad_iou(quads[0].corners, truth[0].corners) > 0.9


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_check_cloth_alone_is_no_card(seed):
    rng = np.random.default_rng(seed)
    img = background(rng, H, W, "checks")
    assert find_cards(img) == []


@pytest.mark.parametrize("seed", [2, 8, 11])
def test_flowered_cloth_the_masks_take_for_cards_is_no_card(seed):
    """On a flowered cloth the colour masks see card-shaped blobs (1-4 per picture);
    where the network sees not even a faint card they are cloth, not cards."""
    from vision.detect import find_cards_classical

    img = background(np.random.default_rng(seed), H, W, "flowers")
    assert find_cards_classical(img)  # the masks' false reports are reproduced
    assert find_cards(img) == []


def test_two_overlapping_cards_on_white_paper_are_found(deck):
    img, truth = scene(deck, "paper", [("1c", card_box(560, 360, -10)),
                                       ("9d", card_box(700, 380, 15))], seed=5)
    quads = find_cards(img)
    for t in truth:
        assert best_iou(quads, t.corners) > 0.75
    assert len(quads) == 2


@pytest.mark.parametrize("code", ["3b", "7d", "10c", "5s"])
def test_a_card_half_under_the_stock_is_never_its_half_stretched_nor_a_guess(deck, code):
    """The visible half of the crosswise card is squarer than any card of the deck:
    never stretched into a whole card and named; the card itself is named right or
    left unknown."""
    from vision.enroll import builtin_deck
    from vision.recognize import Recognizer, find_and_identify

    brisc = card_box(660, 360, 90)
    stock = card_box(560, 360, 0)
    img, truth = scene(deck, "felt", [(code, brisc), ("back", stock), ("back", stock + 1.5)],
                       seed=7)
    seen = find_and_identify(img, Recognizer(builtin_deck()))
    on_it = [s for s in seen if quad_iou(s.corners, truth[0].corners) > 0.2
             and quad_iou(s.corners, truth[1].corners) < 0.5]
    assert on_it, "the crosswise card is not found"
    for s in on_it:
        assert quad_iou(s.corners, truth[0].corners) > 0.6  # its whole outline
        assert s.identity.card in (code, None)


def test_the_maps_decode_to_the_cards_they_encode_clockwise():
    """Training targets and run-time decoding agree, and a decoded card is never its
    mirror image (a mirrored patch matches no face)."""
    from vision.card_net import decode
    from vision.detect_scenes import TruthCard
    from vision.detect_train import targets

    cards = [TruthCard(card_box(cx, cy, a, long_px=90), 1.0, False)
             for cx, cy, a in ((60, 70, 0), (180, 80, 37), (120, 190, 100), (200, 200, 215))]
    t = targets(cards, 256, 256)
    maps = np.concatenate([t[..., :7], t[..., 7:8]], -1)
    found = decode(maps, 1.0, 0.99)
    assert len(found) == len(cards)
    for c in cards:
        f = max(found, key=lambda f: quad_iou(f.corners, c.corners))
        err = min(np.abs(f.corners - np.roll(c.corners, k, axis=0)).max() for k in (0, 2))
        assert err < 1.0
        a, b = f.corners[1] - f.corners[0], f.corners[2] - f.corners[1]
        assert a[0] * b[1] - a[1] * b[0] > 0  # clockwise, y down


@pytest.mark.parametrize("coarse", [False, True])
@pytest.mark.parametrize("size", [(1280, 720), (1080, 1920), (1600, 1200), (900, 1200)])
def test_the_int8_model_of_a_frame_shape_finds_what_the_float_model_finds(size, coarse):
    """16:9 and 4:3 pictures, either way up, run the int8 model exported for their
    padded shape, at the fine look's side and at the coarse look's (with cards of a
    close-up); its cards are the float model's, within quantisation noise."""
    from vision.card_net import CardNet
    from vision.detect import COARSE
    from vision.detect_scenes import detection_scene, scene_decks

    net = CardNet()
    side = net.side_for(size[1], size[0])
    side = round(side * COARSE) if coarse else side
    span = (0.45 * min(size), 0.9 * min(size)) if coarse else (0.12 * max(size),
                                                                 0.3 * max(size))
    rng = np.random.default_rng(17)
    decks = scene_decks([2_000_017])
    fixed, both = dict(net._fixed_paths), 0
    for _ in range(12 if coarse else 6):  # (a close-up holds fewer cards)
        img, _cards = detection_scene(rng, decks, size, span)
        net._fixed_paths = {}
        f32, scale = net.maps(img, side)
        net._fixed_paths = fixed
        i8, scale8 = net.maps(img, side)
        assert scale8 == scale and i8.shape == f32.shape
        assert len(net._fixed) == 1  # the int8 model of this shape ran
        assert np.abs(i8[..., 0] - f32[..., 0]).max() < 0.2  # heat
        a, b = net.find(img, side=side), (net._fixed_paths.clear(),
                                          net.find(img, side=side))[1]
        net._fixed_paths = fixed
        for c in b:  # each card of the float model is found by the int8 one
            if c.score > net.threshold + 0.1:
                assert max((quad_iou(c.corners, d.corners) for d in a), default=0) > 0.8
                both += 1
    assert both >= 6


def test_one_decoding_serves_every_threshold_and_the_masks_copy_feeds_the_network():
    """``find_at`` decodes the maps once, at its lowest threshold: at each threshold it
    reports what decoding at that threshold alone reports (suppression keeps a card
    for surer ones only). A 720p frame halved for the masks gives the network the
    input it would make itself."""
    from vision.card_net import CardNet, decode
    from vision.detect import NET_MIN_PX, net_sight, work_image
    from vision.detect_scenes import detection_scene, scene_decks

    net = CardNet()
    rng = np.random.default_rng(23)
    decks = scene_decks([2_000_023])
    seen = 0
    for _ in range(4):
        img, _cards = detection_scene(rng, decks, (W, H), (90, 300))
        maps, scale = net.maps(img)
        small, _ = work_image(img)
        assert np.array_equal(net.maps(img, smaller=small)[0], maps)
        strong, weak = net.find_at(img, [net.threshold, 0.15], smaller=small)
        for t, got in ((net.threshold, strong), (0.15, weak)):
            alone = [c for c in decode(maps, scale, t) if c.corners.mean(0)[0] < W
                     and c.corners.mean(0)[1] < H]
            assert [c.corners.tolist() for c in got] == [c.corners.tolist() for c in alone]
        assert len(weak) >= len(strong)
        # What find_and_identify keeps of it: the same cards, the faint ones on demand
        # (these scenes' cards are too small for the coarse look to add one).
        sight = net_sight(img)
        assert [c.corners.tolist() for c in sight.weak] == [c.corners.tolist() for c in weak]
        floor = (NET_MIN_PX * W / net.long_side) ** 2
        assert [c.corners.tolist() for c in sight.found] == [
            c.corners.tolist() for c in strong if abs(cv2.contourArea(c.corners)) >= floor]
        seen += len(strong)
    assert seen >= 8


def test_a_stray_file_beside_the_detector_is_no_model_of_a_shape(tmp_path):
    """Only ``<name>-HxW.tflite`` files are the int8 models of a shape: a copy or a
    backup named otherwise beside the model does not stop the table from starting."""
    import shutil

    from vision.card_net import MODEL_PATH, CardNet

    for f in MODEL_PATH.parent.glob("card_detect*"):
        shutil.copy(f, tmp_path)
    (tmp_path / "card_detect-axb.tflite").write_bytes(b"not a model")
    (tmp_path / "card_detect-old-copy.tflite").write_bytes(b"not a model")
    net = CardNet(tmp_path / "card_detect.tflite")
    assert sorted(net._fixed_paths) == [(160, 256), (192, 256), (288, 480), (320, 192),
                                        (320, 256), (384, 480), (640, 384), (640, 480)]


def test_edge_support_tells_a_true_outline_from_one_with_a_corner_off(deck):
    from vision.detect import edge_support

    img, truth = scene(deck, "felt", [("4c", card_box(640, 360, 20, long_px=220))], seed=2)
    true = truth[0].corners
    assert edge_support(img, true) >= 0.9
    swung = true.copy()
    swung[2] += (swung[2] - true.mean(axis=0)) * 0.15  # one corner out into the cloth
    assert edge_support(img, swung) < 0.8


def _table_scene(deck, i: int):
    """A photo as the recognition benchmark makes them: four faces and a back on a
    random table texture, camera tilted up to 30 degrees."""
    from vision.augment import random_texture
    from vision.scenes import camera_homography, render, scatter

    rng = np.random.default_rng((11, i))
    plane = random_texture(rng, 1020, 1680)
    codes = ["4d", "6c", "5d", "1d", "8s"]
    cards = scatter(rng, [*rng.choice(codes, 4, replace=False), "back"], (560.0, 340.0))
    h = camera_homography((560.0, 340.0), 3.0, (W, H), tilt=rng.uniform(0, 30),
                          yaw=rng.uniform(0, 360), roll=rng.uniform(-180, 180), fill=1.15)
    return render(plane, 3.0, deck, cards, h, (W, H), rng), cards


@pytest.mark.parametrize(("i", "code"), [(8, "6c"), (39, "6c")])
def test_a_mask_outline_with_a_corner_off_gives_way_to_the_networks(deck, i, code):
    """The colour masks outline these cards with a corner 14-17 px off (it ran into a
    shadow or the cloth), which leaves the card unknown; the network's outline of the
    same card lies on its edge all round and is taken instead. (Scene 44's 1 of coins
    was another until the cloth's median was taken at an eighth of the size; scene
    55's 8 of swords came from the closed masks, which photos no longer search.)"""
    from vision.detect import find_cards_classical, refine_corners

    img, cards = _table_scene(deck, i)
    card = next(c for c in cards if c.code == code)

    def err(quads) -> float:
        q = next(q for q in quads if cv2.pointPolygonTest(
            card.corners.reshape(-1, 1, 2).astype(np.float32),
            tuple(float(v) for v in q.center), False) >= 0)
        return min(float(np.linalg.norm(np.roll(q.corners, r, 0) - card.corners, axis=1).max())
                   for r in range(4))

    masks = find_cards_classical(img)
    for q in masks:
        q.corners = refine_corners(img, q.corners)
    assert err(masks) > 12  # the failure is reproduced
    assert err(find_cards(img)) < 6


def _plain_slab(img: np.ndarray, cx: float, cy: float, angle: float, size: tuple[int, int],
                colour: tuple[int, int, int], text: bool = False) -> np.ndarray:
    """A phone, a book cover or a blank sheet: a plain card-shaped slab, drawn in place."""
    box = card_box(cx, cy, angle, long_px=size[1], ratio=size[1] / size[0])
    cv2.fillConvexPoly(img, box.astype(np.int32), colour, cv2.LINE_AA)
    if text:
        cv2.putText(img, "ab", (int(cx) - 20, int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 1.2,
                    (200, 200, 60), 2)
    return box


@pytest.mark.parametrize(("kind", "seed"), [("wood", 1), ("felt", 1), ("towel", 2),
                                            ("checks", 1)])
def test_a_phone_a_book_and_a_sheet_are_no_cards(deck, kind, seed):
    """Their outlines are as clean as a card's and the network does not see them:
    they were reported as cards. A card is light stock with print on it; they are dark
    or plain."""
    from vision.detect import find_cards_classical

    rng = np.random.default_rng(seed)
    img = background(rng, H, W, kind)
    things = [_plain_slab(img, 260, 220, 30, (110, 220), (35, 35, 40)),  # a phone
              _plain_slab(img, 980, 420, -20, (250, 340), (40, 40, 160), text=True),  # a book
              _plain_slab(img, 640, 560, 80, (300, 420), (236, 240, 242))]  # a blank sheet
    img, truth = lay_cards(img, [(deck["5c"], card_box(600, 170, 10), False)])
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)

    def on_things(quads) -> int:
        return sum(max(quad_iou(q.corners, t) for t in things) > 0.5 for q in quads)

    assert on_things(find_cards_classical(img)) >= 2  # the masks take them for cards
    quads = find_cards(img)
    assert on_things(quads) == 0
    assert len(quads) == 1 and quad_iou(quads[0].corners, truth[0].corners) > 0.9


def _bench_scene(seed: int, k: int):
    """Scene ``k`` (from 0) of bench_vision_detect.py at 1280x720 with ``--seed``."""
    from vision.detect_scenes import detection_scene, scene_decks

    rng = np.random.default_rng(seed)
    decks = scene_decks(2_000_000 + rng.integers(0, 1_000_000, 6), width=320)
    for _ in range(k + 1):
        img, truth = detection_scene(rng, decks, (W, H), card_px=(90, 420))
    return img, truth


def test_a_sheet_under_a_row_of_cards_is_no_card():
    """A generated scene of unseen styles: a row of four cards on a sheet of paper,
    which the masks outline whole. The sheet was reported and hid the row's cards."""
    from vision.detect import find_cards_classical

    img, truth = _bench_scene(301, 2)
    card_area = max(abs(cv2.contourArea(t.corners)) for t in truth)
    assert any(q.area > 20 * card_area for q in find_cards_classical(img))  # reproduced
    quads = find_cards(img)
    assert all(q.area < 2 * card_area for q in quads)
    row = [t for t in truth if t.corners.mean(0)[0] > 950]
    assert len(row) == 4 and sum(best_iou(quads, t.corners) > 0.8 for t in row) >= 2


def test_a_pip_block_the_network_reports_inside_a_card_is_no_card():
    """A generated scene of unseen styles: in a card half under another the network
    reports cards a twentieth its size, far smaller than any card it finds."""
    from vision.detect import learned_detectors

    img, truth = _bench_scene(301, 27)
    card = next(t for t in truth if t.visible > 0.5 and abs(t.corners.mean(0)[0] - 684) < 10)
    area = abs(cv2.contourArea(card.corners))

    def blocks(corners_list) -> int:
        return sum(quad_inside(c, card.corners) > 0.9 and abs(cv2.contourArea(c)) < 0.1 * area
                   for c in corners_list)

    assert blocks([c.corners for c in learned_detectors()[0].find(img)]) >= 1  # reproduced
    quads = find_cards(img)
    assert blocks([q.corners for q in quads]) == 0
    other = next(t for t in truth if abs(t.corners.mean(0)[0] - 923) < 10)  # still found
    assert best_iou(quads, other.corners) > 0.6


@pytest.mark.parametrize(("kind", "seed"), [("wood", 1), ("felt", 1), ("checks", 1),
                                            ("flowers", 1)])
def test_a_written_sheet_beside_the_cards_is_no_card(deck, kind, seed):
    """A sheet of paper with writing on it: printed light stock with a clean outline,
    faintly seen by the network, it was reported. It is six times the size of the
    cards the network sees, and the cards of one deck are all one size."""
    from vision.detect import find_cards_classical

    rng = np.random.default_rng(seed)
    img = background(rng, H, W, kind)
    sheet = background(rng, 200, 141, "paper")
    box = card_box(880, 330, 25, long_px=470, ratio=1.414)
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [141, 0], [141, 200], [0, 200]]), box)
    on = cv2.warpPerspective(np.full((200, 141), 255, np.uint8), m, (W, H)) > 127
    img[on] = cv2.warpPerspective(sheet, m, (W, H))[on]
    img, truth = lay_cards(img, [(deck[c], card_box(x, y, a, long_px=200), False) for c, x, y, a
                                 in [("5c", 200, 200, 10), ("3d", 420, 480, -30),
                                     ("7s", 250, 560, 80)]])
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    assert best_iou(find_cards_classical(img), box) > 0.7  # the masks outline the sheet
    quads = find_cards(img)
    assert best_iou(quads, box) < 0.3
    assert len(quads) == 3 and all(best_iou(quads, t.corners) > 0.9 for t in truth)


@pytest.mark.parametrize("kind", ["felt", "wood", "paper"])
@pytest.mark.parametrize("angle", [0.0, 35.0])
def test_two_cards_side_by_side_are_two_cards_not_one_clean_blob(deck, kind, angle):
    """(A miss on generated scenes, dev seeds.) Two cards touching side by side make
    one clean, squat outline (2 x 0.64 : 1, within a tilted card's proportions) that
    steps to the table all round; the network sees two whole cards in it, each longer
    for its width than the outline: two cards."""
    w = 260.0 / 1.57
    a = math.radians(angle)
    along = np.array([math.cos(a), math.sin(a)]) * w / 2
    boxes = [card_box(*(np.array([640.0, 360.0]) + s * along), angle) for s in (-1, 1)]
    img, truth = scene(deck, kind, [("2d", boxes[0]), ("5c", boxes[1])])
    quads = find_cards(img)
    assert all(best_iou(quads, t.corners) > 0.8 for t in truth)
    assert len(quads) == 2, [q.corners.round().tolist() for q in quads]


def _net_card(x: float, y: float, w: float, h: float, score: float) -> NetCard:
    corners = np.float32([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
    return NetCard(corners, score, 1.0)


def test_the_networks_duplicates_are_suppressed_and_neighbours_kept():
    sure = _net_card(100, 100, 60, 90, 0.9)
    twin = _net_card(104, 103, 60, 90, 0.6)  # the same card, reported twice
    panel = _net_card(110, 110, 40, 40, 0.8)  # a panel inside it
    touching = _net_card(160, 100, 60, 90, 0.7)  # the next card, edge to edge
    apart = _net_card(400, 300, 60, 90, 0.5)
    under = _net_card(130, 100, 60, 90, 0.55)  # half under the sure one: a card of its own
    kept = _suppress([sure, panel, touching, twin, under, apart])
    assert kept == [sure, touching, under, apart]


def _stub_network(monkeypatch, reports: list[NetCard]) -> None:
    """The learned detector replaced by one that sees ``reports`` (at their scores), and
    a corner refiner that keeps the corners it is given."""
    import vision.detect as detect

    class Net:  # reports seen by the fine look; the coarse look sees nothing more
        threshold, long_side = 0.5, 480

        def side_for(self, h, w):
            return 480

        def maps(self, image, side=None, smaller=None):
            return side or 480, 1.0

        def decoded(self, maps, scale, threshold, shape):
            return [r for r in reports if r.score >= threshold] if maps == 480 else []

    class Refiner:
        def refine(self, image, quads, passes=2):
            return [np.float32(q) for q in quads]

    monkeypatch.setattr(detect, "learned_detectors", lambda: (Net(), Refiner()))


def test_a_network_card_round_a_clean_card_and_its_cloth_is_no_card(deck, monkeypatch):
    """The network may outline a card with the cloth round it as one card three times a
    card's size (a table's corner beside it looks like a card's: the recognition
    benchmark's french scene 8). Next to the clean outlines of the deck's other cards,
    the clean card it holds is the card, and the big outline is none: it must neither
    be reported nor make that card look too small to be one."""
    import vision.detect as detect

    boxes = [card_box(x, y, a, long_px=200.0) for x, y, a in
             ((200, 360, 10), (480, 330, -20), (780, 380, 35), (1080, 340, 80))]
    img, truth = scene(deck, "felt", list(zip(["1d", "5c", "7s", "10b"], boxes, strict=True)))
    big = card_box(830, 420, 35, long_px=350.0)  # holds the 7s's centre, 3x its area
    reports = [NetCard(t.corners.astype(np.float32), 0.9, 1.0) for t in truth]
    reports.append(NetCard(big, 0.62, 0.82))
    _stub_network(monkeypatch, reports)
    quads = find_cards(img)
    card_area = abs(cv2.contourArea(boxes[0]))
    assert all(q.area < 1.5 * card_area for q in quads)
    assert all(best_iou(quads, t.corners) > 0.8 for t in truth)
    # Without the clean outlines to compare with, the network's cards apart from it still
    # tell the deck's size: the big outline holds a card of that size, so it holds more
    # than one card and is none, before any card check (even with no floor).
    monkeypatch.setattr(detect, "_printed_stock", lambda image, q: False)
    assert all(q.area < 1.5 * card_area for q in find_cards(img, floor=0.0))
    assert all(q.area < 1.5 * card_area for q in find_cards(img))
    assert all(best_iou(quads, t.corners) > 0.8 for t in truth)


def test_a_card_the_network_sees_only_faintly_is_found_where_it_shows_a_card(
        deck, monkeypatch):
    """A card half under another is learned with a fainter heat (near half in view it is
    neither to be found nor missed). Seen under the report threshold but at least 0.35,
    where nothing else is reported, of the cards' size and with a side on a card's edge,
    it is reported, marked faint. The same faint sight of the bare cloth (no edge), of a
    pip block (too small) or of the cloth under 0.35 is not; of the card under 0.35, only
    where the card check is sure of it."""
    import vision.detect as detect

    boxes = [card_box(x, 360, 0, long_px=220.0) for x in (200, 480, 1000)]
    under = card_box(720, 300, 90, long_px=220.0)  # its right half under the last card
    over = card_box(850, 330, 0, long_px=220.0)
    img, truth = scene(deck, "felt", [("1d", boxes[0]), ("5c", boxes[1]), ("7s", boxes[2]),
                                      ("3b", under), ("10d", over)])
    assert 0.5 < truth[3].visible < 0.85 and truth[4].visible > 0.99
    sure = [NetCard(b, 0.9, 1.0) for b in (*boxes, over)]
    faint = NetCard(under, 0.42, 0.6)
    cloth = NetCard(card_box(300, 620, 90, long_px=220.0), 0.42, 1.0)  # bare felt
    pips = NetCard(card_box(1150, 620, 0, long_px=60.0), 0.42, 1.0)
    fainter = NetCard(card_box(600, 620, 0, long_px=220.0), 0.3, 1.0)
    _stub_network(monkeypatch, [*sure, faint, cloth, pips, fainter])
    quads = find_cards(img)
    hidden = [q for q in quads if quad_iou(q.corners, under) > 0.9]
    assert len(hidden) == 1 and hidden[0].faint and hidden[0].visible == pytest.approx(0.6)
    assert all(not q.faint for q in quads if q is not hidden[0])
    for other in (cloth, pips, fainter):
        assert best_iou(quads, other.corners) < 0.3
    # Under the sure report threshold it was not: the second look is what finds it.
    # Under 0.35 (or with no side on an edge) only the card check's word can: sure of
    # this card, it finds it, marked faint; unsure, it does not.
    _stub_network(monkeypatch, [*sure, NetCard(under, 0.3, 0.6)])
    found = [q for q in find_cards(img) if quad_iou(q.corners, under) > 0.9]
    assert len(found) == 1 and found[0].faint and found[0].check >= detect.FAINT_CHECK
    monkeypatch.setattr(detect, "FAINT_CHECK", 1.01)
    assert best_iou(find_cards(img), under) < 0.3


def test_faint_cards_are_found_where_the_network_is_sure_of_none(deck, monkeypatch):
    """A picture whose cards the network sees only faintly (a fan or two small cards on
    a busy cloth, each at 0.39-0.47: dev seed 3030's scenes 65 and 102) had no sure card
    to size the second look by, and lost them all. Their size is now that of its surer
    sights, and the card check must be sure of each: the card is found, marked faint;
    the cloth seen as faintly and a pip block (far smaller than the surer sights) are
    not, nor the card where the check is not sure of it."""
    import vision.detect as detect

    card = card_box(400, 360, 20, long_px=220.0)
    img, truth = scene(deck, "felt", [("5c", card)])
    # (The colour masks outline nothing, as on a busy cloth: the network alone sees it.)
    monkeypatch.setattr(detect, "find_cards_classical", lambda image, **kw: [])
    seen = NetCard(card, 0.42, 1.0)
    cloth = NetCard(card_box(900, 360, 90, long_px=220.0), 0.4, 1.0)
    pips = NetCard(card_box(1150, 620, 0, long_px=60.0), 0.4, 1.0)
    _stub_network(monkeypatch, [seen, cloth, pips])
    quads = find_cards(img)
    found = [q for q in quads if quad_iou(q.corners, truth[0].corners) > 0.8]
    assert len(found) == 1 and found[0].faint and found[0].check >= detect.FAINT_CHECK
    assert best_iou(quads, cloth.corners) < 0.3 and best_iou(quads, pips.corners) < 0.3
    # Nothing seen at the second look's heat: no size to go by, nothing reported.
    _stub_network(monkeypatch, [NetCard(card, 0.3, 1.0)])
    assert find_cards(img) == []
    _stub_network(monkeypatch, [seen, cloth, pips])
    monkeypatch.setattr(detect, "FAINT_CHECK", 1.01)
    assert find_cards(img) == []


@pytest.mark.parametrize("seed", [1, 2])
def test_a_fan_of_three_is_its_top_card_not_one_merged_blob(deck, seed):
    """Three cards fanned on wood (dev seed 3030's scene 27): the colour masks take the
    fan as one ragged blob twice a card's size, of nearly a card's proportions, holding
    the top card the network sees whole. That blob is the cards merged, not a card: the
    top card is reported with its own outline, and nothing of the blob's size is."""
    fan = [("4d", [[561, 314], [688, 375], [578, 568], [447, 510]]),
           ("6c", [[609, 351], [738, 405], [640, 602], [508, 551]]),
           ("4c", [[705, 629], [572, 585], [660, 382], [790, 429]])]
    img, truth = scene(deck, "wood", [(c, np.float32(b)) for c, b in fan], seed=seed)
    quads = find_cards(img)
    assert best_iou(quads, truth[2].corners) > 0.9
    card_area = abs(cv2.contourArea(truth[2].corners))
    assert all(q.area < 1.4 * card_area for q in quads), [q.area / card_area for q in quads]


def test_three_sights_inside_one_busy_back_are_not_three_cards_side_by_side():
    """A busy back (toscane's check) may be seen by the network as its two halves and its
    middle, or as three strips: three sights of card size in the back's clean outline,
    as three cards side by side are. Those overlap one another or leave much of the
    outline out; three cards side by side neither overlap nor leave it out."""
    from vision.detect import FILLED, Quad, _holds_three

    def quad(corners) -> Quad:
        c = np.float32(corners)
        return Quad(c, abs(cv2.contourArea(c)), 1.0, 1.0, True)

    back = quad(card_box(640, 360, 90, long_px=300))  # lying crosswise: 300 x 191 px
    halves = [quad(card_box(640 + dx, 360, 0, long_px=180)) for dx in (-75, 0, 75)]
    assert all(h.area >= 0.2 * back.area for h in halves)
    assert not _holds_three(back, halves)
    strips = [quad(card_box(640 + dx, 360, 0, long_px=140)) for dx in (-96, 0, 96)]
    assert sum(s.area for s in strips) < 0.7 * back.area
    assert not _holds_three(back, strips)  # apart, but a third of it left out
    w = 260.0 / 1.57
    row = quad(card_box(640, 360, 90, long_px=3 * w))  # three cards touching in a row
    cards = [quad(card_box(640 + (i - 1) * w, 360, 0)) for i in range(3)]
    assert _holds_three(row, cards)
    assert not _holds_three(row, cards[:2])
    # Four in a row, a little apart: their outline is 4% longer than the four.
    four = quad(card_box(640, 360, 90, long_px=4.16 * w, ratio=4.16 * w / 260))
    cards = [quad(card_box(640 + (i - 1.5) * 1.04 * w, 360, 0)) for i in range(4)]
    assert sum(c.area for c in cards[:3]) < FILLED * four.area  # any three leave it out
    assert _holds_three(four, cards)


@pytest.mark.parametrize("kind", ["checks", "paper", "wood"])
@pytest.mark.parametrize("code, angle, long_px", [("10s", -12, 600), ("3d", 95, 560),
                                                  ("7b", 0, 650)])
def test_a_close_up_card_is_one_card_not_its_halves(deck, kind, code, angle, long_px):
    """A card filling most of the picture (a phone held close) is longer than any card
    the network learned at its fine look, which saw such a card's two ends as two cards
    (10s and 3d on checks and paper, 7b on paper); the coarse look sees it whole."""
    img, truth = scene(deck, kind, [(code, card_box(600, 360, angle, long_px))])
    quads = find_cards(img)
    assert len(quads) == 1, [round(quad_iou(q.corners, truth[0].corners), 2) for q in quads]
    assert quad_iou(quads[0].corners, truth[0].corners) > 0.9


def test_the_coarse_look_gives_a_big_card_in_place_of_its_parts_only():
    """The coarse look's big card replaces the fine look's sights inside it (its ends,
    its panels), but not the fine look's own outline of the same card, nor what the
    fine look is surer of than the coarse one (two cards it sees whole, seen as one
    card by the coarse look); a card short of the big size is the fine look's alone."""
    from vision.card_net import NetCard
    from vision.detect import NetSight

    def card(cx, cy, long_px, score=0.9, visible=1.0):
        return NetCard(card_box(cx, cy, 0, long_px), score, visible)

    class Net:  # the fine look's and the coarse look's sights, as decoded
        threshold, long_side = 0.5, 480

        def __init__(self, fine, coarse):
            self.looks = {480: fine, 240: coarse}
            self.sides = []

        def side_for(self, h, w):
            return 480

        def maps(self, image, side=None, smaller=None):
            self.sides.append(side or 480)
            return side or 480, 1.0

        def decoded(self, maps, scale, heat, shape):
            return [c for c in self.looks[maps] if c.score >= heat]

    def found(fine, coarse):
        return [c.corners.tolist() for c in NetSight(img, Net(fine, coarse)).found]

    img = np.zeros((H, W, 3), np.uint8)
    big = card(600, 360, 600, 0.8)
    ends = [card(600, 210, 280, 0.7, 0.9), card(600, 510, 280, 0.6, 0.9)]
    apart = card(1100, 360, 250)
    assert found(ends + [apart], [big]) == [c.corners.tolist() for c in (apart, big)]
    same = card(602, 360, 590, 0.7)
    assert found([same, apart], [big]) == [c.corners.tolist() for c in (apart, same)]
    pair = [card(520, 360, 420), card(700, 360, 420)]  # side by side, seen whole
    assert found(pair, [big]) == [c.corners.tolist() for c in pair]
    small = card(600, 360, 300, 0.95)  # under BIG_PX of the fine look's input
    assert found(ends, [small]) == [c.corners.tolist() for c in ends]
    # Cards all shorter than GATE_PX in the fine look's input: no coarse look is taken.
    net = Net([card(300, 360, 200), card(700, 360, 240)], [big])
    assert len(NetSight(img, net).found) == 2 and net.sides == [480]
    net = Net([], [big])  # nothing seen finely: the coarse look is asked
    assert [c.corners.tolist() for c in NetSight(img, net).found] == [big.corners.tolist()]


def _half(box: np.ndarray, end: int, over: float = 0.1) -> np.ndarray:
    """The corners of one end of a card (``end`` 0: its first short side's), a little
    more than half of it, as the network outlines a double-headed figure's half."""
    a, b, c, d = np.float32(box)
    k = 0.5 + over
    return np.float32([a, b, b + (c - b) * k, a + (d - a) * k]) if end == 0 else \
        np.float32([d + (a - d) * k, c + (b - c) * k, c, d])


@pytest.mark.parametrize("kind", ["felt", "checks", "wood"])
def test_the_two_halves_of_a_figure_the_network_sees_as_two_cards_are_one_card(
        deck, kind, monkeypatch):
    """A double-headed figure's halves, each framed like a small card, are seen by the
    network as two cards, each partly under the other (triestine art, generated
    phone-look scenes of dev seed 3030, where the colour masks outlined nothing there).
    They are the one card whose edge their outline lies on, of the size of the cards
    beside it, that looks the same turned round. Two cards side by side or end to end,
    each seen partly, stay two; so do the two ends in view of a stack of two whose
    outline is a card's, under a book (two faces, not one turned round)."""
    import vision.detect as detect

    monkeypatch.setattr(detect, "find_cards_classical", lambda image, **kw: [])
    figure = deck["10s"].copy()
    h = figure.shape[0]
    figure[h - h // 2:] = figure[:h // 2][::-1, ::-1]  # double-headed
    doubled = {**deck, "10s": figure}
    boxes = [card_box(300, 360, 20), card_box(700, 300, -15), card_box(1050, 420, 0)]
    img, truth = scene(doubled, kind, list(zip(["10s", "9b", "1d"], boxes, strict=True)))
    halves = [NetCard(_half(boxes[0], end), 0.6, 0.62) for end in (0, 1)]
    _stub_network(monkeypatch, halves + [NetCard(b, 0.9, 1.0) for b in boxes[1:]])
    quads = find_cards(img, floor=0.0)
    assert len(quads) == 3 and all(best_iou(quads, t.corners) > 0.85 for t in truth)
    whole = max(quads, key=lambda q: quad_iou(q.corners, boxes[0]))
    assert whole.net and whole.visible == pytest.approx(0.62)
    # Two cards side by side (a little apart: an outline of 1.35), or end to end, each
    # seen partly: two cards.
    for pair in ([card_box(300, 280, 90), card_box(300, 300 + 260 / 1.57, 90)],
                 [card_box(400, 360, 90), card_box(662, 360, 90)]):
        img, truth = scene(deck, kind, [("5c", pair[0]), ("7s", pair[1])])
        _stub_network(monkeypatch, [NetCard(b, 0.8, 0.7) for b in pair])
        quads = find_cards(img, floor=0.0)
        assert len(quads) == 2 and all(best_iou(quads, t.corners) > 0.85 for t in truth)
    # A 7 lying on the lower half of a 5, a book over the 7's lower half: the 5's upper
    # half and the 7's make one card's outline, but no card that looks so turned round.
    under, over = card_box(600, 230, 0), card_box(600, 360, 0)
    img, _ = scene(deck, kind, [("5c", under), ("7s", over)])
    _plain_slab(img, 600, 560, 0, (300, 400), (60, 90, 150))
    ends = [NetCard(_half(under, 0, 0.0), 0.7, 0.55), NetCard(_half(over, 0, 0.0), 0.7, 0.55)]
    _stub_network(monkeypatch, ends)
    quads = find_cards(img, floor=0.0)
    assert len(quads) == 2 and all(best_iou(quads, e.corners) > 0.8 for e in ends)
