"""The procedural decks: deterministic, 40 distinct faces, styles that differ."""

from __future__ import annotations

import cv2
import numpy as np

from vision.deck_art import DeckStyle, render_back, render_card, render_deck


def test_rendering_is_deterministic():
    a = render_deck(DeckStyle.from_seed(42))
    b = render_deck(DeckStyle.from_seed(42))
    assert all(np.array_equal(a[k], b[k]) for k in a)


def test_forty_distinct_faces_and_a_back_per_style():
    for seed in (0, 3, 17):
        deck = render_deck(DeckStyle.from_seed(seed))
        assert len(deck) == 41
        flat = {k: cv2.resize(v, (40, 60), interpolation=cv2.INTER_AREA).astype(np.int16)
                for k, v in deck.items()}
        keys = sorted(flat)
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                diff = np.abs(flat[a] - flat[b]).mean()
                assert diff > 1.0, f"style {seed}: {a} and {b} look the same"


def test_builtin_style_is_napoletane_sized_and_styles_vary():
    s0 = DeckStyle.from_seed(0)
    w, h = s0.size
    assert abs(h / w - 89 / 58) < 0.01
    ratios = {round(DeckStyle.from_seed(s).ratio, 2) for s in range(1, 30)}
    assert len(ratios) > 10
    faces = [render_card(DeckStyle.from_seed(s), "5c") for s in range(1, 6)]
    sizes = {f.shape for f in faces}
    assert len(sizes) > 1
    backs = [render_back(DeckStyle.from_seed(s)) for s in range(1, 6)]
    assert len({b.tobytes() for b in backs}) == 5


def test_pip_count_changes_the_face():
    style = DeckStyle.from_seed(0)
    ink = [int((render_card(style, f"{r}d") < 200).any(axis=2).sum()) for r in range(1, 8)]
    # More coins, more ink (the ace is one big coin): 2 < 3 < ... < 7.
    assert ink[1:] == sorted(ink[1:])
