"""The card embedding: canonical patch in, L2-normalised descriptor out.

Recognition is nearest neighbour against an enrolled deck, so the network only
has to map two views of the same face close together and two different faces of
one deck apart; it never needs to know a deck in advance.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

PATCH_W, PATCH_H = 64, 96  # canonical upright card patch fed to the network
MAX_BATCH = 8  # patches per inference: a table has at most a few cards in view at once
MODEL_PATH = Path(__file__).with_name("models") / "card_embed.tflite"


def preprocess(patches: np.ndarray) -> np.ndarray:
    """uint8 BGR patches (N, H, W, 3) -> float32 network input, per-image normalised.

    Per-image standardisation removes exposure; colour ratios are kept because
    suits are told apart by colour as much as by shape.
    """
    x = patches[..., ::-1].astype(np.float32) / 255.0
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True)
    return (x - mean) / (std + 0.05)


class Embedder:
    """Runs the committed TFLite model on batches of canonical patches."""

    def __init__(self, model_path: str | Path = MODEL_PATH, threads: int = 1) -> None:
        from vision.tflite import make_interpreter

        self.model_path = Path(model_path)
        if not self.model_path.is_file():
            raise FileNotFoundError(f"embedding model not found: {self.model_path}")
        self._interp = make_interpreter(self.model_path, threads)
        self._in = self._interp.get_input_details()[0]
        self._out = self._interp.get_output_details()[0]
        self.dim = int(self._out["shape"][-1])
        self._batch = int(self._in["shape"][0])
        self._lock = threading.Lock()  # one interpreter is not re-entrant

    def __call__(self, patches: np.ndarray) -> np.ndarray:
        """Embed uint8 BGR patches of shape (N, PATCH_H, PATCH_W, 3) -> (N, dim)."""
        if len(patches) == 0:
            return np.zeros((0, self.dim), np.float32)
        if len(patches) > MAX_BATCH:  # the interpreter keeps the largest batch's buffers
            return np.concatenate([self(patches[i:i + MAX_BATCH])
                                   for i in range(0, len(patches), MAX_BATCH)])
        x = preprocess(np.asarray(patches))
        with self._lock:
            if self._batch != len(x):
                self._interp.resize_tensor_input(self._in["index"], list(x.shape))
                self._interp.allocate_tensors()
                self._batch = len(x)
            self._interp.set_tensor(self._in["index"], x)
            self._interp.invoke()
            out = self._interp.get_tensor(self._out["index"]).copy()
        return out / (np.linalg.norm(out, axis=1, keepdims=True) + 1e-9)
