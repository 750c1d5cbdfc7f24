"""Card identity against an enrolled deck: the embedding, then aligned comparison.

The embedding (nearest neighbour with a verification margin) tells a card from a
back and from things that are no card at all (cloth, a hand, a phone). The name
of a face comes from :mod:`vision.verify`: the patch aligned with the enrolled
faces themselves and judged on the pixels where the likeliest two differ, which
is what tells a 6 from a 7 of a deck the network never saw. A face that evidence
does not settle is unknown, with the cards it might be, best first. Missing
evidence stays missing: the referee never gets a guess.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.deck import BACK, EnrolledDeck
from vision.embed import MODEL_PATH, PATCH_H, Embedder
from vision.verify import FaceTemplates, Verdict, half_templates

SCALE = 20.0  # the softmax temperature the model was trained with
AGREED_CONTRAST = 0.2  # the deciding pixels' margin that will do when the embedding agrees


@dataclass
class Identity:
    card: str | None  # card code, "back", or None when unsure
    confidence: float  # for a face: the aligned correlation; else the embedding's posterior
    similarity: float  # the embedding's cosine similarity to its best label (a face
    # named by aligned comparison alone, the embedding not asked: that comparison's)
    margin: float
    flipped: bool  # the best match was the reference turned 180 degrees
    candidates: tuple[str, ...] = ()  # when unsure: what it might be, likeliest first
    contrast: float = 0.0  # the deciding pixels' verdict (vision.verify), for a face


def model_settings(model_path: str | Path = MODEL_PATH) -> dict:
    meta = Path(model_path).with_suffix(".json")
    return json.loads(meta.read_text()) if meta.is_file() else {}


class Recognizer:
    def __init__(self, deck: EnrolledDeck, embedder: Embedder | None = None,
                 threshold: float | None = None, margin: float | None = None) -> None:
        self.embedder = embedder or Embedder()
        meta = model_settings(self.embedder.model_path)
        self.threshold = threshold if threshold is not None else meta.get("threshold", 0.6)
        self.margin = margin if margin is not None else meta.get("margin", 0.05)
        self.null_level = float(meta.get("null_level", 0.5))
        self.deck = deck
        faces = deck.faces()
        self.templates = FaceTemplates(faces) if faces else None
        self._halves: dict[int, FaceTemplates] = {}  # rows -> templates of that many rows
        self._names = sorted(set(deck.labels.tolist()))
        self._index = np.array([self._names.index(x) for x in deck.labels])
        # Enrolment stores each reference upright then turned: odd rows are turned.
        self._flipped = np.arange(len(deck.labels)) % 2 == 1
        self._groups = [np.nonzero(self._index == k)[0] for k in range(len(self._names))]
        if deck.covered_embeddings is not None:
            cov = deck.covered_labels
            self._cov_names = sorted(set(cov.tolist()))
            idx = np.array([self._cov_names.index(x) for x in cov])
            self._cov_groups = [np.nonzero(idx == k)[0] for k in range(len(self._cov_names))]

    def identify(self, patches: np.ndarray, half_covered: bool = False,
                 allowed: Iterable[str] | Sequence[Iterable[str] | None] | None = None,
                 ) -> list[Identity]:
        """Identities of canonical patches.

        ``allowed``: the card codes that can honestly lie there (one set for all
        patches, or one per patch; None: any card of the deck). A face is named only as
        one of them; a patch plainly showing another card stays unknown.

        ``half_covered``: the patches are the crosswise briscola with one half under the
        stock; they are also compared with the enrolled faces half hidden by the back,
        and named when either comparison is sure and the other does not disagree.
        Some halves are the same for two cards (the 6 and 7 of swords in many decks):
        those stay unknown.
        """
        if self.templates is not None and not half_covered:
            return self._verify_all(patches, _per_patch(allowed, len(patches)))
        emb = self.embedder(patches)
        whole = self.identify_embeddings(emb)
        if not half_covered or self.deck.covered_embeddings is None:
            return whole
        half = self._match(emb, self.deck.covered_embeddings, self._cov_names,
                           self._cov_groups, None)
        out = []
        for w, h in zip(whole, half, strict=True):
            w_face = w.card if w.card != BACK else None
            if w_face and h.card and w_face != h.card:
                out.append(Identity(None, 0.0, h.similarity, 0.0, False))
            else:
                out.append(w if w_face else h)
        return out

    def _verify_all(self, patches: np.ndarray,
                    allowed: list[Iterable[str] | None]) -> list[Identity]:
        """Faces named by aligned comparison (module docstring); the embedding is asked
        only about the patches that comparison leaves open (a back, no card at all, a
        face it is not sure of), which at a table is seldom most of them."""
        allowed = [None if a is None else [c for c in a if c != BACK] for a in allowed]
        verdicts = [self.templates.match(p, a) for p, a in zip(patches, allowed, strict=True)]
        out: list[Identity | None] = [
            Identity(v.card, round(v.similarity, 4), v.similarity, v.contrast, v.turned, (),
                     round(v.contrast, 4)) if v.card not in (None, BACK) else None
            for v in verdicts]
        open_ = [i for i, o in enumerate(out) if o is None]
        if open_:
            idents = self.identify_embeddings(self.embedder(patches[open_]))
            for i, ident in zip(open_, idents, strict=True):
                out[i] = self._verify(verdicts[i], ident, allowed[i])
        return out

    def _verify(self, v: Verdict, ident: Identity, allowed: Iterable[str] | None) -> Identity:
        """The embedding's identity settled by the aligned comparison's verdict ``v``."""
        if ident.card == BACK:
            return ident  # backs are the embedding's strength (and no card to name)
        card = v.card
        if card is None and ident.card is not None and ident.card == v.best and \
                (allowed is None or v.best in allowed) and \
                v.similarity >= self.templates.min_similarity and v.contrast >= AGREED_CONTRAST:
            # Two independent witnesses agree: the embedding sure of the card, and the
            # deciding pixels on its side, if by less than alone they would need.
            card = v.best
        if card is not None and card != BACK:
            return Identity(card, round(v.similarity, 4), ident.similarity, ident.margin,
                            v.turned, (), round(v.contrast, 4))
        ranked = tuple(c for c in v.ranked if c != BACK)
        return Identity(None, round(v.similarity, 4), ident.similarity, ident.margin,
                        ident.flipped, ranked, round(v.contrast, 4))

    def identify_embeddings(self, emb: np.ndarray) -> list[Identity]:
        return self._match(emb, self.deck.embeddings, self._names, self._groups, self._flipped)

    def _match(self, emb, refs, names, groups, flipped) -> list[Identity]:
        sims = emb @ refs.T  # (M, N)
        out = []
        n = len(names)
        for row in sims:
            per = np.full(n, -1.0)
            best_row = np.full(n, -1, int)
            for k in range(n):  # best reference of each label (40 cards + back: cheap)
                idx = groups[k]
                j = idx[np.argmax(row[idx])]
                per[k], best_row[k] = row[j], j
            order = np.argsort(per)[::-1]
            b, s = order[0], order[1] if n > 1 else order[0]
            logits = np.append(per, self.null_level) * SCALE
            p = np.exp(logits - logits.max())
            conf = float(p[b] / p.sum())
            sim, gap = float(per[b]), float(per[b] - per[s])
            ok = sim >= self.threshold and gap >= self.margin
            turned = bool(flipped[best_row[b]]) if flipped is not None else False
            out.append(Identity(names[b] if ok else None, round(conf, 4), sim, gap, turned))
        return out

    def identify_part(self, patch: np.ndarray, visible: float) -> Identity:
        """A card of which only ``visible`` (a fraction) is in view, as an upright patch
        of the whole card: compared end for end with the same rows of every face (the
        card may show either end). Named only when one end settles it and the other
        does not name another card; a deck whose faces share that end leaves it unknown."""
        rows = int(visible * PATCH_H) - 4
        rows -= rows % 8  # a few sizes of templates, built once each
        unknown = Identity(None, 0.0, 0.0, 0.0, False)
        if self.templates is None or rows < PATCH_H // 3:
            return unknown
        templates = self._halves.get(rows)
        if templates is None:
            templates = self._halves[rows] = half_templates(self.deck.faces(), rows)
        ends = (templates.match(patch[:rows]), templates.match(patch[::-1, ::-1][:rows]))
        named = {v.card for v in ends if v.card is not None}
        # (Unnamed, it keeps how like a face's rows its likelier end is, as an unknown
        # whole face keeps its aligned correlation: recognize --json's confidence.)
        like = round(max(v.similarity for v in ends), 4)
        unknown = replace(unknown, confidence=like, similarity=like)
        if len(named) != 1:
            return replace(unknown, candidates=tuple(dict.fromkeys(
                c for v in ends for c in v.ranked[:2])))
        k = 0 if ends[0].card is not None else 1
        v = ends[k]
        if v.contrast < PART_CONTRAST or v.similarity < PART_SIMILARITY:
            return replace(unknown, candidates=(v.card,))  # not plainly: maybe another
        return Identity(v.card, round(v.similarity, 4), v.similarity, v.contrast,
                        v.turned != (k == 1), contrast=v.contrast)

    @staticmethod
    def is_face(identity: Identity) -> bool:
        return identity.card is not None and identity.card != BACK


def _overlapped(q, quads: list) -> bool:
    """Whether card ``q`` overlaps another of ``quads`` (or the detector saw part of it
    hidden): a part of it may lie under the other."""
    from vision.card_net import quad_inside

    return q.visible < 0.97 or any(
        o is not q and max(quad_inside(q.corners, o.corners),
                           quad_inside(o.corners, q.corners)) > OVERLAP for o in quads)


def _in_view(q, quads: list, shape: tuple[int, ...]) -> float:
    """How much of card ``q`` to compare with the faces' rows: the detector's guess of
    how much of it shows, except where the picture's edge cuts its outline. There, where
    only the edge hides it (no other report overlaps it), the share of its outline
    inside the picture: the guess is rougher (a 6 of cups 0.89 in the picture, guessed
    0.57, was compared by its top half alone, which is the 7's too, and read as the 7; a
    close-up, session 34). Where another card lies on it too, the guess, but never rows
    beyond the edge: they hold no card (a 7 of hearts outlined a fifth too long and
    guessed 0.7 in view, 0.51 of its outline in the picture, was read as a 6 from rows
    past the bottom edge; fresh seed 5353)."""
    from vision.card_net import _overlap

    h, w = shape[:2]
    inter, area, _ = _overlap(q.corners, np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    inside = inter / area if area > 0 else 0.0
    if inside >= 0.999:
        return q.visible
    if any(o is not q and _overlap(q.corners, o.corners)[0] > 0 for o in quads):
        return min(q.visible, inside)
    return inside


def _cut(corners: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether a side of the outline lies along the picture's edge (both its corners
    within :data:`EDGE_CUT` of the long side, or 3 px, of the same edge)."""
    h, w = shape[:2]
    tol = max(3.0, EDGE_CUT * max(h, w))
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        for axis, edge in ((0, 0.0), (0, w - 1.0), (1, 0.0), (1, h - 1.0)):
            if abs(a[axis] - edge) <= tol and abs(b[axis] - edge) <= tol:
                return True
    return False


def _touching(q, quads: list) -> bool:
    """Whether card ``q``'s outline, grown by :data:`TOUCH` of its size, overlaps another
    of ``quads``: a side of it may lie on the other card's edge instead of its own."""
    from vision.card_net import quad_inside

    c = q.corners.mean(0)
    grown = (c + (q.corners - c) * (1 + TOUCH)).astype(np.float32)
    return any(o is not q and quad_inside(grown, o.corners) > 0 for o in quads)


def _steady(image: np.ndarray, q, ident: Identity, recognizer: Recognizer) -> Identity:
    """``ident`` if the card is named the same, or not at all, with each side of its
    outline moved in and out by :data:`TOUCH` of the card; else unknown, the names it
    took as candidates (a name a few pixels of outline decide is no evidence)."""
    from vision.detect import warp_card

    outlines = [_side_moved(q.corners, side, f) for side in range(4) for f in (TOUCH, -TOUCH)]
    names = [i.card for i in recognizer.identify(np.stack([warp_card(image, o)
                                                           for o in outlines]))]
    others = [n for n in names if n not in (None, BACK, ident.card)]
    if not others:
        return ident
    return replace(ident, card=None, candidates=tuple(dict.fromkeys([ident.card, *others])))


def _both_ways(image: np.ndarray, q, ident: Identity, recognizer: Recognizer) -> Identity:
    """``ident`` if the card's patch turned 180 degrees is named the same or not at all;
    else unknown, both names offered. The faces are compared both ways up, so the name
    should not depend on which end of the patch is up; where it does, the alignment,
    not the card, decided it (a small 5 of cups outlined 8% short at one end, read as a
    4 turned at contrast 0.38 and as the 5 the other way up at 0.81)."""
    from vision.detect import warp_card

    other = recognizer.identify(warp_card(image, np.roll(q.corners, 2, axis=0))[None])[0]
    if other.card in (None, BACK, ident.card):
        return ident
    return replace(ident, card=None, candidates=(ident.card, other.card))


def _side_moved(corners: np.ndarray, side: int, f: float) -> np.ndarray:
    """``corners`` with side ``side`` (corners ``side`` and ``side + 1``) moved towards
    the opposite side by ``f`` of the card (outwards when negative)."""
    out = corners.astype(np.float32).copy()
    a, b = side, (side + 1) % 4
    out[a] += f * (corners[(side + 3) % 4] - corners[a])
    out[b] += f * (corners[(side + 2) % 4] - corners[b])
    return out


def _whole(image: np.ndarray, recognizer: Recognizer) -> list[SeenCard]:
    """A picture that is one card (a scan, a tight crop: nothing around it to find it
    against): reported only when it is plainly one of the deck's faces."""
    from vision.detect import order_corners, warp_card

    h, w = image.shape[:2]
    if not 1.4 <= max(h, w) / min(h, w) <= 1.95:
        return []
    corners = order_corners(np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]))
    ident = recognizer.identify(warp_card(image, corners)[None])[0]
    if not recognizer.is_face(ident):
        return []
    return [SeenCard(np.roll(corners, -2, axis=0) if ident.flipped else corners, ident)]


def _per_patch(allowed, n: int) -> list[Iterable[str] | None]:
    if allowed is None:
        return [None] * n
    if isinstance(allowed, (set, frozenset)) or (allowed and isinstance(next(iter(allowed)), str)):
        return [allowed] * n
    per = list(allowed)
    if len(per) != n:
        raise ValueError(f"allowed: {len(per)} sets for {n} patches")
    return per


@dataclass
class SeenCard:
    corners: np.ndarray  # image pixels TL TR BR BL of the card as printed (when known)
    identity: Identity
    visible: float = 1.0  # the fraction of the card in view
    faint: bool = False  # the detector saw it only under its report threshold
    check: float | None = None  # the card check's score, where it looked (detect.checked)


@dataclass(frozen=True)
class Dropped:
    """A report the naming let go, and why: ``"squarer"`` (than the deck's cards can
    look), ``"cloth"`` (less like any face than a patch of cloth), ``"faint"`` (a faint
    sight whose patch shows no card), ``"small"`` (far smaller than a named face beside
    it), ``"check"`` (under the card check's floor). For benchmarks: where cards are lost."""
    corners: np.ndarray
    why: str
    check: float | None
    similarity: float | None


WHOLE_VISIBLE = 0.85  # a card with this much in view is compared as a whole face
SQUAREST = 0.65  # long / short side of a card seen at a steep tilt, over the deck's own
# In a photo a card half under another may be outlined whole (the detector's visible
# fraction said so): with pips hidden it is most like a card with fewer pips (a 7 of
# coins as a 6), yet far from that face. A whole face overlapping another card is
# named only when it is this much like its enrolled face (on generated scenes of the
# four real decks the three wrong names were covered cards at 0.69-0.79; right names
# of cards in full view, all but one of 280, above 0.8). A card lying apart, and the
# table's mat path, keep the verifier's own floor (on every whole face, this one cost
# the recognition benchmark three right names); so a cover the detector does not see
# (a hand, a card it missed) leaves the verifier's floor in force, unless the card check
# doubts the outline is a card's, whole (under DOUBT_CHECK; session 27: on generated
# scenes of the four real decks, fresh seed 8686, a 2 of swords 0.69 in view under a card
# the detector missed, outlined whole, read as a 3 at 0.68, checked 0.07; of 2,667 faces
# named on seeds 3030, 5151, 7373 and 8686, one other is so: an 8 of swords, right, at
# 0.74, checked 0.04).
PHOTO_WHOLE_SIMILARITY = 0.8
DOUBT_CHECK = 0.1
# Wherever it lies, a card outlined whole in a photo is not named under this: a card
# partly under a cover nobody saw, stretched whole, is most like a card with fewer pips
# (session 27, fresh seed 8686: that 2 of swords, and a 7 of cups 0.72 in view read as
# a 4 at 0.67, checked 1.0; on dev seeds 3030, 5151 and 7373, 9 right names of 2,029
# faces outlined whole are under it), or like the back (session 28: another 7 of cups
# there, 0.64 in view, read as the back at 0.49; of 337 backs named on the four seeds,
# no other is under 0.7).
PHOTO_LEAST = 0.7
# A doubtful sight of the network is plainly no card under both (see _no_cards; chosen
# on the doubts in dev seeds 3030-6060's scenes of the four real decks and in the speed
# benchmark's frames: 29 cards, whole or partly seen, at 0.35-0.99 by the embedding; 45
# pieces of cloth at -0.02-0.69, 29 of them under 0.3).
CLOTH_FACE, CLOTH_EMBEDDING = 0.5, 0.3
# A card the detector saw only faintly is reported where its patch is this much like a
# face unaligned, or like a card to the embedding (see _card_like; on dev seeds 3030,
# 5151 and 7373 of four real decks' scenes, 39 of its 50 cards found and 5 of its 15
# false reports pass: a sheet's corner, the cloth beside a card, part of a card's back).
FAINT_LIKE = (0.35, 0.6)
# A report whose outline does not lie on a card's edge (edge_support under LOOSE_EDGE:
# a side swung out into the cloth or onto the next card) shows the card squeezed, with
# a band of something else at one end; squeezed, a 7 looks like a 6 and a heart like a
# diamond. Such a face is named as it is only when its deciding pixels are plain
# (SURE_CONTRAST); else from its outline moved onto the card's edges (_tightened), or
# not at all. Chosen on generated scenes of the four real decks (dev seed 3030), true
# outlines with one side pushed out by 4-12%: 11 wrong names of 963 (contrast 0.37-0.63,
# edge at most 0.56); none of 1,008 through find_and_identify with the rule.
LOOSE_EDGE, SURE_CONTRAST = 0.6, 0.65
TIGHTEN_REACH = 0.15  # of the short side: how far such a side is looked for its edge
OVERLAP = 0.03  # of a card's outline inside another's: the two overlap
# A whole face that is not plain (contrast under SURE_CONTRAST) is named only if, where
# its outline is squarer than SHORTENED of the deck's shape, it is also much like its
# face (PHOTO_WHOLE_SIMILARITY); and, where it touches another card, it keeps its name
# with each side moved by TOUCH of the card. Part of a card whose outline stops at its
# cover is a card stretched, like one with fewer pips; an outline that took the next
# card's edge for its own squeezes it, like one with more. On generated scenes of the
# four real decks (dev seeds 3030, 5151, 7373): a 7 of clubs 0.7 in view beside a back
# read as a 4 (similarity 0.66 and 0.74, outlines 0.71-0.74 of the deck's shape), a 6 of
# cups outlined onto the next card as a 7 (0.81, contrast 0.44). There the two rules
# took those 3 wrong names and 3 right ones of 2,366; the recognition benchmark (dev
# seed 3030: tilts to 30 degrees) named every face as before.
SHORTENED, TOUCH = 0.8, 0.03
# A partly visible card is named from its visible rows only when they are this much
# like the face's rows and their deciding pixels side with it this plainly: the hidden
# part need not be an end (a band across a 3 of coins leaves a 2's rows in view).
# Generated scenes of the real decks (three seeds seen in development): the three
# wrong names of partly hidden cards had contrast 0.62-0.73; 67 of 101 right names
# pass both. A band hidden across each real deck's number cards: 22 wrong names
# before, none with both (tests/test_vision_real_decks.py).
PART_CONTRAST, PART_SIMILARITY = 0.8, 0.9
# A whole face not plainly named whose short side is under this many pixels is named
# only when this much like the face: at that size a pip or two is a few pixels, and
# the phone camera's denoising and sharpening redraw them. Found with a detector trained
# on phone-look scenes (session 33, not adopted), on generated scenes of the real decks:
# a 7 of clubs 2,775 px in area read as a 6 at 0.81 (dev seed 5151), an ace of cups as
# the ace of coins at 0.80 (seed 4848 with --phone, looked at, so no longer fresh). With
# that detector the rule cost 3 right names of 3,256 on the dev seeds (3030, 5151, 7373,
# 8686); with the committed one, 1 of 733 on fresh seed 1717, 1 of 860 with --phone.
SMALL_SIDE, SMALL_SIMILARITY = 48, 0.85
# A whole face whose outline has a side along the picture's edge (within this share of
# its long side) is named only as plainly as a card partly seen (PART_SIMILARITY,
# PART_CONTRAST): the edge may cut a card whose visible end looks like a whole card of
# fewer pips. Generated close-ups of the real decks (session 34, dev seeds 3030 and
# 5151): a 4 of coins 0.45 in view, read as a 2 at 0.78; on the four dev seeds' scenes
# 34 whole faces named had a side on the edge, all right, 27 of them that plainly.
EDGE_CUT = 0.01


def find_and_identify(image: np.ndarray, recognizer: Recognizer,
                      dropped: list[Dropped] | None = None) -> list[SeenCard]:
    """Every card in a photo (any background, any rotation) with its identity.

    A whole card is compared with every enrolled face. A card partly hidden (under
    the stock, another card, a hand) is named from its visible end against the same
    end of every face, when that end tells it apart; otherwise it stays unknown.
    The cards are those the learned detector sees alone when they need nothing more
    (:func:`vision.detect.quick_cards`) and are all plainly named; else those of the
    whole search (:func:`vision.detect.find_cards`). ``dropped``, when given, receives
    the whole search's reports that naming let go (:class:`Dropped`).
    """
    from vision.detect import CHECK_FLOOR, find_cards, net_sight, quick_cards

    sight = net_sight(image)
    quick = quick_cards(image, sight, lambda doubts: _no_cards(image, doubts, recognizer)) \
        if sight is not None else None
    if quick is not None:
        # The learned detector's cards alone, when it saw them plainly: the colour
        # masks' search and its merging cost a third of the frame. Kept only when every
        # card is plainly named: else the masks' outlines, to the pixel, are looked at
        # too. (A card touching another, squeezed by an outline that took the other's
        # edge, was read as a card with fewer pips at 0.67: generated scenes of the
        # triestine art, seed 91.)
        seen = _named(image, quick, recognizer)
        if len(seen) == len(quick) and all(
                s.identity.card == BACK or (s.identity.card is not None and
                                            s.identity.similarity >= PHOTO_WHOLE_SIMILARITY)
                for s in seen):
            return seen
    # The card check's doubts are weighed after naming: a face named is a card whatever
    # the check says (it learned procedural decks; a real deck's cards score lower).
    seen = _named(image, find_cards(image, sight, floor=0.0), recognizer, dropped)
    kept = [s for s in seen if s.check is None or s.check >= CHECK_FLOOR
            or recognizer.is_face(s.identity)]
    _let_go(seen, kept, "check", dropped)
    return kept


def _no_cards(image: np.ndarray, doubts: list[np.ndarray], recognizer: Recognizer) -> bool:
    """Whether each of the network's card-sized doubts (outlines) is plainly no card, so
    that the quick path may stand: its outline refined as a card's is, its patch like no
    card or back to the embedding (:data:`CLOTH_EMBEDDING`) and not much like any face
    of the deck unaligned (:data:`CLOTH_FACE`). The embedding is the witness: the cards
    among the doubts of the dev seeds' scenes, seen whole or partly, were all at 0.35 or
    more (many at well under 0.3 by the faces, their outlines rough), the cloth mostly
    under 0.3. A card the network is unsure of is left to the full search."""
    from vision.detect import learned_detectors, warp_card

    if recognizer.templates is None:
        return False
    _, refiner = learned_detectors()
    if refiner is not None:
        doubts = refiner.refine(image, doubts, passes=1)
    patches = np.stack([warp_card(image, q) for q in doubts])
    return not any(_card_like(patches, recognizer))


def _card_like(patches: np.ndarray, recognizer: Recognizer, face: float = CLOTH_FACE,
               embedding: float = CLOTH_EMBEDDING) -> list[bool]:
    """Whether each patch shows a card (or a card lying on one) rather than the cloth: like
    a face of the deck unaligned (``face``), or like a card or back to the embedding."""
    like = [recognizer.templates is None
            or recognizer.templates.plain_similarity(p) >= face for p in patches]
    rest = [i for i, k in enumerate(like) if not k]
    if rest:
        for i, e in zip(rest, recognizer.identify_embeddings(recognizer.embedder(patches[rest])),
                        strict=True):
            like[i] = e.similarity >= embedding
    return like


def _named(image: np.ndarray, quads: list, recognizer: Recognizer,
           dropped: list[Dropped] | None = None) -> list[SeenCard]:
    """:func:`find_and_identify` of the cards found in ``image`` (``Quad``)."""
    from vision.detect import edge_support, elongation, short_side, warp_card

    def drop(q, why: str, ident: Identity | None = None) -> None:
        if dropped is not None:
            dropped.append(Dropped(np.float32(q.corners), why, q.check,
                                   None if ident is None else ident.similarity))

    # Squarer than this deck's cards can look at 35 degrees of tilt: part of a card
    # (the briscola's visible half beside the stock), not a card to stretch whole.
    squarer = [elongation(q.corners) < SQUAREST * recognizer.deck.ratio
               and q.visible >= WHOLE_VISIBLE for q in quads]
    for q in (q for q, sq in zip(quads, squarer, strict=True) if sq):
        drop(q, "squarer")
    quads = [q for q, sq in zip(quads, squarer, strict=True) if not sq]
    if not quads:
        return _whole(image, recognizer)
    patches = np.stack([warp_card(image, q.corners) for q in quads])
    whole = [i for i, q in enumerate(quads) if q.visible >= WHOLE_VISIBLE]
    whole_set = set(whole)
    ids: dict[int, Identity] = {}
    if whole:
        ids.update(zip(whole, recognizer.identify(patches[whole]), strict=True))
    for i, q in enumerate(quads):
        if i not in ids:
            ids[i] = recognizer.identify_part(patches[i], _in_view(q, quads, image.shape))
            if q.faint and ids[i].card is not None:
                # Part of a card the network is unsure of: its outline, placed from the
                # visible part alone, may hold another card's pips (a 4 of diamonds
                # read as a 2, the end compared taken half from the card beside it).
                ids[i] = replace(ids[i], card=None, candidates=(ids[i].card,))
    # A sight the network is unsure of stands only where it shows a card: a sheet's corner
    # on the table has a card's size and an edge (the speed benchmark's frames).
    faint = [i for i, q in enumerate(quads) if q.faint]
    shown = dict(zip(faint, _card_like(patches[faint], recognizer, *FAINT_LIKE),
                     strict=True)) if faint else {}
    out = []
    for i, q in enumerate(quads):
        ident = ids[i]
        if i in whole_set and ident.card is None and ident.similarity < recognizer.null_level:
            drop(q, "cloth", ident)
            continue  # less like any card of the deck than a patch of cloth is
        if not shown.get(i, True):
            drop(q, "faint", ident)
            continue
        if i in whole_set and recognizer.is_face(ident) and \
                ident.confidence < PHOTO_WHOLE_SIMILARITY and (
                    _overlapped(q, quads) or (q.check is not None and q.check < DOUBT_CHECK)):
            ident = replace(ident, card=None, candidates=(ident.card,))  # maybe covered
        elif i in whole_set and recognizer.is_face(ident) and \
                (ident.contrast or 0.0) < SURE_CONTRAST:
            if edge_support(image, q.corners) < LOOSE_EDGE:
                q, ident = _tightened(image, q, ident, recognizer)
            if recognizer.is_face(ident) and ident.confidence < PHOTO_WHOLE_SIMILARITY and \
                    elongation(q.corners) < SHORTENED * recognizer.deck.ratio:
                ident = replace(ident, card=None, candidates=(ident.card,))  # maybe covered
            elif recognizer.is_face(ident) and _touching(q, quads):
                ident = _steady(image, q, ident, recognizer)
            if recognizer.is_face(ident) and (ident.contrast or 0.0) < SURE_CONTRAST:
                ident = _both_ways(image, q, ident, recognizer)
        elif i in whole_set and recognizer.is_face(ident) and _touching(q, quads):
            # Even a plainly named face touching another: its outline may have taken the
            # other's edge (a 7 of spades end to end with a 10 of coins, outlined 16 px
            # into it, read as a 6 at 0.93, contrast 0.95: dev seed 3030, as session 33's
            # detector outlined it).
            ident = _steady(image, q, ident, recognizer)
        if i in whole_set and recognizer.is_face(ident) and \
                (ident.contrast or 0.0) < SURE_CONTRAST and \
                ident.similarity < SMALL_SIMILARITY and short_side(q.corners) < SMALL_SIDE:
            ident = replace(ident, card=None, candidates=(ident.card,))  # too few pixels
        if i in whole_set and recognizer.is_face(ident) and \
                ident.confidence < PHOTO_WHOLE_SIMILARITY and (
                    q is not quads[i] or _overlapped(q, quads)):
            # Named again from its outline moved onto the card's edges, or overlapping
            # another card, and not much like its face: maybe covered, as above (a 5 of
            # spades under a 9's corner, retightened, read as a 4 at 0.75).
            ident = replace(ident, card=None, candidates=(ident.card,))
        if i in whole_set and recognizer.is_face(ident) and _cut(q.corners, image.shape) \
                and not (ident.similarity >= PART_SIMILARITY and
                         (ident.contrast or 0.0) >= PART_CONTRAST):
            # Its outline stops at the picture's edge: it may be the end of a card the
            # edge cuts, outlined as a whole one (the bottom half of a 4 of coins, 0.45
            # in view, read as a 2 at 0.78). Named only as a card partly seen would be.
            ident = replace(ident, card=None, candidates=(ident.card,))
        if i in whole_set and q.faint and recognizer.is_face(ident) and \
                (ident.contrast or 0.0) < SURE_CONTRAST:
            # A card the detector is unsure of, named by pixels that are not plain: its
            # outline may stop short of an end (a 7 of clubs on gingham, its last pip
            # row outside the outline, read as a 6 at contrast 0.45).
            ident = replace(ident, card=None, candidates=(ident.card,))
        if i in whole_set and ident.card is not None and ident.confidence < PHOTO_LEAST:
            ident = replace(ident, card=None, candidates=(ident.card,))  # maybe covered
        corners = np.roll(q.corners, -2, axis=0) if ident.flipped else q.corners
        out.append(SeenCard(corners, ident, round(float(q.visible), 2), q.faint, q.check))
    if not any(recognizer.is_face(s.identity) for s in out):
        # Nothing named: the picture may be one card filling it (a scan, a crop).
        return _whole(image, recognizer) or out
    return _card_sized(out, max(image.shape[:2]), dropped)


def _tightened(image: np.ndarray, q, ident: Identity, recognizer: Recognizer):
    """A face whose outline lies on no card edge, and not plainly named: its sides moved
    onto the card's edges, if they can be, and the card named again from there; else
    unknown, with the name it looked like as a candidate."""
    from vision.detect import edge_support, refine_corners, warp_card

    unknown = replace(ident, card=None, candidates=(ident.card,))  # maybe squeezed
    moved = refine_corners(image, refine_corners(image, q.corners, TIGHTEN_REACH))
    if edge_support(image, moved) < LOOSE_EDGE:
        return q, unknown
    again = recognizer.identify(warp_card(image, moved)[None])[0]
    if not recognizer.is_face(again):
        return q, unknown
    return replace(q, corners=moved), again


def _card_sized(seen: list[SeenCard], long_side: float,
                dropped: list[Dropped] | None = None) -> list[SeenCard]:
    """A face named is a card of the deck, so its size is a card's: an unnamed report
    far smaller than a named face beside it is no card (the rule of
    :func:`vision.detect.one_deck`, where the detector alone could not tell)."""
    from vision.detect import too_small

    def size(s: SeenCard) -> tuple[float, np.ndarray]:
        return abs(cv2.contourArea(np.float32(s.corners))), s.corners.mean(0)

    named = [size(s) for s in seen if s.identity.card not in (None, BACK)]
    kept = [s for s in seen if s.identity.card is not None or not any(
        too_small(*size(s), area, centre, long_side) for area, centre in named)]
    _let_go(seen, kept, "small", dropped)
    return kept


def _let_go(seen: list[SeenCard], kept: list[SeenCard], why: str,
            dropped: list[Dropped] | None) -> None:
    """Those of ``seen`` not ``kept``, told to ``dropped`` (if given) as let go for ``why``."""
    if dropped is not None:
        dropped += [Dropped(s.corners, why, s.check, s.identity.similarity)
                    for s in seen if not any(s is k for k in kept)]

