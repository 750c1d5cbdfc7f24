"""What lies in each zone of the mat, frame by frame: the tracker's eyes.

For each camera frame: a cheap thumbnail comparison skips frames in which
nothing changed; the mat's markers give the homography (re-estimated every few
frames and whenever the picture moves, so a bumped camera recovers by itself);
the frame is rectified to a top-down view; cards are found as card-shaped
blobs that are not mat-coloured and named by the recognizer (only when they
moved: identities are cached per zone); what is neither mat nor card is a hand,
and a zone whose card (or whose empty area) a hand touches is reported hidden,
with the seats whose side of the mat the hand comes from.

The face-up briscola lies crosswise half under the stock. It is read whole when
it is laid (before the stock goes on top); once covered, its visible half is
only compared with the few cards the rules allow there (``briscola_hint``),
which is how a swap of the 7 or the 2 of trump is seen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import Calibrator
from vision.deck import BACK
from vision.deck_art import CARD_H_MM, CARD_W_MM, card_mm
from vision.detect import (
    find_cards_on_mat,
    mask_on_mat,
    mat_color,
    quads_from_mask,
    refine_corners,
    warp_card,
)
from vision.embed import PATCH_H, PATCH_W
from vision.mat import MAT_BGR, MatLayout, Zone, draw_mat
from vision.recognize import Recognizer
from vision.tracker import UNKNOWN, FrameObs, Tracker, ZoneObs
from vision.verify import FaceTemplates, half_templates

REREAD_EVERY = 3  # frames between two looks at a card left unnamed in an unchanged view


@dataclass
class ObserverStats:
    frames: int = 0
    unchanged: int = 0  # frames answered from the previous observation
    uncalibrated: int = 0  # frames dropped: no mat marker seen yet
    broken: int = 0  # frames dropped: not an image
    calibrations: int = 0
    recognitions: int = 0  # card patches sent to the network


def _zone_mask(zone: Zone, size: tuple[int, int], px_per_mm: float) -> np.ndarray:
    mask = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillConvexPoly(mask, np.round(zone.corners() * px_per_mm).astype(np.int32), 255)
    return mask


class TableObserver:
    """Frames in, :class:`vision.tracker.FrameObs` out (see the module docstring)."""

    def __init__(self, layout: MatLayout, recognizer: Recognizer, seat_zones: dict[int, str],
                 *, px_per_mm: float = 1.25, calibrate_every: int = 45,
                 briscola_hint: Callable[[], Sequence[str]] | None = None,
                 possible: Callable[[str], set[str] | None] | None = None,
                 unchanged_level: float = 6.0) -> None:
        self.layout = layout
        self.recognizer = recognizer
        # Cards are found at a low resolution (cheap); they are named from the camera
        # frame itself, at full resolution.
        self.px = px_per_mm
        self.cal = Calibrator(layout, px_per_mm)
        self.calibrate_every = calibrate_every
        self.briscola_hint = briscola_hint
        # zone -> the cards that can honestly lie there (the rules' help); None: any.
        self.possible = possible
        # The deck's cards, as large as the mat's card of their shape (scans carry no scale).
        deck = getattr(recognizer, "deck", None)
        self.card_mm = card_mm(deck.ratio) if deck is not None else (CARD_W_MM, CARD_H_MM)
        self.unchanged_level = unchanged_level
        self.stats = ObserverStats()
        self.play_zones = list(seat_zones.values())
        # Briscola chiamata's mat has no stock and no face-up card.
        self.zone_names = [*self.play_zones, *(["briscola"] if layout.has_stock else [])]
        self.place_seat = {int(z[4:]): s for s, z in seat_zones.items()}
        size = self.cal.size
        self._zone_masks = {n: _zone_mask(layout.zones[n], size, px_per_mm)
                            for n in (*self.zone_names,
                                      *(["stock"] if layout.has_stock else []))}
        # The stock, the briscola under it and the piles of won tricks are heaps of cards
        # that are not card-shaped blobs: never take them for hands. A hand reaching them
        # is seen crossing the ring around them.
        heaps = np.zeros((size[1], size[0]), np.uint8)
        for name, zone in layout.zones.items():
            if name in ("stock", "briscola") or name.startswith("tricks"):
                heaps = cv2.bitwise_or(heaps, _zone_mask(zone, size, px_per_mm))
        self._heaps = cv2.dilate(heaps, self._kernel(4.5))
        self._zone_regions = {n: cv2.dilate(self._zone_masks[n], self._kernel(12))
                              for n in self.zone_names}
        self._halves: dict[int, FaceTemplates] = {}
        if layout.has_stock:
            self._init_briscola(layout)
        # Each place's stretch of the mat's edge, in rectified pixels, where its
        # players' arms come in (two places share a long edge with 5 and 6 players).
        self._edge_spans = {p: (pl.edge, round(pl.span[0] * px_per_mm),
                                round(pl.span[1] * px_per_mm))
                            for p, pl in layout.places.items() if p in self.place_seat}
        # Markers, their white margins and printed labels are "not mat" but not hands.
        empty = draw_mat(layout, px_per_mm)
        static = mask_on_mat(empty, mat_color(empty))
        # Everything printed counts, however faint at this scale: the camera may see a
        # label's stroke as "not mat" where the coarse drawing does not.
        printed = np.any(np.abs(empty.astype(np.int16) - np.array(MAT_BGR, np.int16)) > 12,
                         axis=2)
        static = cv2.bitwise_or(static, printed.astype(np.uint8) * 255)
        # Where each marker should appear in the rectified view, to notice a bumped camera.
        gray = cv2.cvtColor(empty, cv2.COLOR_BGR2GRAY)
        self._markers = []
        for corners in layout.markers.values():
            x0, y0 = np.floor(corners.min(0) * px_per_mm).astype(int) + 1
            x1, y1 = np.ceil(corners.max(0) * px_per_mm).astype(int) - 1
            self._markers.append((slice(y0, y1), slice(x0, x1), gray[y0:y1, x0:x1] > 127))
        self._static = cv2.dilate(static, self._kernel(3.5))
        self._mat_lab: np.ndarray | None = None
        self._thumb: np.ndarray | None = None
        self._last: FrameObs | None = None
        self._still_frames = 0
        self._since_cal = 0
        self._cache: dict[str, tuple[tuple, ZoneObs]] = {}
        self._paper: np.ndarray | None = None

    def _init_briscola(self, layout: MatLayout) -> None:
        """The masks that find the face-up briscola half under the stock."""
        masks = self._zone_masks
        stock = cv2.bitwise_or(masks["stock"], masks["briscola"])
        ring = cv2.dilate(stock, self._kernel(50))
        self._briscola_ring = cv2.subtract(ring, cv2.dilate(stock, self._kernel(4.5)))
        vis = cv2.subtract(masks["briscola"], masks["stock"])
        self._briscola_visible = vis
        # Where the briscola sticks out from under the stock (its zone, grown by a few mm
        # for a card laid a little off), and which way is out.
        grown = cv2.dilate(masks["briscola"], self._kernel(8))
        self._briscola_outside = cv2.subtract(grown, cv2.dilate(masks["stock"],
                                                                 self._kernel(2)))
        out = np.array(layout.zones["briscola"].center) - np.array(layout.zones["stock"].center)
        self._briscola_out = (out / (np.linalg.norm(out) + 1e-9)).astype(np.float32)
        self._briscola_visible_px = max(1, int(np.count_nonzero(vis)))
        self._stock_px = max(1, int(np.count_nonzero(masks["stock"])))

    def _kernel(self, mm: float) -> np.ndarray:
        """A square structuring element about ``mm`` millimetres wide."""
        n = max(3, int(round(mm * self.px)) | 1)
        return np.ones((n, n), np.uint8)

    # -- per frame -------------------------------------------------------------------

    def observe(self, frame: np.ndarray, t: float) -> FrameObs | None:
        """What each zone holds in ``frame``; None when the frame cannot be used."""
        self.stats.frames += 1
        if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 \
                or frame.dtype != np.uint8 or min(frame.shape[:2]) < 32:
            self.stats.broken += 1
            return None
        h, w = frame.shape[:2]
        # Every 4th pixel, then 4x4 averages: a 16x smaller picture for a fraction of
        # a millisecond, averaged enough that sensor noise does not look like change.
        small = cv2.resize(frame[::4, ::4], (w // 16, h // 16), interpolation=cv2.INTER_AREA)
        thumb = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.int16)
        if self._last is not None and self._thumb is not None:
            change = np.abs(thumb - self._thumb)
            unnamed = any(z.content == UNKNOWN and not z.hidden
                          for z in self._last.zones.values())
            self._still_frames = self._still_frames + 1 if unnamed else 0
            # A card left unnamed is looked at again every few frames, still or not: the
            # first look may have caught a finger leaving it.
            if float(change.max()) < self.unchanged_level and \
                    not (unnamed and self._still_frames % REREAD_EVERY == 0):
                self.stats.unchanged += 1
                return FrameObs(t, self._last.zones, self._last.hands_from)
            moved = float(np.mean(change > 3 * self.unchanged_level)) > 0.5
        else:
            moved = True
        self._thumb = thumb
        self._since_cal += 1
        if self.cal.current is None or moved or self._since_cal >= self.calibrate_every:
            self._since_cal = 0
            before = self.cal.current
            self.cal.update(frame)
            if self.cal.current is not before and self._moved(before):
                self.stats.calibrations += 1
                self._cache.clear()  # the cards' pixels moved: name them again
        if self.cal.current is None:
            self.stats.uncalibrated += 1
            return None
        rect = self.cal.rectify(frame)
        if not self._markers_in_place(rect):
            # The markers are not where the homography puts them: the camera moved.
            before = self.cal.current
            self.cal.update(frame)
            self._since_cal = 0
            if self.cal.current is not before and self._moved(before):
                self.stats.calibrations += 1
                self._cache.clear()
                rect = self.cal.rectify(frame)
        obs = self._observe_rectified(frame, rect, t)
        self._last = obs
        return obs

    def _markers_in_place(self, rect: np.ndarray) -> bool:
        """At least two markers look as printed where the homography puts them (hands
        may cover the others)."""
        gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
        good = 0
        for ys, xs, expected in self._markers:
            roi = gray[ys, xs]
            if roi.size == 0:
                continue
            _, binary = cv2.threshold(roi, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
            if np.mean((binary > 127) != expected) < 0.2:
                good += 1
        return good >= 2

    def _moved(self, before) -> bool:
        """Whether the new homography moves the mat's corners by a pixel or more."""
        if before is None:
            return True
        w, h = self.cal.size
        corners = np.float32([[[0, 0], [w, 0], [w, h], [0, h]]])
        a = cv2.perspectiveTransform(corners, np.linalg.inv(before.homography))
        b = cv2.perspectiveTransform(corners, np.linalg.inv(self.cal.current.homography))
        return float(np.abs(a - b).max()) >= 1.0

    def _to_image(self, points: np.ndarray) -> np.ndarray:
        """Rectified pixels -> camera pixels."""
        inv = np.linalg.inv(self.cal.current.homography)
        return cv2.perspectiveTransform(np.asarray(points, np.float32)[None], inv)[0]

    def _observe_rectified(self, frame: np.ndarray, rect: np.ndarray, t: float) -> FrameObs:
        if self._mat_lab is None or self.stats.frames % 30 == 0:
            self._mat_lab = mat_color(rect)
        quads, notmat = find_cards_on_mat(rect, self.px, self.card_mm, self._mat_lab)
        quads += self._zone_quads(notmat, quads)
        cards = np.zeros_like(notmat)
        for q in quads:
            cv2.fillConvexPoly(cards, np.round(q.corners).astype(np.int32), 255)
        cards = cv2.dilate(cards, self._kernel(4.5))
        hands = cv2.subtract(cv2.subtract(cv2.subtract(notmat, self._static), cards),
                             self._heaps)
        hands = cv2.morphologyEx(hands, cv2.MORPH_OPEN, self._kernel(3.5))
        touch = int(10 * self.px * self.px)  # 10 mm^2 of hand makes a zone hidden
        hands_from = self._hand_sides(hands)
        by_zone: dict[str, object] = {}
        for q in quads:
            cx, cy = (q.center / self.px).tolist()
            for name in self.zone_names:
                if self.layout.zones[name].contains((cx, cy)):
                    prev = by_zone.get(name)
                    zc = self.layout.zones[name].center
                    if prev is None or math.dist((cx, cy), zc) < math.dist(
                            tuple(prev.center / self.px), zc):
                        by_zone[name] = q
                    break
        # With the stock on top, the briscola is never a whole card: read its half.
        if self.layout.has_stock and np.count_nonzero(cv2.bitwise_and(
                notmat, self._zone_masks["stock"])) > 0.6 * self._stock_px:
            by_zone.pop("briscola", None)
        zones: dict[str, ZoneObs] = {}
        todo: list[tuple[str, object, tuple]] = []
        for name in self.zone_names:
            q = by_zone.get(name)
            region = self._briscola_ring if name == "briscola" else self._zone_masks[name]
            if q is not None:
                qm = np.zeros_like(region)
                cv2.fillConvexPoly(qm, np.round(q.corners).astype(np.int32), 255)
                region = cv2.dilate(qm, self._kernel(6))
                if name == "briscola":
                    # The spot lies among the heaps, where no hand is looked for: a hand
                    # laying the card is seen crossing the ring around them.
                    region = cv2.bitwise_or(region, self._briscola_ring)
            hidden = bool(np.count_nonzero(cv2.bitwise_and(hands, region)) > touch)
            if q is None or hidden:
                # Nothing there, or a hand that may be changing it: forget the name.
                self._cache.pop(name, None)
                if name == "briscola" and hidden:
                    self._cache.pop("briscola-half", None)
            if q is None:
                if name == "briscola":
                    zones[name] = self._covered_briscola(frame, notmat, hidden)
                else:
                    zones[name] = ZoneObs(None, None, hidden)
                continue
            key = q.corners / self.px  # the card's corners in mm
            cached = self._cache.get(name)
            center = tuple((q.center / self.px).tolist())
            # The same card lying (nearly) where it was: its name is known.
            if cached is not None and float(np.abs(cached[0] - key).max()) < 2.5:
                o = cached[1]
                zones[name] = ZoneObs(o.content, center, hidden, o.confidence, o.candidates)
            elif hidden:
                zones[name] = ZoneObs(UNKNOWN, center, True)  # named once the hand goes
            else:
                todo.append((name, q, key))
                zones[name] = ZoneObs(UNKNOWN, center, hidden)
        if todo:
            # Found in the coarse rectified view: the corners are refined on the frame.
            patches = np.stack([warp_card(frame, refine_corners(frame, self._to_image(q.corners)))
                                for _, q, _ in todo])
            self.stats.recognitions += len(todo)
            allowed = [self.possible(name) if self.possible else None for name, _, _ in todo]
            idents = self.recognizer.identify(patches, allowed=allowed)
            for (name, _q, key), ident in zip(todo, idents, strict=True):
                content = ident.card if ident.card is not None else UNKNOWN
                o = zones[name]
                zones[name] = ZoneObs(content, o.center, o.hidden, ident.confidence,
                                      ident.candidates if ident.card is None else ())
                if not o.hidden and content != UNKNOWN:  # unnamed: read it again
                    self._cache[name] = (key, zones[name])
        return FrameObs(t, zones, hands_from)

    def _zone_quads(self, notmat: np.ndarray, found: list) -> list:
        """Cards of play zones where none was found: cards laid close together touch and
        make one blob, so look again inside each such zone (plus a margin), where the
        neighbour's card is at most a sliver that erosion cuts off."""
        out = []
        card_px = self.card_mm[0] * self.card_mm[1] * self.px * self.px
        ratio = self.card_mm[1] / self.card_mm[0]
        for name in self.play_zones:
            zone = self.layout.zones[name]
            if any(zone.contains(tuple(q.center / self.px)) for q in found):
                continue
            region = self._zone_regions[name]
            part = cv2.bitwise_and(notmat, region)
            if cv2.countNonZero(part) < 0.5 * card_px:
                continue
            for q in quads_from_mask(part, 0.7 * card_px, 1.3 * card_px,
                                     (ratio * 0.85, ratio * 1.15), min_fill=0.8, max_erode=6):
                if zone.contains(tuple(q.center / self.px)):
                    out.append(q)
                    break
        return out

    def _hand_sides(self, hands: np.ndarray) -> tuple[int, ...]:
        """Seats whose edge of the mat a hand-sized blob touches."""
        h, w = hands.shape
        m = max(2, int(4 * self.px))
        min_px = int(600 * self.px * self.px)  # about a palm, in mm^2
        if np.count_nonzero(hands) < min_px:
            return ()
        seats = []
        for place, (edge, lo, hi) in sorted(self._edge_spans.items()):
            strip = {"bottom": hands[h - m:, lo:hi], "right": hands[lo:hi, w - m:],
                     "top": hands[:m, lo:hi], "left": hands[lo:hi, :m]}[edge]
            if np.count_nonzero(strip) > 6 * m:
                seats.append(self.place_seat[place])
        return tuple(seats)

    # -- the briscola under the stock -------------------------------------------------------

    def _covered_briscola(self, frame: np.ndarray, notmat: np.ndarray, hidden: bool
                          ) -> ZoneObs:
        vis = self._briscola_visible
        covered = np.count_nonzero(cv2.bitwise_and(notmat, vis)) / self._briscola_visible_px
        if covered < 0.6:
            return ZoneObs(None, None, hidden)  # no card lies there
        hint = list(self.briscola_hint()) if self.briscola_hint else []
        faces = self.recognizer.deck.faces() if hasattr(self.recognizer, "deck") else {}
        if hidden or not hint or not faces:
            return ZoneObs(UNKNOWN, None, hidden)
        zone = self.layout.zones["briscola"]
        center = tuple(float(c) for c in zone.center)
        found = self._visible_part(frame, notmat)
        if found is None:
            return ZoneObs(UNKNOWN, center, hidden)
        strip, rows = found
        key = ("half", tuple(hint), rows, int(strip.mean()))
        cached = self._cache.get("briscola-half")
        if cached is not None and cached[0][:3] == key[:3] and abs(cached[0][3] - key[3]) < 6:
            return cached[1]
        self.stats.recognitions += 1
        # Only the cards that may lie there compete (the briscola, and the 7 and 2 of
        # trump a swap puts there); two of them that show the same part stay unknown.
        templates = self._halves.get(rows)
        if templates is None:
            templates = self._halves[rows] = half_templates(faces, rows)
        v = templates.match(strip, hint, only=True)
        if v.card is not None:
            obs = ZoneObs(v.card, center, hidden, round(v.similarity, 4))
        else:
            ranked = tuple(c for c in v.ranked if c in hint) or tuple(hint)
            obs = ZoneObs(UNKNOWN, center, hidden, round(v.similarity, 4), ranked)
        self._cache["briscola-half"] = (key, obs)
        return obs

    def _visible_part(self, frame: np.ndarray, notmat: np.ndarray,
                      ) -> tuple[np.ndarray, int] | None:
        """The part of the crosswise briscola the stock leaves visible, as the first rows
        of the whole card's upright 64x96 patch, and how many rows that is.

        The card's outline is found where it sticks out (its width and its outer end);
        the rest of it is under the stock, as long as the deck's cards are.
        """
        part = cv2.bitwise_and(notmat, self._briscola_outside)
        contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not contours:
            return None
        blob = max(contours, key=cv2.contourArea)
        box = cv2.boxPoints(cv2.minAreaRect(blob))
        u = self._briscola_out  # unit vector from the stock out along the card
        proj = box @ u
        order = np.argsort(proj)
        outer = box[order[2:]]
        width = float(np.linalg.norm(outer[0] - outer[1]))
        seen = float(proj[order[2:]].mean() - proj[order[:2]].mean())
        card_w = self.card_mm[0] * self.px
        if not 0.75 * card_w <= width <= 1.3 * card_w:
            return None  # not one card's width: a hand, two cards, a misplaced card
        length = width * self.card_mm[1] / self.card_mm[0]
        rows = int((seen / length) * PATCH_H) - 3  # the stock's edge and shadow left out
        rows -= rows % 4  # a few sizes of templates, not one per frame
        if rows < PATCH_H // 4:
            return None
        edge = outer[1] - outer[0]
        # Clockwise on screen (y down): the card's body lies to the right of TL -> TR.
        tl, tr = outer if float(edge[0] * -u[1] - edge[1] * -u[0]) > 0 else outer[::-1]
        quad = np.float32([tl, tr, tr - u * length, tl - u * length])
        patch = warp_card(frame, self._to_image(quad), (PATCH_W, PATCH_H))
        return patch[:rows], rows


def table_eyes(layout: MatLayout, recognizer: Recognizer, seat_zones: dict[int, str],
               hand: Callable[[], object]) -> tuple[TableObserver, Tracker]:
    """An observer and a tracker wired together: the tracker reads the referee's hand
    (``hand()``) and tells the observer which cards the rules allow where
    (:meth:`Tracker.readable`)."""
    tracker = Tracker(seat_zones, hand)
    observer = TableObserver(layout, recognizer, seat_zones,
                             briscola_hint=tracker.briscola_candidates,
                             possible=tracker.readable)
    return observer, tracker


def seat_zones_for(players: int, direction: str = "ccw") -> dict[int, str]:
    """Seat (order of play) -> its play zone on the mat."""
    from table_controller.engine.rules import Direction
    from vision.mat import seats_for

    places = seats_for(players)
    d = Direction.parse(direction)
    return {seat: f"play{places[d.place_of(seat, players)]}" for seat in range(players)}


__all__ = ["TableObserver", "ObserverStats", "seat_zones_for", "table_eyes", "BACK"]
