"""Train the card embedding from procedurally drawn decks and export it to TFLite.

    pip install -e '.[train]'
    python -m vision.train --out vision/models/card_embed.tflite

Every episode draws a fresh deck style (seed), "enrolls" its 40 faces plus the
back from lightly damaged views, and asks the network to match heavily damaged
views (perspective, blur, glare, shadow, colour cast, noise, JPEG, hands, half
hidden under the stock) to them, or to a learned "none of these" level for
patches that are not a card of the deck. Styles with seeds >= 1_000_000 are
never trained on; the script ends by printing accuracy on them (and on the real
Napoletane deck in ../shared/decks when it is there). Fixed seed; 2 threads.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import threading
import time
from pathlib import Path

import cv2
import numpy as np

from vision.augment import camera_patch, draw_hand, random_texture
from vision.deck_art import DeckStyle, render_deck
from vision.embed import PATCH_H, PATCH_W, preprocess

VAL_SEED0 = 1_000_000
CODES = None  # filled lazily: 40 card codes then "back"


def _codes() -> list[str]:
    from table_controller.engine.cards import ALL_CARDS

    return [str(c) for c in ALL_CARDS] + ["back"]


def _small_deck(seed: int) -> list[np.ndarray]:
    deck = render_deck(DeckStyle.from_seed(seed))
    return [cv2.resize(deck[c], (96, round(96 * deck[c].shape[0] / deck[c].shape[1])),
                       interpolation=cv2.INTER_AREA) for c in _codes()]


def _distractor(rng: np.random.Generator, textures: list[np.ndarray]) -> np.ndarray:
    tex = textures[rng.integers(len(textures))]
    y, x = rng.integers(tex.shape[0] - PATCH_H), rng.integers(tex.shape[1] - PATCH_W)
    patch = tex[y:y + PATCH_H, x:x + PATCH_W].copy()
    if rng.random() < 0.5:
        draw_hand(patch, rng, PATCH_W * rng.uniform(0.5, 1.0))
    return patch


def episode(rng: np.random.Generator, seed: int, textures: list[np.ndarray],
            n_distract: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gallery (41 patches), queries and their labels (41 = not a card of this deck)."""
    faces = _small_deck(seed)
    back = faces[-1]
    gallery = np.stack([camera_patch(f, rng, rng.uniform(0.0, 0.4), None, textures)
                        for f in faces])
    order = rng.permutation(len(faces))
    queries = [camera_patch(faces[i], rng, 1.0, back, textures) for i in order]
    labels = list(order)
    for _ in range(n_distract):
        queries.append(_distractor(rng, textures))
        labels.append(len(faces))
    # Half of the time the deck is seen upside down: the gallery holds both ways
    # at run time, so it must be learned both ways.
    flip = rng.random() < 0.5
    if flip:
        gallery = gallery[:, ::-1, ::-1]
        queries = [q[::-1, ::-1] for q in queries]
    return gallery, np.stack(queries), np.array(labels)


def build_model(dim: int = 128):
    import tensorflow as tf
    from tensorflow import keras
    from tensorflow.keras import layers

    def block(x, ch, stride=1):
        x = layers.Conv2D(ch, 3, strides=stride, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        return layers.ReLU()(x)

    inp = keras.Input((PATCH_H, PATCH_W, 3), name="patch")
    x = block(inp, 16, 2)  # 48x32
    x = block(x, 24)
    x = layers.MaxPool2D()(x)  # 24x16
    x = block(x, 48)
    x = block(x, 48)
    x = layers.MaxPool2D()(x)  # 12x8
    x = block(x, 96)
    x = block(x, 96)
    x = layers.MaxPool2D()(x)  # 6x4: keep the layout, pip positions matter
    x = layers.Flatten()(x)
    x = layers.Dropout(0.1)(x)
    out = layers.Dense(dim, name="embedding")(x)
    return keras.Model(inp, out), tf


def _producer(seed: int, q: queue.Queue, stop: threading.Event, styles_per_step: int) -> None:
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    textures = [random_texture(rng, 320, 320) for _ in range(64)]
    while not stop.is_set():
        eps = [episode(rng, int(rng.integers(1, VAL_SEED0)), textures)
               for _ in range(styles_per_step)]
        q.put(eps)


def evaluate(embed_fn, seeds: list[int], queries_per_card: int = 3, seed: int = 99):
    """Top-1 accuracy and the (best, second best) similarities on held-out styles."""
    rng = np.random.default_rng(seed)
    textures = [random_texture(rng, 320, 320) for _ in range(32)]
    rows = []
    for s in seeds:
        faces = _small_deck(s)
        rows.append(_eval_deck(embed_fn, faces, rng, textures, queries_per_card))
    return np.concatenate(rows)


def _eval_deck(embed_fn, faces, rng, textures, queries_per_card):
    gal = np.stack([camera_patch(f, rng, 0.0, None, textures) for f in faces])
    gal = np.concatenate([gal, gal[:, ::-1, ::-1]])
    g = embed_fn(gal)
    n = len(faces)
    out = []
    for i, f in enumerate(faces):
        qs = np.stack([camera_patch(f, rng, 1.0, faces[-1], textures)
                       for _ in range(queries_per_card)])
        up = rng.random(len(qs)) < 0.5
        qs[up] = qs[up][:, ::-1, ::-1]
        sims = embed_fn(qs) @ g.T
        for row in sims:
            per_card = np.maximum(row[:n], row[n:])
            top = np.argsort(per_card)[::-1]
            out.append((i, top[0], per_card[top[0]], per_card[top[1]]))
    return np.array(out, float)


def report(rows: np.ndarray, name: str, thr: float, margin: float) -> dict:
    correct = rows[:, 0] == rows[:, 1]
    accept = (rows[:, 2] >= thr) & (rows[:, 2] - rows[:, 3] >= margin)
    acc = float(correct.mean())
    cov = float(accept.mean())
    wrong = float((accept & ~correct).sum() / max(1, accept.sum()))
    print(f"{name}: {len(rows)} queries, top-1 {acc:.4f}, accepted {cov:.4f}, "
          f"wrong among accepted {wrong:.4f} (threshold {thr:.2f}, margin {margin:.2f})")
    return {"top1": acc, "accepted": cov, "wrong_accepted": wrong}


def choose_threshold(rows: np.ndarray) -> tuple[float, float]:
    """Smallest (threshold, margin) keeping wrong accepted answers at or under 0.2%."""
    correct = rows[:, 0] == rows[:, 1]
    best = (0.5, 0.05, -1.0)
    for thr in np.arange(0.3, 0.95, 0.025):
        for margin in np.arange(0.0, 0.3, 0.01):
            acc = (rows[:, 2] >= thr) & (rows[:, 2] - rows[:, 3] >= margin)
            if acc.sum() == 0:
                continue
            wrong = (acc & ~correct).sum() / acc.sum()
            if wrong <= 0.002 and acc.mean() > best[2]:
                best = (float(thr), float(margin), float(acc.mean()))
    return best[0], best[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).with_name("models") / "card_embed.tflite"))
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--styles-per-step", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--val-styles", type=int, default=40)
    args = ap.parse_args(argv)

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    model, _ = build_model()
    tf.keras.utils.set_random_seed(args.seed)
    null_level = tf.Variable(0.5, dtype=tf.float32, name="null_level")
    scale = 20.0
    sched = tf.keras.optimizers.schedules.CosineDecay(2e-3, args.steps, alpha=0.02,
                                                      warmup_target=None)
    opt = tf.keras.optimizers.Adam(sched)

    @tf.function(reduce_retracing=True)
    def train_step(batch, sizes, labels_list):
        with tf.GradientTape() as tape:
            emb = tf.math.l2_normalize(model(batch, training=True), axis=1)
            loss = 0.0
            start = 0
            for (ng, nq), labels in zip(sizes, labels_list, strict=True):
                g = emb[start:start + ng]
                qv = emb[start + ng:start + ng + nq]
                start += ng + nq
                logits = tf.concat([tf.matmul(qv, g, transpose_b=True),
                                    tf.fill([nq, 1], null_level)], axis=1) * scale
                loss += tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
            loss /= len(sizes)
        variables = model.trainable_variables + [null_level]
        grads = tape.gradient(loss, variables)
        opt.apply_gradients(zip(grads, variables, strict=True))
        return loss

    q: queue.Queue = queue.Queue(maxsize=4)
    stop = threading.Event()
    worker = threading.Thread(target=_producer, args=(args.seed, q, stop, args.styles_per_step),
                              daemon=True)
    worker.start()
    t0 = time.time()
    losses = []
    for step in range(1, args.steps + 1):
        eps = q.get()
        batch = preprocess(np.concatenate([np.concatenate([g, qq]) for g, qq, _ in eps]))
        sizes = tuple((len(g), len(qq)) for g, qq, _ in eps)
        labels = tuple(tf.constant(lab, tf.int32) for _, _, lab in eps)
        losses.append(float(train_step(tf.constant(batch), sizes, labels)))
        if step % 100 == 0 or step == 1:
            print(f"step {step}/{args.steps} loss {np.mean(losses[-100:]):.4f} "
                  f"null {float(null_level.numpy()):.3f} {time.time() - t0:.0f}s", flush=True)
    stop.set()

    def embed_fn(patches: np.ndarray) -> np.ndarray:
        out = model(preprocess(patches), training=False).numpy()
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    val = evaluate(embed_fn, [VAL_SEED0 + i for i in range(args.val_styles)])
    thr, margin = choose_threshold(val)
    figures = {"held_out_styles": report(val, "held-out styles", thr, margin)}
    nap = Path(__file__).resolve().parents[2] / "shared" / "decks" / "napoletane"
    if nap.is_dir():
        faces = [cv2.resize(cv2.imread(str(nap / f"{c}.jpg")), (96, 159),
                            interpolation=cv2.INTER_AREA) for c in _codes()]
        rng = np.random.default_rng(7)
        textures = [random_texture(rng, 320, 320) for _ in range(32)]
        rows = _eval_deck(embed_fn, faces, rng, textures, 10)
        figures["napoletane"] = report(rows, "napoletane (real art)", thr, margin)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fixed = tf.keras.Model(model.inputs, model.outputs)
    converter = tf.lite.TFLiteConverter.from_keras_model(fixed)
    out.write_bytes(converter.convert())
    meta = {"patch": [PATCH_W, PATCH_H], "threshold": thr, "margin": margin,
            "steps": args.steps, "seed": args.seed, "validation": figures,
            "null_level": float(null_level.numpy())}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and {out.with_suffix('.json').name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
