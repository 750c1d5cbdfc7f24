"""Recognition quality on synthetic photos of decks the model never saw.

    python benchmarks/bench_vision_recognition.py [--scenes 60] [--styles 10] [--seed 2024]

For each deck (procedural styles held out from training, then the real
Napoletane deck from ../shared/decks when present): enroll from one clean image
per card, render photos of 4 random faces and a back on random table textures
(camera tilted 0-30 degrees, any rotation, light, glare, shadow, noise, JPEG),
run ``find_and_identify`` and score against the ground truth. Prints:
detection recall, identity accuracy of the faces found, unknown rate, false
cards (wrong identity or not a face) per report, backs named as faces, the worst
corner's error, ms/frame.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from table_controller.cards import ALL_CARDS  # noqa: E402
from vision.augment import random_texture  # noqa: E402
from vision.deck_art import DeckStyle, render_deck  # noqa: E402
from vision.embed import Embedder  # noqa: E402
from vision.enroll import card_patch, enroll_patches  # noqa: E402
from vision.recognize import Recognizer, find_and_identify  # noqa: E402
from vision.scenes import camera_homography, render, scatter  # noqa: E402
from vision.train import VAL_SEED0  # noqa: E402

NAPOLETANE = ROOT.parent / "shared" / "decks" / "napoletane"


def napoletane_faces() -> dict[str, np.ndarray] | None:
    if not (NAPOLETANE / "1d.jpg").is_file():
        return None
    faces = {str(c): cv2.imread(str(NAPOLETANE / f"{c}.jpg")) for c in ALL_CARDS}
    faces["back"] = cv2.imread(str(NAPOLETANE / "back.jpg"))
    return faces


def inside(pt: np.ndarray, poly: np.ndarray) -> bool:
    return cv2.pointPolygonTest(poly.reshape(-1, 1, 2).astype(np.float32),
                                (float(pt[0]), float(pt[1])), False) >= 0


def evaluate_deck(faces: dict[str, np.ndarray], embedder: Embedder, scenes: int,
                  rng: np.random.Generator, size=(1280, 720)) -> dict:
    deck = enroll_patches({c: card_patch(f) for c, f in faces.items()}, embedder)
    rec = Recognizer(deck, embedder)
    st = dict(gt=0, found=0, named=0, correct=0, unknown=0, reports=0, false=0,
              backs=0, back_as_face=0, corner_px=[])
    ms = []
    codes = [str(c) for c in ALL_CARDS]
    for _ in range(scenes):
        plane_mm, ppm = (560.0, 340.0), 3.0
        plane = random_texture(rng, int(plane_mm[1] * ppm), int(plane_mm[0] * ppm))
        picked = list(rng.choice(codes, 4, replace=False)) + ["back"]
        cards = scatter(rng, picked, plane_mm)
        h = camera_homography(plane_mm, ppm, size, tilt=rng.uniform(0, 30),
                              yaw=rng.uniform(0, 360), roll=rng.uniform(-180, 180), fill=1.15)
        img = render(plane, ppm, faces, cards, h, size, rng)
        t0 = time.perf_counter()
        seen = find_and_identify(img, rec)
        ms.append((time.perf_counter() - t0) * 1000)
        W, H = size
        visible = [c for c in cards if (c.corners.min() >= 2 and c.corners[:, 0].max() < W - 2
                                        and c.corners[:, 1].max() < H - 2)]
        used = set()
        for c in visible:
            hit = next((i for i, s in enumerate(seen)
                        if i not in used and inside(s.corners.mean(0), c.corners)), None)
            if c.code == "back":
                st["backs"] += 1
                if hit is not None and rec.is_face(seen[hit].identity):
                    st["back_as_face"] += 1
                if hit is not None:
                    used.add(hit)
                continue
            st["gt"] += 1
            if hit is None:
                continue
            used.add(hit)
            st["found"] += 1
            # Worst corner's distance from the truth, either way up (pixels of 1280x720).
            st["corner_px"].append(float(min(
                np.abs(seen[hit].corners - np.roll(c.corners, k, axis=0)).max()
                for k in range(4))))
            card = seen[hit].identity.card
            if card is None:
                st["unknown"] += 1
            else:
                st["named"] += 1
                st["correct"] += card == c.code
        for s in seen:
            if rec.is_face(s.identity):
                st["reports"] += 1
                truth = next((c.code for c in cards if inside(s.corners.mean(0), c.corners)), None)
                st["false"] += truth != s.identity.card
    st["ms"] = ms
    return st


def show(name: str, st: dict) -> None:
    print(f"{name}: faces {st['gt']}, detection recall {st['found'] / max(1, st['gt']):.4f}, "
          f"identity accuracy {st['correct'] / max(1, st['named']):.4f} "
          f"(unknown {st['unknown'] / max(1, st['found']):.4f}), "
          f"false cards {st['false'] / max(1, st['reports']):.4f} of {st['reports']} reports, "
          f"backs named as faces {st['back_as_face']}/{st['backs']}, "
          f"worst corner median {statistics.median(st['corner_px']):.1f} px "
          f"(p95 {np.percentile(st['corner_px'], 95):.1f}), "
          f"median {statistics.median(st['ms']):.1f} ms/frame")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=60, help="photos per deck")
    ap.add_argument("--styles", type=int, default=10, help="held-out procedural styles")
    ap.add_argument("--seed", type=int, default=2024, help="scenes' random seed")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    embedder = Embedder(threads=1)
    rng = np.random.default_rng(args.seed)
    total: dict = {}
    for i in range(args.styles):
        seed = VAL_SEED0 + 500 + i  # held out from training, and from its validation
        st = evaluate_deck(render_deck(DeckStyle.from_seed(seed)), embedder,
                           args.scenes, rng)
        for k, v in st.items():
            total[k] = total.get(k, [] if isinstance(v, list) else 0) + v
    show(f"held-out styles ({args.styles})", total)
    nap = napoletane_faces()
    if nap is None:
        print(f"napoletane: skipped, {NAPOLETANE} not found")
    else:
        show("napoletane (real art)", evaluate_deck(nap, embedder, args.scenes * 3, rng))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
