"""The live table: camera, then tracker, then referee, then store, then outputs.

One :class:`Controller` owns the referee. Everything that changes the game goes
through :meth:`Controller.submit` on the controller's own thread: events the
tracker settles from camera frames, buttons (undo, new hand) and the phones'
write actions. Each fed event is written to the store (SQLite, durable) before
any output shows it, so after a crash or a power cut :meth:`Controller.resume`
finds the hand exactly where it was. Outputs are the table's indicators (LEDs,
display, the board) and the dashboard's live hub; a failing output is logged
and counted, never allowed to stop the referee.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from table_controller.engine.referee import Decision, Referee

log = logging.getLogger(__name__)

MAX_REFUSED_PICKS = 3  # picks of impossible cards a hold takes before it stops guessing


class Output(Protocol):
    """Anything that shows the referee's decisions (indicators, dashboard hub). An output
    may also have ``show_holds(referee, holds)``: the cards the tracker holds, asking
    a person to name them (``vision.tracker.Hold``; an empty list when none)."""

    def publish(self, referee: Referee, decision: Decision | None) -> None: ...


class Observer(Protocol):
    """Turns a camera frame into what lies in each zone (``vision.observer``)."""

    def observe(self, frame: Any, t: float) -> Any | None: ...


class EventTracker(Protocol):
    def update(self, obs: Any) -> list[dict[str, Any]]: ...

    def reset(self) -> None: ...


@dataclass
class ControllerStats:
    frames: int = 0
    dropped_frames: int = 0  # frames the observer could not use (no mat seen, broken frame)
    events: int = 0
    accepted: int = 0
    violations: int = 0
    output_errors: int = 0
    commands: int = 0


class IndicatorsOutput:
    """Adapts ``firmware_bridge.Indicators`` (``apply(decision, hand)``) to :class:`Output`.
    With ``naming`` (``table_controller.buttons.ButtonNaming``) the display's text is
    the buttons' question about a held card, or the correction under way."""

    def __init__(self, indicators: Any, naming: Any = None) -> None:
        self.indicators = indicators
        self.naming = naming

    def publish(self, referee: Referee, decision: Decision | None) -> None:
        if decision is not None:
            self.indicators.apply(decision, referee.hand)
        if self.naming is not None and self.naming.on_decision(decision):
            self.naming.refresh()

    def show_holds(self, referee: Referee, holds: list[Any]) -> None:
        if self.naming is not None:
            self.naming.refresh(holds)
        else:
            from firmware_bridge.words import words

            self.indicators.text(*hold_lines(holds, words(self.indicators.state.language)))


class HubOutput:
    """Adapts the dashboard's ``LiveTable`` hub to :class:`Output`."""

    def __init__(self, hub: Any, match: Callable[[], Any] | None = None) -> None:
        self.hub = hub
        self.match = match

    def publish(self, referee: Referee, decision: Decision | None) -> None:
        self.hub.publish(referee, decision)

    def show_holds(self, referee: Referee, holds: list[Any]) -> None:
        self.hub.set_holds([h.to_json() for h in holds])


HOLD_REASONS = ("missing", "mismatch", "unplaced", "unknown")


def hold_text(hold: Any, w: dict[str, str] | None = None) -> str:
    """What the table's display says about a held card (P1 is seat 0), in the words
    ``w`` (``firmware_bridge.words.words``: the display's language; English if none)."""
    from firmware_bridge.words import words

    w = w or words()
    who = w["briscola"] if hold.seat is None else f"P{hold.seat + 1}"
    reason = hold.reason if hold.reason in HOLD_REASONS else "unknown"
    return w[f"hold_{reason}"].format(player=who, card=hold.card)


def hold_lines(holds: list[Any], w: dict[str, str] | None = None) -> tuple[str, ...]:
    """The display's lines (4 of 21 characters) for the holds: the first one, and how
    many more wait; none when nothing is held."""
    if not holds:
        return ()
    from firmware_bridge.screen import wrap
    from firmware_bridge.words import words

    w = w or words()
    more = len(holds) - 1
    lines = wrap(hold_text(holds[0], w), max_lines=3 if more else 4)
    if more:
        lines.append(w["hold_more"].format(n=more))
    return tuple(lines)


class Controller:
    """See the module docstring. ``store`` may be None (nothing persisted: tests, demo
    with ``--no-store``); ``clock`` gives the time used for latencies."""

    def __init__(self, referee: Referee, *, store: Any = None, match_id: int | None = None,
                 outputs: Iterable[Output] = (), observer: Observer | None = None,
                 tracker: EventTracker | None = None,
                 new_match: Callable[[], tuple[Referee, int | None]] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.referee = referee
        self.store = store
        self.match_id = match_id
        self.outputs = list(outputs)
        self.observer = observer
        self.tracker = tracker
        self.new_match = new_match
        self.clock = clock
        self.stats = ControllerStats()
        self.commands: queue.Queue[tuple[str, dict[str, Any], Callable | None]] = queue.Queue()
        self.listeners: list[Callable[[Decision], None]] = []
        # Further commands (the dashboard's "setup" and "names"), by name.
        self.handlers: dict[str, Callable[..., dict[str, Any]]] = {}
        self._lock = threading.RLock()
        self._holds_shown: tuple = ()
        self._refused: dict[tuple[str, Any], int] = {}  # refused picks per hold

    # -- feeding the referee -------------------------------------------------------------

    def submit(self, event: dict[str, Any] | str) -> Decision:
        """Feed one event: referee, then store (durable), then every output."""
        with self._lock:
            if isinstance(event, dict) and event.get("type") == "hand" \
                    and self.referee.standing().over and self.new_match is not None:
                self._start_new_match()
            decision = self.referee.feed_json(event)
            self.stats.events += 1
            if decision.accepted:
                self.stats.accepted += 1
            else:
                self.stats.violations += 1
            stored = self.store is not None and self.match_id is not None
            if stored:
                try:
                    self.store.append_event(self.match_id, event, decision, self.referee,
                                            checkpoint=False)
                except BaseException:
                    # Not stored, so not shown: the referee goes back to what the store
                    # holds rather than run ahead of it.
                    self.referee = self.store.replay(self.match_id)
                    raise
            if decision.note is not None:  # accepted; the table's dealer is the event's
                log.info("note: %s", decision.note.message)
            if decision.accepted and decision.new_hand and self.tracker is not None:
                self.tracker.reset()
            if decision.accepted and decision.replaced is not None:
                adopt = getattr(self.tracker, "adopt_correction", None)
                if adopt is not None:  # the card still lying there is the corrected one
                    adopt(decision.replaced.seat, str(decision.replaced.card),
                          str(decision.event.card))
            self._show(decision)
            for listener in self.listeners:
                listener(decision)
            self._show_holds()
            if stored and (decision.hand_over or (self.referee.hand is not None
                                                  and self.referee.hand.is_over())):
                self.store.checkpoint()  # after the outputs: no latency added
            return decision

    def _show_holds(self) -> None:
        """Tell the outputs when the cards the tracker holds have changed."""
        holds = getattr(self.tracker, "holds", None)
        if holds is None:
            return
        now = tuple(holds.values())
        if now == self._holds_shown:
            return
        self._holds_shown = now
        live = {(h.zone, h.t) for h in now}
        self._refused = {k: n for k, n in self._refused.items() if k in live}
        for out in self.outputs:
            show = getattr(out, "show_holds", None)
            if show is None:
                continue
            try:
                show(self.referee, list(now))
            except Exception:  # an output must never stop the referee
                self.stats.output_errors += 1
                log.exception("output %r failed to show the holds", out)

    def _show(self, decision: Decision | None) -> None:
        for out in self.outputs:
            try:
                out.publish(self.referee, decision)
            except Exception:  # an output must never stop the referee
                self.stats.output_errors += 1
                log.exception("output %r failed", out)

    def _start_new_match(self) -> None:
        self.referee, self.match_id = self.new_match()
        if self.tracker is not None:
            self.tracker.reset()
        log.info("match over: a new match begins (id %s)", self.match_id)

    def refresh(self) -> None:
        """Show the current state again (after a resume, or to a new output)."""
        with self._lock:
            self._show(None)

    # -- frames ------------------------------------------------------------------------

    def on_frame(self, frame: Any, t: float) -> list[Decision]:
        """Process one camera frame taken at ``t``: the events it settles, refereed."""
        self.stats.frames += 1
        if self.observer is None or self.tracker is None:
            return []
        try:
            obs = self.observer.observe(frame, t)
        except Exception:  # a broken frame is dropped and counted, never fatal
            log.exception("frame %d could not be observed", self.stats.frames)
            obs = None
        if obs is None:
            self.stats.dropped_frames += 1
            return []
        out = []
        for event in self.tracker.update(obs):
            out.append(self.submit(event))
        self._show_holds()
        return out

    # -- buttons and phones ------------------------------------------------------------

    def command(self, name: str, args: dict[str, Any] | None = None,
                reply: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Queue a command from another thread (a button, the dashboard)."""
        self.commands.put((name, args or {}, reply))

    def run_commands(self) -> None:
        """Run the queued commands (on the controller's thread)."""
        while True:
            try:
                name, args, reply = self.commands.get_nowait()
            except queue.Empty:
                return
            self.stats.commands += 1
            result = self.execute(name, args)
            if reply is not None:
                reply(result)

    def execute(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """``undo``, ``new_hand`` (optional ``dealer``), ``call`` (``seat``, ``card``,
        optional ``points``: chiamata's auction result), ``event`` (a JSON event),
        ``confirm`` (clears the shown violation), ``correct`` (``seat``, ``card``,
        optional ``was``: the card in that seat's zone is ``card``), ``pick`` (``seat``,
        or ``zone`` "briscola", and ``card``: names a card the tracker holds)."""
        if name == "pick":
            return self._pick(args)
        if name == "correct":
            event = {"type": "correct", "seat": args.get("seat"), "card": args.get("card")}
            if args.get("was") is not None:
                event["was"] = args["was"]
            return self._result(self.submit(event))
        if name == "undo":
            event: dict[str, Any] = {"type": "undo"}
        elif name == "new_hand":
            event = {"type": "hand"}
            if args.get("dealer") is not None:
                event["dealer"] = args["dealer"]
        elif name == "call":  # chiamata: the spoken auction's result, from a phone or buttons
            event = {"type": "call", "seat": args.get("seat"), "card": args.get("card")}
            if args.get("points") is not None:
                event["points"] = args["points"]
        elif name == "event":
            event = args.get("event")
            if not isinstance(event, dict):
                return {"accepted": False, "message": "an 'event' command needs an event"}
        elif name == "confirm":
            self.refresh()
            return {"accepted": True, "message": "ok"}
        elif name in self.handlers:  # setup, names: the table's assembly knows how
            try:
                return self.handlers[name](**args)
            except (ValueError, TypeError) as exc:
                return {"accepted": False, "message": str(exc)}
        else:
            return {"accepted": False, "message": f"unknown command {name!r}"}
        return self._result(self.submit(event))

    @staticmethod
    def _result(decision: Decision) -> dict[str, Any]:
        if decision.accepted:
            return {"accepted": True, "message": "ok"}
        return {"accepted": False, "message": decision.violation.message,
                "kind": decision.violation.kind.value}

    def _pick(self, args: dict[str, Any]) -> dict[str, Any]:
        """A person names a held card: its events go the way of any event (refereed,
        stored, shown), then the tracker takes the card as settled in its zone."""
        tracker = self.tracker
        if tracker is None or not hasattr(tracker, "pick_events"):
            return {"accepted": False, "message": "this table has no camera holding a card: "
                    "send the play itself"}
        seat, card = args.get("seat"), args.get("card")
        if args.get("zone") is not None:
            zone = args["zone"]
            if zone not in tracker.zones:
                return {"accepted": False, "message": f"unknown zone {zone!r}"}
        elif isinstance(seat, int) and not isinstance(seat, bool) \
                and seat in tracker.seat_zones:
            zone = tracker.seat_zones[seat]
        else:
            return {"accepted": False, "message": f"a pick needs the seat (0-based) or the "
                    f"zone, not {seat!r}"}
        if not isinstance(card, str):
            return {"accepted": False, "message": "a pick needs the card, such as \"6c\"",
                    "kind": "bad_card"}
        with self._lock:
            hold = getattr(tracker, "holds", {}).get(zone)
            key = (zone, getattr(hold, "t", None))
            # Each refusal says "not there now": enough of them would map the cards
            # already taken, so a hold stops taking guesses outside its likely cards.
            if hold is not None and self._refused.get(key, 0) >= MAX_REFUSED_PICKS and \
                    card.strip().lower() not in hold.likely:
                return {"accepted": False, "kind": "too_many", "message": (
                    "too many cards refused for this one: straighten it, or lift it and "
                    "lay it again")}
            try:
                events = tracker.pick_events(zone, card.strip())
            except ValueError as exc:
                kind = getattr(exc, "kind", "refused")
                if kind == "not_possible":
                    self._refused[key] = self._refused.get(key, 0) + 1
                return {"accepted": False, "message": str(exc), "kind": kind}
            named = next((e["card"] for e in events if "card" in e), card.strip())
            for event in events:
                decision = self.submit(dict(event, source="pick"))
                if not decision.accepted:
                    return self._result(decision)
            tracker.adopt(zone, named)
            self._refused.pop(key, None)
            self._show_holds()
        return {"accepted": True, "message": "ok"}

    def hub_executor(self, command: Any) -> dict[str, Any]:
        """Run a dashboard ``Command`` (kind, args) through the controller's queue."""
        done = threading.Event()
        result: dict[str, Any] = {}

        def reply(r: dict[str, Any]) -> None:
            result.update(r)
            done.set()

        kind = command.kind
        args = dict(command.args)
        if kind == "event":
            args = {"event": args.get("event", args)}
        self.command(kind, args, reply)
        if not done.wait(5.0):
            return {"accepted": False, "message": "the table did not answer in time"}
        return result

    # -- the loop ------------------------------------------------------------------------

    def run(self, frames: Iterable[tuple[float, Any]], stop: threading.Event | None = None,
            on_frame: Callable[[float, list[Decision]], None] | None = None) -> None:
        """Process ``(t, frame)`` pairs until they end or ``stop`` is set."""
        watched = self.clock()
        watch = getattr(self.store, "watch", None)
        for t, frame in frames:
            if stop is not None and stop.is_set():
                break
            if watch is not None and self.clock() - watched >= 1.0:
                watched = self.clock()
                watch()  # a -wal deleted under the table: saved within a second
            self.run_commands()
            decisions = self.on_frame(frame, t)
            if on_frame is not None:
                on_frame(t, decisions)
        self.run_commands()
