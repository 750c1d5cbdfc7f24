"""Train the corner refiner of the learned detector and export it to TFLite.

    pip install -e '.[train]'
    python -m vision.corner_train --out vision/models/card_corners.tflite

The detector (``vision.detect_train``) finds cards but places their corners only
roughly (a few degrees, a few per cent). The refiner looks at one card at a
time: the picture warped so that the rough card stands upright in a 64x96 crop
with a margin around it, and answers where the card's four corners really are
in that crop, hidden ones included (a card half under another is still a card
of the deck's shape). Training crops come from ``vision.detect_scenes`` with the
true corners disturbed as the detector disturbs them; procedural decks only.
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

from vision import card_net
from vision.detect_scenes import detection_scene, make_in_parallel, scene_decks

CROP_W, CROP_H = 64, 96
MARGIN = 0.2  # of the card's width and height, on every side of the rough card
VAL_DECK0 = 2_000_000


def crop_frame(corners: np.ndarray) -> np.ndarray:
    """The picture -> crop homography for rough ``corners`` (see ``card_net``)."""
    return card_net.crop_frame(corners, (CROP_W, CROP_H), MARGIN)


def crop(image: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The upright crop around rough ``corners`` (area-averaged from twice its size:
    a large card would alias) and its homography."""
    crops, frames = card_net.upright_crops(image, [np.float32(corners)], (CROP_W, CROP_H),
                                           MARGIN)
    return crops[0], frames[0]


def disturb(rng: np.random.Generator, corners: np.ndarray) -> np.ndarray:
    """Corners moved as the detector misplaces them: centre, turn, size, skew."""
    c = corners.mean(0)
    u = ((corners[0] + corners[1]) - (corners[3] + corners[2])) / 4
    w = ((corners[1] + corners[2]) - (corners[0] + corners[3])) / 4
    size = np.hypot(*u) * 2
    a = math.radians(rng.normal(0, 6))
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    u = rot @ u * rng.normal(1, 0.08)
    w = rot @ w * rng.normal(1, 0.1)
    c = c + rng.normal(0, 0.05, 2) * size
    q = np.stack([c + u - w, c + u + w, c - u + w, c - u - w])
    return (q + rng.normal(0, 0.01, (4, 2)) * size).astype(np.float32)


def _make(args) -> tuple[np.ndarray, np.ndarray]:
    seed, n, deck_seeds = args
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    decks = scene_decks(deck_seeds, width=128)
    xs, ys = [], []
    while len(xs) < n:
        img, cards = detection_scene(rng, decks, (480, 360), (90, 320))
        for card in cards:
            for _ in range(3):  # three rough guesses of each card
                if card.visible < 0.5 or len(xs) >= n:
                    continue
                patch, m = crop(img, disturb(rng, card.corners))
                truth = cv2.perspectiveTransform(card.corners.reshape(-1, 1, 2), m)
                xs.append(patch)
                ys.append((truth.reshape(4, 2) / np.float32([CROP_W, CROP_H])).ravel())
    return np.stack(xs), np.stack(ys).astype(np.float32)


def make_dataset(n: int, seed: int, deck0: int, workers: int = 2, chunk: int = 2000):
    return make_in_parallel(_make, n, seed, deck0, workers, chunk, 10)


CHANNELS = (16, 32, 64, 96)  # per stage, at 48x32, 24x16, 12x8 and 6x4


def crop_trunk(channels: tuple[int, ...], size: tuple[int, int] = (CROP_W, CROP_H)):
    """(input, features): a crop's four stages of two 3x3 convolutions, the first of each
    halving, down to 6x4 and flattened, so that where each edge runs stays in place (the
    corner refiner's and the card check's)."""
    from tensorflow import keras
    from tensorflow.keras import layers

    def conv(x, ch, stride=1):
        x = layers.Conv2D(ch, 3, strides=stride, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        return layers.ReLU()(x)

    inp = keras.Input((size[1], size[0], 3), name="crop")
    x = layers.Rescaling(1 / 127.5, -1.0)(inp)
    for ch in channels:
        x = conv(conv(x, ch, 2), ch)
    return inp, layers.Flatten()(x)


def build_model(channels: tuple[int, ...] = CHANNELS):
    import tensorflow as tf
    from tensorflow import keras
    from tensorflow.keras import layers

    inp, x = crop_trunk(channels)
    x = layers.Dense(128, activation="relu")(x)
    out = layers.Dense(8, name="corners")(x)
    return keras.Model(inp, out), tf


def export(model, tf, out: Path) -> None:
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    @tf.function(input_signature=[tf.TensorSpec([None, CROP_H, CROP_W, 3], tf.float32)])
    def serve(x):
        return model(x, training=False)

    frozen = convert_variables_to_constants_v2(serve.get_concrete_function())
    out.write_bytes(tf.lite.TFLiteConverter.from_concrete_functions([frozen]).convert())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).with_name("models")
                                         / "card_corners.tflite"))
    ap.add_argument("--crops", type=int, default=80000)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seed", type=int, default=5151)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--channels", default=",".join(map(str, CHANNELS)),
                    help="the convolutions' channels at each of the four stages")
    args = ap.parse_args(argv)
    channels = tuple(int(c) for c in args.channels.split(","))

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    t0 = time.time()
    x, y = make_dataset(args.crops, args.seed, 1, args.threads)
    xv, yv = make_dataset(3000, args.seed + 99_999, VAL_DECK0, args.threads)
    print(f"{len(x)} training crops, {len(xv)} held out, made in {time.time() - t0:.0f}s",
          flush=True)
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(args.seed)
    model, _ = build_model(channels)
    steps = args.epochs * (len(x) // args.batch)
    model.compile(tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.CosineDecay(
        2e-3, steps, alpha=0.02)), loss="mae")
    before = float(np.median(np.abs(yv - _rough_target()).max(axis=1)))
    model.fit(x.astype(np.float32), y, batch_size=args.batch, epochs=args.epochs,
              validation_data=(xv.astype(np.float32), yv), verbose=2, shuffle=True)
    pred = model.predict(xv.astype(np.float32), batch_size=256, verbose=0)
    err = np.abs(pred - yv).reshape(-1, 4, 2) * np.float32([CROP_W, CROP_H])
    worst = err.max(axis=(1, 2))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    export(model, tf, out)
    meta = {"crop": [CROP_W, CROP_H], "margin": MARGIN, "crops": len(x), "epochs": args.epochs,
            "seed": args.seed, "channels": list(channels),
            "held_out": {"rough_worst_corner_median_frac": round(before, 4),
                         "worst_corner_px_median": round(float(np.median(worst)), 3),
                         "worst_corner_px_p95": round(float(np.percentile(worst, 95)), 3)}}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta["held_out"]), f"wrote {out} in {time.time() - t0:.0f}s")
    return 0


def _rough_target() -> np.ndarray:
    """Where the rough corners sit in the crop, normalised (what the refiner starts from)."""
    mx, my = MARGIN / (1 + 2 * MARGIN), MARGIN / (1 + 2 * MARGIN)
    return np.float32([mx, my, 1 - mx, my, 1 - mx, 1 - my, mx, 1 - my])


if __name__ == "__main__":
    raise SystemExit(main())
