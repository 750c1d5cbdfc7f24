"""Enrolling a deck: 40 face images (and optionally the back) -> ``EnrolledDeck``.

From a folder (``1d.png``, ``10s.jpg``, ..., ``back.jpg``) or live from a
camera, card by card. Every problem with the folder is collected and reported
at once, naming the files, and nothing is written unless all 40 faces are good.

    python -m vision.enroll --builtin   # rebuild vision/models/builtin_deck.npz
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import cv2
import numpy as np

from table_controller.cards import ALL_CARDS, Card, CardError
from vision.deck import BACK, EnrolledDeck, model_sha1
from vision.detect import find_cards, warp_card
from vision.embed import MODEL_PATH, PATCH_H, PATCH_W, Embedder

IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff"}
BUILTIN_PATH = Path(__file__).with_name("models") / "builtin_deck.npz"


class EnrollmentError(ValueError):
    """The enrollment images are incomplete or unusable; the message lists every problem."""


def card_patch(image: np.ndarray) -> np.ndarray:
    """The canonical patch of the card shown in ``image``.

    A picture shaped like a card (long side 1.35-1.9 times the short one) is taken
    to be a scan or a tight crop and used whole; any other picture is a photo of
    a card lying on something, and the largest card found in it is used.
    """
    h, w = image.shape[:2]
    if not 1.35 <= max(h, w) / min(h, w) <= 1.9:
        quads = find_cards(image, 0.05, 0.97)
        if quads:
            return warp_card(image, max(quads, key=lambda q: q.area).corners)
    if w > h:  # a scan lying landscape: stand it up
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    return cv2.resize(image, (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA)


def read_enrollment_dir(folder: str | Path) -> dict[str, np.ndarray]:
    """Images of a deck folder keyed by card code (and ``"back"``); all errors at once."""
    folder = Path(folder)
    if not folder.is_dir():
        raise EnrollmentError(f"enrollment folder not found: {folder}")
    by_code: dict[str, list[Path]] = {}
    ignored: list[str] = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in IMAGE_EXTS:
            continue
        stem = p.stem.strip().lower()
        if stem == BACK:
            by_code.setdefault(BACK, []).append(p)
            continue
        try:
            by_code.setdefault(str(Card.parse(stem)), []).append(p)
        except CardError:
            ignored.append(p.name)
    problems: list[str] = []
    missing = [str(c) for c in ALL_CARDS if str(c) not in by_code]
    if missing:
        problems.append(f"missing {len(missing)} card(s): {', '.join(missing)}")
    for code, paths in by_code.items():
        if len(paths) > 1:
            problems.append(f"duplicate images for {code}: {', '.join(p.name for p in paths)}")
    images: dict[str, np.ndarray] = {}
    unreadable: list[str] = []
    digests: dict[str, str] = {}
    for code, paths in sorted(by_code.items()):
        img = cv2.imread(str(paths[0]), cv2.IMREAD_COLOR)
        if img is None or min(img.shape[:2]) < 16:
            unreadable.append(paths[0].name)
            continue
        digest = hashlib.sha1(img.tobytes()).hexdigest()
        if digest in digests:
            problems.append(f"{digests[digest]} and {paths[0].name} are the same picture")
        digests.setdefault(digest, paths[0].name)
        images[code] = img
    if unreadable:
        problems.append(f"unreadable image(s): {', '.join(unreadable)}")
    if problems:
        hint = f" (ignored files not named by card code: {', '.join(ignored)})" if ignored else ""
        raise EnrollmentError(f"cannot enroll {folder}: " + "; ".join(problems) + hint)
    return images


def _views(patch: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """The patch plus a few slightly blurred/shifted views: steadier references."""
    out = [patch]
    h, w = patch.shape[:2]
    for _ in range(n):
        m = np.float32([[1, 0, rng.uniform(-1, 1)], [0, 1, rng.uniform(-1, 1)]])
        v = cv2.warpAffine(patch, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
        out.append(cv2.GaussianBlur(v, (0, 0), rng.uniform(0.4, 1.0)))
    return out


def enroll_patches(patches: dict[str, np.ndarray], embedder: Embedder, name: str = "deck",
                   ratio: float = 89 / 58, views: int = 2) -> EnrolledDeck:
    """Reference embeddings (upright, then turned 180 degrees) for each patch."""
    rng = np.random.default_rng(0)
    labels, embs = [], []
    codes = list(patches)
    for code in codes:
        for turned in (False, True):
            p = patches[code][::-1, ::-1] if turned else patches[code]
            e = embedder(np.stack(_views(p, rng, views))).mean(axis=0)
            embs.append(e / np.linalg.norm(e))
            labels.append(code)
    emb = np.stack(embs).astype(np.float32)
    cov_emb, cov_labels = _covered_references(patches, embedder)
    return EnrolledDeck(emb, np.array(labels), model_sha1(embedder.model_path), name, ratio,
                        cov_emb, cov_labels)


def _covered_references(patches: dict[str, np.ndarray], embedder: Embedder,
                        ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Each face with its top or bottom half under the back, upright and turned.

    The stock lies across the briscola, so its back pattern shows turned by 90
    degrees over the hidden half.
    """
    if BACK not in patches:
        return None, None
    back = cv2.rotate(patches[BACK], cv2.ROTATE_90_CLOCKWISE)  # 96 wide, 64 tall
    half = PATCH_H // 2
    cover = cv2.resize(back, (PATCH_W, half), interpolation=cv2.INTER_AREA)
    views, labels = [], []
    for code, patch in patches.items():
        if code == BACK:
            continue
        for turned in (False, True):
            p = patch[::-1, ::-1] if turned else patch
            top, bottom = p.copy(), p.copy()
            top[:half] = cover
            bottom[PATCH_H - half:] = cover
            views += [top, bottom]
            labels += [code, code]
    emb = embedder(np.stack(views))
    return emb.astype(np.float32), np.array(labels)


def enroll_directory(folder: str | Path, embedder: Embedder | None = None) -> EnrolledDeck:
    images = read_enrollment_dir(folder)
    embedder = embedder or Embedder()
    patches = {code: card_patch(img) for code, img in images.items()}
    faces = [img for code, img in images.items() if code != BACK]
    ratio = float(np.median([max(i.shape[:2]) / min(i.shape[:2]) for i in faces]))
    return enroll_patches(patches, embedder, Path(folder).name, ratio)


def builtin_faces() -> dict[str, np.ndarray]:
    from vision.deck_art import DeckStyle, render_deck

    return render_deck(DeckStyle.from_seed(0))


def builtin_deck(embedder: Embedder | None = None) -> EnrolledDeck:
    """The project's own deck: the committed enrollment, or enrolled now if stale."""
    embedder = embedder or Embedder()
    if BUILTIN_PATH.is_file():
        deck = EnrolledDeck.load(BUILTIN_PATH)
        if deck.model_sha == model_sha1(embedder.model_path):
            return deck
    patches = {c: card_patch(img) for c, img in builtin_faces().items()}
    return enroll_patches(patches, embedder, "builtin")


def load_deck(path: str | Path | None, embedder: Embedder | None = None) -> EnrolledDeck:
    """A deck file, or the built-in deck when ``path`` is None."""
    if path is None:
        return builtin_deck(embedder)
    return EnrolledDeck.load(path, (embedder.model_path if embedder else MODEL_PATH))


def guided_enroll(frames: Iterable[np.ndarray], prompt: Callable[[str], None],
                  embedder: Embedder | None = None, stable_frames: int = 8,
                  still_px: float = 4.0, timeout_s: float = 120.0,
                  codes: Iterable[str] | None = None) -> EnrolledDeck:
    """Ask for each card in turn and capture it once it lies still, alone, in view.

    ``frames`` is any frame iterator (a camera source); ``prompt`` shows the
    request (display, terminal). The back is asked for last.
    """
    embedder = embedder or Embedder()
    wanted = list(codes) if codes is not None else [str(c) for c in ALL_CARDS] + [BACK]
    patches: dict[str, np.ndarray] = {}
    taken: list[tuple[str, np.ndarray]] = []
    it = iter(frames)
    for code in wanted:
        name = "il dorso di una carta" if code == BACK else Card.parse(code).name("it")
        prompt(f"Mostra {name} ({code})")
        history: list[np.ndarray] = []
        start = time.monotonic()
        while True:
            if time.monotonic() - start > timeout_s:
                raise EnrollmentError(f"enrollment stopped: no card shown for {code}")
            try:
                frame = next(it)
            except StopIteration:
                raise EnrollmentError(f"the camera stopped before {code} was captured") from None
            if frame is None:
                continue
            quads = find_cards(frame)
            if len(quads) != 1:
                history.clear()
                continue
            history.append(quads[0].corners)
            if len(history) >= 2 and np.abs(history[-1] - history[-2]).max() > still_px:
                history = history[-1:]
            if len(history) < stable_frames:
                continue
            patch = warp_card(frame, quads[0].corners)
            e = embedder(patch[None])[0]
            repeat = next((c for c, te in taken if float(e @ te) >= 0.97), None)
            if repeat is not None:
                prompt(f"Questa sembra {repeat}: mostra {code}")
                history.clear()
                continue
            patches[code] = patch
            taken.append((code, e))
            prompt(f"{code} OK")
            break
    return enroll_patches(patches, embedder, "live")


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Rebuild the built-in deck's enrollment.")
    ap.add_argument("--builtin", action="store_true", required=True)
    ap.parse_args(argv)
    BUILTIN_PATH.unlink(missing_ok=True)
    deck = builtin_deck()
    deck.save(BUILTIN_PATH)
    print(f"wrote {BUILTIN_PATH} ({len(deck.labels)} references)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
