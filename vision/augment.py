"""Photometric and geometric damage that a camera does to a card, for training and tests.

``camera_patch`` turns a clean card face into what the recognizer will see
after detection and rectification: an imperfect quadrilateral, low resolution,
blur, glare, shadow, colour cast, noise, JPEG and partial occlusion. The same
helpers light the synthetic scenes of ``vision.scenes``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.embed import PATCH_H, PATCH_W

SKIN = ((150, 190, 235), (110, 150, 205), (80, 120, 170), (170, 205, 240), (60, 90, 130))


def random_texture(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A table-like background: felt, wood grain or a printed mat, in BGR."""
    base = rng.integers(20, 200, 3).astype(np.float32)
    kind = rng.integers(3)
    noise = cv2.resize(rng.normal(0, 1, (max(2, h // 16), max(2, w // 16))).astype(np.float32),
                       (w, h), interpolation=cv2.INTER_CUBIC)
    img = base[None, None, :] + noise[..., None] * rng.uniform(5, 25)
    if kind == 1:  # wood-like stripes
        yy = np.arange(h, dtype=np.float32)[:, None]
        img += (np.sin(yy / rng.uniform(3, 12) + noise * 2) * rng.uniform(8, 25))[..., None]
    elif kind == 2:  # grain
        img += rng.normal(0, rng.uniform(3, 12), (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def add_glare(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> None:
    """A soft specular blob, in place."""
    h, w = img.shape[:2]
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    r = rng.uniform(0.1, 0.4) * max(h, w)
    yy, xx = np.ogrid[:h, :w]
    g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)) * rng.uniform(60, 200) * strength
    img[:] = np.clip(img + g[..., None], 0, 255).astype(np.uint8)


def add_light(img: np.ndarray, rng: np.random.Generator) -> None:
    """Colour cast, exposure and a linear light gradient, in place."""
    h, w = img.shape[:2]
    gain = rng.uniform(0.7, 1.2) * rng.uniform(0.85, 1.15, 3)
    a = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = 1 + rng.uniform(0, 0.35) * ((xx / w - 0.5) * math.cos(a) + (yy / h - 0.5) * math.sin(a))
    out = img.astype(np.float32) * gain[None, None, :] * ramp[..., None] + rng.uniform(-15, 15)
    img[:] = np.clip(out, 0, 255).astype(np.uint8)


def add_shadow(img: np.ndarray, rng: np.random.Generator) -> None:
    """A soft-edged darker polygon (a hand or phone shadow), in place."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.float32)
    pts = np.stack([rng.uniform(-0.3, 1.3, 4) * w, rng.uniform(-0.3, 1.3, 4) * h], 1)
    cv2.fillConvexPoly(mask, cv2.convexHull(pts.astype(np.int32)), 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, 0.05 * w))
    img[:] = (img * (1 - rng.uniform(0.2, 0.5) * mask[..., None])).astype(np.uint8)


def draw_hand(img: np.ndarray, rng: np.random.Generator, scale: float) -> None:
    """A crude hand and arm (skin blob plus a sleeve) entering from an edge, in place."""
    h, w = img.shape[:2]
    skin = SKIN[rng.integers(len(SKIN))]
    side = rng.integers(4)
    tip = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h])
    edge = {0: (tip[0], -h), 1: (tip[0], 2 * h), 2: (-w, tip[1]), 3: (2 * w, tip[1])}[side]
    d = np.array(edge) - tip
    d = d / (np.linalg.norm(d) + 1e-6)
    n = np.array([-d[1], d[0]])
    r = scale * rng.uniform(0.35, 0.6)
    palm = [tip + n * r, tip + n * r * 0.9 + d * 3 * r, tip - n * r * 0.9 + d * 3 * r, tip - n * r]
    cv2.fillConvexPoly(img, np.array(palm, np.int32), skin, cv2.LINE_AA)
    cv2.circle(img, tuple(int(v) for v in tip), int(r), skin, -1, cv2.LINE_AA)
    sleeve = tuple(int(v) for v in rng.integers(0, 255, 3))
    arm = [tip + n * r * 1.2 + d * 3 * r, tip + n * r * 1.3 + d * 20 * r,
           tip - n * r * 1.3 + d * 20 * r, tip - n * r * 1.2 + d * 3 * r]
    cv2.fillConvexPoly(img, np.array(arm, np.int32), sleeve, cv2.LINE_AA)


def degrade(img: np.ndarray, rng: np.random.Generator, blur: float = 1.2,
            noise: float = 6.0) -> np.ndarray:
    """Blur, sensor noise and JPEG round trip."""
    s = rng.uniform(0, blur)
    if s > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), s)
    if rng.random() < 0.2:  # motion blur
        k = int(rng.integers(3, 6))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        img = cv2.filter2D(img, -1, cv2.warpAffine(ker, rot, (k, k)))
    img = np.clip(img + rng.normal(0, rng.uniform(0, noise), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def camera_patch(face: np.ndarray, rng: np.random.Generator, strength: float = 1.0,
                 occluder: np.ndarray | None = None,
                 textures: list[np.ndarray] | None = None) -> np.ndarray:
    """A canonical PATCH_W x PATCH_H view of ``face`` as detection would deliver it.

    ``strength`` 0 gives an almost clean patch (as enrolled), 1 the full damage.
    ``occluder`` (an image, e.g. a card back) may cover up to ~55% of one end, as the
    stock covers the crosswise briscola. ``textures`` (large background images) saves
    drawing a new table texture for each patch.
    """
    if face.shape[1] > 96:  # work near the output resolution: 3x cheaper
        face = cv2.resize(face, (96, round(96 * face.shape[0] / face.shape[1])),
                          interpolation=cv2.INTER_AREA)
    h, w = face.shape[:2]
    pad = int(0.15 * w)
    if textures:
        tex = textures[rng.integers(len(textures))]
        y0 = rng.integers(tex.shape[0] - h - 2 * pad)
        x0 = rng.integers(tex.shape[1] - w - 2 * pad)
        canvas = tex[y0:y0 + h + 2 * pad, x0:x0 + w + 2 * pad].copy()
    else:
        canvas = random_texture(rng, h + 2 * pad, w + 2 * pad)
    canvas[pad:pad + h, pad:pad + w] = face
    card = canvas[pad:pad + h, pad:pad + w]
    s = strength
    if rng.random() < 0.8 * s:
        add_light(card, rng)
    if occluder is not None and rng.random() < 0.25 * s:
        frac = rng.uniform(0.2, 0.55)
        cut = int(h * frac)
        occ = cv2.resize(occluder, (w + 2 * pad, cut + pad))
        if rng.random() < 0.5:
            canvas[:cut + pad] = occ
        else:
            canvas[pad + h - cut:] = occ
    elif rng.random() < 0.15 * s:
        draw_hand(canvas, rng, w * 0.5)
    if rng.random() < 0.3 * s:
        add_shadow(canvas, rng)
    if rng.random() < 0.3 * s:
        add_glare(canvas, rng, 0.6)
    # Imperfect corners from detection: jitter of a few percent of the card width.
    src = np.float32([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]])
    src += rng.normal(0, 0.025 * w * max(s, 0.2), (4, 2)).astype(np.float32)
    out_w = int(PATCH_W * rng.uniform(0.55, 1.4)) if s > 0.5 else PATCH_W
    out_h = int(out_w * PATCH_H / PATCH_W)
    dst = np.float32([[0, 0], [out_w, 0], [out_w, out_h], [0, out_h]])
    m = cv2.getPerspectiveTransform(src, dst)
    patch = cv2.warpPerspective(canvas, m, (out_w, out_h), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_REFLECT)
    patch = cv2.resize(patch, (PATCH_W, PATCH_H), interpolation=cv2.INTER_LINEAR)
    return degrade(patch, rng, blur=1.3 * s, noise=8 * s)
