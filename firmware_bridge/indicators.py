"""The one object the controller talks to about what the table shows.

``Indicators`` keeps the table's ``TableState`` and fans each change out to the
configured outputs (GPIO LEDs/buzzer, the board over serial, a display); the
referee knows nothing about pins or ports. Call the plain methods, or hand it
each referee ``Decision`` with ``apply``. Buttons from the GPIO and from the
board arrive at the callbacks registered with ``on_button`` as "confirm",
"undo" or "new_hand", and as "confirm_long" / "undo_long" for a long press (held
on the Pi's buttons; pressed twice on the board's, see ``firmware_bridge.buttons``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from .config import IndicatorsConfig
from .screen import player_labels, seat_label
from .table_state import (
    BLANK,
    ERROR_CHARS,
    ERROR_KINDS,
    LINE_CHARS,
    MAX_LINES,
    OUTCOME_NONE,
    OUTCOME_TIE,
    OUTCOME_WIN,
    StateError,
    TableState,
    ascii_text,
)
from .words import language_index, words

log = logging.getLogger(__name__)


class TableOutput(Protocol):
    def show(self, state: TableState) -> None: ...

    def close(self) -> None: ...


class IndicatorError(ValueError):
    """A call that does not fit the hand (seat out of range, unknown suit...)."""


class Indicators:
    """See the module docstring."""

    def __init__(self, outputs: Sequence[TableOutput] = (), *, brightness: int = 128) -> None:
        self.outputs: list[TableOutput] = list(outputs)
        self._state = BLANK.replace(brightness=brightness)
        self._buttons: list[Callable[[str], None]] = []
        self.link = None  # the BoardLink, when there is one
        self._double: Any = None  # the board's double presses, when there is a board
        # Callers may come from button callbacks (gpiozero's and the link's threads)
        # as well as the controller's: one change and its fan-out at a time.
        self._lock = threading.RLock()
        self._note_lines: tuple[str, ...] = ()  # a dealer note on the display, if any

    @classmethod
    def from_config(cls, config: IndicatorsConfig, *, pin_factory=None,
                    extra: Iterable[TableOutput] = ()) -> Indicators:
        """Build the outputs the configuration asks for (GPIO, board, display)."""
        self = cls(brightness=config.brightness)
        if config.seat_leds or config.rgb_leds or config.buzzer is not None or config.buttons:
            from .gpio import GpioIndicators
            self.outputs.append(GpioIndicators(config, pin_factory=pin_factory,
                                               on_button=self._button))
        if config.serial_port:
            from .buttons import DoublePress
            from .link import BoardLink
            from .protocol import CAP_LONG_PRESS

            def long_capable() -> bool:
                info = self.link.info if self.link is not None else None
                return info is not None and bool(info.caps & CAP_LONG_PRESS)

            # The board reports presses only: a double press is its long press.
            self._double = DoublePress(self._button, config.double_press_ms / 1000,
                                       passthrough=long_capable)
            self.link = BoardLink(config.serial_port, config.baud,
                                  ack_timeout=config.ack_timeout_ms / 1000,
                                  retries=config.retries, on_button=self._double).start()
            self.outputs.append(self.link)
        backend = config.display_backend
        if backend == "image":
            from .display import ImageDisplay
            self.outputs.append(ImageDisplay(config.image_path))
        elif backend == "i2c":
            from .display import LumaDisplay
            self.outputs.append(LumaDisplay(config.i2c_port, config.i2c_address))
        elif backend == "board" and self.link is None:
            raise IndicatorError("display 'board' needs a serial port")
        self.outputs.extend(extra)
        self._fan_out()
        return self

    # --- plumbing -----------------------------------------------------------------

    @property
    def state(self) -> TableState:
        return self._state

    def status(self) -> dict:
        """For the dashboard: the table state and the board link's health."""
        import dataclasses
        return {"state": dataclasses.asdict(self._state),
                "outputs": [type(o).__name__ for o in self.outputs],
                "link": None if self.link is None else self.link.status()}

    def on_button(self, callback: Callable[[str], None]) -> None:
        self._buttons.append(callback)

    def _button(self, name: str) -> None:
        for cb in list(self._buttons):
            try:
                cb(name)
            except Exception:
                log.exception("button handler failed")

    def _set(self, state: TableState) -> None:
        with self._lock:
            if state != self._state:
                self._state = state
                self._fan_out()

    def _update(self, **changes: Any) -> None:
        with self._lock:
            try:
                new = self._state.replace(**changes)
            except StateError as exc:
                raise IndicatorError(str(exc)) from None
            self._set(new)

    def _fan_out(self) -> None:
        for out in self.outputs:
            try:
                out.show(self._state)
            except Exception:  # one broken output must not blank the others
                log.exception("table output %r failed", out)

    def _seat(self, seat: int | None, what: str) -> int | None:
        if seat is None:
            return None
        n = self._state.players or 6
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise IndicatorError(f"{what}: seat {seat!r} is not 0-{n - 1}")
        return seat

    def close(self) -> None:
        if self._double is not None:
            self._double.close()
        for out in self.outputs:
            try:
                out.close()
            except Exception:
                log.exception("closing %r failed", out)

    def __enter__(self) -> Indicators:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the referee says ----------------------------------------------------

    def new_hand(self, players: int, dealer: int) -> None:
        if not isinstance(players, int) or not 2 <= players <= 6:
            raise IndicatorError(f"players: {players!r} is not 2-6")
        if not isinstance(dealer, int) or not 0 <= dealer < players:
            raise IndicatorError(f"dealer: {dealer!r} is not a seat of {players} players")
        self._set(TableState(players=players, dealer=dealer, turn=(dealer + 1) % players,
                             brightness=self._state.brightness,
                             language=self._state.language))

    def turn(self, seat: int | None) -> None:
        self._update(turn=self._seat(seat, "turn"))

    def trick_won(self, seat: int) -> None:
        seat = self._seat(seat, "trick_won")
        self._update(trick_seat=seat, trick_no=(self._state.trick_no + 1) % 256)

    def draw_order(self, seats: Iterable[int]) -> None:
        order = tuple(self._seat(s, "draw_order") for s in seats)
        self._update(draw_order=order)

    def trump(self, card_or_suit: Any) -> None:
        """The trump: a ``Card``, a ``Suit``, a code ("5s", "s") or None (not known yet)."""
        if card_or_suit is None:
            self._update(trump_suit="", trump_rank=0)
            return
        rank = getattr(card_or_suit, "rank", 0)
        suit = getattr(card_or_suit, "suit", card_or_suit)
        suit = getattr(suit, "value", suit)
        if isinstance(suit, str) and len(suit) > 1:
            from table_controller.engine.cards import Card  # a code such as "5s"
            try:
                card = Card.parse(suit)
            except ValueError as exc:
                raise IndicatorError(f"trump: {exc}") from None
            rank, suit = card.rank, card.suit.value
        if suit not in ("d", "c", "s", "b"):
            raise IndicatorError(f"trump: {card_or_suit!r} is not a suit d, c, s or b")
        self._update(trump_suit=suit, trump_rank=rank)

    def language(self, code: str) -> None:
        """The display's words: the table's language (it, en, fr; anything else English)."""
        self._update(language=language_index(code))

    def violation(self, kind: str, message: str = "", seat: int | None = None,
                  card: object = None) -> None:
        """A rule broken: shown until the next accepted event (``clear_violation``).

        ``message`` is the referee's, which numbers seats from 0; on the table the
        players are P1, P2... (P1 is seat 0), as the screen's title and the LED
        legends say, so "seat N" in it is shown as "P(N+1)" (``player_labels``)."""
        kind = getattr(kind, "value", kind)
        code = ERROR_KINDS.get(str(kind), ERROR_KINDS["other"])
        seat = seat if seat is None or 0 <= seat < (self._state.players or 6) else None
        text = player_labels(message or "")
        phrase = words(self._state.language).get(f"msg_{kind}") if self._state.language else None
        if phrase and (card is not None or "{card}" not in phrase):
            # Italian or French: the table's phrase (the referee's own words are English).
            turn = self._state.turn
            text = phrase.format(player="?" if seat is None else seat_label(seat),
                                 card="" if card is None else str(card),
                                 turn="?" if turn is None else seat_label(turn))
        self._update(error_kind=code, error_seat=seat, error_text=ascii_text(text, ERROR_CHARS))

    def clear_violation(self) -> None:
        self._update(error_kind=0, error_seat=None, error_text="")

    def hand_result(self, points: Sequence[int], winners: Sequence[int] = (),
                    outcome: str = "win", team_points: Sequence[int] | None = None) -> None:
        if outcome not in ("win", "tie"):
            raise IndicatorError(f"hand_result: outcome {outcome!r} is not 'win' or 'tie'")
        self._update(outcome=OUTCOME_TIE if outcome == "tie" else OUTCOME_WIN,
                     winners=tuple(sorted(self._seat(s, "winners") for s in winners)),
                     points=tuple(points), team_points=tuple(team_points or ()), turn=None)

    def text(self, *lines: str) -> None:
        """Free text on the display (up to 4 lines of 21 characters); none to clear."""
        if len(lines) > MAX_LINES:
            raise IndicatorError(f"text: {len(lines)} lines, at most {MAX_LINES}")
        self._update(text=tuple(ascii_text(line, LINE_CHARS) for line in lines))

    def brightness(self, level: int) -> None:
        self._update(brightness=int(level))

    def clear(self) -> None:
        self._set(TableState(brightness=self._state.brightness, language=self._state.language))

    # --- the referee's Decision ---------------------------------------------------

    def apply(self, decision: Any, hand: Any = None) -> None:
        """Show what a referee ``Decision`` says; ``hand`` (the referee's current
        hand, optional) fills in what a decision does not carry (players of a
        default hand event, the trump and last trick after an undo)."""
        with self._lock:
            self._apply(decision, hand)

    def _apply(self, decision: Any, hand: Any) -> None:
        event = getattr(decision, "event", None)
        accepted = getattr(decision, "accepted", True)
        violation = getattr(decision, "violation", None)
        state = self._state
        try:
            if accepted and self._state.text and self._state.text == self._note_lines:
                self._update(text=())  # the table has moved on: the note has been read
            if accepted and getattr(decision, "new_hand", False):
                players = getattr(event, "players", None) or getattr(hand, "players", None)
                dealer = getattr(event, "dealer", None)
                if dealer is None:
                    dealer = getattr(hand, "dealer", 0)
                self.new_hand(players, dealer)
                note = getattr(decision, "note", None)
                expected = getattr(note, "expected", None)
                if note is not None and expected is not None and 0 <= expected < players:
                    # A dealer out of rotation is taken, and said until the next event.
                    w = words(self._state.language)
                    self._note_lines = tuple(ascii_text(line, LINE_CHARS) for line in (
                        w["note_title"], w["note_dealt"].format(player=seat_label(dealer)),
                        w["note_expected"].format(player=seat_label(expected))))
                    self.text(*self._note_lines)
            if accepted and getattr(event, "type", None) == "trump":
                self.trump(getattr(event, "card", None))
            if accepted and getattr(hand, "trump", None) is not None:
                # the face-up card changes with a swap: show the hand's own
                briscola = getattr(hand, "briscola", None)
                # chiamata: the called card, which sets trump, is shown to everyone
                shown = briscola if briscola is not None else getattr(hand, "called", None)
                self.trump(shown if shown is not None else hand.trump)
            if accepted and hand is not None and (
                    getattr(decision, "undone", None) is not None
                    or getattr(decision, "replaced", None) is not None):  # a correction
                self._restore_from(hand)
            winner = getattr(decision, "trick_winner", None)
            if winner is not None:
                self.trick_won(winner)
                self.draw_order(getattr(decision, "draw_order", ()) or ())
            if violation is not None:
                self.violation(getattr(violation, "kind", "other"),
                               getattr(violation, "message", ""),
                               getattr(violation, "seat", None), getattr(violation, "card", None))
            elif accepted:
                self.clear_violation()
            self.turn(getattr(decision, "turn", None))
            result = getattr(decision, "result", None)
            if getattr(decision, "hand_over", False) and result is not None:
                outcome = getattr(result, "result", None) or getattr(result, "outcome", "win")
                self.hand_result(tuple(getattr(result, "points", ())),
                                 tuple(getattr(result, "winners", ())), outcome,
                                 getattr(result, "team_points", None))
        except IndicatorError:
            self._set(state)  # a decision that does not fit: show what we had
            raise

    def _restore_from(self, hand: Any) -> None:
        """After an undo or a correction: trick winner, draw order, trump and result as
        the hand has them."""
        tricks = getattr(hand, "tricks", ())
        trump = getattr(hand, "trump", None)
        briscola = getattr(hand, "briscola", None) or getattr(hand, "called", None)
        self._update(
            players=hand.players, dealer=hand.dealer,
            trick_seat=tricks[-1].winner if tricks else None,
            trick_no=len(tricks) % 256,  # the display says which trick is led next
            draw_order=tuple(getattr(hand, "draw_order", ()) or ()) if tricks else (),
            trump_suit=getattr(trump, "value", "") if trump is not None else "",
            trump_rank=getattr(briscola, "rank", 0) if trump is not None and briscola else 0,
            outcome=OUTCOME_NONE, winners=(), points=(), team_points=())
