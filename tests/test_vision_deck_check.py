"""The deck check after enrollment: the player is told what to expect."""

from __future__ import annotations

import pytest

from table_controller.cli import main as cli_main
from vision.deck import EnrolledDeck
from vision.deck_check import check_deck
from vision.embed import Embedder
from vision.enroll import builtin_deck


@pytest.fixture(scope="module")
def report():
    return check_deck(builtin_deck(Embedder()))


def test_self_test_on_damaged_views_names_nothing_wrong(report):
    assert report.faces == 40 and report.views == 200
    assert report.wrong == []
    assert report.right + report.unknown == report.views
    assert report.accuracy >= 0.9


def test_hard_pairs_are_the_cards_one_pip_apart(report):
    """The built-in deck's 4 and 5 of swords differ by the centre pip: the closest pair
    by the recognizer's deciding pixels, and the check says so."""
    pairs = {frozenset(p) for p in report.hard_pairs}
    assert frozenset(("4s", "5s")) in pairs
    # Only look-alikes: every hard pair shares a rank or a suit.
    assert all(a[:-1] == b[:-1] or a[-1] == b[-1] for a, b in report.hard_pairs)


def test_cards_that_show_the_same_half_under_the_stock(report):
    """The built-in 6 shows the same half as the 7 of its suit (its seventh pip is the one
    the stock covers); the 7 and 2 of a suit are told apart."""
    same = {frozenset(p) for p in report.same_half}
    assert frozenset(("6s", "7s")) in same
    assert not any("2" in {a[:-1], b[:-1]} for a, b in report.same_half)
    text = "\n".join(report.lines())
    assert "6s/7s" in text and "0 wrong" in text


def test_cli_prints_the_check_after_enrolling_a_folder(tmp_path, capsys):
    import cv2

    from vision.enroll import builtin_faces

    folder = tmp_path / "deck"
    folder.mkdir()
    for code, img in builtin_faces().items():
        cv2.imwrite(str(folder / f"{code}.png"), img)
    assert cli_main(["enroll", "--images", str(folder), "--out", str(tmp_path / "d.npz")]) == 0
    out = capsys.readouterr().out
    assert "Deck check: 40 faces" in out and "named right" in out
    assert EnrolledDeck.load(tmp_path / "d.npz").codes


def test_deck_check_cli(tmp_path, capsys):
    from vision.deck_check import main

    assert main([str(tmp_path / "none.npz")]) == 2
    assert "not found" in capsys.readouterr().err
