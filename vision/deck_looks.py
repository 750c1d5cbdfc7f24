"""What printed decks look like and the procedural styles lack: more of it drawn on them.

The detector learns a card's outline from the procedural decks of ``deck_art``,
whose faces are mostly white paper with a thin frame and whose backs are one
plain pattern. Real decks are busier, and that is where it went wrong on real
art (a Toscane back seen as two half cards, court cards split at their middle):

- backs with a dark frame, a medallion in the middle, ornate two-tone damask,
  coloured wavy lines, and top and bottom halves mirrored about a middle line;
- double-headed court cards (French, Triestine), whose halves meet at a line;
- figures printed to the card's edge, with no white margin;
- cream or grey paper, and a dark outline at the card's edge.

``dress(deck, rng)`` returns a deck (code -> BGR face, plus ``"back"``) with some
of these, drawn at the deck's own size; the same ``rng`` gives the same deck.
No real deck is drawn from: everything here is procedural.
"""

from __future__ import annotations

import cv2
import numpy as np


def _tone(rng: np.random.Generator) -> tuple[int, int, int]:
    return tuple(int(v) for v in rng.integers(0, 256, 3))


def _smooth_noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    small = rng.random((max(2, int(h / cell)), max(2, int(w / cell)))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def busy_back(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A back such as printed decks have: one of damask, wavy lines or a fine lattice,
    then maybe mirrored about the middle, a medallion, a dark frame."""
    ink, paper = np.float32(_tone(rng)) * 0.6, np.float32(rng.integers(170, 256, 3))
    kind = int(rng.integers(3))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == 1:  # coloured wavy lines between two inks
        f = rng.uniform(0.15, 0.4)
        t = (0.5 + 0.5 * np.sin(f * yy + 3 * np.sin(xx * rng.uniform(0.05, 0.2))))[..., None]
        img = t * ink + (1 - t) * np.float32(_tone(rng))
    else:
        if kind == 0:  # ornate two-tone damask: thresholded band-passed noise
            n = _smooth_noise(rng, h, w, rng.uniform(2, 5)) - _smooth_noise(rng, h, w, 9)
            t = n > rng.uniform(-0.1, 0.1)
        else:  # fine lattice of diamonds
            s = rng.uniform(3, 8)
            t = (np.abs(((xx + yy) % s) - s / 2) < 1) | (np.abs(((xx - yy) % s) - s / 2) < 1)
        t = t.astype(np.float32)[..., None]
        img = t * ink + (1 - t) * paper
    if rng.random() < 0.4:  # mirrored halves about the middle, with a line between
        img[h - h // 2:] = img[:h // 2][::-1, ::-1]
        cv2.line(img, (0, h // 2), (w, h // 2), (ink * 0.5).tolist(), 1)
    if rng.random() < 0.5:  # a medallion in the middle
        r = int(w * rng.uniform(0.18, 0.35))
        cv2.ellipse(img, (w // 2, h // 2), (r, int(r * rng.uniform(1, 1.4))), 0, 0, 360,
                    paper.tolist(), -1, cv2.LINE_AA)
        cv2.ellipse(img, (w // 2, h // 2), (r // 2, r // 2), 0, 0, 360, ink.tolist(), -1,
                    cv2.LINE_AA)
    if rng.random() < 0.6:  # a frame: a dark band, sometimes a light line inside it
        m = max(1, int(w * rng.uniform(0.03, 0.1)))
        frame = (np.float32(_tone(rng)) * 0.4).tolist()
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), frame, m * 2)
        if rng.random() < 0.5:
            cv2.rectangle(img, (m + 1, m + 1), (w - m - 2, h - m - 2), paper.tolist(), 1)
    return np.clip(img, 0, 255).astype(np.uint8)


def _double_headed(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A court card's upper half turned about the centre into its lower one."""
    h = face.shape[0]
    out = face.copy()
    out[h - h // 2:] = face[:h // 2][::-1, ::-1]
    cv2.line(out, (0, h // 2), (face.shape[1], h // 2), _tone(rng), int(rng.integers(1, 3)))
    return out


def _to_the_edge(face: np.ndarray, rng: np.random.Generator, court: bool) -> np.ndarray:
    """The art printed to the card's edge: its middle blown up over the white margin;
    a court card's figure blown up to fill the card, as printed figures do."""
    h, w = face.shape[:2]
    k = rng.uniform(0.06, 0.15)
    y0, y1, x0, x1 = int(h * k), h - int(h * k), int(w * k), w - int(w * k)
    if court:
        ys, xs = np.nonzero(face[y0:y1, x0:x1].min(2) < 180)
        if len(ys):
            y0, y1, x0, x1 = y0 + ys.min(), y0 + ys.max() + 1, x0 + xs.min(), x0 + xs.max() + 1
    return cv2.resize(face[y0:y1, x0:x1], (w, h), interpolation=cv2.INTER_LINEAR)


def dress(deck: dict[str, np.ndarray], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The deck with some of the looks above, the same for all its cards where a real
    deck's would be (paper, edge, back), per kind of card otherwise."""
    out = dict(deck)
    h, w = deck["back"].shape[:2]
    if rng.random() < 0.7:
        out["back"] = busy_back(rng, w, h)
    doubled, edge_art = rng.random() < 0.4, rng.random() < 0.3
    paper = np.float32(rng.uniform(0.78, 1.0, 3)) if rng.random() < 0.4 else None
    outline = _tone(rng) if rng.random() < 0.3 else None
    for code, face in deck.items():
        if code == "back":
            continue
        f = face
        court = int(code[:-1]) >= 8
        if doubled and court:
            f = _double_headed(f, rng)
        if edge_art and (court or rng.random() < 0.3):
            f = _to_the_edge(f, rng, court)
        if paper is not None:  # cream or grey paper: light pixels take the tint
            light = (f.min(2, keepdims=True) > 200).astype(np.float32)
            f = (f * (1 - light + light * paper)).astype(np.uint8)
        if outline is not None:
            f = f.copy()
            cv2.rectangle(f, (0, 0), (w - 1, h - 1), outline, 1)
        out[code] = f
    return out
