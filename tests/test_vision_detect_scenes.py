"""The detector's training scenes: overlapping layouts on request, the rest as ever."""

from __future__ import annotations

import numpy as np

from vision.detect_scenes import LAYOUT_P, OVERLAPPING_P, detection_scene, scene_decks
from vision.detect_train import _make


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
