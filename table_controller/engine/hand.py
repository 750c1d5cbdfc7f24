"""The state of one hand of Briscola as the table shows it, with push/pop.

Like python-chess's ``Board``: one mutable state object; ``push(event)``
validates an event and applies it or raises :class:`IllegalEvent` leaving the
state exactly as it was; ``pop()`` takes back the last accepted event. A
:class:`Correct` event replaces an earlier play and re-pushes everything after it
(all or nothing); popping it restores the original. ``move_stack`` is what was
pushed, corrections included; ``line`` is the sequence of events the state now
stands on.
The camera cannot see players' hands, so the state holds what is public at the
table (cards played, the face-up briscola, how many cards remain in the stock)
plus what follows from it (whose turn, who draws first, who will take the
face-up briscola, which cards a seat is known to hold).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from table_controller.engine.cards import Card, Suit
from table_controller.engine.events import (
    Call,
    Collect,
    Correct,
    Event,
    HandStart,
    IllegalEvent,
    Play,
    Swap,
    Trump,
)
from table_controller.engine.events import ViolationKind as V
from table_controller.engine.rules import DEFAULT_BID, HandRules, Variant
from table_controller.engine.words import Say, Seat

# A 7 of trump may only be swapped for a face-up Fante or better.
_SWAP7_MIN_STRENGTH = Card.parse("8d").strength


class Trick(NamedTuple):
    """A completed trick."""

    leader: int
    plays: tuple[Play, ...]
    winner: int
    points: int

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(p.card for p in self.plays)


class Reason(enum.Enum):
    """Why the hand ended the way it did (cf. python-chess's Termination)."""

    MAJORITY = "majority"  # more than half the points (2 players or teams)
    MOST_POINTS = "most_points"  # 3 players: the single highest score
    TIE = "tie"  # 60-60, or a tie at the top with 3 players
    BID_MADE = "bid_made"  # chiamata: the caller's side reached the bid
    BID_FAILED = "bid_failed"  # chiamata: the defenders held the caller below it


@dataclass(frozen=True, slots=True)
class Outcome:
    reason: Reason
    winners: tuple[int, ...]  # seats; empty for a tie
    points: tuple[int, ...]  # per seat
    team_points: tuple[int, ...] | None
    teams: tuple[tuple[int, ...], ...] | None

    @property
    def result(self) -> str:
        """``"win"`` or ``"tie"``, as in the referee's report."""
        return "tie" if self.reason is Reason.TIE else "win"


@dataclass(frozen=True)
class TableView:
    """What anyone at the table may know: no points until the hand is over.

    ``score`` is None during the hand and the :class:`Outcome` once it ends;
    nothing else in the view carries points.
    """

    players: int
    dealer: int
    variants: tuple[str, ...]
    trump: Suit | None
    briscola: Card | None  # the face-up card while it lies on the table
    stock: int  # cards left to draw, the face-up briscola included
    turn: int | None
    trick: tuple[Play, ...]  # the trick being played, or the finished one still on the table
    tricks_played: int
    tricks_left: int
    trick_winners: tuple[int, ...]
    last_winner: int | None
    draw_order: tuple[int, ...]
    briscola_taker: int | None
    caller: int | None
    called: Card | None
    bid: int | None
    partner: int | None  # chiamata: known once the called card is played
    over: bool
    score: Outcome | None


class Hand:
    """One hand, from the deal to the last trick."""

    def __init__(self, rules: HandRules | None = None, dealer: int = 0) -> None:
        self.rules = rules = rules or HandRules()
        n = rules.players
        if not isinstance(dealer, int) or not 0 <= dealer < n:
            raise ValueError(Say(
                "dealer must be a seat {first}..{last}, not {dealer}", first=Seat(0, english="{}"),
                last=Seat(n - 1, english="{}"),
                dealer=Seat(dealer, english="{}") if isinstance(dealer, int) else repr(dealer)))
        self.players = n
        self.dealer = dealer
        self.n_tricks = rules.tricks
        self._swap7 = Variant.SWAP7 in rules.variants
        self._swap2 = Variant.SWAP2 in rules.variants
        self._in_deck = rules.in_deck
        self._seen = bytearray(40)  # cards played this hand
        self.held: dict[Card, int] = {}  # cards known to be in a seat's hand
        self.points = [0] * n
        self.tricks: list[Trick] = []
        self.current: list[Play] = []  # plays of the trick in progress
        self.move_stack: list[Event] = []  # as pushed, corrections included
        self._line: list[Event] = []  # the events the state stands on (corrections applied)
        self._undo: list[tuple] = []  # what each event of _line changed, tagged by kind
        self._fixes: list[tuple[int, Play]] = []  # per Correct pushed: (index in _line, original)
        # Scalars restored as a block by pop().
        self.turn: int = (dealer + 1) % n
        self.trump: Suit | None = None
        self.briscola: Card | None = None  # face-up card (last seen)
        self.briscola_on_table = False
        self.briscola_taker: int | None = None
        self.stock = len(rules.deck) - n * rules.hand_size  # face-up card included
        self.table: tuple[Play, ...] = ()  # a finished trick not yet collected
        self.draw_order: tuple[int, ...] = ()
        self.caller: int | None = None
        self.called: Card | None = None
        self.bid: int | None = None
        self.partner: int | None = None
        self._best: Card | None = None
        self._best_seat = -1

    # -- queries ---------------------------------------------------------------

    @property
    def leader(self) -> int:
        """The seat that leads (or led) the current trick."""
        if self.current:
            return self.current[0].seat
        return self.turn

    @property
    def first_leader(self) -> int:
        return (self.dealer + 1) % self.players

    def is_over(self) -> bool:
        return len(self.tricks) == self.n_tricks

    @property
    def last_winner(self) -> int | None:
        return self.tricks[-1].winner if self.tricks else None

    @property
    def line(self) -> tuple[Event, ...]:
        """The events the state stands on: ``move_stack`` with each correction applied
        (the same as ``move_stack`` when nothing was corrected)."""
        return tuple(self._line)

    def played(self, card: Card) -> bool:
        return bool(self._seen[card.index])

    def teams(self) -> tuple[tuple[int, ...], ...] | None:
        fixed = self.rules.fixed_teams
        if fixed is not None:
            return fixed
        if self.rules.chiamata and self.caller is not None and self.partner is not None:
            side = (self.caller,) if self.partner == self.caller else tuple(
                sorted((self.caller, self.partner)))
            return side, tuple(s for s in range(self.players) if s not in side)
        return None

    def outcome(self) -> Outcome | None:
        """The result once the last trick is done; None while the hand goes on."""
        if not self.is_over():
            return None
        pts = tuple(self.points)
        teams = self.teams()
        team_pts = tuple(sum(pts[s] for s in t) for t in teams) if teams else None
        total = self.rules.total_points
        if self.rules.chiamata:
            bid = self.bid or DEFAULT_BID
            if team_pts[0] >= bid:
                return Outcome(Reason.BID_MADE, teams[0], pts, team_pts, teams)
            return Outcome(Reason.BID_FAILED, teams[1], pts, team_pts, teams)
        sides = team_pts if teams else pts
        top = max(sides)
        if self.players == 3:
            if sides.count(top) > 1:
                return Outcome(Reason.TIE, (), pts, team_pts, teams)
            return Outcome(Reason.MOST_POINTS, (sides.index(top),), pts, team_pts, teams)
        if 2 * top == total:
            return Outcome(Reason.TIE, (), pts, team_pts, teams)
        best = sides.index(top)
        return Outcome(Reason.MAJORITY, teams[best] if teams else (best,), pts, team_pts, teams)

    def view(self) -> TableView:
        """The public state: everything but the points, until the hand ends."""
        return TableView(
            players=self.players, dealer=self.dealer,
            variants=tuple(sorted(v.value for v in self.rules.variants)),
            trump=self.trump,
            briscola=self.briscola if self.briscola_on_table else None,
            stock=self.stock, turn=None if self.is_over() else self.turn,
            trick=tuple(self.current) or self.table,
            tricks_played=len(self.tricks), tricks_left=self.n_tricks - len(self.tricks),
            trick_winners=tuple(t.winner for t in self.tricks),
            last_winner=self.last_winner, draw_order=self.draw_order,
            briscola_taker=self.briscola_taker, caller=self.caller, called=self.called,
            bid=self.bid, partner=self.partner, over=self.is_over(), score=self.outcome())

    # -- push / pop ------------------------------------------------------------

    def _scalars(self) -> tuple:
        return (self.turn, self.trump, self.briscola, self.briscola_on_table,
                self.briscola_taker, self.stock, self.table, self.draw_order, self.caller,
                self.called, self.bid, self.partner, self._best, self._best_seat)

    def _restore(self, s: tuple) -> None:
        (self.turn, self.trump, self.briscola, self.briscola_on_table, self.briscola_taker,
         self.stock, self.table, self.draw_order, self.caller, self.called, self.bid,
         self.partner, self._best, self._best_seat) = s

    def push(self, event: Event) -> None:
        """Apply ``event``, or raise IllegalEvent and change nothing."""
        if type(event) is Correct:
            self._push_correct(event)
        else:
            self._push_line(event)

    def _push_line(self, event: Event) -> None:
        kind = type(event)
        if kind is Play:
            self._push_play(event)
        elif kind is Collect:
            self._push_collect(event)
        elif kind is Trump:
            self._push_trump(event)
        elif kind is Swap:
            self._push_swap(event)
        elif kind is Call:
            self._push_call(event)
        elif kind is HandStart:
            raise IllegalEvent(V.BAD_EVENT, Say("a hand event starts a new hand; the referee "
                                   "handles it, not the hand in progress"))
        else:
            raise IllegalEvent(V.BAD_EVENT, Say("{event} is not an event a hand can take",
                                   event=str(event)))

    def pop(self) -> Event:
        """Take back the last accepted event and return it (a correction: the original
        play is back, and everything after it refereed as it was)."""
        if not self.move_stack:
            raise IndexError("pop from an empty hand: nothing to take back")
        event = self.move_stack[-1]
        if type(event) is Correct:
            index, original = self._fixes.pop()
            self._relay(index, original)  # the line it replaced was accepted: cannot fail
            self.move_stack.pop()
            return event
        self.move_stack.pop()
        return self._pop_line()

    def _pop_line(self) -> Event:
        event = self._line.pop()
        record = self._undo.pop()
        if record[0] == "p":  # a play within a trick
            _, self.turn, self.table, self._best, self._best_seat, self.partner, had = record
            self._seen[event.card.index] = 0
            self.current.pop()
            if had is not None:
                self.held[event.card] = had
            return event
        if record[0] == "t":  # the play that finished a trick: reopen it
            _, scalars, trick, had = record
            self._seen[event.card.index] = 0
            self.tricks.pop()
            self.points[trick.winner] -= trick.points
            self.current = list(trick.plays[:-1])
            if self.briscola_taker is not None and scalars[4] is None:
                self.held.pop(self.briscola, None)
            if had is not None:
                self.held[event.card] = had
        else:
            scalars = record[1]
            if type(event) is Swap:
                self.held.pop(scalars[2], None)
        self._restore(scalars)
        return event

    def _check_seat(self, seat: int, what: str) -> None:
        if not 0 <= seat < self.players:
            raise IllegalEvent(V.BAD_EVENT, Say("{what} by {player}: seats are {first}..{last} "
                                   "with {n} players", what=what, player=Seat(seat),
                                   first=Seat(0, english="{}"),
                                   last=Seat(self.players - 1, english="{}"),
                                   n=self.players), seat=seat)

    def _check_card(self, card: Card, seat: int | None) -> None:
        if not self._in_deck[card.index]:
            raise IllegalEvent(V.NOT_IN_DECK, Say("{card} is not in the deck for {n} players "
                                     "(removed: {removed})", card=str(card), n=self.players,
                                     removed=" ".join(map(str, self.rules.removed))),
                               seat, card)
        if self._seen[card.index]:
            raise IllegalEvent(V.DUPLICATE_CARD, Say("{card} was already played this hand",
                                        card=str(card)), seat, card)
        if card is self.briscola and self.briscola_on_table:
            raise IllegalEvent(V.DUPLICATE_CARD, Say("{card} is the face-up briscola, still lying "
                                        "under the stock", card=str(card)), seat, card)

    def _play_error(self, event: Play) -> IllegalEvent:
        """Why ``event`` cannot be played, checked in order of precedence."""
        seat, card = event.seat, event.card
        if len(self.tricks) == self.n_tricks:
            return IllegalEvent(V.HAND_OVER, Say("the hand is over: all {n} tricks were played "
                                    "({card} by {player})", n=self.n_tricks, card=str(card),
                                    player=Seat(seat)), seat, card)
        try:
            self._check_seat(seat, "play")
            if self.trump is None:
                if self.rules.chiamata:
                    msg = Say("{card} played before the auction's call: trump is not known yet",
                              card=str(card))
                else:
                    msg = Say("{card} played before the face-up briscola was seen", card=str(card))
                raise IllegalEvent(V.NO_TRUMP, msg, seat, card)
            self._check_card(card, seat)
        except IllegalEvent as exc:
            return exc
        if seat != self.turn:
            return IllegalEvent(V.OUT_OF_TURN, Say("{player} played {card} but it is {turn}'s turn",
                                      player=Seat(seat), card=str(card),
                                      turn=Seat(self.turn)), seat, card)
        holder = self.held.get(card)
        return IllegalEvent(V.NOT_HELD, Say("{card} is in {holder}'s hand, not {player}'s",
                                   card=str(card), holder=Seat(holder), player=Seat(seat)),
                            seat, card)

    def _push_play(self, event: Play) -> None:
        # The hot path of the whole referee: one quick test for the common case, the
        # reasons (in their order of precedence) only when something is wrong.
        seat, card = event.seat, event.card
        idx = card.index
        holder = self.held.get(card)
        if (seat != self.turn or self.trump is None or self._seen[idx]
                or not self._in_deck[idx] or len(self.tricks) == self.n_tricks
                or (card is self.briscola and self.briscola_on_table)
                or (holder is not None and holder != seat)):
            raise self._play_error(event)
        # -- accepted from here on: nothing below may raise --
        current = self.current
        if holder is not None:
            del self.held[card]
        self._seen[idx] = 1
        table = self.table
        if table:  # a play for the next trick implies the collect
            self.table = ()
        current.append(event)
        best, best_seat = self._best, self._best_seat
        if best is None or card.beats(best, self.trump):
            self._best, self._best_seat = card, seat
        partner = self.partner
        if card is self.called:
            self.partner = seat
        self.move_stack.append(event)
        self._line.append(event)
        n = self.players
        if len(current) < n:
            self._undo.append(("p", self.turn, table, best, best_seat, partner, holder))
            self.turn = (seat + 1) % n
            return
        scalars = (self.turn, self.trump, self.briscola, self.briscola_on_table,
                   self.briscola_taker, self.stock, table, self.draw_order, self.caller,
                   self.called, self.bid, partner, best, best_seat)
        winner = self._best_seat
        pts = 0
        for p in current:
            pts += p.card.points
        trick = Trick(current[0].seat, tuple(current), winner, pts)
        self.tricks.append(trick)
        self.points[winner] += pts
        self.current = []
        self.table = trick.plays
        self.turn = winner
        self._best, self._best_seat = None, -1
        if self.stock > 0:
            self.stock -= n
            self.draw_order = tuple((winner + i) % n for i in range(n))
            if self.stock == 0 and self.briscola_on_table:
                # The face-up briscola is the very last card drawn.
                taker = (winner + n - 1) % n
                self.briscola_on_table = False
                self.briscola_taker = taker
                self.held[self.briscola] = taker
        else:
            self.draw_order = ()
        self._undo.append(("t", scalars, trick, holder))

    def _push_collect(self, event: Collect) -> None:
        if not self.table:
            if len(self.tricks) == self.n_tricks:
                raise IllegalEvent(V.HAND_OVER, Say("the hand is over and its last trick was "
                                       "already collected"))
            if self.current:
                raise IllegalEvent(V.BAD_EVENT, Say("collect while the trick is incomplete: "
                                       "{played} of {n} cards played",
                                       played=len(self.current), n=self.players))
            raise IllegalEvent(V.BAD_EVENT, Say("collect with no trick on the table"))
        self._undo.append(("s", self._scalars()))
        self.table = ()
        self.move_stack.append(event)
        self._line.append(event)

    def _push_trump(self, event: Trump) -> None:
        card = event.card
        if self.rules.chiamata:
            raise IllegalEvent(V.BAD_EVENT, Say("Briscola chiamata has no face-up briscola: trump "
                                   "comes from the auction's call"), card=card)
        if self.trump is not None:
            if card is self.briscola:
                raise IllegalEvent(V.DUPLICATE_CARD, Say("the face-up briscola {card} was already "
                                            "seen", card=str(card)), card=card)
            raise IllegalEvent(V.BAD_EVENT, Say("the face-up briscola is already known "
                                   "({briscola}); {card} cannot replace it (a swap does)",
                                   briscola=str(self.briscola), card=str(card)), card=card)
        self._check_card(card, None)
        self._undo.append(("s", self._scalars()))
        self.trump = card.suit
        self.briscola = card
        self.briscola_on_table = True
        self.move_stack.append(event)
        self._line.append(event)

    def _swap_error(self, event: Swap) -> Say | None:
        seat, card, rank = event.seat, event.card, event.card.rank
        if self.trump is None or self.briscola is None:
            return Say("no face-up briscola is on the table yet")
        if not self.briscola_on_table:
            return Say("the face-up briscola was already drawn")
        if card.suit is not self.trump or rank not in (7, 2):
            return Say("only the 7 or the 2 of trump ({suit}) can be swapped, not {card}",
                       suit=self.trump.value, card=str(card))
        if rank == 7:
            if not self._swap7:
                return Say("the swap7 variant is off")
            if not self.tricks:
                return Say("the 7 of trump cannot be swapped before the first trick is won")
            if self.current:
                return Say("the 7 of trump is swapped between tricks, not during one")
            if seat != self.tricks[-1].winner:
                return Say("only the winner of the last trick ({winner}) may swap the 7 of "
                           "trump, not {player}", winner=Seat(self.tricks[-1].winner),
                           player=Seat(seat))
            if self.briscola.strength < _SWAP7_MIN_STRENGTH:
                return Say("the face-up {card} is weaker than a Fante: the 7 of trump may "
                           "only take an Asso, 3, Re, Cavallo or Fante",
                           card=str(self.briscola))
        else:
            if not self._swap2:
                return Say("the swap2 variant is off")
            if self.tricks:
                return Say("the 2 of trump may only be swapped before the first trick is "
                           "complete")
        return None

    def _push_swap(self, event: Swap) -> None:
        seat, card = event.seat, event.card
        if len(self.tricks) == self.n_tricks:
            raise IllegalEvent(V.HAND_OVER, Say("the hand is over"), seat, card)
        self._check_seat(seat, "swap")
        if self.rules.chiamata:
            raise IllegalEvent(V.ILLEGAL_SWAP, Say("Briscola chiamata has no face-up "
                                              "briscola to swap"), seat, card)
        err = self._swap_error(event)
        if err is None:
            self._check_card(card, seat)
            holder = self.held.get(card)
            if holder is not None and holder != seat:
                raise IllegalEvent(V.NOT_HELD, Say("{card} is in {holder}'s hand, not {player}'s",
                                       card=str(card), holder=Seat(holder),
                                       player=Seat(seat)), seat, card)
        if err is not None:
            raise IllegalEvent(V.ILLEGAL_SWAP, Say("illegal swap of {card} by {player}: {problem}",
                                      card=str(card), player=Seat(seat), problem=err),
                               seat, card)
        self._undo.append(("s", self._scalars()))
        self.held[self.briscola] = seat  # the old face-up card is now in the swapper's hand
        self.briscola = card
        self.move_stack.append(event)
        self._line.append(event)

    def _push_call(self, event: Call) -> None:
        seat, card = event.seat, event.card
        if not self.rules.chiamata:
            raise IllegalEvent(V.BAD_EVENT, Say("a call is only made in Briscola chiamata "
                                   "(5 players), not with {n}", n=self.players), seat, card)
        if len(self.tricks) == self.n_tricks:
            raise IllegalEvent(V.HAND_OVER, Say("the hand is over"), seat, card)
        self._check_seat(seat, "call")
        if self.called is not None:
            raise IllegalEvent(V.BAD_EVENT, Say("the auction is over: {caller} already called "
                                   "{card}",
                                   caller=Seat(self.caller), card=str(self.called)),
                               seat, card)
        if self.current or self.tricks:
            raise IllegalEvent(V.BAD_EVENT, Say("the call must come before the first card is "
                                   "played"), seat, card)
        if not self._in_deck[card.index]:
            raise IllegalEvent(V.NOT_IN_DECK, Say("{card} is not in the deck", card=str(card)),
                               seat, card)
        total = self.rules.total_points
        if not DEFAULT_BID <= event.points <= total:
            raise IllegalEvent(V.BAD_EVENT, Say("a bid must be {least}..{most} points, not "
                                   "{points}",
                                   least=DEFAULT_BID, most=total, points=event.points),
                               seat, card)
        self._undo.append(("s", self._scalars()))
        self.caller, self.called, self.bid = seat, card, event.points
        self.trump = card.suit
        self.move_stack.append(event)
        self._line.append(event)

    def _push_correct(self, event: Correct) -> None:
        seat, card, was = event.seat, event.card, event.was
        self._check_seat(seat, "correction")
        index = next((i for i in range(len(self._line) - 1, -1, -1)
                      if type(e := self._line[i]) is Play and e.seat == seat
                      and (was is None or e.card is was)), None)
        if index is None:
            problem = Say("nothing to correct: {player} has not played a {card} this hand",
                          player=Seat(seat), card=str(was)) if was is not None else \
                Say("nothing to correct: {player} has not played a card this hand",
                    player=Seat(seat))
            raise IllegalEvent(V.BAD_EVENT, problem, seat, card)
        original = self._line[index]
        if original.card is card:
            raise IllegalEvent(V.BAD_EVENT, Say("nothing to correct: {player}'s card is already "
                                   "{card}", player=Seat(seat), card=str(card)), seat, card)
        try:
            self._relay(index, Play(seat, card))
        except IllegalEvent as exc:
            raise IllegalEvent(exc.kind, Say("cannot correct {player}'s {original} to {card}: "
                                "{problem}", player=Seat(seat), original=str(original.card),
                                card=str(card), problem=exc.message), seat, card) from None
        self._fixes.append((index, original))
        self.move_stack.append(event)

    def _relay(self, index: int, replacement: Event) -> None:
        """Put ``replacement`` in place of ``_line[index]`` and push again everything
        after it; if anything is refused, put the line back as it was and re-raise."""
        stack = self.move_stack  # the re-pushes below must not show in it
        self.move_stack = []
        try:
            tail = self._line[index + 1:]
            original = self._line[index]
            while len(self._line) > index:
                self._pop_line()
            pushed = 0
            try:
                for event in (replacement, *tail):
                    self._push_line(event)
                    pushed += 1
            except IllegalEvent as exc:
                for _ in range(pushed):
                    self._pop_line()
                for event in (original, *tail):
                    self._push_line(event)
                if pushed:  # the replacement itself went in: a later event broke
                    raise IllegalEvent(exc.kind, Say("then {problem}", problem=exc.message),
                                       exc.seat, exc.card) from None
                raise
        finally:
            self.move_stack = stack

    # -- comparison ------------------------------------------------------------

    def _key(self) -> tuple:
        return (self.rules, self.dealer, tuple(self.move_stack), tuple(self.points),
                tuple(self.tricks), tuple(self.current), tuple(sorted(
                    (str(c), s) for c, s in self.held.items())), self._scalars())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hand) and self._key() == other._key()

    __hash__ = None  # mutable

    def copy(self) -> Hand:
        """An independent hand that replays the same events."""
        other = Hand(self.rules, self.dealer)
        for event in self.move_stack:
            other.push(event)
        return other

    def __repr__(self) -> str:
        return (f"<Hand players={self.players} dealer={self.dealer} tricks={len(self.tricks)}/"
                f"{self.n_tricks} turn={self.turn} trump={self.briscola}>")
