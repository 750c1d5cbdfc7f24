"""Photo detection on generated scenes of deck styles never trained on (development
figures; the honest measure is bench_vision_photos.py on real photographs).

    python benchmarks/bench_vision_detect.py [--scenes 120] [--seed 91] [--size 1280x720]
                                             [--detector merged|masks|net]

Each scene is drawn by ``vision.detect_scenes.detection_scene`` (the detector's own
training generator) with procedural decks from styles >= 2,000,000, which no model
or threshold here was trained or chosen on: patterned cloth, paper, wood, felt,
towels, objects and hands; cards touching, fanned, stacked, under the stock, leaving
the picture; tilt, light, blur, noise. Cards are drawn 90-420 px long. Prints, for
``find_cards`` (``merged``: colour masks and the learned detector, as ``recognize``
runs it; ``masks``: the colour masks alone; ``net``: the learned detector alone):

  full      recall of cards wholly in view (IoU >= 0.6 with a report)
  partial   recall of cards half or more in view
  corners   median corner error of the full cards found, px
  false     reports per scene that are no card: on the cloth or an object (IoU
            <= 0.3 with every card), or inside a card (a pip block, a panel, part
            of a card reported as a smaller card)
  ms        median ms per scene, one thread
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

from vision.allocator import keep_freed_memory  # noqa: E402
from vision.card_net import quad_inside, quad_iou  # noqa: E402
from vision.detect import (  # noqa: E402
    Quad,
    find_cards,
    find_cards_classical,
    learned_detectors,
    refine_corners,  # noqa: E402
)
from vision.detect_scenes import detection_scene, scene_decks  # noqa: E402

VAL_DECK0 = 2_000_000  # as vision.detect_train: styles from here on are never trained on


def detector(kind: str):
    if kind == "masks":
        def masks(img: np.ndarray) -> list[Quad]:
            quads = find_cards_classical(img)
            for q in quads:
                q.corners = refine_corners(img, q.corners)
            return quads
        return masks
    if kind == "net":
        net, refiner = learned_detectors()

        def learned(img: np.ndarray) -> list[Quad]:
            found = net.find(img)
            corners = refiner.refine(img, [f.corners for f in found]) if found else []
            return [Quad(c, abs(cv2.contourArea(c)), 1.0, f.visible)
                    for f, c in zip(found, corners, strict=True)]
        return learned
    return find_cards


def corner_error(a: np.ndarray, b: np.ndarray) -> float:
    return min(float(np.linalg.norm(np.roll(a, r, 0) - b, axis=1).max()) for r in range(4))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=120)
    ap.add_argument("--seed", type=int, default=91)
    ap.add_argument("--size", default="1280x720", help="WxH of the scenes")
    ap.add_argument("--detector", choices=("merged", "masks", "net"), default="merged")
    ap.add_argument("--net-side", type=int, help="the network's input long side (default: "
                    "the model's own)")
    args = ap.parse_args()
    if args.net_side:
        learned_detectors()[0].long_side = args.net_side
    cv2.setNumThreads(1)
    keep_freed_memory()  # as briscola-table runs
    w, h = map(int, args.size.split("x"))
    rng = np.random.default_rng(args.seed)
    decks = scene_decks(VAL_DECK0 + rng.integers(0, 1_000_000, 6), width=320)
    find = detector(args.detector)
    find(np.zeros((h, w, 3), np.uint8))  # models loaded before the clock starts
    full = [0, 0]
    part = [0, 0]
    errs: list[float] = []
    false_cloth = false_inside = 0
    ms: list[float] = []
    for _ in range(args.scenes):
        img, cards = detection_scene(rng, decks, (w, h), card_px=(90, 420))
        t0 = time.perf_counter()
        quads = find(img)
        ms.append((time.perf_counter() - t0) * 1000)
        used: set[int] = set()
        for c in cards:
            cx, cy = c.corners.mean(0)
            if c.visible < 0.5 or not (0 <= cx < w and 0 <= cy < h):
                continue
            best = max(((quad_iou(q.corners, c.corners), i) for i, q in enumerate(quads)
                        if i not in used), default=(0.0, -1))
            tally = full if c.visible >= 0.97 else part
            tally[1] += 1
            if best[0] >= 0.6:
                used.add(best[1])
                tally[0] += 1
                if c.visible >= 0.97:
                    errs.append(corner_error(quads[best[1]].corners, c.corners))
        for i, q in enumerate(quads):
            if i in used or any(quad_iou(q.corners, c.corners) > 0.3 for c in cards):
                continue
            if any(quad_inside(q.corners, c.corners) > 0.7 for c in cards):
                false_inside += 1
            else:
                false_cloth += 1
    n = args.scenes
    print(f"{args.detector}: {n} scenes {w}x{h}, styles never trained on (seed {args.seed})")
    print(f"  full    {full[0]}/{full[1]} ({100 * full[0] / max(1, full[1]):.1f}%), "
          f"corner error median {statistics.median(errs) if errs else float('nan'):.1f} px, "
          f"p90 {np.percentile(errs, 90) if errs else float('nan'):.1f} px")
    print(f"  partial {part[0]}/{part[1]} ({100 * part[0] / max(1, part[1]):.1f}%)")
    print(f"  false   {false_cloth + false_inside} ({(false_cloth + false_inside) / n:.2f} per "
          f"scene: {false_cloth} on cloth or objects, {false_inside} inside a card)")
    print(f"  ms      median {statistics.median(ms):.1f} per scene")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
