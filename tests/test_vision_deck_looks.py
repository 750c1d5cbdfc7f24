"""The printed decks' looks drawn on procedural decks for the detector's training."""

import numpy as np

from vision.deck_looks import busy_back, dress
from vision.detect_scenes import scene_decks


def test_undressed_decks_are_the_procedural_ones():
    # The benchmarks' scenes must not change when training asks for dressed decks.
    plain = scene_decks([2_000_011])[0]
    again = scene_decks([2_000_011], dressed=0.0)[0]
    assert all(np.array_equal(plain[c], again[c]) for c in plain)


def test_dressing_keeps_every_card_and_its_size_and_repeats_by_seed():
    plain = scene_decks([5])[0]
    a = dress(plain, np.random.default_rng(3))
    b = dress(plain, np.random.default_rng(3))
    assert a.keys() == plain.keys()
    assert all(a[c].shape == plain[c].shape and a[c].dtype == np.uint8 for c in a)
    assert all(np.array_equal(a[c], b[c]) for c in a)


def test_dressed_share_follows_the_seed_and_changes_the_looks():
    seeds = list(range(100, 160))
    plain, half, all_ = (scene_decks(seeds, dressed=d) for d in (0.0, 0.5, 1.0))

    def changed(decks):
        return sum(any(not np.array_equal(d[c], p[c]) for c in p)
                   for d, p in zip(decks, plain, strict=True))

    # Each look is drawn by chance, so a few dressed decks come out plain.
    assert changed(all_) >= 0.85 * len(seeds)
    assert 0.3 * len(seeds) < changed(half) < 0.7 * len(seeds)


def test_a_busy_back_is_busy_and_mirrored_ones_are_point_symmetric():
    for s in range(40):
        rng = np.random.default_rng(s)
        back = busy_back(rng, 64, 100)
        assert back.shape == (100, 64, 3)
        assert back.astype(np.float32).std() > 15  # not a plain card
    # Some of them are turned about the centre into their lower half, as real backs are.
    sym = 0
    for s in range(40):
        back = busy_back(np.random.default_rng(s), 64, 100).astype(np.int16)
        top, bottom = back[:45], back[55:][::-1, ::-1]
        sym += np.abs(top - bottom).mean() < 2
    assert 5 <= sym <= 30
