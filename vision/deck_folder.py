"""A deck folder: the 40 faces named by card code (``1d.png``, ``10s.jpg``, ...) and ``back.*``.

``load_deck_faces`` reads them by code. Scans come as JPEG or PNG, some with an alpha
channel whose transparent rounded corners are not card; others paint the outside of
the rounded corners with a flat key colour. Both become the card's outline, so that a
face can be drawn on a table (keep the alpha) or fed to enrollment (composited onto
white, as a scanner would show it).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from table_controller.engine.cards import ALL_CARDS

BACK = "back"
FACE_EXTS = (".png", ".jpg", ".jpeg", ".webp")
CODES = (*(str(c) for c in ALL_CARDS), BACK)


class DeckFolderError(ValueError):
    """A deck folder that lacks faces or holds unreadable ones; the message names them."""


def load_deck_faces(folder: str | Path, alpha: bool = False) -> dict[str, np.ndarray]:
    """Card code (and ``"back"``) -> image of every face in ``folder``.

    BGR, transparent parts composited onto white; with ``alpha`` BGRA instead, alpha 0
    outside the card's outline. Raises :class:`DeckFolderError` naming every missing,
    doubled or unreadable file.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise DeckFolderError(f"deck folder not found: {folder}")
    found: dict[str, list[Path]] = {}
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in FACE_EXTS and p.stem.lower() in CODES:
            found.setdefault(p.stem.lower(), []).append(p)
    problems = []
    missing = [c for c in CODES if c not in found]
    if missing:
        problems.append(f"missing {', '.join(c + '.*' for c in missing)}")
    doubled = [" and ".join(p.name for p in ps) for ps in found.values() if len(ps) > 1]
    if doubled:
        problems.append(f"two images for one card: {'; '.join(doubled)}")
    faces: dict[str, np.ndarray] = {}
    unreadable = []
    for code, (path, *_) in found.items():
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None or img.ndim not in (2, 3) or min(img.shape[:2]) < 16:
            unreadable.append(path.name)
            continue
        faces[code] = with_outline(img)
    if unreadable:
        problems.append(f"unreadable {', '.join(unreadable)}")
    if problems:
        raise DeckFolderError(f"deck folder {folder}: " + "; ".join(problems))
    return faces if alpha else {c: on_white(f) for c, f in faces.items()}


def with_outline(img: np.ndarray) -> np.ndarray:
    """``img`` (gray, BGR or BGRA, 8 or 16 bit) as 8-bit BGRA whose alpha is the card.

    Without an alpha channel, a flat colour filling the image's corners outside the
    card's printed outline (sprites cut from a sheet) is taken as background; a
    corner colour that floods more than a sliver of the image is the card's own paper.
    """
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 4:
        return np.ascontiguousarray(img)
    h, w = img.shape[:2]
    outside = np.zeros((h, w), bool)
    flags = 4 | cv2.FLOODFILL_MASK_ONLY | cv2.FLOODFILL_FIXED_RANGE | (1 << 8)
    for x, y in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)):
        one = np.zeros((h + 2, w + 2), np.uint8)  # floodFill marks this mask's border too
        n = cv2.floodFill(img, one, (x, y), (0, 0, 0), (2, 2, 2), (2, 2, 2), flags)[0]
        if n < 0.01 * h * w:
            outside |= one[1:-1, 1:-1] > 0
    alpha = np.where(outside, 0, 255).astype(np.uint8)
    return np.dstack([img, alpha])


def on_white(img: np.ndarray) -> np.ndarray:
    """A BGRA image composited onto white (BGR images are returned as they are)."""
    if img.ndim == 3 and img.shape[2] == 4:
        a = img[..., 3:].astype(np.float32) / 255.0
        return (img[..., :3] * a + 255.0 * (1.0 - a) + 0.5).astype(np.uint8)
    return img


def face_ratio(faces: dict[str, np.ndarray]) -> float:
    """The deck's card height / width: the median of its faces, stood upright."""
    return float(np.median([max(f.shape[:2]) / min(f.shape[:2])
                            for c, f in faces.items() if c != BACK]))
