"""Photo detection on generated scenes of deck styles never trained on (development
figures; the honest measure is bench_vision_photos.py on real photographs).

    python benchmarks/bench_vision_detect.py [--scenes 120] [--seed 91] [--size 1280x720]
                                             [--detector merged|masks|net]
                                             [--deck ../shared/decks/toscane] [--dump FILE]

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

With ``--deck DIR`` the scenes are drawn with that deck's scans instead (a real deck:
still never trained on by the detector), the deck is enrolled from the same scans, and
the whole of ``find_and_identify`` runs, as ``recognize`` does: the figures are then
those of the reports it keeps, with the names of the cards found (right, WRONG,
unknown), and the faces named on every other report (a card under half in view, two
cards outlined as one, the cloth) that are no card it covers: those are wrong cards
for the referee too. ``--dump FILE`` writes one line per report (what it is, the
detector's visible fraction, its identity and the comparison's similarity and
contrast), from which the rules' cut-offs are chosen, and one per card missed
(``missed_full`` / ``missed_partial``: its visible fraction, area, code, and in the
similarity column the best overlap any report had with it). ``--losses`` (with
``--deck``) tells where cards were lost at naming: each report naming let go (why:
``vision.recognize.Dropped``) is a card (it outlines a card half or more in view by
0.6 that no report kept found), no card (overlapping none by 0.3) or other; with how
many of each the card check was sure of (0.9 or more).

``--enroll DIR`` (with ``--deck``) enrolls another deck than the one drawn: the real
photographs' own case, whose cards are of another edition than the enrolled art (a card
unlike every enrolled face, a back unlike the enrolled back). ``--as-photos`` (with
``--deck``) scores the scenes as ``bench_vision_photos.py`` scores the photographs too
(:func:`photo_labels`): each face-up card labelled by its box, backs not labelled,
reports named a back left out, a report counting for the card whose box it covers most;
any other report is false. Its figures are the ones to set beside the photographs'.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
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


def identifier(deck_dir: Path, enrolled_dir: Path | None = None):
    """The faces of a real deck (drawn at the width of the procedural ones) and
    ``find_and_identify`` with the deck enrolled from its scans (``enrolled_dir``'s
    scans when given: another deck than the one drawn)."""
    from vision.deck_folder import face_ratio, load_deck_faces, on_white
    from vision.embed import Embedder
    from vision.enroll import card_patch, enroll_patches
    from vision.recognize import Recognizer, find_and_identify

    faces = load_deck_faces(deck_dir, alpha=True)
    known = faces if enrolled_dir is None else load_deck_faces(enrolled_dir, alpha=True)
    embedder = Embedder(threads=1)
    deck = enroll_patches({c: card_patch(f) for c, f in known.items()}, embedder,
                          (enrolled_dir or deck_dir).name, face_ratio(known))
    rec = Recognizer(deck, embedder)
    drawn = {c: cv2.resize(on_white(f), (320, round(320 * f.shape[0] / f.shape[1])),
                           interpolation=cv2.INTER_AREA) for c, f in faces.items()}
    return [drawn], lambda img, dropped=None: find_and_identify(img, rec, dropped)


def photo_labels(cards, w: int, h: int) -> tuple[list[dict], list[list[float]]]:
    """A scene's cards labelled as the real photographs are (``../shared/photos``): each
    face-up card half or more in view by the box of its outline inside the picture,
    ``full`` or ``partial``; a face-up card 0.1-0.5 in view an ``ignore`` box (a sliver:
    a report of it counts neither way); backs not labelled at all."""
    labels: list[dict] = []
    ignore: list[list[float]] = []
    for c in cards:
        if c.back:
            continue
        p = np.float32(c.corners)
        (x0, y0), (x1, y1) = (np.clip(v, 0, (w - 1, h - 1)) for v in (p.min(0), p.max(0)))
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue  # (outside the picture)
        box = [float(x0), float(y0), float(x1), float(y1)]
        if c.visible >= 0.5:
            labels.append({"card": c.code, "box": box,
                           "visible": "full" if c.visible >= 0.97 else "partial"})
        elif c.visible >= 0.1:
            ignore.append(box)
    return labels, ignore


def as_photos(quads, cards, w: int, h: int, tally: Counter) -> None:
    """One scene's reports scored as ``bench_vision_photos.py`` scores a photograph."""
    from bench_vision_photos import covered, false_kinds, inside, match, taken_for_backs

    seen = [q for q in quads if q.identity.card != "back"]
    labels, ignore = photo_labels(cards, w, h)
    hits = match(seen, labels)
    tally["missed as backs"] += taken_for_backs(labels, hits, quads)
    for i, lab in enumerate(labels):
        tally[lab["visible"]] += 1
        tally["found_" + lab["visible"]] += i in hits
    for j, q in enumerate(seen):
        if j not in hits.values() and not any(
                covered(q.corners, b) > 0.5 or inside(q.corners.mean(0), b) for b in ignore):
            tally["false"] += 1
            for k in false_kinds(q, labels):
                tally["false " + k] += 1
            # (What the photographs cannot tell: a face-down card, which is no face to
            # label, and, enrolled from another edition, no back to name either.)
            tally["false on a back"] += any(c.back and (quad_iou(q.corners, c.corners) > 0.3
                                                        or quad_inside(q.corners, c.corners) > 0.5)
                                            for c in cards)


def hidden_by(corners: np.ndarray, visible: float, w: int, h: int) -> str:
    """What hides a card partly in view: ``"edge"`` (the picture's edge alone: its
    share inside the picture is all that shows), ``"cover"`` (only things on it: it lies
    inside the picture) or ``"both"``."""
    inside = quad_inside(np.float32(corners), np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    if inside >= 0.97:
        return "cover"
    return "edge" if visible >= 0.97 * inside else "both"


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
    ap.add_argument("--deck", type=Path, help="draw the scenes with this deck folder's scans "
                    "and run find_and_identify with it enrolled")
    ap.add_argument("--enroll", type=Path, help="with --deck: enroll this deck folder "
                    "instead of the one drawn (another edition, as the photographs are)")
    ap.add_argument("--as-photos", action="store_true", help="with --deck: score the "
                    "scenes as bench_vision_photos.py scores the photographs too")
    ap.add_argument("--dump", type=Path, help="write one line per report to this file")
    ap.add_argument("--phone", action="store_true", help="draw the scenes as phone photos "
                    "look (detect_scenes' phone_look: towels, prints, rounded corners, a "
                    "phone camera's colour, vignetting, noise and sharpening)")
    ap.add_argument("--losses", action="store_true", help="with --deck: the reports naming "
                    "let go, by why, that were cards and that were none")
    ap.add_argument("--card-span", type=float, nargs=2, default=(0.125, 420 / 720),
                    metavar=("LEAST", "MOST"), help="cards' long side as a share of the "
                    "picture's short side (default: 90-420 px in a 1280x720 scene; "
                    "0.5 0.95 draws close-ups)")
    args = ap.parse_args()
    if args.net_side:
        learned_detectors()[0].long_side = args.net_side
    cv2.setNumThreads(1)
    keep_freed_memory()  # as briscola-table runs
    w, h = map(int, args.size.split("x"))
    rng = np.random.default_rng(args.seed)
    decks = scene_decks(VAL_DECK0 + rng.integers(0, 1_000_000, 6), width=320)
    find = detector(args.detector)
    if args.deck:
        if not args.deck.is_dir():
            print(f"skipped: no deck folder {args.deck}")
            return 0
        if args.enroll and not args.enroll.is_dir():
            print(f"skipped: no deck folder {args.enroll}")
            return 0
        decks, find = identifier(args.deck, args.enroll)
    photos: Counter = Counter()
    names = Counter()
    wrong: list[str] = []
    rows: list[str] = []
    missed: list[str] = []
    find(np.zeros((h, w, 3), np.uint8))  # models loaded before the clock starts
    full = [0, 0]
    part = [0, 0]
    part_by: dict[str, list[int]] = {k: [0, 0] for k in ("edge", "cover", "both")}
    errs: list[float] = []
    false_cloth = false_inside = 0
    ms: list[float] = []
    losses: Counter = Counter()
    # Cards span the same share of the picture's short side whatever its size.
    card_px = (args.card_span[0] * min(w, h), args.card_span[1] * min(w, h))
    for scene in range(args.scenes):
        img, cards = detection_scene(rng, decks, (w, h), card_px=card_px,
                                     phone_look=args.phone)
        dropped: list = []
        t0 = time.perf_counter()
        quads = find(img, dropped) if args.deck and args.losses else find(img)
        ms.append((time.perf_counter() - t0) * 1000)
        if args.deck and args.as_photos:
            as_photos(quads, cards, w, h, photos)
        used: set[int] = set()
        what: dict[int, str] = {}
        for c in cards:
            cx, cy = c.corners.mean(0)
            if c.visible < 0.5 or not (0 <= cx < w and 0 <= cy < h):
                continue
            best = max(((quad_iou(q.corners, c.corners), i) for i, q in enumerate(quads)
                        if i not in used), default=(0.0, -1))
            tally = full if c.visible >= 0.97 else part
            tally[1] += 1
            why = None if c.visible >= 0.97 else part_by[hidden_by(c.corners, c.visible, w, h)]
            if why is not None:
                why[1] += 1
            if best[0] < 0.6:  # a card missed: dumped too, to be looked at
                missed.append("\t".join(map(str, (
                    scene, "missed_full" if c.visible >= 0.97 else "missed_partial",
                    round(float(c.visible), 3), round(float(abs(cv2.contourArea(
                        np.float32(c.corners)))), 1), "back" if c.back else c.code,
                    None, round(best[0], 3), None, 0))))
            if best[0] >= 0.6:
                used.add(best[1])
                tally[0] += 1
                if why is not None:
                    why[0] += 1
                if c.visible >= 0.97:
                    errs.append(corner_error(quads[best[1]].corners, c.corners))
                what[best[1]] = "full" if c.visible >= 0.97 else "partial"
                ident = getattr(quads[best[1]], "identity", None)
                if ident is not None:
                    got, true = ident.card, "back" if c.back else c.code
                    names["unknown" if got is None else "right" if got == true else "wrong"] += 1
                    if got is not None and got != true:
                        wrong.append(f"{true}->{got} ({c.visible:.2f} visible, scene {scene})")
        for i, q in enumerate(quads):
            ident = getattr(q, "identity", None)
            if i not in used and ident is not None and ident.card not in (None, "back"):
                # A face named on any other report is a card fed to the referee too: right
                # only if it is a card the report covers (part of).
                under = {"back" if c.back else c.code for c in cards
                         if quad_iou(q.corners, c.corners) > 0.3
                         or quad_inside(q.corners, c.corners) > 0.5}
                if ident.card not in under:
                    names["wrong elsewhere"] += 1
                    wrong.append(f"{'/'.join(sorted(under)) or 'no card'}->{ident.card} "
                                 f"(report {q.visible:.2f} visible, scene {scene})")
            if i in used or any(quad_iou(q.corners, c.corners) > 0.3 for c in cards):
                what.setdefault(i, "other")  # a card under half in view, or met twice
                continue
            if any(quad_inside(q.corners, c.corners) > 0.7 for c in cards):
                false_inside += 1
                what[i] = "false_inside"
            else:
                false_cloth += 1
                what[i] = "false_cloth"
        if dropped:
            wanted = [c for c in cards if c.visible >= 0.5 and 0 <= c.corners.mean(0)[0] < w
                      and 0 <= c.corners.mean(0)[1] < h]
            missing = [c for c in wanted if all(quad_iou(q.corners, c.corners) < 0.6
                                                for q in quads)]
            for d in dropped:
                kind = ("card" if any(quad_iou(d.corners, c.corners) >= 0.6 for c in missing)
                        else "other" if any(quad_iou(d.corners, c.corners) > 0.3
                                            for c in cards) else "no card")
                losses[d.why, kind] += 1
                losses[d.why, kind, "sure"] += d.check is not None and d.check >= 0.9
        for i, q in enumerate(quads):
            ident = getattr(q, "identity", None)
            rows.append("\t".join(map(str, (
                scene, what[i], round(float(q.visible), 3), round(float(
                    abs(cv2.contourArea(np.float32(q.corners)))), 1),
                None if ident is None else ident.card,
                None if ident is None else round(float(ident.confidence), 4),
                None if ident is None else round(float(ident.similarity), 4),
                None if ident is None else ident.contrast, int(getattr(q, "faint", False)),
                None if q.check is None else round(q.check, 4)))))
    n = args.scenes
    drawn = f"deck {args.deck.name}" if args.deck else "styles never trained on"
    if args.deck and args.enroll:
        drawn += f", {args.enroll.name} enrolled"
    print(f"{args.detector}: {n} scenes {w}x{h}, {drawn} (seed {args.seed})")
    print(f"  full    {full[0]}/{full[1]} ({100 * full[0] / max(1, full[1]):.1f}%), "
          f"corner error median {statistics.median(errs) if errs else float('nan'):.1f} px, "
          f"p90 {np.percentile(errs, 90) if errs else float('nan'):.1f} px")
    print(f"  partial {part[0]}/{part[1]} ({100 * part[0] / max(1, part[1]):.1f}%): "
          + ", ".join(f"{k} {f}/{t}" for k, (f, t) in part_by.items())
          + " (hidden by the picture's edge, by cards or hands on it, by both)")
    print(f"  false   {false_cloth + false_inside} ({(false_cloth + false_inside) / n:.2f} per "
          f"scene: {false_cloth} on cloth or objects, {false_inside} inside a card)")
    if args.deck:
        print(f"  names   right {names['right']}, WRONG {names['wrong']} "
              f"(+{names['wrong elsewhere']} on reports of no card or another) {wrong}, "
              f"unknown {names['unknown']} (deck {(args.enroll or args.deck).name} enrolled)")
    if args.deck and args.as_photos:
        print(f"  as photos: fully visible {photos['found_full']}/{photos['full']}, partly "
              f"visible {photos['found_partial']}/{photos['partial']}, false reports "
              f"{photos['false']} ({photos['false'] / n:.2f} per scene; "
              f"{photos['false on a card']} on a labelled card, {photos['false apart']} "
              f"apart, {photos['false faint']} faint; {photos['false on a back']} on a "
              f"face-down card); missed under a report named the back "
              f"{photos['missed as backs']}")
    if args.deck and args.losses:
        print("  let go at naming: cards / no card / other (in brackets: the card check "
              "sure of them, 0.9 or more)")
        for why in sorted({k[0] for k in losses}) or ["(none)"]:
            print(f"    {why:8s} " + " / ".join(
                f"{losses[why, kind]} ({losses[why, kind, 'sure']})"
                for kind in ("card", "no card", "other")))
    print(f"  ms      median {statistics.median(ms):.1f} per scene")
    if args.dump:
        args.dump.write_text("scene\tkind\tvisible\tarea\tcard\tconfidence\tsimilarity\tcontrast\tfaint"
                             "\tcheck\n"
                             + "\n".join(rows + missed) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
