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
back (``undo``); a card moved to another zone is no news there, nor when it comes
back to its own zone.

The rules help the eyes: :meth:`Tracker.possible` is the set of cards that may
honestly turn up in a zone now (not played this hand, not removed for the player
count, not known to be in another seat's hand), and a card read outside it is
treated as unknown, so an impossible card never reaches the referee. A zone that
holds a face nobody could name, lying still for ``hold_frames`` frames, is *held*
(:attr:`Tracker.holds`, not a referee event): the table asks for it ("straighten
it", or pick it on the phone from the possible cards, most likely first), and
:meth:`Tracker.pick_events` / :meth:`Tracker.adopt` turn the answer into the play.
After a restart :meth:`Tracker.prime` compares the first settled view of the table
with the referee's state: plays it can place without doubt are reported in turn
order; anything else is held as a question, never guessed.

In the briscola spot, the first face seen is the ``trump``, and another face
replacing it is a ``swap`` by the seat whose hand made it; a face appearing there
after the last trick means the next hand was dealt (``hand`` then ``trump``).
Each event carries ``t``, the time of the frame that settled it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from table_controller.engine.cards import ALL_CARDS, Card
from table_controller.engine.hand import Hand
from table_controller.engine.rules import Variant

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
    # With content UNKNOWN: the cards it might be, most likely first (may be empty).
    candidates: tuple[str, ...] = ()


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
    raw: str | None = None  # the last unhidden reading, before any rule overruled it
    confirmed: str | None = None  # named by a person (pick, correction): not re-read
    unknown_n: int = 0  # frames an unnamed face has lain still here
    unknown_center: tuple[float, float] | None = None
    ranked: tuple[str, ...] = ()  # the observer's guesses for that face, best first
    read: bool = False  # prime(): the zone has been seen settled since the restart


# Why a zone is held.
UNRECOGNISED = "unknown"  # a face nobody could name (or only as an impossible card)
UNPLACED = "unplaced"  # after a restart: a card that cannot be put in turn order
MISMATCH = "mismatch"  # after a restart: not the card the referee has for this seat
MISSING = "missing"  # after a restart: the referee's card for this seat is not there
MAX_LIKELY = 4  # the camera's guesses offered first: few, so that they reveal nothing
# One line for any card the rules rule out, whatever the reason: it must not say where
# the card is (played, in a taken trick, in another hand, out of the deck).
NOT_POSSIBLE = "that card cannot be there now"


class PickRefused(ValueError):
    """A pick the table cannot take; ``kind`` says why (``not_possible``, ``no_hold``,
    ``missing``, ``bad_card``) for a translated line."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Hold:
    """A zone whose card the table must ask about (see the module docstring)."""

    zone: str
    seat: int | None  # None: the briscola spot
    reason: str  # UNRECOGNISED, UNPLACED, MISMATCH or MISSING
    likely: tuple[str, ...]  # the camera's likeliest cards, best first (all possible)
    others: tuple[str, ...]  # the rest of the possible cards: never shown (see to_json)
    card: str | None = None  # UNPLACED, MISMATCH: the card seen; MISSING: the referee's
    t: float = 0.0

    @property
    def candidates(self) -> tuple[str, ...]:
        return self.likely + self.others

    def to_json(self) -> dict[str, Any]:
        """What a phone may see: the few likely cards only. The list of every possible
        card would tell which cards are already in taken tricks (in a 2-player hand,
        the running points), so a phone names any other card with a plain chooser."""
        return {"zone": self.zone, "seat": self.seat, "reason": self.reason,
                "likely": list(self.likely), "card": self.card}


@dataclass
class TrackerStats:
    frames: int = 0
    hidden_frames: int = 0  # zone-frames skipped because a hand covered the zone
    events: int = 0
    ignored_unknown: int = 0
    impossible: int = 0  # zone-frames whose card was read outside possible(): unknown
    overruled: int = 0  # zone-frames read otherwise than a person named the card
    holds: int = 0  # holds raised


class Tracker:
    """Turns per-frame zone observations into referee events (JSON dicts)."""

    def __init__(self, seat_zones: dict[int, str], hand: Callable[[], Hand | None], *,
                 appear_frames: int = 3, gone_frames: int = 8, still_mm: float = 3.0,
                 briscola_zone: str = "briscola", hold_frames: int = 10) -> None:
        self.seat_zones = dict(seat_zones)
        self.zone_seat = {z: s for s, z in seat_zones.items()}
        self.hand = hand
        self.appear_frames = appear_frames
        self.gone_frames = gone_frames
        self.still_mm = still_mm
        self.briscola_zone = briscola_zone
        self.zones: dict[str, _Zone] = {z: _Zone() for z in (*seat_zones.values(),
                                                             briscola_zone)}
        self.hold_frames = hold_frames
        self.stats = TrackerStats()
        self.holds: dict[str, Hold] = {}
        self._collect_pending = False
        self._emptied = 0
        self._priming = False
        self._holds_key: tuple | None = None  # the hand state the holds' lists were made for

    def prime(self) -> None:
        """After a restart: compare the first settled view of the table with what the
        referee has. Until every zone has been read nothing is reported; then the plays
        that can be placed without doubt (cards in the zones of the seats to play, in
        turn order, contiguous from the seat to play) are reported, a trick the referee
        left on the table and now gone is collected, and anything else is held."""
        self.reset()
        hand = self.hand()
        if hand is None or hand.is_over() and not hand.table:
            return
        self._priming = True

    def reset(self) -> None:
        """Forget what lies on the table (a new hand is being dealt)."""
        for z in self.zones.values():
            z.settled = z.candidate = z.raw = z.confirmed = None
            z.since = z.unknown_n = 0
            z.last_center = z.unknown_center = None
            z.ranked = ()
            z.read = False
        self._collect_pending = False
        self._emptied = 0
        self._priming = False
        self.holds.clear()

    def possible(self, zone: str) -> set[str] | None:
        """The cards that may honestly turn up in ``zone`` now; None: anything (no hand
        in progress). Not played this hand (the card accepted in this very zone is
        expected there), not removed for the player count, not known to be in another
        seat's hand, not the face-up briscola while it lies under the stock. In the
        briscola spot: any undealt card before the trump is known, then the briscola and
        the 7 and 2 of trump that a swap may put there."""
        hand = self.hand()
        if hand is None or hand.is_over():
            return None
        if zone == self.briscola_zone:
            if hand.trump is None:
                return {str(c) for c in hand.rules.deck if not hand.played(c)}
            return {c for c in self.briscola_candidates() if not hand.played(Card.parse(c))}
        seat = self.zone_seat.get(zone)
        out = {str(c) for c in hand.rules.deck if not hand.played(c)
               and hand.held.get(c, seat) == seat}
        if hand.briscola is not None and hand.briscola_on_table:
            out.discard(str(hand.briscola))
        out |= {str(p.card) for p in (*hand.current, *hand.table) if p.seat == seat}
        return out

    def readable(self, zone: str) -> set[str] | None:
        """The cards the eyes may name in ``zone`` now: :meth:`possible`, and in a play
        zone the cards face up in the trick, which a knock may move there. Named, such a
        card is known as moved (never a new play, and its own zone emptying is no take
        back); left unnamed, it would look like a new face and its zone like a card
        taken back."""
        out = self.possible(zone)
        hand = self.hand()
        if out is None or hand is None or zone == self.briscola_zone:
            return out
        return out | {str(p.card) for p in (*hand.current, *hand.table)}

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
                zone.since = zone.unknown_n = 0
                zone.last_center = None
                continue
            content = zone.raw = o.content
            ranked = o.candidates
            if name == self.briscola_zone and content not in (None, BACK, UNKNOWN) and \
                    zone.settled not in (None, BACK) and content != zone.settled and \
                    not zone.touched:
                content = UNKNOWN  # a face-up card does not change by itself: misread
            if zone.confirmed is not None and content not in (None, BACK, UNKNOWN) and \
                    content != zone.confirmed:
                self.stats.overruled += 1
                content = UNKNOWN  # a person named this card: the camera does not overrule
            if content not in (None, BACK, UNKNOWN) and content != zone.settled:
                possible = self.possible(name)
                if possible is not None and content not in possible:
                    # The rules say it cannot be there: a misread, or a played card moved.
                    self.stats.impossible += 1
                    if self._moved(content, name):
                        zone.since = zone.unknown_n = 0  # not unknown: elsewhere, no hold
                        continue
                    content = UNKNOWN
            if content == UNKNOWN:
                # A face we cannot name: it is not evidence that the card changed.
                self.stats.ignored_unknown += 1
                zone.since = 0
                self._unnamed(name, zone, o, ranked, obs.t)
                continue
            zone.unknown_n = 0
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
            if self._priming and content == zone.settled and zone.since >= need:
                zone.read = True
            if content != zone.settled and zone.since >= need:
                before = zone.settled
                zone.settled = content
                zone.touched = False
                zone.read = True
                if content is None:
                    zone.confirmed = None  # the named card has left the zone
                settled.append((name, before, content, obs.t))
        events: list[dict[str, Any]] = []
        if self._priming:
            if all(z.read for z in self.zones.values()):
                events = self._reconcile(obs.t)
            self.stats.events += len(events)
            return events
        self._emptied = sum(1 for n, _, after, _ in settled
                            if after is None and n != self.briscola_zone)
        for name, before, after, t in settled:
            if name in self.holds and self.holds[name].reason != MISSING:
                del self.holds[name]  # named at last (straightened), or taken away
            events.extend(self._meaning(name, before, after, t))
        if self._collect_pending:
            events.extend(self._maybe_collect(obs.t))
        if self.holds:
            self._check_holds()
        self.stats.events += len(events)
        return events

    # -- holds -------------------------------------------------------------------------

    def _moved(self, code: str, zone: str) -> bool:
        """``code`` is a card of the trick on the table, or lies in another zone: moved."""
        hand = self.hand()
        if hand is not None and any(str(p.card) == code for p in (*hand.current, *hand.table)):
            return True
        return self._visible_elsewhere(code, zone)

    def _unnamed(self, name: str, zone: _Zone, o: ZoneObs, ranked: tuple[str, ...],
                 t: float) -> None:
        """An unnamed face in ``zone``: held once it has lain still long enough where a
        new card is expected (a known card under glare is not news)."""
        swap = name == self.briscola_zone and self._swap_in_question(zone, ranked)
        if not swap and (zone.settled not in (None, BACK) or self._priming and zone.read):
            return
        if name == self.briscola_zone and not swap:
            hand = self.hand()
            if hand is not None and hand.trump is not None and not hand.is_over():
                return  # the briscola is known and nothing says it was swapped
        if o.center is not None and zone.unknown_center is not None:
            dx = o.center[0] - zone.unknown_center[0]
            dy = o.center[1] - zone.unknown_center[1]
            if dx * dx + dy * dy > self.still_mm ** 2:
                zone.unknown_n = 0
        zone.unknown_center = o.center
        zone.unknown_n += 1
        if ranked:
            zone.ranked = ranked
        if zone.unknown_n < self.hold_frames:
            return
        if self._priming:
            zone.read = True
            return
        if name not in self.holds:
            self._hold(name, UNRECOGNISED, zone.ranked, t=t)

    def _swap_in_question(self, zone: _Zone, ranked: tuple[str, ...]) -> bool:
        """A hand reached the face-up card under the stock, and what lies there now shows
        the same visible half as another card a swap may leave there (the 6 and the 7 of
        a suit, in some decks): the table asks once, it does not guess."""
        hand = self.hand()
        if hand is None or hand.trump is None or hand.is_over() or not zone.touched:
            return False
        if not hand.rules.variants or hand.briscola is None:
            return False  # no swap is played: the card there is the briscola
        # Only a card a swap may legally leave there now is worth the question.
        suit, rank = hand.trump.value, hand.briscola.rank
        legal = {str(hand.briscola)}
        if Variant.SWAP7 in hand.rules.variants and hand.tricks and rank in (1, 3, 10, 9, 8):
            legal.add(f"7{suit}")
        if Variant.SWAP2 in hand.rules.variants and not hand.tricks:
            legal.add(f"2{suit}")
        return len(legal) > 1 and len(set(ranked) & legal) >= 2

    def _hold(self, zone: str, reason: str, ranked: tuple[str, ...] = (),
              card: str | None = None, t: float = 0.0) -> None:
        possible = self.possible(zone)
        if possible is None:
            hand = self.hand()
            deck = hand.rules.deck if hand is not None else ALL_CARDS
            possible = {str(c) for c in deck}
        if reason == MISSING:
            likely: tuple[str, ...] = ()
            others: tuple[str, ...] = ()
        else:
            likely = tuple(dict.fromkeys(c for c in ranked if c in possible))[:MAX_LIKELY]
            others = tuple(sorted(possible.difference(likely), key=_card_order))
        self.holds[zone] = Hold(zone, self.zone_seat.get(zone), reason, likely, others, card, t)
        self.stats.holds += 1

    def _check_holds(self) -> None:
        """Drop the holds the referee's state has made moot; refresh the lists of
        possible cards when it changed (another card played, a correction)."""
        hand = self.hand()
        key = None if hand is None else (id(hand), len(hand.move_stack))
        for name, hold in list(self.holds.items()):
            seat = hold.seat
            mine = [] if hand is None else [str(p.card) for p in (*hand.current, *hand.table)
                                            if p.seat == seat]
            if hold.reason == MISSING and (hold.card not in mine
                                           or self.zones[name].settled == hold.card):
                del self.holds[name]
            elif hold.reason == MISMATCH and (not mine or self.zones[name].settled in mine):
                del self.holds[name]
            elif hold.reason in (UNRECOGNISED, UNPLACED) and seat is not None and mine:
                del self.holds[name]  # the seat's card was given some other way
            elif key != self._holds_key and hold.reason != MISSING:
                self._hold(name, hold.reason, hold.likely, hold.card, hold.t)
                self.stats.holds -= 1  # the same hold, refreshed
        self._holds_key = key

    def pick_events(self, zone: str, card: str) -> list[dict[str, Any]]:
        """The referee events that name the card held in ``zone`` as ``card`` (a play, a
        correction, the trump); raise ValueError (one clear line) when it cannot be."""
        label = self.zone_label(zone)
        hold = self.holds.get(zone)
        if hold is None:
            raise PickRefused(f"no card is waiting to be named in {label}", "no_hold")
        if hold.reason == MISSING:
            raise PickRefused(f"{label}: {hold.card} is not on the table: put it back, or "
                              "undo it", "missing")
        try:
            card = str(Card.parse(card))
        except ValueError:
            raise PickRefused(f"{card!r} is not a card code such as \"6c\"",
                              "bad_card") from None
        # Checked against the rules now (the hold's list may predate the last event).
        allowed = self.possible(zone)
        if card not in (set(hold.candidates) if allowed is None else allowed):
            raise PickRefused(NOT_POSSIBLE, "not_possible")
        if zone == self.briscola_zone:
            hand = self.hand()
            if hand is not None and hand.is_over():
                return [{"type": "hand"}, {"type": "trump", "card": card}]
            if hand is not None and hand.trump is not None and hand.briscola is not None:
                # The question after a reach for the stock: swapped, or not.
                if card == str(hand.briscola):
                    return []
                seat = self._swapper(Card.parse(card), hand)
                return [] if seat is None else [{"type": "swap", "seat": seat, "card": card}]
            return [{"type": "trump", "card": card}]
        if hold.reason == MISMATCH:
            return [{"type": "correct", "seat": hold.seat, "card": card}]
        return [{"type": "play", "seat": hold.seat, "card": card}]

    def adopt(self, zone: str, card: str) -> None:
        """A person named the card in ``zone``: take it as settled there (so the camera
        does not report it again, nor overrule it while it lies there); the hold clears."""
        z = self.zones[zone]
        z.settled = z.candidate = z.confirmed = card
        z.since = z.unknown_n = 0
        z.touched = False
        self.holds.pop(zone, None)

    def adopt_correction(self, seat: int, was: str, card: str) -> None:
        """The referee accepted a correction of ``seat``'s ``was`` to ``card``: if that
        card still lies in the seat's zone, it is ``card`` from now on."""
        zone = self.seat_zones.get(seat)
        if zone is None:
            return
        z = self.zones[zone]
        if z.settled in (was, card) or z.raw == was:
            self.adopt(zone, card)

    def zone_label(self, zone: str) -> str:
        """How a person names a zone: ``P2's zone`` (P1 is seat 0), the briscola spot."""
        seat = self.zone_seat.get(zone)
        return "the briscola spot" if seat is None else f"P{seat + 1}'s zone"

    # -- after a restart ---------------------------------------------------------------

    def _reconcile(self, t: float) -> list[dict[str, Any]]:
        self._priming = False
        hand = self.hand()
        if hand is None:
            return []
        seen = {n: (UNKNOWN if z.unknown_n >= self.hold_frames and z.settled is None
                    else z.settled) for n, z in self.zones.items()}
        events: list[dict[str, Any]] = []
        # The briscola spot: the face-up card the referee knows, or the first trump.
        b = seen[self.briscola_zone]
        if hand.trump is None and not hand.rules.chiamata:
            if b == UNKNOWN:
                self._hold(self.briscola_zone, UNRECOGNISED, self.zones[
                    self.briscola_zone].ranked, t=t)
                return []  # nothing can be refereed before the trump is named
            if b not in (None, BACK):
                events.append({"type": "trump", "card": b, "t": t})
        elif hand.briscola is not None and hand.briscola_on_table and b != str(hand.briscola):
            if b not in (None, BACK):
                self.zones[self.briscola_zone].settled = str(hand.briscola)
        n = hand.players
        expected = {p.seat: str(p.card) for p in (*hand.current, *hand.table)}
        on_table = {p.seat for p in hand.table}
        if hand.table and not any(seen[self.seat_zones[s]] == expected[s] for s in on_table
                                  if s in self.seat_zones):
            # The finished trick is gone from the table: it was collected, and whatever
            # lies there now belongs to the next trick.
            expected = {}
            order = [(hand.turn + i) % n for i in range(n)]
            collected = True
        else:
            order = [] if hand.table else [(hand.turn + i) % n
                                           for i in range(n - len(hand.current))]
            collected = False
        for seat, zone in self.seat_zones.items():
            got, want = seen[zone], expected.get(seat)
            if want is None or got == want:
                continue
            if got in (None, BACK):
                self._hold(zone, MISSING, card=want, t=t)
            elif got == UNKNOWN:
                self._hold(zone, MISMATCH, self.zones[zone].ranked, t=t)
            else:
                self._hold(zone, MISMATCH, (got,), card=got, t=t)
        # New cards in the zones of the seats still to play: reported while they run on
        # from the seat to play; from the first gap on, they are asked.
        played = set(expected.values())
        run = True
        plays: list[dict[str, Any]] = []
        for seat in order:
            zone = self.seat_zones.get(seat)
            if zone is None:
                run = False
                continue
            got = seen[zone]
            possible = self.possible(zone)
            ok = got not in (None, BACK, UNKNOWN) and got not in played and (
                possible is None or got in possible)
            if run and ok:
                plays.append({"type": "play", "seat": seat, "card": got, "t": t})
                played.add(got)
                continue
            run = False
            if got == UNKNOWN:
                self._hold(zone, UNRECOGNISED, self.zones[zone].ranked, t=t)
            elif got not in (None, BACK):
                self._hold(zone, UNPLACED, (got,), card=got, t=t)
        for seat, zone in self.seat_zones.items():
            if seat not in order and seat not in expected and seen[zone] not in (None, BACK) \
                    and zone not in self.holds:
                got = seen[zone]
                if got == UNKNOWN:
                    self._hold(zone, UNRECOGNISED, self.zones[zone].ranked, t=t)
                else:
                    self._hold(zone, UNPLACED, (got,), card=got, t=t)
        if collected and not plays and not any(
                seen[z] not in (None, BACK) for z in self.seat_zones.values()):
            events.append({"type": "collect", "t": t})
        events.extend(plays)
        self._holds_key = None
        return events

    # -- what a settled change means -------------------------------------------------

    def _visible_elsewhere(self, card: str, zone: str) -> bool:
        # The raw reading too: a card moved to a zone where the rules keep it unknown.
        return any(z.settled == card or z.raw == card for n, z in self.zones.items()
                   if n != zone)

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


def _card_order(code: str) -> tuple[str, int]:
    card = Card.parse(code)
    return "dcsb".index(card.suit.value), card.rank


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
