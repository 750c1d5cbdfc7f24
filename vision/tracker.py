"""From what each frame shows to the referee's table events.

The tracker gets, for every frame, what lies in each zone of the mat (a card
code, a back, an unknown face, or nothing) and whether a hand is over the zone.
It reports an event only when the table has settled:

- a card counts as laid in a seat's play zone once the same card has lain still
  there, unhidden, for ``appear_frames`` frames (a few tens of milliseconds);
- a card counts as gone only when its zone has stayed empty and unhidden for
  ``gone_frames`` frames, so a hand passing over, a shadow or a glare patch
  never makes an event: a zone under a hand keeps its last settled content;
- an unknown face never replaces a known card, and is never reported: missing
  evidence stays missing.

What the changes mean depends on the hand in progress, which the tracker reads
from the referee (``hand()``): the whole trick leaving the table is a
``collect``; the last accepted card of an unfinished trick leaving it is taken
back (``undo``); a card that was already played showing up in another zone is
reported as played there, and the referee rejects it as a duplicate; it coming
back to its own zone is no news. In the briscola spot, the first face seen is
the ``trump``, and another face replacing it is a ``swap`` by the seat whose
hand made it; a face appearing there after the last trick means the next hand
was dealt (``hand`` then ``trump``). Each event carries ``t``, the time of the
frame that settled it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from table_controller.cards import Card
from table_controller.hand import Hand

BACK = "back"
UNKNOWN = "?"


@dataclass(frozen=True)
class ZoneObs:
    """One zone in one frame."""

    content: str | None  # card code, "back", "?" (a face not recognised), or None (empty)
    center: tuple[float, float] | None = None  # card centre in mat mm, to tell it lies still
    # A hand (or anything not a card) covers part of the zone's card, or of the zone
    # itself when it holds no card.
    hidden: bool = False
    confidence: float = 1.0


@dataclass(frozen=True)
class FrameObs:
    t: float
    zones: dict[str, ZoneObs]
    hands_from: tuple[int, ...] = ()  # seats whose side of the mat a hand crosses now


@dataclass
class _Zone:
    settled: str | None = None  # the content last reported as settled
    candidate: str | None = None
    since: int = 0  # frames the candidate has been seen still and unhidden
    first_t: float = 0.0  # time of the candidate's first still frame
    last_center: tuple[float, float] | None = None
    last_hand: int | None = None  # the seat whose hand last covered the zone
    touched: bool = False  # a hand covered the zone since its content last settled


@dataclass
class TrackerStats:
    frames: int = 0
    hidden_frames: int = 0  # zone-frames skipped because a hand covered the zone
    events: int = 0
    ignored_unknown: int = 0


class Tracker:
    """Turns per-frame zone observations into referee events (JSON dicts)."""

    def __init__(self, seat_zones: dict[int, str], hand: Callable[[], Hand | None], *,
                 appear_frames: int = 3, gone_frames: int = 8, still_mm: float = 3.0,
                 briscola_zone: str = "briscola") -> None:
        self.seat_zones = dict(seat_zones)
        self.zone_seat = {z: s for s, z in seat_zones.items()}
        self.hand = hand
        self.appear_frames = appear_frames
        self.gone_frames = gone_frames
        self.still_mm = still_mm
        self.briscola_zone = briscola_zone
        self.zones: dict[str, _Zone] = {z: _Zone() for z in (*seat_zones.values(),
                                                             briscola_zone)}
        self.stats = TrackerStats()
        self._collect_pending = False

    def prime(self) -> None:
        """Take what the referee says lies on the table as settled (after a restart), so
        that the cards already played are not reported again."""
        self.reset()
        hand = self.hand()
        if hand is None or hand.is_over() and not hand.table:
            return
        for play in (*hand.table, *hand.current):
            zone = self.seat_zones.get(play.seat)
            if zone is not None:
                self.zones[zone].settled = str(play.card)
        if hand.briscola is not None and hand.briscola_on_table:
            self.zones[self.briscola_zone].settled = str(hand.briscola)

    def reset(self) -> None:
        """Forget what lies on the table (a new hand is being dealt)."""
        for z in self.zones.values():
            z.settled = z.candidate = None
            z.since = 0
            z.last_center = None
        self._collect_pending = False
        self._emptied = 0

    def unlikely(self, zone: str) -> set[str]:
        """Cards that cannot honestly turn up in ``zone`` now: played before this trick,
        played in another zone, the face-up briscola while it lies there, or not in this
        deck. (The card accepted in this very zone is expected there.)"""
        hand = self.hand()
        if hand is None:
            return set()
        seat = self.zone_seat.get(zone)
        here = {str(p.card) for p in (*hand.current, *hand.table) if p.seat == seat}
        out = {str(p.card) for t in hand.tricks for p in t.plays}
        out |= {str(p.card) for p in hand.current}
        out |= {str(c) for c in hand.rules.removed}
        if hand.briscola is not None and hand.briscola_on_table:
            out.add(str(hand.briscola))
        return out - here

    def briscola_candidates(self) -> tuple[str, ...]:
        """The cards that may lie face up under the stock now: the briscola itself, and
        the 7 and the 2 of trump that a swap may put there."""
        hand = self.hand()
        if hand is None or hand.trump is None or hand.briscola is None or hand.is_over():
            return ()
        suit = hand.trump.value
        return tuple(dict.fromkeys((str(hand.briscola), f"7{suit}", f"2{suit}")))

    # -- per frame -----------------------------------------------------------------

    def update(self, obs: FrameObs) -> list[dict[str, Any]]:
        """Feed one frame; return the events it settles, in order."""
        self.stats.frames += 1
        settled: list[tuple[str, str | None, str | None, float]] = []
        for name, zone in self.zones.items():
            o = obs.zones.get(name, ZoneObs(None))
            if o.hidden:
                self.stats.hidden_frames += 1
                zone.touched = True
                if obs.hands_from:
                    zone.last_hand = obs.hands_from[0]
                # Hidden: neither confirm nor deny; a hand over a card is not news.
                zone.since = 0
                zone.last_center = None
                continue
            content = o.content
            if name == self.briscola_zone and content not in (None, BACK, UNKNOWN) and \
                    zone.settled not in (None, BACK) and content != zone.settled and \
                    not zone.touched:
                content = UNKNOWN  # a face-up card does not change by itself: misread
            if content == UNKNOWN:
                # A face we cannot name: it is not evidence that the card changed.
                self.stats.ignored_unknown += 1
                zone.since = 0
                continue
            still = True
            if content is not None and o.center is not None and zone.last_center is not None:
                dx = o.center[0] - zone.last_center[0]
                dy = o.center[1] - zone.last_center[1]
                still = dx * dx + dy * dy <= self.still_mm ** 2
            zone.last_center = o.center
            if content != zone.candidate or not still:
                zone.candidate = content
                zone.since = 1
                zone.first_t = obs.t
            else:
                zone.since += 1
            need = self.gone_frames if content is None else self.appear_frames
            if content != zone.settled and zone.since >= need:
                before = zone.settled
                zone.settled = content
                zone.touched = False
                settled.append((name, before, content, obs.t))
        events: list[dict[str, Any]] = []
        self._emptied = sum(1 for n, _, after, _ in settled
                            if after is None and n != self.briscola_zone)
        for name, before, after, t in settled:
            events.extend(self._meaning(name, before, after, t))
        if self._collect_pending:
            events.extend(self._maybe_collect(obs.t))
        self.stats.events += len(events)
        return events

    # -- what a settled change means -------------------------------------------------

    def _visible_elsewhere(self, card: str, zone: str) -> bool:
        return any(z.settled == card for n, z in self.zones.items() if n != zone)

    def _meaning(self, zone: str, before: str | None, after: str | None,
                 t: float) -> list[dict[str, Any]]:
        hand = self.hand()
        if zone == self.briscola_zone:
            return self._briscola(before, after, t, hand)
        seat = self.zone_seat[zone]
        if after is not None and after != BACK:
            if hand is not None and self._accepted_here(hand, seat, after):
                return []  # a played card put back in its own zone
            return [{"type": "play", "seat": seat, "card": after, "t": t}]
        if after is None and before not in (None, BACK):
            if self._visible_elsewhere(before, zone):
                return []  # moved, not taken away
            if hand is None:
                return []
            if hand.table:  # the finished trick is leaving the table
                self._collect_pending = True  # reported once all of it is gone
                return []
            if hand.current and hand.current[-1].seat == seat and \
                    str(hand.current[-1].card) == before and self._emptied == 1:
                # The last card was taken back. (Several zones emptied at once are an
                # unfinished trick swept away: a card was missed, and undoing is no cure.)
                return [{"type": "undo", "t": t}]
        return []

    @staticmethod
    def _accepted_here(hand: Hand, seat: int, code: str) -> bool:
        card = Card.parse(code)
        for play in (*hand.current, *hand.table):
            if play.seat == seat and play.card is card:
                return True
        return False

    def _maybe_collect(self, t: float) -> list[dict[str, Any]]:
        hand = self.hand()
        if hand is None or not hand.table:
            self._collect_pending = False
            return []
        codes = {str(p.card) for p in hand.table}
        if any(z.settled in codes for n, z in self.zones.items() if n != self.briscola_zone):
            return []  # part of the trick still lies there
        self._collect_pending = False
        return [{"type": "collect", "t": t}]

    def _briscola(self, before: str | None, after: str | None, t: float,
                  hand: Hand | None) -> list[dict[str, Any]]:
        if after is None or after == BACK:
            return []  # taken with the last draw, or covered by the stock
        if hand is not None and hand.is_over():
            # A face-up card after the last trick: the next hand has been dealt.
            return [{"type": "hand", "t": t}, {"type": "trump", "card": after, "t": t}]
        if hand is None or hand.trump is None:
            return [{"type": "trump", "card": after, "t": t}]
        if hand.briscola is not None and str(hand.briscola) == after:
            return []
        card = Card.parse(after)
        seat = self._swapper(card, hand)
        if seat is None:
            return []
        return [{"type": "swap", "seat": seat, "card": after, "t": t}]

    def _swapper(self, card: Card, hand: Hand) -> int | None:
        # Only the 7 and the 2 of trump are swapped; the 7 by the last trick's winner.
        if card.rank == 7 and hand.tricks:
            return hand.tricks[-1].winner
        last = self.zones[self.briscola_zone].last_hand
        if last is not None:
            return last
        return hand.turn


@dataclass
class Replay:
    """Feeds a recorded list of frame observations to a tracker (tests, offline runs)."""

    tracker: Tracker
    events: list[dict[str, Any]] = field(default_factory=list)

    def run(self, frames: list[FrameObs], on_event: Callable[[dict], None]) -> None:
        for obs in frames:
            for event in self.tracker.update(obs):
                self.events.append(event)
                on_event(event)
