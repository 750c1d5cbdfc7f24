"""Train the card check, the last look at each card a photo's search reports, and export
it to TFLite.

    pip install -e '.[train]'
    python -m vision.check_train --crops 50000 --seed 6161 --backs 0 --epochs 0 \
        --cache /tmp/check_a.npz                  # crops only, ~13 min on 2 cores
    python -m vision.check_train --crops 30000 --seed 7272 --more /tmp/check_a.npz \
        --epochs 3 --cache /tmp/check_b.npz       # ~9 + 5 min: the committed model

The search (``vision.detect.find_cards``) merges colour masks and the learned detector
by rules chosen on generated scenes; what still gets through on real cloth is what
rules on outlines cannot tell from a card: a dark square of a check bedsheet, a wallet,
a block of pips, half a card stretched into a whole one. The check looks at each report
as the corner refiner does (the picture warped so the report stands upright in a 64x96
crop, with a margin round it) and says whether it is a card of which half or more shows,
outlined as the whole card.

Its training crops are the search's own reports and proposals on generated scenes
(``vision.detect_scenes``, procedural decks only, with more clutter than the detector
was trained on: card-sized checks, wallets, keys, strings, stickers, notes), labelled
by the scene's truth: a card (overlap 0.6 or more with a card half or more in view), or
no card (overlap under 0.3 with every card; or mostly inside one and smaller: a part of
it; or a card under 0.4 in view). No real deck or photo is ever used.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from pathlib import Path

import cv2
import numpy as np

from vision.detect_scenes import (
    _colour,
    _paper,
    detection_scene,
    make_in_parallel,
    sheet_corner,
)

CROP_W, CROP_H = 64, 96
MARGIN = 0.25  # of the card's width and height, on every side of the report
VAL_DECK0 = 2_000_000
SIZES = ((1280, 720), (1280, 720), (720, 1280), (960, 720))
CARD_PX = (90, 420)  # long side, as bench_vision_detect.py draws them
BACKS = 0.4  # the share of scenes with more cards face down
CHECK_SHEET_EDGES = 0.3  # the share of scenes with a sheet's corner poking in at an edge


# -- more things that are no card -------------------------------------------------------

def clutter(img: np.ndarray, rng: np.random.Generator, card_px: float) -> None:
    """Things on a table that a search may take for a card, in place: checks as large as
    a card (a bedsheet's), a wallet, keys, strings, stickers, a note."""
    h, w = img.shape[:2]
    if rng.random() < 0.25:  # big checks over part of the picture
        period = card_px * rng.uniform(0.4, 1.3)
        a = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        u = (xx * math.cos(a) + yy * math.sin(a)) / period
        v = (-xx * math.sin(a) + yy * math.cos(a)) / period
        duty = rng.uniform(0.35, 0.6)
        t = (((u % 1) < duty).astype(np.float32) + ((v % 1) < duty)) / 2
        ground, ink = _colour(rng, rng.uniform(170, 255)), _colour(rng, rng.uniform(20, 150))
        checks = ground * (1 - t[..., None]) + ink * t[..., None]
        keep = np.ones((h, w), bool)
        if rng.random() < 0.5:
            keep[:, : int(rng.uniform(0.2, 0.8) * w)] = False
        img[keep] = np.clip(checks[keep], 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(0, 4))):
        c = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        a = rng.uniform(0, 180)
        kind = rng.integers(5)
        if kind == 0:  # a wallet or a case: a dark slab of a card's size, stitched
            s = card_px * rng.uniform(0.5, 0.9) * np.array([1.0, rng.uniform(1.0, 1.6)])
            box = cv2.boxPoints(((c[0], c[1]), (s[0], s[1]), a)).astype(np.int32)
            cv2.fillConvexPoly(img, box, _colour(rng, rng.uniform(20, 120)).tolist(),
                               cv2.LINE_AA)
            inner = cv2.boxPoints(((c[0], c[1]), (s[0] * 0.9, s[1] * 0.92), a))
            cv2.polylines(img, [inner.astype(np.int32)], True,
                          _colour(rng, rng.uniform(90, 220)).tolist(), 1, cv2.LINE_AA)
        elif kind == 1:  # keys: a ring and a blade
            r = max(3, int(card_px * rng.uniform(0.06, 0.12)))
            grey = float(rng.uniform(120, 220))
            cv2.circle(img, tuple(c.astype(int)), r, (grey, grey, grey), max(1, r // 3),
                       cv2.LINE_AA)
            d = np.array([math.cos(math.radians(a)), math.sin(math.radians(a))])
            cv2.line(img, tuple((c + d * r).astype(int)),
                     tuple((c + d * card_px * rng.uniform(0.3, 0.6)).astype(int)),
                     (grey, grey, grey), max(2, r // 2), cv2.LINE_AA)
        elif kind == 2:  # strings or cables: a few long parallel lines
            d = np.array([math.cos(math.radians(a)), math.sin(math.radians(a))])
            n = np.array([-d[1], d[0]])
            col = _colour(rng, rng.uniform(80, 240)).tolist()
            gap = card_px * rng.uniform(0.03, 0.1)
            for k in range(int(rng.integers(2, 7))):
                o = c + n * gap * k
                cv2.line(img, tuple((o - d * 2 * max(w, h)).astype(int)),
                         tuple((o + d * 2 * max(w, h)).astype(int)), col,
                         int(rng.integers(1, 3)), cv2.LINE_AA)
        elif kind == 3:  # stickers or printed motifs: a few pip-sized shapes
            col = _colour(rng).tolist()
            r = max(3, int(card_px * rng.uniform(0.04, 0.1)))
            for _k in range(int(rng.integers(1, 7))):
                p = c + rng.normal(0, 1.5 * r, 2)
                if rng.random() < 0.5:
                    cv2.circle(img, tuple(p.astype(int)), r, col, -1, cv2.LINE_AA)
                else:
                    box = cv2.boxPoints(((p[0], p[1]), (r * 1.4, r * 1.4), a + 45))
                    cv2.fillConvexPoly(img, box.astype(np.int32), col, cv2.LINE_AA)
        else:  # a note or a receipt: light paper about a card's size, maybe written on
            s = card_px * rng.uniform(0.4, 1.0) * np.array([1.0, rng.uniform(0.8, 2.5)])
            box = cv2.boxPoints(((c[0], c[1]), (s[0], s[1]), a)).astype(np.float32)
            patch = _paper(rng, 64, 64) if rng.random() < 0.5 else \
                (np.ones((64, 64, 3), np.float32) * _colour(rng, rng.uniform(180, 255)))
            patch = np.clip(patch, 0, 255).astype(np.uint8)
            m = cv2.getPerspectiveTransform(np.float32([[0, 0], [64, 0], [64, 64], [0, 64]]),
                                            box)
            warped = cv2.warpPerspective(patch, m, (w, h))
            mask = cv2.warpPerspective(np.full((64, 64), 255, np.uint8), m, (w, h))
            img[mask > 127] = warped[mask > 127]


def clutter_and_sheets(img: np.ndarray, rng: np.random.Generator, card_px: float) -> None:
    """:func:`clutter`, after one or two sheets' corners poking in at the picture's edge in
    a share of the scenes (:data:`CHECK_SHEET_EDGES`; session 29)."""
    if rng.random() < CHECK_SHEET_EDGES:
        for _ in range(int(rng.integers(1, 3))):
            sheet_corner(img, rng, card_px)
    clutter(img, rng, card_px)


# -- labelled crops -----------------------------------------------------------------------

def label(q: np.ndarray, cards) -> float | None:
    """1 a card half or more in view, outlined as it; 0 no card; None in between (a
    rough outline of a card: neither taught)."""
    from vision.card_net import quad_inside, quad_iou

    area = abs(cv2.contourArea(np.float32(q)))
    best, card = 0.0, None
    for c in cards:
        iou = quad_iou(np.float32(q), c.corners)
        if iou > best:
            best, card = iou, c
    if best >= 0.6:
        return 1.0 if card.visible >= 0.5 else 0.0 if card.visible < 0.4 else None
    if best < 0.3:
        inside = [c for c in cards if quad_inside(np.float32(q), c.corners) > 0.7]
        if any(area < 0.7 * abs(cv2.contourArea(c.corners)) for c in inside) or not inside:
            return 0.0
    return None


PART_AREA = (0.15, 0.5)  # of its card: a part outlined as a card (a pip block, an end)


def part_of(rng: np.random.Generator, card: np.ndarray) -> np.ndarray:
    """An outline of a card's shape lying inside ``card`` (TL TR BR BL), a share
    :data:`PART_AREA` of its area: a pip block, a back's inner panel, or the visible end
    of a card partly hidden, which the search outlines as a smaller card of its own,
    along the card or turned across it (half a card is nearly square)."""
    tl, tr, _, bl = np.float32(card)
    u, v = tr - tl, bl - tl  # the card's short and long sides
    w, h = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    share = rng.uniform(*PART_AREA)
    if rng.random() < 0.5:  # along the card: its short side along the card's
        k = math.sqrt(share)
        sw, sh = k * w, k * h
        su, sv = u / w, v / h
        half = (sw / w / 2, sh / h / 2)
    else:  # across it: its long side along the card's short side
        sh = min(w, math.sqrt(share) * h)  # (area sh * sw = share * w * h)
        sw = sh * w / h
        su, sv = v / h, u / w
        half = (sh / w / 2, sw / h / 2)
    # Most often at an end of the card, where a card partly hidden shows itself.
    a = rng.uniform(half[0], 1 - half[0])
    b = rng.choice([half[1], 1 - half[1]]) if rng.random() < 0.6 else \
        rng.uniform(half[1], 1 - half[1])
    c = tl + a * u + b * v
    t = math.radians(rng.normal(0, 3))
    rot = np.float32([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    su, sv = rot @ su, rot @ sv
    return np.float32([c - su * sw / 2 - sv * sh / 2, c + su * sw / 2 - sv * sh / 2,
                       c + su * sw / 2 + sv * sh / 2, c - su * sw / 2 + sv * sh / 2])


def proposals(img: np.ndarray) -> list[np.ndarray]:
    """What the search reports on a picture, and what it weighed: the network's sights
    down to 0.2 refined, the colour masks' outlines on the edges."""
    from vision.detect import (
        find_cards,
        find_cards_classical,
        learned_detectors,
        net_sight,
        refine_corners,
    )

    sight = net_sight(img)
    out = [q.corners for q in find_cards(img, sight)]
    _, refiner = learned_detectors()
    weak = [c.corners for c in sight.above(0.2)][:16]
    if weak:
        out += refiner.refine(img, weak)
    out += [refine_corners(img, q.corners) for q in find_cards_classical(
        img, shrunk=sight.shrunk)[:10]]
    return out


def _make(args) -> tuple[np.ndarray, np.ndarray]:
    from vision.card_net import quad_iou, upright_crops
    from vision.corner_train import disturb
    from vision.detect_scenes import scene_decks

    seed, n, deck_seeds, backs, dressed, overlapping, parts, phone = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    decks = scene_decks(deck_seeds, width=320, dressed=dressed)
    xs, ys = [], []
    while len(xs) < n:
        size = SIZES[rng.integers(len(SIZES))]
        # Backs, whose patterns look like cloth, drawn more often than the scenes do:
        # some faces of the deck replaced by its back.
        share = rng.uniform(0, 0.6) if backs and rng.random() < backs else 0.0
        shown = [{c: d["back"] if rng.random() < share else f for c, f in d.items()}
                 for d in decks]
        img, cards = detection_scene(rng, shown, size, CARD_PX, clutter=clutter_and_sheets,
                                     overlapping=bool(rng.random() < overlapping),
                                     phone_look=bool(phone and rng.random() < phone))
        quads = proposals(img)
        # A rough guess of each card too, so that the check does not learn the search's
        # own outlines alone.
        quads += [_calm(disturb(rng, c.corners), c.corners) for c in cards
                  if c.visible >= 0.5]
        taught = [label(q, cards) for q in quads]
        # Parts of cards outlined as cards, rarely among the search's own reports (so
        # rarely taught), yet most of its reports of no card on the real decks' art.
        if parts and rng.random() < parts:
            for c in cards:
                if c.visible >= 0.3:
                    q = part_of(rng, c.corners)
                    if all(quad_iou(q, d.corners) < 0.3 for d in cards if d is not c):
                        quads.append(q)
                        taught.append(0.0)
        for q, y in zip(quads, taught, strict=True):
            if y is None or len(xs) >= n or min(np.ptp(np.float32(q), axis=0)) < 6:
                continue
            crops, _ = upright_crops(img, [np.float32(q)], (CROP_W, CROP_H), MARGIN)
            xs.append(crops[0])
            ys.append(y)
    return np.stack(xs), np.float32(ys)


def _calm(rough: np.ndarray, true: np.ndarray) -> np.ndarray:
    """Half of the detector's disturbance: an outline the search would give."""
    return np.float32(true + 0.5 * (rough - true))


def make_dataset(n: int, seed: int, deck0: int, workers: int = 2, chunk: int = 1500,
                 backs: float = BACKS, dressed: float = 0.0, overlapping: float = 0.0,
                 parts: float = 0.0, phone: float = 0.0):
    return make_in_parallel(_make, n, seed, deck0, workers, chunk, 8,
                            (backs, dressed, overlapping, parts, phone))


CHANNELS = (16, 32, 48, 64)  # per stage, at 48x32, 24x16, 12x8 and 6x4


def build_model(channels: tuple[int, ...] = CHANNELS):
    import tensorflow as tf
    from tensorflow import keras
    from tensorflow.keras import layers

    from vision.corner_train import crop_trunk

    inp, x = crop_trunk(channels, (CROP_W, CROP_H))
    x = layers.Dropout(0.3)(x)
    x = layers.Dense(64, activation="relu")(x)
    out = layers.Dense(1, activation="sigmoid", name="card")(x)
    return keras.Model(inp, out), tf


def main(argv: list[str] | None = None) -> int:
    from vision.corner_train import export

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).with_name("models")
                                         / "card_check.tflite"))
    ap.add_argument("--crops", type=int, default=60000)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seed", type=int, default=6161)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, help="keep the crops in this .npz (made once)")
    ap.add_argument("--more", type=Path, help="another run's cache, its crops added")
    ap.add_argument("--backs", type=float, default=BACKS,
                    help="the share of scenes with more cards face down")
    ap.add_argument("--dressed", type=float, default=0.0,
                    help="the share of decks given printed decks' looks (deck_looks.dress)")
    ap.add_argument("--overlapping", type=float, default=0.0,
                    help="the share of scenes with more cards partly under others "
                         "(detection_scene's overlapping)")
    ap.add_argument("--parts", type=float, default=0.0,
                    help="the share of scenes whose cards also give a part of themselves "
                         "outlined as a smaller card, taught as no card (part_of)")
    ap.add_argument("--phone-look", type=float, default=0.0,
                    help="the share of scenes drawn as phone photos look (detection_scene's "
                         "phone_look: towels, prints, knits, a phone camera's processing)")
    ap.add_argument("--vary", action="store_true",
                    help="mirror the crops and vary their exposure, contrast and colour")
    args = ap.parse_args(argv)

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    t0 = time.time()
    if args.cache and args.cache.is_file():
        z = np.load(args.cache)
        x, y, xv, yv = z["x"], z["y"], z["xv"], z["yv"]
    else:
        x, y = make_dataset(args.crops, args.seed, 1, args.threads, backs=args.backs,
                            dressed=args.dressed, overlapping=args.overlapping,
                            parts=args.parts, phone=args.phone_look)
        if args.more:  # crops made earlier (another seed), added to these
            z = np.load(args.more)
            x, y = np.concatenate([z["x"], x]), np.concatenate([z["y"], y])
        xv, yv = make_dataset(4000, args.seed + 99_999, VAL_DECK0, args.threads,
                              backs=args.backs, dressed=args.dressed,
                              overlapping=args.overlapping, parts=args.parts,
                              phone=args.phone_look)
        if args.cache:
            np.savez(args.cache, x=x, y=y, xv=xv, yv=yv)
    print(f"{len(x)} training crops ({y.mean():.0%} cards), {len(xv)} held out, "
          f"made in {time.time() - t0:.0f}s", flush=True)
    if args.epochs == 0:  # the crops only (--cache), to be added to another run's
        return 0
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(args.seed)
    model, _ = build_model()
    steps = args.epochs * -(-len(x) // args.batch)
    model.compile(tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.CosineDecay(
        2e-3, steps, alpha=0.02)), loss="binary_crossentropy", metrics=["accuracy"])
    # A report turned 180 degrees is the same report: each crop is turned half the time
    # (the crops kept as bytes: as floats, and twice, they would not fit in memory).
    # With --vary, each is also mirrored half the time (a card mirrored is still a card,
    # a sheet's corner still none) and given another exposure, contrast and colour cast:
    # the real decks' cards, printed and photographed, scored lower than the generated.
    def turned(img, lab):
        img = tf.cond(tf.random.uniform(()) < 0.5, lambda: img[::-1, ::-1], lambda: img)
        img = tf.cast(img, tf.float32)
        if args.vary:
            img = tf.cond(tf.random.uniform(()) < 0.5, lambda: img[:, ::-1], lambda: img)
            mean = tf.reduce_mean(img)
            img = (img - mean) * tf.random.uniform((), 0.7, 1.3) + mean \
                * tf.random.uniform((), 0.75, 1.25)
            img = tf.clip_by_value(img * tf.random.uniform((1, 1, 3), 0.9, 1.1), 0, 255)
        return img, lab

    data = (tf.data.Dataset.from_tensor_slices((x, y)).shuffle(len(x), seed=args.seed)
            .map(turned, num_parallel_calls=2).batch(args.batch).prefetch(2))
    model.fit(data, epochs=args.epochs, validation_data=(xv.astype(np.float32), yv),
              verbose=2)
    p = model.predict(xv.astype(np.float32), batch_size=256, verbose=0).ravel()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    export(model, tf, out)
    held = {f"cards_kept_at_{t}": round(float((p[yv == 1] >= t).mean()), 4)
            for t in (0.1, 0.2, 0.3, 0.5)}
    held.update({f"no_cards_passed_at_{t}": round(float((p[yv == 0] >= t).mean()), 4)
                 for t in (0.1, 0.2, 0.3, 0.5)})
    meta = {"crop": [CROP_W, CROP_H], "margin": MARGIN, "crops": len(x),
            "epochs": args.epochs, "seed": args.seed, "channels": list(CHANNELS),
            "vary": args.vary, "parts": args.parts, "phone_look": args.phone_look,
            "held_out": held}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(held), f"wrote {out} in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
