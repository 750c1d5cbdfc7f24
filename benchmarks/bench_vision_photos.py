"""Recognition on REAL photographs: ../shared/photos (the honest measure; never tuned on).

    python benchmarks/bench_vision_photos.py

For each photo set under ../shared/photos (``labels.json`` beside ``images/``), the
matching deck of ../shared/decks is enrolled from its scans (for ``tressette``: the
Triestine sprites, another edition than the photographed cards, so identity figures
are only indicative), then every photo goes through ``find_and_identify`` as
``briscola-table recognize`` does. A report counts for the labelled card whose box
holds its centre; reports in an ``ignore`` box count neither way; any other report
is a false card. Prints per set: cards found (all, and fully visible ones), named
right, named wrong, left unknown, false cards, median ms per photo.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.deck_folder import face_ratio, load_deck_faces  # noqa: E402
from vision.embed import Embedder  # noqa: E402
from vision.enroll import card_patch, enroll_patches  # noqa: E402
from vision.recognize import Recognizer, find_and_identify  # noqa: E402

SHARED = ROOT.parent / "shared"
DECK_OF = {"tressette": "triestine"}  # photo set -> the deck folder to enroll


def inside(pt, box) -> bool:
    return box[0] <= pt[0] <= box[2] and box[1] <= pt[1] <= box[3]


def evaluate(name: str, folder: Path, recognizer: Recognizer) -> None:
    labels = json.loads((folder / "labels.json").read_text())["images"]
    st = dict(cards=0, full=0, found=0, found_full=0, right=0, wrong=0, unknown=0, false=0)
    wrong, ms = [], []
    for image, lab in sorted(labels.items()):
        img = cv2.imread(str(folder / "images" / image), cv2.IMREAD_COLOR)
        if img is None:
            print(f"  {image}: unreadable")
            continue
        t0 = time.perf_counter()
        seen = [s for s in find_and_identify(img, recognizer) if s.identity.card != "back"]
        ms.append((time.perf_counter() - t0) * 1000)
        used = set()
        for card in lab["cards"]:
            st["cards"] += 1
            full = card["visible"] == "full"
            st["full"] += full
            hit = next((i for i, s in enumerate(seen) if i not in used
                        and inside(s.corners.mean(0), card["box"])), None)
            if hit is None:
                continue
            used.add(hit)
            st["found"] += 1
            st["found_full"] += full
            got = seen[hit].identity.card
            if got is None:
                st["unknown"] += 1
            elif got == card["card"]:
                st["right"] += 1
            else:
                st["wrong"] += 1
                wrong.append(f"{image}:{card['card']}->{got}")
        for i, s in enumerate(seen):
            if i not in used and not any(inside(s.corners.mean(0), b) for b in lab["ignore"]):
                st["false"] += 1
    print(f"{name} ({len(labels)} photos, {st['cards']} labelled cards, {st['full']} fully "
          f"visible): found {st['found']}/{st['cards']} ({st['found_full']}/{st['full']} of "
          f"the fully visible); named right {st['right']}, wrong {st['wrong']} {wrong}, "
          f"unknown {st['unknown']}; false cards {st['false']}; "
          f"median {statistics.median(ms):.1f} ms/photo")


def main() -> int:
    cv2.setNumThreads(1)
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
        evaluate(folder.name, folder, Recognizer(deck, embedder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
