"""Guided live enrollment at the table: the camera captures the deck card by card.

``briscola-table enroll --camera SOURCE --out deck.npz``. For each card the request
goes to the terminal, the table's display (``show``: ``Indicators.text``) and the
phone (the dashboard's ``/enroll`` page, through :class:`EnrollSession`). A card is
captured once it lies still, alone and whole in view; a capture is refused, and the
reason said, when it is

- **blurred**: the variance of the Laplacian of the rectified card, over its
  contrast, is below ``BLUR_LEVEL`` (sharp captures of the procedural and built-in
  decks measure 0.025-0.09, a frame blurred by 2.5 px 0.002-0.01) or below a quarter
  of the median of the captures accepted so far (known gap: a back's fine pattern
  keeps its ratio when blurred, so a blurred back can pass);
- **partly visible**: the card's outline touches the frame's edge (or a light,
  card-sized piece lies against it), or something overlaps the card (its outline is
  not full: a hand, another object);
- **a duplicate**: ``vision.verify.FaceTemplates`` over the faces captured so far
  finds one at aligned similarity ``DUPLICATE_SIMILARITY`` (0.93) or more. Its
  verdict's name alone is not enough: the card shown is not among those faces, and
  the verifier then names its nearest lookalike (a new 4d "is" the 5d at 0.87).

Any captured card can be taken again: from the phone (a "re-take" button, PIN) or
by typing its code and Enter in the terminal; it is asked next. At the end the deck
is checked (``vision.deck_check``) and its report shown.

Every request and refusal is a ``Say`` (``table_controller.engine.words``): English as
a ``str``, and the catalog's msgid with its values, so that the command says it in the
terminal's language and the table's display in the table's (``say_in("display", ...)``:
the display's short lines, measured in tests/test_display_words.py). This floor knows no
language (tests/test_layers.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from table_controller.engine.cards import ALL_CARDS, Card, CardError
from table_controller.engine.words import Say, say_in, say_n
from vision.deck import BACK, EnrolledDeck
from vision.detect import find_cards_classical, warp_card
from vision.embed import Embedder

BLUR_LEVEL = 0.012  # var(Laplacian) / contrast of a sharp capture: >= 0.025 measured
BLUR_RELATIVE = 0.25  # ... and at least this share of the accepted captures' median
DUPLICATE_SIMILARITY = 0.93  # aligned similarity to a captured face: the same card
EDGE_FRAC = 0.01  # a corner this close to the frame's edge (of its short side): cut off
FULL_FILL = 0.95  # the card's blob fills its outline at least this much when unhidden


def _reason(reason: str, card: str, other: str | None) -> tuple[Say, Say]:
    """Why a capture is refused: the terminal's words, and the display's (short); each
    names the card asked for (``card``) and, for a duplicate, the one it is (``other``)."""
    if reason == "blurred":
        return (Say("Blurred: hold the camera still, or give it more light"),
                say_in("display", "{card}: blurred", card=card))
    if reason == "partial":
        return (Say("Not whole in view: move it to the centre"),
                say_in("display", "{card}: not all in view", card=card))
    if reason == "covered":
        return (Say("Something covers it: take your hand away"),
                say_in("display", "{card}: covered", card=card))
    return (Say("This looks like {other}, already captured", other=other),
            say_in("display", "{card}: already have {other}", card=card, other=other))


REASONS = ("blurred", "partial", "covered", "duplicate")  # why a capture is refused


def card_label(code: str) -> Say | Card:
    """The card asked for, as a person reads it: named in the reader's language."""
    return Say("the back") if code == BACK else Card.parse(code)


def sharpness(patch: np.ndarray) -> float:
    """Variance of the Laplacian of the rectified card (its printed border left out),
    over the card's contrast: a face with few pips is not blurred for that."""
    g = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    h, w = g.shape
    g = g[h // 12:h - h // 12, w // 12:w - w // 12]
    return float(cv2.Laplacian(g, cv2.CV_32F).var() / (g.var() + 25.0))


@dataclass
class Refusal:
    code: str  # the card asked for
    reason: str  # one of REASONS
    other: str | None = None  # for a duplicate: the card it is


class EnrollSession:
    """What the enrollment shows and takes from outside (the phone, the terminal); safe
    to share between the enrolling thread and the dashboard's."""

    def __init__(self, wanted: list[str]) -> None:
        self.wanted = list(wanted)
        self.patches: dict[str, np.ndarray] = {}
        self.asking: str | None = None
        self.last: str | None = None  # the card captured last
        self.refusal: Refusal | None = None
        self.refusals: list[Refusal] = []
        self.report: list[str] = []
        self.done = False
        self._retakes: list[str] = []
        self._lock = threading.Lock()

    def retake(self, code: str) -> Say | None:
        """Ask for ``code`` again; an error line when it cannot be."""
        code = code.strip().lower()
        if code != BACK:
            try:
                code = str(Card.parse(code))
            except CardError:
                return Say("{value} is not a card code such as \"6c\"", value=repr(code))
        with self._lock:
            if code not in self.wanted:
                return Say("{card} is not part of this enrollment", card=code)
            if code not in self.patches:
                return Say("{card} has not been captured yet", card=code)
            if code not in self._retakes:
                self._retakes.append(code)
        return None

    def next_retake(self) -> str | None:
        with self._lock:
            return self._retakes.pop(0) if self._retakes else None

    def capture_png(self, code: str) -> bytes | None:
        with self._lock:
            patch = self.patches.get(code)
        if patch is None:
            return None
        big = cv2.resize(patch, (patch.shape[1] * 2, patch.shape[0] * 2),
                         interpolation=cv2.INTER_NEAREST)
        return cv2.imencode(".png", big)[1].tobytes()

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            r = self.refusal
            return {"asking": self.asking, "last": self.last,
                    "captured": [c for c in self.wanted if c in self.patches],
                    "missing": [c for c in self.wanted if c not in self.patches],
                    "refusal": None if r is None else {"code": r.code, "reason": r.reason,
                                                       "other": r.other},
                    "report": list(self.report), "done": self.done}


def _touches_edge(corners: np.ndarray, shape: tuple[int, ...]) -> bool:
    h, w = shape[:2]
    m = EDGE_FRAC * min(h, w)
    return bool((corners[:, 0] < m).any() or (corners[:, 0] > w - 1 - m).any()
                or (corners[:, 1] < m).any() or (corners[:, 1] > h - 1 - m).any())


def _piece_at_edge(frame: np.ndarray, card_area: float | None) -> bool:
    """A light, card-like piece lies against the frame's edge (a card half out of view,
    which the detector, looking for whole cards, does not report)."""
    h, w = frame.shape[:2]
    scale = 320 / max(h, w)
    small = cv2.resize(frame, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    light = lab[..., 0].astype(np.int16) - cv2.medianBlur(lab[..., 0], 61).astype(np.int16)
    mask = ((light > 25) & (lab[..., 0] > 150)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    sh, sw = mask.shape
    need = 0.25 * (card_area * scale * scale if card_area else 0.03 * sh * sw)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        at_edge = x == 0 or y == 0 or x + bw >= sw or y + bh >= sh
        if at_edge and area >= need and area >= 0.6 * bw * bh:
            return True
    return False


def guided_enroll(frames: Iterable[np.ndarray], prompt: Callable[[str], None],
                  embedder: Embedder | None = None, stable_frames: int = 8,
                  still_px: float = 4.0, timeout_s: float = 120.0,
                  codes: Iterable[str] | None = None, *,
                  show: Callable[..., None] | None = None,
                  session: EnrollSession | None = None,
                  retakes: Callable[[], str | None] | None = None) -> EnrolledDeck:
    """Ask for each card in turn and capture it once it lies still, alone, whole and
    sharp in view (see the module docstring); the back is asked for last.

    ``frames`` is any frame iterator (a camera source); ``prompt`` gets the terminal's
    lines, ``show`` the display's (up to 4 short lines), each a ``Say`` to be said in
    its reader's language (see the module). ``session`` is shared with the
    dashboard's /enroll page; ``retakes`` returns a code typed at the terminal, or None.
    """
    from vision.enroll import EnrollmentError, enroll_patches
    from vision.verify import FaceTemplates

    embedder = embedder or Embedder()
    wanted = list(codes) if codes is not None else [str(c) for c in ALL_CARDS] + [BACK]
    session = session or EnrollSession(wanted)
    session.wanted = list(wanted)
    show = show or (lambda *lines: None)
    queue = list(wanted)
    it = iter(frames)
    sharp: list[float] = []
    areas: list[float] = []

    def say(text: Say, *lines: Say) -> None:
        prompt(text)
        show(*lines)

    def refuse(code: str, reason: str, other: str | None = None) -> None:
        r = Refusal(code, reason, other)
        with session._lock:
            session.refusal = r
        session.refusals.append(r)
        long, short = _reason(reason, code, other)
        # Each line ends with the card asked for: a script (and a person) reads it there.
        say(Say("{reason}: show {card}", reason=long, card=code), short,
            say_in("display", "Show {card}", card=code))

    def take_retake() -> None:
        typed = retakes() if retakes is not None else None
        if typed:
            error = session.retake(typed)
            if error:
                say(error, say_in("display", "Not captured yet"))
        code = session.next_retake()
        if code is None:
            return
        with session._lock:
            session.patches.pop(code, None)
        if code in queue:
            queue.remove(code)
        queue.insert(0, code)
        say(Say("Again: {card}", card=code), say_in("display", "Again: {card}", card=code))

    while queue:
        take_retake()
        code = queue[0]
        with session._lock:
            session.asking = code
        say(Say("Show {card_name} ({card})", card_name=card_label(code), card=code),
            say_in("display", "Show {card}", card=code),
            say_in("display", "alone, flat, still"))
        history: list[np.ndarray] = []
        refused_here: tuple | None = None  # the last refusal said, not repeated each frame
        start = time.monotonic()
        while True:
            if time.monotonic() - start > timeout_s:
                raise EnrollmentError(Say("enrollment stopped: no card shown for {card}",
                                          card=code))
            try:
                frame = next(it)
            except StopIteration:
                raise EnrollmentError(Say("the camera stopped before {card} was captured",
                                          card=code)) from None
            if frame is None:
                continue
            before = len(queue), queue[0]
            take_retake()
            if (len(queue), queue[0]) != before:
                break  # a re-take asked first
            quads = find_cards_classical(frame, solid=True)
            if len(quads) != 1:
                history.clear()
                if not quads and _piece_at_edge(frame, np.median(areas) if areas else None):
                    history.append(None)
                    if len(history) >= stable_frames and refused_here != ("partial",):
                        refuse(code, "partial")
                        refused_here = ("partial",)
                continue
            q = quads[0]
            if history and history[-1] is not None and \
                    np.abs(q.corners - history[-1]).max() > still_px:
                history.clear()
            history = [h for h in history if h is not None]
            history.append(q.corners)
            if len(history) < stable_frames:
                continue
            verdict = _judge(frame, q, sharp, session, FaceTemplates, code)
            if verdict is not None:
                reason, other = verdict
                if refused_here != (reason, other):
                    refuse(code, reason, other)
                    refused_here = (reason, other)
                history.clear()
                continue
            patch = warp_card(frame, q.corners)
            sharp.append(sharpness(warp_card(frame, q.corners, (128, 192))))
            areas.append(q.area)
            with session._lock:
                session.patches[code] = patch
                session.last = code
                session.refusal = None
            queue.pop(0)
            n, total = len(session.patches), len(wanted)
            say(Say("{card} OK ({n}/{total})", card=code, n=n, total=total),
                say_in("display", "{card} OK", card=code),
                say_in("display", "{n}/{total} captured", n=n, total=total))
            break
    with session._lock:
        session.asking = None
        patches = {c: session.patches[c] for c in wanted}
    deck = enroll_patches(patches, embedder, "live")
    report = _deck_report(deck)
    with session._lock:
        session.report = report
        session.done = True
    for line in report:
        prompt(line)
    show(say_in("display", "Deck enrolled"), say_n("{n} card", "{n} cards", len(patches)),
         say_in("display", "report: terminal,"), say_in("display", "phone /enroll"))
    return deck


def _judge(frame: np.ndarray, q: Any, sharp: list[float], session: EnrollSession,
           templates: Any, code: str) -> tuple[str, str | None] | None:
    """Why the still card ``q`` cannot be taken as ``code``; None when it can."""
    if _touches_edge(q.corners, frame.shape):
        return "partial", None
    if q.fill < FULL_FILL:
        return "covered", None
    level = BLUR_LEVEL
    if sharp:
        level = max(level, BLUR_RELATIVE * float(np.median(sharp)))
    if sharpness(warp_card(frame, q.corners, (128, 192))) < level:
        return "blurred", None
    with session._lock:
        faces = {c: p for c, p in session.patches.items() if c != code and c != BACK}
    if faces and code != BACK:
        verdict = templates(faces).match(warp_card(frame, q.corners))
        # A verdict's name alone is no proof: the card shown is not among the faces, so
        # the verifier names its nearest lookalike (a new 4d "is" the 5d at 0.87, a 6c
        # the 7c at 0.88, measured); a second photo of the same card scores 0.91-0.99.
        if verdict.ranked and verdict.similarity >= DUPLICATE_SIMILARITY:
            return "duplicate", verdict.card or verdict.ranked[0]
    return None


def _deck_report(deck: EnrolledDeck) -> list[str]:
    """The deck check's report, when ``vision.deck_check`` exists."""
    try:
        from vision.deck_check import check_deck
    except ImportError:
        # DECK CHECK CALL SITE: vision.deck_check is being written; once it exists,
        # check_deck(deck).lines() is shown here (terminal, display, phone).
        return [Say("Deck enrolled (the deck check is not available yet)")]
    return list(check_deck(deck).lines())
