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

from table_controller.referee import Decision, Referee

log = logging.getLogger(__name__)


class Output(Protocol):
    """Anything that shows the referee's decisions (indicators, dashboard hub)."""

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
    """Adapts ``firmware_bridge.Indicators`` (``apply(decision, hand)``) to :class:`Output`."""

    def __init__(self, indicators: Any) -> None:
        self.indicators = indicators

    def publish(self, referee: Referee, decision: Decision | None) -> None:
        if decision is not None:
            self.indicators.apply(decision, referee.hand)


class HubOutput:
    """Adapts the dashboard's ``LiveTable`` hub to :class:`Output`."""

    def __init__(self, hub: Any, match: Callable[[], Any] | None = None) -> None:
        self.hub = hub
        self.match = match

    def publish(self, referee: Referee, decision: Decision | None) -> None:
        self.hub.publish(referee, decision)


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
            if self.store is not None and self.match_id is not None:
                self.store.append_event(self.match_id, event, decision, self.referee)
            if decision.accepted and decision.new_hand and self.tracker is not None:
                self.tracker.reset()
            self._show(decision)
            for listener in self.listeners:
                listener(decision)
            return decision

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
        """``undo``, ``new_hand`` (optional ``dealer``), ``event`` (a JSON event),
        ``confirm`` (clears the shown violation)."""
        if name == "undo":
            event: dict[str, Any] = {"type": "undo"}
        elif name == "new_hand":
            event = {"type": "hand"}
            if args.get("dealer") is not None:
                event["dealer"] = args["dealer"]
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
        decision = self.submit(event)
        if decision.accepted:
            return {"accepted": True, "message": "ok"}
        return {"accepted": False, "message": decision.violation.message,
                "kind": decision.violation.kind.value}

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
        for t, frame in frames:
            if stop is not None and stop.is_set():
                break
            self.run_commands()
            decisions = self.on_frame(frame, t)
            if on_frame is not None:
                on_frame(t, decisions)
        self.run_commands()
