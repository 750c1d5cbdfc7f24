"""The detection benchmark: what hides a card partly seen; scenes scored as photographs."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_vision_detect import as_photos, hidden_by, photo_labels  # noqa: E402

from vision.detect_scenes import TruthCard  # noqa: E402

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


def _card(x0, y0, x1, y1, visible=1.0, back=False, code="3c"):
    return TruthCard(np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]), visible, back,
                     None if back else code)


def test_scenes_are_labelled_as_the_photographs_are():
    cards = [_card(100, 100, 200, 260), _card(300, 100, 400, 260, 0.6, code="7d"),
             _card(500, 100, 600, 260, 0.3), _card(700, 100, 800, 260, back=True),
             _card(1200, 600, 1400, 800, 0.5, code="1s")]  # a quarter in the picture
    labels, ignore = photo_labels(cards, W, H)
    assert [(lab["card"], lab["visible"]) for lab in labels] == \
        [("3c", "full"), ("7d", "partial"), ("1s", "partial")]
    assert labels[2]["box"] == [1200.0, 600.0, W - 1.0, H - 1.0]  # the box inside the picture
    assert ignore == [[500.0, 100.0, 600.0, 260.0]]  # a sliver: neither way; a back: no label


def _report(x0, y0, x1, y1, card=None, faint=False):
    return SimpleNamespace(corners=np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]),
                           identity=SimpleNamespace(card=card), faint=faint)


def test_scenes_are_scored_as_the_photographs_are():
    cards = [_card(100, 100, 200, 260), _card(300, 100, 400, 260, 0.6),
             _card(500, 100, 600, 260, 0.3), _card(700, 100, 800, 260, back=True)]
    reports = [_report(100, 100, 200, 260, "3c"),
               _report(110, 110, 190, 250),  # the same card again: a false report
               _report(520, 120, 580, 240),  # on the sliver: neither way
               _report(700, 100, 800, 260, "back"),  # named a back: left out
               _report(700, 100, 800, 260, faint=True),  # a back not named so: false
               _report(300, 100, 400, 260, "back")]  # the partly visible card taken for the back
    tally = Counter()
    as_photos(reports, cards, W, H, tally)
    assert (tally["found_full"], tally["full"], tally["found_partial"], tally["partial"],
            tally["false"]) == (1, 1, 0, 1, 2)
    # Where they lie: the second report on the labelled card, the back apart (and faint).
    assert (tally["false on a card"], tally["false apart"], tally["false faint"]) == (1, 1, 1)
    assert tally["false on a back"] == 1  # (the scenes know their face-down cards)
    assert tally["missed as backs"] == 1  # the face a report named the back covers
