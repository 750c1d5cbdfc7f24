"""Recognition on decks the model never saw, backs, the half-covered briscola, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from table_controller.cli import main as cli_main
from table_controller.engine.cards import ALL_CARDS
from vision.augment import random_texture
from vision.deck_art import CARD_H_MM, CARD_W_MM, DeckStyle, render_deck
from vision.detect import order_corners, warp_card
from vision.embed import Embedder
from vision.enroll import builtin_deck, builtin_faces, card_patch, enroll_patches
from vision.observer import TableObserver, seat_zones_for
from vision.recognize import Recognizer, find_and_identify
from vision.scenes import PlacedCard, camera_homography, paste_cards, render, scatter
from vision.simtable import SimulatedTable
from vision.tracker import UNKNOWN
from vision.train import VAL_SEED0

ROOT = Path(__file__).resolve().parents[1]
NAPOLETANE = ROOT.parent / "shared" / "decks" / "napoletane"
CODES = [str(c) for c in ALL_CARDS]


@pytest.fixture(scope="module")
def embedder():
    return Embedder()


def _recognizer(faces, embedder):
    return Recognizer(enroll_patches({c: card_patch(f) for c, f in faces.items()}, embedder),
                      embedder)


def _napoletane():
    if not (NAPOLETANE / "1d.jpg").is_file():
        pytest.skip(f"real deck art not found at {NAPOLETANE}: it lives in ../shared/decks "
                    "beside the repository")
    faces = {c: cv2.imread(str(NAPOLETANE / f"{c}.jpg")) for c in CODES}
    faces["back"] = cv2.imread(str(NAPOLETANE / "back.jpg"))
    return faces


def _photos(faces, n, seed, codes_per_photo=4, backs=0):
    """Photos of random cards on random tables; yields (image, placed cards fully in view)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        plane_mm, ppm = (520.0, 320.0), 3.0
        plane = random_texture(rng, int(plane_mm[1] * ppm), int(plane_mm[0] * ppm))
        picked = list(rng.choice(CODES, codes_per_photo, replace=False)) + ["back"] * backs
        cards = scatter(rng, picked, plane_mm)
        h = camera_homography(plane_mm, ppm, (1280, 720), tilt=rng.uniform(0, 30),
                              yaw=rng.uniform(0, 360), roll=rng.uniform(-180, 180), fill=1.1)
        img = render(plane, ppm, faces, cards, h, (1280, 720), rng)
        inside = [c for c in cards if c.corners.min() > 2 and c.corners[:, 0].max() < 1278
                  and c.corners[:, 1].max() < 718]
        yield img, inside


def _score(rec, photos):
    found = named = wrong = 0
    total = 0
    for img, cards in photos:
        seen = find_and_identify(img, rec)
        for c in cards:
            if c.code == "back":
                continue
            total += 1
            poly = c.corners.reshape(-1, 1, 2).astype(np.float32)
            hit = [s for s in seen if cv2.pointPolygonTest(
                poly, tuple(float(v) for v in s.corners.mean(0)), False) >= 0]
            if hit:
                found += 1
                if hit[0].identity.card is not None:
                    named += 1
                    wrong += hit[0].identity.card != c.code
    return total, found, named, wrong


def test_a_deck_style_never_trained_on(embedder):
    faces = render_deck(DeckStyle.from_seed(VAL_SEED0 + 777))
    rec = _recognizer(faces, embedder)
    total, found, named, wrong = _score(rec, _photos(faces, 6, seed=11))
    assert total >= 20
    assert found >= 0.9 * total
    assert wrong == 0
    assert named >= 0.9 * found


def test_real_napoletane_deck(embedder):
    faces = _napoletane()
    rec = _recognizer(faces, embedder)
    total, found, named, wrong = _score(rec, _photos(faces, 6, seed=12))
    assert total >= 20
    assert found >= 0.9 * total
    assert wrong == 0
    assert named >= 0.85 * found


@pytest.mark.parametrize("deck", ["builtin", "unseen", "napoletane"])
def test_backs_are_never_reported_as_faces(embedder, deck):
    faces = {"builtin": builtin_faces, "napoletane": _napoletane,
             "unseen": lambda: render_deck(DeckStyle.from_seed(VAL_SEED0 + 778))}[deck]()
    rec = _recognizer(faces, embedder)
    reports = 0
    for img, _ in _photos(faces, 4, seed=13, codes_per_photo=0, backs=4):
        seen = find_and_identify(img, rec)
        reports += sum(rec.is_face(s.identity) for s in seen)
    assert reports == 0
    # Patches of the back straight from the art: named "back", never a face.
    ids = rec.identify(np.stack([card_patch(faces["back"])] * 2))
    assert all(i.card == "back" for i in ids)


def test_table_texture_and_hands_are_not_cards(embedder):
    rec = Recognizer(builtin_deck(embedder), embedder)
    rng = np.random.default_rng(5)
    from vision.augment import draw_hand

    patches = []
    for _ in range(20):
        p = random_texture(rng, 96, 64)
        if rng.random() < 0.5:
            draw_hand(p, rng, 40)
        patches.append(p)
    assert not any(rec.is_face(i) for i in rec.identify(np.stack(patches)))


def test_crosswise_briscola_half_under_the_stock(embedder):
    """The briscola is read from the half that sticks out from under the stock."""
    faces = builtin_faces()
    rec = Recognizer(builtin_deck(embedder), embedder)
    rng = np.random.default_rng(21)
    ppm = 3.0
    plane = np.full((int(200 * ppm), int(250 * ppm), 3), (40, 110, 60), np.uint8)
    good = 0
    cards = ["1d", "3c", "7s", "10b", "8d", "9s", "4b", "2c"]
    for code in cards:
        brisc = PlacedCard(code, (130.0, 100.0), 90.0 + rng.uniform(-3, 3))
        stock = [PlacedCard("back", (130.0 - 30 + 0.5 * i, 100.0 - 0.5 * i), rng.uniform(-2, 2))
                 for i in range(3)]
        top = paste_cards(plane, ppm, faces, [brisc, *stock])
        # The whole card's outline, as the table observer extends it from the visible end.
        from vision.scenes import card_corners_mm

        quad = card_corners_mm(brisc.center_mm, brisc.angle, (CARD_W_MM, CARD_H_MM)) * ppm
        ident = rec.identify(warp_card(top, order_corners(quad))[None], half_covered=True)[0]
        assert ident.card in (code, None), f"briscola {code} read as {ident.card}"
        good += ident.card == code
    assert good >= len(cards) - 1


def _stock_laid(sim):
    """The first frame with the stock lying on the briscola and no hand over the mat."""
    trump = None
    for spec, img in sim.frames():
        trump = trump or next((te.event["card"] for te in spec.truth
                               if te.event["type"] == "trump"), None)
        if "stock" in sim._cards and spec.hand is None:
            return spec, img, trump
    raise AssertionError("the simulated hand never laid the stock")


@pytest.mark.parametrize("tilt", [0.0, 25.0])
def test_crosswise_briscola_through_the_camera(embedder, tilt):
    """The briscola half under the stock, read from the simulated camera's frames (tilted,
    lit, noisy) by an observer that never saw it whole (a restart): named among the cards
    the rules allow there, and told apart from the 7 and 2 of trump a swap would leave.
    The built-in 6 shows the same half as the 7 (its seventh pip is the one covered): a 6
    may stay unknown, never be read as the 7."""
    rec = Recognizer(builtin_deck(embedder), embedder)
    named = asked = 0
    for seed in range(8):
        sim = SimulatedTable(players=2, seed=40 + seed, pace="fast", hands=1, bumps=False,
                             tilt=tilt)
        spec, img, trump = _stock_laid(sim)
        suit = trump[-1]
        others = [c for c in (f"7{suit}", f"2{suit}") if c != trump]
        # The referee's belief first: the card itself, or a swapped-in card it replaced.
        for hint in ((trump, *others), (*others, trump)):
            obs = TableObserver(sim.layout, rec, seat_zones_for(2),
                                briscola_hint=lambda hint=hint: hint)
            seen = obs.observe(img, spec.t)
            assert seen is not None
            zone = seen.zones["briscola"]
            assert zone.content in (trump, UNKNOWN), f"briscola {trump} read as {zone.content}"
            if trump[0] != "6":
                asked += 1
                named += zone.content == trump
        # Without the rules' candidates the half is not guessed at.
        blind = TableObserver(sim.layout, rec, seat_zones_for(2)).observe(img, spec.t)
        assert blind.zones["briscola"].content in (UNKNOWN, None)
    assert asked >= 12 and named == asked


def test_cli_recognize_json(tmp_path, capsys):
    faces = builtin_faces()
    img, cards = next(_photos(faces, 1, seed=31))
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert cli_main(["recognize", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 1 and out[0]["image"] == str(path) and out[0]["ms"] > 0
    got = out[0]["cards"]
    assert all(set(c) == {"card", "confidence", "corners", "visible"}
               and len(c["corners"]) == 4 for c in got)
    assert all(c["visible"] > 0.85 for c in got)  # the scene's cards lie whole in view
    truth = sorted(c.code for c in cards if c.code != "back")
    assert sorted(c["card"] for c in got if c["card"]) == truth


def test_cli_recognize_bad_inputs(tmp_path, capsys):
    assert cli_main(["recognize", str(tmp_path / "missing.jpg")]) == 2
    assert "cannot read image" in capsys.readouterr().err
    assert cli_main(["recognize", "--deck", str(tmp_path / "none.npz"), "x.jpg"]) == 2
    assert "deck file not found" in capsys.readouterr().err


def test_a_tight_crop_is_one_card_and_a_bare_table_is_none(tmp_path, capsys):
    """A scan or a crop of one card has nothing around it to find it against: it is named
    whole when it is plainly a face of the deck; a picture of cloth is no card."""
    faces = builtin_faces()
    crop, cloth = tmp_path / "crop.png", tmp_path / "cloth.png"
    cv2.imwrite(str(crop), faces["7s"])
    rng = np.random.default_rng(4)
    felt = np.clip(rng.normal((60, 110, 40), 6, (360, 640, 3)), 0, 255).astype(np.uint8)
    cv2.imwrite(str(cloth), felt)
    assert cli_main(["recognize", str(crop), str(cloth), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["card"] for c in out[0]["cards"]] == ["7s"]
    assert out[1]["cards"] == []


def _benchmark_scene(faces, seed: tuple[int, ...], k: int):
    """Scene ``k`` of ``bench_vision_recognition.py``'s photos for ``seed`` (four faces
    and a back on a random table), with its placed cards."""
    rng = np.random.default_rng(seed)
    plane_mm, ppm = (560.0, 340.0), 3.0
    for _ in range(k + 1):
        plane = random_texture(rng, int(plane_mm[1] * ppm), int(plane_mm[0] * ppm))
        cards = scatter(rng, [*rng.choice(CODES, 4, replace=False), "back"], plane_mm)
        h = camera_homography(plane_mm, ppm, (1280, 720), tilt=rng.uniform(0, 30),
                              yaw=rng.uniform(0, 360), roll=rng.uniform(-180, 180), fill=1.15)
        img = render(plane, ppm, faces, cards, h, (1280, 720), rng)
    return img, {c.code: c for c in cards}


def test_a_name_that_changes_with_the_card_s_way_up_is_not_given(embedder):
    """The recognition benchmark's fresh seed 4646, procedural style 1000505, scene 29: a
    5 of cups 95 px long on purple cloth, outlined 8% short at one end. Its patch read
    as the 5 at contrast 0.81 one way up and as a 4, turned, at 0.38 the other: the
    alignment decided, not the card. The verifier now aligns both likeliest cards both
    ways up, so the turned patch is no longer named a 4; and were it named another card
    anyway, ``_both_ways`` withdraws the name and offers both. The card is never a 4."""
    from dataclasses import replace

    from vision.recognize import _both_ways

    style = VAL_SEED0 + 505
    faces = render_deck(DeckStyle.from_seed(style))
    rec = _recognizer(faces, embedder)
    img, cards = _benchmark_scene(faces, (4646, style), 29)
    assert "5c" in cards
    outline = np.float32([[859.4, 568.2], [838.0, 519.7], [911.0, 474.1], [927.1, 515.2]])
    names = {turn: rec.identify(warp_card(img, np.roll(outline, turn, axis=0))[None])[0]
             for turn in (0, 2)}
    assert names[0].card == "5c" and names[2].card in (None, "5c")
    q = type("Quad", (), {"corners": outline})()

    class Misreads:  # the patch turned read as another card, as before the fix
        def __init__(self, card):
            self.card = card

        def identify(self, patches):
            assert len(patches) == 1
            return [replace(names[0], card=self.card)]

    assert _both_ways(img, q, names[0], Misreads("4c")).card is None
    assert set(_both_ways(img, q, names[0], Misreads("4c")).candidates) == {"5c", "4c"}
    assert _both_ways(img, q, names[0], Misreads("5c")) == names[0]
    assert _both_ways(img, q, names[0], Misreads(None)) == names[0]
    seen = find_and_identify(img, rec)
    assert "4c" not in {s.identity.card for s in seen}
    centre = tuple(map(float, cards["5c"].corners.mean(0)))
    assert any(cv2.pointPolygonTest(np.float32(s.corners), centre, False) > 0 for s in seen)
