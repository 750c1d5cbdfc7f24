"""After enrollment: what this deck will be like at the table, told to the player.

``check_deck`` puts the enrolled faces through the recognizer's own evidence
(:mod:`vision.verify`), the way the camera will show them:

- **Hard pairs**: faces that differ in few pixels (a pip, a heart's lobes against a
  diamond's point), by the same deciding-pixel measure the recognizer names cards
  with; these are the cards that may stay unknown under bad light, and which the
  table then asks about.
- **Self-test**: damaged views of the enrollment images themselves (tilt, corner
  jitter, blur, glare, shadow, colour cast, noise, JPEG) named by the recognizer:
  the share named right, named wrong (should be none) and left unknown.
- **Under the stock**: briscola cards whose visible part is the same as the 7's or
  the 2's of their suit, the cards a swap leaves there: the table asks once.

    python -m vision.deck_check deck.npz     # the report for an enrolled deck
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from table_controller.engine.words import Say
from vision.augment import camera_patch
from vision.deck import BACK, EnrolledDeck
from vision.embed import PATCH_H
from vision.verify import FaceTemplates, half_templates

HARD_PAIR = 0.02  # deciding-pixel difference below which two faces are a hard pair
HALF_ROWS = PATCH_H // 2 - 4  # the part of the crosswise briscola the stock leaves visible


@dataclass
class DeckReport:
    faces: int
    views: int  # damaged views named in the self-test
    right: int
    wrong: list[tuple[str, str]] = field(default_factory=list)  # (true, named)
    unknown: int = 0
    hard_pairs: list[tuple[str, str]] = field(default_factory=list)  # closest first
    confused: list[tuple[str, str, int]] = field(default_factory=list)  # (a, b, times)
    same_half: list[tuple[str, str]] = field(default_factory=list)  # under the stock

    @property
    def accuracy(self) -> float:
        return self.right / max(1, self.views)

    def lines(self) -> list[Say]:
        """The report as short lines, for the terminal, the display and the phone."""
        # Each a Say (table_controller.engine.words): said in the reader's language.
        out = [Say("Deck check: {faces} faces; {views} damaged views of your own pictures: "
                   "{right}% named right, {wrong} wrong, {unknown} left unknown (the table "
                   "asks for those)", faces=self.faces, views=self.views,
                   right=f"{100 * self.accuracy:.1f}", wrong=len(self.wrong),
                   unknown=self.unknown)]
        if self.wrong:
            out.append(Say("Named wrong: {cards} - take those pictures again (whole card, "
                           "even light)", cards=", ".join(f"{a}->{b}"
                                                          for a, b in self.wrong[:6])))
        # Pairs the self-test mixed up more than once, else the closest faces.
        pairs = [f"{a}/{b}" for a, b, n in self.confused if n > 1][:6] or \
            [f"{a}/{b}" for a, b in self.hard_pairs[:6]]
        if pairs:
            out.append(Say("Hardest to tell apart: {pairs}", pairs=", ".join(pairs)))
        if self.same_half:
            out.append(Say("Under the stock these show the same half (the table asks after "
                           "a swap): {pairs}",
                           pairs=", ".join(f"{a}/{b}" for a, b in self.same_half[:6])))
        return out


def check_deck(deck: EnrolledDeck, views_per_face: int = 5, seed: int = 0) -> DeckReport:
    """The report for ``deck`` (see the module docstring); about a second for 40 faces."""
    faces = {c: p for c, p in deck.faces().items()}
    if not faces:
        raise ValueError("the deck keeps no pictures of its faces: enroll it again")
    templates = FaceTemplates(faces)
    codes = [c for c in faces if c != BACK]
    rng = np.random.default_rng(seed)
    right = unknown = 0
    wrong: list[tuple[str, str]] = []
    confused: Counter = Counter()
    for code in codes:
        for _ in range(views_per_face):
            v = templates.match(camera_patch(faces[code], rng, strength=0.5))
            if v.card == code:
                right += 1
            elif v.card is None:
                unknown += 1
                other = next((c for c in v.ranked if c != code), None)
                if other is not None:
                    confused[tuple(sorted((code, other)))] += 1
            else:
                wrong.append((code, v.card))
                confused[tuple(sorted((code, v.card)))] += 1
    return DeckReport(
        faces=len(codes), views=len(codes) * views_per_face, right=right, wrong=wrong,
        unknown=unknown, hard_pairs=_hard_pairs(templates, codes),
        confused=[(a, b, n) for (a, b), n in confused.most_common()],
        same_half=_same_half(faces, codes))


def _difference(templates: FaceTemplates, a: int, b: int) -> float:
    """The mean squared difference of two faces' features on the pixels where they
    differ most: the signal the recognizer's deciding pixels have to work with."""
    fa, fb = templates._fine[a], templates._fine[b]
    d2 = (fa - fb) ** 2
    k = int(0.9 * len(d2))
    return float(np.partition(d2, k)[k:].mean())


def _hard_pairs(templates: FaceTemplates, codes: list[str]) -> list[tuple[str, str]]:
    rows = {c: templates.labels.index(c) for c in codes}  # each face upright
    scored = []
    for i, a in enumerate(codes):
        for b in codes[i + 1:]:
            scored.append((_difference(templates, rows[a], rows[b]), a, b))
    scored.sort()
    floor = scored[0][0] if scored else 0.0
    return [(a, b) for d, a, b in scored[:8] if d < max(HARD_PAIR, 2 * floor)]


def _same_half(faces: dict[str, np.ndarray], codes: list[str]) -> list[tuple[str, str]]:
    """Pairs (briscola, 7 or 2 of its suit) whose half out from under the stock the
    recognizer cannot tell apart, either way up."""
    halves = half_templates({c: faces[c] for c in codes}, HALF_ROWS)
    out = []
    for code in codes:
        suit = code[-1]
        for other in (f"7{suit}", f"2{suit}"):
            if other == code or other not in faces:
                continue
            for turned in (False, True):
                p = faces[code][::-1, ::-1] if turned else faces[code]
                v = halves.match(p[:HALF_ROWS], (code, other), only=True)
                if v.card != code:
                    out.append(tuple(sorted((code, other))))
                    break
    return sorted(set(out))


def main(argv: list[str] | None = None) -> int:
    import argparse

    from vision.deck import DeckFileError

    ap = argparse.ArgumentParser(description="What an enrolled deck will be like at the table.")
    ap.add_argument("deck", help="an enrolled deck (.npz)")
    args = ap.parse_args(argv)
    try:
        deck = EnrolledDeck.load(args.deck)
    except DeckFileError as exc:
        print(f"deck_check: {exc}", file=sys.stderr)
        return 2
    for line in check_deck(deck).lines():
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
