"""The referee: takes the table's physical events, one at a time, for a whole match.

Every event is either accepted (the state moves on and a :class:`Decision` says
what the table should show) or rejected with a :class:`Violation`, leaving the
state exactly as it was. The referee is pure: no I/O, no clock.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from table_controller.engine.cards import Card
from table_controller.engine.events import (
    Call,
    Correct,
    Event,
    HandStart,
    IllegalEvent,
    Play,
    Undo,
    ViolationKind,
    decode_event,
    event_from_checked,
)
from table_controller.engine.hand import Hand, Outcome, Trick
from table_controller.engine.rules import CHIAMATA_PLAYERS, DEFAULT_BID, HandRules, Variant
from table_controller.engine.words import Say, Seat

MATCH_LENGTHS = (1, 3, 5)


@dataclass(frozen=True, slots=True)
class Violation:
    kind: ViolationKind
    message: str
    seat: int | None = None
    card: Card | None = None
    line: int | None = None  # 1-based line of the input, when read from a file
    hand: int | None = None  # index of the hand it happened in

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "kind": self.kind.value, "seat": self.seat,
                "card": None if self.card is None else str(self.card),
                "message": self.message}


class NoteKind(enum.StrEnum):
    # The hand event named a dealer other than the rotation's: the next seat after
    # a finished hand, the same dealer again after an abandoned one.
    DEALER_OUT_OF_ROTATION = "dealer_out_of_rotation"


@dataclass(frozen=True, slots=True)
class Note:
    """Something the referee accepted but the table should know about (not a violation)."""

    kind: NoteKind
    message: str
    seat: int | None = None  # for a dealer note: the dealer the hand event named
    expected: int | None = None  # ... and the one the rotation gives
    line: int | None = None
    hand: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "kind": self.kind.value, "seat": self.seat,
                "expected": self.expected, "message": self.message}


class Decision:
    """What one event did: the outputs the indicators and dashboard act on.

    Attributes left at their class defaults did not change with this event.
    """

    accepted = True
    violation: Violation | None = None
    note: Note | None = None  # accepted, but worth saying (a dealer out of rotation)
    undone: Event | None = None  # for an undo: the event taken back
    replaced: Play | None = None  # for a correction: the play it replaced
    turn: int | None = None  # seat to play next (None when no hand is going on)
    trick_winner: int | None = None  # set when this event finished a trick
    trick: Trick | None = None
    draw_order: tuple[int, ...] = ()  # after that trick, winner first
    briscola_taker: int | None = None  # set when the face-up briscola was just drawn
    partner: int | None = None  # chiamata: set when the called card reveals the partner
    new_hand = False
    hand_over = False  # this event ended the hand
    result: Outcome | None = None  # the hand's outcome, with hand_over
    match: MatchStanding | None = None  # with hand_over (and when an undo reopens a hand)
    t: float | None = None  # the event's frame time, when the tracker gave one

    def __init__(self, event: Event | None, line: int | None = None) -> None:
        self.event = event
        self.line = line

    def __repr__(self) -> str:
        fields = {k: v for k, v in vars(self).items() if v is not None}
        return f"Decision({fields})"


@dataclass(frozen=True)
class MatchStanding:
    length: int | None  # 1, 3, 5, or None for an open series
    hands_won: tuple[int, ...]  # per seat
    hands_played: int  # finished hands, ties included
    winners: tuple[int, ...]  # seats that won the match, once it is decided

    @property
    def over(self) -> bool:
        return bool(self.winners)

    @property
    def winner(self) -> int | None:
        """The winning seat (for teams, the team's lowest seat: its team index)."""
        return self.winners[0] if self.winners else None

    def to_json(self) -> dict[str, Any]:
        return {"hands_won": list(self.hands_won), "winner": self.winner,
                "winners": list(self.winners), "length": self.length,
                "hands_played": self.hands_played}


class Referee:
    """Referees a match: a series of hands fed as physical events.

    ``players``, ``variants`` and ``removed`` are defaults for hands whose
    ``hand`` event does not say; ``match`` is 1, 3 or 5 hands (None: an open
    series that never declares a winner); ``dealer`` is the first dealer when
    the events start without a ``hand`` event (default: the seat before 0, so
    seat 0 leads).
    """

    def __init__(self, players: int = 2, variants: tuple[str, ...] | frozenset = (),
                 match: int | None = None, removed: tuple[Card, ...] | None = None,
                 dealer: int | None = None) -> None:
        self.defaults = HandRules.of(players, variants, removed)
        if match is not None and match not in MATCH_LENGTHS:
            raise ValueError(f"match must be 1, 3 or 5 hands, not {match!r}")
        if dealer is not None and not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat 0..{players - 1}, not {dealer}")
        self.match_length = match
        self.first_dealer = dealer
        self.hands: list[Hand] = []
        self.violations: list[Violation] = []
        self.notes: list[Note] = []  # of the hands still in ``hands``
        self._history: list[bool] = []  # per accepted event: did it start a hand?

    # -- queries ---------------------------------------------------------------

    @property
    def hand(self) -> Hand | None:
        """The hand in progress (or the last one played)."""
        return self.hands[-1] if self.hands else None

    def standing(self) -> MatchStanding:
        n = self.hands[0].players if self.hands else self.defaults.players
        won = [0] * n
        played = 0
        winners: tuple[int, ...] = ()
        need = self.match_length // 2 + 1 if self.match_length else None
        for hand in self.hands:
            outcome = hand.outcome()
            if outcome is None:
                continue
            played += 1
            for seat in outcome.winners:
                won[seat] += 1
            if need and not winners and max(won) >= need:
                top = max(won)
                winners = tuple(s for s in range(n) if won[s] == top)
        return MatchStanding(self.match_length, tuple(won), played, winners)

    def next_dealer(self) -> int:
        """Who deals the next hand: the next seat after a finished hand, the same
        dealer again after an abandoned one."""
        hand = self.hand
        if hand is None:
            if self.first_dealer is not None:
                return self.first_dealer
            return self.defaults.players - 1
        return (hand.dealer + 1) % hand.players if hand.is_over() else hand.dealer

    # -- feeding events ----------------------------------------------------------

    def feed_json(self, obj: Any, line: int | None = None) -> Decision:
        """Feed one JSON Lines event (text or decoded object)."""
        # Checked whole (sizes, depth, numbers, "t") before any rule sees it: an event
        # that passes can be stored, so the referee never moves on for one that cannot.
        try:
            obj = decode_event(obj)
            event = event_from_checked(obj)
        except IllegalEvent as exc:
            return self._reject(None, exc, line)
        t = obj.get("t")
        decision = self.feed(event, line)
        if t is not None:
            decision.t = float(t)
        return decision

    def feed(self, event: Event, line: int | None = None) -> Decision:
        """Feed one event; the returned Decision says whether it was accepted."""
        kind = type(event)
        try:
            if kind is HandStart:
                return self._start_hand(event, line)
            if kind is Undo:
                return self._undo(event, line)
            if self.hands:
                hand = self.hands[-1]
                if kind is Play:  # the hot path
                    hand._push_play(event)
                else:
                    hand.push(event)
                self._history.append(False)
            else:
                hand = self._implicit_hand()
                try:
                    hand.push(event)
                except IllegalEvent:
                    self.hands.pop()
                    raise
                self._history.append(True)  # the implied hand goes with this event
        except IllegalEvent as exc:
            return self._reject(event, exc, line)
        decision = Decision(event, line)
        if kind is Correct:
            decision.replaced = hand._fixes[-1][1]
            if hand.is_over():  # the last trick's card: the result may have changed
                decision.hand_over = True
                decision.result = hand.outcome()
                decision.match = self.standing()
                return decision
        elif kind is Play:
            if not hand.current:  # this play finished a trick
                self._describe_trick(hand, decision)
                if decision.hand_over:
                    return decision
            if event.card is hand.called:
                decision.partner = hand.partner
        if len(hand.tricks) < hand.n_tricks:
            decision.turn = hand.turn
        return decision

    def _implicit_hand(self) -> Hand:
        self._check_match_open()
        hand = Hand(self.defaults, self.next_dealer())
        self.hands.append(hand)
        return hand

    def _check_match_open(self) -> None:
        standing = self.standing()
        if standing.over:
            raise IllegalEvent(ViolationKind.HAND_OVER, Say(
                "the match is over: won by {players}",
                players=Seat(*standing.winners, english="seat(s) {}")))

    def _start_hand(self, event: HandStart, line: int | None) -> Decision:
        self._check_match_open()
        previous = self.hand
        players = self.defaults.players if event.players is None else event.players
        if previous is not None and players != previous.players:
            raise IllegalEvent(ViolationKind.BAD_EVENT, Say("this match is for {n} players, not "
                                                       "{players}", n=previous.players,
                                                       players=players))
        variants = self.defaults.variants if event.variants is None else event.variants
        try:
            if players == CHIAMATA_PLAYERS:
                variants = frozenset()
            rules = HandRules.of(players, variants, event.removed if event.removed is not None
                              else (self.defaults.removed if players == self.defaults.players
                                    else None))
        except ValueError as exc:
            raise IllegalEvent(ViolationKind.BAD_EVENT, Say("bad hand event: {problem}",
                                                       problem=exc)) from None
        expected = self.next_dealer() if previous is not None else None
        dealer = event.dealer
        if dealer is None:
            dealer = expected if expected is not None else self.next_dealer() % players
        if not 0 <= dealer < players:
            raise IllegalEvent(ViolationKind.BAD_EVENT, Say(
                "dealer must be a seat {first}..{last}, not {dealer}", first=Seat(0, english="{}"),
                last=Seat(players - 1, english="{}"), dealer=Seat(dealer, english="{}")))
        # The hand event says who dealt (the table's setup, a recorded file): take
        # it, and only note a broken rotation; rejecting it would lose the hand.
        note = None
        if expected is not None and dealer != expected:
            rule = (Say("after a finished hand the deal passes on") if previous.is_over()
                    else Say("the same dealer redeals an abandoned hand"))
            note = Note(NoteKind.DEALER_OUT_OF_ROTATION,
                        Say("{dealer} deals this hand; by the rotation it was {expected}'s "
                            "deal ({rule})", dealer=Seat(dealer), expected=Seat(expected),
                            rule=rule), dealer, expected, line, len(self.hands))
        hand = Hand(rules, dealer)
        if event.caller is not None or event.called is not None:
            if event.caller is None or event.called is None:
                raise IllegalEvent(ViolationKind.BAD_EVENT, Say("a hand event with the auction's "
                                                           "result needs both 'caller' and "
                                                           "'called'"))
            # Undone together with the hand event (see _undo).
            hand.push(Call(event.caller, event.called,
                           DEFAULT_BID if event.points is None else event.points))
        self.hands.append(hand)
        self._history.append(True)
        decision = Decision(event, line)
        if note is not None:
            self.notes.append(note)
            decision.note = note
        decision.new_hand = True
        decision.turn = hand.turn
        return decision

    def _undo(self, event: Undo, line: int | None) -> Decision:
        if not self._history:
            raise IllegalEvent(ViolationKind.BAD_EVENT, Say("nothing to undo"))
        was_over = self.standing()
        started = self._history.pop()
        hand = self.hands[-1]
        decision = Decision(event, line)
        if started and not hand.move_stack:
            self._drop_hand()
            decision.undone = HandStart(hand.players, hand.dealer)
            hand = self.hand
        else:
            decision.undone = hand.pop()
            if started:  # the event that implied the hand: drop the hand with it
                self._drop_hand()
                hand = self.hand
        if hand is not None and not hand.is_over():
            decision.turn = hand.turn
        if was_over.hands_played != self.standing().hands_played:
            decision.match = self.standing()
        return decision

    def _drop_hand(self) -> None:
        self.hands.pop()
        gone = len(self.hands)
        self.notes = [n for n in self.notes if n.hand != gone]

    def refuse(self, event: Event | None, kind: ViolationKind, message: str,
               line: int | None = None, seat: int | None = None,
               card: Card | None = None) -> Decision:
        """Record a refusal decided earlier (a stored verdict, replayed) without
        looking at the rules; the state moves no more than for any refusal."""
        return self._reject(event, IllegalEvent(kind, message, seat, card), line)

    def _reject(self, event: Event | None, exc: IllegalEvent, line: int | None) -> Decision:
        violation = Violation(exc.kind, exc.message, exc.seat, exc.card, line,
                              len(self.hands) - 1 if self.hands else None)
        self.violations.append(violation)
        decision = Decision(event, line)
        decision.accepted = False
        decision.violation = violation
        hand = self.hand
        if hand is not None and not hand.is_over():
            decision.turn = hand.turn
        return decision

    def _describe_trick(self, hand: Hand, decision: Decision) -> None:
        trick = hand.tricks[-1]
        decision.trick = trick
        decision.trick_winner = trick.winner
        decision.draw_order = hand.draw_order
        if hand.stock == 0 and hand.briscola_taker is not None and hand.draw_order:
            decision.briscola_taker = hand.briscola_taker
        if len(hand.tricks) == hand.n_tricks:
            decision.hand_over = True
            decision.result = hand.outcome()
            decision.match = self.standing()

    # -- convenience ---------------------------------------------------------------

    def feed_all(self, events, start_line: int = 1) -> list[Decision]:
        return [self.feed(e, i) for i, e in enumerate(events, start_line)]


__all__ = ["Decision", "MatchStanding", "Note", "NoteKind", "Referee", "Violation",
           "MATCH_LENGTHS", "Variant"]
