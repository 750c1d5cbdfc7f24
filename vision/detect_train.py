"""Train the learned card detector on generated scenes and export it to TFLite.

    pip install -e '.[train]'
    python -m vision.detect_train --out vision/models/card_detect.tflite

A small centre-point network (CenterNet-like, stride 4) reads a picture scaled
to 384 pixels on its long side and predicts, for every card of which at least
half is visible: a heat peak at its centre, the sub-cell offset, the card's
long and short half-axes, and the fraction of it that is visible. An axis is
encoded by its doubled angle, so a card and the same card turned 180 degrees
give one target. Scenes come from ``vision.detect_scenes`` (procedural decks
and procedural backgrounds only); no real deck and no photo is trained on.
Fixed seeds; the held-out scenes use seeds the training never draws.
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

from vision.detect_scenes import TruthCard, detection_scene, make_in_parallel, scene_decks

# Overlapping scenes show a sheet's corner poking in at the picture's edge this often: a
# network keen on cards partly in view took those for cards (session 28's run A).
SHEET_EDGES = 0.5

STRIDE = 4
AXIS_SCALE = 16.0  # half-axes are predicted in units of 16 input pixels
MIN_VISIBLE = 0.5  # a card is to be found when at least this much of it shows
IGNORE_VISIBLE = 0.25  # between this and MIN_VISIBLE: neither found nor missed
TRAIN_SIZE = 256
VAL_DECK0 = 2_000_000  # deck styles from here on are never trained on
CALIBRATION_SCENES = 200  # scenes that set the int8 ranges
FALSE_BUDGET = 0.035  # false reports a held-out scene at the report threshold (--evaluate)
# The long side pictures are scaled to at run time, wide and upright (card_detect.json).
RUN_SIDE, RUN_SIDE_UPRIGHT = 480, 640
# The network's padded input (h, w) for 16:9 and 4:3 pictures, wide and upright, at
# those sides and at half of them (the coarse look, detect.COARSE): each also exported
# alone, in int8.
# Close-ups (--close-ups): cards 0.5-0.95 of the picture's side, as a phone held over a
# few cards draws them; the usual scenes' cards are 30-150 px (at most 0.59 of it).
CLOSE_UP_PX = (0.5 * TRAIN_SIZE, 0.95 * TRAIN_SIZE)
FIXED_SHAPES = ((288, 480), (384, 480), (640, 384), (640, 480),
                (160, 256), (192, 256), (320, 192), (320, 256))


def axes(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre, long half-axis (top edge's middle minus bottom's, halved) and short
    half-axis of a card given in its own corner order TL TR BR BL."""
    p = corners.astype(np.float64)
    c = p.mean(0)
    u = ((p[0] + p[1]) - (p[3] + p[2])) / 4
    w = ((p[1] + p[2]) - (p[0] + p[3])) / 4
    return c, u, w


def doubled(v: np.ndarray) -> tuple[float, float]:
    n = float(np.hypot(*v))
    a = 2 * math.atan2(v[1], v[0])
    return n * math.cos(a) / AXIS_SCALE, n * math.sin(a) / AXIS_SCALE


def targets(cards: list[TruthCard], h: int, w: int) -> np.ndarray:
    """(h/4, w/4, 10) maps: heat, offset x y, long axis (2), short axis (2), visible,
    heat weight, regression weight."""
    gh, gw = h // STRIDE, w // STRIDE
    t = np.zeros((gh, gw, 10), np.float32)
    t[..., 8] = 1.0
    best = np.zeros((gh, gw), np.float32)  # the gaussian of the card that owns a cell
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32) + 0.5
    ignore = np.zeros((gh, gw), np.float32)
    for card in cards:
        c, u, v = axes(card.corners)
        cx, cy = c / STRIDE
        if not (0 <= cx < gw and 0 <= cy < gh) or card.visible < IGNORE_VISIBLE:
            continue
        sigma = max(0.7, 0.3 * min(np.hypot(*u), np.hypot(*v)) / STRIDE)
        g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma))
        if card.visible < MIN_VISIBLE:
            ignore = np.maximum(ignore, g)
            continue
        t[..., 0] = np.maximum(t[..., 0], g)
        ix, iy = int(cx), int(cy)
        t[iy, ix, 0] = 1.0
        ua, ub = doubled(u)
        va, vb = doubled(v)
        for y in range(max(0, iy - 1), min(gh, iy + 2)):
            for x in range(max(0, ix - 1), min(gw, ix + 2)):
                if g[y, x] <= best[y, x]:
                    continue
                best[y, x] = g[y, x]
                t[y, x, 1:8] = (cx - (x + 0.5), cy - (y + 0.5), ua, ub, va, vb, card.visible)
                t[y, x, 9] = 1.0 if (x, y) == (ix, iy) else 0.5
    t[..., 8] = np.where((ignore > 0.1) & (ignore > t[..., 0]), 0.0, 1.0)
    return t


def _make(args) -> tuple[np.ndarray, np.ndarray]:
    seed, n, deck_seeds, *extra = args
    dressed, overlapping, phone, close = (list(extra) + [0.0, 0.0, 0.0, 0.0])[:4]
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    # Its own stream: the scenes of a run without overlapping ones are drawn as ever.
    which = np.random.default_rng(seed + 7_000_000).random(n) < overlapping
    phoned = np.random.default_rng(seed + 8_000_000).random(n) < phone
    near = np.random.default_rng(seed + 9_000_000).random(n) < close
    decks = scene_decks(deck_seeds, dressed=dressed)
    imgs = np.zeros((n, TRAIN_SIZE, TRAIN_SIZE, 3), np.uint8)
    tg = np.zeros((n, TRAIN_SIZE // STRIDE, TRAIN_SIZE // STRIDE, 10), np.float16)
    for i in range(n):
        img, cards = detection_scene(rng, decks, (TRAIN_SIZE, TRAIN_SIZE),
                                     card_px=CLOSE_UP_PX if near[i] else (30, 150),
                                     overlapping=bool(which[i]), sheet_edges=SHEET_EDGES,
                                     phone_look=bool(phoned[i]))
        imgs[i] = img
        tg[i] = targets(cards, TRAIN_SIZE, TRAIN_SIZE)
    return imgs, tg


def make_dataset(n: int, seed: int, deck0: int, workers: int = 2, chunk: int = 500,
                 dressed: float = 0.0, overlapping: float = 0.0, phone: float = 0.0,
                 close: float = 0.0):
    return make_in_parallel(_make, n, seed, deck0, workers, chunk, 12,
                            (dressed, overlapping, phone, close))


def held_out(model_path: Path, n: int = 300, seed: int = 77,
             thresholds=(0.3, 0.4, 0.5, 0.6, 0.7)) -> dict:
    """Recall (IoU >= 0.7 with a card at least half visible) and false reports per
    scene on scenes of deck styles never trained on, at the network's own scale
    (384x224), per threshold; corners refined when the refiner's model is there."""
    from vision.card_net import CORNERS_PATH, CardNet, CornerRefiner, decode, quad_iou

    net = CardNet(model_path)
    refiner = CornerRefiner(CORNERS_PATH) if CORNERS_PATH.is_file() else None
    rng = np.random.default_rng(seed)
    decks = scene_decks(VAL_DECK0 + rng.integers(0, 1_000_000, 8))
    stats = {t: [0, 0, 0] for t in thresholds}  # found, cards, false
    ious = []
    for _ in range(n):
        img, cards = detection_scene(rng, decks, (384, 224))
        maps, scale = net.maps(img)
        want = [c for c in cards if c.visible >= MIN_VISIBLE
                and 0 <= c.corners.mean(0)[0] < 384 and 0 <= c.corners.mean(0)[1] < 224]
        for t in thresholds:
            found = decode(maps, scale, t)
            if refiner is not None:
                for f, q in zip(found, refiner.refine(img, [f.corners for f in found]),
                                strict=True):
                    f.corners = q
            used = set()
            for c in want:
                best = max(((quad_iou(f.corners, c.corners), i) for i, f in enumerate(found)
                            if i not in used), default=(0.0, -1))
                if best[0] >= 0.7:
                    used.add(best[1])
                    stats[t][0] += 1
                    if t == thresholds[0]:
                        ious.append(best[0])
                stats[t][1] += 1
            stats[t][2] += sum(1 for i, f in enumerate(found) if i not in used and not any(
                quad_iou(f.corners, c.corners) > 0.3 for c in cards))
    return {"scenes": n, "median_iou": round(float(np.median(ious)), 3) if ious else None,
            "by_threshold": {str(t): {"recall": round(f / max(1, k), 4),
                                      "false_per_scene": round(x / n, 3)}
                             for t, (f, k, x) in stats.items()}}


def build_model(head: str = "full"):
    """The detector's Keras model (and TensorFlow). ``head``: the last convolution over
    the stride-4 features, ``"full"`` (one 3x3 convolution: the committed detector) or
    ``"separable"`` (depthwise 3x3, then 1x1: a fifth less of the network's time;
    learned from the full head by ``vision.detect_distill``)."""
    if head not in ("separable", "full"):
        raise ValueError(f"head must be 'separable' or 'full', not {head!r}")
    import tensorflow as tf
    from tensorflow import keras
    from tensorflow.keras import layers

    def sep(x, ch, stride=1, dil=1):
        x = layers.DepthwiseConv2D(3, strides=stride, padding="same", dilation_rate=dil,
                                   use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU(6.0)(x)
        x = layers.Conv2D(ch, 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        return layers.ReLU(6.0)(x)

    class Up2(layers.Layer):  # keras' UpSampling2D cannot take a picture of any size
        def call(self, x):
            return tf.image.resize(x, tf.shape(x)[1:3] * 2, method="bilinear")

    def proj(x, ch):
        x = layers.Conv2D(ch, 1, use_bias=False)(x)
        return layers.BatchNormalization()(x)

    inp = keras.Input((None, None, 3), name="image")
    x = layers.Rescaling(1 / 127.5, -1.0)(inp)
    x = layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(x)
    x = layers.ReLU(6.0)(layers.BatchNormalization()(x))
    s4 = sep(sep(x, 32, 2), 32)
    s8 = sep(sep(s4, 48, 2), 48)
    s16 = sep(sep(sep(s8, 80, 2), 80), 80, dil=2)
    s32 = sep(sep(sep(s16, 128, 2), 128), 128, dil=2)
    y = proj(s32, 80)
    y = Up2()(y)
    y = sep(layers.ReLU()(layers.Add()([y, proj(s16, 80)])), 80)
    y = proj(y, 48)
    y = Up2()(y)
    y = sep(layers.ReLU()(layers.Add()([y, proj(s8, 48)])), 48)
    y = proj(y, 32)
    y = Up2()(y)
    y = sep(layers.ReLU()(layers.Add()([y, proj(s4, 32)])), 32)
    y = layers.ReLU()(layers.Conv2D(32, 3, padding="same")(y)) if head == "full" \
        else sep(y, 32)
    heat = layers.Conv2D(1, 1, bias_initializer=keras.initializers.Constant(-2.2))(y)
    reg = layers.Conv2D(7, 1)(y)
    out = layers.Concatenate(name="maps")([heat, reg])
    return keras.Model(inp, out), tf


def loss_fn(tf, pred, t):
    heat = tf.sigmoid(pred[..., 0])
    heat = tf.clip_by_value(heat, 1e-4, 1 - 1e-4)
    gt, hw, rw = t[..., 0], t[..., 8], t[..., 9]
    pos = tf.cast(gt >= 0.999, tf.float32)
    neg = (1 - pos) * hw
    pos_l = -tf.math.log(heat) * (1 - heat) ** 2 * pos
    neg_l = -tf.math.log(1 - heat) * heat ** 2 * (1 - gt) ** 4 * neg
    n = tf.maximum(1.0, tf.reduce_sum(pos))
    focal = (tf.reduce_sum(pos_l) + tf.reduce_sum(neg_l)) / n
    diff = tf.abs(pred[..., 1:8] - t[..., 1:8])
    vis = tf.sigmoid(pred[..., 7])
    diff = tf.concat([diff[..., :6], tf.abs(vis - t[..., 7])[..., None] * 2], -1)
    reg = tf.reduce_sum(diff * rw[..., None]) / tf.maximum(1.0, tf.reduce_sum(rw))
    return focal + reg, focal, reg


def export(model, tf, out: Path, int8_seed: int | None = None,
           shape: tuple[int, int] | None = None) -> None:
    """TFLite with the heat and visibility already through their sigmoid, for pictures
    of any size, or of one padded ``shape`` (h, w) only: then the upsampling's sizes are
    constants and the whole graph runs in XNNPACK, a fifth faster.

    With ``int8_seed``: weights and activations in int8 (float in and out), their
    ranges calibrated on generated scenes of training styles drawn from that seed."""
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2,
    )

    dims = [1, None, None, 3] if shape is None else [1, *shape, 3]

    @tf.function(input_signature=[tf.TensorSpec(dims, tf.float32)])
    def serve(image):
        m = model(image, training=False)
        return tf.concat([tf.sigmoid(m[..., :1]), m[..., 1:7], tf.sigmoid(m[..., 7:8])], -1)

    # Weights frozen into constants: left as variables, LiteRT reads them uninitialised.
    frozen = convert_variables_to_constants_v2(serve.get_concrete_function())
    conv = tf.lite.TFLiteConverter.from_concrete_functions([frozen])
    if int8_seed is not None:
        rng = np.random.default_rng(int8_seed)
        decks = scene_decks(1 + rng.integers(0, VAL_DECK0 - 1, 8))

        def calibration():
            for i in range(CALIBRATION_SCENES):
                h, w = shape or FIXED_SHAPES[i % 2]
                # Cards as long as at run time (90-420 px in a 1280x720 frame).
                k = max(h, w) / 480
                img, _ = detection_scene(rng, decks, (w, h), (35 * k, 160 * k))
                yield [img[None].astype(np.float32)]

        conv.optimizations = [tf.lite.Optimize.DEFAULT]
        conv.representative_dataset = calibration
    out.write_bytes(conv.convert())


def export_fixed(model, tf, out: Path, seed: int) -> None:
    """The int8 models for :data:`FIXED_SHAPES`, beside ``out`` as ``<name>-HxW.tflite``
    (``card_net.CardNet`` runs them for pictures of those shapes)."""
    for h, w in FIXED_SHAPES:
        export(model, tf, out.with_name(f"{out.stem}-{h}x{w}.tflite"), seed + h + w, (h, w))


def run_meta() -> dict:
    """What ``card_net`` needs to read a model's maps (its JSON's first keys)."""
    return {"stride": STRIDE, "axis_scale": AXIS_SCALE, "long_side": 384, "run_side": RUN_SIDE,
            "run_side_upright": RUN_SIDE_UPRIGHT, "min_visible": MIN_VISIBLE}


def write_model(model, tf, out: Path, record: dict) -> None:
    """The float model at ``out``, its weights and its JSON (:func:`run_meta` and
    ``record``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    export(model, tf, out)
    model.save_weights(str(out.with_suffix(".weights.h5")))
    out.with_suffix(".json").write_text(json.dumps({**run_meta(), **record}, indent=2) + "\n")


def finish_model(model, tf, out: Path, seed: int) -> float:
    """The int8 models beside ``out`` and its report threshold; returns the threshold.
    A model without a threshold in its JSON runs at card_net's default (0.4), keener
    than any chosen so far: session 29's run C was measured so, and doubled the
    reports of no card. The threshold is chosen as soon as the model is written."""
    export_fixed(model, tf, out, seed)
    return choose_threshold(out)["threshold"]


def average(model, paths: list[Path]) -> None:
    """Give ``model`` the mean of the weights at ``paths`` (a path given twice counts
    twice). Runs resumed from one start lie in one basin, where the mean of two keeps
    much of what each learned (weight averaging, as in "model soups"); the mean of the
    normalisations' statistics stands for the statistics of the mean, near enough to be
    judged by the benchmarks like any other run."""
    total = None
    for path in paths:
        model.load_weights(str(path))
        w = model.get_weights()
        total = w if total is None else [a + b for a, b in zip(total, w, strict=True)]
    model.set_weights([a / len(paths) for a in total])


def fit_epoch(tf, step, x: np.ndarray, y: np.ndarray, batch: int,
              rng: np.random.Generator, k: int, steps: int, t0: float) -> int:
    """One epoch of ``step`` (a training step: loss, heat's, geometry's) over ``x`` and
    ``y`` in shuffled batches, the running loss printed every 200 steps; returns the
    steps done so far (``k`` before)."""
    order = rng.permutation(len(x))
    logs = []
    for b in range(len(x) // batch):
        idx = np.sort(order[b * batch:(b + 1) * batch])
        logs.append([float(v) for v in step(tf.constant(x[idx].astype(np.float32)),
                                            tf.constant(y[idx].astype(np.float32)))])
        k += 1
        if k % 200 == 0 or k == 20:
            m = np.mean(logs[-200:], 0)
            print(f"step {k}/{steps} loss {m[0]:.4f} (heat {m[1]:.4f} geometry {m[2]:.4f}) "
                  f"{time.time() - t0:.0f}s", flush=True)
    return k


def mean_loss(tf, loss, x: np.ndarray, y: np.ndarray, batch: int = 50) -> np.ndarray:
    """``loss`` (of a batch of ``x`` and ``y``: total, heat's, geometry's) averaged over
    batches."""
    return np.mean([[float(v) for v in loss(tf.constant(x[i:i + batch].astype(np.float32)),
                                            tf.constant(y[i:i + batch].astype(np.float32)))]
                    for i in range(0, len(x), batch)], 0)


def choose_threshold(out: Path) -> dict:
    """The report threshold of the model at ``out``, written into its JSON with the
    held-out figures (:func:`held_out`): the lowest whose false reports on unseen styles
    stay under :data:`FALSE_BUDGET` a scene (chosen on generated scenes only). One in
    twenty put session 14's model at 0.4, where generated scenes of dev seeds 3030 and
    4040 had twice the false reports of 0.5 and a Toscane card named wrong."""
    figures = held_out(out)
    ok = [float(t) for t, v in figures["by_threshold"].items()
          if v["false_per_scene"] <= FALSE_BUDGET]
    figures["threshold"] = min(ok) if ok else 0.5
    meta_path = out.with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    meta.update(threshold=figures["threshold"], held_out=figures)
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return figures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).with_name("models") / "card_detect.tflite"))
    ap.add_argument("--scenes", type=int, default=30000)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seed", type=int, default=4321)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, help="keep the generated scenes here (re-runs)")
    ap.add_argument("--dressed", type=float, default=0.5,
                    help="the share of deck styles given printed decks' looks (deck_looks)")
    ap.add_argument("--overlapping", type=float, default=0.0,
                    help="the share of scenes that lay more cards partly under others "
                         "(detect_scenes.OVERLAPPING_P)")
    ap.add_argument("--phone-look", type=float, default=0.0,
                    help="the share of scenes drawn as phone photos look (towels, prints, "
                         "rounded corners, a phone camera's processing: detect_scenes)")
    ap.add_argument("--close-ups", type=float, default=0.0,
                    help="the share of scenes drawn as close-ups (cards 0.5-0.95 of the "
                         "picture's side, CLOSE_UP_PX)")
    ap.add_argument("--resume", type=Path, help="start from these weights (.weights.h5)")
    ap.add_argument("--lr", type=float, default=2e-3, help="the learning rate to start at")
    ap.add_argument("--average", type=Path, nargs="+", metavar="WEIGHTS",
                    help="only write the model of these weights' mean (.weights.h5, of runs "
                         "from one start; a file given twice counts twice) at --out, with "
                         "its int8 models and report threshold")
    ap.add_argument("--evaluate", action="store_true",
                    help="only print the held-out figures of the model at --out")
    ap.add_argument("--export-int8", action="store_true",
                    help="only write the int8 models of the weights beside --out, one per "
                         "padded input shape of FIXED_SHAPES (done after training too)")
    args = ap.parse_args(argv)
    if args.export_int8:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        model, tf = build_model()
        model.load_weights(str(Path(args.out).with_suffix(".weights.h5")))
        export_fixed(model, tf, Path(args.out), args.seed)
        return 0
    if args.evaluate:
        print(json.dumps(choose_threshold(Path(args.out)), indent=2))
        return 0
    if args.average:
        return write_average(args)

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    t0 = time.time()
    tag = f"-{args.overlapping}" if args.overlapping else ""
    tag += f"-phone{args.phone_look}" if args.phone_look else ""
    tag += f"-close{args.close_ups}" if args.close_ups else ""
    cached = (args.cache / f"scenes-{args.seed}-{args.scenes}-{args.dressed}{tag}.npz"
              if args.cache else None)
    if cached is not None and cached.is_file():
        with np.load(cached) as z:
            x, y, xv, yv = z["x"], z["y"], z["xv"], z["yv"]
    else:
        x, y = make_dataset(args.scenes, args.seed, 1, args.threads, dressed=args.dressed,
                            overlapping=args.overlapping, phone=args.phone_look,
                            close=args.close_ups)
        xv, yv = make_dataset(1000, args.seed + 99_999, VAL_DECK0, args.threads,
                              dressed=args.dressed, overlapping=args.overlapping,
                              phone=args.phone_look, close=args.close_ups)
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            np.savez(cached, x=x, y=y, xv=xv, yv=yv)
    print(f"{len(x)} training scenes and {len(xv)} held-out ones made in "
          f"{time.time() - t0:.0f}s", flush=True)
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(args.seed)
    model, _ = build_model()
    if args.resume:
        model.load_weights(str(args.resume))
    steps = args.epochs * (len(x) // args.batch)
    opt = tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.CosineDecay(
        args.lr, steps, alpha=0.03 * 2e-3 / args.lr))

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            pred = model(xb, training=True)
            total, focal, reg = loss_fn(tf, pred, yb)
        grads = tape.gradient(total, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return total, focal, reg

    @tf.function
    def val_step(xb, yb):
        return loss_fn(tf, model(xb, training=False), yb)

    rng = np.random.default_rng(args.seed)
    k = 0
    for epoch in range(args.epochs):
        k = fit_epoch(tf, step, x, y, args.batch, rng, k, steps, t0)
        vl = mean_loss(tf, val_step, xv, yv)
        print(f"epoch {epoch + 1}: held-out loss {vl[0]:.3f} (heat {vl[1]:.3f} "
              f"geometry {vl[2]:.3f})", flush=True)
        out = Path(args.out)
        # after every epoch: a session may end at any time
        write_model(model, tf, out, {
            "scenes": len(x), "epochs_done": epoch + 1,
            "seed": args.seed, "lr": args.lr, "dressed": args.dressed,
            "overlapping": args.overlapping, "phone_look": args.phone_look,
            "close_ups": args.close_ups,
            "resumed_from": str(args.resume) if args.resume else None,
            "held_out_loss": round(float(vl[0]), 4)})
    threshold = finish_model(model, tf, out, args.seed)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB, report threshold {threshold}) "
          f"in {time.time() - t0:.0f}s")
    return 0


def write_average(args) -> int:
    """``--average``: the mean of the given weights written as a trained model is."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    missing = [str(p) for p in args.average if not p.is_file()]
    if missing:
        print(f"detect_train: no weights file at {', '.join(missing)}")
        return 2
    model, tf = build_model()
    try:
        average(model, args.average)
    except (OSError, ValueError) as e:  # not weights of this network
        print(f"detect_train: cannot average {' '.join(map(str, args.average))}: {e}")
        return 2
    out = Path(args.out)
    # Read the sources' records first: --out may be where one of them lies.
    sources = [_record(p.with_suffix("").with_suffix(".json")) for p in args.average]
    write_model(model, tf, out, {"seed": args.seed, "averaged": [
        {"weights": str(p), "record": rec}
        for p, rec in zip(args.average, sources, strict=True)]})
    threshold = finish_model(model, tf, out, args.seed)
    print(f"wrote {out}, the mean of {len(args.average)} weights (report threshold "
          f"{threshold})")
    return 0


def _record(path: Path) -> dict | None:
    """A model's JSON record, or None where there is none to read."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


if __name__ == "__main__":
    raise SystemExit(main())
