"""The detection benchmark's breakdown of partly visible cards by what hides them."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_vision_detect import hidden_by  # noqa: E402

W, H = 1280, 720


def test_a_card_inside_the_picture_is_hidden_by_what_lies_on_it():
    card = np.float32([[100, 100], [300, 100], [300, 400], [100, 400]])
    assert hidden_by(card, 0.6, W, H) == "cover"


def test_a_card_the_edge_cuts_is_hidden_by_the_edge_alone_when_all_inside_shows():
    card = np.float32([[100, 520], [300, 520], [300, 820], [100, 820]])  # 2/3 inside
    assert hidden_by(card, 0.66, W, H) == "edge"
    assert hidden_by(card, 0.5, W, H) == "both"  # a quarter of what is inside covered


def test_a_card_across_a_corner_is_measured_by_its_share_inside():
    card = np.float32([[1180, 620], [1380, 620], [1380, 820], [1180, 820]])  # 1/4 inside
    assert hidden_by(card, 0.25, W, H) == "edge"
    assert hidden_by(card, 0.2, W, H) == "both"
