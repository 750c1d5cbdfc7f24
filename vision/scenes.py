"""Synthetic photographs of cards on a table, with ground truth, for tests and benchmarks.

Cards are pasted on a top-down "plane" (a table texture or the play mat) in
millimetres, then a virtual pinhole camera (tilt, yaw, roll, distance) views the
plane; light, glare, shadows, noise and JPEG are added. Every card's corners
in the final image are returned, so detection and identity can be scored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.augment import add_glare, add_light, add_shadow, degrade, draw_hand, random_texture
from vision.deck_art import CARD_H_MM, CARD_W_MM


@dataclass
class PlacedCard:
    code: str  # card code, or "back"
    center_mm: tuple[float, float]
    angle: float  # degrees, clockwise on the plane
    corners: np.ndarray | None = None  # image pixels TL TR BR BL, set by render


def card_corners_mm(center: tuple[float, float], angle: float,
                    size: tuple[float, float] = (CARD_W_MM, CARD_H_MM)) -> np.ndarray:
    w, h = size
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    box = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    return box @ rot.T + np.array(center)


def paste_cards(plane: np.ndarray, px_per_mm: float, faces: dict[str, np.ndarray],
                cards: list[PlacedCard], shadow: bool = True,
                card_size: tuple[float, float] = (CARD_W_MM, CARD_H_MM)) -> np.ndarray:
    """Cards of ``card_size`` mm drawn in order (later ones on top) onto a copy of the plane."""
    out = plane.copy()
    for c in cards:
        face = faces[c.code]
        fh, fw = face.shape[:2]
        dst = (card_corners_mm(c.center_mm, c.angle, card_size) * px_per_mm).astype(np.float32)
        src = np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]])
        m = cv2.getPerspectiveTransform(src, dst)
        size = (out.shape[1], out.shape[0])
        if shadow:  # a soft contact shadow makes edges look like a photo, not a sticker
            sm = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), m, size)
            sm = cv2.GaussianBlur(np.roll(sm, (2, 2), (0, 1)), (0, 0), 2.0)
            out = (out * (1 - 0.35 * sm[..., None] / 255.0)).astype(np.uint8)
        warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(np.full((fh, fw), 255, np.uint8), m, size)
        alpha = mask[..., None].astype(np.float32) / 255.0
        out = (warped * alpha + out * (1 - alpha)).astype(np.uint8)
    return out


def camera_homography(plane_mm: tuple[float, float], px_per_mm: float,
                      image_size: tuple[int, int], tilt: float = 0.0, yaw: float = 0.0,
                      roll: float = 0.0, fill: float = 0.9, shift: tuple[float, float] = (0, 0),
                      ) -> np.ndarray:
    """Plane pixels -> image pixels for a pinhole camera looking at the plane centre.

    ``tilt`` is the angle from straight down (degrees), ``yaw`` the direction of
    the tilt, ``roll`` the camera's rotation about its axis; the plane is scaled to
    fill ``fill`` of the image.
    """
    W, H = image_size
    pw, ph = plane_mm
    f = 1.2 * W
    t, y, r = (math.radians(v) for v in (tilt, yaw, roll))
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rr = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    rot = rr @ rx @ rz
    # Plane points in mm centred on the plane; camera at distance d along its axis.
    corners = np.array([[-pw / 2, -ph / 2, 0], [pw / 2, -ph / 2, 0], [pw / 2, ph / 2, 0],
                        [-pw / 2, ph / 2, 0]])
    d = f * max(pw / W, ph / H) / fill
    cam = corners @ rot.T + np.array([0, 0, d])
    img = cam[:, :2] / cam[:, 2:3] * f
    # Re-centre and scale so the plane fills the frame as asked, whatever the tilt.
    lo, hi = img.min(0), img.max(0)
    s = fill * min(W / (hi[0] - lo[0]), H / (hi[1] - lo[1]))
    img = (img - (lo + hi) / 2) * s + np.array([W / 2 + shift[0], H / 2 + shift[1]])
    src = np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]]) * px_per_mm
    return cv2.getPerspectiveTransform(src, img.astype(np.float32))


def render(plane: np.ndarray, px_per_mm: float, faces: dict[str, np.ndarray],
           cards: list[PlacedCard], homography: np.ndarray, image_size: tuple[int, int],
           rng: np.random.Generator, background: np.ndarray | None = None,
           effects: float = 1.0, hand: bool = False) -> np.ndarray:
    """The camera image of ``cards`` on ``plane``; fills each card's ``corners``."""
    W, H = image_size
    top = paste_cards(plane, px_per_mm, faces, cards)
    if background is None:
        background = random_texture(rng, H, W)
    img = cv2.warpPerspective(top, homography, (W, H), dst=background.copy(),
                              flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    for c in cards:
        pts = (card_corners_mm(c.center_mm, c.angle) * px_per_mm).astype(np.float32)
        c.corners = cv2.perspectiveTransform(pts[None], homography)[0]
    if effects > 0:
        if rng.random() < 0.8 * effects:
            add_light(img, rng)
        if rng.random() < 0.3 * effects:
            add_shadow(img, rng)
        if rng.random() < 0.3 * effects:
            add_glare(img, rng, 0.5)
    if hand:
        draw_hand(img, rng, 0.08 * W)
    return degrade(img, rng, blur=0.8 * effects, noise=4 * effects) if effects > 0 else img


def scatter(rng: np.random.Generator, codes: list[str], plane_mm: tuple[float, float],
            margin: float = 10.0, tries: int = 200) -> list[PlacedCard]:
    """Random non-overlapping positions and rotations for ``codes`` on the plane."""
    placed: list[PlacedCard] = []
    r = math.hypot(CARD_W_MM, CARD_H_MM) / 2 + 3
    for code in codes:
        for _ in range(tries):
            c = (rng.uniform(r + margin, plane_mm[0] - r - margin),
                 rng.uniform(r + margin, plane_mm[1] - r - margin))
            if all(math.dist(c, p.center_mm) > 2 * r for p in placed):
                placed.append(PlacedCard(code, c, float(rng.uniform(0, 360))))
                break
    return placed


def card_photo(face: np.ndarray, rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
               tilt: float = 20.0, fill: float = 0.6) -> tuple[np.ndarray, np.ndarray]:
    """A photo of one card lying on a table, as a player takes it to enroll a deck.

    ``size`` is (width, height): 16:9 or 4:3, landscape or portrait. The card is turned
    any way, the camera tilted up to ``tilt`` degrees; the card's long side is about
    ``fill`` of the frame's short side (at most 0.75, so that it fits turned). Returns
    the photo and the card's corners in it.
    """
    W, H = size
    short_mm = CARD_H_MM / min(fill, 0.75)
    plane_mm = (short_mm * W / min(W, H), short_mm * H / min(W, H))
    ppm = 3.0
    plane = random_texture(rng, int(plane_mm[1] * ppm), int(plane_mm[0] * ppm))
    card = PlacedCard("card", (plane_mm[0] / 2 + rng.uniform(-5, 5),
                               plane_mm[1] / 2 + rng.uniform(-5, 5)), float(rng.uniform(0, 360)))
    hom = camera_homography(plane_mm, ppm, size, tilt=rng.uniform(0, tilt),
                            yaw=float(rng.choice([0, 180])), roll=rng.uniform(-5, 5), fill=1.0)
    # The same table beyond the plane's edges, where the tilted view does not reach.
    table = cv2.resize(plane, (W, H), interpolation=cv2.INTER_AREA)
    img = render(plane, ppm, {"card": face}, [card], hom, size, rng, background=table,
                 effects=0.6)
    return img, card.corners
