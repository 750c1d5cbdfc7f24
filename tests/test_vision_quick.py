"""The quick path of ``find_and_identify``: the learned detector's cards alone when they
leave the colour masks nothing to settle, the full search when they do."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

import vision.detect as detect
from vision.card_net import NetCard, quad_iou
from vision.deck_art import DeckStyle, render_deck
from vision.detect import quick_cards
from vision.detect_scenes import background, lay_cards
from vision.embed import Embedder
from vision.enroll import card_patch, enroll_patches
from vision.recognize import Recognizer, find_and_identify

W, H = 1280, 720
CODES = ["1d", "5c", "7s", "10b"]


@pytest.fixture(scope="module")
def deck():
    return render_deck(DeckStyle.from_seed(0))


@pytest.fixture(scope="module")
def recognizer(deck):
    embedder = Embedder()
    return Recognizer(enroll_patches({c: card_patch(f) for c, f in deck.items()}, embedder),
                      embedder)


def card_box(cx: float, cy: float, angle_deg: float, long_px: float = 230.0) -> np.ndarray:
    w, h = long_px / 1.57, long_px
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return ((np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2) @ rot.T
            + np.array([cx, cy])).astype(np.float32)


BOXES = [card_box(x, y, a) for x, y, a in
         ((220, 360, 10), (500, 330, -20), (790, 380, 35), (1080, 340, 80))]


def table(deck, boxes=BOXES, codes=CODES, kind="felt"):
    img = background(np.random.default_rng(4), H, W, kind)
    img, truth = lay_cards(img, [(deck[c], b, False) for c, b in zip(codes, boxes, strict=True)])
    return cv2.GaussianBlur(img, (0, 0), 0.8), truth


class Sight:
    """A stand-in for ``detect.NetSight``: the network's reports, given."""

    def __init__(self, found):
        self.found, self.weak = found, found
        self.shrunk, self.threshold = (None, 1.0), 0.5

    def above(self, heat):
        return [c for c in self.weak if c.score >= heat]


def stub_refiner(monkeypatch):
    class Refiner:
        def refine(self, image, quads, passes=2):
            return [np.float32(q) for q in quads]

    monkeypatch.setattr(detect, "learned_detectors", lambda: (object(), Refiner()))


def reports(boxes=BOXES, visible=1.0):
    return [NetCard(b.copy(), 0.9, visible) for b in boxes]


def test_cards_apart_of_one_size_are_the_networks_alone(monkeypatch):
    stub_refiner(monkeypatch)
    got = quick_cards(np.zeros((H, W, 3), np.uint8), Sight(reports()))
    assert got is not None and len(got) == 4
    assert all(quad_iou(q.corners, b) > 0.99 and q.net for q, b in zip(got, BOXES, strict=True))


@pytest.mark.parametrize("case", ["one card", "a card partly seen", "two overlapping",
                                  "a card of another size", "a card-sized doubt"])
def test_what_the_masks_must_settle_takes_the_full_search(monkeypatch, case):
    """One card gives no size to go by; a card partly seen or overlapping another is
    where the masks' outlines and the merging rules matter; a card of another size
    than its neighbours is a half of a double-headed figure, a back's inner panel, or
    a card taken with the cloth round it."""
    stub_refiner(monkeypatch)
    found = reports()
    if case == "one card":
        found = found[:1]
    elif case == "a card partly seen":
        found[2] = NetCard(found[2].corners, 0.9, 0.7)
    elif case == "two overlapping":
        found[1] = NetCard(card_box(330, 340, 0), 0.9, 1.0)
    elif case == "a card of another size":
        found[3] = NetCard(card_box(1080, 340, 80, long_px=170.0), 0.9, 1.0)
    sight = Sight(found)
    if case == "a card-sized doubt":  # the network unsure of a fifth card, off the others
        sight.weak = found + [NetCard(card_box(640, 620, 90), 0.45, 1.0)]
    assert quick_cards(np.zeros((H, W, 3), np.uint8), sight) is None


@pytest.mark.parametrize("no_card", [True, False])
def test_a_card_sized_doubt_is_settled_last_by_the_caller(monkeypatch, no_card):
    """A card-sized doubt sends the frame to the full search unless the caller, shown
    the doubt's outline once the cards themselves passed, says it is plainly no card."""
    stub_refiner(monkeypatch)
    found = reports()
    sight = Sight(found)
    doubt = NetCard(card_box(640, 620, 90), 0.45, 1.0)
    sight.weak = found + [doubt]
    asked = []

    def settle(outlines):
        asked.append(outlines)
        return no_card

    got = quick_cards(np.zeros((H, W, 3), np.uint8), sight, settle)
    assert (got is not None) == no_card
    assert len(asked) == 1 and len(asked[0]) == 1
    assert quad_iou(asked[0][0], doubt.corners) > 0.99
    found[3] = NetCard(card_box(1080, 340, 80, long_px=170.0), 0.9, 1.0)  # cards at fault
    asked.clear()
    assert quick_cards(np.zeros((H, W, 3), np.uint8), Sight(found), settle) is None
    assert not asked


DOUBT = card_box(640, 615, 90, long_px=200.0)  # below the four cards, apart from them


def doubted(monkeypatch, corners):
    """The network's real sight of the picture, unsure besides of a card at ``corners``."""
    real_sight = detect.net_sight

    def sight_with_doubt(image):
        sight = real_sight(image)
        def elsewhere(cards):  # (a card seen there: the network made unsure of it)
            return [c for c in cards if quad_iou(c.corners, corners) <= 0.5]

        sight.found = elsewhere(sight.found)
        sight._low = elsewhere(sight._low) + [NetCard(np.float32(corners), 0.42, 1.0)]
        return sight

    monkeypatch.setattr(detect, "net_sight", sight_with_doubt)
    searched = []
    real_find = detect.find_cards

    def find_cards(image, sight=None, **kwargs):
        searched.append(True)
        return real_find(image, sight, **kwargs)

    monkeypatch.setattr(detect, "find_cards", find_cards)
    return searched


def test_a_doubt_on_bare_cloth_leaves_the_cards_plainly_seen_to_the_quick_path(
        deck, recognizer, monkeypatch):
    img, _ = table(deck)
    if detect.net_sight(img) is None:
        pytest.skip("no learned detector or runtime")
    searched = doubted(monkeypatch, DOUBT)
    seen = find_and_identify(img, recognizer)
    assert not searched
    assert sorted(s.identity.card for s in seen) == sorted(CODES)


def test_a_doubt_on_a_card_sends_the_frame_to_the_full_search(deck, recognizer, monkeypatch):
    """The network unsure of a fifth card: the doubt's patch is like a card, so the
    colour masks look for it, and it is found and named."""
    img, _ = table(deck, BOXES + [DOUBT], CODES + ["6b"])
    if detect.net_sight(img) is None:
        pytest.skip("no learned detector or runtime")
    searched = doubted(monkeypatch, DOUBT)
    seen = find_and_identify(img, recognizer)
    assert searched
    assert "6b" in [s.identity.card for s in seen]


def test_faint_sights_of_the_cloth_leave_the_quick_path_open(monkeypatch):
    """Sights far fainter than the threshold, or of another size than a card, are the
    cloth's: the network's cards stand."""
    stub_refiner(monkeypatch)
    sight = Sight(reports())
    sight.weak = reports() + [NetCard(card_box(640, 620, 90), 0.25, 1.0),
                              NetCard(card_box(640, 620, 90, long_px=80.0), 0.45, 1.0)]
    assert quick_cards(np.zeros((H, W, 3), np.uint8), sight) is not None


def refiner_to(outlines, monkeypatch):
    """A corner refiner that takes each report to the given outline (as the real one
    takes an inner frame's outline out to the card's edges)."""
    class Refiner:
        def refine(self, image, quads, passes=2):
            return [np.float32(o) for o in outlines]

    monkeypatch.setattr(detect, "learned_detectors", lambda: (object(), Refiner()))


def test_a_card_outlined_short_by_the_network_takes_the_quick_path_when_refined_whole(
        deck, monkeypatch):
    """The network outlined one card by its printed inner frame (as it does a
    double-headed court): of another size by the network's outlines, of the others' size
    and on the card's edges all round once refined: the quick path stands."""
    img, truth = table(deck)
    found = reports([t.corners for t in truth])
    found[1] = NetCard(card_box(500, 330, -20, long_px=170.0), 0.6, 1.0)
    refiner_to([t.corners for t in truth], monkeypatch)
    got = quick_cards(img, Sight(found))
    assert got is not None and len(got) == 4
    assert all(quad_iou(q.corners, t.corners) > 0.9 for q, t in zip(got, truth, strict=True))


@pytest.mark.parametrize("case", ["still of another size", "on no edge"])
def test_an_outline_of_another_size_that_refining_does_not_make_a_card_takes_the_full_search(
        deck, monkeypatch, case):
    """Still of another size once refined (a part of a card), or of a card's size but
    lying on the cloth with no card's edge under its sides: the masks must settle it."""
    img, truth = table(deck)
    outlines = [t.corners for t in truth]
    found = reports(outlines)
    if case == "still of another size":
        odd = card_box(500, 330, -20, long_px=170.0)
        outlines[1] = odd
    else:  # a fifth report, in the cloth between the cards, refined to a card's size
        odd = card_box(640, 620, 90, long_px=170.0)
        outlines = outlines + [card_box(640, 620, 90)]
        found = found + [NetCard(odd, 0.6, 1.0)]
    found[1 if case == "still of another size" else 4] = NetCard(odd, 0.6, 1.0)
    refiner_to(outlines, monkeypatch)
    assert quick_cards(img, Sight(found)) is None


def test_cards_plainly_seen_and_named_skip_the_masks(deck, recognizer, monkeypatch):
    img, truth = table(deck)

    def no_masks(*args, **kwargs):
        raise AssertionError("the colour masks were searched")

    monkeypatch.setattr(detect, "find_cards", no_masks)
    seen = find_and_identify(img, recognizer)
    assert sorted(s.identity.card for s in seen) == sorted(CODES)
    for s in seen:
        t = next(t for t, c in zip(truth, CODES, strict=True) if c == s.identity.card)
        assert quad_iou(s.corners, t.corners) > 0.85


def test_a_card_the_quick_path_cannot_name_is_looked_for_again_with_the_masks(
        deck, recognizer, monkeypatch):
    """The network's outline of one card is its upper half (as a double-headed figure
    can mislead it): that card is not named from it, so the whole search runs and its
    outline, not the half, names it."""
    img, truth = table(deck)
    real_quick, searched = detect.quick_cards, []

    def half_of_one(image, sight, *settle):
        quads = real_quick(image, sight, *settle)
        c = quads[2].corners
        quads[2].corners = np.float32([c[0], c[1], (c[1] + c[2]) / 2, (c[0] + c[3]) / 2])
        return quads

    real_find = detect.find_cards

    def find_cards(image, sight=None, **kwargs):
        searched.append(True)
        return real_find(image, sight, **kwargs)

    monkeypatch.setattr(detect, "quick_cards", half_of_one)
    monkeypatch.setattr(detect, "find_cards", find_cards)
    seen = find_and_identify(img, recognizer)
    assert searched
    assert sorted(s.identity.card for s in seen) == sorted(CODES)


def test_a_card_named_without_conviction_is_looked_for_again_with_the_masks(
        deck, recognizer, monkeypatch):
    """A card squeezed by an outline that took its neighbour's edge can look like a card
    with fewer pips, named at a similarity a whole card in plain view never has: the
    quick path's names stand only when each is plain, else the whole search runs."""
    import vision.recognize as recognize

    img, _ = table(deck)
    real_named, calls = recognize._named, []

    def doubtful_first(image, quads, rec, dropped=None):
        seen = real_named(image, quads, rec, dropped)
        calls.append(len(seen))
        if len(calls) == 1:  # the quick path's naming: one name without conviction
            s = seen[0]
            seen[0] = replace(s, identity=replace(s.identity, similarity=0.7))
        return seen

    monkeypatch.setattr(recognize, "_named", doubtful_first)
    seen = find_and_identify(img, recognizer)
    assert len(calls) == 2  # named again, from the whole search
    assert sorted(s.identity.card for s in seen) == sorted(CODES)
    assert all(s.identity.similarity > 0.8 for s in seen)


def test_the_networks_sights_are_decoded_once_and_the_same_at_every_heat(deck):
    """The sight decodes the network's maps once, down to the quick path's doubts; its
    cards at the report threshold and its sights at any heat are those a decoding at
    that heat gives (suppression keeps a sight for the surer ones only)."""
    img, _ = table(deck)
    img[560:700, 560:720] = 235  # a pale square of cloth: a faint sight or two
    sight = detect.net_sight(img)
    if sight is None:
        pytest.skip("no learned detector or runtime")
    net, _ = detect.learned_detectors()
    maps, scale = net.maps(img, smaller=sight.shrunk[0])

    def decoded(heat):
        return [(c.score, c.corners.tobytes()) for c in
                net.decoded(maps, scale, heat, img.shape[:2])]

    assert [(c.score, c.corners.tobytes()) for c in sight.found] == decoded(net.threshold)
    assert len(sight.found) == 4
    for heat in (detect.QUICK_DOUBT, 0.45, detect.WEAK_HEAT):
        assert [(c.score, c.corners.tobytes()) for c in sight.above(heat)] == decoded(heat)
