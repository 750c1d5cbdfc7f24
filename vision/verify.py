"""The final word on a card's name: aligned comparison with the enrolled faces.

A global embedding tells a coin from a sword but not a 6 from a 7 of a style it
never saw: the two faces differ in one pip. Here each camera patch is compared
with the enrolled faces themselves, the way a person checks a card:

1. **Features.** Lightness with its local contrast normalised (shadows, light
   falloff and exposure go away) and the two colour channels measured from the
   card's own paper and from their own surroundings (so a warm lamp, a green
   cloth's cast or a tint across a photographed reference does not change a
   suit's colour), faint colour counted for nothing (the cast a photo lends black
   print), lightly blurred, the outer border dropped. An enrolled face whose colour
   is faded against the rest of its deck (a photo taken in dim light) has its
   colour scaled to the deck's strength.
2. **Shortlist.** Correlation with every enrolled face, both ways up, at a quarter
   of the pixels.
3. **Alignment.** The detector's corners are a few pixels off; each shortlisted
   face is aligned with the patch by ECC (an affine warp) and correlated again.
4. **The deciding pixels.** The best face must beat the runner-up where the two
   *differ* (the pixels holding the extra pip, the heart's lobes against the
   diamond's point), not just over the whole card, where a blur or a glare spot
   weighs as much as the pip that tells them apart.

A name is given only when the aligned correlation is high (``min_similarity``)
and the deciding pixels side clearly with it (``min_contrast``); otherwise the
card is unknown and the ranked shortlist says what it might be.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.align import AFFINE, HOMOGRAPHY, EccTemplate, align
from vision.embed import PATCH_H, PATCH_W

CHROMA_REACH = 12.0  # px: tints smoother than this are the light's, not the card's
CHROMA_FLOOR = 5.0  # Lab chroma every colour loses: fainter is a cast, not print
COLOURED = 30.0  # Lab chroma of a face's strongest colour (its top 0.5%) under which it has
# none (black print, a cast): such a face's colour is never scaled
FADED = 0.65  # a face whose strongest colour is under this share of its deck's is faded
MAX_GAIN = 2.0  # and its colour is scaled to the deck's strength, by at most this much
# ECC aligns the print, not the light on it: lightness changing over more than this (px
# of the 64x96 patch) is taken away first. A photographed reference carries its photo's
# shading (a french ace of spades grey to blue across the card), and aligned on plain
# lightness the view slid to match the shading, not the pip: 0.94 aligned against 0.98
# unaligned, the ace unknown (french from photos, recognition seed 3141). At 6 px a card
# outlined askew lost its alignment to its own face; at 12 neither.
PRINT_REACH = 12.0
BORDER = 3  # pixels of the 64x96 patch dropped on each side: background bleeds in there
SHORTLIST = 3  # faces (with their way up) aligned per patch when it is not plain at once
RIVALS = 8  # faces compared in full detail (the shortlist's best)
RIVAL_CARDS = 3  # the best face must beat each of this many other cards where they differ
# Plain at once: no alignment needed. (On synthetic photos of the four real decks and
# six procedural styles, dev seed 3030: the aligned comparison named another card than
# the unaligned one only where the unaligned contrast was under 0.12; at 0.8 and 0.4 a
# third fewer cards are aligned, none named otherwise.)
FAST_SIMILARITY, FAST_CONTRAST = 0.8, 0.4
MAX_STRETCH, MAX_SLIDE = 0.2, 0.12  # the largest correction alignment may make
MAX_BEND = 0.4  # and the largest change of scale from one end of the patch to the other
# Extra blur (px of the 64x96 patch) the faces are also compared at: a card seen
# small, out of focus or moving is softer than its enrolled face, and at the pixels
# where two faces differ a soft view sits between both sharp faces. Both faces softened
# like the view, it sides with its own again (a 4 of clubs against the 4 of spades).
SOFTER = (0.0, 0.6, 1.1, 1.6)
# ECC's steps and the change of correlation it stops at.
_ECC = (30, 1e-4)
_ECC_FINE = (10, 1e-3)
# Faces after the first start from the first one's warp: the corners' error belongs to
# the patch, not to the face, so a few steps settle what is each face's own.
_ECC_WARM = (8, 1e-4)


@dataclass(frozen=True)
class Verdict:
    card: str | None  # the name, or None when the evidence does not settle it
    similarity: float  # aligned correlation with the best face (1 = identical)
    contrast: float  # where best and runner-up differ: +1 all for the best, -1 against
    turned: bool  # the best face matched turned 180 degrees
    ranked: tuple[str, ...]  # the likeliest cards, best first (for asking a person)
    runner_up: str | None = None
    fit: float = 0.0  # distance from the best face where it differs from its rivals
    best: str | None = None  # the best face of the whole deck, named or not


def _lab(patch: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The patch at ``size``, white-balanced on its own paper (the brightest third), in
    Lab: a lamp's or a cloth's colour cast scales each channel, and so is undone."""
    if patch.shape[:2] != (size[1], size[0]):
        patch = cv2.resize(patch, size, interpolation=cv2.INTER_AREA)
    x = patch.astype(np.float32)
    # (Channel by channel: numpy's reductions over a short last axis are slow, and
    # this runs for every card of every frame.)
    light = x[..., 0] + x[..., 1] + x[..., 2]
    k = int(0.67 * light.size)
    paper = x.reshape(-1, 3)[np.flatnonzero(light >= np.partition(light.ravel(), k)[k])]
    white = _median_rows(paper) + 1.0
    x = cv2.transform(x, np.diag(white.mean() / white / 255.0))
    x = cv2.threshold(x, 1.0, 1.0, cv2.THRESH_TRUNC)[1]  # x >= 0: no lower bound
    return cv2.cvtColor(x, cv2.COLOR_BGR2LAB)


def _median_rows(values: np.ndarray) -> np.ndarray:
    """``np.median(values, axis=0)`` by one partition."""
    n = len(values)
    h = n // 2
    part = np.partition(values, [h - 1, h] if n % 2 == 0 else [h], axis=0)
    return part[h] if n % 2 else 0.5 * (part[h - 1] + part[h])


def _median(values: np.ndarray) -> float:
    """``np.median`` of a flat array, by partition (a tenth of its overhead here)."""
    n = len(values)
    if n == 0:
        return float("nan")
    h = n // 2
    part = np.partition(values, [h - 1, h] if n % 2 == 0 else [h])
    return float(part[h]) if n % 2 else 0.5 * (float(part[h - 1]) + float(part[h]))


def _percentile(values: np.ndarray, q: float) -> float:
    """``np.percentile`` (linear) of an array, by partition."""
    flat = values.ravel()
    pos = q / 100 * (len(flat) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(flat) - 1)
    part = np.partition(flat, [lo, hi])
    return float(part[lo]) + (pos - lo) * (float(part[hi]) - float(part[lo]))


def _wide_blur(x: np.ndarray, sigma: float) -> np.ndarray:
    """``cv2.GaussianBlur(x, (0, 0), sigma)`` for a blur much wider than a pixel, taken
    at a quarter of the size: a tenth of the cost (the full kernel spans the patch)."""
    h, w = x.shape[:2]
    small = cv2.resize(x, (max(2, w // 4), max(2, h // 4)), interpolation=cv2.INTER_AREA)
    return cv2.resize(cv2.GaussianBlur(small, (0, 0), sigma / 4), (w, h),
                      interpolation=cv2.INTER_LINEAR)


def _chroma(lab: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``lab``'s lightness, its two colour channels as they differ from the card's paper
    and from their own surroundings, and their chroma."""
    light, ca, cb = cv2.split(lab)  # contiguous planes: every filter below wants them
    paper = light >= _percentile(light, 70)  # the card's own white, whatever the light
    # Colour as it differs from its surroundings: a tint across the card (a lamp's
    # colour falling off, a coloured cloth's reflection, a shadow's cast in a photo
    # enrolled as a reference) goes; a pip's or a figure's colour, sharper, stays.
    ab = cv2.merge([ca, cb])
    ca, cb = cv2.split(ab - _wide_blur(ab, CHROMA_REACH))
    ca -= _median(ca[paper])
    cb -= _median(cb[paper])
    return light, ca, cb, cv2.magnitude(ca, cb)


def _print(light: np.ndarray, blur: float) -> np.ndarray:
    """A patch's lightness as ECC aligns it (``blur``: its smoothing, px): the print
    without the light across it (:data:`PRINT_REACH`)."""
    reach = PRINT_REACH * light.shape[1] / PATCH_W
    return cv2.GaussianBlur(light - _wide_blur(light, reach), (0, 0), blur)


def colour_strength(lab: np.ndarray) -> float:
    """The chroma of a Lab patch's strongest colour (its top 0.5%)."""
    return _percentile(_chroma(lab)[3], 99.5)


def features(lab: np.ndarray, blur: float = 0.8, gain: float = 1.0) -> np.ndarray:
    """A unit vector describing one Lab patch (see the module docstring, step 1);
    ``gain``: how much its colour is strengthened (a faded reference)."""
    light, ca, cb, chroma = _chroma(lab)
    mean = cv2.GaussianBlur(light, (0, 0), 5)
    d = light - mean
    sd = cv2.sqrt(cv2.GaussianBlur(d * d, (0, 0), 5))
    # Every pixel's colour loses CHROMA_FLOOR: the green or magenta a photo's light,
    # lens and JPEG lend black print and its rim (chroma up to ~17; 0 in a scan) would
    # otherwise be the very pixels where a reference of the 3 of clubs differs from
    # one of the 3 of spades, siding every neutral view with neither (french deck
    # enrolled from photos, recognition seed 6262). Printed colour (chroma 30-90) stays.
    keep = cv2.max(chroma - CHROMA_FLOOR, 0.0) * (gain / 20.0 / (chroma + 1e-3))
    spread = float(cv2.meanStdDev(d)[1][0, 0])  # d.std(), at a tenth of numpy's overhead
    chans = cv2.merge([d / (sd + (0.5 * spread + 1.0)), ca * keep, cb * keep])
    b = max(1, BORDER * lab.shape[1] // PATCH_W)
    # One blur of the three planes together: the same as three, at a third of the calls.
    f = cv2.GaussianBlur(chans, (0, 0), blur)[b:-b, b:-b].ravel()  # (a copy: in place below)
    f -= float(f.sum()) / f.size
    f *= 1.0 / (math.sqrt(float(f @ f)) + 1e-6)
    return f


def _gains(labs: list[np.ndarray]) -> list[float]:
    """How much each enrolled face's colour is strengthened: a face whose strongest colour
    is faded against its deck's (the median of its coloured faces) is scaled to it. Dim
    light fades a photographed reference (a french 7 of diamonds at chroma 38, the rest
    of the deck at about 77), and where the 7 and the 6 differ every pip's colour then
    sided with the 6 (french from photos, recognition seed 5858). Views are not scaled:
    a small or soft view's strongest colour is fainter for its blur, not its light, and
    scaled each to one strength the procedural styles lost faces to unknown."""
    strength = [colour_strength(x) for x in labs]
    coloured = [v for v in strength if v >= COLOURED]
    if not coloured:
        return [1.0] * len(labs)
    deck = float(np.median(coloured))
    return [min(deck / v, MAX_GAIN) if COLOURED <= v < FADED * deck else 1.0
            for v in strength]


class FaceTemplates:
    """The enrolled faces of one deck, ready for :meth:`match`.

    ``faces``: card code (and ``"back"``) -> upright patch, resized to ``size`` (width,
    height; 64x96 for whole cards), each also compared turned 180 degrees; or a list of
    ``(code, turned, patch)`` taken as they are (the visible strip of a covered card).
    """

    def __init__(self, faces: dict[str, np.ndarray] | list[tuple[str, bool, np.ndarray]],
                 min_similarity: float = 0.6, min_contrast: float = 0.35,
                 max_fit: float = 9.0, size: tuple[int, int] = (PATCH_W, PATCH_H)) -> None:
        self.min_similarity = min_similarity
        self.min_contrast = min_contrast
        self.max_fit = max_fit
        self.size = size
        self.coarse_size = (max(8, size[0] // 2), max(8, size[1] // 2))
        self.labels: list[str] = []
        self.turned: list[bool] = []
        self._labs: list[np.ndarray] = []
        if isinstance(faces, dict):
            faces = [(c, t, p[::-1, ::-1] if t else p) for c, p in faces.items()
                     for t in (False, True)]
        for code, turned, patch in faces:
            self.labels.append(code)
            self.turned.append(turned)
            self._labs.append(_lab(np.ascontiguousarray(patch), size))
        self._label_arr = np.array(self.labels)
        # Each row's same face the other way up (-1: none, as for a covered card's strip).
        where = {(c, t): i for i, (c, t) in enumerate(zip(self.labels, self.turned, strict=True))}
        self._twin = [where.get((c, not t), -1)
                      for c, t in zip(self.labels, self.turned, strict=True)]
        self._pairs: dict[tuple[int, int, int], tuple[np.ndarray, float]] = {}
        self.slow = 0  # patches that needed aligning (for the benchmarks)
        self._gain = _gains(self._labs)
        self._fine = np.stack([features(x, gain=g) for x, g in zip(self._labs, self._gain,
                                                                  strict=True)])
        self._soft: dict[tuple[int, int], np.ndarray] = {}  # (level, row): softened face
        self._coarse = np.stack([
            features(cv2.resize(x, self.coarse_size, interpolation=cv2.INTER_AREA), blur=0.6,
                     gain=g) for x, g in zip(self._labs, self._gain, strict=True)])
        self._small_gray = [_print(cv2.resize(x[..., 0], self.coarse_size,
                                              interpolation=cv2.INTER_AREA), 0.7)
                            for x in self._labs]
        self._gray = [_print(x[..., 0], 1.0) for x in self._labs]
        self._ecc_tpl: dict[tuple[int, int], EccTemplate] = {}  # made when first aligned to

    def _ecc(self, row: int, motion: int) -> EccTemplate:
        hit = self._ecc_tpl.get((row, motion))
        if hit is None:
            face = self._small_gray[row] if motion == AFFINE else self._gray[row]
            hit = self._ecc_tpl[row, motion] = EccTemplate(face, motion)
        return hit

    @property
    def codes(self) -> list[str]:
        return sorted(set(self.labels))

    def _rows(self, allowed: Iterable[str] | None) -> np.ndarray:
        if allowed is None:
            return np.arange(len(self.labels))
        keep = set(allowed)
        return np.array([i for i, c in enumerate(self.labels) if c in keep], int)

    def _align(self, lab: np.ndarray, small_gray: np.ndarray, row: int,
               gray: np.ndarray | None = None, start: np.ndarray | None = None,
               start_fine: np.ndarray | None = None,
               ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """``lab`` warped onto face ``row``: ECC (affine) at the shortlist's size, then,
        with ``gray`` (the patch's blurred lightness), refined at full size as a
        homography (a corner a few pixels off is a perspective error: an affine warp
        leaves the far end of the card misaligned by the pip's width that tells a club
        from a spade). ``start``: another face's coarse warp to begin from;
        ``start_fine`` (with ``gray``): another face's full warp, refined alone. Returns
        the warped patch (None when ECC does not converge or the warp is no correction),
        the coarse warp (None when ECC failed) and the full one."""
        w, h = self.size
        if start_fine is not None and gray is not None:
            coarse, warp = start, start_fine.copy()
        else:
            warp = np.eye(2, 3, dtype=np.float32) if start is None else start.copy()
            warp = align(self._ecc(row, AFFINE), small_gray, warp,
                         *(_ECC if start is None else _ECC_WARM))
            if warp is None:  # a blank or wildly different patch
                return None, None, None
            coarse = warp
            s = w / self.coarse_size[0]
            a = warp[:, :2]
            # Pixel centres: x_small = (x + 0.5) / s - 0.5.
            t = s * warp[:, 2] + 0.5 * (s - 1) * (1 - a.sum(axis=1))
            warp = np.vstack([np.hstack([a, t[:, None]]), [0.0, 0.0, 1.0]]).astype(np.float32)
        if gray is not None:
            fine = align(self._ecc(row, HOMOGRAPHY), gray, warp, *_ECC_FINE)
            if fine is not None:  # else keep the coarse warp
                warp = fine
        # The detector's corners are off by a few pixels, not by a pip: a warp that has to
        # stretch, slide or bend the patch further is fitting part of a card (or another
        # card's layout) onto a whole face, and what it would show is no evidence.
        if np.abs(warp[:2, :2] - np.eye(2)).max() > MAX_STRETCH or \
                abs(warp[0, 2]) > MAX_SLIDE * w or abs(warp[1, 2]) > MAX_SLIDE * h or \
                np.abs(warp[2, :2]).max() * max(w, h) > MAX_BEND:
            return None, coarse, warp
        return cv2.warpPerspective(lab, warp, self.size,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE), coarse, warp

    def match(self, patch: np.ndarray, allowed: Iterable[str] | None = None,
              only: bool = False) -> Verdict:
        """Name the card in ``patch`` (BGR) as one of the ``allowed`` codes.

        ``allowed`` are the cards that can honestly lie there (the rules say the rest are
        elsewhere). The rules only ever take a name away: the patch must be plainly the
        card against every face of the deck, and one that is plainly another card, or
        like two, stays unknown; the ranked cards it might be are the allowed ones.
        With ``only`` no other card can physically be there (the face-up card under the
        stock is the briscola or the card a swap put there): only they compete.
        """
        if only and allowed is not None:
            return self._match(patch, allowed)
        v = self._match(patch, None)
        if allowed is None:
            return v
        keep = set(allowed)
        ranked = tuple(c for c in v.ranked if c in keep)
        if v.card is not None and v.card not in keep:
            return Verdict(None, v.similarity, v.contrast, v.turned, ranked, v.card, v.fit,
                           v.best)
        if v.card is None and len(ranked) < min(3, len(keep)):  # the likeliest, to ask
            ranked += tuple(self._match(patch, keep).ranked)
            ranked = tuple(dict.fromkeys(ranked))
        return Verdict(v.card, v.similarity, v.contrast, v.turned, ranked, v.runner_up, v.fit,
                       v.best)

    def plain_similarity(self, patch: np.ndarray) -> float:
        """The patch's correlation with the face (either way up) it is most like among
        the shortlist, without aligning it (as :meth:`match` first compares it)."""
        return max(self._first_look(patch, np.arange(len(self.labels)))[4].values())

    def _first_look(self, patch: np.ndarray, rows: np.ndarray):
        """The patch in Lab and at the shortlist's size, the ``rows`` by the coarse
        comparison (best first), its features, and its unaligned correlation with the
        :data:`RIVALS` best of them (row -> correlation). (The shortlist first: one
        product with every face in full is large enough for the BLAS to spread over
        threads.)"""
        lab = _lab(patch, self.size)
        small = cv2.resize(lab, self.coarse_size, interpolation=cv2.INTER_AREA)
        coarse = self._coarse[rows] @ features(small, blur=0.6)
        order = rows[np.argsort(coarse)[::-1]]
        near = order[:RIVALS]  # every face the fine comparison looks at
        fine = features(lab)
        sims = dict(zip(map(int, near), map(float, self._fine[near] @ fine), strict=True))
        return lab, small, order, fine, sims

    def _match(self, patch: np.ndarray, allowed: Iterable[str] | None) -> Verdict:
        rows = self._rows(allowed)
        if len(rows) == 0:
            return Verdict(None, 0.0, 0.0, False, ())
        lab, small, order, fine, sims = self._first_look(patch, rows)
        best, second = self._top2(sims)
        if second is None:
            return Verdict(self.labels[best], sims[best], 1.0, self.turned[best],
                           self._ranked(sims), best=self.labels[best])
        contrast, second, fit = self._contrast_all(lambda r: fine, best, sims)
        if not (sims[best] >= FAST_SIMILARITY and contrast >= FAST_CONTRAST):
            # Not plain at once: align the likeliest faces and look again.
            self.slow += 1
            small_gray = _print(small[..., 0], 0.7)
            gray = _print(lab[..., 0], 1.0)
            feats = {}
            # Faces that fit only by a warp beyond the limits: never named from it, but
            # judged in it as rivals (a card outlined askew fits its own face only so,
            # and in the unaligned view it would lose to a face of the same layout that
            # fits within them: a 3 of spades named the 3 of clubs).
            beyond: dict[int, np.ndarray] = {}  # face -> its warp
            unaligned: set[int] = set()  # faces seen only unaligned (no warp within limits)
            askew: dict[int, np.ndarray] = {}  # the patch in those faces' frames beyond them
            start = fine_start = None  # the first face's warps, where the others begin
            for k, r in enumerate(dict.fromkeys([best, second, *map(int, order[:SHORTLIST])])):
                warped, coarse, full = self._align(lab, small_gray, r, gray if k < 2 else None,
                                                   start, fine_start if k == 1 else None)
                if k == 0:
                    start, fine_start = coarse, (full if warped is not None else None)
                if warped is not None:
                    feats[r] = features(warped)
                    sims[r] = max(sims[r], float(self._fine[r] @ feats[r]))
                elif full is not None:
                    beyond[r] = full
                if len(feats) == SHORTLIST:
                    break
            def aligned(r: int) -> np.ndarray:
                """The patch as aligned with face ``r``: each face is judged in its own
                frame (an enrollment photo a little off must not lose for being off)."""
                if r not in feats:  # a rival beyond the shortlist: the coarse warp will do
                    warped, _, full = self._align(lab, small_gray, r, None, start)
                    if warped is None:
                        unaligned.add(r)
                        if full is not None:
                            beyond.setdefault(r, full)
                    feats[r] = fine if warped is None else features(warped)
                    sims[r] = max(sims[r], float(self._fine[r] @ feats[r]))
                return feats[r]

            def rival(r: int) -> np.ndarray:
                """The patch as a rival face ``r`` sees it: aligned within the limits if it
                can be, else in its own frame beyond them, else unaligned."""
                f = aligned(r)
                if r not in unaligned or r not in beyond:
                    return f
                if r not in askew:
                    askew[r] = features(cv2.warpPerspective(
                        lab, beyond[r], self.size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                        borderMode=cv2.BORDER_REPLICATE))
                return askew[r]

            # The two likeliest cards are each aligned both ways up: with an outline a
            # few pixels off at one end, a card's face the wrong way up can look more
            # like the view unaligned than its own (a triestine 7 of coins, whose odd pip
            # lies off centre, read as the 6 when only its wrong way up was aligned).
            for r in self._top2(sims):
                twin = -1 if r is None else self._twin[r]
                if twin >= 0 and twin not in feats:
                    warped, _, full = self._align(lab, small_gray, twin, gray)
                    if warped is not None:
                        feats[twin] = features(warped)
                        sims[twin] = max(sims.get(twin, -1.0),
                                         float(self._fine[twin] @ feats[twin]))
                    elif full is not None:
                        beyond[twin] = full
            best, second = self._top2(sims)
            level = self._softness(aligned(best), best)
            contrast, second, fit = self._contrast_all(aligned, best, sims, level, rival)
            if contrast <= -self.min_contrast and not (second in unaligned and second in beyond):
                # The deciding pixels side with the runner-up: judge it as the best.
                back, third, fit2 = self._contrast_all(aligned, second, sims, level, rival)
                if back >= self.min_contrast:
                    best, second, contrast, fit = second, third, back, fit2
        verdict = Verdict(None, sims[best], contrast, self.turned[best], self._ranked(sims),
                          self.labels[second], fit, self.labels[best])
        if sims[best] < self.min_similarity or contrast < self.min_contrast \
                or fit > self.max_fit:
            return verdict
        return Verdict(self.labels[best], sims[best], contrast, self.turned[best],
                       verdict.ranked, self.labels[second], fit, self.labels[best])

    def _top2(self, sims: dict[int, float]) -> tuple[int, int | None]:
        best = max(sims, key=sims.get)
        others = [r for r in sims if self.labels[r] != self.labels[best]]
        return best, (max(others, key=sims.get) if others else None)

    def _soft_face(self, level: int, row: int) -> np.ndarray:
        """Face ``row``'s features softened by ``SOFTER[level]`` (made when first asked:
        most faces are never compared softened)."""
        if level == 0:
            return self._fine[row]
        hit = self._soft.get((level, row))
        if hit is None:
            hit = self._soft[level, row] = features(
                cv2.GaussianBlur(self._labs[row], (0, 0), SOFTER[level]), gain=self._gain[row])
        return hit

    def _softness(self, query: np.ndarray, row: int) -> int:
        """The level of :data:`SOFTER` at which face ``row`` is most like ``query``: how
        much softer the view is than its enrolled face."""
        sims = [float(self._soft_face(k, row) @ query) for k in range(len(SOFTER))]
        return int(np.argmax(sims))

    def _contrast_all(self, query: Callable[[int], np.ndarray], best: int,
                      sims: dict[int, float], level: int = 0,
                      rival: Callable[[int], np.ndarray] | None = None,
                      ) -> tuple[float, int, float]:
        """The weakest :meth:`_contrast` of ``best`` against the likeliest other cards
        (a wrong face must not win against the two runners-up that are themselves wrong
        when the right one could not be aligned), and that rival. ``rival``: the patch as
        each rival sees it (default ``query``)."""
        rival = rival or query
        code = self.labels[best]
        rivals: list[int] = []
        for r in sorted(sims, key=sims.get, reverse=True):
            if self.labels[r] != code and all(self.labels[r] != self.labels[x] for x in rivals):
                rivals.append(r)
            if len(rivals) == RIVAL_CARDS:
                break
        judged = {r: self._contrast(query(best), rival(r), best, r, level) for r in rivals}
        worst = min(judged, key=lambda r: judged[r][0])
        return judged[worst][0], worst, max(f for _, f in judged.values())

    def _contrast(self, qa: np.ndarray, qb: np.ndarray, a: int, b: int,
                  level: int = 0) -> tuple[float, float]:
        """How much ``query`` sides with face ``a`` over face ``b`` on the pixels where
        the two faces differ most (+1 exactly ``a``, -1 exactly ``b``), and how far it is
        from ``a`` there, against how far ``b`` is (0: exactly ``a``; a view that is
        like neither, a degraded reference, is far from both). ``qa`` and ``qb`` are the
        patch as aligned with each face; ``level``: both faces softened that much."""
        where, fa, fb, energy = self._deciding(a, b, level)
        ea = float(np.sum((qa[where] - fa) ** 2))
        eb = float(np.sum((qb[where] - fb) ** 2))
        return (eb - ea) / (eb + ea + 1e-9), ea / (energy + 1e-9)

    def _deciding(self, a: int, b: int, level: int = 0,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """The pixels where faces ``a`` and ``b`` (softened to ``level``) differ most
        (the top tenth), their values there, and the difference's energy; kept, as pairs
        recur frame after frame."""
        key = (level, a, b) if a < b else (level, b, a)
        fa, fb = self._soft_face(level, a), self._soft_face(level, b)
        hit = self._pairs.get(key)
        if hit is None:
            d2 = (fa - fb) ** 2
            k = int(0.9 * len(d2))
            where = np.nonzero(d2 >= np.partition(d2, k)[k])[0]
            # (Short indices: a table that runs for hours meets thousands of pairs.)
            small = where.astype(np.uint16) if len(d2) <= 65536 else where
            hit = self._pairs[key] = (small, float(d2[where].sum()))
        where, energy = hit
        return where, fa[where], fb[where], energy

    def _ranked(self, sims: dict[int, float], n: int = 6) -> tuple[str, ...]:
        out: list[str] = []
        for r in sorted(sims, key=sims.get, reverse=True):
            if self.labels[r] not in out:
                out.append(self.labels[r])
        return tuple(out[:n])


def half_templates(faces: dict[str, np.ndarray], rows: int) -> FaceTemplates:
    """Templates of the first ``rows`` rows of each upright face, and of each face turned
    (the card may lie either way up under the stock)."""
    entries = []
    for code, face in faces.items():
        if code == "back":
            continue
        face = cv2.resize(face, (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA)
        entries += [(code, False, face[:rows]), (code, True, face[::-1, ::-1][:rows])]
    return FaceTemplates(entries, size=(PATCH_W, rows))
