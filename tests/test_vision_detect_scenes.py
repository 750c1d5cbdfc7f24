"""The detector's training scenes: overlapping layouts on request, the rest as ever."""

from __future__ import annotations

import numpy as np

from vision.detect_scenes import (
    BY_NAME,
    LAYOUT_P,
    OVERLAPPING_P,
    background,
    detection_scene,
    lay_cards,
    phone,
    rounded_mask,
    scene_decks,
    sheet_corner,
)
from vision.detect_train import AXIS_SCALE, _make


def test_both_layouts_weigh_six_kinds_of_group():
    assert len(LAYOUT_P) == len(OVERLAPPING_P) == 6
    assert abs(sum(LAYOUT_P) - 1) < 1e-9 and abs(sum(OVERLAPPING_P) - 1) < 1e-9
    # fans and stacks (the 3rd and 4th kinds) are what the overlapping scenes dwell on
    assert OVERLAPPING_P[2] + OVERLAPPING_P[3] > 1.5 * (LAYOUT_P[2] + LAYOUT_P[3])


def _half_or_more_hidden(overlapping: bool, n: int = 80) -> float:
    """Cards a scene holds with half of them or more in view, but not all."""
    decks = scene_decks([2_000_300, 2_000_301])
    rng = np.random.default_rng(5)
    count = 0
    for _ in range(n):
        _, cards = detection_scene(rng, decks, (256, 256), overlapping=overlapping)
        count += sum(0.5 <= c.visible < 0.97 for c in cards)
    return count / n


def test_overlapping_scenes_hold_more_cards_partly_in_view():
    # (on 300 scenes: 2.0 a scene against 1.07)
    assert _half_or_more_hidden(True) > 1.5 * _half_or_more_hidden(False)


def test_a_run_without_overlapping_scenes_draws_the_scenes_it_always_drew():
    job = (11, 3, [2_000_400, 2_000_401], 0.0)
    x0, y0 = _make(job)  # (seed, count, deck seeds, dressed): as before the option
    x1, y1 = _make((*job, 0.0))
    assert np.array_equal(x0, x1) and np.array_equal(y0, y1)
    x2, _ = _make((*job, 1.0))
    assert not np.array_equal(x0, x2)


def test_a_run_without_phone_look_scenes_draws_the_scenes_it_always_drew():
    job = (11, 3, [2_000_400, 2_000_401], 0.0, 0.0)
    x0, y0 = _make(job)
    x1, y1 = _make((*job, 0.0))
    assert np.array_equal(x0, x1) and np.array_equal(y0, y1)
    x2, y2 = _make((*job, 1.0))
    assert not np.array_equal(x0, x2)
    assert y2.shape == y0.shape


def test_close_up_scenes_draw_bigger_cards_and_leave_the_others_as_they_were():
    job = (11, 4, [2_000_400, 2_000_401], 0.0, 0.0, 0.0)
    x0, y0 = _make(job)
    x1, y1 = _make((*job, 0.0))
    assert np.array_equal(x0, x1) and np.array_equal(y0, y1)
    _, y2 = _make((*job, 1.0))

    def longest(y) -> float:  # the longest half-axis a cell of a card's centre holds, px
        centres = y[..., 9] == 1.0
        return float(np.hypot(y[..., 3], y[..., 4])[centres].max()) * AXIS_SCALE

    # (the usual scenes' cards are 30-150 px long, close-ups' 128-243 px, before tilt)
    assert longest(y0) < 80 < longest(y2)


def test_rounded_corners_show_the_cloth_in_the_corners_only():
    mask = rounded_mask(96, 64, 0.08)  # r = 5 px
    assert mask[0, 0] == 0 and mask[95, 63] == 0 and mask[0, 63] == 0 and mask[95, 0] == 0
    assert mask[0, 32] == 255 and mask[48, 0] == 255 and mask[48, 32] == 255
    assert mask[5, 5] == 255  # the corner's circle itself is card
    assert 0.99 < (mask > 127).mean() < 1.0
    assert (rounded_mask(96, 64, 0.0) == 255).all()


def test_a_card_laid_with_rounded_corners_keeps_its_rectangle_as_its_outline():
    face = np.full((96, 64, 3), 250, np.uint8)
    box = np.float32([[100, 50], [164, 50], [164, 146], [100, 146]])
    img, truth = lay_cards(np.zeros((200, 300, 3), np.uint8), [(face, box, False)],
                           rounded=0.08)
    assert np.allclose(truth[0].corners, box) and truth[0].visible > 0.98
    assert img[50, 100].max() < 60 and img[52, 132].min() > 200  # corner cloth, edge card


def test_phone_look_backgrounds_and_camera():
    rng = np.random.default_rng(1)
    for kind in ("terry", "print", "knit"):
        img = background(rng, 120, 160, kind)
        assert img.shape == (120, 160, 3) and img.dtype == np.uint8
        assert img.std() > 3, kind  # a texture, not a flat colour
    flat = np.full((90, 120, 3), 128, np.uint8)
    shots = [phone(flat.copy(), np.random.default_rng(s)) for s in range(6)]
    assert all(s.shape == flat.shape and s.dtype == np.uint8 for s in shots)
    assert all(s.std() > 0.5 for s in shots)  # noise at least, always
    assert BY_NAME["terry"] is not BY_NAME["towel"]


def test_a_sheets_corner_pokes_in_at_the_pictures_edge():
    """``sheet_corner``: a sheet lying mostly out of the picture, of which only a corner
    of about a card's reach shows, at one of the picture's edges."""
    card_px = 100
    shown = 0
    for seed in range(20):
        img = np.full((360, 640, 3), 60, np.uint8)
        sheet_corner(img, np.random.default_rng(seed), card_px)
        ys, xs = np.nonzero(np.any(img != 60, axis=2))
        assert len(xs) > 0
        shown += len(xs) > 0.2 * card_px ** 2  # (a sliver at a picture's corner, else)
        # The part in view hangs from an edge, and the sheet's corner nearest the
        # picture's middle lies off it: the rest of the sheet is out of the picture.
        assert xs.min() == 0 or ys.min() == 0 or xs.max() == 639 or ys.max() == 359
        assert not np.any(img[150:210, 290:350] != 60)
    assert shown >= 15


def test_sheet_corners_are_drawn_in_overlapping_scenes_only_when_asked():
    decks = scene_decks([2_000_300])
    for overlapping in (False, True):
        a = detection_scene(np.random.default_rng(3), decks, (256, 256), overlapping=overlapping)
        b = detection_scene(np.random.default_rng(3), decks, (256, 256), overlapping=overlapping,
                            sheet_edges=0.0)
        assert np.array_equal(a[0], b[0])
    drawn = [not np.array_equal(
        detection_scene(np.random.default_rng(s), decks, (256, 256), overlapping=True)[0],
        detection_scene(np.random.default_rng(s), decks, (256, 256), overlapping=True,
                        sheet_edges=1.0)[0]) for s in range(6)]
    assert all(drawn)


def test_the_report_threshold_is_the_lowest_within_the_false_budget_and_kept_in_the_json(
        tmp_path, monkeypatch):
    """``choose_threshold`` (``--evaluate``, and the end of every training run): a model
    written without its threshold would run at card_net's default."""
    import json

    from vision import detect_train

    out = tmp_path / "card_detect.tflite"
    out.with_suffix(".json").write_text(json.dumps({"seed": 9393}))
    figures = {"scenes": 300, "by_threshold": {
        "0.3": {"recall": 0.9, "false_per_scene": 0.12},
        "0.4": {"recall": 0.89, "false_per_scene": 0.06},
        "0.5": {"recall": 0.85, "false_per_scene": 0.033},
        "0.6": {"recall": 0.8, "false_per_scene": 0.02}}}
    monkeypatch.setattr(detect_train, "held_out", lambda path: dict(figures))
    assert detect_train.choose_threshold(out)["threshold"] == 0.5
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["threshold"] == 0.5 and meta["seed"] == 9393  # the training's own kept
    assert meta["held_out"]["by_threshold"]["0.4"]["false_per_scene"] == 0.06
    figures["by_threshold"] = {"0.5": {"recall": 0.9, "false_per_scene": 0.2}}
    assert detect_train.choose_threshold(out)["threshold"] == 0.5  # none within: 0.5


def test_averaged_weights_are_the_mean_and_a_file_given_twice_counts_twice(tmp_path):
    """``--average`` (weight averaging of runs from one start)."""
    import pytest

    pytest.importorskip("tensorflow", reason="TensorFlow comes with the [train] extra only")
    from vision.detect_train import average, build_model

    model, _ = build_model()
    first = model.get_weights()
    a, b = tmp_path / "a.weights.h5", tmp_path / "b.weights.h5"
    model.save_weights(str(a))
    model.set_weights([w + 3.0 for w in first])
    model.save_weights(str(b))
    average(model, [a, a, b])
    for got, w in zip(model.get_weights(), first, strict=True):
        np.testing.assert_allclose(got, w + 1.0, atol=1e-5)


def test_averaging_a_missing_weights_file_names_it_in_one_line(tmp_path, capsys):
    from vision.detect_train import main

    gone = tmp_path / "gone.weights.h5"
    assert main(["--average", str(gone), "--out", str(tmp_path / "m.tflite")]) == 2
    out = capsys.readouterr().out.strip()
    assert out == f"detect_train: no weights file at {gone}"
    assert not (tmp_path / "m.tflite").exists()


def test_averaging_what_is_not_this_networks_weights_says_so_in_one_line(tmp_path, capsys):
    import pytest

    pytest.importorskip("tensorflow", reason="TensorFlow comes with the [train] extra only")
    from vision.detect_train import main

    junk = tmp_path / "junk.weights.h5"
    junk.write_bytes(b"not an HDF5 file")
    assert main(["--average", str(junk), "--out", str(tmp_path / "m.tflite")]) == 2
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith(f"detect_train: cannot average {junk}")
    assert not (tmp_path / "m.tflite").exists()


def test_an_averaged_model_records_its_sources_and_seed(tmp_path, monkeypatch, capsys):
    """What ``--average`` writes beside the model (the exports themselves stubbed: the
    int8 models and held-out scenes take minutes)."""
    import json

    import pytest

    pytest.importorskip("tensorflow", reason="TensorFlow comes with the [train] extra only")
    from vision import detect_train

    model, _ = detect_train.build_model()
    a, b = tmp_path / "a" / "card_detect.weights.h5", tmp_path / "b" / "card_detect.weights.h5"
    a.parent.mkdir()
    b.parent.mkdir()
    model.save_weights(str(a))
    model.save_weights(str(b))
    (tmp_path / "a" / "card_detect.json").write_text(json.dumps({"seed": 9494}))
    (tmp_path / "b" / "card_detect.json").write_text("{broken")
    calls = []
    monkeypatch.setattr(detect_train, "export", lambda m, tf, out: out.write_bytes(b"m"))
    monkeypatch.setattr(detect_train, "export_fixed",
                        lambda m, tf, out, seed: calls.append(seed))
    monkeypatch.setattr(detect_train, "choose_threshold", lambda out: {"threshold": 0.5})
    out = tmp_path / "mean" / "card_detect.tflite"
    assert detect_train.main(["--average", str(a), str(b), "--seed", "8181",
                              "--out", str(out)]) == 0
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["seed"] == 8181 and calls == [8181] and meta["stride"] == detect_train.STRIDE
    assert [m["record"] for m in meta["averaged"]] == [{"seed": 9494}, None]
    assert [m["weights"] for m in meta["averaged"]] == [str(a), str(b)]
    assert out.with_suffix(".weights.h5").is_file()
    assert "the mean of 2 weights" in capsys.readouterr().out
