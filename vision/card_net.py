"""The learned card detector at run time: TFLite in, card quadrilaterals out.

The network (trained by ``vision.detect_train``) sees the picture scaled to
384 pixels on its long side and answers, per cell of 4x4 pixels, how likely a
card's centre lies there, where exactly, the card's two half-axes and how much
of the card is visible. Peaks become parallelograms c +- u +- w in the card's
own corner order; perspective is left to the corner refinement that follows.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

MODEL_PATH = Path(__file__).with_name("models") / "card_detect.tflite"


@dataclass
class NetCard:
    corners: np.ndarray  # (4, 2) float32, image pixels, the card's own order
    score: float  # the centre's heat, 0..1
    visible: float  # estimated visible fraction, 0..1


def decode(maps: np.ndarray, scale: float, threshold: float = 0.35, stride: int = 4,
           axis_scale: float = 16.0) -> list[NetCard]:
    """Cards from the network's (h, w, 8) maps; ``scale`` is image px per input px."""
    heat = maps[..., 0]
    peak = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= peak) & (heat >= threshold))
    out = []
    for y, x in zip(ys, xs, strict=True):
        m = maps[y, x]
        c = (np.array([x + 0.5 + m[1], y + 0.5 + m[2]]) * stride)
        u = _undouble(m[3], m[4], axis_scale)
        w = _undouble(m[5], m[6], axis_scale)
        corners = np.stack([c + u - w, c + u + w, c - u + w, c - u - w])
        a, b = corners[1] - corners[0], corners[2] - corners[1]
        if a[0] * b[1] - a[1] * b[0] < 0:  # counter-clockwise: the card seen in a mirror
            corners = np.stack([c + u + w, c + u - w, c - u - w, c - u + w])
        corners = corners * scale
        out.append(NetCard(corners.astype(np.float32), float(heat[y, x]), float(m[7])))
    return _suppress(sorted(out, key=lambda k: -k.score))


def _undouble(a: float, b: float, axis_scale: float) -> np.ndarray:
    n = math.hypot(a, b) * axis_scale
    t = math.atan2(b, a) / 2
    return np.array([n * math.cos(t), n * math.sin(t)])


def _suppress(cards: list[NetCard], max_iou: float = 0.5, max_inside: float = 0.7,
              ) -> list[NetCard]:
    """Of two reports that are one card, the surer: they overlap most of each other, or
    the less sure lies mostly inside the other (a half or a panel of one card). A card
    at least half visible under another is never mostly inside it."""
    keep: list[NetCard] = []
    boxes: list[tuple[np.ndarray, np.ndarray]] = []
    for k in cards:
        lo, hi = k.corners.min(axis=0), k.corners.max(axis=0)
        for j, (jlo, jhi) in zip(keep, boxes, strict=True):
            if (lo >= jhi).any() or (jlo >= hi).any():
                continue  # (apart: most pairs, and no polygon sums needed)
            inter, ak, aj = _overlap(k.corners, j.corners)
            union = ak + aj - inter
            if (union > 0 and inter / union >= max_iou) or (ak > 0 and inter / ak >= max_inside):
                break
        else:
            keep.append(k)
            boxes.append((lo, hi))
    return keep


def _overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    a = cv2.convexHull(a.astype(np.float32))
    b = cv2.convexHull(b.astype(np.float32))
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter), float(cv2.contourArea(a)), float(cv2.contourArea(b))


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, aa, ab = _overlap(a, b)
    union = aa + ab - inter
    return inter / union if union > 0 else 0.0


def quad_inside(a: np.ndarray, b: np.ndarray) -> float:
    """How much of quad ``a`` lies inside quad ``b``."""
    inter, aa, _ = _overlap(a, b)
    return inter / aa if aa > 0 else 0.0


class CardNet:
    """The detector over one TFLite interpreter, resized to each picture's shape."""

    def __init__(self, model_path: str | Path = MODEL_PATH, threads: int = 1):
        from vision.tflite import make_interpreter

        meta_path = Path(model_path).with_suffix(".json")
        self.meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
        # The side the picture is scaled to: may exceed the training side (small cards).
        self.train_side = int(self.meta.get("long_side", 384))
        self.long_side = int(self.meta.get("run_side", self.train_side))
        # An upright picture's cards, as many pixels long as in a wide one, would reach
        # the network two thirds the size: it is searched at a longer side.
        self.upright_side = int(self.meta.get("run_side_upright", self.long_side))
        self._interp = make_interpreter(model_path, threads)
        self._in = self._interp.get_input_details()[0]["index"]
        self._out = self._interp.get_output_details()[0]["index"]
        self._shape = tuple(int(v) for v in self._interp.get_input_details()[0]["shape"][1:3])
        # The same network exported for one padded input shape each (``<name>-HxW``,
        # int8): the shapes of a 16:9 or 4:3 frame, which run at half the cost there.
        model_path = Path(model_path)
        self._fixed_paths = {
            (int(m[1]), int(m[2])): f
            for f in model_path.parent.glob(f"{model_path.stem}-*x*.tflite")
            if (m := re.fullmatch(r".*-(\d+)x(\d+)", f.stem))}
        self._fixed: dict[tuple[int, int], tuple] = {}
        self._resized: dict[tuple[int, int], tuple] = {}
        self._path, self._threads = model_path, threads

    def maps(self, image: np.ndarray, side: int | None = None,
             smaller: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """The network's maps for a BGR picture (scaled to ``side`` px on its long side,
        default :meth:`side_for` it) and the picture's px per input px. ``smaller``: the
        same picture already scaled down (by INTER_AREA) by the caller, to start from."""
        h, w = image.shape[:2]
        s = (side or self.side_for(h, w)) / max(h, w)
        nw, nh = max(32, round(w * s)), max(32, round(h * s))
        small = image
        if smaller is not None and min(smaller.shape[:2]) >= min(nh, nw):
            small = smaller
        while min(small.shape[0] // 2, small.shape[1] // 2) >= min(nh, nw) and \
                max(small.shape[:2]) >= 2 * max(nh, nw):
            # Halving is INTER_AREA's fast path: a 720p frame costs a tenth of one step.
            small = cv2.resize(small, (small.shape[1] // 2, small.shape[0] // 2),
                               interpolation=cv2.INTER_AREA)
        small = cv2.resize(small, (nw, nh), interpolation=cv2.INTER_AREA)
        ph, pw = -(-nh // 32) * 32, -(-nw // 32) * 32  # the net halves its input 5 times
        x = cv2.copyMakeBorder(small, 0, ph - nh, 0, pw - nw, cv2.BORDER_REPLICATE)
        interp, inp, out = self._interpreter(ph, pw)
        interp.set_tensor(inp, x[None].astype(np.float32))
        interp.invoke()
        return interp.get_tensor(out)[0], 1.0 / s

    def _interpreter(self, ph: int, pw: int) -> tuple:
        """(interpreter, input, output) for a padded input of ``ph`` x ``pw``."""
        if (ph, pw) in self._fixed_paths:
            if (ph, pw) not in self._fixed:
                from vision.tflite import make_interpreter

                it = make_interpreter(self._fixed_paths[ph, pw], self._threads)
                self._fixed[ph, pw] = (it, it.get_input_details()[0]["index"],
                                       it.get_output_details()[0]["index"])
            return self._fixed[ph, pw]
        if (ph, pw) == self._shape:
            return self._interp, self._in, self._out
        if (ph, pw) not in self._resized:
            # One interpreter a shape: a picture is looked at twice (fine and coarse), and
            # resizing one interpreter back and forth would allocate its tensors each time.
            from vision.tflite import make_interpreter

            if len(self._resized) >= 4:
                self._resized.pop(next(iter(self._resized)))
            it = make_interpreter(self._path, self._threads)
            inp = it.get_input_details()[0]["index"]
            it.resize_tensor_input(inp, [1, ph, pw, 3])
            it.allocate_tensors()
            self._resized[ph, pw] = (it, inp, it.get_output_details()[0]["index"])
        return self._resized[ph, pw]

    def side_for(self, h: int, w: int) -> int:
        """The long side a picture of ``h`` x ``w`` is searched at."""
        return self.upright_side if h > w else self.long_side

    @property
    def threshold(self) -> float:
        """The model's report threshold, chosen on generated scenes of unseen styles."""
        return float(self.meta.get("threshold", 0.4))

    def find(self, image: np.ndarray, threshold: float | None = None,
             side: int | None = None) -> list[NetCard]:
        """Cards whose centre heat reaches ``threshold`` (default: the model's own)."""
        return self.find_at(image, [self.threshold if threshold is None else threshold],
                            side)[0]

    def find_at(self, image: np.ndarray, thresholds: list[float], side: int | None = None,
                smaller: np.ndarray | None = None) -> list[list[NetCard]]:
        """:meth:`find` at several thresholds, the network run and decoded once
        (``smaller``: as :meth:`maps`)."""
        maps, scale = self.maps(image, side, smaller)
        found = self.decoded(maps, scale, min(thresholds), image.shape[:2])
        # Suppression keeps a report for the surer ones before it only: those at a higher
        # threshold are the same whichever threshold the decoding ran at.
        return [[c for c in found if c.score >= t] for t in thresholds]

    def decoded(self, maps: np.ndarray, scale: float, threshold: float,
                shape: tuple[int, ...]) -> list[NetCard]:
        """The cards of :meth:`maps`' output for a picture of ``shape`` (h, w)."""
        h, w = shape[:2]
        found = decode(maps, scale, threshold, int(self.meta.get("stride", 4)),
                       float(self.meta.get("axis_scale", 16.0)))
        # Not in the padding the network's input needs below and right of the picture.
        return [c for c in found if (m := c.corners.mean(0))[0] < w and m[1] < h]


CORNERS_PATH = Path(__file__).with_name("models") / "card_corners.tflite"


def crop_frame(corners: np.ndarray, size: tuple[int, int] = (64, 96),
               margin: float = 0.2) -> np.ndarray:
    """The homography from the picture to a ``size`` crop in which ``corners``
    (TL TR BR BL) stand upright, ``margin`` (of the card's width and height) inside
    each edge: what the corner refiner sees, in training and at run time."""
    w, h = size
    mx, my = margin * w / (1 + 2 * margin), margin * h / (1 + 2 * margin)
    dst = np.float32([[mx, my], [w - mx, my], [w - mx, h - my], [mx, h - my]])
    return cv2.getPerspectiveTransform(np.float32(corners), dst)


def upright_crops(image: np.ndarray, quads: list[np.ndarray], size: tuple[int, int],
                  margin: float) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each quad's card stood upright in a ``size`` crop with ``margin`` round it (see
    :func:`crop_frame`), area-averaged from twice the size (a large card would alias),
    and each crop's homography from the picture."""
    w, h = size
    two = np.diag([2.0, 2.0, 1.0])
    frames = [crop_frame(q, size, margin) for q in quads]
    crops = np.stack([cv2.resize(cv2.warpPerspective(
        image, two @ m, (2 * w, 2 * h), flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE), (w, h), interpolation=cv2.INTER_AREA)
        for m in frames])
    return crops, frames


class CornerRefiner:
    """Second look at each card: the picture warped so the rough card stands upright
    in a small crop with a margin, and the network says where its four corners
    really are (``vision.corner_train``). Hidden corners are inferred from the
    visible edges and the card's shape."""

    def __init__(self, model_path: str | Path = CORNERS_PATH, threads: int = 1):
        from vision.tflite import make_interpreter

        meta_path = Path(model_path).with_suffix(".json")
        meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
        self.size = tuple(meta.get("crop", (64, 96)))
        self.margin = float(meta.get("margin", 0.2))
        self._interp = make_interpreter(model_path, threads)
        self._in = self._interp.get_input_details()[0]["index"]
        self._out = self._interp.get_output_details()[0]["index"]
        self._batch = 0

    def refine(self, image: np.ndarray, quads: list[np.ndarray], passes: int = 2,
               ) -> list[np.ndarray]:
        """Each quad's corners, looked at again ``passes`` times."""
        if not quads:
            return []
        w, h = self.size
        quads = [np.float32(q) for q in quads]
        if len(quads) != self._batch:
            self._interp.resize_tensor_input(self._in, [len(quads), h, w, 3])
            self._interp.allocate_tensors()
            self._batch = len(quads)
        for _ in range(passes):
            crops, frames = upright_crops(image, quads, self.size, self.margin)
            self._interp.set_tensor(self._in, crops.astype(np.float32))
            self._interp.invoke()
            out = self._interp.get_tensor(self._out).reshape(-1, 4, 2) * np.float32([w, h])
            quads = [cv2.perspectiveTransform(o.reshape(-1, 1, 2).astype(np.float64),
                                              np.linalg.inv(m)).reshape(4, 2).astype(np.float32)
                     for o, m in zip(out, frames, strict=True)]
        return quads


CHECK_PATH = Path(__file__).with_name("models") / "card_check.tflite"


class CardCheck:
    """The last look at each report (``vision.check_train``): the picture warped so the
    reported card stands upright in a small crop with a margin round it, and a network
    says how likely it is a card of which half or more shows, outlined as a whole card:
    not a piece of cloth, an object, a block of pips or a panel inside a card, half a
    card stretched into a whole one, two cards outlined as one."""

    def __init__(self, model_path: str | Path = CHECK_PATH, threads: int = 1):
        from vision.tflite import make_interpreter

        meta_path = Path(model_path).with_suffix(".json")
        self.meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
        self.size = tuple(self.meta.get("crop", (64, 96)))
        self.margin = float(self.meta.get("margin", 0.25))
        self._interp = make_interpreter(model_path, threads)
        self._in = self._interp.get_input_details()[0]["index"]
        self._out = self._interp.get_output_details()[0]["index"]
        self._batch = 0

    def scores(self, image: np.ndarray, quads: list[np.ndarray]) -> list[float]:
        """How likely each quad is a card (0..1)."""
        if not quads:
            return []
        w, h = self.size
        if len(quads) != self._batch:
            self._interp.resize_tensor_input(self._in, [len(quads), h, w, 3])
            self._interp.allocate_tensors()
            self._batch = len(quads)
        crops, _ = upright_crops(image, [np.float32(q) for q in quads], self.size, self.margin)
        self._interp.set_tensor(self._in, crops.astype(np.float32))
        self._interp.invoke()
        out = self._interp.get_tensor(self._out).reshape(-1)
        return [float(v) for v in out]
