"""The simulated table: a whole match played by bots on the mat, filmed frame by frame.

Bots (``table_controller.engine.simulation``) play real shuffled hands; this module
choreographs them on the play mat as a camera would see them: the dealer lays
the stock with the briscola crosswise under it, hands reach in from each seat
and leave cards in the play zones with small random offsets and rotations, the
winner sweeps the trick onto a pile, the stock shrinks and the face-up card is
taken last. Light drifts, the sensor is noisy and the camera is bumped now and
then. Faults can be injected on request. Every frame knows the ground truth:
the referee events a perfect observer would report, at the frame where the
card comes to rest.

Rendering is incremental: the top-down picture of the mat and the cards lying
still is redrawn only when a card moves; each frame adds the moving hand, warps
to the camera and adds light and noise.
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from table_controller.engine.cards import ALL_CARDS, Card
from table_controller.engine.events import Call, Collect, Event, Play, Swap, Trump
from table_controller.engine.rules import HandRules
from table_controller.engine.simulation import SimulatedHand, play_hand
from vision.deck_art import CARD_H_MM, CARD_W_MM, DeckStyle, card_mm, render_deck
from vision.deck_folder import on_white
from vision.mat import LONG_TABLE, MatLayout, draw_mat, mat_layout, seats_for
from vision.observer import seat_zones_for
from vision.scenes import camera_homography, card_corners_mm
from vision.tracker import FrameObs, ZoneObs

SKIN = ((150, 190, 235), (110, 150, 205), (80, 120, 170), (170, 205, 240))
SLEEVES = ((90, 40, 30), (40, 40, 140), (60, 110, 60), (130, 130, 130))


class Fault(enum.StrEnum):
    """Mishaps the simulator can stage; each has a known right reaction."""

    OUT_OF_TURN = "out_of_turn"  # a seat plays before its turn, then takes the card back
    WRONG_ZONE = "wrong_zone"  # a played card is knocked into the next seat's zone, then back
    TAKEN_BACK = "taken_back"  # a seat plays a card, takes it back, plays another
    COVER = "cover"  # a hand rests over a played card for a second


@dataclass(frozen=True)
class Pace:
    """Frames per gesture."""

    reach: int
    retreat: int
    pause: int
    collect_pause: int
    deal: int

    @classmethod
    def named(cls, name: str) -> Pace:
        if name == "fast":
            return cls(reach=3, retreat=3, pause=5, collect_pause=4, deal=6)
        if name == "real":
            return cls(reach=10, retreat=8, pause=12, collect_pause=18, deal=30)
        raise ValueError(f"unknown pace {name!r}: use 'real' or 'fast'")


@dataclass(frozen=True)
class SimOptions:
    players: int = 2
    variants: tuple[str, ...] = ()
    match: int = 1  # best of 1, 3 or 5 hands
    hands: int | None = None  # play exactly this many hands instead of a match
    seed: int = 0
    fps: float = 30.0
    size: tuple[int, int] = (1280, 720)
    paper: str | None = None  # None: A3, or A2 for 5 and 6 players (their only mat)
    tilt: float = 12.0  # degrees from straight down
    pace: str = "real"
    faults: tuple[str, ...] = ()  # Fault names: each is staged once per hand
    bumps: bool = True
    effects: float = 1.0  # light drift and noise; 0 for clean frames
    direction: str = "ccw"
    first_dealer: int | None = None
    deck_style: int = 0
    bot: str = "sensible"


@dataclass
class TruthEvent:
    frame: int
    t: float
    event: dict[str, Any]  # the referee event (JSON form) a perfect observer reports


@dataclass
class TruthFault:
    frame: int
    t: float
    fault: Fault
    seat: int
    card: str
    expect: str | None  # the violation kind the referee should report, or None


@dataclass
class Resting:
    """A card lying still on the mat."""

    code: str  # card code or "back"
    center: tuple[float, float]
    angle: float
    size: tuple[float, float] | None = None  # mm; None: the deck's card size


@dataclass
class FrameSpec:
    index: int
    t: float
    version: int  # changes whenever a resting card moves
    hand: tuple[int, float, tuple[float, float]] | None  # place, reach 0..1, target mm
    truth: list[TruthEvent] = field(default_factory=list)
    bumped: bool = False
    # What the players enter at the table (phone or buttons) at this frame because no
    # camera sees it: with no stock (chiamata), each new hand after the first (NEW
    # HAND) and the spoken auction's result (a ``call``).
    spoken: list[dict[str, Any]] = field(default_factory=list)


class SimulatedTable:
    """A match on the simulated table: iterate :meth:`frames` for (spec, image) pairs.

    ``faces`` (card code and ``"back"`` -> BGR or BGRA image, e.g. from
    :func:`vision.deck_folder.load_deck_faces` with ``alpha=True``) draws the cards
    with a real deck's art instead of the procedural ``deck_style``.
    """

    def __init__(self, options: SimOptions | None = None, *,
                 faces: dict[str, np.ndarray] | None = None, **kw: Any) -> None:
        self.opt = opt = options or SimOptions(**kw)
        self.rng = random.Random(opt.seed)
        self.np_rng = np.random.default_rng(opt.seed)
        paper = opt.paper or ("A2" if opt.players in LONG_TABLE else "A3")
        self.layout: MatLayout = mat_layout(paper, opt.players, opt.direction)
        self.places = list(seats_for(opt.players))
        self._seat_zones = seat_zones_for(opt.players, opt.direction)
        self.pace = Pace.named(opt.pace)
        self.rules = HandRules.of(opt.players, frozenset(opt.variants))
        self.faults = tuple(Fault(f) for f in opt.faults)
        self.px_per_mm = 3.0
        self._mat = draw_mat(self.layout, self.px_per_mm)
        if faces is None:
            self._faces = render_deck(DeckStyle.from_seed(opt.deck_style))
            self.card_mm = (CARD_W_MM, CARD_H_MM)
        else:
            self._faces, self.card_mm = _deck_faces(faces)
        self.truth: list[TruthEvent] = []
        self.faults_staged: list[TruthFault] = []
        self.hands: list[SimulatedHand] = []
        self._cards: dict[str, Resting] = {}
        self._version = 0
        self._frame = 0
        self._plane_version = -1
        self._plane: np.ndarray | None = None
        self._cam = self._camera(0.0, 0.0, 0.0, (0.0, 0.0))
        self._piles: dict[str, int] = {}  # pile zone -> tricks on it
        W, H = opt.size
        # A few frames of zero-mean sensor noise, cycled: cheap and still flickering.
        self._noise = [np.clip(self.np_rng.normal(0, 3.0 * opt.effects, (H, W, 3)), -9, 9)
                       .astype(np.int16) for _ in range(4)]

    # -- geometry --------------------------------------------------------------

    def place_of(self, seat: int) -> int:
        """The mat place (see :mod:`vision.mat`) where ``seat`` sits."""
        return int(self.seat_zone(seat)[4:])

    def seat_zone(self, seat: int) -> str:
        return self._seat_zones[seat]

    def _camera(self, tilt_jitter: float, yaw: float, roll: float,
                shift: tuple[float, float]) -> np.ndarray:
        opt = self.opt
        return camera_homography((self.layout.width, self.layout.height), self.px_per_mm,
                                 opt.size, tilt=opt.tilt + tilt_jitter, yaw=yaw,
                                 roll=roll, fill=0.92, shift=shift)

    def _edge_point(self, place: int, target: tuple[float, float]) -> tuple[float, float]:
        # The arm comes in over the player's own stretch of the edge.
        return self.layout.places[place].entry(self.layout.width, self.layout.height,
                                               target, 60.0)

    def _zone_spot(self, zone: str, jitter: float = 1.0) -> tuple[tuple[float, float], float]:
        z = self.layout.zones[zone]
        r = self.rng
        center = (z.center[0] + r.uniform(-4, 4) * jitter, z.center[1] + r.uniform(-3, 3) * jitter)
        return center, z.angle + r.uniform(-8, 8) * jitter

    # -- scene changes -----------------------------------------------------------

    def _put(self, key: str, card: Resting | None) -> None:
        if card is None:
            self._cards.pop(key, None)
        else:
            self._cards[key] = card
        self._version += 1

    def _spec(self, hand=None, truth=None) -> FrameSpec:
        spec = FrameSpec(self._frame, self._frame / self.opt.fps, self._version, hand,
                         list(truth or []))
        self._frame += 1
        return spec

    def _truth(self, event: Event | dict) -> TruthEvent:
        obj = event if isinstance(event, dict) else event.to_json()
        te = TruthEvent(self._frame, self._frame / self.opt.fps, obj)
        self.truth.append(te)
        return te

    def _gesture(self, place: int, target: tuple[float, float], action=None,
                 hold: int = 0) -> Iterator[FrameSpec]:
        """A hand reaches ``target`` from ``place``'s edge, ``action()`` happens at the
        end of the reach (returning truth events), the hand stays ``hold`` frames, then
        withdraws."""
        p = self.pace
        for i in range(p.reach):
            yield self._spec((place, (i + 1) / (p.reach + 1), target))
        truth = action() if action else []
        yield self._spec((place, 1.0, target), truth)
        for _ in range(hold):
            yield self._spec((place, 1.0, target))
        for i in range(p.retreat):
            # A hand that lets go lifts off at once, then withdraws more slowly.
            yield self._spec((place, 1.0 - math.sqrt((i + 1) / (p.retreat + 1)), target))

    def _still(self, frames: int) -> Iterator[FrameSpec]:
        for _ in range(frames):
            yield self._spec()

    # -- the match -------------------------------------------------------------------

    def script(self) -> Iterator[FrameSpec]:
        """The whole match as frame specs (no pixels)."""
        opt = self.opt
        n = opt.players
        dealer = self.rng.randrange(n) if opt.first_dealer is None else opt.first_dealer
        need = opt.match // 2 + 1
        won = [0] * n
        while True:
            sim = play_hand(self.rules, dealer, self.rng, style=opt.bot, collect_prob=1.0)
            self.hands.append(sim)
            yield from self._play_hand(sim)
            from table_controller.engine.simulation import expected_winners
            for s in expected_winners(sim):
                won[s] += 1
            if opt.hands is not None:
                if len(self.hands) >= opt.hands:
                    break
            elif max(won) >= need:
                break
            dealer = (dealer + 1) % n
        yield from self._still(self.pace.pause)

    def _play_hand(self, sim: SimulatedHand) -> Iterator[FrameSpec]:
        n = sim.rules.players
        for key in list(self._cards):
            self._put(key, None)
        self._piles = {}
        start = sim.events[0]
        spec = self._spec(truth=[self._truth(start.to_json())])
        if not self.layout.has_stock and len(self.hands) > 1:
            spec.spoken.append({"type": "hand"})  # the dealer presses NEW HAND
        yield spec
        faults = list(self.faults)
        self.rng.shuffle(faults)
        fault_tricks = {f: self.rng.randrange(1, max(2, sim.rules.tricks - 1)) for f in faults}
        dealer_place = self.place_of(sim.dealer)
        trick_no = 0
        in_trick: list[Play] = []
        stock_left = len(sim.rules.deck) - n * sim.rules.hand_size
        for event in sim.events[1:]:
            if isinstance(event, Trump):
                yield from self._still(self.pace.deal)
                bz = self.layout.zones["briscola"]
                sz = self.layout.zones["stock"]

                def turn_up(event=event, bz=bz):
                    self._put("briscola", Resting(str(event.card), bz.center, 90.0))
                    return [self._truth(event)]

                def lay_stock(sz=sz):
                    self._put("stock", Resting("back", sz.center, sz.angle))
                    return []
                # The briscola is turned face up first, then the stock goes on top of it.
                yield from self._gesture(dealer_place, bz.center, turn_up)
                yield from self._still(self.pace.pause)
                yield from self._gesture(dealer_place, sz.center, lay_stock)
                yield from self._still(self.pace.pause)
            elif isinstance(event, Call):
                spec = self._spec(truth=[self._truth(event)])
                spec.spoken.append(event.to_json())  # the auction's result, entered
                yield spec
                yield from self._still(self.pace.deal)
            elif isinstance(event, Swap):
                bz = self.layout.zones["briscola"]

                def swap(event=event, bz=bz):
                    self._put("briscola", Resting(str(event.card), bz.center, 90.0))
                    return [self._truth(event)]
                yield from self._gesture(self.place_of(event.seat), bz.center, swap)
                yield from self._still(self.pace.pause)
            elif isinstance(event, Play):
                for fault, at in fault_tricks.items():
                    if at == trick_no and not in_trick and fault is Fault.OUT_OF_TURN:
                        yield from self._fault_out_of_turn(sim, trick_no, event)
                    if at == trick_no and not in_trick and fault is Fault.TAKEN_BACK:
                        yield from self._fault_taken_back(event)
                yield from self._place(event)
                in_trick.append(event)
                for fault, at in fault_tricks.items():
                    if at == trick_no and len(in_trick) == 1 and n > 1:
                        if fault is Fault.WRONG_ZONE:
                            yield from self._fault_wrong_zone(event, sim)
                        elif fault is Fault.COVER:
                            yield from self._fault_cover(event)
                if len(in_trick) == n:
                    winner = sim.winners[trick_no]
                    trick_no += 1
                    in_trick = []
                    yield from self._still(self.pace.collect_pause)
                    yield from self._collect(winner, n)
                    if stock_left > 0:
                        stock_left -= n
                        yield from self._draw(winner, stock_left, sim)
            elif isinstance(event, Collect):
                pass  # the sweep after each trick emits it
        yield from self._still(self.pace.collect_pause)

    def _place(self, play: Play) -> Iterator[FrameSpec]:
        zone = self.seat_zone(play.seat)
        center, angle = self._zone_spot(zone)

        def put():
            self._put(zone, Resting(str(play.card), center, angle))
            return [self._truth(play)]
        yield from self._gesture(self.place_of(play.seat), center, put)
        yield from self._still(self.pace.pause)

    def _collect(self, winner: int, n: int) -> Iterator[FrameSpec]:
        place = self.place_of(winner)
        pz = self.layout.pile_zone(place)  # the winner's pile, or the winner's team's
        center = (self.layout.width / 2, self.layout.height / 2)

        def sweep():
            for s in range(n):
                self._put(self.seat_zone(s), None)
            self._piles[pz.name] = self._piles.get(pz.name, 0) + 1
            # The pile lies crosswise on its spot (the spot is a card lying crosswise).
            along = 90 if pz.size[0] > pz.size[1] else 0
            c, a = pz.center, pz.angle + along + self.rng.uniform(-6, 6)
            self._put(f"pile-{pz.name}", Resting("back", c, a))
            return [self._truth(Collect())]
        yield from self._gesture(place, center, sweep)
        yield from self._still(self.pace.pause)

    def _draw(self, winner: int, stock_left: int, sim: SimulatedHand) -> Iterator[FrameSpec]:
        sz = self.layout.zones["stock"]

        def take():
            if stock_left == 0:
                self._put("stock", None)
                self._put("briscola", None)
            return []
        yield from self._gesture(self.place_of(winner), sz.center, take)

    # -- faults -------------------------------------------------------------------

    def _stage(self, fault: Fault, seat: int, card: Card | str, expect: str | None) -> None:
        self.faults_staged.append(TruthFault(self._frame, self._frame / self.opt.fps, fault,
                                             seat, str(card), expect))

    def _fault_out_of_turn(self, sim: SimulatedHand, trick_no: int,
                           first: Play) -> Iterator[FrameSpec]:
        # The seat after the leader jumps in with the card it will play in this trick.
        n = sim.rules.players
        seat = (first.seat + 1) % n
        plays = [e for e in sim.events if isinstance(e, Play)]
        card = plays[trick_no * n + 1].card
        zone = self.seat_zone(seat)
        center, angle = self._zone_spot(zone)

        def put():
            self._stage(Fault.OUT_OF_TURN, seat, card, "out_of_turn")
            self._put(zone, Resting(str(card), center, angle))
            return []
        yield from self._gesture(self.place_of(seat), center, put)
        yield from self._still(self.pace.pause * 2)

        def back():
            self._put(zone, None)
            return []
        yield from self._gesture(self.place_of(seat), center, back)
        yield from self._still(self.pace.pause)

    def _fault_taken_back(self, play: Play) -> Iterator[FrameSpec]:
        # The player lays a card of the same hand... then thinks again: we stage it with
        # the card they will really play, laid and taken back, so the hand is unchanged.
        zone = self.seat_zone(play.seat)
        center, angle = self._zone_spot(zone)

        def put():
            self._stage(Fault.TAKEN_BACK, play.seat, play.card, None)
            self._put(zone, Resting(str(play.card), center, angle))
            return [self._truth(play)]
        yield from self._gesture(self.place_of(play.seat), center, put)
        yield from self._still(self.pace.pause * 2)

        def back():
            self._put(zone, None)
            return [self._truth({"type": "undo"})]
        yield from self._gesture(self.place_of(play.seat), center, back)
        yield from self._still(self.pace.pause * 3)

    def _fault_wrong_zone(self, play: Play, sim: SimulatedHand) -> Iterator[FrameSpec]:
        n = sim.rules.players
        other = (play.seat + 1) % n
        src, dst = self.seat_zone(play.seat), self.seat_zone(other)
        card = self._cards[src]
        center, angle = self._zone_spot(dst)

        def knock():
            # A played card moved: the tracker knows it is no new play, so no violation.
            self._stage(Fault.WRONG_ZONE, other, play.card, None)
            self._put(src, None)
            self._put(dst, Resting(card.code, center, angle))
            return []
        yield from self._gesture(self.place_of(play.seat), card.center, knock)
        yield from self._still(self.pace.pause * 2)

        def back():
            self._put(dst, None)
            self._put(src, card)
            return []
        yield from self._gesture(self.place_of(play.seat), center, back)
        yield from self._still(self.pace.pause * 2)

    def _fault_cover(self, play: Play) -> Iterator[FrameSpec]:
        zone = self.seat_zone(play.seat)
        card = self._cards[zone]
        self._stage(Fault.COVER, play.seat, play.card, None)
        # A hand lies right over the card for a second, then goes.
        yield from self._gesture(self.place_of(play.seat), card.center, None,
                                 hold=int(self.opt.fps))
        yield from self._still(self.pace.pause)

    # -- pixels ----------------------------------------------------------------------

    def _plane_image(self) -> np.ndarray:
        if self._plane_version != self._version:
            plane = self._mat.copy()
            order = sorted(self._cards.items(), key=lambda kv: (kv[0] != "briscola",
                                                                kv[0].startswith("play")))
            for _, card in order:
                _paste(plane, self._faces[card.code], card.center, card.angle,
                       card.size or self.card_mm, self.px_per_mm)
            self._plane = plane
            self._plane_version = self._version
        return self._plane

    def _draw_hand(self, img: np.ndarray, place: int, reach: float,
                   target: tuple[float, float]) -> None:
        """A hand and sleeve coming from ``place``'s edge, drawn in camera pixels so that
        the arm carries on past the mat's border."""
        start = np.array(self._edge_point(place, target), float)
        tip = start + (np.array(target) - start) * reach
        d = start - tip
        d /= np.linalg.norm(d) + 1e-6
        nrm = np.array([-d[1], d[0]])
        skin = SKIN[place % len(SKIN)]
        sleeve = SLEEVES[place % len(SLEEVES)]
        r = 36.0  # palm half-width, mm
        base = tip + d * (CARD_H_MM * 0.3)  # fingertips reach a little past the target
        shapes: list[tuple[np.ndarray, tuple[int, int, int]]] = [
            (np.array([base + nrm * r * 1.15 + d * 70, base + nrm * r * 1.3 + d * 700,
                       base - nrm * r * 1.3 + d * 700, base - nrm * r * 1.15 + d * 70]),
             sleeve),
            (np.array([base + nrm * r, base + nrm * r * 0.95 + d * 80,
                       base - nrm * r * 0.95 + d * 80, base - nrm * r]), skin),
        ]
        for k in range(4):  # fingers
            off = (k - 1.5) * r * 0.5
            finger = base + nrm * off
            length = 38 - 4 * abs(k - 1.5)
            shapes.append((np.array([finger + nrm * 7, finger + nrm * 7 - d * length,
                                     finger - nrm * 7 - d * length, finger - nrm * 7]), skin))
        thumb = base + nrm * r * 0.9 + d * 45
        shapes.append((np.array([thumb, thumb + nrm * 30 - d * 20, thumb + nrm * 36 - d * 8,
                                 thumb + d * 25]), skin))
        s = self.px_per_mm
        for poly, color in shapes:
            pts = cv2.perspectiveTransform((poly * s).astype(np.float32)[None], self._cam)[0]
            cv2.fillConvexPoly(img, np.round(pts * 16).astype(np.int32), color, cv2.LINE_AA,
                               shift=4)

    def render(self, spec: FrameSpec) -> np.ndarray:
        """The camera image for ``spec`` (call in frame order)."""
        plane = self._plane_image()
        W, H = self.opt.size
        frame = cv2.warpPerspective(plane, self._cam, (W, H), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=(60, 55, 50))
        if spec.hand is not None:
            self._draw_hand(frame, *spec.hand)
        if self.opt.effects > 0:
            # Light drifts slowly in level and colour; the sensor adds noise.
            t, e = spec.t, self.opt.effects
            gain = 1.0 + 0.12 * math.sin(2 * math.pi * t / 23.0) * e
            cast = np.diag([gain * (1.0 + 0.04 * e * math.sin(t / 7.0)), gain,
                            gain * (1.0 + 0.04 * e * math.cos(t / 9.0))]).astype(np.float32)
            frame = cv2.transform(frame, cast)
            frame = cv2.add(frame, self._noise[spec.index % len(self._noise)], dtype=cv2.CV_8U)
        return frame

    def truth_observation(self, spec: FrameSpec) -> FrameObs:
        """What a perfect observer would report for ``spec`` (call in frame order): the
        tracker's input without the camera, for tests of everything after vision."""
        zones: dict[str, ZoneObs] = {}
        hand = None
        if spec.hand is not None:
            place, reach, target = spec.hand
            hand = (place, target) if reach > 0.55 else None
        spots = ("briscola",) if self.layout.has_stock else ()
        for name in (*(f"play{p}" for p in self.places), *spots):
            card = self._cards.get(name)
            zone = self.layout.zones[name]
            hidden = hand is not None and (
                zone.contains(hand[1]) or (card is not None and math.dist(card.center, hand[1])
                                           < CARD_H_MM * 0.6))
            if name == "briscola" and hand is not None:
                hidden = hidden or self.layout.zones["stock"].contains(hand[1])
            if card is None:
                zones[name] = ZoneObs(None, None, hidden)
            else:
                zones[name] = ZoneObs(card.code, card.center, hidden)
        seats = ()
        if hand is not None:
            seat = self.seat_at_place(hand[0])
            seats = () if seat is None else (seat,)
        return FrameObs(spec.t, zones, seats)

    def seat_at_place(self, place: int) -> int | None:
        for seat in range(self.opt.players):
            if self.place_of(seat) == place:
                return seat
        return None

    def frames(self) -> Iterator[tuple[FrameSpec, np.ndarray]]:
        """Every frame of the match, rendered."""
        bump_every = int(self.opt.fps * 40)
        for spec in self.script():
            if self.opt.bumps and spec.index and spec.index % bump_every == 0 \
                    and spec.hand is None:
                r = self.rng
                self._cam = self._camera(r.uniform(-2, 2), r.uniform(-3, 3), r.uniform(-2, 2),
                                         (r.uniform(-25, 25), r.uniform(-15, 15)))
                spec.bumped = True
            yield spec, self.render(spec)


def _deck_faces(faces: dict[str, np.ndarray]
                ) -> tuple[dict[str, np.ndarray], tuple[float, float]]:
    """A real deck's faces stood upright, and its card size in mm.

    Every card of the deck is drawn at the faces' own proportions (the back too: it is
    the same piece of card), as large as fits the mat's nominal card, so that it lies
    inside the play zones and the stock spot the way the printed mat expects.
    """
    missing = [c for c in (*(str(c) for c in ALL_CARDS), "back") if c not in faces]
    if missing:
        raise ValueError(f"faces lack {', '.join(missing)}")
    upright = {}
    for code, face in faces.items():
        if face.shape[1] > face.shape[0]:
            face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
        if face.ndim == 3 and face.shape[2] == 4:
            # Transparent pixels keep whatever colour the file has (often black), which
            # interpolation would smear into the card's edge: make it white paper.
            face = np.dstack([on_white(face), face[..., 3]])
        upright[code] = face
    ratio = float(np.median([f.shape[0] / f.shape[1] for c, f in upright.items()
                             if c != "back"]))
    return upright, card_mm(ratio)


def _paste(plane: np.ndarray, face: np.ndarray, center: tuple[float, float], angle: float,
           size: tuple[float, float], px_per_mm: float) -> None:
    """Draw ``face`` (BGR, or BGRA whose alpha is the card's outline) onto ``plane`` in
    place, touching only the card's bounding box."""
    fh, fw = face.shape[:2]
    dst = card_corners_mm(center, angle, size) * px_per_mm
    x0, y0 = np.floor(dst.min(0)).astype(int) - 2
    x1, y1 = np.ceil(dst.max(0)).astype(int) + 3
    H, W = plane.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]])
    m = cv2.getPerspectiveTransform(src, (dst - [x0, y0]).astype(np.float32))
    roi = plane[y0:y1, x0:x1]
    size_roi = (x1 - x0, y1 - y0)
    outline = face[..., 3] if face.shape[2] == 4 else np.full((fh, fw), 255, np.uint8)
    shadow = cv2.warpPerspective(outline, m, size_roi)
    soft = cv2.GaussianBlur(np.roll(shadow, (2, 2), (0, 1)), (0, 0), 1.5)
    roi[:] = (roi * (1 - 0.3 * soft[..., None] / 255.0)).astype(np.uint8)
    warped = cv2.warpPerspective(face[..., :3], m, size_roi, flags=cv2.INTER_AREA)
    alpha = shadow[..., None].astype(np.float32) / 255.0
    roi[:] = (warped * alpha + roi * (1 - alpha)).astype(np.uint8)


