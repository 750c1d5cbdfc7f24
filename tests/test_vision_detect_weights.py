"""The detector's training weights are recovered from its float TFLite model, so that
training can resume from the committed model (vision/detect_weights.py)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.card_net import MODEL_PATH
from vision.detect_weights import _layer, folded_weights


def test_a_tflite_tensor_names_its_keras_layer():
    assert _layer("functional_1/conv2d_1/convolution", "conv2d") == "conv2d"
    assert _layer("functional_1/conv2d_1_2/convolution", "conv2d") == "conv2d_1"
    assert _layer("functional_1/conv2d_17_1/convolution", "conv2d") == "conv2d_17"
    name = ("functional_1/batch_normalization_7_1/batchnorm/mul_1;"
            "functional_1/depthwise_conv2d_3_1/depthwise")
    assert _layer(name, "depthwise_conv2d") == "depthwise_conv2d_3"
    assert _layer(name, "batch_normalization") == "batch_normalization_7"
    assert _layer("arith.constant7", "conv2d") is None


def test_every_convolution_of_the_committed_model_is_recovered_with_its_bias():
    folded = folded_weights(MODEL_PATH)
    convs = {k: v for k, v in folded.items() if "kernel" in v}
    assert len(convs) == 36  # 23 convolutions and 13 depthwise ones
    assert convs["conv2d"]["kernel"].shape == (3, 3, 3, 16)  # the stem, HWIO
    for name, w in convs.items():
        out = w["kernel"].shape[2] if name.startswith("depthwise") else w["kernel"].shape[3]
        assert w["bias"].shape == (out,), name
        assert np.isfinite(w["kernel"]).all() and np.abs(w["kernel"]).max() > 0
    # The two dilated depthwise convolutions keep their normalisation apart.
    apart = [k for k, v in folded.items() if "scale" in v]
    assert len(apart) == 2 and all("shift" in folded[k] for k in apart)


def test_the_rebuilt_keras_model_answers_as_the_tflite_model():
    pytest.importorskip("tensorflow", reason="TensorFlow comes with the [train] extra only")
    from vision.detect_weights import calibrate, max_difference, rebuild

    model, tf = rebuild(MODEL_PATH)
    assert max_difference(model, tf, MODEL_PATH, scenes=2) < 1e-3
    # Each normalisation given its input's own statistics computes the same.
    calibrate(model, tf, scenes=4)
    assert max_difference(model, tf, MODEL_PATH, scenes=2) < 1e-3
    bn = next(layer for layer in model.layers if type(layer).__name__ == "BatchNormalization")
    assert np.abs(bn.get_weights()[2]).max() > 0  # moving mean: no longer the folded zero
