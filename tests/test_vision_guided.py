"""Guided live enrollment from a scripted camera: refusals said, re-takes, the deck."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from firmware_bridge.words import fold
from vision.deck_art import DeckStyle, render_deck
from vision.guided import EnrollSession, guided_enroll, sharpness
from vision.scenes import card_photo
from web_dashboard import i18n

SIZE = (640, 480)


@pytest.fixture(scope="module")
def faces():
    return render_deck(DeckStyle.from_seed(1_000_003))


def photo(faces, code, seed=11):
    img, _ = card_photo(faces[code], np.random.default_rng(seed), SIZE, fill=0.5)
    return img


def half_out(img):
    """The card pushed half out of the frame's left edge; table fills the right."""
    h, w = img.shape[:2]
    dx = 300
    out = np.empty_like(img)
    out[:, :w - dx] = img[:, dx:]
    out[:, w - dx:] = cv2.resize(img[:, :150], (dx, h))
    return out


class Camera:
    """Shows what the last request asked for; the bad views first, 12 frames each."""

    def __init__(self, faces, prompts, bad=None, seeds=None):
        self.faces, self.prompts = faces, prompts
        self.bad = {k: list(v) for k, v in (bad or {}).items()}
        self.seeds = seeds or {}
        self.asked: list[str] = []

    def __iter__(self):
        while True:
            m = None
            for text in reversed(self.prompts):
                m = re.search(r"\((\d+[dcsb]|back)\)$", text) or re.match(
                    r"Again: (\S+)$", text) or re.search(r"show (\S+)$", text)
                if m:
                    break
            want = m.group(1)
            if self.bad.get(want):
                view = self.bad[want].pop(0)
                for _ in range(12):
                    yield view
                continue
            yield photo(self.faces, want, self.seeds.get(want, 11))


def test_blurred_partial_and_repeated_captures_are_refused_with_their_reason(faces):
    prompts: list[str] = []
    shown: list[tuple[str, ...]] = []
    good1d = photo(faces, "1d")
    bad = {"1d": [cv2.GaussianBlur(good1d, (0, 0), 3.0)],
           "2d": [half_out(photo(faces, "2d")), good1d]}  # then the 1d again by mistake
    session = EnrollSession(["1d", "2d", "3d", "back"])
    deck = guided_enroll(Camera(faces, prompts, bad), prompts.append,
                         codes=["1d", "2d", "3d", "back"], stable_frames=3, timeout_s=30,
                         show=lambda *lines: shown.append(lines), session=session)
    assert [(r.code, r.reason, r.other) for r in session.refusals] == [
        ("1d", "blurred", None), ("2d", "partial", None), ("2d", "duplicate", "1d")]
    assert any(p.startswith("Blurred") and p.endswith("show 1d") for p in prompts)
    assert any(p.startswith("Not whole in view") for p in prompts)
    assert "This looks like 1d, already captured: show 2d" in prompts
    # Said in the terminal's language, and on the display in the table's.
    said = [i18n.said("it", p) for p in prompts]
    assert "Questa sembra 1d, già presa: mostra 2d" in said
    assert any(p.startswith("Sfocata") and p.endswith("mostra 1d") for p in said)
    assert "Mostra Asso di denari (1d)" in said and "Mostra il dorso (back)" in said
    assert ("Montrez 1d", "seule, a plat, fixe") in [
        tuple(fold(i18n.said("fr", line)) for line in lines) for lines in shown]
    assert ("2d: 1d già presa", "Mostra 2d") in [
        tuple(i18n.said("it", line) for line in lines) for lines in shown]
    # The display said each request and each refusal, in lines that fit it.
    assert ("Show 1d", "alone, flat, still") in shown and ("2d: already have 1d", "Show 2d") \
        in shown
    assert all(len(line) <= 21 for lines in shown for line in lines)
    assert sorted(set(deck.labels.tolist())) == ["1d", "2d", "3d", "back"]
    snap = session.snapshot()
    assert snap["done"] and snap["captured"] == ["1d", "2d", "3d", "back"] and snap["report"]
    assert session.capture_png("2d")[:4] == b"\x89PNG"


def test_a_captured_card_is_taken_again_when_asked(faces):
    prompts: list[str] = []
    session = EnrollSession(["1d", "2d", "3d"])
    assert session.retake("1d") == "1d has not been captured yet"
    assert session.retake("9x") and session.retake("9b") == "9b is not part of this enrollment"
    typed = iter([None] * 0)

    def terminal():  # "1d" + Enter, once 2d has been captured
        nonlocal typed
        if "2d" in session.patches and not getattr(terminal, "done", False):
            terminal.done = True
            return "1d"
        return next(typed, None)

    first: dict[str, np.ndarray] = {}
    camera = Camera(faces, prompts, seeds={"1d": 11})

    def watch(text):
        prompts.append(text)
        if text.startswith("1d OK") and not first:
            first["1d"] = session.patches["1d"].copy()
            camera.seeds["1d"] = 29  # the re-take is another photo

    deck = guided_enroll(camera, watch, codes=["1d", "2d", "3d"], stable_frames=3,
                         timeout_s=30, session=session, retakes=terminal)
    asked = [p for p in prompts if p.startswith(("Show", "Again"))]
    assert asked == ["Show Ace of coins (1d)", "Show 2 of coins (2d)",
                     "Again: 1d", "Show Ace of coins (1d)", "Show 3 of coins (3d)"]
    assert [i18n.said("it", p) for p in asked] == [
        "Mostra Asso di denari (1d)", "Mostra 2 di denari (2d)", "Di nuovo: 1d",
        "Mostra Asso di denari (1d)", "Mostra 3 di denari (3d)"]
    assert not np.array_equal(session.patches["1d"], first["1d"])
    assert sorted(set(deck.labels.tolist())) == ["1d", "2d", "3d"]


def test_the_blur_level_separates_sharp_from_blurred_captures(faces):
    from vision.detect import find_cards, warp_card

    for code in ("1d", "7c", "10s", "5b"):  # (a back's fine pattern: see vision/guided.py)
        img = photo(faces, code)
        q = find_cards(img)[0]
        sharp = sharpness(warp_card(img, q.corners, (128, 192)))
        blurred = cv2.GaussianBlur(img, (0, 0), 3.0)
        qb = find_cards(blurred)[0]
        soft = sharpness(warp_card(blurred, qb.corners, (128, 192)))
        assert soft < 0.012 <= sharp, (code, sharp, soft)


def test_the_phone_shows_the_enrollment_and_re_takes_a_card_with_the_pin(tmp_path, faces):
    from web_dashboard import create_app
    from web_dashboard.enroll import set_enrollment

    app = create_app({"DATABASE": str(tmp_path / "d.sqlite3"), "TESTING": True})
    client = app.test_client()
    assert "No enrollment is running" in client.get("/enroll",
                                                    headers={"Accept-Language": "en"}).text
    session = EnrollSession(["1d", "2d"])
    prompts: list[str] = []
    bad = {"2d": [photo(faces, "1d")]}
    camera = iter(Camera(faces, prompts, bad))
    # Enroll 1d, then stop while 2d is refused: what a phone sees mid-enrollment.
    import itertools

    with pytest.raises(Exception, match="camera stopped"):
        guided_enroll(itertools.islice(camera, 15), prompts.append, codes=["1d", "2d"],
                      stable_frames=3, timeout_s=30, session=session)
    set_enrollment(app, session)
    page = client.get("/enroll", headers={"Accept-Language": "en"}).text
    assert "Show 2 of coins" in page and 'data-card="1d"' in page
    assert "Capture refused: this is Ace of coins, already captured." in page
    assert client.get("/enroll/capture/1d.png").data[:4] == b"\x89PNG"
    assert client.get("/enroll/capture/2d.png").status_code == 404
    assert "Re-take" not in page  # locked: no button, a link to unlock
    app.extensions["pin"].set("2468")
    token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/unlock").text).group(1)
    client.post("/unlock", data={"pin": "2468", "csrf_token": token, "next": "/enroll"})
    page = client.get("/enroll", headers={"Accept-Language": "en"}).text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    assert "Re-take" in page
    r = client.post("/enroll/retake", data={"code": "1d", "csrf_token": token},
                    headers={"Accept-Language": "en"}, follow_redirects=True)
    assert "Ace of coins will be asked again." in r.text
    assert session.next_retake() == "1d"
    r = client.post("/enroll/retake", data={"code": "2d", "csrf_token": token},
                    headers={"Accept-Language": "en"}, follow_redirects=True)
    assert "2d has not been captured yet" in r.text
    r = client.post("/enroll/retake", data={"code": "2d", "csrf_token": token},
                    headers={"Accept-Language": "fr"}, follow_redirects=True)
    assert "2d n&#39;a pas encore été prise" in r.text  # the phone's language
