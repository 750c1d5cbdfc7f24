"""Detection and recognition on REAL photographs: ../shared/photos (never tuned on).

    python benchmarks/bench_vision_photos.py [--draw DIR]

For each photo set under ../shared/photos (``labels.json`` beside ``images/``), the
matching deck of ../shared/decks is enrolled from its scans (for ``tressette``: the
Triestine sprites, another edition than the photographed cards, so identity figures
are only indicative), then every photo goes through ``find_and_identify`` as
``briscola-table recognize`` does. A report counts for the labelled card whose box
it covers most (at least half of the box, or its centre inside the box); reports
mostly inside an ``ignore`` box count neither way; any other report is a false card.
Prints per set: recall of fully and of partly visible cards (partial ones also by
why they are partial), named right, named wrong, left unknown, cards missed that a
report named the back covers (a face taken for the back), false reports per
photo (and those named as a card: wrong cards for the referee too; where they lie:
on a labelled card, their centre inside its box, as a second report of it or a part of
it does, or apart from every card, as a piece of cloth, an object or a face-down card
does; and how many the detector saw only faintly), median ms per photo. ``--draw DIR``
writes each photo with what was found (green: named right, red: wrong or false,
yellow: unknown, blue: missed labels).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.allocator import keep_freed_memory  # noqa: E402
from vision.deck_folder import face_ratio, load_deck_faces  # noqa: E402
from vision.embed import Embedder  # noqa: E402
from vision.enroll import card_patch, enroll_patches  # noqa: E402
from vision.recognize import Recognizer, find_and_identify  # noqa: E402

SHARED = ROOT.parent / "shared"
DECK_OF = {"tressette": "triestine"}  # photo set -> the deck folder to enroll


def inside(pt, box) -> bool:
    return box[0] <= pt[0] <= box[2] and box[1] <= pt[1] <= box[3]


def covered(corners, box) -> float:
    """How much of the axis-aligned ``box`` the quadrilateral covers (0..1)."""
    x0, y0, x1, y1 = box
    rect = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    inter, _ = cv2.intersectConvexConvex(cv2.convexHull(np.float32(corners)), rect)
    return float(inter) / max(1.0, (x1 - x0) * (y1 - y0))


def match(seen, cards) -> dict[int, int]:
    """Labelled card index -> report index, greedily by how much of the box is covered."""
    pairs = []
    for i, card in enumerate(cards):
        for j, s in enumerate(seen):
            cov = covered(s.corners, card["box"])
            if cov >= 0.5 or inside(s.corners.mean(0), card["box"]):
                pairs.append((cov, i, j))
    out: dict[int, int] = {}
    for _cov, i, j in sorted(pairs, reverse=True):
        if i not in out and j not in out.values():
            out[i] = j
    return out


def false_kinds(report, cards) -> list[str]:
    """Where a false report lies, and how it was seen: ``"on a card"`` (its centre inside
    a labelled card's box: a second report of that card, a part of it, two cards taken as
    one) or ``"apart"`` (the cloth, an object, a face-down card), and ``"faint"`` too
    where the detector saw it only under its report threshold."""
    on = any(inside(report.corners.mean(0), c["box"]) for c in cards)
    return ["on a card" if on else "apart"] + (["faint"] if getattr(report, "faint", False)
                                                else [])


def taken_for_backs(cards, hits: dict[int, int], reports) -> int:
    """How many of the labelled cards no report found (``hits``: :func:`match` of the
    others) a report named the back would have found: faces taken for the back (a back
    is no face to label, and reports named so are left out)."""
    backs = [r for r in reports if r.identity.card == "back"]
    return len(match(backs, [c for i, c in enumerate(cards) if i not in hits]))


def evaluate(name: str, folder: Path, recognizer: Recognizer, draw: Path | None) -> None:
    labels = json.loads((folder / "labels.json").read_text())["images"]
    st = Counter()
    by_why: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    wrong, false_named, ms = [], [], []
    for image, lab in sorted(labels.items()):
        img = cv2.imread(str(folder / "images" / image), cv2.IMREAD_COLOR)
        if img is None:
            print(f"  {image}: unreadable")
            continue
        t0 = time.perf_counter()
        reports = find_and_identify(img, recognizer)
        ms.append((time.perf_counter() - t0) * 1000)
        seen = [s for s in reports if s.identity.card != "back"]
        hits = match(seen, lab["cards"])
        st["missed as backs"] += taken_for_backs(lab["cards"], hits, reports)
        canvas = img.copy() if draw else None
        for i, card in enumerate(lab["cards"]):
            kind = "full" if card["visible"] == "full" else "partial"
            st[kind] += 1
            if kind == "partial":
                by_why[card.get("why", "?").split(",")[0]][0] += 1
            j = hits.get(i)
            if j is None:
                if canvas is not None:
                    x0, y0, x1, y1 = card["box"]
                    cv2.rectangle(canvas, (x0, y0), (x1, y1), (255, 0, 0), 1)
                continue
            st[f"found_{kind}"] += 1
            if kind == "partial":
                by_why[card.get("why", "?").split(",")[0]][1] += 1
            got = seen[j].identity.card
            outcome = "unknown" if got is None else "right" if got == card["card"] else "wrong"
            st[outcome] += 1
            if outcome == "wrong":
                wrong.append(f"{image}:{card['card']}->{got}")
            if canvas is not None:
                col = {"right": (0, 200, 0), "wrong": (0, 0, 255), "unknown": (0, 220, 255)}
                _draw(canvas, seen[j], col[outcome])
        for j, s in enumerate(seen):
            if j in hits.values():
                continue
            if any(covered(s.corners, b) > 0.5 or inside(s.corners.mean(0), b)
                   for b in lab["ignore"]):
                continue
            st["false"] += 1
            for k in false_kinds(s, lab["cards"]):
                st["false " + k] += 1
            if recognizer.is_face(s.identity):  # a card fed to the referee where none is
                false_named.append(f"{image}:{s.identity.card}")
            if canvas is not None:
                _draw(canvas, s, (0, 0, 255))
        if canvas is not None:
            cv2.imwrite(str(draw / f"{name}-{image}"), canvas)
    n = len(labels)
    print(f"{name}: {n} photos, {st['full'] + st['partial']} labelled cards")
    print(f"  fully visible found  {st['found_full']}/{st['full']} "
          f"({100 * st['found_full'] / max(1, st['full']):.1f}%)")
    print(f"  partly visible found {st['found_partial']}/{st['partial']} "
          f"({100 * st['found_partial'] / max(1, st['partial']):.1f}%): "
          + ", ".join(f"{w} {f}/{t}" for w, (t, f) in sorted(by_why.items())))
    print(f"  named right {st['right']}, WRONG {st['wrong']} {wrong}, unknown {st['unknown']}; "
          f"missed under a report named the back: {st['missed as backs']}")
    print(f"  false reports {st['false']} ({st['false'] / max(1, n):.2f} per photo, "
          f"named as a card: {len(false_named)} {false_named}; {st['false on a card']} on "
          f"a labelled card, {st['false apart']} apart, {st['false faint']} faint); "
          f"median {statistics.median(ms):.1f} ms per photo "
          f"({img.shape[1]}x{img.shape[0]})")


def _draw(canvas, seen, colour) -> None:
    pts = np.int32(seen.corners)
    cv2.polylines(canvas, [pts], True, colour, 2)
    text = seen.identity.card or "?"
    vis = getattr(seen, "visible", 1.0)
    if vis < 0.99:
        text += f" {vis:.0%}"
    cv2.putText(canvas, text, tuple(int(v) for v in pts.mean(0)), cv2.FONT_HERSHEY_SIMPLEX,
                0.6, colour, 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--draw", type=Path, help="write annotated photos to this folder")
    args = ap.parse_args(argv)
    if args.draw:
        args.draw.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)
    keep_freed_memory()  # as briscola-table runs
    photos = SHARED / "photos"
    if not photos.is_dir():
        print(f"skipped: {photos} not found (real photographs live in ../shared/photos)")
        return 0
    embedder = Embedder(threads=1)
    for folder in sorted(p for p in photos.iterdir() if (p / "labels.json").is_file()):
        deck_dir = SHARED / "decks" / DECK_OF.get(folder.name, folder.name)
        if not deck_dir.is_dir():
            print(f"{folder.name}: skipped, no deck folder {deck_dir} to enroll")
            continue
        faces = load_deck_faces(deck_dir, alpha=True)
        deck = enroll_patches({c: card_patch(f) for c, f in faces.items()}, embedder,
                              deck_dir.name, face_ratio(faces))
        print(f"{folder.name}: enrolled {deck_dir.name} from its scans (another edition "
              "than the photographed cards: identity only indicative)")
        evaluate(folder.name, folder, Recognizer(deck, embedder), args.draw)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
