"""Training scenes for the learned card detector: cards on real-looking tables.

``detection_scene(rng, faces, size)`` draws one photograph-like image and the
ground truth of every card in it: its four corners in the card's own order
(corner 0 is the top-left of the face as printed) and how much of it is visible.

What the scenes hold is what the field's photos hold and renders usually lack:
backgrounds drawn procedurally (gingham and tartan checks, printed flowers,
bedsheet folds, towels, white paper with writing, light and dark wood grain,
felt), objects that are not cards (sheets of paper, books, phones, pens, hands),
cards touching edge to edge, fanned and stacked, leaving the picture, the
briscola crosswise under the stock, perspective up to ~40 degrees of tilt, and
pictures stored with a changed aspect ratio (a rectangle then looks skewed).
With ``phone_look`` a scene is drawn as phone photos look and renders often do not:
terry towels, printed sheets (stripes, dots, hearts) and knits among the cloths,
cards with rounded corners, and a phone camera's own processing (white balance far
off, vignetting, colour fringes, noise stronger in the shadows, denoising, sharpening
halos). Only procedural decks are drawn, so no real deck or photo is ever trained on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.augment import SKIN, add_glare, add_light, add_shadow, degrade


@dataclass
class TruthCard:
    corners: np.ndarray  # (4, 2) image pixels, card order TL TR BR BL of the face
    visible: float  # fraction of the card's area that can be seen in the image
    back: bool
    code: str | None = None  # the face's card code, where the scene knows it


# -- backgrounds ---------------------------------------------------------------------

def _colour(rng: np.random.Generator, light: float | None = None) -> np.ndarray:
    hsv = np.uint8([[[rng.integers(180), rng.integers(0, 256),
                      rng.integers(40, 256) if light is None else int(light)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _noise(rng: np.random.Generator, h: int, w: int, cell: int) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, h // cell), max(2, w // cell))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _checks(rng, h, w) -> np.ndarray:
    """Gingham or tartan: crossing bands of a colour on a (usually) light ground."""
    period = rng.uniform(8, 70)
    duty = rng.uniform(0.3, 0.6)
    a = rng.uniform(0, math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = (xx * math.cos(a) + yy * math.sin(a)) / period
    v = (-xx * math.sin(a) + yy * math.cos(a)) / period
    bu = ((u % 1) < duty).astype(np.float32)
    bv = ((v % 1) < duty).astype(np.float32)
    ground = _colour(rng, rng.uniform(180, 255)) if rng.random() < 0.7 else _colour(rng)
    ink = _colour(rng)
    t = (bu + bv)[..., None] / 2  # 0 ground, 0.5 one band, 1 both: the gingham look
    img = ground * (1 - t) + ink * t
    if rng.random() < 0.5:  # thin lines of a third colour (tartan, window-pane checks)
        line = _colour(rng, rng.uniform(150, 255))
        lw = rng.uniform(0.03, 0.1)
        on = (((u + 0.5) % 1) < lw) | (((v + 0.5) % 1) < lw)
        img[on] = line
    return img


def _flowers(rng, h, w) -> np.ndarray:
    img = np.ones((h, w, 3), np.float32) * _colour(rng, rng.uniform(170, 255))
    for _ in range(int(rng.integers(8, 60))):
        c = _colour(rng)
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(3, 0.12 * max(h, w))
        for k in range(int(rng.integers(1, 6))):
            a = k * 2 * math.pi / 5
            cv2.ellipse(img, (int(x + r * 0.5 * math.cos(a)), int(y + r * 0.5 * math.sin(a))),
                        (max(1, int(r * 0.5)), max(1, int(r * 0.3))), math.degrees(a), 0, 360,
                        c.tolist(), -1, cv2.LINE_AA)
    return img


def _wood(rng, h, w) -> np.ndarray:
    base = _colour(rng, rng.uniform(120, 240))
    base = np.float32([rng.uniform(60, 170), rng.uniform(110, 200), rng.uniform(160, 240)]) \
        if rng.random() < 0.8 else base
    yy = np.arange(h, dtype=np.float32)[:, None] * np.ones((1, w), np.float32)
    warp = _noise(rng, h, w, 96) * rng.uniform(2, 10) + _noise(rng, h, w, 12) * 0.6
    grain = np.sin((yy + warp) / rng.uniform(1.0, 4)) * rng.uniform(3, 12)
    img = base[None, None] + (grain + _noise(rng, h, w, 8) * 6)[..., None]
    if rng.random() < 0.5:
        img = np.ascontiguousarray(np.rot90(cv2.resize(img, (h, w)), 1))
    if rng.random() < 0.4:  # planks
        step = rng.uniform(40, 160)
        for x in np.arange(rng.uniform(0, step), w, step):
            cv2.line(img, (int(x), 0), (int(x), h), (base * 0.6).tolist(), 1)
    return img


def _paper(rng, h, w) -> np.ndarray:
    img = np.ones((h, w, 3), np.float32) * rng.uniform(200, 255) * rng.uniform(0.93, 1.0, 3)
    img += _noise(rng, h, w, 4)[..., None] * 2
    if rng.random() < 0.6:  # writing and ruled lines
        ink = (rng.uniform(20, 120), rng.uniform(20, 120), rng.uniform(20, 200))
        step = int(rng.integers(8, 20))
        for y in range(int(rng.integers(0, step)), h, step):
            if rng.random() < 0.3:
                cv2.line(img, (0, y), (w, y), (200, 180, 160), 1)
            x = int(rng.integers(0, w // 3))
            while x < w and rng.random() < 0.95:
                ln = int(rng.integers(3, 30))
                cv2.line(img, (x, y), (x + ln, y + int(rng.integers(-2, 3))), ink, 1)
                x += ln + int(rng.integers(3, 12))
    return img


def _felt(rng, h, w) -> np.ndarray:
    img = _colour(rng)[None, None] + _noise(rng, h, w, 16)[..., None] * rng.uniform(3, 15)
    return img + rng.normal(0, rng.uniform(1, 8), (h, w, 1)).astype(np.float32)


def _towel(rng, h, w) -> np.ndarray:
    img = _colour(rng, rng.uniform(150, 250))[None, None] * np.ones((h, w, 1), np.float32)
    return img + rng.normal(0, rng.uniform(6, 20), (h, w, 1)).astype(np.float32)


KINDS = (_checks, _checks, _flowers, _wood, _wood, _paper, _felt, _towel)
BY_NAME = {"checks": _checks, "flowers": _flowers, "wood": _wood, "paper": _paper,
           "felt": _felt, "towel": _towel}  # (and the phone look's kinds, added below)


def background(rng: np.random.Generator, h: int, w: int, kind: str | None = None,
               kinds: tuple | None = None) -> np.ndarray:
    """A table, bed, desk or sheet of paper (``kind``, one of ``BY_NAME``; None: any of
    ``kinds``, by default ``KINDS``, sometimes two surfaces, with folds), in BGR uint8."""
    if kind is not None:
        return np.clip(BY_NAME[kind](rng, h, w), 0, 255).astype(np.uint8)
    kinds = kinds or KINDS
    img = kinds[rng.integers(len(kinds))](rng, h, w)
    if rng.random() < 0.35:  # a second surface: a desk edge, a sheet on the bed
        other = kinds[rng.integers(len(kinds))](rng, h, w)
        a, b = rng.uniform(0, w, 2)
        pts = np.float32([[a, 0], [b, h], [w * 2, h], [w * 2, 0]]) if rng.random() < 0.5 else \
            np.float32([[0, a * h / w], [w, b * h / w], [w, h * 2], [0, h * 2]])
        m = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(m, pts.astype(np.int32), 1)
        img[m > 0] = other[m > 0]
    if rng.random() < 0.5:  # folds of a sheet or towel: soft light and dark bands
        fold = _noise(rng, h, w, int(rng.integers(20, 80)))
        img *= (1 + rng.uniform(0.1, 0.35) * np.tanh(fold))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


# -- what phone photos add (``detection_scene(..., phone=True)``) ----------------------

def _terry(rng, h, w) -> np.ndarray:
    """A terry towel: loops of pile in light and shade, often with woven bands."""
    base = _colour(rng, rng.uniform(120, 250))
    pile = _noise(rng, h, w, 2) * rng.uniform(8, 22) + _noise(rng, h, w, 6) * rng.uniform(4, 10)
    img = base[None, None] + pile[..., None]
    if rng.random() < 0.5:  # a woven band across the towel
        a = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        u = xx * math.cos(a) + yy * math.sin(a)
        start, width = rng.uniform(0, max(h, w)), rng.uniform(0.05, 0.2) * max(h, w)
        band = (u > start) & (u < start + width)
        img[band] = _colour(rng)[None] + _noise(rng, h, w, 3)[band][:, None] * 6
    return img


def _print(rng, h, w) -> np.ndarray:
    """A printed bedsheet or tablecloth: stripes, dots or small motifs (hearts, stars,
    squares) repeated on a ground, as lined up as a print is."""
    ground = _colour(rng, rng.uniform(150, 255))
    img = np.ones((h, w, 3), np.float32) * ground
    ink = _colour(rng)
    kind = rng.integers(3)
    if kind == 0:  # stripes
        a = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        u = (xx * math.cos(a) + yy * math.sin(a)) / rng.uniform(6, 60)
        img[(u % 1) < rng.uniform(0.2, 0.6)] = ink
        return img
    step = rng.uniform(14, 80)
    r = step * rng.uniform(0.12, 0.35)
    shift = rng.uniform(0, 1) < 0.5
    for j, y in enumerate(np.arange(rng.uniform(0, step), h + step, step)):
        for x in np.arange(rng.uniform(0, step) + (step / 2 if shift and j % 2 else 0),
                           w + step, step):
            c = (int(x), int(y))
            if kind == 1:
                cv2.circle(img, c, max(1, int(r)), ink.tolist(), -1, cv2.LINE_AA)
            else:  # a heart, a star or a square: a few filled shapes
                pts = np.array([[0, 1], [-1, -0.2], [-0.5, -1], [0, -0.5], [0.5, -1], [1, -0.2]])
                if rng.random() < 0.3:
                    pts = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * 0.7
                cv2.fillPoly(img, [(pts * r + c).astype(np.int32)], ink.tolist(), cv2.LINE_AA)
    return img


def _knit(rng, h, w) -> np.ndarray:
    """A knitted blanket or a coarse woven cloth: rows of small slanted stitches."""
    base = _colour(rng)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    p = rng.uniform(4, 12)
    stitch = np.sin(xx / p * math.pi + np.sign(np.sin(yy / p * math.pi)) * yy / p * 2)
    img = base[None, None] * (1 + 0.18 * stitch)[..., None]
    return img + (_noise(rng, h, w, 2) * 5)[..., None]


PHONE_KINDS = (_terry, _print, _print, _knit, _checks, _wood, _paper, _flowers)
BY_NAME.update(terry=_terry, print=_print, knit=_knit)


def rounded_mask(fh: int, fw: int, radius: float) -> np.ndarray:
    """A card's mask in its own pixels (``fh`` x ``fw``) with its corners rounded off by
    ``radius`` of its short side, as printed cards are: the cloth shows in the corners,
    while the card's outline stays its rectangle's."""
    mask = np.full((fh, fw), 255, np.uint8)
    r = int(round(radius * min(fh, fw)))
    if r < 1:
        return mask
    for y, x in ((0, 0), (0, fw - 2 * r), (fh - 2 * r, 0), (fh - 2 * r, fw - 2 * r)):
        mask[y:y + 2 * r, x:x + 2 * r] = 0
    for y, x in ((r, r), (r, fw - 1 - r), (fh - 1 - r, r), (fh - 1 - r, fw - 1 - r)):
        cv2.circle(mask, (x, y), r, 255, -1, cv2.LINE_AA)
    mask[r:fh - r] = 255
    mask[:, r:fw - r] = 255
    return mask


def phone(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What a phone's camera does to the picture beyond blur, noise and JPEG: a white
    balance off by far more, vignetting, colour fringes, noise stronger in the shadows
    with blotches of colour, the denoiser's smoothing and the sharpener's halos."""
    h, w = img.shape[:2]
    out = img.astype(np.float32)
    if rng.random() < 0.6:  # tungsten, shade or fluorescent light
        out *= np.float32(rng.choice([[0.75, 0.95, 1.15], [1.12, 1.0, 0.85], [0.9, 1.08, 0.92]],
                                     ) * rng.uniform(0.95, 1.05, 3))
    if rng.random() < 0.6:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        d = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (0.25 * (w * w + h * h))
        out *= (1 - rng.uniform(0.1, 0.4) * d)[..., None]
    if rng.random() < 0.5:  # exposure: dark pictures get their noise brightened
        gain = rng.uniform(0.55, 1.3)
        out *= gain
    if rng.random() < 0.4:  # lateral colour fringes
        s = rng.uniform(0.5, 1.5)
        for ch, k in ((0, 1 + s / max(h, w)), (2, 1 - s / max(h, w))):
            m = cv2.getRotationMatrix2D((w / 2, h / 2), 0, k)
            out[..., ch] = cv2.warpAffine(np.ascontiguousarray(out[..., ch]), m, (w, h),
                                          borderMode=cv2.BORDER_REFLECT)
    shade = np.sqrt(np.clip(255 - out.mean(2, keepdims=True), 0, 255) / 255)
    out += rng.normal(0, rng.uniform(2, 9), (h, w, 1)).astype(np.float32) * shade
    if rng.random() < 0.5:
        out += np.dstack([_noise(rng, h, w, 3) for _ in range(3)]) * rng.uniform(2, 7)
    img = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        img = cv2.bilateralFilter(img, 5, rng.uniform(10, 40), 3)
    if rng.random() < 0.7:
        soft = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.8, 2.0))
        img = cv2.addWeighted(img, 1 + (a := rng.uniform(0.3, 1.2)), soft, -a, 0)
    return img


# -- things that are not cards --------------------------------------------------------

def _object(img: np.ndarray, rng: np.random.Generator, card_px: float) -> None:
    """A sheet, book, phone, pen or hand on the table, in place."""
    h, w = img.shape[:2]
    kind = rng.integers(5)
    c = np.array([rng.uniform(0, w), rng.uniform(0, h)])
    a = rng.uniform(0, math.pi)
    if kind == 4:
        _hand(img, rng, card_px)
        return
    if kind == 3:  # a pen: a thin stick
        d = np.array([math.cos(a), math.sin(a)]) * card_px * rng.uniform(0.6, 1.5)
        cv2.line(img, tuple((c - d).astype(int)), tuple((c + d).astype(int)),
                 _colour(rng).tolist(), max(1, int(card_px * rng.uniform(0.03, 0.08))),
                 cv2.LINE_AA)
        return
    if kind == 0:  # a white sheet of paper, much bigger than a card
        size = card_px * rng.uniform(1.8, 4.0) * np.array([1, 1.414])
        patch = _paper(rng, 64, 90)
    elif kind == 1:  # a book or notebook cover
        size = card_px * rng.uniform(1.4, 3.0) * np.array([1, rng.uniform(1.2, 1.5)])
        patch = (np.ones((64, 90, 3), np.float32) * _colour(rng)).astype(np.uint8)
        for _ in range(3):
            cv2.putText(patch, "ab", (int(rng.integers(0, 50)), int(rng.integers(10, 60))),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.5, _colour(rng).tolist(), 1)
    else:  # a phone or a remote: dark rounded slab
        size = card_px * rng.uniform(0.6, 1.2) * np.array([1, rng.uniform(1.8, 2.2)])
        patch = np.ones((64, 90, 3), np.float32) * rng.uniform(10, 60)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    box = (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * size / 2) @ rot.T + c
    _paste(img, patch, box)


def _paste(img: np.ndarray, patch: np.ndarray, box: np.ndarray) -> None:
    """``patch`` warped onto the quad ``box`` of ``img``, in place."""
    h, w = img.shape[:2]
    ph, pw = patch.shape[:2]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]]),
                                    box.astype(np.float32))
    warped = cv2.warpPerspective(np.clip(patch, 0, 255).astype(np.uint8), m, (w, h))
    mask = cv2.warpPerspective(np.full((ph, pw), 255, np.uint8), m, (w, h))
    img[mask > 127] = warped[mask > 127]


def sheet_corner(img: np.ndarray, rng: np.random.Generator, card_px: float) -> None:
    """A sheet of paper, a receipt or a book lying mostly out of the picture, in place:
    only a corner of it pokes in, about a card's size. Its two edges meet as a card's
    do, and the picture's edge cuts the rest off as it cuts a card leaving the picture;
    what tells them apart is the paper going on round the outline, and no print."""
    h, w = img.shape[:2]
    size = card_px * rng.uniform(1.5, 4.0) * np.array([1.0, rng.uniform(1.0, 1.5)])
    # Square to the picture's edges half the time (a sheet pushed to the table's edge).
    a = rng.uniform(0, 180) if rng.random() < 0.5 else rng.normal(0, 8) + 90 * rng.integers(2)
    corner = np.array([rng.uniform(0, w), rng.uniform(0, h)])
    side = rng.integers(4)  # the corner lies this far in from one edge
    reach = card_px * rng.uniform(0.3, 1.3)
    corner[side % 2] = reach if side < 2 else (w, h)[side % 2] - reach
    box = cv2.boxPoints(((0.0, 0.0), (float(size[0]), float(size[1])), a))
    # The sheet laid so that its corner nearest the picture's middle sits there.
    k = int(np.argmin(np.linalg.norm(box + corner - (w / 2, h / 2), axis=1)))
    box = (box - box[k] + corner).astype(np.float32)
    if rng.random() < 0.6:
        patch = _paper(rng, 64, 90)
    else:  # a plain light card or book cover
        patch = np.ones((64, 90, 3), np.float32) * _colour(rng, rng.uniform(170, 255))
    _paste(img, patch, box)


def _hand(img: np.ndarray, rng: np.random.Generator, card_px: float) -> np.ndarray:
    """A hand and arm from an edge, in place; returns its mask."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    skin = SKIN[rng.integers(len(SKIN))]
    tip = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h])
    side = rng.integers(4)
    edge = {0: (tip[0], -h), 1: (tip[0], 2 * h), 2: (-w, tip[1]), 3: (2 * w, tip[1])}[side]
    d = np.array(edge) - tip
    d = d / (np.linalg.norm(d) + 1e-6)
    n = np.array([-d[1], d[0]])
    r = card_px * rng.uniform(0.3, 0.5)
    palm = np.array([tip + n * r, tip + n * r * 0.9 + d * 3 * r, tip - n * r * 0.9 + d * 3 * r,
                     tip - n * r], np.int32)
    arm = np.array([tip + n * r * 1.2 + d * 3 * r, tip + n * r * 1.3 + d * 20 * r,
                    tip - n * r * 1.3 + d * 20 * r, tip - n * r * 1.2 + d * 3 * r], np.int32)
    for poly, col in ((palm, skin), (arm, tuple(int(v) for v in rng.integers(0, 255, 3)))):
        cv2.fillConvexPoly(img, poly, col, cv2.LINE_AA)
        cv2.fillConvexPoly(mask, poly, 255)
    cv2.circle(img, tuple(int(v) for v in tip), int(r), skin, -1, cv2.LINE_AA)
    cv2.circle(mask, tuple(int(v) for v in tip), int(r), 255, -1)
    return mask


# -- card layouts ---------------------------------------------------------------------

def _box(c, a, size) -> np.ndarray:
    """Corners TL TR BR BL of a card of ``size`` (w, h) centred at c, rotated by a."""
    w, h = size
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return (np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2) @ rot.T + np.asarray(c)


# How often each kind of group is laid ("single", "row", "fan", "stack", "stock",
# "scatter"); OVERLAPPING_P, for training scenes that dwell on cards partly under
# others (half of them or more in view), where the search misses most: fanned and
# stacked cards, the briscola under the stock.
LAYOUT_P = (0.25, 0.2, 0.15, 0.12, 0.13, 0.15)
OVERLAPPING_P = (0.1, 0.1, 0.35, 0.25, 0.15, 0.05)


def _layout(rng: np.random.Generator, w: int, h: int, size,
            overlapping: bool = False) -> list[tuple[np.ndarray, bool]]:
    """Card boxes on the plane, bottom first, and whether each shows its back; when
    ``overlapping``, more fans and stacks, spread wider (more of each card shows)."""
    cw, ch = size
    out: list[tuple[np.ndarray, bool]] = []
    n_groups = int(rng.integers(1, 4)) if rng.random() < 0.95 else 0
    for _ in range(n_groups):
        c = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h])
        if rng.random() < 0.15:  # at the picture's edge
            c[rng.integers(2)] = rng.uniform(-0.05, 0.05) * (w, h)[0] + rng.integers(2) * w
        a = rng.uniform(0, 2 * math.pi)
        kind = rng.choice(["single", "row", "fan", "stack", "stock", "scatter"],
                          p=list(OVERLAPPING_P if overlapping else LAYOUT_P))
        u = np.array([math.cos(a), math.sin(a)])
        v = np.array([-u[1], u[0]])
        if kind == "single":
            out.append((_box(c, a, size), rng.random() < 0.1))
        elif kind == "row":  # touching or nearly, side by side or end to end
            k = int(rng.integers(2, 5))
            end = rng.random() < 0.5
            step = (ch if end else cw) * rng.uniform(0.97, 1.06)
            d = v if end else u
            for i in range(k):
                jitter = rng.normal(0, 0.02) if rng.random() < 0.5 else 0
                out.append((_box(c + d * step * i, a + jitter, size), False))
        elif kind == "fan":  # a hand of cards fanned out, or cards played overlapping
            k = int(rng.integers(2, 5))
            da = rng.uniform(-0.5, 0.5)
            shift = rng.uniform(*((0.45, 0.9) if overlapping else (0.25, 0.7))) * cw
            for i in range(k):
                out.append((_box(c + u * shift * i + v * rng.normal(0, 0.05) * ch,
                                 a + da * i / k, size), False))
        elif kind == "stack":  # a pile of played cards, each a little askew
            for _i in range(int(rng.integers(2, 5))):
                spread = 0.45 if overlapping else 0.25
                out.append((_box(c + rng.normal(0, spread, 2) * cw, a + rng.normal(0, 0.4), size),
                            False))
        elif kind == "stock":  # the briscola crosswise, half under the face-down stock
            out.append((_box(c + u * rng.uniform(0.35, 0.6) * ch, a + math.pi / 2, size), False))
            for i in range(int(rng.integers(1, 4))):
                out.append((_box(c + rng.normal(0, 0.01, 2) * cw + np.array([i, -i]) * 0.4,
                                 a + rng.normal(0, 0.03), size), True))
        else:
            for _i in range(int(rng.integers(2, 6))):
                cc = c + rng.normal(0, 1.5, 2) * ch
                out.append((_box(cc, rng.uniform(0, 2 * math.pi), size), rng.random() < 0.1))
    return out


def _view(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Homography from the table plane to the picture: tilt, yaw, roll, and a
    picture stored with another aspect ratio than it was taken."""
    tilt = math.radians(rng.uniform(0, 40) if rng.random() < 0.8 else 0)
    k = math.tan(tilt) * rng.uniform(0.3, 0.7)
    dirn = rng.uniform(0, 2 * math.pi)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    corners = src - np.float32([w, h]) / 2
    # Perspective: the far edge shrinks; approximate by scaling corners by distance.
    depth = 1 + k * (corners @ np.float32([math.cos(dirn), math.sin(dirn)])) / (0.5 * max(w, h))
    dst = corners / depth[:, None]
    if rng.random() < 0.3:  # stored squashed: 768x367 from a 4:3 photo, say
        dst[:, int(rng.integers(2))] *= rng.uniform(0.6, 0.95)
    dst = dst - dst.min(0)
    dst *= np.float32([w, h]) / dst.max(0)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def detection_scene(rng: np.random.Generator, decks: list[dict[str, np.ndarray]],
                    size: tuple[int, int] = (256, 256), card_px: tuple[float, float] = (30, 150),
                    clutter=None, overlapping: bool = False, sheet_edges: float = 0.0,
                    phone_look: bool = False) -> tuple[np.ndarray, list[TruthCard]]:
    """One training picture (BGR uint8, ``size`` = (w, h)) and its cards, whose long
    side is drawn between ``card_px`` pixels. ``clutter(img, rng, card_long_px)``, when
    given, draws more things that are no card on the table before the cards are laid
    (the draws of the scenes without it are unchanged). ``overlapping`` lays more
    cards partly under others (:data:`OVERLAPPING_P`), and more things that are no card;
    ``sheet_edges`` is the share of those that also show a sheet's corner poking in at the
    picture's edge (:func:`sheet_corner`). ``phone_look`` draws it as phone photos look
    and renders often do not: towels, prints and knits among the cloths, cards with
    rounded corners, and what a phone's camera does (:func:`phone`)."""
    w, h = size
    img = background(rng, h, w, kinds=PHONE_KINDS if phone_look else None)
    deck = decks[rng.integers(len(decks))]
    codes = [c for c in deck if c != "back"]
    fh, fw = deck[codes[0]].shape[:2]
    long_px = math.exp(rng.uniform(math.log(card_px[0]), math.log(card_px[1])))
    card = (long_px * fw / fh, long_px)
    # Overlapping scenes lay more sheets, books and phones too: a sheet's corner at the
    # picture's edge is what a network keen on cards partly in view takes for one.
    for _ in range(int(rng.integers(*((1, 4) if overlapping else (0, 3))))):
        _object(img, rng, long_px * 0.6)
    if overlapping and sheet_edges and rng.random() < sheet_edges:
        sheet_corner(img, rng, long_px)
    if clutter is not None:
        clutter(img, rng, long_px)
    view = _view(rng, w, h)
    placed = []
    for box, back in _layout(rng, w, h, card, overlapping):
        dst = cv2.perspectiveTransform(box.reshape(-1, 1, 2).astype(np.float32), view).reshape(4, 2)
        if rng.random() < 0.5:  # the card lies upside down: its corner 0 is at the bottom
            dst = np.roll(dst, 2, axis=0)
        code = None if back else codes[rng.integers(len(codes))]  # (the same draws as ever)
        placed.append((deck["back"] if back else deck[code], dst, back, code))
    hand = rng.random() < 0.3
    radius = rng.uniform(0.03, 0.09) if phone_look else 0.0
    img, truth = lay_cards(img, placed, hand_rng=rng if hand else None, card_px=long_px,
                           rounded=radius)
    if rng.random() < 0.6:
        add_light(img, rng)
    if rng.random() < 0.3:
        add_shadow(img, rng)
    if rng.random() < 0.2:
        add_glare(img, rng, 0.5)
    if phone_look:
        img = phone(img, rng)
    return degrade(img, rng, blur=1.0, noise=5.0), truth


def lay_cards(img: np.ndarray, placed: list[tuple], hand_rng: np.random.Generator | None = None,
              card_px: float = 100.0, rounded: float = 0.0
              ) -> tuple[np.ndarray, list[TruthCard]]:
    """Cards (face image, corners in the picture, is a back, and optionally the card's
    code) laid in order, each on the ones before, with a soft contact shadow; a hand over
    them with ``hand_rng``; their corners rounded off by ``rounded`` of the short side.
    Returns the picture and every card's truth, its visible fraction counted."""
    h, w = img.shape[:2]
    ids = np.zeros((h, w), np.int16)
    kept = []
    for i, (face, dst, back, *code) in enumerate(placed, start=1):
        fh, fw = face.shape[:2]
        src = np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]])
        m = cv2.getPerspectiveTransform(src, np.float32(dst))
        mask = cv2.warpPerspective(rounded_mask(fh, fw, rounded), m, (w, h))
        if not mask.any():
            continue
        sm = cv2.GaussianBlur(np.roll(mask, (1, 1), (0, 1)), (0, 0), 1.5)
        img = (img * (1 - 0.3 * sm[..., None] / 255.0)).astype(np.uint8)
        warped = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_AREA)
        alpha = mask[..., None].astype(np.float32) / 255.0
        img = (warped * alpha + img * (1 - alpha)).astype(np.uint8)
        ids[mask > 127] = i
        kept.append((i, np.float32(dst), back, code[0] if code else None))
    if hand_rng is not None:
        ids[_hand(img, hand_rng, card_px) > 0] = 0
    counts = np.bincount(ids.ravel(), minlength=len(placed) + 1)
    truth = []
    for i, dst, back, code in kept:
        area = abs(cv2.contourArea(dst))
        truth.append(TruthCard(dst, float(min(1.0, counts[i] / max(area, 1))), back, code))
    return img, truth


def scene_decks(seeds, width: int = 64, dressed: float = 0.0) -> list[dict[str, np.ndarray]]:
    """Procedural decks drawn small (the detector never needs more detail); with
    ``dressed``, that share of them (by seed) given the busier looks of printed decks
    (``deck_looks.dress``)."""
    from vision.deck_art import DeckStyle, render_deck
    from vision.deck_looks import dress

    out = []
    for s in seeds:
        deck = render_deck(DeckStyle.from_seed(int(s)))
        deck = {c: cv2.resize(f, (width, round(width * f.shape[0] / f.shape[1])),
                              interpolation=cv2.INTER_AREA) for c, f in deck.items()}
        rng = np.random.default_rng(int(s) + 104_729)
        if dressed and rng.random() < dressed:
            deck = dress(deck, rng)
        out.append(deck)
    return out


def make_in_parallel(make, n: int, seed: int, deck0: int, workers: int, chunk: int,
                     decks_per_chunk: int, extra: tuple = ()) -> tuple[np.ndarray, np.ndarray]:
    """A training set of ``n`` samples built by ``make((seed, count, deck_seeds))`` (a
    module-level function returning inputs and targets) in chunks over ``workers``
    processes; each chunk draws its own deck styles from ``deck0`` on, by fixed seeds.
    Each job is (seed, count, deck seeds, *extra)."""
    from multiprocessing import Pool

    jobs = []
    for k in range(math.ceil(n / chunk)):
        rng = np.random.default_rng(seed + k)
        jobs.append((seed * 1000 + k, min(chunk, n - k * chunk),
                     [int(s) for s in deck0 + rng.integers(0, 1_000_000, decks_per_chunk)],
                     *extra))
    with Pool(workers) as pool:
        parts = pool.map(make, jobs)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
