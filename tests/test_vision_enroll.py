"""Deck enrollment from a folder: every problem named, nothing written on error."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from table_controller.cli import main as cli_main
from table_controller.engine.cards import ALL_CARDS
from vision.deck import DeckFileError, EnrolledDeck
from vision.deck_art import DeckStyle, render_deck
from vision.enroll import EnrollmentError, enroll_directory, read_enrollment_dir


@pytest.fixture(scope="module")
def faces():
    return render_deck(DeckStyle.from_seed(1_000_321))  # a style training never saw


def _write_deck(folder, faces, ext=".png", skip=()):
    folder.mkdir(exist_ok=True)
    for code, img in faces.items():
        if code not in skip:
            cv2.imwrite(str(folder / f"{code}{ext}"), img)
    return folder


def test_missing_duplicate_and_unreadable_images_are_all_named(tmp_path, faces):
    d = _write_deck(tmp_path / "deck", faces, skip=("3c", "10b"))
    cv2.imwrite(str(d / "7S.jpg"), faces["7s"])  # second image for 7s
    (d / "4d.png").write_bytes(b"\x89PNG broken")
    cv2.imwrite(str(d / "9s.png"), faces["9b"])  # same picture as 9b
    (d / "notes.txt").write_text("ignored")
    with pytest.raises(EnrollmentError) as err:
        read_enrollment_dir(d)
    msg = str(err.value)
    assert "missing 2 card(s): 3c, 10b" in msg
    assert "duplicate images for 7s: 7S.jpg, 7s.png" in msg
    assert "unreadable image(s): 4d.png" in msg
    assert "9b.png and 9s.png are the same picture" in msg


def test_cli_enroll_error_exits_2_and_writes_nothing(tmp_path, faces, capsys):
    d = _write_deck(tmp_path / "deck", faces, skip=("1d",))
    out = tmp_path / "deck.npz"
    assert cli_main(["enroll", "--images", str(d), "--out", str(out)]) == 2
    assert "missing 1 card(s): 1d" in capsys.readouterr().err
    assert not out.exists() and not list(tmp_path.glob("*.npz*"))


def test_cli_enroll_missing_folder(tmp_path, capsys):
    assert cli_main(["enroll", "--images", str(tmp_path / "nope"), "--out",
                     str(tmp_path / "d.npz")]) == 2
    assert "not found" in capsys.readouterr().err


def test_enroll_round_trip(tmp_path, faces):
    d = _write_deck(tmp_path / "deck", faces, ext=".jpg")
    deck = enroll_directory(d)
    assert deck.codes == sorted(str(c) for c in ALL_CARDS)
    assert deck.has_back
    assert len(deck.labels) == 82  # each face and the back, upright and turned
    norms = np.linalg.norm(deck.embeddings, axis=1)
    assert np.allclose(norms, 1, atol=1e-4)
    path = deck.save(tmp_path / "deck.npz")
    again = EnrolledDeck.load(path)
    assert np.array_equal(again.labels, deck.labels)
    assert np.allclose(again.embeddings, deck.embeddings)
    assert again.ratio == pytest.approx(faces["1d"].shape[0] / faces["1d"].shape[1], rel=0.02)


def test_deck_from_another_model_is_refused(tmp_path, faces):
    deck = EnrolledDeck(np.eye(2, dtype=np.float32), np.array(["1d", "2d"]), "0" * 40)
    path = deck.save(tmp_path / "old.npz")
    with pytest.raises(DeckFileError, match="another recognition model"):
        from vision.embed import MODEL_PATH

        EnrolledDeck.load(path, MODEL_PATH)
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(DeckFileError, match="not a deck file"):
        EnrolledDeck.load(tmp_path / "junk.npz")


def test_guided_enrollment_asks_card_by_card_and_catches_repeats(faces):
    from vision.augment import random_texture
    from vision.guided import guided_enroll

    rng = np.random.default_rng(3)
    table = random_texture(rng, 480, 640)
    prompts: list[str] = []

    def photo(code):
        img = table.copy()
        card = cv2.resize(faces[code], (160, 245))
        img[100:345, 240:400] = card
        return img

    def frames():
        shown_wrong = False
        while True:
            m = re.search(r"(\d+[dcsb]|back)\)?$", prompts[-1])
            wanted = m.group(1) if m else None
            if wanted == "2d" and not shown_wrong:
                for _ in range(10):  # the player shows the 1d again by mistake
                    yield photo("1d")
                shown_wrong = True
                continue
            yield photo(wanted) if wanted else table

    deck = guided_enroll(frames(), prompts.append, codes=["1d", "2d", "back"], stable_frames=3,
                         timeout_s=20)
    assert [p for p in prompts if p.startswith("Show")][:2] == [
        "Show Ace of coins (1d)", "Show 2 of coins (2d)"]
    assert any(p.startswith("This looks like 1d") for p in prompts)
    assert sorted(set(deck.labels.tolist())) == ["1d", "2d", "back"]


def test_committed_builtin_deck_matches_the_committed_model():
    """After retraining, `python -m vision.enroll --builtin` must be run too."""
    from vision.deck import model_sha1
    from vision.embed import MODEL_PATH
    from vision.enroll import BUILTIN_PATH

    deck = EnrolledDeck.load(BUILTIN_PATH)
    assert deck.model_sha == model_sha1(MODEL_PATH)
    assert deck.codes == sorted(str(c) for c in ALL_CARDS) and deck.has_back
    assert deck.covered_embeddings is not None and len(deck.covered_labels) == 160


@pytest.fixture(scope="module")
def deck0():
    return render_deck(DeckStyle.from_seed(0))


def _photo(faces, seed: int):
    """A photo of one card lying on a table, as a player takes them (4:3 or 16:9,
    either way up), and the card's true corners."""
    from vision.scenes import card_photo

    codes = sorted(faces)
    size = [(1280, 720), (720, 1280), (1024, 768), (768, 1024)][seed % 4]
    img, truth = card_photo(faces[codes[seed % 40]], np.random.default_rng((5, seed)), size)
    return img, np.asarray(truth, np.float32).reshape(4, 2)


def _outline_used(monkeypatch, img) -> np.ndarray:
    import vision.enroll as enroll

    seen = []
    real = enroll.warp_card
    monkeypatch.setattr(enroll, "warp_card", lambda im, c, *a, **k: (seen.append(c),
                                                                      real(im, c, *a, **k))[1])
    enroll.card_shape(img)
    return seen[-1]


@pytest.mark.parametrize("seed", [13, 21, 58])
def test_an_enrollment_photo_whose_mask_outline_is_off_gets_the_cards_own(
        deck0, monkeypatch, seed):
    """The colour masks outline these photos' cards 30-65 px off (a corner ran into a
    shadow or a pale patch of the table): that reference would leave the card unknown
    at the table, or worse. The outline that lies on the card's edge all round is used."""
    from vision.detect import find_cards_classical, refine_corners

    img, truth = _photo(deck0, seed)
    quad = max(find_cards_classical(img, 0.02, 0.995, upright=False, solid=True),
               key=lambda q: q.area)
    rough = refine_corners(img, refine_corners(img, quad.corners))

    def err(c) -> float:
        return min(float(np.linalg.norm(np.roll(c, r, 0) - truth, axis=1).max())
                   for r in range(4))

    assert err(rough) > 25  # the failure is reproduced
    assert err(_outline_used(monkeypatch, img)) < 4


@pytest.mark.parametrize("seed", [7, 51, 71, 95])
def test_an_enrollment_photo_whose_outline_is_far_off_or_on_the_printed_frame_gets_the_edge(
        deck0, monkeypatch, seed):
    """These were refused (7, 51, 71: a mask corner ran into a pale patch of the table
    further than the usual reach of the corner refinement) or enrolled 18 px inside the
    card (95: the outline on its printed frame, which steps all round too). The card's
    own edge, the outermost, is found."""
    img, truth = _photo(deck0, seed)
    used = _outline_used(monkeypatch, img)
    assert min(float(np.linalg.norm(np.roll(used, r, 0) - truth, axis=1).max())
               for r in range(4)) < 4


def _on_a_sheet(seed: int, deck0):
    """A photo of one card with a sheet of its own paper's colour against one long side:
    no edge to see there."""
    img, truth = _photo(deck0, seed)
    centre = truth.mean(0)
    at = (0.75 * truth[1] + 0.25 * centre).astype(int)  # the paper inside a corner
    paper = np.median(img[at[1] - 2:at[1] + 2, at[0] - 2:at[0] + 2].reshape(-1, 3), 0)
    out = (truth[1] + truth[2]) / 2 - centre
    sheet = np.array([truth[1], truth[2], truth[2] + 2.5 * out, truth[1] + 2.5 * out])
    cv2.fillPoly(img, [sheet.astype(np.int32)], paper.tolist())
    return img


@pytest.mark.parametrize("seed", [3, 7])
def test_an_enrollment_photo_whose_card_edge_is_unclear_is_refused_and_named(
        deck0, tmp_path, seed):
    """The card's side merges with a sheet of the same paper: the file is refused and
    named by enroll_directory, not enrolled a few pixels off."""
    from vision.enroll import NoCardFound, card_shape

    img = _on_a_sheet(seed, deck0)
    with pytest.raises(NoCardFound):
        card_shape(img)
    lost = sorted(deck0)[seed % 40]  # the card _photo lays on the table
    for code, face in deck0.items():
        if code != lost:
            cv2.imwrite(str(tmp_path / f"{code}.png"), face)
    cv2.imwrite(str(tmp_path / f"{lost}.jpg"), img)
    with pytest.raises(EnrollmentError, match=rf"no card found in {lost}\.jpg \("):
        enroll_directory(tmp_path)


@pytest.mark.parametrize("seed, fooled", [(11, True), (14, False), (60, True)])
def test_a_16_9_photo_of_a_card_is_not_taken_for_a_scan(deck0, monkeypatch, seed, fooled):
    """A 16:9 photo has a card's proportions: these were taken whole as the card's scan
    (a photo of the table as the reference). The card lying in them is rectified: by the
    learned detector where the picture alone looks like a scan (``fooled``), and where
    the card's white border is whiter than a pale cloth reaching the picture's edge
    (seed 14: a figure, mostly ink, on beige), by that alone."""
    from vision.detect import find_cards_classical
    from vision.enroll import _is_scan
    from vision.scenes import card_photo

    codes = sorted(deck0)
    size = [(1280, 720), (720, 1280)][seed % 2]
    img, truth = card_photo(deck0[codes[seed % 40]], np.random.default_rng((6, seed)), size)
    quads = find_cards_classical(img, 0.02, 0.995, upright=False, solid=True)  # as enroll does
    assert _is_scan(img, max(quads, key=lambda q: q.area) if quads else None) == fooled
    used = _outline_used(monkeypatch, img)
    truth = np.asarray(truth, np.float32).reshape(4, 2)
    assert min(float(np.linalg.norm(np.roll(used, r, 0) - truth, axis=1).max())
               for r in range(4)) < 4
