"""The detector's separable head, learned from the full-head detector by distillation
(vision/detect_distill.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detect_distill import agreement


def _raw_maps(cells: list[tuple[int, int]], h: int = 16, w: int = 16) -> np.ndarray:
    """Raw (pre-sigmoid) maps with a card's peak at each (row, col): a card upright,
    about 2 x 3 cells of half-axes, fully visible."""
    m = np.zeros((h, w, 8), np.float32)
    m[..., 0] = -8.0  # heat logit: nothing
    for r, c in cells:
        m[r, c, 0] = 4.0
        m[r, c, 3:5] = (-0.75, 0.0)  # long half-axis 12 px, upright (doubled angle pi)
        m[r, c, 5:7] = (0.5, 0.0)  # short half-axis 8 px, across
        m[r, c, 7] = 4.0
    return m


def test_the_same_maps_agree_on_every_card():
    a = _raw_maps([(4, 4), (11, 10)])
    got = agreement(a[None], a[None].copy())
    for t in ("0.3", "0.5"):
        assert got[t] == {"teacher_cards": 2, "alike": 2, "missing": 0, "extra": 0}


def test_a_card_lost_or_added_or_moved_is_counted():
    teacher = _raw_maps([(4, 4), (11, 10)])[None]
    lost = _raw_maps([(4, 4)])[None]
    assert agreement(teacher, lost)["0.5"] == {
        "teacher_cards": 2, "alike": 1, "missing": 1, "extra": 0}
    added = _raw_maps([(4, 4), (11, 10), (4, 12)])[None]
    assert agreement(teacher, added)["0.5"]["extra"] == 1
    moved = _raw_maps([(4, 4), (11, 12)])[None]  # 8 px off: IoU well under 0.9
    assert agreement(teacher, moved)["0.5"] == {
        "teacher_cards": 2, "alike": 1, "missing": 1, "extra": 1}
    faint = teacher.copy()
    faint[0, 11, 10, 0] = -0.2  # heat 0.45: under 0.5, over 0.3
    got = agreement(teacher, faint)
    assert got["0.3"]["alike"] == 2 and got["0.5"]["missing"] == 1


def test_the_heads_share_the_trunk_and_the_loss_is_zero_only_for_the_teachers_maps():
    pytest.importorskip("tensorflow", reason="TensorFlow comes with the [train] extra only")
    from vision.detect_distill import _head_start, distill_loss
    from vision.detect_train import build_model

    full, tf = build_model()
    sep, _ = build_model("separable")
    cut = _head_start(full)
    assert cut == _head_start(sep) and cut > 0
    for a, b in zip(full.layers[:cut], sep.layers[:cut], strict=True):
        assert type(a).__name__ == type(b).__name__
        assert [w.shape for w in a.weights] == [w.shape for w in b.weights]
    assert type(full.layers[cut]).__name__ == "Conv2D"  # the 3x3 convolution
    assert full.layers[cut].kernel_size == (3, 3)
    assert type(sep.layers[cut]).__name__ == "DepthwiseConv2D"
    with pytest.raises(ValueError, match="head"):
        build_model("wide")
    t = tf.constant(_raw_maps([(4, 4)])[None])
    assert abs(float(distill_loss(tf, t, t)[0])) < 1e-5
    off = t.numpy().copy()
    off[0, 4, 4, 3] += 0.5  # the card's long axis wrong where the teacher sees it
    assert float(distill_loss(tf, tf.constant(off), t)[2]) > 0.1
    cold = t.numpy().copy()
    cold[0, 4, 4, 0] = -4.0  # the teacher's card not seen
    assert float(distill_loss(tf, tf.constant(cold), t)[1]) > 0.01
