"""The detector's training weights taken back out of its float TFLite model.

    python -m vision.detect_weights [--model vision/models/card_detect.tflite]

Training resumes from ``card_detect.weights.h5`` (``detect_train --resume``), which
earlier runs did not keep: only the TFLite files were committed. The float model
holds every weight, each batch normalisation folded into the convolution before it
(scale into the kernel, shift into a bias). This rebuilds ``detect_train``'s Keras
model, puts each folded kernel back and sets each normalisation to add the folded
shift, then gives each normalisation the statistics its input really has on
generated scenes (so that training, which normalises by each batch's own, starts
from the same network), checks that the Keras model answers as the TFLite one does,
and writes the weights beside the model (TensorFlow from the ``[train]`` extra).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

import numpy as np

from vision.card_net import MODEL_PATH

# A Keras layer's operations are named after it in the exported graph: layer "conv2d"
# as "conv2d_1", "conv2d_1" as "conv2d_1_2", "conv2d_7" as "conv2d_7_1".
_OP_NAME = re.compile(r"/(depthwise_conv2d|conv2d|batch_normalization)(?:_(\d+))?_(\d+)/")


def _layer(name: str, kind: str) -> str | None:
    """The Keras layer of ``kind`` whose operation named the TFLite tensor ``name``."""
    for m in _OP_NAME.finditer(name):
        if m.group(1) == kind:
            return kind if m.group(2) is None else f"{kind}_{m.group(2)}"
    return None


def folded_weights(model_path: Path) -> dict[str, dict[str, np.ndarray]]:
    """Per Keras layer name: ``kernel`` (Keras layout) and ``bias`` of each convolution,
    and ``scale``/``shift`` of a normalisation the converter left unfolded."""
    from vision.tflite import make_interpreter

    it = make_interpreter(model_path)
    tensors = {d["index"]: d for d in it.get_tensor_details()}
    const = it.get_tensor
    out: dict[str, dict[str, np.ndarray]] = {}
    for op in it._get_ops_details():
        kind = {"CONV_2D": "conv2d", "DEPTHWISE_CONV_2D": "depthwise_conv2d"}.get(op["op_name"])
        if kind is not None:
            w_idx, b_idx = op["inputs"][1], op["inputs"][2]
            layer = _layer(tensors[w_idx]["name"], kind)
            if layer is None:
                raise ValueError(f"no {kind} layer named in {tensors[w_idx]['name']!r}")
            w = const(w_idx)
            kernel = np.transpose(w, (1, 2, 3, 0))  # OHWI -> HWIO, and 1HWC -> HWC1
            out[layer] = {"kernel": kernel, "bias": const(b_idx)}
        elif op["op_name"] in ("MUL", "ADD"):
            for i in op["inputs"]:
                name = tensors[i]["name"]
                bn = _layer(name, "batch_normalization")
                if bn and name.endswith(("batchnorm/mul", "batchnorm/sub")) \
                        and tensors[i]["shape"].size == 1:
                    key = "scale" if name.endswith("mul") else "shift"
                    out.setdefault(bn, {})[key] = const(i)
    return out


def rebuild(model_path: Path = MODEL_PATH):
    """``detect_train``'s Keras model holding the float TFLite model's weights."""
    import tensorflow as tf

    from vision.detect_train import build_model

    tf.keras.backend.clear_session()  # layer names counted afresh: they name the weights
    model, tf = build_model()
    folded = folded_weights(model_path)
    by_name = {layer.name: layer for layer in model.layers}
    done = set()
    for layer in model.layers:
        cls = type(layer).__name__
        if cls not in ("Conv2D", "DepthwiseConv2D"):
            continue
        w = folded.get(layer.name)
        if w is None or w["kernel"].shape != tuple(layer.kernel.shape):
            raise ValueError(f"{layer.name}: no weights of its shape in {model_path}")
        nxt = [n.operation for n in layer._outbound_nodes]
        bn = nxt[0] if len(nxt) == 1 and type(nxt[0]).__name__ == "BatchNormalization" \
            else None
        if bn is None:  # a convolution with its own bias
            layer.set_weights([w["kernel"], w["bias"]])
        else:
            eps = bn.epsilon
            unfolded = folded.get(bn.name, {})
            if "scale" in unfolded:  # the converter kept this normalisation apart
                gamma, beta = unfolded["scale"], unfolded["shift"] + w["bias"] * unfolded["scale"]
            else:
                gamma, beta = np.ones_like(w["bias"]), w["bias"]
            layer.set_weights([w["kernel"]])
            c = len(beta)
            bn.set_weights([gamma.astype(np.float32), beta.astype(np.float32),
                            np.zeros(c, np.float32), np.full(c, 1 - eps, np.float32)])
            done.add(bn.name)
        done.add(layer.name)
    missing = [n for n, layer in by_name.items() if layer.weights and n not in done]
    if missing:
        raise ValueError(f"layers left without weights: {missing}")
    return model, tf


def calibrate(model, tf, scenes: int = 48) -> None:
    """Set each normalisation to the statistics its input really has, keeping what it
    computes: with mean 0 and variance 1 - epsilon it would answer the same when
    running, but in training it divides by its batch's own statistics, and a resumed
    run would start from another network (held-out loss 3.5 after a 6,000-scene epoch,
    against 1.9). With scale ``s * sqrt(var + eps)`` and shift ``b + s * mean`` it
    answers ``s * x + b`` both ways, to within one batch's statistics."""
    from vision.detect_scenes import detection_scene, scene_decks

    bns = [layer for layer in model.layers if type(layer).__name__ == "BatchNormalization"]
    probe = tf.keras.Model(model.inputs, [bn.input for bn in bns])
    rng = np.random.default_rng(9)
    decks = scene_decks(1 + rng.integers(0, 1_000_000, 8))
    sums = [None] * len(bns)
    for _ in range(scenes):
        img, _ = detection_scene(rng, decks, (384, 256), (30, 150))
        outs = probe(img[None].astype(np.float32), training=False)
        for i, x in enumerate(outs):
            x = x.numpy().reshape(-1, x.shape[-1]).astype(np.float64)
            part = np.stack([x.sum(0), (x * x).sum(0), np.full(x.shape[1], len(x))])
            sums[i] = part if sums[i] is None else sums[i] + part
    for bn, (total, squares, n) in zip(bns, sums, strict=True):
        mean = total / n
        var = np.maximum(squares / n - mean * mean, 1e-6)
        gamma, beta, old_mean, old_var = bn.get_weights()
        # What it computes now, from the weights rebuild() gave it: s * x + b.
        s = gamma / np.sqrt(old_var + bn.epsilon)
        b = beta - s * old_mean
        bn.set_weights([(s * np.sqrt(var + bn.epsilon)).astype(np.float32),
                        (b + s * mean).astype(np.float32), mean.astype(np.float32),
                        var.astype(np.float32)])


def max_difference(model, tf, model_path: Path, scenes: int = 4) -> float:
    """The largest difference between the Keras model's and the TFLite model's maps
    (heat and visibility through their sigmoid) on generated scenes."""
    from vision.card_net import CardNet
    from vision.detect_scenes import detection_scene, scene_decks

    net = CardNet(model_path)
    net._fixed_paths = {}  # the float model, as exported
    rng = np.random.default_rng(5)
    decks = scene_decks([2_000_005])
    worst = 0.0
    for _ in range(scenes):
        img, _ = detection_scene(rng, decks, (384, 256), (40, 140))
        lite, _scale = net.maps(img, side=384)
        keras = model(img[None].astype(np.float32), training=False).numpy()[0]
        keras[..., 0] = 1 / (1 + np.exp(-keras[..., 0]))
        keras[..., 7] = 1 / (1 + np.exp(-keras[..., 7]))
        worst = max(worst, float(np.abs(keras - lite).max()))
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", type=Path, default=MODEL_PATH)
    args = ap.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    model, tf = rebuild(args.model)
    calibrate(model, tf)
    diff = max_difference(model, tf, args.model)
    if diff > 1e-3:
        print(f"the rebuilt model differs from {args.model} by {diff:.4f}: not written",
              file=sys.stderr)
        return 1
    out = args.model.with_suffix(".weights.h5")
    model.save_weights(str(out))
    print(f"wrote {out} (the maps agree with {args.model.name} to {diff:.1e})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
