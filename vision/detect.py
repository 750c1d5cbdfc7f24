"""Finding card quadrilaterals in an image and warping them to canonical patches.

Two front ends feed one back end: ``find_cards`` works on any photo (bright card
stock against whatever is underneath: Otsu and edge masks), ``find_cards_on_mat``
works in the rectified mat view (anything that is not mat-coloured). Both hand
their masks to ``quads_from_mask``, which keeps card-shaped blobs and splits
blobs of cards that touch or overlap a little by eroding them apart.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from vision.embed import PATCH_H, PATCH_W

# Photos are searched for cards with their long side at this size (half of 720p: a fast
# resize), portrait or landscape alike: a phone held upright sees the same cards.
WORK_SIDE = 640
CARD_RATIO = (1.15, 2.15)  # long/short side, allowing ~30 degrees of camera tilt
# Merging the masks with the learned detector (chosen on generated scenes only:
# benchmarks/bench_vision_detect.py and the recognition benchmark's scenes).
WEAK_HEAT = 0.15  # the network's faintest sight of a card
SAME_CARD_IOU = 0.6  # a mask's and the network's outlines of one card overlap this much
CLEAN_FILL, CLEAN_EDGE = 0.97, 0.95  # a mask blob this clean is a card even unseen by the net
# ... if it shows card stock with print on it: the 90th percentile of its whiteness (value
# minus saturation, as the masks') and the spread of its grey levels. A phone, a book's
# cover, a blank sheet of paper is a clean outline too, but dark or plain (generated
# scenes: each of the 30 clean blobs unseen by the net in 480 was one, while 1153 of the
# 1156 cards found pass).
STOCK_WHITE, PRINT_STD = 60.0, 13.0
# The network's smallest card, in the pixels of its input at its wide run side of 480
# (square root of the area; an upright picture, searched at a longer side, keeps the
# same floor in its own pixels): it learned cards 30 px long and finds them down to
# ~9.5 (a small card far off in a tilted view); a report under this is a pip block or
# a panel inside a card (generated scenes: all of them were).
NET_MIN_PX = 8.0
# The coarse look (at this share of the fine look's side) reports the cards at least
# BIG_PX long in the fine look's input: it learned cards 30-150 px long, and sees those
# at 60-75 px, where its sight is surest.
COARSE, BIG_PX = 0.5, 120.0
# It looks only where the fine look has a sight at least this long, or none at all: the
# ends of a card too big for it were 129-147 px long there; four cards photographed on
# a table (bench_vision_speed.py) are about 80, and need no second look (2 ms a frame).
GATE_PX = 100.0
SHEET = 2.5  # a blob this many times the network's cards' median area is no card of theirs
MERGED = 1.5  # a ragged blob this many times it, round one of them, is that card merged
# One deck's cards in one picture (:func:`one_deck`): the steepest tilt of the camera and a
# phone's widest lens (focal length over the picture's long side: 65 degrees across) bound
# how much smaller one card can look than another; a report under SIZE_MARGIN of that
# bound (an outline short of the card's edge, a card cut by the picture's edge) is no
# card. The tilt is that of the steepest views the detector is trained and measured on
# (40 degrees, detect_scenes), beyond the 35 asked of it: at 35 the bound held for every
# pair of cards in their scenes only to 0.59 of itself, at 40 to 0.97 (tests).
MAX_TILT, PHONE_FOCAL, SIZE_MARGIN = 40.0, 0.78, 0.5
WHOLE_SEEN = 0.85  # a report the detector sees this much of is a whole card (as recognize)
HIDDEN = 0.6  # more of a report than this inside another: under it or part of it
PART = 0.7  # a report under this share of a card's area is a part of one (see one_deck)
APART = 0.25  # cards side by side overlap by less than this of the smaller (_holds_three)
FILLED = 0.75  # and their areas add up to this share of their outline's or more
# Two of the network's cards, each at most this share of the outline round both, are
# the halves of one card (:func:`_halves`), where that outline is about a card's shape.
HALF_MOST, HALF_RATIO, HALF_EDGE, HALF_SYMMETRY = 0.7, (1.3, 2.6), 0.75, 0.4
ROW_MOST = 8  # the largest sights in a blob weighed as a row (the subsets grow as 2**n)
# The network's cards are of one size when none is under this share of their median or
# over its inverse (:func:`quick_cards`). When one is not, the outlines refined must be,
# and that card's must lie on a card's edge all round (:func:`edge_support` of its
# weakest side at least QUICK_EDGE; a piece of cloth outlined as a card showed under
# 0.5, a card far off in a tilted view 0.8 to 1: the speed benchmark's frames).
QUICK_SIZE = 0.7
QUICK_EDGE = 0.5
# ... and leave no card-sized sight this sure away from them: on generated scenes of
# unseen procedural styles (the recognition benchmark's dev seed 3030), the faces the
# network missed and the masks found showed 0.43-0.47 there; the cloth's sights were
# mostly under 0.3.
QUICK_DOUBT = 0.35
# The corner refiner's looks at each card there, before the edges take its corners to
# the pixel: a second look moves them by 1.6 px at the median, where its precision ends,
# for 2.5 ms of a 720p frame (bench_vision_speed.py: 23.2 ms a frame with one look and
# the edges, 24.1 with two, 36.0 with none).
QUICK_PASSES = 1
# A sight under the report threshold but at least SECOND_HEAT, where no report lies, of
# the size of the network's cards (SECOND_SIZE of their median): a card the network is
# unsure of, most often one half hidden (its heat is learned lower near half in view).
SECOND_HEAT = 0.35
SECOND_SIZE = (0.6, 1.7)
# ... and with one side at least on a card's edge this much (:func:`side_support`): the
# visible end of a card steps to the table (generated scenes, dev seeds 3030 and 7373:
# the cards found so 0.62 or more, writing on paper and cloth outlined as a card 0.22-0.5).
SECOND_EDGE = 0.55
# Where the network is sure of no card, the faint sights looked at (its surest first).
ALONE_MOST = 8
# A sight down to WEAK_HEAT that fails those tests (no side on an edge the picture shows:
# a card on a busy cloth, or lying on another) is a card still when the card check is
# this sure of it (:func:`_second_look`; session 27, generated scenes of dev seeds 3030,
# 5151, 7373: of such sights where nothing is reported, of the size of the cards, the
# procedural decks' 11 cards and none of 304 pieces of cloth score so, the real decks'
# 32 cards and 1 of 1,808 pieces of cloth or of a card).
FAINT_CHECK = 0.95
# The card check's least score for a report (:func:`checked`). Chosen on generated scenes
# (dev seeds 3030, 5151, 7373). The check learned procedural decks only, and a real
# deck's cards score lower: through find_and_identify, where a named face keeps its
# place whatever its score, 0.05 drops 15 of the real decks' 45 reports of no card for 10
# cards unnamed (3 whole, 7 partly visible) of 3,410 (session 27; 0.01 in session 26:
# 19 of 64 for none); find_cards alone on the procedural styles' scenes, 13 of 24 for 1
# card of 881 (session 26), and of session 27's 8, 5 for none.
CHECK_FLOOR = 0.05


@dataclass
class Quad:
    corners: np.ndarray  # 4x2 float32, TL TR BR BL of the upright (portrait) card
    area: float
    fill: float  # blob area / quad area: 1 for a clean card
    visible: float = 1.0  # the fraction of the card in view (the learned detector's estimate)
    net: bool = False  # reported by the learned detector (which was taught cards, not books)
    faint: bool = False  # seen by it only under its report threshold (_second_look)
    check: float | None = None  # the card check's score (CardCheck), where it looked

    @property
    def center(self) -> np.ndarray:
        return self.corners.mean(axis=0)


def order_corners(pts: np.ndarray) -> np.ndarray:
    """Corners clockwise (image coordinates) starting so that the first side is a short one.

    Of the two ways to stand a card upright the one whose top edge is higher in the
    image is chosen; recognition matches both ways anyway.
    """
    # Plain Python on four points: numpy's per-call overhead dominated detection.
    p = [(float(x), float(y)) for x, y in np.asarray(pts, np.float32).reshape(4, 2)]
    cx = sum(x for x, _ in p) / 4
    cy = sum(y for _, y in p) / 4
    p.sort(key=lambda q: math.atan2(q[1] - cy, q[0] - cx))  # clockwise on screen (y down)
    side = _sides(p)
    if side[0] + side[2] > side[1] + side[3]:
        p = p[1:] + p[:1]
    if p[0][1] + p[1][1] > p[2][1] + p[3][1]:
        p = p[2:] + p[:2]
    return np.array(p, np.float32)


def _sides(p) -> list[float]:
    return [math.dist(p[i], p[(i + 1) % 4]) for i in range(4)]


def warp_card(image: np.ndarray, corners: np.ndarray, size: tuple[int, int] = (PATCH_W, PATCH_H),
              ) -> np.ndarray:
    """The card under ``corners`` (TL TR BR BL) as an upright ``size`` patch."""
    w, h = size
    # Warp at twice the size then area-average: warpPerspective alone would alias.
    dst = np.float32([[0, 0], [2 * w, 0], [2 * w, 2 * h], [0, 2 * h]])
    m = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), dst)
    big = cv2.warpPerspective(image, m, (2 * w, 2 * h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


def _side(p: np.ndarray, i: int, centre: np.ndarray):
    """Side ``i`` of quad ``p``: its ends, its direction and its normal out of the card."""
    a, b = p[i], p[(i + 1) % 4]
    d = (b - a) / (np.linalg.norm(b - a) + 1e-9)
    n = np.array([-d[1], d[0]])
    return a, b, d, (-n if np.dot(n, centre - a) > 0 else n)


def refine_corners(image: np.ndarray, corners: np.ndarray, reach: float = 0.04,
                   ) -> np.ndarray:
    """Corners TL TR BR BL moved onto the card's edges as the full-resolution image shows
    them: along each side, the strongest brightness step within ``reach`` (a fraction of
    the card's short side) of the rough side, then a robust line through those points;
    the corners are where the four lines meet. A side whose edge cannot be found keeps
    its rough line. (Detection works at 640 pixels; enrollment wants the exact card.)"""
    return refine_corners_all(image, [corners], reach)[0]


def refine_corners_all(image: np.ndarray, quads: list[np.ndarray], reach: float = 0.04,
                       ) -> list[np.ndarray]:
    """:func:`refine_corners` of each quad, the same corners; the cards' profiles are
    searched together (numpy's small calls, once per frame rather than once per card,
    cost more than the work)."""
    if not len(quads):
        return []
    ts = np.linspace(0.12, 0.88, 24)  # away from the rounded corners
    cards: list[_EdgeSearch] = []
    for corners in quads:
        p = np.asarray(corners, np.float64)
        short = min(math.dist(p[0], p[1]), math.dist(p[1], p[2]))
        r = max(3.0, reach * short)
        # Work on the card's neighbourhood only.
        x0, y0 = np.maximum(0, np.floor(p.min(axis=0) - r - 3)).astype(int)
        x1, y1 = np.ceil(p.max(axis=0) + r + 3).astype(int)
        roi = image[y0:y1, x0:x1]
        gray = cv2.GaussianBlur(cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
        gray = gray.astype(np.float32)
        h, w = gray.shape
        offset = np.array([x0, y0], np.float64)
        p = p - offset
        centre = p.mean(axis=0)
        steps = np.linspace(-r, r, int(2 * r) + 1)
        sides = [_side(p, i, centre) for i in range(4)]
        a = np.array([sd[0] for sd in sides])
        b = np.array([sd[1] for sd in sides])
        n = np.array([sd[3] for sd in sides])
        base = a[:, None] + ts[None, :, None] * (b - a)[:, None]  # (4, 24, 2)
        pts = base[:, :, None] + steps[None, None, :, None] * n[:, None, None]
        xs = np.clip(pts[..., 0], 0, w - 1).astype(np.float32).reshape(4 * len(ts), -1)
        ys = np.clip(pts[..., 1], 0, h - 1).astype(np.float32).reshape(4 * len(ts), -1)
        prof = cv2.remap(gray, xs, ys, cv2.INTER_LINEAR)  # (4 * 24, len(steps)), inside -> out
        cards.append(_EdgeSearch(p, r, offset, steps, a, n, sides, base, prof))
    # The profiles side by side, the shorter ones (smaller cards) padded outside with a
    # step no edge makes: the search below never lands on the padding.
    length = max(len(c.steps) for c in cards)
    grad = np.full((len(cards), 4 * len(ts), length - 1), -1.0, np.float32)
    steps = np.zeros((len(cards), length))
    for j, c in enumerate(cards):
        grad[j, :, : len(c.steps) - 1] = np.abs(np.diff(c.profile, axis=1))
        steps[j, : len(c.steps)] = c.steps
    grad = grad.reshape(len(cards), 4, len(ts), -1)
    last = np.array([len(c.steps) - 2 for c in cards])[:, None, None]  # each card's last step
    # The outermost strong step: the card's edge against the table, not a pip's
    # (or a printed frame's) edge inside it, which may be stronger.
    peak = grad.max(axis=3, keepdims=True)
    k = grad.shape[3] - 1 - np.argmax((grad >= 0.5 * peak)[..., ::-1], axis=3)
    # That step's own top (a blurred edge's ramp spans pixels: its outermost half-height
    # sample lies outside the edge; one sample in, no further, not to reach a frame
    # printed next to the edge), then the top of a parabola through its neighbours.
    flat = grad.reshape(-1, grad.shape[3])  # (one row per sample: plain indexing)
    rows = np.arange(len(flat)).reshape(k.shape)
    inner = flat[rows, np.maximum(k - 1, 0)]
    k = np.where((k > 0) & (inner > flat[rows, k]), k - 1, k)
    g0, g1, g2 = (flat[rows, np.clip(k + d, 0, last)] for d in (-1, 0, 1))
    curve = g0 - 2 * g1 + g2
    sub = np.where((k > 0) & (k < last) & (curve < 0), 0.5 * (g0 - g2) / np.where(
        curve < 0, curve, -1.0), 0.0)
    at_k = g1
    mid = np.sort(peak[..., 0], axis=2)  # each side's median peak
    half = mid.shape[2] // 2
    median = mid[..., half] if mid.shape[2] % 2 else 0.5 * (mid[..., half - 1] + mid[..., half])
    strong = at_k > np.maximum(8.0, 0.5 * median)[..., None]
    pitch = steps[:, 1] - steps[:, 0]
    card = np.arange(len(cards))[:, None, None]
    shift = (steps[card, k] + steps[card, k + 1]) / 2 + np.clip(sub, -0.5, 0.5) * pitch[
        :, None, None]
    return [_corners_from_sides(q, c, c.base + shift[j][..., None] * c.n[:, None], strong[j])
            for j, (q, c) in enumerate(zip(quads, cards, strict=True))]


class _EdgeSearch(NamedTuple):
    """One card's search in :func:`refine_corners_all`, in its neighbourhood's pixels."""

    p: np.ndarray  # the rough corners
    r: float  # how far from each rough side its edge is looked for
    offset: np.ndarray  # the neighbourhood's top left in the picture
    steps: np.ndarray  # the samples' distances across a side
    a: np.ndarray  # each side's first end
    n: np.ndarray  # each side's normal out of the card
    sides: list  # _side of each side
    base: np.ndarray  # (4, 24, 2) the points along each side the profiles cross
    profile: np.ndarray  # (4 * 24, len(steps)) brightness across the sides, inside -> out


def _corners_from_sides(corners: np.ndarray, c: _EdgeSearch, found: np.ndarray,
                        strong: np.ndarray) -> np.ndarray:
    """:func:`refine_corners`' last step for one card: a robust line through each side's
    edge points (the rough side where too few were found), corners where they meet."""
    p, r, offset, a, sides = c.p, c.r, c.offset, c.a, c.sides
    lines = []
    for i in range(4):
        if strong[i].sum() >= 8:
            vx, vy, lx, ly = cv2.fitLine(found[i][strong[i]].astype(np.float32),
                                         cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            lines.append((np.array([lx, ly]), np.array([vx, vy])))
        else:
            lines.append((a[i], sides[i][2]))
    out = []
    for i in range(4):  # where side i-1 meets side i (2x2 by hand: numpy's calls cost more)
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        det = float(d2[0] * d1[1] - d1[0] * d2[1])
        if abs(det) < 1e-6:
            out.append(p[i])
            continue
        ex, ey = float(p2[0] - p1[0]), float(p2[1] - p1[1])
        t = (d2[0] * ey - d2[1] * ex) / det
        out.append(p1 + t * d1)
    out = np.array(out, np.float64)
    # A refinement that moves a corner by more than the reach found something else.
    if np.abs(out - p).max() > 2.5 * r:
        return np.asarray(corners, np.float32)
    return (out + offset).astype(np.float32)


def edge_support(image: np.ndarray, corners: np.ndarray, step: float = 20.0,
                 off: float = 2.5) -> float:
    """How well a quad's sides lie on a card's edge: along each side (away from the
    rounded corners) the fraction of points where the picture steps by ``step`` levels
    in some channel between ``off`` pixels inside and outside; the weakest side's. A
    true outline steps all round (card against table); an outline with a corner swung
    out into the cloth has a side that does not."""
    return float(side_support(image, corners, step, off).min())


def side_support(image: np.ndarray, corners: np.ndarray, step: float = 20.0,
                 off: float = 2.5) -> np.ndarray:
    """:func:`edge_support` of each of a quad's four sides."""
    p = np.asarray(corners, np.float64)
    x0, y0 = np.maximum(0, np.floor(p.min(axis=0) - 2 * off - 2)).astype(int)
    x1, y1 = np.ceil(p.max(axis=0) + 2 * off + 2).astype(int)
    roi = image[y0:y1, x0:x1]
    if roi.size == 0:
        return np.zeros(4)
    roi = cv2.GaussianBlur(roi, (0, 0), 1.0).astype(np.float32)
    h, w = roi.shape[:2]
    p = p - [x0, y0]
    centre = p.mean(axis=0)
    ts = np.linspace(0.1, 0.9, 32)[:, None]
    pts = []
    for i in range(4):  # (one remap for the four sides: the calls cost more than the work)
        a, b, _, n = _side(p, i, centre)
        base = a + ts * (b - a)
        pts += [base - off * n, base + off * n]  # inside, outside
    pts = np.stack(pts)  # (8, 32, 2)
    xs = np.clip(pts[..., 0], 0, w - 1).astype(np.float32)
    ys = np.clip(pts[..., 1], 0, h - 1).astype(np.float32)
    vals = cv2.remap(roi, xs, ys, cv2.INTER_LINEAR).reshape(4, 2, len(ts), -1)
    return (np.abs(vals[:, 0] - vals[:, 1]).max(axis=-1) > step).mean(axis=1)


def _quad_of(contour: np.ndarray) -> tuple[np.ndarray, float]:
    """A 4-corner polygon for a blob (perspective-aware when possible) and its fill ratio."""
    area = cv2.contourArea(contour)
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    approx = cv2.approxPolyDP(hull, 0.03 * peri, True)
    if len(approx) == 4:
        quad = approx.reshape(4, 2).astype(np.float32)
    else:
        quad = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)
    qa = abs(cv2.contourArea(quad))
    fill = float(area / qa) if qa > 0 else 0.0
    if fill > 1.04:  # the quad cuts a corner off: a rounded, chipped or bumped corner
        sides = _long_sides_quad(hull, peri)
        if sides is not None:
            sa = abs(cv2.contourArea(sides))
            if area <= sa <= 1.08 * cv2.contourArea(hull):
                quad, fill = sides, float(area / sa)
    return quad, fill


def _long_sides_quad(hull: np.ndarray, peri: float) -> np.ndarray | None:
    """The quad whose sides lie on the hull's four longest edges: a card's corners
    where its sides meet, whatever the corners themselves look like."""
    poly = cv2.approxPolyDP(hull, 0.01 * peri, True).reshape(-1, 2).astype(np.float64)
    n = len(poly)
    if n < 5:
        return None
    length = np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)
    edges = sorted(np.argsort(length)[-4:])  # in order round the hull
    corners = []
    for a, b in zip(edges, edges[1:] + edges[:1], strict=True):
        p, r = poly[a], poly[(a + 1) % n] - poly[a]
        q, s = poly[b], poly[(b + 1) % n] - poly[b]
        den = r[0] * s[1] - r[1] * s[0]
        if abs(den) < 1e-6 * (np.dot(r, r) + np.dot(s, s)):
            return None  # parallel neighbours: not four sides of a card
        t = ((q[0] - p[0]) * s[1] - (q[1] - p[1]) * s[0]) / den
        corners.append(p + t * r)
    quad = np.array(corners, np.float32)
    return quad if cv2.isContourConvex(quad.reshape(-1, 1, 2)) else None


def _card_shaped(quad: np.ndarray, ratio: tuple[float, float]) -> bool:
    q = order_corners(quad)
    s = _sides(q.tolist())
    if min(s) < 4:
        return False
    r = (s[1] + s[3]) / (s[0] + s[2])
    opposite = max(s[0] / s[2], s[2] / s[0], s[1] / s[3], s[3] / s[1])
    return ratio[0] <= r <= ratio[1] and opposite <= 1.5 and cv2.isContourConvex(
        q.reshape(-1, 1, 2).astype(np.int32))


def quads_from_mask(mask: np.ndarray, min_area: float, max_area: float,
                    ratio: tuple[float, float] = CARD_RATIO, min_fill: float = 0.88,
                    max_erode: int = 3, nested: bool = False,
                    card_px: tuple[float, float] | None = None) -> list[Quad]:
    """Card-shaped blobs of a binary mask; merged blobs are eroded until they split.

    ``nested`` also looks at holes and blobs inside blobs (cards on a light cloth).
    ``card_px`` (width, height of a card in pixels, when known) also splits a row
    of cards lying edge to edge, which erosion cannot pull apart.
    """
    out: list[Quad] = []
    mode = cv2.RETR_LIST if nested else cv2.RETR_EXTERNAL
    contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
    # (Areas in one pass: a nested search lists hundreds of specks and pip holes.)
    areas = np.fromiter(map(cv2.contourArea, contours), np.float64, len(contours))
    for i in np.flatnonzero(areas >= min_area):
        cnt, area = contours[i], float(areas[i])
        quad, fill = _quad_of(cnt)
        if area <= max_area and fill >= min_fill and _card_shaped(quad, ratio):
            out.append(Quad(order_corners(quad), area, fill))
            continue
        # Too small for two cards, or too ragged to be cards at all; but where the card's
        # size is known, two cards meeting at a corner (a blob filling half its outline)
        # are tried too: the parts must each come out card-sized and square-cornered.
        if max_erode <= 0 or area < 1.6 * min_area or (fill < 0.55 and card_px is None):
            continue
        if card_px is not None and fill >= min_fill:
            row = _split_row(cnt, card_px)
            if row:
                out.extend(row)
                continue
        # Touching or slightly overlapping cards, or a card with a hand on it:
        # erode the blob alone until card-sized parts come apart, then grow them back.
        # (In the blob's own box, with a margin wider than the kernel, cut where the
        # picture ends: erosion there is exactly as in the whole mask, at the blob's cost.)
        step = max(2, int(0.04 * np.sqrt(min_area)))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * step + 1, 2 * step + 1))
        bx, by, bw, bh = cv2.boundingRect(cnt)
        x0, y0 = max(0, bx - step - 2), max(0, by - step - 2)
        x1, y1 = min(mask.shape[1], bx + bw + step + 2), min(mask.shape[0], by + bh + step + 2)
        blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.drawContours(blob, [cnt], -1, 255, -1, offset=(-x0, -y0))
        for k in range(1, max_erode + 1):
            blob = cv2.erode(blob, kernel)
            grown = step * k
            parts, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE,
                                        offset=(x0, y0))
            found = []
            for p in parts:
                rect = cv2.minAreaRect(p)
                (cx, cy), (w, h), a = rect
                pa = cv2.contourArea(p)
                rw, rh = w + 2 * grown, h + 2 * grown
                if not (min_area <= rw * rh <= max_area) or pa < 0.85 * w * h:
                    continue
                quad = cv2.boxPoints(((cx, cy), (rw, rh), a)).astype(np.float32)
                if _card_shaped(quad, ratio):
                    found.append(Quad(order_corners(quad), rw * rh, pa / max(1.0, w * h)))
            if found:
                out.extend(found)
                break
    return out


def _split_row(contour: np.ndarray, card_px: tuple[float, float]) -> list[Quad]:
    """A rectangle k cards long (side by side or end to end, overlapping a little)
    cut into k cards of the known size, the outer ones flush with its ends."""
    (cx, cy), (w, h), a = cv2.minAreaRect(contour)
    cw, ch = card_px
    for along, across, card_along, card_across, axis in ((w, h, cw, ch, 0), (w, h, ch, cw, 0),
                                                          (h, w, cw, ch, 1), (h, w, ch, cw, 1)):
        if abs(across - card_across) > 0.12 * card_across:
            continue
        k = round(along / card_along)
        if not 2 <= k <= 4 or not (k - 0.6) * card_along <= along <= k * card_along * 1.04:
            continue
        t = np.radians(a)
        u = np.array([np.cos(t), np.sin(t)]) if axis == 0 else np.array([-np.sin(t), np.cos(t)])
        out = []
        for i in range(k):
            off = (-along / 2 + card_along / 2) + i * (along - card_along) / (k - 1)
            c = np.array([cx, cy]) + u * off
            size = (card_along, card_across) if axis == 0 else (card_across, card_along)
            quad = cv2.boxPoints(((float(c[0]), float(c[1])), size, a)).astype(np.float32)
            out.append(Quad(order_corners(quad), card_along * card_across, 1.0))
        return out
    return []


def _centres_inside(corners: np.ndarray) -> np.ndarray:
    """``inside[i, j]``: the centre of quad j lies in (convex) quad i, edges included."""
    centres = corners.mean(axis=1)  # (n, 2)
    a = corners  # (n, 4, 2)
    e = np.roll(a, -1, axis=1) - a  # edge vectors
    d = centres[None, :, None, :] - a[:, None, :, :]  # (n, n, 4, 2)
    cross = e[:, None, :, 0] * d[..., 1] - e[:, None, :, 1] * d[..., 0]
    inside = (cross >= 0).all(axis=2) | (cross <= 0).all(axis=2)
    np.fill_diagonal(inside, False)
    return inside


def _dedupe(quads: list[Quad]) -> list[Quad]:
    """One quad per card.

    A quad holding two smaller cards is the cloth they lie on. Of nested candidates
    the outer one wins when the inner is much smaller (a figure's panel inside the
    card) unless the outer is ragged, the fuller one when they are about the same
    size (one card seen by two masks).
    """
    if not quads:
        return []
    n = len(quads)
    inside = _centres_inside(np.stack([q.corners for q in quads]))  # [i, j]: j's centre in i
    areas = np.array([q.area for q in quads])
    # Two candidates for one thing (several masks find each card): nested, of a size.
    ratio = areas[:, None] / areas[None, :]
    same = (inside | inside.T) & (ratio > 0.5) & (ratio < 2.0)
    cloth = np.zeros(n, bool)
    for i in range(n):
        inner = np.nonzero(inside[i] & (areas < 0.6 * areas[i]))[0]
        distinct: list[int] = []
        for j in inner:
            if not any(same[j, k] for k in distinct):
                distinct.append(j)
        cloth[i] = len(distinct) >= 2
    keep: list[int] = []
    for i in sorted(range(n), key=lambda i: -areas[i]):
        if cloth[i]:
            continue
        nest = [k for k in keep if inside[k, i] or inside[i, k]]
        if not nest:
            keep.append(i)
            continue
        k = nest[0]
        r, fi, fk = areas[i] / areas[k], quads[i].fill, quads[k].fill
        # One card seen by two masks: the fuller outline. A card with its shadow or a
        # patch of cloth attached (ragged) against a clean one inside it: the clean one.
        # A clean card against the panel inside its printed border: the card.
        if (r > 0.8 and fi > fk + 0.02) or (r > 0.6 and fk < 0.95 and fi >= 0.97):
            keep[keep.index(k)] = i
    return [quads[i] for i in keep]


def _photo_masks(small: np.ndarray, upright: bool = True) -> list[np.ndarray]:
    """Binary masks in which cards stand out, each for a different kind of scene.

    - Whiteness (light, unsaturated) against the whole image, by Otsu: cards on a
      dark or colourful cloth, and cards filling most of the picture.
    - Whiter than the neighbourhood: a card on a light cloth, where a global
      threshold puts card and cloth on the same side (enrollment's pictures only,
      ``upright=False``).
    - Other than the local cloth: the cloth's colour is the median over a window
      much wider than a card (taken at an eighth or a quarter of the size, so
      cards and pips vanish from it), and a card is what differs from it in
      lightness or colour. Two window sizes, two cut-offs: small cards on patterned
      or two-tone tables, and large ones.
    """
    sh, sw = small.shape[:2]
    side = max(sh, sw) if upright else sw  # windows in proportion to the searched side
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    white = cv2.GaussianBlur(cv2.subtract(hsv[..., 2], hsv[..., 1]), (5, 5), 0)
    masks = [cv2.threshold(white, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1]]
    if not upright:
        # A photo of the table does without (a quarter of the masks' search): the masks
        # below and the learned detector find those cards, and the cards named were the
        # same (generated scenes, dev seeds 3030 and 4040 at both sizes, and the
        # recognition benchmark's dev seed 3030).
        block = (int(0.12 * side) // 2) * 2 + 1
        masks.append(cv2.adaptiveThreshold(white, 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                           cv2.THRESH_BINARY, block, -12))
    # YCrCb, not Lab: a fraction of the cost, and as good here.
    ycc = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2YCrCb)
    # A photo's cloth is taken at an eighth of the size, at a quarter of the cost of a
    # quarter's and with the same cards found (generated scenes, dev seeds 3030 and
    # 4040); enrollment, where speed does not matter, keeps the quarter.
    f = 8 if upright else 4
    coarse = cv2.resize(ycc, (max(1, sw // f), max(1, sh // f)), interpolation=cv2.INTER_AREA)
    planes = [np.ascontiguousarray(coarse[..., i]) for i in range(3)]
    for frac, otsu in ((0.22, True), (0.13, False)):
        k = max(3, (int(frac * (side // f)) // 2) * 2 + 1)  # 17 and 11 at 640 (35, 21)
        cloth = cv2.merge([cv2.medianBlur(p, k) for p in planes])
        cloth = cv2.resize(cloth, (sw, sh), interpolation=cv2.INTER_LINEAR)
        dy, dcr, dcb = cv2.split(cv2.absdiff(ycc, cloth))
        # Luma plus three times the chroma difference, saturating in uint8.
        chroma = cv2.add(dcr, dcb)
        dist = cv2.add(dy, cv2.scaleAdd(chroma, 2.0, chroma))
        if otsu:
            masks.append(cv2.threshold(dist, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1])
        else:
            masks.append(cv2.threshold(dist, 30, 255, cv2.THRESH_BINARY)[1])
    return masks


_NETS: list = []  # the learned detector and corner refiner, loaded once per process
_CHECK: list = []  # the card check, likewise


def learned_detectors():
    """(detector, corner refiner), either None where its model or a runtime is missing."""
    if not _NETS:
        from vision.card_net import CORNERS_PATH, MODEL_PATH, CardNet, CornerRefiner

        try:
            _NETS.append(CardNet(MODEL_PATH) if MODEL_PATH.is_file() else None)
            _NETS.append(CornerRefiner(CORNERS_PATH) if CORNERS_PATH.is_file() else None)
        except ImportError:  # no TFLite runtime: the classical detector alone
            _NETS[:] = [None, None]
    return _NETS[0], _NETS[1]


class NetSight:
    """What the learned detector saw in a picture, kept for the searches that follow:
    ``shrunk`` (:func:`work_image` of it), ``found`` (its cards at the report threshold,
    card-sized) and ``weak`` (down to :data:`WEAK_HEAT`, decoded when first asked: the
    network's faint sights of the cloth are many, and only the masks' merging asks).
    Both hold the cards too big for the network at its side that it saw at half of it
    (:data:`COARSE`, :data:`BIG_PX`)."""

    def __init__(self, image: np.ndarray, net) -> None:
        self.shrunk = work_image(image)
        # (The network's input is made from the masks' copy: one downscale of the frame.)
        self._maps, self._scale = net.maps(image, smaller=self.shrunk[0])
        self._net, self._shape = net, image.shape[:2]
        self.threshold = net.threshold
        # (A card under this many pixels of the network's input is a pip block or panel.)
        floor = (NET_MIN_PX * max(self._shape) / net.long_side) ** 2
        # Decoded once down to the quick path's doubts: suppression keeps a sight for the
        # surer ones before it only, so the sights at a higher heat are the same.
        self._low_heat = min(net.threshold, QUICK_DOUBT)
        # The coarse look, for cards too big for the fine one (a close-up): it sees them
        # at the sizes it learned, where the fine look sees their ends and panels, which
        # are as long as the longest cards it learned. Where the fine look sees only
        # shorter things, there is no such card (where it sees nothing, it may be one).
        side = net.side_for(*self._shape)
        px = max(self._shape) / side  # picture pixels a pixel of the fine look's input
        self._big_cards: list = []
        low = net.decoded(self._maps, self._scale, self._low_heat, self._shape)
        if not low or any(long_side(c.corners) >= GATE_PX * px for c in low):
            # (Only its sure sights, decoded once: its faint ones are of the cloth round
            # the cards, and a higher heat's are these with that score.)
            maps, scale = net.maps(image, round(side * COARSE), self.shrunk[0])
            self._big_cards = [c for c in net.decoded(maps, scale, net.threshold, self._shape)
                               if long_side(c.corners) >= BIG_PX * px]
        self._low = self._decoded(self._low_heat, low)
        self.found = [c for c in self._low if c.score >= net.threshold
                      and abs(cv2.contourArea(c.corners)) >= floor]
        self._weak: list | None = None

    @property
    def weak(self) -> list:
        if self._weak is None:
            self._weak = self._decoded(WEAK_HEAT)
        return self._weak

    def _decoded(self, heat: float, fine: list | None = None) -> list:
        """The fine look's sights down to ``heat``, with the coarse look's big cards: the
        fine sights mostly inside one (its ends, its panels) give way to it, unless one of
        them is surer than it (a card of the fine look's own size, two cards seen as one)
        or outlines the same card (the fine look's outline is the finer)."""
        from vision.card_net import quad_inside, quad_iou

        if fine is None:
            fine = self._net.decoded(self._maps, self._scale, heat, self._shape)
        for b in (b for b in self._big_cards if b.score >= heat):
            inside = [c for c in fine if quad_inside(c.corners, b.corners) >= PART]
            if any(c.score > b.score for c in inside) or any(
                    quad_iou(c.corners, b.corners) >= 0.5 for c in fine):
                continue
            fine = [c for c in fine if all(c is not i for i in inside)] + [b]
        return sorted(fine, key=lambda c: -c.score)

    def above(self, heat: float) -> list:
        """Its sights down to ``heat`` (at or over :data:`WEAK_HEAT`)."""
        if self._weak is not None:
            return [c for c in self._weak if c.score >= heat]
        if heat >= self._low_heat:
            return [c for c in self._low if c.score >= heat]
        return self._decoded(heat)


def _net_quads(found: list, corners: list[np.ndarray]) -> list[Quad]:
    """The network's cards (``card_net.NetCard``) as quads, with these corners."""
    return [Quad(q.astype(np.float32), abs(cv2.contourArea(q.astype(np.float32))), 1.0,
                 min(1.0, c.visible), True) for c, q in zip(found, corners, strict=True)]


def net_sight(image: np.ndarray) -> NetSight | None:
    """The learned detector's sight of ``image``; None without a model or a runtime."""
    net, _ = learned_detectors()
    return None if net is None else NetSight(image, net)


def quick_cards(image: np.ndarray, sight: NetSight,
                settle: Callable[[list[np.ndarray]], bool] | None = None,
                ) -> list[Quad] | None:
    """The learned detector's cards alone, with their corners refined, when they leave
    the colour masks nothing to settle; else None (then :func:`find_cards`).

    Nothing to settle: two cards or more (a card's size to go by), each seen whole,
    none overlapping another, and of one size (:data:`QUICK_SIZE`): a card split at a
    double-headed figure's middle line, a back's inner panel, a card seen with the cloth
    round it are all of another size than the cards beside them. Each card's corners are
    refined, then moved onto its edges (:func:`refine_corners`); when the network's
    outlines are not of one size, the refined ones must be, and the odd card's must lie
    on a card's edge all round (:data:`QUICK_EDGE`). A card-sized sight the network is
    unsure of sends the frame to the full search unless ``settle`` (given the doubts'
    outlines) says they are all plainly no cards. The caller names the
    cards and comes back to :func:`find_cards` when one is not named
    (:func:`vision.recognize.find_and_identify`).
    """
    from vision.card_net import _overlap

    found = sight.found
    if len(found) < 2 or any(c.visible < WHOLE_SEEN for c in found):
        return None
    if any(_overlap(a.corners, b.corners)[0] > 0 for i, a in enumerate(found)
           for b in found[i + 1:]):
        return None
    areas = [abs(cv2.contourArea(c.corners)) for c in found]
    typical = statistics.median(areas)
    # A card-sized sight just under the threshold, away from the cards, may be a card
    # the network is unsure of: the masks may outline it.
    doubts = [d.corners for d in sight.above(QUICK_DOUBT)
              if d.score < sight.threshold
              and 0.5 * typical <= abs(cv2.contourArea(d.corners)) <= 2 * typical
              and not any(_overlap(d.corners, c.corners)[0] > 0 for c in found)]
    if doubts and settle is None:
        return None
    _, refiner = learned_detectors()
    corners = ([c.corners for c in found] if refiner is None
               else refiner.refine(image, [c.corners for c in found], passes=QUICK_PASSES))
    # Then onto the card's edges, as the masks' outlines are (each card lies apart): the
    # naming that follows needs to align far fewer of them (26.2 -> 22.2 ms a 720p frame,
    # the edges' 3 ms included).
    corners = refine_corners_all(image, corners)
    odd = [i for i, a in enumerate(areas) if not _one_size(a, typical)]
    if odd:
        # The network's outlines are rough: a court's inner frame it outlined, or a card
        # far off in a tilted view, may be of another size by them and of one size
        # refined. A part of a card or a piece of cloth stays of another size refined,
        # or has a side on no card's edge.
        areas = [abs(cv2.contourArea(np.float32(q))) for q in corners]
        typical = statistics.median(areas)
        if not all(_one_size(a, typical) for a in areas) or \
                any(edge_support(image, corners[i]) < QUICK_EDGE for i in odd):
            return None
    if doubts and not settle(doubts):  # (last: the dearest test)
        return None
    return _net_quads(found, corners)


def _one_size(area: float, typical: float) -> bool:
    """Whether a card of ``area`` is of the size ``typical`` (:data:`QUICK_SIZE`)."""
    return QUICK_SIZE * typical <= area <= typical / QUICK_SIZE


def find_cards(image: np.ndarray, sight: NetSight | None = None,
               floor: float = CHECK_FLOOR) -> list[Quad]:
    """Cards in any photo: every card of which at least half is in view, its corners
    and how much of it is visible.

    Two detectors, each for what it does best. The colour masks
    (:func:`find_cards_classical`) outline a whole card on a plain table to the
    pixel, and naming compares pixels. The learned detector (``card_net``) finds
    what the masks miss on real cloth, paper and wood: cards touching or
    overlapping, partly hidden, on checks; its corner refiner places each card's
    corners, hidden ones inferred from the card's shape. A mask blob lying inside
    a card the network sees (a block of pips, a figure's panel, half a card) is
    that card's part, not a card. Without a TFLite runtime the masks work alone.
    ``sight``: :func:`net_sight` of the picture, when the caller has it. Last, the card
    check looks at every report (:func:`checked`): those it scores under ``floor`` go.
    """
    sight = sight or net_sight(image)
    shrunk = sight.shrunk if sight is not None else work_image(image)
    exact = find_cards_classical(image, shrunk=shrunk)
    for q in exact:
        q.corners = refine_corners(image, q.corners)
    if sight is None:
        return exact
    from vision.card_net import quad_inside, quad_iou

    _, refiner = learned_detectors()
    found, weak = sight.found, sight.weak
    known: dict[int, bool] = {}  # each outline's cleanness, measured once

    def clean(e: Quad) -> bool:
        if id(e) not in known:
            known[id(e)] = _clean(image, e)
        return known[id(e)]

    # A mask blob where the network sees not even a faint card is cloth: a check, a
    # fold, a sheet of paper (the masks' false reports on patterned cloth), unless it is
    # a clean card outline of printed card stock.
    exact = [e for e in exact if any(_holds_point(e, c.corners.mean(0)) for c in weak)
             or (clean(e) and _printed_stock(image, e))]
    corners = [c.corners for c in found]
    if refiner is not None:
        # A card a clean mask outline already gives to the pixel keeps its rough corners
        # (they only say where it is): the refiner's time goes to the cards that need it.
        todo = [i for i, c in enumerate(found) if not any(
            quad_iou(c.corners, e.corners) >= SAME_CARD_IOU and clean(e) for e in exact)]
        for i, q in zip(todo, refiner.refine(image, [corners[i] for i in todo]), strict=True):
            corners[i] = q
    learned = _halves(image, _net_quads(found, corners))
    if learned:
        # The cards of one deck are of one size: a blob the network does not report,
        # much bigger than the cards it does, is a sheet of paper or a book.
        size = statistics.median(n.area for n in learned)  # (np.median: 50x the cost)
        exact = [e for e in exact if e.area <= SHEET * size
                 or any(_holds_point(e, n.center) for n in learned)]
    # The other way round: a network card far bigger than a clean card outline it holds,
    # which is itself of the size the clean outlines have, is that card with the cloth
    # round it (a table's corner seen as a card's: the recognition benchmark's french
    # scene 8, with session 14's detector).
    # A panel or a pip block inside a card is smaller than a card: the rules below.
    # (Outlines are judged only when such a pair exists: most pictures have none.)
    if any(e.area < 0.6 * n.area and _holds_point(n, e.center) for n in learned for e in exact):
        stock = [e for e in exact if clean(e) and _printed_stock(image, e)]
        if len(stock) >= 2:
            typical = statistics.median(e.area for e in stock)
            learned = [n for n in learned if not any(
                e.area < 0.6 * n.area and abs(math.log(e.area / typical)) < math.log(1.5)
                and _holds_point(n, e.center) for e in stock)]
    # A mask's outline with a side off the card's edge (a corner swung out into a
    # shadow or the cloth) gives way to the network's outline of the same card when
    # that one lies on the edge all round.
    taken: set[int] = set()
    for e in exact:
        k = max(range(len(learned)), key=lambda i: quad_iou(e.corners, learned[i].corners),
                default=None)
        if k is None or k in taken or clean(e):
            continue  # (an outline that steps to the table all round is the card's own)
        twin = learned[k]
        iou = quad_iou(e.corners, twin.corners)
        theirs = twin.corners
        if iou >= SAME_CARD_IOU:  # one card: the outline that lies on its edge
            mine = edge_support(image, e.corners)
            if mine < 0.8:
                # The network's outline, also moved onto the edges the picture shows.
                moved = refine_corners(image, theirs)
                theirs = max((theirs, moved), key=lambda c: edge_support(image, c))
            better = mine < 0.8 and edge_support(image, theirs) > mine + 0.15
        else:  # the blob took in a shadow or cloth, or lost a pale part of the card
            better = iou > 0.3 and twin.visible >= 0.85  # and the network sees it whole
        if better:
            e.corners = theirs
            e.area = abs(cv2.contourArea(theirs.astype(np.float32)))
            known.pop(id(e), None)  # a new outline, to be measured again
            taken.add(k)  # one outline for one card
    # A blob inside a card is part of it; a blob over two cards is both merged, unless
    # it is a clean card outline (then the two are panels of one figure, seen as cards)
    # that is not two whole cards side by side (:func:`_holds_pair`) nor three.
    # So is a ragged blob around a card the network sees that is far smaller than it:
    # the sheet, book or cloth the card lies on, taken in with it.
    # A ragged blob far bigger than the network's cards that holds one of them whole is
    # that card merged with the cards it lies on (three fanned on a plain cloth, dev seed
    # 3030's scene 27): the card is the network's.
    merged = MERGED * statistics.median(n.area for n in learned) if learned else math.inf
    exact = [e for e in exact if not any(
        quad_inside(e.corners, n.corners) > 0.7 and e.area < 0.6 * n.area
        and quad_iou(e.corners, n.corners) < 0.5 for n in learned)
        and not (_spans_two(e, learned) and (not clean(e) or _holds_three(e, learned)
                                             or _holds_pair(e, learned)))
        and not (not clean(e) and _holds_smaller(e, learned, 0.7 if e.area > merged else 0.4))]
    extra = [n for n in learned if _apart(n.corners, exact)]
    extra += _second_look(image, sight, learned, exact + extra)
    # (The cards whose size can be trusted: those the network sees, and clean outlines.)
    return checked(image, one_deck(exact + extra, max(image.shape[:2]),
                                   [q for q in exact if clean(q)] + learned), floor)


def _halves(image: np.ndarray, learned: list[Quad]) -> list[Quad]:
    """The network's cards, where two of them are the halves of one card made one.

    A double-headed figure's halves, each framed and printed like a small card, are seen
    by the network as two cards, each partly under the other (triestine art, generated
    phone-look scenes of dev seed 3030: both reported, each about half the card and seen
    partly). Two of its cards seen partly that together fill an outline of a card's
    proportions, each at most :data:`HALF_MOST` of it and lying along it, are one card
    when that outline, refined, lies on a card's edge all round (:data:`HALF_EDGE`), is
    of the size of the other cards and looks the same turned half round (a double-headed
    card: :func:`_symmetric`). Two cards side by side lie across their outline; two end
    to end make a long one; two in a fan differ turned round; a card on another is seen
    whole."""
    from vision.card_net import _overlap

    pairs = []
    seen_partly = [q for q in learned if q.visible < WHOLE_SEEN]
    for i, a in enumerate(seen_partly):
        for b in seen_partly[i + 1:]:
            inter, aa, ab = _overlap(a.corners, b.corners)
            if inter <= 0 and math.dist(a.center, b.center) > long_side(a.corners) + \
                    long_side(b.corners):
                continue  # (far apart)
            rect = cv2.minAreaRect(np.vstack([a.corners, b.corners]).astype(np.float32))
            area = rect[1][0] * rect[1][1]
            if not (area > 0 and max(aa, ab) <= HALF_MOST * area
                    and aa + ab - inter >= FILLED * area
                    and HALF_RATIO[0] <= max(rect[1]) / min(rect[1]) <= HALF_RATIO[1]):
                continue
            box = order_corners(cv2.boxPoints(rect))
            if _along(a.corners, box) and _along(b.corners, box):
                pairs.append((a, b, box))
    if not pairs:
        return learned
    _, refiner = learned_detectors()
    outlines = [u for *_, u in pairs]
    if refiner is not None:
        outlines = refiner.refine(image, outlines)
    outlines = refine_corners_all(image, outlines)  # (onto the card's edges)
    out = list(learned)
    for (a, b, _), u in zip(pairs, outlines, strict=True):
        area = abs(cv2.contourArea(np.float32(u)))
        others = [q.area for q in learned if q is not a and q is not b]
        if not (any(x is a for x in out) and any(x is b for x in out)
                and CARD_RATIO[0] <= elongation(u) <= CARD_RATIO[1]
                and (not others or SECOND_SIZE[0] <= area / statistics.median(others)
                     <= SECOND_SIZE[1])
                and edge_support(image, u) >= HALF_EDGE and _symmetric(image, u)):
            continue
        out = [x for x in out if x is not a and x is not b]
        out.append(Quad(np.float32(u), area, 1.0, max(a.visible, b.visible), True))
    return out


def _symmetric(image: np.ndarray, corners: np.ndarray) -> bool:
    """Whether the card outlined looks the same turned half round (:data:`HALF_SYMMETRY`),
    as a double-headed figure does; two cards in a fan do not (dev seed 3030's usual
    scenes: a pair of a triestine fan, 0.19, against a figure's halves, 0.50-0.68)."""
    patch = cv2.cvtColor(warp_card(image, corners, (48, 80)), cv2.COLOR_BGR2GRAY)
    turned = np.ascontiguousarray(patch[::-1, ::-1])
    return float(cv2.matchTemplate(patch, turned, cv2.TM_CCOEFF_NORMED)[0, 0]) >= HALF_SYMMETRY


def _along(part: np.ndarray, outline: np.ndarray) -> bool:
    """Whether a part of ``outline`` lies along it: squat, or its long sides along the
    outline's long sides (a card beside another lies across their outline)."""
    if elongation(part) < HALF_RATIO[0]:
        return True
    s = _sides(part.tolist())
    u = part[1] - part[0] if s[0] + s[2] > s[1] + s[3] else part[2] - part[1]
    t = _sides(outline.tolist())
    v = outline[1] - outline[0] if t[0] + t[2] > t[1] + t[3] else outline[2] - outline[1]
    return abs(float(u @ v)) >= 0.7 * float(np.linalg.norm(u) * np.linalg.norm(v))


def card_check():
    """The card check (``card_net.CardCheck``), loaded once; None without its model or
    a runtime."""
    if not _CHECK:
        from vision.card_net import CHECK_PATH, CardCheck

        try:
            _CHECK.append(CardCheck(CHECK_PATH) if CHECK_PATH.is_file() else None)
        except ImportError:
            _CHECK.append(None)
    return _CHECK[0]


def checked(image: np.ndarray, reports: list[Quad], floor: float = CHECK_FLOOR,
            ) -> list[Quad]:
    """The reports the card check scores at ``floor`` or more; each is given its score
    (``check``). Without the check's model, every report."""
    check = card_check()
    if check is None or not reports:
        return reports
    for q, p in zip(reports, check.scores(image, [q.corners for q in reports]), strict=True):
        q.check = p
    return [q for q in reports if q.check >= floor]


def _apart(q: np.ndarray, others: list[Quad]) -> bool:
    """Whether outline ``q`` is none of ``others``: neither the same card (overlap under
    0.3), mostly inside one, nor holding most of one."""
    from vision.card_net import quad_inside, quad_iou

    return all(quad_iou(q, r.corners) < 0.3 and quad_inside(q, r.corners) < 0.5
               and quad_inside(r.corners, q) < 0.7 for r in others)


def _second_look(image: np.ndarray, sight: NetSight, learned: list[Quad],
                 reports: list[Quad]) -> list[Quad]:
    """The network's sights under its threshold that lie where nothing is reported and
    are, refined, of its cards' size (:data:`SECOND_SIZE`): those down to
    :data:`SECOND_HEAT` with a side on a card's edge (:data:`SECOND_EDGE`), then those
    down to :data:`WEAK_HEAT` the card check is sure of (:data:`FAINT_CHECK`). Marked
    ``faint``: not trusted for size (:func:`one_deck`), and a part of one is not named
    from its visible end (:func:`vision.recognize.find_and_identify`). Where the network
    reports no card at all, its sights down to :data:`SECOND_HEAT` give the size, and
    only the card check's sure word makes a card."""
    lo, hi = SECOND_SIZE
    if learned:
        typical = statistics.median(n.area for n in learned)
        # (The faintest are many on a busy cloth: only those apart and of about a card's
        # size, by their rough outline, are refined.)
        todo = [c for c in sight.weak if c.score < sight.threshold and (
            c.score >= SECOND_HEAT or (_apart(c.corners, reports) and 0.5 * lo * typical
                                       <= abs(cv2.contourArea(c.corners))
                                       <= 1.5 * hi * typical))]
    else:
        # No card the network is sure of (a fan or two small cards on a busy cloth, each
        # seen at 0.39-0.47: generated scenes, dev seed 3030): the cards' size is that of
        # its sights down to SECOND_HEAT, refined; only the surest few are looked at, and
        # only those the card check is sure of are cards.
        todo = [c for c in sight.weak if c.score < sight.threshold][:ALONE_MOST]
        if not any(c.score >= SECOND_HEAT for c in todo):
            return []  # (the cloth's faint sights of an empty table: nothing to size by)
    if not todo:
        return []
    _, refiner = learned_detectors()
    corners = refiner.refine(image, [c.corners for c in todo]) if refiner is not None \
        else [c.corners for c in todo]
    quads = _net_quads(todo, corners)
    if not learned:
        typical = statistics.median(q.area for c, q in zip(todo, quads, strict=True)
                                    if c.score >= SECOND_HEAT)
    out: list[Quad] = []
    unsure: list[Quad] = []
    for c, q in zip(todo, quads, strict=True):
        q.faint = True
        if not (lo * typical <= q.area <= hi * typical and _apart(q.corners, reports)):
            continue
        # (With no sure card beside it, a side on an edge is not enough: a sheet's or a
        # cloth's edge shows one too. The card check must be sure of it.)
        if learned and c.score >= SECOND_HEAT and \
                side_support(image, q.corners).max() >= SECOND_EDGE and _apart(q.corners, out):
            out.append(q)
        else:
            unsure.append(q)
    check = card_check()
    if unsure and check is not None:
        scores = check.scores(image, [q.corners for q in unsure])
        for p, q in sorted(zip(scores, unsure, strict=True), key=lambda t: -t[0]):
            if p >= FAINT_CHECK and _apart(q.corners, out):
                out.append(q)
    return out


def least_area_ratio(distance: float, long_side: float) -> float:
    """The smallest area two cards of one deck can show, one over the other, when their
    centres lie ``distance`` pixels apart in a picture ``long_side`` pixels long.

    A flat card's area in the picture goes as the cube of ``1 - (y / f) tan(tilt)``
    (``y`` along the tilt, ``f`` the focal length): the plane's homography's Jacobian.
    At the steepest tilt allowed (:data:`MAX_TILT`) and a phone's widest lens
    (:data:`PHONE_FOCAL`), that factor is smallest at the picture's far edge, where a
    step of ``distance`` changes it most.
    """
    t = math.tan(math.radians(MAX_TILT))
    far = 1.0 - 0.5 / PHONE_FOCAL * t  # the factor at the far edge of the picture
    return (far / (far + distance / (PHONE_FOCAL * long_side) * t)) ** 3


def too_small(area: float, centre, card_area: float, card_centre, long_side: float) -> bool:
    """Whether ``area`` at ``centre`` is under :data:`SIZE_MARGIN` of the least a card of
    the same deck as one of ``card_area`` at ``card_centre`` can show."""
    return area < SIZE_MARGIN * card_area * least_area_ratio(
        math.dist(centre, card_centre), long_side)


def one_deck(cards: list[Quad], long_side: float, sure: list[Quad]) -> list[Quad]:
    """What can be cards of one deck lying flat, of all the reports of a picture.

    ``sure`` are the reports whose size can be trusted to be a card's: the learned
    detector's cards and the clean mask outlines.

    - The cards of one deck are of one size: a report far smaller than a sure card
      beside it, under half of the least that perspective allows
      (:func:`least_area_ratio`), is a check of the cloth, a sticker, a pip block;
      unless it lies in that card and is of the size of a sure card apart from it
      (:func:`_a_card_beside`): then that "card" holds more than one, and is none.
    - A report mostly inside a card the learned detector sees is a part of it (a
      panel, a half: smaller than a card), a card mostly under it (seen partly), or a
      whole card lying on it (then the other shows enough of itself). Two reports of a
      card's size that overlap by most of both are one card on the other, mostly
      hidden: the one the detector sees less of goes. (A card is reported only when
      half of it shows.)
    """
    from vision.card_net import _overlap

    # (Which of two sizes is a card's is told by what is trusted, not by numbers: a card
    # beside two checks of the cloth is outnumbered, as a sheet beside two cards is.)
    small = [(q, n, _a_card_beside(q, n, sure)) for q in cards for n in sure if n is not q
             and too_small(q.area, q.center, n.area, n.center, long_side)]
    # An outline holding a card of the deck's size, far smaller than it, holds more than
    # one card: it is no card itself (else the top card of the stack, lying mostly in
    # it, would be taken for a card mostly under it).
    merged = [n for _, n, beside in small if beside]
    sized = [q for q in cards if not any(m is q for m in merged)
             and not any(a is q and not beside for a, _, beside in small)]
    typical = statistics.median(n.area for n in sure) if sure else 0.0
    out: list[Quad] = []
    for q in sorted(sized, key=lambda q: -q.area):  # a card before its parts
        for i, k in enumerate(out):
            inter, aq, ak = _overlap(q.corners, k.corners)
            if inter <= HIDDEN * aq:  # (q is the smaller: sorted)
                continue
            if inter > HIDDEN * ak:  # one card of two, the other mostly under it
                if q.visible > k.visible:
                    out[i] = q
                break
            if not k.net:
                continue  # (a mask blob, a sheet or a book: the rules above judged it)
            if aq < PART * min(ak, typical) or q.visible < WHOLE_SEEN:
                break  # a part of k, or a card mostly under it
        else:
            out.append(q)
    return out


def _a_card_beside(q: Quad, n: Quad, sure: list[Quad]) -> bool:
    """Whether ``q``, lying mostly inside the sure outline ``n`` and far smaller than it,
    is of the size of a sure card lying apart from ``n``: then ``q`` is a card and ``n``
    holds more than one (a stack or a fan outlined as one card: phone-look scenes of dev
    seed 3030, where such an outline, 2.7 times the cards beside it, took the cards of
    the stack under it for pip blocks). A panel or a half of a card is smaller than the
    cards beside it, and stays a part (the containment rule of :func:`one_deck`)."""
    from vision.card_net import quad_inside

    if quad_inside(q.corners, n.corners) < HIDDEN:
        return False
    return any(m is not n and m is not q and quad_inside(m.corners, n.corners) < HIDDEN
               and PART <= q.area / m.area <= 1 / PART for m in sure)


def _clean(image: np.ndarray, q: Quad) -> bool:
    """A mask blob that fills its outline and steps to the table on every side."""
    return q.fill >= CLEAN_FILL and edge_support(image, q.corners) >= CLEAN_EDGE


def _printed_stock(image: np.ndarray, q: Quad) -> bool:
    """Whether a quad shows what a card is: light stock, with print on it (see
    :data:`STOCK_WHITE`)."""
    patch = warp_card(image, q.corners, (32, 48))
    hsv = cv2.cvtColor(patch, cv2.COLOR_BGR2HSV)
    white = hsv[..., 2].astype(np.float32) - hsv[..., 1]
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    return float(np.percentile(white, 90)) >= STOCK_WHITE and float(grey.std()) >= PRINT_STD


def _holds_smaller(blob: Quad, cards: list[Quad], most: float = 0.4) -> bool:
    """Whether a card the network sees lies in the blob, under ``most`` of its area."""
    from vision.card_net import quad_inside

    return any(c.area < most * blob.area and quad_inside(c.corners, blob.corners) > 0.8
               for c in cards)


def _holds_point(q: Quad, pt) -> bool:
    """Whether the point ``pt`` lies strictly inside quad ``q``."""
    return cv2.pointPolygonTest(q.corners.reshape(-1, 1, 2),
                                (float(pt[0]), float(pt[1])), False) > 0


def _spans_two(blob: Quad, cards: list[Quad]) -> bool:
    """Whether two cards the network sees, side by side rather than one seen twice,
    both have their centre in the blob: two cards merged into one outline."""
    inside = [c for c in cards if _holds_point(blob, c.center)]
    short = min(_sides(blob.corners))
    return any(math.dist(a.center, b.center) > 0.6 * short
               for i, a in enumerate(inside) for b in inside[i + 1:])


def elongation(q: np.ndarray) -> float:
    """A quad's long/short proportion, from the sums of its opposite sides."""
    s = _sides(q.tolist())
    a, b = s[0] + s[2], s[1] + s[3]
    return max(a, b) / max(1e-6, min(a, b))


def short_side(q: np.ndarray) -> float:
    """A quad's shorter side, in pixels: the mean of the two shorter opposite sides."""
    s = _sides(np.asarray(q, np.float32).tolist())
    return min(s[0] + s[2], s[1] + s[3]) / 2


def long_side(q: np.ndarray) -> float:
    """A quad's longer side, in pixels: the mean of the two longer opposite sides."""
    s = _sides(np.asarray(q, np.float32).tolist())
    return max(s[0] + s[2], s[1] + s[3]) / 2


def _holds_pair(blob: Quad, cards: list[Quad]) -> bool:
    """Whether the blob is two cards side by side: two cards the network sees whole,
    each a third of the blob or more, have their centre in it and are longer for their
    width than it is. Two cards side by side make a squat outline (two short sides by
    a long one: 1.27 for cards of 1.57) of long cards; a figure's two panels are squat
    halves (1.1-1.3) of a long outline, and the network sees them less than whole
    (0.82-0.87: a triestine figure in the recognition benchmark's scenes). Chosen on
    generated scenes (bench_vision_detect.py, dev seeds 3030 and 4040, 120 scenes at
    1280x720 and 1080x1920): 8 clean blobs held two whole cards, 7 of them two cards
    side by side (the pair's proportions 1.36-1.70, the blob's 1.17-1.40), both cards
    hidden by the blob: 14 of the 69 cards in full view missed. The 8th, three cards
    in a row of which the network saw two, is longer than its pair and stays."""
    pair = [c for c in cards if c.visible >= 0.9 and c.area >= 0.33 * blob.area
            and _holds_point(blob, c.center)]
    return len(pair) == 2 and (elongation(pair[0].corners) + elongation(pair[1].corners)
                               ) / 2 > elongation(blob.corners)


def _holds_three(blob: Quad, cards: list[Quad]) -> bool:
    """Whether three cards or more the network sees, each 0.15 of the blob or more (a pip
    block is less), lie side by side in it and fill it: centre inside, no two
    overlapping by more than :data:`APART` of the smaller, their areas :data:`FILLED`
    of the blob's or more. Cards touching in a row make an outline that steps to the
    table all round. A figure's two panels are two; sights of pieces of one busy back
    (toscane's check: its two halves and its middle, dev seed 5151's scene 71) overlap
    one another, or leave much of it out (four cards in a row: dev seed 9292's
    triestine scene 82)."""
    from vision.card_net import _overlap

    inside = sorted((c for c in cards if c.area >= 0.15 * blob.area
                     and _holds_point(blob, c.center)), key=lambda c: -c.area)[:ROW_MOST]
    if len(inside) < 3:
        return False
    apart = [[_overlap(a.corners, b.corners)[0] <= APART * min(a.area, b.area)
              for b in inside] for a in inside]
    # (Three or more: four cards in a row fill their outline, any three of them do not.)
    return any(all(apart[i][j] for i, j in itertools.combinations(row, 2))
               and sum(inside[i].area for i in row) >= FILLED * blob.area
               for r in range(3, len(inside) + 1)
               for row in itertools.combinations(range(len(inside)), r))


def work_image(image: np.ndarray, upright: bool = True) -> tuple[np.ndarray, float]:
    """The picture with its long side (``upright=False``: its width) at :data:`WORK_SIDE`
    when it is much larger, and the scale of that copy."""
    h, w = image.shape[:2]
    side = max(w, h) if upright else w
    if side <= WORK_SIDE * 1.25:  # a card's corners need no more than this to a pixel or two
        return image, 1.0
    scale = WORK_SIDE / side
    return cv2.resize(image, (round(w * scale), round(h * scale)),
                      interpolation=cv2.INTER_AREA), scale


def find_cards_classical(image: np.ndarray, min_area_frac: float = 0.003,
                         max_area_frac: float = 0.4, upright: bool = True,
                         solid: bool = False,
                         shrunk: tuple[np.ndarray, float] | None = None) -> list[Quad]:
    """Card quadrilaterals by colour masks: light card stock on whatever background.

    A picture is searched with its long side at :data:`WORK_SIDE`, so that an upright
    (portrait) frame costs what a wide one does and gives the same cards. Enrollment
    (one card filling much of the picture, where speed does not matter and every
    pixel of its edge does) passes ``upright=False``: the width is brought to
    :data:`WORK_SIDE` instead, and an upright photo keeps more of its pixels.

    ``solid`` also searches each mask closed, where a fine-patterned back or art
    touching the card's edge becomes one blob: for a picture of one card (enrollment).
    A photo of the table does without (a third of the search's time): the learned
    detector finds those cards, and a closed mask's blob there was more often a card
    with a corner run into its shadow (on generated scenes of unseen styles, as many
    cards found without it). ``shrunk``: :func:`work_image` of the picture, when the
    caller has it."""
    small, scale = work_image(image, upright) if shrunk is None else shrunk
    sh, sw = small.shape[:2]
    area = sh * sw
    lo, hi = min_area_frac * area, max_area_frac * area
    quads: list[Quad] = []
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    open_ = np.ones((3, 3), np.uint8)
    for m in _photo_masks(small, upright):
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, open_)
        quads += quads_from_mask(m, lo, hi, nested=True)
        if solid:
            quads += quads_from_mask(cv2.morphologyEx(m, cv2.MORPH_CLOSE, close), lo, hi,
                                     max_erode=0)
    quads = _dedupe(quads)
    for q in quads:
        q.corners = (q.corners / scale).astype(np.float32)
        q.area /= scale * scale
    return quads


def mat_color(rectified: np.ndarray) -> np.ndarray:
    """The mat's colour in Lab, robust to the cards and hands lying on it (median)."""
    small = rectified[::8, ::8]
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).reshape(-1, 3)
    return np.median(lab, axis=0)


def mask_on_mat(rectified: np.ndarray, mat_lab: np.ndarray, chroma: float = 18.0,
                lighter: float = 45.0) -> np.ndarray:
    """Pixels that are not mat: other chroma, or much lighter. Shadows stay mat."""
    lab = cv2.cvtColor(rectified, cv2.COLOR_BGR2LAB)
    l_, a_, b_ = cv2.split(lab)
    # Saturating uint8 arithmetic in OpenCV: no large temporaries on a Pi.
    d_ab = cv2.add(cv2.absdiff(a_, np.full_like(a_, int(mat_lab[1]))),
                   cv2.absdiff(b_, np.full_like(b_, int(mat_lab[2]))))
    mask = cv2.bitwise_or(cv2.compare(d_ab, chroma, cv2.CMP_GT),
                          cv2.compare(l_, min(255.0, float(mat_lab[0]) + lighter), cv2.CMP_GT))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))


def find_cards_on_mat(rectified: np.ndarray, px_per_mm: float, card_mm: tuple[float, float],
                      mat_lab: np.ndarray | None = None) -> tuple[list[Quad], np.ndarray]:
    """Whole cards lying on the mat (rectified view) and the not-mat mask."""
    if mat_lab is None:
        mat_lab = mat_color(rectified)
    mask = mask_on_mat(rectified, mat_lab)
    card_area = card_mm[0] * card_mm[1] * px_per_mm ** 2
    ratio = card_mm[1] / card_mm[0]
    quads = quads_from_mask(mask, 0.75 * card_area, 1.3 * card_area,
                            (ratio * 0.85, ratio * 1.15), min_fill=0.85,
                            card_px=(card_mm[0] * px_per_mm, card_mm[1] * px_per_mm))
    return quads, mask
