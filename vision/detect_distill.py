"""Teach the detector a cheaper head by distillation from the full-head detector.

    pip install -e '.[train]'
    python -m vision.detect_distill --teacher vision/models/card_detect.weights.h5 \
        --out /tmp/student/card_detect.tflite

The detector's last convolution over its stride-4 features, one 3x3 convolution of
32 channels to 32, took a fifth of the network's time (2 of 9 ms a 720p frame, int8,
one core here). This keeps every layer before the decoder's last block as the
teacher (the committed detector, ``build_model()``) has it, frozen, and trains that
block (from the teacher's weights) with a separable head in place of the convolution
(``build_model("separable")``: depthwise 3x3, then 1x1) to give the teacher's maps:
its heat as soft targets and, near its cards, its heat's logit; its card geometry
and visible fraction where it sees cards. The student runs at the new head's cost,
and everything that chose the detector's thresholds and the merge rules keeps the
network it was chosen on, but for what the student cannot copy. Generated scenes
only (``detect_scenes``, procedural decks), as the teacher was trained; fixed seeds.
Writes the float and int8 models, the weights and ``card_detect.json`` (the
teacher's, with the distillation's record) beside ``--out``, and prints how many of
the teacher's cards the student reports alike
(outline IoU >= 0.9, before the corner refiner) on held-out scenes.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from vision.detect_train import (
    AXIS_SCALE,
    MIN_VISIBLE,
    RUN_SIDE,
    RUN_SIDE_UPRIGHT,
    STRIDE,
    VAL_DECK0,
    build_model,
    export,
    export_fixed,
    fit_epoch,
    make_dataset,
    mean_loss,
)

HEAD_LAYERS = 9  # build_model's layers from the head on: 6 of the head, heat, geometry, concat
TUNED_BLOCK = 6  # the decoder's last separable block, before the head


def _head_start(model) -> int:
    """Index of the first layer of ``model``'s head (:data:`HEAD_LAYERS` from the end)."""
    return len(model.layers) - HEAD_LAYERS if type(model.layers[-HEAD_LAYERS]).__name__ \
        == "DepthwiseConv2D" else len(model.layers) - 5  # the full head: conv, relu, 2, cat


def distill_loss(tf, student, teacher):
    """Soft-target cross-entropy of the heat (weighted towards the teacher's cards), and
    the geometry and visible fraction where the teacher sees a card."""
    p = tf.sigmoid(teacher[..., 0])
    logit = student[..., 0]
    # BCE(p, sigmoid(logit)) = softplus(logit) - p * logit
    heat = tf.reduce_mean((tf.nn.softplus(logit) - p * logit
                           - (tf.nn.softplus(teacher[..., 0]) - p * teacher[..., 0]))
                          * (1.0 + 20.0 * p))
    # Near a card, the heat's own value: a peak a little lower is a card less reported.
    near = tf.cast(p > 0.02, tf.float32)
    sharp = tf.reduce_sum(tf.square(logit - teacher[..., 0]) * near) / \
        tf.maximum(1.0, tf.reduce_sum(near))
    w = p[..., None]
    geo = tf.abs(student[..., 1:7] - teacher[..., 1:7])
    vis = tf.abs(tf.sigmoid(student[..., 7:8]) - tf.sigmoid(teacher[..., 7:8])) * 2.0
    reg = tf.reduce_sum(tf.concat([geo, vis], -1) * w) / tf.maximum(1.0, tf.reduce_sum(w))
    return heat * 10.0 + 0.5 * sharp + reg, heat + 0.05 * sharp, reg


def agreement(teacher_maps: np.ndarray, student_maps: np.ndarray,
              thresholds=(0.3, 0.5)) -> dict:
    """How many of the teacher's cards (decoded as at run time) the student reports with
    an outline of IoU >= 0.9, and how many it reports that the teacher does not."""
    from vision.card_net import decode, quad_iou

    def run_time(raw: np.ndarray) -> np.ndarray:  # as exported: heat and visible squashed
        m = raw.astype(np.float32)
        m[..., [0, 7]] = 1.0 / (1.0 + np.exp(-m[..., [0, 7]]))
        return m

    out = {}
    for t in thresholds:
        same = missing = extra = 0
        for a, b in zip(teacher_maps, student_maps, strict=True):
            ta = decode(run_time(a), 1.0, t, STRIDE, AXIS_SCALE)
            sb = decode(run_time(b), 1.0, t, STRIDE, AXIS_SCALE)
            used = set()
            for c in ta:
                hit = max(((quad_iou(c.corners, d.corners), i) for i, d in enumerate(sb)
                           if i not in used), default=(0.0, -1))
                if hit[0] >= 0.9:
                    used.add(hit[1])
                    same += 1
                else:
                    missing += 1
            extra += len(sb) - len(used)
        out[str(t)] = {"teacher_cards": same + missing, "alike": same,
                       "missing": missing, "extra": extra}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--teacher", type=Path, required=True,
                    help="the full-head detector's weights (.weights.h5)")
    ap.add_argument("--out", required=True, type=Path,
                    help="the student's float model (its int8 models and weights beside it)")
    ap.add_argument("--scenes", type=int, default=16000)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1818)
    ap.add_argument("--dressed", type=float, default=0.5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-3)
    args = ap.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    t0 = time.time()
    x, _ = make_dataset(args.scenes, args.seed, 1, args.threads, dressed=args.dressed)
    xv, _ = make_dataset(500, args.seed + 99_999, VAL_DECK0, args.threads,
                         dressed=args.dressed)
    print(f"{len(x)} scenes and {len(xv)} held-out ones made in {time.time() - t0:.0f}s",
          flush=True)
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(args.seed)
    teacher, _ = build_model()
    teacher.load_weights(str(args.teacher))
    start = _head_start(teacher)
    # The decoder's last block learns along with the head (from the teacher's weights):
    # it runs at the same cost, and lets the new head be fed what suits it.
    cut = start - TUNED_BLOCK
    trunk = tf.keras.Model(teacher.inputs, teacher.layers[cut].input)

    def features(imgs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        fs, ms = [], []
        for i in range(0, len(imgs), 64):
            xb = tf.constant(imgs[i:i + 64].astype(np.float32))
            fs.append(trunk(xb, training=False).numpy().astype(np.float16))
            ms.append(teacher(xb, training=False).numpy().astype(np.float16))
        return np.concatenate(fs), np.concatenate(ms)

    f, m = features(x)
    fv, mv = features(xv)
    del x
    print(f"teacher's features and maps in {time.time() - t0:.0f}s", flush=True)
    kept = [layer.get_weights() for layer in teacher.layers[:start]]
    # Layers named afresh: the exported model's tensors name them (vision.detect_weights).
    tf.keras.backend.clear_session()
    tf.keras.utils.set_random_seed(args.seed)
    student, _ = build_model("separable")
    if _head_start(student) != start:
        raise ValueError("the teacher's and the student's trunks differ")
    for w, layer in zip(kept, student.layers[:start], strict=True):
        layer.set_weights(w)
    head_in = tf.keras.Input((None, None, int(fv.shape[-1])))
    y = head_in
    for layer in student.layers[cut:-3]:
        y = layer(y)
    heat_l, reg_l, cat = student.layers[-3:]
    head = tf.keras.Model(head_in, cat([heat_l(y), reg_l(y)]))
    steps = args.epochs * (len(f) // args.batch)
    opt = tf.keras.optimizers.Adam(tf.keras.optimizers.schedules.CosineDecay(
        args.lr, steps, alpha=0.02))

    @tf.function
    def step(fb, mb):
        with tf.GradientTape() as tape:
            total, h, r = distill_loss(tf, head(fb, training=True), mb)
        grads = tape.gradient(total, head.trainable_variables)
        opt.apply_gradients(zip(grads, head.trainable_variables, strict=True))
        return total, h, r

    rng = np.random.default_rng(args.seed)
    k = 0
    for epoch in range(args.epochs):
        k = fit_epoch(tf, step, f, m, args.batch, rng, k, steps, t0)
        vl = mean_loss(tf, lambda fb, mb: distill_loss(tf, head(fb, training=False), mb),
                       fv, mv)
        print(f"epoch {epoch + 1}: held-out loss {vl[0]:.4f} (heat {vl[1]:.4f} geometry "
              f"{vl[2]:.4f})", flush=True)
    sv = np.concatenate([head(tf.constant(fv[i:i + 50].astype(np.float32)),
                              training=False).numpy() for i in range(0, len(fv), 50)])
    agree = agreement(mv.astype(np.float32), sv)
    print("held-out scenes, the student against the teacher:", json.dumps(agree), flush=True)
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    export(student, tf, out)
    student.save_weights(str(out.with_suffix(".weights.h5")))
    export_fixed(student, tf, out, args.seed)
    # The teacher's record (its threshold, its training chain) carries over.
    teacher_meta = args.teacher.with_name(args.teacher.name.replace(".weights.h5", ".json"))
    meta = json.loads(teacher_meta.read_text()) if teacher_meta.is_file() else {}
    meta.update({"stride": STRIDE, "axis_scale": AXIS_SCALE, "long_side": 384,
                 "run_side": RUN_SIDE, "run_side_upright": RUN_SIDE_UPRIGHT,
                 "min_visible": MIN_VISIBLE, "head": "separable",
                 "distilled": {"teacher": str(args.teacher), "scenes": len(f),
                               "epochs": args.epochs, "seed": args.seed, "lr": args.lr,
                               "dressed": args.dressed,
                               "held_out_loss": round(float(vl[0]), 5),
                               "agreement": agree}})
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"wrote {out} and its int8 models in {time.time() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
